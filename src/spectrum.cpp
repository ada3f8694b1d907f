// seprank — singular spectra of flattenings in orthonormal product bases (docs/spectrum.md).
#include "seprank/spectrum.hpp"

#include "process.hpp"
#include "seprank/error.hpp"
#include "seprank/flatten.hpp"

#include <arb.h>
#include <arb_mat.h>
#include <boost/multiprecision/mpfr.hpp>
#include <Eigen/Dense>
#include <Eigen/SVD>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <flint/fmpq_mat.h>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <unordered_map>

namespace seprank {
using Mpfr = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<0>, boost::multiprecision::et_off>;
}

// Eigen's traits for MPFR numbers of run-time precision. (Boost 1.74's own
// boost/multiprecision/eigen.hpp lacks infinity() and quiet_NaN(), which Eigen 3.4 uses.)
namespace Eigen {
template <>
struct NumTraits<seprank::Mpfr> : GenericNumTraits<seprank::Mpfr> {
    using Real = seprank::Mpfr;
    using NonInteger = seprank::Mpfr;
    using Literal = seprank::Mpfr;
    using Nested = seprank::Mpfr;
    enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 4, MulCost = 8 };
    static int digits10() { return static_cast<int>(seprank::Mpfr::default_precision()); }
    static Real dummy_precision() { return 1000 * epsilon(); }
};
}  // namespace Eigen

namespace seprank {

std::string to_string(Measure m) { return m == Measure::uniform ? "uniform" : "gaussian"; }

Measure measure_from_string(const std::string& s) {
    if (s == "uniform") return Measure::uniform;
    if (s == "gaussian") return Measure::gaussian;
    throw invalid_input("unknown measure '" + s + "' (expected uniform or gaussian)");
}

std::string to_string(SpectrumMethod m) { return m == SpectrumMethod::certified ? "certified" : "fast"; }

SpectrumMethod spectrum_method_from_string(const std::string& s) {
    if (s == "certified") return SpectrumMethod::certified;
    if (s == "fast") return SpectrumMethod::fast;
    throw invalid_input("unknown spectrum method '" + s + "' (expected certified or fast)");
}

// ---------------------------------------------------------------------------
// One-dimensional orthogonal polynomials.

Rational moment(Measure m, unsigned k) {
    if (k % 2 == 1) return Rational(0);
    if (m == Measure::uniform) return Rational(Integer(1), Integer(static_cast<long>(k) + 1));
    Integer r(1);  // (k-1)!!
    for (long i = static_cast<long>(k) - 1; i > 1; i -= 2) r = r * Integer(i);
    return Rational(r);
}

Rational basis_norm2(Measure m, unsigned j) {
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

struct FmpqMat {
    fmpq_mat_t m;
    FmpqMat(long r, long c) { fmpq_mat_init(m, r, c); }
    FmpqMat(const FmpqMat&) = delete;
    FmpqMat& operator=(const FmpqMat&) = delete;
    ~FmpqMat() { fmpq_mat_clear(m); }
};

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

void fill_basis(Side& s, long max_side, const char* name) {
    for (const auto& u : s.monomials) for_each_basis(u, [&](const Multi& j) { s.basis_index.try_emplace(j, 0); });
    if (max_side > 0 && static_cast<long>(s.basis_index.size()) > max_side)
        throw resource_limit(std::string("spectrum: the orthogonal basis of side ") + name + " has " +
                             std::to_string(s.basis_index.size()) + " elements, over SpectrumOptions::max_side = " +
                             std::to_string(max_side));
    long k = 0;
    for (auto& [j, idx] : s.basis_index) {
        idx = k++;
        s.basis.push_back(j);
    }
}

// T (monomials × basis).
void fill_change(fmpq_mat_t t, const Side& s, const std::vector<std::vector<Rational>>& a) {
    fmpq_t prod;
    fmpq_init(prod);
    for (std::size_t r = 0; r < s.monomials.size(); ++r) {
        const Multi& u = s.monomials[r];
        for_each_basis(u, [&](const Multi& j) {
            fmpq_one(prod);
            for (std::size_t c = 0; c < u.size(); ++c) fmpq_mul(prod, prod, a[u[c]][j[c]].get());
            fmpq_set(fmpq_mat_entry(t, static_cast<long>(r), s.basis_index.at(j)), prod);
        });
    }
    fmpq_clear(prod);
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
            if (e[v] > 100000) throw resource_limit("spectrum: exponent " + std::to_string(e[v]) + " is too large");
            max_deg = std::max(max_deg, static_cast<unsigned>(e[v]));
            (side[v] == 0 ? ea : eb).push_back(static_cast<unsigned>(e[v]));
        }
        const long r = sa.monomial(ea), c = sb.monomial(eb);
        cells.push_back({r, c, f.coeff(k)});
    }
    OrthoFlattening out;
    out.flattening_rows = static_cast<long>(sa.monomials.size());
    out.flattening_cols = static_cast<long>(sb.monomials.size());
    fill_basis(sa, max_side, "A");
    fill_basis(sb, max_side, "B");
    const auto a = monomial_to_basis(m, max_deg);
    std::vector<Rational> h;
    for (unsigned j = 0; j <= max_deg; ++j) h.push_back(basis_norm2(m, j));
    out.weight_a = weights(sa, h);
    out.weight_b = weights(sb, h);
    out.basis_a = sa.basis;
    out.basis_b = sb.basis;

    const long ma = out.flattening_rows, mb = out.flattening_cols;
    const long ka = static_cast<long>(sa.basis.size()), kb = static_cast<long>(sb.basis.size());
    FmpqMat c(ma, mb), ta(ma, ka), tb(mb, kb), tat(ka, ma), y(ma, kb);
    for (const auto& cell : cells) fmpq_add(fmpq_mat_entry(c.m, cell.r, cell.c), fmpq_mat_entry(c.m, cell.r, cell.c), cell.v.get());
    fill_change(ta.m, sa, a);
    fill_change(tb.m, sb, a);
    fmpq_mat_transpose(tat.m, ta.m);
    if (ma > 0 && mb > 0 && kb > 0) fmpq_mat_mul(y.m, c.m, tb.m);
    QMat k(ka, kb);
    if (ka > 0 && kb > 0 && ma > 0) fmpq_mat_mul(k.get(), tat.m, y.m);
    out.K = std::move(k);

    // ‖f‖² = Σ_J h_J Σ_L h_L K_{J,L}².
    fmpq_t row, t;
    fmpq_init(row);
    fmpq_init(t);
    Rational total(0);
    for (long i = 0; i < ka; ++i) {
        fmpq_zero(row);
        for (long j = 0; j < kb; ++j) {
            const fmpq* x = fmpq_mat_entry(out.K.get(), i, j);
            if (fmpq_is_zero(x)) continue;
            fmpq_mul(t, x, x);
            fmpq_mul(t, t, out.weight_b[static_cast<std::size_t>(j)].get());
            fmpq_add(row, row, t);
        }
        fmpq_mul(row, row, out.weight_a[static_cast<std::size_t>(i)].get());
        fmpq_add(total.get(), total.get(), row);
    }
    fmpq_clear(row);
    fmpq_clear(t);
    out.norm2 = total;
    return out;
}

// ---------------------------------------------------------------------------
// Floating point: M = D_A^{1/2} K D_B^{1/2} over a scalar type.

namespace {

// Boost 1.74 keeps one process-wide default precision for MPFR numbers: this guard sets
// it (decimal digits covering `bits`) and holds a mutex while it lives, so concurrent
// calls of the MPFR paths are serialised instead of racing on it.
std::mutex& mpfr_mutex() {
    static std::mutex m;
    return m;
}
struct MpfrPrecision {
    std::lock_guard<std::mutex> lock;
    unsigned saved;
    explicit MpfrPrecision(long bits) : lock(mpfr_mutex()), saved(Mpfr::default_precision()) {
        Mpfr::default_precision(static_cast<unsigned>(std::ceil(static_cast<double>(bits) * 0.30103)) + 1);
    }
    MpfrPrecision(const MpfrPrecision&) = delete;
    MpfrPrecision& operator=(const MpfrPrecision&) = delete;
    ~MpfrPrecision() { Mpfr::default_precision(saved); }
};

template <class S>
S from_fmpq(const fmpq* q);

template <>
double from_fmpq<double>(const fmpq* q) {
    return fmpq_get_d(q);
}

template <>
Mpfr from_fmpq<Mpfr>(const fmpq* q) {
    Mpfr x;
    fmpq_get_mpfr(x.backend().data(), q, MPFR_RNDN);
    return x;
}

template <class S>
using MatS = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

template <class S>
MatS<S> weighted(const OrthoFlattening& of) {
    const long ka = of.K.rows(), kb = of.K.cols();
    std::vector<S> wa, wb;
    for (const auto& w : of.weight_a) wa.push_back(sqrt(from_fmpq<S>(w.get())));
    for (const auto& w : of.weight_b) wb.push_back(sqrt(from_fmpq<S>(w.get())));
    MatS<S> m(ka, kb);
    for (long i = 0; i < ka; ++i)
        for (long j = 0; j < kb; ++j)
            m(i, j) = from_fmpq<S>(fmpq_mat_entry(of.K.get(), i, j)) * wa[static_cast<std::size_t>(i)] * wb[static_cast<std::size_t>(j)];
    return m;
}

template <class S>
double to_double(const S& x) {
    return static_cast<double>(x);
}

}  // namespace

std::vector<double> spectrum_fast(const OrthoFlattening& of, long precision) {
    if (precision < 2 || precision > 4096) throw invalid_input("SpectrumOptions::precision " + std::to_string(precision) + " must be in 2..4096");
    std::vector<double> out;
    if (of.K.rows() == 0 || of.K.cols() == 0) return out;
    if (precision <= 53) {
        Eigen::BDCSVD<MatS<double>> svd(weighted<double>(of));
        for (long k = 0; k < svd.singularValues().size(); ++k) out.push_back(svd.singularValues()(k));
    } else {
        MpfrPrecision guard(precision);
        Eigen::JacobiSVD<MatS<Mpfr>> svd(weighted<Mpfr>(of));
        for (long k = 0; k < svd.singularValues().size(); ++k) out.push_back(to_double(svd.singularValues()(k)));
    }
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
}

// ---------------------------------------------------------------------------
// Certified: Arb balls around S = M Mᵀ, an approximate eigenbasis, Weyl + Ostrowski.

namespace {

struct ArbMat {
    arb_mat_t m;
    ArbMat(long r, long c) { arb_mat_init(m, r, c); }
    ArbMat(const ArbMat&) = delete;
    ArbMat& operator=(const ArbMat&) = delete;
    ~ArbMat() { arb_mat_clear(m); }
};

struct ArbNum {
    arb_t v;
    ArbNum() { arb_init(v); }
    ArbNum(const ArbNum&) = delete;
    ArbNum& operator=(const ArbNum&) = delete;
    ~ArbNum() { arb_clear(v); }
};

struct ArfNum {
    arf_t v;
    ArfNum() { arf_init(v); }
    ArfNum(const ArfNum&) = delete;
    ArfNum& operator=(const ArfNum&) = delete;
    ArfNum(ArfNum&& o) noexcept { arf_init(v); arf_swap(v, o.v); }
    ArfNum& operator=(ArfNum&& o) noexcept { arf_swap(v, o.v); return *this; }
    ~ArfNum() { arf_clear(v); }
};

struct MagNum {
    mag_t v;
    MagNum() { mag_init(v); }
    MagNum(const MagNum&) = delete;
    MagNum& operator=(const MagNum&) = delete;
    ~MagNum() { mag_clear(v); }
};

template <class S>
S mid_of(const arb_struct* x) {
    if constexpr (std::is_same_v<S, double>) {
        return arf_get_d(arb_midref(x), ARF_RND_NEAR);
    } else {
        S y;
        arf_get_mpfr(y.backend().data(), arb_midref(x), MPFR_RNDN);
        return y;
    }
}

template <class S>
MatS<S> mid_matrix(const arb_mat_t a) {
    MatS<S> m(arb_mat_nrows(a), arb_mat_ncols(a));
    for (long i = 0; i < arb_mat_nrows(a); ++i)
        for (long j = 0; j < arb_mat_ncols(a); ++j) m(i, j) = mid_of<S>(arb_mat_entry(a, i, j));
    return m;
}

// An approximate eigendecomposition of a symmetric matrix: V (columns, exact in Arb) and Λ.
template <class S>
void approx_eigen(const MatS<S>& mid, arb_mat_t v_out, std::vector<ArfNum>& lambda) {
    const long n = mid.rows();
    Eigen::SelfAdjointEigenSolver<MatS<S>> es(mid);
    if (es.info() != Eigen::Success) throw internal_error("spectrum_certified: the approximate eigensolver did not converge");
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j) {
            arb_ptr x = arb_mat_entry(v_out, i, j);
            if constexpr (std::is_same_v<S, double>) arb_set_d(x, es.eigenvectors()(i, j));
            else arf_set_mpfr(arb_midref(x), es.eigenvectors()(i, j).backend().data()), mag_zero(arb_radref(x));
        }
    for (long k = 0; k < n; ++k) {
        if constexpr (std::is_same_v<S, double>) arf_set_d(lambda[static_cast<std::size_t>(k)].v, es.eigenvalues()(k));
        else arf_set_mpfr(lambda[static_cast<std::size_t>(k)].v, es.eigenvalues()(k).backend().data());
    }
}

// The Gram matrix of the smaller side, S = M Mᵀ (ka ≤ kb) or Mᵀ M, of the midpoints.
template <class S>
MatS<S> mid_gram(const arb_mat_t m) {
    const MatS<S> md = mid_matrix<S>(m);
    if (md.rows() <= md.cols()) return md * md.transpose();
    return md.transpose() * md;
}

}  // namespace

SquaredEnclosure spectrum_certified(const OrthoFlattening& of, long precision) {
    if (precision < 2 || precision > 4096) throw invalid_input("SpectrumOptions::precision " + std::to_string(precision) + " must be in 2..4096");
    SquaredEnclosure out;
    const long ka = of.K.rows(), kb = of.K.cols();
    if (ka == 0 || kb == 0) return out;
    const slong wp = std::max<long>(precision, 53) + 32;
    // M as balls: K_{J,L}·√h_J·√h_L.
    ArbMat m(ka, kb);
    {
        std::vector<ArbNum> wa(static_cast<std::size_t>(ka)), wb(static_cast<std::size_t>(kb));
        for (long i = 0; i < ka; ++i) {
            arb_set_fmpq(wa[static_cast<std::size_t>(i)].v, of.weight_a[static_cast<std::size_t>(i)].get(), wp);
            arb_sqrt(wa[static_cast<std::size_t>(i)].v, wa[static_cast<std::size_t>(i)].v, wp);
        }
        for (long j = 0; j < kb; ++j) {
            arb_set_fmpq(wb[static_cast<std::size_t>(j)].v, of.weight_b[static_cast<std::size_t>(j)].get(), wp);
            arb_sqrt(wb[static_cast<std::size_t>(j)].v, wb[static_cast<std::size_t>(j)].v, wp);
        }
        for (long i = 0; i < ka; ++i)
            for (long j = 0; j < kb; ++j) {
                arb_ptr x = arb_mat_entry(m.m, i, j);
                arb_set_fmpq(x, fmpq_mat_entry(of.K.get(), i, j), wp);
                arb_mul(x, x, wa[static_cast<std::size_t>(i)].v, wp);
                arb_mul(x, x, wb[static_cast<std::size_t>(j)].v, wp);
            }
    }
    // S = M Mᵀ (ka ≤ kb) or Mᵀ M: an approximate eigenbasis of its midpoint matrix.
    const long n = std::min(ka, kb);
    ArbMat v(n, n);
    std::vector<ArfNum> lambda(static_cast<std::size_t>(n));
    if (precision <= 53) {
        approx_eigen<double>(mid_gram<double>(m.m), v.m, lambda);
    } else {
        MpfrPrecision guard(precision);
        approx_eigen<Mpfr>(mid_gram<Mpfr>(m.m), v.m, lambda);
    }
    // W = Vᵀ S V = X Xᵀ with X = Vᵀ M (or Xᵀ X with X = M V), in balls that contain the
    // exact values; E = W − Λ, F = Vᵀ V − I.
    MagNum e, delta;
    {
        ArbMat vt(n, n), w(n, n), g(n, n);
        arb_mat_transpose(vt.m, v.m);
        if (ka <= kb) {
            ArbMat x(n, kb), xt(kb, n);
            arb_mat_mul(x.m, vt.m, m.m, wp);
            arb_mat_transpose(xt.m, x.m);
            arb_mat_mul(w.m, x.m, xt.m, wp);
        } else {
            ArbMat x(ka, n), xt(n, ka);
            arb_mat_mul(x.m, m.m, v.m, wp);
            arb_mat_transpose(xt.m, x.m);
            arb_mat_mul(w.m, xt.m, x.m, wp);
        }
        for (long k = 0; k < n; ++k) {
            arb_ptr x = arb_mat_entry(w.m, k, k);
            ArbNum l;
            arb_set_arf(l.v, lambda[static_cast<std::size_t>(k)].v);
            arb_sub(x, x, l.v, wp);
        }
        arb_mat_bound_frobenius_norm(e.v, w.m);
        arb_mat_mul(g.m, vt.m, v.m, wp);
        for (long k = 0; k < n; ++k) arb_sub_ui(arb_mat_entry(g.m, k, k), arb_mat_entry(g.m, k, k), 1, wp);
        arb_mat_bound_frobenius_norm(delta.v, g.m);
    }
    if (mag_cmp_2exp_si(delta.v, -1) >= 0)
        throw internal_error("spectrum_certified: the approximate eigenbasis is not close to orthogonal (||V^T V - I|| >= 1/2)");
    std::sort(lambda.begin(), lambda.end(), [](const ArfNum& x, const ArfNum& y) { return arf_cmp(x.v, y.v) > 0; });
    ArbNum one_plus, d;
    arb_zero(d.v);
    arb_add_error_mag(d.v, delta.v);  // [−δ, δ]
    arb_one(one_plus.v);
    arb_add_ui(one_plus.v, d.v, 1, wp);   // [1−δ, 1+δ]
    out.lo.resize(static_cast<std::size_t>(n));
    out.hi.resize(static_cast<std::size_t>(n));
    for (long k = 0; k < n; ++k) {
        // λ_k(W) ∈ [Λ_(k) − e, Λ_(k) + e]; λ_k(S) = λ_k(W)/θ, θ ∈ [1−δ, 1+δ], λ_k(S) ≥ 0.
        ArbNum w, q;
        arb_set_arf(w.v, lambda[static_cast<std::size_t>(k)].v);
        arb_add_error_mag(w.v, e.v);
        arb_div(q.v, w.v, one_plus.v, wp);
        ArfNum lo, hi;
        arb_get_lbound_arf(lo.v, q.v, wp);
        arb_get_ubound_arf(hi.v, q.v, wp);
        out.lo[static_cast<std::size_t>(k)] = arf_sgn(lo.v) <= 0 ? 0.0 : arf_get_d(lo.v, ARF_RND_FLOOR);
        out.hi[static_cast<std::size_t>(k)] = arf_sgn(hi.v) <= 0 ? 0.0 : arf_get_d(hi.v, ARF_RND_CEIL);
    }
    // Sorted order of the enclosures is the order of the true values; make both
    // sequences non-increasing (λ_k ≥ λ_{k+1} lets lo borrow from later ones and hi
    // from earlier ones).
    for (long k = n - 2; k >= 0; --k) out.lo[static_cast<std::size_t>(k)] = std::max(out.lo[static_cast<std::size_t>(k)], out.lo[static_cast<std::size_t>(k + 1)]);
    for (long k = 1; k < n; ++k) out.hi[static_cast<std::size_t>(k)] = std::min(out.hi[static_cast<std::size_t>(k)], out.hi[static_cast<std::size_t>(k - 1)]);
    return out;
}

// ---------------------------------------------------------------------------
// ε-ranks.

std::vector<EpsRank> eps_ranks(const SquaredEnclosure& s2, const Rational& norm2, const std::vector<double>& eps,
                               bool absolute, bool certified, long exact_rank) {
    const std::size_t n = s2.lo.size();
    if (s2.hi.size() != n) throw invalid_input("eps_ranks: lo and hi differ in length");
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
        if (!(e >= 0) || !std::isfinite(e)) throw invalid_input("SpectrumOptions::eps " + std::to_string(e) + " must be finite and >= 0");
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
    if (opt.precision < 2 || opt.precision > 4096)
        throw invalid_input("SpectrumOptions::precision " + std::to_string(opt.precision) + " must be in 2..4096");
    for (double e : opt.eps)
        if (!(e >= 0) || !std::isfinite(e)) throw invalid_input("SpectrumOptions::eps " + std::to_string(e) + " must be finite and >= 0");
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

}  // namespace

SpectrumResult spectrum(const QPoly& f, const Partition& part, long n_tokens, const SpectrumOptions& opt) {
    check_options(opt);
    const auto t0 = std::chrono::steady_clock::now();
    const auto sides = variable_sides(f.context()->vars(), token_sides(part, n_tokens));
    const OrthoFlattening of = orthogonal_flattening(f, sides, opt.measure, opt.max_side);
    const RankAnswer ra = rank_certified(flatten(f, sides), opt.rank);

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
    r.degree = std::to_string(std::max<long>(f.degree(), 0));
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

SpectrumResult spectrum(const Network& net, const Partition& part, const SpectrumOptions& opt) {
    check_options(opt);
    const auto t0 = std::chrono::steady_clock::now();
    const QPoly f = expand(net, opt.expand);
    SpectrumResult r = spectrum(f, part, net.spec.tokens, opt);
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
    return j.dump(indent);
}

}  // namespace seprank
