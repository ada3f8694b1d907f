// Black-box evaluation ranks: the graded variant against the plain reference, and the
// graded block ranks against flattenings of the bihomogeneous parts of the expansion.
#include "seprank/cancel.hpp"
#include "seprank/columns.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/generic.hpp"
#include "seprank/limits.hpp"
#include "seprank/model.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/rank.hpp"
#include "seprank/separation.hpp"
#include "support.hpp"
#include "base/hash.hpp"

#include <doctest/doctest.h>
#include <limits>
#include <type_traits>
#include <variant>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <array>
#include <iterator>
#include <cstring>
#include <fstream>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>

using namespace seprank;

namespace {

// Small homogeneous networks (no residual) of any family, embedding and low rank included.
seprank_test::SpecLimits homogeneous_limits() {
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_tokens = 4;
    lim.min_dim = 1;
    lim.max_dim = 3;
    lim.min_depth = 1;
    lim.max_depth = 2;
    lim.max_block_degree = 4;
    lim.max_block_degree_deep = 3;
    lim.max_inputs_deep = 11;  // keep each case fast: no N = 4, dx = 3 at depth 2
    lim.max_width = 0;
    lim.residual = false;
    return lim;
}

Partition random_partition(Rng& rng, long n) {
    std::vector<long> a, b;
    while (a.empty() || b.empty()) {
        a.clear();
        b.clear();
        for (long j = 1; j <= n; ++j) (rng.below(2) ? a : b).push_back(j);
    }
    return Partition{a, b};
}

// A random homogeneous network and partition (with any_position, a random output position
// for the families that have one), drawn in that order.
struct Case {
    NetworkSpec spec;
    Network net;
    Partition part;
};
Case random_case(Rng& rng, bool any_position) {
    NetworkSpec s = seprank_test::random_spec(rng, homogeneous_limits());
    if (any_position && family_info(s.family).per_position) s.position = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(output_positions(s))));
    Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(1000)));
    Partition part = random_partition(rng, s.tokens);
    return Case{s, std::move(net), std::move(part)};
}

// Ranks mod p of the flattenings of f_a (the part of degree a in the A-variables), a = 0..D.
std::vector<long> block_ranks_by_expansion(const Network& net, const Partition& part, std::uint64_t p, long D) {
    const QPoly f = expand(net);
    std::vector<int> tok(static_cast<std::size_t>(net.spec.tokens), 1);
    for (long j : part.A) tok[static_cast<std::size_t>(j - 1)] = 0;
    const auto& vars = f.context()->vars();
    std::vector<seprank_test::RefPoly> parts(static_cast<std::size_t>(D + 1));
    for (const auto& [e, c] : seprank_test::to_ref(f)) {
        long a = 0;
        for (std::size_t v = 0; v < e.size(); ++v)
            if (tok[static_cast<std::size_t>(vars.token(v) - 1)] == 0) a += static_cast<long>(e[v]);
        REQUIRE(a <= D);
        parts[static_cast<std::size_t>(a)][e] = c;
    }
    std::vector<long> r;
    for (const auto& fa : parts) r.push_back(rank_modular(flatten(seprank_test::from_ref(fa, f.context()), part, net.spec.tokens), p));
    return r;
}

}  // namespace

TEST_CASE("graded evaluation = plain evaluation, and its blocks = flattenings of the bihomogeneous parts") {
    auto rng = seprank_test::rng_for("graded-vs-plain");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const auto [s, net, part] = random_case(rng, false);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        EvaluationOptions o;
        o.seed = rng.next();
        o.start = 1 + static_cast<long>(rng.below(6));
        o.growth = 1.1 + 0.9 * static_cast<double>(rng.below(10)) / 10.0;
        o.threads = 1 + static_cast<int>(rng.below(2));
        o.variant = EvaluationVariant::plain;
        const RankAnswer plain = evaluation_rank(net, part, o);
        o.variant = EvaluationVariant::graded;
        const RankAnswer graded = evaluation_rank(net, part, o);
        REQUIRE(plain.variant == "plain");
        REQUIRE(graded.variant.rfind("graded", 0) == 0);  // graded or graded-parity
        REQUIRE(plain.converged);
        REQUIRE(graded.converged);
        CHECK(graded.value == plain.value);
        CHECK(graded.failure_bound < 1e-9);
        const long D = fmpz_get_si(output_degree(s).get());
        REQUIRE(static_cast<long>(graded.block_ranks.size()) == D + 1);
        CHECK(std::accumulate(graded.block_ranks.begin(), graded.block_ranks.end(), 0L) == graded.value);
        CHECK(graded.block_ranks == block_ranks_by_expansion(net, part, graded.prime, D));
        // automatic picks graded for a homogeneous network of small degree
        o.variant = EvaluationVariant::automatic;
        CHECK(evaluation_rank(net, part, o).variant.rfind("graded", 0) == 0);
    }
}

TEST_CASE("graded evaluation: degenerate and extreme networks") {
    auto rng = seprank_test::rng_for("graded-degenerate");
    INFO("seed " << seprank_test::seed());
    SUBCASE("all-zero weights: f = 0, rank 0 in every block") {
        NetworkSpec s;
        s.tokens = 3;
        s.dim = 2;
        s.depth = 2;
        Network net = random_network(s, 1, 5);
        net.weights = map_weights<Rational>(net.weights, [](const Rational&) { return Rational(0); });
        const RankAnswer g = evaluation_rank_graded(net, balanced_partition(3));
        CHECK(g.value == 0);
        CHECK(g.converged);
        CHECK(std::all_of(g.block_ranks.begin(), g.block_ranks.end(), [](long r) { return r == 0; }));
    }
    SUBCASE("a side too small for one row per degree block: nothing evaluated, said so (not 'rank still full')") {
        NetworkSpec s;
        s.tokens = 3;
        s.depth = 1;
        EvaluationOptions o;
        o.max_side = 1;
        const RankAnswer g = evaluation_rank_graded(random_network(s, 7, 5), balanced_partition(3), o);
        CHECK(g.value == 0);
        CHECK(g.evaluations == 0);
        CHECK_FALSE(g.converged);
        CHECK(g.note.find("leaves no room for one row per degree block: nothing evaluated") != std::string::npos);
        CHECK(g.note.find("rank still full") == std::string::npos);
    }
    SUBCASE("dx = 1, N = 2: every block has one monomial each side, rank = number of non-zero blocks") {
        seprank_test::SpecLimits lim;
        lim.min_tokens = lim.max_tokens = 2;
        lim.min_dim = lim.max_dim = 1;
        lim.min_depth = 1;
        lim.max_depth = 3;
        lim.min_block_degree = 2;
        lim.max_block_degree = lim.max_block_degree_deep = 3;
        lim.residual = false;
        for (int it = 0; it < seprank_test::iterations(10); ++it) {
            const NetworkSpec s = seprank_test::random_spec(rng, lim);
            const Network net = random_network(s, rng.next(), 50);
            const Partition part{{1}, {2}};
            const RankAnswer g = evaluation_rank_graded(net, part);
            const QPoly f = expand(net);
            INFO(network_to_json(net, -1));
            CHECK(g.value == static_cast<long>(f.terms()));  // f = Σ c_a x1^a x2^(D−a)
            CHECK(g.rows <= static_cast<long>(g.block_ranks.size()));  // every block side <= 1
            for (long b : g.block_ranks) CHECK(b <= 1);
        }
    }
    SUBCASE("a depth-4 degree-81 network against the plain reference (N = 2, dx = 2)") {
        NetworkSpec s;
        s.tokens = 2;
        s.dim = 2;
        s.depth = 4;
        const Network net = random_network(s, rng.next(), 1000);
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::plain;
        const long plain = evaluation_rank(net, balanced_partition(2), o).value;
        o.variant = EvaluationVariant::graded;
        const RankAnswer g = evaluation_rank(net, balanced_partition(2), o);
        CHECK(g.value == plain);
        CHECK(g.value > 0);
    }
    SUBCASE("max_side bounds the sum of the block sides; stopping there gives a lower bound") {
        NetworkSpec s;
        s.tokens = 2;
        s.dim = 2;
        s.depth = 4;  // sep 861: needs a total side well above 300
        const Network net = random_network(s, rng.next(), 1000);
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::graded;
        const RankAnswer full = evaluation_rank(net, balanced_partition(2), o);
        REQUIRE(full.converged);
        for (long budget : {100L, 300L, 600L}) {
            o.max_side = budget;
            const RankAnswer cut = evaluation_rank(net, balanced_partition(2), o);
            CAPTURE(budget);
            CHECK_FALSE(cut.converged);
            CHECK(cut.rows <= budget);
            CHECK(cut.value <= full.value);
            CHECK(cut.value > 0);
            CHECK(cut.failure_bound == 1.0);
        }
    }
}

TEST_CASE("graded evaluation refuses what it cannot do, and auto falls back to plain") {
    NetworkSpec s;
    s.tokens = 2;
    s.dim = 2;
    s.depth = 2;
    s.residual = true;
    const Network res = random_network(s, 3, 5);
    CHECK_FALSE(is_homogeneous(s));
    CHECK_THROWS_AS(evaluation_rank_graded(res, balanced_partition(2)), invalid_input);
    CHECK(evaluation_rank(res, balanced_partition(2)).variant == "plain");
    s.residual = false;
    const Network net = random_network(s, 3, 5);
    EvaluationOptions o;
    o.prime = 9;  // composite
    CHECK_THROWS_AS(evaluation_rank_graded(net, balanced_partition(2), o), invalid_input);
    o.prime = 7;  // prime, but not above d^L + 1 = 10
    CHECK_THROWS_AS(evaluation_rank_graded(net, balanced_partition(2), o), invalid_input);
    CHECK(evaluation_rank(net, balanced_partition(2), o).variant == "plain");
    // The dispatcher takes graded exactly where graded takes the prime: d^L + 1 < p.
    o.prime = 11;  // the smallest prime above d^L + 1 = 10
    const RankAnswer g11 = evaluation_rank_graded(net, balanced_partition(2), o);
    const RankAnswer a11 = evaluation_rank(net, balanced_partition(2), o);
    CHECK(a11.variant == g11.variant);
    CHECK(a11.value == g11.value);
    o.prime = 0;
    o.max_graded_degree = 8;  // d^L = 9 is over the limit
    CHECK_THROWS_AS(evaluation_rank_graded(net, balanced_partition(2), o), invalid_input);
    CHECK(evaluation_rank(net, balanced_partition(2), o).variant == "plain");
    CHECK(evaluation_variant_from_string("graded") == EvaluationVariant::graded);
    CHECK_THROWS_AS(evaluation_variant_from_string("fast"), invalid_input);
}

TEST_CASE("minor_sum: the minors the bound counts, a full-rank step's side and the last step's rank plus one") {
    // attention N=3 dx=2 L=2: rank 17 (1,2|3), f of degree 9.
    const Network net = random_network(seprank_test::attention_spec(3, 2, 2), 4);
    EvaluationOptions o;
    o.variant = EvaluationVariant::plain;
    o.start = 64;
    o.max_side = 64;
    const RankAnswer one = evaluation_rank(net, balanced_partition(3), o);  // one step, side 64
    REQUIRE(one.value == 17);
    CHECK(one.minor_sum == 18.0);
    o.start = 8;
    o.growth = 2;
    const RankAnswer grown = evaluation_rank(net, balanced_partition(3), o);  // 8, 16 full; 32 rank 17
    REQUIRE(grown.value == 17);
    CHECK(grown.minor_sum == 8.0 + 16.0 + 18.0);
    // the bound is minor_sum·D/p (D = 9) plus the prime's term
    CHECK(grown.failure_bound >= grown.minor_sum * 9.0 / static_cast<double>(grown.prime));
    // graded: each block below its cap adds its own; a block at its cap adds nothing
    o.variant = EvaluationVariant::graded;
    const RankAnswer g = evaluation_rank(net, balanced_partition(3), o);
    REQUIRE(g.value == 17);
    long below_cap = 0;
    const std::vector<long> caps = degree_block_caps(net.spec, balanced_partition(3));
    for (std::size_t a = 0; a < g.block_ranks.size() && a < caps.size(); ++a) below_cap += g.block_ranks[a] < caps[a];
    CHECK(g.minor_sum >= static_cast<double>(below_cap));
    CHECK(g.minor_sum > 0.0);
    // a block at its cap counts its side too (reaching the cap was a draw): N=2 dx=2 L=2
    // has every block at its cap in one step of side 64, so the sum is the rank itself
    const Network at_caps = random_network(seprank_test::attention_spec(2, 2, 2), 4);
    o.start = 64;
    const RankAnswer e = evaluation_rank(at_caps, balanced_partition(2), o);
    REQUIRE(e.kind == RankKind::exact);
    CHECK(e.minor_sum == static_cast<double>(e.value));
    CHECK(e.failure_bound == 0.0);  // exact all the same
}

TEST_CASE("a time budget ends the growth as an honest lower bound; one not reached changes nothing") {
    NetworkSpec s;
    s.tokens = 3;
    s.dim = 3;
    s.depth = 2;
    const Network net = random_network(s, 11);
    const Partition part = balanced_partition(3);
    for (EvaluationVariant v : {EvaluationVariant::plain, EvaluationVariant::graded}) {
        INFO("variant " << to_string(v));
        EvaluationOptions o;
        o.variant = v;
        const RankAnswer full = evaluation_rank(net, part, o);
        REQUIRE(full.converged);
        REQUIRE(full.stop == GrowthStop::none);
        REQUIRE(full.rows > first_side(o));  // it needs more than the first step
        o.max_seconds = 1e6;                  // never reached: the same run
        const RankAnswer roomy = evaluation_rank(net, part, o);
        CHECK(roomy.value == full.value);
        CHECK(roomy.evaluations == full.evaluations);
        CHECK(roomy.converged);
        CHECK(roomy.stop == GrowthStop::none);
        o.max_seconds = 1e-9;  // spent at once: the first step runs, the second is not started
        const RankAnswer cut = evaluation_rank(net, part, o);
        CHECK(cut.stop == GrowthStop::time_budget);
        CHECK(cut.stop_detail.empty());
        CHECK_FALSE(cut.converged);
        CHECK(cut.kind == RankKind::modular_lower_bound);
        CHECK(cut.failure_bound == 1.0);
        CHECK(cut.value <= full.value);
        CHECK(cut.evaluations < full.evaluations);
        CHECK(cut.note.find("time budget") != std::string::npos);
    }
    EvaluationOptions bad;
    for (double x : {-1.0, std::nan(""), HUGE_VAL}) {
        bad.max_seconds = x;
        CHECK_THROWS_AS(check_options(bad), invalid_input);
    }
}

TEST_CASE("log2_coefficient_bound bounds every entry of the integer coefficient flattening, rational weights included") {
    auto rng = seprank_test::rng_for("coefficient-bound");
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_depth = 2;
    lim.max_inputs_deep = 4;
    int checked = 0;
    for (int k = 0; k < 60; ++k) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(40)));
        if (rng.below(2) == 0)  // rational weights: a few denominators
            net.weights = map_weights<Rational>(net.weights, [&rng](const Rational& x) {
                return rng.below(3) == 0 ? Rational(x.num(), Integer(static_cast<long>(1 + rng.below(12)))) : x;
            });
        INFO("spec " << describe(s) << ", case " << k);
        const double bound = log2_coefficient_bound(net);
        CHECK(bound >= 1.0);
        // Λ = lcm(denominators)^{D_w} makes every coefficient an integer (D_w not too small),
        // and Λ·||f||_1 <= 2^bound
        Integer lcm(1);
        (void)map_weights<char>(net.weights, [&lcm](const Rational& x) {
            fmpz_lcm(lcm.get(), lcm.get(), fmpq_denref(x.get()));
            return char{0};
        });
        const long dw = fmpz_get_si(weight_degree(s).get()) + (s.embed_rank > 0 ? fmpz_get_si(output_degree(s).get()) : 0);
        Integer lambda(1);
        fmpz_pow_ui(lambda.get(), lcm.get(), static_cast<ulong>(dw));
        const QPoly f = expand(net);
        double l1 = 0;
        for (std::size_t t = 0; t < f.terms(); ++t) {
            fmpq_t scaled;
            fmpq_init(scaled);
            fmpq_mul_fmpz(scaled, f.coeff(t).get(), lambda.get());
            CHECK(fmpz_is_one(fmpq_denref(scaled)));
            l1 += std::fabs(fmpq_get_d(scaled));
            fmpq_clear(scaled);
        }
        if (l1 > 0) CHECK(std::log2(l1) <= bound);
        const SparseZMat c = flatten(expand(net), balanced_partition(s.tokens), s.tokens);
        double largest = 0;
        for (const auto& row : c.row)
            for (const auto& e : row) largest = std::max(largest, static_cast<double>(fmpz_bits(e.second.get())));
        CHECK(largest <= bound);
        checked += c.nnz() > 0;
    }
    CHECK(checked > 30);
}

TEST_CASE("log2_structure_bound: the coefficient sum of f at weights of absolute value <= h, for every such network") {
    auto rng = seprank_test::rng_for("structure-bound");
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_inputs_deep = 4;
    for (int k = 0; k < 40; ++k) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const long h = 1 + static_cast<long>(rng.below(6));
        INFO("spec " << describe(s) << ", h = " << h);
        const double bound = log2_structure_bound(ValidSpec(s), h);
        // any weights within h: their coefficient bound is at most the structure's
        const Network net = random_network(ValidSpec(s), rng.next(), h);
        CHECK(log2_coefficient_bound(net) <= bound);
        // every weight exactly h: the sum of |coefficients| of the expansion itself
        Network all_h = net;
        all_h.weights = map_weights<Rational>(net.weights, [h](const Rational&) { return Rational(Integer(h)); });
        const QPoly f = expand(all_h);
        const SparseZMat c = flatten(f, balanced_partition(s.tokens), s.tokens);
        double l1 = 0;
        for (const auto& row : c.row)
            for (const auto& e : row) l1 += std::fabs(fmpz_get_d(e.second.get()));
        if (l1 > 0) CHECK(std::log2(l1) <= bound);
    }
}

TEST_CASE("a drawn prime that divides a given weight is drawn again; the bound counts the prime; a given prime gets none") {
    // N = 4, dx = 1, L = 2: the generic rank (5) lies below the flattening's cap, so the
    // plain evaluation converges below the side and the cap: a probabilistic answer
    // (the first seed from 3 whose weights give f ≠ 0: a weight drawn 0 can kill it at dx = 1)
    NetworkSpec s = seprank_test::attention_spec(4, 1, 2);
    EvaluationOptions o;
    o.variant = EvaluationVariant::plain;
    std::uint64_t seed = 3;
    Network net = random_network(s, seed);
    RankAnswer first = evaluation_rank(net, balanced_partition(4), o);
    while (first.value == 0 && seed < 40) {
        net = random_network(s, ++seed);
        first = evaluation_rank(net, balanced_partition(4), o);
    }
    REQUIRE(first.value > 0);
    CHECK(first.value < flattening_cap(s, balanced_partition(4)));
    const std::uint64_t p = first.prime;
    REQUIRE(first.converged);
    CHECK(first.failure_bound > 0);
    CHECK(first.failure_bound < 1e-12);
    CHECK(first.note.find("divides a non-zero minor of f's coefficient flattening") != std::string::npos);
    // Q = p: every product through Q vanishes mod p, and f with it
    net.weights.layers[0].heads[0].Q = Dense<Rational>(1, 1, Rational(Integer(std::to_string(p))));
    const long exact = separation_rank(net, balanced_partition(4)).value;
    REQUIRE(exact > 0);
    const RankAnswer again = evaluation_rank(net, balanced_partition(4), o);
    CHECK(again.prime != p);
    CHECK(again.value == exact);
    o.variant = EvaluationVariant::graded;
    CHECK(evaluation_rank(net, balanced_partition(4), o).value == exact);
    // a prime given is taken as it is, and no bound covers it
    o.variant = EvaluationVariant::plain;
    o.prime = 1000003;
    const RankAnswer given = evaluation_rank(random_network(s, seed), balanced_partition(4), o);
    CHECK(given.prime == 1000003);
    CHECK(given.failure_bound == 1.0);
    CHECK(given.label() == "lower bound");
    CHECK(given.note.find("the prime was given, not drawn") != std::string::npos);
}

TEST_CASE("a growth step over the memory limit stops the growth as a lower bound, keeping the steps done") {
    NetworkSpec s;
    s.family = Family::fc;
    s.tokens = 2;
    s.dim = 6;
    s.depth = 2;
    s.block_degree = 3;
    s.widths = {40, 40};
    const double before = default_max_memory();
    for (EvaluationVariant v : {EvaluationVariant::plain, EvaluationVariant::graded}) {
        INFO("variant " << to_string(v));
        // plain: fc, a 2048-side matrix; graded: attention N=2 dx=4 L=3, blocks of sides up to hundreds
        const Network net = v == EvaluationVariant::plain ? random_network(s, 1) : random_network(seprank_test::attention_spec(2, 4, 3), 1);
        EvaluationOptions o;
        o.variant = v;
        o.max_side = 4096;
        const RankAnswer roomy = evaluation_rank(net, balanced_partition(2), o);
        set_default_max_memory(1 << 20, "the test's limit");
        RankAnswer tight;
        CHECK_NOTHROW(tight = evaluation_rank(net, balanced_partition(2), o));
        set_default_max_memory(before);
        REQUIRE(tight.note.find("for lack of memory") != std::string::npos);
        CHECK_FALSE(tight.converged);
        CHECK(tight.kind == RankKind::modular_lower_bound);
        CHECK(tight.failure_bound == 1.0);
        CHECK(tight.value > 0);
        CHECK(tight.value < roomy.value);
        CHECK(tight.note.find(": the test's limit)") != std::string::npos);  // the limit as its setter named it
        CHECK(tight.note.find("where memory stopped the growth") != std::string::npos);
        // the stop, structured: what and where, the note's words
        CHECK(tight.stop == GrowthStop::memory);
        CHECK(tight.stop_detail.rfind(v == EvaluationVariant::plain ? "growth stopped before side " : "growth stopped before block side ", 0) == 0);
        CHECK(tight.note.find(tight.stop_detail) != std::string::npos);
        CHECK(tight.engine_note.find("lack of memory") == std::string::npos);  // how, not why it stopped
        CHECK(roomy.stop == GrowthStop::none);
        CHECK(roomy.stop_detail.empty());
        // generic over the same growth: the stop comes through, named, not parsed from text
        GenericOptions g;
        g.method = GenericMethod::evaluation;
        g.variant = v;
        g.max_side = 4096;
        const NetworkSpec gs = v == EvaluationVariant::plain ? s : seprank_test::attention_spec(2, 4, 3);
        set_default_max_memory(1 << 20);
        RankAnswer gen;
        CHECK_NOTHROW(gen = generic_rank(gs, balanced_partition(2), g));
        set_default_max_memory(before);
        CHECK_FALSE(gen.converged);
        CHECK(gen.stop == GrowthStop::memory);
        CHECK(gen.note.find("evaluation " + gen.stop_detail + " while the rank still grew") != std::string::npos);
    }
    // the size limit: a stop of its own
    EvaluationOptions o;
    o.max_side = 8;
    const RankAnswer small = evaluation_rank(random_network(seprank_test::attention_spec(2, 4, 3), 1), balanced_partition(2), o);
    CHECK_FALSE(small.converged);
    CHECK(small.stop == GrowthStop::size_limit);
    CHECK(to_string(small.stop) == "size limit");
    CHECK_THROWS_AS(to_string(static_cast<GrowthStop>(9)), internal_error);
}

TEST_CASE("generic auto: a flattening whose expansion passes the memory limit gives way to the evaluation, same rank") {
    // attention with score degree 2, N = 2, dx = 2, L = 3: f is small enough for auto to
    // expand it, but a product on the way (7,380 × 7,380 terms, about 70 MiB) is not.
    const NetworkSpec s = seprank_test::stack_spec(2, 2, "attention:score-degree=2,attention:score-degree=2,attention:score-degree=2");
    GenericOptions g;
    g.max_side = 4096;
    const RankAnswer roomy = generic_rank(s, balanced_partition(2), g);
    CHECK(roomy.method == "flattening");
    const double before = default_max_memory();
    set_default_max_memory(50.0 * (1 << 20));
    RankAnswer tight;
    CHECK_NOTHROW(tight = generic_rank(s, balanced_partition(2), g));
    GenericOptions flat = g;
    flat.method = GenericMethod::flattening;
    CHECK_THROWS_AS(generic_rank(s, balanced_partition(2), flat), resource_limit);  // asked for by name: no fallback
    set_default_max_memory(before);
    CHECK(tight.method == "evaluation");
    CHECK(tight.note.rfind("auto: the flattening's expansion stopped (", 0) == 0);
    // the stopped attempt's time is counted: the evaluation expands nothing itself
    CHECK(tight.phases.expand > 0);
    CHECK(tight.seconds >= tight.phases.expand + tight.phases.matrix + tight.phases.rank);
    CHECK(tight.value == roomy.value);
    CHECK(tight.kind == roomy.kind);
}

TEST_CASE("generic_auto_flattens: the method generic's auto runs, by the estimate and the device") {
    const NetworkSpec small = seprank_test::attention_spec(2, 1, 2);
    GenericOptions g;
    g.trials = 1;
    CHECK(generic_auto_flattens(small, g));
    CHECK_FALSE(generic_auto_flattens(small, g, true));  // the GPU runs the evaluation
    CHECK(generic_rank(small, balanced_partition(2), g).method == "flattening");
    // just under the estimate: the evaluation, as generic's auto then runs it
    g.max_expand_bytes = estimate_expansion(small).bytes;
    CHECK(generic_auto_flattens(small, g));
    g.max_expand_bytes *= 0.999;
    CHECK_FALSE(generic_auto_flattens(small, g));
    CHECK(generic_rank(small, balanced_partition(2), g).method == "evaluation");
}

TEST_CASE("generic flattening asked for by name: the expansion is held to the process's memory limit, by its name") {
    // attention N = 3, dx = 2, L = 3: f estimated at about 36 MiB, under the 64 MiB auto
    // expands below, over the limit set here (a fixed 1 GiB was used, whatever --max-memory).
    GenericOptions flat;
    flat.method = GenericMethod::flattening;
    const seprank_test::MaxMemory tight(4.0 * (1 << 20), "--max-memory");
    try {
        (void)generic_rank(seprank_test::attention_spec(3, 2, 3), balanced_partition(3), flat);
        FAIL("not refused");
    } catch (const resource_limit& e) {
        const std::string m = e.what();
        CHECK(m.rfind("expansion refused: up to 201376 terms", 0) == 0);
        CHECK(m.find("over the limit of 0.00391 GiB (--max-memory); use the evaluation method") != std::string::npos);
    }
}

TEST_CASE("the growth reports its steps to the caller's progress observer: each side evaluated, then ranked") {
    NetworkSpec s;
    s.tokens = 3;
    s.dim = 3;
    s.depth = 2;
    const Network net = random_network(s, 11);
    for (EvaluationVariant v : {EvaluationVariant::plain, EvaluationVariant::graded}) {
        INFO("variant " << to_string(v));
        struct Report {
            std::uint64_t side;
            std::string detail;
        };
        std::vector<Report> seen;
        EvaluationOptions o;
        o.variant = v;
        RankAnswer r;
        {
            const ProgressScope scope([&seen](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
                CHECK(what == "evaluation side");
                CHECK(total == 0);  // the end is not known ahead
                seen.push_back({done, std::string(detail)});
            });
            r = evaluation_rank(net, balanced_partition(3), o);
        }
        REQUIRE(r.converged);
        REQUIRE(seen.size() >= 4);  // at least two steps, two reports each
        REQUIRE(seen.size() % 2 == 0);
        for (std::size_t i = 0; i < seen.size(); i += 2) {
            CHECK(seen[i].side == seen[i + 1].side);
            CHECK(seen[i].detail.find(": evaluating") != std::string::npos);
            CHECK(seen[i + 1].detail.find(": ranking") != std::string::npos);
            if (i > 0) CHECK(seen[i].side > seen[i - 1].side);
        }
        CHECK(seen.front().detail.find("rank") == seen.front().detail.find("ranking"));  // no step before the first
        CHECK(seen.back().side == static_cast<std::uint64_t>(r.rows));  // the last step is the answer's side
        CHECK(seen[2].detail.find("; rank ") != std::string::npos);  // the first step's rank, in the second's report
    }
    // No observer: nothing to report to, the same answer.
    CHECK(evaluation_rank(net, balanced_partition(3)).value == evaluation_rank(net, balanced_partition(3)).value);
}

namespace {

// A random point of the network's shape, entries below `bound` (≥ p exercises reduction).
Point<std::uint64_t> random_point(Rng& rng, const NetworkSpec& s, std::uint64_t bound) {
    Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(static_cast<std::size_t>(input_vars_per_token(s))));
    for (auto& t : x)
        for (auto& v : t) v = rng.below(bound);
    return x;
}

}  // namespace

TEST_CASE("batched evaluation = ModEvaluator, point by point, on every family and modulus") {
    auto rng = seprank_test::rng_for("batch-vs-scalar");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;  // residual, embedding, fc included; depth 0..2
    lim.max_tokens = 4;
    lim.max_dim = 3;
    const std::uint64_t primes[] = {2, 3, 5, 65537, 2305843009213693951ULL /* 2^61 − 1 */,
                                    9223372036854775783ULL /* largest prime < 2^63 */,
                                    18446744073709551557ULL /* largest prime < 2^64: scalar fallback */};
    for (int it = 0; it < seprank_test::iterations(80); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(100000)));
        const std::uint64_t p = it % 3 == 0   ? random_prime(rng, 62)
                                : it % 3 == 1 ? random_prime(rng, 20 + static_cast<unsigned>(rng.below(32)))  // IFMA range, where usable
                                              : primes[rng.below(std::size(primes))];
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p);
        ModEvaluator ref(net, p);
        ModBatchEvaluator batch(net, p);
        CHECK(batch.batched() == (p % 2 == 1 && p < (1ULL << 63)));
        CHECK(std::string(batch.kernel()) == ModBatchEvaluator::kernel_for(p));
        const std::size_t count = rng.below(3 * ModBatchEvaluator::lanes + 2);  // 0, partial and whole batches
        std::vector<std::uint64_t> flat;
        std::vector<std::uint64_t> expect;
        for (std::size_t q = 0; q < count; ++q) {
            const auto x = random_point(rng, s, rng.below(4) == 0 ? ~0ULL : p);
            for (const auto& t : x) flat.insert(flat.end(), t.begin(), t.end());
            expect.push_back(ref(x));
            CHECK(batch(x) == expect.back());
        }
        REQUIRE(flat.size() == count * batch.width());
        std::vector<std::uint64_t> got(count, 7);
        batch.evaluate(flat.data(), count, got.data());
        CHECK(got == expect);
    }
    NetworkSpec s;
    const Network net = random_network(s, 1, 5);
    CHECK_THROWS_AS(ModBatchEvaluator(net, 1), invalid_input);
    CHECK_THROWS_AS(ModBatchEvaluator(net, 7)(Point<std::uint64_t>(1, std::vector<std::uint64_t>(2))), invalid_input);
}

namespace {

ModBatchEvaluator with_simd(const char* value, const Network& net, std::uint64_t p) {
    const seprank_test::EnvVar env("SEPRANK_SIMD", value);
    return ModBatchEvaluator(net, p);
}

}  // namespace

// The vector kernels against the scalar Montgomery lanes (SEPRANK_SIMD=0) on the same
// points: the AVX-512 IFMA kernel (R = 2^52) where the processor has it, and the AVX2/FMA
// kernel (doubles, p < 2^50; SEPRANK_SIMD=avx2 selects it on an IFMA processor too), 16
// points per pass each. Primes from 3 to the largest below 2^52 (the edges of both
// kernels), entries up to 2^64 − 1 and the residues p − 1, p − 2, (p − 1)/2 whose products
// are the largest, counts that leave idle lanes. Where a kernel is not usable (build,
// processor) the test says so and compares the lanes with themselves.
TEST_CASE("vector kernels = Montgomery lanes, on every family, for primes below 2^52") {
    auto rng = seprank_test::rng_for("ifma-vs-montgomery");
    INFO("seed " << seprank_test::seed());
    const bool ifma = ModBatchEvaluator::simd_available();
    const bool avx2 = [] {
        const seprank_test::EnvVar env("SEPRANK_SIMD", "avx2");
        return std::string(ModBatchEvaluator::kernel_for(3)) == "avx2-fma";
    }();
    // Whether the caller's SEPRANK_SIMD leaves the AVX2/FMA kernel on for `fast` ("0": off).
    const bool avx2_default = std::string(ModBatchEvaluator::kernel_for(3)) == "avx2-fma";
    if (!ifma) MESSAGE("AVX-512 IFMA not usable here (build, processor or SEPRANK_SIMD)");
    if (!avx2) MESSAGE("AVX2/FMA not usable here (build or processor): comparing Montgomery with itself below 2^50");
    seprank_test::SpecLimits lim;
    lim.max_tokens = 4;
    lim.max_dim = 4;
    const std::uint64_t edge[] = {3,
                                  5,
                                  65537,
                                  4503599627370449ULL /* largest prime < 2^52 */,
                                  2251799813685119ULL /* largest < 2^51 */,
                                  1125899906842597ULL /* largest < 2^50 */,
                                  562949953421231ULL /* largest < 2^49 */};
    long compared = 0, compared_avx2 = 0;
    for (int it = 0; it < seprank_test::iterations(80); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(1000000)));
        const std::uint64_t p = it % 2 == 0 ? edge[rng.below(std::size(edge))] : random_prime(rng, 2 + static_cast<unsigned>(rng.below(51)));
        if (p == 2) continue;
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p);
        const ModBatchEvaluator fast(net, p);
        const ModBatchEvaluator lanes = with_simd("0", net, p);
        const ModBatchEvaluator forced = with_simd("avx2", net, p);
        const bool below50 = p < (std::uint64_t{1} << 50);
        CHECK(std::string(lanes.kernel()) == "montgomery");
        CHECK(std::string(fast.kernel()) == ModBatchEvaluator::kernel_for(p));
        CHECK(std::string(fast.kernel()) == (ifma ? "avx512-ifma" : avx2_default && below50 ? "avx2-fma" : "montgomery"));
        CHECK(std::string(forced.kernel()) == (avx2 && below50 ? "avx2-fma" : "montgomery"));
        const std::size_t count = rng.below(40);  // 0, partial and whole passes of 16
        std::vector<std::uint64_t> flat(count * fast.width());
        for (auto& v : flat) {
            const std::uint64_t kind = rng.below(6);
            v = kind == 0   ? ~0ULL - rng.below(3)
                : kind == 1 ? p - 1 - rng.below(2)
                : kind == 2 ? (p - 1) / 2
                            : rng.below(rng.below(2) == 0 ? p : ~0ULL);
        }
        std::vector<std::uint64_t> a(count, 1), b(count, 2), c(count, 3);
        fast.evaluate(flat.data(), count, a.data());
        lanes.evaluate(flat.data(), count, b.data());
        forced.evaluate(flat.data(), count, c.data());
        CHECK(a == b);
        CHECK(c == b);
        for (std::size_t q = 0; q < count; ++q) CHECK(a[q] < p);
        ++compared;
        if (std::string(forced.kernel()) == "avx2-fma") ++compared_avx2;
    }
    CHECK(compared > 0);
    if (avx2) CHECK(compared_avx2 > 0);
}

// a·b mod p and x^e mod p, for the roots of unity below.
std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t p) {
    __extension__ typedef unsigned __int128 u128;
    return static_cast<std::uint64_t>(static_cast<u128>(a) * b % p);
}
std::uint64_t pow_mod(std::uint64_t x, std::uint64_t e, std::uint64_t p) {
    std::uint64_t r = 1 % p;
    for (; e > 0; e >>= 1, x = mul_mod(x, x, p))
        if (e & 1) r = mul_mod(r, x, p);
    return r;
}

// A 62-bit prime p ≡ 1 mod M and an element of order exactly M.
std::pair<std::uint64_t, std::uint64_t> prime_with_roots(Rng& rng, std::uint64_t M) {
    std::uint64_t p = 0;
    do p = random_prime(rng, 62);
    while (p % M != 1);
    for (;;) {
        const std::uint64_t w = pow_mod(2 + rng.below(p - 3), (p - 1) / M, p);
        bool order = true;
        for (std::uint64_t q = 2; q <= M; ++q)
            if (M % q == 0 && pow_mod(w, M / q, p) == 1) order = false;
        if (order) return {p, w};
    }
}

TEST_CASE("token symmetry: scaling token k's inputs by a root of unity of order m multiplies f by its power r_k") {
    auto rng = seprank_test::rng_for("token-symmetry");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_tokens = 4;
    lim.max_dim = 3;
    lim.max_block_degree = 4;
    lim.max_block_degree_deep = 3;
    long checked = 0, beyond_parity = 0;
    for (int it = 0; it < seprank_test::iterations(160); ++it) {
        NetworkSpec s = seprank_test::random_spec(rng, lim);
        const FamilyInfo& info = family_info(s.family);
        if (info.per_position) s.position = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(output_positions(s))));
        const Network net = random_network(s, rng.next(), 1000);
        const Model model(s);
        const long m = model.token_modulus();
        const std::vector<long>& r = model.token_residues();
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " modulus " << m);
        REQUIRE(static_cast<long>(r.size()) == s.tokens);
        // the parities are the residues seen modulo 2, when −1 has an order dividing m
        CHECK(model.token_parities().empty() == (m != 0 && m % 2 == 1));
        // attention alone: the order is 2 (its token-sign parity) for s = 1, s + 1 in general
        if (s.family == Family::attention && s.depth > 0) CHECK(m == 2);  // depth 0: f = x_{i,p}, degrees fixed (m = 0)
        if (m == 1) continue;
        if (m > 2 || m == 0) ++beyond_parity;
        // a prime with a root of unity of order m (any non-zero scalar when m = 0: the degrees are fixed)
        std::uint64_t p = 0, w = 0;
        if (m == 0) {
            p = random_prime(rng, 62);
            w = 2 + rng.below(p - 3);
        } else {
            std::tie(p, w) = prime_with_roots(rng, static_cast<std::uint64_t>(m));
        }
        const ModEvaluator f(net, p);
        for (int trial = 0; trial < 2; ++trial) {
            const auto x = random_point(rng, s, p);
            const std::uint64_t fx = f(x);
            for (long k = 0; k < s.tokens; ++k) {
                auto y = x;
                for (auto& v : y[static_cast<std::size_t>(k)]) v = mul_mod(v, w, p);
                CAPTURE(k);
                CHECK(f(y) == mul_mod(fx, pow_mod(w, static_cast<std::uint64_t>(r[static_cast<std::size_t>(k)]), p), p));
                ++checked;
            }
        }
    }
    CHECK(checked > 0);
    CHECK(beyond_parity > 0);  // the draws reach orders other than 2
}

TEST_CASE("token symmetry: the order and residues each kind gives, folded over the layers") {
    auto stack = [](long n, long dx, const std::string& layers, long position = 1) {
        NetworkSpec s = seprank_test::stack_spec(n, dx, layers);
        s.position = position;
        return Model(ValidSpec(s));
    };
    auto is = [](const Model& mo, long m, std::vector<long> r) {
        CHECK(mo.token_modulus() == m);
        CHECK(mo.token_residues() == r);
    };
    is(stack(2, 1, "attention"), 2, {1, 0});                                              // parity
    is(stack(2, 1, "attention,attention", 2), 2, {0, 1});
    is(stack(2, 1, "attention:score-degree=2,attention:score-degree=2"), 3, {1, 0});      // 2^2 mod 3
    is(stack(3, 1, "attention:score-degree=2,attention:score-degree=2,attention:score-degree=2"), 3, {2, 0, 0});
    is(stack(2, 1, "attention:score-degree=3"), 4, {3, 0});
    is(stack(2, 1, "attention:score-degree=2,attention:score-degree=3"), 1, {0, 0});       // gcd(3, 4·2) = 1: none
    is(stack(2, 1, "mlp:power=2,attention"), 4, {2, 0});                                  // squares, then (s+1)·2
    is(stack(2, 1, "mlp:power=3"), 0, {3, 0});                                            // per token: the degrees fixed
    is(stack(2, 1, "hadamard:degree=4"), 3, {1, 0});                                      // tied: d − 1
    is(stack(2, 1, "hadamard:degree=3:free"), 1, {0, 0});                                 // free slots mix the tokens
    is(stack(3, 1, "mlp:power=2,conv:filter=2,conv:filter=2:power=1"), 2, {0, 0, 0});     // even before the mix
    is(stack(3, 1, "conv:filter=2,conv:filter=2:power=1"), 1, {0, 0, 0});
    is(stack(2, 1, "attention:score-degree=3:residual"), 2, {1, 0});                      // y + F(y): m | (s − 1)
}

namespace {

// The coefficients c_0..c_D of g(t) = f(x with token k's inputs times t) mod p, p ≡ 1 mod
// D + 1, by the discrete Fourier transform over the (D+1)-th roots of unity.
std::vector<std::uint64_t> token_degree_coefficients(const ModEvaluator& f, const Point<std::uint64_t>& x, long k, long D,
                                                     std::uint64_t p, std::uint64_t w) {
    const std::uint64_t M = static_cast<std::uint64_t>(D + 1);
    std::vector<std::uint64_t> g(M);
    for (std::uint64_t j = 0; j < M; ++j) {
        auto y = x;
        const std::uint64_t t = pow_mod(w, j, p);
        for (auto& v : y[static_cast<std::size_t>(k)]) v = mul_mod(v, t, p);
        g[j] = f(y);
    }
    const std::uint64_t inv_m = pow_mod(M % p, p - 2, p), w_inv = pow_mod(w, p - 2, p);
    std::vector<std::uint64_t> c(M, 0);
    for (std::uint64_t e = 0; e < M; ++e) {
        std::uint64_t acc = 0;
        const std::uint64_t step = pow_mod(w_inv, e, p);
        std::uint64_t z = 1;
        for (std::uint64_t j = 0; j < M; ++j, z = mul_mod(z, step, p)) acc = (acc + mul_mod(g[j], z, p)) % p;
        c[e] = mul_mod(acc, inv_m, p);
    }
    return c;
}

}  // namespace

TEST_CASE("degree floor: every monomial has at least token_floors()[k] in token k; attention's s^L is reached") {
    auto rng = seprank_test::rng_for("degree-floor");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_tokens = 3;
    lim.max_dim = 2;
    std::vector<NetworkSpec> specs;
    for (int it = 0; it < seprank_test::iterations(60); ++it) specs.push_back(seprank_test::random_spec(rng, lim));
    for (const char* layers : {"attention:score-degree=2,attention:score-degree=2", "mlp:power=2,attention:score-degree=2",
                               "hadamard:degree=2,attention:score-degree=3", "attention:score-degree=2:residual,attention",
                               "attention:score-degree=3,conv:filter=2:power=1", "attention:score-degree=2,hadamard:degree=2:free"})
        specs.push_back(seprank_test::stack_spec(2, 1, layers));
    long checked = 0, above_one = 0, reached = 0;
    for (NetworkSpec& s : specs) {
        const FamilyInfo& info = family_info(s.family);
        if (info.per_position) s.position = 1 + static_cast<long>(rng.below(static_cast<std::uint64_t>(output_positions(s))));
        const Model model{ValidSpec(s)};
        const Integer dz = output_degree(s);
        if (dz > Integer(60)) continue;
        const long D = fmpz_get_si(dz.get());
        const Network net = random_network(s, rng.next(), 1000);
        const std::vector<long>& fl = model.token_floors();
        INFO(network_to_json(net, -1) << " floors " << fl.size());
        REQUIRE(static_cast<long>(fl.size()) == s.tokens);
        // attention alone, no residual: the output token's floor is Π s_l, and some monomial has it
        bool attention_only = s.tokens >= 2 && s.depth >= 1 && !s.residual &&
                              (s.family == Family::attention || s.family == Family::stack);
        if (s.family == Family::stack)
            for (const auto& l : s.layers) {
                const auto* a = std::get_if<AttentionLayer>(&l);
                attention_only = attention_only && a != nullptr && !a->residual;
            }
        const auto [p, w] = prime_with_roots(rng, static_cast<std::uint64_t>(D + 1));
        const ModEvaluator f(net, p);
        for (long k = 0; k < s.tokens; ++k) {
            const long floor = fl[static_cast<std::size_t>(k)];
            CAPTURE(k);
            CAPTURE(floor);
            if (k + 1 != s.position) CHECK(floor == 0);
            if (floor > 1) ++above_one;
            bool at_floor = false;
            for (int trial = 0; trial < 2; ++trial) {
                const std::vector<std::uint64_t> c = token_degree_coefficients(f, random_point(rng, s, p), k, D, p, w);
                for (long e = 0; e < floor && e <= D; ++e) CHECK(c[static_cast<std::size_t>(e)] == 0);
                at_floor = at_floor || (floor <= D && c[static_cast<std::size_t>(floor)] != 0);
                ++checked;
            }
            if (attention_only && k + 1 == s.position) {
                CHECK(at_floor);
                ++reached;
            }
        }
    }
    CHECK(checked > 0);
    CHECK(above_one > 0);
    CHECK(reached > 0);
}

TEST_CASE("degree floor: what each kind gives, folded over the layers") {
    auto floors = [](long n, const std::string& layers, long position = 1) {
        NetworkSpec s = seprank_test::stack_spec(n, 1, layers);
        s.position = position;
        return Model(ValidSpec(s)).token_floors();
    };
    CHECK(floors(2, "attention") == std::vector<long>{1, 0});
    CHECK(floors(3, "attention:score-degree=2,attention:score-degree=2,attention:score-degree=2", 2) == std::vector<long>{0, 8, 0});
    CHECK(floors(2, "attention:score-degree=3,attention:score-degree=2") == std::vector<long>{6, 0});
    CHECK(floors(2, "mlp:power=2,attention:score-degree=2") == std::vector<long>{4, 0});
    CHECK(floors(2, "hadamard:degree=3,attention:score-degree=2") == std::vector<long>{2, 0});  // y^i ⊙ z keeps y^i's
    CHECK(floors(2, "attention:score-degree=2:residual,attention:score-degree=2") == std::vector<long>{2, 0});  // min(1, 2), then 2
    CHECK(floors(3, "attention:score-degree=2,conv:filter=2:power=1") == std::vector<long>{0, 0, 0});  // output 1 reads tokens 1, 2
    CHECK(floors(2, "attention:score-degree=2,fc:degree=1") == std::vector<long>{0, 0});
    NetworkSpec fam = seprank_test::attention_spec(3, 2, 3);
    fam.position = 3;
    CHECK(Model(ValidSpec(fam)).token_floors() == std::vector<long>{0, 0, 1});
}

TEST_CASE("graded evaluation: nodes an m-th root of unity apart mod p fall back to every degree, same answer") {
    // attention with score degree 2: order m = 3; mod 73, 8 = 8/1 is a cube root of unity
    // (8^3 = 7·73 + 1), so the nodes t = 1..8 of the 8 live degrees (4..25: the floor is 4) give a singular
    // Vandermonde matrix in t^3: the evaluation interpolates every degree instead.
    const NetworkSpec s = seprank_test::stack_spec(2, 1, "attention:score-degree=2,attention:score-degree=2");
    REQUIRE(Model(ValidSpec(s)).token_modulus() == 3);
    const Network net = random_network(s, 5, 20);
    EvaluationOptions o;
    o.prime = 73;
    o.variant = EvaluationVariant::graded;
    o.parity = true;
    const RankAnswer fell_back = evaluation_rank(net, balanced_partition(2), o);
    CHECK(fell_back.variant == "graded");  // the nodes of every degree
    o.parity = false;
    const RankAnswer ref = evaluation_rank(net, balanced_partition(2), o);
    CHECK(fell_back.value == ref.value);
    CHECK(fell_back.block_ranks == ref.block_ranks);
    o.prime = 0;  // a drawn 62-bit prime: the reduction applies
    o.parity = true;
    CHECK(evaluation_rank(net, balanced_partition(2), o).variant == "graded-parity");
}

TEST_CASE("graded evaluation: the parity reduction and batching change nothing but the work") {
    auto rng = seprank_test::rng_for("graded-parity-vs-unreduced");
    INFO("seed " << seprank_test::seed());
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const auto [s, net, part] = random_case(rng, true);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::graded;
        o.threads = 1 + static_cast<int>(rng.below(2));
        o.parity = false;
        o.batch = false;
        const RankAnswer ref = evaluation_rank(net, part, o);
        CHECK(ref.variant == "graded");
        o.parity = true;
        o.batch = true;
        const RankAnswer fast = evaluation_rank(net, part, o);
        const Model model(s);
        const bool floored = std::any_of(model.token_floors().begin(), model.token_floors().end(), [](long v) { return v > 0; });
        CHECK(fast.variant == (model.token_modulus() == 1 && !floored ? "graded" : "graded-parity"));
        REQUIRE(ref.converged);
        REQUIRE(fast.converged);
        CHECK(fast.value == ref.value);
        CHECK(fast.block_ranks == ref.block_ranks);  // the skipped blocks are 0 in the reference too
        CHECK(fast.evaluations <= ref.evaluations);
        o.variant = EvaluationVariant::plain;
        o.batch = false;
        const RankAnswer plain_ref = evaluation_rank(net, part, o);
        o.batch = true;
        const RankAnswer plain_fast = evaluation_rank(net, part, o);
        CHECK(plain_fast.value == plain_ref.value);  // same points, same matrix
        CHECK(plain_fast.value == ref.value);
    }
}

namespace {

// "block store DIR: X of Y units computed by this process ..." -> {X, Y}.
std::pair<long, long> store_units(const std::string& note) {
    const auto from = note.find("block store ");
    const auto at = from == std::string::npos ? from : note.find(": ", from);
    long x = -1, y = -1;
    if (at != std::string::npos) std::sscanf(note.c_str() + at + 2, "%ld of %ld", &x, &y);
    return {x, y};
}

bool same_answer(const RankAnswer& a, const RankAnswer& b) {
    return a.value == b.value && a.block_ranks == b.block_ranks && a.rows == b.rows && a.evaluations == b.evaluations &&
           a.converged == b.converged && a.failure_bound == b.failure_bound && a.prime == b.prime && a.variant == b.variant;
}

}  // namespace

TEST_CASE("bordered elimination = every step ranked from scratch: the same answers, plain and graded, any prime and growth") {
    auto rng = seprank_test::rng_for("evaluation-bordered-vs-scratch");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    long converged_runs = 0, compared = 0;
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const auto [s, net, part] = random_case(rng, true);
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = rng.below(2) ? EvaluationVariant::graded : EvaluationVariant::plain;
        o.threads = 1 + static_cast<int>(rng.below(2));
        // Small primes make unlucky (rank-deficient) steps likely; the graded variant needs p > D + 1.
        const unsigned bits = std::array<unsigned, 4>{12, 16, 31, 62}[rng.below(4)];
        o.prime = random_prime(rng, bits);
        o.growth = 1.05 + static_cast<double>(rng.below(100)) / 100.0;
        o.start = 1 + static_cast<long>(rng.below(8));
        o.max_side = o.start + static_cast<long>(rng.below(400));
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part) << " variant " << to_string(o.variant)
                          << " prime " << o.prime << " growth " << o.growth << " start " << o.start << " max side " << o.max_side);
        o.bordered = false;
        RankAnswer ref;
        try {
            ref = evaluation_rank(net, part, o);
        } catch (const invalid_input& e) {
            // A prime not above D + 1 for the graded variant: refused alike either way.
            o.bordered = true;
            CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }) == e.what());
            continue;
        }
        o.bordered = true;
        const RankAnswer fast = evaluation_rank(net, part, o);
        CHECK(same_answer(fast, ref));
        CHECK(fast.kind == ref.kind);
        CHECK(fast.note == ref.note);
        ++compared;
        converged_runs += ref.converged;
    }
    CHECK(compared >= 20);
    CHECK(converged_runs > 0);
}

TEST_CASE("graded evaluation through a block store = in memory, after an interruption, and shared by two runs") {
    auto rng = seprank_test::rng_for("graded-block-store");
    INFO("seed " << seprank_test::seed());
    int interrupted = 0;
    for (int it = 0; it < seprank_test::iterations(12); ++it) {
        const auto [s, net, part] = random_case(rng, false);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::graded;
        o.threads = 1 + static_cast<int>(rng.below(2));
        o.start = 1 + static_cast<long>(rng.below(20));
        o.growth = rng.below(2) ? 1.25 : 2.0;
        o.max_side = rng.below(4) == 0 ? 40 : 4096;  // sometimes stopped by the size limit
        o.parity = rng.below(2) == 1;
        const RankAnswer mem = evaluation_rank(net, part, o);
        CHECK(mem.note.find("block store") == std::string::npos);

        seprank_test::TempDir dir("seprank-store");
        o.store = dir.path + "/s";
        const RankAnswer fresh = evaluation_rank(net, part, o);
        CHECK(same_answer(fresh, mem));
        const auto [x1, y1] = store_units(fresh.note);
        CHECK(x1 == y1);  // all computed here
        CHECK(y1 > 0);
        const RankAnswer again = evaluation_rank(net, part, o);  // everything is in the store
        CHECK(same_answer(again, mem));
        CHECK(store_units(again.note) == std::pair<long, long>{0, y1});

        // Interrupted after a few polls, then resumed: the same answer, and the resumed run
        // computes only what the first one left.
        o.store = dir.path + "/t";
        int polls = 0;
        const int limit = 1 + static_cast<int>(rng.below(12));
        bool stopped = false;
        {
            CancelScope scope([&] { return ++polls > limit; }, 0.0);
            try {
                evaluation_rank(net, part, o);
            } catch (const cancelled&) {
                stopped = true;
            }
        }
        const RankAnswer resumed = evaluation_rank(net, part, o);
        CHECK(same_answer(resumed, mem));
        const auto [x2, y2] = store_units(resumed.note);
        CHECK(y2 == y1);
        interrupted += stopped;
        if (stopped) CHECK(x2 <= y2);
        else CHECK(x2 == 0);

        // Two runs on one store at once (threads here, processes in tests/cli_test.sh).
        o.store = dir.path + "/u";
        o.threads = 1;
        RankAnswer r1, r2;
        std::thread other([&] { r2 = evaluation_rank(net, part, o); });
        r1 = evaluation_rank(net, part, o);
        other.join();
        CHECK(same_answer(r1, mem));
        CHECK(same_answer(r2, mem));
        CHECK(store_units(r1.note).first + store_units(r2.note).first == y1);  // no unit twice
    }
    CHECK(interrupted > 0);  // the interruption really happened in some iterations
}

namespace {

// The names of the files in dir that start with `prefix`.
std::set<std::string> store_files(const std::string& dir, const std::string& prefix) {
    std::set<std::string> out;
    if (!std::filesystem::exists(dir)) return out;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        const std::string n = e.path().filename().string();
        if (n.rfind(prefix, 0) == 0 && n.find(".lock") == std::string::npos) out.insert(n);
    }
    return out;
}

}  // namespace

TEST_CASE("block store, bordered: the LU units are read, a damaged one is refused, a missing one is recomputed, none is left") {
    auto rng = seprank_test::rng_for("graded-block-store-bordered");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    int damaged = 0, converged_clean = 0;
    for (int it = 0; it < seprank_test::iterations(12); ++it) {
        const auto [s, net, part] = random_case(rng, false);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::graded;
        o.threads = 1 + static_cast<int>(rng.below(2));
        o.start = 1 + static_cast<long>(rng.below(8));
        o.growth = 1.25;
        o.bordered = false;
        const RankAnswer ref = evaluation_rank(net, part, o);  // in memory, every step from scratch
        o.bordered = true;
        seprank_test::TempDir dir("seprank-store");
        // A store written without bordering has no LU units; resumed with bordering, the same answer.
        o.store = dir.path + "/plain";
        o.bordered = false;
        const RankAnswer unbordered = evaluation_rank(net, part, o);
        CHECK(same_answer(unbordered, ref));
        CHECK(store_files(o.store, "l").empty());
        o.bordered = true;
        CHECK(same_answer(evaluation_rank(net, part, o), ref));
        // A whole bordered run: the same answer, and once converged no LU unit is left.
        o.store = dir.path + "/whole";
        const RankAnswer whole = evaluation_rank(net, part, o);
        CHECK(same_answer(whole, ref));
        if (whole.converged) {
            CHECK(store_files(o.store, "l").empty());
            ++converged_clean;
        }
        // One store advanced by runs interrupted after one more poll each time (a poll per
        // unit, done or not), until it holds the LU of a block at step t whose rank unit at
        // step t + 1 is still to come: removed (in a copy), the block is read from every
        // step's tiles and the answer is the same; damaged, it is refused (so it is read);
        // intact, the run goes on from it to the same answer.
        o.store = dir.path + "/cut";
        for (int limit = 1; limit < 2000; ++limit) {
            int polls = 0;
            bool finished = false;
            {
                CancelScope scope([&] { return ++polls > limit; }, 0.0);
                try {
                    evaluation_rank(net, part, o);
                    finished = true;
                } catch (const cancelled&) {
                }
            }
            std::string victim;
            for (const std::string& l : store_files(o.store, "l")) {
                const auto us = l.find('_');
                const long t = std::stol(l.substr(1, us - 1));
                if (store_files(o.store, "r" + std::to_string(t + 1) + l.substr(us)).empty()) victim = l;
            }
            if (victim.empty()) {
                if (finished) break;
                continue;
            }
            INFO("LU unit " << victim << " after a run of " << limit << " polls");
            const std::string path = o.store + "/" + victim;
            // One word damaged at a time (the side, the prime, a permutation entry, U's first
            // pivot, the last entry past p or one bit off, the checksum), and the file cut short: each
            // is refused, naming the unit.
            std::string good;
            {
                std::ifstream f(path, std::ios::binary);
                good.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
            }
            {  // A copy of the store without that unit: the block is read from every step's tiles.
                EvaluationOptions oc = o;
                oc.store = o.store + "-copy";
                std::filesystem::copy(o.store, oc.store, std::filesystem::copy_options::recursive);
                std::filesystem::remove(oc.store + "/" + victim);
                CHECK(same_answer(evaluation_rank(net, part, oc), ref));
            }
            // words: k, p, the k permutation entries, the k² entries, the checksum
            const std::size_t words = good.size() / 8;
            REQUIRE(words >= 5);
            std::size_t k = 1;
            while (3 + (k + 1) + (k + 1) * (k + 1) <= words) ++k;
            REQUIRE(3 + k + k * k == words);
            const std::size_t first_entry = 2 + k;
            std::uint64_t last_entry = 0;
            std::memcpy(&last_entry, good.data() + 8 * (words - 2), 8);
            const std::vector<std::pair<std::size_t, std::uint64_t>> hits = {
                {0, 0}, {1, 3}, {2, static_cast<std::uint64_t>(k)}, {first_entry, 0}, {words - 2, ~std::uint64_t{0}},
                {words - 2, last_entry ^ 1}, {words - 1, 0}};
            for (const auto& [word, value] : hits) {
                std::string bad = good;
                std::memcpy(bad.data() + 8 * word, &value, 8);
                std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
                const std::string msg = seprank_test::message_of([&] { evaluation_rank(net, part, o); });
                CHECK_MESSAGE(msg.find("unit " + victim + " is damaged") != std::string::npos, "word " << word << ": " << msg);
            }
            std::ofstream(path, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() - 8);
            CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("unit " + victim + " is damaged (size)") != std::string::npos);
            std::ofstream(path, std::ios::binary | std::ios::trunc) << good;  // intact: read, and the same answer
            CHECK(same_answer(evaluation_rank(net, part, o), ref));
            ++damaged;
            break;
        }
    }
    CHECK(damaged > 0);
    CHECK(converged_clean > 0);
}

TEST_CASE("a block store refuses another computation and damaged units") {
    const Network net = random_network(NetworkSpec{}, 7, 5);  // attention N=4, dx=2, L=1
    const Partition part = balanced_partition(4);
    seprank_test::TempDir dir("seprank-store");
    EvaluationOptions o;
    o.variant = EvaluationVariant::graded;
    o.store = dir.path + "/s";
    const RankAnswer a = evaluation_rank(net, part, o);
    o.seed = 2;  // other points: another computation
    CHECK_THROWS_AS(evaluation_rank(net, part, o), invalid_input);
    o.seed = 1;
    CHECK_THROWS_AS(evaluation_rank(random_network(NetworkSpec{}, 8, 5), part, o), invalid_input);  // other weights
    CHECK(same_answer(evaluation_rank(net, part, o), a));
    // An evaluation tile zeroed, or with one bit flipped in any of its words (entries or
    // checksums), is refused naming it once the ranks are read from it again: it had given
    // rank 0, or a rank above the generic one, as an answer. Restored: the same answer.
    {
        namespace fs = std::filesystem;
        const auto slurp = [](const fs::path& f) {
            std::ifstream in(f, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), {});
        };
        const auto drop_ranks = [&] {
            for (const auto& e : fs::directory_iterator(o.store)) {
                const std::string n = e.path().filename().string();
                if ((n[0] == 'r' || n[0] == 'l') && n.find(".lock") == std::string::npos) fs::remove(e.path());
            }
        };
        const fs::path tile = fs::path(o.store) / "e0_0";
        const std::string good = slurp(tile);
        REQUIRE(good.size() >= 16);
        std::vector<std::string> bads{std::string(good.size(), '\0')};
        for (std::size_t w = 0; w < good.size() / 8; w += std::max<std::size_t>(1, good.size() / 8 / 7)) {
            std::string bad = good;
            bad[8 * w + (w % 8)] ^= static_cast<char>(1 << (w % 8));
            bads.push_back(bad);
        }
        long refused = 0;
        for (std::size_t i = 0; i < bads.size(); ++i) {
            drop_ranks();
            std::ofstream(tile, std::ios::binary | std::ios::trunc) << bads[i];
            // Refused, or (a bit of the checksum of a block with no entries in the tile, which
            // nothing reads) the same answer: never another one.
            std::optional<RankAnswer> got;
            const std::string m = seprank_test::message_of([&] { got = evaluation_rank(net, part, o); });
            INFO("variant " << i << ": " << m);
            if (got) {
                CHECK(same_answer(*got, a));
            } else {
                CHECK(m.find("unit e0_0 is damaged (the checksum of block") != std::string::npos);
                ++refused;
            }
            if (i == 0) CHECK(!got);  // the zeroed tile
        }
        CHECK(refused * 2 > static_cast<long>(bads.size()));
        drop_ranks();
        std::ofstream(tile, std::ios::binary | std::ios::trunc) << good;
        CHECK(same_answer(evaluation_rank(net, part, o), a));
        // A store of the format before the checksums is said to be one.
        const fs::path meta = fs::path(o.store) / "meta";
        const std::string sig = slurp(meta);
        REQUIRE(sig.rfind("seprank graded evaluation 2;", 0) == 0);
        std::ofstream(meta, std::ios::binary | std::ios::trunc) << "seprank graded evaluation 1" << sig.substr(sig.find(';'));
        CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("was written in another format ('seprank graded evaluation 1'") !=
              std::string::npos);
        std::ofstream(meta, std::ios::binary | std::ios::trunc) << sig;
        CHECK(same_answer(evaluation_rank(net, part, o), a));
    }
    // A rank unit overwritten with garbage is refused, not believed.
    std::system(("for f in '" + o.store + "'/r0_*; do case $f in *.lock) ;; *) echo x > \"$f\";; esac; done").c_str());
    CHECK_THROWS_AS(evaluation_rank(net, part, o), invalid_input);
    // The plain variant does not use a store and says so.
    o.variant = EvaluationVariant::plain;
    CHECK(evaluation_rank(net, part, o).note.find("block store not used") != std::string::npos);
}

TEST_CASE("a store whose name holds a control character or a NUL is refused before anything is created") {
    namespace fs = std::filesystem;
    const Network net = random_network(NetworkSpec{}, 7, 5);
    const Partition part = balanced_partition(4);
    seprank_test::TempDir dir("seprank-store");
    // Each byte 0x01..0x1f and 0x7f, and NUL, in the store's own name and in its parent's.
    std::vector<std::string> bytes{std::string(1, '\0'), std::string(1, '\x7f')};
    for (int c = 1; c < 0x20; ++c) bytes.emplace_back(1, static_cast<char>(c));
    for (const std::string& b : bytes) {
        for (const std::string& store : {dir.path + "/s" + b + "t", dir.path + "/p" + b + "q/s"}) {
            INFO("byte " << static_cast<int>(static_cast<unsigned char>(b[0])) << " in '" << store << "'");
            EvaluationOptions o;
            o.variant = EvaluationVariant::graded;
            o.store = store;
            CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("contains a control character") != std::string::npos);
            GenericOptions g;
            g.method = GenericMethod::evaluation;
            g.trials = 1;
            g.store = store;
            CHECK(seprank_test::message_of([&] { generic_rank(seprank_test::attention_spec(4, 2, 1), part, g); }).find("contains a control character") !=
                  std::string::npos);
        }
        CHECK(fs::is_empty(dir.path));  // nothing made: "/s\0t" made "/s" before
    }
    // The same names without the byte are made.
    EvaluationOptions o;
    o.variant = EvaluationVariant::graded;
    o.store = dir.path + "/st";
    CHECK_NOTHROW(evaluation_rank(net, part, o));
    CHECK(fs::exists(dir.path + "/st/meta"));
}

TEST_CASE("a block store's rank unit is exactly the digits and newline written; a unit or meta that is no regular file is refused unread") {
    namespace fs = std::filesystem;
    const Network net = random_network(NetworkSpec{}, 7, 5);  // attention N=4, dx=2, L=1
    const Partition part = balanced_partition(4);
    seprank_test::TempDir dir("seprank-store");
    EvaluationOptions o;
    o.variant = EvaluationVariant::graded;
    o.store = dir.path + "/s";
    const RankAnswer a = evaluation_rank(net, part, o);
    const auto read = [](const fs::path& f) {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const auto write = [](const fs::path& f, const std::string& t) {
        fs::remove(f);
        std::ofstream(f, std::ios::binary) << t;
    };
    long units = 0;
    std::string unit;  // one of them
    for (const auto& e : fs::directory_iterator(o.store)) {
        const std::string name = e.path().filename().string();
        if (name[0] != 'r' || name.find(".lock") != std::string::npos) continue;
        const std::string t = read(e.path()), digits = t.substr(0, t.find(' '));
        // as written: the digits, a space, the checksum of "NAME DIGITS", a newline
        REQUIRE(t == std::to_string(std::stol(t)) + " " + detail::fnv1a_hex(name + " " + digits) + "\n");
        // Another unit's text copied over this one is damage too (when the ranks differ or not).
        const std::string other = (name == "r0_1" ? std::string("r0_3") : std::string("r0_1"));
        const std::string copied = digits + " " + detail::fnv1a_hex(other + " " + digits) + "\n";
        ++units;
        unit = name;
        // Each is the rank to strtol (the old reader), a rank without its checksum (the
        // format before it), another unit's, or another number: all damage.
        for (const std::string& bad : {" " + t, "+" + t, "0" + t, digits + " junk\n", digits + std::string(1, '\0'), digits, t + "\n",
                                       digits + "\r\n", "-" + t, std::string("abc\n"), std::string(100, '7') + "\n", digits + "\n",
                                       std::string("0\n"), copied, t.substr(0, t.size() - 1)}) {
            write(e.path(), bad);
            const std::string m = seprank_test::message_of([&] { evaluation_rank(net, part, o); });
            const bool refused = m.find("rank unit " + name + " is damaged") != std::string::npos ||
                                 m.find("unit '" + e.path().string() + "' is damaged") != std::string::npos;  // longer than a rank unit
            CHECK_MESSAGE(refused, "unit " << name << " holding '" << bad << "': " << m);
        }
        write(e.path(), t);
    }
    CHECK(units > 0);
    CHECK(same_answer(evaluation_rank(net, part, o), a));  // restored: believed again
    // A unit or the meta linked to a device is refused at once (it was read up to the memory limit).
    for (const std::string& name : {std::string("meta"), unit}) {
        const fs::path f = fs::path(o.store) / name;
        const std::string t = read(f);
        fs::remove(f);
        fs::create_symlink("/dev/zero", f);
        CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("is a device") != std::string::npos);
        write(f, t);
    }
    // A meta with more after its signature is refused too; intact, the same answer.
    const fs::path meta = fs::path(o.store) / "meta";
    const std::string sig = read(meta);
    write(meta, sig + "x\n");
    CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("holds more than") != std::string::npos);
    write(meta, sig);
    CHECK(same_answer(evaluation_rank(net, part, o), a));
    // Units without a meta (removed, or the folder copied without it) are of an unknown
    // computation: refused, not adopted under this one's signature; the store untouched.
    fs::remove(meta);
    CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, o); }).find("holds units") != std::string::npos);
    CHECK(!fs::exists(meta));
    write(meta, sig);
    CHECK(same_answer(evaluation_rank(net, part, o), a));
    // Only locks and dot files beside it (a run stopped before its first unit): a new meta.
    const fs::path fresh = fs::path(o.store).parent_path() / "fresh";
    fs::create_directories(fresh);
    write(fresh / "e0_0.lock", "");
    write(fresh / ".meta.tmp.abcdef", "x");
    EvaluationOptions f = o;
    f.store = fresh.string();
    CHECK(same_answer(evaluation_rank(net, part, f), a));
    CHECK(fs::exists(fresh / "meta"));
}

namespace {

// "block hints for H blocks: E final at their hint, F final at ..." -> {H, E, F}; zeros without the words.
std::array<long, 3> hint_counts(const std::string& note) {
    long h = 0, e = 0, up = 0, down = 0, f = 0;
    const auto at = note.find("block hints for ");
    if (at == std::string::npos) return {0, 0, 0};
    std::sscanf(note.c_str() + at, "block hints for %ld blocks: %ld final at their hint, %ld above it, %ld below it", &h, &e, &up, &down);
    const auto first = note.find(" final at the first side ranked", at);
    const auto semi = note.rfind("; ", first);
    if (first != std::string::npos && semi != std::string::npos) f = std::atol(note.c_str() + semi + 2);
    return {h, e, f};
}

}  // namespace

TEST_CASE("block hints steer the sides only: exact ones rank each block once, wrong ones grow on, the ranks are the same") {
    auto rng = seprank_test::rng_for("graded-block-hints");
    MESSAGE("seed " << seprank_test::seed());
    INFO("seed " << seprank_test::seed());
    long exact_runs = 0, low_runs = 0;
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        auto [s, net, part] = random_case(rng, false);
        if (it == 0) {  // one network with blocks of rank up to 40: hints that are too low surely grow
            s = seprank_test::attention_spec(3, 2, 3);
            net = random_network(s, rng.next());
            part = balanced_partition(3);
        }
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " partition " << to_string(part));
        EvaluationOptions o;
        o.seed = rng.next();
        o.variant = EvaluationVariant::graded;
        o.threads = 1 + static_cast<int>(rng.below(2));
        o.start = 1 + static_cast<long>(rng.below(20));
        o.growth = rng.below(2) ? 1.25 : 2.0;
        o.max_side = 1 << 20;
        o.bordered = rng.below(2) == 1;
        const RankAnswer ref = evaluation_rank(net, part, o);  // a 62-bit prime: other points give the same ranks
        REQUIRE(ref.converged);
        CHECK(hint_counts(ref.note) == std::array<long, 3>{0, 0, 0});
        long open = 0;  // blocks with a cap: the ones a hint can steer
        for (long c : degree_block_caps(s, part)) open += c > 0;

        // Exact hints: each block is ranked once, and the bound counts one minor per block.
        EvaluationOptions h = o;
        h.block_hints = ref.block_ranks;
        const RankAnswer exact = evaluation_rank(net, part, h);
        CHECK(exact.converged);
        CHECK(exact.block_ranks == ref.block_ranks);
        CHECK(exact.failure_bound <= ref.failure_bound);
        CHECK(exact.minor_sum <= ref.minor_sum);
        CHECK(hint_counts(exact.note) == std::array<long, 3>{open, open, open});
        CHECK(exact.hinted_blocks == open);
        CHECK(exact.hinted_equal == open);
        CHECK(exact.hinted_final == open);
        CHECK(exact.hinted_above == 0);
        CHECK(exact.hinted_below == 0);
        exact_runs += open > 0;

        // Hints past any side (a saturated table cell, a huge prediction): capped, the same ranks.
        h.block_hints.assign(ref.block_ranks.size(), LONG_MAX);
        const RankAnswer huge = evaluation_rank(net, part, h);
        CHECK(huge.converged);
        CHECK(huge.block_ranks == ref.block_ranks);

        // Exact hints and a size limit just below the sides they ask for: the jump shrinks to
        // fit, and the answer is a lower bound block by block (or converged below it).
        h.block_hints = ref.block_ranks;
        h.max_side = std::max(1L, exact.rows - 1);
        h.start = std::min(o.start, h.max_side);
        const RankAnswer tight = evaluation_rank(net, part, h);
        for (std::size_t a = 0; a < tight.block_ranks.size(); ++a) CHECK(tight.block_ranks[a] <= ref.block_ranks[a]);
        CHECK(tight.rows <= h.max_side);
        if (tight.converged) CHECK(tight.block_ranks == ref.block_ranks);
        h.max_side = o.max_side;
        h.start = o.start;

        // Wrong hints (too low, too high, missing, or a shorter list): the same ranks.
        h.block_hints.clear();
        const std::size_t n = it == 0 ? ref.block_ranks.size() : rng.below(ref.block_ranks.size() + 1);
        bool low = false;
        for (std::size_t a = 0; a < n; ++a) {
            const long r = ref.block_ranks[a];
            switch (rng.below(4)) {
                case 0: h.block_hints.push_back(-1); break;
                case 1: h.block_hints.push_back(0); low = low || r > 8; break;  // first ranked at side 8
                case 2: h.block_hints.push_back(r + static_cast<long>(rng.below(50))); break;
                default: h.block_hints.push_back(static_cast<long>(rng.below(1000))); break;
            }
        }
        const RankAnswer wrong = evaluation_rank(net, part, h);
        CHECK(wrong.converged);
        CHECK(wrong.block_ranks == ref.block_ranks);
        {  // the note counts each hinted block once, by where its final rank lies from its hint
            long hinted = 0, equal = 0, above = 0, below = 0;
            for (std::size_t a = 0; a < h.block_hints.size(); ++a)
                if (h.block_hints[a] >= 0 && degree_block_caps(s, part)[a] > 0) {
                    ++hinted;
                    equal += ref.block_ranks[a] == h.block_hints[a];
                    above += ref.block_ranks[a] > h.block_hints[a];
                    below += ref.block_ranks[a] < h.block_hints[a];
                }
            CHECK(wrong.hinted_blocks == hinted);
            CHECK(wrong.hinted_equal == equal);
            CHECK(wrong.hinted_above == above);
            CHECK(wrong.hinted_below == below);
            CHECK(hint_counts(wrong.note)[0] == hinted);
        }
        low_runs += low;

        // Through a block store, and bordered or not: the same answer as in memory with the
        // same hints; a store written with other hints is refused.
        seprank_test::TempDir dir("seprank-hints");
        h.store = dir.path + "/s";
        CHECK(same_answer(evaluation_rank(net, part, h), wrong));
        EvaluationOptions other = h;
        if (other.block_hints.empty()) other.block_hints = {7};
        else other.block_hints[0] += 7;
        CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, other); }).find("another computation") != std::string::npos);
        h.store.clear();
        h.bordered = !h.bordered;
        CHECK(same_answer(evaluation_rank(net, part, h), wrong));
    }
    CHECK(exact_runs > 0);
    CHECK(low_runs > 0);  // hints too low really made blocks grow on
}

TEST_CASE("block hints: a run stopped by its size limit ranks every open block at its last side; bad hints are refused") {
    const NetworkSpec s = seprank_test::attention_spec(3, 2, 3);
    const Network net = random_network(s, 5);
    const ValidPartition part = balanced_partition(3);
    EvaluationOptions o;
    o.variant = EvaluationVariant::graded;
    o.max_side = 1 << 20;
    const RankAnswer ref = evaluation_rank(net, part, o);
    REQUIRE(ref.converged);
    REQUIRE(ref.value > 40);
    // Hints far above the ranks, a size limit below them: the blocks are not left at 0.
    EvaluationOptions h = o;
    h.block_hints.assign(ref.block_ranks.size(), 100000);
    h.max_side = ref.rows / 2;
    const RankAnswer cut = evaluation_rank(net, part, h);
    CHECK(cut.value > 0);
    CHECK(cut.rows <= h.max_side);
    CHECK(cut.note.find("not ranked at their last side") == std::string::npos);  // a size stop ranks them all
    for (std::size_t a = 0; a < cut.block_ranks.size(); ++a) CHECK(cut.block_ranks[a] <= ref.block_ranks[a]);

    // A time budget that ends the run after its first step (the smallest target) leaves the
    // other hinted blocks at the ranks of smaller sides (here, never ranked: 0), and says so.
    h.max_side = 1 << 20;
    h.max_seconds = 1e-9;
    h.block_hints = ref.block_ranks;
    const RankAnswer timed = evaluation_rank(net, part, h);
    CHECK(!timed.converged);
    CHECK(timed.stop == GrowthStop::time_budget);
    CHECK(timed.note.find("hinted blocks not ranked at their last side (the time budget)") != std::string::npos);
    for (std::size_t a = 0; a < timed.block_ranks.size(); ++a) CHECK(timed.block_ranks[a] <= ref.block_ranks[a]);
    CHECK(timed.value < ref.value);
    h.max_seconds = 0;
    h.block_hints = {0, -2};
    CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, h); }) == "block hint -2 of block 1 must be a rank >= 0 (or -1: none)");
    h.block_hints.assign(ref.block_ranks.size() + 1, 1);
    CHECK(seprank_test::message_of([&] { evaluation_rank(net, part, h); }).find("block hints: " + std::to_string(ref.block_ranks.size() + 1) + " entries") == 0);
    // Hints and a size limit near LONG_MAX: the hinted side saturates (h + 8 + h/128 had
    // overflowed to a negative side, and the answer was rank 0 with no evaluation).
    h.block_hints.assign(ref.block_ranks.size(), std::numeric_limits<long>::max());
    h.max_side = std::numeric_limits<long>::max();
    const RankAnswer huge = evaluation_rank(net, part, h);
    CHECK(huge.value == ref.value);
    CHECK(huge.block_ranks == ref.block_ranks);
    // The plain variant's first side is checked against the memory limit before any point
    // is drawn (start = 2^62 had the process killed for memory)
    EvaluationOptions plain;
    plain.variant = EvaluationVariant::plain;
    plain.start = plain.max_side = 1L << 40;
    CHECK_THROWS_AS(evaluation_rank(net, part, plain), resource_limit);
    h.variant = EvaluationVariant::plain;
    h.block_hints = {1};
    CHECK(evaluation_rank(net, part, h).note.find("block hints not used (plain variant)") != std::string::npos);
}

TEST_CASE("generic: later trials take the earlier trials' block ranks as hints, the same answer") {
    const ValidSpec spec(seprank_test::attention_spec(4, 2, 2));
    const ValidPartition part = balanced_partition(4);
    GenericOptions g;
    g.method = GenericMethod::evaluation;
    g.trials = 3;
    g.max_side = 1 << 20;
    const RankAnswer r = generic_rank(spec, part, g);
    CHECK(r.converged);
    CHECK(r.trials == 3);
    CHECK(r.note.find("each later trial took the largest block ranks of the trials before as its hints") != std::string::npos);
    CHECK(r.note.find("given a hint") == std::string::npos);  // no caller's hints: nothing counted
    CHECK(r.hinted_blocks == 0);
    g.trials = 1;
    const RankAnswer one = generic_rank(spec, part, g);
    CHECK(one.value == r.value);
    CHECK(one.note.find("block hints") == std::string::npos);
    g.block_hints = one.block_ranks;
    const RankAnswer given = generic_rank(spec, part, g);
    CHECK(given.value == one.value);
    CHECK(given.failure_bound <= one.failure_bound);
    // the caller's hints counted once, in the first trial (not once per trial)
    CHECK(given.hinted_blocks > 0);
    CHECK(given.hinted_equal == given.hinted_blocks);
    CHECK(given.note.find(std::to_string(given.hinted_blocks) + " blocks given a hint (the first trial): " + std::to_string(given.hinted_blocks) +
                          " final at their hint, 0 above it, 0 below it") != std::string::npos);
    CHECK(given.note.find("certifies") == std::string::npos);
    g.trials = 3;
    const RankAnswer three = generic_rank(spec, part, g);
    CHECK(three.hinted_blocks == given.hinted_blocks);
    g.block_hints = {-3};
    CHECK(seprank_test::message_of([&] { check_options(g); }) == "block hint -3 of block 0 must be a rank >= 0 (or -1: none)");
}

TEST_CASE("to_string(EvaluationVariant) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<EvaluationVariant>({EvaluationVariant::automatic, EvaluationVariant::plain, EvaluationVariant::graded}, "EvaluationVariant", evaluation_variant_from_string);
}
