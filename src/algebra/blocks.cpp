// seprank — connected blocks of a sparse matrix and the block certificate of its rank
// over Q (blocks.hpp; docs/blocks.md).
#include "seprank/blocks.hpp"

#include "base/parallel.hpp"
#include "flint_handles.hpp"
#include "rank_internal.hpp"
#include "seprank/cancel.hpp"
#include "seprank/certificate.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <flint/fmpq.h>
#include <numeric>
#include <sstream>
#include <optional>
#include <type_traits>
#include <utility>

namespace seprank {

using detail::seconds_since;
using Clock = std::chrono::steady_clock;

// ---------------------------------------------------------------- blocks

namespace {

// Union–find over rows 0..m-1 and columns m..m+n-1, with path halving.
struct Components {
    std::vector<long> parent;
    explicit Components(long size) : parent(static_cast<std::size_t>(size)) { std::iota(parent.begin(), parent.end(), 0L); }
    long find(long x) {
        while (parent[static_cast<std::size_t>(x)] != x) {
            parent[static_cast<std::size_t>(x)] = parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
            x = parent[static_cast<std::size_t>(x)];
        }
        return x;
    }
    void join(long x, long y) {
        x = find(x);
        y = find(y);
        if (x != y) parent[static_cast<std::size_t>(std::max(x, y))] = std::min(x, y);
    }
};

}  // namespace

std::vector<MatrixBlock> connected_blocks(const SparseZMat& a) {
    check_matrix(a);
    const long m = a.rows;
    Components uf(m + a.cols);
    for (long i = 0; i < m; ++i)
        for (const auto& e : a.row[static_cast<std::size_t>(i)]) uf.join(i, m + e.first);
    std::vector<MatrixBlock> blocks;
    std::vector<long> block_of(static_cast<std::size_t>(m + a.cols), -1);
    // Rows in increasing order: blocks come out ordered by their first row.
    for (long i = 0; i < m; ++i) {
        if (a.row[static_cast<std::size_t>(i)].empty()) continue;
        long& b = block_of[static_cast<std::size_t>(uf.find(i))];
        if (b < 0) {
            b = static_cast<long>(blocks.size());
            blocks.emplace_back();
        }
        blocks[static_cast<std::size_t>(b)].rows.push_back(i);
    }
    std::vector<char> seen(static_cast<std::size_t>(a.cols), 0);
    for (const auto& r : a.row)
        for (const auto& e : r) seen[static_cast<std::size_t>(e.first)] = 1;
    for (long j = 0; j < a.cols; ++j)
        if (seen[static_cast<std::size_t>(j)]) blocks[static_cast<std::size_t>(block_of[static_cast<std::size_t>(uf.find(m + j))])].cols.push_back(j);
    return blocks;
}

namespace {

// The block b of a sparse integer matrix, transposed when `flip`, with each value v
// stored as value(v) (entries whose value is zero left out): Out is SparseZMat (the
// entries themselves) or SparseNmodMat (their residues). pos[j] is column j's place in
// b.cols. Rows of the result keep increasing columns.
template <class Out, class F>
Out oriented_copy(const SparseZMat& a, const MatrixBlock& b, const std::vector<long>& pos, bool flip, F&& value) {
    using Index = typename std::remove_cv_t<std::remove_reference_t<decltype(std::declval<Out&>().row[0][0].first)>>;
    Out out;
    out.rows = static_cast<long>(flip ? b.cols.size() : b.rows.size());
    out.cols = static_cast<long>(flip ? b.rows.size() : b.cols.size());
    out.row.resize(static_cast<std::size_t>(out.rows));
    for (std::size_t i = 0; i < b.rows.size(); ++i)
        for (const auto& [j, v] : a.row[static_cast<std::size_t>(b.rows[i])]) {
            const long c = pos[static_cast<std::size_t>(j)];
            if (c < 0) continue;
            auto x = value(v);
            if (x == 0) continue;
            if (flip) out.row[static_cast<std::size_t>(c)].emplace_back(static_cast<Index>(i), std::move(x));
            else out.row[i].emplace_back(static_cast<Index>(c), std::move(x));
        }
    return out;
}

// The block's residues mod p, oriented.
SparseNmodMat oriented_residues(const SparseZMat& a, const MatrixBlock& b, const std::vector<long>& pos, bool flip, std::uint64_t p) {
    SparseNmodMat m = oriented_copy<SparseNmodMat>(a, b, pos, flip, [p](const Integer& v) { return v.mod(p); });
    m.p = p;
    return m;
}

// The block's integer entries, oriented.
SparseZMat oriented_integers(const SparseZMat& a, const MatrixBlock& b, const std::vector<long>& pos, bool flip) {
    return oriented_copy<SparseZMat>(a, b, pos, flip, [](const Integer& v) { return v; });
}

// pos[j] = the place of column j in its block's column list (−1: in none).
std::vector<long> column_places(long cols, const std::vector<MatrixBlock>& blocks) {
    std::vector<long> pos(static_cast<std::size_t>(cols), -1);
    for (const auto& b : blocks)
        for (std::size_t t = 0; t < b.cols.size(); ++t) pos[static_cast<std::size_t>(b.cols[t])] = static_cast<long>(t);
    return pos;
}

}  // namespace

SparseZMat submatrix(const SparseZMat& a, const MatrixBlock& b) {
    check_matrix(a);
    std::vector<long> pos(static_cast<std::size_t>(a.cols), -1);
    for (std::size_t t = 0; t < b.cols.size(); ++t) {
        if (b.cols[t] < 0 || b.cols[t] >= a.cols || (t > 0 && b.cols[t] <= b.cols[t - 1]))
            throw invalid_input("block column " + std::to_string(b.cols[t]) + " not increasing inside 0.." + std::to_string(a.cols - 1));
        pos[static_cast<std::size_t>(b.cols[t])] = static_cast<long>(t);
    }
    for (std::size_t i = 0; i < b.rows.size(); ++i)
        if (b.rows[i] < 0 || b.rows[i] >= a.rows) throw invalid_input("block row " + std::to_string(b.rows[i]) + " outside 0.." + std::to_string(a.rows - 1));
    return oriented_integers(a, b, pos, false);  // entries outside b.cols are left out
}

// ---------------------------------------------------------------- one block's kernel

namespace {

// A block of a parent matrix seen in its orientation (columns: the smaller side), without
// copying a single integer: entry (i, j) of the parent, i = b.rows[il], lies at oriented
// (il, pos[j]), or at (pos[j], il) when flipped.
struct BlockView {
    const SparseZMat& a;
    const MatrixBlock& b;
    const std::vector<long>& pos;
    bool flip;
    long rows() const { return static_cast<long>(flip ? b.cols.size() : b.rows.size()); }
    long cols() const { return static_cast<long>(flip ? b.rows.size() : b.cols.size()); }
    // f(oriented row, oriented column, value) for every non-zero.
    template <class F>
    void each(F&& f) const {
        for (std::size_t il = 0; il < b.rows.size(); ++il)
            for (const auto& [j, v] : a.row[static_cast<std::size_t>(b.rows[il])]) {
                const long c = pos[static_cast<std::size_t>(j)];
                if (c < 0) continue;
                if (flip) f(c, static_cast<long>(il), v);
                else f(static_cast<long>(il), c, v);
            }
    }
};

// log2 of the product of the k largest column norms of [A | B] (dense, r rows).
double log2_top_column_norms(const ZMat& a, const ZMat& b, long k) {
    std::vector<double> l2;
    Integer s;
    for (const ZMat* m : {&a, &b})
        for (long j = 0; j < m->cols(); ++j) {
            fmpz_zero(s.get());
            for (long i = 0; i < m->rows(); ++i) fmpz_addmul(s.get(), fmpz_mat_entry(m->get(), i, j), fmpz_mat_entry(m->get(), i, j));
            if (s.is_zero()) continue;
            slong exp = 0;
            const double d = fmpz_get_d_2exp(&exp, s.get());
            l2.push_back(0.5 * (std::log2(std::fabs(d)) + static_cast<double>(exp)));
        }
    std::sort(l2.begin(), l2.end(), std::greater<>());
    double sum = 0;
    for (long i = 0; i < k && i < static_cast<long>(l2.size()); ++i) sum += l2[static_cast<std::size_t>(i)];
    return sum;
}

// An LU decomposition of a square matrix mod q (FLINT nmod_mat_lu: row i of LU is row
// perm[i] of the input) and the solve it gives, Y = A^{-1}·R mod q.
class LuMod {
public:
    LuMod(const ZMat& a, std::uint64_t q) : lu_(a.rows(), a.rows(), q), perm_(static_cast<std::size_t>(a.rows())) {
        fmpz_mat_get_nmod_mat(lu_.get(), a.get());
        std::iota(perm_.begin(), perm_.end(), slong{0});
        ok_ = a.rows() == 0 || nmod_mat_lu(perm_.data(), lu_.get(), 1) == a.rows();
    }
    bool ok() const { return ok_; }
    // y = A^{-1}·r (y and r of the same shape; r's rows are permuted through a window).
    void solve(NmodMat& y, const NmodMat& r) const {
        detail::NmodMatWindow pr(r.get(), 0, 0, r.rows(), r.cols());
        for (long i = 0; i < r.rows(); ++i) pr.get()->rows[i] = r.get()->rows[perm_[static_cast<std::size_t>(i)]];
        nmod_mat_solve_tril(y.get(), lu_.get(), pr.get(), 1);
        nmod_mat_solve_triu(y.get(), lu_.get(), y.get(), 0);
    }

private:
    NmodMat lu_;
    std::vector<slong> perm_;
    bool ok_ = false;
};

// The p-adic lift of X = A^{-1}·B, A = m[P, C] and B = m[P, F] for the oriented block m
// with pivot rows P and pivot columns C (the first r of an elimination mod p), then the
// exact check that n − r kernel vectors of m are found.
class KernelLift {
public:
    KernelLift(const BlockView& m, const SparseEchelon& e, long r)
        : m_(m), r_(r), s_(m.cols() - r), seed_(e.p), a_(r, r), b_(r, m.cols() - r) {
        pos_.assign(static_cast<std::size_t>(m.cols()), 0);
        for (long k = 0; k < r_; ++k) pos_[static_cast<std::size_t>(e.pivot_cols[static_cast<std::size_t>(k)])] = k + 1;
        long t = 0;
        for (long j = 0; j < m.cols(); ++j)
            if (pos_[static_cast<std::size_t>(j)] == 0) pos_[static_cast<std::size_t>(j)] = -(++t);
        std::vector<long> row_k(static_cast<std::size_t>(m.rows()), -1);
        for (long k = 0; k < r_; ++k) row_k[static_cast<std::size_t>(e.pivot_rows[static_cast<std::size_t>(k)])] = k;
        m_.each([&](long i, long j, const Integer& v) {
            const long k = row_k[static_cast<std::size_t>(i)];
            if (k < 0) return;
            const long q = pos_[static_cast<std::size_t>(j)];
            fmpz_set(q > 0 ? fmpz_mat_entry(a_.get(), k, q - 1) : fmpz_mat_entry(b_.get(), k, -q - 1), v.get());
        });
    }

    // Lifts until the exact check passes, the Hadamard bound is reached (the claim is
    // then refuted) or the budget runs out.
    KernelProof run(double max_seconds, Clock::time_point start) {
        KernelProof out;
        out.claimed = r_;
        out.kernel_dim = s_;
        // The lifting prime need not be the elimination's: A is non-singular over Q, so
        // modulo almost every prime; another is drawn when one divides det A.
        Rng rng(seed_ ^ 0x6c1f7e3d2b9a4c15ULL);
        std::optional<LuMod> lu;
        for (int attempt = 0; attempt < 8 && !(lu && lu->ok()); ++attempt) {
            q_ = random_prime(rng, kLiftBits);
            lu.emplace(a_, q_);
        }
        if (!lu->ok()) {  // next to impossible
            out.reason = "the pivot block is singular modulo 8 random primes";
            return out;
        }
        // Cramer: X = adj(A)·B / det A, every numerator and det A an r×r minor of [A | B].
        const double need_bits = 2.0 * log2_top_column_norms(a_, b_, r_) + 2.0;
        const long max_digits = static_cast<long>(std::ceil(need_bits / std::log2(static_cast<double>(q_)))) + 1;
        // Early termination: a random combination z = Σ c_kt X_kt has denominator D (the
        // common one, but for a chance factor) and reconstructs about when X does. It is
        // read back with 40 bits to spare (|n|·d < M / 2^41), so that a residue that is
        // not yet the true fraction passes only with probability about 2^-40.
        std::vector<std::uint64_t> c(static_cast<std::size_t>(r_ * s_));
        for (auto& x : c) x = 1 + rng.below(1u << 20);
        Integer z, zn, zd, bound;
        ZMat x(r_, s_), res = b_, lift(r_, s_), prod(r_, s_);
        NmodMat rmod(r_, s_, q_), y(r_, s_, q_);
        Integer modulus(1);
        long next_full = 1;
        for (long digit = 1; digit <= max_digits; ++digit) {
            throw_if_cancelled();
            if (seconds_since(start) > max_seconds) {
                std::ostringstream os;
                os << "kernel not lifted within the budget of " << max_seconds << " s (" << digit - 1 << " of at most " << max_digits
                   << " p-adic digits)";
                out.reason = os.str();
                out.digits = digit - 1;
                return out;
            }
            fmpz_mat_get_nmod_mat(rmod.get(), res.get());
            lu->solve(y, rmod);
            fmpz_mat_set_nmod_mat_unsigned(lift.get(), y.get());
            fmpz_mat_scalar_addmul_fmpz(x.get(), lift.get(), modulus.get());  // x += y·q^(digit−1)
            fmpz_mul_ui(modulus.get(), modulus.get(), q_);
            out.digits = digit;
            fmpz_zero(z.get());
            for (long k = 0; k < r_; ++k)
                for (long t = 0; t < s_; ++t) fmpz_addmul_ui(z.get(), fmpz_mat_entry(x.get(), k, t), c[static_cast<std::size_t>(k * s_ + t)]);
            fmpz_mod(z.get(), z.get(), modulus.get());
            fmpz_fdiv_q_2exp(bound.get(), modulus.get(), 41);
            fmpz_sqrt(bound.get(), bound.get());
            const bool found = !bound.is_zero() && _fmpq_reconstruct_fmpz_2(zn.get(), zd.get(), z.get(), modulus.get(), bound.get(), bound.get()) != 0;
            // A full attempt once z is found (and not again before the digits grow by
            // half), and at the bound, where every reconstruction is certain.
            if ((found && digit >= next_full) || digit == max_digits) {
                if (certify(x, modulus, found ? zd : Integer(1), out.bits)) {
                    out.proven = true;
                    return out;
                }
                next_full = digit + std::max(1L, digit / 2);
            }
            if (digit < max_digits) {  // res = (res − A·y) / q, exact
                fmpz_mat_mul(prod.get(), a_.get(), lift.get());
                fmpz_mat_sub(res.get(), res.get(), prod.get());
                fmpz_mat_scalar_divexact_ui(res.get(), res.get(), q_);
            }
        }
        out.reason = "the claimed rank " + std::to_string(r_) + " is below the rank over Q: lifted past the Hadamard bound, the " +
                     std::to_string(s_) + " kernel vectors fail the exact check";
        return out;
    }

    static constexpr unsigned kLiftBits = 62;

private:
    // A common denominator D, started at the guess d (from z) and completed entry by
    // entry: x·D mod `modulus` is reconstructed only where it is not already a small
    // integer. Then N = x·D mod `modulus` (symmetric) and the exact check.
    bool certify(const ZMat& x, const Integer& modulus, const Integer& guess, long& bits) const {
        if (guess.is_zero()) return false;
        Integer d = guess, t, num, den;
        const long half = static_cast<long>(fmpz_bits(modulus.get())) / 2 - 1;
        for (long k = 0; k < r_; ++k)
            for (long j = 0; j < s_; ++j) {
                fmpz_mul(t.get(), fmpz_mat_entry(x.get(), k, j), d.get());
                fmpz_smod(t.get(), t.get(), modulus.get());
                if (static_cast<long>(fmpz_bits(t.get())) < half) continue;  // an integer multiple of 1/D already
                fmpz_mod(t.get(), t.get(), modulus.get());
                if (!_fmpq_reconstruct_fmpz(num.get(), den.get(), t.get(), modulus.get())) return false;
                fmpz_mul(d.get(), d.get(), den.get());
            }
        ZMat n(r_, s_);
        long top = static_cast<long>(fmpz_bits(d.get()));
        for (long k = 0; k < r_; ++k)
            for (long j = 0; j < s_; ++j) {
                fmpz* e = fmpz_mat_entry(n.get(), k, j);
                fmpz_mul(e, fmpz_mat_entry(x.get(), k, j), d.get());
                fmpz_smod(e, e, modulus.get());
                top = std::max(top, static_cast<long>(fmpz_bits(e)));
            }
        if (!check(n, d)) return false;
        bits = top;
        return true;
    }

    // The proof: m·v_t = 0 exactly for v_t = (N e_t on the pivot columns, −D on free
    // column t), every row: Σ_k m[i, C_k]·N[k, t] − D·m[i, F_t] = 0.
    bool check(const ZMat& n, const Integer& d) const {
        std::vector<Integer> acc(static_cast<std::size_t>(m_.rows() * s_));
        m_.each([&](long i, long j, const Integer& v) {
            const long q = pos_[static_cast<std::size_t>(j)];
            Integer* out = &acc[static_cast<std::size_t>(i * s_)];
            if (q > 0) {
                for (long t = 0; t < s_; ++t) fmpz_addmul(out[t].get(), v.get(), fmpz_mat_entry(n.get(), q - 1, t));
            } else {
                fmpz_submul(out[-q - 1].get(), v.get(), d.get());
            }
        });
        return std::all_of(acc.begin(), acc.end(), [](const Integer& v) { return v.is_zero(); });
    }

    const BlockView& m_;
    long r_, s_;
    std::uint64_t seed_, q_ = 0;
    ZMat a_, b_;             // m[P, C] and m[P, F]
    std::vector<long> pos_;  // oriented column j: k+1 if pivot k, −(t+1) if free column t
};

// The kernel proof of a block with its echelon mod p (of the oriented block).
KernelProof prove_view(const BlockView& m, const SparseEchelon& e, long r, double max_seconds, Clock::time_point start) {
    r = std::min(r, e.rank);
    KernelProof out;
    out.claimed = r;
    out.kernel_dim = m.cols() - r;
    if (r == m.cols()) {
        out.proven = true;
        return out;
    }
    if (r == 0) {  // the whole space is the kernel: m must be zero
        bool zero = true;
        m.each([&](long, long, const Integer& v) { zero = zero && v.is_zero(); });
        out.proven = zero;
        if (!zero) out.reason = "the claimed rank 0 is below the rank over Q: the matrix has a non-zero entry";
        return out;
    }
    return KernelLift(m, e, r).run(max_seconds, start);
}

}  // namespace

KernelProof prove_rank_at_most(const SparseZMat& a, long r, const KernelOptions& opt) {
    check_matrix(a);
    if (r < 0) throw invalid_input("claimed rank r = " + std::to_string(r) + " is negative");
    std::uint64_t p = opt.p;
    if (p == 0) p = detail::distinct_primes(opt.seed, 1)[0];
    require_prime(p);
    MatrixBlock all;
    all.rows.resize(static_cast<std::size_t>(a.rows));
    all.cols.resize(static_cast<std::size_t>(a.cols));
    std::iota(all.rows.begin(), all.rows.end(), 0L);
    std::iota(all.cols.begin(), all.cols.end(), 0L);
    const std::vector<long>& pos = all.cols;  // the identity
    const BlockView view{a, all, pos, a.cols > a.rows};
    const SparseEchelon e = sparse_echelon(oriented_residues(a, all, pos, view.flip, p));
    return prove_view(view, e, r, opt.max_seconds, Clock::now());
}

// ---------------------------------------------------------------- the dispatcher variant

RankAnswer detail::rank_blocks(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace) {
    const auto t0 = Clock::now();
    RankAnswer res = matrix_answer(input.rows, input.cols);
    res.field = "Q";
    res.variant = "blocks";
    const std::uint64_t p = distinct_primes(opt.seed, 1)[0];
    res.prime = p;
    res.primes_used = 1;

    // The rank phase: each block reduced mod p, oriented to its smaller side and
    // eliminated mod p, in parallel. Integer entries are never copied (BlockView).
    struct Work {
        bool flip = false;
        long side = 0;  // the smaller side
        SparseEchelon e;
        KernelProof proof;
    };
    const std::vector<MatrixBlock> blocks = connected_blocks(input);
    const std::vector<long> pos = column_places(input.cols, blocks);
    const std::size_t nb = blocks.size();
    std::vector<Work> work(nb);
    std::vector<std::size_t> order(nb);
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto area = [&](std::size_t b) { return static_cast<double>(blocks[b].rows.size()) * static_cast<double>(blocks[b].cols.size()); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return area(x) > area(y); });  // largest first
    const int nt = std::max(1, std::min<int>(opt.threads, static_cast<int>(nb)));
    {
        std::atomic<std::size_t> next{0};
        run_parallel(nt, [&](int) {
            for (std::size_t q; !cancel_requested() && (q = next.fetch_add(1)) < nb;) {
                Work& w = work[order[q]];
                const MatrixBlock& b = blocks[order[q]];
                w.flip = b.cols.size() > b.rows.size();
                w.side = static_cast<long>(std::min(b.rows.size(), b.cols.size()));
                w.e = sparse_echelon(oriented_residues(input, b, pos, w.flip, p));
            }
        });
    }
    res.phases.rank = seconds_since(t0);

    // The certificate phase: a kernel for each block below its smaller side.
    const auto t1 = Clock::now();
    std::vector<std::size_t> deficient;
    for (std::size_t b : order)
        if (work[b].e.rank < work[b].side) deficient.push_back(b);
    {
        std::atomic<std::size_t> next{0};
        const int nd = std::max(1, std::min<int>(opt.threads, static_cast<int>(deficient.size())));
        run_parallel(nd, [&](int) {
            for (std::size_t q; !cancel_requested() && (q = next.fetch_add(1)) < deficient.size();) {
                Work& w = work[deficient[q]];
                const BlockView view{input, blocks[deficient[q]], pos, w.flip};
                w.proof = prove_view(view, w.e, w.e.rank, opt.max_certify_seconds, t1);
            }
        });
    }
    // A block whose kernel was not proven goes to the Hadamard reference, which
    // certifies it or says how likely its modular rank is to be low.
    long deficiency = 0, bits = 0, digits = 0, unproven = 0, largest_side = 0;
    double bound = 0;
    std::string why;
    DeviceTrace own;
    DeviceTrace& ref_trace = trace ? *trace : own;
    for (std::size_t b = 0; b < nb; ++b) {
        Work& w = work[b];
        largest_side = std::max(largest_side, w.side);
        long rank = w.e.rank;
        if (rank < w.side) {
            deficiency += w.side - rank;
            res.kernel_blocks.push_back(static_cast<long>(b));
            if (w.proof.proven) {
                bits = std::max(bits, w.proof.bits);
                digits = std::max(digits, w.proof.digits);
            } else {
                ++unproven;
                if (why.empty()) why = "block " + std::to_string(b) + ": " + w.proof.reason;
                RankOptions ro = opt;
                ro.max_certify_seconds = std::max(0.0, opt.max_certify_seconds - seconds_since(t1));
                const RankAnswer ref = rank_hadamard(oriented_integers(input, blocks[b], pos, w.flip), ro, &ref_trace);
                rank = ref.value;
                res.primes_used += ref.primes_used;
                if (ref.device != "cpu") res.device = ref.device;  // its modular ranks ran on the GPU
                if (!ref.certified()) bound += ref.failure_bound;
            }
        }
        res.block_ranks.push_back(rank);
        res.value += rank;
    }
    res.phases.certificate = seconds_since(t1);
    res.kernel_bits = bits;
    std::ostringstream os;
    os << nb << " block" << (nb == 1 ? "" : "s") << " (largest smaller side " << largest_side << "), rank = sum of the block ranks; ";
    if (deficient.empty()) {
        os << "every block is full on its smaller side mod p " << p << ", hence over Q";
    } else {
        os << deficient.size() << " below their smaller side by " << deficiency << " in all: ";
        if (unproven == 0) {
            os << "each kernel lifted p-adically (at most " << digits << " digits of a " << KernelLift::kLiftBits
               << "-bit prime) and checked exactly (entries up to " << bits << " bits)";
        } else {
            os << unproven << " kernel(s) not proven (" << why << "), given to the Hadamard reference"
               << (res.device != "cpu" ? " (its modular ranks on the GPU)" : "")
               << (ref_trace.cpu_reason.empty() ? "" : " (on the CPU: " + ref_trace.cpu_reason + ")");
        }
    }
    res.note = os.str();
    if (bound == 0) {
        set_certified(res, res.value);
    } else {
        res.kind = RankKind::modular_lower_bound;
        res.failure_bound = std::min(1.0, bound);
    }
    return res;
}

}  // namespace seprank
