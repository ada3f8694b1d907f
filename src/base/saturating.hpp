// seprank (internal) — counts that stop at a cap instead of overflowing: the sizes of
// monomial spaces, parameter spaces and block caps, which are compared with ranks and
// would otherwise wrap for large networks. One definition for the modules that need one
// (network's layer counts, analysis's variety and block law, study's claims).
#pragma once

#include <algorithm>
#include <climits>
#include <vector>

namespace seprank::detail {

// a·b for a, b >= 0, or LONG_MAX when that overflows. O(1).
inline long sat_mul(long a, long b) { return (b != 0 && a > LONG_MAX / b) ? LONG_MAX : a * b; }

// C(n, k) for n, k >= 0 (0 when k > n), or `cap` when it is cap or more (cap >= 1).
// Exact below the cap: each step v·(n − r + i)/i is a binomial, formed in 128 bits.
// Precondition n, k >= 0. Cost O(min(k, n − k)), less once it reaches the cap.
inline long binomial_saturated(long n, long k, long cap = LONG_MAX) {
    if (k > n) return 0;
    __extension__ typedef unsigned __int128 u128;  // GCC/Clang extension, as FLINT uses
    const long r = std::min(k, n - k);
    u128 v = 1;
    for (long i = 1; i <= r; ++i) {
        v = v * static_cast<u128>(n - r + i) / static_cast<u128>(i);
        if (v >= static_cast<u128>(cap)) return cap;
    }
    return static_cast<long>(v);
}

// Σ v, saturating at LONG_MAX/4 as each degree-block cap does (degree_block_caps): a sum
// that saturated is never equal to a rank. Precondition: entries >= 0. O(|v|).
inline long saturated_sum(const std::vector<long>& v) {
    long sum = 0;
    for (long c : v) sum = c >= LONG_MAX / 4 || sum >= LONG_MAX / 4 - c ? LONG_MAX / 4 : sum + c;
    return sum;
}

}  // namespace seprank::detail
