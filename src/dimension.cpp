// seprank — functional dimension: the generic rank of the parameter map's Jacobian
// (include/seprank/dimension.hpp, which states the method and the failure bound).
#include "seprank/dimension.hpp"

#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/integer.hpp"
#include "seprank/matrix.hpp"
#include "seprank/prime.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"

#include <flint/ulong_extras.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

namespace seprank {

std::string to_string(DimensionOutput o) { return o == DimensionOutput::scalar ? "scalar" : "all"; }

DimensionOutput dimension_output_from_string(const std::string& s) {
    if (s == "scalar") return DimensionOutput::scalar;
    if (s == "all") return DimensionOutput::all;
    throw invalid_input("output: '" + s + "' is not scalar or all");
}

void check_options(const DimensionOptions& opt) {
    if (opt.trials < 1) throw invalid_input("trials: " + std::to_string(opt.trials) + " is below 1");
    if (opt.prime_bits < 20 || opt.prime_bits > 62)
        throw invalid_input("prime bits: " + std::to_string(opt.prime_bits) + " is outside 20..62");
    if (opt.margin < 0) throw invalid_input("margin: " + std::to_string(opt.margin) + " is negative");
}

long dimension_parameters(const NetworkSpec& s) {
    Network net = random_network(s, 1, 1);
    return static_cast<long>(weight_entries(net.weights).size());
}

RankAnswer function_dimension(const ValidSpec& valid, const DimensionOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    const NetworkSpec& spec = valid.get();
    check_options(opt);
    if (opt.weights) check_shapes(Network{spec, *opt.weights});
    Rng rng(opt.seed);
    RankAnswer res;
    res.quantity = "dimension";
    res.method = "jacobian";
    res.variant = "interpolation";
    res.field = "Z/p";
    res.degree = output_degree(spec).str();
    res.trials = opt.trials;
    res.prime = random_prime(rng, static_cast<unsigned>(opt.prime_bits));
    const std::uint64_t p = res.prime;
    const Integer wdeg = weight_degree(spec);
    const Integer drawn = spec.embed_rank > 0 ? wdeg + output_degree(spec) : wdeg;
    const Integer bdeg = drawn + output_degree(spec);
    res.weight_degree = wdeg.str();
    res.bound_degree = bdeg.str();
    if (wdeg >= Integer(1L << 20)) throw invalid_input("weight degree " + wdeg.str() + " is too large for interpolation");
    const long D = static_cast<long>(fmpz_get_si(wdeg.get()));

    // Derivative at 0 of the degree-<=D interpolant through (t, y_t), t = 0..D:
    // c_t = l_t'(0) mod p, with l_t the Lagrange basis on nodes 0..D.
    std::vector<std::uint64_t> coef(static_cast<std::size_t>(D + 1), 0);
    for (long t = 0; t <= D; ++t) {
        // l_t(x) = prod_{k != t} (x - k)/(t - k); l_t'(0) = sum_{m != t} prod_{k != t, m} (-k) / prod_{k != t}(t - k)
        std::uint64_t den = 1;
        for (long k = 0; k <= D; ++k)
            if (k != t) den = n_mulmod2_preinv(den, Integer(t - k).mod(p), p, n_preinvert_limb(p));
        std::uint64_t num = 0;
        for (long m = 0; m <= D; ++m) {
            if (m == t) continue;
            std::uint64_t prod = 1;
            for (long k = 0; k <= D; ++k)
                if (k != t && k != m) prod = n_mulmod2_preinv(prod, Integer(-k).mod(p), p, n_preinvert_limb(p));
            num = n_addmod(num, prod, p);
        }
        coef[static_cast<std::size_t>(t)] = n_mulmod2_preinv(num, n_invmod(den, p), p, n_preinvert_limb(p));
    }

    const long half = static_cast<long>((p - 1) / 2);
    const long N = spec.tokens;
    const long vars = input_vars_per_token(spec);
    std::vector<std::pair<long, long>> outs;  // (position, coordinate), 1-based
    if (opt.output == DimensionOutput::scalar) outs.push_back({spec.position, spec.coordinate});
    else
        for (long i = 1; i <= N; ++i)
            for (long c = 1; c <= output_dim(spec); ++c) outs.push_back({i, c});

    long best = -1;
    for (long tr = 0; tr < opt.trials; ++tr) {
        Network net = opt.weights ? Network{spec, *opt.weights} : random_network(valid, rng.next(), half);
        std::vector<Rational*> w = weight_entries(net.weights);
        const long P = static_cast<long>(w.size());
        if (P == 0) throw invalid_input("network: it has no parameters");
        const long npts = (P + opt.margin + static_cast<long>(outs.size()) - 1) / static_cast<long>(outs.size());
        std::vector<Point<std::uint64_t>> pts;
        for (long s = 0; s < npts; ++s) {
            Point<std::uint64_t> pt(static_cast<std::size_t>(N), std::vector<std::uint64_t>(static_cast<std::size_t>(vars)));
            for (auto& row : pt)
                for (auto& x : row) x = rng.below(p);
            pts.push_back(std::move(pt));
        }
        const long rows = npts * static_cast<long>(outs.size());
        NmodMat J(rows, P, p);
        for (long j = 0; j < P; ++j) {
            const Rational w0 = *w[static_cast<std::size_t>(j)];
            for (long t = 0; t <= D; ++t) {
                *w[static_cast<std::size_t>(j)] = w0 + Rational(t);
                const std::uint64_t c = coef[static_cast<std::size_t>(t)];
                long r = 0;
                for (const auto& [pos, cor] : outs) {
                    Network v = net;
                    v.spec.position = pos;
                    v.spec.coordinate = cor;
                    ModEvaluator ev(v, p);
                    for (long s = 0; s < npts; ++s, ++r) {
                        const std::uint64_t y = ev(pts[static_cast<std::size_t>(s)]);
                        const std::uint64_t old = J.at(r, j);
                        J.set(r, j, n_addmod(old, n_mulmod2_preinv(c, y, p, n_preinvert_limb(p)), p));
                    }
                }
            }
            *w[static_cast<std::size_t>(j)] = w0;
        }
        const long rk = rank_modular(J);
        res.trial_ranks.push_back(rk);
        best = std::max(best, rk);
        res.rows = rows;
        res.cols = P;
    }
    res.value = best;
    for (long r : res.trial_ranks)
        if (r < best) ++res.degenerate;
    res.kind = RankKind::generic;
    res.set_size = p;
    const double m = static_cast<double>(std::min(res.rows, res.cols));
    const double ratio = m * std::stod(bdeg.str()) / static_cast<double>(p);
    res.failure_bound = std::min(1.0, std::pow(ratio, static_cast<double>(opt.trials)));
    res.note = "parameters " + std::to_string(res.cols) + (opt.weights ? "; local dimension at the given weights" : "");
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

}  // namespace seprank
