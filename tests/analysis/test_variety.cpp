#include "seprank/variety.hpp"

#include "seprank/error.hpp"
#include "seprank/poly_io.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <set>
#include <tuple>

using namespace seprank;

namespace {

NetworkSpec stack_of(const std::string& layers, long tokens, long dim) { return seprank_test::stack_spec(tokens, dim, layers); }

}  // namespace

TEST_CASE("variety: the smallest-fibre slice gives the gauge slice's degree (the reference)") {
    const std::vector<std::pair<std::string, std::pair<long, long>>> nets = {
        {"conv,conv:power=1", {3, 1}},
        {"conv:power=3,conv:power=1", {3, 1}},
        {"conv:filter=3,conv:power=1", {4, 1}},
        {"conv,conv,conv:power=1", {4, 1}},
        {"dense:width=2:power=2,dense:width=1:power=1", {1, 3}},
        {"dense:width=2:power=3,dense:width=1:power=1", {1, 3}},
        {"dense:width=1:power=1", {1, 3}},
    };
    for (const auto& [layers, shape] : nets) {
        VarietyOptions fast;
        fast.seed = seprank_test::seed();
        fast.trials = 2;
        VarietyOptions ref = fast;
        ref.degree_slice = DegreeSlice::gauge;
        INFO(layers << " seed " << fast.seed);
        const VarietyAnswer a = network_variety(stack_of(layers, shape.first, shape.second), fast);
        const VarietyAnswer b = network_variety(stack_of(layers, shape.first, shape.second), ref);
        REQUIRE(a.agreed);
        REQUIRE(b.agreed);
        CHECK(a.degree == b.degree);
        CHECK(a.gauge_fibre_points == b.gauge_fibre_points);
        CHECK(a.free_weights == b.free_weights);
        // the reference counts on the gauge slice; the fast one on a slice with no more points
        CHECK(b.degree_free_weights == b.free_weights);
        CHECK(b.degree_fibre_points == b.gauge_fibre_points);
        CHECK(a.degree_fibre_points <= b.degree_fibre_points);
        CHECK(a.trials.front().degree_section_points == a.degree * a.degree_fibre_points);
    }
    // filters (2,2,2): fixing a weight of each of the first two filters leaves one setting
    VarietyOptions opt;
    opt.seed = seprank_test::seed();
    const VarietyAnswer c3 = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), opt);
    CHECK(c3.degree_fibre_points == 1);
    CHECK(c3.gauge_fibre_points == 4);
}

TEST_CASE("variety: degrees known in closed form") {
    VarietyOptions opt;
    opt.seed = seprank_test::seed();
    INFO("seed " << opt.seed);
    // Shahverdi–Marchetti–Kohn: single-channel convolutions, filters (2,2) and (2,2,2), r = 2
    VarietyOptions both = opt;
    both.generic_slice = true;  // the fibre's degree, and a second count of the degree
    const VarietyAnswer c2 = network_variety(stack_of("conv,conv:power=1", 3, 1), both);
    CHECK(c2.agreed);
    CHECK(c2.dimension == 3);
    CHECK(c2.degree == 4);
    CHECK(c2.parameters == 4);
    CHECK(c2.fibre_dimension == 1);
    CHECK(c2.fibre_points == 3);
    CHECK(c2.trials.front().section_points == 12);
    // w1 -> t w1, w2 -> t^-2 w2: one fixed weight of w2 leaves t = ±1 (the square's sign)
    CHECK(c2.gauge_fibre_points == 2);
    CHECK(c2.free_weights.size() == 3);
    const VarietyAnswer c3 = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), opt);
    CHECK(c3.agreed);
    CHECK(c3.dimension == 4);
    CHECK(c3.degree == 48);
    CHECK(c3.gauge_fibre_points == 4);  // the signs of w1 and w2
    // x ↦ Σ a_i (b_i·x)², d0 inputs, d0 − 1 units: the quadratic forms of rank < d0, the
    // symmetric determinant's hypersurface, of degree d0
    for (long d0 : {2L, 3L}) {
        const VarietyAnswer q = network_variety(stack_of("dense:width=" + std::to_string(d0 - 1) + ":power=2,dense:width=1:power=1", 1, d0), opt);
        INFO("d0 = " << d0);
        CHECK(q.agreed);
        CHECK(q.dimension == d0 * (d0 + 1) / 2 - 1);
        CHECK(q.degree == d0);
    }
    // a linear map x ↦ (w·x): the whole dual space, degree 1, and fibre a point
    const VarietyAnswer lin = network_variety(stack_of("dense:width=1:power=1", 1, 3), opt);
    CHECK(lin.dimension == 3);
    CHECK(lin.degree == 1);
    CHECK(lin.fibre_points == -1);  // no generic slice asked for
    CHECK(lin.gauge_fibre_points == 1);  // identifiable: no weight fixed, one point
    VarietyOptions bad;
    bad.trials = 0;
    CHECK_THROWS_AS(network_variety(stack_of("conv,conv:power=1", 3, 1), bad), invalid_input);
    // check_options names each value (the CLI's one check too)
    const auto refused = [](VarietyOptions o, const std::string& what) {
        try {
            check_options(o);
            FAIL("accepted " << what);
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()).find(what) != std::string::npos);
        }
    };
    refused(bad, "trials 0 outside 1..1000");
    VarietyOptions too_many;
    too_many.trials = 1001;
    refused(too_many, "trials 1001 outside 1..1000");
    VarietyOptions u;
    u.max_unknowns = -3;
    refused(u, "max unknowns -3 is below 1");
    VarietyOptions m;
    m.max_interpolation = 0;
    refused(m, "max interpolation 0 is below 1");
    CHECK_NOTHROW(check_options(VarietyOptions{}));
    VarietyOptions th;
    th.threads = 0;
    refused(th, "threads 0 must be in 1..");
    // the trials run side by side, each on its own stream: the same primes and counts on 1 and 2 threads
    VarietyOptions one = opt, two = opt;
    one.threads = 1;
    two.threads = 2;
    const VarietyAnswer a1 = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), one);
    const VarietyAnswer a2 = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), two);
    REQUIRE(a1.trials.size() == a2.trials.size());
    for (std::size_t t = 0; t < a1.trials.size(); ++t) {
        CHECK(a1.trials[t].prime == a2.trials[t].prime);
        CHECK(a1.trials[t].degree_section_points == a2.trials[t].degree_section_points);
        CHECK(a1.trials[t].free_weights == a2.trials[t].free_weights);
    }
    CHECK(a1.degree == a2.degree);
    // many trials on more threads than cores: MathicGB's bases take turns (without that,
    // about one run in 13 of this crashed in memtailor's arena)
    VarietyOptions many = opt;
    many.trials = 8;
    many.threads = 4;
    for (int k = 0; k < 3; ++k) {
        many.seed = opt.seed + static_cast<std::uint64_t>(k);
        const VarietyAnswer v = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), many);
        CHECK(v.agreed);
        CHECK(v.degree == 48);
    }
    VarietyOptions small;
    small.max_unknowns = 2;
    CHECK_THROWS_AS(network_variety(stack_of("conv,conv:power=1", 3, 1), small), resource_limit);
    // the trials' primes are distinct: 300 draws among the 3,030 16-bit primes would repeat
    // one with probability 1 − e^(−300·299/6060) > 0.9999 without the redraw
    VarietyOptions lots = opt;
    lots.trials = 300;
    const VarietyAnswer v = network_variety(stack_of("conv,conv:power=1", 3, 1), lots);
    std::set<std::uint64_t> primes;
    for (const VarietyTrial& tr : v.trials) primes.insert(tr.prime);
    CHECK(primes.size() == 300);
    CHECK(v.agreed);
    CHECK(v.degree == 4);
}

TEST_CASE("variety: the degree's certified lower bound (simple section solutions, distinct functions)") {
    VarietyOptions opt;
    opt.seed = seprank_test::seed();
    INFO("seed " << opt.seed);
    // filters (2,2,2) at r = 2: 48 simple solutions on the last-pivot slice, 48 functions
    const VarietyAnswer c3 = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), opt);
    REQUIRE(c3.agreed);
    CHECK(c3.degree_at_least == 48);
    CHECK(c3.degree_at_least <= c3.degree);
    CHECK(c3.degree_at_least_failure_bound == c3.dimension_answer.failure_bound);
    for (const VarietyTrial& tr : c3.trials) {
        CHECK(tr.section_images == 48);
        CHECK_FALSE(tr.limited);
    }
    // under a time limit below the certificate's estimate (1.5e-8·48³ s) it is not tried, and
    // the trial says a limit, not the section, left it out (verify: not checked)
    {
        const double before = default_max_seconds();
        set_default_max_seconds(1e-3);
        const VarietyAnswer lim = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), opt);
        set_default_max_seconds(before);
        CHECK(lim.degree_at_least == -1);
        for (const VarietyTrial& tr : lim.trials) {
            CHECK(tr.limited);
            CHECK(tr.uncertified.find("passes the time limit") != std::string::npos);
        }
    }
    // on the gauge slice each function has 2 weight settings (the square's sign): 8 simple
    // solutions, 4 functions among them
    VarietyOptions gauge = opt;
    gauge.degree_slice = DegreeSlice::gauge;
    const VarietyAnswer c2 = network_variety(stack_of("conv,conv:power=1", 3, 1), gauge);
    REQUIRE(c2.agreed);
    for (const VarietyTrial& tr : c2.trials) {
        CHECK(tr.degree_section_points == 8);
        CHECK(tr.section_images == 4);
    }
    CHECK(c2.degree_at_least == 4);
    // the quadratic networks' determinantal hypersurfaces, d0 = 2, 3
    for (long d0 : {2L, 3L}) {
        const VarietyAnswer q = network_variety(stack_of("dense:width=" + std::to_string(d0 - 1) + ":power=2,dense:width=1:power=1", 1, d0), opt);
        INFO("d0 = " << d0);
        CHECK(q.degree_at_least == d0);
    }
    // the generic slice's section is counted, not certified
    VarietyOptions generic = opt;
    generic.generic_slice = true;
    generic.trials = 1;
    const VarietyAnswer g = network_variety(stack_of("conv,conv:power=1", 3, 1), generic);
    CHECK(g.trials.front().section_points == 12);
    CHECK(g.degree_at_least == 4);
    // the record carries the bound, its failure bound and each trial's images
    const Record r = variety_record(c3, false);
    CHECK(r.at("degree_at_least").as_integer() == 48);
    CHECK(r.at("section_images").as_integer_list() == std::vector<long>{48, 48, 48});
    CHECK(r.at("degree_at_least_failure_bound").as_real() >= c3.dimension_answer.failure_bound);
}

TEST_CASE("variety: the degree's upper bound (the Newton polytope's) meets the lower one on chains of filters") {
    VarietyOptions opt;
    opt.seed = seprank_test::seed();
    opt.trials = 2;
    INFO("seed " << opt.seed);
    // chains of filters: deg X proven, the bound (n - 1)!·vol of the box of the free
    // weights' degrees (docs/variety.md): 4, 48, 12, 6, 27
    const std::vector<std::tuple<std::string, long, long>> chains = {
        {"conv,conv:power=1", 3, 4},
        {"conv,conv,conv:power=1", 4, 48},
        {"conv:filter=3,conv:power=1", 4, 12},
        {"conv,conv:filter=3:power=1", 4, 6},
        {"conv:filter=3:power=3,conv:power=1", 4, 27},
    };
    for (const auto& [layers, tokens, degree] : chains) {
        INFO(layers);
        const VarietyAnswer v = network_variety(stack_of(layers, tokens, 1), opt);
        REQUIRE(v.agreed);
        CHECK(v.degree == degree);
        CHECK(v.degree_at_least == degree);
        CHECK(v.degree_at_most == degree);
        CHECK(v.degree_at_most_failure_bound == v.dimension_answer.failure_bound);
        CHECK(v.label.find("deg X is proven") != std::string::npos);
        // the fibres' bounds: the last-pivot slice proven identifiable, the gauge slice's
        // count (the rescalings' roots of unity) met from above
        CHECK(v.degree_fibre_at_most == 1);
        CHECK(v.gauge_fibre_at_most == v.gauge_fibre_points);
        // the reference slice counts elsewhere; the bound still takes both slices' least
        VarietyOptions gauge = opt;
        gauge.degree_slice = DegreeSlice::gauge;
        CHECK(network_variety(stack_of(layers, tokens, 1), gauge).degree_at_most == degree);
    }
    // elsewhere a bound, not always met: every network here has at_least <= degree <= at_most
    const std::vector<std::tuple<std::string, long, long>> others = {
        {"dense:width=2:power=2,dense:width=1:power=1", 1, 3},
        {"dense:width=2:power=3,dense:width=1:power=1", 1, 2},
        {"dense:width=2:power=2,dense:width=1:power=1", 1, 2},
        {"attention", 2, 2},
        {"hadamard:degree=2,dense:width=1:power=1", 2, 1},
        {"attention:rank=1", 2, 2},  // structural zeros: W^Q's second row
    };
    // the Newton polytope's bound alone: no equation (which would set degree_at_most to deg X)
    VarietyOptions newton = opt;
    newton.max_equation_monomials = 0;
    for (const auto& [layers, tokens, dim] : others) {
        INFO(layers << " N=" << tokens << " dx=" << dim);
        const VarietyAnswer v = network_variety(stack_of(layers, tokens, dim), newton);
        REQUIRE(v.agreed);
        REQUIRE(v.degree_at_most >= 1);
        CHECK(v.degree_at_least <= v.degree);
        CHECK(v.degree <= v.degree_at_most);
        // the bound holds deg X times either slice's k: the counted section too
        for (const VarietyTrial& tr : v.trials) CHECK(tr.degree_section_points <= v.degree_at_most);
        CHECK(v.gauge_fibre_points <= v.gauge_fibre_at_most);
        CHECK(v.degree_fibre_points <= v.degree_fibre_at_most);
    }
    const VarietyAnswer q = network_variety(stack_of("dense:width=2:power=2,dense:width=1:power=1", 1, 3), newton);
    CHECK(q.degree_at_most > q.degree);  // 3 under a bound that is not met
    CHECK(q.label.find("degree_at_most is proven") != std::string::npos);
    const Record r = variety_record(q, false);
    CHECK(r.at("degree_at_most").as_integer() == q.degree_at_most);
    CHECK(r.at("degree_at_most_failure_bound").as_real() >= q.dimension_answer.failure_bound);
    CHECK(r.at("gauge_fibre_at_most").as_integer() == q.gauge_fibre_at_most);
    CHECK(r.at("degree_fibre_at_most").as_integer() == q.degree_fibre_at_most);
}

TEST_CASE("variety: the image's equation proves the dimension and the degree where X is a hypersurface of its span") {
    VarietyOptions opt;
    opt.seed = seprank_test::seed();
    opt.trials = 2;
    INFO("seed " << opt.seed);
    // quadratic forms of rank <= 2 in 3 variables: the determinant, degree 3
    const VarietyAnswer q = network_variety(stack_of("dense:width=2:power=2,dense:width=1:power=1", 1, 3), opt);
    REQUIRE(q.equation.equation.has_value());
    CHECK(q.dimension == 5);
    CHECK(q.dimension_answer.kind == RankKind::exact);
    CHECK(q.dimension_answer.failure_bound == 0);
    CHECK(q.degree_at_least == 3);
    CHECK(q.degree_at_most == 3);
    CHECK(q.degree_at_least_failure_bound == 0);
    CHECK(q.degree_at_most_failure_bound == 0);
    CHECK(q.degree == 3);  // the counts agree
    CHECK(q.label.find("deg X = 3 is proven") != std::string::npos);
    CHECK(q.label.find("assuming") == std::string::npos);
    // the fibre bounds still come from the slices' Newton bounds, now unconditional
    CHECK(q.degree_fibre_points <= q.degree_fibre_at_most);
    const Record r = variety_record(q, false);
    CHECK(r.at("dimension_kind").as_text() == "exact");
    CHECK(r.at("span_dimension").as_integer() == 6);
    CHECK(r.at("equation_degree").as_integer() == 3);
    CHECK(r.at("equation").as_text() == to_string(*q.equation.equation));
    CHECK(r.at("equation_coordinates").as_text() == "x1_1^2, x1_1*x1_2, x1_2^2, x1_1*x1_3, x1_2*x1_3, x1_3^2");
    // binary cubics, sums of two cubes: every one (ρ = n), degree 1
    const VarietyAnswer all = network_variety(stack_of("dense:width=2:power=3,dense:width=1:power=1", 1, 2), opt);
    CHECK(all.equation.degree == 1);
    CHECK(all.degree_at_most == 1);
    CHECK(all.dimension_answer.kind == RankKind::exact);
    CHECK(all.label.find("fills its 4-dimensional affine span") != std::string::npos);
    CHECK(variety_record(all, false).at("equation").is_null());
    // a convolution: codimension 15 in its span, no equation; the Newton bound as before
    const VarietyAnswer c = network_variety(stack_of("conv,conv,conv:power=1", 4, 1), opt);
    CHECK(c.equation.degree == -1);
    CHECK(c.equation.span_dimension == 19);
    // its dimension 4 is the 6 weights less 2 row scalings (dimension.md, "Exact"): exact, so
    // the degree's bounds assume nothing
    CHECK(c.dimension_answer.kind == RankKind::exact);
    CHECK(c.label.find("assuming") == std::string::npos);
    CHECK(c.label.find("deg X is proven (dim X = n is exact)") != std::string::npos);
    CHECK(variety_record(c, false).at("degree_kind").as_text() == "proven");
    CHECK(c.degree_at_most == 48);
    CHECK(c.label.find("no equation: the image's span has dimension 19") != std::string::npos);
    CHECK(variety_record(c, false).at("equation_degree").is_null());
    // the search off, and refused below 0
    VarietyOptions off = opt;
    off.max_equation_monomials = 0;
    const VarietyAnswer o = network_variety(stack_of("dense:width=2:power=2,dense:width=1:power=1", 1, 3), off);
    CHECK(o.degree_at_most == 8);
    CHECK(o.dimension_answer.kind == RankKind::exact);  // a one-output power network: its count proves it (dimension.md)
    CHECK(o.label.find("no equation: not searched") != std::string::npos);
    off.max_equation_monomials = -1;
    CHECK_THROWS_AS(check_options(off), invalid_input);
}
