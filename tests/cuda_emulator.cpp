// A stand-in for the CUDA plugin, for tests on machines without a GPU (docs/gpu.md,
// "Identical answers"). It exports the interface of cuda/seprank_cuda.h and computes each
// entry with the CPU references of the GPU's algorithms: sr_cuda_rank with
// rank_modular_blocked (the same driver as cuda/rank.cu), the tape entries with the
// instruction step of src/tape_impl.hpp (the one the CUDA kernel runs). Loaded through
// SEPRANK_CUDA_PLUGIN, it lets the tests run `--device cuda` end to end: the loader, the
// dispatch, the primes, the grid layout the library hands over, the answers, several
// processes sharing a block store. It is never installed.
#include "../cuda/seprank_cuda.h"
#include "seprank/matrix.hpp"
#include "seprank/rank.hpp"
#include "tape_impl.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <vector>

#define SR_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

int fail(sr_cuda_status* st, int code, const char* msg) {
    if (st) {
        st->code = code;
        std::snprintf(st->message, sizeof st->message, "%s", msg);
    }
    return code;
}

int ok(sr_cuda_status* st) {
    if (st) {
        st->code = SR_CUDA_OK;
        st->message[0] = '\0';
        st->gpu_seconds = 0;
        st->bytes = 0;
    }
    return SR_CUDA_OK;
}

// f at count points; coord(q, ar) gives point q's coordinate reader (tape form).
template <class Coord>
int run(const sr_tape* t, std::int64_t count, std::uint64_t* out, Coord&& coord, sr_cuda_status* st) {
    if (t == nullptr || t->ops == nullptr || t->slots < 1) return fail(st, SR_CUDA_INVALID, "emulated tape: empty program");
    std::vector<std::uint64_t> slots(static_cast<std::size_t>(t->slots));
    auto slot = [&slots](std::uint32_t i) -> std::uint64_t& { return slots[i]; };
    auto go = [&](const auto& ar) {
        for (std::int64_t q = 0; q < count; ++q) {
            auto x = coord(q, ar);
            for (std::int64_t k = 0; k < t->n_ops; ++k) seprank::tape::step(t->ops[k], ar, slot, x);
            out[q] = ar.from(slot(t->output));
        }
    };
    if (t->p == 2) go(seprank::tape::Two{});
    else go(seprank::tape::make_mont(t->p));
    return ok(st);
}

}  // namespace

SR_EXPORT int sr_cuda_abi(void) { return SEPRANK_CUDA_ABI; }

SR_EXPORT int sr_cuda_probe(char* name, size_t len) {
    if (name && len) std::snprintf(name, len, "%s", "emulated on the CPU (tests only)");
    return 1;
}

SR_EXPORT uint64_t sr_cuda_max_prime(void) { return seprank::blocked_max_prime; }

SR_EXPORT int sr_cuda_rank(const uint64_t* a, int64_t rows, int64_t cols, uint64_t p, int tile, int64_t* rank, sr_cuda_status* st) {
    try {
        seprank::NmodMat m(rows, cols, p);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) m.get()->rows[i][j] = a[i * cols + j];
        const auto t0 = std::chrono::steady_clock::now();
        *rank = seprank::rank_modular_blocked(m, tile);
        ok(st);
        if (st) {  // as the plugin reports its events and allocation
            st->gpu_seconds = std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            st->bytes = 8.0 * static_cast<double>(rows) * static_cast<double>(cols);
        }
        return SR_CUDA_OK;
    } catch (const std::exception& e) {
        return fail(st, SR_CUDA_INVALID, e.what());
    }
}

SR_EXPORT int sr_cuda_tape_eval(const sr_tape* t, const uint64_t* points, int64_t count, uint64_t* out, sr_cuda_status* st) {
    return run(t, count, out, [&](std::int64_t q, const auto& ar) {
        const std::uint64_t* x = points + q * t->inputs;
        return [x, &ar](std::uint32_t c) { return ar.to(x[c]); };
    }, st);
}

SR_EXPORT int sr_cuda_tape_grid(const sr_tape* t, const sr_tape_grid* g, uint64_t* out, sr_cuda_status* st) {
    if (g == nullptr || g->nodes < 1) return fail(st, SR_CUDA_INVALID, "emulated tape grid: nodes < 1");
    return run(t, g->rows * g->cols * g->nodes, out, [&](std::int64_t q, const auto& ar) {
        const std::int64_t node = q % g->nodes, r = q / g->nodes, j = r % g->cols, i = r / g->cols;
        const std::uint64_t* ai = g->a + i * g->width_a;
        const std::uint64_t* bj = g->b + j * g->width_b;
        const std::uint64_t sc = ar.input_scale(static_cast<std::uint64_t>(node + 1));
        return [ai, bj, sc, g, &ar](std::uint32_t c) {
            const std::int64_t k = g->source[c];
            return k < g->width_a ? ar.mul(ai[k], sc) : ar.to(bj[k - g->width_a]);
        };
    }, st);
}
