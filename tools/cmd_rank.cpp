// seprank rank — the `rank` subcommand: options, one library call, formatting.
#include "cli.hpp"

namespace seprank_cli {

namespace {

struct RankCommand final : Command {
    NetOptions ro;
    std::string partition_text, method = "flattening", field = "Q", templates_file, rank_poly, matrix_file, save_matrix;
    std::string variant = "auto", certificate = "blocks", device = "cpu";
    long templates = 2, max_side = 4096;
    bool all_balanced = false;
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("rank", "Separation rank w.r.t. a token partition: flattening (exact), grid tensor or black-box evaluation");
        add_network_options(sub, ro);
        sub->get_option("--seed")->description(
            "seed of the random integer weights, and of the primes, templates and points the rank draws (also with --poly and --matrix) (0..2^64-1)");
        sub->add_option("--partition", partition_text, "token partition A|B, e.g. 1,2|3,4 (default: balanced, 1..ceil(N/2) | rest)");
        sub->add_option("--method", method, "flattening|grid|evaluation")->check(one_of({"flattening", "grid", "evaluation"}))->capture_default_str();
        sub->add_option("--field", field, "Q (certified exact rank) or p (one modular rank: a lower bound, exact where it meets an upper bound); flattening, grid, --poly and --matrix (the evaluation ranks mod p: noted there)")->check(one_of({"Q", "p"}))->capture_default_str();
        sub->add_option("--templates", templates, "grid: number M of random integer template vectors")->capture_default_str();
        sub->add_option("--templates-file", templates_file, "grid: JSON list of template vectors");
        sub->add_option("--max-side", max_side, "evaluation: largest side of the evaluation matrix (graded: sum of the block sides)")->capture_default_str();
        sub->add_option("--variant", variant, "evaluation: auto|plain|graded (graded splits a homogeneous f by degree on side A; auto: graded when f is homogeneous)")
            ->check(one_of({"auto", "plain", "graded"}))->capture_default_str();
        sub->add_option("--certificate", certificate, "field Q, rank below full: blocks (exact kernel vectors per connected block, on its smaller side), pivot-span (non-pivot columns of the whole matrix proven to be combinations of the pivot columns) or hadamard (multimodular reference)")
            ->check(one_of({"blocks", "pivot-span", "hadamard"}))->capture_default_str();
        sub->add_flag("--all-balanced", all_balanced, "every balanced partition with the output position on side A, and whether they agree (Prop. 7.1)");
        sub->add_option("--poly", rank_poly, "rank this polynomial instead of a network (variables x<j>_<c>, split by token j)");
        sub->add_option("--matrix", matrix_file, "rank this matrix over Q (Matrix Market file, coordinate or array, field integer or rational with a/b entries) instead of a network");
        sub->add_option("--save-matrix", save_matrix, "flattening/grid over Q: also write the integer matrix ranked (Matrix Market)");
        add_device_option(sub, device);
        sub->add_option("--format", format, "text|json|csv")->check(one_of({"text", "json", "csv"}));
    }

    int run(const Globals& globals) override {
        const int threads = globals.threads;
        seprank::SeparationOptions so;
        so.method = seprank::method_from_string(method);
        so.certify = field == "Q";
        so.seed = ro.seed;
        so.templates = templates;
        so.evaluation.max_side = max_side;
        so.evaluation.threads = threads;
        so.evaluation.variant = seprank::evaluation_variant_from_string(variant);
        so.rank.threads = threads;
        so.rank.certificate = seprank::certificate_from_string(certificate);
        so.evaluation.device = so.rank.device = device_of(device);
        const auto meter = make_progress(globals);  // the certificate's progress on stderr (docs/progress.md)
        const seprank::ProgressScope progress(meter->observer());
        // Every value is checked whichever path and method run; the options a path or
        // method does not use are noted (cli.hpp, Notes).
        check_network_options(ro, ro.weights_file.empty() && matrix_file.empty() && rank_poly.empty());
        seprank::check_options(so);
        if (!rank_poly.empty() && !matrix_file.empty()) throw seprank::invalid_input("--poly and --matrix: give one of them");
        // Values of options the chosen input makes irrelevant are still checked (one rule
        // for every command: refused if invalid, noted if valid): the partition's syntax
        // (a partition of 1..n for the n it names), the weights file, the output paths.
        if (!matrix_file.empty() || !rank_poly.empty()) {
            if (!matrix_file.empty() && !partition_text.empty()) check_ignored_partition(partition_text);
            if (!ro.weights_file.empty()) (void)seprank::read_network(ro.weights_file);
        }
        // The output paths, before any work: a bad one costs nothing.
        if (!ro.save_weights.empty()) seprank::check_network_target(ro.save_weights);
        if (!save_matrix.empty()) seprank::check_matrix_market_target(save_matrix);
        // A templates file the input or method ignores is still read (refused if invalid,
        // noted below if valid), against the first vector's length: no network sizes it.
        if (!templates_file.empty() && (!matrix_file.empty() || !rank_poly.empty() || so.method != seprank::Method::grid))
            (void)seprank::read_templates(templates_file, -1);
        Notes notes;
        const std::vector<std::string> grid_only = {"--templates", "--templates-file"}, evaluation_only = {"--max-side", "--variant"};
        if (!matrix_file.empty()) {
            notes.ignored(*sub, network_option_names(), "--matrix gives the matrix");
            notes.ignored(*sub, {"--layers"}, "--matrix gives the matrix");
            notes.ignored(*sub, {"--weights", "--save-weights", "--partition", "--method", "--all-balanced", "--save-matrix"}, "--matrix gives the matrix");
            notes.ignored(*sub, grid_only, "--matrix gives the matrix");
            notes.ignored(*sub, evaluation_only, "--matrix gives the matrix");
        } else if (!rank_poly.empty()) {
            notes.ignored(*sub, network_option_names(), "--poly gives the polynomial");
            notes.ignored(*sub, {"--layers"}, "--poly gives the polynomial");
            notes.ignored(*sub, {"--weights", "--save-weights"}, "--poly gives the polynomial, not a network");
            notes.ignored(*sub, {"--all-balanced"}, "--poly is ranked on one partition (--partition)");
            notes.ignored(*sub, grid_only, "--poly is ranked by the flattening");
            notes.ignored(*sub, evaluation_only, "--poly is ranked by the flattening");
        } else {
            if (!ro.weights_file.empty()) notes.ignored(*sub, network_option_names(), "--weights gives the network");
            if (so.method != seprank::Method::grid) notes.ignored(*sub, grid_only, "method " + method + " uses no templates (grid only)");
            else if (!templates_file.empty()) notes.ignored(*sub, {"--templates"}, "--templates-file gives the templates");
            if (so.method != seprank::Method::evaluation) notes.ignored(*sub, evaluation_only, "method " + method + " evaluates nothing");
            if (so.method == seprank::Method::evaluation)
                notes.ignored(*sub, {"--field"}, "the evaluation always ranks mod p (a lower bound)");
            if (all_balanced) notes.ignored(*sub, {"--partition"}, "--all-balanced ranks every balanced partition");
        }
        const bool evaluates = so.method == seprank::Method::evaluation && matrix_file.empty() && rank_poly.empty();
        if (!so.certify || evaluates)
            notes.ignored(*sub, {"--certificate"}, so.certify ? "the evaluation ranks mod p (no certificate)" : "--field p ranks mod p (no certificate)");
        auto to_json = [](const seprank::RankAnswer& r) { return to_nl(seprank::to_record(r)); };
        const std::vector<std::string> order = {"partition", "method", "rank", "label", "weights", "bound", "rows", "cols", "degree", "terms", "seconds", "peak_mib", "phases", "note"};
        // Whose rank it is: these weights' (a label "certified" is exact for them, not the
        // architecture's generic rank, which seprank generic bounds; a trial's reading).
        const std::string weights_said =
            ro.weights_file.empty() ? "drawn: seed " + std::to_string(ro.seed) + ", integers in [-" + std::to_string(ro.weight_range) + ", " +
                                          std::to_string(ro.weight_range) + "] (this network's rank; seprank generic bounds the generic one)"
                                    : ro.weights_file;
        if (!save_matrix.empty()) {
            if (so.method == seprank::Method::evaluation)
                throw seprank::invalid_input("--save-matrix needs --method flattening or grid with --field Q (evaluation never builds the matrix)");
            if (!so.certify)
                throw seprank::invalid_input("--save-matrix needs --field Q (with --field p the integer matrix is not built)");
            so.on_matrix = [path = save_matrix](const seprank::SparseZMat& m) { seprank::write_matrix_market(m, path); };
        }
        if (!matrix_file.empty()) {
            const auto t0 = std::chrono::steady_clock::now();
            // Rational rows are scaled to integer rows first: the same rank (matrix_io.hpp).
            const seprank::SparseZMat m = seprank::clear_denominators(seprank::read_matrix_market_rational(matrix_file));
            const double read_s = seconds_since(t0);
            seprank::RankOptions opt = so.rank;
            opt.certify = so.certify;
            opt.seed = so.seed;
            seprank::RankAnswer r = seprank::rank_certified(m, opt);
            r.phases.matrix = read_s;
            r.seconds = seconds_since(t0);  // reading the file included
            json j = to_json(r);
            j["matrix"] = matrix_file;
            meter->finish();
            notes.emit(format == "json" ? &j : nullptr);
            print_record(j, format, {"matrix", "variant", "rank", "label", "field", "rows", "cols", "seconds", "peak_mib", "phases", "note"});
            return 0;
        }
        if (!rank_poly.empty()) {
            if (so.method != seprank::Method::flattening) throw seprank::invalid_input("--poly is ranked by --method flattening only");
            auto ctx = seprank::QContext::make(seprank::variables_in(rank_poly));
            const seprank::QPoly f = seprank::parse_poly(rank_poly, ctx);
            const auto part = seprank::poly_partition(ctx->vars(), partition_text, "--poly");
            json j = to_json(seprank::separation_rank(f, part, part.tokens(), so));
            j["polynomial_terms"] = f.terms();
            meter->finish();
            notes.emit(format == "json" ? &j : nullptr);
            std::vector<std::string> poly_order = order;  // the polynomial given: no weights to name
            poly_order.erase(std::find(poly_order.begin(), poly_order.end(), "weights"));
            print_record(j, format, poly_order);
            return 0;
        }
        if (!templates_file.empty()) {
            const seprank::ValidSpec spec = ro.weights_file.empty() ? to_spec(ro) : seprank::check_shapes(read_weights(ro));
            so.template_vectors = seprank::read_templates(templates_file, seprank::input_vars_per_token(spec));
        }
        // --save-weights is written once the rank is computed: bad input (a partition, a
        // device, a variant refused by the library) writes nothing.
        const seprank::Network net = build_network(ro);
        if (ro.weights_file.empty()) notes.network(*sub, net.spec);
        const auto rank_of = [&](const seprank::ValidPartition& part) {
            return with_expansion_flags("--max-memory, or --method evaluation", [&] { return to_json(seprank::separation_rank(net, part, so)); });
        };
        if (all_balanced) {
            if (!partition_text.empty()) (void)seprank::parse_partition(partition_text, net.spec.tokens);  // ignored, still checked
            std::vector<json> rows;
            long first = -1;
            bool agree = true;
            for (const auto& part : seprank::balanced_partitions_with(net.spec.tokens, net.spec.position)) {
                json j = rank_of(part);
                if (first < 0) first = j["rank"].get<long>();  // NOLINT
                agree = agree && j["rank"].get<long>() == first;
                rows.push_back(j);
            }
            save_weights(ro, net);
            // whether the values agree; certified only where every one is (--field p: lower bounds)
            const bool all_certified = std::all_of(rows.begin(), rows.end(), [](const json& r) { return r.value("label", "") == "certified"; });
            json top = {{"network", describe(net.spec)}, {"partitions", rows}, {"agree", agree}, {"agree_certified", agree && all_certified}};
            top["weights"] = weights_said;
            meter->finish();
            // The table has no note column: --device auto's fallback goes to stderr once (JSON:
            // each answer's note says it), and a device other than the CPU gets its column.
            // bound: whose rank each is (sep itself, or a grid's lower bound of it)
            std::vector<std::string> order = {"partition", "method", "rank", "label", "bound", "rows", "cols", "seconds", "peak_mib"};
            if (format == "csv") {  // no line after a CSV table: whose weights goes in a column
                order.push_back("weights");
                for (json& r : rows) r["weights"] = weights_said;
            }
            if (so.rank.device == seprank::Device::automatic && format != "json") {
                const seprank::DeviceChoice dev = seprank::choose_device(seprank::Device::automatic);
                if (!dev.note.empty()) notes.lines.push_back(dev.note);
            }
            if (std::any_of(rows.begin(), rows.end(), [](const json& r) { return r.value("device", "cpu") != "cpu"; }))
                order.insert(std::find(order.begin(), order.end(), "seconds"), "device");
            notes.emit(format == "json" ? &top : nullptr);
            if (format == "json") {
                std::cout << json_text(top, 2) << "\n";
            } else {
                if (format == "text") std::cout << "# " << describe(net.spec) << "\n";
                print_table(rows, format, order);
                if (format == "text")
                    std::cout << "all balanced partitions agree: " << (agree ? "yes" : "no")
                              << (all_certified ? "" : " (values not all certified: lower bounds may agree where the ranks differ)") << "\n";
                if (format == "text" && top.contains("weights")) std::cout << "weights: " << top["weights"].get<std::string>() << "\n";
            }
            return 0;
        }
        const auto part = partition_text.empty() ? seprank::balanced_partition(net.spec.tokens)
                                                 : seprank::parse_partition(partition_text, net.spec.tokens);
        json j = rank_of(part);
        j["weights"] = weights_said;
        save_weights(ro, net);
        meter->finish();
        notes.emit(format == "json" ? &j : nullptr);
        if (format == "text") std::cout << "# " << describe(net.spec) << "\n";
        print_record(j, format, order);
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_rank_command() { return std::make_unique<RankCommand>(); }

}  // namespace seprank_cli
