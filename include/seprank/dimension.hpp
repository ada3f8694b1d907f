// seprank — functional dimension of a network family (issue 30, first part).
//
// Definition. Let F(w; x) be the network's output (a polynomial in the weights w and the
// inputs x; docs/theory.md §1). The functional dimension is the generic rank over Q of
// the Jacobian of the parameter map w ↦ F(w; ·): the matrix J[s, j] = ∂F/∂w_j (w; x_s)
// over enough input points x_s that its rank equals the rank of the map's differential.
// output = scalar: F is the single output coordinate p at position i (as generic_rank);
// output = all: one row per input point, token and coordinate.
//
// Method. Each trial draws a prime p (prime_bits), weights uniform on Z/p (or uses the
// given weights, reduced mod p: the local dimension there), and rows >= parameters + a
// margin of random input points uniform on Z/p. A derivative ∂F/∂w_j at x_s is exact
// mod p: t ↦ F(w + t·e_j; x_s) is a polynomial of degree <= D_L (the weight degree) in
// t, so it is evaluated (ModEvaluator) at t = 0..D_L and its derivative at 0 is read off
// Lagrange interpolation mod p. The rank of J mod p is a lower bound of the generic rank.
//
// Failure bound (Schwartz–Zippel, as generic_rank). An entry of J is a polynomial of
// degree <= D - 1 < D in the drawn weights and points together, where D = D_L + d^L
// (plus d^L more with an embedding, whose matrix M is drawn with the weights). A trial
// lands below the generic rank R* only if an R*×R* minor of J, a non-zero polynomial of
// degree <= R*·D, vanishes: probability <= R*·D/p <= m·D/p with m = min(rows, params).
// T independent trials give failure_bound = (m·D/p)^T. With given weights only the
// points are random, and the bound is that of the rank at those weights (same formula).
// Same caveat as generic.hpp: the minor is assumed not identically zero mod p.
//
// Cost (this version): params·(D_L+1) weight reductions and rows·params·(D_L+1) forward
// passes per trial — meant for small networks; a dual-number evaluator is future work.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/network.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace seprank {

enum class DimensionOutput { scalar, all };
std::string to_string(DimensionOutput o);
DimensionOutput dimension_output_from_string(const std::string& s);  // invalid_input naming the value

struct DimensionOptions {
    DimensionOutput output = DimensionOutput::scalar;
    long trials = 2;         // >= 1 (checked)
    std::uint64_t seed = 1;
    int prime_bits = 62;     // 20..62 (checked)
    long margin = 8;         // extra rows beyond the parameter count, >= 0 (checked)
    // Given weights (a network of the same spec): the local dimension there. Empty: random.
    std::optional<Weights> weights;
};

// Checks every option (invalid_input naming the value).
void check_options(const DimensionOptions& opt);

// Number of weight entries the parameter map varies (every entry of every weight matrix,
// in random_network's order). For low-rank attention the rows kept at zero count too.
long dimension_parameters(const NetworkSpec& s);

// The answer: value = max trial rank; kind generic (failure_bound above); quantity
// "dimension"; method "jacobian"; variant "interpolation"; field Z/p; prime; rows, cols
// of J; trials, trial_ranks, degenerate; weight_degree D_L; bound_degree D; note with
// the parameter count. Checked (invalid_input): the spec; the options; a zero-parameter
// network; given weights of the wrong shape (via check_shapes).
RankAnswer function_dimension(const ValidSpec& spec, const DimensionOptions& opt = {});

}  // namespace seprank
