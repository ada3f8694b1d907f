// seprank — a network's neurovariety: dimension, degree and the slice's fibre, counted mod
// p (variety.hpp; docs/variety.md).
#include "seprank/variety.hpp"

#include "algebra/groebner.hpp"
#include "algebra/interpolation.hpp"
#include "algebra/polytope.hpp"
#include "algebra/quotient.hpp"
#include "base/saturating.hpp"
#include "network/support.hpp"
#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"
#include "seprank/model.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/nmod_mat.h>
#include <flint/nmod_vec.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <map>
#include <set>
#include <utility>

namespace seprank {

namespace {

using algebra_detail::ModPoly;
using algebra_detail::ModTerm;

// The most monomials of the scalar output whose coefficients a slice's values are sampled in.
constexpr long kMaxOutputMonomials = 1000000;

// A copy of `shape` (weights of m's shapes, structural zeros 0) with the varied entries,
// in weight_entries' order (dimension_weight_entries), set to the residues `vals`.
Weights place(const Model& m, const Weights& shape, const std::vector<std::uint64_t>& vals) {
    Weights w = shape;
    const std::vector<Rational*> entries = dimension_weight_entries(m.valid(), w);
    for (std::size_t v = 0; v < entries.size(); ++v) *entries[v] = Rational(static_cast<long>(vals[v]));
    return w;
}


// Kushnirenko's bound on the section's solutions on the slice that frees the varied
// weights `free` (the others fixed at any values; docs/variety.md, "The degree's upper
// bound"): n!·vol(conv(S ∪ {0})), S the support of f in the free weights
// (forward_support). -1, with why, where the support or the volume passes its limits.
long kushnirenko_bound(const Model& m, const std::vector<long>& free, long wdeg, std::string& why) {
    const long n = static_cast<long>(free.size());
    // Entries in weight_entries' order (map_weights'): a varied one is t_k where `free`
    // lists it, else fixed; the others are structural zeros, 0 in every network.
    const std::vector<bool>& mask = m.varied_mask();
    std::vector<long> position(mask.size(), detail::kWeightFixed);  // per varied entry
    for (long k = 0; k < n; ++k) position[static_cast<std::size_t>(free[static_cast<std::size_t>(k)])] = k;
    std::size_t entry = 0, varied = 0;
    const NetWeights<long> roles = map_weights<long>(m.draw_weights(1, 1), [&](const Rational&) {
        return mask[entry++] ? position[varied++] : detail::kWeightZero;
    });
    try {
        std::vector<std::vector<long>> pts = detail::forward_support(m.valid(), roles, n, wdeg);
        pts.emplace_back(static_cast<std::size_t>(n), 0);  // the section's constant
        const Integer v = algebra_detail::normalized_volume(pts, n);
        if (v > Integer(LONG_MAX)) {
            why = "the bound " + v.str() + " passes 2^63";
            return -1;
        }
        return static_cast<long>(fmpz_get_si(v.get()));
    } catch (const resource_limit& e) {
        why = e.what();
        return -1;
    }
}

Point<std::uint64_t> random_point(Rng& rng, long N, long vars, std::uint64_t p) {
    Point<std::uint64_t> pt(static_cast<std::size_t>(N), std::vector<std::uint64_t>(static_cast<std::size_t>(vars)));
    for (auto& row : pt)
        for (auto& x : row) x = rng.below(p);
    return pt;
}

// len residues drawn uniformly from [0, p).
std::vector<std::uint64_t> draw_residues(Rng& rng, long len, std::uint64_t p) {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(len));
    for (auto& x : v) x = rng.below(p);
    return v;
}

// What a trial shares between its slices: the prime, the base point a, the inputs x_j and
// the section (n combinations mu of the g_j, minus the constants c).
struct TrialSetup {
    std::uint64_t p = 0;
    nmod_t mod{};
    long n = 0, wdeg = 0, varied = 0, Jn = 0;
    int threads = 1;  // the interpolation's
    Weights shape;  // m's shapes, drawn once, structural zeros 0: place() fills its varied entries
    std::vector<std::uint64_t> a;
    std::vector<Point<std::uint64_t>> xs;
    std::vector<std::uint64_t> xs_flat;  // the same points, one after another (ModBatchEvaluator's layout)
    std::vector<std::vector<std::uint64_t>> mu;
    std::vector<std::uint64_t> c;
};

// The coordinates g_j(t) = f(x_j; a + B t) on the slice w = a + B t (B: varied × n),
// interpolated: row e of C holds the g_j's coefficients of the monomial mons[e].
algebra_detail::Interpolated interpolate_slice(const Model& m, const TrialSetup& st, const std::vector<std::vector<std::uint64_t>>& B, Rng& rng) {
    const nmod_t mod = st.mod;
    const long n = st.n;
    const auto values = [&](const std::vector<std::uint64_t>& t, std::vector<std::uint64_t>& y) {
        std::vector<std::uint64_t> w(st.a);
        for (long q = 0; q < st.varied; ++q)
            for (long i = 0; i < n; ++i)
                w[static_cast<std::size_t>(q)] = nmod_add(w[static_cast<std::size_t>(q)], nmod_mul(B[static_cast<std::size_t>(q)][static_cast<std::size_t>(i)], t[static_cast<std::size_t>(i)], mod), mod);
        // all Jn inputs in one batched pass (the values of ModEvaluator, several points a lane)
        const ModBatchEvaluator ev(Network{m.spec(), place(m, st.shape, w)}, st.p);
        ev.evaluate(st.xs_flat.data(), static_cast<std::size_t>(st.Jn), y.data());
    };
    return algebra_detail::interpolate_total_degree(n, st.wdeg, st.Jn, st.p, values, rng, algebra_detail::InterpolationVariant::newton, st.threads);
}

ModPoly poly_of(const algebra_detail::Interpolated& sys, const std::vector<std::uint64_t>& coef) {
    ModPoly f;
    for (std::size_t e = 0; e < coef.size(); ++e)
        if (coef[e] != 0) f.push_back(ModTerm{coef[e], sys.mons[e]});
    return f;
}

// The section's solutions on the slice: Σ_j mu_ij g_j(t) = c_i, i = 1..n (count -1: not
// counted). Asked to certify, with at most kCertifyMaxPoints solutions, also a lower bound
// on the number of distinct values of a random combination Σ_j nu_j g_j on them where
// every solution is simple (images; -1 where not certified): distinct values are distinct
// functions (docs/variety.md, "The degree's lower bound"). The certificate's draws come
// from a stream of its own (seeded by p and the section's constants), so the trial's other
// draws are the same with or without it.
struct SectionCount {
    long count = -1;
    long images = -1;
    std::string uncertified;  // why images is -1, when it was asked for
    bool limited = false;     // uncertified names the memory or time limit
};
SectionCount section_count(const TrialSetup& st, const algebra_detail::Interpolated& sys, bool certify) {
    SectionCount res;
    if (!sys.ok) return res;
    const nmod_t mod = st.mod;
    const long Nn = static_cast<long>(sys.mons.size());
    // row i < n: the section's equation i; row n: the combination whose values are counted
    std::uint64_t mix = st.p;  // the certificate's stream: from the trial's own draws
    for (std::uint64_t x : st.c) {
        std::uint64_t state = mix;
        mix = splitmix64(state) ^ x;
    }
    Rng cert(mix);
    std::vector<std::vector<std::uint64_t>> combos = st.mu;
    combos.push_back(draw_residues(cert, st.Jn, st.p));
    std::vector<ModPoly> section;
    ModPoly value;
    for (long i = 0; i <= st.n; ++i) {
        std::vector<std::uint64_t> coef(static_cast<std::size_t>(Nn), 0);
        for (long j = 0; j < st.Jn; ++j) {
            const std::uint64_t mu = combos[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
            for (long e = 0; e < Nn; ++e) coef[static_cast<std::size_t>(e)] = nmod_add(coef[static_cast<std::size_t>(e)], nmod_mul(mu, nmod_mat_entry(sys.C.get(), e, j), mod), mod);
        }
        if (i == st.n) {
            value = poly_of(sys, coef);
            break;
        }
        coef[0] = nmod_sub(coef[0], st.c[static_cast<std::size_t>(i)], mod);
        section.push_back(poly_of(sys, coef));
    }
    algebra_detail::GroebnerBasis basis = algebra_detail::groebner_basis(section, st.n, st.p);
    const algebra_detail::SolutionCount counted = algebra_detail::count_of(basis);
    res.count = counted.count;
    // the matrices and the normal forms' table: 2·n·c² words
    const double words = 2.0 * static_cast<double>(st.n) * static_cast<double>(res.count) * static_cast<double>(res.count);
    if (!certify) return res;
    if (res.count <= 0) res.uncertified = res.count == 0 ? "the section has no solution" : "the section is not zero-dimensional";
    else if (res.count > kCertifyMaxPoints) res.uncertified = std::to_string(res.count) + " section solutions, over " + std::to_string(kCertifyMaxPoints);
    else if (8.0 * words > default_max_memory()) {
        res.uncertified = "the quotient's matrices (2·n·c² words) pass the memory limit (" + default_max_memory_name() + ")";
        res.limited = true;
    }
    // The certificate's time, O(c³) (the Krylov solve and the products mod χ of degree c):
    // about 1.5·10^-8·c³ s, fitted on one run (c = 1536: 55–65 s of the command's 71 s on
    // 2 cores), weighed against the time limit as the memory is against its limit.
    else if (const double secs = 1.5e-8 * std::pow(static_cast<double>(res.count), 3.0); secs > default_max_seconds()) {
        res.uncertified = "certifying " + std::to_string(res.count) + " section solutions (about " + format_seconds(secs) +
                          ", O(c³)) passes the time limit";
        res.limited = true;
    }
    if (!res.uncertified.empty()) return res;
    const algebra_detail::Quotient q = algebra_detail::quotient_of(std::move(basis), kCertifyMaxPoints);
    const algebra_detail::SimplePoints sp = algebra_detail::simple_points(q, section, value, cert, algebra_detail::SimpleVariant::separating, st.threads);
    res.images = sp.simple ? sp.distinct : -1;
    if (!sp.simple) res.uncertified = "the section's solutions are not all simple";
    else if (sp.distinct < 0) res.uncertified = "no linear form separated the section's solutions";
    return res;
}

// The fibre's solutions through a random t0: g_j(t) = g_j(t0) for every j (-1: not counted).
long fibre_count(const TrialSetup& st, const algebra_detail::Interpolated& sys, Rng& rng) {
    if (!sys.ok) return -1;
    const nmod_t mod = st.mod;
    const long Nn = static_cast<long>(sys.mons.size());
    const std::vector<std::uint64_t> at = algebra_detail::monomial_values(sys.mons, draw_residues(rng, st.n, st.p), st.p);
    std::vector<ModPoly> fibre;
    for (long j = 0; j < st.Jn; ++j) {
        std::vector<std::uint64_t> coef(static_cast<std::size_t>(Nn));
        std::uint64_t value = 0;
        for (long e = 0; e < Nn; ++e) {
            coef[static_cast<std::size_t>(e)] = nmod_mat_entry(sys.C.get(), e, j);
            value = nmod_add(value, nmod_mul(coef[static_cast<std::size_t>(e)], at[static_cast<std::size_t>(e)], mod), mod);
        }
        coef[0] = nmod_sub(coef[0], value, mod);
        fibre.push_back(poly_of(sys, coef));
    }
    return algebra_detail::solution_count(fibre, st.n, st.p).count;
}

// The slice that frees the weights `free` (indices among the varied ones), fixing the others.
std::vector<std::vector<std::uint64_t>> gauge_matrix(long varied, const std::vector<long>& free) {
    std::vector<std::vector<std::uint64_t>> G(static_cast<std::size_t>(varied), std::vector<std::uint64_t>(free.size(), 0));
    for (std::size_t i = 0; i < free.size(); ++i) G[static_cast<std::size_t>(free[i])][i] = 1;
    return G;
}

// The pivot columns of J's reduced row echelon form (on a copy), its columns taken first to
// last, or last to first (`from_last`: then the last independent columns), increasing.
std::vector<long> pivot_columns(const NmodMat& J, bool from_last) {
    const long cols = J.cols();
    NmodMat R(J.rows(), cols, J.modulus());
    for (long r = 0; r < J.rows(); ++r)
        for (long q = 0; q < cols; ++q) nmod_mat_entry(R.get(), r, from_last ? cols - 1 - q : q) = nmod_mat_entry(J.get(), r, q);
    const long rank = nmod_mat_rref(R.get());
    std::vector<long> piv;
    for (long r = 0; r < rank; ++r)
        for (long q = 0; q < cols; ++q)
            if (nmod_mat_entry(R.get(), r, q) != 0) {
                piv.push_back(from_last ? cols - 1 - q : q);
                break;
            }
    std::sort(piv.begin(), piv.end());
    return piv;
}

// One trial, its prime drawn from rng until it is none of `used` (the earlier trials'):
// the trials' primes are distinct (3,030 16-bit primes; at most 1,000 trials).
// Trial t of `trials` reports each step it begins to the caller's observer (progress.hpp).
VarietyTrial one_trial(const Model& m, const VarietyOptions& opt, Rng& rng, long wdeg, const std::set<std::uint64_t>& used, long t,
                       long trials) {
    const ProgressObserver& obs = current_progress();
    const auto step = [&](const std::string& what) {
        report_progress(obs, "variety trials", static_cast<std::uint64_t>(t), static_cast<std::uint64_t>(trials),
                        "trial " + std::to_string(t + 1) + ": " + what);
    };
    VarietyTrial tr;
    TrialSetup st;
    do st.p = random_prime(rng, 16);
    while (used.count(st.p) != 0);
    tr.prime = st.p;
    nmod_init(&st.mod, st.p);
    st.shape = m.draw_weights(1, 1);
    st.wdeg = wdeg;
    st.threads = opt.threads;
    st.varied = static_cast<long>(fmpz_get_si(m.varied_parameters().get()));
    const std::uint64_t p = st.p;
    const long N = m.spec().tokens, vars = m.input_vars_per_token();
    // The dimension: the Jacobian's rank mod p at the base point, varied + 8 rows. Its pivot
    // columns, first to last, are the weights the gauge slice frees; last to first, the
    // weights a second slice frees (the degree slice, below).
    st.a = draw_residues(rng, st.varied, p);
    std::vector<long> first, last;
    step("the Jacobian's pivot weights (" + std::to_string(st.varied + 8) + " rows)");
    {
        std::vector<Point<std::uint64_t>> pts;
        for (long s = 0; s < st.varied + 8; ++s) pts.push_back(random_point(rng, N, vars, p));
        const NmodMat J = dimension_jacobian(Network{m.spec(), place(m, st.shape, st.a)}, pts, p, DimensionOutput::scalar, DimensionVariant::reverse, 1);
        first = pivot_columns(J, false);
        last = pivot_columns(J, true);
        tr.last_free_weights = last;
        tr.dimension = static_cast<long>(first.size());
    }
    const long n = st.n = tr.dimension;
    if (n == 0) {  // X is a point: degree 1, the whole weight space one fibre
        tr.gauge_fibre_points = tr.degree_fibre_points = tr.degree_section_points = 1;
        tr.section_images = 1;  // deg X = 1, certain
        if (opt.generic_slice) tr.section_points = tr.fibre_points = 1;
        return tr;
    }
    if (n > opt.max_unknowns)
        throw resource_limit("variety: dimension " + std::to_string(n) + " is over max_unknowns " + std::to_string(opt.max_unknowns));
    const long Nn = detail::binomial_saturated(n + wdeg, n);
    if (Nn > opt.max_interpolation)
        throw resource_limit("variety: interpolating in " + std::to_string(n) + " unknowns to degree " + std::to_string(wdeg) + " takes " +
                             (Nn == LONG_MAX ? std::string("too many") : std::to_string(Nn)) + " values, over max_interpolation " +
                             std::to_string(opt.max_interpolation));
    const long M = m.output_space(true);  // at most kMaxOutputMonomials: network_variety checked it first
    st.Jn = M + 8;
    // The interpolation's values, Nn points by Jn samples (interpolate_slice), before any
    // point is evaluated: the same matrix was refused after 40 s of evaluations otherwise.
    // At its peak a slice holds two such matrices (the values and the solved ones), and a
    // second slice (the degree slice on other weights, the generic slice) one more beside
    // the first's.
    const bool two_slices = opt.generic_slice || (last != first && opt.degree_slice == DegreeSlice::smallest_fibre);
    check_memory((two_slices ? 24.0 : 16.0) * static_cast<double>(Nn) * static_cast<double>(st.Jn), default_max_memory(),
                 "variety: interpolating in " + std::to_string(n) + " unknowns to degree " + std::to_string(wdeg) + ", a " + std::to_string(Nn) +
                     "x" + std::to_string(st.Jn) + " matrix held " + (two_slices ? "3" : "2") + " times at once");
    for (long j = 0; j < st.Jn; ++j) st.xs.push_back(random_point(rng, N, vars, p));
    for (const auto& x : st.xs)
        for (const auto& token : x) st.xs_flat.insert(st.xs_flat.end(), token.begin(), token.end());
    for (long i = 0; i < n; ++i) st.mu.push_back(draw_residues(rng, st.Jn, p));
    st.c = draw_residues(rng, n, p);
    // The gauge slice: the first pivot weights free, every other one fixed at its value in
    // a; its fibre keeps the discrete symmetries (gauge_fibre_points). The degree slice frees
    // the last pivot weights instead: fixing a unit's incoming weight, not its outgoing one,
    // also fixes the roots of unity of its scale, so its fibre is often smaller (1 for
    // chains of filters) and its section, deg X times that fibre, far cheaper to count. The
    // section is counted on whichever of the two has the smaller fibre.
    // The degree slice's section: counted and certified (section_count).
    const std::string size = std::to_string(Nn) + " coefficients in " + std::to_string(n) + " unknowns";
    const auto degree_section = [&](const algebra_detail::Interpolated& sys) {
        step("the degree section (Groebner bases)");
        const SectionCount sc = section_count(st, sys, true);
        tr.degree_section_points = sc.count;
        tr.section_images = sc.images;
        tr.uncertified = sc.uncertified;
        tr.limited = sc.limited;
    };
    step("interpolating the gauge slice (" + size + ")");
    const algebra_detail::Interpolated gauge = interpolate_slice(m, st, gauge_matrix(st.varied, first), rng);
    step("the gauge slice's fibre (a Groebner basis)");
    tr.gauge_fibre_points = fibre_count(st, gauge, rng);
    tr.free_weights = first;
    tr.degree_free_weights = first;
    tr.degree_fibre_points = tr.gauge_fibre_points;
    if (last != first && opt.degree_slice == DegreeSlice::smallest_fibre) {
        step("interpolating the degree slice (" + size + ")");
        algebra_detail::Interpolated other = interpolate_slice(m, st, gauge_matrix(st.varied, last), rng);
        step("the degree slice's fibre (a Groebner basis)");
        const long k = fibre_count(st, other, rng);
        if (k > 0 && (tr.gauge_fibre_points <= 0 || k < tr.gauge_fibre_points)) {
            tr.degree_free_weights = last;
            tr.degree_fibre_points = k;
            degree_section(other);
        }
    }
    if (tr.degree_free_weights == first) degree_section(gauge);
    // The generic slice (asked for): B random; dense equations, a far costlier basis.
    if (opt.generic_slice) {
        std::vector<std::vector<std::uint64_t>> B(static_cast<std::size_t>(st.varied));
        for (auto& row : B) row = draw_residues(rng, n, p);
        step("interpolating the generic slice (" + size + ")");
        const algebra_detail::Interpolated generic = interpolate_slice(m, st, B, rng);
        step("the generic slice's section and fibre (Groebner bases)");
        tr.section_points = section_count(st, generic, false).count;
        tr.fibre_points = fibre_count(st, generic, rng);
    }
    return tr;
}

}  // namespace

void check_options(const VarietyOptions& opt) {
    if (opt.trials < 1 || opt.trials > 1000) throw invalid_input("trials " + std::to_string(opt.trials) + " outside 1..1000");
    if (opt.max_unknowns < 1) throw invalid_input("max unknowns " + std::to_string(opt.max_unknowns) + " is below 1");
    if (opt.max_interpolation < 1) throw invalid_input("max interpolation " + std::to_string(opt.max_interpolation) + " is below 1");
    check_threads(opt.threads);
    if (opt.max_equation_monomials < 0)
        throw invalid_input("max equation monomials " + std::to_string(opt.max_equation_monomials) + " is negative");
}

VarietyAnswer network_variety(const ValidSpec& spec, const VarietyOptions& opt) {
    check_options(opt);
    const auto t0 = std::chrono::steady_clock::now();
    const Model m(spec);
    VarietyAnswer res;
    res.parameters = static_cast<long>(fmpz_get_si(m.varied_parameters().get()));
    if (res.parameters == 0) throw invalid_input("network: it has no parameters (depth " + std::to_string(spec.get().depth) + ", no embedding)");
    // f's degree in the weights: D_w, plus d^L for an embedding's entries.
    Integer dw = m.spec().embed_rank > 0 ? m.weight_degree() + m.degree() : m.weight_degree();
    if (dw > Integer(10000)) throw resource_limit("variety: weight degree " + dw.str() + " is too large to interpolate");
    const long wdeg = static_cast<long>(fmpz_get_si(dw.get()));
    // The monomials of the scalar output, known before any work (it ran the dimension and
    // the pivot weights first, minutes at N = 2^20, before this refusal: a hunt, 2026-12-02)
    const long M = m.output_space(true);
    if (M == LONG_MAX || M > kMaxOutputMonomials)
        throw resource_limit("variety: the output has " + (M == LONG_MAX ? std::string("over 2^63") : std::to_string(M)) + " monomials, over the " +
                             std::to_string(kMaxOutputMonomials) + " whose coefficients a slice is interpolated in (refused before any work)");
    DimensionOptions dopt;
    dopt.seed = opt.seed;
    res.dimension_answer = function_dimension(spec, dopt);
    res.dimension = res.dimension_answer.value;
    // Each trial its own stream, derived in order; the trials run one after another, each
    // interpolating on opt.threads threads (its Gröbner bases take one: MathicGB is not
    // reentrant), so the counts are the same on any number of threads.
    Rng rng(opt.seed);
    std::set<std::uint64_t> used;
    for (long t = 0; t < opt.trials; ++t) {
        Rng stream = rng.split(static_cast<std::uint64_t>(t));
        res.trials.push_back(one_trial(m, opt, stream, wdeg, used, t, opt.trials));
        used.insert(res.trials.back().prime);
    }
    report_progress(current_progress(), "variety trials", static_cast<std::uint64_t>(opt.trials), static_cast<std::uint64_t>(opt.trials));
    const VarietyTrial& first = res.trials.front();
    res.agreed = first.degree_fibre_points > 0 && first.degree_section_points >= 0 && first.degree_section_points % first.degree_fibre_points == 0 &&
                 first.gauge_fibre_points > 0;
    const long degree = res.agreed ? first.degree_section_points / first.degree_fibre_points : -1;
    for (const VarietyTrial& tr : res.trials) {
        res.agreed = res.agreed && tr.dimension == res.dimension && tr.free_weights == first.free_weights &&
                     tr.gauge_fibre_points == first.gauge_fibre_points && tr.degree_free_weights == first.degree_free_weights &&
                     tr.degree_section_points == first.degree_section_points && tr.degree_fibre_points == first.degree_fibre_points;
        if (opt.generic_slice)  // the generic slice's section must hold deg X times its fibre
            res.agreed = res.agreed && tr.fibre_points > 0 && tr.fibre_points == first.fibre_points && tr.section_points == degree * tr.fibre_points;
    }
    res.fibre_dimension = res.parameters - res.dimension;
    // The certified lower bound: any trial whose n is the dimension's (docs/variety.md).
    for (const VarietyTrial& tr : res.trials)
        if (tr.dimension == res.dimension && tr.section_images > res.degree_at_least) res.degree_at_least = tr.section_images;
    if (res.degree_at_least >= 0) res.degree_at_least_failure_bound = res.dimension_answer.failure_bound;
    // The upper bound: the least Kushnirenko bound of the slices of the trials with that n
    // (each slice's Jacobian has rank n: the slice reaches X; docs/variety.md).
    std::string no_upper;
    std::map<std::vector<long>, long> slice_bound;  // each slice's bound (-1: none)
    {
        for (const VarietyTrial& tr : res.trials)
            if (tr.dimension == res.dimension && res.dimension > 0) {
                slice_bound[tr.free_weights] = -1;  // the gauge slice
                slice_bound[tr.last_free_weights] = -1;  // whatever degree_slice chose to count on
            }
        for (auto& [free, b] : slice_bound) {
            if (free.empty()) continue;
            std::string why;
            b = kushnirenko_bound(m, free, wdeg, why);
            if (b >= 0 && (res.degree_at_most < 0 || b < res.degree_at_most)) res.degree_at_most = b;
            if (b < 0 && no_upper.empty()) no_upper = why;
        }
        if (res.dimension == 0) res.degree_at_most = 1;  // a point
        if (res.degree_at_most >= 0) res.degree_at_most_failure_bound = res.dimension_answer.failure_bound;
    }
    // The image's equation where X is a hypersurface of its span (equation.hpp): degrees
    // below degree_at_least hold none once it proves dim X = n, nor above degree_at_most.
    if (opt.max_equation_monomials == 0) {
        res.equation.why = "not searched (max_equation_monomials 0)";
    } else if (res.dimension >= 0) {
        EquationOptions eo;
        eo.seed = opt.seed;
        eo.max_monomials = opt.max_equation_monomials;
        // X's degree is at least degree_at_least (once the equation proves n) and usually
        // that: two degrees more at most, and never past degree_at_most.
        eo.min_degree = std::clamp(res.degree_at_least, 1L, 64L);
        eo.max_degree = std::min(eo.min_degree + 2, 64L);
        if (res.degree_at_most >= 0) eo.max_degree = std::clamp(res.degree_at_most, eo.min_degree, eo.max_degree);
        res.equation = image_equation(spec, res.dimension, eo);
    }
    if (res.agreed) {
        res.degree = degree;
        res.gauge_fibre_points = first.gauge_fibre_points;
        res.free_weights = first.free_weights;
        res.degree_free_weights = first.degree_free_weights;
        res.degree_fibre_points = first.degree_fibre_points;
        if (opt.generic_slice) res.fibre_points = first.fibre_points;
        res.label = "counted over the closure of Z/p in " +
                    (res.trials.size() == 1 ? std::string("1 trial (a 16-bit prime, a random slice and section)")
                                            : std::to_string(res.trials.size()) + " trials (distinct 16-bit primes, independent slices and sections), which agree") +
                    "; each count is the count over C unless its prime, slice or section is special, a chance not bounded here";
    } else {
        res.label = "the trials disagree, with each other or with the dimension (or a system was not zero-dimensional): no degree claimed";
    }
    // dim X = n exact (the rank reached a bound proven from above: dimension.md, "Exact"):
    // the degree's bounds need no assumption on it
    const bool dim_exact = res.dimension_answer.kind == RankKind::exact;
    const std::string given_dim = dim_exact ? " (dim X = n is exact)" : ", assuming dim X = n";
    if (res.degree_at_least >= 0) {
        res.label += res.equation.degree >= 1 || dim_exact ? "; degree_at_least is proven (simple solutions, distinct functions)"
                                              : "; degree_at_least is proven (simple solutions, distinct functions) assuming dim X = n, which fails with probability at most degree_at_least_failure_bound";
    } else {  // why no trial certified: the first trial's reason (or its dimension)
        const VarietyTrial& t = res.trials.front();
        res.label += "; no degree_at_least: " + (t.dimension != res.dimension ? std::string("the trials' dimension is not the dimension's")
                                                 : t.uncertified.empty() ? std::string("no section certified") : t.uncertified);
    }
    // deg X itself where the equation generates X's ideal (or X fills its span); an
    // equation not shown to be the least bounds it from above and still proves dim X.
    const bool eq_least = res.equation.degree >= 1 && (!res.equation.equation || res.equation.least);
    const long eq_degree = eq_least ? res.equation.degree : -1;
    if (res.equation.equation && !res.equation.least) {
        res.dimension_answer.kind = RankKind::exact;
        res.dimension_answer.failure_bound = 0;
        res.degree_at_least_failure_bound = res.degree_at_most_failure_bound = 0;
        if (res.degree_at_most < 0 || res.equation.degree < res.degree_at_most) res.degree_at_most = res.equation.degree;
    }
    if (eq_degree >= 1 && res.degree_at_least > eq_degree) {
        // dim X = n is proven here, so degree_at_least holds: a defect.
        res.label += "; degree_at_least " + std::to_string(res.degree_at_least) + " is above the equation's degree " + std::to_string(eq_degree) +
                     " (seprank has a bug), so neither is claimed";
        res.degree_at_least = res.degree_at_most = -1;
    } else if (eq_degree >= 1) {
        res.dimension_answer.kind = RankKind::exact;
        res.dimension_answer.failure_bound = 0;
        res.degree_at_least = res.degree_at_most = eq_degree;
        res.degree_at_least_failure_bound = res.degree_at_most_failure_bound = 0;
        const std::string n = std::to_string(res.dimension), rho = std::to_string(res.equation.span_dimension);
        res.label += res.equation.equation
                         ? "; X is the hypersurface P = 0 of its " + rho + "-dimensional affine span (equation, degree " + std::to_string(eq_degree) +
                               ", its composition with f's coefficients the zero polynomial over Q; " +
                               (res.equation.irreducible ? "irreducible over Q" : "no equation of lower degree") + "): dim X = " + n +
                               " is exact and deg X = " + std::to_string(eq_degree) + " is proven"
                         : "; X fills its " + rho + "-dimensional affine span: dim X = " + n + " is exact and deg X = 1 is proven";
        if (res.agreed && degree != eq_degree) res.label += "; the counts' degree " + std::to_string(degree) + " is not it (a special prime or section)";
    } else if (res.degree_at_most >= 0 && res.degree_at_least > res.degree_at_most) {
        // Both hold when dim X = n, so here it does not (the dimension's failure event) or
        // there is a defect: neither bound is claimed.
        res.label += "; degree_at_least " + std::to_string(res.degree_at_least) + " is above degree_at_most " + std::to_string(res.degree_at_most) +
                     (res.equation.equation ? std::string(" although the equation proves dim X = n: seprank has a bug, so neither bound is claimed")
                                            : std::string(": dim X is not n (or seprank has a bug), so neither bound is claimed"));
        res.degree_at_least = res.degree_at_most = -1;
    } else if (res.degree_at_most >= 0 && res.degree_at_most == res.degree_at_least)
        res.label += "; degree_at_most (the Newton polytope's bound on the section's solutions) equals it: deg X is proven" + given_dim;
    else if (res.degree_at_most >= 0)
        res.label += "; degree_at_most is proven (the Newton polytope's bound on the section's solutions)" + given_dim;
    else
        res.label += "; no degree_at_most: " + (no_upper.empty() ? std::string("no slice with the dimension's n") : no_upper);
    if (res.equation.equation && !res.equation.least)
        res.label += "; X lies on the hypersurface P = 0 of its " + std::to_string(res.equation.span_dimension) +
                     "-dimensional affine span (equation, degree " + std::to_string(res.equation.degree) +
                     ", checked over Q, not shown to be the least): dim X = n is exact and deg X <= " + std::to_string(res.equation.degree);
    else if (eq_degree < 1 && !res.equation.why.empty())
        res.label += "; no equation: " + equation_why(res.equation, dim_exact);
    // A slice's fibre: deg X · k ≤ its bound and deg X ≥ degree_at_least, so k ≤ their
    // quotient (given dim X = n; docs/variety.md).
    const auto fibre_bound = [&](const std::vector<long>& free) -> long {
        const auto it = slice_bound.find(free);
        return res.degree_at_least >= 1 && it != slice_bound.end() && it->second >= 0 ? it->second / res.degree_at_least : -1;
    };
    if (res.agreed) {
        res.gauge_fibre_at_most = fibre_bound(res.free_weights);
        res.degree_fibre_at_most = fibre_bound(res.degree_free_weights);
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

namespace {
// What `degree` is: proven where both certain bounds meet it and the dimension is exact;
// proven given the dimension where they meet it and the dimension is generic; counted (the
// trials' agreeing counts mod 16-bit primes) otherwise; null without a degree.
Value degree_kind(const VarietyAnswer& v) {
    if (v.degree < 0) return Value();
    if (v.degree_at_least != v.degree || v.degree_at_most != v.degree) return Value("counted");
    return Value(v.degree_at_least_failure_bound == 0 && v.degree_at_most_failure_bound == 0 ? "proven" : "proven given the dimension");
}
}  // namespace

Record variety_record(const VarietyAnswer& v, bool generic_slice) {
    const auto maybe = [](long x) { return x >= 0 ? Value(x) : Value(); };
    std::vector<long> primes, sections, images, generic, fibres;
    for (const VarietyTrial& t : v.trials) {
        primes.push_back(static_cast<long>(t.prime));
        sections.push_back(t.degree_section_points);
        images.push_back(t.section_images);
        generic.push_back(t.section_points);
        fibres.push_back(t.fibre_points);
    }
    Record r;
    r.set("dimension", v.dimension);
    r.set("dimension_kind", to_string(v.dimension_answer.kind));
    r.set("dimension_failure_bound", Value::real(bound_up(v.dimension_answer.failure_bound, 3), 3));
    r.set("degree", maybe(v.degree));
    r.set("degree_kind", degree_kind(v));
    r.set("degree_at_least", maybe(v.degree_at_least));
    r.set("degree_at_least_failure_bound", v.degree_at_least >= 0 ? Value::real(bound_up(v.degree_at_least_failure_bound, 3), 3) : Value());
    r.set("degree_at_most", maybe(v.degree_at_most));
    r.set("degree_at_most_failure_bound", v.degree_at_most >= 0 ? Value::real(bound_up(v.degree_at_most_failure_bound, 3), 3) : Value());
    r.set("span_dimension", maybe(v.equation.span_dimension));
    r.set("equation_degree", v.equation.equation ? Value(v.equation.degree) : Value());
    r.set("parameters", v.parameters);
    r.set("fibre_dimension", v.fibre_dimension);
    r.set("gauge_fibre_points", maybe(v.gauge_fibre_points));
    r.set("gauge_fibre_at_most", maybe(v.gauge_fibre_at_most));
    r.set("free_weights", v.free_weights);
    r.set("degree_fibre_points", maybe(v.degree_fibre_points));
    r.set("degree_fibre_at_most", maybe(v.degree_fibre_at_most));
    r.set("degree_free_weights", v.degree_free_weights);
    r.set("agreed", v.agreed);
    r.set("primes", primes);
    r.set("section_points", sections);  // the degree slice's, per trial: deg X times degree_fibre_points
    r.set("section_images", images);  // per trial: distinct functions among them, certified (-1: not)
    if (generic_slice) {  // the generic slice: the fibre's degree k and deg X · k per trial
        r.set("fibre_points", maybe(v.fibre_points));
        r.set("generic_section_points", generic);
        r.set("generic_fibre_points", fibres);
    }
    r.set("equation_coordinates", v.equation.equation ? Value(coordinates_text(v.equation)) : Value());
    r.set("equation", v.equation.equation ? Value(to_string(*v.equation.equation)) : Value());
    r.set("label", v.label);
    r.set("seconds", std::round(v.seconds * 1e4) / 1e4);
    return r;
}

}  // namespace seprank
