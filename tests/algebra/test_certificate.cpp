// The pivot-span certificate against the Hadamard reference and fraction-free
// elimination; sparse reduced echelon forms against FLINT's dense rref; phases.
#include "seprank/answer.hpp"
#include "seprank/certificate.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>

using namespace seprank;
using seprank_test::certificate_options;
using seprank_test::random_rank;

TEST_CASE("pivot-span agrees with the Hadamard reference on matrices of chosen rank") {
    auto rng = seprank_test::rng_for("certificate-random-rank");
    INFO("seed " << seprank_test::seed());
    int span_used = 0, span_deficient = 0;
    for (int it = 0; it < seprank_test::iterations(400); ++it) {
        long m = static_cast<long>(rng.below(25)), n = static_cast<long>(rng.below(25));
        if (it % 17 == 0) m = 1;
        if (it % 19 == 0) n = 1;
        const long r = std::min(m, n) == 0 ? 0 : static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(m, n) + 1)));
        const unsigned bits = it % 7 == 0 ? 150 : 1 + static_cast<unsigned>(rng.below(10));
        const long ops = static_cast<long>(rng.below(it % 3 == 0 ? 8 : 80));
        const ZMat a = random_rank(rng, m, n, r, bits, ops, it % 5 == 0 ? 40 : 2);
        INFO("iteration " << it << ": " << m << "x" << n << " rank " << r << " bits " << bits << " ops " << ops);
        const std::uint64_t s = rng.next();
        const RankAnswer span = rank_certified(SparseZMat::from_dense(a), certificate_options(Certificate::pivot_span, s));
        const RankAnswer ref = rank_certified(SparseZMat::from_dense(a), certificate_options(Certificate::hadamard, s));
        REQUIRE(ref.certified());
        REQUIRE(ref.value == r);
        REQUIRE(span.certified());
        REQUIRE(span.value == r);
        REQUIRE(span.field == "Q");
        if (m * n <= 144) REQUIRE(rank_fraction_free(a) == r);  // an independent third opinion
        if (span.variant == "pivot-span") {
            ++span_used;
            span_deficient += r < std::min(m, n);
            REQUIRE(span.phases.certificate >= 0);
        }
        // the dense entry point takes the same path after its full-rank check
        REQUIRE(rank_certified(a, certificate_options(Certificate::pivot_span, s)).value == r);
    }
    CHECK(span_used > 100);  // the new variant, not its fallback, decided most of them
    CHECK(span_deficient > 50);
}

TEST_CASE("pivot-span on products A·B, dense and sparse, tall and wide") {
    auto rng = seprank_test::rng_for("certificate-products");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const long m = 1 + static_cast<long>(rng.below(40)), n = 1 + static_cast<long>(rng.below(40));
        const long k = static_cast<long>(rng.below(8));
        ZMat x(m, k), y(k, n), a(m, n);
        const double density = it % 2 ? 0.2 : 1.0;
        for (long i = 0; i < m; ++i)
            for (long j = 0; j < k; ++j)
                if (rng.below(100) < density * 100) fmpz_set(fmpz_mat_entry(x.get(), i, j), rng.big(3).get());
        for (long i = 0; i < k; ++i)
            for (long j = 0; j < n; ++j)
                if (rng.below(100) < density * 100) fmpz_set(fmpz_mat_entry(y.get(), i, j), rng.big(3).get());
        if (k > 0) fmpz_mat_mul(a.get(), x.get(), y.get());
        const long truth = fmpz_mat_rank(a.get());
        INFO("iteration " << it << ": " << m << "x" << n << " inner " << k);
        const RankAnswer span = rank_certified(SparseZMat::from_dense(a), certificate_options(Certificate::pivot_span, rng.next()));
        REQUIRE(span.certified());
        REQUIRE(span.value == truth);
    }
}

TEST_CASE("pivot-span falls back to the reference when the combinations are huge") {
    auto rng = seprank_test::rng_for("certificate-fallback");
    INFO("seed " << seprank_test::seed());
    // A·B with 20-bit factors and inner dimension 140: each non-pivot column needs all
    // 140 pivots (too many for the direct solve) with ~ 140·40-bit coefficients, far
    // beyond the reconstruction budget.
    const long m = 150, n = 146, k = 140;
    ZMat x(m, k), y(k, n), a(m, n);
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < k; ++j) fmpz_set(fmpz_mat_entry(x.get(), i, j), rng.big(20).get());
    for (long i = 0; i < k; ++i)
        for (long j = 0; j < n; ++j) fmpz_set(fmpz_mat_entry(y.get(), i, j), rng.big(20).get());
    fmpz_mat_mul(a.get(), x.get(), y.get());
    const RankAnswer r = rank_certified(a, certificate_options(Certificate::pivot_span, 7));
    CHECK(r.certified());
    CHECK(r.value == k);
    CHECK(r.variant == "hadamard-multimodular");
    CHECK(r.note.find("pivot-span gave up") != std::string::npos);
    // the budget of primes is respected: no certificate is claimed without one
    RankOptions none = certificate_options(Certificate::pivot_span, 7);
    none.max_primes = 0;
    const RankAnswer u = rank_certified(a, none);
    CHECK(u.value == k);
    CHECK_FALSE(u.certified());
}

TEST_CASE("sparse reduced echelon form equals FLINT's dense rref") {
    auto rng = seprank_test::rng_for("certificate-rref");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const long m = static_cast<long>(rng.below(15)), n = static_cast<long>(rng.below(15));
        const std::uint64_t p = it % 4 == 0 ? 7 : random_prime(rng, it % 2 ? 62 : 20);
        INFO("iteration " << it << ": " << m << "x" << n << " p " << p);
        NmodMat d(m, n, p);
        SparseNmodMat s;
        s.rows = m;
        s.cols = n;
        s.p = p;
        s.row.resize(static_cast<std::size_t>(m));
        const std::uint64_t fill = 1 + rng.below(100);
        for (long i = 0; i < m; ++i)
            for (long j = 0; j < n; ++j)
                if (rng.below(100) < fill) {
                    const std::uint64_t v = 1 + rng.below(p - 1);
                    nmod_mat_entry(d.get(), i, j) = v;
                    s.row[static_cast<std::size_t>(i)].emplace_back(static_cast<std::uint32_t>(j), v);
                }
        SparseEchelon e = sparse_echelon(s, false);
        reduce_echelon(e);
        const SparseEchelon ref = dense_reduced_echelon(d);
        REQUIRE(e.rank == ref.rank);
        REQUIRE(e.rank == rank_sparse_modular(s));
        // the reduced row echelon form is unique: same rows once sorted by leading column
        std::vector<long> order(static_cast<std::size_t>(e.rank));
        for (long k = 0; k < e.rank; ++k) order[static_cast<std::size_t>(k)] = k;
        std::sort(order.begin(), order.end(), [&](long x, long y) { return e.pivot_cols[static_cast<std::size_t>(x)] < e.pivot_cols[static_cast<std::size_t>(y)]; });
        for (long k = 0; k < e.rank; ++k) {
            REQUIRE(e.pivot_cols[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] == ref.pivot_cols[static_cast<std::size_t>(k)]);
            REQUIRE(e.rows[static_cast<std::size_t>(order[static_cast<std::size_t>(k)])] == ref.rows[static_cast<std::size_t>(k)]);
        }
        // pivot k came from input row pivot_rows[k]
        for (long k = 0; k < e.rank; ++k) REQUIRE_FALSE(s.row[static_cast<std::size_t>(e.pivot_rows[static_cast<std::size_t>(k)])].empty());
    }
    SparseNmodMat bad;
    bad.p = 15;
    CHECK_THROWS_AS(sparse_echelon(bad), invalid_input);
}

TEST_CASE("degenerate shapes under both certificates") {
    for (Certificate c : {Certificate::pivot_span, Certificate::hadamard}) {
        CHECK(rank_certified(ZMat(0, 0), certificate_options(c, 1)).value == 0);
        CHECK(rank_certified(ZMat(0, 7), certificate_options(c, 1)).certified());
        CHECK(rank_certified(ZMat(7, 0), certificate_options(c, 1)).value == 0);
        CHECK(rank_certified(ZMat(5, 4), certificate_options(c, 1)).value == 0);
        CHECK(rank_certified(ZMat::from_rows({{Integer(0), Integer(0), Integer(3)}}), certificate_options(c, 1)).value == 1);
        // a column of huge equal entries: rank 1, tall and wide
        ZMat tall(30, 2), wide(2, 30);
        for (long i = 0; i < 30; ++i) {
            fmpz_set_str(fmpz_mat_entry(tall.get(), i, 0), "123456789012345678901234567890123456789", 10);
            fmpz_mul_si(fmpz_mat_entry(tall.get(), i, 1), fmpz_mat_entry(tall.get(), i, 0), -2);
            fmpz_set(fmpz_mat_entry(wide.get(), 0, i), fmpz_mat_entry(tall.get(), i, 0));
            fmpz_set(fmpz_mat_entry(wide.get(), 1, i), fmpz_mat_entry(tall.get(), i, 1));
        }
        const RankAnswer t = rank_certified(tall, certificate_options(c, 2)), w = rank_certified(wide, certificate_options(c, 2));
        CHECK(t.value == 1);
        CHECK(t.certified());
        CHECK(w.value == 1);
        CHECK(w.certified());
    }
    CHECK(to_string(Certificate::pivot_span) == "pivot-span");
    CHECK(certificate_from_string("hadamard") == Certificate::hadamard);
    CHECK_THROWS_AS(certificate_from_string("nope"), invalid_input);
}

TEST_CASE("every rank answer carries its phases") {
    auto rng = seprank_test::rng_for("certificate-phases");
    const ZMat a = random_rank(rng, 30, 20, 7, 8, 60);
    for (Certificate c : {Certificate::pivot_span, Certificate::hadamard}) {
        const RankAnswer r = rank_certified(a, certificate_options(c, 3));
        CHECK(r.phases.rank > 0);
        CHECK(r.phases.certificate > 0);
        CHECK(r.phases.expand == 0);
        CHECK(r.phases.rank + r.phases.certificate <= r.seconds + 1e-6);
        const Record rec = to_record(r);
        const auto& ph = rec.at("phases").as_named_reals();
        REQUIRE(ph.size() == 4);
        CHECK(ph[0].first == "expand");
        CHECK(ph[3].first == "certificate");
        CHECK(to_json(r).find("\"phases\":{\"expand\":") != std::string::npos);
    }
    RankOptions p;
    p.certify = false;
    const RankAnswer m = rank_certified(a, p);
    CHECK(m.phases.certificate == 0);
    CHECK(m.phases.rank > 0);
}
