// seprank — singular spectra of flattenings in orthonormal product bases, and the
// ε-separation rank they determine (docs/theory.md §2.7, docs/spectrum.md).
//
// Mathematics. μ = μ_1 ⊗ … ⊗ μ_n is a product probability measure on the variables of f,
// every factor the uniform measure on [−1, 1] or the standard Gaussian. Its orthogonal
// polynomials are products P_J(x) = Π_c p_{J_c}(x_c) of the Legendre polynomials p_j
// (p_j(1) = 1, ‖p_j‖² = 1/(2j+1)) resp. the probabilists' Hermite polynomials He_j
// (‖He_j‖² = j!). Each monomial expands exactly over Q: x^k = Σ_j a_{k,j} p_j with
// a_{k,j} = 0 unless j ≤ k and j ≡ k (mod 2). Writing f = Σ K_{J,L} P_J(x_A) P_L(x_B),
// with K = T_Aᵀ C T_B exact over Q (C the coefficient flattening, T the monomial →
// orthogonal change of basis of one side), the Schmidt coefficients of f in
// L2(μ_A) ⊗ L2(μ_B) are the singular values σ_1 ≥ σ_2 ≥ … of
//     M = D_A^{1/2} K D_B^{1/2},   D = diag(‖P_J‖²)  (rational),
// the only irrational step. rank M = rank C = sep(f) exactly (T is injective), and
// ‖f‖² = Σ σ_k² = Σ K_{J,L}² ‖P_J‖² ‖P_L‖² is an exact rational.
//
// ε-sep(f) = min{R : Σ_{k>R} σ_k² ≤ t}, t = ε² (absolute) or ε²‖f‖² (relative).
//
// Variants (one dispatcher, spectrum()):
//   spectrum_fast       σ of M in floating point: Eigen's BDCSVD in double (precision
//                       53) or JacobiSVD over MPFR numbers of `precision` bits. No error
//                       bound: ε-ranks are reported with certified = false.
//   spectrum_certified  encloses every σ_k in a ball. S = M Mᵀ (the smaller side) as an
//                       Arb ball matrix containing the exact S; an approximate
//                       eigenbasis V of mid(S) (double, or MPFR at `precision` bits);
//                       then with E = Vᵀ S V − Λ and F = Vᵀ V − I bounded in ball
//                       arithmetic, e ≥ ‖E‖_F and δ ≥ ‖F‖_F (δ < 1 required): by Weyl,
//                       |λ_k(Vᵀ S V) − Λ_(k)| ≤ e, and by Ostrowski,
//                       λ_k(Vᵀ S V) = θ_k λ_k(S) with θ_k ∈ [1 − δ, 1 + δ], so
//                       λ_k(S) ∈ [max(0, Λ_(k) − e)/(1 + δ), (Λ_(k) + e)/(1 − δ)],
//                       σ_k = √λ_k. The exact rank r (rank engine, certified) makes
//                       σ_k = 0 exactly for k > r. An ε-rank is certified when the
//                       enclosures of the tail sums decide the threshold; otherwise the
//                       range [rank_low, rank_high] is reported, never a guess. ε = 0
//                       gives the exact rank.
// Cost: building K is two dense products over Q (FLINT), of sizes (monomials of a side)
// × (orthogonal basis of a side); the spectrum is O(s³) for s = min(basis sizes), in
// double (fast) or in Arb ball arithmetic plus one double eigendecomposition (certified).
// Preconditions checked: ε ≥ 0 and finite, 53 ≤ precision ≤ 4096, basis sizes ≤
// SpectrumOptions::max_side (resource_limit), the partition's token count (a
// ValidPartition: O(1); a bare Partition: in full at the call, partition.hpp). Thread safety: re-entrant;
// the MPFR paths (precision > 53) are serialised by a mutex (Boost keeps one process-wide
// default MPFR precision).
#pragma once

#include "seprank/expand.hpp"
#include "seprank/integer.hpp"
#include "seprank/matrix.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/poly.hpp"
#include "seprank/rank.hpp"
#include "seprank/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

enum class Measure { uniform, gaussian };
// "uniform", "gaussian" (internal_error outside the enum). O(1).
std::string to_string(Measure m);
// The inverse (exact); invalid_input naming the text otherwise. O(1).
Measure measure_from_string(const std::string& s);

// One-dimensional facts, exact (used by the change of basis, and by tests as references).
// k, j, max_degree <= kMaxBasisDegree (invalid_input naming the value: 2^32 − 1 wrapped
// the table's size to 0); monomial_to_basis's table also within default_max_memory()
// (resource_limit). Each is exact and its cost grows with k (or j, max_degree) only.
// E[x^k] under the measure: uniform on [−1, 1]: 1/(k+1) for even k, 0 for odd; Gaussian:
// (k−1)!! for even k, 0 for odd. O(k) big-integer products.
inline constexpr unsigned kMaxBasisDegree = 1u << 16;
Rational moment(Measure m, unsigned k);
// ‖p_j‖² = E[p_j²]: 1/(2j+1) (Legendre), j! (Hermite). O(j) big-integer products.
Rational basis_norm2(Measure m, unsigned j);
// a[k][j] for 0 ≤ j ≤ k ≤ max_degree: x^k = Σ_j a[k][j] p_j(x) (the three-term
// recurrence). O(max_degree²) rational operations.
std::vector<std::vector<Rational>> monomial_to_basis(Measure m, unsigned max_degree);

// The flattening of f in the orthogonal (unnormalised) product bases of the two sides.
struct OrthoFlattening {
    QMat K{0, 0};                               // rows: basis_a, cols: basis_b
    std::vector<Rational> weight_a, weight_b;   // ‖P_J‖², ‖P_L‖²
    std::vector<std::vector<unsigned>> basis_a, basis_b;  // multi-indices J (the side's variables in order)
    Rational norm2;                             // ‖f‖², exact
    long flattening_rows = 0, flattening_cols = 0;  // shape of the coefficient flattening C
};

// The exact change of basis K = T_Aᵀ C T_B of f's coefficient flattening C (m_A × m_B
// monomials) into the product bases (k_A × k_B elements: every multi-index below a
// monomial of the side), with their squared norms and ‖f‖². side[v] = 0 (A) or 1 (B)
// per variable (size checked, invalid_input). max_side bounds both basis sizes
// (resource_limit when exceeded; ≤ 0: no bound on the count). Whatever max_side, the
// memory of the bases and of the dense matrices (16 bytes an entry at least) is estimated
// as the bases grow, before a monomial's basis elements are enumerated, and over
// default_max_memory() (limits.hpp) is resource_limit naming the basis size; both checks
// come before the dense matrices are allocated. An exponent above kMaxBasisDegree is
// resource_limit.
// Cost: dense exact products, O(m_A·m_B·k_B + k_A·m_A·k_B) rational operations; memory
// the dense m_A × m_B, m_A × k_B and k_A × k_B rational matrices.
OrthoFlattening orthogonal_flattening(const QPoly& f, const std::vector<int>& side, Measure m, long max_side = 4096);
// Checks what the spectra read of a flattening built by hand (invalid_input naming the
// field): one positive weight per row of K (weight_a) and per column (weight_b). The
// spectra below call it first. O(k_A + k_B).
void check_flattening(const OrthoFlattening& of);

enum class SpectrumMethod { certified, fast };
// "certified", "fast" (internal_error outside the enum) and the inverse (exact;
// invalid_input naming any other text). O(1).
std::string to_string(SpectrumMethod m);
SpectrumMethod spectrum_method_from_string(const std::string& s);

struct SpectrumOptions {
    Measure measure = Measure::uniform;
    SpectrumMethod method = SpectrumMethod::certified;
    long precision = 53;            // bits of the floating-point part (53: double)
    std::vector<double> eps;        // thresholds ε ≥ 0
    bool eps_absolute = false;      // false: ‖f − g‖ ≤ ε‖f‖; true: ‖f − g‖ ≤ ε
    long max_side = 4096;           // largest orthogonal basis of one side
    ExpandOptions expand;           // networks: the expansion's memory limit
    RankOptions rank;               // the exact rank r (certified flattening rank)
};

struct EpsRank {
    double eps = 0;
    long rank_low = 0, rank_high = 0;  // ε-sep ∈ [rank_low, rank_high]
    bool certified = false;            // rank_low == rank_high, proven (certified method)
    // rank_low == rank_high. O(1).
    bool decided() const noexcept { return rank_low == rank_high; }
};

struct SpectrumResult {
    std::vector<double> singular_values;  // descending, the non-zero ones (ball midpoints)
    std::vector<double> radii;            // certified: |σ_k − singular_values[k]| ≤ radii[k]
    double radius = 0;                    // certified: max radii (< 0: no bound, fast path)
    double norm = 0;                      // ‖f‖ (nearest double to the exact value's root)
    std::string norm_squared;             // ‖f‖², exact rational text
    long rank = 0;                        // the number of non-zero σ = sep(f)
    bool rank_certified = false;          // rank certified over Q
    std::vector<EpsRank> eps_ranks;
    bool eps_absolute = false;
    bool certified = false;               // certified method, balls valid
    Measure measure = Measure::uniform;
    SpectrumMethod method = SpectrumMethod::certified;
    long precision = 53;
    long rows = 0, cols = 0;              // coefficient flattening C
    long basis_rows = 0, basis_cols = 0;  // M (orthogonal bases of A and B)
    std::string partition;
    long degree = -1;                     // of f; -1 for the zero polynomial (as expand)
    long terms = -1;
    double seconds = 0;
    std::string note;
};

// Singular values (descending, all min(basis sizes)) of M = diag(√‖P_J‖²)·K·diag(√‖P_L‖²)
// in floating point, without error bounds: Eigen's BDCSVD in double (precision <= 53)
// or Jacobi SVD in MPFR at `precision` bits. precision in 53..4096 checked (invalid_input).
// Cost O(k_A·k_B·min(k_A, k_B)) floating-point operations (much more in MPFR).
std::vector<double> spectrum_fast(const OrthoFlattening& of, long precision = 53);

// Enclosures [lo_k, hi_k] of σ_k², descending, all min(basis sizes) of them (the exact
// rank is not used here: values beyond it are enclosed like the others).
struct SquaredEnclosure {
    std::vector<double> lo, hi;  // rigorous: lo_k ≤ σ_k² ≤ hi_k
};
// Method: M in Arb balls, an approximate eigenbasis V of the midpoint of M Mᵀ (or Mᵀ M;
// Eigen in double, or MPFR above 53 bits), then Weyl and Ostrowski bounds from the
// residuals of Vᵀ(M Mᵀ)V and Vᵀ V (docs/spectrum.md). precision in 53..4096 checked
// (invalid_input); internal_error if V is not close to orthogonal. Cost: two ball
// matrix products, O(k_A·k_B·min(k_A, k_B)) at precision + 32 bits, plus the
// O(min(k_A, k_B)³) eigensolve.
SquaredEnclosure spectrum_certified(const OrthoFlattening& of, long precision = 53);

// ε-ranks from enclosures of σ_k² (lo == hi for exact values) and the exact ‖f‖²:
// rank_low = min{R : tail_lo(R) ≤ t}, rank_high = min{R : tail_hi(R) ≤ t}, the tails
// bounded both by the sum of the tail and by ‖f‖² minus the head (sums in Arb balls);
// certified = `certified` and rank_low == rank_high. ε = 0 with exact_rank ≥ 0 gives
// exact_rank (certified = `certified`); exact_rank < 0: unknown, ε = 0 is treated like
// any other threshold. ε must be finite and ≥ 0, s2.lo, s2.hi of one length with
// 0 <= lo <= hi < inf, and norm2 >= 0 (invalid_input). Cost O(n) ball additions for the prefix sums plus O(n) per threshold.
std::vector<EpsRank> eps_ranks(const SquaredEnclosure& s2, const Rational& norm2, const std::vector<double>& eps,
                               bool absolute, bool certified, long exact_rank = -1);

// The dispatcher: f's flattening for the token partition (variables split by token
// index), its exact rank, and the spectrum by opt.method. Checked (invalid_input) on
// entry, whatever the method: opt.precision in 53..4096, every ε finite and >= 0,
// opt.expand.max_memory (0 or finite > 0); part.tokens() == n_tokens (O(1)); every
// variable with a token index. Cost: flatten, rank_certified of C (rank.hpp),
// orthogonal_flattening and spectrum_certified or spectrum_fast, as above.
SpectrumResult spectrum(const QPoly& f, const ValidPartition& part, long n_tokens, const SpectrumOptions& opt = {});
inline SpectrumResult spectrum(const QPoly& f, const Partition& part, long n_tokens, const SpectrumOptions& opt = {}) {
    return spectrum(f, ValidPartition(part, n_tokens), n_tokens, opt);
}
// A network's output f (expanded over Q under opt.expand: expand.hpp, its size check and
// cost first), then as above; checked as above and with check_shapes(net).
SpectrumResult spectrum(const Network& net, const ValidPartition& part, const SpectrumOptions& opt = {});
inline SpectrumResult spectrum(const Network& net, const Partition& part, const SpectrumOptions& opt = {}) {
    return spectrum(net, ValidPartition(part, net.spec.tokens), opt);
}

// One JSON object: singular_values, radii, radius (null on the fast path), norm,
// norm_squared, rank, rank_certified, eps_ranks [{eps, rank | rank_low/rank_high,
// certified}], eps_absolute, certified, measure, method, precision, rows, cols,
// basis_rows, basis_cols, partition, degree, terms, seconds, note. indent < 0: one line,
// else spaces per level, at most 64 (invalid_input). Linear in the output.
std::string to_json(const SpectrumResult& r, int indent = -1);

// The seed's experiments (docs/theory.md §2.7, data/eps_fd.csv, data/eps_blocks.csv).
//   fd      random members f = Σ_{l≤d} a_l Π_i x_i^{α_i^l} of F_d in n = 2 and 4 variables
//           (one per token, balanced partition), d = 2..6: exponents α uniform on
//           {0..3}, coefficients uniform on {−5..5} \ {0}. Per (n, d) and ε (ε = 0 is
//           sep): the number of trials with ε-sep = d, its fraction and 95% Wilson
//           interval, and the number of undecided trials (counted as misses).
//   blocks  attention vs hadamard (d = 3, tied and free) blocks at an equal parameter
//           budget (16 per layer: dx = w = 2), N = 2, 3, L = 1, 2, random integer
//           weights in [−5, 5]. Per configuration and ε: mean, min and max ε-sep over the
//           trials (undecided trials counted separately, mean over rank_low).
// Every spectrum is certified; records are deterministic in the seed (no timings).
struct EpsExperimentOptions {
    std::string kind = "fd";      // fd | blocks
    long trials = 100;            // per configuration, ≥ 1
    std::uint64_t seed = 1;
    std::vector<double> eps = {0.01, 0.1, 0.3};
    Measure measure = Measure::uniform;
};
// Checked (invalid_input): trials >= 1, kind fd or blocks, every ε as in eps_ranks; the
// work, estimated from the trials (about 1.5 ms a trial for fd, 95 ms for blocks), against
// default_max_seconds() (resource_limit, limits.hpp).
// Cost: trials × configurations certified spectra of small flattenings (fd: 2 × 5
// configurations of at most 6 terms; blocks: 12, of networks of at most 3 tokens and 2
// layers).
std::vector<Record> eps_experiment(const EpsExperimentOptions& opt);

// 95% Wilson score interval of `hits` successes in `n` trials (n ≥ 1, 0 ≤ hits ≤ n:
// invalid_input otherwise). O(1).
std::pair<double, double> wilson_interval(long hits, long n);

}  // namespace seprank
