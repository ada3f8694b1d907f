#include "seprank/degree.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/forward.hpp"
#include "seprank/poly_io.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace seprank;

namespace {

// Limits of the random specs here: small, of any family and option combination.
seprank_test::SpecLimits expand_limits(long max_depth) {
    seprank_test::SpecLimits lim;
    lim.min_tokens = 1;
    lim.max_tokens = 3;
    lim.min_dim = 1;
    lim.max_dim = 2;
    lim.min_depth = 0;
    lim.max_depth = max_depth;
    lim.max_block_degree = 3;
    lim.max_block_degree_deep = 2;
    lim.max_width = 3;
    return lim;
}

Point<Rational> random_qpoint(Rng& rng, const NetworkSpec& s) {
    Point<Rational> x(static_cast<std::size_t>(s.tokens));
    for (auto& t : x)
        for (long c = 0; c < input_vars_per_token(s); ++c)
            t.push_back(Rational(Integer(rng.range(-20, 20)), Integer(1 + rng.range(0, 3))));
    return x;
}

std::vector<Rational> flatten(const Point<Rational>& x) {
    std::vector<Rational> v;
    for (const auto& t : x) v.insert(v.end(), t.begin(), t.end());
    return v;
}

}  // namespace

TEST_CASE("expansion equals forward evaluation at random exact points, every family and option") {
    auto rng = seprank_test::rng_for("expand-vs-eval");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, expand_limits(2));
        const std::uint64_t wseed = rng.next();
        // Small weights (range 5) give sparse coefficients but sometimes degenerate
        // draws; a wide range makes a degree drop improbable (< 10^-3 per network).
        const bool wide = it % 2 == 0;
        Network net = random_network(s, wseed, wide ? 1000000 : 5);
        INFO("iteration " << it << ": " << network_to_json(net, -1));
        const QPoly f = expand(net);
        REQUIRE(Integer(f.degree()) <= output_degree(s));
        if (wide) REQUIRE(Integer(f.degree()) == output_degree(s));
        if (!s.residual) REQUIRE(f.is_homogeneous());
        for (int k = 0; k < 3; ++k) {
            auto x = random_qpoint(rng, s);
            REQUIRE(f.evaluate(flatten(x)) == evaluate(net, x));
        }
        // the Z/p expansion is the reduction of the Q expansion
        const std::uint64_t p = 1000000007ULL;
        auto nctx = std::make_shared<const NmodContext>(f.context()->vars_ptr(), p);
        REQUIRE(to_string(expand_mod(net, p)) == to_string(reduce_mod(f, nctx)));
        // mod-p evaluation agrees with the exact value
        Point<std::uint64_t> xp(static_cast<std::size_t>(s.tokens));
        Point<Rational> xq(static_cast<std::size_t>(s.tokens));
        for (std::size_t j = 0; j < xp.size(); ++j)
            for (long c = 0; c < input_vars_per_token(s); ++c) {
                xp[j].push_back(rng.below(p));
                xq[j].push_back(Rational(Integer(xp[j].back())));
            }
        REQUIRE(ModEvaluator(net, p)(xp) == evaluate(net, xq).mod(p));
    }
}

TEST_CASE("double evaluation tracks the exact value on small inputs") {
    auto rng = seprank_test::rng_for("double-eval");
    for (int it = 0; it < 100; ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, expand_limits(2));
        Network net = random_network(s, rng.next());
        Point<Rational> xq(static_cast<std::size_t>(s.tokens));
        Point<double> xd(xq.size());
        for (std::size_t j = 0; j < xq.size(); ++j)
            for (long c = 0; c < input_vars_per_token(s); ++c) {
                const long v = rng.range(-3, 3);
                xq[j].push_back(Rational(v));
                xd[j].push_back(static_cast<double>(v));
            }
        const double exact = fmpq_get_d(evaluate(net, xq).get());
        CHECK(evaluate_double(net, xd) == doctest::Approx(exact).epsilon(1e-9));
    }
}

TEST_CASE("attention output at position 1 is symmetric in tokens 2..N") {
    auto rng = seprank_test::rng_for("symmetry");
    INFO("seed " << seprank_test::seed());
    for (long n : {3L, 4L}) {
        NetworkSpec s;
        s.tokens = n;
        s.dim = 2;
        s.depth = 2;
        Network net = random_network(s, rng.next());
        for (int k = 0; k < 20; ++k) {
            auto x = random_qpoint(rng, s);
            auto y = x;
            const std::size_t a = 1 + rng.below(static_cast<std::uint64_t>(n - 1)), b = 1 + rng.below(static_cast<std::uint64_t>(n - 1));
            std::swap(y[a], y[b]);
            REQUIRE(evaluate(net, x) == evaluate(net, y));
        }
        // and not symmetric under swapping token 1 with another (a contrast that can fail)
        bool differs = false;
        for (int k = 0; k < 20 && !differs; ++k) {
            auto x = random_qpoint(rng, s);
            auto y = x;
            std::swap(y[0], y[1]);
            differs = !(evaluate(net, x) == evaluate(net, y));
        }
        CHECK(differs);
    }
}

TEST_CASE("residual networks are non-homogeneous with top degree d^L") {
    for (Family fam : all_families()) {
        CAPTURE(to_string(fam));
        NetworkSpec s;
        s.family = fam;
        s.tokens = 2;
        s.dim = 2;
        s.depth = 2;
        s.block_degree = family_info(fam).fixed_block_degree > 0 ? family_info(fam).fixed_block_degree : 2;
        s.residual = true;
        Network net = random_network(s, 5);
        const QPoly f = expand(net);
        CHECK_FALSE(f.is_homogeneous());
        CHECK(Integer(f.degree()) == output_degree(s));
        // the degree-1 part is the identity path: x_{i,p}
        bool has_linear = false;
        for (std::size_t k = 0; k < f.terms(); ++k) {
            std::uint64_t d = 0;
            for (auto e : f.exponents(k)) d += e;
            has_linear |= d == 1;
        }
        CHECK(has_linear);
    }
}

TEST_CASE("measured degree along a line equals the expanded degree and d^L") {
    auto rng = seprank_test::rng_for("measure-degree");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, expand_limits(2));
        Network net = random_network(s, rng.next(), it % 2 == 0 ? 5 : 1000000);
        const QPoly f = expand(net);
        const auto m = measure_degree(net, rng.next());
        INFO(network_to_json(net, -1));
        REQUIRE(m.degree == f.degree());
        REQUIRE(m.predicted == output_degree(s));
    }
    // deep stacks beyond expansion: attention N=2, dx=2, L=5 has degree 243
    NetworkSpec deep;
    deep.tokens = 2;
    deep.dim = 2;
    deep.depth = 5;
    CHECK(measure_degree(random_network(deep, 3), 4).degree == 243);
}

TEST_CASE("budget comparison: depth from the budget, degree measured") {
    NetworkSpec base;
    base.family = Family::fc;
    base.tokens = 1;
    base.dim = 2;
    base.depth = 1;
    base.block_degree = 2;
    // fc with N·dx = 2: P(d) = 4d; B = 48 gives depths 6, 4, 3, 2 for d = 2, 3, 4, 6
    const auto cmp = budget_comparison(base, 48, {2, 3, 4, 6}, 9);
    REQUIRE(cmp.rows.size() == 4);
    CHECK(cmp.rows[0].depth == 6);
    CHECK(cmp.rows[1].depth == 4);
    CHECK(cmp.rows[2].depth == 3);
    CHECK(cmp.rows[3].depth == 2);
    for (const auto& r : cmp.rows) CHECK(Integer(r.measured) == r.predicted);
    CHECK(cmp.best_measured_d == 3);  // 3^4 = 81 > 2^6 = 64 = 4^3 > 6^2
    CHECK(cmp.best_h_d == 3);
    base.family = Family::attention;
    base.block_degree = 3;
    CHECK_THROWS_AS(budget_comparison(base, 48, {2}, 1), invalid_input);
    try {
        (void)budget_comparison(base, 48, {2}, 1);
    } catch (const invalid_input& e) {
        const std::string msg = e.what();
        CHECK(msg.find("base.family attention fixes the block degree at 3") != std::string::npos);
        CHECK(msg.find("--") == std::string::npos);  // API names, not command-line flags
    }
}

TEST_CASE("expansions estimated over the memory limit are refused before any work") {
    NetworkSpec s;
    s.tokens = 4;
    s.dim = 3;
    s.depth = 3;
    Network net = random_network(s, 1);
    ExpandOptions opt;
    opt.max_memory = 1024.0 * 1024 * 1024;
    try {
        (void)expand(net, opt);
        FAIL("not refused");
    } catch (const resource_limit& e) {
        CHECK(std::string(e.what()).find("Method::evaluation") != std::string::npos);
        CHECK(std::string(e.what()).find("ExpandOptions::max_memory") != std::string::npos);
        CHECK(std::string(e.what()).find("--") == std::string::npos);  // API names, not command-line flags
    }
}
