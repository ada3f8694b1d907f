// seprank — the implicit equation of a network's image where it is a hypersurface in its
// span (equation.hpp; docs/equation.md).
#include "seprank/equation.hpp"

#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/expand.hpp"
#include "seprank/matrix.hpp"
#include "seprank/model.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/random.hpp"
#include "algebra/interpolation.hpp"
#include "base/limits_internal.hpp"
#include "base/process.hpp"
#include "network/forward_impl.hpp"

#include <flint/fmpq.h>
#include <flint/fmpq_mpoly_factor.h>
#include <flint/fmpz_mat.h>
#include <flint/nmod_mat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace seprank {
namespace {

// The forward pass with polynomials in the weights and the inputs as its scalars: every
// weight is a polynomial too (a variable t_k, or 0 for a structural zero).
struct SymbolicRing {
    using E = QPoly;
    using W = QPoly;
    std::shared_ptr<const QContext> ctx;
    long max_terms = 0;
    // The search's time budget covers the expansion too (it ran for minutes past it at
    // N = 10,000, max_seconds 10: a hunt, 2026-12-02): the clock is read at every result of
    // 2^12 terms or more and every 64th result, as memory is weighed.
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    std::string budget;  // "max_seconds S", as the search's own timeout says it

    const E& checked(const E& a) const {
        if (static_cast<long>(a.terms()) > max_terms)
            throw resource_limit("the expansion in the weights passes " + std::to_string(max_terms) + " terms (max_terms)");
        check_held(a);
        if ((a.terms() >= (std::size_t{1} << 12) || (++timed & 63) == 0) && std::chrono::steady_clock::now() > deadline)
            throw resource_limit("the expansion in the weights ran out of the time budget (" + budget + ")");
        return a;
    }
    mutable std::size_t timed = 0;
    // The expansion's polynomials together. Each product is weighed alone before FLINT
    // forms it (poly.cpp), but the forward pass holds hundreds of them at once (a network
    // of 8 tokens of dimension 8 ran out of memory with every polynomial below 2^16 terms,
    // and FLINT aborts the process when an allocation fails). So a result of 2^16 terms or
    // more, and every 64th result, is also weighed with what the process has taken since
    // the expansion began (its resident memory: one read of /proc, next to the products'
    // own cost), against three quarters of the memory limit, which leaves room for the
    // next product. One thread.
    mutable std::size_t results = 0;
    double base = current_rss_mib() * 1048576.0;  // what the process held before: not the expansion's
    void check_held(const E& a) const {
        if (a.terms() < (std::size_t{1} << 16) && (++results & 63) != 0) return;
        const double held = std::max(0.0, current_rss_mib() * 1048576.0 - base), limit = default_max_memory();
        if (held > 0.75 * limit)
            throw resource_limit("the expansion in the weights holds about " + format_bytes(held) + " at a polynomial of " +
                                 std::to_string(a.terms()) + " terms, over three quarters of the memory limit of " + format_bytes(limit) +
                                 " (" + default_max_memory_name() + ")");
    }
    E zero() const { return E(ctx); }
    E constant(long c) const { return E::constant(ctx, Rational(c)); }
    E mul(const E& a, const E& b) const {
        E out = a.mul(b);
        checked(out);
        return out;
    }
    void add(E& acc, const E& x) const { checked(acc += x); }
    void axpy(E& acc, const W& w, const E& x) const { checked(acc += mul(x, w)); }
    bool is_zero(const W& w) const { return w.is_zero(); }
    W weight_zero() const { return W(ctx); }
    W weight_fma(const W& s, const W& a, const W& b) const { return checked(s + mul(a, b)); }
};

// x^e written with the input variables' names ("1" for the constant monomial).
std::string monomial_text(const std::vector<std::uint64_t>& e, const Variables& names) {
    std::string out;
    for (std::size_t k = 0; k < e.size(); ++k) {
        if (e[k] == 0) continue;
        if (!out.empty()) out += '*';
        out += names.name(k);
        if (e[k] > 1) out += '^' + std::to_string(e[k]);
    }
    return out.empty() ? "1" : out;
}

// f's coefficients: one polynomial in the P weights per monomial of the inputs with a
// nonzero coefficient, in the order the monomials first appear in f (degrevlex).
struct Coefficients {
    std::shared_ptr<const QContext> wctx;
    std::vector<std::string> names;
    std::vector<std::vector<std::uint64_t>> xexps;  // each monomial's exponents in the inputs
    std::vector<QPoly> polys;
};

Coefficients coefficients(const ValidSpec& spec, long max_terms, long& parameters, std::chrono::steady_clock::time_point deadline,
                          const std::string& budget) {
    const Model m(spec);
    const std::vector<bool>& mask = m.varied_mask();
    parameters = static_cast<long>(std::count(mask.begin(), mask.end(), true));
    const Variables xs = network_variables(spec);
    std::vector<std::string> names, wnames;
    for (long k = 1; k <= parameters; ++k) wnames.push_back("t" + std::to_string(k));
    names = wnames;
    names.insert(names.end(), xs.names().begin(), xs.names().end());
    SymbolicRing ring{QContext::make(Variables(names)), max_terms, deadline, budget};
    std::size_t entry = 0;
    long varied = 0;
    const NetWeights<QPoly> w = map_weights<QPoly>(m.draw_weights(1, 1), [&](const Rational&) {
        return mask[entry++] ? QPoly::variable(ring.ctx, static_cast<std::size_t>(varied++)) : QPoly(ring.ctx);
    });
    const long per = m.input_vars_per_token();
    std::vector<std::vector<QPoly>> inputs(static_cast<std::size_t>(spec->tokens));
    for (long j = 0; j < spec->tokens; ++j) {
        // each variable is a vector of all the exponents: O((N·per)²) in all, past the
        // budget at N = 10,000 before the first product (a review)
        if ((j & 255) == 255 && std::chrono::steady_clock::now() > deadline)
            throw resource_limit("the expansion in the weights ran out of the time budget (" + budget + ") while making the " +
                                 std::to_string(spec->tokens * per) + " input variables");
        for (long c = 0; c < per; ++c)
            inputs[static_cast<std::size_t>(j)].push_back(QPoly::variable(ring.ctx, static_cast<std::size_t>(parameters + j * per + c)));
    }
    const QPoly f = detail::Forward<SymbolicRing>(spec.get(), w, ring).output(inputs);

    // Split each term's exponents into the weights' part and the inputs' part.
    Coefficients out;
    out.wctx = QContext::make(Variables(wnames));
    std::map<std::vector<std::uint64_t>, std::size_t> index;  // inputs' exponents -> monomial
    std::vector<std::vector<Rational>> coeffs;
    std::vector<std::vector<std::vector<std::uint64_t>>> exps;
    for (std::size_t k = 0; k < f.terms(); ++k) {
        const std::vector<std::uint64_t> e = f.exponents(k);
        const std::vector<std::uint64_t> we(e.begin(), e.begin() + parameters), xe(e.begin() + parameters, e.end());
        auto [it, fresh] = index.emplace(xe, coeffs.size());
        if (fresh) {
            coeffs.emplace_back();
            exps.emplace_back();
            out.names.push_back(monomial_text(xe, xs));
            out.xexps.push_back(xe);
        }
        coeffs[it->second].push_back(f.coeff(k));
        exps[it->second].push_back(we);
    }
    for (std::size_t a = 0; a < coeffs.size(); ++a) out.polys.push_back(QPoly::from_terms(out.wctx, coeffs[a], exps[a]));
    return out;
}

// The affine span: the rows of the non-constant parts of the coefficients over the weight
// monomials. The greedy basis (the earliest independent rows), exact over Q, unless the
// rank mod p passes `cap` and the matrix has over kExactSpanEntries entries (then nothing,
// and `at_least` is that rank, a lower bound on the span's dimension).
inline constexpr double kExactSpanEntries = 4e6;

std::optional<std::vector<std::size_t>> span_basis(const std::vector<QPoly>& polys, long cap, Rng& rng, long& at_least) {
    std::map<std::vector<std::uint64_t>, long> column;
    std::vector<std::vector<std::pair<long, Rational>>> rows(polys.size());
    for (std::size_t a = 0; a < polys.size(); ++a)
        for (std::size_t k = 0; k < polys[a].terms(); ++k) {
            const std::vector<std::uint64_t> e = polys[a].exponents(k);
            if (std::all_of(e.begin(), e.end(), [](std::uint64_t v) { return v == 0; })) continue;
            const long c = column.emplace(e, static_cast<long>(column.size())).first->second;
            rows[a].emplace_back(c, polys[a].coeff(k));
        }
    const long m = static_cast<long>(polys.size()), cols = static_cast<long>(column.size());
    if (cols == 0) return std::vector<std::size_t>{};
    if (static_cast<double>(m) * static_cast<double>(cols) > kExactSpanEntries) {
        // The rank mod p is at most the rank over Q: past `cap` it settles the question.
        for (;;) {
            const std::uint64_t p = random_prime(rng, 62);
            NmodMat a(m, cols, p);
            try {
                for (long i = 0; i < m; ++i)
                    for (const auto& [c, v] : rows[static_cast<std::size_t>(i)]) nmod_mat_entry(a.get(), i, c) = v.mod(p);
            } catch (const domain_error&) {  // p divides a denominator: another prime
                continue;
            }
            at_least = nmod_mat_rank(a.get());
            break;
        }
        if (at_least > cap) return std::nullopt;
    }
    // Exact: the transpose's reduced row echelon form; its pivot columns are the earliest
    // independent rows. Each of its rows is scaled to integers first, which keeps the
    // relations between its columns.
    QMat q(cols, m);
    for (long i = 0; i < m; ++i)
        for (const auto& [c, v] : rows[static_cast<std::size_t>(i)]) q.set(c, i, v);
    const ZMat z = clear_denominators(q);
    ZMat r(cols, m);
    Integer den;
    const long rank = fmpz_mat_rref(r.get(), den.get(), z.get());
    std::vector<std::size_t> basis;
    for (long i = 0; i < rank; ++i)
        for (long j = 0; j < m; ++j)
            if (!fmpz_is_zero(fmpz_mat_entry(r.get(), i, j))) {
                basis.push_back(static_cast<std::size_t>(j));
                break;
            }
    return basis;
}

// Exponent vectors in the coordinates y1..yρ, as algebra_detail::monomials_upto lists them.
using Monomials = std::vector<std::vector<int>>;

// x in the form "2.8e+08" (finite or not).
std::string approx(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", x);
    return buf;
}

double binomial(long n, long k) {
    double b = 1;
    for (long i = 1; i <= k; ++i) b = b * static_cast<double>(n - k + i) / static_cast<double>(i);
    return b;
}

// The nullspace mod p of the monomials at random points: its dimension and, where it is
// 1, its vector scaled so that its first nonzero entry is 1. nullopt where p divides a
// coefficient's denominator.
struct Kernel {
    long nullity = 0;
    std::vector<std::uint64_t> vector;
};

std::optional<Kernel> kernel_mod(const std::vector<QPoly>& ys, const Monomials& mons, long d, std::uint64_t p,
                                 long parameters, Rng& rng) {
    const auto nctx = NmodContext::make(ys.empty() ? Variables({}) : ys.front().context()->vars(), p);
    std::vector<NmodPoly> yp;
    try {
        for (const QPoly& y : ys) yp.push_back(reduce_mod(y, nctx));
    } catch (const domain_error&) {
        return std::nullopt;
    }
    nmod_t mod;
    nmod_init(&mod, p);
    const long k = static_cast<long>(mons.size()), rho = static_cast<long>(ys.size());
    const long rows = k + 8;
    NmodMat a(rows, k, p);
    std::vector<std::uint64_t> point(static_cast<std::size_t>(parameters));
    std::vector<std::vector<std::uint64_t>> powers(static_cast<std::size_t>(rho), std::vector<std::uint64_t>(static_cast<std::size_t>(d) + 1));
    for (long i = 0; i < rows; ++i) {
        for (auto& x : point) x = rng.below(p);
        for (long v = 0; v < rho; ++v) {
            auto& pw = powers[static_cast<std::size_t>(v)];
            pw[0] = 1;
            const std::uint64_t y = yp[static_cast<std::size_t>(v)].evaluate(point);
            for (long e = 1; e <= d; ++e) pw[static_cast<std::size_t>(e)] = nmod_mul(pw[static_cast<std::size_t>(e) - 1], y, mod);
        }
        for (long j = 0; j < k; ++j) {
            std::uint64_t v = 1;
            const auto& e = mons[static_cast<std::size_t>(j)];
            for (long t = 0; t < rho; ++t)
                if (e[static_cast<std::size_t>(t)] != 0) v = nmod_mul(v, powers[static_cast<std::size_t>(t)][e[static_cast<std::size_t>(t)]], mod);
            nmod_mat_entry(a.get(), i, j) = v;
        }
    }
    NmodMat x(k, k, p);
    Kernel out;
    out.nullity = nmod_mat_nullspace(x.get(), a.get());
    if (out.nullity == 1) {
        out.vector.resize(static_cast<std::size_t>(k));
        std::uint64_t lead = 0;
        for (long j = 0; j < k; ++j) {
            out.vector[static_cast<std::size_t>(j)] = nmod_mat_entry(x.get(), j, 0);
            if (lead == 0 && out.vector[static_cast<std::size_t>(j)] != 0) lead = out.vector[static_cast<std::size_t>(j)];
        }
        const std::uint64_t inv = nmod_inv(lead, mod);
        for (auto& v : out.vector) v = nmod_mul(v, inv, mod);
    }
    return out;
}

// The lift's state: residues combined by the CRT across primes.
struct Lift {
    std::vector<Integer> residues;
    Integer modulus = Integer(1);

    void add(const std::vector<std::uint64_t>& v, std::uint64_t p) {
        if (residues.empty()) residues.assign(v.size(), Integer(0));
        Integer pz(p);
        for (std::size_t j = 0; j < v.size(); ++j) {
            Integer r(v[j]);
            fmpz_CRT(residues[j].get(), residues[j].get(), modulus.get(), r.get(), pz.get(), 0);
        }
        fmpz_mul(modulus.get(), modulus.get(), pz.get());
    }
    // The rationals whose residues these are (rational reconstruction), nullopt where one
    // has none yet.
    std::optional<std::vector<Rational>> rationals() const {
        std::vector<Rational> out(residues.size());
        for (std::size_t j = 0; j < residues.size(); ++j)
            if (!fmpq_reconstruct_fmpz(out[j].get(), residues[j].get(), modulus.get())) return std::nullopt;
        return out;
    }
};

// Σ q_j·y^mons[j] with coprime integer coefficients, its leading term positive.
QPoly primitive_polynomial(const std::shared_ptr<const QContext>& yctx, const std::vector<Rational>& q,
                           const std::vector<std::vector<std::uint64_t>>& mons);

// The same polynomial scaled to coprime integer coefficients, its leading term positive.
QPoly primitive(const QPoly& f) {
    std::vector<Rational> q;
    std::vector<std::vector<std::uint64_t>> e;
    for (std::size_t k = 0; k < f.terms(); ++k) {
        q.push_back(f.coeff(k));
        e.push_back(f.exponents(k));
    }
    return primitive_polynomial(f.context(), q, e);
}

QPoly primitive_polynomial(const std::shared_ptr<const QContext>& yctx, const std::vector<Rational>& q,
                           const std::vector<std::vector<std::uint64_t>>& mons) {
    Integer den(1);
    for (const Rational& c : q) fmpz_lcm(den.get(), den.get(), fmpq_denref(c.get()));
    std::vector<Integer> ints;
    Integer content(0);
    for (const Rational& c : q) {
        Integer v;
        fmpz_divexact(v.get(), den.get(), fmpq_denref(c.get()));
        fmpz_mul(v.get(), v.get(), fmpq_numref(c.get()));
        fmpz_gcd(content.get(), content.get(), v.get());
        ints.push_back(v);
    }
    std::vector<Rational> coeffs;
    std::vector<std::vector<std::uint64_t>> exps;
    for (std::size_t j = 0; j < ints.size(); ++j) {
        if (fmpz_is_zero(ints[j].get())) continue;
        fmpz_divexact(ints[j].get(), ints[j].get(), content.get());
        coeffs.emplace_back(ints[j]);
        exps.push_back(mons[j]);
    }
    QPoly out = QPoly::from_terms(yctx, coeffs, exps);
    if (!out.is_zero() && fmpq_sgn(out.coeff(0).get()) < 0) out = -out;
    return out;
}

// Σ over P's terms of the product of the substituted polynomials' terms, each to its
// power: about the term products the composition forms.
double composition_cost(const QPoly& eq, const std::vector<QPoly>& ys) {
    double total = 0;
    for (std::size_t k = 0; k < eq.terms(); ++k) {
        const std::vector<std::uint64_t> e = eq.exponents(k);
        double prod = 1;
        for (std::size_t v = 0; v < e.size(); ++v) prod *= std::pow(static_cast<double>(std::max<std::size_t>(ys[v].terms(), 1)), static_cast<double>(e[v]));
        total += prod;
    }
    return total;
}

// What one space of monomials holds: no equation (certain), a checked one, or why not known.
enum class Result { none, found, wide, unlifted, costly, timeout };
struct Outcome {
    Result result = Result::none;
    std::optional<QPoly> equation;
    std::string why;
};

// The most monomials of one degree enumerated for the graded search, and their exponents
// in all (each monomial is held twice: in the degree's list and in its part).
inline constexpr double kMaxEnumerated = 2e6;
inline constexpr double kMaxEnumeratedEntries = 2e7;

// The search of one space of monomials of degree <= d: nullspaces mod 62-bit primes, the
// lift, the check over Q.
struct Search {
    const std::vector<QPoly>& ys;
    std::shared_ptr<const QContext> yctx, wctx;
    long parameters;
    const EquationOptions& opt;
    Rng& rng;
    long& primes;
    std::chrono::steady_clock::time_point deadline;

    // P(y(w)) mod a fresh 62-bit prime at one random point is 0: necessary, and cheap
    // beside the exact composition (a wrong P passes with probability <= deg/p).
    bool vanishes_at_a_point(const QPoly& eq) {
        for (;;) {
            const std::uint64_t p = random_prime(rng, 62);
            const auto yp = NmodContext::make(eq.context()->vars(), p), wp = NmodContext::make(wctx->vars(), p);
            std::vector<std::uint64_t> point(static_cast<std::size_t>(parameters)), y;
            for (auto& x : point) x = rng.below(p);
            try {
                for (const QPoly& c : ys) y.push_back(reduce_mod(c, wp).evaluate(point));
                return reduce_mod(eq, yp).evaluate(y) == 0;
            } catch (const domain_error&) {  // p divides a denominator: another prime
            }
        }
    }

    Outcome space(const Monomials& mons, long d) {
        Lift lift;
        long lead = -1, tries = 0, wide = 0;
        std::set<std::uint64_t> used;  // the CRT needs distinct primes
        while (tries < opt.max_primes) {
            if (std::chrono::steady_clock::now() > deadline)
                return {Result::timeout, {}, "the search's time budget (max_seconds " + approx(opt.max_seconds) + ") ran out"};
            const std::uint64_t p = random_prime(rng, 62);
            if (!used.insert(p).second) continue;
            const auto kernel = kernel_mod(ys, mons, d, p, parameters, rng);
            if (!kernel) continue;  // p divides a denominator: another prime
            ++tries;
            ++primes;
            if (kernel->nullity == 0) return {};  // no equation with rational coefficients here
            if (kernel->nullity > 1) {  // unlucky points, or a wider space of equations
                if (++wide >= 3 && wide == tries) break;
                continue;
            }
            const long l = static_cast<long>(std::find_if(kernel->vector.begin(), kernel->vector.end(), [](std::uint64_t v) { return v != 0; }) -
                                             kernel->vector.begin());
            if (lead >= 0 && l > lead) continue;  // p divides the true leading coefficient
            if (l < lead) lift = Lift{};          // an earlier prime did: start again from this one
            lead = l;
            lift.add(kernel->vector, p);
            const auto q = lift.rationals();
            if (!q) continue;
            std::vector<std::vector<std::uint64_t>> exps;
            for (const auto& e : mons) exps.emplace_back(e.begin(), e.end());
            QPoly eq = primitive_polynomial(yctx, *q, exps);
            if (!vanishes_at_a_point(eq)) continue;  // a premature reconstruction: more primes
            // FLINT's composition takes about 3 bytes per term product (840 MB at 2.8·10^8, the
            // binary 12-ics' degree 7): bounded by the count and by the memory limit.
            const double cost = composition_cost(eq, ys);
            if (cost > 1000.0 * static_cast<double>(opt.max_terms) || 4.0 * cost > default_max_memory())
                return {Result::costly, {}, "checking the candidate equation (" + std::to_string(eq.terms()) + " terms) would form about " + approx(cost) +
                                                " term products, over 1000·max_terms or the memory limit"};
            if (eq.compose(ys, wctx).is_zero()) return {Result::found, std::move(eq), ""};
        }
        if (wide == tries) return {Result::wide, {}, "the equations mod p span more than one dimension at every prime"};
        return {Result::unlifted, {}, "no equation over Q was reconstructed from " + std::to_string(tries) + " primes"};
    }
};

// f's distinct irreducible factors over Q (constants left out), by degree; nullopt where
// FLINT's factorization gives up.
std::optional<std::vector<QPoly>> irreducible_factors(const QPoly& f) {
    struct Factors {
        fmpq_mpoly_factor_t fac;
        const fmpq_mpoly_ctx_struct* ctx;
        explicit Factors(const fmpq_mpoly_ctx_struct* c) : ctx(c) { fmpq_mpoly_factor_init(fac, ctx); }
        Factors(const Factors&) = delete;
        Factors& operator=(const Factors&) = delete;
        ~Factors() { fmpq_mpoly_factor_clear(fac, ctx); }
    } h(f.context()->get());
    if (!fmpq_mpoly_factor(h.fac, f.get(), h.ctx)) return std::nullopt;
    std::vector<QPoly> out;
    for (slong i = 0; i < h.fac->num; ++i) {
        QPoly g(f.context());
        fmpq_mpoly_factor_get_base(g.get(), h.fac, i, h.ctx);
        out.push_back(std::move(g));
    }
    std::stable_sort(out.begin(), out.end(), [](const QPoly& a, const QPoly& b) { return a.degree() < b.degree(); });
    return out;
}

}  // namespace

void check_options(const EquationOptions& opt) {
    if (opt.min_degree < 1 || opt.min_degree > 64)
        throw invalid_input("equation min_degree " + std::to_string(opt.min_degree) + " is outside 1..64");
    if (opt.max_degree < opt.min_degree)
        throw invalid_input("equation max_degree " + std::to_string(opt.max_degree) + " is below min_degree " + std::to_string(opt.min_degree));
    if (opt.max_degree > 64) throw invalid_input("equation max_degree " + std::to_string(opt.max_degree) + " is outside min_degree..64");
    if (!(opt.max_seconds > 0) || !std::isfinite(opt.max_seconds))
        throw invalid_input("equation max_seconds " + approx(opt.max_seconds) + " is not a positive number of seconds");
    if (opt.max_monomials < 1) throw invalid_input("equation max_monomials " + std::to_string(opt.max_monomials) + " is below 1");
    if (opt.max_terms < 1) throw invalid_input("equation max_terms " + std::to_string(opt.max_terms) + " is below 1");
    if (opt.max_primes < 1 || opt.max_primes > 1000)
        throw invalid_input("equation max_primes " + std::to_string(opt.max_primes) + " is outside 1..1000");
}

long image_span_dimension(const ValidSpec& spec, long max_terms, double max_seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    try {
        long parameters = 0;
        const Coefficients cs = coefficients(spec, max_terms, parameters, t0 + detail::steady_seconds(max_seconds), "max_seconds " + approx(max_seconds));
        Rng rng(1);
        long at_least = 0;
        // exact or not at all: the coefficient matrix (rows × weight monomials) held to
        // span_basis's exact size, so that its cap (the rows) is never passed
        std::set<std::vector<std::uint64_t>> columns;
        for (const QPoly& c : cs.polys)
            for (std::size_t k = 0; k < c.terms(); ++k) columns.insert(c.exponents(k));
        const long rows = static_cast<long>(cs.polys.size());
        if (static_cast<double>(rows) * static_cast<double>(columns.size()) > kExactSpanEntries) return -1;
        const std::optional<std::vector<std::size_t>> basis = span_basis(cs.polys, rows, rng, at_least);
        return basis ? static_cast<long>(basis->size()) : -1;
    } catch (const resource_limit&) {
        return -1;
    }
}

ImageEquation image_equation(const ValidSpec& spec, long dimension_at_least, const EquationOptions& opt) {
    check_options(opt);
    if (dimension_at_least < 0) throw invalid_input("image_equation: dimension " + std::to_string(dimension_at_least) + " is negative");
    const auto t0 = std::chrono::steady_clock::now();
    ImageEquation res;
    res.searched_to = opt.min_degree - 1;
    const auto finish = [&]() -> ImageEquation {
        res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::move(res);
    };
    // Every limit past the options' checks is reported in why: the expansion's, the
    // matrices' (their memory, checked before FLINT allocates), the compositions'.
    try {
        Coefficients cs;
        try {
            cs = coefficients(spec, opt.max_terms, res.parameters, t0 + detail::steady_seconds(opt.max_seconds), "max_seconds " + approx(opt.max_seconds));
        } catch (const resource_limit& e) {
            res.why = e.what();
            res.limited = true;
            return finish();
        }
        res.monomials = static_cast<long>(cs.polys.size());
        Rng rng(opt.seed);
        const long n = dimension_at_least;
        long at_least = 0;
        std::optional<std::vector<std::size_t>> basis;
        try {
            basis = span_basis(cs.polys, n + 1, rng, at_least);
        } catch (const resource_limit& e) {
            res.why = std::string("the span: ") + e.what();
            res.limited = true;
            return finish();
        }
        if (!basis) {
            res.why = "the image's span has dimension at least " + std::to_string(at_least) + ", over n + 1 = " + std::to_string(n + 1) +
                      ": X is no hypersurface there unless dim X > n";
            return finish();
        }
        const long rho = static_cast<long>(basis->size());
        res.span_dimension = rho;
        for (std::size_t b : *basis) res.coordinates.push_back(cs.names[b]);
        if (rho < n)
            throw invalid_input("image_equation: dimension_at_least " + std::to_string(n) + " is above the image's span's dimension " + std::to_string(rho) +
                                ": not a lower bound on dim X");
        if (rho == n) {  // X is closed, irreducible, of the span's dimension: the span itself
            res.degree = 1;
            res.searched_to = 0;
            return finish();
        }
        if (rho > n + 1) {
            res.why = "the image's span has dimension " + std::to_string(rho) + ", over n + 1 = " + std::to_string(n + 1) +
                      ": X is no hypersurface there unless dim X > n";
            return finish();
        }
        std::vector<QPoly> ys;
        std::vector<std::vector<std::uint64_t>> basis_xexps;  // the coordinates' monomials' exponents: their weights
        for (std::size_t b : *basis) {
            ys.push_back(cs.polys[b]);
            basis_xexps.push_back(cs.xexps[b]);
        }
        std::vector<std::string> ynames;
        for (long k = 1; k <= rho; ++k) ynames.push_back("y" + std::to_string(k));
        const auto yctx = QContext::make(Variables(ynames));
        // An equation of degree 1 would put X in a hyperplane of its own span: none.
        const long first = std::max(opt.min_degree, 2L);
        res.searched_to = first - 1;
        Search search{ys, yctx, cs.wctx, res.parameters, opt, rng, res.primes_used,
                  t0 + detail::steady_seconds(opt.max_seconds)};
        std::optional<QPoly> found;
        std::string why;
        for (long d = first; d <= opt.max_degree && !found; ++d) {
            const double full = binomial(rho + d, d);
            if (full > kMaxEnumerated) {
                res.why = "degree " + std::to_string(d) + " has C(" + std::to_string(rho + d) + ", " + std::to_string(d) + ") = " +
                          (full < 9e18 ? std::to_string(static_cast<long long>(full)) : approx(full)) + " monomials, over the " + std::to_string(static_cast<long>(kMaxEnumerated)) +
                          " searched" + (why.empty() ? "" : "; " + why);
                return finish();
            }
            // First the degree's parts graded by the inputs' exponents (the weight of y^e is
            // Σ e_k·α_k, α_k coordinate k's monomial), each searched alone: where X is
            // invariant under rescaling the inputs its ideal is graded so and its equation
            // lies in one part, the most balanced one where the network is symmetric in its
            // inputs. Elsewhere a part may hold none. Either way what is found is checked over
            // Q, and the factor step below makes it the least.
            if (full * static_cast<double>(rho) > kMaxEnumeratedEntries) {
                res.why = "degree " + std::to_string(d) + ": its C(" + std::to_string(rho + d) + ", " + std::to_string(d) + ") monomials in " + std::to_string(rho) +
                          " coordinates pass " + approx(kMaxEnumeratedEntries) + " exponents" + (why.empty() ? "" : "; " + why);
                return finish();
            }
            const Monomials all = algebra_detail::monomials_upto(rho, d);
            std::map<std::vector<std::uint64_t>, Monomials> parts;
            for (const auto& e : all) {
                std::vector<std::uint64_t> weight(cs.xexps.front().size(), 0);
                for (long k = 0; k < rho; ++k)
                    for (std::size_t v = 0; v < weight.size(); ++v)
                        weight[v] += static_cast<std::uint64_t>(e[static_cast<std::size_t>(k)]) * basis_xexps[static_cast<std::size_t>(k)][v];
                parts[weight].push_back(e);
            }
            if (parts.size() > 1) {
                std::vector<std::pair<std::uint64_t, const Monomials*>> order;  // (spread, part)
                long over = 0, largest = 0, searched = 0;
                for (const auto& [w, mons] : parts) {
                    largest = std::max(largest, static_cast<long>(mons.size()));
                    if (static_cast<long>(mons.size()) > opt.max_monomials) ++over;
                    else order.emplace_back(*std::max_element(w.begin(), w.end()) - *std::min_element(w.begin(), w.end()), &mons);
                }
                std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
                    return a.first != b.first ? a.first < b.first : a.second->size() < b.second->size();
                });
                // At most about four whole-space nullspaces of work per degree.
                const double budget = 4.0 * std::pow(static_cast<double>(opt.max_monomials), 3.0);
                double spent = 0;
                for (const auto& [spread, mons] : order) {
                    if (spent > budget) break;
                    spent += std::pow(static_cast<double>(mons->size()), 3.0);
                    ++searched;
                    // total 0: the parts grow (smallest first) and one may hold the equation, so
                    // no time left is guessed from the rate so far; the count goes in the text
                    report_progress(current_progress(), "equation: degree " + std::to_string(d) + "'s graded parts", static_cast<std::uint64_t>(searched), 0,
                                    "of " + std::to_string(order.size()) + ", " + std::to_string(mons->size()) + " monomials");
                    const Outcome o = search.space(*mons, d);
                    if (o.result == Result::found) {
                        found = o.equation;
                        break;
                    }
                    if (o.result == Result::timeout) {
                        res.why = "degree " + std::to_string(d) + ": " + o.why;
                        res.limited = true;
                        return finish();
                    }
                }
                if (found) break;
                why = "degree " + std::to_string(d) + ": no equation found in " + std::to_string(searched) + " of its " + std::to_string(parts.size()) +
                      " graded parts (the largest " + std::to_string(largest) + " monomials" +
                      (over ? ", " + std::to_string(over) + " over max_monomials " + std::to_string(opt.max_monomials) : "") + ")";
            }
            if (full <= static_cast<double>(opt.max_monomials)) {  // the whole space: certain either way
                report_progress(current_progress(), "equation: degrees", static_cast<std::uint64_t>(d), 0,  // each larger: no time left guessed
                                "of at most " + std::to_string(opt.max_degree) + ", " + std::to_string(static_cast<long>(full)) + " monomials");
                const Outcome o = search.space(all, d);
                if (o.result == Result::none) {  // no equation of degree <= d
                    if (res.searched_to == d - 1) res.searched_to = d;
                    why.clear();
                    continue;
                }
                if (o.result != Result::found) {
                    res.why = "degree " + std::to_string(d) + ": " + o.why;
                    res.limited = o.result == Result::timeout || o.result == Result::costly;
                    return finish();
                }
                found = o.equation;
            }
        }
        if (!found) {
            res.why = first > opt.max_degree ? "no degree searched: max_degree " + std::to_string(opt.max_degree) + " is below 2"
                      : !why.empty()         ? why + "; up to degree " + std::to_string(opt.max_degree)
                                             : "no equation of degree " + std::to_string(first) + ".." + std::to_string(opt.max_degree);
            return finish();
        }
        // The least equation: X is irreducible and defined over Q, so its ideal in the span is
        // generated by one polynomial irreducible over Q, which divides every equation; the
        // irreducible factor of the one found that vanishes on X is it (up to a constant).
        res.degree = found->degree();
        res.equation = primitive(*found);
        const std::optional<std::vector<QPoly>> factors = irreducible_factors(*found);
        if (factors && factors->size() == 1 && factors->front().degree() == found->degree()) {
            res.least = res.irreducible = true;  // P itself is irreducible: checked already
        } else if (factors) {
            for (const QPoly& g : *factors)
                if (g.degree() >= 1 && composition_cost(g, ys) <= 1000.0 * static_cast<double>(opt.max_terms) && g.compose(ys, cs.wctx).is_zero()) {
                    res.equation = primitive(g);
                    res.degree = g.degree();
                    res.least = res.irreducible = true;
                    break;
                }
            if (!res.least) res.least = res.searched_to == res.degree - 1;  // a factor's check too costly: as without the factorization
        } else {
            res.least = res.searched_to == res.degree - 1;  // every lower degree certified empty
        }
    } catch (const resource_limit& e) {
        res.why = e.what();
        res.limited = true;
        res.degree = -1;
        res.equation.reset();
        res.least = res.irreducible = false;
    }
    return finish();
}

std::string coordinates_text(const ImageEquation& e) {
    std::string out;
    for (const std::string& c : e.coordinates) out += (out.empty() ? "" : ", ") + c;
    return out;
}

EquationAnswer network_equation(const ValidSpec& spec, const EquationOptions& opt) {
    check_options(opt);
    const auto t0 = std::chrono::steady_clock::now();
    EquationAnswer a;
    DimensionOptions dopt;
    dopt.seed = opt.seed;
    a.dimension_answer = function_dimension(spec, dopt);
    const long n = a.dimension_answer.value;
    a.equation = image_equation(spec, n, opt);
    const ImageEquation& e = a.equation;
    const std::string ns = std::to_string(n), rho = std::to_string(e.span_dimension), d = std::to_string(e.degree);
    if (e.degree >= 1) {
        a.dimension_answer.kind = RankKind::exact;
        a.dimension_answer.failure_bound = 0;
    }
    if (e.degree >= 1 && !e.equation)
        a.label = "X fills its " + rho + "-dimensional affine span: dim X = " + ns + " is exact and deg X = 1 is proven";
    else if (e.equation && e.least)
        a.label = "X is the hypersurface P = 0 of its " + rho + "-dimensional affine span: P vanishes on X (its composition with f's coefficients is "
                  "the zero polynomial over Q) and generates X's ideal there (" +
                  std::string(e.irreducible ? "irreducible over Q" : "no equation of lower degree") + "): dim X = " + ns +
                  " is exact and deg X = " + d + " is proven";
    else if (e.equation)
        a.label = "X lies on the hypersurface P = 0 of its " + rho + "-dimensional affine span (P checked over Q, not shown to be the least): dim X = " + ns +
                  " is exact and deg X <= " + d;
    else
        a.label = "no equation: " + equation_why(e, a.dimension_answer.kind == RankKind::exact) + "; the dimension is `dimension`'s (" +
                  to_string(a.dimension_answer.kind) + ")";
    a.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return a;
}

std::string equation_why(const ImageEquation& e, bool dimension_exact) {
    static const std::string unless = " unless dim X > n";
    if (dimension_exact && e.why.size() >= unless.size() && e.why.compare(e.why.size() - unless.size(), unless.size(), unless) == 0)
        return e.why.substr(0, e.why.size() - unless.size());
    return e.why;
}

Record equation_record(const EquationAnswer& a) {
    const auto maybe = [](long x) { return x >= 0 ? Value(x) : Value(); };
    const ImageEquation& e = a.equation;
    const bool proven = e.degree >= 1 && (!e.equation || e.least);
    Record r;
    r.set("dimension", a.dimension_answer.value);
    r.set("dimension_kind", to_string(a.dimension_answer.kind));
    r.set("dimension_failure_bound", Value::real(bound_up(a.dimension_answer.failure_bound, 3), 3));
    r.set("parameters", e.parameters);
    r.set("monomials", maybe(e.monomials));
    r.set("span_dimension", maybe(e.span_dimension));
    r.set("degree", proven ? Value(e.degree) : Value());
    r.set("degree_at_most", e.degree >= 1 ? Value(e.degree) : Value());
    r.set("equation_degree", e.equation ? Value(e.degree) : Value());
    r.set("searched_to", e.searched_to);
    r.set("primes_used", e.primes_used);
    r.set("stopped_by_limit", e.limited);
    r.set("equation_coordinates", e.equation ? Value(coordinates_text(e)) : Value());
    r.set("equation", e.equation ? Value(to_string(*e.equation)) : Value());
    r.set("label", a.label);
    r.set("seconds", std::round(a.seconds * 1e4) / 1e4);
    return r;
}

}  // namespace seprank
