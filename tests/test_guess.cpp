// guess (guess.hpp): random closed forms of every family recovered exactly from their
// values and confirmed on held-out rows; predictions against the form itself; refusals
// (too few rows, no structure), refutation by a held-out row; tables in CSV and JSON.
#include "seprank/guess.hpp"
#include "seprank/network.hpp"

#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <set>

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

// ---- issue 36 / 38: hostile tables and points (docs/guess.md, "Limits and exit codes")

namespace {

// Whether f throws E with `fragment` in its message.
template <class E, class F>
bool throws_with(F&& f, const std::string& fragment) {
    try {
        f();
    } catch (const E& e) {
        const std::string m = e.what();
        INFO("message: " << m);
        CHECK(m.find(fragment) != std::string::npos);
        return m.find(fragment) != std::string::npos;
    }
    return false;
}

}  // namespace

TEST_CASE("exact sizes are estimated before evaluation: c^n at n = 10^12 is refused, never aborts") {
    // v = 2^n + 1 on n = 0..7: the exp-linear form a + b·2^n (2 parameters).
    std::vector<GuessPoint> rows;
    for (long n = 0; n < 8; ++n) rows.push_back(GuessPoint{{n}, ipow(2, n) + Integer(1)});
    const Guess g = guess_formula(rows, opts({"n"}));
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::exp_linear);
    CHECK(guess_predict(g, {100}) == Rational(ipow(2, 100) + Integer(1)));
    CHECK(throws_with<resource_limit>([&] { (void)guess_predict(g, {1000000000000L}); }, "bits estimated"));
    CHECK(throws_with<resource_limit>([&] { (void)guess_predict(g, {-1000000000000L}); }, "bits estimated"));
    // 2^-3 + 1 is evaluated exactly (a rational).
    CHECK(guess_predict(g, {-3}) == Rational(Integer(9), Integer(8)));
}

TEST_CASE("rows near 10^12: the exp-linear candidates are skipped (their values are not computed), the polynomial found") {
    std::vector<GuessPoint> rows;
    const long base = 1000000000000L;
    for (long k = 0; k < 8; ++k) rows.push_back(GuessPoint{{base + k}, Integer(base + k) * Integer(3) + Integer(1)});
    const Guess g = guess_formula(rows, opts({"n"}));
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::polynomial);
    CHECK(g.skipped == 0);  // the line is found before any exponential candidate (2 parameters, listed first)
    // v = 2^(n - 10^12) is not a listed form in n: every exponential candidate is skipped,
    // and the answer says so instead of aborting.
    std::vector<GuessPoint> ex;
    for (long k = 0; k < 8; ++k) ex.push_back(GuessPoint{{base + k}, ipow(2, k) * Integer(7) + Integer(k * k * k * k * k)});
    GuessOptions o = opts({"n"});
    o.max_order = 0;
    o.max_degree = 2;
    const Guess h = guess_formula(ex, o);
    CHECK_FALSE(h.found);
    CHECK(h.skipped == 8);  // {1, c^n} and {1, n, c^n} for c = 2..5
    CHECK(h.reason.find("skipped") != std::string::npos);
}

TEST_CASE("recurrences: initial values are part of the formula; unrolling far is estimated first") {
    // Fibonacci from F(0) = 0: found as C-finite, printed with v(0) = 0, v(1) = 1.
    std::vector<GuessPoint> fib{GuessPoint{{0}, Integer(0)}, GuessPoint{{1}, Integer(1)}};
    for (long n = 2; n < 12; ++n) fib.push_back(GuessPoint{{n}, fib[static_cast<std::size_t>(n - 1)].value + fib[static_cast<std::size_t>(n - 2)].value});
    GuessOptions o = opts({"n"});
    o.bases = {};
    o.max_degree = 2;
    const Guess g = guess_formula(fib, o);
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::c_finite);
    REQUIRE(g.formula.init.size() == 2);
    CHECK(g.formula.init_start == 0);
    CHECK(g.formula.text().find("v(0) = 0, v(1) = 1") != std::string::npos);
    // F(1000) by the same recurrence here, against the formula unrolled by guess_predict.
    Integer a(0), b(1);
    for (int n = 0; n < 1000; ++n) {
        Integer c = a + b;
        a = b;
        b = c;
    }
    CHECK(guess_predict(g, {1000}) == Rational(a));
    CHECK(throws_with<resource_limit>([&] { (void)guess_predict(g, {1000000000000L}); }, "unrolling the recurrence"));
    CHECK(throws_with<invalid_input>([&] { (void)guess_predict(g, {-5}); }, "start at n = 0"));
    // A far row (n = 10^12, not consecutive with the others) neither breaks the fit nor makes
    // the unrolling search a gap of 10^12 values: v(20) unrolls from v(10), v(11).
    std::vector<GuessPoint> far = fib;
    far.push_back(GuessPoint{{1000000000000L}, Integer(5)});
    const Guess gf = guess_formula(far, o);
    REQUIRE(gf.found);
    CHECK(guess_predict(gf, {20}) == Rational(Integer(6765)));
}

TEST_CASE("binomial points outside the domain are invalid_input naming the variable; huge g is computed or refused") {
    // v = C(2^d - 1 + x, x) on x = 1..3, d = 1..4.
    std::vector<GuessPoint> rows;
    for (long x = 1; x <= 3; ++x)
        for (long d = 1; d <= 4; ++d) rows.push_back(GuessPoint{{x, d}, binom((1L << d) - 1 + x, x)});
    const Guess g = guess_formula(rows, opts({"x", "d"}));
    REQUIRE(g.found);
    REQUIRE(g.formula.kind == FormKind::binomial);
    CHECK(throws_with<invalid_input>([&] { (void)guess_predict(g, {-1, 1}); }, "x = -1"));
    CHECK(throws_with<invalid_input>([&] { (void)guess_predict(g, {2, -1}); }, "not a non-negative integer"));
    // d = 2000: g = 2^2000 − 1, C(g + 3, 3) has about 6000 bits: computed, and equal to
    // (g+1)(g+2)(g+3)/6.
    const Integer gg = ipow(2, 2000) - Integer(1);
    Integer want = (gg + Integer(1)) * (gg + Integer(2)) * (gg + Integer(3));
    fmpz_divexact_ui(want.get(), want.get(), 6);
    CHECK(guess_predict(g, {3, 2000}) == Rational(want));
    // d = 10^9: g has 10^9 bits: refused before computing 2^(10^9).
    CHECK(throws_with<resource_limit>([&] { (void)guess_predict(g, {3, 1000000000}); }, "bits estimated"));
    // x = 10^12 with d = 1 (g = 1): C(10^12 + 1, 10^12) = 10^12 + 1, small: computed.
    CHECK(guess_predict(g, {1000000000000L, 1}) == Rational(Integer(1000000000001L)));
    // x = 10^12, d = 20: C(2^20 - 1 + 10^12, 2^20 - 1) is about 2^20·30 bits: computed or refused, never aborted.
    try {
        (void)guess_predict(g, {1000000000000L, 40});
    } catch (const resource_limit&) {
    }
}

TEST_CASE("tables: byte-order mark, duplicate columns and keys, the sweep line, out-of-range variables") {
    const auto bom = parse_table_cells("\xEF\xBB\xBFn,v\n1,2\n", "t");
    REQUIRE(bom.size() == 1);
    CHECK(bom[0][0].first == "n");
    CHECK(throws_with<invalid_input>([] { (void)parse_table_cells("n,v,v\n1,2,3\n", "t"); }, "column 'v' appears twice"));
    CHECK(throws_with<invalid_input>([] { (void)parse_table_cells("{\"n\":0,\"v\":1,\"v\":7}\n", "t"); }, "\"v\" appears twice"));
    CHECK(throws_with<invalid_input>([] { (void)parse_table_cells("[{\"n\":0,\"v\":1,\"v\":7}]", "t"); }, "\"v\" appears twice"));
    // What `seprank table --format json --out` writes first: skipped as the CSV's # line.
    const auto sweep = parse_table_cells("{\"seprank_table_sweep\":\"trials=1\"}\n{\"n\":1,\"rank\":3}\n", "t");
    REQUIRE(sweep.size() == 1);
    CHECK(*table_cell(sweep[0], "rank") == "3");
    // The same object later in the file is a row (without the columns asked for).
    const auto later = parse_table_cells("{\"n\":1,\"rank\":3}\n{\"seprank_table_sweep\":\"x\"}\n", "t");
    CHECK(later.size() == 2);
    // A JSON integer beyond 64 bits keeps its digits (the parser alone made a double of it).
    const std::string digits = "123456789012345678901234567890";
    for (const std::string& text : {"{\"n\":1,\"rank\":" + digits + "}\n", "[{\"n\":1,\"rank\":-" + digits + "}]"}) {
        const auto rows = parse_table_cells(text, "t");
        REQUIRE(rows.size() == 1);
        CHECK(table_cell(rows[0], "rank")->find(digits) != std::string::npos);
        CHECK(guess_points(rows, {"n"}, "rank", {}).at(0).value.str().find(digits) != std::string::npos);
    }
    const auto big = parse_table_cells("n,v\n" + std::string(60, '9') + ",1\n", "t");
    CHECK(throws_with<invalid_input>([&] { (void)guess_points(big, {"n"}, "v", {}); }, "out of range"));
    CHECK(throws_with<invalid_input>([&] { (void)guess_points(big, {"n"}, "v", {}); }, std::string(40, '9') + "…"));
    const auto ok = parse_table_cells("n,v\n1,2\n", "t");
    CHECK(throws_with<invalid_input>([&] { (void)guess_points(ok, {"n", "v"}, "v", {}); }, "also named in --vars"));
}

TEST_CASE("a long table of n^2 + 1: the exponential candidates are refuted within a few rows, not evaluated on all") {
    std::vector<GuessPoint> rows;
    for (long n = 0; n < 20000; ++n) rows.push_back(GuessPoint{{n}, Integer(n) * Integer(n) + Integer(1)});
    const Guess g = guess_formula(rows, opts({"n"}));
    REQUIRE(g.found);
    CHECK(g.formula.kind == FormKind::polynomial);
    CHECK(g.confirmed == 20000 - 3);
    CHECK(guess_predict(g, {1000000}) == Rational(Integer(1000000000001L)));
}

TEST_CASE("--where: commas inside values (SPECs, partitions); layers compared as SPECs") {
    using Pairs = std::vector<std::pair<std::string, std::string>>;
    CHECK(parse_where("tokens=2,heads=1") == Pairs{{"tokens", "2"}, {"heads", "1"}});
    CHECK(parse_where("layers=attention,mlp:power=2,tokens=2") == Pairs{{"layers", "attention,mlp:power=2"}, {"tokens", "2"}});
    CHECK(parse_where("tokens=2,layers=attention:heads=2,mlp") == Pairs{{"tokens", "2"}, {"layers", "attention:heads=2,mlp"}});
    CHECK(parse_where("partition=1,2|3") == Pairs{{"partition", "1,2|3"}});
    for (const char* bad : {"", "tokens", "=2", ",tokens=2", "tokens=", "tokens=2,", "tokens=2,,heads=1"})
        CHECK(throws_with<invalid_input>([&] { (void)parse_where(bad); }, "--where"));

    // A table of stacks as `seprank table --layers` writes it: canonical SPEC text in `layers`.
    const std::string spec = "attention,mlp:power=2";
    const std::string canonical = layers_to_string(layers_period(parse_layers(spec)));
    std::string csv = "family,layers,depth,rank\n";
    csv += "attention,,1,3\n";
    for (long d = 1; d <= 4; ++d) csv += "stack,\"" + canonical + "\"," + std::to_string(2 * d) + "," + std::to_string(10 * d + 1) + "\n";
    csv += "stack,attention,1,3\n";
    const auto cells = parse_table_cells(csv, "t");
    for (const std::string& want : {spec, canonical, spec + "," + spec}) {  // any text of the same stack
        const auto pts = guess_points(cells, {"depth"}, "rank", Pairs{{"layers", want}});
        REQUIRE(pts.size() == 4);
        CHECK(pts[3].x[0] == 8);
    }
    CHECK(guess_points(cells, {"depth"}, "rank", parse_where("layers=attention")).size() == 1);
    CHECK(throws_with<invalid_input>([&] { (void)guess_points(cells, {"depth"}, "rank", Pairs{{"layers", "nosuchkind"}}); },
                                     "--where layers='nosuchkind' is not a SPEC"));
    // JSON lines read the same
    std::string jl = "{\"seprank_table_sweep\":\"x\"}\n";
    for (long d = 1; d <= 3; ++d)
        jl += "{\"family\":\"stack\",\"layers\":\"" + canonical + "\",\"depth\":" + std::to_string(2 * d) + ",\"rank\":" + std::to_string(d) + "}\n";
    CHECK(guess_points(parse_table_cells(jl, "t"), {"depth"}, "rank", parse_where("layers=" + spec)).size() == 3);
}

TEST_CASE("spec_of_row rebuilds a table row's network; check_prediction agrees, disagrees or runs out of time") {
    const TableRow row = {{"family", "attention"}, {"tokens", "2"}, {"dim", "2"}, {"heads", "1"}, {"head_dim", "2"},
                          {"depth", "2"}, {"width", "0"}, {"residual", "false"}, {"partition", "1|2"}, {"rank", "15"}};
    const NetworkSpec s = spec_of_row(row, {"dim", "depth"}, {3, 1});
    CHECK(s.family == Family::attention);
    CHECK(s.tokens == 2);
    CHECK(s.dim == 3);
    CHECK(s.depth == 1);
    CHECK(s.head_dim == 0);  // the resolved dx/H of the row is not carried to another dx
    // generic at dx = 2, L = 3 is C(13 + 2, 2) = 105 (docs/guess.md)
    const PredictionCheck yes = check_prediction(row, {"depth"}, {3}, Rational(105));
    CHECK(yes.done);
    CHECK(yes.verdict == "agree");
    CHECK(yes.generic == 105);
    CHECK(yes.label == "certified");
    const PredictionCheck no = check_prediction(row, {"depth"}, {3}, Rational(104));
    CHECK(no.verdict == "disagree");
    CHECK(no.generic == 105);
    CheckOptions quick;
    quick.seconds = 1e-3;
    const PredictionCheck late = check_prediction(row, {"dim", "depth"}, {3, 5}, Rational(1), quick);
    CHECK_FALSE(late.done);
    CHECK(late.verdict == "unchecked (over the budget)");
    // the caller's own cancellation is passed on, not turned into a verdict
    {
        const CancelScope stop([] { return true; });
        CHECK_THROWS_AS((void)check_prediction(row, {"dim", "depth"}, {3, 5}, Rational(1)), cancelled);
    }
    // a stack: depth counts layers, whole copies of the row's SPEC
    TableRow stack = {{"family", "stack"}, {"layers", "attention,mlp"}, {"tokens", "2"}, {"dim", "1"}, {"depth", "2"}};
    CHECK(spec_of_row(stack, {"depth"}, {4}).layers.size() == 4);
    CHECK_THROWS_WITH_AS((void)spec_of_row(stack, {"depth"}, {3}), doctest::Contains("not a number of copies"), invalid_input);
    // bad rows and options
    CHECK_THROWS_WITH_AS((void)spec_of_row({{"tokens", "2"}}, {}, {}), doctest::Contains("no column 'family'"), invalid_input);
    CHECK_THROWS_WITH_AS((void)spec_of_row(row, {"rank"}, {3}), doctest::Contains("variable 'rank' is not a network size"), invalid_input);
    CHECK_THROWS_WITH_AS((void)spec_of_row({{"family", "attention"}, {"dim", "x"}}, {}, {}), doctest::Contains("check: column dim = 'x'"),
                         invalid_input);
    CheckOptions bad;
    bad.seconds = 0;
    CHECK_THROWS_AS(check_options(bad), invalid_input);
    bad = CheckOptions{};
    bad.trials = 1001;
    CHECK_THROWS_AS(check_options(bad), invalid_input);
    bad = CheckOptions{};
    bad.max_side = 0;
    CHECK_THROWS_AS((void)check_prediction(row, {"depth"}, {3}, Rational(105), bad), invalid_input);
}

TEST_CASE("to_string(FormKind) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<FormKind>({FormKind::polynomial, FormKind::exp_linear, FormKind::binomial, FormKind::c_finite, FormKind::p_recursive}, "FormKind", nullptr);
}
