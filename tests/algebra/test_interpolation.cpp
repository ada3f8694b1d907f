#include "algebra/interpolation.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include <string>
#include <vector>

using namespace seprank;
using algebra_detail::interpolate_total_degree;
using algebra_detail::InterpolationVariant;
using algebra_detail::monomials_upto;

namespace {

// J random polynomials of total degree <= deg (coefficients by monomials_upto's order),
// evaluated directly: the known answer an interpolation must give back.
struct Known {
    long n, J;
    std::uint64_t p;
    std::vector<std::vector<int>> mons;
    std::vector<std::vector<std::uint64_t>> coef;  // [monomial][j]
    long calls = 0;

    void operator()(const std::vector<std::uint64_t>& t, std::vector<std::uint64_t>& y) {
        ++calls;
        nmod_t mod;
        nmod_init(&mod, p);
        for (long j = 0; j < J; ++j) y[static_cast<std::size_t>(j)] = 0;
        for (std::size_t e = 0; e < mons.size(); ++e) {
            std::uint64_t v = 1;
            for (long i = 0; i < n; ++i) v = nmod_mul(v, n_powmod2_ui_preinv(t[static_cast<std::size_t>(i)], static_cast<std::uint64_t>(mons[e][static_cast<std::size_t>(i)]), mod.n, mod.ninv), mod);
            for (long j = 0; j < J; ++j) y[static_cast<std::size_t>(j)] = nmod_add(y[static_cast<std::size_t>(j)], nmod_mul(v, coef[e][static_cast<std::size_t>(j)], mod), mod);
        }
    }
};

Known random_known(Rng& rng, long n, long deg, long J, std::uint64_t p, double zero_share) {
    Known k{n, J, p, monomials_upto(n, deg), {}, 0};
    for (std::size_t e = 0; e < k.mons.size(); ++e) {
        std::vector<std::uint64_t> row(static_cast<std::size_t>(J));
        for (auto& x : row) x = rng.below(1000) < static_cast<std::uint64_t>(zero_share * 1000) ? 0 : rng.below(p);
        k.coef.push_back(row);
    }
    return k;
}

}  // namespace

TEST_CASE("monomials_upto: C(n + D, n) exponent vectors, by total degree") {
    CHECK(monomials_upto(1, 0).size() == 1);
    CHECK(monomials_upto(3, 4).size() == 35);
    CHECK(monomials_upto(4, 13).size() == 2380);
    const auto m = monomials_upto(3, 3);
    long last = 0;
    for (const auto& a : m) {
        long d = 0;
        for (int x : a) d += x;
        CHECK(d >= last);
        last = d;
    }
    CHECK(m.front() == std::vector<int>{0, 0, 0});
}

TEST_CASE("interpolate_total_degree: both variants give back random polynomials (seed printed)") {
    Rng rng = seprank_test::rng_for("interpolation random");
    INFO("SEPRANK_SEED=" << seprank_test::seed());
    const std::vector<std::uint64_t> primes = {3, 5, 101, 32749, 65521, 1152921504606846883ULL};
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const long n = 1 + static_cast<long>(rng.below(4));
        const long deg = static_cast<long>(rng.below(n == 1 ? 12 : 7));
        const long J = static_cast<long>(rng.below(5));  // 0 polynomials included
        std::uint64_t p = primes[static_cast<std::size_t>(rng.below(primes.size()))];
        if (static_cast<std::uint64_t>(deg) + 1 > p) p = 65521;
        const double zeros = it % 3 == 0 ? 0.9 : 0.0;  // sparse ones too
        Known k = random_known(rng, n, deg, J, p, zeros);
        CAPTURE(n);
        CAPTURE(deg);
        CAPTURE(J);
        CAPTURE(p);
        const std::uint64_t s1 = rng.below(1ULL << 40);
        Rng r1(s1), r2(rng.below(1ULL << 40));
        const auto newton = interpolate_total_degree(n, deg, J, p, std::ref(k), r1, InterpolationVariant::newton);
        REQUIRE(newton.ok);
        CHECK(k.calls == static_cast<long>(k.mons.size()));  // one call per node
        REQUIRE(newton.C.rows() == static_cast<long>(k.mons.size()));
        REQUIRE(newton.C.cols() == J);
        for (std::size_t e = 0; e < k.mons.size(); ++e)
            for (long j = 0; j < J; ++j) CHECK(newton.C.at(static_cast<long>(e), j) == k.coef[e][static_cast<std::size_t>(j)]);
        // The reference: its random nodes can be singular mod a small prime (no answer then);
        // where it answers, the two agree.
        const auto ref = interpolate_total_degree(n, deg, J, p, std::ref(k), r2, InterpolationVariant::reference);
        if (p > 1000) CHECK(ref.ok);
        if (ref.ok) CHECK(ref.C == newton.C);
        // The same nodes shared out between 1..4 threads: the same coefficients (the values
        // callback reentrant: it counts nothing here).
        Known quiet = k;
        const auto reentrant = [&quiet](const std::vector<std::uint64_t>& t, std::vector<std::uint64_t>& y) {
            Known local = quiet;
            local(t, y);
        };
        Rng r3(s1);
        const int th = 1 + static_cast<int>(rng.below(4));
        CHECK(interpolate_total_degree(n, deg, J, p, reentrant, r3, InterpolationVariant::newton, th).C == newton.C);
    }
}

TEST_CASE("interpolate_total_degree: the grid needs D + 1 residues; bad sizes refused") {
    Rng rng(7);
    Known k{1, 1, 5, monomials_upto(1, 4), {}, 0};
    for (std::size_t e = 0; e < k.mons.size(); ++e) k.coef.push_back({static_cast<std::uint64_t>(e)});
    const auto ok = interpolate_total_degree(1, 4, 1, 5, std::ref(k), rng);  // D + 1 = p: every residue a node
    REQUIRE(ok.ok);
    for (long e = 0; e < 5; ++e) CHECK(ok.C.at(e, 0) == static_cast<std::uint64_t>(e));
    CHECK(seprank_test::message_of([&] { interpolate_total_degree(1, 5, 1, 5, std::ref(k), rng); }) ==
          "interpolation: modulus 5 has fewer than D + 1 = 6 residues");
    // A composite modulus with enough residues: refused (a pivot inverse would abort FLINT).
    CHECK(seprank_test::message_of([&] { interpolate_total_degree(1, 4, 1, 15, std::ref(k), rng); }).find("15 is not prime") !=
          std::string::npos);
    CHECK(seprank_test::message_of([&] { interpolate_total_degree(0, 2, 1, 101, std::ref(k), rng); }) == "interpolation: 0 unknowns");
    CHECK(seprank_test::message_of([&] { interpolate_total_degree(1, -1, 1, 101, std::ref(k), rng); }) == "interpolation: degree -1 is negative");
    CHECK(seprank_test::message_of([&] { interpolate_total_degree(1, 2, 1, 101, std::ref(k), rng, InterpolationVariant::newton, 0); }) ==
          "interpolation: threads 0 must be in 1.." + std::to_string(max_threads()));
}
