// Rank benchmark (issue 4): a dense n×n integer matrix with entries of `bits` bits,
// full rank or of constructed rank r (A·B with inner dimension r). Times, side by side
// in one process: FLINT nmod_mat_rank mod a 62-bit prime (the physical floor),
// seprank::rank_certified (certified over Q), and FLINT fmpz_mat_rank (exact, when
// n <= fmpz_limit). Prints one JSON line.
// Usage: bench_rank n bits [r] [fmpz_limit]
//        bench_rank --write n bits r FILE     the same matrix as a Matrix Market file (for the peers)
//        bench_rank --mtx FILE [fmpz_limit]   time the three on a Matrix Market file
#include "seprank/matrix_io.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <flint/flint.h>

using namespace seprank;

namespace {
template <class F>
double timed(F f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Dense n×n with `bits`-bit entries: full rank (r = n) or A·B with inner dimension r.
ZMat make_matrix(long n, unsigned bits, long r) {
    Rng rng(2026);
    ZMat a(n, n);
    if (r == n) {
        for (long i = 0; i < n; ++i)
            for (long j = 0; j < n; ++j) fmpz_set(fmpz_mat_entry(a.get(), i, j), rng.big(bits).get());
    } else {
        ZMat x(n, r), y(r, n);
        for (long i = 0; i < n; ++i)
            for (long k = 0; k < r; ++k) fmpz_set(fmpz_mat_entry(x.get(), i, k), rng.big(bits).get());
        for (long k = 0; k < r; ++k)
            for (long j = 0; j < n; ++j) fmpz_set(fmpz_mat_entry(y.get(), k, j), rng.big(bits).get());
        fmpz_mat_mul(a.get(), x.get(), y.get());
    }
    return a;
}

int usage() {
    std::fprintf(stderr, "usage: bench_rank n bits [r] [fmpz_limit] | --write n bits r FILE | --mtx FILE [fmpz_limit]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) return usage();
    flint_set_num_threads(2);
    const std::string first = argv[1];
    if (first == "--write") {
        if (argc != 6) return usage();
        write_matrix_market(SparseZMat::from_dense(make_matrix(std::atol(argv[2]), static_cast<unsigned>(std::atoi(argv[3])), std::atol(argv[4]))), argv[5]);
        return 0;
    }
    const bool from_file = first == "--mtx";
    const ZMat a = from_file ? read_matrix_market(argv[2]).to_dense()
                             : make_matrix(std::atol(argv[1]), static_cast<unsigned>(std::atoi(argv[2])), argc > 3 ? std::atol(argv[3]) : std::atol(argv[1]));
    const long n = a.rows();
    const unsigned bits = from_file ? 0 : static_cast<unsigned>(std::atoi(argv[2]));
    const long r = from_file ? -1 : (argc > 3 ? std::atol(argv[3]) : n);
    const long fmpz_limit = from_file ? (argc > 3 ? std::atol(argv[3]) : 600) : (argc > 4 ? std::atol(argv[4]) : 600);
    const std::uint64_t p = kDefaultPrime;
    long rank_p = 0, rank_fmpz = -1;
    RankAnswer cert;
    const double t_nmod = timed([&] {
        NmodMat m = reduce_mod(a, p);
        rank_p = nmod_mat_rank(m.get());
    });
    const double t_cert = timed([&] { cert = rank_certified(a); });
    double t_fmpz = -1;
    if (n <= fmpz_limit) t_fmpz = timed([&] { rank_fmpz = fmpz_mat_rank(a.get()); });
    std::printf("{\"n\": %ld, \"bits\": %u, \"inner\": %ld, \"rank_mod_p\": %ld, \"nmod_mat_rank_s\": %.4f, "
                "\"certified_rank\": %ld, \"certified\": %s, \"certified_s\": %.4f, \"method\": \"%s\", \"primes\": %ld, "
                "\"fmpz_mat_rank\": %ld, \"fmpz_mat_rank_s\": %.4f}\n",
                n, bits, r, rank_p, t_nmod, cert.value, cert.certified() ? "true" : "false", t_cert, cert.variant.c_str(),
                cert.primes_used, rank_fmpz, t_fmpz);
    return cert.value == rank_p ? 0 : 1;
}
