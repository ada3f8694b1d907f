// guess — closed forms fitted exactly to the rows of a rank table, each confirmed on
// rows it was not fitted to (docs/guess.md).
//
// A candidate form has free parameters that enter linearly (once the form is chosen):
//   polynomial     v = Σ_m a_m x^m over the monomials of total degree ≤ k in the variables;
//   exp-linear     v = a_0 + Σ_i a_i x_i + b·c^{x_j} (c a small base, x_j one variable);
//   binomial       v = C(g + x_b, x_b), the number of monomials of degree ≤ g in x_b
//                  variables, g = g(other variables) itself a polynomial, exp-linear or
//                  exp-sum form; each row's g is read back exactly (C(g + x, x) is
//                  increasing in g);
//   exp-sum        v = Σ_{c ∈ S} p_c(x_j)·c^{x_j}, 2 ≤ |S| ≤ max_exps bases from {1} ∪ bases
//                  (1^{x_j} is the constant), the p_c all constants or all of degree ≤ 1
//                  in x_j: the C-finite sequences whose characteristic roots are listed
//                  bases, printed closed ("(5^depth - 2^depth)/3 + 1");
//   hypergeometric v(n) = K·q^n·Π_j (n + b_j)! / Π_i (n + a_i)! in one variable n: the
//                  first-order recurrence Π(n + a_i)·v(n) = q·Π(n + b_j)·v(n − 1) solved,
//                  integer shifts a_i, b_j ≥ −n_0 (n_0 the first row), d = max(#a, #b) ≤
//                  max_rec_degree (none when max_order = 0), no row's value 0; the a_i
//                  searched in −n_0..−n_0 + 10, q·Π(n + b_j) fitted (d + 1 parameters) and
//                  K (1 more): d + 2 parameters; printed with binomials
//                  ("C(n + 1, 2)*C(n + 2, 2)");
//   C-finite       v(n) = Σ_{i=1..k} c_i v(n − i) in one variable n, constant c_i;
//   P-recursive    Σ_{i=0..k} p_i(n) v(n − i) = 0 with polynomials p_i of degree ≤ d.
// The parameters are fitted by exact rational linear algebra on the fewest rows that
// determine them (chosen greedily in the order of the rows: smallest variables first),
// and every other row must then agree exactly: those are the confirmations. Candidates
// are tried smallest first (free parameters, then the order of the list above); the first
// with at least `min_confirm` confirmations and no failure wins. With max_exceptions E > 0
// a polynomial, exp-linear, exp-sum or binomial form may miss up to E rows (named in the
// answer), if it is confirmed on at least min_confirm rows and on more rows than it
// misses, and no exact form of as many parameters or fewer exists. A guess is a
// conjecture, never an exact result: it is labelled so, with its counts. Source: the
// discipline of Kauers' Guess and FriCAS's guess (exact fitting, prediction of unused
// data), re-implemented here for the forms above.
#pragma once

#include "seprank/integer.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

// One row: the variables' values (in GuessOptions::vars order) and the integer value.
struct GuessPoint {
    std::vector<long> x;
    Integer value;
    // With the value column `rank`: the row's `status` cell when the table has one and it is
    // neither "ok" nor empty, a row the table marks (`lower-bound`: its rank is a certified
    // lower bound, not the value). Empty otherwise (the status is the rank's, not the other
    // columns'); rows at one point merged keep it only when every one is marked.
    std::string status = {};
    // With the value column `rank`: the row's `label` cell (certified, generic lower bound,
    // probabilistic (p <= …), lower bound, numerical) and its `failure_bound` (0 where the
    // table has none), so that a guess can say what its rows are. Merged rows keep
    // "certified" when one of them is (their values agree).
    std::string label = {};
    double failure_bound = 0;
};

// What the rows a guess read are, by the table's label column (value `rank` only):
// counts per label, "probabilistic (p <= …)" counted as "probabilistic", in order of
// first appearance; the largest failure bound among them. Empty when no row has a label.
struct RowLabels {
    std::vector<std::pair<std::string, long>> counts;
    double failure_bound = 0;
    // "8 certified, 10 generic lower bound (failure bound <= 2.14e-13)", the bound rounded
    // up to 3 digits; "" when empty. O(labels).
    std::string text() const;
};
// O(rows).
RowLabels row_labels(const std::vector<GuessPoint>& rows);

struct GuessOptions {
    std::vector<std::string> vars;           // 1..3 names, distinct (checked)
    int max_degree = 4;                      // polynomials: total degree ≤ this (0..8)
    std::vector<long> bases = {2, 3, 4, 5, 6, 7, 8, 9};  // exponential bases c (each 2..16)
    int max_exps = 3;                        // exp-sum: at most this many exponentials, the constant
                                             // counted as 1^{x_j} (1..4; 1: no exp-sum forms)
    int max_order = 3;                       // recurrences (one variable only): order ≤ this (0..6; 0: none)
    int max_rec_degree = 2;                  // P-recursive: degree of the p_i ≤ this (0..4)
    long max_params = 16;                    // candidates with more free parameters are not tried (1..64)
    long min_confirm = 2;                    // confirmations a guess needs (≥ 1)
    long max_exceptions = 0;                 // rows a form may miss (≥ 0; 0: every row must agree)
    double max_seconds = 0;                  // the search stops past this, resource_limit (finite, ≥ 0;
                                             // 0: default_max_seconds(), the CLI's --max-time)
};
// invalid_input naming the first bad field (the ranges above; names non-empty). O(1).
void check_options(const GuessOptions& opt);

// In the order candidates of equal size are tried.
enum class FormKind { polynomial, exp_linear, binomial, exp_sum, hypergeometric, c_finite, p_recursive };
// "polynomial", "exp-linear", "binomial", "exp-sum", "hypergeometric", "C-finite",
// "P-recursive". O(1).
std::string to_string(FormKind k);

// A term of a linear form: Π x_i^{exps_i}, times base^{x_{exp_var}} when exp_var ≥ 0.
struct GuessTerm {
    std::vector<int> exps;
    long base = 0;
    int exp_var = -1;
};

struct Formula {
    FormKind kind = FormKind::polynomial;
    std::vector<std::string> vars;
    // polynomial, exp_linear, exp_sum: v = Σ coeffs_t · term_t; binomial: g = Σ coeffs_t · term_t.
    std::vector<GuessTerm> terms;
    std::vector<Rational> coeffs;
    // The kind of that linear form (polynomial, exp_linear or exp_sum; a binomial's g's).
    // An exp-sum's integer constant is printed outside the fraction: "(5^n - 2^n)/3 + 1".
    FormKind terms_kind = FormKind::polynomial;
    int binom_var = -1;  // binomial: v = C(g + x_b, x_b)
    // hypergeometric in rec_var = n: v(n) = hyper_const · hyper_ratio^n · Π_j (n + hyper_num[j])! /
    // Π_i (n + hyper_den[i])! (shifts ascending, no shift in both), defined where every
    // n + shift ≥ 0; rec, order = 1 and init hold the first-order recurrence it satisfies.
    Rational hyper_const, hyper_ratio;
    std::vector<long> hyper_num, hyper_den;
    // Recurrences in variable rec_var: p_i(n) = Σ_e rec[i][e]·n^e (C-finite: p_0 = −1,
    // p_i = c_i constants), Σ_{i=0..order} p_i(n)·v(n − i) = 0.
    int rec_var = -1;
    int order = 0;
    std::vector<std::vector<Rational>> rec;
    // Recurrences: the initial values v(init_start), …, v(init_start + order − 1) (the first
    // `order` consecutive rows), which with the recurrence determine v forward from there.
    long init_start = 0;
    std::vector<Integer> init;

    // Plain text, e.g. "C((3^depth - 1)/2 + dim, dim)"; a recurrence is followed by its
    // initial values: "(-1)*v(n) + (1)*v(n - 1) + (1)*v(n - 2) = 0, v(0) = 0, v(1) = 1";
    // a hypergeometric term in closed form, "C(n + 1, 2)*C(n + 2, 2)".
    std::string text() const;
    std::string latex() const;  // the same in LaTeX. Both: no precondition, linear in the output
    // A recurrence (C-finite, P-recursive) as text(); a hypergeometric term's first-order
    // recurrence with its initial value, "(n^2 - n)*v(n) + (-n^2 - 3*n - 2)*v(n - 1) = 0,
    // v(1) = 3"; "" for the other kinds. Linear in the output.
    std::string recurrence() const;
};

// A row a form was accepted without (GuessOptions::max_exceptions): the row, and the
// formula's value there (defined = false when the formula has none there: a binomial's g
// that is not a non-negative integer, or a value too large to compute).
struct GuessException {
    std::size_t row = 0;  // index into Guess::rows
    bool defined = true;
    Rational value;
};

struct Guess {
    bool found = false;
    Formula formula;
    long params = 0;     // free parameters fitted (recurrences: also their k initial values)
    long fitted = 0;     // rows used to fit them
    long confirmed = 0;  // rows predicted exactly without being used
    std::vector<std::size_t> fit_rows, confirm_rows;  // indices into rows (below)
    std::vector<GuessException> exceptions;           // rows missed (max_exceptions > 0), by row
    long tried = 0;      // candidate forms tried
    long refuted = 0;    // of them, fitted but refuted by a held-out row
    long skipped = 0;    // candidate forms left undecided: their values at the rows would be over
                         // 2^27 bits in all (e.g. c^n for n near 10^12), so they were not computed
    std::string reason;  // when !found: why, and what would help: a form refuted by only 1 or 2
                         // rows (and the --max-exceptions that accepts it), or else the
                         // variable with the fewest distinct values
    bool near_miss = false;  // when !found: the reason names a form that every row but one or two fits
    std::vector<GuessPoint> rows;  // the input, sorted (smallest variables first), duplicates merged
};

// The smallest form (above) that fits and is confirmed. Rows: each x of size vars.size();
// duplicates with the same value merge, with different values are invalid_input; fewer
// than 1 + min_confirm distinct rows is invalid_input (too few to confirm anything);
// opt is checked first (check_options).
// Each candidate's equations are computed row by row as the fit reaches them; a candidate
// whose values at the rows would exceed 2^27 bits in all (estimated before each row, e.g.
// c^n at n = 10^12) is skipped (Guess::skipped), never computed. With max_exceptions E > 0
// a fit that misses more than E rows is fitted again with each of its own rows left out
// (one at a time); the rows missed are Guess::exceptions. When nothing is found with
// E = 0, the search runs again with E = 2 over the forms that take exceptions (computing
// at most 2^24 bits of values in all), to name a near miss in the reason. A linear or
// binomial form of more than rows − min_confirm parameters is never fitted. Cost: per candidate, O(rows · params²) rational operations
// (greedy rank tests) plus a params × params exact solve, on numbers of at most 2^27 bits
// in all, times params + 1 fits with exceptions; the candidates: O(max_degree^vars)
// polynomials, O(vars · |bases|^max_exps) exp-sums (with binomials: times vars),
// hypergeometric terms up to C(11 + d, d) shift sets of degree d each.
Guess guess_formula(const std::vector<GuessPoint>& rows, const GuessOptions& opt);

// The formula's value at x (exact). Linear forms and binomials evaluate directly (a
// binomial needs x_b ≥ 0 and g(x) a non-negative integer there; C(g + x_b, x_b) is a
// rising factorial over k!, k = min(g, x_b)); a hypergeometric term as rising factorials
// of its paired shifts and factorials of the others; recurrences unroll forward from the
// last `order` consecutive rows below x, keeping `order` values. The size of the value
// (and, for recurrences and hypergeometric terms, the work) is estimated before anything
// is computed (limits.hpp): resource_limit stating the estimate over 2^26 bits or 2^34 bit
// operations. invalid_input naming the point when x has the wrong size or lies outside the
// form's domain (a negative x_b, a g that is not a non-negative integer, a recurrence asked
// below its first row or where its leading coefficient vanishes, a hypergeometric term
// where some n + shift < 0). Cost: as estimated, at most 2^34 bit operations. g.found is
// checked (invalid_input when there is no formula).
Rational guess_predict(const Guess& g, const std::vector<long>& x);

// A point as text, "name=value[,name=value…]" (what `seprank guess --predict` takes),
// as values in `vars` order. invalid_input naming the item: not name=value, a name that
// is not one of vars or given twice, a variable without a value, or a value that is not
// an integer ('x') or lies outside -2^63..2^63-1 (its first 40 digits shown). Linear in
// the text (times vars.size() for the name look-ups).
std::vector<long> parse_point(const std::string& text, const std::vector<std::string>& vars);

// One table row as (column, text) cells, in the table's order.
using TableRow = std::vector<std::pair<std::string, std::string>>;

// The table with a `copies` cell added to each stack row that has none: its depth over
// the number of layers of its `layers` SPEC (a sweep `--layers 'attention,mlp' --depth c`
// writes depth 2c and that SPEC), where the SPEC parses and divides the depth; other rows
// as they are. guess_points adds it when `copies` is a variable or a --where name, so a
// law in the number of copies can be fitted. Never throws beyond allocation. Linear in
// the cells, plus one SPEC parse per stack row.
std::vector<TableRow> with_stack_copies(const std::vector<TableRow>& table);

// The text of column `name` in row (nullptr when the row has no such column). Never
// throws. Linear search: O(columns).
const std::string* table_cell(const TableRow& row, const std::string& name);

// Whether row has every (column, value) of `where`: integers compared as integers, a
// `layers` value as a stack's SPEC (both sides in the table's canonical form,
// layers_to_string(layers_period(parse_layers(·))), so "attention,mlp:power=2" matches the
// cell "attention,mlp"), other text as text; `copies`, where the row has no such cell, is a
// stack row's depth over its SPEC's layers (with_stack_copies). invalid_input naming a
// column the row lacks, or a `layers` value that is not a SPEC. Cost O(|where|·columns), plus one SPEC parse per
// `layers` item.
bool row_matches(const TableRow& row, const std::vector<std::pair<std::string, std::string>>& where);

// `seprank guess --where` text: "name=value[,name=value…]" as (name, value) pairs, in
// order. A comma starts a new pair only where the text after it begins with "name="
// (a name of letters, digits and '_'); any other comma belongs to the value, so values
// with commas need no quoting: "layers=attention,mlp:power=2,tokens=2" is
// {layers: "attention,mlp:power=2", tokens: "2"}, "partition=1,2|3" is one pair.
// invalid_input naming the item: an empty text or item (",,", a trailing comma), a
// first item without a name and value, a name with an empty value, or a name given twice.
// Linear in the text (quadratic in the number of names).
std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text);

// A table as text cells: CSV with a header line, a JSON array of objects, or JSON lines
// (one object per line). A leading UTF-8 byte-order mark is skipped, and so are CSV `#`
// lines and a first JSON line {"seprank_table_sweep": …} (the sweep lines `seprank table`
// writes). invalid_input naming `source` and the line on malformed input, a header
// naming a column twice, or a JSON object giving a key twice; naming `source` for a text
// that is one JSON value but no array or object ("hello", 42: not a table) and for a
// table without rows (an empty text, a header only, with its columns named, an empty
// JSON array, JSON lines with a sweep line only). A JSON row's cells are its
// keys in the table's order (as a CSV row's); a value is its text: a string as it is,
// null as "", anything else as JSON writes it. Cost: one pass over the text, linear in
// it; memory the cells (JSON is read into them without a document tree).
std::vector<TableRow> parse_table_cells(const std::string& text, const std::string& source);

// The same, read from a file, a device or a pipe (invalid_input naming the path when it
// cannot be read); reading stops, with resource_limit, as soon as the text read would
// need more than the memory limit to parse (64 bytes per byte of text). Cost: reading
// the file plus parse_table_cells.
std::vector<TableRow> read_table_cells(const std::string& path);

// The most bits a table's value may have (2^20, about 315,650 decimal digits). The fit
// carries every value through each candidate form it tries, so a value's size multiplies
// the whole search: one cell of 10^6 digits cost 4 s, one of 10^7 digits 125 s, in
// silence. A table of 5^n reaches the bound past n = 450,000.
inline constexpr long kGuessMaxValueBits = 1L << 20;

// The points of a table: rows whose `where` columns equal the given text (integers
// compared as integers), their `vars` columns and `value` column as integers.
// invalid_input naming a missing column, a non-integer cell, a variable outside the
// range of long or a value over kGuessMaxValueBits bits (with its row number; a value's
// digits are counted before it is parsed), `value` also in `vars`, or an empty table; rows whose value cell
// is empty (a row not computed) are skipped; a row's `status` (see GuessPoint) is kept with
// its point, so the caller can say which rows are marked. Cost O(rows·(|vars| + |where| + 1)·columns)
// look-ups, plus parsing the integers (each at most kGuessMaxValueBits bits).
std::vector<GuessPoint> guess_points(const std::vector<TableRow>& table,
                                     const std::vector<std::string>& vars, const std::string& value,
                                     const std::vector<std::pair<std::string, std::string>>& where);

// ---- checking a prediction (seprank guess --check; Python Guess.check)

// The network a table row describes: its configuration columns (family, tokens, dim,
// heads, head_dim and width where they differ from their resolved defaults, depth,
// block_degree, embed_rank, attention_rank, position, coordinate, residual, and a stack's
// `layers`, repeated depth / |layers| times), then each variable vars[i] set to x[i].
// invalid_input naming the item: no `family` column, a cell that is not an integer (or,
// for `residual`, not true/false, True/False or 1/0; empty: false), a
// variable that is not a network size (tokens, dim, heads, depth, block_degree, width,
// embed_rank), a stack depth that is not a whole number of copies of its layers (or more
// than kMaxDepth layers); the spec itself is validated by the caller (ValidSpec). O(columns).
NetworkSpec spec_of_row(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x);

struct CheckOptions {
    double seconds = 60;   // time budget of the generic run (> 0): past it, unchecked
    long trials = 2;       // generic's weight draws (1..1000)
    long max_side = 4096;  // generic's largest evaluation side (as GenericOptions::max_side)
    int threads = default_threads();
};
// Checks every field (invalid_input naming it): seconds finite and > 0, trials 1..1000,
// max_side and threads as check_options(GenericOptions). O(1).
void check_options(const CheckOptions& opt);

struct PredictionCheck {
    // "agree", "disagree" or "unchecked", and for unchecked why (`reason`): "generic gave
    // the lower bound R", "generic did not finish in S s" or "the prediction is above
    // --check-max-side N" (the CLI and Python show "unchecked: <reason>"); for agree or
    // disagree a reason only where generic ran past the budget ("took S s, past …": a
    // budget stops the flattening's expansion only between its products).
    std::string verdict;
    std::string reason;
    bool done = false;     // generic finished within the budget
    bool above_side = false;  // the prediction is above max_side: generic was not run
    long generic = 0;      // its rank (when done)
    std::string label;     // its label (when done), RankAnswer::label()
    double failure_bound = 1;  // its failure_bound (when done): 0 certified; generic: the chance
                               // that `generic` is below the generic rank (answer.hpp)
    double seconds = 0;    // the time generic took
};
// Computes the generic rank of the network that `row` describes with vars = x
// (spec_of_row; the row's partition, or the balanced one), with opt's trials and max side,
// and compares it with `predicted`: agree when equal; disagree when it differs and the rank
// is generic or exact; unchecked when generic gave only a lower bound or did not finish in
// opt.seconds (cancelled through cancel.hpp's scope, nothing left running; an expansion
// is stopped between its products, so one long product can pass the budget, which the
// reason then says). A prediction above opt.max_side is unchecked at once, generic not run,
// unless generic's auto would flatten (generic_auto_flattens), which has no side: the
// evaluation's rank is at most its side, so it could only give a lower bound there (a
// true rank below the side, which would refute the prediction, is not looked for). Checked first:
// check_options(opt), the spec (validate) and the partition, invalid_input naming the value.
// Cost: one generic_rank, at most about opt.seconds; O(1) past max_side.
PredictionCheck check_prediction(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x,
                                 const Rational& predicted, const CheckOptions& opt = {});

}  // namespace seprank
