#include "seprank/limits.hpp"

#include "limits_internal.hpp"
#include "seprank/error.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <thread>
#include <sys/resource.h>
#include <unistd.h>

namespace seprank {

double physical_memory_budget() {
    double phys = 8.0 * 1024 * 1024 * 1024;  // when sysconf cannot tell
    const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) phys = static_cast<double>(pages) * static_cast<double>(size);
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        phys = std::min(phys, static_cast<double>(rl.rlim_cur));
    return phys / 2.0;
}

namespace {
std::atomic<double>& limit_slot() {
    static std::atomic<double> slot{0.0};  // 0: not set, use physical_memory_budget()
    return slot;
}
}  // namespace

double detail::set_max_memory() { return limit_slot().load(); }

namespace {
std::mutex& name_mutex() {
    static std::mutex m;
    return m;
}
std::string& name_slot() {
    static std::string name = "max_memory";
    return name;
}
}  // namespace

std::string default_max_memory_name() {
    const std::lock_guard<std::mutex> lock(name_mutex());
    return name_slot();
}

double default_max_memory() {
    const double v = limit_slot().load();
    return v > 0 ? v : physical_memory_budget();
}

void check_memory_value(double bytes, const std::string& what) {
    if (!std::isfinite(bytes) || bytes <= 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", bytes);
        throw invalid_input(what + " = " + buf + " must be a positive finite number of bytes");
    }
}

void set_default_max_memory(double bytes, const std::string& what) {
    check_memory_value(bytes, what);
    // Under an address-space limit (ulimit -v) an estimate that passes a larger limit would
    // allocate past it, and FLINT and GMP abort when an allocation fails: refused here.
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && bytes > 0.75 * static_cast<double>(rl.rlim_cur))
        throw invalid_input(what + " = " + format_bytes(bytes) + " exceeds 3/4 of this process's address-space limit (ulimit -v: " +
                            format_bytes(static_cast<double>(rl.rlim_cur)) + "), past which FLINT and GMP abort instead of failing; give at most " +
                            format_bytes(0.75 * static_cast<double>(rl.rlim_cur)));
    {
        const std::lock_guard<std::mutex> lock(name_mutex());
        name_slot() = what;
    }
    limit_slot().store(bytes);
}

std::string format_bytes(double bytes) {
    char buf[64];
    const double gib = bytes / (1024.0 * 1024 * 1024);
    if (gib >= 1.0 || !std::isfinite(gib)) std::snprintf(buf, sizeof buf, "%.3g GiB", gib);
    else if (bytes >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
    return buf;
}

namespace {

// The refusal "<what>: about E estimated, over the limit of L (<limit_name>)", E and L in
// human form (bytes or seconds); where they read the same when rounded, each is followed by
// its exact value, which says which is larger.
[[noreturn]] void refuse(double estimate, double limit, bool bytes, const std::string& what, const std::string& limit_name) {
    const auto human = [bytes](double x) { return bytes ? format_bytes(x) : format_seconds(x); };
    const auto exact = [bytes](double x) {
        char buf[64];
        if (bytes) std::snprintf(buf, sizeof buf, " (%.0f bytes)", x);
        else std::snprintf(buf, sizeof buf, " (%.6g s)", x);
        return std::string(buf);
    };
    std::string est = human(estimate), lim = human(limit);
    if (est == lim) {
        est += exact(estimate);
        lim += exact(limit);
    }
    throw resource_limit(what + ": about " + est + " estimated, over the limit of " + lim + " (" + limit_name + ")");
}

}  // namespace

void check_memory(double estimate_bytes, double limit_bytes, const std::string& what, const std::string& limit_name) {
    if (limit_bytes <= 0) return;
    if (!(estimate_bytes <= limit_bytes))  // NaN too
        refuse(estimate_bytes, limit_bytes, true, what, limit_name.empty() ? default_max_memory_name() : limit_name);
}

namespace {
std::atomic<double>& time_slot() {
    static std::atomic<double> slot{60.0};
    return slot;
}
}  // namespace

double default_max_seconds() { return time_slot().load(); }

namespace {
std::atomic<int>& threads_slot() {
    static std::atomic<int> slot{2};
    return slot;
}
}  // namespace

int default_threads() { return threads_slot().load(); }

int max_threads() {
    static const int most = [] {
        const unsigned hw = std::thread::hardware_concurrency();
        return static_cast<int>(std::min(4096u, std::max(64u, 16u * (hw == 0 ? 1u : hw))));
    }();
    return most;
}

void check_threads(int threads, const std::string& what) {
    if (threads < 1 || threads > max_threads())
        throw invalid_input(what + " " + std::to_string(threads) + " must be in 1.." + std::to_string(max_threads()));
}

void set_default_threads(int threads, const std::string& what) {
    check_threads(threads, what);
    threads_slot().store(threads);
}

void set_default_max_seconds(double seconds, const std::string& what) {
    if (!std::isfinite(seconds) || seconds <= 0) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", seconds);
        throw invalid_input(what + " = " + buf + " must be a positive finite number of seconds");
    }
    time_slot().store(seconds);
}

namespace {

// A number in the human form format_seconds or format_bytes writes ("7.4 s", "3 min",
// "12.5 MiB", "1.2e+03 GiB", "900 bytes") at the start of `t`, in seconds or bytes (which,
// in *is_bytes); where refuse() followed it with the exact value ("60 s (60.04 s)"), that
// one. -1 when `t` does not start with one.
double human_amount(const std::string& t, bool* is_bytes) {
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || !std::isfinite(v)) return -1;
    const std::string rest(end);
    static const std::pair<const char*, double> seconds[] = {{" s", 1}, {" min", 60}, {" h", 3600}, {" days", 86400}};
    static const std::pair<const char*, double> bytes[] = {{" bytes", 1}, {" MiB", 1048576.0}, {" GiB", 1073741824.0}};
    double out = -1;
    std::size_t used = 0;
    for (const auto& [unit, scale] : seconds)
        if (rest.rfind(unit, 0) == 0 && (rest.size() == std::strlen(unit) || !std::isalpha(static_cast<unsigned char>(rest[std::strlen(unit)])))) {
            out = v * scale, used = std::strlen(unit), *is_bytes = false;
            break;
        }
    if (out < 0)
        for (const auto& [unit, scale] : bytes)
            if (rest.rfind(unit, 0) == 0) {
                out = v * scale, used = std::strlen(unit), *is_bytes = true;
                break;
            }
    if (out < 0) return -1;
    // refuse() writes the exact value after a human one that reads like the limit's
    const std::string after = rest.substr(used);
    if (after.rfind(" (", 0) == 0) {
        bool b = false;
        const double exact = human_amount(after.substr(2), &b);
        if (exact >= 0 && b == *is_bytes) return exact;
    }
    return out;
}

}  // namespace

bool detail::refusal_now_admitted(const std::string& part) {
    const std::size_t about = part.find("about "), over = part.find(" estimated, over the limit of ");
    if (about == std::string::npos || over == std::string::npos || about > over) return false;
    bool is_bytes = false;
    const double estimate = human_amount(part.substr(about + 6, over - about - 6), &is_bytes);
    if (estimate < 0) return false;
    // the limit and its name: "over the limit of L [(exact)] (NAME)", a few dozen characters
    const std::string limit = part.substr(over, 120);
    const auto names = [&](std::initializer_list<std::string> list) {
        for (const std::string& n : list)
            if (limit.find("(" + n + ")") != std::string::npos) return true;
        return false;
    };
    const bool time = !is_bytes && names({"--max-time", "max_time"});
    const bool memory = is_bytes && names({default_max_memory_name(), "--max-memory", "max_memory"});
    if (time) return estimate <= default_max_seconds();
    if (memory) return estimate <= default_max_memory();
    return false;
}

std::string format_seconds(double s) {
    char buf[64];
    if (!std::isfinite(s)) return "an unbounded time";
    if (s < 90) std::snprintf(buf, sizeof buf, "%.3g s", s);
    else if (s < 5400) std::snprintf(buf, sizeof buf, "%.3g min", s / 60);
    else if (s < 2 * 86400) std::snprintf(buf, sizeof buf, "%.3g h", s / 3600);
    else std::snprintf(buf, sizeof buf, "%.3g days", s / 86400);
    return buf;
}

void check_time(double estimate_seconds, double limit_seconds, const std::string& what, const std::string& limit_name) {
    if (limit_seconds <= 0) return;
    if (!(estimate_seconds <= limit_seconds)) refuse(estimate_seconds, limit_seconds, false, what, limit_name);
}

double power_bits(double base_abs, double exponent) {
    if (!(base_abs > 1) || !(exponent > 0)) return 0;
    return exponent * std::log2(base_abs);
}

double binomial_bits(double log2_n, double k) {
    if (!(k >= 1)) return 1;
    return k * (std::max(log2_n - std::log2(k), 0.0) + 1.4426950408889634) + 1;
}

namespace {
std::string approx(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, v < 1e6 ? "%.0f" : "%.3g", v);
    return buf;
}
}  // namespace

void check_exact_bits(double bits, const std::string& what, double copies) {
    if (!(bits <= kMaxExactBits))
        throw resource_limit(what + ": a number of about " + approx(bits) + " bits estimated, over the limit of 2^26 bits (" +
                             format_bytes(kMaxExactBits / 8) + ") for an exact value");
    check_memory(bits / 8 * copies, default_max_memory(), what);
}

void check_exact_work(double bit_ops, const std::string& what) {
    if (!(bit_ops <= kMaxExactWork))
        throw resource_limit(what + ": about " + approx(bit_ops) + " bit operations estimated, over the limit of 2^34");
}

}  // namespace seprank
