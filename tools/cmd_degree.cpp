// seprank degree — the `degree` subcommand: options, one library call, formatting.
#include "cli.hpp"

#include <algorithm>
#include <map>

namespace seprank_cli {

namespace {

struct DegreeCommand final : Command {
    NetOptions dgo;
    std::string budget_text = "0";
    bool with_rank = false;
    std::string degrees_text = "1..6";
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("degree", "Degree growth d^L, measured, per depth; or a fixed-budget comparison across block degrees");
        add_network_options(sub, dgo);
        sub->get_option("--seed")->description(
            "seed of the random integer weights (not with --weights) and of the random line the degree is measured along (0..2^64-1)");
        sub->add_option("--budget", budget_text, "parameter budget B, or a list (24,36,48): compare block degrees at the most layers B buys (floor(B / params per layer); fc with --widths W: its first layer, then W-wide ones), with each one's functional dimension (family hadamard unless --family); 0 (default): degree per depth 1..L")
            ->capture_default_str();
        sub->add_option("--degrees", degrees_text, "block degrees to compare with --budget: a list and ranges (2,3,4 or 1..6)")->capture_default_str();
        sub->add_flag("--rank", with_rank, "--budget: add each architecture's generic separation rank (balanced partition, the table's settings) and log3_rank");
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        std::vector<json> rows;
        std::vector<long> budgets = seprank::parse_list(budget_text, "--budget");
        if (budgets == std::vector<long>{0}) budgets.clear();  // 0: no budget
        for (long b : budgets)
            if (b < 1) throw seprank::invalid_input("--budget " + budget_text + ": expected positive budgets, or 0 for none");
        if (!budgets.empty() && !dgo.save_weights.empty())
            throw seprank::invalid_input("--save-weights: --budget compares several networks; save one with degree --depth L");
        if (budgets.empty() && with_rank) throw seprank::invalid_input("--rank: only with --budget B");
        std::vector<long> budget_degrees = seprank::parse_list(degrees_text, "--degrees");  // checked with or without --budget
        for (long d : budget_degrees)
            if (d < 1 || d > seprank::kMaxBlockDegree)
                throw seprank::invalid_input("--degrees " + degrees_text + ": block degree " + std::to_string(d) + " outside 1.." +
                                             std::to_string(seprank::kMaxBlockDegree));
        // attention fixes its degree at 3, so a budget comparison without --family is
        // hadamard's (as Python's budget()); --family attention is refused, naming why
        // (attention options given: attention, so that its refusal says why)
        const bool attention_options = dgo.heads_given || dgo.head_dim_given || dgo.heads != 1 || dgo.head_dim != 0 || dgo.attention_rank != 0;
        if (!budgets.empty() && dgo.family.empty() && dgo.layers.empty() && !attention_options) dgo.family = "hadamard";
        // a family the comparison cannot vary is the reason, before its other options are checked
        // (power's missing widths, a stack's layers)
        if (!budgets.empty()) seprank::check_budget_family(seprank::family_from_string(family_name(dgo)));
        if (!budgets.empty() && dgo.widths.size() > 1) {  // before the check, which would name a depth not given
            std::string list;
            for (long w : dgo.widths) list += (list.empty() ? "" : ",") + std::to_string(w);
            throw seprank::invalid_input("--widths " + list + ": --budget chooses each network's depth, so it takes one width for every layer (--widths W)");
        }
        check_network_options(dgo);  // every network option's value, used or not
        Notes notes_ignored;
        budgets = notes_ignored.once(budgets, "--budget", budget_text);
        if (!budgets.empty()) {
            budget_degrees = notes_ignored.once(budget_degrees, "--degrees", degrees_text);
            notes_ignored.ignored(*sub, {"--depth"}, "the budget sets each network's depth");
            notes_ignored.ignored(*sub, {"--block-degree", "--power"}, "--budget compares the block degrees of --degrees");
            notes_ignored.ignored(*sub, {"--weight-range"}, "--budget draws every network's weights in the default range");
        } else {
            notes_ignored.ignored(*sub, {"--degrees"}, "the block degrees to compare apply to --budget");
        }
        if (!budgets.empty() && !dgo.weights_file.empty())
            throw seprank::invalid_input("--weights " + dgo.weights_file + ": --budget draws its own networks, one per block degree");
        if (!dgo.weights_file.empty()) notes_ignored.ignored(*sub, network_option_names(), "--weights gives the network");
        if (!budgets.empty()) {
            // The comparison varies the block degree: a family that fixes it (attention, d = 3)
            // is refused by budget_comparison, naming the families that do not.
            const seprank::NetworkSpec base = [&] {
                NetOptions o = dgo;
                o.depth = 1;
                const seprank::FamilyInfo& info = seprank::family_info(seprank::family_from_string(family_name(o)));
                o.power.reset();  // the comparison sets the degree (power networks: refused by it, not here)
                o.block_degree.reset();
                if (info.fixed_block_degree > 0) o.block_degree = info.fixed_block_degree;
                else if (seprank::own_degree_key(info)) o.power = 2;
                else if (info.degree_key != nullptr) o.block_degree = 2;
                return to_spec(o);
            }();
            // An option a row's block does not use (--free at d = 1) is noted for those rows.
            for (long d : budget_degrees) {
                seprank::NetworkSpec at = base;
                at.block_degree = d;
                notes_ignored.network(*sub, at, "at d = " + std::to_string(d) + ", ");
            }
            seprank::BudgetOptions bo;
            bo.dimension = true;
            bo.rank = with_rank;
            bo.threads = globals.threads;
            std::vector<std::string> summary, notes;
            std::map<std::string, double> rank_labels;  // the rows' rank labels, each with its largest failure bound: the text line
            for (long budget : budgets) {
                const auto cmp = seprank::budget_comparison(base, budget, budget_degrees, dgo.seed, bo);
                long best_dim_d = 0, best_dim = -1, best_rank_d = 0, best_rank = -1;
                bool all_converged = true;
                for (const auto& r : cmp.rows) {
                    json row = {{"budget", budget},
                                {"block_degree", r.block_degree},
                                {"layer_params", exact(r.layer_params)},
                                {"depth", r.depth},
                                {"params_used", exact(r.total_params)},
                                {"predicted", exact(r.predicted)},
                                {"measured", r.measured >= 0 ? json(r.measured) : json()},
                                {"ln_deg_per_param", std::round(r.log_degree_per_param * 1e4) / 1e4},
                                {"h_d", std::round(r.h * 1e4) / 1e4},
                                {"note", r.note}};
                    // Library records read off the column registry: the same names and values as table --dimension.
                    seprank::RowSource src;
                    src.dimension = r.dimension ? &*r.dimension : nullptr;
                    src.answer = r.rank ? &*r.rank : nullptr;
                    const std::vector<std::string>& dim_columns = seprank::table_dimension_columns();  // table --dimension's
                    std::vector<std::string> columns = dim_columns;
                    columns.insert(columns.end(), {"rank", "log3_rank", "label", "failure_bound"});
                    const json cells = to_nl(seprank::make_record(src, columns));
                    for (const auto& c : dim_columns) row[c] = cells[c];  // null: not measured
                    if (with_rank) {
                        for (const auto& c : {"rank", "log3_rank"}) row[c] = cells[c];
                        row["rank_status"] = !r.rank ? json() : json(r.rank->converged ? "ok" : "lower-bound");
                        // whose number it is: a generic lower bound at drawn weights, with its failure bound
                        row["rank_label"] = cells["label"];
                        row["rank_failure_bound"] = cells["failure_bound"];
                        if (r.rank) {  // per label, the largest failure bound
                            double& worst = rank_labels[r.rank->label()];
                            worst = std::max(worst, r.rank->failure_bound);
                        }
                    }
                    if (r.dimension && r.dimension->value > best_dim) best_dim = r.dimension->value, best_dim_d = r.block_degree;
                    if (r.rank && r.rank->value > best_rank) best_rank = r.rank->value, best_rank_d = r.block_degree;
                    if (r.rank && !r.rank->converged) all_converged = false;
                    rows.push_back(row);
                    if (!r.note.empty()) notes.push_back("budget " + std::to_string(budget) + ", d = " + std::to_string(r.block_degree) + ": " + r.note);
                }
                summary.push_back("budget " + std::to_string(budget) + ": " +
                                  (cmp.best_measured_d > 0 ? "highest degree reached at d = " + std::to_string(cmp.best_measured_d)
                                                           : std::string("no row reached a degree (each drawn output is the zero polynomial)")) +
                                  "; h(d) = ln d / d peaks (over the listed integers) at d = " + std::to_string(cmp.best_h_d) +
                                  (best_dim >= 0 ? "; largest dimension at d = " + std::to_string(best_dim_d) : std::string()) +
                                  (best_rank >= 0 ? "; largest rank at d = " + std::to_string(best_rank_d) +
                                                        (all_converged ? "" : " (among lower bounds: see rank_status)")
                                                  : std::string()));
            }
            std::vector<std::string> shown = {"budget", "block_degree", "layer_params", "depth", "params_used", "predicted", "measured"};
            if (with_rank) shown.insert(shown.end(), {"rank", "log3_rank", "rank_status"});
            if (with_rank && format == "csv") shown.insert(shown.end(), {"rank_label", "rank_failure_bound"});
            shown.insert(shown.end(), {"dimension", "dim_expected", "dim_defect"});
            if (format == "csv") shown.insert(shown.end(), {"dim_label", "dim_failure_bound"});  // as JSON (text: the columns alone)
            shown.insert(shown.end(), {"ln_deg_per_param", "h_d"});
            if (format == "text" && with_rank) {  // the labels, said once (each row's in JSON and CSV)
                std::string all;
                for (const auto& [label, worst] : rank_labels) all += (all.empty() ? "" : "; ") + seprank::label_with_bound(label, worst);
                if (!all.empty())
                    notes.push_back("rank: " + all + (rank_labels.size() == 1 && rank_labels.begin()->second > 0 ? ", the largest of the rows'" : "") +
                                    " (each row's: rank_label, rank_failure_bound in JSON and CSV)");
            }
            notes_ignored.emit(nullptr);  // after every check and row: an error is the one line
            print_table(rows, format, shown, "-");
            if (format == "text")
                for (const auto& lines : {notes, summary})
                    for (const auto& line : lines) std::cout << line << "\n";
        } else {
            if (dgo.weights_file.empty()) {
                const seprank::ValidSpec deepest = to_spec(dgo);
                seprank::check_measurable(deepest);  // the deepest network first: fail before any work
                notes_ignored.network(*sub, deepest);
            }
            if (!dgo.save_weights.empty() && dgo.weights_file.empty()) make_network(dgo);  // the depth-L network
            NetOptions o = dgo;
            // With --weights the file is read once; depth L keeps its first L layers.
            const std::optional<seprank::Network> file_net =
                o.weights_file.empty() ? std::nullopt : std::optional<seprank::Network>(read_weights(o));
            // the rows: the file's layers; a stack's copies of --layers; else the depth (power: the length of --widths)
            const long max_depth = file_net ? file_net->spec.depth : !dgo.layers.empty() ? dgo.depth.value_or(1) : to_spec(dgo)->depth;
            for (long L = 1; L <= max_depth; ++L) {
                o.depth = L;
                if (!o.widths.empty())  // fc, power: the widths of the first L layers
                    o.widths.assign(dgo.widths.begin(), dgo.widths.begin() + L);
                // the file's first L layers; else drawn (--layers: L repetitions of the list)
                seprank::Network net;
                try {
                    net = file_net ? seprank::first_layers(*file_net, L) : seprank::random_network(to_spec(o), o.seed, o.weight_range);
                } catch (const seprank::invalid_input& e) {
                    if (L == max_depth) throw;  // the network itself
                    // e.g. the output coordinate beyond a narrower earlier layer (fc, power)
                    notes_ignored.lines.push_back("depth " + std::to_string(L) + " has no row: its first layers are no network (" + e.what() + ")");
                    continue;
                }
                // the line's reading, and the expansion's terms and exact degree where it fits
                const seprank::DegreeRow r = seprank::degree_row(net, o.seed, 256.0 * 1024 * 1024);
                // f = 0 at these weights (a weight drawn 0): no degree to measure, as --budget says
                const std::string at = "depth " + std::to_string(r.depth) + ": ";
                const std::string weights = file_net ? std::string("the given weights") : "the weights of seed " + std::to_string(o.seed);
                const std::string other = file_net ? "" : "; another --seed draws other weights";
                if (r.degree < 0 && r.terms >= 0)  // expanded: f = 0 for certain
                    notes_ignored.lines.push_back(at + "f is the zero polynomial at " + weights + ": no measured degree" +
                                                  (file_net ? "" : " (another --seed draws other weights)"));
                else if (r.degree < 0)  // not expanded: f vanished on the random line mod p
                    notes_ignored.lines.push_back(at + "f vanished on the random line mod p at " + weights +
                                                  ": the zero polynomial there, unless the reading is falsely low (probability <= " +
                                                  number_text(seprank::bound_up(r.false_low_bound, 3)) + "); no measured degree" + other);
                else if (fmpz_cmp_si(r.predicted.get(), r.degree) > 0)  // below d^L: these weights cancel its top terms
                    notes_ignored.lines.push_back(at + "measured " + std::to_string(r.degree) + " below the predicted " + r.predicted.str() +
                                                  " at " + weights + ": they cancel f's top degree (a weight 0, or terms that cancel" + other +
                                                  (r.terms >= 0 ? ")" : "), or the reading is falsely low (probability <= " +
                                                                            number_text(seprank::bound_up(r.false_low_bound, 3)) + ")"));
                // the expansion's degree is exact: a line's reading below it was falsely low
                // (a bound's chance); the row gives the exact degree and a note what the line read
                if (r.line_degree != r.degree)
                    notes_ignored.lines.push_back(at + "the line measured " + std::to_string(r.line_degree) + ", the expansion has degree " +
                                                  std::to_string(r.degree) + " (the column gives the expansion's)");
                json row = {{"depth", r.depth},  // layers: with --layers, L copies of the list
                            {"measured", r.degree >= 0 ? json(r.degree) : json()},
                            {"predicted", exact(r.predicted)},
                            {"terms", r.terms >= 0 ? json(r.terms) : json()},  // null: not expanded (over the memory estimate)
                            {"parameters", exact(r.parameters)},
                            {"weight_degree", exact(r.weight_degree)},
                            // the chance D/p that a degree below d^L is a false low reading
                            {"false_low_bound", r.false_low_bound},
                            {"seconds", std::round(r.seconds * 1000) / 1000}};
                rows.push_back(row);
            }
            if (format == "text") std::cout << "# " << describe(file_net ? file_net->spec : to_spec(dgo).get()) << "\n";
            notes_ignored.emit(nullptr);  // after every check and row: an error is the one line
            print_table(rows, format, {"depth", "measured", "predicted", "terms", "parameters", "weight_degree", "seconds"}, "-");
        }
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_degree_command() { return std::make_unique<DegreeCommand>(); }

}  // namespace seprank_cli
