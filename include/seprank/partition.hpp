// seprank — partitions (A, B) of the token positions {1..N} (docs/theory.md §2).
//
// Text form "1,2|3,4"; each side is a comma list of positions or inclusive ranges
// "1..3". Checked: both sides non-empty, disjoint, covering 1..N, positions in range
// (invalid_input naming the bad value). Sides are kept sorted.
//
// A Partition is an open aggregate; a ValidPartition is one that passed the check, made
// once (by its constructor, parse_partition or balanced_partition) and passed inward
// unchecked, as a ValidSpec is for a network description (network.hpp). The public
// functions that take a partition together with a network, a spec or a token count take
// `const ValidPartition&` and check only that its N is theirs (O(1)); each has an
// overload for a bare `const Partition&` that makes the ValidPartition at the call
// (the full check, O(N)) and goes on as the first.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace seprank {

// "2,3", "1..4", "1..3,6": integers and inclusive ranges, in the order given, blanks
// around each number allowed; invalid_input naming `option` and the bad item (an empty
// item — "2,,1", a comma at either end — an empty range '3..1', one of more than 10,001
// values, a number of more than 12 characters). Used for partition sides, the sweep lists
// of `seprank table` and `--widths`. O(length of the text +
// values listed), a range contributing its values.
std::vector<long> parse_list(const std::string& text, const std::string& option);
// f(item) for each item of a comma-separated list, in order, each as written; an empty or
// blank item (or list) is invalid_input naming `option`, the text and where ("an empty
// item after the last comma"), when it is reached. parse_list reads its items through it.
// O(length of the text) plus f's calls.
void for_each_item(const std::string& text, const std::string& option, const std::function<void(const std::string&)>& f);
// The pieces of `text` between the separators `sep`, in order, each as written and empty
// ones kept ("a,,b" → "a", "", "b"; "" → one empty piece): for lists whose empty items have
// a meaning or a message of their own (the layer SPEC, guess's --vars). O(length of the text).
std::vector<std::string> split_at(const std::string& text, char sep);

// Unchecked: any two lists. A ValidPartition's sides are sorted.
struct Partition {
    std::vector<long> A, B;  // 1-based positions
};

// "1,2|3,4": side A, '|', side B, in the order stored (no check; for messages and answers).
// O(|A| + |B|).
std::string to_string(const Partition& p);

// A Partition of the tokens 1..N that passed the check: both sides non-empty, every
// position of 1..N on exactly one side. Read-only: get(), ->, or the conversion to
// `const Partition&`; tokens() is its N. To change a side, copy get(), edit and construct
// again (which checks the new partition).
class ValidPartition {
public:
    // Checks p against n_tokens: invalid_input "partition 'A|B': ..." naming the first
    // problem (a side empty; a position outside 1..N, given twice, or on neither side;
    // in that order, positions A then B as given), resource_limit when N tokens exceed
    // the memory budget (limits.hpp). Then sorts both sides. Cost O(N + |A| log |A| +
    // |B| log |B|).
    ValidPartition(Partition p, long n_tokens);
    // Copies only: a move copies too, so an object moved from still holds its checked
    // partition (a moved-from one had empty sides and kept N, and was ranked as "|"). O(N).
    ValidPartition(const ValidPartition&) = default;
    ValidPartition& operator=(const ValidPartition&) = default;
    ~ValidPartition() = default;
    // Read access and N. O(1).
    const Partition& get() const noexcept { return p_; }
    operator const Partition&() const noexcept { return p_; }  // NOLINT(google-explicit-constructor): read access, as ValidSpec
    const Partition* operator->() const noexcept { return &p_; }
    long tokens() const noexcept { return n_; }
    // The O(1) check at a public entry: invalid_input "partition 'A|B' covers tokens
    // 1..N, expected 1..n_tokens" unless N == n_tokens.
    void check_tokens(long n_tokens) const;

private:
    Partition p_;
    long n_;
};

// Parses the text form (sides sorted) and checks it against n_tokens: invalid_input naming
// the bad item (no single '|', a side that is not a list, then the checks above).
// O(len(text) + N log N).
ValidPartition parse_partition(const std::string& text, long n_tokens);
// The same with N = the number of positions the text lists (a text that lists 1,2|4 has
// N = 3, so 4 is out of range): for an object whose token count is the partition's own, as
// a given polynomial's (flatten.hpp). A position outside 1..N or missing adds where N came
// from to parse_partition's message ("(N = 3, the positions it lists, which must be
// 1..N)"). O(len(text) + N log N).
ValidPartition parse_partition_listed(const std::string& text);
// 1..⌈N/2⌉ | ⌈N/2⌉+1..N. N >= 2 checked (invalid_input). O(N).
ValidPartition balanced_partition(long n_tokens);
// 1 | 2..N (a text list 2..N would pass parse_list's range limit past N = 10,001). Checked
// as balanced_partition (N >= 2, the memory). O(N).
ValidPartition first_vs_rest_partition(long n_tokens);
// Every partition with |A| = ⌈N/2⌉ and `position` on side A, in lexicographic order of A.
// 2 <= N <= 24 and 1 <= position <= N checked (invalid_input). O(2^N · N).
std::vector<ValidPartition> balanced_partitions_with(long n_tokens, long position);
// side[j-1] = 0 for j in A, 1 for j in B. Checks part.tokens() == n_tokens (O(1)); O(N).
std::vector<int> token_sides(const ValidPartition& part, long n_tokens);
// The same for a bare partition, checked against n_tokens first (O(N)).
inline std::vector<int> token_sides(const Partition& part, long n_tokens) { return token_sides(ValidPartition(part, n_tokens), n_tokens); }

}  // namespace seprank
