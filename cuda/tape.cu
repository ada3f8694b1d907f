// seprank CUDA plugin: batched forward evaluation of a recorded tape
// (include/seprank/tape.hpp, docs/tape.md).
//
// One thread per point runs the whole program; every thread of a warp executes the same
// instruction at the same time (the program is straight-line, the opcode uniform), so
// there is no divergence but at the tail of the points. The program sits in constant
// memory when it fits (kConstOps instructions: each read is a broadcast of one address to
// the warp), else in global memory (the same single address per warp, served by L1).
// A thread's slots live in shared memory when a block's fit (slot i of thread t at
// sh[i·blockDim + t]: a warp's accesses to one slot are conflict-free); the block size
// (256, 128, 64 or 32 threads) is the one that keeps the most threads resident per SM
// with slots·block·8 bytes per block within the opt-in shared memory of a block (227 KiB
// on sm_90: up to 113 slots at 256 threads, 908 at 32). Otherwise
// (or with SR_TAPE_GENERAL) they live in global memory, interleaved the same way over
// all launched threads (scratch[i·threads + t], coalesced). Either way the grid is sized
// to what the GPU holds at once and strides over the points, so scratch never grows
// with the number of points. The points are copied in chunks sized to the free device
// memory; a grid's points (sr_cuda_tape_grid) are formed on the device from its rows, so
// only the rows go in. The arithmetic of each instruction is src/network/tape_impl.hpp's, shared
// with the CPU interpreter: for an odd p < 2^31 in 32-bit words (Mont32: the program's
// constants converted on the host and the points reduced mod p on the device, NarrowTape and
// upload_values), else in 64-bit words as recorded (SR_TAPE_WIDE forces the latter).
#include "tape_kernel.cuh"
#include "compiled.cuh"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <new>
#include <type_traits>
#include <vector>

namespace {

#define SR_TRY(call)                                                                                                   \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            (void)cudaGetLastError(); /* not left pending for this thread's next call */                               \
            return sr_cuda::fail(st, SR_CUDA_ERROR, "%s: %s: %s", job.who, #call, cudaGetErrorString(e_));             \
        }                                                                                                              \
    } while (0)

// What sr_cuda_tape_eval evaluates: `units` points, each its coordinates in and its value out.
struct FlatJob {
    const char* who = "sr_cuda_tape_eval";
    const uint64_t* points;
    int64_t inputs, units;
    uint64_t reduce = 0;  // p when the points go up reduced mod p (Mont32), else 0
    int64_t points_per_unit() const { return 1; }
    uint64_t in_bytes_per_unit() const { return static_cast<uint64_t>(inputs) * sizeof(uint64_t); }
    uint64_t fixed_bytes() const { return 0; }
    template <class Ar>
    int setup(const Ar&, sr_cuda_status*) { return SR_CUDA_OK; }
    int upload(int64_t u0, int64_t n, void* d_in, sr_cuda_status* st) {
        const FlatJob& job = *this;
        SR_TRY(upload_values(d_in, points + u0 * inputs, static_cast<size_t>(n * inputs), reduce));
        return SR_CUDA_OK;
    }
    FlatSource source(const void* d_in) const { return FlatSource{static_cast<const uint64_t*>(d_in), inputs}; }
};

// What sr_cuda_tape_grid evaluates: units are the rows of side A, each cols·nodes points;
// side B, the source map and the scales stay on the device for the whole call.
struct GridJob {
    const char* who = "sr_cuda_tape_grid";
    const sr_tape_grid* g;
    int64_t inputs, units;
    DeviceBuffer d_b, d_source, d_scales;
    uint64_t reduce = 0;  // p when the rows go up reduced mod p (Mont32), else 0
    int64_t points_per_unit() const { return g->cols * g->nodes; }
    uint64_t in_bytes_per_unit() const { return static_cast<uint64_t>(g->width_a) * sizeof(uint64_t); }
    uint64_t b_bytes() const { return std::max<uint64_t>(static_cast<uint64_t>(g->cols * g->width_b) * sizeof(uint64_t), 8); }
    uint64_t fixed_bytes() const {
        return b_bytes() + static_cast<uint64_t>(std::max<int64_t>(inputs, 1)) * sizeof(uint32_t) + static_cast<uint64_t>(g->nodes) * sizeof(uint64_t);
    }
    template <class Ar>
    int setup(const Ar& ar, sr_cuda_status* st) {
        const GridJob& job = *this;
        SR_TRY(cudaMalloc(&d_b.ptr, b_bytes()));
        SR_TRY(cudaMalloc(&d_source.ptr, static_cast<size_t>(std::max<int64_t>(inputs, 1)) * sizeof(uint32_t)));
        SR_TRY(cudaMalloc(&d_scales.ptr, static_cast<size_t>(g->nodes) * sizeof(uint64_t)));
        if (g->cols * g->width_b > 0)
            SR_TRY(upload_values(d_b.ptr, g->b, static_cast<size_t>(g->cols * g->width_b), reduce));
        if (inputs > 0) SR_TRY(cudaMemcpy(d_source.ptr, g->source, static_cast<size_t>(inputs) * sizeof(uint32_t), cudaMemcpyHostToDevice));
        std::vector<uint64_t> scales(static_cast<size_t>(g->nodes));
        for (int64_t t = 0; t < g->nodes; ++t) scales[static_cast<size_t>(t)] = ar.input_scale(static_cast<uint64_t>(t + 1));
        SR_TRY(cudaMemcpy(d_scales.ptr, scales.data(), scales.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
        return SR_CUDA_OK;
    }
    int upload(int64_t u0, int64_t n, void* d_in, sr_cuda_status* st) {
        const GridJob& job = *this;
        if (g->width_a > 0)
            SR_TRY(upload_values(d_in, g->a + u0 * g->width_a, static_cast<size_t>(n * g->width_a), reduce));
        return SR_CUDA_OK;
    }
    GridSource source(const void* d_in) const {
        return GridSource{static_cast<const uint64_t*>(d_in), d_b.as<uint64_t>(), d_source.as<uint32_t>(), d_scales.as<uint64_t>(),
                          g->width_a, g->width_b, g->cols, g->nodes};
    }
};

// sr_cuda::profiling(): the host time of each phase of run(), synchronised at each lap.
struct TapeProfile {
    enum Phase { kSetup, kUpload, kKernel, kDownload, kPhases };
    bool on = sr_cuda::profiling();
    double seconds[kPhases] = {};
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void lap(Phase ph) {
        if (!on) return;
        (void)cudaDeviceSynchronize();  // a failure shows in run()'s next call
        const auto now = std::chrono::steady_clock::now();
        seconds[ph] += std::chrono::duration<double>(now - last).count();
        last = now;
    }
    void print(const char* who, int64_t points, int bits, int block, bool shared) const {
        if (!on) return;
        std::fprintf(stderr, "cuda tape profile %s: %lld points in %d-bit words (%d threads a block, slots in %s memory): setup %.4f s, upload %.4f s, "
                     "kernel %.4f s, download %.4f s\n",
                     who, static_cast<long long>(points), bits, block, shared ? "shared" : "global", seconds[kSetup], seconds[kUpload],
                     seconds[kKernel], seconds[kDownload]);
    }
};

// Evaluates job.units units (job.points_per_unit() points each, > 0) into out.
template <class Ar, class Job>
int run(const sr_tape* t, Ar ar, Job& job, uint64_t* out, sr_cuda_status* st) {
    DeviceShape d;
    SR_TRY(device_shape(d));
    const int sms = d.sms, per_sm = d.per_sm;
    size_t free_b = 0, total_b = 0;
    SR_TRY(cudaMemGetInfo(&free_b, &total_b));
    Plan plan = slot_plan(t, d);
    const uint64_t slots = static_cast<uint64_t>(t->slots);
    auto round_up = [&](int64_t n) { return (n + plan.block - 1) / plan.block * plan.block; };

    const int64_t ppu = job.points_per_unit();
    const int64_t count = job.units * ppu;  // points in all
    // Threads: as many as the GPU holds at once (fewer for few points); with global
    // slots, halved while their scratch and the units to feed them do not fit.
    plan.threads = std::min<int64_t>(round_up(count), static_cast<int64_t>(std::max(sms, 1)) * std::max(per_sm, kBlock));
    const uint64_t per_unit = job.in_bytes_per_unit() + static_cast<uint64_t>(ppu) * sizeof(uint64_t);  // its input and its values
    const uint64_t per_thread = plan.shared ? 0 : slots * plan.word;  // a slot's word: 4 bytes in 32-bit words
    const uint64_t usable = free_b / 8 * 7;  // the rest for the runtime and other users
    auto min_units = [&](int64_t th) { return std::min<int64_t>(job.units, std::max<int64_t>(1, (th + ppu - 1) / ppu)); };
    auto need = [&](int64_t th) {
        return plan.ops_bytes + job.fixed_bytes() + per_thread * static_cast<uint64_t>(th) + per_unit * static_cast<uint64_t>(min_units(th));
    };
    while (plan.threads > plan.block && need(plan.threads) > usable) plan.threads = round_up(plan.threads / 2);
    if (need(plan.threads) > usable)
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY,
                             "%s: needs %llu bytes of device memory (program %llu, fixed %llu, %llu slots x %lld threads, %lld units x %llu), "
                             "%llu free",
                             job.who, static_cast<unsigned long long>(need(plan.threads)), static_cast<unsigned long long>(plan.ops_bytes),
                             static_cast<unsigned long long>(job.fixed_bytes()), static_cast<unsigned long long>(slots),
                             static_cast<long long>(plan.threads), static_cast<long long>(min_units(plan.threads)),
                             static_cast<unsigned long long>(per_unit), static_cast<unsigned long long>(free_b));
    plan.scratch_bytes = per_thread * static_cast<uint64_t>(plan.threads);
    // Units per chunk: what the rest of the budget holds, at most 1 GiB of them.
    const uint64_t room = std::min<uint64_t>(usable - plan.ops_bytes - job.fixed_bytes() - plan.scratch_bytes, uint64_t{1} << 30);
    const int64_t chunk = std::min<int64_t>(job.units, std::max<int64_t>(min_units(plan.threads), static_cast<int64_t>(room / per_unit)));

    DeviceBuffer d_ops, d_scratch, d_in, d_out;
    if (!plan.in_constant) SR_TRY(cudaMalloc(&d_ops.ptr, plan.ops_bytes));
    if (!plan.shared) SR_TRY(cudaMalloc(&d_scratch.ptr, plan.scratch_bytes));
    const uint64_t in_bytes = std::max<uint64_t>(static_cast<uint64_t>(chunk) * job.in_bytes_per_unit(), 8);
    const uint64_t out_bytes = static_cast<uint64_t>(chunk * ppu) * sizeof(uint64_t);
    SR_TRY(cudaMalloc(&d_in.ptr, in_bytes));
    SR_TRY(cudaMalloc(&d_out.ptr, out_bytes));
    if (st) st->bytes = static_cast<double>(plan.ops_bytes + job.fixed_bytes() + plan.scratch_bytes + in_bytes + out_bytes);

    Event start, stop;
    SR_TRY(cudaEventCreate(&start.e));
    SR_TRY(cudaEventCreate(&stop.e));
    SR_TRY(cudaEventRecord(start.e));
    TapeProfile prof;  // one line on stderr when profiling
    const int ready = job.setup(ar, st);
    if (ready != SR_CUDA_OK) return ready;
    const size_t program_bytes = static_cast<size_t>(t->n_ops) * sizeof(sr_tape_op);
    if (plan.in_constant) SR_TRY(cudaMemcpyToSymbol(c_ops, t->ops, program_bytes));
    else SR_TRY(cudaMemcpy(d_ops.ptr, t->ops, program_bytes, cudaMemcpyHostToDevice));
    // The network's own kernel where SEPRANK_CUDA_COMPILED=1 asks for it (compiled.cuh).
    Compiled compiled;
    const bool use_compiled = compile_if_asked(job.who, t, ar, kernel_for(job.source(d_in.ptr)), compiled);
    cudaError_t filled = cudaSuccess;  // the image's constants are this tape's until the last launch
    const std::unique_lock<std::mutex> hold = hold_compiled(use_compiled ? &compiled : nullptr, filled);
    SR_TRY(filled);
    prof.lap(TapeProfile::kSetup);
    for (int64_t u0 = 0; u0 < job.units; u0 += chunk) {
        const int64_t nu = std::min(chunk, job.units - u0);
        const int up = job.upload(u0, nu, d_in.ptr, st);
        if (up != SR_CUDA_OK) return up;
        prof.lap(TapeProfile::kUpload);
        const int64_t n = nu * ppu;
        const cudaError_t e = use_compiled ? launch_compiled(compiled, ar, job.source(d_in.ptr), n, d_out.as<uint64_t>())
                                           : dispatch<Ar>(plan, t, ar, d_ops.as<sr_tape_op>(), job.source(d_in.ptr), n, d_scratch.as<uint64_t>(),
                                                          d_out.as<uint64_t>());
        if (e != cudaSuccess)
            return sr_cuda::fail(st, SR_CUDA_ERROR, "%s: kernel launch (%d threads per block, %llu bytes of shared slots): %s", job.who, plan.block,
                                 static_cast<unsigned long long>(plan.shared_bytes), cudaGetErrorString(e));
        prof.lap(TapeProfile::kKernel);
        SR_TRY(cudaMemcpy(out + u0 * ppu, d_out.ptr, static_cast<size_t>(n) * sizeof(uint64_t), cudaMemcpyDeviceToHost));
        prof.lap(TapeProfile::kDownload);
    }
    prof.print(job.who, count, std::is_same<Ar, seprank::tape::Mont32>::value ? 32 : 64, plan.block, plan.shared);
    SR_TRY(cudaEventRecord(stop.e));
    SR_TRY(cudaEventSynchronize(stop.e));
    float ms = 0;
    SR_TRY(cudaEventElapsedTime(&ms, start.e, stop.e));
    if (st) st->gpu_seconds = ms / 1000.0;
    return sr_cuda::ok(st);
}

// c_ops is one per process: one evaluation at a time.
std::mutex busy;

// No exception leaves the plugin (a C interface): host allocations (the scales of a grid)
// and the lock become status codes, as in sr_cuda_rank.
template <class Job>
int run_any(const sr_tape* tape, Job& job, uint64_t* out, sr_cuda_status* st) {
    try {
        const std::lock_guard<std::mutex> lock(busy);
        if (tape->p == 2) return run(tape, seprank::tape::Two{}, job, out, st);
        if (runs_narrow(tape)) {  // 32-bit words: the constants converted, the points reduced
            const NarrowTape narrow(*tape);
            job.reduce = tape->p;
            return run(&narrow.t, seprank::tape::make_mont32(tape->p), job, out, st);
        }
        return run(tape, seprank::tape::make_mont(tape->p), job, out, st);
    } catch (const std::bad_alloc&) {
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY, "%s: out of host memory", job.who);
    } catch (const std::exception& e) {
        return sr_cuda::fail(st, SR_CUDA_ERROR, "%s: %s", job.who, e.what());
    }
}

}  // namespace

extern "C" SR_CUDA_EXPORT int sr_cuda_tape_eval(const sr_tape* tape, const uint64_t* points, int64_t count, uint64_t* out,
                                                sr_cuda_status* st) {
    const char* who = "sr_cuda_tape_eval";
    sr_cuda::clear(st);
    const int bad = check_tape(who, tape, st);
    if (bad != SR_CUDA_OK) return bad;
    if (count < 0) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: count %lld < 0", who, static_cast<long long>(count));
    if (count > 0 && (points == nullptr || out == nullptr)) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: points or out is NULL", who);
    if (count == 0) return sr_cuda::ok(st);
    const int none = sr_cuda::no_device(st, who);
    if (none != SR_CUDA_OK) return none;
    FlatJob job{who, points, tape->inputs, count, 0};
    return run_any(tape, job, out, st);
}

extern "C" SR_CUDA_EXPORT int sr_cuda_tape_grid(const sr_tape* tape, const sr_tape_grid* g, uint64_t* out, sr_cuda_status* st) {
    const char* who = "sr_cuda_tape_grid";
    sr_cuda::clear(st);
    const int bad = check_tape(who, tape, st);
    if (bad != SR_CUDA_OK) return bad;
    if (g == nullptr) return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: grid is NULL", who);
    if (g->rows < 0 || g->cols < 0 || g->width_a < 0 || g->width_b < 0 || g->nodes < 1)
        return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: rows %lld, cols %lld, widths %lld and %lld, nodes %lld", who, static_cast<long long>(g->rows),
                             static_cast<long long>(g->cols), static_cast<long long>(g->width_a), static_cast<long long>(g->width_b),
                             static_cast<long long>(g->nodes));
    if (g->rows == 0 || g->cols == 0) return sr_cuda::ok(st);
    if (out == nullptr || (tape->inputs > 0 && g->source == nullptr) || (g->width_a > 0 && g->a == nullptr) || (g->width_b > 0 && g->b == nullptr))
        return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: a, b, source or out is NULL", who);
    for (int64_t c = 0; c < tape->inputs; ++c)
        if (static_cast<int64_t>(g->source[c]) >= g->width_a + g->width_b)
            return sr_cuda::fail(st, SR_CUDA_INVALID, "%s: source[%lld] = %u is not below width_a + width_b = %lld", who, static_cast<long long>(c),
                                 g->source[c], static_cast<long long>(g->width_a + g->width_b));
    const int none = sr_cuda::no_device(st, who);
    if (none != SR_CUDA_OK) return none;
    GridJob job{who, g, tape->inputs, g->rows, {}, {}, {}, 0};
    return run_any(tape, job, out, st);
}
