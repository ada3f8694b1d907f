#include "poly_mul.hpp"

#include "base/parallel.hpp"
#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "seprank/integer.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>

namespace seprank::detail {

namespace {

__extension__ typedef __int128 i128;           // GCC/Clang extension, as FLINT uses
__extension__ typedef unsigned __int128 u128;

// ---------------------------------------------------------------- RAII handles

class ZPoly {
public:
    explicit ZPoly(const fmpz_mpoly_ctx_struct* c) : c_(c) { fmpz_mpoly_init(p_, c_); }
    ZPoly(ZPoly&& o) noexcept : c_(o.c_) {
        fmpz_mpoly_init(p_, c_);
        fmpz_mpoly_swap(p_, o.p_, c_);
    }
    ZPoly(const ZPoly&) = delete;
    ZPoly& operator=(const ZPoly&) = delete;
    ZPoly& operator=(ZPoly&&) = delete;
    ~ZPoly() { fmpz_mpoly_clear(p_, c_); }
    fmpz_mpoly_struct* get() noexcept { return p_; }
    const fmpz_mpoly_struct* get() const noexcept { return p_; }

private:
    const fmpz_mpoly_ctx_struct* c_;
    fmpz_mpoly_struct p_[1];
};

// ---------------------------------------------------------------- digits
// FLINT's heap product accumulates in three machine words only when both factors have
// coefficients of at most FLINT_BITS − 2 bits; past that every term product is a GMP
// call. Balanced base-2^k digits, a = Σ_i 2^{ki} a_i with a_i ∈ [−2^{k−1}, 2^{k−1}),
// make every product word-size: a·b = Σ_s 2^{ks} Σ_{i+j=s} a_i·b_j.

constexpr flint_bitcnt_t kDigitBits = 60;

slong coeff_bits(const fmpz_mpoly_struct* a) { return FLINT_ABS(fmpz_mpoly_max_bits(a)); }
bool is_small(const fmpz_mpoly_struct* a) { return coeff_bits(a) <= FLINT_BITS - 2; }

std::vector<ZPoly> balanced_digits(const fmpz_mpoly_struct* a, const fmpz_mpoly_ctx_struct* ctx) {
    const slong m = coeff_bits(a) / static_cast<slong>(kDigitBits) + 2;
    const slong N = static_cast<slong>(mpoly_words_per_exp(a->bits, ctx->minfo));
    std::vector<ZPoly> d;
    std::vector<slong> len(static_cast<std::size_t>(m), 0);
    for (slong i = 0; i < m; ++i) {
        d.emplace_back(ctx);
        fmpz_mpoly_fit_length_reset_bits(d.back().get(), a->length, a->bits, ctx);
    }
    Integer c, r, half, base;
    fmpz_one_2exp(half.get(), kDigitBits - 1);
    fmpz_one_2exp(base.get(), kDigitBits);
    for (slong t = 0; t < a->length; ++t) {
        fmpz_set(c.get(), a->coeffs + t);
        for (std::size_t i = 0; !fmpz_is_zero(c.get()); ++i) {
            fmpz_fdiv_r_2exp(r.get(), c.get(), kDigitBits);
            if (fmpz_cmp(r.get(), half.get()) >= 0) fmpz_sub(r.get(), r.get(), base.get());
            fmpz_sub(c.get(), c.get(), r.get());
            fmpz_fdiv_q_2exp(c.get(), c.get(), kDigitBits);
            if (fmpz_is_zero(r.get())) continue;
            fmpz_mpoly_struct* di = d.at(i).get();
            slong& k = len[i];
            fmpz_swap(di->coeffs + k, r.get());
            mpoly_monomial_set(di->exps + N * k, a->exps + N * t, N);
            ++k;
        }
    }
    for (std::size_t i = 0; i < d.size(); ++i) _fmpz_mpoly_set_length(d[i].get(), len[i], ctx);
    while (!d.empty() && fmpz_mpoly_is_zero(d.back().get(), ctx)) d.pop_back();
    return d;
}

// ---------------------------------------------------------------- dense accumulation
// For word-size factors. Every polynomial is the sum of its group-homogeneous parts (the
// terms of one degree vector e = (degree in the variables of group g)_g). The product of
// parts of degree vectors e and e' lies in the part e + e', whose monomials are fixed by the
// exponents of all but the last variable of each group, each in [0, e_g]: an array of
// Π_g (e_g + 1)^{m_g − 1} entries (m_g variables in group g) indexed by
// off(x) = Σ_g Σ_{k < m_g − 1} x_{g,k}·(e_g + 1)^k·(stride of the groups before), which is
// additive on the monomials of the factors' parts (no digit exceeds e_g). So each term
// product is one multiply-add into a word array, without the heap's comparisons.

struct Parts {
    bool ok = true;                       // false: an exponent or group degree of 2^31 or more
    std::vector<std::vector<ulong>> deg;  // degree vector of each part
    std::vector<std::vector<slong>> terms;
    std::vector<ulong> exps;  // unpacked exponents, nvars per term
};

constexpr ulong kMaxDegree = ulong(1) << 31;

Parts split_parts(const fmpz_mpoly_struct* a, const fmpz_mpoly_ctx_struct* ctx, const std::vector<long>& group,
                  long ngroups) {
    const slong n = ctx->minfo->nvars;
    Parts p;
    p.exps.resize(static_cast<std::size_t>(a->length * n));
    std::map<std::vector<ulong>, std::size_t> index;
    std::vector<ulong> d(static_cast<std::size_t>(ngroups));
    for (slong t = 0; t < a->length; ++t) {
        ulong* e = p.exps.data() + t * n;
        fmpz_mpoly_get_term_exp_ui(e, a, t, ctx);
        std::fill(d.begin(), d.end(), 0);
        for (slong v = 0; v < n; ++v) {
            ulong& dg = d[static_cast<std::size_t>(group[static_cast<std::size_t>(v)])];
            // Degrees below 2^31 keep every sum of two (the output's) below 2^32: no
            // wrap-around in e + e' or e_g + 1. Larger ones would need arrays far over the cap.
            if (e[v] >= kMaxDegree || (dg += e[v]) >= kMaxDegree) {
                p.ok = false;
                return p;
            }
        }
        auto it = index.find(d);
        if (it == index.end()) {
            it = index.emplace(d, p.deg.size()).first;
            p.deg.push_back(d);
            p.terms.emplace_back();
        }
        p.terms[it->second].push_back(t);
    }
    return p;
}

// Strides of the array of the output part e (0 for the last variable of each group);
// group_vars[g]: the variables of group g, in order.
std::vector<ulong> strides(const std::vector<std::vector<slong>>& group_vars, const std::vector<ulong>& e, slong nvars,
                           double* size) {
    std::vector<ulong> s(static_cast<std::size_t>(nvars), 0);
    double total = 1;
    ulong run = 1;
    for (std::size_t g = 0; g < group_vars.size(); ++g) {
        const auto& vs = group_vars[g];
        for (std::size_t k = 0; k + 1 < vs.size(); ++k) {
            s[static_cast<std::size_t>(vs[k])] = run;
            total *= static_cast<double>(e[g] + 1);
            if (total < 1e18) run *= e[g] + 1;
        }
    }
    *size = total;
    return s;
}

struct Acc2 {
    i128 v;
    void add(std::int64_t a, std::int64_t b) { v += static_cast<i128>(a) * b; }
    bool nonzero() const { return v != 0; }
    void get(fmpz* c) const {
        const auto u = static_cast<u128>(v);
        fmpz_set_signed_uiui(c, static_cast<ulong>(u >> 64), static_cast<ulong>(u));
    }
};

struct Acc3 {
    std::uint64_t lo, mid;
    std::int64_t hi;
    void add(std::int64_t a, std::int64_t b) {
        const i128 p = static_cast<i128>(a) * b;
        const u128 old = (static_cast<u128>(mid) << 64) | lo;
        const u128 sum = old + static_cast<u128>(p);
        lo = static_cast<std::uint64_t>(sum);
        mid = static_cast<std::uint64_t>(sum >> 64);
        hi += (p < 0 ? -1 : 0) + (sum < old ? 1 : 0);
    }
    bool nonzero() const { return (lo | mid) != 0 || hi != 0; }
    void get(fmpz* c) const {
        fmpz_set_signed_uiuiui(c, static_cast<ulong>(hi), static_cast<ulong>(mid), static_cast<ulong>(lo));
    }
};

struct DensePlan {
    std::vector<std::vector<slong>> group_vars;  // variables of each group, in order
    Parts A, B;
    // Per output part (key): its degree vector, the contributing part pairs, its array's
    // strides and entries, and its work (entries + term products).
    std::vector<std::vector<ulong>> keys;
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> pairs;
    std::vector<std::vector<ulong>> strides;
    std::vector<double> size, work;
    double part_pairs = 0, products = 0, entries = 0, largest = 0;
    bool planned() const { return !keys.empty(); }
};

// Beyond this many (part of a, part of b) pairs the parts are too small for arrays to pay
// (e.g. one variable per token: every part is one monomial), and planning alone would cost
// as much as the heap.
constexpr double kMaxPartPairs = 1 << 20;

DensePlan plan_dense(const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b, const fmpz_mpoly_ctx_struct* ctx,
                     const std::vector<long>& groups) {
    const slong n = ctx->minfo->nvars;
    DensePlan P;
    std::map<long, long> gid;
    std::vector<long> group(static_cast<std::size_t>(n));
    for (slong v = 0; v < n; ++v) {
        auto [it, fresh] = gid.emplace(groups[static_cast<std::size_t>(v)], static_cast<long>(gid.size()));
        if (fresh) P.group_vars.emplace_back();
        group[static_cast<std::size_t>(v)] = it->second;
        P.group_vars[static_cast<std::size_t>(it->second)].push_back(v);
    }
    const long ng = static_cast<long>(gid.size());
    P.A = split_parts(a, ctx, group, ng);
    if (!P.A.ok) return P;
    P.B = split_parts(b, ctx, group, ng);
    if (!P.B.ok) return P;
    P.part_pairs = static_cast<double>(P.A.deg.size()) * static_cast<double>(P.B.deg.size());
    if (P.part_pairs > kMaxPartPairs) return P;  // not planned: too many small parts
    std::map<std::vector<ulong>, std::size_t> index;
    for (std::size_t i = 0; i < P.A.deg.size(); ++i)
        for (std::size_t j = 0; j < P.B.deg.size(); ++j) {
            std::vector<ulong> e(static_cast<std::size_t>(ng));
            for (long g = 0; g < ng; ++g) e[static_cast<std::size_t>(g)] = P.A.deg[i][static_cast<std::size_t>(g)] + P.B.deg[j][static_cast<std::size_t>(g)];
            auto it = index.find(e);
            if (it == index.end()) {
                it = index.emplace(e, P.keys.size()).first;
                double sz = 0;
                P.strides.push_back(strides(P.group_vars, e, n, &sz));
                P.keys.push_back(std::move(e));
                P.pairs.emplace_back();
                P.size.push_back(sz);
                P.work.push_back(sz);
                P.entries += sz;
                P.largest = std::max(P.largest, sz);
            }
            const double prods = static_cast<double>(P.A.terms[i].size()) * static_cast<double>(P.B.terms[j].size());
            P.pairs[it->second].emplace_back(i, j);
            P.work[it->second] += prods;
            P.products += prods;
        }
    return P;
}

template <class Acc>
void dense_key(const DensePlan& P, std::size_t key, const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b,
               const fmpz_mpoly_ctx_struct* ctx, std::vector<Acc>& acc, fmpz_mpoly_struct* out) {
    const slong n = ctx->minfo->nvars;
    const auto& e = P.keys[key];
    const std::vector<ulong>& st = P.strides[key];
    const std::size_t S = static_cast<std::size_t>(P.size[key]);
    if (acc.size() < S) acc.resize(S);
    auto offset = [&](const ulong* x) {
        std::uint64_t o = 0;
        for (slong v = 0; v < n; ++v) o += x[v] * st[static_cast<std::size_t>(v)];
        return o;
    };
    std::vector<std::pair<std::uint64_t, std::int64_t>> tb;
    std::vector<std::uint64_t> oa;
    std::vector<std::int64_t> ca;
    for (const auto& [i, j] : P.pairs[key]) {
        throw_if_cancelled();
        const auto& TA = P.A.terms[i];
        const auto& TB = P.B.terms[j];
        oa.clear();
        ca.clear();
        for (slong t : TA) {
            oa.push_back(offset(P.A.exps.data() + t * n));
            ca.push_back(fmpz_get_si(a->coeffs + t));
        }
        tb.clear();
        for (slong t : TB) tb.emplace_back(offset(P.B.exps.data() + t * n), fmpz_get_si(b->coeffs + t));
        std::sort(tb.begin(), tb.end());
        for (std::size_t x = 0; x < oa.size(); ++x) {
            Acc* base = acc.data() + oa[x];
            const std::int64_t c = ca[x];
            for (const auto& [ob, cb] : tb) base[ob].add(c, cb);
        }
    }
    // Read the array back: digits of the index are the free exponents; the last variable
    // of each group takes the rest of e_g.
    std::vector<ulong> exp(static_cast<std::size_t>(n));
    Integer c;
    for (std::size_t idx = 0; idx < S; ++idx) {
        if (!acc[idx].nonzero()) continue;
        std::uint64_t rest = idx;
        for (std::size_t g = 0; g < P.group_vars.size(); ++g) {
            const auto& vs = P.group_vars[g];
            ulong used = 0;
            for (std::size_t k = 0; k + 1 < vs.size(); ++k) {
                const ulong x = rest % (e[g] + 1);
                rest /= e[g] + 1;
                exp[static_cast<std::size_t>(vs[k])] = x;
                used += x;
            }
            exp[static_cast<std::size_t>(vs.back())] = e[g] - used;
        }
        acc[idx].get(c.get());
        acc[idx] = Acc{};
        fmpz_mpoly_push_term_fmpz_ui(out, c.get(), exp.data(), ctx);
    }
}

// The dense variant's arrays together, over all its threads (entries of 16 or 24 bytes):
// each thread holds one array of at most kDenseMaxBytes / threads.
constexpr double kDenseMaxBytes = 1024.0 * 1024 * 1024;

// r = a·b for word-size a, b by dense accumulation. Returns false (r untouched) where the
// plan does not fit kDenseMaxBytes, or, unless forced, where the cost model prefers the heap:
// fewer than 2^22 term products, or more array entries than term products.
bool zmul_dense(fmpz_mpoly_struct* r, const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b,
                const fmpz_mpoly_ctx_struct* ctx, const std::vector<long>& groups, bool forced, int threads) {
    if (fmpz_mpoly_is_zero(a, ctx) || fmpz_mpoly_is_zero(b, ctx)) {
        fmpz_mpoly_zero(r, ctx);
        return true;
    }
    if (a->bits > FLINT_BITS || b->bits > FLINT_BITS) return false;  // exponents beyond one word
    if (!forced && static_cast<double>(a->length) * static_cast<double>(b->length) < 4194304.0) return false;
    // The plan unpacks both factors' exponents and indexes their parts (up to one a term, a
    // degree vector each): about 8·nvars + 24·groups + 200 bytes a term. Where that would be
    // over a quarter of the memory limit the heap product runs instead, whose memory the
    // product's size check already counts (2^22 terms of 22 variables planned 1.5 GB).
    const double groups_n = groups.empty() ? 1.0 : static_cast<double>(*std::max_element(groups.begin(), groups.end()) + 1);
    const double plan_bytes = static_cast<double>(a->length + b->length) * (8.0 * static_cast<double>(ctx->minfo->nvars) + 24.0 * groups_n + 200.0);
    if (!forced && plan_bytes > 0.25 * default_max_memory()) return false;
    const DensePlan P = plan_dense(a, b, ctx, groups);
    if (!P.planned()) return false;
    const double bound_bits = static_cast<double>(coeff_bits(a) + coeff_bits(b)) +
                              std::log2(static_cast<double>(std::min(a->length, b->length))) + 1;
    const bool two_words = bound_bits < 126;
    const double entry = two_words ? sizeof(Acc2) : sizeof(Acc3);
    const int nt = std::max(1, std::min<int>(threads, static_cast<int>(P.keys.size())));
    if (P.largest * entry * nt > kDenseMaxBytes) return false;
    if (!forced && !(P.products >= 4194304.0 && P.entries <= P.products && 64 * P.part_pairs <= P.products)) return false;

    std::vector<std::size_t> order(P.keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return P.work[x] > P.work[y]; });
    std::vector<ZPoly> partial;
    for (int t = 0; t < nt; ++t) partial.emplace_back(ctx);
    std::atomic<std::size_t> next{0};
    run_parallel(nt, [&](int tid) {  // started threads release FLINT's caches (parallel.hpp)
        fmpz_mpoly_struct* out = partial[static_cast<std::size_t>(tid)].get();
        std::vector<Acc2> acc2;
        std::vector<Acc3> acc3;
        for (std::size_t k; (k = next.fetch_add(1)) < order.size();) {
            if (two_words)
                dense_key(P, order[k], a, b, ctx, acc2, out);
            else
                dense_key(P, order[k], a, b, ctx, acc3, out);
        }
        fmpz_mpoly_sort_terms(out, ctx);
    });
    ZPoly sum(ctx);
    for (auto& p : partial) fmpz_mpoly_add(sum.get(), sum.get(), p.get(), ctx);
    fmpz_mpoly_swap(r, sum.get(), ctx);
    return true;
}

// One product of word-size factors by the variant's method.
void zmul_small(fmpz_mpoly_struct* r, const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b,
                const fmpz_mpoly_ctx_struct* ctx, const std::vector<long>& groups, MulVariant v, int threads,
                MulStats* stats) {
    if ((v == MulVariant::dense || v == MulVariant::automatic) &&
        zmul_dense(r, a, b, ctx, groups, v == MulVariant::dense, threads)) {
        if (stats) ++stats->dense;
        return;
    }
    fmpz_mpoly_mul(r, a, b, ctx);
    if (stats) ++stats->heap;
}

// a itself as one digit when it is word-size, else its balanced digits.
std::vector<ZPoly> digits_if_needed(const fmpz_mpoly_struct* a, const fmpz_mpoly_ctx_struct* ctx) {
    if (!is_small(a)) return balanced_digits(a, ctx);
    std::vector<ZPoly> d;
    d.emplace_back(ctx);
    fmpz_mpoly_set(d.back().get(), a, ctx);
    return d;
}

}  // namespace

void zmpoly_mul(fmpz_mpoly_struct* r, const fmpz_mpoly_struct* a, const fmpz_mpoly_struct* b,
                const fmpz_mpoly_ctx_struct* ctx, const std::vector<long>& groups, MulVariant v, int threads,
                MulStats* stats) {
    if (static_cast<slong>(groups.size()) != ctx->minfo->nvars)
        throw invalid_input("product: " + std::to_string(groups.size()) + " variable groups for " +
                            std::to_string(ctx->minfo->nvars) + " variables");
    if (v == MulVariant::flint) {
        fmpz_mpoly_mul(r, a, b, ctx);
        if (stats) ++stats->heap;
        return;
    }
    if (is_small(a) && is_small(b)) {
        zmul_small(r, a, b, ctx, groups, v, threads, stats);
        return;
    }
    const std::vector<ZPoly> da = digits_if_needed(a, ctx), db = digits_if_needed(b, ctx);
    ZPoly acc(ctx), t(ctx);
    if (da.empty() || db.empty()) {
        fmpz_mpoly_zero(r, ctx);
        return;
    }
    Integer base;
    fmpz_one_2exp(base.get(), kDigitBits);
    const std::size_t top = da.size() + db.size() - 2;
    for (std::size_t s = top + 1; s-- > 0;) {
        if (s != top) fmpz_mpoly_scalar_mul_fmpz(acc.get(), acc.get(), base.get(), ctx);
        for (std::size_t i = 0; i < da.size(); ++i) {
            if (s < i || s - i >= db.size()) continue;
            zmul_small(t.get(), da[i].get(), db[s - i].get(), ctx, groups, v, threads, stats);
            fmpz_mpoly_add(acc.get(), acc.get(), t.get(), ctx);
        }
    }
    fmpz_mpoly_swap(r, acc.get(), ctx);
}

}  // namespace seprank::detail
