// seprank CUDA plugin (private): what every .cu file of the plugin shares.
#pragma once

#include "seprank_cuda.h"

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#define SR_CUDA_EXPORT __attribute__((visibility("default")))

namespace sr_cuda {

// SEPRANK_CUDA_PROFILE set (any value): the plugin synchronises after every operation it
// times and prints one line on stderr per matrix ranked (rank.cu: the seconds and calls of
// each kind of elimination step) and per tape evaluation (tape.cu: setup, upload, kernel,
// download). A diagnosis aid (bench/GPU.md): the synchronisations slow the run itself.
inline bool profiling() {
    static const bool on = std::getenv("SEPRANK_CUDA_PROFILE") != nullptr;
    return on;
}

// Fills *st (when not null) and returns code.
inline int fail(sr_cuda_status* st, int code, const char* fmt, ...) {
    if (st) {
        st->code = code;
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(st->message, sizeof st->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

// A status made fresh for an entry: OK, no message, no time or memory yet.
inline void clear(sr_cuda_status* st) {
    if (st) {
        st->code = SR_CUDA_OK;
        st->message[0] = '\0';
        st->gpu_seconds = 0;
        st->bytes = 0;
        st->leaf_splits = 0;
        st->leaf_fallbacks = 0;
        st->streams = 0;
    }
}

// SR_CUDA_NO_DEVICE naming `who` and why, when no CUDA device is usable; else SR_CUDA_OK.
inline int no_device(sr_cuda_status* st, const char* who) {
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) return fail(st, SR_CUDA_NO_DEVICE, "%s: %s", who, e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return SR_CUDA_OK;
}

inline int ok(sr_cuda_status* st) {
    if (st) {
        st->code = SR_CUDA_OK;
        st->message[0] = '\0';
    }
    return SR_CUDA_OK;
}

}  // namespace sr_cuda
