#include "algebra/groebner.hpp"

#include "mod_systems.hpp"

#include "seprank/error.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <thread>
#include <vector>

using namespace seprank;
using algebra_detail::ModPoly;
using algebra_detail::solution_count;

using seprank_test::dense_poly;

TEST_CASE("solution_count: systems whose solutions are known") {
    const std::uint64_t p = 65521;
    // x^2 − 1, y^3 − 2: 6 solutions
    CHECK(solution_count({{{1, {2, 0}}, {p - 1, {0, 0}}}, {{1, {0, 3}}, {p - 2, {0, 0}}}}, 2, p).count == 6);
    // (x − 1)^2 = x^2 − 2x + 1, y: one solution of multiplicity 2
    CHECK(solution_count({{{1, {2, 0}}, {p - 2, {1, 0}}, {1, {0, 0}}}, {{1, {0, 1}}}}, 2, p).count == 2);
    // x·y − 1 alone: a curve, not zero-dimensional
    const auto curve = solution_count({{{1, {1, 1}}, {p - 1, {0, 0}}}}, 2, p);
    CHECK_FALSE(curve.zero_dimensional);
    // x − 1, x − 2: no solution (the unit ideal)
    const auto none = solution_count({{{1, {1}}, {p - 1, {0}}}, {{1, {1}}, {p - 2, {0}}}}, 1, p);
    CHECK(none.zero_dimensional);
    CHECK(none.count == 0);
    // repeated monomials are merged: x + x − 2 = 2x − 2, one solution
    CHECK(solution_count({{{1, {1}}, {1, {1}}, {p - 2, {0}}}}, 1, p).count == 1);
    // Bézout: two generic conics meet in 4 points; a generic cubic and quadric surface and a plane in 6
    auto rng = seprank_test::rng_for("groebner");
    INFO("seed " << seprank_test::seed());
    const auto dense = [&](long n, int deg) { return dense_poly(rng, n, deg, p); };
    CHECK(solution_count({dense(2, 2), dense(2, 2)}, 2, p).count == 4);
    CHECK(solution_count({dense(3, 3), dense(3, 2), dense(3, 1)}, 3, p).count == 6);
    CHECK_THROWS_AS(solution_count({dense(2, 1)}, 2, 65537), invalid_input);
    CHECK_THROWS_AS(solution_count({{{p, {1, 0}}}}, 2, p), invalid_input);
    CHECK_THROWS_AS(solution_count({{{1, {1}}}}, 2, p), invalid_input);
}


TEST_CASE("solution_count from several threads at once: each count right (the calls take turns in MathicGB)") {
    const std::uint64_t p = 65521;
    auto rng = seprank_test::rng_for("groebner-threads");
    INFO("seed " << seprank_test::seed());
    // generic systems in 4 unknowns of degrees (5, 5, 4, 2): Bézout, 200 solutions each
    const auto dense = [&](long n, int deg) { return dense_poly(rng, n, deg, p); };
    std::vector<std::vector<ModPoly>> systems;
    for (int s = 0; s < 16; ++s) systems.push_back({dense(4, 5), dense(4, 5), dense(4, 4), dense(4, 2)});
    std::vector<long> counts(systems.size(), -1);
    std::vector<std::thread> pool;
    for (int t = 0; t < 4; ++t)
        pool.emplace_back([&, t] {
            for (std::size_t s = static_cast<std::size_t>(t); s < systems.size(); s += 4) counts[s] = solution_count(systems[s], 4, p).count;
        });
    for (auto& th : pool) th.join();
    for (long c : counts) CHECK(c == 200);
}

TEST_CASE("solution_count: the weighted order counts what graded reverse lex (the reference) counts") {
    const std::uint64_t p = 65521;
    auto rng = seprank_test::rng_for("groebner-weighted");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(16); ++it) {
        // n unknowns of unequal degrees (as a slice's weights of different layers): each
        // polynomial dense in the box of exponents e_i <= d_i (total degree unbounded), some
        // overdetermined, some with a zero polynomial
        const long n = 1 + static_cast<long>(rng.below(3));
        std::vector<int> d(static_cast<std::size_t>(n));
        for (int& x : d) x = 1 + static_cast<int>(rng.below(4));
        const long count = n + static_cast<long>(rng.below(2));
        std::vector<ModPoly> polys;
        for (long k = 0; k < count; ++k) {
            ModPoly f;
            std::vector<int> e(static_cast<std::size_t>(n), 0);
            const auto rec = [&](auto&& self, long i) -> void {
                if (i == n) {
                    if (rng.below(3) != 0) f.push_back({rng.below(p), e});
                    return;
                }
                for (int x = 0; x <= d[static_cast<std::size_t>(i)]; ++x) {
                    e[static_cast<std::size_t>(i)] = x;
                    self(self, i + 1);
                }
                e[static_cast<std::size_t>(i)] = 0;
            };
            rec(rec, 0);
            polys.push_back(f);
        }
        if (it % 5 == 0) polys.push_back({});
        const auto ref = solution_count(polys, n, p, 10000000, algebra_detail::GroebnerOrder::grevlex);
        const auto fast = solution_count(polys, n, p, 10000000, algebra_detail::GroebnerOrder::weighted);
        CAPTURE(n);
        CHECK(ref.zero_dimensional == fast.zero_dimensional);
        CHECK(ref.count == fast.count);
    }
    // the known systems above, in the weighted order: x^2 − 1, y^3 − 2 (weights 3, 2): 6
    CHECK(solution_count({{{1, {2, 0}}, {p - 1, {0, 0}}}, {{1, {0, 3}}, {p - 2, {0, 0}}}}, 2, p, 10000000,
                         algebra_detail::GroebnerOrder::weighted).count == 6);
}
