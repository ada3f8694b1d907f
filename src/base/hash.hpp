// Private: FNV-1a, 64 bits, header-only and FLINT-free, so that the library (block stores,
// table plans, weight fingerprints) and the CUDA plugin (its image cache's file names and
// checks, cuda/nvrtc_compile.cpp) hash text the same way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace seprank::detail {

// FNV-1a, 64 bits: fingerprints table plans. O(text length).
inline std::uint64_t fnv1a(const std::string& text) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

// The same as 16 hex digits: names stores and fingerprints weights.
inline std::string fnv1a_hex(const std::string& text) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a(text)));
    return buf;
}

}  // namespace seprank::detail
