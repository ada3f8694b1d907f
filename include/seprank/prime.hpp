// seprank — word-size primes for modular arithmetic.
//
// Primality uses FLINT's n_is_prime, which is a proof for every 64-bit integer
// (BPSW has no counterexample below 2^64, verified exhaustively).
#pragma once

#include <cstdint>

namespace seprank {

class Rng;

// Largest prime < n; n >= 3 checked (invalid_input). Cost: one primality test per
// candidate below n, about ln n of them on average (the prime gap).
std::uint64_t prev_prime(std::uint64_t n);

// A prime with exactly `bits` bits (2 <= bits <= 64, checked), uniform among them: odd
// candidates drawn uniformly from [2^(bits-1), 2^bits) until one is prime. Expected cost
// about (bits ln 2)/2 primality tests.
std::uint64_t random_prime(Rng& rng, unsigned bits);

// A proven lower bound on the number of primes with exactly `bits` bits (2..64, checked):
// counted below 20 bits, Dusart's bounds on pi(x) above (within 3% of the count from 20
// bits, about 1% from 30). The failure bounds of a random prime divide by it. Cost O(2^bits)
// primality tests below 20 bits, O(1) above.
double prime_count_lower_bound(unsigned bits);

// Throws invalid_input naming p unless p is prime (BPSW, a proof below 2^64). FLINT's
// eliminations mod n invert pivots and abort on a non-invertible one: call this first.
// One primality test, O(1) on a word.
void require_prime(std::uint64_t p);

// The largest prime below 2^62: the default modulus for black-box ranks (products of
// two residues fit FLINT's nmod arithmetic without the 2^63 slow paths).
inline constexpr std::uint64_t kDefaultPrime = 4611686018427387847ULL;  // 2^62 - 57

}  // namespace seprank
