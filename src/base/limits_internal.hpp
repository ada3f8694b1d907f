// seprank (internal) — the memory limit as the caller set it, for hot paths that must
// not pay physical_memory_budget()'s system calls (limits.hpp).
#pragma once

#include <chrono>
#include <string>

namespace seprank::detail {

// The limit set with set_default_max_memory(), or 0 while none is set. O(1): one atomic load.
double set_max_memory();

// Whether `text` (from a message, at or before the refusal) states a refusal by the process's
// time or memory limit — "about E estimated, over the limit of L (NAME)" as check_time and
// check_memory write it, NAME --max-time / max_time, or default_max_memory_name(),
// --max-memory / max_memory — whose estimate E the current limit (default_max_seconds(),
// default_max_memory()) now admits. False for any other text. O(length of the text).
bool refusal_now_admitted(const std::string& text);

// The steady clock's duration of `seconds` (>= 0; NaN: 0), at most 10^9 s (about 32 years,
// past any run): a duration of 10^19 s would overflow the clock's 64-bit nanoseconds and
// wrap to the past. O(1).
inline std::chrono::steady_clock::duration steady_seconds(double seconds) {
    const double s = seconds > 0 ? (seconds < 1e9 ? seconds : 1e9) : 0;
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace seprank::detail
