// guess (guess.hpp): random closed forms of every family recovered exactly from their
// values and confirmed on held-out rows; predictions against the form itself; refusals
// (too few rows, no structure), refutation by a held-out row; tables in CSV and JSON.
#include "seprank/guess.hpp"

#include "seprank/error.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <flint/fmpz.h>

using namespace seprank;

namespace {

Integer binom(long top, long k) {
    Integer r;
    fmpz_bin_uiui(r.get(), static_cast<ulong>(top), static_cast<ulong>(k));
    return r;
}

long small(const Integer& v) { return fmpz_get_si(v.get()); }

Integer catalan(long n) {
    Integer r = binom(2 * n, n);
    fmpz_divexact_si(r.get(), r.get(), n + 1);
    return r;
}

Integer ipow(long b, long e) {
    Integer r(1);
    for (long i = 0; i < e; ++i) r = r * Integer(b);
    return r;
}

GuessOptions opts(std::vector<std::string> vars) {
    GuessOptions o;
    o.vars = std::move(vars);
    return o;
}

}  // namespace

TEST_CASE("random polynomials in two variables are recovered and predict unseen points") {
    Rng rng = seprank_test::rng_for("guess polynomial");
    for (int it = 0; it < seprank_test::iterations(20); ++it) {
        const int degree = static_cast<int>(rng.below(4));  // 0..3
        // v = Σ a_ij x^i y^j, integer coefficients in [-5, 5]
        std::vector<std::vector<long>> a(4, std::vector<long>(4, 0));
        for (int i = 0; i <= degree; ++i)
            for (int j = 0; i + j <= degree; ++j) a[i][j] = static_cast<long>(rng.below(11)) - 5;
        const auto value = [&](long x, long y) {
            Integer s;
            for (int i = 0; i <= degree; ++i)
                for (int j = 0; i + j <= degree; ++j) s = s + Integer(a[i][j]) * ipow(x, i) * ipow(y, j);
            return s;
        };
        std::vector<GuessPoint> rows;
        for (long x = 1; x <= 5; ++x)
            for (long y = 1; y <= 5; ++y) rows.push_back(GuessPoint{{x, y}, value(x, y)});
        const Guess g = guess_formula(rows, opts({"dim", "depth"}));
        INFO("seed " << seprank_test::seed() << " iteration " << it << " degree " << degree);
        REQUIRE(g.found);
        CHECK(g.fitted + g.confirmed <= 25);
        CHECK(g.confirmed >= 2);
        for (long x = 6; x <= 8; ++x)
            for (long y = 0; y <= 7; ++y) CHECK(guess_predict(g, {x, y}) == Rational(value(x, y)));
    }
}

TEST_CASE("binomials C(g + x, x) with g exponential in another variable: the issue's form") {
    // v(dim, depth) = C((3^depth - 1)/2 + dim, dim): monomials of degree ≤ (3^L-1)/2 in dx variables.
    const auto value = [](long dim, long depth) { return binom((small(ipow(3, depth)) - 1) / 2 + dim, dim); };
    std::vector<GuessPoint> rows;
    for (long dim = 1; dim <= 4; ++dim)
        for (long depth = 1; depth <= 3; ++depth) rows.push_back(GuessPoint{{dim, depth}, value(dim, depth)});
    rows.push_back(GuessPoint{{1, 4}, value(1, 4)});
    rows.push_back(GuessPoint{{2, 4}, value(2, 4)});
    const Guess g = guess_formula(rows, opts({"dim", "depth"}));
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::binomial);
    CHECK(g.params == 2);
    CHECK(g.fitted == 2);
    CHECK(g.confirmed == 12);
    CHECK(g.formula.text() == "C((3^depth - 1)/2 + dim, dim)");
    CHECK(g.formula.latex() == "\\binom{\\frac{3^{\\mathrm{depth}} - 1}{2} + \\mathrm{dim}}{\\mathrm{dim}}");
    CHECK(guess_predict(g, {3, 4}) == Rational(value(3, 4)));
    CHECK(guess_predict(g, {4, 4}) == Rational(value(4, 4)));
    CHECK(guess_predict(g, {3, 5}) == Rational(value(3, 5)));
}

TEST_CASE("random binomial forms and exp-linear forms are recovered") {
    Rng rng = seprank_test::rng_for("guess binomial");
    for (int it = 0; it < seprank_test::iterations(20); ++it) {
        const long c = 2 + static_cast<long>(rng.below(3));  // base 2..4
        const long a = 1 + static_cast<long>(rng.below(3)), b = static_cast<long>(rng.below(4));
        // g(y) = a·c^y + b ≥ 0; v = C(g + x, x), and w = 2·c^y + 3x - 1
        const auto g = [&](long y) { return a * small(ipow(c, y)) + b; };
        std::vector<GuessPoint> rows, lin;
        for (long x = 1; x <= 3; ++x)
            for (long y = 0; y <= 3; ++y) {
                rows.push_back(GuessPoint{{x, y}, binom(g(y) + x, x)});
                lin.push_back(GuessPoint{{x, y}, Integer(2 * small(ipow(c, y)) + 3 * x - 1)});
            }
        INFO("seed " << seprank_test::seed() << " iteration " << it << " c=" << c << " a=" << a << " b=" << b);
        const Guess gb = guess_formula(rows, opts({"x", "y"}));
        REQUIRE(gb.found);
        CHECK(gb.formula.kind == FormKind::binomial);
        CHECK(guess_predict(gb, {4, 5}) == Rational(binom(g(5) + 4, 4)));
        const Guess gl = guess_formula(lin, opts({"x", "y"}));
        REQUIRE(gl.found);
        CHECK(gl.formula.kind == FormKind::exp_linear);
        CHECK(guess_predict(gl, {7, 6}) == Rational(Integer(2 * small(ipow(c, 6)) + 3 * 7 - 1)));
    }
}

TEST_CASE("recurrences in one variable: C-finite and P-recursive") {
    Rng rng = seprank_test::rng_for("guess recurrence");
    for (int it = 0; it < seprank_test::iterations(20); ++it) {
        // v(n) = c1 v(n-1) + c2 v(n-2), random small c and start (a C-finite sequence).
        const long c1 = static_cast<long>(rng.below(7)) - 3, c2 = static_cast<long>(rng.below(7)) - 3;
        std::vector<Integer> v{Integer(static_cast<long>(rng.below(9)) + 1), Integer(static_cast<long>(rng.below(9)) + 1)};
        for (int n = 2; n < 16; ++n) v.push_back(Integer(c1) * v[static_cast<std::size_t>(n - 1)] + Integer(c2) * v[static_cast<std::size_t>(n - 2)]);
        std::vector<GuessPoint> rows;
        for (long n = 0; n < 10; ++n) rows.push_back(GuessPoint{{n}, v[static_cast<std::size_t>(n)]});
        GuessOptions o = opts({"n"});
        o.max_degree = 1;  // keep polynomials from fitting the short sequences first
        const Guess g = guess_formula(rows, o);
        INFO("seed " << seprank_test::seed() << " iteration " << it << " c1=" << c1 << " c2=" << c2);
        REQUIRE(g.found);
        for (long n = 10; n < 16; ++n) CHECK(guess_predict(g, {n}) == Rational(v[static_cast<std::size_t>(n)]));
    }
    // Catalan numbers: (n + 2) C(n+1) = (4n + 2) C(n), i.e. (n+1) v(n) - (4n - 2) v(n-1) = 0.
    std::vector<GuessPoint> cat;
    for (long n = 0; n < 12; ++n) cat.push_back(GuessPoint{{n}, catalan(n)});
    GuessOptions o = opts({"n"});
    o.bases = {};
    const Guess g = guess_formula(cat, o);
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::p_recursive);
    CHECK(guess_predict(g, {15}) == Rational(catalan(15)));
    CHECK(guess_predict(g, {20}) == Rational(catalan(20)));
}

TEST_CASE("refusals: too few rows, no structure; a held-out row refutes a fit") {
    // Three rows with min_confirm 2: a line is determined by two and confirmed by one only.
    const Guess two = guess_formula({GuessPoint{{1}, Integer(3)}, GuessPoint{{2}, Integer(5)}, GuessPoint{{3}, Integer(7)}}, opts({"n"}));
    CHECK_FALSE(two.found);
    CHECK(two.reason.find("no form") != std::string::npos);
    CHECK_THROWS_AS(guess_predict(two, {3}), invalid_input);
    // Values with no structure within the bound: refused.
    Rng rng = seprank_test::rng_for("guess noise");
    std::vector<GuessPoint> noise;
    for (long n = 0; n < 8; ++n) noise.push_back(GuessPoint{{n}, Integer(static_cast<long>(rng.below(1000000)) + 7)});
    GuessOptions few = opts({"n"});
    few.max_params = 5;
    CHECK_FALSE(guess_formula(noise, few).found);
    // A square table with its last row perturbed: the polynomial of degree 2 fits the others
    // but is refuted by that row, and whatever is found predicts every row.
    std::vector<GuessPoint> sq;
    for (long n = 0; n < 9; ++n) sq.push_back(GuessPoint{{n}, Integer(n * n + 1)});
    sq.back().value = sq.back().value + Integer(1);
    GuessOptions o = opts({"n"});
    o.max_order = 0;
    o.bases = {};
    const Guess g = guess_formula(sq, o);
    CHECK(g.refuted >= 1);
    if (g.found)
        for (const GuessPoint& p : sq) CHECK(guess_predict(g, p.x) == Rational(p.value));
}

TEST_CASE("bad input: options, duplicates, shapes") {
    std::vector<GuessPoint> rows{GuessPoint{{1}, Integer(1)}, GuessPoint{{2}, Integer(4)}, GuessPoint{{3}, Integer(9)}};
    CHECK_THROWS_AS(guess_formula(rows, opts({})), invalid_input);
    CHECK_THROWS_AS(guess_formula(rows, opts({"n", "n"})), invalid_input);
    GuessOptions o = opts({"n"});
    o.max_degree = 9;
    CHECK_THROWS_AS(guess_formula(rows, o), invalid_input);
    o = opts({"n"});
    o.bases = {1};
    CHECK_THROWS_AS(guess_formula(rows, o), invalid_input);
    CHECK_THROWS_AS(guess_formula({GuessPoint{{1}, Integer(1)}, GuessPoint{{2}, Integer(1)}}, opts({"n"})), invalid_input);  // too few
    CHECK_THROWS_AS(guess_formula({GuessPoint{{1}, Integer(1)}, GuessPoint{{1}, Integer(2)}}, opts({"n"})), invalid_input);
    CHECK_THROWS_AS(guess_formula({GuessPoint{{1, 2}, Integer(1)}, GuessPoint{{2}, Integer(2)}}, opts({"n"})), invalid_input);
}

TEST_CASE("tables: CSV, JSON array and JSON lines give the same points; bad cells are named") {
    const std::string csv = "# sweep x\nfamily,dim,depth,rank\nattention,1,1,2\nattention,1,2,5\nhadamard,1,1,9\nattention,2,1,\n";
    const std::string json = R"([{"family":"attention","dim":1,"depth":1,"rank":2},{"family":"attention","dim":1,"depth":2,"rank":5},)"
                             R"({"family":"hadamard","dim":1,"depth":1,"rank":9},{"family":"attention","dim":2,"depth":1,"rank":null}])";
    const std::string lines = "{\"family\":\"attention\",\"dim\":1,\"depth\":1,\"rank\":2}\n{\"family\":\"attention\",\"dim\":1,\"depth\":2,\"rank\":5}\n"
                              "{\"family\":\"hadamard\",\"dim\":1,\"depth\":1,\"rank\":9}\n";
    for (const std::string& text : {csv, json, lines}) {
        const auto cells = parse_table_cells(text, "t");
        const auto pts = guess_points(cells, {"dim", "depth"}, "rank", {{"family", "attention"}});
        REQUIRE(pts.size() == 2);
        CHECK(pts[0].x == std::vector<long>{1, 1});
        CHECK(pts[1].value == Integer(5));
    }
    const auto cells = parse_table_cells(csv, "t");
    CHECK_THROWS_AS(guess_points(cells, {"width"}, "rank", {}), invalid_input);
    CHECK_THROWS_AS(guess_points(cells, {"dim"}, "rank", {{"heads", "1"}}), invalid_input);
    CHECK_THROWS_AS(guess_points(cells, {"family"}, "rank", {}), invalid_input);  // not an integer
    CHECK_THROWS_AS(parse_table_cells("a,b\n1,2,3\n", "t"), invalid_input);
    CHECK_THROWS_AS(parse_table_cells("[{\"a\":1},", "t"), invalid_input);
}
