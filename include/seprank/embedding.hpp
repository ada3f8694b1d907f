// seprank — Theorem 7.3 of Levine et al. 2020, the embedding-rank bottleneck
// (docs/theory.md §3.3, docs/embedding.md).
//
// With inputs x^j = M w^j (M ∈ Q^{dx×r}, shared by all tokens) the theorem states, for
// depth-L attention with H heads and m = min{r, dx}:
//   upper  log sep = Õ(L·m) for every weight value;
//   lower  log sep = Ω̃(L·(m − H)) for all weights outside a set of measure zero,
//          provided L > log3 dx and H < r.
// Õ/Ω̃ hide constants and logarithms, so nothing numeric can be flagged against them;
// this module gives the scales s_up = L·m and s_low = L·(m − H) for tables, the exact
// dimension count that the upper bound rests on, and the network edits that the exact
// consequences (verify claims embedding-*) compare.
#pragma once

#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <string>
#include <vector>

namespace seprank {

// The hypotheses of the lower bound: L > log3 dx (tested exactly as 3^L > dx) and
// H < r. invalid_input for dx < 1, H < 1, L < 0 or r < 1. Cost O(L).
bool theorem73_lower_applies(long depth, long dim, long heads, long embed_rank);

struct Theorem73Scales {
    bool applies = false;        // attention, no residual, with an embedding (r ≥ 1)
    long m = 0;                  // min{r, dx}
    long s_up = 0;               // L·m
    bool lower_applies = false;  // theorem73_lower_applies(L, dx, H, r)
    long s_low = 0;              // L·(m − H); meaningful only when lower_applies
};
// The scales of a configuration (all zero/false when !applies). Precondition: a valid
// spec (not checked; a ValidSpec converts; an applicable spec with dx, H < 1 throws
// invalid_input from theorem73_lower_applies). Cost O(L).
Theorem73Scales theorem73_scales(const NetworkSpec& spec);

// log3(rank) / scale; NaN when rank < 1 or scale ≤ 0 (a ratio to a non-positive scale
// says nothing). The theorem says these stay bounded as L grows at fixed r. O(1).
double theorem73_ratio(long rank, long scale);

// The exact count behind the upper bound: f(M w) depends on each token only through
// m = min{r, dx} linear forms (m = dx without an embedding) and has degree ≤ D = d^L,
// so sep_(A,B) ≤ min over the sides S of C(|S|·m + D, D), the number of monomials of
// degree ≤ D in |S|·m variables. Exact integer; cost O(|S|·m) big-integer products.
// Valid for every family, residual or not.
// Checked (invalid_input): the spec, by the conversion to ValidSpec when given a bare
// NetworkSpec (not again when given a ValidSpec); the partition's token count against
// spec.tokens (O(1); a bare Partition is checked in full at the call, partition.hpp).
// resource_limit (check_exact_bits, limits.hpp) when a side's count would pass the
// exact-number limit, before it is formed.
Integer embedding_cap(const ValidSpec& spec, const ValidPartition& part);
inline Integer embedding_cap(const ValidSpec& spec, const Partition& part) {
    return embedding_cap(spec, ValidPartition(part, spec->tokens));
}

// "above-cap" when rank exceeds embedding_cap (an exact consequence broken: a bug, not
// a constant), "" otherwise. Checked as embedding_cap; cost: one embedding_cap.
std::string theorem73_flag(long rank, const ValidSpec& spec, const ValidPartition& part);
inline std::string theorem73_flag(long rank, const ValidSpec& spec, const Partition& part) {
    return theorem73_flag(rank, spec, ValidPartition(part, spec->tokens));
}

// The same layer weights with the embedding removed (spec.embed_rank = 0) or replaced by
// M (spec.embed_rank = M.cols; invalid_input unless M has dx rows and 1..64 columns).
// The network is copied, not checked (the copy is checked where it is used). Cost:
// one copy of the weights (and of M).
Network without_embedding(const Network& net);
Network with_embedding(const Network& net, const Dense<Rational>& M);

// Rank of M over Q: one FLINT fmpq_mat_rref of the dx×r matrix (exact); meant for the
// small matrices of the verify claims. Checked: the shape (a.size() == rows·cols,
// invalid_input); before the elimination, its numbers' size — every one at most
// 2·k·(b + log2(k)/2 + 1) bits for k = min(rows, cols) and b = (numerator bits) +
// cols·(denominator bits) (Hadamard), rows·cols of them twice — by check_exact_bits
// (limits.hpp): resource_limit over 2^26 bits or over default_max_memory(). Cost: a scan of
// the entries, then O(rows·cols·k) exact ops.
long embedding_matrix_rank(const Dense<Rational>& M);

// The predicates the verify claims apply (kept apart so that their contrasts are fed to
// the very same test): sep with ≤ sep without; a ≤ b ≤ … ; all values equal (true for
// an empty list or one value). No preconditions; never throw. never_raises O(1), the
// others O(size of values).
inline bool never_raises(long sep_without, long sep_with) { return sep_with <= sep_without; }
bool non_decreasing(const std::vector<long>& values);
bool all_equal(const std::vector<long>& values);

}  // namespace seprank
