// seprank (internal) — the loaded CUDA plugin's entries (cuda/seprank_cuda.h), for the
// modules that run work on the GPU (device.cpp, tape.cpp, graded_device.cpp). A tape as
// the plugin takes it is cuda_tape.hpp.
#pragma once

#include "../../cuda/seprank_cuda.h"

#include <string>
#include <vector>

namespace seprank::detail {

struct CudaPlugin {
    int (*abi)(void) = nullptr;
    int (*probe)(char*, size_t) = nullptr;
    uint64_t (*max_prime)(void) = nullptr;
    int (*rank)(const uint64_t*, int64_t, int64_t, uint64_t, int, int64_t*, sr_cuda_status*) = nullptr;
    int (*rank_many)(const uint64_t* const*, const int64_t*, const int64_t*, int64_t, uint64_t, int64_t*, sr_cuda_status*) = nullptr;
    int (*tape_eval)(const sr_tape*, const uint64_t*, int64_t, uint64_t*, sr_cuda_status*) = nullptr;
    int (*tape_grid)(const sr_tape*, const sr_tape_grid*, uint64_t*, sr_cuda_status*) = nullptr;
    int (*graded_open)(const sr_graded_setup*, sr_graded**, sr_cuda_status*) = nullptr;
    int (*graded_step)(sr_graded*, const uint64_t*, const uint64_t*, int64_t, const int64_t*, sr_cuda_status*) = nullptr;
    int (*graded_rank)(sr_graded*, int64_t, int64_t*, sr_cuda_status*) = nullptr;
    int (*graded_ranks)(sr_graded*, const int64_t*, int64_t, int64_t*, sr_cuda_status*) = nullptr;
    int (*graded_block)(const sr_graded*, int64_t, uint64_t*, sr_cuda_status*) = nullptr;
    void (*graded_close)(sr_graded*) = nullptr;
};

// The plugin's entries when cuda_info().devices > 0; otherwise invalid_input naming why
// ("Device cuda: ..."). Cost O(1) after the first cuda_info().
const CudaPlugin& cuda_plugin();

// Throws the library error that a status code stands for: SR_CUDA_INVALID and
// SR_CUDA_NO_DEVICE as invalid_input, SR_CUDA_NO_MEMORY as resource_limit, anything else
// as internal_error; `what` names the call. Returns when the code is SR_CUDA_OK.
void check_cuda(const sr_cuda_status& st, const std::string& what);

}  // namespace seprank::detail
