#include "seprank/random.hpp"

#include "seprank/error.hpp"
#include "seprank/integer.hpp"

#include <cstdlib>

namespace seprank {

namespace {
constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
}  // namespace

std::uint64_t splitmix64(std::uint64_t& state) noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Rng::Rng(std::uint64_t seed) noexcept {
    std::uint64_t st = seed;
    for (auto& w : s_) w = splitmix64(st);
}

std::uint64_t Rng::next() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

std::uint64_t Rng::below(std::uint64_t n) {
    if (n == 0) throw invalid_input("Rng::below: empty range (n = 0)");
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (;;) {
        std::uint64_t x = next();
        if (x >= threshold) return x % n;
    }
}

std::int64_t Rng::range(std::int64_t lo, std::int64_t hi) {
    if (lo > hi)
        throw invalid_input("Rng::range: empty range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
    const std::uint64_t off = span == UINT64_MAX ? next() : below(span + 1);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + off);
}

Integer Rng::big(unsigned bits) {
    if (bits > 4096) throw invalid_input("Rng::big: bits = " + std::to_string(bits) + " exceeds 4096");
    Integer r;
    unsigned left = bits;
    while (left > 0) {
        unsigned take = left < 64 ? left : 64;
        std::uint64_t limb = take == 64 ? next() : next() & ((std::uint64_t{1} << take) - 1);
        fmpz_mul_2exp(r.get(), r.get(), take);
        fmpz_add_ui(r.get(), r.get(), limb);
        left -= take;
    }
    if (next() & 1) fmpz_neg(r.get(), r.get());
    return r;
}

Rng Rng::split(std::uint64_t salt) noexcept {
    std::uint64_t st = next() ^ (salt * 0xd1b54a32d192ed03ULL);
    return Rng(splitmix64(st));
}

std::uint64_t seed_from_env(std::uint64_t fallback) {
    const char* s = std::getenv("SEPRANK_SEED");
    if (s == nullptr || *s == '\0') return fallback;
    Integer v{std::string_view(s)};
    if (v.sign() < 0 || fmpz_bits(v.get()) > 64)
        throw invalid_input(std::string("SEPRANK_SEED='") + s + "' is not an unsigned 64-bit integer");
    return fmpz_get_ui(v.get());
}

}  // namespace seprank
