// Resource limits (limits.hpp): the memory and time checks and their messages.
#include "base/limits_internal.hpp"
#include "base/number_text.hpp"
#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/generic.hpp"
#include "seprank/limits.hpp"
#include "seprank/partition.hpp"
#include "seprank/rank.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <cmath>
#include <string>
#include <vector>

using namespace seprank;

TEST_CASE("check_memory and check_time refuse above the limit, with both sizes; equal when rounded, the exact ones too") {
    CHECK_NOTHROW(check_memory(100, 100, "x"));
    CHECK_NOTHROW(check_memory(1e30, 0, "x"));  // a limit <= 0: none
    CHECK_THROWS_WITH_AS(check_memory(3.0 * (1 << 30), 2.0 * (1 << 30), "the thing"),
                         "the thing: about 3 GiB estimated, over the limit of 2 GiB (max_memory)", resource_limit);
    CHECK_THROWS_AS(check_memory(std::nan(""), 1e9, "x"), resource_limit);
    // 11.8 GiB against 11.8 GiB would read as no reason at all: the bytes are added
    const double lim = 11.8 * (1 << 30), est = lim * 1.001;
    REQUIRE(format_bytes(est) == format_bytes(lim));
    try {
        check_memory(est, lim, "sweep");
        FAIL("not refused");
    } catch (const resource_limit& e) {
        const std::string m = e.what();
        CHECK(m.find("bytes) estimated, over the limit of 11.8 GiB (") != std::string::npos);
        CHECK(m.find(std::to_string(static_cast<long long>(std::llround(est)))) != std::string::npos);
    }
    CHECK_THROWS_WITH_AS(check_time(120, 60, "work"), "work: about 2 min estimated, over the limit of 60 s (--max-time)", resource_limit);
    try {
        check_time(60.04, 60, "work", "max_time");
        FAIL("not refused");
    } catch (const resource_limit& e) {
        CHECK(std::string(e.what()) == "work: about 60 s (60.04 s) estimated, over the limit of 60 s (60 s) (max_time)");
    }
}

TEST_CASE("the default memory limit: set, checked, and read back") {
    const double before = default_max_memory();
    CHECK(before > 0);
    CHECK(physical_memory_budget() > 0);
    set_default_max_memory(123456789.0);
    CHECK(default_max_memory() == 123456789.0);
    for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) CHECK_THROWS_AS(set_default_max_memory(bad), invalid_input);
    CHECK(default_max_memory() == 123456789.0);  // a refused value changes nothing
    // A refusal names the limit as it was set; a limit of the caller's own keeps its name.
    set_default_max_memory(123456789.0, "--max-memory");
    CHECK(default_max_memory_name() == "--max-memory");
    CHECK_THROWS_WITH_AS(check_memory(2e8, default_max_memory(), "the thing"),
                         "the thing: about 191 MiB estimated, over the limit of 118 MiB (--max-memory)", resource_limit);
    CHECK_THROWS_WITH_AS(check_memory(2e8, 1e8, "the thing", "Options::limit"),
                         "the thing: about 191 MiB estimated, over the limit of 95.4 MiB (Options::limit)", resource_limit);
    CHECK_THROWS_AS(set_default_max_memory(-1, "--other"), invalid_input);
    CHECK(default_max_memory_name() == "--max-memory");  // nor its name
    set_default_max_memory(before);
    CHECK(default_max_memory_name() == "max_memory");
}

TEST_CASE("the default threads: every options struct starts at it; set, checked, read back") {
    const int before = default_threads();
    CHECK(before == 2);  // the documented start (nothing in this test binary sets it before)
    set_default_threads(1);
    CHECK(default_threads() == 1);
    CHECK(GenericOptions{}.threads == 1);
    CHECK(EvaluationOptions{}.threads == 1);
    CHECK(DimensionOptions{}.threads == 1);
    CHECK(RankOptions{}.threads == 1);
    set_default_threads(7);
    CHECK(GenericOptions{}.threads == 7);
    // max_threads(): 16 per hardware thread, within 64..4096; every computation's check
    CHECK(max_threads() >= 64);
    CHECK(max_threads() <= 4096);
    set_default_threads(max_threads());
    CHECK(default_threads() == max_threads());
    set_default_threads(7);
    for (int bad : {0, -1, max_threads() + 1, 1000000}) {
        try {
            set_default_threads(bad, "--threads");
            FAIL("threads " << bad << " accepted");
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()) == "--threads " + std::to_string(bad) + " must be in 1.." + std::to_string(max_threads()));
        }
        EvaluationOptions eo;
        eo.threads = bad;
        CHECK_THROWS_AS(check_options(eo), invalid_input);
        RankOptions ro;
        ro.threads = bad;
        CHECK_THROWS_AS(check_options(ro), invalid_input);
    }
    CHECK(default_threads() == 7);  // a refused value changes nothing
    set_default_threads(before);
}

TEST_CASE("error messages show control bytes as \\xHH: a NUL does not end them, an escape does not reach the terminal") {
    const std::string given = std::string("a") + '\0' + "b\x1b[31m\tc\nd\x7f";
    CHECK(std::string(invalid_input("value '" + given + "'").what()) == "value 'a\\x00b\\x1b[31m\tc\nd\\x7f'");
    CHECK(std::string(domain_error(given).what()) == std::string(resource_limit(given).what()));
    CHECK(std::string(internal_error(given).what()).find("\\x00b") != std::string::npos);
    CHECK(std::string(invalid_input("plain text, é").what()) == "plain text, é");  // UTF-8 untouched
    CHECK(std::string(invalid_input("€ and 😀").what()) == "€ and 😀");             // 3 and 4 bytes too
    // a binary file's bytes: each byte of no valid UTF-8 sequence as \xHH
    CHECK(std::string(invalid_input(std::string("a\xff\xfe" "b")).what()) == "a\\xff\\xfeb");
    CHECK(std::string(invalid_input(std::string("cut \xc3")).what()) == "cut \\xc3");            // a sequence cut short
    CHECK(std::string(invalid_input(std::string("\xc0\xaf")).what()) == "\\xc0\\xaf");        // an overlong '/'
    CHECK(std::string(invalid_input(std::string("\xed\xa0\x80")).what()) == "\\xed\\xa0\\x80");  // a surrogate
    CHECK(std::string(invalid_input(std::string("\xf4\x90\x80\x80")).what()) == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
    // through a parser: the value after the NUL is named
    try {
        (void)parse_list(std::string("1,2") + '\0' + "x", "--tokens");
        FAIL("accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("\\x00x") != std::string::npos);
    }
}

TEST_CASE("detail::cut: a value of any length is quoted in at most 40 bytes and '…', never inside a UTF-8 sequence") {
    CHECK(detail::cut("") == "");
    CHECK(detail::cut(std::string(40, 'h')) == std::string(40, 'h'));
    CHECK(detail::cut(std::string(10000000, 'h')) == std::string(40, 'h') + "…");
    CHECK(detail::cut(std::string(39, 'a') + "é" + "b") == std::string(39, 'a') + "…");  // é's second byte would be the 41st
    // Random texts of 1- to 4-byte characters against the rule: whole up to 40 bytes; else
    // the longest prefix of whole characters of at most 40 bytes, then "…".
    seprank::Rng rng = seprank_test::rng_for("cut");
    const char* pieces[] = {"a", "é", "€", "😀", "\x01"};
    for (int it = 0; it < seprank_test::iterations(2000); ++it) {
        std::string t;
        std::vector<std::size_t> ends{0};  // byte offsets where a character ends
        const long n = static_cast<long>(rng.below(60));
        for (long k = 0; k < n; ++k) {
            t += pieces[rng.below(5)];
            ends.push_back(t.size());
        }
        std::string want = t;
        if (t.size() > 40) {
            std::size_t keep = 0;
            for (const std::size_t e : ends)
                if (e <= 40) keep = e;
            want = t.substr(0, keep) + "…";
        }
        INFO("text '" << t << "'");
        CHECK(detail::cut(t) == want);
    }
}

TEST_CASE("an error's message is at most about 2 KiB: its two ends kept around what was left out, never inside a UTF-8 sequence") {
    CHECK(std::string(invalid_input(std::string(2048, 'h')).what()) == std::string(2048, 'h'));  // whole up to 2,048 bytes
    const std::string head = "partition '", tail = "': token 3 appears twice";
    const std::string big = head + std::string(10000000, 'z') + tail;
    const std::string m = invalid_input(big).what();
    CHECK(m.size() < 2100);
    CHECK(m.rfind(head + "zzz", 0) == 0);  // the start, and the end with the reason
    CHECK(m.size() >= tail.size());
    CHECK(m.compare(m.size() - tail.size(), tail.size(), tail) == 0);
    CHECK(m.find("… (" + std::to_string(big.size() - 1536 - 384) + " bytes left out) …") != std::string::npos);
    for (const auto& e : {std::string(resource_limit(big).what()), std::string(domain_error(big).what()), std::string(internal_error(big).what())})
        CHECK(e == m);
    // 1- to 4-byte characters: both ends cut at character boundaries (valid UTF-8 after the cut)
    seprank::Rng rng = seprank_test::rng_for("message-text");
    const char* pieces[] = {"a", "é", "€", "😀"};
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        std::string t;
        const long n = 500 + static_cast<long>(rng.below(2000));
        for (long k = 0; k < n; ++k) t += pieces[rng.below(4)];
        const std::string out = invalid_input(t).what();
        INFO("length " << t.size());
        if (t.size() <= 2048) {
            CHECK(out == t);
            continue;
        }
        const std::size_t cut = out.find("… (");
        REQUIRE(cut != std::string::npos);
        const std::size_t resume = out.find(") …", cut) + std::string(") …").size();
        CHECK(t.compare(0, cut, out, 0, cut) == 0);  // a prefix of t, ending where a character ends
        CHECK((cut == t.size() || (static_cast<unsigned char>(t[cut]) & 0xc0) != 0x80));
        const std::string end = out.substr(resume);
        CHECK(t.compare(t.size() - end.size(), end.size(), end) == 0);  // a suffix, starting where a character starts
        CHECK((end.empty() || (static_cast<unsigned char>(end[0]) & 0xc0) != 0x80));
        CHECK(cut <= 1536);
        CHECK(end.size() <= 384);
    }
}

TEST_CASE("refusal_now_admitted reads back a time or memory refusal and weighs its estimate against the limit now") {
    const auto message = [](auto check) {
        try {
            check();
        } catch (const resource_limit& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const std::string slow = message([] { check_time(2.5, 1e-3, "the thing", "--max-time"); });
    REQUIRE(slow == "the thing: about 2.5 s estimated, over the limit of 0.001 s (--max-time)");
    const double before = default_max_seconds();
    set_default_max_seconds(2);
    CHECK(!detail::refusal_now_admitted(slow));  // 2.5 s is still over 2 s
    set_default_max_seconds(3);
    CHECK(detail::refusal_now_admitted(slow));
    // rounded alike: the exact values decide (60.04 s over 60 s)
    const std::string close = message([] { check_time(60.04, 60, "work", "--max-time"); });
    set_default_max_seconds(60);
    CHECK(!detail::refusal_now_admitted(close));
    set_default_max_seconds(61);
    CHECK(detail::refusal_now_admitted(close));
    set_default_max_seconds(before);
    // memory, by the name the limit was set with; minutes and GiB read as such
    const double mem = default_max_memory();
    const std::string name = default_max_memory_name();
    set_default_max_memory(512.0 * 1024 * 1024, "--max-memory");
    const std::string big = message([] { check_memory(3.0 * 1024 * 1024 * 1024, default_max_memory(), "the matrix"); });
    REQUIRE(big == "the matrix: about 3 GiB estimated, over the limit of 512 MiB (--max-memory)");
    CHECK(!detail::refusal_now_admitted(big));
    set_default_max_memory(4.0 * 1024 * 1024 * 1024, "--max-memory");
    CHECK(detail::refusal_now_admitted(big));
    set_default_max_memory(mem, name);
    CHECK(detail::refusal_now_admitted("x: about 2 min estimated, over the limit of 1 min (--max-time)") == (120 <= default_max_seconds()));
    // a limit of its own, or no refusal at all: never
    CHECK(!detail::refusal_now_admitted("x: about 1 s estimated, over the limit of 0.5 s (Options::budget)"));
    CHECK(!detail::refusal_now_admitted("dimension 11 is over max_unknowns 8"));
    CHECK(!detail::refusal_now_admitted("it has no parameters"));
    CHECK(!detail::refusal_now_admitted(""));
}

TEST_CASE("steady_seconds: a duration on the steady clock, clamped where the clock's nanoseconds would overflow") {
    using std::chrono::duration_cast;
    using std::chrono::seconds;
    CHECK(duration_cast<seconds>(detail::steady_seconds(90)).count() == 90);
    CHECK(detail::steady_seconds(0).count() == 0);
    CHECK(detail::steady_seconds(-5).count() == 0);
    CHECK(detail::steady_seconds(std::nan("")).count() == 0);
    // 1e19 s, 1e308 s and infinity: about 32 years, in the future from now
    for (const double s : {1e19, 1e308, HUGE_VAL}) {
        CHECK(duration_cast<seconds>(detail::steady_seconds(s)).count() == 1000000000);
        CHECK(std::chrono::steady_clock::now() + detail::steady_seconds(s) > std::chrono::steady_clock::now());
    }
}

TEST_CASE("a real option in a refusal is written as given (shortest round trip), not with six fixed decimals") {
    CHECK(number_text(-1) == "-1");
    CHECK(number_text(0.5) == "0.5");
    CHECK(number_text(1e-9) == "1e-09");
    CHECK(number_text(0.1) == "0.1");
    CHECK(number_text(std::nan("")) == "nan");
    CHECK(number_text(-HUGE_VAL) == "-inf");
    NetworkSpec s; s.tokens = 2; s.dim = 1; s.depth = 1;
    DimensionOptions d;
    d.max_seconds = -1;
    CHECK_THROWS_WITH_AS(function_dimension(s, d), "max seconds: -1 is not a finite number >= 0", invalid_input);
    GenericOptions g;
    g.max_expand_bytes = 0;
    CHECK_THROWS_WITH_AS(generic_rank(ValidSpec(s), balanced_partition(2), g), doctest::Contains("max expand bytes 0 must be positive"), invalid_input);
}
