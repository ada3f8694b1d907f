// seprank (internal) — lattice polytopes: the normalized volume n!·vol(conv A) of a finite
// set A ⊂ Z^n, exactly; Kushnirenko's bound on a system's isolated roots (docs/variety.md,
// "The degree's upper bound").
#pragma once

#include "seprank/integer.hpp"

#include <cstdint>
#include <vector>

namespace seprank::algebra_detail {

// A without points that may be left out without changing conv A: those that are the
// midpoint of two others along a direction e_i, e_i + e_j or e_i − e_j (x ± v both in A;
// never a vertex). What is kept, every vertex and the points no such test removes, in A's
// order, repeats once. Precondition: every point of length n. O(|A|·n²) hash lookups of
// O(n) each.
std::vector<std::vector<long>> drop_midpoints(const std::vector<std::vector<long>>& points, long n);

// n!·vol(conv A) for A ⊂ Z^n: the lattice-normalized volume, an integer (a unimodular
// simplex has 1). By Kushnirenko's theorem, n polynomials in n unknowns whose supports lie
// in conv A, with 0 in A, have at most this many isolated roots in C^n, multiplicities
// counted (Li–Wang for the roots off the torus). 0 when A lies in a hyperplane.
// The placing triangulation: a first simplex, then each point cones over the boundary
// facets it sees (strictly), adding |det| of each new simplex; A is thinned first by
// drop_midpoints. Exact: determinants in 128-bit words where Hadamard's bound allows,
// else FLINT's. Preconditions (invalid_input): n >= 1, every point of length n,
// |coordinates| <= 2^20. resource_limit when the boundary passes max_facets facets. Cost:
// O(m·F·n³) for m points and at most F facets; memory O(F·n).
Integer normalized_volume(const std::vector<std::vector<long>>& points, long n, long max_facets = 2000000);

}  // namespace seprank::algebra_detail
