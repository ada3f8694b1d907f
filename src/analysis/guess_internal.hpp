// Private to the guess sources (guess.cpp, guess_blocks.cpp, guess_fit.cpp, guess_forms.cpp,
// guess_predict.cpp, guess_read.cpp): the pieces the guesser's forms share — the values
// and sizes of linear terms, their printing, the incremental echelon form the fits grow,
// the exp-sum term sets, the hypergeometric terms, the fit and its candidates, and a
// formula's value at a point (guess.hpp, docs/guess.md).
#pragma once

#include "seprank/error.hpp"
#include "seprank/guess.hpp"
#include "seprank/integer.hpp"
#include "seprank/partition.hpp"

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace seprank::guess_detail {

// The total estimated bits of the values a candidate's equations may hold before the
// candidate is skipped as too large to fit (2^27 bits = 16 MiB).
constexpr double kFitBudgetBits = 134217728.0;

// A value cell of a table is at most kGuessMaxValueBits bits (guess.hpp): more digits than
// this (a sign and leading zeros aside) are refused before the cell is parsed.
constexpr std::size_t kMaxValueDigits = 315653;  // floor(2^20·log10 2) + 1: no more digits below 2^(2^20)
static_assert(kGuessMaxValueBits == 1L << 20, "kMaxValueDigits is floor(kGuessMaxValueBits·log10 2) + 1");

// A long text cut for a message: its first 40 bytes and "…" (detail::cut, error.hpp;
// control bytes in it are written \xHH by the error types themselves).
using detail::cut;

// Upper bound on the bits of a term's value at x (numerator or denominator). O(|x|).
double term_bits(const GuessTerm& t, const std::vector<long>& x);
// The term's value at x; the caller has estimated its size (term_bits).
Rational term_value(const GuessTerm& t, const std::vector<long>& x);
// Upper bound on the bits of Σ c_t·term_t(x), and the value (estimated first by the caller).
double linear_bits(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<long>& x);
Rational linear_value(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<long>& x);

// Σ c_t·term_t over a common denominator, largest terms first: "(3^depth - 1)/2". With
// constant_outside (exp-sums), an integer constant term is written after the fraction
// of the others: "(5^depth - 2^depth)/3 + 1". Linear in the output.
std::string linear_text(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<std::string>& vars,
                        bool latex, bool constant_outside = false);
// Σ_e p[e]·n^e as linear_text prints it.
std::string poly_in_n(const std::vector<Rational>& p, const std::string& n, bool latex);

// The exp-sum term sets in variable j (of nv), appended to out in the order they are
// tried: coefficient degree 0 then 1; k = 2..opt.max_exps exponentials; the k-subsets S
// of {1} ∪ opt.bases in lexicographic order (1 first); for each c ∈ S (ascending) the
// terms x_j^e·c^{x_j}, e = 0..degree (c = 1: the monomials). {1, c} with constant
// coefficients is the exp-linear form a + b·c^{x_j}, left out. O(number of terms made).
void exp_sum_sets(std::size_t nv, std::size_t j, const GuessOptions& opt, std::vector<std::vector<GuessTerm>>& out);

// A reduced row echelon form over Q, grown one row at a time, each row carrying a
// right-hand side. add(row, rhs) reduces the row by the basis: a non-zero remainder joins
// the basis (true), a zero one leaves the basis as it was (false; its rhs remainder is
// then the row's disagreement with the span: zero iff consistent). O(rank · columns)
// rational operations per add.
class Echelon {
public:
    explicit Echelon(std::size_t cols) : n_(cols) {}
    std::size_t rank() const { return rows_.size(); }

    // Returns true when the row was independent; `residual` gets the rhs remainder.
    bool add(std::vector<Rational> row, Rational rhs, Rational* residual = nullptr) {
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            const std::size_t c = pivot_[r];
            if (row[c].is_zero()) continue;
            const Rational f = row[c];
            for (std::size_t j = 0; j < n_; ++j)
                if (!rows_[r][j].is_zero()) row[j] = row[j] - f * rows_[r][j];
            rhs = rhs - f * rhs_[r];
        }
        std::size_t c = 0;
        while (c < n_ && row[c].is_zero()) ++c;
        if (c == n_) {
            if (residual) *residual = rhs;
            return false;
        }
        const Rational inv = Rational(1) / row[c];
        for (std::size_t j = 0; j < n_; ++j) row[j] = row[j] * inv;
        rhs = rhs * inv;
        for (std::size_t r = 0; r < rows_.size(); ++r) {  // keep the form reduced
            if (rows_[r][c].is_zero()) continue;
            const Rational f = rows_[r][c];
            for (std::size_t j = 0; j < n_; ++j) rows_[r][j] = rows_[r][j] - f * row[j];
            rhs_[r] = rhs_[r] - f * rhs;
        }
        rows_.push_back(std::move(row));
        rhs_.push_back(rhs);
        pivot_.push_back(c);
        return true;
    }
    // Full rank: the solution x (x[pivot_r] = rhs_r).
    std::vector<Rational> solution() const {
        std::vector<Rational> x(n_);
        for (std::size_t r = 0; r < rows_.size(); ++r) x[pivot_[r]] = rhs_[r];
        return x;
    }
    // Rank n − 1: the kernel vector with 1 at the free column.
    std::vector<Rational> kernel() const {
        std::vector<bool> is_pivot(n_, false);
        for (std::size_t c : pivot_) is_pivot[c] = true;
        std::size_t f = 0;
        while (f < n_ && is_pivot[f]) ++f;
        std::vector<Rational> x(n_);
        x[f] = Rational(1);
        for (std::size_t r = 0; r < rows_.size(); ++r) x[pivot_[r]] = Rational(0) - rows_[r][f];
        return x;
    }

private:
    std::size_t n_;
    std::vector<std::vector<Rational>> rows_;
    std::vector<Rational> rhs_;
    std::vector<std::size_t> pivot_;
};

// The row's failure_bound cell as a probability into `out`: false (out untouched) where
// the cell is absent, empty or no number in 0..1 (guess leaves such a cell unshown, guess
// --blocks refuses it). guess_read.cpp. O(the cell's length).
bool failure_bound_cell(const TableRow& row, double& out);

// The table with `copies` derived for its stack rows (with_stack_copies) where `copies` is
// named in vars or where and some row lacks the cell; empty otherwise (read the input
// itself). For guess and guess --blocks alike. O(rows · cells) when derived.
std::vector<TableRow> copies_if_named(const std::vector<TableRow>& input, const std::vector<std::string>& vars,
                                      const std::vector<std::pair<std::string, std::string>>& where);

// ---- hypergeometric terms (one variable n; guess.hpp)

// The shifts a of the denominator factors (n + a) are searched in −n_0 .. −n_0 + this
// (n_0 the first row's n).
constexpr long kHyperShiftWindow = 10;

struct HyperFit {
    bool tried = false;      // the form applies: one variable, no zero value, enough consecutive
                             // rows to fit it and min_confirm more
    bool found = false;      // fitted and confirmed on at least min_confirm held-out rows
    bool refuted = false;    // some shift set was fitted and then refuted by a row
    bool too_large = false;  // a value to compare was over the fit budget: undecided
    Formula form;
    std::vector<std::size_t> fit_rows, confirm_rows;
};

// The hypergeometric term of degree d (max(#num, #den) = d exactly) that fits rows, if
// any: rows sorted ascending in their one variable (guess_formula's order), vars its
// name. For each denominator shift multiset a (|a| ≤ d, each in −n_0..−n_0 + 10, in
// order of size, then lexicographic) the numerator q·Π(n + b_j) is fitted on the first
// d + 1 ratios v(n)/v(n − 1) of consecutive rows, checked on the other ratios, required
// to split into integer shifts b_j ≥ −n_0 sharing none with a; K is read from the first
// fitted row and every other row must equal the closed form. Cost: per shift set, a
// (d + 1)² solve and one check per row; at most C(11 + d, d) shift sets.
HyperFit fit_hypergeometric(const std::vector<GuessPoint>& rows, const std::vector<std::string>& vars, int d, long min_confirm);

// The closed form's text (guess.hpp's Formula::text for hypergeometric terms): numerator
// shifts paired with denominator ones into binomials C(n + b, b − a) where b > a, the
// rest as factorials, the constant and q^n in front: "C(n + 1, 2)*C(n + 2, 2)",
// "3*2^n*n!/(n + 2)!". Linear in the output.
std::string hyper_text(const Formula& f, bool latex);

// The term's value at n, exactly. invalid_input (naming `at`) when some n + shift < 0;
// its size and work are estimated first (check_exact_bits, check_exact_work).
Rational hyper_value(const Formula& f, long n, const std::string& at);

// For a failed search's reason: "what would help: …" — the variable with the fewest
// distinct values, how many a form of P parameters in it needs (P + min_confirm), and for
// one variable the longest run of consecutive values (what recurrences need). O(rows·vars
// log rows).
std::string rows_help(const std::vector<GuessPoint>& rows, const GuessOptions& opt);

// ---- the fit and its candidates (guess_fit.cpp)

// The g ≥ 0 with C(g + n, n) = v, if any (n ≥ 1; g < 2^40). A trial g whose C(g + n, n)
// is certainly longer than v (a lower bound on its bits, k·log2((g + n)/k) with
// k = min(g, n), exceeds v's bits) is compared without computing it, so every
// binomial computed has O(bits(v)) bits whatever n is.
bool inverse_binomial(const Integer& v, long n, Integer& g);

// An exact fit of a linear system, one equation per candidate row (row_i·c = rhs_i, or = 0
// when homogeneous: then c is the kernel vector of a rank n−1 system). The equations are
// computed one at a time, as the fit needs them (most candidates are refuted within a few
// rows); `at` returns too_large when equation i would push the estimated size of the
// system over the fit's budget (the candidate is then left undecided), and miss when row i
// cannot be written in the form whatever the parameters (a binomial's value that is not
// C(g + x_b, x_b) for any integer g).
enum class Eq { ok, too_large, miss };
using EquationAt = std::function<Eq(std::size_t i, std::vector<Rational>& row, Rational& rhs)>;

struct Fit {
    bool determined = false;  // enough independent equations
    bool refuted = false;     // more than max_misses equations disagree
    bool too_large = false;   // an equation's values were over the budget: not decided
    std::vector<Rational> coeffs;
    std::vector<std::size_t> fit, confirm, miss;  // equation indices
};

// The greedy fit: equations in order, each that adds an independent one (or agrees with
// those before) is used, until the unknowns are determined; every other equation is held
// out and must agree. Up to max_misses equations may disagree (a dependent equation
// inconsistent with those before it counts as one: the solution cannot satisfy it), and
// equation leave_out is held out even where the fit would have used it (the retry of a
// fit refuted because one of its own rows is wrong).
Fit fit_equations(std::size_t count, const EquationAt& at, std::size_t unknowns, bool homogeneous, long max_misses = 0,
                  std::size_t leave_out = std::numeric_limits<std::size_t>::max());

struct Candidate {
    FormKind kind;
    long params;
    std::vector<GuessTerm> terms;  // linear forms (of v, or of g for binomials)
    FormKind terms_kind = FormKind::polynomial;  // the linear form's own kind (a binomial's g's)
    int binom_var = -1;
    int order = 0, degree = 0;  // recurrences; hypergeometric terms: degree
};

// Every candidate form in nv variables, fewest parameters first (then by kind): the linear
// term sets (polynomials, exp-linear, exp-sums), the binomials C(g + x_b, x_b) with g such a
// set in the other variables, and for one variable the hypergeometric terms and the
// recurrences (C-finite, P-recursive).
std::vector<Candidate> candidates(std::size_t nv, const GuessOptions& opt);

// Equations of a recurrence: one for each row n with n−1..n−order present (one variable),
// built on demand (equation()).
struct RecSystem {
    std::vector<std::size_t> row_of;             // the row whose value each equation predicts
    std::vector<std::vector<std::size_t>> prev;  // the rows of n−1, …, n−order
};

// The system of a recurrence of this order over the rows (one variable).
RecSystem recurrence_system(const std::vector<GuessPoint>& rows, int order);

// Equation e of the system: C-finite v(n) = Σ c_k v(n−k), or P-recursive
// Σ_{k=0..order} Σ_e a_{k,e} n^e v(n−k) = 0.
void recurrence_equation(const std::vector<GuessPoint>& rows, const RecSystem& s, std::size_t e, int order, int degree, bool c_finite,
                         std::vector<Rational>& eq, Rational& rhs);

// ---- a formula's value (guess_predict.cpp)

// "n=3,d=2": the point x in the variables vars, for messages.
std::string point_text(const std::vector<std::string>& vars, const std::vector<long>& x);

// Whether a recurrence gives every row's value from its initial values alone, unrolled
// exactly forward past them and backward before them (a row in another run of
// consecutive values, which no equation of the fit read, is checked too): yes, no (a row
// differs), or unknown (an end coefficient p_0 or p_order vanishes on the way, or the
// span, over 2^24 steps or past the exact budgets of unroll's estimate, is not unrolled).
// Precondition: f a recurrence with its init, rows non-empty and one variable. Cost: the
// span times (order + 1)·(degree + 1) exact products.
enum class Reproduction { yes, no, unknown };
Reproduction recurrence_reproduces(const Formula& f, const std::vector<GuessPoint>& rows);

// The formula's value at x, exactly (rows: the table, which a recurrence unrolls from);
// invalid_input naming `at` outside its domain, resource_limit when the value or its work
// would be too large (estimated first, check_exact_bits and check_exact_work).
Rational evaluate(const Formula& f, const std::vector<GuessPoint>& rows, const std::vector<long>& x, const std::string& at);

// The shapes a table's partition of n tokens has that name a partition at other token
// counts: the balanced one (1..⌈n/2⌉ | rest), and 1 | 2..n (`first`); 1|2 has both.
// guess --check and guess --blocks --predict carry a row's partition to a point of other
// tokens by them. O(n).
struct PartitionShapes {
    bool balanced = false, first = false;
};
PartitionShapes partition_shapes(const ValidPartition& p);  // (partition.hpp builds both at any N)

}  // namespace seprank::guess_detail
