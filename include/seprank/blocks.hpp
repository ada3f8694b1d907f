// seprank — the block structure of a sparse matrix, and the block certificate of its
// rank over Q: exact ranks at about the price of modular ones.
//
// Mathematics (docs/blocks.md).
//   Blocks. Join row i and column j when a_ij ≠ 0. The connected components of this
//   bipartite graph give row sets R_1..R_K and column sets C_1..C_K (zero rows and
//   columns belong to no block). Permuting rows and columns makes A block diagonal with
//   blocks A_k = A[R_k, C_k], so rank A = Σ_k rank A_k over every field. A coefficient
//   flattening of a polynomial that is homogeneous in each side's degree pattern (linear
//   attention and Hadamard stacks without residual) splits at least by degree: the
//   degree in A fixes the degree in B.
//   Certificate of one block (prove_rank_at_most). Orient A_k so that its n columns are
//   its smaller side. With r = rank A_k mod p:
//     lower bound  r ≤ rank_Q A_k (an r×r minor is non-zero mod p, hence non-zero);
//     r = n        nothing more to prove: rank_Q A_k = n;
//     r < n        upper bound: n − r integer vectors v_t with A_k v_t = 0, checked
//                  exactly over Z, whose entries on the n − r non-pivot columns are D·I
//                  (D ≠ 0), hence independent: dim ker ≥ n − r, so rank_Q A_k ≤ r.
//   The kernel vectors: with the pivot rows P and pivot columns C of the elimination mod
//   p, A_k[P, C] is non-singular mod p (hence over Q); X = A_k[P, C]^{-1} A_k[P, F]
//   (F the non-pivot columns) is lifted p-adically (Dixon: one inverse mod p, then one
//   product per digit of p), read back as N/D by rational reconstruction at a growing
//   schedule of digits, and v_t = (N e_t on C, −D on F_t). The exact check on every row
//   of A_k is what certifies: a wrong reconstruction cannot pass it. Lifting stops, at
//   the latest, at p^s > 2·H² with H the Hadamard bound of [A_k[P, C] | A_k[P, F]]
//   (Cramer: numerators and the denominator are r×r minors), where the reconstruction
//   is certain: a failing check there proves the claimed rank below rank_Q A_k.
// Cost: the decomposition O(nnz·α); per block one sparse elimination mod p; a deficient
// block O(r³) for the inverse plus O(r²·(n−r)) per p-adic digit, the number of digits
// following the size of the kernel (not the Hadamard bound) but for the last attempt.
#pragma once

#include "seprank/rank.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace seprank {

// One block: the rows and the columns of the parent it holds, increasing.
struct MatrixBlock {
    std::vector<long> rows, cols;
};

// The connected components of the row–column graph of the non-zeros, ordered by their
// first row. Every non-zero lies in exactly one block; zero rows and columns in none.
// Checked: check_matrix(a) (rank.hpp). Cost O(nnz·α + rows + cols) time,
// O(rows + cols) memory.
std::vector<MatrixBlock> connected_blocks(const SparseZMat& a);

// a[b.rows, b.cols], indices renumbered 0.. in the order of b (precondition: b is a
// block of a, or at least every non-zero of a's rows b.rows lies in columns b.cols; not
// checked beyond check_matrix(a) and the indices: invalid_input for a row outside a, or columns not
// increasing inside a; entries outside b.cols are dropped). Cost O(cols + Σ_{i∈b.rows}
// nnz of row i), memory the copy.
SparseZMat submatrix(const SparseZMat& a, const MatrixBlock& b);

// The proof (or not) that rank_Q(a) ≤ r.
struct KernelProof {
    bool proven = false;   // rank_Q ≤ the rank claimed (r, or the rank mod p if smaller)
    long claimed = 0;      // the rank the proof is about: min(r, rank mod p)
    long kernel_dim = 0;   // the independent kernel vectors checked: n − claimed
    long bits = 0;         // largest numerator or denominator of the kernel basis
    long digits = 0;       // p-adic digits lifted
    std::string reason;    // when not proven: why
};

struct KernelOptions {
    std::uint64_t p = 0;  // the prime of the elimination and of the lifting (0: a random 62-bit prime from seed)
    std::uint64_t seed = 1;
    double max_seconds = std::numeric_limits<double>::infinity();  // budget for the lifting
};

// Proves rank_Q(a) ≤ r by n − r exact kernel vectors on a's smaller side (above). A claim
// r below rank_Q(a) is always rejected (proven = false, with the reason): the exact check
// cannot pass. r ≥ rank mod p proves the modular rank itself. Polls cancellation once per
// digit (cancel.hpp). Preconditions: check_matrix(a), r ≥ 0 and opt.p prime when given
// (checked: invalid_input). Cost: one sparse elimination mod p of a, then the lifting of the
// header's cost paragraph, within opt.max_seconds.
KernelProof prove_rank_at_most(const SparseZMat& a, long r, const KernelOptions& opt = {});

}  // namespace seprank
