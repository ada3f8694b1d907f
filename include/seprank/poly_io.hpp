// seprank — polynomial text I/O.
//
// Grammar (whitespace between tokens is ignored):
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := ('+' | '-')* power
//   power   := primary ('^' exponent)?
//   primary := integer | variable | '(' expr ')'
//   exponent:= decimal integer in [0, max_exponent]
// A rational constant is written as a quotient, e.g. 3/4*x1_2^3*x2_1 - x1_1 + 2.
// Division is allowed only by a non-zero constant. Variables must belong to the
// context. Every error throws seprank::invalid_input (resource_limit for a power whose
// result would be too large) whose message gives the 1-based character position and
// the offending token; nothing reaches a FLINT abort.
//
// to_string writes the canonical form (terms in degrevlex order, leading term first)
// that parse_poly reads back to an equal polynomial: parse(to_string(f)) == f.
#pragma once

#include "seprank/poly.hpp"

#include <string>
#include <string_view>

namespace seprank {

struct ParseLimits {
    // Largest exponent after '^'.
    std::uint64_t max_exponent = 1'000'000;
    // Largest exponent applied to a base with more than one term (the result grows
    // like terms^exponent); above it parsing stops with resource_limit.
    std::uint64_t max_power_of_sum = 1'000;
    // Deepest nesting of parentheses; deeper input is invalid_input (the parser
    // recurses once per open parenthesis and nowhere else, so the stack stays bounded).
    std::size_t max_depth = 256;
    // Largest number of terms a product or a power may produce, bounded before it is
    // formed: t1·t2 for a product, C(t+e−1, e) for a t-term base to the power e (also
    // the total degree of a power is bounded by max_exponent). Over it: resource_limit.
    std::uint64_t max_terms = 10'000'000;
};

// The polynomial `text` denotes, in the variables of ctx (the grammar above).
// Preconditions (checked): ctx not null; every identifier a variable of ctx; the
// limits above (invalid_input, or resource_limit for a result over max_terms; errors
// name the 1-based position and the token). Cost: one pass over the text (recursion depth
// at most max_depth) plus FLINT's arithmetic on the intermediate polynomials, whose terms
// the limits bound before each product or power is formed.
QPoly parse_poly(std::string_view text, const std::shared_ptr<const QContext>& ctx, const ParseLimits& limits = {});

// The variables a text uses: every identifier in it, deduplicated, ordered by
// (token, coordinate, name) so that x2_1 < x10_1 and token variables come grouped.
// Does not validate the rest of the text (parse_poly does): no preconditions.
// O(len · log len) (a scan, then sorting the names).
Variables variables_in(std::string_view text);

// The canonical text of f (above); no preconditions. O(terms · nvars) plus the digits
// of the coefficients, which are estimated first: past a million bits in all, their
// memory (about 1.3 bytes a bit) over default_max_memory() or their time (about
// 1.5·10^-7 s a bit) over default_max_seconds() is resource_limit (limits.hpp); so is the
// whole text, counted before it is built (the monomials exactly, the coefficients at most),
// when twice its length (the text and the caller's copy to print it) is over
// default_max_memory().
std::string to_string(const QPoly& f);
// Coefficients are printed as their representatives in [0, p). Cost as above.
std::string to_string(const NmodPoly& f);

}  // namespace seprank
