// seprank — spectrum_certified: Arb balls around S = M Mᵀ, an approximate eigenbasis
// (Eigen, double or MPFR), Weyl + Ostrowski (docs/spectrum.md). Its own translation unit
// because Eigen's self-adjoint eigensolvers over double and MPFR are heavy instantiations.
#include "seprank/spectrum.hpp"

#include "seprank/error.hpp"
#include "spectrum_arb.hpp"
#include "spectrum_mpfr.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <flint/fmpq_mat.h>
#include <string>
#include <type_traits>
#include <vector>

namespace seprank {

using namespace spectrum_detail;

namespace {

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
    if (es.info() != Eigen::Success)  // a range of magnitudes it does not resolve: a limit, not a bug
        throw resource_limit("spectrum: the approximate eigensolver did not converge at this precision (a wider range of magnitudes than it "
                             "resolves): a higher --precision");
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
    if (precision < 53 || precision > 4096) throw invalid_input("SpectrumOptions::precision " + std::to_string(precision) + " must be in 53..4096 (53: double; more: MPFR)");
    check_flattening(of);
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

}  // namespace seprank
