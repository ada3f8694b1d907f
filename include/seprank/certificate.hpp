// seprank — the pivot-span certificate: an exact rank over Q whose cost follows the
// rank and the size of the answer, not the Hadamard bound.
//
// Mathematics (docs/rank.md, "Certificates"). Let W be the integer matrix (or its
// transpose, whichever has fewer columns) and r = rank of W mod a prime p, with pivot
// columns C found by elimination mod p.
//   lower bound  r ≤ rank_Q(W): an r×r minor of W is non-zero mod p, hence non-zero.
//   upper bound  if every non-pivot column w_j equals W_C·x_j for a rational vector x_j
//                (checked EXACTLY, as D_j·w_j = W_C·N_j with integers N_j, D_j ≠ 0),
//                then every column lies in the Q-span of the r columns C: rank_Q ≤ r.
// The x_j are the non-pivot part of the reduced row echelon form of W over Q. They are
// found mod p_1, p_2, … (one sparse elimination each, same pivots), combined by CRT and
// read back by rational reconstruction; the number of primes follows the bit size of
// the x_j (the output), and the exact check, a sparse product, is what certifies —
// reconstruction may guess wrong, the check cannot pass on a wrong guess.
// When the x_j are too large to be reached within a budget of primes (about a quarter
// of what the Hadamard certificate would need, at most 64), the rank engine falls back
// to the Hadamard multimodular reference (rank.hpp), so the result is the same and the
// extra cost is bounded.
//
// The building block is public: a row echelon form mod p with its pivots, optionally
// reduced.
#pragma once

#include "seprank/rank.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace seprank {

// Row echelon form of a sparse matrix mod p, as found by rank_sparse_modular: rows are
// taken shortest first; each is reduced by the pivots found so far and becomes a new
// pivot when something non-zero remains.
struct SparseEchelon {
    long rank = 0;
    std::uint64_t p = 0;
    long cols = 0;
    std::vector<long> pivot_cols;  // leading column of pivot k (distinct, in the order found)
    std::vector<long> pivot_rows;  // the row of the input that produced pivot k
    // Pivot k: (column, value) pairs, columns increasing, leading entry 1 at
    // pivot_cols[k]. After reduce_echelon, pivot k has no other entry in a pivot column.
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> rows;
};

// Forward elimination (cost as rank_sparse_modular). stop_at_full: stop once
// rank = min(rows, cols). Precondition: a.p prime (checked: invalid_input). Memory:
// the pivot rows with their fill.
SparseEchelon sparse_echelon(const SparseNmodMat& a, bool stop_at_full = true);

// Back substitution in place: afterwards the pivot rows are the non-zero rows of the
// reduced row echelon form (each pivot column is a unit vector). Pivots are treated by
// decreasing leading column with a dense accumulator: O(Σ_k (span of row k) + fill).
// Precondition: `e` as returned by sparse_echelon (not checked). Memory: O(cols) more.
void reduce_echelon(SparseEchelon& e);

// The same for a dense matrix, by FLINT's nmod_mat_rref (reduced on return); a.p prime
// (checked: invalid_input). pivot_rows is left empty. Cost: one copy of `a` and one
// nmod_mat_rref of an m×n matrix, O(m·n·min(m, n)).
SparseEchelon dense_reduced_echelon(const NmodMat& a);

}  // namespace seprank
