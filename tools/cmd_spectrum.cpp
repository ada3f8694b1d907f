// seprank spectrum — singular spectrum of a flattening in orthonormal product bases and
// ε-separation ranks (docs/spectrum.md): options, one library call, formatting.
#include "cli.hpp"

#include "seprank/spectrum.hpp"

#include <iomanip>

namespace seprank_cli {

namespace {

struct SpectrumCommand final : Command {
    NetOptions ro;
    std::string partition_text, poly_text, measure = "uniform", method = "certified", eps_text, format = "text";
    long precision = 53, max_side = 4096, trials = 100;
    std::string experiment;
    bool eps_absolute = false;

    void add(CLI::App& app) override {
        sub = app.add_subcommand("spectrum", "Singular values of a flattening in orthonormal Legendre/Hermite product bases, and epsilon-separation ranks");
        add_network_options(sub, ro);
        sub->add_option("--partition", partition_text, "token partition A|B, e.g. 1,2|3,4 (default: balanced, 1..ceil(N/2) | rest)");
        sub->add_option("--poly", poly_text, "this polynomial instead of a network (variables x<j>_<c>, split by token j)");
        sub->add_option("--measure", measure, "uniform (every coordinate uniform on [-1,1]) or gaussian (standard normal)")
            ->check(one_of({"uniform", "gaussian"}))->capture_default_str();
        sub->add_option("--method", method, "certified (Arb balls around every singular value) or fast (floating point, no bound)")
            ->check(one_of({"certified", "fast"}))->capture_default_str();
        sub->add_option("--precision", precision, "bits of the floating-point part (53: double; more: MPFR)")->capture_default_str();
        sub->add_option("--eps", eps_text, "thresholds E[,E...] for epsilon-separation ranks (relative to ||f|| unless --eps-absolute)");
        sub->add_flag("--eps-absolute", eps_absolute, "--eps values are absolute L2 distances, not relative to ||f||");
        sub->add_option("--max-side", max_side, "largest orthogonal basis of one side")->capture_default_str();
        sub->add_option("--experiment", experiment, "run the seed's experiment instead: fd (random members of F_d) or blocks (attention vs hadamard at equal budget)")
            ->check(one_of({"fd", "blocks"}));
        sub->add_option("--trials", trials, "--experiment: random draws per configuration")->capture_default_str();
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        seprank::SpectrumOptions so;
        so.measure = seprank::measure_from_string(measure);
        so.method = seprank::spectrum_method_from_string(method);
        // Below 53 bits the computation would still run in doubles: refused, not relabelled.
        if (precision < 53 || precision > 4096)
            throw seprank::invalid_input("--precision " + std::to_string(precision) + " must be in 53..4096 (53: double; more: MPFR)");
        if (trials < 1 || trials > 1000000)
            throw seprank::invalid_input("--trials " + std::to_string(trials) + " outside 1..1000000 (random draws per configuration)");
        if (max_side < 1)
            throw seprank::invalid_input("--max-side " + std::to_string(max_side) + ": expected >= 1 (the largest orthogonal basis of one side)");
        // Every option's value is checked whether or not this input uses it; one it ignores is noted.
        check_network_options(ro, poly_text.empty() && experiment.empty() && ro.weights_file.empty());
        if (!ro.save_weights.empty()) seprank::check_network_target(ro.save_weights);
        if (!ro.weights_file.empty() && (!poly_text.empty() || !experiment.empty())) (void)seprank::read_network(ro.weights_file);
        so.precision = precision;
        so.eps = parse_eps(eps_text);
        so.eps_absolute = eps_absolute;
        Notes notes;
        if (so.eps.empty() && eps_absolute) notes.lines.push_back("--eps-absolute is ignored: no --eps thresholds were given");
        if (!experiment.empty()) {
            // Ignored, still checked: the polynomial parses, the partition is one.
            if (!poly_text.empty()) (void)seprank::parse_poly(poly_text, seprank::QContext::make(seprank::variables_in(poly_text)));
            if (!partition_text.empty()) check_ignored_partition(partition_text);
            const std::string why = "--experiment draws its own polynomials and networks";
            notes.ignored(*sub, network_option_names(), why);
            notes.ignored(*sub, {"--layers", "--weights", "--save-weights", "--poly", "--partition", "--method", "--precision", "--max-side"}, why);
        } else {
            notes.ignored(*sub, {"--trials"}, "it counts --experiment's draws");
            if (!poly_text.empty()) {
                notes.ignored(*sub, network_option_names(), "--poly gives the polynomial");
                notes.ignored(*sub, {"--layers", "--weights", "--save-weights"}, "--poly gives the polynomial");
                notes.ignored(*sub, {"--seed"}, "--poly gives the polynomial (the seed draws random weights)");
            } else if (!ro.weights_file.empty()) {
                notes.ignored(*sub, network_option_names(), "--weights gives the network");
                notes.ignored(*sub, {"--seed"}, "--weights gives the weights (the seed draws random ones)");
            }
            if (format == "csv" && !so.eps.empty()) notes.lines.push_back("--eps ranks are not in the csv format (the singular values are): use --format json or text");
        }
        so.max_side = max_side;
        // so.expand.max_memory stays 0: the global --max-memory (default_max_memory()), as for expand
        so.rank.threads = globals.threads;
        so.rank.seed = ro.seed;
        if (!experiment.empty()) {
            seprank::EpsExperimentOptions eo;
            eo.kind = experiment;
            eo.trials = trials;
            eo.seed = ro.seed;
            eo.measure = so.measure;
            if (!eps_text.empty()) eo.eps = so.eps;
            // draws on stderr (docs/progress.md)
            const std::vector<seprank::Record> rows = with_progress(globals, [&] { return seprank::eps_experiment(eo); });
            if (eps_absolute) notes.lines = {"--eps-absolute is ignored: --experiment's thresholds are relative to ||f||"};
            notes.emit(nullptr);  // stderr: the rows are a table
            std::vector<json> out;
            for (const auto& rec : rows) out.push_back(to_nl(rec));
            print_table(out, format, rows.empty() ? std::vector<std::string>{} : rows.front().names());
            return 0;
        }
        seprank::SpectrumResult r;
        std::string network;
        if (!poly_text.empty()) {
            auto ctx = seprank::QContext::make(seprank::variables_in(poly_text));
            const seprank::QPoly f = seprank::parse_poly(poly_text, ctx);
            const auto part = seprank::poly_partition(ctx->vars(), partition_text, "--poly");
            r = with_progress(globals, [&] { return seprank::spectrum(f, part, part.tokens(), so); });  // steps on stderr (docs/progress.md)
        } else {
            // --save-weights once the spectrum is computed: bad input writes nothing
            const seprank::Network net = build_network(ro);
            if (ro.weights_file.empty()) notes.network(*sub, net.spec);
            const auto part = partition_text.empty() ? seprank::balanced_partition(net.spec.tokens)
                                                     : seprank::parse_partition(partition_text, net.spec.tokens);
            network = describe(net.spec);
            r = with_progress(globals, [&] { return with_expansion_flags("--max-memory", [&] { return seprank::spectrum(net, part, so); }); });
            save_weights(ro, net);
        }
        json j = json::parse(seprank::to_json(r));
        if (!network.empty()) j["network"] = network;
        notes.emit(format == "json" ? &j : nullptr);
        if (format == "json") {
            std::cout << json_text(j, 2) << "\n";
            return 0;
        }
        if (format == "csv") {
            std::cout << "k,sigma,radius,measure\n";
            for (std::size_t k = 0; k < r.singular_values.size(); ++k)
                std::cout << k + 1 << "," << json(r.singular_values[k]).dump() << ","
                          << (r.radius >= 0 ? json(r.radii[k]).dump() : std::string()) << "," << measure << "\n";
            return 0;
        }
        if (!network.empty()) std::cout << "# " << network << "\n";
        print_record(j, "text", {"partition", "measure", "method", "precision", "rank", "rank_certified", "norm", "norm_squared",
                                 "radius", "rows", "cols", "basis_rows", "basis_cols", "degree", "terms", "seconds", "note"});
        std::cout << "singular_values  ";
        for (std::size_t k = 0; k < r.singular_values.size(); ++k)
            std::cout << (k ? " " : "") << std::setprecision(10) << r.singular_values[k];
        std::cout << "\n";
        for (const auto& e : r.eps_ranks) {
            std::cout << "eps_rank          eps=" << e.eps << (r.eps_absolute ? " (absolute) " : " (relative) ");
            if (e.decided()) std::cout << e.rank_low;
            else std::cout << "between " << e.rank_low << " and " << e.rank_high << " (undecided at this precision)";
            std::cout << (e.certified ? " certified" : " not certified") << "\n";
        }
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_spectrum_command() { return std::make_unique<SpectrumCommand>(); }

}  // namespace seprank_cli
