// Theorem 7.3 (embedding rank): scales, hypotheses, the monomial cap, network edits, and
// the contrasts of the verify claims embedding-* (each must make its check fail).
#include "seprank/embedding.hpp"
#include "seprank/error.hpp"
#include "seprank/generic.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/rank.hpp"
#include "seprank/separation.hpp"
#include "support.hpp"

#include <climits>
#include <cmath>
#include <doctest/doctest.h>

using namespace seprank;

namespace {

NetworkSpec attention(long n, long dx, long L, long H = 1, long r = 0) {
    NetworkSpec s = seprank_test::attention_spec(n, dx, L, H);
    s.embed_rank = r;
    return s;
}

// Monomials of degree <= D in k variables, by dynamic programming over the variables
// (independent of the binomial product in embedding_cap).
Integer monomials_reference(long k, long D) {
    std::vector<Integer> ways(static_cast<std::size_t>(D + 1), Integer(0));  // ways[d]: monomials of degree exactly d
    ways[0] = Integer(1);
    for (long v = 0; v < k; ++v)
        for (long d = 1; d <= D; ++d) ways[static_cast<std::size_t>(d)] = ways[static_cast<std::size_t>(d)] + ways[static_cast<std::size_t>(d - 1)];
    Integer total(0);
    for (const auto& w : ways) total = total + w;
    return total;
}

Dense<Rational> product_of_rank(Rng& rng, long rows, long cols, long rank) {
    Dense<Rational> u(rows, rank, Rational(0)), v(rank, cols, Rational(0)), m(rows, cols, Rational(0));
    for (auto& x : u.a) x = Rational(rng.range(-9, 9));
    for (auto& x : v.a) x = Rational(rng.range(-9, 9));
    for (long i = 0; i < rows; ++i)
        for (long j = 0; j < cols; ++j)
            for (long k = 0; k < rank; ++k) m(i, j) = m(i, j) + u(i, k) * v(k, j);
    return m;
}

long sep(const Network& net) { return separation_rank(net, balanced_partition(net.spec.tokens)).value; }

}  // namespace

TEST_CASE("Theorem 7.3 hypotheses: L > log3 dx (exactly 3^L > dx) and H < r") {
    CHECK(theorem73_lower_applies(1, 2, 1, 2));       // 3 > 2, 1 < 2
    CHECK_FALSE(theorem73_lower_applies(1, 3, 1, 2)); // L = log3 dx: not greater
    CHECK(theorem73_lower_applies(2, 3, 1, 2));       // 9 > 3
    CHECK_FALSE(theorem73_lower_applies(2, 3, 2, 2)); // H = r
    CHECK_FALSE(theorem73_lower_applies(3, 4, 3, 2)); // H > r
    CHECK_FALSE(theorem73_lower_applies(0, 1, 1, 2)); // 3^0 = 1 = dx
    CHECK(theorem73_lower_applies(1, 1, 1, 2));
    CHECK_FALSE(theorem73_lower_applies(39, LONG_MAX, 1, 2));  // 3^39 < 2^63 - 1
    CHECK(theorem73_lower_applies(40, LONG_MAX, 1, 2));        // 3^40 > 2^63 - 1, no overflow
    CHECK_THROWS_AS(theorem73_lower_applies(1, 0, 1, 1), invalid_input);
    CHECK_THROWS_AS(theorem73_lower_applies(1, 2, 1, 0), invalid_input);
    CHECK_THROWS_AS(theorem73_lower_applies(-1, 2, 1, 1), invalid_input);
    // against exact powers on random inputs
    Rng rng = seprank_test::rng_for("t73 hypotheses");
    for (int it = 0; it < seprank_test::iterations(500); ++it) {
        const long L = static_cast<long>(rng.below(12)), dx = 1 + static_cast<long>(rng.below(200000));
        const long H = 1 + static_cast<long>(rng.below(5)), r = 1 + static_cast<long>(rng.below(5));
        Integer p;
        fmpz_set_ui(p.get(), 3);
        fmpz_pow_ui(p.get(), p.get(), static_cast<ulong>(L));
        INFO("L=" << L << " dx=" << dx << " H=" << H << " r=" << r << " seed " << seprank_test::seed());
        CHECK(theorem73_lower_applies(L, dx, H, r) == (p > Integer(dx) && H < r));
    }
}

TEST_CASE("Theorem 7.3 scales and ratios") {
    Theorem73Scales t = theorem73_scales(attention(2, 3, 3, 1, 2));
    CHECK(t.applies);
    CHECK(t.m == 2);
    CHECK(t.s_up == 6);
    CHECK(t.lower_applies);
    CHECK(t.s_low == 3);
    t = theorem73_scales(attention(2, 3, 2, 1, 5));  // r > dx: m = dx
    CHECK(t.m == 3);
    CHECK(t.s_up == 6);
    CHECK(t.s_low == 4);
    t = theorem73_scales(attention(2, 3, 2, 3, 2));  // H = 3 >= r: hypotheses fail
    CHECK(t.applies);
    CHECK_FALSE(t.lower_applies);
    CHECK_FALSE(theorem73_scales(attention(2, 3, 2)).applies);  // no embedding
    NetworkSpec res = attention(2, 3, 2, 1, 2);
    res.residual = true;
    CHECK_FALSE(theorem73_scales(res).applies);
    NetworkSpec had = attention(2, 2, 2, 1, 1);
    had.family = Family::hadamard;
    had.block_degree = 2;
    CHECK_FALSE(theorem73_scales(had).applies);
    CHECK(theorem73_ratio(9, 2) == doctest::Approx(1.0));
    CHECK(theorem73_ratio(1, 3) == doctest::Approx(0.0));
    CHECK(theorem73_ratio(105, 6) == doctest::Approx(std::log(105.0) / std::log(3.0) / 6.0));
    CHECK(std::isnan(theorem73_ratio(0, 3)));
    CHECK(std::isnan(theorem73_ratio(5, 0)));
    CHECK(std::isnan(theorem73_ratio(5, -2)));
}

TEST_CASE("embedding cap: monomials of degree <= d^L in |S|·min{r, dx} variables, and every measured sep below it") {
    // N = 2, 1|2, dx = 3, r = 2, L = 1 (D = 3): C(2 + 3, 2) = 10 on both sides
    CHECK(embedding_cap(attention(2, 3, 1, 1, 2), balanced_partition(2)) == Integer(10));
    // N = 3, 1,2|3, r = 1, D = 3: side A C(5, 2) = 10, side B C(4, 1) = 4
    CHECK(embedding_cap(attention(3, 3, 1, 1, 1), balanced_partition(3)) == Integer(4));
    // r > dx counts dx variables per token; no embedding counts dx too
    CHECK(embedding_cap(attention(2, 2, 2, 1, 5), balanced_partition(2)) == embedding_cap(attention(2, 2, 2), balanced_partition(2)));
    // Deep and narrow: C(1 + 3^64, 1) = 3^64 + 1, exact. Deep and wide: C(2^20 + 3^64, 2^20)
    // has about 8.7·10^7 bits, over the exact-number limit: refused before it is formed.
    Integer three_pow(1);
    for (long l = 0; l < kMaxDepth; ++l) three_pow = three_pow * Integer(3);
    CHECK(embedding_cap(attention(2, 1, kMaxDepth), balanced_partition(2)) == three_pow + Integer(1));
    CHECK_THROWS_AS(embedding_cap(attention(2, kMaxSize, kMaxDepth), balanced_partition(2)), resource_limit);
    Rng rng = seprank_test::rng_for("t73 cap");
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const long n = 2 + static_cast<long>(rng.below(3)), dx = 1 + static_cast<long>(rng.below(3));
        const long L = static_cast<long>(rng.below(3)), r = static_cast<long>(rng.below(5));
        const NetworkSpec s = attention(n, dx, L, 1, r);
        const Partition part = balanced_partition(n);
        const long m = r > 0 ? std::min(r, dx) : dx, D = static_cast<long>(std::pow(3, L));
        Integer ref = monomials_reference(static_cast<long>(part.A.size()) * m, D);
        const Integer b = monomials_reference(static_cast<long>(part.B.size()) * m, D);
        if (b < ref) ref = b;
        INFO("N=" << n << " dx=" << dx << " L=" << L << " r=" << r << " seed " << seprank_test::seed());
        CHECK(embedding_cap(s, part) == ref);
        if (L <= 2) {
            const long measured = sep(random_network(s, rng.next(), 50));
            CHECK(Integer(measured) <= ref);
            if (r > 0) {
                CHECK(theorem73_flag(measured, s, part).empty());
                CHECK(theorem73_flag(fmpz_get_si(ref.get()) + 1, s, part) == "above-cap");
            }
        }
    }
}

TEST_CASE("network edits: without_embedding, with_embedding, the rank of M") {
    Rng rng = seprank_test::rng_for("t73 edits");
    const Network net = random_network(attention(2, 3, 1, 1, 2), 7, 20);
    const Network bare = without_embedding(net);
    CHECK(bare.spec.embed_rank == 0);
    CHECK(bare.weights.embedding.a.empty());
    check_shapes(bare);
    const Network back = with_embedding(bare, net.weights.embedding);
    CHECK(back.spec.embed_rank == 2);
    CHECK(sep(back) == sep(net));
    CHECK_THROWS_AS(with_embedding(bare, Dense<Rational>(2, 2, Rational(1))), invalid_input);  // dx = 3 rows needed
    CHECK_THROWS_AS(with_embedding(bare, Dense<Rational>(3, 0, Rational(1))), invalid_input);
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const long rows = 1 + static_cast<long>(rng.below(5)), cols = 1 + static_cast<long>(rng.below(5));
        const long k = static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(rows, cols) + 1)));
        const Dense<Rational> m = product_of_rank(rng, rows, cols, k);
        ZMat z(rows, cols);
        for (long i = 0; i < rows; ++i)
            for (long j = 0; j < cols; ++j) z.set(i, j, m(i, j).num());
        CHECK(embedding_matrix_rank(m) == rank_fraction_free(z));
        CHECK(embedding_matrix_rank(m) <= k);
    }
    CHECK(embedding_matrix_rank(Dense<Rational>(2, 2, Rational(0))) == 0);
}

TEST_CASE("embedding_matrix_rank bounds the elimination before FLINT is called") {
    // The Cauchy matrix C[i][j] = 1/(x_i + y_j), x_i = 2^29 + 50·i, y_j = j: the x_i are
    // distinct and so are the y_j, so every square block of it is invertible.
    auto cauchy = [](long n) {
        Dense<Rational> c(n, n, Rational(0));
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j) c(i, j) = Rational(Integer(1), Integer((1L << 29) + 50 * i + j));
        return c;
    };
    CHECK(embedding_matrix_rank(cauchy(4)) == 4);
    // n = 50: denominators of 30 bits, a row over its common denominator b = 1 + 50·30 = 1501
    // bits, numbers of up to 2·50·(1501 + log2(50)/2 + 1) ≈ 1.5·10^5 bits, 2·2500 of them:
    // about 94 MB, over a 1 MiB limit — refused before the elimination
    const Dense<Rational> big = cauchy(50);
    {
        const seprank_test::MaxMemory small(1024.0 * 1024.0);
        CHECK_THROWS_WITH_AS(embedding_matrix_rank(big), doctest::Contains("rref of a 50x50 matrix with numerators of up to 1 bits and denominators of up to 30 bits"),
                             resource_limit);
        CHECK(embedding_matrix_rank(cauchy(4)) == 4);  // 984-bit bound, 32 copies: about 4 KB
    }
    // a shape that its entries do not fill is refused, not read past its end
    Dense<Rational> torn(3, 3, Rational(1));
    torn.a.resize(4);
    CHECK_THROWS_AS(embedding_matrix_rank(torn), invalid_input);
}

TEST_CASE("the claims' predicates, and sep with an embedding <= without at the same weights (every family)") {
    CHECK(never_raises(3, 3));
    CHECK(never_raises(3, 2));
    CHECK_FALSE(never_raises(2, 3));
    CHECK(non_decreasing({}));
    CHECK(non_decreasing({4}));
    CHECK(non_decreasing({2, 2, 5}));
    CHECK_FALSE(non_decreasing({2, 5, 3}));
    CHECK(all_equal({}));
    CHECK(all_equal({7, 7, 7}));
    CHECK_FALSE(all_equal({7, 7, 6}));
    Rng rng = seprank_test::rng_for("t73 no raise");
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        NetworkSpec s = attention(2 + static_cast<long>(rng.below(2)), 1 + static_cast<long>(rng.below(3)), 1 + static_cast<long>(rng.below(2)));
        const Family f = all_families()[rng.below(all_families().size())];
        if (family_info(f).depth_from_widths) continue;  // power networks take no embedding
        s.family = f;
        if (f != Family::attention) s.block_degree = 2;
        if (f == Family::fc) s.widths.assign(static_cast<std::size_t>(s.depth), 3);
        if (family_info(f).layers)  // a stack: attention, mlp, attention, …
            for (long l = 0; l < s.depth; ++l) s.layers.push_back(l % 2 == 0 ? LayerSpec(AttentionLayer{}) : LayerSpec(MlpLayer{}));
        s.embed_rank = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(s.dim + 1)));
        const Network net = random_network(s, rng.next(), 100);
        INFO(to_string(f) << " N=" << s.tokens << " dx=" << s.dim << " L=" << s.depth << " r=" << s.embed_rank << " seed " << seprank_test::seed());
        const long with = sep(net), without = sep(without_embedding(net));
        CHECK(never_raises(without, with));
        if (s.embed_rank >= s.dim && embedding_matrix_rank(net.weights.embedding) == s.dim) CHECK(with == without);
    }
}

TEST_CASE("the contrasts of the embedding claims make their checks fail") {
    Rng rng = seprank_test::rng_for("t73 contrasts");
    // embedding-no-raise: a token-mixing substitution raises sep(x1_1 x2_1) = 1 to 2
    auto poly_sep = [](const std::string& text) {
        auto ctx = QContext::make(variables_in(text));
        return separation_rank(parse_poly(text, ctx), parse_partition("1|2", 2), 2).value;
    };
    CHECK_FALSE(never_raises(poly_sep("x1_1*x2_1"), poly_sep("(x1_1 + x2_1)*(x1_1 - x2_1)")));
    // embedding-monotone: a rank-1 M at r = 3 in place of the generic value breaks monotonicity
    NetworkSpec s = attention(2, 3, 2);
    std::vector<long> seq;
    for (long r = 1; r <= 2; ++r) {
        s.embed_rank = r;
        seq.push_back(generic_rank(s, balanced_partition(2)).value);
    }
    s.embed_rank = 0;
    const Network base = random_network(s, rng.next(), 100);
    seq.push_back(sep(with_embedding(base, product_of_rank(rng, 3, 3, 1))));
    CHECK(seq[2] == seq[0]);  // a rank-1 M is a rank-1 embedding
    CHECK_FALSE(non_decreasing(seq));
    // embedding-full-rank: a singular M at r = dx changes sep at the same weights
    CHECK_FALSE(all_equal({sep(with_embedding(base, product_of_rank(rng, 3, 3, 2))), sep(base)}));
    // embedding-wide: r = dx + 1 with M not onto Q^dx changes sep at the same weights
    CHECK_FALSE(all_equal({sep(with_embedding(base, product_of_rank(rng, 3, 4, 2))), sep(base)}));
}
