// seprank (internal) — the `verify` claims that recompute a sample of each conjecture of
// docs/conjectures.md (forms found by `guess` and `guess --blocks`), kept beside
// src/study/verify.cpp, which lists them after its own and the spectrum claims.
#pragma once

#include "verify_spectrum.hpp"

#include <vector>

namespace seprank {

// Claims of the same shape as the spectrum claims (a name, a statement, a run).
const std::vector<SpectrumClaim>& conjecture_claims();

}  // namespace seprank
