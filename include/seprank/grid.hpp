// seprank — grid tensors on template vectors and their matricizations (docs/theory.md §2).
//
// T[j_1..j_N] = f(x^1 = t_{j_1}, …, x^N = t_{j_N}) for templates t_1..t_M (vectors of a
// token's variables: dx values, or r with an embedding). [[T]]_(A,B) puts T[j] at
//   row = 1 + Σ_t (j_{a_t} − 1) M^{|A|−t},  col = 1 + Σ_t (j_{b_t} − 1) M^{|B|−t}
// (a_1 < a_2 < …, b_1 < b_2 < …; 1-based as in docs/theory.md §2.3, 0-based in the matrix).
// Claim 7.1 (Levine et al.): rank [[T]] ≤ sep_(A,B)(f) for every template choice.
// Entries are exact (forward evaluation over Q); each row is scaled by the lcm of its
// denominators to give an integer matrix of the same rank. Cost: M^N evaluations;
// refused (resource_limit) above max_entries.
#pragma once

#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/rank.hpp"

#include <string>
#include <utility>
#include <vector>

namespace seprank {

using Templates = std::vector<std::vector<Rational>>;

// M templates with `per` integer entries uniform on [-range, range] from Rng(seed).
// Checked: m >= 1 and range >= 1 (invalid_input), 48·m·per bytes within
// default_max_memory() (resource_limit); per is not (per <= 0: empty vectors). O(m·per).
Templates random_templates(long m, long per, std::uint64_t seed, long range = 10);
// JSON: a list of vectors of integers or "p/q" strings, e.g. [[1,0],[0,"1/2"]]. Checked
// (invalid_input naming the JSON path): a non-empty list, each vector of `per` exact
// values (per < 0: of the first vector's length, at least 1, for a file checked without a
// network); the file as read_network reads one (limits.hpp). Linear in the file size.
Templates read_templates(const std::string& path, long per);

inline constexpr long kDefaultMaxGridEntries = 1L << 22;

// The shape of the grid tensor's matricization with m templates on `part`: M^|A| rows by
// M^|B| columns. resource_limit, before anything is built, when it has more than
// max_entries entries (naming M, N and the limit), and check_memory's when its matrix,
// about 40 bytes an entry, is over default_max_memory(). Precondition: m >= 1. O(N).
std::pair<long, long> grid_shape(long m, const ValidPartition& part, long max_entries = kDefaultMaxGridEntries);

// The matricization [[T]]_(A,B) of the grid tensor of the network's output. Checked
// (invalid_input): the network first (check_shapes), the partition's token count
// (part.tokens() == N, O(1)), the templates' lengths; the size as grid_shape checks it. A bare Partition is checked in full against net.spec.tokens
// at the call (partition.hpp), before the network. Cost: M^N exact evaluations (forward.hpp),
// rationals throughout, and the lcm of each row's denominators.
SparseZMat grid_matricization(const Network& net, const ValidPartition& part, const Templates& t,
                              long max_entries = kDefaultMaxGridEntries);
inline SparseZMat grid_matricization(const Network& net, const Partition& part, const Templates& t,
                                     long max_entries = kDefaultMaxGridEntries) {
    return grid_matricization(net, ValidPartition(part, net.spec.tokens), t, max_entries);
}

}  // namespace seprank
