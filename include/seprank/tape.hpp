// TEMPORARY STUB (not committed): replaced by the gpu-tape branch.
#pragma once
#include "seprank/network.hpp"
#include <cstdint>
#include <cstddef>
namespace seprank {
class Tape {
public:
    Tape(const Network&, std::uint64_t) {}
    std::size_t size() const { return 0; }
    std::size_t slots() const { return 0; }
    void evaluate_cuda(const std::uint64_t*, std::size_t, std::uint64_t*) const {}
};
}
