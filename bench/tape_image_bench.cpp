// The compiled evaluation kernels without a GPU (docs/gpu.md, "Compiled programs"): for each
// network, the grid kernel that NVRTC builds from its tape in 32-bit words (the GPU's form for
// its 31-bit primes), with NVRTC's time, the machine instructions of the image and the
// registers a thread takes. Those two decide how fast the kernel can run: a GPU executes one
// instruction per thread and clock on each of its units, and registers bound the threads it
// keeps resident. Markdown on stdout.
//
//   bench_tape_image                       the rows of issue 61 (below)
//   bench_tape_image N,dx,L,H ...          attention networks of your choice
//
// The instructions are read from the image's .text section (sm_90 encodes one in 16 bytes),
// the registers from its EIATTR_REGCOUNT attribute (.nv.info); nothing runs on a device.
#include "network/tape_source.hpp"
#include "nvrtc_compile.hpp"

#include "seprank/network.hpp"
#include "seprank/tape.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

using namespace seprank;

namespace {

template <class T>
T read_at(const std::string& b, std::size_t at) {
    T v{};
    if (at + sizeof(T) <= b.size()) std::memcpy(&v, b.data() + at, sizeof(T));
    return v;
}

struct ImageSize {
    long instructions = -1;  // of the function's .text section, 16 bytes each
    long registers = -1;     // EIATTR_REGCOUNT of the function's symbol
};

// The sizes of function `fn` in the ELF image `b` (64-bit little-endian, as NVRTC writes).
ImageSize image_size(const std::string& b, const std::string& fn) {
    ImageSize r;
    const auto shoff = read_at<std::uint64_t>(b, 0x28);
    const auto shentsize = read_at<std::uint16_t>(b, 0x3A), shnum = read_at<std::uint16_t>(b, 0x3C), shstrndx = read_at<std::uint16_t>(b, 0x3E);
    struct Sec {
        std::string name;
        std::uint64_t offset, size;
        std::uint32_t info;
    };
    std::vector<Sec> secs;
    for (std::uint16_t i = 0; i < shnum; ++i) {
        const std::size_t h = shoff + static_cast<std::size_t>(i) * shentsize;
        secs.push_back({std::to_string(read_at<std::uint32_t>(b, h)), read_at<std::uint64_t>(b, h + 0x18), read_at<std::uint64_t>(b, h + 0x20),
                        read_at<std::uint32_t>(b, h + 0x2C)});
    }
    if (shstrndx >= secs.size()) return r;
    const std::uint64_t strings = secs[shstrndx].offset;
    for (Sec& s : secs) s.name = std::string(b.c_str() + std::min<std::size_t>(b.size() - 1, strings + std::stoul(s.name)));
    std::uint32_t symbol = 0;
    for (const Sec& s : secs)
        if (s.name == ".text." + fn) {
            r.instructions = static_cast<long>(s.size / 16);
            symbol = s.info;  // the function's symbol index
        }
    for (const Sec& s : secs) {
        if (s.name != ".nv.info") continue;
        // attributes: format byte, attribute byte, then (format 4) a 16-bit size and the value
        for (std::uint64_t i = s.offset; i + 4 <= s.offset + s.size;) {
            const auto format = static_cast<unsigned char>(b[i]), attr = static_cast<unsigned char>(b[i + 1]);
            if (format != 4) {
                i += format == 1 ? 2 : 4;
                continue;
            }
            const auto size = read_at<std::uint16_t>(b, i + 2);
            if (attr == 0x2f && size == 8 && read_at<std::uint32_t>(b, i + 4) == symbol) r.registers = read_at<std::uint32_t>(b, i + 8);
            i += 4 + size;
        }
    }
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    // tokens, dim, depth, heads: the frontier rows of issue 61 and the depth-4 rows
    std::vector<std::vector<long>> rows = {{4, 4, 3, 1}, {4, 4, 3, 2}, {3, 3, 4, 1}, {3, 4, 4, 1}, {4, 3, 4, 1}, {4, 5, 3, 1}};
    if (argc > 1) rows.clear();
    for (int i = 1; i < argc; ++i) {
        std::vector<long> r;
        for (const char* s = argv[i]; *s;) {
            char* end = nullptr;
            r.push_back(std::strtol(s, &end, 10));
            if (end == s || r.back() < 1) {
                std::fprintf(stderr, "bench_tape_image: %s: expected N,dx,L,H (positive integers)\n", argv[i]);
                return 2;
            }
            s = *end == ',' ? end + 1 : end;
        }
        if (r.size() != 4) {
            std::fprintf(stderr, "bench_tape_image: %s: expected N,dx,L,H\n", argv[i]);
            return 2;
        }
        rows.push_back(r);
    }
    const std::uint64_t p = 2147483629;  // a 31-bit prime: the GPU's Mont32 form
    std::printf("| attention N, dx, L, H | tape instructions | NVRTC s | sm_90 instructions | per tape instruction | registers |\n");
    std::printf("|---|---|---|---|---|---|\n");
    for (const auto& r : rows) {
        NetworkSpec s;
        s.tokens = r[0];
        s.dim = r[1];
        s.depth = r[2];
        s.heads = r[3];
        std::string tu;
        std::size_t length = 0;
        try {
            const Tape t(random_network(s, 1, 1000), p);
            tu = tape_detail::kernel_source(t, tape::SourceForm::mont32, tape::kGridKernel);
            length = t.size();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "bench_tape_image: %ld,%ld,%ld,%ld: %s\n", r[0], r[1], r[2], r[3], e.what());
            return 2;
        }
        std::string cubin, log;
        const auto t0 = std::chrono::steady_clock::now();
        const bool ok = sr_cuda::nvrtc_compile(tu, 90, cubin, log);
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!ok) {
            std::fprintf(stderr, "bench_tape_image: NVRTC failed: %s\n", log.c_str());
            return 1;
        }
        const ImageSize z = image_size(cubin, "sr_compiled_grid");
        std::printf("| %ld, %ld, %ld, %ld | %zu | %.1f | %ld | %.1f | %ld |\n", r[0], r[1], r[2], r[3], length, secs, z.instructions,
                    static_cast<double>(z.instructions) / static_cast<double>(length), z.registers);
        std::fflush(stdout);
    }
    return 0;
}
