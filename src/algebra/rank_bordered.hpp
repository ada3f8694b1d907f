// seprank (internal) — the rank mod p of a square matrix that grows by bordering, one
// elimination of the new rows and columns per step (docs/rank.md, "Bordered variant").
//
// The evaluation ranks (src/evaluation_*.cpp) grow their k×k matrix to k'×k' and go on only
// while it has full rank. With P·M = L·U kept from the last step (M the k×k matrix, full
// rank), the bordered matrix M' = [[M, B], [C, D]] has
//     rank M' = k + rank S,   S = D − C·M⁻¹·B = D − (C·U⁻¹)·(L⁻¹·P·B),
// and when S has full rank (P_S·S = L_S·U_S),
//     P'·M' = [[L, 0], [P_S·C·U⁻¹, L_S]] · [[U, L⁻¹·P·B], [0, U_S]],  P' = diag(P, P_S),
// which is the next step's L and U. A step costs two triangular solves with k×m right
// sides (k²·m each), one product (k·m²) and an m×m LU, m = k' − k, against (2/3)·k'³ for
// the k'×k' LU from scratch: for the growth 1.25, 0.57·k³ against 1.30·k³ (measured with
// FLINT at a 50-bit prime, k' = 4000: 8.5 s against 16.7 s). The ranks are those of
// nmod_mat_rank on the same matrices (the reference, rank_modular), step by step.
#pragma once

#include "seprank/matrix.hpp"

#include <flint/flint.h>
#include <vector>

namespace seprank::detail {

class BorderedLU {
public:
    BorderedLU() = default;
    // The state a former object had with factored() = perm.size() >= 0 and this
    // permutation, for a matrix that holds that object's LU (a block store keeps both,
    // evaluation_store.cpp). Precondition: perm is a permutation of 0..size−1, checked
    // (internal_error); that the matrix holds the matching LU is the caller's.
    explicit BorderedLU(std::vector<slong> perm);
    // The rank of m (n×n, n >= factored(), modulus prime), whose leading
    // factored()×factored() block holds what the last call left there and whose other
    // entries are the matrix's own, rows in their original order (as the caller wrote
    // them). When the rank is n, m is left holding the packed LU of the whole matrix
    // (rows permuted) and factored() becomes n: the matrix may be bordered again and
    // ranked by the next call. Otherwise m's entries are left unspecified and factored()
    // becomes −1: a further call throws internal_error, as does a non-square m or one
    // smaller than factored(). FLINT's LU permutes m's row pointers, not its rows: after a
    // call read m only through nmod_mat_entry or its rows[] (as every caller does), never
    // its storage as one row-major block. Cost: as at the top, m = n − factored(); memory
    // k² + 3·k·m + m² words of temporaries (Uᵀ, B', C' and Cᵀ, S), k = factored().
    long rank(NmodMat& m);
    // The side of the factored leading block: 0 before the first call, −1 after a rank
    // below the side.
    long factored() const noexcept { return k_; }
    // Row i of the packed LU is row permutation()[i] of the matrix (factored() entries).
    const std::vector<slong>& permutation() const noexcept { return perm_; }

private:
    long k_ = 0;
    std::vector<slong> perm_;  // row i of the packed LU is row perm_[i] of the matrix
};

}  // namespace seprank::detail
