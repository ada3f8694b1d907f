// seprank — black-box rank of a network by evaluation mod p, never expanding f.
//
// E[s,t] = f(a_s, b_t) mod p for random points a_s of the A-side tokens' variables and
// b_t of the B-side's (SPEC.md §4). With V_A, V_B the evaluation matrices of the A- and
// B-monomials, E = V_A·C·V_Bᵀ, so rank E ≤ rank C = sep_(A,B)(f), and for independent
// generic points rank E_k = min(k, sep) for the k×k matrix. We grow k by a factor 1.5
// (reusing every evaluation) until rank E_k < k: then rank E_k = sep unless the points
// were unlucky. Growth 1.5 keeps the last k below 1.5·sep; with doubling the final
// elimination could cost up to 8·sep³, with 1.5 it stays below 3.4·sep³.
//
// Labels: the rank mod p of E is a certified LOWER bound of sep (E mod p is the image
// of an integer matrix with rank ≤ sep). It equals sep except with probability at most
// Σ_steps ρ·D/p (Schwartz–Zippel on a ρ×ρ minor of degree ≤ ρ·D in the point
// coordinates, D = d^L), provided that minor does not vanish identically mod p — a
// random 62-bit prime makes that negligible (the minor's integer content has at most
// log2(content)/61 prime factors of that size).
// Cost: k² forward evaluations (O(L·H·N·dx·da) each) + ranks of k×k dense matrices.
#pragma once

#include "seprank/network.hpp"
#include "seprank/partition.hpp"

#include <cstdint>

namespace seprank {

struct EvaluationOptions {
    std::uint64_t seed = 1;
    std::uint64_t prime = 0;  // 0: a random 62-bit prime from the seed
    long start = 16;          // first k
    long max_side = 4096;     // largest k tried
    double growth = 1.5;      // k grows by this factor (> 1), rounded up to a multiple of 8
    int threads = 2;
};

struct EvaluationResult {
    long rank = 0;
    long side = 0;            // k of the last matrix
    bool converged = false;   // rank < k reached (else rank is only a lower bound)
    std::uint64_t prime = 0;
    long evaluations = 0;
    double failure_bound = 1; // bound on Pr[rank < sep] when converged
};

EvaluationResult evaluation_rank(const Network& net, const Partition& part, const EvaluationOptions& opt = {});

}  // namespace seprank
