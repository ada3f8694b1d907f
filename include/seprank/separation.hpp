// seprank — separation rank of a network or a polynomial w.r.t. a token partition:
// one entry point over the three methods of docs/theory.md §2.2–§2.4.
//
//   flattening  expand f (refused above the memory limit) and rank C_(A,B)(f) with the
//               rank engine: sep itself, certified over Q (field Q) or a modular lower
//               bound (field p).
//   grid        the matricization of the grid tensor on M templates, ranked exactly:
//               a certified lower bound of sep (Claim 7.1), exact as a rank of [[T]].
//   evaluation  black-box E[s,t] = f(a_s, b_t) mod p, grown until its rank stops
//               growing: a certified lower bound of sep, equal to it except with the
//               stated probability; never expands f.
#pragma once

#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/grid.hpp"
#include "seprank/partition.hpp"
#include "seprank/rank.hpp"

#include <functional>
#include <string>

namespace seprank {

enum class Method { flattening, grid, evaluation };
// "flattening" | "grid" | "evaluation" (internal_error outside the enum) and the inverse
// (exact; invalid_input naming any other text). O(1).
std::string to_string(Method m);
Method method_from_string(const std::string& s);

struct SeparationOptions {
    Method method = Method::flattening;
    bool certify = true;          // field Q (true) or p (false)
    std::uint64_t seed = 1;       // primes, templates, evaluation points
    long templates = 2;           // grid: M
    Templates template_vectors;   // grid: explicit templates (overrides `templates`)
    ExpandOptions expand;
    EvaluationOptions evaluation;
    RankOptions rank;
    // Called with the integer matrix about to be ranked (flattening over Q, grid), e.g.
    // to save it (rank --save-matrix); not called for field p or evaluation.
    std::function<void(const SparseZMat&)> on_matrix;
};

// Checks every value, whatever the method (invalid_input naming the value): templates
// M >= 1 (also when template_vectors or another method makes it unused), the evaluation
// options (check_options(EvaluationOptions)), expand.max_memory (0, or finite and > 0,
// also where nothing is expanded), rank threads in 1..max_threads(). Called by both separation_rank
// overloads before any work. O(1).
void check_options(const SeparationOptions& opt);

// The answer (answer.hpp): quantity "sep" for flattening and evaluation, "grid" for the
// grid method; kind exact only for a certified rank; method flattening | grid |
// evaluation; variant the rank engine's or evaluation's variant; partition; degree d^L
// (or the polynomial's degree); terms when f was expanded.
// Checked (invalid_input): check_options(opt), then the partition's token count
// (part.tokens() == net.spec.tokens, O(1)), then the network where the method's path
// takes it (check_shapes). Each overload below taking a bare Partition checks it in full
// against the token count at the call (partition.hpp), then goes on as its ValidPartition
// form. Cost by method: flattening, expand (expand.hpp: its size check before any work;
// time and memory follow the terms of f), flatten (O(terms·nvars)) and rank_certified of
// the flattening (one modular rank when certify is false); grid, grid_matricization
// (M^N exact evaluations) and rank_certified of the M^|A| × M^|B| matrix; evaluation,
// evaluation_rank (evaluation.hpp).
RankAnswer separation_rank(const Network& net, const ValidPartition& part, const SeparationOptions& opt = {});
inline RankAnswer separation_rank(const Network& net, const Partition& part, const SeparationOptions& opt = {}) {
    return separation_rank(net, ValidPartition(part, net.spec.tokens), opt);
}
// Flattening of a given polynomial; variables are split by their token index
// (opt.method must be flattening: invalid_input naming the method otherwise);
// part.tokens() == n_tokens checked (O(1)). Cost: flatten and rank_certified as above.
RankAnswer separation_rank(const QPoly& f, const ValidPartition& part, long n_tokens, const SeparationOptions& opt = {});
inline RankAnswer separation_rank(const QPoly& f, const Partition& part, long n_tokens, const SeparationOptions& opt = {}) {
    return separation_rank(f, ValidPartition(part, n_tokens), n_tokens, opt);
}

}  // namespace seprank
