// Records, the column registry and the answer type: every output format agrees.
#include "seprank/answer.hpp"
#include "seprank/columns.hpp"
#include "seprank/device.hpp"
#include "seprank/error.hpp"
#include "seprank/generic.hpp"
#include "seprank/rank.hpp"
#include "seprank/record.hpp"
#include "seprank/separation.hpp"
#include "support.hpp"

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <doctest/doctest.h>
#include <set>

using namespace seprank;

TEST_CASE("values print as text and as JSON") {
    CHECK(Value().str() == "");
    CHECK(Value().json() == "null");
    CHECK(Value(true).str() == "true");
    CHECK(Value(-12L).json() == "-12");
    CHECK(Value(static_cast<unsigned long>(4611686018427387847ULL)).str() == "4611686018427387847");
    CHECK(Value(1.0).str() == "1.0");
    CHECK(Value(2.465).str() == "2.465");
    CHECK(Value::real(1.23456e-14, 3).str() == "1.23e-14");
    CHECK(Value::real(1.0, 3).json() == "1");
    CHECK(Value(std::nan("")).json() == "null");
    CHECK(Value("a\"b").json() == "\"a\\\"b\"");
    CHECK(Value(std::vector<long>{1, 2, 3}).str() == "[1,2,3]");
    CHECK_THROWS_AS(Value(3L).as_text(), invalid_input);
    CHECK_THROWS_AS(Value::real(1.0, 0), invalid_input);
}

TEST_CASE("as_integer: an unsigned value above LONG_MAX is refused, not wrapped to a negative long") {
    const unsigned long top = static_cast<unsigned long>(LONG_MAX);
    // the largest unsigned values that fit are returned exactly
    CHECK(Value(top).as_integer() == LONG_MAX);
    CHECK(Value(static_cast<unsigned long long>(top)).as_integer() == LONG_MAX);
    CHECK(Value(0UL).as_integer() == 0);
    // one above, and the largest 64-bit value: invalid_input naming the value
    CHECK_THROWS_WITH_AS(Value(top + 1).as_integer(),
                         "value 9223372036854775808 is above 9223372036854775807, expected an integer that fits a long",
                         invalid_input);
    CHECK_THROWS_WITH_AS(Value(static_cast<unsigned long long>(ULLONG_MAX)).as_integer(),
                         doctest::Contains("value 18446744073709551615 is above"), invalid_input);
    // its other forms stay exact
    CHECK(Value(top + 1).str() == "9223372036854775808");
    CHECK(Value(top + 1).as_real() == 9223372036854775808.0);
    // a signed long is unaffected, LONG_MIN included
    CHECK(Value(LONG_MIN).as_integer() == LONG_MIN);
    CHECK(Value(static_cast<long long>(LONG_MAX)).as_integer() == LONG_MAX);
    // read back from JSON: a number above LONG_MAX is unsigned there
    const Record r = record_from_json("{\"p\": 9223372036854775809}");
    CHECK_THROWS_AS(r.at("p").as_integer(), invalid_input);
    CHECK(r.at("p").str() == "9223372036854775809");
}

TEST_CASE("records round-trip through JSON in order; CSV and markdown escape their separators") {
    auto rng = seprank_test::rng_for("record-roundtrip");
    INFO("seed " << seprank_test::seed());
    const std::string alphabet = "ab,|\"\n x1";
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        Record r;
        const long n = static_cast<long>(rng.below(8));
        std::vector<std::string> texts;
        for (long k = 0; k < n; ++k) {
            std::string t;
            for (std::uint64_t c = rng.below(6); c > 0; --c) t += alphabet[rng.below(alphabet.size())];
            texts.push_back(t);
            switch (rng.below(5)) {
                case 0: r.set("c" + std::to_string(k), Value(t)); break;
                case 1: r.set("c" + std::to_string(k), Value(rng.range(-1000000, 1000000))); break;
                case 2: r.set("c" + std::to_string(k), Value(rng.below(2) == 0)); break;
                case 3: r.set("c" + std::to_string(k), Value()); break;
                default: r.set("c" + std::to_string(k), Value(std::vector<long>{rng.range(-5, 5), rng.range(-5, 5)}));
            }
        }
        const Record back = record_from_json(to_json(r));
        REQUIRE(back == r);
        REQUIRE(back.names() == r.names());
        REQUIRE(parse_csv_line(csv_line(texts)) == (texts.empty() ? std::vector<std::string>{""} : texts));
        const std::string md = markdown_line(texts);
        std::size_t bars = 0;
        for (std::size_t i = 0; i < md.size(); ++i) bars += md[i] == '|' && (i == 0 || md[i - 1] != '\\');
        REQUIRE(bars == texts.size() + 1);
        REQUIRE(md.find('\n') == std::string::npos);
    }
    CHECK(parse_csv_line("a,\"b,c\"", "f.csv line 3") == std::vector<std::string>{"a", "b,c"});
    CHECK(seprank_test::throws_with<invalid_input>([] { parse_csv_line("a,\"b", "f.csv line 3"); }, "f.csv line 3: CSV line with an unterminated quote"));
    CHECK_THROWS_AS(record_from_json("[1]"), invalid_input);
    // an indent past 64 spaces is refused (the JSON library wrote past its run of spaces)
    Record ind;
    ind.set("a", 1L);
    CHECK(to_json(ind, 64).find("\n") != std::string::npos);
    CHECK_THROWS_AS(to_json(ind, 65), invalid_input);
    CHECK_THROWS_AS(to_json(std::vector<Record>{ind}, 1000000), invalid_input);
    // a list entry past LONG_MAX is refused, not wrapped to a negative number
    CHECK(seprank_test::message_of([] { record_from_json("{\"a\": [1, 18446744073709551615]}"); }).find("18446744073709551615 is out of range") !=
          std::string::npos);
    CHECK(record_from_json("{\"a\": [9223372036854775807]}").at("a").as_integer_list().front() == 9223372036854775807L);
    CHECK_THROWS_AS(record_from_json("{\"a\": {\"b\": \"x\"}}"), invalid_input);
    // an object of numbers is a list of named reals (an answer's phases)
    const Record ph = record_from_json("{\"phases\": {\"rank\": 0.5, \"certificate\": 2}}");
    CHECK(ph.at("phases") == Value(Value::NamedReals{{"rank", 0.5}, {"certificate", 2.0}}));
    CHECK(ph.at("phases").str() == "rank=0.5 certificate=2.0");
    CHECK(ph.at("phases").json() == "{\"rank\":0.5,\"certificate\":2.0}");
    CHECK_THROWS_AS(record_from_json("{nope"), invalid_input);
    CHECK_THROWS_AS(Record().at("x"), invalid_input);
}

TEST_CASE("the registry: unique names, every answer column present, unknown names refused") {
    std::set<std::string> names;
    for (const auto& c : columns()) {
        CHECK(names.insert(c.name).second);
        CHECK_FALSE(c.help.empty());
    }
    for (const auto& n : answer_columns()) CHECK(names.count(n) == 1);
    CHECK_THROWS_AS(column("nope"), invalid_input);
    RowSource empty;
    const Record r = make_record(empty, answer_columns());
    for (const auto& [k, v] : r) CHECK((v.is_null() || k == "reason" || k == "partition"));
}

TEST_CASE("labels say what each kind of answer is") {
    RankAnswer a;
    a.kind = RankKind::exact;
    CHECK(a.label() == "certified");
    CHECK(a.certified());
    a.kind = RankKind::generic;
    CHECK(a.label() == "generic lower bound");
    CHECK_FALSE(a.certified());
    a.kind = RankKind::modular_lower_bound;
    a.failure_bound = 1;
    CHECK(a.label() == "lower bound");
    a.failure_bound = 2.5e-12;
    CHECK(a.label() == "probabilistic (p <= 2.5e-12)");
    a.failure_bound = 1.7321244060435726e-18;  // printed rounded up, never below the bound
    CHECK(a.label() == "probabilistic (p <= 1.74e-18)");
    CHECK(to_record(a).at("failure_bound").str() == "1.74e-18");
    CHECK(to_string(RankKind::modular_lower_bound) == "modular-lower-bound");
}

TEST_CASE("bound_up rounds a bound up to its printed digits; trials_bound never underflows to 0") {
    auto rng = seprank_test::rng_for("bound-up");
    for (int k = 0; k < 2000; ++k) {
        const double x = std::ldexp(static_cast<double>(rng.below(1u << 30) + 1), -static_cast<int>(rng.below(1100)));
        for (int d : {1, 3, 6}) {
            const double y = bound_up(x, d);
            INFO("x = " << x << ", digits " << d);
            CHECK(y >= x);
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.*g", d, y);
            CHECK(std::strtod(buf, nullptr) >= x);  // the printed text too
            CHECK(y <= x * (1 + 2 * std::pow(10.0, 1 - d)) + 1e-320);  // and not much above it
        }
    }
    CHECK(bound_up(0.0, 3) == 0.0);
    CHECK(bound_up(1.0, 3) == 1.0);
    CHECK(bound_up(2.5e-12, 3) == 2.5e-12);
    CHECK(bound_up(9.999e-5, 3) == doctest::Approx(1e-4).scale(0));
    CHECK(trials_bound(0.5, 3) == 0.125);
    CHECK(trials_bound(0.0, 3) == 0.0);
    CHECK(trials_bound(2.0, 3) == 1.0);
    CHECK(trials_bound(1e-20, 30) > 0.0);  // 1e-600 underflows: the smallest normal double instead
    CHECK(trials_bound(1e-20, 30) == std::numeric_limits<double>::min());
    CHECK(trials_bound(1e-160, 2) == std::numeric_limits<double>::min());  // 1e-320 would be subnormal
    // independent draws with their own bounds: the product, each factor at most 1
    CHECK(independent_bound({}) == 1.0);
    CHECK(independent_bound({0.5, 0.25}) == 0.125);
    CHECK(independent_bound({2.0, 0.25}) == 0.25);
    CHECK(independent_bound({0.5, 0.0}) == 0.0);
    CHECK(independent_bound(std::vector<double>(30, 1e-20)) == std::numeric_limits<double>::min());
    CHECK(independent_bound({1e-300, 1e-300, 0.5}) == std::numeric_limits<double>::min());  // never subnormal
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", bound_up(trials_bound(1e-20, 30), 3));
    CHECK(std::strtod(buf, nullptr) >= std::numeric_limits<double>::min());
}

TEST_CASE("to_string(RankKind) and label() refuse a value outside the enum (internal_error, as to_string(Device))") {
    CHECK(to_string(RankKind::exact) == "exact");
    CHECK(to_string(RankKind::generic) == "generic");
    CHECK(to_string(RankKind::numerical) == "numerical");
    const auto bad = static_cast<RankKind>(17);
    CHECK_THROWS_WITH_AS(to_string(bad), "to_string(RankKind): unknown value 17", internal_error);
    RankAnswer a;
    a.kind = bad;
    CHECK_THROWS_AS(a.label(), internal_error);
    CHECK_THROWS_AS(to_string(static_cast<Device>(17)), internal_error);  // the rule followed
}

TEST_CASE("answers of every producer carry their kind, shape and timing, and to_json has every column") {
    NetworkSpec s;
    s.tokens = 2;
    s.dim = 2;
    s.depth = 2;
    const Network net = random_network(s, seprank_test::seed());
    const Partition part = balanced_partition(2);
    SeparationOptions o;
    const RankAnswer flat = separation_rank(net, part, o);
    CHECK(flat.kind == RankKind::exact);
    CHECK(flat.failure_bound == 0);
    CHECK(flat.quantity == "sep");
    CHECK(flat.rows > 0);
    CHECK(flat.primes_used >= 1);
    CHECK(flat.peak_mib > 0);
    o.method = Method::evaluation;
    const RankAnswer ev = separation_rank(net, part, o);
    // Graded: exact when every degree block reached its cap, else a modular lower bound.
    const bool at_caps = ev.note.find("reached its cap") != std::string::npos;
    CHECK(ev.kind == (at_caps ? RankKind::exact : RankKind::modular_lower_bound));
    CHECK(ev.value == flat.value);
    CHECK(ev.failure_bound < 1e-9);
    o.method = Method::grid;
    const RankAnswer gr = separation_rank(net, part, o);
    CHECK(gr.quantity == "grid");
    CHECK(gr.value <= flat.value);
    const RankAnswer gen = generic_rank(s, part);
    CHECK(gen.kind == RankKind::exact);  // N=2 dx=2 L=2: every degree block at its cap
    CHECK(gen.quantity == "generic sep");
    CHECK(gen.trials == 1);  // exact after the first of 2: the second is not run
    CHECK(gen.trial_ranks.size() == 1);
    for (const RankAnswer* a : {&flat, &ev, &gr, &gen}) {
        const Record r = record_from_json(to_json(*a));
        CHECK(r.names() == answer_columns());
        CHECK(r.at("rank").as_integer() == a->value);
        CHECK(r.at("kind").as_text() == to_string(a->kind));
        CHECK(r.at("label").as_text() == a->label());
        CHECK(r.at("certified").as_bool() == a->certified());
    }
}

TEST_CASE("label_with_bound: a generic lower bound shows its failure bound, rounded up; other labels as they are") {
    CHECK(label_with_bound("generic lower bound", 1.7321e-18) == "generic lower bound, failure_bound 1.74e-18");
    CHECK(label_with_bound("generic lower bound", 2.0) == "generic lower bound, failure_bound 2");  // useless, but shown
    CHECK(label_with_bound("generic lower bound", 0) == "generic lower bound");
    CHECK(label_with_bound("certified", 0) == "certified");
    CHECK(label_with_bound("lower bound", 1) == "lower bound");
    CHECK(label_with_bound("probabilistic (p <= 0.001)", 0.001) == "probabilistic (p <= 0.001)");
    RankAnswer a;
    a.kind = RankKind::generic;
    a.failure_bound = 3e-20;
    CHECK(label_with_bound(a.label(), a.failure_bound) == "generic lower bound, failure_bound 3e-20");
}
