// seprank (internal) — pieces of the rank engine shared by rank.cpp (dispatcher and the
// Hadamard reference certificate) and certificate.cpp (the pivot-span certificate).
#pragma once

#include "seprank/rank.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace seprank::detail {

// `count` distinct random primes of `bits` bits; the same seed and bits give the same
// sequence, and a longer request extends a shorter one.
std::vector<std::uint64_t> distinct_primes(std::uint64_t seed, std::size_t count, unsigned bits = 62);
// The probability that a prime drawn uniformly among those of `bits` bits (random_prime)
// divides a given non-zero integer of absolute value ≤ 2^log2H, bounded: such an integer
// has at most ⌈log2H / (bits − 1)⌉ of them as factors (at least one counted), out of
// prime_count_lower_bound(bits) or more (2^55.58 for 62 bits). At most 1.
double prime_divisor_bound(double log2H, unsigned bits);
// The number of distinct values among `primes` (the moduli of several trials, whose draws
// may repeat). O(n log n).
long distinct_count(std::vector<std::uint64_t> primes);
// Dense FLINT elimination pays off: nnz > 15% of m·n and the dense matrix fits in 1 GiB.
bool use_dense(const SparseZMat& a);
// An answer of the rank engine about a bare matrix (quantity and method "matrix").
RankAnswer matrix_answer(long rows, long cols);
void set_certified(RankAnswer& res, long r);
// Where the Hadamard reference's modular ranks ran when RankOptions::device asked for the
// GPU: the certificates pass it down, and the dispatcher reads it instead of their notes.
struct DeviceTrace {
    bool gpu = false;         // at least one modular rank ran on the GPU
    double gpu_seconds = 0;   // their device time (rank_modular_cuda's, uploads excluded)
    std::string cpu_reason;   // non-empty: some ran on the CPU instead, for this reason
};
// The Hadamard multimodular reference (rank.hpp, steps (1)-(4)); input not trivial. With
// a trace, records in it where its modular ranks ran.
RankAnswer rank_hadamard(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace = nullptr);
// The pivot-span certificate (certificate.hpp); input not trivial, opt.certify.
RankAnswer rank_pivot_span(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace = nullptr);
// The block certificate (blocks.hpp); input not trivial, opt.certify.
RankAnswer rank_blocks(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace = nullptr);
// aᵀ (rows sorted by column: each row's entries stay in increasing order).
SparseZMat transpose(const SparseZMat& a);

// "<s> s of device time" (3 significant digits): how the answers' notes give the time
// their eliminations took on the GPU. O(1).
std::string device_time(double seconds);

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace seprank::detail
