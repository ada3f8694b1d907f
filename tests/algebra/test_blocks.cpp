// The block certificate (blocks.hpp): connected blocks against a planted structure, the
// per-block rank against the global references (pivot-span, Hadamard, fraction-free) on
// random block matrices of chosen block ranks and on network flattenings, kernels of
// deficient blocks, a forced wrong rank, the budget, cancellation, Matrix Market input.
#include "seprank/blocks.hpp"
#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/matrix_io.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/rank.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <set>

using namespace seprank;
using seprank_test::certificate_options;
using seprank_test::random_rank;

namespace {

// A block-diagonal matrix of the given block shapes and ranks, then rows and columns
// shuffled; `planted` gets each block's rows and columns (in the shuffled numbering).
struct Planted {
    SparseZMat a;
    std::vector<MatrixBlock> blocks;  // as planted (a block of rank 0 is no block of a)
    long rank = 0;
};

Planted plant(Rng& rng, const std::vector<std::array<long, 3>>& shapes, unsigned bits, long ops, long zero_rows, long zero_cols) {
    long m = zero_rows, n = zero_cols;
    for (const auto& s : shapes) {
        m += s[0];
        n += s[1];
    }
    std::vector<long> pr(static_cast<std::size_t>(m)), pc(static_cast<std::size_t>(n));
    std::iota(pr.begin(), pr.end(), 0L);
    std::iota(pc.begin(), pc.end(), 0L);
    for (long i = m - 1; i > 0; --i) std::swap(pr[static_cast<std::size_t>(i)], pr[rng.below(static_cast<std::uint64_t>(i + 1))]);
    for (long j = n - 1; j > 0; --j) std::swap(pc[static_cast<std::size_t>(j)], pc[rng.below(static_cast<std::uint64_t>(j + 1))]);
    Planted out;
    out.a.rows = m;
    out.a.cols = n;
    out.a.row.resize(static_cast<std::size_t>(m));
    long r0 = 0, c0 = 0;
    for (const auto& s : shapes) {
        const ZMat b = random_rank(rng, s[0], s[1], s[2], bits, ops);
        MatrixBlock mb;
        for (long i = 0; i < s[0]; ++i) mb.rows.push_back(pr[static_cast<std::size_t>(r0 + i)]);
        for (long j = 0; j < s[1]; ++j) mb.cols.push_back(pc[static_cast<std::size_t>(c0 + j)]);
        for (long i = 0; i < s[0]; ++i)
            for (long j = 0; j < s[1]; ++j) {
                const fmpz* e = fmpz_mat_entry(b.get(), i, j);
                if (!fmpz_is_zero(e)) out.a.row[static_cast<std::size_t>(mb.rows[static_cast<std::size_t>(i)])].emplace_back(mb.cols[static_cast<std::size_t>(j)], Integer(e));
            }
        out.rank += s[2];
        out.blocks.push_back(std::move(mb));
        r0 += s[0];
        c0 += s[1];
    }
    for (auto& row : out.a.row) std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return out;
}

}  // namespace

TEST_CASE("connected blocks: every non-zero in exactly one block, planted blocks never split across") {
    auto rng = seprank_test::rng_for("blocks-components");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        std::vector<std::array<long, 3>> shapes;
        const long k = static_cast<long>(rng.below(6));
        for (long b = 0; b < k; ++b) {
            const long m = 1 + static_cast<long>(rng.below(8)), n = 1 + static_cast<long>(rng.below(8));
            shapes.push_back({m, n, static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(m, n) + 1)))});
        }
        const Planted p = plant(rng, shapes, 5, static_cast<long>(rng.below(20)), static_cast<long>(rng.below(3)), static_cast<long>(rng.below(3)));
        INFO("iteration " << it);
        const auto blocks = connected_blocks(p.a);
        std::vector<long> row_block(static_cast<std::size_t>(p.a.rows), -1), col_block(static_cast<std::size_t>(p.a.cols), -1);
        for (std::size_t b = 0; b < blocks.size(); ++b) {
            REQUIRE(std::is_sorted(blocks[b].rows.begin(), blocks[b].rows.end()));
            REQUIRE(std::is_sorted(blocks[b].cols.begin(), blocks[b].cols.end()));
            REQUIRE(!blocks[b].rows.empty());
            REQUIRE(!blocks[b].cols.empty());
            if (b > 0) REQUIRE(blocks[b - 1].rows.front() < blocks[b].rows.front());
            for (long i : blocks[b].rows) {
                REQUIRE(row_block[static_cast<std::size_t>(i)] < 0);
                row_block[static_cast<std::size_t>(i)] = static_cast<long>(b);
            }
            for (long j : blocks[b].cols) {
                REQUIRE(col_block[static_cast<std::size_t>(j)] < 0);
                col_block[static_cast<std::size_t>(j)] = static_cast<long>(b);
            }
        }
        std::size_t nnz = 0;
        for (long i = 0; i < p.a.rows; ++i) {
            REQUIRE((row_block[static_cast<std::size_t>(i)] < 0) == p.a.row[static_cast<std::size_t>(i)].empty());
            for (const auto& e : p.a.row[static_cast<std::size_t>(i)]) REQUIRE(col_block[static_cast<std::size_t>(e.first)] == row_block[static_cast<std::size_t>(i)]);
        }
        for (const auto& b : blocks) nnz += submatrix(p.a, b).nnz();
        REQUIRE(nnz == p.a.nnz());
        // a component never joins two planted blocks (a sparse planted block may split)
        std::vector<long> planted_of(static_cast<std::size_t>(p.a.rows), -1);
        for (std::size_t q = 0; q < p.blocks.size(); ++q)
            for (long i : p.blocks[q].rows) planted_of[static_cast<std::size_t>(i)] = static_cast<long>(q);
        for (const auto& b : blocks) {
            std::set<long> seen;
            for (long i : b.rows) seen.insert(planted_of[static_cast<std::size_t>(i)]);
            REQUIRE(seen.size() == 1);
        }
    }
    // extremes: empty, zero, one entry, a 1×n row and an n×1 column
    CHECK(connected_blocks(SparseZMat{}).empty());
    SparseZMat z;
    z.rows = 3;
    z.cols = 4;
    z.row.resize(3);
    CHECK(connected_blocks(z).empty());
    z.row[1].emplace_back(2, Integer(5));
    auto one = connected_blocks(z);
    REQUIRE(one.size() == 1);
    CHECK(one[0].rows == std::vector<long>{1});
    CHECK(one[0].cols == std::vector<long>{2});
    MatrixBlock bad{{0}, {9}};
    CHECK_THROWS_AS(submatrix(z, bad), invalid_input);
}

TEST_CASE("blocks agree with pivot-span and Hadamard on block matrices of chosen block ranks") {
    auto rng = seprank_test::rng_for("blocks-random");
    INFO("seed " << seprank_test::seed());
    int deficient = 0, several = 0;
    for (int it = 0; it < seprank_test::iterations(150); ++it) {
        std::vector<std::array<long, 3>> shapes;
        const int kind = it % 6;  // 0 full, 1 deficient, 2 rank 0, 3 one block, 4 1×n and n×1 blocks, 5 mixed
        const long k = kind == 3 ? 1 : 1 + static_cast<long>(rng.below(6));
        for (long b = 0; b < k; ++b) {
            long m = 1 + static_cast<long>(rng.below(14)), n = 1 + static_cast<long>(rng.below(14));
            if (kind == 4) (b % 2 ? m : n) = 1;
            const long full = std::min(m, n);
            long r = static_cast<long>(rng.below(static_cast<std::uint64_t>(full + 1)));
            if (kind == 0 || kind == 4) r = full;
            if (kind == 1) r = std::max(0L, full - 1 - static_cast<long>(rng.below(3)));
            if (kind == 2) r = 0;
            shapes.push_back({m, n, r});
        }
        const unsigned bits = it % 5 == 0 ? 120 : 1 + static_cast<unsigned>(rng.below(12));
        const Planted p = plant(rng, shapes, bits, static_cast<long>(rng.below(60)), static_cast<long>(rng.below(3)), static_cast<long>(rng.below(3)));
        INFO("iteration " << it << ": " << p.a.rows << "x" << p.a.cols << " planted rank " << p.rank);
        const std::uint64_t s = rng.next();
        const RankAnswer blk = rank_certified(p.a, certificate_options(Certificate::blocks, s));
        const RankAnswer span = rank_certified(p.a, certificate_options(Certificate::pivot_span, s));
        const RankAnswer had = rank_certified(p.a, certificate_options(Certificate::hadamard, s));
        REQUIRE(blk.certified());
        REQUIRE(blk.value == p.rank);
        REQUIRE(span.value == p.rank);
        REQUIRE(had.value == p.rank);
        REQUIRE(blk.field == "Q");
        if (p.a.rows * p.a.cols <= 400) REQUIRE(rank_fraction_free(p.a.to_dense()) == p.rank);
        if (blk.variant == "blocks") {
            REQUIRE(std::accumulate(blk.block_ranks.begin(), blk.block_ranks.end(), 0L) == p.rank);
            REQUIRE(blk.block_ranks.size() == connected_blocks(p.a).size());
            for (long b : blk.kernel_blocks) REQUIRE(b < static_cast<long>(blk.block_ranks.size()));
            deficient += !blk.kernel_blocks.empty();
            several += blk.block_ranks.size() > 1;
            REQUIRE(blk.phases.rank >= 0);
            REQUIRE(blk.phases.certificate >= 0);
        }
    }
    CHECK(deficient > 30);
    CHECK(several > 50);
}

TEST_CASE("blocks on products with a large kernel, and on network flattenings") {
    auto rng = seprank_test::rng_for("blocks-kernel");
    INFO("seed " << seprank_test::seed());
    // One 60×50 block of rank 8 (kernel of dimension 42) with 30-bit factors, beside two
    // small full blocks.
    ZMat x(60, 8), y(8, 50);
    for (long i = 0; i < 60; ++i)
        for (long j = 0; j < 8; ++j) fmpz_set(fmpz_mat_entry(x.get(), i, j), rng.big(30).get());
    for (long i = 0; i < 8; ++i)
        for (long j = 0; j < 50; ++j) fmpz_set(fmpz_mat_entry(y.get(), i, j), rng.big(30).get());
    ZMat big(60, 50);
    fmpz_mat_mul(big.get(), x.get(), y.get());
    SparseZMat a = SparseZMat::from_dense(big);
    a.rows += 2;
    a.cols += 3;
    a.row.push_back({{50, Integer(3)}, {51, Integer(-4)}});
    a.row.push_back({{52, Integer(7)}});
    const RankAnswer r = rank_certified(a, certificate_options(Certificate::blocks, 5));
    CHECK(r.certified());
    CHECK(r.value == 10);
    CHECK(r.block_ranks == std::vector<long>{8, 1, 1});
    CHECK(r.kernel_blocks == std::vector<long>{0});
    CHECK(r.kernel_bits > 30);
    CHECK(r.note.find("checked exactly") != std::string::npos);
    KernelOptions ko;
    ko.seed = 5;
    const KernelProof kp = prove_rank_at_most(SparseZMat::from_dense(big), 8, ko);
    CHECK(kp.proven);
    CHECK(kp.kernel_dim == 42);
    CHECK(kp.digits >= 2);

    // Attention flattenings (homogeneous: one block per degree), seed-1 and random weights.
    for (auto [n, dx, depth] : {std::array<long, 3>{2, 2, 2}, {3, 2, 2}, {2, 2, 3}, {4, 1, 2}}) {
        for (std::uint64_t wseed : {std::uint64_t{1}, rng.next()}) {
            const Network net = random_network(seprank_test::attention_spec(n, dx, depth), wseed);
            const SparseZMat c = flatten(expand(net), balanced_partition(n), n);
            INFO("attention N=" << n << " dx=" << dx << " L=" << depth << " weights seed " << wseed);
            const RankAnswer blk = rank_certified(c, certificate_options(Certificate::blocks, wseed));
            const RankAnswer ref = rank_certified(c, certificate_options(Certificate::hadamard, wseed));
            REQUIRE(blk.certified());
            REQUIRE(ref.certified());
            REQUIRE(blk.value == ref.value);
            if (blk.variant == "blocks") REQUIRE(blk.block_ranks.size() >= 2);
        }
    }
}

TEST_CASE("a wrong rank forced into the certificate is rejected") {
    auto rng = seprank_test::rng_for("blocks-wrong-rank");
    INFO("seed " << seprank_test::seed());
    int checked = 0;
    for (int it = 0; it < seprank_test::iterations(120); ++it) {
        const long m = 1 + static_cast<long>(rng.below(20)), n = 1 + static_cast<long>(rng.below(20));
        const long r = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(m, n))));
        const ZMat d = random_rank(rng, m, n, r, it % 4 == 0 ? 90 : 6, static_cast<long>(rng.below(50)));
        const SparseZMat a = SparseZMat::from_dense(d);
        INFO("iteration " << it << ": " << m << "x" << n << " rank " << r);
        KernelOptions ko;
        ko.seed = rng.next();
        const KernelProof right = prove_rank_at_most(a, r, ko);
        REQUIRE(right.proven);
        REQUIRE(right.claimed == r);
        const KernelProof wrong = prove_rank_at_most(a, r - 1, ko);
        REQUIRE_FALSE(wrong.proven);
        REQUIRE(wrong.claimed == r - 1);
        REQUIRE_FALSE(wrong.reason.empty());
        // a claim above the rank proves the rank itself
        const KernelProof above = prove_rank_at_most(a, r + 3, ko);
        REQUIRE(above.proven);
        REQUIRE(above.claimed == r);
        ++checked;
    }
    CHECK(checked == seprank_test::iterations(120));
    CHECK_THROWS_AS(prove_rank_at_most(SparseZMat{}, -1), invalid_input);
    KernelOptions composite;
    composite.p = 91;
    CHECK_THROWS_AS(prove_rank_at_most(SparseZMat{}, 0, composite), invalid_input);
}

TEST_CASE("blocks: a kernel past the budget is loud, and cancellation stops the lifting") {
    auto rng = seprank_test::rng_for("blocks-budget");
    INFO("seed " << seprank_test::seed());
    // Rank 20 of 40×40 with 200-bit factors: the kernel needs many p-adic digits.
    const SparseZMat s = SparseZMat::from_dense(seprank_test::product_of_big_factors(rng, 40, 40, 20, 200));
    RankOptions none = certificate_options(Certificate::blocks, 3);
    none.max_certify_seconds = 0;
    const RankAnswer r = rank_certified(s, none);
    CHECK(r.value == 20);
    CHECK_FALSE(r.certified());  // neither the kernel nor the Hadamard reference within 0 s
    CHECK(r.failure_bound > 0);
    CHECK(r.failure_bound < 1e-6);
    CHECK(r.note.find("not lifted within the budget") != std::string::npos);
    // with a budget it is exact
    CHECK(rank_certified(s, certificate_options(Certificate::blocks, 3)).certified());

    // A check that fires at its third poll: the lifting polls once per digit.
    int calls = 0;
    {
        CancelScope scope([&] { return ++calls >= 3; }, 0);
        CHECK_THROWS_AS(prove_rank_at_most(s, 20), cancelled);
    }
    CHECK(calls == 3);
    {
        CancelScope scope([] { return true; }, 0);
        CHECK_THROWS_AS(rank_certified(s, certificate_options(Certificate::blocks, 3)), cancelled);
    }
}

TEST_CASE("blocks: a block-structured Matrix Market file") {
    auto rng = seprank_test::rng_for("blocks-mtx");
    INFO("seed " << seprank_test::seed());
    const Planted p = plant(rng, {{5, 7, 3}, {6, 4, 4}, {1, 9, 1}, {8, 8, 2}}, 40, 30, 2, 1);
    const std::string path = (std::filesystem::temp_directory_path() / ("seprank_blocks_" + std::to_string(seprank_test::seed()) + ".mtx")).string();
    write_matrix_market(p.a, path);
    const SparseZMat back = read_matrix_market(path);
    std::remove(path.c_str());
    const RankAnswer r = rank_certified(back);  // the default certificate
    CHECK(r.variant == "blocks");
    CHECK(r.certified());
    CHECK(r.value == 10);
    CHECK(std::accumulate(r.block_ranks.begin(), r.block_ranks.end(), 0L) == 10);
    CHECK(r.block_ranks.size() >= 4);     // planted blocks may split further, never merge
    CHECK(r.kernel_blocks.size() >= 1);   // the rank-2 8×8 block at least is deficient
}

TEST_CASE("a rank mod p that meets the sum of the connected blocks' smaller sides is exact") {
    auto rng = seprank_test::rng_for("blocks-field-p");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < 20; ++it) {
        CAPTURE(it);
        // dense blocks (many operations), each of full rank on its smaller side or one short
        const bool short_one = it % 2 == 1;
        const Planted p = plant(rng, {{5, 7, short_one ? 4 : 5}, {6, 4, 4}, {3, 3, 3}}, 8, 400, 2, 1);
        RankOptions o;
        o.certify = false;
        o.seed = static_cast<std::uint64_t>(it) + 1;
        if (it % 4 >= 2) o.prime = 4611686018427387847ULL;  // a prime given, not drawn
        const RankAnswer r = rank_certified(p.a, o);
        CHECK(r.value == p.rank);
        CHECK(r.value < std::min(p.a.rows, p.a.cols));
        if (short_one) {
            CHECK_FALSE(r.certified());  // 11 < 12: the blocks' sides do not bound it
            CHECK(r.note.find("connected blocks") == std::string::npos);
        } else {
            CHECK(r.certified());
            CHECK(r.failure_bound == 0);
            CHECK(r.note.find("connected blocks") != std::string::npos);
        }
    }
}
