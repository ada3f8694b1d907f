// guess — closed forms fitted exactly to table rows (guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "file_io.hpp"
#include "guess_internal.hpp"
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
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
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
    if (opt.max_exps < 1 || opt.max_exps > 4) throw invalid_input("guess: max exponentials " + std::to_string(opt.max_exps) + " outside 1..4");
    if (opt.max_exceptions < 0)
        throw invalid_input("guess: max exceptions " + std::to_string(opt.max_exceptions) + " must be at least 0");
}

std::string to_string(FormKind k) {
    switch (k) {
        case FormKind::polynomial: return "polynomial";
        case FormKind::exp_linear: return "exp-linear";
        case FormKind::binomial: return "binomial";
        case FormKind::exp_sum: return "exp-sum";
        case FormKind::hypergeometric: return "hypergeometric";
        case FormKind::c_finite: return "C-finite";
        case FormKind::p_recursive: return "P-recursive";
    }
    throw internal_error("to_string(FormKind): unknown value " + std::to_string(static_cast<int>(k)));
}

using namespace guess_detail;

namespace {

// ------------------------------------------------------------------ exact pieces
//
// Every value computed here is estimated first (bits, with limits.hpp's helpers): the
// fit skips a candidate whose values would be too large, and guess_predict refuses
// (resource_limit) a point whose value or work would be, so GMP never sees a number it
// would abort on.

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
                  std::size_t leave_out = std::numeric_limits<std::size_t>::max()) {
    Fit out;
    const std::size_t need = homogeneous ? unknowns - 1 : unknowns;
    Echelon e(unknowns);
    std::vector<std::size_t> held;  // left out while fitting: checked with the solution
    const auto miss = [&](std::size_t i) {
        out.miss.push_back(i);
        out.refuted = static_cast<long>(out.miss.size()) > max_misses;
        return !out.refuted;
    };
    std::size_t i = 0;
    std::vector<Rational> row;
    Rational rhs;
    for (; i < count && e.rank() < need; ++i) {
        if (i == leave_out) {
            held.push_back(i);
            continue;
        }
        const Eq s = at(i, row, rhs);
        if (s == Eq::too_large) {
            out.too_large = true;
            return out;
        }
        Rational res;
        if (s == Eq::miss || (!e.add(row, homogeneous ? Rational(0) : rhs, &res) && !res.is_zero())) {
            if (!miss(i)) return out;  // inconsistent before the fit is even determined
            continue;
        }
        out.fit.push_back(i);  // independent, or dependent and consistent: used, not held out
    }
    if (e.rank() < need || (homogeneous && unknowns == 0)) return out;
    out.determined = true;
    out.coeffs = homogeneous ? e.kernel() : e.solution();
    const auto check = [&](std::size_t j) {  // false: stop
        const Eq s = at(j, row, rhs);
        if (s == Eq::too_large) {
            out.too_large = true;
            out.determined = false;
            return false;
        }
        if (s == Eq::miss) return miss(j);
        Rational sum;
        for (std::size_t k = 0; k < unknowns; ++k) sum = sum + row[k] * out.coeffs[k];
        if (sum != (homogeneous ? Rational(0) : rhs)) return miss(j);
        out.confirm.push_back(j);
        return true;
    };
    for (std::size_t j : held)
        if (!check(j)) return out;
    for (; i < count; ++i)
        if (!check(i)) return out;
    std::sort(out.confirm.begin(), out.confirm.end());
    std::sort(out.miss.begin(), out.miss.end());
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
    FormKind terms_kind = FormKind::polynomial;  // the linear form's own kind (a binomial's g's)
    int binom_var = -1;
    int order = 0, degree = 0;  // recurrences; hypergeometric terms: degree
};

// The linear term sets over the allowed variables: polynomials of degree 0..max, then
// exp-linear ones {1, c^{x_j}} and {1, x_i…, c^{x_j}}, then the exp-sums in each x_j.
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
    for (std::size_t j = 0; j < nv; ++j) {
        if (!allowed[j]) continue;
        std::vector<std::vector<GuessTerm>> sets;
        exp_sum_sets(nv, j, opt, sets);
        for (auto& ts : sets) out.emplace_back(FormKind::exp_sum, std::move(ts));
    }
    return out;
}

std::vector<Candidate> candidates(std::size_t nv, const GuessOptions& opt) {
    std::vector<Candidate> out;
    const std::vector<bool> all(nv, true);
    for (auto& [k, ts] : linear_sets(nv, all, opt)) out.push_back(Candidate{k, static_cast<long>(ts.size()), ts, k});
    for (std::size_t b = 0; b < nv; ++b) {
        std::vector<bool> others(nv, true);
        others[b] = false;
        for (auto& [k, ts] : linear_sets(nv, others, opt)) {
            Candidate c{FormKind::binomial, static_cast<long>(ts.size()), ts, k};
            c.binom_var = static_cast<int>(b);
            out.push_back(c);
        }
    }
    if (nv == 1) {
        // Hypergeometric terms of degree d (first-order recurrences solved: none when
        // max_order is 0): d + 1 numerator coefficients and the constant.
        for (int d = 0; d <= (opt.max_order >= 1 ? opt.max_rec_degree : -1); ++d) {
            Candidate h{FormKind::hypergeometric, d + 2L, {}};
            h.degree = d;
            out.push_back(h);
        }
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

// A recurrence Σ p_k(n)·v(n − k) = 0 with its initial values.
std::string recurrence_text(const Formula& f, bool latex) {
    const std::string& name = f.vars[static_cast<std::size_t>(f.rec_var)];
    const std::string n = latex ? "\\mathrm{" + name + "}" : name;
    std::ostringstream os;
    for (int k = 0; k <= f.order; ++k) {
        if (k) os << " + ";
        const std::string p = poly_in_n(f.rec[static_cast<std::size_t>(k)], name, latex);
        os << (latex ? "\\left(" + p + "\\right) v(" : "(" + p + ")*v(") << n;
        if (k) os << " - " << k;
        os << ")";
    }
    os << " = 0";
    for (std::size_t k = 0; k < f.init.size(); ++k) os << (latex ? ",\\ v(" : ", v(") << f.init_start + static_cast<long>(k) << ") = " << f.init[k].str();
    return os.str();
}

}  // namespace

std::string Formula::text() const {
    switch (kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear:
        case FormKind::exp_sum: return linear_text(terms, coeffs, vars, false, terms_kind == FormKind::exp_sum);
        case FormKind::binomial: {
            const std::string& b = vars[static_cast<std::size_t>(binom_var)];
            return "C(" + linear_text(terms, coeffs, vars, false, terms_kind == FormKind::exp_sum) + " + " + b + ", " + b + ")";
        }
        case FormKind::hypergeometric: return hyper_text(*this, false);
        case FormKind::c_finite:
        case FormKind::p_recursive: return recurrence_text(*this, false);
    }
    return "";
}

std::string Formula::latex() const {
    switch (kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear:
        case FormKind::exp_sum: return linear_text(terms, coeffs, vars, true, terms_kind == FormKind::exp_sum);
        case FormKind::binomial: {
            const std::string b = "\\mathrm{" + vars[static_cast<std::size_t>(binom_var)] + "}";
            return "\\binom{" + linear_text(terms, coeffs, vars, true, terms_kind == FormKind::exp_sum) + " + " + b + "}{" + b + "}";
        }
        case FormKind::hypergeometric: return hyper_text(*this, true);
        case FormKind::c_finite:
        case FormKind::p_recursive: return recurrence_text(*this, true);
    }
    return "";
}

std::string Formula::recurrence() const {
    const bool rec = kind == FormKind::c_finite || kind == FormKind::p_recursive || kind == FormKind::hypergeometric;
    return rec ? recurrence_text(*this, false) : std::string();
}

namespace {

// ------------------------------------------------------------------ the search

// A form the search accepted: its formula, free parameters and rows.
struct Accepted {
    Formula form;
    long params = 0;
    std::vector<std::size_t> fit_rows, confirm_rows, miss_rows;  // indices into the rows
};

// What a search counts: forms tried, refuted by a row, skipped as too large, and those the
// rows could not over-determine (for the reason's "what would help"); and the estimated
// bits of values the whole search may still compute (unbounded but for the search for a
// near miss, a hint that must not cost more than the answer).
struct Counts {
    long tried = 0, refuted = 0, skipped = 0, undetermined = 0;
    double bits_left = std::numeric_limits<double>::infinity();
};

// The near-miss search's bound on the bits it computes in all: 2^24 (a table of small
// rows never reaches it; rows at n = 50,000 make every exponential 10^5 bits long).
constexpr double kNearMissBits = 16777216.0;

// The rows, the options and what every candidate shares: the candidates in order and the
// binomial read-backs (per variable b, each row's g with C(g + x_b, x_b) = v, if any).
struct Search {
    const std::vector<GuessPoint>& rows;
    const GuessOptions& opt;
    std::vector<Candidate> cands;
    std::vector<std::vector<std::optional<Rational>>> g_of;
    std::vector<long> g_missing;  // per variable: rows without a g
};

// Forms whose every row is predicted on its own may name exceptions; a recurrence's or
// hypergeometric term's rows enter several equations (and its predictions), so not those.
bool takes_exceptions(FormKind k) {
    return k == FormKind::polynomial || k == FormKind::exp_linear || k == FormKind::exp_sum || k == FormKind::binomial;
}

std::optional<Accepted> try_recurrence(const Search& s, const Candidate& c, Counts& n) {
    const std::vector<GuessPoint>& R = s.rows;
    const bool cf = c.kind == FormKind::c_finite;
    const RecSystem sys = recurrence_system(R, c.order);
    const std::size_t unknowns = cf ? static_cast<std::size_t>(c.order) : static_cast<std::size_t>((c.order + 1) * (c.degree + 1));
    if (sys.row_of.size() < unknowns) {  // cannot even be determined
        ++n.undetermined;
        return std::nullopt;
    }
    ++n.tried;
    // The values are the rows' own (times n^e): no budget needed.
    const Fit f = fit_equations(sys.row_of.size(),
                                [&](std::size_t e, std::vector<Rational>& row, Rational& rhs) {
                                    recurrence_equation(R, sys, e, c.order, c.degree, cf, row, rhs);
                                    return Eq::ok;
                                },
                                unknowns, !cf);
    if (f.refuted) {
        ++n.refuted;
        return std::nullopt;
    }
    if (!f.determined || static_cast<long>(f.confirm.size()) < s.opt.min_confirm) {
        ++n.undetermined;
        return std::nullopt;
    }
    Accepted a;
    Formula& form = a.form;
    form.kind = c.kind;
    form.vars = s.opt.vars;
    form.rec_var = 0;
    form.order = c.order;
    if (cf) {
        form.rec.push_back({Rational(-1)});
        for (const Rational& ck : f.coeffs) form.rec.push_back({ck});
    } else {
        const std::size_t d1 = static_cast<std::size_t>(c.degree + 1);
        for (int k = 0; k <= c.order; ++k)
            form.rec.emplace_back(f.coeffs.begin() + static_cast<long>(k * d1), f.coeffs.begin() + static_cast<long>((k + 1) * d1));
        if (std::all_of(form.rec[0].begin(), form.rec[0].end(), [](const Rational& r) { return r.is_zero(); })) return std::nullopt;
    }
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
    a.params = c.params;
    for (std::size_t e : f.fit) {
        a.fit_rows.push_back(sys.row_of[e]);
        for (std::size_t p : sys.prev[e]) a.fit_rows.push_back(p);  // and the rows it reads
    }
    std::sort(a.fit_rows.begin(), a.fit_rows.end());
    a.fit_rows.erase(std::unique(a.fit_rows.begin(), a.fit_rows.end()), a.fit_rows.end());
    for (std::size_t e : f.confirm) a.confirm_rows.push_back(sys.row_of[e]);
    return a;
}

// A polynomial, exp-linear, exp-sum or binomial form, up to max_exc rows missed: the
// greedy fit, and when it is refuted (or misses too many rows), the fit again with each of
// its own rows left out in turn, keeping the one that misses fewest.
std::optional<Accepted> try_linear(const Search& s, const Candidate& c, long max_exc, Counts& n) {
    const std::vector<GuessPoint>& R = s.rows;
    const bool binom = c.kind == FormKind::binomial;
    const std::size_t b = binom ? static_cast<std::size_t>(c.binom_var) : 0;
    if (binom && s.g_missing[b] > max_exc) return std::nullopt;  // too many rows are no binomial of this shape
    // P parameters take P rows: fewer than min_confirm left can never confirm it. Not
    // fitted (the smallest answer has at most rows − min_confirm parameters, so no form
    // tried before one is left out; a table with a row at n = 10^6 fitted 500 exponential
    // forms in vain).
    if (static_cast<long>(R.size()) - c.params < s.opt.min_confirm) {
        ++n.undetermined;
        return std::nullopt;
    }
    ++n.tried;
    const std::vector<std::optional<Rational>>* g_rows = binom ? &s.g_of[b] : nullptr;
    const auto fit = [&](std::size_t leave_out) {
        double budget = kFitBudgetBits;  // what the equations computed so far hold, at most
        return fit_equations(R.size(),
                             [&](std::size_t i, std::vector<Rational>& row, Rational& rhs) {
                                 double bits = 0;
                                 for (const GuessTerm& t : c.terms) bits += term_bits(t, R[i].x);
                                 budget -= bits;
                                 n.bits_left -= bits;
                                 if (!(budget >= 0) || !(n.bits_left >= 0)) return Eq::too_large;
                                 if (g_rows && !(*g_rows)[i]) return Eq::miss;
                                 row.clear();
                                 for (const GuessTerm& t : c.terms) row.push_back(term_value(t, R[i].x));
                                 rhs = g_rows ? *(*g_rows)[i] : Rational(R[i].value);
                                 return Eq::ok;
                             },
                             c.terms.size(), false, max_exc, leave_out);
    };
    const auto accepted = [&](const Fit& f) {
        return f.determined && !f.refuted && static_cast<long>(f.confirm.size()) >= s.opt.min_confirm && f.confirm.size() > f.miss.size();
    };
    Fit f = fit(std::numeric_limits<std::size_t>::max());
    if (max_exc > 0 && !f.too_large && !accepted(f)) {
        std::optional<Fit> best;
        for (std::size_t i : std::vector<std::size_t>(f.fit)) {
            Fit g = fit(i);
            if (accepted(g) && (!best || g.miss.size() < best->miss.size())) best = std::move(g);
        }
        if (best) f = std::move(*best);
    }
    if (f.too_large) {
        --n.tried;
        ++n.skipped;
        return std::nullopt;
    }
    if (!accepted(f)) {
        if (f.refuted || !f.miss.empty()) ++n.refuted;
        else ++n.undetermined;
        return std::nullopt;
    }
    Accepted a;
    a.form.kind = c.kind;
    a.form.vars = s.opt.vars;
    a.form.terms = c.terms;
    a.form.coeffs = f.coeffs;
    a.form.terms_kind = c.terms_kind;
    a.form.binom_var = c.binom_var;
    a.params = c.params;
    a.fit_rows = f.fit;
    a.confirm_rows = f.confirm;
    a.miss_rows = f.miss;
    return a;
}

std::optional<Accepted> try_hypergeometric(const Search& s, const Candidate& c, Counts& n) {
    HyperFit h = fit_hypergeometric(s.rows, s.opt.vars, c.degree, s.opt.min_confirm);
    if (!h.tried) {
        ++n.undetermined;
        return std::nullopt;
    }
    if (h.too_large) {
        ++n.skipped;
        return std::nullopt;
    }
    ++n.tried;
    if (h.found) return Accepted{std::move(h.form), c.params, std::move(h.fit_rows), std::move(h.confirm_rows), {}};
    if (h.refuted) ++n.refuted;
    else ++n.undetermined;
    return std::nullopt;
}

// The first candidate accepted, smallest first: one with exceptions only when no exact form
// of as many parameters or fewer follows it (exceptions_only: the forms that take them).
std::optional<Accepted> run_search(const Search& s, long max_exc, Counts& n, bool exceptions_only) {
    std::optional<Accepted> pending;
    for (const Candidate& c : s.cands) {
        if (c.params > s.opt.max_params || !(n.bits_left >= 0)) break;
        if (pending && c.params > pending->params) break;
        if (exceptions_only && !takes_exceptions(c.kind)) continue;
        std::optional<Accepted> a = c.kind == FormKind::c_finite || c.kind == FormKind::p_recursive ? try_recurrence(s, c, n)
                                    : c.kind == FormKind::hypergeometric                            ? try_hypergeometric(s, c, n)
                                                                                                     : try_linear(s, c, max_exc, n);
        if (!a) continue;
        if (a->miss_rows.empty()) return a;
        if (!pending) pending = std::move(a);
    }
    return pending;
}

std::string point_text(const std::vector<std::string>& vars, const std::vector<long>& x) {
    std::string at;
    for (std::size_t i = 0; i < x.size(); ++i) at += (i ? "," : "") + vars[i] + "=" + std::to_string(x[i]);
    return at;
}

Rational evaluate(const Formula& f, const std::vector<GuessPoint>& rows, const std::vector<long>& x, const std::string& at);

// The formula's value at each row it missed (defined = false where it has none).
std::vector<GuessException> exceptions_of(const Formula& f, const std::vector<GuessPoint>& rows, const std::vector<std::size_t>& miss) {
    std::vector<GuessException> out;
    for (std::size_t i : miss) {
        GuessException e;
        e.row = i;
        try {
            e.value = evaluate(f, rows, rows[i].x, point_text(f.vars, rows[i].x));
        } catch (const invalid_input&) {
            e.defined = false;
        } catch (const resource_limit&) {
            e.defined = false;
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

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
            if (merged.back().value != p.value)
                throw invalid_input("guess: two rows at " + point_text(opt.vars, p.x) + " with different values " + cut(merged.back().value.str()) +
                                    " and " + cut(p.value.str()));
            continue;
        }
        merged.push_back(std::move(p));
    }
    if (static_cast<long>(merged.size()) < 1 + opt.min_confirm)
        throw invalid_input("guess: " + std::to_string(merged.size()) + " distinct row(s): too few to fit even a constant and confirm it on " +
                            std::to_string(opt.min_confirm) + " more");
    out.rows = merged;
    const std::vector<GuessPoint>& R = out.rows;

    Search s{R, opt, candidates(nv, opt), std::vector<std::vector<std::optional<Rational>>>(nv), std::vector<long>(nv, 0)};
    // Binomial read-backs: g per row for each variable b. More rows without one than
    // exceptions allowed (2 when none are: the search for a near miss) rule the form out;
    // the search never asks for them then.
    const long g_limit = std::max(opt.max_exceptions, 2L);
    for (std::size_t b = 0; b < nv; ++b)
        for (const GuessPoint& p : R) {
            Integer g;
            if (s.g_missing[b] > g_limit || !inverse_binomial(p.value, p.x[b], g)) {
                ++s.g_missing[b];
                s.g_of[b].emplace_back();
            } else {
                s.g_of[b].emplace_back(Rational(g));
            }
        }

    Counts n;
    std::optional<Accepted> a = run_search(s, opt.max_exceptions, n, false);
    out.tried = n.tried;
    out.refuted = n.refuted;
    out.skipped = n.skipped;
    if (a) {
        out.found = true;
        out.formula = a->form;
        out.params = a->params;
        out.fit_rows = a->fit_rows;
        out.confirm_rows = a->confirm_rows;
        out.exceptions = exceptions_of(a->form, R, a->miss_rows);
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
    bool near_miss = false;
    if (opt.max_exceptions == 0) {  // a form refuted by only one or two rows: name it
        Counts ignored;
        ignored.bits_left = kNearMissBits;
        if (const std::optional<Accepted> near = run_search(s, 2, ignored, true)) {
            const std::size_t m = near->miss_rows.size();
            why << "; " << near->form.text() << " (" << to_string(near->form.kind) << ", " << near->params
                << (near->params == 1 ? " free parameter" : " free parameters") << ") fits every row but " << m << ":";
            for (const GuessException& e : exceptions_of(near->form, R, near->miss_rows))
                why << " (" << point_text(opt.vars, R[e.row].x) << ": table " << cut(R[e.row].value.str()) << ", formula "
                    << (e.defined ? cut(e.value.str()) : std::string("undefined")) << ")";
            why << "; --max-exceptions " << m << " accepts it";
            near_miss = true;
        }
    }
    if (n.undetermined > 0 && !near_miss) why << "; " << rows_help(R, opt);  // (a near miss: rows are not what is missing)
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
Rational unroll(const Formula& f, const std::vector<GuessPoint>& rows, long n, const std::string& at) {
    std::map<long, const Integer*> v;
    for (const GuessPoint& p : rows) v[p.x[0]] = &p.value;
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
    for (const GuessPoint& p : rows) b0 = std::max(b0, static_cast<double>(fmpz_bits(p.value.get())) + 1);
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

// C(g(x) + x_b, x_b) for a binomial form: x_b ≥ 0 and g(x) a non-negative integer (else
// invalid_input naming `at`), the size estimated first.
Rational binomial_value(const Formula& f, const std::vector<long>& x, const std::string& at) {
    const std::string& bname = f.vars[static_cast<std::size_t>(f.binom_var)];
    const long b = x[static_cast<std::size_t>(f.binom_var)];
    if (b < 0)
        throw invalid_input("guess: " + at + " is outside the formula's domain: C(g + " + bname + ", " + bname + ") needs " + bname +
                            " >= 0, not " + bname + " = " + std::to_string(b));
    check_exact_bits(linear_bits(f.terms, f.coeffs, x), "guess: evaluating g at " + at);
    const Rational gv = linear_value(f.terms, f.coeffs, x);
    if (!gv.is_integer() || fmpq_sgn(gv.get()) < 0)
        throw invalid_input("guess: " + at + " is outside the formula's domain: there g = " +
                            linear_text(f.terms, f.coeffs, f.vars, false, f.terms_kind == FormKind::exp_sum) + " = " + cut(gv.str()) +
                            ", not a non-negative integer");
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

Rational evaluate(const Formula& f, const std::vector<GuessPoint>& rows, const std::vector<long>& x, const std::string& at) {
    switch (f.kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear:
        case FormKind::exp_sum:
            check_exact_bits(linear_bits(f.terms, f.coeffs, x), "guess: evaluating " + f.text() + " at " + at);
            return linear_value(f.terms, f.coeffs, x);
        case FormKind::binomial: return binomial_value(f, x, at);
        case FormKind::hypergeometric: return hyper_value(f, x[0], at);
        case FormKind::c_finite:
        case FormKind::p_recursive: return unroll(f, rows, x[0], at);
    }
    return Rational();
}

}  // namespace

Rational guess_predict(const Guess& g, const std::vector<long>& x) {
    if (!g.found) throw invalid_input("guess: no formula to evaluate (" + g.reason + ")");
    const Formula& f = g.formula;
    if (x.size() != f.vars.size())
        throw invalid_input("guess: a point of " + std::to_string(x.size()) + " values for " + std::to_string(f.vars.size()) + " variables");
    return evaluate(f, g.rows, x, point_text(f.vars, x));
}

// ------------------------------------------------------------------ tables

namespace {

// A JSON table's rows straight from the parser's events, without a tree (a tree of
// 250,000 rows took longer to build and free than the rest of guess): the objects of a
// top-level array (`array`), or one object (a JSON line). A row's cells are its keys in
// the table's order with their values as text: a string as it is, null as "", numbers
// and booleans as JSON writes them; a value that is itself an object or a list is built
// as a tree and written back as JSON text. The checks (nesting, a key twice in one
// object, numbers out of range) are sax_parse_json_text's.
class TableRowsSax {
  public:
    TableRowsSax(std::vector<TableRow>& out, std::string what, bool array) : out_(out), what_(std::move(what)), array_(array) {}

    bool null() { return nested_depth_ > 0 ? nested_->null() : cell(std::string()); }
    bool boolean(bool v) { return nested_depth_ > 0 ? nested_->boolean(v) : cell(v ? "true" : "false"); }
    bool number_integer(nlohmann::json::number_integer_t v) {
        return nested_depth_ > 0 ? nested_->number_integer(v) : cell(std::to_string(v));
    }
    bool number_unsigned(nlohmann::json::number_unsigned_t v) {
        return nested_depth_ > 0 ? nested_->number_unsigned(v) : cell(std::to_string(v));
    }
    bool number_float(nlohmann::json::number_float_t v, const nlohmann::json::string_t& t) {
        return nested_depth_ > 0 ? nested_->number_float(v, t) : cell(nlohmann::json(v).dump());  // as the tree wrote it: 2.0
    }
    bool string(nlohmann::json::string_t& v) { return nested_depth_ > 0 ? nested_->string(v) : cell(std::move(v)); }
    bool binary(nlohmann::json::binary_t& v) { return nested_depth_ > 0 ? nested_->binary(v) : cell(std::string()); }
    bool key(nlohmann::json::string_t& k) {
        if (nested_depth_ > 0) return nested_->key(k);
        key_ = k;
        return true;
    }
    bool start_object(std::size_t n) {
        if (nested_depth_ > 0 || level_ == row_level()) return start_nested(n, true);
        if (level_ != row_level() - 1) not_object();
        ++level_;
        out_.emplace_back();
        if (out_.size() > 1) out_.back().reserve(out_[out_.size() - 2].size());  // rows mostly have the same columns
        return true;
    }
    bool end_object() {
        if (nested_depth_ > 0) return end_nested(true);
        --level_;
        return true;
    }
    bool start_array(std::size_t n) {
        if (nested_depth_ > 0 || level_ == row_level()) return start_nested(n, false);
        if (!array_ || level_ != 0) not_object();
        ++level_;
        return true;
    }
    bool end_array() {
        if (nested_depth_ > 0) return end_nested(false);
        --level_;
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) {
        throw e;
    }

  private:
    int row_level() const { return array_ ? 2 : 1; }  // the containers open inside a row
    [[noreturn]] void not_object() const {
        throw invalid_input(what_ + (array_ ? ": element " + std::to_string(out_.size() + 1) : std::string()) + " is not a JSON object");
    }
    bool cell(std::string v) {
        if (level_ != row_level()) not_object();
        out_.back().emplace_back(key_, std::move(v));
        return true;
    }
    bool start_nested(std::size_t n, bool object) {
        if (nested_depth_++ == 0) {
            nested_value_ = nlohmann::json();
            nested_ = std::make_unique<nlohmann::detail::json_sax_dom_parser<nlohmann::json>>(nested_value_);
        }
        return object ? nested_->start_object(n) : nested_->start_array(n);
    }
    bool end_nested(bool object) {
        const bool ok = object ? nested_->end_object() : nested_->end_array();
        if (--nested_depth_ == 0) {
            nested_.reset();
            out_.back().emplace_back(key_, nested_value_.dump());
        }
        return ok;
    }

    std::vector<TableRow>& out_;
    std::string what_;  // "table 'PATH'" or "table 'PATH': line N"
    bool array_;
    int level_ = 0;     // containers open, outside a nested value
    std::string key_;   // the row's key being read
    int nested_depth_ = 0;
    nlohmann::json nested_value_;
    std::unique_ptr<nlohmann::detail::json_sax_dom_parser<nlohmann::json>> nested_;
};

}  // namespace

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
    // JSON goes through the checks the weights files get (json_file.hpp): nesting depth
    // bounded, a number out of range and a key given twice in one object refused.
    if (text[start] == '[') {
        TableRowsSax rows(out, source, true);
        detail::sax_parse_json_text(std::string_view(text).substr(start), source, rows);
        return out;
    }
    if (text[start] == '{') {  // JSON lines
        bool first = true;
        long number = 0;
        for (std::size_t at = skip; at < text.size();) {
            std::size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            const std::string_view line(text.data() + at, end - at);
            at = end + 1;
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
            const std::string where = source + ": line " + std::to_string(number);
            TableRowsSax row(out, where, false);
            detail::sax_parse_json_text(line, where, row);
            // The sweep line `seprank table --format json --out` writes first: skipped, as
            // the CSV's `#` sweep line.
            if (first && out.back().size() == 1 && out.back()[0].first == "seprank_table_sweep") out.pop_back();
            first = false;
        }
        return out;
    }
    std::istringstream in(text.substr(skip));
    std::string line;
    long number = 0;
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
        r.reserve(cells.size());
        for (std::size_t i = 0; i < cells.size(); ++i) r.emplace_back(header[i], std::move(cells[i]));
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
    PredictionCheck c;
    // The rank generic finds is at most its evaluation side: a prediction above max_side
    // could only come back as a lower bound, so generic is not run for it.
    if (fmpq_cmp_si(predicted.get(), opt.max_side) > 0) {
        c.verdict = "unchecked (prediction above --check-max-side " + std::to_string(opt.max_side) + ")";
        c.above_side = true;
        return c;
    }
    GenericOptions go;
    go.trials = opt.trials;
    go.max_side = opt.max_side;
    go.threads = opt.threads;
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
