#include "seprank/degree.hpp"

#include "seprank/dimension.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "algebra/flint_handles.hpp"
#include "algebra/rank_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/forward.hpp"
#include "seprank/generic.hpp"
#include "seprank/partition.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/table.hpp"
#include "base/number_text.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <flint/nmod_poly.h>

namespace seprank {

void check_measurable(const ValidSpec& valid) {
    const NetworkSpec& s = valid.get();
    const Integer D = output_degree(s);
    if (!fmpz_fits_si(D.get()) || fmpz_get_si(D.get()) > 1000000)
        throw resource_limit("degree d^L = " + D.str() + " is beyond the measurable range (10^6)");
    // D + 2 forward passes, each about (parameters + N^2 dx L) operations.
    const double pass = fmpz_get_d(parameter_count(s).get()) * static_cast<double>(s.tokens) +
                        static_cast<double>(s.tokens) * static_cast<double>(s.tokens) * static_cast<double>(s.dim) * static_cast<double>(s.depth + 1);
    const double ops = (fmpz_get_d(D.get()) + 2.0) * pass;
    if (ops > 2e10) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "degree measurement refused: about %.3g operations estimated (%ld forward passes), over the limit of 2e10",
                      ops, fmpz_get_si(D.get()) + 2);
        throw resource_limit(buf);
    }
}

DegreeMeasurement measure_degree(const Network& net, std::uint64_t seed, std::uint64_t p) {
    const bool drawn = p == 0;
    const ValidSpec valid = check_shapes(net);
    check_measurable(valid);
    const Integer D = output_degree(valid);
    const long deg = fmpz_get_si(D.get());
    Rng rng(seed);
    // The interpolation divides by differences of the points t = 0..D+1 and by pivots: a
    // prime above D + 1, or FLINT would abort on a non-invertible residue. Checked before
    // the weights are reduced mod p (a composite p may divide a denominator). A drawn
    // prime has 62 bits, far above D + 1 ≤ 10^6 + 1.
    if (drawn) {
        p = random_prime(rng, 62);
    } else {
        require_prime(p);
        if (p <= static_cast<std::uint64_t>(deg) + 1)
            throw invalid_input("degree measurement mod p = " + std::to_string(p) + ": p must exceed d^L + 1 = " + std::to_string(deg + 1) +
                                " (the points t = 0..d^L+1 must be distinct mod p)");
    }
    // A drawn prime that divides a weight's denominator is drawn again (uniform among the
    // others); a given one is refused (domain_error, the evaluator's).
    std::optional<ModEvaluator> evaluator;
    for (int draw = 0; !evaluator; ++draw) {
        try {
            evaluator.emplace(net, p);
        } catch (const domain_error&) {
            if (!drawn || draw >= 64) throw;
            p = random_prime(rng, 62);
        }
    }
    const ModEvaluator& f = *evaluator;
    // A false low reading: f_D ≠ 0 over Q but f_D(b) ≡ 0 mod p. Either p divides every
    // coefficient of f_D (those of Λ·f, integers below 2^coefficient_bits with Λ the weights'
    // denominators, log2_coefficient_bound), or f_D ≢ 0 mod p vanishes at the random b:
    // at most D/p (Schwartz–Zippel). A drawn prime divides a non-zero integer of B bits
    // with probability at most prime_divisor_bound(B), over the primes that divide no
    // denominator; a given prime above every coefficient divides none, and below, nothing
    // bounds the chance (1).
    const double coefficient_bits = log2_coefficient_bound(net);
    const unsigned bits = static_cast<unsigned>(64 - __builtin_clzll(p));
    double content = 0;
    if (drawn) {
        double denominators = 0;  // log2 of the product of the weights' denominators
        (void)map_weights<char>(net.weights, [&denominators](const Rational& x) {
            denominators += std::max(0.0, log2_abs(fmpq_denref(x.get())));
            return char{0};
        });
        const double avoided = denominators > 0 ? detail::prime_divisor_bound(denominators, bits) : 0.0;
        content = avoided >= 1 ? 1.0 : detail::prime_divisor_bound(coefficient_bits, bits) / (1.0 - avoided);
    } else if (!(coefficient_bits < std::log2(static_cast<double>(p)))) {
        content = 1.0;
    }
    const NetworkSpec& s = f.spec();
    const long per = input_vars_per_token(s);
    Point<std::uint64_t> a(static_cast<std::size_t>(s.tokens)), b = a, x = a;
    for (std::size_t j = 0; j < a.size(); ++j)
        for (long c = 0; c < per; ++c) {
            a[j].push_back(rng.below(p));
            b[j].push_back(rng.below(p));
            x[j].push_back(0);
        }
    nmod_t mod;
    nmod_init(&mod, p);
    const long npts = deg + 2;
    std::vector<mp_limb_t> ts(static_cast<std::size_t>(npts)), ys(static_cast<std::size_t>(npts));
    for (long k = 0; k < npts; ++k) {
        const std::uint64_t t = static_cast<std::uint64_t>(k) % p;
        for (std::size_t j = 0; j < a.size(); ++j)
            for (std::size_t c = 0; c < a[j].size(); ++c) x[j][c] = nmod_add(a[j][c], nmod_mul(t, b[j][c], mod), mod);
        ts[static_cast<std::size_t>(k)] = t;
        ys[static_cast<std::size_t>(k)] = f(x);
    }
    detail::NmodPoly g(p);
    nmod_poly_interpolate_nmod_vec(g.get(), ts.data(), ys.data(), deg + 1);
    const bool consistent = nmod_poly_evaluate_nmod(g.get(), ts.back()) == ys.back();
    const long measured = nmod_poly_degree(g.get());
    if (!consistent)
        throw domain_error("degree measurement: f along a line has degree above d^L = " + D.str() +
                           " (structural bound violated; please report)");
    return {measured < 0 ? -1 : measured, D, std::min(1.0, static_cast<double>(deg) / static_cast<double>(p) + content), p};
}

DegreeRow degree_row(const Network& net, std::uint64_t seed, double max_expand_bytes) {
    if (!(max_expand_bytes >= 0))
        throw invalid_input("degree row: max expand bytes " + number_text(max_expand_bytes) + " must be >= 0 (inf: always expand)");
    const auto t0 = std::chrono::steady_clock::now();
    const DegreeMeasurement m = measure_degree(net, seed);
    DegreeRow row;
    row.depth = net.spec.depth;
    row.degree = row.line_degree = m.degree;
    row.predicted = m.predicted;
    row.parameters = parameter_count(net.spec);
    row.weight_degree = weight_degree(net.spec);
    row.false_low_bound = m.false_low_bound;
    if (estimate_expansion(net.spec).bytes <= max_expand_bytes) {
        const QPoly f = expand(net);
        row.terms = f.terms();
        row.degree = f.is_zero() ? -1 : f.degree();  // exact, where the line's reading has a chance to be low
        row.false_low_bound = 0;
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return row;
}

BudgetComparison budget_comparison(const NetworkSpec& base, long budget, const std::vector<long>& degrees,
                                   std::uint64_t seed) {
    return budget_comparison(base, budget, degrees, seed, BudgetOptions{});
}

namespace {
constexpr double kMaxPredictedBits = 131072;  // 2^17: the largest predicted d^L of a budget row
constexpr long kMaxCountedDepth = 1000000;     // the deepest budget row counted (its parameters, layer by layer)
}  // namespace

void check_budget_family(Family family) {
    const FamilyInfo& info = family_info(family);
    std::string free;  // the uniform families whose block degree is a parameter
    for (Family f : all_families())
        if (family_info(f).uniform && family_info(f).fixed_block_degree == 0) free += (free.empty() ? "" : " or ") + to_string(f);
    if (!info.uniform)
        throw invalid_input("budget comparison: base.family " + std::string(info.name) +
                            " is not L copies of one block of degree d, which the comparison varies (use family " + free + ")");
    if (info.fixed_block_degree > 0)
        throw invalid_input("budget comparison: base.family " + std::string(info.name) + " fixes the block degree at " +
                            std::to_string(info.fixed_block_degree) + ", and the comparison varies it (use family " + free + ")");
}

BudgetComparison budget_comparison(const NetworkSpec& base, long budget, const std::vector<long>& degrees,
                                   std::uint64_t seed, const BudgetOptions& opt) {
    if (opt.dimension || opt.rank) check_threads(opt.threads, "budget comparison: threads");
    if (opt.rank && base.tokens < 2)
        throw invalid_input("budget comparison: the rank needs a partition, so at least 2 tokens (base.tokens = " +
                            std::to_string(base.tokens) + ")");
    if (budget < 1) throw invalid_input("budget B = " + std::to_string(budget) + " must be at least 1");
    if (degrees.empty()) throw invalid_input("budget comparison: no block degree given (degrees is empty)");
    check_budget_family(base.family);
    // fc given one width W (base.widths = {W}): every layer W wide, so the first maps N·dx
    // inputs to W and each later one W to W; otherwise (no list) every layer N·dx wide.
    if (base.widths.size() > 1)
        throw invalid_input("budget comparison: base.widths lists " + std::to_string(base.widths.size()) +
                            " widths; the budget chooses the depth, so give one width for every layer (or none)");
    auto at_depth = [&base](long d, long depth) {  // L = depth blocks of degree d
        NetworkSpec s = base;
        s.block_degree = d;
        s.depth = depth;
        if (!base.widths.empty()) s.widths.assign(static_cast<std::size_t>(depth), base.widths.front());
        return s;
    };
    // The parameters of the first layer and of each later one (equal but for fc whose width
    // W is not N·dx), and the depth B buys: as many layers as fit.
    struct Costs {
        long first, later;
    };
    auto costs = [&](long d) {
        // The one-layer network is validated (its sizes, its memory); the second layer is
        // only counted: a budget that buys one layer must not need two to fit.
        const Integer one = layer_parameters(ValidSpec(at_depth(d, 1)), 0);
        const long first = fmpz_get_si(one.get());
        const long later = base.widths.empty() ? first : fmpz_get_si((parameter_count(at_depth(d, 2)) - parameter_count(at_depth(d, 1))).get());
        return Costs{first, later};
    };
    auto depth_bought = [&](const Costs& c) { return budget < c.first ? 0L : 1 + (budget - c.first) / c.later; };
    // The predicted d^L of every row first: beyond 2^17 bits (about 39,000 digits) it is
    // refused before any row is built (computing and printing it grows without use).
    std::vector<Costs> cost;  // each degree's, in the order of degrees
    for (long d : degrees) {
        cost.push_back(costs(d));
        const long depth = depth_bought(cost.back());
        const double bits = static_cast<double>(depth) * std::log2(static_cast<double>(d));
        if (bits > kMaxPredictedBits)
            throw resource_limit("budget B = " + std::to_string(budget) + " buys depth L = " + std::to_string(depth) + " at block degree d = " +
                                 std::to_string(d) + ": d^L would have about " + std::to_string(static_cast<long>(bits * 0.30103) + 1) +
                                 " digits, more than the " + std::to_string(static_cast<long>(kMaxPredictedBits * 0.30103)) + " shown at most");
        if (depth > kMaxCountedDepth)  // d = 1 predicts 1 at any depth, but the counts walk every layer
            throw resource_limit("budget B = " + std::to_string(budget) + " buys depth L = " + std::to_string(depth) + " at block degree d = " +
                                 std::to_string(d) + ", more than the " + std::to_string(kMaxCountedDepth) + " layers a row counts");
    }
    BudgetComparison out{{}, 0, 0};
    double best_log = -1, best_h = -1;
    for (std::size_t i = 0; i < degrees.size(); ++i) {
        const long d = degrees[i];
        const Costs& c = cost[i];
        BudgetRow row;
        row.block_degree = d;
        row.layer_params = Integer(c.first);
        // As many layers as the budget buys: counted (any depth), validated by
        // random_network only where measured.
        row.depth = depth_bought(c);
        NetworkSpec s = at_depth(d, row.depth);
        row.total_params = parameter_count(s);
        row.predicted = output_degree(s);
        row.h = std::log(static_cast<double>(d)) / static_cast<double>(d);
        row.log_degree_per_param = static_cast<double>(row.depth) * std::log(static_cast<double>(d)) / static_cast<double>(budget);
        const bool buildable = row.depth <= kMaxDepth;
        if (!buildable)
            row.note = "depth L = " + std::to_string(row.depth) + " exceeds " + std::to_string(kMaxDepth) +
                       ", the deepest network built: counted, not measured";
        const bool small = fmpz_fits_si(row.predicted.get()) && fmpz_get_si(row.predicted.get()) <= 20000;
        if (buildable && !small)
            row.note = "predicted degree d^L above 20000, the largest measured along a line: not measured, the prediction counts";
        if (buildable && small) {
            row.measured = measure_degree(random_network(s, seed), seed).degree;
            if (row.measured < 0) row.note = "the drawn network's output is the zero polynomial (no degree): not measured";
        }
        if (c.later != c.first)
            row.note += std::string(row.note.empty() ? "" : "; ") + "the first layer has " + std::to_string(c.first) +
                        " parameters (its inputs N·dx wide), each later one " + std::to_string(c.later);
        if ((opt.dimension || opt.rank) && row.depth > 0 && buildable) {
            const ValidSpec deep(s);  // the depth-L spec, validated once for both
            if (opt.dimension) {
                DimensionOptions o;
                o.seed = seed;
                o.threads = opt.threads;
                row.dimension = function_dimension(deep, o);
            }
            if (opt.rank) {
                GenericOptions g = table_generic_defaults();
                g.seed = seed;
                g.threads = opt.threads;
                row.rank = generic_rank(deep, balanced_partition(s.tokens), g);
            }
        }
        // A row measured where the prediction counts (too deep or too high to measure); none
        // whose drawn output is the zero polynomial (it reached no degree).
        const bool zero = buildable && small && row.measured < 0;
        const double reached = row.measured >= 0 ? std::log(static_cast<double>(std::max(1L, row.measured)))
                                                 : static_cast<double>(row.depth) * std::log(static_cast<double>(d));
        if (!zero && reached > best_log + 1e-12) {
            best_log = reached;
            out.best_measured_d = d;
        }
        if (row.h > best_h + 1e-12) {
            best_h = row.h;
            out.best_h_d = d;
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

}  // namespace seprank
