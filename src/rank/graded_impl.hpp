// seprank (internal) — the graded evaluation kept in device memory (docs/gpu.md, "Degree
// blocks in device memory"): what the CUDA plugin's session (cuda/graded.cu) and its CPU
// stand-in (tests/cuda_emulator.cpp) share, so both run the same steps on the same values:
// the pairs a step evaluates, the degree split of a pair's values, the checks of a step and
// the bookkeeping of the blocks' sides.
//
// The session holds one square matrix per degree block c < nd (the live degrees of
// docs/evaluation.md's graded variant), entries stored as 32-bit residues mod p, row-major,
// leading dimension = the block's side. A step at side k evaluates every pair (i, j) of
// [0, k)² not evaluated before, at nd nodes t = 1..nd (side A scaled by t, the tape's grid
// points of sr_tape_grid), and writes coefficient c of the pair into block c when i and j
// are below that block's side:
//     coefficient_c(i, j) = Σ_t f(t·a_i, b_j) · w[t·nd + c]  mod p,
// w = (V⁻¹)ᵀ, the degree split of the CPU path (src/rank/evaluation_internal.hpp, RowEvaluator).
//
// FLINT-free C++17, compiled by g++ and by nvcc (coefficient() is __host__ __device__
// there).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "network/tape_impl.hpp"

#if defined(__CUDACC__)
#define SR_GRADED_HD __host__ __device__
#else
#define SR_GRADED_HD
#endif

namespace seprank::graded {

// Nodes (blocks) at most (the forward passes of a pair, and the blocks).
inline constexpr std::int64_t kMaxNodes = 4096;
// Primes below this: residues fit 32-bit storage, a product of two is below 2^62, and the
// tape runs in 32-bit words (tape_impl.hpp, Mont32). A block's rank needs the elimination
// to take the prime too (blocked_rank_impl.hpp).
inline constexpr std::uint64_t kPrimeLimit = std::uint64_t{1} << 31;
// The largest side of a block (the elimination's row indices and cuBLAS's 32-bit sizes).
inline constexpr std::int64_t kMaxSide = 0x7f000000LL;

// A rectangle of pairs: rows [r0, r1) × columns [c0, c1).
struct Rect {
    std::int64_t r0, r1, c0, c1;
};

// The pairs of [0, k)² not both below old, as at most two rectangles, row-major order:
// rows [0, old) × columns [old, k), then rows [old, k) × columns [0, k). Returns how many
// (empty ones are left out). Precondition 0 <= old <= k.
inline int new_pairs(std::int64_t k, std::int64_t old, Rect out[2]) {
    int n = 0;
    if (old > 0 && k > old) out[n++] = Rect{0, old, old, k};
    if (k > old) out[n++] = Rect{old, k, 0, k};
    return n;
}

// The degree split's arithmetic mod p (p < kPrimeLimit, so odd p is below 2^31): Mont32
// (network/tape_impl.hpp) for an odd p, Two for p = 2. Host only (make_mont32); a kernel is
// handed the value.
struct SplitArith {
    bool two = false;
    tape::Mont32 mont;
    // f(Two{}) or f(mont): the one dispatch on the arithmetic (both calls return one type).
    template <class F>
    decltype(auto) with(F&& f) const {
        return two ? f(tape::Two{}) : f(mont);
    }
};
inline SplitArith split_arith(std::uint64_t p) {
    SplitArith a;
    a.two = p == 2;
    if (!a.two) a.mont = tape::make_mont32(p);
    return a;
}

// W's n entries (residues mod p) in the form coefficient() takes them for p: Montgomery form
// w·2^32 mod p for an odd p (so that a term v·w is one Montgomery product), as they are for
// p = 2. Cost O(n).
inline std::vector<std::uint64_t> split_weights(const std::uint64_t* w, std::int64_t n, std::uint64_t p) {
    const SplitArith a = split_arith(p);
    std::vector<std::uint64_t> f(w, w + n);
    if (!a.two)
        for (auto& x : f) x = a.mont.to(x);
    return f;
}

// Coefficient c of a pair from its nd values v[0..nd) (residues mod p): Σ_t v[t]·w[t·nd + c]
// mod p, with wf = split_weights(w) and ar the arithmetic of split_arith(p): Mont32 (each
// term one Montgomery product of v[t] and w·2^32, which is v[t]·w, and one reduced sum; no
// division) or Two. Cost O(nd): about seven 32-bit operations a term on a GPU, where the
// 64-bit sums reduced by a division every third term that this replaced cost several times
// more (bench/GPU.md, "The degree split").
template <class Ar>
SR_GRADED_HD inline std::uint64_t coefficient(const std::uint64_t* v, std::int64_t nd, const std::uint64_t* wf, std::int64_t c, const Ar& ar) {
    std::uint64_t s = 0;
    for (std::int64_t t = 0; t < nd; ++t) s = ar.add(s, ar.mul(v[t], wf[t * nd + c]));
    return s;
}

// The blocks' sides between steps. A block is open (side > 0), not yet open (side 0, never
// opened) or closed (its side went to 0 after being open: its storage is freed and it never
// opens again).
struct Sides {
    std::int64_t k = 0;                // the side of the last step (0 before the first)
    std::vector<std::int64_t> side;    // per block
    std::vector<char> closed;          // per block

    explicit Sides(std::int64_t nd = 0) : side(static_cast<std::size_t>(nd), 0), closed(static_cast<std::size_t>(nd), 0) {}

    // Whether a step to side k with the blocks' new sides next[0..nd) is allowed; else
    // `why` says which value breaks which rule:
    //   k >= the last step's side and k <= kMaxSide;
    //   0 <= next[c] <= k; a closed block stays 0;
    //   an open block keeps its side, or grows from the last step's side (its entries
    //   [0, side)² then are exactly the pairs evaluated so far), or closes (0);
    //   a block opens only at the first step.
    // So the pairs a block lacks are always among new_pairs(k, last k). Cost O(nd).
    bool check(std::int64_t k_next, const std::int64_t* next, std::string& why) const {
        if (k_next < k || k_next > kMaxSide) {
            why = "side " + std::to_string(k_next) + ": expected the last step's side " + std::to_string(k) + " or more, at most " +
                  std::to_string(kMaxSide);
            return false;
        }
        for (std::size_t c = 0; c < side.size(); ++c) {
            const std::int64_t s = next[c], prev = side[c];
            std::string bad;
            if (s < 0 || s > k_next) bad = "is not in [0, " + std::to_string(k_next) + "]";
            else if (closed[c] && s != 0) bad = "reopens a closed block";
            else if (s != 0 && s != prev && prev != k) bad = "grows a block whose side " + std::to_string(prev) + " is not the last step's side";
            else if (s != 0 && s < prev) bad = "shrinks the block from " + std::to_string(prev);
            if (!bad.empty()) {
                why = "block " + std::to_string(c) + ": side " + std::to_string(s) + " " + bad;
                return false;
            }
        }
        return true;
    }

    // Records a checked step.
    void apply(std::int64_t k_next, const std::int64_t* next) {
        for (std::size_t c = 0; c < side.size(); ++c) {
            if (side[c] > 0 && next[c] == 0) closed[c] = 1;
            side[c] = next[c];
        }
        k = k_next;
    }

    // Bytes of the blocks' storage at the given sides (4 per entry).
    static double bytes(const std::int64_t* s, std::size_t nd) {
        double b = 0;
        for (std::size_t c = 0; c < nd; ++c) b += 4.0 * static_cast<double>(s[c]) * static_cast<double>(s[c]);
        return b;
    }
};


// Blocks ranked side by side (sr_cuda_graded_ranks; docs/gpu.md, "Blocks side by side").
// A block of side above kSideBySide fills the device on its own: it is ranked alone, the
// largest first. The others are ranked by `streams` workers, each on its own stream, each
// taking the largest block not yet taken; streams is the most copies of the largest of them
// (with its workspace) that fit the memory at hand, at most kMaxStreams, at least 1, and no
// more than there are such blocks. Blocks of side 0 (closed or never opened) have rank 0
// and are in neither list.
inline constexpr std::int64_t kSideBySide = 4096;
inline constexpr int kMaxStreams = 8;

struct RankPlan {
    std::vector<std::int64_t> alone;   // indices into the request, ranked one at a time in this order
    std::vector<std::int64_t> shared;  // indices into the request, taken in this order by the workers
    int streams = 1;

    // What is ranked one at a time, in order: the large blocks, then the shared ones too
    // when one stream is all that fits.
    std::vector<std::int64_t> one_at_a_time() const {
        std::vector<std::int64_t> q = alone;
        if (streams == 1) q.insert(q.end(), shared.begin(), shared.end());
        return q;
    }
};

// The plan for blocks of sides side[0..count): `bytes(s)` the device bytes one rank of an
// s × s block takes on its own stream, `memory` the bytes at hand for the ranks, at most
// `max_streams` streams (clamped to [1, kMaxStreams]). Order: larger sides first, ties by
// index. When not even one copy of the largest shared block fits, streams is 1 (that
// rank's own check then refuses it). Cost O(count log count).
template <class Bytes>
RankPlan plan_ranks(const std::int64_t* side, std::int64_t count, double memory, Bytes&& bytes, int max_streams = kMaxStreams) {
    RankPlan plan;
    std::vector<std::int64_t> order;
    for (std::int64_t q = 0; q < count; ++q)
        if (side[q] > 0) order.push_back(q);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return side[x] > side[y]; });
    for (std::int64_t q : order) (side[q] > kSideBySide ? plan.alone : plan.shared).push_back(q);
    if (plan.shared.size() > 1) {
        const double one = bytes(side[plan.shared.front()]);
        const double fit = one > 0 ? memory / one : static_cast<double>(kMaxStreams);
        const int cap = std::max(1, std::min(kMaxStreams, max_streams));
        const double most = std::min<double>(cap, static_cast<double>(plan.shared.size()));
        plan.streams = static_cast<int>(std::max(1.0, std::min(most, std::floor(fit))));
    }
    return plan;
}

// SEPRANK_CUDA_STREAMS: the most streams of ranks side by side, 1 to kMaxStreams (1: one
// block at a time, as before; for benchmarks). Unset, empty or not such a number:
// kMaxStreams.
inline int streams_from_environment() {
    const char* v = std::getenv("SEPRANK_CUDA_STREAMS");
    if (v == nullptr || *v == '\0') return kMaxStreams;
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    return *end == '\0' && n >= 1 && n <= kMaxStreams ? static_cast<int>(n) : kMaxStreams;
}

}  // namespace seprank::graded
