// seprank — polynomials with known separation ranks, for checks and experiments.
#pragma once

#include "seprank/poly.hpp"

namespace seprank {

// det of the n×n matrix of variables x<i>_<j> (token i = row i), by the Leibniz
// formula: n! terms. With rows split k | n−k its separation rank is C(n, k) (Laplace
// expansion along the first k rows). 1 <= n <= 8 checked (invalid_input).
// Cost: the n! terms built at once (QPoly::from_terms): O(n!·n²) to write them and one
// sort, O(n!·log n!) monomial comparisons; O(n!·n²) words of memory.
QPoly determinant_polynomial(long n);

// C(n, k) for 0 <= k <= n <= 60 (checked: invalid_input). O(k).
long binomial(long n, long k);

}  // namespace seprank
