// seprank — partitions (A, B) of the token positions {1..N} (docs/theory.md §2).
//
// Text form "1,2|3,4"; each side is a comma list of positions or inclusive ranges
// "1..3". Checked: both sides non-empty, disjoint, covering 1..N, positions in range
// (invalid_input naming the bad value). Sides are kept sorted.
#pragma once

#include <string>
#include <vector>

namespace seprank {

// "2,3", "1..4", "1..3,6": integers and inclusive ranges, in the order given;
// invalid_input naming `option` and the bad item. Used for partition sides and for
// the sweep lists of `seprank table`.
std::vector<long> parse_list(const std::string& text, const std::string& option);

struct Partition {
    std::vector<long> A, B;  // 1-based positions, sorted
};

Partition parse_partition(const std::string& text, long n_tokens);
void validate(const Partition& p, long n_tokens);
std::string to_string(const Partition& p);
// 1..⌈N/2⌉ | ⌈N/2⌉+1..N. N >= 2 checked.
Partition balanced_partition(long n_tokens);
// Every partition with |A| = ⌈N/2⌉ and `position` on side A, in lexicographic order of A.
std::vector<Partition> balanced_partitions_with(long n_tokens, long position);
// side[j-1] = 0 for j in A, 1 for j in B.
std::vector<int> token_sides(const Partition& p, long n_tokens);

}  // namespace seprank
