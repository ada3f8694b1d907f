#include "seprank/error.hpp"
#include "seprank/poly.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace seprank;
using seprank_test::mpq_rational;
using seprank_test::mpz_int;
using seprank_test::RefPoly;

namespace {

std::shared_ptr<const QContext> qctx(std::size_t nvars) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < nvars; ++i) names.push_back("v" + std::to_string(i));
    return QContext::make(Variables(names));
}

std::vector<mpq_rational> random_point(Rng& rng, std::size_t n) {
    std::vector<mpq_rational> x;
    for (std::size_t i = 0; i < n; ++i) x.push_back(seprank_test::random_rational(rng, 12));
    return x;
}

void check_arithmetic(Rng& rng, int iterations, std::size_t max_terms, unsigned bits) {
    for (int it = 0; it < iterations; ++it) {
        const std::size_t nv = static_cast<std::size_t>(rng.below(5));
        auto ctx = qctx(nv);
        RefPoly ra = seprank_test::random_ref(rng, nv, max_terms, 4, bits);
        RefPoly rb = seprank_test::random_ref(rng, nv, max_terms, 4, bits);
        QPoly a = seprank_test::from_ref(ra, ctx), b = seprank_test::from_ref(rb, ctx);
        INFO("iteration " << it << ", nvars " << nv);
        REQUIRE(seprank_test::to_ref(a) == ra);
        REQUIRE(a.terms() == ra.size());
        REQUIRE(seprank_test::to_ref(a + b) == seprank_test::ref_add(ra, rb));
        REQUIRE(seprank_test::to_ref(a - b) == seprank_test::ref_add(ra, rb, -1));
        REQUIRE(seprank_test::to_ref(a * b) == seprank_test::ref_mul(ra, rb));
        REQUIRE(seprank_test::to_ref(-a) == seprank_test::ref_add(RefPoly{}, ra, -1));
        RefPoly sq = seprank_test::ref_mul(ra, ra);
        REQUIRE(seprank_test::to_ref(a.pow(2)) == sq);
        REQUIRE(seprank_test::to_ref(a.pow(0)) == seprank_test::to_ref(QPoly::constant(ctx, Rational(1))));

        // degree and homogeneity against the reference
        long deg = -1;
        std::set<std::uint64_t> degs;
        for (const auto& [e, c] : ra) {
            std::uint64_t d = 0;
            for (auto x : e) d += x;
            deg = std::max<long>(deg, static_cast<long>(d));
            degs.insert(d);
        }
        REQUIRE(a.degree() == deg);
        REQUIRE(a.is_homogeneous() == (degs.size() <= 1));

        // evaluation at a rational point
        auto x = random_point(rng, nv);
        std::vector<Rational> xq;
        for (const auto& v : x) xq.push_back(seprank_test::from_mpq(v));
        REQUIRE(seprank_test::to_mpq(a.evaluate(xq)) == seprank_test::ref_eval(ra, x));
    }
}

}  // namespace

TEST_CASE("QPoly arithmetic, degree, homogeneity and evaluation match the reference") {
    auto rng = seprank_test::rng_for("qpoly-arith");
    INFO("seed " << seprank_test::seed());
    check_arithmetic(rng, seprank_test::iterations(1000), 6, 20);
}

TEST_CASE("QPoly with huge coefficients" * doctest::test_suite("slow")) {
    auto rng = seprank_test::rng_for("qpoly-huge");
    INFO("seed " << seprank_test::seed());
    check_arithmetic(rng, seprank_test::iterations(1000), 12, 2000);
}

TEST_CASE("reduction mod p commutes with evaluation, for p near 2^63 and 2^64") {
    auto rng = seprank_test::rng_for("qpoly-mod");
    INFO("seed " << seprank_test::seed());
    for (std::uint64_t p : {2ULL, 101ULL, 4611686018427387847ULL, 9223372036854775783ULL, 18446744073709551557ULL}) {
        for (int it = 0; it < seprank_test::iterations(200); ++it) {
            const std::size_t nv = 1 + static_cast<std::size_t>(rng.below(4));
            auto ctx = qctx(nv);
            auto nctx = std::make_shared<const NmodContext>(ctx->vars_ptr(), p);
            RefPoly ra = seprank_test::random_ref(rng, nv, 8, 5, 100);
            QPoly a = seprank_test::from_ref(ra, ctx);
            INFO("p = " << p << ", iteration " << it);
            bool den_divisible = false;
            for (const auto& [e, c] : ra) den_divisible |= boost::multiprecision::denominator(c) % p == 0;
            if (den_divisible) {
                REQUIRE_THROWS_AS(reduce_mod(a, nctx), domain_error);
                continue;
            }
            NmodPoly ap = reduce_mod(a, nctx);
            std::vector<std::uint64_t> xp;
            std::vector<Rational> xq;
            for (std::size_t i = 0; i < nv; ++i) {
                xp.push_back(rng.below(p));
                xq.emplace_back(seprank_test::from_mpz(mpz_int(xp.back())));
            }
            REQUIRE(ap.evaluate(xp) == a.evaluate(xq).mod(p));
            // products commute with reduction
            RefPoly rb = seprank_test::random_ref(rng, nv, 8, 5, 100);
            for (auto& [e, c] : rb) c = boost::multiprecision::numerator(c);  // integral: always reducible
            QPoly b = seprank_test::from_ref(rb, ctx);
            REQUIRE(reduce_mod(a * b, nctx) == reduce_mod(a, nctx) * reduce_mod(b, nctx));
            REQUIRE(reduce_mod(a - b, nctx) == reduce_mod(a, nctx) - reduce_mod(b, nctx));
        }
    }
}

TEST_CASE("empty, zero, constant and zero-variable polynomials") {
    auto ctx0 = qctx(0);
    QPoly z(ctx0);
    CHECK(z.is_zero());
    CHECK(z.terms() == 0);
    CHECK(z.degree() == -1);
    CHECK(z.is_homogeneous());
    CHECK(z.evaluate({}).is_zero());
    QPoly c = QPoly::constant(ctx0, Rational(Integer(-7), Integer(3)));
    CHECK(c.degree() == 0);
    CHECK(c.evaluate({}).str() == "-7/3");
    CHECK((c * z).is_zero());
    CHECK((c - c).is_zero());
    CHECK(QPoly::constant(ctx0, Rational(0)).is_zero());
}

TEST_CASE("misuse is reported, never aborts") {
    auto ctx = qctx(2), other = qctx(2);
    QPoly a = QPoly::variable(ctx, 0), b = QPoly::variable(other, 0);
    CHECK_THROWS_AS(a + b, invalid_input);
    CHECK_THROWS_AS(a * b, invalid_input);
    CHECK_FALSE(a == b);
    CHECK_THROWS_AS(QPoly::variable(ctx, 2), invalid_input);
    CHECK_THROWS_AS(a.evaluate({Rational(1)}), invalid_input);
    CHECK_THROWS_AS(a.coeff(1), invalid_input);
    CHECK_THROWS_AS(a.exponents(5), invalid_input);
    CHECK_THROWS_AS(NmodContext(ctx->vars_ptr(), 1), invalid_input);
    CHECK_THROWS_AS(Variables({"x", "x"}), invalid_input);
    CHECK_THROWS_AS(Variables({"1x"}), invalid_input);
    CHECK_THROWS_AS(Variables::tokens(-1, 2), invalid_input);
    auto nctx = std::make_shared<const NmodContext>(std::make_shared<const Variables>(Variables({"a", "b"})), 7);
    CHECK_THROWS_AS(reduce_mod(a, nctx), invalid_input);  // different variable names
}

TEST_CASE("moves keep the context and leave a zero polynomial") {
    auto ctx = qctx(2);
    QPoly a = QPoly::variable(ctx, 1) * Rational(3);
    QPoly b(std::move(a));
    CHECK(b.terms() == 1);
    CHECK(a.is_zero());  // NOLINT: moved-from is zero
    CHECK(a.context() == ctx);
    auto ctx2 = qctx(3);
    QPoly c = QPoly::variable(ctx2, 2);
    c = std::move(b);  // takes b's context along with its value
    CHECK(c.context() == ctx);
    CHECK(c == QPoly::variable(ctx, 1) * Rational(3));
    QPoly d(ctx2);
    d = c;  // copy assignment across contexts
    CHECK(d.context() == ctx);
    CHECK(d == c);
}

TEST_CASE("token variables carry token and coordinate") {
    Variables v = Variables::tokens(3, 2);
    REQUIRE(v.size() == 6);
    CHECK(v.name(0) == "x1_1");
    CHECK(v.name(5) == "x3_2");
    CHECK(v.token(3) == 2);
    CHECK(v.coord(3) == 2);
    Variables w({"a", "y12_3", "z_1"});
    CHECK(w.token(0) == 0);
    CHECK(w.token(1) == 12);
    CHECK(w.coord(1) == 3);
    CHECK(w.token(2) == 0);
}
