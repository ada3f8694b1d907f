#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/examples.hpp"
#include "seprank/flatten.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/separation.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <set>
#include <cmath>
#include <numeric>

using namespace seprank;

namespace {

// sep of a polynomial given as text, variables split by token index.
RankAnswer sep_of(const std::string& text, const std::string& partition) {
    auto ctx = QContext::make(variables_in(text));
    const QPoly f = parse_poly(text, ctx);
    long n = 0;
    for (std::size_t v = 0; v < ctx->vars().size(); ++v) n = std::max(n, ctx->vars().token(v));
    return separation_rank(f, parse_partition(partition, n), n);
}

seprank_test::SpecLimits small_limits() {
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_tokens = 3;
    lim.min_dim = 1;
    lim.max_dim = 2;
    lim.min_depth = 1;
    lim.max_depth = 2;
    lim.max_block_degree = 3;
    lim.max_block_degree_deep = 2;
    lim.max_width = 2;
    return lim;
}

}  // namespace

TEST_CASE("known flattening ranks") {
    // Σ_{i≤n} x_i y_i over x|y is n
    for (long n = 1; n <= 6; ++n) {
        std::string s;
        for (long i = 1; i <= n; ++i) s += (i > 1 ? " + " : "") + std::string("x1_") + std::to_string(i) + "*x2_" + std::to_string(i);
        const auto r = sep_of(s, "1|2");
        CHECK(r.value == n);
        CHECK(r.certified());
    }
    // (x + y)^d is d + 1
    for (long d = 1; d <= 12; ++d) CHECK(sep_of("(x1_1 + x2_1)^" + std::to_string(d), "1|2").value == d + 1);
    // a monomial is 1; (x + x^2) y is 1 although it has two terms
    CHECK(sep_of("7*x1_1^3*x1_2*x2_1^5*x3_2", "1,3|2").value == 1);
    const auto two = sep_of("(x1_1 + x1_1^2)*x2_1", "1|2");
    CHECK(two.value == 1);
    CHECK(two.terms == 2);
    // det_n with rows split k | n−k is C(n, k)
    for (long n = 2; n <= 5; ++n) {
        const QPoly det = determinant_polynomial(n);
        for (long k = 1; k < n; ++k) {
            Partition p;
            for (long j = 1; j <= n; ++j) (j <= k ? p.A : p.B).push_back(j);
            const auto r = separation_rank(det, p, n);
            INFO("det_" << n << " split " << k);
            CHECK(r.value == binomial(n, k));
            CHECK(r.certified());
        }
    }
}

TEST_CASE("grid rank <= flattening rank (Claim 7.1) and evaluation rank = flattening rank") {
    auto rng = seprank_test::rng_for("grid-vs-flattening");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, small_limits());
        const Network net = random_network(s, rng.next(), 1000);
        const auto parts = balanced_partitions_with(s.tokens, s.position);
        const Partition part = parts[rng.below(parts.size())];
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        SeparationOptions fo;
        fo.seed = rng.next();
        const auto flat = separation_rank(net, part, fo);
        REQUIRE(flat.certified());
        for (int k = 0; k < 3; ++k) {
            SeparationOptions go = fo;
            go.method = Method::grid;
            go.templates = 1 + static_cast<long>(rng.below(5));
            go.seed = rng.next();
            const auto grid = separation_rank(net, part, go);
            REQUIRE(grid.certified());
            REQUIRE(grid.value <= flat.value);
        }
        SeparationOptions eo = fo;
        eo.method = Method::evaluation;
        eo.evaluation.start = 4;
        const auto ev = separation_rank(net, part, eo);
        REQUIRE(ev.converged);
        REQUIRE(ev.value == flat.value);
        REQUIRE(ev.failure_bound < 1e-9);
        // the field-p flattening is a lower bound, equal here; exact exactly when it
        // reaches the flattening's cap (an upper bound over Q for every weight: the sum of
        // the degree-block caps when f is homogeneous, residual networks included)
        SeparationOptions po = fo;
        po.certify = false;
        const auto modp = separation_rank(net, part, po);
        REQUIRE(modp.value == flat.value);
        const std::vector<long> caps = degree_block_caps(s, part);
        const long cap = flattening_cap(s, ValidPartition(part, s.tokens));
        REQUIRE(cap >= flat.value);
        if (!caps.empty()) CHECK(cap == std::accumulate(caps.begin(), caps.end(), 0L));
        const bool at_caps = modp.value == cap;
        CHECK(modp.certified() == at_caps);
        CHECK(modp.failure_bound == (at_caps ? 0.0 : 1.0));
        CHECK((modp.note.find("which it reaches: exact") != std::string::npos) == at_caps);
    }
}

TEST_CASE("the field-p flattening of a residual network is exact at the flattening's cap") {
    // attention N = 3, dx = 1, L = 2 with residual connections: no degree blocks, a cap of
    // 5 on side {1}, which the drawn weights of seed 2 reach (rank 5 over Q as well)
    NetworkSpec s;
    s.tokens = 3;
    s.dim = 1;
    s.depth = 2;
    s.residual = true;
    const Partition part = parse_partition("1|2,3", 3);
    REQUIRE(degree_block_caps(s, part).empty());
    REQUIRE(flattening_cap(s, ValidPartition(part, 3)) == 5);
    bool reached = false;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const Network net = random_network(s, seed, 5);
        SeparationOptions q;
        q.seed = seed;
        const auto over_q = separation_rank(net, part, q);
        SeparationOptions p = q;
        p.certify = false;
        const auto modp = separation_rank(net, part, p);
        INFO("seed " << seed << ": over Q " << over_q.value << ", mod p " << modp.value);
        REQUIRE(over_q.certified());
        CHECK(modp.value == over_q.value);
        CHECK(modp.value <= 5);
        CHECK(modp.certified() == (modp.value == 5));
        reached = reached || modp.value == 5;
    }
    CHECK(reached);
}

TEST_CASE("grid matricization follows the index formula of docs/theory.md §2.3") {
    // N=4, M=2, A={1,3}, B={2,4}: (j1,j2,j3,j4) = (2,1,1,2) sits at row 3, col 2 (1-based).
    NetworkSpec s;
    s.family = Family::fc;  // f = x_{1,1} + 10 x_{2,1} + 100 x_{3,1} + 1000 x_{4,1} with fc d=1
    s.tokens = 4;
    s.dim = 1;
    s.depth = 1;
    s.block_degree = 1;
    s.widths = {1};
    Network net = random_network(s, 1);
    net.weights.layers[0].W[0] = Dense<Rational>(1, 4, Rational(0));
    const long w[4] = {1, 10, 100, 1000};
    for (long c = 0; c < 4; ++c) net.weights.layers[0].W[0](0, c) = Rational(w[c]);
    const Templates t = {{Rational(1)}, {Rational(2)}};  // template j has value j
    const SparseZMat m = grid_matricization(net, parse_partition("1,3|2,4", 4), t);
    REQUIRE(m.rows == 4);
    REQUIRE(m.cols == 4);
    // row 3 (0-based 2) = (j1, j3) = (2, 1); col 2 (0-based 1) = (j2, j4) = (1, 2); rows scaled by lcm 1
    const auto& row = m.row[2];
    const auto it = std::find_if(row.begin(), row.end(), [](const auto& e) { return e.first == 1; });
    REQUIRE(it != row.end());
    CHECK(it->second == Integer(2 * 1 + 1 * 10 + 1 * 100 + 2 * 1000));
}

TEST_CASE("Prop. 7.1: attention's rank is the same on every balanced partition (N = 5, 6)") {
    for (long n : {5L, 6L}) {
        NetworkSpec s;
        s.tokens = n;
        s.dim = 2;
        s.depth = 2;
        const Network net = random_network(s, 17, 1000);
        SeparationOptions o;
        o.method = Method::evaluation;
        long first = -1;
        for (const auto& p : balanced_partitions_with(n, 1)) {
            const auto r = separation_rank(net, p, o);
            if (first < 0) first = r.value;
            CHECK(r.value == first);
        }
        CHECK(first > 1);
    }
}

TEST_CASE("token_count: the largest token a polynomial's variables name; a name without one is refused by name") {
    auto count = [](const std::string& text) { return token_count(QContext::make(variables_in(text))->vars()); };
    CHECK(count("x1_1*x3_2 + x2_1") == 3);
    CHECK(count("x1_1*x2_1") == 2);
    CHECK(seprank_test::message_of([&] { (void)count("x0_1*x1_1"); }).find("variable 'x0_1' has no token index") == 0);
    CHECK(seprank_test::message_of([&] { (void)count("x1_1*x2_1 + y"); }).find("variable 'y' has no token index") == 0);
    CHECK(count("x2_1^2") == 2);  // the largest index: token 1 is there, without variables
    CHECK(seprank_test::message_of([&] { (void)count("7"); }).find("its variables name 0 tokens;") == 0);
    CHECK(seprank_test::message_of([&] { (void)count("x1_1^2"); }).find("its variables name 1 token;") == 0);
}

TEST_CASE("poly_partition: a polynomial is ranked on its partition's tokens, which hold every token its variables name") {
    const auto vars_of = [](const std::string& text) { return QContext::make(variables_in(text))->vars(); };
    const auto msg = [&](const std::string& text, const std::string& part) {
        return seprank_test::message_of([&] { (void)poly_partition(vars_of(text), part); });
    };
    // no text: balanced on the variables' tokens, token_count's checks
    CHECK(to_string(poly_partition(vars_of("x1_1*x3_2 + x2_1"), "")) == "1,2|3");
    CHECK(msg("x1_1^2", "").find("its variables name 1 token;") == 0);
    // a partition: its own tokens, a token without variables allowed
    CHECK(poly_partition(vars_of("x1_1^2 + 1"), "1|2").tokens() == 2);
    CHECK(poly_partition(vars_of("7"), "2|1,3").tokens() == 3);
    CHECK(poly_partition(vars_of("x2_1"), "1..3|4..6").tokens() == 6);
    CHECK(msg("x1_1*x3_1", "1|2").find("variable 'x3_1' belongs to token 3, beyond the 2 tokens of the partition '1|2'") == 0);
    CHECK(msg("x0_1*x1_1", "1|2").find("variable 'x0_1' has no token index") == 0);
    CHECK(msg("x1_1*x2_1", "1|3") ==
          "partition '1|3': token 3 outside 1..2 (N = 2, the positions it lists, which must be 1..N); a polynomial is ranked on the tokens its partition lists");
    CHECK(msg("7", "").find("; or give a partition (e.g. 1|2)") != std::string::npos);
    CHECK(msg("x1_1*x2_1", "1,2|").find("partition '1,2|'") == 0);
    CHECK(msg("x1_1*x2_1", "1,2").find("partition '1,2': expected exactly one '|'") == 0);
    CHECK(msg("x1_1*x2_1", "1|1").find("partition '1|1'") == 0);
    // the subject names the polynomial in the variables' messages, not in the partition's
    const auto as = [&](const std::string& text, const std::string& part) {
        return seprank_test::message_of([&] { (void)poly_partition(vars_of(text), part, "--poly"); });
    };
    CHECK(as("x1_1*x3_1", "1|2").find("--poly: variable 'x3_1' belongs to token 3") == 0);
    CHECK(as("x1_1^2", "").find("--poly: its variables name 1 token;") == 0);
    CHECK(as("x1_1*x2_1", "1|3").find("partition '1|3': token 3 outside 1..2") == 0);
    // sep of a polynomial that ignores a token, or cancels to a constant, is 1; 0 is 0
    for (const char* text : {"x1_1^2 + 1", "x2_1 - x2_1 + 3"}) {
        auto ctx = QContext::make(variables_in(text));
        const QPoly f = parse_poly(text, ctx);
        const ValidPartition part = poly_partition(ctx->vars(), "1|2");
        const auto r = separation_rank(f, part, part.tokens());
        INFO(text);
        CHECK(r.value == 1);
        CHECK(r.certified());
    }
    auto ctx = QContext::make(variables_in("x1_1 - x1_1"));
    const ValidPartition part = poly_partition(ctx->vars(), "1|2,3");
    CHECK(separation_rank(parse_poly("x1_1 - x1_1", ctx), part, part.tokens()).value == 0);
}

TEST_CASE("bad requests are refused with a clear error") {
    NetworkSpec s;
    s.tokens = 3;
    const Network net = random_network(s, 1);
    SeparationOptions zero_templates;
    zero_templates.method = Method::grid;
    zero_templates.templates = 0;
    CHECK_THROWS_AS(separation_rank(net, parse_partition("1|2,3", 3), zero_templates), invalid_input);
    CHECK_THROWS_AS(random_templates(0, 2, 1), invalid_input);
    Templates wrong = {{Rational(1)}};
    SeparationOptions g;
    g.method = Method::grid;
    g.template_vectors = wrong;
    CHECK_THROWS_AS(separation_rank(net, parse_partition("1|2,3", 3), g), invalid_input);
    // an expansion limit the evaluation method ignores is still checked (0 is the default)
    for (double bad : {-1.0, std::nan("")}) {
        SeparationOptions e;
        e.method = Method::evaluation;
        e.expand.max_memory = bad;
        CHECK_THROWS_AS(separation_rank(net, parse_partition("1|2,3", 3), e), invalid_input);
    }
    auto ctx = QContext::make(Variables({"a", "b"}));
    const QPoly f = parse_poly("a*b", ctx);
    CHECK_THROWS_AS(separation_rank(f, parse_partition("1|2", 2), 2), invalid_input);  // no token indices
}

TEST_CASE("examples: determinant polynomials and binomials") {
    long fact = 1;
    for (long n = 1; n <= 8; ++n) {
        fact *= n;
        const QPoly det = determinant_polynomial(n);
        CHECK(static_cast<long>(det.terms()) == fact);
        CHECK(det.degree() == n);
        CHECK(det.is_homogeneous());
    }
    // Signs: the Leibniz expansion written out for n = 2 and n = 3.
    const QPoly d2 = determinant_polynomial(2);
    CHECK(d2 == parse_poly("x1_1*x2_2 - x1_2*x2_1", d2.context()));
    const QPoly d3 = determinant_polynomial(3);
    CHECK(d3 == parse_poly("x1_1*x2_2*x3_3 - x1_1*x2_3*x3_2 - x1_2*x2_1*x3_3 + x1_2*x2_3*x3_1"
                           " + x1_3*x2_1*x3_2 - x1_3*x2_2*x3_1", d3.context()));
    CHECK(binomial(6, 3) == 20);
    CHECK(binomial(60, 30) == 118264581564861424L);
    CHECK_THROWS_AS(binomial(3, 4), invalid_input);
    CHECK_THROWS_AS(determinant_polynomial(9), invalid_input);
}

TEST_CASE("a rank below the degree-block caps is noted, one at the caps is not (issue 38)") {
    // attention N=2 dx=2 L=2 at seed 1: rank 15 (docs/table.md), which is Σ cap_a here:
    // the caps bound sep at every weights, so that draw is as good as generic.
    NetworkSpec s;
    s.tokens = 2;
    s.dim = 2;
    s.depth = 2;
    const Partition part = balanced_partition(2);
    long cap_sum = 0;
    for (long c : degree_block_caps(s, part)) cap_sum += c;
    Network net = random_network(s, 1);
    SeparationOptions so;
    const RankAnswer at = separation_rank(net, part, so);
    REQUIRE(at.value == cap_sum);
    CHECK(at.note.find("degree-block caps") == std::string::npos);
    // All weights 0: f = 0, rank 0 below the caps at weights no one would call generic.
    for (auto* x : weight_entries(net.weights)) *x = Rational(0);
    const RankAnswer zero = separation_rank(net, part, so);
    CHECK(zero.value == 0);
    INFO(zero.note);
    CHECK(zero.note.find("rank 0 is below the sum of the degree-block caps, " + std::to_string(cap_sum)) != std::string::npos);
    CHECK(zero.note.find("seprank generic") != std::string::npos);
    // The same with the evaluation (a rank mod p at these weights).
    so.method = Method::evaluation;
    CHECK(separation_rank(net, part, so).note.find("degree-block caps") != std::string::npos);
}

TEST_CASE("to_string(Method) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<Method>({Method::flattening, Method::grid, Method::evaluation}, "Method", method_from_string);
}
