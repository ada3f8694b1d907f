// seprank generic — the `generic` subcommand: options, one library call, formatting.
#include "cli.hpp"

namespace seprank_cli {

namespace {

struct GenericCommand final : Command {
    NetOptions go;
    std::string generic_method = "auto", generic_partition, generic_variant = "auto";
    long trials = 2, generic_max_side = 4096, generic_start = 0;
    double generic_growth = 1.25, generic_max_seconds = 0;
    int prime_bits = 62;
    std::string generic_store, hint_blocks;
    std::string device = "cpu";
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("generic",
            "Generic rank: maximum over T random weight draws (uniform on Z/p, each trial its own prime p), with failure_bound, "
            "the product over the trials of s*D/p + c, bounding the chance that the generic rank is larger (Schwartz-Zippel: s the "
            "sizes of the minors that would show a larger rank, D the entries' degree; c: the prime dividing their contents)");
        add_network_options(sub, go);
        sub->get_option("--weight-range")->description("ignored here (noted if given): generic draws every weight uniformly from Z/p");
        sub->get_option("--save-weights")->description("refused here: generic draws fresh weights in every trial (save a network with expand or rank)");
        sub->get_option("--seed")->description("seed of the primes, the weights drawn uniformly from Z/p and the evaluation points (0..2^64-1)");
        sub->get_option("--weights")->description("a JSON weights file (docs/usage.md section 1.5) whose architecture is ranked: its values are not used (generic draws every weight from Z/p); the file gives the network, overriding the network options");
        sub->add_option("--trials", trials, "independent weight draws T, 1..1000")->capture_default_str();
        sub->add_option("--partition", generic_partition, "token partition A|B (default balanced)");
        sub->add_option("--method", generic_method, "auto|flattening|evaluation (auto: flattening when the expansion is small)")
            ->check(one_of({"auto", "flattening", "evaluation"}))->capture_default_str();
        sub->add_option("--max-side", generic_max_side, "evaluation: largest matrix side (graded: sum of the block sides)")->capture_default_str();
        sub->add_option("--variant", generic_variant, "evaluation: auto|plain|graded (graded splits a homogeneous f by degree on side A; auto: graded when f is homogeneous)")
            ->check(one_of({"auto", "plain", "graded"}))->capture_default_str();
        sub->add_option("--start", generic_start, "evaluation: first matrix side k, 1..max-side (a side at or above every block cap skips the growth); 0: min(16, max-side)")->capture_default_str();
        sub->add_option("--growth", generic_growth, "evaluation: factor by which k grows while the rank is full (> 1)")->capture_default_str();
        sub->add_option("--max-seconds", generic_max_seconds, "evaluation: time budget in seconds (0: none); a run it stops is a lower bound (converged false), and where it stops depends on the machine")->capture_default_str();
        sub->add_option("--store", generic_store, "graded evaluation: keep the work units in directory DIR (created when missing), so a killed run resumes and several processes given DIR share the work");
        sub->add_option("--prime-bits", prime_bits, "bits of the random prime p, 20..62 (at most 52 bits: the evaluation runs on the AVX-512 IFMA kernel where the processor has it, at most 50 on the AVX2/FMA kernel elsewhere, about 3x faster; the failure bound grows as 2^-bits; --device cuda: at most 31, a larger value lowered with a note)")->capture_default_str();
        sub->add_option("--hint-blocks", hint_blocks, "graded evaluation: a block table (table --blocks, data/*.csv) whose rows of this network give the first trial's expected block ranks, or the JSON of guess --blocks --predict (a law's values); each block is first ranked just above its hint instead of growing from the first side (a hint only orders the work: every rank is still the trial's own generic rank, a lower bound with its failure bound as without hints; the note counts the file's hinted blocks once, by the first trial's final ranks at, above or below their hint; later trials take the earlier trials' block ranks as hints)");
        add_device_option(sub, device);
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        const int threads = globals.threads;
        if (!go.save_weights.empty())
            throw seprank::invalid_input("--save-weights: generic draws fresh weights in every trial; save a network with expand or rank");
        check_network_options(go);
        seprank::GenericOptions g;
        g.trials = trials;
        g.seed = go.seed;
        g.method = seprank::generic_method_from_string(generic_method);
        g.max_side = generic_max_side;
        g.variant = seprank::evaluation_variant_from_string(generic_variant);
        g.threads = threads;
        g.start = generic_start;
        g.growth = generic_growth;
        g.store = generic_store;
        g.prime_bits = prime_bits;
        g.max_seconds = generic_max_seconds;
        g.device = device_of(device);
        seprank::check_options(g);  // every value, whichever method runs
        Notes notes;
        notes.ignored(*sub, {"--weight-range"}, "generic draws every weight uniformly from Z/p");
        if (!go.weights_file.empty()) {
            notes.ignored(*sub, network_option_names(), "--weights gives the network");
            notes.add("--weights " + go.weights_file + ": only its architecture is used (generic draws every weight uniformly from Z/p; rank --weights ranks these weights)");
        }
        const seprank::ValidSpec spec = go.weights_file.empty() ? to_spec(go) : seprank::check_shapes(read_weights(go));
        if (go.weights_file.empty()) notes.network(*sub, spec);
        const auto part = generic_partition.empty() ? seprank::balanced_partition(spec->tokens)
                                                    : seprank::parse_partition(generic_partition, spec->tokens);
        if (!hint_blocks.empty()) g.block_hints = seprank::read_block_hints(hint_blocks, spec, part);
        const auto t0 = std::chrono::steady_clock::now();
        // trials and certificates on stderr (docs/progress.md)
        const seprank::RankAnswer r = with_progress(globals, [&] {
            return with_expansion_flags("--max-memory, or --method evaluation", [&] { return seprank::generic_rank(spec, part, g); });
        });
        const std::string chosen = "method " + r.method + (generic_method == "auto" ? " (chosen by --method auto)" : "");
        if (r.method == "flattening")
            notes.ignored(*sub, {"--max-side", "--variant", "--start", "--growth", "--store", "--max-seconds", "--hint-blocks"}, chosen + " evaluates nothing");
        else if (r.variant.rfind("graded", 0) != 0)
            notes.ignored(*sub, {"--store", "--hint-blocks"}, "the " + r.variant + " evaluation keeps no block store and no block hints (graded only)");
        json j = spec_json(spec);
        j["network"] = describe(spec);
        j.update(to_nl(seprank::to_record(r)));
        j["seconds"] = std::round(seconds_since(t0) * 1e4) / 1e4;
        notes.emit(format == "json" ? &j : nullptr);
        if (format == "text") std::cout << "# " << describe(spec) << "\n";
        print_record(j, format, {"partition", "rank", "label", "method", "rows", "cols", "degree", "trials", "degenerate", "set_size", "weight_degree", "bound_degree", "failure_bound", "seconds", "peak_mib", "note"});
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_generic_command() { return std::make_unique<GenericCommand>(); }

}  // namespace seprank_cli
