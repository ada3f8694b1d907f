#include "seprank/error.hpp"
#include "seprank/poly.hpp"
#include "support.hpp"

#include <array>
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

// ---------------------------------------------------------------- product variants

namespace {

const MulVariant kAllMul[] = {MulVariant::automatic, MulVariant::flint, MulVariant::digits, MulVariant::dense};

// A coefficient of about `bits` bits, or one of the edges of the digit split and of
// FLINT's word-size range (±2^59, ±2^60, ±(2^62 − 1), ±2^62, ±2^64).
Integer edge_or_random(Rng& rng, unsigned bits) {
    static const char* edges[] = {"576460752303423488", "1152921504606846976", "4611686018427387903",
                                  "4611686018427387904", "18446744073709551616", "576460752303423487"};
    Integer v = rng.below(5) == 0 ? Integer(edges[rng.below(6)]) : rng.big(1 + static_cast<unsigned>(rng.below(bits)));
    if (rng.below(2) == 0) v = Integer(0) - v;
    return v;
}

// Random polynomial with token-structured variables: terms of up to `max_terms` monomials,
// homogeneous per token with probability 1/2 (the dense variant's favourite shape).
QPoly random_poly(Rng& rng, const std::shared_ptr<const QContext>& ctx, std::size_t max_terms, unsigned bits,
                  bool rational) {
    const std::size_t n = ctx->nvars();
    const bool homogeneous = rng.below(2) == 0;
    const std::uint64_t total = 1 + rng.below(6);
    std::vector<Rational> cs;
    std::vector<std::vector<std::uint64_t>> es;
    const std::size_t terms = static_cast<std::size_t>(rng.below(max_terms + 1));
    for (std::size_t t = 0; t < terms; ++t) {
        std::vector<std::uint64_t> e(n, 0);
        if (n > 0) {
            const std::uint64_t d = homogeneous ? total : rng.below(total + 1);
            for (std::uint64_t k = 0; k < d; ++k) e[rng.below(n)] += 1;
        }
        Integer num = edge_or_random(rng, bits);
        cs.push_back(rational ? Rational(num, Integer(1 + static_cast<long>(rng.below(30)))) : Rational(num));
        es.push_back(std::move(e));
    }
    return QPoly::from_terms(ctx, cs, es);
}

std::shared_ptr<const QContext> token_ctx(Rng& rng) {
    if (rng.below(4) == 0) return qctx(static_cast<std::size_t>(rng.below(5)));  // no token structure
    return QContext::make(Variables::tokens(static_cast<long>(1 + rng.below(3)), static_cast<long>(1 + rng.below(3))));
}

void check_variants(const QPoly& a, const QPoly& b) {
    const QPoly want = a.mul(b, MulVariant::flint);
    for (MulVariant v : kAllMul) {
        INFO("variant " << to_string(v));
        const QPoly got = a.mul(b, v);
        REQUIRE(got == want);
        REQUIRE(got.terms() == want.terms());
    }
}

struct FlintThreads {
    explicit FlintThreads(int n) : old(flint_get_num_threads()) { flint_set_num_threads(n); }
    ~FlintThreads() { flint_set_num_threads(old); }
    int old;
};

}  // namespace

TEST_CASE("every product variant equals FLINT's product, on random and edge-case polynomials") {
    auto rng = seprank_test::rng_for("qpoly-mul-variants");
    INFO("seed " << seprank_test::seed());
    for (int threads : {1, 2}) {
        FlintThreads scope(threads);
        for (int it = 0; it < seprank_test::iterations(300); ++it) {
            INFO("iteration " << it << ", threads " << threads);
            auto ctx = token_ctx(rng);
            const unsigned bits = std::array<unsigned, 4>{20, 62, 130, 400}[rng.below(4)];
            const bool rational = rng.below(3) == 0;
            const QPoly a = random_poly(rng, ctx, 1 + rng.below(40), bits, rational);
            const QPoly b = random_poly(rng, ctx, 1 + rng.below(40), bits, rational);
            check_variants(a, b);
            check_variants(a, a);  // the same operand twice
            check_variants(a, QPoly(ctx));
            check_variants(QPoly::constant(ctx, Rational(Integer("-340282366920938463463374607431768211457"))), b);
        }
    }
}

TEST_CASE("the dense product's three-word accumulator carries past 2^128, both signs") {
    // a = b = Σ_{k=0}^{K} c·x^k y^{K−k} with c = ±(2^62 − 1): the middle coefficient of a·b is
    // (K+1)·c², beyond two words when K ≥ 15; the flint product is the independent value.
    auto ctx = QContext::make(Variables::tokens(1, 2));
    for (const char* c : {"4611686018427387903", "-4611686018427387903"}) {
        for (std::uint64_t K : {15u, 40u}) {
            std::vector<Rational> cs;
            std::vector<std::vector<std::uint64_t>> es;
            for (std::uint64_t k = 0; k <= K; ++k) {
                cs.emplace_back(Integer(c));
                es.push_back({k, K - k});
            }
            const QPoly a = QPoly::from_terms(ctx, cs, es);
            INFO("c " << c << ", K " << K);
            check_variants(a, a);
            const QPoly sq = a.mul(a, MulVariant::dense);
            // coefficient of x^K y^K: (K+1)·c²
            Integer want = Integer(c) * Integer(c) * Integer(static_cast<long>(K + 1));
            bool found = false;
            for (std::size_t t = 0; t < sq.terms(); ++t)
                if (sq.exponents(t) == std::vector<std::uint64_t>{K, K}) {
                    REQUIRE(sq.coeff(t) == Rational(want));
                    found = true;
                }
            REQUIRE(found);
        }
    }
}

TEST_CASE("product variants on products of powers of linear forms (auto takes the dense path)" *
          doctest::test_suite("slow")) {
    auto rng = seprank_test::rng_for("qpoly-mul-large");
    INFO("seed " << seprank_test::seed());
    FlintThreads scope(2);
    for (int it = 0; it < seprank_test::iterations(6); ++it) {
        INFO("iteration " << it);
        auto ctx = QContext::make(Variables::tokens(2, 3));
        // (random linear form per token)^k products: dense, token-homogeneous, thousands of terms
        auto power_of_forms = [&](unsigned deg, unsigned bits) {
            QPoly p = QPoly::constant(ctx, Rational(1));
            for (unsigned d = 0; d < deg; ++d) {
                QPoly form(ctx);
                for (std::size_t v = 0; v < ctx->nvars(); ++v)
                    form += QPoly::variable(ctx, v) * Rational(edge_or_random(rng, bits));
                p = p.mul(form, MulVariant::flint);
            }
            return p;
        };
        const QPoly a = power_of_forms(10, 3), b = power_of_forms(12, 5);
        check_variants(a, b);
    }
}

TEST_CASE("product variant names round-trip; bad names are refused") {
    for (MulVariant v : kAllMul) REQUIRE(mul_variant_from_string(to_string(v)) == v);
    REQUIRE_THROWS_AS(mul_variant_from_string("heap"), invalid_input);
}
