// The CUDA engine's rank (rank_modular_cuda, device.hpp) against FLINT's, on the matrices
// that test the CPU reference of the same algorithm (rank_modular_blocked, test_rank.cpp);
// its graded session (graded_device.hpp) against the degree split of the CPU tape's values,
// and the graded evaluation on the device against the one on the CPU.
// Where no GPU is usable (CI, this build without the plugin) the request must be refused
// with one line starting "Device cuda:", and that is what is checked.
#include "seprank/device.hpp"
#include "../cuda/seprank_cuda.h"
#include "rank/graded_device.hpp"  // src/: the session's library side
#include "rank/graded_impl.hpp"    // src/: the session's algorithm (FLINT-free)
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"
#include "seprank/tape.hpp"
#include "blocked_cases.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <string>

using namespace seprank;

namespace {

bool have_gpu() { return cuda_info().devices > 0; }
// The plugin's CPU stand-in (tests/cuda_emulator.cpp), whose memory a test may set.
bool emulated_device() { return have_gpu() && cuda_info().name.find("emulated") != std::string::npos; }
// For a test only the emulated device can run (test suite "emulated": meson runs it with
// the emulated plugin only, suite device; the unit suite leaves it out): whether it runs
// here. Where the plugin named is the emulator it must be the device found; on a real GPU
// (tests/device/run.sh) the case says why not (`what`) and checks nothing.
bool on_emulated_device(const char* what) {
    if (emulated_device()) return true;
    const char* plugin = std::getenv("SEPRANK_CUDA_PLUGIN");
    if (plugin != nullptr && std::string(plugin).find("emulated") != std::string::npos)
        FAIL("SEPRANK_CUDA_PLUGIN names the emulator, but the device found is " << (have_gpu() ? cuda_info().name : cuda_info().why));
    MESSAGE("not the emulated device: " << what);
    return false;
}

}  // namespace

TEST_CASE("without a GPU, rank_modular_cuda is refused in one line starting 'Device cuda:'") {
    const CudaInfo& info = cuda_info();
    MESSAGE("CUDA: built " << info.built << ", loaded " << info.loaded << ", devices " << info.devices << ", "
                           << (info.devices > 0 ? info.name : info.why));
    if (info.loaded) CHECK(info.max_prime == blocked_max_prime);  // the plugin's limit is the shared algorithm's
    const NmodMat a = NmodMat::from_rows({{1, 2}, {3, 4}}, 7);
    if (have_gpu()) {
        CHECK(rank_modular_cuda(a) == 2);
        return;
    }
    CHECK(info.why.find('\n') == std::string::npos);
    try {
        (void)rank_modular_cuda(a);
        FAIL("rank_modular_cuda ran without a device");
    } catch (const invalid_input& e) {
        const std::string msg = e.what();
        CHECK(msg.rfind("Device cuda: ", 0) == 0);
        CHECK(msg.find('\n') == std::string::npos);
    }
    CHECK_THROWS_AS(choose_device(Device::cuda), invalid_input);
}

TEST_CASE("rank_modular_cuda = rank_modular on planted ranks, every tile, non-generic rank profiles") {
    if (!have_gpu()) {
        MESSAGE("no CUDA device: the GPU comparison is skipped (" << cuda_info().why << ")");
        CHECK_THROWS_AS(rank_modular_cuda(NmodMat(3, 3, 5)), invalid_input);
        return;
    }
    // A composite modulus is refused (the elimination inverts pivots).
    CHECK_THROWS_AS(rank_modular_cuda(NmodMat(3, 3, 15)), invalid_input);
    const NmodMat c15(3, 3, 15);
    CHECK_THROWS_AS(rank_modular_cuda_many({&c15}), invalid_input);
    auto rng = seprank_test::rng_for("device-rank");
    MESSAGE("seed " << seprank_test::seed() << ", device " << cuda_info().name);
    INFO("seed " << seprank_test::seed());
    long compared = 0, two_limb = 0;
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        // every fourth case a prime of the two-limb mode (2^26 < p < 2^46)
        const seprank_test::BlockedCase c = seprank_test::blocked_case(rng, it, 300);
        const std::uint64_t p = c.p;
        const auto kind = c.kind;
        const int tile = c.tile;
        const long m = c.m, n = c.n, r = c.r;
        const NmodMat a = seprank_test::planted(rng, kind, m, n, r, p);
        INFO("iteration " << it << ": " << seprank_test::name(kind) << " " << m << "x" << n << " inner " << r << " p = " << p
                          << " tile " << tile);
        const long ref = rank_modular(a);
        CHECK(rank_modular_cuda(a, tile) == ref);
        CHECK(rank_modular_blocked(a, tile) == ref);
        ++compared;
        two_limb += p > 67108859;
    }
    CHECK(compared >= 200);
    CHECK(two_limb >= compared / 5);
}

TEST_CASE("rank_modular_cuda_many = rank_modular on each: batches of planted matrices side by side, one alone, refusals") {
    if (!have_gpu()) {
        const NmodMat c15(3, 3, 15);
    CHECK_THROWS_AS(rank_modular_cuda_many({&c15}), invalid_input);
        return;
    }
    auto rng = seprank_test::rng_for("device-rank-many");
    INFO("seed " << seprank_test::seed());
    // On a GPU sides up to 2,500 (several leaves, GEMMs and the cooperative leaf on every
    // stream) and one above 4,096 (ranked alone); through the CPU stand-in small ones.
    const bool real = !emulated_device();
    long compared = 0, side_by_side = 0;
    for (int it = 0; it < seprank_test::iterations(real ? 6 : 20); ++it) {
        const seprank_test::BlockedCase first = seprank_test::blocked_case(rng, it, 300);
        const std::uint64_t p = first.p;
        std::vector<NmodMat> mats;
        const int count = static_cast<int>(rng.below(12));
        for (int q = 0; q < count; ++q) {
            const seprank_test::BlockedCase c = seprank_test::blocked_case(rng, it * 13 + q, 300);
            long m = c.m, n = c.n;
            if (real && q % 3 == 0) m = 300 + static_cast<long>(rng.below(2200)), n = 300 + static_cast<long>(rng.below(2200));
            if (real && it == 0 && q == 0) m = 4200, n = 600;  // larger side above 4096: alone
            const long r = static_cast<long>(rng.below(static_cast<std::uint64_t>(std::min(m, n) + 2)));
            mats.push_back(seprank_test::planted(rng, c.kind, m, n, r, p));
        }
        std::vector<const NmodMat*> ptrs;
        for (const NmodMat& a : mats) ptrs.push_back(&a);
        INFO("iteration " << it << ": " << count << " matrices mod " << p);
        int streams = -1;
        double secs = -1;
        const std::vector<long> got = rank_modular_cuda_many(ptrs, &secs, &streams);
        REQUIRE(got.size() == mats.size());
        long nonempty = 0;
        for (std::size_t q = 0; q < mats.size(); ++q) {
            INFO("matrix " << q << ": " << mats[q].rows() << " x " << mats[q].cols());
            CHECK(got[q] == rank_modular(mats[q]));
            nonempty += mats[q].rows() > 0 && mats[q].cols() > 0;
            ++compared;
        }
        CHECK(secs >= 0);
        CHECK(streams >= (nonempty > 0 ? 1 : 0));
        CHECK(streams <= std::max(1L, std::min<long>(nonempty, graded::streams_from_environment())));
        side_by_side += streams > 1;
    }
    CHECK(compared >= 20);
    // SEPRANK_CUDA_STREAMS=1 (the device script's one-stream run) ranks them one at a time.
    if (graded::streams_from_environment() > 1)
        CHECK(side_by_side >= 1);
    else
        CHECK(side_by_side == 0);
    // Refusals, before any work: mixed primes, an entry that is not a residue.
    NmodMat a(3, 3, 5), b(3, 3, 7);
    CHECK_THROWS_WITH_AS(rank_modular_cuda_many({&a, &b}), doctest::Contains("matrix 1 is mod 7"), invalid_input);
    NmodMat bad(2, 2, 5);
    bad.get()->rows[1][1] = 9;
    CHECK_THROWS_WITH_AS(rank_modular_cuda_many({&a, &bad}), doctest::Contains("matrix 1: entry 3 is 9"), invalid_input);
    CHECK(rank_modular_cuda_many({}).empty());
}

TEST_CASE("rank_modular_cuda on a planted 4096 x 4096 and a 1000 x 3000, and its refusals") {
    if (!have_gpu()) {
        CHECK_THROWS_AS(rank_modular_cuda(NmodMat(1, 1, 65535)), invalid_input);  // no device comes first
        return;
    }
    auto rng = seprank_test::rng_for("device-rank-large");
    INFO("seed " << seprank_test::seed());
    const std::uint64_t p = 8388593;
    {
        const NmodMat a = seprank_test::dependent_rows_matrix(rng, 4096, 4096, 100, p);
        const long ref = rank_modular_fflas(a);  // = nmod_mat_rank (test_rank.cpp), faster at this size
        CHECK(ref == 3996);                      // except with chance below 2/p
        CHECK(rank_modular_cuda(a) == ref);
    }
    {
        const NmodMat a = seprank_test::product(rng, 1000, 3000, 900, p);
        const long ref = rank_modular_fflas(a);
        CHECK(ref == 900);
        CHECK(rank_modular_cuda(a) == ref);
        CHECK(rank_modular_cuda(a, 64) == ref);
    }
    // the leaf's two phases (blocked_rank_impl.hpp): a first leaf whose top holds only column
    // 0's pivot (run again in one phase), and zero rows first that the top's scan skips (a
    // tall one: the scan crosses 16 rounds of 256 rows), in both modes
    for (const std::uint64_t q : {p, std::uint64_t{1080880789}}) {
        INFO("p = " << q);
        const NmodMat f = seprank_test::leaf_fallback_matrix(rng, 300, 200, q);
        CHECK(rank_modular_cuda(f) == rank_modular(f));
        CHECK(rank_modular_cuda(f, 32) == rank_modular(f));
        const NmodMat z = seprank_test::leaf_fallback_matrix(rng, 4500, 120, q, 4000);
        CHECK(rank_modular(z) == 120);
        CHECK(rank_modular_cuda(z) == 120);
        // more zero rows first than the scan reads (kScanRows): the scan stops with an empty
        // top, the second phase finds the pivots below, and the leaf runs again in one phase
        const NmodMat c = seprank_test::leaf_fallback_matrix(rng, 4500, 70, q, 4200);
        CHECK(rank_modular_cuda(c) == rank_modular(c));
    }
    CHECK_THROWS_WITH_AS(rank_modular_cuda(NmodMat(2, 2, 65535)), doctest::Contains("65535"), invalid_input);  // composite
    CHECK_THROWS_WITH_AS(rank_modular_cuda(NmodMat(2, 2, 70368744177679)), doctest::Contains("70368744177679"), invalid_input);  // above 2^46
    CHECK_THROWS_AS(rank_modular_cuda(NmodMat(2, 2, 7), -1), invalid_input);
    // the two-limb mode at the limit: 2^46 - 21, on a planted 2000 x 2000 of rank 1900 (600 x 600 of
    // rank 500 on the emulated device, whose elimination is the CPU reference) and a 700 x 2500
    // (several slabs of 2048 columns)
    {
        const std::uint64_t q = blocked_max_prime;
        const long side = cuda_info().name.find("emulated") != std::string::npos ? 600 : 2000;
        const NmodMat a = seprank_test::dependent_rows_matrix(rng, side, side, 100, q);
        const long ref = rank_modular(a);
        CHECK(ref == side - 100);  // except with chance below 2/q
        CHECK(rank_modular_cuda(a) == ref);
        const NmodMat b = seprank_test::product(rng, 700, 2500, 650, q);
        CHECK(rank_modular_cuda(b) == 650);
        CHECK(rank_modular_cuda(b, 32) == 650);
        CHECK(rank_modular_blocked(b, 32) == 650);
    }
}

TEST_CASE("the plugin's sr_cuda_rank checks its arguments before it needs a device") {
    const CudaInfo& info = cuda_info();
    if (!info.loaded) {
        MESSAGE("no CUDA plugin loaded (" << info.why << "): its entry is not checked");
        CHECK(info.devices == 0);
        return;
    }
    // The file cuda_info() loaded, opened again: dlopen returns the same handle.
    void* h = dlopen(info.plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(h != nullptr);
    using RankFn = int (*)(const uint64_t*, int64_t, int64_t, uint64_t, int, int64_t*, sr_cuda_status*);
    const auto rank = reinterpret_cast<RankFn>(dlsym(h, "sr_cuda_rank"));
    REQUIRE(static_cast<bool>(rank));
    const std::uint64_t a[4] = {1, 2, 3, 4};
    std::int64_t r = -1;
    sr_cuda_status st{};
    CHECK(rank(a, 2, 2, 65535, 0, &r, &st) == SR_CUDA_INVALID);  // composite
    CHECK(std::string(st.message).find("65535") != std::string::npos);
    CHECK(rank(a, 2, 2, 70368744177679 /* the first prime above 2^46 */, 0, &r, &st) == SR_CUDA_INVALID);
    CHECK(std::string(st.message).find("70368744177679") != std::string::npos);
    CHECK(rank(a, 2, 2, blocked_max_prime - 2 /* 2^46 - 23, composite */, 0, &r, &st) == SR_CUDA_INVALID);
    CHECK(rank(a, 2, 2, 7, -3, &r, &st) == SR_CUDA_INVALID);
    CHECK(std::string(st.message).find("tile -3") != std::string::npos);
    CHECK(rank(a, 0, 5, 7, 0, &r, &st) == SR_CUDA_OK);  // empty: rank 0 without a device
    CHECK(r == 0);
    const int code = rank(a, 2, 2, 7, 0, &r, &st);
    if (info.devices > 0) {
        CHECK(code == SR_CUDA_OK);
        CHECK(r == 2);
        CHECK(st.gpu_seconds > 0);
        CHECK(st.bytes >= 32);
        CHECK(st.leaf_splits == 0);  // 2 active rows: no row below a top
        CHECK(st.leaf_fallbacks == 0);
        // The leaf's two phases as the CPU reference counts them (test_rank.cpp): a first
        // leaf whose top holds one pivot runs again in one phase, once; zero rows first are
        // skipped by the scan; more zero rows than the scan reads (kScanRows) leave every
        // pivot below it, and that leaf runs again.
        auto rng = seprank_test::rng_for("device-leaf-stats");
        const auto run = [&](const NmodMat& m, int tile) {
            std::vector<std::uint64_t> flat;
            for (long i = 0; i < m.rows(); ++i)
                for (long j = 0; j < m.cols(); ++j) flat.push_back(m.at(i, j));
            sr_cuda_status s{};
            std::int64_t got = -1;
            REQUIRE(rank(flat.data(), m.rows(), m.cols(), m.modulus(), tile, &got, &s) == SR_CUDA_OK);
            CHECK(got == rank_modular(m));
            return s;
        };
        for (const std::uint64_t q : {std::uint64_t{8388593}, std::uint64_t{1080880789}}) {
            INFO("p = " << q);
            const NmodMat f = seprank_test::leaf_fallback_matrix(rng, 300, 200, q);
            for (const int tile : {0, 32, 100}) {
                const sr_cuda_status s = run(f, tile);
                CHECK(s.leaf_fallbacks == 1);
                CHECK(s.leaf_splits >= 1);
            }
            const sr_cuda_status z = run(seprank_test::leaf_fallback_matrix(rng, 600, 200, q, 250), 0);
            CHECK(z.leaf_fallbacks == 0);
            CHECK(z.leaf_splits == 7);
            const sr_cuda_status c = run(seprank_test::leaf_fallback_matrix(rng, 4500, 70, q, 4200), 0);
            CHECK(c.leaf_fallbacks >= 1);
        }
    } else {
        CHECK(code == SR_CUDA_NO_DEVICE);
        CHECK(std::string(st.message).find('\n') == std::string::npos);
        CHECK(st.message[0] != '\0');
    }
    dlclose(h);
}

namespace {

// A random homogeneous-or-not network small enough for many steps, its tape mod p.
seprank_test::SpecLimits small_limits() {
    seprank_test::SpecLimits lim;
    lim.max_tokens = 4;
    lim.max_dim = 2;
    lim.max_depth = 2;
    lim.max_inputs_deep = 6;
    return lim;
}

// Coefficient c of pair (i, j): Σ_t f(t·a_i, b_j)·W[t][c] mod p, from the CPU tape's grid.
struct Reference {
    std::vector<std::uint64_t> vals;  // (i·k + j)·nd + t
    long k, nd;
    std::uint64_t coef(const NmodMat& w, long i, long j, long c, std::uint64_t p) const {
        __extension__ typedef unsigned __int128 u128;
        u128 s = 0;
        for (long t = 0; t < nd; ++t) s += static_cast<u128>(vals[static_cast<std::size_t>((i * k + j) * nd + t)]) * w.get()->rows[t][c];
        return static_cast<std::uint64_t>(s % p);
    }
};

}  // namespace

TEST_CASE("graded session: the degree split of a pair = 128-bit reference, primes below 2^31, up to 4096 nodes") {
    auto rng = seprank_test::rng_for("graded-coefficient");
    INFO("seed " << seprank_test::seed());
    __extension__ typedef unsigned __int128 u128;
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const std::uint64_t p = it == 0 ? 2147483647ULL : it == 1 ? 2 : random_prime(rng, 2 + static_cast<unsigned>(rng.below(30)));
        REQUIRE(p < graded::kPrimeLimit);
        // The most nodes twice (16M entries of W each), then up to 300 (the sanitizer stage runs this too).
        const std::int64_t nd = it < 2 ? graded::kMaxNodes : 1 + static_cast<std::int64_t>(rng.below(it % 3 == 0 ? 300 : 40));
        std::vector<std::uint64_t> v(static_cast<std::size_t>(nd)), w(static_cast<std::size_t>(nd * nd));
        const bool top = rng.below(2) == 0;  // every residue p − 1: the largest sums
        for (auto& x : v) x = top ? p - 1 : rng.below(p);
        for (auto& x : w) x = top ? p - 1 : rng.below(p);
        const std::vector<std::uint64_t> wf = graded::split_weights(w.data(), nd * nd, p);
        const graded::SplitArith ar = graded::split_arith(p);
        for (int k = 0; k < 3; ++k) {
            const std::int64_t c = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(nd)));
            u128 ref = 0;
            for (std::int64_t t = 0; t < nd; ++t) ref += static_cast<u128>(v[static_cast<std::size_t>(t)]) * w[static_cast<std::size_t>(t * nd + c)];
            INFO("p = " << p << ", nodes " << nd << ", c = " << c);
            const std::uint64_t got = ar.with([&](const auto& a) { return graded::coefficient(v.data(), nd, wf.data(), c, a); });
            CHECK(got == static_cast<std::uint64_t>(ref % p));
        }
    }
}

TEST_CASE("graded::plan_ranks: every open block once, larger first; the large alone; as many streams as the memory holds") {
    auto rng = seprank_test::rng_for("graded-plan-ranks");
    INFO("seed " << seprank_test::seed());
    const auto bytes = [](std::int64_t s) { return 8.0 * static_cast<double>(s) * static_cast<double>(s) + 1000.0; };
    for (int it = 0; it < seprank_test::iterations(400); ++it) {
        const std::int64_t count = it == 0 ? 0 : static_cast<std::int64_t>(rng.below(20));
        std::vector<std::int64_t> side(static_cast<std::size_t>(count));
        for (auto& x : side) {
            const std::uint64_t kind = rng.below(6);
            x = kind == 0 ? 0 : kind == 1 ? graded::kSideBySide + 1 + static_cast<std::int64_t>(rng.below(5000))
                : kind == 2 ? graded::kSideBySide : 1 + static_cast<std::int64_t>(rng.below(3000));
        }
        const double memory = it % 4 == 0 ? 0.0 : static_cast<double>(rng.below(std::uint64_t{1} << 32));
        const int cap = it % 3 == 0 ? 1 + static_cast<int>(rng.below(graded::kMaxStreams + 2)) : graded::kMaxStreams;
        const graded::RankPlan plan = graded::plan_ranks(side.data(), count, memory, bytes, cap);
        INFO("iteration " << it << ", " << count << " blocks, memory " << memory << ", at most " << cap << " streams");
        std::vector<int> seen(static_cast<std::size_t>(count), 0);
        for (const auto* list : {&plan.alone, &plan.shared})
            for (std::size_t q = 0; q < list->size(); ++q) {
                const std::int64_t b = (*list)[q];
                REQUIRE((b >= 0 && b < count));
                ++seen[static_cast<std::size_t>(b)];
                CHECK((list == &plan.alone) == (side[static_cast<std::size_t>(b)] > graded::kSideBySide));
                if (q > 0) {
                    const std::int64_t a = (*list)[q - 1];
                    const bool ordered = side[static_cast<std::size_t>(a)] > side[static_cast<std::size_t>(b)] ||
                                         (side[static_cast<std::size_t>(a)] == side[static_cast<std::size_t>(b)] && a < b);
                    CHECK(ordered);
                }
            }
        for (std::int64_t b = 0; b < count; ++b) CHECK(seen[static_cast<std::size_t>(b)] == (side[static_cast<std::size_t>(b)] > 0 ? 1 : 0));
        const std::int64_t most = std::min<std::int64_t>(std::min(cap, graded::kMaxStreams), static_cast<std::int64_t>(plan.shared.size()));
        CHECK(plan.streams >= 1);
        CHECK(plan.streams <= std::max<std::int64_t>(1, most));
        const std::vector<std::int64_t> alone = plan.one_at_a_time();  // the large ones, then the rest where one stream fits
        CHECK(alone.size() == plan.alone.size() + (plan.streams == 1 ? plan.shared.size() : 0));
        CHECK(std::equal(plan.alone.begin(), plan.alone.end(), alone.begin()));
        if (plan.shared.size() > 1) {
            const double one = bytes(side[static_cast<std::size_t>(plan.shared.front())]);
            if (plan.streams > 1) CHECK(plan.streams * one <= memory);
            if (plan.streams < most) CHECK((plan.streams + 1) * one > memory);
        }
    }
}

TEST_CASE("graded session: every block = the degree split of the CPU tape's values, step by step; its rank = FLINT's") {
    if (!have_gpu()) {
        MESSAGE("no CUDA device: the graded session is not compared (" << cuda_info().why << ")");
        const Network net = random_network(seprank_test::attention_spec(2, 1, 1), 1);
        const Tape tape(net, 8388593);
        CHECK_THROWS_AS(detail::GradedSession(tape, NmodMat(1, 1, 8388593), std::vector<std::uint32_t>(tape.inputs(), 0), tape.inputs(), 0),
                        invalid_input);
        return;
    }
    auto rng = seprank_test::rng_for("device-graded-session");
    MESSAGE("seed " << seprank_test::seed() << ", device " << cuda_info().name);
    INFO("seed " << seprank_test::seed());
    long blocks_compared = 0;
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, small_limits());
        const Network net = random_network(s, rng.next(), 1000);
        // Up to 31 bits: above 2^26 the blocks' ranks take the elimination's two-limb mode.
        const std::uint64_t p = it % 5 == 0 ? 3 : random_prime(rng, 5 + static_cast<unsigned>(rng.below(27)));
        const Tape tape(net, p);
        const std::size_t width = tape.inputs();
        const std::size_t wa = static_cast<std::size_t>(rng.below(width + 1)), wb = width - wa;
        std::vector<std::uint32_t> source(width);
        std::iota(source.begin(), source.end(), 0u);
        for (std::size_t q = width; q > 1; --q) std::swap(source[q - 1], source[rng.below(q)]);
        const long nd = 1 + static_cast<long>(rng.below(5));
        NmodMat w(nd, nd, p);
        for (long t = 0; t < nd; ++t)
            for (long c = 0; c < nd; ++c) w.get()->rows[t][c] = rng.below(p);
        std::vector<long> cap(static_cast<std::size_t>(nd));
        for (auto& x : cap) x = static_cast<long>(rng.below(14));  // 0: never opens
        INFO("iteration " << it << ": " << network_to_json(net, -1) << ", p = " << p << ", widths " << wa << " + " << wb << ", nodes " << nd);

        const long kmax = 13;
        std::vector<std::uint64_t> ra(static_cast<std::size_t>(kmax) * wa), rb(static_cast<std::size_t>(kmax) * wb);
        for (auto& v : ra) v = rng.below(p);
        for (auto& v : rb) v = rng.below(p);
        TapeGrid g;
        g.a = ra.data();
        g.rows = static_cast<std::size_t>(kmax);
        g.width_a = wa;
        g.b = rb.data();
        g.cols = static_cast<std::size_t>(kmax);
        g.width_b = wb;
        g.nodes = static_cast<std::size_t>(nd);
        g.source = source;
        Reference ref{std::vector<std::uint64_t>(static_cast<std::size_t>(kmax * kmax * nd)), kmax, nd};
        tape.evaluate_grid(g, ref.vals.data());

        detail::GradedSession session(tape, w, source, wa, wb);
        std::vector<long> side(static_cast<std::size_t>(nd), 0);
        std::vector<char> done(static_cast<std::size_t>(nd), 0);
        for (long k : {0L, 4L, 4L, 9L, 13L}) {
            // The host's rule: an open block's side is min(k, cap); a finished one closes.
            for (long c = 0; c < nd; ++c) {
                auto& x = side[static_cast<std::size_t>(c)];
                if (done[static_cast<std::size_t>(c)]) x = 0;
                else x = std::min(k, cap[static_cast<std::size_t>(c)]);
            }
            const std::vector<std::uint64_t> a(ra.begin(), ra.begin() + static_cast<long>(wa) * k);
            const std::vector<std::uint64_t> b(rb.begin(), rb.begin() + static_cast<long>(wb) * k);
            std::string why;
            REQUIRE(session.step(a, b, k, side, why));
            for (long c = 0; c < nd; ++c) {
                const long sc = side[static_cast<std::size_t>(c)];
                if (sc == 0) continue;
                const std::vector<std::uint64_t> got = session.block(c, sc);
                NmodMat m(sc, sc, p);
                bool same = true;
                for (long i = 0; i < sc; ++i)
                    for (long j = 0; j < sc; ++j) {
                        const std::uint64_t v = ref.coef(w, i, j, c, p);
                        m.get()->rows[i][j] = v;
                        same = same && got[static_cast<std::size_t>(i * sc + j)] == v;
                    }
                INFO("step to side " << k << ", block " << c << " of side " << sc);
                CHECK(same);
                CHECK(session.rank(c) == rank_modular(m));
                ++blocks_compared;
                if (rng.below(4) == 0) done[static_cast<std::size_t>(c)] = 1;
            }
            // Side by side (sr_cuda_graded_ranks): every block, in a shuffled order with a
            // repeat, = one at a time; closed and unopened blocks 0.
            std::vector<long> which(static_cast<std::size_t>(nd));
            std::iota(which.begin(), which.end(), 0L);
            for (std::size_t q = which.size(); q > 1; --q) std::swap(which[q - 1], which[rng.below(q)]);
            which.push_back(which.front());
            const std::vector<long> together = session.ranks(which);
            REQUIRE(together.size() == which.size());
            long open_blocks = 0;
            for (std::size_t q = 0; q < which.size(); ++q) {
                const long c = which[q], sc = side[static_cast<std::size_t>(c)];
                INFO("side by side at step " << k << ", block " << c << " of side " << sc);
                CHECK(together[q] == (sc == 0 ? 0 : session.rank(c)));
                open_blocks += sc > 0;
            }
            CHECK(session.streams() == (open_blocks == 0 ? 0 : std::min<long>(open_blocks, graded::streams_from_environment())));
            CHECK(session.ranks({}).empty());
        }
        // The rules of a step: a smaller side, a reopened or shrunk block, a block that grows
        // from a side other than the last step's.
        std::vector<std::uint64_t> a(ra.begin(), ra.end()), b(rb.begin(), rb.end());
        std::string why;
        CHECK_THROWS_WITH_AS((void)session.step(a, b, 12, side, why), doctest::Contains("side 12"), invalid_input);
        const std::string bad_block = "blocks[1] = " + std::to_string(nd);
        CHECK_THROWS_WITH_AS((void)session.ranks({0, nd}), doctest::Contains(bad_block.c_str()), invalid_input);
        for (long c = 0; c < nd; ++c)  // the finished blocks close (a step that evaluates nothing)
            if (done[static_cast<std::size_t>(c)]) side[static_cast<std::size_t>(c)] = 0;
        REQUIRE(session.step(a, b, 13, side, why));
        std::vector<long> bad = side;
        bool tried = false;
        for (long c = 0; c < nd && !tried; ++c)
            if (done[static_cast<std::size_t>(c)] && cap[static_cast<std::size_t>(c)] > 0) {
                bad[static_cast<std::size_t>(c)] = 1;
                CHECK_THROWS_WITH_AS((void)session.step(a, b, 13, bad, why), doctest::Contains("reopens a closed block"), invalid_input);
                tried = true;
            }
    }
    CHECK(blocks_compared >= 40);
}

// The emulated device's tests of a step's failures: a session of attention N=2 dx=2 L=1
// mod 8388593 with W the identity (two blocks), taken to side 5; a and b hold the points of
// `points` / 2 rows and columns.
struct TwoBlocks {
    static constexpr std::uint64_t p = 8388593;
    std::unique_ptr<detail::GradedSession> session;
    std::vector<std::uint64_t> a, b;
    explicit TwoBlocks(std::size_t points) : a(points), b(points) {
        const Network net = random_network(seprank_test::attention_spec(2, 2, 1), 7);
        const Tape tape(net, p);
        NmodMat w(2, 2, p);
        w.get()->rows[0][0] = w.get()->rows[1][1] = 1;
        session = std::make_unique<detail::GradedSession>(tape, w, std::vector<std::uint32_t>{0, 1, 2, 3}, 2, 2);
        for (std::size_t q = 0; q < a.size(); ++q) a[q] = b[q] = (q * 7919) % p;
        std::string why;
        REQUIRE(session->step(std::vector<std::uint64_t>(a.begin(), a.begin() + 10), std::vector<std::uint64_t>(b.begin(), b.begin() + 10), 5,
                              {5, 5}, why));
    }
};

TEST_CASE("graded session: a step the device's memory cannot hold is refused before anything changes (emulated device)" * doctest::test_suite("emulated")) {
    if (!on_emulated_device("its memory limit is not set here")) return;
    TwoBlocks t(40);
    detail::GradedSession& session = *t.session;
    const std::vector<std::uint64_t>&a = t.a, &b = t.b;
    std::string why;
    const auto before = session.block(0, 5);
    ::setenv("SEPRANK_EMULATED_DEVICE_MIB", "0.0001", 1);  // 104 bytes: two 20 x 20 blocks do not fit
    CHECK_FALSE(session.step(a, b, 20, {20, 20}, why));
    ::unsetenv("SEPRANK_EMULATED_DEVICE_MIB");
    CHECK(why.find("needs") != std::string::npos);
    CHECK(session.block(0, 5) == before);  // nothing changed: the same step is taken again
    CHECK(session.step(a, b, 20, {20, 20}, why));
    CHECK(session.block(0, 20).size() == 400);
}

TEST_CASE("graded session: a step that fails part-way leaves a session that refuses every later call (emulated device)" * doctest::test_suite("emulated")) {
    if (!on_emulated_device("a failure part-way cannot be made here")) return;
    TwoBlocks t(20);
    detail::GradedSession& session = *t.session;
    const std::vector<std::uint64_t>&a = t.a, &b = t.b;
    std::string why;
    CHECK(session.rank(0) >= 1);
    ::setenv("SEPRANK_EMULATED_FAIL_STEP", "10", 1);  // the blocks grow to 10, then the step fails
    CHECK_THROWS_WITH_AS((void)session.step(a, b, 10, {10, 10}, why), doctest::Contains("emulated failure"), internal_error);
    ::unsetenv("SEPRANK_EMULATED_FAIL_STEP");
    const char* broken = "failed part-way";
    CHECK_THROWS_WITH_AS((void)session.rank(0), doctest::Contains(broken), internal_error);
    CHECK_THROWS_WITH_AS((void)session.ranks({0, 1}), doctest::Contains(broken), internal_error);
    CHECK_THROWS_WITH_AS((void)session.block(0, 10), doctest::Contains(broken), internal_error);
    CHECK_THROWS_WITH_AS((void)session.step(a, b, 10, {10, 10}, why), doctest::Contains(broken), internal_error);
}

TEST_CASE("graded evaluation on the device = on the CPU: the same prime gives the same blocks, ranks and bound") {
    auto rng = seprank_test::rng_for("device-graded-evaluation");
    INFO("seed " << seprank_test::seed());
    if (!have_gpu()) {
        EvaluationOptions o;
        o.device = Device::cuda;
        const Network net = random_network(seprank_test::attention_spec(2, 1, 1), 1);
        CHECK_THROWS_AS(evaluation_rank_graded(net, balanced_partition(2), o), invalid_input);
        return;
    }
    seprank_test::SpecLimits lim = small_limits();
    lim.residual = false;
    long compared = 0;
    for (int it = 0; it < seprank_test::iterations(40) && compared < seprank_test::iterations(25); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        if (!is_homogeneous(s) || s.tokens < 2) continue;
        const Network net = random_network(s, rng.next(), 1000);
        EvaluationOptions o;
        o.seed = rng.next();
        o.prime = random_prime(rng, 20 + static_cast<unsigned>(rng.below(12)));  // 20 to 31 bits: the session's range
        o.variant = EvaluationVariant::graded;
        o.max_side = 8 + static_cast<long>(rng.below(200));  // some runs end at the size limit
        o.parity = rng.below(2) == 0;
        const ValidPartition part = balanced_partition(s.tokens);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << ", p = " << o.prime << ", max side " << o.max_side << ", parity " << o.parity);
        RankAnswer cpu, gpu;
        try {
            cpu = evaluation_rank_graded(net, part, o);
        } catch (const invalid_input& e) {  // a degree too high for the prime, say: the device must refuse it too
            o.device = Device::cuda;
            CHECK_THROWS_AS(evaluation_rank_graded(net, part, o), invalid_input);
            continue;
        }
        o.device = Device::cuda;
        gpu = evaluation_rank_graded(net, part, o);
        CHECK(gpu.value == cpu.value);
        CHECK(gpu.block_ranks == cpu.block_ranks);
        CHECK(gpu.rows == cpu.rows);
        CHECK(gpu.evaluations == cpu.evaluations);
        CHECK(gpu.converged == cpu.converged);
        CHECK(gpu.failure_bound == cpu.failure_bound);
        CHECK(gpu.kind == cpu.kind);
        CHECK(gpu.device.rfind("cuda: ", 0) == 0);
        CHECK(gpu.note.find("degree blocks kept in device memory") != std::string::npos);
        ++compared;
    }
    CHECK(compared >= 10);
}

TEST_CASE("graded evaluation on the device: a first step the memory cannot hold is resource_limit; a later one stops the growth (emulated device)" * doctest::test_suite("emulated")) {
    if (!on_emulated_device("its memory limit is not set here")) return;
    const NetworkSpec s = seprank_test::attention_spec(2, 3, 2);
    const Network net = random_network(s, 11, 1000);
    const ValidPartition part = balanced_partition(2);
    EvaluationOptions o;
    o.prime = 8388593;
    o.seed = 5;
    o.variant = EvaluationVariant::graded;
    o.start = 4;
    o.device = Device::cuda;
    const RankAnswer full = evaluation_rank_graded(net, part, o);
    // The emulated device holds the blocks only (4·side² bytes each). The first step puts
    // every block of cap > 0 at side min(4, cap). A run with the same seed takes the same
    // first step; a block whose final rank passes 4 had rank 4 < cap there, so it grows to
    // a side >= 5 in the second step.
    const std::vector<long> caps = degree_block_caps(s, part);
    REQUIRE(caps.size() == full.block_ranks.size());
    double first = 0, second_at_least = 0;
    long first_sides = 0;
    for (std::size_t a = 0; a < caps.size(); ++a) {
        const double s1 = static_cast<double>(std::min(4L, caps[a])), s2 = static_cast<double>(std::min(5L, caps[a]));
        first += 4.0 * s1 * s1;
        first_sides += std::min(4L, caps[a]);
        if (full.block_ranks[a] > 4) second_at_least += 4.0 * s2 * s2;
    }
    INFO("blocks of the first step: " << first << " bytes, of the second at least " << second_at_least << "; answer " << full.value << ", "
                                      << full.note);
    REQUIRE(second_at_least > first + 1);  // so the second step cannot fit where the first just does
    char lim[64];
    std::snprintf(lim, sizeof lim, "%.12g", (first - 1) / 1048576.0);
    ::setenv("SEPRANK_EMULATED_DEVICE_MIB", lim, 1);
    CHECK_THROWS_WITH_AS(evaluation_rank_graded(net, part, o), doctest::Contains("first step"), resource_limit);
    std::snprintf(lim, sizeof lim, "%.12g", (first + 1) / 1048576.0);
    ::setenv("SEPRANK_EMULATED_DEVICE_MIB", lim, 1);
    RankAnswer capped;
    CHECK_NOTHROW(capped = evaluation_rank_graded(net, part, o));
    ::unsetenv("SEPRANK_EMULATED_DEVICE_MIB");
    CHECK_FALSE(capped.converged);
    CHECK(capped.failure_bound == 1.0);
    CHECK(capped.rows == first_sides);  // the first step's blocks stand
    CHECK(capped.value <= full.value);
    CHECK(capped.note.find("growth stopped before block side") != std::string::npos);
    CHECK(capped.stop == GrowthStop::memory);
    CHECK(capped.note.find(capped.stop_detail) != std::string::npos);
}

namespace {
// The seconds a note gives right after `prefix` ("... <prefix>X s of device time"), -1 when
// the note has no such text.
double device_seconds(const std::string& note, const std::string& prefix) {
    const std::size_t at = note.find(prefix);
    if (at == std::string::npos) return -1;
    const std::string rest = note.substr(at + prefix.size());
    std::size_t used = 0;
    const double s = std::stod(rest, &used);
    const std::string unit = " s of device time";
    return rest.compare(used, unit.size(), unit) == 0 ? s : -1;
}
}  // namespace

TEST_CASE("a given two-limb prime (2^26 < p < 2^46) on the device: blocks on the host, the same answer as the CPU") {
    const Network net = random_network(seprank_test::attention_spec(3, 2, 2), 7);
    const ValidPartition part = balanced_partition(3);
    EvaluationOptions o;
    o.seed = 11;
    o.prime = 1099511627689;  // the largest prime below 2^40
    o.variant = EvaluationVariant::graded;
    if (!have_gpu()) {
        o.device = Device::cuda;
        CHECK_THROWS_AS(evaluation_rank_graded(net, part, o), invalid_input);
        return;
    }
    CHECK(cuda_info().max_prime == blocked_max_prime);  // 2^46 - 21: given primes up to there
    CHECK(cuda_prime_bits() == kCudaDrawnBits);         // drawn ones have 31 bits (docs/gpu.md "Primes")
    const RankAnswer cpu = evaluation_rank_graded(net, part, o);
    o.device = Device::cuda;
    const RankAnswer gpu = evaluation_rank_graded(net, part, o);
    CHECK(gpu.value == cpu.value);
    CHECK(gpu.block_ranks == cpu.block_ranks);
    CHECK(gpu.rows == cpu.rows);
    CHECK(gpu.failure_bound == cpu.failure_bound);
    CHECK(gpu.device.rfind("cuda: ", 0) == 0);
    // the device session holds 32-bit residues: this prime keeps the blocks on the host
    CHECK(gpu.note.find("degree blocks kept in device memory") == std::string::npos);
    // ... and gives the device time of their eliminations, none on the CPU
    INFO(gpu.note);
    CHECK(device_seconds(gpu.note, "eliminations on the GPU (") > 0);
    CHECK(cpu.note.find("device time") == std::string::npos);
    o.prime = 70368744177679;  // the first prime above 2^46: above the GPU's largest
    CHECK_THROWS_WITH_AS(evaluation_rank_graded(net, part, o), doctest::Contains("70368744177679"), invalid_input);
}

TEST_CASE("rank over Q with device cuda: the answer says where the certificate's modular ranks ran") {
    if (!have_gpu()) {
        MESSAGE("no GPU here: the refusal is checked by the first test case");
        return;
    }
    auto rng = seprank_test::rng_for("device-certificate-where");
    INFO("seed " << seprank_test::seed());
    const auto has = [](const RankAnswer& r, const char* text) { return r.note.find(text) != std::string::npos; };
    // (a) Every block of full rank: the blocks certificate needs no multimodular rank.
    {
        const SparseZMat a = SparseZMat::from_dense(seprank_test::random_rank(rng, 12, 12, 12, 8, 40));
        RankOptions o = seprank_test::certificate_options(Certificate::blocks, 3);
        o.device = Device::cuda;
        const RankAnswer r = rank_certified(a, o);
        CHECK(r.value == 12);
        CHECK(r.certified());
        CHECK(r.device == "cpu");
        CHECK(has(r, "nothing ran on the GPU"));
        // the dense entry point proves full rank by one modular rank on the CPU
        const RankAnswer d = rank_certified(seprank_test::random_rank(rng, 12, 12, 12, 8, 40), o);
        CHECK(d.value == 12);
        CHECK(d.certified());
        CHECK(d.device == "cpu");
        CHECK(has(d, "nothing ran on the GPU"));
    }
    // (b) The Hadamard certificate of a deficient matrix: its modular ranks on the GPU.
    {
        const SparseZMat a = SparseZMat::from_dense(seprank_test::random_rank(rng, 30, 30, 17, 8, 60));
        RankOptions o = seprank_test::certificate_options(Certificate::hadamard, 3);
        o.device = Device::cuda;
        const RankAnswer r = rank_certified(a, o);
        CHECK(r.value == 17);
        CHECK(r.certified());
        CHECK(r.device != "cpu");
        CHECK(has(r, "ran on the GPU"));
        CHECK_FALSE(has(r, "nothing ran on the GPU"));
        CHECK(device_seconds(r.note, "the modular ranks on the GPU took ") > 0);
    }
    // (c) A block whose kernel is not lifted within the budget goes to the Hadamard
    // reference, whose first rank runs on the GPU and the rest, past the budget, on the
    // CPU: the note gives that reason and does not claim that nothing ran on the GPU.
    {
        const ZMat a = seprank_test::product_of_big_factors(rng, 40, 40, 20, 200);
        RankOptions o = seprank_test::certificate_options(Certificate::blocks, 3);
        o.device = Device::cuda;
        o.max_certify_seconds = 0;
        const RankAnswer r = rank_certified(SparseZMat::from_dense(a), o);
        CHECK(r.value == 20);
        CHECK_FALSE(r.certified());
        CHECK(has(r, "given to the Hadamard reference"));
        CHECK(has(r, "on the CPU: the GPU would need"));
        CHECK_FALSE(has(r, "nothing ran on the GPU"));
        CHECK(r.device != "cpu");  // its first modular rank ran on the GPU
        CHECK(device_seconds(r.note, "the modular ranks on the GPU took ") > 0);
    }
    // (d) Two deficient blocks, each given to the Hadamard reference (no time to lift
    // their kernels), each reference's first rank on the GPU: the note gives the device
    // time of both together, once.
    {
        const ZMat b1 = seprank_test::product_of_big_factors(rng, 24, 24, 12, 200);
        const ZMat b2 = seprank_test::product_of_big_factors(rng, 20, 20, 9, 200);
        ZMat a(44, 44);
        for (long i = 0; i < 24; ++i)
            for (long j = 0; j < 24; ++j) a.set(i, j, b1.at(i, j));
        for (long i = 0; i < 20; ++i)
            for (long j = 0; j < 20; ++j) a.set(24 + i, 24 + j, b2.at(i, j));
        RankOptions o = seprank_test::certificate_options(Certificate::blocks, 3);
        o.device = Device::cuda;
        o.max_certify_seconds = 0;
        const RankAnswer r = rank_certified(SparseZMat::from_dense(a), o);
        INFO(r.note);
        CHECK(r.value == 21);
        CHECK(r.device != "cpu");
        CHECK(device_seconds(r.note, "the modular ranks on the GPU took ") > 0);
        CHECK(r.note.find("device time") == r.note.rfind("device time"));
    }
}

TEST_CASE("Device names round-trip, and a value outside the enum is refused by name") {
    seprank_test::check_enum_names<Device>({Device::automatic, Device::cpu, Device::cuda}, "Device", device_from_string);
}
