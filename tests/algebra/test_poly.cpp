#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/poly.hpp"
#include "support.hpp"

#include <array>
#include <cmath>
#include <set>
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

TEST_CASE("QPoly::evaluate bounds the value's size before GMP is asked for it") {
    auto c = QContext::make(Variables({"x"}));
    // x^(2^40) at 2: 2^40 bits, past what GMP holds; x^(2^33) at 3: about 1.7 GB
    CHECK_THROWS_AS(QPoly::from_terms(c, {Rational(1)}, {{1ULL << 40}}).evaluate({Rational(2)}), resource_limit);
    const double before = default_max_memory();
    set_default_max_memory(256.0 * 1024 * 1024);
    CHECK_THROWS_AS(QPoly::from_terms(c, {Rational(1)}, {{1ULL << 33}}).evaluate({Rational(3)}), resource_limit);
    set_default_max_memory(before);
    // small values pass, exactly; an empty polynomial is 0 at any point
    Integer two100(3);
    for (int i = 0; i < 100; ++i) two100 = two100 * Integer(2);
    CHECK(QPoly::from_terms(c, {Rational(3)}, {{100}}).evaluate({Rational(2)}) == Rational(two100));
    CHECK(QPoly(c).evaluate({Rational(7)}).is_zero());
}

TEST_CASE("Variables::tokens checks the names' memory before making them") {
    CHECK_THROWS_AS(Variables::tokens(1L << 32, 1L << 32), resource_limit);  // n·dx overflowed to a bad_alloc
    CHECK(Variables::tokens(3, 2).size() == 6);
    CHECK(Variables::tokens(0, 5).size() == 0);
}

TEST_CASE("a sum in many variables bounds its memory before FLINT allocates it") {
    // 2000 variables: at least 2000 bytes a term; 2000 terms pass 1 MiB (FLINT had aborted
    // on x1_1 + ... + x99999_1 from Python)
    std::string text;
    for (int i = 1; i <= 2000; ++i) text += (i > 1 ? "+" : "") + std::string("x") + std::to_string(i) + "_1";
    const auto ctx = QContext::make(variables_in(text));
    const double before = default_max_memory();
    set_default_max_memory(1024.0 * 1024);
    CHECK_THROWS_AS(parse_poly(text, ctx), resource_limit);
    set_default_max_memory(before);
    CHECK(parse_poly(text, ctx).terms() == 2000);
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
    auto ctx = qctx(2), other = QContext::make(Variables({"v0", "w1"}));  // other variables
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

TEST_CASE("a power too large to hold is refused before FLINT is called") {
    // (x1 + x2 + x3 + x4)^e has C(e + 3, 3) terms: for e = 3000, 4.5·10^9 terms with
    // coefficients up to 4^3000 — FLINT and GMP used to abort the process on it.
    auto ctx = qctx(4);
    QPoly sum(ctx);
    for (std::size_t v = 0; v < 4; ++v) sum += QPoly::variable(ctx, v);
    CHECK_THROWS_AS(sum.pow(3000), resource_limit);
    auto nctx = std::make_shared<const NmodContext>(ctx->vars_ptr(), 1000003);
    CHECK_THROWS_AS(reduce_mod(sum, nctx).pow(100000), resource_limit);  // 1.7·10^14 terms of one word
    // a single term: only its coefficient grows, (2·x1)^e = 2^e·x1^e
    const QPoly two_x = QPoly::variable(ctx, 0) * Rational(2);
    CHECK_THROWS_AS(two_x.pow(std::uint64_t{1} << 40), resource_limit);  // 2^40 bits
    const QPoly p = two_x.pow(64);
    CHECK(p.terms() == 1);
    CHECK(p.coeff(0) == Rational(Integer(std::string_view("18446744073709551616"))));  // 2^64
    // small powers still run: (x1 + x2 + x3 + x4)^3 has C(6, 3) = 20 terms
    CHECK(sum.pow(3).terms() == 20);
    CHECK(sum.pow(0).terms() == 1);
}

TEST_CASE("a product too large to hold is refused before FLINT is called; a product whose terms collide is not") {
    // a = Σ_{i<t} v0^i, b = Σ_{j<t} v1^j: a·b has exactly t² distinct terms v0^i·v1^j, each
    // holding at least one exponent word and one coefficient word (16 bytes). With
    // t² > default_max_memory()/16 the product cannot fit: it must be refused, in O(t).
    const double limit = default_max_memory();
    const auto t = static_cast<std::uint64_t>(std::ceil(std::sqrt(limit / 16.0))) + 1;
    INFO("default_max_memory " << limit << ", t = " << t);
    auto ctx = qctx(2);
    // Σ_{i<n} (c + i)·v_var^i in ctx (distinct coefficients: c + i are coprime, so the
    // content is 1 and each term keeps its own coefficient)
    auto sum_of_powers = [](const std::shared_ptr<const QContext>& in, std::size_t var, std::uint64_t n, const Integer& c) {
        std::vector<Rational> cs;
        std::vector<std::vector<std::uint64_t>> es(n, std::vector<std::uint64_t>(in->nvars(), 0));
        for (std::uint64_t i = 0; i < n; ++i) {
            cs.emplace_back(c + Integer(static_cast<long>(i)));
            es[i][var] = i;
        }
        return QPoly::from_terms(in, cs, es);
    };
    const Integer one(1);
    const QPoly a = sum_of_powers(ctx, 0, t, one), b = sum_of_powers(ctx, 1, t, one);
    CHECK_THROWS_WITH_AS(a.mul(b), doctest::Contains("product of polynomials of"), resource_limit);
    for (MulVariant v : {MulVariant::flint, MulVariant::digits, MulVariant::dense})
        CHECK_THROWS_AS(a.mul(b, v), resource_limit);
    CHECK_THROWS_AS(QPoly(a) *= b, resource_limit);
    auto nctx = std::make_shared<const NmodContext>(ctx->vars_ptr(), 1000003);
    CHECK_THROWS_AS(reduce_mod(a, nctx) * reduce_mod(b, nctx), resource_limit);
    {
        // 1 MiB: 2000·2000 pairs of terms (4·10^6 · 16 bytes) are over it, but a2·a2 in one
        // variable has at most 3999 monomials (64 KB): the monomial bound lets it run
        const seprank_test::MaxMemory small(1024.0 * 1024.0);
        const QPoly a2 = sum_of_powers(qctx(1), 0, 2000, one);
        const QPoly sq = a2 * a2;
        CHECK(sq.terms() == 3999);
        // coefficients: 128 terms of 2^16 bits times 128 more (inputs of 2 MiB) give 16384
        // terms of about 2^17 bits, 256 MiB: over 64 MiB
        const seprank_test::MaxMemory limit64(64.0 * 1024 * 1024);
        Integer big;
        fmpz_one_2exp(big.get(), 1 << 16);
        const QPoly c = sum_of_powers(ctx, 0, 128, big), d = sum_of_powers(ctx, 1, 128, big);
        CHECK_THROWS_AS(c * d, resource_limit);
        // 8 × 8 terms of the same coefficients, about 1 MiB, run
        const QPoly e = sum_of_powers(ctx, 0, 8, big) * sum_of_powers(ctx, 1, 8, big);
        CHECK(e.terms() == 64);
    }
    {
        // a limit the caller set below 16 MiB holds for small products too: 600 × 600
        // distinct terms (3.6·10^5 of at least 16 bytes, about 5.5 MiB) are over 1 MiB, over
        // Q and mod p; 200 × 200 (0.6 MiB) run
        const seprank_test::MaxMemory small(1024.0 * 1024.0);
        const QPoly f = sum_of_powers(ctx, 0, 600, one), g = sum_of_powers(ctx, 1, 600, one);
        CHECK_THROWS_WITH_AS(f * g, doctest::Contains("product of polynomials of 600 and 600 terms"), resource_limit);
        CHECK_THROWS_AS(reduce_mod(f, nctx) * reduce_mod(g, nctx), resource_limit);
        CHECK((sum_of_powers(ctx, 0, 200, one) * sum_of_powers(ctx, 1, 200, one)).terms() == 40000);
    }
    {
        // homogeneous factors: a·b has monomials of one degree only, hi + 1 of them in two
        // variables, not the (hi + 1)(hi + 2)/2 of degree <= hi nor the t² pairs of terms.
        // Σ_i v0^i v1^(599−i) squared: 360,000 pairs (5.5 MiB) and 719,400 monomials of
        // degree <= 1198 (11 MiB) are over 1 MiB, its 1,199 terms are not, over Q and mod p;
        // with a constant term (degrees 0..1198) it is refused as before
        const seprank_test::MaxMemory small(1024.0 * 1024.0);
        std::vector<Rational> cs;
        std::vector<std::vector<std::uint64_t>> es;
        for (std::uint64_t i = 0; i < 600; ++i) {
            cs.emplace_back(Integer(static_cast<long>(i) + 1));
            es.push_back({i, 599 - i});
        }
        const QPoly h = QPoly::from_terms(ctx, cs, es);
        CHECK((h * h).terms() == 1199);
        CHECK((reduce_mod(h, nctx) * reduce_mod(h, nctx)).terms() == 1199);
        const QPoly h1 = h + QPoly::constant(ctx, Rational(1));
        CHECK_THROWS_AS(h1 * h1, resource_limit);
        CHECK_THROWS_AS(reduce_mod(h1, nctx) * reduce_mod(h1, nctx), resource_limit);
    }
    // the limit is restored, and small products run as before
    CHECK(default_max_memory() == limit);
    CHECK((sum_of_powers(ctx, 0, 3, one) * sum_of_powers(ctx, 1, 3, one)).terms() == 9);
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

TEST_CASE("contexts with the same variables are interchangeable; others are refused") {
    auto rng = seprank_test::rng_for("poly-contexts");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(50); ++it) {
        const std::size_t nv = 1 + static_cast<std::size_t>(rng.below(4));
        auto c1 = qctx(nv), c2 = qctx(nv);  // two contexts, equal names, separate Variables
        REQUIRE(c1 != c2);
        REQUIRE(c1->interchangeable(*c2));
        const RefPoly ra = seprank_test::random_ref(rng, nv, 6, 3, 20), rb = seprank_test::random_ref(rng, nv, 6, 3, 20);
        const QPoly a1 = seprank_test::from_ref(ra, c1), a2 = seprank_test::from_ref(ra, c2);
        const QPoly b2 = seprank_test::from_ref(rb, c2);
        CHECK(a1 == a2);  // two expansions of one network compare equal
        CHECK((a1 == b2) == (ra == rb));
        const QPoly s = a1 + b2, m = a1 * b2;
        CHECK(s.context() == c1);  // the left operand's context
        CHECK(seprank_test::to_ref(s) == seprank_test::ref_add(ra, rb));
        CHECK(seprank_test::to_ref(m) == seprank_test::to_ref(seprank_test::from_ref(ra, c2) * b2));
        std::vector<QPoly> subs;
        for (std::size_t k = 0; k < nv; ++k) subs.push_back(QPoly::variable(c2, k));
        CHECK(a1.compose(subs, c1) == a1);  // subs from c2, target c1
    }
    auto c3 = qctx(3);
    auto other = QContext::make(Variables({"v0", "v1", "w2"}));  // same count, another name
    CHECK_FALSE(c3->interchangeable(*other));
    CHECK_FALSE(QPoly::variable(c3, 0) == QPoly::variable(other, 0));
    CHECK_THROWS_AS(QPoly::variable(c3, 0) + QPoly::variable(other, 0), invalid_input);
    CHECK_THROWS_AS(QPoly::variable(c3, 0) * QPoly::variable(other, 0), invalid_input);
    CHECK_THROWS_AS(QPoly::variable(c3, 0) - QPoly::variable(qctx(2), 0), invalid_input);
    auto n7 = std::make_shared<const NmodContext>(c3->vars_ptr(), 7), n11 = std::make_shared<const NmodContext>(c3->vars_ptr(), 11);
    auto n7b = std::make_shared<const NmodContext>(std::make_shared<const Variables>(c3->vars()), 7);
    CHECK(n7->interchangeable(*n7b));
    CHECK_FALSE(n7->interchangeable(*n11));
    CHECK(NmodPoly::variable(n7, 1) + NmodPoly::variable(n7b, 1) == NmodPoly::variable(n7, 1) * 2);
    CHECK_THROWS_AS(NmodPoly::variable(n7, 1) + NmodPoly::variable(n11, 1), invalid_input);
    CHECK_FALSE(NmodPoly::variable(n7, 1) == NmodPoly::variable(n11, 1));
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

TEST_CASE("the dense product's three-word accumulator carries past 2^128 and back, both signs") {
    // a = Σ_{k=0}^{K} c·x^k y^{K−k}, c = 2^62 − 1, times b with coefficients b_k = ±c: the
    // coefficient of x^K y^K is Σ_k c·b_{K−k}, K+1 = 41 products of about 2^124 each, so its
    // partial sums pass 2^128 (three words); with b = c then −c halves they come back to 0
    // (the monomial vanishes) or to −c². The flint product is the independent value.
    auto ctx = QContext::make(Variables::tokens(1, 2));
    const Integer c("4611686018427387903");
    const std::uint64_t K = 40;
    auto poly = [&](auto coeff_of) {
        std::vector<Rational> cs;
        std::vector<std::vector<std::uint64_t>> es;
        for (std::uint64_t k = 0; k <= K; ++k) {
            cs.emplace_back(coeff_of(k));
            es.push_back({k, K - k});
        }
        return QPoly::from_terms(ctx, cs, es);
    };
    const QPoly a = poly([&](std::uint64_t) { return c; });
    const Integer neg = Integer(0) - c;
    const QPoly b_pos = a, b_neg = poly([&](std::uint64_t) { return neg; });
    // 20 of +c, then −c: the partial sums pass 2^128 and come back to −c² (b_back), or to 0
    // when the last coefficient is 0 (b_zero: the monomial x^K y^K vanishes)
    const QPoly b_back = poly([&](std::uint64_t k) { return k < 20 ? c : neg; });
    const QPoly b_zero = poly([&](std::uint64_t k) { return k < 20 ? c : k < 40 ? neg : Integer(0); });
    for (const QPoly* b : {&b_pos, &b_neg, &b_back, &b_zero}) {
        check_variants(a, *b);
        MulStats st;
        const QPoly got = a.mul(*b, MulVariant::dense, &st);
        REQUIRE(st.dense == 1);
        REQUIRE(st.heap == 0);
        REQUIRE(got == a.mul(*b, MulVariant::flint));
    }
    // the middle coefficient against (K+1)·c² computed independently
    const QPoly sq = a.mul(a, MulVariant::dense);
    bool found = false;
    for (std::size_t t = 0; t < sq.terms(); ++t)
        if (sq.exponents(t) == std::vector<std::uint64_t>{K, K}) {
            REQUIRE(sq.coeff(t) == Rational(c * c * Integer(static_cast<long>(K + 1))));
            found = true;
        }
    REQUIRE(found);
    // b_back: Σ_k c·b_{K−k} = 20c² − 21c² = −c²; b_zero: 20c² − 20c² = 0, no such term
    const QPoly back = a.mul(b_back, MulVariant::dense), zero = a.mul(b_zero, MulVariant::dense);
    int seen = 0;
    for (std::size_t t = 0; t < back.terms(); ++t)
        if (back.exponents(t) == std::vector<std::uint64_t>{K, K}) {
            REQUIRE(back.coeff(t) == Rational(Integer(0) - c * c));
            ++seen;
        }
    for (std::size_t t = 0; t < zero.terms(); ++t) REQUIRE(zero.exponents(t) != std::vector<std::uint64_t>{K, K});
    REQUIRE(seen == 1);
}

namespace {

// (Σ_v w_v x_v)^deg: dense in every token, deg + 1 parts. Weights in [−2^bits, 2^bits], or
// with `edges` also the digit and word edges of edge_or_random (coefficients past 62 bits).
QPoly power_of_form(Rng& rng, const std::shared_ptr<const QContext>& ctx, unsigned deg, unsigned bits,
                    bool edges = false) {
    QPoly p = QPoly::constant(ctx, Rational(1));
    for (unsigned d = 0; d < deg; ++d) {
        QPoly form(ctx);
        for (std::size_t v = 0; v < ctx->nvars(); ++v) {
            const std::int64_t lim = std::int64_t(1) << bits;
            const Integer w = edges ? edge_or_random(rng, bits) : Integer(rng.range(-lim, lim));
            form += QPoly::variable(ctx, v) * Rational(w);
        }
        p = p.mul(form, MulVariant::flint);
    }
    return p;
}

}  // namespace

TEST_CASE("auto takes the dense path where its cost rule says, and the heap elsewhere") {
    auto rng = seprank_test::rng_for("qpoly-mul-paths");
    INFO("seed " << seprank_test::seed());
    FlintThreads scope(2);
    auto ctx = QContext::make(Variables::tokens(2, 3));
    // 2002 × 3003 terms: 6·10^6 term products, about 10^5 array entries
    const QPoly a = power_of_form(rng, ctx, 9, 3), b = power_of_form(rng, ctx, 10, 3);
    MulStats st;
    const QPoly got = a.mul(b, MulVariant::automatic, &st);
    REQUIRE(st.dense == 1);
    REQUIRE(got == a.mul(b, MulVariant::flint));
    // small products stay on the heap
    MulStats small;
    const QPoly c = power_of_form(rng, ctx, 2, 3);
    REQUIRE(c.mul(c, MulVariant::automatic, &small) == c.mul(c, MulVariant::flint));
    REQUIRE(small.heap == 1);
    REQUIRE(small.dense == 0);
}

TEST_CASE("dense falls back to the heap: arrays over the cap, too many parts, huge exponents") {
    auto rng = seprank_test::rng_for("qpoly-mul-fallback");
    INFO("seed " << seprank_test::seed());
    auto heap_only = [](const QPoly& a, const QPoly& b) {
        MulStats st;
        const QPoly got = a.mul(b, MulVariant::dense, &st);
        REQUIRE(got == a.mul(b, MulVariant::flint));
        REQUIRE(st.dense == 0);
        REQUIRE(st.heap == 1);
    };
    {  // one token of 8 variables, degree 30: an array of 61^7 entries
        auto ctx = QContext::make(Variables::tokens(1, 8));
        std::vector<Rational> cs{Rational(3), Rational(-7)};
        std::vector<std::vector<std::uint64_t>> es{{30, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 30}};
        const QPoly a = QPoly::from_terms(ctx, cs, es);
        heap_only(a, a);
    }
    {  // one variable per token: every part is one monomial; 1100 × 1100 parts
        auto ctx = QContext::make(Variables::tokens(40, 1));
        auto random_cubic_terms = [&]() {
            std::set<std::vector<std::uint64_t>> seen;
            std::vector<Rational> cs;
            std::vector<std::vector<std::uint64_t>> es;
            while (es.size() < 1100) {
                std::vector<std::uint64_t> e(40, 0);
                for (int k = 0; k < 3; ++k) e[rng.below(40)] += 1;
                if (!seen.insert(e).second) continue;
                cs.emplace_back(static_cast<long>(rng.range(-9, 9) | 1));
                es.push_back(e);
            }
            return QPoly::from_terms(ctx, cs, es);
        };
        heap_only(random_cubic_terms(), random_cubic_terms());
    }
    {  // exponents of 2^62: beyond the dense variant's degrees (and beyond one word in the product)
        auto ctx = QContext::make(Variables::tokens(1, 2));
        const std::uint64_t big = std::uint64_t(1) << 62;
        std::vector<Rational> cs{Rational(5), Rational(-1)};
        std::vector<std::vector<std::uint64_t>> es{{big, big}, {1, 0}};
        const QPoly a = QPoly::from_terms(ctx, cs, es);
        heap_only(a, a);
    }
}

TEST_CASE("product variants on products of powers of linear forms (auto takes the dense path)" *
          doctest::test_suite("slow")) {
    auto rng = seprank_test::rng_for("qpoly-mul-large");
    INFO("seed " << seprank_test::seed());
    FlintThreads scope(2);
    // One draw by default (about 50 s on 2 cores: the flint reference and three variants
    // of a 3003 x 5005-term product of coefficients up to 700 bits); SEPRANK_TEST_MULTIPLIER
    // for more. `automatic` is computed once, with its statistics.
    for (int it = 0; it < seprank_test::iterations(1); ++it) {
        INFO("iteration " << it);
        auto ctx = QContext::make(Variables::tokens(2, 3));
        // coefficients past 62 bits: digits, then dense for every digit product
        const QPoly a = power_of_form(rng, ctx, 10, 8, true), b = power_of_form(rng, ctx, 12, 9, true);
        const QPoly want = a.mul(b, MulVariant::flint);
        MulStats st;
        const QPoly got = a.mul(b, MulVariant::automatic, &st);
        REQUIRE(got == want);
        REQUIRE(st.dense >= 2);  // the digit products of many terms (the short top digits: the heap)
        for (MulVariant v : {MulVariant::digits, MulVariant::dense}) {
            INFO("variant " << to_string(v));
            REQUIRE(a.mul(b, v) == want);
        }
    }
}

TEST_CASE("product variant names round-trip; bad names are refused") {
    for (MulVariant v : kAllMul) REQUIRE(mul_variant_from_string(to_string(v)) == v);
    REQUIRE_THROWS_AS(mul_variant_from_string("heap"), invalid_input);
}

TEST_CASE("to_string(MulVariant) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<MulVariant>({MulVariant::automatic, MulVariant::flint, MulVariant::digits, MulVariant::dense}, "MulVariant", mul_variant_from_string);
}
