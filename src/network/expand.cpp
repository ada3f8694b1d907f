#include "seprank/expand.hpp"

#include "expand_internal.hpp"

#include "forward_impl.hpp"
#include "rings_impl.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace seprank {

Variables network_variables(const ValidSpec& valid) {
    const NetworkSpec& s = valid.get();
    return Variables::tokens(s.tokens, input_vars_per_token(s), s.embed_rank > 0 ? "w" : "x");
}

ExpansionEstimate estimate_expansion(const ValidSpec& valid) {
    const NetworkSpec& s = valid.get();
    const long n = s.tokens * input_vars_per_token(s);
    const Integer D = output_degree(s);
    Integer terms;
    // C(n + D - 1, n - 1) monomials of degree exactly D; C(n + D, n) of degree <= D.
    const bool all_degrees = !is_homogeneous(s);
    Integer top = D + Integer(all_degrees ? n : n - 1);
    if (fmpz_fits_si(top.get())) {
        fmpz_bin_uiui(terms.get(), fmpz_get_ui(top.get()), static_cast<ulong>(all_degrees ? n : n - 1));
    } else {
        fmpz_set_ui(terms.get(), 1);
        fmpz_mul_2exp(terms.get(), terms.get(), 4096);  // astronomically large
    }
    // Packed exponents: about log2(D)+1 bits per variable, whole words per term; the
    // coefficient: one fmpz word plus (for large values) a two-limb mpz on the heap.
    const double bits = std::max(8.0, std::ceil(std::log2(fmpz_get_d(D.get()) + 1.0)) + 1.0);
    const double words = std::ceil(static_cast<double>(n) * bits / 64.0);
    const double per_term = 8.0 * words + 8.0 + 32.0;
    return {terms, 4.0 * fmpz_get_d(terms.get()) * per_term};
}

void detail::check_expansion_estimate(const ValidSpec& s, const ExpandOptions& opt, const std::string& remedy) {
    if (opt.max_memory != 0) check_memory_value(opt.max_memory, "ExpandOptions::max_memory");
    const double limit = opt.max_memory > 0 ? opt.max_memory : default_max_memory();
    const ExpansionEstimate e = estimate_expansion(s);
    if (!(e.bytes <= limit)) {
        std::ostringstream msg;
        msg.precision(3);
        // A count of hundreds of digits is shown as 1.04e+1000, a size past a double as such.
        std::string terms = e.max_terms.str();
        if (terms.size() > 20) terms = terms.substr(0, 1) + "." + terms.substr(1, 2) + "e+" + std::to_string(terms.size() - 1);
        msg << "expansion refused: up to " << terms << " terms, ";
        const auto gib = [](double b) {
            std::ostringstream t;
            t.precision(3);
            t << b / (1024.0 * 1024 * 1024) << " GiB";
            return t.str();
        };
        std::string est = gib(e.bytes), lim = gib(limit);
        if (est == lim) {  // the exact values too, as refuse() writes them (a resumed table re-reads them)
            char buf[64];
            std::snprintf(buf, sizeof buf, " (%.0f bytes)", e.bytes);
            est += buf;
            std::snprintf(buf, sizeof buf, " (%.0f bytes)", limit);
            lim += buf;
        }
        if (std::isfinite(e.bytes)) msg << "about " << est << " estimated";
        else msg << "more than 1e308 bytes estimated";
        msg << ", over the limit of " << lim << " ("
            << (opt.max_memory > 0 ? std::string("ExpandOptions::max_memory") : default_max_memory_name()) << "); " << remedy;
        throw resource_limit(msg.str());
    }
}

namespace {

void check_estimate(const ValidSpec& s, const ExpandOptions& opt) {
    detail::check_expansion_estimate(s, opt, "use the evaluation method (Method::evaluation), which never expands");
}

template <class Ring>
typename Ring::E run(const NetworkSpec& s, const NetWeights<typename Ring::W>& w, Ring& ring) {
    const long per = input_vars_per_token(s);
    std::vector<std::vector<typename Ring::E>> inputs(static_cast<std::size_t>(s.tokens));
    for (long j = 0; j < s.tokens; ++j)
        for (long c = 0; c < per; ++c)
            inputs[static_cast<std::size_t>(j)].push_back(
                Ring::E::variable(ring.ctx, static_cast<std::size_t>(j * per + c)));
    return detail::Forward<Ring>(s, w, ring).output(inputs);
}

// ---------------------------------------------------------------- moment variant
// expand.hpp states the identity; docs/expand.md proves it. The pass runs over a ring
// policy R of rings_impl.hpp whose context holds g_ab (a ≤ b, row-major) then z_1..z_r.

long moment_rank(const NetworkSpec& s) { return input_vars_per_token(s); }

Variables moment_variables(const NetworkSpec& s) {
    const long r = moment_rank(s);
    std::vector<std::string> names;
    for (long a = 1; a <= r; ++a)
        for (long b = a; b <= r; ++b) names.push_back("g" + std::to_string(a) + "_" + std::to_string(b));
    for (long k = 1; k <= r; ++k) names.push_back("z" + std::to_string(k));
    return Variables(std::move(names));
}

template <class R>
struct MomentPass {
    using E = typename R::E;
    using W = typename R::W;
    using Mat = std::vector<std::vector<E>>;
    const NetworkSpec& s;
    const NetWeights<W>& w;
    R& ring;
    long n, r;  // dx, and the number of variables per token

    E scalar(const W& v) const {
        E e = ring.zero();
        if (!ring.is_zero(v)) ring.axpy(e, v, ring.constant(1));
        return e;
    }
    Mat zeros(long rows, long cols) const {
        return Mat(static_cast<std::size_t>(rows), std::vector<E>(static_cast<std::size_t>(cols), ring.zero()));
    }
    static std::size_t u(long k) { return static_cast<std::size_t>(k); }

    // Γ = T G Tᵀ (n×n, symmetric; both triangles filled).
    Mat gram(const Mat& T, const Mat& G) const {
        Mat P = zeros(n, r);
        for (long a = 0; a < n; ++a)
            for (long m = 0; m < r; ++m)
                if (!T[u(a)][u(m)].is_zero())
                    for (long k = 0; k < r; ++k) ring.add(P[u(a)][u(k)], ring.mul(T[u(a)][u(m)], G[u(m)][u(k)]));
        Mat Gam = zeros(n, n);
        for (long a = 0; a < n; ++a)
            for (long b = a; b < n; ++b) {
                for (long k = 0; k < r; ++k) ring.add(Gam[u(a)][u(b)], ring.mul(P[u(a)][u(k)], T[u(b)][u(k)]));
                if (b != a) Gam[u(b)][u(a)] = Gam[u(a)][u(b)];
            }
        return Gam;
    }

    // The coefficients of M_l(Γ) = Σ_h O_h V_h Γ K_hᵀ Q_h in Γ's entries:
    // M_ab = Σ_{c ≤ d} coef(a,b,c,d) Γ_cd with coef = Σ_h A_h[a,c] B_h[d,b] (+ A_h[a,d] B_h[c,b]
    // when c ≠ d, Γ being symmetric), A_h = O_h V_h, B_h = K_hᵀ Q_h: weights, computed once
    // per layer (n^4 of them).
    std::vector<W> layer_coefficients(const LayerWeights<W>& lw) const {
        std::vector<Dense<W>> A, B;
        for (const auto& h : lw.heads) {
            Dense<W> a(n, n, ring.weight_zero()), b(n, n, ring.weight_zero());
            for (long x = 0; x < n; ++x)
                for (long y = 0; y < n; ++y)
                    for (long e = 0; e < h.Q.rows; ++e) {
                        a(x, y) = ring.weight_fma(a(x, y), h.O(x, e), h.V(e, y));
                        b(x, y) = ring.weight_fma(b(x, y), h.K(e, x), h.Q(e, y));
                    }
            A.push_back(std::move(a));
            B.push_back(std::move(b));
        }
        std::vector<W> coef(u(n * n * n * n), ring.weight_zero());
        for (long a = 0; a < n; ++a)
            for (long b = 0; b < n; ++b)
                for (long c = 0; c < n; ++c)
                    for (long d = c; d < n; ++d) {
                        W& k = coef[u(((a * n + b) * n + c) * n + d)];
                        for (std::size_t h = 0; h < A.size(); ++h) {
                            k = ring.weight_fma(k, A[h](a, c), B[h](d, b));
                            if (c != d) k = ring.weight_fma(k, A[h](a, d), B[h](c, b));
                        }
                    }
        return coef;
    }

    // Row a of M_l(Γ).
    std::vector<E> m_row(const std::vector<W>& coef, long a, const Mat& Gam) const {
        std::vector<E> row(u(n), ring.zero());
        for (long b = 0; b < n; ++b)
            for (long c = 0; c < n; ++c)
                for (long d = c; d < n; ++d) {
                    const W& k = coef[u(((a * n + b) * n + c) * n + d)];
                    if (!ring.is_zero(k)) ring.axpy(row[u(b)], k, Gam[u(c)][u(d)]);
                }
        return row;
    }

    E run(const std::vector<E>& g_vars, const std::vector<E>& z) {
        // G: symmetric r×r of the variables g_ab.
        Mat G = zeros(r, r);
        std::size_t k = 0;
        for (long a = 0; a < r; ++a)
            for (long b = a; b < r; ++b) {
                G[u(a)][u(b)] = g_vars[k++];
                if (b != a) G[u(b)][u(a)] = G[u(a)][u(b)];
            }
        Mat T = zeros(n, r);
        for (long a = 0; a < n; ++a)
            for (long m = 0; m < r; ++m)
                if (s.embed_rank > 0) T[u(a)][u(m)] = scalar(w.embedding(a, m));
                else if (a == m) T[u(a)][u(m)] = ring.constant(1);
        const long p = s.coordinate - 1;
        for (long l = 0; l < s.depth; ++l) {
            const std::vector<W> coef = layer_coefficients(w.layers[u(l)]);
            const Mat Gam = gram(T, G);
            const bool last = l + 1 == s.depth;
            Mat next = zeros(n, r);
            for (long a = 0; a < n; ++a) {
                if (last && a != p) continue;  // only row p is needed at the last layer
                const std::vector<E> Ma = m_row(coef, a, Gam);
                for (long m = 0; m < n; ++m)
                    if (!Ma[u(m)].is_zero())
                        for (long c = 0; c < r; ++c) ring.add(next[u(a)][u(c)], ring.mul(Ma[u(m)], T[u(m)][u(c)]));
                if (s.residual)
                    for (long c = 0; c < r; ++c) ring.add(next[u(a)][u(c)], T[u(a)][u(c)]);
            }
            T = std::move(next);
        }
        E f = ring.zero();
        for (long c = 0; c < r; ++c) ring.add(f, ring.mul(T[u(p)][u(c)], z[u(c)]));
        return f;
    }
};

// f over the ring of `Ring` (a PolyRing) in the network's variables, by the moment pass.
template <class Ring>
typename Ring::E run_moment(const NetworkSpec& s, const NetWeights<typename Ring::W>& w, Ring& xring, Ring gring) {
    using E = typename Ring::E;
    const long r = moment_rank(s), g = r * (r + 1) / 2;
    std::vector<E> gv, z;
    for (long k = 0; k < g; ++k) gv.push_back(E::variable(gring.ctx, static_cast<std::size_t>(k)));
    for (long k = 0; k < r; ++k) z.push_back(E::variable(gring.ctx, static_cast<std::size_t>(g + k)));
    MomentPass<Ring> pass{s, w, gring, s.dim, r};
    const E fg = pass.run(gv, z);
    // g_ab ↦ Σ_j w_ja w_jb, z_k ↦ w_ik
    auto var = [&](long j, long c) { return E::variable(xring.ctx, static_cast<std::size_t>(j * r + c)); };
    std::vector<E> subs;
    for (long a = 0; a < r; ++a)
        for (long b = a; b < r; ++b) {
            E sum = xring.zero();
            for (long j = 0; j < s.tokens; ++j) xring.add(sum, xring.mul(var(j, a), var(j, b)));
            subs.push_back(std::move(sum));
        }
    for (long k = 0; k < r; ++k) subs.push_back(var(s.position - 1, k));
    return fg.compose(subs, xring.ctx);
}

// The families the moment pass computes (FamilyInfo::moment_expansion), named for the
// refusal: "attention".
std::string moment_families() {
    std::string names;
    for (Family f : all_families())
        if (family_info(f).moment_expansion) names += (names.empty() ? "" : ", ") + to_string(f);
    return names;
}

void require_moment(const NetworkSpec& s) {
    if (!family_info(s.family).moment_expansion)
        throw invalid_input("expansion variant moment applies to " + moment_families() + " only, not " + to_string(s.family));
}

}  // namespace

std::string to_string(ExpandVariant v) {
    switch (v) {
        case ExpandVariant::automatic: return "auto";
        case ExpandVariant::layered: return "layered";
        case ExpandVariant::moment: return "moment";
    }
    throw internal_error("to_string(ExpandVariant): unknown value " + std::to_string(static_cast<int>(v)));
}

ExpandVariant expand_variant_from_string(const std::string& text) {
    if (text == "auto") return ExpandVariant::automatic;
    if (text == "layered") return ExpandVariant::layered;
    if (text == "moment") return ExpandVariant::moment;
    throw invalid_input("expansion variant '" + text + "' is not one of auto, layered, moment");
}

ExpandVariant choose_expand_variant(const ValidSpec& valid, ExpandVariant requested) {
    const NetworkSpec& s = valid.get();
    if (requested != ExpandVariant::automatic) return requested;
    if (!family_info(s.family).moment_expansion || s.depth == 0) return ExpandVariant::layered;
    const long r = moment_rank(s), g = r * (r + 1) / 2;
    // D_T = (3^L − 1)/2; beyond a few dozen layers both counts are astronomical and the
    // expansion is refused anyway: compare in doubles via lgamma.
    const double dt = (std::pow(3.0, static_cast<double>(s.depth)) - 1.0) / 2.0;
    auto log_binom = [](double n, double k) { return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1); };
    const double log_mg = std::log(static_cast<double>(r)) +
                          (s.residual ? log_binom(dt + g, g) : log_binom(dt + g - 1, g - 1));
    const double nx = static_cast<double>(s.tokens * r), D = 2.0 * dt + 1.0;
    const double log_mx = s.residual ? log_binom(D + nx, nx) : log_binom(D + nx - 1, nx - 1);
    return std::log(16.0) + log_mg <= log_mx ? ExpandVariant::moment : ExpandVariant::layered;
}

namespace {

// The variants after check_shapes (s is net.spec, validated), with the checks every
// variant runs before any product: moment's family, p >= 2 over Z/p, the size estimate.
QPoly expand_q(const Network& net, const ValidSpec& s, ExpandVariant v, const ExpandOptions& opt) {
    if (v == ExpandVariant::moment) require_moment(s);
    check_estimate(s, opt);
    detail::QPolyRing xring{QContext::make(network_variables(s)), opt.product};
    if (v != ExpandVariant::moment) return run(s, net.weights, xring);
    return run_moment(s, net.weights, xring, detail::QPolyRing{QContext::make(moment_variables(s)), opt.product});
}

NmodPoly expand_p(const Network& net, const ValidSpec& s, ExpandVariant v, std::uint64_t p, const ExpandOptions& opt) {
    if (v == ExpandVariant::moment) require_moment(s);
    if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
    check_estimate(s, opt);
    const auto w = map_weights<std::uint64_t>(net.weights, [p](const Rational& x) { return x.mod(p); });
    detail::NmodPolyRing xring{NmodContext::make(network_variables(s), p)};
    if (v != ExpandVariant::moment) return run(s, w, xring);
    return run_moment(s, w, xring, detail::NmodPolyRing{NmodContext::make(moment_variables(s), p)});
}

}  // namespace

QPoly expand_layered(const Network& net, const ExpandOptions& opt) {
    return expand_q(net, check_shapes(net), ExpandVariant::layered, opt);
}

NmodPoly expand_mod_layered(const Network& net, std::uint64_t p, const ExpandOptions& opt) {
    return expand_p(net, check_shapes(net), ExpandVariant::layered, p, opt);
}

QPoly expand_moment(const Network& net, const ExpandOptions& opt) {
    return expand_q(net, check_shapes(net), ExpandVariant::moment, opt);
}

NmodPoly expand_mod_moment(const Network& net, std::uint64_t p, const ExpandOptions& opt) {
    return expand_p(net, check_shapes(net), ExpandVariant::moment, p, opt);
}

QPoly expand(const Network& net, const ExpandOptions& opt) {
    const ValidSpec s = check_shapes(net);
    return expand_q(net, s, choose_expand_variant(s, opt.variant), opt);
}

NmodPoly expand_mod(const Network& net, std::uint64_t p, const ExpandOptions& opt) {
    const ValidSpec s = check_shapes(net);
    return expand_p(net, s, choose_expand_variant(s, opt.variant), p, opt);
}

}  // namespace seprank
