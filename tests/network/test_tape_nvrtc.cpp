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

#include <string>

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
