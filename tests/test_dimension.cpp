// Functional dimension (dimension.hpp) against an independent reference over Q: the
// Jacobian of the network's output at rational points, each derivative read exactly off
// the interpolant of t ↦ F(w + t·e_j; x) through t = 0..D_L (forward.hpp's evaluate over
// Q, not the mod-p evaluator), ranked over Q with FLINT's fmpq_mat_rref.
#include "support.hpp"

#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/matrix.hpp"

#include <doctest/doctest.h>
#include <flint/fmpq_mat.h>

using namespace seprank;

namespace {

// Rank over Q of the Jacobian at net's weights, scalar output, at `points` random points.
long reference_rank(Network net, Rng& rng, long extra) {
    std::vector<Rational*> w = dimension_weight_entries(net.spec, net.weights);
    const long P = static_cast<long>(w.size());
    const long D = static_cast<long>(fmpz_get_si(weight_degree(net.spec).get()));
    const long npts = P + extra;
    const long vars = input_vars_per_token(net.spec);
    std::vector<Point<Rational>> pts;
    for (long s = 0; s < npts; ++s) {
        Point<Rational> pt(static_cast<std::size_t>(net.spec.tokens));
        for (auto& row : pt)
            for (long c = 0; c < vars; ++c) row.push_back(Rational(static_cast<long>(rng.below(41)) - 20));
        pts.push_back(std::move(pt));
    }
    QMat J(npts, P);
    for (long j = 0; j < P; ++j) {
        const Rational w0 = *w[static_cast<std::size_t>(j)];
        std::vector<std::vector<Rational>> ys(static_cast<std::size_t>(D + 1));
        for (long t = 0; t <= D; ++t) {
            *w[static_cast<std::size_t>(j)] = w0 + Rational(t);
            for (const auto& pt : pts) ys[static_cast<std::size_t>(t)].push_back(evaluate(net, pt));
        }
        *w[static_cast<std::size_t>(j)] = w0;
        // Newton divided differences on nodes 0..D; derivative at 0 of the Newton form.
        for (long s = 0; s < npts; ++s) {
            std::vector<Rational> dd;
            for (long t = 0; t <= D; ++t) dd.push_back(ys[static_cast<std::size_t>(t)][static_cast<std::size_t>(s)]);
            for (long k = 1; k <= D; ++k)
                for (long t = D; t >= k; --t)
                    dd[static_cast<std::size_t>(t)] = (dd[static_cast<std::size_t>(t)] - dd[static_cast<std::size_t>(t - 1)]) / Rational(k);
            // p(x) = sum_k dd[k] prod_{m<k} (x - m); p'(0) = sum_k dd[k] * d/dx prod at 0.
            Rational der(0);
            for (long k = 1; k <= D; ++k) {
                // d/dx prod_{m<k}(x-m) at 0 = prod_{m=1}^{k-1} (-m) (only the m=0 factor differentiated)
                Rational prod(1);
                for (long m = 1; m < k; ++m) prod = prod * Rational(-m);
                der = der + dd[static_cast<std::size_t>(k)] * prod;
            }
            J.set(s, j, der);
        }
    }
    QMat R(npts, P);
    return fmpq_mat_rref(R.get(), J.get());  // FLINT 2.9 has no fmpq_mat_rank; rref returns the rank
}

}  // namespace

TEST_CASE("dimension: the mod-p Jacobian rank equals the rank over Q at the same weights") {
    Rng rng = seprank_test::rng_for("dimension-reference");
    std::vector<NetworkSpec> specs;
    {
        NetworkSpec s; s.tokens = 2; s.dim = 1; s.depth = 1; specs.push_back(s);
        s.tokens = 2; s.dim = 2; s.depth = 1; specs.push_back(s);
        s.tokens = 3; s.dim = 2; s.depth = 1; specs.push_back(s);
        s.tokens = 2; s.dim = 1; s.depth = 2; specs.push_back(s);
    }
    for (int it = 0; it < seprank_test::iterations(2); ++it) {
        for (const auto& s : specs) {
            Network net = random_network(s, rng.next(), 3);
            DimensionOptions o;
            o.weights = net.weights;
            o.seed = rng.next();
            const RankAnswer a = function_dimension(s, o);
            const long ref = reference_rank(net, rng, 6);
            INFO("seed " << seprank_test::seed() << " N=" << s.tokens << " dx=" << s.dim << " L=" << s.depth);
            CHECK(a.value == ref);
            CHECK(a.cols == dimension_parameters(s));
            CHECK(a.value <= a.cols);
            CHECK(a.kind == RankKind::generic);
        }
    }
}

TEST_CASE("dimension: zero weights give a Jacobian of rank below the generic one") {
    NetworkSpec s; s.tokens = 2; s.dim = 2; s.depth = 1;
    Network net = random_network(s, 7, 3);
    DimensionOptions o;
    const RankAnswer g = function_dimension(s, o);
    for (auto* x : weight_entries(net.weights)) *x = Rational(0);
    o.weights = net.weights;
    const RankAnswer z = function_dimension(s, o);
    Rng rng3(3);
    CHECK(z.value == reference_rank(net, rng3, 4));
    CHECK(z.value < g.value);
}

TEST_CASE("dimension: bad options and weights of the wrong shape are invalid_input") {
    NetworkSpec s; s.tokens = 2; s.dim = 2;
    DimensionOptions o;
    o.trials = 0;
    CHECK_THROWS_AS(function_dimension(s, o), invalid_input);
    CHECK_THROWS_AS(dimension_output_from_string("some"), invalid_input);
    DimensionOptions w;
    NetworkSpec t = s; t.dim = 3;
    w.weights = random_network(t, 1, 2).weights;
    CHECK_THROWS_AS(function_dimension(s, w), invalid_input);
}
