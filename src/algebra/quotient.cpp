// seprank — the quotient ring of a zero-dimensional ideal mod p: multiplication matrices
// from the Gröbner basis, simple solutions and distinct values (quotient.hpp).
#include "quotient.hpp"

#include "base/parallel.hpp"
#include "flint_handles.hpp"
#include "seprank/error.hpp"

#include <flint/nmod_mat.h>
#include <flint/nmod_poly.h>
#include <flint/nmod_poly_factor.h>
#include <flint/nmod_vec.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace seprank::algebra_detail {

namespace {

using detail::NmodPoly;

using Vec = std::vector<mp_limb_t>;

// The normal forms of monomials modulo the basis, as coordinates on the standard monomials,
// memoised. A monomial m that is not standard is either a leading monomial (then m minus
// its polynomial, divided by the leading coefficient, has only smaller terms) or t_j·m' with
// m' not standard (then NF(m) = Σ_b NF(m')_b · NF(t_j·b), every t_j·b smaller than m).
class NormalForms {
public:
    NormalForms(const GroebnerBasis& basis, const std::vector<std::vector<int>>& standard) : basis_(basis), c_(static_cast<long>(standard.size())) {
        nmod_init(&mod_, basis.p);
        for (std::size_t k = 0; k < standard.size(); ++k) index_.emplace(standard[k], static_cast<long>(k));
        for (std::size_t g = 0; g < basis.polys.size(); ++g) lead_.emplace(basis.polys[g].front().e, static_cast<long>(g));
    }

    // acc += coef · NF(m).
    void add(const std::vector<int>& m, mp_limb_t coef, Vec& acc) {
        if (coef == 0) return;
        const auto s = index_.find(m);
        if (s != index_.end()) {
            acc[static_cast<std::size_t>(s->second)] = nmod_add(acc[static_cast<std::size_t>(s->second)], coef, mod_);
            return;
        }
        const Vec& v = of(m);
        _nmod_vec_scalar_addmul_nmod(acc.data(), v.data(), c_, coef, mod_);
    }

    // NF(m) for m not standard (computed once).
    const Vec& of(const std::vector<int>& m) {
        const auto hit = memo_.find(m);
        if (hit != memo_.end()) return hit->second;
        Vec v(static_cast<std::size_t>(c_), 0);
        const auto lead = lead_.find(m);
        if (lead != lead_.end()) {
            const ModPoly& g = basis_.polys[static_cast<std::size_t>(lead->second)];
            const mp_limb_t minus_inv = nmod_neg(nmod_inv(g.front().c, mod_), mod_);
            for (std::size_t k = 1; k < g.size(); ++k) add(g[k].e, nmod_mul(g[k].c, minus_inv, mod_), v);
        } else {
            // a leading monomial L divides m properly: take t_j with m_j > L_j
            const std::vector<int>* L = nullptr;
            for (const ModPoly& g : basis_.polys) {
                const std::vector<int>& e = g.front().e;
                bool divides = true;
                for (std::size_t i = 0; i < m.size() && divides; ++i) divides = e[i] <= m[i];
                if (divides) {
                    L = &e;
                    break;
                }
            }
            if (L == nullptr) throw internal_error("normal form: a monomial neither standard nor divisible by a leading monomial");
            std::size_t j = 0;
            while ((*L)[j] >= m[j]) ++j;
            std::vector<int> prev = m;
            --prev[j];
            const Vec& w = of(prev);  // std::map: stays valid while the table grows below
            std::vector<int> tb;
            for (const auto& [b, k] : index_) {
                const mp_limb_t x = w[static_cast<std::size_t>(k)];
                if (x == 0) continue;
                tb = b;
                ++tb[j];
                add(tb, x, v);
            }
        }
        return memo_.emplace(m, std::move(v)).first->second;
    }

private:
    const GroebnerBasis& basis_;
    long c_;
    nmod_t mod_{};
    std::map<std::vector<int>, long> index_;
    std::map<std::vector<int>, long> lead_;
    std::map<std::vector<int>, Vec> memo_;
};

// Whether every M_i has a squarefree minimal polynomial (the reference's test).
bool reduced_per_unknown(const Quotient& q) {
    for (const NmodMat& M : q.mult) {
        NmodPoly mp(q.basis.p);
        nmod_mat_minpoly(mp.get(), M.get());
        if (!nmod_poly_is_squarefree(mp.get())) return false;
    }
    return true;
}

// The length of the shortest linear recurrence of s (Berlekamp–Massey mod p).
long linear_complexity(const Vec& s, nmod_t mod) {
    Vec C{1}, B{1};
    long L = 0, m = 1;
    mp_limb_t b = 1;
    for (std::size_t n = 0; n < s.size(); ++n) {
        mp_limb_t d = s[n];
        for (long i = 1; i <= L && i < static_cast<long>(C.size()); ++i) d = nmod_add(d, nmod_mul(C[static_cast<std::size_t>(i)], s[n - static_cast<std::size_t>(i)], mod), mod);
        if (d == 0) {
            ++m;
            continue;
        }
        const mp_limb_t coef = nmod_mul(d, nmod_inv(b, mod), mod);
        Vec T = C;
        if (C.size() < B.size() + static_cast<std::size_t>(m)) C.resize(B.size() + static_cast<std::size_t>(m), 0);
        for (std::size_t i = 0; i < B.size(); ++i) C[i + static_cast<std::size_t>(m)] = nmod_sub(C[i + static_cast<std::size_t>(m)], nmod_mul(coef, B[i], mod), mod);
        if (2 * L <= static_cast<long>(n)) {
            L = static_cast<long>(n) + 1 - L;
            B = std::move(T);
            b = d;
            m = 1;
        } else {
            ++m;
        }
    }
    return L;
}

// Polynomials in t evaluated at t_i = h_i(x) mod chi: the powers h_i^e computed once (up to
// the largest exponent asked), each polynomial's terms grouped by their exponents variable
// by variable (nested Horner), the last variable's sums scalar.
class Shape {
public:
    Shape(const std::vector<NmodPoly>& h, const NmodPoly& chi, std::uint64_t p) : h_(h), chi_(chi), chi_inv_(p), p_(p), n_(static_cast<long>(h.size())), c_(nmod_poly_degree(chi.get())) {
        nmod_init(&mod_, p);
        NmodPoly rev(p);
        nmod_poly_reverse(rev.get(), chi.get(), c_ + 1);
        nmod_poly_inv_series(chi_inv_.get(), rev.get(), c_ + 1);
        powers_.resize(static_cast<std::size_t>(n_));
    }

    // a·b mod chi (a, b of degree < c).
    void mul(NmodPoly& out, const NmodPoly& a, const NmodPoly& b) const { nmod_poly_mulmod_preinv(out.get(), a.get(), b.get(), chi_.get(), chi_inv_.get()); }

    NmodPoly eval(const ModPoly& f) {
        terms_.clear();
        for (const ModTerm& t : f)
            if (t.c % p_ != 0) terms_.push_back(&t);
        std::sort(terms_.begin(), terms_.end(), [](const ModTerm* a, const ModTerm* b) { return a->e < b->e; });
        for (const ModTerm* t : terms_)
            for (long i = 0; i < n_; ++i) power(i, t->e[static_cast<std::size_t>(i)]);
        NmodPoly out(p_);
        if (!terms_.empty()) eval(0, terms_.size(), 0, out);
        return out;
    }

private:
    const NmodPoly& power(long i, int e) {
        auto& P = powers_[static_cast<std::size_t>(i)];
        if (P.empty()) {
            P.emplace_back(p_);
            nmod_poly_one(P.back().get());
        }
        while (static_cast<int>(P.size()) <= e) {
            NmodPoly next(p_);
            mul(next, P.back(), h_[static_cast<std::size_t>(i)]);
            P.push_back(std::move(next));
        }
        return P[static_cast<std::size_t>(e)];
    }

    // out = Σ over terms[lo, hi) (equal in variables < i) of their part in variables ≥ i.
    void eval(std::size_t lo, std::size_t hi, long i, NmodPoly& out) {
        nmod_poly_zero(out.get());
        if (i == n_ - 1) {
            Vec acc(static_cast<std::size_t>(c_), 0);
            for (std::size_t k = lo; k < hi; ++k) {
                const NmodPoly& P = power(i, terms_[k]->e[static_cast<std::size_t>(i)]);
                _nmod_vec_scalar_addmul_nmod(acc.data(), P.get()->coeffs, P.get()->length, terms_[k]->c % p_, mod_);
            }
            for (long k = 0; k < c_; ++k) nmod_poly_set_coeff_ui(out.get(), k, acc[static_cast<std::size_t>(k)]);
            return;
        }
        NmodPoly inner(p_), prod(p_);
        for (std::size_t a = lo; a < hi;) {
            const int e = terms_[a]->e[static_cast<std::size_t>(i)];
            std::size_t b = a;
            while (b < hi && terms_[b]->e[static_cast<std::size_t>(i)] == e) ++b;
            eval(a, b, i + 1, inner);
            if (e == 0) nmod_poly_add(out.get(), out.get(), inner.get());
            else {
                mul(prod, inner, power(i, e));
                nmod_poly_add(out.get(), out.get(), prod.get());
            }
            a = b;
        }
    }

    const std::vector<NmodPoly>& h_;
    const NmodPoly& chi_;
    NmodPoly chi_inv_;
    std::uint64_t p_;
    long n_, c_;
    nmod_t mod_{};
    std::vector<std::vector<NmodPoly>> powers_;  // powers_[i][e] = h_i^e mod chi, grown on demand
    std::vector<const ModTerm*> terms_;
};

// ∂f/∂t_k.
ModPoly derivative(const ModPoly& f, long k, std::uint64_t p) {
    nmod_t mod;
    nmod_init(&mod, p);
    ModPoly d;
    for (const ModTerm& t : f) {
        const int e = t.e[static_cast<std::size_t>(k)];
        if (e == 0) continue;
        ModTerm dt{nmod_mul(t.c % p, static_cast<std::uint64_t>(e) % p, mod), t.e};
        --dt.e[static_cast<std::size_t>(k)];
        if (dt.c != 0) d.push_back(std::move(dt));
    }
    return d;
}

// The determinant of the n × n matrix J over Z/p[x]/chi, by Laplace expansion along the
// rows over column subsets (n·2^(n−1) products).
NmodPoly determinant(Shape& shape, const std::vector<std::vector<NmodPoly>>& J, std::uint64_t p) {
    const long n = static_cast<long>(J.size());
    std::vector<NmodPoly> D;  // D[S]: the minor of rows 0..|S|−1 and the columns in S
    D.reserve(std::size_t{1} << n);
    for (std::size_t S = 0; S < (std::size_t{1} << n); ++S) D.emplace_back(p);
    nmod_poly_one(D[0].get());
    NmodPoly prod(p);
    for (std::size_t S = 1; S < (std::size_t{1} << n); ++S) {
        const long row = __builtin_popcountll(S) - 1;
        long above = 0;  // columns of S after j: the sign of j's cofactor
        for (long j = n - 1; j >= 0; --j) {
            if (!(S >> j & 1U)) continue;
            shape.mul(prod, J[static_cast<std::size_t>(row)][static_cast<std::size_t>(j)], D[S & ~(std::size_t{1} << j)]);
            if (above % 2 == 0) nmod_poly_add(D[S].get(), D[S].get(), prod.get());
            else nmod_poly_sub(D[S].get(), D[S].get(), prod.get());
            ++above;
        }
    }
    return std::move(D.back());
}

// Whether x ↦ (h_1(x), …, h_n(x)), at the c roots of chi, are c distinct simple solutions
// of the square system, checked without the basis: distinct (Σ r_i h_i = x mod chi),
// solutions (s(h) = 0 mod chi for each equation s) and simple (det J(h) prime to chi).
bool points_check(Shape& shape, const std::vector<NmodPoly>& h, const std::vector<std::uint64_t>& r, const NmodPoly& chi,
                  const std::vector<ModPoly>& system, std::uint64_t p) {
    const long n = static_cast<long>(h.size()), c = nmod_poly_degree(chi.get());
    NmodPoly sum(p), term(p), x(p);
    for (long i = 0; i < n; ++i) {
        nmod_poly_scalar_mul_nmod(term.get(), h[static_cast<std::size_t>(i)].get(), r[static_cast<std::size_t>(i)]);
        nmod_poly_add(sum.get(), sum.get(), term.get());
    }
    // x mod chi: the root itself when chi = x − root
    if (c > 1) nmod_poly_set_coeff_ui(x.get(), 1, 1);
    else nmod_poly_set_coeff_ui(x.get(), 0, (p - nmod_poly_get_coeff_ui(chi.get(), 0)) % p);
    if (!nmod_poly_equal(sum.get(), x.get())) return false;
    std::vector<std::vector<NmodPoly>> J(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i) {
        if (!nmod_poly_is_zero(shape.eval(system[static_cast<std::size_t>(i)]).get())) return false;
        for (long k = 0; k < n; ++k) J[static_cast<std::size_t>(i)].push_back(shape.eval(derivative(system[static_cast<std::size_t>(i)], k, p)));
    }
    NmodPoly det = determinant(shape, J, p), g(p);
    nmod_poly_gcd(g.get(), det.get(), chi.get());
    return nmod_poly_degree(g.get()) == 0;
}

// At least 1 and at most the number of distinct values of `value` at the roots of chi: the
// shortest recurrence of ℓ(v^e), e < 2c, for v = value(h(x)) mod chi and a random ℓ,
// divides v's minimal polynomial mod chi (Berlekamp–Massey).
long distinct_lower_bound(Shape& shape, const NmodPoly& chi, const ModPoly& value, Rng& rng, std::uint64_t p) {
    const long c = nmod_poly_degree(chi.get());
    nmod_t mod;
    nmod_init(&mod, p);
    const NmodPoly v = shape.eval(value);
    Vec ell(static_cast<std::size_t>(c));
    for (auto& x : ell) x = rng.below(p);
    Vec seq;
    NmodPoly power(p), next(p);
    nmod_poly_one(power.get());
    for (long e = 0; e < 2 * c; ++e) {
        seq.push_back(_nmod_vec_dot(ell.data(), power.get()->coeffs, nmod_poly_length(power.get()), mod, _nmod_vec_dot_bound_limbs(c, mod)));
        shape.mul(next, power, v);
        nmod_poly_swap(power.get(), next.get());
    }
    return std::max(1L, linear_complexity(seq, mod));  // c >= 1 points take at least one value
}

// One draw of the separating variant: 1 = A is reduced (the shape h_i and chi set), 0 = A
// is not reduced (chi of degree c, not squarefree), -1 = u does not separate (or A is not
// reduced: undecided).
int separating_draw(const Quotient& q, Rng& rng, NmodPoly& chi, std::vector<NmodPoly>& h, std::vector<std::uint64_t>& r, int threads) {
    const long c = static_cast<long>(q.standard.size());
    const long n = q.basis.n;
    const std::uint64_t p = q.basis.p;
    nmod_t mod;
    nmod_init(&mod, p);
    NmodMat Mu(c, c, p);
    r.assign(static_cast<std::size_t>(n), 0);
    for (long i = 0; i < n; ++i) {
        r[static_cast<std::size_t>(i)] = rng.below(p);
        for (long a = 0; a < c; ++a)
            _nmod_vec_scalar_addmul_nmod(Mu.get()->rows[a], q.mult[static_cast<std::size_t>(i)].get()->rows[a], c, r[static_cast<std::size_t>(i)], mod);
    }
    // Krylov: column k of K is u^k · 1 (1 is the first standard monomial). Below 2^16 (the
    // Gröbner engine's moduli) M_u is copied to 32-bit words and each product summed in 64
    // bits (c·p² < 2^64 for c < 2^31), reduced once per entry: half the memory traffic of the
    // c passes over M_u, and the rows split over `threads`.
    NmodMat K(c, c, p);
    NmodMat rhs(c, n + 1, p);
    Vec v(static_cast<std::size_t>(c), 0), next(static_cast<std::size_t>(c));
    v[0] = 1;
    const bool narrow = p < (std::uint64_t{1} << 16);
    std::vector<std::uint32_t> mu32;
    std::vector<std::uint32_t> v32;
    if (narrow) {
        mu32.resize(static_cast<std::size_t>(c) * static_cast<std::size_t>(c));
        for (long a = 0; a < c; ++a)
            for (long b = 0; b < c; ++b) mu32[static_cast<std::size_t>(a * c + b)] = static_cast<std::uint32_t>(nmod_mat_entry(Mu.get(), a, b));
        v32.resize(static_cast<std::size_t>(c));
    }
    const int nt = static_cast<int>(std::max(1L, std::min<long>(threads, c / 256)));  // a share of at least 256 rows
    const auto product = [&](long lo, long hi) {
        if (narrow) {
            for (long a = lo; a < hi; ++a) {
                const std::uint32_t* row = mu32.data() + static_cast<std::size_t>(a * c);
                std::uint64_t acc = 0;
                for (long b = 0; b < c; ++b) acc += static_cast<std::uint64_t>(row[b]) * v32[static_cast<std::size_t>(b)];
                next[static_cast<std::size_t>(a)] = acc % p;
            }
        } else {
            for (long a = lo; a < hi; ++a) next[static_cast<std::size_t>(a)] = _nmod_vec_dot(Mu.get()->rows[a], v.data(), c, mod, _nmod_vec_dot_bound_limbs(c, mod));
        }
    };
    for (long k = 0; k <= c; ++k) {
        if (k < c)
            for (long a = 0; a < c; ++a) nmod_mat_entry(K.get(), a, k) = v[static_cast<std::size_t>(a)];
        else
            for (long a = 0; a < c; ++a) nmod_mat_entry(rhs.get(), a, 0) = v[static_cast<std::size_t>(a)];
        if (k == c) break;
        if (narrow)
            for (long b = 0; b < c; ++b) v32[static_cast<std::size_t>(b)] = static_cast<std::uint32_t>(v[static_cast<std::size_t>(b)]);
        if (nt == 1) product(0, c);
        else detail::run_parallel(nt, [&](int tid) { product(c * tid / nt, c * (tid + 1) / nt); });
        std::swap(v, next);
    }
    // t_i · 1 is column 0 of M_i
    for (long i = 0; i < n; ++i)
        for (long a = 0; a < c; ++a) nmod_mat_entry(rhs.get(), a, i + 1) = nmod_mat_entry(q.mult[static_cast<std::size_t>(i)].get(), a, 0);
    NmodMat X(c, n + 1, p);
    if (!nmod_mat_solve(X.get(), K.get(), rhs.get())) return -1;
    nmod_poly_zero(chi.get());
    nmod_poly_set_coeff_ui(chi.get(), c, 1);
    for (long k = 0; k < c; ++k) nmod_poly_set_coeff_ui(chi.get(), k, nmod_neg(nmod_mat_entry(X.get(), k, 0), mod));
    if (!nmod_poly_is_squarefree(chi.get())) return 0;
    h.clear();
    for (long i = 0; i < n; ++i) {
        h.emplace_back(p);
        for (long k = 0; k < c; ++k) nmod_poly_set_coeff_ui(h.back().get(), k, nmod_mat_entry(X.get(), k, i + 1));
    }
    return 1;
}

}  // namespace

Quotient quotient_of(GroebnerBasis basis, long max_points) {
    StandardMonomials st = standard_monomials(basis, 10000000);
    if (!st.zero_dimensional) throw invalid_input("quotient: the ideal is not zero-dimensional");
    const long c = static_cast<long>(st.monomials.size());
    if (c > max_points) throw resource_limit("quotient: " + std::to_string(c) + " solutions, over " + std::to_string(max_points));
    Quotient q;
    q.basis = std::move(basis);
    q.standard = std::move(st.monomials);
    const long n = q.basis.n;
    NormalForms nf(q.basis, q.standard);
    // The border t_i·b (b standard) in increasing order: each normal form then reuses
    // smaller ones already in the table.
    std::vector<std::pair<std::vector<int>, std::pair<long, long>>> border;  // monomial, (i, k)
    for (long i = 0; i < n; ++i) {
        q.mult.emplace_back(c, c, q.basis.p);
        for (long k = 0; k < c; ++k) {
            std::vector<int> m = q.standard[static_cast<std::size_t>(k)];
            ++m[static_cast<std::size_t>(i)];
            border.push_back({std::move(m), {i, k}});
        }
    }
    std::sort(border.begin(), border.end(), [&](const auto& x, const auto& y) { return order_greater(y.first, x.first, q.basis.weights); });
    Vec col(static_cast<std::size_t>(c));
    for (const auto& [m, at] : border) {
        std::fill(col.begin(), col.end(), 0);
        nf.add(m, 1, col);
        for (long a = 0; a < c; ++a) nmod_mat_entry(q.mult[static_cast<std::size_t>(at.first)].get(), a, at.second) = col[static_cast<std::size_t>(a)];
    }
    return q;
}

SimplePoints simple_points(const Quotient& q, const std::vector<ModPoly>& system, const ModPoly& value, Rng& rng, SimpleVariant variant, int threads) {
    const long c = static_cast<long>(q.standard.size());
    const long n = q.basis.n;
    const std::uint64_t p = q.basis.p;
    if (static_cast<long>(system.size()) != n)
        throw invalid_input("simple points: " + std::to_string(system.size()) + " equations in " + std::to_string(n) + " unknowns (a square system)");
    SimplePoints res;
    if (c == 0) {  // no solution: nothing to certify
        res.simple = true;
        res.points = 0;
        return res;
    }
    if (variant == SimpleVariant::separating) {
        NmodPoly chi(p);
        std::vector<NmodPoly> h;
        for (int draw = 0; draw < 3; ++draw) {
            std::vector<std::uint64_t> r;
            const int got = separating_draw(q, rng, chi, h, r, threads);
            if (got == 0) return res;  // not reduced
            if (got < 0) continue;
            Shape shape(h, chi, p);
            if (!points_check(shape, h, r, chi, system, p))
                throw internal_error("simple points: the quotient's points do not check as distinct simple solutions of the system");
            res.simple = true;
            res.points = c;
            res.distinct = distinct_lower_bound(shape, chi, value, rng, p);
            return res;
        }
    }
    res.simple = reduced_per_unknown(q);
    if (res.simple) res.points = c;
    return res;
}

NmodMat multiplication_matrix(const Quotient& q, const ModPoly& f) {
    const long c = static_cast<long>(q.standard.size());
    const std::uint64_t p = q.basis.p;
    NmodMat F(c, c, p), term(c, c, p), tmp(c, c, p);
    for (const ModTerm& t : f) {
        nmod_mat_one(term.get());
        for (long i = 0; i < q.basis.n; ++i)
            for (int e = 0; e < t.e[static_cast<std::size_t>(i)]; ++e) {
                nmod_mat_mul(tmp.get(), term.get(), q.mult[static_cast<std::size_t>(i)].get());
                nmod_mat_swap(tmp.get(), term.get());
            }
        nmod_mat_scalar_mul(term.get(), term.get(), t.c % p);
        nmod_mat_add(F.get(), F.get(), term.get());
    }
    return F;
}

long distinct_values_reference(const Quotient& q, const ModPoly& value) {
    if (q.standard.empty()) return 0;
    if (!reduced_per_unknown(q)) return -1;
    NmodPoly mp(q.basis.p);
    nmod_mat_minpoly(mp.get(), multiplication_matrix(q, value).get());
    return nmod_poly_degree(mp.get());
}

}  // namespace seprank::algebra_detail
