// A stand-in for the CUDA plugin, for tests on machines without a GPU (docs/gpu.md,
// "Identical answers"). It exports the interface of cuda/seprank_cuda.h and computes each
// entry with the CPU references of the GPU's algorithms: sr_cuda_rank with
// rank_modular_blocked (the same driver as cuda/rank.cu), the tape entries with the
// instruction step of src/network/tape_impl.hpp (the one the CUDA kernel runs), the graded session
// with src/rank/graded_impl.hpp (the pairs, the degree split and the rules cuda/graded.cu runs),
// its blocks in host memory. SEPRANK_EMULATED_DEVICE_MIB sets the device memory it
// pretends to have (the blocks at their sides after a step; default: unlimited), so the
// tests reach the answer of a step that does not fit. Loaded through
// SEPRANK_CUDA_PLUGIN, it lets the tests run `--device cuda` end to end: the loader, the
// dispatch, the primes, the grid layout the library hands over, the answers, several
// processes sharing a block store. It is never installed.
#include "../cuda/seprank_cuda.h"
#include "algebra/blocked_rank_impl.hpp"
#include "algebra/rank_blocked.hpp"
#include "rank/graded_impl.hpp"
#include "seprank/matrix.hpp"
#include "seprank/rank.hpp"
#include "network/tape_impl.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
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
        st->leaf_splits = 0;
        st->leaf_fallbacks = 0;
        st->streams = 0;
    }
    return SR_CUDA_OK;
}

// Whether the plugin runs t in 32-bit words (cuda/tape_kernel.cuh, runs_narrow).
bool narrow(const sr_tape* t) { return seprank::tape::narrow_prime(t->p) && (t->flags & SR_TAPE_WIDE) == 0; }

// Values as the plugin uploads them: reduced mod p in 32-bit words (else as they are).
std::vector<std::uint64_t> uploaded(const sr_tape* t, const std::uint64_t* v, std::size_t n) {
    std::vector<std::uint64_t> r(v, v + n);
    if (narrow(t))
        for (auto& x : r) x %= t->p;
    return r;
}

// f at count points; coord(q, ar) gives point q's coordinate reader (tape form), over
// values already uploaded(). As the plugin: Mont32 with the program narrowed for an odd
// p < 2^31 (unless SR_TAPE_WIDE), else the recorded form.
template <class Coord>
int run(const sr_tape* t, std::int64_t count, std::uint64_t* out, Coord&& coord, sr_cuda_status* st) {
    if (t == nullptr || t->ops == nullptr || t->slots < 1) return fail(st, SR_CUDA_INVALID, "emulated tape: empty program");
    std::vector<sr_tape_op> ops(t->ops, t->ops + t->n_ops);
    // word: the slots' type, 32 bits for Mont32 as in the plugin's kernel (SlotWord)
    auto go = [&](const auto& ar, auto word) {
        std::vector<decltype(word)> slots(static_cast<std::size_t>(t->slots));
        auto slot = [&slots](std::uint32_t i) -> decltype(word)& { return slots[i]; };
        for (std::int64_t q = 0; q < count; ++q) {
            auto x = coord(q, ar);
            for (std::int64_t k = 0; k < t->n_ops; ++k) seprank::tape::step(ops[static_cast<std::size_t>(k)], ar, slot, x);
            out[q] = ar.from(slot(t->output));
        }
    };
    if (t->p == 2) {
        go(seprank::tape::Two{}, std::uint64_t{});
    } else if (narrow(t)) {
        const seprank::tape::Mont32 m = seprank::tape::make_mont32(t->p);
        seprank::tape::narrow_program(ops.data(), ops.size(), m);
        go(m, std::uint32_t{});
    } else {
        go(seprank::tape::make_mont(t->p), std::uint64_t{});
    }
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
    // The plugin's checks: the prime, and every entry a residue.
    if (!seprank::blocked::accepted_rank_prime(p)) {
        char msg[96];
        std::snprintf(msg, sizeof msg, "prime %llu: not one the blocked elimination takes", static_cast<unsigned long long>(p));
        return fail(st, SR_CUDA_INVALID, msg);
    }
    try {
        // The plugin's upload: centred doubles on threads, the first entry not a residue refused.
        std::vector<double> stage(static_cast<std::size_t>(rows * cols));
        if (seprank::blocked::centre_on_host(a, rows * cols, p, stage.data(), 4) >= 0)
            return fail(st, SR_CUDA_INVALID, "emulated rank: an entry is not a residue mod p");
        seprank::NmodMat m(rows, cols, p);
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) m.get()->rows[i][j] = a[i * cols + j];
        const auto t0 = std::chrono::steady_clock::now();
        seprank::blocked::LeafStats leaves;
        *rank = seprank::blocked::rank_with_combine_error(m, tile, 0.0, &leaves);
        ok(st);
        if (st) {  // as the plugin reports its events, allocation and leaves
            st->gpu_seconds = std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            st->bytes = 8.0 * static_cast<double>(rows) * static_cast<double>(cols);
            st->leaf_splits = leaves.splits;
            st->leaf_fallbacks = leaves.fallbacks;
        }
        return SR_CUDA_OK;
    } catch (const std::exception& e) {
        return fail(st, SR_CUDA_INVALID, e.what());
    }
}

SR_EXPORT int sr_cuda_tape_eval(const sr_tape* t, const uint64_t* points, int64_t count, uint64_t* out, sr_cuda_status* st) {
    if (t == nullptr) return fail(st, SR_CUDA_INVALID, "emulated tape: NULL");
    const std::vector<std::uint64_t> pts = uploaded(t, points, static_cast<std::size_t>(count * t->inputs));
    return run(t, count, out, [&](std::int64_t q, const auto& ar) {
        const std::uint64_t* x = pts.data() + q * t->inputs;
        return [x, &ar](std::uint32_t c) { return ar.to(x[c]); };
    }, st);
}

SR_EXPORT int sr_cuda_tape_grid(const sr_tape* t, const sr_tape_grid* g, uint64_t* out, sr_cuda_status* st) {
    if (t == nullptr || g == nullptr || g->nodes < 1) return fail(st, SR_CUDA_INVALID, "emulated tape grid: nodes < 1");
    const std::vector<std::uint64_t> a = uploaded(t, g->a, static_cast<std::size_t>(g->rows * g->width_a));
    const std::vector<std::uint64_t> b = uploaded(t, g->b, static_cast<std::size_t>(g->cols * g->width_b));
    return run(t, g->rows * g->cols * g->nodes, out, [&](std::int64_t q, const auto& ar) {
        const std::int64_t node = q % g->nodes, r = q / g->nodes, j = r % g->cols, i = r / g->cols;
        const std::uint64_t* ai = a.data() + i * g->width_a;
        const std::uint64_t* bj = b.data() + j * g->width_b;
        const std::uint64_t sc = ar.input_scale(static_cast<std::uint64_t>(node + 1));
        return [ai, bj, sc, g, &ar](std::uint32_t c) {
            const std::int64_t k = g->source[c];
            return k < g->width_a ? ar.mul(ai[k], sc) : ar.to(bj[k - g->width_a]);
        };
    }, st);
}

// The graded session: the same checks, sides and values as cuda/graded.cu, in host memory.
struct sr_graded {
    std::vector<sr_tape_op> ops;
    sr_tape tape{};
    std::int64_t nd = 0, width_a = 0, width_b = 0;
    std::vector<std::uint32_t> source;
    std::vector<std::uint64_t> w;
    seprank::graded::Sides sides;
    std::vector<std::vector<std::uint32_t>> blocks;
    bool broken = false;  // as cuda/graded.cu: a step failed after its checks
};

namespace {

int refuse_broken(sr_cuda_status* st, const char* who) {
    return fail(st, SR_CUDA_ERROR, (std::string(who) + ": an earlier step of this session failed part-way (its blocks are not usable): close it").c_str());
}

}  // namespace

SR_EXPORT int sr_cuda_graded_open(const sr_graded_setup* s, sr_graded** out, sr_cuda_status* st) {
    if (out == nullptr) return fail(st, SR_CUDA_INVALID, "emulated graded open: out is NULL");
    *out = nullptr;
    if (s == nullptr || s->tape == nullptr || s->tape->ops == nullptr || s->w == nullptr)
        return fail(st, SR_CUDA_INVALID, "emulated graded open: setup, tape or w is NULL");
    // The plugin's checks (cuda/graded.cu): nodes, the prime, W's residues, the source map.
    const std::uint64_t p = s->tape->p;
    if (s->nodes < 1 || s->nodes > seprank::graded::kMaxNodes || p >= seprank::graded::kPrimeLimit || !seprank::blocked::accepted_rank_prime(p))
        return fail(st, SR_CUDA_INVALID, "emulated graded open: nodes or p out of range");
    for (int64_t e = 0; e < s->nodes * s->nodes; ++e)
        if (s->w[e] >= p) return fail(st, SR_CUDA_INVALID, "emulated graded open: w not reduced mod p");
    for (int64_t c = 0; c < s->tape->inputs; ++c)
        if (static_cast<int64_t>(s->source[c]) >= s->width_a + s->width_b) return fail(st, SR_CUDA_INVALID, "emulated graded open: source out of range");
    auto* g = new sr_graded();
    g->ops.assign(s->tape->ops, s->tape->ops + s->tape->n_ops);
    g->tape = *s->tape;
    g->tape.ops = g->ops.data();
    g->nd = s->nodes;
    g->width_a = s->width_a;
    g->width_b = s->width_b;
    g->source.assign(s->source, s->source + s->tape->inputs);
    g->w = seprank::graded::split_weights(s->w, s->nodes * s->nodes, p);  // as the plugin keeps them
    g->sides = seprank::graded::Sides(s->nodes);
    g->blocks.resize(static_cast<std::size_t>(s->nodes));
    *out = g;
    return ok(st);
}

SR_EXPORT int sr_cuda_graded_step(sr_graded* g, const uint64_t* a, const uint64_t* b, int64_t k, const int64_t* side, sr_cuda_status* st) {
    namespace gr = seprank::graded;
    if (g == nullptr || side == nullptr) return fail(st, SR_CUDA_INVALID, "emulated graded step: session or side is NULL");
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_step");
    std::string why;
    if (!g->sides.check(k, side, why)) return fail(st, SR_CUDA_INVALID, ("sr_cuda_graded_step: " + why).c_str());
    const std::size_t nd = static_cast<std::size_t>(g->nd);
    const double after = gr::Sides::bytes(side, nd);
    if (const char* lim = std::getenv("SEPRANK_EMULATED_DEVICE_MIB"); lim && *lim && after > std::atof(lim) * 1024 * 1024) {
        const std::string msg = "sr_cuda_graded_step: side " + std::to_string(k) + " needs " + std::to_string(after / 1048576) +
                                " MiB of blocks, the emulated device has " + lim + " MiB";
        return fail(st, SR_CUDA_NO_MEMORY, msg.c_str());
    }
    g->broken = true;  // until the step ends well
    for (std::size_t c = 0; c < nd; ++c) {  // grow (old entries to the top-left corner) and close
        const std::int64_t s = side[c], prev = g->sides.side[c];
        if (s == prev) continue;
        std::vector<std::uint32_t> fresh(static_cast<std::size_t>(s * s), 0);
        for (std::int64_t i = 0; i < std::min(prev, s); ++i)
            std::copy_n(g->blocks[c].data() + i * prev, std::min(prev, s), fresh.data() + i * s);
        g->blocks[c] = std::move(fresh);
    }
    const std::int64_t old = g->sides.k;
    g->sides.apply(k, side);
    // A failure after the checks, for the tests of the rule above: SEPRANK_EMULATED_FAIL_STEP=k.
    if (const char* f = std::getenv("SEPRANK_EMULATED_FAIL_STEP"); f && *f && std::atoll(f) == k)
        return fail(st, SR_CUDA_ERROR, ("sr_cuda_graded_step: emulated failure at side " + std::to_string(k)).c_str());
    gr::Rect rects[2];
    const int nr = gr::new_pairs(k, old, rects);
    const gr::SplitArith split = gr::split_arith(g->tape.p);
    std::vector<std::uint64_t> vals;
    for (int q = 0; q < nr; ++q) {
        const gr::Rect& r = rects[q];
        const std::int64_t cols = r.c1 - r.c0;
        for (std::int64_t i = r.r0; i < r.r1; ++i) {  // one row of pairs at a time, as a grid of one row
            const std::vector<std::uint32_t>& src = g->source;
            sr_tape_grid grid{a + i * g->width_a, 1, g->width_a, b + r.c0 * g->width_b, cols, g->width_b, g->nd, src.data()};
            vals.resize(static_cast<std::size_t>(cols * g->nd));
            const int rc = sr_cuda_tape_grid(&g->tape, &grid, vals.data(), st);
            if (rc != SR_CUDA_OK) return rc;
            for (std::int64_t j = r.c0; j < r.c1; ++j)
                for (std::size_t c = 0; c < nd; ++c) {
                    const std::int64_t s = g->sides.side[c];
                    if (i < s && j < s)
                        g->blocks[c][static_cast<std::size_t>(i * s + j)] =
                            static_cast<std::uint32_t>(split.with([&](const auto& ar) {
                                return gr::coefficient(vals.data() + (j - r.c0) * g->nd, g->nd, g->w.data(), static_cast<std::int64_t>(c), ar);
                            }));
                }
        }
    }
    g->broken = false;
    ok(st);
    if (st) st->bytes = after;
    return SR_CUDA_OK;
}

SR_EXPORT int sr_cuda_graded_rank(sr_graded* g, int64_t c, int64_t* rank, sr_cuda_status* st) {
    if (g == nullptr || rank == nullptr || c < 0 || c >= g->nd) return fail(st, SR_CUDA_INVALID, "emulated graded rank: bad arguments");
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_rank");
    const std::int64_t s = g->sides.side[static_cast<std::size_t>(c)];
    std::vector<std::uint64_t> wide(g->blocks[static_cast<std::size_t>(c)].begin(), g->blocks[static_cast<std::size_t>(c)].end());
    return sr_cuda_rank(wide.data(), s, s, g->tape.p, 0, rank, st);
}

// As cuda/graded.cu: the same checks and plan (graded::plan_ranks), the large blocks one at
// a time, the small ones by plan.streams threads (the plugin's streams), each rank by the
// emulated sr_cuda_rank. The memory at hand: SEPRANK_EMULATED_DEVICE_MIB (default:
// unlimited), a rank taking its matrix as doubles.
namespace {

// As cuda/rank.cu's side_by_side: the plan (graded::plan_ranks by the larger side), the
// large ones one at a time, the others by plan.streams threads (the plugin's streams),
// each by rank_one(q, &rank, &status). The memory at hand: SEPRANK_EMULATED_DEVICE_MIB
// (default: unlimited), a rank taking its matrix as doubles.
template <class RankOne>
int emulated_side_by_side(std::int64_t count, const std::vector<std::int64_t>& sides, std::int64_t* ranks, sr_cuda_status* st, RankOne&& rank_of) {
    namespace gr = seprank::graded;
    for (std::int64_t q = 0; q < count; ++q) ranks[q] = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double memory = 1e300;
    if (const char* lim = std::getenv("SEPRANK_EMULATED_DEVICE_MIB"); lim && *lim) memory = std::atof(lim) * 1024 * 1024;
    const gr::RankPlan plan = gr::plan_ranks(sides.data(), count, memory, [](std::int64_t s) { return 8.0 * static_cast<double>(s) * static_cast<double>(s); },
                                             gr::streams_from_environment());
    std::mutex tally;
    std::int64_t splits = 0, fallbacks = 0;
    int first_rc = SR_CUDA_OK;
    sr_cuda_status first{};
    auto rank_one = [&](std::int64_t q) {
        sr_cuda_status one{};
        int rc = SR_CUDA_OK;
        try {
            rc = rank_of(q, &ranks[q], &one);
        } catch (const std::exception& e) {
            rc = fail(&one, SR_CUDA_ERROR, e.what());
        }
        const std::lock_guard<std::mutex> lock(tally);
        if (rc != SR_CUDA_OK) {
            if (first_rc == SR_CUDA_OK) first_rc = rc, first = one;
            return false;
        }
        splits += one.leaf_splits;
        fallbacks += one.leaf_fallbacks;
        return true;
    };
    for (std::int64_t q : plan.one_at_a_time())
        if (!rank_one(q)) break;
    int used = plan.streams == 1 ? 1 : 0;
    if (first_rc == SR_CUDA_OK && plan.streams > 1) {
        std::atomic<std::size_t> next{0};
        std::atomic<bool> stop{false};
        auto worker = [&] {
            for (std::size_t i; !stop && (i = next++) < plan.shared.size();)
                if (!rank_one(plan.shared[i])) stop = true;
        };
        std::vector<std::thread> pool;
        try {
            for (int w = 1; w < plan.streams; ++w) pool.emplace_back(worker);
        } catch (...) {  // fewer threads: the ones made take the rest
        }
        used = static_cast<int>(pool.size()) + 1;
        worker();
        for (std::thread& t : pool) t.join();
    }
    if (first_rc != SR_CUDA_OK) {
        if (st) *st = first;
        return first_rc;
    }
    ok(st);
    if (st) {
        st->gpu_seconds = std::max(1e-9, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        st->leaf_splits = splits;
        st->leaf_fallbacks = fallbacks;
        st->streams = plan.shared.empty() && plan.alone.empty() ? 0 : used;
    }
    return SR_CUDA_OK;
}

}  // namespace

// As cuda/graded.cu: the same checks, then the blocks side by side.
SR_EXPORT int sr_cuda_graded_ranks(sr_graded* g, const int64_t* blocks, int64_t count, int64_t* ranks, sr_cuda_status* st) {
    if (g == nullptr || count < 0 || (count > 0 && (blocks == nullptr || ranks == nullptr)))
        return fail(st, SR_CUDA_INVALID, "emulated graded ranks: bad arguments");
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_ranks");
    std::vector<std::int64_t> sides(static_cast<std::size_t>(count));
    for (std::int64_t q = 0; q < count; ++q) {
        if (blocks[q] < 0 || blocks[q] >= g->nd) {
            const std::string msg = "sr_cuda_graded_ranks: blocks[" + std::to_string(q) + "] = " + std::to_string(blocks[q]) + ": expected 0 to " +
                                    std::to_string(g->nd - 1);
            return fail(st, SR_CUDA_INVALID, msg.c_str());
        }
        sides[static_cast<std::size_t>(q)] = g->sides.side[static_cast<std::size_t>(blocks[q])];
    }
    return emulated_side_by_side(count, sides, ranks, st, [&](std::int64_t q, std::int64_t* r, sr_cuda_status* one) {
        return sr_cuda_graded_rank(g, blocks[q], r, one);
    });
}

// As cuda/rank.cu: every argument and entry checked first, then the matrices side by side.
SR_EXPORT int sr_cuda_rank_many(const uint64_t* const* mats, const int64_t* rows, const int64_t* cols, int64_t count, uint64_t p, int64_t* ranks,
                                sr_cuda_status* st) {
    if (count < 0 || (count > 0 && (mats == nullptr || rows == nullptr || cols == nullptr || ranks == nullptr)))
        return fail(st, SR_CUDA_INVALID, "emulated rank_many: bad arguments");
    if (!seprank::blocked::accepted_rank_prime(p)) return fail(st, SR_CUDA_INVALID, "emulated rank_many: prime not taken");
    std::vector<std::int64_t> sides(static_cast<std::size_t>(count));
    for (std::int64_t q = 0; q < count; ++q) {
        if (rows[q] < 0 || cols[q] < 0 || (rows[q] > 0 && cols[q] > 0 && mats[q] == nullptr))
            return fail(st, SR_CUDA_INVALID, "emulated rank_many: a bad shape or a NULL matrix");
        for (std::int64_t e = 0; e < rows[q] * cols[q]; ++e)
            if (mats[q][e] >= p) {
                const std::string msg = "sr_cuda_rank_many: matrix " + std::to_string(q) + ": entry " + std::to_string(e) + " is " +
                                        std::to_string(mats[q][e]) + ", not a residue mod " + std::to_string(p);
                return fail(st, SR_CUDA_INVALID, msg.c_str());
            }
        sides[static_cast<std::size_t>(q)] = rows[q] == 0 || cols[q] == 0 ? 0 : std::max(rows[q], cols[q]);
    }
    return emulated_side_by_side(count, sides, ranks, st, [&](std::int64_t q, std::int64_t* r, sr_cuda_status* one) {
        return sr_cuda_rank(mats[q], rows[q], cols[q], p, 0, r, one);
    });
}

SR_EXPORT int sr_cuda_graded_block(const sr_graded* g, int64_t c, uint64_t* out, sr_cuda_status* st) {
    if (g == nullptr || c < 0 || c >= g->nd) return fail(st, SR_CUDA_INVALID, "emulated graded block: bad arguments");
    if (g->broken) return refuse_broken(st, "sr_cuda_graded_block");
    std::copy(g->blocks[static_cast<std::size_t>(c)].begin(), g->blocks[static_cast<std::size_t>(c)].end(), out);
    return ok(st);
}

SR_EXPORT void sr_cuda_graded_close(sr_graded* g) { delete g; }
