// seprank — command-line front end: parse options, call one library function, format.
// Exit codes: 0 success, 2 bad input (one line on stderr naming the value), 3 a stated
// resource limit was hit.
#include "seprank/degree.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/separation.hpp"
#include "seprank/table.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <flint/flint.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace {

using nlohmann::json;

struct NetOptions {
    std::string family = "attention";
    long tokens = 4, dim = 2, heads = 1, head_dim = 0, depth = 1, width = 0;
    std::optional<long> block_degree;
    std::vector<long> widths;
    bool residual = false, free_slots = false;
    long embed_rank = 0, attention_rank = 0, position = 1, coordinate = 1;
    std::uint64_t seed = 1;
    long weight_range = seprank::kDefaultWeightRange;
    std::string weights_file, save_weights;
};

void add_network_options(CLI::App* app, NetOptions& o) {
    app->add_option("--family", o.family, "attention|hadamard|fc")->capture_default_str();
    app->add_option("--tokens", o.tokens, "number of tokens N")->capture_default_str();
    app->add_option("--dim", o.dim, "token dimension dx")->capture_default_str();
    app->add_option("--heads", o.heads, "attention heads H (must divide dx unless --head-dim)")->capture_default_str();
    app->add_option("--head-dim", o.head_dim, "attention head dimension da (default dx/H)");
    app->add_option("--depth", o.depth, "number of layers L")->capture_default_str();
    app->add_option("--block-degree", o.block_degree, "block degree d (hadamard, fc; default 3)");
    app->add_option("--width", o.width, "hadamard width w (default dx)");
    app->add_option("--widths", o.widths, "fc widths w_1..w_L (default N*dx each)")->delimiter(',');
    app->add_flag("--residual", o.residual, "residual connection y^{l+1} += y^l");
    app->add_flag("--free", o.free_slots, "hadamard: slots 2..d sum over independent tokens");
    app->add_option("--embed-rank", o.embed_rank, "embedding rank r: x^j = M w^j");
    app->add_option("--attention-rank", o.attention_rank, "cap the rank of W^Q^T W^K at k");
    app->add_option("--position", o.position, "output position i (1-based)")->capture_default_str();
    app->add_option("--coordinate", o.coordinate, "output coordinate p (1-based)")->capture_default_str();
    app->add_option("--seed", o.seed, "seed of the random integer weights")->capture_default_str();
    app->add_option("--weight-range", o.weight_range, "random weights are uniform integers in [-R, R]")->capture_default_str();
    app->add_option("--weights", o.weights_file, "exact weights (JSON, SPEC.md section 4); overrides the network options");
    app->add_option("--save-weights", o.save_weights, "write the weights used to this JSON file");
}

seprank::NetworkSpec to_spec(const NetOptions& o) {
    seprank::NetworkSpec s;
    s.family = seprank::family_from_string(o.family);
    s.tokens = o.tokens;
    s.dim = o.dim;
    s.heads = o.heads;
    s.head_dim = o.head_dim;
    s.depth = o.depth;
    s.block_degree = o.block_degree.value_or(3);
    s.width = o.width;
    s.widths = o.widths;
    s.residual = o.residual;
    s.free_slots = o.free_slots;
    s.embed_rank = o.embed_rank;
    s.attention_rank = o.attention_rank;
    s.position = o.position;
    s.coordinate = o.coordinate;
    seprank::validate(s);
    return s;
}

seprank::Network make_network(const NetOptions& o) {
    seprank::Network net = o.weights_file.empty() ? seprank::random_network(to_spec(o), o.seed, o.weight_range)
                                                  : seprank::read_network(o.weights_file);
    if (!o.save_weights.empty()) seprank::write_network(net, o.save_weights);
    return net;
}

std::string describe(const seprank::NetworkSpec& s) {
    std::ostringstream os;
    os << seprank::to_string(s.family) << " N=" << s.tokens << " dx=" << s.dim;
    if (s.family == seprank::Family::attention) os << " H=" << s.heads << " da=" << seprank::head_dim(s);
    else os << " d=" << s.block_degree;
    if (s.family == seprank::Family::hadamard) os << " w=" << seprank::block_width(s) << (s.free_slots ? " free" : " tied");
    os << " L=" << s.depth;
    if (s.residual) os << " residual";
    if (s.embed_rank > 0) os << " r=" << s.embed_rank;
    if (s.attention_rank > 0) os << " k=" << s.attention_rank;
    os << " (i=" << s.position << ", p=" << s.coordinate << ")";
    return os.str();
}

json spec_json(const seprank::NetworkSpec& s) {
    return {{"family", seprank::to_string(s.family)},
            {"tokens", s.tokens},
            {"dim", s.dim},
            {"heads", s.family == seprank::Family::attention ? s.heads : 0},
            {"block_degree", seprank::block_degree(s)},
            {"depth", s.depth},
            {"residual", s.residual}};
}

// Prints one record as text (aligned "key  value" lines), JSON, or CSV (header + row).
void print_record(const json& rec, const std::string& format, const std::vector<std::string>& order) {
    if (format == "json") {
        std::cout << rec.dump(2) << "\n";
        return;
    }
    auto cell = [&](const std::string& k) {
        const json& v = rec.at(k);
        return v.is_string() ? v.get<std::string>() : v.dump();
    };
    if (format == "csv") {
        for (std::size_t i = 0; i < order.size(); ++i) std::cout << (i ? "," : "") << order[i];
        std::cout << "\n";
        for (std::size_t i = 0; i < order.size(); ++i) {
            std::string c = cell(order[i]);
            if (c.find_first_of(",\"\n") != std::string::npos) {
                std::string q = "\"";
                for (char ch : c) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
                c = q + "\"";
            }
            std::cout << (i ? "," : "") << c;
        }
        std::cout << "\n";
        return;
    }
    for (const auto& k : order) std::cout << k << std::string(k.size() < 18 ? 18 - k.size() : 1, ' ') << cell(k) << "\n";
}

void print_table(const std::vector<json>& rows, const std::string& format, const std::vector<std::string>& order) {
    if (format == "json") {
        std::cout << json(rows).dump(2) << "\n";
        return;
    }
    auto cell = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
    if (format == "csv") {
        for (std::size_t i = 0; i < order.size(); ++i) std::cout << (i ? "," : "") << order[i];
        std::cout << "\n";
        for (const auto& r : rows) {
            for (std::size_t i = 0; i < order.size(); ++i) std::cout << (i ? "," : "") << cell(r.at(order[i]));
            std::cout << "\n";
        }
        return;
    }
    std::vector<std::size_t> w(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        w[i] = order[i].size();
        for (const auto& r : rows) w[i] = std::max(w[i], cell(r.at(order[i])).size());
    }
    for (std::size_t i = 0; i < order.size(); ++i) std::cout << (i ? "  " : "") << std::string(w[i] - order[i].size(), ' ') << order[i];
    std::cout << "\n";
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < order.size(); ++i) {
            const std::string c = cell(r.at(order[i]));
            std::cout << (i ? "  " : "") << std::string(w[i] - c.size(), ' ') << c;
        }
        std::cout << "\n";
    }
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(int argc, char** argv) {
    CLI::App app{"seprank: exact degree and separation rank of polynomial attention networks"};
    app.require_subcommand(1);
    app.fallthrough();  // global options (--threads) may follow the subcommand
    app.set_version_flag("--version", "seprank 0.1.0");
    std::string format = "text";
    int threads = 2;
    app.add_option("--threads", threads, "threads for FLINT's multiplication")->capture_default_str();

    // poly
    std::string poly_text;
    auto* poly = app.add_subcommand("poly", "Parse a polynomial; print its canonical form, degree and term count");
    poly->add_option("text", poly_text, "the polynomial, e.g. \"3/4*x1_2^3*x2_1 - x1_1 + 2\"")->required();
    poly->add_option("--format", format, "text|json")->check(CLI::IsMember({"text", "json"}));

    // expand
    NetOptions eo;
    bool print_poly = false;
    double max_memory_gib = seprank::kDefaultMaxMemory / (1024.0 * 1024 * 1024);
    auto* expand = app.add_subcommand("expand", "Expand the network output into an exact polynomial");
    add_network_options(expand, eo);
    expand->add_flag("--print", print_poly, "print the polynomial itself");
    expand->add_option("--max-memory", max_memory_gib, "refuse expansions estimated above this many GiB")->capture_default_str();
    expand->add_option("--format", format, "text|json|csv")->check(CLI::IsMember({"text", "json", "csv"}));

    // degree
    NetOptions dgo;
    long budget = 0;
    std::vector<long> budget_degrees = {1, 2, 3, 4, 5, 6};
    auto* degree = app.add_subcommand("degree", "Degree growth d^L, measured, per depth; or a fixed-budget comparison across block degrees");
    add_network_options(degree, dgo);
    degree->add_option("--budget", budget, "parameter budget B: compare block degrees at depth floor(B / params per layer)");
    degree->add_option("--degrees", budget_degrees, "block degrees to compare with --budget")->delimiter(',')->capture_default_str();
    degree->add_option("--format", format, "text|json|csv")->check(CLI::IsMember({"text", "json", "csv"}));

    // rank
    NetOptions ro;
    std::string partition_text, method = "flattening", field = "Q", templates_file, rank_poly;
    long templates = 2, max_side = 4096;
    bool all_balanced = false;
    double rank_max_memory_gib = max_memory_gib;
    auto* rank = app.add_subcommand("rank", "Separation rank w.r.t. a token partition: flattening (exact), grid tensor or black-box evaluation");
    add_network_options(rank, ro);
    rank->add_option("--partition", partition_text, "token partition A|B, e.g. 1,2|3,4 (default: balanced, 1..ceil(N/2) | rest)");
    rank->add_option("--method", method, "flattening|grid|evaluation")->check(CLI::IsMember({"flattening", "grid", "evaluation"}))->capture_default_str();
    rank->add_option("--field", field, "Q (certified exact rank) or p (one modular rank: a lower bound)")->check(CLI::IsMember({"Q", "p"}))->capture_default_str();
    rank->add_option("--templates", templates, "grid: number M of random integer template vectors")->capture_default_str();
    rank->add_option("--templates-file", templates_file, "grid: JSON list of template vectors");
    rank->add_option("--max-side", max_side, "evaluation: largest k of the k x k evaluation matrix")->capture_default_str();
    rank->add_flag("--all-balanced", all_balanced, "every balanced partition with the output position on side A, and whether they agree (Prop. 7.1)");
    rank->add_option("--poly", rank_poly, "rank this polynomial instead of a network (variables x<j>_<c>, split by token j)");
    rank->add_option("--max-memory", rank_max_memory_gib, "refuse expansions estimated above this many GiB")->capture_default_str();
    rank->add_option("--format", format, "text|json|csv")->check(CLI::IsMember({"text", "json", "csv"}));

    // generic
    NetOptions go;
    std::string generic_method = "auto", generic_partition;
    long trials = 2, generic_max_side = 4096;
    auto* generic = app.add_subcommand("generic",
        "Generic rank: maximum over T random weight draws (uniform on Z/p), with failure_bound = (m*D/p)^T "
        "bounding the chance that the generic rank is larger (Schwartz-Zippel; m the matrix side, D the entries' degree)");
    add_network_options(generic, go);
    generic->add_option("--trials", trials, "independent weight draws T")->capture_default_str();
    generic->add_option("--partition", generic_partition, "token partition A|B (default balanced)");
    generic->add_option("--method", generic_method, "auto|flattening|evaluation (auto: flattening when the expansion is small)")
        ->check(CLI::IsMember({"auto", "flattening", "evaluation"}))->capture_default_str();
    generic->add_option("--max-side", generic_max_side, "evaluation: largest k")->capture_default_str();
    generic->add_option("--format", format, "text|json|csv")->check(CLI::IsMember({"text", "json", "csv"}));

    // table
    std::string t_family, t_tokens, t_dim, t_heads, t_depth, t_degree, t_width, t_partition, t_method = "auto", t_out;
    long t_budget = 0, t_trials = 1, t_max_side = 1024;
    std::uint64_t t_seed = 1;
    bool t_residual = false, t_resume = false;
    auto* table = app.add_subcommand("table", "Sweep of generic ranks; with no network options, the default table");
    table->add_option("--family", t_family, "families, e.g. attention,hadamard");
    table->add_option("--tokens", t_tokens, "list or range, e.g. 2,3 or 2..4");
    table->add_option("--dim", t_dim, "list or range of dx");
    table->add_option("--heads", t_heads, "list or range of H");
    table->add_option("--depth", t_depth, "list or range of L");
    table->add_option("--block-degree", t_degree, "list or range of d (hadamard, fc)");
    table->add_option("--width", t_width, "list or range of w (hadamard)");
    table->add_flag("--residual", t_residual, "residual networks");
    table->add_option("--budget", t_budget, "parameter budget: non-attention depth = floor(B / params per layer)");
    table->add_option("--partition", t_partition, "token partition A|B (default balanced)");
    table->add_option("--trials", t_trials, "weight draws per row")->capture_default_str();
    table->add_option("--seed", t_seed, "seed")->capture_default_str();
    table->add_option("--method", t_method, "auto|flattening|evaluation")->check(CLI::IsMember({"auto", "flattening", "evaluation"}))->capture_default_str();
    table->add_option("--max-side", t_max_side, "evaluation: largest k (size budget)")->capture_default_str();
    table->add_option("--out", t_out, "append each finished row to FILE (csv, or JSON lines with --format json)");
    table->add_flag("--resume", t_resume, "skip rows already in --out FILE");
    table->add_option("--format", format, "text|csv|json|markdown")->check(CLI::IsMember({"text", "csv", "json", "markdown"}));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every other parse error is bad input: exit 2.
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (threads < 1) throw seprank::invalid_input("--threads " + std::to_string(threads) + " must be at least 1");
    flint_set_num_threads(threads);

    if (*poly) {
        auto ctx = seprank::QContext::make(seprank::variables_in(poly_text));
        const seprank::QPoly f = seprank::parse_poly(poly_text, ctx);
        json rec = {{"polynomial", seprank::to_string(f)},
                    {"degree", f.degree()},
                    {"terms", f.terms()},
                    {"homogeneous", f.is_homogeneous()},
                    {"variables", ctx->vars().names()}};
        print_record(rec, format, {"polynomial", "degree", "terms", "homogeneous"});
    } else if (*expand) {
        const seprank::Network net = make_network(eo);
        const auto t0 = std::chrono::steady_clock::now();
        seprank::ExpandOptions opt;
        opt.max_memory = max_memory_gib * 1024.0 * 1024 * 1024;
        const seprank::QPoly f = seprank::expand(net, opt);
        const double secs = seconds_since(t0);
        json rec = spec_json(net.spec);
        rec["network"] = describe(net.spec);
        rec["degree"] = f.degree();
        rec["predicted_degree"] = seprank::output_degree(net.spec).str();
        rec["terms"] = f.terms();
        rec["parameters"] = seprank::parameter_count(net.spec).str();
        rec["weight_degree"] = seprank::weight_degree(net.spec).str();
        rec["homogeneous"] = f.is_homogeneous();
        rec["seconds"] = secs;
        std::vector<std::string> order = {"network", "degree", "predicted_degree", "terms", "parameters", "weight_degree", "homogeneous", "seconds"};
        if (format != "text") order = {"family", "tokens", "dim", "heads", "block_degree", "depth", "residual", "degree", "predicted_degree", "terms", "parameters", "weight_degree", "homogeneous", "seconds"};
        if (print_poly) {
            rec["polynomial"] = seprank::to_string(f);
            order.push_back("polynomial");
        }
        print_record(rec, format, order);
    } else if (*rank) {
        seprank::SeparationOptions so;
        so.method = seprank::method_from_string(method);
        so.certify = field == "Q";
        so.seed = ro.seed;
        so.templates = templates;
        so.expand.max_memory = rank_max_memory_gib * 1024.0 * 1024 * 1024;
        so.evaluation.max_side = max_side;
        so.evaluation.threads = threads;
        so.rank.threads = threads;
        auto to_json = [](const seprank::SeparationReport& r) {
            json j = {{"method", r.method},   {"partition", r.partition}, {"rank", r.rank},
                      {"certified", r.certified}, {"label", r.label},     {"field", r.field},
                      {"bound", r.bound_kind}, {"rows", r.rows},          {"cols", r.cols},
                      {"degree", r.degree},   {"seconds", std::round(r.seconds * 1e4) / 1e4}, {"note", r.note}};
            j["terms"] = r.terms >= 0 ? json(r.terms) : json(nullptr);
            if (r.prime != 0) j["prime"] = r.prime;
            if (r.failure_bound > 0) j["failure_bound"] = r.failure_bound;
            if (r.method == "evaluation") j["converged"] = r.converged;
            return j;
        };
        const std::vector<std::string> order = {"partition", "method", "rank", "label", "bound", "rows", "cols", "degree", "terms", "seconds", "note"};
        if (!rank_poly.empty()) {
            auto ctx = seprank::QContext::make(seprank::variables_in(rank_poly));
            const seprank::QPoly f = seprank::parse_poly(rank_poly, ctx);
            long n = 0;
            for (std::size_t v = 0; v < ctx->vars().size(); ++v) n = std::max(n, ctx->vars().token(v));
            if (n < 2) throw seprank::invalid_input("--poly: the polynomial must use variables of at least 2 tokens (names x<j>_<c>)");
            const auto part = partition_text.empty() ? seprank::balanced_partition(n) : seprank::parse_partition(partition_text, n);
            json j = to_json(seprank::separation_rank(f, part, n, so));
            j["polynomial_terms"] = f.terms();
            print_record(j, format, order);
            return 0;
        }
        if (!templates_file.empty()) {
            const seprank::NetworkSpec spec = ro.weights_file.empty() ? to_spec(ro) : seprank::read_network(ro.weights_file).spec;
            so.template_vectors = seprank::read_templates(templates_file, seprank::input_vars_per_token(spec));
        }
        const seprank::Network net = make_network(ro);
        if (all_balanced) {
            std::vector<json> rows;
            long first = -1;
            bool agree = true;
            for (const auto& part : seprank::balanced_partitions_with(net.spec.tokens, net.spec.position)) {
                json j = to_json(seprank::separation_rank(net, part, so));
                if (first < 0) first = j["rank"].get<long>();
                agree = agree && j["rank"].get<long>() == first;
                rows.push_back(j);
            }
            if (format == "json") {
                std::cout << json({{"network", describe(net.spec)}, {"partitions", rows}, {"agree", agree}}).dump(2) << "\n";
            } else {
                if (format == "text") std::cout << "# " << describe(net.spec) << "\n";
                print_table(rows, format, {"partition", "method", "rank", "label", "rows", "cols", "seconds"});
                if (format == "text") std::cout << "all balanced partitions agree: " << (agree ? "yes" : "no") << "\n";
            }
            return 0;
        }
        const auto part = partition_text.empty() ? seprank::balanced_partition(net.spec.tokens)
                                                 : seprank::parse_partition(partition_text, net.spec.tokens);
        json j = to_json(seprank::separation_rank(net, part, so));
        if (format == "text") std::cout << "# " << describe(net.spec) << "\n";
        print_record(j, format, order);
    } else if (*generic) {
        const seprank::NetworkSpec spec = go.weights_file.empty() ? to_spec(go) : seprank::read_network(go.weights_file).spec;
        const auto part = generic_partition.empty() ? seprank::balanced_partition(spec.tokens)
                                                    : seprank::parse_partition(generic_partition, spec.tokens);
        seprank::GenericOptions g;
        g.trials = trials;
        g.seed = go.seed;
        g.method = generic_method == "flattening" ? seprank::GenericMethod::flattening
                 : generic_method == "evaluation" ? seprank::GenericMethod::evaluation
                                                  : seprank::GenericMethod::automatic;
        g.max_side = generic_max_side;
        g.threads = threads;
        const auto t0 = std::chrono::steady_clock::now();
        const seprank::GenericResult r = seprank::generic_rank(spec, part, g);
        json j = spec_json(spec);
        j["network"] = describe(spec);
        j["partition"] = seprank::to_string(part);
        j["rank"] = r.rank;
        j["certified"] = false;
        j["label"] = r.converged ? "certified lower bound; generic with probability >= 1 - failure_bound" : "lower bound (not converged)";
        j["method"] = r.method;
        j["rows"] = r.rows;
        j["cols"] = r.cols;
        j["degree"] = seprank::output_degree(spec).str();
        j["terms"] = r.terms >= 0 ? json(r.terms) : json(nullptr);
        j["trials"] = trials;
        j["trial_ranks"] = r.trial_ranks;
        j["degenerate_trials"] = r.degenerate_trials;
        j["set_size"] = std::to_string(r.set_size);
        j["prime"] = r.prime;
        j["weight_degree"] = r.weight_degree.str();
        j["bound_degree"] = r.bound_degree.str();
        j["failure_bound"] = r.failure_bound;
        j["seconds"] = std::round(seconds_since(t0) * 1e4) / 1e4;
        j["note"] = r.note;
        if (format == "text") std::cout << "# " << describe(spec) << "\n";
        print_record(j, format, {"partition", "rank", "label", "method", "rows", "cols", "degree", "trials", "degenerate_trials", "set_size", "weight_degree", "bound_degree", "failure_bound", "seconds", "note"});
    } else if (*table) {
        std::vector<seprank::SweepOptions> sweeps;
        const bool custom = !t_family.empty() || !t_tokens.empty() || !t_dim.empty() || !t_heads.empty() || !t_depth.empty() ||
                            !t_degree.empty() || !t_width.empty() || t_residual || t_budget > 0;
        if (custom) {
            seprank::SweepOptions sw;
            if (!t_family.empty()) {
                sw.families.clear();
                std::stringstream ss(t_family);
                for (std::string f; std::getline(ss, f, ',');) sw.families.push_back(seprank::family_from_string(f));
            }
            if (!t_tokens.empty()) sw.tokens = seprank::parse_list(t_tokens, "--tokens");
            if (!t_dim.empty()) sw.dims = seprank::parse_list(t_dim, "--dim");
            if (!t_heads.empty()) sw.heads = seprank::parse_list(t_heads, "--heads");
            if (!t_depth.empty()) sw.depths = seprank::parse_list(t_depth, "--depth");
            sw.block_degrees = t_degree.empty() ? std::vector<long>{2} : seprank::parse_list(t_degree, "--block-degree");
            if (!t_width.empty()) sw.widths = seprank::parse_list(t_width, "--width");
            sw.residual = {t_residual};
            sw.budget = t_budget;
            sweeps.push_back(sw);
        } else {
            sweeps = seprank::default_table();
        }
        std::vector<std::pair<seprank::NetworkSpec, seprank::SweepOptions>> plan;
        long invalid = 0;
        for (auto& sw : sweeps) {
            sw.partition = t_partition;
            sw.trials = t_trials;
            sw.seed = t_seed;
            sw.method = t_method == "flattening" ? seprank::GenericMethod::flattening
                      : t_method == "evaluation" ? seprank::GenericMethod::evaluation
                                                 : seprank::GenericMethod::automatic;
            sw.max_side = t_max_side;
            sw.threads = threads;
            const auto p = seprank::plan_sweep(sw);
            invalid += p.invalid;
            for (const auto& c : p.configs) plan.emplace_back(c, sw);
        }
        if (plan.empty()) throw seprank::invalid_input("the sweep has no valid configuration (" + std::to_string(invalid) + " left out as invalid)");
        if (t_resume && t_out.empty()) throw seprank::invalid_input("--resume needs --out FILE");
        if (!t_out.empty() && format == "markdown") throw seprank::invalid_input("--out writes csv or json lines: use --format csv or json");
        const bool jsonl = format == "json";
        std::vector<seprank::Row> done_rows;
        if (!t_out.empty() && t_resume) done_rows = seprank::read_table_file(t_out, jsonl);
        if (!t_out.empty() && !t_resume) {
            std::ifstream probe(t_out);
            if (probe && probe.peek() != std::ifstream::traits_type::eof())
                throw seprank::invalid_input("--out '" + t_out + "' exists and is not empty: add --resume, or remove it");
        }
        std::map<std::string, seprank::Row> done;
        for (const auto& r : done_rows) done[seprank::row_key(r)] = r;
        std::unique_ptr<seprank::TableAppender> out;
        if (!t_out.empty()) out = std::make_unique<seprank::TableAppender>(t_out, jsonl);
        const bool progress = isatty(STDERR_FILENO);
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<seprank::Row> rows;
        long computed = 0, skipped_done = 0;
        for (std::size_t k = 0; k < plan.size(); ++k) {
            const auto& [spec, sw] = plan[k];
            const std::string key = seprank::row_key(spec, sw);
            if (auto it = done.find(key); it != done.end()) {
                rows.push_back(it->second);
                ++skipped_done;
                continue;
            }
            if (progress) {
                const double el = seconds_since(t0);
                const double eta = computed > 0 ? el / static_cast<double>(computed) * static_cast<double>(plan.size() - k) : 0;
                std::cerr << "\r[" << k << "/" << plan.size() << "] " << describe(spec) << "  elapsed " << static_cast<long>(el)
                          << " s, ETA " << static_cast<long>(eta) << " s\033[K" << std::flush;
            }
            seprank::Row r = seprank::table_row(spec, sw);
            if (out) out->append(r);
            rows.push_back(std::move(r));
            ++computed;
        }
        if (progress) std::cerr << "\r\033[K";
        std::vector<json> plain;
        for (const auto& r : rows) plain.push_back(json::parse(r.dump()));
        const auto& cols = seprank::table_columns();
        if (format == "markdown") {
            std::cout << "|";
            for (const auto& c : cols) std::cout << " " << c << " |";
            std::cout << "\n|";
            for (std::size_t i = 0; i < cols.size(); ++i) std::cout << "---|";
            std::cout << "\n";
            for (const auto& r : plain) {
                std::cout << "|";
                for (const auto& c : cols) std::cout << " " << (r.at(c).is_string() ? r.at(c).get<std::string>() : r.at(c).dump()) << " |";
                std::cout << "\n";
            }
        } else if (format == "csv") {
            std::cout << seprank::csv_header() << "\n";
            for (const auto& r : rows) std::cout << seprank::csv_line(r) << "\n";
        } else if (format == "json") {
            std::cout << json(plain).dump(2) << "\n";
        } else {
            print_table(plain, "text", {"family", "tokens", "dim", "heads", "block_degree", "width", "depth", "partition", "degree", "rank", "method", "log3_rank", "theorem", "log3_lower", "log3_upper", "outside", "status", "seconds"});
        }
        std::cerr << "seprank table: " << computed << " rows computed, " << skipped_done << " resumed, " << invalid
                  << " invalid combinations left out, " << std::round(seconds_since(t0) * 10) / 10 << " s\n";
    } else if (*degree) {
        std::vector<json> rows;
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
                                {"layer_params", r.layer_params.str()},
                                {"depth", r.depth},
                                {"params_used", r.total_params.str()},
                                {"predicted", r.predicted.str()},
                                {"measured", r.measured >= 0 ? json(r.measured) : json("-")},
                                {"ln_deg_per_param", std::round(r.log_degree_per_param * 1e4) / 1e4},
                                {"h_d", std::round(r.h * 1e4) / 1e4}});
            }
            print_table(rows, format, {"block_degree", "layer_params", "depth", "params_used", "predicted", "measured", "ln_deg_per_param", "h_d"});
            if (format == "text")
                std::cout << "budget " << budget << ": highest degree reached at d = " << cmp.best_measured_d
                          << "; h(d) = ln d / d peaks (over the listed integers) at d = " << cmp.best_h_d << "\n";
        } else {
            NetOptions o = dgo;
            const long max_depth = o.weights_file.empty() ? o.depth : seprank::read_network(o.weights_file).spec.depth;
            for (long L = 1; L <= max_depth; ++L) {
                o.depth = L;
                seprank::Network net = o.weights_file.empty() ? seprank::random_network(to_spec(o), o.seed, o.weight_range)
                                                              : seprank::read_network(o.weights_file);
                net.spec.depth = L;
                net.weights.layers.resize(static_cast<std::size_t>(L));
                const auto t0 = std::chrono::steady_clock::now();
                const auto m = seprank::measure_degree(net, o.seed);
                json row = {{"depth", L},
                            {"measured", m.degree},
                            {"predicted", m.predicted.str()},
                            {"parameters", seprank::parameter_count(net.spec).str()},
                            {"weight_degree", seprank::weight_degree(net.spec).str()}};
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
            if (format == "text") std::cout << "# " << describe(to_spec(dgo)) << "\n";
            print_table(rows, format, {"depth", "measured", "predicted", "terms", "parameters", "weight_degree", "seconds"});
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const seprank::invalid_input& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::domain_error& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::resource_limit& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 3;
    }
}
