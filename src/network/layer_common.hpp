// Private: what the layer kinds (layers.hpp) and the Stack fold (stack.hpp) share: the
// checks of a layer's fields, the expected-dimension counts of the attention, mlp and hadamard
// blocks, a matrix's place in the weights file (MatrixSlot), the Shape a layer reads and
// writes, and the two functions network.cpp defines for them (family_layer, family_input).
#pragma once

// Every header included here (and in families.hpp, forward_impl.hpp) must also be included by
// forward_ifma.cpp before its `#pragma GCC target`, so that it is parsed for plain x86-64
// there; a header first parsed under the pragma would lend AVX code to shared symbols.
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "base/saturating.hpp"

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

// This header, families.hpp and forward_impl.hpp name their contents in an inline namespace that the
// includer may choose: forward_ifma.cpp compiles them for AVX-512 IFMA and defines
// SEPRANK_KERNEL_NS as `ifma`, so the inline functions it emits (validate, slot_path, ...)
// are its own symbols and never stand in for the plain x86-64 copies of the library.
#ifndef SEPRANK_KERNEL_NS
#define SEPRANK_KERNEL_NS base
#endif

namespace seprank::detail {

// Layer l of s as a kind: a stack's own, or the block of the family s is written as (its
// family's `layer`). Precondition: 0 <= l < depth. O(1). Defined once, in network.cpp:
// plain x86-64 code outside the kernel namespaces, which only call it.
LayerSpec family_layer(const NetworkSpec& s, long l);

// What a layer reads or writes: n token vectors of width w (a flattened input: n = 1).
struct Shape {
    long n = 0, w = 0;
};

// How a layer treats the scaling of one token (docs/evaluation.md, "Token symmetry"):
// when token k's inputs are scaled by ω^e, ω a root of unity of order m, and every other
// token's are not, the layer scales token k's outputs by ω^(multiplier·e) and leaves the
// others, for every order m that divides constraint·e (constraint 0: every m; 1: only
// e ≡ 0, as for a layer that mixes tokens). `floor`: when every entry of y^i has degree
// at least μ in token i's inputs, every entry of output i has at least floor·μ (0: no
// such bound, as for a layer whose output i may not read y^i). Model folds these over the
// layers.
struct TokenCharacter {
    long constraint = 1;
    long multiplier = 1;
    long floor = 0;
};
// The shape of a network's input after the embedding: N tokens of width dx, or, for the
// families that read their tokens flattened (fc, power), one vector of N·dx entries.
// Defined in network.cpp, as family_layer. O(1).
Shape family_input(const NetworkSpec& s);

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
// Symmetric n×n matrices (quadrics in n variables) of rank <= b: b·n − C(b, 2) (b <= n).
// A sum of b squares Σ a_k (w_k·y)² is one, the orthogonal group of diag(a) keeping it.
inline long quadric_dim(long n, long b) { return b * n - b * (b - 1) / 2; }
// quadric_dim's derivation, as a loss line says it. O(1).
inline std::string quadric_text(long b, long n) {
    const std::string B = std::to_string(b), n_ = std::to_string(n);
    return "a quadric of rank <= " + B + " in " + n_ + " variables, " + B + "·" + n_ + " - C(" + B + ", 2) (O(" + B + ") keeps the sum of squares)";
}

// Monomials of degree D in n variables (or of degree <= D with `all_degrees`), clamped
// to LONG_MAX.
inline long monomials(long n, const Integer& D, bool all_degrees) {
    if (D >= Integer(1L << 30)) return LONG_MAX;
    const long d = static_cast<long>(fmpz_get_si(D.get()));
    const long top = all_degrees ? d + n : d + n - 1;
    const long k = all_degrees ? n : n - 1;
    if (k < 0) return 0;  // no variables and an exact degree: counted 0, as always here
    return binomial_saturated(top, k);
}

// A layer's row scalings that keep the network's function (row_scales; docs/dimension.md,
// "Row scalings"): `scales` independent scalings of rows of weights that only one output channel
// reads (−1: the kind has none proven), each acting on weights the output reads, and
// `unread`: its weights the output never reads (0 where not counted, which a bound may
// always take).
struct RowScales {
    long scales = -1, unread = 0;
};

using Losses = std::vector<std::pair<std::string, long>>;
inline void add_loss(Losses& losses, const std::string& what, long v) {
    if (v != 0) losses.push_back({what, v});
}

// One layer's share of the expected dimension: its parameters, what its own symmetries
// (and its space) leave of them, and the dimension n_next of the span of its output tokens.
// The counts below take `read`: where this layer writes through a linear map W, the
// directions of its output the rest of the network reads (Stack::directions_read: the next
// layer's input maps' rows, rows_read, and through residual layers what is read after
// them); LONG_MAX otherwise. A next layer f(P y) reading through P of rank read < n_next
// sees W only as P W, so the layer counts as writing `read` dimensions and the next one as
// reading them (N = 1, dx = 3: hadamard:degree=2 then mlp:power=2:width=2 reads two
// quadrics, 16, where the span's 3 counted 19). A residual layer's y + F(y) is read as
// P y + P F(y): its F writes `read` dimensions, and the tokens still span what y and F fill
// (residual_span; mlp:power=3:residual,mlp:power=2:width=2, N = 2, dx = 3: 22, not 25).
struct LayerCount {
    long params = 0, eff = 0, n_next = 0;
    std::string how;
    // A layer whose outputs are each one form of degree forms_degree in the forms_in
    // coordinates of its input's span (a dense layer: (W v)^r, or W v); 0 for other kinds.
    // Of its rows, `rows` are read (eff = rows·(forms_in − row_loss): row_loss 1 where a
    // row's scale is undone in the next layer). Model::expected_losses caps a power layer
    // and such a layer after it by the forms they compose into.
    long forms_in = 0, forms_degree = 0, rows = 0, row_loss = 0;
    long read_by_next = 0;  // > 0: the next layer reads only this many directions of its output
    bool stream_span = false;  // a residual layer whose n_next follows the span (residual_span)
    // 0: each read row is an output (dense). > 0: the rows' powers are written through an
    // out_rows × rows map (mlp's W2), which keeps one scale per row (power >= 2) or GL(rows)
    // (power 1).
    long out_rows = 0;
    // The rows are products of forms_degree linear forms (fc's units), not powers of one: a
    // run through the layer is capped only by the forms its outputs are (Model::run_caps)
    bool products = false;
    // A defect known to be real in this layer's own count (not subtracted: the count stays
    // what the parameters and symmetries give): what it is and its size; empty, 0 for none.
    std::string known_defect;
    long known_defect_size = 0;
};

// The rows of the layer's output map that count (n_out), given what the next layer reads
// (`read`, above): a layer without residual also spans at most `read` dimensions, a
// residual one what residual_span gives. Marks the LayerCount so that say_read names it.
inline long narrowed_by_read(LayerCount& c, long n_out, long read, bool residual) {
    if (read >= n_out) return n_out;
    if (!residual) c.n_next = std::min(c.n_next, read);
    c.read_by_next = read;
    return read;
}
// A residual layer's tokens y + F(y) span at most what y spans and what F writes, and no
// more than y for a linear F ((I + B) y); marked as followed (stream_span) for the GL
// that passes through residual layers (Model::expected_losses).
inline void residual_span(LayerCount& c, long dx, long n_in, long writes, bool linear) {
    c.n_next = std::min(dx, linear ? n_in : n_in + writes);
    c.stream_span = true;
}
// w units writing Σ_a o_a ⊗ φ_a, φ_a in a space of `forms` dimensions: a tensor of rank
// <= w in Q^{n_out} ⊗ that space, (n_out + forms − w)·w, where it is below c.eff.
inline void cap_by_rank(LayerCount& c, long n_out, long forms, long w, const std::string& space) {
    if (forms >= LONG_MAX / 4 || w >= std::min(n_out, forms) || low_rank_dim(n_out, forms, w) >= c.eff) return;
    c.eff = low_rank_dim(n_out, forms, w);
    c.how += "; capped by the tensors of rank <= w in Q^n_out ⊗ (" + space + ")";
}
// dx channels ℓ_c² (a conv of power 2) read token by token in one direction u: every
// window's Σ_c u_c ℓ_c² is one quadric of rank <= b = min(dx, v) in its v coordinates, whose
// O(b) the channels' torus does not see: quadric_dim less u's dx entries, which the next
// layer counts (conv:power=2,mlp:power=1, N = 3, dx = 2, scalar: 7 as measured, not 8). O(1).
inline void cap_by_read_quadric(LayerCount& c, long v, long dx) {
    const long b = std::min(dx, v);
    if (b < 2 || quadric_dim(v, b) - dx >= c.eff) return;
    c.eff = std::max(0L, quadric_dim(v, b) - dx);
    c.how += "; read in one direction u: Σ_c u_c ℓ_c², " + quadric_text(b, v) + ", less u's " + std::to_string(dx) + " entries (the next layer's)";
}
// A flattening layer without residual whose `units` outputs are forms of degree d in its
// coordinates (`forms` = C(n + d − 1, d) of them), each up to its scale (c.eff), read by
// the next layer in k = read < units directions R (its input maps' rows): the next layer
// sees the k forms R·u, a k-tuple in a space of k·forms dimensions, with at most c.eff +
// k·units parameters (R's, the units' scales going into R's columns), and reads them
// through a map that GL(k) moves (g R·u, A' g⁻¹): min(c.eff + k·units, k·forms) − k², the
// next layer then reading k directions. Kept only where lower (fc:width=2:degree=2,
// mlp:power=3:width=1, N = 2, dx = 2, r = 1, every output: 4 as measured, not 7). O(1).
inline void narrowed_forms_read(LayerCount& c, long units, long forms, long read) {
    if (read >= units || read < 1 || forms >= LONG_MAX / 4) return;
    const long k = read, tuples = std::min(sat_mul(k, forms), c.eff > LONG_MAX / 4 ? LONG_MAX / 4 : c.eff + k * units) - k * k;
    if (tuples >= c.eff) return;
    c.eff = std::max(0L, tuples);
    c.n_next = std::min(c.n_next, k);
    c.read_by_next = k;
    c.how += "; read by the next layer in " + std::to_string(k) + " < " + std::to_string(units) + " directions R: the k-tuple R·u of forms, min(units' count + k·units, k·C(n+d-1, d)) - k² (GL(k) into the next layer's input maps)";
}
// fc's units without residual, each a product of d >= 2 linear forms in n_prev coordinates
// (`used` of them read): forms of degree d for the runs (Model::run_caps), narrowed where
// the next layer reads fewer directions (narrowed_forms_read); else, before a next layer
// reading them through its input maps (not last, no residual after), in n_prev = 2
// coordinates: binary forms factor, so the units are any binary forms of degree d and,
// at most d + 1 of them, independent: GL(units) passes into the next layer's input maps,
// not only the units' scales, units·(units − 1) more, leaving units·(d + 1 − units), the
// Grassmannian of their span (fc d=3 widths 2,1, N = 1, dx = 2, scalar: 8 as measured, not
// 10). O(1).
inline void products_count(LayerCount& c, long units, long d, long n_prev, long used, bool last, long read) {
    c.forms_in = n_prev, c.forms_degree = d, c.rows = used, c.products = true;
    if (last) return;
    narrowed_forms_read(c, units, monomials(n_prev, Integer(d), false), read);
    if (c.read_by_next > 0 || n_prev != 2 || units > d + 1 || units < 2) return;
    c.eff = std::max(0L, c.eff - units * (units - 1));
    c.how += "; binary forms factor: its units are any " + std::to_string(units) + " binary forms of degree d, and GL(" + std::to_string(units) +
             ") passes into the next layer's input maps, not only their scales";
}
inline void say_read(LayerCount& c) {
    if (c.read_by_next > 0)
        c.how += "; its output read by the next layer in " + std::to_string(c.read_by_next) + (c.read_by_next == 1 ? " direction" : " directions") +
                 " (the rows of that layer's input maps)";
}

// A linear stack's matrix W·(I_N ⊗ M) (tokens flattened after an embedding M of rank
// dx < r): N·dx, the coordinates W reads, and dx·(r − dx), M's row space (a point of
// Gr(dx, r)); n_dx = 0: not so factored.
struct Factored {
    long n_dx = 0, grassmannian = 0;
};
// A linear network (every layer of degree 1): one matrix of rank <= b from n0 inputs to
// n_out outputs (its row p alone: a linear form), whatever the factors; replaces every
// per-layer count. `factored`: W of rank <= b from the N·dx coordinates and M's row space,
// where that is fewer (dense:power=1:width=1, N = 3, dx = 1, r = 3, every output: 5 as
// measured, not 9). `shifted`: the matrix is I + C, C of rank <= b (every layer residual,
// no embedding). Never above the parameters. O(1).
inline void linear_network_count(bool scalar, long parameters, long n0, long b, long n_out, Losses& losses, Factored factored = {},
                                 bool shifted = false) {
    const auto matrices = [&](long n) { return scalar ? std::min(b, 1L) * n : low_rank_dim(n_out, n, std::min({b, n, n_out})); };
    long eff = matrices(n0);
    std::string how = shifted ? "a linear network of residual layers (d = 1): I + C, C of rank <= " + std::to_string(b) +
                                    " (the sum of the layers' widths: (I + C2)(I + C1) = I + C1 + C2 (I + C1)), whatever its factors"
                              : "a linear network (d = 1): one matrix of rank <= " + std::to_string(b) + ", whatever its factors";
    if (factored.n_dx > 0 && matrices(factored.n_dx) + factored.grassmannian < eff) {
        eff = matrices(factored.n_dx) + factored.grassmannian;
        how += ", times I_N ⊗ M (M of rank dx < r: its row space, dx·(r - dx) = " + std::to_string(factored.grassmannian) + ", and the " +
               std::to_string(factored.n_dx) + " coordinates N·dx it maps onto)";
    }
    losses.clear();
    add_loss(losses, how, parameters - std::min(eff, parameters));
}

// An mlp layer y ← W2 (W1 y)^{⊙r} (width w, power r; dx its token width) reading tokens that
// span n_in dimensions: per hidden unit one rescaling, the layer's space
// Q^{n_out} ⊗ Sym^r(Q^{n_in}); r = 1: W2 W1, a matrix of rank <= w.
inline LayerCount mlp_count(long w, long r, long dx, long n_in, bool last, bool scalar_last, bool residual, long read) {
    LayerCount c;
    c.params = 2 * w * dx;
    // The output lies in image(W2) and, token by token, is a linear image of the degree-r
    // forms of its n_in-dimensional input: at most C(n_in + r − 1, r) dimensions (n_in for
    // a linear layer).
    const long writes = std::min({dx, w, monomials(n_in, Integer(r), false)});  // the span of its own output
    c.n_next = residual ? dx : writes;
    const long n_out = narrowed_by_read(c, scalar_last ? 1 : last ? dx : c.n_next, read, residual);
    if (r == 1) {
        c.eff = low_rank_dim(n_out, n_in, std::min({w, n_in, n_out}));
        c.how = "a linear layer W2 W1: GL(w)";
    } else {
        const long space = sat_mul(n_out, monomials(n_in, Integer(r), false));
        c.eff = std::min(w * (n_in + n_out - 1), space);
        c.how = "per hidden unit one rescaling (row of W1 by t, column of W2 by t^-r)";
        if (r == 2 && n_out == 1 && w >= 2 && n_in >= 2) {
            // One form read: Σ_k a_k (w_k·y)², a quadric of rank <= b; O(b) keeps the sum
            // (Alexander–Hirschowitz's squares): b·n_in − C(b, 2).
            const long b = std::min(w, n_in);
            c.eff = quadric_dim(n_in, b);
            c.how += "; the one output read is " + quadric_text(b, n_in);
        } else if (c.eff < w * (n_in + n_out - 1)) {
            c.how += "; capped by the layer's space n_out·C(n_in+r-1, r)";
        }
        // Σ_k W2_k ⊗ (w_k·y)^r: a tensor of rank <= w in Q^{n_out} ⊗ Sym^r(Q^{n_in})
        cap_by_rank(c, n_out, monomials(n_in, Integer(r), false), w, "the C(n_in+r-1, r) forms");
    }
    if (scalar_last) c.how += "; rows of W2 other than p never read";
    say_read(c);
    if (n_in == 1 && !residual) c.n_next = 1;
    if (residual) residual_span(c, dx, n_in, writes, r == 1);
    if (!residual) {  // its w hidden units are forms of degree r in n_in coordinates, then W2
        c.forms_in = n_in, c.forms_degree = r, c.rows = w, c.out_rows = n_out;
    }
    return c;
}

// An attention layer (H heads of dimension da, query rank qr, score degree sd) reading
// tokens that span n_in dimensions.
// One token (N = 1): the score ⟨A y, y⟩^s reads A only through its symmetric part, a
// quadric of rank <= min(2a, n_in), and each output coordinate is one form of degree 2s + 1
// in y (docs/dimension.md, "One token").
inline LayerCount attention_count(long H, long da, long qr, long sd, long dx, long n_in, long tokens, bool last, bool scalar_last, bool residual, long read) {
    const bool one = tokens == 1;
    LayerCount c;
    c.params = H * (qr * dx + 3 * da * dx);
    // The layer's output lies in Σ_h image(W^O_h W^V_h): dimension <= H·min(da, n_in).
    long writes = std::min(dx, H * std::min(da, n_in));  // the span of its own output
    if (one) writes = std::min(writes, monomials(n_in, Integer(2 * sd + 1), false));
    c.n_next = residual ? dx : writes;
    const long n_out = narrowed_by_read(c, last ? dx : c.n_next, read, residual);
    const long a = std::min(qr, n_in);
    // The score depends on W^Qᵀ W^K only; with one token on its symmetric part alone.
    const long a_sym = std::min(2 * a, n_in);
    const long dimA = one ? quadric_dim(n_in, a_sym) : low_rank_dim(n_in, n_in, a);
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
    if (sd == 1 && H > 1 && (one ? a_sym : a) == n_in && b_full) {
        // Full-rank heads: the layer is Σ_h A_h ⊗ B_h, a rank-<=H tensor, GL(H) mixes heads
        // (one token: A_h symmetric).
        const long n1 = one ? n_in * (n_in + 1) / 2 : n_in * n_in;
        c.eff = H >= std::min(n1, nB) ? n1 * nB : H * (n1 + nB - H);
        c.how = one ? "per head GL(da) on (W^Q,W^K) and on (W^V,W^O); GL(H) mixing the heads, their symmetric parts of full rank"
                    : "per head GL(da) on (W^Q,W^K) and on (W^V,W^O); GL(H) mixing the full-rank heads";
    } else {
        c.eff = H * (dimA + dimB - 1);
        c.how = "per head GL(da) on (W^Q,W^K) and on (W^V,W^O), one rescaling between them";
    }
    if (one && dimA < low_rank_dim(n_in, n_in, a))  // a >= 2: the symmetric part has fewer dimensions than A
        c.how += "; one token: the score reads only the symmetric part of W^Qᵀ W^K, a quadric of rank <= " + std::to_string(a_sym);
    // Σ_j ⟨q_i, k_j⟩^s v_j is a tensor in Q^{n_out} ⊗ Sym^s(Q^{n_in}) ⊗ Sym^{s+1}(Q^{n_in})
    // (y_i s times, y_j s+1 times); for s = 1: n_out·n_in·n_in(n_in+1)/2. One token: n_out
    // forms of degree 2s + 1.
    const long rows_read = scalar_last ? 1 : n_out;
    const long space = one ? sat_mul(rows_read, monomials(n_in, Integer(2 * sd + 1), false))
                           : sat_mul(sat_mul(rows_read, monomials(n_in, Integer(sd), false)), monomials(n_in, Integer(sd + 1), false));
    if (space < c.eff) {
        c.eff = space;
        c.how += one       ? "; capped by the layer's space n_out·C(n_in+2s,2s+1)"
                 : sd == 1 ? "; capped by the layer's space n_out·n_in·n_in(n_in+1)/2"
                           : "; capped by the layer's space n_out·C(n_in+s-1,s)·C(n_in+s,s+1)";
    }
    // Each output coordinate, Σ_h ⟨A_h y_i, y_j⟩^s·(B_h y_j)_o, is a form in y_j in the ideal
    // of the k linear forms the values read (the rows of the B_h: one per head for the
    // scalar output, rank b each otherwise). With k < n_in the ideal misses the forms in the
    // other n_in − k coordinates: the span (a Grassmannian, k·(n_in − k)) and then a tensor
    // in the ideal's part leave at most k·(n_in − k) + n_out·C(n_in+s−1, s)·(C(n_in+s, s+1) −
    // C(n_in−k+s, s+1)) (N = 2, dx = 3, H = 2, da = 2, scalar: 17, where the heads count 20
    // and the space 18).
    // One token: n_out forms of degree 2s + 1 in that ideal.
    const long k = std::min(n_in, sat_mul(H, scalar_last ? 1 : std::min({da, n_in, n_out})));
    const long fd = one ? 2 * sd + 1 : sd + 1;  // the degree of the forms in y_j
    const long forms = monomials(n_in, Integer(fd), false);
    if (k < n_in && forms < LONG_MAX / 4) {
        const long in_ideal = forms - monomials(n_in - k, Integer(fd), false);
        const long ideal = std::min(LONG_MAX / 2, sat_mul(sat_mul(rows_read, one ? 1 : monomials(n_in, Integer(sd), false)), in_ideal)) +
                           k * (n_in - k);
        if (ideal < c.eff) {
            c.eff = ideal;
            c.how += "; capped by the ideal of the values' " + std::to_string(k) + " < n_in forms: k·(n_in−k) + " +
                     std::string(scalar_last ? "" : "n_out·") +
                     (one ? "(C(n_in+2s,2s+1) − C(n_in−k+2s,2s+1))" : "C(n_in+s−1,s)·(C(n_in+s,s+1) − C(n_in−k+s,s+1))");
        }
    }
    if (scalar_last) c.how += "; rows of W^O other than p never read";
    say_read(c);
    // A one-dimensional input: every head returns the same function times its own vector.
    if (n_in == 1 && !residual) c.n_next = 1;
    if (residual) residual_span(c, dx, n_in, n_in == 1 ? 1 : writes, false);
    return c;
}

// A hadamard block of degree d and width w.
// One token (N = 1): each unit is a product of d forms in y, so the block's space is
// n_out·C(n_in + d − 1, d), and for d = 2 read once a quadric (docs/dimension.md, "One token").
inline LayerCount hadamard_count(long d, long w, long dx, long n_in, long tokens, bool last, bool scalar_last, bool residual, long read) {
    const bool one = tokens == 1;
    LayerCount c;
    // The output lies in image(W^O) and in the image of Q^{n_in} ⊗ Sym^{d−1}(Q^{n_in}) (y_i
    // once, the token sums d − 1 times): at most n_in·C(n_in + d − 2, d − 1) dimensions (n_in
    // for a linear block); one token: Sym^d(Q^{n_in}), C(n_in + d − 1, d).
    const long forms_out = one ? monomials(n_in, Integer(d), false) : sat_mul(n_in, monomials(n_in, Integer(d - 1), false));
    const long writes = std::min({dx, w, forms_out});  // the span of its own output
    c.n_next = residual ? dx : writes;
    const long n_out = narrowed_by_read(c, scalar_last ? 1 : last ? dx : c.n_next, read, residual);
    c.params = (d + 1) * w * dx;
    if (d == 1) {
        const long b = std::min({w, n_in, n_out});
        c.eff = low_rank_dim(n_out, n_in, b);
        c.how = "a linear layer W^O W_1: GL(w)";
    } else if (d == 2 && scalar_last && one) {
        // Σ_a o_a (u_a·y)(v_a·y): a quadric of rank <= 2w.
        const long b = std::min(2 * w, n_in);
        c.eff = quadric_dim(n_in, b);
        c.how = "one token: a quadric of rank <= " + std::to_string(b) + " (the symmetric part of a bilinear form of rank <= w)";
    } else if (d == 2 && scalar_last) {
        // Σ_a o_a (u_a·y_i)(v_a·Σ_j y_j): a bilinear form of rank <= w, GL(w) on the rows.
        c.eff = low_rank_dim(n_in, n_in, std::min(w, n_in));
        c.how = "a bilinear form of rank <= w: GL(w) on the rows of W_1, W_2";
    } else {
        // Each unit: its d rows and W^O column up to d rescalings; all units together
        // at most the layer's space, Q^{n_out} ⊗ Q^{n_in} ⊗ Sym^{d−1}(Q^{n_in}) (one
        // token: Q^{n_out} ⊗ Sym^d(Q^{n_in})).
        c.eff = std::min(w * (d * n_in + n_out - d), sat_mul(n_out, forms_out));
        c.how = "per unit the rescaling of its d rows against its W^O column";
        if (c.eff < w * (d * n_in + n_out - d))
            c.how += one ? "; capped by the layer's space n_out·C(n_in+d-1, d) (one token)" : "; capped by the layer's space n_out·n_in·C(n_in+d-2, d-1)";
        // Σ_a o_a ⊗ φ_a, φ_a in that space: a tensor of rank <= w
        cap_by_rank(c, n_out, forms_out, w, "that space");
        // Degree 2 on three dimensions, w = 4: Σ_a o_a ⊗ u_a ⊗ v_a (y_i against Σ_j y_j) is
        // a tensor of rank <= 4 in Q^3 ⊗ Q^3 ⊗ Q^3, on Strassen's hypersurface: 26, not 27
        // (docs/dimension.md, "Defects").
        if (d == 2 && !one && w == 4 && n_in == 3 && n_out == 3 && c.eff == 27) {
            c.known_defect = "Strassen's block: unit a writes o_a ⊗ u_a ⊗ v_a (y_i against the token sum), so the block is a tensor of "
                             "rank <= 4 in Q^3 ⊗ Q^3 ⊗ Q^3, and those fill only a hypersurface, the 4th secant variety of "
                             "P^2 × P^2 × P^2: 26 dimensions where 27 are counted";
            c.known_defect_size = 1;
        }
    }
    if (scalar_last) c.how += "; rows of W^O other than p never read";
    say_read(c);
    if (n_in == 1 && !residual) c.n_next = 1;  // a one-dimensional input spans one dimension
    if (residual) residual_span(c, dx, n_in, writes, d == 1);
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



inline void check_layer_size(long v, long l, const std::string& what, long lo) {
    require(v >= lo, "layer " + str(l + 1) + ": " + what + " = " + str(v) + " must be at least " + str(lo));
    require(v <= kMaxSize, "layer " + str(l + 1) + ": " + what + " = " + str(v) + " exceeds the supported maximum " + str(kMaxSize));
}
}  // inline namespace SEPRANK_KERNEL_NS
}  // namespace seprank::detail
