#include "seprank/columns.hpp"
#include "seprank/dimension.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/generic.hpp"
#include "seprank/separation.hpp"
#include "seprank/model.hpp"
#include "seprank/network.hpp"
#include "seprank/random.hpp"
#include "support.hpp"

#include <doctest/doctest.h>
#include <cmath>

#include <functional>
#include <set>

using namespace seprank;

TEST_CASE("a Model's facts are the spec's, derived once: every family, random specs") {
    auto rng = seprank_test::rng_for("model-facts");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    lim.max_tokens = 4;
    lim.max_dim = 3;
    lim.max_depth = 3;
    lim.max_width = 3;
    for (int it = 0; it < seprank_test::iterations(200); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        INFO("iteration " << it << ": " << describe(s));
        const Model m(s);
        CHECK(m.depth() == s.depth);
        CHECK(m.degree() == output_degree(s));
        CHECK(m.weight_degree() == weight_degree(s));
        CHECK(m.parameters() == parameter_count(s));
        Network net = random_network(s, 1, 1);  // the weights the parameter map varies, one by one
        CHECK(m.varied_parameters() == Integer(static_cast<long>(dimension_weight_entries(s, net.weights).size())));
        // the mask lines up with weight_entries, and what it leaves out is drawn as 0
        const std::vector<bool> mask = m.varied_mask();
        const std::vector<Rational*> entries = weight_entries(net.weights);
        REQUIRE(mask.size() == entries.size());
        long varied = 0;
        for (std::size_t k = 0; k < mask.size(); ++k) {
            varied += mask[k] ? 1 : 0;
            if (!mask[k]) CHECK(entries[k]->is_zero());
        }
        CHECK(Integer(varied) == m.varied_parameters());
        // draw_weights' stream: entry k uniform on [-range, range] in weight_entries order,
        // 0 where the mask says structural zero (the draw still taken)
        {
            const long range = 1 + static_cast<long>(rng.below(5));
            const std::uint64_t seed = rng.next();
            Weights w = m.draw_weights(seed, range);
            const std::vector<Rational*> drawn = weight_entries(w);
            REQUIRE(drawn.size() == mask.size());
            Rng ref(seed);
            for (std::size_t k = 0; k < drawn.size(); ++k) {
                const long x = ref.range(-range, range);
                CHECK(*drawn[k] == Rational(mask[k] ? x : 0));
            }
            m.check_weights(w);  // its own shapes pass
            CHECK_THROWS_AS(m.draw_weights(seed, 0), invalid_input);
            Weights fewer = w;
            fewer.layers.push_back({});
            CHECK_THROWS_WITH_AS(m.check_weights(fewer), doctest::Contains("layers, depth is"), invalid_input);
            // one column too many in the last matrix is named by its path
            Dense<Rational>* last = nullptr;
            for_each_dense(w, [&](Dense<Rational>& d) {
                if (!d.a.empty()) last = &d;
            });
            if (last != nullptr) {  // none at depth 0 without an embedding
                last->cols += 1;
                last->a.resize(static_cast<std::size_t>(last->rows * last->cols));
                CHECK_THROWS_WITH_AS(m.check_weights(w), doctest::Contains("expected"), invalid_input);
            }
        }
        // the structure bound over all outputs is the largest of the per-output ones
        {
            std::vector<std::pair<long, long>> outs;
            double most = 0;
            for (long i = 1; i <= m.output_positions(); ++i)
                for (long c = 1; c <= m.output_dim(); ++c) {
                    outs.push_back({i, c});
                    NetworkSpec at = s;
                    at.position = i;
                    at.coordinate = c;
                    most = std::max(most, log2_structure_bound(ValidSpec(at), 2));
                }
            CHECK(log2_structure_bound(m, 2, outs) == most);
        }
        // the expected count's parts sum to what expected_dimension subtracts
        for (const bool scalar : {true, false}) {
            const ExpectedDimension e = expected_dimension(s, scalar ? DimensionOutput::scalar : DimensionOutput::all);
            long total = 0;
            for (const auto& [what, v] : m.expected_losses(scalar)) total += v;
            CHECK(e.expected == std::max(0L, std::min(e.parameters - total, m.output_space(scalar))));
        }
        CHECK(m.output_dim() == output_dim(s));
        CHECK(m.output_positions() == output_positions(s));
        CHECK(m.homogeneous() == is_homogeneous(s));
        CHECK(m.token_parities() == token_parities(s));
        CHECK(m.input_vars_per_token() == input_vars_per_token(s));
        const std::vector<LayerSpec> layers = stack_layers(s);
        REQUIRE(m.layers().size() == layers.size());
        for (long l = 0; l < m.depth(); ++l) {
            const ModelLayer& ml = m.layers()[static_cast<std::size_t>(l)];
            CHECK(ml.layer == layers[static_cast<std::size_t>(l)]);
            CHECK(ml.degree == layer_degree(s, l));
            CHECK(ml.weight_increment == layer_weight_increment(s, l));
            CHECK(ml.parameters == layer_parameters(s, l));
            if (l > 0) {  // each layer reads what the one before writes
                CHECK(ml.tokens_in == m.layers()[static_cast<std::size_t>(l - 1)].tokens_out);
                CHECK(ml.width_in == m.layers()[static_cast<std::size_t>(l - 1)].width_out);
            }
        }
    }
}

TEST_CASE("a Model by hand: fc reads its tokens flattened; attention keeps the token signs") {
    NetworkSpec s;
    s.family = Family::fc;
    s.tokens = 2;
    s.dim = 2;
    s.depth = 2;
    s.block_degree = 2;
    s.widths = {3, 1};
    const Model fc(s);
    REQUIRE(fc.layers().size() == 2);
    CHECK(fc.layers()[0].tokens_in == 1);
    CHECK(fc.layers()[0].width_in == 4);  // N·dx
    CHECK(fc.layers()[0].width_out == 3);
    CHECK(fc.layers()[1].width_out == 1);
    CHECK(fc.parameters() == Integer(2 * 3 * 4 + 2 * 1 * 3));
    CHECK(fc.degree() == Integer(4));
    CHECK(fc.weight_degree() == Integer(2 * 2 + 2));  // D_1 = 2, D_2 = 2·2 + 2
    CHECK_FALSE(fc.sign_equivariant());
    CHECK(fc.output_positions() == 1);

    NetworkSpec a;
    a.tokens = 3;
    a.dim = 2;
    a.depth = 2;
    a.position = 2;
    const Model att(a);
    CHECK(att.sign_equivariant());
    CHECK(att.token_parities() == std::vector<int>{0, 1, 0});
    CHECK(att.degree() == Integer(9));
    CHECK(att.weight_degree() == Integer(3 * 4 + 4));
    CHECK(att.homogeneous());
    CHECK(att.varied_parameters() == att.parameters());
    NetworkSpec capped = a;  // attention rank 1: row 2 of each W^Q (2 entries a layer) is 0
    capped.attention_rank = 1;
    CHECK(Model(capped).varied_parameters() == Model(capped).parameters() - Integer(2 * 2));
    CHECK(att.output_degrees() == std::vector<long>{9});
    a.residual = true;
    CHECK_FALSE(Model(a).homogeneous());
    // y + F(y), F of degree 3: {1, 3}, then {1, 3} and the sums of three of them
    CHECK(Model(a).output_degrees() == std::vector<long>{1, 3, 5, 7, 9});
    // the monomials of those degrees in 6 variables, C(a + 5, 5): no even degree, no constant
    CHECK(Model(a).output_space(true) == 6 + 56 + 252 + 792 + 2002);
    CHECK(Model(a).output_space(false) == 3 * 2 * (6 + 56 + 252 + 792 + 2002));
    {
        NetworkSpec r;  // a residual layer of degree 1 keeps the degrees: (I + W2 W1) y
        r.family = Family::stack;
        r.tokens = 1;
        r.dim = 2;
        r.layers = parse_layers("mlp:power=2,mlp:power=1:residual");
        r.depth = 2;
        CHECK(Model(r).output_degrees() == std::vector<long>{2});
        CHECK(Model(r).output_space(true) == 3);
        r.layers = parse_layers("mlp:power=2:residual,mlp:power=3:residual");
        CHECK(Model(r).output_degrees() == std::vector<long>{1, 2, 3, 4, 5, 6});
        CHECK(Model(r).output_space(true) == 2 + 3 + 4 + 5 + 6 + 7);
        // past kListedDegrees the degrees are not listed: any of 1..D, the constant left out
        r.dim = 1;
        r.layers = *repeat_layers(parse_layers("mlp:power=2:residual"), 13);
        r.depth = 13;  // D = 2^13
        REQUIRE(Model(r).degree() == Integer(8192));
        CHECK(Model(r).output_degrees().empty());
        CHECK(Model(r).output_space(true) == 8192);
        r.layers = *repeat_layers(parse_layers("mlp:power=2:residual"), 12);
        r.depth = 12;  // D = 4096 = kListedDegrees: every degree 1..4096 listed
        CHECK(Model(r).output_degrees().size() == 4096);
        CHECK(Model(r).output_space(true) == 4096);
    }
    a.depth = 0;  // no layer: f = x_{i,p}, odd in token i alone
    const Model none(a);
    CHECK(none.layers().empty());
    CHECK(none.degree() == Integer(1));
    CHECK(none.output_dim() == 2);
    CHECK(none.token_parities() == std::vector<int>{0, 1, 0});
}

namespace {

// The monomials of degree e in the variables of `tokens` (`per` each) whose degree in
// token k is res[k−1] modulo m (m = 1: any; m = 0: exactly res[k−1]) and at least
// floors[k−1] (empty: no floor), counted one exponent vector at a time.
long brute_monomials(const std::vector<long>& tokens, long per, long m, const std::vector<long>& res, const std::vector<long>& floors,
                     long e) {
    const long nv = static_cast<long>(tokens.size()) * per;
    long count = 0;
    std::vector<long> x(static_cast<std::size_t>(nv), 0);
    const std::function<void(long, long)> rec = [&](long v, long left) {
        if (v == nv - 1 || nv == 0) {
            if (nv > 0) x[static_cast<std::size_t>(v)] = left;
            else if (left != 0) return;
            for (std::size_t t = 0; t < tokens.size(); ++t) {
                long deg = 0;
                for (long q = 0; q < per; ++q) deg += x[t * static_cast<std::size_t>(per) + static_cast<std::size_t>(q)];
                const std::size_t k = static_cast<std::size_t>(tokens[t] - 1);
                if (m == 0 ? deg != res[k] : m > 1 && deg % m != res[k] % m) return;
                if (!floors.empty() && deg < floors[k]) return;
            }
            ++count;
            return;
        }
        for (long k = 0; k <= left; ++k) {
            x[static_cast<std::size_t>(v)] = k;
            rec(v + 1, left - k);
        }
    };
    rec(0, e);
    return count;
}

}  // namespace

TEST_CASE("a Model's degree blocks: each side counted monomial by monomial, with and without the symmetry and floors") {
    auto rng = seprank_test::rng_for("model-blocks");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    lim.max_tokens = 4;
    lim.max_dim = 2;
    lim.max_depth = 2;
    lim.max_width = 2;
    int checked = 0;
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        INFO("iteration " << it << ": " << describe(s));
        const Model m(s);
        if (s.tokens < 2) continue;
        const ValidPartition part = balanced_partition(s.tokens);
        const DegreeBlockSides sides = m.degree_block_sides(part);
        if (!m.homogeneous() || m.degree() > Integer(12)) {
            if (!m.homogeneous()) CHECK(sides.a_side.empty());
            continue;
        }
        const long D = fmpz_get_si(m.degree().get());
        REQUIRE(sides.a_side.size() == static_cast<std::size_t>(D + 1));
        const std::vector<long> caps = m.degree_block_caps(part);
        for (const bool parity : {true, false}) {
            const DegreeBlockSides sd = m.degree_block_sides(part, kCapsMaxWork, parity);
            const long mod = parity ? m.token_modulus() : 1;
            const std::vector<long> floors = parity ? m.token_floors() : std::vector<long>{};
            for (long a = 0; a <= D; ++a) {
                CHECK(sd.a_side[static_cast<std::size_t>(a)] == brute_monomials(part->A, m.input_vars_per_token(), mod, m.token_residues(), floors, a));
                CHECK(sd.b_side[static_cast<std::size_t>(a)] ==
                      brute_monomials(part->B, m.input_vars_per_token(), mod, m.token_residues(), floors, D - a));
            }
        }
        for (long a = 0; a <= D; ++a)
            CHECK(caps[static_cast<std::size_t>(a)] == std::min(sides.a_side[static_cast<std::size_t>(a)], sides.b_side[static_cast<std::size_t>(a)]));
        CHECK(caps == degree_block_caps(s, part));  // the free function asks the Model
        CHECK(m.degree_block_sides(part, 1.0).a_side.empty());  // over the work limit: none
        ++checked;
    }
    CHECK(checked > 0);
    // a partition of other tokens is refused
    const Model m4(NetworkSpec{});
    CHECK_THROWS_AS(m4.degree_block_sides(balanced_partition(m4.spec().tokens + 2)), invalid_input);
}

TEST_CASE("degree blocks of deep networks: one token a side is linear in D, the token modulus thins the convolution") {
    // attention with score degree s = 2, N = 2, dx = 1: D = 5^L, and the allowed blocks run
    // from 2^L to 5^L in steps of 3, each of cap 1 (docs/conjectures.md §4): their number
    // (5^L − 2^L)/3 + 1 is the caps' sum. L = 7 (D = 78,125) had passed the work limit.
    NetworkSpec s;
    s.family = Family::stack;
    s.tokens = 2;
    s.dim = 1;
    for (long L : {3L, 7L, 8L}) {
        s.depth = L;
        s.layers = *repeat_layers(parse_layers("attention:score-degree=2"), L);
        const Model m(s);
        INFO("L = " << L);
        REQUIRE(m.token_modulus() == 3);
        const std::vector<long> caps = m.degree_block_caps(balanced_partition(2));
        REQUIRE(caps.size() == static_cast<std::size_t>(std::pow(5, L)) + 1);
        long sum = 0, first = -1;
        for (std::size_t a = 0; a < caps.size(); ++a) {
            CHECK(caps[a] <= 1);
            if (caps[a] > 0 && first < 0) first = static_cast<long>(a);
            sum += caps[a];
        }
        const long p5 = static_cast<long>(std::pow(5, L)), p2 = 1L << L;
        CHECK(first == p2);
        CHECK(sum == (p5 - p2) / 3 + 1);
        CHECK(m.flattening_cap(balanced_partition(2)) == sum);
    }
    // N = 3 with one token per side but one: the convolution's work is counted, so a limit
    // just under it gives no caps and one just over gives them
    s.tokens = 3;
    s.depth = 3;
    s.layers = *repeat_layers(parse_layers("attention:score-degree=2"), 3);
    const Model m3(s);
    const ValidPartition part = parse_partition("1,2|3", 3);
    const double d1 = 126.0, work = d1 * d1 / (2.0 * static_cast<double>(m3.token_modulus())) + 256.0 * d1;
    CHECK(m3.degree_block_sides(part, work * 0.999).a_side.empty());
    CHECK(m3.degree_block_sides(part, work * 1.001).a_side.size() == 126);
}

TEST_CASE("the flattening's cap: Σ cap_a when homogeneous, else the monomials the smaller side can have; never below the flattening") {
    auto rng = seprank_test::rng_for("flattening-cap");
    INFO("seed " << seprank_test::seed());
    seprank_test::SpecLimits lim;
    lim.min_tokens = 2;
    lim.max_tokens = 3;
    lim.max_dim = 2;
    lim.max_depth = 2;
    lim.max_width = 2;
    long mixed = 0, homogeneous = 0;
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Model m(s);
        if (m.degree() > Integer(12)) continue;
        INFO("iteration " << it << ": " << describe(s));
        const ValidPartition part = balanced_partition(s.tokens);
        const long cap = m.flattening_cap(part);
        REQUIRE(cap >= 0);
        CHECK(cap == flattening_cap(s, part));  // the free function asks the Model
        const long D = fmpz_get_si(m.degree().get());
        if (m.homogeneous()) {
            long sum = 0;
            for (long c : m.degree_block_caps(part)) sum += c;
            CHECK(cap == sum);
            ++homogeneous;
        } else {
            long a = 0, b = 0;
            for (long e = 0; e <= D; ++e) {
                a += brute_monomials(part->A, m.input_vars_per_token(), m.token_modulus(), m.token_residues(), m.token_floors(), e);
                b += brute_monomials(part->B, m.input_vars_per_token(), m.token_modulus(), m.token_residues(), m.token_floors(), e);
            }
            CHECK(cap == std::min(a, b));
            ++mixed;
        }
        // The flattening of drawn weights: its non-zero rows and columns within the sides'
        // counts (every degree's), its rank within the cap.
        const Network net = random_network(s, rng.next(), 7);
        const SparseZMat c = flatten(expand(net), part, s.tokens);
        std::set<long> cols;
        long rows = 0;
        for (const auto& r : c.row) {
            rows += r.empty() ? 0 : 1;
            for (const auto& e : r) cols.insert(e.first);
        }
        long side_a = 0, side_b = 0;
        for (long e = 0; e <= D; ++e) {
            side_a += brute_monomials(part->A, m.input_vars_per_token(), m.token_modulus(), m.token_residues(), m.token_floors(), e);
            side_b += brute_monomials(part->B, m.input_vars_per_token(), m.token_modulus(), m.token_residues(), m.token_floors(), e);
        }
        CHECK(rows <= side_a);
        CHECK(static_cast<long>(cols.size()) <= side_b);
        CHECK(separation_rank(net, part).value <= cap);
    }
    CHECK(mixed > 0);
    CHECK(homogeneous > 0);
    CHECK(Model(NetworkSpec{}).flattening_cap(balanced_partition(4), 1.0) == -1);  // over the work limit: unknown
}

TEST_CASE("a residual network whose rank reaches the flattening's cap is exact (generic and the plain evaluation)") {
    // N = 3, dx = 1, L = 2 with residual, 1|2,3: side A is x1 alone, of odd degree 1..9 by
    // the token symmetry: 5 rows for any weights, and the generic rank is 5
    NetworkSpec s = seprank_test::attention_spec(3, 1, 2);
    s.residual = true;
    const ValidPartition part = parse_partition("1|2,3", 3);
    CHECK(flattening_cap(s, part) == 5);
    for (const GenericMethod method : {GenericMethod::flattening, GenericMethod::evaluation}) {
        GenericOptions g;
        g.method = method;
        g.trials = 2;
        const RankAnswer r = generic_rank(s, part, g);
        CHECK(r.value == 5);
        CHECK(r.kind == RankKind::exact);
        CHECK(r.failure_bound == 0.0);
        CHECK(r.note.find("reached the flattening's cap") != std::string::npos);
    }
}
