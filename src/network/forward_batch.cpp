#include "seprank/forward_batch.hpp"

#include "forward_avx2.hpp"
#include "forward_ifma.hpp"
#include "forward_impl.hpp"
#include "seprank/error.hpp"
#include "base/word_mod.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <memory_resource>

namespace seprank {

namespace {

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension, as FLINT uses

// Montgomery arithmetic mod an odd p < 2^63 with R = 2^64: a residue x is held as
// x·R mod p in [0, p). redc(T) = T·R⁻¹ mod p for T < p·R.
struct Montgomery {
    std::uint64_t p = 0, neg_pinv = 0, r2 = 0;  // −p⁻¹ mod 2^64, R² mod p

    explicit Montgomery(std::uint64_t modulus) : p(modulus) {
        neg_pinv = 0 - detail::inverse_mod_2_64(p);
        const std::uint64_t r1 = (0 - p) % p;  // 2^64 mod p
        r2 = static_cast<std::uint64_t>(static_cast<u128>(r1) * r1 % p);
    }
    // T < p·2^64 (so T + m·p < 2^128 for p < 2^63); result in [0, p).
    std::uint64_t redc(u128 t) const {
        const std::uint64_t m = static_cast<std::uint64_t>(t) * neg_pinv;
        const std::uint64_t u = static_cast<std::uint64_t>((t + static_cast<u128>(m) * p) >> 64);
        return u >= p ? u - p : u;
    }
    std::uint64_t mul(std::uint64_t a, std::uint64_t b) const { return redc(static_cast<u128>(a) * b); }
    std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
        const std::uint64_t s = a + b;  // < 2^64 since a, b < p < 2^63
        return s >= p ? s - p : s;
    }
    std::uint64_t to(std::uint64_t x) const { return mul(x % p, r2); }
    std::uint64_t from(std::uint64_t x) const { return redc(x); }
};

constexpr int kLanes = ModBatchEvaluator::lanes;

struct Lanes {
    std::array<std::uint64_t, kLanes> v;
};

// Ring policy of detail::Forward over lanes of Montgomery residues; weights are scalar
// Montgomery residues (forward_impl.hpp lists the operations).
struct LaneRing {
    using E = Lanes;
    using W = std::uint64_t;
    Montgomery m;
    long batch = static_cast<long>(~std::uint64_t{0} / m.p);  // products per redc in dot_row: batch·p < 2^64
    E broadcast(std::uint64_t x) const {
        E e;
        e.v.fill(x);
        return e;
    }
    E zero() const { return broadcast(0); }
    E constant(long c) const {
        return broadcast(m.to(detail::residue_of(c, m.p)));
    }
    E mul(const E& a, const E& b) const {
        E r;
        for (int l = 0; l < kLanes; ++l) r.v[l] = m.mul(a.v[l], b.v[l]);
        return r;
    }
    void add(E& acc, const E& x) const {
        for (int l = 0; l < kLanes; ++l) acc.v[l] = m.add(acc.v[l], x.v[l]);
    }
    void axpy(E& acc, W w, const E& x) const {
        for (int l = 0; l < kLanes; ++l) acc.v[l] = m.add(acc.v[l], m.mul(w, x.v[l]));
    }
    // Row a of M times x with delayed reduction: up to `batch` products w·x < p² are summed
    // in 128 bits before one redc (k·p² < p·2^64 as long as k·p < 2^64), instead of one
    // redc per product: half the word multiplications of axpy for dx = 4.
    E dot_row(const Dense<W>& mat, long a, const E* x) const {
        E acc = zero();
        std::array<u128, kLanes> t{};
        long k = 0;
        auto flush = [&] {
            for (int l = 0; l < kLanes; ++l) {
                acc.v[l] = m.add(acc.v[l], m.redc(t[l]));
                t[l] = 0;
            }
            k = 0;
        };
        const W* row = mat.a.data() + a * mat.cols;
        for (long c = 0; c < mat.cols; ++c) {
            const W w = row[c];
            if (w == 0) continue;
            for (int l = 0; l < kLanes; ++l) t[l] += static_cast<u128>(w) * x[c].v[l];
            if (++k == batch) flush();
        }
        if (k > 0) flush();
        return acc;
    }
    bool is_zero(W w) const { return w == 0; }
    W weight_zero() const { return 0; }
    W weight_fma(W s, W a, W b) const { return m.add(s, m.mul(a, b)); }
};

// Which vector kernels SEPRANK_SIMD allows (read each time: a test may switch it): "0"
// none (the scalar Montgomery lanes), "avx2" the AVX2/FMA kernel only (to test it on a
// processor that also has IFMA), anything else or unset every kernel.
enum class SimdSetting { none, avx2, all };
SimdSetting simd_setting() {
    const char* env = std::getenv("SEPRANK_SIMD");
    if (env == nullptr) return SimdSetting::all;
    if (std::strcmp(env, "0") == 0) return SimdSetting::none;
    if (std::strcmp(env, "avx2") == 0) return SimdSetting::avx2;
    return SimdSetting::all;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Whether the processor (and the OS, which libgcc's check includes) has the instructions.
bool cpu_has_ifma() {
    static const bool cpu = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512ifma");
    }();
    return cpu;
}
bool cpu_has_avx2() {
    static const bool cpu = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return cpu;
}
#else
bool cpu_has_ifma() { return false; }
bool cpu_has_avx2() { return false; }
#endif

// Whether the AVX-512 IFMA kernel may run: built in, the processor supports it, and
// SEPRANK_SIMD allows it.
bool ifma_usable() { return detail::ifma_built() && cpu_has_ifma() && simd_setting() == SimdSetting::all; }
// The same for the AVX2/FMA kernel.
bool avx2_usable() { return detail::avx2_built() && cpu_has_avx2() && simd_setting() != SimdSetting::none; }

bool ifma_prime(std::uint64_t p) { return p % 2 == 1 && p >= 3 && p < (std::uint64_t{1} << 52); }
bool avx2_prime(std::uint64_t p) { return p % 2 == 1 && p >= 3 && p < detail::kAvx2ModulusLimit; }

// The kernels' names (kernel(), kernel_for); the constructor compares kernel_for's
// answer with these pointers.
constexpr const char* kIfmaName = "avx512-ifma";
constexpr const char* kAvx2Name = "avx2-fma";
constexpr const char* kLanesName = "montgomery";
constexpr const char* kOnePointName = "one point";

std::uint64_t checked_modulus(std::uint64_t p) {
    if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
    return p;
}

}  // namespace

struct ModBatchEvaluator::Impl {
    NetworkSpec spec;
    LaneRing ring;
    NetWeights<std::uint64_t> w;  // Montgomery form
    std::unique_ptr<detail::SimdEvaluator> simd;  // a vector kernel, when one is usable for p
    const char* simd_name = nullptr;               // its kernel() name
};

ModBatchEvaluator::ModBatchEvaluator(const Network& net, std::uint64_t p)
    : p_(checked_modulus(p)),
      width_(static_cast<std::size_t>(net.spec.tokens * input_vars_per_token(net.spec))),
      scalar_(net, p) {
    const char* kernel = kernel_for(p);  // the one selection rule
    if (kernel != kOnePointName) {
        const Montgomery m(p);
        impl_ = std::make_unique<Impl>(Impl{net.spec, LaneRing{m},
                                            map_weights<std::uint64_t>(net.weights, [&m](const Rational& x) { return m.to(x.mod(m.p)); }),
                                            nullptr, nullptr});
        if (kernel == kIfmaName) impl_->simd = detail::make_ifma_evaluator(net, p, width_);
        if (kernel == kAvx2Name) impl_->simd = detail::make_avx2_evaluator(net, p, width_);
        if (impl_->simd) impl_->simd_name = kernel;
    }
}

ModBatchEvaluator::~ModBatchEvaluator() = default;
ModBatchEvaluator::ModBatchEvaluator(ModBatchEvaluator&&) = default;
ModBatchEvaluator& ModBatchEvaluator::operator=(ModBatchEvaluator&&) = default;

void ModBatchEvaluator::evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const {
    const NetworkSpec& s = scalar_.spec();
    const std::size_t ntok = static_cast<std::size_t>(s.tokens);
    const std::size_t per = static_cast<std::size_t>(input_vars_per_token(s));
    if (!impl_) {
        Point<std::uint64_t> x(ntok, std::vector<std::uint64_t>(per));
        for (std::size_t q = 0; q < count; ++q) {
            for (std::size_t t = 0; t < ntok; ++t)
                for (std::size_t c = 0; c < per; ++c) x[t][c] = points[q * width_ + t * per + c] % p_;
            out[q] = scalar_(x);
        }
        return;
    }
    if (impl_->simd) return impl_->simd->evaluate(points, count, out);
    const LaneRing& ring = impl_->ring;
    const Montgomery& m = ring.m;
    Point<Lanes> x(ntok, std::vector<Lanes>(per, ring.zero()));
    // The pass allocates its temporaries from this thread's arena (no malloc per pass).
    thread_local std::array<std::byte, 1 << 18> buffer;
    for (std::size_t q0 = 0; q0 < count; q0 += kLanes) {
        const std::size_t n = std::min<std::size_t>(kLanes, count - q0);
        for (std::size_t t = 0; t < ntok; ++t)
            for (std::size_t c = 0; c < per; ++c)
                for (std::size_t l = 0; l < kLanes; ++l)  // idle lanes repeat the last point
                    x[t][c].v[l] = m.to(points[(q0 + std::min(l, n - 1)) * width_ + t * per + c]);
        std::pmr::monotonic_buffer_resource arena(buffer.data(), buffer.size());
        LaneRing r = ring;
        const Lanes y = detail::Forward<LaneRing>(impl_->spec, impl_->w, r, &arena).output(x);
        for (std::size_t l = 0; l < n; ++l) out[q0 + l] = m.from(y.v[l]);
    }
}

const char* ModBatchEvaluator::kernel() const noexcept {
    if (!impl_) return kOnePointName;
    return impl_->simd ? impl_->simd_name : kLanesName;
}

bool ModBatchEvaluator::simd_available() noexcept { return ifma_usable(); }

const char* ModBatchEvaluator::kernel_for(std::uint64_t p) noexcept {
    // Montgomery lanes need p odd and below 2^63; of the vector kernels that take p, the
    // fastest: IFMA (R = 2^52), then AVX2/FMA (doubles).
    if (p % 2 == 0 || p >= (std::uint64_t{1} << 63)) return kOnePointName;
    if (ifma_prime(p) && ifma_usable()) return kIfmaName;
    return avx2_prime(p) && avx2_usable() ? kAvx2Name : kLanesName;
}

std::uint64_t ModBatchEvaluator::operator()(const Point<std::uint64_t>& point) const {
    check_point(scalar_.spec(), point);
    std::vector<std::uint64_t> flat;
    flat.reserve(width_);
    for (const auto& t : point) flat.insert(flat.end(), t.begin(), t.end());
    std::uint64_t y = 0;
    evaluate(flat.data(), 1, &y);
    return y;
}

}  // namespace seprank
