// Private: every layer kind's traits (docs/network.md, "Stacks"; docs/development.md,
// "Adding a layer kind"): attention, mlp and hadamard here, conv, fc and dense in
// layers_power.hpp, and the registry below; stack.hpp folds them over a network's layers.
// A kind is a struct of static members, its traits, keyed by its field struct S of
// include/seprank/network.hpp (a LayerSpec alternative); `in` is the Shape it reads:
//   name, keys(sp, fn)            as in SPEC, JSON "kind" and Python; fn(key, long&|bool&)
//                                 per field in SPEC order (SPEC "head-dim", JSON "head_dim");
//   validate(sp, s, l)            its fields (invalid_input naming the value); s.dim 0: sizes unknown;
//   out(sp, in, l)                the Shape it writes (invalid_input when it cannot read in);
//   flattens(sp)                  it reads its n tokens as one vector (fc, dense); (optional)
//   unused(sp)                    a field it never reads and why ({"", ""}: none; unused_fields);
//   degree(sp), weight_increment(sp)   d_l and m_l (D_l = d_l·D_{l−1} + m_l);
//   parameters(sp, in), bottleneck(sp, in)   its weights; the span its output can fill;
//   resize, for_each_matrix(sp, in, lw, fn), structural_zero(_reason), structural_zeros
//                                 its matrices in file order, and those 0 by construction;
//   token_character(sp)           one token's scaling by a root of unity, and the degree
//                                 kept in it (TokenCharacter, layer_common.hpp; evaluation.md);
//   mixes_tokens(sp)              whether an output token reads other tokens; linear_output(sp)
//     whether it writes through a linear map (GL(n) acts at its junction with a next layer);
//   product_of_forms(sp)          d when each output entry is a product of d forms (fc);
//   row_scales(sp, in, last, at_p)   rows whose scaling the next layer undoes (RowScales,
//                                 layer_common.hpp; conv, dense, fc), and its rows unread at p;
//   count(sp, in, n_in, last, scalar_last, read)   its share of the expected dimension
//                                 (read: the directions of its output the rest reads);
//   rows_read(sp, in, scalar_last)   its input maps' rows on all its tokens together (in.w of them
//                                 at most independent), or read at p (a row per tap, per token block);
//   as_family(sp, t, l, L)        whether it is a family's block, filling t (family_form);
//   layer(f, lw, sp, y), last_layer(f, lw, sp, y)   its forward map over any ring policy.
#pragma once

#include "layer_common.hpp"
#include "layers_power.hpp"  // conv, fc, dense

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {  // see layer_common.hpp

// ============================================================ attention
// y^i ← Σ_h W^O_h Σ_j ⟨W^Q_h y^i, W^K_h y^j⟩^s W^V_h y^j. Degree 2s+1; s = 1 runs the
// attention family's own (associative) code.
struct AttentionKind {
    using S = AttentionLayer;
    static constexpr const char* name = "attention";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("heads", sp.heads), fn("head-dim", sp.head_dim), fn("score-degree", sp.score_degree);  // in SPEC order
        fn("rank", sp.rank), fn("residual", sp.residual);
    }
    static long head_dim(const S& sp, long dx) { return sp.head_dim > 0 ? sp.head_dim : dx / sp.heads; }
    static void validate(const S& sp, const NetworkSpec& s, long l) {
        check_layer_size(sp.heads, l, "heads H", 1);
        require(sp.head_dim >= 0, "layer " + str(l + 1) + ": head dim da = " + str(sp.head_dim) + " is negative");
        check_layer_size(sp.head_dim, l, "head dim da", 0);
        const bool sized = s.dim > 0 || sp.head_dim > 0;  // else only the rank's sign can be checked
        require(!(sp.head_dim == 0 && s.dim > 0 && s.dim % sp.heads != 0), "layer " + str(l + 1) + ": heads H = " + str(sp.heads) +
                                                                                 " does not divide dim dx = " + str(s.dim) + " (give head-dim)");
        check_layer_size(sp.score_degree, l, "score degree s", 1);
        require(sp.score_degree <= 32, "layer " + str(l + 1) + ": score degree s = " + str(sp.score_degree) + " exceeds 32");
        require(sp.rank >= 0 && (!sized || sp.rank <= head_dim(sp, s.dim)),
                "layer " + str(l + 1) + ": attention rank k = " + str(sp.rank) + " outside 0.." + (sized ? str(head_dim(sp, s.dim)) : "da"));
    }
    static long degree(const S& sp) { return 2 * sp.score_degree + 1; }
    // The most dimensions its output (less a residual) can span: the heads' H·da.
    static long bottleneck(const S& sp, Shape in) { return sp.heads * head_dim(sp, in.w); }
    // O·(Q y_i · K y_j)^s·V y_j: 1 + s(1 + D) + s(1 + D) + (1 + D) = (2s+1)·D + 2s + 2.
    static long weight_increment(const S& sp) { return 2 * sp.score_degree + 2; }
    static Integer parameters(const S& sp, Shape in) { return Integer(4 * in.w * head_dim(sp, in.w) * sp.heads); }
    static TokenCharacter token_character(const S& sp) { return {sp.score_degree + 1, sp.score_degree, sp.score_degree}; }  // s·e_i + (s+1)·e_j; ⟨Q y^i, ·⟩^s
    static bool mixes_tokens(const S&) { return true; }
    static bool flattens(const S&) { return false; }
    static Shape out(const S&, Shape in, long) { return in; }
    static bool linear_output(const S&) { return true; }  // W^O
    static long product_of_forms(const S&) { return 0; }
    static RowScales row_scales(const S&, Shape, bool, bool) { return {}; }  // W^O mixes the heads: none proven
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        const long dx = in.w;
        const long da = head_dim(sp, dx);
        return attention_count(sp.heads, da, sp.rank > 0 ? sp.rank : da, sp.score_degree, dx, n_in, in.n, last, scalar_last, sp.residual, read);
    }
    // Per head the k rows of W^Q (rank k), the k rows of W^K they meet, and W^V's da (one,
    // row p of W^O W^V, when it is the last layer read at one coordinate).
    static long rows_read(const S& sp, Shape in, bool scalar_last) {
        const long da = head_dim(sp, in.w);
        return sat_mul(sp.heads, 2 * (sp.rank > 0 ? sp.rank : da) + (scalar_last ? 1 : da));
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const S& sp) {
        lw.heads.resize(static_cast<std::size_t>(sp.heads));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        const long dx = in.w;
        const long da = head_dim(sp, dx), H = sp.heads;
        for (long h = 0; h < H; ++h) {
            auto& hw = lw.heads[static_cast<std::size_t>(h)];
            fn(MatrixSlot{"heads", "heads", H, h, "Q", da, dx}, hw.Q);
            fn(MatrixSlot{"heads", "heads", H, h, "K", da, dx}, hw.K);
            fn(MatrixSlot{"heads", "heads", H, h, "V", da, dx}, hw.V);
            fn(MatrixSlot{"heads", "heads", H, h, "O", dx, da}, hw.O);
        }
    }
    static bool structural_zero(const S& sp, const MatrixSlot& m, long row, long) {
        return sp.rank > 0 && row >= sp.rank && std::string_view(m.key) == "Q";
    }
    // How many entries structural_zero names: rows rank..da of every head's Q.
    static long structural_zeros(const S& sp, Shape in) { return sp.rank > 0 ? sp.heads * (head_dim(sp, in.w) - sp.rank) * in.w : 0; }
    // Whether it is a family's block, and that family's fields (family_form): score degree
    // 1 is family attention's layer.
    static bool as_family(const S& sp, NetworkSpec& t, long, long) {
        t.family = Family::attention;
        t.heads = sp.heads;
        t.head_dim = sp.head_dim;
        t.attention_rank = sp.rank;
        t.residual = sp.residual;
        t.block_degree = 3;
        return sp.score_degree == 1;
    }
    static std::string structural_zero_reason(const S& sp) {
        return "attention rank " + str(sp.rank) + " keeps only the first rows of Q";
    }

    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        if (sp.score_degree == 1) return linear_layer(f, lw, y);
        using E = typename F::E;
        auto& r = f.ring();
        const std::size_t n = y.size();
        const std::size_t dx = static_cast<std::size_t>(f.spec().dim);
        typename F::VecList out = f.zeros(n, dx);
        for (const auto& h : lw.heads) {
            typename F::VecList q = f.list(), k = f.list(), v = f.list();
            for (const auto& yj : y) {
                q.push_back(f.lin(h.Q, yj));
                k.push_back(f.lin(h.K, yj));
                v.push_back(f.lin(h.V, yj));
            }
            const std::size_t da = static_cast<std::size_t>(h.Q.rows);
            for (std::size_t i = 0; i < n; ++i) {
                typename F::Vec t = f.zeros(da);  // Σ_j ⟨q_i,k_j⟩^s v_j
                for (std::size_t j = 0; j < n; ++j) {
                    const E g = score(f, q[i], k[j], sp.score_degree);
                    for (std::size_t a = 0; a < da; ++a) r.add(t[a], r.mul(g, v[j][a]));
                }
                typename F::Vec o = f.lin(h.O, t);
                for (std::size_t c = 0; c < dx; ++c) r.add(out[i][c], o[c]);
            }
        }
        return out;
    }
    // Coordinate p of position i: Σ_h Σ_j ⟨q_i, k_j⟩^s · (row p of W^O W^V)·y_j.
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        if (sp.score_degree == 1) return linear_last_layer(f, lw, y);
        using E = typename F::E;
        using W = typename F::W;
        auto& r = f.ring();
        const std::size_t i = static_cast<std::size_t>(f.spec().position - 1);
        const long p = f.spec().coordinate - 1;
        E acc = r.zero();
        for (const auto& h : lw.heads) {
            const typename F::Vec q = f.lin(h.Q, y[i]);
            Dense<W> ov(1, h.V.cols, r.weight_zero());
            for (long c = 0; c < h.V.cols; ++c) {
                W sum = r.weight_zero();
                for (long a = 0; a < h.O.cols; ++a) sum = r.weight_fma(sum, h.O(p, a), h.V(a, c));
                ov(0, c) = sum;
            }
            for (const auto& yj : y) {
                const E g = score(f, q, f.lin(h.K, yj), sp.score_degree);
                r.add(acc, r.mul(g, f.dot_row(ov, 0, yj)));
            }
        }
        return acc;
    }
    // Score degree 1, residual not included: evaluated associatively is evaluated associatively
    // (docs/theory.md §4): Σ_j ⟨q_i,k_j⟩ v_j = (Σ_j v_j k_jᵀ) q_i when da ≤ N.
    template <class F>
    static typename F::VecList linear_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
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
    static typename F::E linear_last_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y) {
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
            Dense<W> ov(1, h.V.cols, r.weight_zero());
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
    template <class F>
    static typename F::E score(F& f, const typename F::Vec& q, const typename F::Vec& k, long s) {
        auto& r = f.ring();
        typename F::E g = r.zero();
        for (std::size_t a = 0; a < q.size(); ++a) r.add(g, r.mul(q[a], k[a]));
        typename F::E out = g;
        for (long e = 1; e < s; ++e) out = r.mul(out, g);
        return out;
    }
};

// ============================================================ mlp
// Per token y^i ← W2 (W1 y^i)^{⊙r}; W1 ∈ Q^{w×dx}, W2 ∈ Q^{dx×w}. Degree r.
struct MlpKind {
    using S = MlpLayer;
    static constexpr const char* name = "mlp";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("power", sp.power);
        fn("width", sp.width);
        fn("residual", sp.residual);
    }
    static long width(const S& sp, long dx) { return sp.width > 0 ? sp.width : dx; }
    static void validate(const S& sp, const NetworkSpec&, long l) {
        check_layer_size(sp.power, l, "power r", 1);
        require(sp.power <= kMaxBlockDegree, "layer " + str(l + 1) + ": power r = " + str(sp.power) + " exceeds " + str(kMaxBlockDegree));
        require(sp.width >= 0, "layer " + str(l + 1) + ": width w = " + str(sp.width) + " must be at least 1");
        check_layer_size(sp.width, l, "width w", 0);
    }
    static long degree(const S& sp) { return sp.power; }
    static long bottleneck(const S& sp, Shape in) { return width(sp, in.w); }  // image(W2)
    static long weight_increment(const S& sp) { return sp.power + 1; }  // W2·(W1 y)^r: 1 + r(1 + D)
    static Integer parameters(const S& sp, Shape in) { return Integer(2 * width(sp, in.w) * in.w); }
    static TokenCharacter token_character(const S& sp) { return {0, sp.power, sp.power}; }  // (ωu)^r = ω^r u^r, per token
    static bool mixes_tokens(const S&) { return false; }
    static bool flattens(const S&) { return false; }
    static Shape out(const S&, Shape in, long) { return in; }
    static bool linear_output(const S&) { return true; }  // W2
    static long product_of_forms(const S&) { return 0; }
    static RowScales row_scales(const S&, Shape, bool, bool) { return {}; }  // W2 mixes the hidden units: none proven
    static bool as_family(const S&, NetworkSpec&, long, long) { return false; }  // no family's block
    // Per hidden unit one rescaling (row of W1 by λ, column of W2 by λ^{−r}); the layer's
    // space is Q^{n_out} ⊗ Sym^r(Q^{n_in}). r = 1: W2 W1, a matrix of rank <= w.
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        return mlp_count(width(sp, in.w), sp.power, in.w, n_in, last, scalar_last, sp.residual, read);
    }
    static long rows_read(const S& sp, Shape in, bool) { return width(sp, in.w); }  // W1's w rows

    template <class T>
    static void resize(LayerWeights<T>& lw, const S&) {
        lw.W.resize(1);
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        const long dx = in.w;
        const long w = width(sp, dx);
        fn(MatrixSlot{nullptr, nullptr, 0, 0, "W1", w, dx}, lw.W[0]);
        fn(MatrixSlot{nullptr, nullptr, 0, 0, "W2", dx, w}, lw.O);
    }
    static bool structural_zero(const S&, const MatrixSlot&, long, long) { return false; }
    static long structural_zeros(const S&, Shape) { return 0; }
    static std::string structural_zero_reason(const S&) { return {}; }

    template <class F>
    static typename F::Vec hidden(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::Vec& yi) {
        auto& r = f.ring();
        typename F::Vec u = f.lin(lw.W[0], yi);
        for (auto& x : u) {
            const typename F::E base = x;
            for (long e = 1; e < sp.power; ++e) x = r.mul(x, base);
        }
        return u;
    }
    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        typename F::VecList out = f.list();
        for (const auto& yi : y) out.push_back(f.lin(lw.O, hidden(f, lw, sp, yi)));
        return out;
    }
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        const typename F::Vec u = hidden(f, lw, sp, y[static_cast<std::size_t>(f.spec().position - 1)]);
        return f.dot_row(lw.O, f.spec().coordinate - 1, u);
    }
};

// ============================================================ hadamard
// The hadamard family's block, one layer of it (its code).
struct HadamardKind {
    using S = HadamardLayer;
    static constexpr const char* name = "hadamard";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("degree", sp.degree), fn("width", sp.width), fn("free", sp.free), fn("residual", sp.residual);
    }
    static long width(const S& sp, long dx) { return sp.width > 0 ? sp.width : dx; }
    static std::pair<std::string, std::string> unused(const S& sp) {
        return sp.free && sp.degree == 1 ? std::pair<std::string, std::string>{"free", "a block of degree d = 1 has no slots 2..d to free"}
                                         : std::pair<std::string, std::string>{};
    }
    static void validate(const S& sp, const NetworkSpec&, long l) {
        check_layer_size(sp.degree, l, "block degree d", 1);
        require(sp.degree <= kMaxBlockDegree, "layer " + str(l + 1) + ": block degree d = " + str(sp.degree) + " exceeds " + str(kMaxBlockDegree));
        require(sp.width >= 0, "layer " + str(l + 1) + ": width w = " + str(sp.width) + " must be at least 1");
        check_layer_size(sp.width, l, "width w", 0);
    }
    static long degree(const S& sp) { return sp.degree; }
    static long bottleneck(const S& sp, Shape in) { return width(sp, in.w); }  // image(W^O)
    static long weight_increment(const S& sp) { return sp.degree + 1; }
    static Integer parameters(const S& sp, Shape in) { return Integer((sp.degree + 1) * width(sp, in.w) * in.w); }
    // y^i ⊙ z, z = Σ_j ∏_{k≥2} W_k y^j of character (d−1)·e_j (tied); free: each Σ_j mixes e and 0
    static TokenCharacter token_character(const S& sp) { return {sp.degree == 1 ? 0 : sp.free ? 1 : sp.degree - 1, 1, 1}; }  // W_1 y^i ⊙ z
    static bool mixes_tokens(const S& sp) { return sp.degree >= 2; }
    static bool flattens(const S&) { return false; }
    static Shape out(const S&, Shape in, long) { return in; }
    static bool linear_output(const S&) { return true; }  // W^O
    static long product_of_forms(const S&) { return 0; }
    static RowScales row_scales(const S&, Shape, bool, bool) { return {}; }  // W^O mixes: none proven
    static bool as_family(const S& sp, NetworkSpec& t, long, long) {  // family hadamard's block
        t.family = Family::hadamard;
        t.block_degree = sp.degree;
        t.width = sp.width;
        t.free_slots = sp.free;
        t.residual = sp.residual;
        return true;
    }
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        return hadamard_count(sp.degree, width(sp, in.w), in.w, n_in, in.n, last, scalar_last, sp.residual, read);
    }
    static long rows_read(const S& sp, Shape in, bool) { return sat_mul(sp.degree, width(sp, in.w)); }  // W_1..W_d

    template <class T>
    static void resize(LayerWeights<T>& lw, const S& sp) {
        lw.W.resize(static_cast<std::size_t>(sp.degree));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        const long dx = in.w;
        const long w = width(sp, dx), d = sp.degree;
        for (long k = 0; k < d; ++k) fn(MatrixSlot{"W", "matrices", d, k, nullptr, w, dx}, lw.W[static_cast<std::size_t>(k)]);
        fn(MatrixSlot{nullptr, nullptr, 0, 0, "O", dx, w}, lw.O);
    }
    static bool structural_zero(const S&, const MatrixSlot&, long, long) { return false; }
    static long structural_zeros(const S&, Shape) { return 0; }
    static std::string structural_zero_reason(const S&) { return {}; }

    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        return block_layer(f, lw, y, sp.free);
    }
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        return block_last_layer(f, lw, y, sp.free);
    }

    // z = Σ_j ∏_{k≥2} W_k y_j (tied) or ∏_{k≥2} Σ_j W_k y_j (free); all-N vector when d = 1.
    template <class F>
    static typename F::Vec mix(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y, bool free_slots) {
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t w = static_cast<std::size_t>(lw.W[0].rows);
        const std::size_t d = lw.W.size();
        if (d == 1) return Vec(w, r.constant(static_cast<long>(y.size())), f.mr());
        if (free_slots) {
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
    static typename F::VecList block_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y, bool free_slots) {
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t n = y.size();
        typename F::VecList out = f.zeros(n, static_cast<std::size_t>(f.spec().dim));
        const Vec z = mix(f, lw, y, free_slots);
        for (std::size_t i = 0; i < n; ++i) {
            Vec u1 = f.lin(lw.W[0], y[i]);
            for (std::size_t a = 0; a < u1.size(); ++a) u1[a] = r.mul(u1[a], z[a]);
            out[i] = f.lin(lw.O, u1);
        }
        return out;
    }

    // f = Σ_a O(p,a) (W_1 y_i)_a z_a, residual not included.
    template <class F>
    static typename F::E block_last_layer(F& f, const LayerWeights<typename F::W>& lw, const typename F::VecList& y, bool free_slots) {
        using E = typename F::E;
        using Vec = typename F::Vec;
        auto& r = f.ring();
        const std::size_t i = static_cast<std::size_t>(f.spec().position - 1);
        const long p = f.spec().coordinate - 1;
        E acc = r.zero();
        const Vec z = mix(f, lw, y, free_slots);
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

// conv, fc and dense: layers_power.hpp

// ============================================================ registry: each field struct's kind
template <class S> struct KindOf;
template <> struct KindOf<AttentionLayer> { using type = AttentionKind; };
template <> struct KindOf<MlpLayer> { using type = MlpKind; };
template <> struct KindOf<HadamardLayer> { using type = HadamardKind; };
template <> struct KindOf<ConvLayer> { using type = ConvKind; };
template <> struct KindOf<FcLayer> { using type = FcKind; };
template <> struct KindOf<DenseLayer> { using type = DenseKind; };

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
