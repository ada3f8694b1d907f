// rank_modular_blocked: the CPU backend of the blocked elimination of
// src/blocked_rank_impl.hpp (the reference of the CUDA engine's sr_cuda_rank). The GEMMs
// are Eigen's on doubles, exact because every partial sum is an integer below 2^53.
#include "blocked_rank_impl.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"

#include <Eigen/Core>

#include <flint/nmod_mat.h>

#include <algorithm>
#include <string>
#include <vector>

namespace seprank {

static_assert(blocked_max_prime == blocked::kMaxPrime, "rank.hpp and blocked_rank_impl.hpp name the same limit");

namespace {

using ColBlock = Eigen::Map<Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
using ConstColBlock = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;

// The backend of blocked::Driver on host memory (the operations are documented there).
class CpuBackend {
public:
    CpuBackend(std::int64_t m, std::int64_t n, std::uint64_t p, int tile)
        : m_(m), n_(n), p_(p), pd_(static_cast<double>(p)), pinv_(1.0 / static_cast<double>(p)),
          kmax_(blocked::max_inner(p)), a_(static_cast<std::size_t>(m * n)) {
        const std::int64_t t = blocked::effective_tile(tile, n);
        g_.resize(static_cast<std::size_t>(m * t));
        mm_.resize(static_cast<std::size_t>(m * t));
        x_.resize(static_cast<std::size_t>(t * t));
    }

    double* row(std::int64_t i) { return a_.data() + i * n_; }

    void factor_leaf(std::int64_t r, std::int64_t b0, std::int64_t b1, std::int64_t* piv) {
        const std::int64_t t = b1 - b0;
        std::vector<char> done(static_cast<std::size_t>(m_ - r), 0);
        for (std::int64_t j = 0; j < t; ++j) {
            std::int64_t q = -1;
            for (std::int64_t i = r; i < m_ && q < 0; ++i)
                if (!done[static_cast<std::size_t>(i - r)] && row(i)[b0 + j] != 0) q = i;
            piv[j] = q;
            if (q < 0) continue;
            done[static_cast<std::size_t>(q - r)] = 1;
            const double* pr = row(q) + b0;
            const double inv = blocked::inverse(pr[j], p_);
            for (std::int64_t i = r; i < m_; ++i) {
                double* x = row(i) + b0;
                if (done[static_cast<std::size_t>(i - r)] || x[j] == 0) continue;
                const double l = blocked::mul(x[j], inv, pd_, pinv_);
                x[j] = l;
                for (std::int64_t c = j + 1; c < t; ++c) x[c] = blocked::reduce(x[c] - l * pr[c], pd_, pinv_);
            }
        }
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

private:
    double* buffer(blocked::Buf b) {
        switch (b) {
        case blocked::Buf::a: return a_.data();
        case blocked::Buf::g: return g_.data();
        case blocked::Buf::m: return mm_.data();
        case blocked::Buf::x: return x_.data();
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
    std::vector<double> a_, g_, mm_, x_;
};

}  // namespace

long rank_modular_blocked(const NmodMat& a, int tile) {
    const std::uint64_t p = a.modulus();
    if (p > blocked_max_prime)
        throw invalid_input("prime " + std::to_string(p) + ": the blocked elimination takes primes up to " +
                            std::to_string(blocked_max_prime));
    require_prime(p);
    if (tile < 0) throw invalid_input("tile " + std::to_string(tile) + ": expected >= 0");
    const long m = a.rows(), n = a.cols();
    if (m == 0 || n == 0) return 0;
    CpuBackend be(m, n, p, tile);
    for (long i = 0; i < m; ++i) {
        double* out = be.row(i);
        const mp_limb_t* in = a.get()->rows[i];
        for (long j = 0; j < n; ++j) out[j] = blocked::centred(in[j], p);
    }
    return static_cast<long>(blocked::blocked_rank(be, m, n, p, tile));
}

}  // namespace seprank
