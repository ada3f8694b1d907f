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

}  // namespace sr_cuda
