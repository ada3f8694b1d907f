// Private: FNV-1a, 64 bits, header-only and FLINT-free, so that the library (block stores,
// table plans, weight fingerprints) and the CUDA plugin (its image cache's file names and
// checks, cuda/nvrtc_compile.cpp) hash text the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace seprank::detail {

inline constexpr std::uint64_t kFnvBasis = 14695981039346656037ull;

// FNV-1a, 64 bits, of n bytes at data, continued from h (kFnvBasis: a fresh hash), so that
// a file read or written in pieces hashes as the whole. Any one byte changed changes the
// hash (each step is a bijection of the state). O(n).
inline std::uint64_t fnv1a_bytes(const void* data, std::size_t n, std::uint64_t h = kFnvBasis) {
    const unsigned char* b = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

// FNV-1a, 64 bits: fingerprints table plans. O(text length).
inline std::uint64_t fnv1a(const std::string& text) { return fnv1a_bytes(text.data(), text.size()); }

// The same as 16 hex digits: names stores and fingerprints weights.
inline std::string fnv1a_hex(const std::string& text) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
    return buf;
}

}  // namespace seprank::detail
