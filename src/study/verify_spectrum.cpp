#include "verify_spectrum.hpp"

#include "seprank/flatten.hpp"
#include "seprank/grid.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/random.hpp"
#include "seprank/separation.hpp"
#include "seprank/spectrum.hpp"
#include "base/number_text.hpp"

#include <cmath>
#include <sstream>

namespace seprank {

namespace {

ClaimResult result(const std::string& name, bool pass, const std::string& detail) { return {name, pass, detail}; }

QPoly poly_of(const std::string& text) { return parse_poly(text, QContext::make(variables_in(text))); }

// One layer of `family` ("attention" or "hadamard"), N = 2 or 3, dx = 2, its block degree
// fixed or drawn from {2, 3}.
Network small_net(Rng& rng, const char* family) {
    NetworkSpec s;
    s.family = family_from_string(family);
    s.tokens = 2 + static_cast<long>(rng.below(2));
    s.dim = 2;
    s.depth = 1;
    const long fixed = family_info(s.family).fixed_block_degree;
    s.block_degree = fixed > 0 ? fixed : 2 + static_cast<long>(rng.below(2));
    return random_network(s, rng.next());
}

SpectrumOptions under(Measure m) {
    SpectrumOptions so;
    so.measure = m;
    return so;
}

const std::vector<double> kEps = {0, 1e-4, 1e-3, 0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0};

ClaimResult eps0_exact(std::uint64_t seed) {
    Rng rng(seed);
    int cases = 0;
    for (int it = 0; it < 8; ++it) {
        const Network net = small_net(rng, it % 2 ? "hadamard" : "attention");
        const ValidPartition part = balanced_partition(net.spec.tokens);
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            SpectrumOptions so;
            so.measure = m;
            so.eps = {0};
            const auto s = spectrum(net, part, so);
            const auto sep = separation_rank(net, part);
            ++cases;
            if (!sep.certified() || !s.eps_ranks[0].certified || s.eps_ranks[0].rank_low != sep.value ||
                static_cast<long>(s.singular_values.size()) != sep.value)
                return result("eps0-exact", false, "network " + network_to_json(net, -1) + " under " + to_string(m) + ": sep " +
                                                       std::to_string(sep.value) + ", 0-sep " + std::to_string(s.eps_ranks[0].rank_low));
        }
    }
    return result("eps0-exact", true, std::to_string(cases) + " (network, measure) pairs: 0-sep = number of non-zero singular values = certified sep");
}

ClaimResult known_spectra(std::uint64_t seed) {
    std::ostringstream detail;
    for (int n = 1; n <= 6; ++n) {
        std::string text;
        for (int i = 1; i <= n; ++i) text += (i > 1 ? " + " : "") + std::string("x1_") + std::to_string(i) + "*x2_" + std::to_string(i);
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            const auto r = spectrum(poly_of(text), balanced_partition(2), 2, under(m));
            const double want = m == Measure::uniform ? 1.0 / 3 : 1.0;
            bool ok = static_cast<long>(r.singular_values.size()) == n;
            for (double s : r.singular_values) ok = ok && std::abs(s - want) <= r.radius + 1e-16;
            if (!ok) return result("eps-known-spectra", false, "sum of " + std::to_string(n) + " products under " + to_string(m));
        }
    }
    detail << "sum_{i<=n} x_i y_i, n = 1..6: n values 1/3 (uniform), 1 (gaussian);";
    Rng rng(seed);
    int products = 0;
    for (int it = 0; it < 10; ++it) {
        auto ctx = QContext::make(Variables::tokens(2, 2));
        auto side_poly = [&](int token) {
            std::vector<Rational> c;
            std::vector<std::vector<std::uint64_t>> e;
            for (int t = 0; t < 3; ++t) {
                c.emplace_back(rng.range(-5, 5));
                std::vector<std::uint64_t> x(4, 0);
                x[static_cast<std::size_t>(2 * token)] = static_cast<std::uint64_t>(rng.range(0, 3));
                x[static_cast<std::size_t>(2 * token + 1)] = static_cast<std::uint64_t>(rng.range(0, 3));
                e.push_back(x);
            }
            return QPoly::from_terms(ctx, c, e);
        };
        const QPoly f = side_poly(0), g = side_poly(1);
        if (f.is_zero() || g.is_zero()) continue;
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            const auto rf = spectrum(f * g, balanced_partition(2), 2, under(m));
            // ‖f‖, ‖g‖ alone: f·1 and 1·g have the single singular values ‖f‖, ‖g‖ and
            // exact norms; their product must be the one singular value of f·g.
            const auto nf = spectrum(f, balanced_partition(2), 2, under(m)), ng = spectrum(g, balanced_partition(2), 2, under(m));
            const double want = nf.norm * ng.norm;
            ++products;
            if (rf.singular_values.size() != 1 || std::abs(rf.singular_values[0] - want) > rf.radius + 4e-16 * want ||
                Rational(rf.norm_squared) != Rational(nf.norm_squared) * Rational(ng.norm_squared))
                return result("eps-known-spectra", false, "product f(A) g(B) with f = " + to_string(f) + ", g = " + to_string(g));
        }
    }
    detail << " " << products << " products f(A) g(B): one value ||f||*||g|| (||.||^2 exact)";
    return result("eps-known-spectra", true, detail.str());
}

ClaimResult monotone(std::uint64_t seed) {
    Rng rng(seed);
    int cases = 0, undecided = 0;
    for (int it = 0; it < 8; ++it) {
        const Network net = small_net(rng, it % 2 ? "hadamard" : "attention");
        SpectrumOptions so;
        so.measure = it % 3 ? Measure::uniform : Measure::gaussian;
        so.eps = kEps;
        const auto s = spectrum(net, balanced_partition(net.spec.tokens), so);
        ++cases;
        for (std::size_t i = 0; i < s.eps_ranks.size(); ++i) {
            const auto& e = s.eps_ranks[i];
            undecided += !e.decided();
            if (e.rank_low > e.rank_high || (i > 0 && (e.rank_low > s.eps_ranks[i - 1].rank_low || e.rank_high > s.eps_ranks[i - 1].rank_high)))
                return result("eps-monotone", false, "network " + network_to_json(net, -1) + " at eps " + number_text(e.eps));
        }
        if (s.eps_ranks.back().rank_high != 0) return result("eps-monotone", false, "eps = 1 (relative) must give 0");
    }
    return result("eps-monotone", true, std::to_string(cases) + " networks x " + std::to_string(kEps.size()) +
                                            " thresholds: eps-sep non-increasing in eps, 0 at eps = 1; " +
                                            std::to_string(undecided) + " thresholds undecided (reported as ranges)");
}

// [[T]]/√(M^|A| M^|B|) is the flattening of f in L2 of the uniform measure on the
// template grid (a product measure), so its numerical rank at relative ε is an
// ε-separation rank for that measure: at most rank [[T]] ≤ sep (Claim 7.1), and
// non-increasing in ε. Enclosed with the certified spectrum path.
ClaimResult grid_eps(std::uint64_t seed) {
    Rng rng(seed);
    int cases = 0;
    for (int it = 0; it < 6; ++it) {
        const Network net = small_net(rng, it % 2 ? "hadamard" : "attention");
        const ValidPartition part = balanced_partition(net.spec.tokens);
        const long sep = separation_rank(net, part).value;
        const Templates t = random_templates(2 + static_cast<long>(rng.below(3)), input_vars_per_token(net.spec), rng.next());
        const SparseZMat g = grid_matricization(net, part, t);
        const long exact = rank_certified(g).value;
        // The grid flattening under the uniform measure on the templates: weights 1/M^|A|, 1/M^|B|.
        OrthoFlattening of;
        of.K = QMat(g.rows, g.cols);
        Rational norm2(0);
        for (long i = 0; i < g.rows; ++i)
            for (const auto& [j, v] : g.row[static_cast<std::size_t>(i)]) {
                of.K.set(i, j, Rational(v));
                norm2 = norm2 + Rational(v) * Rational(v);
            }
        of.weight_a.assign(static_cast<std::size_t>(g.rows), Rational(Integer(1), Integer(g.rows)));
        of.weight_b.assign(static_cast<std::size_t>(g.cols), Rational(Integer(1), Integer(g.cols)));
        norm2 = norm2 * of.weight_a[0] * of.weight_b[0];
        const auto ranks = eps_ranks(spectrum_certified(of), norm2, kEps, false, true, exact);
        long prev = -1;
        for (const auto& e : ranks) {
            if (e.rank_high > exact || exact > sep || (prev >= 0 && e.rank_low > prev))
                return result("eps-grid", false, "numerical rank [" + std::to_string(e.rank_low) + ", " + std::to_string(e.rank_high) + "] at eps " +
                                                     number_text(e.eps) + ", rank [[T]] " + std::to_string(exact) + ", sep " + std::to_string(sep));
            prev = e.rank_low;
        }
        ++cases;
    }
    return result("eps-grid", true, std::to_string(cases) + " (network, templates): eps-rank of [[T]] under the grid measure (certified ranges) <= rank [[T]] <= sep, non-increasing in eps");
}

}  // namespace

const std::vector<SpectrumClaim>& spectrum_claims() {
    static const std::vector<SpectrumClaim> c = {
        {"eps0-exact", "the 0-separation rank (and the number of non-zero singular values) equals the certified separation rank", eps0_exact},
        {"eps-known-spectra", "sum_{i<=n} x_i y_i has n singular values 1/3 (uniform) or 1 (gaussian); f(A) g(B) has one, ||f||*||g||", known_spectra},
        {"eps-monotone", "the eps-separation rank is non-increasing in eps (certified ranges), 0 at relative eps = 1", monotone},
        {"eps-grid", "grid analogue (empirical measure on the template grid): numerical rank of [[T]] at eps <= rank [[T]] <= sep, non-increasing in eps", grid_eps},
    };
    return c;
}

}  // namespace seprank
