// seprank variety — the `variety` subcommand: options, one library call (network_variety),
// formatting.
#include "cli.hpp"

#include "seprank/variety.hpp"

namespace seprank_cli {

namespace {

struct VarietyCommand final : Command {
    NetOptions no;
    std::string format = "text";
    long trials = 3, max_unknowns = 8, max_interpolation = 20000, max_equation_monomials = 2500;
    bool generic_slice = false;
    std::string degree_slice = "smallest-fibre";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("variety",
            "The image of the parameter map w -> F(w; .) (the scalar output), its neurovariety X: its dimension (as `dimension`), its degree, "
            "and the weight settings left per generic function when all but dim X weights are fixed (a gauge slice); deg X = (points of the "
            "slice over a generic section of X) / (points of the slice over one function), both counted from Gröbner bases mod 16-bit "
            "primes over T independent trials; degree_at_least, from sections whose solutions are all simple, is a lower bound that fails only "
            "if the dimension does; where X is a hypersurface of its span, its least equation, found mod p and checked over Q, proves "
            "dim X and deg X (docs/variety.md, docs/equation.md)");
        add_network_options(sub, no);
        sub->get_option("--weight-range")->description("ignored here (noted if given): variety draws every weight uniformly from Z/p");
        sub->get_option("--save-weights")->description("refused here: variety draws its weights mod p");
        sub->get_option("--weights")->description("refused here: variety is about the generic image, not given weights");
        sub->get_option("--seed")->description("seed of the dimension, the primes, the slice, the section and the input points (0..2^64-1)");
        sub->add_option("--trials", trials, "independent trials T (prime, slice, section), 1..1000; a degree is claimed only where all agree")->capture_default_str();
        sub->add_option("--max-unknowns", max_unknowns, "the largest dimension solved for, >= 1")->capture_default_str();
        sub->add_option("--max-interpolation", max_interpolation, "the largest number of coefficients C(n + D_w, n) interpolated, >= 1")->capture_default_str();
        sub->add_option("--max-equation-monomials", max_equation_monomials,
                        "the largest space searched for the image's equation: C(span + d, d) monomials of degree <= d, >= 0 (0: no search)")
            ->capture_default_str();
        sub->add_flag("--generic-slice", generic_slice,
                      "also count on a generic weight slice: fibre_points, the degree of the generic fibre, and a second count of the degree "
                      "(dense equations: often 100x the gauge slice's time)");
        sub->add_option("--degree-slice", degree_slice,
                        "where the degree's section is counted: smallest-fibre (the gauge slice or the one freeing the Jacobian's last "
                        "pivot weights, whichever has fewer points per function) or gauge (the reference); the same degree")
            ->check(one_of({"smallest-fibre", "gauge"}))
            ->capture_default_str();
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        if (!no.save_weights.empty()) throw seprank::invalid_input("--save-weights: variety draws its weights mod p");
        if (!no.weights_file.empty()) throw seprank::invalid_input("--weights: variety is about the generic image of the network, not given weights");
        check_network_options(no);
        seprank::VarietyOptions opt;
        opt.seed = no.seed;
        opt.trials = trials;
        opt.max_unknowns = max_unknowns;
        opt.max_interpolation = max_interpolation;
        opt.max_equation_monomials = max_equation_monomials;
        opt.generic_slice = generic_slice;
        opt.degree_slice = degree_slice == "gauge" ? seprank::DegreeSlice::gauge : seprank::DegreeSlice::smallest_fibre;
        seprank::check_options(opt);
        Notes notes;
        notes.ignored(*sub, {"--weight-range"}, "variety draws every weight uniformly from Z/p");
        const seprank::ValidSpec spec = to_spec(no);
        notes.network(*sub, spec);
        // The library names its limits by their fields (max_unknowns); here they are options.
        const seprank::VarietyAnswer v = with_progress(globals, [&] {
            try {
                return seprank::network_variety(spec, opt);
            } catch (const seprank::resource_limit& e) {
                const std::string m = e.what();
                for (const auto& [field, flag] : {std::pair<std::string, std::string>{"over max_unknowns ", "--max-unknowns"},
                                                  {"over max_interpolation ", "--max-interpolation"}})
                    if (m.find(field) != std::string::npos) throw seprank::resource_limit(m + " [here: " + flag + "]");
                throw;
            }
        });
        print_network_record(spec, seprank::variety_record(v, generic_slice), notes, format);
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_variety_command() { return std::make_unique<VarietyCommand>(); }

}  // namespace seprank_cli
