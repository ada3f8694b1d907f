#include "seprank/equation.hpp"

#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/record.hpp"
#include "seprank/expand.hpp"
#include "seprank/model.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/rank.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>

using namespace seprank;

namespace {

struct Found {
    ValidSpec spec;
    long n;
    ImageEquation eq;
};

Found equation_of(const std::string& layers, long tokens, long dim, EquationOptions opt = {}) {
    ValidSpec v(seprank_test::stack_spec(tokens, dim, layers));
    const long n = function_dimension(v).value;
    opt.seed = seprank_test::seed();
    ImageEquation eq = image_equation(v, n, opt);
    return {std::move(v), n, std::move(eq)};
}

// The exponent vector of an input monomial's text ("x1_1^2*x1_3", "1") in `names`.
std::vector<std::uint64_t> exponents_of(const std::string& text, const Variables& names) {
    std::vector<std::uint64_t> e(names.size(), 0);
    if (text == "1") return e;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('*', at);
        if (end == std::string::npos) end = text.size();
        const std::string factor = text.substr(at, end - at);
        const std::size_t caret = factor.find('^');
        const auto k = names.find(factor.substr(0, caret));
        REQUIRE(k.has_value());
        e[*k] += caret == std::string::npos ? 1 : std::stoull(factor.substr(caret + 1));
        at = end + 1;
    }
    return e;
}

// The coefficients of f = the network with weights `w`, expanded independently (expand),
// at the equation's coordinates: the point of the span that P must vanish at.
std::vector<Rational> coordinates_at(const Found& f, const Weights& w) {
    const QPoly g = expand(Network{f.spec.get(), w});
    const Variables& names = g.context()->vars();
    std::map<std::vector<std::uint64_t>, Rational> coeff;
    for (std::size_t k = 0; k < g.terms(); ++k) coeff[g.exponents(k)] = g.coeff(k);
    std::vector<Rational> y;
    for (const std::string& c : f.eq.coordinates) {
        const auto it = coeff.find(exponents_of(c, names));
        y.push_back(it == coeff.end() ? Rational(0) : it->second);
    }
    return y;
}

// The catalecticant determinant of the forms of degree 2m in the coordinates' monomials
// (each of degree 2m): f = Σ (2m)!/α! a_α x^α, the matrix [a_{β+γ}] over the monomials β,
// γ of degree m. Sylvester, Clebsch: its vanishing is the hypersurface of sums of
// (C(m + v − 1, m) − 1) powers, the symmetric determinant at m = 1. By Leibniz.
QPoly catalecticant(const std::shared_ptr<const QContext>& yctx, const std::vector<std::string>& coordinates, const Variables& xs, long m) {
    std::map<std::vector<std::uint64_t>, std::size_t> coordinate;
    for (std::size_t k = 0; k < coordinates.size(); ++k) coordinate[exponents_of(coordinates[k], xs)] = k;
    const auto factorial = [](std::uint64_t n) { long f = 1; for (std::uint64_t i = 2; i <= n; ++i) f *= static_cast<long>(i); return f; };
    std::vector<std::vector<std::uint64_t>> half;  // the monomials of degree m
    std::vector<std::uint64_t> e(xs.size(), 0);
    std::function<void(std::size_t, long)> rec = [&](std::size_t v, long left) {
        if (v + 1 == e.size()) { e[v] = static_cast<std::uint64_t>(left); half.push_back(e); return; }
        for (long a = left; a >= 0; --a) { e[v] = static_cast<std::uint64_t>(a); rec(v + 1, left - a); }
    };
    rec(0, m);
    const std::size_t size = half.size();
    std::vector<std::vector<QPoly>> c(size, std::vector<QPoly>(size, QPoly(yctx)));
    for (std::size_t i = 0; i < size; ++i)
        for (std::size_t j = 0; j < size; ++j) {
            std::vector<std::uint64_t> sum(xs.size());
            long multinomial = factorial(static_cast<std::uint64_t>(2 * m));
            for (std::size_t v = 0; v < sum.size(); ++v) {
                sum[v] = half[i][v] + half[j][v];
                multinomial /= factorial(sum[v]);
            }
            const auto it = coordinate.find(sum);
            REQUIRE(it != coordinate.end());
            c[i][j] = QPoly::variable(yctx, it->second) * Rational(Integer(1), Integer(multinomial));
        }
    std::vector<std::size_t> perm(size);
    std::iota(perm.begin(), perm.end(), 0);
    QPoly det(yctx);
    do {
        long inversions = 0;
        for (std::size_t a = 0; a < size; ++a)
            for (std::size_t b = a + 1; b < size; ++b) inversions += perm[a] > perm[b];
        QPoly term = QPoly::constant(yctx, Rational(inversions % 2 ? -1 : 1));
        for (std::size_t a = 0; a < size; ++a) term = term * c[a][perm[a]];
        det += term;
    } while (std::next_permutation(perm.begin(), perm.end()));
    return det;
}

// p = λ·q for a nonzero rational λ.
bool proportional(const QPoly& p, const QPoly& q) {
    return !p.is_zero() && !q.is_zero() && p.terms() == q.terms() && (p * q.coeff(0)).equals(q * p.coeff(0));
}

}  // namespace

TEST_CASE("equation: sums of powers whose image is a hypersurface: the catalecticant's (Sylvester, Clebsch)") {
    // (layers, dim, half degree m, deg X)
    const std::vector<std::tuple<std::string, long, long, long>> nets = {
        {"dense:width=2:power=4,dense:width=1:power=1", 2, 2, 3},   // binary quartics, 2 fourth powers
        {"dense:width=3:power=6,dense:width=1:power=1", 2, 3, 4},   // binary sextics, 3 sixth powers
        {"dense:width=4:power=8,dense:width=1:power=1", 2, 4, 5},   // binary octics, 4 eighth powers
        {"dense:width=4:power=2,dense:width=1:power=1", 5, 1, 5},   // quinary quadrics of rank 4: the symmetric determinant
        {"dense:width=5:power=4,dense:width=1:power=1", 3, 2, 6},   // ternary quartics, 5 fourth powers (Alexander-Hirschowitz)
    };
    for (const auto& [layers, dim, m, degree] : nets) {
        INFO(layers << " seed " << seprank_test::seed());
        const Found f = equation_of(layers, 1, dim);
        CHECK(f.eq.span_dimension == f.n + 1);
        REQUIRE(f.eq.degree == degree);
        CHECK(f.eq.least);
        REQUIRE(f.eq.equation.has_value());
        const QPoly cat = catalecticant(f.eq.equation->context(), f.eq.coordinates, Variables::tokens(1, dim), m);
        CHECK(cat.degree() == degree);
        CHECK(proportional(*f.eq.equation, cat));
    }
}

TEST_CASE("equation: the shallow quadratic networks' image is the symmetric determinant's hypersurface") {
    for (long d0 = 2; d0 <= 4; ++d0) {
        INFO("d0 = " << d0 << ", seed " << seprank_test::seed());
        const Found f = equation_of("dense:width=" + std::to_string(d0 - 1) + ":power=2,dense:width=1:power=1", 1, d0);
        const long span = d0 * (d0 + 1) / 2;
        CHECK(f.n == span - 1);
        CHECK(f.eq.monomials == span);
        CHECK(f.eq.span_dimension == span);
        REQUIRE(f.eq.degree == d0);
        CHECK(f.eq.searched_to == d0 - 1);
        CHECK(f.eq.least);
        REQUIRE(f.eq.equation.has_value());
        CHECK(f.eq.why.empty());
        // det S, S_ii = coefficient of x_i², S_ij = half that of x_i·x_j, by Leibniz.
        const QPoly& p = *f.eq.equation;
        const auto& yctx = p.context();
        const Variables xs = Variables::tokens(1, d0);
        std::vector<std::vector<QPoly>> s(static_cast<std::size_t>(d0), std::vector<QPoly>(static_cast<std::size_t>(d0), QPoly(yctx)));
        for (std::size_t v = 0; v < f.eq.coordinates.size(); ++v) {
            const std::vector<std::uint64_t> e = exponents_of(f.eq.coordinates[v], xs);
            std::vector<std::size_t> at;
            for (std::size_t k = 0; k < e.size(); ++k)
                for (std::uint64_t r = 0; r < e[k]; ++r) at.push_back(k);
            REQUIRE(at.size() == 2);
            const QPoly y = QPoly::variable(yctx, v);
            if (at[0] == at[1]) s[at[0]][at[0]] = y;
            else s[at[0]][at[1]] = s[at[1]][at[0]] = y * Rational(Integer(1), Integer(2));
        }
        std::vector<std::size_t> perm(static_cast<std::size_t>(d0));
        std::iota(perm.begin(), perm.end(), 0);
        QPoly det(yctx);
        do {
            long inversions = 0;
            for (std::size_t a = 0; a < perm.size(); ++a)
                for (std::size_t b = a + 1; b < perm.size(); ++b) inversions += perm[a] > perm[b];
            QPoly term = QPoly::constant(yctx, Rational(inversions % 2 ? -1 : 1));
            for (std::size_t a = 0; a < perm.size(); ++a) term = term * s[a][perm[a]];
            det += term;
        } while (std::next_permutation(perm.begin(), perm.end()));
        CHECK(proportional(p, det));  // P is det S up to a constant factor
    }
}

TEST_CASE("equation: P vanishes at independently expanded networks and not at random coefficients") {
    seprank::Rng rng = seprank_test::rng_for("equation vanishes");
    const std::vector<std::tuple<std::string, long, long, long>> nets = {
        {"dense:width=1:power=2,dense:width=1:power=1", 1, 2, 2},   // binary quadratics of rank 1: the discriminant
        {"dense:width=2:power=2,dense:width=1:power=1", 1, 3, 3},
        {"dense:width=3:power=3,dense:width=1:power=1", 1, 3, 4},   // ternary cubics, sums of 3 cubes: Aronhold's invariant
        {"dense:width=1:power=3,dense:width=1:power=1", 1, 2, -1},  // binary cubes: the twisted cubic, codimension 2
    };
    for (const auto& [layers, tokens, dim, degree] : nets) {
        INFO(layers << " seed " << seprank_test::seed());
        const Found f = equation_of(layers, tokens, dim);
        CHECK(f.eq.degree == degree);
        if (degree < 0) {
            CHECK(f.eq.span_dimension == 4);
            CHECK(f.n == 2);
            CHECK(f.eq.why.find("no hypersurface") != std::string::npos);
            continue;
        }
        REQUIRE(f.eq.equation.has_value());
        const Model m(f.spec);
        for (int trial = 0; trial < 4; ++trial) {
            const Weights w = m.draw_weights(rng.next(), 9);
            const std::vector<Rational> y = coordinates_at(f, w);
            CHECK(f.eq.equation->evaluate(y).is_zero());
            std::vector<Rational> random(y.size());
            for (auto& v : random) v = Rational(rng.range(-(1L << 20), 1L << 20));
            CHECK(!f.eq.equation->evaluate(random).is_zero());
        }
    }
}

TEST_CASE("equation: the span's dimension is the rank of the image's differences at random weights") {
    seprank::Rng rng = seprank_test::rng_for("equation span");
    const std::vector<std::tuple<std::string, long, long>> nets = {
        {"conv,conv,conv:power=1", 4, 1},  // 21 monomials, 2 linear relations among their coefficients
        {"conv,conv:power=1", 3, 1},
        {"dense:width=2:power=3,dense:width=1:power=1", 1, 3},
        {"dense:width=1:power=1", 1, 3},
        {"attention", 2, 1},
    };
    for (const auto& [layers, tokens, dim] : nets) {
        INFO(layers << " seed " << seprank_test::seed());
        const Found f = equation_of(layers, tokens, dim);
        REQUIRE(f.eq.span_dimension >= 0);
        CHECK(f.eq.span_dimension >= f.n);
        CHECK(static_cast<long>(f.eq.coordinates.size()) == f.eq.span_dimension);
        // Differences of the coefficient vectors at random weights, mod a 62-bit prime.
        const Model m(f.spec);
        const std::uint64_t p = random_prime(rng, 62);
        const auto ctx = NmodContext::make(network_variables(f.spec), p);
        std::vector<std::map<std::vector<std::uint64_t>, std::uint64_t>> points;
        std::map<std::vector<std::uint64_t>, long> column;
        for (long k = 0; k < f.eq.monomials + 6; ++k) {
            const NmodPoly g = expand_mod(Network{f.spec.get(), m.draw_weights(rng.next(), 1 << 20)}, p);
            std::map<std::vector<std::uint64_t>, std::uint64_t> c;
            for (std::size_t t = 0; t < g.terms(); ++t) {
                c[g.exponents(t)] = g.coeff(t);
                column.emplace(g.exponents(t), static_cast<long>(column.size()));
            }
            points.push_back(std::move(c));
        }
        REQUIRE(static_cast<long>(column.size()) == f.eq.monomials);
        NmodMat diff(static_cast<long>(points.size()) - 1, static_cast<long>(column.size()), p);
        for (std::size_t k = 1; k < points.size(); ++k)
            for (const auto& [e, col] : column) {
                const auto at = [&](std::size_t i) { const auto it = points[i].find(e); return it == points[i].end() ? 0 : it->second; };
                diff.set(static_cast<long>(k) - 1, col, (at(k) + p - at(0)) % p);
            }
        CHECK(rank_modular(diff) == f.eq.span_dimension);
        CHECK(image_span_dimension(f.spec, 1000000, 60) == f.eq.span_dimension);  // the span alone, as dimension takes it
        if (f.eq.span_dimension == f.n) {
            CHECK(f.eq.degree == 1);  // X fills its span
            CHECK(!f.eq.equation.has_value());
        }
    }
}

TEST_CASE("image_span_dimension: -1 past its limits; dimension takes a span it reaches as exact, for one layer") {
    const ValidSpec one(seprank_test::attention_spec(4, 2, 1, 2));  // two heads at dx = 2: span 6
    CHECK(image_span_dimension(one, 1000000, 60) == 6);
    CHECK(image_span_dimension(one, 10, 60) == -1);          // the expansion passes 10 terms
    CHECK(image_span_dimension(ValidSpec(seprank_test::attention_spec(8, 8, 3)), 20000, 0.1) == -1);
    const RankAnswer a = function_dimension(one, DimensionOptions{});
    CHECK(a.value == 6);
    CHECK(a.kind == RankKind::exact);
    CHECK(a.note.find("the dimension of the image's affine span (6, computed exactly over Q") != std::string::npos);
    // below its span (one head: 5 of 6) it stays generic; every output: not tried
    const RankAnswer b = function_dimension(seprank_test::attention_spec(2, 2, 1), DimensionOptions{});
    CHECK(b.value == 5);
    CHECK(b.kind == RankKind::generic);
    CHECK(b.note.find("affine span") == std::string::npos);
    DimensionOptions all;
    all.output = DimensionOutput::all;
    CHECK(function_dimension(one, all).note.find("affine span") == std::string::npos);
    // deeper networks: not tried (their expansions cost the default table's --dimension more than twice its time)
    CHECK(function_dimension(seprank_test::attention_spec(2, 2, 2, 2), DimensionOptions{}).note.find("affine span") == std::string::npos);
}

TEST_CASE("equation: the search's limits and its degree range are reported, not thrown") {
    const std::string quadratic = "dense:width=2:power=2,dense:width=1:power=1";
    SUBCASE("too few monomials for degree 3, C(9, 3) = 84: its graded parts hold the determinant") {
        EquationOptions o;
        o.max_monomials = 83;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == 3);
        CHECK(f.eq.least);             // irreducible over Q
        CHECK(f.eq.searched_to == 2);  // degree 2 (28 monomials) holds none, certified
        REQUIRE(f.eq.equation.has_value());
        CHECK(f.eq.equation->terms() == 5);
    }
    SUBCASE("the graded parts and the whole spaces are reported to the progress observer") {
        long parts = 0, wholes = 0;
        const ProgressScope scope([&](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
            // no total: parts and degrees grow in cost and may end early, so no time left is
            // guessed from the rate so far (it read "about 287 s left" on a 1 s run); the
            // count is in the text
            if (what.substr(0, 10) != "equation: ") return;  // the Jacobian's trials report too
            CHECK(total == 0);
            CHECK(done >= 1);
            CHECK(detail.substr(0, 3) == "of ");
            if (what.find("graded parts") != std::string_view::npos) ++parts;
            if (what == "equation: degrees") ++wholes;
        });
        EquationOptions o;
        o.max_monomials = 83;  // degree 2 whole (28 monomials), degree 3 by parts only
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == 3);
        CHECK(parts >= 1);
        CHECK(wholes == 1);
    }
    SUBCASE("the determinant's graded part too large: none found") {
        EquationOptions o;
        o.max_monomials = 4;  // its part, weight (2,2,2), holds exactly its 5 monomials
        o.max_degree = 3;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == -1);
        CHECK(f.eq.searched_to == 1);
        CHECK(f.eq.why.find("graded parts") != std::string::npos);
        CHECK(f.eq.why.find("over max_monomials 4") != std::string::npos);
        CHECK(f.eq.why.find("up to degree 3") != std::string::npos);
    }
    SUBCASE("degrees below the equation's") {
        EquationOptions o;
        o.max_degree = 2;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == -1);
        CHECK(f.eq.searched_to == 2);
        CHECK(f.eq.why == "no equation of degree 2..2");
    }
    SUBCASE("a start above the least degree: a multiple of the determinant is found, and factored") {
        EquationOptions o;
        o.min_degree = 4;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == 3);
        CHECK(f.eq.least);
        REQUIRE(f.eq.equation.has_value());
        CHECK(f.eq.equation->terms() == 5);
        CHECK(f.eq.searched_to == 3);  // nothing below 4 searched
    }
    SUBCASE("the time budget") {
        EquationOptions o;
        o.max_seconds = 1e-9;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == -1);
        CHECK(f.eq.span_dimension == 6);  // what was found before it ran out stays
        CHECK(f.eq.why.find("time budget (max_seconds 1e-09) ran out") != std::string::npos);
    }
    SUBCASE("no degree to search") {
        EquationOptions o;
        o.max_degree = 1;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == -1);
        CHECK(f.eq.why == "no degree searched: max_degree 1 is below 2");
    }
    SUBCASE("the expansion's term limit") {
        EquationOptions o;
        o.max_terms = 5;
        const Found f = equation_of(quadratic, 1, 3, o);
        CHECK(f.eq.degree == -1);
        CHECK(f.eq.span_dimension == -1);
        CHECK(f.eq.why.find("max_terms") != std::string::npos);
    }
    SUBCASE("bad options and a negative dimension") {
        const ValidSpec v(seprank_test::stack_spec(1, 3, quadratic));
        for (const auto& change : std::vector<std::function<void(EquationOptions&)>>{
                 [](EquationOptions& o) { o.min_degree = 0; }, [](EquationOptions& o) { o.max_degree = 65; },
                 [](EquationOptions& o) { o.min_degree = 5; o.max_degree = 4; }, [](EquationOptions& o) { o.max_monomials = 0; },
                 [](EquationOptions& o) { o.max_terms = 0; }, [](EquationOptions& o) { o.max_primes = 1001; },
                 [](EquationOptions& o) { o.max_seconds = 0; }, [](EquationOptions& o) { o.max_seconds = std::nan(""); }}) {
            EquationOptions o;
            change(o);
            CHECK_THROWS_AS(image_equation(v, 5, o), invalid_input);
        }
        CHECK_THROWS_AS(image_equation(v, -1), invalid_input);
        CHECK_THROWS_AS(image_equation(v, 7), invalid_input);  // above the span's 6: not a lower bound
    }
}

TEST_CASE("equation: an expansion whose polynomials together pass the memory limit stops with the limit in why, never aborts") {
    // attention N=8 dx=8 L=3: hundreds of polynomials, each below 2^16 terms, held at once
    // by the forward pass (FLINT aborted the process there when an allocation failed).
    const double before = default_max_memory();
    set_default_max_memory(128.0 * 1048576.0 / 0.75);  // the expansion may take 128 MiB more than the process held
    const ImageEquation eq = image_equation(ValidSpec(seprank_test::attention_spec(8, 8, 3)), 1);
    set_default_max_memory(before);
    CHECK(eq.degree == -1);
    CHECK(eq.span_dimension == -1);
    CHECK(eq.why.find("the expansion in the weights holds about") != std::string::npos);
    CHECK(eq.why.find("(max_memory)") != std::string::npos);
    CHECK(eq.limited);  // a limit stopped it: verify calls such a case not checked
}

TEST_CASE("equation: a dimension bound below the truth finds no hypersurface") {
    const ValidSpec v(seprank_test::stack_spec(1, 3, "dense:width=2:power=2,dense:width=1:power=1"));
    const ImageEquation eq = image_equation(v, 3);  // dim X is 5, the span 6
    CHECK(eq.span_dimension == 6);
    CHECK(eq.degree == -1);
    CHECK(eq.why.find("over n + 1 = 4") != std::string::npos);
    CHECK_FALSE(eq.limited);  // a finding, not a limit
}


TEST_CASE("equation: network_equation labels what the equation proves, and its record") {
    EquationOptions o;
    o.seed = seprank_test::seed();
    INFO("seed " << o.seed);
    const EquationAnswer q = network_equation(ValidSpec(seprank_test::stack_spec(1, 3, "dense:width=3:power=3,dense:width=1:power=1")), o);
    CHECK(q.dimension_answer.value == 9);
    CHECK(q.dimension_answer.kind == RankKind::exact);
    CHECK(q.label.find("deg X = 4 is proven") != std::string::npos);
    Record r = equation_record(q);
    CHECK(r.at("degree").as_integer() == 4);
    CHECK(r.at("equation_degree").as_integer() == 4);
    CHECK(r.at("span_dimension").as_integer() == 10);
    CHECK(r.at("equation").as_text() == to_string(*q.equation.equation));
    CHECK(r.at("dimension_failure_bound").as_real() == 0);
    // X fills its span: degree 1, no equation
    const EquationAnswer all = network_equation(ValidSpec(seprank_test::stack_spec(1, 2, "dense:width=2:power=3,dense:width=1:power=1")), o);
    CHECK(all.label.find("fills its 4-dimensional affine span") != std::string::npos);
    r = equation_record(all);
    CHECK(r.at("degree").as_integer() == 1);
    CHECK(r.at("equation").is_null());
    // a convolution: no equation, the dimension as `dimension` measured it (exact: the
    // weights less their row scalings)
    const EquationAnswer c = network_equation(ValidSpec(seprank_test::stack_spec(4, 1, "conv,conv,conv:power=1")), o);
    CHECK(c.dimension_answer.kind == function_dimension(seprank_test::stack_spec(4, 1, "conv,conv,conv:power=1"), DimensionOptions{}).kind);
    CHECK(c.dimension_answer.kind == RankKind::exact);
    CHECK(c.label.find("no equation: the image's span has dimension 19") != std::string::npos);
    CHECK(c.label.find("X is no hypersurface there;") != std::string::npos);  // dim X = n exact: no "unless"
    CHECK(equation_why(c.equation, false) == c.equation.why);
    CHECK(c.equation.why.find("unless dim X > n") != std::string::npos);
    r = equation_record(c);
    CHECK(r.at("degree").is_null());
    CHECK(r.at("degree_at_most").is_null());
    CHECK(r.at("span_dimension").as_integer() == 19);
    EquationOptions bad = o;
    bad.max_monomials = 0;
    CHECK_THROWS_AS(network_equation(ValidSpec(seprank_test::stack_spec(4, 1, "conv,conv,conv:power=1")), bad), invalid_input);
}
