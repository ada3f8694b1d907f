// seprank — a network's forward pass mod p as a straight-line program (a "tape").
//
// The forward pass of every family (forward.hpp) is recorded once, for one network and
// one prime p, by running it over a tracing ring whose elements are value numbers and
// whose operations append instructions. The result is a straight-line program with the
// weights built in as constants: each instruction is one of ZERO, CONST, INPUT, MUL, ADD,
// AXPY (s + w·t), SCALE (w·s), COPY, ADDC (s + w) on "slots" (docs/tape.md lists them).
// Recording simplifies cheaply and safely: products and sums with a constant 0 or 1 are
// dropped, constants are folded, dead instructions removed, inputs loaded just before
// their first use, and slots are recycled by liveness (a slot is reused after the last
// read of its value), so slots() stays small next to size().
//
// The same tape is then interpreted on the CPU (evaluate, the reference) and on a CUDA
// GPU (evaluate_cuda, one thread per point); both use the same word arithmetic
// (Montgomery form for odd p, bit operations for p = 2), so they give the same residues,
// and the same values as ModBatchEvaluator / ModEvaluator (forward_batch.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seprank {

struct Network;

// Points on a grid (the evaluation matrices of docs/evaluation.md, formed where they are
// evaluated): for i < rows, j < cols, t < nodes, the point whose coordinate c is
//   (t + 1)·a[i·width_a + k]          when k = source[c] < width_a (side A, scaled by t + 1),
//   b[j·width_b + (k − width_a)]      when width_a <= k < width_a + width_b (side B).
// source has Tape::inputs() entries; entries of a and b need not be reduced. The value of
// point (i, j, t) goes to out[(i·cols + j)·nodes + t].
struct TapeGrid {
    const std::uint64_t* a = nullptr;
    std::size_t rows = 0, width_a = 0;
    const std::uint64_t* b = nullptr;
    std::size_t cols = 0, width_b = 0;
    std::size_t nodes = 1;
    std::vector<std::uint32_t> source;
};

class Tape {
public:
    // One instruction (the layout of sr_tape_op, cuda/seprank_cuda.h): code is one of the
    // opcodes of src/network/tape_impl.hpp, dst/a/b slots (a: the coordinate for INPUT), w a
    // constant in the tape's internal form (Montgomery form x·2^64 mod p for odd p).
    struct Op {
        std::uint32_t code = 0, dst = 0, a = 0, b = 0;
        std::uint64_t w = 0;
    };

    // Records the forward pass of net mod p. Checks: the network (check_shapes,
    // invalid_input naming the bad value); p prime with 2 <= p < 2^63 (invalid_input
    // naming p). Throws domain_error when p divides a weight's denominator (as
    // ModEvaluator); resource_limit when the pass has more than 2^32 values. Cost: one
    // forward pass over the tracing ring, O(size()) memory and
    // time for the passes over the program (dead code, scheduling, slots).
    Tape(const Network& net, std::uint64_t p);

    // Accessors, O(1). Instructions of the program.
    std::size_t size() const noexcept { return ops_.size(); }
    // Scratch residues one point needs while the program runs (>= 1).
    std::size_t slots() const noexcept { return slots_; }
    // Coordinates of one point: N·(dx, or r with an embedding), as ModBatchEvaluator::width().
    std::size_t inputs() const noexcept { return inputs_; }
    std::uint64_t modulus() const noexcept { return p_; }
    // The program, for inspection (and the CUDA engine); output_slot() holds f at the end.
    const std::vector<Op>& ops() const noexcept { return ops_; }
    std::uint32_t output_slot() const noexcept { return output_; }
    // Instructions of each opcode (index = opcode), for reports. O(size()).
    std::vector<std::size_t> histogram() const;

    // out[q] = f(point q) mod p for q < count; point q is points[q·inputs() ..
    // (q+1)·inputs()), laid out as ModBatchEvaluator::evaluate takes them (token 1's
    // variables, then token 2's, ...); entries need not be reduced. The same values as
    // ModBatchEvaluator. Thread-safe (no shared mutable state). Cost: size() word
    // instructions per point (a product: three word multiplications), points taken 64 at a
    // time with 64·slots() residues of scratch. Preconditions (not checked): points holds
    // count·inputs() words, out count words.
    void evaluate(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const;

    // The same values, computed on the GPU by the CUDA plugin (one thread per point;
    // docs/tape.md). Checked: a GPU (invalid_input "Device cuda: ..." where there is none,
    // as choose_device), the work fits the GPU's free memory (resource_limit naming the
    // sizes, before any work). A CUDA failure part-way: internal_error naming the call.
    // Cost: as evaluate on the GPU, plus copying the points in and the values out.
    // Buffers as for evaluate (not checked).
    void evaluate_cuda(const std::uint64_t* points, std::size_t count, std::uint64_t* out) const;

    // f at every point of the grid (TapeGrid above), out[(i·cols + j)·nodes + t]: the same
    // values as evaluate on those points laid out flat. Checked: source has inputs()
    // entries, each below width_a + width_b, nodes >= 1 (invalid_input naming the value).
    // Cost: as evaluate on rows·cols·nodes points, plus forming them. Not checked: a and b
    // hold rows·width_a and cols·width_b words, out rows·cols·nodes.
    void evaluate_grid(const TapeGrid& grid, std::uint64_t* out) const;
    // The same on the GPU; only the rows of a and b go to the device, the points are formed
    // there. Checks and errors as evaluate_cuda and evaluate_grid. Cost: as evaluate_cuda
    // on rows·cols·nodes points, copying in only the rows of a and b.
    void evaluate_grid_cuda(const TapeGrid& grid, std::uint64_t* out) const;

private:
    void check_grid(const TapeGrid& grid) const;
    std::vector<Op> ops_;
    std::size_t slots_ = 0;
    std::size_t inputs_ = 0;
    std::uint64_t p_ = 0;
    std::uint32_t output_ = 0;
};

}  // namespace seprank
