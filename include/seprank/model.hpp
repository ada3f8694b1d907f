// seprank — a network's derived facts, computed once from a validated spec (docs/model.md).
//
// A NetworkSpec says how a network was written (a family and its fields, or a stack of
// layer kinds); a Model says what it is: the layers as kinds, what each reads and writes,
// and the facts every analysis reads (degree, weight degree, output sizes, parameters,
// homogeneity, token-sign parity). An analysis builds one Model at its boundary and reads
// these facts instead of asking the spec again; each is computed by the layer kinds'
// traits once, here.
#pragma once

#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

// One layer of a Model: its kind and fields, what it reads and writes (n token vectors of
// width w; fc and dense read theirs flattened and write one vector), its degree d_l and
// weight increment m_l (D_l = d_l·D_{l−1} + m_l), its parameters, and whether it adds its
// input back.
struct ModelLayer {
    LayerSpec layer;
    long tokens_in = 0, width_in = 0;
    long tokens_out = 0, width_out = 0;
    long degree = 1;
    long weight_increment = 0;
    Integer parameters;
    long structural_zeros = 0;  // entries of its matrices that are 0 by construction
    bool residual = false;
};

// The two sides of every degree block of a homogeneous network's flattening for a
// partition A|B: a_side[a] = #A-monomials of degree a, b_side[a] = #B-monomials of degree
// D − a, a = 0..D (docs/evaluation.md, "Degree blocks").
struct DegreeBlockSides {
    std::vector<long> a_side, b_side;
};

// The default max_work of the degree-block counts: 2^31 steps.
inline constexpr double kCapsMaxWork = 2147483648.0;

class Model {
public:
    // Derives every fact of `spec` (a bare NetworkSpec is validated by the conversion, as
    // everywhere). Cost: O(depth) layer traits and exact integer products (the degree has
    // about L·log2 d bits).
    explicit Model(const ValidSpec& spec);
    // Copies only, as ValidSpec: an object moved from still describes its spec. O(depth).
    Model(const Model&) = default;
    Model& operator=(const Model&) = default;
    ~Model() = default;

    const ValidSpec& valid() const noexcept { return spec_; }
    const NetworkSpec& spec() const noexcept { return spec_.get(); }
    // The layers as kinds (stack_layers), in order; empty at depth 0.
    const std::vector<ModelLayer>& layers() const noexcept { return layers_; }
    long depth() const noexcept { return static_cast<long>(layers_.size()); }
    // Variables per token (r with an embedding, else dx) and in all (N of them).
    long input_vars_per_token() const noexcept { return input_vars_; }
    long input_vars() const noexcept { return spec().tokens * input_vars_; }
    // What the last layer writes: output_positions vectors of output_dim entries.
    long output_dim() const noexcept { return output_dim_; }
    long output_positions() const noexcept { return output_positions_; }
    // ∏ d_l and D_L, exact (output_degree, weight_degree).
    const Integer& degree() const noexcept { return degree_; }
    const Integer& weight_degree() const noexcept { return weight_degree_; }
    // All weights (parameter_count), structural zeros included; and the weights the
    // parameter map varies: those less the structural zeros (attention's rank cap), plus the
    // embedding's dx·r (dimension_parameters).
    const Integer& parameters() const noexcept { return parameters_; }
    const Integer& varied_parameters() const noexcept { return varied_; }
    // Homogeneous in the input variables (no residual mixes degrees).
    bool homogeneous() const noexcept { return homogeneous_; }
    // The degrees the output's entries can have, ascending: {degree()} when homogeneous;
    // with residual layers the union, layer by layer, of what the residual carries and what
    // the layer writes (a layer of degree d sums d degrees of its input); never 0, since no
    // layer has a bias. Empty when some degree on the way is past kListedDegrees: then
    // any of 1..degree(). O(1).
    static constexpr long kListedDegrees = 4096;
    const std::vector<long>& output_degrees() const noexcept { return output_degrees_; }
    // Token symmetry (docs/evaluation.md, "Token symmetry"): scaling one token's inputs by
    // a root of unity of order m scales f by a power of it, so f's degree in the variables
    // of token k is token_residues()[k−1] modulo m = token_modulus() for every monomial:
    // the output token i's residue χ, every other token's 0. m is the largest order every
    // layer keeps (each kind's token_character, folded over the layers), and χ the product
    // of the layers' multipliers modulo m; m = 1: no symmetry (every residue 0); m = 0:
    // every order, and the degrees themselves are fixed (χ = D, a stack of per-token layers).
    // Attention with score degree s gives m = s + 1 (parity for s = 1), a tied hadamard
    // block of degree d m = d − 1; a layer that mixes tokens ends it (m = 1) unless the
    // tokens are already even in it (a square before it, say).
    long token_modulus() const noexcept { return modulus_; }
    const std::vector<long>& token_residues() const noexcept { return residues_; }
    // Degree floors (docs/evaluation.md, "Degree floor"): every monomial of f has degree at
    // least token_floors()[k−1] in the variables of token k. The output token i's floor is
    // the product of the layers' floors (each kind's token_character: s for attention with
    // score degree s, r for an mlp of power r, 1 for hadamard, 0 for a layer whose output
    // i may not read token i), the smaller of y's and F(y)'s at a residual; every other
    // token's is 0. Attention with score degree s alone: s^L.
    const std::vector<long>& token_floors() const noexcept { return floors_; }
    // The same seen modulo 2 (negating token k's inputs multiplies f by (−1)^parity[k−1]),
    // for an even modulus or m = 0; empty otherwise: token_parities.
    bool sign_equivariant() const noexcept { return !parities_.empty(); }
    const std::vector<int>& token_parities() const noexcept { return parities_; }

    // The expected dimension's reductions, in order (docs/dimension.md, "Expected"): each
    // layer's parameters less what its own symmetries leave, GL(n) at each junction of two
    // layers (and through residual layers, Stack::residual_chain), the embedding's GL(dx),
    // then the whole-network corrections (linear networks, product caps); `scalar`: only
    // output coordinate p of position i is read. Every count comes from the layer kinds'
    // traits. A linear last layer after a linear output map, and a residual linear layer
    // read by a layer without residual, are absorbed (Stack::absorbs_linear_last,
    // absorbed_residual_linear): the count is the shorter network's, with the layer's
    // parameters a loss. `known` (when given) receives the defects known to be real in a
    // layer's own count, not subtracted (Strassen's block: docs/dimension.md, "Defects"),
    // each line with its size. Cost O(depth²), plus a Model of the shorter network
    // (O(parameters)) per layer absorbed.
    std::vector<std::pair<std::string, long>> expected_losses(bool scalar, std::vector<std::pair<std::string, long>>* known = nullptr) const;
    // The monomials the output (scalar: one coordinate; else every position and
    // coordinate) can have: those of the degrees output_degrees() (every degree 1..degree()
    // when they are not listed) in input_vars() variables, times the outputs; LONG_MAX when
    // larger. O(|output_degrees()|).
    long output_space(bool scalar) const;
    // Per weight entry, in random_network's order (weight_entries: the embedding, then each
    // layer's matrices in file order, row-major), whether the parameter map varies it (false:
    // a structural zero). Derived once, with the rest; O(1).
    const std::vector<bool>& varied_mask() const noexcept { return mask_; }

    // The degree blocks (docs/evaluation.md): for the partition A|B, the sides of each
    // block, counting only the monomials the token symmetry and the degree floors allow
    // (with `parity`; a block they rule out has 0 on both sides), and their caps cap_a =
    // min(a_side[a], b_side[a]). The degree-a block of the flattening has at most cap_a rows
    // or columns for every choice of weights, so sep(f) ≤ Σ_a cap_a; a rank that reaches
    // the sum is exact. Empty when f is not homogeneous, when D = degree() exceeds a long,
    // or when the count would cost more than max_work steps ((|tokens| − 2)·(D+1)²/(2m),
    // m = token_modulus(), plus 256·(D+1) for the series' memory); entries saturate at
    // LONG_MAX/4. Precondition: part is of this network's tokens (checked, invalid_input).
    // Cost O(|tokens|·D²/m + D): one token on a side is a copy, so N = 2 is linear in D;
    // memory O(D).
    DegreeBlockSides degree_block_sides(const ValidPartition& part, double max_work = kCapsMaxWork, bool parity = true) const;
    std::vector<long> degree_block_caps(const ValidPartition& part, double max_work = kCapsMaxWork, bool parity = true) const;
    // The flattening's cap: the most rows or columns its non-zero part can have for any
    // weights, so sep(f) ≤ flattening_cap always and a rank that reaches it is exact. A
    // homogeneous f: Σ_a cap_a (degree_block_caps). Any other (a residual layer mixes
    // degrees): min(Σ_a a_side, Σ_a b_side), the monomials of degree 0..D each side can have
    // under the token symmetry and the degree floors (one block, the whole matrix). −1 when
    // D exceeds a long or the count would cost more than max_work steps; LONG_MAX/4 when it
    // saturates. Precondition: part is of this network's tokens (checked, invalid_input).
    // Cost and memory as degree_block_sides.
    long flattening_cap(const ValidPartition& part, double max_work = kCapsMaxWork) const;

    // Weights of this network drawn from `seed`: every entry uniform on [−range, range] in
    // weight_entries' order, each structural zero then set to 0 (its draw still taken, so
    // the stream does not depend on the zeros). random_network draws through it.
    // Precondition: range ≥ 1, else invalid_input. Cost O(parameters).
    Weights draw_weights(std::uint64_t seed, long range) const;
    // Checks that w has this network's shapes: as many layers, each its kind's lists (heads,
    // W) and every matrix rows × cols; invalid_input naming the first that differs
    // (check_shapes checks through it). Cost O(matrices).
    void check_weights(const Weights& w) const;

private:
    void derive_mask();

    ValidSpec spec_;
    std::vector<ModelLayer> layers_;
    long input_vars_ = 0, output_dim_ = 0, output_positions_ = 0;
    Integer degree_, weight_degree_, parameters_, varied_;
    bool homogeneous_ = true;
    std::vector<long> output_degrees_;
    long modulus_ = 1;
    std::vector<long> residues_;
    std::vector<long> floors_;
    std::vector<int> parities_;
    std::vector<bool> mask_;
};

}  // namespace seprank
