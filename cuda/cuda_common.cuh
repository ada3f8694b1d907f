// seprank CUDA plugin (private): what every .cu file of the plugin shares.
#pragma once

#include "seprank_cuda.h"

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string>

#define SR_CUDA_EXPORT __attribute__((visibility("default")))

// The kernels are built optimised. nvcc's device debug mode (-G), which Meson 1.0 adds for
// buildtype=debug (the buildtype left when a project sets only debug and optimization),
// made the plugin's kernels many times slower on an H200: the frontier step's evaluation
// 10.3 s instead of 0.34-0.37 s, its ranks one block at a time 2.43 s instead of 0.18 s, the
// default table 21 s instead of 2.1 s (bench/GPU.md, 2026-11-30). cuda/meson.build builds the plugin with buildtype=release; this stops a
// build that loses that. Define SEPRANK_CUDA_DEVICE_DEBUG to debug kernels on purpose.
#if defined(__CUDACC_DEBUG__) && !defined(SEPRANK_CUDA_DEVICE_DEBUG)
#error "the CUDA plugin is being compiled with device debug (-G): its kernels would run 10-30x slower (bench/GPU.md, 2026-11-30); build it with buildtype=release (cuda/meson.build), or define SEPRANK_CUDA_DEVICE_DEBUG to debug kernels"
#endif

namespace sr_cuda {

// SEPRANK_CUDA_PROFILE set, to anything but empty or 0: the plugin synchronises after every
// operation it times and prints one line on stderr per matrix ranked (rank.cu: the seconds
// and calls of each kind of elimination step), per tape evaluation (tape.cu: setup, upload,
// kernel, download), per graded step and per call of ranks side by side. A diagnosis aid
// (bench/GPU.md): the synchronisations slow the run itself.
inline bool profiling() {
    static const bool on = [] {
        const char* v = std::getenv("SEPRANK_CUDA_PROFILE");
        return v != nullptr && *v != '\0' && std::string(v) != "0";
    }();
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
