#include "seprank/answer.hpp"

#include "seprank/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace seprank {

std::string to_string(RankKind k) {
    switch (k) {
        case RankKind::exact: return "exact";
        case RankKind::modular_lower_bound: return "modular-lower-bound";
        case RankKind::generic: return "generic";
        case RankKind::numerical: return "numerical";
    }
    throw internal_error("to_string(RankKind): unknown value " + std::to_string(static_cast<int>(k)));
}

std::string to_string(GrowthStop s) {
    switch (s) {
        case GrowthStop::none: return "none";
        case GrowthStop::size_limit: return "size limit";
        case GrowthStop::time_budget: return "time budget";
        case GrowthStop::memory: return "memory";
    }
    throw internal_error("to_string(GrowthStop): unknown value " + std::to_string(static_cast<int>(s)));
}

std::string RankAnswer::label() const {
    switch (kind) {
        case RankKind::exact: return "certified";
        case RankKind::generic: return "generic lower bound";
        case RankKind::numerical: return "numerical";
        case RankKind::modular_lower_bound: {
            if (failure_bound >= 1) return "lower bound";
            char buf[64];
            std::snprintf(buf, sizeof buf, "probabilistic (p <= %.3g)", bound_up(failure_bound, 3));
            return buf;
        }
    }
    throw internal_error("RankAnswer::label: unknown kind " + std::to_string(static_cast<int>(kind)));
}

std::string label_with_bound(const std::string& label, double failure_bound) {
    if (label != "generic lower bound" || !(failure_bound > 0)) return label;
    char buf[48];
    std::snprintf(buf, sizeof buf, ", failure_bound %.3g", bound_up(failure_bound, 3));
    return label + buf;
}

double bound_up(double x, int digits) {
    if (!(x > 0) || !std::isfinite(x)) return x;
    digits = std::clamp(digits, 1, 17);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
    double y = std::strtod(buf, nullptr);
    if (y < x) {  // rounded down: one unit up in the last digit kept
        const char* e = std::strchr(buf, 'e');
        const int exp10 = e != nullptr ? std::atoi(e + 1) : 0;
        std::snprintf(buf, sizeof buf, "%.*e", digits - 1, y + std::pow(10.0, exp10 - (digits - 1)));
        y = std::strtod(buf, nullptr);
    }
    return y;
}

double trials_bound(double per, long trials) {
    if (!(per > 0)) return 0.0;
    if (per >= 1 || trials <= 0) return 1.0;
    const double b = std::pow(per, static_cast<double>(trials));
    return b >= std::numeric_limits<double>::min() ? b : std::numeric_limits<double>::min();  // 2.23e-308, a normal double
}

double independent_bound(const std::vector<double>& per) {
    double b = 1.0;
    for (double x : per) {
        if (!(x > 0)) return 0.0;
        b *= std::min(1.0, x);
        b = std::max(b, std::numeric_limits<double>::min());  // no underflow to 0 or a subnormal
    }
    return b;
}

}  // namespace seprank
