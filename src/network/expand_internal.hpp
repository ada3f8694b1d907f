// seprank (internal) — the expansion's size check, shared with the callers that expand
// on their own behalf (spectrum.cpp) and name their own way out.
#pragma once

#include "seprank/expand.hpp"

#include <string>

namespace seprank::detail {

// Throws resource_limit when estimate_expansion(s) passes opt.max_memory (0: default_max_memory()),
// naming the estimate and the limit, then `remedy`; invalid_input for a max_memory that is
// not a positive finite number (or 0). Cost: estimate_expansion's.
void check_expansion_estimate(const ValidSpec& s, const ExpandOptions& opt, const std::string& remedy);

}  // namespace seprank::detail
