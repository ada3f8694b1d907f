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
//   unused(s)                     (optional) the fields s sets that its network never reads,
//                                 each with why (network.hpp, unused_fields);
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
//   expected_layer(s, l, n_in, n_first, scalar)  layer l's share of the expected dimension
//                                 (LayerCount: parameters, what is left after its own
//                                 symmetries, the span n_next of its output tokens);
//   junction(s, l)                whether GL(n_next) acts between layers l and l+1 (the
//                                 output map of one against the input maps of the next);
//   residual_chain(s, l)          the next layer m without residual when GL(dx) passes from
//                                 layer l's output map through the residual layers between
//                                 (m = L: the output, where the scalar output keeps the part
//                                 that fixes coordinate p); −1 when it does not;
//   absorbs_input_map(s)          whether layer 1 reads its input through linear maps only
//                                 (then an embedding M is absorbed into it);
//   absorbs_linear_last(s, scalar)  whether a linear last layer adds nothing after the
//                                 linear output map of the layer before;
//   absorbed_residual_linear(s)   {l, m}: the first residual layer l of degree 1 that a layer
//                                 m without residual reads (through residual layers with
//                                 linear output maps), absorbed into its input maps ({−1, −1}: none);
//   residual_last_any_matrix(s, scalar)  whether a stack's last layer is residual, linear,
//                                 and what is read of I + B any matrix (counted as the
//                                 layer without residual);
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

#include "stack.hpp"  // the kinds (layers.hpp) and Stack, which folds them

namespace seprank::detail {
inline namespace SEPRANK_KERNEL_NS {

// Entry l of a per-layer list of s (its layers, fc's or power's widths), checked: a bare
// spec whose list is shorter than its depth is refused (invalid_input), not read past.
template <class T>
const T& layer_entry(const std::vector<T>& v, long l, const char* list) {
    if (l < 0 || l >= static_cast<long>(v.size()))  // the message built only then: at() runs per layer in every pass
        throw invalid_input(std::string(list) + " has " + str(static_cast<long>(v.size())) + " entries: no layer " + str(l + 1) +
                            " (one entry per layer, depth L of them)");
    return v[static_cast<std::size_t>(l)];
}

// fn(l, field, why) for each layer l of s (family F's layer(s, l), a kind) that has a
// field its kind never reads (the kind's optional unused(sp)); F's unused builds on it.
template <class F, class Fn>
void for_each_unused_layer_field(const NetworkSpec& s, Fn&& fn) {
    for (long l = 0; l < s.depth; ++l)
        with_kind(F::layer(s, l), [&](auto kind, const auto& sp) {
            if constexpr (requires { kind.unused(sp); }) {
                const auto [field, why] = kind.unused(sp);
                if (!field.empty()) fn(l, field, why);
            }
        });
}

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
    static std::vector<UnusedField> unused(const NetworkSpec& s) {  // its blocks' (all alike): once
        std::vector<UnusedField> out;
        for_each_unused_layer_field<Hadamard>(s, [&](long, const std::string& field, const std::string& why) {
            if (out.empty()) out.push_back({field, why});
        });
        return out;
    }
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
                "stack has " + str(static_cast<long>(s.layers.size())) + " layers, depth is " + str(s.depth) +
                    " (a stack's depth is its number of layers)");
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
    static LayerSpec layer(const NetworkSpec& s, long l) { return layer_entry(s.layers, l, "layers"); }
    // Each layer's field it never reads (its kind's unused), as field "layers".
    static std::vector<UnusedField> unused(const NetworkSpec& s) {
        std::vector<UnusedField> out;
        for_each_unused_layer_field<StackFamily>(s, [&](long l, const std::string& field, const std::string& why) {
            out.push_back({"layers", "layer " + str(l + 1) + "'s " + field + " is ignored: " + why});
        });
        return out;
    }

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
            if (!found) in.layer_fail(l, "kind", "unknown layer kind '" + detail::cut(kind) + "' (expected " + Stack::kind_list() + ")");
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
                "fc widths list has " + str(static_cast<long>(s.widths.size())) + " entries, depth is " + str(s.depth) +
                    " (one width per layer: depth " + str(static_cast<long>(s.widths.size())) + " for this list)");
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
        f.width = s.widths.empty() ? 0 : layer_entry(s.widths, l, "widths");
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
    static std::vector<UnusedField> unused(const NetworkSpec& s) {
        if (s.depth == 1)
            return {{"power", "a one-layer power network is linear (its only layer is the last, which has no activation)"}};
        return {};
    }
    static LayerSpec layer(const NetworkSpec& s, long l) {
        DenseLayer d;
        d.width = layer_entry(s.widths, l, "widths");
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
