#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/random.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <vector>

using namespace seprank;

TEST_CASE("xoshiro256** stream matches the independent reference (tests/reference/xoshiro256ss.py)") {
    Rng a(0), b(12345);
    const std::vector<std::uint64_t> ra = {11091344671253066420ULL, 13793997310169335082ULL, 1900383378846508768ULL};
    const std::vector<std::uint64_t> rb = {13720838825685603483ULL, 2398916695208396998ULL, 17770384849984869256ULL};
    for (int i = 0; i < 3; ++i) {
        CHECK(a.next() == ra[i]);
        CHECK(b.next() == rb[i]);
    }
}

TEST_CASE("same seed, same stream; split streams differ") {
    auto base = seprank_test::rng_for("split");
    Rng x = base, y = base;
    for (int i = 0; i < 100; ++i) REQUIRE(x.next() == y.next());
    Rng c1 = x.split(1), c2 = x.split(1);
    int equal = 0;
    for (int i = 0; i < 64; ++i) equal += c1.next() == c2.next();
    CHECK(equal < 2);
}

TEST_CASE("below(n) stays in range and is roughly uniform") {
    auto rng = seprank_test::rng_for("below");
    INFO("seed " << seprank_test::seed());
    for (std::uint64_t n : {1ULL, 2ULL, 3ULL, 7ULL, 1000ULL, (1ULL << 63) + 1, ~0ULL}) {
        for (int i = 0; i < seprank_test::iterations(1000); ++i) REQUIRE(rng.below(n) < n);
    }
    // chi-square with 9 degrees of freedom; 40 is beyond the 99.99th percentile.
    std::vector<int> counts(10, 0);
    const int draws = 100000;
    for (int i = 0; i < draws; ++i) ++counts[rng.below(10)];
    double chi = 0;
    for (int c : counts) chi += (c - draws / 10.0) * (c - draws / 10.0) / (draws / 10.0);
    CHECK(chi < 40.0);
    CHECK_THROWS_AS(rng.below(0), invalid_input);
}

TEST_CASE("range and big respect their bounds") {
    auto rng = seprank_test::rng_for("range");
    INFO("seed " << seprank_test::seed());
    bool saw_lo = false, saw_hi = false;
    for (int i = 0; i < seprank_test::iterations(2000); ++i) {
        auto v = rng.range(-3, 3);
        REQUIRE(v >= -3);
        REQUIRE(v <= 3);
        saw_lo |= v == -3;
        saw_hi |= v == 3;
    }
    CHECK(saw_lo);
    CHECK(saw_hi);
    CHECK(rng.range(INT64_MIN, INT64_MAX) != 0);  // full span path; zero has probability 2^-64
    CHECK_THROWS_AS(rng.range(2, 1), invalid_input);
    for (unsigned bits : {0u, 1u, 63u, 64u, 65u, 200u}) {
        for (int i = 0; i < 100; ++i) REQUIRE(fmpz_bits(rng.big(bits).get()) <= bits);
    }
    CHECK_THROWS_AS(rng.big(5000), invalid_input);
}
