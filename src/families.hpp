// Private: every network family in one place (docs/network.md, "Adding a family").
//
// A family is a struct of static members, its traits:
//   info                          FamilyInfo (public): name, fixed block degree, the spec
//                                 fields it uses;
//   validate(s)                   its fields, after the common ones (invalid_input naming the
//                                 value; ends with check_coordinate);
//   output_dim(s)                 entries of the output vector (the range of coordinate p);
//   weight_degree_increment(s)    m, the weight matrices on one path of a block
//                                 (D_L = d·D_{L−1} + m);
//   layer_parameters(s, l)        parameters of layer l (0-based);
//   resize(lw, s)                 the lists (heads, W) of an empty layer;
//   for_each_matrix(s, l, lw, fn) fn(MatrixSlot, Dense&) for every matrix of layer l in file
//                                 order: random draws, shapes and the JSON layout follow it;
//   structural_zero(s, m, i, j)   whether entry (i, j) of matrix m is 0 by construction,
//   structural_zero_reason(s)     and why (random draws keep it 0, files must);
//   sign_equivariant(s)           whether negating one token's inputs negates that token's
//                                 layer outputs and leaves the others (docs/evaluation.md);
//   read_fields(in, s)            its JSON keys, through the SpecReader / SpecWriter
//   write_fields(out, s)          adapters of network.cpp (block_degree is read and written
//                                 there when the family leaves it free);
//   forward(f, y)                 the pass from the embedded tokens y to the output over any
//                                 ring policy: f is a detail::Forward (forward_impl.hpp).
// with_family(f, fn) is the one switch from a Family value to its traits; is_family the
// one that lists them. Both have no default, so -Wswitch names them when the enum grows.
//
// The forward steps are the hot loop of black-box evaluation: one with_family per pass,
// then plain static calls; no virtual call or std::function per operation.
#pragma once

// Every header included here (and in forward_impl.hpp) must also be included by
// forward_ifma.cpp before its `#pragma GCC target`, so that it is parsed for plain x86-64
// there; a header first parsed under the pragma would lend AVX code to shared symbols.
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// This header and forward_impl.hpp name their contents in an inline namespace that the
// includer may choose: forward_ifma.cpp compiles them for AVX-512 IFMA and defines
// SEPRANK_KERNEL_NS as `ifma`, so the inline functions it emits (validate, slot_path, ...)
// are its own symbols and never stand in for the plain x86-64 copies of the library.
#ifndef SEPRANK_KERNEL_NS
#define SEPRANK_KERNEL_NS base
#endif

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {

inline void require(bool ok, const std::string& msg) {
    if (!ok) throw invalid_input(msg);
}

inline std::string str(long v) { return std::to_string(v); }

// The coordinate p must index the output vector (shared by every family's validate).
inline void check_coordinate(const NetworkSpec& s, long out_dim) {
    require(s.coordinate >= 1 && s.coordinate <= out_dim,
            "coordinate p = " + str(s.coordinate) + " outside 1.." + str(out_dim));
}

inline void check_free_block_degree(const NetworkSpec& s) {
    require(s.block_degree >= 1, "block degree d = " + str(s.block_degree) + " must be at least 1");
    require(s.block_degree <= 64, "block degree d = " + str(s.block_degree) + " exceeds 64");
}

// One weight matrix of a layer: where it sits in the weights file and its shape.
// JSON path inside layers[l]: .list[index].key, .list[index] (no key) or .key (no list).
struct MatrixSlot {
    const char* list;       // key of the list holding it ("heads", "W"), or nullptr
    const char* list_noun;  // what that list holds, for messages ("heads", "matrices")
    long list_size;
    long index;             // position in that list
    const char* key;        // key inside the list element, or inside the layer; nullptr: the element
    long rows, cols;
};

// "layers[2].heads[0].Q", "layers[0].W[1]", "layers[1].O"
inline std::string slot_path(long layer, const MatrixSlot& m) {
    std::string p = "layers[" + str(layer) + "]";
    if (m.list) p += std::string(".") + m.list + "[" + str(m.index) + "]";
    if (m.key) p += std::string(".") + m.key;
    return p;
}

// ============================================================ attention
// y^{l+1,i} = Σ_h W^O_h Σ_j ⟨W^Q_h y^{l,i}, W^K_h y^{l,j}⟩ W^V_h y^{l,j}, degree 3.
struct Attention {
    static constexpr FamilyInfo info{Family::attention, "attention", /*fixed_block_degree=*/3, /*heads=*/true,
                                     /*width=*/false, /*widths=*/false, /*free_slots=*/false, /*per_position=*/true};

    static void validate(const NetworkSpec& s) {
        require(s.heads >= 1, "heads H = " + str(s.heads) + " must be at least 1");
        require(s.head_dim >= 0, "head dim da = " + str(s.head_dim) + " is negative");
        if (s.head_dim == 0)
            require(s.dim % s.heads == 0, "heads H = " + str(s.heads) + " does not divide dim dx = " + str(s.dim) +
                                              " (give the head dim explicitly)");
        require(s.block_degree == 3, "block degree d = " + str(s.block_degree) + " is not 3 for attention");
        require(s.attention_rank >= 0 && s.attention_rank <= head_dim(s),
                "attention rank k = " + str(s.attention_rank) + " outside 0.." + str(head_dim(s)));
        require(!s.free_slots, "free slots apply to hadamard blocks only");
        require(s.widths.empty(), "widths (a list, one per layer) apply to fc only, not to attention");
        require(s.width == 0, "width w = " + str(s.width) + " applies to hadamard only, not to attention");
        check_coordinate(s, output_dim(s));
    }
    static long output_dim(const NetworkSpec& s) { return s.dim; }
    static long weight_degree_increment(const NetworkSpec&) { return 4; }  // W^Q, W^K, W^V, W^O
    static Integer layer_parameters(const NetworkSpec& s, long) { return Integer(4 * s.dim * head_dim(s) * s.heads); }

    template <class T>
    static void resize(LayerWeights<T>& lw, const NetworkSpec& s) {
        lw.heads.resize(static_cast<std::size_t>(s.heads));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const NetworkSpec& s, long, LW& lw, Fn&& fn) {
        const long da = head_dim(s), dx = s.dim, H = s.heads;
        for (long h = 0; h < H; ++h) {
            auto& hw = lw.heads[static_cast<std::size_t>(h)];
            fn(MatrixSlot{"heads", "heads", H, h, "Q", da, dx}, hw.Q);
            fn(MatrixSlot{"heads", "heads", H, h, "K", da, dx}, hw.K);
            fn(MatrixSlot{"heads", "heads", H, h, "V", da, dx}, hw.V);
            fn(MatrixSlot{"heads", "heads", H, h, "O", dx, da}, hw.O);
        }
    }
    // Low-rank attention: rows k+1..da of W^Q are 0, so rank(W^Qᵀ W^K) ≤ k.
    static bool structural_zero(const NetworkSpec& s, const MatrixSlot& m, long row, long) {
        return s.attention_rank > 0 && row >= s.attention_rank && std::string_view(m.key) == "Q";
    }
    static std::string structural_zero_reason(const NetworkSpec& s) {
        return "attention rank " + str(s.attention_rank) + " keeps only the first rows of Q";
    }
    // Token-sign equivariance (docs/evaluation.md, "Parity"): negating token k's inputs
    // negates y^{l,k} and leaves every other y^{l,j}: ⟨q_i,k_j⟩ v_j carries sign ε_i ε_j².
    static bool sign_equivariant(const NetworkSpec&) { return true; }

    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.heads = in.required_long("heads", 1);
        in.optional_long("head_dim", s.head_dim, 1);
        in.optional_long("attention_rank", s.attention_rank, 0);
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        out.set("heads", s.heads);
        if (s.head_dim > 0) out.set("head_dim", s.head_dim);
        if (s.attention_rank > 0) out.set("attention_rank", s.attention_rank);
    }

    template <class F>
    static typename F::E forward(F& f, typename F::VecList& y) {
        return f.template token_stack<Attention>(y);
    }

    // One layer, residual not included. Linear attention is evaluated associatively
    // (docs/theory.md §4): Σ_j ⟨q_i,k_j⟩ v_j = (Σ_j v_j k_jᵀ) q_i when da ≤ N.
    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
        using Vec = typename F::Vec;
        using VecList = typename F::VecList;
        auto& r = f.ring();
        const std::size_t n = y.size();
        const std::size_t dx = static_cast<std::size_t>(f.spec().dim);
        VecList out = f.zeros(n, dx);
        for (const auto& h : lw.heads) {
            VecList q = f.list(), k = f.list(), v = f.list();
            for (const auto& yj : y) {
                q.push_back(f.lin(h.Q, yj));
                k.push_back(f.lin(h.K, yj));
                v.push_back(f.lin(h.V, yj));
            }
            const std::size_t da = static_cast<std::size_t>(h.Q.rows);
            VecList t = f.zeros(n, da);  // t_i = Σ_j ⟨q_i,k_j⟩ v_j
            if (da <= n) {
                // S = Σ_j v_j k_jᵀ (da×da), then t_i = S q_i: 2·N·da² products.
                VecList S = f.zeros(da, da);
                for (std::size_t j = 0; j < n; ++j)
                    for (std::size_t a = 0; a < da; ++a)
                        for (std::size_t b = 0; b < da; ++b) r.add(S[a][b], r.mul(v[j][a], k[j][b]));
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t a = 0; a < da; ++a)
                        for (std::size_t b = 0; b < da; ++b) r.add(t[i][a], r.mul(S[a][b], q[i][b]));
            } else {
                // Direct: 2·N²·da products.
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t j = 0; j < n; ++j) {
                        typename F::E g = r.zero();
                        for (std::size_t a = 0; a < da; ++a) r.add(g, r.mul(q[i][a], k[j][a]));
                        for (std::size_t a = 0; a < da; ++a) r.add(t[i][a], r.mul(g, v[j][a]));
                    }
            }
            for (std::size_t i = 0; i < n; ++i) {
                Vec o = f.lin(h.O, t[i]);
                for (std::size_t c = 0; c < dx; ++c) r.add(out[i][c], o[c]);
            }
        }
        return out;
    }

    // Coordinate p of position i of the last layer, residual not included:
    // f = ⟨q_i, Σ_j s_j k_j⟩ with s_j = (row p of W^O W^V) · y_j: N·da + da products per head,
    // or f = Σ_j s_j ⟨k_j, q_i⟩ when N < da: N·da + N.
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
        using E = typename F::E;
        using W = typename F::W;
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t i = static_cast<std::size_t>(f.spec().position - 1);
        const long p = f.spec().coordinate - 1;
        E acc = r.zero();
        for (const auto& h : lw.heads) {
            const Vec q = f.lin(h.Q, y[i]);
            const std::size_t da = q.size();
            Dense<W> ov(1, h.V.cols, W{});
            for (long c = 0; c < h.V.cols; ++c) {
                W sum = r.weight_zero();
                for (long a = 0; a < h.O.cols; ++a) sum = r.weight_fma(sum, h.O(p, a), h.V(a, c));
                ov(0, c) = sum;
            }
            if (y.size() < da) {
                // Fewer tokens than head coordinates: f = Σ_j s_j ⟨k_j, q⟩, N·da + N products
                // (the last N are the large ones when expanding: degree 3^{L−1} × 2·3^{L−1}).
                for (const auto& yj : y) {
                    const Vec kj = f.lin(h.K, yj);
                    E t = r.zero();
                    for (std::size_t a = 0; a < da; ++a) r.add(t, r.mul(kj[a], q[a]));
                    r.add(acc, r.mul(f.dot_row(ov, 0, yj), t));
                }
                continue;
            }
            Vec z = f.zeros(da);
            for (const auto& yj : y) {
                const E sj = f.dot_row(ov, 0, yj);
                const Vec kj = f.lin(h.K, yj);
                for (std::size_t a = 0; a < da; ++a) r.add(z[a], r.mul(sj, kj[a]));
            }
            for (std::size_t a = 0; a < da; ++a) r.add(acc, r.mul(q[a], z[a]));
        }
        return acc;
    }
};

// ============================================================ hadamard
// y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j}) (tied), or slots 2..d
// summed over independent tokens (free); degree d, W_k ∈ Q^{w×dx}, W^O ∈ Q^{dx×w}.
struct Hadamard {
    static constexpr FamilyInfo info{Family::hadamard, "hadamard", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/true, /*widths=*/false, /*free_slots=*/true, /*per_position=*/true};

    static void validate(const NetworkSpec& s) {
        check_free_block_degree(s);
        require(s.width >= 0, "width w = " + str(s.width) + " is negative");
        require(s.widths.empty(), "widths (a list) apply to fc; hadamard takes one width");
        require(s.attention_rank == 0, "attention rank applies to attention only");
        check_coordinate(s, output_dim(s));
    }
    static long output_dim(const NetworkSpec& s) { return s.dim; }
    static long weight_degree_increment(const NetworkSpec& s) { return s.block_degree + 1; }  // W_1..W_d, W^O
    static Integer layer_parameters(const NetworkSpec& s, long) {
        return Integer((s.block_degree + 1) * block_width(s) * s.dim);
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const NetworkSpec& s) {
        lw.W.resize(static_cast<std::size_t>(s.block_degree));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const NetworkSpec& s, long, LW& lw, Fn&& fn) {
        const long w = block_width(s), d = s.block_degree;
        for (long k = 0; k < d; ++k)
            fn(MatrixSlot{"W", "matrices", d, k, nullptr, w, s.dim}, lw.W[static_cast<std::size_t>(k)]);
        fn(MatrixSlot{nullptr, nullptr, 0, 0, "O", s.dim, w}, lw.O);
    }
    static bool structural_zero(const NetworkSpec&, const MatrixSlot&, long, long) { return false; }
    static std::string structural_zero_reason(const NetworkSpec&) { return {}; }
    // Tied slots carry the sign ε_i ε_j^{d−1} = ε_i when d is odd; d = 1 mixes nothing.
    // Free slots (d ≥ 2) and even d mix the tokens' signs.
    static bool sign_equivariant(const NetworkSpec& s) {
        return s.block_degree == 1 || (!s.free_slots && s.block_degree % 2 == 1);
    }

    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.width = in.required_long("width", 1);
        in.optional_bool("free", s.free_slots);
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        out.set("width", block_width(s));
        out.set("free", s.free_slots);
    }

    template <class F>
    static typename F::E forward(F& f, typename F::VecList& y) {
        return f.template token_stack<Hadamard>(y);
    }

    // z = Σ_j ∏_{k≥2} W_k y_j (tied) or ∏_{k≥2} Σ_j W_k y_j (free); all-N vector when d = 1.
    template <class F>
    static typename F::Vec mix(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t w = static_cast<std::size_t>(lw.W[0].rows);
        const std::size_t d = lw.W.size();
        if (d == 1) return Vec(w, r.constant(static_cast<long>(y.size())), f.mr());
        if (f.spec().free_slots) {
            Vec z = f.vec();
            for (std::size_t k = 1; k < d; ++k) {
                Vec sum = f.zeros(w);
                for (const auto& yj : y) {
                    Vec u = f.lin(lw.W[k], yj);
                    for (std::size_t a = 0; a < w; ++a) r.add(sum[a], u[a]);
                }
                if (k == 1) z = std::move(sum);
                else for (std::size_t a = 0; a < w; ++a) z[a] = r.mul(z[a], sum[a]);
            }
            return z;
        }
        Vec z = f.zeros(w);
        for (const auto& yj : y) {
            Vec prod = f.lin(lw.W[1], yj);
            for (std::size_t k = 2; k < d; ++k) {
                Vec u = f.lin(lw.W[k], yj);
                for (std::size_t a = 0; a < w; ++a) prod[a] = r.mul(prod[a], u[a]);
            }
            for (std::size_t a = 0; a < w; ++a) r.add(z[a], prod[a]);
        }
        return z;
    }

    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t n = y.size();
        typename F::VecList out = f.zeros(n, static_cast<std::size_t>(f.spec().dim));
        const Vec z = mix(f, lw, y);
        for (std::size_t i = 0; i < n; ++i) {
            Vec u1 = f.lin(lw.W[0], y[i]);
            for (std::size_t a = 0; a < u1.size(); ++a) u1[a] = r.mul(u1[a], z[a]);
            out[i] = f.lin(lw.O, u1);
        }
        return out;
    }

    // f = Σ_a O(p,a) (W_1 y_i)_a z_a, residual not included.
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
        using E = typename F::E;
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t i = static_cast<std::size_t>(f.spec().position - 1);
        const long p = f.spec().coordinate - 1;
        E acc = r.zero();
        const Vec z = mix(f, lw, y);
        const Vec u1 = f.lin(lw.W[0], y[i]);
        for (std::size_t a = 0; a < z.size(); ++a) {
            const auto& o = lw.O(p, static_cast<long>(a));
            if (r.is_zero(o)) continue;
            E t = r.zero();
            r.axpy(t, o, u1[a]);
            r.add(acc, r.mul(t, z[a]));
        }
        return acc;
    }
};

// ============================================================ fc
// v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l), v^0 = (x^1,…,x^N) flattened; degree d,
// W_k ∈ Q^{w_{l+1}×w_l}. One output vector: position i is 1.
struct Fc {
    static constexpr FamilyInfo info{Family::fc, "fc", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/false, /*widths=*/true, /*free_slots=*/false, /*per_position=*/false};

    static void validate(const NetworkSpec& s) {
        check_free_block_degree(s);
        require(s.widths.empty() || static_cast<long>(s.widths.size()) == s.depth,
                "fc widths list has " + str(static_cast<long>(s.widths.size())) + " entries, depth is " + str(s.depth));
        for (long w : s.widths) require(w >= 1, "fc width " + str(w) + " must be at least 1");
        require(s.width == 0, "fc takes a widths list, not one width");
        require(s.attention_rank == 0, "attention rank applies to attention only");
        require(!s.free_slots, "free slots apply to hadamard blocks only");
        check_coordinate(s, output_dim(s));
        require(s.position == 1,
                "position i = " + str(s.position) + ": fc has one output vector (choose its entry with coordinate p)");
        if (s.residual) {
            const auto w = layer_widths(s);
            for (std::size_t l = 1; l < w.size(); ++l)
                require(w[l] == w[l - 1], "residual fc needs equal widths; layer " + str(static_cast<long>(l)) +
                                              " maps " + str(w[l - 1]) + " to " + str(w[l]));
        }
    }
    static long output_dim(const NetworkSpec& s) { return layer_widths(s).back(); }
    static long weight_degree_increment(const NetworkSpec& s) { return s.block_degree; }  // W_1..W_d
    static Integer layer_parameters(const NetworkSpec& s, long l) {
        const auto w = layer_widths(s);
        return Integer(s.block_degree) * Integer(w[static_cast<std::size_t>(l + 1)]) * Integer(w[static_cast<std::size_t>(l)]);
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const NetworkSpec& s) {
        lw.W.resize(static_cast<std::size_t>(s.block_degree));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const NetworkSpec& s, long l, LW& lw, Fn&& fn) {
        const auto ws = layer_widths(s);
        const long d = s.block_degree;
        for (long k = 0; k < d; ++k)
            fn(MatrixSlot{"W", "matrices", d, k, nullptr, ws[static_cast<std::size_t>(l + 1)], ws[static_cast<std::size_t>(l)]},
               lw.W[static_cast<std::size_t>(k)]);
    }
    static bool structural_zero(const NetworkSpec&, const MatrixSlot&, long, long) { return false; }
    static std::string structural_zero_reason(const NetworkSpec&) { return {}; }
    // The first layer mixes all tokens' coordinates linearly: no per-token sign structure.
    static bool sign_equivariant(const NetworkSpec&) { return false; }

    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.widths = in.required_long_list("widths", 1);
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        const auto w = layer_widths(s);
        out.set("widths", std::vector<long>(w.begin() + 1, w.end()));
    }

    // Only entry p of the last layer is formed. (f.ring() and f.spec() are not kept in
    // locals: two more live pointers cost the inner loops their hoisted modulus.)
    template <class F>
    static typename F::E forward(F& f, typename F::VecList& tokens) {
        using E = typename F::E;
        using Vec = typename F::Vec;
        Vec v = f.vec();
        for (const auto& t : tokens)
            for (const auto& x : t) v.push_back(x);
        const long p = f.spec().coordinate - 1;
        if (f.spec().depth == 0) return v[static_cast<std::size_t>(p)];
        for (long l = 0; l < f.spec().depth; ++l) {
            const auto& lw = f.weights().layers[static_cast<std::size_t>(l)];
            const bool last = l + 1 == f.spec().depth;
            const long rows = lw.W[0].rows;
            Vec next = f.vec();
            for (long a = last ? p : 0; a < (last ? p + 1 : rows); ++a) {
                E prod = f.dot_row(lw.W[0], a, v);
                for (std::size_t k = 1; k < lw.W.size(); ++k) prod = f.ring().mul(prod, f.dot_row(lw.W[k], a, v));
                if (f.spec().residual) f.ring().add(prod, v[static_cast<std::size_t>(a)]);
                next.push_back(std::move(prod));
            }
            if (last) return std::move(next[0]);
            v = std::move(next);
        }
        return f.ring().zero();  // unreachable: depth >= 1 here
    }
};

// ============================================================ registry

// Calls fn with the traits object of family f (Attention{}, Hadamard{}, Fc{}).
template <class Fn>
decltype(auto) with_family(Family f, Fn&& fn) {
    static_assert(Attention::info.family == Family::attention && Hadamard::info.family == Family::hadamard &&
                  Fc::info.family == Family::fc);
    switch (f) {
        case Family::attention: return fn(Attention{});
        case Family::hadamard: return fn(Hadamard{});
        case Family::fc: return fn(Fc{});
    }
    throw internal_error("Family value " + std::to_string(static_cast<int>(f)) + " names no family");
}

// Whether f is one of the enumerators (all_families() lists 0, 1, … while this holds).
inline bool is_family(Family f) {
    switch (f) {
        case Family::attention:
        case Family::hadamard:
        case Family::fc: return true;
    }
    return false;
}

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
