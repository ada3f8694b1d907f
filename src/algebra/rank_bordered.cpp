#include "rank_bordered.hpp"

#include "flint_handles.hpp"

#include "seprank/error.hpp"
#include "seprank/prime.hpp"

#include <numeric>
#include <stdexcept>
#include <utility>

namespace seprank::detail {

BorderedLU::BorderedLU(std::vector<slong> perm) : k_(static_cast<long>(perm.size())), perm_(std::move(perm)) {
    std::vector<char> seen(perm_.size(), 0);
    for (const slong i : perm_) {
        if (i < 0 || i >= k_ || seen[static_cast<std::size_t>(i)]) throw internal_error("BorderedLU: not a permutation");
        seen[static_cast<std::size_t>(i)] = 1;
    }
}

long BorderedLU::rank(NmodMat& m) {
    if (k_ < 0) throw internal_error("BorderedLU::rank: the matrix had a rank below its side at the last call");
    const long n = m.rows();
    if (m.cols() != n || n < k_) throw internal_error("BorderedLU::rank: the matrix must be square and at least the factored side");
    const std::uint64_t p = m.modulus();
    require_prime(p);
    const long k = k_, s = n - k;
    if (s == 0) return k;
    nmod_mat_struct* a = m.get();
    if (k == 0) {  // the first step: the whole matrix
        perm_.resize(static_cast<std::size_t>(n));
        std::iota(perm_.begin(), perm_.end(), slong{0});
        const long r = nmod_mat_lu(perm_.data(), a, 0);
        k_ = r == n ? n : -1;
        return r;
    }
    // B' = L⁻¹·P·B. The new columns of old row i were written in the matrix's row i, which
    // is not the LU's row i: row i of P·B is the matrix's row perm_[i] (a window whose row
    // pointers follow P).
    NmodMat b(k, s, p);
    {
        NmodMatWindow pb(a, 0, k, k, n);
        for (long i = 0; i < k; ++i) pb.get()->rows[i] = a->rows[perm_[static_cast<std::size_t>(i)]] + k;
        NmodMatWindow l(a, 0, 0, k, k);
        nmod_mat_solve_tril(b.get(), l.get(), pb.get(), 1);
    }
    // C' = C·U⁻¹ = ((Uᵀ)⁻¹·Cᵀ)ᵀ, Uᵀ lower triangular with a non-zero diagonal (M has full rank).
    NmodMat cp(s, k, p);
    {
        NmodMat ct(k, s, p);
        for (long i = 0; i < s; ++i)
            for (long j = 0; j < k; ++j) nmod_mat_entry(ct.get(), j, i) = nmod_mat_entry(a, k + i, j);
        NmodMat ut(k, k, p);
        {
            NmodMatWindow l(a, 0, 0, k, k);
            nmod_mat_transpose(ut.get(), l.get());
        }
        nmod_mat_solve_tril(ct.get(), ut.get(), ct.get(), 0);  // in place: FLINT allows X = B
        nmod_mat_transpose(cp.get(), ct.get());
    }
    // S = D − C'·B', and its rank.
    NmodMat sm(s, s, p);
    for (long i = 0; i < s; ++i)
        for (long j = 0; j < s; ++j) nmod_mat_entry(sm.get(), i, j) = nmod_mat_entry(a, k + i, k + j);
    nmod_mat_submul(sm.get(), sm.get(), cp.get(), b.get());
    std::vector<slong> ps(static_cast<std::size_t>(s));
    std::iota(ps.begin(), ps.end(), slong{0});
    const long rs = nmod_mat_lu(ps.data(), sm.get(), 0);
    if (rs < s) {
        k_ = -1;
        return k + rs;
    }
    // Full rank: the packed LU of the bordered matrix, rows [0, k) | B', then P_S·C' | LU_S.
    for (long i = 0; i < k; ++i)
        for (long j = 0; j < s; ++j) nmod_mat_entry(a, i, k + j) = nmod_mat_entry(b.get(), i, j);
    for (long i = 0; i < s; ++i) {
        const long from = ps[static_cast<std::size_t>(i)];
        for (long j = 0; j < k; ++j) nmod_mat_entry(a, k + i, j) = nmod_mat_entry(cp.get(), from, j);
        for (long j = 0; j < s; ++j) nmod_mat_entry(a, k + i, k + j) = nmod_mat_entry(sm.get(), i, j);
        perm_.push_back(k + from);
    }
    k_ = n;
    return n;
}

}  // namespace seprank::detail
