// seprank CUDA plugin: rank mod p by blocked elimination (placeholder until the kernels land).
#include "cuda_common.cuh"

extern "C" SR_CUDA_EXPORT uint64_t sr_cuda_max_prime(void) { return 0; }

extern "C" SR_CUDA_EXPORT int sr_cuda_rank(const uint64_t*, int64_t, int64_t, uint64_t, int, int64_t*, sr_cuda_status* st) {
    return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_rank: not built yet");
}
