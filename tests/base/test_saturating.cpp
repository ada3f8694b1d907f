// base/saturating.hpp (internal): the capped binomial and product against FLINT's exact ones.
#include "base/saturating.hpp"
#include "seprank/integer.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <flint/fmpz.h>

#include <climits>

using namespace seprank;

namespace {
// min(C(n, k), cap) from FLINT's exact binomial.
long capped_reference(long n, long k, long cap) {
    if (k > n) return 0;
    Integer c;
    fmpz_bin_uiui(c.get(), static_cast<ulong>(n), static_cast<ulong>(k));
    return fmpz_cmp_si(c.get(), cap) >= 0 ? cap : fmpz_get_si(c.get());
}
}  // namespace

TEST_CASE("binomial_saturated = min(C(n, k), cap) by FLINT: small, near 2^63, past it, every cap") {
    auto rng = seprank_test::rng_for("binomial-saturated");
    INFO("seed " << seprank_test::seed());
    for (long n = 0; n <= 70; ++n)
        for (long k = 0; k <= n + 2; ++k) {
            INFO("C(" << n << ", " << k << ")");
            REQUIRE(detail::binomial_saturated(n, k) == capped_reference(n, k, LONG_MAX));
        }
    for (int it = 0; it < seprank_test::iterations(3000); ++it) {
        const std::uint64_t kind = rng.below(4);
        const long n = kind == 0 ? static_cast<long>(rng.below(100)) : kind == 1 ? static_cast<long>(rng.below(1L << 20))
                     : kind == 2 ? static_cast<long>(rng.below(1L << 40)) : LONG_MAX - static_cast<long>(rng.below(8));
        const long k = rng.below(3) == 0 ? n - static_cast<long>(rng.below(5)) : static_cast<long>(rng.below(12));
        if (k < 0) continue;
        const long cap = rng.below(3) == 0 ? LONG_MAX : 1 + static_cast<long>(rng.below(1L << static_cast<int>(1 + rng.below(62))));
        INFO("C(" << n << ", " << k << ") capped at " << cap);
        CHECK(detail::binomial_saturated(n, k, cap) == capped_reference(n, k, cap));
    }
}

TEST_CASE("sat_mul = a·b, or LONG_MAX where that overflows") {
    auto rng = seprank_test::rng_for("sat-mul");
    for (int it = 0; it < seprank_test::iterations(3000); ++it) {
        const long a = static_cast<long>(rng.below(std::uint64_t{1} << (1 + rng.below(62))));
        const long b = static_cast<long>(rng.below(std::uint64_t{1} << (1 + rng.below(62))));
        __extension__ typedef __int128 i128;
        const i128 exact = static_cast<i128>(a) * b;
        INFO(a << " * " << b);
        CHECK(detail::sat_mul(a, b) == (exact > LONG_MAX ? LONG_MAX : static_cast<long>(exact)));
    }
    CHECK(detail::sat_mul(0, LONG_MAX) == 0);
    CHECK(detail::sat_mul(LONG_MAX, 0) == 0);
    CHECK(detail::sat_mul(LONG_MAX, 1) == LONG_MAX);
}
