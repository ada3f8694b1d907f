// seprank CUDA plugin (private): a network's own kernel (docs/gpu.md, "Compiled programs").
// The forward program of a tape becomes straight-line source (src/network/tape_source_impl.hpp),
// NVRTC compiles it for this GPU (nvrtc_compile.cpp), and the runtime loads the image
// (cudaLibraryLoadData): one thread per point as the interpreter (tape_kernel.cuh), its slots
// in registers, its constants in the instruction stream. Asked for with
// SEPRANK_CUDA_COMPILED=1 (the interpreter otherwise); where compiling or loading fails the
// interpreter runs and `why` says so. Included by tape.cu and graded.cu after tape_kernel.cuh.
#pragma once

#include "network/tape_source_impl.hpp"
#include "nvrtc_compile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// One line on stderr, where SEPRANK_CUDA_COMPILED=1 asked for the compiled kernels: what
// ran (the device logs of tests/device/run.sh show it).
inline void report_compiled(const char* who, const sr_tape* t, bool ok, double seconds, const std::string& why) {
    if (ok)
        std::fprintf(stderr, "seprank cuda: %s: the network's own kernel (%lld instructions) compiled and loaded in %.3f s\n", who,
                     static_cast<long long>(t->n_ops), seconds);
    else
        std::fprintf(stderr, "seprank cuda: %s: no compiled kernel (%s); the interpreter ran\n", who, why.c_str());
}

// The loaded image of one network's kernel: flat or grid, the one the caller launches
// (NVRTC's time is paid per kernel).
struct Compiled {
    cudaLibrary_t lib = nullptr;
    cudaKernel_t flat = nullptr, grid = nullptr;  // the one compiled; the other null
    double compile_seconds = 0;
    Compiled() = default;
    Compiled(const Compiled&) = delete;
    Compiled& operator=(const Compiled&) = delete;
    ~Compiled() {
        if (lib) cudaLibraryUnload(lib);
    }
};

inline bool compiled_asked() {
    const char* e = std::getenv("SEPRANK_CUDA_COMPILED");
    return e != nullptr && std::string(e) == "1";
}

inline seprank::tape::SourceForm form_of(const seprank::tape::Mont32&) { return seprank::tape::SourceForm::mont32; }
inline seprank::tape::SourceForm form_of(const seprank::tape::Mont&) { return seprank::tape::SourceForm::mont; }
inline seprank::tape::SourceForm form_of(const seprank::tape::Two&) { return seprank::tape::SourceForm::two; }

// The kernel a point source needs (tape_kernel.cuh's FlatSource, GridSource).
inline unsigned kernel_for(const FlatSource&) { return seprank::tape::kFlatKernel; }
inline unsigned kernel_for(const GridSource&) { return seprank::tape::kGridKernel; }

// Compiles and loads kernel `which` (tape::kFlatKernel or tape::kGridKernel) of tape t,
// whose constants are in Ar's form (narrowed for Mont32). false, with the reason in why,
// where any step fails or the program is longer than tape::kMaxCompiledOps: the caller runs
// the interpreter.
template <class Ar>
bool build_compiled(const sr_tape* t, const Ar& ar, unsigned which, Compiled& c, std::string& why) {
    const auto t0 = std::chrono::steady_clock::now();
    if (static_cast<std::size_t>(t->n_ops) > seprank::tape::kMaxCompiledOps) {
        why = "a program of " + std::to_string(t->n_ops) + " instructions, above the " + std::to_string(seprank::tape::kMaxCompiledOps) +
              " whose compilation takes a minute";
        return false;
    }
    const std::string tu = seprank::tape::kernel_text(t->ops, static_cast<std::size_t>(t->n_ops), static_cast<std::size_t>(t->slots), t->output, t->p,
                                                      form_of(ar), which);
    if (tu.empty()) {
        why = "an instruction without a source form";
        return false;
    }
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        why = "the device's compute capability";
        return false;
    }
    std::string cubin, log;
    if (!sr_cuda::nvrtc_compile(tu, major * 10 + minor, cubin, log)) {
        why = "NVRTC: " + log.substr(0, 300);
        return false;
    }
    cudaError_t e = cudaLibraryLoadData(&c.lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (e == cudaSuccess && which == seprank::tape::kFlatKernel) e = cudaLibraryGetKernel(&c.flat, c.lib, "sr_compiled_flat");
    if (e == cudaSuccess && which == seprank::tape::kGridKernel) e = cudaLibraryGetKernel(&c.grid, c.lib, "sr_compiled_grid");
    if (e != cudaSuccess) {
        why = std::string("loading the compiled kernels: ") + cudaGetErrorString(e);
        return false;
    }
    c.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return true;
}

// Where SEPRANK_CUDA_COMPILED=1 asks for it, compiles and loads t's kernel `which` into c
// and reports what will run (report_compiled); whether c is to be launched. Ar, t and which
// as build_compiled's.
template <class Ar>
bool compile_if_asked(const char* who, const sr_tape* t, const Ar& ar, unsigned which, Compiled& c) {
    if (!compiled_asked()) return false;
    std::string why;
    const bool ok = build_compiled(t, ar, which, c, why);
    report_compiled(who, t, ok, c.compile_seconds, why);
    return ok;
}

inline unsigned compiled_blocks(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, (n + 255) / 256)); }

// The compiled kernels over the interpreter's point sources (tape_kernel.cuh): the same
// points, one thread each, 256 to a block. n < 2^31·256.
template <class Ar>
cudaError_t launch_compiled(const Compiled& c, Ar ar, const FlatSource& src, int64_t n, uint64_t* d_out) {
    const uint64_t* points = src.points;
    long long inputs = src.inputs, count = n;
    void* args[] = {&ar, &points, &inputs, &count, &d_out};
    return cudaLaunchKernel(reinterpret_cast<const void*>(c.flat), dim3(compiled_blocks(n)), dim3(256), args, 0, nullptr);
}

template <class Ar>
cudaError_t launch_compiled(const Compiled& c, Ar ar, const GridSource& src, int64_t n, uint64_t* d_out) {
    const uint64_t *a = src.a, *b = src.b, *scales = src.scales;
    const uint32_t* source = src.source;
    long long wa = src.width_a, wb = src.width_b, cols = src.cols, nodes = src.nodes, count = n;
    void* args[] = {&ar, &a, &b, &source, &scales, &wa, &wb, &cols, &nodes, &count, &d_out};
    return cudaLaunchKernel(reinterpret_cast<const void*>(c.grid), dim3(compiled_blocks(n)), dim3(256), args, 0, nullptr);
}

}  // namespace
