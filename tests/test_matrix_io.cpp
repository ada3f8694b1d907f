#include "seprank/error.hpp"
#include "seprank/matrix_io.hpp"
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
