#include "seprank/generic.hpp"

#include "base/file_io.hpp"
#include "base/process.hpp"
#include "algebra/rank_internal.hpp"
#include "block_store.hpp"
#include "hint_counts.hpp"
#include "seprank/cancel.hpp"
#include "seprank/progress.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"
#include "base/number_text.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

namespace seprank {

std::string to_string(GenericMethod m) {
    switch (m) {
        case GenericMethod::automatic: return "auto";
        case GenericMethod::flattening: return "flattening";
        case GenericMethod::evaluation: return "evaluation";
    }
    throw internal_error("to_string(GenericMethod): unknown value " + std::to_string(static_cast<int>(m)));
}

GenericMethod generic_method_from_string(const std::string& s) {
    if (s == "auto") return GenericMethod::automatic;
    if (s == "flattening") return GenericMethod::flattening;
    if (s == "evaluation") return GenericMethod::evaluation;
    throw invalid_input("generic method '" + s + "' is not one of auto, flattening, evaluation");
}

namespace {

// How many primes of `bits` bits there are at least (prime_count_lower_bound), printed:
// a drawn prime is any given one of them with probability at most 1 / that.
// A bound or a bit count in a note: 3 significant digits, rounded up (bound_up).
std::string bound_text(double x) {
    char s[32];
    std::snprintf(s, sizeof s, "%.3g", bound_up(x, 3));
    return s;
}

std::string per_factor(int bits) {
    // rounded down: the count of primes is a lower bound, the chance it gives an upper one
    const double n = prime_count_lower_bound(static_cast<unsigned>(bits));
    char s[32];
    std::snprintf(s, sizeof s, "%.2e", n);
    if (std::strtod(s, nullptr) > n) {
        const double unit = std::pow(10.0, std::floor(std::log10(n)) - 2);
        std::snprintf(s, sizeof s, "%.2e", std::strtod(s, nullptr) - unit);
    }
    return s;
}

}  // namespace

void check_options(const GenericOptions& opt) {
    if (opt.trials < 1) throw invalid_input("trials T = " + std::to_string(opt.trials) + " must be at least 1");
    // Each trial is a whole computation and the bound falls as its T-th power: a thousand
    // is far past any use, and a larger count is a typo that would run for hours.
    if (opt.trials > 1000) throw invalid_input("trials T = " + std::to_string(opt.trials) + " exceeds 1000 (each trial is a whole run)");
    if (opt.prime_bits < 20 || opt.prime_bits > 62)
        throw invalid_input("prime bits = " + std::to_string(opt.prime_bits) + " outside 20..62");
    if (opt.weight_range < 0) throw invalid_input("weight range " + std::to_string(opt.weight_range) + " is negative");
    if (!(opt.max_expand_bytes > 0)) throw invalid_input("max expand bytes " + number_text(opt.max_expand_bytes) + " must be positive");
    // The store's folder, checked whether or not the method will use it (created later).
    if (!opt.store.empty()) detail::check_store_directory(opt.store, "store");
    struct stat st {};
    if (!opt.store.empty() && ::stat(opt.store.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) throw invalid_input("store '" + opt.store + "' exists and is not a directory");
    } else if (!opt.store.empty()) {
        // Missing: the run creates it, in its folder, which must exist (a store the method
        // will not use is refused all the same where it could not be made; nothing is made here).
        std::string name = opt.store;
        while (name.size() > 1 && name.back() == '/') name.pop_back();
        const std::string folder = detail::parent_directory(name);
        if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw invalid_input("store '" + opt.store + "': its folder '" + folder + "' is not an existing directory, so the store cannot be created");
    }
    EvaluationOptions eo;
    eo.max_side = opt.max_side;
    eo.start = opt.start;
    eo.growth = opt.growth;
    eo.threads = opt.threads;
    eo.max_seconds = opt.max_seconds;
    eo.block_hints = opt.block_hints;
    check_options(eo);
}

namespace {

// One run with the method resolved (`flat`: the flattening, else the evaluation) on `dev`;
// the options and partition checked by the caller.
RankAnswer generic_once(const ValidSpec& valid, const ValidPartition& part, const GenericOptions& opt, const DeviceChoice& dev, bool flat) {
    const auto t0 = std::chrono::steady_clock::now();
    const NetworkSpec& spec = valid.get();
    const bool gpu = dev.device == Device::cuda;
    const int bits = drawn_prime_bits(dev, opt.prime_bits);  // fewer on the GPU (device.hpp)
    Rng rng(opt.seed);
    RankAnswer res;
    res.quantity = "generic sep";
    res.field = "Z/p";
    res.partition = to_string(part);
    res.degree = output_degree(spec).str();
    res.trials = opt.trials;
    // Each trial draws its own prime (the first before anything else, so that one trial
    // draws as it always did): the trials are then independent in the prime as well, and
    // the chance c that a prime divides the certifying minor's content falls with T too.
    std::uint64_t p = random_prime(rng, static_cast<unsigned>(bits));
    const Integer wdeg = weight_degree(spec);
    res.device = flat ? "cpu" : dev.name;
    res.method = flat ? "flattening" : "evaluation";
    if (flat) res.variant = "modular-sparse";
    // Each trial also draws the embedding M (x^j = M w^j): f has degree d^L in M's
    // entries too, so a matrix entry has degree D_L + d^L in all drawn weights, plus
    // another d^L in random evaluation points.
    const Integer drawn = spec.embed_rank > 0 ? wdeg + output_degree(spec) : wdeg;
    const Integer bdeg = flat ? drawn : drawn + output_degree(spec);
    res.weight_degree = wdeg.str();
    res.bound_degree = bdeg.str();
    bool at_caps = false;  // some trial reached the flattening's cap (every degree block's, when homogeneous)
    const bool homogeneous = is_homogeneous(spec);
    long cap_sum = flat ? flattening_cap(spec, part) : -1;
    if (cap_sum >= LONG_MAX / 4) cap_sum = -1;  // saturated: never met
    // What the answer and its bound need of each trial (res.trial_ranks holds its rank).
    struct Trial {
        std::uint64_t prime = 0;
        bool converged = true;  // its rank stopped growing (the flattening's always)
        double minors = 0;      // evaluation: its minor_sum (the flattening's one minor, v + 1, is counted below)
        long rows = 0, cols = 0, terms = -1;
        std::vector<long> block_ranks;
        GrowthStop stop = GrowthStop::none;  // evaluation: what ended a growth that did not converge
        std::string stop_detail;             // and where (memory)
        std::string gpu_note;  // on the GPU, the evaluation's engine_note (device memory and time)
        RankAnswer hinted;      // evaluation: its hinted_* counts (how its blocks' final ranks lie from their hints)
    };
    std::vector<Trial> trials;
    std::vector<long> hints = opt.block_hints;  // the next trial's block hints: the user's, then the earlier trials' ranks
    bool hinted_by_trials = false;              // hints holds an earlier trial's block ranks
    bool trial_hinted = false;                  // some trial ran with them
    std::string stopped_early;  // why trials after the last one run were not run
    for (long t = 0; t < opt.trials; ++t) {
        throw_if_cancelled();
        report_progress(current_progress(), "trials", static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(opt.trials));  // progress.hpp
        if (t > 0) p = random_prime(rng, static_cast<unsigned>(bits));
        Trial trial;
        trial.prime = p;
        const long half = opt.weight_range > 0 ? opt.weight_range : static_cast<long>((p - 1) / 2);
        const std::uint64_t wseed = rng.next();
        const Network net = random_network(valid, wseed, half);  // uniform on Z/p
        long r = 0;
        if (flat) {
            auto tp = std::chrono::steady_clock::now();
            auto lap = [&tp] {
                const auto now = std::chrono::steady_clock::now();
                const double s = std::chrono::duration<double>(now - tp).count();
                tp = now;
                return s;
            };
            // The memory limit of the process (default_max_memory(), the CLI's --max-memory):
            // auto expands only f estimated under max_expand_bytes, and the flattening asked
            // for by name may use what the limit allows.
            const NmodPoly f = expand_mod(net, p, ExpandOptions{});
            res.phases.expand += lap();
            const SparseNmodMat c = flatten(f, part, spec.tokens);
            res.phases.matrix += lap();
            r = rank_sparse_modular(c);
            res.phases.rank += lap();
            // At the flattening's cap (every degree block at its cap when f is homogeneous;
            // else the monomials the smaller side can have): a bound for all weights
            // (evaluation.hpp) that the draw's rank meets, as in the evaluation below.
            if (cap_sum > 0 && r == cap_sum) at_caps = true;
            trial.rows = c.rows;
            trial.cols = c.cols;
            trial.terms = static_cast<long>(f.terms());
        } else {
            EvaluationOptions eo;
            eo.seed = rng.next();
            eo.prime = p;
            eo.max_side = opt.max_side;
            eo.start = opt.start;
            eo.growth = opt.growth;
            eo.threads = opt.threads;
            eo.variant = opt.variant;
            eo.device = dev.device;
            eo.block_hints = hints;
            trial_hinted = trial_hinted || hinted_by_trials;
            if (opt.max_seconds > 0)  // what is left of the call's budget; the first step always runs
                eo.max_seconds = std::max(1e-9, opt.max_seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            if (!opt.store.empty()) eo.store = opt.store + "/trial" + std::to_string(t);  // created by the evaluation
            const RankAnswer e = evaluation_rank(net, part, eo);
            r = e.value;
            trial.minors = e.minor_sum;
            res.phases.matrix += e.phases.matrix;
            res.phases.rank += e.phases.rank;
            res.evaluations += e.evaluations;
            trial.rows = e.rows;
            trial.cols = e.cols;
            trial.converged = e.converged;
            trial.stop = e.stop;
            trial.stop_detail = e.stop_detail;
            // Exact: every degree block reached its cap (graded), or the rank the
            // flattening's cap (plain), the number of monomials that bounds the rank for all
            // weights (docs/evaluation.md): an upper bound of R* that this trial's lower
            // bound meets.
            at_caps = at_caps || e.kind == RankKind::exact;
            res.variant = e.variant;
            trial.block_ranks = e.block_ranks;
            detail::copy_hint_counts(e, trial.hinted);
            if (e.converged && !e.block_ranks.empty()) {
                if (!hinted_by_trials) hints.clear();  // the trials' ranks replace the user's hints
                hints.resize(std::max(hints.size(), e.block_ranks.size()), -1);
                for (std::size_t a = 0; a < e.block_ranks.size(); ++a) hints[a] = std::max(hints[a], e.block_ranks[a]);
                hinted_by_trials = true;
            }
            // How the evaluation held its matrices (device memory, time there); its word on the
            // bound is left out: it was given the prime, so it bounds nothing (1), and the
            // bound here is generic's.
            if (gpu) trial.gpu_note = e.engine_note;
        }
        res.trial_ranks.push_back(r);
        const bool trial_converged = trial.converged;
        trials.push_back(std::move(trial));
        // No later trial can change the answer: every degree block at its cap (exact, the
        // largest rank any weights give), or a trial that did not converge (the next ones
        // would stop at the same size or memory limit, or with less of the time budget).
        if (t + 1 < opt.trials && (at_caps || !trial_converged)) {
            stopped_early = at_caps ? "the rank is exact: no draw can exceed it"
                                    : "trial " + std::to_string(t + 1) + " did not converge; the next ones would stop at the same limit";
            break;
        }
    }
    const long run = static_cast<long>(res.trial_ranks.size());
    if (run < opt.trials) {
        stopped_early = "; " + std::to_string(run) + " of the " + std::to_string(opt.trials) + " trials run (" + stopped_early + ")";
        res.trials = run;
    }
    res.value = *std::max_element(res.trial_ranks.begin(), res.trial_ranks.end());
    long unfinished = 0;  // trials that did not converge (the time budget ended them), not degenerate draws
    for (std::size_t t = 0; t < trials.size(); ++t) {
        if (!trials[t].converged) ++unfinished;
        else res.degenerate += res.trial_ranks[t] < res.value;
    }
    // The trial that gave the value, a converged one where there is one, names the prime (and
    // |S|, the note's s and c). The answer converged when that trial did: a trial that did
    // not (the time budget ended it while it grew) only fails to lower the bound.
    std::size_t best = trials.size();
    for (std::size_t t = 0; t < trials.size(); ++t)
        if (res.trial_ranks[t] == res.value && (best == trials.size() || (trials[t].converged && !trials[best].converged))) best = t;
    const Trial& chosen = trials[best];
    res.prime = chosen.prime;
    res.rows = chosen.rows;
    res.cols = chosen.cols;
    res.terms = chosen.terms;
    res.block_ranks = chosen.block_ranks;
    std::vector<std::uint64_t> primes;
    for (const Trial& t : trials) primes.push_back(t.prime);
    res.primes_used = detail::distinct_count(primes);
    // |S| for Schwartz–Zippel, one over the largest chance of a residue: q for the points
    // (uniform mod q) and the default weights; 2R+1 for weights uniform on [-R, R], and
    // (2R+1)/⌈(2R+1)/q⌉ when 2R+1 > q (mod q some residues are then more likely).
    const auto set_size_of = [&](std::uint64_t q) {
        if (opt.weight_range <= 0) return static_cast<double>(q);
        const double n = 2.0 * static_cast<double>(opt.weight_range) + 1.0;
        return std::min(n / std::ceil(n / static_cast<double>(q)), static_cast<double>(q));
    };
    res.converged = at_caps || chosen.converged;
    // Not converged: the chosen trial did not, nor did any other (a converged one with the
    // same rank would have been chosen), and it says what stopped it.
    res.stop = res.converged ? GrowthStop::none : chosen.stop;
    res.stop_detail = res.converged ? std::string() : chosen.stop_detail;
    // The answer v (the largest trial rank) is below R* only if every trial's rank is at
    // most v while some (v+1)×(v+1) minor of the matrix, a non-zero polynomial in the drawn
    // weights and points with integer coefficients, is not zero. A trial with rank v:
    //   flattening: that minor vanishes at the draw (Schwartz–Zippel: (v+1)·D/|S|);
    //   evaluation: at one of its growth steps the minor of size ρ = min(rank + 1, side)
    //     vanishes (Σρ = the evaluation's minor_sum, times D/|S|; a step before the last was
    //     full rank, so the run would have gone on);
    // or a minor counted there vanishes identically mod the trial's prime: the prime divides
    // its content. A minor of size ρ has coefficients whose absolute sum is at most ρ!·F^ρ
    // (each entry, a coefficient of f or a value of f or of one of its degree blocks, has at
    // most f's sum F), so the contents have at most Σρ·(log2(v+1) + log2 F) bits in all, and
    // a random prime divides one with probability at most c = prime_divisor_bound of that.
    // A trial below v counts 1 (it already fell short), and so does one that did not
    // converge (its growth stopped while the rank grew). The trials draw their primes,
    // weights and points independently: the bound is the product of the trials' terms. It
    // grows with v, so a bound read at the observed v holds as a bound on falling short
    // (Pr[v < R* and bound ≤ δ] ≤ δ for every δ).
    const double v1 = static_cast<double>(res.value) + 1.0;
    const double log2F = res.converged && !at_caps ? log2_structure_bound(valid, opt.weight_range > 0 ? opt.weight_range : 1) : 0.0;
    const auto minors_of = [&](const Trial& t) { return flat ? v1 : t.minors; };
    const auto content_bits_of = [&](double rho) { return rho * (std::log2(v1) + log2F); };
    const auto content_of = [&](double rho) { return detail::prime_divisor_bound(content_bits_of(rho), static_cast<unsigned>(bits)); };
    std::vector<double> per_trial;
    for (std::size_t t = 0; t < trials.size(); ++t)
        per_trial.push_back(res.trial_ranks[t] < res.value || !trials[t].converged
                                ? 1.0
                                : minors_of(trials[t]) * fmpz_get_d(bdeg.get()) / set_size_of(trials[t].prime) + content_of(minors_of(trials[t])));
    const double rho = minors_of(chosen);
    const double content_bits = res.converged && !at_caps ? content_bits_of(rho) : 0.0;
    const double content = content_bits > 0 ? content_of(rho) : 0.0;
    res.failure_bound = at_caps ? 0.0 : res.converged ? independent_bound(per_trial) : 1.0;
    // Every degree block of a trial at its cap: the trial's integer network has sep = the
    // sum of the caps exactly, and no weights give more, so R* is that sum: exact.
    res.kind = at_caps ? RankKind::exact : res.converged ? RankKind::generic : RankKind::modular_lower_bound;
    res.set_size = opt.weight_range > 0 ? 2 * static_cast<std::uint64_t>(opt.weight_range) + 1 : res.prime;
    const std::string own = res.trials > 1 ? ", of the trial that gave the rank; every trial draws its own" : "";
    res.note = (opt.weight_range > 0 ? "weights uniform on [-" + std::to_string(opt.weight_range) + ", " + std::to_string(opt.weight_range) +
                                           "], ranked mod p = " + std::to_string(res.prime) + (own.empty() ? "" : " (the prime" + own + ")")
                                     : "weights uniform on Z/p, p = " + std::to_string(res.prime) + " (random " + std::to_string(bits) + "-bit prime" +
                                           (bits < opt.prime_bits ? ", the GPU's largest" : "") + own + ")") +
               (at_caps ? (homogeneous && res.variant.rfind("graded", 0) == 0
                               ? std::string("; exact: every degree block of a trial reached its cap (its number of monomials, a bound "
                                             "for all weights), so the generic rank equals that upper bound")
                           : homogeneous  // the flattening or the plain evaluation: one rank, no blocks ranked
                               ? std::string("; exact: a trial's rank reached its cap, the sum of the degree-block caps (their numbers of "
                                             "monomials, a bound for all weights), so the generic rank equals that upper bound")
                               : std::string("; exact: a trial reached the flattening's cap (the monomials its smaller side can have, "
                                                     "a bound for all weights), so the generic rank equals that upper bound"))
                        : !res.converged
                            ? std::string("; failure_bound 1: not converged (below), so no chance is bounded that the generic rank lies above "
                                          "this lower bound")
                            : "; failure_bound = the product over the T = " + std::to_string(res.trials) +
                                  " trials (each its own prime) of s*D/|S| + c (1 for a trial below the maximum), with D = " + res.bound_degree +
                                  " and, for the trial that gave the rank, s = " + std::to_string(static_cast<long>(rho)) +
                                  (flat ? std::string(" (the rank plus one: the size of the minor that would show a larger rank)")
                                        : std::string(" (the sizes of the minors that stopped each growth step, rank plus one or the side, summed)")) +
                                  " and c = " + bound_text(content) +
                                  " the chance that its random prime divides the integer content of one of those minors (at most " +
                                  bound_text(content_bits) + " bits: one chance in " + per_factor(bits) + " per " + std::to_string(bits) +
                                  "-bit prime factor), which would make it vanish identically mod p");
    if (!flat) res.note += gpu ? "; the trial that gave the rank: " + chosen.gpu_note
                               : std::string("; batched evaluation (") + ModBatchEvaluator::kernel_for(res.prime) + " kernel)";
    if (flat && gpu) res.note += "; device " + dev.name + " not used: the flattening runs on the CPU";
    if (!dev.note.empty()) res.note += "; " + dev.note;
    res.note += stopped_early;
    if (res.degenerate > 0)
        res.note += "; " + std::to_string(res.degenerate) + " degenerate draw(s) below the maximum";
    if (unfinished > 0 && res.converged)
        res.note += "; " + std::to_string(unfinished) + " later trial(s) stopped before converging (the time budget), counted 1 in the bound";
    if (res.variant.rfind("graded", 0) == 0)
        res.note += "; graded evaluation: one block per degree a in the A-variables, sep = sum of block ranks";
    // The caller's hints are counted once, in the first trial, the one that ran with them: a
    // later trial's hints are the earlier trials' own ranks, so counting them would say
    // nothing of the caller's (a law's) hints. A hint only orders the work: every trial's
    // ranks are its own generic ranks, labelled and bounded as without hints.
    const bool hints_given = !opt.block_hints.empty(), hints_later = trial_hinted;
    if (hints_given && !trials.empty()) detail::copy_hint_counts(trials.front().hinted, res);
    if (res.variant.rfind("graded", 0) == 0 && (hints_given || hints_later)) {
        res.note += "; block hints (a hint only orders the work: every rank is still the trial's own generic rank, a lower bound with its failure bound)";
        if (hints_given && res.hinted_blocks == 0 && res.hinted_absent > 0)
            res.note += ": no block of this network given a hint; " + detail::hint_absent_text(res);
        else if (hints_given)
            res.note += ": " + std::to_string(res.hinted_blocks) + " blocks given a hint (the first trial): " + detail::hint_outcomes_text(res) + ", " +
                        std::to_string(res.hinted_final) + " final at the first side ranked";
        if (hints_later) res.note += std::string(hints_given ? "; " : ": ") + "each later trial took the largest block ranks of the trials before as its hints";
    }
    if (!opt.block_hints.empty() && res.variant.rfind("graded", 0) != 0)
        res.note += "; block hints not used: they serve the graded evaluation only";
    if (!opt.store.empty() && res.variant.rfind("graded", 0) != 0)
        res.note += "; block store " + opt.store + " not used: it serves the graded evaluation only (this run: " +
                    (flat ? std::string("flattening") : "evaluation, " + res.variant) + ")";
    if (flat && opt.max_seconds > 0) res.note += "; time budget (max_seconds) not used: the flattening is not stopped part-way";
    if (!res.converged)
        res.note += res.stop == GrowthStop::time_budget ? "; evaluation stopped by the time budget (max_seconds) while the rank still grew: lower bound only"
                    : res.stop == GrowthStop::memory ? "; evaluation " + res.stop_detail + " while the rank still grew: lower bound only"
                    : res.rows == 0 ? "; the size limit (max_side " + std::to_string(opt.max_side) +
                                          ") leaves no room for one row per degree block: nothing evaluated, lower bound only"
                                    : "; evaluation matrix still full rank at the size limit (max_side " + std::to_string(opt.max_side) +
                                          "; a larger one goes on): lower bound only";
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.peak_mib = peak_rss_mib();
    return res;
}

}  // namespace

bool generic_auto_flattens(const ValidSpec& valid, const GenericOptions& opt, bool gpu) {
    return !gpu && estimate_expansion(valid).bytes <= opt.max_expand_bytes;
}

RankAnswer generic_rank(const ValidSpec& valid, const ValidPartition& part, const GenericOptions& opt) {
    part.check_tokens(valid.get().tokens);
    check_options(opt);
    const DeviceChoice dev = choose_device(opt.device);
    const bool automatic = opt.method == GenericMethod::automatic;
    const bool flat = automatic ? generic_auto_flattens(valid, opt, dev.device == Device::cuda) : opt.method == GenericMethod::flattening;
    if (!automatic || !flat) return generic_once(valid, part, opt, dev, flat);
    const auto t0 = std::chrono::steady_clock::now();
    try {
        return generic_once(valid, part, opt, dev, true);
    } catch (const resource_limit& e) {
        // The estimate is of f; a product on the way can pass the memory limit (default_max_memory())
        // where the evaluation, which never expands, fits: auto then runs the evaluation.
        // The attempt's seconds count in the answer's, as its expansion phase.
        const double attempt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        RankAnswer res = generic_once(valid, part, opt, dev, false);
        res.seconds += attempt;
        res.phases.expand += attempt;
        res.note = "auto: the flattening's expansion stopped (" + std::string(e.what()) + "; its seconds are in phases.expand), so the evaluation ran; " + res.note;
        return res;
    }
}

}  // namespace seprank
