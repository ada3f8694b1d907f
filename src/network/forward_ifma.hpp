// Private: the AVX-512 IFMA kernel of ModBatchEvaluator (forward_batch.hpp).
//
// The same forward pass (forward_impl.hpp) over vectors of 8 residues per 512-bit
// register, 16 points per pass, in Montgomery form with R = 2^52: a product is four
// 52-bit multiply-adds (vpmadd52luq / vpmadd52huq) and a compare for 8 points, where the scalar
// Montgomery lanes spend three 64×64→128 multiplications per point. Needs p odd,
// 3 <= p < 2^52 (a product a·b < p² fits the 104 bits of a multiply-add pair).
//
// forward_ifma.cpp is compiled with the library's plain flags; its kernel alone is
// compiled for AVX-512 F/VL/IFMA (`#pragma GCC target`, after the shared headers), and it
// must only be entered on a processor that has AVX-512 IFMA, which ifma_usable() checks.
#pragma once

#include "seprank/network.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace seprank::detail {

class SimdEvaluator {
public:
    virtual ~SimdEvaluator() = default;
    // out[q] = f(point q) mod p, points laid out as ModBatchEvaluator::evaluate's.
    virtual void evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const = 0;
};

// Whether this build has the kernel (compiler flags accepted at configure time).
bool ifma_built() noexcept;

// The kernel for `net` mod p; nullptr unless p is odd, 3 <= p < 2^52 (so a bad caller
// cannot get silently truncated products). Precondition (checked by the caller,
// forward_batch.cpp): ifma_built() and the processor has AVX-512 IFMA.
//
// Portability: everything in forward_ifma.cpp that the rest of the library could share
// (inline functions of common headers emitted as weak symbols) must stay free of
// AVX-512 and AVX instructions, because the linker may keep that copy for the whole
// library; tests/simd_symbols_test.py disassembles the object and fails otherwise.
std::unique_ptr<SimdEvaluator> make_ifma_evaluator(const Network& net, std::uint64_t p, std::size_t width);

}  // namespace seprank::detail
