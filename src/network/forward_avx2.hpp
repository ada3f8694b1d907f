// Private: the AVX2/FMA kernel of ModBatchEvaluator (forward_batch.hpp).
//
// The same forward pass (forward_impl.hpp) over vectors of 4 residues per 256-bit
// register, 16 points per pass, residues held as doubles in [0, p) (no Montgomery form).
// A product a·b mod p for p < 2^50 is six floating-point operations on 4 points: h = a·b
// rounded, the exact error l = a·b − h (one fused multiply-subtract), a quotient
// q = round(h·(1/p)) within 0.875 of a·b/p, r = h − q·p exact by one fused
// negative multiply-add, then r + l and one conditional +p (docs/forward_batch.md gives
// the error analysis). The scalar Montgomery lanes spend three 64×64→128-bit
// multiplications per point instead. Needs 3 <= p < 2^50, p odd, and the floating-point
// rounding mode the process starts with (to nearest): the error bound of the quotient
// assumes it, and nothing in the library or its dependencies changes it.
//
// forward_avx2.cpp is compiled with the library's plain flags; its kernel alone is
// compiled for AVX2 and FMA (`#pragma GCC target`, after the shared headers), and it must
// only be entered on a processor that has both, which forward_batch.cpp checks. The
// portability rules of forward_ifma.hpp apply to it unchanged (tests/simd_symbols_test.py).
#pragma once

#include "forward_ifma.hpp"
#include "seprank/network.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace seprank::detail {

// Whether this build has the kernel (compiler flags accepted at configure time).
bool avx2_built() noexcept;

// The largest modulus (exclusive) the kernel takes: 2^50.
inline constexpr std::uint64_t kAvx2ModulusLimit = std::uint64_t{1} << 50;

// The kernel for `net` mod p; nullptr unless p is odd, 3 <= p < 2^50 (a larger p would
// break the exactness of the products silently). Precondition (checked by the caller,
// forward_batch.cpp): avx2_built() and the processor has AVX2 and FMA.
std::unique_ptr<SimdEvaluator> make_avx2_evaluator(const Network& net, std::uint64_t p, std::size_t width);

}  // namespace seprank::detail
