#include "seprank/integer.hpp"

#include "seprank/error.hpp"

#include <cmath>
#include <flint/ulong_extras.h>
#include <memory>
#include <ostream>

namespace seprank {

namespace {

// Validates "[+-]?[0-9]+" and returns the digits with a '-' kept; throws otherwise.
std::string checked_decimal(std::string_view text, std::string_view whole) {
    std::size_t i = 0;
    std::string out;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
        if (text[i] == '-') out.push_back('-');
        ++i;
    }
    if (i == text.size())
        throw invalid_input("not an integer: '" + detail::cut(std::string(whole)) + "' (no digits)");
    for (; i < text.size(); ++i) {
        char c = text[i];
        if (c < '0' || c > '9')
            throw invalid_input("not an integer: '" + detail::cut(std::string(whole)) + "' (unexpected '" +
                                std::string(1, c) + "' at offset " + std::to_string(i) + ")");
        out.push_back(c);
    }
    return out;
}

void set_decimal(fmpz_t v, std::string_view text, std::string_view whole) {
    std::string digits = checked_decimal(text, whole);
    // fmpz_set_str returns 0 on success; the text was validated above.
    if (fmpz_set_str(v, digits.c_str(), 10) != 0)
        throw invalid_input("not an integer: '" + detail::cut(std::string(whole)) + "'");
}

std::string fmpz_to_string(const fmpz_t v) {
    std::unique_ptr<char, void (*)(void*)> s(fmpz_get_str(nullptr, 10, v), flint_free);
    return std::string(s.get());
}

}  // namespace

Integer::Integer(std::string_view text) {
    fmpz_init(v_);
    try {
        set_decimal(v_, text, text);
    } catch (...) {
        fmpz_clear(v_);
        throw;
    }
}

std::string Integer::str() const { return fmpz_to_string(v_); }

Integer operator+(const Integer& a, const Integer& b) {
    Integer r;
    fmpz_add(r.get(), a.get(), b.get());
    return r;
}
Integer operator-(const Integer& a, const Integer& b) {
    Integer r;
    fmpz_sub(r.get(), a.get(), b.get());
    return r;
}
Integer operator*(const Integer& a, const Integer& b) {
    Integer r;
    fmpz_mul(r.get(), a.get(), b.get());
    return r;
}

const Integer& Rational::one() {
    static const Integer k(1);
    return k;
}

Rational::Rational(const Integer& num, const Integer& den) {
    if (den.is_zero()) throw domain_error("rational " + num.str() + "/0: zero denominator");
    fmpq_init(v_);
    fmpq_set_fmpz_frac(v_, num.get(), den.get());
}

Rational::Rational(std::string_view text) {
    fmpq_init(v_);
    try {
        std::size_t slash = text.find('/');
        Integer num, den(1);
        set_decimal(num.get(), text.substr(0, slash), text);
        if (slash != std::string_view::npos) {
            set_decimal(den.get(), text.substr(slash + 1), text);
            if (den.is_zero()) throw invalid_input("not a rational: '" + std::string(text) + "' (zero denominator)");
        }
        fmpq_set_fmpz_frac(v_, num.get(), den.get());
    } catch (...) {
        fmpq_clear(v_);
        throw;
    }
}

std::string Rational::str() const {
    if (is_integer()) return fmpz_to_string(fmpq_numref(v_));
    return fmpz_to_string(fmpq_numref(v_)) + "/" + fmpz_to_string(fmpq_denref(v_));
}

void Integer::throw_zero_modulus(const std::string& value) {
    throw domain_error("integer " + value + " has no value mod 0");
}

std::uint64_t Rational::mod(std::uint64_t p) const {
    if (p == 0) throw domain_error("rational " + str() + " has no value mod 0");
    std::uint64_t d = fmpz_fdiv_ui(fmpq_denref(v_), p);
    if (d == 0)
        throw domain_error("rational " + str() + " has no value mod " + std::to_string(p) +
                           ": the modulus divides its denominator");
    std::uint64_t n = fmpz_fdiv_ui(fmpq_numref(v_), p);
    if (d == 1 || p == 1) return n % p;
    // n_gcdinv (not n_invmod, which aborts) reports a non-invertible denominator.
    ulong inv = 0;
    if (n_gcdinv(&inv, d, p) != 1)
        throw domain_error("rational " + str() + " has no value mod " + std::to_string(p) +
                           ": its denominator is not invertible");
    return n_mulmod2_preinv(n, inv, p, n_preinvert_limb(p));
}

Rational operator+(const Rational& a, const Rational& b) {
    Rational r;
    fmpq_add(r.get(), a.get(), b.get());
    return r;
}
Rational operator-(const Rational& a, const Rational& b) {
    Rational r;
    fmpq_sub(r.get(), a.get(), b.get());
    return r;
}
Rational operator*(const Rational& a, const Rational& b) {
    Rational r;
    fmpq_mul(r.get(), a.get(), b.get());
    return r;
}
Rational operator/(const Rational& a, const Rational& b) {
    if (b.is_zero()) throw domain_error("division of " + a.str() + " by zero");
    Rational r;
    fmpq_div(r.get(), a.get(), b.get());
    return r;
}

double log2_abs(const fmpz_t x) noexcept {
    if (fmpz_is_zero(x)) return -HUGE_VAL;
    slong e = 0;
    const double m = fmpz_get_d_2exp(&e, x);  // |m| in [0.5, 1)
    return std::log2(std::fabs(m)) + static_cast<double>(e);
}

double log2_abs(const Integer& x) noexcept { return log2_abs(x.get()); }

double log2_abs(const Rational& x) noexcept {
    if (x.is_zero()) return -HUGE_VAL;
    return log2_abs(fmpq_numref(x.get())) - log2_abs(fmpq_denref(x.get()));
}

std::ostream& operator<<(std::ostream& os, const Integer& v) { return os << v.str(); }
std::ostream& operator<<(std::ostream& os, const Rational& v) { return os << v.str(); }

}  // namespace seprank
