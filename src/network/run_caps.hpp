#pragma once
// seprank — runs of layers capped by the forms they compose into, for the expected
// dimension's count (model.cpp's losses_of; docs/dimension.md "Runs of dense layers").

#include "layer_common.hpp"

#include <vector>

namespace seprank::detail {

// A run of layers a+1..b reading one another whole (dense, or mlp token by token), a+1..b−1
// of degree r_l: layer b's pre-activations are forms of degree ∏ r_l in the forms_in
// coordinates of layer a+1's input, M of them (the monomials), so the run counts at most
// b.rows·(M − b.row_loss), and what an mlp's W2 adds after their powers (through_output),
// whatever the widths inside it (Massarenti–Mella's cap for the last two layers; any run
// alike). A junction inside the run (a linear output map, GL(n_next)) is in the run's own
// count. The whole network's run of dense layers is the ambient space's cap, left to it;
// one ending in an mlp's W2, reading one quadric (a sum of squares of forms of any degree)
// or in a layer of power >= 2 is below it and counts. Runs are
// chosen not to overlap, the largest total saving (one pass over the layers, O(L^2)), each
// one a loss.

// The runs' losses appended to `losses`, from the layers' counts c (0-based), the GL loss
// gl[l] between layers l and l+1, each layer named in the lines by shown[l]. O(L^2).
void run_caps(const std::vector<LayerCount>& c, const std::vector<long>& gl, const std::vector<long>& shown, Losses& losses);

}  // namespace seprank::detail
