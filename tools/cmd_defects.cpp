// seprank defects — the `defects` subcommand: the range's options, one library call
// (defect_sweep), formatting.
#include "cli.hpp"

#include "seprank/defects.hpp"

namespace seprank_cli {

namespace {

std::string joined(const std::vector<long>& v, const char* sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

struct DefectsCommand final : Command {
    seprank::DefectRange range;
    std::string format = "text";
    bool all = false;

    void add(CLI::App& app) override {
        sub = app.add_subcommand("defects",
            "Every one-output power network x -> W_L s_{L-1}(... s_1(W_1 x)) (s_l: t^(d_l) entrywise) in a range of widths, depths and "
            "exponents: its dimension against the expected one (Massarenti-Mella's rule: the least of the weights less the rescalings, "
            "the forms of degree prod d_l, and the last two layers' forms); every defective network named, with whether its last level is "
            "an Alexander-Hirschowitz exception (docs/defects.md)");
        sub->add_option("--max-width", range.max_width, "widths n_0..n_{L-1} run over 2..W, 2 <= W <= 8 (n_L = 1)")->capture_default_str();
        sub->add_option("--min-depth", range.min_depth, "the fewest weight matrices L, 2..5")->capture_default_str();
        sub->add_option("--max-depth", range.max_depth, "the most weight matrices L, min-depth..5")->capture_default_str();
        sub->add_option("--min-power", range.min_power, "the least exponent d_l, 2..8")->capture_default_str();
        sub->add_option("--max-power", range.max_power, "the largest exponent d_l, min-power..8")->capture_default_str();
        sub->add_option("--seed", range.seed, "seed (0..2^64-1): network i's dimension is drawn from seed + i")->check(seed_check())->capture_default_str();
        sub->add_flag("--all", all, "text: list every network, not only the defective ones");
        sub->add_option("--format", format, "text|csv|json (csv and json: every network)")->check(one_of({"text", "csv", "json"}));
    }

    int run(const Globals& globals) override {
        range.threads = seprank::default_threads();
        seprank::check_range(range);
        Notes notes;
        if (format != "text") notes.ignored(*sub, {"--all"}, "csv and json list every network");
        // networks, then levels, measured: progress on stderr (docs/progress.md)
        const seprank::DefectSweep sw = with_progress(globals, [&] { return seprank::defect_sweep(range); });
        const std::vector<std::string>& cols = seprank::defect_columns();
        if (format == "csv") {
            notes.emit(nullptr);
            std::cout << seprank::csv_line(cols) << "\n";
            for (const auto& r : sw.rows) std::cout << seprank::csv_line(seprank::defect_record(r), cols) << "\n";
            return 0;
        }
        json j = json::parse(seprank::to_json(seprank::defect_summary(sw)));
        if (format == "json") {
            json rows = json::array();
            for (const auto& r : sw.rows) rows.push_back(json::parse(seprank::to_json(seprank::defect_record(r))));
            j["rows"] = rows;
            notes.emit(&j);
            std::cout << json_text(j, 2) << "\n";
            return 0;
        }
        notes.emit(nullptr);
        std::cout << "# one-output power networks: widths 2.." << range.max_width << ", depth " << range.min_depth << ".." << range.max_depth
                  << " (weight matrices), powers " << range.min_power << ".." << range.max_power << "\n";
        print_record(j, "text", {"networks", "skipped", "exact", "defective", "by_bound", "by_level", "unexplained", "silent", "levels", "defective_levels", "ah_mismatch", "seconds", "peak_mib"});
        std::cout << (all ? "networks" : "defective networks")
                  << " (widths n_0..n_L; powers d_1..d_(L-1): dimension against the expected one, the bound where lower; (exact) where "
                     "the dimension reaches the bound, else its failure bound, the chance that this Jacobian rank mod p lies below the "
                     "generic one; the levels measured defective; reason):\n";
        for (const auto& r : sw.rows) {
            if (!all && r.defect <= 0) continue;
            std::cout << "  " << joined(r.widths, ",") << "; " << joined(r.powers, ",") << ": " << r.dimension.value << (r.defect > 0 ? " < " : " = ")
                      << r.expected;
            if (r.bound < r.expected) std::cout << ", bound " << r.bound;
            if (r.exact) std::cout << " (exact)";
            else std::cout << " (failure_bound " << seprank::bound_up(r.dimension.failure_bound, 3) << ")";
            if (!r.defective_levels.empty()) std::cout << "; level" << (r.defective_levels.size() > 1 ? "s " : " ") << joined(r.defective_levels, ",");
            if (r.defect > 0) std::cout << "; " << seprank::to_string(r.reason);
            std::cout << "\n";
        }
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_defects_command() { return std::make_unique<DefectsCommand>(); }

}  // namespace seprank_cli
