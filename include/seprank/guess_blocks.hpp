// guess_blocks — a law for the degree blocks of a block table (seprank guess --blocks,
// docs/guess_blocks.md).
//
// A block table (table_blocks.hpp) gives, per configuration and degree block a, the
// block's rank and its caps. Every block's rank is at most cap = min(cap_a, cap_b), and
// the profiles seen in practice rise from the first block, peak, and fall to the last:
// each side follows its own closed form until the other, or the cap, is smaller. The law
// searched for is therefore
//     rank(x, a) = min(cap_a, cap_b, F_1, …, F_m)        (m ≤ max_forms, default 3)
// with each F_i a term in the configuration's variables x (vars) and one block index:
//     k = (a − a_first)/step   counted from the configuration's first block, or
//     j = (a_last − a)/step    counted from its last,
// (step = the distance between the configuration's blocks: 2 where a parity vanishes).
// The terms are products of binomials with integer-linear arguments — hypergeometric
// terms in several variables —
//     C(i + Σ β_v·v + γ, Σ δ_v·v + ε)                 (one factor),
//     the product of two such factors,
//     C(C(i + Σ β_v·v + γ, Σ δ_v·v + ε) + ζ, 2)       (a binomial of a binomial),
//     α·i + Σ β_v·v + γ                                (a line),
// with i the index (k or j), β_v, δ_v ∈ {0, 1} with at most one variable in each
// argument, γ ∈ −2..2, ε ∈ −1..2, ζ ∈ {0, 1}, α ∈ 1..4 and, in lines, β_v ∈ −2..2,
// γ ∈ −4..4. No coefficient is fitted: a term either gives a row's rank or does not, so
// each row is a check. With two variables that is 35,460 terms (2·(900 + 180 + 360 +
// 16,290)), with three 113,640.
//
// The discipline of guess.hpp: the law is chosen on the fit rows only — every row but
// those of the held-out configurations (the configurations with the largest sum of the
// variables) — and then must give the held-out rows; the law is a conjecture, labelled
// so with its counts. Forms are chosen greedily (each the term that explains most fit
// rows not yet explained, ties to the simpler term), while a form adds a row. A row the
// law misses is an exception, listed with both values; at most max_exceptions of the
// fit rows may be (beyond that there is no law), and the held-out rows the law misses
// are exceptions too, counted apart (they refute it unless the caller accepts them).
// Rows whose status is not ok (lower bounds) are never fitted: they are counted apart.
#pragma once

#include "seprank/guess.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <string>
#include <vector>

namespace seprank {

struct BlockLawOptions {
    std::vector<std::string> vars;  // the configuration's variables, 0..3 (checked: distinct, not block columns)
    int max_forms = 3;              // forms in the minimum beside the cap (1..4)
    long max_exceptions = 2;        // fit rows the law may miss (0..64)
};
// invalid_input naming the first bad field. O(1).
void check_options(const BlockLawOptions& opt);

// One term of the law (see the top). kind: 'b' one binomial, 'p' a product of two,
// 'n' a binomial of a binomial, 'l' a line. index: 0 for k, 1 for j.
struct BlockTerm {
    char kind = 'b';
    int index = 0;
    // factor f: top = index + Σ top[v]·x_v + top0 (a line: alpha·index + Σ top[v]·x_v + top0),
    // bottom = Σ bottom[v]·x_v + bottom0.
    struct Factor {
        std::vector<long> top, bottom;
        long top0 = 0, bottom0 = 0;
    };
    std::vector<Factor> factors;  // 1 ('b', 'n', 'l') or 2 ('p')
    long alpha = 1;               // a line's slope in the index
    long outer_add = 0;           // 'n': C(C(…) + outer_add, 2)
    // The term's value, saturating at 2^62 (a value that large explains no rank); false
    // when an argument leaves the domain (a negative top or bottom). No allocation.
    bool value(const std::vector<long>& x, long k, long j, long& out) const;
    // Plain text over the variable names, e.g. "C(k + dim, dim - 1)*C(k + dim - 1, dim - 1)".
    std::string text(const std::vector<std::string>& vars) const;
};

// A row given twice in a table (table --resume appends the recomputed row after its lower
// bound or skipped one): which counts, the one rule of guess --blocks, plot (a point per
// series and x, plot --blocks a point per block) and the block-hint readers. A final row (a
// value, not a lower bound) over one that is not; of two final rows the first where they
// are equal, a conflict where not (the caller refuses them, naming both lines); of two
// that are not final the second only where it is larger. O(1).
enum class BlockTwice { keep_first, take_second, conflict };
inline BlockTwice row_given_twice(bool first_final, bool second_final, bool equal, bool second_larger) {
    if (first_final && second_final) return equal ? BlockTwice::keep_first : BlockTwice::conflict;
    if (first_final || second_final) return second_final ? BlockTwice::take_second : BlockTwice::keep_first;
    return second_larger ? BlockTwice::take_second : BlockTwice::keep_first;
}
// The rule over a degree block's rows: final where ok, ranks compared (a rank < 0: none
// given, smaller than any). O(1).
inline BlockTwice block_given_twice(bool first_ok, long first_rank, bool second_ok, long second_rank) {
    return row_given_twice(first_ok, second_ok, first_rank == second_rank, second_rank > first_rank);
}

// One block row as the law sees it.
struct BlockPoint {
    std::vector<long> x;   // the variables
    // The configuration as lines name it: the variables, then each other key column whose
    // value differs between the kept configurations ("dim=4,depth=2,heads=4").
    std::string name;
    long block = 0, k = 0, j = 0;
    long cap_a = 0, cap_b = 0, rank = 0;  // rank: the block's rank, or its lower bound when lower_bound
    bool held_out = false;
    bool lower_bound = false;             // the row's status is not ok: rank is a lower bound (0 when the cell is empty)
    // The row's failure_bound cell: the chance that a generic rank lies below the generic
    // one, so that a rank below a law's value refutes the law only up to it. Where the table
    // has no such cell (or it is empty): 0 if the row's label is certified (or exact), else
    // 1 (unknown: no certain refutation).
    double failure_bound = 0;
};

struct BlockException {
    std::size_t row = 0;    // index into BlockLaw::rows
    long law = 0;           // what the law gives (the rank of the row is rows[row].rank)
};

struct BlockLaw {
    bool found = false;
    std::vector<std::string> vars;
    std::vector<BlockTerm> forms;    // the minimum's terms, beside the cap
    std::vector<BlockPoint> rows;    // the ok rows, configurations in table order
    long fitted = 0, confirmed = 0;  // fit rows given exactly; held-out rows given exactly
    long at_cap = 0;                 // rows (fit and held out) whose law value is the cap
    std::vector<BlockException> exceptions;           // fit rows missed
    std::vector<BlockException> held_out_exceptions;  // held-out rows missed
    // Rows left out: lower bounds (status not ok), rows without a block, and every row of a
    // configuration with a lower-bound block (its closed blocks a biased sample; a note says so)
    long not_ok = 0;
    long tried = 0;                  // terms evaluated
    std::string held_out;            // the held-out configurations, e.g. "dim=3,depth=3"
    // The key columns, not variables, with one non-empty value over the law's rows, and
    // that value: family, tokens, partition, … compare_law leaves out rows of another value
    // (the law says nothing about them); a column the law's rows lack is not one.
    std::vector<std::pair<std::string, std::string>> fixed;
    std::vector<std::pair<long, long>> fit_range;  // each variable's least and greatest value over the fit rows
    // Caveats on the law as found, e.g. a variable with one value in the fit rows, which
    // the law cannot depend on ("heads takes one value (1) in the fit rows: …").
    std::vector<std::string> notes;
    std::string reason;              // when !found: why
    // "min(cap_a, cap_b, C(…), C(…)) with k = …, j = …" — the law in one line.
    std::string text() const;
};

// The law of the block rows of `table` kept by `where` (guess.hpp's row_matches), over
// opt.vars. Checked: opt (check_options), the table's block columns (block, blocks,
// rank, cap_a, cap_b, status: invalid_input naming a missing one), integer cells, at
// least two configurations (one to fit, one held out; invalid_input otherwise).
// Cost: about 10^4 terms evaluated on every row, then a greedy pass of max_forms over
// them: O(terms · rows) word operations (a 500-row table: well under a second).
BlockLaw guess_block_law(const std::vector<TableRow>& table, const std::vector<std::pair<std::string, std::string>>& where,
                         const BlockLawOptions& opt);

// The law's blocks at a new point: the network of the first row `where` keeps, with the
// variables set to x (spec_of_row), its degree blocks (degree_block_sides, the table's
// partition or the balanced one) and the law at each. invalid_input when the law was not
// found, the point has the wrong size, or the network has no blocks (not homogeneous);
// resource_limit when a block's predicted value passes 2^61 (a saturated cap under a
// smaller form is not one) or the network's weights would not fit --max-memory (the spec
// is validated as any network, though no weights are drawn).
// Cost: the network's validation and O(D) per term.
struct BlockPrediction {
    long block = 0, k = 0, j = 0, cap_a = 0, cap_b = 0, predicted = 0;
    // A cap at 2^61 − 1 is saturated (the true cap is at least that): no number to print.
    bool cap_saturated(long cap) const { return cap >= (1L << 61) - 1; }
};
// The network and partition predict_blocks predicts at (above): the first row `where`
// keeps, with the law's variables `vars` set to x, and the row's partition where the point
// has the row's tokens (the balanced one where the row has none); at other tokens the
// pattern every kept row's partition follows at the point's N: balanced, else 1|2..N.
// invalid_input when no row matches, x has the wrong size, the network is invalid, a
// kept row's partition is none of its tokens, or the rows follow neither pattern (naming
// it). Cost: one validation, and one parse of each kept row's partition at other tokens.
struct PredictionNetwork {
    ValidSpec spec;
    ValidPartition part;
};
PredictionNetwork prediction_network(const std::vector<TableRow>& table, const std::vector<std::pair<std::string, std::string>>& where,
                                     const std::vector<std::string>& vars, const std::vector<long>& x);
std::vector<BlockPrediction> predict_blocks(const BlockLaw& law, const std::vector<TableRow>& table,
                                            const std::vector<std::pair<std::string, std::string>>& where, const std::vector<long>& x);

// Caveats on predicting at x: one line for each variable that x moves away from the one
// value the fit rows give it (the law cannot depend on such a variable, so the prediction
// extrapolates along it untested). Empty when there are none. O(vars).
std::vector<std::string> prediction_notes(const BlockLaw& law, const std::vector<long>& x);

// Compares the law's prediction at x with computed block ranks (a generic answer's
// block_ranks, indexed by a = 0..D): the blocks that differ, each with both values, and
// both totals (computed_total sums every block given, predicted or not). Precondition
// (checked, invalid_input): every predicted block has an entry in block_ranks, as a
// graded answer's D + 1 do (a plain answer's empty list has none). O(D + predictions).
struct BlockCheck {
    long predicted_total = 0, computed_total = 0;
    std::vector<std::pair<BlockPrediction, long>> differ;  // (prediction, computed rank)
};
BlockCheck compare_blocks(const std::vector<BlockPrediction>& predicted, const std::vector<long>& block_ranks);

// Checks the law's prediction `pred` (predict_blocks) at its network `at`
// (prediction_network) with generic's graded evaluation, block by block (`guess --blocks
// --check`, Python's BlockLaw.check): "agree" when every predicted block's generic rank
// equals the prediction; "disagree" when one differs (differ lists each, with both
// values); "unchecked" with the reason when the predicted total is above opt.max_side
// (generic is not run: its rank is at most its evaluation side, so only a lower bound
// could come back) or generic gave only a lower bound (not converged, e.g. past
// opt.seconds, its own time budget). A generic block rank above the prediction is a
// certified lower bound above it: the law is refuted for certain (certain). One below it
// refutes the law only if that rank is the generic one: up to failure_bound.
// Preconditions (checked, invalid_input): check_options(opt). Cost: one generic_rank of
// `at` (graded evaluation), at most about opt.seconds; O(D) past max_side.
struct BlockPredictionCheck {
    std::string verdict;          // "agree", "disagree" or "unchecked"
    std::string reason;           // unchecked: why ("the predicted total is above --check-max-side N",
                                  // "generic gave the lower bound R")
    bool ran = false;             // generic was run (not refused by max_side)
    long generic = 0;             // its total rank (when ran)
    std::string label;            // its label (when ran), RankAnswer::label()
    double failure_bound = 1;     // its failure bound (when ran; 0 certified)
    double seconds = 0;           // the time generic took
    std::vector<std::pair<BlockPrediction, long>> differ;  // (prediction, generic rank)
    bool certain = false;         // some block's generic rank is above the prediction
};
BlockPredictionCheck check_block_prediction(const PredictionNetwork& at, const std::vector<BlockPrediction>& pred,
                                            const CheckOptions& opt);

// The law against the block rows of another table (kept by `where`; computed rows the
// law did not see): per configuration, the rows it gives exactly and those it does not,
// each with both values, and the totals: the law's, the computed one, and the law's with
// its misses replaced by the computed ranks. A lower-bound row (status not ok) whose bound
// is above the law's value disproves the law there: it is compared and listed as a miss
// (lower_bound set on its row); one at or below the law's value is consistent with it and
// only counted. The computed total is the sum of every block row's rank, bounds included:
// a lower bound of the configuration's total when any row is one (computed_is_lower_bound).
// Rows that the law's fit would not have selected — a key column of law.fixed with another
// value (another family, stack, token count, partition, …) — are left out and counted in
// *left_out (when given); invalid_input when rows matched `where` but none is left.
// Each configuration is named by its variables and the key columns that differ between
// the compared configurations of the same variables, as the law's exceptions are.
// invalid_input as guess_block_law's reading, or when the law was not found.
// Cost: one pass over the table.
struct LawComparisonLeftOut {
    long rows = 0;      // block rows left out
    std::string why;    // the first column that differed, e.g. "family=hadamard (the law's rows: family=attention)"
};
struct LawComparison {
    std::string name;                 // the configuration, e.g. "dim=4,depth=3"
    long rows = 0, agree = 0;         // rows compared (ok rows, lower bounds above the law), those the law gives exactly
    long lower_bounds = 0;            // lower-bound rows at or below the law (consistent with it, not compared)
    long law_total = 0;               // Σ law over every block row of it
    long computed_total = 0;          // Σ rank over every block row of it (bounds included)
    bool computed_is_lower_bound = false;  // some row is a lower bound: so is computed_total
    long law_with_exceptions = 0;     // law_total with each miss replaced by the computed rank (or bound)
    std::vector<std::pair<BlockPoint, long>> differ;  // (the row, the law's value)
    // Whether the misses refute the law: for certain when one is a rank (or bound) above
    // the law's value or a certified rank (failure_bound 0); else only if each rank below
    // the law is the generic one, which fails with probability at most
    // refutation_failure_bound (the largest of their failure bounds; 1 when a row gives
    // none). Both false/0 when nothing differs; the bound is 0 when certain.
    bool refuted_for_certain = false;
    double refutation_failure_bound = 0;
};
std::vector<LawComparison> compare_law(const BlockLaw& law, const std::vector<TableRow>& table,
                                       const std::vector<std::pair<std::string, std::string>>& where, LawComparisonLeftOut* left_out = nullptr);

}  // namespace seprank
