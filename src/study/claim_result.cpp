// seprank — a verify claim's result from its detail, and the tally of its cases
// (verify_spectrum.hpp: claim_result, ClaimTally).
#include "verify_spectrum.hpp"

#include "seprank/answer.hpp"

#include <sstream>
#include <string>
#include <utility>

namespace seprank {

ClaimResult claim_result(const std::string& name, bool pass, std::string detail) {
    while (!detail.empty() && (detail.back() == ' ' || detail.back() == ';')) detail.pop_back();  // a list's last "; "
    return {name, pass, detail};
}

std::string ClaimTally::add(bool ok, const std::string& limit, const std::string& wrong_mark) {
    if (ok) return "";
    if (!limit.empty()) {
        ++unchecked;
        return " NOT CHECKED (" + limit + ")";
    }
    ++wrong;
    return wrong_mark;
}

std::string measured_dimensions_text(double largest_failure_bound) {
    std::ostringstream os;
    os << "each dimension a Jacobian rank mod p (a certified lower bound; ";
    if (largest_failure_bound > 0) os << "the generic dimension with failure_bound <= " << bound_up(largest_failure_bound, 3) << ")";
    else os << "exact: each reached a bound)";
    return os.str();
}

ClaimResult claim_result(const std::string& name, const ClaimTally& tally, std::string detail) {
    ClaimResult r = claim_result(name, tally.wrong == 0 && tally.unchecked == 0, std::move(detail));
    if (tally.wrong == 0 && tally.unchecked > 0) {
        r.checked = false;
        r.detail = "not checked: " + std::to_string(tally.unchecked) + (tally.unchecked == 1 ? " case" : " cases") +
                   " stopped by a resource limit; " + r.detail;
    }
    return r;
}

}  // namespace seprank
