// seprank (internal) — the quotient ring A = K[t]/I of a zero-dimensional ideal mod p, from
// its Gröbner basis: multiplication matrices, whether every solution is simple, and how
// many distinct values a polynomial takes on the solutions (docs/variety.md, "The degree's
// lower bound").
#pragma once

#include "algebra/groebner.hpp"
#include "seprank/matrix.hpp"
#include "seprank/random.hpp"

#include <cstdint>
#include <vector>

namespace seprank::algebra_detail {

// A in the basis of the standard monomials b_1 < … < b_c (the basis's order): column k of
// mult[i] holds the normal form of t_i · b_k. c = standard.size() is the number of
// solutions over the closure of Z/p, with multiplicity.
struct Quotient {
    GroebnerBasis basis;
    std::vector<std::vector<int>> standard;
    std::vector<NmodMat> mult;  // one c × c matrix per unknown
};

// The quotient of a zero-dimensional basis (invalid_input if it is not; the unit ideal
// gives c = 0). resource_limit when c passes max_points (before the matrices are built:
// they take n·c² words, the normal forms' table as much again). Cost: one normal form per
// monomial t_i·b_k not standard (at most n·c), each a combination of earlier columns,
// O(c²) operations: O(n·c³) at worst (FGLM's bound).
Quotient quotient_of(GroebnerBasis basis, long max_points);

// How simple_points decides that every solution is simple.
enum class SimpleVariant {
    per_unknown,  // the reference: every M_i's minimal polynomial squarefree (the M_i
                  // commute, so A is then a product of fields); n minimal polynomials, O(n·c³)
    separating,   // u = Σ r_i t_i for random r (at most 3 draws): A is reduced with c distinct
                  // solutions iff some M_u has a squarefree minimal polynomial of degree c; its
                  // Krylov basis 1, u, …, u^(c−1) also writes each t_i as h_i(u) (the shape
                  // lemma), which distinct_values needs. Falls back to per_unknown when no
                  // draw separates the solutions (then distinct_values is not known).
};

// The solutions when every one is simple, and a polynomial's distinct values on them.
struct SimplePoints {
    bool simple = false;   // A is reduced: the c solutions are distinct and each is simple
    long points = -1;      // c when simple, else -1
    long distinct = -1;    // a lower bound on the number of distinct values of `value` on
                           // the solutions (simple, separating variant only; else -1)
};

// Whether A's solutions are all simple (every local ring is the field: for n equations in n
// unknowns, the Jacobian is invertible at each), and then a lower bound on the number of
// distinct values `value` (a polynomial in the n unknowns, coefficients below p) takes on
// them: the degree of the minimal polynomial of the sequence ℓ(value^k), k < 2c, ℓ a random
// linear form (Berlekamp–Massey; at least 1), which divides value's minimal polynomial in A,
// whose degree is that number. `system` is the square system (n polynomials; invalid_input
// otherwise) whose basis q holds: the separating variant checks its points against it
// without the basis (distinct, f(h) = 0 and det J(h) prime to chi: internal_error if not),
// so a defect of the basis or of the normal forms cannot certify. Both answers are certain
// when given; rng draws u, ℓ (the same answers on any number of `threads`, which share
// the Krylov products' rows). c = 0: simple, points 0, distinct −1. Cost: per variant
// (above); then O(c³) for the Krylov solve, and products mod χ (degree c): one per group of
// terms of each of the n + n² + 1 polynomials (the system, its Jacobian, value), n·2^(n−1)
// for the determinant and 2c for the sequence.
SimplePoints simple_points(const Quotient& q, const std::vector<ModPoly>& system, const ModPoly& value, Rng& rng,
                           SimpleVariant variant = SimpleVariant::separating, int threads = 1);

// f(M_1, …, M_n): the matrix of multiplication by f in A (coefficients below p or not).
// O(terms(f)·deg(f)·c³): small tests and the reference below only.
NmodMat multiplication_matrix(const Quotient& q, const ModPoly& f);

// The reference for distinct: when A is reduced, the degree of the minimal polynomial of
// value(M_1, …, M_n), exactly the number of distinct values (-1 when A is not reduced).
// O(terms(value)·c³): small tests only.
long distinct_values_reference(const Quotient& q, const ModPoly& value);

}  // namespace seprank::algebra_detail
