#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace seprank;

namespace {
bool trial_division_prime(std::uint64_t n) {
    if (n < 2) return false;
    for (std::uint64_t d = 2; d * d <= n; ++d)
        if (n % d == 0) return false;
    return true;
}
}  // namespace

TEST_CASE("prev_prime agrees with trial division") {
    for (std::uint64_t n = 3; n < 5000; ++n) {
        std::uint64_t p = prev_prime(n);
        REQUIRE(p < n);
        REQUIRE(trial_division_prime(p));
        for (std::uint64_t k = p + 1; k < n; ++k) REQUIRE(!trial_division_prime(k));
    }
    CHECK_THROWS_AS(prev_prime(2), invalid_input);
    CHECK(prev_prime(1ULL << 62) == kDefaultPrime);
    CHECK(prev_prime(1ULL << 63) == 9223372036854775783ULL);
}

TEST_CASE("random_prime has the requested size") {
    auto rng = seprank_test::rng_for("random-prime");
    INFO("seed " << seprank_test::seed());
    for (unsigned bits = 2; bits <= 64; ++bits) {
        for (int i = 0; i < 10; ++i) {
            std::uint64_t p = random_prime(rng, bits);
            REQUIRE((p >> (bits - 1)) == 1);
            if (bits <= 40) REQUIRE(trial_division_prime(p));
        }
    }
    CHECK_THROWS_AS(random_prime(rng, 1), invalid_input);
    CHECK_THROWS_AS(random_prime(rng, 65), invalid_input);
}
