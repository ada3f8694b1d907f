// rank_modular_blocked: the CPU backend of the blocked elimination of
// src/algebra/blocked_rank_impl.hpp (the reference of the CUDA engine's sr_cuda_rank). The GEMMs
// are Eigen's on doubles, exact because every partial sum is an integer below 2^53 (in the
// two-limb mode, p > 2^26: the four limb GEMMs of each product, or two with one-sided limbs
// for p < 2^31, then an exact combine).
#include "blocked_rank_impl.hpp"
#include "rank_blocked.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"

#include <Eigen/Core>

#include <flint/nmod_mat.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace seprank {

static_assert(blocked_max_prime == blocked::kMaxWidePrime, "rank.hpp and blocked_rank_impl.hpp name the same limit");

namespace {

using ColBlock = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using ConstColBlock = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

// The backend of blocked::Driver on host memory (the operations are documented there).
class CpuBackend {
public:
    CpuBackend(std::int64_t m, std::int64_t n, std::uint64_t p, int tile)
        : m_(m), n_(n), p_(p), pd_(static_cast<double>(p)), pinv_(1.0 / static_cast<double>(p)),
          kmax_(blocked::max_inner(p)), wide_(blocked::wide_mode(p)), half_(blocked::half_mode(p)), c46_(wide_ ? blocked::wide_c46(p) : 0),
          a_(static_cast<std::size_t>(m * n)) {
        const std::int64_t t = blocked::effective_tile(tile, n);
        g_.resize(static_cast<std::size_t>(m * t));
        mm_.resize(static_cast<std::size_t>(m * t));
        x_.resize(static_cast<std::size_t>(t * t));
        if (wide_) {  // the buffers the mode uses (one-sided limbs: B1, B0, P1, P0)
            const blocked::WideBuffers w = blocked::wide_buffers(p);
            if (w.a > 0)
                for (auto* v : {&a1_, &a0_}) v->resize(static_cast<std::size_t>(blocked::wide_a_doubles(m, n, tile)));
            for (auto* v : {&b1_, &b0_}) v->resize(static_cast<std::size_t>(blocked::wide_b_doubles(m, n, tile)));
            for (auto* v : {&p1_, &p0_}) v->resize(static_cast<std::size_t>(blocked::wide_p_doubles(m, n, tile)));
            if (w.p > 2) p2_.resize(static_cast<std::size_t>(blocked::wide_p_doubles(m, n, tile)));
        }
    }

    // Test hook: a combine that adds `e` to every entry it writes (a deliberately broken
    // step, for the test that the comparisons with FLINT would catch one).
    void break_combine(double e) { combine_error_ = e; }
    const blocked::LeafStats& stats() const { return stats_; }

    double* row(std::int64_t i) { return a_.data() + i * n_; }

    // The leaf step (blocked_rank_impl.hpp), in two phases: the top (the first kLeafTop
    // active rows non-zero in the leaf among the first kScanRows, up to row e) alone, then the rows [e, m) with the
    // top's pivots; where a row below would have been a pivot, the columns are restored
    // from G and the one-phase step runs (counted in stats_).
    void factor_leaf(std::int64_t r, std::int64_t b0, std::int64_t b1, std::int64_t* piv) {
        const std::int64_t t = b1 - b0;
        std::vector<std::int64_t> top;
        const std::int64_t stop = std::min(m_, r + blocked::kScanRows);  // the scan's cap
        std::int64_t e = stop;
        for (std::int64_t i = r; i < stop && e == stop; ++i)
            if (std::any_of(row(i) + b0, row(i) + b1, [](double v) { return v != 0; })) {
                top.push_back(i);
                if (static_cast<std::int64_t>(top.size()) == blocked::kLeafTop) e = i + 1;
            }
        if (e == stop && stop < m_ && static_cast<std::int64_t>(top.size()) < blocked::kLeafTop) ++stats_.capped;
        if (e == m_) {  // no row below the top: one phase
            leaf_rows(top, b0, t, piv);
            return;
        }
        ++stats_.splits;
        for (std::int64_t i = r; i < m_; ++i) std::copy(row(i) + b0, row(i) + b1, g_.data() + (i - r) * t);  // the copy to restore
        leaf_rows(top, b0, t, piv);
        std::vector<double> inv(static_cast<std::size_t>(t), 0.0);
        for (std::int64_t j = 0; j < t; ++j)
            if (piv[j] >= 0) inv[static_cast<std::size_t>(j)] = inverse(row(piv[j])[b0 + j]);
        for (std::int64_t i = e; i < m_; ++i) {
            double* x = row(i) + b0;
            for (std::int64_t j = 0; j < t; ++j) {
                if (x[j] == 0) continue;
                if (piv[j] < 0) {  // row i would be column j's pivot: one phase after all
                    ++stats_.fallbacks;
                    for (std::int64_t k = r; k < m_; ++k) std::copy_n(g_.data() + (k - r) * t, t, row(k) + b0);
                    std::vector<std::int64_t> all(static_cast<std::size_t>(m_ - r));
                    std::iota(all.begin(), all.end(), r);
                    leaf_rows(all, b0, t, piv);
                    return;
                }
                eliminate(x, j, t, row(piv[j]) + b0, inv[static_cast<std::size_t>(j)]);
            }
        }
    }

    // The leaf step on the rows `rows` alone (increasing).
    void leaf_rows(const std::vector<std::int64_t>& rows, std::int64_t b0, std::int64_t t, std::int64_t* piv) {
        std::vector<char> done(rows.size(), 0);
        for (std::int64_t j = 0; j < t; ++j) {
            std::size_t at = rows.size();
            for (std::size_t s = 0; s < rows.size() && at == rows.size(); ++s)
                if (!done[s] && row(rows[s])[b0 + j] != 0) at = s;
            piv[j] = at == rows.size() ? -1 : rows[at];
            if (piv[j] < 0) continue;
            done[at] = 1;
            const double* pr = row(piv[j]) + b0;
            const double inv = inverse(pr[j]);
            for (std::size_t s = 0; s < rows.size(); ++s) {
                double* x = row(rows[s]) + b0;
                if (done[s] || x[j] == 0) continue;
                eliminate(x, j, t, pr, inv);
            }
        }
    }

    double inverse(double a) const { return wide_ ? blocked::wide_inverse(a, p_) : blocked::inverse(a, p_); }

    // Row x (leaf columns, x[j] != 0) eliminated by the pivot row pr of column j, whose
    // entry there has inverse inv: x[j] becomes the multiplier l, x[c] -= l pr[c] for c > j.
    void eliminate(double* x, std::int64_t j, std::int64_t t, const double* pr, double inv) const {
        if (wide_) {
            const double l = blocked::wide_mul(x[j], inv, pd_, pinv_);
            x[j] = l;
            for (std::int64_t c = j + 1; c < t; ++c) x[c] = blocked::wide_submul(x[c], l, pr[c], pd_, pinv_);
            return;
        }
        const double l = blocked::mul(x[j], inv, pd_, pinv_);
        x[j] = l;
        for (std::int64_t c = j + 1; c < t; ++c) x[c] = blocked::reduce(x[c] - l * pr[c], pd_, pinv_);
    }

    void swap_rows(std::int64_t r, const std::int64_t* to, std::int64_t k, std::int64_t c0) {
        for (std::int64_t i = 0; i < k; ++i)
            if (to[i] != r + i) std::swap_ranges(row(r + i) + c0, row(r + i) + n_, row(to[i]) + c0);
    }

    void gather(std::int64_t r, const std::int64_t* cols, std::int64_t k) {
        for (std::int64_t i = r; i < m_; ++i)
            for (std::int64_t c = 0; c < k; ++c) g_[static_cast<std::size_t>((i - r) * k + c)] = row(i)[cols[c]];
    }

    void invert(std::int64_t k) {
        if (wide_) {
            invert_wide(k);
            return;
        }
        // Column c of X solves L x = e_c by forward substitution, reduced every kmax terms.
        for (std::int64_t c = 0; c < k; ++c)
            for (std::int64_t i = 0; i < k; ++i) {
                double& out = x_[static_cast<std::size_t>(i * k + c)];
                if (i <= c) {
                    out = i == c ? 1 : 0;
                    continue;
                }
                double s = 0;
                std::int64_t terms = 0;
                for (std::int64_t j = c; j < i; ++j) {
                    s += g_[static_cast<std::size_t>(i * k + j)] * x_[static_cast<std::size_t>(j * k + c)];
                    if (++terms == kmax_) {
                        s = blocked::reduce(s, pd_, pinv_);
                        terms = 0;
                    }
                }
                out = blocked::reduce(-s, pd_, pinv_);
            }
    }

    void multipliers(std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, bool first) {
        run(blocked::multipliers_gemm(m_, r, k, k0, k1, first));
        reduce_block(mm_.data(), m_ - r - k, k, k);
    }

    void update(std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, std::int64_t d0, std::int64_t d1) {
        run(blocked::update_gemm(m_, n_, r, k, k0, k1, d0, d1));
    }

    void reduce_rows(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) { reduce_block(row(r0) + c0, r1 - r0, c1 - c0, n_); }

    void split(blocked::Buf src, std::int64_t off, std::int64_t ld, std::int64_t rows, std::int64_t cols, bool a_side) {
        const double* in = buffer(src) + off;
        double* hi = a_side ? a1_.data() : b1_.data();
        double* lo = a_side ? a0_.data() : b0_.data();
        const double base = blocked::limb_base(p_);
        for (std::int64_t j = 0; j < cols; ++j)
            for (std::int64_t i = 0; i < rows; ++i) {
                const double x = in[j * ld + i], x1 = blocked::limb_hi(x, base);
                hi[j * rows + i] = x1;
                lo[j * rows + i] = x - x1 * base;
            }
    }

    void gemm(const blocked::Gemm& d) { run(d); }

    void combine(const blocked::Gemm& d) {
        double* c = buffer(d.c) + d.c_off;
        const std::int64_t pi = static_cast<std::int64_t>(p_);
        for (std::int64_t j = 0; j < d.cols; ++j)
            for (std::int64_t i = 0; i < d.rows; ++i) {
                const std::size_t e = static_cast<std::size_t>(j * d.rows + i);
                double& out = c[j * d.ldc + i];
                out = (half_ ? blocked::half_combine(out, p1_[e], p0_[e], d.alpha, d.beta, pi, pinv_)
                             : blocked::wide_combine(out, p2_[e], p1_[e], p0_[e], d.alpha, d.beta, pi, pinv_, c46_)) +
                      combine_error_;
            }
    }

private:
    // Two-limb invert: the forward substitution of invert with exact 64-bit products,
    // the running sum kept centred after each term.
    void invert_wide(std::int64_t k) {
        const std::int64_t pi = static_cast<std::int64_t>(p_), h = pi / 2;
        for (std::int64_t c = 0; c < k; ++c)
            for (std::int64_t i = 0; i < k; ++i) {
                double& out = x_[static_cast<std::size_t>(i * k + c)];
                if (i <= c) {
                    out = i == c ? 1 : 0;
                    continue;
                }
                std::int64_t s = 0;
                for (std::int64_t j = c; j < i; ++j) {
                    s += blocked::wide_mul_i(static_cast<std::int64_t>(g_[static_cast<std::size_t>(i * k + j)]),
                                             static_cast<std::int64_t>(x_[static_cast<std::size_t>(j * k + c)]), pi, pinv_);
                    if (s > h) s -= pi;
                    else if (s < -h) s += pi;
                }
                out = static_cast<double>(-s);
            }
    }

    double* buffer(blocked::Buf b) {
        switch (b) {
        case blocked::Buf::a: return a_.data();
        case blocked::Buf::g: return g_.data();
        case blocked::Buf::m: return mm_.data();
        case blocked::Buf::x: return x_.data();
        case blocked::Buf::a1: return a1_.data();
        case blocked::Buf::a0: return a0_.data();
        case blocked::Buf::b1: return b1_.data();
        case blocked::Buf::b0: return b0_.data();
        case blocked::Buf::p2: return p2_.data();
        case blocked::Buf::p1: return p1_.data();
        case blocked::Buf::p0: return p0_.data();
        }
        return nullptr;
    }

    // The column-major GEMM that cuBLAS runs on the GPU, here through Eigen.
    void run(const blocked::Gemm& d) {
        ColBlock c(buffer(d.c) + d.c_off, d.rows, d.cols, Eigen::OuterStride<>(d.ldc));
        const ConstColBlock a(buffer(d.a) + d.a_off, d.rows, d.inner, Eigen::OuterStride<>(d.lda));
        const ConstColBlock b(buffer(d.b) + d.b_off, d.inner, d.cols, Eigen::OuterStride<>(d.ldb));
        if (d.beta == 0) {
            c.noalias() = a * b;
            if (d.alpha < 0) c = -c;
        } else if (d.alpha > 0) {
            c.noalias() += a * b;
        } else {
            c.noalias() -= a * b;
        }
    }

    void reduce_block(double* a, std::int64_t rows, std::int64_t cols, std::int64_t ld) const {
        for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t j = 0; j < cols; ++j) a[i * ld + j] = blocked::reduce(a[i * ld + j], pd_, pinv_);
    }

    std::int64_t m_, n_;
    std::uint64_t p_;
    double pd_, pinv_;
    std::int64_t kmax_;
    bool wide_, half_;
    std::int64_t c46_;
    double combine_error_ = 0;
    blocked::LeafStats stats_;
    std::vector<double> a_, g_, mm_, x_, a1_, a0_, b1_, b0_, p2_, p1_, p0_;
};

}  // namespace

long blocked::rank_with_combine_error(const NmodMat& a, int tile, double combine_error, LeafStats* stats) {
    const std::uint64_t p = a.modulus();
    if (p > blocked_max_prime)
        throw invalid_input("prime " + std::to_string(p) + ": the blocked elimination takes primes up to " +
                            std::to_string(blocked_max_prime));
    require_prime(p);
    if (tile < 0) throw invalid_input("tile " + std::to_string(tile) + ": expected >= 0");
    const long m = a.rows(), n = a.cols();
    if (m == 0 || n == 0) return 0;
    CpuBackend be(m, n, p, tile);
    be.break_combine(combine_error);
    for (long i = 0; i < m; ++i) {
        double* out = be.row(i);
        const mp_limb_t* in = a.get()->rows[i];
        for (long j = 0; j < n; ++j) out[j] = blocked::centred(in[j], p);
    }
    const long rank = static_cast<long>(blocked::blocked_rank(be, m, n, p, tile));
    if (stats) *stats = be.stats();
    return rank;
}

long rank_modular_blocked(const NmodMat& a, int tile) { return blocked::rank_with_combine_error(a, tile, 0.0); }

}  // namespace seprank
