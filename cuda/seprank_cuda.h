/* seprank — the CUDA engine's interface (docs/gpu.md).
 *
 * The engine is a plugin, libseprank_cuda.so, built from cuda/ by nvcc when the Meson
 * option `cuda` finds it, and loaded by the library with dlopen(3) only when a device is
 * asked for (src/algebra/device.cpp). This header is the whole contract between the two: C
 * types only, no FLINT, no C++ library types, so the .cu files never see FLINT and a
 * library built without CUDA works unchanged. Every entry is extern "C"; the library
 * resolves them by name and refuses a plugin whose sr_cuda_abi() differs from
 * SEPRANK_CUDA_ABI.
 *
 * Status codes (every entry returns one, and fills `status` when it is not NULL):
 *   SR_CUDA_OK          done
 *   SR_CUDA_NO_DEVICE   no usable GPU (no driver, no device, cudaMalloc failed at start)
 *   SR_CUDA_INVALID     an argument out of range (the message names it)
 *   SR_CUDA_NO_MEMORY   the work does not fit in the device's free memory: refused
 *                       before any work starts (the message gives both sizes)
 *   SR_CUDA_ERROR       a CUDA or cuBLAS call failed part-way (the message names it)
 */
#ifndef SEPRANK_CUDA_H
#define SEPRANK_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SEPRANK_CUDA_ABI 4

enum {
    SR_CUDA_OK = 0,
    SR_CUDA_NO_DEVICE = 1,
    SR_CUDA_INVALID = 2,
    SR_CUDA_NO_MEMORY = 3,
    SR_CUDA_ERROR = 4
};

typedef struct sr_cuda_status {
    int code;              /* one of SR_CUDA_* */
    char message[512];     /* empty when code == SR_CUDA_OK */
    double gpu_seconds;    /* GPU time of the call's work (a rank: its elimination, after the upload) */
    double bytes;          /* peak device memory the call allocated */
    int64_t leaf_splits;   /* sr_cuda_rank: leaves run in two phases (blocked_rank_impl.hpp) */
    int64_t leaf_fallbacks; /* sr_cuda_rank: of them, leaves run again in one phase */
    int64_t streams;       /* sr_cuda_graded_ranks: blocks ranked at once, at most (1: one at a time) */
} sr_cuda_status;

/* SEPRANK_CUDA_ABI of the plugin. */
int sr_cuda_abi(void);

/* Number of CUDA devices usable here (0: none). Writes the name of device 0 ("NVIDIA
 * H200, 139 GiB, sm_90"), or why there is none, into name[0..len). */
int sr_cuda_probe(char* name, size_t len);

/* The largest prime the blocked elimination accepts (docs/gpu.md, "Primes"). */
uint64_t sr_cuda_max_prime(void);

/* Rank of the rows x cols matrix a mod p (row-major, entries in [0, p)), by blocked
 * elimination on the device: src/algebra/blocked_rank_impl.hpp is the algorithm, shared with the
 * CPU reference rank_modular_blocked. p prime, 2 <= p <= sr_cuda_max_prime(). tile: the
 * panel width (0: the default). Writes the rank into *rank. */
int sr_cuda_rank(const uint64_t* a, int64_t rows, int64_t cols, uint64_t p, int tile,
                 int64_t* rank, sr_cuda_status* status);

/* Ranks mod p of count matrices, matrix q of rows[q] x cols[q] residues at mats[q]
 * (row-major, as sr_cuda_rank's a), written to ranks[q]: side by side, as
 * sr_cuda_graded_ranks ranks blocks (a matrix whose larger side is above 4096 alone, the
 * others on up to 8 streams), each uploaded by its own stream. Every argument and entry is
 * checked before any work (SR_CUDA_INVALID naming the matrix and entry). status as
 * sr_cuda_graded_ranks's. */
int sr_cuda_rank_many(const uint64_t* const* mats, const int64_t* rows, const int64_t* cols, int64_t count, uint64_t p,
                      int64_t* ranks, sr_cuda_status* status);

/* One instruction of a straight-line program (include/seprank/tape.hpp, src/network/tape_impl.hpp):
 * the forward pass of a network with its weights built in, recorded once on the host.
 * Residues (slots and w) are held in the tape's form: Montgomery form x·2^64 mod p for
 * odd p, plain {0, 1} for p = 2. Operands are read before dst is written (dst may equal
 * a or b). */
typedef struct sr_tape_op {
    uint32_t code;         /* SR_TAPE_* below */
    uint32_t dst, a, b;    /* slots (INPUT: a is the coordinate of the point) */
    uint64_t w;            /* a weight or constant, a residue mod p in the tape's form */
} sr_tape_op;

enum {
    SR_TAPE_ZERO = 0,      /* s[dst] = 0 */
    SR_TAPE_CONST = 1,     /* s[dst] = w */
    SR_TAPE_INPUT = 2,     /* s[dst] = point[a], converted to the tape's form */
    SR_TAPE_MUL = 3,       /* s[dst] = s[a] * s[b] */
    SR_TAPE_ADD = 4,       /* s[dst] = s[a] + s[b] */
    SR_TAPE_AXPY = 5,      /* s[dst] = s[a] + w * s[b] */
    SR_TAPE_SCALE = 6,     /* s[dst] = w * s[a] */
    SR_TAPE_COPY = 7,      /* s[dst] = s[a] */
    SR_TAPE_ADDC = 8       /* s[dst] = s[a] + w */
};

typedef struct sr_tape {
    const sr_tape_op* ops;
    int64_t n_ops;
    int64_t slots;         /* slots used (each point needs `slots` residues of scratch) */
    int64_t inputs;        /* coordinates of one point */
    uint32_t output;       /* the slot holding f(point) at the end */
    uint32_t flags;        /* 0, or SR_TAPE_GENERAL: program and slots in global memory
                              even where constant and shared memory would hold them (tests);
                              or'ed with SR_TAPE_WIDE (below) */
    uint64_t p;            /* the modulus the weights were reduced by */
} sr_tape;

#define SR_TAPE_GENERAL 1u
/* flags: SR_TAPE_WIDE runs the 64-bit Montgomery arithmetic even for an odd p < 2^31, where
 * the plugin otherwise converts the program to 32-bit words (src/network/tape_impl.hpp, Mont32):
 * the same values either way (tests, benchmarks). */
#define SR_TAPE_WIDE 2u

/* out[q] = f(point q) mod tape->p for q < count; point q is
 * points[q*inputs .. (q+1)*inputs), entries any 64-bit values (reduced on the device).
 * p prime, p = 2 or odd p < 2^63. Every op is checked on the host first (opcode, slots
 * below tape->slots, INPUT coordinates below inputs): SR_CUDA_INVALID naming the first
 * bad one. The points are processed in chunks sized to the device's free memory. */
int sr_cuda_tape_eval(const sr_tape* tape, const uint64_t* points, int64_t count,
                      uint64_t* out, sr_cuda_status* status);

/* Points on a grid, formed on the device (the evaluation matrices of docs/evaluation.md):
 * for i < rows, j < cols, t < nodes, the point whose coordinate c (c < tape->inputs) is
 *   (t + 1)·a[i*width_a + k]            when k = source[c] < width_a   (side A, scaled),
 *   b[j*width_b + (k - width_a)]        when width_a <= k < width_a + width_b (side B),
 * entries any 64-bit values. */
typedef struct sr_tape_grid {
    const uint64_t* a;
    int64_t rows, width_a;
    const uint64_t* b;
    int64_t cols, width_b;
    int64_t nodes;             /* >= 1 */
    const uint32_t* source;    /* tape->inputs entries */
} sr_tape_grid;

/* out[(i*cols + j)*nodes + t] = f(point (i, j, t)) mod tape->p: the same values as
 * sr_cuda_tape_eval on those points, without copying them. Checks as sr_cuda_tape_eval,
 * and source[c] < width_a + width_b. The rows of side A are processed in chunks sized to
 * the device's free memory. */
int sr_cuda_tape_grid(const sr_tape* tape, const sr_tape_grid* grid, uint64_t* out,
                      sr_cuda_status* status);

/* A graded evaluation kept in device memory (docs/gpu.md, "Degree blocks in device
 * memory"; src/rank/graded_impl.hpp is the algorithm, shared with the CPU stand-in). The
 * session holds one square block per live degree c < nodes as 32-bit residues; each step
 * evaluates the new pairs on the device (the grid of sr_cuda_tape_grid), splits each pair's
 * nodes values into its coefficients (coefficient c = sum_t value_t * w[t*nodes + c] mod p)
 * and writes them into the blocks, so no entry crosses the bus; the ranks are taken there
 * too. One session's calls must not overlap; sessions and the other entries may. */
typedef struct sr_graded sr_graded;

typedef struct sr_graded_setup {
    const sr_tape* tape;       /* copied by sr_cuda_graded_open; p = tape->p < 2^31 */
    int64_t nodes;             /* nd, 1 <= nd <= 4096: forward passes per pair, and blocks */
    const uint64_t* w;         /* nd x nd, row-major, residues mod p */
    int64_t width_a, width_b;  /* residues per point of side A, of side B */
    const uint32_t* source;    /* tape->inputs entries, as sr_tape_grid's */
} sr_graded_setup;

/* Checks the setup (as sr_cuda_tape_grid checks a tape and a grid), copies it and opens a
 * session with every block empty. *out is NULL unless SR_CUDA_OK. */
int sr_cuda_graded_open(const sr_graded_setup* setup, sr_graded** out, sr_cuda_status* status);

/* One step to side k: a holds the points of rows [0, k) (k * width_a residues), b those of
 * columns [0, k) (k * width_b), the first ones those of the earlier steps; side[c] is block
 * c's side after the step (the rules of graded::Sides::check: a block keeps its side, grows
 * from the last step's side, or closes with 0). Evaluates the pairs of [0, k)^2 that no
 * earlier step did into every block. SR_CUDA_NO_MEMORY when the blocks at their new sides,
 * the step's work and the rank of the largest block would not fit the free device memory:
 * then nothing has changed, and the caller may stop there. Any other failure after those
 * checks may leave the blocks half grown: every later call on the session (but close) then
 * fails with SR_CUDA_ERROR. status->bytes: the session's device memory after the step. */
int sr_cuda_graded_step(sr_graded* g, const uint64_t* a, const uint64_t* b, int64_t k, const int64_t* side,
                        sr_cuda_status* status);

/* Rank mod p of block c at its current side, by the elimination of sr_cuda_rank on a copy
 * made on the device (the block is kept). */
int sr_cuda_graded_rank(sr_graded* g, int64_t c, int64_t* rank, sr_cuda_status* status);

/* Ranks mod p of the blocks c = blocks[q], q < count, at their current sides (as
 * sr_cuda_graded_rank on each, the blocks kept), written to ranks[q]; a closed or empty
 * block's rank is 0. Blocks side by side (docs/gpu.md, "Blocks side by side";
 * graded::plan_ranks is the plan): a block of side above 4096 is ranked alone, the largest
 * first; the others on up to 8 streams at once, as many as the free device memory holds
 * copies of the largest of them (SEPRANK_CUDA_STREAMS = 1..8: at most that many). status: gpu_seconds the wall time of the whole call,
 * leaf_splits and leaf_fallbacks summed over the blocks, streams the streams used. On a
 * failure the ranks not yet written are unspecified. */
int sr_cuda_graded_ranks(sr_graded* g, const int64_t* blocks, int64_t count, int64_t* ranks, sr_cuda_status* status);

/* Block c copied out: side * side residues, row-major (tests). */
int sr_cuda_graded_block(const sr_graded* g, int64_t c, uint64_t* out, sr_cuda_status* status);

/* Frees the session and its device memory (NULL: nothing). */
void sr_cuda_graded_close(sr_graded* g);

#ifdef __cplusplus
}
#endif

#endif
