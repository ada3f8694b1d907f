// seprank — resource limits: the memory budget every size check compares against.
//
// Before allocating anything whose size the input controls (a matrix declared by a
// Matrix Market header, the weights of a network, a polynomial expansion, a grid of
// templates), seprank estimates the bytes it would need and compares them with a
// limit; over the limit it throws resource_limit with the estimate and the limit.
//
// default_max_memory() is that limit where an API takes none explicitly. Unless set
// with set_default_max_memory(), it is half of the smaller of the physical memory
// (sysconf _SC_PHYS_PAGES × page size) and the address-space limit of the process
// (RLIMIT_AS, when one is set), so that a run refused here would not have fit anyway.
// The value is process-wide and read/written atomically (thread safe).
#pragma once

#include <string>

namespace seprank {

// The process-wide memory limit in bytes (see above). O(1) (while unset, each call
// asks physical_memory_budget()).
double default_max_memory();
// Sets it (bytes; finite and > 0, and at most 3/4 of an address-space limit (RLIMIT_AS)
// when there is one, else invalid_input naming `what`). O(1).
void set_default_max_memory(double bytes, const std::string& what = "max_memory");
// The name a refusal against default_max_memory() gives its limit: the `what` of the last
// set_default_max_memory (the CLI's "--max-memory"), "max_memory" while it was never set.
// Thread safe. O(length of the name).
std::string default_max_memory_name();
// Half of min(physical memory, RLIMIT_AS): the built-in default (8 GiB assumed when
// sysconf cannot tell). Never throws. O(1): two sysconf and one getrlimit call.
double physical_memory_budget();

// Throws invalid_input unless `bytes` is finite and > 0; `what` names the parameter. O(1).
void check_memory_value(double bytes, const std::string& what);

// Throws resource_limit "<what>: about X GiB estimated, over the limit of Y GiB
// (<limit_name>)" when estimate_bytes > limit_bytes. A limit <= 0 means no limit. An
// empty limit_name (the default) is default_max_memory_name(): pass a name of its own
// with any other limit. O(1).
void check_memory(double estimate_bytes, double limit_bytes, const std::string& what,
                  const std::string& limit_name = "");

// Threads: the number a computation's options ask for where the caller sets none. The
// `threads` member of GenericOptions, EvaluationOptions, DimensionOptions, RankOptions,
// BudgetOptions and CheckOptions (guess.hpp) starts at default_threads(), so that a caller (the CLI's
// --threads) bounds every computation, those a computation starts inside itself
// included (verify's claims, a table row's columns). 2 unless set. Read atomically; set
// it before the computations it should govern. O(1).
int default_threads();
// Sets it: 1..max_threads(), else invalid_input naming `what`. O(1).
void set_default_threads(int threads, const std::string& what = "threads");
// The most threads a computation takes: 16 per hardware thread, at least 64, at most
// 4096. Each thread costs its stack and scratch, so an unbounded count ran a process out of
// memory (10^6 threads asked from Python). O(1) after the first call.
int max_threads();
// invalid_input "WHAT N must be in 1..max_threads()" unless threads lies there; every
// computation's option check calls it. O(1).
void check_threads(int threads, const std::string& what = "threads");

// Time: the same rule for work whose size the input controls but whose memory stays small
// (a Jacobian of many cheap rows, an exact evaluation of a huge closed form): the
// computation estimates its seconds before it starts and compares them with a limit.
// default_max_seconds() is that limit: 60 s unless set (CLI: --max-time); estimates
// are from operation counts at a rate measured on the machine the constants were fitted
// on (docs/usage.md §1.2), so they are coarse, a factor of a few either way.
// O(1).
double default_max_seconds();
// Sets it (seconds; finite and > 0, else invalid_input naming `what`). O(1).
void set_default_max_seconds(double seconds, const std::string& what = "max_time");
// Throws resource_limit "<what>: about X estimated, over the limit of Y (<limit_name>)"
// when estimate_seconds > limit_seconds (a NaN estimate too). A limit <= 0: no limit. O(1).
void check_time(double estimate_seconds, double limit_seconds, const std::string& what,
                const std::string& limit_name = "--max-time");
// Human form of a duration ("42 s", "3.5 min", "2.1 h", "4e+03 days"). Never throws
// on a value. O(1).
std::string format_seconds(double seconds);

// Human form of a byte count ("1.5 GiB", "12 MiB"). O(1).
std::string format_bytes(double bytes);

// ---- exact numbers whose size the input controls
// Before an exact evaluation whose result the input can make arbitrarily large (a power
// c^n, a binomial C(g + x, x), a recurrence unrolled to n), seprank estimates the bits of
// the result and the work (bit operations), and refuses with resource_limit when either
// is over its limit, before any of it is computed: GMP is never asked for a number it
// would abort on (GMP aborts the process instead of reporting an allocation failure).

// The largest exact number evaluated: 2^26 bits (8 MiB, about 20 million decimal digits).
// Printing a bigger answer would be unreadable; computing it would take seconds to hours.
inline constexpr double kMaxExactBits = 67108864.0;
// The largest work estimate accepted: 2^34 bit operations (a few seconds).
inline constexpr double kMaxExactWork = 17179869184.0;

// Estimated bits of |b|^e: e·log2|b| (0 when |b| ≤ 1 or e ≤ 0, NaN too). O(1).
double power_bits(double base_abs, double exponent);
// Estimated bits of C(n, k) from log2(n) and the smaller side k = min(k, n − k) ≥ 0: an
// upper bound, k·(log2 n − log2 k + log2 e) + 1 (C(n, k) ≤ (e·n/k)^k). Taking log2 n
// lets n be any size (a number of 10^6 bits has no double). 1 when k < 1. O(1).
double binomial_bits(double log2_n, double k);

// Throws resource_limit "<what>: a number of about B bits estimated, over the limit of
// 2^26 bits" when bits > kMaxExactBits (or is NaN), and check_memory's message when
// `copies` numbers of that size (the operands and temporaries of the evaluation) do not
// fit in default_max_memory(). Cost: O(1).
void check_exact_bits(double bits, const std::string& what, double copies = 4);
// Throws resource_limit "<what>: about W bit operations estimated, over the limit of
// 2^34" when bit_ops > kMaxExactWork (or is NaN). Cost: O(1).
void check_exact_work(double bit_ops, const std::string& what);

}  // namespace seprank
