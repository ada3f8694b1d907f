// seprank — one answer type for every rank the library computes.
//
// rank_certified (a matrix), evaluation_rank (black box), separation_rank (network or
// polynomial, any method) and generic_rank all return a RankAnswer. Its `kind` says what
// the number is, honestly (docs/theory.md, "What the labels mean"):
//   exact                the rank over Q, certified (full rank mod p; exact kernel
//                        vectors per block; a multimodular Hadamard certificate;
//                        fraction-free elimination over Z; an evaluation whose every
//                        degree block reached its cap).
//                        failure_bound = 0.
//   modular_lower_bound  a rank mod p, or of a matrix that did not reach its final size:
//                        a certified LOWER bound of the quantity. failure_bound bounds the
//                        chance that the quantity is larger (1 when no bound is known).
//   generic              the maximum over random weight draws: a certified lower bound of
//                        the generic rank R*, equal to it except with probability at most
//                        failure_bound (Schwartz–Zippel; docs/theory.md §2).
//   numerical            floating point; never exact (reserved for float cross-checks).
// `quantity` says what the value is the rank of: "sep" (the separation rank of f),
// "grid" (the matricization of a grid tensor: rank [[T]] ≤ sep), "matrix" (a given
// matrix), "generic sep", or "dimension" (the Jacobian of the parameter map,
// dimension.hpp).
// The fields have columns in the registry (columns.hpp), of the same name but for
// `value`, whose column is `rank`; to_json writes those columns, in registry order, with
// null where a field does not apply. The fields marked below "not a column" (stop,
// stop_detail, engine_note, minor_sum, hinted_*) are the library's alone: they reach
// the text through `note` or the failure bound, not as columns of their own.
#pragma once

#include "seprank/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

enum class RankKind { exact, modular_lower_bound, generic, numerical };

// What ended a growth (evaluation, generic) whose rank had not stopped growing: none when
// it converged; the size limit (max_side); the time budget (max_seconds); memory (the next
// step's matrices would pass the memory limit, limits.hpp, or the device's memory).
enum class GrowthStop { none, size_limit, time_budget, memory };
// "none", "size limit", "time budget", "memory"; internal_error outside the enum. O(1).
std::string to_string(GrowthStop s);

// Wall-clock seconds spent in each phase of a rank computation (0 where a phase does
// not happen):
//   expand       expanding f (flattening), over Z or Z/p
//   matrix       building the matrix ranked: flattening, grid matricization, forward
//                evaluations of the evaluation method; reading a --matrix file
//   rank         the (first) modular elimination that gives the value
//   certificate  everything done after it to prove the value over Q (further primes,
//                exact solves and checks, fraction-free fallback)
// The sum is at most `seconds` (the rest is bookkeeping).
struct Phases {
    double expand = 0, matrix = 0, rank = 0, certificate = 0;
};
// "exact", "modular-lower-bound", "generic", "numerical"; internal_error for a value
// outside the enum (as to_string(Device)). O(1).
std::string to_string(RankKind k);

struct RankAnswer {
    long value = 0;                   // the rank
    RankKind kind = RankKind::modular_lower_bound;
    double failure_bound = 1;         // see above: 0 for exact, 1 when no bound is known
    std::string quantity = "sep";     // sep | grid | matrix | generic sep | dimension
    std::string method;               // flattening | grid | evaluation | matrix
    std::string variant;              // the algorithm that produced the value: blocks, pivot-span,
                                      // fraction-free, modular-dense, modular-sparse,
                                      // hadamard-multimodular, trivial (rank engine); plain,
                                      // graded, graded-parity (evaluation: graded with the
                                      // token symmetry or degree floor reduction, the default
                                      // where it applies)
    std::string field = "Q";          // Q | Z/p: where the final rank was computed
    long rows = 0, cols = 0;          // shape of the matrix ranked (graded evaluation: of the
                                      // block-diagonal matrix, the sum of the block sides)
    std::uint64_t prime = 0;          // the modulus the value was read at (0: none)
    std::string device = "cpu";       // the device that computed it: "cpu", or "cuda: <GPU name>"
                                      // (device.hpp; a note says so when `auto` fell back to the CPU)
    long primes_used = 0;             // moduli used in all, certificate included
    double seconds = 0;               // wall-clock time of the call
    double peak_mib = 0;              // peak resident memory of the process after the call, MiB
    Phases phases;                    // where the time went (JSON: object "phases")

    // Context, where it applies (empty / -1 otherwise).
    std::string partition;            // "1,2|3,4"
    std::string degree;               // d^L, or the polynomial's degree (exact integer as text)
    long terms = -1;                  // terms of the expanded f (-1: f was not expanded)
    bool converged = true;            // evaluation/generic: the rank stopped growing
    GrowthStop stop = GrowthStop::none;  // evaluation/generic: what ended the growth while the
                                      // rank still grew (none when converged). Not a column
                                      // of its own: converged is false then, and the note says why
    std::string stop_detail;          // stop == memory: where and why ("growth stopped before side
                                      // K for lack of memory (…)"); empty otherwise
    std::string engine_note;          // evaluation: how its matrices were computed and held (kernel,
                                      // degree blocks, block store, device memory), the start of its note
    long evaluations = 0;             // evaluation: forward passes
    double minor_sum = 0;             // evaluation: Σ over the growth steps (graded: and the blocks
                                      // ranked, a block at its cap too) of the minor size ρ = min(rank + 1, side)
                                      // whose vanishing the bound counts: failure_bound is
                                      // minor_sum·D/p (D = d^L) before the prime's term; generic
                                      // uses it with its own D. Not a column of its own
    long hinted_blocks = 0;           // graded evaluation (generic: its first trial's, the caller's hints): blocks with
    long hinted_final = 0;            // a block hint (EvaluationOptions::block_hints), those final at the first side they
    long hinted_equal = 0;            // were ranked at, and those final with a rank equal to, above and below the hint
    long hinted_above = 0;            // (the rest were not final). A hint only orders the work: the ranks and their
    long hinted_below = 0;            // label are as without it. Not columns of their own
    long hinted_absent = 0;           // hints > 0 for blocks of cap 0 (no monomial of that degree), not used,
    long hinted_over_cap = 0;         // and hints above their block's cap (ranked at the cap's side; among hinted_below)
    std::vector<long> block_ranks;    // graded evaluation: rank of each degree block f_a;
                                      // block certificate: rank of each connected block
    std::vector<long> kernel_blocks;  // block certificate: the blocks (indices into block_ranks)
                                      // below their smaller side, which needed a kernel
    long kernel_bits = 0;             // block certificate: largest entry of those kernels, bits
    long trials = 0;                  // generic: weight draws T
    std::vector<long> trial_ranks;    // generic: rank of each draw
    long degenerate = 0;              // generic: draws below the maximum
    std::uint64_t set_size = 0;       // generic: |S|, the size of the set weights are drawn from
    std::string weight_degree;        // generic: D_L
    std::string bound_degree;         // generic: D used in the bound
    std::string output;               // dimension: scalar | all
    long parameters = -1;             // dimension: the weights varied (-1: not a dimension)
    long expected = -1;               // dimension: parameters minus the obvious symmetries
    std::string note;                 // one line: how the label was earned

    // kind == exact. O(1).
    bool certified() const noexcept { return kind == RankKind::exact; }
    // One short label: "certified" (exact), "generic lower bound" (generic),
    // "probabilistic (p <= δ)" (modular lower bound with δ < 1), "lower bound" (δ = 1),
    // "numerical". δ printed with 3 significant digits, rounded up (bound_up). internal_error
    // for a kind outside the enum. O(1).
    std::string label() const;
};

// A probability bound as printed: the smallest number of `digits` significant decimal
// digits that is >= x (1.7321e-18 → 1.74e-18 at 3 digits), so a printed bound never
// claims less than the one computed. x <= 0 or not finite: x. digits 1..17 (not checked;
// clamped). O(1).
double bound_up(double x, int digits);
// A label as shown beside a number that was checked against something (guess --check, a
// verify claim): `label`, and for "generic lower bound" with failure_bound > 0 ", failure_bound
// δ" (δ by bound_up to 3 digits), so an agreement that is probabilistic says how much;
// "certified", "lower bound" and "probabilistic (p <= δ)" carry theirs already. O(1).
std::string label_with_bound(const std::string& label, double failure_bound);
// min(1, per^trials), the bound of `trials` independent draws that each fail with
// probability at most per (Schwartz–Zippel); never 0 when per > 0: below the smallest
// normal double, 2.23e-308, that double instead (an underflow would read as 0, exact; a
// subnormal prints below its value). per <= 0: 0. O(1).
double trials_bound(double per, long trials);
// The product of min(1, per_i): the bound of independent draws that fail with probabilities
// at most per_i each (each trial with its own prime, weights and points). Empty: 1. Some
// per_i <= 0: 0. Never 0 otherwise: floored at the smallest normal double as trials_bound.
// O(size).
double independent_bound(const std::vector<double>& per);

// The answer as a Record: the registry's answer columns, in order (every field but those
// marked "not a column"; `value` as `rank`). No precondition.
// O(columns + size of the vector fields).
Record to_record(const RankAnswer& a);
// to_json(to_record(a)): one JSON object (indent < 0: one line). Cost: to_record plus
// linear in the text.
std::string to_json(const RankAnswer& a, int indent = -1);

}  // namespace seprank
