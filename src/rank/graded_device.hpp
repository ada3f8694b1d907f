// seprank (internal) — the degree blocks of a graded evaluation kept in device memory: the
// library's side of the CUDA plugin's graded session (cuda/seprank_cuda.h, sr_cuda_graded_*;
// the algorithm is src/rank/graded_impl.hpp; docs/gpu.md, "Degree blocks in device memory").
// The graded evaluation (evaluation_graded.cpp) uses it on the GPU when no block store is given.
#pragma once

#include "seprank/matrix.hpp"
#include "seprank/tape.hpp"

#include <cstdint>
#include <string>
#include <vector>

struct sr_graded;

namespace seprank::detail {

class GradedSession {
public:
    // Opens a session for the network recorded in `tape` (its modulus p < graded::kPrimeLimit
    // < 2^31: the blocks hold 32-bit residues; a larger prime takes the host path), w the
    // nd x nd degree split (coefficient c of a pair = Σ_t value_t w[t][c]),
    // source/width_a/width_b the grid's coordinate map (TapeGrid). Every block is empty.
    // Throws as check_cuda (invalid_input, resource_limit, internal_error). Cost O(nd² + tape).
    GradedSession(const Tape& tape, const NmodMat& w, const std::vector<std::uint32_t>& source, std::size_t width_a, std::size_t width_b);
    ~GradedSession();
    GradedSession(const GradedSession&) = delete;
    GradedSession& operator=(const GradedSession&) = delete;

    // One step to side k (sr_cuda_graded_step): a, b the points of rows and columns [0, k)
    // (k·width_a and k·width_b residues), side[c] block c's side after the step. Returns
    // false, with the plugin's message in `why`, when the device's memory cannot hold the
    // step (nothing changed); throws on any other failure. Cost: (k² − last k²)·nd forward
    // passes on the device.
    bool step(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b, long k, const std::vector<long>& side,
              std::string& why);
    // Rank mod p of block c at its side, on the device (the block is kept). O(side³) there.
    long rank(long c);
    // Ranks of blocks c[0..) at their sides, in that order, side by side on the device
    // (sr_cuda_graded_ranks: the small ones on several streams at once). The same values as
    // rank(c) on each; the work of those ranks, the small ones overlapped.
    std::vector<long> ranks(const std::vector<long>& c);
    // The most blocks the last ranks() call ranked at once (0 before any).
    int streams() const { return streams_; }
    // Block c copied out (side × side, row-major): for tests.
    std::vector<std::uint64_t> block(long c, long side) const;
    // Device memory the blocks held after the last step, in bytes.
    double device_bytes() const { return bytes_; }
    // Seconds the device spent in the steps and ranks so far.
    double gpu_seconds() const { return seconds_; }

private:
    sr_graded* g_ = nullptr;
    double bytes_ = 0, seconds_ = 0;
    int streams_ = 0;
};

}  // namespace seprank::detail
