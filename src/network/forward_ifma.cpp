#include "forward_ifma.hpp"

#if defined(SEPRANK_HAVE_IFMA)

// Everything shared with the rest of the library is parsed first, for plain x86-64:
// inline functions of these headers (std::string, std::to_string, the error types, ...)
// are emitted here as weak symbols and the linker keeps one copy for the whole library,
// so no such copy may hold an AVX instruction (tests/simd_symbols_test.py checks it).
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

// Only what follows is compiled for AVX-512 IFMA: the forward pass templates (instantiated
// here over IfmaRing, a type of this file's anonymous namespace, so their code is this
// file's own) and the kernel. The private headers' non-template inline functions get
// their own names here (SEPRANK_KERNEL_NS), so no copy of them is shared either.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512ifma")
#define SEPRANK_KERNEL_NS ifma
#include "forward_impl.hpp"

namespace seprank::detail {

namespace {

__extension__ typedef unsigned __int128 u128;

constexpr std::uint64_t kMask52 = (std::uint64_t{1} << 52) - 1;
constexpr int kVecs = 2;              // 512-bit registers per element
constexpr int kLanes = 8 * kVecs;     // points per pass

// Montgomery arithmetic mod an odd p < 2^52 with R = 2^52, scalar (weights, set-up).
struct Mont52 {
    std::uint64_t p = 0, q = 0, r2 = 0, r3 = 0;  // q = −p⁻¹ mod 2^52, R² and R³ mod p
    explicit Mont52(std::uint64_t modulus) : p(modulus) {
        q = (0 - inverse_mod_2_64(p)) & kMask52;
        r2 = static_cast<std::uint64_t>((static_cast<u128>(1) << 104) % p);
        r3 = static_cast<std::uint64_t>((static_cast<u128>(r2) << 52) % p);
    }
    // a·b·R⁻¹ mod p for a·b < p·R.
    std::uint64_t mul(std::uint64_t a, std::uint64_t b) const {
        const u128 t = static_cast<u128>(a) * b;
        const std::uint64_t m = (static_cast<std::uint64_t>(t) * q) & kMask52;
        const std::uint64_t u = static_cast<std::uint64_t>((t + static_cast<u128>(m) * p) >> 52);
        return u >= p ? u - p : u;
    }
    std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
        const std::uint64_t s = a + b;
        return s >= p ? s - p : s;
    }
    std::uint64_t to(std::uint64_t x) const { return static_cast<std::uint64_t>((static_cast<u128>(x % p) << 52) % p); }
};

// One ring element: 16 residues (Montgomery form, in [0, p)), one per point.
struct alignas(64) V {
    __m512i v[kVecs];
};
struct W52 {  // a weight: one scalar residue in Montgomery form (its own type: see the header)
    std::uint64_t v = 0;
};

// Ring policy of Forward (forward_impl.hpp) over V with scalar weights W52.
struct IfmaRing {
    using E = V;
    using W = W52;
    Mont52 m;
    long batch;  // products per reduction in dot_row: batch·p² <= p·2^52 and the low sums fit 64 bits
    __m512i P, Q, zero_v, one_v;

    explicit IfmaRing(const Mont52& mm)
        : m(mm),
          batch(static_cast<long>(std::min<std::uint64_t>((std::uint64_t{1} << 52) / mm.p, 2048))),
          P(_mm512_set1_epi64(static_cast<long long>(mm.p))),
          Q(_mm512_set1_epi64(static_cast<long long>(mm.q))),
          zero_v(_mm512_setzero_si512()),
          one_v(_mm512_set1_epi64(1)) {}

    // x − p where x >= p, else x: x < 2p, and x − p wraps above 2^63 when x < p.
    __m512i reduce(__m512i x) const { return _mm512_min_epu64(x, _mm512_sub_epi64(x, P)); }
    // (hi·2^52 + lo)·R⁻¹ mod p for hi·2^52 + lo < p·R, lo < 2^52. With m = lo·q mod 2^52,
    // lo + low52(m·p) ≡ 0 (mod 2^52) and both terms are below 2^52, so their sum is 0
    // when lo = 0 (then m = 0) and exactly 2^52 otherwise: the carry into bit 52 is
    // [lo ≠ 0], a compare instead of a third multiply-add.
    __m512i redc(__m512i hi, __m512i lo) const {
        const __m512i mm = _mm512_madd52lo_epu64(zero_v, lo, Q);
        const __m512i r = _mm512_madd52hi_epu64(hi, mm, P);
        const __mmask8 carry = _mm512_test_epi64_mask(lo, lo);
        return reduce(_mm512_mask_add_epi64(r, carry, r, one_v));
    }
    __m512i mul1(__m512i a, __m512i b) const {
        return redc(_mm512_madd52hi_epu64(zero_v, a, b), _mm512_madd52lo_epu64(zero_v, a, b));
    }

    E broadcast(std::uint64_t x) const {
        E e;
        for (int k = 0; k < kVecs; ++k) e.v[k] = _mm512_set1_epi64(static_cast<long long>(x));
        return e;
    }
    E zero() const { return broadcast(0); }
    E constant(long c) const {
        return broadcast(m.to(residue_of(c, m.p)));
    }
    E mul(const E& a, const E& b) const {
        E r;
        for (int k = 0; k < kVecs; ++k) r.v[k] = mul1(a.v[k], b.v[k]);
        return r;
    }
    void add(E& acc, const E& x) const {
        for (int k = 0; k < kVecs; ++k) acc.v[k] = reduce(_mm512_add_epi64(acc.v[k], x.v[k]));
    }
    void axpy(E& acc, W w, const E& x) const {
        const __m512i ww = _mm512_set1_epi64(static_cast<long long>(w.v));
        for (int k = 0; k < kVecs; ++k) acc.v[k] = reduce(_mm512_add_epi64(acc.v[k], mul1(ww, x.v[k])));
    }
    // Row a of M times x with delayed reduction: the 104-bit products are summed as two
    // 64-bit halves (low 52 bits, high part) over up to `batch` columns, then one redc.
    E dot_row(const Dense<W>& mat, long a, const E* x) const {
        E acc = zero();
        __m512i hi[kVecs], lo[kVecs];
        auto clear = [&] {
            for (int k = 0; k < kVecs; ++k) hi[k] = lo[k] = zero_v;
        };
        auto flush = [&] {
            for (int k = 0; k < kVecs; ++k) {
                const __m512i h = _mm512_add_epi64(hi[k], _mm512_srli_epi64(lo[k], 52));
                const __m512i l = _mm512_and_si512(lo[k], _mm512_set1_epi64(static_cast<long long>(kMask52)));
                acc.v[k] = reduce(_mm512_add_epi64(acc.v[k], redc(h, l)));
            }
            clear();
        };
        clear();
        long n = 0;
        const W* row = mat.a.data() + a * mat.cols;
        for (long c = 0; c < mat.cols; ++c) {
            if (row[c].v == 0) continue;
            const __m512i ww = _mm512_set1_epi64(static_cast<long long>(row[c].v));
            for (int k = 0; k < kVecs; ++k) {
                lo[k] = _mm512_madd52lo_epu64(lo[k], ww, x[c].v[k]);
                hi[k] = _mm512_madd52hi_epu64(hi[k], ww, x[c].v[k]);
            }
            if (++n == batch) {
                flush();
                n = 0;
            }
        }
        if (n > 0) flush();
        return acc;
    }
    bool is_zero(W w) const { return w.v == 0; }
    W weight_zero() const { return W{}; }
    W weight_fma(W s, W a, W b) const { return W{m.add(s.v, m.mul(a.v, b.v))}; }

    // x·R mod p for any 64-bit x: x = xh·2^52 + xl, x·R ≡ redc(xl·R²) + redc(xh·R³).
    __m512i to_mont(__m512i x) const {
        const __m512i xl = _mm512_and_si512(x, _mm512_set1_epi64(static_cast<long long>(kMask52)));
        const __m512i xh = _mm512_srli_epi64(x, 52);
        const __m512i a = mul1(xl, _mm512_set1_epi64(static_cast<long long>(m.r2)));
        const __m512i b = mul1(xh, _mm512_set1_epi64(static_cast<long long>(m.r3)));
        return reduce(_mm512_add_epi64(a, b));
    }
    __m512i from_mont(__m512i y) const { return redc(zero_v, y); }
};

class IfmaEvaluator final : public SimdEvaluator {
public:
    IfmaEvaluator(const Network& net, std::uint64_t p, std::size_t width)
        : spec_(net.spec),
          ring_(Mont52(p)),
          w_(map_weights<W52>(net.weights, [this](const Rational& x) { return W52{ring_.m.to(x.mod(ring_.m.p))}; })),
          width_(width) {}

    void evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const override {
        const std::size_t ntok = static_cast<std::size_t>(spec_.tokens);
        const std::size_t per = width_ / (ntok == 0 ? 1 : ntok);
        std::vector<std::vector<V>> x(ntok, std::vector<V>(per));
        thread_local std::array<std::byte, 1 << 19> buffer;  // twice the scalar lanes' arena: elements are 128 bytes
        alignas(64) std::array<std::uint64_t, kLanes> tmp;
        for (std::size_t q0 = 0; q0 < count; q0 += kLanes) {
            const std::size_t n = std::min<std::size_t>(kLanes, count - q0);
            for (std::size_t t = 0; t < ntok; ++t)
                for (std::size_t c = 0; c < per; ++c) {
                    for (std::size_t l = 0; l < kLanes; ++l)  // idle lanes repeat the last point
                        tmp[l] = points[(q0 + std::min(l, n - 1)) * width_ + t * per + c];
                    for (int k = 0; k < kVecs; ++k) x[t][c].v[k] = ring_.to_mont(_mm512_load_si512(tmp.data() + 8 * k));
                }
            std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size());
            IfmaRing r = ring_;
            const V y = Forward<IfmaRing>(spec_, w_, r, &arena).output(x);
            for (int k = 0; k < kVecs; ++k) _mm512_store_si512(tmp.data() + 8 * k, ring_.from_mont(y.v[k]));
            for (std::size_t l = 0; l < n; ++l) out[q0 + l] = tmp[l];
        }
    }

private:
    NetworkSpec spec_;
    IfmaRing ring_;
    NetWeights<W52> w_;
    std::size_t width_;
};

}  // namespace

}  // namespace seprank::detail

#pragma GCC pop_options

namespace seprank::detail {

bool ifma_built() noexcept { return true; }

std::unique_ptr<SimdEvaluator> make_ifma_evaluator(const Network& net, std::uint64_t p, std::size_t width) {
    // The multiply-adds read 52 bits of each operand: a larger p would be truncated
    // silently, so it gets no kernel (no exception here: see the header on what this file
    // may define).
    if (p < 3 || p % 2 == 0 || p >= (std::uint64_t{1} << 52)) return nullptr;
    return std::make_unique<IfmaEvaluator>(net, p, width);
}

}  // namespace seprank::detail

#else  // built without SEPRANK_HAVE_IFMA (-Dsimd=disabled, or the compiler lacks the instructions): no kernel

namespace seprank::detail {

bool ifma_built() noexcept { return false; }

std::unique_ptr<SimdEvaluator> make_ifma_evaluator(const Network&, std::uint64_t, std::size_t) { return nullptr; }

}  // namespace seprank::detail

#endif
