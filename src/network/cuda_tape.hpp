// seprank (internal) — a recorded tape as the CUDA plugin takes it (cuda/seprank_cuda.h),
// for tape.cpp (which defines it) and graded_device.cpp.
#pragma once

#include "../../cuda/seprank_cuda.h"
#include "seprank/tape.hpp"

#include <vector>

namespace seprank::detail {

// A tape as the plugin takes it (sr_tape over its own copy of the program). The
// environment variable SEPRANK_CUDA_TAPE names flags: "general" puts the program and the
// slots in global memory (tests reach the paths of large programs), "wide" keeps 64-bit
// words for primes below 2^31 (SR_TAPE_WIDE); "general,wide" both. Defined in tape.cpp.
struct CudaTape {
    std::vector<sr_tape_op> ops;
    sr_tape t{};
    explicit CudaTape(const Tape& tape);
    CudaTape(const CudaTape&) = delete;
    CudaTape& operator=(const CudaTape&) = delete;
};

}  // namespace seprank::detail
