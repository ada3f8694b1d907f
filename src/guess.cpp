// guess — closed forms fitted exactly to table rows (guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "file_io.hpp"
#include "seprank/error.hpp"
#include "seprank/record.hpp"

#include <algorithm>
#include <charconv>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <functional>
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
    return "?";
}

namespace {

// ------------------------------------------------------------------ exact pieces

Rational power(long base, long e) {
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

Rational linear_value(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<long>& x) {
    Rational s;
    for (std::size_t t = 0; t < terms.size(); ++t) s = s + coeffs[t] * term_value(terms[t], x);
    return s;
}

Integer binomial(const Integer& top, long k) {  // C(top, k), top ≥ 0 fitting a ulong, k ≥ 0
    Integer r;
    fmpz_bin_uiui(r.get(), fmpz_get_ui(top.get()), static_cast<ulong>(k));
    return r;
}

// The g ≥ 0 with C(g + n, n) = v, if any (n ≥ 1; g < 2^40).
bool inverse_binomial(const Integer& v, long n, Integer& g) {
    if (n < 1 || v < Integer(1)) return false;
    long lo = 0, hi = 1;
    const auto at = [&](long gg) { return binomial(Integer(gg + n), n); };
    while (at(hi) < v) {
        if (hi > (1L << 40)) return false;
        lo = hi;
        hi *= 2;
    }
    while (lo < hi) {  // the least g with C(g + n, n) ≥ v
        const long mid = lo + (hi - lo) / 2;
        if (at(mid) < v) lo = mid + 1;
        else hi = mid;
    }
    if (at(lo) != v) return false;
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

// An exact fit of a linear system, one equation per candidate row (design[i]·c = rhs[i],
// or = 0 when homogeneous: then c is the kernel vector of a rank n−1 system).
struct Fit {
    bool determined = false;  // enough independent equations
    bool refuted = false;     // a held-out equation disagrees
    std::vector<Rational> coeffs;
    std::vector<std::size_t> fit, confirm;  // equation indices
};

Fit fit_equations(const std::vector<std::vector<Rational>>& design, const std::vector<Rational>& rhs, std::size_t unknowns,
                  bool homogeneous) {
    Fit out;
    const std::size_t need = homogeneous ? unknowns - 1 : unknowns;
    Echelon e(unknowns);
    std::size_t i = 0;
    for (; i < design.size() && e.rank() < need; ++i) {
        Rational res;
        if (e.add(design[i], homogeneous ? Rational(0) : rhs[i], &res)) out.fit.push_back(i);
        else if (!res.is_zero()) {  // inconsistent before the fit is even determined
            out.fit.push_back(i);
            out.refuted = true;
            return out;
        } else {
            out.fit.push_back(i);  // dependent and consistent: used, not held out
        }
    }
    if (e.rank() < need || (homogeneous && unknowns == 0)) return out;
    out.determined = true;
    out.coeffs = homogeneous ? e.kernel() : e.solution();
    for (; i < design.size(); ++i) {
        Rational s;
        for (std::size_t j = 0; j < unknowns; ++j) s = s + design[i][j] * out.coeffs[j];
        if (s != (homogeneous ? Rational(0) : rhs[i])) {
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

// Equations of a recurrence: for each row n with n−1..n−order present (one variable).
struct RecSystem {
    std::vector<std::vector<Rational>> design;
    std::vector<Rational> rhs;
    std::vector<std::size_t> row_of;  // the row whose value each equation predicts
};

RecSystem recurrence_system(const std::vector<GuessPoint>& rows, int order, int degree, bool c_finite) {
    std::map<long, std::size_t> at;
    for (std::size_t i = 0; i < rows.size(); ++i) at[rows[i].x[0]] = i;
    RecSystem s;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const long n = rows[i].x[0];
        std::vector<const Integer*> prev;
        for (int k = 1; k <= order; ++k) {
            auto it = at.find(n - k);
            if (it == at.end()) break;
            prev.push_back(&rows[it->second].value);
        }
        if (static_cast<int>(prev.size()) < order) continue;
        std::vector<Rational> eq;
        if (c_finite) {  // v(n) = Σ c_k v(n−k)
            for (const Integer* p : prev) eq.emplace_back(*p);
            s.rhs.emplace_back(rows[i].value);
        } else {  // Σ_{k=0..order} Σ_e a_{k,e} n^e v(n−k) = 0
            for (int k = 0; k <= order; ++k) {
                const Integer& v = k == 0 ? rows[i].value : *prev[static_cast<std::size_t>(k - 1)];
                Integer ne(1);
                for (int e = 0; e <= degree; ++e) {
                    eq.emplace_back(v * ne);
                    ne = ne * Integer(n);
                }
            }
            s.rhs.emplace_back(0);
        }
        s.design.push_back(std::move(eq));
        s.row_of.push_back(i);
    }
    return s;
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
        const long sa = std::accumulate(a.x.begin(), a.x.end(), 0L), sb = std::accumulate(b.x.begin(), b.x.end(), 0L);
        return sa != sb ? sa < sb : a.x < b.x;
    });
    std::vector<GuessPoint> merged;
    for (GuessPoint& p : rows) {
        if (!merged.empty() && merged.back().x == p.x) {
            if (merged.back().value != p.value) {
                std::string at;
                for (std::size_t i = 0; i < nv; ++i) at += (i ? "," : "") + opt.vars[i] + "=" + std::to_string(p.x[i]);
                throw invalid_input("guess: two rows at " + at + " with different values " + merged.back().value.str() + " and " + p.value.str());
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
            const RecSystem s = recurrence_system(R, c.order, c.degree, c.kind == FormKind::c_finite);
            const std::size_t unknowns = c.kind == FormKind::c_finite ? static_cast<std::size_t>(c.order)
                                                                      : static_cast<std::size_t>((c.order + 1) * (c.degree + 1));
            if (s.design.size() < unknowns) continue;  // cannot even be determined
            ++out.tried;
            f = fit_equations(s.design, s.rhs, unknowns, c.kind == FormKind::p_recursive);
            eq_row = s.row_of;
            form.rec_var = 0;
            form.order = c.order;
            if (f.determined && !f.refuted) {
                if (c.kind == FormKind::c_finite) {
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
            std::vector<std::vector<Rational>> design;
            for (const GuessPoint& p : R) {
                std::vector<Rational> row;
                for (const GuessTerm& t : c.terms) row.push_back(term_value(t, p.x));
                design.push_back(std::move(row));
            }
            std::vector<Rational> rhs;
            if (binom) rhs = g_of[static_cast<std::size_t>(c.binom_var)];
            else
                for (const GuessPoint& p : R) rhs.emplace_back(p.value);
            f = fit_equations(design, rhs, c.terms.size(), false);
            for (std::size_t i = 0; i < R.size(); ++i) eq_row.push_back(i);
            form.terms = c.terms;
            form.coeffs = f.coeffs;
            form.binom_var = c.binom_var;
        }
        if (f.refuted) {
            ++out.refuted;
            continue;
        }
        if (!f.determined || static_cast<long>(f.confirm.size()) < opt.min_confirm) continue;
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
    why << "no form with at most " << opt.max_params << " free parameters fits " << R.size() << " rows and predicts at least "
        << opt.min_confirm << " held-out row(s) (" << out.tried << " forms tried, " << out.refuted << " refuted by a held-out row; the rest"
        << " were not over-determined by these rows)";
    out.reason = why.str();
    return out;
}

Rational guess_predict(const Guess& g, const std::vector<long>& x) {
    if (!g.found) throw invalid_input("guess: no formula to evaluate (" + g.reason + ")");
    const Formula& f = g.formula;
    if (x.size() != f.vars.size())
        throw invalid_input("guess: a point of " + std::to_string(x.size()) + " values for " + std::to_string(f.vars.size()) + " variables");
    switch (f.kind) {
        case FormKind::polynomial:
        case FormKind::exp_linear: return linear_value(f.terms, f.coeffs, x);
        case FormKind::binomial: {
            const Rational gv = linear_value(f.terms, f.coeffs, x);
            const long b = x[static_cast<std::size_t>(f.binom_var)];
            if (!gv.is_integer() || fmpq_sgn(gv.get()) < 0 || b < 0)
                throw invalid_input("guess: the binomial's g = " + gv.str() + " is not a non-negative integer there");
            const Integer top = gv.num() + Integer(b);
            if (!fmpz_fits_si(top.get())) throw invalid_input("guess: the binomial's top " + top.str() + " is too large to evaluate");
            return Rational(binomial(top, b));
        }
        case FormKind::c_finite:
        case FormKind::p_recursive: {
            std::map<long, Rational> v;
            for (const GuessPoint& p : g.rows) v[p.x[0]] = Rational(p.value);
            const long n = x[0];
            if (v.count(n)) return v[n];
            const long last = v.rbegin()->first;
            if (n < last) throw invalid_input("guess: the recurrence unrolls forward only; " + std::to_string(n) + " lies inside the rows but is missing");
            for (long m = last + 1; m <= n; ++m) {
                const auto pe = [&](int k) {
                    Rational s, nm(1);
                    for (const Rational& a : f.rec[static_cast<std::size_t>(k)]) {
                        s = s + a * nm;
                        nm = nm * Rational(m);
                    }
                    return s;
                };
                Rational acc;
                for (int k = 1; k <= f.order; ++k) {
                    auto it = v.find(m - k);
                    if (it == v.end()) throw invalid_input("guess: the recurrence needs v(" + std::to_string(m - k) + "), not in the rows");
                    acc = acc + pe(k) * it->second;
                }
                const Rational lead = pe(0);
                if (lead.is_zero()) throw invalid_input("guess: the recurrence's leading coefficient vanishes at " + std::to_string(m));
                v[m] = (Rational(0) - acc) / lead;
            }
            return v[n];
        }
    }
    return Rational();
}

// ------------------------------------------------------------------ tables

std::vector<TableRow> parse_table_cells(const std::string& text, const std::string& source) {
    using Row = TableRow;
    std::vector<Row> out;
    std::size_t start = text.find_first_not_of(" \t\r\n");
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
    if (text[start] == '[') {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
        } catch (const nlohmann::json::exception& e) {
            throw invalid_input(source + ": not valid JSON (" + e.what() + ")");
        }
        for (std::size_t i = 0; i < j.size(); ++i) out.push_back(object_row(j[i], "element " + std::to_string(i + 1)));
        return out;
    }
    std::istringstream in(text);
    std::string line;
    long number = 0;
    if (text[start] == '{') {  // JSON lines
        while (std::getline(in, line)) {
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
            try {
                out.push_back(object_row(nlohmann::json::parse(line), "line " + std::to_string(number)));
            } catch (const nlohmann::json::exception& e) {
                throw invalid_input(source + ": line " + std::to_string(number) + " is not valid JSON (" + e.what() + ")");
            }
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
    return parse_table_cells(detail::read_input_file(path, "table"), path);
}

namespace {

bool parse_long(const std::string& s, long& v) {
    const char* b = s.data();
    const char* e = b + s.size();
    auto [p, ec] = std::from_chars(b, e, v);
    return ec == std::errc() && p == e && !s.empty();
}

}  // namespace

const std::string* table_cell(const TableRow& row, const std::string& name) {
    for (const auto& [k, v] : row)
        if (k == name) return &v;
    return nullptr;
}

bool row_matches(const TableRow& row, const std::vector<std::pair<std::string, std::string>>& where) {
    bool keep = true;
    for (const auto& [name, want] : where) {
        const std::string* got = table_cell(row, name);
        if (!got) throw invalid_input("guess: the table has no column '" + name + "' (named in --where)");
        long a = 0, b = 0;
        keep = keep && (parse_long(*got, a) && parse_long(want, b) ? a == b : *got == want);
    }
    return keep;
}

std::vector<GuessPoint> guess_points(const std::vector<TableRow>& table, const std::vector<std::string>& vars, const std::string& value,
                                     const std::vector<std::pair<std::string, std::string>>& where) {
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
            if (!parse_long(*c, x)) throw invalid_input("guess: " + at + ": " + name + " = '" + *c + "' is not an integer");
            p.x.push_back(x);
        }
        try {
            p.value = Integer(std::string_view(*v));
        } catch (const invalid_input&) {
            throw invalid_input("guess: " + at + ": " + value + " = '" + *v + "' is not an integer");
        }
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace seprank
