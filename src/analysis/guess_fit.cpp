// guess — the fit: exact linear systems fitted and checked row by row, the candidate forms
// in order of size, and the equations of recurrences (guess_internal.hpp, docs/guess.md).
#include "guess_internal.hpp"

#include <algorithm>
#include <cmath>
#include <flint/fmpz.h>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

namespace seprank::guess_detail {

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

}  // namespace

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

Fit fit_equations(std::size_t count, const EquationAt& at, std::size_t unknowns, bool homogeneous, long max_misses,
                  std::size_t leave_out) {
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

namespace {

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

}  // namespace

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

}  // namespace seprank::guess_detail
