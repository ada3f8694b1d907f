// Test helper (test_groebner, test_quotient): random polynomial systems mod p.
#pragma once

#include "algebra/groebner.hpp"

#include <cstdint>
#include <vector>

namespace seprank_test {

// A polynomial in n unknowns with every monomial of degree <= deg, coefficients uniform mod p.
template <class R>
seprank::algebra_detail::ModPoly dense_poly(R& rng, long n, int deg, std::uint64_t p) {
    seprank::algebra_detail::ModPoly f;
    std::vector<int> e(static_cast<std::size_t>(n), 0);
    const auto rec = [&](auto&& self, long i, int left) -> void {
        if (i == n) {
            f.push_back({rng.below(p), e});
            return;
        }
        for (int k = 0; k <= left; ++k) {
            e[static_cast<std::size_t>(i)] = k;
            self(self, i + 1, left - k);
        }
        e[static_cast<std::size_t>(i)] = 0;
    };
    rec(rec, 0, deg);
    return f;
}

}  // namespace seprank_test
