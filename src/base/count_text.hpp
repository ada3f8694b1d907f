// seprank (internal) — a count written as text (a table cell: a block, a cap, a rank).
#pragma once

#include <charconv>
#include <string_view>
#include <system_error>

namespace seprank::detail {

// Why `t` is not a count, a long >= 0 written in decimal digits alone (no sign, no spaces,
// as seprank writes one), as words to follow the cell's name: "is not an integer", "is
// negative (...)", "is out of range (...)"; nullptr when it is one, its value then in *v.
// Every reader of a block table's cells (guess --blocks, --hint-blocks) asks this, so that
// the two read the same file alike. O(length).
inline const char* count_text_error(std::string_view t, long* v) {
    if (t.empty()) return "is not an integer";
    const bool minus = t[0] == '-';
    const std::string_view digits = minus ? t.substr(1) : t;
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) return "is not an integer";
    if (minus) return "is negative (a count is >= 0)";
    long x = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
    if (ec == std::errc::result_out_of_range) return "is out of range (a count is at most 2^63 - 1)";
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return "is not an integer";
    *v = x;
    return nullptr;
}

}  // namespace seprank::detail
