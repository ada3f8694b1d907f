// bench_gpu_rank — rank mod p of a planted n x n matrix on the GPU (the CUDA engine's
// blocked elimination, cuda/rank.cu), against the CPU (rank_modular_fflas) on the same
// machine. Issue 35's target: n = 32768 in at most 1 s on one H100/H200.
//
// Usage:
//   bench_gpu_rank [--n N] [--deficiency D] [--cpu-n M] [--tile T] [--prime P] [--seed S] [--threads K]
//     N  side of the GPU matrix (default 32768)
//     D  planted deficiency: rank N - D (default 100)
//     M  side of the CPU comparison (default 4096; 0 skips it): rank_modular_fflas and the
//        GPU on the same planted M x M, and the CPU time scaled by (N/M)^3
//     T  panel width (default 0: the engine's 256)
//     P  prime, at most 67108859 (default 8388593, the largest below 2^23)
//     S  seed of the matrix (default 1); K threads build it (default: the cores)
// Planting costs O(N^2), not a product of factors: uniform entries, then D rows, drawn at
// random, overwritten by combinations of 2 or 3 of the other rows. The rank is N - D except
// with chance below 2/P (the N - D other rows are uniform), and the bench checks it.
// Without a GPU (cuda_info().devices == 0) it says why and runs the CPU part only.
// Output: one "key: value" line per measure; exit 1 when a rank differs from the planted one.
#include "../src/device_plugin.hpp"
#include "seprank/device.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/nmod_mat.h>

#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace seprank;

namespace {

using seprank_bench::now;

// The planted matrix, row-major, entries in [0, p): rank n - d except with chance < 2/p.
std::vector<std::uint64_t> plant(long n, long d, std::uint64_t p, std::uint64_t seed, unsigned threads) {
    std::vector<std::uint64_t> a(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            Rng rng = Rng(seed).split(t + 1);
            const long lo = n * t / threads, hi = n * (t + 1) / threads;
            for (std::size_t e = static_cast<std::size_t>(lo) * n; e < static_cast<std::size_t>(hi) * n; ++e) a[e] = rng.below(p);
        });
    for (auto& th : pool) th.join();
    Rng rng = Rng(seed).split(0);
    std::vector<char> dead(static_cast<std::size_t>(n), 0);
    for (long k = 0; k < d && k < n;) {
        const auto i = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(n)));
        if (!dead[i]) dead[i] = 1, ++k;
    }
    std::vector<std::uint64_t> row(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) {
        if (!dead[static_cast<std::size_t>(i)]) continue;
        std::fill(row.begin(), row.end(), 0);
        const int terms = 2 + static_cast<int>(rng.below(2));
        for (int t = 0; t < terms; ++t) {
            std::size_t s = 0;
            do s = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(n)));
            while (dead[s]);
            const std::uint64_t c = 1 + rng.below(p - 1);
            for (long j = 0; j < n; ++j) row[static_cast<std::size_t>(j)] = (row[static_cast<std::size_t>(j)] + c * a[s * n + j] % p) % p;
        }
        std::copy(row.begin(), row.end(), a.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * n));
    }
    return a;
}

struct GpuRun {
    long rank = -1;
    double gpu_s = 0, wall_s = 0, bytes = 0;
};

GpuRun gpu_rank(const std::vector<std::uint64_t>& a, long n, std::uint64_t p, int tile) {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    sr_cuda_status st{};
    std::int64_t r = 0;
    const double t0 = now();
    fn.rank(a.data(), n, n, p, tile, &r, &st);
    GpuRun out;
    out.wall_s = now() - t0;
    detail::check_cuda(st, "bench_gpu_rank");
    out.rank = static_cast<long>(r);
    out.gpu_s = st.gpu_seconds;
    out.bytes = st.bytes;
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    long n = 32768, d = 100, cpu_n = 4096;
    int tile = 0;
    std::uint64_t p = 8388593, seed = 1;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char* v = argv[i + 1];
        if (k == "--n") n = std::atol(v);
        else if (k == "--deficiency") d = std::atol(v);
        else if (k == "--cpu-n") cpu_n = std::atol(v);
        else if (k == "--tile") tile = std::atoi(v);
        else if (k == "--prime") p = std::strtoull(v, nullptr, 10);
        else if (k == "--seed") seed = std::strtoull(v, nullptr, 10);
        else if (k == "--threads") threads = static_cast<unsigned>(std::max(1, std::atoi(v)));
        else {
            std::fprintf(stderr, "bench_gpu_rank: unknown option %s (see the top of bench/gpu_rank_bench.cpp)\n", k.c_str());
            return 2;
        }
    }
    if (n < 1 || d < 0 || d >= n || cpu_n < 0) {
        std::fprintf(stderr, "bench_gpu_rank: need 0 <= deficiency < n and cpu-n >= 0\n");
        return 2;
    }
    int status = 0;
    const CudaInfo& info = cuda_info();
    std::printf("device: %s\n", info.devices > 0 ? info.name.c_str() : ("none (" + info.why + ")").c_str());
    std::printf("prime: %llu\ntile: %d\n", static_cast<unsigned long long>(p), tile);
    if (info.devices > 0) {
        const double t0 = now();
        const std::vector<std::uint64_t> a = plant(n, d, p, seed, threads);
        std::printf("n: %ld\nplanted_rank: %ld\nplant_seconds: %.2f\n", n, n - d, now() - t0);
        std::fflush(stdout);
        const GpuRun g = gpu_rank(a, n, p, tile);
        std::printf("gpu_rank: %ld\ngpu_seconds: %.3f\ngpu_wall_seconds: %.3f\ngpu_bytes_mib: %.0f\n", g.rank, g.gpu_s, g.wall_s,
                    g.bytes / (1024.0 * 1024.0));
        if (g.rank != n - d) {
            std::printf("MISMATCH: gpu rank %ld, planted %ld\n", g.rank, n - d);
            status = 1;
        }
        std::fflush(stdout);
    }
    if (cpu_n > 0) {
        const long dc = std::min(d, cpu_n / 2);
        const std::vector<std::uint64_t> a = plant(cpu_n, dc, p, seed + 1, threads);
        NmodMat m(cpu_n, cpu_n, p);
        for (long i = 0; i < cpu_n; ++i) std::memcpy(m.get()->rows[i], a.data() + static_cast<std::size_t>(i) * cpu_n, sizeof(std::uint64_t) * cpu_n);
        const double t0 = now();
        const long rc = rank_modular_fflas(m);
        const double cpu_s = now() - t0;
        std::printf("cpu_n: %ld\ncpu_rank: %ld\ncpu_seconds: %.3f (rank_modular_fflas, %s)\ncpu_seconds_scaled_to_n: %.1f\n", cpu_n, rc,
                    cpu_s, fflas_copy_name(), cpu_s * (static_cast<double>(n) / cpu_n) * (static_cast<double>(n) / cpu_n) *
                                                  (static_cast<double>(n) / cpu_n));
        if (rc != cpu_n - dc) {
            std::printf("MISMATCH: cpu rank %ld, planted %ld\n", rc, cpu_n - dc);
            status = 1;
        }
        if (info.devices > 0) {
            const GpuRun g = gpu_rank(a, cpu_n, p, tile);
            std::printf("gpu_seconds_at_cpu_n: %.3f\ngpu_wall_seconds_at_cpu_n: %.3f\nspeedup_at_cpu_n: %.1f\n", g.gpu_s, g.wall_s,
                        g.gpu_s > 0 ? cpu_s / g.gpu_s : 0.0);
            if (g.rank != rc) {
                std::printf("MISMATCH: gpu rank %ld at cpu_n, cpu %ld\n", g.rank, rc);
                status = 1;
            }
        }
    }
    return status;
}
