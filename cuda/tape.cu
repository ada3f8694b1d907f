// seprank CUDA plugin: batched forward evaluation (placeholder until the kernels land).
#include "cuda_common.cuh"

extern "C" SR_CUDA_EXPORT int sr_cuda_tape_eval(const sr_tape*, const uint64_t*, int64_t, uint64_t*, sr_cuda_status* st) {
    return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: not built yet");
}
