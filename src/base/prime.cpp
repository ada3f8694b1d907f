#include "seprank/prime.hpp"

#include "seprank/error.hpp"
#include "seprank/random.hpp"

#include <flint/ulong_extras.h>
#include <cmath>
#include <string>

namespace seprank {

std::uint64_t prev_prime(std::uint64_t n) {
    if (n < 3) throw invalid_input("prev_prime: no prime below " + std::to_string(n));
    for (std::uint64_t k = n - 1;; --k)
        if (n_is_prime(k)) return k;
}

std::uint64_t random_prime(Rng& rng, unsigned bits) {
    if (bits < 2 || bits > 64) throw invalid_input("random_prime: bits = " + std::to_string(bits) + " outside [2, 64]");
    if (bits == 2) return rng.below(2) == 0 ? 2 : 3;
    // Every prime of 3 or more bits is odd: uniform odd candidates in [2^(bits-1), 2^bits),
    // the first prime among them returned, so each prime is drawn with the same probability
    // (the failure bounds that count primes rely on it). About (bits ln 2) / 2 candidates.
    const std::uint64_t lo = std::uint64_t{1} << (bits - 1);
    for (;;) {
        const std::uint64_t k = lo + 1 + 2 * rng.below(lo / 2);
        if (n_is_prime(k)) return k;
    }
}

double prime_count_lower_bound(unsigned bits) {
    if (bits < 2 || bits > 64) throw invalid_input("prime_count_lower_bound: bits = " + std::to_string(bits) + " outside [2, 64]");
    if (bits < 20) {  // counted
        const std::uint64_t lo = std::uint64_t{1} << (bits - 1);
        std::uint64_t count = 0;
        for (std::uint64_t k = lo; k < 2 * lo; ++k) count += n_is_prime(k) ? 1 : 0;
        return static_cast<double>(count);
    }
    // Dusart (1999): x/ln x (1 + 1/ln x) <= pi(x) for x >= 599, and
    // pi(x) <= x/ln x (1 + 1/ln x + 2.51/ln^2 x) for x >= 355991 (2^19 > 355991).
    const auto lower = [](double x) {
        const double l = std::log(x);
        return x / l * (1 + 1 / l);
    };
    const auto upper = [](double x) {
        const double l = std::log(x);
        return x / l * (1 + 1 / l + 2.51 / (l * l));
    };
    const double hi = std::ldexp(1.0, static_cast<int>(bits)), lo = std::ldexp(1.0, static_cast<int>(bits) - 1);
    return (lower(hi) - upper(lo)) * (1 - 1e-12);  // the margin covers the rounding of doubles
}

void require_prime(std::uint64_t p) {
    if (p < 2 || !n_is_prime(p)) throw invalid_input("modulus " + std::to_string(p) + " is not prime: ranks mod n need a prime");
}

}  // namespace seprank
