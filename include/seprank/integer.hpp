// seprank — exact integers and rationals: RAII owners of FLINT's fmpz and fmpq.
//
// Integer owns one fmpz_t, Rational one fmpq_t (always canonical: gcd(num, den) = 1,
// den > 0). Constructors call *_init, destructors *_clear; moves are noexcept
// (init + swap), copies are explicit through the copy constructor (a deep copy).
// Conversions to and from GMP (mpz_t, mpq_t) and decimal strings ("-12", "3/4") are
// exact; Boost.Multiprecision's mpz_int/mpq_rational convert through their GMP backends
// (v.backend().data()), so this header does not include Boost. Parsing checks every character and throws
// seprank::invalid_input naming the offending text; a zero denominator is rejected.
#pragma once

#include <cstdint>
#include <flint/fmpq.h>
#include <flint/fmpz.h>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>

namespace seprank {

// Built-in integer types, for the implicit constructors below (C++17 spelling of std::integral).
template <class I>
using enable_if_integral = std::enable_if_t<std::is_integral_v<I>, int>;

// Costs below in n, the size in words of the operands (the result's for constructors):
// an fmpz of at most 62 bits is stored inline, so small values cost O(1) and no allocation.
class Integer {
public:
    // Zero, or the value of a built-in integer. O(1).
    Integer() noexcept { fmpz_init(v_); }
    template <class I, enable_if_integral<I> = 0>
    Integer(I v) noexcept {  // NOLINT: implicit by design, like a built-in integer
        fmpz_init(v_);
        if constexpr (std::is_signed_v<I>) fmpz_set_si(v_, static_cast<slong>(v));
        else fmpz_set_ui(v_, static_cast<ulong>(v));
    }
    // Copies of an initialised fmpz_t or mpz_t (not null). O(n).
    explicit Integer(const fmpz_t v) noexcept { fmpz_init(v_); fmpz_set(v_, v); }
    explicit Integer(const __mpz_struct* v) noexcept { fmpz_init(v_); fmpz_set_mpz(v_, v); }
    // Parses an optionally signed decimal integer; throws invalid_input otherwise. Cost:
    // a scan of the text, then GMP's decimal conversion (quasi-linear in its length).
    explicit Integer(std::string_view text);
    // Copies O(n); moves swap, O(1).
    Integer(const Integer& o) noexcept { fmpz_init(v_); fmpz_set(v_, o.v_); }
    Integer(Integer&& o) noexcept { fmpz_init(v_); fmpz_swap(v_, o.v_); }
    Integer& operator=(const Integer& o) noexcept { fmpz_set(v_, o.v_); return *this; }
    Integer& operator=(Integer&& o) noexcept { fmpz_swap(v_, o.v_); return *this; }
    ~Integer() { fmpz_clear(v_); }

    // The owned fmpz, for FLINT calls. O(1).
    fmpz* get() noexcept { return v_; }
    const fmpz* get() const noexcept { return v_; }

    // out = this value; out must be initialised (mpz_init). O(n).
    void get_mpz(__mpz_struct* out) const noexcept { fmpz_get_mpz(out, v_); }
    // Decimal text, "-" for negatives. Quasi-linear in n (GMP's conversion).
    std::string str() const;
    // Zero test and sign (-1, 0, 1). O(1).
    bool is_zero() const noexcept { return fmpz_is_zero(v_); }
    int sign() const noexcept { return fmpz_sgn(v_); }
    // Residue in [0, p); p = 0 throws domain_error. O(n).
    std::uint64_t mod(std::uint64_t p) const {
        if (p == 0) throw_zero_modulus(str());
        return fmpz_fdiv_ui(v_, p);
    }

    // Comparisons O(n); + and − O(n); × one FLINT product, quasi-linear in n for large
    // operands (O(n²) schoolbook for small ones).
    friend bool operator==(const Integer& a, const Integer& b) noexcept { return fmpz_equal(a.v_, b.v_); }
    friend bool operator!=(const Integer& a, const Integer& b) noexcept { return !fmpz_equal(a.v_, b.v_); }
    friend bool operator<(const Integer& a, const Integer& b) noexcept { return fmpz_cmp(a.v_, b.v_) < 0; }
    friend bool operator<=(const Integer& a, const Integer& b) noexcept { return fmpz_cmp(a.v_, b.v_) <= 0; }
    friend bool operator>(const Integer& a, const Integer& b) noexcept { return fmpz_cmp(a.v_, b.v_) > 0; }
    friend bool operator>=(const Integer& a, const Integer& b) noexcept { return fmpz_cmp(a.v_, b.v_) >= 0; }
    friend Integer operator+(const Integer& a, const Integer& b);
    friend Integer operator-(const Integer& a, const Integer& b);
    friend Integer operator*(const Integer& a, const Integer& b);

private:
    [[noreturn]] static void throw_zero_modulus(const std::string& value);
    fmpz_t v_;
};

// Costs as Integer's, in n the size of the numerator and denominator; every result is
// reduced to lowest terms, so arithmetic adds gcd computations (quasi-linear in n).
class Rational {
public:
    // Zero, or an integer value (built-in or Integer). O(1), O(n) for an Integer.
    Rational() noexcept { fmpq_init(v_); }
    template <class I, enable_if_integral<I> = 0>
    Rational(I v) noexcept { fmpq_init(v_); fmpq_set_fmpz_frac(v_, Integer(v).get(), one().get()); }  // NOLINT
    Rational(const Integer& v) noexcept { fmpq_init(v_); fmpq_set_fmpz_frac(v_, v.get(), one().get()); }  // NOLINT
    // num/den, reduced (den < 0 moves the sign up); throws domain_error when den == 0.
    // One gcd: quasi-linear in n.
    Rational(const Integer& num, const Integer& den);
    // Copy of an initialised, canonical fmpq_t. O(n).
    explicit Rational(const fmpq_t v) noexcept { fmpq_init(v_); fmpq_set(v_, v); }
    // From GMP; v must be canonical (as every mpq_t produced by GMP's arithmetic is). O(n).
    explicit Rational(const __mpq_struct* v) noexcept { fmpq_init(v_); fmpq_set_mpq(v_, v); }
    // Parses "a" or "a/b" with decimal integers a, b (b != 0); throws invalid_input. Cost
    // as Integer's parse, plus the reduction (one gcd).
    explicit Rational(std::string_view text);
    // Copies O(n); moves swap, O(1).
    Rational(const Rational& o) noexcept { fmpq_init(v_); fmpq_set(v_, o.v_); }
    Rational(Rational&& o) noexcept { fmpq_init(v_); fmpq_swap(v_, o.v_); }
    Rational& operator=(const Rational& o) noexcept { fmpq_set(v_, o.v_); return *this; }
    Rational& operator=(Rational&& o) noexcept { fmpq_swap(v_, o.v_); return *this; }
    ~Rational() { fmpq_clear(v_); }

    // The owned fmpq, for FLINT calls (keep it canonical). O(1).
    fmpq* get() noexcept { return v_; }
    const fmpq* get() const noexcept { return v_; }

    // Numerator and denominator (den > 0) as copies, O(n); is_zero and is_integer O(1).
    Integer num() const noexcept { return Integer(fmpq_numref(v_)); }
    Integer den() const noexcept { return Integer(fmpq_denref(v_)); }
    bool is_zero() const noexcept { return fmpq_is_zero(v_); }
    bool is_integer() const noexcept { return fmpz_is_one(fmpq_denref(v_)); }
    // out = this value; out must be initialised (mpq_init). O(n).
    void get_mpq(__mpq_struct* out) const noexcept { fmpq_get_mpq(out, v_); }
    // "a" when the denominator is 1, else "a/b". Quasi-linear in n.
    std::string str() const;
    // num * den^{-1} mod p. Throws domain_error when p divides the denominator (or, p not
    // prime, shares a factor with it), and for p = 0. p must be prime for the inverse to
    // exist; primality is not checked. O(n) plus one word inverse.
    std::uint64_t mod(std::uint64_t p) const;

    // Equality O(n); + − × / exact, each a few products and gcds (quasi-linear in n).
    friend bool operator==(const Rational& a, const Rational& b) noexcept { return fmpq_equal(a.v_, b.v_); }
    friend bool operator!=(const Rational& a, const Rational& b) noexcept { return !fmpq_equal(a.v_, b.v_); }
    friend Rational operator+(const Rational& a, const Rational& b);
    friend Rational operator-(const Rational& a, const Rational& b);
    friend Rational operator*(const Rational& a, const Rational& b);
    // Throws domain_error on division by zero.
    friend Rational operator/(const Rational& a, const Rational& b);

private:
    static const Integer& one();
    fmpq_t v_;
};

// log2 |x| as a double (any size; the nearest double to within a few ulps), −∞ for zero.
// For sizes and ranges: magnitudes far beyond a double's 2^±1024 stay finite here. O(1).
double log2_abs(const fmpz_t x) noexcept;
double log2_abs(const Integer& x) noexcept;
// log2 |num| − log2 den, −∞ for zero. O(1).
double log2_abs(const Rational& x) noexcept;

// Writes str(). Cost as str().
std::ostream& operator<<(std::ostream& os, const Integer& v);
std::ostream& operator<<(std::ostream& os, const Rational& v);

}  // namespace seprank
