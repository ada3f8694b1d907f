#include "seprank/prime.hpp"

#include "seprank/error.hpp"
#include "seprank/random.hpp"

#include <flint/ulong_extras.h>
#include <string>

namespace seprank {

std::uint64_t prev_prime(std::uint64_t n) {
    if (n < 3) throw invalid_input("prev_prime: no prime below " + std::to_string(n));
    for (std::uint64_t k = n - 1;; --k)
        if (n_is_prime(k)) return k;
}

std::uint64_t random_prime(Rng& rng, unsigned bits) {
    if (bits < 2 || bits > 64) throw invalid_input("random_prime: bits = " + std::to_string(bits) + " outside [2, 64]");
    const std::uint64_t lo = std::uint64_t{1} << (bits - 1);
    const std::uint64_t span = lo;  // [lo, 2 lo)
    const std::uint64_t start = lo + rng.below(span);
    const std::uint64_t hi_excl = bits == 64 ? 0 : lo << 1;  // 0 stands for 2^64
    for (std::uint64_t k = start; k != hi_excl; ++k)
        if (n_is_prime(k)) return k;
    for (std::uint64_t k = start; k >= lo; --k)
        if (n_is_prime(k)) return k;
    throw domain_error("random_prime: no prime with " + std::to_string(bits) + " bits");  // unreachable for bits >= 2
}

void require_prime(std::uint64_t p) {
    if (p < 2 || !n_is_prime(p)) throw invalid_input("modulus " + std::to_string(p) + " is not prime: ranks mod n need a prime");
}

}  // namespace seprank
