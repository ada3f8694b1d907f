// seprank degree — the `degree` subcommand: options, one library call, formatting.
#include "cli.hpp"

namespace seprank_cli {

namespace {

struct DegreeCommand final : Command {
    NetOptions dgo;
    long budget = 0;
    std::vector<long> budget_degrees = {1, 2, 3, 4, 5, 6};
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("degree", "Degree growth d^L, measured, per depth; or a fixed-budget comparison across block degrees");
        add_network_options(sub, dgo);
        sub->add_option("--budget", budget, "parameter budget B: compare block degrees at depth floor(B / params per layer); 0 (default): degree per depth 1..L");
        sub->add_option("--degrees", budget_degrees, "block degrees to compare with --budget")->delimiter(',')->capture_default_str();
        sub->add_option("--format", format, "text|json|csv")->check(CLI::IsMember({"text", "json", "csv"}));
    }

    int run(const Globals&) override {
        std::vector<json> rows;
        if (budget > 0 && !dgo.save_weights.empty())
            throw seprank::invalid_input("--save-weights: --budget compares several networks; save one with degree --depth L");
        if (budget > 0) {
            const seprank::NetworkSpec base = [&] {
                NetOptions o = dgo;
                o.depth = 1;
                o.block_degree = 2;
                return to_spec(o);
            }();
            const auto cmp = seprank::budget_comparison(base, budget, budget_degrees, dgo.seed);
            for (const auto& r : cmp.rows) {
                rows.push_back({{"block_degree", r.block_degree},
                                {"layer_params", exact(r.layer_params)},
                                {"depth", r.depth},
                                {"params_used", exact(r.total_params)},
                                {"predicted", exact(r.predicted)},
                                {"measured", r.measured >= 0 ? json(r.measured) : json("-")},
                                {"ln_deg_per_param", std::round(r.log_degree_per_param * 1e4) / 1e4},
                                {"h_d", std::round(r.h * 1e4) / 1e4}});
            }
            print_table(rows, format, {"block_degree", "layer_params", "depth", "params_used", "predicted", "measured", "ln_deg_per_param", "h_d"});
            if (format == "text")
                std::cout << "budget " << budget << ": highest degree reached at d = " << cmp.best_measured_d
                          << "; h(d) = ln d / d peaks (over the listed integers) at d = " << cmp.best_h_d << "\n";
        } else {
            if (budget < 0) throw seprank::invalid_input("--budget " + std::to_string(budget) + ": expected a positive budget, or 0 for none");
            if (dgo.weights_file.empty()) seprank::check_measurable(to_spec(dgo));  // the deepest network first: fail before any work
            if (!dgo.save_weights.empty() && dgo.weights_file.empty()) make_network(dgo);  // the depth-L network
            NetOptions o = dgo;
            // With --weights the file is read once; depth L keeps its first L layers.
            const std::optional<seprank::Network> file_net =
                o.weights_file.empty() ? std::nullopt : std::optional<seprank::Network>(seprank::read_network(o.weights_file));
            const long max_depth = file_net ? file_net->spec.depth : o.depth;
            for (long L = 1; L <= max_depth; ++L) {
                o.depth = L;
                seprank::Network net = file_net ? *file_net : seprank::random_network(to_spec(o), o.seed, o.weight_range);
                net.spec.depth = L;
                net.weights.layers.resize(static_cast<std::size_t>(L));
                const auto t0 = std::chrono::steady_clock::now();
                const auto m = seprank::measure_degree(net, o.seed);
                json row = {{"depth", L},
                            {"measured", m.degree},
                            {"predicted", exact(m.predicted)},
                            {"parameters", exact(seprank::parameter_count(net.spec))},
                            {"weight_degree", exact(seprank::weight_degree(net.spec))}};
                const auto est = seprank::estimate_expansion(net.spec);
                if (est.bytes <= 256.0 * 1024 * 1024) {
                    const seprank::QPoly f = seprank::expand(net);
                    row["terms"] = f.terms();
                    if (f.degree() != m.degree) row["measured"] = std::to_string(m.degree) + "!=" + std::to_string(f.degree());
                } else {
                    row["terms"] = "-";
                }
                row["seconds"] = std::round(seconds_since(t0) * 1000) / 1000;
                rows.push_back(row);
            }
            if (format == "text") std::cout << "# " << describe(file_net ? file_net->spec : to_spec(dgo).get()) << "\n";
            print_table(rows, format, {"depth", "measured", "predicted", "terms", "parameters", "weight_degree", "seconds"});
        }
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_degree_command() { return std::make_unique<DegreeCommand>(); }

}  // namespace seprank_cli
