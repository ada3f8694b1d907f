// seprank — forward evaluation of a network at a point, over Q, over Z/p and in double.
//
// A point gives, for every token j = 1..N, the values of that token's variables:
// x_{j,1..dx}, or w_{j,1..r} with an embedding (then x^j = M w^j). The result is the
// output coordinate p at position i (docs/theory.md §1) — the polynomial f of expand(), evaluated.
// Point shapes are checked (invalid_input); which calls check the network, below. Cost:
// O(L·H·N·dx·da) operations per point for attention (associative form), O(L·N·w·dx·d)
// for hadamard, O(Σ_l d·w_l·w_{l+1}) for fc.
#pragma once

#include "seprank/network.hpp"

#include <cstdint>
#include <vector>

namespace seprank {

// Rows = tokens, columns = the token's variables.
template <class T>
using Point = std::vector<std::vector<T>>;

// f(point) exactly over Q. The network (check_shapes, network.hpp) and the point's shape
// are checked, invalid_input. Cost: the check, O(depth + weight matrices), then the
// operation count at the top, on rationals whose size grows with the depth.
Rational evaluate(const Network& net, const Point<Rational>& point);
// Floating point: never exact; for cross-checks only. Checks and cost (in doubles) as
// evaluate.
double evaluate_double(const Network& net, const Point<double>& point);

// Repeated evaluation mod a prime p: the weights are reduced once. The network is checked
// once, first (check_shapes, invalid_input); p >= 2 checked, p prime not checked. Throws
// domain_error when p divides a weight's denominator.
class ModEvaluator {
public:
    // Cost: check_shapes, then one reduction mod p of every weight, O(parameters) residues.
    ModEvaluator(const Network& net, std::uint64_t p);
    // Copies only: a move copies too, so an evaluator moved from still evaluates (its
    // weights had moved out under a spec that still called for them). O(parameters).
    ModEvaluator(const ModEvaluator&) = default;
    ModEvaluator& operator=(const ModEvaluator&) = default;
    ~ModEvaluator() = default;
    // f(point) mod p. Entries of the point must be < p (they are reduced if not, on a copy);
    // its shape is checked. Cost: the operation count at the top, in words mod p.
    std::uint64_t operator()(const Point<std::uint64_t>& point) const;
    // The modulus p and the checked spec. O(1).
    std::uint64_t modulus() const noexcept { return p_; }
    const ValidSpec& spec() const noexcept { return spec_; }

private:
    ValidSpec spec_;
    std::uint64_t p_;
    NetWeights<std::uint64_t> w_;
};

// Number of variables per token (dx, or r with an embedding) and the check that a
// point has the shape N × that (invalid_input otherwise). Precondition: a valid spec
// (not checked). O(N).
template <class T>
void check_point(const NetworkSpec& s, const Point<T>& point);

}  // namespace seprank
