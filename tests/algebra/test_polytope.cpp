// The normalized volume of lattice polytopes (src/algebra/polytope.hpp) against volumes
// known in closed form, the shoelace formula in the plane, determinants of simplices, and
// its invariances (order, translation, unimodular maps, interior points, scaling).
#include "algebra/polytope.hpp"
#include "seprank/error.hpp"
#include "seprank/matrix.hpp"
#include "seprank/random.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <flint/fmpz_mat.h>

#include <algorithm>
#include <numeric>

using namespace seprank;
using algebra_detail::drop_midpoints;
using algebra_detail::normalized_volume;
using Pts = std::vector<std::vector<long>>;

namespace {

Integer factorial(long n) {
    Integer f(1);
    for (long k = 2; k <= n; ++k) f = f * Integer(k);
    return f;
}

// Every lattice point of the box [0, a_1] × … × [0, a_n].
Pts box(const std::vector<long>& a) {
    Pts out = {{}};
    for (long side : a) {
        Pts next;
        for (const auto& p : out)
            for (long x = 0; x <= side; ++x) {
                auto q = p;
                q.push_back(x);
                next.push_back(q);
            }
        out = next;
    }
    return out;
}

// Twice the area of the convex hull of planar points: the monotone chain, then the shoelace.
long twice_hull_area(Pts p) {
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    if (p.size() < 3) return 0;
    auto cross = [](const std::vector<long>& o, const std::vector<long>& a, const std::vector<long>& b) {
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
    };
    Pts h(2 * p.size());
    std::size_t k = 0;
    for (std::size_t i = 0; i < p.size(); ++i) {
        while (k >= 2 && cross(h[k - 2], h[k - 1], p[i]) <= 0) --k;
        h[k++] = p[i];
    }
    for (std::size_t i = p.size() - 1, t = k + 1; i > 0; --i) {
        while (k >= t && cross(h[k - 2], h[k - 1], p[i - 1]) <= 0) --k;
        h[k++] = p[i - 1];
    }
    h.resize(k - 1);
    long s = 0;
    for (std::size_t i = 0; i < h.size(); ++i) {
        const auto& a = h[i];
        const auto& b = h[(i + 1) % h.size()];
        s += a[0] * b[1] - a[1] * b[0];
    }
    return std::labs(s);
}

Pts random_points(Rng& rng, long m, long n, long r) {
    Pts p(static_cast<std::size_t>(m), std::vector<long>(static_cast<std::size_t>(n)));
    for (auto& x : p)
        for (auto& c : x) c = rng.range(-r, r);
    return p;
}

// x -> U x + t for a random unimodular U (elementary operations with small multipliers).
Pts unimodular_image(Rng& rng, const Pts& p, long n) {
    std::vector<std::vector<long>> U(static_cast<std::size_t>(n), std::vector<long>(static_cast<std::size_t>(n), 0));
    for (long i = 0; i < n; ++i) U[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 1;
    for (int k = 0; k < 3 * n && n > 1; ++k) {
        const long i = static_cast<long>(rng.below(static_cast<std::uint64_t>(n)));
        long j = static_cast<long>(rng.below(static_cast<std::uint64_t>(n - 1)));
        if (j >= i) ++j;
        const long c = rng.range(-1, 1);
        for (long col = 0; col < n; ++col) U[static_cast<std::size_t>(i)][static_cast<std::size_t>(col)] += c * U[static_cast<std::size_t>(j)][static_cast<std::size_t>(col)];
    }
    std::vector<long> t(static_cast<std::size_t>(n));
    for (auto& x : t) x = rng.range(-5, 5);
    Pts out;
    for (const auto& x : p) {
        std::vector<long> y(static_cast<std::size_t>(n), 0);
        for (long i = 0; i < n; ++i) {
            y[static_cast<std::size_t>(i)] = t[static_cast<std::size_t>(i)];
            for (long j = 0; j < n; ++j) y[static_cast<std::size_t>(i)] += U[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] * x[static_cast<std::size_t>(j)];
        }
        out.push_back(y);
    }
    return out;
}

}  // namespace

TEST_CASE("normalized_volume: boxes, simplices, cross-polytopes and cones over boxes, in closed form") {
    for (long n = 1; n <= 6; ++n) {
        INFO("n = " << n);
        Pts simplex = {std::vector<long>(static_cast<std::size_t>(n), 0)};
        Pts cross;
        for (long i = 0; i < n; ++i) {
            std::vector<long> e(static_cast<std::size_t>(n), 0);
            e[static_cast<std::size_t>(i)] = 1;
            simplex.push_back(e);
            cross.push_back(e);
            e[static_cast<std::size_t>(i)] = -1;
            cross.push_back(e);
        }
        CHECK(normalized_volume(simplex, n) == Integer(1));
        CHECK(normalized_volume(cross, n) == Integer(1L << n));
        std::vector<long> sides;
        for (long i = 0; i < n; ++i) sides.push_back(1 + (i * 5 + 2) % 4);
        const long vol_box = std::accumulate(sides.begin(), sides.end(), 1L, std::multiplies<>());
        CHECK(normalized_volume(box(sides), n) == factorial(n) * Integer(vol_box));
        // conv(0, {e_a, e_b} × B) in dimension m + 2 for a box B of dimension m: (m + 1)!·vol B
        // (the Newton polytope of a chain of filters' section, docs/variety.md).
        if (n <= 4) {
            Pts cone = {std::vector<long>(static_cast<std::size_t>(n) + 2, 0)};
            for (const auto& b : box(sides))
                for (long c = 0; c < 2; ++c) {
                    auto q = b;
                    q.push_back(c == 0 ? 1 : 0);
                    q.push_back(c == 1 ? 1 : 0);
                    cone.push_back(q);
                }
            CHECK(normalized_volume(cone, n + 2) == factorial(n + 1) * Integer(vol_box));
        }
    }
}

TEST_CASE("normalized_volume: random sets against the shoelace, determinants and its invariances") {
    INFO("seed " << seprank_test::seed());
    Rng rng(seprank_test::seed() ^ 0x706f6c79ULL);
    for (int it = 0; it < 300; ++it) {
        const Pts p = random_points(rng, 1 + static_cast<long>(rng.below(25)), 2, 1 + static_cast<long>(rng.below(9)));
        INFO("plane, iteration " << it);
        CHECK(normalized_volume(p, 2) == Integer(twice_hull_area(p)));
    }
    for (int it = 0; it < 120; ++it) {
        const long n = 1 + static_cast<long>(rng.below(5));
        INFO("iteration " << it << ", n = " << n);
        // a simplex: |det| of its edge vectors
        const Pts s = random_points(rng, n + 1, n, 6);
        ZMat m(n, n);
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j)
                fmpz_set_si(fmpz_mat_entry(m.get(), i, j), s[static_cast<std::size_t>(i) + 1][static_cast<std::size_t>(j)] - s[0][static_cast<std::size_t>(j)]);
        Integer d;
        fmpz_mat_det(d.get(), m.get());
        fmpz_abs(d.get(), d.get());
        CHECK(normalized_volume(s, n) == d);
        // any set: order, translation and unimodular maps keep it; midpoints add nothing
        Pts p = random_points(rng, 2 + static_cast<long>(rng.below(30)), n, 1 + static_cast<long>(rng.below(4)));
        const Integer v = normalized_volume(p, n);
        Pts q = p;
        std::reverse(q.begin(), q.end());
        CHECK(normalized_volume(q, n) == v);
        CHECK(normalized_volume(unimodular_image(rng, p, n), n) == v);
        for (std::size_t a = 0; a + 1 < p.size(); a += 2) {
            std::vector<long> mid(static_cast<std::size_t>(n));
            bool lattice = true;
            for (long j = 0; j < n; ++j) {
                const long s2 = p[a][static_cast<std::size_t>(j)] + p[a + 1][static_cast<std::size_t>(j)];
                lattice = lattice && s2 % 2 == 0;
                mid[static_cast<std::size_t>(j)] = s2 / 2;
            }
            if (lattice) q.push_back(mid);
        }
        CHECK(normalized_volume(q, n) == v);
        // scaling by 2^15 takes the volume to 2^(15n) times it, past the 128-bit path
        Pts big = p;
        for (auto& x : big)
            for (auto& c : x) c *= 1L << 15;
        Integer scaled = v;
        fmpz_mul_2exp(scaled.get(), scaled.get(), static_cast<ulong>(15 * n));
        CHECK(normalized_volume(big, n) == scaled);
    }
}

TEST_CASE("normalized_volume: degenerate sets, thinning and bad input") {
    CHECK(normalized_volume({}, 3) == Integer(0));
    CHECK(normalized_volume({{1, 2, 3}}, 3) == Integer(0));
    CHECK(normalized_volume({{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {5, 0, 5}}, 3) == Integer(0));  // a plane
    CHECK(normalized_volume({{0, 0}, {0, 0}, {3, 0}, {0, 2}}, 2) == Integer(6));             // repeats
    // the box's thinning keeps its 2^n corners, and the volume
    const Pts b = box({2, 3, 1});
    const Pts kept = drop_midpoints(b, 3);
    for (const auto& corner : Pts{{0, 0, 0}, {2, 0, 0}, {0, 3, 0}, {0, 0, 1}, {2, 3, 1}})
        CHECK(std::find(kept.begin(), kept.end(), corner) != kept.end());
    CHECK(kept.size() < b.size());
    CHECK(normalized_volume(kept, 3) == normalized_volume(b, 3));
    CHECK_THROWS_AS(normalized_volume({{0}}, 0), invalid_input);
    CHECK_THROWS_AS(normalized_volume({{0, 1}, {1}}, 2), invalid_input);
    CHECK_THROWS_AS(normalized_volume({{0, (1L << 20) + 1}}, 2), invalid_input);
    CHECK_THROWS_AS(normalized_volume(box({3, 3, 3, 3}), 4, 3), resource_limit);
}
