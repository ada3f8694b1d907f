// seprank — deterministic randomness.
//
// Rng is xoshiro256** (Blackman & Vigna 2018) seeded through splitmix64, both fully
// specified integer recurrences: the same seed gives the same stream on every platform
// and compiler. We never use <random>'s distributions, whose outputs are
// implementation-defined. Bounded draws use rejection sampling:
//   below(n): draw x uniform in [0, 2^64); reject x < (2^64 mod n); return x mod n,
// which is exactly uniform on [0, n). Expected draws < 2.
//
// Seeds: every seeded operation takes an explicit seed. Tests read it through
// seed_from_env(), which honours SEPRANK_SEED (a decimal uint64); the tests print it.
#pragma once

#include <cstdint>
#include <string>

namespace seprank {

class Integer;

class Rng {
public:
    // Seeds the four state words from splitmix64(seed). O(1).
    explicit Rng(std::uint64_t seed) noexcept;

    // Next raw 64-bit output of xoshiro256**. O(1).
    std::uint64_t next() noexcept;
    // Uniform in [0, n); n >= 1 is checked (throws invalid_input for n == 0).
    // Expected < 2 draws.
    std::uint64_t below(std::uint64_t n);
    // Uniform in the closed range [lo, hi]; lo <= hi is checked (invalid_input).
    // Expected < 2 draws.
    std::int64_t range(std::int64_t lo, std::int64_t hi);
    // Uniform integer in [-2^bits + 1, 2^bits - 1] (bits <= 4096, checked), built from
    // 64-bit limbs; used for huge-coefficient tests. Throws invalid_input for
    // bits > 4096. O(bits/64) draws and limbs.
    Integer big(unsigned bits);
    // Derive an independent stream (for sub-tasks, e.g. trial t of a sweep): the
    // child's seed is splitmix64 of this stream's next output mixed with `salt`. O(1).
    Rng split(std::uint64_t salt) noexcept;

private:
    std::uint64_t s_[4];
};

// splitmix64 step: advances `state` and returns the mixed output. O(1).
std::uint64_t splitmix64(std::uint64_t& state) noexcept;

// SEPRANK_SEED when set and non-empty (decimal; a value that is negative or over 64
// bits throws invalid_input), else `fallback`. Does not print. O(length of the value).
std::uint64_t seed_from_env(std::uint64_t fallback);

}  // namespace seprank
