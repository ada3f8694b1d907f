// seprank equation — the `equation` subcommand: options, one library call
// (network_equation), formatting.
#include "cli.hpp"

#include "seprank/equation.hpp"

namespace seprank_cli {

namespace {

struct EquationCommand final : Command {
    NetOptions no;
    std::string format = "text";
    long min_degree = 1, max_degree = 16, max_monomials = 2500, max_terms = 2000000;
    double max_seconds = 600;

    void add(CLI::App& app) override {
        sub = app.add_subcommand("equation",
                                 "The image of the parameter map w -> F(w; .) (the scalar output), its neurovariety X: the affine span of its "
                                 "coefficients (exact) and, where X is a hypersurface there, its least equation P, found as a nullspace mod "
                                 "62-bit primes, lifted to Q and checked over Q; P proves dim X (exact) and deg X = deg P (docs/equation.md)");
        add_network_options(sub, no);
        sub->get_option("--weight-range")->description("ignored here (noted if given): equation draws every weight at random mod p");
        sub->get_option("--save-weights")->description("refused here: equation draws its weights mod p");
        sub->get_option("--weights")->description("refused here: equation is about the generic image, not given weights");
        sub->get_option("--seed")->description("seed of the dimension, the primes and the points (0..2^64-1)");
        sub->add_option("--min-degree", min_degree, "the least degree searched, 1..64 (a known lower bound on deg X)")->capture_default_str();
        sub->add_option("--max-degree", max_degree, "the largest degree searched, min-degree..64")->capture_default_str();
        sub->add_option("--max-monomials", max_monomials,
                        "the largest nullspace: C(span + d, d) monomials of degree <= d, or one graded part of them, >= 1")
            ->capture_default_str();
        sub->add_option("--max-terms", max_terms, "the expansion of f in weights and inputs stops past this many terms, >= 1")->capture_default_str();
        sub->add_option("--max-seconds", max_seconds, "the search stops (and says so) after this many seconds, > 0")->capture_default_str();
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        if (!no.save_weights.empty()) throw seprank::invalid_input("--save-weights: equation draws its weights mod p");
        if (!no.weights_file.empty()) throw seprank::invalid_input("--weights: equation is about the generic image of the network, not given weights");
        check_network_options(no);
        seprank::EquationOptions opt;
        opt.seed = no.seed;
        opt.min_degree = min_degree;
        opt.max_degree = max_degree;
        opt.max_monomials = max_monomials;
        opt.max_terms = max_terms;
        opt.max_seconds = max_seconds;
        seprank::check_options(opt);
        Notes notes;
        notes.ignored(*sub, {"--weight-range"}, "equation draws every weight at random mod p");
        const seprank::ValidSpec spec = to_spec(no);
        notes.network(*sub, spec);
        // the degrees and graded parts searched, on stderr (docs/progress.md)
        const seprank::EquationAnswer a = with_progress(globals, [&] { return seprank::network_equation(spec, opt); });
        print_network_record(spec, seprank::equation_record(a), notes, format);
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_equation_command() { return std::make_unique<EquationCommand>(); }

}  // namespace seprank_cli
