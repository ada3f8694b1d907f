// seprank table — the `table` subcommand: options, one library call, formatting.
#include "cli.hpp"

#include <cmath>
#include <iomanip>

namespace seprank_cli {

namespace {

// "none,1..3" -> {0, 1, 2, 3}: the list syntax of parse_list with `none` for no embedding;
// an empty item is refused (for_each_item) and a bad one named, both as typed.
std::vector<long> embed_rank_list(const std::string& text) {
    std::vector<long> out;
    seprank::for_each_item(text, "--embed-rank", [&](const std::string& item) {
        if (item == "none") {
            out.push_back(0);
            return;
        }
        try {
            for (long v : seprank::parse_list(item, "--embed-rank")) out.push_back(v);
        } catch (const seprank::invalid_input& e) {  // the item's message, naming the list as typed
            std::string why = e.what();
            const std::string own = "--embed-rank '" + item + "': ";
            if (why.rfind(own, 0) == 0) why = why.substr(own.size());
            throw seprank::invalid_input("--embed-rank '" + text + "': " + why + " (items: none, integers, ranges a..b)");
        }
    });
    return out;
}

// Rows in `format`: markdown, CSV (header `cols`), a JSON array (of the keys `cols` only
// when `only`, --fields), or aligned text of the columns `shown`.
void print_rows(const std::vector<seprank::Record>& rows, const std::vector<std::string>& cols, const std::string& format,
                const std::vector<std::string>& shown, bool only) {
    if (format == "json" && only) {  // --fields: those keys, in that order
        std::vector<seprank::Record> kept;
        for (const auto& r : rows) {
            seprank::Record k;
            for (const auto& c : cols)
                if (r.contains(c)) k.set(c, r.at(c));
            kept.push_back(std::move(k));
        }
        std::cout << seprank::to_json(kept, 2) << "\n";
        return;
    }
    if (format == "markdown") {
        std::cout << seprank::markdown_line(cols) << "\n|";
        for (std::size_t i = 0; i < cols.size(); ++i) std::cout << "---|";
        std::cout << "\n";
        for (const auto& r : rows) {
            std::vector<std::string> cells;
            for (const auto& c : cols) cells.push_back(r.at(c).str());
            std::cout << seprank::markdown_line(cells) << "\n";
        }
    } else if (format == "csv") {
        std::cout << seprank::csv_line(cols) << "\n";
        for (const auto& r : rows) std::cout << seprank::csv_line(r, cols) << "\n";
    } else if (format == "json") {
        std::cout << seprank::to_json(rows, 2) << "\n";
    } else {
        std::vector<json> plain;
        for (const auto& r : rows) plain.push_back(to_nl(r));
        print_table(plain, "text", shown);
    }
}

struct TableCommand final : Command {
    std::string t_family, t_tokens, t_dim, t_heads, t_depth, t_degree, t_width, t_partition, t_method = "auto", t_out, t_variant = "auto";
    std::string t_embed, t_head_dim, t_att_rank, t_position, t_preset, t_eps, t_measure = "uniform", t_layers, t_fields;
    long t_budget = 0, t_trials = 1, t_max_side = seprank::table_generic_defaults().max_side;
    double t_row_seconds = 0;
    int t_prime_bits = 62;
    std::uint64_t t_seed = 1;
    bool t_residual = false, t_resume = false, t_block_store = false, t_dimension = false, t_variety = false, t_columns = false, t_blocks = false;
    std::string format = "text";
    std::string device = "cpu";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("table", "Sweep of generic ranks; with no network options, the default table");
        sub->add_option("--family", t_family, "families, e.g. attention,hadamard");
        sub->add_option("--tokens", t_tokens, "list or range, e.g. 2,3 or 2..4");
        sub->add_option("--dim", t_dim, "list or range of dx");
        sub->add_option("--heads", t_heads, "list or range of H");
        sub->add_option("--depth", t_depth, "list or range of L; with --layers, the copies of each SPEC (the depth column then counts all layers)");
        sub->add_option("--block-degree", t_degree, "list or range of d (hadamard, fc); default 2 here, 3 in every other command (docs/usage.md §1.7)");
        sub->add_option("--width", t_width, "list or range of w (hadamard)");
        sub->add_flag("--residual", t_residual, "residual networks");
        sub->add_option("--embed-rank", t_embed, "list or range of the embedding rank r; none (or 0): no embedding, e.g. none,1..4");
        sub->add_option("--head-dim", t_head_dim, "list or range of the head dim da (attention; default dx/H)");
        sub->add_option("--attention-rank", t_att_rank, "list or range of k, the cap on rank(W^Q^T W^K) (attention; 0: none)");
        sub->add_option("--position", t_position, "list or range of the output position i");
        sub->add_option("--layers", t_layers, "stacks: SPECs separated by ';', e.g. 'attention;attention,mlp:power=3' (each repeated --depth times; "
                                              "the family is stack unless --family says otherwise)");
        sub->add_option("--preset", t_preset, "a named sweep instead of network options: default | theorem7.3")
            ->check(one_of(seprank::table_preset_names()));
        sub->add_option("--budget", t_budget, "parameter budget: non-attention depth = floor(B / params per layer); 0 (default): no budget, use --depth");
        sub->add_option("--partition", t_partition, "token partition A|B (default balanced)");
        sub->add_option("--trials", t_trials, "weight draws per row (1..1000)")->capture_default_str();
        sub->add_option("--seed", t_seed, "seed of every row's draws: its primes, weights and points (0..2^64-1)")->check(seed_check())->capture_default_str();
        sub->add_option("--prime-bits", t_prime_bits, "bits of each row's random primes, 20..62 [62; the default table " +
                            std::to_string(seprank::kDefaultTablePrimeBits) +
                            "] (at most 52: the evaluation runs on the AVX-512 IFMA kernel where the processor has it, at most 50 on the AVX2/FMA kernel elsewhere, about 3x faster; the failure bound grows as 2^-bits; --device cuda: at most 31, a larger value lowered with a note)");
        sub->add_option("--method", t_method, "auto|flattening|evaluation")->check(one_of({"auto", "flattening", "evaluation"}))->capture_default_str();
        sub->add_option("--max-side", t_max_side, "evaluation: largest matrix side (graded: sum of the block sides), the size budget")->capture_default_str();
        sub->add_option("--row-seconds", t_row_seconds,
                        "evaluation: time budget of each row in seconds (0: none); a row stopped by it is a lower bound, and its rank then depends on the machine's speed [default: " +
                            seprank::format_seconds(seprank::kTableRowSeconds) + " for the default table, none for other sweeps]");
        sub->add_option("--variant", t_variant, "evaluation: auto|plain|graded (auto: graded when f is homogeneous)")
            ->check(one_of({"auto", "plain", "graded"}))->capture_default_str();
        sub->add_option("--eps", t_eps, "epsilon-rank columns: relative thresholds E[,E...] (spectrum of the seeded integer-weight network)");
        sub->add_option("--measure", t_measure, "--eps: uniform | gaussian")->check(one_of({"uniform", "gaussian"}))->capture_default_str();
        sub->add_flag("--variety", t_variety,
                      "add the degree of every row's image and the weight settings per generic function on the gauge slice (columns variety_degree, "
                      "gauge_fibre; `seprank variety`'s defaults, seeded by --seed; a row over its limits gets null and the reason)");
        sub->add_flag("--dimension", t_dimension, "add the functional dimension of every row (columns dimension, dim_expected, dim_defect, dim_label, dim_failure_bound; scalar output, seeded by --seed)");
        sub->add_option("--out", t_out, "append each finished row to FILE (csv, or JSON lines with --format json)");
        sub->add_flag("--resume", t_resume, "reuse the rows already in --out FILE (only if it was written by the same sweep: same trials, seed, prime bits, method, max-side, variant, partition)");
        sub->add_flag("--block-store", t_block_store, "with --out FILE: each row's graded evaluation keeps its work units in FILE.blocks/ while it runs, so --resume continues a killed row from its finished units, and MPI ranks share every row's units instead of taking whole rows");
        sub->add_flag("--blocks", t_blocks, "one row per configuration and degree block (block, rank, cap_a, cap_b, at_cap, status, total; "
                                            "the graded evaluation computes every row; docs/table_blocks.md)");
        add_device_option(sub, device);
        sub->add_option("--fields", t_fields, "print only these columns, in this order (comma-separated names that --columns lists for this table); "
                                              "--out FILE keeps every column");
        sub->add_flag("--columns", t_columns, "print the name and meaning of every column a row can have, in CSV order, and compute nothing");
        sub->add_option("--format", format, "text|csv|json|markdown")->check(one_of({"text", "csv", "json", "markdown"}));
    }

    int run(const Globals& globals) override {
        if (t_columns) return print_columns();
        const int threads = globals.threads;
        std::vector<seprank::SweepOptions> sweeps;
        const bool custom = !t_family.empty() || !t_tokens.empty() || !t_dim.empty() || !t_heads.empty() || !t_depth.empty() ||
                            !t_degree.empty() || !t_width.empty() || t_residual || t_budget > 0 || !t_embed.empty() ||
                            !t_head_dim.empty() || !t_att_rank.empty() || !t_position.empty() || !t_layers.empty();
        if (custom && !t_preset.empty())
            throw seprank::invalid_input("--preset " + t_preset + " takes no network options (it fixes the whole sweep)");
        if (custom) {
            seprank::SweepOptions sw;
            if (!t_layers.empty()) {
                sw.layers = seprank::split_layers_list(t_layers);
                sw.families = {seprank::family_from_string("stack")};  // --layers names stacks, unless --family lists families
            }
            if (!t_family.empty()) {
                sw.families.clear();
                // every item, an empty one too, is refused by name
                seprank::for_each_item(t_family, "--family", [&](const std::string& f) { sw.families.push_back(seprank::family_from_string(f)); });
            }
            if (!t_tokens.empty()) sw.tokens = seprank::parse_list(t_tokens, "--tokens");
            if (!t_dim.empty()) sw.dims = seprank::parse_list(t_dim, "--dim");
            if (!t_heads.empty()) sw.heads = seprank::parse_list(t_heads, "--heads");
            if (!t_depth.empty()) sw.depths = seprank::parse_list(t_depth, "--depth");
            sw.block_degrees = t_degree.empty() ? std::vector<long>{2} : seprank::parse_list(t_degree, "--block-degree");
            if (!t_width.empty()) sw.widths = seprank::parse_list(t_width, "--width");
            sw.residual = {t_residual};
            if (!t_embed.empty()) sw.embed_ranks = embed_rank_list(t_embed);
            if (!t_head_dim.empty()) sw.head_dims = seprank::parse_list(t_head_dim, "--head-dim");
            if (!t_att_rank.empty()) sw.attention_ranks = seprank::parse_list(t_att_rank, "--attention-rank");
            if (!t_position.empty()) sw.positions = seprank::parse_list(t_position, "--position");
            sw.budget = t_budget;
            sweeps.push_back(sw);
        } else {
            sweeps = seprank::table_preset(t_preset.empty() ? "default" : t_preset);
        }
        // Resolved once, before any row: cuda without a GPU stops here (exit 2).
        const seprank::DeviceChoice dev = seprank::choose_device(device_of(device));
        const bool layers = !t_layers.empty();
        const auto all_cols = t_blocks ? seprank::table_block_columns(layers, dev.device != seprank::Device::cpu)
                                       : seprank::table_columns(!t_eps.empty(), t_dimension, layers, dev.device != seprank::Device::cpu, t_variety);
        const std::vector<std::string> fields = field_list(all_cols);
        if (dev.device != seprank::Device::cpu || !dev.note.empty()) {
            Notes n;
            n.lines.push_back(dev.note.empty() ? "rows evaluated on " + dev.name + " (primes of at most " +
                                                     std::to_string(seprank::cuda_prime_bits()) + " bits; the flattening rows on the CPU)"
                                               : dev.note);
            n.emit(nullptr);
        }
        for (auto& sw : sweeps) {
            sw.partition = t_partition;
            sw.generic.trials = t_trials;
            sw.generic.seed = t_seed;
            // out of range: refused by name (plan_table); not given: the sweep's own (the
            // default table's kDefaultTablePrimeBits, else 62)
            if (sub->count("--prime-bits") > 0) sw.generic.prime_bits = t_prime_bits;
            sw.generic.method = seprank::generic_method_from_string(t_method);
            sw.generic.max_side = t_max_side;
            if (sub->count("--row-seconds") > 0 && (!(t_row_seconds >= 0) || !std::isfinite(t_row_seconds)))
                throw seprank::invalid_input("--row-seconds " + typed_number(*sub, "--row-seconds", t_row_seconds) + " must be a finite number >= 0 (0: no time budget)");
            if (sub->count("--row-seconds") > 0) sw.generic.max_seconds = t_row_seconds;  // else the preset's (default table) or none
            sw.generic.variant = seprank::evaluation_variant_from_string(t_variant);
            sw.generic.threads = threads;
            sw.generic.device = dev.device;
            sw.eps = parse_eps(t_eps);
            sw.measure = seprank::measure_from_string(t_measure);
            sw.dimension = t_dimension;
            sw.variety = t_variety;
            sw.blocks = t_blocks;
        }
        seprank::TablePlan planned = seprank::plan_table(sweeps);
        std::vector<seprank::PlannedRow>& plan = planned.rows;
        const long invalid = planned.invalid, duplicates = planned.duplicates;
        if (t_resume && t_out.empty()) throw seprank::invalid_input("--resume needs --out FILE");
        if (!t_out.empty() && format == "markdown") throw seprank::invalid_input("--out writes csv or json lines: use --format text or csv (the file is CSV) or json");
        if (t_block_store && t_out.empty()) throw seprank::invalid_input("--block-store needs --out FILE (the units go to FILE.blocks/)");
        if (t_block_store)
            for (auto& pr : plan) pr.sweep.block_store = t_out + ".blocks";
#ifdef SEPRANK_HAVE_MPI
        const bool distributed = mpi_requested();
        const bool root = !distributed || mpi_rank() == 0;
        const int ranks = distributed ? mpi_size() : 1;
        if (distributed) {
            flint_set_num_threads(1);  // one rank per core
            for (auto& pr : plan) pr.sweep.generic.threads = 1;
        }
#else
        const bool distributed = false, root = true;
        const int ranks = 1;
#endif
        const bool jsonl = format == "json";
        seprank::ResumeSet resume;
        std::unique_ptr<seprank::TableAppender> out;
        if (root) {
            if (!t_out.empty()) {
                // Locks the file, reads its rows, refuses another sweep's file (docs/usage.md §1.7).
                out = std::make_unique<seprank::TableAppender>(t_out, jsonl, seprank::sweep_signature(plan.front().sweep), t_resume);
                resume = seprank::resume_set(out->rows(), plan, t_out);
            }
        }
        const std::map<std::string, seprank::Row>& done = resume.rows;
        // Rows done, the row under way, elapsed (no ETA: rows grow in cost) on stderr: a bar on a terminal, a
        // line every few seconds otherwise, nothing with --quiet (docs/progress.md).
        Globals shown = globals;
        shown.quiet = globals.quiet || !root;
        const auto meter = make_progress(shown);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<seprank::Row> rows;
        long computed = 0, resumed = 0;
        const seprank::EmitRow emit = [&](const seprank::Row& r, bool fresh) {
            if (fresh && out) out->append(r);
            (fresh ? computed : resumed)++;
            rows.push_back(r);
        };
        const seprank::Progress progress = [&](std::size_t k, const seprank::NetworkSpec& spec) {
            // Rows grow in cost (each deeper or wider than the last): no time left is guessed.
            meter->report("rows", k, plan.size(), describe(spec), false);
        };
        // Lower-bound rows of a block table computed again at a larger max side start from
        // their block ranks (block hints; under MPI rank 0 sends them with the finished rows,
        // and every rank applies them to its plan; rank 0's plan has them from here, so its
        // row stores are named with them when they are removed below).
        seprank::apply_resume_hints(plan, resume.hints);
        with_expansion_flags("--max-memory, or --method evaluation", [&] {
#ifdef SEPRANK_HAVE_MPI
            if (distributed) run_table_mpi(plan, done, resume.hints, emit, progress, t_block_store);
            else seprank::run_table(plan, done, emit, progress);
#else
            seprank::run_table(plan, done, emit, progress);
#endif
        });
        (void)distributed;
        if (!root) return 0;
        // every row is out: no unit is needed any more (also those of rows finished before a
        // kill, and stores named with other block hints)
        if (t_block_store) seprank::remove_table_block_store(t_out + ".blocks");
        meter->report("rows", plan.size(), plan.size(), {}, false);
        meter->finish();
        // Options no row used: a note on stderr each. The JSON output stays an array of
        // rows (and --out JSON lines one row each), so the notes are not added to it.
        Notes notes;
        for (const seprank::UnusedOptions& u : seprank::unused_table_options(sweeps, rows)) {
            std::vector<std::string> flags;
            for (std::string n : u.names) {
                std::replace(n.begin(), n.end(), '_', '-');
                flags.push_back("--" + n);
            }
            notes.ignored(*sub, flags, u.reason);
        }
        for (const auto& pr : plan) notes.network(*sub, pr.spec);  // a layer's field no network reads (once each)
        if (resume.duplicates > 0)
            notes.lines.push_back(std::to_string(resume.duplicates) + " row(s) of " + t_out +
                                  " repeat an earlier row's configuration: the last of each was reused");
        if (planned.too_large > 0)
            notes.lines.push_back(std::to_string(planned.too_large) + " configuration(s) too large to build left out (the first: " +
                                  planned.first_too_large + ")");
        if (resume.recompute > 0)
            notes.lines.push_back(std::to_string(resume.recompute) + " lower-bound row(s) of " + t_out +
                                  " stopped at a smaller max side: computed again at " + std::to_string(t_max_side) + ", the new rows appended" +
                                  (resume.hints.empty() ? std::string()
                                                        : " (" + std::to_string(resume.hints.size()) +
                                                              " of them with their block ranks as block hints, docs/evaluation.md)"));
        if (resume.recompute_columns > 0)
            notes.lines.push_back(std::to_string(resume.recompute_columns) + " row(s) of " + t_out +
                                  " had a rank, dimension or variety left empty by a limit (their reason says which): computed again, the new rows appended");
        {  // rows whose rank a limit refused (table.hpp: skipped, the reason kRankRefused and the refusal)
            const std::string tag = seprank::kRankRefused;
            long refused = 0;
            std::string first;
            for (const seprank::Row& r : rows)
                if (r.at("status").str() == "skipped" && r.at("reason").str().rfind(tag, 0) == 0 && refused++ == 0)
                    first = r.at("reason").str().substr(tag.size());
            // The ways out only where they apply: a refusal by --max-memory or --max-time (the
            // evaluation never expands), not a fixed limit (an exponent past 64 bits, say).
            const bool by_limit = first.find("(--max-memory)") != std::string::npos || first.find("(--max-time)") != std::string::npos;
            const std::string ways = !by_limit ? std::string()
                                     : first.rfind("expansion refused", 0) == 0 ? " [here: --max-memory, or --method evaluation]"
                                                                                 : " [here: --max-memory, --max-time]";
            if (refused > 0)
                notes.lines.push_back(std::to_string(refused) + " row(s) skipped: a limit refused their rank (the first: " +
                                      first.substr(0, first.find(';')) + ")" + ways +
                                      (t_out.empty() || !by_limit ? std::string() : "; --resume computes them again once the limit admits them"));
        }
        if (resume.outside > 0)
            notes.lines.push_back(std::to_string(resume.outside) + " row(s) of " + t_out +
                                  " are outside this sweep: kept in the file, not shown");
        notes.emit(nullptr);
        if (t_blocks) {  // one row per block (table_blocks.hpp); ε and dimension columns stay in the configuration
            std::vector<seprank::Row> blocks;
            for (const seprank::Row& r : rows)
                for (seprank::Row& b : seprank::block_rows(r)) blocks.push_back(std::move(b));
            std::vector<std::string> shown = {"family", "tokens", "dim", "heads", "depth", "partition", "degree", "block", "rank", "cap_a", "cap_b", "at_cap", "status", "total"};
            if (layers) shown.insert(shown.begin() + 1, "layers");
            print_rows(blocks, fields.empty() ? all_cols : fields, format, fields.empty() ? shown : fields, !fields.empty());
        } else {
            std::vector<std::string> shown = {"family", "tokens", "dim", "heads", "block_degree", "width", "depth", "partition", "degree", "rank", "method", "certified", "log3_rank", "theorem", "log3_lower", "log3_upper", "outside", "status", "seconds", "peak_mib"};
            // Theorem 7.3 columns only when some row has an embedding
            if (std::any_of(rows.begin(), rows.end(), [](const seprank::Row& r) { return r.at("embed_rank").str() != "0"; })) {
                shown.insert(std::find(shown.begin(), shown.end(), "partition"), "embed_rank");
                shown.insert(std::find(shown.begin(), shown.end(), "status"), {"s_up", "s_low", "ratio_up", "ratio_low", "t73_flag"});
            }
            if (!t_eps.empty()) shown.insert(std::find(shown.begin(), shown.end(), "status"), {"eps", "eps_ranks", "eps_certified"});
            if (t_dimension) shown.insert(std::find(shown.begin(), shown.end(), "status"), {"dimension", "dim_expected", "dim_defect"});
            if (t_variety) shown.insert(std::find(shown.begin(), shown.end(), "status"), {"variety_degree", "variety_degree_at_least", "variety_degree_at_most", "gauge_fibre"});
            if (layers) shown.insert(shown.begin() + 1, "layers");
            if (dev.device != seprank::Device::cpu) shown.push_back("device");
            print_rows(rows, fields.empty() ? all_cols : fields, format, fields.empty() ? shown : fields, !fields.empty());
        }
        check_stdout();  // a failed write is the one error line, after no summary
        std::cerr << "seprank table: " << computed << " rows computed, " << resumed << " resumed, " << invalid
                  << " invalid combinations left out"
                  << (invalid > 0 && !planned.first_invalid.empty() ? " (the first: " + cli_names(planned.first_invalid) + ")" : std::string()) << ", "
                  << (duplicates > 0 ? std::to_string(duplicates) + " duplicate configurations planned once, " : std::string())
                  << (planned.too_large > 0 ? std::to_string(planned.too_large) + " too large to build left out, " : std::string())
                  << std::round(seconds_since(t0) * 10) / 10 << " s"
                  << (ranks > 1 ? " on " + std::to_string(ranks) + " MPI ranks" +
                                      (t_block_store ? " (sharing each row through its block store)" : " (each row on one rank)")
                                : std::string())
                  << "\n";
        return 0;
    }

    // --fields: the names, each a column of this table (all_cols), in the order given; none
    // given: empty (every column). invalid_input naming an unknown or repeated one.
    std::vector<std::string> field_list(const std::vector<std::string>& all_cols) const {
        std::vector<std::string> out;
        if (sub->count("--fields") == 0) return out;
        seprank::for_each_item(t_fields, "--fields", [&](const std::string& f) {
            if (std::find(all_cols.begin(), all_cols.end(), f) == all_cols.end())
                throw seprank::invalid_input("--fields: '" + seprank::detail::cut(f) + "' is no column of this table (`seprank table --columns` lists them; " +
                                             (t_blocks ? "--blocks" : "--eps, --dimension, --variety, --layers, --blocks") + " change which apply)");
            if (std::find(out.begin(), out.end(), f) != out.end()) throw seprank::invalid_input("--fields: '" + f + "' named twice");
            out.push_back(f);
        });
        return out;
    }

    // --columns: the registry's meaning of every column. It computes nothing, so an option
    // beside it (other than --format) is refused, naming it.
    int print_columns() const {
        for (const CLI::Option* o : sub->get_options())
            if (o->count() > 0 && o->get_name() != "--columns" && o->get_name() != "--format")
                throw seprank::invalid_input("--columns takes no other option than --format (it lists the columns and computes nothing): " +
                                             o->get_name() + " given");
        std::vector<seprank::Record> rows;
        for (const seprank::Column& c : seprank::table_column_meanings()) {
            seprank::Record r;
            r.set("column", c.name);
            r.set("meaning", c.help);
            rows.push_back(r);
        }
        if (format == "text") {  // left-aligned: the meanings are sentences
            std::size_t width = 0;
            for (const auto& r : rows) width = std::max(width, r.at("column").str().size());
            for (const auto& r : rows)
                std::cout << std::left << std::setw(static_cast<int>(width) + 2) << r.at("column").str() << r.at("meaning").str() << "\n";
        } else {
            print_rows(rows, {"column", "meaning"}, format, {}, false);
        }
        check_stdout();
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_table_command() { return std::make_unique<TableCommand>(); }

}  // namespace seprank_cli
