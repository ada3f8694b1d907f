// The separation rank of an attention stack with your own exact weights, certified over
// Q, beside the generic rank of the same architecture (random weights, with its failure
// bound). Prints `key value` lines (the convention of tests/consumer_test.sh) for the
// answer at your weights; the generic rank goes to standard error as a comparison.
//
// Same network as `seprank rank --weights attention_weights.json`
// (examples/rank_own_weights.check): N = 3 tokens, dx = 2, L = 2, one head, weights
// with rational entries such as -5/2 — exact, never rounded.
#include <seprank/generic.hpp>
#include <seprank/separation.hpp>

#include <iostream>

namespace {

// The weights JSON format of docs/usage.md §1.5 (examples/attention_weights.json).
const char* const kWeights = R"({"family": "attention", "tokens": 3, "dim": 2, "heads": 1, "depth": 2,
 "layers": [
  {"heads": [{"Q": [[4, -2], [3, -3]], "K": [[1, -1], [3, 1]], "V": [["-5/2", -2], [4, 3]], "O": [[3, -4], [1, "1/3"]]}]},
  {"heads": [{"Q": [[-3, -4], [2, -1]], "K": [[1, -2], [-2, 0]], "V": [[-3, 5], [3, 1]], "O": [[-1, -1], [-2, "7/4"]]}]}
 ]})";

}  // namespace

int main() {
    try {
        const seprank::Network net = seprank::network_from_json(kWeights);
        const seprank::ValidPartition part = seprank::balanced_partition(net.spec.tokens);  // 1,2 | 3, checked once

        // Expand f exactly and rank its coefficient flattening over Q, with a certificate.
        const seprank::RankAnswer at_yours = seprank::separation_rank(net, part);
        std::cout << "rank " << at_yours.value << '\n'
                  << "certified " << (at_yours.certified() ? "true" : "false") << '\n'
                  << "terms " << at_yours.terms << '\n'
                  << "rows " << at_yours.rows << '\n'
                  << "cols " << at_yours.cols << '\n'
                  << "partition " << at_yours.partition << '\n';

        // The generic rank: the most any weights give, except with probability <= failure_bound.
        const seprank::RankAnswer generic = seprank::generic_rank(net.spec, part);
        std::cerr << "generic rank " << generic.value << " (" << generic.label() << ", failure bound "
                  << generic.failure_bound << "); at your weights " << at_yours.value << " (" << at_yours.label() << ")\n";
        return 0;
    } catch (const std::exception& e) {  // invalid_input, resource_limit, internal_error
        std::cerr << "rank_own_weights: " << e.what() << '\n';
        return 1;
    }
}
