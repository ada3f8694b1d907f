// Matrices mod p for the tests of the blocked elimination (rank_modular_blocked in
// test_rank.cpp, rank_modular_cuda in test_device.cpp): planted ranks and rank profiles
// that are not generic. Each kind is built so that its rank mod p is known or bounded,
// and the tests compare with FLINT's nmod_mat_rank (rank_modular) in any case.
#pragma once

#include "seprank/matrix.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/nmod_mat.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace seprank_test {

enum class Planted {
    random,          // uniform entries: full rank except with chance about 1/p
    product,         // (m x r)(r x n) of uniform factors: rank <= r
    zero,            // rank 0
    leading_zero,    // a product whose first z columns are zero
    dependent_rows,  // a product whose first rows are combinations of later ones
    antidiagonal,    // a permuted identity on the antidiagonal: every leading minor below the full one vanishes
    permutation,     // a random partial permutation matrix times a random scalar per entry
    sparse,          // a product with factors of density about 5 %
    no_leading_minor,// rows shifted: row i holds a random vector in columns > i only below a zero first column
    count
};

inline const char* name(Planted k) {
    switch (k) {
    case Planted::random: return "random";
    case Planted::product: return "product";
    case Planted::zero: return "zero";
    case Planted::leading_zero: return "leading-zero-columns";
    case Planted::dependent_rows: return "dependent-leading-rows";
    case Planted::antidiagonal: return "antidiagonal";
    case Planted::permutation: return "partial-permutation";
    case Planted::sparse: return "sparse";
    case Planted::no_leading_minor: return "no-leading-minor";
    default: return "?";
    }
}

inline std::uint64_t uniform(seprank::Rng& rng, std::uint64_t p) { return rng.below(p); }
inline std::uint64_t nonzero(seprank::Rng& rng, std::uint64_t p) { return 1 + rng.below(p - 1); }

// (m x r)(r x n) with entries non-zero with chance `density`.
inline seprank::NmodMat product(seprank::Rng& rng, long m, long n, long r, std::uint64_t p, double density = 1.0) {
    seprank::NmodMat a(m, r, p), b(r, n, p), c(m, n, p);
    const auto draw = [&](seprank::NmodMat& x) {
        for (long i = 0; i < x.rows(); ++i)
            for (long j = 0; j < x.cols(); ++j)
                if (density >= 1.0 || rng.below(1000) < density * 1000) x.set(i, j, uniform(rng, p));
    };
    draw(a);
    draw(b);
    if (m > 0 && n > 0 && r > 0) nmod_mat_mul(c.get(), a.get(), b.get());
    return c;
}

// An m x n matrix of kind k mod p; r is the inner dimension of the products (rank <= r).
inline seprank::NmodMat planted(seprank::Rng& rng, Planted k, long m, long n, long r, std::uint64_t p) {
    using seprank::NmodMat;
    switch (k) {
    case Planted::random: {
        NmodMat a(m, n, p);
        for (long i = 0; i < m; ++i)
            for (long j = 0; j < n; ++j) a.set(i, j, uniform(rng, p));
        return a;
    }
    case Planted::product: return product(rng, m, n, r, p);
    case Planted::zero: return NmodMat(m, n, p);
    case Planted::leading_zero: {
        NmodMat a = product(rng, m, n, r, p);
        const long z = n == 0 ? 0 : static_cast<long>(rng.below(static_cast<std::uint64_t>(n)));
        for (long i = 0; i < m; ++i)
            for (long j = 0; j < z; ++j) a.set(i, j, 0);
        return a;
    }
    case Planted::dependent_rows: {
        // rows [0, d) are combinations of rows [d, m): the first d rows are dependent on the rest
        NmodMat a = product(rng, m, n, r, p);
        const long d = m / 2;
        for (long i = 0; i < d && m - d > 0; ++i) {
            const long s1 = d + static_cast<long>(rng.below(static_cast<std::uint64_t>(m - d)));
            const long s2 = d + static_cast<long>(rng.below(static_cast<std::uint64_t>(m - d)));
            const std::uint64_t c1 = uniform(rng, p), c2 = uniform(rng, p);
            for (long j = 0; j < n; ++j)
                a.set(i, j, (nmod_add(nmod_mul(c1, a.at(s1, j), a.get()->mod), nmod_mul(c2, a.at(s2, j), a.get()->mod), a.get()->mod)));
        }
        return a;
    }
    case Planted::antidiagonal: {
        NmodMat a(m, n, p);
        for (long i = 0; i < std::min(m, n); ++i) a.set(i, n - 1 - i, nonzero(rng, p));
        return a;
    }
    case Planted::permutation: {
        // r entries at distinct rows and columns, both drawn at random: rank min(r, m, n)
        NmodMat a(m, n, p);
        std::vector<long> rows(static_cast<std::size_t>(m)), cols(static_cast<std::size_t>(n));
        for (long i = 0; i < m; ++i) rows[static_cast<std::size_t>(i)] = i;
        for (long j = 0; j < n; ++j) cols[static_cast<std::size_t>(j)] = j;
        for (long i = m - 1; i > 0; --i) std::swap(rows[static_cast<std::size_t>(i)], rows[rng.below(static_cast<std::uint64_t>(i + 1))]);
        for (long j = n - 1; j > 0; --j) std::swap(cols[static_cast<std::size_t>(j)], cols[rng.below(static_cast<std::uint64_t>(j + 1))]);
        for (long t = 0; t < std::min({r, m, n}); ++t)
            a.set(rows[static_cast<std::size_t>(t)], cols[static_cast<std::size_t>(t)], nonzero(rng, p));
        return a;
    }
    case Planted::sparse: return product(rng, m, n, r, p, 0.05);
    case Planted::no_leading_minor: {
        // column 0 is zero, and row i is zero in columns <= i: every leading k x k minor
        // (k >= 1) has a zero first column, so no pivot sits on the diagonal.
        NmodMat a(m, n, p);
        for (long i = 0; i < m; ++i)
            for (long j = i + 1; j < n; ++j)
                if (rng.below(4) != 0) a.set(i, j, uniform(rng, p));
        return a;
    }
    default: return NmodMat(m, n, p);
    }
}

// An m x n matrix of rank min(m - d, n) except with chance below 2/p: uniform entries,
// then d rows (drawn at random) overwritten by combinations of 2 or 3 of the other rows.
// O(m n) draws: cheap even at 32768 x 32768, where a product of factors is not. p < 2^63.
inline void plant_dependent_rows(seprank::Rng& rng, std::uint64_t* a, long m, long n, long d, std::uint64_t p) {
    for (long e = 0; e < m * n; ++e) a[e] = uniform(rng, p);
    if (d <= 0 || d >= m) return;
    std::vector<char> dead(static_cast<std::size_t>(m), 0);
    for (long k = 0; k < d;) {
        const long i = static_cast<long>(rng.below(static_cast<std::uint64_t>(m)));
        if (!dead[static_cast<std::size_t>(i)]) dead[static_cast<std::size_t>(i)] = 1, ++k;
    }
    const auto live = [&]() {
        for (;;) {
            const long i = static_cast<long>(rng.below(static_cast<std::uint64_t>(m)));
            if (!dead[static_cast<std::size_t>(i)]) return i;
        }
    };
    for (long i = 0; i < m; ++i) {
        if (!dead[static_cast<std::size_t>(i)]) continue;
        const int terms = 2 + static_cast<int>(rng.below(2));
        std::vector<std::uint64_t> row(static_cast<std::size_t>(n), 0);
        __extension__ typedef unsigned __int128 u128;
        for (int t = 0; t < terms; ++t) {
            const long s = live();
            const std::uint64_t c = nonzero(rng, p);
            for (long j = 0; j < n; ++j)
                row[static_cast<std::size_t>(j)] = static_cast<std::uint64_t>(
                    (row[static_cast<std::size_t>(j)] + static_cast<u128>(c) * a[s * n + j] % p) % p);
        }
        std::copy(row.begin(), row.end(), a + i * n);
    }
}

inline seprank::NmodMat dependent_rows_matrix(seprank::Rng& rng, long m, long n, long d, std::uint64_t p) {
    std::vector<std::uint64_t> dense(static_cast<std::size_t>(m * n));
    plant_dependent_rows(rng, dense.data(), m, n, d, p);
    seprank::NmodMat a(m, n, p);
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j) a.get()->rows[i][j] = dense[static_cast<std::size_t>(i * n + j)];
    return a;
}

// A matrix whose first leaf cannot find its pivots in the top (blocked_rank_impl.hpp, the
// leaf step): m x n (m > 2 kLeafTop, n > kLeaf); rows [0, 2 kLeafTop) random in column 0 and
// beyond the first leaf, zero in its other columns (the top's 64 rows give column 0 its
// pivot and nothing else), the rows after them random. Full rank min(m, n) except with
// chance below m n / p (for p large). With zero_top, rows [0, zero_top) are zero instead
// (the top's scan skips them; no leaf needs to run again).
inline seprank::NmodMat leaf_fallback_matrix(seprank::Rng& rng, long m, long n, std::uint64_t p, long zero_top = 0) {
    seprank::NmodMat a(m, n, p);
    const long narrow = 2 * 64;
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j) {
            const bool zero = i < zero_top || (zero_top == 0 && i < narrow && j > 0 && j < 32);
            a.get()->rows[i][j] = zero ? 0 : rng.below(p);
        }
    return a;
}

// The primes of blocked_case: any (both modes), small (p <= 2^26: one double per product)
// or two-limb (2^26 < p < 2^46: four limb GEMMs per product, two below 2^31 with one-sided
// limbs, src/algebra/blocked_rank_impl.hpp).
enum class Primes { any, small, two_limb };

// One random case of the blocked elimination's comparisons, for iteration `it`. The prime,
// small: every third a random one of 2..26 bits, else 2, 3, small, the largest below 2^23
// (one GEMM per 256-wide panel) or below 2^26 (K = 8: every panel update in chunks) and
// their neighbours; two-limb: every third a random one of 27..46 bits, else the first
// primes above 2^26, a 31-bit one, 2^31 - 1 and the next prime (the last of the one-sided
// limbs and the first of four products), one near 2^36 and 2^40, the largest below 2^46 (the
// limit) and its neighbour; any: every fourth case two-limb, the others small. The kind cycles through Planted; the tile is drawn from 0 (default) and
// 1..100. The shape cycles through 1 x n (0 included), n x 1, 0 x n, above the default tile
// and not a multiple of it (257 + up to `wide`), and small; r, the inner rank to plant, is
// in 0..min(m, n) + 1.
struct BlockedCase {
    std::uint64_t p = 2;
    Planted kind = Planted::random;
    int tile = 0;
    long m = 0, n = 0, r = 0;
};
inline BlockedCase blocked_case(seprank::Rng& rng, int it, long wide, Primes primes = Primes::any) {
    static const std::uint64_t fixed[] = {2, 3, 5, 7, 251, 65521, 8388593, seprank::prev_prime(8388593), 67108859 /* below 2^26 */,
                                          seprank::prev_prime(67108859)};
    static const std::uint64_t fixed_wide[] = {67108879 /* the first prime above 2^26 */, 67108913 /* the next */,
                                               1080880789 /* a 31-bit prime: one-sided limbs */, 2147483647 /* 2^31 - 1, their last */,
                                               2147483659 /* the first above 2^31: four products */, 68719476767 /* the first above 2^36 */, 1099511627689 /* the last below 2^40 */,
                                               seprank::blocked_max_prime /* below 2^46 */, seprank::prev_prime(seprank::blocked_max_prime)};
    static const int tiles[] = {0, 1, 2, 3, 8, 31, 33, 64, 100};
    BlockedCase c;
    const bool two_limb = primes == Primes::two_limb || (primes == Primes::any && it % 4 == 3);
    if (two_limb)
        c.p = it % 3 == 0 ? seprank::random_prime(rng, 27 + static_cast<unsigned>(rng.below(20))) : fixed_wide[rng.below(std::size(fixed_wide))];
    else
        c.p = it % 3 == 0 ? seprank::random_prime(rng, 2 + static_cast<unsigned>(rng.below(25))) : fixed[rng.below(std::size(fixed))];
    c.kind = static_cast<Planted>(it % static_cast<int>(Planted::count));
    c.tile = tiles[rng.below(std::size(tiles))];
    switch ((it / 9) % 6) {
    case 0: c.m = 1, c.n = static_cast<long>(rng.below(70)); break;
    case 1: c.m = static_cast<long>(rng.below(70)), c.n = 1; break;
    case 2: c.m = 0, c.n = static_cast<long>(rng.below(5)); break;
    case 3:
        c.m = 257 + static_cast<long>(rng.below(static_cast<std::uint64_t>(wide)));
        c.n = 257 + static_cast<long>(rng.below(static_cast<std::uint64_t>(wide)));
        break;
    default: c.m = 1 + static_cast<long>(rng.below(90)), c.n = 1 + static_cast<long>(rng.below(90));
    }
    c.r = static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(c.m, c.n) + 2)));
    return c;
}

}  // namespace seprank_test
