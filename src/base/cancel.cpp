#include "seprank/cancel.hpp"

#include "base/limits_internal.hpp"
#include "base/temporaries.hpp"

#include <atomic>
#include <chrono>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <system_error>
#include <thread>
#include <unistd.h>
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

namespace {

int interrupt_pipe[2] = {-1, -1};

// The handler only tells the clean-up thread which signal came: a write is
// async-signal-safe; what the clean-up does (locks, vectors, waits) is not.
extern "C" void on_interrupt(int sig) {
    const int saved = errno;
    const auto byte = static_cast<unsigned char>(sig);
    (void)!::write(interrupt_pipe[1], &byte, 1);
    errno = saved;
}

}  // namespace

void install_interrupt_cleanup() {
    static std::atomic<bool> installed{false};
    if (installed.exchange(true)) return;
    if (::pipe2(interrupt_pipe, O_CLOEXEC) != 0) {
        installed = false;
        throw std::system_error(errno, std::generic_category(), "install_interrupt_cleanup: pipe");
    }
    ::fcntl(interrupt_pipe[1], F_SETFL, O_NONBLOCK);  // a burst of signals never blocks the handler
    try {
        std::thread([] {
            unsigned char byte = 0;
            while (::read(interrupt_pipe[0], &byte, 1) != 1) {}
            const int sig = byte;
            // Held until the end: no temporary is made or renamed after the clean-up.
            const auto hold = detail::clean_up_registered();
            std::signal(sig, SIG_DFL);
            sigset_t one;
            sigemptyset(&one);
            sigaddset(&one, sig);
            ::pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
            ::raise(sig);        // the default action: the process ends by the signal
            ::_exit(128 + sig);  // not reached
        }).detach();
    } catch (...) {
        ::close(interrupt_pipe[0]);
        ::close(interrupt_pipe[1]);
        installed = false;
        throw;
    }
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction now {};
        // An ignored signal stays ignored (a background job's SIGINT, nohup's SIGHUP).
        if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler == SIG_IGN) continue;
        struct sigaction act {};
        act.sa_handler = on_interrupt;
        sigemptyset(&act.sa_mask);
        act.sa_flags = SA_RESTART;
        ::sigaction(sig, &act, nullptr);
    }
}

}  // namespace seprank
