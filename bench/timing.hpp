// Shared by the benchmark programs: a wall clock and the best of several runs.
#pragma once

#include <algorithm>
#include <chrono>

namespace seprank_bench {

// Seconds on the steady clock (differences only).
inline double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Best of `reps` runs of fn(), seconds.
template <class F>
double best(int reps, F&& fn) {
    double b = 1e300;
    for (int r = 0; r < reps; ++r) {
        const double t0 = now();
        fn();
        b = std::min(b, now() - t0);
    }
    return b;
}

}  // namespace seprank_bench
