// Ratios measured in one process (make bench → bench/RESULTS.md, "Frontier ratios"):
//   1. forward evaluation points per second, ModBatchEvaluator (8 lanes, Montgomery)
//      against ModEvaluator one point at a time, same network, points and prime; and
//      ModBatchEvaluator at a 50-bit prime (the AVX-512 IFMA or AVX2/FMA kernel where usable)
//      against ModEvaluator at that prime;
//   2. dense rank mod p < 2^23: rank_modular_fflas (FFLAS-FFPACK; its baseline x86-64
//      copy and, where the processor runs it, its x86-64-v3 copy) against FLINT's
//      nmod_mat_rank on the same matrices, plus nmod_mat_rank mod a 62-bit prime;
//   3. the elimination phase of a graded evaluation rank, bordered (each growth step
//      eliminates only its new rows and columns) against every step ranked from scratch,
//      same network, points and 50-bit prime, one thread.
// Prints one markdown table per part. Usage: bench_ratio [--quick] [--rank-only | --growth-only]
// (--rank-only: part 2 only; --growth-only: part 3 only).
#include "seprank/evaluation.hpp"
#include "seprank/forward.hpp"
#include "seprank/partition.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/nmod_mat.h>

#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace seprank;

namespace {

using seprank_bench::best;
using seprank_bench::now;

void run_parts_1_2(Rng& rng, bool quick, bool rank_only);

}  // namespace

int main(int argc, char** argv) {
    bool quick = false, rank_only = false, growth_only = false;
    for (int i = 1; i < argc; ++i) {
        quick = quick || std::strcmp(argv[i], "--quick") == 0;
        rank_only = rank_only || std::strcmp(argv[i], "--rank-only") == 0;
        growth_only = growth_only || std::strcmp(argv[i], "--growth-only") == 0;
    }
    Rng rng(20261123);
    if (!growth_only) run_parts_1_2(rng, quick, rank_only);
    if (!rank_only) {
        std::printf("\n### Graded evaluation rank: bordered elimination against every step from scratch (one thread, 50-bit p)\n\n");
        std::printf("| network | rank | largest block rank | total side | elimination, scratch (s) | elimination, bordered (s) | ratio | run, scratch (s) | run, bordered (s) | answers equal |\n"
                    "|---|---|---|---|---|---|---|---|---|---|\n");
        struct Cfg { long n, dx, L; };
        for (const Cfg c : quick ? std::vector<Cfg>{{3, 4, 3}} : std::vector<Cfg>{{3, 4, 3}, {2, 3, 4}, {2, 4, 3}}) {
            NetworkSpec s;
            s.tokens = c.n;
            s.dim = c.dx;
            s.depth = c.L;
            const Network net = random_network(s, rng.next(), 1000);
            const Partition part = balanced_partition(c.n);
            EvaluationOptions o;
            o.seed = rng.next();
            o.prime = random_prime(rng, 50);
            o.threads = 1;
            o.max_side = 100000;
            o.bordered = false;
            auto t0 = now();
            const RankAnswer ref = evaluation_rank(net, part, o);
            const double t_ref = now() - t0;
            o.bordered = true;
            t0 = now();
            const RankAnswer fast = evaluation_rank(net, part, o);
            const double t_fast = now() - t0;
            long largest = 0;
            for (std::size_t a = 0; a < ref.block_ranks.size(); ++a) largest = std::max(largest, ref.block_ranks[a]);
            const bool equal = fast.value == ref.value && fast.block_ranks == ref.block_ranks && fast.converged == ref.converged;
            std::printf("| attention N=%ld dx=%ld L=%ld | %ld | %ld | %ld | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", c.n, c.dx, c.L, ref.value, largest, ref.rows,
                        ref.phases.rank, fast.phases.rank, ref.phases.rank / fast.phases.rank, t_ref, t_fast, equal ? "yes" : "NO");
        }
    }
    return 0;
}

namespace {

void run_parts_1_2(Rng& rng, bool quick, bool rank_only) {
    if (!rank_only) {
        std::printf("### Forward evaluation: points per second (one thread)\n\n");
        std::printf("| network | one at a time (points/s) | batched (points/s) | ratio | values equal | 50-bit p: one at a time | 50-bit p: batched, kernel | ratio | values equal |\n"
                    "|---|---|---|---|---|---|---|---|---|\n");
        struct Cfg { long n, dx, h, L; };
        for (const Cfg c : {Cfg{3, 4, 1, 3}, Cfg{4, 4, 2, 3}, Cfg{2, 4, 1, 4}, Cfg{4, 2, 1, 3}}) {
            NetworkSpec s;
            s.tokens = c.n;
            s.dim = c.dx;
            s.heads = c.h;
            s.depth = c.L;
            const std::uint64_t p = random_prime(rng, 62);
            const Network net = random_network(s, rng.next(), static_cast<long>((p - 1) / 2));
            const ModEvaluator one(net, p);
            const ModBatchEvaluator batch(net, p);
            const std::size_t count = quick ? 4000 : 40000, w = batch.width();
            std::vector<std::uint64_t> pts(count * w), a(count), b(count);
            for (auto& x : pts) x = rng.below(p);
            Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(static_cast<std::size_t>(s.dim)));
            const double t1 = best(3, [&] {
                for (std::size_t q = 0; q < count; ++q) {
                    for (std::size_t t = 0; t < x.size(); ++t) std::copy_n(pts.data() + q * w + t * x[t].size(), x[t].size(), x[t].begin());
                    a[q] = one(x);
                }
            });
            const double t2 = best(3, [&] { batch.evaluate(pts.data(), count, b.data()); });
            // The same network's integer weights mod a 50-bit prime (both vector kernels take it).
            const std::uint64_t p50 = random_prime(rng, 50);
            const ModEvaluator one50(net, p50);
            const ModBatchEvaluator batch50(net, p50);
            std::vector<std::uint64_t> a50(count), b50(count);
            const double t3 = best(3, [&] {
                for (std::size_t q = 0; q < count; ++q) {
                    for (std::size_t t = 0; t < x.size(); ++t) std::copy_n(pts.data() + q * w + t * x[t].size(), x[t].size(), x[t].begin());
                    a50[q] = one50(x);
                }
            });
            const double t4 = best(3, [&] { batch50.evaluate(pts.data(), count, b50.data()); });
            std::printf("| attention N=%ld dx=%ld H=%ld L=%ld | %.3g | %.3g | %.2f | %s | %.3g | %.3g, %s | %.2f | %s |\n", c.n, c.dx, c.h, c.L, count / t1,
                        count / t2, t1 / t2, a == b ? "yes" : "NO", count / t3, count / t4, batch50.kernel(), t3 / t4, a50 == b50 ? "yes" : "NO");
        }
    }
    std::printf("\n### Dense rank mod p: FFLAS-FFPACK against FLINT nmod_mat_rank (same matrices, one thread)\n\n");
    const bool v3 = fflas_v3_available();
    std::printf("FFLAS-FFPACK %s; x86-64-v3 copy %s.\n\n", fflas_available() ? "built in (-O3)" : "NOT built in: the FFLAS columns are FLINT",
                v3 ? "in use" : "not usable here (the v3 column repeats the baseline copy)");
    std::printf("| n | rank | p | nmod_mat_rank (s) | FFLAS baseline (s) | FFLAS x86-64-v3 (s) | v3 speed-up | ratio | nmod_mat_rank, 62-bit p (s) | FFLAS vs 62-bit |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    const std::uint64_t small = 8388593;  // largest prime below 2^23
    for (long n : quick ? std::vector<long>{250, 500} : std::vector<long>{500, 1000, 2000}) {
        for (long r : {n, n / 2}) {
            NmodMat u(n, r, small), v(r, n, small), m(n, n, small);
            for (long i = 0; i < n; ++i)
                for (long k = 0; k < r; ++k) nmod_mat_entry(u.get(), i, k) = rng.below(small);
            for (long k = 0; k < r; ++k)
                for (long j = 0; j < n; ++j) nmod_mat_entry(v.get(), k, j) = rng.below(small);
            nmod_mat_mul(m.get(), u.get(), v.get());
            long r1 = 0, r2 = 0, r3 = 0;
            const double tf = best(2, [&] {
                NmodMat c = m;
                r1 = nmod_mat_rank(c.get());
            });
            long r4 = 0;
            const double tx0 = best(2, [&] { r4 = rank_modular_fflas(m, FflasCopy::baseline); });
            const double tx = best(2, [&] { r2 = rank_modular_fflas(m, v3 ? FflasCopy::x86_64_v3 : FflasCopy::baseline); });
            const std::uint64_t big = random_prime(rng, 62);
            NmodMat mb(n, n, big);
            for (long i = 0; i < n; ++i)
                for (long j = 0; j < n; ++j) nmod_mat_entry(mb.get(), i, j) = rng.below(big);
            const double tb = best(2, [&] {
                NmodMat c = mb;
                r3 = nmod_mat_rank(c.get());
            });
            (void)r3;
            std::printf("| %ld | %ld%s | %llu | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %.2f |\n", n, r1, r1 == r2 && r1 == r4 ? "" : " MISMATCH",
                        static_cast<unsigned long long>(small), tf, tx0, tx, tx0 / tx, tf / tx, tb, tb / tx);
        }
    }
}

}  // namespace
