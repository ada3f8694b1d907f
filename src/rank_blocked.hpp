// seprank (internal) — the CPU backend of the blocked elimination (rank_blocked.cpp),
// with a fault to inject for the tests.
#pragma once

#include "seprank/matrix.hpp"

namespace seprank::blocked {

// rank_modular_blocked(a, tile), except that in the two-limb mode (p > kMaxPrime) every
// entry the combine step writes is shifted by combine_error (0: rank_modular_blocked
// itself). For the test that a broken combine is caught by the comparison with FLINT.
// Same checks and cost as rank_modular_blocked.
long rank_with_combine_error(const NmodMat& a, int tile, double combine_error);

}  // namespace seprank::blocked
