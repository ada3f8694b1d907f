// seprank — the growth of the evaluation matrix: the prime and the points, the evaluator's
// helpers, a step's budget, memory and progress, and the plain variant (docs/evaluation.md).
#include "evaluation_internal.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/rank.hpp"
#include "algebra/rank_internal.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

namespace seprank {

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

}  // namespace

namespace evaluation_detail {

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

long next_side(long k, const EvaluationOptions& opt) {
    if (static_cast<double>(k) * opt.growth >= static_cast<double>(opt.max_side)) return opt.max_side;  // no cast past long
    const long grown = (static_cast<long>(std::ceil(static_cast<double>(k) * opt.growth)) + 7) / 8 * 8;
    return std::min(std::max(grown, k + 1), opt.max_side);
}

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

bool use_bordered(const EvaluationOptions& opt, const DeviceChoice& dev) { return opt.bordered && dev.device != Device::cuda; }

long rank_on(const DeviceChoice& dev, const NmodMat& m, double* gpu_seconds) {
    if (dev.device != Device::cuda) return rank_modular(m);
    double s = 0;
    const long r = rank_modular_cuda(m, 0, &s);
    if (gpu_seconds) *gpu_seconds += s;
    return r;
}

void place_flat(const Partition& part, long per, const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* x) {
    for (std::size_t k = 0; k < part.A.size(); ++k) std::copy_n(a + static_cast<long>(k) * per, per, x + (part.A[k] - 1) * per);
    for (std::size_t k = 0; k < part.B.size(); ++k) std::copy_n(b + static_cast<long>(k) * per, per, x + (part.B[k] - 1) * per);
}

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string memory_stop(long K, double held, double need, const char* side) {
    const double limit = default_max_memory();
    if (held + need <= limit) return "";
    return std::string("growth stopped before ") + side + " " + std::to_string(K) + " for lack of memory (its matrices about " + format_bytes(held + need) +
           ", over the limit of " + format_bytes(limit) + ": " + default_max_memory_name() + ")";
}

void report_step(long k, long max_side, const std::string& doing, long last_rank, long last_side) {
    std::string detail = "(at most " + std::to_string(max_side) + "): " + doing;
    if (last_side > 0) detail += "; rank " + std::to_string(last_rank) + " at side " + std::to_string(last_side);
    report_progress(current_progress(), "evaluation side", static_cast<std::uint64_t>(k), 0, detail);
}

RankAnswer evaluation_rank_plain_impl(const Network& net, const ValidPartition& part, const EvaluationOptions& opt) {
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
    {
        // The first side's points and matrix, checked before any is drawn (a later side's are
        // checked as the growth reaches it): start = 2^62 had the process killed for memory.
        const double k = static_cast<double>(first_side(opt));
        check_memory(8.0 * k * (k + 1) + 16.0 * k * static_cast<double>(width), default_max_memory(),
                     "evaluation (plain): the first side " + std::to_string(first_side(opt)) + ", its points and its matrix");
    }
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
               (opt.block_hints.empty() ? "" : "block hints not used (plain variant); ") +
               (st.dev.device == Device::cuda ? "eliminations on the GPU (" + detail::device_time(device_s) + "); " : "") +
               (st.dev.note.empty() ? "" : st.dev.note + "; ");
    res.failure_bound = res.converged ? std::min(1.0, bound) : 1.0;
    return res;
}

}  // namespace evaluation_detail

}  // namespace seprank
