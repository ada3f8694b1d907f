// seprank — sparse row echelon forms mod p and the pivot-span certificate
// (certificate.hpp; docs/rank.md, "Certificates").
#include "seprank/progress.hpp"
#include "base/parallel.hpp"
#include "seprank/cancel.hpp"
#include "seprank/certificate.hpp"

#include "rank_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/prime.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <flint/fmpq.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>
#include <map>
#include <numeric>
#include <sstream>
#include <thread>

namespace seprank {

using SparseRow = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

// ---------------------------------------------------------------- echelon forms mod p

SparseEchelon sparse_echelon(const SparseNmodMat& a, bool stop_at_full) {
    require_prime(a.p);
    SparseEchelon e;
    e.p = a.p;
    e.cols = a.cols;
    const long full = std::min(a.rows, a.cols);
    if (full == 0) return e;
    nmod_t mod;
    nmod_init(&mod, a.p);
    // Shorter rows first: they make sparser pivots and less fill-in.
    std::vector<std::size_t> order(a.row.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return a.row[x].size() < a.row[y].size(); });

    std::vector<std::int64_t> pivot_of(static_cast<std::size_t>(a.cols), -1);
    std::vector<std::uint64_t> acc(static_cast<std::size_t>(a.cols), 0);
    for (std::size_t idx : order) {
        const auto& row = a.row[idx];
        if (row.empty()) continue;
        std::size_t lo = row.front().first, hi = row.back().first;
        for (const auto& [j, v] : row) acc[j] = v;
        bool kept = false;
        for (std::size_t c = lo; c <= hi; ++c) {
            const std::uint64_t f = acc[c];
            if (f == 0) continue;
            const std::int64_t pv = pivot_of[c];
            if (pv >= 0) {
                // acc -= f · pivot (pivot normalised: leading entry 1 at column c)
                const std::uint64_t nf = nmod_neg(f, mod);
                const SparseRow& prow = e.rows[static_cast<std::size_t>(pv)];
                for (const auto& [j, v] : prow) acc[j] = nmod_add(acc[j], nmod_mul(nf, v, mod), mod);
                hi = std::max<std::size_t>(hi, prow.back().first);
                continue;
            }
            // New pivot at column c: gather the rest, normalised.
            const std::uint64_t inv = n_invmod(f, a.p);
            SparseRow prow;
            for (std::size_t j = c; j <= hi; ++j)
                if (acc[j] != 0) {
                    prow.emplace_back(static_cast<std::uint32_t>(j), nmod_mul(acc[j], inv, mod));
                    acc[j] = 0;
                }
            pivot_of[c] = static_cast<std::int64_t>(e.rows.size());
            e.rows.push_back(std::move(prow));
            e.pivot_cols.push_back(static_cast<long>(c));
            e.pivot_rows.push_back(static_cast<long>(idx));
            kept = true;
            break;
        }
        if (kept && ++e.rank == full && stop_at_full) break;
    }
    return e;
}

void reduce_echelon(SparseEchelon& e) {
    if (e.rank == 0) return;
    nmod_t mod;
    nmod_init(&mod, e.p);
    std::vector<std::int64_t> pivot_of(static_cast<std::size_t>(e.cols), -1);
    for (long k = 0; k < e.rank; ++k) pivot_of[static_cast<std::size_t>(e.pivot_cols[static_cast<std::size_t>(k)])] = k;
    std::vector<long> by_lead(static_cast<std::size_t>(e.rank));
    std::iota(by_lead.begin(), by_lead.end(), 0L);
    std::sort(by_lead.begin(), by_lead.end(), [&](long x, long y) { return e.pivot_cols[static_cast<std::size_t>(x)] > e.pivot_cols[static_cast<std::size_t>(y)]; });
    std::vector<std::uint64_t> acc(static_cast<std::size_t>(e.cols), 0);
    // Pivots with a larger leading column are already reduced: eliminating their pivot
    // column from row k adds entries in non-pivot columns only.
    for (long k : by_lead) {
        SparseRow& row = e.rows[static_cast<std::size_t>(k)];
        const std::size_t c = row.front().first;
        std::size_t hi = row.back().first;
        bool touched = false;
        for (const auto& [j, v] : row) acc[j] = v;
        for (std::size_t j = c + 1; j <= hi; ++j) {
            const std::uint64_t f = acc[j];
            const std::int64_t q = pivot_of[j];
            if (f == 0 || q < 0) continue;
            const std::uint64_t nf = nmod_neg(f, mod);
            const SparseRow& qrow = e.rows[static_cast<std::size_t>(q)];
            for (const auto& [jj, v] : qrow) acc[jj] = nmod_add(acc[jj], nmod_mul(nf, v, mod), mod);
            hi = std::max<std::size_t>(hi, qrow.back().first);
            touched = true;
        }
        if (!touched) {
            for (const auto& [j, v] : row) acc[j] = 0;
            continue;
        }
        SparseRow out;
        for (std::size_t j = c; j <= hi; ++j)
            if (acc[j] != 0) {
                out.emplace_back(static_cast<std::uint32_t>(j), acc[j]);
                acc[j] = 0;
            }
        row = std::move(out);
    }
}

SparseEchelon dense_reduced_echelon(const NmodMat& a) {
    require_prime(a.modulus());
    SparseEchelon e;
    e.p = a.modulus();
    e.cols = a.cols();
    if (a.rows() == 0 || a.cols() == 0) return e;
    NmodMat w = a;
    e.rank = nmod_mat_rref(w.get());
    for (long i = 0; i < e.rank; ++i) {
        SparseRow row;
        for (long j = 0; j < a.cols(); ++j) {
            const std::uint64_t v = nmod_mat_entry(w.get(), i, j);
            if (v != 0) row.emplace_back(static_cast<std::uint32_t>(j), v);
        }
        e.pivot_cols.push_back(static_cast<long>(row.front().first));
        e.rows.push_back(std::move(row));
    }
    return e;
}

// ---------------------------------------------------------------- the certificate

SparseZMat detail::transpose(const SparseZMat& a) {
    SparseZMat t;
    t.rows = a.cols;
    t.cols = a.rows;
    t.row.resize(static_cast<std::size_t>(t.rows));
    for (long i = 0; i < a.rows; ++i)
        for (const auto& [j, v] : a.row[static_cast<std::size_t>(i)]) t.row[static_cast<std::size_t>(j)].emplace_back(i, v);
    return t;
}

namespace {

using detail::transpose;

// The reduced echelon form of w mod p, dense or sparse by density.
SparseEchelon reduced_echelon_mod(const SparseZMat& w, std::uint64_t p, bool dense) {
    if (!dense) {
        SparseEchelon e = sparse_echelon(reduce_mod(w, p));
        reduce_echelon(e);
        return e;
    }
    NmodMat d(w.rows, w.cols, p);
    for (long i = 0; i < w.rows; ++i)
        for (const auto& [j, v] : w.row[static_cast<std::size_t>(i)]) nmod_mat_entry(d.get(), i, j) = fmpz_fdiv_ui(v.get(), p);
    return dense_reduced_echelon(d);
}

// The non-pivot part of the reduced echelon form over Q, known modulo `modulus`: for
// each non-pivot column j, the pairs (k, x_kj mod modulus) with x_kj ≠ 0, k increasing.
struct CrtSolution {
    Integer modulus{1};
    long primes = 0;
    std::vector<long> nonpivot;                                  // the columns j
    std::vector<std::vector<std::pair<long, Integer>>> column;  // per j: (k, residue)
};

// Folds one prime's reduced echelon form (same pivots) into the CRT solution.
void crt_add(CrtSolution& s, const SparseEchelon& e, const std::vector<long>& index_of) {
    std::vector<std::vector<std::pair<long, std::uint64_t>>> col(s.nonpivot.size());
    for (long k = 0; k < e.rank; ++k)
        for (const auto& [j, v] : e.rows[static_cast<std::size_t>(k)]) {
            const long t = index_of[j];
            if (t >= 0) col[static_cast<std::size_t>(t)].emplace_back(k, v);
        }
    Integer zero(0), out;
    for (std::size_t t = 0; t < col.size(); ++t) {
        const auto& old = s.column[t];
        const auto& add = col[t];
        std::vector<std::pair<long, Integer>> merged;
        merged.reserve(std::max(old.size(), add.size()));
        std::size_t a = 0, b = 0;
        while (a < old.size() || b < add.size()) {
            const long ka = a < old.size() ? old[a].first : LONG_MAX;
            const long kb = b < add.size() ? add[b].first : LONG_MAX;
            const long k = std::min(ka, kb);
            const fmpz* r1 = ka == k ? old[a].second.get() : zero.get();
            const std::uint64_t r2 = kb == k ? add[b].second : 0;
            fmpz_CRT_ui(out.get(), r1, s.modulus.get(), r2, e.p, 0);
            if (!out.is_zero()) merged.emplace_back(k, out);
            a += ka == k;
            b += kb == k;
        }
        s.column[t] = std::move(merged);
    }
    fmpz_mul_ui(s.modulus.get(), s.modulus.get(), e.p);
    ++s.primes;
}

// The exact check that certifies: D·w_j = Σ_i N_i·w_{col_i} over all rows (D ≠ 0).
// wc: w by columns; acc: m zeros, left zero.
bool check_column(const SparseZMat& wc, long j, const std::vector<long>& cols, const std::vector<Integer>& num,
                  const fmpz* d, std::vector<Integer>& acc, long& max_bits) {
    std::vector<long> touched;
    auto add = [&](long col, const fmpz* f, bool sub) {
        for (const auto& [i, v] : wc.row[static_cast<std::size_t>(col)]) {
            fmpz* x = acc[static_cast<std::size_t>(i)].get();
            if (fmpz_is_zero(x)) touched.push_back(i);
            if (sub) fmpz_submul(x, f, v.get());
            else fmpz_addmul(x, f, v.get());
        }
    };
    add(j, d, false);
    max_bits = std::max<long>(max_bits, static_cast<long>(fmpz_bits(d)));
    for (std::size_t i = 0; i < cols.size(); ++i) {
        max_bits = std::max<long>(max_bits, static_cast<long>(fmpz_bits(num[i].get())));
        add(cols[i], num[i].get(), true);
    }
    bool zero = true;
    for (long i : touched) {
        zero = zero && acc[static_cast<std::size_t>(i)].is_zero();
        fmpz_zero(acc[static_cast<std::size_t>(i)].get());
    }
    return zero;
}

// Tries to prove non-pivot column t from its residues mod s.modulus: rational
// reconstruction of each x_kj, a common denominator D, then the exact check.
bool prove_column(const CrtSolution& s, std::size_t t, const std::vector<long>& pivots, const SparseZMat& wc,
                  std::vector<Integer>& acc, long& max_bits) {
    const auto& entries = s.column[t];
    std::vector<Integer> num(entries.size()), den(entries.size());
    std::vector<long> cols(entries.size());
    Integer d(1);
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (_fmpq_reconstruct_fmpz(num[i].get(), den[i].get(), entries[i].second.get(), s.modulus.get()) == 0) return false;
        fmpz_lcm(d.get(), d.get(), den[i].get());
        cols[i] = pivots[static_cast<std::size_t>(entries[i].first)];
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
        fmpz_divexact(den[i].get(), d.get(), den[i].get());
        fmpz_mul(num[i].get(), num[i].get(), den[i].get());
    }
    return check_column(wc, s.nonpivot[t], cols, num, d.get(), acc, max_bits);
}

// Columns whose combination mod p_1 uses few pivots are solved directly over Q: the
// columns with the same support S (|S| ≤ kDirectMax) share one exact s×s solve on s
// rows where W[rows, C_S] is non-singular mod p_1, then each is checked exactly. Marks
// the columns it proves; the rest are left to reconstruction.
constexpr std::size_t kDirectMax = 128;

void prove_small_supports(const CrtSolution& s, const std::vector<long>& pivots, const SparseZMat& wc, long m,
                          std::uint64_t p, std::vector<char>& proven, std::vector<Integer>& acc, long& max_bits) {
    std::map<std::vector<long>, std::vector<std::size_t>> groups;
    for (std::size_t t = 0; t < s.column.size(); ++t) {
        if (s.column[t].size() > kDirectMax) continue;
        std::vector<long> support;
        for (const auto& e : s.column[t]) support.push_back(e.first);
        groups[support].push_back(t);
    }
    for (const auto& [support, members] : groups) {
        const long k = static_cast<long>(support.size());
        std::vector<long> cols(support.size());
        for (long i = 0; i < k; ++i) cols[static_cast<std::size_t>(i)] = pivots[static_cast<std::size_t>(support[static_cast<std::size_t>(i)])];
        if (k == 0) {  // w_j ≡ 0 mod p_1: maybe zero
            for (std::size_t t : members) {
                const Integer one(1);
                proven[t] = check_column(wc, s.nonpivot[t], {}, {}, one.get(), acc, max_bits);
            }
            continue;
        }
        // s independent rows of W[:, C_S] mod p.
        std::map<long, std::vector<std::pair<long, const Integer*>>> rows;
        for (long i = 0; i < k; ++i)
            for (const auto& [r, v] : wc.row[static_cast<std::size_t>(cols[static_cast<std::size_t>(i)])]) rows[r].emplace_back(i, &v);
        SparseNmodMat sub;
        sub.rows = static_cast<long>(rows.size());
        sub.cols = k;
        sub.p = p;
        std::vector<long> row_id;
        for (const auto& [r, entries] : rows) {
            row_id.push_back(r);
            std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
            for (const auto& [i, v] : entries) {
                const std::uint64_t x = v->mod(p);
                if (x != 0) out.emplace_back(static_cast<std::uint32_t>(i), x);
            }
            sub.row.push_back(std::move(out));
        }
        const SparseEchelon e = sparse_echelon(sub);
        if (e.rank < k) continue;
        std::vector<long> pick(static_cast<std::size_t>(k));
        for (long i = 0; i < k; ++i) pick[static_cast<std::size_t>(i)] = row_id[static_cast<std::size_t>(e.pivot_rows[static_cast<std::size_t>(i)])];
        std::vector<long> where(static_cast<std::size_t>(m), -1);
        for (long i = 0; i < k; ++i) where[static_cast<std::size_t>(pick[static_cast<std::size_t>(i)])] = i;
        ZMat a(k, k), b(k, static_cast<long>(members.size()));
        for (long i = 0; i < k; ++i)
            for (const auto& [r, v] : wc.row[static_cast<std::size_t>(cols[static_cast<std::size_t>(i)])])
                if (where[static_cast<std::size_t>(r)] >= 0) fmpz_set(fmpz_mat_entry(a.get(), where[static_cast<std::size_t>(r)], i), v.get());
        for (std::size_t q = 0; q < members.size(); ++q)
            for (const auto& [r, v] : wc.row[static_cast<std::size_t>(s.nonpivot[members[q]])])
                if (where[static_cast<std::size_t>(r)] >= 0) fmpz_set(fmpz_mat_entry(b.get(), where[static_cast<std::size_t>(r)], static_cast<long>(q)), v.get());
        ZMat x(k, static_cast<long>(members.size()));
        Integer den;
        if (!fmpz_mat_solve(x.get(), den.get(), a.get(), b.get()) || den.is_zero()) continue;
        std::vector<Integer> num(static_cast<std::size_t>(k));
        for (std::size_t q = 0; q < members.size(); ++q) {
            for (long i = 0; i < k; ++i) fmpz_set(num[static_cast<std::size_t>(i)].get(), fmpz_mat_entry(x.get(), i, static_cast<long>(q)));
            proven[members[q]] = check_column(wc, s.nonpivot[members[q]], cols, num, den.get(), acc, max_bits);
        }
    }
}

// Reduced echelon forms of w modulo each prime, in parallel.
std::vector<SparseEchelon> echelons(const SparseZMat& w, const std::vector<std::uint64_t>& ps, bool dense, int threads) {
    std::vector<SparseEchelon> out(ps.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&](int) {
        for (std::size_t k; !cancel_requested() && (k = next.fetch_add(1)) < ps.size();) out[k] = reduced_echelon_mod(w, ps[k], dense);
    };
    const int nt = std::max(1, std::min<int>(threads, static_cast<int>(ps.size())));
    detail::run_parallel(nt, worker);  // exceptions and cancels reach the caller (parallel.hpp)
    return out;
}

}  // namespace

RankAnswer detail::rank_pivot_span(const SparseZMat& input, const RankOptions& opt, DeviceTrace* trace) {
    const auto t0 = std::chrono::steady_clock::now();
    RankAnswer res = matrix_answer(input.rows, input.cols);
    res.field = "Q";
    const long full = std::min(input.rows, input.cols);
    const bool dense = use_dense(input);
    const std::string kind = dense ? "modular-dense" : "modular-sparse";
    // Work on the orientation with fewer columns: the solution has r·(cols − r) entries.
    const bool flip = input.cols > input.rows;
    const SparseZMat flipped = flip ? transpose(input) : SparseZMat();
    const SparseZMat& w = flip ? flipped : input;

    // The rank phase: one reduced echelon form mod p_1 (forward elimination only when
    // the rank is full).
    std::vector<std::uint64_t> ps = distinct_primes(opt.seed, 1);
    SparseEchelon first;
    if (dense) {
        first = reduced_echelon_mod(w, ps[0], true);
    } else {
        first = sparse_echelon(reduce_mod(w, ps[0]));
    }
    const long r = first.rank;
    res.phases.rank = seconds_since(t0);
    res.prime = ps[0];
    res.primes_used = 1;
    if (r == full) {
        set_certified(res, r);
        res.variant = kind;
        res.note = "full rank mod p " + std::to_string(ps[0]) + ", hence over Q";
        return res;
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (!dense) reduce_echelon(first);

    // Budget: about a quarter of the primes the Hadamard certificate would need.
    const double log2H = log2_hadamard_bound(input, r + 1);
    const long hadamard_primes = static_cast<long>(std::ceil((log2H + 2.0) / 61.0));
    const long budget = std::min(std::clamp(hadamard_primes / 4, 2L, 64L), opt.max_primes);

    CrtSolution sol;
    std::vector<long> index_of(static_cast<std::size_t>(w.cols), -1);
    {
        std::vector<char> is_pivot(static_cast<std::size_t>(w.cols), 0);
        for (long c : first.pivot_cols) is_pivot[static_cast<std::size_t>(c)] = 1;
        for (long j = 0; j < w.cols; ++j)
            if (!is_pivot[static_cast<std::size_t>(j)]) {
                index_of[static_cast<std::size_t>(j)] = static_cast<long>(sol.nonpivot.size());
                sol.nonpivot.push_back(j);
            }
        sol.column.resize(sol.nonpivot.size());
    }
    crt_add(sol, first, index_of);
    const SparseZMat wc = transpose(w);
    std::vector<Integer> acc(static_cast<std::size_t>(w.rows));
    std::vector<char> proven(sol.nonpivot.size(), 0);
    long max_bits = 0;
    prove_small_supports(sol, first.pivot_cols, wc, w.rows, ps[0], proven, acc, max_bits);
    std::size_t done = 0;  // columns [0, done) are proven
    bool higher = false;
    for (long batch = 1;; batch *= 2) {
        throw_if_cancelled();  // one poll per round of primes (cancel.hpp)
        // Prove columns in order; stop at the first that needs more primes.
        while (done < sol.nonpivot.size() && !cancel_requested() && (proven[done] || prove_column(sol, done, first.pivot_cols, wc, acc, max_bits))) {
            proven[done++] = 1;
            report_progress(current_progress(), "certificate columns", done, sol.nonpivot.size());
        }
        report_progress(current_progress(), "certificate columns", done, sol.nonpivot.size(), "(" + std::to_string(res.primes_used) + " primes)");
        if (done == sol.nonpivot.size()) {
            set_certified(res, r);
            res.variant = "pivot-span";
            std::ostringstream os;
            os << "rank mod p = " << r << " (a lower bound); the " << sol.nonpivot.size() << " non-pivot "
               << (flip ? "rows" : "columns") << " are Q-combinations of the " << r << " pivot ones, checked exactly ("
               << sol.primes << " primes, numerators and denominators up to " << max_bits << " bits)";
            res.note = os.str();
            res.phases.certificate = seconds_since(t1);
            return res;
        }
        if (res.primes_used >= budget || seconds_since(t1) > opt.max_certify_seconds) break;
        const long more = std::min(batch, budget - res.primes_used);
        ps = distinct_primes(opt.seed, static_cast<std::size_t>(res.primes_used + more));
        const std::vector<std::uint64_t> fresh(ps.end() - more, ps.end());
        for (const SparseEchelon& e : echelons(w, fresh, dense, opt.threads)) {
            ++res.primes_used;
            if (e.rank > r) higher = true;  // p_1 was unlucky: the reference sorts it out
            if (e.rank == r && e.pivot_cols == first.pivot_cols) crt_add(sol, e, index_of);  // else: unlucky, skipped
        }
        if (higher) break;
    }
    // Too large to reconstruct within the budget (or p_1 unlucky): the reference.
    const long spent = res.primes_used;
    RankAnswer ref = rank_hadamard(input, opt, trace);
    ref.primes_used += spent;
    ref.phases.rank = res.phases.rank;
    ref.phases.certificate = seconds_since(t1);
    std::ostringstream os;
    os << "pivot-span gave up after " << spent << " primes (" << done << " of " << sol.nonpivot.size()
       << " non-pivot " << (flip ? "rows" : "columns") << " proven" << (higher ? ", a higher rank mod another prime" : "")
       << "); " << ref.note;
    ref.note = os.str();
    return ref;
}

}  // namespace seprank
