// seprank — a network's neurovariety: dimension, degree and the slice's fibre, counted mod
// p (variety.hpp; docs/variety.md).
#include "seprank/variety.hpp"

#include "algebra/groebner.hpp"
#include "base/parallel.hpp"
#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/matrix.hpp"
#include "seprank/model.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/nmod_mat.h>
#include <flint/nmod_vec.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <climits>
#include <tuple>
#include <utility>

namespace seprank {

namespace {

using algebra_detail::ModPoly;
using algebra_detail::ModTerm;

// A copy of `shape` (weights of m's shapes, structural zeros 0) with the varied entries,
// in weight_entries' order (dimension_weight_entries), set to the residues `vals`.
Weights place(const Model& m, const Weights& shape, const std::vector<std::uint64_t>& vals) {
    Weights w = shape;
    const std::vector<Rational*> entries = dimension_weight_entries(m.valid(), w);
    for (std::size_t v = 0; v < entries.size(); ++v) *entries[v] = Rational(static_cast<long>(vals[v]));
    return w;
}

// Exponent vectors of total degree <= D in n variables, the constant first.
std::vector<std::vector<int>> monomials_upto(long n, long D) {
    std::vector<std::vector<int>> out;
    std::vector<int> a(static_cast<std::size_t>(n), 0);
    const auto rec = [&](auto&& self, long i, long left) -> void {
        if (i == n) {
            out.push_back(a);
            return;
        }
        for (long e = 0; e <= left; ++e) {
            a[static_cast<std::size_t>(i)] = static_cast<int>(e);
            self(self, i + 1, left - e);
        }
        a[static_cast<std::size_t>(i)] = 0;
    };
    rec(rec, 0, D);
    std::stable_sort(out.begin(), out.end(), [](const std::vector<int>& x, const std::vector<int>& y) {
        long dx = 0, dy = 0;
        for (int e : x) dx += e;
        for (int e : y) dy += e;
        return dx < dy;
    });
    return out;
}

// C(n + D, n), saturated at LONG_MAX.
long binomial_sat(long n, long D) {
    long c = 1;
    for (long i = 1; i <= n; ++i) {
        if (c > LONG_MAX / (D + i)) return LONG_MAX;
        c = c * (D + i) / i;
    }
    return c;
}

std::uint64_t power_mod(std::uint64_t x, long e, nmod_t mod) { return n_powmod2_ui_preinv(x, static_cast<std::uint64_t>(e), mod.n, mod.ninv); }

Point<std::uint64_t> random_point(Rng& rng, long N, long vars, std::uint64_t p) {
    Point<std::uint64_t> pt(static_cast<std::size_t>(N), std::vector<std::uint64_t>(static_cast<std::size_t>(vars)));
    for (auto& row : pt)
        for (auto& x : row) x = rng.below(p);
    return pt;
}

// What a trial shares between its slices: the prime, the base point a, the inputs x_j and
// the section (n combinations mu of the g_j, minus the constants c).
struct TrialSetup {
    std::uint64_t p = 0;
    nmod_t mod{};
    long n = 0, wdeg = 0, varied = 0, Jn = 0;
    Weights shape;  // m's shapes, drawn once, structural zeros 0: place() fills its varied entries
    std::vector<std::uint64_t> a;
    std::vector<Point<std::uint64_t>> xs;
    std::vector<std::vector<std::uint64_t>> mu;
    std::vector<std::uint64_t> c;
};

// The section's and the fibre's solutions on the slice w = a + B t (B: varied × n).
std::pair<long, long> count_on_slice(const Model& m, const TrialSetup& st, const std::vector<std::vector<std::uint64_t>>& B, Rng& rng) {
    const std::uint64_t p = st.p;
    const nmod_t mod = st.mod;
    const long n = st.n, Jn = st.Jn;
    const std::vector<std::vector<int>> mons = monomials_upto(n, st.wdeg);
    const long Nn = static_cast<long>(mons.size());
    const auto monomial_values = [&](const std::vector<std::uint64_t>& t) {
        std::vector<std::uint64_t> v(static_cast<std::size_t>(Nn));
        for (long e = 0; e < Nn; ++e) {
            std::uint64_t x = 1;
            for (long i = 0; i < n; ++i) x = nmod_mul(x, power_mod(t[static_cast<std::size_t>(i)], mons[static_cast<std::size_t>(e)][static_cast<std::size_t>(i)], mod), mod);
            v[static_cast<std::size_t>(e)] = x;
        }
        return v;
    };
    const auto draw_vec = [&](long len) {
        std::vector<std::uint64_t> v(static_cast<std::size_t>(len));
        for (auto& x : v) x = rng.below(p);
        return v;
    };
    // g_j(t) = f(x_j; a + B t), interpolated from Nn random nodes: V·C = Y.
    NmodMat V(Nn, Nn, p), Y(Nn, Jn, p);
    for (long k = 0; k < Nn; ++k) {
        const std::vector<std::uint64_t> t = draw_vec(n);
        const std::vector<std::uint64_t> row = monomial_values(t);
        for (long e = 0; e < Nn; ++e) nmod_mat_entry(V.get(), k, e) = row[static_cast<std::size_t>(e)];
        std::vector<std::uint64_t> w(st.a);
        for (long q = 0; q < st.varied; ++q)
            for (long i = 0; i < n; ++i)
                w[static_cast<std::size_t>(q)] = nmod_add(w[static_cast<std::size_t>(q)], nmod_mul(B[static_cast<std::size_t>(q)][static_cast<std::size_t>(i)], t[static_cast<std::size_t>(i)], mod), mod);
        const ModEvaluator ev(Network{m.spec(), place(m, st.shape, w)}, p);
        for (long j = 0; j < Jn; ++j) nmod_mat_entry(Y.get(), k, j) = ev(st.xs[static_cast<std::size_t>(j)]);
    }
    NmodMat C(Nn, Jn, p);
    if (!nmod_mat_solve(C.get(), V.get(), Y.get())) return {-1, -1};  // singular nodes: no count
    const auto poly_of = [&](const std::vector<std::uint64_t>& coef) {
        ModPoly f;
        for (long e = 0; e < Nn; ++e)
            if (coef[static_cast<std::size_t>(e)] != 0) f.push_back(ModTerm{coef[static_cast<std::size_t>(e)], mons[static_cast<std::size_t>(e)]});
        return f;
    };
    // The section: Σ_j mu_ij g_j − c_i, i = 1..n.
    std::vector<ModPoly> section;
    for (long i = 0; i < n; ++i) {
        std::vector<std::uint64_t> coef(static_cast<std::size_t>(Nn), 0);
        for (long j = 0; j < Jn; ++j) {
            const std::uint64_t mu = st.mu[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
            for (long e = 0; e < Nn; ++e) coef[static_cast<std::size_t>(e)] = nmod_add(coef[static_cast<std::size_t>(e)], nmod_mul(mu, nmod_mat_entry(C.get(), e, j), mod), mod);
        }
        coef[0] = nmod_sub(coef[0], st.c[static_cast<std::size_t>(i)], mod);
        section.push_back(poly_of(coef));
    }
    // The fibre through a random t0: g_j(t) − g_j(t0) for every j.
    const std::vector<std::uint64_t> at = monomial_values(draw_vec(n));
    std::vector<ModPoly> fibre;
    for (long j = 0; j < Jn; ++j) {
        std::vector<std::uint64_t> coef(static_cast<std::size_t>(Nn));
        std::uint64_t value = 0;
        for (long e = 0; e < Nn; ++e) {
            coef[static_cast<std::size_t>(e)] = nmod_mat_entry(C.get(), e, j);
            value = nmod_add(value, nmod_mul(coef[static_cast<std::size_t>(e)], at[static_cast<std::size_t>(e)], mod), mod);
        }
        coef[0] = nmod_sub(coef[0], value, mod);
        fibre.push_back(poly_of(coef));
    }
    return {algebra_detail::solution_count(section, n, p).count, algebra_detail::solution_count(fibre, n, p).count};
}

VarietyTrial one_trial(const Model& m, const VarietyOptions& opt, Rng& rng, long wdeg) {
    VarietyTrial tr;
    TrialSetup st;
    st.p = random_prime(rng, 16);
    tr.prime = st.p;
    nmod_init(&st.mod, st.p);
    st.shape = m.draw_weights(1, 1);
    st.wdeg = wdeg;
    st.varied = static_cast<long>(fmpz_get_si(m.varied_parameters().get()));
    const std::uint64_t p = st.p;
    const long N = m.spec().tokens, vars = m.input_vars_per_token();
    const auto draw_vec = [&](long len) {
        std::vector<std::uint64_t> v(static_cast<std::size_t>(len));
        for (auto& x : v) x = rng.below(p);
        return v;
    };
    // The dimension: the Jacobian's rank mod p at the base point, varied + 8 rows; its
    // pivot columns (reduced row echelon form) are the weights the gauge slice frees.
    st.a = draw_vec(st.varied);
    std::vector<long> pivots;
    {
        std::vector<Point<std::uint64_t>> pts;
        for (long s = 0; s < st.varied + 8; ++s) pts.push_back(random_point(rng, N, vars, p));
        NmodMat J = dimension_jacobian(Network{m.spec(), place(m, st.shape, st.a)}, pts, p, DimensionOutput::scalar, DimensionVariant::reverse, 1);
        tr.dimension = nmod_mat_rref(J.get());
        for (long r = 0; r < tr.dimension; ++r)
            for (long q = 0; q < J.cols(); ++q)
                if (nmod_mat_entry(J.get(), r, q) != 0) {
                    pivots.push_back(q);
                    break;
                }
    }
    const long n = st.n = tr.dimension;
    if (n == 0) {  // X is a point: degree 1, the whole weight space one fibre
        tr.gauge_section_points = tr.gauge_fibre_points = 1;
        if (opt.generic_slice) tr.section_points = tr.fibre_points = 1;
        return tr;
    }
    if (n > opt.max_unknowns)
        throw resource_limit("variety: dimension " + std::to_string(n) + " is over max_unknowns " + std::to_string(opt.max_unknowns));
    const long Nn = binomial_sat(n, wdeg);
    if (Nn > opt.max_interpolation)
        throw resource_limit("variety: interpolating in " + std::to_string(n) + " unknowns to degree " + std::to_string(wdeg) + " takes " +
                             (Nn == LONG_MAX ? std::string("too many") : std::to_string(Nn)) + " values, over max_interpolation " +
                             std::to_string(opt.max_interpolation));
    const long M = m.output_space(true);
    if (M == LONG_MAX || M > 1000000) throw resource_limit("variety: the output has too many monomials to interpolate");
    st.Jn = M + 8;
    for (long j = 0; j < st.Jn; ++j) st.xs.push_back(random_point(rng, N, vars, p));
    for (long i = 0; i < n; ++i) st.mu.push_back(draw_vec(st.Jn));
    st.c = draw_vec(n);
    // The gauge slice: the pivot weights free, every other one fixed at its value in a.
    std::vector<std::vector<std::uint64_t>> G(static_cast<std::size_t>(st.varied), std::vector<std::uint64_t>(static_cast<std::size_t>(n), 0));
    for (long i = 0; i < n; ++i) G[static_cast<std::size_t>(pivots[static_cast<std::size_t>(i)])][static_cast<std::size_t>(i)] = 1;
    std::tie(tr.gauge_section_points, tr.gauge_fibre_points) = count_on_slice(m, st, G, rng);
    // The generic slice (asked for): B random; dense equations, a far costlier basis.
    if (opt.generic_slice) {
        std::vector<std::vector<std::uint64_t>> B(static_cast<std::size_t>(st.varied));
        for (auto& row : B) row = draw_vec(n);
        std::tie(tr.section_points, tr.fibre_points) = count_on_slice(m, st, B, rng);
    }
    tr.free_weights = pivots;
    return tr;
}

}  // namespace

void check_options(const VarietyOptions& opt) {
    if (opt.trials < 1) throw invalid_input("trials " + std::to_string(opt.trials) + " is below 1");
    if (opt.max_unknowns < 1) throw invalid_input("max unknowns " + std::to_string(opt.max_unknowns) + " is below 1");
    if (opt.max_interpolation < 1) throw invalid_input("max interpolation " + std::to_string(opt.max_interpolation) + " is below 1");
    if (opt.threads < 1) throw invalid_input("threads " + std::to_string(opt.threads) + " is below 1");
}

VarietyAnswer network_variety(const ValidSpec& spec, const VarietyOptions& opt) {
    check_options(opt);
    const auto t0 = std::chrono::steady_clock::now();
    const Model m(spec);
    VarietyAnswer res;
    res.parameters = static_cast<long>(fmpz_get_si(m.varied_parameters().get()));
    if (res.parameters == 0) throw invalid_input("network: it has no parameters");
    // f's degree in the weights: D_w, plus d^L for an embedding's entries.
    Integer dw = m.spec().embed_rank > 0 ? m.weight_degree() + m.degree() : m.weight_degree();
    if (dw > Integer(10000)) throw resource_limit("variety: weight degree " + dw.str() + " is too large to interpolate");
    const long wdeg = static_cast<long>(fmpz_get_si(dw.get()));
    DimensionOptions dopt;
    dopt.seed = opt.seed;
    res.dimension_answer = function_dimension(spec, dopt);
    res.dimension = res.dimension_answer.value;
    // Each trial its own stream, derived in order, so that the trials run side by side
    // and give the same counts on any number of threads.
    Rng rng(opt.seed);
    std::vector<Rng> streams;
    for (long t = 0; t < opt.trials; ++t) streams.push_back(rng.split(static_cast<std::uint64_t>(t)));
    res.trials.resize(static_cast<std::size_t>(opt.trials));
    const int nt = static_cast<int>(std::min<long>(opt.threads, opt.trials));
    detail::run_parallel(nt, [&](int tid) {
        for (long t = tid; t < opt.trials; t += nt) res.trials[static_cast<std::size_t>(t)] = one_trial(m, opt, streams[static_cast<std::size_t>(t)], wdeg);
    });
    const VarietyTrial& first = res.trials.front();
    res.agreed = first.gauge_fibre_points > 0 && first.gauge_section_points >= 0 && first.gauge_section_points % first.gauge_fibre_points == 0;
    const long degree = res.agreed ? first.gauge_section_points / first.gauge_fibre_points : -1;
    for (const VarietyTrial& tr : res.trials) {
        res.agreed = res.agreed && tr.dimension == res.dimension && tr.free_weights == first.free_weights &&
                     tr.gauge_section_points == first.gauge_section_points && tr.gauge_fibre_points == first.gauge_fibre_points;
        if (opt.generic_slice)  // the generic slice's section must hold deg X times its fibre
            res.agreed = res.agreed && tr.fibre_points > 0 && tr.fibre_points == first.fibre_points && tr.section_points == degree * tr.fibre_points;
    }
    res.fibre_dimension = res.parameters - res.dimension;
    if (res.agreed) {
        res.degree = degree;
        res.gauge_fibre_points = first.gauge_fibre_points;
        res.free_weights = first.free_weights;
        if (opt.generic_slice) res.fibre_points = first.fibre_points;
        res.label = "counted over the closure of Z/p for " + std::to_string(res.trials.size()) +
                    " independent 16-bit primes, slices and sections, which agree; each count is the count over C unless its prime, slice or section is special, a chance not bounded here";
    } else {
        res.label = "the trials disagree, with each other or with the dimension (or a system was not zero-dimensional): no degree claimed";
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

Record variety_record(const VarietyAnswer& v, bool generic_slice) {
    const auto maybe = [](long x) { return x >= 0 ? Value(x) : Value(); };
    std::vector<long> primes, sections, generic, fibres;
    for (const VarietyTrial& t : v.trials) {
        primes.push_back(static_cast<long>(t.prime));
        sections.push_back(t.gauge_section_points);
        generic.push_back(t.section_points);
        fibres.push_back(t.fibre_points);
    }
    Record r;
    r.set("dimension", v.dimension);
    r.set("dimension_kind", to_string(v.dimension_answer.kind));
    r.set("dimension_failure_bound", Value::real(bound_up(v.dimension_answer.failure_bound, 3), 3));
    r.set("degree", maybe(v.degree));
    r.set("parameters", v.parameters);
    r.set("fibre_dimension", v.fibre_dimension);
    r.set("gauge_fibre_points", maybe(v.gauge_fibre_points));
    r.set("free_weights", v.free_weights);
    r.set("agreed", v.agreed);
    r.set("primes", primes);
    r.set("section_points", sections);  // the gauge slice's, per trial: deg X times gauge_fibre_points
    if (generic_slice) {  // the generic slice: the fibre's degree k and deg X · k per trial
        r.set("fibre_points", maybe(v.fibre_points));
        r.set("generic_section_points", generic);
        r.set("generic_fibre_points", fibres);
    }
    r.set("label", v.label);
    r.set("seconds", std::round(v.seconds * 1e4) / 1e4);
    return r;
}

}  // namespace seprank
