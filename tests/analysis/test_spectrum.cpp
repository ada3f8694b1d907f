// Tests of the spectrum module against references computed by another route: the Gram
// matrices of the side monomials under μ, built from moments alone (no orthogonal
// polynomials), the exact characteristic polynomial of C G_B Cᵀ G_A over Q, and its
// roots isolated by Arb — these are the σ_k². Certified balls must contain them.
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/flatten.hpp"
#include "seprank/network.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/progress.hpp"
#include "seprank/separation.hpp"
#include "seprank/spectrum.hpp"
#include "support.hpp"

#include <acb.h>
#include <arb_fmpz_poly.h>
#include <cmath>
#include <doctest/doctest.h>
#include <set>
#include <flint/fmpq_mat.h>
#include <flint/fmpq_poly.h>
#include <map>

using namespace seprank;

namespace {

// E[x^u · x^v] for multi-indices under the product measure.
Rational gram_entry(Measure m, const std::vector<std::uint64_t>& u, const std::vector<std::uint64_t>& v) {
    Rational p(1);
    for (std::size_t c = 0; c < u.size(); ++c) p = p * moment(m, static_cast<unsigned>(u[c] + v[c]));
    return p;
}

// The positive eigenvalues of C G_B Cᵀ G_A (= σ_k², descending), to ~200 bits, by the
// exact characteristic polynomial and Arb's root isolation.
std::vector<double> reference_sq(const QPoly& f, const std::vector<int>& side, Measure m, std::vector<std::string>* text = nullptr) {
    std::map<std::vector<std::uint64_t>, long> ra, cb;
    std::vector<std::vector<std::uint64_t>> rows, cols;
    struct T {
        long r, c;
        Rational v;
    };
    std::vector<T> terms;
    for (std::size_t k = 0; k < f.terms(); ++k) {
        const auto e = f.exponents(k);
        std::vector<std::uint64_t> a, b;
        for (std::size_t v = 0; v < e.size(); ++v) (side[v] == 0 ? a : b).push_back(e[v]);
        auto [ia, na] = ra.try_emplace(a, static_cast<long>(rows.size()));
        if (na) rows.push_back(a);
        auto [ib, nb] = cb.try_emplace(b, static_cast<long>(cols.size()));
        if (nb) cols.push_back(b);
        terms.push_back({ia->second, ib->second, f.coeff(k)});
    }
    const long mr = static_cast<long>(rows.size()), mc = static_cast<long>(cols.size());
    if (mr == 0) return {};
    QMat c(mr, mc), ct(mc, mr), ga(mr, mr), gb(mc, mc), t1(mr, mc), t2(mr, mr), p(mr, mr);
    for (const auto& t : terms) c.set(t.r, t.c, t.v);
    fmpq_mat_transpose(ct.get(), c.get());
    for (long i = 0; i < mr; ++i)
        for (long j = 0; j < mr; ++j) ga.set(i, j, gram_entry(m, rows[static_cast<std::size_t>(i)], rows[static_cast<std::size_t>(j)]));
    for (long i = 0; i < mc; ++i)
        for (long j = 0; j < mc; ++j) gb.set(i, j, gram_entry(m, cols[static_cast<std::size_t>(i)], cols[static_cast<std::size_t>(j)]));
    fmpq_mat_mul(t1.get(), c.get(), gb.get());
    fmpq_mat_mul(t2.get(), t1.get(), ct.get());
    fmpq_mat_mul(p.get(), t2.get(), ga.get());
    fmpq_poly_t cp;
    fmpq_poly_init(cp);
    fmpq_mat_charpoly(cp, p.get());
    fmpz_poly_t z;
    fmpz_poly_init(z);
    fmpq_poly_get_numerator(z, cp);
    // Drop the factor λ^(m−r): the zero eigenvalues.
    long low = 0;
    while (low < fmpz_poly_length(z) && fmpz_is_zero(fmpz_poly_get_coeff_ptr(z, low))) ++low;
    fmpz_poly_shift_right(z, z, low);
    const long deg = fmpz_poly_degree(z);
    std::vector<double> out;
    if (deg > 0) {
        acb_ptr roots = _acb_vec_init(deg);
        arb_fmpz_poly_complex_roots(roots, z, 0, 200);
        for (long k = 0; k < deg; ++k) {
            out.push_back(arf_get_d(arb_midref(acb_realref(roots + k)), ARF_RND_NEAR));
            if (text) text->push_back(arb_get_str(acb_realref(roots + k), 30, 0));
        }
        _acb_vec_clear(roots, deg);
    }
    fmpz_poly_clear(z);
    fmpq_poly_clear(cp);
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
}

QPoly poly_of(const std::string& text) { return parse_poly(text, QContext::make(variables_in(text))); }

// A random polynomial in tokens 1..n_tok with dim coordinates: `terms` terms, degree per
// variable ≤ max_exp, integer coefficients in [−9, 9].
QPoly random_poly(Rng& rng, long n_tok, long dim, long n_terms, long max_exp) {
    auto ctx = QContext::make(Variables::tokens(n_tok, dim));
    std::vector<Rational> cs;
    std::vector<std::vector<std::uint64_t>> es;
    for (long t = 0; t < n_terms; ++t) {
        std::vector<std::uint64_t> e(static_cast<std::size_t>(n_tok * dim));
        for (auto& x : e) x = static_cast<std::uint64_t>(rng.range(0, max_exp));
        es.push_back(e);
        cs.emplace_back(rng.range(-9, 9));
    }
    return QPoly::from_terms(ctx, cs, es);
}

std::vector<int> split_sides(const QPoly& f, long n_tok) {
    return variable_sides(f.context()->vars(), token_sides(balanced_partition(n_tok), n_tok));
}

}  // namespace

TEST_CASE("one-dimensional bases: monomials re-expanded give the moments") {
    for (Measure m : {Measure::uniform, Measure::gaussian}) {
        const auto a = monomial_to_basis(m, 14);
        for (unsigned k = 0; k <= 14; ++k)
            for (unsigned l = 0; l <= 14; ++l) {
                Rational s(0);
                for (unsigned j = 0; j <= std::min(k, l); ++j) s = s + a[k][j] * a[l][j] * basis_norm2(m, j);
                INFO("measure " << to_string(m) << " k=" << k << " l=" << l);
                CHECK(s == moment(m, k + l));
            }
        for (unsigned k = 0; k <= 14; ++k)
            for (unsigned j = 0; j <= k; ++j)
                if ((k - j) % 2 == 1) CHECK(a[k][j].is_zero());
    }
    CHECK(moment(Measure::uniform, 4) == Rational(Integer(1), Integer(5)));
    CHECK(moment(Measure::gaussian, 6) == Rational(15));
    CHECK(moment(Measure::gaussian, 3).is_zero());
    CHECK(basis_norm2(Measure::gaussian, 4) == Rational(24));
    CHECK(basis_norm2(Measure::uniform, 2) == Rational(Integer(1), Integer(5)));
    CHECK(measure_from_string("gaussian") == Measure::gaussian);
    CHECK_THROWS_AS(measure_from_string("cauchy"), invalid_input);
    // Degrees past kMaxBasisDegree are refused (2^32 − 1 wrapped the table's size to 0 and
    // crashed; 10^5 asked GMP for more than it had and aborted)
    for (Measure m : {Measure::uniform, Measure::gaussian}) {
        CHECK_THROWS_AS(monomial_to_basis(m, 4294967295u), invalid_input);
        CHECK_THROWS_AS(moment(m, kMaxBasisDegree + 1), invalid_input);
        CHECK_THROWS_AS(basis_norm2(m, 4294967295u), invalid_input);
    }
    // within the degree bound, the table's memory is checked first
    const double before = default_max_memory();
    set_default_max_memory(64.0 * 1024 * 1024);
    CHECK_THROWS_AS(monomial_to_basis(Measure::gaussian, 60000), resource_limit);
    set_default_max_memory(before);
    // a flattening built by hand: weights that do not match K are named, not read past
    OrthoFlattening of;
    of.K = QMat(3, 3);
    CHECK_THROWS_AS(spectrum_fast(of), invalid_input);
    CHECK_THROWS_AS(spectrum_certified(of), invalid_input);
    of.weight_a.assign(3, Rational(1));
    of.weight_b.assign(3, Rational(0));
    CHECK_THROWS_AS(spectrum_fast(of), invalid_input);
    of.weight_b.assign(3, Rational(2));
    CHECK(spectrum_fast(of) == std::vector<double>(3, 0.0));
    // a hand-made enclosure: lo > hi, NaN, a negative squared norm are refused
    SquaredEnclosure s2;
    s2.lo = {2.0};
    s2.hi = {1.0};
    CHECK_THROWS_AS(eps_ranks(s2, Rational(1), {0.1}, false, false), invalid_input);
    s2.lo = {std::nan("")};
    CHECK_THROWS_AS(eps_ranks(s2, Rational(1), {0.1}, false, false), invalid_input);
    s2.lo = {0.5};
    CHECK_THROWS_AS(eps_ranks(s2, Rational(-1), {0.1}, false, false), invalid_input);
    CHECK(eps_ranks(s2, Rational(1), {0.1}, false, false).size() == 1);
}

TEST_CASE("norm: the exact ||f||^2 equals E[f^2] from moments") {
    Rng rng = seprank_test::rng_for("spectrum-norm");
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const long nt = 2 + static_cast<long>(rng.below(2)), dim = 1 + static_cast<long>(rng.below(2));
        const QPoly f = random_poly(rng, nt, dim, static_cast<long>(rng.below(6)), 3);
        const auto side = split_sides(f, nt);
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            Rational ref(0);
            for (std::size_t i = 0; i < f.terms(); ++i)
                for (std::size_t j = 0; j < f.terms(); ++j) ref = ref + f.coeff(i) * f.coeff(j) * gram_entry(m, f.exponents(i), f.exponents(j));
            const auto of = orthogonal_flattening(f, side, m);
            INFO("seed " << seprank_test::seed() << " it " << it << " f = " << to_string(f) << " measure " << to_string(m));
            CHECK(of.norm2 == ref);
            CHECK(of.K.rows() == static_cast<long>(of.basis_a.size()));
        }
    }
}

TEST_CASE("certified balls contain the reference singular values, at several precisions") {
    Rng rng = seprank_test::rng_for("spectrum-reference");
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        const long nt = 2 + static_cast<long>(rng.below(2)), dim = 1 + static_cast<long>(rng.below(2));
        const QPoly f = random_poly(rng, nt, dim, 1 + static_cast<long>(rng.below(7)), it % 3 == 0 ? 4 : 2);
        const auto part = balanced_partition(nt);
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            const auto ref = reference_sq(f, split_sides(f, nt), m);
            for (long prec : {53L, 80L, 160L}) {
                SpectrumOptions so;
                so.measure = m;
                so.precision = prec;
                const auto r = spectrum(f, part, nt, so);
                INFO("seed " << seprank_test::seed() << " it " << it << " f = " << to_string(f) << " measure " << to_string(m)
                              << " precision " << prec);
                REQUIRE(r.rank_certified);
                REQUIRE(r.singular_values.size() == ref.size());
                CHECK(r.rank == static_cast<long>(ref.size()));
                for (std::size_t k = 0; k < ref.size(); ++k) {
                    const double s = std::sqrt(ref[k]);
                    INFO("k " << k << " sigma_ref " << s << " ball " << r.singular_values[k] << " +- " << r.radii[k]);
                    // The reference is good to ~200 bits; one ulp of slack for its double.
                    CHECK(std::abs(r.singular_values[k] - s) <= r.radii[k] + 4e-16 * s);
                    CHECK(r.radii[k] <= r.radius);
                }
                // Above 53 bits the balls shrink to the rounding of their double midpoints.
                if (!ref.empty() && prec == 160) CHECK(r.radius <= 2.3e-16 * std::sqrt(ref[0]));
                // The fast path agrees with the certified balls up to its own rounding.
                so.method = SpectrumMethod::fast;
                const auto fa = spectrum(f, part, nt, so);
                REQUIRE(fa.singular_values.size() == r.singular_values.size());
                for (std::size_t k = 0; k < ref.size(); ++k)
                    CHECK(std::abs(fa.singular_values[k] - r.singular_values[k]) <= r.radii[k] + 1e-12 * fa.singular_values[0]);
            }
        }
    }
}

TEST_CASE("known spectra: sum of n products, a single product, a monomial") {
    for (int n = 1; n <= 5; ++n) {
        std::string text;
        for (int i = 1; i <= n; ++i) text += (i > 1 ? " + " : "") + std::string("x1_") + std::to_string(i) + "*x2_" + std::to_string(i);
        const QPoly f = poly_of(text);
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            const double want = m == Measure::uniform ? 1.0 / 3 : 1.0;
            SpectrumOptions so;
            so.measure = m;
            so.eps = {0, 0.1};
            const auto r = spectrum(f, balanced_partition(2), 2, so);
            INFO(text << " measure " << to_string(m));
            REQUIRE(r.singular_values.size() == static_cast<std::size_t>(n));
            for (double s : r.singular_values) CHECK(std::abs(s - want) <= r.radius + 1e-16);
            CHECK(r.norm_squared == (m == Measure::uniform ? Rational(Integer(n), Integer(9)) : Rational(n)).str());
            CHECK(r.eps_ranks[0].rank_low == n);
            CHECK(r.eps_ranks[0].certified);
            // Dropping one of n equal values loses 1/n of ||f||^2 > 0.01: all are needed.
            CHECK(r.eps_ranks[1].rank_low == n);
            CHECK(r.eps_ranks[1].certified);
        }
    }
    // f(A)·g(B): one singular value ||f||·||g||, ||.||^2 from moments.
    Rng rng = seprank_test::rng_for("spectrum-product");
    for (int it = 0; it < seprank_test::iterations(20); ++it) {
        auto ctx = QContext::make(Variables::tokens(2, 2));
        std::vector<Rational> cf, cg;
        std::vector<std::vector<std::uint64_t>> ef, eg;
        for (int t = 0; t < 3; ++t) {
            cf.emplace_back(rng.range(-5, 5));
            ef.push_back({static_cast<std::uint64_t>(rng.range(0, 3)), static_cast<std::uint64_t>(rng.range(0, 3)), 0, 0});
            cg.emplace_back(rng.range(-5, 5));
            eg.push_back({0, 0, static_cast<std::uint64_t>(rng.range(0, 3)), static_cast<std::uint64_t>(rng.range(0, 3))});
        }
        const QPoly fa = QPoly::from_terms(ctx, cf, ef), gb = QPoly::from_terms(ctx, cg, eg);
        if (fa.is_zero() || gb.is_zero()) continue;
        for (Measure m : {Measure::uniform, Measure::gaussian}) {
            auto sq = [&](const QPoly& p) {
                Rational s(0);
                for (std::size_t i = 0; i < p.terms(); ++i)
                    for (std::size_t j = 0; j < p.terms(); ++j) s = s + p.coeff(i) * p.coeff(j) * gram_entry(m, p.exponents(i), p.exponents(j));
                return s;
            };
            const Rational want2 = sq(fa) * sq(gb);
            SpectrumOptions so;
            so.measure = m;
            const auto r = spectrum(fa * gb, balanced_partition(2), 2, so);
            INFO("f = " << to_string(fa) << " g = " << to_string(gb) << " measure " << to_string(m));
            REQUIRE(r.singular_values.size() == 1);
            CHECK(r.norm_squared == want2.str());
            const double want = std::sqrt(std::stod(want2.num().str()) / std::stod(want2.den().str()));
            CHECK(std::abs(r.singular_values[0] - want) <= r.radius + 1e-15 * want);
        }
    }
    // The zero polynomial and a constant.
    const auto z = spectrum(poly_of("x1_1 - x1_1 + 0*x2_1"), balanced_partition(2), 2, {});
    CHECK(z.rank == 0);
    CHECK(z.singular_values.empty());
    CHECK(z.degree == -1);  // as expand's degree of the zero polynomial
    CHECK(spectrum(poly_of("3 + 0*x2_1"), balanced_partition(2), 2, {}).degree == 0);
    CHECK(spectrum(poly_of("x1_1^2*x2_1 + 0*x2_1"), balanced_partition(2), 2, {}).degree == 3);
}

TEST_CASE("eps ranks: 0 is the exact rank, monotone in eps, brackets the reference, never a guess") {
    Rng rng = seprank_test::rng_for("spectrum-eps");
    const std::vector<double> eps = {0, 1e-6, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.0, 1.5};
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        const long nt = 2 + static_cast<long>(rng.below(2)), dim = 1 + static_cast<long>(rng.below(2));
        const QPoly f = random_poly(rng, nt, dim, 1 + static_cast<long>(rng.below(8)), 3);
        const Measure m = rng.below(2) ? Measure::uniform : Measure::gaussian;
        SpectrumOptions so;
        so.measure = m;
        so.eps = eps;
        so.eps_absolute = rng.below(3) == 0;
        const auto part = balanced_partition(nt);
        const auto r = spectrum(f, part, nt, so);
        const auto sep = separation_rank(f, part, nt);
        const auto ref = reference_sq(f, split_sides(f, nt), m);
        double total = 0;
        for (double x : ref) total += x;
        INFO("seed " << seprank_test::seed() << " it " << it << " f = " << to_string(f) << " measure " << to_string(m));
        CHECK(r.eps_ranks[0].rank_low == sep.value);
        CHECK(r.eps_ranks[0].certified == sep.certified());
        for (std::size_t i = 0; i < eps.size(); ++i) {
            const auto& e = r.eps_ranks[i];
            CHECK(e.rank_low <= e.rank_high);
            CHECK(e.certified == e.decided());
            if (i > 0) {
                CHECK(e.rank_low <= r.eps_ranks[i - 1].rank_low);
                CHECK(e.rank_high <= r.eps_ranks[i - 1].rank_high);
            }
            // The reference ε-rank, where it is clear of the threshold by a margin.
            const double t = eps[i] * eps[i] * (so.eps_absolute ? 1.0 : total);
            long want = -1;
            bool clear = true;
            for (long rr = 0; rr <= static_cast<long>(ref.size()); ++rr) {
                double tail = 0;
                for (std::size_t k = static_cast<std::size_t>(rr); k < ref.size(); ++k) tail += ref[k];
                if (std::abs(tail - t) <= 1e-9 * (total + t) && eps[i] > 0) clear = false;
                if (tail <= t && want < 0) want = rr;
            }
            if (eps[i] == 0) want = static_cast<long>(ref.size());
            INFO("eps " << eps[i] << " want " << want << " got [" << e.rank_low << ", " << e.rank_high << "]");
            if (clear) {
                CHECK(e.rank_low <= want);
                CHECK(want <= e.rank_high);
                CHECK(e.certified);
            }
        }
        // The fast path's ε-ranks are never certified.
        so.method = SpectrumMethod::fast;
        for (const auto& e : spectrum(f, part, nt, so).eps_ranks) CHECK_FALSE(e.certified);
    }
}

TEST_CASE("eps ranks: a threshold exactly at a tail sum is reported undecided") {
    // Gaussian: He_2(x)He_2(y) + He_1(x)He_1(y) has σ = ‖He_2‖² = 2 and 1, the first
    // through √2·√2 (a ball, not exact); absolute ε = 1 meets tail(1) = 1 exactly.
    SpectrumOptions so;
    so.measure = Measure::gaussian;
    so.eps = {0.999, 1.0, 1.001};
    so.eps_absolute = true;
    const QPoly f = poly_of("(x1_1^2 - 1)*(x2_1^2 - 1) + x1_1*x2_1");
    const auto r = spectrum(f, balanced_partition(2), 2, so);
    REQUIRE(r.eps_ranks.size() == 3);
    REQUIRE(r.singular_values.size() == 2);
    CHECK(std::abs(r.singular_values[0] - 2) <= r.radius);
    CHECK(r.radius > 0);
    CHECK(r.eps_ranks[0].rank_low == 2);
    CHECK(r.eps_ranks[0].certified);
    CHECK(r.eps_ranks[1].rank_low == 1);
    CHECK(r.eps_ranks[1].rank_high == 2);
    CHECK_FALSE(r.eps_ranks[1].certified);
    CHECK(to_json(r).find("\"rank_high\":2") != std::string::npos);
    CHECK(r.eps_ranks[2].rank_low == 1);
    CHECK(r.eps_ranks[2].certified);
    // σ = 1, 1 computed exactly (identity eigenbasis, exact entries): ε = 1 is decided.
    so.eps = {1.0};
    const auto r1 = spectrum(poly_of("x1_1*x2_1 + x1_2*x2_2"), balanced_partition(2), 2, so);
    CHECK(r1.eps_ranks[0].rank_low == 1);
    CHECK(r1.eps_ranks[0].certified);
    // Relative: ‖f‖² = 2, ε² ‖f‖² = 1/2 < 1 = tail(1): decided, 2.
    so.eps_absolute = false;
    so.eps = {0.5};
    const auto r2 = spectrum(poly_of("x1_1*x2_1 + x1_2*x2_2"), balanced_partition(2), 2, so);
    CHECK(r2.eps_ranks[0].rank_low == 2);
    CHECK(r2.eps_ranks[0].certified);
}

TEST_CASE("networks: spectrum of a small attention stack, certified vs fast, rank = certified sep") {
    Rng rng = seprank_test::rng_for("spectrum-network");
    for (int it = 0; it < seprank_test::iterations(4); ++it) {
        NetworkSpec spec;
        spec.family = Family::attention;
        spec.tokens = 2 + static_cast<long>(rng.below(2));
        spec.dim = 2;
        spec.depth = 1;
        const Network net = random_network(spec, rng.next());
        const auto part = balanced_partition(spec.tokens);
        SpectrumOptions so;
        so.eps = {0, 0.01, 0.1};
        const auto r = spectrum(net, part, so);
        const auto sep = separation_rank(net, part);
        INFO("it " << it << " N=" << spec.tokens);
        CHECK(r.rank == sep.value);
        CHECK(r.certified);
        CHECK(r.eps_ranks[0].rank_low == sep.value);
        double sum = 0;
        for (double s : r.singular_values) sum += s * s;
        CHECK(std::abs(sum - r.norm * r.norm) <= 1e-9 * r.norm * r.norm);
        so.method = SpectrumMethod::fast;
        const auto fa = spectrum(net, part, so);
        REQUIRE(fa.singular_values.size() == r.singular_values.size());
        for (std::size_t k = 0; k < r.singular_values.size(); ++k)
            CHECK(std::abs(fa.singular_values[k] - r.singular_values[k]) <= r.radii[k] + 1e-11 * r.singular_values[0]);
        CHECK(to_json(fa).find("\"radius\":null") != std::string::npos);
    }
}

TEST_CASE("progress: a spectrum reports its steps in order; the experiments report their draws, not their spectra") {
    struct Report {
        std::string what;
        std::uint64_t done, total;
        std::string detail;
    };
    std::vector<Report> seen;
    const ProgressObserver obs = [&](std::string_view what, std::uint64_t done, std::uint64_t total, std::string_view detail) {
        seen.push_back({std::string(what), done, total, std::string(detail)});
    };
    NetworkSpec spec;
    spec.tokens = 2;
    spec.dim = 2;
    spec.depth = 1;
    SpectrumResult r;
    {
        const ProgressScope scope(obs);
        r = spectrum(random_network(spec, 3), balanced_partition(2), SpectrumOptions{});
    }
    std::vector<std::uint64_t> steps;
    for (const Report& x : seen)
        if (x.what == "spectrum step") {
            CHECK(x.total == 0);  // uneven steps: no total, hence no ETA
            CHECK(x.detail.rfind("of 4: ", 0) == 0);
            steps.push_back(x.done);
        }
    CHECK(steps == std::vector<std::uint64_t>{1, 2, 3, 4});
    CHECK(seen.back().detail.find("singular values of " + std::to_string(r.basis_rows) + " x ") != std::string::npos);

    // A polynomial given: three steps, numbered 1..3 of 3.
    seen.clear();
    {
        const ProgressScope scope(obs);
        auto ctx = QContext::make(variables_in("x1_1*x2_1 + x1_1^2"));
        spectrum(parse_poly("x1_1*x2_1 + x1_1^2", ctx), balanced_partition(2), 2, SpectrumOptions{});
    }
    REQUIRE(seen.size() == 3);
    for (std::uint64_t k = 0; k < 3; ++k) {
        CHECK(seen[k].done == k + 1);
        CHECK(seen[k].detail.rfind("of 3: ", 0) == 0);
    }

    // fd: 10 configurations, 2 draws each: 0..19 then the end, and no spectrum's steps.
    seen.clear();
    EpsExperimentOptions eo;
    eo.kind = "fd";
    eo.trials = 2;
    std::vector<Record> rows;
    {
        const ProgressScope scope(obs);
        rows = eps_experiment(eo);
    }
    CHECK(rows.size() == 10 * (1 + eo.eps.size()));  // a row per configuration and threshold (0 first)
    REQUIRE(seen.size() == 21);
    for (std::size_t k = 0; k < seen.size(); ++k) {
        CHECK(seen[k].what == "experiment draws");
        CHECK(seen[k].done == k);
        CHECK(seen[k].total == 20);
    }
    CHECK(seen.back().detail == "done");
    // Without an observer the rows are the same.
    const auto again = eps_experiment(eo);
    REQUIRE(again.size() == rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) CHECK(again[k] == rows[k]);
}

TEST_CASE("orthogonal_flattening bounds its bases and dense matrices before building them, max_side <= 0 included") {
    auto sides_of = [](const QPoly& f) {  // token 1: side A, token 2: side B
        std::vector<int> side;
        for (std::size_t v = 0; v < f.context()->nvars(); ++v) side.push_back(f.context()->vars().token(v) == 1 ? 0 : 1);
        return side;
    };
    // the monomial x1_1^a·x1_2^a·x1_3^a alone brings Π_c (a/2 + 1) = 30001^3 basis elements
    // to side A for a = 60000: refused before one is enumerated, whatever max_side
    const QPoly f = poly_of("x1_1^60000*x1_2^60000*x1_3^60000*x2_1");
    CHECK_THROWS_WITH_AS(orthogonal_flattening(poly_of("x1_1^70000*x2_1"), sides_of(poly_of("x1_1^70000*x2_1")), Measure::uniform, 0),
                         doctest::Contains("exponent 70000 is above 65536"), resource_limit);
    for (long max_side : {0L, -1L})
        CHECK_THROWS_WITH_AS(orthogonal_flattening(f, sides_of(f), Measure::uniform, max_side),
                             doctest::Contains("the orthogonal basis of side A has at least 27002700090001 elements: about"), resource_limit);
    CHECK_THROWS_WITH_AS(orthogonal_flattening(f, sides_of(f), Measure::uniform, 4096),
                         doctest::Contains("has at least 27002700090001 elements, over the max side 4096"), resource_limit);
    // x1_1^200·x1_2^200: 101² = 10201 basis elements on side A, about 2.4 MB of bases and
    // matrices (ortho_bytes): over a 1 MiB limit, without max_side to stop it
    const QPoly g = poly_of("x1_1^200*x1_2^200*x2_1");
    {
        const seprank_test::MaxMemory small(1024.0 * 1024.0);
        CHECK_THROWS_WITH_AS(orthogonal_flattening(g, sides_of(g), Measure::uniform, 0),
                             doctest::Contains("side A has at least 10201 elements"), resource_limit);
    }
    const auto og = orthogonal_flattening(g, sides_of(g), Measure::uniform, 0);
    CHECK(og.K.rows() == 10201);
    CHECK(og.K.cols() == 1);  // x2_1: the one J <= 1 of its parity, J = 1
    // below every limit, max_side 0 gives what a bound does
    const QPoly h = poly_of("x1_1^3*x2_1 + x1_2*x2_2^2 + 1");
    const auto h0 = orthogonal_flattening(h, sides_of(h), Measure::gaussian, 0);
    const auto h1 = orthogonal_flattening(h, sides_of(h), Measure::gaussian, 4096);
    CHECK(h0.norm2 == h1.norm2);
    CHECK(h0.basis_a == h1.basis_a);
    CHECK(h0.basis_b == h1.basis_b);
}

TEST_CASE("options are checked") {
    const QPoly f = poly_of("x1_1*x2_1");
    SpectrumOptions so;
    so.precision = 1;
    CHECK_THROWS_AS(spectrum(f, balanced_partition(2), 2, so), invalid_input);
    so.precision = 53;
    so.eps = {-0.1};
    CHECK_THROWS_AS(spectrum(f, balanced_partition(2), 2, so), invalid_input);
    so.eps = {};
    // a polynomial is not expanded, yet an invalid expansion limit is refused (0 is the default)
    so.expand.max_memory = -1;
    CHECK_THROWS_AS(spectrum(f, balanced_partition(2), 2, so), invalid_input);
    so.expand.max_memory = 0;
    CHECK(spectrum(f, balanced_partition(2), 2, so).rank == 1);
    so.max_side = 1;
    CHECK_THROWS_AS(spectrum(poly_of("x1_1^3*x2_1"), balanced_partition(2), 2, so), resource_limit);
    CHECK(spectrum_method_from_string("fast") == SpectrumMethod::fast);
    CHECK_THROWS_AS(spectrum_method_from_string("slow"), invalid_input);
}

TEST_CASE("to_string(Measure) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<Measure>({Measure::uniform, Measure::gaussian}, "Measure", measure_from_string);
}

TEST_CASE("to_string(SpectrumMethod) names every value once and refuses one outside the enum (internal_error)") {
    seprank_test::check_enum_names<SpectrumMethod>({SpectrumMethod::certified, SpectrumMethod::fast}, "SpectrumMethod", spectrum_method_from_string);
}
