// seprank — which deep power networks have a defective neurovariety: every one-output
// power network in a range of widths, depths and per-layer exponents, its dimension
// (function_dimension) against the expected dimension, each defective case named
// (docs/defects.md).
//
// A network n = (n_0, …, n_L), d = (d_1, …, d_{L−1}), n_L = 1, is
//     x ↦ W_L σ_{L−1}(W_{L−1} ⋯ σ_1(W_1 x)),   σ_l the entrywise power t^{d_l},
// a stack of dense layers (`dense:width=n_l:power=d_l`, the last `power=1`) on n_0 inputs.
// Its expected dimension by Massarenti–Mella's rule is the least of three upper bounds on
// the dimension of its image:
//   rescaled = Σ_l n_l n_{l−1} − Σ_{l<L} n_l   the weights less one rescaling per hidden unit;
//   forms    = C(n_0 − 1 + D, D), D = ∏ d_l     every form of degree D in n_0 variables;
//   cap      = Σ_{l≤L−2} n_l (n_{l−1} − 1) + C(n_{L−2} − 1 + d_{L−1}, d_{L−1})
//              the last two layers compose into one form of degree d_{L−1} in n_{L−2}
//              variables, whatever n_{L−1}.
// expected_dimension counts the same and caps every run of layers alike: layer m's n_m
// pre-activations are forms of degree d_{a+1}⋯d_{m−1} in n_a variables, so layers a+1..m
// together count at most n_m·(C(n_a − 1 + D, D) − 1), whatever the widths between (the
// `bound`, never above `expected`). A measured dimension (a lower bound, mod p) that
// reaches the bound is therefore exact.
//
// A network below Massarenti–Mella's expected dimension is defective. Each one is explained
// by the bound (it reaches it), or by a defective level, or by neither. Level l (1..L−1) is
// the two-layer network n_{l−1} → n_l (power d_l) → n_{l+1} (linear) with all n_{l+1}
// outputs: the n_{l+1}-tuples of forms of degree d_l sharing n_l powers of linear forms, a
// secant variety of a Segre–Veronese variety; its own dimension is measured against its
// own expected one. The last level (n_{L+1} = 1 output) is Alexander–Hirschowitz's case,
// and its measured defect is checked against their list.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/dimension.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"
#include "seprank/record.hpp"

#include <cstdint>
#include <vector>

namespace seprank {

// The range swept: L = min_depth..max_depth weight matrices, every width n_0..n_{L−1} in
// 2..max_width, n_L = 1, every exponent d_l in min_power..max_power. The defaults are
// Massarenti–Mella's exhaustive check (widths <= 5, depth <= 4, exponents 2..5).
struct DefectRange {
    long max_width = 5;                 // 2..8 (checked)
    long min_depth = 2, max_depth = 4;  // 2 <= min_depth <= max_depth <= 5 (checked)
    long min_power = 2, max_power = 5;  // 2 <= min_power <= max_power <= 8 (checked)
    std::uint64_t seed = 1;             // network i is measured with seed + i
    int threads = default_threads();    // 1..max_threads() (checked); networks are split among them
    // The limit of the range's time estimate and of each network's dimension estimate, in
    // seconds; 0: default_max_seconds() (the CLI's --max-time). Finite and >= 0 (checked).
    double max_seconds = 0;
};

// Checks every field (invalid_input naming the value): the ranges stated above. O(1).
void check_range(const DefectRange& range);

// The network (n_0, …, n_L; d_1, …, d_{L−1}) as a stack of dense layers on one token of
// n_0 inputs: `dense:width=n_l:power=d_l`, the last `power=1` (validated when converted
// to a ValidSpec). Precondition: n.size() == d.size() + 2 >= 3 (not checked). O(L).
NetworkSpec power_stack(const std::vector<long>& widths, const std::vector<long>& powers);

// alexander_hirschowitz_exception(vars, degree, summands) is declared in dimension.hpp
// (included here), which names the exceptions in its answers.

// Why a network falls below Massarenti–Mella's expected dimension.
enum class DefectReason {
    none,         // it does not
    bound,        // it reaches the bound: a run of layers counts less than its weights
    level,        // a level is defective (measured)
    unexplained,  // neither
};
// The enumerator's name ("none", "bound", "level", "unexplained"); internal_error for a
// value outside the enum. O(1).
const char* to_string(DefectReason r);

struct DefectRow {
    std::vector<long> widths;  // n_0..n_L (n_L = 1)
    std::vector<long> powers;  // d_1..d_{L−1}
    long parameters = 0;       // Σ n_l n_{l−1}
    long rescaled = 0;         // Massarenti–Mella's three bounds (forms: LONG_MAX when larger)
    long forms = 0;
    long cap = 0;
    long expected = 0;         // their least: Massarenti–Mella's expected dimension
    long bound = 0;            // expected_dimension(spec, scalar).expected: every run capped, <= expected
    RankAnswer dimension;      // function_dimension's answer (value: the measured dimension)
    bool exact = false;        // dimension.value == bound: certified
    long defect = 0;           // expected − dimension.value
    std::vector<long> defective_levels;  // the levels l (1..L−1) measured defective
    bool ah_exception = false;  // the last level (n_{L−2}, d_{L−1}, n_{L−1}) is on the AH list
    DefectReason reason = DefectReason::none;
};

// A level n_{l−1} → n_l → n_{l+1} at power d_l, measured once per sweep.
struct DefectLevel {
    long inputs = 0, width = 0, outputs = 0, power = 0;
    long expected = 0;   // the secant variety's expected dimension: min(n_l·(n_{l−1} + n_{l+1} − 1), n_{l+1}·C(n_{l−1} + d − 1, d))
    RankAnswer dimension;  // function_dimension (all outputs)
};

struct DefectSweep {
    DefectRange range;
    std::vector<DefectRow> rows;  // by depth, then widths, then powers, lexicographically
    std::vector<DefectLevel> levels;  // every level of every row, once, in order
    // Networks of the range left out, as Massarenti–Mella leave them: a layer with room for
    // no more than its width, C(n_{l−1} − 1 + d_l, d_l) <= n_l for some l < L (its outputs
    // can span every form of their degree).
    long skipped = 0;
    long exact = 0;         // rows whose dimension reaches the bound
    long defective = 0;     // rows below Massarenti–Mella's expected dimension, by reason:
    long by_bound = 0, by_level = 0, unexplained = 0;
    long silent = 0;        // rows with a defective level that are not defective
    long ah_mismatch = 0;   // rows whose last level's measured defect disagrees with the AH list
    double seconds = 0, peak_mib = 0;
};

// The sweep. Refused (invalid_input) for a range out of bounds; function_dimension's
// refusals pass through. Cost: one function_dimension per network and per distinct level
// (P <= 8·8·(L−1) + 8 weights each); the default range's 12,810 networks take about 4 s
// on 2 cores.
DefectSweep defect_sweep(const DefectRange& range);

// The columns of a network's row, in order: depth, widths and powers (space-separated),
// parameters, rescaled, forms ("huge" past 2^63), cap, expected, bound, dimension, defect,
// label ("exact" where the dimension reaches the bound, else "lower bound"),
// failure_bound (0 where exact), last_level ("n_{L−2} d_{L−1} n_{L−1}"),
// defective_levels (space-separated), ah_exception, reason. O(1).
const std::vector<std::string>& defect_columns();
// One network's row, those columns: what `seprank defects --format csv|json` writes and
// Python's defects() returns. O(L).
Record defect_record(const DefectRow& r);
// The sweep's counts: networks, skipped, exact, defective, by_bound, by_level,
// unexplained, silent, levels, defective_levels (the defective levels as text:
// "(n_{l−1},n_l,n_{l+1}) at d: dimension < expected; …", or "none"), ah_mismatch, seconds,
// peak_mib. O(levels).
Record defect_summary(const DefectSweep& sw);

}  // namespace seprank
