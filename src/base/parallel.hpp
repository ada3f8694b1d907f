// Private: running work on several threads so that no exception escapes a thread (which
// would call std::terminate, a signal). work(tid) runs on threads 1..nt-1 and on the
// caller as tid 0; every thread is joined; the first exception thrown by any of them is
// rethrown on the caller. When the system refuses to start thread t, the caller runs
// work(t) itself after its own share, so every tid's share is done exactly once.
// Workers inherit the caller's cancel scope (cancel.hpp); a cancel seen by any of them is
// rethrown as `cancelled` on the caller once all are joined.
// A thread started here ends with flint_cleanup(): FLINT keeps per-thread mpz caches
// that a thread FLINT did not start must release itself, or they leak.
#pragma once

#include "seprank/cancel.hpp"

#include <flint/flint.h>

#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace seprank::detail {

template <class F>
void run_parallel(int threads, F&& work) {
    std::exception_ptr first;
    std::mutex m;
    const CancelHandle scope = current_cancel();
    auto guarded = [&](int tid) {
        try {
            CancelScope inherit(scope);
            work(tid);
        } catch (...) {
            std::lock_guard<std::mutex> lock(m);
            if (!first) first = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    int started = 1;
    for (; started < threads; ++started) {
        try {
            pool.emplace_back(
                [&guarded](int tid) {
                    guarded(tid);
                    flint_cleanup();
                },
                started);
        } catch (const std::system_error&) {
            break;  // no more threads: the caller runs the shares of those that did not start
        }
    }
    guarded(0);
    for (int t = started; t < threads; ++t) guarded(t);
    for (auto& t : pool) t.join();
    if (first) std::rethrow_exception(first);
    throw_if_cancelled();
}

}  // namespace seprank::detail
