// Private: word-size modular helpers shared by the ring policies of the forward pass
// (rings_impl.hpp ModRing, forward_batch.cpp LaneRing, forward_ifma.cpp IfmaRing).
//
// Plain inline functions of plain types: forward_ifma.cpp includes this header before its
// `#pragma GCC target`, so the copy it may emit is plain x86-64 code like everyone's.
#pragma once

#include <cstdint>

namespace seprank::detail {

// c mod p in [0, p), for any long c (LONG_MIN included: |c| is formed in unsigned
// arithmetic) and any p >= 1. Cost: one 64-bit division.
inline std::uint64_t residue_of(long c, std::uint64_t p) {
    const std::uint64_t mag = c < 0 ? 0 - static_cast<std::uint64_t>(c) : static_cast<std::uint64_t>(c);
    const std::uint64_t a = mag % p;
    return c < 0 && a != 0 ? p - a : a;
}

// p⁻¹ mod 2^64 for odd p, by Newton's iteration x ← x·(2 − p·x): p·p ≡ 1 mod 8 gives 3
// correct bits and each step doubles them (6, 12, 24, 48, 96). Precondition (unchecked):
// p odd.
inline std::uint64_t inverse_mod_2_64(std::uint64_t p) {
    std::uint64_t inv = p;
    for (int i = 0; i < 5; ++i) inv *= 2 - p * inv;
    return inv;
}

}  // namespace seprank::detail
