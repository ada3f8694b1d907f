// Private: the layer kinds of power and convolutional networks, conv, fc and dense, whose
// output channels are powers or products of linear forms of their input (layers.hpp lists
// every kind's traits and holds the other kinds and the registry; this file only splits
// it in two). Included by layers.hpp alone.
#pragma once

#include "layer_common.hpp"

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {  // see layer_common.hpp

// ============================================================ conv
// 1-D convolution along the token axis with a power activation (Shahverdi–Marchetti–Kohn,
// AISTATS 2025): output token i (0-based) is
//     y'^i = (Σ_{j<k} W_j y^{i·s+j})^{⊙r},  W_j ∈ Q^{dx×dx},  i < ⌊(N − k)/s⌋ + 1;
// dx = 1 is their single channel (the filter w = (W_0..W_{k−1}) ∈ Q^k), dx > 1 a
// convolution with dx input and dx output channels. Degree r. Their networks end with a
// linear convolution (α_L ∘ σ ∘ … ∘ σ ∘ α_1; their degree formula gives the last filter no
// factor r): write the last layer `conv:power=1`.
struct ConvKind {
    using S = ConvLayer;
    static constexpr const char* name = "conv";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("filter", sp.filter);
        fn("stride", sp.stride);
        fn("power", sp.power);
    }
    static void validate(const S& sp, const NetworkSpec&, long l) {
        check_layer_size(sp.filter, l, "filter size k", 1);
        check_layer_size(sp.stride, l, "stride s", 1);
        check_layer_size(sp.power, l, "power r", 1);
        require(sp.power <= kMaxBlockDegree, "layer " + str(l + 1) + ": power r = " + str(sp.power) + " exceeds " + str(kMaxBlockDegree));
        require(!sp.residual, "layer " + str(l + 1) + ": conv changes the token count and has no residual");
    }
    static bool flattens(const S&) { return false; }
    static Shape out(const S& sp, Shape in, long l) {
        require(sp.filter <= in.n, "layer " + str(l + 1) + ": filter size k = " + str(sp.filter) + " exceeds the " + str(in.n) +
                                       " tokens it reads");
        return {(in.n - sp.filter) / sp.stride + 1, in.w};
    }
    static long degree(const S& sp) { return sp.power; }
    static long bottleneck(const S&, Shape in) { return in.w; }
    static long rows_read(const S& sp, Shape in, bool at_p) { return at_p ? sp.filter : sat_mul(sp.filter, in.w); }  // k taps; at p: row p of each W_j
    static long weight_increment(const S& sp) { return sp.power; }  // (W_j y)^r: r(1 + D)
    static Integer parameters(const S& sp, Shape in) { return Integer(sp.filter) * Integer(in.w) * Integer(in.w); }
    static TokenCharacter token_character(const S&) { return {1, 1}; }  // output i reads tokens i·s..i·s+k−1
    static bool mixes_tokens(const S& sp) { return sp.filter > 1 || sp.stride > 1; }
    static bool linear_output(const S& sp) { return sp.power == 1; }  // else t^r entrywise
    static long product_of_forms(const S&) { return 0; }
    static RowScales row_scales(const S& sp, Shape in, bool last, bool at_p) {  // channel c: (Σ_j row c of W_j · y)^r
        return {last ? 0 : in.w, at_p ? sp.filter * (in.w - 1) * in.w : 0};
    }
    static bool as_family(const S&, NetworkSpec&, long, long) { return false; }  // no family's block
    // k·n_in·n_out (row p only for a scalar last layer). Before a next layer, r > 1 leaves a
    // torus (channel c rescaled by t, t^r undone by the next layer's input maps: n_out; for
    // dx = 1 the paper's |k| − L + 1); r = 1 writes linearly: the junction's GL(n_next) acts.
    // A conservative count: no cap by the layer's space, but for the quadric read once.
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        const long dx = in.w, k = sp.filter, v = k * std::min(n_in, dx);  // v: a window's coordinates
        LayerCount c;
        c.params = k * dx * dx;
        c.n_next = std::min(dx, monomials(v, Integer(sp.power), false));  // Σ over the window's C(v+r-1, r) forms
        const long n_out = scalar_last ? 1 : dx;
        c.eff = v * n_out;
        c.how = "a convolution reading a " + std::to_string(std::min(n_in, dx)) + "-dimensional span";
        if (scalar_last) c.how += "; rows of W_j other than p never read";
        if (!last && sp.power > 1) {
            c.eff -= n_out;
            c.how += "; per output channel one rescaling (row c of every W_j by t, the next layer's reading of it by t^-r)";
        }
        if (!last && sp.power == 2 && read == 1) cap_by_read_quadric(c, v, dx);
        return c;
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const S& sp) {
        lw.W.resize(static_cast<std::size_t>(sp.filter));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        const long dx = in.w;
        for (long j = 0; j < sp.filter; ++j) fn(MatrixSlot{"W", "matrices", sp.filter, j, nullptr, dx, dx}, lw.W[static_cast<std::size_t>(j)]);
    }
    static bool structural_zero(const S&, const MatrixSlot&, long, long) { return false; }
    static long structural_zeros(const S&, Shape) { return 0; }
    static std::string structural_zero_reason(const S&) { return {}; }

    template <class F>
    static typename F::E power(F& f, const typename F::E& x, long r) {
        typename F::E out = x;
        for (long e = 1; e < r; ++e) out = f.ring().mul(out, x);
        return out;
    }
    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        auto& r = f.ring();
        const std::size_t k = static_cast<std::size_t>(sp.filter), s = static_cast<std::size_t>(sp.stride);
        const std::size_t n_out = (y.size() - k) / s + 1;
        typename F::VecList out = f.list();
        for (std::size_t i = 0; i < n_out; ++i) {
            typename F::Vec u = f.lin(lw.W[0], y[i * s]);
            for (std::size_t j = 1; j < k; ++j) {
                const typename F::Vec t = f.lin(lw.W[j], y[i * s + j]);
                for (std::size_t c = 0; c < u.size(); ++c) r.add(u[c], t[c]);
            }
            for (auto& x : u) x = power(f, x, sp.power);
            out.push_back(std::move(u));
        }
        return out;
    }
    // Coordinate p of output token i: (Σ_j row p of W_j · y^{i·s+j})^r.
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        auto& r = f.ring();
        const std::size_t i = static_cast<std::size_t>(f.spec().position - 1), s = static_cast<std::size_t>(sp.stride);
        const long p = f.spec().coordinate - 1;
        typename F::E u = r.zero();
        for (std::size_t j = 0; j < static_cast<std::size_t>(sp.filter); ++j) r.add(u, f.dot_row(lw.W[j], p, y[i * s + j]));
        return power(f, u, sp.power);
    }
};

// ============================================================ fc
// v' = (W_1 v) ⊙ … ⊙ (W_d v) on its input flattened (v ∈ Q^{n·w}), W_k ∈ Q^{w'×(n·w)}: one
// output vector. Degree d. Family fc's block.
struct FcKind {
    using S = FcLayer;
    static constexpr const char* name = "fc";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("degree", sp.degree);
        fn("width", sp.width);
        fn("residual", sp.residual);
    }
    static long width(const S& sp, Shape in) { return sp.width > 0 ? sp.width : in.n * in.w; }
    static void validate(const S& sp, const NetworkSpec&, long l) {
        check_layer_size(sp.degree, l, "degree d", 1);
        require(sp.degree <= kMaxBlockDegree, "layer " + str(l + 1) + ": degree d = " + str(sp.degree) + " exceeds " + str(kMaxBlockDegree));
        require(sp.width >= 0, "layer " + str(l + 1) + ": width w = " + str(sp.width) + " must be at least 1");
        check_layer_size(sp.width, l, "width w", 0);
    }
    static long degree(const S& sp) { return sp.degree; }
    static long bottleneck(const S& sp, Shape in) { return width(sp, in); }
    static long rows_read(const S& sp, Shape in, bool at_p) { return sat_mul(sat_mul(sp.degree, at_p ? 1 : width(sp, in)), in.n); }  // d·w rows, N blocks
    static long weight_increment(const S& sp) { return sp.degree; }  // W_1..W_d
    static Integer parameters(const S& sp, Shape in) { return Integer(sp.degree) * Integer(width(sp, in)) * Integer(in.n * in.w); }
    // It mixes all tokens' coordinates linearly: no per-token sign structure.
    static TokenCharacter token_character(const S&) { return {1, 1}; }  // it mixes tokens
    static bool mixes_tokens(const S&) { return true; }
    static bool flattens(const S&) { return true; }
    static Shape out(const S& sp, Shape in, long l) {
        if (sp.residual)
            require(width(sp, in) == in.n * in.w, "layer " + str(l + 1) + ": a residual fc layer keeps its size, but it maps " +
                                                      str(in.n * in.w) + " entries to " + str(width(sp, in)));
        return {1, width(sp, in)};
    }
    static bool linear_output(const S& sp) { return sp.degree == 1; }
    // Each output entry is a product of d forms (the whole network's too, when it is last).
    static long product_of_forms(const S& sp) { return sp.residual ? 0 : sp.degree; }
    // Unit c: Π_k (row c of W_k · v): d rows, d − 1 (product 1) when last (a residual
    // layer has none: Stack::row_scales asks no residual layer).
    static RowScales row_scales(const S& sp, Shape in, bool last, bool at_p) {
        const long units = width(sp, in);
        return {last ? (sp.degree - 1) * (at_p ? 1 : units) : sp.degree * units, at_p ? sp.degree * (units - 1) * in.n * in.w : 0};
    }
    // n_in: the span of each input token (its input then has n·n_in dimensions). A unit's d
    // row scales: d free before a next layer (it undoes them), d − 1 (product 1) when read
    // whole or with a residual.
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        const long d = sp.degree, units = width(sp, in), n_prev = in.n * n_in;
        LayerCount c;
        // its outputs span at most the forms of degree d in the n_prev coordinates it reads, as a dense
        // layer's (GL(units) after a linear fc layer wider than its input put the count below the
        // measured dimension: a review's sweep, 2026-11-30; a residual one spans the whole width)
        c.n_next = sp.residual ? units : std::min(units, d == 1 ? n_prev : monomials(n_prev, Integer(d), false));
        c.params = d * units * in.n * in.w;
        const long used = scalar_last ? 1 : units;
        if (d == 1) {
            c.eff = used * n_prev;  // a linear network's count replaces it (Stack::adjust_expected)
            c.how = "a linear layer";
        } else {
            const long per_unit = !last && !sp.residual ? d : d - 1;
            c.eff = used * (d * n_prev - per_unit);
            c.how = !last && !sp.residual ? "per unit its d row scales, undone in the next layer" : "per unit its d row scales with product 1";
        }
        if (scalar_last && units > 1) c.how += "; rows other than p never read";
        if (d >= 2 && !sp.residual) products_count(c, units, d, n_prev, used, last, read);  // forms of degree d: runs, reads
        return c;
    }
    static bool as_family(const S& sp, NetworkSpec& t, long, long) {
        t.family = Family::fc;
        t.block_degree = sp.degree;
        t.residual = sp.residual;
        t.widths.push_back(sp.width);
        return true;
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const S& sp) {
        lw.W.resize(static_cast<std::size_t>(sp.degree));
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        const long d = sp.degree;
        for (long k = 0; k < d; ++k) fn(MatrixSlot{"W", "matrices", d, k, nullptr, width(sp, in), in.n * in.w}, lw.W[static_cast<std::size_t>(k)]);
    }
    static bool structural_zero(const S&, const MatrixSlot&, long, long) { return false; }
    static long structural_zeros(const S&, Shape) { return 0; }
    static std::string structural_zero_reason(const S&) { return {}; }

    template <class F>  // (f.ring() not kept in a local: the inner loops keep their hoisted modulus)
    static typename F::E unit(F& f, const LayerWeights<typename F::W>& lw, long a, const typename F::Vec& v) {
        typename F::E prod = f.dot_row(lw.W[0], a, v);
        for (std::size_t k = 1; k < lw.W.size(); ++k) prod = f.ring().mul(prod, f.dot_row(lw.W[k], a, v));
        return prod;
    }
    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S&, const typename F::VecList& y) {
        const typename F::Vec v = flat_tokens(f, y);
        typename F::Vec next = f.vec();
        for (long a = 0; a < lw.W[0].rows; ++a) next.push_back(unit(f, lw, a, v));
        typename F::VecList out = f.list();
        out.push_back(std::move(next));
        return out;
    }
    // Only entry p is formed.
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S&, const typename F::VecList& y) {
        return unit(f, lw, f.spec().coordinate - 1, flat_tokens(f, y));
    }
};

// ============================================================ dense
// v' = (W v)^{⊙r} on its input flattened (Kileel–Trager–Bruna), W ∈ Q^{w'×(n·w)}; r = 1:
// linear. Degree r. Family power's layers (its last one linear).
struct DenseKind {
    using S = DenseLayer;
    static constexpr const char* name = "dense";

    template <class Sp, class Fn>
    static void keys(Sp& sp, Fn&& fn) {
        fn("width", sp.width);
        fn("power", sp.power);
    }
    static long width(const S& sp, Shape in) { return sp.width > 0 ? sp.width : in.n * in.w; }
    static void validate(const S& sp, const NetworkSpec&, long l) {
        check_layer_size(sp.power, l, "power r", 1);
        require(sp.power <= kMaxBlockDegree, "layer " + str(l + 1) + ": power r = " + str(sp.power) + " exceeds " + str(kMaxBlockDegree));
        require(sp.width >= 0, "layer " + str(l + 1) + ": width w = " + str(sp.width) + " must be at least 1");
        check_layer_size(sp.width, l, "width w", 0);
        require(!sp.residual, "layer " + str(l + 1) + ": dense has no residual");
    }
    static long degree(const S& sp) { return sp.power; }
    static long bottleneck(const S& sp, Shape in) { return width(sp, in); }
    static long rows_read(const S& sp, Shape in, bool at_p) { return sat_mul(at_p ? 1 : width(sp, in), in.n); }  // w rows (p), N blocks
    static long weight_increment(const S& sp) { return sp.power; }  // (W v)^r: r(D + 1)
    static Integer parameters(const S& sp, Shape in) { return Integer(width(sp, in)) * Integer(in.n * in.w); }
    static TokenCharacter token_character(const S&) { return {1, 1}; }  // it mixes tokens
    static bool mixes_tokens(const S&) { return true; }
    static bool flattens(const S&) { return true; }
    static Shape out(const S& sp, Shape in, long) { return {1, width(sp, in)}; }
    static bool linear_output(const S& sp) { return sp.power == 1; }
    static long product_of_forms(const S&) { return 0; }
    static RowScales row_scales(const S& sp, Shape in, bool last, bool at_p) {  // unit c: (row c of W · v)^r
        return {last ? 0 : width(sp, in), at_p ? (width(sp, in) - 1) * in.n * in.w : 0};
    }
    // Kileel–Trager–Bruna: a unit's row scale t, undone by t^{-r} in the next layer (one
    // loss per unit); read whole, every entry read counts. n_in as for fc.
    static LayerCount count(const S& sp, Shape in, long n_in, bool last, bool scalar_last, long read) {
        const long units = width(sp, in), prev = in.n * n_in;
        LayerCount c;
        // its outputs span at most the forms of degree r in the prev coordinates it reads (a linear
        // layer wider than its input spans only that input: GL(units) after it overcounted)
        c.n_next = std::min(units, sp.power == 1 ? prev : monomials(prev, Integer(sp.power), false));
        c.params = units * in.n * in.w;
        c.forms_in = prev, c.forms_degree = sp.power, c.rows = scalar_last ? 1 : units, c.row_loss = !last && sp.power > 1;
        c.eff = c.rows * (prev - c.row_loss);
        if (c.row_loss) {
            c.how = "per hidden unit its row scale, undone (to the power r) in the next layer";
        } else {
            c.how = sp.power > 1 ? "a power layer read whole" : last ? "the linear output layer" : "a linear layer";
            if (scalar_last && units > 1) c.how += "; rows other than p never read";
        }
        if (c.row_loss) narrowed_forms_read(c, units, monomials(prev, Integer(sp.power), false), read);
        return c;
    }
    static bool as_family(const S& sp, NetworkSpec& t, long l, long depth) {
        t.family = Family::power;
        t.widths.push_back(sp.width);
        if (l + 1 < depth) t.block_degree = sp.power;
        return depth >= 2;  // one linear layer names no power r
    }

    template <class T>
    static void resize(LayerWeights<T>& lw, const S&) {
        lw.W.resize(1);
    }
    template <class LW, class Fn>
    static void for_each_matrix(const S& sp, Shape in, LW& lw, Fn&& fn) {
        fn(MatrixSlot{nullptr, nullptr, 0, 0, "W", width(sp, in), in.n * in.w}, lw.W[0]);
    }
    static bool structural_zero(const S&, const MatrixSlot&, long, long) { return false; }
    static long structural_zeros(const S&, Shape) { return 0; }
    static std::string structural_zero_reason(const S&) { return {}; }

    template <class F>
    static typename F::E power(F& f, const Dense<typename F::W>& W, long a, const typename F::Vec& v, long r) {
        const typename F::E u = f.dot_row(W, a, v);
        typename F::E pw = u;
        for (long k = 1; k < r; ++k) pw = f.ring().mul(pw, u);
        return pw;
    }
    template <class F>
    static typename F::VecList layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        const typename F::Vec v = flat_tokens(f, y);
        typename F::Vec next = f.vec();
        for (long a = 0; a < lw.W[0].rows; ++a) next.push_back(power(f, lw.W[0], a, v, sp.power));
        typename F::VecList out = f.list();
        out.push_back(std::move(next));
        return out;
    }
    template <class F>
    static typename F::E last_layer(F& f, const LayerWeights<typename F::W>& lw, const S& sp, const typename F::VecList& y) {
        return power(f, lw.W[0], f.spec().coordinate - 1, flat_tokens(f, y), sp.power);
    }
};

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
