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
// Every message names the offending value.
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

}  // namespace seprank
