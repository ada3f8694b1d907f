// seprank (internal) — what the process has used: peak resident memory.
#pragma once

#include <sys/resource.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

namespace seprank {

// Peak resident set size of this process so far, in MiB (getrusage ru_maxrss, KiB on Linux).
inline double peak_rss_mib() {
    struct rusage ru {};
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Current resident set size, in MiB (/proc/self/statm; 0 where it cannot be read).
inline double current_rss_mib() {
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr) return 0;
    unsigned long size = 0, resident = 0;
    const int n = std::fscanf(f, "%lu %lu", &size, &resident);
    std::fclose(f);
    if (n != 2) return 0;
    return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// The peak resident memory of a stretch of work (a table row), without touching the
// process's own high-water mark (which /usr/bin/time and getrusage report): when the
// process peak rises during the window, that new peak is the window's (exact); otherwise
// the window's peak is the largest resident size seen by a sampler thread every 5 ms (a
// spike shorter than that, below the earlier process peak, can be missed).
class PeakWindow {
public:
    PeakWindow() : before_(peak_rss_mib()), seen_(current_rss_mib()), sampler_([this] { run(); }) {}
    PeakWindow(const PeakWindow&) = delete;
    PeakWindow& operator=(const PeakWindow&) = delete;
    ~PeakWindow() { stop(); }

    // Ends the window (idempotent) and returns its peak in MiB.
    double peak_mib() {
        stop();
        const double after = peak_rss_mib();
        return after > before_ ? after : std::max(seen_, current_rss_mib());
    }

private:
    void run() {
        std::unique_lock<std::mutex> lock(m_);
        while (!done_) {
            lock.unlock();
            const double now = current_rss_mib();
            lock.lock();
            seen_ = std::max(seen_, now);
            cv_.wait_for(lock, std::chrono::milliseconds(5), [this] { return done_; });
        }
    }
    void stop() {
        {
            std::lock_guard<std::mutex> lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        if (sampler_.joinable()) sampler_.join();
    }

    double before_;
    double seen_;
    bool done_ = false;
    std::mutex m_;
    std::condition_variable cv_;
    std::thread sampler_;  // last: started once the members above exist
};

}  // namespace seprank
