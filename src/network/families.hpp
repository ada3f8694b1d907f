// Private: every network family in one place (docs/network.md, "Adding a family").
//
// Every family is shorthand for a stack of layer kinds (layers.hpp), and Stack, the fold
// of the kinds' traits, computes its networks. A family is a struct of static members,
// its traits: what it is and how it is written.
//   info                          FamilyInfo (public): name, fixed block degree, the spec
//                                 fields it uses, the theorems (levine_theorems) and expand
//                                 variants (moment_expansion) that apply to it;
//   Network                       the traits that compute it: Stack for every family;
//   flat_input                    (optional, true) it reads the N tokens as one vector of
//                                 N·dx entries (fc, power);
//   validate(s)                   its fields, after the common ones (invalid_input naming the
//                                 value; ends with check_coordinate);
//   block_degree(s)               d of its blocks (0 for a stack: no single one);
//   layer(s, l)                   its layer l as a layer kind (a stack: its own);
//   read_fields(in, s)            its JSON keys, through the SpecReader / SpecWriter
//   write_fields(out, s)          adapters of network_json.cpp (block_degree is read and written
//                                 there, under info.degree_key, when the family has one).
// The other way, a kind says whose block it is (as_family, layers.hpp; family_form).
// A Network's traits (Stack's, layers.hpp):
//   layer_degree(s, l)            the degree of layer l in its input (the output degree is
//   layer_weight_increment(s, l)  their product) and m_l of D_l = d_l·D_{l−1} + m_l;
//   homogeneous(s)                whether the output is homogeneous (no residual mixes degrees);
//   output_dim(s)                 entries of the output vector (the range of coordinate p);
//   output_positions(s)           output vectors (the range of position i: N, or 1 for
//                                 one output vector; a stack with conv layers: fewer);
//   layer_parameters(s, l)        parameters of layer l (0-based);
//   resize(lw, s, l)              the lists (heads, W) of an empty layer l;
//   for_each_matrix(s, l, lw, fn) fn(MatrixSlot, Dense&) for every matrix of layer l in file
//                                 order: random draws, shapes and the JSON layout follow it;
//   structural_zero(s, l, m, i, j)  whether entry (i, j) of matrix m of layer l is 0 by
//   structural_zero_reason(s, l)  construction, and why (random draws keep it 0, files must);
//   sign_equivariant(s)           whether negating one token's inputs negates that token's
//                                 layer outputs and leaves the others (docs/evaluation.md);
//   expected_layer(s, l, n_in, n_first, scalar)  layer l's share of the expected dimension
//                                 (LayerCount: parameters, what is left after its own
//                                 symmetries, the span n_next of its output tokens);
//   junction(s, l)                whether GL(n_next) acts between layers l and l+1 (the
//                                 output map of one against the input maps of the next);
//   absorbs_input_map(s)          whether layer 1 reads its input through linear maps only
//                                 (then an embedding M is absorbed into it);
//   adjust_expected(s, scalar, P, losses)  whole-network corrections (linear networks,
//                                 product caps) after the per-layer counts;
//   forward(f, y)                 the pass from the embedded tokens y to the output over any
//                                 ring policy: f is a detail::Forward (forward_impl.hpp).
// with_family(f, fn) is the one switch from a Family value to its traits, with_network(s,
// fn) the one to its Network; is_family lists them. The switches have no default, so
// -Wswitch names them when the enum grows.
//
// The forward steps are the hot loop of black-box evaluation: one with_network per pass,
// then plain static calls; no virtual call or std::function per operation.
#pragma once

// Every header included here (and in forward_impl.hpp) must also be included by
// forward_ifma.cpp before its `#pragma GCC target`, so that it is parsed for plain x86-64
// there; a header first parsed under the pragma would lend AVX code to shared symbols.
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
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
    require(s.block_degree <= kMaxBlockDegree, "block degree d = " + str(s.block_degree) + " exceeds " + str(kMaxBlockDegree));
}

// ------------------------------------------------------------ expected-dimension helpers
// (docs/dimension.md derives every count; include/seprank/dimension.hpp states the rule.)

// Rank-<=b matrices of size m×n: (m + n)·b − b² (b <= min(m, n)).
inline long low_rank_dim(long m, long n, long b) { return (m + n) * b - b * b; }

inline long sat_mul(long a, long b) { return (b != 0 && a > LONG_MAX / b) ? LONG_MAX : a * b; }

// Monomials of degree D in n variables (or of degree <= D with `all_degrees`), clamped
// to LONG_MAX.
inline long monomials(long n, const Integer& D, bool all_degrees) {
    if (D >= Integer(1L << 30)) return LONG_MAX;
    const long d = static_cast<long>(fmpz_get_si(D.get()));
    const long top = all_degrees ? d + n : d + n - 1;
    const long k = all_degrees ? n : n - 1;
    // log C(top, k) first, so that the exact binomial is formed only when it is small.
    const double lg = std::lgamma(top + 1.0) - std::lgamma(k + 1.0) - std::lgamma(top - k + 1.0);
    if (lg > 43.0) return LONG_MAX;  // e^43 > 4e18
    Integer c;
    fmpz_bin_uiui(c.get(), static_cast<unsigned long>(top), static_cast<unsigned long>(k));
    return fmpz_fits_si(c.get()) ? fmpz_get_si(c.get()) : LONG_MAX;
}

using Losses = std::vector<std::pair<std::string, long>>;
inline void add_loss(Losses& losses, const std::string& what, long v) {
    if (v != 0) losses.push_back({what, v});
}

// One layer's share of the expected dimension: its parameters, what its own symmetries
// (and its space) leave of them, and the dimension n_next of the span of its output tokens.
struct LayerCount {
    long params = 0, eff = 0, n_next = 0;
    std::string how;
};

// A linear network (every layer of degree 1): one matrix of rank <= b from n0 inputs to
// n_out outputs (its row p alone: a linear form), whatever the factors; replaces every
// per-layer count.
inline void linear_network_count(bool scalar, long parameters, long n0, long b, long n_out, Losses& losses) {
    const long eff = scalar ? std::min(b, 1L) * n0 : low_rank_dim(n_out, n0, b);
    losses.clear();
    add_loss(losses, "a linear network (d = 1): one matrix of rank <= " + std::to_string(b) + ", whatever its factors", parameters - eff);
}

// An attention layer (H heads of dimension da, query rank qr, score degree sd) reading
// tokens that span n_in dimensions.
inline LayerCount attention_count(long H, long da, long qr, long sd, long dx, long n_in, bool last, bool scalar_last, bool residual) {
    LayerCount c;
    c.params = H * (qr * dx + 3 * da * dx);
    // The layer's output lies in Σ_h image(W^O_h W^V_h): dimension <= H·min(da, n_in).
    c.n_next = residual ? dx : std::min(dx, H * std::min(da, n_in));
    const long n_out = last ? dx : c.n_next;
    const long a = std::min(qr, n_in);
    const long dimA = low_rank_dim(n_in, n_in, a);  // the score depends on W^Qᵀ W^K only
    long dimB = 0, nB = 0;
    bool b_full = true;
    if (scalar_last) {
        dimB = n_in;  // only row p of W^O W^V is read: a vector in Q^{n_in}
        nB = n_in;
    } else {
        const long b = std::min({da, n_in, n_out});
        dimB = low_rank_dim(n_out, n_in, b);
        nB = n_out * n_in;
        b_full = b == std::min(n_out, n_in);
    }
    if (sd == 1 && H > 1 && a == n_in && b_full) {
        // Full-rank heads: the layer is Σ_h A_h ⊗ B_h, a rank-<=H tensor, GL(H) mixes heads.
        const long n1 = n_in * n_in;
        c.eff = H >= std::min(n1, nB) ? n1 * nB : H * (n1 + nB - H);
        c.how = "per head GL(da) on (W^Q,W^K) and on (W^V,W^O); GL(H) mixing the full-rank heads";
    } else {
        c.eff = H * (dimA + dimB - 1);
        c.how = "per head GL(da) on (W^Q,W^K) and on (W^V,W^O), one rescaling between them";
    }
    // Σ_j ⟨q_i, k_j⟩^s v_j is a tensor in Q^{n_out} ⊗ Sym^s(Q^{n_in}) ⊗ Sym^{s+1}(Q^{n_in})
    // (y_i s times, y_j s+1 times); for s = 1: n_out·n_in·n_in(n_in+1)/2.
    const long space = sat_mul(sat_mul(scalar_last ? 1 : n_out, monomials(n_in, Integer(sd), false)), monomials(n_in, Integer(sd + 1), false));
    if (space < c.eff) {
        c.eff = space;
        c.how += sd == 1 ? "; capped by the layer's space n_out·n_in·n_in(n_in+1)/2" : "; capped by the layer's space n_out·C(n_in+s-1,s)·C(n_in+s,s+1)";
    }
    if (scalar_last) c.how += "; rows of W^O other than p never read";
    // A one-dimensional input: every head returns the same function times its own vector.
    if (n_in == 1 && !residual) c.n_next = 1;
    return c;
}

// A hadamard block of degree d and width w.
inline LayerCount hadamard_count(long d, long w, long dx, long n_in, bool last, bool scalar_last, bool residual) {
    LayerCount c;
    // The output lies in image(W^O) and in the image of Q^{n_in} ⊗ Sym^{d−1}(Q^{n_in}) (y_i
    // once, the token sums d − 1 times): at most n_in·C(n_in + d − 2, d − 1) dimensions (n_in
    // for a linear block).
    c.n_next = residual ? dx : std::min({dx, w, sat_mul(n_in, monomials(n_in, Integer(d - 1), false))});
    const long n_out = scalar_last ? 1 : last ? dx : c.n_next;
    c.params = (d + 1) * w * dx;
    if (d == 1) {
        const long b = std::min({w, n_in, n_out});
        c.eff = low_rank_dim(n_out, n_in, b);
        c.how = "a linear layer W^O W_1: GL(w)";
    } else if (d == 2 && scalar_last) {
        // Σ_a o_a (u_a·y_i)(v_a·Σ_j y_j): a bilinear form of rank <= w, GL(w) on the rows.
        c.eff = low_rank_dim(n_in, n_in, std::min(w, n_in));
        c.how = "a bilinear form of rank <= w: GL(w) on the rows of W_1, W_2";
    } else {
        // Each unit: its d rows and W^O column up to d rescalings; all units together
        // at most the layer's space, Q^{n_out} ⊗ Q^{n_in} ⊗ Sym^{d−1}(Q^{n_in}).
        const long sym = monomials(n_in, Integer(d - 1), false);
        c.eff = std::min(w * (d * n_in + n_out - d), sat_mul(sat_mul(n_out, n_in), sym));
        c.how = "per unit the rescaling of its d rows against its W^O column";
        if (c.eff < w * (d * n_in + n_out - d)) c.how += "; capped by the layer's space n_out·n_in·C(n_in+d-2, d-1)";
    }
    if (scalar_last) c.how += "; rows of W^O other than p never read";
    if (n_in == 1 && !residual) c.n_next = 1;  // a one-dimensional input spans one dimension
    return c;
}

// The tokens (x^1, …, x^N) as one vector of N·dx entries: the input of the families that
// read their tokens flattened (fc, power).
template <class F>
typename F::Vec flat_tokens(F& f, const typename F::VecList& tokens) {
    typename F::Vec v = f.vec();
    for (const auto& t : tokens)
        for (const auto& x : t) v.push_back(x);
    return v;
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

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail

// The layer kinds and the Stack traits that fold them (they use the helpers above).
#include "layers.hpp"

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {

// ============================================================ attention
// Shorthand for L copies of `attention:heads=H:head-dim=da:rank=k[:residual]` (score degree
// 1): y^{l+1,i} = Σ_h W^O_h Σ_j ⟨W^Q_h y^{l,i}, W^K_h y^{l,j}⟩ W^V_h y^{l,j}, degree 3.
struct Attention {
    static constexpr FamilyInfo info{Family::attention, "attention", /*fixed_block_degree=*/3, /*heads=*/true,
                                     /*width=*/false, /*widths=*/false, /*free_slots=*/false, /*per_position=*/true,
                                     /*uniform=*/true, /*layers=*/false, /*depth_from_widths=*/false, /*default_tokens=*/4,
                                     /*degree_key=*/nullptr, /*levine_theorems=*/true,
                                     /*moment_expansion=*/true};
    using Network = Stack;

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
        require(s.widths.empty(), "widths (a list, one per layer) apply to fc and power, not to attention");
        require(s.width == 0, "width w = " + str(s.width) + " applies to hadamard only, not to attention");
        check_coordinate(s, s.dim);
    }
    static long block_degree(const NetworkSpec&) { return 3; }
    static LayerSpec layer(const NetworkSpec& s, long) {
        AttentionLayer a;
        a.heads = s.heads;
        a.head_dim = s.head_dim;
        a.rank = s.attention_rank;
        a.residual = s.residual;
        return a;
    }

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
};

// ============================================================ hadamard
// Shorthand for L copies of `hadamard:degree=d:width=w[:free][:residual]`:
// y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j}) (tied), or slots 2..d
// summed over independent tokens (free); degree d, W_k ∈ Q^{w×dx}, W^O ∈ Q^{dx×w}.
struct Hadamard {
    static constexpr FamilyInfo info{Family::hadamard, "hadamard", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/true, /*widths=*/false, /*free_slots=*/true, /*per_position=*/true,
                                     /*uniform=*/true, /*layers=*/false, /*depth_from_widths=*/false, /*default_tokens=*/4,
                                     /*degree_key=*/"block_degree", /*levine_theorems=*/false,
                                     /*moment_expansion=*/false};
    using Network = Stack;

    static void validate(const NetworkSpec& s) {
        check_free_block_degree(s);
        require(s.width >= 0, "width w = " + str(s.width) + " is negative");
        require(s.widths.empty(), "widths (a list) apply to fc and power; hadamard takes one width");
        require(s.attention_rank == 0, "attention rank applies to attention only");
        check_coordinate(s, s.dim);
    }
    static long block_degree(const NetworkSpec& s) { return s.block_degree; }
    static LayerSpec layer(const NetworkSpec& s, long) {
        HadamardLayer h;
        h.degree = s.block_degree;
        h.width = s.width;
        h.free = s.free_slots;
        h.residual = s.residual;
        return h;
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
};

// ============================================================ stack
// A list of layers of the kinds in layers.hpp, each with its own sizes (NetworkSpec::layers).
struct StackFamily {
    static constexpr FamilyInfo info{Family::stack, "stack", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/false, /*widths=*/false, /*free_slots=*/false, /*per_position=*/true,
                                     /*uniform=*/false, /*layers=*/true, /*depth_from_widths=*/false, /*default_tokens=*/4,
                                     /*degree_key=*/nullptr, /*levine_theorems=*/false,
                                     /*moment_expansion=*/false};
    using Network = Stack;

    static void validate(const NetworkSpec& s) {
        require(static_cast<long>(s.layers.size()) == s.depth,
                "stack has " + str(static_cast<long>(s.layers.size())) + " layers, depth is " + str(s.depth));
        require(!s.residual, "a stack's residual connections are per layer (write kind:residual in the layers)");
        require(s.heads == 1 && s.head_dim == 0 && s.attention_rank == 0,
                "heads, head dim and attention rank of a stack are per layer (attention:heads=H:head-dim=da:rank=k)");
        require(s.width == 0 && s.widths.empty() && !s.free_slots, "widths and free slots of a stack are per layer (mlp:width=w, hadamard:width=w:free)");
        // Each layer's fields, then what it reads: a token layer reads tokens of width dx (after
        // a flattening layer, fc or dense, only a vector of width dx); out() refuses the rest.
        Shape sh{s.tokens, s.dim};
        for (long l = 0; l < s.depth; ++l)
            with_kind(layer(s, l), [&](auto kind, const auto& sp) {
                kind.validate(sp, s, l);
                if (!kind.flattens(sp))
                    require(sh.w == s.dim, "layer " + str(l + 1) + ": " + kind.name + " reads tokens of width dx = " + str(s.dim) +
                                               ", but layer " + str(l) + " writes one vector of width " + str(sh.w) +
                                               " (fc and dense layers flatten the tokens: put them last)");
                sh = kind.out(sp, sh, l);
            });
        const long n = sh.n;
        require(s.position <= n, "position i = " + str(s.position) + " outside 1.." + str(n) + " (the tokens the last layer writes)");
        check_coordinate(s, Stack::output_dim(s));
    }
    static long block_degree(const NetworkSpec&) { return 0; }  // no single one
    static LayerSpec layer(const NetworkSpec& s, long l) { return s.layers[static_cast<std::size_t>(l)]; }

    // JSON: each layer object carries "kind" and its keys (SPEC's, '-' written '_').
    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.layers.clear();
        const long n = in.layer_count();
        for (long l = 0; l < n; ++l) {
            const std::string kind = in.layer_string(l, "kind");
            bool found = false;
            for_each_kind([&](auto k, auto sp) {
                if (found || kind != k.name) return;
                found = true;
                k.keys(sp, [&](const char* key, auto& field) { in.layer_value(l, Stack::json_key(key).c_str(), field); });
                s.layers.emplace_back(sp);
            });
            if (!found) in.layer_fail(l, "kind", "unknown layer kind '" + kind + "' (expected " + Stack::kind_list() + ")");
        }
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        for (long l = 0; l < s.depth; ++l)
            with_kind(layer(s, l), [&](auto kind, auto sp) {
                out.set_layer(l, "kind", std::string(kind.name));
                kind.keys(sp, [&](const char* key, auto& field) { out.set_layer(l, Stack::json_key(key).c_str(), field); });
            });
    }
};

// ============================================================ fc
// Shorthand for L layers `fc:degree=d:width=w_l[:residual]` on the tokens flattened:
// v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l), v^0 = (x^1,…,x^N) flattened; degree d,
// W_k ∈ Q^{w_{l+1}×w_l}. One output vector: position i is 1.
struct Fc {
    static constexpr FamilyInfo info{Family::fc, "fc", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/false, /*widths=*/true, /*free_slots=*/false, /*per_position=*/false,
                                     /*uniform=*/true, /*layers=*/false, /*depth_from_widths=*/false, /*default_tokens=*/4,
                                     /*degree_key=*/"block_degree", /*levine_theorems=*/false,
                                     /*moment_expansion=*/false};
    using Network = Stack;
    static constexpr bool flat_input = true;  // it reads its tokens as one vector of N·dx

    static void validate(const NetworkSpec& s) {
        check_free_block_degree(s);
        require(s.widths.empty() || static_cast<long>(s.widths.size()) == s.depth,
                "fc widths list has " + str(static_cast<long>(s.widths.size())) + " entries, depth is " + str(s.depth));
        for (long w : s.widths) require(w >= 1, "fc width " + str(w) + " must be at least 1");
        require(s.width == 0, "fc takes a widths list, not one width");
        require(s.attention_rank == 0, "attention rank applies to attention only");
        require(!s.free_slots, "free slots apply to hadamard blocks only");
        check_coordinate(s, layer_widths(s).back());
        require(s.position == 1,
                "position i = " + str(s.position) + ": fc has one output vector (choose its entry with coordinate p)");
        if (s.residual) {
            const auto w = layer_widths(s);
            for (std::size_t l = 1; l < w.size(); ++l)
                require(w[l] == w[l - 1], "residual fc needs equal widths; layer " + str(static_cast<long>(l)) +
                                              " maps " + str(w[l - 1]) + " to " + str(w[l]));
        }
    }
    static long block_degree(const NetworkSpec& s) { return s.block_degree; }
    static LayerSpec layer(const NetworkSpec& s, long l) {
        FcLayer f;
        f.degree = s.block_degree;
        f.width = s.widths.empty() ? 0 : s.widths[static_cast<std::size_t>(l)];
        f.residual = s.residual;
        return f;
    }

    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.widths = in.required_long_list("widths", 1);
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        const auto w = layer_widths(s);
        out.set("widths", std::vector<long>(w.begin() + 1, w.end()));
    }
};

// ============================================================ power
// Kileel–Trager–Bruna: v^0 = (x^1,…,x^N) flattened (d0 = N·dx), v^l = σ(W_l v^{l−1}) for
// l < h, output W_h v^{h−1}; σ(t) = t^r entrywise, W_l ∈ Q^{d_l×d_{l−1}}. Degree r^{h−1}.
// Shorthand for `dense:width=d_l:power=r` for l < h and `dense:width=d_h:power=1`. r is
// held in block_degree (JSON key and CLI option "power"); widths d_1..d_h, h = L.
struct Power {
    static constexpr FamilyInfo info{Family::power, "power", /*fixed_block_degree=*/0, /*heads=*/false,
                                     /*width=*/false, /*widths=*/true, /*free_slots=*/false, /*per_position=*/false,
                                     /*uniform=*/false, /*layers=*/false, /*depth_from_widths=*/true, /*default_tokens=*/1,
                                     /*degree_key=*/"power", /*levine_theorems=*/false,
                                     /*moment_expansion=*/false};
    using Network = Stack;
    static constexpr bool flat_input = true;

    static void validate(const NetworkSpec& s) {
        require(s.block_degree >= 1, "power r = " + str(s.block_degree) + " must be at least 1");
        require(s.block_degree <= kMaxBlockDegree, "power r = " + str(s.block_degree) + " exceeds " + str(kMaxBlockDegree));
        require(!s.widths.empty() || s.depth == 0, "power networks need their widths d1,...,dh (--widths)");
        require(static_cast<long>(s.widths.size()) == s.depth,
                "power widths list has " + str(static_cast<long>(s.widths.size())) + " entries, depth is " + str(s.depth));
        for (long w : s.widths) require(w >= 1, "power width " + str(w) + " must be at least 1");
        require(s.width == 0, "power takes a widths list, not one width");
        require(s.attention_rank == 0, "attention rank applies to attention only");
        require(!s.free_slots, "free slots apply to hadamard blocks only");
        require(!s.residual, "a residual connection does not apply to power networks (their widths change)");
        require(s.embed_rank == 0, "an embedding does not apply to power networks (their first layer is already a linear map)");
        check_coordinate(s, layer_widths(s).back());
        require(s.position == 1,
                "position i = " + str(s.position) + ": power has one output vector (choose its entry with coordinate p)");
    }
    static long block_degree(const NetworkSpec& s) { return s.block_degree; }
    static LayerSpec layer(const NetworkSpec& s, long l) {
        DenseLayer d;
        d.width = s.widths[static_cast<std::size_t>(l)];
        d.power = l + 1 < s.depth ? s.block_degree : 1;  // the last layer is linear
        return d;
    }

    template <class In>
    static void read_fields(In& in, NetworkSpec& s) {
        s.widths = in.required_long_list("widths", 1);
    }
    template <class Out>
    static void write_fields(Out& out, const NetworkSpec& s) {
        out.set("widths", s.widths);
    }
};

// ============================================================ registry

// Calls fn with the traits object of family f (Attention{}, Hadamard{}, Fc{}, StackFamily{},
// Power{}): what the family is (info, block_degree), its fields (validate, read_fields,
// write_fields) and its layers as kinds (layer(s, l)).
template <class Fn>
decltype(auto) with_family(Family f, Fn&& fn) {
    static_assert(Attention::info.family == Family::attention && Hadamard::info.family == Family::hadamard &&
                  Fc::info.family == Family::fc && StackFamily::info.family == Family::stack && Power::info.family == Family::power);
    switch (f) {
        case Family::attention: return fn(Attention{});
        case Family::hadamard: return fn(Hadamard{});
        case Family::fc: return fn(Fc{});
        case Family::stack: return fn(StackFamily{});
        case Family::power: return fn(Power{});
    }
    throw internal_error("Family value " + std::to_string(static_cast<int>(f)) + " names no family");
}

// Calls fn with the traits that compute s's network (Stack{}, for every family: its layers
// are kinds): degrees, parameters, matrices, counts, symmetries, the forward map.
template <class Fn>
decltype(auto) with_network(const NetworkSpec& s, Fn&& fn) {
    return with_family(s.family, [&](auto fam) -> decltype(auto) { return fn(typename decltype(fam)::Network{}); });
}

// Whether family F reads its tokens flattened (its flat_input).
template <class F>
inline constexpr bool has_flat_input = requires { F::flat_input; };

// Whether f is one of the enumerators (all_families() lists 0, 1, … while this holds).
inline bool is_family(Family f) {
    switch (f) {
        case Family::attention:
        case Family::hadamard:
        case Family::fc:
        case Family::stack:
        case Family::power: return true;
    }
    return false;
}

}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
