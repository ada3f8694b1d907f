// seprank — dense multivariate interpolation mod p (interpolation.hpp).
#include "interpolation.hpp"

#include "base/parallel.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/prime.hpp"

#include <flint/nmod_mat.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include <algorithm>
#include <map>
#include <string>

namespace seprank::algebra_detail {

std::vector<std::vector<int>> monomials_upto(long n, long D) {
    std::vector<std::vector<int>> out;
    std::vector<int> a(static_cast<std::size_t>(n), 0);
    const auto rec = [&](auto&& self, long i, long left) -> void {
        if (i == n) {
            out.push_back(a);
            return;
        }
        for (long e = 0; e <= left; ++e) {
            a[static_cast<std::size_t>(i)] = static_cast<int>(e);
            self(self, i + 1, left - e);
        }
        a[static_cast<std::size_t>(i)] = 0;
    };
    rec(rec, 0, D);
    std::stable_sort(out.begin(), out.end(), [](const std::vector<int>& x, const std::vector<int>& y) {
        long dx = 0, dy = 0;
        for (int e : x) dx += e;
        for (int e : y) dy += e;
        return dx < dy;
    });
    return out;
}

std::vector<std::uint64_t> monomial_values(const std::vector<std::vector<int>>& mons, const std::vector<std::uint64_t>& t, std::uint64_t p) {
    nmod_t mod;
    nmod_init(&mod, p);
    std::vector<std::uint64_t> v(mons.size());
    for (std::size_t e = 0; e < mons.size(); ++e) {
        std::uint64_t x = 1;
        for (std::size_t i = 0; i < t.size(); ++i) x = nmod_mul(x, n_powmod2_ui_preinv(t[i], static_cast<std::uint64_t>(mons[e][i]), mod.n, mod.ninv), mod);
        v[e] = x;
    }
    return v;
}

namespace {

Interpolated by_solve(const std::vector<std::vector<int>>& mons, long n, long J, std::uint64_t p, const NodeValues& values, Rng& rng) {
    // The reference: one node at a time, on one thread.
    const long N = static_cast<long>(mons.size());
    NmodMat V(N, N, p), Y(N, J, p);
    std::vector<std::uint64_t> t(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(J));
    for (long k = 0; k < N; ++k) {
        for (auto& x : t) x = rng.below(p);
        const std::vector<std::uint64_t> row = monomial_values(mons, t, p);
        for (long e = 0; e < N; ++e) nmod_mat_entry(V.get(), k, e) = row[static_cast<std::size_t>(e)];
        values(t, y);
        for (long j = 0; j < J; ++j) nmod_mat_entry(Y.get(), k, j) = y[static_cast<std::size_t>(j)];
    }
    Interpolated out;
    out.C = NmodMat(N, J, p);
    out.ok = nmod_mat_solve(out.C.get(), V.get(), Y.get()) != 0;
    return out;
}

Interpolated by_newton(const std::vector<std::vector<int>>& mons, long n, long D, long J, std::uint64_t p, nmod_t mod, const NodeValues& values, Rng& rng, int threads) {
    const long N = static_cast<long>(mons.size());
    // D + 1 distinct abscissas s_0..s_D (one set for every unknown): node α = (s_{α_1}, …).
    std::vector<std::uint64_t> s;
    while (static_cast<long>(s.size()) <= D) {
        const std::uint64_t x = rng.below(p);
        if (std::find(s.begin(), s.end(), x) == s.end()) s.push_back(x);
    }
    // inv[k][l] = 1 / (s_k − s_{k−l}), 1 <= l <= k.
    std::vector<std::vector<std::uint64_t>> inv(static_cast<std::size_t>(D + 1));
    for (long k = 0; k <= D; ++k) {
        inv[static_cast<std::size_t>(k)].assign(static_cast<std::size_t>(k + 1), 0);
        for (long l = 1; l <= k; ++l) inv[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)] = nmod_inv(nmod_sub(s[static_cast<std::size_t>(k)], s[static_cast<std::size_t>(k - l)], mod), mod);
    }
    std::map<std::vector<int>, long> index;
    for (long e = 0; e < N; ++e) index.emplace(mons[static_cast<std::size_t>(e)], e);
    // c: N rows of J values, then divided differences, then monomial coefficients. The
    // nodes are shared out between the threads, then the columns.
    std::vector<std::uint64_t> c(static_cast<std::size_t>(N * J));
    const int nt = static_cast<int>(std::max<long>(1, std::min<long>(threads, N)));
    detail::run_parallel(nt, [&](int tid) {
        std::vector<std::uint64_t> t(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(J));
        for (long e = tid; e < N; e += nt) {
            for (long i = 0; i < n; ++i) t[static_cast<std::size_t>(i)] = s[static_cast<std::size_t>(mons[static_cast<std::size_t>(e)][static_cast<std::size_t>(i)])];
            values(t, y);
            std::copy(y.begin(), y.end(), c.begin() + e * J);
        }
    });
    // The lines along unknown i: the rows α, α + e_i, …, α + (D − |α|)·e_i from each α with
    // α_i = 0 (the grid is a lower set: every such line lies in it).
    std::vector<std::vector<std::vector<long>>> lines(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i)
        for (long e = 0; e < N; ++e) {
            const std::vector<int>& a = mons[static_cast<std::size_t>(e)];
            if (a[static_cast<std::size_t>(i)] != 0) continue;
            long rest = 0;
            for (int x : a) rest += x;
            std::vector<long> line;
            std::vector<int> b = a;
            for (long k = 0; k <= D - rest; ++k) {
                b[static_cast<std::size_t>(i)] = static_cast<int>(k);
                line.push_back(index.at(b));
            }
            lines[static_cast<std::size_t>(i)].push_back(std::move(line));
        }
    const long ct = std::max<long>(1, std::min<long>(threads, J));
    detail::run_parallel(static_cast<int>(ct), [&](int tid) {
        const long j0 = J * tid / ct, j1 = J * (tid + 1) / ct, w = j1 - j0;
        const auto row = [&](long e) { return c.data() + e * J + j0; };
        // Divided differences along each unknown: v_k ← (v_k − v_{k−1}) / (s_k − s_{k−l}) for
        // level l = 1..L−1, k from the top down. After every unknown, row α holds the
        // coefficient of the Newton product Π_i Π_{j < α_i} (t_i − s_j).
        for (long i = 0; i < n; ++i)
            for (const std::vector<long>& line : lines[static_cast<std::size_t>(i)]) {
                const long L = static_cast<long>(line.size());
                for (long l = 1; l < L; ++l)
                    for (long k = L - 1; k >= l; --k) {
                        std::uint64_t* vk = row(line[static_cast<std::size_t>(k)]);
                        const std::uint64_t* vp = row(line[static_cast<std::size_t>(k - 1)]);
                        const std::uint64_t q = inv[static_cast<std::size_t>(k)][static_cast<std::size_t>(l)];
                        for (long j = 0; j < w; ++j) vk[j] = nmod_mul(nmod_sub(vk[j], vp[j], mod), q, mod);
                    }
            }
        // Newton to monomial coefficients along each unknown (the basis is a product, so one
        // unknown at a time): Horner's rule on a line, P ← P·(t − s_k) + v_k for k = L−2..0,
        // P starting at v_{L−1}; P[d] then goes to row α + d·e_i.
        std::vector<std::uint64_t> P, Q;
        for (long i = 0; i < n; ++i)
            for (const std::vector<long>& line : lines[static_cast<std::size_t>(i)]) {
                const long L = static_cast<long>(line.size());
                P.assign(static_cast<std::size_t>(L * w), 0);
                Q.assign(static_cast<std::size_t>(L * w), 0);
                std::copy(row(line[static_cast<std::size_t>(L - 1)]), row(line[static_cast<std::size_t>(L - 1)]) + w, P.begin());
                for (long k = L - 2; k >= 0; --k) {
                    const long deg = L - 2 - k;  // P's degree before this step
                    const std::uint64_t sk = s[static_cast<std::size_t>(k)];
                    const std::uint64_t* vk = row(line[static_cast<std::size_t>(k)]);
                    for (long d = 0; d <= deg + 1; ++d)
                        for (long j = 0; j < w; ++j) {
                            const std::uint64_t below = d >= 1 ? P[static_cast<std::size_t>((d - 1) * w + j)] : 0;
                            const std::uint64_t here = d <= deg ? P[static_cast<std::size_t>(d * w + j)] : 0;
                            std::uint64_t x = nmod_sub(below, nmod_mul(sk, here, mod), mod);
                            if (d == 0) x = nmod_add(x, vk[j], mod);
                            Q[static_cast<std::size_t>(d * w + j)] = x;
                        }
                    std::swap(P, Q);
                }
                for (long d = 0; d < L; ++d) std::copy(P.begin() + d * w, P.begin() + (d + 1) * w, row(line[static_cast<std::size_t>(d)]));
            }
    });
    Interpolated out;
    out.C = NmodMat(N, J, p);
    for (long e = 0; e < N; ++e)
        for (long j = 0; j < J; ++j) nmod_mat_entry(out.C.get(), e, j) = c[static_cast<std::size_t>(e * J + j)];
    out.ok = true;
    return out;
}

}  // namespace

Interpolated interpolate_total_degree(long n, long D, long J, std::uint64_t p, const NodeValues& values, Rng& rng, InterpolationVariant variant, int threads) {
    if (n < 1) throw invalid_input("interpolation: " + std::to_string(n) + " unknowns");
    if (D < 0) throw invalid_input("interpolation: degree " + std::to_string(D) + " is negative");
    if (J < 0) throw invalid_input("interpolation: " + std::to_string(J) + " polynomials");
    check_threads(threads, "interpolation: threads");
    require_prime(p);
    if (static_cast<std::uint64_t>(D) + 1 > p)
        throw invalid_input("interpolation: modulus " + std::to_string(p) + " has fewer than D + 1 = " + std::to_string(D + 1) + " residues");
    nmod_t mod;
    nmod_init(&mod, p);
    const std::vector<std::vector<int>> mons = monomials_upto(n, D);
    Interpolated out = variant == InterpolationVariant::reference ? by_solve(mons, n, J, p, values, rng) : by_newton(mons, n, D, J, p, mod, values, rng, threads);
    out.mons = mons;
    return out;
}

}  // namespace seprank::algebra_detail
