// seprank — the separation-rank bounds of Levine et al. 2020 for depth-L linear
// attention with width dx and H heads (docs/theory.md §3.2), in log3 units.
//
// Theorem 7.1 (L < log3 dx):
//   3^{L−2}·(log3(dx − H) + a) ≤ log3 sep ≤ ((3^L − 1)/2)·log3(dx + H),  a = −L + 2 − log3 2
// Theorem 7.2 (L > log3 dx):
//   ½·dx·L + b1 + b2 ≤ log3 sep ≤ 2·dx·L + c1 + c2,
//   b1 = −L(H/2 + 1), c1 = L, b2 = −dx(1 + ½·log3((dx − H)/2)),
//   c2 = −2·dx·log3(dx/(2√(2e))) + log3 dx.
// These are asymptotic statements: the tool prints them beside measured values and
// flags a measured value outside them; nothing is tuned to fit. A side whose formula
// is undefined (dx ≤ H makes log3(dx − H) undefined) is NaN. At L = log3 dx exactly
// neither theorem applies.
#pragma once

#include <string>

namespace seprank {

struct TheoremBounds {
    std::string theorem;   // "7.1", "7.2", or "" when neither regime applies
    double lower = 0;      // log3; NaN when undefined
    double upper = 0;      // log3; NaN when undefined
};

// The bounds above for width dx = dim, H = heads, depth L = depth: theorem "7.1" when
// L < log3 dx, "7.2" when L > log3 dx (each up to 1e-12), "" between (both sides NaN).
// Checked: dim >= 1, heads >= 1, depth >= 0 (invalid_input naming the three). O(1).
TheoremBounds levine_bounds(long dim, long heads, long depth);

// "below" or "above" when log3_rank lies outside b by more than 1e-9 (a NaN side does
// not count), "" when inside, when no theorem applies or log3_rank is NaN. No
// preconditions. O(1).
std::string outside_bounds(double log3_rank, const TheoremBounds& b);

}  // namespace seprank
