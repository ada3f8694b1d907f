// seprank CUDA plugin (private): the blocked elimination of rank.cu on a matrix already in
// device memory (the graded session's blocks, graded.cu).
#pragma once

#include "cuda_common.cuh"

#include <cstdint>

namespace sr_cuda {

// Device bytes a rank of an m x n matrix mod p takes: the matrix as doubles, the
// elimination's workspace (blocked_rank_impl.hpp; the limb buffers too above kMaxPrime) and
// the reserve kept free for cuBLAS and the runtime.
double rank_bytes(std::int64_t m, std::int64_t n, int tile, std::uint64_t p);

// Rank mod p (a prime blocked::accepted_rank_prime takes: either mode) of the n x n matrix of 32-bit residues at
// `block` (device memory, row-major, leading dimension n), by the elimination of
// sr_cuda_rank on a centred copy: the block is kept. Serialised with sr_cuda_rank (one
// rank at a time per process); SR_CUDA_NO_MEMORY when the copy and its workspace do not
// fit. Never throws. Cost that of sr_cuda_rank on the same matrix, without the upload.
int rank_device_block(const std::uint32_t* block, std::int64_t n, std::uint64_t p, std::int64_t* rank, sr_cuda_status* st);

// Ranks mod p of count n x n blocks (blocks[q] of side sides[q], device memory as above;
// side 0: rank 0) written to ranks[q], side by side as graded::plan_ranks plans them: the
// blocks above kSideBySide one at a time, the others on up to kMaxStreams streams, each
// with its own cuBLAS handle, arrays from the stream-ordered allocator and a share of the
// multiprocessors for the cooperative leaf; a block a stream finds no memory for is ranked
// alone afterwards, with the blocks no stream took by then. One call at a time with every
// other rank of the process (the rank lock, held throughout). st: the first failure's
// status, or the wall time, the leaves' counts summed, the streams used. Never throws.
// Cost: the ranks' work, the small ones overlapped.
int rank_device_blocks(const std::uint32_t* const* blocks, const std::int64_t* sides, std::int64_t count, std::uint64_t p, std::int64_t* ranks,
                       sr_cuda_status* st);

}  // namespace sr_cuda
