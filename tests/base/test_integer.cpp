#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "support.hpp"

#include <cmath>
#include <doctest/doctest.h>

using namespace seprank;
using seprank_test::mpq_rational;
using seprank_test::mpz_int;

TEST_CASE("Integer round-trips through strings and Boost on random huge values") {
    auto rng = seprank_test::rng_for("integer-roundtrip");
    INFO("seed " << seprank_test::seed());
    for (int i = 0; i < seprank_test::iterations(1000); ++i) {
        Integer a = rng.big(static_cast<unsigned>(rng.below(1500)));
        Integer b = rng.big(static_cast<unsigned>(rng.below(300)));
        const std::string s = a.str();
        INFO("a = " << s);
        REQUIRE(Integer{std::string_view(s)} == a);
        REQUIRE(seprank_test::to_mpz(a).str() == s);
        REQUIRE(seprank_test::from_mpz(seprank_test::to_mpz(a)) == a);
        REQUIRE(seprank_test::to_mpz(a + b) == seprank_test::to_mpz(a) + seprank_test::to_mpz(b));
        REQUIRE(seprank_test::to_mpz(a - b) == seprank_test::to_mpz(a) - seprank_test::to_mpz(b));
        REQUIRE(seprank_test::to_mpz(a * b) == seprank_test::to_mpz(a) * seprank_test::to_mpz(b));
        const std::uint64_t p = 2 + rng.below(~0ULL - 2);
        mpz_int r = seprank_test::to_mpz(a) % p;
        if (r < 0) r += p;
        REQUIRE(a.mod(p) == r.convert_to<std::uint64_t>());
    }
}

TEST_CASE("log2_abs of integers and rationals of any size, zero giving -inf") {
    auto rng = seprank_test::rng_for("integer-log2");
    INFO("seed " << seprank_test::seed());
    CHECK(std::isinf(log2_abs(Integer(0))));
    CHECK(log2_abs(Integer(0)) < 0);
    CHECK(std::isinf(log2_abs(Rational(0))));
    CHECK(log2_abs(Integer(1)) == 0.0);
    CHECK(log2_abs(Integer(-1024)) == 10.0);
    CHECK(log2_abs(Rational(Integer(3), Integer(-8))) == doctest::Approx(std::log2(3.0) - 3.0));
    for (int i = 0; i < seprank_test::iterations(1000); ++i) {
        const Integer a = rng.big(1 + static_cast<unsigned>(rng.below(4000)));
        if (a.is_zero()) continue;
        mpz_int m = seprank_test::to_mpz(a);
        if (m < 0) m = -m;
        const double top = static_cast<double>(boost::multiprecision::msb(m));  // floor(log2 |a|)
        INFO("a = " << a);
        const double l = log2_abs(a);
        REQUIRE(l >= top - 1e-9);
        REQUIRE(l < top + 1 + 1e-9);
        if (m < (mpz_int(1) << 52)) REQUIRE(l == doctest::Approx(std::log2(m.convert_to<double>())).epsilon(1e-15));
        const Integer b = rng.big(1 + static_cast<unsigned>(rng.below(4000)));
        if (b.is_zero()) continue;
        // log2 |a/b| = log2 |a| − log2 |b| whatever the reduction cancelled, to rounding.
        REQUIRE(log2_abs(Rational(a, b)) == doctest::Approx(l - log2_abs(b)).epsilon(1e-12).scale(1.0));
    }
}

TEST_CASE("Integer parsing rejects malformed text with the offending character") {
    for (const char* bad : {"", "-", "+", "12a", "1 2", " 1", "1.5", "0x10", "--1", "1e5"}) {
        INFO("input '" << std::string(bad) << "'");
        CHECK_THROWS_AS(Integer{std::string_view(bad)}, invalid_input);
    }
    try {
        Integer{std::string_view("12a")};
        FAIL("no exception");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("'a'") != std::string::npos);
    }
    CHECK(Integer{std::string_view("-007")} == Integer(-7));
    CHECK(Integer{std::string_view("+5")} == Integer(5));
}

TEST_CASE("Rational arithmetic and conversions agree with Boost") {
    auto rng = seprank_test::rng_for("rational");
    INFO("seed " << seprank_test::seed());
    for (int i = 0; i < seprank_test::iterations(1000); ++i) {
        mpq_rational x = seprank_test::random_rational(rng, 300), y = seprank_test::random_rational(rng, 80);
        Rational a = seprank_test::from_mpq(x), b = seprank_test::from_mpq(y);
        INFO("a = " << a.str() << ", b = " << b.str());
        REQUIRE(seprank_test::to_mpq(a) == x);
        REQUIRE(Rational{std::string_view(a.str())} == a);
        REQUIRE(seprank_test::to_mpq(a + b) == x + y);
        REQUIRE(seprank_test::to_mpq(a - b) == x - y);
        REQUIRE(seprank_test::to_mpq(a * b) == x * y);
        if (y != 0) REQUIRE(seprank_test::to_mpq(a / b) == x / y);
        else REQUIRE_THROWS_AS(a / b, domain_error);
    }
}

TEST_CASE("Rational mod p, including p near 2^63 and 2^64 and p dividing the denominator") {
    auto rng = seprank_test::rng_for("rational-mod");
    INFO("seed " << seprank_test::seed());
    for (std::uint64_t p : {2ULL, 3ULL, 1000003ULL, 9223372036854775783ULL /* largest prime < 2^63 */,
                            18446744073709551557ULL /* largest prime < 2^64 */}) {
        for (int i = 0; i < seprank_test::iterations(300); ++i) {
            mpq_rational x = seprank_test::random_rational(rng, 200);
            Rational a = seprank_test::from_mpq(x);
            const mpz_int pp = p;
            if (boost::multiprecision::denominator(x) % pp == 0) {
                REQUIRE_THROWS_AS(a.mod(p), domain_error);
                continue;
            }
            const std::uint64_t r = a.mod(p);
            REQUIRE(r < p);
            // r * den == num (mod p)
            mpz_int lhs = (mpz_int(r) * boost::multiprecision::denominator(x) - boost::multiprecision::numerator(x)) % pp;
            REQUIRE(lhs == 0);
        }
    }
    CHECK_THROWS_AS(Rational(Integer(1), Integer(6)).mod(3), domain_error);
    CHECK_THROWS_AS(Rational(Integer(1), Integer(4)).mod(6), domain_error);  // not invertible, not prime
    CHECK(Rational(Integer(1), Integer(2)).mod(7) == 4);
}

TEST_CASE("mod 0 is refused, not a division by zero") {
    CHECK_THROWS_AS(Integer(5).mod(0), domain_error);
    CHECK_THROWS_AS(Integer(0).mod(0), domain_error);
    CHECK_THROWS_AS(Rational(Integer(1), Integer(3)).mod(0), domain_error);
    CHECK_THROWS_AS(Rational(7).mod(0), domain_error);
    CHECK(Integer(-5).mod(1) == 0);
}

TEST_CASE("Rational parsing") {
    CHECK(Rational{std::string_view("3/4")}.str() == "3/4");
    CHECK(Rational{std::string_view("-6/8")}.str() == "-3/4");
    CHECK(Rational{std::string_view("6/-8")}.str() == "-3/4");
    CHECK(Rational{std::string_view("10/5")}.str() == "2");
    for (const char* bad : {"1/0", "/2", "1/", "1//2", "a/b", "1/2/3", ""}) {
        INFO("input '" << std::string(bad) << "'");
        CHECK_THROWS_AS(Rational{std::string_view(bad)}, invalid_input);
    }
    CHECK_THROWS_AS(Rational(Integer(1), Integer(0)), domain_error);
}

TEST_CASE("moves leave valid objects") {
    Integer a(5);
    Integer b(std::move(a));
    CHECK(b == Integer(5));
    CHECK(a.is_zero());  // NOLINT: moved-from is a valid zero
    Rational q(Integer(1), Integer(3));
    Rational r = std::move(q);
    CHECK(r.str() == "1/3");
    CHECK(q.is_zero());  // NOLINT
}
