#include "forward_avx2.hpp"

#if defined(SEPRANK_HAVE_AVX2)

// As in forward_ifma.cpp: everything shared with the rest of the library is parsed first,
// for plain x86-64, so that no weak copy of a common inline function holds an AVX
// instruction (tests/simd_symbols_test.py checks it).
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "base/word_mod.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <memory_resource>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

// Only what follows is compiled for AVX2 and FMA (see forward_ifma.cpp on the inline
// namespace of the private headers). The file is built with -ffp-contract=off: the
// exactness argument of mul1 needs h = a·b rounded on its own, never fused into a sum.
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#define SEPRANK_KERNEL_NS avx2
#include "forward_impl.hpp"

namespace seprank::detail {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr int kVecs = 4;           // 256-bit registers per element
constexpr int kLanes = 4 * kVecs;  // points per pass

// One ring element: 16 residues as doubles in [0, p), one per point.
struct alignas(32) V {
    __m256d v[kVecs];
};
struct WD {  // a weight: one residue in [0, p) as a double (its own type: see forward_ifma.hpp)
    double v = 0;
};

// Ring policy of Forward (forward_impl.hpp) over V with scalar weights WD.
struct Avx2Ring {
    using E = V;
    using W = WD;
    std::uint64_t p;
    __m256d P, PINV, ZERO, ONE, C32;  // p, 1/p rounded, 0, 1, 2^32 mod p

    explicit Avx2Ring(std::uint64_t modulus)
        : p(modulus),
          P(_mm256_set1_pd(static_cast<double>(modulus))),
          PINV(_mm256_set1_pd(1.0 / static_cast<double>(modulus))),
          ZERO(_mm256_setzero_pd()),
          ONE(_mm256_set1_pd(1.0)),
          C32(_mm256_set1_pd(static_cast<double>((std::uint64_t{1} << 32) % modulus))) {}

    // a·b mod p in [0, p) for integers 0 <= a < 2^50, 0 <= b < p < 2^50 (so a·b < 2^100 and
    // a·b/p < 2^50). h = fl(a·b) is an integer (a multiple of its ulp, at most 2^47) and
    // l = a·b − h is exact (|l| <= 2^46, the fused multiply-subtract's one rounding is of
    // an exact value). q = round(fl(h·fl(1/p))) differs from a·b/p by at most 0.5 +
    // 2^50·3·2^-53 ≈ 0.875, so h − q·p is an integer below 2^51 in magnitude and the
    // fused multiply-add computes it exactly; r = a·b − q·p lies in (−p, p), and one
    // conditional +p brings it into [0, p).
    __m256d mul1(__m256d a, __m256d b) const {
        const __m256d h = _mm256_mul_pd(a, b);
        const __m256d l = _mm256_fmsub_pd(a, b, h);
        const __m256d q = _mm256_round_pd(_mm256_mul_pd(h, PINV), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256d r = _mm256_add_pd(_mm256_fnmadd_pd(q, P, h), l);
        return _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, ZERO, _CMP_LT_OQ), P));
    }
    // a + b mod p for a, b in [0, p): the sum < 2^51 is exact.
    __m256d add1(__m256d a, __m256d b) const {
        const __m256d s = _mm256_add_pd(a, b);
        return _mm256_sub_pd(s, _mm256_and_pd(_mm256_cmp_pd(s, P, _CMP_GE_OQ), P));
    }

    E broadcast(double x) const {
        E e;
        for (int k = 0; k < kVecs; ++k) e.v[k] = _mm256_set1_pd(x);
        return e;
    }
    E zero() const { return broadcast(0.0); }
    E constant(long c) const { return broadcast(static_cast<double>(residue_of(c, p))); }
    E mul(const E& a, const E& b) const {
        E r;
        for (int k = 0; k < kVecs; ++k) r.v[k] = mul1(a.v[k], b.v[k]);
        return r;
    }
    void add(E& acc, const E& x) const {
        for (int k = 0; k < kVecs; ++k) acc.v[k] = add1(acc.v[k], x.v[k]);
    }
    void axpy(E& acc, W w, const E& x) const {
        const __m256d ww = _mm256_set1_pd(w.v);
        for (int k = 0; k < kVecs; ++k) acc.v[k] = add1(acc.v[k], mul1(ww, x.v[k]));
    }
    bool is_zero(W w) const { return w.v == 0; }
    W weight_zero() const { return W{}; }
    W weight_fma(W s, W a, W b) const {
        const u128 t = static_cast<u128>(static_cast<std::uint64_t>(a.v)) * static_cast<std::uint64_t>(b.v) +
                       static_cast<std::uint64_t>(s.v);
        return W{static_cast<double>(static_cast<std::uint64_t>(t % p))};
    }

    // x mod p for any 64-bit x given as its halves x = hi·2^32 + lo (each an exact
    // double below 2^32): hi·(2^32 mod p) + lo·1, each product reduced by mul1.
    __m256d reduce_halves(__m256d hi, __m256d lo) const { return add1(mul1(hi, C32), mul1(lo, ONE)); }
};

class Avx2Evaluator final : public SimdEvaluator {
public:
    Avx2Evaluator(const Network& net, std::uint64_t p, std::size_t width)
        : spec_(net.spec),
          ring_(p),
          w_(map_weights<WD>(net.weights, [p](const Rational& x) { return WD{static_cast<double>(x.mod(p))}; })),
          width_(width) {}

    void evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const override {
        const std::size_t ntok = static_cast<std::size_t>(spec_.tokens);
        const std::size_t per = width_ / (ntok == 0 ? 1 : ntok);
        std::vector<std::vector<V>> x(ntok, std::vector<V>(per));
        thread_local std::array<std::byte, 1 << 19> buffer;  // as the IFMA kernel's: elements are 128 bytes
        alignas(32) std::array<double, kLanes> hi, lo;
        for (std::size_t q0 = 0; q0 < count; q0 += kLanes) {
            const std::size_t n = std::min<std::size_t>(kLanes, count - q0);
            for (std::size_t t = 0; t < ntok; ++t)
                for (std::size_t c = 0; c < per; ++c) {
                    for (std::size_t l = 0; l < kLanes; ++l) {  // idle lanes repeat the last point
                        const std::uint64_t v = points[(q0 + std::min(l, n - 1)) * width_ + t * per + c];
                        hi[l] = static_cast<double>(v >> 32);
                        lo[l] = static_cast<double>(v & 0xffffffffu);
                    }
                    for (int k = 0; k < kVecs; ++k)
                        x[t][c].v[k] = ring_.reduce_halves(_mm256_load_pd(hi.data() + 4 * k), _mm256_load_pd(lo.data() + 4 * k));
                }
            std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size());
            Avx2Ring r = ring_;
            const V y = Forward<Avx2Ring>(spec_, w_, r, &arena).output(x);
            for (int k = 0; k < kVecs; ++k) _mm256_store_pd(hi.data() + 4 * k, y.v[k]);
            for (std::size_t l = 0; l < n; ++l) out[q0 + l] = static_cast<std::uint64_t>(hi[l]);
        }
    }

private:
    NetworkSpec spec_;
    Avx2Ring ring_;
    NetWeights<WD> w_;
    std::size_t width_;
};

}  // namespace

}  // namespace seprank::detail

#pragma GCC pop_options

namespace seprank::detail {

bool avx2_built() noexcept { return true; }

std::unique_ptr<SimdEvaluator> make_avx2_evaluator(const Network& net, std::uint64_t p, std::size_t width) {
    // Above 2^50 the products are no longer exact: no kernel (no exception here, as in
    // forward_ifma.cpp).
    if (p < 3 || p % 2 == 0 || p >= kAvx2ModulusLimit) return nullptr;
    return std::make_unique<Avx2Evaluator>(net, p, width);
}

}  // namespace seprank::detail

#else  // built without SEPRANK_HAVE_AVX2 (-Dsimd=disabled, or the compiler lacks the instructions): no kernel

namespace seprank::detail {

bool avx2_built() noexcept { return false; }

std::unique_ptr<SimdEvaluator> make_avx2_evaluator(const Network&, std::uint64_t, std::size_t) { return nullptr; }

}  // namespace seprank::detail

#endif
