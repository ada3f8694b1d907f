#include "seprank/partition.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/integer.hpp"

#include <algorithm>
#include <functional>

namespace seprank {

namespace {

// The bytes a partition takes per token in a command that reads, checks and prints one:
// its sides (8), the check's marks (4), sorted copies, and its text (about 9 bytes a
// token, built and printed); measured 58 bytes a token at 50 million tokens (rank --poly
// on x1_1*x50000000_1), which the old 16 had let pass 1 GiB at 2.98 GB.
constexpr double kPartitionBytesPerToken = 64.0;

}  // namespace

std::vector<std::string> split_at(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = text.find(sep, start);
        out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

void for_each_item(const std::string& text, const std::string& option, const std::function<void(const std::string&)>& f) {
    const std::vector<std::string> items = split_at(text, ',');
    for (std::size_t i = 0; i < items.size(); ++i) {
        // An empty item ("2,,1", ",2", "2,") is refused, never dropped: for a list of
        // widths a dropped item changes the architecture.
        if (items[i].find_first_not_of(" \t\r\n") == std::string::npos) {
            const char* where = text.find_first_not_of(" \t\r\n") == std::string::npos ? "an empty list"
                                : i == 0                                                  ? "an empty item before the first comma"
                                : i + 1 == items.size()                                   ? "an empty item after the last comma"
                                                                                          : "an empty item between two commas";
            throw invalid_input(option + " '" + text + "': " + where);
        }
        f(items[i]);
    }
}

std::vector<long> parse_list(const std::string& text, const std::string& option) {
    std::vector<long> out;
    auto num = [&](std::string t) {
        // Blanks around a number are allowed (' 1, 2 | 3 '), as a reader would write them.
        const std::size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
        t = b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
        if (t.empty() || t.find_first_not_of("-0123456789") != std::string::npos || t.find('-', 1) != std::string::npos ||
            t.find_first_of("0123456789") == std::string::npos)  // "-" alone (found by the fuzzer)
            throw invalid_input(option + " '" + text + "': '" + t + "' is not an integer");
        if (t.size() > 12) throw invalid_input(option + " '" + text + "': '" + t + "' is too long (at most 12 characters)");
        return std::stol(t);
    };
    for_each_item(text, option, [&](const std::string& item) {
        const std::size_t dots = item.find("..");
        if (dots == std::string::npos) {
            out.push_back(num(item));
        } else {
            const long lo = num(item.substr(0, dots)), hi = num(item.substr(dots + 2));
            if (lo > hi) throw invalid_input(option + " '" + text + "': empty range '" + item + "'");
            if (hi - lo > 10000) throw invalid_input(option + " '" + text + "': range '" + item + "' is too long");
            // the items so far, before they are made: a text of many ranges is short
            check_memory(kPartitionBytesPerToken * static_cast<double>(out.size() + static_cast<std::size_t>(hi - lo + 1)), default_max_memory(),
                         (option.size() > 60 ? option.substr(0, 60) + "..." : option) + " (" +
                             std::to_string(out.size() + static_cast<std::size_t>(hi - lo + 1)) + " items so far)");
            for (long k = lo; k <= hi; ++k) out.push_back(k);
        }
    });
    return out;
}

namespace {

std::vector<long> parse_side(const std::string& side, const std::string& whole) {
    std::vector<long> out = parse_list(side, "partition '" + whole + "' side");
    std::sort(out.begin(), out.end());
    return out;
}

// The one check of a partition (messages: partition.hpp), run only by the ValidPartition
// constructor below. The text of p is built only for a message.
void validate(const Partition& p, long n) {
    const auto bad = [&p](const std::string& what) { return invalid_input("partition '" + to_string(p) + "': " + what); };
    if (p.A.empty() || p.B.empty()) throw bad("both sides must be non-empty");
    check_memory(kPartitionBytesPerToken * static_cast<double>(n), default_max_memory(), "a partition of " + std::to_string(n) + " tokens");
    std::vector<int> seen(static_cast<std::size_t>(std::max(n, 0L)) + 1, 0);  // n < 1: every position is out of range
    for (const auto* side : {&p.A, &p.B})
        for (long j : *side) {
            if (j < 1 || j > n) throw bad("token " + std::to_string(j) + " outside 1.." + std::to_string(n));
            if (seen[static_cast<std::size_t>(j)]++) throw bad("token " + std::to_string(j) + " appears twice");
        }
    for (long j = 1; j <= n; ++j)
        if (!seen[static_cast<std::size_t>(j)]) throw bad("token " + std::to_string(j) + " is on neither side");
}

}  // namespace

ValidPartition::ValidPartition(Partition p, long n) : p_(std::move(p)), n_(n) {
    validate(p_, n_);
    std::sort(p_.A.begin(), p_.A.end());
    std::sort(p_.B.begin(), p_.B.end());
}

void ValidPartition::check_tokens(long n_tokens) const {
    if (n_ != n_tokens)
        throw invalid_input("partition '" + to_string(p_) + "' covers tokens 1.." + std::to_string(n_) + ", expected 1.." +
                            std::to_string(n_tokens));
}

ValidPartition parse_partition(const std::string& text, long n) {
    const std::size_t bar = text.find('|');
    if (bar == std::string::npos || text.find('|', bar + 1) != std::string::npos)
        throw invalid_input("partition '" + text + "': expected exactly one '|', as in 1,2|3,4");
    const Partition p{parse_side(text.substr(0, bar), text), parse_side(text.substr(bar + 1), text)};
    try {
        return ValidPartition(p, n);
    } catch (const invalid_input& e) {  // named as typed, not in the sorted form validate shows
        const std::string m = e.what(), sorted = "partition '" + to_string(p) + "': ";
        if (m.rfind(sorted, 0) != 0) throw;
        throw invalid_input("partition '" + text + "': " + m.substr(sorted.size()));
    }
}

ValidPartition parse_partition_listed(const std::string& text) {
    // N is counted from the sides parse_partition then reads again: the text is short.
    const std::size_t bar = text.find('|');
    long n = 0;
    if (bar != std::string::npos && text.find('|', bar + 1) == std::string::npos)
        for (const std::string& side : {text.substr(0, bar), text.substr(bar + 1)})
            if (side.find_first_not_of(" \t\r\n") != std::string::npos) n += static_cast<long>(parse_side(side, text).size());
    try {
        return parse_partition(text, std::max(n, 1L));
    } catch (const invalid_input& e) {  // a position outside 1..N or missing: say where N came from
        const std::string m = e.what();
        if (m.find(" outside 1..") == std::string::npos && m.find("on neither side") == std::string::npos) throw;
        throw invalid_input(m + " (N = " + std::to_string(n) + ", the positions it lists, which must be 1..N)");
    }
}

std::string to_string(const Partition& p) {
    std::string s;
    for (std::size_t k = 0; k < p.A.size(); ++k) s += (k ? "," : "") + std::to_string(p.A[k]);
    s += "|";
    for (std::size_t k = 0; k < p.B.size(); ++k) s += (k ? "," : "") + std::to_string(p.B[k]);
    return s;
}

namespace {

// The partition 1..half | half+1..n, n >= 2 and its memory checked first (invalid_input,
// resource_limit): both builders below.
ValidPartition prefix_partition(long n, long half) {
    if (n < 2) throw invalid_input("a partition needs at least 2 tokens, have " + std::to_string(n));
    check_memory(kPartitionBytesPerToken * static_cast<double>(n), default_max_memory(), "a partition of " + std::to_string(n) + " tokens");
    Partition p;
    for (long j = 1; j <= n; ++j) (j <= half ? p.A : p.B).push_back(j);
    return ValidPartition(std::move(p), n);
}

}  // namespace

ValidPartition first_vs_rest_partition(long n) { return prefix_partition(n, 1); }

ValidPartition balanced_partition(long n) { return prefix_partition(n, (n + 1) / 2); }

std::vector<ValidPartition> balanced_partitions_with(long n, long position) {
    if (n < 2) throw invalid_input("a partition needs at least 2 tokens, have " + std::to_string(n));
    if (position < 1 || position > n) throw invalid_input("position " + std::to_string(position) + " outside 1.." + std::to_string(n));
    if (n > 24) throw invalid_input("too many balanced partitions to list for N = " + std::to_string(n));
    const long half = (n + 1) / 2;
    std::vector<ValidPartition> out;
    for (unsigned long mask = 0; mask < (1UL << n); ++mask) {
        if (!(mask >> (position - 1) & 1UL) || __builtin_popcountl(mask) != half) continue;
        Partition p;
        for (long j = 1; j <= n; ++j) ((mask >> (j - 1) & 1UL) ? p.A : p.B).push_back(j);
        out.emplace_back(std::move(p), n);
    }
    std::sort(out.begin(), out.end(), [](const ValidPartition& x, const ValidPartition& y) { return x->A < y->A; });
    return out;
}

std::vector<int> token_sides(const ValidPartition& p, long n) {
    p.check_tokens(n);
    std::vector<int> side(static_cast<std::size_t>(n), 0);
    for (long j : p->B) side[static_cast<std::size_t>(j - 1)] = 1;
    return side;
}

}  // namespace seprank
