// seprank — exact checks of the claims of docs/theory.md §3, one named claim at a time.
//
// Each claim computes what it states on concrete (seeded, random or constructed)
// inputs and reports PASS or FAIL with a one-line detail of what was measured. The
// checks are exact (certified ranks over Q, degrees read off exact expansions or
// certified along lines), except where a claim is about generic behaviour, which is
// then checked with the generic-rank machinery and its stated bound.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

struct ClaimResult {
    std::string name;
    bool pass = false;
    std::string detail;
    // false: a resource limit (limits.hpp: --max-time, --max-memory) refused the claim's work
    // before its check ran, so it is neither passed nor failed (pass is false, detail says
    // "not checked: " and the limit's message)
    bool checked = true;
};

// Names in the order `seprank verify` runs them. Built once; O(1) after.
const std::vector<std::string>& claim_names();
// One-line statement of a claim (for --list); invalid_input for an unknown name.
// O(number of claims).
std::string claim_statement(const std::string& name);
// Runs one claim; invalid_input for an unknown name. Never throws on a failed check:
// a failure is a result (an exception inside the check becomes a FAIL with its
// message). Cost: that of the claim's exact computations, on its fixed small sizes.
ClaimResult run_claim(const std::string& name, std::uint64_t seed);

}  // namespace seprank
