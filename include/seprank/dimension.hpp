// seprank — functional dimension of a network family (docs/dimension.md).
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
// margin of random input points uniform on Z/p. Every derivative ∂F/∂w_j at x_s is exact
// mod p, in one of two variants (DimensionVariant): reverse (the default) runs the
// forward pass once per point on a tape and sweeps it backwards, giving the whole row of
// J; interpolation (the reference) evaluates t ↦ F(w + t·e_j; x_s), a polynomial of
// degree <= D_L (the weight degree) in t, at t = 0..D_L (ModEvaluator) and reads its
// derivative at 0 off Lagrange interpolation mod p. The rank of J mod p is a lower bound
// of the generic rank.
//
// Failure bound (Schwartz–Zippel, as generic_rank). An entry of J is a polynomial of
// degree <= D - 1 < D in the drawn weights and points together, where D = D_L + d^L
// (plus d^L more with an embedding, whose matrix M is drawn with the weights). A trial
// lands below the generic rank R* only if an R*×R* minor of J, a non-zero polynomial of
// degree <= R*·D, vanishes. R* is unknown; if it exceeds the answer v, a trial stays at v
// only if, at one of the ranks it took, the minor of size ρ = min(rank + 1, rows, params)
// vanished: probability <= s·D/p, s the sum of those ρ.
// Or it vanishes identically mod the trial's prime: probability <= c, the chance that a
// random prime divides the minor's integer content (generic.hpp; m·(log2 m + log2 D_w +
// log2 F) bits). Each trial draws its own prime, weights and points, so T trials give
// failure_bound = Π_t (s_t·D/p_t + c_t), a trial below v counting 1. A trial whose rank
// memory stopped growing, or given weights: a lower bound (modular_lower_bound), 1.
//
// Variants (DimensionOptions::variant), one dispatcher function_dimension:
//   reverse        (default) one taped forward pass mod p per (point, output coordinate)
//                  records every product and sum with its two or three partial
//                  derivatives; one backward sweep gives the whole row ∂F/∂w (x_s)
//                  exactly mod p. Cost per row O(forward pass); memory one tape (a few
//                  times the pass's operation count, 40 bytes each). Rows run on
//                  `threads` threads.
//   interpolation  the reference: ∂F/∂w_j read off Lagrange interpolation of
//                  t ↦ F(w + t·e_j; x_s) at t = 0..D_L with the plain mod-p evaluator.
//                  Cost params·(D_L+1) forward passes per row; small networks only.
// Both give the same Jacobian entry by entry (tests/analysis/test_dimension.cpp).
//
// Expected dimension (expected_dimension, docs/dimension.md "Expected"): the parameters
// minus the obvious symmetries — per attention head GL(da) on (W^Q, W^K) and on
// (W^V, W^O) and one rescaling between them; per hadamard/fc unit the rescaling of its
// d rows against its output; GL(dx) between consecutive layers without a residual; rows
// and columns the output never reads — capped by the number of monomials the output can
// have. It is an upper bound of the dimension when those symmetries are all; `defect`
// says the measured rank fell below it (a symmetry or relation beyond the obvious, or a
// degenerate draw with probability <= failure_bound).
#pragma once

#include "seprank/answer.hpp"
#include "seprank/device.hpp"
#include "seprank/forward.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"
#include "seprank/network.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

enum class DimensionOutput { scalar, all };
// "scalar" | "all" (internal_error outside the enum) and the inverse (exact). O(1).
std::string to_string(DimensionOutput o);
DimensionOutput dimension_output_from_string(const std::string& s);  // invalid_input naming the value

enum class DimensionVariant { reverse, interpolation };
// "reverse" | "interpolation" (internal_error outside the enum) and the inverse (exact). O(1).
std::string to_string(DimensionVariant v);
DimensionVariant dimension_variant_from_string(const std::string& s);  // invalid_input naming the value

struct DimensionOptions {
    DimensionOutput output = DimensionOutput::scalar;
    DimensionVariant variant = DimensionVariant::reverse;
    int threads = default_threads();         // 1..max_threads() (checked); rows of J are split among them
    long trials = 2;         // 1..1000 (checked)
    std::uint64_t seed = 1;
    int prime_bits = 62;     // 20..62 (checked)
    long margin = 8;         // extra rows beyond the parameter count, >= 0 (checked)
    // Time limit of the work estimate taken before anything is drawn (seconds, finite and
    // >= 0, checked; 0: default_max_seconds(), limits.hpp): over it, resource_limit.
    double max_seconds = 0;
    // Given weights (a network of the same spec): the local dimension there. Empty: random.
    std::optional<Weights> weights;
    // Where the Jacobian's rank is taken (device.hpp): cpu, cuda or automatic. On the GPU
    // the prime has min(prime_bits, cuda_prime_bits()) bits (noted when fewer); the
    // Jacobian is built on the CPU either way.
    Device device = Device::cpu;
};

// Checks every option (invalid_input naming the value): the ranges stated in
// DimensionOptions. O(1).
void check_options(const DimensionOptions& opt);

// Number of weight entries the parameter map varies: every entry of every weight matrix
// except the structural zeros (low-rank attention's rows k+1..da of W^Q), in
// random_network's order (Model::varied_parameters). Precondition: the spec, checked by
// the conversion. Cost O(depth): the layers' counts, no weights drawn.
long dimension_parameters(const ValidSpec& s);
// Pointers to those entries of w (a network of spec s), in that order: the columns of J.
// Precondition (not checked): w has the shapes of s (check_shapes). O(parameters).
std::vector<Rational*> dimension_weight_entries(const ValidSpec& s, Weights& w);

// The Jacobian J mod p at net's weights (reduced mod p) and the given points: row
// s·K + o is ∂F_o/∂w (x_s) for the o-th of the K outputs (scalar: K = 1; all: tokens in
// order, coordinates within), columns as dimension_weight_entries. Checked
// (invalid_input): net (check_shapes), the points' shapes, p an odd prime, threads in 1..max_threads();
// interpolation: p > D_L (the weight degree; nodes 0..D_L distinct mod p) and D_L < 2^20.
// Either variant; both give the same matrix. Cost per row as the variant (above): one
// taped forward pass and backward sweep (reverse), params·(D_L+1) forward passes
// (interpolation); memory rows × params words.
NmodMat dimension_jacobian(const Network& net, const std::vector<Point<std::uint64_t>>& points, std::uint64_t p,
                           DimensionOutput output, DimensionVariant variant, int threads = 1);

// The expected dimension and how it was counted (docs/dimension.md, "Expected").
struct ExpectedDimension {
    long parameters = 0;  // dimension_parameters
    long expected = 0;    // min(parameters - Σ losses, ambient)
    long ambient = 0;     // monomials the output(s) can have (LONG_MAX when larger)
    // Each reduction and its size, in order: ("layer 2 head 1: GL(da) on W^Q,W^K", 4), ...
    std::vector<std::pair<std::string, long>> losses;
    // Defects known to be real in a layer's own count, not subtracted from `expected`
    // (expected stays what the parameters and symmetries give): ("layer 1: Strassen's: …",
    // 1). Inside a longer stack the layer's defect is measured to carry to the network's,
    // not proven to.
    std::vector<std::pair<std::string, long>> known_defects;
};
// Precondition: a valid spec (checked by the conversion). Cost O(L·H + L²) arithmetic,
// plus a Model of the shorter network (O(parameters), its weight mask) per layer absorbed
// (Model::expected_losses).
ExpectedDimension expected_dimension(const ValidSpec& s, DimensionOutput output);

// Whether sums of s powers of degree d of linear forms in v variables fill less than the
// expected min(s·v, C(v − 1 + d, d)) dimensions: the Alexander–Hirschowitz exceptions,
// d = 2 with 2 <= s <= v − 1, and (v, d, s) = (3, 4, 5), (4, 4, 9), (5, 3, 7), (5, 4, 14).
// Precondition: v, d, s >= 1. O(1).
bool alexander_hirschowitz_exception(long vars, long degree, long summands);
// When the network is x ↦ Σ_{k<=w} c_k (w_k·x)^r on its v = N·dx inputs (a power network of
// one hidden layer and one output, no embedding; any spelling: family power --widths w,1,
// or a stack dense:width=w:power=r,dense:width=1:power=1), whose image is the cone over the
// w-th secant variety of the r-th Veronese of P^(v−1): {v, r, w}; else empty. O(depth).
std::vector<long> secant_of_veronese(const ValidSpec& s);

// The answer: value = max trial rank; kind generic (failure_bound above), exact (failure
// bound 0) where it reaches min(parameters, ambient), which bound it whatever the weights; quantity
// "dimension"; method "jacobian"; variant "reverse" | "interpolation"; output; field Z/p;
// prime (of the trial that gave the value), primes_used (distinct primes over the
// trials); rows, cols (= parameters) of J; parameters, expected (and the column defect);
// trials, trial_ranks, degenerate; weight_degree D_L; bound_degree D; evaluations
// (forward passes); note (naming an Alexander–Hirschowitz exception where the network is
// one, secant_of_veronese). Checked (invalid_input): the spec; the options; a
// zero-parameter network; given weights of the wrong shape (via check_shapes). Before
// anything is drawn, memory (draws and Jacobians over default_max_memory()) and work
// (estimated from one counted pass, over opt.max_seconds) are checked: resource_limit.
// Cost per trial: the Jacobian's rows (parameters + margin, more while its rank grows
// below the expected count, as long as the matrix fits default_max_memory()) at the
// variant's per-row cost, and the rank of J mod p, O(rows·params·min(rows, params)).
RankAnswer function_dimension(const ValidSpec& spec, const DimensionOptions& opt = {});
// The two variants themselves (same contract, checks and cost as function_dimension with
// that variant; opt.variant is ignored; the dispatcher calls one of them).
RankAnswer dimension_reverse(const ValidSpec& spec, const DimensionOptions& opt);
RankAnswer dimension_interpolation(const ValidSpec& spec, const DimensionOptions& opt);

}  // namespace seprank
