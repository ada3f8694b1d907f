// Progress meter: formatting and throttling only; the caller's sink writes (docs/progress.md).
#include "seprank/progress.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

namespace seprank {

namespace {
const ProgressObserver no_observer;
thread_local const ProgressObserver* current = nullptr;
}  // namespace

const ProgressObserver& current_progress() noexcept { return current ? *current : no_observer; }

ProgressScope::ProgressScope(ProgressObserver obs) : obs_(std::move(obs)), previous_(current) { current = &obs_; }
ProgressScope::~ProgressScope() { current = previous_; }

struct ProgressMeter::State {
    ProgressStyle style;
    Sink sink;
    double delay, interval;
    std::function<double()> now;  // seconds
    double start = 0;
    double last = -1e300;  // when the last text went out
    std::string last_what;
    std::uint64_t last_done = 0;
    bool drawn = false;
    // The latest report, written or not (the heartbeat repeats it).
    std::string cur_what, cur_detail;
    std::uint64_t cur_done = 0, cur_total = 0;
    bool cur_even = true;
    bool have = false;
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    std::thread ticker;

    double seconds(double t) const { return t - start; }

    // Writes the current state; mu held.
    void emit(double el) {
        last = el;
        last_what = cur_what;
        last_done = cur_done;
        if (style == ProgressStyle::bar) {
            sink("\r" + format_bar(cur_what, cur_done, cur_total, cur_detail, el, 20, cur_even) + "\033[K");
            drawn = true;
        } else {
            sink(format(cur_what, cur_done, cur_total, cur_detail, el, cur_even) + "\n");
        }
    }

    void beat() {
        const double gap = style == ProgressStyle::bar ? 1.0 : interval;
        std::unique_lock<std::mutex> lock(mu);
        while (!cv.wait_for(lock, std::chrono::duration<double>(std::min(gap, 1.0)), [this] { return stop; })) {
            const double el = seconds(now());
            const bool ended = cur_total > 0 && cur_done >= cur_total;
            if (have && !ended && el >= delay && el - last >= gap) emit(el);
        }
    }
};

ProgressMeter::ProgressMeter(ProgressStyle style, Sink sink, double delay, double interval, std::function<double()> now,
                             bool heartbeat)
    : st_(std::make_unique<State>()) {
    st_->style = style;
    st_->sink = std::move(sink);
    st_->delay = delay;
    st_->interval = interval;
    st_->now = now ? std::move(now) : std::function<double()>([] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    });
    st_->start = st_->now();
    if (heartbeat && style != ProgressStyle::quiet && st_->sink) st_->ticker = std::thread([s = st_.get()] { s->beat(); });
}

ProgressMeter::~ProgressMeter() {
    {
        std::lock_guard<std::mutex> lock(st_->mu);
        st_->stop = true;
    }
    st_->cv.notify_all();
    if (st_->ticker.joinable()) st_->ticker.join();
}

ProgressObserver ProgressMeter::observer() {
    return [this](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
        report(what, done, total, detail);
    };
}

std::string ProgressMeter::format(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                  double elapsed, bool even) {
    std::ostringstream os;
    os << what << " " << done;
    if (total > 0) {
        os << "/" << total << " (" << static_cast<int>(std::floor(100.0 * static_cast<double>(done) / static_cast<double>(total)))
           << "%)";
    }
    if (!detail.empty()) os << " " << detail;
    os << ", " << static_cast<long>(elapsed) << " s";
    if (even && total > 0 && done > 0 && done < total) {
        const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
        os << ", about " << static_cast<long>(std::ceil(left)) << " s left";
    }
    return os.str();
}

std::string ProgressMeter::format_bar(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                      double elapsed, int width, bool even) {
    if (total == 0) return format(what, done, total, detail, elapsed, even);  // no total: a bar would never fill
    const int filled = static_cast<int>(static_cast<double>(width) * static_cast<double>(std::min(done, total)) / static_cast<double>(total));
    return "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.') +
           "] " + format(what, done, total, detail, elapsed, even);
}

void ProgressMeter::report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                           bool even) {
    State& s = *st_;
    if (s.style == ProgressStyle::quiet || !s.sink) return;
    const auto t = s.now();
    std::lock_guard<std::mutex> lock(s.mu);
    // Workers may report out of order: within a phase, keep the furthest point.
    if (s.have && s.cur_what == what && s.cur_total == total && done < s.cur_done) return;
    s.cur_what = std::string(what);
    s.cur_detail = std::string(detail);
    s.cur_done = done;
    s.cur_total = total;
    s.cur_even = even;
    s.have = true;
    const double el = s.seconds(t);
    if (el < s.delay) return;
    const bool phase_end = total > 0 && done >= total;
    const double gap = s.style == ProgressStyle::bar ? 0.2 : s.interval;
    if (!phase_end && el - s.last < gap) return;
    // A phase's end is written once (several workers may report it).
    if (phase_end && s.last_what == what && s.last_done == done) return;
    s.emit(el);
}

void ProgressMeter::finish() {
    State& s = *st_;
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.style == ProgressStyle::bar && s.drawn && s.sink) s.sink("\r\033[K");
    s.drawn = false;
}

}  // namespace seprank
