// Private: the arithmetic of a forward tape (include/seprank/tape.hpp), shared by the CPU
// interpreter (src/network/tape.cpp, g++) and the CUDA kernel (cuda/tape.cu, nvcc), so that both
// compute every instruction with the same word operations and give the same residues.
//
// FLINT-free and library-free: plain 64-bit integers only. Under nvcc every function is
// __host__ __device__; the one primitive that differs, the high word of a 64×64-bit
// product, is __umul64hi on the device and unsigned __int128 on the host (the same value).
//
// Residues are held in one of these forms, chosen by the modulus:
//   Mont    p odd, 3 <= p < 2^63: Montgomery form x·2^64 mod p in [0, p); a product is
//           three word multiplications (REDC), no division. The tape is recorded in it.
//   Mont32  p odd, 3 <= p < 2^31: Montgomery form x·2^32 mod p; a product is one 32×32→64-bit
//           multiplication and a 32-bit REDC, several times cheaper than Mont's 64-bit words
//           on a GPU (which has no 64-bit multiplier). The GPU runs a tape in it for such
//           primes: narrow() converts a recorded tape's constants (w·2^-32 mod p, one REDC),
//           and the coordinates must be below 2^32 (the plugin reduces the points mod p).
//   Two     p = 2: x in {0, 1}; product a AND b, sum a XOR b.
// Instruction semantics (opcodes SR_TAPE_* of cuda/seprank_cuda.h; w is in the form above):
//   ZERO  s[dst] = 0                 CONST s[dst] = w
//   INPUT s[dst] = to(point[a])      MUL   s[dst] = s[a]·s[b]
//   ADD   s[dst] = s[a] + s[b]       AXPY  s[dst] = s[a] + w·s[b]
//   SCALE s[dst] = w·s[a]            COPY  s[dst] = s[a]
//   ADDC  s[dst] = s[a] + w
// Operands are read before dst is written, so dst may equal a or b.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define SR_TAPE_HD __host__ __device__ __forceinline__
#else
#define SR_TAPE_HD inline
#endif

namespace seprank::tape {

// Opcodes (the values of SR_TAPE_* in cuda/seprank_cuda.h; tape.cpp checks they agree).
inline constexpr std::uint32_t op_zero = 0;
inline constexpr std::uint32_t op_const = 1;
inline constexpr std::uint32_t op_input = 2;
inline constexpr std::uint32_t op_mul = 3;
inline constexpr std::uint32_t op_add = 4;
inline constexpr std::uint32_t op_axpy = 5;
inline constexpr std::uint32_t op_scale = 6;
inline constexpr std::uint32_t op_copy = 7;
inline constexpr std::uint32_t op_addc = 8;
inline constexpr std::uint32_t op_count = 9;

// High word of a·b.
SR_TAPE_HD std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    __extension__ typedef unsigned __int128 u128;
    return static_cast<std::uint64_t>((static_cast<u128>(a) * b) >> 64);
#endif
}

// Montgomery arithmetic mod an odd p < 2^63 with R = 2^64.
struct Mont {
    std::uint64_t p = 0;
    std::uint64_t neg_pinv = 0;  // −p⁻¹ mod 2^64
    std::uint64_t r2 = 0;        // R² mod p

    // REDC of T = hi·2^64 + lo < p·2^64: T·R⁻¹ mod p in [0, p). With m = lo·(−p⁻¹) mod 2^64,
    // T + m·p is divisible by 2^64; its low words add to 0 mod 2^64 with a carry exactly
    // when lo != 0, so the quotient is hi + hi(m·p) + [lo != 0] < 2p < 2^64.
    SR_TAPE_HD std::uint64_t redc(std::uint64_t hi, std::uint64_t lo) const {
        const std::uint64_t m = lo * neg_pinv;
        const std::uint64_t u = hi + mul_hi(m, p) + (lo != 0 ? 1u : 0u);
        return u >= p ? u - p : u;
    }
    // a·b·R⁻¹ mod p; a·b < p·2^64 (true when a < p or b < p, the other below 2^64).
    SR_TAPE_HD std::uint64_t mul(std::uint64_t a, std::uint64_t b) const { return redc(mul_hi(a, b), a * b); }
    // a + b mod p for a, b < p (no overflow: p < 2^63).
    SR_TAPE_HD std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
        const std::uint64_t s = a + b;
        return s >= p ? s - p : s;
    }
    // Any 64-bit x (reduced or not) into Montgomery form: x·R² < 2^64·p, so REDC applies.
    SR_TAPE_HD std::uint64_t to(std::uint64_t x) const { return mul(x, r2); }
    // Out of Montgomery form: the residue in [0, p).
    SR_TAPE_HD std::uint64_t from(std::uint64_t x) const { return redc(0, x); }
    // The factor c with mul(x, c) = λ·x in Montgomery form for any 64-bit x: λ·R² mod p.
    std::uint64_t input_scale(std::uint64_t lambda) const { return mul(to(lambda), r2); }
};

// Montgomery arithmetic mod an odd p < 2^31 with R = 2^32. Residues in [0, p) are passed in
// 64-bit words (the interpreter's slot type; the GPU kernel holds them in 32-bit slots,
// cuda/tape_kernel.cuh's SlotWord) but computed in 32-bit ones: every product is one
// 32×32→64-bit multiplication, and each operation casts its operands to 32 bits and returns
// a 32-bit value, zero-extended, so that a GPU compiler keeps one register per slot and no
// 64-bit emulation (the frontier network's compiled kernel, 1,107 instructions: 8,144 sm_90
// instructions in 72 registers, against 17,168 in 168 when the same steps ran on 64-bit
// words; bench/GPU.md, "Mont32 in 32-bit words").
struct Mont32 {
    std::uint64_t p = 0;
    std::uint32_t neg_pinv = 0;  // −p⁻¹ mod 2^32
    std::uint64_t r2 = 0;        // R² mod p

    // REDC of t < p·2^32: t·2^-32 mod p in [0, p). m = t·(−p⁻¹) mod 2^32 makes t + m·p
    // divisible by 2^32; t + m·p < 2^63 + 2^63 does not overflow, and the quotient u is
    // < 2p < 2^32. u − p wraps above u exactly when u < p, so the smaller of the two is the
    // residue (one subtraction and one minimum, no branch).
    SR_TAPE_HD std::uint64_t redc(std::uint64_t t) const {
        const std::uint32_t q = static_cast<std::uint32_t>(p);
        const std::uint32_t m = static_cast<std::uint32_t>(t) * neg_pinv;
        const std::uint32_t u = static_cast<std::uint32_t>((t + static_cast<std::uint64_t>(m) * q) >> 32);
        const std::uint32_t v = u - q;
        return v < u ? v : u;
    }
    // a·b·2^-32 mod p for a, b < 2^32 with a·b < p·2^32 (true when one is below p).
    SR_TAPE_HD std::uint64_t mul(std::uint64_t a, std::uint64_t b) const {
        return redc(static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) * static_cast<std::uint32_t>(b));
    }
    // a + b mod p for a, b < p (the sum is below 2^32: p < 2^31); as redc, the smaller of
    // s and s − p.
    SR_TAPE_HD std::uint64_t add(std::uint64_t a, std::uint64_t b) const {
        const std::uint32_t s = static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b);
        const std::uint32_t v = s - static_cast<std::uint32_t>(p);
        return v < s ? v : s;
    }
    // x < 2^32 (reduced or not) into Montgomery form.
    SR_TAPE_HD std::uint64_t to(std::uint64_t x) const { return mul(x, r2); }
    SR_TAPE_HD std::uint64_t from(std::uint64_t x) const { return redc(x); }
    // The factor c with mul(x, c) = λ·x in Montgomery form for any x < 2^32: λ·R² mod p.
    std::uint64_t input_scale(std::uint64_t lambda) const { return mul(to(lambda % p), r2); }
    // A constant of a recorded tape (Mont form, w = x·2^64 mod p < p) in this form: x·2^32
    // mod p = w·2^-32 mod p, one REDC.
    std::uint64_t narrow(std::uint64_t w) const { return redc(w); }
};

// Host set-up of Mont32 for an odd p < 2^31 (unchecked precondition).
inline Mont32 make_mont32(std::uint64_t p) {
    Mont32 m;
    m.p = p;
    std::uint32_t inv = static_cast<std::uint32_t>(p);  // Newton, as make_mont
    for (int i = 0; i < 4; ++i) inv *= 2u - static_cast<std::uint32_t>(p) * inv;
    m.neg_pinv = 0u - inv;
    const std::uint64_t r1 = (std::uint64_t{1} << 32) % p;  // 2^32 mod p
    m.r2 = r1 * r1 % p;                                      // r1 < 2^31: the square fits
    return m;
}

// Whether the GPU runs a tape mod p in Mont32: odd p below 2^31.
inline bool narrow_prime(std::uint64_t p) { return p % 2 == 1 && p >= 3 && p < (std::uint64_t{1} << 31); }

// A recorded program (Mont form) converted to Mont32's form in place: the constants of the
// instructions that read w (CONST, AXPY, SCALE, ADDC). Op: any type with code and w.
template <class Op>
inline void narrow_program(Op* ops, std::size_t n, const Mont32& m) {
    for (std::size_t k = 0; k < n; ++k)
        if (ops[k].code == op_const || ops[k].code == op_axpy || ops[k].code == op_scale || ops[k].code == op_addc) ops[k].w = m.narrow(ops[k].w);
}

// Arithmetic mod 2.
struct Two {
    SR_TAPE_HD std::uint64_t mul(std::uint64_t a, std::uint64_t b) const { return a & b; }
    SR_TAPE_HD std::uint64_t add(std::uint64_t a, std::uint64_t b) const { return a ^ b; }
    SR_TAPE_HD std::uint64_t to(std::uint64_t x) const { return x & 1u; }
    SR_TAPE_HD std::uint64_t from(std::uint64_t x) const { return x; }
    std::uint64_t input_scale(std::uint64_t lambda) const { return lambda & 1u; }
};

// Host set-up of Mont for an odd p < 2^63 (unchecked precondition).
inline Mont make_mont(std::uint64_t p) {
    Mont m;
    m.p = p;
    std::uint64_t inv = p;  // Newton: p·p ≡ 1 mod 8, each step doubles the correct bits
    for (int i = 0; i < 5; ++i) inv *= 2 - p * inv;
    m.neg_pinv = 0 - inv;
    const std::uint64_t r1 = (0 - p) % p;  // 2^64 mod p
    // r1² mod p by doubling (no 128-bit division, so nvcc's host pass needs nothing more):
    // r1 < p < 2^63, so a sum of two residues never overflows.
    std::uint64_t acc = 0, base = r1, e = r1;
    while (e != 0) {
        if (e & 1u) acc = m.add(acc, base);
        base = m.add(base, base);
        e >>= 1;
    }
    m.r2 = acc;
    return m;
}

// One instruction for one point: s(i) is the point's slot i (a reference), x(i) its
// coordinate i already in the tape's form (ar.to of the raw value, or ar.mul of it with an
// input_scale). Used by the CUDA kernel (one thread per point).
template <class Ar, class Op, class Slots, class Point>
SR_TAPE_HD void step(const Op& op, const Ar& ar, Slots&& s, Point&& x) {
    switch (op.code) {
        case op_zero: s(op.dst) = 0; break;
        case op_const: s(op.dst) = op.w; break;
        case op_input: s(op.dst) = x(op.a); break;
        case op_mul: s(op.dst) = ar.mul(s(op.a), s(op.b)); break;
        case op_add: s(op.dst) = ar.add(s(op.a), s(op.b)); break;
        case op_axpy: {
            const std::uint64_t t = ar.mul(op.w, s(op.b));
            s(op.dst) = ar.add(s(op.a), t);
            break;
        }
        case op_scale: s(op.dst) = ar.mul(op.w, s(op.a)); break;
        case op_copy: s(op.dst) = s(op.a); break;
        case op_addc: s(op.dst) = ar.add(s(op.a), op.w); break;
        default: break;
    }
}

// One instruction for a block of n points held structure-of-arrays: slot i of point l is
// s[i·n + l], coordinate c of point l is x[l·stride + c]. The same arithmetic as step,
// the loop over points inside (the CPU interpreter).
template <class Ar, class Op>
inline void step_block(const Op& op, const Ar& ar, std::uint64_t* s, std::size_t n, const std::uint64_t* x, std::size_t stride) {
    std::uint64_t* d = s + op.dst * n;
    const std::uint64_t* a = s + op.a * n;
    const std::uint64_t* b = s + op.b * n;
    const std::uint64_t w = op.w;
    switch (op.code) {
        case op_zero: for (std::size_t l = 0; l < n; ++l) d[l] = 0; break;
        case op_const: for (std::size_t l = 0; l < n; ++l) d[l] = w; break;
        case op_input: for (std::size_t l = 0; l < n; ++l) d[l] = ar.to(x[l * stride + op.a]); break;
        case op_mul: for (std::size_t l = 0; l < n; ++l) d[l] = ar.mul(a[l], b[l]); break;
        case op_add: for (std::size_t l = 0; l < n; ++l) d[l] = ar.add(a[l], b[l]); break;
        case op_axpy: for (std::size_t l = 0; l < n; ++l) d[l] = ar.add(a[l], ar.mul(w, b[l])); break;
        case op_scale: for (std::size_t l = 0; l < n; ++l) d[l] = ar.mul(w, a[l]); break;
        case op_copy: for (std::size_t l = 0; l < n; ++l) d[l] = a[l]; break;
        case op_addc: for (std::size_t l = 0; l < n; ++l) d[l] = ar.add(a[l], w); break;
        default: break;
    }
}

}  // namespace seprank::tape
