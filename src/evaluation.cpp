#include "seprank/evaluation.hpp"

#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/matrix.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

namespace seprank {

EvaluationResult evaluation_rank(const Network& net, const Partition& part, const EvaluationOptions& opt) {
    const NetworkSpec& s = net.spec;
    validate(part, s.tokens);
    if (!(opt.growth > 1.0)) throw invalid_input("evaluation: growth " + std::to_string(opt.growth) + " must exceed 1");
    if (opt.start < 1 || opt.max_side < opt.start)
        throw invalid_input("evaluation: start " + std::to_string(opt.start) + " and max side " + std::to_string(opt.max_side) +
                            " must satisfy 1 <= start <= max side");
    Rng rng(opt.seed);
    const std::uint64_t p = opt.prime != 0 ? opt.prime : random_prime(rng, 62);
    const ModEvaluator f(net, p);
    const long per = input_vars_per_token(s);
    // Random points: one vector of |side|·per residues per row (A) or column (B).
    std::vector<std::vector<std::uint64_t>> ra, rb;
    auto extend = [&](std::vector<std::vector<std::uint64_t>>& pts, std::size_t count, std::size_t ntok) {
        while (pts.size() < count) {
            std::vector<std::uint64_t> v(ntok * static_cast<std::size_t>(per));
            for (auto& x : v) x = rng.below(p);
            pts.push_back(std::move(v));
        }
    };
    auto entry = [&](std::size_t r, std::size_t c, Point<std::uint64_t>& x) {
        for (std::size_t k = 0; k < part.A.size(); ++k)
            std::copy_n(ra[r].begin() + static_cast<long>(k) * per, per, x[static_cast<std::size_t>(part.A[k] - 1)].begin());
        for (std::size_t k = 0; k < part.B.size(); ++k)
            std::copy_n(rb[c].begin() + static_cast<long>(k) * per, per, x[static_cast<std::size_t>(part.B[k] - 1)].begin());
        return f(x);
    };
    EvaluationResult res;
    res.prime = p;
    const double D = fmpz_get_d(output_degree(s).get());
    double bound = 0;
    NmodMat e(0, 0, p);
    long old = 0;
    auto next_side = [&](long k) {
        const long grown = (static_cast<long>(std::ceil(static_cast<double>(k) * opt.growth)) + 7) / 8 * 8;
        return std::min(std::max(grown, k + 1), opt.max_side);
    };
    for (long k = opt.start;; k = next_side(k)) {
        extend(ra, static_cast<std::size_t>(k), part.A.size());
        extend(rb, static_cast<std::size_t>(k), part.B.size());
        NmodMat next(k, k, p);
        for (long i = 0; i < old; ++i)
            for (long j = 0; j < old; ++j) nmod_mat_entry(next.get(), i, j) = nmod_mat_entry(e.get(), i, j);
        // New entries: rows >= old (all columns) and columns >= old (old rows), split over threads by row.
        const int nt = std::max(1, opt.threads);
        auto work = [&](int tid) {
            Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(static_cast<std::size_t>(per)));
            for (long i = tid; i < k; i += nt)
                for (long j = i < old ? old : 0; j < k; ++j)
                    nmod_mat_entry(next.get(), i, j) = entry(static_cast<std::size_t>(i), static_cast<std::size_t>(j), x);
        };
        std::vector<std::thread> pool;
        for (int t = 1; t < nt; ++t) pool.emplace_back(work, t);
        work(0);
        for (auto& t : pool) t.join();
        res.evaluations += k * k - old * old;
        e = std::move(next);
        old = k;
        const long r = rank_modular(e);
        bound += static_cast<double>(std::min(r + 1, k)) * D / static_cast<double>(p);
        res.rank = r;
        res.side = k;
        if (r < k) {
            res.converged = true;
            break;
        }
        if (k == opt.max_side) break;
    }
    res.failure_bound = res.converged ? std::min(1.0, bound) : 1.0;
    return res;
}

}  // namespace seprank
