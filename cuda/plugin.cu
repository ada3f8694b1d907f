// seprank CUDA plugin: the entries that describe the plugin and the device
// (seprank_cuda.h). The algorithms are in rank.cu (blocked elimination mod p) and tape.cu
// (batched forward evaluation).
#include "cuda_common.cuh"

#include <cstdio>

extern "C" SR_CUDA_EXPORT int sr_cuda_abi(void) { return SEPRANK_CUDA_ABI; }

extern "C" SR_CUDA_EXPORT int sr_cuda_probe(char* name, size_t len) {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        if (name && len) std::snprintf(name, len, "%s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
        return 0;
    }
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        if (name && len) std::snprintf(name, len, "cudaGetDeviceProperties failed");
        return 0;
    }
    if (name && len)
        std::snprintf(name, len, "%s, %.0f GiB, sm_%d%d", prop.name, static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024 * 1024),
                      prop.major, prop.minor);
    return count;
}
