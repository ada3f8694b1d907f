// guess — the forms' pieces: linear terms (values, sizes, printing), the exp-sum term
// sets, hypergeometric terms (fit, closed form, value) and the help a failed search
// gives (guess_internal.hpp, guess.hpp, docs/guess.md).
#include "guess_internal.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cmath>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <flint/fmpz_poly.h>
#include <flint/fmpz_poly_factor.h>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

namespace seprank::guess_detail {

namespace {

double abs_log2(long x) { return std::log2(std::max(1.0, std::fabs(static_cast<double>(x)))); }

// Bits of a rational's numerator plus denominator.
double rational_bits(const Rational& r) {
    return static_cast<double>(fmpz_bits(fmpq_numref(r.get())) + fmpz_bits(fmpq_denref(r.get())));
}

Rational power(const Rational& base, long e) {  // the caller has estimated |e|·log2|base| bits; base ≠ 0
    if (base == Rational(1)) return base;
    if (base == Rational(-1)) return e % 2 == 0 ? Rational(1) : base;  // any e, LONG_MIN too
    Rational r;
    fmpq_pow_si(r.get(), base.get(), e);
    return r;
}

bool is_constant_term(const GuessTerm& t) {
    return t.exp_var < 0 && std::all_of(t.exps.begin(), t.exps.end(), [](int e) { return e == 0; });
}

}  // namespace

double term_bits(const GuessTerm& t, const std::vector<long>& x) {
    double b = 1;
    for (std::size_t i = 0; i < t.exps.size(); ++i) b += t.exps[i] * abs_log2(x[i]);
    if (t.exp_var >= 0) b += power_bits(static_cast<double>(t.base), std::fabs(static_cast<double>(x[static_cast<std::size_t>(t.exp_var)])));
    return b;
}

Rational term_value(const GuessTerm& t, const std::vector<long>& x) {
    Integer m(1);
    for (std::size_t i = 0; i < t.exps.size(); ++i)
        for (int e = 0; e < t.exps[i]; ++e) m = m * Integer(x[i]);
    Rational v(m);
    if (t.exp_var >= 0) v = v * power(Rational(t.base), x[static_cast<std::size_t>(t.exp_var)]);
    return v;
}

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

std::string linear_text(const std::vector<GuessTerm>& terms, const std::vector<Rational>& coeffs, const std::vector<std::string>& vars,
                        bool latex, bool constant_outside) {
    if (constant_outside) {
        // An integer constant after the fraction of the other terms, when they have one.
        for (std::size_t k = 0; k < terms.size(); ++k) {
            if (!is_constant_term(terms[k]) || coeffs[k].is_zero() || !coeffs[k].is_integer()) continue;
            Integer den(1);
            for (std::size_t t = 0; t < terms.size(); ++t)
                if (t != k) fmpz_lcm(den.get(), den.get(), fmpq_denref(coeffs[t].get()));
            if (den == Integer(1)) break;
            std::vector<Rational> rest = coeffs;
            rest[k] = Rational(0);
            const int sign = fmpq_sgn(coeffs[k].get());
            const Rational mag = sign < 0 ? Rational(0) - coeffs[k] : coeffs[k];
            return linear_text(terms, rest, vars, latex, false) + (sign < 0 ? " - " : " + ") + mag.str();
        }
    }
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

// ------------------------------------------------------------------ exp-sums

void exp_sum_sets(std::size_t nv, std::size_t j, const GuessOptions& opt, std::vector<std::vector<GuessTerm>>& out) {
    std::vector<long> bases = opt.bases;
    std::sort(bases.begin(), bases.end());
    bases.erase(std::unique(bases.begin(), bases.end()), bases.end());
    bases.insert(bases.begin(), 1);  // 1^{x_j}: the constant
    const int n = static_cast<int>(bases.size());
    for (int degree = 0; degree <= 1; ++degree)
        for (int k = 2; k <= std::min(opt.max_exps, n); ++k) {
            std::vector<int> pick(static_cast<std::size_t>(k));  // indices into bases, ascending
            for (int i = 0; i < k; ++i) pick[static_cast<std::size_t>(i)] = i;
            while (true) {
                if (!(degree == 0 && k == 2 && pick[0] == 0)) {  // {1, c}, constants: exp-linear
                    std::vector<GuessTerm> ts;
                    for (int p : pick) {
                        const long c = bases[static_cast<std::size_t>(p)];
                        for (int e = 0; e <= degree; ++e) {
                            std::vector<int> exps(nv, 0);
                            exps[j] = e;
                            ts.push_back(c == 1 ? GuessTerm{exps, 0, -1} : GuessTerm{exps, c, static_cast<int>(j)});
                        }
                    }
                    out.push_back(std::move(ts));
                }
                int i = k - 1;  // the next k-subset in lexicographic order
                while (i >= 0 && pick[static_cast<std::size_t>(i)] == n - k + i) --i;
                if (i < 0) break;
                ++pick[static_cast<std::size_t>(i)];
                for (int m = i + 1; m < k; ++m) pick[static_cast<std::size_t>(m)] = pick[static_cast<std::size_t>(m - 1)] + 1;
            }
        }
}

// ------------------------------------------------------------------ hypergeometric terms

namespace {

// FLINT's integer polynomial and its factorisation, owned (mp++'s tiny RAII holders).
class PolyZ {
public:
    PolyZ() noexcept { fmpz_poly_init(p_); }
    ~PolyZ() { fmpz_poly_clear(p_); }
    PolyZ(const PolyZ&) = delete;
    PolyZ& operator=(const PolyZ&) = delete;
    fmpz_poly_struct* get() noexcept { return p_; }

private:
    fmpz_poly_t p_;
};

class PolyFactors {
public:
    PolyFactors() noexcept { fmpz_poly_factor_init(f_); }
    ~PolyFactors() { fmpz_poly_factor_clear(f_); }
    PolyFactors(const PolyFactors&) = delete;
    PolyFactors& operator=(const PolyFactors&) = delete;
    fmpz_poly_factor_struct* get() noexcept { return f_; }

private:
    fmpz_poly_factor_t f_;
};

// The integer shifts b (ascending, with multiplicity) with m(n) = Π (n + b), for a monic m
// of rational coefficients (m[e] the coefficient of n^e); false when m does not split so.
// A monic polynomial with integer roots has integer coefficients, so those are checked
// first; then FLINT factors it over Z (degree ≤ 4 here).
bool integer_shifts(const std::vector<Rational>& m, std::vector<long>& shifts) {
    shifts.clear();
    for (const Rational& c : m)
        if (!c.is_integer()) return false;
    const long degree = static_cast<long>(m.size()) - 1;
    if (degree == 0) return true;
    PolyZ p;
    for (long e = 0; e <= degree; ++e) fmpz_poly_set_coeff_fmpz(p.get(), e, fmpq_numref(m[static_cast<std::size_t>(e)].get()));
    PolyFactors f;
    fmpz_poly_factor(f.get(), p.get());
    for (slong i = 0; i < f.get()->num; ++i) {
        const fmpz_poly_struct* q = f.get()->p + i;
        if (fmpz_poly_degree(q) != 1 || !fmpz_is_one(fmpz_poly_lead(q))) return false;
        const fmpz* b = q->coeffs;  // n + b
        if (!fmpz_fits_si(b)) return false;
        for (slong k = 0; k < f.get()->exp[i]; ++k) shifts.push_back(fmpz_get_si(b));
    }
    std::sort(shifts.begin(), shifts.end());
    return static_cast<long>(shifts.size()) == degree;
}

// Π (n + s) over the shifts as coefficients of n^0, n^1, …
std::vector<Rational> expand_shifts(const std::vector<long>& shifts) {
    std::vector<Rational> p{Rational(1)};
    for (long s : shifts) {
        std::vector<Rational> q(p.size() + 1);
        for (std::size_t e = 0; e < p.size(); ++e) {
            q[e + 1] = q[e + 1] + p[e];
            q[e] = q[e] + p[e] * Rational(s);
        }
        p = std::move(q);
    }
    return p;
}

// Upper bound on the bits of K·q^n·Π(n + b)!/Π(n + a)! (numerator plus denominator),
// the shifts paired index-wise in ascending order as hyper_value computes them. n + s ≥ 0
// for every shift s (checked by the caller).
double hyper_bits(const Formula& f, long n) {
    const double nd = static_cast<double>(n);
    double bits = rational_bits(f.hyper_const) + 2;
    bits += power_bits(std::fabs(fmpz_get_d(fmpq_numref(f.hyper_ratio.get()))), std::fabs(nd)) + 1;
    bits += power_bits(fmpz_get_d(fmpq_denref(f.hyper_ratio.get())), std::fabs(nd)) + 1;
    const std::size_t pairs = std::min(f.hyper_num.size(), f.hyper_den.size());
    for (std::size_t i = 0; i < pairs; ++i) {
        const double b = static_cast<double>(f.hyper_num[i]), a = static_cast<double>(f.hyper_den[i]);
        bits += std::fabs(b - a) * std::log2(nd + std::max(a, b) + 2);
    }
    const auto fact = [&](const std::vector<long>& s) {
        for (std::size_t i = pairs; i < s.size(); ++i) {
            const double m = nd + static_cast<double>(s[i]);
            bits += m * std::log2(m + 2) + 1;
        }
    };
    fact(f.hyper_num);
    fact(f.hyper_den);
    return bits;
}

// Π(n + b)!/Π(n + a)! with the same pairing: each pair (b, a) a rising factorial of
// |b − a| factors, in the numerator when b > a; the rest as factorials. The caller has
// estimated the size (hyper_bits) and checked n + s ≥ 0.
Rational hyper_factorials(const Formula& f, long n) {
    Integer top(1), bottom(1), t;
    const std::size_t pairs = std::min(f.hyper_num.size(), f.hyper_den.size());
    for (std::size_t i = 0; i < pairs; ++i) {
        const long b = f.hyper_num[i], a = f.hyper_den[i];
        const Integer start = Integer(n) + Integer(std::min(a, b) + 1);  // n near 2^63 does not overflow
        fmpz_rfac_ui(t.get(), start.get(), static_cast<ulong>(b > a ? b - a : a - b));
        if (b > a) top = top * t;
        else bottom = bottom * t;
    }
    for (std::size_t i = pairs; i < f.hyper_num.size(); ++i) {
        fmpz_fac_ui(t.get(), static_cast<ulong>(n + f.hyper_num[i]));
        top = top * t;
    }
    for (std::size_t i = pairs; i < f.hyper_den.size(); ++i) {
        fmpz_fac_ui(t.get(), static_cast<ulong>(n + f.hyper_den[i]));
        bottom = bottom * t;
    }
    return Rational(top, bottom);
}

// The least n in the term's domain (every n + shift ≥ 0).
long hyper_domain_start(const Formula& f) {
    long lo = std::numeric_limits<long>::min();
    for (long s : f.hyper_num) lo = std::max(lo, -s);
    for (long s : f.hyper_den) lo = std::max(lo, -s);
    return lo;
}

}  // namespace

Rational hyper_value(const Formula& f, long n, const std::string& at) {
    const long lo = hyper_domain_start(f);
    if (n < lo)
        throw invalid_input("guess: " + at + " is outside the formula's domain: its factorials need " + f.vars[static_cast<std::size_t>(f.rec_var)] +
                            " >= " + std::to_string(lo));
    const double bits = hyper_bits(f, n);
    const std::string what = "guess: evaluating " + f.text() + " at " + at;
    check_exact_bits(bits, what);
    check_exact_work(bits * (std::log2(bits + 2) + 2) * 4, what);
    return f.hyper_const * power(f.hyper_ratio, n) * hyper_factorials(f, n);
}

HyperFit fit_hypergeometric(const std::vector<GuessPoint>& R, const std::vector<std::string>& vars, int d, long min_confirm) {
    HyperFit out;
    if (vars.size() != 1 || R.empty()) return out;
    constexpr long kFar = 1L << 62;  // shifts and n + shift stay far from overflow
    for (const GuessPoint& p : R)
        if (p.value.is_zero() || p.x[0] <= -kFar || p.x[0] >= kFar) return out;
    // Ratio equations: row i and the row before it at n − 1.
    std::vector<std::size_t> eq;
    for (std::size_t i = 1; i < R.size(); ++i)
        if (R[i].x[0] == R[i - 1].x[0] + 1) eq.push_back(i);
    const std::size_t need = static_cast<std::size_t>(d) + 1;
    if (eq.size() < need) return out;
    std::vector<std::size_t> fitted;
    for (std::size_t k = 0; k < need; ++k) {
        fitted.push_back(eq[k] - 1);
        fitted.push_back(eq[k]);
    }
    std::sort(fitted.begin(), fitted.end());
    fitted.erase(std::unique(fitted.begin(), fitted.end()), fitted.end());
    if (static_cast<long>(R.size() - fitted.size()) < min_confirm) return out;  // can never be over-determined: not tried
    out.tried = true;
    const long n0 = R[0].x[0];
    std::vector<Rational> ratio;
    for (std::size_t i : eq) ratio.push_back(Rational(R[i].value) / Rational(R[i - 1].value));

    // Denominator shift multisets of size 0..d in −n0 .. −n0 + window, by size then lexicographic.
    std::vector<long> a;
    std::function<bool(std::size_t, long)> each;  // false: stop (found or too large)
    const auto try_shifts = [&]() -> bool {
        // M(n) = r(n)·Π(n + a) on the first d + 1 ratios, as a polynomial of degree ≤ d.
        const auto rhs = [&](std::size_t k) {
            const Rational n(R[eq[k]].x[0]);
            Rational y = ratio[k];
            for (long s : a) y = y * (n + Rational(s));
            return y;
        };
        Echelon e(need);
        for (std::size_t k = 0; k < need; ++k) {
            std::vector<Rational> row;
            Rational p(1);
            for (std::size_t c = 0; c < need; ++c) {
                row.push_back(p);
                p = p * Rational(R[eq[k]].x[0]);
            }
            e.add(std::move(row), rhs(k));
        }
        std::vector<Rational> m = e.solution();
        const auto at = [&](long n) {
            Rational s, p(1);
            for (const Rational& c : m) {
                s = s + c * p;
                p = p * Rational(n);
            }
            return s;
        };
        for (std::size_t k = need; k < eq.size(); ++k)
            if (at(R[eq[k]].x[0]) != rhs(k)) {
                out.refuted = true;
                return true;
            }
        while (m.size() > 1 && m.back().is_zero()) m.pop_back();
        if (m.back().is_zero()) return true;
        const Rational q = m.back();
        for (Rational& c : m) c = c / q;
        std::vector<long> b;
        if (!integer_shifts(m, b)) return true;
        if (std::max(a.size(), b.size()) != static_cast<std::size_t>(d)) return true;  // a smaller degree: tried before
        for (long s : b)  // (numerator shifts beyond −n0 + 1000 are left out: their binomials' k! would be huge)
            if (s < -n0 || s > -n0 + 1000 || std::find(a.begin(), a.end(), s) != a.end()) return true;
        Formula f;
        f.kind = FormKind::hypergeometric;
        f.vars = vars;
        f.rec_var = 0;
        f.hyper_ratio = q;
        f.hyper_num = b;
        f.hyper_den = a;
        f.hyper_const = Rational(1);
        // K from the first fitted row, then every other row against the closed form.
        double budget = kFitBudgetBits;
        const auto value = [&](std::size_t i, Rational& v) {
            budget -= hyper_bits(f, R[i].x[0]);
            if (!(budget >= 0)) return false;
            v = power(q, R[i].x[0]) * hyper_factorials(f, R[i].x[0]);
            return true;
        };
        Rational unit;
        if (!value(fitted[0], unit)) {
            out.too_large = true;
            return false;
        }
        f.hyper_const = Rational(R[fitted[0]].value) / unit;
        std::vector<std::size_t> confirm;
        for (std::size_t i = 0; i < R.size(); ++i) {
            if (i == fitted[0]) continue;
            Rational v;
            if (!value(i, v)) {
                out.too_large = true;
                return false;
            }
            if (f.hyper_const * v != Rational(R[i].value)) {
                out.refuted = true;
                return true;
            }
            if (!std::binary_search(fitted.begin(), fitted.end(), i)) confirm.push_back(i);
        }
        // The first-order recurrence: Π(n + a)·v(n) − q·Π(n + b)·v(n − 1) = 0, from the first row.
        f.order = 1;
        f.rec.push_back(expand_shifts(a));
        std::vector<Rational> p1 = expand_shifts(b);
        for (Rational& c : p1) c = Rational(0) - q * c;
        f.rec.push_back(std::move(p1));
        f.init_start = n0;
        f.init.push_back(R[0].value);
        out.found = true;
        out.form = std::move(f);
        out.fit_rows = fitted;
        out.confirm_rows = std::move(confirm);
        return false;
    };
    each = [&](std::size_t left, long from) -> bool {
        if (left == 0) return try_shifts();
        for (long s = from; s <= -n0 + kHyperShiftWindow; ++s) {
            a.push_back(s);
            const bool go_on = each(left - 1, s);
            a.pop_back();
            if (!go_on) return false;
        }
        return true;
    };
    for (std::size_t size = 0; size <= static_cast<std::size_t>(d); ++size)
        if (!each(size, -n0)) break;
    return out;
}

std::string hyper_text(const Formula& f, bool latex) {
    const std::string& name = f.vars[static_cast<std::size_t>(f.rec_var)];
    const std::string n = latex ? "\\mathrm{" + name + "}" : name;
    const auto shifted = [&](long s) { return s == 0 ? n : n + (s > 0 ? " + " : " - ") + std::to_string(s > 0 ? s : -s); };
    const auto binom = [&](long s, long k) {
        return latex ? "\\binom{" + shifted(s) + "}{" + std::to_string(k) + "}" : "C(" + shifted(s) + ", " + std::to_string(k) + ")";
    };
    const auto fact = [&](long s) { return s == 0 ? n + "!" : "(" + shifted(s) + ")!"; };
    const auto fac = [](long k) {
        Integer r;
        fmpz_fac_ui(r.get(), static_cast<ulong>(k));
        return Rational(r);
    };
    // Pair each numerator shift b (largest first) with the largest unused a < b:
    // (n + b)!/(n + a)! = (b − a)!·C(n + b, b − a); a leftover b with the least unused
    // a > b: 1/((a − b)!·C(n + a, a − b)); the rest stay factorials.
    std::vector<long> nums = f.hyper_num, dens = f.hyper_den;
    std::sort(nums.rbegin(), nums.rend());
    std::vector<bool> used(dens.size(), false);
    Rational k = f.hyper_const;
    std::vector<std::pair<long, long>> up, down;  // (shift, lower index)
    std::vector<long> up_fact, down_fact;
    std::vector<long> left;
    for (long b : nums) {
        std::size_t best = dens.size();
        for (std::size_t i = 0; i < dens.size(); ++i)
            if (!used[i] && dens[i] < b && (best == dens.size() || dens[i] > dens[best])) best = i;
        if (best == dens.size()) {
            left.push_back(b);
            continue;
        }
        used[best] = true;
        up.emplace_back(b, b - dens[best]);
        k = k * fac(b - dens[best]);
    }
    for (long b : left) {
        std::size_t best = dens.size();
        for (std::size_t i = 0; i < dens.size(); ++i)
            if (!used[i] && dens[i] > b && (best == dens.size() || dens[i] < dens[best])) best = i;
        if (best == dens.size()) {
            up_fact.push_back(b);
            continue;
        }
        used[best] = true;
        down.emplace_back(dens[best], dens[best] - b);
        k = k / fac(dens[best] - b);
    }
    for (std::size_t i = 0; i < dens.size(); ++i)
        if (!used[i]) down_fact.push_back(dens[i]);
    std::sort(up.begin(), up.end());
    std::sort(down.begin(), down.end());
    std::sort(up_fact.begin(), up_fact.end());
    std::sort(down_fact.begin(), down_fact.end());

    std::vector<std::string> top, bottom;
    const bool negative = fmpq_sgn(k.get()) < 0;
    if (negative) k = Rational(0) - k;
    if (k.num() != Integer(1)) top.push_back(k.num().str());
    if (k.den() != Integer(1)) bottom.push_back(k.den().str());
    const auto power_of = [&](const Integer& c) {
        const std::string e = latex ? "^{" + n + "}" : "^" + n;
        return (fmpz_sgn(c.get()) < 0 ? "(" + c.str() + ")" : c.str()) + e;
    };
    if (f.hyper_ratio.num() != Integer(1)) top.push_back(power_of(f.hyper_ratio.num()));
    if (f.hyper_ratio.den() != Integer(1)) bottom.push_back(power_of(f.hyper_ratio.den()));
    for (const auto& [s, c] : up) top.push_back(binom(s, c));
    for (long s : up_fact) top.push_back(fact(s));
    for (const auto& [s, c] : down) bottom.push_back(binom(s, c));
    for (long s : down_fact) bottom.push_back(fact(s));
    const auto join = [&](const std::vector<std::string>& parts) {
        std::string s;
        for (const std::string& p : parts) s += (s.empty() ? "" : latex ? " " : "*") + p;
        return s.empty() ? std::string("1") : s;
    };
    std::string s = join(top);
    if (!bottom.empty()) {
        if (latex) s = "\\frac{" + s + "}{" + join(bottom) + "}";
        else s += "/" + (bottom.size() == 1 ? bottom[0] : "(" + join(bottom) + ")");
    }
    return (negative ? "-" : "") + s;
}

// ------------------------------------------------------------------ what would help

std::string rows_help(const std::vector<GuessPoint>& R, const GuessOptions& opt) {
    const std::size_t nv = opt.vars.size();
    std::vector<std::size_t> distinct(nv);
    for (std::size_t j = 0; j < nv; ++j) {
        std::set<long> seen;
        for (const GuessPoint& p : R) seen.insert(p.x[j]);
        distinct[j] = seen.size();
    }
    const std::size_t j = static_cast<std::size_t>(std::min_element(distinct.begin(), distinct.end()) - distinct.begin());
    const long have = static_cast<long>(distinct[j]);
    std::ostringstream os;
    os << "what would help: rows at more values of " << opt.vars[j] << ": " << opt.vars[j] << " has " << have
       << (have == 1 ? " distinct value" : " distinct values");
    if (nv > 1) {
        os << " (";
        bool first = true;
        for (std::size_t i = 0; i < nv; ++i) {
            if (i == j) continue;
            os << (first ? "" : ", ") << opt.vars[i] << " has " << distinct[i];
            first = false;
        }
        os << ")";
    }
    if (have == 1)  // fixed in the rows kept, by the table or by --where
        os << "; with one value in the rows, " << opt.vars[j] << " cannot be told from a constant: drop it from --vars, or keep rows at more values of it";
    const long most = have - opt.min_confirm;
    os << "; a form in " << opt.vars[j] << " with P free parameters needs at least P + " << opt.min_confirm << " of them (P to fit, "
       << opt.min_confirm << " to confirm: --min-confirm), so these rows over-determine ";
    if (most < 1) os << "no form in " << opt.vars[j];
    else os << "forms in " << opt.vars[j] << " of at most " << most << (most == 1 ? " parameter" : " parameters");
    if (nv == 1) {  // recurrences and hypergeometric terms read consecutive values
        long run = 1, longest = 1;
        for (std::size_t i = 1; i < R.size(); ++i) {
            // rows ascend: the unsigned difference is exact, even at 2^63 − 1
            run = static_cast<unsigned long>(R[i].x[0]) - static_cast<unsigned long>(R[i - 1].x[0]) == 1 ? run + 1 : 1;
            longest = std::max(longest, run);
        }
        os << "; recurrences and hypergeometric terms read consecutive values of " << opt.vars[0] << ": the longest run here is "
           << longest;
    }
    return os.str();
}

}  // namespace seprank::guess_detail
