// seprank (internal) — rank mod p by blocked elimination on centred residues held in
// doubles: the algorithm shared by the CPU reference (src/rank_blocked.cpp,
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
// Algorithm. Row-major m x n matrix A; r = number of pivots found (rows [0, r) are the
// pivot rows, done; rows [r, m) are active). Columns go in panels of `tile` columns,
// each panel in leaves of kLeaf (32) columns (fewer at a panel's end):
//   leaf [b0, b1):  factor_leaf: for each column j in order, the pivot is the ACTIVE row
//                   of smallest index (as of the leaf's start) with a non-zero entry in
//                   column j; no pivot: the column is skipped. The pivot row leaves the
//                   active set; every other active row i gets l = A[i][j] / A[piv][j],
//                   stores l in A[i][j] and subtracts l * (pivot row) on columns (j, b1).
//                   Rows are not moved during the leaf.
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
// The largest prime accepted: the largest prime below 2^26 (K = max_inner(p) >= 8 and every
// product of two entries below 2^50).
inline constexpr std::uint64_t kMaxPrime = 67108859;

// K: the largest inner dimension of an exact product (header comment), at most 2^30.
SR_BLOCKED_HD inline std::int64_t max_inner(std::uint64_t p) {
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

// The centred inverse of a non-zero centred residue, by the extended Euclidean algorithm
// on 32-bit integers (p < 2^26: every remainder and coefficient stays below p).
SR_BLOCKED_HD inline double inverse(double a, std::uint64_t p) {
    const std::int32_t pi = static_cast<std::int32_t>(p);
    std::int32_t x = static_cast<std::int32_t>(a) % pi;
    if (x < 0) x += pi;
    std::int32_t r0 = pi, r1 = x, s0 = 0, s1 = 1;
    while (r1 != 0) {
        const std::int32_t q = r0 / r1;
        const std::int32_t r2 = r0 - q * r1;
        r0 = r1;
        r1 = r2;
        const std::int32_t s2 = s0 - q * s1;
        s0 = s1;
        s1 = s2;
    }
    std::int32_t inv = s0 % pi;
    if (inv < 0) inv += pi;
    if (inv > pi / 2) inv -= pi;
    return static_cast<double>(inv);
}

// The centred representative of v in [0, p).
SR_BLOCKED_HD inline double centred(std::uint64_t v, std::uint64_t p) {
    return v > p / 2 ? -static_cast<double>(p - v) : static_cast<double>(v);
}

// Whether 2 <= p <= kMaxPrime and p is prime (trial division: p < 2^26). O(sqrt p).
inline bool accepted_prime(std::uint64_t p) {
    if (p < 2 || p > kMaxPrime) return false;
    for (std::uint64_t d = 2; d * d <= p; ++d)
        if (p % d == 0) return false;
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

// The two products of a panel update as column-major GEMMs C = alpha A B + beta C without
// transposes (cuBLAS's convention): a row-major matrix with leading dimension ld is, read
// column-major, its transpose with the same ld. Both backends execute these descriptions,
// so the CPU tests check the very arguments the GPU passes to cublasDgemm.
enum class Buf { a, g, m, x };  // the matrix A and the workspaces G, M, X of Backend below
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

// Backend (a class with these members; rows and columns index the m x n matrix A, ld n):
//   void factor_leaf(int64 r, int64 b0, int64 b1, int64* piv)
//        the leaf step above on active rows [r, m), columns [b0, b1) (b1 - b0 <= kLeaf);
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
template <class Backend>
class Driver {
public:
    Driver(Backend& be, std::int64_t m, std::int64_t n, std::uint64_t p, int tile)
        : be_(be), m_(m), n_(n), kmax_(max_inner(p)), tile_(effective_tile(tile, n)) {}

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

    // Products of size <= h^2 that the entries right of the current panel may hold
    // unreduced (their bound is h + extra_ h^2 <= h + K h^2).
    std::int64_t extra_ = 0;
    Backend& be_;
    std::int64_t m_, n_, kmax_, tile_;
};

template <class Backend>
std::int64_t blocked_rank(Backend& be, std::int64_t m, std::int64_t n, std::uint64_t p, int tile) {
    return Driver<Backend>(be, m, n, p, tile).run();
}

}  // namespace seprank::blocked
