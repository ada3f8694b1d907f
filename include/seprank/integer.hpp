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

class Integer {
public:
    Integer() noexcept { fmpz_init(v_); }
    template <class I, enable_if_integral<I> = 0>
    Integer(I v) noexcept {  // NOLINT: implicit by design, like a built-in integer
        fmpz_init(v_);
        if constexpr (std::is_signed_v<I>) fmpz_set_si(v_, static_cast<slong>(v));
        else fmpz_set_ui(v_, static_cast<ulong>(v));
    }
    explicit Integer(const fmpz_t v) noexcept { fmpz_init(v_); fmpz_set(v_, v); }
    explicit Integer(const __mpz_struct* v) noexcept { fmpz_init(v_); fmpz_set_mpz(v_, v); }
    // Parses an optionally signed decimal integer; throws invalid_input otherwise.
    explicit Integer(std::string_view text);
    Integer(const Integer& o) noexcept { fmpz_init(v_); fmpz_set(v_, o.v_); }
    Integer(Integer&& o) noexcept { fmpz_init(v_); fmpz_swap(v_, o.v_); }
    Integer& operator=(const Integer& o) noexcept { fmpz_set(v_, o.v_); return *this; }
    Integer& operator=(Integer&& o) noexcept { fmpz_swap(v_, o.v_); return *this; }
    ~Integer() { fmpz_clear(v_); }

    fmpz* get() noexcept { return v_; }
    const fmpz* get() const noexcept { return v_; }

    // out = this value; out must be initialised (mpz_init).
    void get_mpz(__mpz_struct* out) const noexcept { fmpz_get_mpz(out, v_); }
    std::string str() const;
    bool is_zero() const noexcept { return fmpz_is_zero(v_); }
    int sign() const noexcept { return fmpz_sgn(v_); }
    // Residue in [0, p); p >= 1 is not checked.
    std::uint64_t mod(std::uint64_t p) const noexcept { return fmpz_fdiv_ui(v_, p); }

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
    fmpz_t v_;
};

class Rational {
public:
    Rational() noexcept { fmpq_init(v_); }
    template <class I, enable_if_integral<I> = 0>
    Rational(I v) noexcept { fmpq_init(v_); fmpq_set_fmpz_frac(v_, Integer(v).get(), one().get()); }  // NOLINT
    Rational(const Integer& v) noexcept { fmpq_init(v_); fmpq_set_fmpz_frac(v_, v.get(), one().get()); }  // NOLINT
    // num/den; throws domain_error when den == 0.
    Rational(const Integer& num, const Integer& den);
    explicit Rational(const fmpq_t v) noexcept { fmpq_init(v_); fmpq_set(v_, v); }
    // From GMP; v must be canonical (as every mpq_t produced by GMP's arithmetic is).
    explicit Rational(const __mpq_struct* v) noexcept { fmpq_init(v_); fmpq_set_mpq(v_, v); }
    // Parses "a" or "a/b" with decimal integers a, b (b != 0); throws invalid_input.
    explicit Rational(std::string_view text);
    Rational(const Rational& o) noexcept { fmpq_init(v_); fmpq_set(v_, o.v_); }
    Rational(Rational&& o) noexcept { fmpq_init(v_); fmpq_swap(v_, o.v_); }
    Rational& operator=(const Rational& o) noexcept { fmpq_set(v_, o.v_); return *this; }
    Rational& operator=(Rational&& o) noexcept { fmpq_swap(v_, o.v_); return *this; }
    ~Rational() { fmpq_clear(v_); }

    fmpq* get() noexcept { return v_; }
    const fmpq* get() const noexcept { return v_; }

    Integer num() const noexcept { return Integer(fmpq_numref(v_)); }
    Integer den() const noexcept { return Integer(fmpq_denref(v_)); }
    bool is_zero() const noexcept { return fmpq_is_zero(v_); }
    bool is_integer() const noexcept { return fmpz_is_one(fmpq_denref(v_)); }
    // out = this value; out must be initialised (mpq_init).
    void get_mpq(__mpq_struct* out) const noexcept { fmpq_get_mpq(out, v_); }
    // "a" when the denominator is 1, else "a/b".
    std::string str() const;
    // num * den^{-1} mod p. Throws domain_error when p divides the denominator.
    // p must be prime for the inverse to exist; primality is not checked.
    std::uint64_t mod(std::uint64_t p) const;

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

std::ostream& operator<<(std::ostream& os, const Integer& v);
std::ostream& operator<<(std::ostream& os, const Rational& v);

}  // namespace seprank
