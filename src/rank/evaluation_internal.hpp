// seprank (internal) — what the sources of the evaluation ranks share: the points, the
// evaluator, a growth step's helpers, the graded variant's blocks and its block-store backend
// (evaluation.hpp; docs/evaluation.md).
#pragma once

#include "block_store.hpp"
#include "base/parallel.hpp"
#include "algebra/rank_bordered.hpp"
#include "seprank/cancel.hpp"
#include "seprank/device.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/matrix.hpp"
#include "seprank/random.hpp"
#include "seprank/tape.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seprank::evaluation_detail {

// Random points of one side: one vector of |side|·per residues per row (A) or column (B).
class SidePoints {
public:
    SidePoints(std::size_t ntok, long per) : n_(ntok * static_cast<std::size_t>(per)) {}
    void extend(Rng& rng, std::uint64_t p, long count) {
        while (static_cast<long>(pts_.size()) < count) {
            std::vector<std::uint64_t> v(n_);
            for (auto& x : v) x = rng.below(p);
            pts_.push_back(std::move(v));
        }
    }
    const std::vector<std::uint64_t>& operator[](long i) const { return pts_[static_cast<std::size_t>(i)]; }

private:
    std::size_t n_;
    std::vector<std::vector<std::uint64_t>> pts_;
};

struct Setup {
    std::uint64_t p;
    long per;
    Rng rng;
    DeviceChoice dev;
};

// A run's prime, points' random stream and device (check_options first). The partition
// was checked against net by the public entry (check_tokens). A drawn prime is drawn
// again (from the same stream) while it divides a non-zero weight's numerator or
// denominator; a given one is taken as it is.
Setup setup(const Network& net, const EvaluationOptions& opt);

// The side of the step after side k (growth, rounded up to a multiple of 8, at most max_side).
long next_side(long k, const EvaluationOptions& opt);

// Runs work(tid) on nt threads (tid = 0 on the caller).
template <class F>
void parallel(int threads, F&& work) {
    detail::run_parallel(std::max(1, threads), work);  // workers inherit the cancel scope (parallel.hpp)
}

// The grid's coordinate map (TapeGrid::source): flat coordinate (token k − 1)·per + c takes
// side A's entry k·per + c, or side B's, after side A's |A|·per (as place_flat lays points).
std::vector<std::uint32_t> grid_source(const Partition& part, long per, std::size_t width);

// Evaluates f at `count` points laid out point-major (width() residues each), batched or
// one point at a time (the reference path, which alone builds a second evaluator: the
// network is checked by batch_'s constructor, and again only then).
class PointEvaluator {
public:
    PointEvaluator(const Network& net, std::uint64_t p, bool batch, const DeviceChoice& dev) : batch_(net, p) {
        if (dev.device == Device::cuda) tape_.emplace(net, p);
        else if (!batch) scalar_.emplace(net, p);
    }
    std::size_t width() const { return batch_.width(); }
    // Whether the points go to the GPU (then the callers hand over large batches).
    bool gpu() const { return tape_.has_value(); }
    // What evaluates, for the answer's note.
    std::string describe(bool batch) const {
        if (tape_)
            return "evaluation on the GPU (a program of " + std::to_string(tape_->size()) + " instructions in " + std::to_string(tape_->slots()) +
                   " slots per point); ";
        return batch ? std::string("batched evaluation (") + ModBatchEvaluator::kernel_for(batch_.modulus()) + " kernel); "
                     : std::string("one point at a time; ");
    }
    // GPU only: f at the points of one row a (side A, scaled by t + 1 for node t < nodes)
    // against the B-side points rb[j0..j1): out[(j − j0)·nodes + t].
    void grid_row(const Partition& part, long per, const std::uint64_t* a, const SidePoints& rb, long j0, long j1, long nodes,
                  std::uint64_t* out) const {
        TapeGrid g;
        const std::size_t wa = part.A.size() * static_cast<std::size_t>(per), wb = part.B.size() * static_cast<std::size_t>(per);
        std::vector<std::uint64_t> b(static_cast<std::size_t>(j1 - j0) * wb);
        for (long j = j0; j < j1; ++j) std::copy_n(rb[j].data(), wb, b.data() + static_cast<std::size_t>(j - j0) * wb);
        g.a = a;
        g.rows = 1;
        g.width_a = wa;
        g.b = b.data();
        g.cols = static_cast<std::size_t>(j1 - j0);
        g.width_b = wb;
        g.nodes = static_cast<std::size_t>(nodes);
        g.source = grid_source(part, per, width());
        tape_->evaluate_grid_cuda(g, out);
    }
    // The recorded forward pass, on the GPU path only (else null).
    const Tape* tape() const { return tape_ ? &*tape_ : nullptr; }
    void operator()(const std::uint64_t* pts, std::size_t count, std::uint64_t* out) const {
        if (tape_) return tape_->evaluate_cuda(pts, count, out);
        if (!scalar_) return batch_.evaluate(pts, count, out);
        const NetworkSpec& s = scalar_->spec();
        const std::size_t per = static_cast<std::size_t>(input_vars_per_token(s));
        Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(per));
        for (std::size_t q = 0; q < count; ++q) {
            for (std::size_t t = 0; t < x.size(); ++t) std::copy_n(pts + q * width() + t * per, per, x[t].begin());
            out[q] = (*scalar_)(x);
        }
    }

private:
    ModBatchEvaluator batch_;
    std::optional<ModEvaluator> scalar_;  // the reference path only
    std::optional<Tape> tape_;            // the GPU path only
};

// Whether the growth steps' ranks are bordered (rank_bordered.hpp): asked for, and on the
// CPU (the GPU ranks each step from scratch on the device).
bool use_bordered(const EvaluationOptions& opt, const DeviceChoice& dev);

// Rank mod p on the device the run was given. On the GPU the elimination's device time is
// added to *gpu_seconds when given.
long rank_on(const DeviceChoice& dev, const NmodMat& m, double* gpu_seconds = nullptr);

// Writes side-A values a and side-B values b into the token slots of a flat point.
void place_flat(const Partition& part, long per, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* x);

// Seconds since t0.
double since(std::chrono::steady_clock::time_point t0);

// EvaluationOptions::max_seconds: whether the step at side `next` would end past the
// budget, predicted from the step at side k that just took `step` seconds (evaluations grow
// as the square of the side, elimination as its cube: the cube bounds both).
class StepBudget {
public:
    explicit StepBudget(double max_seconds) : max_(max_seconds), start_(std::chrono::steady_clock::now()) {}
    void step_started() { step_ = std::chrono::steady_clock::now(); }
    bool stop_before(long k, long next) const {
        if (max_ <= 0 || k <= 0) return false;
        const double ratio = static_cast<double>(next) / static_cast<double>(k);
        return since(start_) + since(step_) * ratio * ratio * ratio > max_;
    }

private:
    double max_;
    std::chrono::steady_clock::time_point start_, step_;
};

// Whether the next step's matrices (`need` bytes besides the `held` ones) fit the memory
// limit (limits.hpp); when not, and a step was done, the growth stops there as a lower
// bound, with this note, rather than losing the steps done to a refusal. The first step is
// left to the allocation's own refusal (resource_limit, exit 3: nothing was computed).
std::string memory_stop(long K, double held, double need, const char* side = "side");

// Progress of the growth (progress.hpp): phase "evaluation side", the side k of the step
// under way (no total: the growth stops when the rank does, which is not known ahead),
// what the step is doing, and the rank the last step found. The CLI meter's heartbeat
// repeats it while one step runs long. O(1) plus the observer's cost.
void report_step(long k, long max_side, const std::string& doing, long last_rank, long last_side);

// The plain variant (evaluation_growth.cpp) and the graded one (evaluation_graded.cpp), without
// the fields every answer shares (evaluation.cpp's finish).
RankAnswer evaluation_rank_plain_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt);
RankAnswer evaluation_rank_graded_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt);

// ---------------------------------------------------------------- the graded variant

// What both graded paths share: the checks, the live degrees, the interpolation matrix W
// and the block caps (docs/evaluation.md).
struct Graded {
    long D = 0, per = 0, nA = 0, nd = 0;
    std::uint64_t p = 0;
    long modulus = 1;          // token symmetry (Model::token_modulus): 1 none, 0 degrees fixed
    long rho = 0;              // the A-side degree's residue modulo `modulus` (its value when 0)
    long lo = 0, hi = 0;       // the A-side degrees the floors leave (Model::token_floors): lo..hi
                               // (0..D where they remove none the symmetry leaves)
    std::vector<long> live;    // the degrees a that can be non-zero, increasing
    std::vector<long> caps;    // cap_a for a = 0..D
    NmodMat w{0, 0, 2};        // (V⁻¹)ᵀ: coefficients (row) = values (row)·W
    DeviceChoice dev;          // where the evaluations and ranks run
};

// One row i of the graded grid: for columns j in [j0, j1), nd forward passes per pair (a
// chunk of columns at a time goes to the evaluator together), then one product with W
// per chunk turns them into f_a(a_i, b_j); put(c, j, value) receives the coefficient of
// degree live[c], chunk by chunk, j increasing within each c.
class RowEvaluator {
public:
    RowEvaluator(const Graded& g, const PointEvaluator& f, const Partition& part)
        : g_(g), f_(f), part_(part), scaled_(static_cast<std::size_t>(g.nA * g.nd)) {
        nmod_init(&mod_, g.p);
    }
    template <class Put>
    void run(const std::vector<std::uint64_t>& a, const SidePoints& rb, long j0, long j1, Put&& put) {
        const long nd = g_.nd, nA = g_.nA;
        // Columns per chunk: about 1024 forward passes (nd a column) between two polls of
        // cancel.hpp, 128 columns at most (the frontier's 14 live blocks: 73).
        const long chunk = std::clamp(1024 / std::max(1L, nd), 1L, 128L);
        const std::size_t width = f_.width();
        // On the GPU the whole row at once: only a and the B-side points go there, the nd
        // scaled points of each pair are formed on the device (Tape::evaluate_grid_cuda).
        if (f_.gpu()) {
            out_.resize(static_cast<std::size_t>((j1 - j0) * nd));
            f_.grid_row(part_, g_.per, a.data(), rb, j0, j1, nd, out_.data());
        } else {
            for (long t = 0; t < nd; ++t)
                for (long c = 0; c < nA; ++c)
                    scaled_[static_cast<std::size_t>(t * nA + c)] = nmod_mul(a[static_cast<std::size_t>(c)], static_cast<std::uint64_t>(t + 1), mod_);
        }
        for (long c0 = j0; c0 < j1; c0 += chunk) {
            if (cancel_requested()) return;  // the caller's parallel() rethrows it (cancel.hpp)
            const long c1 = std::min(j1, c0 + chunk);
            const std::size_t cnt = static_cast<std::size_t>((c1 - c0) * nd);
            const std::uint64_t* vals_at = nullptr;
            if (f_.gpu()) {
                vals_at = out_.data() + static_cast<std::size_t>((c0 - j0) * nd);
            } else {
                pts_.resize(cnt * width);
                out_.resize(cnt);
                for (long j = c0; j < c1; ++j)
                    for (long t = 0; t < nd; ++t)
                        place_flat(part_, g_.per, scaled_.data() + t * nA, rb[j].data(), pts_.data() + static_cast<std::size_t>((j - c0) * nd + t) * width);
                // 128 passes a call, polling between: one pass of a deep, wide network can
                // take milliseconds.
                for (std::size_t s0 = 0; s0 < cnt; s0 += 128) {
                    if (s0 > 0 && cancel_requested()) return;
                    f_(pts_.data() + s0 * width, std::min<std::size_t>(128, cnt - s0), out_.data() + s0);
                }
                vals_at = out_.data();
            }
            NmodMat vals(c1 - c0, nd, g_.p), coef(c1 - c0, nd, g_.p);
            for (long j = c0; j < c1; ++j)
                for (long t = 0; t < nd; ++t) nmod_mat_entry(vals.get(), j - c0, t) = vals_at[static_cast<std::size_t>((j - c0) * nd + t)];
            nmod_mat_mul(coef.get(), vals.get(), g_.w.get());
            for (long c = 0; c < nd; ++c)
                for (long j = c0; j < c1; ++j) put(c, j, nmod_mat_entry(coef.get(), j - c0, c));
        }
    }

private:
    const Graded& g_;
    const PointEvaluator& f_;
    const Partition& part_;
    nmod_t mod_;
    std::vector<std::uint64_t> scaled_, pts_, out_;
};

struct Block {
    long cap = 0, side = 0, rank = 0;
    bool done = false;
    long target = 0;     // the step side at which the block is next ranked (block hints: docs/evaluation.md)
    long ranked_at = 0;  // the side its rank was taken at (0: never ranked)
    long times = 0;      // how many times it was ranked
    NmodMat m{0, 0, 2};
    detail::BorderedLU lu;  // opt.bordered: m holds the LU of its leading part between steps
};

// The graded steps through a block store (docs/evaluation.md, "Block store"): every
// step's work is cut into units that any process sharing the store may claim: evaluation
// tiles (a range of rows of the step's new pairs, all open blocks at once; file
// e<step>_<tile>) and, once every tile of the step is there, one rank per open block
// (file r<step>_<a>). Bordered (the default on the CPU), a rank unit that finds the rank
// full and below the cap also leaves the block's LU (file l<step>_<a>), and the block's
// next rank unit (the next step's, or a later one's when block hints leave it unranked in
// between) reads it and only the later steps' sections of the block; otherwise a block's
// matrix is read back from the tiles of all steps so far (only its own sections). Once a
// step's rank units are done, the older LUs of the blocks it ranked are removed. Block
// matrices (Block::m) stay empty.
class StoreBackend {
public:
    StoreBackend(const Graded& g, const PointEvaluator& f, const Partition& part, const SidePoints& ra, const SidePoints& rb,
                 std::vector<Block>& blocks, int threads, bool bordered, const std::string& dir, const std::string& signature);

    bool evaluate(long K, long old);
    // last: the ranks a stopped run takes of the blocks block hints left unranked at their
    // last side (graded_steps); they remove no LU, since a process sharing the store that
    // did not stop may still border from one.
    void rank(const std::vector<Block*>& open, bool last = false);
    std::string note() const;
    std::string stop() const { return ""; }  // evaluate() always takes the step

private:
    struct Step {
        long K = 0, old = 0, tile_rows = 1, tiles = 0;
        std::vector<long> side;  // per degree a: the block's side at this step, 0 when closed
    };

    static std::string tile_name(std::size_t step, long t);
    static std::string lu_name(long step, std::size_t a);
    static std::size_t section(const Step& s, long t, long side);
    long rank_block(std::size_t a, long si) const;
    void put_lu(const std::string& name, const NmodMat& m, const detail::BorderedLU& lu) const;
    bool load_lu(long sp, std::size_t a, NmodMat& m, detail::BorderedLU& lu) const;
    void read_sections(std::size_t a, std::size_t from, NmodMat& m) const;
    template <class Name, class Compute>
    void work_all(long count, Name&& unit_name, Compute&& compute);
    template <class Name, class Compute>
    void work_all(long count, Name&& unit_name, Compute&& compute, int nt);

    const Graded& g_;
    const PointEvaluator& f_;
    const Partition& part_;
    const SidePoints &ra_, &rb_;
    std::vector<Block>& blocks_;
    int nt_;
    bool bordered_;
    detail::BlockStore store_;
    std::vector<Step> steps_;
    std::atomic<long> units_here_{0}, units_total_{0};
    mutable std::atomic<double> device_s_{0};  // the GPU's eliminations of the rank units this process computed
};

}  // namespace seprank::evaluation_detail
