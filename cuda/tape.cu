// seprank CUDA plugin: batched forward evaluation of a recorded tape
// (include/seprank/tape.hpp, docs/tape.md).
//
// One thread per point runs the whole program; every thread of a warp executes the same
// instruction at the same time (the program is straight-line, the opcode uniform), so
// there is no divergence but at the tail of the points. The program sits in constant
// memory when it fits (kConstOps instructions: each read is a broadcast of one address to
// the warp), else in global memory (the same single address per warp, served by L1).
// A thread's slots live in shared memory when a block's fit (slot i of thread t at
// sh[i·blockDim + t]: a warp's accesses to one slot are conflict-free); the block is
// 256 threads, halved down to 32 until slots·block·8 bytes fit the opt-in shared memory
// of a block (227 KiB on sm_90: up to 113 slots at 256 threads, 908 at 32). Otherwise
// (or with SR_TAPE_GENERAL) they live in global memory, interleaved the same way over
// all launched threads (scratch[i·threads + t], coalesced). Either way the grid is sized
// to what the GPU holds at once and strides over the points, so scratch never grows
// with the number of points. The points are copied in chunks sized to the free device
// memory. The arithmetic of each instruction is src/tape_impl.hpp's, shared with the CPU
// interpreter.
#include "cuda_common.cuh"
#include "tape_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>

namespace {

constexpr int kConstOps = 2560;  // 2560 · 24 bytes = 60 KiB of the 64 KiB constant bank
constexpr int kBlock = 256;      // threads per block

__constant__ sr_tape_op c_ops[kConstOps];

// Device memory freed on every path out.
struct DeviceBuffer {
    void* ptr = nullptr;
    DeviceBuffer() = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() {
        if (ptr) cudaFree(ptr);
    }
    template <class T>
    T* as() const {
        return static_cast<T*>(ptr);
    }
};

struct Event {
    cudaEvent_t e = nullptr;
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (e) cudaEventDestroy(e);
    }
};

template <class Ar, bool InConstant, bool SlotsShared>
__global__ void __launch_bounds__(kBlock) tape_kernel(const sr_tape_op* __restrict__ ops, int64_t n_ops, Ar ar,
                                                      const uint64_t* __restrict__ points, int64_t inputs, int64_t count,
                                                      uint64_t* __restrict__ scratch, uint32_t output, uint64_t* __restrict__ out) {
    extern __shared__ uint64_t shared_slots[];
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    uint64_t* const s = SlotsShared ? shared_slots + threadIdx.x : scratch + tid;
    const int64_t step = SlotsShared ? static_cast<int64_t>(blockDim.x) : stride;
    for (int64_t q = tid; q < count; q += stride) {
        const uint64_t* x = points + q * inputs;
        auto slot = [s, step](uint32_t i) -> uint64_t& { return s[static_cast<int64_t>(i) * step]; };
        auto coord = [x](uint32_t c) -> uint64_t { return x[c]; };
        for (int64_t k = 0; k < n_ops; ++k) {
            const sr_tape_op op = InConstant ? c_ops[k] : ops[k];
            seprank::tape::step(op, ar, slot, coord);
        }
        out[q] = ar.from(slot(output));
    }
}

bool reads_a(uint32_t code) { return code != SR_TAPE_ZERO && code != SR_TAPE_CONST && code != SR_TAPE_INPUT; }
bool reads_b(uint32_t code) { return code == SR_TAPE_MUL || code == SR_TAPE_ADD || code == SR_TAPE_AXPY; }

// The checks of the header comment, before anything touches the device.
int check_args(const sr_tape* t, const uint64_t* points, int64_t count, const uint64_t* out, sr_cuda_status* st) {
    using sr_cuda::fail;
    if (t == nullptr) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: tape is NULL");
    if (count < 0) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: count %lld < 0", static_cast<long long>(count));
    if (count > 0 && (points == nullptr || out == nullptr)) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: points or out is NULL");
    const uint64_t p = t->p;
    if (!(p == 2 || (p % 2 == 1 && p >= 3 && p < (uint64_t{1} << 63))))
        return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: modulus p = %llu: expected 2 or an odd prime below 2^63",
                    static_cast<unsigned long long>(p));
    if (t->n_ops < 1 || t->ops == nullptr) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: empty program (%lld ops)", static_cast<long long>(t->n_ops));
    if (t->slots < 1 || t->slots > INT64_C(0xffffffff)) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: slots = %lld", static_cast<long long>(t->slots));
    if (t->inputs < 0) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: inputs = %lld", static_cast<long long>(t->inputs));
    const uint64_t slots = static_cast<uint64_t>(t->slots);
    if (t->output >= slots) return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: output slot %u >= slots %lld", t->output, static_cast<long long>(t->slots));
    for (int64_t k = 0; k < t->n_ops; ++k) {
        const sr_tape_op& op = t->ops[k];
        const bool bad = op.code > SR_TAPE_ADDC || op.dst >= slots || (op.code == SR_TAPE_INPUT && static_cast<int64_t>(op.a) >= t->inputs) ||
                         (reads_a(op.code) && op.a >= slots) || (reads_b(op.code) && op.b >= slots);
        if (bad)
            return fail(st, SR_CUDA_INVALID, "sr_cuda_tape_eval: op %lld (code %u, dst %u, a %u, b %u) out of range (slots %lld, inputs %lld)",
                        static_cast<long long>(k), op.code, op.dst, op.a, op.b, static_cast<long long>(t->slots),
                        static_cast<long long>(t->inputs));
    }
    return SR_CUDA_OK;
}

#define SR_TRY(call)                                                                                                   \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_tape_eval: %s: %s", #call, cudaGetErrorString(e_)); \
    } while (0)

// Where the program and the slots live, and the launch shape.
struct Plan {
    bool in_constant = false, shared = false;
    int block = kBlock;           // threads per block
    int64_t threads = 0;          // the most threads launched at once (grid · block)
    uint64_t ops_bytes = 0;       // program in global memory
    uint64_t shared_bytes = 0;    // slots of one block in shared memory
    uint64_t scratch_bytes = 0;   // slots in global memory
};

template <class Ar, bool InConstant, bool SlotsShared>
cudaError_t launch(const Plan& plan, const sr_tape* t, Ar ar, const sr_tape_op* d_ops, const uint64_t* d_points, int64_t n,
                   uint64_t* d_scratch, uint64_t* d_out) {
    auto kernel = tape_kernel<Ar, InConstant, SlotsShared>;
    if (SlotsShared) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.shared_bytes));
        if (e != cudaSuccess) return e;
    }
    const int64_t blocks = std::min<int64_t>((n + plan.block - 1) / plan.block, plan.threads / plan.block);
    kernel<<<static_cast<unsigned>(blocks), plan.block, SlotsShared ? plan.shared_bytes : 0>>>(d_ops, t->n_ops, ar, d_points, t->inputs, n,
                                                                                          d_scratch, t->output, d_out);
    return cudaGetLastError();
}

template <class Ar>
cudaError_t dispatch(const Plan& plan, const sr_tape* t, Ar ar, const sr_tape_op* d_ops, const uint64_t* d_points, int64_t n,
                     uint64_t* d_scratch, uint64_t* d_out) {
    if (plan.in_constant) {
        if (plan.shared) return launch<Ar, true, true>(plan, t, ar, d_ops, d_points, n, d_scratch, d_out);
        return launch<Ar, true, false>(plan, t, ar, d_ops, d_points, n, d_scratch, d_out);
    }
    if (plan.shared) return launch<Ar, false, true>(plan, t, ar, d_ops, d_points, n, d_scratch, d_out);
    return launch<Ar, false, false>(plan, t, ar, d_ops, d_points, n, d_scratch, d_out);
}

template <class Ar>
int run(const sr_tape* t, Ar ar, const uint64_t* points, int64_t count, uint64_t* out, sr_cuda_status* st) {
    int dev = 0, sms = 0, per_sm = 0, shared_optin = 0;
    SR_TRY(cudaGetDevice(&dev));
    SR_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    SR_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    SR_TRY(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    size_t free_b = 0, total_b = 0;
    SR_TRY(cudaMemGetInfo(&free_b, &total_b));

    const bool general = (t->flags & SR_TAPE_GENERAL) != 0;
    const uint64_t slots = static_cast<uint64_t>(t->slots);
    Plan plan;
    plan.in_constant = !general && t->n_ops <= kConstOps;
    plan.ops_bytes = plan.in_constant ? 0 : static_cast<uint64_t>(t->n_ops) * sizeof(sr_tape_op);
    while (plan.block > 32 && slots * sizeof(uint64_t) * static_cast<uint64_t>(plan.block) > static_cast<uint64_t>(shared_optin)) plan.block /= 2;
    plan.shared = !general && slots * sizeof(uint64_t) * static_cast<uint64_t>(plan.block) <= static_cast<uint64_t>(shared_optin);
    if (!plan.shared) plan.block = kBlock;
    plan.shared_bytes = plan.shared ? slots * sizeof(uint64_t) * static_cast<uint64_t>(plan.block) : 0;
    auto round_up = [&](int64_t n) { return (n + plan.block - 1) / plan.block * plan.block; };
    // Threads: as many as the GPU holds at once (fewer for few points); with global
    // slots, halved while their scratch and one point each do not fit.
    plan.threads = std::min<int64_t>(round_up(count), static_cast<int64_t>(std::max(sms, 1)) * std::max(per_sm, kBlock));
    const uint64_t per_point = (static_cast<uint64_t>(t->inputs) + 1) * sizeof(uint64_t);  // its coordinates and its value
    const uint64_t per_thread = plan.shared ? 0 : slots * sizeof(uint64_t);
    const uint64_t usable = free_b / 8 * 7;  // the rest for the runtime and other users
    auto need = [&](int64_t th) { return plan.ops_bytes + (per_thread + per_point) * static_cast<uint64_t>(th); };
    while (plan.threads > plan.block && need(plan.threads) > usable) plan.threads = round_up(plan.threads / 2);
    if (need(plan.threads) > usable)
        return sr_cuda::fail(st, SR_CUDA_NO_MEMORY,
                             "sr_cuda_tape_eval: needs %llu bytes of device memory (program %llu, %llu slots x %lld threads, %lld points x %llu), "
                             "%llu free",
                             static_cast<unsigned long long>(need(plan.threads)), static_cast<unsigned long long>(plan.ops_bytes),
                             static_cast<unsigned long long>(per_thread / sizeof(uint64_t)), static_cast<long long>(plan.threads),
                             static_cast<long long>(plan.threads), static_cast<unsigned long long>(per_point),
                             static_cast<unsigned long long>(free_b));
    plan.scratch_bytes = per_thread * static_cast<uint64_t>(plan.threads);
    // Points per chunk: what the rest of the budget holds, at most 1 GiB of them.
    const uint64_t room = std::min<uint64_t>(usable - plan.ops_bytes - plan.scratch_bytes, uint64_t{1} << 30);
    const int64_t chunk = std::min<int64_t>(count, std::max<int64_t>(plan.threads, static_cast<int64_t>(room / per_point)));

    DeviceBuffer d_ops, d_scratch, d_points, d_out;
    if (!plan.in_constant) SR_TRY(cudaMalloc(&d_ops.ptr, plan.ops_bytes));
    if (!plan.shared) SR_TRY(cudaMalloc(&d_scratch.ptr, plan.scratch_bytes));
    const uint64_t points_bytes = std::max<uint64_t>(static_cast<uint64_t>(chunk) * static_cast<uint64_t>(t->inputs) * sizeof(uint64_t), 8);
    const uint64_t out_bytes = static_cast<uint64_t>(chunk) * sizeof(uint64_t);
    SR_TRY(cudaMalloc(&d_points.ptr, points_bytes));
    SR_TRY(cudaMalloc(&d_out.ptr, out_bytes));
    if (st) st->bytes = static_cast<double>(plan.ops_bytes + plan.scratch_bytes + points_bytes + out_bytes);

    Event start, stop;
    SR_TRY(cudaEventCreate(&start.e));
    SR_TRY(cudaEventCreate(&stop.e));
    SR_TRY(cudaEventRecord(start.e));
    const size_t program_bytes = static_cast<size_t>(t->n_ops) * sizeof(sr_tape_op);
    if (plan.in_constant) SR_TRY(cudaMemcpyToSymbol(c_ops, t->ops, program_bytes));
    else SR_TRY(cudaMemcpy(d_ops.ptr, t->ops, program_bytes, cudaMemcpyHostToDevice));
    for (int64_t q0 = 0; q0 < count; q0 += chunk) {
        const int64_t n = std::min(chunk, count - q0);
        SR_TRY(cudaMemcpy(d_points.ptr, points + q0 * t->inputs, static_cast<size_t>(n * t->inputs) * sizeof(uint64_t), cudaMemcpyHostToDevice));
        const cudaError_t e = dispatch<Ar>(plan, t, ar, d_ops.as<sr_tape_op>(), d_points.as<uint64_t>(), n, d_scratch.as<uint64_t>(), d_out.as<uint64_t>());
        if (e != cudaSuccess)
            return sr_cuda::fail(st, SR_CUDA_ERROR, "sr_cuda_tape_eval: kernel launch (%d threads per block, %llu bytes of shared slots): %s",
                                 plan.block, static_cast<unsigned long long>(plan.shared_bytes), cudaGetErrorString(e));
        SR_TRY(cudaMemcpy(out + q0, d_out.ptr, static_cast<size_t>(n) * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    }
    SR_TRY(cudaEventRecord(stop.e));
    SR_TRY(cudaEventSynchronize(stop.e));
    float ms = 0;
    SR_TRY(cudaEventElapsedTime(&ms, start.e, stop.e));
    if (st) st->gpu_seconds = ms / 1000.0;
    return sr_cuda::ok(st);
}

}  // namespace

extern "C" SR_CUDA_EXPORT int sr_cuda_tape_eval(const sr_tape* tape, const uint64_t* points, int64_t count, uint64_t* out,
                                                sr_cuda_status* st) {
    if (st) {
        st->gpu_seconds = 0;
        st->bytes = 0;
    }
    const int bad = check_args(tape, points, count, out, st);
    if (bad != SR_CUDA_OK) return bad;
    if (count == 0) return sr_cuda::ok(st);
    int devices = 0;
    const cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0)
        return sr_cuda::fail(st, SR_CUDA_NO_DEVICE, "sr_cuda_tape_eval: %s", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    // c_ops is one per process: one evaluation at a time.
    static std::mutex busy;
    const std::lock_guard<std::mutex> lock(busy);
    if (tape->p == 2) return run(tape, seprank::tape::Two{}, points, count, out, st);
    return run(tape, seprank::tape::make_mont(tape->p), points, count, out, st);
}
