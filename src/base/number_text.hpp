#pragma once
// A double as a message shows it: the shortest decimal that reads back as the same
// value (0.5, 1e-09, -1, inf, nan), not std::to_string's six fixed decimals.

#include <charconv>
#include <string>

namespace seprank {

inline std::string number_text(double x) {
    char buf[40];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

}  // namespace seprank
