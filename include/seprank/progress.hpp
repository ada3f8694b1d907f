// seprank — progress of long computations (docs/progress.md).
//
// The library never prints. A long computation (a certificate's primes, a table's rows,
// a dimension's Jacobian rows) reports how far it is through a ProgressObserver that the
// caller supplies, or none. The CLI gives every long command one ProgressMeter: it turns
// the reports into a bar (a terminal), one line every few seconds (a file or a pipe), or
// nothing (--quiet), and hands the text to a sink that the CLI writes to stderr.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace seprank {

// One report: `done` of `total` units of the phase `what` ("certificate primes",
// "rows"); total 0 when unknown. `detail` is optional text about the current unit (the
// row under way). May be called from any thread; must be cheap for the caller (a meter
// only compares a clock most of the time).
using ProgressObserver = std::function<void(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail)>;

// Calls obs when it is set (the library's one-liner for an optional observer).
inline void report_progress(const ProgressObserver& obs, std::string_view what, std::uint64_t done, std::uint64_t total,
                            std::string_view detail = {}) {
    if (obs) obs(what, done, total, detail);
}

// The observer of the calling thread, installed by a ProgressScope (as cancel.hpp's
// CancelScope installs a cancel flag): a long computation reports to it without an
// observer in every options struct. Workers the library starts receive the caller's
// observer explicitly. An empty function when no scope is active.
const ProgressObserver& current_progress() noexcept;

// Installs obs for the calling thread until destroyed (then the previous one is back).
class ProgressScope {
public:
    explicit ProgressScope(ProgressObserver obs);
    ~ProgressScope();
    ProgressScope(const ProgressScope&) = delete;
    ProgressScope& operator=(const ProgressScope&) = delete;

private:
    ProgressObserver obs_;
    const ProgressObserver* previous_;
};

enum class ProgressStyle {
    bar,    // a terminal: one line redrawn in place (\r), cleared by finish()
    lines,  // a file or pipe: one complete line every `interval` seconds
    quiet   // nothing
};

// Turns reports into text for a sink. Nothing is written before `delay` seconds have
// passed since construction (a command that ends sooner shows nothing); after that, a
// bar is redrawn at most every 0.2 s and a line written at most every `interval` s, and
// always when a phase ends (done == total). With `heartbeat` a thread of the meter
// repeats the last report (its elapsed time and ETA updated) when no report came for a
// bar's second or a line's interval, so that one long unit (a table row of a minute) still
// shows the command alive. Thread-safe. Cost per report: one clock read and, when it
// writes, formatting one line.
class ProgressMeter {
public:
    using Clock = std::chrono::steady_clock;
    using Sink = std::function<void(const std::string&)>;
    // now: the clock (tests give a fake one); default steady_clock::now.
    ProgressMeter(ProgressStyle style, Sink sink, double delay = 1.0, double interval = 5.0,
                  std::function<Clock::time_point()> now = {}, bool heartbeat = false);
    ~ProgressMeter();  // stops the heartbeat thread
    ProgressMeter(const ProgressMeter&) = delete;
    ProgressMeter& operator=(const ProgressMeter&) = delete;
    // An observer that forwards to this meter (which must outlive it).
    ProgressObserver observer();
    void report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail = {});
    // Clears a bar that was drawn (bar style); nothing otherwise.
    void finish();
    // The text of one report after `elapsed` seconds, without \r or newline:
    // "rows 3/14 (21%) attention N=2 dx=3 L=3, 12 s, about 45 s left". The ETA appears
    // once done > 0 and total > 0.
    static std::string format(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                              double elapsed);
    // The bar form: "[#####.....] " followed by format(...).
    static std::string format_bar(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                  double elapsed, int width = 20);

private:
    double seconds(Clock::time_point t) const;
    void emit_locked(double elapsed);  // writes the current state; mu_ held
    void beat();
    ProgressStyle style_;
    Sink sink_;
    double delay_, interval_;
    std::function<Clock::time_point()> now_;
    Clock::time_point start_;
    double last_ = -1e300;  // when the last text went out
    std::string last_what_;
    std::uint64_t last_done_ = 0;
    bool drawn_ = false;
    // The latest report, written or not (the heartbeat repeats it).
    std::string cur_what_, cur_detail_;
    std::uint64_t cur_done_ = 0, cur_total_ = 0;
    bool have_ = false;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread ticker_;
};

}  // namespace seprank
