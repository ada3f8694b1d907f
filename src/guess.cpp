// guess — closed forms fitted exactly to table rows (guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "file_io.hpp"
#include "json_file.hpp"
#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "seprank/generic.hpp"
#include "seprank/partition.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"
#include "seprank/record.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <charconv>
#include <cmath>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

namespace seprank {

void check_options(const GuessOptions& opt) {
    if (opt.vars.empty() || opt.vars.size() > 3)
        throw invalid_input("guess: " + std::to_string(opt.vars.size()) + " variables given; 1 to 3 are searched");
    for (std::size_t i = 0; i < opt.vars.size(); ++i) {
        if (opt.vars[i].empty()) throw invalid_input("guess: an empty variable name");
        for (std::size_t j = 0; j < i; ++j)
            if (opt.vars[i] == opt.vars[j]) throw invalid_input("guess: variable '" + opt.vars[i] + "' given twice");
    }
    if (opt.max_degree < 0 || opt.max_degree > 8) throw invalid_input("guess: max degree " + std::to_string(opt.max_degree) + " outside 0..8");
    for (long c : opt.bases)
        if (c < 2 || c > 16) throw invalid_input("guess: exponential base " + std::to_string(c) + " outside 2..16");
    if (opt.max_order < 0 || opt.max_order > 6) throw invalid_input("guess: max order " + std::to_string(opt.max_order) + " outside 0..6");
    if (opt.max_rec_degree < 0 || opt.max_rec_degree > 4)
        throw invalid_input("guess: max recurrence degree " + std::to_string(opt.max_rec_degree) + " outside 0..4");
    if (opt.max_params < 1 || opt.max_params > 64) throw invalid_input("guess: max params " + std::to_string(opt.max_params) + " outside 1..64");
    if (opt.min_confirm < 1) throw invalid_input("guess: min confirmations " + std::to_string(opt.min_confirm) + " must be at least 1");
}

std::string to_string(FormKind k) {
    switch (k) {
        case FormKind::polynomial: return "polynomial";
        case FormKind::exp_linear: return "exp-linear";
        case FormKind::binomial: return "binomial";
        case FormKind::c_finite: return "C-finite";
        case FormKind::p_recursive: return "P-recursive";
    }
    throw internal_error("to_string(FormKind): unknown value " + std::to_string(static_cast<int>(k)));
}

namespace {

// ------------------------------------------------------------------ exact pieces
//
// Every value computed here is estimated first (bits, with limits.hpp's helpers): the
// fit skips a candidate whose values would be too large, and guess_predict refuses
// (resource_limit) a point whose value or work would be, so GMP never sees a number it
// would abort on.

// The total estimated bits of the values a candidate's equations may hold before the
// candidate is skipped as too large to fit (2^27 bits = 16 MiB).
// A long text cut for a message: its first 40 characters and "…".
// (Control bytes in it are written \xHH by the error types themselves, error.hpp.)
std::string cut(const std::string& t) { return t.size() <= 40 ? t : t.substr(0, 40) + "…"; }

constexpr double kFitBudgetBits = 134217728.0;


double abs_log2(long x) { return std::log2(std::max(1.0, std::fabs(static_cast<double>(x)))); }

// Upper bound on the bits of a term's value at x (numerator or denominator).
double term_bits(const GuessTerm& t, const std::vector<long>& x) {
    double b = 1;
    for (std::size_t i = 0; i < t.exps.size(); ++i) b += t.exps[i] * abs_log2(x[i]);
    if (t.exp_var >= 0) b += power_bits(static_cast<double>(t.base), std::fabs(static_cast<double>(x[static_cast<std::size_t>(t.exp_var)])));
    return b;
}

// Bits of a rational's numerator plus denominator.
double rational_bits(const Rational& r) {
    return static_cast<double>(fmpz_bits(fmpq_numref(r.get())) + fmpz_bits(fmpq_denref(r.get())));
}

Rational power(long base, long e) {  // the caller has estimated |e|·log2(base) bits
    Rational b(base), r;
    fmpq_pow_si(r.get(), b.get(), e);
    return r;
}

Rational term_value(const GuessTerm& t, const std::vector<long>& x) {
    Integer m(1);
    for (std::size_t i = 0; i < t.exps.size(); ++i)
        for (int e = 0; e < t.exps[i]; ++e) m = m * Integer(x[i]);
    Rational v(m);
    if (t.exp_var >= 0) v = v * power(t.base, x[static_cast<std::size_t>(t.exp_var)]);
    return v;
}

// Upper bound on the bits of Σ c_t·term_t(x).
double linear_bits(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<long>& x) {
    double most = 0, dens = 0;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        most = std::max(most, term_bits(terms[t], x) + rational_bits(coeffs[t]));
        dens += static_cast<double>(fmpz_bits(fmpq_denref(coeffs[t].get())));
    }
    return most + dens + std::log2(static_cast<double>(terms.size()) + 1) + 1;
}

Rational linear_value(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<long>& x) {
    Rational s;
    for (std::size_t t = 0; t < terms.size(); ++t) s = s + coeffs[t] * term_value(terms[t], x);
    return s;
}

// C(n, k) for 0 ≤ k ≤ n < 2^64, computed with k' = min(k, n − k) factors; the caller has
// estimated its size (binomial_bits).
Integer binomial_ui(ulong n, ulong k) {
    Integer r;
    fmpz_bin_uiui(r.get(), n, std::min(k, n - k));
    return r;
}

// The g ≥ 0 with C(g + n, n) = v, if any (n ≥ 1; g < 2^40). A trial g whose C(g + n, n)
// is certainly longer than v (a lower bound on its bits, k·log2((g + n)/k) with
// k = min(g, n), exceeds v's bits) is compared without computing it, so every
// binomial computed has O(bits(v)) bits whatever n is.
bool inverse_binomial(const Integer& v, long n, Integer& g) {
    if (n < 1 || v < Integer(1)) return false;
    const double vbits = static_cast<double>(fmpz_bits(v.get()));
    const auto cmp = [&](long gg) {  // sign of C(gg + n, n) − v
        if (gg == 0) return v == Integer(1) ? 0 : -1;
        const double k = static_cast<double>(std::min(gg, n)), top = static_cast<double>(gg) + static_cast<double>(n);
        if (k * std::log2(top / k) > vbits + 1) return 1;
        const Integer c = binomial_ui(static_cast<ulong>(gg) + static_cast<ulong>(n), static_cast<ulong>(n));
        return c < v ? -1 : c == v ? 0 : 1;
    };
    long lo = 0, hi = 1;
    while (cmp(hi) < 0) {
        if (hi > (1L << 40)) return false;
        lo = hi;
        hi *= 2;
    }
    while (lo < hi) {  // the least g with C(g + n, n) ≥ v
        const long mid = lo + (hi - lo) / 2;
        if (cmp(mid) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (cmp(lo) != 0) return false;
    g = Integer(lo);
    return true;
}

// A reduced row echelon form over Q, grown one row at a time, each row carrying a
// right-hand side. add(row, rhs) reduces the row by the basis: a non-zero remainder joins
// the basis (true), a zero one leaves the basis as it was (false; its rhs remainder is
// then the row's disagreement with the span: zero iff consistent).
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

// An exact fit of a linear system, one equation per candidate row (row_i·c = rhs_i, or = 0
// when homogeneous: then c is the kernel vector of a rank n−1 system). The equations are
// computed one at a time, as the fit needs them (most candidates are refuted within a few
// rows); `at` returns false when equation i would push the estimated size of the system
// over the fit's budget: the candidate is then left undecided (too_large).
using EquationAt = std::function<bool(std::size_t i, std::vector<Rational>& row, Rational& rhs)>;

struct Fit {
    bool determined = false;  // enough independent equations
    bool refuted = false;     // a held-out equation disagrees
    bool too_large = false;   // an equation's values were over the budget: not decided
    std::vector<Rational> coeffs;
    std::vector<std::size_t> fit, confirm;  // equation indices
};

Fit fit_equations(std::size_t count, const EquationAt& at, std::size_t unknowns, bool homogeneous) {
    Fit out;
    const std::size_t need = homogeneous ? unknowns - 1 : unknowns;
    Echelon e(unknowns);
    std::size_t i = 0;
    std::vector<Rational> row;
    Rational rhs;
    for (; i < count && e.rank() < need; ++i) {
        if (!at(i, row, rhs)) {
            out.too_large = true;
            return out;
        }
        Rational res;
        out.fit.push_back(i);  // independent, or dependent and consistent: used, not held out
        if (!e.add(row, homogeneous ? Rational(0) : rhs, &res) && !res.is_zero()) {
            out.refuted = true;  // inconsistent before the fit is even determined
            return out;
        }
    }
    if (e.rank() < need || (homogeneous && unknowns == 0)) return out;
    out.determined = true;
    out.coeffs = homogeneous ? e.kernel() : e.solution();
    for (; i < count; ++i) {
        if (!at(i, row, rhs)) {
            out.too_large = true;
            out.determined = false;
            return out;
        }
        Rational s;
        for (std::size_t j = 0; j < unknowns; ++j) s = s + row[j] * out.coeffs[j];
        if (s != (homogeneous ? Rational(0) : rhs)) {
            out.refuted = true;
            return out;
        }
        out.confirm.push_back(i);
    }
    return out;
}

// ------------------------------------------------------------------ candidates

std::vector<std::vector<int>> monomials(std::size_t nv, int degree, const std::vector<bool>& allowed) {
    std::vector<std::vector<int>> out;
    std::vector<int> e(nv, 0);
    // every exponent vector over the allowed variables with total degree ≤ degree, by degree
    for (int d = 0; d <= degree; ++d) {
        std::vector<std::vector<int>> level;
        std::function<void(std::size_t, int)> rec = [&](std::size_t i, int left) {
            if (i == nv) {
                if (left == 0) level.push_back(e);
                return;
            }
            for (int k = allowed[i] ? left : 0; k >= 0; --k) {
                e[i] = k;
                rec(i + 1, left - k);
            }
            e[i] = 0;
        };
        rec(0, d);
        out.insert(out.end(), level.begin(), level.end());
    }
    return out;
}

struct Candidate {
    FormKind kind;
    long params;
    std::vector<GuessTerm> terms;  // linear forms (of v, or of g for binomials)
    int binom_var = -1;
    int order = 0, degree = 0;  // recurrences
};

// The linear term sets over the allowed variables: polynomials of degree 0..max, then
// exp-linear ones {1, c^{x_j}} and {1, x_i…, c^{x_j}}.
std::vector<std::pair<FormKind, std::vector<GuessTerm>>> linear_sets(std::size_t nv, const std::vector<bool>& allowed,
                                                                    const GuessOptions& opt) {
    std::vector<std::pair<FormKind, std::vector<GuessTerm>>> out;
    for (int d = 0; d <= opt.max_degree; ++d) {
        std::vector<GuessTerm> ts;
        for (auto& m : monomials(nv, d, allowed)) ts.push_back(GuessTerm{m, 0, -1});
        out.emplace_back(FormKind::polynomial, ts);
        if (std::count(allowed.begin(), allowed.end(), true) == 0) break;  // constants only
    }
    for (std::size_t j = 0; j < nv; ++j) {
        if (!allowed[j]) continue;
        for (long c : opt.bases) {
            const GuessTerm one{std::vector<int>(nv, 0), 0, -1};
            const GuessTerm ex{std::vector<int>(nv, 0), c, static_cast<int>(j)};
            out.emplace_back(FormKind::exp_linear, std::vector<GuessTerm>{one, ex});
            std::vector<GuessTerm> ts{one};
            for (auto& m : monomials(nv, 1, allowed))
                if (std::accumulate(m.begin(), m.end(), 0) == 1) ts.push_back(GuessTerm{m, 0, -1});
            ts.push_back(ex);
            if (ts.size() > 2) out.emplace_back(FormKind::exp_linear, ts);
        }
    }
    return out;
}

std::vector<Candidate> candidates(std::size_t nv, const GuessOptions& opt) {
    std::vector<Candidate> out;
    const std::vector<bool> all(nv, true);
    for (auto& [k, ts] : linear_sets(nv, all, opt)) out.push_back(Candidate{k, static_cast<long>(ts.size()), ts});
    for (std::size_t b = 0; b < nv; ++b) {
        std::vector<bool> others(nv, true);
        others[b] = false;
        for (auto& [k, ts] : linear_sets(nv, others, opt)) {
            (void)k;
            Candidate c{FormKind::binomial, static_cast<long>(ts.size()), ts};
            c.binom_var = static_cast<int>(b);
            out.push_back(c);
        }
    }
    if (nv == 1) {
        for (int k = 1; k <= opt.max_order; ++k) {
            Candidate c{FormKind::c_finite, 2L * k, {}};
            c.order = k;
            out.push_back(c);
            for (int d = 0; d <= opt.max_rec_degree; ++d) {
                Candidate p{FormKind::p_recursive, static_cast<long>((k + 1) * (d + 1) - 1 + k), {}};
                p.order = k;
                p.degree = d;
                out.push_back(p);
            }
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
        if (a.params != b.params) return a.params < b.params;
        return static_cast<int>(a.kind) < static_cast<int>(b.kind);
    });
    return out;
}

// Equations of a recurrence: one for each row n with n−1..n−order present (one variable),
// built on demand (equation()).
struct RecSystem {
    std::vector<std::size_t> row_of;             // the row whose value each equation predicts
    std::vector<std::vector<std::size_t>> prev;  // the rows of n−1, …, n−order
};

RecSystem recurrence_system(const std::vector<GuessPoint>& rows, int order) {
    std::map<long, std::size_t> at;
    for (std::size_t i = 0; i < rows.size(); ++i) at[rows[i].x[0]] = i;
    RecSystem s;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const long n = rows[i].x[0];
        if (n < std::numeric_limits<long>::min() + order) continue;
        std::vector<std::size_t> prev;
        for (int k = 1; k <= order; ++k) {
            auto it = at.find(n - k);
            if (it == at.end()) break;
            prev.push_back(it->second);
        }
        if (static_cast<int>(prev.size()) < order) continue;
        s.row_of.push_back(i);
        s.prev.push_back(std::move(prev));
    }
    return s;
}

// Equation e of the system: C-finite v(n) = Σ c_k v(n−k), or P-recursive
// Σ_{k=0..order} Σ_e a_{k,e} n^e v(n−k) = 0.
void recurrence_equation(const std::vector<GuessPoint>& rows, const RecSystem& s, std::size_t e, int order, int degree, bool c_finite,
                         std::vector<Rational>& eq, Rational& rhs) {
    eq.clear();
    const GuessPoint& r = rows[s.row_of[e]];
    if (c_finite) {
        for (std::size_t p : s.prev[e]) eq.emplace_back(rows[p].value);
        rhs = Rational(r.value);
        return;
    }
    for (int k = 0; k <= order; ++k) {
        const Integer& v = k == 0 ? r.value : rows[s.prev[e][static_cast<std::size_t>(k - 1)]].value;
        Integer ne(1);
        for (int d = 0; d <= degree; ++d) {
            eq.emplace_back(v * ne);
            ne = ne * Integer(r.x[0]);
        }
    }
    rhs = Rational(0);
}

// ------------------------------------------------------------------ printing


// Σ c_t·term_t over a common denominator: "(3^depth - 1)/2"; largest terms first.
std::string linear_text(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<std::string>& vars,
                        bool latex) {
    Integer den(1);
    for (const Rational& c : coeffs) fmpz_lcm(den.get(), den.get(), fmpq_denref(c.get()));
    std::ostringstream os;
    bool first = true;
    for (std::size_t k = terms.size(); k-- > 0;) {
        const Rational c = coeffs[k] * Rational(den);
        if (c.is_zero()) continue;
        const GuessTerm& t = terms[k];
        std::string body;
        for (std::size_t i = 0; i < t.exps.size(); ++i) {
            if (t.exps[i] == 0) continue;
            const std::string v = latex ? "\\mathrm{" + vars[i] + "}" : vars[i];
            if (!body.empty()) body += latex ? " " : "*";
            body += v;
            if (t.exps[i] > 1) body += latex ? "^{" + std::to_string(t.exps[i]) + "}" : "^" + std::to_string(t.exps[i]);
        }
        if (t.exp_var >= 0) {
            const std::string v = latex ? "\\mathrm{" + vars[static_cast<std::size_t>(t.exp_var)] + "}" : vars[static_cast<std::size_t>(t.exp_var)];
            if (!body.empty()) body += latex ? " " : "*";
            body += std::to_string(t.base) + (latex ? "^{" + v + "}" : "^" + v);
        }
        const int sign = fmpq_sgn(c.get());
        Rational a = c;
        if (sign < 0) a = Rational(0) - c;
        std::string mag = a.str();
        std::string piece = body.empty() ? mag : (mag == "1" ? body : mag + (latex ? " " : "*") + body);
        if (first) os << (sign < 0 ? "-" : "") << piece;
        else os << (sign < 0 ? " - " : " + ") << piece;
        first = false;
    }
    if (first) os << "0";
    std::string s = os.str();
    if (den != Integer(1)) {
        if (latex) s = "\\frac{" + s + "}{" + den.str() + "}";
        else s = "(" + s + ")/" + den.str();
    }
    return s;
}

std::string poly_in_n(const std::vector<Rational>& p, const std::string& n, bool latex) {
    std::vector<GuessTerm> ts;
    for (std::size_t e = 0; e < p.size(); ++e) ts.push_back(GuessTerm{{static_cast<int>(e)}, 0, -1});
    return linear_text(ts, p, {n}, latex);
}

}  // namespace

std::string Formula::text() const {
    switch (kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear: return linear_text(terms, coeffs, vars, false);
        case FormKind::binomial: {
            const std::string& b = vars[static_cast<std::size_t>(binom_var)];
            return "C(" + linear_text(terms, coeffs, vars, false) + " + " + b + ", " + b + ")";
        }
        case FormKind::c_finite:
        case FormKind::p_recursive: {
            const std::string& n = vars[static_cast<std::size_t>(rec_var)];
            std::ostringstream os;
            for (int k = 0; k <= order; ++k) {
                if (k) os << " + ";
                os << "(" << poly_in_n(rec[static_cast<std::size_t>(k)], n, false) << ")*v(" << n;
                if (k) os << " - " << k;
                os << ")";
            }
            os << " = 0";
            for (std::size_t k = 0; k < init.size(); ++k) os << ", v(" << init_start + static_cast<long>(k) << ") = " << init[k].str();
            return os.str();
        }
    }
    return "";
}

std::string Formula::latex() const {
    switch (kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear: return linear_text(terms, coeffs, vars, true);
        case FormKind::binomial: {
            const std::string b = "\\mathrm{" + vars[static_cast<std::size_t>(binom_var)] + "}";
            return "\\binom{" + linear_text(terms, coeffs, vars, true) + " + " + b + "}{" + b + "}";
        }
        case FormKind::c_finite:
        case FormKind::p_recursive: {
            const std::string n = "\\mathrm{" + vars[static_cast<std::size_t>(rec_var)] + "}";
            std::ostringstream os;
            for (int k = 0; k <= order; ++k) {
                if (k) os << " + ";
                os << "\\left(" << poly_in_n(rec[static_cast<std::size_t>(k)], vars[static_cast<std::size_t>(rec_var)], true) << "\\right) v(" << n;
                if (k) os << " - " << k;
                os << ")";
            }
            os << " = 0";
            for (std::size_t k = 0; k < init.size(); ++k) os << ",\\ v(" << init_start + static_cast<long>(k) << ") = " << init[k].str();
            return os.str();
        }
    }
    return "";
}

Guess guess_formula(const std::vector<GuessPoint>& input, const GuessOptions& opt) {
    check_options(opt);
    const std::size_t nv = opt.vars.size();
    Guess out;
    // Sort (smallest variables first), merge duplicates.
    std::vector<GuessPoint> rows = input;
    for (const GuessPoint& p : rows)
        if (p.x.size() != nv)
            throw invalid_input("guess: a row has " + std::to_string(p.x.size()) + " variable values, " + std::to_string(nv) + " expected");
    std::stable_sort(rows.begin(), rows.end(), [](const GuessPoint& a, const GuessPoint& b) {
        // The sums as doubles: no overflow near 2^63, and (sum, x) is still a fixed key.
        const auto sum = [](const std::vector<long>& x) {
            double s = 0;
            for (long v : x) s += static_cast<double>(v);
            return s;
        };
        const double sa = sum(a.x), sb = sum(b.x);
        return sa != sb ? sa < sb : a.x < b.x;
    });
    std::vector<GuessPoint> merged;
    for (GuessPoint& p : rows) {
        if (!merged.empty() && merged.back().x == p.x) {
            if (merged.back().value != p.value) {
                std::string at;
                for (std::size_t i = 0; i < nv; ++i) at += (i ? "," : "") + opt.vars[i] + "=" + std::to_string(p.x[i]);
                throw invalid_input("guess: two rows at " + at + " with different values " + cut(merged.back().value.str()) + " and " + cut(p.value.str()));
            }
            continue;
        }
        merged.push_back(std::move(p));
    }
    if (static_cast<long>(merged.size()) < 1 + opt.min_confirm)
        throw invalid_input("guess: " + std::to_string(merged.size()) + " distinct row(s): too few to fit even a constant and confirm it on " +
                            std::to_string(opt.min_confirm) + " more");
    out.rows = merged;
    const std::vector<GuessPoint>& R = out.rows;

    // Binomial read-backs: g per row for each variable b (empty when some row has none).
    std::vector<std::vector<Rational>> g_of(nv);
    for (std::size_t b = 0; b < nv; ++b) {
        std::vector<Rational> gs;
        for (const GuessPoint& p : R) {
            Integer g;
            if (!inverse_binomial(p.value, p.x[b], g)) {
                gs.clear();
                break;
            }
            gs.emplace_back(g);
        }
        g_of[b] = gs;
    }

    for (const Candidate& c : candidates(nv, opt)) {
        if (c.params > opt.max_params) break;
        Fit f;
        Formula form;
        form.kind = c.kind;
        form.vars = opt.vars;
        std::vector<std::size_t> eq_row;  // the row each equation stands for
        if (c.kind == FormKind::c_finite || c.kind == FormKind::p_recursive) {
            const bool cf = c.kind == FormKind::c_finite;
            const RecSystem s = recurrence_system(R, c.order);
            const std::size_t unknowns = cf ? static_cast<std::size_t>(c.order) : static_cast<std::size_t>((c.order + 1) * (c.degree + 1));
            if (s.row_of.size() < unknowns) continue;  // cannot even be determined
            ++out.tried;
            // The values are the rows' own (times n^e): no budget needed.
            f = fit_equations(s.row_of.size(),
                              [&](std::size_t e, std::vector<Rational>& row, Rational& rhs) {
                                  recurrence_equation(R, s, e, c.order, c.degree, cf, row, rhs);
                                  return true;
                              },
                              unknowns, !cf);
            eq_row = s.row_of;
            form.rec_var = 0;
            form.order = c.order;
            if (f.determined && !f.refuted) {
                if (cf) {
                    form.rec.push_back({Rational(-1)});
                    for (const Rational& ck : f.coeffs) form.rec.push_back({ck});
                } else {
                    const std::size_t d1 = static_cast<std::size_t>(c.degree + 1);
                    for (int k = 0; k <= c.order; ++k)
                        form.rec.emplace_back(f.coeffs.begin() + static_cast<long>(k * d1), f.coeffs.begin() + static_cast<long>((k + 1) * d1));
                    if (std::all_of(form.rec[0].begin(), form.rec[0].end(), [](const Rational& r) { return r.is_zero(); })) continue;
                }
            }
        } else {
            const bool binom = c.kind == FormKind::binomial;
            if (binom && g_of[static_cast<std::size_t>(c.binom_var)].empty()) continue;
            ++out.tried;
            const std::vector<Rational>* g_rows = binom ? &g_of[static_cast<std::size_t>(c.binom_var)] : nullptr;
            double budget = kFitBudgetBits;  // what the equations computed so far hold, at most
            f = fit_equations(R.size(),
                              [&](std::size_t i, std::vector<Rational>& row, Rational& rhs) {
                                  for (const GuessTerm& t : c.terms) budget -= term_bits(t, R[i].x);
                                  if (!(budget >= 0)) return false;
                                  row.clear();
                                  for (const GuessTerm& t : c.terms) row.push_back(term_value(t, R[i].x));
                                  rhs = g_rows ? (*g_rows)[i] : Rational(R[i].value);
                                  return true;
                              },
                              c.terms.size(), false);
            for (std::size_t i = 0; i < R.size(); ++i) eq_row.push_back(i);
            form.terms = c.terms;
            form.coeffs = f.coeffs;
            form.binom_var = c.binom_var;
        }
        if (f.too_large) {
            --out.tried;
            ++out.skipped;
            continue;
        }
        if (f.refuted) {
            ++out.refuted;
            continue;
        }
        if (!f.determined || static_cast<long>(f.confirm.size()) < opt.min_confirm) continue;
        if (c.kind == FormKind::c_finite || c.kind == FormKind::p_recursive) {
            // Initial values: the first `order` consecutive rows (one exists: an equation read them).
            const std::size_t k = static_cast<std::size_t>(c.order);
            for (std::size_t i = 0; i + k <= R.size() && form.init.empty(); ++i) {
                bool consecutive = true;
                for (std::size_t j = 1; j < k; ++j)  // rows ascend: the unsigned difference is exact
                    consecutive = consecutive && static_cast<unsigned long>(R[i + j].x[0]) - static_cast<unsigned long>(R[i].x[0]) == j;
                if (!consecutive) continue;
                form.init_start = R[i].x[0];
                for (std::size_t j = 0; j < k; ++j) form.init.push_back(R[i + j].value);
            }
        }
        out.found = true;
        out.formula = form;
        out.params = c.params;
        std::vector<std::size_t> used;
        for (std::size_t e : f.fit) {
            used.push_back(eq_row[e]);
            if (c.kind == FormKind::c_finite || c.kind == FormKind::p_recursive)  // and the rows it reads
                for (int k = 1; k <= c.order; ++k) {
                    const long n = R[eq_row[e]].x[0] - k;
                    for (std::size_t i = 0; i < R.size(); ++i)
                        if (R[i].x[0] == n) used.push_back(i);
                }
        }
        std::sort(used.begin(), used.end());
        used.erase(std::unique(used.begin(), used.end()), used.end());
        out.fit_rows = used;
        for (std::size_t e : f.confirm) out.confirm_rows.push_back(eq_row[e]);
        out.fitted = static_cast<long>(out.fit_rows.size());
        out.confirmed = static_cast<long>(out.confirm_rows.size());
        return out;
    }
    std::ostringstream why;
    why << "no form with at most " << opt.max_params << (opt.max_params == 1 ? " free parameter fits " : " free parameters fits ") << R.size()
        << " rows and predicts at least " << opt.min_confirm << (opt.min_confirm == 1 ? " held-out row (" : " held-out rows (") << out.tried
        << (out.tried == 1 ? " form tried, " : " forms tried, ") << out.refuted << " refuted by a held-out row; the rest"
        << " were not over-determined by these rows";
    if (out.skipped > 0)
        why << "; " << out.skipped << (out.skipped == 1 ? " form" : " forms") << " skipped: their values at these rows are over "
            << "2^27 bits in all";
    why << ")";
    out.reason = why.str();
    return out;
}

namespace {

// log2|z| for an integer z ≠ 0 (any size).
double log2_abs(const fmpz* z) {
    slong e = 0;
    const double m = std::fabs(fmpz_get_d_2exp(&e, z));
    return std::log2(m) + static_cast<double>(e);
}

// log2 of Σ_k Σ_e |D·p_{k,e}|·M^e over the polynomials p_k given (an upper bound on
// log2 Σ_k |D·p_k(m)| for |m| ≤ M); −∞ when they are all zero.
double polys_log2_bound(const std::vector<std::vector<Rational>>& ps, std::size_t from, const Integer& den, double log2M) {
    std::vector<double> logs;
    for (std::size_t k = from; k < ps.size(); ++k)
        for (std::size_t e = 0; e < ps[k].size(); ++e) {
            const Rational& c = ps[k][e];
            if (c.is_zero()) continue;
            logs.push_back(log2_abs(fmpq_numref(c.get())) + log2_abs(den.get()) - log2_abs(fmpq_denref(c.get())) +
                           static_cast<double>(e) * log2M);
        }
    if (logs.empty()) return -std::numeric_limits<double>::infinity();
    const double top = *std::max_element(logs.begin(), logs.end());
    double sum = 0;
    for (double l : logs) sum += std::exp2(l - top);
    return top + std::log2(sum);
}

// v(n) from a recurrence, unrolled forward from the last `order` rows before n. The
// size is estimated first (see docs/guess.md): scaled to integers by the common
// denominator D of the coefficients (P_k = D·p_k), each step multiplies the numbers'
// heights by at most Σ_k |P_k|(M) · |P_0|(M)^order (M = max |m|), so v(n) has at most
// B0 + steps·β bits (B0: the rows' largest value, β the log2 of that factor), and the
// unrolling costs about steps · bits · terms bit operations. Only `order` values are kept.
Rational unroll(const Guess& g, long n, const std::string& at) {
    const Formula& f = g.formula;
    std::map<long, const Integer*> v;
    for (const GuessPoint& p : g.rows) v[p.x[0]] = &p.value;
    if (auto it = v.find(n); it != v.end()) return Rational(*it->second);
    const long first = v.begin()->first;
    const std::string& name = f.vars[static_cast<std::size_t>(f.rec_var)];
    if (n < first)
        throw invalid_input("guess: " + at + ": the recurrence unrolls forward from the rows, which start at " + name + " = " +
                            std::to_string(first));
    // The `order` consecutive rows to start from: the last ones before n.
    long start = n;
    for (auto it = std::make_reverse_iterator(v.lower_bound(n)); it != v.rend(); ++it) {  // rows below n, largest first
        const long m = it->first;
        bool ok = m >= std::numeric_limits<long>::min() + f.order;
        for (int k = 1; k < f.order && ok; ++k) ok = v.count(m - k) > 0;
        if (ok) {
            start = m;
            break;
        }
    }
    if (start == n)
        throw invalid_input("guess: " + at + ": no " + std::to_string(f.order) + " consecutive rows before " + name + " = " +
                            std::to_string(n) + " to unroll the recurrence from");
    const unsigned long step_count = static_cast<unsigned long>(n) - static_cast<unsigned long>(start);  // n > start: exact
    const double steps = static_cast<double>(step_count);
    Integer den(1);
    for (const auto& p : f.rec)
        for (const Rational& c : p) fmpz_lcm(den.get(), den.get(), fmpq_denref(c.get()));
    const double log2M = std::log2(std::max(std::fabs(static_cast<double>(n)), std::fabs(static_cast<double>(first))) + 2);
    // Scaled to integers (P_k = D·p_k) and to a common denominator Q(m) = Π P_0(j), each
    // step multiplies the numerator's height by at most Σ_{k≥1} |P_k(m)| · |P_0|^(order−1)
    // and the denominator's by |P_0(m)|: β = log2 Σ_{k≥1} |P_k|(M) + order·log2 |P_0|(M).
    const double lp0 = std::max(0.0, polys_log2_bound({f.rec[0]}, 0, den, log2M));
    const double beta = std::max(0.0, polys_log2_bound(f.rec, 1, den, log2M)) + static_cast<double>(f.order) * lp0;
    double b0 = 1;
    for (const GuessPoint& p : g.rows) b0 = std::max(b0, static_cast<double>(fmpz_bits(p.value.get())) + 1);
    const double bits = b0 + steps * beta;
    // Each step: (order + 1)·(degree + 1) products of numbers of up to `bits` bits, and
    // a canonicalisation; on average half the final size, plus a constant per step.
    const double terms = static_cast<double>(f.order + 1) * static_cast<double>(f.rec[0].size());
    const std::string what = "guess: " + at + ": unrolling the recurrence " + std::to_string(step_count) + " steps";
    check_exact_bits(bits, what);
    check_exact_work(steps * ((b0 + bits) / 2 + 256) * terms, what);

    std::vector<Rational> window;  // v(m − order), …, v(m − 1)
    for (long m = start - f.order + 1; m <= start; ++m) window.emplace_back(*v.at(m));
    for (long m = start + 1; m <= n; ++m) {
        if (auto it = v.find(m); it != v.end()) {  // a row: its own value
            window.erase(window.begin());
            window.emplace_back(*it->second);
            continue;
        }
        const auto pe = [&](int k) {
            Rational s, nm(1);
            for (const Rational& a : f.rec[static_cast<std::size_t>(k)]) {
                s = s + a * nm;
                nm = nm * Rational(m);
            }
            return s;
        };
        Rational acc;
        for (int k = 1; k <= f.order; ++k) acc = acc + pe(k) * window[static_cast<std::size_t>(f.order - k)];
        const Rational lead = pe(0);
        if (lead.is_zero())
            throw invalid_input("guess: " + at + ": the recurrence's leading coefficient vanishes at " + name + " = " + std::to_string(m) +
                                ", so v(" + std::to_string(m) + ") is not determined");
        window.erase(window.begin());
        window.push_back((Rational(0) - acc) / lead);
    }
    return window.back();
}

}  // namespace

Rational guess_predict(const Guess& g, const std::vector<long>& x) {
    if (!g.found) throw invalid_input("guess: no formula to evaluate (" + g.reason + ")");
    const Formula& f = g.formula;
    if (x.size() != f.vars.size())
        throw invalid_input("guess: a point of " + std::to_string(x.size()) + " values for " + std::to_string(f.vars.size()) + " variables");
    std::string at;
    for (std::size_t i = 0; i < x.size(); ++i) at += (i ? "," : "") + f.vars[i] + "=" + std::to_string(x[i]);
    switch (f.kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear:
            check_exact_bits(linear_bits(f.terms, f.coeffs, x), "guess: evaluating " + f.text() + " at " + at);
            return linear_value(f.terms, f.coeffs, x);
        case FormKind::binomial: {
            const std::string& bname = f.vars[static_cast<std::size_t>(f.binom_var)];
            const long b = x[static_cast<std::size_t>(f.binom_var)];
            if (b < 0)
                throw invalid_input("guess: " + at + " is outside the formula's domain: C(g + " + bname + ", " + bname + ") needs " + bname +
                                    " >= 0, not " + bname + " = " + std::to_string(b));
            check_exact_bits(linear_bits(f.terms, f.coeffs, x), "guess: evaluating g at " + at);
            const Rational gv = linear_value(f.terms, f.coeffs, x);
            if (!gv.is_integer() || fmpq_sgn(gv.get()) < 0)
                throw invalid_input("guess: " + at + " is outside the formula's domain: there g = " + linear_text(f.terms, f.coeffs, f.vars, false) +
                                    " = " + cut(gv.str()) + ", not a non-negative integer");
            // C(g + b, b) = rising(max + 1, k) / k! with k = min(g, b): about k·log2(e(g + b)/k) bits.
            const Integer gi = gv.num();
            const double bd = static_cast<double>(b);
            const double kd = gi <= Integer(b) ? fmpz_get_d(gi.get()) : bd;
            const double log2_top = std::max(static_cast<double>(fmpz_bits(gi.get())), std::log2(bd + 1)) + 1;
            const std::string what = "guess: evaluating " + f.text() + " at " + at;
            const double bits = binomial_bits(log2_top, kd);
            check_exact_bits(bits, what);
            check_exact_work(bits * std::log2(kd + 2) * 4, what);
            Integer k, top;  // C(g + b, k) with k = min(g, b), top = max(g, b) + 1
            if (gi <= Integer(b)) {
                k = gi;
                top = Integer(b) + Integer(1);
            } else {
                k = Integer(b);
                top = gi + Integer(1);
            }
            const ulong ku = fmpz_get_ui(k.get());  // k ≤ b fits, and is small (estimated above)
            Integer num, fac, r;
            fmpz_rfac_ui(num.get(), top.get(), ku);
            fmpz_fac_ui(fac.get(), ku);
            fmpz_divexact(r.get(), num.get(), fac.get());
            return Rational(r);
        }
        case FormKind::c_finite:
        case FormKind::p_recursive: return unroll(g, x[0], at);
    }
    return Rational();
}

// ------------------------------------------------------------------ tables

std::vector<TableRow> parse_table_cells(const std::string& input, const std::string& source) {
    using Row = TableRow;
    std::vector<Row> out;
    // A UTF-8 byte-order mark (some editors and spreadsheets write one) is not part of the
    // first column's name: skipped.
    const std::string_view bom = "\xEF\xBB\xBF";
    const std::string& text = input;
    const std::size_t skip = std::string_view(text).substr(0, 3) == bom ? 3 : 0;
    std::size_t start = text.find_first_not_of(" \t\r\n", skip);
    if (start == std::string::npos) return out;
    const auto cell = [](const nlohmann::json& v) -> std::string {
        if (v.is_null()) return "";
        if (v.is_string()) return v.get<std::string>();
        return v.dump();
    };
    const auto object_row = [&](const nlohmann::json& o, const std::string& where) {
        if (!o.is_object()) throw invalid_input(source + ": " + where + " is not a JSON object");
        Row r;
        for (auto it = o.begin(); it != o.end(); ++it) r.emplace_back(it.key(), cell(it.value()));
        return r;
    };
    // JSON goes through the reader the weights files use: nesting depth bounded, a number
    // out of range and a key given twice in one object refused.
    if (text[start] == '[') {
        const nlohmann::json j = detail::parse_json_text(text.substr(start), source);
        if (!j.is_array()) throw invalid_input(source + ": not a JSON array of objects");
        for (std::size_t i = 0; i < j.size(); ++i) out.push_back(object_row(j[i], "element " + std::to_string(i + 1)));
        return out;
    }
    std::istringstream in(text.substr(skip));
    std::string line;
    long number = 0;
    if (text[start] == '{') {  // JSON lines
        bool first = true;
        while (std::getline(in, line)) {
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            const std::string where = "line " + std::to_string(number);
            const nlohmann::json j = detail::parse_json_text(line, source + ": " + where);
            // The sweep line `seprank table --format json --out` writes first: skipped, as
            // the CSV's `#` sweep line.
            if (first && j.is_object() && j.size() == 1 && j.contains("seprank_table_sweep")) {
                first = false;
                continue;
            }
            first = false;
            out.push_back(object_row(j, where));
        }
        return out;
    }
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty() || line[0] == '#') continue;  // comments (a table's sweep line) and blanks
        std::vector<std::string> cells = parse_csv_line(line);
        if (header.empty()) {
            for (std::size_t i = 0; i < cells.size(); ++i)
                for (std::size_t j = 0; j < i; ++j)
                    if (cells[i] == cells[j])
                        throw invalid_input(source + ": line " + std::to_string(number) + ": column '" + cut(cells[i]) +
                                            "' appears twice in the header");
            header = std::move(cells);
            continue;
        }
        if (cells.size() != header.size())
            throw invalid_input(source + ": line " + std::to_string(number) + " has " + std::to_string(cells.size()) + " cells, the header " +
                                std::to_string(header.size()));
        Row r;
        for (std::size_t i = 0; i < cells.size(); ++i) r.emplace_back(header[i], cells[i]);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<TableRow> read_table_cells(const std::string& path) {
    return parse_table_cells(detail::read_input_file(path, "table", detail::kTableBytesPerByte), "table '" + path + "'");
}

namespace {

bool parse_long(const std::string& s, long& v) {
    const char* b = s.data();
    const char* e = b + s.size();
    auto [p, ec] = std::from_chars(b, e, v);
    return ec == std::errc() && p == e && !s.empty();
}

// Whether s is an optionally signed run of digits (an integer, whatever its size).
bool integer_text(const std::string& s) {
    std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

}  // namespace

std::vector<long> parse_point(const std::string& text, const std::vector<std::string>& vars) {
    std::string names;
    for (const std::string& v : vars) names += (names.empty() ? "" : ",") + v;
    const std::string head = "point '" + cut(text) + "': ";
    std::vector<std::pair<std::string, std::string>> items;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw invalid_input(head + "'" + cut(item) + "' is not name=value");
        const std::string name = item.substr(0, eq);
        if (std::find(vars.begin(), vars.end(), name) == vars.end())
            throw invalid_input(head + "'" + cut(name) + "' is not a variable (the variables: " + names + ")");
        for (const auto& [k, v] : items)
            if (k == name) throw invalid_input(head + "'" + name + "' is given twice");
        items.emplace_back(name, item.substr(eq + 1));
        pos = comma + 1;
    }
    std::vector<long> x;
    for (const std::string& v : vars) {
        const auto it = std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == v; });
        if (it == items.end()) throw invalid_input(head + "no value for variable '" + v + "'");
        long value = 0;
        if (!parse_long(it->second, value)) {
            if (integer_text(it->second))
                throw invalid_input(head + v + " = " + cut(it->second) + " is out of range (-2^63..2^63-1)");
            throw invalid_input(head + v + " = '" + cut(it->second) + "' is not an integer");
        }
        x.push_back(value);
    }
    return x;
}

const std::string* table_cell(const TableRow& row, const std::string& name) {
    for (const auto& [k, v] : row)
        if (k == name) return &v;
    return nullptr;
}

namespace {

// The table's text of a stack's SPEC (its `layers` column): the canonical shortest list.
std::string canonical_layers(const std::string& spec) { return layers_to_string(layers_period(parse_layers(spec))); }

bool is_name_start(const std::string& item) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    for (std::size_t k = 0; k < eq; ++k) {
        const char c = item[k];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text) {
    if (text.empty()) throw invalid_input("--where: empty (expected name=value[,name=value...])");
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty()) throw invalid_input("--where '" + text + "': an empty item between commas");
        if (is_name_start(item)) {
            const std::size_t eq = item.find('=');
            out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        } else if (!out.empty()) {
            out.back().second += "," + item;  // a comma inside the value (a SPEC, a partition)
        } else {
            throw invalid_input("--where: '" + item + "' is not name=value");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    for (const auto& [name, value] : out)
        if (value.empty()) throw invalid_input("--where: '" + name + "=' has no value");
    return out;
}

bool row_matches(const TableRow& row, const std::vector<std::pair<std::string, std::string>>& where) {
    bool keep = true;
    for (const auto& [name, want] : where) {
        const std::string* got = table_cell(row, name);
        if (!got) throw invalid_input("guess: the table has no column '" + name + "' (named in --where)");
        if (name == "layers" && !want.empty()) {  // a SPEC: compared in the form the table writes (empty: as text)
            std::string canonical;
            try {
                canonical = canonical_layers(want);
            } catch (const invalid_input& e) {
                throw invalid_input("guess: --where layers='" + want + "' is not a SPEC: " + e.what());
            }
            bool same = *got == canonical;
            if (!same && !got->empty()) {  // a cell not written by seprank table: read it as a SPEC too
                try {
                    same = canonical_layers(*got) == canonical;
                } catch (const invalid_input&) {
                    same = false;  // a cell that is not a SPEC matches no SPEC
                }
            }
            keep = keep && same;
            continue;
        }
        long a = 0, b = 0;
        keep = keep && (parse_long(*got, a) && parse_long(want, b) ? a == b : *got == want);
    }
    return keep;
}

std::vector<GuessPoint> guess_points(const std::vector<TableRow>& table, const std::vector<std::string>& vars, const std::string& value,
                                     const std::vector<std::pair<std::string, std::string>>& where) {
    for (const std::string& name : vars)
        if (name == value) throw invalid_input("guess: the value column '" + value + "' is also named in --vars: it cannot be a function of itself");
    std::vector<GuessPoint> out;
    for (std::size_t r = 0; r < table.size(); ++r) {
        const TableRow& row = table[r];
        const std::string at = "row " + std::to_string(r + 1);
        if (!row_matches(row, where)) continue;
        const std::string* v = table_cell(row, value);
        if (!v) throw invalid_input("guess: the table has no column '" + value + "' (the value)");
        if (v->empty()) continue;  // not computed
        GuessPoint p;
        for (const std::string& name : vars) {
            const std::string* c = table_cell(row, name);
            if (!c) throw invalid_input("guess: the table has no column '" + name + "' (a variable)");
            long x = 0;
            if (!parse_long(*c, x)) {
                if (integer_text(*c))
                    throw invalid_input("guess: " + at + ": " + name + " = " + cut(*c) + " is out of range (a variable lies in -2^63..2^63-1)");
                throw invalid_input("guess: " + at + ": " + name + " = '" + cut(*c) + "' is not an integer");
            }
            p.x.push_back(x);
        }
        try {
            p.value = Integer(std::string_view(*v));
        } catch (const invalid_input&) {
            throw invalid_input("guess: " + at + ": " + value + " = '" + cut(*v) + "' is not an integer");
        }
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

long cell_long(const std::string& text, const std::string& what) {
    long v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!text.empty() && p == text.data() + text.size()) {
        if (ec == std::errc()) return v;
        if (ec == std::errc::result_out_of_range)
            throw invalid_input(what + " = " + text.substr(0, 40) + " is out of range (-2^63..2^63-1)");
    }
    throw invalid_input(what + " = '" + text.substr(0, 40) + "' is not an integer");
}

}  // namespace

NetworkSpec spec_of_row(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x) {
    if (x.size() != vars.size())
        throw invalid_input("check: " + std::to_string(x.size()) + " values for " + std::to_string(vars.size()) + " variables");
    NetworkSpec s;
    const auto num = [&](const char* name, long& field) {
        if (const std::string* c = table_cell(row, name); c && !c->empty()) field = cell_long(*c, std::string("check: column ") + name);
    };
    const std::string* fam = table_cell(row, "family");
    if (!fam) throw invalid_input("check: the table has no column 'family' to build the network from");
    s.family = family_from_string(*fam);
    num("tokens", s.tokens);
    num("dim", s.dim);
    long h = 0;
    num("heads", h);
    if (h > 0) s.heads = h;
    // head_dim is a resolved column (dx/H when not given): kept only where it was chosen.
    long hd = 0;
    num("head_dim", hd);
    if (hd > 0 && hd * s.heads != s.dim) s.head_dim = hd;
    num("depth", s.depth);
    num("block_degree", s.block_degree);
    long w = 0;  // width: resolved (dx when not given) as head_dim
    num("width", w);
    if (w > 0 && w != s.dim) s.width = w;
    num("embed_rank", s.embed_rank);
    num("attention_rank", s.attention_rank);
    num("position", s.position);
    num("coordinate", s.coordinate);
    if (const std::string* r = table_cell(row, "residual")) s.residual = *r == "true" || *r == "1" || *r == "True";
    for (std::size_t i = 0; i < vars.size(); ++i) {
        long* field = vars[i] == "tokens" ? &s.tokens : vars[i] == "dim" ? &s.dim : vars[i] == "heads" ? &s.heads
                    : vars[i] == "depth" ? &s.depth : vars[i] == "block_degree" ? &s.block_degree : vars[i] == "width" ? &s.width
                    : vars[i] == "embed_rank" ? &s.embed_rank : nullptr;
        if (!field) throw invalid_input("check: variable '" + vars[i] + "' is not a network size (tokens, dim, heads, depth, block_degree, width, embed_rank)");
        *field = x[i];
    }
    // A stack: its `layers` column is the list that depth (the number of layers) repeats.
    if (const std::string* spec = table_cell(row, "layers"); spec && !spec->empty()) {
        const std::vector<LayerSpec> unit = parse_layers(*spec);
        const long n = static_cast<long>(unit.size());
        if (s.depth < 0 || s.depth % n != 0 || s.depth / n > kMaxDepth)
            throw invalid_input("check: depth " + std::to_string(s.depth) + " is not a number of copies of the " + std::to_string(n) +
                                " layers '" + *spec + "' (at most " + std::to_string(kMaxDepth) + " layers)");
        for (long c = 0; c < s.depth / n; ++c) s.layers.insert(s.layers.end(), unit.begin(), unit.end());
    }
    return s;
}

void check_options(const CheckOptions& opt) {
    if (!(opt.seconds > 0) || !std::isfinite(opt.seconds))
        throw invalid_input("check seconds " + std::to_string(opt.seconds) + " must be a finite number > 0");
    if (opt.trials < 1 || opt.trials > 1000) throw invalid_input("check trials " + std::to_string(opt.trials) + " outside 1..1000");
    GenericOptions g;
    g.trials = opt.trials;
    g.max_side = opt.max_side;
    g.threads = opt.threads;
    check_options(g);
}

PredictionCheck check_prediction(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x,
                                 const Rational& predicted, const CheckOptions& opt) {
    check_options(opt);
    const ValidSpec spec = spec_of_row(row, vars, x);
    const std::string* part_text = table_cell(row, "partition");
    const ValidPartition part = part_text && !part_text->empty() ? parse_partition(*part_text, spec->tokens) : balanced_partition(spec->tokens);
    GenericOptions go;
    go.trials = opt.trials;
    go.max_side = opt.max_side;
    go.threads = opt.threads;
    PredictionCheck c;
    const auto start = std::chrono::steady_clock::now();
    const auto since = [&start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    // The budget's scope replaces the caller's for the run, so it also asks the caller's
    // (Ctrl-C in the CLI or Python): that one's cancellation is passed on, not a verdict.
    const CancelHandle outer = current_cancel();
    bool outer_cancelled = false;
    try {
        const CancelScope scope([&] {
            if (outer) {
                const CancelScope caller(outer);
                if (cancel_requested()) outer_cancelled = true;
            }
            return outer_cancelled || since() > opt.seconds;
        });
        const RankAnswer r = generic_rank(spec, part, go);
        const bool lower = r.kind != RankKind::generic && r.kind != RankKind::exact;
        c.done = true;
        c.generic = r.value;
        c.label = r.label();
        c.verdict = Rational(Integer(r.value)) == predicted ? "agree" : lower ? "unchecked (generic gave a lower bound)" : "disagree";
    } catch (const cancelled&) {
        if (outer_cancelled) throw;
        c.verdict = "unchecked (over the budget)";
    }
    c.seconds = since();
    return c;
}

}  // namespace seprank
