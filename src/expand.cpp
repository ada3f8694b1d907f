#include "seprank/expand.hpp"

#include "forward_impl.hpp"
#include "rings_impl.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <cmath>
#include <sstream>

namespace seprank {

Variables network_variables(const NetworkSpec& s) {
    validate(s);
    return Variables::tokens(s.tokens, input_vars_per_token(s), s.embed_rank > 0 ? "w" : "x");
}

ExpansionEstimate estimate_expansion(const NetworkSpec& s) {
    validate(s);
    const long n = s.tokens * input_vars_per_token(s);
    const Integer D = output_degree(s);
    Integer terms;
    // C(n + D - 1, n - 1) monomials of degree exactly D; C(n + D, n) of degree <= D.
    Integer top = D + Integer(s.residual ? n : n - 1);
    if (fmpz_fits_si(top.get())) {
        fmpz_bin_uiui(terms.get(), fmpz_get_ui(top.get()), static_cast<ulong>(s.residual ? n : n - 1));
    } else {
        fmpz_set_ui(terms.get(), 1);
        fmpz_mul_2exp(terms.get(), terms.get(), 4096);  // astronomically large
    }
    // Packed exponents: about log2(D)+1 bits per variable, whole words per term; the
    // coefficient: one fmpz word plus (for large values) a two-limb mpz on the heap.
    const double bits = std::max(8.0, std::ceil(std::log2(fmpz_get_d(D.get()) + 1.0)) + 1.0);
    const double words = std::ceil(static_cast<double>(n) * bits / 64.0);
    const double per_term = 8.0 * words + 8.0 + 32.0;
    return {terms, 4.0 * fmpz_get_d(terms.get()) * per_term};
}

namespace {

void check_estimate(const NetworkSpec& s, const ExpandOptions& opt) {
    if (opt.max_memory != 0) check_memory_value(opt.max_memory, "ExpandOptions::max_memory");
    const double limit = opt.max_memory > 0 ? opt.max_memory : default_max_memory();
    const ExpansionEstimate e = estimate_expansion(s);
    if (!(e.bytes <= limit)) {
        std::ostringstream msg;
        msg.precision(3);
        msg << "expansion refused: up to " << e.max_terms.str() << " terms, about " << e.bytes / (1024.0 * 1024 * 1024)
            << " GiB estimated, over the limit of " << limit / (1024.0 * 1024 * 1024)
            << " GiB (ExpandOptions::max_memory); use the evaluation method (Method::evaluation), which never expands";
        throw resource_limit(msg.str());
    }
}

template <class Ring>
typename Ring::E run(const NetworkSpec& s, const NetWeights<typename Ring::W>& w, Ring& ring) {
    const long per = input_vars_per_token(s);
    std::vector<std::vector<typename Ring::E>> inputs(static_cast<std::size_t>(s.tokens));
    for (long j = 0; j < s.tokens; ++j)
        for (long c = 0; c < per; ++c)
            inputs[static_cast<std::size_t>(j)].push_back(
                Ring::E::variable(ring.ctx, static_cast<std::size_t>(j * per + c)));
    return detail::Forward<Ring>(s, w, ring).output(inputs);
}

}  // namespace

QPoly expand(const Network& net, const ExpandOptions& opt) {
    check_shapes(net);
    check_estimate(net.spec, opt);
    detail::QPolyRing ring{QContext::make(network_variables(net.spec))};
    return run(net.spec, net.weights, ring);
}

NmodPoly expand_mod(const Network& net, std::uint64_t p, const ExpandOptions& opt) {
    check_shapes(net);
    if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
    check_estimate(net.spec, opt);
    const auto w = map_weights<std::uint64_t>(net.weights, [p](const Rational& x) { return x.mod(p); });
    detail::NmodPolyRing ring{NmodContext::make(network_variables(net.spec), p)};
    return run(net.spec, w, ring);
}

}  // namespace seprank
