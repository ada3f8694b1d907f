#include "seprank/error.hpp"
#include "seprank/matrix_io.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"
#include "support.hpp"

#include <cstdio>
#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

using namespace seprank;

namespace {

SparseZMat random_sparse(Rng& rng) {
    SparseZMat a;
    a.rows = static_cast<long>(rng.below(8));
    a.cols = static_cast<long>(rng.below(8));
    a.row.assign(static_cast<std::size_t>(a.rows), {});
    for (auto& r : a.row)
        for (long j = 0; j < a.cols; ++j)
            if (rng.below(3) == 0) {
                std::string digits = rng.below(2) ? "-" : "";
                digits += std::to_string(1 + rng.below(9));
                for (std::uint64_t k = rng.below(40); k > 0; --k) digits += std::to_string(rng.below(10));
                r.emplace_back(j, Integer(digits));
            }
    return a;
}

bool same(const SparseZMat& a, const SparseZMat& b) {
    if (a.rows != b.rows || a.cols != b.cols || a.row.size() != b.row.size()) return false;
    for (std::size_t i = 0; i < a.row.size(); ++i) {
        if (a.row[i].size() != b.row[i].size()) return false;
        for (std::size_t k = 0; k < a.row[i].size(); ++k)
            if (a.row[i][k].first != b.row[i][k].first || a.row[i][k].second.str() != b.row[i][k].second.str()) return false;
    }
    return true;
}

}  // namespace

TEST_CASE("Matrix Market round trip, big entries and empty shapes included") {
    auto rng = seprank_test::rng_for("matrix-market-roundtrip");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const SparseZMat a = random_sparse(rng);
        const std::string text = matrix_market_text(a);
        INFO(text);
        CHECK(same(parse_matrix_market(text), a));
    }
}

TEST_CASE("Matrix Market array format, comments, blank lines, unsorted coordinates, zeros dropped") {
    const SparseZMat a = parse_matrix_market("%%MatrixMarket matrix array integer general\n% a comment\n\n2 3\n1\n0\n-2\n3\n0\n+5\n");
    REQUIRE(a.rows == 2);
    REQUIRE(a.cols == 3);
    // column-major: (1,1)=1 (2,1)=0 (1,2)=-2 (2,2)=3 (1,3)=0 (2,3)=5
    CHECK(a.row[0].size() == 2);
    CHECK(a.row[0][1].second.str() == "-2");
    CHECK(a.row[1][1].first == 2);
    CHECK(a.row[1][1].second.str() == "5");
    const SparseZMat b = parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n2 2 3\n2 2 7\n1 2 0\n1 1 -1\n");
    CHECK(b.nnz() == 2);
    CHECK(b.row[0][0].second.str() == "-1");
    CHECK(b.row[1][0].first == 1);
}

TEST_CASE("bad Matrix Market input is refused with the line and the value") {
    auto refuses = [](const std::string& text, const std::string& needle) {
        try {
            parse_matrix_market(text, "m");
        } catch (const invalid_input& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(needle) != std::string::npos);
            return;
        }
        FAIL("accepted: " << text);
    };
    refuses("hello\n", "expected '%%MatrixMarket");
    refuses("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5\n", "field 'real'");
    refuses("%%MatrixMarket matrix coordinate integer symmetric\n1 1 0\n", "symmetry 'symmetric'");
    refuses("%%MatrixMarket matrix sparse integer general\n1 1 0\n", "format 'sparse'");
    refuses("%%MatrixMarket matrix coordinate integer general\n", "missing the size line");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 x 1\n", "cols 'x'");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 2 1\n3 1 4\n", "index (3, 1)");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 4\n", "ends after 1 of 2");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 4\n1 1 5\n", "given twice");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 4x\n", "entry '4x'");
    refuses("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 4\n2 2 1\n", "after the last entry");
    refuses("%%MatrixMarket matrix array integer general\n2 1\n1\n", "before entry (2, 1)");
}

TEST_CASE("Matrix Market: a zero named twice is a duplicate; empty sides are not looped over; long entries are cut in messages") {
    CHECK_THROWS_WITH_AS(parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 5\n1 1 0\n", "m"),
                         doctest::Contains("entry (1, 1) is given twice"), invalid_input);
    CHECK_THROWS_WITH_AS(parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n2 2 2\n2 1 0\n2 1 0\n", "m"),
                         doctest::Contains("entry (2, 1) is given twice"), invalid_input);
    // 0 x 10^12 in array format: no entries, read at once (it looped over the columns).
    const SparseZMat z = parse_matrix_market("%%MatrixMarket matrix array integer general\n0 1000000000000\n");
    CHECK(z.rows == 0);
    CHECK(z.cols == 1000000000000L);
    CHECK(rank_certified(z).value == 0);
    try {
        parse_matrix_market("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 " + std::string(50000, '7') + "x\n", "m");
        FAIL("accepted a bad entry");
    } catch (const invalid_input& e) {
        const std::string msg = e.what();
        CHECK(msg.size() < 200);
        CHECK(msg.find("(50001 characters)") != std::string::npos);
    }
}

TEST_CASE("write_matrix_market writes the whole file or nothing") {
    auto rng = seprank_test::rng_for("matrix-market-file");
    const auto dir = std::filesystem::temp_directory_path() / ("seprank_mm_" + std::to_string(seprank_test::seed()) + "_" + std::to_string(rng.next() % 100000));
    std::filesystem::create_directories(dir);
    const SparseZMat a = random_sparse(rng);
    const std::string path = (dir / "a.mtx").string();
    write_matrix_market(a, path);
    CHECK(same(read_matrix_market(path), a));
    CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
    CHECK_THROWS_AS(write_matrix_market(a, (dir / "missing" / "b.mtx").string()), invalid_input);
    CHECK_FALSE(std::filesystem::exists(dir / "missing"));
    CHECK_THROWS_AS(read_matrix_market((dir / "none.mtx").string()), invalid_input);
    std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------- rational matrices

namespace {

// A random m x n rational matrix B·C with inner dimension r (rank <= r), entries
// num/den with small numerators and denominators up to 30, about half of them zero.
QMat random_rational_low_rank(Rng& rng, long m, long n, long r) {
    auto draw = [&](long rows, long cols) {
        QMat a(rows, cols);
        for (long i = 0; i < rows; ++i)
            for (long j = 0; j < cols; ++j)
                if (rng.below(2)) a.set(i, j, Rational(Integer(rng.range(-9, 9)), Integer(rng.range(1, 30))));
        return a;
    };
    const QMat b = draw(m, r), c = draw(r, n);
    QMat a(m, n);
    fmpq_mat_mul(a.get(), b.get(), c.get());
    return a;
}

SparseQMat to_sparse(const QMat& a) {
    SparseQMat s;
    s.rows = a.rows();
    s.cols = a.cols();
    s.row.resize(static_cast<std::size_t>(a.rows()));
    for (long i = 0; i < a.rows(); ++i)
        for (long j = 0; j < a.cols(); ++j)
            if (Rational v = a.at(i, j); !v.is_zero()) s.row[static_cast<std::size_t>(i)].emplace_back(j, v);
    return s;
}

// The slow reference: rank over Q by fmpq_mat_rref on a copy.
long rank_over_q(const QMat& a) {
    QMat r = a;
    return fmpq_mat_rref(r.get(), a.get());
}

}  // namespace

TEST_CASE("clear_denominators: row i times the lcm of its denominators, the rank over Q kept") {
    auto rng = seprank_test::rng_for("clear-denominators");
    INFO("seed " << seprank_test::seed() << " (SEPRANK_SEED overrides)");
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const long m = static_cast<long>(rng.below(7)), n = static_cast<long>(rng.below(7)), r = static_cast<long>(rng.below(5));
        const QMat a = random_rational_low_rank(rng, m, n, r);
        const SparseQMat s = to_sparse(a);
        const SparseZMat b = clear_denominators(s);
        const ZMat dense = clear_denominators(a);
        INFO("iteration " << it << ": " << m << " x " << n << ", inner dimension " << r);
        REQUIRE(b.rows == m);
        REQUIRE(b.cols == n);
        CHECK(b.to_dense() == dense);  // the sparse and the dense forms agree
        for (std::size_t i = 0; i < s.row.size(); ++i) {
            REQUIRE(b.row[i].size() == s.row[i].size());
            // Every entry is d_i times A's, for one d_i per row: B_ij / A_ij is the same
            // integer along the row, and the smallest such (gcd of d_i / den_ij is 1).
            Integer g(0);
            for (std::size_t k = 0; k < s.row[i].size(); ++k) {
                CHECK(b.row[i][k].first == s.row[i][k].first);
                const Rational ratio = Rational(b.row[i][k].second) / s.row[i][k].second;
                CHECK(ratio.is_integer());
                CHECK(ratio == Rational(b.row[i][0].second) / s.row[i][0].second);
                const Rational cofactor = ratio / Rational(s.row[i][k].second.den());  // d_i / den_ij
                CHECK(cofactor.is_integer());
                fmpz_gcd(g.get(), g.get(), fmpq_numref(cofactor.get()));
            }
            if (!s.row[i].empty()) CHECK(g.str() == "1");
        }
        const long want = rank_over_q(a);
        CHECK(rank_certified(b).value == want);
        CHECK(rank_certified(dense).value == want);
    }
}

TEST_CASE("rational Matrix Market files: a/b entries, and their errors with the line") {
    const SparseQMat a = parse_matrix_market_rational(
        "%%MatrixMarket matrix coordinate rational general\n% c\n2 3 3\n1 1 1/2\n2 3 -4/6\n1 2 +3\n");
    REQUIRE(a.nnz() == 3);
    CHECK(a.row[0][0].second.str() == "1/2");
    CHECK(a.row[0][1].second.str() == "3");
    CHECK(a.row[1][0].first == 2);
    CHECK(a.row[1][0].second.str() == "-2/3");
    const SparseZMat b = clear_denominators(a);
    CHECK(b.row[0][0].second.str() == "1");  // row 1 times 2
    CHECK(b.row[0][1].second.str() == "6");
    CHECK(b.row[1][0].second.str() == "-2");  // row 2 times 3
    // An array file, and an integer file read as rational.
    const SparseQMat c = parse_matrix_market_rational("%%MatrixMarket matrix array rational general\n2 1\n0\n7/3\n");
    CHECK(c.nnz() == 1);
    CHECK(c.row[1][0].second.str() == "7/3");
    CHECK(parse_matrix_market_rational("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -5\n").row[0][0].second.str() == "-5");

    auto refuses = [](auto parse, const std::string& text, const std::string& needle) {
        try {
            parse(text);
        } catch (const invalid_input& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(needle) != std::string::npos);
            return;
        }
        FAIL("accepted: " << text);
    };
    auto rational = [](const std::string& t) { return parse_matrix_market_rational(t, "m"); };
    auto integer = [](const std::string& t) { return parse_matrix_market(t, "m"); };
    const std::string head = "%%MatrixMarket matrix coordinate rational general\n2 2 1\n";
    refuses(rational, head + "1 1 3/0\n", "m, line 3: entry '3/0' has a zero denominator");
    // a sign on the denominator, as the weights and templates files take it (it was refused here alone)
    CHECK(rational(head + "1 1 3/-2\n").row[0][0].second.str() == "-3/2");
    CHECK(rational(head + "1 1 -3/-2\n").row[0][0].second.str() == "3/2");
    CHECK(rational(head + "1 1 3/+2\n").row[0][0].second.str() == "3/2");
    refuses(rational, head + "1 1 3/-0\n", "entry '3/-0' has a zero denominator");
    refuses(rational, head + "1 1 3/--2\n", "entry '3/--2' is not an integer or a fraction a/b");
    refuses(rational, head + "1 1 3/-\n", "entry '3/-' is not an integer or a fraction a/b");
    // a UTF-8 byte-order mark before the header is skipped, as the other readers skip it
    CHECK(integer("\xEF\xBB\xBF%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -5\n").row[0][0].second.str() == "-5");
    CHECK(rational("\xEF\xBB\xBF" + head + "1 1 1/2\n").row[0][0].second.str() == "1/2");
    refuses(integer, "\xEF\xBB\xBF\xEF\xBB\xBF%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -5\n", "line 1: expected");  // one mark only
    refuses(rational, head + "1 1 1/2/3\n", "entry '1/2/3'");
    refuses(rational, head + "1 1 /2\n", "entry '/2'");
    refuses(rational, head + "1 1 0.5\n", "entry '0.5'");
    refuses(rational, "%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1/2\n", "field rational takes a/b");
    refuses(integer, head + "1 1 1/2\n", "read_matrix_market_rational");
    refuses(rational, "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.5\n", "field 'real'");
}
