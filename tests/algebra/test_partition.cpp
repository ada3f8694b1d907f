// Partitions of the token positions (partition.hpp): the text form, the one check that
// makes a ValidPartition, and the O(1) token-count check at the public entries that take
// one together with a network, a spec or a token count.
#include "seprank/embedding.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/flatten.hpp"
#include "seprank/generic.hpp"
#include "seprank/grid.hpp"
#include "seprank/partition.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/separation.hpp"
#include "seprank/spectrum.hpp"
#include "support.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <functional>
#include <string>

using namespace seprank;

namespace {

using seprank_test::message_of;

}  // namespace

TEST_CASE("partitions: parsing, validation, balanced lists") {
    CHECK(to_string(parse_partition("1,2|3,4", 4)) == "1,2|3,4");
    CHECK(to_string(parse_partition("3,1|4,2", 4)) == "1,3|2,4");
    CHECK(to_string(parse_partition("1..3|4..6", 6)) == "1,2,3|4,5,6");
    CHECK(to_string(balanced_partition(5)) == "1,2,3|4,5");
    // blanks around numbers, as a reader writes them
    CHECK(to_string(parse_partition(" 1, 2 | 3,4 ", 4)) == "1,2|3,4");
    CHECK(to_string(parse_partition("1 .. 2|\t3 ..4", 4)) == "1,2|3,4");
    CHECK(to_string(parse_partition("1,2\n|3,4\r\n", 4)) == "1,2|3,4");  // a line break, as from a file
    CHECK(parse_list(" 1 .. 3 , 6", "--dim") == std::vector<long>{1, 2, 3, 6});
    // An empty item is refused by name, never dropped (issue 58: --widths 2,,1 built 2,1).
    CHECK(seprank_test::message_of([] { (void)parse_list("2,,1", "--widths"); }) == "--widths '2,,1': an empty item between two commas");
    CHECK(seprank_test::message_of([] { (void)parse_list(",2,1", "--widths"); }) == "--widths ',2,1': an empty item before the first comma");
    CHECK(seprank_test::message_of([] { (void)parse_list("2,1,", "--widths"); }) == "--widths '2,1,': an empty item after the last comma");
    CHECK(seprank_test::message_of([] { (void)parse_list("2, ,1", "--widths"); }) == "--widths '2, ,1': an empty item between two commas");
    CHECK(seprank_test::message_of([] { (void)parse_list(" ", "--widths"); }) == "--widths ' ': an empty list");
    CHECK(seprank_test::message_of([] { (void)parse_list(",", "--dim"); }) == "--dim ',': an empty item before the first comma");
    // split_at keeps every piece, empty ones too (the layer SPEC and guess's --vars read them)
    CHECK(split_at("", ',') == std::vector<std::string>{""});
    CHECK(split_at("a", ',') == std::vector<std::string>{"a"});
    CHECK(split_at("a,,b", ',') == std::vector<std::string>{"a", "", "b"});
    CHECK(split_at(",a,", ',') == std::vector<std::string>{"", "a", ""});
    CHECK(split_at("mlp:power=2:", ':') == std::vector<std::string>{"mlp", "power=2", ""});
    CHECK(split_at(" a , b", ',') == std::vector<std::string>{" a ", " b"});
    for (const char* bad : {"1,2", "|1,2", "1,2|", "1,2|2,3", "1|2|3", "1,x|2", "1|2,9", "1,2|4", "3..1|2", "1 2|3,4", " |1,2,3,4", "1, |2,3,4"}) {
        INFO("partition " << std::string(bad));
        CHECK_THROWS_AS(parse_partition(bad, 4), invalid_input);
    }
    const auto all = balanced_partitions_with(4, 1);
    REQUIRE(all.size() == 3);  // {1,2},{1,3},{1,4}
    for (const auto& p : all) {
        CHECK(p->A.front() == 1);
        CHECK(p.tokens() == 4);
    }
    CHECK(balanced_partitions_with(6, 2).size() == 10);  // C(5,2)
}

TEST_CASE("a ValidPartition is checked once, when made: each failure is one line naming the value") {
    // Each case breaks exactly one rule; the message is the one the CLI prints after "error: ".
    struct Bad {
        Partition p;
        long n;
        const char* message;
    };
    const Bad cases[] = {
        {{{}, {1, 2}}, 2, "partition '|1,2': both sides must be non-empty"},
        {{{1, 2}, {}}, 2, "partition '1,2|': both sides must be non-empty"},
        {{{1, 5}, {2, 3, 4}}, 4, "partition '1,5|2,3,4': token 5 outside 1..4"},
        {{{0}, {1, 2}}, 2, "partition '0|1,2': token 0 outside 1..2"},
        {{{1}, {2}}, 0, "partition '1|2': token 1 outside 1..0"},    // no tokens: every position is out of range
        {{{1}, {2}}, -3, "partition '1|2': token 1 outside 1..-3"},  // nor does a negative N size anything
        {{{1, 2}, {2, 3, 4}}, 4, "partition '1,2|2,3,4': token 2 appears twice"},
        {{{3, 3}, {1, 2}}, 3, "partition '3,3|1,2': token 3 appears twice"},
        {{{1}, {2, 3}}, 4, "partition '1|2,3': token 4 is on neither side"},
        {{{4}, {1}}, 4, "partition '4|1': token 2 is on neither side"},  // the first missing one
    };
    for (const Bad& c : cases) {
        INFO("partition " << to_string(c.p) << " of " << c.n << " tokens");
        CHECK(message_of([&] { (void)ValidPartition(c.p, c.n); }) == c.message);
        // A bare Partition given to an entry is checked by the same constructor, at the call.
        CHECK(message_of([&] { (void)token_sides(c.p, c.n); }) == c.message);
    }
    // parse_partition's failures are the constructor's, after parsing.
    CHECK(message_of([] { (void)parse_partition("1,2|2,3", 3); }) == "partition '1,2|2,3': token 2 appears twice");
    CHECK(message_of([] { (void)parse_partition("1|3", 3); }) == "partition '1|3': token 2 is on neither side");
    CHECK(message_of([] { (void)balanced_partition(1); }) == "a partition needs at least 2 tokens, have 1");

    // A valid one: sides sorted, its N kept, read-only access to the sides.
    const ValidPartition v(Partition{{3, 1}, {4, 2}}, 4);
    CHECK(v.tokens() == 4);
    CHECK(v->A == std::vector<long>{1, 3});
    CHECK(v.get().B == std::vector<long>{2, 4});
    const Partition& as_bare = v;  // existing readers of `const Partition&` keep working
    CHECK(to_string(as_bare) == "1,3|2,4");
    CHECK_NOTHROW(v.check_tokens(4));
}

TEST_CASE("a ValidPartition of another token count is refused at every entry, in one line") {
    const ValidPartition two = balanced_partition(2);  // 1|2
    const std::string expected = "partition '1|2' covers tokens 1..2, expected 1..3";
    const NetworkSpec spec = seprank_test::attention_spec(3, 1, 1);
    const Network net = random_network(spec, 5, 3);
    auto ctx = QContext::make(variables_in("x1_1*x2_1 + x3_1"));
    const QPoly f = parse_poly("x1_1*x2_1 + x3_1", ctx);
    const std::vector<std::pair<const char*, std::function<void()>>> entries = {
        {"check_tokens", [&] { two.check_tokens(3); }},
        {"token_sides", [&] { (void)token_sides(two, 3); }},
        {"flatten", [&] { (void)flatten(f, two, 3); }},
        {"separation_rank(net)", [&] { (void)separation_rank(net, two); }},
        {"separation_rank(f)", [&] { (void)separation_rank(f, two, 3); }},
        {"evaluation_rank", [&] { (void)evaluation_rank(net, two); }},
        {"evaluation_rank_plain", [&] { (void)evaluation_rank_plain(net, two); }},
        {"evaluation_rank_graded", [&] { (void)evaluation_rank_graded(net, two); }},
        {"degree_block_caps", [&] { (void)degree_block_caps(spec, two); }},
        {"generic_rank", [&] { (void)generic_rank(spec, two); }},
        {"embedding_cap", [&] { (void)embedding_cap(spec, two); }},
        {"theorem73_flag", [&] { (void)theorem73_flag(1, spec, two); }},
        {"grid_matricization", [&] { (void)grid_matricization(net, two, random_templates(2, input_vars_per_token(spec), 1)); }},
        {"spectrum(net)", [&] { (void)spectrum(net, two); }},
        {"spectrum(f)", [&] { (void)spectrum(f, two, 3); }},
    };
    for (const auto& [name, call] : entries) {
        INFO(name);
        const std::string m = message_of(call);
        CHECK(m == expected);
        CHECK(m.find('\n') == std::string::npos);
    }
    // The same partition for the right N is accepted, and a bare Partition gives the same
    // answer as the ValidPartition made from it.
    const ValidPartition three = balanced_partition(3);
    const Partition bare{{1, 2}, {3}};
    CHECK(separation_rank(net, three).value == separation_rank(net, bare).value);
    CHECK(separation_rank(net, bare).partition == "1,2|3");
    CHECK(embedding_cap(spec, three) == embedding_cap(spec, bare));
    CHECK(token_sides(three, 3) == std::vector<int>{0, 0, 1});
}

TEST_CASE("parse_partition_listed: N is the number of positions the text lists") {
    CHECK(parse_partition_listed("1|2").tokens() == 2);
    CHECK(to_string(parse_partition_listed(" 3 , 1 | 2 ")) == "1,3|2");
    CHECK(parse_partition_listed("1..3|4..6").tokens() == 6);
    const auto msg = [](const std::string& text) { return seprank_test::message_of([&] { (void)parse_partition_listed(text); }); };
    CHECK(msg("1,2|4") == "partition '1,2|4': token 4 outside 1..3 (N = 3, the positions it lists, which must be 1..N)");
    CHECK(msg("1|1").find("partition '1|1': token 1 appears twice") == 0);
    CHECK(msg("1,2").find("partition '1,2': expected exactly one '|'") == 0);
    CHECK(msg("1|2|3").find("expected exactly one '|'") != std::string::npos);
    CHECK(msg("1,2|").find("partition '1,2|'") == 0);
    CHECK(msg("|").find("partition '|'") == 0);
    CHECK(msg("1|x").find("partition '1|x'") == 0);
}

TEST_CASE("a partition's memory is checked before its tokens are made: a text of many ranges, a large N") {
    // 64 bytes a token (sides, marks, sorted copies, text); 58 were measured at 50 million
    const seprank_test::MaxMemory tight(1 << 20);
    std::string many = "1|";
    for (long i = 0; i < 100; ++i) many += (i ? "," : "") + std::to_string(2 + 10001 * i) + ".." + std::to_string(2 + 10001 * i + 10000);
    std::string m;
    try {
        (void)parse_partition_listed(many);
    } catch (const resource_limit& e) {
        m = e.what();
    }
    CHECK(m.find("items so far): about") != std::string::npos);
    CHECK(m.size() < 300);  // the text is cut, not repeated whole
    CHECK_THROWS_AS(balanced_partition(1L << 16), resource_limit);  // 4 MiB over 1 MiB
    CHECK(balanced_partition(1L << 13).tokens() == 1L << 13);     // 0.5 MiB passes
    CHECK_THROWS_AS(first_vs_rest_partition(1L << 16), resource_limit);  // checked as balanced_partition
}

TEST_CASE("first_vs_rest_partition: 1 | 2..N at any N, as balanced_partition checks it") {
    CHECK(to_string(first_vs_rest_partition(2).get()) == "1|2");
    CHECK(to_string(first_vs_rest_partition(5).get()) == "1|2,3,4,5");
    const ValidPartition far = first_vs_rest_partition(12000);  // past parse_list's 10,001-item range
    CHECK(far.tokens() == 12000);
    CHECK(far->A == std::vector<long>{1});
    CHECK(far->B.size() == 11999);
    CHECK(to_string(balanced_partition(5).get()) == "1,2,3|4,5");
    for (long n : {1L, 0L, -3L}) {
        CHECK(seprank_test::message_of([&] { (void)first_vs_rest_partition(n); }) == seprank_test::message_of([&] { (void)balanced_partition(n); }));
        CHECK(seprank_test::message_of([&] { (void)first_vs_rest_partition(n); }).find("a partition needs at least 2 tokens") == 0);
    }
}

TEST_CASE("valid partitions round-trip through to_string and parse_partition") {
    auto rng = seprank_test::rng_for("partition-round-trip");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const long n = 2 + static_cast<long>(rng.below(30));
        Partition p;
        while (p.A.empty() || p.B.empty()) {
            p = Partition{};
            for (long j = 1; j <= n; ++j) (rng.below(2) ? p.A : p.B).push_back(j);
        }
        // Shuffle the sides: the constructor sorts them, the text shows them sorted.
        for (auto* side : {&p.A, &p.B})
            for (std::size_t k = side->size(); k > 1; --k) std::swap((*side)[k - 1], (*side)[rng.below(k)]);
        const ValidPartition v(p, n);
        const std::string text = to_string(v);
        INFO("iteration " << it << ": " << text << " of " << n << " tokens");
        const ValidPartition back = parse_partition(text, n);
        CHECK(back->A == v->A);
        CHECK(back->B == v->B);
        CHECK(back.tokens() == n);
        CHECK(to_string(back) == text);
        CHECK(std::is_sorted(v->A.begin(), v->A.end()));
        CHECK(std::is_sorted(v->B.begin(), v->B.end()));
        CHECK(v->A.size() + v->B.size() == static_cast<std::size_t>(n));
    }
    for (const auto& p : balanced_partitions_with(7, 3)) CHECK(to_string(parse_partition(to_string(p), 7)) == to_string(p));
}
