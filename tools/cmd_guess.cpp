// seprank guess — the `guess` subcommand: read a table, one library call, format; with
// --check, each predicted point is also computed by `generic` (check_prediction,
// docs/guess.md).
#include "cli.hpp"
#include "guess_blocks_cli.hpp"

#include "seprank/guess.hpp"
#include "seprank/partition.hpp"

#include <algorithm>
#include <fstream>
#include <cmath>
#include <optional>
#include <sstream>

namespace seprank_cli {

namespace {

using Cells = seprank::TableRow;

// "1 row", "2 rows".
std::string count(long n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

using seprank::table_cell;

struct GuessCommand final : Command {
    std::string table, value = "rank", vars_text, where_text, format = "text", bases_text = "2..9";
    std::vector<std::string> where_items;  // --where, each occurrence; where_text: joined by commas
    std::vector<std::string> predict;
    bool check = false;
    double check_seconds = 60;
    long check_trials = 2, check_max_side = 4096;
    seprank::GuessOptions o;
    bool blocks = false;
    int max_forms = 3;
    std::vector<std::string> against;

    void add(CLI::App& app) override {
        sub = app.add_subcommand("guess",
            "Closed form of a table column (polynomial, exp-linear, binomial C(g+x,x), exp-sum, hypergeometric, C-finite or "
            "P-recursive), fitted exactly on the fewest rows and confirmed on the others; a conjecture, never exact");
        sub->add_option("table", table, "table file: CSV with a header (seprank table --format csv), a JSON array of objects or JSON lines")->required();
        sub->add_option("--value", value, "the column to explain (integers)")->capture_default_str();
        sub->add_option("--vars", vars_text, "1 to 3 integer columns the value is a function of, e.g. dim,depth")->required();
        sub->add_option("--where", where_items, "keep rows with these column values, e.g. tokens=2,heads=1, or the option repeated (a comma not followed by name= belongs to the value: layers=attention,mlp:power=2)")
            ->allow_extra_args(false);
        sub->add_option("--predict", predict, "evaluate the formula at a point, e.g. dim=3,depth=5 (repeatable)");
        sub->add_flag("--check", check, "also compute each predicted point with `generic` (from the first kept row's network) and say agree/disagree");
        sub->add_option("--check-seconds", check_seconds, "--check: time budget per point in seconds (> 0); a point not done in time is reported unchecked")->capture_default_str();
        sub->add_option("--check-trials", check_trials, "--check: weight draws per point (as generic --trials)")->capture_default_str();
        sub->add_option("--check-max-side", check_max_side, "--check: largest evaluation matrix side (as generic --max-side); a prediction above it is not computed (unchecked)")->capture_default_str();
        sub->add_option("--max-degree", o.max_degree, "polynomials: total degree at most this (0..8)")->capture_default_str();
        sub->add_option("--bases", bases_text, "exponential bases c of c^x, e.g. 2,3 or 2..9 (each 2..16; empty: none)")->capture_default_str();
        sub->add_option("--max-exps", o.max_exps, "exp-sums: at most this many exponentials c^x, the constant counted as 1^x (1..4; 1: none)")->capture_default_str();
        sub->add_option("--max-order", o.max_order, "recurrences (one variable): order at most this (0..6)")->capture_default_str();
        sub->add_option("--max-params", o.max_params, "size bound: forms with more free parameters are not tried (1..64)")->capture_default_str();
        sub->add_option("--min-confirm", o.min_confirm, "held-out rows a form must predict (>= 1)")->capture_default_str();
        sub->add_option("--max-exceptions", o.max_exceptions, "rows a polynomial, exp-linear, exp-sum or binomial form may miss, each named (>= 0); it must still be confirmed on more rows than it misses (--blocks: rows the law may miss, 0..64, default 2)")->capture_default_str();
        sub->add_flag("--blocks", blocks, "a block table (seprank table --blocks): a law of the block ranks, min(cap_a, cap_b, F_1, ...) with each F a "
                                          "product of binomials in the variables and the block's index (docs/guess_blocks.md)");
        sub->add_option("--max-forms", max_forms, "--blocks: forms in the law beside the cap (1..4)")->capture_default_str();
        sub->add_option("--against", against, "--blocks: compare the law with the rows of another block table, block by block (repeatable)");
        sub->add_option("--format", format, "text|json")->check(one_of({"text", "json"}));
    }

    // --check's options, each named by its flag: checked on both paths (plain and --blocks),
    // and refused if invalid even without --check.
    seprank::CheckOptions checked_check_options(const Globals& globals) const {
        if (check_max_side < 1) throw seprank::invalid_input("--check-max-side " + std::to_string(check_max_side) + " must be at least 1");
        if (!(check_seconds > 0) || !std::isfinite(check_seconds))
            throw seprank::invalid_input("--check-seconds " + typed_number(*sub, "--check-seconds", check_seconds) + " must be a finite number > 0");
        if (check_trials < 1 || check_trials > 1000) throw seprank::invalid_input("--check-trials " + std::to_string(check_trials) + " outside 1..1000");
        seprank::CheckOptions c;
        c.seconds = check_seconds;
        c.trials = check_trials;
        c.max_side = check_max_side;
        c.threads = globals.threads;
        seprank::check_options(c);
        return c;
    }

    int run(const Globals& globals) override {
        for (std::size_t i = 0; i < where_items.size(); ++i) where_text += (i ? "," : "") + where_items[i];  // as one list
        if (blocks) return run_blocks(globals);
        o.vars = seprank::split_at(vars_text, ',');  // every item kept: "n," names an empty variable, which check_options refuses
        const bool none = bases_text.find_first_not_of(" \t\r\n") == std::string::npos;  // "" or blanks: none (as Python's)
        o.bases = none ? std::vector<long>{} : seprank::parse_list(bases_text, "--bases");
        seprank::check_options(o);
        const seprank::CheckOptions check_opts = checked_check_options(globals);
        Notes notes;
        if (!check) notes.ignored(*sub, {"--check-seconds", "--check-trials", "--check-max-side"}, "only --check reads it");
        if (check && predict.empty()) notes.ignored(*sub, {"--check"}, "there is no --predict point to check");
        // refused if invalid even here, where --blocks alone reads them
        if (max_forms < 1 || max_forms > 4) throw seprank::invalid_input("--max-forms " + std::to_string(max_forms) + ": expected 1..4");
        for (const std::string& a : against)
            if (!std::ifstream(a)) throw seprank::invalid_input("--against " + a + ": cannot open the table file");
        notes.ignored(*sub, {"--max-forms", "--against"}, "only guess --blocks reads it (without --blocks, guess fits one formula to the value column)");
        const Cells where = where_text.empty() ? Cells{} : seprank::parse_where(where_text);
        const std::vector<std::vector<long>> points = predict_points(predict, o.vars);
        // (a stack table's `copies`, named in --vars or --where, guess_points derives, and
        // row_matches for --check's row)
        const auto cells = seprank::read_table_cells(table);
        const std::vector<seprank::GuessPoint> pts = seprank::guess_points(cells, o.vars, value, where);
        const auto t0 = std::chrono::steady_clock::now();
        // the search reports its forms (docs/progress.md) and stops at --max-time
        const seprank::Guess g = with_progress(globals, [&] { return seprank::guess_formula(pts, o); });
        const double secs = seconds_since(t0);

        const auto point_json = [&](const std::vector<long>& x) {
            json p = json::object();
            for (std::size_t i = 0; i < x.size(); ++i) p[o.vars[i]] = x[i];
            return p;
        };
        const auto point_text = [&](const std::vector<long>& x) {
            std::string s;
            for (std::size_t i = 0; i < x.size(); ++i) s += (i ? "," : "") + o.vars[i] + "=" + std::to_string(x[i]);
            return s;
        };
        json j;
        j["table"] = table;
        j["value"] = value;
        j["vars"] = o.vars;
        j["rows"] = g.rows.size();
        j["found"] = g.found;
        j["seconds"] = std::round(secs * 1e4) / 1e4;
        j["forms_tried"] = g.tried;
        j["forms_refuted"] = g.refuted;
        j["forms_skipped"] = g.skipped;
        // Rows the table marks (status lower-bound, value rank): ranks that are bounds. Said
        // with the answer, and in the one line of a failed search, where they may be the cause.
        std::string marked;
        long n_marked = 0;
        for (const seprank::GuessPoint& p : g.rows)
            if (!p.status.empty() && ++n_marked <= 3) marked += std::string(n_marked > 1 ? ", " : "") + point_text(p.x) + " (" + p.status + ")";
        if (n_marked > 3) marked += ", …";
        const std::string marked_line = n_marked == 0 ? std::string()
                                                      : (n_marked == 1 ? std::string("1 row read is") : std::to_string(n_marked) + " rows read are") +
                                                            " marked by the table's status column, so a value may be a bound, not the value: " +
                                                            marked + "; --where status=ok leaves them out";
        // What the rows are (certified, generic lower bounds, …): a form is only as sure as them.
        const seprank::RowLabels labels = seprank::row_labels(g.rows);
        if (!labels.counts.empty()) {
            json lc = json::object();
            for (const auto& [name, n] : labels.counts) lc[name] = n;
            j["row_labels"] = lc;
            j["rows_failure_bound"] = labels.failure_bound;
        }
        if (!g.found) {
            // One line on stderr: the notes go into the JSON answer only.
            if (!notes.lines.empty() && format == "json") j["notes"] = notes.lines;
            j["reason"] = g.reason;
            if (n_marked > 0) j["marked"] = marked_line;
            // A rank table of whole networks that no form nearly fits and no bound may spoil:
            // its ranks may still follow a law per degree block (the N = 3 attention ranks
            // do, docs/conjectures.md), which guess --blocks finds.
            const bool blocks_may_help = value == "rank" && n_marked == 0 && !g.near_miss &&
                                         !cells.empty() && seprank::table_cell(cells.front(), "block") == nullptr &&
                                         seprank::table_cell(cells.front(), "family") != nullptr;
            const std::string blocks_hint =
                blocks_may_help ? "; a rank no closed form fits may still follow a law per degree block: seprank table --blocks writes "
                                  "one row per block, seprank guess --blocks fits them (docs/guess_blocks.md)"
                                : "";
            // A stack table fitted in depth, which counts layers: its law is in the copies of
            // the SPEC (bases that are square roots in depth), which guess derives.
            bool copies_may_help = false;
            if (std::find(o.vars.begin(), o.vars.end(), "depth") != o.vars.end() &&
                std::find(o.vars.begin(), o.vars.end(), "copies") == o.vars.end()) {
                bool all = true, deeper = false;
                for (const seprank::TableRow& r : seprank::with_stack_copies(cells)) {
                    if (!seprank::row_matches(r, where)) continue;
                    const std::string* c = seprank::table_cell(r, "copies");
                    const std::string* d = seprank::table_cell(r, "depth");
                    all = all && c != nullptr;
                    deeper = deeper || (c && d && *c != *d);
                }
                copies_may_help = all && deeper;
            }
            const std::string copies_hint = copies_may_help ? "; these rows are copies of a stack's SPEC, and depth counts its layers: "
                                                              "a law in the copies is fitted with --vars copies (docs/guess.md)"
                                                            : "";
            if (blocks_may_help || copies_may_help) j["hint"] = (copies_hint + blocks_hint).substr(2);
            if (format == "json") std::cout << json_text(j, 2) << "\n";
            std::cerr << "seprank: no guess: " << g.reason << (n_marked > 0 ? " (" + marked_line + ")" : std::string()) << copies_hint
                      << blocks_hint << "\n";
            return 1;
        }
        if (n_marked > 0) notes.add(marked_line);
        j["formula"] = g.formula.text();
        j["latex"] = g.formula.latex();
        j["form"] = seprank::to_string(g.formula.kind);
        j["kind"] = "conjecture";
        j["params"] = g.params;
        j["fitted"] = g.fitted;
        j["confirmed"] = g.confirmed;
        json fit = json::array(), conf = json::array();
        for (std::size_t i : g.fit_rows) fit.push_back(point_json(g.rows[i].x));
        for (std::size_t i : g.confirm_rows) conf.push_back(point_json(g.rows[i].x));
        j["rows_fitted"] = fit;
        j["rows_confirmed"] = conf;
        if (o.max_exceptions > 0) {
            json exc = json::array();
            for (const seprank::GuessException& e : g.exceptions) {
                json p = json::object();
                p["point"] = point_json(g.rows[e.row].x);
                p["value"] = exact(g.rows[e.row].value);
                p["formula"] = !e.defined ? json(nullptr) : e.value.is_integer() ? exact(e.value.num()) : json(e.value.str());
                exc.push_back(p);
            }
            j["exceptions"] = exc;
        }
        if (g.formula.kind == seprank::FormKind::hypergeometric) j["recurrence"] = g.formula.recurrence();
        if (!g.formula.init.empty()) {  // a recurrence's initial values
            json init = json::array();
            for (std::size_t k = 0; k < g.formula.init.size(); ++k) {
                json p = point_json({g.formula.init_start + static_cast<long>(k)});
                p["value"] = exact(g.formula.init[k]);
                init.push_back(p);
            }
            j["initial_values"] = init;
        }
        // --check builds each point's network from the first row --where keeps.
        const Cells* tmpl = nullptr;
        if (check)
            for (const auto& row : cells)
                if (seprank::row_matches(row, where)) {
                    tmpl = &row;
                    break;
                }
        // Every point is evaluated before anything is checked or printed: a point outside
        // the formula's domain (invalid_input, exit 2) or too large to evaluate
        // (resource_limit, exit 3) ends the run with its one line.
        std::vector<seprank::Rational> values;
        for (const std::vector<long>& x : points) values.push_back(seprank::guess_predict(g, x));
        json preds = json::array();
        std::ostringstream ptext;
        std::string refuted;  // the points where --check disagreed: exit 1 after the answer
        // --check: each point's generic run reports on stderr (docs/progress.md), under the
        // phase "guess checks" (points checked of all).
        const auto meter = make_progress(globals);
        const seprank::ProgressScope progress(check ? meter->observer() : seprank::ProgressObserver{});
        for (std::size_t q = 0; q < points.size(); ++q) {
            const std::vector<long>& x = points[q];
            const std::optional<seprank::Rational> predicted = values[q];
            json p;
            p["point"] = point_json(x);
            p["value"] = predicted->is_integer() ? exact(predicted->num()) : json(predicted->str());
            const std::string shown = predicted->str();
            std::string checked;
            if (check) {
                if (!tmpl) throw seprank::invalid_input("--check: no table row matches --where " + where_text);
                seprank::PredictionCheck r;
                seprank::report_progress(seprank::current_progress(), "guess checks", q, points.size(), "generic at " + point_text(x));
                std::string unchecked;  // why the point's network could not be ranked: the prediction stands, unchecked
                try {
                    r = seprank::check_prediction(*tmpl, o.vars, x, *predicted, check_opts);
                } catch (const seprank::invalid_input& e) {  // the library's "check: ..." as the flag
                    const std::string m = e.what();  // else the network at the point is not one seprank builds
                    if (m.rfind("check: ", 0) == 0) throw seprank::invalid_input("--" + m);
                    unchecked = m;
                } catch (const seprank::resource_limit& e) {  // a network too large to build or rank here
                    unchecked = e.what();
                }
                json c;
                if (!unchecked.empty()) {
                    checked = " [unchecked: " + unchecked + "]";
                    c["verdict"] = "unchecked";
                    c["reason"] = unchecked;
                } else {
                    const std::string verdict = r.reason.empty() ? r.verdict : r.verdict + ": " + r.reason;
                    if (r.done) {
                        c["generic"] = r.generic;
                        c["label"] = r.label;
                        c["failure_bound"] = r.failure_bound;
                        checked = " [generic " + std::to_string(r.generic) + ", " + seprank::label_with_bound(r.label, r.failure_bound) + ": " +
                                  verdict + "]";
                    } else {
                        checked = " [" + verdict + "]";
                    }
                    c["verdict"] = r.verdict;
                    if (r.verdict == "disagree")
                        refuted += (refuted.empty() ? "" : "; ") + point_text(x) + ": predicted " + shown + ", generic " + std::to_string(r.generic);
                    if (!r.reason.empty()) c["reason"] = r.reason;
                    c["seconds"] = std::round(r.seconds * 1e3) / 1e3;
                }
                p["check"] = c;
            }
            preds.push_back(p);
            ptext << "predict     " << point_text(x) << ": " << shown << checked << "\n";
        }
        if (check) seprank::report_progress(seprank::current_progress(), "guess checks", points.size(), points.size(), "done");
        meter->finish();
        if (!points.empty()) j["predictions"] = preds;
        notes.emit(format == "json" ? &j : nullptr);
        // A check that disagrees refutes the conjecture: the answer in full, then exit 1 with
        // one line naming the points (as verify's FAIL).
        const auto done = [&] {
            if (refuted.empty()) return 0;
            std::cerr << "seprank: the guess is refuted by --check at " << refuted << "\n";
            return 1;
        };
        if (format == "json") {
            std::cout << json_text(j, 2) << "\n";
            return done();
        }
        std::cout << "# guess " << value << " as a function of " << vars_text << " from " << g.rows.size() << " rows of " << table
                  << (where_text.empty() ? "" : " (where " + where_text + ")") << "\n";
        std::cout << "formula     " << g.formula.text() << "\n";
        std::cout << "latex       " << g.formula.latex() << "\n";
        if (g.formula.kind == seprank::FormKind::hypergeometric) std::cout << "recurrence  " << g.formula.recurrence() << "\n";
        std::cout << "kind        conjecture (" << seprank::to_string(g.formula.kind) << ", " << count(g.params, "free parameter", "free parameters")
                  << ", fitted on " << count(g.fitted, "row", "rows") << ", confirmed on " << count(g.confirmed, "held-out row", "held-out rows")
                  << (g.exceptions.empty() ? std::string() : ", " + count(static_cast<long>(g.exceptions.size()), "exception", "exceptions")) << ")\n";
        std::cout << "fitted      ";
        for (std::size_t k = 0; k < g.fit_rows.size(); ++k) std::cout << (k ? " " : "") << "(" << point_text(g.rows[g.fit_rows[k]].x) << ")";
        std::cout << "\n";
        if (!labels.counts.empty()) std::cout << "rows        " << labels.text() << "\n";
        if (o.max_exceptions > 0) {
            std::cout << "exceptions  " << g.exceptions.size() << "\n";
            for (const seprank::GuessException& e : g.exceptions)
                std::cout << "exception   " << point_text(g.rows[e.row].x) << ": table " << g.rows[e.row].value.str() << ", formula "
                          << (e.defined ? e.value.str() : std::string("undefined")) << "\n";
        }
        std::cout << "searched    " << count(g.tried, "form", "forms") << ", " << g.refuted << " refuted by a held-out row, "
                  << (g.skipped ? count(g.skipped, "skipped (values too large), ", "skipped (values too large), ") : std::string())
                  << j["seconds"].get<double>() << " s\n";
        std::cout << ptext.str();
        return done();
    }

    // --blocks: a law of a block table's ranks (guess_blocks_cli.cpp).
    int run_blocks(const Globals& globals) {
        GuessBlocksRequest rq;
        rq.table = table;
        rq.vars = seprank::split_at(vars_text, ',');
        rq.where_text = where_text;
        rq.where = where_text.empty() ? Cells{} : seprank::parse_where(where_text);
        rq.format = format;
        rq.predict = predict;
        rq.against = against;
        rq.max_forms = max_forms;
        rq.max_exceptions = sub->count("--max-exceptions") > 0 ? o.max_exceptions : 2;  // a block law's default
        rq.do_check = check;
        rq.check = checked_check_options(globals);
        {  // the plain search's options, refused if invalid even here, where they are noted as unused
            seprank::GuessOptions plain = o;
            plain.vars = {"x"};
            const bool none = bases_text.find_first_not_of(" \t\r\n") == std::string::npos;
            plain.bases = none ? std::vector<long>{} : seprank::parse_list(bases_text, "--bases");
            plain.max_exceptions = 0;
            seprank::check_options(plain);
        }
        Notes notes;
        if (value != "rank") throw seprank::invalid_input("--blocks explains the block ranks (the column rank): --value " + value + " does not apply");
        notes.ignored(*sub, {"--max-degree", "--bases", "--max-exps", "--max-order", "--max-params", "--min-confirm"},
                      "--blocks searches products of binomials, not these forms");
        if (!check) notes.ignored(*sub, {"--check-seconds", "--check-trials", "--check-max-side"}, "only --check reads it");
        if (check && predict.empty()) notes.ignored(*sub, {"--check"}, "there is no --predict point to check");
        return run_guess_blocks(rq, notes);
    }
};

}  // namespace

std::unique_ptr<Command> make_guess_command() { return std::make_unique<GuessCommand>(); }

}  // namespace seprank_cli
