#include "seprank/defects.hpp"

#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/progress.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <optional>
#include <random>

using namespace seprank;

namespace {

const DefectRow* find(const DefectSweep& sw, const std::vector<long>& n, const std::vector<long>& d) {
    for (const auto& r : sw.rows)
        if (r.widths == n && r.powers == d) return &r;
    return nullptr;
}

}  // namespace

TEST_CASE("defects: the Alexander-Hirschowitz list") {
    // quadrics: s < v squares have rank s, a determinantal variety below s·v
    CHECK(alexander_hirschowitz_exception(3, 2, 2));
    CHECK(alexander_hirschowitz_exception(5, 2, 4));
    CHECK_FALSE(alexander_hirschowitz_exception(3, 2, 3));
    CHECK_FALSE(alexander_hirschowitz_exception(3, 2, 1));
    CHECK_FALSE(alexander_hirschowitz_exception(2, 2, 1));
    for (const auto& [v, d, s] : std::vector<std::array<long, 3>>{{3, 4, 5}, {4, 4, 9}, {5, 3, 7}, {5, 4, 14}}) CHECK(alexander_hirschowitz_exception(v, d, s));
    for (const auto& [v, d, s] : std::vector<std::array<long, 3>>{{3, 4, 4}, {3, 4, 6}, {5, 3, 8}, {2, 5, 3}, {3, 3, 4}}) CHECK_FALSE(alexander_hirschowitz_exception(v, d, s));
}

TEST_CASE("defects: refused ranges name the value") {
    const auto refused = [](DefectRange g, const std::string& what) {
        try {
            (void)defect_sweep(g);
            FAIL("accepted " << what);
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()).find(what) != std::string::npos);
        }
    };
    DefectRange g;
    g.max_width = 1;
    refused(g, "max width 1");
    g = {};
    g.max_width = 9;
    refused(g, "max width 9");
    g = {};
    g.min_depth = 1;
    refused(g, "min depth 1");
    g = {};
    g.min_depth = 3;
    g.max_depth = 2;
    refused(g, "max depth 2");
    g = {};
    g.max_depth = 6;
    refused(g, "max depth 6");
    g = {};
    g.min_power = 1;
    refused(g, "min power 1");
    g = {};
    g.min_power = 4;
    g.max_power = 3;
    refused(g, "max power 3");
    g = {};
    g.threads = 0;
    refused(g, "threads 0");
}

TEST_CASE("defects: a small range, its bounds, its defects and the reference dimension") {
    DefectRange g;
    g.max_width = 3;
    g.min_depth = 2;
    g.max_depth = 3;
    g.min_power = 2;
    g.max_power = 3;
    g.seed = seprank_test::seed();
    INFO("seed " << g.seed);
    // its progress: every network, then every level, each phase ending at its total
    std::mutex m;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> seen;  // phase: reports, last total seen at done == total
    std::optional<DefectSweep> measured;
    {
        const ProgressScope progress([&](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view) {
            std::lock_guard<std::mutex> lock(m);
            auto& [reports, ended] = seen[std::string(what)];
            ++reports;
            if (done == total) ended = total;
        });
        measured.emplace(defect_sweep(g));
    }
    const DefectSweep& sw = *measured;
    CHECK(seen["defects networks"].first == sw.rows.size() + 1);
    CHECK(seen["defects networks"].second == sw.rows.size());
    CHECK(seen["defects levels"].first == sw.levels.size() + 1);
    CHECK(seen["defects levels"].second == sw.levels.size());
    // depth 2: n0, n1 in {2,3}, d1 in {2,3}: (2,3,1) at d1 = 2 has no room (C(3,2) = 3 <= 3);
    // depth 3: 8 width lists by 4 exponent lists, less those whose layer has no room
    long skipped = 0, total = 0;
    for (long L = 2; L <= 3; ++L) {
        const long lists = L == 2 ? 4 : 8, powers = L == 2 ? 2 : 4;
        total += lists * powers;
    }
    for (const long n0 : {2L, 3L})
        for (const long n1 : {2L, 3L})
            for (const long d1 : {2L, 3L}) {
                const bool first = (n0 == 2 ? d1 + 1 : (d1 + 1) * (d1 + 2) / 2) > n1;
                skipped += !first;  // depth 2
                for (const long n2 : {2L, 3L})
                    for (const long d2 : {2L, 3L}) {
                        const bool second = (n1 == 2 ? d2 + 1 : (d2 + 1) * (d2 + 2) / 2) > n2;
                        skipped += !(first && second);  // depth 3
                    }
            }
    CHECK(sw.skipped == skipped);
    CHECK(static_cast<long>(sw.rows.size()) + sw.skipped == total);
    long exact = 0, defective = 0;
    for (const auto& r : sw.rows) {
        INFO("widths " << r.widths.size() << " first " << r.widths[0]);
        CHECK(r.widths.back() == 1);
        CHECK(r.defect >= 0);  // the expected count bounds the dimension
        CHECK(r.bound <= r.expected);  // the layers' traits count the same rule and more caps
        CHECK(r.dimension.value <= r.bound);
        CHECK(r.exact == (r.dimension.value == r.bound));
        exact += r.exact;
        defective += r.defect > 0;
        // in this range every defect is a pair cap or sits at an Alexander-Hirschowitz exception
        if (r.defect > 0) CHECK((r.reason == DefectReason::bound || r.reason == DefectReason::level));
        CHECK((r.reason == DefectReason::none) == (r.defect == 0));
    }
    CHECK(sw.exact == exact);
    CHECK(sw.defective == defective);
    CHECK(sw.by_bound + sw.by_level + sw.unexplained == sw.defective);
    CHECK(sw.unexplained == 0);
    // the last level's measured defect is Alexander-Hirschowitz's list, row by row
    CHECK(sw.ah_mismatch == 0);
    // hand counts: (2,3,3,1), d = (3,2): 6 + 9 + 3 = 18 weights, 6 rescalings; forms of
    // degree 6 in 2 variables: 7; the last two layers: 3·(2−1) + C(3−1+2, 2) = 3 + 6 = 9
    const DefectRow* a = find(sw, {2, 3, 3, 1}, {3, 2});
    REQUIRE(a != nullptr);
    CHECK(a->parameters == 18);
    CHECK(a->rescaled == 12);
    CHECK(a->forms == 7);
    CHECK(a->cap == 9);
    CHECK(a->expected == 7);
    CHECK(a->dimension.value == 7);
    // (3,2,1), d = 2: two squares of linear forms in 3 variables, quadrics of rank 2:
    // 2·3 − 1 = 5 dimensions, one below Massarenti–Mella's 6; the bound counts the O(2)
    // that keeps the sum of squares, so the network reaches it (exact), and its level, against
    // the secant variety's expected 6, is the defective one
    const DefectRow* q = find(sw, {3, 2, 1}, {2});
    REQUIRE(q != nullptr);
    CHECK(q->expected == 6);
    CHECK(q->bound == 5);
    CHECK(q->dimension.value == 5);
    CHECK(q->defect == 1);
    CHECK(q->ah_exception);
    CHECK(q->exact);
    CHECK(q->reason == DefectReason::bound);
    CHECK(q->defective_levels == std::vector<long>{1});
    // (3,3,2,1), d = (2,2): the cap 3·2 + C(4,2) = 12, as many as the weights less rescalings
    // (9 + 6 + 2 − 5), below the 15 quartics in 3 variables
    const DefectRow* c = find(sw, {3, 3, 2, 1}, {2, 2});
    REQUIRE(c != nullptr);
    CHECK(c->cap == 12);
    CHECK(c->rescaled == 12);
    CHECK(c->forms == 15);
    // the network of a row is its stack of dense layers on one token, the last linear
    const NetworkSpec ps = power_stack({3, 4, 2, 1}, {2, 3});
    CHECK(ps.family == Family::stack);
    CHECK((ps.tokens == 1 && ps.dim == 3 && ps.depth == 3));
    CHECK(layers_to_string(ps.layers) == layers_to_string(parse_layers("dense:width=4:power=2,dense:width=2:power=3,dense:width=1:power=1")));
    // the reference variant (interpolation) gives each dimension too, on a random sample
    std::mt19937_64 rng(g.seed);
    for (int k = 0; k < 6; ++k) {
        const DefectRow& r = sw.rows[static_cast<std::size_t>(rng() % sw.rows.size())];
        DimensionOptions opt;
        opt.seed = g.seed + 1000 + static_cast<std::uint64_t>(k);
        CHECK(dimension_interpolation(power_stack(r.widths, r.powers), opt).value == r.dimension.value);
    }
}

TEST_CASE("DefectReason names are distinct, and a value outside the enum is refused by name") {
    seprank_test::check_enum_names<DefectReason>({DefectReason::none, DefectReason::bound, DefectReason::level, DefectReason::unexplained},
                                                 "DefectReason", nullptr);
}
