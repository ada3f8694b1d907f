// Private: the forward pass of every family, written once over a "ring policy" R:
//   R::E                 element type (Rational, residue, double, QPoly, NmodPoly)
//   R::W                 weight type (already converted: Rational, residue, double)
//   E zero()             additive identity
//   E constant(long c)   the integer c as an element
//   E mul(a, b)          product (the only expensive operation for polynomials)
//   void add(acc, x)     acc += x
//   void axpy(acc, w, x) acc += w·x
//   bool is_zero(w)      weight is zero (its terms are skipped)
// Only the output coordinate p of position i is formed at the last layer, and linear
// attention is evaluated associatively (SPEC.md §5): Σ_j ⟨q_i,k_j⟩ v_j = (Σ_j v_j k_jᵀ) q_i
// when da ≤ N, so no product is formed twice.
#pragma once

#include "seprank/network.hpp"

#include <memory_resource>
#include <vector>

namespace seprank::detail {

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
        if (s_.family == Family::fc) return fc(y);
        const std::size_t i = static_cast<std::size_t>(s_.position - 1);
        const long p = s_.coordinate - 1;
        if (s_.depth == 0) return y[i][static_cast<std::size_t>(p)];
        for (long l = 0; l + 1 < s_.depth; ++l) y = layer(l, y);
        return last_layer(s_.depth - 1, y);
    }

private:
    // out = M x
    Vec lin(const Dense<W>& m, const Vec& x) {
        Vec out(mr_);
        out.reserve(static_cast<std::size_t>(m.rows));
        for (long a = 0; a < m.rows; ++a) out.push_back(dot_row(m, a, x));
        return out;
    }
    E dot_row(const Dense<W>& m, long a, const Vec& x) {
        E acc = r_.zero();
        for (long c = 0; c < m.cols; ++c)
            if (!r_.is_zero(m(a, c))) r_.axpy(acc, m(a, c), x[static_cast<std::size_t>(c)]);
        return acc;
    }

    VecList layer(long l, const VecList& y) {
        const auto& lw = w_.layers[static_cast<std::size_t>(l)];
        const std::size_t n = y.size();
        const std::size_t dx = static_cast<std::size_t>(s_.dim);
        VecList out(n, Vec(dx, r_.zero(), mr_), mr_);
        if (s_.family == Family::attention) {
            for (const auto& h : lw.heads) {
                VecList q(mr_), k(mr_), v(mr_);
                for (const auto& yj : y) {
                    q.push_back(lin(h.Q, yj));
                    k.push_back(lin(h.K, yj));
                    v.push_back(lin(h.V, yj));
                }
                const std::size_t da = static_cast<std::size_t>(h.Q.rows);
                VecList t(n, Vec(da, r_.zero(), mr_), mr_);  // t_i = Σ_j ⟨q_i,k_j⟩ v_j
                if (da <= n) {
                    // S = Σ_j v_j k_jᵀ (da×da), then t_i = S q_i: 2·N·da² products.
                    VecList S(da, Vec(da, r_.zero(), mr_), mr_);
                    for (std::size_t j = 0; j < n; ++j)
                        for (std::size_t a = 0; a < da; ++a)
                            for (std::size_t b = 0; b < da; ++b) r_.add(S[a][b], r_.mul(v[j][a], k[j][b]));
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t a = 0; a < da; ++a)
                            for (std::size_t b = 0; b < da; ++b) r_.add(t[i][a], r_.mul(S[a][b], q[i][b]));
                } else {
                    // Direct: 2·N²·da products.
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t j = 0; j < n; ++j) {
                            E g = r_.zero();
                            for (std::size_t a = 0; a < da; ++a) r_.add(g, r_.mul(q[i][a], k[j][a]));
                            for (std::size_t a = 0; a < da; ++a) r_.add(t[i][a], r_.mul(g, v[j][a]));
                        }
                }
                for (std::size_t i = 0; i < n; ++i) {
                    Vec o = lin(h.O, t[i]);
                    for (std::size_t c = 0; c < dx; ++c) r_.add(out[i][c], o[c]);
                }
            }
        } else {  // hadamard
            const Vec z = hadamard_mix(lw, y);
            for (std::size_t i = 0; i < n; ++i) {
                Vec u1 = lin(lw.W[0], y[i]);
                for (std::size_t a = 0; a < u1.size(); ++a) u1[a] = r_.mul(u1[a], z[a]);
                out[i] = lin(lw.O, u1);
            }
        }
        if (s_.residual)
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t c = 0; c < dx; ++c) r_.add(out[i][c], y[i][c]);
        return out;
    }

    // z = Σ_j ∏_{k≥2} W_k y_j (tied) or ∏_{k≥2} Σ_j W_k y_j (free); all-N vector when d = 1.
    Vec hadamard_mix(const LayerWeights<W>& lw, const VecList& y) {
        const std::size_t w = static_cast<std::size_t>(lw.W[0].rows);
        const std::size_t d = lw.W.size();
        if (d == 1) return Vec(w, r_.constant(static_cast<long>(y.size())), mr_);
        if (s_.free_slots) {
            Vec z(mr_);
            for (std::size_t k = 1; k < d; ++k) {
                Vec sum(w, r_.zero(), mr_);
                for (const auto& yj : y) {
                    Vec u = lin(lw.W[k], yj);
                    for (std::size_t a = 0; a < w; ++a) r_.add(sum[a], u[a]);
                }
                if (k == 1) z = std::move(sum);
                else for (std::size_t a = 0; a < w; ++a) z[a] = r_.mul(z[a], sum[a]);
            }
            return z;
        }
        Vec z(w, r_.zero(), mr_);
        for (const auto& yj : y) {
            Vec prod = lin(lw.W[1], yj);
            for (std::size_t k = 2; k < d; ++k) {
                Vec u = lin(lw.W[k], yj);
                for (std::size_t a = 0; a < w; ++a) prod[a] = r_.mul(prod[a], u[a]);
            }
            for (std::size_t a = 0; a < w; ++a) r_.add(z[a], prod[a]);
        }
        return z;
    }

    E last_layer(long l, const VecList& y) {
        const auto& lw = w_.layers[static_cast<std::size_t>(l)];
        const std::size_t i = static_cast<std::size_t>(s_.position - 1);
        const long p = s_.coordinate - 1;
        E acc = r_.zero();
        if (s_.family == Family::attention) {
            for (const auto& h : lw.heads) {
                // f = ⟨q_i, Σ_j s_j k_j⟩ with s_j = (row p of W^O W^V) · y_j: N·da + da products.
                const Vec q = lin(h.Q, y[i]);
                const std::size_t da = q.size();
                Dense<W> ov(1, h.V.cols, W{});
                for (long c = 0; c < h.V.cols; ++c) {
                    W sum = r_.weight_zero();
                    for (long a = 0; a < h.O.cols; ++a) sum = r_.weight_fma(sum, h.O(p, a), h.V(a, c));
                    ov(0, c) = sum;
                }
                Vec z(da, r_.zero(), mr_);
                for (const auto& yj : y) {
                    const E sj = dot_row(ov, 0, yj);
                    const Vec kj = lin(h.K, yj);
                    for (std::size_t a = 0; a < da; ++a) r_.add(z[a], r_.mul(sj, kj[a]));
                }
                for (std::size_t a = 0; a < da; ++a) r_.add(acc, r_.mul(q[a], z[a]));
            }
        } else {  // hadamard: f = Σ_a O(p,a) (W_1 y_i)_a z_a
            const Vec z = hadamard_mix(lw, y);
            const Vec u1 = lin(lw.W[0], y[i]);
            for (std::size_t a = 0; a < z.size(); ++a) {
                const W& o = lw.O(p, static_cast<long>(a));
                if (r_.is_zero(o)) continue;
                E t = r_.zero();
                r_.axpy(t, o, u1[a]);
                r_.add(acc, r_.mul(t, z[a]));
            }
        }
        if (s_.residual) r_.add(acc, y[i][static_cast<std::size_t>(p)]);
        return acc;
    }

    E fc(const VecList& tokens) {
        Vec v(mr_);
        for (const auto& t : tokens)
            for (const auto& x : t) v.push_back(x);
        const long p = s_.coordinate - 1;
        if (s_.depth == 0) return v[static_cast<std::size_t>(p)];
        for (long l = 0; l < s_.depth; ++l) {
            const auto& lw = w_.layers[static_cast<std::size_t>(l)];
            const bool last = l + 1 == s_.depth;
            const long rows = lw.W[0].rows;
            Vec next(mr_);
            for (long a = last ? p : 0; a < (last ? p + 1 : rows); ++a) {
                E prod = dot_row(lw.W[0], a, v);
                for (std::size_t k = 1; k < lw.W.size(); ++k) prod = r_.mul(prod, dot_row(lw.W[k], a, v));
                if (s_.residual) r_.add(prod, v[static_cast<std::size_t>(a)]);
                next.push_back(std::move(prod));
            }
            if (last) return std::move(next[0]);
            v = std::move(next);
        }
        return r_.zero();  // unreachable: depth >= 1 here
    }

    const NetworkSpec& s_;
    const NetWeights<W>& w_;
    R& r_;
    std::pmr::memory_resource* mr_;
};

}  // namespace seprank::detail
