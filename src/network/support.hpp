// seprank (internal) — the support of a network's output in some of its weights: a
// superset of the exponent vectors of f(x; w(t)) as a polynomial in unknowns t, for any
// values of the other weights and the inputs (docs/variety.md, "The degree's upper bound").
#pragma once

#include "seprank/network.hpp"

#include <vector>

namespace seprank::detail {

// What a weight entry is on the slice (forward_support's roles): 0..n−1, the unknown t_k
// itself; kWeightFixed, a constant that may be anything; kWeightZero, 0.
inline constexpr long kWeightFixed = -1;
inline constexpr long kWeightZero = -2;
// forward_support thins a set once it has more points than this.
inline constexpr long kThinAbove = 256;

// Exponent vectors (each of length n) that contain every monomial in t of output
// coordinate p of position i of s's network, its weights set by `roles` (one role per
// weight entry, in s's shapes) and its inputs constants: sums are unions, products
// Minkowski sums, so the answer holds for every value of the constants (a superset where
// they cancel). Sets over kThinAbove points are thinned (drop_midpoints: their convex hulls are kept,
// which is all a Newton polytope needs), so the answer has the hull of the support, not
// each of its points. Preconditions: roles shaped as s's weights (not checked: a
// Network's shapes, as from map_weights of its weights); each role in 0..n−1 or one of the
// two constants, n >= 1, max_degree >= 0 (invalid_input otherwise). resource_limit when (max_degree + 1)^n
// passes 2^62 (the packed exponent keys), a product passes total degree max_degree, or a
// set passes max_points. Cost: the forward pass with each product a Minkowski sum, O(|a|·|b|)
// keys, sorted.
std::vector<std::vector<long>> forward_support(const ValidSpec& s, const NetWeights<long>& roles, long n, long max_degree,
                                               long max_points = 4000000);

}  // namespace seprank::detail
