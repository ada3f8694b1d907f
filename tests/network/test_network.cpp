#include "seprank/columns.hpp"
#include "seprank/degree.hpp"
#include "seprank/embedding.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/generic.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/separation.hpp"
#include "seprank/table.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <type_traits>

using namespace seprank;

namespace {

// Small networks of every family, depth 0..2: the shapes the weights-JSON tests draw.
seprank_test::SpecLimits json_limits() {
    seprank_test::SpecLimits lim;
    lim.min_tokens = 1;
    lim.max_tokens = 4;
    lim.min_dim = 1;
    lim.max_dim = 3;
    lim.min_depth = 0;
    lim.max_depth = 2;
    lim.max_block_degree = lim.max_block_degree_deep = 4;
    lim.max_width = 3;
    return lim;
}

}  // namespace

TEST_CASE("validation names the bad value") {
    struct Case {
        NetworkSpec s;
        const char* mention;
    };
    std::vector<Case> cases;
    auto add = [&](auto edit, const char* mention) {
        NetworkSpec s = seprank_test::attention_spec(4, 2, 2, 1);
        edit(s);
        cases.push_back({s, mention});
    };
    add([](NetworkSpec& s) { s.heads = 3; }, "heads H = 3 does not divide dim dx = 2");
    add([](NetworkSpec& s) { s.tokens = 0; }, "tokens N = 0");
    add([](NetworkSpec& s) { s.dim = -1; }, "dim dx = -1");
    add([](NetworkSpec& s) { s.depth = -2; }, "depth L = -2");
    add([](NetworkSpec& s) { s.position = 5; }, "position i = 5");
    add([](NetworkSpec& s) { s.coordinate = 3; }, "coordinate p = 3");
    add([](NetworkSpec& s) { s.family = Family::hadamard; s.block_degree = 0; }, "block degree d = 0");
    add([](NetworkSpec& s) { s.embed_rank = -1; }, "embedding rank r = -1");
    add([](NetworkSpec& s) { s.embed_rank = 65; }, "embedding rank r = 65");
    add([](NetworkSpec& s) { s.attention_rank = 3; }, "attention rank k = 3");
    add([](NetworkSpec& s) { s.family = Family::fc; s.widths = {2}; }, "widths list has 1 entries");
    add([](NetworkSpec& s) { s.family = Family::fc; s.widths = {3, 3}; s.residual = true; }, "residual fc needs equal widths");
    add([](NetworkSpec& s) { s.family = Family::fc; s.position = 2; }, "position i = 2: fc has one output vector (choose its entry with coordinate p)");
    // Heads belong to attention: any other value elsewhere is refused (it was ignored).
    add([](NetworkSpec& s) { s.family = Family::hadamard; s.heads = 2; }, "heads H = 2 given to hadamard: heads apply to attention only");
    add([](NetworkSpec& s) { s.family = Family::hadamard; s.heads = 0; }, "heads H = 0 given to hadamard");
    add([](NetworkSpec& s) { s.family = Family::fc; s.head_dim = 1; }, "head dim da = 1 given to fc");
    add([](NetworkSpec& s) { s.family = Family::power; s.widths = {2}; s.heads = 3; }, "heads H = 3 given to power");
    for (const auto& c : cases) {
        INFO("expect: " << std::string(c.mention));
        try {
            validate(c.s);
            FAIL("accepted");
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()).find(c.mention) != std::string::npos);
        }
    }
    NetworkSpec ok = seprank_test::attention_spec(4, 2, 1, 3);
    ok.head_dim = 2;  // explicit da lifts the divisibility requirement
    CHECK_NOTHROW(validate(ok));
    // The two readers of a bare spec that would divide by zero or read past a list check
    // what they read (they had crashed).
    NetworkSpec no_heads = seprank_test::attention_spec(4, 2, 1, 3);
    no_heads.heads = 0;
    CHECK_THROWS_WITH_AS((void)head_dim(no_heads), doctest::Contains("heads H = 0"), invalid_input);
    CHECK(head_dim(ok) == 2);
    NetworkSpec short_stack;
    short_stack.family = Family::stack;
    short_stack.tokens = 2;
    short_stack.dim = 2;
    short_stack.depth = 3;
    short_stack.layers = parse_layers("attention");
    CHECK_THROWS_WITH_AS((void)stack_layers(short_stack), doctest::Contains("layers has 1 entries: no layer 2"), invalid_input);
    short_stack.layers = parse_layers("attention,attention,attention");
    CHECK(stack_layers(short_stack).size() == 3);
}

// A bare NetworkSpec still converts (existing callers compile), a ValidSpec reads as one,
// and none exists unvalidated.
static_assert(std::is_convertible_v<NetworkSpec, ValidSpec>);
static_assert(std::is_convertible_v<const ValidSpec&, const NetworkSpec&>);
static_assert(!std::is_default_constructible_v<ValidSpec>);

TEST_CASE("ValidSpec: a spec is validated where it enters, with validate's one message") {
    const Partition part = balanced_partition(4);
    std::vector<NetworkSpec> bad(3, seprank_test::attention_spec(4, 2, 1));
    bad[0].tokens = 0;
    bad[1].heads = 3;
    bad[2].embed_rank = 65;
    for (const NetworkSpec& s : bad) {
        std::string message;
        try {
            validate(s);
        } catch (const invalid_input& e) {
            message = e.what();
        }
        REQUIRE(!message.empty());
        INFO("validate: " << message);
        // Each function taking a ValidSpec, given the bare spec: refused by the conversion,
        // before its own work, with exactly validate's message (not wrapped, not repeated).
        const std::vector<std::pair<const char*, std::function<void()>>> calls = {
            {"ValidSpec", [&] { (void)ValidSpec(s); }},
            {"random_network", [&] { (void)random_network(s, 1); }},
            {"generic_rank", [&] { (void)generic_rank(s, part); }},
            {"estimate_expansion", [&] { (void)estimate_expansion(s); }},
            {"network_variables", [&] { (void)network_variables(s); }},
            {"choose_expand_variant", [&] { (void)choose_expand_variant(s); }},
            {"embedding_cap", [&] { (void)embedding_cap(s, part); }},
            {"theorem73_flag", [&] { (void)theorem73_flag(1, s, part); }},
            {"check_measurable", [&] { check_measurable(s); }},
            {"table_row", [&] { (void)table_row(s, SweepOptions{}); }},
        };
        for (const auto& [name, call] : calls) {
            INFO(name);
            try {
                call();
                FAIL("accepted");
            } catch (const invalid_input& e) {
                CHECK(std::string(e.what()) == message);
            }
        }
        // A network holding the spec (edited by hand) is refused where it enters.
        Network net = random_network(seprank_test::attention_spec(4, 2, 1), 1);
        net.spec = s;
        CHECK_THROWS_WITH_AS(check_shapes(net), message.c_str(), invalid_input);
        CHECK_THROWS_WITH_AS(expand(net), message.c_str(), invalid_input);
    }

    // A ValidSpec is the spec it was made from, and the functions give the same answers
    // for it as for the bare spec.
    NetworkSpec s = seprank_test::attention_spec(4, 2, 2);
    s.embed_rank = 1;
    const ValidSpec v = s;
    CHECK(v.get().tokens == 4);
    CHECK(v->depth == 2);
    CHECK(describe(v) == describe(s));
    CHECK(network_to_json(random_network(v, 7)) == network_to_json(random_network(s, 7)));
    CHECK(estimate_expansion(v).max_terms == estimate_expansion(s).max_terms);
    CHECK(embedding_cap(v, part) == embedding_cap(s, part));
    // check_shapes returns the network's spec, validated; shapes are checked after it.
    Network net = random_network(v, 7);
    CHECK(describe(check_shapes(net)) == describe(s));
    Network entries = net;  // the right shape with too few entries: said so ("shape 2x2, expected 2x2" before)
    entries.weights.layers[0].heads[0].Q.a.pop_back();
    CHECK_THROWS_WITH_AS(check_shapes(entries), doctest::Contains("3 entries for its shape 2x2 (4)"), invalid_input);
    net.weights.layers[0].heads[0].Q.rows = 1;
    CHECK_THROWS_WITH_AS(check_shapes(net), doctest::Contains("shape 1x2, expected 2x2"), invalid_input);
    // evaluate and evaluate_double check the network too: one edited by hand is refused,
    // never read out of bounds.
    const Point<Rational> xq(4, std::vector<Rational>(1, Rational(1)));  // embed_rank 1: one input a token
    const Point<double> xd(4, std::vector<double>(1, 1.0));
    CHECK_THROWS_WITH_AS(evaluate(net, xq), doctest::Contains("shape 1x2, expected 2x2"), invalid_input);
    CHECK_THROWS_WITH_AS(evaluate_double(net, xd), doctest::Contains("shape 1x2, expected 2x2"), invalid_input);
    Network cut = random_network(v, 7);
    CHECK(evaluate_double(cut, xd) == doctest::Approx(fmpq_get_d(evaluate(cut, xq).get())));
    cut.weights.layers.pop_back();  // a layer short of the spec's depth
    CHECK_THROWS_AS(evaluate(cut, xq), invalid_input);
    CHECK_THROWS_AS(evaluate_double(cut, xd), invalid_input);
}

TEST_CASE("parameter counts and weight degrees follow the formulas of docs/theory.md §1") {
    for (long L = 0; L <= 6; ++L) {
        NetworkSpec s = seprank_test::attention_spec(3, 4, L, 2);
        CHECK(parameter_count(s) == Integer(4 * 4 * 2 * 2 * L));
        // D_L = 2 (3^L - 1)
        long p3 = 1;
        for (long k = 0; k < L; ++k) p3 *= 3;
        CHECK(weight_degree(s) == Integer(2 * (p3 - 1)));
        CHECK(output_degree(s) == Integer(p3));
        NetworkSpec h = s;
        h.family = Family::hadamard;
        h.heads = 1;
        h.block_degree = 4;
        h.width = 3;
        CHECK(parameter_count(h) == Integer(5 * 3 * 4 * L));
        NetworkSpec f = h;
        f.family = Family::fc;
        f.width = 0;
        f.block_degree = 2;
        CHECK(parameter_count(f) == Integer(2 * 12 * 12 * L));
    }
}

TEST_CASE("weights JSON round-trips for every family and option") {
    auto rng = seprank_test::rng_for("weights-json");
    INFO("seed " << seprank_test::seed());
    const seprank_test::SpecLimits lim = json_limits();
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        Network net = random_network(s, rng.next());
        // a rational weight, to exercise "p/q"
        if (!net.weights.layers.empty()) {
            auto& l = net.weights.layers[0];
            auto& m = !l.heads.empty() ? l.heads[0].V : l.W[0];
            m.a[0] = Rational(Integer(-7), Integer(3));
        }
        const std::string j = network_to_json(net);
        INFO("iteration " << it << ": " << network_to_json(net, -1));
        const Network back = network_from_json(j);
        REQUIRE(network_to_json(back) == j);
        // same spec and weights, and the one-line form reads back to the same network
        REQUIRE(network_to_json(network_from_json(network_to_json(net, -1))) == j);
        REQUIRE(back.spec.family == s.family);
        REQUIRE(parameter_count(back.spec) == parameter_count(s));
        REQUIRE(output_degree(back.spec) == output_degree(s));
        REQUIRE(weight_degree(back.spec) == weight_degree(s));
        // the text is the nlohmann dump, so files written before this API read the same
        REQUIRE(nlohmann::json::parse(j).dump(1) == j);
    }
}

TEST_CASE("weights JSON: integer literals of any length are exact; strings, fractions and exponents untouched") {
    const std::string head = R"({"family":"hadamard","tokens":2,"dim":1,"block_degree":2,"width":1,"depth":1,"layers":[{"W":[[[)";
    const auto first_weight = [&](const std::string& literal) {
        return network_from_json(head + literal + R"(]],[[2]]],"O":[[1]]}]})").weights.layers[0].W[0].a[0].str();
    };
    for (const std::string& digits : {std::string("9223372036854775807"), std::string("9223372036854775808"), std::string("18446744073709551615"),
                                      std::string("18446744073709551616"), std::string(400, '9')}) {
        CAPTURE(digits.size());
        CHECK(first_weight(digits) == digits);
        CHECK(first_weight("-" + digits) == "-" + digits);
    }
    CHECK(first_weight("-9223372036854775808") == "-9223372036854775808");
    CHECK(first_weight("-9223372036854775809") == "-9223372036854775809");
    CHECK(first_weight("\"123456789012345678901234567890/11\"") == "123456789012345678901234567890/11");
    CHECK_THROWS_AS(first_weight("1.5"), invalid_input);                       // a float stays a float
    CHECK_THROWS_AS(first_weight("123456789012345678901234567890.5"), invalid_input);
    CHECK_THROWS_AS(first_weight("1e400"), invalid_input);                     // out of range, with the hint
    CHECK_THROWS_AS(first_weight("1e123456789012345678901234567890"), invalid_input);  // an exponent's digits are no integer
    CHECK_THROWS_AS(first_weight("0123456789012345678901234567890"), invalid_input);   // a leading zero is no JSON number
    // digits inside a string (a key, a family name) are left alone
    CHECK_THROWS_WITH_AS(network_from_json(R"({"family":"x12345678901234567890123","tokens":2})"),
                         doctest::Contains("x12345678901234567890123"), invalid_input);
}

static Network seprank_test_hadamard() {
    NetworkSpec s = seprank_test::attention_spec(2, 2, 1);
    s.family = Family::hadamard;
    s.block_degree = 2;
    return random_network(s, 3);
}

TEST_CASE("weights JSON: every key the reader knows is accepted, with or without its default") {
    // The optional keys at their defaults (which the writer may leave out) still read.
    Network net = random_network(seprank_test::attention_spec(2, 2, 2, 1), 7);
    nlohmann::json j = nlohmann::json::parse(network_to_json(net));
    j["residual"] = false;
    j["position"] = 1;
    j["coordinate"] = 1;
    CHECK(network_to_json(network_from_json(j.dump())) == network_to_json(net));
    j["head_dim"] = 2;  // da = dx/H given explicitly: the writer leaves it out, the reader knows it
    const Network back = network_from_json(j.dump());
    CHECK(parameter_count(back.spec) == parameter_count(net.spec));
    nlohmann::json h = nlohmann::json::parse(network_to_json(seprank_test_hadamard()));
    h["free"] = false;  // hadamard's optional flag at its default
    CHECK_NOTHROW((void)network_from_json(h.dump()));
}

TEST_CASE("weights JSON: the sizes left out are read from the matrices, a given one must agree") {
    auto rng = seprank_test::rng_for("weights-json-inferred");
    INFO("seed " << seprank_test::seed() << " (SEPRANK_SEED overrides)");
    const seprank_test::SpecLimits lim = json_limits();
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Network net = random_network(s, rng.next());
        const nlohmann::json full = nlohmann::json::parse(network_to_json(net));
        nlohmann::json cut = full;
        // Everything but family, tokens and the weights; without layers, only depth, and
        // what the embedding says.
        if (s.depth > 0)
            for (const char* key : {"dim", "heads", "head_dim", "block_degree", "width", "widths"}) cut.erase(key);
        for (const char* key : {"depth", "embed_rank"}) cut.erase(key);
        if (s.embed_rank > 0) cut.erase("dim");
        INFO("iteration " << it << ": " << full.dump());
        const Network back = network_from_json(cut.dump());
        CHECK(head_dim(back.spec) == head_dim(s));
        nlohmann::json got = nlohmann::json::parse(network_to_json(back)), want = full;
        got.erase("head_dim");  // written only when set; the resolved value is checked above
        want.erase("head_dim");
        REQUIRE(got == want);
    }
    // A size that is given must agree with the matrices; the message names both.
    const nlohmann::json two = nlohmann::json::parse(network_to_json(random_network(seprank_test::attention_spec(2, 2, 2, 1), 7)));
    auto refuses = [](nlohmann::json j, const char* key, long v, const std::string& needle) {
        j[key] = v;
        try {
            (void)network_from_json(j.dump());
            FAIL("accepted " << key << " = " << v);
        } catch (const invalid_input& e) {
            INFO(e.what());
            CHECK(std::string(e.what()).find(needle) != std::string::npos);
        }
    };
    nlohmann::json no_depth = two;
    no_depth.erase("depth");
    CHECK(network_from_json(no_depth.dump()).spec.depth == 2);  // the report of issue 29: two layers, no depth
    refuses(two, "depth", 1, "$.layers: has 2 layers, but $.depth is 1");
    refuses(two, "dim", 3, "$.layers[0].heads[0].Q[0]: has 2 entries, expected 3");
    // A size read from a malformed matrix: the error names the next matrix, and says which
    // size was read, from where, so that the file can give the meant one.
    nlohmann::json wide_q = two;
    wide_q.erase("dim");
    for (auto& row : wide_q["layers"][0]["heads"][0]["Q"]) row.push_back(1);
    try {
        (void)network_from_json(wide_q.dump());
        FAIL("accepted a Q of 3 columns beside a K of 2");
    } catch (const invalid_input& e) {
        const std::string m = e.what();
        INFO(m);
        CHECK(m.find("has 2 entries, expected 3") != std::string::npos);
        CHECK(m.find("the file not giving them: dim 3") != std::string::npos);
        CHECK(m.find('\n') == std::string::npos);
    }
    NetworkSpec h;
    h.family = Family::hadamard;
    h.tokens = h.dim = h.block_degree = 2;
    nlohmann::json had = nlohmann::json::parse(network_to_json(random_network(h, 3)));
    had.erase("block_degree");
    CHECK(network_from_json(had.dump()).spec.block_degree == 2);
    refuses(had, "block_degree", 3, "$.layers[0].W: expected a list of 3 matrices");
}

TEST_CASE("malformed weights files name the JSON path of the first bad value") {
    Network net = random_network(seprank_test::attention_spec(2, 2, 2, 1), 7);
    const nlohmann::json good = nlohmann::json::parse(network_to_json(net));
    struct Bad {
        std::function<void(nlohmann::json&)> edit;
        const char* mention;
    };
    const std::vector<Bad> cases = {
        {[](nlohmann::json& j) { j.erase("family"); }, "$: missing key \"family\""},
        {[](nlohmann::json& j) { j["family"] = "softmax"; }, "$.family"},
        {[](nlohmann::json& j) { j["tokens"] = "four"; }, "$.tokens: expected an integer"},
        {[](nlohmann::json& j) { j["dim"] = 0; }, "$.dim: value 0 below 1"},
        {[](nlohmann::json& j) { j["heads"] = 3; }, "$.layers[0].heads: expected a list of 3 heads"},
        {[](nlohmann::json& j) { j["heads"] = 3; j["head_dim"] = 0; }, "$.head_dim: value 0 below 1"},
        {[](nlohmann::json& j) { j["layers"].erase(1); }, "$.layers: has 1 layers, but $.depth is 2"},
        {[](nlohmann::json& j) { j["layers"][1]["heads"][0].erase("K"); }, "$.layers[1].heads[0]: missing key \"K\""},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["Q"][1] = {1}; }, "$.layers[0].heads[0].Q[1]: has 1 entries, expected 2"},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["V"][0][1] = 1.5; }, "$.layers[0].heads[0].V[0][1]: expected an integer or a \"p/q\" string, got 1.5"},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["O"][1][0] = "1/0"; }, "$.layers[0].heads[0].O[1][0]"},
        {[](nlohmann::json& j) { j["layers"][1]["heads"][0]["O"] = 3; }, "$.layers[1].heads[0].O: expected a matrix"},
        {[](nlohmann::json& j) { j["residual"] = "yes"; }, "$.residual: expected true or false"},
        {[](nlohmann::json& j) { j["position"] = 3; }, "position i = 3"},
        {[](nlohmann::json& j) { j = nlohmann::json::array(); }, "$: expected an object"},
        // unknown keys (issue 36): a typo must not change the network silently
        {[](nlohmann::json& j) { j["residul"] = true; }, "$.residul: unknown key"},
        {[](nlohmann::json& j) { j["layers"][1]["head"] = 1; }, "$.layers[1].head: unknown key"},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["Wq"] = 1; }, "$.layers[0].heads[0].Wq: unknown key"},
    };
    for (const auto& c : cases) {
        nlohmann::json j = good;
        c.edit(j);
        INFO("expect: " << std::string(c.mention));
        try {
            (void)network_from_json(j.dump());
            FAIL("accepted");
        } catch (const invalid_input& e) {
            INFO("got: " << e.what());
            CHECK(std::string(e.what()).find(c.mention) != std::string::npos);
        }
    }
}

TEST_CASE("weights JSON: a list of more than kMaxDepth layers is refused as it is read; long lists are read in one pass") {
    // Issue 58: a file of 1,000,000 empty layers (3 MiB) was still parsing at 25 s; now
    // its 65th layer stops the read, whatever else the file lacks.
    std::string layers;
    for (long i = 0; i < 1000000; ++i) layers += i ? ",{}" : "{}";
    for (const char* family : {"stack", "attention", "power"}) {
        const std::string text = std::string(R"({"family":")") + family + R"(","tokens":2,"layers":[)" + layers + "]}";
        CHECK(seprank_test::message_of([&] { (void)network_from_json(text); }) == "weights JSON $.layers: more than 64 layers; a network has at most 64");
    }
    // 64 layers are not refused for their number (here: for what they lack).
    const std::string sixty_four = R"({"family":"stack","tokens":2,"dim":1,"layers":[)" + layers.substr(0, 64 * 3 - 1) + "]}";
    CHECK(seprank_test::message_of([&] { (void)network_from_json(sixty_four); }).find("more than 64") == std::string::npos);
    // A list of layers deeper in the file is not the top-level one.
    CHECK(seprank_test::message_of([&] { (void)network_from_json(R"({"family":"stack","tokens":2,"x":{"layers":[)" + layers + "]}}"); })
              .find("more than 64") == std::string::npos);
    // 200,000 heads, the last with a key twice: read in one pass, the key named.
    std::string heads;
    for (long i = 0; i < 200000; ++i) heads += "{},";
    CHECK(seprank_test::message_of([&] { (void)network_from_json(R"({"family":"attention","tokens":2,"layers":[{"heads":[)" + heads + R"({"Q":1,"Q":2}]}]})"); }) ==
          "weights JSON: key \"Q\" appears twice in one object");
}

TEST_CASE("low-rank attention keeps rows of W^Q beyond k at zero") {
    NetworkSpec s = seprank_test::attention_spec(3, 3, 2, 1);
    s.attention_rank = 1;
    Network net = random_network(s, 11);
    for (const auto& l : net.weights.layers)
        for (long i = 1; i < 3; ++i)
            for (long c = 0; c < 3; ++c) CHECK(l.heads[0].Q(i, c).is_zero());
}

TEST_CASE("weights text that is not JSON is refused with the byte offset") {
    for (const char* text : {"{ nope", "", "[1, 2", "{\"family\": \"attention\"} trailing"}) {
        INFO("text: " << std::string(text));
        try {
            (void)network_from_json(text);
            FAIL("accepted");
        } catch (const invalid_input& e) {
            INFO("got: " << e.what());
            CHECK(std::string(e.what()).find("not valid JSON at byte ") != std::string::npos);
        }
    }
}

TEST_CASE("weight files keep their layout: one file of each family, byte for byte") {
    // Layout of docs/usage.md §1.5: keys sorted, one space of indent, integers as numbers and
    // rationals as "p/q" strings.
    NetworkSpec h;
    h.family = Family::hadamard;
    h.tokens = 2;
    h.dim = 1;
    h.depth = 1;
    h.block_degree = 1;
    Network net = random_network(h, 1);
    net.weights.layers[0].W[0](0, 0) = Rational(Integer(1), Integer(2));
    net.weights.layers[0].O(0, 0) = Rational(-3);
    CHECK(network_to_json(net, -1) ==
          "{\"block_degree\":1,\"coordinate\":1,\"depth\":1,\"dim\":1,\"family\":\"hadamard\",\"free\":false,"
          "\"layers\":[{\"O\":[[-3]],\"W\":[[[\"1/2\"]]]}],\"position\":1,\"residual\":false,\"tokens\":2,\"width\":1}");
    NetworkSpec a;
    a.tokens = 2;
    a.dim = 1;
    a.depth = 1;
    Network att = random_network(a, 1);
    att.weights.layers[0].heads[0] = {Dense<Rational>(1, 1, Rational(1)), Dense<Rational>(1, 1, Rational(2)),
                                      Dense<Rational>(1, 1, Rational(3)), Dense<Rational>(1, 1, Rational(4))};
    CHECK(network_to_json(att, -1) ==
          "{\"coordinate\":1,\"depth\":1,\"dim\":1,\"family\":\"attention\",\"heads\":1,"
          "\"layers\":[{\"heads\":[{\"K\":[[2]],\"O\":[[4]],\"Q\":[[1]],\"V\":[[3]]}]}],\"position\":1,\"residual\":false,\"tokens\":2}");
    CHECK(network_to_json(att) ==
          "{\n \"coordinate\": 1,\n \"depth\": 1,\n \"dim\": 1,\n \"family\": \"attention\",\n \"heads\": 1,\n \"layers\": [\n  {\n"
          "   \"heads\": [\n    {\n     \"K\": [\n      [\n       2\n      ]\n     ],\n     \"O\": [\n      [\n       4\n      ]\n     ],\n"
          "     \"Q\": [\n      [\n       1\n      ]\n     ],\n     \"V\": [\n      [\n       3\n      ]\n     ]\n    }\n   ]\n  }\n ],\n"
          " \"position\": 1,\n \"residual\": false,\n \"tokens\": 2\n}");
    NetworkSpec f;
    f.family = Family::fc;
    f.tokens = 1;
    f.dim = 1;
    f.depth = 1;
    f.block_degree = 2;
    Network fc = random_network(f, 1);
    fc.weights.layers[0].W[0](0, 0) = Rational(5);
    fc.weights.layers[0].W[1](0, 0) = Rational(6);
    CHECK(network_to_json(fc, -1) ==
          "{\"block_degree\":2,\"coordinate\":1,\"depth\":1,\"dim\":1,\"family\":\"fc\","
          "\"layers\":[{\"W\":[[[5]],[[6]]]}],\"position\":1,\"residual\":false,\"tokens\":1,\"widths\":[1]}");
}

TEST_CASE("the family table: names, lookups and the fields each family uses") {
    const auto& families = all_families();
    REQUIRE(families.size() == family_names().size());
    REQUIRE(families.size() >= 3);
    for (std::size_t k = 0; k < families.size(); ++k) {
        const Family f = families[k];
        CHECK(static_cast<std::size_t>(f) == k);  // enum order, no gaps
        CHECK(family_info(f).family == f);
        CHECK(to_string(f) == family_names()[k]);
        CHECK(family_from_string(to_string(f)) == f);
        CHECK(std::string(family_info(f).name) == to_string(f));
        // a default spec of the family validates, with the fixed block degree where there is one
        NetworkSpec s;
        s.family = f;
        s.block_degree = family_info(f).fixed_block_degree > 0 ? family_info(f).fixed_block_degree : 2;
        if (family_info(f).layers) s.layers = {AttentionLayer{}};  // one layer, as depth says
        if (family_info(f).depth_from_widths) s.widths = {1};
        CHECK_NOTHROW(validate(s));
        CHECK(block_degree(s) == (family_info(f).layers ? 0 : s.block_degree));
        CHECK(output_dim(s) >= 1);
    }
    CHECK(family_from_string("attention") == Family::attention);
    CHECK(family_from_string("hadamard") == Family::hadamard);
    CHECK(family_from_string("fc") == Family::fc);
    CHECK(family_info(Family::attention).fixed_block_degree == 3);
    CHECK(family_info(Family::attention).heads);
    CHECK(family_info(Family::hadamard).width);
    CHECK(family_info(Family::hadamard).free_slots);
    CHECK(family_info(Family::fc).widths);
    CHECK_FALSE(family_info(Family::fc).per_position);
    try {
        (void)family_from_string("softmax");
        FAIL("accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()) == "unknown family 'softmax' (expected attention, hadamard, fc, stack or power)");
    }
    CHECK_THROWS_AS(to_string(static_cast<Family>(families.size())), internal_error);
    NetworkSpec bad;
    bad.family = static_cast<Family>(families.size());
    CHECK_THROWS_AS(validate(bad), invalid_input);
}

TEST_CASE("the family table: the theorems and expansion variants that apply to each family") {
    // Levine et al.'s Theorems 7.1-7.3 and expand's moment pass are about attention alone.
    struct Want {
        const char* name;
        bool levine_theorems, moment_expansion;
    };
    const std::vector<Want> wants = {{"attention", true, true}, {"hadamard", false, false}, {"fc", false, false},
                                     {"stack", false, false}, {"power", false, false}};
    REQUIRE(wants.size() == all_families().size());
    for (const Want& w : wants) {
        const Family f = family_from_string(w.name);
        const FamilyInfo& info = family_info(f);
        INFO(w.name);
        CHECK(info.levine_theorems == w.levine_theorems);
        CHECK(info.moment_expansion == w.moment_expansion);
        // What reads them: one plain layer, N = 2, dx = 2 (so da·H = dx and L = 1 > log3 dx).
        NetworkSpec s;
        s.family = f;
        s.tokens = 2;
        s.block_degree = info.fixed_block_degree > 0 ? info.fixed_block_degree : 2;
        if (info.layers) s.layers = {MlpLayer{}};  // a stack of attention layers is attention (below)
        if (info.depth_from_widths) s.widths = {1};
        const ValidSpec vs(s);
        RankAnswer a;
        a.value = 9;
        const Record r = make_record(RowSource{&vs, &a, nullptr, {}, {}, {}, false, -1, -1}, {"theorem"});
        CHECK(r.at("theorem").json() == (w.levine_theorems ? "\"7.2\"" : "null"));
        NetworkSpec e = s;  // the same with an embedding of rank 1, where the family takes one
        e.embed_rank = 1;
        if (!info.depth_from_widths) CHECK(theorem73_scales(ValidSpec(e)).applies == w.levine_theorems);
        const Network net = random_network(vs, 7);
        if (w.moment_expansion) {
            CHECK(to_string(expand_moment(net)) == to_string(expand_layered(net)));
        } else {
            CHECK(choose_expand_variant(vs) == ExpandVariant::layered);
            try {
                (void)expand_moment(net);
                FAIL("moment accepted");
            } catch (const invalid_input& ex) {
                CHECK(std::string(ex.what()) == std::string("expansion variant moment applies to attention only, not ") + w.name);
            }
        }
    }
}

TEST_CASE("a stack of plain attention layers carries attention's theorem columns and Theorem 7.3's scales") {
    NetworkSpec s;
    s.family = Family::stack;
    s.tokens = 2;
    s.depth = 1;
    s.layers = {AttentionLayer{}};
    const ValidSpec vs(s);
    RankAnswer a;
    a.value = 9;
    const Record r = make_record(RowSource{&vs, &a, nullptr, {}, {}, {}, false, -1, -1}, {"theorem", "heads", "block_degree"});
    CHECK(r.at("theorem").json() == "\"7.2\"");
    CHECK(r.at("heads").json() == "1");
    CHECK(r.at("block_degree").json() == "3");
    NetworkSpec e = s;
    e.embed_rank = 1;
    CHECK(theorem73_scales(ValidSpec(e)).applies);
    e.layers = {AttentionLayer{1, 0, 2, 0, false}};  // score degree 2: not Levine et al.'s layer
    CHECK_FALSE(theorem73_scales(ValidSpec(e)).applies);
}

TEST_CASE("first_layers keeps the first L layers of every family, their widths and weights") {
    const auto spec = [](Family f) {
        NetworkSpec s;
        s.family = f;
        s.tokens = 2;
        s.dim = 2;
        s.depth = 3;
        if (f == Family::fc) s.widths = {3, 5, 2};
        if (f == Family::power) {
            s.tokens = 1;
            s.widths = {3, 4, 1};
            s.block_degree = 2;
        }
        if (f == Family::stack) s.layers = parse_layers("attention,mlp:power=2,hadamard:degree=2");
        return s;
    };
    for (Family f : all_families()) {
        CAPTURE(to_string(f));
        const Network net = random_network(spec(f), 7);
        for (long L = 1; L <= 3; ++L) {
            CAPTURE(L);
            const Network t = first_layers(net, L);
            CHECK(t.spec.depth == L);
            CHECK(t.weights.layers.size() == static_cast<std::size_t>(L));
            if (!net.spec.widths.empty()) CHECK(t.spec.widths == std::vector<long>(net.spec.widths.begin(), net.spec.widths.begin() + L));
            if (!net.spec.layers.empty()) CHECK(t.spec.layers.size() == static_cast<std::size_t>(L));
            CHECK_NOTHROW(check_shapes(t));
            // the weights of the layers kept are the network's own
            Network cut = net;
            cut.weights.layers.resize(static_cast<std::size_t>(L));
            CHECK(network_to_json(Network{t.spec, cut.weights}, -1) == network_to_json(t, -1));
        }
        CHECK(network_to_json(first_layers(net, 3), -1) == network_to_json(net, -1));
        CHECK_THROWS_WITH_AS(first_layers(net, 0), "depth 0: expected 1..3 (the network's layers)", invalid_input);
        CHECK_THROWS_AS(first_layers(net, 4), invalid_input);
    }
}

TEST_CASE("resolve_block_degree: one rule for block_degree and power, in the caller's spelling") {
    const FamilyInfo& pw = family_info(Family::power);
    const FamilyInfo& hd = family_info(Family::hadamard);
    const long two = 2, three = 3;
    CHECK(resolve_block_degree(hd, false, nullptr, nullptr, 3, kCliDegreeSpelling) == 3);
    CHECK(resolve_block_degree(hd, false, &two, nullptr, 3, kCliDegreeSpelling) == 2);
    CHECK(resolve_block_degree(pw, false, nullptr, &two, 3, kCliDegreeSpelling) == 2);
    CHECK(resolve_block_degree(pw, false, &two, &two, 3, kPythonDegreeSpelling) == 2);  // a spec written back holds both
    CHECK_THROWS_WITH_AS(resolve_block_degree(hd, false, nullptr, &two, 3, kCliDegreeSpelling),
                         "--power 2 applies to family power, not hadamard (hadamard and fc take --block-degree)", invalid_input);
    CHECK_THROWS_WITH_AS(resolve_block_degree(pw, false, &three, nullptr, 3, kPythonDegreeSpelling),
                         "block_degree 3 applies to hadamard and fc; a power network's degree is power=r", invalid_input);
    CHECK_THROWS_WITH_AS(resolve_block_degree(pw, false, &three, &two, 3, kCliDegreeSpelling),
                         "--power 2 and --block-degree 3 both given, differently: give one", invalid_input);
    CHECK_THROWS_WITH_AS(resolve_block_degree(hd, true, &two, nullptr, 3, kCliDegreeSpelling),
                         doctest::Contains("--block-degree 2 applies to hadamard and fc; a stack's layers set their degrees"), invalid_input);
    for (Family f : all_families()) {  // every family but power takes block_degree as itself (or ignores it)
        const FamilyInfo& info = family_info(f);
        if (own_degree_key(info)) continue;
        CHECK(resolve_block_degree(info, false, &three, nullptr, 7, kCliDegreeSpelling) == 3);
    }
}

namespace {

// A point of s's inputs with small rational entries.
Point<Rational> small_point(Rng& rng, const NetworkSpec& s) {
    Point<Rational> x(static_cast<std::size_t>(s.tokens));
    for (auto& t : x)
        for (long c = 0; c < input_vars_per_token(s); ++c) t.push_back(Rational(Integer(rng.range(-9, 9)), Integer(1 + rng.range(0, 2))));
    return x;
}

// s with `field` (an UnusedField's JSON key) set to another valid value.
NetworkSpec with_field_changed(NetworkSpec s, const std::string& field) {
    if (field == "power") {
        s.block_degree = s.block_degree % 4 + 1;
    } else if (field == "free") {
        s.free_slots = !s.free_slots;
    } else if (field == "layers") {  // a stack: every layer's unused field (hadamard of degree 1: free)
        for (auto& layer : s.layers)
            if (auto* h = std::get_if<HadamardLayer>(&layer); h != nullptr && h->degree == 1) h->free = !h->free;
    } else {
        FAIL("a field this test cannot change: " << field);
    }
    return s;
}

}  // namespace

TEST_CASE("unused_fields: a field the network never reads changes nothing it computes") {
    INFO("seed " << seprank_test::seed());
    Rng rng(seprank_test::seed() ^ 0x756e75736564ULL);
    seprank_test::SpecLimits lim;
    lim.max_depth = 3;
    long listed = 0;
    for (int it = 0; it < 400; ++it) {
        NetworkSpec s = seprank_test::random_spec(rng, lim);
        if (it % 4 == 0 && s.family == Family::power && s.depth > 1) {  // the one-layer case, often
            s.widths.resize(1);
            s.depth = 1;
            s.coordinate = std::min(s.coordinate, s.widths[0]);
        }
        const ValidSpec spec(s);
        for (const auto& u : unused_fields(spec)) {
            ++listed;
            INFO("iteration " << it << ": " << describe(spec) << "; " << u.field << ": " << u.reason);
            CHECK(!u.reason.empty());
            const ValidSpec other(with_field_changed(spec.get(), u.field));
            const std::uint64_t seed = rng.next();
            const Network a = random_network(spec, seed, 5);
            const Network b = random_network(other, seed, 5);
            for (int k = 0; k < 3; ++k) {
                const auto x = small_point(rng, spec);
                CHECK(evaluate(a, x) == evaluate(b, x));
            }
        }
    }
    CHECK(listed > 0);

    // The cases by name, and fields that are read are not listed.
    NetworkSpec p;
    p.family = Family::power;
    p.tokens = 1;
    p.dim = 2;
    p.block_degree = 4;
    p.widths = {3};
    p.depth = 1;
    REQUIRE(unused_fields(ValidSpec(p)).size() == 1);
    CHECK(unused_fields(ValidSpec(p))[0].field == "power");
    p.widths = {3, 1};
    p.depth = 2;
    CHECK(unused_fields(ValidSpec(p)).empty());
    // ... and there r is read: r = 4 and r = 2 give other functions at the same weights.
    NetworkSpec p2 = p;
    p2.block_degree = 2;
    const Point<Rational> x = {{Rational(Integer(1)), Rational(Integer(2))}};
    CHECK(evaluate(random_network(ValidSpec(p), 1, 5), x) != evaluate(random_network(ValidSpec(p2), 1, 5), x));
    NetworkSpec h = seprank_test::hadamard_spec(2, 2, 1, 1);
    h.free_slots = true;
    REQUIRE(unused_fields(ValidSpec(h)).size() == 1);
    CHECK(unused_fields(ValidSpec(h))[0].field == "free");
    h.block_degree = 2;
    CHECK(unused_fields(ValidSpec(h)).empty());
    CHECK(unused_fields(ValidSpec(seprank_test::attention_spec(3, 2, 1))).empty());
    NetworkSpec st;
    st.family = Family::stack;
    st.tokens = 2;
    st.dim = 1;
    st.layers = parse_layers("mlp,hadamard:degree=1:free,hadamard:degree=2:free");
    st.depth = 3;
    const auto us = unused_fields(ValidSpec(st));
    REQUIRE(us.size() == 1);
    CHECK(us[0].field == "layers");
    CHECK(us[0].reason == "layer 2's free is ignored: a block of degree d = 1 has no slots 2..d to free");
}

TEST_CASE("validated types and evaluators moved from still hold their checked values (a move copies)") {
    // A moved-from ValidPartition had empty sides and kept N: separation_rank ranked "|"
    // and called it certified. A moved-from ValidSpec kept a stack's depth without its
    // layers, and a moved-from evaluator its spec without its weights: both crashed.
    static_assert(std::is_nothrow_destructible_v<ValidSpec>);
    NetworkSpec s;
    s.tokens = 3;
    const Network n = random_network(s, 1);
    ValidPartition p = parse_partition("1|2,3", 3);
    const ValidPartition q(std::move(p));
    CHECK(p->A == q->A);  // NOLINT(bugprone-use-after-move): the point of the test
    CHECK(p->B == q->B);
    CHECK(separation_rank(n, p).value == separation_rank(n, q).value);

    NetworkSpec st;
    st.family = Family::stack;
    st.tokens = 2;
    st.layers = parse_layers("attention,mlp");
    st.depth = 2;
    ValidSpec v(st);
    const ValidSpec w(std::move(v));
    CHECK(v->layers.size() == 2);  // NOLINT(bugprone-use-after-move)
    const Network a = random_network(v, 1), b = random_network(w, 1);
    CHECK(expand(a) == expand(b));

    const std::uint64_t prime = 1000003;
    ModEvaluator e(n, prime);
    const ModEvaluator e2(std::move(e));
    const Point<std::uint64_t> x(3, std::vector<std::uint64_t>(2, 5));
    CHECK(e(x) == e2(x));  // NOLINT(bugprone-use-after-move)
    ModBatchEvaluator m(n, prime);
    const ModBatchEvaluator m2(std::move(m));
    CHECK(m(x) == m2(x));  // NOLINT(bugprone-use-after-move): by the one-point path
    CHECK(m(x) == e2(x));
}
