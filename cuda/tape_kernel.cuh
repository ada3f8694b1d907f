// seprank CUDA plugin (private): the forward-evaluation kernel of a recorded tape and its
// launch plan, shared by tape.cu (sr_cuda_tape_eval, sr_cuda_tape_grid) and graded.cu (the
// graded session). The header comment of tape.cu describes the kernel. Everything is in an
// unnamed namespace: each .cu file has its own constant-memory program (c_ops).
#pragma once

#include "cuda_common.cuh"
#include "network/tape_impl.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

constexpr int kConstOps = 2560;  // 2560 · 24 bytes = 60 KiB of the 64 KiB constant bank
constexpr int kBlock = 256;      // threads per block (at most)

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

// Point q of a chunk, as the coordinate accessor of seprank::tape::step (values in the
// tape's form). Flat: point q is points[q·inputs ..).
struct FlatSource {
    const uint64_t* points;
    int64_t inputs;
    template <class Ar>
    __device__ auto at(int64_t q, const Ar& ar) const {
        const uint64_t* x = points + q * inputs;
        return [x, ar](uint32_t c) -> uint64_t { return ar.to(x[c]); };
    }
};

// Grid: q = (i·cols + j)·nodes + t; side A scaled by t + 1 through scales[t] (input_scale),
// side B as is. The branch on source[c] is uniform across the warp (c is).
struct GridSource {
    const uint64_t* a;
    const uint64_t* b;
    const uint32_t* source;
    const uint64_t* scales;
    int64_t width_a, width_b, cols, nodes;
    template <class Ar>
    __device__ auto at(int64_t q, const Ar& ar) const {
        int64_t t, j, i;
        if (q <= INT64_C(0xffffffff) && cols <= INT64_C(0xffffffff) && nodes <= INT64_C(0xffffffff)) {
            // 32-bit divisions: a 64-bit one is a long instruction sequence on a GPU (every
            // launch here has fewer than 2^32 points: chunks of at most 1 GiB of values)
            const uint32_t q32 = static_cast<uint32_t>(q), n32 = static_cast<uint32_t>(nodes), c32 = static_cast<uint32_t>(cols);
            const uint32_t r32 = q32 / n32;
            t = q32 - r32 * n32, j = r32 % c32, i = r32 / c32;
        } else {
            const int64_t r = q / nodes;
            t = q - r * nodes, j = r % cols, i = r / cols;
        }
        const uint64_t* ai = a + i * width_a;
        const uint64_t* bj = b + j * width_b;
        const uint64_t sc = scales[t];
        const uint32_t* src = source;
        const int64_t wa = width_a;
        return [ai, bj, sc, src, wa, ar](uint32_t c) -> uint64_t {
            const int64_t k = src[c];
            return k < wa ? ar.mul(ai[k], sc) : ar.to(bj[k - wa]);
        };
    }
};

// The word a slot is held in: 32 bits for Mont32 (its residues are below 2^31), which
// halves the slots' shared memory and so doubles the threads it lets reside; 64 otherwise.
template <class Ar>
struct SlotWord {
    using type = uint64_t;
};
template <>
struct SlotWord<seprank::tape::Mont32> {
    using type = uint32_t;
};

template <class Ar, bool InConstant, bool SlotsShared, class Source>
__global__ void __launch_bounds__(kBlock) tape_kernel(const sr_tape_op* __restrict__ ops, int64_t n_ops, Ar ar, Source src, int64_t count,
                                                      uint64_t* __restrict__ scratch, uint32_t output, uint64_t* __restrict__ out) {
    using Word = typename SlotWord<Ar>::type;
    extern __shared__ uint64_t shared_slots[];
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    // (scratch holds plan.word bytes a slot and thread: launch checks the word is Word's)
    Word* const s = SlotsShared ? reinterpret_cast<Word*>(shared_slots) + threadIdx.x : reinterpret_cast<Word*>(scratch) + tid;
    const int64_t step = SlotsShared ? static_cast<int64_t>(blockDim.x) : stride;
    auto slot = [s, step](uint32_t i) -> Word& { return s[static_cast<int64_t>(i) * step]; };
    for (int64_t q = tid; q < count; q += stride) {
        const auto coord = src.at(q, ar);
        for (int64_t k = 0; k < n_ops; ++k) {
            const sr_tape_op op = InConstant ? c_ops[k] : ops[k];
            seprank::tape::step(op, ar, slot, coord);
        }
        out[q] = ar.from(slot(output));
    }
}

bool reads_a(uint32_t code) { return code != SR_TAPE_ZERO && code != SR_TAPE_CONST && code != SR_TAPE_INPUT; }
bool reads_b(uint32_t code) { return code == SR_TAPE_MUL || code == SR_TAPE_ADD || code == SR_TAPE_AXPY; }

// The checks of the header comment, before anything touches the device. `who` names the entry.
int check_tape(const char* who, const sr_tape* t, sr_cuda_status* st) {
    using sr_cuda::fail;
    if (t == nullptr) return fail(st, SR_CUDA_INVALID, "%s: tape is NULL", who);
    const uint64_t p = t->p;
    if (!(p == 2 || (p % 2 == 1 && p >= 3 && p < (uint64_t{1} << 63))))
        return fail(st, SR_CUDA_INVALID, "%s: modulus p = %llu: expected 2 or an odd prime below 2^63", who, static_cast<unsigned long long>(p));
    if (t->n_ops < 1 || t->ops == nullptr) return fail(st, SR_CUDA_INVALID, "%s: empty program (%lld ops)", who, static_cast<long long>(t->n_ops));
    if (t->slots < 1 || t->slots > INT64_C(0xffffffff)) return fail(st, SR_CUDA_INVALID, "%s: slots = %lld", who, static_cast<long long>(t->slots));
    if (t->inputs < 0 || t->inputs > INT64_C(0xffffffff)) return fail(st, SR_CUDA_INVALID, "%s: inputs = %lld", who, static_cast<long long>(t->inputs));
    const uint64_t slots = static_cast<uint64_t>(t->slots);
    if (t->output >= slots) return fail(st, SR_CUDA_INVALID, "%s: output slot %u >= slots %lld", who, t->output, static_cast<long long>(t->slots));
    for (int64_t k = 0; k < t->n_ops; ++k) {
        const sr_tape_op& op = t->ops[k];
        const bool bad = op.code > SR_TAPE_ADDC || op.dst >= slots || (op.code == SR_TAPE_INPUT && static_cast<int64_t>(op.a) >= t->inputs) ||
                         (reads_a(op.code) && op.a >= slots) || (reads_b(op.code) && op.b >= slots);
        if (bad)
            return fail(st, SR_CUDA_INVALID, "%s: op %lld (code %u, dst %u, a %u, b %u) out of range (slots %lld, inputs %lld)", who,
                        static_cast<long long>(k), op.code, op.dst, op.a, op.b, static_cast<long long>(t->slots), static_cast<long long>(t->inputs));
    }
    return SR_CUDA_OK;
}

// Where the program and the slots live, and the launch shape.
struct Plan {
    bool in_constant = false, shared = false;
    int block = kBlock;           // threads per block
    int64_t threads = 0;          // the most threads launched at once (grid · block)
    uint64_t ops_bytes = 0;       // program in global memory
    uint64_t shared_bytes = 0;    // slots of one block in shared memory
    uint64_t scratch_bytes = 0;   // slots in global memory
    uint64_t word = 8;            // bytes a slot takes (4 where runs_narrow: SlotWord)
    int sms = 0;                  // multiprocessors (slot_plan)
};

template <class Ar, bool InConstant, bool SlotsShared, class Source>
cudaError_t launch(const Plan& plan, const sr_tape* t, Ar ar, const sr_tape_op* d_ops, Source src, int64_t n, uint64_t* d_scratch,
                   uint64_t* d_out) {
    auto kernel = tape_kernel<Ar, InConstant, SlotsShared, Source>;
    if (sizeof(typename SlotWord<Ar>::type) != plan.word) return cudaErrorInvalidValue;  // a plan made for the other word size
    if (SlotsShared) {
        const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(plan.shared_bytes));
        if (e != cudaSuccess) return e;
    }
    // At most what the GPU holds at once (one wave of the grid-stride loop): plan.threads,
    // and the blocks that shared memory and registers let reside on every multiprocessor
    // (more would leave a partial last wave of equal-work blocks).
    int64_t cap = plan.threads / plan.block;
    int resident = 0;
    if (plan.sms > 0) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, plan.block, SlotsShared ? static_cast<size_t>(plan.shared_bytes) : 0) !=
            cudaSuccess) {
            resident = 0;
            (void)cudaGetLastError();  // tolerated (the cap stays plan.threads): not the launch's error
        }
        if (resident > 0) cap = std::min<int64_t>(cap, static_cast<int64_t>(resident) * plan.sms);
    }
    const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>((n + plan.block - 1) / plan.block, cap));
    kernel<<<static_cast<unsigned>(blocks), plan.block, SlotsShared ? plan.shared_bytes : 0>>>(d_ops, t->n_ops, ar, src, n, d_scratch,
                                                                                          t->output, d_out);
    return cudaGetLastError();
}

template <class Ar, class Source>
cudaError_t dispatch(const Plan& plan, const sr_tape* t, Ar ar, const sr_tape_op* d_ops, Source src, int64_t n, uint64_t* d_scratch,
                     uint64_t* d_out) {
    if (plan.in_constant) {
        if (plan.shared) return launch<Ar, true, true>(plan, t, ar, d_ops, src, n, d_scratch, d_out);
        return launch<Ar, true, false>(plan, t, ar, d_ops, src, n, d_scratch, d_out);
    }
    if (plan.shared) return launch<Ar, false, true>(plan, t, ar, d_ops, src, n, d_scratch, d_out);
    return launch<Ar, false, false>(plan, t, ar, d_ops, src, n, d_scratch, d_out);
}

// The device's sizes that a plan depends on.
struct DeviceShape {
    int sms = 0, per_sm = 0, shared_optin = 0, shared_sm = 0, reserved = 0;
};

inline cudaError_t device_shape(DeviceShape& d) {
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.shared_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&d.reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev);
    return e;
}

// Whether the kernel runs tape t in 32-bit words (tape_impl.hpp, Mont32).
inline bool runs_narrow(const sr_tape* t) { return seprank::tape::narrow_prime(t->p) && (t->flags & SR_TAPE_WIDE) == 0; }

// Where the program and the slots of tape t live and the block size (Plan's first fields;
// threads and scratch are the caller's, who knows its memory).
inline Plan slot_plan(const sr_tape* t, const DeviceShape& d) {
    const int sms = d.sms, per_sm = d.per_sm, shared_optin = d.shared_optin, shared_sm = d.shared_sm, reserved = d.reserved;
    (void)sms;
    const bool general = (t->flags & SR_TAPE_GENERAL) != 0;
    const uint64_t slots = static_cast<uint64_t>(t->slots);
    Plan plan;
    plan.word = runs_narrow(t) ? 4 : 8;  // as SlotWord of the arithmetic dispatch runs t in
    plan.in_constant = !general && t->n_ops <= kConstOps;
    plan.ops_bytes = plan.in_constant ? 0 : static_cast<uint64_t>(t->n_ops) * sizeof(sr_tape_op);
    // Slots in shared memory: the block size (256, 128, 64 or 32) that keeps the most
    // threads resident on an SM, the larger block on a tie; none when even 32 threads'
    // slots exceed a block's shared memory.
    int64_t best_resident = 0;
    for (int b = kBlock; b >= 32 && !general; b /= 2) {
        const uint64_t bytes = slots * plan.word * static_cast<uint64_t>(b);
        if (bytes > static_cast<uint64_t>(shared_optin)) continue;
        const int64_t by_shared = static_cast<int64_t>(static_cast<uint64_t>(shared_sm) / (bytes + static_cast<uint64_t>(reserved)));
        const int64_t blocks_sm = std::min<int64_t>({by_shared, 32, std::max(per_sm, b) / b});
        if (blocks_sm * b > best_resident) {
            best_resident = blocks_sm * b;
            plan.block = b;
        }
    }
    plan.shared = best_resident > 0;
    if (!plan.shared) plan.block = kBlock;
    plan.shared_bytes = plan.shared ? slots * plan.word * static_cast<uint64_t>(plan.block) : 0;
    plan.sms = d.sms;
    return plan;
}

// Tape t with its constants in Mont32's form (the instructions that read w), for an odd
// p < 2^31. Host memory; t.ops points into ops.
struct NarrowTape {
    std::vector<sr_tape_op> ops;
    sr_tape t{};
    explicit NarrowTape(const sr_tape& src) : ops(src.ops, src.ops + src.n_ops), t(src) {
        seprank::tape::narrow_program(ops.data(), ops.size(), seprank::tape::make_mont32(src.p));
        t.ops = ops.data();
    }
    NarrowTape(const NarrowTape&) = delete;
    NarrowTape& operator=(const NarrowTape&) = delete;
};

// Values at or above p brought below it, in place (a thread per value; the library's points
// are drawn mod p, so the division is almost never taken).
__global__ void reduce_values_kernel(uint64_t* v, int64_t n, uint64_t p) {
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
        if (v[i] >= p) v[i] %= p;
}

// Copies n values to the device, reduced mod p there when p != 0 (Mont32 takes coordinates
// below 2^32). The reduction ran on the host at first, a scan of comparisons over every
// value (or a copy and a 64-bit division each): bench_tape's profile on an H200 put the
// flat evaluation in 32-bit words at twice the upload time of the one in 64-bit words
// (bench/GPU.md); on the device it is a pass over memory already there.
inline cudaError_t upload_values(void* dst, const uint64_t* src, size_t n, uint64_t p) {
    if (n == 0) return cudaSuccess;
    const cudaError_t e = cudaMemcpy(dst, src, n * sizeof(uint64_t), cudaMemcpyHostToDevice);
    if (e != cudaSuccess || p == 0) return e;
    const int64_t blocks = std::min<int64_t>((static_cast<int64_t>(n) + 255) / 256, 65535);
    reduce_values_kernel<<<static_cast<unsigned>(blocks), 256>>>(static_cast<uint64_t*>(dst), static_cast<int64_t>(n), p);
    return cudaGetLastError();
}

}  // namespace
