#include "seprank/examples.hpp"

#include "seprank/error.hpp"
#include "base/saturating.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace seprank {

QPoly determinant_polynomial(long n) {
    if (n < 1 || n > 8) throw invalid_input("determinant size n = " + std::to_string(n) + " outside 1..8");
    auto ctx = QContext::make(Variables::tokens(n, n));
    const auto nvars = static_cast<std::size_t>(n * n);
    std::vector<long> perm(static_cast<std::size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<Rational> coeffs;
    std::vector<std::vector<std::uint64_t>> exps;
    do {
        long inversions = 0;
        for (long i = 0; i < n; ++i)
            for (long j = i + 1; j < n; ++j) inversions += perm[static_cast<std::size_t>(i)] > perm[static_cast<std::size_t>(j)];
        coeffs.emplace_back(inversions % 2 ? -1 : 1);
        std::vector<std::uint64_t> e(nvars, 0);
        for (long i = 0; i < n; ++i) e[static_cast<std::size_t>(i * n + perm[static_cast<std::size_t>(i)])] = 1;
        exps.push_back(std::move(e));
    } while (std::next_permutation(perm.begin(), perm.end()));
    return QPoly::from_terms(ctx, coeffs, exps);
}

long binomial(long n, long k) {
    if (k < 0 || n < k || n > 60) throw invalid_input("binomial(" + std::to_string(n) + ", " + std::to_string(k) + ") outside its range");
    return detail::binomial_saturated(n, k);
}

}  // namespace seprank
