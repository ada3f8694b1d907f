// seprank — command-line front end: parse options, call one library function, format.
// Exit codes: 0 success, 2 bad input (one line on stderr naming the value), 3 a stated
// resource limit was hit.
#include "seprank/degree.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/separation.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <flint/flint.h>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>

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
