// seprank (internal) — a recorded tape as source code: the network's forward program as
// one straight-line function with a local variable per slot, for a compiler to keep in
// registers (docs/tape.md, "Compiled programs"). NVRTC compiles it for the GPU at run
// time (cuda/compiled.cu); the tests compile the same text with the host compiler and
// compare it with the interpreter.
#pragma once

#include "seprank/tape.hpp"
#include "tape_source_impl.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank::tape_detail {

// The residue form the program's constants are written in (tape_source_impl.hpp).
using tape::SourceForm;

// The form a GPU runs tape mod p in: mont32 for odd p < 2^31, two for p = 2, else mont.
SourceForm gpu_form(std::uint64_t p);

// The source text of
//   template <class Ar, class Point>
//   SR_TAPE_HD std::uint64_t <name>(const Ar& ar, Point&& x)
// returning the tape's value at one point, still in the form (ar.from converts it): x(c)
// gives coordinate c already in the form, as tape::step's point. Every instruction is one
// statement with tape::step's semantics on locals s0..s<slots−1>; its constant, if it reads
// one, is <weights>[k] for the k-th such instruction, an array the text does not declare
// (program_weights gives its values in `form`, mont32 narrowed as tape::narrow_program), so
// the text depends on the tape's shape only, not on its prime or weights. It needs
// SR_TAPE_HD and std::uint64_t declared before it (tape_impl.hpp). Preconditions
// (invalid_input): name and weights distinct C identifiers; form fits the tape's prime (mont32:
// narrow_prime; two: p = 2; mont: odd p). Cost: O(size()) characters, about 40 per
// instruction.
std::string program_source(const Tape& tape, const std::string& name, SourceForm form, const std::string& weights = "sr_weights");

// The values of program_source's weights array for `form`, in order. Same preconditions;
// O(size()).
std::vector<std::uint64_t> program_weights(const Tape& tape, SourceForm form);

// A whole translation unit for NVRTC: tape_impl.hpp's arithmetic (included by that name:
// the caller hands NVRTC its text), `__constant__ std::uint64_t sr_weights[K]` (K the number
// of program_weights, at least 1: the caller fills it before a launch), program_source's
// function reading it, and the kernels `kernels` asks for (tape::kFlatKernel,
// tape::kGridKernel, or both), extern "C":
//   sr_compiled_flat(Ar ar, const uint64_t* points, int64_t inputs, int64_t count, uint64_t* out)
//   sr_compiled_grid(Ar ar, const uint64_t* a, const uint64_t* b, const uint32_t* source,
//                    const uint64_t* scales, int64_t width_a, int64_t width_b, int64_t cols,
//                    int64_t nodes, int64_t count, uint64_t* out)
// one thread per point, the values as Tape::evaluate and Tape::evaluate_grid give them (the
// grid's point q as cuda/tape_kernel.cuh's GridSource forms it; scales[t] = ar.input_scale(t
// + 1)). Ar is tape::Mont32, tape::Mont or tape::Two by `form`. Same preconditions and cost
// (NVRTC's, about the square of the length per kernel, is the caller's: kMaxCompiledOps).
std::string kernel_source(const Tape& tape, SourceForm form, unsigned kernels = tape::kFlatKernel | tape::kGridKernel);

}  // namespace seprank::tape_detail
