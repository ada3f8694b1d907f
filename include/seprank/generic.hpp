// seprank — generic rank with a stated probability (docs/theory.md §2.6, the measure-zero claim).
//
// The rank of a matricization at almost every weight point equals its maximum R*
// over weights (Claim 7.2). Each trial draws every weight uniformly from S = Z/p
// (|S| = p, a random 62-bit prime drawn by the trial: integer weights uniform on
// [-(p-1)/2, (p-1)/2]) and ranks the matrix mod p:
//   flattening  C_(A,B)(f mod p) from expand_mod — entries are polynomials of degree
//               D = D_L (the weight degree) in the weights;
//   evaluation  E[s,t] = f(a_s, b_t) mod p with random points — entries have degree
//               D = D_L + d^L in weights and points together.
// With an embedding (x^j = M w^j, M drawn with the weights) f has degree d^L in M's
// entries as well: D grows by d^L in both cases.
// A trial's rank is a certified lower bound of R* (specialising and reducing mod p
// never raise a rank). A trial lands below R* only if an R*×R* minor that is a non-zero
// polynomial of degree ≤ R*·D vanishes: probability ≤ R*·D/|S| (Schwartz–Zippel).
// Mod p the minor may also vanish identically: p divides its integer content, which has
// at most ρ·(log2 ρ + log2 F) bits for a minor of size ρ (F: f's coefficient sum,
// log2_structure_bound), so a prime drawn uniformly among the > 2^55.58 62-bit ones does
// with probability at most c = ⌈bits/61⌉ / that count. R* is unknown; if it exceeds the
// answer v, a trial stays at v only if a minor of size v+1 vanishes (flattening: s = v+1)
// or, for the evaluation, one of the minors its growth steps count (s = minor_sum, each
// min(rank+1, side)); a trial below v counts 1. Every trial draws its own prime, weights
// and points, so T trials give
//   failure_bound = Π_t (s_t·D/|S_t| + c_t) ≥ Pr[R* > v] (read at the observed v: the
//   bound grows with v).
// Trials below the maximum are reported as degenerate draws, never as the result.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/device.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

enum class GenericMethod { automatic, flattening, evaluation };
// The method's name, as the CLI's --method and the Python `method` key spell it: "auto",
// "flattening" or "evaluation". Precondition: m is one of the enumerators (an out-of-range
// value is internal_error). O(1).
std::string to_string(GenericMethod m);
// The inverse of to_string(GenericMethod): "auto", "flattening" or "evaluation";
// invalid_input naming the value for any other text ("generic method 'x' is not one of
// auto, flattening, evaluation"). O(|s|).
GenericMethod generic_method_from_string(const std::string& s);

struct GenericOptions {
    long trials = 2;
    std::uint64_t seed = 1;
    GenericMethod method = GenericMethod::automatic;
    double max_expand_bytes = 64.0 * 1024 * 1024;  // automatic: expand when estimated below this
    long max_side = 4096;                          // evaluation: largest k
    long start = 0;                                // evaluation: first k; 0: min(16, max_side)
    double growth = 1.25;                          // evaluation: growth factor of k (> 1)
    EvaluationVariant variant = EvaluationVariant::automatic;  // evaluation: plain | graded (auto: graded when f is homogeneous)
    int threads = default_threads();
    // 0: weights uniform on Z/p (|S| = p). R > 0: integers uniform on [-R, R]
    // (|S| = 2R+1) — small sets make degenerate draws likely; for demonstrations.
    long weight_range = 0;
    // evaluation (graded): a block store directory (EvaluationOptions::store), created
    // when missing; trial t keeps its units in STORE/trial<t>. Empty: in memory.
    std::string store;
    // Bits of the random prime p, 20..62 (checked, invalid_input). A smaller p raises the
    // failure bound (each trial's s·D/p); with at most 52 bits the batched evaluator can use its AVX-512
    // IFMA kernel (forward_batch.hpp), several times faster on processors that have it.
    int prime_bits = 62;
    // evaluation: a time budget in seconds for the whole call (0: none; finite, >= 0,
    // checked). Each trial's evaluation gets what is left of it (EvaluationOptions::
    // max_seconds); a trial stopped by it makes the answer a lower bound (converged false,
    // stop GrowthStop::time_budget). The flattening cannot be stopped part-way: a budget given to a
    // run that flattens is noted as unused.
    double max_seconds = 0;
    // Where the evaluation runs (EvaluationOptions::device; device.hpp): cpu, cuda or
    // automatic. On the GPU the method `automatic` is the evaluation, and the prime has
    // min(prime_bits, cuda_prime_bits()) bits (the note says when that is fewer). The
    // flattening always runs on the CPU (noted when a GPU was asked for).
    Device device = Device::cpu;
    // evaluation (graded): expected block ranks (EvaluationOptions::block_hints, entry a for
    // degree block a, −1: none) for the first trial; they steer the sides only. Every later
    // trial takes as its hints the largest rank of each block over the earlier converged
    // trials (each trial still draws and certifies on its own: with exact hints it ranks
    // each block once). Checked as there.
    std::vector<long> block_hints;
};

// Checks every value, whatever the method will be (invalid_input naming the value): the
// evaluation's max_side, start, growth, threads and max_seconds as check_options(EvaluationOptions),
// 1 <= trials <= 1000, prime_bits 20..62, weight_range >= 0, max_expand_bytes > 0, a store
// whose name has no control character (NUL included) and that is a directory, or absent
// with its folder an existing directory (the run creates it there; nothing is created here). Called by generic_rank and plan_sweep; a front end may call
// it before any other work. O(1) but the store's name, linear.
void check_options(const GenericOptions& opt);

// Whether generic_rank's method automatic runs the flattening for `spec`: on the CPU when
// estimate_expansion(spec).bytes <= opt.max_expand_bytes (expand.hpp), never on the GPU
// (`gpu`: the device generic_rank resolved from opt.device), which runs the evaluation.
// The flattening has no side limit, so a front end that checks a rank above max_side
// asks this first (guess --check). opt is not checked. Cost: estimate_expansion's.
bool generic_auto_flattens(const ValidSpec& spec, const GenericOptions& opt, bool gpu = false);

// The answer (answer.hpp): value = max over trials; kind generic when the trial that
// gave it converged (a converged one where several tie; else modular_lower_bound with
// failure_bound 1: a lower bound only); quantity "generic sep"; method flattening |
// evaluation (variant modular-sparse, or the evaluation's plain | graded | graded-parity); field Z/p;
// prime, rows, cols, terms (flattening: of f mod p), block_ranks: of the trial that gave
// the value; primes_used (distinct primes over the trials); trials (run: the trials stop
// after one that is exact, at every degree block's cap, or that did not converge, since
// no later trial changes the answer then; the note says so), trial_ranks, degenerate
// (trials below the maximum); set_size |S| (of that trial); weight_degree D_L; bound_degree D;
// failure_bound Π_t (s_t·D/|S_t| + c_t) (0 when exact); partition; degree d^L.
// Checked (invalid_input), before any draw: the spec, by the conversion to ValidSpec when
// given a bare NetworkSpec (once; the size estimate and every trial's random_network take
// the ValidSpec unchecked); the partition's token count (part.tokens() == spec.tokens,
// O(1); a bare Partition is checked in full at the call, partition.hpp); check_options(opt).
// Each trial's network is checked where it enters expand_mod or evaluation_rank
// (check_shapes), as any network; the partition is not checked again.
// Cost: T trials, each a draw of the weights and then, by method (automatic: flattening
// when estimate_expansion(spec).bytes <= max_expand_bytes), expand_mod, flatten and a
// sparse rank mod p (rank.hpp), or evaluation_rank (evaluation.hpp: about (g·R)² forward
// evaluations and (g·R)³ elimination for rank R, growth g); trials one after another,
// each evaluation on `threads` threads. The expansion is held to default_max_memory()
// (limits.hpp; the CLI's --max-memory): over it, resource_limit, which auto answers with
// the evaluation and the flattening asked for by name passes on.
RankAnswer generic_rank(const ValidSpec& spec, const ValidPartition& part, const GenericOptions& opt = {});
inline RankAnswer generic_rank(const ValidSpec& spec, const Partition& part, const GenericOptions& opt = {}) {
    return generic_rank(spec, ValidPartition(part, spec->tokens), opt);
}

}  // namespace seprank
