#include "seprank/error.hpp"
#include "seprank/network.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <functional>
#include <nlohmann/json.hpp>

using namespace seprank;

namespace {
NetworkSpec attention(long n, long dx, long h, long l) {
    NetworkSpec s;
    s.tokens = n;
    s.dim = dx;
    s.heads = h;
    s.depth = l;
    return s;
}
}  // namespace

TEST_CASE("validation names the bad value") {
    struct Case {
        NetworkSpec s;
        const char* mention;
    };
    std::vector<Case> cases;
    auto add = [&](auto edit, const char* mention) {
        NetworkSpec s = attention(4, 2, 1, 2);
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
    add([](NetworkSpec& s) { s.embed_rank = 3; }, "embedding rank r = 3");
    add([](NetworkSpec& s) { s.attention_rank = 3; }, "attention rank k = 3");
    add([](NetworkSpec& s) { s.family = Family::fc; s.widths = {2}; }, "widths list has 1 entries");
    add([](NetworkSpec& s) { s.family = Family::fc; s.widths = {3, 3}; s.residual = true; }, "residual fc needs equal widths");
    for (const auto& c : cases) {
        INFO("expect: " << std::string(c.mention));
        try {
            validate(c.s);
            FAIL("accepted");
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()).find(c.mention) != std::string::npos);
        }
    }
    NetworkSpec ok = attention(4, 2, 3, 1);
    ok.head_dim = 2;  // explicit da lifts the divisibility requirement
    CHECK_NOTHROW(validate(ok));
}

TEST_CASE("parameter counts and weight degrees follow SPEC formulas") {
    for (long L = 0; L <= 6; ++L) {
        NetworkSpec s = attention(3, 4, 2, L);
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
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        NetworkSpec s;
        s.family = static_cast<Family>(rng.below(3));
        s.tokens = 1 + static_cast<long>(rng.below(4));
        s.dim = 1 + static_cast<long>(rng.below(3));
        s.depth = static_cast<long>(rng.below(3));
        s.residual = rng.below(2) == 1;
        if (s.family == Family::attention) {
            s.heads = 1;
            s.attention_rank = static_cast<long>(rng.below(static_cast<std::uint64_t>(s.dim) + 1));
        } else {
            s.block_degree = 1 + static_cast<long>(rng.below(4));
            if (s.family == Family::hadamard) {
                s.width = 1 + static_cast<long>(rng.below(3));
                s.free_slots = rng.below(2) == 1;
            }
        }
        if (rng.below(3) == 0) s.embed_rank = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(s.dim)));
        Network net = random_network(s, rng.next());
        // a rational weight, to exercise "p/q"
        if (!net.weights.layers.empty()) {
            auto& l = net.weights.layers[0];
            auto& m = s.family == Family::attention ? l.heads[0].V : l.W[0];
            m.a[0] = Rational(Integer(-7), Integer(3));
        }
        const auto j = network_to_json(net);
        Network back = network_from_json(nlohmann::json::parse(j.dump()));
        REQUIRE(network_to_json(back) == j);
    }
}

TEST_CASE("malformed weights files name the JSON path of the first bad value") {
    Network net = random_network(attention(2, 2, 1, 2), 7);
    const nlohmann::json good = network_to_json(net);
    struct Bad {
        std::function<void(nlohmann::json&)> edit;
        const char* mention;
    };
    const std::vector<Bad> cases = {
        {[](nlohmann::json& j) { j.erase("family"); }, "$: missing key \"family\""},
        {[](nlohmann::json& j) { j["family"] = "softmax"; }, "$.family"},
        {[](nlohmann::json& j) { j["tokens"] = "four"; }, "$.tokens: expected an integer"},
        {[](nlohmann::json& j) { j["dim"] = 0; }, "$.dim: value 0 below 1"},
        {[](nlohmann::json& j) { j["heads"] = 3; }, "heads H = 3 does not divide"},
        {[](nlohmann::json& j) { j["layers"].erase(1); }, "$.layers: has 1 layers, depth is 2"},
        {[](nlohmann::json& j) { j["layers"][1]["heads"][0].erase("K"); }, "$.layers[1].heads[0]: missing key \"K\""},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["Q"][1] = {1}; }, "$.layers[0].heads[0].Q[1]: has 1 entries, expected 2"},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["V"][0][1] = 1.5; }, "$.layers[0].heads[0].V[0][1]: expected an integer or a \"p/q\" string, got 1.5"},
        {[](nlohmann::json& j) { j["layers"][0]["heads"][0]["O"][1][0] = "1/0"; }, "$.layers[0].heads[0].O[1][0]"},
        {[](nlohmann::json& j) { j["layers"][1]["heads"][0]["O"] = 3; }, "$.layers[1].heads[0].O: expected a matrix"},
        {[](nlohmann::json& j) { j["residual"] = "yes"; }, "$.residual: expected true or false"},
        {[](nlohmann::json& j) { j["position"] = 3; }, "position i = 3"},
        {[](nlohmann::json& j) { j = nlohmann::json::array(); }, "$: expected an object"},
    };
    for (const auto& c : cases) {
        nlohmann::json j = good;
        c.edit(j);
        INFO("expect: " << std::string(c.mention));
        try {
            (void)network_from_json(j);
            FAIL("accepted");
        } catch (const invalid_input& e) {
            INFO("got: " << e.what());
            CHECK(std::string(e.what()).find(c.mention) != std::string::npos);
        }
    }
}

TEST_CASE("low-rank attention keeps rows of W^Q beyond k at zero") {
    NetworkSpec s = attention(3, 3, 1, 2);
    s.attention_rank = 1;
    Network net = random_network(s, 11);
    for (const auto& l : net.weights.layers)
        for (long i = 1; i < 3; ++i)
            for (long c = 0; c < 3; ++c) CHECK(l.heads[0].Q(i, c).is_zero());
}
