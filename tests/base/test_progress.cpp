// The progress meter (docs/progress.md): formatting, the delay, the throttle, quiet, the
// bar's clearing, and a report from several threads. A fake clock makes it deterministic.
#include "seprank/progress.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <mutex>

#include <string>
#include <thread>
#include <vector>

using namespace seprank;

namespace {

struct Fake {
    double t = 0;  // seconds
    void advance(double s) { t += s; }
};

}  // namespace

TEST_CASE("format: counts, percentage, detail, elapsed and the time left") {
    // 3 of 12 after 6 s: 2 s per unit, 9 units left, so 18 s.
    CHECK(ProgressMeter::format("rows", 3, 12, "attention N=2", 6.0) == "rows 3/12 (25%) attention N=2, 6 s, about 18 s left");
    CHECK(ProgressMeter::format("primes", 0, 10, "", 0.5) == "primes 0/10 (0%), 0 s");           // no ETA before a unit is done
    CHECK(ProgressMeter::format("primes", 10, 10, "", 7.9) == "primes 10/10 (100%), 7 s");      // none when done
    CHECK(ProgressMeter::format("evaluations", 42, 0, "", 3.0) == "evaluations 42, 3 s");       // total unknown
    CHECK(ProgressMeter::format_bar("rows", 5, 10, "", 1.0, 10) == "[#####.....] rows 5/10 (50%), 1 s, about 1 s left");
    // Units of uneven cost (a table's rows): no time left, bar or line.
    CHECK(ProgressMeter::format("rows", 5, 6, "attention N=4", 6.0, false) == "rows 5/6 (83%) attention N=4, 6 s");
    CHECK(ProgressMeter::format_bar("rows", 5, 10, "", 1.0, 10, false) == "[#####.....] rows 5/10 (50%), 1 s");
    CHECK(ProgressMeter::format_bar("rows", 0, 0, "", 1.0, 4) == "rows 0, 1 s");  // no total: no bar that never fills
}

TEST_CASE("lines: nothing before the delay, then at most one line per interval, and each phase end") {
    Fake clock;
    std::vector<std::string> out;
    ProgressMeter m(ProgressStyle::lines, [&](const std::string& s) { out.push_back(s); }, 2.0, 5.0, [&] { return clock.t; });
    m.report("rows", 1, 10);
    clock.advance(1.9);
    m.report("rows", 2, 10);
    CHECK(out.empty());  // a command that ends within the delay prints nothing
    clock.advance(0.2);  // 2.1 s
    m.report("rows", 3, 10);
    REQUIRE(out.size() == 1);
    CHECK(out[0] == "rows 3/10 (30%), 2 s, about 5 s left\n");
    clock.advance(4.0);  // 6.1 s: within the interval
    m.report("rows", 4, 10);
    CHECK(out.size() == 1);
    clock.advance(1.5);  // 7.6 s
    m.report("rows", 5, 10);
    CHECK(out.size() == 2);
    clock.advance(0.1);
    m.report("rows", 10, 10);  // a phase's end is always written, once
    m.report("rows", 10, 10);
    REQUIRE(out.size() == 3);
    CHECK(out[2].rfind("rows 10/10 (100%)", 0) == 0);
    // An uneven phase (report's `even` false) is written the same, without a time left.
    clock.advance(6.0);
    m.report("table rows", 1, 4, "", false);
    REQUIRE(out.size() == 4);
    CHECK(out[3] == "table rows 1/4 (25%), 13 s\n");
    m.finish();  // lines style: nothing to clear
    CHECK(out.size() == 4);
}

TEST_CASE("bar: redrawn in place with \\r, cleared by finish; quiet writes nothing") {
    Fake clock;
    std::vector<std::string> out;
    ProgressMeter bar(ProgressStyle::bar, [&](const std::string& s) { out.push_back(s); }, 0.0, 5.0, [&] { return clock.t; });
    bar.report("certificate primes", 1, 4);
    clock.advance(0.3);
    bar.report("certificate primes", 2, 4);
    REQUIRE(out.size() == 2);
    CHECK(out[0].rfind("\r[#####...............] certificate primes 1/4 (25%)", 0) == 0);
    CHECK(out[1].find('\n') == std::string::npos);
    bar.finish();
    REQUIRE(out.size() == 3);
    CHECK(out[2] == "\r\033[K");

    std::vector<std::string> none;
    ProgressMeter quiet(ProgressStyle::quiet, [&](const std::string& s) { none.push_back(s); }, 0.0, 0.0, [&] { return clock.t; });
    for (int k = 0; k <= 4; ++k) {
        clock.advance(10);
        quiet.report("rows", static_cast<std::uint64_t>(k), 4);
    }
    quiet.finish();
    CHECK(none.empty());
}

TEST_CASE("an observer may be called from several threads") {
    std::vector<std::string> out;
    ProgressMeter m(ProgressStyle::lines, [&](const std::string& s) { out.push_back(s); }, 0.0, 0.0);
    const ProgressObserver obs = m.observer();
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
        ts.emplace_back([&obs] {
            for (std::uint64_t k = 1; k <= 200; ++k) report_progress(obs, "primes", k, 200);
        });
    for (auto& t : ts) t.join();
    // Interval 0: every report is written, each a whole line (the sink is called under the lock).
    REQUIRE(!out.empty());
    for (const auto& s : out) CHECK(s.back() == '\n');
    report_progress(ProgressObserver{}, "nothing", 1, 1);  // no observer: no call, no crash
}

TEST_CASE("a ProgressScope installs an observer for its thread, and restores the previous one") {
    CHECK_FALSE(current_progress());
    std::vector<std::string> seen;
    {
        ProgressScope outer([&](std::string_view what, std::uint64_t, std::uint64_t, std::string_view) { seen.emplace_back(what); });
        report_progress(current_progress(), "outer", 1, 2);
        {
            ProgressScope inner([&](std::string_view what, std::uint64_t, std::uint64_t, std::string_view) { seen.push_back("inner:" + std::string(what)); });
            report_progress(current_progress(), "x", 1, 2);
        }
        report_progress(current_progress(), "back", 2, 2);
        bool other_thread_has_one = true;
        std::thread([&] { other_thread_has_one = static_cast<bool>(current_progress()); }).join();
        CHECK_FALSE(other_thread_has_one);  // per thread: workers get the caller's explicitly
    }
    CHECK_FALSE(current_progress());
    CHECK(seen == std::vector<std::string>{"outer", "inner:x", "back"});
}

TEST_CASE("heartbeat: one long unit still shows a line per interval, and nothing after the phase ends") {
    std::mutex mu;
    std::vector<std::string> out;
    {
        ProgressMeter m(ProgressStyle::lines, [&](const std::string& s) {
            std::lock_guard<std::mutex> lock(mu);
            out.push_back(s);
        }, 0.0, 0.05, {}, true);
        m.report("rows", 1, 3, "a long row");
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        std::lock_guard<std::mutex> lock(mu);
        // The report itself, then repeats of it (elapsed updated) while nothing else came.
        REQUIRE(out.size() >= 3);
        for (const auto& s : out) CHECK(s.rfind("rows 1/3 (33%) a long row, ", 0) == 0);
    }
    std::size_t n;
    {
        std::lock_guard<std::mutex> lock(mu);
        n = out.size();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(out.size() == n);  // the meter is gone: its thread was stopped and joined
}
