// seprank — the graded evaluation: degree blocks, their caps, and the steps that grow them in
// memory or in device memory (the block store's backend: evaluation_store.cpp; docs/evaluation.md).
#include "evaluation_internal.hpp"

#include "graded_device.hpp"
#include "graded_impl.hpp"
#include "hint_counts.hpp"
#include "algebra/rank_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/model.hpp"
#include "seprank/prime.hpp"

#include <algorithm>
#include <limits>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <string>

namespace seprank {

using namespace evaluation_detail;

std::vector<long> degree_block_caps(const NetworkSpec& s, const ValidPartition& part, double max_work) {
    return Model(s).degree_block_caps(part, max_work);
}

long flattening_cap(const NetworkSpec& s, const ValidPartition& part, double max_work) {
    return Model(s).flattening_cap(part, max_work);
}

DegreeBlockSides degree_block_sides(const NetworkSpec& s, const ValidPartition& part, double max_work) {
    return Model(s).degree_block_sides(part, max_work);
}

namespace {

Graded graded_setup(const Network& net, const ValidPartition& part, const EvaluationOptions& opt, Setup& st) {
    const NetworkSpec& s = net.spec;
    if (!is_homogeneous(s)) throw invalid_input("graded evaluation needs a homogeneous network: a residual connection mixes degrees");
    const Integer dz = output_degree(s);
    if (!fmpz_fits_si(dz.get()) || fmpz_get_si(dz.get()) > opt.max_graded_degree)
        throw invalid_input("graded evaluation: degree d^L = " + dz.str() + " exceeds the limit " + std::to_string(opt.max_graded_degree));
    Graded g;
    g.D = fmpz_get_si(dz.get());
    st = setup(net, opt);
    g.p = st.p;
    g.dev = st.dev;
    const long D = g.D;
    const std::uint64_t p = g.p;
    if (static_cast<std::uint64_t>(D) + 1 >= p)
        throw invalid_input("graded evaluation: modulus p = " + std::to_string(p) + " must exceed d^L + 1 = " + std::to_string(D + 1));
    require_prime(p);
    g.per = st.per;
    g.nA = static_cast<long>(part->A.size()) * st.per;

    // Token symmetry (docs/evaluation.md): f's degree in token k is r_k modulo m for every
    // monomial (Model::token_residues, token_modulus), so its degree a in the A-variables
    // is ρ = Σ_{k∈A} r_k modulo m, and every block f_a with a ≢ ρ vanishes identically.
    // m = 2 is the token-sign parity of attention; m = 1: no reduction.
    const Model model(s);  // the symmetry here, the caps below
    // Degree floors (the same page): token k's degree is at least floor_k, so f_a vanishes
    // for a below the A-tokens' floors and above D less the B-tokens'.
    long lo = 0, hi = D;
    if (opt.parity) {
        g.modulus = model.token_modulus();
        for (long k : part->A) g.rho += model.token_residues()[static_cast<std::size_t>(k - 1)];
        if (g.modulus > 1) g.rho %= g.modulus;
        for (long k : part->A) lo += model.token_floors()[static_cast<std::size_t>(k - 1)];
        for (long k : part->B) hi -= model.token_floors()[static_cast<std::size_t>(k - 1)];
    }
    // f(t·a, b) = Σ_c t^{live[c]} f_{live[c]}(a, b): values at t_j = j+1 are V·coefficients
    // with V[j][c] = t_j^{live[c]} (the live degrees an arithmetic progression a₀, a₀ + m, …:
    // t_j^{a₀} times a Vandermonde matrix in the t_j^m, invertible for m ≤ 2 as p > D + 1,
    // and for m ≥ 3 unless the ratio of two nodes is an m-th root of unity mod p, a chance
    // below nd²·m/p: then every degree is interpolated, as without the symmetry and the
    // floors, whose Vandermonde matrix is invertible). W = (V⁻¹)ᵀ: coefficients (row) =
    // values (row)·W.
    for (int attempt = 0;; ++attempt) {
        g.live.clear();
        const auto allowed = [&](long a) { return g.modulus == 1 || (g.modulus == 0 ? a == g.rho : a % g.modulus == g.rho); };
        long by_symmetry = 0;  // the live degrees without the floors
        for (long a = 0; a <= D; ++a) {
            if (!allowed(a)) continue;
            ++by_symmetry;
            if (a >= lo && a <= hi) g.live.push_back(a);
        }
        // The floors recorded (note, store signature, variant) only where they remove a
        // degree the symmetry leaves: attention with s = 1 (floor 1, odd degrees) is as before.
        const bool floors_cut = static_cast<long>(g.live.size()) < by_symmetry;
        g.lo = floors_cut ? lo : 0;
        g.hi = floors_cut ? hi : D;
        g.nd = static_cast<long>(g.live.size());  // evaluation nodes t = 1..nd
        const long nd = g.nd;
        g.w = NmodMat(nd, nd, p);
        NmodMat v(nd, nd, p);
        nmod_t mod;
        nmod_init(&mod, p);
        for (long j = 0; j < nd; ++j)
            for (long c = 0; c < nd; ++c)
                nmod_mat_entry(v.get(), j, c) = n_powmod2_ui_preinv(static_cast<std::uint64_t>(j + 1), static_cast<std::uint64_t>(g.live[static_cast<std::size_t>(c)]), mod.n, mod.ninv);
        NmodMat inv(nd, nd, p);
        if (nmod_mat_inv(inv.get(), v.get())) {
            nmod_mat_transpose(g.w.get(), inv.get());
            break;
        }
        if (attempt > 0 || g.modulus == 1) throw resource_limit("graded evaluation: Vandermonde matrix singular mod p");
        g.modulus = 1;  // the blocks the symmetry zeroes keep cap 0 (done at once); only the nodes change
        g.rho = 0;
        lo = 0;
        hi = D;
    }
    g.caps = model.degree_block_caps(part, HUGE_VAL, opt.parity);  // homogeneous: D + 1 caps
    if (static_cast<long>(opt.block_hints.size()) > D + 1)
        throw invalid_input("block hints: " + std::to_string(opt.block_hints.size()) + " entries for a network of " + std::to_string(D + 1) +
                            " degree blocks (a = 0.." + std::to_string(D) + ")");
    return g;
}

// The growth schedule both graded paths follow: the next side k, or nothing (stop).
// max_side bounds the side of the whole block-diagonal matrix, Σ block sides, as it
// bounds the one matrix of the plain variant: the first step shrinks to fit, a later step
// that would pass it stops the growth (not converged) or, with block hints, shrinks to
// the largest side above the last step's that fits (k is then below every target the
// caller asked for, and the caller ranks every open block there). Returns K, the largest
// open side (0: stop). Cost O(blocks · log k).
long step_side(std::vector<Block>& blocks, long& k, long old, const EvaluationOptions& opt) {
    auto total_side = [&](long kk) {
        long t = 0;
        for (const auto& b : blocks) t += b.done ? b.side : std::min(kk, b.cap);
        return t;
    };
    if (total_side(k) > opt.max_side) {
        // Without hints a later step that does not fit ends the growth (as it always did);
        // with hints the jump to the next target may pass max_side where the common growth
        // would not: the step then shrinks to the largest side above the last that fits.
        if (old > 0 && opt.block_hints.empty()) return 0;
        long lo = old, hi = k;  // total_side(lo) fits (or lo = 0), total_side(hi) does not
        while (hi - lo > 1) {
            const long mid = lo + (hi - lo) / 2;
            (total_side(mid) <= opt.max_side ? lo : hi) = mid;
        }
        if (lo <= old) return 0;
        k = lo;
    }
    long K = 0;
    for (const auto& b : blocks)
        if (!b.done) K = std::max(K, std::min(k, b.cap));
    return K;
}

// The first side at which a block with hint h (an expected rank) is ranked: h + 8 + h/128,
// a margin that a law a few short of the rank (docs/conjectures.md) still clears. O(1).
long hinted_side(long h) {  // h + 8 + h/128, saturating at LONG_MAX (a hint near it overflowed to a negative side)
    const long most = std::numeric_limits<long>::max();
    return h > (most - 8) / 129 * 128 ? most : h + 8 + h / 128;
}

// The next step's side: the smallest target of an open block, raised to take in the
// targets within 1/16 above it (so that close hints share a step); 0 when no block is open.
long next_step(const std::vector<Block>& blocks) {
    long lo = 0;
    for (const auto& b : blocks)
        if (!b.done) lo = lo == 0 ? b.target : std::min(lo, b.target);
    long k = lo;
    const long reach = lo > std::numeric_limits<long>::max() - lo / 16 ? std::numeric_limits<long>::max() : lo + lo / 16;  // no overflow
    for (const auto& b : blocks)
        if (!b.done && b.target <= reach) k = std::max(k, b.target);
    return k;
}

// After the ranks of a step: a block is final when its rank reached its cap (certain) or
// stayed below its side. Every block ranked adds its minor size min(rank + 1, side) to
// `minor_sum`, which the failure bound multiplies by D/p: a block at its cap too (its
// side), since whether it reached the cap was itself a draw that could have fallen short.
void settle(std::vector<Block*>& open, double& minor_sum, std::uint64_t p) {
    for (Block* b : open) {
        minor_sum += static_cast<double>(std::min(b->rank + 1, b->side));
        b->ranked_at = b->side;
        ++b->times;
        if (b->rank == b->cap) {
            b->done = true;  // the most it can be: certain
        } else {
            b->done = b->rank < b->side;
        }
        if (b->done) b->m = NmodMat(0, 0, p);  // its rank is final: free the storage
    }
}

// ", N of them …" for the blocks the token symmetry and the degree floors leave (nothing
// without either).
std::string symmetry_note(const Graded& g) {
    const std::string n = ", " + std::to_string(g.nd) + " of them ";
    const std::string floors = g.lo > 0 || g.hi < g.D ? "between degrees " + std::to_string(g.lo) + " and " + std::to_string(g.hi) +
                                                              " in side A (the others vanish below the output token's degree floor)"
                                                        : "";
    std::string sym;
    if (g.modulus == 2) sym = "of parity " + std::to_string(g.rho) + " (the others vanish by token-sign symmetry)";
    else if (g.modulus == 0) sym = "of degree " + std::to_string(g.rho) + " in side A (the others vanish: each token's degree is fixed)";
    else if (g.modulus != 1)
        sym = "of degree " + std::to_string(g.rho) + " mod " + std::to_string(g.modulus) +
              " (the others vanish by token symmetry: scaling one token by a root of unity of order " + std::to_string(g.modulus) + ")";
    if (sym.empty() && floors.empty()) return "";
    return n + (sym.empty() ? floors : floors.empty() ? sym : sym + ", " + floors);
}

void graded_summary(RankAnswer& res, const std::vector<Block>& blocks, const Graded& g, const std::string& how) {
    long max_block_side = 0;
    for (const auto& b : blocks) {
        res.value += b.rank;
        res.rows += b.side;
        max_block_side = std::max(max_block_side, b.side);
        res.block_ranks.push_back(b.rank);
    }
    res.cols = res.rows;
    res.note = how + "graded: sep = sum of the ranks of the " +
               std::to_string(blocks.size()) + " degree blocks (largest side " + std::to_string(max_block_side) + ")" +
               symmetry_note(g) + "; " +
               res.note + (g.dev.note.empty() ? "" : g.dev.note + "; ");
}

// The blocks before the first step; each open one's first target is its hinted side
// (opt.block_hints) or the first side of the common growth.
std::vector<Block> initial_blocks(const Graded& g, const EvaluationOptions& opt) {
    std::vector<Block> blocks(static_cast<std::size_t>(g.D + 1));
    for (long a = 0; a <= g.D; ++a) {
        Block& b = blocks[static_cast<std::size_t>(a)];
        b.cap = g.caps[static_cast<std::size_t>(a)];
        b.done = b.cap == 0;  // with the symmetry, every a ≢ ρ lands here: no monomial of that degree is allowed
        b.m = NmodMat(0, 0, g.p);
        const long h = a < static_cast<long>(opt.block_hints.size()) ? opt.block_hints[static_cast<std::size_t>(a)] : -1;
        b.target = h >= 0 ? std::min(hinted_side(std::min(h, opt.max_side)), opt.max_side) : first_side(opt);
    }
    return blocks;
}

// How many blocks had a hint, how many of them were final at the first side they were
// ranked at, and how many have a final rank equal to, above or below the hint
// (res.hinted_blocks, hinted_final, hinted_equal, hinted_above, hinted_below; the rest are
// not final); the note's words on them ("" without any). A hint only orders the work: the
// ranks are the evaluation's own, labelled as without hints.
std::string hints_note(const std::vector<Block>& blocks, const EvaluationOptions& opt, RankAnswer& res) {
    for (std::size_t a = 0; a < blocks.size() && a < opt.block_hints.size(); ++a) {
        res.hinted_absent += blocks[a].cap == 0 && opt.block_hints[a] > 0;  // 0 agrees (an answer's block_ranks given back)
        if (blocks[a].cap > 0 && opt.block_hints[a] >= 0) {
            const long h = opt.block_hints[a], r = blocks[a].rank;
            ++res.hinted_blocks;
            res.hinted_over_cap += h > blocks[a].cap;
            res.hinted_final += blocks[a].done && blocks[a].times == 1;
            res.hinted_equal += blocks[a].done && r == h;
            res.hinted_above += blocks[a].done && r > h;
            res.hinted_below += blocks[a].done && r < h;
        }
    }
    if (res.hinted_blocks == 0 && res.hinted_absent == 0) return "";
    if (res.hinted_blocks == 0) return "block hints: no block of this network given one; " + detail::hint_absent_text(res) + "; ";
    return "block hints for " + std::to_string(res.hinted_blocks) + " blocks: " + detail::hint_outcomes_text(res) + "; " +
           std::to_string(res.hinted_final) + " final at the first side ranked (a hint only orders the work: every rank is the evaluation's own); ";
}

// Where the graded steps keep entries and ranks: in memory (the reference) — every open
// block's matrix grows in place, the new pairs are evaluated by row over threads, the open
// blocks are ranked over threads (bordered: each block's new rows and columns only, its
// matrix holding the LU of the last step's side).
class MemoryBackend {
public:
    MemoryBackend(const Graded& g, const PointEvaluator& f, const Partition& part, const SidePoints& ra, const SidePoints& rb,
                  std::vector<Block>& blocks, int threads, bool bordered)
        : g_(g), f_(f), part_(part), ra_(ra), rb_(rb), blocks_(blocks), nt_(threads), bordered_(bordered) {}

    // The open blocks' sides are already set to this step's; the pairs in [0, old)² are in them.
    // Returns whether the step was taken: false when its matrices would pass the memory
    // limit (memory_stop; nothing changed, the last step stands).
    bool evaluate(long K, long old) {
        if (old > 0) {  // the grown blocks must fit beside the ones held
            double held = 0, need = 0;
            for (const auto& b : blocks_) {
                const double had = static_cast<double>(nmod_mat_nrows(b.m.get()));
                held += 8.0 * had * had;
                if (!b.done && b.side > had) need += 8.0 * static_cast<double>(b.side) * static_cast<double>(b.side + 1);
            }
            stop_ = memory_stop(K, held, need, "block side");
            if (!stop_.empty()) return false;  // graded_steps reads stop()
        }
        for (auto& b : blocks_) {
            const long had = nmod_mat_nrows(b.m.get());
            if (b.done || b.side == had) continue;
            NmodMat grown(b.side, b.side, g_.p);
            for (long i = 0; i < had; ++i)
                for (long j = 0; j < had; ++j) nmod_mat_entry(grown.get(), i, j) = nmod_mat_entry(b.m.get(), i, j);
            b.m = std::move(grown);
        }
        parallel(nt_, [&](int tid) {
            RowEvaluator row(g_, f_, part_);
            for (long i = tid; i < K && !cancel_requested(); i += nt_) {
                const long j0 = i < old ? old : 0;
                if (j0 >= K) continue;
                row.run(ra_[i], rb_, j0, K, [&](long c, long j, std::uint64_t v) {
                    Block& b = blocks_[static_cast<std::size_t>(g_.live[static_cast<std::size_t>(c)])];
                    if (!b.done && i < b.side && j < b.side) nmod_mat_entry(b.m.get(), i, j) = v;
                });
            }
        });
        return true;
    }
    // On the GPU all in one call, side by side there (rank_modular_cuda_many; never
    // bordered there, use_bordered); on the CPU on the threads, largest first.
    void rank(const std::vector<Block*>& open, bool /*last: the store's concern*/ = false) {
        if (g_.dev.device == Device::cuda) {
            if (cancel_requested() || open.empty()) return;
            std::vector<const NmodMat*> mats;
            for (const Block* b : open) mats.push_back(&b->m);
            double s = 0;
            const std::vector<long> r = rank_modular_cuda_many(mats, &s);
            for (std::size_t q = 0; q < open.size(); ++q) open[q]->rank = r[q];
            device_s_ += s;
            return;
        }
        std::atomic<std::size_t> next{0};
        parallel(nt_, [&](int) {
            for (std::size_t q; !cancel_requested() && (q = next++) < open.size();)
                open[q]->rank = bordered_ ? open[q]->lu.rank(open[q]->m) : rank_modular(open[q]->m);
        });
    }
    std::string note() const {
        return g_.dev.device == Device::cuda ? "eliminations on the GPU (" + detail::device_time(device_s_) + "); " : "";
    }
    std::string stop() const { return stop_; }  // why evaluate() returned false

private:
    const Graded& g_;
    const PointEvaluator& f_;
    const Partition& part_;
    const SidePoints &ra_, &rb_;
    std::vector<Block>& blocks_;
    int nt_;
    bool bordered_;
    std::string stop_;      // memory_stop's note when the growth stopped for lack of memory
    double device_s_ = 0;   // the GPU's eliminations
};

// The graded steps with the degree blocks in device memory (graded_device.hpp): the GPU
// path without a block store. A step sends the points of rows and columns [0, K) and the
// blocks' sides; the device evaluates the new pairs, splits them by degree into the blocks
// and ranks them there, so only points go up and only ranks come back. Block::m stays
// empty. When the device's memory cannot hold a step, the growth stops at the last one.
class DeviceBackend {
public:
    DeviceBackend(const Graded& g, const Tape& tape, const Partition& part, const SidePoints& ra, const SidePoints& rb,
                  std::vector<Block>& blocks)
        : g_(g), ra_(ra), rb_(rb), blocks_(blocks), wa_(part.A.size() * static_cast<std::size_t>(g.per)),
          wb_(part.B.size() * static_cast<std::size_t>(g.per)), session_(tape, g.w, grid_source(part, g.per, tape.inputs()), wa_, wb_) {}

    // A first step that does not fit is resource_limit: nothing was computed, so there is
    // no last step to stand at (a rank of 0 with converged = false would be no answer).
    bool evaluate(long K, long old) {
        std::vector<std::uint64_t> a(static_cast<std::size_t>(K) * wa_), b(static_cast<std::size_t>(K) * wb_);
        for (long i = 0; i < K; ++i) {
            std::copy_n(ra_[i].data(), wa_, a.data() + static_cast<std::size_t>(i) * wa_);
            std::copy_n(rb_[i].data(), wb_, b.data() + static_cast<std::size_t>(i) * wb_);
        }
        std::vector<long> side(static_cast<std::size_t>(g_.nd));
        for (long c = 0; c < g_.nd; ++c) {
            const Block& blk = blocks_[static_cast<std::size_t>(g_.live[static_cast<std::size_t>(c)])];
            side[static_cast<std::size_t>(c)] = blk.done ? 0 : blk.side;
        }
        std::string why;
        if (!session_.step(a, b, K, side, why)) {
            // `why` is the plugin's: the device's memory, or (rarely) the host's for a step's buffers.
            if (old == 0) throw resource_limit("graded evaluation: the first step, side " + std::to_string(K) + ", does not fit in memory (" + why + ")");
            stop_ = "growth stopped before block side " + std::to_string(K) + " for lack of memory (" + why + ")";
            return false;
        }
        peak_ = std::max(peak_, session_.device_bytes());
        return true;
    }

    // All open blocks in one call, side by side there (GradedSession::ranks: the large ones
    // alone, the small ones on several streams; each rank takes a copy of its block).
    void rank(const std::vector<Block*>& open, bool /*last: the store's concern*/ = false) {
        if (cancel_requested() || open.empty()) return;
        std::vector<long> which;
        for (const Block* b : open) {
            const long a = static_cast<long>(b - blocks_.data());
            which.push_back(static_cast<long>(std::lower_bound(g_.live.begin(), g_.live.end(), a) - g_.live.begin()));
        }
        const std::vector<long> r = session_.ranks(which);
        for (std::size_t q = 0; q < open.size(); ++q) open[q]->rank = r[q];
        streams_ = std::max(streams_, session_.streams());
    }

    std::string note() const {
        char s[200];
        std::snprintf(s, sizeof s, "degree blocks kept in device memory (at most %.4g MiB there; %.3g s of device time; up to %d ranked at once); ",
                      peak_ / (1024.0 * 1024.0), session_.gpu_seconds(), std::max(1, streams_));
        return s;
    }
    std::string stop() const { return stop_; }  // why evaluate() returned false

private:
    const Graded& g_;
    const SidePoints &ra_, &rb_;
    std::vector<Block>& blocks_;
    std::size_t wa_, wb_;
    detail::GradedSession session_;
    double peak_ = 0;
    int streams_ = 0;  // the most blocks ranked at once in a step
    std::string stop_;
};

// The block hints' part of the store's signature ("" without any: the signature of a run
// without hints is as before). The hints fix the steps' sides, hence the tiles' layout.
std::string hints_signature(const EvaluationOptions& opt) {
    if (opt.block_hints.empty()) return "";
    std::string text;
    for (long h : opt.block_hints) text += std::to_string(h) + ",";
    return "; hints " + detail::fnv1a_hex(text);
}

// The store's signature: everything that fixes the points, entries and ranks.
std::string store_signature(const Network& net, const ValidPartition& part, const EvaluationOptions& opt, const Graded& g) {
    char grow[32];
    std::snprintf(grow, sizeof grow, "%.17g", opt.growth);
    return "seprank graded evaluation 2; weights " + detail::fnv1a_hex(network_to_json(net, -1)) + "; partition " + to_string(part) +
           "; seed " + std::to_string(opt.seed) + "; prime " + std::to_string(g.p) + (opt.prime != 0 ? " given" : " drawn") +
           "; start " + std::to_string(first_side(opt)) + "; max_side " + std::to_string(opt.max_side) + "; growth " + grow + "; parity " +
           (g.modulus == 1 ? "0" : g.modulus == 2 ? "1" : "mod " + std::to_string(g.modulus)) +
           (g.lo > 0 || g.hi < g.D ? "; degrees " + std::to_string(g.lo) + ".." + std::to_string(g.hi) : "") + hints_signature(opt);
}

// The graded steps' time budget (EvaluationOptions::max_seconds). A step is taken only when
// the time so far, the step's predicted time and that of ranking afterwards the open blocks
// it leaves unranked (block hints wait for their sides: a run that stops ranks them at
// their last side) fit the budget. The prediction uses the rates the last steps measured,
// seconds per evaluated pair and seconds per side³ of the blocks ranked, so a step that
// ranks a few large blocks is not predicted from one that ranked many small ones (or the
// reverse). The first step always runs.
class GradedBudget {
public:
    explicit GradedBudget(double max_seconds) : max_(max_seconds), start_(std::chrono::steady_clock::now()) {}
    void evaluated(double seconds, double pairs) {
        if (pairs > 0) eval_rate_ = seconds / pairs;
    }
    void ranked(double seconds, double work) {
        if (work > 0) rank_rate_ = seconds / work;
    }
    // Whether `pairs` more evaluations and ranks of `work` (Σ side³) fit what is left.
    bool fits(double pairs, double work) const { return max_ <= 0 || since(start_) + eval_rate_ * pairs + rank_rate_ * work <= max_; }

private:
    double max_;
    std::chrono::steady_clock::time_point start_;
    double eval_rate_ = 0, rank_rate_ = 0;
};

// Σ side³ of blocks (the work of ranking them, up to a constant).
double rank_work(const std::vector<Block*>& which) {
    double w = 0;
    for (const Block* b : which) w += static_cast<double>(b->side) * static_cast<double>(b->side) * static_cast<double>(b->side);
    return w;
}

// The steps of the graded variant, wherever `be` keeps the entries: grow k, evaluate the
// new pairs of [0, K)² into the open blocks, rank the open blocks (largest first), settle
// them; stop when all are final or at the size limit.
template <class Backend>
RankAnswer graded_steps(const Graded& g, const EvaluationOptions& opt, std::vector<Block>& blocks, SidePoints& ra, SidePoints& rb,
                        Rng& rng, Backend& be, const std::string& how) {
    RankAnswer res;
    res.converged = false;  // until the rank stops growing
    res.prime = g.p;
    res.variant = g.modulus != 1 || g.lo > 0 || g.hi < g.D ? "graded-parity" : "graded";
    res.device = g.dev.name;
    double bound = 0;
    long old = 0;  // every pair in [0, old)² has been evaluated into each open block
    GradedBudget budget(opt.max_seconds);
    // Ranks the blocks in `which` (largest first) and settles them; whether every block is final.
    auto rank_some = [&](std::vector<Block*> which, long side, long last_rank, long last_side, bool last = false) {
        const auto t0 = std::chrono::steady_clock::now();
        std::sort(which.begin(), which.end(), [](const Block* x, const Block* y) { return x->side > y->side; });
        report_step(side, opt.max_side, "ranking " + std::to_string(which.size()) + (which.size() == 1 ? " block" : " blocks"), last_rank,
                    last_side);
        be.rank(which, last);
        res.phases.rank += since(t0);
        budget.ranked(since(t0), rank_work(which));
        settle(which, res.minor_sum, g.p);
        bound = res.minor_sum * static_cast<double>(g.D) / static_cast<double>(g.p);
        return std::all_of(blocks.begin(), blocks.end(), [](const Block& b) { return b.done; });
    };
    // Each open block is ranked when the step reaches its target (or its cap): without block
    // hints every target is the common side, first_side and then next_side of it, so every
    // open block is ranked at every step; a hinted block waits for its hinted side.
    for (long k = next_step(blocks); k > 0;) {
        const long asked = k;
        const long K = step_side(blocks, k, old, opt);
        if (K == 0) break;
        ra.extend(rng, g.p, K);
        rb.extend(rng, g.p, K);
        std::vector<long> before(blocks.size());
        for (std::size_t a = 0; a < blocks.size(); ++a) before[a] = blocks[a].side;
        long last_side = 0, last_rank = 0;  // the step before, over all blocks
        for (const auto& b : blocks) last_side += b.side, last_rank += b.rank;
        for (auto& b : blocks)
            if (!b.done) {
                b.side = std::min(k, b.cap);
                if (k < asked) b.target = std::min(b.target, k);  // the first step shrank to fit max_side: rank every block there
            }
        long side = 0;
        for (const auto& b : blocks) side += b.side;
        report_step(side, opt.max_side, "evaluating", last_rank, last_side);
        const auto t_eval = std::chrono::steady_clock::now();
        if (!be.evaluate(K, old)) {  // the memory cannot hold this step: the last one stands
            for (std::size_t a = 0; a < blocks.size(); ++a) blocks[a].side = before[a];
            res.stop = GrowthStop::memory;
            res.stop_detail = be.stop();
            break;
        }
        res.evaluations += (K * K - old * old) * g.nd;
        budget.evaluated(since(t_eval), static_cast<double>(K * K - old * old) * static_cast<double>(g.nd));
        old = K;
        std::vector<Block*> due;
        for (auto& b : blocks)
            if (!b.done && (b.target <= k || b.side == b.cap)) due.push_back(&b);
        if (rank_some(due, side, last_rank, last_side)) {
            res.converged = true;
            break;
        }
        for (Block* b : due)
            if (!b->done) b->target = next_side(k, opt);
        if (k == opt.max_side) break;
        const long nk = next_step(blocks);
        // The next step: its new pairs, the blocks due there, and those it would leave to be
        // ranked at the end (its side at most nk: a bound of its work).
        double due_work = 0, left_work = 0;
        for (const auto& b : blocks)
            if (!b.done) {
                const double sd = static_cast<double>(std::min(nk, b.cap));
                (b.target <= nk || sd == static_cast<double>(b.cap) ? due_work : left_work) += sd * sd * sd;
            }
        const double nkd = static_cast<double>(nk), Kd = static_cast<double>(K);
        if (!budget.fits((nkd * nkd - Kd * Kd) * static_cast<double>(g.nd), due_work + left_work)) {
            res.stop = GrowthStop::time_budget;
            break;
        }
        k = nk;
    }
    // A run that stops (size, time or memory) with hinted blocks not ranked at their last
    // side ranks them there, so each reports the rank of its largest matrix (without hints
    // every open block was ranked at the last step: nothing to do) — unless the time budget
    // stopped it and that ranking would pass the budget too: those blocks then keep the rank
    // of the last side they were ranked at (a lower bound still; the note says how many).
    std::string unranked;
    if (!res.converged && !cancel_requested()) {
        std::vector<Block*> stale;
        long side = 0, rank = 0;
        for (auto& b : blocks) {
            side += b.side, rank += b.rank;
            if (!b.done && b.side > 0 && b.ranked_at != b.side) stale.push_back(&b);
        }
        if (!stale.empty() && res.stop == GrowthStop::time_budget && !budget.fits(0, rank_work(stale))) {
            unranked = std::to_string(stale.size()) + " hinted blocks not ranked at their last side (the time budget): their ranks are those of a smaller side; ";
        } else if (!stale.empty() && rank_some(stale, side, rank, side, true)) {
            res.converged = true;
            res.stop = GrowthStop::none;
            res.stop_detail.clear();
        }
    }
    res.note = be.note() + hints_note(blocks, opt, res) + unranked;
    graded_summary(res, blocks, g, how);
    // Every block at its cap: the rank is exact, whatever the earlier steps added to the
    // bound while those blocks were still growing.
    const bool at_caps = res.converged && std::all_of(blocks.begin(), blocks.end(), [](const Block& b) { return b.rank == b.cap; });
    res.failure_bound = at_caps ? 0.0 : res.converged ? std::min(1.0, bound) : 1.0;
    return res;
}

}  // namespace

namespace evaluation_detail {

RankAnswer evaluation_rank_graded_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    Setup st{0, 0, Rng(0), DeviceChoice{}};
    const Graded g = graded_setup(net, part, opt, st);
    const PointEvaluator f(net, g.p, opt.batch, g.dev);
    std::vector<Block> blocks = initial_blocks(g, opt);
    SidePoints ra(part->A.size(), st.per), rb(part->B.size(), st.per);
    const int nt = std::max(1, opt.threads);
    const std::string how = f.describe(opt.batch);
    // The device session stores 32-bit residues: a larger prime (the two-limb GPU
    // elimination's, given with --prime) takes the host path.
    if (opt.store.empty() && f.tape() != nullptr && g.p < graded::kPrimeLimit) {
        DeviceBackend be(g, *f.tape(), part, ra, rb, blocks);
        return graded_steps(g, opt, blocks, ra, rb, st.rng, be, how);
    }
    if (opt.store.empty()) {
        MemoryBackend be(g, f, part, ra, rb, blocks, nt, use_bordered(opt, g.dev));
        return graded_steps(g, opt, blocks, ra, rb, st.rng, be, how);
    }
    StoreBackend be(g, f, part, ra, rb, blocks, nt, use_bordered(opt, g.dev), opt.store, store_signature(net, part, opt, g));
    return graded_steps(g, opt, blocks, ra, rb, st.rng, be, how);
}

}  // namespace evaluation_detail

}  // namespace seprank
