// seprank — cooperative cancellation of long calls.
//
// A caller that wants to stop a long computation (an interactive front end on Ctrl-C, a
// time-out) installs a check for the current thread with a CancelScope. The long loops
// of the library poll it:
//   evaluation_rank   once per row of new evaluations, and after each rank step;
//   rank_certified    before each certificate round and per prime;
//   generic_rank      per trial (and inside each trial's evaluation);
//   run_table         per row (and inside each row's generic rank).
// When the check returns true, the call unwinds with `cancelled` (not an error of the
// input: nothing is wrong with the request). Worker threads the library starts inherit
// the scope of the thread that started them: they read the flag, only the installing
// thread calls the check itself, at most once per `interval_seconds` (so a check may
// take a lock or acquire an interpreter's lock).
// Latency: the time between two polls — one row of evaluations, one modular rank of
// the current matrix, one prime, one weight draw of a flattening — plus `interval`.
// Single FLINT calls (one product or composition of an expansion, one dense elimination)
// are not interrupted; an expansion is polled before each product and power (Poly::mul,
// Poly::pow), so its latency is its longest single call.
// Cost without a scope: one thread-local pointer read per poll.
// Thread safety: scopes are per thread; separate threads with separate scopes are
// independent.
//
// A program that ends on SIGINT, SIGTERM or SIGHUP instead (the seprank command line)
// calls install_interrupt_cleanup first: the signal then also removes the temporary
// files the library has open and ends the child processes it started.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>

namespace seprank {

// Thrown by a long call whose cancellation check returned true.
struct cancelled : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct CancelState;  // opaque: the check, its flag, the installing thread
using CancelHandle = std::shared_ptr<CancelState>;

class CancelScope {
public:
    // Installs `check` for the calling thread until the scope ends (the previous scope
    // comes back then). `check` must be callable repeatedly; an exception it throws
    // counts as "cancel". interval_seconds <= 0 means poll at every check. Throws only
    // std::bad_alloc (one small shared state). O(1).
    explicit CancelScope(std::function<bool()> check, double interval_seconds = 0.05);
    // Adopts another thread's scope (a worker started by a long call); null: none. O(1).
    explicit CancelScope(CancelHandle inherited) noexcept;
    CancelScope(const CancelScope&) = delete;
    CancelScope& operator=(const CancelScope&) = delete;
    // Restores the previous scope of this thread. O(1).
    ~CancelScope();

private:
    CancelHandle previous_;
};

// The current thread's scope (null when none), to hand to worker threads. O(1).
CancelHandle current_cancel() noexcept;
// True once the current scope's check has returned true (polls it when due, on the
// installing thread only). Never throws. O(1) plus one call of the check when due.
bool cancel_requested() noexcept;
// Throws cancelled when cancel_requested(). Cost: that of cancel_requested().
void throw_if_cancelled();

// For a program's main (the seprank command line calls it first): SIGINT, SIGTERM and
// SIGHUP (each one not ignored at the call) get a handler that wakes a thread of the
// library's; that thread ends the child processes the library started (gnuplot: SIGTERM,
// SIGKILL after about 2 s), removes the temporary files the library has open (an
// output's `.NAME.tmp.XXXXXX` before its rename, plot's script, log and figure) and ends
// the process by the same signal with its default action (a shell sees 128 + the
// signal's number). Nothing else changes: the signal still ends the program at once,
// whatever it is computing. The handler only writes a byte to a pipe
// (async-signal-safe); the clean-up runs as ordinary code under the lock of the
// library's registry of temporaries, so no temporary is made or renamed unseen. A
// second call does nothing. Throws std::system_error when the pipe or the thread cannot
// be made (nothing installed then). Cost: one thread, asleep until a signal comes.
// Not for a program that handles these signals itself (the Python module: Ctrl-C there
// cancels the call, and the unwinding removes the temporaries).
void install_interrupt_cleanup();

}  // namespace seprank
