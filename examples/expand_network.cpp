// Expands a small random attention network into its exact polynomial and prints the
// polynomial's degree and number of terms and the network's parameter count, one
// `key value` line each (the convention of tests/consumer_test.sh).
//
// Same network as `seprank expand --tokens 4 --dim 2 --depth 2 --seed 1`
// (examples/expand_network.check): N = 4 tokens of dimension dx = 2, L = 2 attention
// layers with one head, integer weights uniform on [-5, 5] from seed 1.
#include <seprank/expand.hpp>
#include <seprank/network.hpp>

#include <iostream>

int main() {
    seprank::NetworkSpec spec;
    spec.family = seprank::Family::attention;
    spec.tokens = 4;
    spec.dim = 2;
    spec.depth = 2;

    const seprank::Network net = seprank::random_network(spec, 1);
    const seprank::QPoly f = seprank::expand(net);

    std::cout << "degree " << f.degree() << '\n'
              << "terms " << f.terms() << '\n'
              << "parameters " << seprank::parameter_count(spec) << '\n';
    return 0;
}
