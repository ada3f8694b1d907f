// seprank CUDA plugin (private): a network's own kernel compiled at run time by NVRTC
// (docs/gpu.md, "Compiled programs"). Host code, no CUDA runtime call: it runs, and is
// tested, on machines without a GPU.
#pragma once

#include <string>

namespace sr_cuda {

// Compiles `tu` (src/network/tape_source_impl.hpp's kernel_text: it includes
// "network/tape_impl.hpp", handed to NVRTC from the text built into the plugin, and uses
// std::uint64_t, std::uint32_t, std::size_t, whose headers NVRTC does not ship) for
// sm_<arch> into `cubin`. false with NVRTC's log in `log` where it fails. Cost: NVRTC's,
// about 0.1-1 s for a program of a thousand instructions.
bool nvrtc_compile(const std::string& tu, int arch, std::string& cubin, std::string& log);

}  // namespace sr_cuda
