// The forward tape (tape.hpp) measured: for each network, its length, slots, opcode
// counts and bytes per point, and points per second of Tape::evaluate (CPU, one thread)
// against ModBatchEvaluator (one thread) on the same points mod the default prime, and of
// Tape::evaluate_cuda where a GPU is present (its values checked against the CPU's), and of
// Tape::evaluate_grid_cuda on a grid of as many points (the first half of the tokens on
// side A, the rest on side B, one node), whose points are formed on the device.
// The GPU runs at a prime of the size it draws (kCudaDrawnBits = 31 bits: 32-bit words,
// docs/tape.md), and again in 64-bit words at that prime (SEPRANK_CUDA_TAPE=wide), to
// measure the narrowing.
// Prints a markdown table. Usage: bench_tape [points] (default 20000; the GPU gets 50×).
#include "seprank/device.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/tape.hpp"

#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace seprank;

namespace {

using seprank_bench::best;
using seprank_bench::now;

struct Row {
    const char* name;
    NetworkSpec spec;
};

NetworkSpec attention(long n, long dx, long h, long l) {
    NetworkSpec s;
    s.tokens = n;
    s.dim = dx;
    s.heads = h;
    s.depth = l;
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row as it ends: a run stopped by a time cap keeps the rows done
    const std::size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
    NetworkSpec had = attention(4, 4, 1, 3);
    had.family = Family::hadamard;
    had.block_degree = 3;
    NetworkSpec fc = attention(4, 4, 1, 3);
    fc.family = Family::fc;
    fc.block_degree = 2;
    NetworkSpec stack = attention(4, 4, 1, 2);
    stack.family = Family::stack;
    stack.layers = parse_layers("attention,mlp:power=2");
    const std::vector<Row> rows = {{"attention N=4 dx=4 H=2 L=3", attention(4, 4, 2, 3)},
                                   {"attention N=2 dx=3 L=4", attention(2, 3, 1, 4)},
                                   {"hadamard N=4 dx=4 d=3 L=3", had},
                                   {"fc N=4 dx=4 d=2 L=3", fc},
                                   {"stack attention,mlp:power=2 N=4 dx=4", stack}};
    const bool gpu = cuda_info().devices > 0;
    const std::uint64_t p = kDefaultPrime;
    std::printf("p = %llu, %zu points on the CPU%s\n\n", static_cast<unsigned long long>(p), count,
                gpu ? (", " + std::to_string(50 * count) + " on the GPU (" + cuda_info().name + ")").c_str() : "");
    const std::uint64_t pg = prev_prime(std::uint64_t{1} << kCudaDrawnBits);  // a prime of the GPU's drawn size
    if (gpu) std::printf("GPU columns at p = %llu (32-bit words; wide: 64-bit words)\n\n", static_cast<unsigned long long>(pg));
    std::printf("| network | ops | slots | MUL | AXPY | bytes/point | tape CPU pts/s | batch pts/s (%s) | ratio |%s\n",
                ModBatchEvaluator::kernel_for(p), gpu ? " GPU pts/s | GPU wide pts/s | GPU = CPU | GPU grid pts/s | grid = CPU |" : "");
    std::printf("|---|---|---|---|---|---|---|---|---|%s\n", gpu ? "---|---|---|---|---|" : "");
    for (const Row& r : rows) {
        const Network net = random_network(r.spec, 1, 5);
        const Tape tape(net, p);
        const ModBatchEvaluator batch(net, p);
        Rng rng(7);
        const std::size_t n_gpu = gpu ? 50 * count : 0;
        std::vector<std::uint64_t> pts(std::max(count, n_gpu) * tape.inputs());
        for (auto& v : pts) v = rng.below(p);
        std::vector<std::uint64_t> a(count), b(count);
        const double ta = best(3, [&] { tape.evaluate(pts.data(), count, a.data()); });
        const double tb = best(3, [&] { batch.evaluate(pts.data(), count, b.data()); });
        if (a != b) {
            std::fprintf(stderr, "%s: tape and batch differ\n", r.name);
            return 1;
        }
        const auto h = tape.histogram();
        std::printf("| %s | %zu | %zu | %zu | %zu | %zu | %.3g | %.3g | %.2f |", r.name, tape.size(), tape.slots(), h[3], h[5],
                    8 * (tape.slots() + tape.inputs() + 1), count / ta, count / tb, tb / ta);
        if (gpu) {
            const Tape tape(net, pg);  // the GPU's prime from here on
            for (auto& v : pts) v %= pg;
            std::vector<std::uint64_t> g(n_gpu), c(n_gpu), w(n_gpu);
            tape.evaluate_cuda(pts.data(), n_gpu, g.data());  // warm-up (context, program copy)
            const double tg = best(3, [&] { tape.evaluate_cuda(pts.data(), n_gpu, g.data()); });
            ::setenv("SEPRANK_CUDA_TAPE", "wide", 1);
            const double tw = best(3, [&] { tape.evaluate_cuda(pts.data(), n_gpu, w.data()); });
            ::unsetenv("SEPRANK_CUDA_TAPE");
            tape.evaluate(pts.data(), n_gpu, c.data());
            // The grid: rows × cols = n_gpu points, sides split by token.
            const std::size_t per = tape.inputs() / static_cast<std::size_t>(r.spec.tokens);
            const std::size_t na = per * static_cast<std::size_t>((r.spec.tokens + 1) / 2), nb = tape.inputs() - na;
            TapeGrid grid;
            grid.rows = 50;
            grid.cols = n_gpu / grid.rows;
            grid.width_a = na;
            grid.width_b = nb;
            for (std::uint32_t k = 0; k < tape.inputs(); ++k) grid.source.push_back(k);
            grid.a = pts.data();
            grid.b = pts.data() + grid.rows * na;
            const std::size_t n_grid = grid.rows * grid.cols;
            std::vector<std::uint64_t> gg(n_grid), gc(n_grid);
            const double tgg = best(3, [&] { tape.evaluate_grid_cuda(grid, gg.data()); });
            tape.evaluate_grid(grid, gc.data());
            std::printf(" %.3g | %.3g | %s | %.3g | %s |", n_gpu / tg, n_gpu / tw, g == c && w == c ? "yes" : "NO", n_grid / tgg,
                        gg == gc ? "yes" : "NO");
            if (g != c || w != c || gg != gc) {
                std::printf("\n");
                std::fprintf(stderr, "%s: GPU and CPU differ\n", r.name);
                return 1;
            }
        }
        std::printf("\n");
    }
    return 0;
}
