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

// A claim's cases tallied. A case whose check failed where a resource limit (limits.hpp:
// --max-time, --max-memory) stopped part of its computation, and its answer says so (a
// certificate not tried, an equation's search stopped, a growth stopped by memory or
// time), was not checked: nothing was found wrong. O(1) a case.
struct ClaimTally {
    long wrong = 0, unchecked = 0;
    // Counts the case; its mark for the detail: "" where ok, " NOT CHECKED (limit)" where a
    // limit (non-empty) explains the failure, else " WRONG" (or `wrong_mark`).
    std::string add(bool ok, const std::string& limit, const std::string& wrong_mark = " WRONG");
};
// The words a claim ends with on the dimensions it measured: "each dimension a Jacobian
// rank mod p (a certified lower bound; the generic dimension with failure_bound <= δ)",
// δ the largest of their failure bounds (bound_up, 3 digits), or "exact: each reached a
// bound" where that is 0. O(1).
std::string measured_dimensions_text(double largest_failure_bound);
// PASS where no case is wrong and every case was checked; FAIL where one is wrong; else
// LIMIT (checked false), the detail saying which cases were not checked. O(length).
ClaimResult claim_result(const std::string& name, const ClaimTally& tally, std::string detail);

}  // namespace seprank
