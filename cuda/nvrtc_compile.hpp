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
// about the square of the program's length: 8.9 s for one kernel of 1,107 instructions on
// a 2-core build machine (docs/gpu.md, "Compiled programs").
bool nvrtc_compile(const std::string& tu, int arch, std::string& cubin, std::string& log);

// The folder that keeps compiled images between runs: $SEPRANK_CUDA_CACHE where set ("off"
// or empty: none), else $XDG_CACHE_HOME/seprank/cuda, else $HOME/.cache/seprank/cuda; ""
// where there is none.
std::string cache_dir();

// nvrtc_compile through the folder cache_dir(): an image compiled before from the same text
// for the same architecture by the same NVRTC is read back (one file per image, named by a
// hash of the text, holding the text too, which is compared in full: a hash collision only
// costs a compilation); a new one is written there (into a temporary file, then renamed, so
// concurrent runs never see half a file).
// *hit (when not null) tells whether it came from the folder. A folder that cannot be read
// or written only costs the compilation, and so does one that is not the user's own or that
// others may write (a folder that is not there is made with mode 0700). The key holds the
// architecture, NVRTC's version, its options and a hash of the headers built into the
// plugin, so an upgrade is a miss. Cost: reading or writing one file the size of the text
// and the image, or nvrtc_compile's.
bool nvrtc_compile_cached(const std::string& tu, int arch, std::string& cubin, std::string& log, bool* hit);

}  // namespace sr_cuda
