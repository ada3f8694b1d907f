// The CUDA plugin's run-time compiler on a machine without a GPU: NVRTC compiles the kernel
// text of random networks (tape_source.hpp) for the plugin's architecture; what it computes
// is checked on the host (test_tape.cpp, the host compiler's build of the same text) and on
// the GPU (tests/device/run.sh).
#include "network/tape_source.hpp"
#include "nvrtc_compile.hpp"

#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "seprank/tape.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

using namespace seprank;

TEST_CASE("nvrtc: the kernels of random networks compile for sm_90, in every form") {
    auto rng = seprank_test::rng_for("tape-nvrtc");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    for (int it = 0; it < seprank_test::iterations(6); ++it) {
        const Network net = random_network(seprank_test::random_spec(rng, lim), rng.next(), 1000);
        const std::uint64_t p = it % 3 == 0 ? 2 : it % 3 == 1 ? random_prime(rng, 31) : random_prime(rng, 62);
        const Tape t(net, p);
        // both kernels, the flat one alone, the grid one alone (what the plugin asks for), each
        // with two of the three forms
        const int k = (it + it / 3) % 3;
        const unsigned kernels = k == 0 ? tape::kFlatKernel | tape::kGridKernel : k == 1 ? tape::kFlatKernel : tape::kGridKernel;
        const std::string tu = tape_detail::kernel_source(t, tape_detail::gpu_form(p), kernels);
        std::string cubin, log;
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p << " kernels " << kernels << "\n" << tu);
        CHECK(sr_cuda::nvrtc_compile(tu, 90, cubin, log));
        INFO("log: " << log);
        CHECK(cubin.size() > 64);
        CHECK(cubin.compare(1, 3, "ELF") == 0);  // a device ELF image
        // the kernels keep their C names, and only those asked for are there
        CHECK((cubin.find("sr_compiled_grid") != std::string::npos) == ((kernels & tape::kGridKernel) != 0));
        CHECK((cubin.find("sr_compiled_flat") != std::string::npos) == ((kernels & tape::kFlatKernel) != 0));
    }
}

TEST_CASE("nvrtc: a program that does not compile gives NVRTC's log") {
    std::string cubin, log;
    CHECK_FALSE(sr_cuda::nvrtc_compile("extern \"C\" __global__ void k() { undeclared_name(); }", 90, cubin, log));
    CHECK(log.find("undeclared_name") != std::string::npos);
    CHECK_FALSE(sr_cuda::nvrtc_compile("extern \"C\" __global__ void k() {}", 1, cubin, log));  // no sm_1
    CHECK_FALSE(log.empty());
}

TEST_CASE("nvrtc: the image cache's folder follows SEPRANK_CUDA_CACHE, then XDG_CACHE_HOME, then HOME") {
    {
        seprank_test::EnvVar c("SEPRANK_CUDA_CACHE", "/some/folder");
        CHECK(sr_cuda::cache_dir() == "/some/folder");
    }
    {
        seprank_test::EnvVar c("SEPRANK_CUDA_CACHE", "off");
        CHECK(sr_cuda::cache_dir().empty());
    }
    seprank_test::EnvVar c("SEPRANK_CUDA_CACHE", nullptr);
    {
        seprank_test::EnvVar x("XDG_CACHE_HOME", "/xdg");
        CHECK(sr_cuda::cache_dir() == "/xdg/seprank/cuda");
    }
    seprank_test::EnvVar x("XDG_CACHE_HOME", nullptr);
    {
        seprank_test::EnvVar h("HOME", "/home/someone");
        CHECK(sr_cuda::cache_dir() == "/home/someone/.cache/seprank/cuda");
    }
    seprank_test::EnvVar h("HOME", nullptr);
    CHECK(sr_cuda::cache_dir().empty());
}

TEST_CASE("nvrtc: an image is compiled once and read back, for its own text only; a bad or unwritable folder costs a compilation") {
    auto rng = seprank_test::rng_for("tape-nvrtc-cache");
    INFO("seed " << seprank_test::seed());
    const seprank_test::TempDir dir("seprank-nvrtc-cache");
    seprank_test::EnvVar env("SEPRANK_CUDA_CACHE", (dir.path + "/images").c_str());  // made on first use
    const NetworkSpec spec = seprank_test::attention_spec(2, 2, 1);
    const Tape t(random_network(spec, rng.next(), 1000), random_prime(rng, 31));
    const std::string tu = tape_detail::kernel_source(t, tape::SourceForm::mont32, tape::kGridKernel);
    std::string first, again, log;
    bool hit = true;
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, first, log, &hit));
    CHECK_FALSE(hit);
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, again, log, &hit));
    CHECK(hit);
    CHECK(again == first);
    // another architecture, another text: compiled, not read back
    std::string other;
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 80, other, log, &hit));
    CHECK_FALSE(hit);
    const std::string flat = tape_detail::kernel_source(t, tape::SourceForm::mont32, tape::kFlatKernel);
    REQUIRE(sr_cuda::nvrtc_compile_cached(flat, 90, other, log, &hit));
    CHECK_FALSE(hit);
    CHECK(other.find("sr_compiled_flat") != std::string::npos);
    // a damaged file is compiled again (and replaced), then read back
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir.path + "/images")) files.push_back(e.path().string());
    CHECK(files.size() == 3);
    for (const std::string& f : files) std::filesystem::resize_file(f, std::filesystem::file_size(f) / 2);
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, again, log, &hit));
    CHECK_FALSE(hit);
    CHECK(again == first);
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, again, log, &hit));
    CHECK(hit);
    // a folder that cannot be made: compiled every time, never an error
    seprank_test::EnvVar bad("SEPRANK_CUDA_CACHE", (dir.path + "/images/" + std::filesystem::path(files[0]).filename().string() + "/sub").c_str());
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, again, log, &hit));
    CHECK_FALSE(hit);
    CHECK(again == first);
    // no folder at all
    seprank_test::EnvVar off("SEPRANK_CUDA_CACHE", "off");
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, again, log, &hit));
    CHECK_FALSE(hit);
    // a text that does not compile: false and NVRTC's log, nothing kept
    seprank_test::EnvVar on("SEPRANK_CUDA_CACHE", (dir.path + "/images").c_str());
    CHECK_FALSE(sr_cuda::nvrtc_compile_cached("extern \"C\" __global__ void k() { undeclared_name(); }", 90, again, log, &hit));
    CHECK(log.find("undeclared_name") != std::string::npos);
    std::size_t kept = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.path + "/images")) kept += e.is_regular_file() ? 1 : 0;
    CHECK(kept == 3);
}

TEST_CASE("nvrtc: a cache folder that others may write is neither read nor written; one the cache makes is the user's alone") {
    auto rng = seprank_test::rng_for("tape-nvrtc-cache-private");
    const seprank_test::TempDir dir("seprank-nvrtc-shared");
    const std::string shared = dir.path + "/shared";
    std::filesystem::create_directory(shared);
    std::filesystem::permissions(shared, std::filesystem::perms::all);  // 0777, as /tmp would be
    seprank_test::EnvVar env("SEPRANK_CUDA_CACHE", shared.c_str());
    const Tape t(random_network(seprank_test::attention_spec(2, 2, 1), rng.next(), 1000), random_prime(rng, 31));
    const std::string tu = tape_detail::kernel_source(t, tape::SourceForm::mont32, tape::kGridKernel);
    std::string cubin, log;
    bool hit = true;
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, cubin, log, &hit));
    CHECK_FALSE(hit);
    CHECK(std::filesystem::is_empty(shared));  // nothing written there
    CHECK((std::filesystem::status(shared).permissions() & std::filesystem::perms::others_write) != std::filesystem::perms::none);  // left as it was
    // the same folder made private: written, then read back
    std::filesystem::permissions(shared, std::filesystem::perms::owner_all);
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, cubin, log, &hit));
    CHECK_FALSE(hit);
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, cubin, log, &hit));
    CHECK(hit);
    // a folder made by the cache is the user's alone
    const std::string made = dir.path + "/a/b/images";
    seprank_test::EnvVar env2("SEPRANK_CUDA_CACHE", made.c_str());
    REQUIRE(sr_cuda::nvrtc_compile_cached(tu, 90, cubin, log, &hit));
    CHECK((std::filesystem::status(made).permissions() & std::filesystem::perms::all) == std::filesystem::perms::owner_all);
}
