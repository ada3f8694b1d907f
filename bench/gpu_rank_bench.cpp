// bench_gpu_rank — rank mod p of a planted n x n (or rows x n) matrix on the GPU (the CUDA engine's
// blocked elimination, cuda/rank.cu), against the CPU (rank_modular_fflas) on the same
// machine. Issue 35's target: n = 32768 in at most 1 s on one H100/H200.
//
// Usage:
//   bench_gpu_rank [--n N] [--rows R] [--deficiency D] [--cpu-n M] [--tile T] [--prime P | --prime-bits B]
//                  [--seed S] [--threads K]
//     N  columns of the GPU matrix, and its rows unless R is given (default 32768)
//     R  rows of the GPU matrix (default N): R > N and D near R make the very deficient tall
//        matrices whose rows reduced to zero fill the leaf's scan (docs/gpu.md)
//     D  planted deficiency: D rows made dependent, rank min(R - D, N) (default 100)
//     M  side of the CPU comparison (default 4096; 0 skips it): the CPU and the GPU on the
//        same planted M x M, and the CPU time scaled by (N/M)^3. The CPU is
//        rank_modular_fflas for p < 2^26, FLINT's nmod_mat_rank (rank_modular) above, and
//        for p > 2^26 also the blocked elimination's CPU reference (rank_modular_blocked)
//     T  panel width (default 0: the engine's 256)
//     P  prime, at most 2^46 - 21 (default 8388593, the largest below 2^23); above 2^26 the
//        elimination takes its two-limb mode (4 limb GEMMs per product, 2 below 2^31: the
//        one-sided limbs, docs/rank.md)
//     B  23: P = 8388593 (one GEMM per product); 31: P = 2^31 - 1 (one-sided limbs, the path
//        of the drawn 31-bit primes); 46: P = 2^46 - 21 (four limb GEMMs); both: 23 and 46
//        in turn, each section opened by its "prime:" line
//     S  seed of the matrix (default 1); K threads build it (default: the cores)
// Planting costs O(N^2), not a product of factors: uniform entries, then D rows, drawn at
// random, overwritten by combinations of 2 or 3 of the other rows. The rank is N - D except
// with chance below 2/P (the N - D other rows are uniform), and the bench checks it.
// Without a GPU (cuda_info().devices == 0) it says why and runs the CPU part only.
// Output: one "key: value" line per measure; exit 1 when a rank differs from the planted one.
#include "../src/algebra/device_plugin.hpp"
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

// The planted m x n matrix, row-major, entries in [0, p): d of its rows (d < m) combinations
// of 2 or 3 others, so rank min(m - d, n) except with chance < 2/p.
std::vector<std::uint64_t> plant(long m, long n, long d, std::uint64_t p, std::uint64_t seed, unsigned threads) {
    std::vector<std::uint64_t> a(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            Rng rng = Rng(seed).split(t + 1);
            const long lo = m * t / threads, hi = m * (t + 1) / threads;
            for (std::size_t e = static_cast<std::size_t>(lo) * n; e < static_cast<std::size_t>(hi) * n; ++e) a[e] = rng.below(p);
        });
    for (auto& th : pool) th.join();
    Rng rng = Rng(seed).split(0);
    std::vector<char> dead(static_cast<std::size_t>(m), 0);
    for (long k = 0; k < d && k < m - 1;) {
        const auto i = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(m)));
        if (!dead[i]) dead[i] = 1, ++k;
    }
    std::vector<std::uint64_t> row(static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i) {
        if (!dead[static_cast<std::size_t>(i)]) continue;
        std::fill(row.begin(), row.end(), 0);
        const int terms = 2 + static_cast<int>(rng.below(2));
        for (int t = 0; t < terms; ++t) {
            std::size_t s = 0;
            do s = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(m)));
            while (dead[s]);
            const std::uint64_t c = 1 + rng.below(p - 1);
            __extension__ typedef unsigned __int128 u128;
            for (long j = 0; j < n; ++j)
                row[static_cast<std::size_t>(j)] = static_cast<std::uint64_t>((row[static_cast<std::size_t>(j)] + static_cast<u128>(c) * a[s * n + j] % p) % p);
        }
        std::copy(row.begin(), row.end(), a.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * n));
    }
    return a;
}

struct GpuRun {
    long rank = -1;
    double gpu_s = 0, wall_s = 0, bytes = 0;
};

GpuRun gpu_rank(const std::vector<std::uint64_t>& a, long m, long n, std::uint64_t p, int tile) {
    const detail::CudaPlugin& fn = detail::cuda_plugin();
    sr_cuda_status st{};
    std::int64_t r = 0;
    const double t0 = now();
    fn.rank(a.data(), m, n, p, tile, &r, &st);
    GpuRun out;
    out.wall_s = now() - t0;
    detail::check_cuda(st, "bench_gpu_rank");
    out.rank = static_cast<long>(r);
    out.gpu_s = st.gpu_seconds;
    out.bytes = st.bytes;
    return out;
}

// One prime's section: the GPU at n, then the CPU and the GPU at cpu_n. Returns 1 on a
// rank that differs from the planted one.
int run_prime(long rows, long n, long d, long cpu_n, int tile, std::uint64_t p, std::uint64_t seed, unsigned threads) {
    int status = 0;
    const CudaInfo& info = cuda_info();
    const bool two_limb = p > (std::uint64_t{1} << 26);
    std::printf("prime: %llu\nmode: %s\ntile: %d\n", static_cast<unsigned long long>(p), !two_limb ? "one product" : p <= 2147483647 ? "two-limb, one-sided (two limb products)" : "two-limb (four limb products)", tile);
    if (info.devices > 0) {
        const double t0 = now();
        const std::vector<std::uint64_t> a = plant(rows, n, d, p, seed, threads);
        const long planted = std::min(rows - std::min(d, rows - 1), n);
        std::printf("rows: %ld\nn: %ld\nplanted_rank: %ld\nplant_seconds: %.2f\n", rows, n, planted, now() - t0);
        std::fflush(stdout);
        const GpuRun g = gpu_rank(a, rows, n, p, tile);
        std::printf("gpu_rank: %ld\ngpu_seconds: %.3f\ngpu_wall_seconds: %.3f\ngpu_bytes_mib: %.0f\n", g.rank, g.gpu_s, g.wall_s,
                    g.bytes / (1024.0 * 1024.0));
        if (g.rank != planted) {
            std::printf("MISMATCH: gpu rank %ld, planted %ld\n", g.rank, planted);
            status = 1;
        }
        std::fflush(stdout);
    }
    if (cpu_n > 0) {
        const long dc = std::min(d, cpu_n / 2);
        const std::vector<std::uint64_t> a = plant(cpu_n, cpu_n, dc, p, seed + 1, threads);
        NmodMat m(cpu_n, cpu_n, p);
        for (long i = 0; i < cpu_n; ++i) std::memcpy(m.get()->rows[i], a.data() + static_cast<std::size_t>(i) * cpu_n, sizeof(std::uint64_t) * cpu_n);
        const double t0 = now();
        const long rc = p < fflas_max_prime ? rank_modular_fflas(m) : rank_modular(m);
        const double cpu_s = now() - t0;
        const double scale = (static_cast<double>(n) / cpu_n) * (static_cast<double>(n) / cpu_n) * (static_cast<double>(n) / cpu_n);
        std::printf("cpu_n: %ld\ncpu_rank: %ld\ncpu_seconds: %.3f (%s)\ncpu_seconds_scaled_to_n: %.1f\n", cpu_n, rc, cpu_s,
                    p < fflas_max_prime ? (std::string("rank_modular_fflas, ") + fflas_copy_name()).c_str() : "rank_modular, FLINT nmod_mat_rank",
                    cpu_s * scale);
        if (rc != cpu_n - dc) {
            std::printf("MISMATCH: cpu rank %ld, planted %ld\n", rc, cpu_n - dc);
            status = 1;
        }
        if (two_limb) {  // the CPU reference of the GPU's algorithm, same steps
            const double t1 = now();
            const long rb = rank_modular_blocked(m, tile);
            std::printf("cpu_blocked_seconds: %.3f (rank_modular_blocked, two-limb mode, one thread)\n", now() - t1);
            if (rb != rc) {
                std::printf("MISMATCH: cpu blocked rank %ld, FLINT %ld\n", rb, rc);
                status = 1;
            }
        }
        std::fflush(stdout);
        if (info.devices > 0) {
            const GpuRun g = gpu_rank(a, cpu_n, cpu_n, p, tile);
            std::printf("gpu_seconds_at_cpu_n: %.3f\ngpu_wall_seconds_at_cpu_n: %.3f\nspeedup_at_cpu_n: %.1f\n", g.gpu_s, g.wall_s,
                        g.gpu_s > 0 ? cpu_s / g.gpu_s : 0.0);
            if (g.rank != rc) {
                std::printf("MISMATCH: gpu rank %ld at cpu_n, cpu %ld\n", g.rank, rc);
                status = 1;
            }
        }
    }
    std::fflush(stdout);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    long n = 32768, rows = 0, d = 100, cpu_n = 4096;
    int tile = 0;
    std::vector<std::uint64_t> primes = {8388593};
    std::uint64_t seed = 1;
    unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char* v = argv[i + 1];
        if (k == "--n") n = std::atol(v);
        else if (k == "--rows") rows = std::atol(v);
        else if (k == "--deficiency") d = std::atol(v);
        else if (k == "--cpu-n") cpu_n = std::atol(v);
        else if (k == "--tile") tile = std::atoi(v);
        else if (k == "--prime") primes = {std::strtoull(v, nullptr, 10)};
        else if (k == "--prime-bits") {
            const std::string b = v;
            if (b == "23") primes = {8388593};
            else if (b == "31") primes = {2147483647};
            else if (b == "46") primes = {blocked_max_prime};
            else if (b == "both") primes = {8388593, blocked_max_prime};
            else {
                std::fprintf(stderr, "bench_gpu_rank: --prime-bits %s: expected 23, 31, 46 or both\n", v);
                return 2;
            }
        } else if (k == "--seed") seed = std::strtoull(v, nullptr, 10);
        else if (k == "--threads") threads = static_cast<unsigned>(std::max(1, std::atoi(v)));
        else {
            std::fprintf(stderr, "bench_gpu_rank: unknown option %s (see the top of bench/gpu_rank_bench.cpp)\n", k.c_str());
            return 2;
        }
    }
    if (rows == 0) rows = n;
    if (n < 1 || rows < 1 || d < 0 || d >= rows || cpu_n < 0) {
        std::fprintf(stderr, "bench_gpu_rank: need n >= 1, rows >= 1, 0 <= deficiency < rows and cpu-n >= 0\n");
        return 2;
    }
    for (const std::uint64_t p : primes)
        if (p < 3 || p > blocked_max_prime) {
            std::fprintf(stderr, "bench_gpu_rank: prime %llu: expected 3 <= p <= %llu\n", static_cast<unsigned long long>(p),
                         static_cast<unsigned long long>(blocked_max_prime));
            return 2;
        }
    const CudaInfo& info = cuda_info();
    std::printf("device: %s\n", info.devices > 0 ? info.name.c_str() : ("none (" + info.why + ")").c_str());
    int status = 0;
    for (const std::uint64_t p : primes) status |= run_prime(rows, n, d, cpu_n, tile, p, seed, threads);
    return status;
}
