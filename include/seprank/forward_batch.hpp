// seprank — batched forward evaluation mod p: many points per pass.
//
// ModBatchEvaluator computes the same values as ModEvaluator (forward.hpp), f(x) mod p
// for each point x, but evaluates `lanes` points at once: every ring element of the
// forward pass is a vector of one residue per point (structure of arrays), weights are
// scalars shared by the lanes, and residues are kept in Montgomery form
// (x·2^64 mod p), so a product costs three word multiplications and no division. The
// lanes are independent, which lets the processor overlap their multiplications, and
// the bookkeeping of the pass (dispatch, temporary vectors) is paid once per `lanes`
// points instead of once per point.
//
// Kernels (kernel()), the first that applies: for an odd p < 2^52 on a processor with
// AVX-512 IFMA, 16 points per pass in 512-bit registers, Montgomery form with R = 2^52, a
// product in four 52-bit multiply-adds and a compare for 8 points ("avx512-ifma"); for an
// odd p < 2^50 on a processor with AVX2 and FMA, 16 points per pass in 256-bit registers,
// residues as doubles, a product in six floating-point operations for 4 points
// ("avx2-fma"); otherwise 8 scalar Montgomery lanes ("montgomery"). The vector kernels
// need the build to have them (Meson option simd); the environment variable SEPRANK_SIMD
// set to "0" turns both off, "avx2" the IFMA one only. All kernels give the same values.
//
// Montgomery arithmetic needs p odd and p < 2^63; for any other modulus (p = 2, or a
// word-size p ≥ 2^63) the evaluator falls back to ModEvaluator one point at a time, so
// every prime is accepted. p must be prime (not checked; p >= 2 checked, invalid_input).
// The network is checked once (check_shapes, by the ModEvaluator inside).
// Cost: O(L·H·N·dx·da) operations per point, as ModEvaluator, with a smaller constant
// (bench/RESULTS.md gives the ratio of points per second).
#pragma once

#include "seprank/forward.hpp"
#include "seprank/network.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace seprank {

class ModBatchEvaluator {
public:
    static constexpr int lanes = 8;  // points per pass

    // Prepares the evaluator mod p: invalid_input for p < 2 or a network whose shapes
    // do not check (by ModEvaluator); p prime is not checked. Cost: the weights reduced
    // mod p (and to Montgomery form) once, O(number of weights) time and memory.
    ModBatchEvaluator(const Network& net, std::uint64_t p);
    // Destructor and moves: O(1) for the lanes, O(parameters) for the one-point evaluator,
    // which is copied: an evaluator moved from still evaluates, by the one-point path
    // (batched() false).
    ~ModBatchEvaluator();
    ModBatchEvaluator(ModBatchEvaluator&&);  // not noexcept: the one-point evaluator is copied
    ModBatchEvaluator& operator=(ModBatchEvaluator&&);
    ModBatchEvaluator(const ModBatchEvaluator&) = delete;
    ModBatchEvaluator& operator=(const ModBatchEvaluator&) = delete;

    // out[q] = f(point q) mod p for q < count. Point q occupies
    // points[q·width() .. (q+1)·width()): token 1's variables, then token 2's, …
    // (width() = N·input_vars_per_token). Entries need not be reduced. Thread-safe:
    // concurrent calls on one evaluator are allowed (no shared mutable state).
    // Preconditions (not checked): points holds count·width() words, out count words.
    // Cost O(count·L·H·N·dx·da) operations, scratch of one pass of `lanes` points.
    void evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const;
    // One point, as a Point (shape checked, invalid_input): the same value as ModEvaluator.
    // Cost: one evaluate() of a single point plus a copy of it.
    std::uint64_t operator()(const Point<std::uint64_t>& point) const;

    // Accessors, O(1): point width in words, modulus p.
    std::size_t width() const noexcept { return width_; }
    std::uint64_t modulus() const noexcept { return p_; }
    // Whether the Montgomery lanes are used (false: the one-point fallback).
    bool batched() const noexcept { return impl_ != nullptr; }
    // Which kernel evaluates: "avx512-ifma", "avx2-fma", "montgomery" or "one point". O(1).
    const char* kernel() const noexcept;
    // Whether the AVX-512 IFMA kernel can run here (build, processor, SEPRANK_SIMD); it
    // is then used for every odd p with 3 <= p < 2^52. (Whether the AVX2/FMA kernel can:
    // kernel_for(3) == "avx2-fma" where IFMA cannot.) O(1) after the first CPU query.
    static bool simd_available() noexcept;
    // The kernel an evaluator mod p would use here (as kernel() of ModBatchEvaluator(net, p)).
    // Any p accepted (no check). O(1) after the first CPU query.
    static const char* kernel_for(std::uint64_t p) noexcept;

private:
    struct Impl;
    std::uint64_t p_;
    std::size_t width_;
    ModEvaluator scalar_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace seprank
