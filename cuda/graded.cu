// seprank CUDA plugin: the graded evaluation kept in device memory (sr_cuda_graded_*;
// docs/gpu.md, "Degree blocks in device memory"). src/rank/graded_impl.hpp is the algorithm
// (the pairs of a step, the degree split, the rules of a step), shared with the CPU
// stand-in of tests/cuda_emulator.cpp.
//
// A session copies the tape, W and the source map when it opens. A step
//   1. checks the new sides (graded::Sides::check) and the device memory: the blocks at
//      their new sides, the step's buffers and the rank of the largest block must fit,
//      else SR_CUDA_NO_MEMORY before anything changes;
//   2. grows the blocks that grow (a new array, the old entries copied into its top-left
//      corner, the old array freed: one block at a time, so the peak is the blocks plus the
//      largest new one) and frees the blocks that close;
//   3. uploads the points of rows and columns [0, k) (reduced mod p where the program runs
//      in 32-bit words, as in tape.cu) and evaluates the new pairs
//      (graded::new_pairs) a chunk of rows at a time: the tape kernel of tape_kernel.cuh
//      writes the chunk's values (nd per pair) into a device buffer, then split_kernel turns
//      each pair's values into its nd coefficients and stores them in the blocks.
// Nothing but the points goes up, nothing but a rank comes back. A rank runs the elimination
// of rank.cu on a centred copy of the block (rank_device_block).
#include "algebra/blocked_rank_impl.hpp"
#include "rank/graded_impl.hpp"
#include "rank_device.cuh"
#include "tape_kernel.cuh"
#include "compiled.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace gr = seprank::graded;

// The session (opaque in seprank_cuda.h).
struct sr_graded {
    std::vector<sr_tape_op> ops;
    sr_tape tape{};
    std::int64_t nd = 0, width_a = 0, width_b = 0;
    std::vector<std::uint32_t> source;
    std::vector<std::uint64_t> w;
    gr::Sides sides;
    std::vector<std::uint32_t*> blocks;  // device arrays, side² entries each (null: empty)
    bool narrow = false;                 // the program in Mont32's form (runs_narrow), points reduced
    // The network's own kernel (compiled.cuh), built by the first step where
    // SEPRANK_CUDA_COMPILED=1 asks for it; null: the interpreter runs.
    std::unique_ptr<Compiled> compiled;
    bool compile_tried = false;
    // A step failed after its checks, part-way through changing the blocks: their sides and
    // arrays no longer agree, so every later call is refused (close the session).
    bool broken = false;

    sr_graded() = default;
    sr_graded(const sr_graded&) = delete;
    sr_graded& operator=(const sr_graded&) = delete;
    ~sr_graded() {
        for (std::uint32_t* b : blocks)
            if (b) cudaFree(b);
    }
};

namespace {

// Coefficients of `pairs` pairs (row-major over rows [r0, ..) and cols columns from c0)
// from their values vals[e·nd + t]: coefficient c goes to block c when the pair lies in
// it. A thread per pair: its nd values are read from L1 nd times, W (split_weights' form,
// ar its arithmetic) from L1/L2.
template <class Ar>
__global__ void split_kernel(const std::uint64_t* __restrict__ vals, std::int64_t pairs, std::int64_t cols, std::int64_t r0,
                             std::int64_t c0, std::int64_t nd, const std::uint64_t* __restrict__ w, Ar ar,
                             std::uint32_t* const* __restrict__ blocks, const std::int64_t* __restrict__ sides) {
    const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < pairs; e += stride) {
        const std::int64_t i = r0 + e / cols, j = c0 + e % cols;
        const std::uint64_t* v = vals + e * nd;
        for (std::int64_t c = 0; c < nd; ++c) {
            const std::int64_t s = sides[c];
            if (i >= s || j >= s) continue;
            blocks[c][i * s + j] = static_cast<std::uint32_t>(gr::coefficient(v, nd, w, c, ar));
        }
    }
}

#define SR_GTRY(call)                                                                                              \
    do {                                                                                                           \
        const cudaError_t e_ = (call);                                                                             \
        if (e_ != cudaSuccess) {                                                                                   \
            (void)cudaGetLastError(); /* not left pending for this thread's next call */                           \
            return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_graded_step: %s: %s", #call, cudaGetErrorString(e_)); \
        }                                                                                                          \
    } while (0)

constexpr double kReserve = 256.0 * 1024 * 1024;  // kept free for the runtime and cuBLAS
constexpr double kChunkBytes = 1024.0 * 1024 * 1024;  // values of one chunk, at most
// cudaMalloc hands out large arrays in pages of 2 MiB, so a block of b bytes takes up to b
// rounded up to that from the free memory (small ones share pages: counted as they are).
constexpr double kPage = 2.0 * 1024 * 1024;
// What may leave the free memory between a step's check and the ranks it promises, besides
// the blocks: the module of this file (loaded by the step's first launch), the cuBLAS
// handle and the kernels the first rank loads (that rank's check is made before them, the
// next rank of a block as large after them), pages of small blocks. Kept in hand so that
// the rank's own check in rank.cu, made later with the free memory of then, passes
// whenever the step was accepted: a refused rank is a hard error after the step's work,
// a refused step only stops the growth.
constexpr double kSlack = 256.0 * 1024 * 1024;

double block_bytes(std::int64_t side) {
    const double b = 4.0 * static_cast<double>(side) * static_cast<double>(side);
    return b < kPage / 2 ? b : std::ceil(b / kPage) * kPage;
}

double mib(double b) { return b / (1024.0 * 1024.0); }

int refuse_broken(sr_cuda_status* st, const char* who) {
    return sr_cuda::fail(st, SR_CUDA_ERROR, "%s: an earlier step of this session failed part-way (its blocks are not usable): close it", who);
}

// c_ops of this file: one step at a time per process.
std::mutex& step_lock() {
    static std::mutex m;
    return m;
}

// SEPRANK_CUDA_PROFILE (sr_cuda::profiling()): one line per step on stderr, the host time
// of its phases, the device synchronised at each lap: growing the blocks, allocating and
// uploading (points, tables, program), and evaluating (the tape and split kernels).
struct StepProfile {
    bool on = sr_cuda::profiling();
    double grow = 0, setup = 0, evaluate = 0;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void lap(double& into) {
        if (!on) return;
        (void)cudaDeviceSynchronize();  // a failure shows in the step's next call
        const auto now = std::chrono::steady_clock::now();
        into += std::chrono::duration<double>(now - last).count();
        last = now;
    }
    void print(std::int64_t k, std::int64_t old, std::int64_t nd, bool compiled) const {
        if (!on) return;
        const double pairs = static_cast<double>(k) * static_cast<double>(k) - static_cast<double>(old) * static_cast<double>(old);
        std::fprintf(stderr, "cuda graded step profile: side %lld from %lld (%.0f new pairs x %lld nodes, %s): grow %.4f s, setup %.4f s, evaluate %.4f s\n",
                     static_cast<long long>(k), static_cast<long long>(old), pairs, static_cast<long long>(nd),
                     compiled ? "compiled kernel" : "interpreter", grow, setup, evaluate);
    }
};

template <class Ar>
int step_with(sr_graded* g, Ar ar, const std::uint64_t* a, const std::uint64_t* b, std::int64_t k, const std::int64_t* side,
              sr_cuda_status* st) {
    StepProfile prof;
    const std::int64_t nd = g->nd, wa = g->width_a, wb = g->width_b;
    const sr_tape* t = &g->tape;
    DeviceShape d;
    SR_GTRY(device_shape(d));
    std::size_t free_b = 0, total_b = 0;
    SR_GTRY(cudaMemGetInfo(&free_b, &total_b));
    Plan plan = slot_plan(t, d);
    plan.threads = static_cast<std::int64_t>(std::max(d.sms, 1)) * std::max(d.per_sm, kBlock) / plan.block * plan.block;

    // 1. Memory: what the session holds now, after the step, and the step's peaks. The
    // blocks are counted at their pages (block_bytes): `avail` may then count a small block
    // that shares a page as freed, which kSlack covers.
    const std::size_t n = static_cast<std::size_t>(nd);
    double held = 0, after = 0, largest_new = 0;
    std::int64_t largest_side = 0;
    for (std::size_t c = 0; c < n; ++c) {
        held += block_bytes(g->sides.side[c]);
        after += block_bytes(side[c]);
        if (side[c] > g->sides.side[c]) largest_new = std::max(largest_new, block_bytes(side[c]));
        largest_side = std::max(largest_side, side[c]);
    }
    const double avail = static_cast<double>(free_b) + held;
    const double scratch = plan.shared ? 0.0 : static_cast<double>(t->slots) * static_cast<double>(plan.word) * static_cast<double>(plan.threads);
    const double fixed = 8.0 * static_cast<double>(k) * static_cast<double>(wa + wb) + scratch + static_cast<double>(plan.ops_bytes) +
                         8.0 * static_cast<double>(nd) * static_cast<double>(nd) + 16.0 * static_cast<double>(nd) +
                         4.0 * static_cast<double>(std::max<std::int64_t>(t->inputs, 1)) + 8.0 * static_cast<double>(nd);
    const double row_bytes = 8.0 * static_cast<double>(std::max<std::int64_t>(k, 1)) * static_cast<double>(nd);
    const double rank_need = largest_side > 0 ? sr_cuda::rank_bytes(largest_side, largest_side, 0, t->p) : 0.0;
    // The closing blocks are freed first, then one block grows at a time (its old array
    // freed after the copy): the blocks never pass `after` then, plus the new array.
    const double grow_peak = std::max(held, after + largest_new) + kReserve;
    const double eval_min = after + fixed + row_bytes + kReserve;
    const double rank_peak = after + rank_need + kSlack;
    if (grow_peak > avail || eval_min > avail || rank_peak > avail)
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY,
                             "sr_cuda_graded_step: side %lld needs %.1f MiB of device memory (blocks %.1f MiB, evaluation %.1f MiB, rank of the "
                             "largest block %.1f MiB), %.1f MiB are available",
                             static_cast<long long>(k), mib(std::max({grow_peak, eval_min, rank_peak})), mib(after), mib(fixed + row_bytes),
                             mib(rank_need), mib(avail));
    const double room = std::min(kChunkBytes, avail - after - fixed - kReserve);
    const std::int64_t chunk_rows = std::max<std::int64_t>(1, static_cast<std::int64_t>(room / row_bytes));

    // 2. Close, then grow the blocks (the checks are done: from here a failure is an error,
    // and breaks the session until the step ends well).
    g->broken = true;
    // Every closing block goes before any grows, so a block closing after one that grows
    // (in block order) never holds its memory beside the grown ones (grow_peak).
    for (std::size_t c = 0; c < n; ++c) {
        std::uint32_t*& blk = g->blocks[c];
        if (side[c] == 0 && blk) {
            cudaFree(blk);
            blk = nullptr;
        }
    }
    for (std::size_t c = 0; c < n; ++c) {
        const std::int64_t s = side[c], prev = g->sides.side[c];
        std::uint32_t*& blk = g->blocks[c];
        if (s == 0 || s == prev) continue;
        void* fresh = nullptr;
        const std::size_t bytes = 4 * static_cast<std::size_t>(s) * static_cast<std::size_t>(s);
        SR_GTRY(cudaMalloc(&fresh, bytes));
        const cudaError_t set = cudaMemset(fresh, 0, bytes);
        cudaError_t copy = cudaSuccess;
        if (set == cudaSuccess && prev > 0 && blk)
            copy = cudaMemcpy2D(fresh, 4 * static_cast<std::size_t>(s), blk, 4 * static_cast<std::size_t>(prev), 4 * static_cast<std::size_t>(prev),
                                static_cast<std::size_t>(prev), cudaMemcpyDeviceToDevice);
        if (set != cudaSuccess || copy != cudaSuccess) {
            cudaFree(fresh);
            (void)cudaGetLastError();  // not left pending for this thread's next call
            return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_graded_step: growing block %lld: %s", static_cast<long long>(c),
                                 cudaGetErrorString(set != cudaSuccess ? set : copy));
        }
        if (blk) cudaFree(blk);
        blk = static_cast<std::uint32_t*>(fresh);
    }
    const std::int64_t old = g->sides.k;
    g->sides.apply(k, side);
    if (st) st->bytes = after;
    prof.lap(prof.grow);
    gr::Rect rects[2];
    const int nr = gr::new_pairs(k, old, rects);
    if (nr == 0) {
        g->broken = false;
        prof.print(k, old, nd, false);
        return sr_cuda::ok(st);
    }

    // 3. The points, the tables and the program; then the pairs, chunk by chunk.
    DeviceBuffer d_a, d_b, d_source, d_scales, d_w, d_ptrs, d_sides, d_ops, d_scratch, d_vals;
    SR_GTRY(cudaMalloc(&d_a.ptr, static_cast<std::size_t>(std::max<std::int64_t>(k * wa, 1)) * 8));
    SR_GTRY(cudaMalloc(&d_b.ptr, static_cast<std::size_t>(std::max<std::int64_t>(k * wb, 1)) * 8));
    SR_GTRY(cudaMalloc(&d_source.ptr, static_cast<std::size_t>(std::max<std::int64_t>(t->inputs, 1)) * 4));
    SR_GTRY(cudaMalloc(&d_scales.ptr, n * 8));
    SR_GTRY(cudaMalloc(&d_w.ptr, n * n * 8));
    SR_GTRY(cudaMalloc(&d_ptrs.ptr, n * sizeof(std::uint32_t*)));
    SR_GTRY(cudaMalloc(&d_sides.ptr, n * 8));
    const std::uint64_t reduce = g->narrow ? t->p : 0;
    SR_GTRY(upload_values(d_a.ptr, a, static_cast<std::size_t>(k * wa), reduce));
    SR_GTRY(upload_values(d_b.ptr, b, static_cast<std::size_t>(k * wb), reduce));
    if (t->inputs > 0) SR_GTRY(cudaMemcpy(d_source.ptr, g->source.data(), static_cast<std::size_t>(t->inputs) * 4, cudaMemcpyHostToDevice));
    std::vector<std::uint64_t> scales(n);
    for (std::size_t q = 0; q < n; ++q) scales[q] = ar.input_scale(static_cast<std::uint64_t>(q + 1));
    SR_GTRY(cudaMemcpy(d_scales.ptr, scales.data(), n * 8, cudaMemcpyHostToDevice));
    SR_GTRY(cudaMemcpy(d_w.ptr, g->w.data(), n * n * 8, cudaMemcpyHostToDevice));
    SR_GTRY(cudaMemcpy(d_ptrs.ptr, g->blocks.data(), n * sizeof(std::uint32_t*), cudaMemcpyHostToDevice));
    SR_GTRY(cudaMemcpy(d_sides.ptr, g->sides.side.data(), n * 8, cudaMemcpyHostToDevice));
    const std::size_t program_bytes = static_cast<std::size_t>(t->n_ops) * sizeof(sr_tape_op);
    if (plan.in_constant) {
        SR_GTRY(cudaMemcpyToSymbol(c_ops, t->ops, program_bytes));
    } else {
        SR_GTRY(cudaMalloc(&d_ops.ptr, program_bytes));
        SR_GTRY(cudaMemcpy(d_ops.ptr, t->ops, program_bytes, cudaMemcpyHostToDevice));
    }
    if (!plan.shared) SR_GTRY(cudaMalloc(&d_scratch.ptr, static_cast<std::size_t>(scratch)));
    const std::int64_t most_rows = std::min(chunk_rows, std::max(rects[0].r1 - rects[0].r0, nr > 1 ? rects[1].r1 - rects[1].r0 : 0));
    SR_GTRY(cudaMalloc(&d_vals.ptr, static_cast<std::size_t>(most_rows) * static_cast<std::size_t>(k) * n * 8));

    cudaEvent_t start = nullptr, stop = nullptr;
    SR_GTRY(cudaEventCreate(&start));
    const cudaError_t made = cudaEventCreate(&stop);
    if (made != cudaSuccess) {
        cudaEventDestroy(start);
        (void)cudaGetLastError();
        return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_graded_step: cudaEventCreate: %s", cudaGetErrorString(made));
    }
    struct Events {
        cudaEvent_t a, b;
        ~Events() {
            cudaEventDestroy(a);
            cudaEventDestroy(b);
        }
    } events{start, stop};
    if (!g->compile_tried) {
        g->compile_tried = true;
        std::unique_ptr<Compiled> c(new Compiled());
        if (compile_if_asked("sr_cuda_graded_step", t, ar, seprank::tape::kGridKernel, *c)) g->compiled = std::move(c);
    }
    cudaError_t filled = cudaSuccess;  // the image's constants are this session's until the last launch
    const std::unique_lock<std::mutex> hold = hold_compiled(g->compiled.get(), filled);
    SR_GTRY(filled);
    prof.lap(prof.setup);
    SR_GTRY(cudaEventRecord(start));
    const gr::SplitArith split = gr::split_arith(t->p);  // the degree split's arithmetic (W is in its form)
    for (int q = 0; q < nr; ++q) {
        const gr::Rect& r = rects[q];
        const std::int64_t cols = r.c1 - r.c0;
        for (std::int64_t i0 = r.r0; i0 < r.r1; i0 += chunk_rows) {
            const std::int64_t rows = std::min(chunk_rows, r.r1 - i0), pairs = rows * cols;
            const GridSource src{d_a.as<std::uint64_t>() + i0 * wa, d_b.as<std::uint64_t>() + r.c0 * wb, d_source.as<std::uint32_t>(),
                                 d_scales.as<std::uint64_t>(), wa, wb, cols, nd};
            const cudaError_t e = g->compiled ? launch_compiled(*g->compiled, ar, src, pairs * nd, d_vals.as<std::uint64_t>())
                                              : dispatch<Ar>(plan, t, ar, d_ops.as<sr_tape_op>(), src, pairs * nd, d_scratch.as<std::uint64_t>(),
                                                             d_vals.as<std::uint64_t>());
            if (e != cudaSuccess)
                return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_graded_step: tape kernel launch (%d threads per block): %s", plan.block,
                                     cudaGetErrorString(e));
            const unsigned blocks = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>((pairs + 255) / 256, 65535)));
            split.with([&](const auto& sa) {
                split_kernel<<<blocks, 256>>>(d_vals.as<std::uint64_t>(), pairs, cols, i0, r.c0, nd, d_w.as<std::uint64_t>(), sa,
                                              d_ptrs.as<std::uint32_t*>(), d_sides.as<std::int64_t>());
            });
            SR_GTRY(cudaGetLastError());
        }
    }
    SR_GTRY(cudaEventRecord(stop));
    SR_GTRY(cudaEventSynchronize(stop));
    SR_GTRY(cudaGetLastError());
    float ms = 0;
    SR_GTRY(cudaEventElapsedTime(&ms, start, stop));
    if (st) st->gpu_seconds = ms / 1000.0;
    prof.lap(prof.evaluate);
    prof.print(k, old, nd, g->compiled != nullptr);
    g->broken = false;
    return sr_cuda::ok(st);
}

}  // namespace

extern "C" SR_CUDA_EXPORT int sr_cuda_graded_open(const sr_graded_setup* s, sr_graded** out, sr_cuda_status* st) {
    const char* who = "sr_cuda_graded_open";
    sr_cuda::clear(st);
    if (out == nullptr) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: out is NULL", who);
    *out = nullptr;
    if (s == nullptr) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: setup is NULL", who);
    const int bad = check_tape(who, s->tape, st);
    if (bad != SR_CUDA_OK) return bad;
    const std::uint64_t p = s->tape->p;
    // 32-bit storage, and a prime the elimination takes (its ranks; above 2^26 in two limbs).
    if (p >= gr::kPrimeLimit || !seprank::blocked::accepted_rank_prime(p))
        return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: p = %llu: the session takes primes below 2^31", who, static_cast<unsigned long long>(p));
    if (s->nodes < 1 || s->nodes > gr::kMaxNodes)
        return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: nodes = %lld: expected 1 to %lld", who, static_cast<long long>(s->nodes),
                             static_cast<long long>(gr::kMaxNodes));
    if (s->width_a < 0 || s->width_b < 0)
        return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: widths %lld and %lld", who, static_cast<long long>(s->width_a), static_cast<long long>(s->width_b));
    if (s->w == nullptr || (s->tape->inputs > 0 && s->source == nullptr)) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: w or source is NULL", who);
    const std::int64_t nd = s->nodes;
    for (std::int64_t e = 0; e < nd * nd; ++e)
        if (s->w[e] >= p)
            return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: w[%lld] = %llu is not a residue mod %llu", who, static_cast<long long>(e),
                                 static_cast<unsigned long long>(s->w[e]), static_cast<unsigned long long>(p));
    for (std::int64_t c = 0; c < s->tape->inputs; ++c)
        if (static_cast<std::int64_t>(s->source[c]) >= s->width_a + s->width_b)
            return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: source[%lld] = %u is not below width_a + width_b = %lld", who, static_cast<long long>(c),
                                 s->source[c], static_cast<long long>(s->width_a + s->width_b));
    const int none = sr_cuda::no_device(st, who);
    if (none != SR_CUDA_OK) return none;
    try {
        std::unique_ptr<sr_graded> g(new sr_graded());  // not leaked when a copy below throws
        g->narrow = runs_narrow(s->tape);
        g->ops.assign(s->tape->ops, s->tape->ops + s->tape->n_ops);
        if (g->narrow) seprank::tape::narrow_program(g->ops.data(), g->ops.size(), seprank::tape::make_mont32(p));  // as NarrowTape
        g->tape = *s->tape;
        g->tape.ops = g->ops.data();
        g->nd = nd;
        g->width_a = s->width_a;
        g->width_b = s->width_b;
        g->source.assign(s->source, s->source + s->tape->inputs);
        g->w = gr::split_weights(s->w, nd * nd, p);  // the form the split kernel takes
        g->sides = gr::Sides(nd);
        g->blocks.assign(static_cast<std::size_t>(nd), nullptr);
        *out = g.release();
        return sr_cuda::ok(st);
    } catch (const std::bad_alloc&) {
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY, "%s: out of host memory", who);
    }
}

extern "C" SR_CUDA_EXPORT int sr_cuda_graded_step(sr_graded* g, const uint64_t* a, const uint64_t* b, int64_t k, const int64_t* side,
                                                  sr_cuda_status* st) {
    const char* who = "sr_cuda_graded_step";
    sr_cuda::clear(st);
    if (g == nullptr || side == nullptr) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: session or side is NULL", who);
    if (g->broken) return refuse_broken(st, who);
    std::string why;
    try {
        if (!g->sides.check(k, side, why)) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: %s", who, why.c_str());
        if (k > 0 && ((g->width_a > 0 && a == nullptr) || (g->width_b > 0 && b == nullptr)))
            return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: a or b is NULL", who);
        const std::lock_guard<std::mutex> lock(step_lock());
        if (g->tape.p == 2) return step_with(g, seprank::tape::Two{}, a, b, k, side, st);
        if (g->narrow) return step_with(g, seprank::tape::make_mont32(g->tape.p), a, b, k, side, st);
        return step_with(g, seprank::tape::make_mont(g->tape.p), a, b, k, side, st);
    } catch (const std::bad_alloc&) {  // past the checks the blocks may be half grown: an error, not "nothing changed"
        return sr_cuda::fail(st, g->broken ? SR_CUDA_ERROR : SR_CUDA_NO_MEMORY, "%s: out of host memory", who);
    } catch (const std::exception& e) {
        return sr_cuda::fail(st, SR_CUDA_ERROR, "%s: %s", who, e.what());
    }
}

extern "C" SR_CUDA_EXPORT int sr_cuda_graded_rank(sr_graded* g, int64_t c, int64_t* rank, sr_cuda_status* st) {
    sr_cuda::clear(st);
    if (g == nullptr || rank == nullptr) return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_rank: session or rank is NULL");
    if (c < 0 || c >= g->nd)
        return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_rank: block %lld: expected 0 to %lld", static_cast<long long>(c),
                             static_cast<long long>(g->nd - 1));
    *rank = 0;
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_rank");
    const std::int64_t s = g->sides.side[static_cast<std::size_t>(c)];
    if (s == 0) return sr_cuda::ok(st);
    return sr_cuda::rank_device_block(g->blocks[static_cast<std::size_t>(c)], s, g->tape.p, rank, st);
}

extern "C" SR_CUDA_EXPORT int sr_cuda_graded_ranks(sr_graded* g, const int64_t* blocks, int64_t count, int64_t* ranks,
                                                   sr_cuda_status* st) {
    sr_cuda::clear(st);
    if (g == nullptr || count < 0 || (count > 0 && (blocks == nullptr || ranks == nullptr)))
        return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_ranks: session, blocks or ranks is NULL, or count %lld < 0",
                             static_cast<long long>(count));
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_ranks");
    std::vector<const std::uint32_t*> where;
    std::vector<std::int64_t> sides;
    try {
        where.resize(static_cast<std::size_t>(count));
        sides.resize(static_cast<std::size_t>(count));
    } catch (const std::exception&) {
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY, "sr_cuda_graded_ranks: no host memory for %lld blocks", static_cast<long long>(count));
    }
    for (std::int64_t q = 0; q < count; ++q) {
        const std::int64_t c = blocks[q];
        if (c < 0 || c >= g->nd)
            return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_ranks: blocks[%lld] = %lld: expected 0 to %lld", static_cast<long long>(q),
                                 static_cast<long long>(c), static_cast<long long>(g->nd - 1));
        where[static_cast<std::size_t>(q)] = g->blocks[static_cast<std::size_t>(c)];
        sides[static_cast<std::size_t>(q)] = g->sides.side[static_cast<std::size_t>(c)];
    }
    return sr_cuda::rank_device_blocks(where.data(), sides.data(), count, g->tape.p, ranks, st);
}

extern "C" SR_CUDA_EXPORT int sr_cuda_graded_block(const sr_graded* g, int64_t c, uint64_t* out, sr_cuda_status* st) {
    sr_cuda::clear(st);
    if (g == nullptr || (out == nullptr && c >= 0 && c < g->nd && g->sides.side[static_cast<std::size_t>(c)] > 0))
        return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_block: session or out is NULL");
    if (c < 0 || c >= g->nd)
        return sr_cuda::fail(st, SR_CUDA_INVALID, "sr_cuda_graded_block: block %lld: expected 0 to %lld", static_cast<long long>(c),
                             static_cast<long long>(g->nd - 1));
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_block");
    const std::size_t s = static_cast<std::size_t>(g->sides.side[static_cast<std::size_t>(c)]);
    if (s == 0) return sr_cuda::ok(st);
    try {
        std::vector<std::uint32_t> host(s * s);
        const cudaError_t e = cudaMemcpy(host.data(), g->blocks[static_cast<std::size_t>(c)], s * s * 4, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_graded_block: cudaMemcpy: %s", cudaGetErrorString(e));
        std::copy(host.begin(), host.end(), out);
        return sr_cuda::ok(st);
    } catch (const std::bad_alloc&) {
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY, "sr_cuda_graded_block: out of host memory");
    }
}

extern "C" SR_CUDA_EXPORT void sr_cuda_graded_close(sr_graded* g) { delete g; }
