// seprank — the rank engine: exact ranks over Q with labels that can be trusted.
//
// Variants (all public, one dispatcher):
//   rank_fraction_free(A)    Bareiss fraction-free elimination over Z: the exact
//                            reference. O(n^3) operations on integers of growing size.
//   rank_modular(A, p)       rank of A mod p: dense (FLINT nmod_mat_rank) or sparse
//                            (rank_sparse_modular). For an integer matrix,
//                            rank_p(A) ≤ rank_Q(A) always (every non-zero minor mod p
//                            is a non-zero integer): a certified LOWER bound.
//   rank_sparse_modular(S)   incremental row echelon mod p with a dense accumulator:
//                            each row is reduced by the pivots found so far and kept
//                            when a non-zero remains. Cost O(m·n + m·r·ℓ) for rank r and
//                            pivot rows of average length ℓ; stops early once r = min(m,n).
//   rank_certified(A)        exact rank over Q with a proof:
//                            (1) r = rank mod a random 62-bit prime: rank_Q ≥ r.
//                            (2) if r = min(m, n): rank_Q = r.
//                            (3) else the certificate of opt.certificate: blocks
//                                (default, blocks.hpp: per connected block, exact
//                                kernel vectors on its smaller side), pivot-span
//                                (certificate.hpp: the non-pivot columns are checked
//                                exactly to be Q-combinations of the pivot columns;
//                                falls back to Hadamard when too large), or Hadamard
//                                (the reference), as follows.
//                                Hadamard: every (r+1)-minor M has |M| ≤ H, the
//                                product of the r+1 largest row norms (or column norms,
//                                whichever is smaller), after dividing each row and column
//                                by the gcd of its entries (rank-preserving). If
//                                rank mod p_k ≤ r for distinct primes with ∏ p_k > H, every
//                                (r+1)-minor is divisible by ∏ p_k yet smaller than it:
//                                zero. So rank_Q ≤ r. A prime that shows a higher rank
//                                raises r and the proof restarts.
//                            (4) when (3) would need more than max_primes primes, or more
//                                than max_certify_seconds (estimated as primes × the time
//                                of the first modular rank / threads), it falls
//                                back to fraction-free when the matrix is small, else it
//                                reports the modular lower bound uncertified with the
//                                chance that it is below the rank over Q: the non-zero
//                                minor has at most ⌈log2(H)/61⌉ prime factors above 2^61,
//                                out of more than 2^55.58 primes in [2^61, 2^62), the random
//                                prime drawn uniformly among them: failure_bound =
//                                ⌈log2 H / 61⌉ / 2^55.58.
// Preconditions: p prime for modular variants (checked: a composite modulus would reach
// FLINT's abort on a non-invertible pivot); shapes checked.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/device.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

// An integer matrix stored by rows, each a list of (column, value) with distinct
// columns in increasing order and non-zero values.
struct SparseZMat {
    long rows = 0, cols = 0;
    std::vector<std::vector<std::pair<long, Integer>>> row;
    // The stored entries, Σ row sizes. O(rows).
    std::size_t nnz() const;
    // The dense copy. check_matrix (below) first (invalid_input); the shape is checked as
    // ZMat's constructor (resource_limit). O(rows·cols + nnz) entry copies.
    ZMat to_dense() const;
    // The non-zeros of a, by rows. No precondition. O(rows·cols) entry tests plus the copies.
    static SparseZMat from_dense(const ZMat& a);
};

// Residues in [0, p), non-zero, columns increasing.
struct SparseNmodMat {
    long rows = 0, cols = 0;
    std::uint64_t p = 0;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> row;
};

// Checks a matrix built by hand (the library's own are well-formed): rows, cols >= 0, one
// list per row, each row's columns in [0, cols) and increasing, every stored value
// non-zero (mod p: a residue in [1, p), p >= 2, at most 2^32 columns). invalid_input naming
// the first bad row and column. Every function below that takes a sparse matrix calls it
// (rank_certified, rank_modular, rank_modular_cuda, reduce_mod, rank_sparse_modular,
// drop_empty_lines, log2_hadamard_bound, and blocks.hpp's).
// Cost O(rows + nnz).
void check_matrix(const SparseZMat& a);
void check_matrix(const SparseNmodMat& a);

// The residues of a's entries in [0, p), zeros dropped (rows keep their order). p >= 2
// checked (invalid_input); not that it is prime; check_matrix(a). O(nnz) word divisions of
// the entries.
SparseNmodMat reduce_mod(const SparseZMat& a, std::uint64_t p);

// The rank of A over Q by Bareiss fraction-free elimination (the exact reference, no
// prime involved). No preconditions (any shape, 0 rows or columns: 0). Cost O(m·n·r)
// exact operations on entries that grow to about r times the bits of A's largest entry
// (Hadamard): polynomial but slow; rank_certified is the fast route.
long rank_fraction_free(const ZMat& a);
// The rank of A mod p: a certified lower bound of rank_Q(A). p prime (checked:
// invalid_input, BPSW: O(log p) multiplications). Dense: a reduced copy (O(m·n)) and
// FLINT's nmod_mat_rank, O(m·n·min(m, n)) word operations (BLAS-like blocking). Sparse:
// reduce_mod then rank_sparse_modular, at its cost.
long rank_modular(const ZMat& a, std::uint64_t p);
long rank_modular(const NmodMat& a);
// The rank of a sparse matrix mod a.p (check_matrix(a); a.p prime, checked by
// sparse_echelon: invalid_input):
// incremental sparse echelon, shortest rows first, cost O(m·n + m·r·ℓ) as in the list above.
long rank_sparse_modular(const SparseNmodMat& a);

// rank_modular_fflas(A): rank of A mod p by FFLAS-FFPACK's BLAS-backed PLUQ elimination
// over Givaro::Modular<double> — the same value as rank_modular(A), several times faster
// on large dense matrices, but only for small primes: p < fflas_max_prime = 2^26
// (checked, invalid_input) and prime (checked). A smaller prime weakens a probabilistic
// bound that divides by p: callers account for it (bench/RESULTS.md measures the speed).
// Without FFLAS-FFPACK at build time (fflas_available() false) it ranks with FLINT's
// nmod_mat_rank. Cost O(m·n·min(m,n)) through BLAS dgemm; a copy of A as doubles.
// FFLAS is compiled twice on x86-64 (src/meson.build): for the baseline x86-64 and for
// x86-64-v3 (AVX2, FMA; about 2.8x faster). The one-argument form runs the v3 copy where
// fflas_v3_available(), the baseline copy otherwise; the two-argument form picks one
// (FflasCopy::x86_64_v3 where it is not available: invalid_input, naming why).
inline constexpr std::uint64_t fflas_max_prime = std::uint64_t{1} << 26;
enum class FflasCopy { automatic, baseline, x86_64_v3 };
// Whether this build has FFLAS-FFPACK. O(1).
bool fflas_available() noexcept;
// Whether the x86-64-v3 copy can run: built in, the processor (and OS) support AVX2 and
// FMA, and the environment variable SEPRANK_SIMD is not "0" (read at each call). O(1).
bool fflas_v3_available() noexcept;
// The copy the one-argument form runs now: "x86-64-v3", "baseline", or "flint" (built
// without FFLAS-FFPACK). O(1).
const char* fflas_copy_name() noexcept;
// rank_modular_fflas as described above fflas_max_prime (checks and cost there).
long rank_modular_fflas(const NmodMat& a);
long rank_modular_fflas(const NmodMat& a, FflasCopy copy);
// rank_modular (above) of a sparse matrix: reduce_mod (check_matrix(a), p >= 2) and
// rank_sparse_modular (p prime checked), whose cost it has.
long rank_modular(const SparseZMat& a, std::uint64_t p);

// rank_modular_blocked(A, tile): rank of A mod p by right-looking blocked elimination on
// centred residues held in doubles, with exact delayed reduction: the CPU reference of the
// CUDA engine's elimination (rank_modular_cuda below), which runs the same steps
// (src/algebra/blocked_rank_impl.hpp): panels of `tile` columns (0: 256), each factored in leaves
// of 32 columns (pivot: the first active row with a non-zero entry; a column without one
// is skipped), trailing updates as double GEMMs (Eigen here) whose inner dimension is at
// most K = floor((2^53 - 2p - h) / h^2), h = floor(p/2), so every sum is an exact integer,
// with a reduction between chunks of K (K >= 512 for p < 2^23, K = 8 just below 2^26).
// For 2^26 < p < 2^46 the two-limb mode: each product runs as four GEMMs on 23-bit limbs
// of the entries (below 2^31, two: one operand whole, the other in 16-bit limbs), combined
// mod p in 64-bit integers (docs/rank.md "Blocked variant").
// The same value as rank_modular(A) for any rank profile. Preconditions (checked,
// invalid_input naming the value): p prime and p <= blocked_max_prime (the largest prime
// below 2^46); tile >= 0. Cost O(m·n·min(m,n)) flops, (2/3)n^3 for a square matrix
// (4 times that above 2^31, 2 times between 2^26 and 2^31), through Eigen's GEMM (no faster
// than nmod_mat_rank: it is a reference); memory 8·m·n bytes plus 16·m·tile + 8·tile^2,
// above 2^26 plus at most 24·m·s + 4096·(m + s) bytes of limbs and products (below 2^31:
// 16·m·s + 4096·m), s = min(n, 8·tile) (tile 0: 256).
inline constexpr std::uint64_t blocked_max_prime = 70368744177643;
long rank_modular_blocked(const NmodMat& a, int tile = 0);

// Rank of a mod p on the GPU (device.hpp, docs/gpu.md), by the blocked elimination whose
// CPU reference is rank_modular_blocked: the same value as rank_modular(a). tile: the
// panel width (0: the engine's default).
// Checked: a GPU (invalid_input "Device cuda: ..." where there is none), p prime and
// p <= cuda_info().max_prime (invalid_input naming p), the matrix and its workspace fit in the
// GPU's free memory (resource_limit naming both sizes, before any work). A CUDA failure
// part-way: internal_error naming the call. Cost O(m·n·min(m, n)) on the GPU, one copy of a.
// gpu_seconds (optional): set to the device time of the elimination (the upload excluded).
long rank_modular_cuda(const NmodMat& a, int tile = 0, double* gpu_seconds = nullptr);
// The ranks of several matrices mod one prime on the GPU in one call, side by side
// (docs/gpu.md, "Blocks side by side": those whose larger side is above 4096 one at a time,
// the others on up to 8 streams, as many as the free memory holds copies of the largest).
// The same values as rank_modular_cuda on each. Preconditions and refusals as
// rank_modular_cuda's, for every matrix; every matrix mod the first one's prime
// (invalid_input). gpu_seconds: the call's wall time; streams: the most ranked at once.
// Cost: their eliminations, the small ones overlapped, and one upload each.
std::vector<long> rank_modular_cuda_many(const std::vector<const NmodMat*>& mats, double* gpu_seconds = nullptr, int* streams = nullptr);
// The same for a sparse matrix, through a dense copy (resource_limit when that copy would
// pass 64 GiB). check_matrix(a) first (invalid_input). Cost: the copy, O(m·n), then as
// above; gpu_seconds as above.
long rank_modular_cuda(const SparseNmodMat& a, double* gpu_seconds = nullptr);

// The certificate of rank_Q ≤ r when the first prime does not show full rank:
//   blocks      (default; blocks.hpp) the matrix split into the connected blocks of its
//               non-zeros, each ranked mod p on its smaller side and, where it falls
//               below that side, proven by exact kernel vectors lifted p-adically: cost
//               follows the blocks' deficiencies, not the whole matrix; a block whose
//               kernel is not proven within the budget goes to hadamard.
//   pivot_span  (certificate.hpp) the non-pivot columns of the whole matrix are shown to
//               be exact Q-combinations of the pivot columns: cost follows r, the
//               sparsity and the size of the combinations; falls back to hadamard when
//               they are huge. The global reference of blocks.
//   hadamard    the multimodular Hadamard certificate of steps (3)-(4): the reference.
enum class Certificate { blocks, pivot_span, hadamard };
// "blocks" | "pivot-span" | "hadamard" (internal_error outside the enum) and the inverse
// (exact; invalid_input naming any other text). O(1).
std::string to_string(Certificate c);
Certificate certificate_from_string(const std::string& s);

struct RankOptions {
    std::uint64_t seed = 1;     // picks the random primes
    bool certify = true;        // false: one modular rank, reported as a lower bound
    long max_primes = 20000;    // budget of primes for the Hadamard certificate
    double max_certify_seconds = 60;  // budget of time for it, estimated from the first modular rank
    long fraction_free_max = 120;  // fall back to Bareiss up to this many rows and columns
    int threads = default_threads();            // primes are ranked in parallel
    std::uint64_t prime = 0;    // certify == false: this prime (0: random 62-bit; else prime, checked)
    Certificate certificate = Certificate::blocks;
    // Where the modular ranks run (device.hpp; cuda where there is none: invalid_input before
    // any work). certify == false: cuda ranks the dense matrix on the GPU mod opt.prime (at
    // most cuda_info().max_prime, else invalid_input) or a random prime of cuda_prime_bits()
    // bits; the failure bound counts primes of that size. certify == true: the Hadamard
    // reference (Certificate::hadamard, and the fallback of the other two) ranks on the GPU,
    // mod distinct primes of cuda_prime_bits() bits, every matrix whose dense copy fits 4 GiB;
    // the echelon forms and kernels of the blocks and pivot-span certificates stay on the CPU.
    Device device = Device::cpu;
};
// Checks every field whatever the method (invalid_input naming it): threads in 1..max_threads(),
// max_primes >= 0, max_certify_seconds finite and >= 0, fraction_free_max >= 0,
// certificate and device values of their enums. rank_certified and separation_rank call
// it. O(1).
void check_options(const RankOptions& opt);

// The modulus of a single modular rank (certify == false): opt.prime, or else a random
// 62-bit prime drawn from Rng(opt.seed). When opt.device resolves to the GPU
// (choose_device): opt.prime if at most cuda_info().max_prime (else invalid_input naming
// it), or else a random prime of cuda_prime_bits() bits. invalid_input where opt.device is
// cuda and there is no GPU. Cost: choose_device (cuda_info()), then random_prime's, about
// (bits·ln 2)/2 primality tests expected.
std::uint64_t modular_prime(const RankOptions& opt);

// Dispatcher: sparse or dense by density (dense FLINT when nnz > 15% of m·n and the
// dense matrix fits in 1 GiB), then certification as described above. The answer has
// quantity "matrix", method "matrix", variant = what decided it (trivial, modular-dense,
// modular-sparse, blocks, pivot-span, hadamard-multimodular, fraction-free), kind
// exact when certified, else modular_lower_bound with the failure bound of (4) (with
// certify == false, the chance that one random prime of its size divides a non-zero
// minor of the rank's size; 1 when opt.prime was given, as it was not drawn).
// Checked first: check_options(opt); a sparse matrix, check_matrix(a).
// The blocks certificate (the default) reports variant "blocks", the pivot-span one
// "pivot-span", when it proved the value. phases.rank is the first
// modular elimination, phases.certificate the rest (answer.hpp).
// Cost: check_matrix, O(rows + nnz); one modular rank (sparse O(m·n + m·r·ℓ), dense
// O(m·n·min(m, n)); the ZMat form first tries a 30-bit prime), which ends it at full rank
// or with certify == false. Otherwise the certificate, data-dependent: blocks (blocks.hpp:
// one sparse elimination per block, and a deficient block's kernel lifting), pivot-span
// (certificate.hpp: one sparse elimination per prime, as many as the bits of the
// combinations need), hadamard: about log2 H / 61 more modular ranks on `threads` threads
// (within max_primes and max_certify_seconds; redone after a raise, at most 8 rounds), and
// as the fallback Bareiss, O(m·n·r) exact operations, up to fraction_free_max rows and
// columns. A matrix with far more columns than entries is ranked after drop_empty_lines.
RankAnswer rank_certified(const SparseZMat& a, const RankOptions& opt = {});
RankAnswer rank_certified(const ZMat& a, const RankOptions& opt = {});

// The matrix without its empty rows and columns (columns renumbered in order): the same
// rank, and a shape bounded by the non-zeros whatever the declared one (a 1 x 2·10^8
// matrix with one entry becomes 1 x 1). rank_certified(SparseZMat) ranks this form when
// it is smaller and reports the shape given. check_matrix(a) first (invalid_input); rows
// without entries are dropped, the others keep their order. Cost O(nnz log nnz).
SparseZMat drop_empty_lines(const SparseZMat& a);

// log2 of the Hadamard bound on the k×k minors of a as given: half the sum of the k
// largest log2 squared row norms, or of column norms, whichever is smaller (a zero line
// counts 0; k beyond the lines: all of them). rank_certified applies it after removing
// row and column contents. check_matrix(a) first (invalid_input); k <= 0: 0. Cost O(nnz)
// multiplications of entries plus sorting the m + n norms.
double log2_hadamard_bound(const SparseZMat& a, long k);

}  // namespace seprank
