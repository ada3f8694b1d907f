// guess — a found formula: its text (plain, LaTeX, recurrence) and its exact value at a
// point, sizes estimated first (guess_predict; guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "guess_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cmath>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

namespace seprank {

using namespace guess_detail;

namespace {

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

namespace guess_detail {

std::string point_text(const std::vector<std::string>& vars, const std::vector<long>& x) {
    std::string at;
    for (std::size_t i = 0; i < x.size(); ++i) at += (i ? "," : "") + vars[i] + "=" + std::to_string(x[i]);
    return at;
}

}  // namespace guess_detail

namespace {

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

// p_k(m) = Σ_e rec[k][e]·m^e, exactly. O(degree) rational products.
Rational rec_coefficient(const Formula& f, int k, long m) {
    Rational s, mm(1);
    for (const Rational& a : f.rec[static_cast<std::size_t>(k)]) {
        s = s + a * mm;
        mm = mm * Rational(m);
    }
    return s;
}

// One forward step of the recurrence Σ_j p_j(m)·v(m − j) = 0: v(m) = −Σ_{j≥1} p_j(m)·v(m − j) / p_0(m)
// from window = v(m − order), …, v(m − 1); none when p_0(m) = 0 (v(m) is not determined).
// O(order·degree) rational operations.
std::optional<Rational> step_forward(const Formula& f, long m, const std::vector<Rational>& window) {
    const Rational lead = rec_coefficient(f, 0, m);
    if (lead.is_zero()) return std::nullopt;
    Rational acc;
    for (int j = 1; j <= f.order; ++j) acc = acc + rec_coefficient(f, j, m) * window[static_cast<std::size_t>(f.order - j)];
    return (Rational(0) - acc) / lead;
}

// resource_limit `what` when unrolling the recurrence `steps` steps (backward: down from
// its initial values), over values of the variable up to |far|, would pass the exact
// budgets (the estimate below).
void check_unroll_cost(const Formula& f, const std::vector<GuessPoint>& rows, unsigned long step_count, double far, const std::string& what,
                       bool backward = false) {
    const double steps = static_cast<double>(step_count);
    Integer den(1);
    for (const auto& p : f.rec)
        for (const Rational& c : p) fmpz_lcm(den.get(), den.get(), fmpq_denref(c.get()));
    const double log2M = std::log2(far + 2);
    // Scaled to integers (P_k = D·p_k) and to a common denominator Q(m) = Π P_0(j), each
    // step multiplies the numerator's height by at most Σ_{k≥1} |P_k(m)| · |P_0|^(order−1)
    // and the denominator's by |P_0(m)|: β = log2 Σ_{k≥1} |P_k|(M) + order·log2 |P_0|(M).
    // Backward, P_order divides and the others multiply: Σ_{k<order} and log2 |P_order|.
    std::vector<std::vector<Rational>> others(f.rec.begin(), f.rec.end());
    others.erase(backward ? others.end() - 1 : others.begin());
    const double lp0 = std::max(0.0, polys_log2_bound({backward ? f.rec.back() : f.rec.front()}, 0, den, log2M));
    const double beta = std::max(0.0, polys_log2_bound(others, 0, den, log2M)) + static_cast<double>(f.order) * lp0;
    double b0 = 1;
    for (const GuessPoint& p : rows) b0 = std::max(b0, static_cast<double>(fmpz_bits(p.value.get())) + 1);
    const double bits = b0 + steps * beta;
    // Each step: (order + 1)·(degree + 1) products of numbers of up to `bits` bits, and
    // a canonicalisation; on average half the final size, plus a constant per step.
    const double terms = static_cast<double>(f.order + 1) * static_cast<double>(f.rec[0].size());
    check_exact_bits(bits, what);
    check_exact_work(steps * ((b0 + bits) / 2 + 256) * terms, what);
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
    check_unroll_cost(f, rows, step_count, std::max(std::fabs(static_cast<double>(n)), std::fabs(static_cast<double>(first))),
                      "guess: " + at + ": unrolling the recurrence " + std::to_string(step_count) + " steps");

    std::vector<Rational> window;  // v(m − order), …, v(m − 1)
    for (long m = start - f.order + 1; m <= start; ++m) window.emplace_back(*v.at(m));
    for (long m = start + 1; m <= n; ++m) {
        if (auto it = v.find(m); it != v.end()) {  // a row: its own value
            window.erase(window.begin());
            window.emplace_back(*it->second);
            continue;
        }
        std::optional<Rational> next = step_forward(f, m, window);
        if (!next)
            throw invalid_input("guess: " + at + ": the recurrence's leading coefficient vanishes at " + name + " = " + std::to_string(m) +
                                ", so v(" + std::to_string(m) + ") is not determined");
        window.erase(window.begin());
        window.push_back(std::move(*next));
    }
    return window.back();
}

}  // namespace

namespace guess_detail {

Reproduction recurrence_reproduces(const Formula& f, const std::vector<GuessPoint>& rows) {
    const long k = f.order;
    std::map<long, const Integer*> v;
    for (const GuessPoint& p : rows) v[p.x[0]] = &p.value;
    const long lo = v.begin()->first, hi = v.rbegin()->first, s0 = f.init_start, s1 = f.init_start + k - 1;
    // The span to unroll: from the initial values forward to the last row, back to the first.
    const unsigned long ahead = hi > s1 ? static_cast<unsigned long>(hi) - static_cast<unsigned long>(s1) : 0UL;
    const unsigned long behind = static_cast<unsigned long>(s0) - static_cast<unsigned long>(lo);  // s0 >= lo: a row
    const unsigned long span = ahead + behind;
    if (span > (1UL << 24)) return Reproduction::unknown;
    try {
        const double far = std::max(std::fabs(static_cast<double>(lo)), std::fabs(static_cast<double>(hi)));
        check_unroll_cost(f, rows, ahead, far, "guess");
        check_unroll_cost(f, rows, behind, far, "guess", true);
    } catch (const resource_limit&) {
        return Reproduction::unknown;
    }
    Reproduction out = Reproduction::yes;
    const auto compare = [&](long m, const Rational& value) {
        if (auto it = v.find(m); it != v.end() && !(Rational(*it->second) == value)) out = Reproduction::no;
    };
    std::vector<Rational> window(f.init.begin(), f.init.end());  // v(m − k + 1), …, v(m), m = s1
    for (unsigned long i = 1; i <= ahead && out == Reproduction::yes; ++i) {  // forward: p_0(m)·v(m) = −Σ_{j≥1} p_j(m)·v(m − j)
        const long m = static_cast<long>(static_cast<unsigned long>(s1) + i);
        std::optional<Rational> next = step_forward(f, m, window);
        if (!next) return Reproduction::unknown;
        window.erase(window.begin());
        window.push_back(std::move(*next));
        compare(m, window.back());
    }
    window.assign(f.init.begin(), f.init.end());  // v(t), …, v(t + k − 1), t = s0
    for (unsigned long i = 1; i <= behind && out == Reproduction::yes; ++i) {  // backward: p_k(m)·v(t) = −Σ_{j<k} p_j(m)·v(m − j)
        const long t = static_cast<long>(static_cast<unsigned long>(s0) - i), m = t + k;
        const Rational last = rec_coefficient(f, static_cast<int>(k), m);
        if (last.is_zero()) return Reproduction::unknown;
        Rational acc;
        for (long j = 0; j < k; ++j) acc = acc + rec_coefficient(f, static_cast<int>(j), m) * window[static_cast<std::size_t>(k - 1 - j)];
        window.pop_back();
        window.insert(window.begin(), (Rational(0) - acc) / last);
        compare(t, window.front());
    }
    return out;
}

}  // namespace guess_detail

namespace {

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

}  // namespace

namespace guess_detail {

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

}  // namespace guess_detail

Rational guess_predict(const Guess& g, const std::vector<long>& x) {
    if (!g.found) throw invalid_input("guess: no formula to evaluate" + (g.reason.empty() ? std::string() : " (" + g.reason + ")"));
    const Formula& f = g.formula;
    if (x.size() != f.vars.size())
        throw invalid_input("guess: a point of " + std::to_string(x.size()) + " values for " + std::to_string(f.vars.size()) + " variables");
    return evaluate(f, g.rows, x, point_text(f.vars, x));
}

}  // namespace seprank
