#include "seprank/degree.hpp"
#include "seprank/dimension.hpp"
#include "seprank/generic.hpp"
#include "seprank/partition.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/forward.hpp"
#include "seprank/model.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/prime.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <algorithm>
#include <set>

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
        if (is_homogeneous(s)) REQUIRE(f.is_homogeneous());
        // the spec's estimate bounds the terms
        REQUIRE(Integer(static_cast<long>(f.terms())) <= estimate_expansion(s).max_terms);
        // every term's degree is one the Model lists (the ambient space counts only those)
        const Model model(s);
        if (!model.output_degrees().empty())
            for (std::size_t t = 0; t < f.terms(); ++t) {
                const auto e = f.exponents(t);
                long a = 0;
                for (std::uint64_t v : e) a += static_cast<long>(v);
                INFO("term " << t << " of degree " << a);
                REQUIRE(std::binary_search(model.output_degrees().begin(), model.output_degrees().end(), a));
            }
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
        if (family_info(fam).depth_from_widths) continue;  // power networks have no residual
        if (family_info(fam).layers) {                      // a stack's residuals are per layer
            s.residual = false;
            s.layers = parse_layers("attention:residual,mlp:residual");
        }
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
    // A prime given: above d^L + 1, and prime (FLINT would abort dividing by a repeated
    // point or a zero divisor); the same degree at any such prime.
    CHECK(measure_degree(random_network(deep, 3), 4, 251).degree == 243);
    CHECK(seprank_test::message_of([&] { (void)measure_degree(random_network(deep, 3), 4, 241); }).find("must exceed d^L + 1 = 244") != std::string::npos);
    CHECK(seprank_test::message_of([&] { (void)measure_degree(random_network(deep, 3), 4, 1000); }).find("1000") != std::string::npos);
}

TEST_CASE("degree_row: the line's reading, and the expansion's terms and exact degree where it fits") {
    auto rng = seprank_test::rng_for("degree-row");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, expand_limits(2));
        Network net = random_network(s, rng.next(), it % 3 == 0 ? 1 : 5);  // range 1: weights 0 are frequent, f = 0 too
        const std::uint64_t seed = rng.next();
        INFO(network_to_json(net, -1));
        const DegreeRow r = degree_row(net, seed, HUGE_VAL);
        const QPoly f = expand(net);
        CHECK(r.depth == s.depth);
        CHECK(r.terms == f.terms());
        CHECK(r.degree == (f.is_zero() ? -1 : f.degree()));
        CHECK(r.line_degree == measure_degree(net, seed).degree);
        CHECK(r.predicted == output_degree(s));
        CHECK(r.parameters == parameter_count(s));
        CHECK(r.weight_degree == weight_degree(s));
        CHECK(r.seconds >= 0);
        CHECK(r.false_low_bound == 0);  // expanded: the degree is exact
        const DegreeRow line = degree_row(net, seed, 0);  // nothing expanded: the line's reading
        CHECK(line.terms == -1);
        CHECK(line.degree == r.line_degree);
        CHECK(line.false_low_bound == measure_degree(net, seed).false_low_bound);
    }
    NetworkSpec s;
    s.tokens = 2;
    for (double bad : {-1.0, std::nan("")})
        CHECK_THROWS_WITH_AS(degree_row(random_network(s, 1), 1, bad), doctest::Contains("max expand bytes"), invalid_input);
}

TEST_CASE("measured degree: the prime drawn from the seed, and a false low reading's bound counts the content") {
    NetworkSpec deep;
    deep.tokens = 2;
    deep.dim = 2;
    deep.depth = 5;
    const Network net = random_network(deep, 3);
    const double bits = log2_coefficient_bound(net);
    REQUIRE(bits > 62);  // coefficients above any 62-bit prime: a given prime could divide them all
    // drawn: a 62-bit prime of the seed, the same for the same seed; D/p plus the chance
    // that it divides the top form's content, both small
    const auto a = measure_degree(net, 4), b = measure_degree(net, 4), c = measure_degree(net, 5);
    CHECK(a.prime == b.prime);
    CHECK(a.false_low_bound == b.false_low_bound);
    CHECK(a.prime != c.prime);
    CHECK((a.prime >> 61) == 1);
    CHECK_NOTHROW(require_prime(a.prime));
    CHECK(a.false_low_bound > 243.0 / static_cast<double>(a.prime));  // the content's share counted
    CHECK(a.false_low_bound < 1e-14);
    // given: nothing bounds the chance that it divides coefficients above it
    const auto given = measure_degree(net, 4, kDefaultPrime);
    CHECK(given.prime == kDefaultPrime);
    CHECK(given.degree == 243);
    CHECK(given.false_low_bound == 1.0);
    // a given prime above every coefficient divides none of them: D/p alone
    NetworkSpec small;
    small.tokens = 2;
    small.dim = 1;
    small.depth = 1;
    const Network tiny = random_network(small, 3);
    REQUIRE(log2_coefficient_bound(tiny) < 62);
    const auto t = measure_degree(tiny, 4, kDefaultPrime);
    CHECK(t.false_low_bound == 3.0 / static_cast<double>(kDefaultPrime));
    const auto td = measure_degree(tiny, 4);
    CHECK(td.false_low_bound > 3.0 / static_cast<double>(td.prime));
    CHECK(td.degree == t.degree);
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
    {
        // fc given one width W: every layer W wide (a hunt: W was dropped, the rows were
        // N·dx wide). Random W and B: the depth is the most layers B buys, counted layer
        // by layer; W = N·dx is the default's rows.
        auto rng = seprank_test::rng_for("budget fc width");
        INFO("seed " << seprank_test::seed());
        for (int t = 0; t < 20; ++t) {
            NetworkSpec w = base;
            w.tokens = 1 + static_cast<long>(rng.next() % 3);
            w.widths = {1 + static_cast<long>(rng.next() % 5)};
            const long budget = 1 + static_cast<long>(rng.next() % 120), d = 1 + static_cast<long>(rng.next() % 3);
            CAPTURE(w.tokens);
            CAPTURE(w.widths[0]);
            CAPTURE(budget);
            CAPTURE(d);
            const auto got = budget_comparison(w, budget, {d}, 3);
            REQUIRE(got.rows.size() == 1);
            const BudgetRow& r = got.rows[0];
            long L = 0;  // the layers B buys, each counted in a spec of one more layer
            for (;; ++L) {
                NetworkSpec deeper = w;
                deeper.block_degree = d;
                deeper.depth = L + 1;
                deeper.widths.assign(static_cast<std::size_t>(L + 1), w.widths[0]);
                if (parameter_count(deeper) > Integer(budget)) break;  // counted past kMaxDepth too, as the comparison
            }
            CHECK(r.depth == L);
            CHECK(r.total_params <= Integer(budget));
            const bool same = w.widths[0] == w.tokens * w.dim;
            NetworkSpec one = w, two = w;  // the first layer's parameters and the second's
            one.block_degree = two.block_degree = d;
            two.depth = 2;
            two.widths.assign(2, w.widths[0]);
            const Integer first = parameter_count(one), later = parameter_count(two) - first;
            CHECK(r.layer_params == first);
            CHECK((r.note.find("each later one " + later.str()) != std::string::npos) == (later != first));  // said even where B buys no layer
            if (same) CHECK(later == first);
            if (same) {
                NetworkSpec plain = w;
                plain.widths.clear();
                CHECK(budget_comparison(plain, budget, {d}, 3).rows[0].depth == r.depth);
            }
        }
        NetworkSpec two = base;
        two.widths = {2, 3};
        CHECK_THROWS_WITH_AS(budget_comparison(two, 48, {2}, 1), doctest::Contains("give one width for every layer"), invalid_input);
        // no degree: refused (the CLI refuses --degrees ''), not an empty comparison
        CHECK_THROWS_WITH_AS(budget_comparison(base, 48, {}, 1), doctest::Contains("degrees is empty"), invalid_input);
    }
    CHECK(cmp.best_measured_d == 3);  // 3^4 = 81 > 2^6 = 64 = 4^3 > 6^2
    CHECK(cmp.best_h_d == 3);
    {
        // Every drawn output the zero polynomial (hadamard N = 2, dx = 1): no row reached a
        // degree, so none is the highest (a hunt found d = 3 named from the predictions)
        NetworkSpec z;
        z.family = Family::hadamard;
        z.tokens = 2;
        z.dim = 1;
        z.block_degree = 2;
        const auto zero = budget_comparison(z, 24, {2, 3}, 1);
        REQUIRE(zero.rows.size() == 2);
        for (const auto& r : zero.rows) CHECK(r.measured < 0);
        CHECK(zero.best_measured_d == 0);
    }
    base.family = Family::attention;
    base.block_degree = 3;
    CHECK_THROWS_AS(budget_comparison(base, 48, {2}, 1), invalid_input);
    {
        // A budget whose predicted d^L passes 2^17 bits is refused before any row is built,
        // naming the degree; one just below it is counted (not built: beyond depth 64).
        NetworkSpec h;
        h.family = Family::hadamard;
        h.tokens = 2;
        h.dim = 1;
        h.width = 1;
        h.block_degree = 2;  // 3 parameters a layer at d = 2
        CHECK_THROWS_WITH_AS((void)budget_comparison(h, 3 * 131073, {1, 2}, 1), doctest::Contains("block degree d = 2"), resource_limit);
        const auto ok = budget_comparison(h, 3 * 131072, {2}, 1);
        REQUIRE(ok.rows.size() == 1);
        CHECK(ok.rows[0].depth == 131072);
        CHECK(ok.rows[0].measured < 0);
    }
    try {
        (void)budget_comparison(base, 48, {2}, 1);
    } catch (const invalid_input& e) {
        const std::string msg = e.what();
        CHECK(msg.find("base.family attention fixes the block degree at 3") != std::string::npos);
        CHECK(msg.find("--") == std::string::npos);  // API names, not command-line flags
    }
    // check_budget_family alone (before a spec exists): exactly the uniform families whose
    // block degree is free pass, and a refusal names the families that would
    for (Family f : all_families()) {
        const FamilyInfo& info = family_info(f);
        CAPTURE(info.name);
        if (info.uniform && info.fixed_block_degree == 0) {
            CHECK_NOTHROW(check_budget_family(f));
        } else {
            CHECK_THROWS_WITH_AS(check_budget_family(f), doctest::Contains("use family hadamard or fc"), invalid_input);
        }
    }
    CHECK_THROWS_WITH_AS(check_budget_family(Family::power), doctest::Contains("base.family power is not L copies"), invalid_input);
}

TEST_CASE("budget comparison with BudgetOptions: each row's dimension and generic rank, of the depth-L network") {
    const NetworkSpec base = seprank_test::hadamard_spec(2, 2, 1, 2, 2);
    BudgetOptions bo;
    bo.dimension = true;
    bo.rank = true;
    // P(d) = (d+1)·w·dx = 4(d+1): B = 10 buys L = 1 at d = 1, 0 layers at d = 3
    const auto cmp = budget_comparison(base, 10, {1, 3}, 5, bo);
    REQUIRE(cmp.rows.size() == 2);
    const BudgetRow& r = cmp.rows[0];
    REQUIRE(r.depth == 1);
    REQUIRE(r.dimension);
    REQUIRE(r.rank);
    NetworkSpec deep = base;
    deep.block_degree = 1;
    DimensionOptions o;
    o.seed = 5;
    const RankAnswer dim = function_dimension(deep, o);
    CHECK(r.dimension->value == dim.value);
    CHECK(r.dimension->expected == dim.expected);
    CHECK(r.dimension->value <= 8);  // the parameters of one layer
    GenericOptions g;
    g.trials = 1;
    g.max_side = 8192;
    g.seed = 5;
    CHECK(r.rank->value == generic_rank(deep, balanced_partition(2), g).value);
    // no layer bought: no parameters, so neither is computed (the measurement still is)
    CHECK(cmp.rows[1].depth == 0);
    CHECK_FALSE(cmp.rows[1].dimension);
    CHECK_FALSE(cmp.rows[1].rank);
    // the plain overload computes neither
    const auto plain = budget_comparison(base, 10, {1}, 5);
    CHECK_FALSE(plain.rows[0].dimension);
    CHECK_FALSE(plain.rows[0].rank);
    // checked: threads, and a partition for the rank
    BudgetOptions bad = bo;
    bad.threads = 0;
    CHECK_THROWS_AS(budget_comparison(base, 10, {1}, 5, bad), invalid_input);
    NetworkSpec one = base;
    one.family = Family::fc;
    one.tokens = 1;
    one.width = 0;
    CHECK_THROWS_AS(budget_comparison(one, 48, {2}, 5, bo), invalid_input);
    bo.rank = false;
    CHECK(budget_comparison(one, 48, {2}, 5, bo).rows[0].dimension);
}

TEST_CASE("budget comparison: a row left unmeasured says why (degree past 20000, or a zero output)") {
    // hadamard N=2 dx=1: a block's output cancels, f = 0 at every depth
    const auto zero = budget_comparison(seprank_test::hadamard_spec(2, 1, 1, 2), 10, {4}, 1);
    REQUIRE(zero.rows.size() == 1);
    CHECK(zero.rows[0].measured == -1);
    CHECK(zero.rows[0].note.find("zero polynomial") != std::string::npos);
    // hadamard N=2 dx=2 w=2, B = 500, d = 2: 41 layers, 2^41 past the line measurement
    const auto big = budget_comparison(seprank_test::hadamard_spec(2, 2, 1, 2, 2), 500, {2}, 1);
    REQUIRE(big.rows.size() == 1);
    CHECK(big.rows[0].measured == -1);
    CHECK(big.rows[0].note.find("above 20000") != std::string::npos);
}

TEST_CASE("budget comparison: a row deeper than kMaxDepth is counted, not built; the others are measured") {
    const NetworkSpec base = seprank_test::hadamard_spec(2, 2, 1, 2, 2);
    BudgetOptions bo;
    bo.dimension = true;
    // P(d) = 4(d+1): B = 8·(kMaxDepth + 1) buys kMaxDepth + 1 layers at d = 1, and
    // exactly kMaxDepth at d = 1 with one layer's parameters fewer: the edge itself.
    for (const long extra : {0L, 1L}) {
        const long budget = 8 * (kMaxDepth + extra);
        const auto cmp = budget_comparison(base, budget, {1, 3}, 7, bo);
        REQUIRE(cmp.rows.size() == 2);
        const BudgetRow& deep = cmp.rows[0];
        CHECK(deep.depth == kMaxDepth + extra);
        CHECK(deep.total_params == Integer(8 * (kMaxDepth + extra)));
        CHECK(deep.predicted == Integer(1));
        if (extra == 0) {
            CHECK(deep.note.empty());
            CHECK(deep.measured == 1);
            REQUIRE(deep.dimension);
            CHECK(deep.dimension->value <= 4);  // d = 1: the output is linear in the N·dx = 4 inputs
        } else {
            CHECK(deep.note.find("depth L = " + std::to_string(kMaxDepth + 1) + " exceeds " + std::to_string(kMaxDepth)) !=
                  std::string::npos);
            CHECK(deep.measured == -1);
            CHECK_FALSE(deep.dimension);
            CHECK_FALSE(deep.rank);
        }
        // d = 3 at 16 parameters a layer: at most 33 layers, built; 3^L is past the degrees
        // measured along a line (20000), and the note says so
        const BudgetRow& cubic = cmp.rows[1];
        CHECK(cubic.note.find("above 20000") != std::string::npos);
        CHECK(cubic.measured == -1);
        CHECK(cubic.depth == budget / 16);
        CHECK(cubic.dimension);
    }
    // the depth check itself: kMaxDepth is accepted, one more is refused naming the value
    NetworkSpec s = base;
    s.depth = kMaxDepth + 1;
    try {
        (void)ValidSpec(s);
        FAIL("depth beyond kMaxDepth accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("depth L = " + std::to_string(kMaxDepth + 1)) != std::string::npos);
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
    // Without a limit of its own, the process's, by the name it was set with (the CLI's flag)
    const seprank_test::MaxMemory tight(1024.0 * 1024 * 1024, "--max-memory");
    try {
        (void)expand(net, ExpandOptions{});
        FAIL("not refused");
    } catch (const resource_limit& e) {
        CHECK(std::string(e.what()).find("over the limit of 1 GiB (--max-memory)") != std::string::npos);
    }
}

// ---------------------------------------------------------------- variants

namespace {

// A random attention spec within `lim` (random_spec draws every family; keep attention).
NetworkSpec random_attention_spec(Rng& rng, const seprank_test::SpecLimits& lim) {
    for (;;) {
        NetworkSpec s = seprank_test::random_spec(rng, lim);
        if (s.family == Family::attention) return s;
    }
}

}  // namespace

TEST_CASE("expansion variant moment equals the layered reference, over Q and Z/p") {
    auto rng = seprank_test::rng_for("expand-moment");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim = expand_limits(3);
    lim.max_tokens = 4;
    lim.max_dim = 3;
    lim.max_inputs_deep = 4;  // depth ≥ 2 stays small: N·dx ≤ 4
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const NetworkSpec s = random_attention_spec(rng, lim);
        // weights: small, wide, or with zeros (range 1 draws many zero entries)
        const long range = it % 3 == 0 ? 100000 : it % 3 == 1 ? 5 : 1;
        const Network net = random_network(s, rng.next(), range);
        INFO("iteration " << it << ": " << network_to_json(net, -1));
        const QPoly ref = expand_layered(net);
        const QPoly mom = expand_moment(net);
        REQUIRE(to_string(mom) == to_string(ref));
        REQUIRE(mom.context()->vars().names() == ref.context()->vars().names());
        const std::uint64_t p = it % 2 == 0 ? 1000000007ULL : 2;  // a word-size prime, and p = 2
        REQUIRE(to_string(expand_mod_moment(net, p)) == to_string(expand_mod_layered(net, p)));
        // the dispatcher gives the same polynomial whichever variant it picks
        ExpandOptions opt;
        for (ExpandVariant v : {ExpandVariant::automatic, ExpandVariant::layered, ExpandVariant::moment}) {
            opt.variant = v;
            REQUIRE(to_string(expand(net, opt)) == to_string(ref));
        }
    }
}

TEST_CASE("expansion variant moment on extreme shapes: one token, depth 0, dx = 1, da > dx") {
    auto rng = seprank_test::rng_for("expand-moment-edges");
    INFO("seed " << seprank_test::seed());
    std::vector<NetworkSpec> specs;
    for (long depth : {0L, 1L, 2L}) {
        NetworkSpec a;  // one token
        a.family = Family::attention, a.tokens = 1, a.dim = 2, a.depth = depth;
        specs.push_back(a);
        NetworkSpec b;  // dx = 1
        b.family = Family::attention, b.tokens = 3, b.dim = 1, b.depth = depth;
        specs.push_back(b);
        NetworkSpec c;  // head dim above dx, residual, output at the last token
        c.family = Family::attention, c.tokens = 2, c.dim = 2, c.heads = 2, c.head_dim = 3, c.depth = depth;
        c.residual = true, c.position = 2, c.coordinate = 2;
        specs.push_back(c);
    }
    for (const NetworkSpec& s : specs) {
        validate(s);
        const Network net = random_network(s, rng.next(), 5);
        INFO(network_to_json(net, -1));
        REQUIRE(to_string(expand_moment(net)) == to_string(expand_layered(net)));
    }
    // all-zero weights: f = 0 at depth ≥ 1 without a residual
    NetworkSpec z;
    z.family = Family::attention, z.tokens = 2, z.dim = 2, z.depth = 2;
    Network zn = random_network(z, 1, 5);
    for (auto& l : zn.weights.layers)
        for (auto& h : l.heads)
            for (auto* m : {&h.Q, &h.K, &h.V, &h.O})
                for (auto& x : m->a) x = Rational(0);
    REQUIRE(expand_moment(zn).is_zero());
    REQUIRE(expand_layered(zn).is_zero());
}

TEST_CASE("expansion variants: choice, names and refusals") {
    NetworkSpec s;
    s.family = Family::attention, s.tokens = 4, s.dim = 2, s.depth = 3;
    // moment ring: 2·C(13+2, 2) = 210 monomials against C(27+7, 7) = 5,379,616
    CHECK(choose_expand_variant(s) == ExpandVariant::moment);
    s.tokens = 2, s.dim = 4;  // 4·C(13+9, 9) = 1,989,680 against C(27+7, 7): layered
    CHECK(choose_expand_variant(s) == ExpandVariant::layered);
    s.dim = 3;  // 3·C(13+5, 5) = 25,704 against C(27+5, 5) = 201,376: ratio 7.8 < 16, layered
    CHECK(choose_expand_variant(s) == ExpandVariant::layered);
    s.tokens = 3, s.dim = 2;  // 210 against C(27+5, 5): moment
    CHECK(choose_expand_variant(s) == ExpandVariant::moment);
    s.tokens = 2, s.dim = 4;
    s.depth = 0;
    CHECK(choose_expand_variant(s) == ExpandVariant::layered);
    NetworkSpec h;
    h.family = Family::hadamard, h.tokens = 4, h.dim = 2, h.depth = 2, h.block_degree = 2;
    CHECK(choose_expand_variant(h) == ExpandVariant::layered);
    // a named variant is returned as it is (expand then refuses moment on hadamard)
    CHECK(choose_expand_variant(h, ExpandVariant::moment) == ExpandVariant::moment);
    CHECK(choose_expand_variant(s, ExpandVariant::layered) == ExpandVariant::layered);
    const Network hn = random_network(h, 3, 5);
    CHECK_THROWS_AS(expand_moment(hn), invalid_input);
    CHECK_THROWS_AS(expand_mod_moment(hn, 101), invalid_input);
    ExpandOptions opt;
    opt.variant = ExpandVariant::moment;
    CHECK_THROWS_AS(expand(hn, opt), invalid_input);
    for (ExpandVariant v : {ExpandVariant::automatic, ExpandVariant::layered, ExpandVariant::moment})
        CHECK(expand_variant_from_string(to_string(v)) == v);
    try {
        expand_variant_from_string("moments");
        FAIL("no error for 'moments'");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("'moments'") != std::string::npos);
    }
    // the memory check runs before the moment pass too
    NetworkSpec big;
    big.family = Family::attention, big.tokens = 8, big.dim = 4, big.depth = 6;
    ExpandOptions tiny;
    tiny.max_memory = 1024;
    tiny.variant = ExpandVariant::moment;
    CHECK_THROWS_AS(expand(random_network(big, 1, 5), tiny), resource_limit);
    CHECK_THROWS_AS(expand_mod_moment(random_network(big, 1, 5), 1, tiny), invalid_input);
}

TEST_CASE("Poly::compose substitutes polynomials for variables") {
    auto rng = seprank_test::rng_for("poly-compose");
    INFO("seed " << seprank_test::seed());
    auto src = QContext::make(Variables({"a", "b"}));
    auto dst = QContext::make(Variables({"x", "y", "z"}));
    const QPoly x = QPoly::variable(dst, 0), y = QPoly::variable(dst, 1), z = QPoly::variable(dst, 2);
    const QPoly a = QPoly::variable(src, 0), b = QPoly::variable(src, 1);
    for (int it = 0; it < seprank_test::iterations(50); ++it) {
        const long c1 = rng.range(-9, 9), c2 = rng.range(-9, 9), e = rng.range(0, 4);
        const QPoly f = a * a * b * Rational(c1) + b.pow(static_cast<std::uint64_t>(e)) * Rational(c2) + a;
        const QPoly s0 = x + y * Rational(2), s1 = z * z - x;
        const QPoly want = s0 * s0 * s1 * Rational(c1) + s1.pow(static_cast<std::uint64_t>(e)) * Rational(c2) + s0;
        REQUIRE(f.compose({s0, s1}, dst) == want);
    }
    CHECK_THROWS_AS(a.compose({x}, dst), invalid_input);                          // one sub for two variables
    CHECK_THROWS_AS(a.compose({x, a}, dst), invalid_input);                       // a sub in another context
    auto n7 = NmodContext::make(Variables({"u"}), 7), n11 = NmodContext::make(Variables({"x"}), 11);
    CHECK_THROWS_AS(NmodPoly::variable(n7, 0).compose({NmodPoly::variable(n11, 0)}, n11), invalid_input);  // moduli differ
}

TEST_CASE("to_string(ExpandVariant) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<ExpandVariant>({ExpandVariant::automatic, ExpandVariant::layered, ExpandVariant::moment}, "ExpandVariant", expand_variant_from_string);
}
