// Progress meter: formatting and throttling only; the caller's sink writes (docs/progress.md).
#include "seprank/progress.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace seprank {

namespace {
const ProgressObserver no_observer;
thread_local const ProgressObserver* current = nullptr;
}  // namespace

const ProgressObserver& current_progress() noexcept { return current ? *current : no_observer; }

ProgressScope::ProgressScope(ProgressObserver obs) : obs_(std::move(obs)), previous_(current) { current = &obs_; }
ProgressScope::~ProgressScope() { current = previous_; }

ProgressMeter::ProgressMeter(ProgressStyle style, Sink sink, double delay, double interval, std::function<Clock::time_point()> now,
                             bool heartbeat)
    : style_(style), sink_(std::move(sink)), delay_(delay), interval_(interval),
      now_(now ? std::move(now) : std::function<Clock::time_point()>([] { return Clock::now(); })), start_(now_()) {
    if (heartbeat && style_ != ProgressStyle::quiet && sink_) ticker_ = std::thread([this] { beat(); });
}

ProgressMeter::~ProgressMeter() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (ticker_.joinable()) ticker_.join();
}

void ProgressMeter::beat() {
    const double gap = style_ == ProgressStyle::bar ? 1.0 : interval_;
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::duration<double>(std::min(gap, 1.0)), [this] { return stop_; })) {
        const double el = seconds(now_());
        const bool ended = cur_total_ > 0 && cur_done_ >= cur_total_;
        if (have_ && !ended && el >= delay_ && el - last_ >= gap) emit_locked(el);
    }
}

void ProgressMeter::emit_locked(double el) {
    last_ = el;
    last_what_ = cur_what_;
    last_done_ = cur_done_;
    if (style_ == ProgressStyle::bar) {
        sink_("\r" + format_bar(cur_what_, cur_done_, cur_total_, cur_detail_, el) + "\033[K");
        drawn_ = true;
    } else {
        sink_(format(cur_what_, cur_done_, cur_total_, cur_detail_, el) + "\n");
    }
}

double ProgressMeter::seconds(Clock::time_point t) const { return std::chrono::duration<double>(t - start_).count(); }

ProgressObserver ProgressMeter::observer() {
    return [this](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
        report(what, done, total, detail);
    };
}

std::string ProgressMeter::format(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                  double elapsed) {
    std::ostringstream os;
    os << what << " " << done;
    if (total > 0) {
        os << "/" << total << " (" << static_cast<int>(std::floor(100.0 * static_cast<double>(done) / static_cast<double>(total)))
           << "%)";
    }
    if (!detail.empty()) os << " " << detail;
    os << ", " << static_cast<long>(elapsed) << " s";
    if (total > 0 && done > 0 && done < total) {
        const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
        os << ", about " << static_cast<long>(std::ceil(left)) << " s left";
    }
    return os.str();
}

std::string ProgressMeter::format_bar(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail,
                                      double elapsed, int width) {
    const int filled = total > 0 ? static_cast<int>(static_cast<double>(width) * static_cast<double>(std::min(done, total)) /
                                                    static_cast<double>(total))
                                 : 0;
    return "[" + std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.') +
           "] " + format(what, done, total, detail, elapsed);
}

void ProgressMeter::report(std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
    if (style_ == ProgressStyle::quiet || !sink_) return;
    const auto t = now_();
    std::lock_guard<std::mutex> lock(mu_);
    // Workers may report out of order: within a phase, keep the furthest point.
    if (have_ && cur_what_ == what && cur_total_ == total && done < cur_done_) return;
    cur_what_ = std::string(what);
    cur_detail_ = std::string(detail);
    cur_done_ = done;
    cur_total_ = total;
    have_ = true;
    const double el = seconds(t);
    if (el < delay_) return;
    const bool phase_end = total > 0 && done >= total;
    const double gap = style_ == ProgressStyle::bar ? 0.2 : interval_;
    if (!phase_end && el - last_ < gap) return;
    // A phase's end is written once (several workers may report it).
    if (phase_end && last_what_ == what && last_done_ == done) return;
    emit_locked(el);
}

void ProgressMeter::finish() {
    std::lock_guard<std::mutex> lock(mu_);
    if (style_ == ProgressStyle::bar && drawn_ && sink_) sink_("\r\033[K");
    drawn_ = false;
}

}  // namespace seprank
