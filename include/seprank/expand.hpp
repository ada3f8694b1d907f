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
#pragma once

#include "seprank/network.hpp"
#include "seprank/poly.hpp"

#include <cstdint>
#include <memory>

namespace seprank {

// x1_1..xN_dx, or w1_1..wN_r with an embedding (docs/theory.md §1).
Variables network_variables(const NetworkSpec& s);

struct ExpansionEstimate {
    Integer max_terms;  // upper bound on the terms of f
    double bytes;       // estimated peak memory of the expansion
};
ExpansionEstimate estimate_expansion(const NetworkSpec& s);

// The former fixed default (4 GiB); the default is now default_max_memory() (limits.hpp).
inline constexpr double kDefaultMaxMemory = 4.0 * 1024 * 1024 * 1024;

struct ExpandOptions {
    // Bytes. 0 (the default) means default_max_memory() (limits.hpp: half of the physical
    // memory unless set); a negative, infinite or NaN value is invalid_input. The check
    // cannot be switched off.
    double max_memory = 0;
};

QPoly expand(const Network& net, const ExpandOptions& opt = {});
// Over Z/p (p prime, not checked; p >= 2 checked). domain_error when p divides a
// weight's denominator.
NmodPoly expand_mod(const Network& net, std::uint64_t p, const ExpandOptions& opt = {});

}  // namespace seprank
