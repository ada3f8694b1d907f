// seprank CUDA plugin (private): NVRTC compilation of a network's own kernel
// (nvrtc_compile.hpp).
#include "nvrtc_compile.hpp"

#include "tape_impl_text.hpp"

#include <nvrtc.h>

#include <string>
#include <vector>

namespace sr_cuda {

namespace {

// The standard headers tape_impl.hpp includes, as far as it uses them (NVRTC has none).
constexpr const char* kCstdint =
    "#pragma once\nnamespace std { typedef unsigned long uint64_t; typedef unsigned int uint32_t; typedef long int64_t; }\n";
constexpr const char* kCstddef = "#pragma once\nnamespace std { typedef unsigned long size_t; }\n";

struct Program {
    nvrtcProgram p = nullptr;
    ~Program() {
        if (p) nvrtcDestroyProgram(&p);
    }
};

}  // namespace

bool nvrtc_compile(const std::string& tu, int arch, std::string& cubin, std::string& log) {
    const char* headers[] = {kCstdint, kCstddef, kTapeImplText};
    const char* names[] = {"cstdint", "cstddef", "network/tape_impl.hpp"};
    Program prog;
    nvrtcResult r = nvrtcCreateProgram(&prog.p, tu.c_str(), "seprank_tape.cu", 3, headers, names);
    if (r != NVRTC_SUCCESS) {
        log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(r);
        return false;
    }
    const std::string gpu = "--gpu-architecture=sm_" + std::to_string(arch);
    // -default-device: tape_impl.hpp's host-only helpers (make_mont32, narrow_program, …)
    // are compiled as device functions instead of refused; the kernels never call them.
    const char* opts[] = {gpu.c_str(), "--std=c++17", "-default-device"};
    r = nvrtcCompileProgram(prog.p, 3, opts);
    std::size_t n = 0;
    nvrtcGetProgramLogSize(prog.p, &n);
    log.assign(n, '\0');
    if (n > 0) nvrtcGetProgramLog(prog.p, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (r != NVRTC_SUCCESS) {
        if (log.empty()) log = std::string("nvrtcCompileProgram: ") + nvrtcGetErrorString(r);
        return false;
    }
    std::size_t size = 0;
    r = nvrtcGetCUBINSize(prog.p, &size);
    if (r != NVRTC_SUCCESS || size == 0) {
        log = std::string("nvrtcGetCUBINSize: ") + nvrtcGetErrorString(r);
        return false;
    }
    cubin.assign(size, '\0');
    r = nvrtcGetCUBIN(prog.p, cubin.data());
    if (r != NVRTC_SUCCESS) {
        log = std::string("nvrtcGetCUBIN: ") + nvrtcGetErrorString(r);
        return false;
    }
    return true;
}

}  // namespace sr_cuda
