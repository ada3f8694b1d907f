// seprank (internal) — how many solutions a polynomial system has over the algebraic
// closure of Z/p, from a Gröbner basis (MathicGB; docs/variety.md, "Counting solutions").
#pragma once

#include <cstdint>
#include <vector>

namespace seprank::algebra_detail {

// A polynomial in n variables over Z/p: its terms, coefficient (in [0, p)) and exponents.
struct ModTerm {
    std::uint64_t c = 0;
    std::vector<int> e;
};
using ModPoly = std::vector<ModTerm>;

// The largest modulus the Gröbner engine takes (MathicGB: 16-bit moduli).
inline constexpr std::uint64_t kGroebnerMaxPrime = 65535;

// The monomial order of the basis. The count does not depend on it (the standard monomials
// of any order span K[t]/I); the cost does.
enum class GroebnerOrder {
    grevlex,   // graded reverse lex: the reference
    weighted,  // reverse lex graded by w_i = L / d_i, d_i the largest exponent of t_i in the
               // system, L their lcm (grevlex when L > 2^16): a system whose unknowns have
               // unequal degrees (a slice's weights of different layers) is closer to
               // weighted-homogeneous, and its basis far cheaper (14x at filters (2,2,2,2))
};

// What solution_count found.
struct SolutionCount {
    bool zero_dimensional = false;  // finitely many solutions (else `count` is -1)
    long count = -1;                // dim_K K[t]/I: the solutions over the closure, with multiplicity
    long basis_size = 0;            // polynomials in the reduced basis
};

// A Gröbner basis as MathicGB returns it: each polynomial with its terms in the order's
// descending order (its leading term first, coefficient non-zero), in the order `weights`
// describes (all 1: graded reverse lex; see order_weights in groebner.cpp).
struct GroebnerBasis {
    long n = 0;
    std::uint64_t p = 0;
    std::vector<long> weights;
    std::vector<ModPoly> polys;
};

// The basis of `polys` (n variables, mod p) in `order`. Preconditions and cost as
// solution_count (below; invalid_input, resource_limit). One basis at a time per process.
GroebnerBasis groebner_basis(const std::vector<ModPoly>& polys, long n, std::uint64_t p, GroebnerOrder order = GroebnerOrder::weighted);

// a > b in the basis's order (weighted reverse lex with `weights`; ties: the smaller
// exponent in the last variable where they differ). O(n).
bool order_greater(const std::vector<int>& a, const std::vector<int>& b, const std::vector<long>& weights);

// The standard monomials of a basis (those no leading monomial divides), in increasing
// order of the basis's monomial order, when the ideal is zero-dimensional (else
// zero_dimensional false and `monomials` empty; the unit ideal: zero_dimensional, none).
// resource_limit past max_count monomials walked. O(walked · basis · n), then a sort.
struct StandardMonomials {
    bool zero_dimensional = false;
    std::vector<std::vector<int>> monomials;
};
StandardMonomials standard_monomials(const GroebnerBasis& basis, long max_count = 10000000);

// solution_count's answer for a basis already computed. O(walked · basis · n).
SolutionCount count_of(const GroebnerBasis& basis, long max_count = 10000000);

// The number of solutions in K^n, K the algebraic closure of Z/p, of the system `polys`
// (each term's exponent vector of length n), counted with multiplicity: the number of
// standard monomials of a Gröbner basis (in `order`, above). Not zero-dimensional (a
// variable without a pure power among the leading monomials): zero_dimensional false.
// The empty ideal's unit: a system without solutions has count 0. Preconditions: p
// prime, 2 < p <= kGroebnerMaxPrime, n >= 1, coefficients below p, exponents >= 0
// (invalid_input otherwise). max_count bounds the count of standard monomials walked
// (resource_limit past it). Cost: MathicGB's (doubly exponential in n at worst; seconds
// for n <= 6 and degrees <= 8 in practice), then O(standard monomials · basis).
// Thread-safe: MathicGB is not reentrant, so calls from several threads take turns (one
// basis at a time per process).
SolutionCount solution_count(const std::vector<ModPoly>& polys, long n, std::uint64_t p, long max_count = 10000000,
                             GroebnerOrder order = GroebnerOrder::weighted);

}  // namespace seprank::algebra_detail
