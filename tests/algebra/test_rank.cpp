#include "seprank/error.hpp"
#include "seprank/blocks.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"
#include "blocked_cases.hpp"
#include "support.hpp"
#include "algebra/blocked_rank_impl.hpp"
#include "algebra/rank_blocked.hpp"
#include "algebra/rank_bordered.hpp"
#include "algebra/rank_internal.hpp"

#include <flint/fmpz_lll.h>
#include <flint/ulong_extras.h>

#include <doctest/doctest.h>
#include <set>
#include <cmath>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace seprank;

namespace {

// A·B with A m×r, B r×n random integers of `bits` bits: rank ≤ r, = r generically.
ZMat constructed_rank(Rng& rng, long m, long n, long r, unsigned bits, double density = 1.0) {
    ZMat a(m, r), b(r, n), c(m, n);
    for (long i = 0; i < m; ++i)
        for (long k = 0; k < r; ++k)
            if (rng.below(1000) < density * 1000) fmpz_set(fmpz_mat_entry(a.get(), i, k), rng.big(bits).get());
    for (long k = 0; k < r; ++k)
        for (long j = 0; j < n; ++j)
            if (rng.below(1000) < density * 1000) fmpz_set(fmpz_mat_entry(b.get(), k, j), rng.big(bits).get());
    if (m > 0 && n > 0 && r > 0) fmpz_mat_mul(c.get(), a.get(), b.get());
    return c;
}

}  // namespace

TEST_CASE("every variant agrees with fraction-free elimination on matrices of constructed rank") {
    auto rng = seprank_test::rng_for("rank-variants");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(1000); ++it) {
        const long m = static_cast<long>(rng.below(12)), n = static_cast<long>(rng.below(12));
        const long r = static_cast<long>(rng.below(8));
        const unsigned bits = it % 10 == 0 ? 200 : 1 + static_cast<unsigned>(rng.below(12));
        const double density = it % 3 == 0 ? 0.3 : 1.0;
        ZMat a = constructed_rank(rng, m, n, r, bits, density);
        INFO("iteration " << it << ": " << m << "x" << n << " inner " << r << " bits " << bits);
        const long ref = rank_fraction_free(a);
        REQUIRE(ref <= std::min({m, n, r}));
        REQUIRE(ref == fmpz_mat_rank(a.get()));  // FLINT as a second reference
        // modular: a lower bound; with a 62-bit prime it is equal here except with negligible chance
        const std::uint64_t p = random_prime(rng, 62);
        REQUIRE(rank_modular(a, p) == ref);
        REQUIRE(rank_modular(SparseZMat::from_dense(a), p) == ref);
        const RankAnswer cr = rank_certified(a, RankOptions{rng.next()});
        REQUIRE(cr.certified());
        REQUIRE(cr.value == ref);
        REQUIRE(cr.field == "Q");
    }
}

TEST_CASE("small primes give lower bounds, never higher ranks") {
    auto rng = seprank_test::rng_for("rank-small-primes");
    INFO("seed " << seprank_test::seed());
    int strictly_lower = 0;
    for (int it = 0; it < seprank_test::iterations(500); ++it) {
        ZMat a = constructed_rank(rng, 6, 6, 1 + static_cast<long>(rng.below(6)), 8);
        const long ref = rank_fraction_free(a);
        for (std::uint64_t p : {2ULL, 3ULL, 5ULL}) {
            const long rp = rank_modular(a, p);
            REQUIRE(rp <= ref);
            REQUIRE(rank_modular(SparseZMat::from_dense(a), p) == rp);
            strictly_lower += rp < ref;
        }
    }
    CHECK(strictly_lower > 0);  // the bound is not vacuous: small primes do lose rank
}

TEST_CASE("a composite modulus is refused, not passed to FLINT") {
    ZMat a = ZMat::from_rows({{Integer(2), Integer(1)}, {Integer(4), Integer(3)}});
    CHECK_THROWS_AS(rank_modular(a, 4), invalid_input);
    CHECK_THROWS_AS(rank_modular(SparseZMat::from_dense(a), 6), invalid_input);
    CHECK(rank_modular(a, 7) == 2);
}

TEST_CASE("degenerate and extreme shapes") {
    CHECK(rank_fraction_free(ZMat(0, 0)) == 0);
    CHECK(rank_fraction_free(ZMat(0, 5)) == 0);
    CHECK(rank_fraction_free(ZMat(4, 3)) == 0);
    CHECK(rank_certified(ZMat(3, 0)).value == 0);
    CHECK(rank_certified(ZMat(3, 4)).certified());
    ZMat one = ZMat::from_rows({{Integer(0), Integer(0)}, {Integer(0), Integer(7)}});
    CHECK(rank_certified(one).value == 1);
    // p near 2^63 and 2^64
    auto rng = seprank_test::rng_for("rank-extreme");
    ZMat a = constructed_rank(rng, 20, 30, 9, 100);
    for (std::uint64_t p : {9223372036854775783ULL, 18446744073709551557ULL}) {
        CHECK(rank_modular(a, p) == 9);
        CHECK(rank_modular(SparseZMat::from_dense(a), p) == 9);
    }
    // tall and wide, rank 1
    ZMat tall = constructed_rank(rng, 200, 3, 1, 30), wide = constructed_rank(rng, 3, 200, 1, 30);
    CHECK(rank_certified(tall).value == 1);
    CHECK(rank_certified(wide).value == 1);
    CHECK(rank_certified(tall).certified());
}

TEST_CASE("a hand-built sparse matrix is checked before any elimination; so are the options (invalid_input naming the value)") {
    auto refused = [](const SparseZMat& a, const std::string& fragment) {
        INFO("expect: " << fragment);
        CHECK_THROWS_WITH_AS(check_matrix(a), doctest::Contains(fragment.c_str()), invalid_input);
        CHECK_THROWS_WITH_AS((void)rank_certified(a), doctest::Contains(fragment.c_str()), invalid_input);
        CHECK_THROWS_AS((void)rank_modular(a, 101), invalid_input);
        CHECK_THROWS_AS((void)reduce_mod(a, 101), invalid_input);
        CHECK_THROWS_AS((void)connected_blocks(a), invalid_input);
        CHECK_THROWS_AS((void)prove_rank_at_most(a, 1), invalid_input);
        CHECK_THROWS_WITH_AS((void)drop_empty_lines(a), doctest::Contains(fragment.c_str()), invalid_input);
        CHECK_THROWS_WITH_AS((void)log2_hadamard_bound(a, 1), doctest::Contains(fragment.c_str()), invalid_input);
        if (fragment.find("outside") != std::string::npos) {  // a column out of range: the GPU rank's sparse
                                                             // form refuses it before asking for a device
            SparseNmodMat m;
            m.rows = a.rows;
            m.cols = a.cols;
            m.p = 101;
            for (const auto& r : a.row) {
                m.row.emplace_back();
                for (const auto& [j, v] : r) m.row.back().push_back({static_cast<std::uint32_t>(j), 1});
            }
            CHECK_THROWS_WITH_AS((void)rank_modular_cuda(m), doctest::Contains("outside"), invalid_input);
        }
    };
    SparseZMat a;
    a.rows = 2;
    a.cols = 2;
    a.row = {{{0, Integer(1)}, {1, Integer(2)}}, {{1, Integer(3)}}};
    CHECK_NOTHROW(check_matrix(a));
    CHECK(rank_certified(a).value == 2);
    SparseZMat b = a;
    b.row[0][1].first = 5;
    refused(b, "row 0, column 5: outside 0..1");
    b = a;
    b.row[1][0].first = -1;
    refused(b, "row 1, column -1");
    CHECK_THROWS_WITH_AS((void)b.to_dense(), doctest::Contains("row 1, column -1"), invalid_input);  // not a write before the matrix
    b = a;
    b.rows = 3;
    refused(b, "declares 3 rows but holds 2");
    b = a;
    b.row[0] = {{1, Integer(1)}, {0, Integer(1)}};
    refused(b, "columns must increase");
    b = a;
    b.row[0] = {{0, Integer(1)}, {0, Integer(1)}};
    refused(b, "columns must increase");
    b = a;
    b.row[1][0].second = Integer(0);
    refused(b, "a stored zero");
    b = a;
    b.cols = -1;
    refused(b, "is negative");
    // mod p
    SparseNmodMat m = reduce_mod(a, 7);
    CHECK(rank_sparse_modular(m) == 2);
    m.row[0][0].second = 7;
    CHECK_THROWS_WITH_AS((void)rank_sparse_modular(m), doctest::Contains("not a non-zero residue below p"), invalid_input);
    m = reduce_mod(a, 7);
    m.row[1][0].first = 2;
    CHECK_THROWS_WITH_AS((void)rank_sparse_modular(m), doctest::Contains("outside 0..1"), invalid_input);
    // options, whatever the method
    auto bad_option = [&a](auto edit, const std::string& fragment) {
        RankOptions o;
        edit(o);
        INFO("expect: " << fragment);
        CHECK_THROWS_WITH_AS((void)rank_certified(a, o), doctest::Contains(fragment.c_str()), invalid_input);
        CHECK_THROWS_WITH_AS((void)rank_certified(a.to_dense(), o), doctest::Contains(fragment.c_str()), invalid_input);
    };
    bad_option([](RankOptions& o) { o.threads = -3; }, "threads -3");
    bad_option([](RankOptions& o) { o.max_primes = -1; }, "max_primes -1");
    bad_option([](RankOptions& o) { o.max_certify_seconds = std::nan(""); }, "max_certify_seconds");
    bad_option([](RankOptions& o) { o.max_certify_seconds = -1; }, "max_certify_seconds");
    bad_option([](RankOptions& o) { o.fraction_free_max = -1; }, "fraction_free_max -1");
    bad_option([](RankOptions& o) { o.certificate = static_cast<Certificate>(7); }, "certificate 7");
    bad_option([](RankOptions& o) { o.device = static_cast<Device>(9); }, "device 9");
    RankOptions zero;  // the budgets' edges are values, not errors
    zero.max_primes = 0;
    zero.max_certify_seconds = 0;
    zero.fraction_free_max = 0;
    CHECK(rank_certified(a, zero).value == 2);
}

TEST_CASE("drop_empty_lines keeps the rank; a huge declared column count costs nothing (issue 36)") {
    auto rng = seprank_test::rng_for("rank-drop-empty");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const long m = static_cast<long>(rng.below(10)), n = static_cast<long>(rng.below(10)), r = static_cast<long>(rng.below(6));
        const ZMat a = constructed_rank(rng, m, n, r, 1 + static_cast<unsigned>(rng.below(20)), it % 2 ? 0.3 : 1.0);
        // Spread the columns over a wide range and add empty rows: the rank is unchanged.
        SparseZMat s = SparseZMat::from_dense(a);
        const long stride = 1 + static_cast<long>(rng.below(1000));
        s.cols = n * stride + static_cast<long>(rng.below(5000));
        for (auto& row : s.row)
            for (auto& e : row) e.first *= stride;
        for (long k = static_cast<long>(rng.below(4)); k > 0; --k) s.row.insert(s.row.begin() + static_cast<long>(rng.below(s.row.size() + 1)), {});
        s.rows = static_cast<long>(s.row.size());
        const long ref = rank_fraction_free(a);
        const SparseZMat d = drop_empty_lines(s);
        INFO("iteration " << it << ": " << m << "x" << n << " rank " << ref << " stride " << stride);
        CHECK(d.cols <= static_cast<long>(s.nnz()));
        CHECK(d.rows <= s.rows);
        CHECK(rank_certified(d).value == ref);
        const RankAnswer w = rank_certified(s, RankOptions{rng.next()});
        CHECK(w.value == ref);
        CHECK(w.certified());
        CHECK(w.rows == s.rows);  // the shape as given
        CHECK(w.cols == s.cols);
        RankOptions modular{rng.next()};
        modular.certify = false;
        CHECK(rank_certified(s, modular).value == ref);
    }
    // 1 x 2·10^8 with one entry: rank 1 at once (it took 3.3 GiB).
    SparseZMat wide;
    wide.rows = 1;
    wide.cols = 200000000;
    wide.row.resize(1);
    wide.row[0].emplace_back(199999998, Integer(7));
    const RankAnswer one = rank_certified(wide);
    CHECK(one.value == 1);
    CHECK(one.certified());
    CHECK(one.cols == 200000000);
    CHECK(one.peak_mib < 1024);
}

TEST_CASE("rank-deficient matrices are certified through the Hadamard bound") {
    auto rng = seprank_test::rng_for("rank-hadamard");
    INFO("seed " << seprank_test::seed());
    ZMat a = constructed_rank(rng, 150, 140, 37, 20);
    RankOptions opt;
    opt.fraction_free_max = 0;  // force the multimodular certificate
    opt.certificate = Certificate::hadamard;
    const RankAnswer r = rank_certified(a, opt);
    CHECK(r.value == 37);
    CHECK(r.certified());
    CHECK(r.variant == "hadamard-multimodular");
    CHECK(r.kind == RankKind::exact);
    CHECK(r.failure_bound == 0);
    CHECK(r.quantity == "matrix");
    CHECK(r.primes_used > 1);
    // The note's count of certificate primes plus the first one is primes_used, and it
    // says so (issue 38: the note said 1334 primes where primes_used said 1335).
    {
        INFO(r.note);
        long in_note = -1;
        REQUIRE(std::sscanf(r.note.c_str(), "rank mod %ld primes", &in_note) == 1);
        CHECK(in_note + 1 == r.primes_used);
        CHECK(r.note.find("(" + std::to_string(r.primes_used) + " primes in all, the first one included)") != std::string::npos);
    }
    // with no prime budget it must not claim a certificate
    opt.max_primes = 0;
    const RankAnswer u = rank_certified(a, opt);
    CHECK(u.value == 37);
    CHECK_FALSE(u.certified());
    CHECK(u.failure_bound > 0);
    CHECK(u.label().find("probabilistic") == 0);
    CHECK(u.kind == RankKind::modular_lower_bound);
    {
        // Its bound counts the prime factors of the input's (r+1)-minors: a row content
        // (here 2^200 on every row) is removed before the certificate, yet a b-bit prime in
        // it would lower the rank mod p all the same. Bounded over the content-free matrix,
        // it would not grow.
        ZMat big = a;
        for (long i = 0; i < big.rows(); ++i)
            for (long j = 0; j < big.cols(); ++j) fmpz_mul_2exp(fmpz_mat_entry(big.get(), i, j), fmpz_mat_entry(big.get(), i, j), 200);
        const RankAnswer ub = rank_certified(big, opt);
        CHECK(ub.value == 37);
        const double log2H = log2_hadamard_bound(SparseZMat::from_dense(big), 38);
        CHECK(ub.failure_bound == doctest::Approx(std::ceil(log2H / 61.0) / prime_count_lower_bound(62)).scale(0));
        CHECK(ub.failure_bound > u.failure_bound);
    }
    opt.certify = false;
    const RankAnswer l = rank_certified(a, opt);
    CHECK(l.field == "Z/p");
    CHECK(l.value == 37);
    // A random 62-bit prime: the chance it divides a non-zero minor of size rank_Q, at
    // most ⌈log2 H / 61⌉ prime factors among > 2^55.58 primes (issue 38: not a bare 1).
    const double log2H = log2_hadamard_bound(SparseZMat::from_dense(a), 140);
    CHECK(l.failure_bound == doctest::Approx(std::ceil(log2H / 61.0) / prime_count_lower_bound(62)).scale(0));
    CHECK(l.failure_bound < 1e-13);
    CHECK(l.label().find("probabilistic") == 0);
    CHECK(l.note.find("Hadamard") != std::string::npos);
    // A prime the caller chose was not drawn: no probability, a plain lower bound.
    opt.prime = 1000003;
    const RankAnswer g = rank_certified(a, opt);
    CHECK(g.label() == "lower bound");
    CHECK(g.failure_bound == 1);
    // A composite prime the caller chose: refused by check_options, before any work.
    RankOptions composite = opt;
    composite.prime = 1000003ULL * 1000033ULL;
    CHECK_THROWS_AS(check_options(composite), invalid_input);
    CHECK_THROWS_AS(rank_certified(a, composite), invalid_input);
    // Full rank mod p is the rank over Q: certified.
    RankOptions fp;
    fp.certify = false;
    const RankAnswer full = rank_certified(constructed_rank(rng, 30, 20, 20, 20), fp);
    CHECK(full.value == 20);
    CHECK(full.certified());
}

TEST_CASE("the Hadamard reference names the prime its rank came from, after a raise too") {
    // Rows w1, w2, w1 + w2 of the lattice {w : w ≡ λ·(1, c2, c3) mod p1}, p1 the reference's
    // first prime: any two are dependent mod p1 (rank 1 there), independent over Q (rank
    // 2), and LLL keeps them short (entries near p1^(2/3) ≈ 2^41), so the 2-minors need 2
    // certificate primes of 62 bits and the 3-minors 3.
    auto rng = seprank_test::rng_for("rank-hadamard-raise");
    INFO("seed " << seprank_test::seed());
    RankOptions opt;
    opt.seed = rng.next();
    opt.certificate = Certificate::hadamard;
    opt.fraction_free_max = 0;
    const std::uint64_t p1 = detail::distinct_primes(opt.seed, 1)[0];
    // Drawn until no row or column has a content (the certificate divides contents out,
    // which would shrink its bounds below those checked here) and the bounds fall as said
    // (a rare short lattice basis gives 3-minors that 2 primes certify).
    auto content_free = [](const ZMat& m) {
        Integer g;
        for (long i = 0; i < m.rows(); ++i) {
            fmpz_zero(g.get());
            for (long j = 0; j < m.cols(); ++j) fmpz_gcd(g.get(), g.get(), fmpz_mat_entry(m.get(), i, j));
            if (!fmpz_is_one(g.get())) return false;
        }
        for (long j = 0; j < m.cols(); ++j) {
            fmpz_zero(g.get());
            for (long i = 0; i < m.rows(); ++i) fmpz_gcd(g.get(), g.get(), fmpz_mat_entry(m.get(), i, j));
            if (!fmpz_is_one(g.get())) return false;
        }
        return true;
    };
    ZMat a(3, 3);
    for (int tries = 0;; ++tries) {
        REQUIRE(tries < 200);
        ZMat lat(3, 3);
        fmpz_one(fmpz_mat_entry(lat.get(), 0, 0));
        fmpz_set_ui(fmpz_mat_entry(lat.get(), 0, 1), rng.next() % p1);
        fmpz_set_ui(fmpz_mat_entry(lat.get(), 0, 2), rng.next() % p1);
        fmpz_set_ui(fmpz_mat_entry(lat.get(), 1, 1), p1);
        fmpz_set_ui(fmpz_mat_entry(lat.get(), 2, 2), p1);
        fmpz_lll_t fl;
        fmpz_lll_context_init_default(fl);
        fmpz_lll(lat.get(), nullptr, fl);
        for (long j = 0; j < 3; ++j) {
            fmpz_set(fmpz_mat_entry(a.get(), 0, j), fmpz_mat_entry(lat.get(), 0, j));
            fmpz_set(fmpz_mat_entry(a.get(), 1, j), fmpz_mat_entry(lat.get(), 1, j));
            fmpz_add(fmpz_mat_entry(a.get(), 2, j), fmpz_mat_entry(lat.get(), 0, j), fmpz_mat_entry(lat.get(), 1, j));
        }
        const SparseZMat sa = SparseZMat::from_dense(a);
        if (content_free(a) && log2_hadamard_bound(sa, 2) + 2 <= 2 * 61.0 && log2_hadamard_bound(sa, 3) + 2 > 2 * 61.0) break;
    }
    const SparseZMat sa = SparseZMat::from_dense(a);
    REQUIRE(rank_modular(a, p1) == 1);
    REQUIRE(log2_hadamard_bound(sa, 2) + 2 <= 2 * 61.0);
    REQUIRE(log2_hadamard_bound(sa, 3) + 2 > 2 * 61.0);
    // Two primes allowed: the first attempt raises the rank to 2 from another prime, and the
    // 3-minors' certificate is past the budget: the answer is that prime's rank.
    opt.max_primes = 2;
    const RankAnswer r = rank_certified(a, opt);
    INFO(r.note);
    CHECK(r.value == 2);
    CHECK_FALSE(r.certified());
    CHECK(r.primes_used == 3);
    CHECK(r.prime != p1);
    CHECK(rank_modular(a, r.prime) == r.value);
    // The 2 x 3 matrix of its first two rows (sparse: the dense entry's own full-rank test
    // at a 30-bit prime would answer first): the raise reaches full rank, proven by the
    // prime that showed it, and the note names that one.
    ZMat b(2, 3);
    for (long i = 0; i < 2; ++i)
        for (long j = 0; j < 3; ++j) fmpz_set(fmpz_mat_entry(b.get(), i, j), fmpz_mat_entry(a.get(), i, j));
    const RankAnswer f = rank_certified(SparseZMat::from_dense(b), opt);
    INFO(f.note);
    CHECK(f.value == 2);
    CHECK(f.certified());
    CHECK(f.prime != p1);
    CHECK(rank_modular(b, f.prime) == 2);
    CHECK(f.note.find(std::to_string(f.prime)) != std::string::npos);
}

TEST_CASE("Hadamard bound is an upper bound on minors" * doctest::test_suite("slow")) {
    auto rng = seprank_test::rng_for("rank-hadamard-bound");
    for (int it = 0; it < 200; ++it) {
        const long n = 1 + static_cast<long>(rng.below(8));
        ZMat a = constructed_rank(rng, n, n, n, 1 + static_cast<unsigned>(rng.below(40)));
        fmpz_t d;
        fmpz_init(d);
        fmpz_mat_det(d, a.get());
        if (!fmpz_is_zero(d)) {
            slong e;
            const double m = fmpz_get_d_2exp(&e, d);
            REQUIRE(std::log2(std::fabs(m)) + static_cast<double>(e) <= log2_hadamard_bound(SparseZMat::from_dense(a), n) + 1e-9);
        }
        fmpz_clear(d);
    }
}

TEST_CASE("rank_modular_fflas = FLINT's nmod_mat_rank on the same matrices, for primes below 2^26") {
    auto rng = seprank_test::rng_for("rank-fflas");
    INFO("seed " << seprank_test::seed() << (fflas_available() ? " (FFLAS-FFPACK)" : " (built without FFLAS: FLINT mode)"));
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        // Small shapes (0 and 1 included) and, now and then, one above FFLAS's recursion thresholds.
        const bool big = it % 50 == 0;
        const long m = big ? 150 + static_cast<long>(rng.below(200)) : static_cast<long>(rng.below(20));
        const long n = big ? 150 + static_cast<long>(rng.below(200)) : static_cast<long>(rng.below(20));
        const long r = big ? static_cast<long>(rng.below(200)) : static_cast<long>(rng.below(12));
        const std::uint64_t primes[] = {2, 3, 5, 8388593 /* largest prime < 2^23 */, 67108859 /* largest prime < 2^26 */};
        const std::uint64_t p = it % 2 == 0 ? random_prime(rng, 2 + static_cast<unsigned>(rng.below(25))) : primes[rng.below(std::size(primes))];
        INFO("iteration " << it << ": " << m << "x" << n << " inner " << r << " p = " << p);
        const NmodMat a = reduce_mod(constructed_rank(rng, m, n, r, 8, it % 3 == 0 ? 0.3 : 1.0), p);
        NmodMat copy = a;
        const long ref = nmod_mat_rank(copy.get());
        CHECK(rank_modular_fflas(a) == ref);
        CHECK(rank_modular(a) == ref);
    }
    CHECK_THROWS_AS(rank_modular_fflas(NmodMat(2, 2, fflas_max_prime + 15 /* 2^26 + 15, prime */)), invalid_input);
    CHECK_THROWS_AS(rank_modular_fflas(NmodMat(2, 2, 15)), invalid_input);  // composite
}

TEST_CASE("rank_modular_fflas: the baseline and the x86-64-v3 copies both equal nmod_mat_rank") {
    auto rng = seprank_test::rng_for("rank-fflas-copies");
    const bool v3 = fflas_v3_available();
    MESSAGE("seed " << seprank_test::seed() << "; FFLAS copy in use: " << std::string(fflas_copy_name()));
    if (!v3)
        MESSAGE("x86-64-v3 copy not usable here (built without it or without FFLAS, processor without AVX2/FMA, or "
                "SEPRANK_SIMD=0): only the baseline copy is checked");
    INFO("seed " << seprank_test::seed());
    // Primes: tiny, the largest below 2^23 and below 2^26 and their neighbours below, random 2..26-bit.
    const std::uint64_t fixed[] = {2, 3, 5, 8388593, 67108859, prev_prime(67108859), prev_prime(prev_prime(67108859))};
    long compared = 0;
    for (int it = 0; it < seprank_test::iterations(240); ++it) {
        const std::uint64_t p = it % 3 == 0 ? random_prime(rng, 2 + static_cast<unsigned>(rng.below(25))) : fixed[rng.below(std::size(fixed))];
        long m = 0, n = 0, r = 0;
        double density = 1.0;
        switch (it % 8) {
        case 0: m = 0, n = static_cast<long>(rng.below(4)); break;                       // empty
        case 1: m = 1, n = 1, r = static_cast<long>(rng.below(2)); break;                // 1x1, zero or not
        case 2: m = 1 + static_cast<long>(rng.below(30)), n = 1 + static_cast<long>(rng.below(30)); break;  // all zero
        case 3: m = 200 + static_cast<long>(rng.below(150)), n = 200 + static_cast<long>(rng.below(150)),
                r = 10 + static_cast<long>(rng.below(150)); break;                       // large, rank-deficient
        case 4: m = 1 + static_cast<long>(rng.below(40)), n = 1 + static_cast<long>(rng.below(40)), r = std::min(m, n); break;  // full rank
        default:
            m = 1 + static_cast<long>(rng.below(40)), n = 1 + static_cast<long>(rng.below(40)), r = static_cast<long>(rng.below(20));
            density = it % 2 == 0 ? 0.2 : 1.0;
        }
        INFO("iteration " << it << ": " << m << "x" << n << " inner " << r << " p = " << p);
        const NmodMat a = reduce_mod(constructed_rank(rng, m, n, r, 30, density), p);
        NmodMat copy = a;
        const long ref = nmod_mat_rank(copy.get());
        CHECK(ref <= r);
        CHECK(rank_modular_fflas(a, FflasCopy::baseline) == ref);
        if (v3) CHECK(rank_modular_fflas(a, FflasCopy::x86_64_v3) == ref);
        CHECK(rank_modular_fflas(a) == ref);
        ++compared;
    }
    CHECK(compared == seprank_test::iterations(240));
    if (!v3) CHECK_THROWS_AS(rank_modular_fflas(NmodMat(2, 2, 5), FflasCopy::x86_64_v3), invalid_input);
    {  // SEPRANK_SIMD=0 turns the v3 copy off (the environment is read at each call).
        const seprank_test::EnvVar env("SEPRANK_SIMD", "0");
        CHECK_FALSE(fflas_v3_available());
        CHECK(std::string(fflas_copy_name()) == (fflas_available() ? "baseline" : "flint"));
        CHECK_THROWS_AS(rank_modular_fflas(NmodMat(2, 2, 5), FflasCopy::x86_64_v3), invalid_input);
    }
    CHECK(fflas_v3_available() == v3);
}

TEST_CASE("rank_modular_blocked = nmod_mat_rank: planted ranks, every tile, non-generic rank profiles") {
    auto rng = seprank_test::rng_for("rank-blocked");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    long compared = 0, deficient = 0, chunked = 0;
    blocked::LeafStats leaves;  // summed over the matrices
    for (int it = 0; it < seprank_test::iterations(400); ++it) {
        const seprank_test::BlockedCase c = seprank_test::blocked_case(rng, it, 140);
        const std::uint64_t p = c.p;
        const auto kind = c.kind;
        const long m = c.m, n = c.n, r = c.r;
        // Tiles 1..3 cost O(m n^2) here: keep their matrices small.
        const int t = (m > 120 || n > 120) && c.tile > 0 && c.tile < 8 ? 8 : c.tile;
        const NmodMat a = seprank_test::planted(rng, kind, m, n, r, p);
        INFO("iteration " << it << ": " << seprank_test::name(kind) << " " << m << "x" << n << " inner " << r << " p = " << p
                          << " tile " << t);
        const long ref = rank_modular(a);
        blocked::LeafStats st;
        CHECK(blocked::rank_with_combine_error(a, t, 0.0, &st) == ref);
        leaves.splits += st.splits;
        leaves.fallbacks += st.fallbacks;
        ++compared;
        deficient += ref < std::min(m, n);
        chunked += blocked::max_inner(p) < std::min<long>(blocked::effective_tile(t, n), ref);
        if (kind == seprank_test::Planted::antidiagonal || kind == seprank_test::Planted::permutation)
            CHECK(ref == (kind == seprank_test::Planted::antidiagonal ? std::min(m, n) : std::min({r, m, n})));
        if (kind == seprank_test::Planted::zero) CHECK(ref == 0);
    }
    CHECK(compared >= 200);
    CHECK(deficient > compared / 4);  // the rank-deficient path is well exercised
    CHECK(chunked > 0);               // and so are panels wider than one exact GEMM
    // leaves in two phases (more than kLeafTop active rows), and some of them (a row below
    // the top holding a pivot: the antidiagonal, permutations) run again in one
    MESSAGE("leaves in two phases: " << leaves.splits << ", of them run again in one: " << leaves.fallbacks);
    CHECK(leaves.splits > 100);
    CHECK(leaves.fallbacks < leaves.splits);
}

TEST_CASE("rank_modular_blocked: a leaf's two phases, rows zero in the leaf skipped, and a leaf run again in one phase") {
    auto rng = seprank_test::rng_for("rank-blocked-leaf");
    INFO("seed " << seprank_test::seed());
    static_assert(blocked::kLeafTop == 64, "leaf_fallback_matrix's shape assumes the top's 64 rows");
    for (const std::uint64_t p : {std::uint64_t{8388593}, std::uint64_t{1080880789}, blocked_max_prime}) {
        INFO("p = " << p);
        // the top's 64 rows give column 0 its pivot and no other: the first leaf runs again in one
        // phase (once: every later leaf finds its pivots in its top), for any tile of at least 32
        const NmodMat a = seprank_test::leaf_fallback_matrix(rng, 300, 200, p);
        const long ref = rank_modular(a);
        CHECK(ref == 200);  // except with chance below 300 * 200 / p
        for (const int tile : {0, 32, 100}) {
            blocked::LeafStats st;
            CHECK(blocked::rank_with_combine_error(a, tile, 0.0, &st) == ref);
            CHECK(st.fallbacks == 1);
            CHECK(st.splits >= 1);
        }
        // 250 zero rows first: the scans skip them, every top is full, nothing runs again
        const NmodMat z = seprank_test::leaf_fallback_matrix(rng, 600, 200, p, 250);
        blocked::LeafStats st;
        CHECK(blocked::rank_with_combine_error(z, 0, 0.0, &st) == rank_modular(z));
        CHECK(rank_modular(z) == 200);
        CHECK(st.fallbacks == 0);
        CHECK(st.splits == 7);  // ceil(200 / 32) leaves, each with rows below its top
        CHECK(st.capped == 0);
    }
}

TEST_CASE("rank_modular_blocked: a leaf's scan stops after kScanRows rows; what lies below is checked, and run again in one phase") {
    auto rng = seprank_test::rng_for("rank-blocked-scan-cap");
    INFO("seed " << seprank_test::seed());
    static_assert(blocked::kScanRows == 4096, "the shapes below assume a cap of 4096 rows");
    for (const std::uint64_t p : {std::uint64_t{8388593}, blocked_max_prime}) {
        INFO("p = " << p);
        // 4200 zero rows first: the first leaf's scan reads 4096 zero rows and stops with an
        // empty top; the rows below hold every pivot, so that leaf runs again in one phase
        const NmodMat a = seprank_test::leaf_fallback_matrix(rng, 4500, 70, p, 4200);
        blocked::LeafStats st;
        CHECK(blocked::rank_with_combine_error(a, 0, 0.0, &st) == rank_modular(a));
        CHECK(rank_modular(a) == 70);
        CHECK(st.capped >= 1);
        CHECK(st.fallbacks >= 1);
        // 4000 zero rows first: the scan finds a full top before the cap
        const NmodMat b = seprank_test::leaf_fallback_matrix(rng, 4300, 70, p, 4000);
        blocked::LeafStats sb;
        CHECK(blocked::rank_with_combine_error(b, 0, 0.0, &sb) == rank_modular(b));
        CHECK(sb.capped == 0);
        CHECK(sb.fallbacks == 0);
        // a very deficient tall matrix: rank 40 in 9000 rows, its rows spread out
        const NmodMat c = seprank_test::product(rng, 9000, 90, 40, p, 0.01);
        blocked::LeafStats sc;
        CHECK(blocked::rank_with_combine_error(c, 0, 0.0, &sc) == rank_modular(c));
    }
}

TEST_CASE("rank_modular_blocked: a 600 x 700 planted rank across several panels, and every leading minor zero") {
    auto rng = seprank_test::rng_for("rank-blocked-large");
    INFO("seed " << seprank_test::seed());
    const std::uint64_t p = 8388593;
    // rank 500 over 3 panels of the default tile: panels with fewer pivots than columns
    NmodMat a = seprank_test::product(rng, 600, 700, 500, p);
    CHECK(rank_modular_blocked(a) == rank_modular(a));
    CHECK(rank_modular(a) == 500);  // a random product has full inner rank except with chance < 2/p
    // the same after zeroing the first 300 columns: the first panel has no pivot at all
    for (long i = 0; i < 600; ++i)
        for (long j = 0; j < 300; ++j) a.set(i, j, 0);
    const long ref = rank_modular(a);
    CHECK(ref == 400);  // 400 random columns of a rank-500 product: full column rank except with chance < 2/p
    CHECK(rank_modular_blocked(a) == ref);
    CHECK(rank_modular_blocked(a, 64) == ref);
    // antidiagonal 300 x 300: each leading k x k minor (k < 300) vanishes, rank 300
    NmodMat d = seprank_test::planted(rng, seprank_test::Planted::antidiagonal, 300, 300, 0, p);
    CHECK(rank_modular_blocked(d) == 300);
    CHECK(rank_modular_blocked(d, 7) == 300);
}

TEST_CASE("blocked elimination: the exact inner dimension and the centred reduction") {
    // K h^2 + h + 2p <= 2^53 < (K+1) h^2 + h + 2p, h = floor(p/2), as the header defines K.
    for (const std::uint64_t p : std::initializer_list<std::uint64_t>{3, 5, 65521, 8388593, blocked::kMaxPrime}) {
        const std::uint64_t h = p / 2, k = static_cast<std::uint64_t>(blocked::max_inner(p));
        INFO("p = " << p << " K = " << k);
        CHECK(k * h * h + h + 2 * p <= (1ULL << 53));
        if (k < (1ULL << 30)) CHECK((k + 1) * h * h + h + 2 * p > (1ULL << 53));
        // the extreme sum K h^2 + h, of either sign, reduces to its residue
        const double x = static_cast<double>(k * h * h + h);
        const double pd = static_cast<double>(p), pinv = 1.0 / pd;
        const auto residue = static_cast<std::int64_t>((k % p) * ((h * h) % p) % p + h) % static_cast<std::int64_t>(p);
        const double want = residue > static_cast<std::int64_t>(h) ? static_cast<double>(residue - static_cast<std::int64_t>(p)) : static_cast<double>(residue);
        CHECK(blocked::reduce(x, pd, pinv) == want);
        CHECK(blocked::reduce(-x, pd, pinv) == -want);  // odd p: the range [-h, h] is symmetric
        const double a = blocked::centred(p - 1, p);
        CHECK(a == -1);
        CHECK(blocked::mul(a, blocked::inverse(a, p), pd, pinv) == 1);
    }
    CHECK(blocked::max_inner(8388593) >= 512);  // a 256-wide panel is one GEMM for p < 2^23
    CHECK(blocked::max_inner(blocked::kMaxPrime) == 8);
    CHECK(blocked::reduce(1, 2, 0.5) == 1);    // p = 2: residues {0, 1}
    CHECK(blocked::reduce(-1, 2, 0.5) == 1);
    CHECK(blocked::reduce(-4, 2, 0.5) == 0);
    CHECK(blocked::accepted_prime(blocked::kMaxPrime));
    CHECK(!blocked::accepted_prime(blocked::kMaxPrime + 2));  // 2^26 - 3: above the limit
    CHECK(!blocked::accepted_prime(65535));
    CHECK(prev_prime(1ULL << 26) == blocked::kMaxPrime);
}

TEST_CASE("centre_on_host (the GPU's upload) = centred() entry by entry; the first non-residue, whatever the threads") {
    seprank::Rng rng = seprank_test::rng_for("centre_on_host");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const std::uint64_t p = it % 5 == 0 ? 2 : it % 5 == 1 ? blocked::kMaxWidePrime : rng.below(1ULL << 40) + 3;
        const std::int64_t len = it % 7 == 0 ? 0 : static_cast<std::int64_t>(rng.below(3000));
        const unsigned workers = static_cast<unsigned>(rng.below(18));  // 0 counts as 1; more than entries too
        std::vector<std::uint64_t> in(static_cast<std::size_t>(len));
        for (auto& v : in) v = rng.below(p);
        if (len > 0 && p > 2) {  // the extremes of the range
            in[0] = p - 1;
            in[static_cast<std::size_t>(len - 1)] = p / 2;
        }
        // 0, 1 or 3 entries that are not residues (p, p + something, 2^64 - 1)
        std::int64_t want = -1;
        const int bad = len == 0 ? 0 : static_cast<int>(rng.below(3)) == 2 ? 3 : static_cast<int>(rng.below(2));
        for (int b = 0; b < bad; ++b) {
            const auto at = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(len)));
            in[static_cast<std::size_t>(at)] = b == 0 ? p : b == 1 ? p + rng.below(1000) : ~std::uint64_t{0};
            want = want < 0 ? at : std::min(want, at);
        }
        std::vector<double> stage(static_cast<std::size_t>(len), 0.5);
        INFO("p " << p << " len " << len << " workers " << workers << " bad " << bad);
        REQUIRE(blocked::centre_on_host(in.data(), len, p, stage.data(), workers) == want);
        if (want < 0)
            for (std::int64_t e = 0; e < len; ++e) {
                const std::uint64_t v = in[static_cast<std::size_t>(e)];
                const double x = stage[static_cast<std::size_t>(e)];
                REQUIRE(x == blocked::centred(v, p));
                REQUIRE(std::abs(x) <= static_cast<double>(p / 2));
                REQUIRE(static_cast<std::uint64_t>(x < 0 ? static_cast<double>(p) + x : x) == v);
            }
    }
}

TEST_CASE("rank_modular_blocked refuses a composite or too large prime and a negative tile") {
    NmodMat a = NmodMat::from_rows({{1, 2}, {3, 4}}, 7);
    CHECK(rank_modular_blocked(a) == 2);
    CHECK_THROWS_AS(rank_modular_blocked(NmodMat(2, 2, 65535), 0), invalid_input);
    CHECK(rank_modular_blocked(NmodMat::from_rows({{1, 2}, {3, 4}}, 2147483647 /* 2^31 - 1: two-limb mode */)) == 2);
    CHECK_THROWS_WITH_AS(rank_modular_blocked(NmodMat(2, 2, 70368744177679 /* the first prime above 2^46 */), 0),
                         doctest::Contains("70368744177679"), invalid_input);
    CHECK_THROWS_WITH_AS(rank_modular_blocked(NmodMat(2, 2, blocked_max_prime - 2 /* 2^46 - 23 = 7 x 13 x 41 x 18860558611 */), 0),
                         doctest::Contains("70368744177641"), invalid_input);
    CHECK(rank_modular_blocked(NmodMat::from_rows({{1, 2}, {2, 4}}, 67108879 /* the first prime above 2^26 */)) == 1);
    CHECK_THROWS_WITH_AS(rank_modular_blocked(a, -1), doctest::Contains("tile -1"), invalid_input);
}

namespace {

// A backend of blocked::Driver that does no arithmetic: for every entry of A it counts the
// products of size <= h^2 that the entry may hold since its last reduction, and checks the
// driver's exactness invariants whatever the pivots: the leaves, the gathered multipliers
// and the pivot rows entering a GEMM are reduced, no chunk is wider than K, and no entry
// ever holds more than K products (|x| <= h + K h^2 < 2^53). Its pivots are drawn at random.
// Two-limb mode (wide): no multipliers, update or reduce_rows; every product is split
// (its operands of A reduced), limb GEMMs of inner dimension <= kWideInner within the limb
// buffers' sizes, and a combine that reads reduced entries of A and leaves them reduced.
struct BoundBackend {
    long m, n, K;
    seprank::Rng rng;
    std::vector<long> units;
    long violations = 0, pivots = 0, reductions = 0;
    bool wide = false, half = false;
    long a_cap = 0, b_cap = 0, p_cap = 0, combines = 0;

    BoundBackend(long m_, long n_, long k_, std::uint64_t seed) : m(m_), n(n_), K(k_), rng(seed), units(static_cast<std::size_t>(m_ * n_), 0) {}
    BoundBackend(long m_, long n_, std::uint64_t p, int tile, std::uint64_t seed) : BoundBackend(m_, n_, blocked::max_inner(p), seed) {
        wide = blocked::wide_mode(p);
        half = blocked::half_mode(p);
        a_cap = half ? 0 : blocked::wide_a_doubles(m, n, tile);  // one-sided limbs have no A limbs
        b_cap = blocked::wide_b_doubles(m, n, tile);
        p_cap = blocked::wide_p_doubles(m, n, tile);
    }
    // The entries of A in a column-major rows x cols view at off (leading dimension ld).
    template <class F>
    void each_of_a(std::int64_t off, std::int64_t ld, std::int64_t rows, std::int64_t cols, F&& f) {
        for (std::int64_t j = 0; j < cols; ++j)
            for (std::int64_t i = 0; i < rows; ++i) {
                const std::int64_t e = off + j * ld + i;
                f(u(static_cast<long>(e / n), static_cast<long>(e % n)));
            }
    }
    void split(blocked::Buf src, std::int64_t off, std::int64_t ld, std::int64_t rows, std::int64_t cols, bool a_side) {
        violations += !wide;
        violations += half && a_side;  // one-sided limbs split B alone
        violations += rows * cols > (a_side ? a_cap : b_cap);
        if (src == blocked::Buf::a) each_of_a(off, ld, rows, cols, [&](long& x) { violations += x != 0; });
    }
    void gemm(const blocked::Gemm& d) {
        using blocked::Buf;
        violations += !wide;
        violations += d.inner > blocked::kWideInner;
        violations += d.inner * d.cols > b_cap || d.rows * d.cols > p_cap;
        violations += d.b != Buf::b1 && d.b != Buf::b0;
        const bool a_limb = d.a == Buf::a1 || d.a == Buf::a0;
        if (half) {
            // A as it is, reduced (|x| <= h, the bound of the 2^53), into P1 or P0
            violations += a_limb || (d.c != Buf::p1 && d.c != Buf::p0) || d.alpha != 1.0 || d.beta != 0.0;
            if (d.a == Buf::a) each_of_a(d.a_off, d.lda, d.rows, d.inner, [&](long& x) { violations += x != 0; });
        } else {
            violations += !a_limb || d.rows * d.inner > a_cap;
        }
    }
    void combine(const blocked::Gemm& d) {
        violations += !wide;
        violations += d.rows * d.cols > p_cap;
        ++combines;
        if (d.c == blocked::Buf::a) each_of_a(d.c_off, d.ldc, d.rows, d.cols, [&](long& x) { violations += x != 0; });
    }
    long& u(long i, long j) { return units[static_cast<std::size_t>(i * n + j)]; }
    void require_reduced(long r0, long r1, long c0, long c1) {
        for (long i = r0; i < r1; ++i)
            for (long j = c0; j < c1; ++j) violations += u(i, j) != 0;
    }
    void factor_leaf(std::int64_t r, std::int64_t b0, std::int64_t b1, std::int64_t* piv) {
        require_reduced(r, m, b0, b1);
        std::vector<char> used(static_cast<std::size_t>(m - r), 0);
        long left = m - r;
        for (std::int64_t j = 0; j < b1 - b0; ++j) {
            piv[j] = -1;
            if (left == 0 || rng.below(4) == 0) continue;
            long i = 0;
            do i = static_cast<long>(rng.below(static_cast<std::uint64_t>(m - r)));
            while (used[static_cast<std::size_t>(i)]);
            used[static_cast<std::size_t>(i)] = 1;
            --left;
            piv[j] = r + i;
            ++pivots;
        }
    }
    void swap_rows(std::int64_t r, const std::int64_t* to, std::int64_t k, std::int64_t c0) {
        for (std::int64_t i = 0; i < k; ++i) {
            violations += to[i] < r + i;
            for (long j = c0; j < n; ++j) std::swap(u(r + i, j), u(to[i], j));
        }
    }
    void gather(std::int64_t r, const std::int64_t* cols, std::int64_t k) {
        for (long i = r; i < m; ++i)
            for (std::int64_t c = 0; c < k; ++c) violations += u(i, cols[c]) != 0;
    }
    void invert(std::int64_t) {}
    void multipliers(std::int64_t, std::int64_t, std::int64_t k0, std::int64_t k1, bool) { violations += k1 - k0 > K || wide; }
    void update(std::int64_t r, std::int64_t k, std::int64_t k0, std::int64_t k1, std::int64_t d0, std::int64_t d1) {
        violations += k1 - k0 > K || wide;
        require_reduced(r + k0, r + k1, d0, d1);  // the pivot rows, an operand
        for (long i = r + k; i < m; ++i)
            for (long j = d0; j < d1; ++j) {
                u(i, j) += k1 - k0;
                violations += u(i, j) > K;
            }
    }
    void reduce_rows(std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
        ++reductions;
        violations += wide;
        for (long i = r0; i < r1; ++i)
            for (long j = c0; j < c1; ++j) u(i, j) = 0;
    }
};

}  // namespace

TEST_CASE("blocked driver: every GEMM stays exact and every entry read is reduced, whatever the pivots") {
    auto rng = seprank_test::rng_for("rank-blocked-bounds");
    INFO("seed " << seprank_test::seed());
    const std::uint64_t primes[] = {3, 65521, 8388593, 33554393 /* largest below 2^25: K = 32 */, blocked::kMaxPrime,
                                    67108879 /* two limbs, one-sided */, blocked::kMaxHalfPrime, 2147483659 /* four products */,
                                    blocked_max_prime};
    const int tiles[] = {0, 1, 5, 32, 40, 64, 100, 256, 300};
    long wide_runs = 0, wide_combines = 0, half_runs = 0;
    for (int it = 0; it < seprank_test::iterations(150); ++it) {
        const std::uint64_t p = primes[rng.below(std::size(primes))];
        const int tile = tiles[rng.below(std::size(tiles))];
        const long m = static_cast<long>(rng.below(700)), n = static_cast<long>(rng.below(700));
        INFO("iteration " << it << ": " << m << "x" << n << " p = " << p << " tile " << tile);
        BoundBackend be(m, n, p, tile, rng.next());
        const long r = static_cast<long>(blocked::blocked_rank(be, m, n, p, tile));
        CHECK(be.violations == 0);
        CHECK(r == be.pivots);
        CHECK(r <= std::min(m, n));
        wide_runs += be.wide && !be.half;
        half_runs += be.half;
        wide_combines += be.combines;
    }
    CHECK(wide_runs > 0);
    CHECK(half_runs > 0);
    CHECK(wide_combines > 0);
}

TEST_CASE("two-limb scalars: products, reductions, inverses, limbs and the combine against 128-bit integers") {
    auto rng = seprank_test::rng_for("rank-blocked-wide-scalars");
    INFO("seed " << seprank_test::seed());
    __extension__ typedef __int128 i128;
    // centred residue of a 128-bit integer
    const auto centre = [](i128 x, std::uint64_t p) {
        const i128 pi = static_cast<i128>(p);
        i128 r = x % pi;
        if (r < 0) r += pi;
        if (r > pi / 2) r -= pi;
        return static_cast<std::int64_t>(r);
    };
    // 2^31 - 1 and 2^31 + 11: the largest inverse on 32-bit integers and the first on 64-bit
    const std::uint64_t primes[] = {blocked::kMaxPrime + 20 /* 2^26 + 15 */, 1080880789, 2147483647, 2147483659, 68719476767, blocked_max_prime};
    for (const std::uint64_t p : primes) {
        INFO("p = " << p);
        const std::int64_t h = static_cast<std::int64_t>(p / 2), pi = static_cast<std::int64_t>(p);
        const double pd = static_cast<double>(p), pinv = 1.0 / pd;
        const std::int64_t c46 = blocked::wide_c46(p);
        CHECK(c46 == centre(static_cast<i128>(1) << 46, p));
        // the extremes first, then random residues
        std::vector<std::int64_t> xs = {0, 1, -1, h, -h, h - 1, -(h - 1), 1 << 22, -(1 << 22)};
        for (int i = 0; i < 200; ++i) xs.push_back(static_cast<std::int64_t>(rng.below(p)) - h);
        long bad = 0;
        for (const std::int64_t a : xs)
            for (const std::int64_t b : {xs[3], xs[4], xs[(static_cast<std::size_t>(a) * 7 + 3) % xs.size()], std::int64_t{2}}) {
                bad += blocked::wide_mul_i(a, b, pi, pinv) != centre(static_cast<i128>(a) * b, p);
                bad += blocked::wide_submul(static_cast<double>(b), static_cast<double>(a), static_cast<double>(b), pd, pinv) !=
                       static_cast<double>(centre(static_cast<i128>(b) - static_cast<i128>(a) * b, p));
            }
        CHECK(bad == 0);
        // wide_reduce over its whole range |x| <= 2^62
        for (const std::int64_t x : {std::int64_t{1} << 62, -(std::int64_t{1} << 62), (std::int64_t{1} << 53), -(std::int64_t{1} << 53),
                                     static_cast<std::int64_t>(rng.next() >> 2), -static_cast<std::int64_t>(rng.next() >> 2), h + 1, -h - 1})
            CHECK(blocked::wide_reduce(x, pi, pinv) == centre(x, p));
        // inverses
        for (std::size_t i = 0; i < 20; ++i) {
            const std::int64_t a = xs[i] == 0 ? 5 : xs[i];
            CHECK(blocked::wide_mul(static_cast<double>(a), blocked::wide_inverse(static_cast<double>(a), p), pd, pinv) == 1);
        }
        // limbs: |x1|, |x0| <= 2^22 and x = x1 2^23 + x0 at the extremes of the range; with
        // one-sided limbs (p < 2^31) |x1| <= 2^14, |x0| <= 2^15 and x = x1 2^16 + x0
        CHECK(blocked::limb_base(p) == (p < (std::uint64_t{1} << 31) ? blocked::kHalfLimb : blocked::kLimb));
        for (const std::int64_t x : xs) {
            const double xd = static_cast<double>(x), x1 = blocked::limb_hi(xd, blocked::kLimb), x0 = xd - x1 * blocked::kLimb;
            bad += std::fabs(x1) > 4194304.0 || std::fabs(x0) > 4194304.0 || x1 * blocked::kLimb + x0 != xd;
            if (!blocked::half_mode(p)) continue;
            const double y1 = blocked::limb_hi(xd, blocked::kHalfLimb), y0 = xd - y1 * blocked::kHalfLimb;
            bad += std::fabs(y1) > 16384.0 || std::fabs(y0) > 32768.0 || y1 * blocked::kHalfLimb + y0 != xd;
        }
        CHECK(bad == 0);
        // the combine at the extreme product sums (|P| = 2^53) and at random ones, both signs of alpha, beta 0 and 1
        const double big = 9007199254740992.0;  // 2^53
        for (int i = 0; i < 200; ++i) {
            // i < 8: every sign pattern of (+-2^53, +-2^53, +-2^53); then uniform in [-2^52, 2^52)
            const auto draw = [&](int bit) {
                return i < 8 ? ((i >> bit) & 1 ? big : -big) : static_cast<double>(static_cast<std::int64_t>(rng.next() >> 11) - (std::int64_t{1} << 52));
            };
            const double p2 = draw(0), p1 = draw(1), p0 = draw(2);
            const std::int64_t c = xs[static_cast<std::size_t>(i) % xs.size()];
            const double alpha = i % 2 ? 1.0 : -1.0, beta = i % 3 ? 1.0 : 0.0;
            const i128 sum = static_cast<i128>(static_cast<std::int64_t>(p2)) * (static_cast<i128>(1) << 46) +
                             static_cast<i128>(static_cast<std::int64_t>(p1)) * (1 << 23) + static_cast<std::int64_t>(p0);
            const i128 want = (beta != 0 ? c : 0) + (alpha < 0 ? -sum : sum);
            bad += blocked::wide_combine(static_cast<double>(c), p2, p1, p0, alpha, beta, pi, pinv, c46) != static_cast<double>(centre(want, p));
            if (!blocked::half_mode(p)) continue;
            const i128 half_sum = static_cast<i128>(static_cast<std::int64_t>(p1)) * 65536 + static_cast<std::int64_t>(p0);
            const i128 half_want = (beta != 0 ? c : 0) + (alpha < 0 ? -half_sum : half_sum);
            bad += blocked::half_combine(static_cast<double>(c), p1, p0, alpha, beta, pi, pinv) != static_cast<double>(centre(half_want, p));
        }
        CHECK(bad == 0);
    }
    // one-sided limbs: a 256-term sum of products of a centred entry (|x| <= 2^30 - 1) and a
    // limb (|x0| <= 2^15) stays below 2^53
    CHECK(blocked::half_mode(blocked::kMaxHalfPrime));
    CHECK_FALSE(blocked::half_mode(blocked::kMaxHalfPrime + 12 /* 2^31 + 11, the next prime */));
    CHECK_FALSE(blocked::half_mode(blocked::kMaxPrime));
    CHECK(static_cast<double>(blocked::kWideInner) * static_cast<double>(blocked::kMaxHalfPrime / 2) * 32768.0 < 9007199254740992.0);
    CHECK(blocked::max_inner(blocked_max_prime) == blocked::kWideInner);
    CHECK(2 * blocked::kWideInner * (std::int64_t{1} << 44) == (std::int64_t{1} << 53));  // the middle limb sum is exact
}

TEST_CASE("rank_modular_blocked, one-sided limbs at the edge of exactness: entries of size p/2, full 256-wide products, = nmod_mat_rank") {
    // Every product of the two-limb mode below 2^31 sums up to 256 terms of a centred entry
    // and a 16-bit limb: matrices whose entries are all of the largest size (h or -h,
    // h = (p - 1)/2) make the first panel's sums as large as they get (2^53 at most).
    auto rng = seprank_test::rng_for("rank-blocked-half-edge");
    INFO("seed " << seprank_test::seed());
    for (const std::uint64_t p : {blocked::kMaxHalfPrime, std::uint64_t{1080880789}, std::uint64_t{67108879}}) {
        REQUIRE(blocked::half_mode(p));
        const std::uint64_t h = p / 2;
        for (int it = 0; it < seprank_test::iterations(4); ++it) {
            const long m = 300 + static_cast<long>(rng.below(60)), n = 300 + static_cast<long>(rng.below(60));
            // entries h or p - h (= -h) at random; deficient: then some rows replaced by
            // copies or negations of earlier rows, so that every entry stays ±h
            const bool deficient = it % 2 == 1;
            NmodMat a(m, n, p);
            for (long i = 0; i < m; ++i)
                for (long j = 0; j < n; ++j) nmod_mat_entry(a.get(), i, j) = rng.below(2) ? h : p - h;
            if (deficient)
                for (long i = 1; i < m; ++i) {
                    if (rng.below(3) != 0) continue;  // about a third of the rows
                    const long from = static_cast<long>(rng.below(static_cast<std::uint64_t>(i)));
                    const bool negate = rng.below(2) == 0;
                    for (long j = 0; j < n; ++j) {
                        const std::uint64_t v = nmod_mat_entry(a.get(), from, j);
                        nmod_mat_entry(a.get(), i, j) = negate ? p - v : v;
                    }
                }
            INFO("p = " << p << ", " << m << "x" << n << (deficient ? " deficient" : ""));
            const long ref = rank_modular(a);
            CHECK(rank_modular_blocked(a) == ref);
            CHECK(rank_modular_blocked(a, 64) == ref);
            if (deficient) CHECK(ref < std::min(m, n));
        }
    }
}

TEST_CASE("accepted_rank_prime: both modes' primes, up to 2^46 - 21, against FLINT") {
    auto rng = seprank_test::rng_for("rank-blocked-wide-primes");
    INFO("seed " << seprank_test::seed());
    CHECK(blocked::accepted_rank_prime(blocked_max_prime));
    CHECK(prev_prime(1ULL << 46) == blocked_max_prime);
    CHECK(!blocked::accepted_rank_prime(70368744177679));  // the first prime above 2^46
    CHECK(blocked::accepted_rank_prime(67108879));        // the first above 2^26
    CHECK(blocked::accepted_rank_prime(blocked::kMaxPrime));
    CHECK(!blocked::accepted_rank_prime(1));
    CHECK(!blocked::accepted_rank_prime(3215031751));     // strong pseudoprime to the bases 2, 3, 5, 7
    CHECK(!blocked::accepted_rank_prime(3474749660383));  // strong pseudoprime to the bases 2 .. 13
    long bad = 0;
    for (int i = 0; i < 3000; ++i) {
        const std::uint64_t x = (std::uint64_t{1} << 26) + rng.below(blocked_max_prime - (std::uint64_t{1} << 26));
        bad += blocked::accepted_rank_prime(x) != (n_is_prime(x) != 0);
    }
    CHECK(bad == 0);
}

TEST_CASE("rank_modular_blocked, two-limb mode (2^26 < p < 2^46) = nmod_mat_rank: planted ranks, every tile, non-generic profiles") {
    auto rng = seprank_test::rng_for("rank-blocked-wide");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    long compared = 0, deficient = 0, slabs = 0;
    blocked::LeafStats leaves;
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const seprank_test::BlockedCase c = seprank_test::blocked_case(rng, it, 140, seprank_test::Primes::two_limb);
        const std::uint64_t p = c.p;
        REQUIRE(blocked::wide_mode(p));
        const long m = c.m, n = c.n, r = c.r;
        const int t = (m > 120 || n > 120) && c.tile > 0 && c.tile < 8 ? 8 : c.tile;
        const NmodMat a = seprank_test::planted(rng, c.kind, m, n, r, p);
        INFO("iteration " << it << ": " << seprank_test::name(c.kind) << " " << m << "x" << n << " inner " << r << " p = " << p << " tile " << t);
        const long ref = rank_modular(a);
        blocked::LeafStats st;
        CHECK(blocked::rank_with_combine_error(a, t, 0.0, &st) == ref);
        leaves.splits += st.splits;
        leaves.fallbacks += st.fallbacks;
        ++compared;
        deficient += ref < std::min(m, n);
        slabs += n > blocked::wide_slab(n, t) && ref > 0;
        if (c.kind == seprank_test::Planted::antidiagonal || c.kind == seprank_test::Planted::permutation)
            CHECK(ref == (c.kind == seprank_test::Planted::antidiagonal ? std::min(m, n) : std::min({r, m, n})));
        if (c.kind == seprank_test::Planted::zero) CHECK(ref == 0);
    }
    CHECK(compared >= 200);
    CHECK(deficient > compared / 4);
    CHECK(slabs > 0);  // updates split into several slabs
    MESSAGE("leaves in two phases: " << leaves.splits << ", of them run again in one: " << leaves.fallbacks);
    CHECK(leaves.splits > 100);  // leaves in two phases, in this mode's arithmetic too
    // a panel wider than one limb GEMM (chunks of 256), and a trailing update in slabs at the default tile
    const std::uint64_t p = blocked_max_prime;
    const NmodMat a = seprank_test::product(rng, 300, 700, 290, p);
    CHECK(rank_modular(a) == 290);  // full inner rank except with chance < 2/p
    CHECK(rank_modular_blocked(a, 600) == 290);
    CHECK(rank_modular_blocked(a, 40) == 290);
}

TEST_CASE("rank_modular_blocked, two-limb mode: 600 x 700 across panels, zero leading panel, no leading minor") {
    auto rng = seprank_test::rng_for("rank-blocked-wide-large");
    INFO("seed " << seprank_test::seed());
    for (const std::uint64_t p : {std::uint64_t{67108879}, std::uint64_t{1099511627689}, blocked_max_prime}) {
        INFO("p = " << p);
        NmodMat a = seprank_test::product(rng, 600, 700, 500, p);
        CHECK(rank_modular(a) == 500);  // except with chance < 2/p
        CHECK(rank_modular_blocked(a) == 500);
        for (long i = 0; i < 600; ++i)
            for (long j = 0; j < 300; ++j) a.set(i, j, 0);
        const long ref = rank_modular(a);
        CHECK(ref == 400);
        CHECK(rank_modular_blocked(a) == ref);
        CHECK(rank_modular_blocked(a, 64) == ref);
        const NmodMat d = seprank_test::planted(rng, seprank_test::Planted::antidiagonal, 300, 300, 0, p);
        CHECK(rank_modular_blocked(d, 7) == 300);
        const NmodMat z = seprank_test::planted(rng, seprank_test::Planted::no_leading_minor, 200, 260, 0, p);
        CHECK(rank_modular_blocked(z, 16) == rank_modular(z));
    }
}

TEST_CASE("two-limb mode: a broken combine is caught by the comparison with FLINT") {
    auto rng = seprank_test::rng_for("rank-blocked-wide-broken");
    INFO("seed " << seprank_test::seed());
    const std::uint64_t p = blocked_max_prime;
    long caught = 0, runs = 0;
    for (int it = 0; it < 20; ++it) {
        const long n = 40 + static_cast<long>(rng.below(60)), r = n / 2;
        const NmodMat a = seprank_test::product(rng, n, n, r, p);
        const long ref = rank_modular(a);
        CHECK(blocked::rank_with_combine_error(a, 8, 0.0) == ref);  // the hook itself changes nothing
        // an error of one unit in every combined entry (as a lost carry of P0 would make)
        caught += blocked::rank_with_combine_error(a, 8, 1.0) != ref;
        ++runs;
    }
    CHECK(caught == runs);  // the broken combine fills the planted deficiency every time
    // the small-prime mode has no combine: the hook cannot change it
    const NmodMat s = seprank_test::product(rng, 50, 50, 25, 8388593);
    CHECK(blocked::rank_with_combine_error(s, 8, 1.0) == rank_modular(s));
}

namespace {

// The packed LU that BorderedLU left in lu (side n) times itself, against the matrix's rows
// in the order of the permutation: P·X = L·U.
bool lu_reproduces(const NmodMat& lu, const std::vector<slong>& perm, const NmodMat& x, long n) {
    const std::uint64_t p = lu.modulus();
    NmodMat l(n, n, p), u(n, n, p), prod(n, n, p);
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j) {
            const std::uint64_t v = nmod_mat_entry(lu.get(), i, j);
            if (j < i) nmod_mat_entry(l.get(), i, j) = v;
            else nmod_mat_entry(u.get(), i, j) = v;
        }
    for (long i = 0; i < n; ++i) nmod_mat_entry(l.get(), i, i) = 1;
    nmod_mat_mul(prod.get(), l.get(), u.get());
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < n; ++j)
            if (nmod_mat_entry(prod.get(), i, j) != nmod_mat_entry(x.get(), perm[static_cast<std::size_t>(i)], j)) return false;
    return true;
}

}  // namespace

TEST_CASE("BorderedLU = nmod_mat_rank step by step: planted ranks, pivots off the diagonal, every growth") {
    auto rng = seprank_test::rng_for("rank-bordered");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    long steps = 0, deficient = 0, reproduced = 0, pivoted = 0;
    const std::uint64_t primes[] = {2, 3, 65537, (std::uint64_t{1} << 31) - 1, 695821997775791ULL, prev_prime(std::uint64_t{1} << 62)};
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const std::uint64_t p = primes[rng.below(6)];
        const long n = 1 + static_cast<long>(rng.below(it % 10 == 0 ? 160 : 40));
        // The growth: by 1, by a factor about 1.25, or the whole matrix at once.
        const int how = static_cast<int>(rng.below(3));
        std::vector<long> sides;
        for (long k = 0; k < n;) {
            k = how == 0 ? k + 1 : how == 1 ? std::min(n, std::max(k + 1, k + k / 4 + static_cast<long>(rng.below(4)))) : n;
            sides.push_back(k);
        }
        const long kinds = static_cast<long>(seprank_test::Planted::count);
        const long kind = static_cast<long>(rng.below(static_cast<std::uint64_t>(kinds + 4)));
        NmodMat x(n, n, p);
        if (kind == kinds) {
            // Full rank generically, with a zero diagonal: every step's pivots leave it.
            for (long i = 0; i < n; ++i)
                for (long j = 0; j < n; ++j) x.set(i, j, i == j ? 0 : rng.below(p));
        } else if (kind == kinds + 1) {
            // Block upper triangular along the growth, each step's diagonal block a scaled
            // antidiagonal: full rank at every step, S = D, and S's LU must pivot.
            long lo = 0;
            for (const long hi : sides) {
                for (long i = lo; i < hi; ++i) {
                    x.set(i, lo + hi - 1 - i, seprank_test::nonzero(rng, p));
                    for (long j = hi; j < n; ++j) x.set(i, j, rng.below(p));
                }
                lo = hi;
            }
        } else if (kind == kinds + 2 || kind == kinds + 3) {
            // Each step's diagonal block a scaled random cycle (no permutation its own
            // inverse), with random entries right of it (B; C = 0) or below it (C; B = 0):
            // full rank at every step, and S = D (or D after a zero update) must pivot.
            long lo = 0;
            for (const long hi : sides) {
                std::vector<long> order;
                for (long i = lo; i < hi; ++i) order.push_back(i);
                for (long i = static_cast<long>(order.size()) - 1; i > 0; --i)
                    std::swap(order[static_cast<std::size_t>(i)], order[rng.below(static_cast<std::uint64_t>(i + 1))]);
                for (std::size_t c = 0; c < order.size(); ++c)
                    x.set(order[c], order[(c + 1) % order.size()], seprank_test::nonzero(rng, p));
                for (long i = lo; i < hi; ++i)
                    for (long j = hi; j < n; ++j) {
                        if (kind == kinds + 2) x.set(i, j, rng.below(p));
                        else x.set(j, i, rng.below(p));
                    }
                lo = hi;
            }
        } else {
            x = seprank_test::planted(rng, static_cast<seprank_test::Planted>(kind), n, n, static_cast<long>(rng.below(static_cast<std::uint64_t>(n) + 1)), p);
        }
        INFO("iteration " << it << ": kind " << kind << ", n = " << n << ", p = " << p << ", growth " << how);
        detail::BorderedLU lu;
        NmodMat cur(0, 0, p);
        long old = 0;
        for (const long k : sides) {
            NmodMat grown(k, k, p);
            for (long i = 0; i < old; ++i)
                for (long j = 0; j < old; ++j) nmod_mat_entry(grown.get(), i, j) = nmod_mat_entry(cur.get(), i, j);
            for (long i = 0; i < k; ++i)
                for (long j = i < old ? old : 0; j < k; ++j) nmod_mat_entry(grown.get(), i, j) = x.at(i, j);
            NmodMat lead(k, k, p);
            for (long i = 0; i < k; ++i)
                for (long j = 0; j < k; ++j) nmod_mat_entry(lead.get(), i, j) = x.at(i, j);
            const long r = lu.rank(grown);
            CHECK(r == rank_modular(lead));
            ++steps;
            if (r < k) {
                CHECK(lu.factored() == -1);
                CHECK_THROWS_AS(lu.rank(grown), internal_error);
                ++deficient;
                break;
            }
            CHECK(lu.factored() == k);
            if (lu_reproduces(grown, lu.permutation(), x, k)) ++reproduced;
            else FAIL_CHECK("P·X != L·U at side " << k);
            for (long i = old; i < k; ++i) pivoted += old > 0 && lu.permutation()[static_cast<std::size_t>(i)] != i;
            cur = std::move(grown);
            old = k;
        }
    }
    CHECK(steps >= 600);
    CHECK(deficient >= 100);
    CHECK(reproduced >= 300);
    CHECK(pivoted > 0);  // pivots in a border's LU (S), not only in the first step's
}

TEST_CASE("BorderedLU: a side that did not grow, a 0 x 0 matrix, and misuse") {
    const std::uint64_t p = 65537;
    detail::BorderedLU lu;
    NmodMat e(0, 0, p);
    CHECK(lu.rank(e) == 0);
    CHECK(lu.factored() == 0);
    NmodMat a = NmodMat::from_rows({{0, 1}, {1, 0}}, p);
    CHECK(lu.rank(a) == 2);
    CHECK(lu.rank(a) == 2);  // nothing new: the same rank
    NmodMat smaller(1, 1, p);
    CHECK_THROWS_AS(lu.rank(smaller), internal_error);
    NmodMat wide(2, 3, p);
    CHECK_THROWS_AS(lu.rank(wide), internal_error);
    detail::BorderedLU composite;
    NmodMat c(2, 2, 65536);
    CHECK_THROWS_AS(composite.rank(c), invalid_input);
}

TEST_CASE("BorderedLU resumed from a kept permutation = the object that made it; a non-permutation is refused") {
    auto rng = seprank_test::rng_for("rank-bordered-resume");
    INFO("seed " << seprank_test::seed());
    const std::uint64_t p = 1000003;
    for (int it = 0; it < seprank_test::iterations(50); ++it) {
        const long k = 1 + static_cast<long>(rng.below(30)), n = k + 1 + static_cast<long>(rng.below(30));
        NmodMat x(n, n, p);
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j) x.set(i, j, rng.below(4) == 0 ? 0 : rng.below(p));  // zeros: pivoting
        NmodMat lead(k, k, p);
        for (long i = 0; i < k; ++i)
            for (long j = 0; j < k; ++j) lead.set(i, j, x.at(i, j));
        detail::BorderedLU first;
        if (first.rank(lead) < k) continue;
        detail::BorderedLU resumed(first.permutation());
        CHECK(resumed.factored() == k);
        NmodMat grown(n, n, p);
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j) grown.set(i, j, i < k && j < k ? lead.at(i, j) : x.at(i, j));
        NmodMat copy = grown;
        const long r = resumed.rank(grown);
        CHECK(r == first.rank(copy));
        CHECK(r == rank_modular(x));
        if (r == n) {
            CHECK(resumed.rank(grown) == n);  // the side did not grow: the same rank
            CHECK(grown == copy);             // the same LU as the object that made the permutation
        }
    }
    CHECK_THROWS_AS(detail::BorderedLU(std::vector<slong>{0, 0}), internal_error);
    CHECK_THROWS_AS(detail::BorderedLU(std::vector<slong>{1, 2}), internal_error);
    CHECK(detail::BorderedLU(std::vector<slong>{}).factored() == 0);
}

TEST_CASE("to_string(Certificate) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<Certificate>({Certificate::blocks, Certificate::pivot_span, Certificate::hadamard}, "Certificate", certificate_from_string);
}
