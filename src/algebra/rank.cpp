#include "seprank/rank.hpp"

#include "seprank/blocks.hpp"
#include "seprank/progress.hpp"

#include "base/parallel.hpp"

#include "base/process.hpp"
#include "seprank/cancel.hpp"
#include "rank_internal.hpp"
#include "seprank/certificate.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/integer.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "base/number_text.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>
#include <mutex>
#include <numeric>
#include <sstream>
#include <thread>

namespace seprank {

// ---------------------------------------------------------------- sparse storage

std::size_t SparseZMat::nnz() const {
    std::size_t n = 0;
    for (const auto& r : row) n += r.size();
    return n;
}

ZMat SparseZMat::to_dense() const {
    check_matrix(*this);  // O(rows + nnz): an entry out of range would write past the matrix
    ZMat a(rows, cols);
    for (long i = 0; i < rows; ++i)
        for (const auto& [j, v] : row[static_cast<std::size_t>(i)]) fmpz_set(fmpz_mat_entry(a.get(), i, j), v.get());
    return a;
}

SparseZMat SparseZMat::from_dense(const ZMat& a) {
    SparseZMat s;
    s.rows = a.rows();
    s.cols = a.cols();
    s.row.resize(static_cast<std::size_t>(s.rows));
    for (long i = 0; i < s.rows; ++i)
        for (long j = 0; j < s.cols; ++j) {
            const fmpz* e = fmpz_mat_entry(a.get(), i, j);
            if (!fmpz_is_zero(e)) s.row[static_cast<std::size_t>(i)].emplace_back(j, Integer(e));
        }
    return s;
}

namespace {

// The shape and the rows' lists (check_matrix): Entry is Integer or std::uint64_t; `ok`
// judges a value, `bad` names what is wrong with one.
template <class Rows, class Ok>
void check_rows(long rows, long cols, const Rows& row, const char* kind, Ok ok, const char* bad) {
    if (rows < 0 || cols < 0)
        throw invalid_input(std::string(kind) + " shape " + std::to_string(rows) + "x" + std::to_string(cols) + " is negative");
    if (static_cast<long>(row.size()) != rows)
        throw invalid_input(std::string(kind) + " declares " + std::to_string(rows) + " rows but holds " + std::to_string(row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) {
        long last = -1;
        for (const auto& [j, v] : row[i]) {
            const long c = static_cast<long>(j);
            // The message is built only for a bad entry: the check is a few comparisons each.
            const auto where = [&] { return std::string(kind) + " row " + std::to_string(i) + ", column " + std::to_string(c); };
            if (c < 0 || c >= cols) throw invalid_input(where() + ": outside 0.." + std::to_string(cols - 1));
            if (c <= last) throw invalid_input(where() + ": columns must increase within a row (after " + std::to_string(last) + ")");
            if (!ok(v)) throw invalid_input(where() + ": " + bad);
            last = c;
        }
    }
}

}  // namespace

void check_matrix(const SparseZMat& a) {
    check_rows(a.rows, a.cols, a.row, "sparse matrix", [](const Integer& v) { return !fmpz_is_zero(v.get()); },
               "a stored zero (store non-zeros only)");
}

void check_matrix(const SparseNmodMat& a) {
    if (a.p < 2) throw invalid_input("modulus p = " + std::to_string(a.p) + " must be at least 2");
    if (a.cols > (long{1} << 32)) throw invalid_input("sparse matrix mod p: " + std::to_string(a.cols) + " columns, more than 2^32");
    const std::uint64_t p = a.p;
    check_rows(a.rows, a.cols, a.row, "sparse matrix mod p", [p](std::uint64_t v) { return v != 0 && v < p; },
               "not a non-zero residue below p");
}

SparseNmodMat reduce_mod(const SparseZMat& a, std::uint64_t p) {
    if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
    check_matrix(a);
    SparseNmodMat r;
    r.rows = a.rows;
    r.cols = a.cols;
    r.p = p;
    r.row.resize(a.row.size());
    for (std::size_t i = 0; i < a.row.size(); ++i) {
        auto& out = r.row[i];
        out.reserve(a.row[i].size());
        for (const auto& [j, v] : a.row[i]) {
            const std::uint64_t x = fmpz_fdiv_ui(v.get(), p);
            if (x != 0) out.emplace_back(static_cast<std::uint32_t>(j), x);
        }
    }
    return r;
}

// ---------------------------------------------------------------- fraction-free

long rank_fraction_free(const ZMat& a) {
    const long m = a.rows(), n = a.cols();
    ZMat w = a;
    Integer prev(1), t(0);
    long r = 0;
    for (long c = 0; c < n && r < m; ++c) {
        long piv = -1;
        for (long i = r; i < m; ++i)
            if (!fmpz_is_zero(fmpz_mat_entry(w.get(), i, c))) {
                piv = i;
                break;
            }
        if (piv < 0) continue;
        if (piv != r)
            for (long j = 0; j < n; ++j) fmpz_swap(fmpz_mat_entry(w.get(), piv, j), fmpz_mat_entry(w.get(), r, j));
        const fmpz* pv = fmpz_mat_entry(w.get(), r, c);
        for (long i = r + 1; i < m; ++i) {
            fmpz* lead = fmpz_mat_entry(w.get(), i, c);
            for (long j = c + 1; j < n; ++j) {
                // w[i][j] = (pv·w[i][j] − w[i][c]·w[r][j]) / prev, an exact division (Bareiss).
                fmpz* e = fmpz_mat_entry(w.get(), i, j);
                fmpz_mul(t.get(), pv, e);
                fmpz_submul(t.get(), lead, fmpz_mat_entry(w.get(), r, j));
                fmpz_divexact(e, t.get(), prev.get());
            }
            fmpz_zero(lead);
        }
        fmpz_set(prev.get(), pv);
        ++r;
    }
    return r;
}

// ---------------------------------------------------------------- modular

long rank_modular(const NmodMat& a) {
    require_prime(a.modulus());
    if (a.rows() == 0 || a.cols() == 0) return 0;
    return nmod_mat_rank(a.get());
}

long rank_modular(const ZMat& a, std::uint64_t p) { return rank_modular(reduce_mod(a, p)); }

long rank_sparse_modular(const SparseNmodMat& a) {
    check_matrix(a);
    return sparse_echelon(a).rank;
}

long rank_modular(const SparseZMat& a, std::uint64_t p) { return rank_sparse_modular(reduce_mod(a, p)); }

// ---------------------------------------------------------------- certification

namespace {

// Divides every row, then every column, by the gcd of its entries: rank-preserving
// over Q, and it shrinks the Hadamard bound.
SparseZMat remove_contents(const SparseZMat& a) {
    SparseZMat b = a;
    Integer g(0);
    for (auto& r : b.row) {
        fmpz_zero(g.get());
        for (const auto& e : r) fmpz_gcd(g.get(), g.get(), e.second.get());
        if (!fmpz_is_zero(g.get()) && !fmpz_is_one(g.get()))
            for (auto& e : r) fmpz_divexact(e.second.get(), e.second.get(), g.get());
    }
    std::vector<Integer> colg(static_cast<std::size_t>(b.cols), Integer(0));
    for (const auto& r : b.row)
        for (const auto& e : r) fmpz_gcd(colg[static_cast<std::size_t>(e.first)].get(), colg[static_cast<std::size_t>(e.first)].get(), e.second.get());
    for (auto& r : b.row)
        for (auto& e : r) {
            const fmpz* cg = colg[static_cast<std::size_t>(e.first)].get();
            if (!fmpz_is_one(cg)) fmpz_divexact(e.second.get(), e.second.get(), cg);
        }
    return b;
}

// log2 of the product of the k largest norms, norms given as log2 of squared norms.
double top_k_half_sum(std::vector<double> log2sq, long k) {
    std::sort(log2sq.begin(), log2sq.end(), std::greater<>());
    double s = 0;
    for (long i = 0; i < k && i < static_cast<long>(log2sq.size()); ++i) s += 0.5 * log2sq[static_cast<std::size_t>(i)];
    return s;
}

}  // namespace

std::vector<std::uint64_t> detail::distinct_primes(std::uint64_t seed, std::size_t count, unsigned bits) {
    Rng rng(seed ^ 0x5eb7a4c0ffee1234ULL);
    std::vector<std::uint64_t> ps;
    while (ps.size() < count) {
        const std::uint64_t p = random_prime(rng, bits);
        if (std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
    }
    return ps;
}

double detail::prime_divisor_bound(double log2H, unsigned bits) {
    const double divisors = std::max(1.0, std::ceil(log2H / (static_cast<double>(bits) - 1.0)));
    return std::min(1.0, divisors / prime_count_lower_bound(bits));
}

long detail::distinct_count(std::vector<std::uint64_t> primes) {
    std::sort(primes.begin(), primes.end());
    return static_cast<long>(std::unique(primes.begin(), primes.end()) - primes.begin());
}

bool detail::use_dense(const SparseZMat& a) {
    const double cells = static_cast<double>(a.rows) * static_cast<double>(a.cols);
    return cells > 0 && static_cast<double>(a.nnz()) > 0.15 * cells && cells * 8.0 < 1024.0 * 1024 * 1024;
}

namespace {

using detail::distinct_primes;
using detail::matrix_answer;
using detail::set_certified;
using detail::use_dense;

long rank_mod_auto(const SparseZMat& a, std::uint64_t p) {
    if (!use_dense(a)) return rank_modular(a, p);
    NmodMat d(a.rows, a.cols, p);
    for (long i = 0; i < a.rows; ++i)
        for (const auto& [j, v] : a.row[static_cast<std::size_t>(i)]) nmod_mat_entry(d.get(), i, j) = fmpz_fdiv_ui(v.get(), p);
    return rank_modular(d);
}

}  // namespace

double log2_hadamard_bound(const SparseZMat& a, long k) {
    check_matrix(a);  // public: a column out of range would index past the column sums
    std::vector<double> rows, cols(static_cast<std::size_t>(a.cols), 0.0);
    std::vector<Integer> colsq(static_cast<std::size_t>(a.cols), Integer(0));
    Integer s(0);
    for (const auto& r : a.row) {
        fmpz_zero(s.get());
        for (const auto& [j, v] : r) {
            fmpz_addmul(s.get(), v.get(), v.get());
            fmpz_addmul(colsq[static_cast<std::size_t>(j)].get(), v.get(), v.get());
        }
        rows.push_back(log2_abs(s.get()));
    }
    for (std::size_t j = 0; j < colsq.size(); ++j) cols[j] = log2_abs(colsq[j].get());
    for (auto& x : rows)
        if (std::isinf(x)) x = 0;  // zero rows contribute factor ≤ 1; use 0 (log of 1) as a safe cap
    for (auto& x : cols)
        if (std::isinf(x)) x = 0;
    return std::min(top_k_half_sum(rows, k), top_k_half_sum(cols, k));
}

std::uint64_t modular_prime(const RankOptions& opt) {
    const DeviceChoice dev = choose_device(opt.device);
    if (opt.prime != 0) return check_device_prime(dev, opt.prime);
    Rng rng(opt.seed);
    return random_prime(rng, static_cast<unsigned>(drawn_prime_bits(dev, 62)));
}

namespace {

// The GPU ranks a dense copy: refuse one whose residues alone would pass 64 GiB here.
void check_dense_copy(long rows, long cols) {
    if (static_cast<double>(rows) * static_cast<double>(cols) * 8.0 > 64.0 * (1ULL << 30))
        throw resource_limit("the " + std::to_string(rows) + " x " + std::to_string(cols) +
                             " matrix is too large to copy densely for the GPU (over 64 GiB)");
}

}  // namespace

long rank_modular_cuda(const SparseNmodMat& a, double* gpu_seconds) {
    check_matrix(a);  // the dense copy below writes at every stored column
    check_dense_copy(a.rows, a.cols);
    NmodMat d(a.rows, a.cols, a.p);
    for (long i = 0; i < a.rows; ++i)
        for (const auto& [j, v] : a.row[static_cast<std::size_t>(i)]) nmod_mat_entry(d.get(), i, j) = v;
    return rank_modular_cuda(d, 0, gpu_seconds);
}

std::string detail::device_time(double seconds) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g s of device time", seconds);
    return buf;
}

namespace {

// An integer matrix ranked mod p on the GPU (a dense copy of its residues); the
// elimination's device time is added to *gpu_seconds.
long rank_mod_gpu(const SparseZMat& a, std::uint64_t p, double* gpu_seconds) {
    check_dense_copy(a.rows, a.cols);
    NmodMat d(a.rows, a.cols, p);
    for (long i = 0; i < a.rows; ++i)
        for (const auto& [j, v] : a.row[static_cast<std::size_t>(i)]) nmod_mat_entry(d.get(), i, j) = fmpz_fdiv_ui(v.get(), p);
    double s = 0;
    const long r = rank_modular_cuda(d, 0, &s);
    *gpu_seconds += s;
    return r;
}

}  // namespace

// Marks an answer of the rank engine: the matrix itself is the quantity.
RankAnswer detail::matrix_answer(long rows, long cols) {
    RankAnswer res;
    res.quantity = "matrix";
    res.method = "matrix";
    res.rows = rows;
    res.cols = cols;
    return res;
}

void detail::set_certified(RankAnswer& res, long r) {
    res.value = r;
    res.kind = RankKind::exact;
    res.failure_bound = 0;
}

std::string to_string(Certificate c) {
    switch (c) {
        case Certificate::blocks: return "blocks";
        case Certificate::pivot_span: return "pivot-span";
        case Certificate::hadamard: return "hadamard";
    }
    throw internal_error("to_string(Certificate): unknown value " + std::to_string(static_cast<int>(c)));
}

Certificate certificate_from_string(const std::string& s) {
    if (s == "blocks") return Certificate::blocks;
    if (s == "pivot-span") return Certificate::pivot_span;
    if (s == "hadamard") return Certificate::hadamard;
    throw invalid_input("unknown certificate '" + s + "' (expected blocks, pivot-span or hadamard)");
}

namespace {

// The dispatcher: one modular rank (field p), the trivial cases, then the certificate
// chosen by opt.certificate.
RankAnswer rank_certified_impl(const SparseZMat& input, const RankOptions& opt) {
    // The device first: cuda where there is none is refused before any work.
    const DeviceChoice dev = choose_device(opt.device);
    RankAnswer res = matrix_answer(input.rows, input.cols);
    res.rows = input.rows;
    res.cols = input.cols;
    const long full = std::min(input.rows, input.cols);
    const bool dense = use_dense(input);
    const std::string kind = dense ? "modular-dense" : "modular-sparse";
    if (!opt.certify) {
        const bool gpu = dev.device == Device::cuda;
        const std::uint64_t p = modular_prime(opt);
        const int bits = drawn_prime_bits(dev, 62);
        const auto t0 = std::chrono::steady_clock::now();
        double device_s = 0;
        res.value = gpu ? rank_mod_gpu(input, p, &device_s) : rank_mod_auto(input, p);
        res.phases.rank = detail::seconds_since(t0);
        res.field = "Z/p";
        res.prime = p;
        res.primes_used = 1;
        res.variant = gpu ? "modular-dense" : kind;
        res.device = dev.name;
        res.note = "rank mod p " + std::to_string(p) + ": a certified lower bound of the rank over Q";
        // Over Q the rank is at most the sum, over the connected blocks of the non-zeros,
        // of each block's smaller side (blocks.hpp): a rank mod p that meets it is exact.
        const auto block_sides = [&input] {
            long sum = 0;
            for (const MatrixBlock& b : connected_blocks(input)) sum += static_cast<long>(std::min(b.rows.size(), b.cols.size()));
            return sum;
        };
        if (res.value < full && res.value == block_sides()) {
            set_certified(res, res.value);
            res.note = "rank mod p " + std::to_string(p) + " = the sum of the smaller sides of the matrix's " +
                       "connected blocks, an upper bound over Q: exact";
        } else if (opt.prime == 0 && res.value < full) {
            // It is below the rank over Q only if p divides a non-zero minor of size
            // rank_Q ≤ full, of absolute value ≤ H (Hadamard, the full-size bound is the
            // largest; docs/rank.md). Costs one pass over the entries.
            const double log2H = log2_hadamard_bound(input, full);
            res.failure_bound = detail::prime_divisor_bound(log2H, static_cast<unsigned>(bits));
            std::ostringstream os;
            os.precision(4);
            os << "; equal to it unless the random " << bits << "-bit prime divides a non-zero minor (log2 of the Hadamard bound "
               << log2H << "): probability <= failure_bound";
            res.note += os.str();
        } else if (res.value == full) {
            set_certified(res, res.value);  // full rank mod p: the rank over Q too
            res.note = "full rank mod p " + std::to_string(p) + ", hence over Q";
        } else {
            res.note += " (a prime given, not drawn: no probability bound, failure_bound 1)";
        }
        if (gpu) res.note += "; ranked on the GPU (" + detail::device_time(device_s) + ")";
        if (!dev.note.empty()) res.note += "; " + dev.note;
        return res;
    }
    res.field = "Q";
    if (full == 0 || input.nnz() == 0) {
        set_certified(res, 0);
        res.variant = "trivial";
        res.note = "zero matrix";
        return res;
    }
    detail::DeviceTrace trace;
    RankAnswer out = opt.certificate == Certificate::hadamard     ? detail::rank_hadamard(input, opt, &trace)
                     : opt.certificate == Certificate::pivot_span ? detail::rank_pivot_span(input, opt, &trace)
                                                                  : detail::rank_blocks(input, opt, &trace);
    // The GPU takes the Hadamard reference's modular ranks (hadamard_body), wherever the
    // certificate reaches it; otherwise nothing ran there, and the note says so. (When
    // the reference ran on the CPU for a reason, the certificate's note gives it.)
    if (dev.device == Device::cuda && !trace.gpu && trace.cpu_reason.empty())
        out.note += "; nothing ran on the GPU: the certificate needed no multimodular ranks";
    if (trace.gpu) {  // some of its ranks ran there (the rest, if any, on the CPU, as the note says)
        out.device = dev.name;
        out.note += "; the modular ranks on the GPU took " + detail::device_time(trace.gpu_seconds);
    }
    if (!dev.note.empty()) out.note += "; " + dev.note;
    return out;
}

// The Hadamard reference; phases.rank is the first modular rank.
RankAnswer hadamard_body(const SparseZMat& input, const RankOptions& opt, detail::DeviceTrace* trace) {
    using detail::seconds_since;
    RankAnswer res = matrix_answer(input.rows, input.cols);
    res.field = "Q";
    const long full = std::min(input.rows, input.cols);
    // On the GPU (opt.device, docs/gpu.md) when a dense copy fits 4 GiB here: every modular
    // rank there, mod distinct primes of kCudaOneLimbBits bits (one-limb eliminations: more
    // primes for the same bound, each above 2^(b−1), but half the products of a 31-bit one; the
    // certificate is exact whatever their size); one at a time (they share the device).
    const DeviceChoice dev = choose_device(opt.device);
    const double cells = static_cast<double>(input.rows) * static_cast<double>(input.cols);
    const bool gpu = dev.device == Device::cuda && cells * 8.0 <= 4.0 * (1ULL << 30);
    const unsigned bits = gpu ? static_cast<unsigned>(std::min(cuda_prime_bits(), kCudaOneLimbBits)) : 62u;
    // The GPU's device time goes straight to the trace (one rank at a time there, below).
    double untraced = 0;
    double* device_s = trace ? &trace->gpu_seconds : &untraced;
    auto rank_p = [gpu, device_s](const SparseZMat& m, std::uint64_t p) { return gpu ? rank_mod_gpu(m, p, device_s) : rank_mod_auto(m, p); };
    const std::string kind = gpu ? "modular-dense" : use_dense(input) ? "modular-dense" : "modular-sparse";
    const std::string too_large = "too large to copy densely for the GPU (over 4 GiB)";
    const std::string where = gpu ? "; its modular ranks ran on the GPU, mod " + std::to_string(bits) + "-bit primes"
                              : dev.device == Device::cuda ? "; " + too_large + ": ranked on the CPU"
                                                           : "";
    if (trace && dev.device == Device::cuda && !gpu) trace->cpu_reason = too_large;
    res.device = gpu ? dev.name : "cpu";
    // (1)-(2): one modular rank of the matrix as given; full rank is then proven.
    const std::vector<std::uint64_t> first = distinct_primes(opt.seed, 1, bits);
    const auto t0 = std::chrono::steady_clock::now();
    long r = rank_p(input, first[0]);
    if (trace && gpu) trace->gpu = true;
    const double per_prime = seconds_since(t0);
    res.phases.rank = per_prime;
    res.prime = first[0];  // always the prime whose rank is r (a raise below names its own)
    res.primes_used = 1;
    if (r == full) {
        set_certified(res, r);
        res.variant = kind;
        res.note = "full rank mod p " + std::to_string(first[0]) + ", hence over Q" + where;
        return res;
    }
    // (3): the certificate works on the content-free matrix (same rank over Q).
    const SparseZMat a = remove_contents(input);
    for (int attempt = 0; attempt < 8; ++attempt) {
        throw_if_cancelled();
        const double log2H = log2_hadamard_bound(a, r + 1);
        const long need = static_cast<long>(std::ceil((log2H + 2.0) / (bits - 1.0)));
        const double est_seconds = static_cast<double>(need) * per_prime / (gpu ? 1 : std::max(1, opt.threads));
        if (gpu && (need > opt.max_primes || est_seconds > opt.max_certify_seconds)) {
            // 23-bit primes on the GPU: about 2.8 times as many as 62-bit ones, one at a time.
            // Past the budget, the CPU's reference instead (62-bit primes over threads, and
            // its bound if it gives up too), rather than a bound from one 23-bit prime.
            RankOptions cpu = opt;
            cpu.device = Device::cpu;
            RankAnswer out = hadamard_body(input, cpu, nullptr);
            out.primes_used += res.primes_used;
            const std::string why = "the GPU would need " + std::to_string(need) + " primes of " + std::to_string(bits) +
                                    " bits, past the budget";
            out.note += "; on the CPU: " + why;
            if (trace) trace->cpu_reason = why;
            return out;
        }
        if (need > opt.max_primes || est_seconds > opt.max_certify_seconds) {
            if (a.rows <= opt.fraction_free_max && a.cols <= opt.fraction_free_max) {
                set_certified(res, rank_fraction_free(a.to_dense()));
                res.variant = "fraction-free";
                res.note = "Bareiss elimination over Z";
                return res;
            }
            res.value = r;
            res.variant = kind;
            // r is a rank mod p of the input (or, after a raise, of `a`, whose minors divide
            // the input's): it is below the rank over Q only if p divides a non-zero
            // (r+1)-minor of the input, bounded by the input's Hadamard bound — the content
            // removed from `a` may hold prime factors of b bits too.
            res.failure_bound = detail::prime_divisor_bound(log2_hadamard_bound(input, r + 1), bits);
            std::ostringstream os;
            os.precision(3);
            os << "rank mod a random " << bits << "-bit prime; a certificate would need " << need << " primes, about " << est_seconds
               << " s (budget " << opt.max_primes << " primes, " << opt.max_certify_seconds << " s)" << where;
            res.note = os.str();
            return res;
        }
        // Rank mod `need` further distinct primes, in parallel.
        const std::vector<std::uint64_t> ps =
            distinct_primes(opt.seed + 1 + static_cast<std::uint64_t>(attempt) * 7919, static_cast<std::size_t>(need), bits);
        std::vector<long> ranks(ps.size(), -1);
        std::atomic<std::size_t> next{0}, finished{0};
        const ProgressObserver& progress = current_progress();  // the caller's, for the workers
        report_progress(progress, "certificate primes", 0, ps.size());
        auto worker = [&, scope = current_cancel()] {
            CancelScope inherit(scope);  // a cancel (cancel.hpp) stops every worker at its next prime
            for (std::size_t k; !cancel_requested() && (k = next.fetch_add(1)) < ps.size();) {
                ranks[k] = rank_p(a, ps[k]);
                report_progress(progress, "certificate primes", finished.fetch_add(1) + 1, ps.size());
            }
        };
        const int nt = gpu ? 1 : std::max(1, std::min<int>(opt.threads, static_cast<int>(ps.size())));
        detail::run_parallel(nt, [&](int) { worker(); });
        throw_if_cancelled();
        res.primes_used += static_cast<long>(ps.size());
        const auto top = std::max_element(ranks.begin(), ranks.end());
        if (*top > r) {  // a higher rank seen: raise the lower bound and prove again
            r = *top;
            res.prime = ps[static_cast<std::size_t>(top - ranks.begin())];
            if (r == full) break;
            continue;
        }
        set_certified(res, r);
        res.variant = "hadamard-multimodular";
        std::ostringstream os;
        os.precision(4);
        // primes_used counts every prime ranked (the first one, earlier attempts); the
        // note names both, so that the two numbers read the same (issue 38).
        os << "rank mod " << ps.size() << " primes <= " << r << " with log2(prod p) > log2 H = " << log2H << " ("
           << res.primes_used << " primes in all, the first one included)" << where;
        res.note = os.str();
        return res;
    }
    if (r == full) set_certified(res, r);
    else res.value = r;
    res.variant = kind;
    res.note = res.certified() ? "full rank mod p " + std::to_string(res.prime) + ", hence over Q" + where : "no certificate reached";
    return res;
}

}  // namespace

RankAnswer detail::rank_hadamard(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace) {
    const auto t0 = std::chrono::steady_clock::now();
    RankAnswer res = hadamard_body(input, opt, trace);
    res.phases.certificate = std::max(0.0, seconds_since(t0) - res.phases.rank);
    return res;
}

namespace {

RankAnswer rank_certified_dense(const ZMat& a, const RankOptions& opt) {
    // Dense fast path: a full-rank result needs one nmod_mat_rank and no sparse copy.
    // A ~30-bit prime roughly halves FLINT's dense elimination time against a 62-bit one;
    // the price is a higher chance (≤ n/2^29) that the rank drops mod p, and then the
    // general path below runs, which is still correct.
    const long full = std::min(a.rows(), a.cols());
    const DeviceChoice dev = choose_device(opt.device);  // cuda where there is none: refused before any work
    if (opt.certify && full > 0) {
        Rng rng(opt.seed ^ 0x3017ULL);
        const std::uint64_t p = random_prime(rng, 30);
        const auto t0 = std::chrono::steady_clock::now();
        if (rank_modular(a, p) == full) {
            RankAnswer res = matrix_answer(a.rows(), a.cols());
            res.phases.rank = detail::seconds_since(t0);
            set_certified(res, full);
            res.field = "Q";
            res.prime = p;
            res.primes_used = 1;
            res.variant = "modular-dense";
            res.note = "full rank mod p " + std::to_string(p) + ", hence over Q";
            if (dev.device == Device::cuda) res.note += "; nothing ran on the GPU: one modular rank on the CPU proved full rank";
            if (!dev.note.empty()) res.note += "; " + dev.note;
            return res;
        }
    }
    return rank_certified_impl(SparseZMat::from_dense(a), opt);
}

template <class M>
RankAnswer timed(const M& a, const RankOptions& opt, RankAnswer (*f)(const M&, const RankOptions&)) {
    const auto t0 = std::chrono::steady_clock::now();
    RankAnswer res = f(a, opt);
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.peak_mib = peak_rss_mib();
    return res;
}

}  // namespace

SparseZMat drop_empty_lines(const SparseZMat& a) {
    check_matrix(a);
    std::vector<long> used;
    long nonempty = 0;
    for (const auto& r : a.row) {
        nonempty += r.empty() ? 0 : 1;
        for (const auto& e : r) used.push_back(e.first);
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    SparseZMat b;
    b.rows = nonempty;
    b.cols = static_cast<long>(used.size());
    b.row.reserve(static_cast<std::size_t>(nonempty));
    for (const auto& r : a.row) {
        if (r.empty()) continue;
        auto& out = b.row.emplace_back();
        out.reserve(r.size());
        for (const auto& [j, v] : r) out.emplace_back(std::lower_bound(used.begin(), used.end(), j) - used.begin(), v);
    }
    return b;
}

void check_options(const RankOptions& opt) {
    check_threads(opt.threads);
    if (opt.max_primes < 0) throw invalid_input("max_primes " + std::to_string(opt.max_primes) + " is negative");
    if (!(opt.max_certify_seconds >= 0) || !std::isfinite(opt.max_certify_seconds))
        throw invalid_input("max_certify_seconds " + number_text(opt.max_certify_seconds) + " must be a finite number >= 0");
    if (opt.fraction_free_max < 0) throw invalid_input("fraction_free_max " + std::to_string(opt.fraction_free_max) + " is negative");
    if (opt.prime != 0) require_prime(opt.prime);  // 0 draws a random one
    if (opt.certificate != Certificate::blocks && opt.certificate != Certificate::pivot_span && opt.certificate != Certificate::hadamard)
        throw invalid_input("certificate " + std::to_string(static_cast<int>(opt.certificate)) + " is not a Certificate value");
    if (opt.device != Device::cpu && opt.device != Device::cuda && opt.device != Device::automatic)
        throw invalid_input("device " + std::to_string(static_cast<int>(opt.device)) + " is not a Device value");
}

RankAnswer rank_certified(const SparseZMat& a, const RankOptions& opt) {
    check_options(opt);
    check_matrix(a);
    // Some of the engine's costs (column tables, 32-bit column indices mod p) follow the
    // declared column count: where it dwarfs the non-zeros and rows (mostly empty
    // columns), rank the matrix without its empty rows and columns, and report the
    // shape as given. Other matrices are ranked as they are (same variants as before).
    const double small = 8.0 * (static_cast<double>(a.nnz()) + static_cast<double>(a.rows) + 64.0);
    if (static_cast<double>(a.cols) <= small) return timed(a, opt, rank_certified_impl);
    const SparseZMat b = drop_empty_lines(a);
    RankAnswer res = timed(b, opt, rank_certified_impl);
    res.rows = a.rows;
    res.cols = a.cols;
    return res;
}
RankAnswer rank_certified(const ZMat& a, const RankOptions& opt) {
    check_options(opt);
    return timed(a, opt, rank_certified_dense);
}

}  // namespace seprank
