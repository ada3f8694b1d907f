// seprank expand — the `expand` subcommand: options, one library call, formatting.
#include "cli.hpp"

#include <sys/resource.h>

namespace seprank_cli {

namespace {

struct ExpandCommand final : Command {
    NetOptions eo;
    bool print_poly = false;
    std::string format = "text";
    std::string variant = "auto";
    std::string product = "auto";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("expand", "Expand the network output into an exact polynomial");
        add_network_options(sub, eo);
        sub->add_flag("--print", print_poly, "print the polynomial itself");
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
        sub->add_option("--variant", variant,
                        "auto|layered|moment: layer by layer (every family), or through the token moment "
                        "matrix (attention; docs/expand.md)")
            ->capture_default_str();
        sub->add_option("--product", product,
                        "auto|flint|digits|dense: how each product over Q is formed (the polynomial is the same; "
                        "docs/poly.md#products)")
            ->capture_default_str();
    }

    int run(const Globals&) override {
        check_network_options(eo);  // every network option's value, used or not
        Notes notes;
        if (!eo.weights_file.empty()) {
            notes.ignored(*sub, network_option_names(), "--weights gives the network");
            notes.ignored(*sub, {"--seed"}, "--weights gives the weights (the seed draws random ones)");
        }
        // --save-weights is written once f is expanded: a refused expansion leaves no file.
        if (!eo.save_weights.empty()) seprank::check_network_target(eo.save_weights);
        const seprank::Network net = build_network(eo);
        const auto t0 = std::chrono::steady_clock::now();
        seprank::ExpandOptions opt;
        opt.variant = seprank::expand_variant_from_string(variant);
        opt.product = seprank::mul_variant_from_string(product);
        const seprank::ValidSpec spec = seprank::check_shapes(net);
        if (eo.weights_file.empty()) notes.network(*sub, spec);
        const seprank::ExpandVariant used = seprank::choose_expand_variant(spec, opt.variant);
        const seprank::QPoly f = with_expansion_flags("--max-memory, or rank --method evaluation", [&] { return seprank::expand(net, opt); });
        const double secs = seconds_since(t0);
        save_weights(eo, net);
        json rec = spec_json(spec);
        rec["network"] = describe(net.spec);
        rec["degree"] = f.degree();
        rec["predicted_degree"] = exact(seprank::output_degree(net.spec));
        rec["terms"] = f.terms();
        rec["parameters"] = exact(seprank::parameter_count(net.spec));
        rec["weight_degree"] = exact(seprank::weight_degree(net.spec));
        rec["homogeneous"] = f.is_homogeneous();
        rec["seconds"] = std::round(secs * 1e4) / 1e4;  // as dimension
        rec["variant"] = seprank::to_string(used);
        rec["product"] = seprank::to_string(opt.product);
        rusage ru{};
        rec["peak_mib"] = getrusage(RUSAGE_SELF, &ru) == 0 ? std::round(static_cast<double>(ru.ru_maxrss) / 102.4) / 10.0 : -1.0;
        std::vector<std::string> order = {"network", "degree", "predicted_degree", "terms", "parameters", "weight_degree", "homogeneous", "variant", "product", "seconds", "peak_mib"};
        if (format != "text") order = {"family", "tokens", "dim", "heads", "block_degree", "depth", "residual", "degree", "predicted_degree", "terms", "parameters", "weight_degree", "homogeneous", "variant", "product", "seconds", "peak_mib"};
        // Below the formal degree d^L: these weights are special (a weight drawn 0, or a
        // cancellation); the generic f has degree d^L. Said, as the rank commands say theirs.
        if (const seprank::Integer D = seprank::output_degree(net.spec); seprank::Integer(f.degree()) < D) {
            const std::string at = eo.weights_file.empty() ? "at the weights drawn with --seed " + std::to_string(eo.seed) : "at the given weights";
            notes.add((f.is_zero() ? "f is 0 " + at : "f has degree " + std::to_string(f.degree()) + " < d^L = " + D.str() + " " + at) +
                      (eo.weights_file.empty() ? " (a special draw: a weight 0 or a cancellation; another --seed gives the generic f)"
                                               : " (special weights: random ones give the generic f, of degree d^L)"));
        }
        if (print_poly) {
            rec["polynomial"] = seprank::to_string(f);
            order.push_back("polynomial");
        }
        notes.emit(&rec);
        print_record(rec, format, order);
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_expand_command() { return std::make_unique<ExpandCommand>(); }

}  // namespace seprank_cli
