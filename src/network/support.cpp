// seprank — a network's support in chosen weights, by the forward pass over sets of
// exponent vectors (support.hpp).
#include "network/support.hpp"

#include "algebra/polytope.hpp"
#include "network/forward_impl.hpp"
#include "seprank/error.hpp"

#include <algorithm>
#include <string>

namespace seprank::detail {
namespace {

// Sets of exponent vectors in n unknowns, each packed as Σ e_k·R^k (R = max_degree + 1),
// sorted and without repeats; the empty set is the zero polynomial.
struct SupportRing {
    using E = std::vector<std::uint64_t>;
    using W = std::vector<std::uint64_t>;
    long n = 0, max_degree = 0, max_points = 0;

    std::uint64_t radix() const { return static_cast<std::uint64_t>(max_degree) + 1; }
    E zero() const { return {}; }
    E constant(long c) const { return c != 0 ? E{0} : E{}; }
    long degree(std::uint64_t key) const {  // the digit sum, without unpacking
        long d = 0;
        for (long k = 0; k < n; ++k, key /= radix()) d += static_cast<long>(key % radix());
        return d;
    }
    long max_total_degree(const E& a) const {
        long d = 0;
        for (std::uint64_t x : a) d = std::max(d, degree(x));
        return d;
    }
    E unite(const E& a, const E& b) const {
        E out;
        out.reserve(a.size() + b.size());
        std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
        return thin(std::move(out));
    }
    E mul(const E& a, const E& b) const {
        if (a.empty() || b.empty()) return {};
        if (max_total_degree(a) + max_total_degree(b) > max_degree)
            throw resource_limit("the support passes total degree " + std::to_string(max_degree));
        E out;
        out.reserve(a.size() * b.size());
        for (std::uint64_t x : a)
            for (std::uint64_t y : b) out.push_back(x + y);  // no digit carries: every digit <= max_degree
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        return thin(std::move(out));
    }
    void add(E& acc, const E& x) const { acc = unite(acc, x); }
    void axpy(E& acc, const W& w, const E& x) const { acc = unite(acc, mul(w, x)); }
    bool is_zero(const W& w) const { return w.empty(); }
    W weight_zero() const { return {}; }
    W weight_fma(const W& s, const W& a, const W& b) const { return unite(s, mul(a, b)); }

    // Large sets keep only what their hull needs (drop_midpoints), then must fit max_points.
    E thin(E a) const {
        if (a.size() > static_cast<std::size_t>(kThinAbove)) {
            std::vector<std::vector<long>> pts;
            pts.reserve(a.size());
            for (std::uint64_t key : a) pts.push_back(unpack(key));
            E kept;
            for (const auto& v : algebra_detail::drop_midpoints(pts, n)) kept.push_back(pack(v));
            std::sort(kept.begin(), kept.end());
            a = std::move(kept);
        }
        if (static_cast<long>(a.size()) > max_points)
            throw resource_limit("the support has over " + std::to_string(max_points) + " points after thinning");
        return a;
    }
    std::vector<long> unpack(std::uint64_t key) const {
        std::vector<long> v(static_cast<std::size_t>(n));
        for (auto& e : v) {
            e = static_cast<long>(key % radix());
            key /= radix();
        }
        return v;
    }
    std::uint64_t pack(const std::vector<long>& v) const {
        std::uint64_t key = 0;
        for (long k = n - 1; k >= 0; --k) key = key * radix() + static_cast<std::uint64_t>(v[static_cast<std::size_t>(k)]);
        return key;
    }
};

}  // namespace

std::vector<std::vector<long>> forward_support(const ValidSpec& s, const NetWeights<long>& roles, long n, long max_degree, long max_points) {
    if (n < 1) throw invalid_input("forward_support: n = " + std::to_string(n) + " unknowns, expected at least 1");
    if (max_degree < 0) throw invalid_input("forward_support: max degree " + std::to_string(max_degree) + " is negative");
    SupportRing ring;
    ring.n = n;
    ring.max_degree = max_degree;
    ring.max_points = max_points;
    double keys = 1;
    for (long k = 0; k < n; ++k) keys *= static_cast<double>(ring.radix());
    if (keys >= 4.6e18) throw resource_limit("the support's keys: (" + std::to_string(ring.radix()) + ")^" + std::to_string(n) + " passes 2^62");
    const NetWeights<SupportRing::W> w = map_weights<SupportRing::W>(roles, [&](long role) -> SupportRing::W {
        if (role == kWeightZero) return {};
        if (role == kWeightFixed) return {0};
        if (role < 0 || role >= n) throw invalid_input("forward_support: role " + std::to_string(role) + " outside 0.." + std::to_string(n - 1));
        std::vector<long> e(static_cast<std::size_t>(n), 0);
        e[static_cast<std::size_t>(role)] = 1;
        return {ring.pack(e)};
    });
    const std::vector<std::vector<SupportRing::E>> inputs(static_cast<std::size_t>(s->tokens),
                                                          std::vector<SupportRing::E>(static_cast<std::size_t>(input_vars_per_token(s)), SupportRing::E{0}));
    const SupportRing::E out = Forward<SupportRing>(s.get(), w, ring).output(inputs);
    std::vector<std::vector<long>> pts;
    for (std::uint64_t key : out) pts.push_back(ring.unpack(key));
    return pts;
}

}  // namespace seprank::detail
