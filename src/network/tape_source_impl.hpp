// Private: a straight-line program as source code (tape_source.hpp), FLINT-free and
// header-only so that the CUDA plugin (host code of cuda/compiled.cu, nvcc) and the library
// (src/network/tape_source.cpp) print the same text from the same instructions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tape_impl.hpp"

namespace seprank::tape {

// The residue form of a program's constants, with the arithmetic that runs it (Mont: as
// recorded, odd p < 2^63; Mont32: narrowed, odd p < 2^31; Two: p = 2).
enum class SourceForm { mont, mont32, two };

inline const char* source_arith(SourceForm form) {
    switch (form) {
        case SourceForm::mont32: return "seprank::tape::Mont32";
        case SourceForm::two: return "seprank::tape::Two";
        case SourceForm::mont: break;
    }
    return "seprank::tape::Mont";
}

inline std::string source_slot(std::uint32_t i) { return "s" + std::to_string(i); }

// Whether an instruction reads its constant w (the others' w is unused).
inline bool source_weighted(std::uint32_t code) { return code == op_const || code == op_axpy || code == op_scale || code == op_addc; }

// The constants of the n instructions ops, in their order, one per weighted instruction:
// the array program_text's statements index (weights[k] for the k-th weighted one).
template <class Op>
std::vector<std::uint64_t> program_weights(const Op* ops, std::size_t n) {
    std::vector<std::uint64_t> w;
    for (std::size_t k = 0; k < n; ++k)
        if (source_weighted(ops[k].code)) w.push_back(ops[k].w);
    return w;
}

// The function `name` (template <class Ar, class Point> SR_TAPE_HD std::uint64_t name(const
// Ar& ar, Point&& x)) of the n instructions ops (any type with code, dst, a, b, w), with
// `slots` locals and the value of slot `output` returned. Constants are read from the array
// `weights` (weights[k] for the k-th weighted instruction: program_weights, in the form that
// will run them), so the text depends on the program's shape alone, not on its prime or
// weights: the plugin compiles one network shape once. An unknown opcode: returns the empty
// string.
template <class Op>
std::string program_text(const Op* ops, std::size_t n, std::size_t slots, std::uint32_t output, const std::string& name,
                         const std::string& weights) {
    std::string s;
    s.reserve(n * 40 + 256);
    s += "// seprank tape: " + std::to_string(n) + " instructions, " + std::to_string(slots) + " slots\n";
    s += "template <class Ar, class Point>\nSR_TAPE_HD std::uint64_t " + name + "(const Ar& ar, Point&& x) {\n";
    s += "    std::uint64_t";
    for (std::size_t i = 0; i < slots; ++i) s += (i == 0 ? " " : ", ") + source_slot(static_cast<std::uint32_t>(i)) + " = 0";
    s += ";\n";
    std::size_t next_weight = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const Op& op = ops[k];
        const std::string d = "    " + source_slot(op.dst) + " = ";
        const std::string w = source_weighted(op.code) ? weights + "[" + std::to_string(next_weight++) + "]" : std::string();
        switch (op.code) {
            case op_zero: s += d + "0;\n"; break;
            case op_const: s += d + w + ";\n"; break;
            case op_input: s += d + "x(" + std::to_string(op.a) + "u);\n"; break;
            case op_mul: s += d + "ar.mul(" + source_slot(op.a) + ", " + source_slot(op.b) + ");\n"; break;
            case op_add: s += d + "ar.add(" + source_slot(op.a) + ", " + source_slot(op.b) + ");\n"; break;
            case op_axpy: s += d + "ar.add(" + source_slot(op.a) + ", ar.mul(" + w + ", " + source_slot(op.b) + "));\n"; break;
            case op_scale: s += d + "ar.mul(" + w + ", " + source_slot(op.a) + ");\n"; break;
            case op_copy: s += d + source_slot(op.a) + ";\n"; break;
            case op_addc: s += d + "ar.add(" + source_slot(op.a) + ", " + w + ");\n"; break;
            default: return std::string();
        }
    }
    s += "    return " + source_slot(output) + ";\n}\n";
    return s;
}

// The kernels a translation unit holds (kernel_text's `kernels`, a mask): NVRTC's time grows
// about as the square of the program's length and is paid once per kernel, since each
// inlines the whole program, so a caller asks only for the one it launches.
inline constexpr unsigned kFlatKernel = 1, kGridKernel = 2;

// The longest program NVRTC is given (instructions): one kernel of 1,107 instructions took
// 8.9 s to compile here, of 1,576 18 s, growing as the square of the length, and the GPU
// machine's host took twice as long (42 s for two kernels of 1,107; docs/gpu.md, "Compiled
// programs"); a longer program runs in the interpreter.
inline constexpr std::size_t kMaxCompiledOps = 2048;

// A translation unit for NVRTC: tape_impl.hpp (by that include name), the constants as
// `__constant__ std::uint64_t sr_weights[K]` (K = the weighted instructions, at least 1; the
// caller fills it with program_weights before a launch), the program as sr_program reading
// them, and the kernels sr_compiled_flat (kFlatKernel) and sr_compiled_grid (kGridKernel)
// that `kernels` asks for (tape_source.hpp). The text depends on the program's shape, the
// form and the kernels only.
template <class Op>
std::string kernel_text(const Op* ops, std::size_t n, std::size_t slots, std::uint32_t output, SourceForm form,
                        unsigned kernels = kFlatKernel | kGridKernel) {
    const std::string program = program_text(ops, n, slots, output, "sr_program", "sr_weights");
    if (program.empty()) return program;
    const std::size_t weighted = program_weights(ops, n).size();
    const std::string ar = source_arith(form);
    std::string s = "#include \"network/tape_impl.hpp\"\n\n__constant__ std::uint64_t sr_weights[" +
                    std::to_string(weighted > 0 ? weighted : 1) + "];\n\n" + program;
    if (kernels & kFlatKernel)
        s += "\nextern \"C\" __global__ void sr_compiled_flat(" + ar +
         " ar, const std::uint64_t* points, long long inputs, long long count, std::uint64_t* out) {\n"
         "    const long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
         "    if (q >= count) return;\n"
         "    const std::uint64_t* pt = points + q * inputs;\n"
         "    out[q] = ar.from(sr_program(ar, [&](std::uint32_t c) { return ar.to(pt[c]); }));\n"
         "}\n";
    if (kernels & kGridKernel)
        s += "\nextern \"C\" __global__ void sr_compiled_grid(" + ar +
         " ar, const std::uint64_t* a, const std::uint64_t* b, const std::uint32_t* source, const std::uint64_t* scales,\n"
         "        long long width_a, long long width_b, long long cols, long long nodes, long long count, std::uint64_t* out) {\n"
         "    const long long q = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;\n"
         "    if (q >= count) return;\n"
         "    long long t, j, i;\n"
         "    if (count <= 0xffffffffLL) {  // 32-bit divisions (a 64-bit one is a long instruction sequence)\n"
         "        const unsigned q32 = static_cast<unsigned>(q), n32 = static_cast<unsigned>(nodes), c32 = static_cast<unsigned>(cols);\n"
         "        const unsigned r32 = q32 / n32;\n"
         "        t = q32 - r32 * n32, j = r32 % c32, i = r32 / c32;\n"
         "    } else {\n"
         "        const long long r = q / nodes;\n"
         "        t = q - r * nodes, j = r % cols, i = r / cols;\n"
         "    }\n"
         "    const std::uint64_t* ai = a + i * width_a;\n"
         "    const std::uint64_t* bj = b + j * width_b;\n"
         "    const std::uint64_t sc = scales[t];\n"
         "    out[q] = ar.from(sr_program(ar, [&](std::uint32_t c) -> std::uint64_t {\n"
         "        const long long k = source[c];\n"
         "        return k < width_a ? ar.mul(ai[k], sc) : ar.to(bj[k - width_a]);\n"
         "    }));\n"
         "}\n";
    return s;
}

}  // namespace seprank::tape
