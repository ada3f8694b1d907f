// seprank (internal) — what the process has used: peak resident memory.
#pragma once

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace seprank {

// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss, KiB on Linux).
inline double peak_rss_mib() {
    struct rusage ru {};
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Starts a new peak-memory window: resets the kernel's high-water mark of resident memory
// for this process (Linux ≥ 4.0: "5" written to /proc/self/clear_refs; process-wide, so
// a window covers whatever else the process runs meanwhile). False where that is not
// possible; peak_rss_window_mib() then reports the peak since the process started.
inline bool reset_peak_rss() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    if (f == nullptr) return false;
    const bool ok = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

// The high-water mark of resident memory since the last reset_peak_rss() (VmHWM of
// /proc/self/status), in MiB; peak_rss_mib() where /proc cannot be read.
inline double peak_rss_window_mib() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return peak_rss_mib();
    char line[256];
    double kib = -1;
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::strncmp(line, "VmHWM:", 6) == 0) {
            kib = std::strtod(line + 6, nullptr);
            break;
        }
    std::fclose(f);
    return kib >= 0 ? kib / 1024.0 : peak_rss_mib();
}

}  // namespace seprank
