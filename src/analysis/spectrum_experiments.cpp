// seprank — the seed's ε-separation-rank experiments (docs/spectrum.md, "Experiments").
#include "seprank/columns.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/progress.hpp"
#include "seprank/random.hpp"
#include "seprank/spectrum.hpp"

#include <algorithm>
#include <cmath>

namespace seprank {

std::pair<double, double> wilson_interval(long hits, long n) {
    if (n < 1 || hits < 0 || hits > n) throw invalid_input("wilson_interval: need 0 <= hits <= n, n >= 1");
    const double z = 1.959963984540054, p = static_cast<double>(hits) / static_cast<double>(n), nn = static_cast<double>(n);
    const double den = 1 + z * z / nn, centre = (p + z * z / (2 * nn)) / den;
    const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / den;
    // The interval's ends are exactly 0 and 1 at hits = 0 and hits = n (rounding aside).
    return {hits == 0 ? 0.0 : std::max(0.0, centre - half), hits == n ? 1.0 : std::min(1.0, centre + half)};
}

namespace {

// The experiments' progress (progress.hpp, phase "experiment draws"): one unit a draw, to
// the caller's observer; the spectra they compute report nothing (eps_experiment silences them).
struct Draws {
    ProgressObserver outer;
    std::uint64_t total = 0, done = 0;
    void next(const std::string& what) { report_progress(outer, "experiment draws", done++, total, what); }
    void finish() { report_progress(outer, "experiment draws", total, total, "done"); }
};

QPoly random_fd(Rng& rng, long n, long d) {
    auto ctx = QContext::make(Variables::tokens(n, 1));
    std::vector<Rational> c;
    std::vector<std::vector<std::uint64_t>> e;
    for (long l = 0; l < d; ++l) {
        long a = 0;
        while (a == 0) a = rng.range(-5, 5);
        c.emplace_back(a);
        std::vector<std::uint64_t> x(static_cast<std::size_t>(n));
        for (auto& v : x) v = static_cast<std::uint64_t>(rng.range(0, 3));
        e.push_back(x);
    }
    return QPoly::from_terms(ctx, c, e);
}

std::vector<Record> fd_experiment(const EpsExperimentOptions& opt, Draws& draws) {
    std::vector<double> eps = {0};
    eps.insert(eps.end(), opt.eps.begin(), opt.eps.end());
    std::vector<Record> rows;
    for (long n : {2L, 4L}) {
        const ValidPartition part = balanced_partition(n);
        for (long d = 2; d <= 6; ++d) {
            Rng rng = Rng(opt.seed).split(static_cast<std::uint64_t>(100 * n + d));
            std::vector<long> hits(eps.size(), 0), undecided(eps.size(), 0);
            for (long t = 0; t < opt.trials; ++t) {
                draws.next("F_d with " + std::to_string(n) + " variables, d = " + std::to_string(d));
                SpectrumOptions so;
                so.measure = opt.measure;
                so.eps = eps;
                const auto r = spectrum(random_fd(rng, n, d), part, n, so);
                for (std::size_t i = 0; i < eps.size(); ++i) {
                    const auto& e = r.eps_ranks[i];
                    if (!e.certified) ++undecided[i];
                    else if (e.rank_low == d) ++hits[i];
                }
            }
            for (std::size_t i = 0; i < eps.size(); ++i) {
                const auto [lo, hi] = wilson_interval(hits[i], opt.trials);
                Record rec;
                rec.set("experiment", "fd");
                rec.set("measure", to_string(opt.measure));
                rec.set("variables", n);
                rec.set("d", d);
                rec.set("eps", Value::real(eps[i], 6));
                rec.set("quantity", eps[i] == 0 ? "sep = d" : "eps-sep = d");
                rec.set("trials", opt.trials);
                rec.set("hits", hits[i]);
                rec.set("fraction", Value::real(static_cast<double>(hits[i]) / static_cast<double>(opt.trials), 4));
                rec.set("ci_low", Value::real(lo, 4));
                rec.set("ci_high", Value::real(hi, 4));
                rec.set("undecided", undecided[i]);
                rows.push_back(rec);
            }
        }
    }
    return rows;
}

std::vector<Record> blocks_experiment(const EpsExperimentOptions& opt, Draws& draws) {
    std::vector<double> eps = {0};
    eps.insert(eps.end(), opt.eps.begin(), opt.eps.end());
    struct Config {
        const char* family;
        bool free_slots;
    };
    // A configuration's index k in this list is the last digit of its random stream,
    // 1000·N + 10·L + k; its row's family is its name, with "-free" for free slots.
    const std::vector<Config> configs = {{"attention", false}, {"hadamard", false}, {"hadamard", true}};
    std::vector<Record> rows;
    for (long tokens : {2L, 3L})
        for (long depth : {1L, 2L})
            for (std::size_t k = 0; k < configs.size(); ++k) {
                const Config& c = configs[k];
                NetworkSpec s;
                s.family = family_from_string(c.family);
                s.tokens = tokens;
                s.dim = 2;
                s.depth = depth;
                s.block_degree = 3;
                s.free_slots = c.free_slots;
                if (family_info(s.family).width) s.width = 2;
                const ValidPartition part = balanced_partition(tokens);
                Rng rng = Rng(opt.seed).split(static_cast<std::uint64_t>(1000 * tokens + 10 * depth + static_cast<long>(k)));
                std::vector<std::vector<long>> ranks(eps.size());
                std::vector<long> undecided(eps.size(), 0);
                for (long t = 0; t < opt.trials; ++t) {
                    draws.next(describe(s));
                    SpectrumOptions so;
                    so.measure = opt.measure;
                    so.eps = eps;
                    const auto r = spectrum(random_network(s, rng.next()), part, so);
                    for (std::size_t i = 0; i < eps.size(); ++i) {
                        undecided[i] += !r.eps_ranks[i].certified;
                        ranks[i].push_back(r.eps_ranks[i].rank_low);
                    }
                }
                const long params = fmpz_get_si(parameter_count(s).get());  // attention 4·dx·da·L, hadamard (d+1)·w·dx·L
                for (std::size_t i = 0; i < eps.size(); ++i) {
                    double mean = 0;
                    for (long v : ranks[i]) mean += static_cast<double>(v);
                    mean /= static_cast<double>(ranks[i].size());
                    Record rec;
                    rec.set("experiment", "blocks");
                    rec.set("measure", to_string(opt.measure));
                    rec.set("family", to_string(s.family) + (c.free_slots ? "-free" : ""));
                    rec.set("tokens", tokens);
                    rec.set("depth", depth);
                    rec.set("params", params);
                    rec.set("eps", Value::real(eps[i], 6));
                    rec.set("trials", opt.trials);
                    rec.set("mean", Value::real(mean, 4));
                    rec.set("min", *std::min_element(ranks[i].begin(), ranks[i].end()));
                    rec.set("max", *std::max_element(ranks[i].begin(), ranks[i].end()));
                    rec.set("undecided", undecided[i]);
                    rows.push_back(rec);
                }
            }
    return rows;
}

}  // namespace

std::vector<Record> eps_experiment(const EpsExperimentOptions& opt) {
    if (opt.trials < 1) throw invalid_input("EpsExperimentOptions::trials " + std::to_string(opt.trials) + " must be >= 1");
    if (opt.kind != "fd" && opt.kind != "blocks") throw invalid_input("EpsExperimentOptions::kind '" + opt.kind + "' (expected fd or blocks)");
    // Work, estimated before the first draw (limits.hpp): measured on 2 cores, about 1.5 ms
    // a trial for fd (200 in 0.3 s) and 95 ms for blocks (10 in 0.95 s).
    const double per_trial = opt.kind == "fd" ? 1.5e-3 : 9.5e-2;
    check_time(static_cast<double>(opt.trials) * per_trial, default_max_seconds(),
               "the " + opt.kind + " experiment (" + std::to_string(opt.trials) + " trials per configuration)");
    // Configurations: fd 2 sizes x 5 degrees, blocks 2 token counts x 2 depths x 3 kinds.
    Draws draws{current_progress(), static_cast<std::uint64_t>(opt.trials) * (opt.kind == "fd" ? 10 : 12)};
    const ProgressScope silent{ProgressObserver{}};
    auto rows = opt.kind == "fd" ? fd_experiment(opt, draws) : blocks_experiment(opt, draws);
    draws.finish();
    return rows;
}

}  // namespace seprank
