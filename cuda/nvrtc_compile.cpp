// seprank CUDA plugin (private): NVRTC compilation of a network's own kernel
// (nvrtc_compile.hpp).
#include "nvrtc_compile.hpp"

#include "base/file_io.hpp"
#include "base/hash.hpp"
#include "tape_impl_text.hpp"

#include <nvrtc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace sr_cuda {

namespace {

// The standard headers tape_impl.hpp includes, as far as it uses them (NVRTC has none).
constexpr const char* kCstdint =
    "#pragma once\nnamespace std { typedef unsigned long uint64_t; typedef unsigned int uint32_t; typedef long int64_t; }\n";
constexpr const char* kCstddef = "#pragma once\nnamespace std { typedef unsigned long size_t; }\n";

// NVRTC's options besides the architecture (the disk cache's key names them).
constexpr const char* kOptions[] = {"--std=c++17", "-default-device"};

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
    const char* opts[] = {gpu.c_str(), kOptions[0], kOptions[1]};
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

namespace {

// The whole file at path, or false.
bool read_file(const std::string& path, std::string& out) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    if (!in.good() && !in.eof()) return false;
    out = ss.str();
    return true;
}

// Whether dir is a folder of this user that no one else may write (an image read from it is
// run as it is: its hash guards against damage, not against another user's file).
bool private_folder(const std::string& dir) {
    struct stat st {};
    return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::getuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

}  // namespace

std::string cache_dir() {
    if (const char* e = std::getenv("SEPRANK_CUDA_CACHE")) {
        const std::string v = e;
        return v == "off" ? std::string() : v;
    }
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/seprank/cuda";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/seprank/cuda";
    return std::string();
}

bool nvrtc_compile_cached(const std::string& tu, int arch, std::string& cubin, std::string& log, bool* hit) {
    if (hit) *hit = false;
    const std::string dir = cache_dir();
    if (dir.empty()) return nvrtc_compile(tu, arch, cubin, log);
    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    // What the image depends on besides the text: the architecture, NVRTC, its options and
    // the headers the text includes (the arithmetic of tape_impl.hpp, built into the plugin),
    // so an upgrade of any of them is a miss, not a stale kernel.
    std::string built = std::string(kTapeImplText) + kCstdint + kCstddef;
    for (const char* o : kOptions) built += std::string(o) + "\n";
    const std::string key = "// sm_" + std::to_string(arch) + ", NVRTC " + std::to_string(major) + "." + std::to_string(minor) + ", headers and options " +
                            seprank::detail::fnv1a_hex(built) + "\n" + tu;
    // One file holds the text and the image, so a reader sees both of one writer or none;
    // its first line gives the sizes and the image's hash, so a damaged file is a miss.
    const std::string path = dir + "/" + seprank::detail::fnv1a_hex(key) + ".image";
    const auto head_of = [&](const std::string& image) {
        return "seprank cuda image 2 " + std::to_string(key.size()) + " " + std::to_string(image.size()) + " " + seprank::detail::fnv1a_hex(image) + "\n";
    };
    std::string kept;
    if (private_folder(dir) && read_file(path, kept)) {
        const std::size_t eol = kept.find('\n');
        if (eol != std::string::npos && kept.size() > eol + 1 + key.size() && kept.compare(eol + 1, key.size(), key) == 0) {
            std::string image = kept.substr(eol + 1 + key.size());
            if (kept.compare(0, eol + 1, head_of(image)) == 0 && image.size() > 64 && image.compare(1, 3, "ELF") == 0) {
                cubin = std::move(image);
                if (hit) *hit = true;
                return true;
            }
        }
    }
    if (!nvrtc_compile(tu, arch, cubin, log)) return false;
    // A folder that is not there is made for this user alone (its parents as usual); one that
    // is there is used only if it is already private, and never changed.
    std::error_code ec;
    if (!std::filesystem::exists(dir, ec)) {
        const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
        if (!parent.empty()) std::filesystem::create_directories(parent, ec);
        ::mkdir(dir.c_str(), 0700);
    }
    // written as every output of seprank is (a fresh temporary file, renamed into place); a
    // file that cannot be written only costs the next run a compilation
    if (private_folder(dir)) {
        try {
            seprank::detail::write_file_atomically(path, head_of(cubin) + key + cubin, "CUDA image cache file");
        } catch (const std::exception&) {
        }
    }
    return true;
}

}  // namespace sr_cuda
