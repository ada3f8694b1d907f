// seprank dimension — the `dimension` subcommand: options, one library call
// (function_dimension; expected_dimension for the derivation it prints), formatting.
#include "cli.hpp"

#include "seprank/dimension.hpp"

#include <climits>

namespace seprank_cli {

namespace {

// The derivation of `expected` (docs/dimension.md, "Expected") as JSON: the monomial cap
// (null when it does not fit in 63 bits, ExpectedDimension::ambient == LONG_MAX), each
// reduction with its size, in the library's order, and the known defects not subtracted.
json derivation_json(const seprank::ExpectedDimension& ex) {
    json losses = json::array();
    for (const auto& [what, size] : ex.losses) losses.push_back({{"what", what}, {"size", size}});
    json known = json::array();
    for (const auto& [what, size] : ex.known_defects) known.push_back({{"what", what}, {"size", size}});
    return {{"ambient", ex.ambient == LONG_MAX ? json(nullptr) : json(ex.ambient)}, {"losses", losses}, {"known_defects", known}};
}

// The same as text lines below the record, so that a reader sees how expected was counted.
// At given weights (local) the count is about random weights, shown for reference only, and
// its lines say so: no line there reads "expected N", as the record has no expected.
void print_derivation(const seprank::ExpectedDimension& ex, bool local) {
    const std::string name = local ? "generic expected" : "expected";
    std::cout << name << " = min(parameters - losses, ambient)"
              << (local ? " (for random weights, not compared with the local dimension)" : "") << ":\n";
    std::cout << "  parameters " << ex.parameters << "\n";
    for (const auto& [what, size] : ex.losses) std::cout << "  - " << what << ": " << size << "\n";
    std::cout << "  ambient " << (ex.ambient == LONG_MAX ? std::string("above 2^63 (no cap)") : std::to_string(ex.ambient))
              << " (monomials the output can have)\n";
    std::cout << "  " << name << " " << ex.expected << "\n";
    for (const auto& [what, size] : ex.known_defects)
        std::cout << "  a known defect, not subtracted: " << what << ": " << size << "\n";
}

struct DimensionCommand final : Command {
    NetOptions no;
    std::string output = "scalar", variant = "reverse", format = "text", device = "cpu";
    long trials = 2, margin = 8;
    int prime_bits = 62;

    void add(CLI::App& app) override {
        sub = app.add_subcommand("dimension",
            "Functional dimension: the generic rank of the Jacobian of the parameter map w -> F(w; .) at random points, "
            "mod a random prime per trial, maximum over T trials with failure_bound the product over the trials of s*D/p + c "
            "(Schwartz-Zippel, s the sizes of the minors that would show a larger rank; c: the prime dividing their contents); beside it the "
            "expected dimension (parameters minus the obvious symmetries) and whether the rank falls below it (defect)");
        add_network_options(sub, no);
        sub->get_option("--weight-range")->description("ignored here (noted if given): dimension draws every weight uniformly from Z/p");
        sub->get_option("--save-weights")->description("refused here: dimension draws its weights mod p in every trial (save a network with expand or rank)");
        sub->get_option("--seed")->description("seed of the prime, the weights drawn uniformly from Z/p and the input points (0..2^64-1)");
        sub->get_option("--weights")->description(
            "local dimension at these exact weights (a JSON file in the weights format of docs/usage.md section 1.5, "
            "reduced mod p); the file gives the network, overriding the network options");
        sub->add_option("--output", output, "scalar (the one output coordinate at --position, --coordinate) | all (every token and coordinate)")
            ->capture_default_str();
        sub->add_option("--variant", variant, "reverse (one taped forward pass and one backward sweep per row; trials, then rows, on --threads) | "
                                              "interpolation (the reference: each derivative read off Lagrange interpolation; small networks)")
            ->capture_default_str();
        sub->add_option("--trials", trials, "independent trials T (weights, unless --weights, and points drawn afresh), 1..1000")->capture_default_str();
        sub->add_option("--prime-bits", prime_bits, "bits of the random prime p, 20..62 (the failure bound grows as 2^-bits; at <= 26 the rank is taken by FFLAS-FFPACK, several times faster; --device cuda: at most 31, a larger value lowered with a note)")->capture_default_str();
        sub->add_option("--margin", margin, "input rows beyond the parameter count, >= 0")->capture_default_str();
        add_device_option(sub, device);
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        if (!no.save_weights.empty())
            throw seprank::invalid_input("--save-weights: dimension draws its weights mod p in every trial; save a network with expand or rank");
        check_network_options(no);
        seprank::DimensionOptions opt;
        opt.output = seprank::dimension_output_from_string(output);
        opt.variant = seprank::dimension_variant_from_string(variant);
        opt.threads = globals.threads;
        opt.trials = trials;
        opt.seed = no.seed;
        opt.prime_bits = prime_bits;
        opt.device = device_of(device);
        opt.margin = margin;
        seprank::check_options(opt);  // every value, whichever variant runs
        Notes notes;
        if (no.weights_file.empty())
            notes.ignored(*sub, {"--weight-range"}, "dimension draws every weight uniformly from Z/p");
        else
            notes.ignored(*sub, network_option_names(), "--weights gives the network");
        if (opt.output == seprank::DimensionOutput::all)  // checked (in range) all the same, by to_spec
            notes.ignored(*sub, {"--position", "--coordinate"}, "--output all differentiates every token and coordinate");
        if (opt.variant == seprank::DimensionVariant::interpolation)
            notes.ignored(*sub->get_parent(), {"--threads"},
                          "the interpolation variant builds the Jacobian on one thread (only FLINT's elimination of it may use more)");
        std::optional<seprank::Network> net;
        if (!no.weights_file.empty()) net = read_weights(no);
        const seprank::ValidSpec spec = net ? seprank::check_shapes(*net) : to_spec(no);
        if (!net) notes.network(*sub, spec);
        if (net) opt.weights = net->weights;
        const auto t0 = std::chrono::steady_clock::now();
        // trials, Jacobians and ranks on stderr (docs/progress.md)
        const seprank::RankAnswer r = with_progress(globals, [&] { return seprank::function_dimension(spec, opt); });
        const seprank::ExpectedDimension ex = seprank::expected_dimension(spec, opt.output);
        json j = spec_json(spec);
        // Every output is differentiated with --output all: the position (i, p) is not one of them.
        std::string network = describe(spec);
        if (const std::size_t at = network.rfind(" (i="); opt.output == seprank::DimensionOutput::all && at != std::string::npos)
            network = network.substr(0, at) + " (all outputs)";
        j["network"] = network;
        j.update(to_nl(seprank::to_record(r)));
        j["seconds"] = std::round(seconds_since(t0) * 1e4) / 1e4;
        j["weights"] = no.weights_file.empty() ? json(nullptr) : json(no.weights_file);
        j.update(derivation_json(ex));
        notes.emit(format == "json" ? &j : nullptr);
        if (format == "text") std::cout << "# " << network << (net ? ", local dimension at the weights of " + no.weights_file : "") << "\n";
        print_record(j, format, {"rank", "kind", "label", "output", "variant", "parameters", "expected", "defect", "method", "field",
                                 "rows", "cols", "trials", "trial_ranks", "degenerate", "prime", "weight_degree", "bound_degree",
                                 "failure_bound", "evaluations", "seconds", "peak_mib", "note"});
        if (format == "text") print_derivation(ex, net.has_value());
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_dimension_command() { return std::make_unique<DimensionCommand>(); }

}  // namespace seprank_cli
