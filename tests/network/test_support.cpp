// A network's support in chosen weights (src/network/support.hpp) against the support
// found by interpolating f(x; w(t)) mod p: every monomial found is in it, and for a chain
// of filters it is exactly the support.
#include "algebra/interpolation.hpp"
#include "algebra/polytope.hpp"
#include "network/support.hpp"
#include "seprank/columns.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "support.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <set>

using namespace seprank;
using Exps = std::set<std::vector<long>>;

namespace {

struct Slice {
    Network net;              // the drawn network: fixed weights at their values
    std::vector<long> free;   // the entries (weight_entries' order) that are the unknowns t_k
    NetWeights<long> roles;   // forward_support's roles
};

// forward_support's roles for net with the entries `free` (weight_entries' order) as t_k:
// the others fixed, or 0 where their drawn value is 0 and `zeros` says so.
NetWeights<long> roles_of(const Network& net, const std::vector<long>& free, bool zeros) {
    long idx = 0;
    return map_weights<long>(net.weights, [&](const Rational& x) {
        const long i = idx++;
        const auto it = std::find(free.begin(), free.end(), i);
        if (it != free.end()) return static_cast<long>(it - free.begin());
        return zeros && x.is_zero() ? detail::kWeightZero : detail::kWeightFixed;
    });
}

Slice make_slice(Rng& rng, const ValidSpec& spec, long n, long range = 5) {
    Slice s{random_network(spec, rng.next(), range), {}, {}};
    const auto entries = weight_entries(s.net.weights);
    std::vector<long> candidates;
    for (std::size_t i = 0; i < entries.size(); ++i)
        if (!entries[i]->is_zero()) candidates.push_back(static_cast<long>(i));
    for (long k = 0; k < n && !candidates.empty(); ++k) {
        const std::size_t pick = rng.below(candidates.size());
        s.free.push_back(candidates[pick]);
        candidates.erase(candidates.begin() + static_cast<long>(pick));
    }
    s.roles = roles_of(s.net, s.free, true);
    return s;
}

// The monomials in t with a nonzero coefficient mod p in f(x; w(t)) at a few points x.
Exps interpolated_support(Rng& rng, const Slice& s, long D, std::uint64_t p) {
    const long n = static_cast<long>(s.free.size());
    const long vars = input_vars_per_token(s.net.spec);
    std::vector<Point<std::uint64_t>> xs(3, Point<std::uint64_t>(static_cast<std::size_t>(s.net.spec.tokens), std::vector<std::uint64_t>(static_cast<std::size_t>(vars))));
    for (auto& x : xs)
        for (auto& tok : x)
            for (auto& c : tok) c = rng.below(p);
    const auto values = [&](const std::vector<std::uint64_t>& t, std::vector<std::uint64_t>& out) {
        Network at = s.net;
        const auto entries = weight_entries(at.weights);
        for (long k = 0; k < n; ++k) *entries[static_cast<std::size_t>(s.free[static_cast<std::size_t>(k)])] = Rational(static_cast<long>(t[static_cast<std::size_t>(k)]));
        const ModEvaluator ev(at, p);
        for (std::size_t j = 0; j < xs.size(); ++j) out[j] = ev(xs[j]);
    };
    const auto I = algebra_detail::interpolate_total_degree(n, D, static_cast<long>(xs.size()), p, values, rng);
    REQUIRE(I.ok);
    Exps found;
    for (std::size_t e = 0; e < I.mons.size(); ++e)
        for (long j = 0; j < static_cast<long>(xs.size()); ++j)
            if (I.C.at(static_cast<long>(e), j) != 0) found.insert(std::vector<long>(I.mons[e].begin(), I.mons[e].end()));
    return found;
}

// Whether m lies in conv(pts): the normalized volume of pts ∪ {m} ∪ {0} is that of pts ∪ {0}
// when it does, and larger when not (where pts ∪ {0} is full-dimensional; a set in a
// hyperplane is tested on its own: m then lies in it). Exact.
bool in_hull(std::vector<std::vector<long>> pts, const std::vector<long>& m, long n) {
    if (std::find(pts.begin(), pts.end(), m) != pts.end()) return true;
    pts.emplace_back(static_cast<std::size_t>(n), 0);
    const Integer v = algebra_detail::normalized_volume(pts, n);
    pts.push_back(m);
    if (v.is_zero()) return false;  // a set in a hyperplane: not decided here (the callers' sets are full)
    return algebra_detail::normalized_volume(pts, n) == v;
}

long weight_degree_bound(const NetworkSpec& s) {
    Integer d = weight_degree(s);
    if (s.embed_rank > 0) d = d + output_degree(s);
    return static_cast<long>(fmpz_get_si(d.get()));
}

}  // namespace

TEST_CASE("forward_support holds every monomial that interpolation finds, on random networks and slices") {
    INFO("seed " << seprank_test::seed());
    Rng rng(seprank_test::seed() ^ 0x737570ULL);
    seprank_test::SpecLimits lim;
    lim.max_depth = 2;
    lim.max_block_degree = 3;
    lim.max_block_degree_deep = 2;
    long tested = 0;
    for (int it = 0; it < 150; ++it) {
        const ValidSpec spec(seprank_test::random_spec(rng, lim));
        const long D = weight_degree_bound(spec);
        if (spec->depth == 0 && spec->embed_rank == 0) continue;  // no weights
        if (D > 14) continue;
        const long n = 1 + static_cast<long>(rng.below(3));
        const Slice s = make_slice(rng, spec, n);
        if (static_cast<long>(s.free.size()) < n) continue;
        INFO("iteration " << it << ": " << describe(spec) << ", free entries " << s.free.size());
        const std::uint64_t p = random_prime(rng, 31);
        const auto pts = detail::forward_support(spec, s.roles, n, D);
        const Exps sup(pts.begin(), pts.end());
        for (const auto& m : interpolated_support(rng, s, D, p)) {
            INFO("monomial of degree " << std::accumulate(m.begin(), m.end(), 0L));
            if (sup.size() <= static_cast<std::size_t>(detail::kThinAbove)) CHECK(sup.count(m) == 1);  // not thinned: the set itself
            else CHECK(in_hull(pts, m, n));                  // thinned: its hull
        }
        ++tested;
    }
    CHECK(tested > 40);
}

TEST_CASE("forward_support of a chain of filters is its support: d_j times a box, as docs/variety.md says") {
    // conv (2,2,2): free a_1, b_1, c_0, c_1 (the degree slice): c_j · a_1^i b_1^k, i <= 4, k <= 2
    NetworkSpec s;
    s.family = Family::stack;
    s.tokens = 4;
    s.dim = 1;
    s.layers = parse_layers("conv,conv,conv:power=1");
    s.depth = 3;
    const ValidSpec spec(s);
    Rng rng(seprank_test::seed());
    Slice sl = make_slice(rng, spec, 0, 1000000);  // fixed weights large: none 0, no coefficient cancels
    sl.free = {1, 3, 4, 5};
    sl.roles = roles_of(sl.net, sl.free, false);
    const auto pts = detail::forward_support(spec, sl.roles, 4, 7);
    const Exps sup(pts.begin(), pts.end());
    Exps want;
    for (long i = 0; i <= 4; ++i)
        for (long k = 0; k <= 2; ++k) {
            want.insert({i, k, 1, 0});
            want.insert({i, k, 0, 1});
        }
    CHECK(sup == want);
    CHECK(interpolated_support(rng, sl, 7, random_prime(rng, 31)) == want);
    // filters (2,2,2,2): 2·9·5·3 = 270 points, thinned on the way; the hull, and its
    // normalized volume 4!·(8·4·2) = 1,536, the degree, are kept
    NetworkSpec s4 = s;
    s4.tokens = 5;
    s4.layers = parse_layers("conv,conv,conv,conv:power=1");
    s4.depth = 4;
    const ValidSpec spec4(s4);
    Slice sl4 = make_slice(rng, spec4, 0, 1000000);
    sl4.free = {1, 3, 5, 6, 7};
    sl4.roles = roles_of(sl4.net, sl4.free, false);
    auto pts4 = detail::forward_support(spec4, sl4.roles, 5, 15);
    CHECK(pts4.size() < 270);
    for (const auto& m : interpolated_support(rng, sl4, 15, random_prime(rng, 31))) CHECK(in_hull(pts4, m, 5));
    pts4.emplace_back(5, 0);
    CHECK(algebra_detail::normalized_volume(pts4, 5) == Integer(1536));
    // limits: a product past the degree, keys past 2^62, bad roles
    CHECK_THROWS_AS(detail::forward_support(spec, sl.roles, 4, 5), resource_limit);
    CHECK_THROWS_AS(detail::forward_support(spec, sl.roles, 4, 1L << 20), resource_limit);
    CHECK_THROWS_AS(detail::forward_support(spec, sl.roles, 0, 7), invalid_input);
    NetWeights<long> bad = sl.roles;
    bad.layers[0].W[0].a[0] = 9;
    CHECK_THROWS_AS(detail::forward_support(spec, bad, 4, 7), invalid_input);
}
