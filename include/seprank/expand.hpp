// seprank — exact expansion of a network's output into a sparse polynomial.
//
// f = coordinate p of position i of the network output, as a polynomial in the token
// variables x_{j,c} (or w_{j,c} with an embedding), built layer by layer with FLINT
// mpoly arithmetic over Q (expand) or Z/p (expand_mod), forming every product once
// (see forward_impl.hpp for the associative forms used).
//
// Before any product is formed, estimate_expansion() bounds the result: terms ≤ the
// number of monomials of total degree d^L (homogeneous networks) or ≤ d^L (residual)
// in n = N·(dx or r) variables, C(n+D−1, n−1) resp. C(n+D, n); bytes ≈ 4 live
// polynomials of that many terms (packed exponent words + coefficient). If the estimate
// exceeds ExpandOptions::max_memory, expand throws resource_limit naming the estimate
// and suggesting the evaluation method, which never expands.
//
// Two variants behind one dispatcher (docs/expand.md):
//   layered  the reference: the forward pass of forward_impl.hpp with polynomials as its
//            scalars, every family.
//   moment   attention only (FamilyInfo::moment_expansion). Linear attention sees the tokens only through their moment
//            matrix: with G = Σ_j w_j w_jᵀ (r×r, r = dx or the embedding rank),
//            y^{l,j} = T_l w_j for a dx×r matrix T_l of polynomials in the entries of G:
//              T_0 = E (the embedding, or I),
//              T_{l+1} = Σ_h O_h V_h (T_l G T_lᵀ) K_hᵀ Q_h T_l  (+ T_l with a residual),
//            because Σ_j ⟨Q y_i, K y_j⟩ V y_j = V (Σ_j y_j y_jᵀ) Kᵀ Q y_i and
//            Σ_j y_j y_jᵀ = T G Tᵀ. So f = e_pᵀ T_L w_i. The pass runs in the small ring
//            Q[g_ab (a ≤ b), z_1..z_r] (T_L has degree (3^L−1)/2 in G, so at most
//            C((3^L−1)/2 + r(r+1)/2 − 1, r(r+1)/2 − 1) monomials per entry, whatever N),
//            then one composition g_ab ↦ Σ_j w_ja w_jb, z_k ↦ w_ik gives f. Same
//            polynomial as layered (tested), much less work when N·dx variables carry
//            far more monomials than the moment ring (N ≥ dx): attention N=4 dx=2 L=3,
//            687,208 terms, 4.2 s → under 1 s (bench/EXPAND.md).
//   automatic  moment for attention when 16 · r · (moment-ring monomials per entry) ≤
//            (output monomials), layered otherwise (choose_expand_variant).
#pragma once

#include "seprank/network.hpp"
#include "seprank/poly.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace seprank {

// Checks. The functions taking `const ValidSpec&` check a bare NetworkSpec once, in the
// conversion to ValidSpec (network.hpp), and a ValidSpec not at all. Each expand* entry
// point checks its network once (check_shapes: spec and weight shapes, invalid_input)
// before any work and passes the validated spec on; then the variant's own checks below.

// x1_1..xN_dx, or w1_1..wN_r with an embedding (docs/theory.md §1). Spec checked as above.
// O(N·dx) (or N·r) names.
Variables network_variables(const ValidSpec& s);

struct ExpansionEstimate {
    Integer max_terms;  // upper bound on the terms of f
    double bytes;       // estimated peak memory of the expansion
};
// An upper bound on the terms of f from the spec alone: every monomial of degree D = d^L
// in the n input variables (C(n+D−1, n−1); of degree <= D, C(n+D, n), when f is not
// homogeneous; 2^4096 when n + D overflows a long), and the bytes an expansion of that
// many terms would take at its peak (4 × terms × (packed exponents + 40 bytes); the
// size check of expand). Preconditions: the spec, checked as above. Cost: the binomial,
// O(n) products of integers of O(n·log D) bits.
ExpansionEstimate estimate_expansion(const ValidSpec& s);

// The former fixed default (4 GiB); the default is now default_max_memory() (limits.hpp).
inline constexpr double kDefaultMaxMemory = 4.0 * 1024 * 1024 * 1024;

enum class ExpandVariant { automatic, layered, moment };
// "auto", "layered", "moment" (as EvaluationVariant and Method name theirs; internal_error
// outside the enum); expand_variant_from_string throws invalid_input naming the text. O(1).
std::string to_string(ExpandVariant v);
ExpandVariant expand_variant_from_string(const std::string& text);

struct ExpandOptions {
    // Bytes. 0 (the default) means default_max_memory() (limits.hpp: half of the physical
    // memory unless set); a negative, infinite or NaN value is invalid_input. The check
    // cannot be switched off.
    double max_memory = 0;
    ExpandVariant variant = ExpandVariant::automatic;
    // How each product over Q is formed (poly.hpp, MulVariant; docs/poly.md#products): the
    // polynomial is the same for every choice, only time and memory differ. Over Z/p FLINT's.
    MulVariant product = MulVariant::automatic;
};

// The variant that runs for `requested`: requested itself unless it is automatic, which
// resolves to moment for attention when 16·m_G ≤ m_x, m_G = r·C(D_T + g − 1, g − 1)
// monomials of the moment ring (g = r(r+1)/2, D_T = (3^L−1)/2; with a residual, degree
// ≤ D_T: C(D_T + g, g)), m_x the output bound of estimate_expansion; layered otherwise.
// Never returns automatic; depth 0 gives layered. Spec checked as above. O(1) (the counts
// compared as logarithms in doubles).
ExpandVariant choose_expand_variant(const ValidSpec& s, ExpandVariant requested = ExpandVariant::automatic);

// The dispatcher: opt.variant, `automatic` resolved by choose_expand_variant. Checked, in
// this order (invalid_input or resource_limit): check_shapes(net); moment on a family
// other than attention; over Z/p, p >= 2; opt.max_memory and the size estimate.
// Cost: data-dependent, dominated by the polynomial products of the variant's pass (the
// forward pass's operation count, forward.hpp, with polynomials as scalars; each product
// about the product of its operands' term counts), up to estimate_expansion's max_terms
// per polynomial; memory bounded by its bytes, checked before the first product.
QPoly expand(const Network& net, const ExpandOptions& opt = {});
// Over Z/p (p prime, not checked; p >= 2 checked). domain_error when p divides a
// weight's denominator. Cost as expand, on words mod p, plus the reduction of the weights
// (O(parameters)).
NmodPoly expand_mod(const Network& net, std::uint64_t p, const ExpandOptions& opt = {});

// The variants themselves (opt.variant is ignored), checked as the dispatcher.
// expand_layered is the reference. Cost as expand / expand_mod: layered forms every
// product of the forward pass in the N·dx input variables; moment forms them in the small
// moment ring (at most r·C(D_T + g − 1, g − 1) terms, header) and pays one composition
// into the input variables at the end.
QPoly expand_layered(const Network& net, const ExpandOptions& opt = {});
QPoly expand_moment(const Network& net, const ExpandOptions& opt = {});
NmodPoly expand_mod_layered(const Network& net, std::uint64_t p, const ExpandOptions& opt = {});
NmodPoly expand_mod_moment(const Network& net, std::uint64_t p, const ExpandOptions& opt = {});

}  // namespace seprank
