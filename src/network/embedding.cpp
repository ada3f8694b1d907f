#include "seprank/embedding.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <flint/fmpq_mat.h>
#include <limits>

namespace seprank {

bool theorem73_lower_applies(long depth, long dim, long heads, long embed_rank) {
    if (dim < 1 || heads < 1 || depth < 0 || embed_rank < 1)
        throw invalid_input("Theorem 7.3 needs dx >= 1, H >= 1, L >= 0, r >= 1 (got dx = " + std::to_string(dim) +
                            ", H = " + std::to_string(heads) + ", L = " + std::to_string(depth) + ", r = " +
                            std::to_string(embed_rank) + ")");
    // L > log3 dx  <=>  3^L > dx (both sides exact; stop multiplying once past dx)
    long p = 1;
    bool above = p > dim;
    for (long l = 0; l < depth && !above; ++l) {
        above = p > dim / 3;  // 3p > dim, tested without overflow
        p *= above ? 1 : 3;
        above = above || p > dim;
    }
    return above && heads < embed_rank;
}

Theorem73Scales theorem73_scales(const NetworkSpec& given) {
    const NetworkSpec spec = family_form(given);  // a one-kind attention stack is attention
    Theorem73Scales t;
    if (!family_info(spec.family).levine_theorems || spec.residual || spec.embed_rank < 1) return t;
    t.applies = true;
    t.m = std::min(spec.embed_rank, spec.dim);
    t.s_up = spec.depth * t.m;
    t.lower_applies = theorem73_lower_applies(spec.depth, spec.dim, spec.heads, spec.embed_rank);
    t.s_low = spec.depth * (t.m - spec.heads);
    return t;
}

double theorem73_ratio(long rank, long scale) {
    if (rank < 1 || scale <= 0) return std::numeric_limits<double>::quiet_NaN();
    return std::log(static_cast<double>(rank)) / std::log(3.0) / static_cast<double>(scale);
}

Integer embedding_cap(const ValidSpec& valid, const ValidPartition& part) {
    const NetworkSpec& spec = valid.get();
    part.check_tokens(spec.tokens);
    const long m = spec.embed_rank > 0 ? std::min(spec.embed_rank, spec.dim) : spec.dim;
    const Integer D = output_degree(spec);
    Integer best;
    bool first = true;
    for (const long side : {static_cast<long>(part->A.size()), static_cast<long>(part->B.size())}) {
        // C(k + D, k) = prod_{i=1..k} (D + i) / i, each partial product an integer; its
        // size is bounded first (GMP aborts the process when an allocation fails).
        const long k = side * m;
        const double d_bits = static_cast<double>(fmpz_bits(D.get()));
        const double small = d_bits < 53 ? std::min(static_cast<double>(k), fmpz_get_d(D.get())) : static_cast<double>(k);
        check_exact_bits(binomial_bits(std::max(d_bits, std::log2(static_cast<double>(k) + 1.0)) + 1.0, small),
                         "embedding cap C(" + std::to_string(k) + " + D, D) with D of " + std::to_string(static_cast<long>(d_bits)) + " bits");
        Integer c(1);
        for (long i = 1; i <= k; ++i) {
            c = c * (D + Integer(i));
            fmpz_divexact_ui(c.get(), c.get(), static_cast<ulong>(i));
        }
        if (first || c < best) best = c;
        first = false;
    }
    return best;
}

std::string theorem73_flag(long rank, const ValidSpec& spec, const ValidPartition& part) {
    return Integer(rank) > embedding_cap(spec, part) ? "above-cap" : "";
}

Network without_embedding(const Network& net) {
    Network out = net;
    out.spec.embed_rank = 0;
    out.weights.embedding = Dense<Rational>();
    return out;
}

Network with_embedding(const Network& net, const Dense<Rational>& M) {
    if (M.rows != net.spec.dim || M.cols < 1 || M.cols > 64)
        throw invalid_input("embedding: shape " + std::to_string(M.rows) + "x" + std::to_string(M.cols) + ", expected " +
                            std::to_string(net.spec.dim) + " rows and 1..64 columns");
    if (static_cast<long>(M.a.size()) != M.rows * M.cols)
        throw invalid_input("embedding: " + std::to_string(M.a.size()) + " entries for its shape " + std::to_string(M.rows) + "x" +
                            std::to_string(M.cols));
    Network out = net;
    out.spec.embed_rank = M.cols;
    out.weights.embedding = M;
    return out;
}

long embedding_matrix_rank(const Dense<Rational>& M) {
    if (M.rows < 0 || M.cols < 0 || static_cast<double>(M.a.size()) != static_cast<double>(M.rows) * static_cast<double>(M.cols))
        throw invalid_input("embedding_matrix_rank: shape " + std::to_string(M.rows) + "x" + std::to_string(M.cols) + " with " +
                            std::to_string(M.a.size()) + " entries");
    // The size of the elimination, bounded before FLINT is called (FLINT and GMP abort the
    // process when an allocation fails). A row over its common denominator has integer
    // entries of at most b = num_bits + cols·den_bits bits; every number of a fraction-free
    // or rational elimination is a minor of order <= r = min(rows, cols), or a quotient of
    // two: by Hadamard's bound at most 2·r·(b + log2(r)/2 + 1) bits for a numerator and a
    // denominator together. rows·cols such entries in the working copy and the result,
    // beside the input: check_exact_bits (limits.hpp) with 2·rows·cols copies.
    const long r = std::min(M.rows, M.cols);
    if (r > 0) {
        double num_bits = 0, den_bits = 0;
        for (const Rational& x : M.a) {
            num_bits = std::max(num_bits, static_cast<double>(fmpz_bits(fmpq_numref(x.get()))));
            den_bits = std::max(den_bits, static_cast<double>(fmpz_bits(fmpq_denref(x.get()))));
        }
        const double rd = static_cast<double>(r), b = num_bits + static_cast<double>(M.cols) * den_bits;
        const double bits = 2.0 * rd * (b + 0.5 * std::log2(rd) + 1.0);
        check_exact_bits(bits,
                         "embedding_matrix_rank: rref of a " + std::to_string(M.rows) + "x" + std::to_string(M.cols) +
                             " matrix with numerators of up to " + std::to_string(static_cast<long>(num_bits)) +
                             " bits and denominators of up to " + std::to_string(static_cast<long>(den_bits)) + " bits",
                         2.0 * static_cast<double>(M.rows) * static_cast<double>(M.cols));
    }
    QMat q(M.rows, M.cols);
    for (long i = 0; i < M.rows; ++i)
        for (long j = 0; j < M.cols; ++j) q.set(i, j, M(i, j));
    QMat reduced(M.rows, M.cols);
    return static_cast<long>(fmpq_mat_rref(reduced.get(), q.get()));
}

bool non_decreasing(const std::vector<long>& values) { return std::is_sorted(values.begin(), values.end()); }

bool all_equal(const std::vector<long>& values) {
    return std::adjacent_find(values.begin(), values.end(), std::not_equal_to<long>()) == values.end();
}

}  // namespace seprank
