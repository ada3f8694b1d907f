// Private: the forward pass of every family, written once over a "ring policy" R:
//   R::E                 element type (Rational, residue, double, QPoly, NmodPoly)
//   R::W                 weight type (already converted: Rational, residue, double)
//   E zero()             additive identity
//   E constant(long c)   the integer c as an element
//   E mul(a, b)          product (the only expensive operation for polynomials)
//   void add(acc, x)     acc += x
//   void axpy(acc, w, x) acc += w·x
//   bool is_zero(w)      weight is zero (its terms are skipped)
//   W weight_zero(), W weight_fma(s, a, b) = s + a·b   arithmetic on weights
// The steps of each layer kind are in layers.hpp (fc and power: families.hpp). Only the output coordinate p of position
// i is formed at the last layer, and linear attention is evaluated associatively
// (docs/theory.md §4): Σ_j ⟨q_i,k_j⟩ v_j = (Σ_j v_j k_jᵀ) q_i when da ≤ N, so no product is
// formed twice.
#pragma once

// New includes here must also go into forward_ifma.cpp's list before its pragma (see
// families.hpp).
#include "families.hpp"
#include "seprank/network.hpp"

#include <memory_resource>
#include <vector>

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {  // see layers.hpp

// The pass over ring R. Each layer kind's steps live with its traits in layers.hpp (fc's
// and power's in families.hpp); they use the public members below (spec, weights, ring,
// lin, dot_row and the vector makers).
template <class R>
class Forward {
public:
    using E = typename R::E;
    using W = typename R::W;
    // Every temporary vector lives in `mr`: numeric evaluators pass a per-call arena
    // (no malloc in the hot loop), polynomial expansion the default heap.
    using Vec = std::pmr::vector<E>;
    using VecList = std::pmr::vector<Vec>;

    Forward(const NetworkSpec& s, const NetWeights<W>& w, R& ring,
            std::pmr::memory_resource* mr = std::pmr::get_default_resource())
        : s_(s), w_(w), r_(ring), mr_(mr) {}

    // inputs[j][c]: token j, coordinate c of the network's variables (r per token when
    // embedded, dx otherwise). Returns coordinate p of position i of the output.
    E output(const std::vector<std::vector<E>>& inputs) {
        VecList y(mr_);
        y.reserve(inputs.size());
        for (const auto& x : inputs) {
            Vec v(x.begin(), x.end(), mr_);
            y.push_back(s_.embed_rank > 0 ? lin(w_.embedding, v) : std::move(v));
        }
        // One dispatch per pass; the family's steps are then direct calls.
        return with_network(s_, [&](auto net) -> E { return decltype(net)::forward(*this, y); });
    }

    const NetworkSpec& spec() const { return s_; }
    const NetWeights<W>& weights() const { return w_; }
    R& ring() { return r_; }
    std::pmr::memory_resource* mr() const { return mr_; }

    Vec vec() const { return Vec(mr_); }
    Vec zeros(std::size_t n) const { return Vec(n, r_.zero(), mr_); }
    VecList zeros(std::size_t n, std::size_t m) const { return VecList(n, Vec(m, r_.zero(), mr_), mr_); }
    VecList list() const { return VecList(mr_); }

    // out = M x
    Vec lin(const Dense<W>& m, const Vec& x) {
        Vec out(mr_);
        out.reserve(static_cast<std::size_t>(m.rows));
        for (long a = 0; a < m.rows; ++a) out.push_back(dot_row(m, a, x));
        return out;
    }
    // row a of M times x (a ring may provide its own dot_row, e.g. with delayed reduction)
    E dot_row(const Dense<W>& m, long a, const Vec& x) {
        if constexpr (requires { r_.dot_row(m, a, x.data()); }) return r_.dot_row(m, a, x.data());
        E acc = r_.zero();
        for (long c = 0; c < m.cols; ++c)
            if (!r_.is_zero(m(a, c))) r_.axpy(acc, m(a, c), x[static_cast<std::size_t>(c)]);
        return acc;
    }

private:
    const NetworkSpec& s_;
    const NetWeights<W>& w_;
    R& r_;
    std::pmr::memory_resource* mr_;
};

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
