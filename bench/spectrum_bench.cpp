// Spectrum benchmark: the fast (Eigen BDCSVD, double) and certified (Arb balls + Weyl/
// Ostrowski) paths on one n×n orthogonal flattening with random integer entries in
// [-R, R] of rank r (a product of n×r and r×n) and random weights 1/(2j+1), as the
// uniform measure gives. Prints one JSON line. Usage: bench_spectrum n r [R] [precision]
#include "seprank/random.hpp"
#include "seprank/spectrum.hpp"
#include "../src/base/process.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <flint/fmpz_mat.h>

using namespace seprank;

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_spectrum n r [range] [precision]\n");
        return 2;
    }
    const long n = std::atol(argv[1]), r = std::atol(argv[2]);
    const long range = argc > 3 ? std::atol(argv[3]) : 9;
    const long prec = argc > 4 ? std::atol(argv[4]) : 53;
    Rng rng(1);
    ZMat a(n, r), b(r, n), k(n, n);
    for (long i = 0; i < n; ++i)
        for (long j = 0; j < r; ++j) {
            a.set(i, j, Integer(rng.range(-range, range)));
            b.set(j, i, Integer(rng.range(-range, range)));
        }
    fmpz_mat_mul(k.get(), a.get(), b.get());
    OrthoFlattening of;
    of.K = QMat(n, n);
    fmpq_mat_set_fmpz_mat(of.K.get(), k.get());
    for (long i = 0; i < n; ++i) {
        of.weight_a.emplace_back(Integer(1), Integer(2 * (i % 7) + 1));
        of.weight_b.emplace_back(Integer(1), Integer(2 * (i % 5) + 1));
    }
    auto t0 = std::chrono::steady_clock::now();
    const auto fast = spectrum_fast(of, prec);
    auto t1 = std::chrono::steady_clock::now();
    const auto cert = spectrum_certified(of, prec);
    auto t2 = std::chrono::steady_clock::now();
    double worst = 0;  // largest relative half-width of the top r enclosures of σ²
    for (long i = 0; i < r && i < n; ++i) worst = std::max(worst, (cert.hi[static_cast<std::size_t>(i)] - cert.lo[static_cast<std::size_t>(i)]) / (2 * cert.hi[0]));
    const double fs = std::chrono::duration<double>(t1 - t0).count(), cs = std::chrono::duration<double>(t2 - t1).count();
    std::printf("{\"n\": %ld, \"r\": %ld, \"precision\": %ld, \"fast_s\": %.3f, \"certified_s\": %.3f, \"ratio\": %.2f, \"rel_halfwidth\": %.3g, \"peak_mib\": %.0f, \"sigma1\": %.6g}\n",
                n, r, prec, fs, cs, cs / fs, worst, peak_rss_mib(), fast.empty() ? 0.0 : fast[0]);
    return 0;
}
