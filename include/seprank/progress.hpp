// seprank — progress of long computations (docs/progress.md).
//
// The library never prints. A long computation (a certificate's primes, a table's rows,
// a dimension's Jacobian rows) reports how far it is through a ProgressObserver that the
// caller supplies, or none. The CLI gives every long command one ProgressMeter: it turns
// the reports into a bar (a terminal), one line every few seconds (a file or a pipe), or
// nothing (--quiet), and hands the text to a sink that the CLI writes to stderr.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace seprank {

// One report: `done` of `total` units of the phase `what` ("certificate primes",
// "rows"); total 0 when unknown. `detail` is optional text about the current unit (the
// row under way). May be called from any thread; must be cheap for the caller (a meter
// only compares a clock most of the time).
using ProgressObserver = std::function<void(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail)>;

// Calls obs when it is set (the library's one-liner for an optional observer). Cost:
// one test, plus the observer's.
inline void report_progress(const ProgressObserver& obs, std::string_view what, std::uint64_t done, std::uint64_t total,
                            std::string_view detail = {}) {
    if (obs) obs(what, done, total, detail);
}

// The observer of the calling thread, installed by a ProgressScope (as cancel.hpp's
// CancelScope installs a cancel flag): a long computation reports to it without an
// observer in every options struct. Workers the library starts receive the caller's
// observer explicitly. An empty function when no scope is active. O(1).
const ProgressObserver& current_progress() noexcept;

// Installs obs for the calling thread until destroyed (then the previous one is back).
// obs may be empty (reports are then dropped). O(1) each way.
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
    using Sink = std::function<void(const std::string&)>;
    // now: a monotonic clock in seconds from any origin (tests give a fake one); default
    // std::chrono::steady_clock. (Seconds as a double keep <chrono> out of this header:
    // the umbrella header's budget.) Starts the heartbeat thread when asked for (not for
    // quiet or an empty sink); no check on delay/interval. O(1).
    ProgressMeter(ProgressStyle style, Sink sink, double delay = 1.0, double interval = 5.0,
                  std::function<double()> now = {}, bool heartbeat = false);
    // Wakes the heartbeat thread and joins it (it may finish a report under way). O(1).
    ~ProgressMeter();  // stops and joins the heartbeat thread
    ProgressMeter(const ProgressMeter&) = delete;
    ProgressMeter& operator=(const ProgressMeter&) = delete;
    // An observer that forwards to this meter (which must outlive it). O(1).
    ProgressObserver observer();
    // One report (as ProgressObserver): kept as the latest state, written per the rules
    // above; an older `done` of the same phase is ignored. `even`: the phase's units cost
    // about the same, so a time left is guessed from the rate so far; false for units that
    // grow (a table's rows, each deeper or wider than the last), where no time left is
    // printed. Takes the meter's lock. Cost as the class comment: one clock read,
    // formatting and one sink call when it writes.
    void report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail = {},
                bool even = true);
    // Clears a bar that was drawn (bar style); nothing otherwise. O(1).
    void finish();
    // The text of one report after `elapsed` seconds, without \r or newline:
    // "trials 3/14 (21%), 12 s, about 45 s left". The ETA appears once done > 0 and
    // total > 0, until done reaches total, and only for `even` units (see report).
    // O(length of the text).
    static std::string format(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                              double elapsed, bool even = true);
    // The bar form: "[#####.....] " followed by format(...), or format(...) alone when total
    // is 0 (unknown: a bar would never fill); width >= 0 assumed (not checked). O(width +
    // length of the text).
    static std::string format_bar(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                  double elapsed, int width = 20, bool even = true);

private:
    // The state, its lock and the heartbeat thread (src/base/progress.cpp): kept out of this
    // header so that it includes no <thread> or <mutex> (the umbrella header's budget).
    struct State;
    std::unique_ptr<State> st_;
};

}  // namespace seprank
