// guess_blocks — the law of a block table's degree blocks (guess_blocks.hpp,
// docs/guess_blocks.md).
#include "seprank/guess_blocks.hpp"

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "guess_internal.hpp"
#include "base/count_text.hpp"
#include "base/saturating.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <system_error>

namespace seprank {

namespace {

constexpr long kHuge = 1L << 62;  // saturation: a value this large explains no rank

// C(n, r) for 0 ≤ r, saturating at kHuge; n < r gives 0; false when n < 0 or r < 0.
bool binom(long n, long r, long& out) {
    if (n < 0 || r < 0) return false;
    out = detail::binomial_saturated(n, r, kHuge);
    return true;
}

long dot(const std::vector<long>& c, const std::vector<long>& x) {
    long s = 0;
    for (std::size_t v = 0; v < c.size(); ++v) s += c[v] * x[v];
    return s;
}

// "k + dim - 1", "2*j - depth + 3", "dim - 1", "0".
std::string linear(const std::string& index, long alpha, const std::vector<long>& c, long c0, const std::vector<std::string>& vars) {
    std::string s;
    const auto term = [&](long coef, const std::string& name) {
        if (coef == 0) return;
        const long mag = coef < 0 ? -coef : coef;
        const std::string body = (mag == 1 ? std::string() : std::to_string(mag) + "*") + name;
        s += s.empty() ? (coef < 0 ? "-" + body : body) : (coef < 0 ? " - " + body : " + " + body);
    };
    if (!index.empty()) term(alpha, index);
    for (std::size_t v = 0; v < c.size(); ++v) term(c[v], vars[v]);
    if (c0 != 0 || s.empty()) {
        const long mag = c0 < 0 ? -c0 : c0;
        s += s.empty() ? std::to_string(c0) : (c0 < 0 ? " - " : " + ") + std::to_string(mag);
    }
    return s;
}

// A block, cap or rank cell: a count (detail::count_text_error), else one line naming it.
long cell_of(const TableRow& row, const char* name, std::size_t lineno) {
    const std::string* c = table_cell(row, name);
    if (!c) throw invalid_input(std::string("guess --blocks: the table has no column '") + name + "' (a block table: seprank table --blocks)");
    long v = 0;
    if (const char* why = detail::count_text_error(*c, &v))
        throw invalid_input("guess --blocks: row " + std::to_string(lineno) + ": column '" + name + "' = '" + detail::cut(*c) + "' " + why);
    return v;
}

// A row's partition cell, checked: a partition of the row's tokens (column tokens where
// the table has it; else N = the positions it lists). invalid_input naming the row
// (`lineno`, from 1) and the cell otherwise. Precondition: the cell is not empty.
ValidPartition row_partition(const TableRow& row, std::size_t lineno) {
    const std::string& text = *table_cell(row, "partition");
    const std::string* n = table_cell(row, "tokens");
    const long tokens = n && !n->empty() ? cell_of(row, "tokens", lineno) : 0;
    try {
        return tokens > 0 ? parse_partition(text, tokens) : parse_partition_listed(text);
    } catch (const invalid_input& e) {
        throw invalid_input("guess --blocks: row " + std::to_string(lineno) + ": column 'partition': " + e.what());
    }
}

const char* const kKeyColumns[] = {"family", "layers", "tokens", "dim", "heads", "block_degree", "width", "depth", "residual",
                                   "embed_rank", "head_dim", "attention_rank", "position", "partition"};

// Every term of the search (guess_blocks.hpp), simplest first: lines, single binomials,
// binomials of binomials, products of two.
std::vector<BlockTerm> all_terms(std::size_t nv) {
    std::vector<std::vector<long>> bits = {std::vector<long>(nv, 0)};  // 0, or one variable with coefficient 1
    for (std::size_t v = 0; v < nv; ++v) {
        bits.emplace_back(nv, 0);
        bits.back()[v] = 1;
    }
    std::vector<std::vector<long>> small;  // every vector in −2..2
    std::size_t count = 1;
    for (std::size_t v = 0; v < nv; ++v) count *= 5;
    for (std::size_t m = 0; m < count; ++m) {
        std::vector<long> b(nv);
        std::size_t r = m;
        for (std::size_t v = 0; v < nv; ++v, r /= 5) b[v] = static_cast<long>(r % 5) - 2;
        small.push_back(b);
    }
    std::vector<BlockTerm::Factor> plain;
    for (const auto& bt : bits)
        for (long g = -2; g <= 2; ++g)
            for (const auto& bb : bits)
                for (long e = -1; e <= 2; ++e) plain.push_back({bt, bb, g, e});
    std::vector<BlockTerm> out;
    for (int index = 0; index < 2; ++index) {
        for (long a = 1; a <= 4; ++a)
            for (const auto& c : small)
                for (long g = -4; g <= 4; ++g) {
                    BlockTerm t;
                    t.kind = 'l';
                    t.index = index;
                    t.alpha = a;
                    t.factors = {{c, std::vector<long>(nv, 0), g, 0}};
                    out.push_back(t);
                }
        for (const auto& f : plain) {
            BlockTerm t;
            t.kind = 'b';
            t.index = index;
            t.factors = {f};
            out.push_back(t);
        }
        for (long z = 0; z <= 1; ++z)
            for (const auto& f : plain) {
                BlockTerm t;
                t.kind = 'n';
                t.index = index;
                t.factors = {f};
                t.outer_add = z;
                out.push_back(t);
            }
        for (std::size_t p = 0; p < plain.size(); ++p)
            for (std::size_t q = p; q < plain.size(); ++q) {
                BlockTerm t;
                t.kind = 'p';
                t.index = index;
                t.factors = {plain[p], plain[q]};
                out.push_back(t);
            }
    }
    return out;
}

}  // namespace

void check_options(const BlockLawOptions& opt) {
    if (opt.vars.size() > 3) throw invalid_input("guess --blocks: " + std::to_string(opt.vars.size()) + " variables (at most 3)");
    for (std::size_t i = 0; i < opt.vars.size(); ++i) {
        if (opt.vars[i].empty()) throw invalid_input("guess --blocks: an empty variable name");
        for (const char* c : {"block", "blocks", "rank", "cap_a", "cap_b", "total", "k", "j"})
            if (opt.vars[i] == c) throw invalid_input("guess --blocks: '" + opt.vars[i] + "' is a block column or index, not a configuration variable");
        for (std::size_t k = 0; k < i; ++k)
            if (opt.vars[k] == opt.vars[i]) throw invalid_input("guess --blocks: variable '" + opt.vars[i] + "' given twice");
    }
    if (opt.max_forms < 1 || opt.max_forms > 4) throw invalid_input("guess --blocks: max forms " + std::to_string(opt.max_forms) + " (1..4)");
    if (opt.max_exceptions < 0 || opt.max_exceptions > 64)
        throw invalid_input("guess --blocks: max exceptions " + std::to_string(opt.max_exceptions) + " (0..64)");
}

bool BlockTerm::value(const std::vector<long>& x, long k, long j, long& out) const {
    const long i = index == 0 ? k : j;
    if (kind == 'l') {
        out = alpha * i + dot(factors[0].top, x) + factors[0].top0;
        return true;
    }
    long v = 1;
    for (const Factor& f : factors) {
        long b = 0;
        if (!binom(i + dot(f.top, x) + f.top0, dot(f.bottom, x) + f.bottom0, b)) return false;
        if (kind == 'n' && !binom(b >= kHuge ? kHuge : b + outer_add, 2, b)) return false;
        long p = 0;
        v = __builtin_mul_overflow(v, b, &p) || p >= kHuge ? kHuge : p;
    }
    out = v;
    return true;
}

std::string BlockTerm::text(const std::vector<std::string>& vars) const {
    const std::string i = index == 0 ? "k" : "j";
    if (kind == 'l') return linear(i, alpha, factors[0].top, factors[0].top0, vars);
    std::string s;
    for (const Factor& f : factors) {
        std::string b = "C(" + linear(i, 1, f.top, f.top0, vars) + ", " + linear("", 0, f.bottom, f.bottom0, vars) + ")";
        if (kind == 'n') b = "C(" + b + (outer_add ? " + " + std::to_string(outer_add) : std::string()) + ", 2)";
        s += (s.empty() ? "" : "*") + b;
    }
    return s;
}

std::string BlockLaw::text() const {
    std::string s = "min(cap_a, cap_b";
    for (const BlockTerm& t : forms) s += ", " + t.text(vars);
    s += ")";
    const bool k = std::any_of(forms.begin(), forms.end(), [](const BlockTerm& t) { return t.index == 0; });
    const bool j = std::any_of(forms.begin(), forms.end(), [](const BlockTerm& t) { return t.index == 1; });
    if (k || j) s += ", where ";
    if (k) s += "k = (block - first block)/step";
    if (k && j) s += " and ";
    if (j) s += "j = (last block - block)/step";
    return s;
}

namespace {

// The index columns of each configuration's rows: first and last block and the step
// between blocks, over every block row of the configuration (lower bounds included).
struct Span {
    long first = 0, last = 0, step = 0;
};

long law_value(const std::vector<BlockTerm>& forms, const BlockPoint& p) {
    long v = std::min(p.cap_a, p.cap_b);
    for (const BlockTerm& t : forms) {
        long f = 0;
        if (t.value(p.x, p.k, p.j, f)) v = std::min(v, f);
    }
    return v;
}

}  // namespace

namespace {

struct Kept {
    std::string config, name;  // the key columns' text; the variables, "dim=3,depth=3" (p.name: with the columns that differ)
    std::vector<const std::string*> keys;  // the key columns' cells (nullptr: no such column)
    BlockPoint p;
    bool ok = false;
    std::size_t index = 0;     // the row in the table
};

// A configuration's key: its key columns' cells, each followed by ';'.
std::string config_key(const TableRow& row) {
    std::string config;
    for (const char* c : kKeyColumns)
        if (const std::string* v = table_cell(row, c)) config += *v + ";";
    return config;
}

// The block rows of `table` kept by `where`, with their indices k and j (from the first
// and last block of their configuration over all of its rows in the table, before `where`
// and `fixed`: a filter on a row's own columns, block, status or rank, keeps each block's
// place), in table order.
// `not_ok` counts rows without a block. `order`: the configurations, first seen first.
// A block given twice (a resumed table file recomputes its lower-bound rows and appends
// them): an ok row replaces a lower-bound one, two ok rows must agree (invalid_input
// otherwise). A negative block, cap or rank, a block above the row's degree, an ok rank
// above its cap, or a status other than ok, lower-bound and skipped, is refused.
// `fixed` (a law's): rows of another value in one of those columns are left out and
// counted in `left_out`.
std::vector<Kept> block_points(const std::vector<TableRow>& table, const std::vector<std::pair<std::string, std::string>>& where,
                               const std::vector<std::string>& vars, long& not_ok, std::vector<std::string>& order,
                               const std::vector<std::pair<std::string, std::string>>* fixed = nullptr, LawComparisonLeftOut* left_out = nullptr) {
    std::map<std::string, Span> spans;
    std::map<std::pair<std::string, long>, std::size_t> seen;  // (configuration, block) → its place in kept
    std::vector<Kept> kept;
    if (table.empty()) throw invalid_input("guess --blocks: the table has no rows");
    for (const char* c : {"block", "blocks", "rank", "cap_a", "cap_b", "status"})  // a table's rows share its columns
        if (!table_cell(table.front(), c)) throw invalid_input(std::string("guess --blocks: the table has no column '") + c + "' (a block table: seprank table --blocks)");
    // Each configuration's span over all its block rows (a block cell that is not a count is
    // refused below if its row is kept, and left out of the span otherwise).
    for (const TableRow& row : table) {
        const std::string* b = table_cell(row, "block");
        if (!b || b->empty() || b->size() > 18 || b->find_first_not_of("0123456789") != std::string::npos) continue;
        const long block = std::stol(*b);
        auto [it, fresh] = spans.emplace(config_key(row), Span{block, block, 0});
        Span& s = it->second;
        const long lo = std::min(s.first, block), hi = std::max(s.last, block);
        s.step = std::gcd(std::gcd(s.step, block - s.first), hi - lo);
        s.first = lo;
        s.last = hi;
    }
    std::set<std::string> ordered, checked_partitions;
    for (std::size_t r = 0; r < table.size(); ++r) {
        const TableRow& row = table[r];
        if (!row_matches(row, where)) continue;
        const std::string* b = table_cell(row, "block");
        if (!b) throw invalid_input("guess --blocks: row " + std::to_string(r + 1) + " has no column 'block'");
        if (b->empty()) {  // a skipped configuration's one row; any other status names a block
            if (const std::string* st = table_cell(row, "status"); st && *st != "skipped")
                throw invalid_input("guess --blocks: row " + std::to_string(r + 1) + ": a row of status '" + detail::cut(*st) +
                                    "' without its block (only a skipped configuration's row has none)");
            ++not_ok;
            continue;
        }
        if (fixed) {
            const auto other = std::find_if(fixed->begin(), fixed->end(), [&](const auto& cv) {
                const std::string* v = table_cell(row, cv.first.c_str());
                return (v ? *v : std::string()) != cv.second;
            });
            if (other != fixed->end()) {
                if (left_out->rows++ == 0) {
                    const std::string* v = table_cell(row, other->first.c_str());
                    left_out->why = other->first + "=" + (v ? detail::cut(*v) : std::string()) + " (the law's rows: " + other->first + "=" +
                                    other->second + ")";
                }
                continue;
            }
        }
        Kept k;
        k.index = r;
        for (const char* c : kKeyColumns) k.keys.push_back(table_cell(row, c));
        // The configuration's sizes are counts (an edited cell would make another
        // configuration of the row, compared as such); empty where the family has none.
        for (const char* c : {"tokens", "dim", "heads", "block_degree", "width", "depth", "embed_rank", "head_dim", "attention_rank", "position"})
            if (const std::string* v = table_cell(row, c); v && !v->empty()) (void)cell_of(row, c, r + 1);
        k.config = config_key(row);
        if (const std::string* pt = table_cell(row, "partition"); pt && !pt->empty() && checked_partitions.insert(k.config).second)
            (void)row_partition(row, r + 1);  // once per configuration (its key holds the partition)
        const std::string& status = *table_cell(row, "status");
        if (status != "ok" && status != "lower-bound" && status != "skipped")
            throw invalid_input("guess --blocks: row " + std::to_string(r + 1) + ": column 'status' = '" + status.substr(0, 40) +
                                "' (expected ok, lower-bound or skipped)");
        k.ok = status == "ok";
        k.p.block = cell_of(row, "block", r + 1);
        k.p.cap_a = cell_of(row, "cap_a", r + 1);
        k.p.cap_b = cell_of(row, "cap_b", r + 1);
        k.p.lower_bound = !k.ok;
        if (const std::string* fb = table_cell(row, "failure_bound"); fb && !fb->empty() && !guess_detail::failure_bound_cell(row, k.p.failure_bound))
            throw invalid_input("guess --blocks: row " + std::to_string(r + 1) + ": column 'failure_bound' = '" + detail::cut(*fb) +
                                "' is no probability (0..1)");
        // No bound given (no column, or an empty cell): certain only where the row's label
        // says its ranks are certified; else unknown, 1, so that a rank below a law's value
        // is never read as a certain refutation.
        if (const std::string* fb = table_cell(row, "failure_bound"); !fb || fb->empty()) {
            const std::string* label = table_cell(row, "label");
            k.p.failure_bound = label && (*label == "certified" || *label == "exact") ? 0.0 : 1.0;
        }
        if (const std::string* rk = table_cell(row, "rank"); k.ok || (rk && !rk->empty())) k.p.rank = cell_of(row, "rank", r + 1);
        const auto where_row = [&] { return "guess --blocks: row " + std::to_string(r + 1) + ": block " + std::to_string(k.p.block); };
        if (const std::string* d = table_cell(row, "degree"); d && !d->empty() && d->size() <= 18 &&
                                                                 d->find_first_not_of("0123456789") == std::string::npos && k.p.block > std::stol(*d))
            throw invalid_input(where_row() + " is above the network's degree " + *d + " (its blocks are 0.." + *d + ")");
        // a lower bound above the cap is as impossible as a rank there (it had refuted a law for certain)
        if (const std::string* rk = table_cell(row, "rank"); (k.ok || (rk && !rk->empty())) && k.p.rank > std::min(k.p.cap_a, k.p.cap_b))
            throw invalid_input(where_row() + " has " + (k.ok ? "rank " : "lower bound ") + std::to_string(k.p.rank) + ", above its cap " +
                                std::to_string(std::min(k.p.cap_a, k.p.cap_b)));
        // at_cap, where the table has it, is what the rank and caps say (true or false)
        if (const std::string* ac = table_cell(row, "at_cap"); ac && !(ac->empty() && !k.ok)) {
            const bool at = k.p.rank == std::min(k.p.cap_a, k.p.cap_b);
            if (*ac != (at ? "true" : "false"))
                throw invalid_input(where_row() + ": column 'at_cap' = '" + detail::cut(*ac) + "', where its rank " + std::to_string(k.p.rank) +
                                    (at ? " is " : " is not ") + "min(cap_a, cap_b) (" + (at ? "true" : "false") + ")");
        }
        for (const std::string& v : vars) {
            if (!table_cell(row, v.c_str())) throw invalid_input("guess --blocks: the table has no column '" + v + "'");
            k.p.x.push_back(cell_of(row, v.c_str(), r + 1));
            k.name += (k.name.empty() ? "" : ",") + v + "=" + std::to_string(k.p.x.back());
        }
        const auto [at, first] = seen.emplace(std::make_pair(k.config, k.p.block), kept.size());
        if (!first) {
            Kept& old = kept[at->second];
            const BlockTwice twice = block_given_twice(old.ok, old.p.rank, k.ok, k.p.rank);
            if (twice == BlockTwice::conflict)
                throw invalid_input(where_row() + " of " + (k.name.empty() ? std::string("the table") : k.name) + " is given twice, with ranks " +
                                    std::to_string(old.p.rank) + " and " + std::to_string(k.p.rank));
            if (twice == BlockTwice::take_second) old = std::move(k);
            continue;
        }
        if (ordered.insert(k.config).second) order.push_back(k.config);
        kept.push_back(std::move(k));
    }
    // The key columns, not variables, that differ between configurations of the same
    // variables (and columns named so far): a line names them too (a table of H = 2 and
    // H = 4 rows has two "dim=4,depth=2"); a column they fix (head_dim = dim/heads) is not.
    for (std::size_t c = 0; c < std::size(kKeyColumns); ++c) {
        if (std::find(vars.begin(), vars.end(), kKeyColumns[c]) != vars.end()) continue;
        const auto cell = [&](const Kept& k) { return k.keys[c] ? *k.keys[c] : std::string(); };
        std::map<std::pair<std::vector<long>, std::string>, std::string> at;
        bool differs = false;
        for (const Kept& k : kept) {
            const auto [it, fresh] = at.emplace(std::make_pair(k.p.x, k.p.name), cell(k));
            differs = differs || (!fresh && it->second != cell(k));
        }
        if (!differs) continue;
        for (Kept& k : kept) k.p.name += std::string(",") + kKeyColumns[c] + "=" + cell(k);
    }
    for (Kept& k : kept) {
        const Span& s = spans[k.config];
        const long step = s.step > 0 ? s.step : 1;
        k.p.k = (k.p.block - s.first) / step;
        k.p.j = (s.last - k.p.block) / step;
        k.p.name = k.name + k.p.name;
        if (k.p.name.rfind(',', 0) == 0) k.p.name.erase(0, 1);  // no variables
    }
    return kept;
}

}  // namespace

BlockLaw guess_block_law(const std::vector<TableRow>& input, const std::vector<std::pair<std::string, std::string>>& where,
                         const BlockLawOptions& opt) {
    check_options(opt);
    const std::vector<TableRow> derived = guess_detail::copies_if_named(input, opt.vars, where);  // a stack's `copies`, as guess
    const std::vector<TableRow>& table = derived.empty() ? input : derived;
    BlockLaw law;
    law.vars = opt.vars;
    const std::size_t nv = opt.vars.size();
    std::vector<std::string> order;
    std::vector<Kept> kept = block_points(table, where, opt.vars, law.not_ok, order);
    // A configuration with a lower-bound block did not converge: its ok blocks are those
    // that closed first, mostly at their caps, a biased sample that would fit and confirm
    // the caps alone (a researcher's table at --max-side 48: 24 of 38 blocks open, the law
    // min(cap_a, cap_b) "confirmed"). Left out whole, its rows counted in not_ok and named.
    // Decided over every row of the table, before `where` (as the blocks' span is): a filter
    // that drops the open blocks (--where status=ok, block=K) leaves the closed ones no less
    // biased. A block given twice is closed when one of its rows is ok (a resumed table
    // appends the recomputed row after the lower-bound one).
    std::map<std::pair<std::string, std::string>, bool> closed_block;  // (configuration, block) → some row ok
    for (const TableRow& row : table)
        if (const std::string *b = table_cell(row, "block"), *st = table_cell(row, "status"); b && !b->empty() && st) {
            bool& ok = closed_block[{config_key(row), *b}];
            ok = ok || *st == "ok";
        }
    std::set<std::string> partial;
    for (const auto& [cb, ok] : closed_block)
        if (!ok) partial.insert(cb.first);
    std::erase_if(partial, [&](const std::string& c) { return std::find(order.begin(), order.end(), c) == order.end(); });
    std::string partial_note;
    if (!partial.empty()) {
        long closed = 0, names = 0;
        std::string named;
        for (const Kept& k : kept)
            if (partial.count(k.config) && k.ok) ++closed;
        for (const std::string& c : order)
            if (partial.count(c) && names++ < 3) {
                const auto at = std::find_if(kept.begin(), kept.end(), [&](const Kept& k) { return k.config == c; });
                named += (named.empty() ? "" : "; ") + (at->p.name.empty() ? std::string("the table's one configuration") : at->p.name);
            }
        if (names > 3) named += "; …";
        const std::size_t before = kept.size();
        kept.erase(std::remove_if(kept.begin(), kept.end(), [&](const Kept& k) { return partial.count(k.config) > 0; }), kept.end());
        law.not_ok += static_cast<long>(before - kept.size());
        order.erase(std::remove_if(order.begin(), order.end(), [&](const std::string& c) { return partial.count(c) > 0; }), order.end());
        partial_note = std::to_string(partial.size()) + " configuration" + (partial.size() == 1 ? "" : "s") + " left out whole (" + named +
                       "): some of their blocks did not converge (status lower-bound)" +
                       (closed > 0 ? ", and their " + std::to_string(closed) +
                                         " closed blocks are those that closed first, mostly at their caps, a sample that would confirm the caps alone"
                                   : std::string()) +
                       "; a larger --max-side (or time budget) completes them";
        law.notes.push_back(partial_note);
        if (kept.empty())
            throw invalid_input("guess --blocks: no configuration to fit: " + partial_note);
    }
    if (kept.empty()) {  // say why: no row matched, or every configuration kept was skipped
        std::string filters, reason;
        for (const auto& [name, want] : where) filters += (filters.empty() ? "" : ",") + name + "=" + want.substr(0, 40);
        long matched = 0;
        for (const TableRow& row : table)
            if (row_matches(row, where) && matched++ == 0)
                if (const std::string* why = table_cell(row, "reason")) reason = why->substr(0, 200);
        if (matched == 0)
            throw invalid_input("guess --blocks: no row of the table (" + std::to_string(table.size()) + " rows) matches the filters " + filters);
        throw invalid_input("guess --blocks: every configuration" + (where.empty() ? std::string() : " kept by the filters " + filters) + " (" +
                            std::to_string(matched) + ") was skipped, with no block rows" +
                            (reason.empty() ? std::string() : "; the first's reason: " + reason));
    }
    if (order.size() < 2 && kept.size() < 6)
        throw invalid_input("guess --blocks: " + std::to_string(kept.size()) + " block rows of " + std::to_string(order.size()) +
                            " configuration(s): too few to fit a law and confirm it" + (partial_note.empty() ? "" : "; " + partial_note));
    // Held out: the configurations with the largest sum of the variables (with one
    // configuration, every third block).
    std::map<std::string, long> sums;
    for (const Kept& k : kept) sums[k.config] = std::accumulate(k.p.x.begin(), k.p.x.end(), 0L);
    long top = 0;
    for (const auto& [c, s] : sums) top = std::max(top, s);
    const bool one = order.size() < 2 || std::all_of(sums.begin(), sums.end(), [&](const auto& cs) { return cs.second == top; });
    std::size_t n_ok = 0;
    for (Kept& k : kept) {
        if (!k.ok) {
            ++law.not_ok;
            continue;
        }
        k.p.held_out = one ? (n_ok % 3 == 2) : sums[k.config] == top;
        ++n_ok;
        law.rows.push_back(k.p);
    }
    for (std::size_t c = 0; c < std::size(kKeyColumns); ++c) {  // the key columns the law's rows do not vary
        if (std::find(opt.vars.begin(), opt.vars.end(), kKeyColumns[c]) != opt.vars.end()) continue;
        std::set<std::string> values;
        for (const Kept& k : kept)
            if (k.ok) values.insert(k.keys[c] ? *k.keys[c] : std::string());
        // (a column the law's rows lack, or leave empty, says nothing of another table's rows)
        if (values.size() == 1 && !values.begin()->empty()) law.fixed.emplace_back(kKeyColumns[c], *values.begin());
    }
    if (one) law.held_out = "every third block row";
    else {
        std::set<std::string> names;
        for (const Kept& k : kept)
            if (sums[k.config] == top) names.insert(k.p.name.empty() ? "the last configuration" : k.p.name);
        for (const std::string& n : names) law.held_out += (law.held_out.empty() ? "" : "; ") + n;
    }
    std::vector<std::size_t> fit;
    for (std::size_t r = 0; r < law.rows.size(); ++r)
        if (!law.rows[r].held_out) fit.push_back(r);
    if (fit.size() < 2 || fit.size() == law.rows.size())
        throw invalid_input("guess --blocks: " + std::to_string(fit.size()) + " fit rows and " + std::to_string(law.rows.size() - fit.size()) +
                            " held-out rows with status ok: too few to fit a law and confirm it" + (partial_note.empty() ? "" : "; " + partial_note));

    law.fit_range.assign(nv, {LONG_MAX, LONG_MIN});
    for (std::size_t r : fit)
        for (std::size_t v = 0; v < nv; ++v) {
            law.fit_range[v].first = std::min(law.fit_range[v].first, law.rows[r].x[v]);
            law.fit_range[v].second = std::max(law.fit_range[v].second, law.rows[r].x[v]);
        }
    for (std::size_t v = 0; v < nv; ++v)
        if (law.fit_range[v].first == law.fit_range[v].second)
            law.notes.push_back(opt.vars[v] + " takes one value (" + std::to_string(law.fit_range[v].first) +
                                ") in the fit rows: the law cannot depend on it (leave it out of --vars, or fit rows where it varies)");

    // The greedy choice of forms on the fit rows.
    std::vector<char> explained(law.rows.size(), 0);
    for (std::size_t r : fit) explained[r] = law.rows[r].rank == std::min(law.rows[r].cap_a, law.rows[r].cap_b);
    const std::vector<BlockTerm> terms = all_terms(nv);
    law.tried = static_cast<long>(terms.size());
    std::vector<char> violated(law.rows.size(), 0);  // fit rows a chosen form is below
    for (int m = 0; m < opt.max_forms; ++m) {
        long best_gain = 1;  // a form must give at least 2 fit rows not yet given
        std::size_t best = terms.size();
        for (std::size_t t = 0; t < terms.size(); ++t) {
            long gain = 0, below = 0;
            for (std::size_t q = 0; q < fit.size(); ++q) {
                const BlockPoint& p = law.rows[fit[q]];
                long v = 0;
                if (!terms[t].value(p.x, p.k, p.j, v)) {
                    below = opt.max_exceptions + 1;  // outside its domain on a fit row: not a law here
                    break;
                }
                if (v < p.rank && !violated[fit[q]] && ++below > opt.max_exceptions) break;
                if (v == p.rank && !explained[fit[q]]) ++gain;
            }
            long already = 0;
            for (std::size_t r : fit) already += violated[r];
            if (below + already > opt.max_exceptions) continue;
            // A term below a rank contradicts the law (every form is at least the rank):
            // each such row costs more than a row given gains.
            if (gain - 3 * below > best_gain) {
                best_gain = gain - 3 * below;
                best = t;
            }
        }
        if (best == terms.size()) break;
        law.forms.push_back(terms[best]);
        for (std::size_t r : fit) {
            const BlockPoint& p = law.rows[r];
            long v = 0;
            terms[best].value(p.x, p.k, p.j, v);
            if (v == p.rank) explained[r] = 1;
            if (v < p.rank) violated[r] = 1;
        }
    }
    // The law on every row.
    for (std::size_t r = 0; r < law.rows.size(); ++r) {
        const BlockPoint& p = law.rows[r];
        const long v = law_value(law.forms, p);
        if (v == std::min(p.cap_a, p.cap_b) && v == p.rank) ++law.at_cap;
        if (v == p.rank) (p.held_out ? law.confirmed : law.fitted)++;
        else (p.held_out ? law.held_out_exceptions : law.exceptions).push_back({r, v});
    }
    const long misses = static_cast<long>(law.exceptions.size() + law.held_out_exceptions.size());
    if (misses > opt.max_exceptions) {
        std::ostringstream why;
        why << "no law of at most " << opt.max_forms << " forms beside the cap gives the rows within " << opt.max_exceptions
            << " exception(s): the best (" << law.text() << ") misses " << law.exceptions.size() << " of " << fit.size() << " fit rows and "
            << law.held_out_exceptions.size() << " of " << law.rows.size() - fit.size() << " held-out rows";
        law.reason = why.str();
        return law;
    }
    if (law.confirmed < 2) {
        law.reason = "the law gives only " + std::to_string(law.confirmed) + " held-out row(s) (at least 2 needed)";
        return law;
    }
    law.found = true;
    return law;
}

PredictionNetwork prediction_network(const std::vector<TableRow>& input, const std::vector<std::pair<std::string, std::string>>& where,
                                     const std::vector<std::string>& vars, const std::vector<long>& x) {
    const std::vector<TableRow> derived = guess_detail::copies_if_named(input, vars, where);
    const std::vector<TableRow>& table = derived.empty() ? input : derived;
    if (x.size() != vars.size())
        throw invalid_input("guess --blocks: " + std::to_string(x.size()) + " values for " + std::to_string(vars.size()) + " variables");
    const TableRow* row = nullptr;
    std::size_t row_line = 0;
    for (const TableRow& r : table)
        if (++row_line, row_matches(r, where)) {
            row = &r;
            break;
        }
    if (!row) throw invalid_input("guess --blocks: no row of the table matches `where`");
    // A prediction draws no weights, but the spec is checked as every network is, the
    // memory of its weights included (ValidSpec): a point too large to hold is refused.
    const NetworkSpec bare = [&] {
        try {
            return spec_of_row(*row, vars, x);
        } catch (const invalid_input& e) {  // its "check: …" (plain guess's flag) is a prediction's here
            const std::string m = e.what();
            if (m.rfind("check: ", 0) != 0) throw;
            throw invalid_input("guess --blocks: " + m.substr(7));
        }
    }();
    // The table's head_dim is dx/H (not given), so the point's is too: where H does not
    // divide dx there is none to take, and guess has no option to give one.
    if (bare.head_dim == 0 && bare.heads >= 1 && bare.dim % bare.heads != 0)
        throw invalid_input("guess --blocks: heads H = " + std::to_string(bare.heads) + " does not divide dim dx = " + std::to_string(bare.dim) +
                            " at this point, and the table's rows take the head dim as dx/H: predict at a point where H divides dx, or fit "
                            "a table whose rows give head_dim explicitly (table --head-dim)");
    const ValidSpec spec = [&] {
        try {
            return ValidSpec(bare);
        } catch (const resource_limit& e) {
            throw resource_limit(std::string(e.what()) +
                                 " (guess --blocks checks the predicted network as any network is checked, its weights' memory included, "
                                 "though it draws none: raise " + default_max_memory_name() + " to predict there)");
        }
    }();
    // The partition: the row's own where the point has its tokens; else the pattern every
    // kept row's partition follows, at the point's N (a table of 1|2..n rows predicts at
    // 1|2..N: the balanced one there had refuted a true law).
    const std::string* part_text = table_cell(*row, "partition");
    if (!part_text || part_text->empty()) return PredictionNetwork{spec, balanced_partition(spec->tokens)};
    const ValidPartition own = row_partition(*row, row_line);
    if (own.tokens() == spec->tokens) return PredictionNetwork{spec, own};
    bool balanced = true, first_rest = true;
    std::set<std::string> seen;  // a configuration's block rows share its partition: read once
    for (std::size_t r = 0; r < table.size(); ++r) {
        if (!row_matches(table[r], where)) continue;
        const std::string* t = table_cell(table[r], "partition");
        if (!t || t->empty() || !seen.insert(config_key(table[r])).second) continue;
        const guess_detail::PartitionShapes shapes = guess_detail::partition_shapes(row_partition(table[r], r + 1));
        balanced = balanced && shapes.balanced;
        first_rest = first_rest && shapes.first;
    }
    if (balanced) return PredictionNetwork{spec, balanced_partition(spec->tokens)};
    if (first_rest) return PredictionNetwork{spec, first_vs_rest_partition(spec->tokens)};
    throw invalid_input("guess --blocks: the table's partition " + detail::cut(*part_text) + " is of " + std::to_string(own.tokens()) +
                        " tokens, and its rows' partitions follow no pattern to carry to " + std::to_string(spec->tokens) +
                        " (every one balanced, or every one 1|2..n): predict at a point of " + std::to_string(own.tokens()) +
                        " tokens, or keep rows of one partition with --where");
}

std::vector<BlockPrediction> predict_blocks(const BlockLaw& law, const std::vector<TableRow>& table,
                                            const std::vector<std::pair<std::string, std::string>>& where, const std::vector<long>& x) {
    if (!law.found) throw invalid_input("guess --blocks: no law to predict with");
    const PredictionNetwork at = prediction_network(table, where, law.vars, x);
    const ValidSpec& spec = at.spec;
    const ValidPartition& part = at.part;
    if (!is_homogeneous(spec)) throw invalid_input("guess --blocks: the network at this point is not homogeneous: it has no degree blocks");
    // D + 1 blocks, each counted, predicted and shown (about 256 bytes of sides, prediction
    // and output a block): against the memory limit before any is counted
    const Integer D = output_degree(spec);
    check_memory(256.0 * (fmpz_get_d(D.get()) + 1.0), default_max_memory(), "the law's D + 1 degree blocks at this point (D = " + D.str() + ")");
    const DegreeBlockSides sides = degree_block_sides(spec, part);
    if (sides.a_side.empty())
        throw resource_limit("guess --blocks: the network at this point has degree d^L = " + D.str() +
                             ": counting its degree blocks would take more than " + std::to_string(static_cast<long long>(kCapsMaxWork)) +
                             " steps (about (tokens - 2)·(d^L + 1)²/(2m), m the token modulus: docs/model.md)");
    std::vector<long> live;
    for (std::size_t a = 0; a < sides.a_side.size(); ++a)
        if (sides.a_side[a] > 0 && sides.b_side[a] > 0) live.push_back(static_cast<long>(a));
    if (live.empty()) throw invalid_input("guess --blocks: the network at this point has no non-empty block");
    long step = 0;
    for (long a : live) step = std::gcd(step, a - live.front());
    if (step == 0) step = 1;
    std::vector<BlockPrediction> out;
    for (long a : live) {
        BlockPoint p;
        p.x = x;
        p.block = a;
        p.k = (a - live.front()) / step;
        p.j = (live.back() - a) / step;
        p.cap_a = sides.a_side[static_cast<std::size_t>(a)];
        p.cap_b = sides.b_side[static_cast<std::size_t>(a)];
        const long v = law_value(law.forms, p);
        // Caps and terms saturate at LONG_MAX/4: a value there is no number of the law's. A
        // saturated cap under a smaller form is harmless (the law is their minimum); the
        // caller shows such a cap as unknown (BlockPrediction::cap_saturated).
        if (v >= LONG_MAX / 4)
            throw resource_limit("guess --blocks: block " + std::to_string(a) + " at this point passes 2^61 (the law's value there, with caps " +
                                 std::to_string(p.cap_a) + ", " + std::to_string(p.cap_b) + "): too large to predict");
        out.push_back({a, p.k, p.j, p.cap_a, p.cap_b, v});
    }
    return out;
}

std::vector<std::string> prediction_notes(const BlockLaw& law, const std::vector<long>& x) {
    std::vector<std::string> out;
    for (std::size_t v = 0; v < law.fit_range.size() && v < x.size(); ++v)
        if (law.fit_range[v].first == law.fit_range[v].second && x[v] != law.fit_range[v].first)
            out.push_back("it moves " + law.vars[v] + " to " + std::to_string(x[v]) + ", but " + law.vars[v] + " takes one value (" +
                          std::to_string(law.fit_range[v].first) + ") in the fit rows: the law cannot depend on it, so the prediction extrapolates along " +
                          law.vars[v] + " untested");
    return out;
}

BlockCheck compare_blocks(const std::vector<BlockPrediction>& predicted, const std::vector<long>& block_ranks) {
    BlockCheck c;
    for (long r : block_ranks) c.computed_total += r;
    for (const BlockPrediction& p : predicted) {
        c.predicted_total += p.predicted;
        if (p.block < 0 || p.block >= static_cast<long>(block_ranks.size()))
            throw invalid_input("compare_blocks: block " + std::to_string(p.block) + " has no computed rank (block_ranks holds " +
                                std::to_string(block_ranks.size()) + " blocks, a = 0.." + std::to_string(static_cast<long>(block_ranks.size()) - 1) +
                                "; a graded answer holds D + 1)");
        const long got = block_ranks[static_cast<std::size_t>(p.block)];
        if (got != p.predicted) c.differ.emplace_back(p, got);
    }
    return c;
}

std::vector<LawComparison> compare_law(const BlockLaw& law, const std::vector<TableRow>& input,
                                       const std::vector<std::pair<std::string, std::string>>& where, LawComparisonLeftOut* left_out) {
    const std::vector<TableRow> derived = guess_detail::copies_if_named(input, law.vars, where);
    const std::vector<TableRow>& table = derived.empty() ? input : derived;
    if (!law.found) throw invalid_input("guess --blocks: no law to compare");
    long not_ok = 0;
    std::vector<std::string> order;
    LawComparisonLeftOut none;
    if (!left_out) left_out = &none;
    *left_out = {};
    const std::vector<Kept> kept = block_points(table, where, law.vars, not_ok, order, &law.fixed, left_out);
    if (kept.empty() && left_out->rows > 0)
        throw invalid_input("guess --blocks: none of the table's " + std::to_string(left_out->rows) +
                            " block rows is of the law's configuration: " + left_out->why + "; the law says nothing about them");
    std::vector<LawComparison> out;
    std::map<std::string, std::size_t> at;
    for (const std::string& c : order) {
        at[c] = out.size();
        out.emplace_back();
    }
    for (const Kept& k : kept) {  // block_points folded the blocks given twice and refused impossible ranks
        LawComparison& c = out[at[k.config]];
        c.name = k.p.name.empty() ? "the configuration" : k.p.name;  // with the key columns that differ, as the law's exceptions
        const long v = law_value(law.forms, k.p);
        c.law_total += v;
        c.computed_total += k.p.rank;
        if (!k.ok) {
            c.computed_is_lower_bound = true;
            if (k.p.rank <= v) {  // a bound at or below the law: consistent with it, nothing to compare
                ++c.lower_bounds;
                continue;
            }
        }
        ++c.rows;
        if (v == k.p.rank) ++c.agree;
        else c.differ.push_back({k.p, v});
    }
    for (LawComparison& c : out) {
        c.law_with_exceptions = c.law_total;
        double chance = 0;
        for (const auto& [p, v] : c.differ) {
            c.law_with_exceptions += p.rank - v;
            if (p.rank > v || p.failure_bound <= 0) c.refuted_for_certain = true;
            else chance = std::max(chance, p.failure_bound);
        }
        c.refutation_failure_bound = c.refuted_for_certain ? 0 : chance;
    }
    return out;
}

}  // namespace seprank
