// seprank CUDA plugin (private): a network's own kernel (docs/gpu.md, "Compiled programs").
// The forward program of a tape becomes straight-line source (src/network/tape_source_impl.hpp),
// NVRTC compiles it for this GPU (nvrtc_compile.cpp), and the runtime loads the image
// (cudaLibraryLoadData): one thread per point as the interpreter (tape_kernel.cuh), its slots
// in registers, its constants in constant memory (sr_weights, filled for each tape), so one
// image serves every tape of a network's shape: it is kept for the process, and on disk
// between runs (nvrtc_compile_cached). Asked for with SEPRANK_CUDA_COMPILED=1 (the
// interpreter otherwise); where compiling or loading fails the interpreter runs and `why`
// says so. Included by tape.cu and graded.cu after tape_kernel.cuh.
#pragma once

#include "network/tape_source_impl.hpp"
#include "nvrtc_compile.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sr_cuda {

// One loaded image: a network shape's kernel (flat or grid) and the device address of its
// constants (sr_weights). Shared by every tape of that shape in the process: a trial, a
// prime or new weights only fill sr_weights again, under `use`.
struct Image {
    cudaLibrary_t lib = nullptr;
    cudaKernel_t kernel = nullptr;
    void* weights = nullptr;  // sr_weights in device memory
    std::size_t weights_bytes = 0;
    std::mutex use;  // held from filling sr_weights to the last launch that reads them
    Image() = default;
    Image(const Image&) = delete;
    Image& operator=(const Image&) = delete;
    ~Image() {
        if (lib) cudaLibraryUnload(lib);
    }
};

// The images loaded by this process (tape.cu's and graded.cu's alike: these inline
// functions are outside the anonymous namespace, so their statics are one for the plugin),
// by device, architecture and text. Never freed: an image lives as long as the CUDA context
// (the process), and a shape is met again by the next trial, row or call.
inline std::mutex& images_lock() {
    static std::mutex* m = new std::mutex();
    return *m;
}
inline std::map<std::string, std::shared_ptr<Image>>& images() {
    static auto* m = new std::map<std::string, std::shared_ptr<Image>>();
    return *m;
}

}  // namespace sr_cuda

namespace {

using sr_cuda::Image;
using sr_cuda::images;
using sr_cuda::images_lock;

// One line on stderr, where SEPRANK_CUDA_COMPILED=1 asked for the compiled kernels: what
// ran (the device logs of tests/device/run.sh show it), and where the kernel came from.
inline void report_compiled(const char* who, const sr_tape* t, bool ok, double seconds, const char* from, const std::string& why) {
    if (ok)
        std::fprintf(stderr, "seprank cuda: %s: the network's own kernel (%lld instructions) %s in %.3f s\n", who,
                     static_cast<long long>(t->n_ops), from, seconds);
    else
        std::fprintf(stderr, "seprank cuda: %s: no compiled kernel (%s); the interpreter ran\n", who, why.c_str());
}

// One tape's compiled kernel: the shared image and this tape's constants.
struct Compiled {
    std::shared_ptr<Image> image;
    std::vector<std::uint64_t> weights;  // sr_weights' values for this tape (program_weights)
    double compile_seconds = 0;
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

// Kernel `which` (tape::kFlatKernel or tape::kGridKernel) of tape t, whose constants are in
// Ar's form (narrowed for Mont32), into c: from this process's images, else from the disk
// cache (nvrtc_compile_cached), else compiled by NVRTC; `from` says which. false, with the
// reason in why, where any step fails or the program is longer than tape::kMaxCompiledOps:
// the caller runs the interpreter.
template <class Ar>
bool build_compiled(const sr_tape* t, const Ar& ar, unsigned which, Compiled& c, const char*& from, std::string& why) {
    const auto t0 = std::chrono::steady_clock::now();
    if (static_cast<std::size_t>(t->n_ops) > seprank::tape::kMaxCompiledOps) {
        why = "a program of " + std::to_string(t->n_ops) + " instructions, above the " + std::to_string(seprank::tape::kMaxCompiledOps) +
              " whose compilation takes a minute";
        return false;
    }
    const std::string tu = seprank::tape::kernel_text(t->ops, static_cast<std::size_t>(t->n_ops), static_cast<std::size_t>(t->slots), t->output,
                                                      form_of(ar), which);
    if (tu.empty()) {
        why = "an instruction without a source form";
        return false;
    }
    c.weights = seprank::tape::program_weights(t->ops, static_cast<std::size_t>(t->n_ops));
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        why = "the device's compute capability";
        return false;
    }
    const int arch = major * 10 + minor;
    const std::string key = "device " + std::to_string(dev) + ", sm_" + std::to_string(arch) + "\n" + tu;
    {
        std::lock_guard<std::mutex> lock(images_lock());
        const auto it = images().find(key);
        if (it != images().end()) {
            c.image = it->second;
            from = "taken from this process's images";
        }
    }
    if (!c.image) {
        std::string cubin, log;
        bool hit = false;
        if (!sr_cuda::nvrtc_compile_cached(tu, arch, cubin, log, &hit)) {
            why = "NVRTC: " + log.substr(0, 300);
            return false;
        }
        auto img = std::make_shared<Image>();
        cudaError_t e = cudaLibraryLoadData(&img->lib, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
        if (e == cudaSuccess)
            e = cudaLibraryGetKernel(&img->kernel, img->lib, which == seprank::tape::kFlatKernel ? "sr_compiled_flat" : "sr_compiled_grid");
        if (e == cudaSuccess) e = cudaLibraryGetGlobal(&img->weights, &img->weights_bytes, img->lib, "sr_weights");
        if (e == cudaSuccess && img->weights_bytes < c.weights.size() * sizeof(std::uint64_t)) e = cudaErrorInvalidValue;
        if (e != cudaSuccess) {
            why = std::string("loading the compiled kernel: ") + cudaGetErrorString(e);
            (void)cudaGetLastError();  // not left pending for the interpreter's launch check
            return false;
        }
        from = hit ? "read from the disk cache and loaded" : "compiled and loaded";
        std::lock_guard<std::mutex> lock(images_lock());
        c.image = images().emplace(key, std::move(img)).first->second;  // another thread's, if it was first
    }
    c.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return true;
}

// Where SEPRANK_CUDA_COMPILED=1 asks for it, finds or compiles t's kernel `which` into c
// and reports what will run (report_compiled); whether c is to be launched. Ar, t and which
// as build_compiled's.
template <class Ar>
bool compile_if_asked(const char* who, const sr_tape* t, const Ar& ar, unsigned which, Compiled& c) {
    if (!compiled_asked()) return false;
    std::string why;
    const char* from = "";
    const bool ok = build_compiled(t, ar, which, c, from, why);
    report_compiled(who, t, ok, c.compile_seconds, from, why);
    return ok;
}

// Holds c's image for this tape's launches: fills sr_weights with c's constants (ordered
// after every kernel launched before on the legacy default stream, which all the launches
// use) and keeps another tape of the same shape from filling them until the lock is
// released after the last launch that reads them. c null (the interpreter runs): holds
// nothing. e: the copy's error.
inline std::unique_lock<std::mutex> hold_compiled(const Compiled* c, cudaError_t& e) {
    e = cudaSuccess;
    if (!c) return {};
    std::unique_lock<std::mutex> lock(c->image->use);
    if (!c->weights.empty())
        e = cudaMemcpy(c->image->weights, c->weights.data(), c->weights.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice);
    return lock;
}

inline unsigned compiled_blocks(int64_t n) { return static_cast<unsigned>(std::max<int64_t>(1, (n + 255) / 256)); }

// The compiled kernels over the interpreter's point sources (tape_kernel.cuh): the same
// points, one thread each, 256 to a block. n < 2^31·256.
template <class Ar>
cudaError_t launch_compiled(const Compiled& c, Ar ar, const FlatSource& src, int64_t n, uint64_t* d_out) {
    const uint64_t* points = src.points;
    long long inputs = src.inputs, count = n;
    void* args[] = {&ar, &points, &inputs, &count, &d_out};
    return cudaLaunchKernel(reinterpret_cast<const void*>(c.image->kernel), dim3(compiled_blocks(n)), dim3(256), args, 0, nullptr);
}

template <class Ar>
cudaError_t launch_compiled(const Compiled& c, Ar ar, const GridSource& src, int64_t n, uint64_t* d_out) {
    const uint64_t *a = src.a, *b = src.b, *scales = src.scales;
    const uint32_t* source = src.source;
    long long wa = src.width_a, wb = src.width_b, cols = src.cols, nodes = src.nodes, count = n;
    void* args[] = {&ar, &a, &b, &source, &scales, &wa, &wb, &cols, &nodes, &count, &d_out};
    return cudaLaunchKernel(reinterpret_cast<const void*>(c.image->kernel), dim3(compiled_blocks(n)), dim3(256), args, 0, nullptr);
}

}  // namespace
