// seprank — sparse multivariate polynomials over Q and over Z/p (FLINT mpoly).
//
// Variables    named variables, shared by every context built on them. The names
//              x<j>_<c> mean "token j, coordinate c" (1-based, docs/theory.md §1); token()
//              and coord() read that structure back (0 when a name has none).
// Context<T>   owns one FLINT mpoly context (fmpq_mpoly_ctx or nmod_mpoly_ctx) with
//              degree-reverse-lexicographic order. Held by std::shared_ptr; every
//              polynomial keeps a reference to its context, so a polynomial never
//              outlives its context.
// Poly<T>      owns one fmpq_mpoly / nmod_mpoly. Eager value type: copies are deep,
//              moves are noexcept (init + swap; the moved-from object is zero in the
//              same context). Binary operations require both operands to share one
//              context (checked: invalid_input).
//
// QPoly = Poly<QTraits> has Rational coefficients; NmodPoly = Poly<NmodTraits> has
// coefficients in [0, p). NmodContext requires p >= 2 (checked); p prime is needed only
// by operations that invert (none here), and is not checked.
//
// Cost: FLINT's sparse arithmetic (Monagan–Pearce heaps, packed exponents); products
// use FLINT's thread pool (flint_set_num_threads). Products over Q come in variants
// (MulVariant below): digit splitting and dense accumulation beside FLINT's heap.
#pragma once

#include "seprank/error.hpp"
#include "seprank/integer.hpp"

#include <cstdint>
#include <flint/fmpq_mpoly.h>
#include <flint/nmod_mpoly.h>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seprank {

class Variables {
public:
    // Names must be identifiers [A-Za-z_][A-Za-z0-9_]* and pairwise distinct (checked).
    explicit Variables(std::vector<std::string> names);
    // x1_1, x1_2, ..., x1_dx, x2_1, ..., xN_dx (token-major). N, dx >= 0 checked.
    static Variables tokens(long n_tokens, long dim, const std::string& prefix = "x");

    std::size_t size() const noexcept { return names_.size(); }
    const std::string& name(std::size_t i) const { return names_.at(i); }
    const std::vector<std::string>& names() const noexcept { return names_; }
    std::optional<std::size_t> find(std::string_view name) const;
    // Token index j of a name "<letters>j_c", 0 when the name is not of that form.
    long token(std::size_t i) const { return token_.at(i); }
    long coord(std::size_t i) const { return coord_.at(i); }

private:
    std::vector<std::string> names_;
    std::vector<long> token_, coord_;
    std::vector<std::size_t> by_name_;  // indices sorted by name: find() is a binary search
};

struct QTraits {
    using poly_struct = fmpq_mpoly_struct;
    using ctx_struct = fmpq_mpoly_ctx_struct;
    using coeff_type = Rational;
    static constexpr const char* ring_name = "Q";
};

struct NmodTraits {
    using poly_struct = nmod_mpoly_struct;
    using ctx_struct = nmod_mpoly_ctx_struct;
    using coeff_type = std::uint64_t;
    static constexpr const char* ring_name = "Z/p";
};

template <class T>
class Context {
public:
    // Over Q: Context<QTraits>(vars). Over Z/p: Context<NmodTraits>(vars, p), p >= 2 checked.
    explicit Context(std::shared_ptr<const Variables> vars, std::uint64_t modulus = 0);
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context();

    static std::shared_ptr<const Context> make(Variables vars, std::uint64_t modulus = 0) {
        return std::make_shared<const Context>(std::make_shared<const Variables>(std::move(vars)), modulus);
    }

    const typename T::ctx_struct* get() const noexcept { return ctx_; }
    const Variables& vars() const noexcept { return *vars_; }
    std::shared_ptr<const Variables> vars_ptr() const noexcept { return vars_; }
    std::size_t nvars() const noexcept { return vars_->size(); }
    // p for Z/p, 0 for Q.
    std::uint64_t modulus() const noexcept { return modulus_; }

private:
    std::shared_ptr<const Variables> vars_;
    std::uint64_t modulus_;
    typename T::ctx_struct ctx_[1];
};

// Product variants over Q (Poly::mul(o, v); over Z/p every variant is FLINT's product).
// Over Q the product is content(a)·content(b) times the product of the primitive integer
// parts (FLINT's representation), so every variant is a product in Z[x]:
//   flint     fmpq_mpoly_mul: FLINT's heap product, the reference.
//   digits    a factor with coefficients over 62 bits is split into balanced base-2^60
//             digits, a = Σ_i 2^{60 i} a_i, and a·b = Σ_s 2^{60 s} Σ_{i+j=s} a_i·b_j: FLINT's
//             heap then accumulates in machine words instead of calling GMP per term.
//   dense     digits, and each word-size product accumulated in dense arrays, one per
//             token-homogeneous part of the output (docs/poly.md#products), on
//             flint_get_num_threads() threads; the heap where the threads' arrays together
//             would pass 1 GiB, the factors have over 2^20 pairs of parts, or a degree
//             reaches 2^31.
//   automatic digits, and dense where its cost rule prefers it: ≥ 2^22 term products, no
//             more array entries than term products, ≥ 64 term products per pair of
//             parts (and the limits of dense); else the heap.
// Every variant gives the same polynomial (tests/test_poly.cpp checks them against flint).
enum class MulVariant { automatic, flint, digits, dense };
// Which method formed the products of one or more mul calls: word-size (digit) products
// by dense accumulation, and products by FLINT's heap (every product of flint and Z/p).
struct MulStats {
    long dense = 0;
    long heap = 0;
};
std::string to_string(MulVariant v);
MulVariant mul_variant_from_string(const std::string& text);  // invalid_input on other names

template <class T>
class Poly {
public:
    using ContextPtr = std::shared_ptr<const Context<T>>;
    using Coeff = typename T::coeff_type;

    explicit Poly(ContextPtr ctx);                      // zero
    static Poly constant(ContextPtr ctx, const Coeff& c);
    static Poly variable(ContextPtr ctx, std::size_t var);  // var < nvars checked
    Poly(const Poly& o);
    Poly(Poly&& o) noexcept;
    Poly& operator=(const Poly& o);
    Poly& operator=(Poly&& o) noexcept;
    ~Poly();

    typename T::poly_struct* get() noexcept { return p_; }
    const typename T::poly_struct* get() const noexcept { return p_; }
    const ContextPtr& context() const noexcept { return ctx_; }

    bool is_zero() const noexcept;
    // Number of terms with a non-zero coefficient.
    std::size_t terms() const noexcept;
    // Total degree; -1 for the zero polynomial. Throws resource_limit if it does not fit a long.
    long degree() const;
    // True when every term has the same total degree (the zero polynomial is homogeneous).
    bool is_homogeneous() const;
    // Coefficient and exponent vector of term k < terms() (checked), in the
    // context's order (degrevlex, leading term first).
    Coeff coeff(std::size_t k) const;
    std::vector<std::uint64_t> exponents(std::size_t k) const;
    // Builds the polynomial Σ coeffs[k]·x^exps[k]; repeated monomials are added up.
    static Poly from_terms(ContextPtr ctx, const std::vector<Coeff>& coeffs,
                           const std::vector<std::vector<std::uint64_t>>& exps);

    // f(point): point.size() == nvars checked.
    Coeff evaluate(const std::vector<Coeff>& point) const;

    Poly& operator+=(const Poly& o);
    Poly& operator-=(const Poly& o);
    Poly& operator*=(const Poly& o);
    Poly& operator*=(const Coeff& c);
    // this^e (pow(0) is 1). Before FLINT is called, the result's size is bounded: at most
    // min(C(t+e−1, t−1), C(n+e·deg, n)) terms for t terms in n variables, over Q with
    // coefficients of at most e·(bits + log2 t) bits; over default_max_memory() (limits.hpp),
    // or a coefficient over 2^36 bits, is resource_limit, as are exponents that do not fit.
    // Cost: FLINT's powering (repeated multiplication or the multinomial expansion, its own
    // choice), at least proportional to the result's terms.
    Poly pow(std::uint64_t e) const;
    friend Poly operator+(Poly a, const Poly& b) { a += b; return a; }
    friend Poly operator-(Poly a, const Poly& b) { a -= b; return a; }
    friend Poly operator*(const Poly& a, const Poly& b) { return a.mul(b); }
    friend Poly operator*(Poly a, const Coeff& c) { a *= c; return a; }
    Poly operator-() const;
    friend bool operator==(const Poly& a, const Poly& b) { return a.equals(b); }
    Poly mul(const Poly& o) const { return mul(o, MulVariant::automatic); }
    // this·o by variant v (MulVariant above; same context checked). Over Q the result is
    // FLINT's canonical form whatever v is. Before any product is formed, its size is
    // bounded: at most min(t·t', C(n + deg + deg', n)) terms, each with packed exponents
    // and, over Q, a coefficient of at most bits + bits' + log2 min(t, t') bits; over
    // default_max_memory() (limits.hpp; an estimate up to 16 MiB only with a limit set by
    // set_default_max_memory()), or a coefficient over 2^36 bits, is resource_limit.
    // Cost: the bound is O(1) over Z/p and O(t + t') over Q (a scan of the coefficients);
    // dense's arrays add up to 1 GiB of memory; a dense product polls cancel.hpp (throws
    // cancelled). stats, when given, is added to.
    Poly mul(const Poly& o, MulVariant v, MulStats* stats = nullptr) const;
    // Composition f(s_1, …, s_n): variable k of this polynomial's context replaced by
    // subs[k], every subs[k] in the one context `target` (both checked: subs.size() ==
    // nvars, each sub's context is target; invalid_input otherwise). FLINT's
    // *_mpoly_compose_*_mpoly (Horner or geobucket, its own choice); resource_limit when
    // the result's exponents do not fit. Cost: about the sum over terms of f of the
    // product of the substituted powers, so it pays when f has few terms and the subs are
    // short (expand.hpp, variant moment).
    Poly compose(const std::vector<Poly>& subs, const ContextPtr& target) const;
    // Same context and same polynomial.
    bool equals(const Poly& o) const;

private:
    void require_same(const Poly& o, const char* op) const;
    ContextPtr ctx_;
    typename T::poly_struct p_[1];
};

using QContext = Context<QTraits>;
using NmodContext = Context<NmodTraits>;
using QPoly = Poly<QTraits>;
using NmodPoly = Poly<NmodTraits>;

extern template class Context<QTraits>;
extern template class Context<NmodTraits>;
extern template class Poly<QTraits>;
extern template class Poly<NmodTraits>;

// The image of f in (Z/p)[vars] (same Variables). Throws domain_error when p divides
// the denominator of a coefficient. The NmodContext must be built on f's Variables
// (checked by name equality).
NmodPoly reduce_mod(const QPoly& f, const std::shared_ptr<const NmodContext>& ctx);

}  // namespace seprank
