#include "seprank/evaluation.hpp"

#include "parallel.hpp"

#include "block_store.hpp"
#include "process.hpp"
#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "families.hpp"
#include "forward_impl.hpp"
#include "graded_device.hpp"
#include "graded_impl.hpp"
#include "rank_bordered.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"
#include "seprank/tape.hpp"
#include "rank_internal.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>

namespace seprank {

std::string to_string(EvaluationVariant v) {
    switch (v) {
        case EvaluationVariant::automatic: return "auto";
        case EvaluationVariant::plain: return "plain";
        case EvaluationVariant::graded: return "graded";
    }
    throw internal_error("to_string(EvaluationVariant): unknown value " + std::to_string(static_cast<int>(v)));
}

EvaluationVariant evaluation_variant_from_string(const std::string& s) {
    if (s == "auto") return EvaluationVariant::automatic;
    if (s == "plain") return EvaluationVariant::plain;
    if (s == "graded") return EvaluationVariant::graded;
    throw invalid_input("evaluation variant '" + s + "' is not one of auto, plain, graded");
}

bool is_homogeneous(const NetworkSpec& s) {
    return detail::with_family(s.family, [&](auto fam) { return decltype(fam)::homogeneous(s); });
}

std::vector<int> token_parities(const NetworkSpec& s) {
    if (!detail::with_family(s.family, [&](auto fam) { return decltype(fam)::sign_equivariant(s); })) return {};
    std::vector<int> par(static_cast<std::size_t>(s.tokens), 0);
    par[static_cast<std::size_t>(s.position - 1)] = 1;
    return par;
}

namespace {

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

}  // namespace

void check_options(const EvaluationOptions& opt) {
    if (opt.max_side < 1) throw invalid_input("max side " + std::to_string(opt.max_side) + " must be at least 1");
    if (opt.start < 0 || opt.start > opt.max_side)
        throw invalid_input("start " + std::to_string(opt.start) + " must satisfy 1 <= start <= max side " + std::to_string(opt.max_side) +
                            " (0: min(16, max side))");
    if (!(opt.growth > 1.0) || !std::isfinite(opt.growth)) {
        char g[32];
        std::snprintf(g, sizeof g, "%g", opt.growth);
        throw invalid_input(std::string("growth ") + g + " must be a finite number above 1");
    }
    if (opt.threads < 1) throw invalid_input("threads " + std::to_string(opt.threads) + " must be at least 1");
    if (opt.max_graded_degree < 0)
        throw invalid_input("max graded degree " + std::to_string(opt.max_graded_degree) + " must be at least 0");
    if (!std::isfinite(opt.max_seconds) || opt.max_seconds < 0) {
        char s[32];
        std::snprintf(s, sizeof s, "%g", opt.max_seconds);
        throw invalid_input(std::string("max seconds ") + s + " must be a finite number >= 0 (0: no time budget)");
    }
}

long first_side(const EvaluationOptions& opt) { return opt.start > 0 ? opt.start : std::min(16L, opt.max_side); }

namespace {

// Whether p divides the numerator or the denominator of a non-zero weight of net: a prime
// that makes a given weight vanish mod p, or cannot reduce it, is no prime to rank f with.
// O(weights) word divisions.
bool prime_meets_a_weight(const Network& net, std::uint64_t p) {
    bool hit = false;
    (void)map_weights<char>(net.weights, [&](const Rational& x) {
        if (!hit && !x.is_zero())
            hit = fmpz_fdiv_ui(fmpq_numref(x.get()), p) == 0 || fmpz_fdiv_ui(fmpq_denref(x.get()), p) == 0;
        return char{0};
    });
    return hit;
}

// The partition was checked against net by the public entry (check_tokens). A drawn prime
// is drawn again (from the same stream) while it divides a non-zero weight's numerator or
// denominator; a given one is taken as it is.
Setup setup(const Network& net, const EvaluationOptions& opt) {
    check_options(opt);
    DeviceChoice dev = choose_device(opt.device);
    // A stream of its own: random_network(spec, seed) draws the weights from Rng(seed), and
    // the bounds need the prime and the points independent of them (the CLI passes one
    // --seed to both).
    Rng rng(opt.seed ^ 0x6576616c706f696eULL);
    std::uint64_t p = 0;
    if (opt.prime != 0) {
        p = check_device_prime(dev, opt.prime);
    } else {
        const unsigned bits = static_cast<unsigned>(drawn_prime_bits(dev, 62));
        do p = random_prime(rng, bits);
        while (prime_meets_a_weight(net, p));
    }
    return Setup{p, input_vars_per_token(net.spec), rng, std::move(dev)};
}

// Log-domain majorant ring (forward_impl.hpp): an element is log2 of a non-negative real,
// -inf for 0; a weight is log2 of its absolute value. Run over it at the all-ones point,
// the forward pass gives log2 of an upper bound of the sum of the absolute values of f's
// coefficients: ||g + h||_1 <= ||g||_1 + ||h||_1 and ||g·h||_1 <= ||g||_1·||h||_1 at every
// step of the straight-line program, and no family subtracts or divides.
struct LogAbsRing {
    using E = double;
    using W = double;
    static double plus(double a, double b) {
        if (a == -HUGE_VAL) return b;
        if (b == -HUGE_VAL) return a;
        const double hi = std::max(a, b), lo = std::min(a, b);
        return hi + std::log2(1.0 + std::exp2(lo - hi));
    }
    E zero() const { return -HUGE_VAL; }
    E constant(long c) const { return c == 0 ? -HUGE_VAL : std::log2(std::fabs(static_cast<double>(c))); }
    E mul(E a, E b) const { return a + b; }
    void add(E& acc, E x) const { acc = plus(acc, x); }
    void axpy(E& acc, W w, E x) const { acc = plus(acc, w + x); }
    bool is_zero(W w) const { return w == -HUGE_VAL; }
    W weight_zero() const { return -HUGE_VAL; }
    W weight_fma(W s, W a, W b) const { return plus(s, a + b); }
};

double log2_abs(const fmpz_t x) {
    if (fmpz_is_zero(x)) return -HUGE_VAL;
    slong e = 0;
    const double m = fmpz_get_d_2exp(&e, x);  // |m| in [0.5, 1)
    return std::log2(std::fabs(m)) + static_cast<double>(e);
}

}  // namespace

double log2_coefficient_bound(const Network& net) {
    check_shapes(net);
    // Λ = lcm(denominators)^{D_w}: a coefficient of f is a sum of products of at most D_w
    // weights (the weight degree, plus d^L for the embedding) times integers.
    Integer lcm(1);
    const NetWeights<double> w = map_weights<double>(net.weights, [&lcm](const Rational& x) {
        fmpz_lcm(lcm.get(), lcm.get(), fmpq_denref(x.get()));
        return x.is_zero() ? -HUGE_VAL : log2_abs(fmpq_numref(x.get())) - log2_abs(fmpq_denref(x.get()));
    });
    double dw = fmpz_get_d(weight_degree(net.spec).get());
    if (net.spec.embed_rank > 0) dw += fmpz_get_d(output_degree(net.spec).get());
    LogAbsRing ring;
    detail::Forward<LogAbsRing> f(net.spec, w, ring);
    const long per = input_vars_per_token(net.spec);
    const std::vector<std::vector<double>> ones(static_cast<std::size_t>(net.spec.tokens), std::vector<double>(static_cast<std::size_t>(per), 0.0));
    const double norm = f.output(ones);  // log2 ||f||_1 (bound); -inf when f's program is 0
    const double bits = (fmpz_is_one(lcm.get()) ? 0.0 : dw * log2_abs(lcm.get())) + std::max(0.0, norm);
    // A margin for the rounding of the log-domain sums (relative 2^-40 per step at most).
    return bits * (1.0 + 1e-6) + 1.0;
}

namespace {

long next_side(long k, const EvaluationOptions& opt) {
    if (static_cast<double>(k) * opt.growth >= static_cast<double>(opt.max_side)) return opt.max_side;  // no cast past long
    const long grown = (static_cast<long>(std::ceil(static_cast<double>(k) * opt.growth)) + 7) / 8 * 8;
    return std::min(std::max(grown, k + 1), opt.max_side);
}

// Runs work(tid) on nt threads (tid = 0 on the caller).
template <class F>
void parallel(int threads, F&& work) {
    detail::run_parallel(std::max(1, threads), work);  // workers inherit the cancel scope (parallel.hpp)
}

// count[e] for e = 0..D: the monomials of total degree e in the variables of `tokens`
// (`per` variables each) whose degree in token k has the parity parity[k−1] (any degree
// when parity is empty), saturated at LONG_MAX/4. One token: C(e+per−1, per−1) for the
// allowed e; several: the convolution of their series.
std::vector<long> monomial_counts(const std::vector<long>& tokens, long per, const std::vector<int>& parity, long D) {
    const long cap = LONG_MAX / 4;
    const std::size_t n = static_cast<std::size_t>(D + 1);
    std::vector<long> one(n, 0);  // C(e+per−1, per−1), saturated
    for (long e = 0; e <= D; ++e) {
        long c = 1;  // C(e+i, i) for i = 0..per−1
        for (long i = 1; i < per && c < cap; ++i) c = c > cap / (e + i) ? cap : c * (e + i) / i;
        one[static_cast<std::size_t>(e)] = c;
    }
    std::vector<long> acc(n, 0);
    acc[0] = 1;
    for (long k : tokens) {
        const int par = parity.empty() ? -1 : parity[static_cast<std::size_t>(k - 1)];
        std::vector<long> next(n, 0);
        for (std::size_t e = 0; e < n; ++e) {
            if (acc[e] == 0) continue;
            for (std::size_t f = 0; e + f < n; ++f) {
                if (par >= 0 && static_cast<int>(f % 2) != par) continue;
                const long x = acc[e], y = one[f];
                const long prod = x > cap / y ? cap : x * y;
                next[e + f] = std::min(cap, next[e + f] + prod);
            }
        }
        acc = std::move(next);
    }
    return acc;
}

// The grid's coordinate map (TapeGrid::source): flat coordinate (token k − 1)·per + c takes
// side A's entry k·per + c, or side B's, after side A's |A|·per (as place_flat lays points).
std::vector<std::uint32_t> grid_source(const Partition& part, long per, std::size_t width) {
    std::vector<std::uint32_t> source(width);
    const std::size_t wa = part.A.size() * static_cast<std::size_t>(per);
    for (std::size_t k = 0; k < part.A.size(); ++k)
        for (long c = 0; c < per; ++c)
            source[static_cast<std::size_t>((part.A[k] - 1) * per + c)] = static_cast<std::uint32_t>(static_cast<long>(k) * per + c);
    for (std::size_t k = 0; k < part.B.size(); ++k)
        for (long c = 0; c < per; ++c)
            source[static_cast<std::size_t>((part.B[k] - 1) * per + c)] =
                static_cast<std::uint32_t>(wa + k * static_cast<std::size_t>(per) + static_cast<std::size_t>(c));
    return source;
}

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

// Rank mod p on the device the run was given.
// Whether the growth steps' ranks are bordered (rank_bordered.hpp): asked for, and on the
// CPU (the GPU ranks each step from scratch on the device).
bool use_bordered(const EvaluationOptions& opt, const DeviceChoice& dev) { return opt.bordered && dev.device != Device::cuda; }

// On the GPU the elimination's device time is added to *gpu_seconds when given.
long rank_on(const DeviceChoice& dev, const NmodMat& m, double* gpu_seconds = nullptr) {
    if (dev.device != Device::cuda) return rank_modular(m);
    double s = 0;
    const long r = rank_modular_cuda(m, 0, &s);
    if (gpu_seconds) *gpu_seconds += s;
    return r;
}

// Writes side-A values a and side-B values b into the token slots of a flat point.
void place_flat(const Partition& part, long per, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* x) {
    for (std::size_t k = 0; k < part.A.size(); ++k) std::copy_n(a + static_cast<long>(k) * per, per, x + (part.A[k] - 1) * per);
    for (std::size_t k = 0; k < part.B.size(); ++k) std::copy_n(b + static_cast<long>(k) * per, per, x + (part.B[k] - 1) * per);
}

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

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

// Progress of the growth (progress.hpp): phase "evaluation side", the side k of the step
// under way (no total: the growth stops when the rank does, which is not known ahead),
// what the step is doing, and the rank the last step found. The CLI meter's heartbeat
// repeats it while one step runs long. O(1) plus the observer's cost.
// Whether the next step's matrices (`need` bytes besides the `held` ones) fit the memory
// limit (limits.hpp); when not, and a step was done, the growth stops there as a lower
// bound, with this note, rather than losing the steps done to a refusal. The first step is
// left to the allocation's own refusal (resource_limit, exit 3: nothing was computed).
std::string memory_stop(long K, double held, double need, const char* side = "side") {
    const double limit = default_max_memory();
    if (held + need <= limit) return "";
    return std::string("growth stopped before ") + side + " " + std::to_string(K) + " for lack of memory (its matrices about " + format_bytes(held + need) +
           ", over the limit of " + format_bytes(limit) + ": --max-memory)";
}

void report_step(long k, long max_side, const std::string& doing, long last_rank, long last_side) {
    std::string detail = "(at most " + std::to_string(max_side) + "): " + doing;
    if (last_side > 0) detail += "; rank " + std::to_string(last_rank) + " at side " + std::to_string(last_side);
    report_progress(current_progress(), "evaluation side", static_cast<std::uint64_t>(k), 0, detail);
}

}  // namespace

static RankAnswer evaluation_rank_plain_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    Setup st = setup(net, opt);
    const std::uint64_t p = st.p;
    const PointEvaluator f(net, p, opt.batch, st.dev);
    const std::size_t width = f.width();
    SidePoints ra(part->A.size(), st.per), rb(part->B.size(), st.per);
    RankAnswer res;
    res.converged = false;  // until the rank stops growing
    res.prime = p;
    res.variant = "plain";
    res.device = st.dev.name;
    const double D = fmpz_get_d(output_degree(net.spec).get());
    double bound = 0, device_s = 0;  // device_s: the GPU's eliminations
    NmodMat e(0, 0, p);
    detail::BorderedLU lu;  // opt.bordered on the CPU: e holds the LU of its leading part between steps
    const bool bordered = use_bordered(opt, st.dev);
    long old = 0;
    StepBudget budget(opt.max_seconds);
    for (long k = first_side(opt);; k = next_side(k, opt)) {
        budget.step_started();
        report_step(k, opt.max_side, "evaluating", res.value, old);
        auto t0 = std::chrono::steady_clock::now();
        if (old > 0) {
            const std::string stop = memory_stop(k, 8.0 * static_cast<double>(old) * static_cast<double>(old),
                                                 8.0 * static_cast<double>(k) * static_cast<double>(k + 1));
            if (!stop.empty()) {
                res.stop = GrowthStop::memory;
                res.stop_detail = stop;
                break;
            }
        }
        ra.extend(st.rng, p, k);
        rb.extend(st.rng, p, k);
        NmodMat next(k, k, p);
        for (long i = 0; i < old; ++i)
            for (long j = 0; j < old; ++j) nmod_mat_entry(next.get(), i, j) = nmod_mat_entry(e.get(), i, j);
        // New entries: rows >= old (all columns) and columns >= old (old rows), split over
        // threads by row; one row's new points go to the evaluator together (on the GPU as a
        // grid: the row's A-side point against the B-side points, the points formed there).
        const int nt = std::max(1, opt.threads);
        parallel(nt, [&](int tid) {
            std::vector<std::uint64_t> pts, vals;
            for (long i = tid; i < k && !cancel_requested(); i += nt) {
                const long j0 = i < old ? old : 0;
                const std::size_t cnt = static_cast<std::size_t>(k - j0);
                vals.resize(cnt);
                if (f.gpu()) {
                    f.grid_row(part, st.per, ra[i].data(), rb, j0, k, 1, vals.data());
                } else {
                    // In chunks, polling cancel.hpp between them: one pass of a deep, wide
                    // network can take milliseconds, a row thousands of them.
                    constexpr long chunk = 128;
                    pts.resize(static_cast<std::size_t>(std::min<long>(chunk, k - j0)) * width);
                    for (long c0 = j0; c0 < k; c0 += chunk) {
                        if (cancel_requested()) return;  // parallel() rethrows it on the caller
                        const long c1 = std::min(k, c0 + chunk);
                        for (long j = c0; j < c1; ++j)
                            place_flat(part, st.per, ra[i].data(), rb[j].data(), pts.data() + static_cast<std::size_t>(j - c0) * width);
                        f(pts.data(), static_cast<std::size_t>(c1 - c0), vals.data() + (c0 - j0));
                    }
                }
                for (long j = j0; j < k; ++j) nmod_mat_entry(next.get(), i, j) = vals[static_cast<std::size_t>(j - j0)];
            }
        });
        res.evaluations += k * k - old * old;
        e = std::move(next);
        old = k;
        report_step(k, opt.max_side, "ranking", res.value, res.rows);
        t0 = std::chrono::steady_clock::now();
        const long r = bordered ? lu.rank(e) : rank_on(st.dev, e, &device_s);
        const double dt = since(t0);
        res.phases.rank += dt;
        res.minor_sum += static_cast<double>(std::min(r + 1, k));
        bound = res.minor_sum * D / static_cast<double>(p);
        res.value = r;
        res.rows = res.cols = k;
        if (r < k) {
            res.converged = true;
            break;
        }
        if (k == opt.max_side) break;
        if (budget.stop_before(k, next_side(k, opt))) {
            res.stop = GrowthStop::time_budget;
            break;
        }
    }
    res.note = f.describe(opt.batch) + (opt.store.empty() ? "" : "block store not used (plain variant); ") +
               (st.dev.device == Device::cuda ? "eliminations on the GPU (" + detail::device_time(device_s) + "); " : "") +
               (st.dev.note.empty() ? "" : st.dev.note + "; ");
    res.failure_bound = res.converged ? std::min(1.0, bound) : 1.0;
    return res;
}

namespace {

// cap_a = min(#A-monomials of degree a, #B-monomials of degree D − a), a = 0..D.
std::vector<long> caps_of(const Partition& part, long per, const std::vector<int>& parity, long D) {
    const std::vector<long> count_A = monomial_counts(part.A, per, parity, D);
    const std::vector<long> count_B = monomial_counts(part.B, per, parity, D);
    std::vector<long> caps(static_cast<std::size_t>(D + 1));
    for (long a = 0; a <= D; ++a) caps[static_cast<std::size_t>(a)] = std::min(count_A[static_cast<std::size_t>(a)], count_B[static_cast<std::size_t>(D - a)]);
    return caps;
}

}  // namespace

std::vector<long> degree_block_caps(const NetworkSpec& s, const ValidPartition& part, double max_work) {
    const DegreeBlockSides sides = degree_block_sides(s, part, max_work);
    std::vector<long> caps(sides.a_side.size());
    for (std::size_t a = 0; a < caps.size(); ++a) caps[a] = std::min(sides.a_side[a], sides.b_side[a]);
    return caps;
}

DegreeBlockSides degree_block_sides(const NetworkSpec& s, const ValidPartition& part, double max_work) {
    part.check_tokens(s.tokens);
    const Integer dz = output_degree(s);
    if (!is_homogeneous(s) || !fmpz_fits_si(dz.get())) return {};
    const double d1 = static_cast<double>(fmpz_get_si(dz.get())) + 1.0;
    if (static_cast<double>(s.tokens) * d1 * d1 / 2.0 > max_work) return {};
    const long D = fmpz_get_si(dz.get()), per = input_vars_per_token(s);
    const std::vector<int> parity = token_parities(s);
    DegreeBlockSides out;
    out.a_side = monomial_counts(part->A, per, parity, D);
    const std::vector<long> count_B = monomial_counts(part->B, per, parity, D);
    out.b_side.resize(static_cast<std::size_t>(D + 1));
    for (long a = 0; a <= D; ++a) out.b_side[static_cast<std::size_t>(a)] = count_B[static_cast<std::size_t>(D - a)];
    return out;
}

namespace {

// What both graded paths share: the checks, the live degrees, the interpolation matrix W
// and the block caps (docs/evaluation.md).
struct Graded {
    long D = 0, per = 0, nA = 0, nd = 0;
    std::uint64_t p = 0;
    int pi = -1;               // parity of the A-side degree; −1: no parity reduction
    std::vector<long> live;    // the degrees a that can be non-zero, increasing
    std::vector<long> caps;    // cap_a for a = 0..D
    NmodMat w{0, 0, 2};        // (V⁻¹)ᵀ: coefficients (row) = values (row)·W
    DeviceChoice dev;          // where the evaluations and ranks run
};

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

    // Parity (docs/evaluation.md): when f is odd in the output token and even in every
    // other one, its degree a in the A-variables has the parity π of the number of
    // output tokens on side A, and every block f_a with a ≢ π vanishes identically.
    const std::vector<int> parity = opt.parity ? token_parities(s) : std::vector<int>{};
    if (!parity.empty()) {
        g.pi = 0;
        for (long k : part->A) g.pi ^= parity[static_cast<std::size_t>(k - 1)];
    }
    for (long a = 0; a <= D; ++a)
        if (g.pi < 0 || a % 2 == g.pi) g.live.push_back(a);
    g.nd = static_cast<long>(g.live.size());  // evaluation nodes t = 1..nd
    const long nd = g.nd;

    // f(t·a, b) = Σ_c t^{live[c]} f_{live[c]}(a, b): values at t_j = j+1 are V·coefficients
    // with V[j][c] = t_j^{live[c]} (with parity, t_j^π times a Vandermonde matrix in the
    // distinct t_j², invertible as p > D + 1). W = (V⁻¹)ᵀ: coefficients (row) = values (row)·W.
    g.w = NmodMat(nd, nd, p);
    {
        NmodMat v(nd, nd, p);
        nmod_t mod;
        nmod_init(&mod, p);
        for (long j = 0; j < nd; ++j)
            for (long c = 0; c < nd; ++c)
                nmod_mat_entry(v.get(), j, c) = n_powmod2_ui_preinv(static_cast<std::uint64_t>(j + 1), static_cast<std::uint64_t>(g.live[static_cast<std::size_t>(c)]), mod.n, mod.ninv);
        NmodMat inv(nd, nd, p);
        if (!nmod_mat_inv(inv.get(), v.get())) throw resource_limit("graded evaluation: Vandermonde matrix singular mod p");
        nmod_mat_transpose(g.w.get(), inv.get());
    }
    g.caps = caps_of(part, st.per, parity, D);
    return g;
}

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
    NmodMat m{0, 0, 2};
    detail::BorderedLU lu;  // opt.bordered: m holds the LU of its leading part between steps
};

// The growth schedule both graded paths follow: the next side k, or nothing (stop).
// max_side bounds the side of the whole block-diagonal matrix, Σ block sides, as it
// bounds the one matrix of the plain variant: the first step shrinks to fit, a later step
// that would pass it stops the growth (not converged). Returns K, the largest open side
// (0: stop).
long step_side(std::vector<Block>& blocks, long& k, long old, const EvaluationOptions& opt) {
    auto total_side = [&](long kk) {
        long t = 0;
        for (const auto& b : blocks) t += b.done ? b.side : std::min(kk, b.cap);
        return t;
    };
    if (total_side(k) > opt.max_side) {
        if (old > 0) return 0;
        while (k > 1 && total_side(k) > opt.max_side) --k;
        if (total_side(k) > opt.max_side) return 0;
    }
    long K = 0;
    for (const auto& b : blocks)
        if (!b.done) K = std::max(K, std::min(k, b.cap));
    return K;
}

// After the ranks of a step: a block is final when its rank reached its cap (certain) or
// stayed below its side. Every block ranked adds its minor size min(rank + 1, side) to
// `minor_sum`, which the failure bound multiplies by D/p: a block at its cap too (its
// side), since whether it reached the cap was itself a draw that could have fallen short.
// Returns whether all are final.
bool settle(std::vector<Block*>& open, double& minor_sum, std::uint64_t p) {
    bool all = true;
    for (Block* b : open) {
        minor_sum += static_cast<double>(std::min(b->rank + 1, b->side));
        if (b->rank == b->cap) {
            b->done = true;  // the most it can be: certain
        } else {
            b->done = b->rank < b->side;
        }
        if (b->done) b->m = NmodMat(0, 0, p);  // its rank is final: free the storage
        all = all && b->done;
    }
    return all;
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
               (g.pi >= 0 ? ", " + std::to_string(g.nd) + " of them of parity " + std::to_string(g.pi) + " (the others vanish by token-sign symmetry)" : "") + "; " +
               res.note + (g.dev.note.empty() ? "" : g.dev.note + "; ");
}

std::vector<Block> initial_blocks(const Graded& g) {
    std::vector<Block> blocks(static_cast<std::size_t>(g.D + 1));
    for (long a = 0; a <= g.D; ++a) {
        Block& b = blocks[static_cast<std::size_t>(a)];
        b.cap = g.caps[static_cast<std::size_t>(a)];
        b.done = b.cap == 0;  // with parity, every a ≢ π lands here: no monomial of that degree is allowed
        b.m = NmodMat(0, 0, g.p);
    }
    return blocks;
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
    // On the GPU one block at a time (each takes the device's memory), largest first.
    void rank(const std::vector<Block*>& open) {
        std::atomic<std::size_t> next{0};
        parallel(g_.dev.device == Device::cuda ? 1 : nt_, [&](int) {
            for (std::size_t q; !cancel_requested() && (q = next++) < open.size();)
                open[q]->rank = bordered_ ? open[q]->lu.rank(open[q]->m) : rank_on(g_.dev, open[q]->m, &device_s_);
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
    double device_s_ = 0;   // the GPU's eliminations (one block at a time there)
};

// The graded steps through a block store (docs/evaluation.md, "Block store"): every
// step's work is cut into units that any process sharing the store may claim: evaluation
// tiles (a range of rows of the step's new pairs, all open blocks at once; file
// e<step>_<tile>) and, once every tile of the step is there, one rank per open block
// (file r<step>_<a>). Bordered (the default on the CPU), a rank unit that finds the rank
// full and below the cap also leaves the block's LU (file l<step>_<a>), and the next
// step's unit reads it and only that step's sections of the block; otherwise a block's
// matrix is read back from the tiles of all steps so far (only its own sections). The LUs
// of two steps ago, and the last of a block that settled, are removed. Block matrices
// (Block::m) stay empty.
class StoreBackend {
public:
    StoreBackend(const Graded& g, const PointEvaluator& f, const Partition& part, const SidePoints& ra, const SidePoints& rb,
                 std::vector<Block>& blocks, int threads, bool bordered, const std::string& dir, const std::string& signature)
        : g_(g), f_(f), part_(part), ra_(ra), rb_(rb), blocks_(blocks), nt_(threads), bordered_(bordered),
          store_(dir, signature) {}

    bool evaluate(long K, long old) {
        Step s;
        s.K = K;
        s.old = old;
        s.side.assign(blocks_.size(), 0);
        for (std::size_t a = 0; a < blocks_.size(); ++a)
            if (!blocks_[a].done) s.side[a] = blocks_[a].side;
        // About 2^21 forward passes per tile (a few seconds), at least 1 row.
        s.tile_rows = std::max(1L, (1L << 21) / std::max(1L, K * g_.nd));
        s.tiles = (K + s.tile_rows - 1) / s.tile_rows;
        steps_.push_back(std::move(s));
        const long si = static_cast<long>(steps_.size()) - 1;
        const Step& cur = steps_.back();
        work_all(cur.tiles, [&](long t) { return tile_name(si, t); }, [&](long t) {
            std::vector<std::vector<std::uint64_t>> buf(blocks_.size());
            RowEvaluator row(g_, f_, part_);
            const long i0 = t * cur.tile_rows, i1 = std::min(K, i0 + cur.tile_rows);
            for (long i = i0; i < i1; ++i) {
                const long j0 = i < old ? old : 0;
                if (j0 >= K) continue;
                row.run(ra_[i], rb_, j0, K, [&](long c, long j, std::uint64_t v) {
                    const std::size_t a = static_cast<std::size_t>(g_.live[static_cast<std::size_t>(c)]);
                    if (i < cur.side[a] && j < cur.side[a]) buf[a].push_back(v);
                });
            }
            throw_if_cancelled();  // a row cut short by a cancel is no tile (nothing is stored)
            std::string bytes;
            for (std::size_t a = 0; a < blocks_.size(); ++a) {
                if (buf[a].size() != section(cur, t, cur.side[a])) throw std::logic_error("block store: tile section size");
                bytes.append(reinterpret_cast<const char*>(buf[a].data()), buf[a].size() * sizeof(std::uint64_t));
            }
            return bytes;
        });
        return true;
    }

    void rank(const std::vector<Block*>& open) {
        const long si = static_cast<long>(steps_.size()) - 1;
        auto degree = [&](long q) { return static_cast<std::size_t>(open[static_cast<std::size_t>(q)] - blocks_.data()); };
        auto rank_name = [&](long q) { return "r" + std::to_string(si) + "_" + std::to_string(degree(q)); };
        const long count = static_cast<long>(open.size());
        // Every rank unit of the last step is done, so no one needs the LUs of two steps ago.
        if (si >= 2)
            for (std::size_t a = 0; a < blocks_.size(); ++a) store_.remove(lu_name(si - 2, a));
        // On the GPU this process ranks one block at a time (each takes the device's memory).
        work_all(count, rank_name, [&](long q) { return std::to_string(rank_block(degree(q), si)) + "\n"; },
                 g_.dev.device == Device::cuda ? 1 : nt_);
        for (long q = 0; q < count; ++q) {
            Block& b = *open[static_cast<std::size_t>(q)];
            const std::string text = store_.get(rank_name(q));
            char* endp = nullptr;
            b.rank = std::strtol(text.c_str(), &endp, 10);
            if (endp == text.c_str() || b.rank < 0 || b.rank > b.side)
                throw invalid_input("block store '" + store_.dir() + "': rank unit " + rank_name(q) + " is damaged");
            // A block that settles here is never bordered again: its last LU can go.
            if (si >= 1 && (b.rank < b.side || b.rank == b.cap)) store_.remove(lu_name(si - 1, degree(q)));
        }
    }

    std::string note() const {
        return "block store " + store_.dir() + ": " + std::to_string(units_here_.load()) + " of " + std::to_string(units_total_.load()) +
               " units computed by this process (the others were already there or done by another); " +
               (g_.dev.device == Device::cuda ? "this process's eliminations on the GPU: " + detail::device_time(device_s_.load()) + "; "
                                              : std::string());
    }
    std::string stop() const { return ""; }  // evaluate() always takes the step

private:
    struct Step {
        long K = 0, old = 0, tile_rows = 1, tiles = 0;
        std::vector<long> side;  // per degree a: the block's side at this step, 0 when closed
    };

    static std::string tile_name(std::size_t step, long t) { return "e" + std::to_string(step) + "_" + std::to_string(t); }
    // The LU a bordered rank unit of block a left at step s, when its rank was full and
    // below the cap (the next step borders it): bytes k, p, the k row indices of the
    // permutation, then the packed LU's k² entries by row, each a little-endian 64-bit word
    // (this machine's order: a store is shared by processes of one kind of machine).
    static std::string lu_name(long step, std::size_t a) { return "l" + std::to_string(step) + "_" + std::to_string(a); }

    // Entries of a block of side `side` in tile t of step s: rows [t·R, …) ∩ [0, side), each
    // with the columns [j0(i), side), j0(i) = old when i < old (the new columns of an old
    // row) else 0. In a tile: blocks in increasing a, rows increasing, columns increasing.
    static std::size_t section(const Step& s, long t, long side) {
        const long i0 = t * s.tile_rows, i1 = std::min(side, std::min(s.K, i0 + s.tile_rows));
        std::size_t n = 0;
        for (long i = i0; i < i1; ++i) n += static_cast<std::size_t>(std::max(0L, side - (i < s.old ? s.old : 0)));
        return n;
    }

    // Block a's rank at step si (the current one). Bordered: from the LU its unit left at
    // step si − 1 when the store has it, only step si's sections read; else the whole block
    // from every step's sections (the first step, a store written without bordering, or
    // bordered off or on the GPU: ranked from scratch there).
    long rank_block(std::size_t a, long si) const {
        const long side = steps_.back().side[a];
        NmodMat m(side, side, g_.p);
        if (!bordered_) {
            read_sections(a, 0, m);
            double s = 0;
            const long r = rank_on(g_.dev, m, &s);
            device_s_.fetch_add(s);
            return r;
        }
        detail::BorderedLU lu;
        const bool resumed = si > 0 && load_lu(si - 1, a, m, lu);
        read_sections(a, resumed ? static_cast<std::size_t>(si) : 0, m);
        const long r = lu.rank(m);
        if (r == side && side < blocks_[a].cap) put_lu(lu_name(si, a), m, lu);
        return r;
    }

    // Writes the unit row by row (never a second copy of the matrix in memory).
    void put_lu(const std::string& name, const NmodMat& m, const detail::BorderedLU& lu) const {
        const long k = lu.factored();
        store_.put_with(name, [&](int fd) {
            const std::string path = store_.dir() + "/" + name;
            std::vector<std::uint64_t> head{static_cast<std::uint64_t>(k), g_.p};
            for (const slong i : lu.permutation()) head.push_back(static_cast<std::uint64_t>(i));
            detail::write_all(fd, head.data(), head.size() * sizeof(std::uint64_t), path);
            // Row i of the packed LU is m's row i through its row pointer (FLINT's LU permutes
            // the pointers), contiguous there.
            for (long i = 0; i < k; ++i) detail::write_all(fd, m.get()->rows[i], static_cast<std::size_t>(k) * sizeof(std::uint64_t), path);
        });
    }

    // Puts the LU of block a at step sp (when the store has it) in m's leading block and its
    // permutation in lu; false when it is not there or not of the side step sp + 1 borders.
    // Read in pieces of about 1 MiB; every word is checked (a damaged unit is refused: a zero
    // on U's diagonal would otherwise reach FLINT's division).
    bool load_lu(long sp, std::size_t a, NmodMat& m, detail::BorderedLU& lu) const {
        const std::string name = lu_name(sp, a);
        if (!store_.done(name)) return false;
        const long k = steps_[static_cast<std::size_t>(sp)].side[a];
        if (k != steps_.back().old || k >= m.rows()) return false;
        const auto damaged = [&](const std::string& why) {
            return invalid_input("block store '" + store_.dir() + "': unit " + name + " is damaged (" + why + ")");
        };
        const std::size_t ku = static_cast<std::size_t>(k);
        if (store_.size(name) != 8 * (2 + ku + ku * ku)) throw damaged("size");
        const auto words = [&](std::size_t at, std::size_t count) {
            const std::string bytes = store_.get_range(name, 8 * at, 8 * count);
            std::vector<std::uint64_t> v(count);
            std::memcpy(v.data(), bytes.data(), 8 * count);
            return v;
        };
        const std::vector<std::uint64_t> head = words(0, 2 + ku);
        if (head[0] != ku || head[1] != g_.p) throw damaged("side or prime");
        std::vector<slong> perm(ku);
        for (std::size_t i = 0; i < ku; ++i) {
            if (head[2 + i] >= ku) throw damaged("permutation");
            perm[i] = static_cast<slong>(head[2 + i]);
        }
        try {
            lu = detail::BorderedLU(std::move(perm));
        } catch (const std::logic_error&) {
            throw damaged("permutation");
        }
        const long rows_per_piece = std::max(1L, (1L << 17) / k);
        for (long i0 = 0; i0 < k; i0 += rows_per_piece) {
            const long i1 = std::min(k, i0 + rows_per_piece);
            const std::vector<std::uint64_t> v = words(2 + ku + static_cast<std::size_t>(i0) * ku, static_cast<std::size_t>(i1 - i0) * ku);
            for (long i = i0; i < i1; ++i)
                for (long j = 0; j < k; ++j) {
                    const std::uint64_t x = v[static_cast<std::size_t>(i - i0) * ku + static_cast<std::size_t>(j)];
                    if (x >= g_.p) throw damaged("an entry not reduced mod p");
                    if (i == j && x == 0) throw damaged("a zero on U's diagonal");
                    nmod_mat_entry(m.get(), i, j) = x;
                }
        }
        return true;
    }

    // Writes block a's entries from the sections of steps [from, current] into m (its
    // side: the current one).
    void read_sections(std::size_t a, std::size_t from, NmodMat& m) const {
        for (std::size_t sj = from; sj < steps_.size(); ++sj) {
            const Step& s = steps_[sj];
            for (long t = 0; t < s.tiles; ++t) {
                std::size_t offset = 0;
                for (std::size_t b = 0; b < a; ++b) offset += section(s, t, s.side[b]);
                const std::size_t n = section(s, t, s.side[a]);
                if (n == 0) continue;
                const std::string bytes = store_.get_range(tile_name(sj, t), offset * 8, n * 8);
                const auto* v = reinterpret_cast<const std::uint64_t*>(bytes.data());
                std::size_t at = 0;
                const long i0 = t * s.tile_rows, i1 = std::min(s.side[a], std::min(s.K, i0 + s.tile_rows));
                for (long i = i0; i < i1; ++i)
                    for (long j = i < s.old ? s.old : 0; j < s.side[a]; ++j) {
                        std::uint64_t x;
                        std::memcpy(&x, v + at++, sizeof x);
                        if (x >= g_.p)
                            throw invalid_input("block store '" + store_.dir() + "': unit " + tile_name(sj, t) +
                                                " holds an entry not reduced mod p (a damaged unit file)");
                        nmod_mat_entry(m.get(), i, j) = x;
                    }
            }
        }
    }

    // Runs compute(u) for every unit not yet in the store, over threads, each unit by
    // exactly one claimant among all processes; waits for units others hold.
    template <class Name, class Compute>
    void work_all(long count, Name&& unit_name, Compute&& compute) {
        work_all(count, unit_name, compute, nt_);
    }
    template <class Name, class Compute>
    void work_all(long count, Name&& unit_name, Compute&& compute, int nt) {
        units_total_ += count;
        parallel(nt, [&](int tid) {
            for (;;) {
                bool pending = false;
                for (long u0 = 0; u0 < count && !cancel_requested(); ++u0) {
                    const long u = (u0 + tid * count / nt) % count;  // threads start apart
                    const std::string name = unit_name(u);
                    if (store_.done(name)) continue;
                    auto claim = store_.claim(name);
                    if (!claim) {
                        pending = pending || !store_.done(name);
                        continue;
                    }
                    store_.put(name, compute(u));
                    ++units_here_;
                }
                throw_if_cancelled();
                if (!pending) {
                    bool all = true;
                    for (long u = 0; u < count && all; ++u) all = store_.done(unit_name(u));
                    if (all) return;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));  // another process holds a unit
            }
        });
    }

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

    // One block at a time, largest first (each rank takes a copy of its block there).
    void rank(const std::vector<Block*>& open) {
        for (Block* b : open) {
            if (cancel_requested()) return;
            const long a = static_cast<long>(b - blocks_.data());
            const long c = static_cast<long>(std::lower_bound(g_.live.begin(), g_.live.end(), a) - g_.live.begin());
            b->rank = session_.rank(c);
        }
    }

    std::string note() const {
        char s[160];
        std::snprintf(s, sizeof s, "degree blocks kept in device memory (at most %.4g MiB there; %.3g s of device time); ",
                      peak_ / (1024.0 * 1024.0), session_.gpu_seconds());
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
    std::string stop_;
};

// The store's signature: everything that fixes the points, entries and ranks.
std::string store_signature(const Network& net, const ValidPartition& part, const EvaluationOptions& opt, const Graded& g) {
    char grow[32];
    std::snprintf(grow, sizeof grow, "%.17g", opt.growth);
    return "seprank graded evaluation 1; weights " + detail::fnv1a_hex(network_to_json(net, -1)) + "; partition " + to_string(part) +
           "; seed " + std::to_string(opt.seed) + "; prime " + std::to_string(g.p) + (opt.prime != 0 ? " given" : " drawn") +
           "; start " + std::to_string(first_side(opt)) + "; max_side " + std::to_string(opt.max_side) + "; growth " + grow + "; parity " +
           (g.pi >= 0 ? "1" : "0");
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
    res.variant = g.pi >= 0 ? "graded-parity" : "graded";
    res.device = g.dev.name;
    double bound = 0;
    long old = 0;  // every pair in [0, old)² has been evaluated into each open block
    StepBudget budget(opt.max_seconds);
    for (long k = first_side(opt);; k = next_side(k, opt)) {
        budget.step_started();
        const long K = step_side(blocks, k, old, opt);
        if (K == 0) break;
        ra.extend(rng, g.p, K);
        rb.extend(rng, g.p, K);
        std::vector<long> before(blocks.size());
        for (std::size_t a = 0; a < blocks.size(); ++a) before[a] = blocks[a].side;
        long last_side = 0, last_rank = 0;  // the step before, over all blocks
        for (const auto& b : blocks) last_side += b.side, last_rank += b.rank;
        for (auto& b : blocks)
            if (!b.done) b.side = std::min(k, b.cap);
        long side = 0;
        for (const auto& b : blocks) side += b.side;
        report_step(side, opt.max_side, "evaluating", last_rank, last_side);
        if (!be.evaluate(K, old)) {  // the memory cannot hold this step: the last one stands
            for (std::size_t a = 0; a < blocks.size(); ++a) blocks[a].side = before[a];
            res.stop = GrowthStop::memory;
            res.stop_detail = be.stop();
            break;
        }
        res.evaluations += (K * K - old * old) * g.nd;
        old = K;
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<Block*> open;
        for (auto& b : blocks)
            if (!b.done) open.push_back(&b);
        std::sort(open.begin(), open.end(), [](const Block* x, const Block* y) { return x->side > y->side; });
        report_step(side, opt.max_side, "ranking " + std::to_string(open.size()) + (open.size() == 1 ? " block" : " blocks"),
                    last_rank, last_side);
        be.rank(open);
        res.phases.rank += since(t0);
        const bool all = settle(open, res.minor_sum, g.p);
        bound = res.minor_sum * static_cast<double>(g.D) / static_cast<double>(g.p);
        if (all) {
            res.converged = true;
            break;
        }
        if (k == opt.max_side) break;
        if (budget.stop_before(k, next_side(k, opt))) {
            res.stop = GrowthStop::time_budget;
            break;
        }
    }
    res.note = be.note();
    graded_summary(res, blocks, g, how);
    // Every block at its cap: the rank is exact, whatever the earlier steps added to the
    // bound while those blocks were still growing.
    const bool at_caps = res.converged && std::all_of(blocks.begin(), blocks.end(), [](const Block& b) { return b.rank == b.cap; });
    res.failure_bound = at_caps ? 0.0 : res.converged ? std::min(1.0, bound) : 1.0;
    return res;
}

}  // namespace

static RankAnswer evaluation_rank_graded_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    Setup st{0, 0, Rng(0), DeviceChoice{}};
    const Graded g = graded_setup(net, part, opt, st);
    const PointEvaluator f(net, g.p, opt.batch, g.dev);
    std::vector<Block> blocks = initial_blocks(g);
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

double log2_structure_bound(const ValidSpec& spec, long weight_abs) {
    Network unit = random_network(spec, 1, 1);
    const Rational w{Integer(weight_abs)};
    unit.weights = map_weights<Rational>(unit.weights, [&w](const Rational&) { return w; });
    return log2_coefficient_bound(unit);
}

namespace {

// log2 C(n + k, k), the number of monomials of degree <= n in k variables.
double log2_monomials(double n, double k) {
    return (std::lgamma(n + k + 1) - std::lgamma(n + 1) - std::lgamma(k + 1)) / std::log(2.0);
}

// The chance that the prime, drawn from the seed among those of its bit length and
// redrawn while it meets a weight (setup), divides a non-zero minor of the coefficient
// flattening of the size of its rank: such a minor is a product of one minor per degree
// block (homogeneous f: at most cap_a rows, the caps counted within a tenth of a second)
// or else of at most min(#A-, #B-monomials of degree <= D) rows, each entry at most
// 2^log2_coefficient_bound (Hadamard). Divided by the chance that a prime of that size
// meets no weight (the redraw conditions on it). 1 for a prime given, not drawn.
double prime_term(const Network& net, const ValidPartition& part, std::uint64_t p, bool drawn) {
    if (!drawn) return 1.0;
    const double entry = log2_coefficient_bound(net);
    const std::vector<long> caps = is_homogeneous(net.spec) ? degree_block_caps(net.spec, part, 1e8) : std::vector<long>{};
    double log2H = 0;
    const auto minor = [&](double n) {
        if (n > 0) log2H += n * (entry + 0.5 * std::log2(n));
    };
    if (!caps.empty()) {
        for (long c : caps) minor(static_cast<double>(c));
    } else {
        const double D = fmpz_get_d(output_degree(net.spec).get()), per = static_cast<double>(input_vars_per_token(net.spec));
        const double a = log2_monomials(D, per * static_cast<double>(part->A.size())), b = log2_monomials(D, per * static_cast<double>(part->B.size()));
        minor(std::exp2(std::min(a, b)));  // inf when astronomically many: the bound is then 1
    }
    const unsigned bits = static_cast<unsigned>(64 - __builtin_clzll(p));
    double weights = 0;  // log2 of the product of every non-zero weight's numerator and denominator
    (void)map_weights<char>(net.weights, [&weights](const Rational& x) {
        if (!x.is_zero()) weights += std::max(0.0, log2_abs(fmpq_numref(x.get()))) + std::max(0.0, log2_abs(fmpq_denref(x.get())));
        return char{0};
    });
    const double met = weights > 0 ? detail::prime_divisor_bound(weights, bits) : 0.0;
    if (!std::isfinite(log2H) || met >= 1) return 1.0;
    return std::min(1.0, detail::prime_divisor_bound(log2H, bits) / (1.0 - met));
}

// The fields every evaluation answer shares, and its timing.
RankAnswer finish(RankAnswer res, const Network& net, const ValidPartition& part, const EvaluationOptions& opt,
                  std::chrono::steady_clock::time_point t0) {
    res.method = "evaluation";
    res.quantity = "sep";
    res.field = "Z/p";
    // Graded, converged with a bound of exactly 0: every degree block's rank mod p reached
    // its cap, the number of its monomials. rank_p E_a ≤ rank_Q C_a ≤ cap_a (E_a =
    // V_A C_a V_Bᵀ), so sep = Σ cap_a exactly at these weights.
    const bool at_caps = res.variant.rfind("graded", 0) == 0 && res.converged && res.failure_bound == 0.0;
    res.kind = at_caps ? RankKind::exact : RankKind::modular_lower_bound;
    // Converged below the caps: the points' bound, plus the chance that p divides a non-zero
    // minor of the coefficient flattening (then even rank mod p of C is below sep).
    std::string prime_note;
    if (!at_caps && res.converged) {
        const double t = prime_term(net, part, res.prime, opt.prime == 0);
        res.failure_bound = std::min(1.0, res.failure_bound + t);
        prime_note = opt.prime != 0 ? "; the prime was given, not drawn: no bound on its dividing a minor of f's coefficients, so failure_bound 1"
                                    : "; failure_bound includes the chance that the prime, drawn from the seed, divides a non-zero minor of f's coefficient flattening";
    }
    res.primes_used = 1;
    res.partition = to_string(part);
    res.degree = output_degree(net.spec).str();
    // What ended a growth that did not converge: the loops name the time budget and memory.
    if (res.converged) res.stop = GrowthStop::none, res.stop_detail.clear();
    else if (res.stop == GrowthStop::none) res.stop = GrowthStop::size_limit;
    res.engine_note = res.note.size() >= 2 && res.note.compare(res.note.size() - 2, 2, "; ") == 0 ? res.note.substr(0, res.note.size() - 2) : res.note;
    const char* ended = nullptr;
    switch (res.stop) {
        case GrowthStop::none: break;
        case GrowthStop::time_budget: ended = "rank still full when the time budget (max_seconds) stopped the growth before a step predicted to end past it: a lower bound only"; break;
        case GrowthStop::memory: ended = "rank still full where memory stopped the growth: a lower bound only"; break;
        case GrowthStop::size_limit: ended = "rank still full at the size limit: a lower bound only"; break;
    }
    res.note = std::to_string(res.evaluations) + " evaluations mod p; " + res.note + (res.stop_detail.empty() ? "" : res.stop_detail + "; ") +
               (at_caps        ? "exact: every degree block reached its cap (its number of monomials), which bounds its rank over Q"
                : res.converged ? "rank stopped growing below the side; equals sep except with probability <= failure_bound" + prime_note
                                : ended);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.phases.matrix = std::max(0.0, res.seconds - res.phases.rank);  // the forward evaluations
    res.peak_mib = peak_rss_mib();
    return res;
}

}  // namespace

// Each entry checks the network first (check_shapes), before anything reads net.spec; the
// evaluator the run builds (ModBatchEvaluator) checks it once more, as a public class does.
RankAnswer evaluation_rank_plain(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    check_shapes(net);
    part.check_tokens(net.spec.tokens);
    return finish(evaluation_rank_plain_impl(net, part, opt), net, part, opt, t0);
}

RankAnswer evaluation_rank_graded(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    check_shapes(net);
    part.check_tokens(net.spec.tokens);
    return finish(evaluation_rank_graded_impl(net, part, opt), net, part, opt, t0);
}

RankAnswer evaluation_rank(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    const ValidSpec s = check_shapes(net);
    part.check_tokens(s->tokens);
    bool graded = opt.variant == EvaluationVariant::graded;
    if (opt.variant == EvaluationVariant::automatic) {
        const Integer d = output_degree(s);
        graded = is_homogeneous(s) && fmpz_cmp_si(d.get(), opt.max_graded_degree) <= 0 &&
                 (opt.prime == 0 || fmpz_cmp_ui(d.get(), opt.prime - 2) < 0);
    }
    return finish(graded ? evaluation_rank_graded_impl(net, part, opt) : evaluation_rank_plain_impl(net, part, opt), net, part, opt, t0);
}

}  // namespace seprank
