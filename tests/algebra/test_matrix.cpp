#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

using namespace seprank;

TEST_CASE("matrices hold and return their entries; reduction mod p is entrywise") {
    auto rng = seprank_test::rng_for("matrix-entries");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(1000); ++it) {
        const long r = static_cast<long>(rng.below(6)), c = static_cast<long>(rng.below(6));
        const std::uint64_t p = it % 3 == 0 ? 9223372036854775783ULL : 2 + rng.below(1000);
        std::vector<std::vector<Integer>> rows(static_cast<std::size_t>(r));
        for (auto& row : rows)
            for (long j = 0; j < c; ++j) row.push_back(rng.big(static_cast<unsigned>(rng.below(200))));
        ZMat a = ZMat::from_rows(rows);
        REQUIRE(a.rows() == r);
        REQUIRE(a.cols() == (r == 0 ? 0 : c));
        NmodMat ap = reduce_mod(a, p);
        REQUIRE(ap.modulus() == p);
        for (long i = 0; i < a.rows(); ++i)
            for (long j = 0; j < a.cols(); ++j) {
                const auto& e = rows[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
                REQUIRE(a.at(i, j) == e);
                REQUIRE(ap.at(i, j) == e.mod(p));
            }
        ZMat b = a;
        REQUIRE(b == a);
        if (r > 0 && c > 0) {
            b.set(0, 0, b.at(0, 0) + Integer(1));
            REQUIRE_FALSE(b == a);
        }
    }
}

TEST_CASE("shapes, indices and moduli are checked") {
    CHECK_THROWS_AS(ZMat(-1, 2), invalid_input);
    CHECK_THROWS_AS(NmodMat(2, 2, 1), invalid_input);
    CHECK_THROWS_AS(NmodMat(2, 2), invalid_input);
    CHECK_THROWS_AS(ZMat(2, 2, 7), invalid_input);
    ZMat a(2, 3);
    CHECK_THROWS_AS(a.at(2, 0), invalid_input);
    CHECK_THROWS_AS(a.set(0, 3, Integer(1)), invalid_input);
    CHECK_THROWS_AS(ZMat::from_rows({{Integer(1), Integer(2)}, {Integer(3)}}), invalid_input);
    ZMat empty(0, 5);
    CHECK(empty.rows() == 0);
    CHECK(empty.cols() == 5);
}

TEST_CASE("a matrix over the memory limit is refused before FLINT allocates it (resource_limit, naming the shape)") {
    const double before = default_max_memory();
    CHECK_THROWS_WITH_AS(ZMat(1L << 40, 1L << 40), doctest::Contains("a 1099511627776x1099511627776 matrix"), resource_limit);
    CHECK_THROWS_AS(NmodMat(1L << 40, 1L << 30, 7), resource_limit);
    CHECK_THROWS_AS(QMat(1L << 35, 1L << 35), resource_limit);
    set_default_max_memory(1 << 20);  // 1 MiB set by the caller: compared below 16 MiB too
    CHECK_THROWS_AS(ZMat(400, 400), resource_limit);    // 1.2 MiB
    CHECK_THROWS_AS(NmodMat(400, 400, 7), resource_limit);
    CHECK_NOTHROW(ZMat(300, 300));                      // 0.7 MiB
    CHECK_NOTHROW(QMat(200, 200));                      // 0.6 MiB at 16 bytes an entry
    CHECK_THROWS_AS(QMat(300, 300), resource_limit);    // 1.4 MiB
    set_default_max_memory(before);
    CHECK_NOTHROW(ZMat(400, 400));
    CHECK(ZMat(0, 1L << 40).cols() == (1L << 40));  // no entries, no storage: accepted
}

TEST_CASE("QMat and NmodMat values, moves") {
    QMat q = QMat::from_rows({{Rational(Integer(1), Integer(2)), Rational(3)}});
    CHECK(q.at(0, 0).str() == "1/2");
    QMat q2 = std::move(q);
    CHECK(q2.at(0, 1).str() == "3");
    NmodMat m(1, 1, 7);
    m.set(0, 0, 15);
    CHECK(m.at(0, 0) == 1);
    NmodMat m2(std::move(m));
    CHECK(m2.at(0, 0) == 1);
    CHECK(m2.modulus() == 7);
}
