#include "seprank/generic.hpp"

#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/expand.hpp"
#include "seprank/flatten.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <algorithm>
#include <cmath>

namespace seprank {

GenericResult generic_rank(const NetworkSpec& spec, const Partition& part, const GenericOptions& opt) {
    validate(spec);
    validate(part, spec.tokens);
    if (opt.trials < 1) throw invalid_input("trials T = " + std::to_string(opt.trials) + " must be at least 1");
    Rng rng(opt.seed);
    GenericResult res;
    res.prime = random_prime(rng, 62);
    const std::uint64_t p = res.prime;
    res.weight_degree = weight_degree(spec);
    bool flat = opt.method == GenericMethod::flattening;
    if (opt.method == GenericMethod::automatic) flat = estimate_expansion(spec).bytes <= opt.max_expand_bytes;
    res.method = flat ? "flattening" : "evaluation";
    res.bound_degree = flat ? res.weight_degree : res.weight_degree + output_degree(spec);
    if (opt.weight_range < 0) throw invalid_input("weight range " + std::to_string(opt.weight_range) + " is negative");
    const long half = opt.weight_range > 0 ? opt.weight_range : static_cast<long>((p - 1) / 2);
    const double set_size = 2.0 * static_cast<double>(half) + 1.0;  // = p for the default
    for (long t = 0; t < opt.trials; ++t) {
        const std::uint64_t wseed = rng.next();
        const Network net = random_network(spec, wseed, half);  // uniform on Z/p
        long r = 0;
        if (flat) {
            const NmodPoly f = expand_mod(net, p, ExpandOptions{opt.max_expand_bytes * 16});
            const SparseNmodMat c = flatten(f, part, spec.tokens);
            r = rank_sparse_modular(c);
            res.rows = c.rows;
            res.cols = c.cols;
            res.terms = static_cast<long>(f.terms());
        } else {
            EvaluationOptions eo;
            eo.seed = rng.next();
            eo.prime = p;
            eo.max_side = opt.max_side;
            eo.threads = opt.threads;
            eo.variant = opt.variant;
            const EvaluationResult e = evaluation_rank(net, part, eo);
            r = e.rank;
            res.rows = res.cols = e.side;
            res.converged = res.converged && e.converged;
            res.variant = e.variant;
        }
        res.trial_ranks.push_back(r);
    }
    res.rank = *std::max_element(res.trial_ranks.begin(), res.trial_ranks.end());
    for (long r : res.trial_ranks) res.degenerate_trials += r < res.rank;
    const double m = static_cast<double>(std::min(res.rows, res.cols));
    const double per = m * fmpz_get_d(res.bound_degree.get()) / set_size;
    res.failure_bound = res.converged ? std::min(1.0, std::pow(std::min(1.0, per), static_cast<double>(opt.trials))) : 1.0;
    res.set_size = opt.weight_range > 0 ? 2 * static_cast<std::uint64_t>(half) + 1 : p;
    res.note = (opt.weight_range > 0 ? "weights uniform on [-" + std::to_string(half) + ", " + std::to_string(half) + "], ranked mod p = " + std::to_string(p)
                                     : "weights uniform on Z/p, p = " + std::to_string(p) + " (random 62-bit prime)") +
               "; failure_bound = (m*D/|S|)^T with m = " +
               std::to_string(static_cast<long>(m)) + ", D = " + res.bound_degree.str() + ", T = " + std::to_string(opt.trials) +
               "; assumes the certifying minor is not identically 0 mod p (negligible for a random 62-bit p)";
    if (res.degenerate_trials > 0)
        res.note += "; " + std::to_string(res.degenerate_trials) + " degenerate draw(s) below the maximum";
    if (res.variant == "graded")
        res.note += "; graded evaluation: one block per degree a in the A-variables, sep = sum of block ranks";
    if (!res.converged) res.note += "; evaluation matrix still full rank at --max-side: lower bound only";
    return res;
}

}  // namespace seprank
