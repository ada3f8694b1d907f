// seprank — where a computation runs: the CPU, or a CUDA GPU through the plugin.
//
// The CUDA engine is a plugin (libseprank_cuda.so, built from cuda/ where nvcc is found;
// docs/gpu.md). The library never links CUDA: it loads the plugin with dlopen the first
// time a device is asked about, and only then. A build without the plugin, or a machine
// without a GPU, answers every question on the CPU exactly as before.
//
// Device requests (the --device option of generic, rank, dimension and table):
//   cpu    the CPU (the default everywhere).
//   cuda   the GPU; where there is none (no plugin, no driver, no device) the request is
//          refused (invalid_input, one line saying why: exit 2 in the CLI).
//   auto   the GPU when there is one, else the CPU, and the answer's note says so.
// Every answer names the device that computed it (RankAnswer::device, answer.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace seprank {

enum class Device { automatic, cpu, cuda };
// "auto" | "cpu" | "cuda"; internal_error for a value outside the enum. O(1).
std::string to_string(Device d);
// The inverse of to_string (exact, case-sensitive); anything else: invalid_input naming
// the value. O(1).
Device device_from_string(const std::string& s);

// What this process can use. Filled on the first call (the plugin is loaded then, once,
// thread-safe); later calls return the same object. Cost: one dlopen and one CUDA device
// query on the first call (a fraction of a second where a driver is present), O(1) after.
struct CudaInfo {
    bool built = false;          // this build made the plugin (Meson option cuda)
    bool loaded = false;         // a plugin was found and loaded (path in `plugin`)
    int devices = 0;             // usable GPUs (0: none)
    std::string name;            // device 0, e.g. "NVIDIA H200, 140 GiB, sm_90"
    std::string why;             // one line when devices == 0: why there is none
    std::string plugin;          // the file loaded
    std::uint64_t max_prime = 0; // the largest prime the GPU elimination accepts
};
// This process's CudaInfo (above). The plugin is the file $SEPRANK_CUDA_PLUGIN names when
// that is set (that file only); otherwise it is looked for, in order, beside the
// executable or the shared library holding this code, in seprank/ there (an installed
// library's own plugin), in ../lib, ../lib/seprank and ../<libdir>/seprank from there
// (an installed executable's), in this build tree, and where `meson install` puts it.
// A plugin that is
// missing, does not load or finds no device is reported in `why`, not thrown. Cost: as
// CudaInfo says, one dlopen and device query on the first call, O(1) after.
const CudaInfo& cuda_info();

// The most bits of the primes drawn for the GPU: 31, the largest that the graded session's
// 32-bit blocks and the tape's 32-bit words take; the elimination runs them in one-sided
// limbs, about 2x the GEMM work of kCudaOneLimbBits, for a failure bound 2^8 times smaller
// per trial (docs/gpu.md "Primes").
inline constexpr int kCudaDrawnBits = 31;
// The most bits whose primes the GPU elimination runs in one limb (one exact FP64 product
// per 256-column panel update): asked for with --prime-bits 23, and drawn where only
// exactness matters (the Hadamard reference of a rank over Q).
inline constexpr int kCudaOneLimbBits = 23;
// Bits of the primes drawn for the GPU: kCudaDrawnBits, fewer when cuda_info().max_prime is
// smaller (0 without a GPU). A prime given explicitly may be up to cuda_info().max_prime.
// Never throws. Cost: cuda_info() (the plugin is loaded on the first call), O(1) after.
int cuda_prime_bits();

// A request resolved: the device that will compute, its name for the answer ("cpu", or
// "cuda: NVIDIA H200, ..."), and a note when `auto` fell back to the CPU (else empty).
struct DeviceChoice {
    Device device = Device::cpu;
    std::string name = "cpu";
    std::string note;
};
// cpu: the CPU. cuda: the GPU, or invalid_input("Device cuda: <why>") where there is
// none. automatic: the GPU where there is one, else the CPU with a note saying why.
// Cost: cuda_info().
DeviceChoice choose_device(Device requested);

// The bits of a prime drawn for a computation on `dev` that asks for `requested` bits:
// `requested` on the CPU, at most cuda_prime_bits() on the GPU; not range-checked. O(1)
// after cuda_info().
int drawn_prime_bits(const DeviceChoice& dev, int requested);
// A prime given for a computation on `dev`, returned as it is; on the GPU one above
// cuda_info().max_prime is refused (invalid_input naming it). O(1).
std::uint64_t check_device_prime(const DeviceChoice& dev, std::uint64_t p);

}  // namespace seprank
