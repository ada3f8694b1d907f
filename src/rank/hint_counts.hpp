// seprank (internal) — the block-hint counts of a graded evaluation's answer
// (RankAnswer::hinted_*, answer.hpp), as the evaluation and generic's first trial report
// them (docs/evaluation.md, "Block hints").
#pragma once

#include "seprank/answer.hpp"

#include <string>

namespace seprank::detail {

// Copies the seven hinted_* counts of `from` into `to`. O(1).
inline void copy_hint_counts(const RankAnswer& from, RankAnswer& to) {
    to.hinted_blocks = from.hinted_blocks;
    to.hinted_final = from.hinted_final;
    to.hinted_equal = from.hinted_equal;
    to.hinted_above = from.hinted_above;
    to.hinted_below = from.hinted_below;
    to.hinted_absent = from.hinted_absent;
    to.hinted_over_cap = from.hinted_over_cap;
}

// "X hint(s) above 0 for blocks of cap 0 …, not used": the note where no block of the
// network had a hint (hint_outcomes_text's last part). O(1).
inline std::string hint_absent_text(const RankAnswer& r) {
    return std::to_string(r.hinted_absent) + " hint(s) above 0 for blocks of cap 0 (no monomial of that degree), not used";
}

// "E final at their hint, A above it, B below it[ (C of them hinted above their cap …)]
// [, O not final][, X hint(s) above 0 for blocks of cap 0 …, not used]": where the hinted
// blocks' final ranks lie from their hints (O: the hinted blocks not final; a hint above
// its block's cap orders the work, the block ranked at its cap's side, and its block ends
// below it). O(1).
inline std::string hint_outcomes_text(const RankAnswer& r) {
    const long open = r.hinted_blocks - r.hinted_equal - r.hinted_above - r.hinted_below;
    return std::to_string(r.hinted_equal) + " final at their hint, " + std::to_string(r.hinted_above) + " above it, " +
           std::to_string(r.hinted_below) + " below it" +
           (r.hinted_over_cap > 0 ? " (" + std::to_string(r.hinted_over_cap) + " of the hints above their block's cap, which no rank exceeds: wrong hints)"
                                  : std::string()) +
           (open > 0 ? ", " + std::to_string(open) + " not final" : std::string()) +
           (r.hinted_absent > 0 ? ", " + hint_absent_text(r) : std::string());
}

}  // namespace seprank::detail
