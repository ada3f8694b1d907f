// rank_modular_fflas: the dense rank mod a small prime through FFLAS-FFPACK (BLAS-backed
// PLUQ over Givaro::Modular<double>). Built in its own library target with
// -O3 -march=native -DNDEBUG (src/meson.build): FFLAS is only fast with them. Without
// FFLAS-FFPACK (meson option fflas=disabled, or the package missing) the same function
// ranks with FLINT's nmod_mat_rank, and fflas_available() says so.
#include "seprank/rank.hpp"

#include "seprank/error.hpp"
#include "seprank/prime.hpp"

#include <flint/nmod_mat.h>

#include <string>

#ifdef SEPRANK_HAVE_FFLAS
#include <fflas-ffpack/ffpack/ffpack.h>
#include <givaro/modular.h>

#include <vector>
#endif

namespace seprank {

bool fflas_available() noexcept {
#ifdef SEPRANK_HAVE_FFLAS
    return true;
#else
    return false;
#endif
}

long rank_modular_fflas(const NmodMat& a) {
    const std::uint64_t p = a.modulus();
    if (p >= fflas_max_prime)
        throw invalid_input("rank_modular_fflas: modulus p = " + std::to_string(p) + " must be below 2^26 (" +
                            std::to_string(fflas_max_prime) + ")");
    require_prime(p);
    const long m = a.rows(), n = a.cols();
    if (m == 0 || n == 0) return 0;
#ifdef SEPRANK_HAVE_FFLAS
    const Givaro::Modular<double> field(static_cast<double>(p));
    std::vector<double> d(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j)
            d[static_cast<std::size_t>(i * n + j)] = static_cast<double>(nmod_mat_entry(a.get(), i, j));
    return static_cast<long>(FFPACK::Rank(field, static_cast<std::size_t>(m), static_cast<std::size_t>(n), d.data(), static_cast<std::size_t>(n)));
#else
    NmodMat copy = a;
    return nmod_mat_rank(copy.get());
#endif
}

}  // namespace seprank
