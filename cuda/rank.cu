// seprank CUDA plugin: rank mod p by blocked elimination (sr_cuda_rank). The algorithm,
// its pivot rule, tiling and delayed reduction are src/algebra/blocked_rank_impl.hpp, shared with
// the CPU reference rank_modular_blocked; this file is its GPU backend:
//   - the matrix lives in device memory as row-major doubles holding centred residues;
//   - factor_leaf: the leaf in two phases (blocked_rank_impl.hpp): leaf_top_kernel, one
//     block that scans for the top (the first 64 active rows non-zero in the leaf) and runs
//     the leaf step on it in shared memory, one block barrier per column; then
//     leaf_rest_kernel, a warp per row below, each eliminated on its own with the top's
//     pivots. Where a row below would have been a pivot (the phases then differ from the
//     one-phase step), the columns are restored and leaf_kernel runs: ONE cooperative
//     kernel per leaf of <= 32 columns. Each warp owns rows
//     (row i, i + warps, ...), held in registers, lane c holding column c. Per column: the
//     pivot found in the previous phase (the least candidate row, one atomicMin per block)
//     is read, every active row of the warp is eliminated, and the same pass searches the
//     next column's pivot; one grid-wide sync per column, no host round trip inside the leaf;
//   - swap_rows: one kernel per leaf, a thread per column applies the leaf's transpositions;
//   - the products M = L21 L11^-1 and A22 -= M A12: cublasDgemm_64 (FP64 tensor cores on
//     Hopper; exact, the sums being integers below 2^53), each followed by a reduction
//     kernel (a warp per row); L11^-1 by a warp per column (forward substitution, the
//     lanes splitting each row's sum; a thread per column above 768 columns).
//   - the two-limb mode (2^26 < p < 2^46, blocked_rank_impl.hpp): the same leaf kernels with
//     exact 64-bit scalar operations (leaf_top_kernel<true>, leaf_rest_kernel<true>, and
//     leaf_kernel_wide where the phases differ), and every product as split_kernel,
//     four cublasDgemm_64 on the limbs (two, on B's limbs and A as it is, for p < 2^31: the
//     one-sided limbs), combine_kernel (half_combine_kernel); its limb buffers are GpuBackend's.
// Every CUDA and cuBLAS failure becomes SR_CUDA_ERROR naming the call; all device memory
// is owned by RAII objects, so it is freed on every path.
#include "cuda_common.cuh"

#include "algebra/blocked_rank_impl.hpp"
#include "rank/graded_impl.hpp"
#include "rank_device.cuh"

#include <cooperative_groups.h>
#include <cublas_v2.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <string>
#include <thread>
#include <vector>

namespace cg = cooperative_groups;
namespace blk = seprank::blocked;

namespace sr_cuda {
namespace {

struct Failure {
    int code;
    std::string message;
};

void check(const char* call, cudaError_t e) {
    if (e != cudaSuccess) throw Failure{SR_CUDA_ERROR, std::string(call) + " failed: " + cudaGetErrorString(e)};
}

void check_blas(const char* call, cublasStatus_t s) {
    if (s != CUBLAS_STATUS_SUCCESS) throw Failure{SR_CUDA_ERROR, std::string(call) + " failed: " + cublasGetStatusString(s)};
}

template <class T>
class DeviceArray {
public:
    // stream: null, cudaMalloc and cudaFree (which waits for the whole device); else the
    // stream-ordered allocator on that stream (ranks side by side: no device-wide waits),
    // where the device has memory pools. Out of memory is SR_CUDA_NO_MEMORY.
    explicit DeviceArray(std::size_t count, cudaStream_t stream = nullptr) : s_(stream && pools() ? stream : nullptr) {
        if (count == 0) count = 1;
        void* q = nullptr;
        const cudaError_t e = s_ ? cudaMallocAsync(&q, count * sizeof(T), s_) : cudaMalloc(&q, count * sizeof(T));
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            throw Failure{SR_CUDA_NO_MEMORY, "cudaMalloc: out of device memory for " + std::to_string(count * sizeof(T)) + " bytes"};
        }
        check(s_ ? "cudaMallocAsync" : "cudaMalloc", e);
        p_ = static_cast<T*>(q);
    }
    ~DeviceArray() {
        if (!p_) return;
        if (s_) cudaFreeAsync(p_, s_);
        else cudaFree(p_);
    }
    // Whether device 0 has the stream-ordered allocator (cudaMallocAsync).
    static bool pools() {
        static const bool on = [] {
            int v = 0;
            return cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && v != 0;
        }();
        return on;
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
    T* get() const { return p_; }

private:
    cudaStream_t s_ = nullptr;
    T* p_ = nullptr;
};

class Blas {
public:
    Blas() { check_blas("cublasCreate", cublasCreate(&h_)); }
    ~Blas() {
        if (h_) cublasDestroy(h_);
    }
    Blas(const Blas&) = delete;
    Blas& operator=(const Blas&) = delete;
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

class Event {
public:
    Event() { check("cudaEventCreate", cudaEventCreate(&e_)); }
    ~Event() {
        if (e_) cudaEventDestroy(e_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return e_; }

private:
    cudaEvent_t e_ = nullptr;
};

constexpr int kLeafThreads = 256;  // 8 warps per block of the leaf kernel
constexpr int kNone = 0x7f7f7f7f;   // the slots' "no pivot" (cudaMemset with 0x7f)
// The leaf's slots (ints in device memory, set to kNone before each leaf): [0, kLeaf) the
// pivot of each column relative to r; kSlotDiffers set by leaf_rest_kernel where the two
// phases differ from the one-phase step; kSlotBelow = e - r, where the rows below the top
// start (leaf_top_kernel).
constexpr int kSlotDiffers = blk::kLeaf, kSlotBelow = blk::kLeaf + 1, kSlotCount = blk::kLeaf + 2;

// The leaf step of blocked_rank_impl.hpp on active rows [r, m), columns [b0, b0 + t),
// t <= 32, launched cooperatively. Warp w owns rows w, w + warps, ...; lane c holds
// column c of a row. The first kRegRows rows of a warp stay in registers for the whole
// leaf, and every update is also stored (write-through), so the row that becomes a pivot
// can be read from memory by all warps in the next phase; rows beyond kRegRows * warps
// (very tall matrices) are read from memory in each phase and marked in flags (flags[i]
// == leaf_id: a pivot of this leaf). Phase j: the pivot of column j (the atomicMin of the
// previous phase) eliminates every active row, and the same pass offers the updated rows
// as pivots of column j + 1; one grid-wide sync per column. slots[j] ends as the pivot row
// of column j relative to r (kNone: none).
// 16 rows in registers (126 registers a thread, 2 blocks of 8 warps per multiprocessor, no
// spills with nvcc 13.0 for sm_90): 132 multiprocessors (H100 SXM, H200) hold 33792 rows,
// so a 32768-row matrix never touches memory in a leaf but for the pivot row and the
// write-through stores.
constexpr int kRegRows = 16;
// The rows a warp of the leaf is given when the matrix is short enough (factor_leaf).
constexpr int kLeafRowsPerWarp = 8;

// The leaf's scalar operations in either mode (Wide: the two-limb mode's exact 64-bit
// operations, blocked_rank_impl.hpp).
template <bool Wide>
__device__ __forceinline__ double leaf_mul(double a, double b, double p, double pinv) {
    return Wide ? blk::wide_mul(a, b, p, pinv) : blk::mul(a, b, p, pinv);
}
template <bool Wide>
__device__ __forceinline__ double leaf_submul(double x, double l, double y, double p, double pinv) {
    return Wide ? blk::wide_submul(x, l, y, p, pinv) : blk::reduce(x - l * y, p, pinv);
}
template <bool Wide>
__device__ __forceinline__ double leaf_inverse(double a, std::uint64_t p) {
    return Wide ? blk::wide_inverse(a, p) : blk::inverse(a, p);
}

template <bool Wide>
__device__ __forceinline__ void leaf_body(double* a, std::int64_t ld, std::int64_t r, std::int64_t m, std::int64_t b0, int t, double p,
                                          double pinv, std::uint64_t pu, int* slots, int* flags, int leaf_id) {
    cg::grid_group grid = cg::this_grid();
    const unsigned full = 0xffffffffu;
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const bool mine = lane < t;
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    const std::int64_t rows = m - r;
    const std::int64_t spill = warp + kRegRows * warps;  // the first row of this warp kept in memory
    double* base = a + r * ld + b0;
    // The block's least candidate pivot row of each column (shared atomics), offered to
    // slots[] by one global atomicMin per block and column: 264 on a 132-multiprocessor
    // device, where one per row (a same-address atomic each) cost tens of microseconds per
    // column on tall matrices.
    __shared__ int block_cand[blk::kLeaf];
    if (threadIdx.x < blk::kLeaf) block_cand[threadIdx.x] = kNone;
    __syncthreads();
    // offer(c, cand): the warp's least candidate for column c joins the block's, and the
    // block's joins slots[c] (a block barrier inside: every thread of the block calls it).
    auto offer = [&](int c, int warp_cand) {
        if (lane == 0 && warp_cand != kNone) atomicMin(&block_cand[c], warp_cand);
        __syncthreads();
        if (threadIdx.x == 0 && block_cand[c] != kNone) atomicMin(&slots[c], block_cand[c]);
    };
    double x[kRegRows];
    unsigned active = 0;  // bit u: register row u is active (one register, not kRegRows)
    // Column 0's pivot: the first row with a non-zero entry (no row is a pivot yet). A warp
    // visits its rows in increasing order, so its first candidate is its least: one atomicMin
    // per warp and column (cand is the same in every lane: v is broadcast), then one per block.
    int cand = kNone;
#pragma unroll
    for (int u = 0; u < kRegRows; ++u) {
        const std::int64_t i = warp + u * warps;
        if (i < rows) active |= 1u << u;
        x[u] = i < rows && mine ? __ldcg(base + i * ld + lane) : 0.0;
        const double v = __shfl_sync(full, x[u], 0);
        if (i < rows && v != 0.0 && cand == kNone) cand = static_cast<int>(i);
    }
    for (std::int64_t i = spill; i < rows && cand == kNone; i += warps) {
        const double y = mine ? __ldcg(base + i * ld + lane) : 0.0;
        const double v = __shfl_sync(full, y, 0);
        if (v != 0.0) cand = static_cast<int>(i);
    }
    offer(0, cand);
    grid.sync();
    for (int j = 0; j < t; ++j) {
        cand = kNone;  // the warp's least candidate pivot for column j + 1
        const int q = __ldcg(slots + j);
        const bool has = q != kNone;
        double pr = 0.0, inv = 0.0;
        if (has) {
            pr = mine ? __ldcg(base + static_cast<std::int64_t>(q) * ld + lane) : 0.0;
            inv = leaf_inverse<Wide>(__shfl_sync(full, pr, j), pu);
        }
#pragma unroll
        for (int u = 0; u < kRegRows; ++u) {
            if (!(active & (1u << u))) continue;
            const std::int64_t i = warp + u * warps;
            if (has && i == q) {  // the pivot row leaves the active set
                active &= ~(1u << u);
                continue;
            }
            if (has) {
                const double aij = __shfl_sync(full, x[u], j);
                if (aij != 0.0) {
                    const double l = leaf_mul<Wide>(aij, inv, p, pinv);
                    if (lane == j) x[u] = l;
                    else if (lane > j) x[u] = leaf_submul<Wide>(x[u], l, pr, p, pinv);
                    if (lane >= j && mine) base[i * ld + lane] = x[u];
                }
            }
            if (j + 1 < t) {  // the next column's pivot search, on the updated row
                const double v = __shfl_sync(full, x[u], j + 1);
                if (v != 0.0 && cand == kNone) cand = static_cast<int>(i);
            }
        }
        for (std::int64_t i = spill; i < rows; i += warps) {
            if (__ldcg(flags + r + i) == leaf_id) continue;  // a pivot of an earlier column
            if (has && i == q) {
                if (lane == 0) flags[r + i] = leaf_id;
                continue;
            }
            double* row = base + i * ld;
            double y = mine ? __ldcg(row + lane) : 0.0;
            if (has) {
                const double aij = __shfl_sync(full, y, j);
                if (aij != 0.0) {
                    const double l = leaf_mul<Wide>(aij, inv, p, pinv);
                    if (lane == j) y = l;
                    else if (lane > j) y = leaf_submul<Wide>(y, l, pr, p, pinv);
                    if (lane >= j && mine) row[lane] = y;
                }
            }
            if (j + 1 < t) {
                const double v = __shfl_sync(full, y, j + 1);
                if (v != 0.0 && cand == kNone) cand = static_cast<int>(i);
            }
        }
        if (j + 1 < t) offer(j + 1, cand);
        grid.sync();
    }
}

__global__ void __launch_bounds__(kLeafThreads, 2) leaf_kernel(double* a, std::int64_t ld, std::int64_t r, std::int64_t m,
                                                            std::int64_t b0, int t, double p, double pinv,
                                                            std::uint64_t pu, int* slots, int* flags, int leaf_id) {
    leaf_body<false>(a, ld, r, m, b0, t, p, pinv, pu, slots, flags, leaf_id);
}

// The same leaf in the two-limb mode (p > kMaxPrime): the same register budget, so the same
// number of resident blocks (checked by GpuBackend before the cooperative launch).
__global__ void __launch_bounds__(kLeafThreads, 2) leaf_kernel_wide(double* a, std::int64_t ld, std::int64_t r, std::int64_t m,
                                                                 std::int64_t b0, int t, double p, double pinv,
                                                                 std::uint64_t pu, int* slots, int* flags, int leaf_id) {
    leaf_body<true>(a, ld, r, m, b0, t, p, pinv, pu, slots, flags, leaf_id);
}

// The first phase of a leaf (blocked_rank_impl.hpp), one block of kLeafThreads: the scan
// for the top (the first kLeafTop active rows non-zero in the leaf's columns among the
// first kScanRows; each warp
// tests 32 consecutive rows per round, lane c reading column c, every row read copied to
// backup: row i - r at backup[(i - r) t ..)), then the leaf step on the top alone with its
// rows in shared memory: warp w owns slots w, w + 8, ..., lane c column c; one block
// barrier per column. Leaves slots[j] (the pivot of column j relative to r, or kNone) and
// slots[kSlotBelow] = e - r (where the rows below start); the top's rows are written back.
constexpr int kLeafWarps = kLeafThreads / 32;
static_assert(blk::kScanRows % (32 * kLeafWarps) == 0, "the scan's cap ends on a round");
template <bool Wide>
__global__ void __launch_bounds__(kLeafThreads) leaf_top_kernel(double* a, std::int64_t ld, std::int64_t r, std::int64_t m, std::int64_t b0,
                                                                int t, double p, double pinv, std::uint64_t pu, int* slots, double* backup) {
    __shared__ double top[blk::kLeafTop][blk::kLeaf];
    __shared__ int row_of[blk::kLeafTop];  // slot s: its row relative to r (increasing in s)
    __shared__ unsigned masks[kLeafWarps];
    __shared__ int cand[blk::kLeaf];  // column j: the least slot offered as its pivot
    __shared__ int found;
    __shared__ std::int64_t end;
    const unsigned full = 0xffffffffu;
    const int lane = static_cast<int>(threadIdx.x & 31u), warp = static_cast<int>(threadIdx.x >> 5);
    const bool mine = lane < t;
    const std::int64_t rows = m - r;
    double* base = a + r * ld + b0;
    // The scan reads at most kScanRows rows (a multiple of the 256 a round reads): rows
    // past it go to the second phase, whose check falls back where they hold a pivot.
    const std::int64_t scan = rows < blk::kScanRows ? rows : blk::kScanRows;
    if (threadIdx.x == 0) found = 0, end = scan;
    if (threadIdx.x < blk::kLeaf) cand[threadIdx.x] = kNone;
    __syncthreads();
    for (std::int64_t s0 = 0; s0 < scan; s0 += 32 * kLeafWarps) {
        unsigned mask = 0;
#pragma unroll 8
        for (int k = 0; k < 32; ++k) {
            const std::int64_t i = s0 + warp * 32 + k;
            const double v = i < scan && mine ? __ldcg(base + i * ld + lane) : 0.0;
            if (i < scan && mine) backup[i * t + lane] = v;
            if (__any_sync(full, v != 0.0)) mask |= 1u << k;
        }
        if (lane == 0) masks[warp] = mask;
        __syncthreads();
        if (threadIdx.x == 0) {
            int f = found;
            for (int w = 0; w < kLeafWarps && f < blk::kLeafTop; ++w)
                for (unsigned mk = masks[w]; mk != 0 && f < blk::kLeafTop; mk &= mk - 1)
                    row_of[f++] = static_cast<int>(s0 + w * 32 + (__ffs(static_cast<int>(mk)) - 1));
            if (f == blk::kLeafTop) end = row_of[f - 1] + 1;
            found = f;
        }
        __syncthreads();
        if (found == blk::kLeafTop) break;
    }
    const int nt = found;
    constexpr int kSlots = blk::kLeafTop / kLeafWarps;  // 8 slots a warp
    unsigned active = 0;
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {
        const int s = warp + u * kLeafWarps;
        if (s < nt) {
            active |= 1u << u;
            top[s][lane] = mine ? __ldcg(base + static_cast<std::int64_t>(row_of[s]) * ld + lane) : 0.0;
        }
    }
    // offer(c): the warp's first active slot non-zero in column c becomes a candidate for
    // its pivot (called by lane c, whose column it reads).
    auto offer = [&](int c) {
        for (int u = 0; u < kSlots; ++u)
            if ((active >> u & 1u) && top[warp + u * kLeafWarps][c] != 0.0) {
                atomicMin(&cand[c], warp + u * kLeafWarps);
                break;
            }
    };
    __syncwarp();
    if (lane == 0) offer(0);  // column 0's pivot: the slots as loaded
    __syncthreads();
    for (int j = 0; j < t; ++j) {
        const int q = cand[j];
        if (q != kNone) {
            const double pr = top[q][lane];
            const double inv = leaf_inverse<Wide>(top[q][j], pu);
            double l[kSlots];
#pragma unroll
            for (int u = 0; u < kSlots; ++u) {
                const int s = warp + u * kLeafWarps;
                if (s == q) active &= ~(1u << u);
                l[u] = (active >> u & 1u) ? top[s][j] : 0.0;  // read by every lane before lane j writes the multiplier
            }
            __syncwarp();
#pragma unroll
            for (int u = 0; u < kSlots; ++u) {
                if (l[u] == 0.0) continue;
                const int s = warp + u * kLeafWarps;
                const double lu = leaf_mul<Wide>(l[u], inv, p, pinv);
                if (lane == j) top[s][j] = lu;
                else if (lane > j && mine) top[s][lane] = leaf_submul<Wide>(top[s][lane], lu, pr, p, pinv);
            }
        }
        if (j + 1 < t && lane == j + 1) offer(j + 1);  // column j + 1's pivot, on the column lane j + 1 updated
        __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < kSlots; ++u) {
        const int s = warp + u * kLeafWarps;
        if (s < nt && mine) base[static_cast<std::int64_t>(row_of[s]) * ld + lane] = top[s][lane];
    }
    if (threadIdx.x < blk::kLeaf) slots[threadIdx.x] = static_cast<int>(threadIdx.x) < t && cand[threadIdx.x] != kNone ? row_of[cand[threadIdx.x]] : kNone;
    if (threadIdx.x == 0) slots[kSlotBelow] = static_cast<int>(end);
}

// The second phase: rows [e, m) (e - r in slots[kSlotBelow]), a warp per row (lane c:
// column c), each eliminated on its own with the pivots that the first phase left in slots
// (rows relative to r, below e; their rows are final) and copied to backup first (row
// i - r at backup[(i - r) t ..)). A row non-zero, at column j's turn, in a column without a pivot sets
// slots[kSlotDiffers] = 1: the two phases differ from the one-phase step, which the host then
// runs on the restored columns (blocked_rank_impl.hpp). The pivot rows and their inverses
// are read once per block into shared memory.
template <bool Wide>
__global__ void __launch_bounds__(kLeafThreads) leaf_rest_kernel(double* a, std::int64_t ld, std::int64_t r, std::int64_t m, std::int64_t b0,
                                                                 int t, double p, double pinv, std::uint64_t pu, int* slots, double* backup) {
    __shared__ double pivot_row[blk::kLeaf][blk::kLeaf];
    __shared__ double pivot_inv[blk::kLeaf];
    __shared__ unsigned has_pivot;
    const unsigned full = 0xffffffffu;
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const bool mine = lane < t;
    double* base = a + r * ld + b0;
    for (int e = static_cast<int>(threadIdx.x); e < blk::kLeaf * blk::kLeaf; e += static_cast<int>(blockDim.x)) {
        const int j = e / blk::kLeaf, c = e % blk::kLeaf;
        const int q = j < t ? __ldcg(slots + j) : kNone;
        pivot_row[j][c] = q != kNone && c < t ? __ldcg(base + static_cast<std::int64_t>(q) * ld + c) : 0.0;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        const int j = lane;
        const bool has = j < t && __ldcg(slots + j) != kNone;
        pivot_inv[j] = has ? leaf_inverse<Wide>(pivot_row[j][j], pu) : 0.0;
        const unsigned mask = __ballot_sync(full, has);
        if (lane == 0) has_pivot = mask;
    }
    __syncthreads();
    const unsigned pivots = has_pivot;
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    bool differs = false;
    const std::int64_t first = __ldcg(slots + kSlotBelow);
    for (std::int64_t i = first + warp; i < m - r; i += warps) {
        double* row = base + i * ld;
        double x = mine ? __ldcg(row + lane) : 0.0;
        if (mine) backup[i * t + lane] = x;
        bool changed = false;
        for (int j = 0; j < t; ++j) {
            const double aij = __shfl_sync(full, x, j);
            if (aij == 0.0) continue;
            if (!((pivots >> j) & 1u)) {  // this row would have been column j's pivot
                differs = true;
                continue;
            }
            const double l = leaf_mul<Wide>(aij, pivot_inv[j], p, pinv);
            if (lane == j) x = l;
            else if (lane > j) x = leaf_submul<Wide>(x, l, pivot_row[j][lane], p, pinv);
            changed = true;
        }
        if (changed && mine) row[lane] = x;
    }
    if (differs && lane == 0) slots[kSlotDiffers] = 1;
}

// The leaf's columns [b0, b0 + t) of rows [r, r + rows) back from backup (the two phases
// differed from the one-phase step).
__global__ void restore_kernel(double* a, std::int64_t ld, std::int64_t r, std::int64_t rows, std::int64_t b0, int t, const double* backup) {
    const std::int64_t total = rows * t;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t i = e / t, c = e - i * t;
        a[(r + i) * ld + b0 + c] = backup[e];
    }
}

struct Swaps {
    std::int64_t to[blk::kLeaf];
};

// For i = 0..k-1 in order: swap rows r+i and s.to[i] on columns [c0, n).
__global__ void swap_kernel(double* a, std::int64_t ld, std::int64_t r, Swaps s, int k, std::int64_t c0, std::int64_t n) {
    for (std::int64_t c = c0 + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; c < n;
         c += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        for (int i = 0; i < k; ++i) {
            const std::int64_t u = r + i, v = s.to[i];
            if (u == v) continue;
            const double x = a[u * ld + c];
            a[u * ld + c] = a[v * ld + c];
            a[v * ld + c] = x;
        }
}

// g (rows x k, row-major) = a[r + i][cols[c]].
__global__ void gather_kernel(const double* a, std::int64_t ld, std::int64_t r, std::int64_t rows, const std::int64_t* cols,
                              std::int64_t k, double* g) {
    const std::int64_t total = rows * k;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t i = e / k, c = e - i * k;
        g[e] = a[(r + i) * ld + cols[c]];
    }
}

// x (k x k, row-major) = the inverse of the unit lower triangular matrix whose strictly
// lower part is g's (first k rows, ld k): a thread per column, forward substitution,
// reduced every kmax terms.
__global__ void invert_kernel(const double* g, std::int64_t k, double* x, double p, double pinv, std::int64_t kmax) {
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= k) return;
    for (std::int64_t i = 0; i < k; ++i) {
        if (i <= c) {
            x[i * k + c] = i == c ? 1.0 : 0.0;
            continue;
        }
        double s = 0.0;
        std::int64_t terms = 0;
        for (std::int64_t j = c; j < i; ++j) {
            s += g[i * k + j] * x[j * k + c];
            if (++terms == kmax) {
                s = blk::reduce(s, p, pinv);
                terms = 0;
            }
        }
        x[i * k + c] = blk::reduce(-s, p, pinv);
    }
}

// invert_kernel's X (both modes), a warp per column c: rows i = c+1..k-1 in order, the
// lanes splitting the sum over j < i (lane l takes j = c + l, c + l + 32, ...; the small-prime
// mode reduces a lane's sum every kmax terms and before the warp sum, the two-limb mode keeps
// it centred after every term), the column kept in shared memory (k doubles per warp). The
// thread-per-column kernels (kept for k > 768, whose columns pass 48 KiB of shared memory)
// are a chain of k^2/2 dependent steps per thread on 2 blocks: about 2.7 ms for k = 256 on
// an H200, 0.36 s of a 1.32 s 32768^2 rank.
constexpr int kInvertWarps = 8;
template <bool Wide>
__global__ void invert_warp_kernel(const double* g, std::int64_t k, double* x, double p, double pinv, std::int64_t kmax) {
    extern __shared__ double column_store[];
    const int lane = static_cast<int>(threadIdx.x & 31u), w = static_cast<int>(threadIdx.x >> 5);
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * kInvertWarps + w;
    if (c >= k) return;
    double* col = column_store + static_cast<std::int64_t>(w) * k;
    for (std::int64_t i = lane; i <= c; i += 32) {
        const double v = i == c ? 1.0 : 0.0;
        col[i] = v;
        x[i * k + c] = v;
    }
    __syncwarp();
    const std::int64_t pi = static_cast<std::int64_t>(p);
    for (std::int64_t i = c + 1; i < k; ++i) {
        const double* gi = g + i * k;
        double v;
        if (Wide) {
            std::int64_t s = 0;
            const std::int64_t h = pi / 2;
            for (std::int64_t j = c + lane; j < i; j += 32) {
                s += blk::wide_mul_i(static_cast<std::int64_t>(gi[j]), static_cast<std::int64_t>(col[j]), pi, pinv);
                if (s > h) s -= pi;
                else if (s < -h) s += pi;
            }
            for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);  // |sum| <= 32 h < 2^50
            v = static_cast<double>(-blk::wide_reduce(s, pi, pinv));
        } else {
            double s = 0.0;
            std::int64_t terms = 0;
            for (std::int64_t j = c + lane; j < i; j += 32) {
                s += gi[j] * col[j];
                if (++terms == kmax) {
                    s = blk::reduce(s, p, pinv);
                    terms = 0;
                }
            }
            s = blk::reduce(s, p, pinv);
            for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);  // |sum| <= 32 h
            v = blk::reduce(-s, p, pinv);
        }
        if (lane == 0) {
            col[i] = v;
            x[i * k + c] = v;
        }
        __syncwarp();
    }
}

// Every entry of the rows x cols block at a (leading dimension ld) brought to (-p/2, p/2]:
// a warp per row (rows strided over the grid's warps), its lanes over the row's columns,
// four loads in flight per lane. (A block per row and 64 column chunks made 2 million
// blocks of 512 entries for a 32768^2 matrix: half the memory bandwidth.)
__global__ void reduce_kernel(double* a, std::int64_t ld, std::int64_t rows, std::int64_t cols, double p, double pinv) {
    const std::int64_t lane = threadIdx.x & 31u;
    const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
    for (std::int64_t i = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < rows; i += warps) {
        double* row = a + i * ld;
        std::int64_t j = lane;
        for (; j + 96 < cols; j += 128) {
            const double v0 = row[j], v1 = row[j + 32], v2 = row[j + 64], v3 = row[j + 96];
            row[j] = blk::reduce(v0, p, pinv);
            row[j + 32] = blk::reduce(v1, p, pinv);
            row[j + 64] = blk::reduce(v2, p, pinv);
            row[j + 96] = blk::reduce(v3, p, pinv);
        }
        for (; j < cols; j += 32) row[j] = blk::reduce(row[j], p, pinv);
    }
}

// Two-limb mode: invert_kernel with exact 64-bit products, the running sum kept centred.
__global__ void invert_wide_kernel(const double* g, std::int64_t k, double* x, double p, double pinv) {
    const std::int64_t c = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (c >= k) return;
    const std::int64_t pi = static_cast<std::int64_t>(p), h = pi / 2;
    for (std::int64_t i = 0; i < k; ++i) {
        if (i <= c) {
            x[i * k + c] = i == c ? 1.0 : 0.0;
            continue;
        }
        std::int64_t s = 0;
        for (std::int64_t j = c; j < i; ++j) {
            s += blk::wide_mul_i(static_cast<std::int64_t>(g[i * k + j]), static_cast<std::int64_t>(x[j * k + c]), pi, pinv);
            if (s > h) s -= pi;
            else if (s < -h) s += pi;
        }
        x[i * k + c] = static_cast<double>(-s);
    }
}

// Two-limb mode: the column-major rows x cols block at in (leading dimension ld) into its
// limbs hi = rint(x / base), lo = x - hi base (base = blk::limb_base(p): 2^23, or 2^16 with
// one-sided limbs), contiguous column-major (ld rows).
__global__ void split_kernel(const double* in, std::int64_t ld, std::int64_t rows, std::int64_t cols, double* hi, double* lo, double base) {
    const std::int64_t total = rows * cols;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t j = e / rows, i = e - j * rows;
        const double x = in[j * ld + i], x1 = blk::limb_hi(x, base);
        hi[e] = x1;
        lo[e] = x - x1 * base;
    }
}

// Two-limb mode: c (column-major rows x cols, ld ldc) = beta c + alpha (p2 2^46 + p1 2^23 +
// p0) mod p, centred; p2, p1, p0 column-major with ld rows (blk::wide_combine).
__global__ void combine_kernel(double* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols, const double* p2, const double* p1,
                               const double* p0, double alpha, double beta, std::int64_t p, double pinv, std::int64_t c46) {
    const std::int64_t total = rows * cols;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t j = e / rows, i = e - j * rows;
        double& out = c[j * ldc + i];
        out = blk::wide_combine(out, p2[e], p1[e], p0[e], alpha, beta, p, pinv, c46);
    }
}

// One-sided limbs (p < 2^31): c = beta c + alpha (p1 2^16 + p0) mod p, centred
// (blk::half_combine); p1, p0 as combine_kernel's.
__global__ void half_combine_kernel(double* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols, const double* p1, const double* p0,
                                    double alpha, double beta, std::int64_t p, double pinv) {
    const std::int64_t total = rows * cols;
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
        const std::int64_t j = e / rows, i = e - j * rows;
        double& out = c[j * ldc + i];
        out = blk::half_combine(out, p1[e], p0[e], alpha, beta, p, pinv);
    }
}

unsigned blocks_for(std::int64_t work, int threads, std::int64_t cap = 65535) {
    return static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(cap, (work + threads - 1) / threads)));
}

enum Op { kLeafOp, kSwapOp, kGatherOp, kInvertOp, kMultipliersOp, kUpdateOp, kReduceOp, kSplitOp, kGemmOp, kCombineOp, kOps };

struct Profile {
    double seconds[kOps] = {};
    long calls[kOps] = {};
    long splits = 0, fallbacks = 0;  // leaves in two phases, and those run again in one

    void print(std::int64_t m, std::int64_t n) const {
        static const char* const names[kOps] = {"leaf", "swap", "gather", "invert", "multipliers", "update", "reduce", "split", "gemm", "combine"};
        std::fprintf(stderr, "cuda profile %lld x %lld:", static_cast<long long>(m), static_cast<long long>(n));
        for (int o = 0; o < kOps; ++o)
            if (calls[o]) std::fprintf(stderr, " %s %.4f s/%ld", names[o], seconds[o], calls[o]);
        std::fprintf(stderr, " (leaves in two phases %ld, again in one %ld)\n", splits, fallbacks);
    }
};

// Times one operation into a Profile (nothing when not profiling).
class OpTimer {
public:
    OpTimer(Profile* prof, Op op) : prof_(profiling() ? prof : nullptr), op_(op) {
        if (!prof_) return;
        check("cudaDeviceSynchronize (profile)", cudaDeviceSynchronize());
        t0_ = std::chrono::steady_clock::now();
    }
    ~OpTimer() {
        if (!prof_) return;
        cudaDeviceSynchronize();
        prof_->seconds[op_] += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
        ++prof_->calls[op_];
    }
    OpTimer(const OpTimer&) = delete;
    OpTimer& operator=(const OpTimer&) = delete;

private:
    Profile* prof_;
    Op op_;
    std::chrono::steady_clock::time_point t0_;
};

// The backend of blk::Driver on device memory (the operations are documented there).
class GpuBackend {
public:
    struct Buffers {
        double* a;
        double* g;
        double* mm;
        double* x;
        int* slots;
        int* flags;
        std::int64_t* cols;
    };

    // tile: the driver's (the two-limb mode's buffers are sized from it). In that mode the
    // limb buffers are allocated here, after a check of the free memory (SR_CUDA_NO_MEMORY;
    // skipped when !check_free: the caller reserved them), and the leaf's grid is capped by
    // its own kernel's occupancy. Every operation runs on `stream` (h bound to it), and
    // leaf_blocks bounds the cooperative leaf's grid (a share of the device when ranks run
    // side by side, so that their cooperative grids are resident together).
    GpuBackend(const Buffers& b, std::int64_t m, std::int64_t n, std::uint64_t p, cublasHandle_t h, int leaf_blocks, int tile = 0,
               cudaStream_t stream = nullptr, bool check_free = true, int share = 1)
        : b_(b), m_(m), n_(n), pu_(p), pd_(static_cast<double>(p)), pinv_(1.0 / static_cast<double>(p)), kmax_(blk::max_inner(p)),
          h_(h), leaf_blocks_(leaf_blocks), s_(stream), wide_(blk::wide_mode(p)) {
        if (!wide_) return;
        c46_ = blk::wide_c46(p);
        const std::int64_t na = blk::wide_a_doubles(m, n, tile), nb = blk::wide_b_doubles(m, n, tile), np = blk::wide_p_doubles(m, n, tile);
        const double need = 8.0 * static_cast<double>(blk::wide_workspace_doubles(m, n, tile, p));
        std::size_t free_b = 0, total_b = 0;
        check("cudaMemGetInfo", cudaMemGetInfo(&free_b, &total_b));
        if (check_free && need + kWideReserveBytes > static_cast<double>(free_b)) {
            char msg[256];
            std::snprintf(msg, sizeof msg, "the two-limb elimination of a %lld x %lld matrix needs %.1f MiB more on the device; %.1f MiB are free",
                          static_cast<long long>(m), static_cast<long long>(n), need / 1048576.0, static_cast<double>(free_b) / 1048576.0);
            throw Failure{SR_CUDA_NO_MEMORY, msg};
        }
        // the buffers the mode uses, in one allocation (one-sided limbs: B1, B0, P1, P0)
        const blk::WideBuffers w = blk::wide_buffers(p);
        limb_doubles_ = w.a * na + w.b * nb + w.p * np;
        limbs_ = std::make_unique<DeviceArray<double>>(static_cast<std::size_t>(limb_doubles_), s_);
        double* q = limbs_->get();
        if (w.a > 0)
            for (double** slot : {&a1_, &a0_}) *slot = q, q += na;
        for (double** slot : {&b1_, &b0_}) *slot = q, q += nb;
        if (w.p > 2) p2_ = q, q += np;
        for (double** slot : {&p1_, &p0_}) *slot = q, q += np;
        int sms = 0, per_sm = 0;
        check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        check("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
              cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(&leaf_kernel_wide), kLeafThreads, 0));
        if (per_sm < 1) throw Failure{SR_CUDA_ERROR, "the two-limb leaf kernel cannot be resident on a multiprocessor"};
        leaf_blocks_ = std::min(leaf_blocks_, std::max(1, per_sm * sms / std::max(1, share)));
    }

    // The leaf step (blocked_rank_impl.hpp): leaf_top_kernel (the scan and the top, the
    // copy in G), then, where more than kLeafTop rows are active, leaf_rest_kernel on the
    // rows below; where the phases differed from the one-phase step, the columns restored
    // from G and one cooperative leaf_kernel.
    void factor_leaf(std::int64_t r, std::int64_t b0, std::int64_t b1, std::int64_t* piv) {
        const OpTimer timer(&profile_, kLeafOp);
        int t = static_cast<int>(b1 - b0);
        int host[kSlotCount];
        const std::size_t slot_bytes = sizeof(int) * kSlotCount;
        check("cudaMemsetAsync (pivot slots)", cudaMemsetAsync(b_.slots, 0x7f, slot_bytes, s_));
        if (wide_) leaf_top_kernel<true><<<1, kLeafThreads, 0, s_>>>(b_.a, n_, r, m_, b0, t, pd_, pinv_, pu_, b_.slots, b_.g);
        else leaf_top_kernel<false><<<1, kLeafThreads, 0, s_>>>(b_.a, n_, r, m_, b0, t, pd_, pinv_, pu_, b_.slots, b_.g);
        check("leaf_top_kernel launch", cudaGetLastError());
        const std::int64_t below = m_ - r - blk::kLeafTop;  // at most this many rows below the top
        if (below > 0) {
            const unsigned blocks = blocks_for(below, kLeafThreads / 32, 4 * static_cast<std::int64_t>(leaf_blocks_));
            if (wide_) leaf_rest_kernel<true><<<blocks, kLeafThreads, 0, s_>>>(b_.a, n_, r, m_, b0, t, pd_, pinv_, pu_, b_.slots, b_.g);
            else leaf_rest_kernel<false><<<blocks, kLeafThreads, 0, s_>>>(b_.a, n_, r, m_, b0, t, pd_, pinv_, pu_, b_.slots, b_.g);
            check("leaf_rest_kernel launch", cudaGetLastError());
        }
        to_host(host, b_.slots, slot_bytes);
        if (host[kSlotBelow] < m_ - r) ++profile_.splits;
        if (host[kSlotDiffers] == kNone) {
            for (int j = 0; j < t; ++j) piv[j] = host[j] == kNone ? -1 : r + host[j];
            return;
        }
        ++profile_.fallbacks;
        restore_kernel<<<blocks_for((m_ - r) * t, 256), 256, 0, s_>>>(b_.a, n_, r, m_ - r, b0, t, b_.g);
        check("restore_kernel launch", cudaGetLastError());
        ++leaf_id_;
        check("cudaMemsetAsync (pivot slots)", cudaMemsetAsync(b_.slots, 0x7f, slot_bytes, s_));
        std::int64_t ld = n_, rr = r, m = m_, c = b0;
        double p = pd_, pinv = pinv_;
        std::uint64_t pu = pu_;
        int* slots = b_.slots;
        int* flags = b_.flags;
        double* a = b_.a;
        int id = leaf_id_;
        void* args[] = {&a, &ld, &rr, &m, &c, &t, &p, &pinv, &pu, &slots, &flags, &id};
        // kLeafRowsPerWarp active rows per warp, up to every resident block (kRegRows rows
        // each): a grid sync costs more the more blocks it waits for, and a phase's work per
        // row is small, so a short matrix gets few blocks (2191 rows: 35, not 264).
        const std::int64_t rows_per_block = (kLeafThreads / 32) * kLeafRowsPerWarp;
        const unsigned blocks = static_cast<unsigned>(
            std::max<std::int64_t>(1, std::min<std::int64_t>(leaf_blocks_, (m_ - r + rows_per_block - 1) / rows_per_block)));
        const void* kernel = wide_ ? reinterpret_cast<const void*>(&leaf_kernel_wide) : reinterpret_cast<const void*>(&leaf_kernel);
        check("cudaLaunchCooperativeKernel (leaf_kernel)", cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(kLeafThreads), args, 0, s_));
        to_host(host, b_.slots, sizeof(int) * static_cast<std::size_t>(t));
        for (int j = 0; j < t; ++j) piv[j] = host[j] == kNone ? -1 : r + host[j];
    }

    void swap_rows(std::int64_t r, const std::int64_t* to, std::int64_t k, std::int64_t c0) {
        const OpTimer timer(&profile_, kSwapOp);
        Swaps s{};
        for (std::int64_t i = 0; i < k; ++i) s.to[i] = to[i];
        swap_kernel<<<blocks_for(n_ - c0, 256), 256, 0, s_>>>(b_.a, n_, r, s, static_cast<int>(k), c0, n_);
        check("swap_kernel launch", cudaGetLastError());
    }

    void gather(std::int64_t r, const std::int64_t* cols, std::int64_t k) {
        const OpTimer timer(&profile_, kGatherOp);
        // From pageable memory: the call returns once `cols` is staged (the stream keeps the order).
        check("cudaMemcpyAsync (pivot columns)",
              cudaMemcpyAsync(b_.cols, cols, sizeof(std::int64_t) * static_cast<std::size_t>(k), cudaMemcpyHostToDevice, s_));
        gather_kernel<<<blocks_for((m_ - r) * k, 256), 256, 0, s_>>>(b_.a, n_, r, m_ - r, b_.cols, k, b_.g);
        check("gather_kernel launch", cudaGetLastError());
    }

    void invert(std::int64_t k) {
        const OpTimer timer(&profile_, kInvertOp);
        const std::size_t shared = sizeof(double) * static_cast<std::size_t>(kInvertWarps) * static_cast<std::size_t>(k);
        if (shared <= 48 * 1024) {  // k <= 768: the warp kernel without a shared-memory opt-in
            const unsigned blocks = static_cast<unsigned>((k + kInvertWarps - 1) / kInvertWarps);
            if (wide_) invert_warp_kernel<true><<<blocks, 32 * kInvertWarps, shared, s_>>>(b_.g, k, b_.x, pd_, pinv_, kmax_);
            else invert_warp_kernel<false><<<blocks, 32 * kInvertWarps, shared, s_>>>(b_.g, k, b_.x, pd_, pinv_, kmax_);
            check("invert_warp_kernel launch", cudaGetLastError());
            return;
        }
        if (wide_) {
            invert_wide_kernel<<<blocks_for(k, 128), 128, 0, s_>>>(b_.g, k, b_.x, pd_, pinv_);
            check("invert_wide_kernel launch", cudaGetLastError());
            return;
        }
        invert_kernel<<<blocks_for(k, 128), 128, 0, s_>>>(b_.g, k, b_.x, pd_, pinv_, kmax_);
        check("invert_kernel launch", cudaGetLastError());
    }

    void multipliers(std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, bool first) {
        const OpTimer timer(&profile_, kMultipliersOp);
        blas_gemm(blk::multipliers_gemm(m_, r, k, k0, k1, first));
        reduce(b_.mm, k, m_ - r - k, k);
    }

    void update(std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, std::int64_t d0, std::int64_t d1) {
        const OpTimer timer(&profile_, kUpdateOp);
        blas_gemm(blk::update_gemm(m_, n_, r, k, k0, k1, d0, d1));
    }

    void reduce_rows(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
        const OpTimer timer(&profile_, kReduceOp);
        reduce(b_.a + r0 * n_ + c0, n_, r1 - r0, c1 - c0);
    }

    void split(blk::Buf src, std::int64_t off, std::int64_t ld, std::int64_t rows, std::int64_t cols, bool a_side) {
        const OpTimer timer(&profile_, kSplitOp);
        split_kernel<<<blocks_for(rows * cols, 256, 8192), 256, 0, s_>>>(buffer(src) + off, ld, rows, cols, a_side ? a1_ : b1_, a_side ? a0_ : b0_,
                                                                    blk::limb_base(pu_));
        check("split_kernel launch", cudaGetLastError());
    }

    // The descriptions of blocked_rank_impl.hpp are column-major, as cuBLAS is.
    void gemm(const blk::Gemm& d) {
        const OpTimer timer(&profile_, kGemmOp);
        blas_gemm(d);
    }

    void blas_gemm(const blk::Gemm& d) {
        const double alpha = d.alpha, beta = d.beta;
        // The 64-bit interface: sizes and leading dimensions as they are, whatever the matrix.
        check_blas("cublasDgemm_64",
                   cublasDgemm_64(h_, CUBLAS_OP_N, CUBLAS_OP_N, d.rows, d.cols, d.inner, &alpha, buffer(d.a) + d.a_off, d.lda,
                                  buffer(d.b) + d.b_off, d.ldb, &beta, buffer(d.c) + d.c_off, d.ldc));
    }

    void combine(const blk::Gemm& d) {
        const OpTimer timer(&profile_, kCombineOp);
        if (blk::half_mode(pu_)) {
            half_combine_kernel<<<blocks_for(d.rows * d.cols, 256, 8192), 256, 0, s_>>>(buffer(d.c) + d.c_off, d.ldc, d.rows, d.cols, p1_, p0_,
                                                                               d.alpha, d.beta, static_cast<std::int64_t>(pu_), pinv_);
            check("half_combine_kernel launch", cudaGetLastError());
            return;
        }
        combine_kernel<<<blocks_for(d.rows * d.cols, 256, 8192), 256, 0, s_>>>(buffer(d.c) + d.c_off, d.ldc, d.rows, d.cols, p2_, p1_, p0_, d.alpha,
                                                                      d.beta, static_cast<std::int64_t>(pu_), pinv_, c46_);
        check("combine_kernel launch", cudaGetLastError());
    }

    // The operations' times and counts so far (filled only when profiling()).
    const Profile& profile() const { return profile_; }

private:
    // Free device memory kept besides the two-limb buffers (cuBLAS's workspace grows with
    // the GEMMs' sizes).
    static constexpr double kWideReserveBytes = 128.0 * 1024 * 1024;

    double* buffer(blk::Buf b) const {
        switch (b) {
        case blk::Buf::a: return b_.a;
        case blk::Buf::g: return b_.g;
        case blk::Buf::m: return b_.mm;
        case blk::Buf::x: return b_.x;
        case blk::Buf::a1: return a1_;
        case blk::Buf::a0: return a0_;
        case blk::Buf::b1: return b1_;
        case blk::Buf::b0: return b0_;
        case blk::Buf::p2: return p2_;
        case blk::Buf::p1: return p1_;
        case blk::Buf::p0: return p0_;
        }
        return nullptr;
    }

    // bytes from device memory to the host, in the stream's order (the host waits).
    void to_host(void* host, const void* dev, std::size_t bytes) {
        check("cudaMemcpyAsync (pivot slots)", cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s_));
        check("cudaStreamSynchronize (pivot slots)", cudaStreamSynchronize(s_));
    }

    void reduce(double* a, std::int64_t ld, std::int64_t rows, std::int64_t cols) {
        reduce_kernel<<<blocks_for(rows * 32, 256, 4096), 256, 0, s_>>>(a, ld, rows, cols, pd_, pinv_);
        check("reduce_kernel launch", cudaGetLastError());
    }

    Buffers b_;
    std::int64_t m_, n_;
    std::uint64_t pu_;
    double pd_, pinv_;
    std::int64_t kmax_;
    cublasHandle_t h_;
    int leaf_blocks_;
    cudaStream_t s_;
    int leaf_id_ = 0;
    // Two-limb mode: 2^46 mod p and the limb buffers (one allocation).
    bool wide_;
    std::int64_t c46_ = 0;
    std::int64_t limb_doubles_ = 0;
    std::unique_ptr<DeviceArray<double>> limbs_;
    Profile profile_;
    double *a1_ = nullptr, *a0_ = nullptr, *b1_ = nullptr, *b0_ = nullptr, *p2_ = nullptr, *p1_ = nullptr, *p0_ = nullptr;
};

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

// cuBLAS's own workspace and the CUDA context's allocations: kept free besides our arrays.
constexpr double kReserveBytes = 256.0 * 1024 * 1024;

// One cuBLAS handle per process, made on the first rank (creating one per call costs more
// than a small rank) and kept to the end; the calls are serialised (locked_rank). Outside
// rank_with: a static there would be one per instantiation (a second handle, and its
// workspace, for the ranks of the graded session's blocks).
Blas& shared_blas() {
    static Blas* const blas = new Blas();
    return *blas;
}

// Where one rank runs: the legacy default stream, the shared cuBLAS handle, the whole
// device and a check of its free memory (a rank on its own); or a stream of its own, a
// handle bound to it, a share of the device's multiprocessors for the cooperative leaf, and
// no check (ranks side by side, whose memory the caller reserved).
struct Lane {
    cudaStream_t stream = nullptr;
    Blas* blas = nullptr;   // null: shared_blas()
    int share = 1;          // the cooperative leaf's grid: at most the resident blocks / share
    bool check_free = true;
};

// Rank mod p of an m x n matrix that fill(a, stream) writes into the device array a (m n
// centred doubles, row-major) on the lane's stream; fill returns a status code.
// st->gpu_seconds: the elimination alone.
template <class Fill>
int rank_with(Fill&& fill, std::int64_t m, std::int64_t n, std::uint64_t p, int tile, std::int64_t* rank, sr_cuda_status* st,
              const Lane& lane = Lane{}) {
    int count = 0;
    const cudaError_t probe = cudaGetDeviceCount(&count);
    if (probe != cudaSuccess || count == 0)
        return fail(st, SR_CUDA_NO_DEVICE, "no CUDA device (%s)", probe != cudaSuccess ? cudaGetErrorString(probe) : "none found");
    int coop = 0;
    check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    if (!coop) return fail(st, SR_CUDA_NO_DEVICE, "device 0 cannot launch cooperative kernels");
    std::size_t free_b = 0, total_b = 0;
    check("cudaMemGetInfo", cudaMemGetInfo(&free_b, &total_b));
    const std::int64_t t = blk::effective_tile(tile, n);
    const double matrix_b = 8.0 * static_cast<double>(m) * static_cast<double>(n);
    const double work_b = rank_bytes(m, n, tile, p) - matrix_b - kReserveBytes;  // the limb buffers included
    if (lane.check_free && matrix_b + work_b + kReserveBytes > static_cast<double>(free_b))
        return fail(st, SR_CUDA_NO_MEMORY,
                    "a %lld x %lld matrix needs %.1f MiB on the device (matrix %.1f MiB + workspace %.1f MiB + %.0f MiB reserve); "
                    "%.1f MiB are free",
                    static_cast<long long>(m), static_cast<long long>(n), mib(matrix_b + work_b + kReserveBytes), mib(matrix_b),
                    mib(work_b), mib(kReserveBytes), mib(static_cast<double>(free_b)));
    if (st) st->bytes = matrix_b + work_b;

    int sms = 0, per_sm = 0;
    check("cudaDeviceGetAttribute", cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    check("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reinterpret_cast<const void*>(&leaf_kernel), kLeafThreads, 0));
    if (per_sm < 1) return fail(st, SR_CUDA_ERROR, "the leaf kernel cannot be resident on a multiprocessor");

    const cudaStream_t s = lane.stream;
    DeviceArray<double> a(static_cast<std::size_t>(m * n), s), g(static_cast<std::size_t>(m * t), s), mm(static_cast<std::size_t>(m * t), s),
        x(static_cast<std::size_t>(t * t), s);
    DeviceArray<int> slots(kSlotCount, s), flags(static_cast<std::size_t>(m), s);
    DeviceArray<std::int64_t> cols(static_cast<std::size_t>(t), s);
    Blas& blas = lane.blas ? *lane.blas : shared_blas();
    check_blas("cublasSetMathMode", cublasSetMathMode(blas.get(), CUBLAS_DEFAULT_MATH));
    check_blas("cublasSetStream", cublasSetStream(blas.get(), lane.stream));
    Event start, stop;
    check("cudaMemsetAsync (row flags)", cudaMemsetAsync(flags.get(), 0, sizeof(int) * static_cast<std::size_t>(m), lane.stream));

    const int filled = fill(a.get(), lane.stream);
    if (filled != SR_CUDA_OK) return filled;
    // Timed from here: the elimination, not the upload (whose time the caller's wall clock has).
    check("cudaEventRecord", cudaEventRecord(start.get(), lane.stream));

    const int leaf_blocks = std::max(1, per_sm * sms / std::max(1, lane.share));
    GpuBackend be(GpuBackend::Buffers{a.get(), g.get(), mm.get(), x.get(), slots.get(), flags.get(), cols.get()}, m, n, p, blas.get(),
                  leaf_blocks, tile, lane.stream, lane.check_free, lane.share);
    const std::int64_t r = blk::blocked_rank(be, m, n, p, tile);
    if (profiling()) be.profile().print(m, n);
    check("cudaEventRecord", cudaEventRecord(stop.get(), lane.stream));
    check("cudaEventSynchronize", cudaEventSynchronize(stop.get()));
    check("kernels", cudaGetLastError());
    float ms = 0;
    check("cudaEventElapsedTime", cudaEventElapsedTime(&ms, start.get(), stop.get()));
    if (st) {
        st->gpu_seconds = ms / 1000.0;
        st->leaf_splits = be.profile().splits;
        st->leaf_fallbacks = be.profile().fallbacks;
    }
    *rank = r;
    return ok(st);
}

// A host staging buffer of `count` doubles: page-locked where cudaHostAlloc gives one (the
// copy then runs at the bus's speed, not through the driver's own staging), else ordinary.
class Staging {
public:
    explicit Staging(std::size_t count) {
        void* q = nullptr;
        if (cudaHostAlloc(&q, count * sizeof(double), cudaHostAllocDefault) == cudaSuccess) {
            p_ = static_cast<double*>(q);
            pinned_ = true;
        } else {
            cudaGetLastError();  // not sticky: clear it and stage in ordinary memory
            heap_.resize(count);
            p_ = heap_.data();
        }
    }
    ~Staging() {
        if (pinned_) cudaFreeHost(p_);
    }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    double* get() const { return p_; }

private:
    double* p_ = nullptr;
    bool pinned_ = false;
    std::vector<double> heap_;
};

// The host matrix `in` (residues mod p), uploaded as centred doubles through a staging
// buffer of at most 2^23 entries, converted on up to 16 host threads (a 32768² matrix took
// 7.6 s on one thread through ordinary memory, 7 times its elimination on an H200).
int rank_on_device(const std::uint64_t* in, std::int64_t m, std::int64_t n, std::uint64_t p, int tile, std::int64_t* rank,
                   sr_cuda_status* st) {
    auto upload = [&](double* a, cudaStream_t) -> int {
        const std::int64_t total = m * n, chunk = std::min<std::int64_t>(total, std::int64_t{1} << 23);
        const unsigned workers = total < (std::int64_t{1} << 20) ? 1u : std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
        const Staging stage(static_cast<std::size_t>(chunk));
        for (std::int64_t off = 0; off < total; off += chunk) {
            const std::int64_t len = std::min(chunk, total - off);
            const std::int64_t bad = blk::centre_on_host(in + off, len, p, stage.get(), workers);
            if (bad >= 0)
                return fail(st, SR_CUDA_INVALID, "entry %lld is %llu, not a residue mod %llu", static_cast<long long>(off + bad),
                            static_cast<unsigned long long>(in[off + bad]), static_cast<unsigned long long>(p));
            check("cudaMemcpy (matrix upload)", cudaMemcpy(a + off, stage.get(), sizeof(double) * static_cast<std::size_t>(len),
                                                           cudaMemcpyHostToDevice));
        }
        return SR_CUDA_OK;
    };
    return rank_with(upload, m, n, p, tile, rank, st);
}

// a[e] = the centred double of the residue block[e], e < count.
__global__ void centre_kernel(const std::uint32_t* block, std::int64_t count, std::uint64_t p, double* a) {
    for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < count;
         e += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
        a[e] = blk::centred(block[e], p);
}

// One rank at a time per process: each sizes its work to the device's free memory, which a
// concurrent one would change under it, and they share one cuBLAS handle. work() runs under
// that lock, and no exception leaves it (a C interface): each becomes a status naming `who`.
// The lock itself: one for the process (a static inside the template would be one per
// instantiation, that is per call site).
std::mutex& rank_lock() {
    static std::mutex busy;
    return busy;
}

template <class Work>
int locked_rank(const char* who, sr_cuda_status* st, Work&& work) {
    try {
        const std::lock_guard<std::mutex> lock(rank_lock());
        return work();
    } catch (const Failure& f) {
        return fail(st, f.code, "%s", f.message.c_str());
    } catch (const std::bad_alloc&) {
        return fail(st, SR_CUDA_NO_MEMORY, "%s: out of host memory", who);
    } catch (const std::system_error& e) {
        return fail(st, SR_CUDA_ERROR, "%s: %s", who, e.what());
    } catch (...) {
        return fail(st, SR_CUDA_ERROR, "%s: unexpected exception", who);
    }
}

// The fill of rank_with for an n x n block of 32-bit residues in device memory: its centred
// copy, made on the rank's stream.
auto centred_copy(const std::uint32_t* block, std::int64_t n, std::uint64_t p) {
    return [block, n, p](double* a, cudaStream_t stream) -> int {
        centre_kernel<<<blocks_for(n * n, 256, 8192), 256, 0, stream>>>(block, n * n, p, a);
        check("centre_kernel launch", cudaGetLastError());
        return SR_CUDA_OK;
    };
}

// The cuBLAS handle of stream w of ranks side by side: made on first use, kept to the end of
// the process as shared_blas() is; used under the rank lock only.
Blas& lane_blas(int w) {
    static Blas* pool[seprank::graded::kMaxStreams] = {};
    if (!pool[w]) pool[w] = new Blas();
    return *pool[w];
}

class Stream {
public:
    Stream() { check("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s_) cudaStreamDestroy(s_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

// Device memory a stream of ranks side by side takes besides its rank's arrays: its cuBLAS
// handle's workspace, its share of the runtime's.
constexpr double kLaneBytes = 64.0 * 1024 * 1024;

}  // namespace

double rank_bytes(std::int64_t m, std::int64_t n, int tile, std::uint64_t p) {
    const std::int64_t t = blk::effective_tile(tile, n);
    return 8.0 * static_cast<double>(m) * static_cast<double>(n) + 8.0 * static_cast<double>(blk::workspace_doubles(m, n, tile)) +
           8.0 * static_cast<double>(blk::wide_workspace_doubles(m, n, tile, p)) + 4.0 * static_cast<double>(m) + 8.0 * static_cast<double>(t) +
           4.0 * kSlotCount + kReserveBytes;
}

int refuse_prime(std::uint64_t p, sr_cuda_status* st) {
    return fail(st, SR_CUDA_INVALID, "prime %llu: the blocked elimination takes primes 2 <= p <= %llu", static_cast<unsigned long long>(p),
                static_cast<unsigned long long>(blk::kMaxWidePrime));
}

// The pivot slots hold row indices below 0x7f7f7f7f (the GEMMs take 64-bit sizes).
bool shape_taken(std::int64_t m, std::int64_t n) { return m >= 0 && n >= 0 && m < 0x7f000000LL && n < 0x7f000000LL; }

int rank_device_block(const std::uint32_t* block, std::int64_t n, std::uint64_t p, std::int64_t* rank, sr_cuda_status* st) {
    *rank = 0;
    if (n == 0) return ok(st);
    return locked_rank("rank of a device block", st, [&] {
        return rank_with(centred_copy(block, n, p), n, n, p, 0, rank, st);
    });
}


// Ranks of count matrices side by side (rank_device_blocks, sr_cuda_rank_many): matrix q
// has rows(q) x cols(q) entries, and fill(q) is rank_with's fill of it; plan_ranks plans by
// the larger side (a square of that side bounds the matrix's arrays). Under the rank lock.
template <class Rows, class Cols, class FillOf>
int side_by_side(const char* who, std::int64_t count, Rows&& rows, Cols&& cols, FillOf&& fill_of, std::uint64_t p, std::int64_t* ranks,
                 sr_cuda_status* st) {
    for (std::int64_t q = 0; q < count; ++q) ranks[q] = 0;
    return locked_rank(who, st, [&]() -> int {
        std::vector<std::int64_t> sides(static_cast<std::size_t>(count));  // in the try: no host memory is NO_MEMORY
        for (std::int64_t q = 0; q < count; ++q)
            sides[static_cast<std::size_t>(q)] = rows(q) == 0 || cols(q) == 0 ? 0 : std::max(rows(q), cols(q));
        const auto t0 = std::chrono::steady_clock::now();
        std::size_t free_b = 0, total_b = 0;
        check("cudaMemGetInfo", cudaMemGetInfo(&free_b, &total_b));
        // A lane's rank: its arrays (rank_bytes without the shared reserve), its cuBLAS
        // workspace, and in the two-limb mode the room the one-at-a-time path keeps for the
        // GEMMs' growing workspace.
        const double lane_extra = kLaneBytes + (blk::wide_mode(p) ? 128.0 * 1024 * 1024 : 0.0);
        const seprank::graded::RankPlan plan =
            seprank::graded::plan_ranks(sides.data(), count, static_cast<double>(free_b) - kReserveBytes,
                                        [&](std::int64_t s) { return rank_bytes(s, s, 0, p) - kReserveBytes + lane_extra; },
                                        seprank::graded::streams_from_environment());
        std::int64_t splits = 0, fallbacks = 0;
        std::mutex tally;
        int first_rc = SR_CUDA_OK;
        sr_cuda_status first{};
        std::vector<std::int64_t> retry;  // blocks a lane found no memory for: ranked alone afterwards
        // Keeps the first failure only.
        auto record = [&](int rc, const sr_cuda_status& one) {
            const std::lock_guard<std::mutex> lock(tally);
            if (first_rc != SR_CUDA_OK) return;
            first_rc = rc;
            first = one;
        };
        auto rank_one = [&](std::int64_t q, const Lane& lane) -> bool {
            sr_cuda_status one{};
            clear(&one);
            int rc = SR_CUDA_OK;
            try {
                rc = rank_with(fill_of(q), rows(q), cols(q), p, 0, &ranks[q], &one, lane);
            } catch (const Failure& f) {
                if (!lane.stream) throw;  // alone: locked_rank reports it
                cudaGetLastError();       // not left pending for this thread's next check
                rc = f.code;
                fail(&one, f.code, "%s", f.message.c_str());
            } catch (const std::bad_alloc&) {  // a lane's host staging: as a lane short of device memory
                if (!lane.stream) throw;
                cudaGetLastError();
                rc = SR_CUDA_NO_MEMORY;
                fail(&one, rc, "%s: out of host memory for matrix %lld", who, static_cast<long long>(q));
            }
            if (rc != SR_CUDA_OK) {
                if (one.code == SR_CUDA_OK) one.code = rc;
                if (rc == SR_CUDA_NO_MEMORY && lane.stream) {  // the plan was too hopeful: this one alone, later
                    const std::lock_guard<std::mutex> lock(tally);
                    retry.push_back(q);
                    return false;
                }
                record(rc, one);
                return false;
            }
            const std::lock_guard<std::mutex> lock(tally);
            splits += one.leaf_splits;
            fallbacks += one.leaf_fallbacks;
            return true;
        };
        // The large blocks, and every block when one stream is all that fits: one at a time,
        // each with its own check of the free memory.
        for (std::int64_t q : plan.one_at_a_time())
            if (!rank_one(q, Lane{})) break;
        int used = plan.streams == 1 ? 1 : 0;
        if (first_rc == SR_CUDA_OK && plan.streams > 1) {
            std::atomic<std::size_t> next{0};
            std::atomic<bool> stop{false};
            // A lane that fails outside a rank (its stream, an unexpected exception): the
            // call's failure, and every lane stops.
            auto lane_failed = [&](int code, const std::string& message) {
                cudaGetLastError();
                sr_cuda_status one{};
                fail(&one, code, "%s", message.c_str());
                record(code, one);
                stop = true;
            };
            auto worker = [&](int w) {
                try {
                    const Stream stream;
                    const Lane lane{stream.get(), &lane_blas(w), plan.streams, false};
                    for (std::size_t i; !stop && (i = next++) < plan.shared.size();)
                        if (!rank_one(plan.shared[i], lane)) stop = true;
                } catch (const Failure& f) {
                    lane_failed(f.code, f.message);
                } catch (...) {
                    lane_failed(SR_CUDA_ERROR, "a rank side by side failed (unexpected exception)");
                }
            };
            std::vector<std::thread> pool;
            try {
                for (int w = 1; w < plan.streams; ++w) pool.emplace_back(worker, w);
            } catch (...) {  // fewer threads than streams: the ones made take the rest
            }
            used = static_cast<int>(pool.size()) + 1;
            worker(0);
            for (std::thread& t : pool) t.join();
            // Memory the lanes freed stays in the stream-ordered pool until trimmed: hand it
            // back, so that the next step's and rank's checks of the free memory see it.
            if (DeviceArray<char>::pools()) {
                cudaMemPool_t mem = nullptr;
                if (cudaDeviceSynchronize() == cudaSuccess && cudaDeviceGetDefaultMemPool(&mem, 0) == cudaSuccess) cudaMemPoolTrimTo(mem, 0);
                cudaGetLastError();
            }
            // Blocks a lane had no memory for, and those no lane took after that: alone.
            if (first_rc == SR_CUDA_OK) {
                for (std::size_t i = next; i < plan.shared.size(); ++i) retry.push_back(plan.shared[i]);
                for (std::int64_t q : retry)
                    if (!rank_one(q, Lane{})) break;
            }
        }
        if (first_rc != SR_CUDA_OK) {
            if (st) *st = first;
            return first_rc;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (profiling())  // the whole call, after the per-matrix lines of rank_with
            std::fprintf(stderr, "cuda profile %s: %lld matrices (%zu alone, %zu side by side on %d streams): %.4f s\n", who,
                         static_cast<long long>(count), plan.alone.size(), plan.shared.size(), used, seconds);
        if (st) {
            st->gpu_seconds = seconds;
            st->leaf_splits = splits;
            st->leaf_fallbacks = fallbacks;
            st->streams = plan.shared.empty() && plan.alone.empty() ? 0 : used;
        }
        return ok(st);
    });
}

int rank_device_blocks(const std::uint32_t* const* blocks, const std::int64_t* sides, std::int64_t count, std::uint64_t p, std::int64_t* ranks,
                       sr_cuda_status* st) {
    auto side = [&](std::int64_t q) { return sides[q]; };
    return side_by_side("ranks of device blocks", count, side, side, [&](std::int64_t q) { return centred_copy(blocks[q], sides[q], p); }, p,
                        ranks, st);
}

}  // namespace sr_cuda

extern "C" SR_CUDA_EXPORT uint64_t sr_cuda_max_prime(void) { return blk::kMaxWidePrime; }

extern "C" SR_CUDA_EXPORT int sr_cuda_rank(const uint64_t* a, int64_t rows, int64_t cols, uint64_t p, int tile, int64_t* rank,
                                           sr_cuda_status* st) {
    using sr_cuda::fail;
    sr_cuda::clear(st);
    if (!rank) return fail(st, SR_CUDA_INVALID, "sr_cuda_rank: null rank pointer");
    if (!blk::accepted_rank_prime(p)) return sr_cuda::refuse_prime(p, st);
    if (tile < 0) return fail(st, SR_CUDA_INVALID, "tile %d: expected >= 0", tile);
    if (!sr_cuda::shape_taken(rows, cols))
        return fail(st, SR_CUDA_INVALID, "shape %lld x %lld: each side must be in [0, 2^31 - 2^24)", static_cast<long long>(rows),
                    static_cast<long long>(cols));
    *rank = 0;
    if (rows == 0 || cols == 0) return sr_cuda::ok(st);
    if (!a) return fail(st, SR_CUDA_INVALID, "sr_cuda_rank: null matrix");
    return sr_cuda::locked_rank("sr_cuda_rank", st, [&] { return sr_cuda::rank_on_device(a, rows, cols, p, tile, rank, st); });
}

extern "C" SR_CUDA_EXPORT int sr_cuda_rank_many(const uint64_t* const* mats, const int64_t* rows, const int64_t* cols, int64_t count, uint64_t p,
                                                int64_t* ranks, sr_cuda_status* st) {
    using sr_cuda::fail;
    sr_cuda::clear(st);
    if (count < 0 || (count > 0 && (mats == nullptr || rows == nullptr || cols == nullptr || ranks == nullptr)))
        return fail(st, SR_CUDA_INVALID, "sr_cuda_rank_many: count %lld < 0, or a NULL array", static_cast<long long>(count));
    if (!blk::accepted_rank_prime(p)) return sr_cuda::refuse_prime(p, st);
    // Every check before any work (a fill on a stream cannot report a bad entry).
    for (int64_t q = 0; q < count; ++q) {
        const int64_t m = rows[q], n = cols[q];
        if (!sr_cuda::shape_taken(m, n))
            return fail(st, SR_CUDA_INVALID, "sr_cuda_rank_many: matrix %lld: shape %lld x %lld: each side must be in [0, 2^31 - 2^24)",
                        static_cast<long long>(q), static_cast<long long>(m), static_cast<long long>(n));
        if (m > 0 && n > 0 && mats[q] == nullptr)
            return fail(st, SR_CUDA_INVALID, "sr_cuda_rank_many: matrix %lld is NULL", static_cast<long long>(q));
        for (int64_t e = 0; e < m * n; ++e)
            if (mats[q][e] >= p)
                return fail(st, SR_CUDA_INVALID, "sr_cuda_rank_many: matrix %lld: entry %lld is %llu, not a residue mod %llu",
                            static_cast<long long>(q), static_cast<long long>(e), static_cast<unsigned long long>(mats[q][e]),
                            static_cast<unsigned long long>(p));
    }
    // Matrix q's fill: centred on the host, then one copy on the rank's stream (waited for,
    // so the staging buffer may go).
    auto fill_of = [&](int64_t q) {
        return [&, q](double* a, cudaStream_t stream) -> int {
            const std::size_t len = static_cast<std::size_t>(rows[q] * cols[q]);
            std::vector<double> stage(len);
            blk::centre_on_host(mats[q], static_cast<std::int64_t>(len), p, stage.data(), 1);
            sr_cuda::check("cudaMemcpyAsync (matrix upload)", cudaMemcpyAsync(a, stage.data(), len * sizeof(double), cudaMemcpyHostToDevice, stream));
            sr_cuda::check("cudaStreamSynchronize (matrix upload)", cudaStreamSynchronize(stream));
            return SR_CUDA_OK;
        };
    };
    return sr_cuda::side_by_side("sr_cuda_rank_many", count, [&](int64_t q) { return rows[q]; }, [&](int64_t q) { return cols[q]; }, fill_of, p,
                                 ranks, st);
}
