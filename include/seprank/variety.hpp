// seprank — the image of a network's parameter map, its neurovariety: dimension, degree
// and the fibre of a weight slice, counted mod p (docs/variety.md).
//
// f's output coordinate (the scalar output, as `dimension` reads it) is a polynomial in the
// inputs whose coefficients are polynomials in the weights: w ↦ coefficients(f_w) maps
// the P varied weights to the space of polynomials, and the Zariski closure X of its image
// is the network's neurovariety, of dimension n (function_dimension).
//
// Degree. An affine slice S of the weights of dimension n (w = a + B·t, t in n unknowns)
// on which the map stays of rank n is mapped finitely onto X, each generic point of X with
// the same number k of preimages in S; a generic affine section L of X of codimension n
// holds deg X points. Hence
//     #{t : φ(a + B t) ∈ L} = deg X · k,   #{t : φ(a + B t) = φ(a + B t0)} = k
// for a generic t0, and deg X is their quotient. Both systems are polynomial in t, of
// degree D_w (the weight degree); they are built mod a 16-bit prime p by interpolating f at
// random input points and counted from a Gröbner basis (MathicGB). The gauge slice frees
// the weights of the Jacobian's pivot columns and fixes the others (a gauge fixing): its k
// counts the weight settings with those fixed that give one generic function. A generic
// slice (B random, generic_slice) has as k the degree of the generic fibre, a variety of
// dimension P − n; its equations are dense and its bases far costlier.
#pragma once

#include "seprank/answer.hpp"
#include "seprank/equation.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"
#include "seprank/record.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace seprank {

// Where the degree's section is counted (both give deg X; VarietyOptions::degree_slice).
enum class DegreeSlice {
    smallest_fibre,  // the gauge slice or the last-pivot slice, whichever has the smaller fibre
    gauge,           // the reference: always the gauge slice (its fibre keeps the discrete symmetries)
};

struct VarietyOptions {
    std::uint64_t seed = 1;
    long trials = 3;              // independent primes, slices and sections, 1..1000 (checked)
    long max_unknowns = 8;        // the largest dimension n solved for (checked >= 1)
    long max_interpolation = 20000;  // the largest C(n + D_w, n) interpolated (checked >= 1)
    bool generic_slice = false;   // also count on a generic slice: the fibre's degree k (costly)
    DegreeSlice degree_slice = DegreeSlice::smallest_fibre;
    int threads = default_threads();  // each trial's interpolation runs on this many threads (checked: 1..max_threads())
    // The image's equation (equation.hpp) is searched up to this many monomials (its
    // max_monomials; checked >= 0); 0 searches none.
    long max_equation_monomials = 2500;
};

// Checks every option (invalid_input naming the value): the ranges stated in
// VarietyOptions. O(1).
void check_options(const VarietyOptions& opt);

// One trial: its prime and its two counts (-1 where a system was not zero-dimensional).
struct VarietyTrial {
    std::uint64_t prime = 0;
    long dimension = -1;      // rank of the Jacobian mod p at the slice's random point
    long section_points = -1;  // generic slice (asked for): deg X · k
    long fibre_points = -1;    // generic slice: k
    long gauge_fibre_points = -1;    // the gauge slice's fibre: k_g
    std::vector<long> free_weights;  // the gauge slice's free weights (indices among the varied ones)
    long degree_section_points = -1, degree_fibre_points = -1;  // the degree slice: deg X · k_d, k_d
    // The degree slice's section, where every solution is simple (certified from the
    // quotient ring, up to kCertifyMaxPoints solutions): the number of distinct functions
    // among them, a lower bound on deg X that needs only dim X = n (docs/variety.md, "The
    // degree's lower bound"); -1 where not certified.
    long section_images = -1;
    std::string uncertified;  // why section_images is -1 (empty where it is not)
    // uncertified names the memory or time limit (limits.hpp; --max-memory, --max-time): the
    // certificate was not tried, nothing was found uncertain
    bool limited = false;
    std::vector<long> degree_free_weights;  // the degree slice's free weights
    std::vector<long> last_free_weights;    // the last-pivot slice's (counted on or not): the upper bound's other slice
};

// The largest section whose solutions are certified simple (its quotient's matrices take
// n·c² words).
inline constexpr long kCertifyMaxPoints = 4000;

struct VarietyAnswer {
    RankAnswer dimension_answer;  // function_dimension's (62-bit primes, its failure bound)
    long parameters = 0;   // P, the varied weights
    long dimension = -1;   // n = dim X (the largest Jacobian rank of the trials: a lower bound)
    long degree = -1;      // deg X, where every trial gave the same (else -1)
    // A lower bound on deg X that holds for certain when dim X = n: the largest
    // section_images of a trial with that n (-1: none certified). It fails only where the
    // dimension does: with probability at most degree_at_least_failure_bound, the
    // dimension's failure bound (0 when the dimension is exact).
    long degree_at_least = -1;
    double degree_at_least_failure_bound = 0;
    // An upper bound on deg X that holds for certain when dim X = n: Kushnirenko's bound
    // n!·vol(Newton polytope) on the section's solutions, on a slice that reaches X
    // (docs/variety.md, "The degree's upper bound"); -1 where the support or the volume
    // passed its limits. Where it equals degree_at_least, deg X is proven (given dim X = n).
    // Its failure bound is the dimension's, as degree_at_least's.
    long degree_at_most = -1;
    double degree_at_most_failure_bound = 0;
    long fibre_points = -1;  // k, the points of a generic slice's fibre (generic_slice; else -1)
    long fibre_dimension = -1;  // P − n
    // The gauge slice: the n weights of the Jacobian's pivot columns free, the other P − n
    // fixed at generic values (a gauge fixing). Its fibre count is the number of weight
    // settings with those weights fixed that give one generic function: 1 when the fixed
    // weights remove the continuous symmetries and nothing else is left, else the discrete
    // symmetries that survive (permutations of hidden units, signs, roots of unity).
    long gauge_fibre_points = -1;
    std::vector<long> free_weights;  // indices among the varied weights, weight_entries' order
    // Proven upper bounds on the two slices' fibres (given dim X = n): the slice's
    // Newton-polytope bound over degree_at_least, since deg X · k is at most the former and
    // deg X at least the latter; 1 proves the slice identifiable (one weight setting per
    // generic function). -1 where either is missing or the trials disagree.
    long gauge_fibre_at_most = -1, degree_fibre_at_most = -1;
    // The image's affine span and, where X is a hypersurface there, its least equation
    // (image_equation with n = dimension, degrees from degree_at_least, or 1, to two more,
    // and not past degree_at_most).
    // Where equation.degree >= 1 (an equation checked over Q, or X filling its span),
    // dim X = n is exact (dimension_answer's kind exact, failure bound 0) and deg X =
    // equation.degree is proven: degree_at_least and degree_at_most are set to it, their
    // failure bounds 0. Not searched (equation.why says so) with max_equation_monomials 0.
    ImageEquation equation;
    // The degree slice: the section is counted on the slice, of the gauge slice and the one
    // freeing the Jacobian's last pivot columns, with the smaller fibre k_d (its weights
    // and k_d); deg X = its section's points / k_d.
    std::vector<long> degree_free_weights;
    long degree_fibre_points = -1;
    bool agreed = false;   // every trial gave the same n (dimension_answer's), free weights and
                           // counts on both slices (and with generic_slice the same k, its
                           // section deg X times k)
    std::vector<VarietyTrial> trials;
    std::string label;     // how far the numbers are proven (docs/variety.md, "Labels")
    double seconds = 0;
};

// The image's dimension, degree and slice fibre of `spec`'s scalar output (above). First
// function_dimension (seed opt.seed, its other options the defaults); then each trial, one
// after another, draws a 16-bit prime, the weights a, t0, the section and the input
// points; the answer is the trials' common value. Refused (invalid_input): options out of
// range; (resource_limit) n over max_unknowns or C(n + D_w, n) over max_interpolation,
// naming it. Each trial then certifies its degree section (section_images) when it has at
// most kCertifyMaxPoints solutions. Cost: function_dimension's, then per trial and slice (the gauge slice, the
// last-pivot slice unless it is the same or degree_slice is gauge, and the generic one
// when asked): C(n + D_w, n)·(M + 8) forward passes mod p (M the output's monomials) and
// an O(n·C(n + D_w, n)·D_w·(M + 8)) interpolation, both on opt.threads threads; a Gröbner
// basis in n unknowns for each fibre and for one section (one at a time in the process);
// the certificate: the section's quotient (O(n·c³) at worst, c its solutions, n·c² words)
// and O(c³) more (quotient.hpp).
VarietyAnswer network_variety(const ValidSpec& spec, const VarietyOptions& opt = {});

// The answer as `seprank variety` writes it and Python's variety() returns it: dimension,
// dimension_kind, dimension_failure_bound, degree (null unless agreed), degree_kind (what
// degree is: "proven" where degree_at_least = degree_at_most = degree with failure bounds
// 0, "proven given the dimension" where they meet it with the dimension's failure bound,
// else "counted"; null with degree), degree_at_least
// and degree_at_least_failure_bound (null where no trial certified), degree_at_most and
// degree_at_most_failure_bound (null where not computed), span_dimension and
// equation_degree (null where not found), parameters, fibre_dimension,
// gauge_fibre_points and gauge_fibre_at_most (null unless agreed; the bound also where
// not computed), free_weights, degree_fibre_points and degree_fibre_at_most (likewise),
// degree_free_weights, agreed, primes and
// section_points and section_images (per trial; the degree slice's, -1 where not counted
// or certified), with generic_slice also fibre_points,
// generic_section_points and generic_fibre_points (per trial), then equation_coordinates
// (the monomials whose coefficients are y1..yρ, ", "-separated; null without an equation)
// and equation (P's text in y1..yρ, or null), label and seconds. O(T) plus P's text.
Record variety_record(const VarietyAnswer& v, bool generic_slice);

}  // namespace seprank
