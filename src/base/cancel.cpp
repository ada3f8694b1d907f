#include "seprank/cancel.hpp"

#include "base/limits_internal.hpp"

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

namespace seprank {

struct CancelState {
    std::function<bool()> check;
    std::chrono::steady_clock::duration interval;
    std::thread::id owner;
    std::atomic<bool> flag{false};
    std::chrono::steady_clock::time_point next_poll;  // touched by the owner only
};

namespace {
thread_local CancelHandle current_scope;
}  // namespace

CancelScope::CancelScope(std::function<bool()> check, double interval_seconds) : previous_(current_scope) {
    auto s = std::make_shared<CancelState>();
    s->check = std::move(check);
    s->interval = detail::steady_seconds(interval_seconds);
    s->owner = std::this_thread::get_id();
    s->next_poll = std::chrono::steady_clock::now();
    current_scope = std::move(s);
}

CancelScope::CancelScope(CancelHandle inherited) noexcept : previous_(current_scope) {
    current_scope = std::move(inherited);
}

CancelScope::~CancelScope() { current_scope = std::move(previous_); }

CancelHandle current_cancel() noexcept { return current_scope; }

bool cancel_requested() noexcept {
    CancelState* s = current_scope.get();
    if (s == nullptr) return false;
    if (s->flag.load(std::memory_order_relaxed)) return true;
    if (std::this_thread::get_id() != s->owner || !s->check) return false;
    const auto now = std::chrono::steady_clock::now();
    if (now < s->next_poll) return false;
    s->next_poll = now + s->interval;
    bool stop = true;
    try {
        stop = s->check();
    } catch (...) {
    }
    if (stop) s->flag.store(true, std::memory_order_relaxed);
    return stop;
}

void throw_if_cancelled() {
    if (cancel_requested()) throw cancelled("cancelled by the caller's cancellation check");
}

}  // namespace seprank
