// seprank (internal) — dense multivariate interpolation mod p: J polynomials of total
// degree <= D in n unknowns from their values (docs/variety.md, "Cost and reach").
#pragma once

#include "seprank/matrix.hpp"
#include "seprank/random.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace seprank::algebra_detail {

// The exponent vectors of total degree <= D in n unknowns, by total degree (stable within
// a degree): the rows of interpolate_total_degree's answer. C(n + D, n) of them.
std::vector<std::vector<int>> monomials_upto(long n, long D);

// The values mod p of the monomials `mons` (exponent vectors of t's length) at t. O(|mons|·n)
// modular powers.
std::vector<std::uint64_t> monomial_values(const std::vector<std::vector<int>>& mons, const std::vector<std::uint64_t>& t, std::uint64_t p);

enum class InterpolationVariant {
    reference,  // C(n + D, n) random nodes, one linear solve of that side (can be singular)
    newton,     // the simplex grid of D + 1 random abscissas per unknown, divided differences
};

// What interpolate_total_degree found.
struct Interpolated {
    bool ok = false;        // false: the reference's random nodes were singular (no answer)
    std::vector<std::vector<int>> mons;  // monomials_upto(n, D): the rows' monomials
    NmodMat C{0, 0, 2};     // C(n + D, n) × J: row e holds the J coefficients of monomial mons[e]
};

// Fills `values` (J residues) with the J polynomials' values at the node t (n residues).
// Called from several threads at once (newton with threads > 1): it must be reentrant.
using NodeValues = std::function<void(const std::vector<std::uint64_t>& t, std::vector<std::uint64_t>& values)>;

// The coefficients mod p of J polynomials g_1..g_J of total degree <= D in n unknowns, from
// their values at C(n + D, n) nodes drawn from rng (each variant its own nodes); exact when
// every g_j has degree <= D. Preconditions (invalid_input): p prime, D + 1 <= p, n >= 1,
// D >= 0, J >= 0. Cost, with N = C(n + D, n): N calls of `values`, then reference O(N³ +
// N²·J) (FLINT's solve), newton O(n·N·D·J) (divided differences and the change to the
// monomial basis, one unknown at a time: the grid is a lower set, so both factor). newton
// shares the nodes, then the columns, out between `threads` threads (>= 1; the same
// answer on any number); the reference runs on one.
Interpolated interpolate_total_degree(long n, long D, long J, std::uint64_t p, const NodeValues& values, Rng& rng,
                                      InterpolationVariant variant = InterpolationVariant::newton, int threads = 1);

}  // namespace seprank::algebra_detail
