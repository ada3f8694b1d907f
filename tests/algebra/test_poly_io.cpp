#include "seprank/error.hpp"
#include "seprank/poly_io.hpp"
#include "support.hpp"

#include <cstdint>
#include <doctest/doctest.h>
#include <limits>

using namespace seprank;

namespace {
std::shared_ptr<const QContext> token_ctx(long n, long d) { return QContext::make(Variables::tokens(n, d)); }
}  // namespace

TEST_CASE("a worked example parses and prints back exactly") {
    auto ctx = token_ctx(2, 2);
    QPoly f = parse_poly("3/4*x1_2^3*x2_1 - x1_1 + 2", ctx);
    CHECK(f.terms() == 3);
    CHECK(f.degree() == 4);
    CHECK_FALSE(f.is_homogeneous());
    CHECK(to_string(f) == "3/4*x1_2^3*x2_1 - x1_1 + 2");
    CHECK(parse_poly(to_string(f), ctx) == f);
    CHECK(to_string(parse_poly("(x1_1 + x2_1)^2 - 2*x1_1*x2_1", ctx)) == "x1_1^2 + x2_1^2");
    CHECK(to_string(parse_poly("-(x1_1)", ctx)) == "-x1_1");
    CHECK(to_string(parse_poly("x1_1/2 + 1/3", ctx)) == "1/2*x1_1 + 1/3");
    CHECK(to_string(parse_poly("0*x1_1", ctx)) == "0");
    CHECK(to_string(parse_poly("x1_1^0", ctx)) == "1");
    CHECK(to_string(parse_poly("  - - 5 ", ctx)) == "5");
}

TEST_CASE("random polynomials round-trip through text") {
    auto rng = seprank_test::rng_for("poly-io-roundtrip");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(1000); ++it) {
        const long n = 1 + static_cast<long>(rng.below(3)), d = 1 + static_cast<long>(rng.below(3));
        auto ctx = token_ctx(n, d);
        auto ref = seprank_test::random_ref(rng, static_cast<std::size_t>(n * d), 8, 6, it % 10 == 0 ? 400 : 30);
        QPoly f = seprank_test::from_ref(ref, ctx);
        const std::string s = to_string(f);
        INFO("text: " << s);
        REQUIRE(parse_poly(s, ctx) == f);
        REQUIRE(to_string(parse_poly(s, ctx)) == s);
    }
}

TEST_CASE("Z/p polynomials print their residues") {
    auto ctx = token_ctx(1, 2);
    auto nctx = std::make_shared<const NmodContext>(ctx->vars_ptr(), 7);
    CHECK(to_string(reduce_mod(parse_poly("-x1_1 + 1/2", ctx), nctx)) == "6*x1_1 + 4");
    CHECK(to_string(NmodPoly(nctx)) == "0");
}

TEST_CASE("malformed input gives one clear error with position and token") {
    auto ctx = token_ctx(2, 2);
    struct Bad {
        const char* text;
        const char* must_mention;
    };
    const Bad cases[] = {
        {"", "empty"},
        {"   ", "empty"},
        {"x1_1 + y3", "'y3'"},
        {"x1_1 + x3_1", "'x3_1'"},
        {"x1_1^-2", "negative exponent"},
        {"x1_1^99999999999999999999999", "exponent too large"},
        {"(x1_1 + 2", "unbalanced"},
        {"x1_1 + 2)", "')'"},
        {"x1_1 # 2", "stray character '#'"},
        {"x1_1 + ", "end of input"},
        {"3/0", "division by zero"},
        {"x1_1/(x2_1 - x2_1)", "division by zero"},
        {"1/x1_1", "non-constant"},
        {"2x1_1", "'x1_1'"},
        {"x1_1 ^ x2_1", "exponent"},
        {"x1_1^2^3", "'^'"},
        {"()", "empty parentheses"},
        {"x1_1 * * x2_1", "'*'"},
        {"1.5", "stray character '.'"},
        {"x1_1 * \xef\xbc\x91", "stray character '\xef\xbc\x91'"},  // a full-width digit: its three bytes, valid UTF-8
        {"x1_1 * \xc3", "stray character '\\xc3'"},                 // a lead byte alone: that byte, shown as \xHH
        {"x1_1**2", "'*'"},
    };
    for (const auto& c : cases) {
        INFO("input \"" << std::string(c.text) << "\"");
        try {
            (void)parse_poly(c.text, ctx);
            FAIL("accepted malformed input");
        } catch (const invalid_input& e) {
            const std::string msg = e.what();
            INFO("message: " << msg);
            CHECK(msg.find(c.must_mention) != std::string::npos);
            if (std::string(c.text).find_first_not_of(' ') != std::string::npos)
                CHECK(msg.find("position") != std::string::npos);
        }
    }
}

TEST_CASE("power limits stop runaway expansions before they start") {
    auto ctx = token_ctx(2, 1);
    CHECK_THROWS_AS(parse_poly("(x1_1 + x2_1)^5000", ctx), resource_limit);
    CHECK(parse_poly("x1_1^5000", ctx).degree() == 5000);  // a monomial power is cheap
    ParseLimits tight;
    tight.max_exponent = 10;
    CHECK_THROWS_AS(parse_poly("x1_1^11", ctx, tight), invalid_input);
    // a limit of 2^63 or more is a large one (it was cast to a negative long, refusing x^0)
    ParseLimits loose;
    loose.max_exponent = std::numeric_limits<std::uint64_t>::max();
    CHECK(parse_poly("x1_1^2", ctx, loose).degree() == 2);
    CHECK(parse_poly("x1_1^0", ctx, loose).degree() == 0);
}

TEST_CASE("variables_in orders token variables by token and coordinate") {
    Variables v = variables_in("x10_1 + 3*x2_2*x2_1 - a + x2_1^2");
    REQUIRE(v.size() == 4);
    CHECK(v.name(0) == "a");
    CHECK(v.name(1) == "x2_1");
    CHECK(v.name(2) == "x2_2");
    CHECK(v.name(3) == "x10_1");
    CHECK(variables_in("2x + 1").size() == 0);  // "2x" is a malformed number, not a variable
    CHECK(variables_in("").size() == 0);
}

TEST_CASE("to_string counts its text before building it: twice its length over the memory limit is refused") {
    // (x1_1 + 1)···(x14_1 + 1): 16384 terms, about 640 KB of text
    auto ctx = token_ctx(14, 1);
    std::string text;
    for (long i = 1; i <= 14; ++i) text += (i > 1 ? "*" : "") + std::string("(x") + std::to_string(i) + "_1 + 1)";
    const QPoly f = parse_poly(text, ctx);
    REQUIRE(f.terms() == 16384);
    std::string printed;
    {
        const seprank_test::MaxMemory roomy(64.0 * (1 << 20));
        CHECK_NOTHROW(printed = to_string(f));
    }
    CHECK(printed.size() > 500000);
    CHECK(parse_poly(printed, ctx) == f);
    {
        const seprank_test::MaxMemory tight(static_cast<double>(printed.size()));  // the text fits, not the text and its copy
        CHECK_THROWS_WITH_AS((void)to_string(f), doctest::Contains("the text of a polynomial of 16384 terms"), resource_limit);
    }
}
