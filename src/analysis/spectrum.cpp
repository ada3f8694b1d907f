// seprank — singular spectra of flattenings in orthonormal product bases (docs/spectrum.md).
// spectrum_fast and spectrum_certified, with Eigen's heavy instantiations, live in
// src/analysis/spectrum_fast.cpp and src/analysis/spectrum_certified.cpp.
#include "seprank/spectrum.hpp"

#include "network/expand_internal.hpp"
#include "base/json_file.hpp"
#include "base/process.hpp"
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/flatten.hpp"
#include "seprank/limits.hpp"
#include "seprank/progress.hpp"
#include "spectrum_arb.hpp"
#include "base/number_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <flint/fmpq_mat.h>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace seprank {

using namespace spectrum_detail;

std::string to_string(Measure m) {
    switch (m) {
        case Measure::uniform: return "uniform";
        case Measure::gaussian: return "gaussian";
    }
    throw internal_error("to_string(Measure): unknown value " + std::to_string(static_cast<int>(m)));
}

Measure measure_from_string(const std::string& s) {
    if (s == "uniform") return Measure::uniform;
    if (s == "gaussian") return Measure::gaussian;
    throw invalid_input("unknown measure '" + s + "' (expected uniform or gaussian)");
}

std::string to_string(SpectrumMethod m) {
    switch (m) {
        case SpectrumMethod::certified: return "certified";
        case SpectrumMethod::fast: return "fast";
    }
    throw internal_error("to_string(SpectrumMethod): unknown value " + std::to_string(static_cast<int>(m)));
}

SpectrumMethod spectrum_method_from_string(const std::string& s) {
    if (s == "certified") return SpectrumMethod::certified;
    if (s == "fast") return SpectrumMethod::fast;
    throw invalid_input("unknown spectrum method '" + s + "' (expected certified or fast)");
}

// ---------------------------------------------------------------------------
// One-dimensional orthogonal polynomials.

namespace {
void check_basis_degree(unsigned k, const char* what) {
    if (k > kMaxBasisDegree)
        throw invalid_input(std::string(what) + " " + std::to_string(k) + " is above " + std::to_string(kMaxBasisDegree) +
                            " (a network's degree in one token's variables is far below it)");
}
}  // namespace

void check_flattening(const OrthoFlattening& of) {
    const auto check = [](const std::vector<Rational>& w, long n, const char* name, const char* of_k) {
        if (static_cast<long>(w.size()) != n)
            throw invalid_input(std::string("OrthoFlattening::") + name + " has " + std::to_string(w.size()) + " entries, K has " +
                                std::to_string(n) + " " + of_k);
        for (std::size_t i = 0; i < w.size(); ++i)
            if (fmpq_sgn(w[i].get()) <= 0)
                throw invalid_input(std::string("OrthoFlattening::") + name + "[" + std::to_string(i) + "] = " + w[i].str() +
                                    " is not a squared norm (> 0)");
    };
    check(of.weight_a, of.K.rows(), "weight_a", "rows");
    check(of.weight_b, of.K.cols(), "weight_b", "columns");
}

Rational moment(Measure m, unsigned k) {
    check_basis_degree(k, "moment: k =");
    if (k % 2 == 1) return Rational(0);
    if (m == Measure::uniform) return Rational(Integer(1), Integer(static_cast<long>(k) + 1));
    Integer r(1);  // (k-1)!!
    for (long i = static_cast<long>(k) - 1; i > 1; i -= 2) r = r * Integer(i);
    return Rational(r);
}

Rational basis_norm2(Measure m, unsigned j) {
    check_basis_degree(j, "basis_norm2: j =");
    if (m == Measure::uniform) return Rational(Integer(1), Integer(2 * static_cast<long>(j) + 1));
    Integer r(1);  // j!
    for (long i = 2; i <= static_cast<long>(j); ++i) r = r * Integer(i);
    return Rational(r);
}

// x·p_j = α_j p_{j+1} + β_j p_{j−1}: Legendre α_j = (j+1)/(2j+1), β_j = j/(2j+1);
// Hermite (probabilists') α_j = 1, β_j = j. Hence
// a[k+1][j] = α_{j−1} a[k][j−1] + β_{j+1} a[k][j+1].
std::vector<std::vector<Rational>> monomial_to_basis(Measure m, unsigned max_degree) {
    auto alpha = [m](long j) {
        return m == Measure::uniform ? Rational(Integer(j + 1), Integer(2 * j + 1)) : Rational(1);
    };
    auto beta = [m](long j) { return m == Measure::uniform ? Rational(Integer(j), Integer(2 * j + 1)) : Rational(j); };
    check_basis_degree(max_degree, "monomial_to_basis: max_degree =");
    // (d+1)(d+2)/2 entries of about d·log2(d) bits each (Hermite; Legendre's are smaller).
    const double d = static_cast<double>(max_degree) + 1, entries = d * (d + 1) / 2;
    check_memory(entries * (64 + d * (std::log2(d) + 2) / 4), default_max_memory(),
                 "monomial_to_basis: the change of basis up to degree " + std::to_string(max_degree));
    std::vector<std::vector<Rational>> a(max_degree + 1);
    a[0] = {Rational(1)};
    for (unsigned k = 0; k < max_degree; ++k) {
        auto& next = a[k + 1];
        next.assign(k + 2, Rational(0));
        for (long j = 0; j <= static_cast<long>(k) + 1; ++j) {
            Rational v(0);
            if (j >= 1) v = v + alpha(j - 1) * a[k][static_cast<std::size_t>(j - 1)];
            if (j + 1 <= static_cast<long>(k)) v = v + beta(j + 1) * a[k][static_cast<std::size_t>(j + 1)];
            next[static_cast<std::size_t>(j)] = v;
        }
    }
    return a;
}

// ---------------------------------------------------------------------------
// The orthogonal flattening K = T_Aᵀ C T_B, exact.

namespace {

using Multi = std::vector<unsigned>;

// One side: its distinct monomials (in order of first appearance) and the orthogonal
// basis elements they expand into (sorted), with T[u][J] = Π_c a[u_c][J_c].
struct Side {
    std::map<Multi, long> monomial_index;
    std::vector<Multi> monomials;
    std::map<Multi, long> basis_index;
    std::vector<Multi> basis;

    long monomial(const Multi& u) {
        auto [it, fresh] = monomial_index.try_emplace(u, static_cast<long>(monomials.size()));
        if (fresh) monomials.push_back(u);
        return it->second;
    }
};

// Every J with J_c ≤ u_c and J_c ≡ u_c (mod 2), J_c ≥ 0.
template <class F>
void for_each_basis(const Multi& u, F f) {
    Multi j(u.size());
    for (std::size_t c = 0; c < u.size(); ++c) j[c] = u[c] % 2;
    if (u.empty()) {
        f(j);
        return;
    }
    for (;;) {
        f(j);
        std::size_t c = 0;
        while (c < u.size() && j[c] + 2 > u[c]) {
            j[c] = u[c] % 2;
            ++c;
        }
        if (c == u.size()) return;
        j[c] += 2;
    }
}

// A count of basis elements as text: its digits, or 3 significant digits beyond 10^15.
std::string count_text(double k) {
    if (k < 1e15) return std::to_string(static_cast<long long>(k));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", k);
    return buf;
}

// Bytes of orthogonal_flattening's dense matrices and bases, for m_A × m_B monomials and
// bases of k_A, k_B elements (multi-indices of len_A, len_B entries): C (m_A × m_B), T_A
// and T_Aᵀ (m_A × k_A each), T_B (m_B × k_B), Y (m_A × k_B) and K (k_A × k_B), 16 bytes an
// entry (an fmpq of two word-size fmpz, the least one takes), and per basis element a map
// node, two copies of its multi-index and its weight (about 160 + 12·len bytes). O(1).
double ortho_bytes(double ma, double mb, double ka, double kb, double la, double lb) {
    const double matrices = 16.0 * (ma * mb + 2 * ma * ka + mb * kb + ma * kb + ka * kb);
    return matrices + ka * (160.0 + 12.0 * la) + kb * (160.0 + 12.0 * lb);
}

// The side's basis: every multi-index below one of its monomials (for_each_basis), in
// order. Bounded as it grows, before the elements of each monomial are enumerated (a
// monomial u alone brings Π_c (⌊u_c/2⌋ + 1) of them) and after: more than max_side (when
// > 0) elements, or bytes(k) over default_max_memory() for k elements, is resource_limit
// naming the size. bytes(k): ortho_bytes with this side's basis of k elements.
void fill_basis(Side& s, long max_side, const char* name, const std::function<double(double)>& bytes) {
    const double limit = default_max_memory();
    const auto check = [&](double k) {
        const std::string what = std::string("spectrum: the orthogonal basis of side ") + name + " has at least " + count_text(k) + " elements";
        if (max_side > 0 && k > static_cast<double>(max_side))
            throw resource_limit(what + ", over the max side " + std::to_string(max_side));
        check_memory(bytes(k), limit, what);
    };
    for (const auto& u : s.monomials) {
        double own = 1;
        for (unsigned e : u) own *= static_cast<double>(e / 2) + 1.0;
        check(std::max(own, static_cast<double>(s.basis_index.size())));
        for_each_basis(u, [&](const Multi& j) { s.basis_index.try_emplace(j, 0); });
        check(static_cast<double>(s.basis_index.size()));
    }
    long k = 0;
    for (auto& [j, idx] : s.basis_index) {
        idx = k++;
        s.basis.push_back(j);
    }
}

// T (monomials × basis).
void fill_change(fmpq_mat_struct* t, const Side& s, const std::vector<std::vector<Rational>>& a) {
    Rational prod(1);
    for (std::size_t r = 0; r < s.monomials.size(); ++r) {
        const Multi& u = s.monomials[r];
        for_each_basis(u, [&](const Multi& j) {
            fmpq_one(prod.get());
            for (std::size_t c = 0; c < u.size(); ++c) fmpq_mul(prod.get(), prod.get(), a[u[c]][j[c]].get());
            fmpq_set(fmpq_mat_entry(t, static_cast<long>(r), s.basis_index.at(j)), prod.get());
        });
    }
}

std::vector<Rational> weights(const Side& s, const std::vector<Rational>& h) {
    std::vector<Rational> w;
    w.reserve(s.basis.size());
    for (const auto& j : s.basis) {
        Rational p(1);
        for (unsigned jc : j) p = p * h[jc];
        w.push_back(p);
    }
    return w;
}

}  // namespace

OrthoFlattening orthogonal_flattening(const QPoly& f, const std::vector<int>& side, Measure m, long max_side) {
    const std::size_t nv = f.context()->nvars();
    if (side.size() != nv)
        throw invalid_input("orthogonal_flattening: " + std::to_string(side.size()) + " sides for " + std::to_string(nv) + " variables");
    const std::size_t n = f.terms();
    Side sa, sb;
    struct Cell {
        long r, c;
        Rational v;
    };
    std::vector<Cell> cells;
    cells.reserve(n);
    unsigned max_deg = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const auto e = f.exponents(k);
        Multi ea, eb;
        for (std::size_t v = 0; v < nv; ++v) {
            if (e[v] > kMaxBasisDegree)  // the change of basis's bound, here as a size refusal
                throw resource_limit("spectrum: exponent " + std::to_string(e[v]) + " is above " + std::to_string(kMaxBasisDegree));
            max_deg = std::max(max_deg, static_cast<unsigned>(e[v]));
            (side[v] == 0 ? ea : eb).push_back(static_cast<unsigned>(e[v]));
        }
        const long r = sa.monomial(ea), c = sb.monomial(eb);
        cells.push_back({r, c, f.coeff(k)});
    }
    OrthoFlattening out;
    out.flattening_rows = static_cast<long>(sa.monomials.size());
    out.flattening_cols = static_cast<long>(sb.monomials.size());
    // Bounded before the bases are enumerated past the limits and before any dense matrix
    // is allocated (fill_basis): side A with side B's basis at its least, k_B = m_B.
    const double ma_d = static_cast<double>(out.flattening_rows), mb_d = static_cast<double>(out.flattening_cols);
    double la = 0, lb = 0;
    for (int sd : side) (sd == 0 ? la : lb) += 1;
    fill_basis(sa, max_side, "A", [&](double k) { return ortho_bytes(ma_d, mb_d, k, mb_d, la, lb); });
    const double ka_d = static_cast<double>(sa.basis.size());
    fill_basis(sb, max_side, "B", [&](double k) { return ortho_bytes(ma_d, mb_d, ka_d, k, la, lb); });
    const auto a = monomial_to_basis(m, max_deg);
    std::vector<Rational> h;
    for (unsigned j = 0; j <= max_deg; ++j) h.push_back(basis_norm2(m, j));
    out.weight_a = weights(sa, h);
    out.weight_b = weights(sb, h);
    out.basis_a = sa.basis;
    out.basis_b = sb.basis;

    const long ma = out.flattening_rows, mb = out.flattening_cols;
    const long ka = static_cast<long>(sa.basis.size()), kb = static_cast<long>(sb.basis.size());
    QMat c(ma, mb), ta(ma, ka), tb(mb, kb), tat(ka, ma), y(ma, kb);
    for (const auto& cell : cells) fmpq_add(fmpq_mat_entry(c.get(), cell.r, cell.c), fmpq_mat_entry(c.get(), cell.r, cell.c), cell.v.get());
    fill_change(ta.get(), sa, a);
    fill_change(tb.get(), sb, a);
    fmpq_mat_transpose(tat.get(), ta.get());
    if (ma > 0 && mb > 0 && kb > 0) fmpq_mat_mul(y.get(), c.get(), tb.get());
    QMat k(ka, kb);
    if (ka > 0 && kb > 0 && ma > 0) fmpq_mat_mul(k.get(), tat.get(), y.get());
    out.K = std::move(k);

    // ‖f‖² = Σ_J h_J Σ_L h_L K_{J,L}².
    Rational row(0), t(0), total(0);
    for (long i = 0; i < ka; ++i) {
        fmpq_zero(row.get());
        for (long j = 0; j < kb; ++j) {
            const fmpq* x = fmpq_mat_entry(out.K.get(), i, j);
            if (fmpq_is_zero(x)) continue;
            fmpq_mul(t.get(), x, x);
            fmpq_mul(t.get(), t.get(), out.weight_b[static_cast<std::size_t>(j)].get());
            fmpq_add(row.get(), row.get(), t.get());
        }
        fmpq_mul(row.get(), row.get(), out.weight_a[static_cast<std::size_t>(i)].get());
        fmpq_add(total.get(), total.get(), row.get());
    }
    out.norm2 = total;
    return out;
}

// ---------------------------------------------------------------------------
// ε-ranks.

std::vector<EpsRank> eps_ranks(const SquaredEnclosure& s2, const Rational& norm2, const std::vector<double>& eps,
                               bool absolute, bool certified, long exact_rank) {
    const std::size_t n = s2.lo.size();
    if (s2.hi.size() != n) throw invalid_input("eps_ranks: lo and hi differ in length");
    // An enclosure is lo <= hi, both finite and >= 0, and ‖f‖² >= 0: a hand-made one that is
    // not would give ranks that mean nothing.
    for (std::size_t k = 0; k < n; ++k)
        if (!(s2.lo[k] >= 0) || !(s2.lo[k] <= s2.hi[k]) || !std::isfinite(s2.hi[k]))
            throw invalid_input("eps_ranks: enclosure " + std::to_string(k) + " [" + number_text(s2.lo[k]) + ", " + number_text(s2.hi[k]) +
                                "] is not 0 <= lo <= hi < inf");
    if (fmpq_sgn(norm2.get()) < 0) throw invalid_input("eps_ranks: the squared norm " + norm2.str() + " is negative");
    const slong wp = 128;
    // Prefix sums of lo and hi, exact enough in balls.
    std::vector<ArbNum> plo(n + 1), phi(n + 1);
    arb_zero(plo[0].v);
    arb_zero(phi[0].v);
    for (std::size_t k = 0; k < n; ++k) {
        ArbNum x;
        arb_set_d(x.v, s2.lo[k]);
        arb_add(plo[k + 1].v, plo[k].v, x.v, wp);  // balls: rounding is accounted for
        arb_set_d(x.v, s2.hi[k]);
        arb_add(phi[k + 1].v, phi[k].v, x.v, wp);
    }
    ArbNum total;
    arb_set_fmpq(total.v, norm2.get(), wp);
    std::vector<EpsRank> out;
    for (double e : eps) {
        if (!(e >= 0) || !std::isfinite(e)) throw invalid_input("SpectrumOptions::eps " + number_text(e) + " must be finite and >= 0");
        EpsRank r;
        r.eps = e;
        if (e == 0 && exact_rank >= 0) {
            r.rank_low = r.rank_high = exact_rank;
            r.certified = certified;
            out.push_back(r);
            continue;
        }
        ArbNum t;  // threshold
        arb_set_d(t.v, e);
        arb_mul(t.v, t.v, t.v, wp);
        if (!absolute) arb_mul(t.v, t.v, total.v, wp);
        // tail(R) ∈ [max(Σ_{k>R} lo, ‖f‖² − Σ_{k≤R} hi), min(Σ_{k>R} hi, ‖f‖² − Σ_{k≤R} lo)].
        // tail(0) = ‖f‖² exactly: relative thresholds compare ε² with 1 (exact), absolute
        // ones ‖f‖² with ε² (a ball that is exact whenever ‖f‖² is dyadic).
        ArbNum eps2;
        arb_set_d(eps2.v, e);
        arb_mul(eps2.v, eps2.v, eps2.v, wp);  // exact: 106 bits ≤ wp
        const bool zero_le = absolute ? arb_le(total.v, eps2.v) : arf_cmp_si(arb_midref(eps2.v), 1) >= 0;
        const bool zero_gt = absolute ? arb_gt(total.v, eps2.v) : arf_cmp_si(arb_midref(eps2.v), 1) < 0 && arb_is_positive(total.v);
        auto tail_hi_le = [&](std::size_t rr) {  // certainly tail(R) ≤ t
            if (rr == 0 && zero_le) return true;
            ArbNum a, b;
            arb_sub(a.v, phi[n].v, phi[rr].v, wp);
            arb_sub(b.v, total.v, plo[rr].v, wp);
            return arb_le(a.v, t.v) || arb_le(b.v, t.v) || (rr == n);
        };
        auto tail_lo_gt = [&](std::size_t rr) {  // certainly tail(R) > t
            if (rr >= n) return false;
            if (rr == 0 && zero_gt) return true;
            ArbNum a, b;
            arb_sub(a.v, plo[n].v, plo[rr].v, wp);
            arb_sub(b.v, total.v, phi[rr].v, wp);
            return arb_gt(a.v, t.v) || arb_gt(b.v, t.v);
        };
        std::size_t lo = 0;
        while (lo < n && tail_lo_gt(lo)) ++lo;
        std::size_t hi = lo;
        while (hi < n && !tail_hi_le(hi)) ++hi;
        r.rank_low = static_cast<long>(lo);
        r.rank_high = static_cast<long>(hi);
        r.certified = certified && lo == hi;
        out.push_back(r);
    }
    return out;
}

// ---------------------------------------------------------------------------
// The dispatcher.

namespace {

void check_options(const SpectrumOptions& opt) {
    if (opt.precision < 53 || opt.precision > 4096)
        throw invalid_input("SpectrumOptions::precision " + std::to_string(opt.precision) + " must be in 53..4096 (53: double; more: MPFR)");
    for (double e : opt.eps)
        if (!(e >= 0) || !std::isfinite(e)) throw invalid_input("SpectrumOptions::eps " + number_text(e) + " must be finite and >= 0");
    // Checked for a polynomial too, which is not expanded; 0: the default.
    if (opt.expand.max_memory != 0) check_memory_value(opt.expand.max_memory, "ExpandOptions::max_memory");
}

// σ ∈ [√lo, √hi] as midpoint and radius (rounded outward).
std::pair<double, double> ball_of_root(double lo, double hi) {
    const slong wp = 128;
    ArbNum a, b;
    arb_set_d(a.v, lo);
    arb_sqrt(a.v, a.v, wp);
    arb_set_d(b.v, hi);
    arb_sqrt(b.v, b.v, wp);
    ArfNum l, h;
    arb_get_lbound_arf(l.v, a.v, wp);
    arb_get_ubound_arf(h.v, b.v, wp);
    ArbNum mid;
    arb_set_arf(mid.v, l.v);
    ArbNum hh;
    arb_set_arf(hh.v, h.v);
    arb_add(mid.v, mid.v, hh.v, wp);
    arb_mul_2exp_si(mid.v, mid.v, -1);
    const double m = arf_get_d(arb_midref(mid.v), ARF_RND_NEAR);
    ArbNum md, r1, r2;
    arb_set_d(md.v, m);
    arb_sub(r1.v, hh.v, md.v, wp);
    ArbNum ll;
    arb_set_arf(ll.v, l.v);
    arb_sub(r2.v, md.v, ll.v, wp);
    arb_max(r1.v, r1.v, r2.v, wp);
    ArfNum ub;
    arb_get_ubound_arf(ub.v, r1.v, wp);
    const double rad = arf_sgn(ub.v) <= 0 ? 0.0 : arf_get_d(ub.v, ARF_RND_CEIL);
    return {m, rad};
}

// One step of a spectrum (progress.hpp): phase "spectrum step", the step's number and no
// total (the steps take very different times, so no ETA), "of <total>: <what>".
void report_step(std::uint64_t step, std::uint64_t total, const std::string& what) {
    report_progress(current_progress(), "spectrum step", step, 0, "of " + std::to_string(total) + ": " + what);
}

// The spectrum of f, reporting its steps first..first+2 of `total`: the orthogonal
// flattening, the exact rank, the singular values.
SpectrumResult spectrum_steps(const QPoly& f, const ValidPartition& part, long n_tokens, const SpectrumOptions& opt,
                              std::uint64_t first, std::uint64_t total) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto sides = variable_sides(f.context()->vars(), token_sides(part, n_tokens));
    report_step(first, total, "the flattening in orthonormal bases");
    const OrthoFlattening of = orthogonal_flattening(f, sides, opt.measure, opt.max_side);
    // The floating point's range, before the exact rank: σ² ≤ ||f||² is held in doubles
    // (up to 2^1024; the eigensolver and the SVD scale by the largest entry before they
    // rotate). Past it the values overflowed or vanished (σ = 0, 0, labelled certified, for
    // a coefficient of 10^160), so the run stops first.
    {
        const double log2_norm2 = log2_abs(of.norm2);
        if (!of.norm2.is_zero() && std::fabs(log2_norm2) > 1000)
            throw resource_limit("spectrum: ||f||^2 is about 2^" + std::to_string(static_cast<long>(std::lround(log2_norm2))) +
                                 ", beyond the floating-point range of the singular values (|log2 ||f||^2| <= 1000): scale f (every σ "
                                 "scales with it)");
    }
    report_step(first + 1, total, "the exact rank of the coefficient flattening");
    const RankAnswer ra = rank_certified(flatten(f, sides), opt.rank);
    report_step(first + 2, total,
                "singular values of " + std::to_string(of.K.rows()) + " x " + std::to_string(of.K.cols()) +
                        (opt.method == SpectrumMethod::certified ? " (Arb balls)" : " (floating point)"));

    SpectrumResult r;
    r.measure = opt.measure;
    r.method = opt.method;
    r.precision = opt.precision;
    r.eps_absolute = opt.eps_absolute;
    r.rows = of.flattening_rows;
    r.cols = of.flattening_cols;
    r.basis_rows = of.K.rows();
    r.basis_cols = of.K.cols();
    r.partition = to_string(part);
    r.degree = f.degree();
    r.terms = static_cast<long>(f.terms());
    r.rank = ra.value;
    r.rank_certified = ra.certified();
    r.norm_squared = of.norm2.str();
    {
        ArbNum nn;
        arb_set_fmpq(nn.v, of.norm2.get(), 128);
        arb_sqrt(nn.v, nn.v, 128);
        r.norm = arf_get_d(arb_midref(nn.v), ARF_RND_NEAR);
    }

    SquaredEnclosure s2;
    const bool certified = opt.method == SpectrumMethod::certified;
    if (certified) {
        s2 = spectrum_certified(of, opt.precision);
    } else {
        for (double x : spectrum_fast(of, opt.precision)) {
            s2.lo.push_back(x * x);
            s2.hi.push_back(x * x);
        }
    }
    // The exact rank: σ_k = 0 exactly beyond it.
    const std::size_t n = s2.lo.size();
    std::size_t shown = n;
    if (r.rank_certified) {
        shown = std::min(n, static_cast<std::size_t>(r.rank));
        for (std::size_t k = shown; k < n; ++k) s2.lo[k] = s2.hi[k] = 0;
    }
    r.radius = certified ? 0.0 : -1.0;
    for (std::size_t k = 0; k < shown; ++k) {
        if (certified) {
            const auto [mid, rad] = ball_of_root(s2.lo[k], s2.hi[k]);
            r.singular_values.push_back(mid);
            r.radii.push_back(rad);
            r.radius = std::max(r.radius, rad);
        } else {
            r.singular_values.push_back(std::sqrt(s2.lo[k]));
        }
    }
    r.eps_ranks = eps_ranks(s2, of.norm2, opt.eps, opt.eps_absolute, certified, r.rank_certified ? r.rank : -1);
    r.certified = certified && r.rank_certified;
    r.note = certified ? "Arb balls around M M^T, eigenbasis at " + std::to_string(opt.precision) +
                             " bits, Weyl + Ostrowski enclosure; rank " + ra.variant
                       : "floating point at " + std::to_string(opt.precision) + " bits, no error bound; rank " + ra.variant;
    if (!r.rank_certified) r.note += " (rank not certified: values beyond the modular rank are not known to vanish)";
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace

SpectrumResult spectrum(const QPoly& f, const ValidPartition& part, long n_tokens, const SpectrumOptions& opt) {
    check_options(opt);
    return spectrum_steps(f, part, n_tokens, opt, 1, 3);
}

SpectrumResult spectrum(const Network& net, const ValidPartition& part, const SpectrumOptions& opt) {
    check_options(opt);
    part.check_tokens(net.spec.tokens);  // before the expansion
    // The singular values are those of f's coefficient flattening: no method avoids expanding f.
    detail::check_expansion_estimate(check_shapes(net), opt.expand,
                                     "the spectrum needs f expanded (its coefficient flattening), whatever SpectrumOptions::method");
    const auto t0 = std::chrono::steady_clock::now();
    report_step(1, 4, "expanding f");
    const QPoly f = expand(net, opt.expand);
    SpectrumResult r = spectrum_steps(f, part, net.spec.tokens, opt, 2, 4);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

std::string to_json(const SpectrumResult& r, int indent) {
    using nlohmann::json;
    json j = json::object();
    j["partition"] = r.partition;
    j["measure"] = to_string(r.measure);
    j["method"] = to_string(r.method);
    j["precision"] = r.precision;
    j["rank"] = r.rank;
    j["rank_certified"] = r.rank_certified;
    j["certified"] = r.certified;
    j["norm"] = r.norm;
    j["norm_squared"] = r.norm_squared;
    j["singular_values"] = r.singular_values;
    if (r.radius >= 0) {
        j["radius"] = r.radius;
        j["radii"] = r.radii;
    } else {
        j["radius"] = nullptr;
        j["radii"] = nullptr;
    }
    j["eps_absolute"] = r.eps_absolute;
    json er = json::array();
    for (const auto& e : r.eps_ranks) {
        json o = json::object();
        o["eps"] = e.eps;
        if (e.decided()) o["rank"] = e.rank_low;
        else {
            o["rank_low"] = e.rank_low;
            o["rank_high"] = e.rank_high;
        }
        o["certified"] = e.certified;
        er.push_back(o);
    }
    j["eps_ranks"] = er;
    j["rows"] = r.rows;
    j["cols"] = r.cols;
    j["basis_rows"] = r.basis_rows;
    j["basis_cols"] = r.basis_cols;
    j["degree"] = r.degree;
    j["terms"] = r.terms < 0 ? json(nullptr) : json(r.terms);
    j["seconds"] = r.seconds;
    j["note"] = r.note;
    return j.dump(detail::checked_indent(indent));
}

}  // namespace seprank
