// Private: the dispatch over the layer kinds (with_kind, for_each_kind, through
// layers.hpp's KindOf) and Stack, the fold of their traits over a network's layers, which computes every
// family's network: shapes, degrees, parameters, matrices,
// counts, symmetries and the forward pass (the Network traits listed in families.hpp).
#pragma once

#include "layers.hpp"

#include <tuple>
#include <utility>

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {  // see layer_common.hpp

// ============================================================ registry of kinds

// fn(Kind{}, spec) with the traits of the layer's kind.
template <class Fn>
decltype(auto) with_kind(const LayerSpec& layer, Fn&& fn) {
    return std::visit([&](const auto& sp) -> decltype(auto) { return fn(typename KindOf<std::decay_t<decltype(sp)>>::type{}, sp); }, layer);
}

// fn(Kind{}, S{}) for every kind, in variant order (a default S).
template <class Fn, std::size_t K = 0>
void for_each_kind(Fn&& fn) {
    if constexpr (K < std::variant_size_v<LayerSpec>) {
        using S = std::variant_alternative_t<K, LayerSpec>;
        fn(typename KindOf<S>::type{}, S{});
        for_each_kind<Fn&, K + 1>(fn);
    }
}

inline bool layer_residual(const LayerSpec& layer) {
    return std::visit([](const auto& sp) { return sp.residual; }, layer);
}

// ============================================================ stack
// y^{l+1} = layer_l(y^l) (+ y^l when layer l is residual); the kinds' traits folded.
struct Stack {
    // Layer l of s: a stack's own, or the block of the family s is shorthand for.
    static LayerSpec at(const NetworkSpec& s, long l) { return family_layer(s, l); }

    // What layer l reads (l = depth: what the network writes), folded from the input's
    // shape; invalid_input when a layer cannot read what the one before writes. O(l).
    static Shape shape_in(const NetworkSpec& s, long l) {
        Shape sh = family_input(s);
        for (long k = 0; k < l; ++k) sh = with_kind(at(s, k), [&](auto kind, const auto& sp) { return kind.out(sp, sh, k); });
        return sh;
    }
    static long output_dim(const NetworkSpec& s) { return shape_in(s, s.depth).w; }
    static long output_positions(const NetworkSpec& s) { return shape_in(s, s.depth).n; }
    static long layer_degree(const NetworkSpec& s, long l) {
        return with_kind(at(s, l), [](auto kind, const auto& sp) { return kind.degree(sp); });
    }
    static long layer_weight_increment(const NetworkSpec& s, long l) {
        return with_kind(at(s, l), [](auto kind, const auto& sp) { return kind.weight_increment(sp); });
    }
    static bool homogeneous(const NetworkSpec& s) {
        for (long l = 0; l < s.depth; ++l)
            if (layer_residual(at(s, l))) return false;
        return true;
    }
    // The row scalings that keep f, folded (RowScales, layers.hpp's row_scales): their
    // number over all layers, and the weights never read at one coordinate (`scalar`);
    // scales −1 when any layer has none proven or is residual (y + F(y) undoes no scaling
    // of F). They act freely on generic weights (docs/dimension.md, "Row scalings"). O(depth).
    // Precondition: a valid spec (each width checked, so the sums cannot overflow).
    static RowScales row_scales(const NetworkSpec& s, bool scalar) {
        RowScales total{0, 0};
        Shape sh = family_input(s);
        for (long l = 0; l < s.depth; ++l) {
            const bool last = l + 1 == s.depth;
            const auto [own, out] = with_kind(at(s, l), [&](auto kind, const auto& sp) {
                return std::pair<RowScales, Shape>{sp.residual ? RowScales{} : kind.row_scales(sp, sh, last, last && scalar), kind.out(sp, sh, l)};
            });
            if (own.scales < 0) return {};
            total.scales += own.scales;
            total.unread += own.unread;
            sh = out;
        }
        return total;
    }
    static Integer layer_parameters(const NetworkSpec& s, long l) {
        return with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.parameters(sp, shape_in(s, l)); });
    }
    // All layers' parameters in one fold of the shapes: O(depth), for any depth (a budget
    // comparison counts specs far deeper than validate accepts).
    static Integer parameters(const NetworkSpec& s) {
        Integer total(0);
        Shape sh = family_input(s);
        for (long l = 0; l < s.depth; ++l)
            with_kind(at(s, l), [&](auto kind, const auto& sp) {
                total = total + kind.parameters(sp, sh);
                sh = kind.out(sp, sh, l);
            });
        return total;
    }

    // A layer whose next layer is residual is read whole, as the last one is: the next
    // layer adds its output back as it is (in Q^dx, not in coordinates of its image), so
    // no GL(n_next) at the junction absorbs where that image lies.
    // n_in is the span of each token layer l reads; a flattened input (fc, power) is one
    // token of all N: N times the span of one.
    // The rest of the network reads only directions_read(s, l) of the directions layer l
    // writes (LayerCount, `read`; through its linear output map, or a conv's t^r): a layer without residual
    // followed by one, and a residual layer's F. Not a layer without residual before residual
    // layers: the GL(dx) that passes through them is counted on its output (residual_chain).
    static LayerCount expected_layer(const NetworkSpec& s, long l, long n_in, long, bool scalar) {
        const bool last = l + 1 == s.depth;
        const bool whole = last || layer_residual(at(s, l + 1));
        const Shape in = shape_in(s, l);
        const long span = l == 0 && in.n != s.tokens ? n_in * s.tokens : n_in;
        // (given to every kind: a conv writing through t^r uses it, its outputs read in one
        // direction one quadric for r = 2; fc and dense of degree >= 2 read in fewer directions
        // than their units count the k-tuple read, narrowed_forms_read)
        const bool counted = !last && (layer_residual(at(s, l)) || !layer_residual(at(s, l + 1)));
        const long read = counted ? directions_read(s, l, scalar) : LONG_MAX;
        return with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.count(sp, in, span, whole, last && scalar, read); });
    }
    // How many directions of the tokens after layer l the rest of the network reads: the
    // next layer's input maps' rows (rows_read), and through a residual next layer's skip
    // path what is read after it, up to the output: 1 with the scalar output (y_p), every
    // one (LONG_MAX) with all outputs. A linear last layer read at one coordinate token by
    // token, or reading one token, reads one row (of W, or of I + B), not a conv's k taps
    // nor a flattening layer's row over N >= 2 tokens, a direction per token. A linear layer
    // without residual that is not last, token by token or on one token, reads at most
    // what is read after it: P B A y sees y through P B A (mlp:power=1,mlp:power=3:width=1
    // after an embedding of rank 6, N = 2, dx = 4, scalar: 6 as measured, not 12).
    // O(depth²).
    static long directions_read(const NetworkSpec& s, long l, bool scalar) {
        long total = 0;
        for (long m = l + 1;; ++m) {
            if (m == s.depth) return scalar ? total + 1 : LONG_MAX;
            const bool read_at_p = m + 1 == s.depth && scalar;
            const Shape in = shape_in(s, m);
            // 0: a linear last layer read at p, token by token or on one token, reads row p of
            // W (or of I + B with a residual): one direction in all
            const long own = with_kind(at(s, m), [&](auto kind, const auto& sp) {
                const bool token_by_token = (!kind.mixes_tokens(sp) && !kind.flattens(sp)) || in.n == 1;
                const bool one_row = read_at_p && kind.degree(sp) == 1 && token_by_token;
                if (one_row) return 0L;
                const long rank = std::min(in.w, kind.rows_read(sp, in, read_at_p));
                if (kind.degree(sp) != 1 || !token_by_token || m + 1 == s.depth || layer_residual(at(s, m))) return rank;
                return std::min(rank, directions_read(s, m, scalar));
            });
            if (own == 0) return total + 1;
            total = own > LONG_MAX / 2 - total ? LONG_MAX / 2 : total + own;
            if (!layer_residual(at(s, m))) return total;
        }
    }
    // Every kind reads its input through linear maps, and most write through one (W^O, W2):
    // GL(n) between two layers unless a residual adds the identity on either side or layer
    // l writes through a nonlinear map (conv's t^r: its count takes the torus left).
    static bool junction(const NetworkSpec& s, long l) { return !layer_residual(at(s, l)) && !layer_residual(at(s, l + 1)) && linear_output(s, l); }
    // Layer l writes through a linear map (W^O, W2, a linear conv, fc or dense).
    static bool linear_output(const NetworkSpec& s, long l) {
        return with_kind(at(s, l), [](auto kind, const auto& sp) { return kind.linear_output(sp); });
    }
    // Layer l (no residual) writes through a linear map into residual layers l+1..m−1, each
    // y + F(y), and m is the next layer without residual (or m = L, the output). g in GL(dx)
    // passes through them: y → g y, and each F → g F g⁻¹ (its input maps take g⁻¹, its linear
    // output map g), so their outputs are g times what they were, and layer m's input maps
    // absorb g⁻¹ (docs/dimension.md). At m = L only the scalar output is kept, by the g whose
    // row p is e_p (there the last F reads y and is read at p alone: it needs no output map).
    // l = −1 is the embedding, y = M w: it writes through M, a linear map, when there is one.
    // Returns m, or −1 when layer l+1 has no residual, layer l or a residual layer in
    // between writes through a nonlinear map, or l is the last layer. O(L).
    static long residual_chain(const NetworkSpec& s, long l) {
        if (l + 1 >= s.depth || !layer_residual(at(s, l + 1))) return -1;
        if (l < 0 ? s.embed_rank == 0 : layer_residual(at(s, l)) || !linear_output(s, l)) return -1;
        long m = l + 1;
        while (m < s.depth && layer_residual(at(s, m))) ++m;
        for (long k = l + 1; k < m; ++k)
            if (!linear_output(s, k) && k + 1 < s.depth) return -1;
        return m;
    }
    static bool absorbs_input_map(const NetworkSpec& s) { return s.depth == 0 || !layer_residual(at(s, 0)); }
    // A last layer of degree 1 without residual, W, that reads one vector (a token-wise map,
    // or any linear map of a single input vector) after a layer that writes through a
    // linear map A. The scalar output is (row p of W)·A·g, and that row times A is any row,
    // as row p of A alone is; every output, W·A, is any matrix A is when W is square and of
    // full rank for generic weights (its bottleneck, the width of its image, is its width).
    // Either way the network without its last layer (read at one coordinate, or whole)
    // computes the same functions (Model::expected_losses counts that network).
    // A residual last layer of degree 1, y + B y = (I + B) y, is such a W: square, and of
    // full rank for generic weights (det(I + B) is 1 at B = 0).
    static bool absorbs_linear_last(const NetworkSpec& s, bool scalar) {
        if (s.depth < 2) return false;
        const long L = s.depth;
        if (residual_linear(s, L - 1)) {
            // after it, any residual linear layers (their product is invertible too), then a
            // layer without residual that writes through a linear map
            long k = L - 2;
            while (k > 0 && residual_linear(s, k)) --k;
            return !layer_residual(at(s, k)) && linear_output(s, k);
        }
        const Shape in = shape_in(s, L - 1), out = shape_in(s, L);
        const bool linear_last = !layer_residual(at(s, L - 1)) && with_kind(at(s, L - 1), [&](auto kind, const auto& sp) {
                                     return kind.degree(sp) == 1 && kind.linear_output(sp) && (in.n == 1 || !kind.mixes_tokens(sp)) &&
                                            (scalar || (out.n == in.n && out.w == in.w && kind.bottleneck(sp, in) >= in.w));
                                 });
        return linear_last && junction(s, L - 2);
    }
    // Layer l is residual and of degree 1, y + B y = (I + B) y, one map of each token (or of
    // the one vector it reads): I + B is invertible for generic weights. Not an fc layer
    // reading N >= 2 tokens flattened: its I + B acts on all N·dx entries, and after a layer
    // writing each token through A, (I + B)(I_N ⊗ A) mixes the tokens as no A can (a
    // review: mlp:power=2,fc:degree=1:residual, N = 2, dx = 2, measured 18 against 6).
    static bool residual_linear(const NetworkSpec& s, long l) {
        if (!layer_residual(at(s, l))) return false;
        const Shape in = shape_in(s, l);
        return with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.degree(sp) == 1 && (in.n == 1 || !kind.mixes_tokens(sp)); });
    }
    // The last layer of a stack is residual and linear, and what is read of I + B is any
    // matrix, as that of B is: with every output, B any square matrix on what the layer
    // reads (a flattening layer's bottleneck all N·w entries, a per-token one's each
    // token's w); with the scalar output, row p of B any row (a bottleneck of 1 suffices:
    // row p of W2 times W1). The stack with that residual dropped then computes the same
    // functions (Model::expected_losses counts it; a review: mlp:power=2,fc:degree=1:residual,
    // N = 2, dx = 2, all outputs, 18 as measured, not 22; conv:power=2,mlp:power=1:width=1:residual,
    // N = 3, dx = 2, scalar, 7 as measured, not 10).
    static bool residual_last_any_matrix(const NetworkSpec& s, bool scalar) {
        const long L = s.depth;
        if (L < 1 || !layer_residual(at(s, L - 1))) return false;  // a family too: its last layer (family_layer)
        const Shape in = shape_in(s, L - 1);
        return with_kind(at(s, L - 1), [&](auto kind, const auto& sp) {
            if (kind.degree(sp) != 1) return false;
            const long need = scalar ? 1 : kind.flattens(sp) ? in.n * in.w : in.w;
            return (kind.flattens(sp) || !kind.mixes_tokens(sp)) && kind.bottleneck(sp, in) >= need;
        });
    }
    // The first layer l < L − 1 that is residual_linear and read by a layer m without
    // residual, directly or through residual layers l+1..m−1 that write through linear maps:
    // every kind reads its input through linear maps A, and A (I + B) is any matrix A is;
    // g = I + B passes through each residual layer between (g y + F(g y) = g (y + g⁻¹ F(g y)),
    // g⁻¹ F g a layer of the same kind: its input maps take g, its output map g⁻¹). So the
    // network without layer l computes the same functions (Model::expected_losses counts
    // that network). Returns {l, m}; {−1, −1} when none. O(L²).
    static std::pair<long, long> absorbed_residual_linear(const NetworkSpec& s) {
        for (long l = 0; l + 1 < s.depth; ++l) {
            if (!residual_linear(s, l)) continue;
            long m = l + 1;
            while (m < s.depth && layer_residual(at(s, m)) && linear_output(s, m)) ++m;
            if (m < s.depth && !layer_residual(at(s, m))) return {l, m};
        }
        return {-1, -1};
    }
    // The first layer l that is residual_linear and reads what a linear map W writes: the
    // embedding M (l = −1 below it) or a layer without residual that writes through a
    // linear map, directly or through residual layers between that write through linear
    // maps and keep the tokens (none flattens N >= 2 of them): (I + B) W is any matrix W is,
    // and g = I + B passes back through each residual layer between (g (y + F(y)) = g y +
    // (g F g⁻¹)(g y), g F g⁻¹ a layer of the same kind: its input maps take g⁻¹, its output
    // map g). So the network without layer l computes the same functions
    // (Model::expected_losses counts that network): the mirror of absorbed_residual_linear,
    // for chains that no layer without residual reads (mlp:power=1:width=1:residual,
    // mlp:power=1:width=4:residual,hadamard:degree=2:width=2:residual, N = 2, dx = 4, r = 6:
    // 24 as measured, not 47). Returns {l, writer}, writer −1 for M; {−1, −1} when none. O(L²).
    static std::pair<long, long> residual_linear_after_writer(const NetworkSpec& s) {
        for (long l = 0; l < s.depth; ++l) {
            if (!residual_linear(s, l)) continue;
            long k = l - 1;
            while (k >= 0 && layer_residual(at(s, k)) && linear_output(s, k) &&
                   with_kind(at(s, k), [&](auto kind, const auto& sp) { return !kind.flattens(sp) || shape_in(s, k).n == 1; }))
                --k;
            if (k < 0 ? s.embed_rank > 0 : !layer_residual(at(s, k)) && linear_output(s, k)) return {l, k};
        }
        return {-1, -1};
    }
    // The first layer l of degree 1 without residual (a linear map A) whose next layer,
    // without residual, reads it through its input maps R only, where R·A is any matrix
    // R' of R's rows on A's input: then the network without layer l computes the same
    // functions (Model::expected_losses counts it, and keeps the lower count). Either A maps
    // each token alone (or one vector) to the shape it read, its image of dimension b,
    // and R's rows on a token span k <= b of its n directions or b >= n (R·A of rank
    // min(k, b) is any k-row matrix of rank min(k, n)); or the next layer flattens what it
    // reads (fc, dense) and A is a flattening layer, its N·n inputs in place of n
    // (dense:power=1:width=4,dense:power=2:width=1, N = 3, dx = 4, scalar: 12 as measured,
    // not 36; not dense:power=1:width=1,dense:power=2:width=3, whose R·A has rank 1). −1
    // when none. O(L).
    static long linear_read_through(const NetworkSpec& s, bool scalar) {
        for (long l = 0; l + 1 < s.depth; ++l) {
            if (layer_residual(at(s, l)) || layer_residual(at(s, l + 1))) continue;
            const Shape in = shape_in(s, l), out = shape_in(s, l + 1);
            const bool at_p = scalar && l + 2 == s.depth;
            // A's input in place of A's output must leave the next layer's own shape: a default
            // width (fc, dense: what they read) would change with it, and the network without A
            // would write another vector (fc:degree=1:width=2,dense:power=2, N = 1, dx = 1,
            // every output: 2 measured, 1 counted; a review)
            const auto [next_flattens, k, same_out] = with_kind(at(s, l + 1), [&](auto kind, const auto& sp) {
                bool same = false;
                try {  // (a kind that cannot read A's input refuses it: not the same)
                    const Shape a = kind.out(sp, out, l + 1), b = kind.out(sp, in, l + 1);
                    same = a.n == b.n && a.w == b.w;
                } catch (const invalid_input&) {
                }
                return std::tuple<bool, long, bool>{kind.flattens(sp), kind.rows_read(sp, out, at_p), same};
            });
            if (!same_out) continue;
            const bool fits = with_kind(at(s, l), [&](auto kind, const auto& sp) {
                if (kind.degree(sp) != 1 || !kind.linear_output(sp)) return false;
                const long b = kind.bottleneck(sp, in);
                const bool one_map = in.n == 1 || (!kind.mixes_tokens(sp) && !kind.flattens(sp));
                if (one_map && out.n == in.n && out.w == in.w) return b >= std::min(k, in.w);
                return next_flattens && kind.flattens(sp) && b >= std::min(k, sat_mul(in.n, in.w));
            });
            if (fits) return l;
        }
        return -1;
    }
    // Whole-network corrections (docs/dimension.md):
    // - every layer of degree 1 and per token: y^{L,i} = B y^{0,i} with B the product of the
    //   layers' matrices (I + W2·W1 for a residual one) and M, one matrix of rank <= the
    //   narrowest of the layers without residual (and min(n0, dx)), whatever its factors;
    // - every layer of degree 1 and flattening (fc, dense), none residual: v^L = W^L ⋯ W^1 M v^0,
    //   one matrix from the N·n0 inputs, of rank <= the narrowest width;
    //   a linear layer that mixes tokens otherwise (a conv filter) keeps the per-layer counts;
    // - the scalar output of a last layer whose entries are products of d >= 2 forms (fc),
    //   homogeneous, at depth >= 2: the forms have the degree D of the layers before, so at
    //   most d·(C − 1) + 1 dimensions, C the monomials of degree D in the N·n0 inputs.
    // Whether every layer is of degree 1, every layer reads each token alone, and every
    // layer flattens the tokens without a residual. O(L).
    struct LayersAre {
        bool linear = true, per_token = true, flat = true;
    };
    static LayersAre layers_are(const NetworkSpec& s) {
        LayersAre a;
        for (long l = 0; l < s.depth; ++l)
            with_kind(at(s, l), [&](auto kind, const auto& sp) {
                a.linear = a.linear && kind.degree(sp) == 1;
                a.per_token = a.per_token && !kind.mixes_tokens(sp);
                a.flat = a.flat && kind.flattens(sp) && !sp.residual;
            });
        return a;
    }
    // Whether adjust_expected counts the stack as one matrix: every layer of degree 1, and
    // all per token or all flattening without residual (not a linear conv among them).
    // Model::expected_losses leaves such a stack to that count. O(L).
    static bool one_linear_matrix(const NetworkSpec& s) {
        const LayersAre a = layers_are(s);
        return s.depth >= 1 && a.linear && (a.per_token || a.flat);
    }
    static void adjust_expected(const NetworkSpec& s, bool scalar, long parameters, Losses& losses) {
        if (s.depth < 1) return;
        const long n0 = input_vars_per_token(s);
        const LayersAre are = layers_are(s);
        const bool per_token = are.per_token;
        if (are.linear && (are.per_token || are.flat)) {  // one_linear_matrix
            // A residual linear layer, I + W2·W1, is linear too but need not narrow anything;
            // with every layer residual and no embedding, the product of the I + C_l is I + C,
            // C of rank <= Σ rank C_l (I + C1 + C2 (I + C1)), a matrix of that rank's dimension
            // (mlp:power=1:width=2:residual, N = 2, dx = 4, every output: 12 as measured, not 16).
            long b = per_token ? std::min(n0, s.dim) : s.tokens * n0, added = 0;
            bool all_residual = true;
            for (long l = 0; l < s.depth; ++l) {
                const long w = with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.bottleneck(sp, shape_in(s, l)); });
                if (!layer_residual(at(s, l))) b = std::min(b, w), all_residual = false;
                else added = std::min(added + w, s.dim);
            }
            const bool shifted = all_residual && s.embed_rank == 0 && !scalar && added < b;
            if (shifted) b = added;
            Factored factored;
            if (!per_token && s.embed_rank > s.dim) factored = {s.tokens * s.dim, s.dim * (s.embed_rank - s.dim)};
            linear_network_count(scalar, parameters, per_token ? n0 : s.tokens * n0, b, output_dim(s), losses, factored, shifted);
            return;
        }
        const long d = with_kind(at(s, s.depth - 1), [](auto kind, const auto& sp) { return kind.product_of_forms(sp); });
        if (scalar && s.depth >= 2 && d >= 2 && homogeneous(s)) {
            long total = 0;
            for (const auto& [what, v] : losses) total += v;
            const long n = s.tokens * n0;  // the forms are in the input variables
            Integer deg(1);
            for (long l = 0; l + 1 < s.depth; ++l) deg = deg * Integer(layer_degree(s, l));
            const long c = monomials(n, deg, false);
            const long cap = c == LONG_MAX ? LONG_MAX : sat_mul(d, c - 1) + 1;
            if (parameters - total > cap) add_loss(losses, "output: a product of d forms of degree d^(L-1), at most d·(C-1)+1", parameters - total - cap);
        }
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const NetworkSpec& s, long l) {
        with_kind(at(s, l), [&](auto kind, const auto& sp) { kind.resize(lw, sp); });
    }
    template <class LW, class Fn>
    static void for_each_matrix(const NetworkSpec& s, long l, LW& lw, Fn&& fn) {
        with_kind(at(s, l), [&](auto kind, const auto& sp) { kind.for_each_matrix(sp, shape_in(s, l), lw, fn); });
    }
    static bool structural_zero(const NetworkSpec& s, long l, const MatrixSlot& m, long i, long j) {
        return with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.structural_zero(sp, m, i, j); });
    }
    static std::string structural_zero_reason(const NetworkSpec& s, long l) {
        return with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.structural_zero_reason(sp); });
    }

    static std::string json_key(const char* key) {
        std::string k(key);
        for (auto& c : k)
            if (c == '-') c = '_';
        return k;
    }
    static std::string kind_list() {
        std::vector<std::string> names;
        for_each_kind([&](auto k, auto) { names.emplace_back(k.name); });
        std::string out;
        for (std::size_t k = 0; k < names.size(); ++k) out += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
        return out;
    }

    template <class F>
    static typename F::E forward(F& f, typename F::VecList& y) {
        const NetworkSpec& s = f.spec();
        const std::size_t i = static_cast<std::size_t>(s.position - 1);
        const std::size_t p = static_cast<std::size_t>(s.coordinate - 1);
        if (y.size() > 1 && family_input(s).n == 1) {  // fc, power: the tokens as one vector
            typename F::Vec v = flat_tokens(f, y);
            y = f.list();
            y.push_back(std::move(v));
        }
        if (s.depth == 0) return y[i][p];
        // A residual adds the layer's input entry by entry, in token-major order (a residual
        // fc layer reads its n tokens as one vector and writes that vector's size).
        const auto input_entry = [](const typename F::VecList& in, std::size_t k) -> const typename F::E& {
            const std::size_t w = in[0].size();
            return in[k / w][k % w];
        };
        for (long l = 0; l + 1 < s.depth; ++l) {
            const auto& lw = f.weights().layers[static_cast<std::size_t>(l)];
            typename F::VecList out = with_kind(at(s, l), [&](auto kind, const auto& sp) { return kind.layer(f, lw, sp, y); });
            if (layer_residual(at(s, l)))
                for (std::size_t t = 0; t < out.size(); ++t)
                    for (std::size_t c = 0; c < out[t].size(); ++c) f.ring().add(out[t][c], input_entry(y, t * out[t].size() + c));
            y = std::move(out);
        }
        const auto& lw = f.weights().layers[static_cast<std::size_t>(s.depth - 1)];
        typename F::E acc = with_kind(at(s, s.depth - 1), [&](auto kind, const auto& sp) { return kind.last_layer(f, lw, sp, y); });
        if (layer_residual(at(s, s.depth - 1))) f.ring().add(acc, input_entry(y, i * y[0].size() + p));
        return acc;
    }
};

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
