#pragma once

// What table.cpp writes and table_resume.cpp reads back: not part of the public API.

namespace seprank::detail {

// The start of a row's reason when a limit refused its rank (table_row: the row is
// `skipped`, the refusal's text follows); resume_set computes such a row again once the
// limit admits the refusal's estimate.
inline constexpr char kRankRefusedTag[] = "rank: ";

}  // namespace seprank::detail
