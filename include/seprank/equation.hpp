// seprank — the implicit equation of a network's image where that image is a
// hypersurface in its span (docs/equation.md).
//
// f's coefficients c_α(w) (one per monomial α of the inputs, as polynomials in the varied
// weights w) map the weights onto X, the network's neurovariety (variety.hpp). X lies in
// the affine span A of the image, of dimension ρ (the rank of the c_α's non-constant
// parts, exact over Q). A Jacobian rank n mod p proves dim X >= n; so where ρ = n, X = A;
// where ρ = n + 1, X is a hypersurface of A unless dim X = ρ, and a nonzero polynomial P
// in ρ of the coordinates with P(c(w)) = 0 identically proves dim X = n and
// deg X <= deg P. The least such P generates X's ideal in A (X is irreducible), so its
// degree is deg X.
//
// P is found by linear algebra mod 62-bit primes (the monomials of degree <= d in the
// coordinates, at random weights: a nullspace), lifted to Q by the Chinese remainder
// theorem and rational reconstruction, and checked over Q by composing it with the exact
// coefficients, which must give the zero polynomial. An empty nullspace mod p proves that
// no equation of degree <= d exists (a rational one would reduce to a nonzero vector in
// it). Past max_monomials the degree's monomials are split by their weight in the inputs
// (y_k weighs its monomial's exponents α_k; X's ideal is graded so where X is invariant
// under rescaling the inputs) and each part searched alone. The equation found is then
// factored over Q: X is irreducible and defined over Q, so the factor vanishing on X
// generates its ideal, and its degree is deg X whatever part or degree it came from.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/network.hpp"
#include "seprank/poly.hpp"
#include "seprank/record.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace seprank {

struct EquationOptions {
    // Degrees searched, min_degree..max_degree (checked: 1 <= min_degree <= max_degree <= 64).
    // A caller that knows deg X >= k (variety's degree_at_least) starts at k. Only where
    // FLINT's factorization gives up does the answer lean on it (least, below).
    long min_degree = 1;
    long max_degree = 16;
    // The largest nullspace searched: C(ρ + d, d) monomials of degree <= d (checked >= 1).
    long max_monomials = 2500;
    // The symbolic expansion of f in weights and inputs stops past this many terms in one
    // polynomial (checked >= 1): resource_limit, reported in `why`.
    long max_terms = 2000000;
    // Primes (62-bit) tried per degree before the lift is given up (checked 1..1000).
    long max_primes = 40;
    std::uint64_t seed = 1;
    // The search stops, and says so in why, once this many seconds have passed since the
    // call began (checked during the expansion and between nullspaces; checked > 0 and
    // finite).
    double max_seconds = 600;
};

// invalid_input naming the value for each range above. O(1).
void check_options(const EquationOptions& opt);

struct ImageEquation {
    long parameters = 0;       // P, the varied weights (variables t1..tP of the expansion)
    long monomials = -1;       // inputs' monomials α with a nonzero coefficient c_α
    long span_dimension = -1;  // ρ, exact: the dimension of the image's affine span (-1: not reached)
    // The x-monomials whose coefficients are the coordinates y1..yρ (a basis of the span:
    // every other coefficient is an affine function of them on X), e.g. "x1_1^2*x1_2".
    std::vector<std::string> coordinates;
    // The least degree of a nonzero polynomial vanishing on X: 1 where X fills its span
    // (ρ = n, no equation needed), else deg P; -1 where none was found (why says why).
    long degree = -1;
    // Every degree min_degree..searched_to was shown to hold no equation (certified by a
    // whole space's empty nullspace). min_degree − 1 where nothing was searched.
    long searched_to = -1;
    // P in y1..yρ with coprime integer coefficients, its leading term (degrevlex) positive;
    // checked: P(c(w)) is the zero polynomial over Q. Empty where degree is not >= 2.
    std::optional<QPoly> equation;
    // P generates X's ideal in the span, so degree = deg X: P is irreducible over Q (the
    // factor that vanishes on X of the equation found, FLINT's factorization), or every
    // lower degree from min_degree was certified empty. False: deg X <= degree only.
    bool least = false;
    bool irreducible = false;  // least by the factorization (P irreducible over Q)
    long primes_used = 0;      // 62-bit primes a nullspace was taken mod, over every graded part, degree and lift
    std::string why;           // why no equation (empty where degree >= 1)
    // why names a resource limit that stopped the search (the expansion's max_terms, the
    // memory limit, the time budget, a check over 1000·max_terms term products), not a
    // finding (no equation up to max_degree, a span too wide, a lift that failed)
    bool limited = false;
    double seconds = 0;
};

// The image's span and, where it is a hypersurface there, its least equation (above),
// given `dimension_at_least` = n, a proven lower bound on dim X (function_dimension's
// value). Refused (invalid_input): options out of range, n < 0, n above the span's
// dimension (not a lower bound). Everything else is reported in why, not thrown (every
// resource_limit inside, the matrices' memory among them, is caught there): why names the limit reached (the expansion's max_terms, a degree's
// graded parts all empty or over max_monomials, 2·10^6 monomials of one degree, the
// degrees), ρ > n + 1 (X is not a hypersurface of A unless dim X > n), or a lift that did
// not check. Cost: the expansion of f in P + N·dx
// variables (a forward pass with polynomials as scalars); the span: an exact
// fraction-free echelon form of the M × C coefficient matrix (C weight monomials), O(M·C·ρ),
// preceded past 4·10^6 entries by its rank mod p, which settles ρ > n + 1 alone; per degree d: K = C(ρ + d, d) monomials at K + 8 random
// points (evaluations of the ρ coefficients mod p) and one K-square nullspace mod p
// (O(K³)), repeated per prime of the lift; past max_monomials the same per graded part
// (Σ K_c³); the check: one composition of P with the ρ coefficients over Q, and FLINT's
// factorization of P with one composition per factor. Reports each graded part and each
// whole space searched to current_progress() (progress.hpp).
ImageEquation image_equation(const ValidSpec& spec, long dimension_at_least, const EquationOptions& opt = {});

// ρ alone, the dimension of the image's affine span, exact over Q (as image_equation
// computes it), where f's expansion in the weights and the inputs stays within max_terms
// terms and max_seconds (> 0) and its coefficient matrix has at most 4·10^6 entries; -1
// where it does not (nothing thrown for those limits). A rank mod p that reaches ρ is dim X
// (X lies in its span). Cost: image_equation's expansion and span, within those limits.
long image_span_dimension(const ValidSpec& spec, long max_terms, double max_seconds);

// Why e has no equation, as a label says it: e.why, where the dimension n is exact
// (dimension_exact) without the clause "unless dim X > n" that a span wider than n + 1
// adds (dim X = n: X is no hypersurface there). O(|why|).
std::string equation_why(const ImageEquation& e, bool dimension_exact);

// e's coordinates, their monomials ", "-separated in order: the records'
// equation_coordinates (this one's and variety_record's). O(ρ).
std::string coordinates_text(const ImageEquation& e);

// `seprank equation`: function_dimension (seed opt.seed, its other options the defaults)
// gives n, then image_equation(spec, n, opt). Where the equation is found (or X fills its
// span), dimension_answer's kind becomes exact and its failure bound 0; label says what is
// proven. Checks and cost as the two calls; function_dimension's limits (resource_limit)
// are thrown, as `dimension`'s.
struct EquationAnswer {
    RankAnswer dimension_answer;
    ImageEquation equation;
    std::string label;
    double seconds = 0;
};
EquationAnswer network_equation(const ValidSpec& spec, const EquationOptions& opt = {});

// The answer as `seprank equation` writes it and Python's equation() returns it:
// dimension, dimension_kind, dimension_failure_bound, parameters, monomials,
// span_dimension, degree (deg X where proven, else null), degree_at_most (an equation's
// degree where it is not shown to be the least, else as degree), equation_degree,
// searched_to, primes_used, stopped_by_limit (ImageEquation::limited: a resource limit, not
// a finding, ended the search), equation_coordinates (", "-separated) and equation (null
// where none), label, seconds. O(1) plus P's text.
Record equation_record(const EquationAnswer& a);

}  // namespace seprank
