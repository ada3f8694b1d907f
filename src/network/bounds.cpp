#include "seprank/bounds.hpp"

#include "seprank/error.hpp"

#include <cmath>
#include <limits>

namespace seprank {

namespace {
double log3(double x) { return x > 0 ? std::log(x) / std::log(3.0) : std::numeric_limits<double>::quiet_NaN(); }
}  // namespace

TheoremBounds levine_bounds(long dim, long heads, long depth) {
    if (dim < 1 || heads < 1 || depth < 0)
        throw invalid_input("bounds need dx >= 1, H >= 1, L >= 0 (got " + std::to_string(dim) + ", " + std::to_string(heads) +
                            ", " + std::to_string(depth) + ")");
    const double dx = static_cast<double>(dim), H = static_cast<double>(heads), L = static_cast<double>(depth);
    const double l3dx = log3(dx);
    TheoremBounds b;
    if (L < l3dx - 1e-12) {
        b.theorem = "7.1";
        const double a = -L + 2.0 - log3(2.0);
        b.lower = std::pow(3.0, L - 2.0) * (log3(dx - H) + a);
        b.upper = (std::pow(3.0, L) - 1.0) / 2.0 * log3(dx + H);
    } else if (L > l3dx + 1e-12) {
        b.theorem = "7.2";
        const double b1 = -L * (H / 2.0 + 1.0), c1 = L;
        const double b2 = -dx * (1.0 + 0.5 * log3((dx - H) / 2.0));
        const double c2 = -2.0 * dx * log3(dx / (2.0 * std::sqrt(2.0 * std::exp(1.0)))) + log3(dx);
        b.lower = 0.5 * dx * L + b1 + b2;
        b.upper = 2.0 * dx * L + c1 + c2;
    } else {
        b.lower = b.upper = std::numeric_limits<double>::quiet_NaN();
    }
    return b;
}

std::string outside_bounds(double log3_rank, const TheoremBounds& b) {
    if (b.theorem.empty() || std::isnan(log3_rank)) return "";
    if (!std::isnan(b.lower) && log3_rank < b.lower - 1e-9) return "below";
    if (!std::isnan(b.upper) && log3_rank > b.upper + 1e-9) return "above";
    return "";
}

}  // namespace seprank
