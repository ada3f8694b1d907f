#include "seprank/poly.hpp"

#include "base/limits_internal.hpp"
#include "poly_mul.hpp"
#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace seprank {

// ---------------------------------------------------------------- Variables

namespace {

// Whether `bytes` needs no check against default_max_memory(): up to 16 MiB only a limit
// the caller set is read, since the built-in one is larger than that and reading it costs
// system calls while it is unset (limits.hpp), which the many small sums and products of an
// expansion should not pay. O(1).
bool below_quiet_limit(double bytes) {
    const double set = detail::set_max_memory();
    return bytes <= 16.0 * 1024 * 1024 && (set <= 0 || bytes <= set);
}

bool is_identifier(const std::string& s) {
    if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// "<letters><digits>_<digits>" -> (token, coord); (0, 0) otherwise.
std::pair<long, long> token_coord(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    if (i == 0) return {0, 0};
    std::size_t j = s.find('_', i);
    if (j == std::string::npos || j == i || j + 1 == s.size()) return {0, 0};
    auto digits = [](std::string_view v) {
        return v.size() <= 9 && std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    std::string_view a(s.data() + i, j - i), b(s.data() + j + 1, s.size() - j - 1);
    if (!digits(a) || !digits(b)) return {0, 0};
    return {std::stol(std::string(a)), std::stol(std::string(b))};
}

}  // namespace

Variables::Variables(std::vector<std::string> names) : names_(std::move(names)) {
    by_name_.resize(names_.size());
    for (std::size_t i = 0; i < by_name_.size(); ++i) by_name_[i] = i;
    std::sort(by_name_.begin(), by_name_.end(), [&](std::size_t a, std::size_t b) { return names_[a] < names_[b]; });
    for (std::size_t i = 0; i < by_name_.size(); ++i) {
        const std::string& n = names_[by_name_[i]];
        if (!is_identifier(n)) throw invalid_input("bad variable name '" + n + "'");
        if (i > 0 && n == names_[by_name_[i - 1]]) throw invalid_input("duplicate variable name '" + n + "'");
    }
    for (const auto& n : names_) {
        auto [t, c] = token_coord(n);
        token_.push_back(t);
        coord_.push_back(c);
    }
}

Variables Variables::tokens(long n_tokens, long dim, const std::string& prefix) {
    if (n_tokens < 0) throw invalid_input("number of tokens " + std::to_string(n_tokens) + " is negative");
    if (dim < 0) throw invalid_input("dimension " + std::to_string(dim) + " is negative");
    // About 48 bytes a name (the string, its index, the sorted copy), checked before any is
    // made: n·dx in double, as 2^32 · 2^32 overflowed the reserve to a bad_alloc.
    const double n = static_cast<double>(n_tokens) * static_cast<double>(dim);
    if (!below_quiet_limit(48.0 * n))
        check_memory(48.0 * n, default_max_memory(), "variables for " + std::to_string(n_tokens) + " tokens of dimension " + std::to_string(dim));
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(n_tokens * dim));
    for (long j = 1; j <= n_tokens; ++j)
        for (long c = 1; c <= dim; ++c) names.push_back(prefix + std::to_string(j) + "_" + std::to_string(c));
    return Variables(std::move(names));
}

std::optional<std::size_t> Variables::find(std::string_view name) const {
    const auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                                     [&](std::size_t i, std::string_view n) { return std::string_view(names_[i]) < n; });
    if (it != by_name_.end() && names_[*it] == name) return *it;
    return std::nullopt;
}

// ---------------------------------------------------------------- FLINT adapters

namespace {

template <class T>
struct Ops;

template <>
struct Ops<QTraits> {
    using P = fmpq_mpoly_struct;
    using C = fmpq_mpoly_ctx_struct;
    static void ctx_init(C* c, slong n, std::uint64_t) { fmpq_mpoly_ctx_init(c, n, ORD_DEGREVLEX); }
    static void ctx_clear(C* c) { fmpq_mpoly_ctx_clear(c); }
    static void init(P* p, const C* c) { fmpq_mpoly_init(p, c); }
    static void clear(P* p, const C* c) { fmpq_mpoly_clear(p, c); }
    static void swap(P* a, P* b, const C* c) { fmpq_mpoly_swap(a, b, c); }
    static void set(P* a, const P* b, const C* c) { fmpq_mpoly_set(a, b, c); }
    static void set_coeff(P* a, const Rational& v, const C* c) { fmpq_mpoly_set_fmpq(a, v.get(), c); }
    static void gen(P* a, slong i, const C* c) { fmpq_mpoly_gen(a, i, c); }
    static bool is_zero(const P* a, const C* c) { return fmpq_mpoly_is_zero(a, c); }
    static slong length(const P* a, const C* c) { return fmpq_mpoly_length(a, c); }
    static bool degree_fits(const P* a, const C* c) { return fmpq_mpoly_total_degree_fits_si(a, c); }
    static slong degree(const P* a, const C* c) { return fmpq_mpoly_total_degree_si(a, c); }
    static bool equal(const P* a, const P* b, const C* c) { return fmpq_mpoly_equal(a, b, c); }
    static void add(P* r, const P* a, const P* b, const C* c) { fmpq_mpoly_add(r, a, b, c); }
    static void sub(P* r, const P* a, const P* b, const C* c) { fmpq_mpoly_sub(r, a, b, c); }
    static void mul(P* r, const P* a, const P* b, const C* c) { fmpq_mpoly_mul(r, a, b, c); }
    static void neg(P* r, const P* a, const C* c) { fmpq_mpoly_neg(r, a, c); }
    static void scalar_mul(P* r, const Rational& v, const C* c) { fmpq_mpoly_scalar_mul_fmpq(r, r, v.get(), c); }
    static bool pow(P* r, const P* a, ulong e, const C* c) { return fmpq_mpoly_pow_ui(r, a, e, c) != 0; }
    // Bits of the largest coefficient, as content·(primitive integer part) (FLINT's form).
    static double coeff_bits(const P* a, const C*) {
        return static_cast<double>(FLINT_ABS(fmpz_mpoly_max_bits(a->zpoly)) + fmpz_bits(fmpq_numref(a->content)) +
                                   fmpz_bits(fmpq_denref(a->content)));
    }
    static constexpr bool exact_coefficients = true;
    // Bits of the largest coefficient of the primitive integer part (the content is one
    // number per polynomial, not one per term). O(terms).
    static double term_coeff_bits(const P* a) { return static_cast<double>(FLINT_ABS(fmpz_mpoly_max_bits(a->zpoly))); }
    // Bits per field of the packed exponents. O(1).
    static double exp_bits(const P* a) { return static_cast<double>(a->zpoly->bits); }
    static bool compose(P* r, const P* a, P* const* subs, const C* ca, const C* cr) {
        return fmpq_mpoly_compose_fmpq_mpoly(r, a, const_cast<P* const*>(subs), ca, cr) != 0;
    }
    static Rational coeff(const P* a, slong k, const C* c) {
        Rational v;
        fmpq_mpoly_get_term_coeff_fmpq(v.get(), a, k, c);
        return v;
    }
    static bool exp_fits(const P* a, slong k, const C* c) { return fmpq_mpoly_term_exp_fits_ui(a, k, c); }
    static void exps(ulong* e, const P* a, slong k, const C* c) { fmpq_mpoly_get_term_exp_ui(e, a, k, c); }
    static void push(P* a, const Rational& v, const ulong* e, const C* c) { fmpq_mpoly_push_term_fmpq_ui(a, v.get(), e, c); }
    static void finish(P* a, const C* c) {
        fmpq_mpoly_sort_terms(a, c);
        fmpq_mpoly_combine_like_terms(a, c);  // also re-canonicalises the content
    }
    static Rational evaluate(const P* a, const std::vector<Rational>& pt, const C* c) {
        std::vector<fmpq*> ptrs;
        ptrs.reserve(pt.size());
        for (const auto& v : pt) ptrs.push_back(const_cast<fmpq*>(v.get()));
        Rational r;
        if (!fmpq_mpoly_evaluate_all_fmpq(r.get(), a, ptrs.data(), c))
            throw resource_limit("evaluation failed: exponents too large for exact evaluation");
        return r;
    }
};

template <>
struct Ops<NmodTraits> {
    using P = nmod_mpoly_struct;
    using C = nmod_mpoly_ctx_struct;
    static void ctx_init(C* c, slong n, std::uint64_t p) { nmod_mpoly_ctx_init(c, n, ORD_DEGREVLEX, p); }
    static void ctx_clear(C* c) { nmod_mpoly_ctx_clear(c); }
    static void init(P* p, const C* c) { nmod_mpoly_init(p, c); }
    static void clear(P* p, const C* c) { nmod_mpoly_clear(p, c); }
    static void swap(P* a, P* b, const C* c) { nmod_mpoly_swap(a, b, c); }
    static void set(P* a, const P* b, const C* c) { nmod_mpoly_set(a, b, c); }
    static void set_coeff(P* a, std::uint64_t v, const C* c) { nmod_mpoly_set_ui(a, v, c); }
    static void gen(P* a, slong i, const C* c) { nmod_mpoly_gen(a, i, c); }
    static bool is_zero(const P* a, const C* c) { return nmod_mpoly_is_zero(a, c); }
    static slong length(const P* a, const C* c) { return nmod_mpoly_length(a, c); }
    static bool degree_fits(const P* a, const C* c) { return nmod_mpoly_total_degree_fits_si(a, c); }
    static slong degree(const P* a, const C* c) { return nmod_mpoly_total_degree_si(a, c); }
    static bool equal(const P* a, const P* b, const C* c) { return nmod_mpoly_equal(a, b, c); }
    static void add(P* r, const P* a, const P* b, const C* c) { nmod_mpoly_add(r, a, b, c); }
    static void sub(P* r, const P* a, const P* b, const C* c) { nmod_mpoly_sub(r, a, b, c); }
    static void mul(P* r, const P* a, const P* b, const C* c) { nmod_mpoly_mul(r, a, b, c); }
    static void neg(P* r, const P* a, const C* c) { nmod_mpoly_neg(r, a, c); }
    static void scalar_mul(P* r, std::uint64_t v, const C* c) { nmod_mpoly_scalar_mul_ui(r, r, v, c); }
    static bool pow(P* r, const P* a, ulong e, const C* c) { return nmod_mpoly_pow_ui(r, a, e, c) != 0; }
    static double coeff_bits(const P*, const C*) { return 0; }
    static constexpr bool exact_coefficients = false;  // one word each
    static double term_coeff_bits(const P*) { return 0; }
    static double exp_bits(const P* a) { return static_cast<double>(a->bits); }
    static bool compose(P* r, const P* a, P* const* subs, const C* ca, const C* cr) {
        return nmod_mpoly_compose_nmod_mpoly(r, a, const_cast<P* const*>(subs), ca, cr) != 0;
    }
    static std::uint64_t coeff(const P* a, slong k, const C* c) { return nmod_mpoly_get_term_coeff_ui(a, k, c); }
    static bool exp_fits(const P* a, slong k, const C* c) { return nmod_mpoly_term_exp_fits_ui(a, k, c); }
    static void exps(ulong* e, const P* a, slong k, const C* c) { nmod_mpoly_get_term_exp_ui(e, a, k, c); }
    static void push(P* a, std::uint64_t v, const ulong* e, const C* c) { nmod_mpoly_push_term_ui_ui(a, v, e, c); }
    static void finish(P* a, const C* c) {
        nmod_mpoly_sort_terms(a, c);
        nmod_mpoly_combine_like_terms(a, c);
    }
    static std::uint64_t evaluate(const P* a, const std::vector<std::uint64_t>& pt, const C* c) {
        const std::uint64_t p = c->mod.n;
        std::vector<ulong> v(pt.begin(), pt.end());
        for (auto& x : v) x %= p;  // FLINT requires reduced inputs
        return nmod_mpoly_evaluate_all_ui(a, v.data(), c);
    }
};

}  // namespace

// ---------------------------------------------------------------- Context

template <class T>
Context<T>::Context(std::shared_ptr<const Variables> vars, std::uint64_t modulus)
    : vars_(std::move(vars)), modulus_(modulus) {
    if (!vars_) throw invalid_input("Context: null variable list");
    if constexpr (std::is_same_v<T, NmodTraits>) {
        if (modulus < 2) throw invalid_input("modulus p = " + std::to_string(modulus) + " must be at least 2");
    } else {
        if (modulus != 0) throw invalid_input("a context over Q takes no modulus (got " + std::to_string(modulus) + ")");
    }
    Ops<T>::ctx_init(ctx_, static_cast<slong>(vars_->size()), modulus);
}

template <class T>
Context<T>::~Context() {
    Ops<T>::ctx_clear(ctx_);
}

// ---------------------------------------------------------------- Poly

template <class T>
Poly<T>::Poly(ContextPtr ctx) : ctx_(std::move(ctx)) {
    if (!ctx_) throw invalid_input("Poly: null context");
    Ops<T>::init(p_, ctx_->get());
}

template <class T>
Poly<T> Poly<T>::constant(ContextPtr ctx, const Coeff& c) {
    Poly r(std::move(ctx));
    if constexpr (std::is_same_v<T, NmodTraits>)
        Ops<T>::set_coeff(r.p_, c % r.ctx_->modulus(), r.ctx_->get());
    else
        Ops<T>::set_coeff(r.p_, c, r.ctx_->get());
    return r;
}

template <class T>
Poly<T> Poly<T>::variable(ContextPtr ctx, std::size_t var) {
    Poly r(std::move(ctx));
    if (var >= r.ctx_->nvars())
        throw invalid_input("variable index " + std::to_string(var) + " out of range (have " +
                            std::to_string(r.ctx_->nvars()) + ")");
    Ops<T>::gen(r.p_, static_cast<slong>(var), r.ctx_->get());
    return r;
}

template <class T>
Poly<T>::Poly(const Poly& o) : ctx_(o.ctx_) {
    Ops<T>::init(p_, ctx_->get());
    Ops<T>::set(p_, o.p_, ctx_->get());
}

template <class T>
Poly<T>::Poly(Poly&& o) noexcept : ctx_(o.ctx_) {
    Ops<T>::init(p_, ctx_->get());
    Ops<T>::swap(p_, o.p_, ctx_->get());
}

template <class T>
Poly<T>& Poly<T>::operator=(const Poly& o) {
    if (this != &o) {
        Poly tmp(o);
        *this = std::move(tmp);
    }
    return *this;
}

template <class T>
Poly<T>& Poly<T>::operator=(Poly&& o) noexcept {
    // Swapping the raw structs and the context pointers together keeps each
    // polynomial paired with the context it was allocated in.
    std::swap(ctx_, o.ctx_);
    std::swap(p_[0], o.p_[0]);
    return *this;
}

template <class T>
Poly<T>::~Poly() {
    Ops<T>::clear(p_, ctx_->get());
}

template <class T>
bool Context<T>::interchangeable(const Context& o) const noexcept {
    return this == &o || (modulus_ == o.modulus_ && (vars_ == o.vars_ || vars_->names() == o.vars_->names()));
}

template <class T>
void Poly<T>::require_same(const Poly& o, const char* op) const {
    if (!ctx_->interchangeable(*o.ctx_))
        throw invalid_input(std::string("operator ") + op + ": polynomials from contexts with other variables" +
                            (ctx_->modulus() != o.ctx_->modulus() ? " or another modulus" : ""));
}

template <class T>
bool Poly<T>::is_zero() const noexcept { return Ops<T>::is_zero(p_, ctx_->get()); }

template <class T>
std::size_t Poly<T>::terms() const noexcept { return static_cast<std::size_t>(Ops<T>::length(p_, ctx_->get())); }

template <class T>
long Poly<T>::degree() const {
    if (!Ops<T>::degree_fits(p_, ctx_->get())) throw resource_limit("total degree does not fit a 64-bit integer");
    return Ops<T>::degree(p_, ctx_->get());
}

template <class T>
typename Poly<T>::Coeff Poly<T>::coeff(std::size_t k) const {
    if (k >= terms()) throw invalid_input("term index " + std::to_string(k) + " out of range (" + std::to_string(terms()) + " terms)");
    return Ops<T>::coeff(p_, static_cast<slong>(k), ctx_->get());
}

template <class T>
std::vector<std::uint64_t> Poly<T>::exponents(std::size_t k) const {
    if (k >= terms()) throw invalid_input("term index " + std::to_string(k) + " out of range (" + std::to_string(terms()) + " terms)");
    if (!Ops<T>::exp_fits(p_, static_cast<slong>(k), ctx_->get()))
        throw resource_limit("exponent of term " + std::to_string(k) + " does not fit 64 bits");
    std::vector<ulong> e(ctx_->nvars());
    Ops<T>::exps(e.data(), p_, static_cast<slong>(k), ctx_->get());
    return std::vector<std::uint64_t>(e.begin(), e.end());
}

template <class T>
bool Poly<T>::is_homogeneous() const {
    const std::size_t n = terms();
    if (n <= 1) return true;
    // In degrevlex order the first term has the largest total degree and the last the
    // smallest, so the polynomial is homogeneous iff the two agree.
    auto deg = [&](std::size_t k) {
        std::uint64_t s = 0;
        for (auto e : exponents(k)) s += e;
        return s;
    };
    return deg(0) == deg(n - 1);
}

template <class T>
Poly<T> Poly<T>::from_terms(ContextPtr ctx, const std::vector<Coeff>& coeffs,
                            const std::vector<std::vector<std::uint64_t>>& exps) {
    if (coeffs.size() != exps.size())
        throw invalid_input("from_terms: " + std::to_string(coeffs.size()) + " coefficients but " +
                            std::to_string(exps.size()) + " exponent vectors");
    Poly r(std::move(ctx));
    const std::size_t nv = r.ctx_->nvars();
    std::vector<ulong> e(nv);
    for (std::size_t k = 0; k < coeffs.size(); ++k) {
        if (exps[k].size() != nv)
            throw invalid_input("from_terms: exponent vector " + std::to_string(k) + " has " +
                                std::to_string(exps[k].size()) + " entries, expected " + std::to_string(nv));
        std::copy(exps[k].begin(), exps[k].end(), e.begin());
        if constexpr (std::is_same_v<T, NmodTraits>)
            Ops<T>::push(r.p_, coeffs[k] % r.ctx_->modulus(), e.data(), r.ctx_->get());
        else
            Ops<T>::push(r.p_, coeffs[k], e.data(), r.ctx_->get());
    }
    Ops<T>::finish(r.p_, r.ctx_->get());
    return r;
}

template <class T>
typename Poly<T>::Coeff Poly<T>::evaluate(const std::vector<Coeff>& point) const {
    if (point.size() != ctx_->nvars())
        throw invalid_input("evaluation point has " + std::to_string(point.size()) + " values, expected " +
                            std::to_string(ctx_->nvars()));
    if constexpr (std::is_same_v<T, QTraits>) {
        // Over Q the value has at most bits(coefficients) + Σ_j deg_j(f)·h_j + log2 t bits,
        // h_j the height of coordinate j (numerator and denominator bits; 0 for 0 and ±1,
        // whose powers do not grow; FLINT builds each coordinate's powers up to its own
        // degree and the common denominator is their product): bounded before GMP is asked
        // for it (x^(2^40) at 2 ran two minutes, then GMP aborted the process).
        const std::size_t t = terms();
        if (t > 0) {
            std::vector<slong> deg(ctx_->nvars(), 0);
            fmpq_mpoly_degrees_si(deg.data(), p_, ctx_->get());
            double bits = Ops<T>::coeff_bits(p_, ctx_->get()) + std::log2(static_cast<double>(t)) + 64;
            for (std::size_t j = 0; j < point.size(); ++j) {
                const fmpq* x = point[j].get();
                const bool small = fmpz_is_one(fmpq_denref(x)) && (fmpz_is_zero(fmpq_numref(x)) || fmpz_is_pm1(fmpq_numref(x)));
                if (!small && deg[j] > 0)
                    bits += static_cast<double>(deg[j]) * static_cast<double>(fmpz_bits(fmpq_numref(x)) + fmpz_bits(fmpq_denref(x)));
            }
            const double bytes = 4 * bits / 8;  // the value, the coordinates' powers and a product in flight
            if (bits > 68719476736.0 || !below_quiet_limit(bytes)) {
                const std::string what = "evaluating a polynomial of degree " + std::to_string(degree()) + " in " +
                                         std::to_string(ctx_->nvars()) + " variables at this point";
                if (bits > 68719476736.0)  // 2^36 bits: beyond what GMP's integers hold
                    throw resource_limit(what + ": a value of up to about " + format_bytes(bits / 8));
                check_memory(bytes, default_max_memory(), what);
            }
        }
    }
    return Ops<T>::evaluate(p_, point, ctx_->get());
}

// The memory of a sum of t terms, bounded before FLINT allocates it: each term packs at
// least 8 bits per variable (so 10^5 variables make 100 KB a term) beside its coefficient;
// FLINT aborts the process when an allocation fails. O(1).
namespace {
void check_sum_memory(std::size_t t, std::size_t nvars, const char* op) {
    const double bytes = static_cast<double>(t) * (8.0 * std::ceil(static_cast<double>(nvars) / 8.0) + 48.0);
    if (below_quiet_limit(bytes)) return;
    check_memory(bytes, default_max_memory(), std::string("a ") + op + " of " + std::to_string(t) + " terms in " + std::to_string(nvars) + " variables");
}
}  // namespace

template <class T>
Poly<T>& Poly<T>::operator+=(const Poly& o) {
    require_same(o, "+");
    check_sum_memory(terms() + o.terms(), ctx_->nvars(), "sum");
    Ops<T>::add(p_, p_, o.p_, ctx_->get());
    return *this;
}

template <class T>
Poly<T>& Poly<T>::operator-=(const Poly& o) {
    require_same(o, "-");
    check_sum_memory(terms() + o.terms(), ctx_->nvars(), "difference");
    Ops<T>::sub(p_, p_, o.p_, ctx_->get());
    return *this;
}

template <class T>
Poly<T>& Poly<T>::operator*=(const Poly& o) {
    require_same(o, "*");
    Poly r = mul(o);
    Ops<T>::swap(p_, r.p_, ctx_->get());
    return *this;
}

template <class T>
Poly<T>& Poly<T>::operator*=(const Coeff& c) {
    if constexpr (std::is_same_v<T, NmodTraits>)
        Ops<T>::scalar_mul(p_, c % ctx_->modulus(), ctx_->get());
    else
        Ops<T>::scalar_mul(p_, c, ctx_->get());
    return *this;
}

std::string to_string(MulVariant v) {
    switch (v) {
        case MulVariant::automatic: return "auto";
        case MulVariant::flint: return "flint";
        case MulVariant::digits: return "digits";
        case MulVariant::dense: return "dense";
    }
    throw internal_error("to_string(MulVariant): unknown value " + std::to_string(static_cast<int>(v)));
}

MulVariant mul_variant_from_string(const std::string& text) {
    if (text == "auto") return MulVariant::automatic;
    if (text == "flint") return MulVariant::flint;
    if (text == "digits") return MulVariant::digits;
    if (text == "dense") return MulVariant::dense;
    throw invalid_input("product variant '" + text + "' is not one of auto, flint, digits, dense");
}

namespace {

// log2 C(a + b, b), for reals a, b >= 0. O(1).
double log2_binomial(double a, double b) {
    return (std::lgamma(a + b + 1) - std::lgamma(a + 1) - std::lgamma(b + 1)) / std::log(2.0);
}

// The least total degree of a's terms: its last term's (terms are in degrevlex order,
// total degree first, descending). Precondition: a non-zero, its degree fits a long. O(n).
template <class T>
double least_degree(const typename Ops<T>::P* a, const typename Ops<T>::C* c, std::size_t nvars) {
    std::vector<ulong> e(std::max<std::size_t>(nvars, 1));
    Ops<T>::exps(e.data(), a, Ops<T>::length(a, c) - 1, c);
    double d = 0;
    for (std::size_t k = 0; k < nvars; ++k) d += static_cast<double>(e[k]);
    return d;
}

// The size of a·b, bounded before any product is formed (FLINT and GMP abort the process
// when an allocation fails): at most t_a·t_b terms (pairs of terms), at most C(n + hi, n)
// (monomials of degree hi = deg a + deg b or less in n variables) and at most
// (hi − lo + 1)·C(n − 1 + hi, n − 1), lo the sum of their terms' least degrees (monomials
// of degree lo..hi: a homogeneous product, lo = hi, has hi + 1 terms in two variables,
// where C(n + hi, n) had counted (hi + 1)(hi + 2)/2); each term holds
// a packed exponent (n fields of at most max(bits_a, bits_b) + 1 bits) and a coefficient
// of one word or, over Q, of at most cbits_a + cbits_b + log2 min(t_a, t_b) bits (a sum of
// min(t_a, t_b) products of primitive parts), an mpz beyond 62 bits. Over
// default_max_memory(), or a coefficient over 2^36 bits, is resource_limit.
// Cost: O(1) over Z/p; over Q a scan of both coefficient lists, O(t_a + t_b), next to the
// t_a·t_b term products of the product itself; the degrees (a scan of the exponents) and the last terms only
// when the first bound, t_a·t_b terms, is over the limit.
template <class T>
void check_product_size(const typename Ops<T>::P* a, const typename Ops<T>::P* b, const typename Ops<T>::C* c,
                        std::size_t nvars) {
    const slong ta = Ops<T>::length(a, c), tb = Ops<T>::length(b, c);
    if (ta == 0 || tb == 0) return;
    const double n = static_cast<double>(nvars);
    const double fields = std::max(Ops<T>::exp_bits(a), Ops<T>::exp_bits(b)) + 1.0;
    double per_term = 8.0 * std::max(1.0, std::ceil(n * fields / 64.0)) + 8.0;  // exponent words, one coefficient word
    const auto what = [&] { return "product of polynomials of " + std::to_string(ta) + " and " + std::to_string(tb) + " terms"; };
    if constexpr (Ops<T>::exact_coefficients) {
        const double bits = Ops<T>::term_coeff_bits(a) + Ops<T>::term_coeff_bits(b) +
                            std::log2(static_cast<double>(std::min(ta, tb)));
        if (bits > 68719476736.0)  // 2^36 bits: beyond what GMP's integers hold (as in pow)
            throw resource_limit(what() + ": coefficients of up to about " + format_bytes(bits / 8) + " each");
        if (bits > FLINT_BITS - 2) per_term += 24.0 + std::ceil(bits / 64.0) * 8.0;  // an mpz: header and limbs
    }
    double terms = static_cast<double>(ta) * static_cast<double>(tb);
    if (below_quiet_limit(terms * per_term)) return;
    const double limit = default_max_memory();
    if (terms * per_term <= limit) return;
    if (Ops<T>::degree_fits(a, c) && Ops<T>::degree_fits(b, c)) {
        const double d = static_cast<double>(Ops<T>::degree(a, c)) + static_cast<double>(Ops<T>::degree(b, c));
        const double lo = least_degree<T>(a, c, nvars) + least_degree<T>(b, c, nvars);
        // degrees lo..hi: at most (hi − lo + 1)·C(n − 1 + hi, n − 1) monomials (no difference
        // of two large binomials, which rounding could make too small), and C(n + hi, n)
        const double per_degree = n >= 1 ? std::exp2(log2_binomial(d, n - 1)) : 1.0;
        terms = std::min({terms, std::exp2(log2_binomial(d, n)), (d - lo + 1) * per_degree * (1 + 1e-9) + 1});
    }
    check_memory(terms * per_term, limit, what());
}

}  // namespace

template <class T>
Poly<T> Poly<T>::mul(const Poly& o, MulVariant v, MulStats* stats) const {
    require_same(o, "*");
    throw_if_cancelled();  // a caller's time budget or Ctrl-C (cancel.hpp) stops an expansion between products
    check_product_size<T>(p_, o.p_, ctx_->get(), ctx_->nvars());
    Poly r(ctx_);
    if constexpr (std::is_same_v<T, QTraits>) {
        if (v != MulVariant::flint && !is_zero() && !o.is_zero()) {
            // content(r) = content(a)·content(b); the product of primitive parts is primitive
            // with a positive leading coefficient (Gauss), so r is canonical.
            std::vector<long> groups(ctx_->nvars());
            for (std::size_t k = 0; k < groups.size(); ++k) groups[k] = ctx_->vars().token(k);
            detail::zmpoly_mul(r.p_->zpoly, p_->zpoly, o.p_->zpoly, ctx_->get()->zctx, groups, v,
                               static_cast<int>(flint_get_num_threads()), stats);
            fmpq_mul(r.p_->content, p_->content, o.p_->content);
            return r;
        }
    }
    Ops<T>::mul(r.p_, p_, o.p_, ctx_->get());
    if (stats) ++stats->heap;
    return r;
}

template <class T>
Poly<T> Poly<T>::pow(std::uint64_t e) const {
    throw_if_cancelled();
    // The size of the result, bounded before FLINT is asked for it (FLINT and GMP abort the
    // process when an allocation fails): at most min(C(t+e−1, t−1), C(n+e·deg, n)) terms
    // (products of e of the t terms; monomials of degree <= e·deg in n variables), each
    // with packed exponents and, over Q, a coefficient of at most e·(bits + log2 t) bits
    // (a product of e coefficients times a multinomial coefficient <= t^e).
    const std::size_t t = terms();
    if (t > 0 && e > 1) {
        const double ed = static_cast<double>(e), td = static_cast<double>(t);
        const double n = static_cast<double>(ctx_->nvars()), deg = static_cast<double>(degree());
        const double log2_terms = t == 1 ? 0.0 : std::min(log2_binomial(ed, td - 1), log2_binomial(ed * deg, n));
        const double exp_bits = std::max(8.0, std::ceil(std::log2(ed * deg + 1.0)) + 1.0);
        const double coeff_bits = Ops<T>::exact_coefficients ? ed * (Ops<T>::coeff_bits(p_, ctx_->get()) + std::log2(td)) : 0.0;
        const std::string what = "power with exponent " + std::to_string(e) + " of a polynomial of " + std::to_string(t) + " terms";
        if (coeff_bits > 68719476736.0)  // 2^36 bits: beyond what GMP's integers hold
            throw resource_limit(what + ": coefficients of up to about " + format_bytes(coeff_bits / 8) + " each");
        const double per_term = 8.0 * std::ceil(n * exp_bits / 64.0) + 40.0 + coeff_bits / 8.0;
        check_memory(std::exp2(log2_terms) * per_term, default_max_memory(), what);
    }
    Poly r(ctx_);
    if (!Ops<T>::pow(r.p_, p_, e, ctx_->get()))
        throw resource_limit("power with exponent " + std::to_string(e) + " could not be computed");
    return r;
}

template <class T>
Poly<T> Poly<T>::compose(const std::vector<Poly>& subs, const ContextPtr& target) const {
    if (!target) throw invalid_input("compose: null target context");
    if (subs.size() != ctx_->nvars())
        throw invalid_input("compose: " + std::to_string(subs.size()) + " substitutions for " +
                            std::to_string(ctx_->nvars()) + " variables");
    if (target->modulus() != ctx_->modulus())
        throw invalid_input("compose: the target context has another modulus");
    std::vector<typename T::poly_struct*> ptrs;
    ptrs.reserve(subs.size());
    for (std::size_t k = 0; k < subs.size(); ++k) {
        if (!subs[k].ctx_->interchangeable(*target))
            throw invalid_input("compose: substitution " + std::to_string(k) + " is not in the target context (its variables differ)");
        ptrs.push_back(const_cast<typename T::poly_struct*>(subs[k].p_));
    }
    Poly r(target);
    if (!Ops<T>::compose(r.p_, p_, ptrs.data(), ctx_->get(), target->get()))
        throw resource_limit("compose: the exponents of the result do not fit");
    return r;
}

template <class T>
Poly<T> Poly<T>::operator-() const {
    Poly r(ctx_);
    Ops<T>::neg(r.p_, p_, ctx_->get());
    return r;
}

template <class T>
bool Poly<T>::equals(const Poly& o) const {
    return ctx_->interchangeable(*o.ctx_) && Ops<T>::equal(p_, o.p_, ctx_->get());
}

template class Context<QTraits>;
template class Context<NmodTraits>;
template class Poly<QTraits>;
template class Poly<NmodTraits>;

// ---------------------------------------------------------------- reduction

NmodPoly reduce_mod(const QPoly& f, const std::shared_ptr<const NmodContext>& ctx) {
    if (!ctx) throw invalid_input("reduce_mod: null context");
    if (ctx->vars().names() != f.context()->vars().names())
        throw invalid_input("reduce_mod: the Z/p context has other variables than the polynomial");
    const std::uint64_t p = ctx->modulus();
    NmodPoly r(ctx);
    const auto* fc = f.context()->get();
    const slong n = fmpq_mpoly_length(f.get(), fc);
    std::vector<ulong> e(ctx->nvars());
    for (slong k = 0; k < n; ++k) {
        std::uint64_t c = Ops<QTraits>::coeff(f.get(), k, fc).mod(p);
        if (c == 0) continue;
        if (!Ops<QTraits>::exp_fits(f.get(), k, fc))
            throw resource_limit("reduce_mod: exponent of term " + std::to_string(k) + " does not fit 64 bits");
        Ops<QTraits>::exps(e.data(), f.get(), k, fc);
        nmod_mpoly_push_term_ui_ui(r.get(), c, e.data(), ctx->get());
    }
    // Terms arrive in the same monomial order and are distinct: already canonical.
    return r;
}

}  // namespace seprank
