// seprank (internal) — what network.cpp and network_json.cpp share: a network's weight
// matrices in file order, their structural zeros, and weights of a spec's shapes
// (families.hpp; docs/network.md).
#pragma once

#include "families.hpp"
#include "seprank/network.hpp"

namespace seprank::network_detail {

using detail::MatrixSlot;
using detail::with_family;
using detail::with_network;

// fn(layer, slot, matrix) for every weight matrix but the embedding, in file order.
template <class Wts, class Fn>
void for_each_matrix(const NetworkSpec& s, Wts& wts, Fn fn) {
    with_network(s, [&](auto net) {
        for (long l = 0; l < s.depth; ++l)
            net.for_each_matrix(s, l, wts.layers[static_cast<std::size_t>(l)],
                                [&](const MatrixSlot& m, auto& matrix) { fn(l, m, matrix); });
    });
}

// Whether entry (i, j) of layer l's matrix `m` is zero by the family's structure.
bool structural_zero(const NetworkSpec& s, long l, const MatrixSlot& m, long i, long j);

// Weights for s with each layer's lists (heads, W) sized and every matrix still empty, to
// be filled through for_each_matrix (no embedding). O(depth·heads).
Weights empty_weights(const NetworkSpec& s);

// The spec of s's first `depth` layers: the depth, a stack's layer list and the widths of
// fc and power cut to them; the embedding, position and coordinate kept (first_layers on a
// Network, and the count of a network without its linear last layer). Precondition:
// 0 <= depth <= s.depth (not checked); the result is not validated. O(depth).
NetworkSpec first_layers_spec(const NetworkSpec& s, long depth);
// s without its layer l (a stack's layers, or a family's widths, one shorter); the rest
// kept. Precondition: 0 <= l < s.depth, and layer l keeps its input's shape (a residual
// layer), not checked; the result is not validated. O(depth).
NetworkSpec without_layer_spec(const NetworkSpec& s, long l);
// s written as a stack: a family as the stack it is shorthand for (stack_layers, its own
// fields at their defaults), a stack as it is. The same network. Precondition: a valid
// spec, not checked. O(depth).
NetworkSpec stack_form(const NetworkSpec& s);
// The stack s with layer l's residual dropped; the rest kept (a family first written as
// the stack it is shorthand for, stack_layers). Precondition: 0 <= l < s.depth, not
// checked; the result is not validated. O(depth).
NetworkSpec without_residual_spec(const NetworkSpec& s, long l);
// s as a power network x ↦ W_L σ(… σ(W_1 x)), σ(t) = t^r, in any spelling (family power,
// or a stack that family_form writes as one), without an embedding: its widths n_0 = N·dx,
// n_1..n_L and r; widths empty when it is none. O(depth).
struct PowerShape {
    std::vector<long> widths;
    long power = 0;
};
PowerShape power_shape(const NetworkSpec& s);
// An upper bound of the network's dimension whatever the weights, from its row scalings
// (layers.hpp's row_scales): the parameters P less the weights never read (at one
// coordinate when `scalar`) less the scalings, which act freely on generic read weights and
// keep f (docs/dimension.md, "Row scalings"); −1 where some layer has none proven (attention,
// mlp, hadamard, a residual layer). Precondition: a valid spec, not checked. O(depth).
long row_scaling_bound(const NetworkSpec& s, long P, bool scalar);

}  // namespace seprank::network_detail
