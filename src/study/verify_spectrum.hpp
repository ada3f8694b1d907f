// seprank (internal) — the `verify` claims about singular spectra and ε-separation ranks
// (docs/theory.md §2.7), kept beside src/study/verify.cpp, which lists them after its own.
#pragma once

#include "seprank/verify.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

struct SpectrumClaim {
    std::string name, statement;
    ClaimResult (*run)(std::uint64_t seed);
};

const std::vector<SpectrumClaim>& spectrum_claims();

// A claim's result, its detail without a list's trailing "; " (the claims of verify.cpp,
// verify_conjectures.cpp and verify_variety.cpp). O(length of detail).
ClaimResult claim_result(const std::string& name, bool pass, std::string detail);

}  // namespace seprank
