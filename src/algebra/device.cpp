#include "seprank/device.hpp"

#include "device_paths.hpp"
#include "device_plugin.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace seprank {

std::string to_string(Device d) {
    switch (d) {
    case Device::automatic: return "auto";
    case Device::cpu: return "cpu";
    case Device::cuda: return "cuda";
    }
    throw internal_error("to_string(Device): unknown value " + std::to_string(static_cast<int>(d)));
}

Device device_from_string(const std::string& s) {
    if (s == "auto") return Device::automatic;
    if (s == "cpu") return Device::cpu;
    if (s == "cuda") return Device::cuda;
    throw invalid_input("device '" + s + "': expected auto, cpu or cuda");
}

namespace {

std::string dir_of(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// The file SEPRANK_CUDA_PLUGIN names, or null when it is unset or empty.
const char* plugin_named() {
    const char* env = std::getenv("SEPRANK_CUDA_PLUGIN");
    return env && *env ? env : nullptr;
}

// Where the plugin may be, in the order of device.hpp.
std::vector<std::string> candidates() {
    std::vector<std::string> out;
    if (const char* env = plugin_named()) return {env};  // that file only
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&cuda_info), &info) && info.dli_fname && *info.dli_fname) {
        std::string here = info.dli_fname;
        if (here.find('/') == std::string::npos) {  // the executable found on PATH: /proc knows its file
            char buf[4096];
            const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
            if (n > 0) here.assign(buf, static_cast<std::size_t>(n));
        }
        const std::string d = dir_of(here);
        // Beside it, then an installed library's own <libdir>/seprank, then an executable's
        // in <prefix>/bin (plain and multiarch libdir).
        for (const char* rel : {"/", "/seprank/", "/../lib/", "/../lib/seprank/"}) out.push_back(d + rel + "libseprank_cuda.so");
        if (*SEPRANK_CUDA_PLUGIN_LIBDIR) out.push_back(d + "/../" SEPRANK_CUDA_PLUGIN_LIBDIR "/seprank/libseprank_cuda.so");
    }
    out.emplace_back(SEPRANK_CUDA_PLUGIN_BUILD);
    out.emplace_back(SEPRANK_CUDA_PLUGIN_INSTALL);
    return out;
}

struct Loaded {
    CudaInfo info;
    detail::CudaPlugin fn;
};

template <class F>
bool bind(void* h, const char* name, F& f) {
    f = reinterpret_cast<F>(dlsym(h, name));
    return f != nullptr;
}

// Why the plugin found no device, in words a user can act on. The CUDA runtime answers
// "CUDA driver version is insufficient for CUDA runtime version" also where there is no
// driver at all (a machine without an NVIDIA GPU): the driver's library is looked for
// first, and its absence is said as such.
std::string no_device_reason(const std::string& runtime) {
    if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
        dlclose(driver);
        return "no CUDA device (" + runtime + ")";
    }
    return "no NVIDIA GPU driver was found (libcuda.so.1 does not load), so there is no GPU to run on";
}

Loaded load() {
    Loaded l;
    l.info.built = SEPRANK_CUDA_BUILT != 0;
    std::string tried;
    void* h = nullptr;
    for (const auto& c : candidates()) {
        h = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (h) {
            l.info.plugin = c;
            break;
        }
        // A file that exists but does not load (a missing libcudart, say) is the reason to
        // report; so is the one file SEPRANK_CUDA_PLUGIN names.
        const char* e = dlerror();
        if (e && tried.empty() && (plugin_named() || std::string(e).find("No such file") == std::string::npos)) tried = e;
    }
    if (!h) {
        l.info.why = !tried.empty() ? "the CUDA plugin does not load: " + tried
                     : l.info.built ? "the CUDA plugin libseprank_cuda.so was not found (set SEPRANK_CUDA_PLUGIN to its path)"
                     : SEPRANK_CUDA_WHEEL ? "this wheel carries no CUDA plugin: set SEPRANK_CUDA_PLUGIN to the "
                                            "cuda/libseprank_cuda.so of a full build (docs/python.md)"
                                    : "this build has no CUDA engine (built without nvcc, or with -Dcuda=disabled)";
        return l;
    }
    auto& f = l.fn;
    // The version first: an older plugin lacks the newer entries, and its version says why.
    if (bind(h, "sr_cuda_abi", f.abi) && f.abi() != SEPRANK_CUDA_ABI) {
        l.info.why = "the CUDA plugin " + l.info.plugin + " has interface version " + std::to_string(f.abi()) + ", this library " +
                     std::to_string(SEPRANK_CUDA_ABI);
        return l;
    }
    if (!f.abi || !bind(h, "sr_cuda_probe", f.probe) || !bind(h, "sr_cuda_max_prime", f.max_prime) ||
        !bind(h, "sr_cuda_rank", f.rank) || !bind(h, "sr_cuda_rank_many", f.rank_many) || !bind(h, "sr_cuda_tape_eval", f.tape_eval) || !bind(h, "sr_cuda_tape_grid", f.tape_grid) ||
        !bind(h, "sr_cuda_graded_open", f.graded_open) || !bind(h, "sr_cuda_graded_step", f.graded_step) ||
        !bind(h, "sr_cuda_graded_rank", f.graded_rank) || !bind(h, "sr_cuda_graded_ranks", f.graded_ranks) ||
        !bind(h, "sr_cuda_graded_block", f.graded_block) ||
        !bind(h, "sr_cuda_graded_close", f.graded_close)) {
        l.info.why = "the CUDA plugin " + l.info.plugin + " lacks an entry of seprank_cuda.h";
        return l;
    }
    l.info.loaded = true;
    char name[256] = {0};
    l.info.devices = f.probe(name, sizeof name);
    (l.info.devices > 0 ? l.info.name : l.info.why) = name;
    if (l.info.devices == 0) l.info.why = no_device_reason(l.info.why);
    l.info.max_prime = f.max_prime();
    return l;
}

const Loaded& loaded() {
    static const Loaded l = load();
    return l;
}

}  // namespace

const CudaInfo& cuda_info() { return loaded().info; }

namespace detail {

const CudaPlugin& cuda_plugin() {
    const Loaded& l = loaded();
    if (l.info.devices <= 0) throw invalid_input("Device cuda: " + l.info.why);
    return l.fn;
}

void check_cuda(const sr_cuda_status& st, const std::string& what) {
    const std::string msg = what + ": " + st.message;
    switch (st.code) {
    case SR_CUDA_OK: return;
    case SR_CUDA_INVALID:
    case SR_CUDA_NO_DEVICE: throw invalid_input(msg);
    case SR_CUDA_NO_MEMORY: throw resource_limit(msg);
    default: throw internal_error(msg);
    }
}

}  // namespace detail

int cuda_prime_bits() {
    const std::uint64_t m = cuda_info().max_prime;
    int b = 0;
    while (b < 63 && (std::uint64_t{1} << (b + 1)) - 1 <= m) ++b;  // every (b)-bit number is below 2^b <= m + 1
    // At most 31 bits: the graded session stores 32-bit residues and the tape runs in 32-bit
    // words below 2^31; the elimination takes these primes in one-sided limbs, two products an
    // update (blocked_rank_impl.hpp).
    return std::min(b, kCudaDrawnBits);
}

int drawn_prime_bits(const DeviceChoice& dev, int requested) {
    return dev.device == Device::cuda ? std::min(requested, cuda_prime_bits()) : requested;
}

std::uint64_t check_device_prime(const DeviceChoice& dev, std::uint64_t p) {
    if (dev.device == Device::cuda && p > cuda_info().max_prime)
        throw invalid_input("prime " + std::to_string(p) + " is above " + std::to_string(cuda_info().max_prime) +
                            ", the largest prime the GPU elimination takes (docs/gpu.md)");
    return p;
}

DeviceChoice choose_device(Device requested) {
    DeviceChoice c;
    if (requested == Device::cpu) return c;
    const CudaInfo& info = cuda_info();
    if (info.devices > 0) {
        c.device = Device::cuda;
        c.name = "cuda: " + info.name;
        return c;
    }
    if (requested == Device::cuda) throw invalid_input("Device cuda: " + info.why + "; ask for device cpu or auto instead (--device cpu on the command line, device=\"cpu\" in Python)");
    c.note = "device auto: computed on the CPU, " + info.why;
    return c;
}

namespace {

// invalid_input unless the GPU elimination takes p.
void check_gpu_prime(std::uint64_t p) {
    if (p < 2 || p > cuda_info().max_prime)
        throw invalid_input("prime " + std::to_string(p) + ": the GPU elimination takes primes up to " + std::to_string(cuda_info().max_prime));
    require_prime(p);  // the elimination inverts pivots: mod a composite its rank means nothing
}

// a's entries as one row-major array, as the plugin reads them: FLINT's own entries where
// its rows lie in order in them (a matrix of its own, as NmodMat's are), else a copy into
// `dense` (no 8 GiB copy of a 32768² matrix on the way to the GPU).
const std::uint64_t* row_major(const NmodMat& a, std::vector<std::uint64_t>& dense) {
    static_assert(sizeof(mp_limb_t) == sizeof(std::uint64_t), "FLINT limbs are 64-bit words");
    const long m = a.rows(), n = a.cols();
    const mp_limb_t* entries = a.get()->entries;
    bool in_order = entries != nullptr;
    for (long i = 0; i < m && in_order; ++i) in_order = a.get()->rows[i] == entries + static_cast<std::size_t>(i) * static_cast<std::size_t>(n);
    if (in_order) return reinterpret_cast<const std::uint64_t*>(entries);
    dense.resize(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j) dense[static_cast<std::size_t>(i * n + j)] = a.get()->rows[i][j];
    return dense.data();
}

}  // namespace

std::vector<long> rank_modular_cuda_many(const std::vector<const NmodMat*>& mats, double* gpu_seconds, int* streams) {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    if (gpu_seconds) *gpu_seconds = 0;
    if (streams) *streams = 0;
    if (mats.empty()) return {};
    const std::uint64_t p = mats.front()->modulus();
    check_gpu_prime(p);
    std::vector<std::vector<std::uint64_t>> copies(mats.size());
    std::vector<const std::uint64_t*> data(mats.size());
    std::vector<std::int64_t> rows(mats.size()), cols(mats.size()), ranks(mats.size(), 0);
    for (std::size_t q = 0; q < mats.size(); ++q) {
        if (mats[q]->modulus() != p)
            throw invalid_input("rank_modular_cuda_many: matrix " + std::to_string(q) + " is mod " + std::to_string(mats[q]->modulus()) +
                                ", the first mod " + std::to_string(p));
        rows[q] = mats[q]->rows();
        cols[q] = mats[q]->cols();
        data[q] = rows[q] > 0 && cols[q] > 0 ? row_major(*mats[q], copies[q]) : nullptr;
    }
    sr_cuda_status st{};
    fn.rank_many(data.data(), rows.data(), cols.data(), static_cast<std::int64_t>(mats.size()), p, ranks.data(), &st);
    detail::check_cuda(st, "rank_modular_cuda_many");
    if (gpu_seconds) *gpu_seconds = st.gpu_seconds;
    if (streams) *streams = static_cast<int>(st.streams);
    return std::vector<long>(ranks.begin(), ranks.end());
}

long rank_modular_cuda(const NmodMat& a, int tile, double* gpu_seconds) {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    const std::uint64_t p = a.modulus();
    check_gpu_prime(p);
    if (tile < 0) throw invalid_input("tile " + std::to_string(tile) + ": expected >= 0");
    const long m = a.rows(), n = a.cols();
    if (gpu_seconds) *gpu_seconds = 0;
    if (m == 0 || n == 0) return 0;
    std::vector<std::uint64_t> dense;
    const std::uint64_t* data = row_major(a, dense);
    sr_cuda_status st{};
    std::int64_t r = 0;
    fn.rank(data, m, n, p, tile, &r, &st);
    detail::check_cuda(st, "rank_modular_cuda");
    if (gpu_seconds) *gpu_seconds = st.gpu_seconds;
    return static_cast<long>(r);
}

}  // namespace seprank
