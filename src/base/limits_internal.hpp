// seprank (internal) — the memory limit as the caller set it, for hot paths that must
// not pay physical_memory_budget()'s system calls (limits.hpp).
#pragma once

namespace seprank::detail {

// The limit set with set_default_max_memory(), or 0 while none is set. O(1): one atomic load.
double set_max_memory();

}  // namespace seprank::detail
