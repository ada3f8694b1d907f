// rank_modular_fflas: the dense rank mod a small prime through FFLAS-FFPACK (BLAS-backed
// PLUQ over Givaro::Modular<double>). Built in its own library target with -O3 -DNDEBUG
// for the baseline x86-64 (src/meson.build): FFLAS is only fast with them. Without
// FFLAS-FFPACK (meson option fflas=disabled, or the package missing) the same function
// ranks with FLINT's nmod_mat_rank, and fflas_available() says so.
//
// On x86-64 the file is compiled a second time with -march=x86-64-v3 and
// -DSEPRANK_FFLAS_V3_COPY: then it defines only the kernel entry SEPRANK_FFLAS_V3_ENTRY
// (extern "C"), and src/meson.build makes every other symbol of that object local (the
// FFLAS, Givaro and std templates it instantiates), so that no AVX2 copy of a shared
// template can replace the baseline one. rank_modular_fflas enters it after checking the
// processor (tests/simd_symbols_test.py and tests/baseline_isa_test.py check the objects).
#ifdef SEPRANK_HAVE_FFLAS
#include <fflas-ffpack/ffpack/ffpack.h>
#include <givaro/modular.h>
#endif

#include <cstddef>
#include <cstdint>

#ifdef SEPRANK_HAVE_FFLAS
namespace {

// Rank of the m x n row-major matrix d (residues in [0, p), as doubles) mod the prime
// p < 2^26; d is overwritten. Compiled once per copy.
long fflas_rank_doubles(std::uint64_t p, long m, long n, double* d) {
    const Givaro::Modular<double> field(static_cast<double>(p));
    return static_cast<long>(FFPACK::Rank(field, static_cast<std::size_t>(m), static_cast<std::size_t>(n), d, static_cast<std::size_t>(n)));
}

}  // namespace
#endif

#ifdef SEPRANK_FFLAS_V3_COPY

extern "C" long SEPRANK_FFLAS_V3_ENTRY(std::uint64_t p, long m, long n, double* d) { return fflas_rank_doubles(p, m, n, d); }

#else  // the baseline copy: checks, dispatch, the FLINT mode

#include "seprank/rank.hpp"

#include "seprank/error.hpp"
#include "seprank/prime.hpp"

#include <flint/nmod_mat.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef SEPRANK_HAVE_FFLAS_V3
extern "C" long SEPRANK_FFLAS_V3_ENTRY(std::uint64_t p, long m, long n, double* d);
#endif

namespace seprank {

namespace {

// Whether the processor runs x86-64-v3 code (AVX, AVX2, FMA, BMI1/2, LZCNT, MOVBE, F16C;
// libgcc's check includes the OS's support for the ymm state). Asked once.
bool v3_processor() noexcept {
#ifdef SEPRANK_HAVE_FFLAS_V3
    static const bool cpu = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v3") != 0;
    }();
    return cpu;
#else
    return false;
#endif
}

}  // namespace

bool fflas_available() noexcept {
#ifdef SEPRANK_HAVE_FFLAS
    return true;
#else
    return false;
#endif
}

bool fflas_v3_available() noexcept {
    const char* env = std::getenv("SEPRANK_SIMD");  // read each time: a test may switch it
    return v3_processor() && !(env != nullptr && std::strcmp(env, "0") == 0);
}

const char* fflas_copy_name() noexcept {
    if (!fflas_available()) return "flint";
    return fflas_v3_available() ? "x86-64-v3" : "baseline";
}

long rank_modular_fflas(const NmodMat& a) { return rank_modular_fflas(a, FflasCopy::automatic); }

long rank_modular_fflas(const NmodMat& a, FflasCopy copy) {
    const std::uint64_t p = a.modulus();
    if (p >= fflas_max_prime)
        throw invalid_input("rank_modular_fflas: modulus p = " + std::to_string(p) + " must be below 2^26 (" +
                            std::to_string(fflas_max_prime) + ")");
    require_prime(p);
    if (copy == FflasCopy::x86_64_v3 && !fflas_v3_available())
        throw invalid_input(std::string("rank_modular_fflas: the x86-64-v3 copy cannot run here (") +
                            (!fflas_available()          ? "built without FFLAS-FFPACK"
                             : !v3_processor()           ? "not built, or the processor lacks AVX2/FMA"
                                                         : "SEPRANK_SIMD=0") +
                            ")");
    const long m = a.rows(), n = a.cols();
    if (m == 0 || n == 0) return 0;
#ifdef SEPRANK_HAVE_FFLAS
    std::vector<double> d(static_cast<std::size_t>(m) * static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i)
        for (long j = 0; j < n; ++j)
            d[static_cast<std::size_t>(i * n + j)] = static_cast<double>(nmod_mat_entry(a.get(), i, j));
#ifdef SEPRANK_HAVE_FFLAS_V3
    if (copy == FflasCopy::x86_64_v3 || (copy == FflasCopy::automatic && fflas_v3_available()))
        return SEPRANK_FFLAS_V3_ENTRY(p, m, n, d.data());
#endif
    return fflas_rank_doubles(p, m, n, d.data());
#else
    (void)copy;
    NmodMat c = a;
    return nmod_mat_rank(c.get());
#endif
}

}  // namespace seprank

#endif  // SEPRANK_FFLAS_V3_COPY
