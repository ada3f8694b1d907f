// seprank — degree growth, measured.
//
// measure_degree(net): the total degree of f without expanding it. Along a random line
// t ↦ a + t·b (a, b uniform in (Z/p)^n), g(t) = f(a + t b) has degree ≤ deg f = D, and
// its coefficient of t^D is f_D(b), the top homogeneous part of f at b. We evaluate g
// at D+2 points mod p, interpolate through D+1 of them and check the last (consistency
// of the structural bound deg f ≤ d^L), and report the highest non-zero coefficient.
// A coefficient non-zero mod p is non-zero over Q, so the measured degree is a
// certified lower bound on deg f; with the structural upper bound d^L it is exact when
// the two agree. A false low reading (f_D(b) ≡ 0 mod p for f_D ≠ 0) needs p to divide
// every coefficient of f_D, or f_D mod p to vanish at the random b (≤ D/p,
// Schwartz–Zippel); false_low_bound bounds both. Cost: (D+2) forward evaluations +
// O(D²) interpolation.
//
// budget_comparison(spec, B, degrees): for each block degree d, depth L = ⌊B / P(d)⌋
// with P(d) the parameters of one layer; predicted d^L, measured degree, and the
// per-parameter growth ln d / P(d) next to the idealised h(d) = ln d / d; with
// BudgetOptions, also each architecture's functional dimension (dimension.hpp) and
// generic separation rank (generic.hpp).
#pragma once

#include "seprank/answer.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace seprank {

struct DegreeMeasurement {
    long degree;                  // measured (certified lower bound; exact when == predicted)
    Integer predicted;            // d^L
    // The chance that a degree below d^L is a false low reading: D/p, plus the chance that
    // p divides every coefficient of f's top form (see measure_degree). At most 1.
    double false_low_bound;
    std::uint64_t prime = 0;      // the p of the evaluations
};

// Requires d^L ≤ 10^6 (checked, resource_limit).
// Throws resource_limit unless measure_degree(net with this spec) is within reach: the
// degree D = d^L at most 10^6 and (D + 2)·(parameters·N + N²·dx·(L+1)) ≤ 2·10^10
// estimated operations. The spec is validated by the conversion to ValidSpec (once; not
// again when given one). Cost: output_degree and parameter_count, O(depth) (fc, power:
// O(depth²)).
void check_measurable(const ValidSpec& s);
// The degree of f measured along one random line (header; the prime and the points from
// Rng(seed)), with d^L and the chance of a false low reading. Checks net (check_shapes),
// then check_measurable, then p, before any evaluation. p = 0: a 62-bit prime drawn
// uniformly (again while it divides a weight's denominator), and false_low_bound = D/p +
// the chance that it divides every coefficient of f_D (prime_divisor_bound of
// log2_coefficient_bound(net)). Otherwise p must be a prime above D + 1 (the points
// t = 0..D+1 distinct mod p), or invalid_input naming it, and false_low_bound is D/p where
// every coefficient of Λ·f lies below p (a non-zero one is no multiple of p), else 1.
// domain_error when f along the line has degree above d^L (a bug), or when a given p
// divides a weight's denominator. measured -1: f vanishes on the line.
// Cost: ModEvaluator's setup, D + 2 forward evaluations mod p (the cost of forward.hpp each),
// one interpolation of degree D, at most O(D²), and log2_coefficient_bound's forward pass.
DegreeMeasurement measure_degree(const Network& net, std::uint64_t seed, std::uint64_t p = 0);

// One row of degree growth, as `seprank degree` and Python's degree() print it.
struct DegreeRow {
    long depth = 0;           // net.spec.depth (a stack: its layers)
    long degree = -1;         // the row's degree: the expansion's when made (exact; -1: f = 0), else the line's (-1: f vanished on the line)
    long line_degree = -1;    // measure_degree's reading (-1: f vanished on the line); below `degree`: a false low reading
    Integer predicted;        // d^L
    long terms = -1;          // the expansion's terms; -1: not expanded (estimated over max_expand_bytes)
    Integer parameters;       // parameter_count
    Integer weight_degree;    // D_L
    double false_low_bound = 0;  // the chance that `degree` below d^L is falsely low: measure_degree's; 0 when expanded (exact)
    double seconds = 0;       // the row's wall time
};
// measure_degree(net, seed), then f's expansion when estimate_expansion puts it at most
// max_expand_bytes (>= 0; inf: always): its terms, and its exact degree as the row's (a
// line's reading that differs from it was falsely low), with false_low_bound 0. Checks as measure_degree (net,
// measurable), invalid_input for max_expand_bytes < 0 or NaN. Cost: measure_degree's, plus
// the expansion's when made (expand.hpp).
DegreeRow degree_row(const Network& net, std::uint64_t seed, double max_expand_bytes);

struct BudgetRow {
    long block_degree;
    long depth;
    Integer layer_params;
    Integer total_params;
    Integer predicted;             // d^L
    long measured = -1;            // -1 when d^L is beyond the measurable range
    double log_degree_per_param;   // L ln d / B
    double h;                      // ln d / d
    // BudgetOptions::dimension: function_dimension of the depth-L network (value, expected).
    std::optional<RankAnswer> dimension;
    // BudgetOptions::rank: generic_rank of the depth-L network, balanced partition
    // (value; converged false: a lower bound at the size budget).
    std::optional<RankAnswer> rank;
    // Why measured, dimension and rank are absent though asked for, and for fc with a width
    // W other than N·dx both layer counts (the first layer's and each later one's); empty
    // otherwise. Set
    // when the budget buys more than kMaxDepth layers (d = 1, or a large budget): the row
    // keeps its counts and d^L, and the other rows are measured as usual.
    std::string note;
};

struct BudgetOptions {
    // Each row's functional dimension: function_dimension(spec of depth L) with the default
    // DimensionOptions (scalar output, 2 trials) except seed (budget_comparison's) and threads.
    bool dimension = false;
    // Each row's generic separation rank w.r.t. the balanced partition: generic_rank with
    // the table's settings (table_generic_defaults: 1 trial, size budget 8192) except seed
    // and threads. Needs at least 2 tokens (checked).
    bool rank = false;
    int threads = default_threads();  // 1..max_threads() (checked when either is asked for)
};

struct BudgetComparison {
    std::vector<BudgetRow> rows;
    long best_measured_d;          // argmax of the degree reached (ties: smaller d); 0 when no row reached one (every drawn output the zero polynomial)
    long best_h_d;                 // argmax of h(d) over the integers listed
};

// Checked (invalid_input): budget >= 1, degrees not empty, a family whose block degree is free, base.widths
// empty or one width W (fc: every layer W wide), and for each d the one-layer spec (base
// with block degree d), validated; the spec of depth L is validated where it is measured
// (random_network). Depth L: as many layers as B buys, the first layer's parameters
// (BudgetRow::layer_params) then each later one's (counted, not validated), which differ
// only for fc given a W other than N·dx (the row's note then says both). A row whose
// budget buys no layer (L = 0: no parameters) gets no dimension or rank; a row whose
// budget buys more than kMaxDepth layers is counted but not built (measured -1, no
// dimension or rank, BudgetRow::note says why) instead of failing the comparison.
// resource_limit before any row when a degree's predicted d^L would pass 2^17 bits.
// One row per entry of degrees (header paragraph); the first overload is opt = {}. Cost:
// dominated by each measured row's measure_degree (rows with d^L <= 20000 only: at most
// 20002 forward passes each) and, with opt, each row's function_dimension and generic_rank
// (dimension.hpp, generic.hpp); the counts themselves are O(depth) exact products per row.
BudgetComparison budget_comparison(const NetworkSpec& base, long budget, const std::vector<long>& degrees,
                                   std::uint64_t seed);
// The family check of budget_comparison alone, before a spec is built (a caller that
// fills the degree key itself: the CLI, Python): invalid_input naming the family and the
// families whose block degree is free, for a family that is not L copies of one block
// (a stack, power) or fixes its block degree (attention). O(families).
void check_budget_family(Family family);
BudgetComparison budget_comparison(const NetworkSpec& base, long budget, const std::vector<long>& degrees,
                                   std::uint64_t seed, const BudgetOptions& opt);

}  // namespace seprank
