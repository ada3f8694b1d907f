// seprank — black-box rank of a network by evaluation mod p, never expanding f.
//
// Two variants behind one dispatcher, evaluation_rank():
//
// evaluation_rank_plain (the reference). E[s,t] = f(a_s, b_t) mod p for random points
// a_s of the A-side tokens' variables and b_t of the B-side's (docs/theory.md §2.4). With V_A, V_B
// the evaluation matrices of the A- and B-monomials, E = V_A·C·V_Bᵀ, so rank E ≤ rank C
// = sep_(A,B)(f), and for independent generic points rank E_k = min(k, sep) for the k×k
// matrix. We grow k by a factor 1.25 (reusing every evaluation) until rank E_k < k: then
// rank E_k = sep unless the points were unlucky. Growth g keeps the last k below g·sep,
// so the evaluations (the dominant cost up to sides of several thousand) stay below
// g²·sep² and all eliminations together below g³/(g³−1)·(g·sep)³: 1.56·sep² and
// 3.9·sep³ for g = 1.25 (1.5: 2.25·sep² and 4.8·sep³) when every step is ranked from
// scratch; bordered (EvaluationOptions::bordered, the default) each step eliminates only
// its new rows and columns, about half of that (src/algebra/rank_bordered.hpp).
// Cost: k² forward evaluations (O(L·H·N·dx·da) each) + ranks of k×k dense matrices.
//
// evaluation_rank_graded (homogeneous f only: no residual connection, see
// is_homogeneous). f homogeneous of degree D = d^L splits as f = Σ_{a=0..D} f_a with
// f_a of degree a in the A-variables and D−a in the B-variables. The coefficient
// flattening is block diagonal with one block per a (a monomial of degree a on side A
// pairs only with monomials of degree D−a on side B), hence
//     sep_(A,B)(f) = Σ_a sep_(A,B)(f_a).
// For each pair of points, f(t·a_s, b_t) = Σ_a t^a f_a(a_s, b_t) is a polynomial in t of
// degree ≤ D: D+1 evaluations at t = 1..D+1 and one inverse-Vandermonde product give
// every f_a(a_s, b_t) exactly (mod p). Each block's k_a×k_a matrix is grown as above and
// stops at its own rank, or at cap_a = min(#A-monomials of degree a, #B-monomials of
// degree D−a), the most its rank can be. Cost: k_max²·(D+1) evaluations and Σ_a k_a³
// elimination, against (Σ_a rank_a)³ for the plain variant — for N=2, dx=3, L=4 (rank
// 15,942) that is the difference between hours and a minute.
//
// Labels (both variants): the rank mod p is a certified LOWER bound of sep (E mod p is
// the image of an integer matrix with rank ≤ sep). It equals sep except with probability
// at most Σ_steps ρ·D/p (Schwartz–Zippel on a ρ×ρ minor of degree ≤ ρ·D in the point
// coordinates, D = d^L; for the graded variant summed over blocks, and 0 for a block
// whose rank reached cap_a), provided that minor does not vanish identically mod p: p,
// drawn uniformly among the b-bit primes, divides the minor's integer content with
// chance at most one in prime_count_lower_bound(b) per b-bit prime factor of it
// (5.39·10^16 at 62 bits: negligible; 5.02·10^7 at the GPU's 31).
#pragma once

#include "seprank/answer.hpp"
#include "seprank/device.hpp"
#include "seprank/limits.hpp"
#include "seprank/model.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

enum class EvaluationVariant { automatic, plain, graded };
// "auto" | "plain" | "graded" (internal_error outside the enum) and the inverse (exact). O(1).
std::string to_string(EvaluationVariant v);
EvaluationVariant evaluation_variant_from_string(const std::string& s);  // invalid_input naming the value

struct EvaluationOptions {
    std::uint64_t seed = 1;
    std::uint64_t prime = 0;  // 0: a random 62-bit prime from the seed
    long start = 0;           // first k; 0: min(16, max_side)
    long max_side = 4096;     // largest k tried (graded: largest total side, the sum of the block sides)
    double growth = 1.25;     // k grows by this factor (> 1), rounded up to a multiple of 8
    int threads = default_threads();
    // automatic: graded when f is homogeneous and D + 1 <= max_graded_degree + 1, else plain.
    EvaluationVariant variant = EvaluationVariant::automatic;
    long max_graded_degree = 2048;
    bool parity = true;  // graded: skip the degree blocks that token symmetry or a degree floor makes zero (Model)
    bool batch = true;   // evaluate many points per pass (ModBatchEvaluator); false: one at a time (reference)
    // CPU, in memory: each growth step eliminates only the new rows and columns, bordering the
    // last step's LU (docs/rank.md, "Bordered variant"): about half the elimination work of a
    // run. false: every step's matrix is ranked from scratch (nmod_mat_rank, the reference).
    // The ranks are the same. With a block store each LU is kept there as a unit for the
    // next step (docs/evaluation.md, "Block store"). Not used on the GPU (ranked from
    // scratch there).
    bool bordered = true;
    // graded: a block store directory (created when missing, with its parent if needed;
    // a name with a control character or a NUL is refused, check_options).
    // Empty (default): everything in memory. Otherwise every step's work is cut into
    // units kept as files there (evaluation tiles, then one rank per open block), so a
    // killed run resumes where it stopped, losing only the units in progress (one per
    // thread), and several processes given the same directory share the work (each
    // claims free units by flock(2)). The answer is identical to the in-memory one (same
    // points, entries and ranks). A store of another computation is refused
    // (invalid_input). Ignored by the plain variant (its note says so).
    std::string store;
    // A time budget in seconds from the call's start (0: none). Before each growth step the
    // run predicts that step's time from the last one (plain: scaled by the cube of the side
    // ratio; graded: from the seconds per evaluated pair and per side³ ranked that the last
    // steps measured, counting the blocks that block hints would leave to rank at the end)
    // and stops when it would end past the budget: the answer is then a lower bound
    // (converged false, stop GrowthStop::time_budget, its note says so), as at the size limit. The first
    // step always runs. The value then depends on the machine's speed; without a budget it
    // does not.
    double max_seconds = 0;
    // graded: the expected rank of degree block a at entry a (a = 0..D; −1 or a missing
    // entry: none), from a previous trial, an earlier run or a conjectured law
    // (docs/evaluation.md, "Block hints"). They only steer the sides: a block with a hint
    // h is first ranked at side h + 8 + h/128 (or its cap), skipping the smaller sides, and
    // grows by `growth` from there while its rank stays full. The answer is certified as
    // without hints (each block's rank below its side, or at its cap); a wrong hint costs
    // time, never correctness. With exact hints each block is ranked once. The plain
    // variant ignores them (noted). Checked: entries >= −1, at most D + 1 of them
    // (invalid_input naming the value).
    std::vector<long> block_hints;
    // Where the forward evaluations and the eliminations run (device.hpp, docs/gpu.md):
    // cpu (default), cuda (refused where there is no GPU: invalid_input), or automatic. On
    // the GPU the prime is at most cuda_info().max_prime: a given larger prime is refused
    // (invalid_input), a drawn one has cuda_prime_bits() bits. The same prime and seed
    // give the same points, entries and rank on either device.
    Device device = Device::cpu;
};

// Checks every value, whatever the variant will be (invalid_input naming the value):
// max_side >= 1, start 0 or 1..max_side, growth finite and > 1, threads in 1..max_threads(),
// max_graded_degree >= 0, max_seconds finite and >= 0, block hints >= -1, a store whose name
// has no control character (a byte below 0x20, NUL included, or 0x7f: refused before
// anything is created). Called by every evaluation_rank* entry point. O(1) but the store's
// name and the hints, linear.
void check_options(const EvaluationOptions& opt);
// The first side k: opt.start, or min(16, max_side) when it is 0. Precondition (not
// checked): check_options(opt) passed. O(1).
long first_side(const EvaluationOptions& opt);

// log2 of a bound on the absolute values of the integer matrix Λ·C, where C is the
// coefficient flattening of f (any partition) and Λ = lcm(weight denominators)^{D_w}, D_w
// the weight degree (plus d^L with an embedding): Λ·C is an integer matrix with the rank of
// C, and each entry is at most Λ·||f||_1, ||f||_1 (the sum of the absolute values of f's
// coefficients) bounded by one forward pass in the log domain at the all-ones point with
// every weight replaced by its absolute value. With it the evaluation method bounds the
// chance that its random prime divides a non-zero minor of C (docs/evaluation.md,
// "Labels"). Checked: check_shapes(net). Cost: one forward pass in doubles, O(weights)
// lcm steps on the denominators.
double log2_coefficient_bound(const Network& net);
// The same for f as a polynomial in its weights and inputs together, every weight a
// variable (weight_abs 1) or an integer of absolute value at most weight_abs (>= 1, not
// checked): log2_coefficient_bound of the network of that shape with every weight, the
// structural zeros included (which can only raise it), equal to weight_abs. generic and
// dimension bound with it the chance that their random prime divides the content of the
// certifying minor. Cost: one random_network and one log-domain forward pass.
double log2_structure_bound(const ValidSpec& spec, long weight_abs);
// The largest of the same over the outputs (position, coordinate), 1-based, of m's network
// (each in range: not checked). Cost: one draw of m's weights, one forward pass per output.
double log2_structure_bound(const Model& m, long weight_abs, const std::vector<std::pair<long, long>>& outputs);

// is_homogeneous(spec), whether f is homogeneous, is declared in network.hpp (included above).

// Token-sign symmetry, the token symmetry of Model::token_modulus seen modulo 2
// (docs/evaluation.md, "Token symmetry"): entry k−1 is 1 when f is odd in token k's
// variables (f(…, −x_k, …) = −f), 0 when even; empty when the order m the layers keep is
// odd (fc, hadamard with free slots or an even block degree, attention with an even score
// degree). For attention f is odd in the output token i and even in every other token, at
// any depth, with or without residual or embedding. Precondition: a valid spec (not
// checked). O(N), a stack O(N + depth).
std::vector<int> token_parities(const NetworkSpec& s);

// The degree-block caps of a homogeneous network for a partition (docs/evaluation.md):
// cap_a = min(#A-monomials of degree a, #B-monomials of degree D − a), D = d^L, counting
// only the monomials the token symmetry and the degree floors allow (Model). The
// degree-a block of the flattening has at most cap_a rows or columns, for every choice
// of weights, so sep(f) ≤ Σ_a cap_a always; a rank that reaches the sum is exact.
// Empty when f is not homogeneous or the count would cost more than max_work steps
// (Model::degree_block_sides: (|tokens| − 2)·(D+1)²/(2m) steps, m the token modulus, plus
// 256·(D+1); the default, 2^31, is a second or two: D up to about 65,000·√m at N = 3, and
// 8.4 million at N = 2, where each side's one token costs O(D)); entries saturate at
// LONG_MAX/4. Cost O(|tokens|·D²/m + D), memory O(D).
// Preconditions: a valid spec (not checked; a ValidSpec converts, network.hpp); a
// partition of its tokens (checked, invalid_input: part.tokens() == s.tokens, O(1); a bare
// Partition is checked in full at the call, partition.hpp).
std::vector<long> degree_block_caps(const NetworkSpec& s, const ValidPartition& part, double max_work = kCapsMaxWork);
inline std::vector<long> degree_block_caps(const NetworkSpec& s, const Partition& part, double max_work = kCapsMaxWork) {
    return degree_block_caps(s, ValidPartition(part, s.tokens), max_work);
}

// The flattening's cap (Model::flattening_cap): Σ_a cap_a for a homogeneous network, and
// for any other the monomials of degree 0..D the smaller side can have under the token
// symmetry and the degree floors; sep(f) ≤ it at every weights, so a rank that reaches it
// is exact. −1 when unknown (D past a long, or over max_work as degree_block_caps).
// Preconditions, checks and cost as degree_block_caps.
long flattening_cap(const NetworkSpec& s, const ValidPartition& part, double max_work = kCapsMaxWork);

// The two sides of every degree block, of which degree_block_caps takes the smaller:
// a_side[a] = #A-monomials of degree a and b_side[a] = #B-monomials of degree D − a,
// a = 0..D, counting only the monomials the token symmetry and the degree floors allow (a
// block they rule out has 0 on both sides). The degree-a block of the flattening is a
// a_side[a] × b_side[a] matrix (`seprank table --blocks` prints both as cap_a, cap_b).
// Empty, preconditions, checks and cost as degree_block_caps.
// (DegreeBlockSides and kCapsMaxWork are model.hpp's; both functions build the spec's Model
// and ask it.)
DegreeBlockSides degree_block_sides(const NetworkSpec& s, const ValidPartition& part, double max_work = kCapsMaxWork);

// The answer: method "evaluation", quantity "sep", field Z/p, kind modular_lower_bound
// (exact when graded and every degree block reached its cap);
// failure_bound as above when converged, 1 when the rank was still full at max_side;
// rows = cols = the side (graded: Σ_a k_a); evaluations; block_ranks (graded: rank of
// f_a for a = 0..D); variant plain | graded; prime; partition; degree d^L.
// Checked (invalid_input): the network first (check_shapes, before any use of net.spec),
// the partition's token count (part.tokens() == N, O(1)) and check_options(opt). Each of
// the three has an overload for a bare Partition, checked in full against
// net.spec.tokens at the call (partition.hpp), before the network.
// Cost as at the top: k² forward evaluations for the last side k, and the eliminations
// (bordered: about half of ranking every step from scratch).
RankAnswer evaluation_rank_plain(const Network& net, const ValidPartition& part, const EvaluationOptions& opt = {});
// Precondition (checked, invalid_input): is_homogeneous(net.spec), d^L <= max_graded_degree,
// d^L + 1 < p. Cost as at the top (k_max²·(D+1) evaluations, Σ_a k_a³ elimination).
RankAnswer evaluation_rank_graded(const Network& net, const ValidPartition& part, const EvaluationOptions& opt = {});
// The dispatcher: opt.variant plain or graded runs that variant; automatic runs graded when
// f is homogeneous, d^L <= opt.max_graded_degree and (given a prime) d^L + 1 < p, plain
// otherwise. Checked and costed as the variant it runs.
RankAnswer evaluation_rank(const Network& net, const ValidPartition& part, const EvaluationOptions& opt = {});
inline RankAnswer evaluation_rank_plain(const Network& net, const Partition& part, const EvaluationOptions& opt = {}) {
    return evaluation_rank_plain(net, ValidPartition(part, net.spec.tokens), opt);
}
inline RankAnswer evaluation_rank_graded(const Network& net, const Partition& part, const EvaluationOptions& opt = {}) {
    return evaluation_rank_graded(net, ValidPartition(part, net.spec.tokens), opt);
}
inline RankAnswer evaluation_rank(const Network& net, const Partition& part, const EvaluationOptions& opt = {}) {
    return evaluation_rank(net, ValidPartition(part, net.spec.tokens), opt);
}

}  // namespace seprank
