// seprank (internal) — the CPU backend of the blocked elimination (rank_blocked.cpp),
// with a fault to inject for the tests.
#pragma once

#include "seprank/matrix.hpp"

namespace seprank::blocked {

// How the leaves went (blocked_rank_impl.hpp, the leaf step): splits, the leaves run in two
// phases; fallbacks, those of them whose rows below held a pivot, run again in one.
struct LeafStats {
    long splits = 0, fallbacks = 0;
    long capped = 0;  // scans stopped by kScanRows with fewer than kLeafTop rows
};

// rank_modular_blocked(a, tile), except that in the two-limb mode (p > kMaxPrime) every
// entry the combine step writes is shifted by combine_error (0: rank_modular_blocked
// itself). For the test that a broken combine is caught by the comparison with FLINT, and
// (stats, when given) the tests that both ways of a leaf run. Same checks and cost as
// rank_modular_blocked.
long rank_with_combine_error(const NmodMat& a, int tile, double combine_error, LeafStats* stats = nullptr);

}  // namespace seprank::blocked
