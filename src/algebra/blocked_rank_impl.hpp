// seprank (internal) — rank mod p by blocked elimination on centred residues held in
// doubles: the algorithm shared by the CPU reference (src/algebra/rank_blocked.cpp,
// rank_modular_blocked) and the CUDA engine (cuda/rank.cu, sr_cuda_rank).
//
// FLINT-free C++17, compiled by g++ and by nvcc (as host code; the scalar helpers are
// __host__ __device__ there). The driver blocked_rank() decides everything: the panels, the
// pivot rule, the chunks of the delayed reduction and every edge case; a backend only
// carries out the operations listed at Backend below, on its own memory. So both devices
// run literally the same steps on the same values.
//
// Entries. A residue x mod p is held as the double in (-p/2, p/2] congruent to it (for odd
// p: [-(p-1)/2, (p-1)/2]; for p = 2: {0, 1}), so |x| <= h = floor(p/2). After every
// operation an entry is brought back to that range (reduce()): the stored values are
// canonical, whatever order a GEMM sums in.
//
// Exactness (delayed reduction, the idea of FFLAS-FFPACK). A product of two entries has
// |ab| <= h^2, and c + sum of K such products has |.| <= h + K h^2. Doubles hold every
// integer below 2^53 exactly, so when
//     K h^2 + h + 2p <= 2^53      (K = max_inner(p))
// every partial sum of a GEMM of inner dimension <= K, in any order, is exact; the 2p of
// margin keeps q*p exact in reduce(). For p < 2^23, K >= 512, so a 256-wide panel is one
// GEMM; at the largest accepted prime (kMaxPrime, just below 2^26) K = 8, and a wider
// product is split by the driver into chunks of K columns with a reduction after each.
//
// Two-limb mode (p > kMaxPrime, up to kMaxWidePrime = 2^46 - 21, the largest prime below
// 2^46). Entries are still centred residues held exactly in doubles (|x| <= h < 2^45), but
// a product of two no longer fits 53 bits, so:
//   - scalar operations (leaf elimination, inverse, the invert step, the combine below) use
//     exact 64-bit integer arithmetic: wide_mul computes a*b - q*p in 64-bit wrap-around
//     arithmetic with q = rint(a*b/p) estimated in doubles (error < 2^-7, so q is within
//     one of the nearest quotient and |a*b - q*p| < p, which 64 bits hold exactly);
//     wide_reduce does the same for an int64 |x| <= 2^62; the inverse is the extended
//     Euclidean algorithm on int32 below 2^31, else on int64 (every remainder and
//     coefficient is below p);
//   - every product C (+)= alpha A B (the multipliers and the trailing updates, the same
//     descriptions as above) becomes limb products: each operand entry is split as
//     x = x1 2^23 + x0 with x1 = rint(x / 2^23), so |x0|, |x1| <= 2^22 (|x| < 2^45) and a
//     limb product is at most 2^44 in size. The backend forms P2 = A1 B1, P1 = A1 B0 + A0 B1
//     and P0 = A0 B0 by four double GEMMs of inner dimension at most kWideInner = 256:
//     every partial sum is an integer of size <= 2 * 256 * 2^44 = 2^53, exact in any
//     order. combine then reduces C = beta C + alpha (P2 2^46 + P1 2^23 + P0) mod p into
//     (-p/2, p/2] in 64-bit integers (each P_i < 2^53 is an exact int64; wide_reduce of
//     each, wide_mul by 2^46 mod p and by 2^23, a sum below 4p, one more wide_reduce).
//     So every entry is reduced after every product: no lazy reduction in this mode.
//   - a trailing update is split by columns into slabs of at most wide_slab() columns (8
//     panels), so the three product buffers take 3 m slab doubles (not 3 m n; two with
//     one-sided limbs); the limbs
//     of M are split once per chunk and serve every slab.
//   - one-sided limbs (kMaxPrime < p <= kMaxHalfPrime = 2^31 - 1, every prime the GPU
//     draws): a centred entry is below 2^30, so only B is split, into 16-bit limbs
//     B = B1 2^16 + B0 (|B1| <= 2^14, |B0| <= 2^15), and A enters whole: P1 = A B1 and
//     P0 = A B0, two GEMMs of inner dimension at most 256, every partial sum of size
//     <= 256 * 2^30 * 2^15 = 2^53, exact. The combine is C = beta C + alpha (P1 2^16 + P0)
//     mod p (half_combine). The limbs of B are M's (or G's for the multipliers), split once
//     per chunk; A's slabs are read as they are, so they need no split either.
// Cost: 4 GEMMs of the same shape per product instead of 1 (2 with one-sided limbs), i.e.
// about (8/3) n^3 flops for a square matrix ((4/3) n^3), plus the splits and combines
// (memory-bound, O(m n) per panel).
// Why 2^46: it is the largest bound for which two 23-bit limbs of a centred entry stay
// within 2^22, so the middle sum P1 of a 256-wide chunk (2 * 256 products) is exact; a
// larger p would need narrower chunks (more combines) or a third limb (9 products).
//
// Algorithm. Row-major m x n matrix A; r = number of pivots found (rows [0, r) are the
// pivot rows, done; rows [r, m) are active). Columns go in panels of `tile` columns,
// each panel in leaves of kLeaf (32) columns (fewer at a panel's end):
//   leaf [b0, b1):  factor_leaf: for each column j in order, the pivot is the ACTIVE row
//                   of smallest index (as of the leaf's start) with a non-zero entry in
//                   column j; no pivot: the column is skipped. The pivot row leaves the
//                   active set; every other active row i gets l = A[i][j] / A[piv][j],
//                   stores l in A[i][j] and subtracts l * (pivot row) on columns (j, b1).
//                   Rows are not moved during the leaf.
//                   Two phases (both backends). The top: the first kLeafTop active rows
//                   that are non-zero in the leaf's columns (all of them if fewer), found
//                   by a scan in row order that ends at row e (after the last one taken,
//                   or m, or after kScanRows rows read). The rows skipped are zero in the leaf: they never change and are
//                   never pivots (dependent rows, once eliminated, stay among the first
//                   active rows; without the skip they would fill the top). First the step
//                   above on the top alone, then each row of [e, m) eliminated on its own
//                   with the pivots found there (no search). That is the same computation
//                   unless a row below is non-zero, at column j's turn, in a column j where
//                   the top found no pivot (the pivot is the least active row with a
//                   non-zero, and every row above e is in the top or zero); the rows below
//                   check exactly that, and then the leaf's columns are restored from a
//                   copy taken before (in G, which holds (m - r) x (b1 - b0) doubles and is
//                   free during a leaf) and the one-phase step runs. Why: on the GPU the
//                   one-phase step needs a grid-wide barrier per column; the top is one
//                   block (its rows in shared memory), and the rows below are independent.
//                   swap_rows: the driver turns the pivot rows into transpositions that
//                   bring them, in order, to rows r, r+1, ...; they are applied to whole
//                   rows, columns [panel start, n) (columns left of the panel are dead).
//                   Then the rest of the panel [b1, panel end) is updated as below
//                   (eliminate_right) with the leaf's pivots, and r grows by them.
//   panel [c0, c1): after its leaves, eliminate_right on columns [c1, n) with all of the
//                   panel's pivots.
//   eliminate_right(r, cols, k, [d0, d1)): the k pivot rows [r, r+k) have their
//                   multipliers in columns cols (unit lower L11, strictly below the
//                   diagonal), the rows below have theirs in the same columns (L21).
//                   gather: G = A[r.., cols]; invert: X = L11^-1; M = L21 X (chunks of
//                   at most K inner columns, reduced after each); then
//                   A[r+k.., d0..d1) -= M A[r..r+k, d0..d1) (chunks of at most K).
//                   Inside a panel each chunk is followed by a reduction. Right of the
//                   panel the reduction is lazy: the driver counts the products an entry
//                   may hold (at most K) and reduces the block only before one more chunk
//                   would exceed K; the next panel's columns and the pivot rows are
//                   reduced before they are read. For p < 2^23 and tile 256, the columns
//                   right of a panel are reduced after every second panel.
//                   Two-limb mode: chunks of at most kWideInner, each product through
//                   split / gemm / combine (above), so everything is reduced at once.
//                   Since the pivot rows are never used again, their right part need not
//                   be solved (U12 = L11^-1 A12 is folded into M): the non-pivot rows get
//                   A22 - L21 L11^-1 A12, the Schur complement of the eliminated block.
// Rank = number of pivots. The pivot rule handles any rank profile (zero columns,
// dependent leading rows, vanishing leading minors): a column is skipped exactly when the
// active rows are zero in it after the earlier eliminations.
//
// Cost: (2/3) n^3 flops for a square matrix, almost all in the two GEMMs of the panel
// updates, plus O(m n kLeaf) for the leaves and O(m n tile + n tile^2) for the multipliers;
// memory: the matrix (8 m n bytes) and workspace_doubles(m, n, tile) doubles.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__CUDACC__)
#define SR_BLOCKED_HD __host__ __device__
#else
#define SR_BLOCKED_HD
#endif

namespace seprank::blocked {

// Panel width when the caller gives 0 (the GPU's choice: a GEMM of inner dimension 256 is
// compute-bound on FP64 tensor cores, and p < 2^23 keeps it one GEMM).
inline constexpr int kDefaultTile = 256;
// Width of a leaf: the unblocked part. The GPU gives each column of a leaf to one lane of
// a warp, so it is at most 32.
inline constexpr int kLeaf = 32;
// The active rows of a leaf's first phase (the leaf step above; one block of the GPU's leaf
// kernel: 8 warps of 8 rows). Generic matrices find every pivot there.
inline constexpr std::int64_t kLeafTop = 64;
// The rows a leaf's scan for its top reads at most (16 rounds of the GPU's 256): on a very
// deficient tall matrix, whose leaf columns are zero on most rows, the scan would otherwise
// read every row in one block. A scan that stops at the cap with fewer than kLeafTop rows
// leaves the rest to the second phase, whose check runs the one-phase step where a row
// below holds a pivot the top lacks (the leaf step above): the same ranks either way.
inline constexpr std::int64_t kScanRows = 4096;
// The largest prime of the small-prime mode (one double per product): the largest prime below 2^26 (K = max_inner(p) >= 8 and every
// product of two entries below 2^50).
inline constexpr std::uint64_t kMaxPrime = 67108859;
// The largest prime of the two-limb mode: the largest prime below 2^46 (2^46 - 21; header
// comment). Primes in (kMaxPrime, kMaxWidePrime] take that mode.
inline constexpr std::uint64_t kMaxWidePrime = 70368744177643;
// Two-limb mode: the largest inner dimension of one limb GEMM (2 * 256 * 2^44 = 2^53), the
// limb base 2^23, and the width of the slabs a trailing update is split into, in panels.
inline constexpr std::int64_t kWideInner = 256;
inline constexpr double kLimb = 8388608.0;  // 2^23
inline constexpr std::int64_t kWideSlabPanels = 8;

// The largest prime of the one-sided limbs (header comment): 2^31 - 1, so that a centred
// entry is below 2^30 and a product with a 16-bit limb below 2^45. Their limb base 2^16.
inline constexpr std::uint64_t kMaxHalfPrime = 2147483647;
inline constexpr double kHalfLimb = 65536.0;  // 2^16

// Whether p takes the two-limb mode (either kind of limbs).
SR_BLOCKED_HD inline bool wide_mode(std::uint64_t p) { return p > kMaxPrime; }
// Whether the two-limb mode splits B alone, in 16-bit limbs (kMaxPrime < p <= 2^31 - 1).
SR_BLOCKED_HD inline bool half_mode(std::uint64_t p) { return p > kMaxPrime && p <= kMaxHalfPrime; }
// The limb base of the two-limb mode: 2^16 with one-sided limbs, else 2^23.
SR_BLOCKED_HD inline double limb_base(std::uint64_t p) { return half_mode(p) ? kHalfLimb : kLimb; }

// K: the largest inner dimension of an exact product (header comment), at most 2^30; in
// the two-limb mode (p > kMaxPrime), kWideInner, the inner dimension of a limb GEMM.
SR_BLOCKED_HD inline std::int64_t max_inner(std::uint64_t p) {
    if (p > kMaxPrime) return kWideInner;
    const std::uint64_t h = p / 2;
    const std::uint64_t lim = (std::uint64_t{1} << 53) - 2 * p - h;
    const std::uint64_t k = lim / (h * h);
    return static_cast<std::int64_t>(k > (std::uint64_t{1} << 30) ? (std::uint64_t{1} << 30) : k);
}

// x (an integer held exactly, |x| + 2p <= 2^53) brought to (-p/2, p/2]. q may be one off
// the nearest quotient (x * pinv rounds); one correction on either side fixes it. q*p is
// exact because |q*p| <= |x| + 3p/2 < 2^53, and so is the difference.
SR_BLOCKED_HD inline double reduce(double x, double p, double pinv) {
    const double q = rint(x * pinv);
    double r = x - q * p;
    const double half = 0.5 * p;
    if (r > half) r -= p;
    else if (r <= -half) r += p;
    if (r > half) r -= p;  // the second step is reached only when q was off by one
    else if (r <= -half) r += p;
    return r;
}

SR_BLOCKED_HD inline double mul(double a, double b, double p, double pinv) { return reduce(a * b, p, pinv); }

// The centred inverse of a non-zero centred residue mod p, by the extended Euclidean
// algorithm on the signed integers Int (every remainder and coefficient stays below p).
template <class Int>
SR_BLOCKED_HD inline double euclid_inverse(double a, std::uint64_t p) {
    const Int pi = static_cast<Int>(p);
    Int x = static_cast<Int>(a) % pi;
    if (x < 0) x += pi;
    Int r0 = pi, r1 = x, s0 = 0, s1 = 1;
    while (r1 != 0) {
        const Int q = r0 / r1;
        const Int r2 = r0 - q * r1;
        r0 = r1;
        r1 = r2;
        const Int s2 = s0 - q * s1;
        s0 = s1;
        s1 = s2;
    }
    Int inv = s0 % pi;
    if (inv < 0) inv += pi;
    if (inv > pi / 2) inv -= pi;
    return static_cast<double>(inv);
}

// On 32-bit integers (p < 2^26).
SR_BLOCKED_HD inline double inverse(double a, std::uint64_t p) { return euclid_inverse<std::int32_t>(a, p); }

// Two-limb mode (kMaxPrime < p <= kMaxWidePrime, odd; header comment). x (|x| <= 2^62)
// brought to [-h, h], h = (p-1)/2. q = rint(x / p) through doubles has an error below
// 2^-15 (|x / p| < 2^36), so |x - q p| < p/2 + 1 and one correction suffices; q p is exact
// in 64 bits (|q p| <= |x| + p).
SR_BLOCKED_HD inline std::int64_t wide_reduce(std::int64_t x, std::int64_t p, double pinv) {
    const std::int64_t q = static_cast<std::int64_t>(rint(static_cast<double>(x) * pinv));
    std::int64_t r = x - q * p;
    const std::int64_t h = p / 2;
    if (r > h) r -= p;
    else if (r < -h) r += p;
    return r;
}

// a b mod p, centred, for centred a, b (|a|, |b| <= h < 2^45). q = rint(a b / p) through
// doubles: three roundings of relative size <= 2^-53 on a value below p/4 < 2^44, so an
// error below 2^-7 and |a b - q p| < p (1/2 + 2^-7); that difference is computed exactly
// in 64-bit wrap-around arithmetic (the true value fits), then one correction.
SR_BLOCKED_HD inline std::int64_t wide_mul_i(std::int64_t a, std::int64_t b, std::int64_t p, double pinv) {
    const double q = rint(static_cast<double>(a) * static_cast<double>(b) * pinv);
    const std::uint64_t d = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b) -
                            static_cast<std::uint64_t>(static_cast<std::int64_t>(q)) * static_cast<std::uint64_t>(p);
    std::int64_t r = static_cast<std::int64_t>(d);
    const std::int64_t h = p / 2;
    if (r > h) r -= p;
    else if (r < -h) r += p;
    return r;
}

SR_BLOCKED_HD inline double wide_mul(double a, double b, double p, double pinv) {
    return static_cast<double>(wide_mul_i(static_cast<std::int64_t>(a), static_cast<std::int64_t>(b), static_cast<std::int64_t>(p), pinv));
}

// x - l y mod p, centred, for centred x, l, y: the leaf's elimination step.
SR_BLOCKED_HD inline double wide_submul(double x, double l, double y, double p, double pinv) {
    const std::int64_t pi = static_cast<std::int64_t>(p), h = pi / 2;
    std::int64_t r = static_cast<std::int64_t>(x) - wide_mul_i(static_cast<std::int64_t>(l), static_cast<std::int64_t>(y), pi, pinv);
    if (r > h) r -= pi;
    else if (r < -h) r += pi;
    return static_cast<double>(r);
}

// The centred inverse mod p < 2^63 (the two-limb mode): on 32-bit integers below 2^31 (every
// remainder and coefficient is below p; a 64-bit division costs several times a 32-bit one
// on a GPU, and the leaf waits for one inverse per column), else on 64-bit integers.
SR_BLOCKED_HD inline double wide_inverse(double a, std::uint64_t p) {
    return p < (std::uint64_t{1} << 31) ? euclid_inverse<std::int32_t>(a, p) : euclid_inverse<std::int64_t>(a, p);
}

// The high limb of a centred entry in base b (limb_base: 2^23 for |x| < 2^45, 2^16 for
// |x| < 2^30): rint(x / b), |x1| <= 2^22 (2^14); the low limb x - x1 b is in [-b/2, b/2].
// Both exact (scaling by a power of two is exact).
SR_BLOCKED_HD inline double limb_hi(double x, double b) { return rint(x * (1.0 / b)); }

// The combine of one entry: beta c + alpha (p2 2^46 + p1 2^23 + p0) mod p, centred.
// c centred, p2, p1, p0 integers of size <= 2^53 held in doubles; c46 = 2^46 mod p,
// centred. Every step is an exact 64-bit operation (wide_reduce, wide_mul_i).
SR_BLOCKED_HD inline double wide_combine(double c, double p2, double p1, double p0, double alpha, double beta, std::int64_t p, double pinv,
                                         std::int64_t c46) {
    const std::int64_t t2 = wide_mul_i(wide_reduce(static_cast<std::int64_t>(p2), p, pinv), c46, p, pinv);
    const std::int64_t t1 = wide_mul_i(wide_reduce(static_cast<std::int64_t>(p1), p, pinv), static_cast<std::int64_t>(kLimb), p, pinv);
    const std::int64_t t0 = wide_reduce(static_cast<std::int64_t>(p0), p, pinv);
    std::int64_t s = t2 + t1 + t0;  // |s| <= 3h
    if (alpha < 0) s = -s;
    if (beta != 0) s += static_cast<std::int64_t>(c);
    return static_cast<double>(wide_reduce(s, p, pinv));
}

// The combine of one-sided limbs: beta c + alpha (p1 2^16 + p0) mod p, centred, for c
// centred and p1, p0 integers of size <= 2^53 held in doubles (kMaxPrime < p <= 2^31 - 1).
// wide_reduce(p1) 2^16 + p0 is below 2^46 + 2^53 in size, within wide_reduce's 2^62.
SR_BLOCKED_HD inline double half_combine(double c, double p1, double p0, double alpha, double beta, std::int64_t p, double pinv) {
    std::int64_t s = wide_reduce(wide_reduce(static_cast<std::int64_t>(p1), p, pinv) * 65536 + static_cast<std::int64_t>(p0), p, pinv);
    if (alpha < 0) s = -s;
    if (beta != 0) s += static_cast<std::int64_t>(c);  // |s| <= 2h
    return static_cast<double>(wide_reduce(s, p, pinv));
}

// 2^46 mod p, centred (p odd, kMaxPrime < p <= kMaxWidePrime).
inline std::int64_t wide_c46(std::uint64_t p) {
    const std::uint64_t r = (std::uint64_t{1} << 46) % p;
    return r > p / 2 ? static_cast<std::int64_t>(r) - static_cast<std::int64_t>(p) : static_cast<std::int64_t>(r);
}

// The centred representative of v in [0, p).
SR_BLOCKED_HD inline double centred(std::uint64_t v, std::uint64_t p) {
    return v > p / 2 ? -static_cast<double>(p - v) : static_cast<double>(v);
}

// stage[e] = centred(in[e], p) for e < len, on `workers` threads (0 counts as 1), each a
// contiguous range; the index of the first entry that is not a residue mod p, or -1 (then
// stage is partly written). A thread that cannot be started leaves its range to the
// calling one, so no exception leaves while threads run (an unjoined std::thread ends the
// process). Host only: the GPU's upload (cuda/rank.cu) and its emulation (the tests).
// Precondition: len * workers < 2^63. Cost O(len) over the threads.
inline std::int64_t centre_on_host(const std::uint64_t* in, std::int64_t len, std::uint64_t p, double* stage, unsigned workers) {
    if (workers == 0) workers = 1;
    std::vector<std::int64_t> first_bad(workers, -1);
    auto part = [&](unsigned w) {
        const std::int64_t lo = len * w / workers, hi = len * (w + 1) / workers;
        for (std::int64_t e = lo; e < hi; ++e) {
            const std::uint64_t v = in[e];
            if (v >= p) {
                first_bad[w] = e;
                return;
            }
            stage[e] = centred(v, p);
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(workers);
    unsigned started = 1;
    try {
        for (; started < workers; ++started) pool.emplace_back(part, started);
    } catch (const std::system_error&) {
    }
    for (unsigned w = started; w < workers; ++w) part(w);
    part(0);
    for (std::thread& t : pool) t.join();
    for (const std::int64_t b : first_bad)  // ranges in order: the first found is the least
        if (b >= 0) return b;
    return -1;
}

// Whether 2 <= p <= kMaxPrime and p is prime (trial division: p < 2^26). O(sqrt p).
// The limit of the small-prime mode alone (the graded device session's).
inline bool accepted_prime(std::uint64_t p) {
    if (p < 2 || p > kMaxPrime) return false;
    for (std::uint64_t d = 2; d * d <= p; ++d)
        if (p % d == 0) return false;
    return true;
}

// Whether p is a prime the blocked elimination takes in either mode: 2 <= p <=
// kMaxWidePrime. Above kMaxPrime: Miller-Rabin with the bases 2..17, deterministic below
// 3.4e14 > 2^46 (Jaeschke). O(log p) 128-bit products.
inline bool accepted_rank_prime(std::uint64_t p) {
    if (p <= kMaxPrime) return accepted_prime(p);
    if (p > kMaxWidePrime || p % 2 == 0) return false;
    __extension__ typedef unsigned __int128 u128;
    const auto mulm = [p](std::uint64_t a, std::uint64_t b) { return static_cast<std::uint64_t>(static_cast<u128>(a) * b % p); };
    std::uint64_t d = p - 1;
    int s = 0;
    while (d % 2 == 0) d /= 2, ++s;
    for (const std::uint64_t a : {2u, 3u, 5u, 7u, 11u, 13u, 17u}) {
        if (p % a == 0) return false;
        std::uint64_t x = 1, b = a, e = d;
        for (; e > 0; e >>= 1, b = mulm(b, b))
            if (e & 1) x = mulm(x, b);
        if (x == 1 || x == p - 1) continue;
        bool witness = true;
        for (int i = 1; i < s && witness; ++i) {
            x = mulm(x, x);
            if (x == p - 1) witness = false;
        }
        if (witness) return false;
    }
    return true;
}

// The panel width used for a request (0: kDefaultTile), never more than max(n, 1).
inline std::int64_t effective_tile(int tile, std::int64_t n) {
    const std::int64_t t = tile == 0 ? kDefaultTile : tile;
    return std::max<std::int64_t>(1, std::min<std::int64_t>(t, n));
}

// Doubles of workspace a backend needs besides the matrix: G and M ((m x tile) each) and
// X (tile x tile), tile = effective_tile(tile, n).
inline std::int64_t workspace_doubles(std::int64_t m, std::int64_t n, int tile) {
    const std::int64_t t = effective_tile(tile, n);
    return 2 * m * t + t * t;
}

// Two-limb mode: the widest slab of columns of a trailing update, kWideSlabPanels panels
// (2048 columns at the default tile: the product buffers take 3 x 2048 m doubles, 2 x with
// one-sided limbs, and each
// limb GEMM is still 2048 x rows x 256), never more than n; never less than the panel
// (the multipliers' product, k <= tile rows, uses the same buffers). Small tiles give
// narrow slabs, so the tests cross slab boundaries on small matrices.
inline std::int64_t wide_slab(std::int64_t n, int tile) {
    const std::int64_t t = effective_tile(tile, n);
    return std::max<std::int64_t>(t, std::min<std::int64_t>(kWideSlabPanels * t, n));
}
// The limb buffers' sizes (doubles): A1, A0 (slab x inner each, inner = min(kWideInner,
// tile)), B1, B0 (inner x m each), P2, P1, P0 (slab x m each). One-sided limbs use B1, B0,
// P1 and P0 only (wide_buffers).
inline std::int64_t wide_a_doubles(std::int64_t, std::int64_t n, int tile) {
    return wide_slab(n, tile) * std::min(kWideInner, effective_tile(tile, n));
}
inline std::int64_t wide_b_doubles(std::int64_t m, std::int64_t n, int tile) { return std::min(kWideInner, effective_tile(tile, n)) * m; }
inline std::int64_t wide_p_doubles(std::int64_t m, std::int64_t n, int tile) { return wide_slab(n, tile) * m; }
// How many A, B and P limb buffers the two-limb mode of p uses: 2, 2 and 3 (P2, P1, P0),
// or with one-sided limbs 0, 2 and 2 (P1, P0); none below.
struct WideBuffers {
    int a, b, p;
};
inline WideBuffers wide_buffers(std::uint64_t p) {
    if (!wide_mode(p)) return WideBuffers{0, 0, 0};
    return half_mode(p) ? WideBuffers{0, 2, 2} : WideBuffers{2, 2, 3};
}
// Doubles of workspace the two-limb mode needs besides workspace_doubles (0 for p <= kMaxPrime).
inline std::int64_t wide_workspace_doubles(std::int64_t m, std::int64_t n, int tile, std::uint64_t p) {
    const WideBuffers w = wide_buffers(p);
    return w.a * wide_a_doubles(m, n, tile) + w.b * wide_b_doubles(m, n, tile) + w.p * wide_p_doubles(m, n, tile);
}

// The two products of a panel update as column-major GEMMs C = alpha A B + beta C without
// transposes (cuBLAS's convention): a row-major matrix with leading dimension ld is, read
// column-major, its transpose with the same ld. Both backends execute these descriptions,
// so the CPU tests check the very arguments the GPU passes to cublasDgemm.
// The matrix A, the workspaces G, M, X of Backend below, and the two-limb mode's limb
// buffers A1, A0, B1, B0 and products P2, P1, P0.
enum class Buf { a, g, m, x, a1, a0, b1, b0, p2, p1, p0 };
struct Gemm {
    std::int64_t rows, cols, inner;  // C is rows x cols, A rows x inner, B inner x cols
    double alpha, beta;              // alpha in {1, -1}, beta in {0, 1}
    Buf a;
    std::int64_t a_off, lda;
    Buf b;
    std::int64_t b_off, ldb;
    Buf c;
    std::int64_t c_off, ldc;
};

// M (row-major (m-r-k) x k, ld k) (first ? = : +=) G[k.., k0..k1) X[k0..k1, ..): read
// column-major, M^T (k x rows) = X[k0..k1, :]^T (k x kc, at X + k0 k) times
// G21[:, k0..k1]^T (kc x rows, at G + k k + k0), every ld k.
inline Gemm multipliers_gemm(std::int64_t m, std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, bool first) {
    return Gemm{k, m - r - k, k1 - k0, 1.0, first ? 0.0 : 1.0, Buf::x, k0 * k, k, Buf::g, k * k + k0, k, Buf::m, 0, k};
}

// A[r+k.., d0..d1) -= M[.., k0..k1) A[r+k0..r+k1, d0..d1): read column-major,
// A22^T (d x rows, ld n) -= U^T (d x kc, at A + (r+k0) n + d0, ld n) times
// M[:, k0..k1]^T (kc x rows, at M + k0, ld k).
inline Gemm update_gemm(std::int64_t m, std::int64_t n, std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, std::int64_t d0,
                        std::int64_t d1) {
    return Gemm{d1 - d0, m - r - k, k1 - k0, -1.0, 1.0, Buf::a, (r + k0) * n + d0, n, Buf::m, k0, k, Buf::a, (r + k) * n + d0, n};
}

// Two-limb mode: the four limb GEMMs of a product d (column-major, C rows x cols): A1, A0
// (rows x inner, ld rows), B1, B0 (inner x cols, ld inner) into P2, P1, P0 (rows x cols,
// ld rows): P2 = A1 B1, P1 = A1 B0, P1 += A0 B1, P0 = A0 B0.
struct LimbGemms {
    Gemm g[4];
};
inline LimbGemms limb_gemms(const Gemm& d) {
    const std::int64_t r = d.rows, c = d.cols, k = d.inner;
    return LimbGemms{{Gemm{r, c, k, 1.0, 0.0, Buf::a1, 0, r, Buf::b1, 0, k, Buf::p2, 0, r},
                      Gemm{r, c, k, 1.0, 0.0, Buf::a1, 0, r, Buf::b0, 0, k, Buf::p1, 0, r},
                      Gemm{r, c, k, 1.0, 1.0, Buf::a0, 0, r, Buf::b1, 0, k, Buf::p1, 0, r},
                      Gemm{r, c, k, 1.0, 0.0, Buf::a0, 0, r, Buf::b0, 0, k, Buf::p0, 0, r}}};
}

// One-sided limbs: the two GEMMs of a product d, A as d has it (unsplit), B1, B0 (inner x
// cols, ld inner) into P1, P0 (rows x cols, ld rows): P1 = A B1, P0 = A B0.
struct HalfLimbGemms {
    Gemm g[2];
};
inline HalfLimbGemms half_limb_gemms(const Gemm& d) {
    const std::int64_t r = d.rows, c = d.cols, k = d.inner;
    return HalfLimbGemms{{Gemm{r, c, k, 1.0, 0.0, d.a, d.a_off, d.lda, Buf::b1, 0, k, Buf::p1, 0, r},
                          Gemm{r, c, k, 1.0, 0.0, d.a, d.a_off, d.lda, Buf::b0, 0, k, Buf::p0, 0, r}}};
}

// Backend (a class with these members; rows and columns index the m x n matrix A, ld n):
//   void factor_leaf(int64 r, int64 b0, int64 b1, int64* piv)
//        the leaf step above on active rows [r, m), columns [b0, b1) (b1 - b0 <= kLeaf),
//        in two phases (G may be overwritten);
//        piv[j] = the pivot row of column b0 + j, or -1.
//   void swap_rows(int64 r, const int64* to, int64 k, int64 c0)
//        for i = 0..k-1 in order: swap rows r+i and to[i] (to[i] >= r+i) on columns [c0, n).
//   void gather(int64 r, const int64* cols, int64 k)
//        G (row-major (m-r) x k) = A[r + i][cols[c]].
//   void invert(int64 k)
//        X (row-major k x k) = the inverse mod p of the unit lower triangular matrix whose
//        strictly lower part is that of G's first k rows (centred; X's upper part 0).
//   void multipliers(int64 r, int64 k, int64 k0, int64 k1, bool first)
//        executes multipliers_gemm(m, r, k, k0, k1, first) (exact: k1 - k0 <= max_inner(p)),
//        then reduces every entry of M.
//   void update(int64 r, int64 k, int64 k0, int64 k1, int64 d0, int64 d1)
//        executes update_gemm(m, n, r, k, k0, k1, d0, d1) (exact: the driver keeps every
//        entry of the block and every partial sum within h + K h^2).
//   void reduce_rows(int64 r0, int64 r1, int64 c0, int64 c1)
//        brings A[r0..r1, c0..c1) to (-p/2, p/2].
// Two-limb mode (p > kMaxPrime): factor_leaf, invert and the reductions use the wide_*
// scalar operations above, multipliers, update and reduce_rows are not called, and three
// more carry out every product:
//   void split(Buf src, int64 off, int64 ld, int64 rows, int64 cols, bool a_side)
//        the column-major rows x cols block at src + off (leading dimension ld) into its
//        limbs in base limb_base(p), contiguous column-major (ld rows): A1 and A0 (a_side)
//        or B1 and B0. With one-sided limbs only B is split.
//   void gemm(const Gemm& d)
//        executes a description (limb_gemms() or half_limb_gemms(): exact).
//   void combine(const Gemm& d)
//        C of d (rows x cols at c_off, ldc) = beta C + alpha (P2 2^46 + P1 2^23 + P0)
//        mod p, centred (wide_combine), P_i read column-major with ld rows; with one-sided
//        limbs beta C + alpha (P1 2^16 + P0) (half_combine).
template <class Backend>
class Driver {
public:
    Driver(Backend& be, std::int64_t m, std::int64_t n, std::uint64_t p, int tile)
        : be_(be), m_(m), n_(n), kmax_(max_inner(p)), tile_(effective_tile(tile, n)), wide_(wide_mode(p)),
          half_(half_mode(p)), slab_(wide_slab(n, tile)) {}

    // The rank; A is overwritten.
    std::int64_t run() {
        if (m_ == 0 || n_ == 0) return 0;
        std::int64_t r = 0;
        std::vector<std::int64_t> panel_cols, leaf_cols, piv(kLeaf), to;
        for (std::int64_t c0 = 0; c0 < n_ && r < m_; c0 += tile_) {
            const std::int64_t c1 = std::min(c0 + tile_, n_), r0 = r;
            panel_cols.clear();
            if (extra_ > 0) be_.reduce_rows(r, m_, c0, c1);  // the leaves read reduced entries
            for (std::int64_t b0 = c0; b0 < c1 && r < m_; b0 += kLeaf) {
                const std::int64_t b1 = std::min<std::int64_t>(b0 + kLeaf, c1);
                be_.factor_leaf(r, b0, b1, piv.data());
                leaf_cols.clear();
                to.clear();
                for (std::int64_t j = 0; j < b1 - b0; ++j)
                    if (piv[static_cast<std::size_t>(j)] >= 0) {
                        leaf_cols.push_back(b0 + j);
                        to.push_back(piv[static_cast<std::size_t>(j)]);
                    }
                const std::int64_t k = static_cast<std::int64_t>(to.size());
                if (k == 0) continue;
                transpositions(r, to);
                be_.swap_rows(r, to.data(), k, c0);
                eliminate_right(r, leaf_cols, b1, c1, false);
                r += k;
                panel_cols.insert(panel_cols.end(), leaf_cols.begin(), leaf_cols.end());
            }
            eliminate_right(r0, panel_cols, c1, n_, true);
        }
        return r;
    }

    // The pivot rows to[0..k) (positions as of the leaf's start, distinct, >= r) as the
    // transpositions that bring them in order to rows r, r+1, ...: step i swaps r+i with
    // the current position of pivot i, so a later pivot sitting at r+i moves there.
    static void transpositions(std::int64_t r, std::vector<std::int64_t>& to) {
        const std::size_t k = to.size();
        for (std::size_t i = 0; i < k; ++i) {
            const std::int64_t at = to[i], dest = r + static_cast<std::int64_t>(i);
            for (std::size_t l = i + 1; l < k; ++l)
                if (to[l] == dest) to[l] = at;
        }
    }

private:
    // The pivot rows [r, r + cols.size()) with multipliers in cols eliminate the rows
    // below them on columns [d0, d1). lazy (the columns right of a panel): the block is
    // reduced only when the next product could leave the exact range (extra_ counts the
    // products of size <= h^2 its entries may hold); otherwise after each chunk.
    void eliminate_right(std::int64_t r, const std::vector<std::int64_t>& cols, std::int64_t d0, std::int64_t d1, bool lazy) {
        const std::int64_t k = static_cast<std::int64_t>(cols.size());
        if (k == 0 || d0 >= d1 || r + k >= m_) return;
        be_.gather(r, cols.data(), k);
        be_.invert(k);
        if (wide_) {
            eliminate_right_wide(r, k, d0, d1);
            return;
        }
        for (std::int64_t k0 = 0; k0 < k; k0 += kmax_) be_.multipliers(r, k, k0, std::min(k, k0 + kmax_), k0 == 0);
        if (lazy && extra_ > 0) be_.reduce_rows(r, r + k, d0, d1);  // the pivot rows enter a GEMM
        for (std::int64_t k0 = 0; k0 < k; k0 += kmax_) {
            const std::int64_t k1 = std::min(k, k0 + kmax_);
            if (lazy && extra_ + (k1 - k0) > kmax_) {
                be_.reduce_rows(r + k, m_, d0, d1);
                extra_ = 0;
            }
            be_.update(r, k, k0, k1, d0, d1);
            if (lazy) extra_ += k1 - k0;
            else be_.reduce_rows(r + k, m_, d0, d1);
        }
    }

    // Two-limb mode: M = L21 X in chunks of kmax_ = kWideInner, then the update in chunks,
    // each chunk's M limbs split once and used by every slab of at most slab_ columns.
    void eliminate_right_wide(std::int64_t r, std::int64_t k, std::int64_t d0, std::int64_t d1) {
        for (std::int64_t k0 = 0; k0 < k; k0 += kmax_) product(multipliers_gemm(m_, r, k, k0, std::min(k, k0 + kmax_), k0 == 0), true);
        for (std::int64_t k0 = 0; k0 < k; k0 += kmax_) {
            const std::int64_t k1 = std::min(k, k0 + kmax_);
            for (std::int64_t e0 = d0; e0 < d1; e0 += slab_) {
                const Gemm d = update_gemm(m_, n_, r, k, k0, k1, e0, std::min(d1, e0 + slab_));
                product(d, e0 == d0);
            }
        }
    }

    // One product d of the two-limb mode: split (B only when split_b), four limb GEMMs,
    // combine; with one-sided limbs: split B (when split_b), two GEMMs, combine.
    void product(const Gemm& d, bool split_b) {
        if (half_) {
            if (split_b) be_.split(d.b, d.b_off, d.ldb, d.inner, d.cols, false);
            const HalfLimbGemms l = half_limb_gemms(d);
            for (const Gemm& g : l.g) be_.gemm(g);
            be_.combine(d);
            return;
        }
        be_.split(d.a, d.a_off, d.lda, d.rows, d.inner, true);
        if (split_b) be_.split(d.b, d.b_off, d.ldb, d.inner, d.cols, false);
        const LimbGemms l = limb_gemms(d);
        for (const Gemm& g : l.g) be_.gemm(g);
        be_.combine(d);
    }

    // Products of size <= h^2 that the entries right of the current panel may hold
    // unreduced (their bound is h + extra_ h^2 <= h + K h^2).
    std::int64_t extra_ = 0;
    Backend& be_;
    std::int64_t m_, n_, kmax_, tile_;
    bool wide_, half_;
    std::int64_t slab_;
};

template <class Backend>
std::int64_t blocked_rank(Backend& be, std::int64_t m, std::int64_t n, std::uint64_t p, int tile) {
    return Driver<Backend>(be, m, n, p, tile).run();
}

}  // namespace seprank::blocked
