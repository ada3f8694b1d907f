// seprank — the `verify` claims about neurovarieties (verify_variety.hpp; docs/variety.md).
#include "verify_variety.hpp"

#include "seprank/defects.hpp"
#include "seprank/equation.hpp"
#include "seprank/variety.hpp"

#include <algorithm>
#include <array>
#include <sstream>

namespace seprank {

namespace {

// The list as "a,b,c".
std::string widths_text(const std::vector<long>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s;
}

// One-output single-channel convolutions: filters k_1..k_L at stride 1, power r after every
// layer but the last, N = Σ(k_l − 1) + 1 tokens of width 1.
NetworkSpec conv_stack(const std::vector<long>& filters, long r) {
    NetworkSpec s;
    s.family = family_from_string("stack");
    s.dim = 1;
    s.tokens = 1;
    std::string text;
    for (std::size_t l = 0; l < filters.size(); ++l) {
        s.tokens += filters[l] - 1;
        text += (l ? "," : "") + std::string("conv:filter=") + std::to_string(filters[l]) +
                ":power=" + std::to_string(l + 1 < filters.size() ? r : 1);
    }
    s.layers = parse_layers(text);
    s.depth = static_cast<long>(s.layers.size());
    return s;
}

// The predicted dimension, degree and gauge count: with n_l = k_l − 1, the image is the
// cone over the Segre–Veronese embedding of P^{n_1} × … × P^{n_L} by degrees
// (r^{L−1}, …, r, 1): dimension Σ n_l + 1, degree (Σ n_l)!/∏ n_l! · ∏ (r^{L−l})^{n_l}; fixing
// one weight of each filter after the first leaves the rescalings' roots of unity, r^{L−1}.
struct ConvPrediction {
    long dimension = 1, degree = 1, gauge = 1;
};

ConvPrediction conv_prediction(const std::vector<long>& filters, long r) {
    ConvPrediction c;
    const long L = static_cast<long>(filters.size());
    long total = 0;
    for (long l = 0; l < L; ++l) {
        const long n = filters[static_cast<std::size_t>(l)] - 1;
        for (long i = 1; i <= n; ++i) c.degree = c.degree * (total + i) / i;  // the multinomial, factor by factor
        total += n;
        long weight = 1;
        for (long e = 0; e < L - 1 - l; ++e) weight *= r;
        for (long i = 0; i < n; ++i) c.degree *= weight;
    }
    c.dimension = total + 1;
    for (long l = 0; l + 1 < L; ++l) c.gauge *= r;
    return c;
}

// The resource limit that left one of v's numbers unset, as its answer says ("" where
// none): a trial's certificate not tried, the equation's search stopped.
std::string limit_of(const VarietyAnswer& v) {
    for (const VarietyTrial& t : v.trials)
        if (t.limited) return t.uncertified;
    return v.equation.limited ? v.equation.why : "";
}

ClaimResult conv_variety(std::uint64_t seed) {
    std::ostringstream os;
    ClaimTally tally;
    long cases = 0;
    os << "filters (k_1,...,k_L) at r: dimension, degree, settings per function against the prediction: ";
    const std::vector<std::pair<std::vector<long>, long>> sweep{{{2, 2}, 2}, {{3, 2}, 2}, {{2, 3}, 2}, {{3, 3}, 2}, {{2, 2, 2}, 2},
                                                                {{2, 2}, 3}, {{3, 2}, 3}, {{2, 3}, 3}, {{3, 3}, 3}};
    for (const auto& [filters, r] : sweep) {
        VarietyOptions opt;
        opt.seed = seed + static_cast<std::uint64_t>(cases++);
        const VarietyAnswer v = network_variety(conv_stack(filters, r), opt);
        const ConvPrediction want = conv_prediction(filters, r);
        // the degree is also certified from below and bounded from above (docs/variety.md,
        // "The degree's lower bound", "The degree's upper bound"): proven
        const bool ok = v.agreed && v.dimension == want.dimension && v.degree == want.degree && v.gauge_fibre_points == want.gauge &&
                        v.degree_at_least == want.degree && v.degree_at_most == want.degree && v.gauge_fibre_at_most == want.gauge &&
                        v.degree_fibre_at_most == 1;
        os << "(" << widths_text(filters) << ") at " << r << ": " << v.dimension << ", " << v.degree << ", " << v.gauge_fibre_points;
        if (!ok)
            os << tally.add(ok, limit_of(v)) << " (want " << want.dimension << ", " << want.degree << ", " << want.gauge << "; degree certified at least " << v.degree_at_least
               << ", at most " << v.degree_at_most << ")";
        os << "; ";
    }
    os << cases << " networks, each degree proven (certified from below, the Newton polytope's bound from above), the settings per function "
                    "bounded from above by the count, and the last-pivot slice proven identifiable, given the dimension";
    return claim_result("conv-variety", tally, os.str());
}

// deg X = `degree` proven without condition: the dimension exact and both bounds met, as
// the image's equation (or its span) gives them.
bool proven(const VarietyAnswer& v, long degree) {
    return v.dimension_answer.kind == RankKind::exact && v.degree_at_least == degree && v.degree_at_most == degree && v.equation.degree == degree &&
           v.degree_at_most_failure_bound == 0;
}

// x ↦ Σ_{i<=h} a_i (b_i·x)² with d0 inputs: a two-layer stack of dense layers.
NetworkSpec quadratic(long d0, long h) { return power_stack({d0, h, 1}, {2}); }

ClaimResult quadratic_determinantal(std::uint64_t seed) {
    std::ostringstream os;
    ClaimTally tally;
    long cases = 0;
    os << "d0 inputs, d0 - 1 units: dimension, degree, settings per function against C(d0+1,2) - 1, d0, 2^(d0-1): ";
    for (long d0 = 2; d0 <= 4; ++d0) {
        VarietyOptions opt;
        opt.seed = seed + static_cast<std::uint64_t>(cases++);
        opt.max_unknowns = 9;
        const VarietyAnswer v = network_variety(quadratic(d0, d0 - 1), opt);
        const long dim = d0 * (d0 + 1) / 2 - 1, gauge = 1L << (d0 - 1);
        // proven by the image's equation: the symmetric determinant, 2, 5, 17 terms (docs/equation.md)
        const long terms = d0 == 2 ? 2 : d0 == 3 ? 5 : 17;
        const bool ok = v.agreed && v.dimension == dim && v.degree == d0 && v.gauge_fibre_points == gauge && proven(v, d0) &&
                        v.equation.equation && static_cast<long>(v.equation.equation->terms()) == terms;
        os << "d0 = " << d0 << ": " << v.dimension << ", " << v.degree << ", " << v.gauge_fibre_points << tally.add(ok, limit_of(v)) << "; ";
    }
    // contrast: with d0 units every quadratic form is reached, a linear space of degree 1
    for (long d0 = 2; d0 <= 3; ++d0) {
        VarietyOptions opt;
        opt.seed = seed + static_cast<std::uint64_t>(cases++);
        const VarietyAnswer v = network_variety(quadratic(d0, d0), opt);
        const bool ok = v.agreed && v.dimension == d0 * (d0 + 1) / 2 && v.degree == 1 && proven(v, 1);
        os << "contrast, d0 = " << d0 << " units: " << v.dimension << ", degree " << v.degree << tally.add(ok, limit_of(v)) << "; ";
    }
    os << "each dimension exact and each degree proven by the image's equation (the symmetric determinant; with d0 units, the span)";
    return claim_result("quadratic-determinantal", tally, os.str());
}

// Σ_{i<=3} a_i (b_i·x)³, x in C³: the sums of three cubes of linear forms.
ClaimResult aronhold_quartic(std::uint64_t seed) {
    std::ostringstream os;
    ClaimTally tally;
    VarietyOptions opt;
    opt.seed = seed;
    opt.max_unknowns = 9;
    const VarietyAnswer v = network_variety(power_stack({3, 3, 1}, {3}), opt);
    const long terms = v.equation.equation ? static_cast<long>(v.equation.equation->terms()) : -1;
    const bool pass = v.agreed && v.dimension == 9 && v.equation.span_dimension == 10 && proven(v, 4) && terms == 25 && v.gauge_fibre_points == 162;
    os << "ternary cubics that are sums of three cubes: dimension " << v.dimension << " of " << v.equation.span_dimension << ", degree "
       << v.degree_at_most << ", equation of " << terms << " terms, " << v.gauge_fibre_points << " settings per function (want 9 of 10, 4, 25, 162)"
       << tally.add(pass, limit_of(v)) << "; the dimension exact and the degree proven by the equation";
    return claim_result("aronhold-quartic", tally, os.str());
}

// Sums of k r-th powers of linear forms in v variables whose image is a hypersurface:
// the catalecticant's (Sylvester, Clebsch), proven by `equation`.
ClaimResult sums_of_powers(std::uint64_t seed) {
    std::ostringstream os;
    ClaimTally tally;
    long cases = 0;
    os << "(variables, powers, degree) against (dimension, degree): ";
    struct Case {
        long v, k, r, dimension, degree;
    };
    // binary forms of degree 2k, k powers: dimension 2k, degree k + 1 (Sylvester); ternary
    // quartics, five powers: dimension 14, not 15 (Alexander-Hirschowitz), degree 6 (Clebsch)
    for (const Case& c : std::vector<Case>{{2, 2, 4, 4, 3}, {2, 3, 6, 6, 4}, {2, 4, 8, 8, 5}, {3, 5, 4, 14, 6}}) {
        EquationOptions opt;
        opt.seed = seed + static_cast<std::uint64_t>(cases++);
        const EquationAnswer a = network_equation(power_stack({c.v, c.k, 1}, {c.r}), opt);
        const ImageEquation& e = a.equation;
        const bool ok = a.dimension_answer.value == c.dimension && a.dimension_answer.kind == RankKind::exact && e.span_dimension == c.dimension + 1 &&
                        e.equation && e.least && e.degree == c.degree;
        os << "(" << c.v << ", " << c.k << " x " << c.r << "): " << a.dimension_answer.value << ", " << e.degree << tally.add(ok, e.limited ? e.why : "")
           << "; ";
    }
    os << "each a hypersurface of its span, the dimension exact and the degree proven by its least equation";
    return claim_result("sums-of-powers", tally, os.str());
}

ClaimResult lightning_identifiable(std::uint64_t seed) {
    std::ostringstream os;
    bool pass = true;
    long cases = 0;
    os << "one attention layer, dx = 2 (N, H, da): dimension = expected, settings per function = H!: ";
    double worst = 0;  // the largest failure bound of the dimensions
    for (const auto& [N, H, da] : std::vector<std::array<long, 3>>{{2, 1, 2}, {3, 1, 2}, {2, 2, 1}, {3, 2, 1}}) {
        NetworkSpec s;  // family attention, depth 1
        s.tokens = N;
        s.dim = 2;
        s.depth = 1;
        s.heads = H;
        s.head_dim = da;
        VarietyOptions opt;
        opt.seed = seed + static_cast<std::uint64_t>(cases++);
        const VarietyAnswer v = network_variety(s, opt);
        long perms = 1;  // H!
        for (long h = 2; h <= H; ++h) perms *= h;
        const bool ok = v.agreed && v.dimension == v.dimension_answer.expected && v.gauge_fibre_points == perms;
        worst = std::max(worst, v.dimension_answer.failure_bound);
        pass = pass && ok;
        os << "(" << N << "," << H << "," << da << "): " << v.dimension << " = " << v.dimension_answer.expected << ", " << v.gauge_fibre_points
           << (ok ? "" : " WRONG") << "; ";
    }
    os << measured_dimensions_text(worst) << ", each settings count the points of a random slice's fibre mod a 16-bit prime, as every trial found (a count whose chance "
          "of error is not bounded: docs/variety.md)";
    return claim_result("lightning-identifiable", pass, os.str());
}

ClaimResult massarenti_mella(std::uint64_t seed) {
    DefectRange range;  // widths 2..5, depth 2..4, powers 2..5
    range.seed = seed;
    const DefectSweep sw = defect_sweep(range);
    long over = 0, total = 0;
    for (long L = range.min_depth; L <= range.max_depth; ++L) {
        long t = 1;
        for (long i = 0; i < L; ++i) t *= range.max_width - 1;
        for (long i = 0; i + 1 < L; ++i) t *= range.max_power - range.min_power + 1;
        total += t;
    }
    for (const DefectRow& r : sw.rows) over += r.dimension.value > r.bound || r.bound > r.expected;
    const bool pass = over == 0 && sw.ah_mismatch == 0 && static_cast<long>(sw.rows.size()) + sw.skipped == total;
    std::ostringstream os;
    os << sw.rows.size() << " networks (" << sw.skipped << " of " << total << " without room left out); dimension above the bound or bound above "
       << "the expected: " << over << "; last levels against the AH list: " << sw.ah_mismatch << " disagree; " << sw.defective << " defective: "
       << sw.by_bound << " reach the bound, " << sw.by_level << " at a defective level (" << defect_summary(sw).at("defective_levels").str()
       << "), " << sw.unexplained << " by neither";
    for (const DefectRow& r : sw.rows)
        if (r.reason == DefectReason::unexplained)
            os << "; " << widths_text(r.widths) << " at " << widths_text(r.powers) << ": " << r.dimension.value << " < " << r.expected;
    return claim_result("massarenti-mella", pass, os.str());
}

}  // namespace

const std::vector<SpectrumClaim>& variety_claims() {
    static const std::vector<SpectrumClaim> c{
        {"conv-variety",
         "single-channel stride-1 convolutions with filters k_1..k_L and power r (Shahverdi-Marchetti-Kohn): with n_l = k_l - 1 the image "
         "has dimension sum n_l + 1 and the Segre-Veronese degree (sum n_l)!/prod n_l! * prod (r^(L-l))^(n_l) (4 for filters (2,2), "
         "48 for (2,2,2) at r = 2), and fixing one weight of every filter after the first leaves r^(L-1) weight settings per generic "
         "function, the rescalings' roots of unity; counted by `variety` on 9 networks",
         conv_variety},
        {"quadratic-determinantal",
         "shallow quadratic networks x -> sum_i a_i (b_i.x)^2 with d0 inputs and d0 - 1 hidden units (d0 = 2, 3, 4) compute the quadratic forms "
         "of rank below d0, the symmetric determinant's hypersurface: dimension C(d0+1, 2) - 1 and degree d0, both proven by the image's "
         "equation (the determinant: 2, 5, 17 terms), with 2^(d0-1) weight settings per generic function once the a_i are fixed (the signs "
         "of the b_i); contrast: with d0 units, every quadratic form, degree 1",
         quadratic_determinantal},
        {"aronhold-quartic",
         "sums of three cubes of linear forms in three variables, x -> sum_{i<=3} a_i (b_i.x)^3 (a dense power network 3 -> 3 -> 1, r = 3), "
         "form the hypersurface of ternary cubics on which Aronhold's invariant S vanishes: dimension 9 in the 10-dimensional space of "
         "cubics, degree 4, an equation of 25 terms (S), found mod p and checked over Q by `variety`, and 3!*3^3 = 162 weight settings "
         "per generic function once the a_i are fixed (the units' order and cube roots of unity)",
         aronhold_quartic},
        {"sums-of-powers",
         "forms that are sums of k r-th powers of linear forms (x -> sum_{i<=k} a_i (b_i.x)^r, a dense power network), where they fill a "
         "hypersurface of the space of forms: binary forms of degree 2k with k = 2, 3, 4 (Sylvester: dimension 2k, degree k + 1, the "
         "catalecticant), ternary quartics with k = 5 (Alexander-Hirschowitz's exception: dimension 14, not 15; Clebsch: degree 6); "
         "`equation` proves each dimension (exact) and degree from the least equation, found mod p, checked over Q and irreducible",
         sums_of_powers},
        {"lightning-identifiable",
         "one layer of lightning (linear) self-attention, Henry-Marchetti-Kohn's identifiability on small cases (N = 2, 3; dx = 2; one head "
         "of dimension 2, two heads of dimension 1): the image has the expected dimension, parameters less the GL symmetries of (Q, K) and "
         "(V, O), so the generic fibre's continuous part is their orbit; with the gauge fixed, H! weight settings give each generic "
         "function, the permutations of the heads",
         lightning_identifiable},
        {"massarenti-mella",
         "Massarenti-Mella's exhaustive check of one-output power networks (widths 2..5, depth 2..4, exponents 2..5, networks with a layer "
         "without room left out as they leave them): no measured dimension exceeds the bound (expected_dimension, every run of layers capped), "
         "which never exceeds their expected dimension; the last levels measured defective are exactly the Alexander-Hirschowitz list's; "
         "every defective network is named with its reason (the bound, a defective level, or neither) by `seprank defects`",
         massarenti_mella},
    };
    return c;
}

}  // namespace seprank
