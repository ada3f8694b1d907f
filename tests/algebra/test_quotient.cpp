#include "algebra/quotient.hpp"

#include "mod_systems.hpp"

#include "seprank/error.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <set>
#include <vector>

using namespace seprank;
using algebra_detail::groebner_basis;
using algebra_detail::GroebnerOrder;
using algebra_detail::ModPoly;
using algebra_detail::quotient_of;
using algebra_detail::simple_points;
using algebra_detail::SimpleVariant;

namespace {

constexpr std::uint64_t kP = 65521;

std::uint64_t neg(std::uint64_t x) { return (kP - x % kP) % kP; }

ModPoly dense_poly(Rng& rng, long n, int deg) { return seprank_test::dense_poly(rng, n, deg, kP); }

// Π_k (t_i − roots_k) in n unknowns: a univariate polynomial in t_i with the given roots.
ModPoly with_roots(long n, long i, const std::vector<std::uint64_t>& roots) {
    std::vector<std::uint64_t> c{1};  // coefficients, lowest first
    for (std::uint64_t r : roots) {
        std::vector<std::uint64_t> next(c.size() + 1, 0);
        for (std::size_t k = 0; k < c.size(); ++k) {
            next[k + 1] = (next[k + 1] + c[k]) % kP;
            next[k] = (next[k] + c[k] * neg(r)) % kP;
        }
        c = next;
    }
    ModPoly f;
    for (std::size_t k = 0; k < c.size(); ++k) {
        std::vector<int> e(static_cast<std::size_t>(n), 0);
        e[static_cast<std::size_t>(i)] = static_cast<int>(k);
        f.push_back({c[k], e});
    }
    return f;
}

algebra_detail::Quotient quotient(const std::vector<ModPoly>& sys, long n, GroebnerOrder order = GroebnerOrder::weighted) {
    return quotient_of(groebner_basis(sys, n, kP, order), 100000);
}

}  // namespace

TEST_CASE("quotient: multiplication matrices commute and satisfy the system") {
    auto rng = seprank_test::rng_for("quotient-mult");
    INFO("seed " << seprank_test::seed());
    for (int trial = 0; trial < 6; ++trial) {
        const long n = 2 + trial % 2;
        std::vector<ModPoly> sys;
        for (long i = 0; i < n; ++i) sys.push_back(dense_poly(rng, n, 2 + static_cast<int>(i % 2)));
        for (GroebnerOrder order : {GroebnerOrder::grevlex, GroebnerOrder::weighted}) {
            const auto q = quotient(sys, n, order);
            const long c = static_cast<long>(q.standard.size());
            CHECK(c == (n == 2 ? 6 : 12));  // Bézout: 2·3, 2·3·2
            // M_i M_j = M_j M_i
            for (long i = 0; i < n; ++i)
                for (long j = i + 1; j < n; ++j) {
                    NmodMat a(c, c, kP), b(c, c, kP);
                    nmod_mat_mul(a.get(), q.mult[static_cast<std::size_t>(i)].get(), q.mult[static_cast<std::size_t>(j)].get());
                    nmod_mat_mul(b.get(), q.mult[static_cast<std::size_t>(j)].get(), q.mult[static_cast<std::size_t>(i)].get());
                    CHECK(a == b);
                }
            // f(M_1, …, M_n) = 0 for every equation f
            for (const ModPoly& f : sys) CHECK(nmod_mat_is_zero(algebra_detail::multiplication_matrix(q, f).get()));
        }
    }
}

TEST_CASE("simple_points: known solutions, multiple points and collisions of values") {
    auto rng = seprank_test::rng_for("quotient-known");
    INFO("seed " << seprank_test::seed());
    const long n = 2;
    // x ∈ {1, 2, 3}, y ∈ {5, 7}: 6 simple points
    const std::vector<ModPoly> grid{with_roots(n, 0, {1, 2, 3}), with_roots(n, 1, {5, 7})};
    const auto q = quotient(grid, n);
    const ModPoly x{{1, {1, 0}}}, y{{1, {0, 1}}}, sum{{1, {1, 0}}, {1, {0, 1}}}, x2{{1, {2, 0}}}, one{{4, {0, 0}}};
    for (SimpleVariant v : {SimpleVariant::per_unknown, SimpleVariant::separating}) {
        const auto s = simple_points(q, grid, x, rng, v);
        CHECK(s.simple);
        CHECK(s.points == 6);
    }
    // x takes 3 values, y 2, x² 3, x + y 5 (1 + 7 = 3 + 5), a constant 1
    CHECK(simple_points(q, grid, x, rng).distinct == 3);
    CHECK(simple_points(q, grid, y, rng).distinct == 2);
    CHECK(simple_points(q, grid, sum, rng).distinct == 5);
    CHECK(simple_points(q, grid, x2, rng).distinct == 3);
    CHECK(simple_points(q, grid, one, rng).distinct == 1);
    CHECK(algebra_detail::distinct_values_reference(q, sum) == 5);
    // the points are checked against the system without the basis: another system's
    // basis (x ∈ {1, 2, 4} here) is caught, not certified
    CHECK_THROWS_AS(simple_points(q, {with_roots(n, 0, {1, 2, 4}), with_roots(n, 1, {5, 7})}, x, rng), internal_error);
    // a double root: x ∈ {1, 1, 2}, not reduced; both variants say so
    const std::vector<ModPoly> dbl_sys{with_roots(n, 0, {1, 1, 2}), with_roots(n, 1, {5, 7})};
    const auto dbl = quotient(dbl_sys, n);
    CHECK(dbl.standard.size() == 6);
    for (SimpleVariant v : {SimpleVariant::per_unknown, SimpleVariant::separating}) {
        const auto s = simple_points(dbl, dbl_sys, x, rng, v);
        CHECK_FALSE(s.simple);
        CHECK(s.points == -1);
        CHECK(s.distinct == -1);
    }
    CHECK(algebra_detail::distinct_values_reference(dbl, x) == -1);
    // a non-reduced point hidden from every coordinate's minimal polynomial degree:
    // (x, y) = (0, 0) with ideal (x², xy, y²) has multiplicity 3
    // (two equations of the three: the check wants a square system; x², y² alone give 4)
    const auto fat = quotient({{{1, {2, 0}}}, {{1, {1, 1}}}, {{1, {0, 2}}}}, n);
    CHECK(fat.standard.size() == 3);
    const std::vector<ModPoly> fat_sq{{{1, {2, 0}}}, {{1, {0, 2}}}};
    for (SimpleVariant v : {SimpleVariant::per_unknown, SimpleVariant::separating}) CHECK_FALSE(simple_points(fat, fat_sq, x, rng, v).simple);
    CHECK_THROWS_AS(simple_points(fat, {{{1, {2, 0}}}}, x, rng), invalid_input);  // not square
    // one point; no point (the unit ideal)
    const std::vector<ModPoly> single_sys{{{1, {1, 0}}, {neg(3), {0, 0}}}, {{1, {0, 1}}}};
    const auto single = quotient(single_sys, n);
    CHECK(simple_points(single, single_sys, sum, rng).points == 1);
    CHECK(simple_points(single, single_sys, sum, rng).distinct == 1);
    CHECK(simple_points(single, single_sys, ModPoly{}, rng).distinct == 1);  // the zero polynomial: one value
    const std::vector<ModPoly> none_sys{{{1, {1, 0}}, {neg(3), {0, 0}}}, {{1, {1, 0}}, {neg(4), {0, 0}}}};
    const auto none = quotient(none_sys, n);
    CHECK(none.standard.empty());
    CHECK(simple_points(none, none_sys, sum, rng).points == 0);
    CHECK(simple_points(none, none_sys, sum, rng).distinct == -1);
    // not zero-dimensional: refused
    CHECK_THROWS_AS(quotient({{{1, {1, 1}}, {neg(1), {0, 0}}}}, n), invalid_input);
    // over the point limit: refused before the matrices
    CHECK_THROWS_AS(quotient_of(groebner_basis(grid, n, kP), 5), resource_limit);
}

TEST_CASE("simple_points: the separating variant against the reference on random systems") {
    auto rng = seprank_test::rng_for("quotient-random");
    INFO("seed " << seprank_test::seed());
    for (int trial = 0; trial < 40; ++trial) {
        CAPTURE(trial);
        const long n = 1 + trial % 3;
        std::vector<ModPoly> sys;
        if (trial % 4 == 3) {
            // a system with double solutions: t_0's polynomial has the root 1 twice, each other
            // unknown's two random roots: not reduced
            ModPoly sq = with_roots(n, 0, {1, 1, rng.below(kP)});
            sys.push_back(sq);
            for (long i = 1; i < n; ++i) sys.push_back(with_roots(n, i, {rng.below(kP), rng.below(kP)}));
        } else {
            for (long i = 0; i < n; ++i) sys.push_back(dense_poly(rng, n, 1 + static_cast<int>((trial + i) % 3)));
        }
        const auto q = quotient(sys, n);
        // a value that collides on purpose: a polynomial in t_0 alone (when n > 1), or a random one
        const ModPoly value = trial % 2 == 0 ? dense_poly(rng, n, 2) : with_roots(n, 0, {rng.below(kP)});
        const auto fast = simple_points(q, sys, value, rng, SimpleVariant::separating);
        const auto ref = simple_points(q, sys, value, rng, SimpleVariant::per_unknown);
        CHECK(fast.simple == ref.simple);
        CHECK(fast.points == ref.points);
        const long exact = algebra_detail::distinct_values_reference(q, value);
        if (fast.simple) {
            CHECK(fast.distinct <= exact);
            CHECK(fast.distinct == exact);  // a random projection misses with chance <= c/p
        } else {
            CHECK(exact == -1);
        }
        if (trial % 4 == 3) CHECK_FALSE(fast.simple);
    }
}

TEST_CASE("simple_points: no linear form separates (every point over Z/5): the reference decides, no distinct count") {
    // x, y ∈ Z/5 each: the 25 points of (Z/5)², all simple; a form r_1 x + r_2 y with
    // r ∈ (Z/5)² takes at most 5 values on them, so every draw fails and per_unknown runs
    const std::uint64_t p = 5;
    auto rng = seprank_test::rng_for("quotient-no-separation");
    INFO("seed " << seprank_test::seed());
    const std::vector<ModPoly> sys{{{1, {5, 0}}, {p - 1, {1, 0}}}, {{1, {0, 5}}, {p - 1, {0, 1}}}};  // x^5 − x, y^5 − y
    const auto q = quotient_of(groebner_basis(sys, 2, p), 1000);
    REQUIRE(q.standard.size() == 25);
    const auto s = simple_points(q, sys, {{1, {1, 0}}}, rng);
    CHECK(s.simple);
    CHECK(s.points == 25);
    CHECK(s.distinct == -1);
    // a double point among them is seen by the reference: x²(x − 1)… here x^5 − x^2
    const std::vector<ModPoly> fat{{{1, {5, 0}}, {p - 1, {2, 0}}}, {{1, {0, 5}}, {p - 1, {0, 1}}}};
    const auto qf = quotient_of(groebner_basis(fat, 2, p), 1000);
    CHECK_FALSE(simple_points(qf, fat, {{1, {1, 0}}}, rng).simple);
}

TEST_CASE("simple_points: the Krylov products' rows split over threads give the same answer (600 solutions)") {
    auto rng = seprank_test::rng_for("quotient-threads");
    INFO("seed " << seprank_test::seed());
    const std::vector<ModPoly> sys{dense_poly(rng, 2, 24), dense_poly(rng, 2, 25)};
    const auto q = quotient(sys, 2);
    REQUIRE(q.standard.size() == 600);  // Bézout
    const ModPoly value = dense_poly(rng, 2, 3);
    Rng a(seprank_test::seed()), b(seprank_test::seed());
    const auto one = simple_points(q, sys, value, a, SimpleVariant::separating, 1);
    const auto two = simple_points(q, sys, value, b, SimpleVariant::separating, 2);
    CHECK(one.simple);
    CHECK(one.points == 600);
    CHECK(one.distinct == 600);
    CHECK(two.simple == one.simple);
    CHECK(two.points == one.points);
    CHECK(two.distinct == one.distinct);
}
