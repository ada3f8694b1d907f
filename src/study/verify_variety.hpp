// seprank (internal) — the `verify` claims about neurovarieties (docs/variety.md): degrees
// and gauge-fixed fibres counted by network_variety against the formulas that predict them,
// kept beside src/study/verify.cpp, which lists them after the conjectures' samples.
#pragma once

#include "verify_spectrum.hpp"

#include <vector>

namespace seprank {

// Claims of the same shape as the spectrum claims (a name, a statement, a run).
const std::vector<SpectrumClaim>& variety_claims();

}  // namespace seprank
