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
//              same context). Binary operations and == take operands from one context
//              or from interchangeable ones (Context::interchangeable: the same modulus
//              and the same variable names in order, as two expansions of one network
//              have); others are checked (invalid_input; == is false). A result lives in
//              the left operand's context.
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
    // Names must be identifiers [A-Za-z_][A-Za-z0-9_]* and pairwise distinct (checked,
    // invalid_input naming the name). Cost: one sort of the n names, O(n log n) comparisons.
    explicit Variables(std::vector<std::string> names);
    // x1_1, x1_2, ..., x1_dx, x2_1, ..., xN_dx (token-major). N, dx >= 0 checked; their
    // names' memory within default_max_memory() (resource_limit). Cost as the constructor,
    // n = N·dx.
    static Variables tokens(long n_tokens, long dim, const std::string& prefix = "x");

    // The number of names, name i (std::out_of_range unless i < size()), all of them. O(1).
    std::size_t size() const noexcept { return names_.size(); }
    const std::string& name(std::size_t i) const { return names_.at(i); }
    const std::vector<std::string>& names() const noexcept { return names_; }
    // The index of `name`, nullopt when there is none. O(log n) comparisons.
    std::optional<std::size_t> find(std::string_view name) const;
    // Token index j (coord: c) of a name "<letters>j_c", 0 when the name is not of that
    // form; std::out_of_range unless i < size(). O(1) (read when constructed).
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
    // invalid_input for null vars or a modulus given over Q. O(nvars) (FLINT's context).
    // make() builds one behind a shared_ptr, the way polynomials hold it.
    explicit Context(std::shared_ptr<const Variables> vars, std::uint64_t modulus = 0);
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    ~Context();

    static std::shared_ptr<const Context> make(Variables vars, std::uint64_t modulus = 0) {
        return std::make_shared<const Context>(std::make_shared<const Variables>(std::move(vars)), modulus);
    }

    // The FLINT context, the variables, their count. O(1).
    const typename T::ctx_struct* get() const noexcept { return ctx_; }
    const Variables& vars() const noexcept { return *vars_; }
    std::shared_ptr<const Variables> vars_ptr() const noexcept { return vars_; }
    std::size_t nvars() const noexcept { return vars_->size(); }
    // p for Z/p, 0 for Q. O(1).
    std::uint64_t modulus() const noexcept { return modulus_; }
    // Polynomials of the two contexts can be combined: the same context, or the same
    // modulus and the same variable names in the same order (FLINT's context depends only
    // on these and the order, degrevlex for both). O(1) for one context or shared
    // variables, else O(total length of the names).
    bool interchangeable(const Context& o) const noexcept;

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
// Every variant gives the same polynomial (tests/algebra/test_poly.cpp checks them against flint).
enum class MulVariant { automatic, flint, digits, dense };
// Which method formed the products of one or more mul calls: word-size (digit) products
// by dense accumulation, and products by FLINT's heap (every product of flint and Z/p).
struct MulStats {
    long dense = 0;
    long heap = 0;
};
// "auto", "flint", "digits", "dense" (internal_error outside the enum) and the inverse
// (exact). O(1).
std::string to_string(MulVariant v);
MulVariant mul_variant_from_string(const std::string& text);  // invalid_input on other names

template <class T>
class Poly {
public:
    using ContextPtr = std::shared_ptr<const Context<T>>;
    using Coeff = typename T::coeff_type;

    // Costs below in t, t' the operands' terms and n the variables. A null ctx is
    // invalid_input. The zero polynomial O(1); a constant (Z/p: c reduced mod p) O(size of
    // c); a variable O(n).
    explicit Poly(ContextPtr ctx);                      // zero
    static Poly constant(ContextPtr ctx, const Coeff& c);
    static Poly variable(ContextPtr ctx, std::size_t var);  // var < nvars checked
    // Deep copies O(t·(n + coefficient size)) (in the same context); moves O(1).
    Poly(const Poly& o);
    Poly(Poly&& o) noexcept;
    Poly& operator=(const Poly& o);
    Poly& operator=(Poly&& o) noexcept;
    ~Poly();

    // The FLINT polynomial (keep it in this context, canonical) and the context. O(1).
    typename T::poly_struct* get() noexcept { return p_; }
    const typename T::poly_struct* get() const noexcept { return p_; }
    const ContextPtr& context() const noexcept { return ctx_; }

    // O(1).
    bool is_zero() const noexcept;
    // Number of terms with a non-zero coefficient. O(1).
    std::size_t terms() const noexcept;
    // Total degree; -1 for the zero polynomial. Throws resource_limit if it does not fit a long.
    // O(t·n) at most (FLINT's scan of the exponents).
    long degree() const;
    // True when every term has the same total degree (the zero polynomial is homogeneous).
    // Compares the first and last terms (degrevlex): O(n); resource_limit as exponents().
    bool is_homogeneous() const;
    // Coefficient and exponent vector of term k < terms() (checked, invalid_input), in the
    // context's order (degrevlex, leading term first). coeff O(size of the coefficient);
    // exponents O(n), resource_limit when an exponent does not fit 64 bits.
    Coeff coeff(std::size_t k) const;
    std::vector<std::uint64_t> exponents(std::size_t k) const;
    // Builds the polynomial Σ coeffs[k]·x^exps[k]; repeated monomials are added up (Z/p:
    // coefficients reduced mod p). invalid_input unless coeffs and exps have one size and
    // every exponent vector n entries. Cost: t pushes of O(n) each, then one sort of the
    // terms, O(t log t) monomial comparisons, and the combination of like terms.
    static Poly from_terms(ContextPtr ctx, const std::vector<Coeff>& coeffs,
                           const std::vector<std::vector<std::uint64_t>>& exps);

    // f(point): point.size() == nvars checked (invalid_input). Over Q exact, resource_limit
    // when FLINT cannot take the exponents or when the value's size (coefficient bits +
    // Σ_j deg_j(f)·height(x_j), 0 for 0 and ±1) would pass default_max_memory(); cost
    // O(t·n) for the degrees, then data-dependent: powers of the coordinates up
    // to the degrees and one product per term, on rationals that grow with them. Over Z/p
    // O(t·n) word operations plus the powers.
    Coeff evaluate(const std::vector<Coeff>& point) const;

    // Interchangeable contexts checked (invalid_input). + and − merge the terms, O(t + t') monomial
    // comparisons plus the coefficient additions; resource_limit when (t + t')·(8⌈n/8⌉ + 48)
    // bytes would pass default_max_memory(); *= of a polynomial is mul(o) (below);
    // *= of a scalar (Z/p: reduced mod p) O(t) at most.
    Poly& operator+=(const Poly& o);
    Poly& operator-=(const Poly& o);
    Poly& operator*=(const Poly& o);
    Poly& operator*=(const Coeff& c);
    // this^e (pow(0) is 1). Before FLINT is called, the result's size is bounded: at most
    // min(C(t+e−1, t−1), C(n+e·deg, n)) terms for t terms in n variables, over Q with
    // coefficients of at most e·(bits + log2 t) bits; over default_max_memory() (limits.hpp),
    // or a coefficient over 2^36 bits, is resource_limit, as are exponents that do not fit.
    // Polls cancel.hpp first (throws cancelled). Cost: FLINT's powering (repeated
    // multiplication or the multinomial expansion, its own choice), at least proportional
    // to the result's terms.
    Poly pow(std::uint64_t e) const;
    // The compound operations above on a copy (checks and cost theirs, plus the copy);
    // negation O(t); == is equals and mul(o) is mul(o, automatic) (below).
    friend Poly operator+(Poly a, const Poly& b) { a += b; return a; }
    friend Poly operator-(Poly a, const Poly& b) { a -= b; return a; }
    friend Poly operator*(const Poly& a, const Poly& b) { return a.mul(b); }
    friend Poly operator*(Poly a, const Coeff& c) { a *= c; return a; }
    Poly operator-() const;
    friend bool operator==(const Poly& a, const Poly& b) { return a.equals(b); }
    Poly mul(const Poly& o) const { return mul(o, MulVariant::automatic); }
    // this·o by variant v (MulVariant above; interchangeable contexts checked). Over Q the result is
    // FLINT's canonical form whatever v is. Before any product is formed, its size is
    // bounded: at most min(t·t', C(n + deg + deg', n)) terms, each with packed exponents
    // and, over Q, a coefficient of at most bits + bits' + log2 min(t, t') bits; over
    // default_max_memory() (limits.hpp; an estimate up to 16 MiB only with a limit set by
    // set_default_max_memory()), or a coefficient over 2^36 bits, is resource_limit.
    // Cost: the bound is O(1) over Z/p and O(t + t') over Q (a scan of the coefficients);
    // dense's arrays add up to 1 GiB of memory; every product polls cancel.hpp before it
    // starts and a dense one while it runs (throws cancelled: a caller's time budget or
    // Ctrl-C stops an expansion between products). stats, when given, is added to. The product itself: about t·t' term
    // products, O(t·t'·log min(t, t')) monomial operations on FLINT's heap (dense: array
    // accumulation instead of the heap), on coefficients of the size bounded above.
    Poly mul(const Poly& o, MulVariant v, MulStats* stats = nullptr) const;
    // Composition f(s_1, …, s_n): variable k of this polynomial's context replaced by
    // subs[k], every subs[k] in the one context `target` (both checked: subs.size() ==
    // nvars, each sub's context is target or interchangeable with it; invalid_input
    // otherwise). FLINT's
    // *_mpoly_compose_*_mpoly (Horner or geobucket, its own choice); resource_limit when
    // the result's exponents do not fit. Cost: about the sum over terms of f of the
    // product of the substituted powers, so it pays when f has few terms and the subs are
    // short (expand.hpp, variant moment).
    Poly compose(const std::vector<Poly>& subs, const ContextPtr& target) const;
    // Interchangeable contexts (false otherwise) and the same polynomial. No precondition.
    // O(t) term comparisons, plus the contexts' comparison.
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
// (checked by name equality; invalid_input, as for a null ctx); resource_limit when an
// exponent does not fit 64 bits. Cost O(t·(n + coefficient size)): one reduction and one
// push per term, no sort.
NmodPoly reduce_mod(const QPoly& f, const std::shared_ptr<const NmodContext>& ctx);

}  // namespace seprank
