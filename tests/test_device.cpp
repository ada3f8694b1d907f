// The CUDA engine's rank (rank_modular_cuda, device.hpp) against FLINT's, on the matrices
// that test the CPU reference of the same algorithm (rank_modular_blocked, test_rank.cpp).
// Where no GPU is usable (CI, this build without the plugin) the request must be refused
// with one line starting "Device cuda:", and that is what is checked.
#include "seprank/device.hpp"
#include "../cuda/seprank_cuda.h"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/rank.hpp"
#include "blocked_cases.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <algorithm>
#include <string>

using namespace seprank;

namespace {

bool have_gpu() { return cuda_info().devices > 0; }

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
    auto rng = seprank_test::rng_for("device-rank");
    MESSAGE("seed " << seprank_test::seed() << ", device " << cuda_info().name);
    INFO("seed " << seprank_test::seed());
    long compared = 0;
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
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
    }
    CHECK(compared >= 200);
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
    CHECK_THROWS_WITH_AS(rank_modular_cuda(NmodMat(2, 2, 65535)), doctest::Contains("65535"), invalid_input);  // composite
    CHECK_THROWS_WITH_AS(rank_modular_cuda(NmodMat(2, 2, 67108879)), doctest::Contains("67108879"), invalid_input);  // too large
    CHECK_THROWS_AS(rank_modular_cuda(NmodMat(2, 2, 7), -1), invalid_input);
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
    CHECK(rank(a, 2, 2, blocked_max_prime + 20 /* 2^26 + 15, prime */, 0, &r, &st) == SR_CUDA_INVALID);
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
    } else {
        CHECK(code == SR_CUDA_NO_DEVICE);
        CHECK(std::string(st.message).find('\n') == std::string::npos);
        CHECK(st.message[0] != '\0');
    }
    dlclose(h);
}
