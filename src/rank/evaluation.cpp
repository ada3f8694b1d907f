// seprank — black-box ranks mod p: the entry points, the variants' names, the options, the
// coefficient bound and the chance the prime fails (evaluation.hpp, docs/evaluation.md).
#include "seprank/evaluation.hpp"

#include "evaluation_internal.hpp"

#include "base/process.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/integer.hpp"
#include "network/families.hpp"
#include "network/forward_impl.hpp"
#include "seprank/forward.hpp"
#include "seprank/model.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "algebra/rank_internal.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace seprank {

using namespace evaluation_detail;

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

std::vector<int> token_parities(const NetworkSpec& s) { return Model(s).token_parities(); }

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
    check_threads(opt.threads);
    if (opt.max_graded_degree < 0)
        throw invalid_input("max graded degree " + std::to_string(opt.max_graded_degree) + " must be at least 0");
    if (!std::isfinite(opt.max_seconds) || opt.max_seconds < 0) {
        char s[32];
        std::snprintf(s, sizeof s, "%g", opt.max_seconds);
        throw invalid_input(std::string("max seconds ") + s + " must be a finite number >= 0 (0: no time budget)");
    }
    if (!opt.store.empty()) detail::check_store_directory(opt.store, "store");
    for (std::size_t a = 0; a < opt.block_hints.size(); ++a)
        if (opt.block_hints[a] < -1)
            throw invalid_input("block hint " + std::to_string(opt.block_hints[a]) + " of block " + std::to_string(a) +
                                " must be a rank >= 0 (or -1: none)");
}

long first_side(const EvaluationOptions& opt) { return opt.start > 0 ? opt.start : std::min(16L, opt.max_side); }

namespace {

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

}  // namespace

namespace {

// log2_coefficient_bound of the network (s, weights), its shapes already checked, with dw
// the number of weights a coefficient's product can hold (the weight degree, plus d^L
// with an embedding).
double coefficient_bits(const NetworkSpec& s, const Weights& weights, double dw, long vars_per_token) {
    // Λ = lcm(denominators)^{D_w}: a coefficient of f is a sum of products of at most D_w
    // weights times integers.
    Integer lcm(1);
    const NetWeights<double> w = map_weights<double>(weights, [&lcm](const Rational& x) {
        fmpz_lcm(lcm.get(), lcm.get(), fmpq_denref(x.get()));
        return log2_abs(x);
    });
    LogAbsRing ring;
    detail::Forward<LogAbsRing> f(s, w, ring);
    const std::vector<std::vector<double>> ones(static_cast<std::size_t>(s.tokens), std::vector<double>(static_cast<std::size_t>(vars_per_token), 0.0));
    const double norm = f.output(ones);  // log2 ||f||_1 (bound); -inf when f's program is 0
    const double bits = (fmpz_is_one(lcm.get()) ? 0.0 : dw * log2_abs(lcm.get())) + std::max(0.0, norm);
    // A margin for the rounding of the log-domain sums (relative 2^-40 per step at most).
    return bits * (1.0 + 1e-6) + 1.0;
}

double bound_weight_degree(const Model& m) {
    return fmpz_get_d(m.weight_degree().get()) + (m.spec().embed_rank > 0 ? fmpz_get_d(m.degree().get()) : 0.0);
}

}  // namespace

double log2_coefficient_bound(const Network& net) {
    const Model m{ValidSpec(net.spec)};
    m.check_weights(net.weights);
    return coefficient_bits(m.spec(), net.weights, bound_weight_degree(m), m.input_vars_per_token());
}

double log2_structure_bound(const Model& m, long weight_abs, const std::vector<std::pair<long, long>>& outputs) {
    const Rational w{Integer(weight_abs)};
    const Weights unit = map_weights<Rational>(m.draw_weights(1, 1), [&w](const Rational&) { return w; });
    const double dw = bound_weight_degree(m);
    double most = 0;
    for (const auto& [position, coordinate] : outputs) {
        NetworkSpec at = m.spec();
        at.position = position;
        at.coordinate = coordinate;
        most = std::max(most, coefficient_bits(at, unit, dw, m.input_vars_per_token()));
    }
    return most;
}

double log2_structure_bound(const ValidSpec& spec, long weight_abs) {
    return log2_structure_bound(Model(spec), weight_abs, {{spec->position, spec->coordinate}});
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
// or else of at most flattening_cap rows (the monomials of degree <= D the smaller side can
// have; without the count, min(#A-, #B-monomials of degree <= D)), each entry at most
// 2^log2_coefficient_bound (Hadamard). Divided by the chance that a prime of that size
// meets no weight (the redraw conditions on it). 1 for a prime given, not drawn.
// `flat_cap`: flattening_cap(net.spec, part, 1e8) as the caller computed it (-1: unknown).
double prime_term(const Network& net, const ValidPartition& part, std::uint64_t p, bool drawn, long flat_cap) {
    if (!drawn) return 1.0;
    const double entry = log2_coefficient_bound(net);
    const std::vector<long> caps = is_homogeneous(net.spec) ? degree_block_caps(net.spec, part, 1e8) : std::vector<long>{};
    double log2H = 0;
    const auto minor = [&](double n) {
        if (n > 0) log2H += n * (entry + 0.5 * std::log2(n));
    };
    const long cap = caps.empty() ? flat_cap : -1;  // the symmetry's count, where it is known
    if (!caps.empty()) {
        for (long c : caps) minor(static_cast<double>(c));
    } else if (cap >= 0 && cap < LONG_MAX / 4) {
        minor(static_cast<double>(cap));
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
    const bool graded = res.variant.rfind("graded", 0) == 0;
    bool at_caps = graded && res.converged && res.failure_bound == 0.0;
    // Plain, at the flattening's cap (Model::flattening_cap: the monomials the smaller side
    // can have, or Σ cap_a when f is homogeneous): rank_p E ≤ rank_Q C ≤ cap, so sep = cap
    // at these weights, whatever the side or the growth.
    // (computed once: prime_term below reads it too)
    const long plain_cap = graded ? -1 : flattening_cap(net.spec, part, 1e8);
    if (!graded && res.value > 0 && plain_cap == res.value) {
        at_caps = true;
        res.converged = true;
        res.failure_bound = 0.0;
    }
    res.kind = at_caps ? RankKind::exact : RankKind::modular_lower_bound;
    // Converged below the caps: the points' bound, plus the chance that p divides a non-zero
    // minor of the coefficient flattening (then even rank mod p of C is below sep).
    std::string prime_note;
    if (!at_caps && res.converged) {
        const double t = prime_term(net, part, res.prime, opt.prime == 0, plain_cap);
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
        case GrowthStop::size_limit:
            ended = res.evaluations == 0 ? "the size limit (max_side) leaves no room for one row per degree block: nothing evaluated, a lower bound only"
                                         : "rank still full at the size limit: a lower bound only";
            break;
    }
    res.note = std::to_string(res.evaluations) + " evaluations mod p; " + res.note + (res.stop_detail.empty() ? "" : res.stop_detail + "; ") +
               (at_caps && graded ? "exact: every degree block reached its cap (its number of monomials), which bounds its rank over Q"
                : at_caps         ? "exact: the rank reached the flattening's cap, " + std::to_string(plain_cap) +
                                (is_homogeneous(net.spec) ? std::string(" (the sum of its degree blocks' caps, their numbers of monomials)")
                                                          : std::string(" (the monomials its smaller side can have)")) +
                                ", which bounds its rank over Q"
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
                 (opt.prime == 0 || fmpz_cmp_ui(d.get(), opt.prime - 1) < 0);  // graded's own d^L + 1 < p
    }
    return finish(graded ? evaluation_rank_graded_impl(net, part, opt) : evaluation_rank_plain_impl(net, part, opt), net, part, opt, t0);
}

}  // namespace seprank
