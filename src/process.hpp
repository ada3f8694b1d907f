// seprank (internal) — what the process has used: peak resident memory.
#pragma once

#include <sys/resource.h>

namespace seprank {

// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss, KiB on Linux).
inline double peak_rss_mib() {
    struct rusage ru {};
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

}  // namespace seprank
