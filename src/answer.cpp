#include "seprank/answer.hpp"

#include "seprank/columns.hpp"
#include "seprank/error.hpp"

#include <cstdio>

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

std::string RankAnswer::label() const {
    switch (kind) {
        case RankKind::exact: return "certified";
        case RankKind::generic: return "generic lower bound";
        case RankKind::numerical: return "numerical";
        case RankKind::modular_lower_bound: {
            if (failure_bound >= 1) return "lower bound";
            char buf[64];
            std::snprintf(buf, sizeof buf, "probabilistic (p <= %.3g)", failure_bound);
            return buf;
        }
    }
    throw internal_error("RankAnswer::label: unknown kind " + std::to_string(static_cast<int>(kind)));
}

Record to_record(const RankAnswer& a) {
    RowSource src;
    src.answer = &a;
    return make_record(src, answer_columns());
}

std::string to_json(const RankAnswer& a, int indent) { return to_json(to_record(a), indent); }

}  // namespace seprank
