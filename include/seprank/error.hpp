// seprank — error hierarchy.
//
// Three kinds of failure, each deriving from a standard exception so that callers
// who do not know seprank can still catch them:
//   invalid_input   bad user input (a malformed polynomial, a bad option value,
//                   a weights file of the wrong shape). The CLI exits with code 2.
//   domain_error    a well-formed request that has no answer (a denominator that
//                   vanishes mod p, an evaluation outside a ring). Exit code 2.
//   resource_limit  a request whose estimated cost exceeds a stated limit
//                   (memory, exponent size). Exit code 3.
//   internal_error  a broken invariant inside the library (a bug, never the caller's
//                   input). Exit code 1.
// Every message names the offending value and the API parameter it was given as (e.g.
// "EvaluationOptions::max_side"), never a command-line flag: the CLI adds its flags.
// No library function prints or exits.
#pragma once

#include <stdexcept>
#include <string>

namespace seprank {

struct invalid_input : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct domain_error : std::domain_error {
    using std::domain_error::domain_error;
};

struct resource_limit : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct internal_error : std::logic_error {
    using std::logic_error::logic_error;
};

}  // namespace seprank
