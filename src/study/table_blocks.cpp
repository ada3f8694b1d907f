// Block tables: a configuration's degree blocks as rows (table_blocks.hpp,
// docs/table_blocks.md).
#include "seprank/table_blocks.hpp"

#include "seprank/error.hpp"
#include "seprank/guess_blocks.hpp"
#include "seprank/integer.hpp"
#include "seprank/network.hpp"
#include "seprank/table.hpp"

#include "base/count_text.hpp"
#include "base/file_io.hpp"
#include "base/json_file.hpp"

#include <algorithm>

namespace seprank {

namespace {

// The lists a configuration row of a block sweep carries (detail::set_block_lists).
const char* const kLists[] = {"block_list", "block_rank_list", "cap_a_list", "cap_b_list"};

// The configuration's own columns that each of its block rows repeats.
const char* const kConfigCells[] = {"label", "failure_bound", "method", "seconds", "peak_mib"};

std::vector<std::string> key_columns(bool layers) {
    std::vector<std::string> out;
    for (const std::string& c : table_columns(false, false, layers)) {
        if (c == "degree") break;
        out.push_back(c);
    }
    return out;
}

std::vector<long> list_of(const Row& r, const char* name) {
    const Value& v = r.at(name);
    if (v.is_null()) return {};
    if (v.type() == Value::Type::integer_list) return v.as_integer_list();
    // A configuration row read back from a CSV file holds "[1,2,3]" as text.
    const std::string t = v.str();
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') throw invalid_input(std::string("block table: column '") + name + "' = '" + t + "' is not a list");
    std::vector<long> out;
    std::size_t pos = 1;
    while (pos < t.size() - 1) {
        const std::size_t comma = std::min(t.find(',', pos), t.size() - 1);
        try {
            std::size_t used = 0;
            out.push_back(std::stol(t.substr(pos, comma - pos), &used));
            if (used != comma - pos) throw invalid_input("");
        } catch (const std::exception&) {
            throw invalid_input(std::string("block table: column '") + name + "' = '" + t + "' is not a list of integers");
        }
        pos = comma + 1;
    }
    return out;
}

// A block, blocks, rank or cap cell: a count, read as guess --blocks reads it
// (detail::count_text_error), else invalid_input naming the cell.
long long_cell(const Row& r, const char* name) {
    const Value& v = r.at(name);
    if (v.type() == Value::Type::integer && v.as_integer() >= 0) return v.as_integer();
    const std::string t = v.str();
    long x = 0;
    if (const char* why = detail::count_text_error(t, &x))
        throw invalid_input(std::string("block table: column '") + name + "' = '" + detail::cut(t) + "' " + why);
    return x;
}

}  // namespace

std::vector<std::string> table_block_columns(bool layers, bool device) {
    std::vector<std::string> cols = key_columns(layers);
    for (const char* c : {"degree", "block", "blocks", "rank", "cap_a", "cap_b", "at_cap", "status", "total", "label", "failure_bound", "method",
                          "reason", "seconds", "peak_mib"})
        cols.emplace_back(c);
    if (device) cols.emplace_back("device");
    return cols;
}

bool is_block_config_row(const Row& row) {
    return std::all_of(std::begin(kLists), std::end(kLists), [&](const char* c) { return row.contains(c); });
}

bool is_block_row(const Row& row) { return row.contains("block") && row.contains("blocks") && row.contains("total"); }

namespace detail {

void set_block_lists(Row& r, const std::vector<long>& block_ranks, const DegreeBlockSides& sides) {
    std::vector<long> blocks, ranks, ca, cb;
    for (std::size_t a = 0; a < sides.a_side.size(); ++a) {
        if (sides.a_side[a] == 0 || sides.b_side[a] == 0) continue;  // an empty block: rank 0 for every weight
        blocks.push_back(static_cast<long>(a));
        ranks.push_back(a < block_ranks.size() ? block_ranks[a] : 0);
        ca.push_back(sides.a_side[a]);
        cb.push_back(sides.b_side[a]);
    }
    r.set("block_list", blocks);
    r.set("block_rank_list", ranks);
    r.set("cap_a_list", ca);
    r.set("cap_b_list", cb);
}

}  // namespace detail

std::vector<Row> block_rows(const Row& config_row) {
    if (!is_block_config_row(config_row)) throw invalid_input("block table: the row has no block lists (not a row of a --blocks sweep)");
    const std::vector<long> blocks = list_of(config_row, "block_list"), ranks = list_of(config_row, "block_rank_list"),
                            ca = list_of(config_row, "cap_a_list"), cb = list_of(config_row, "cap_b_list");
    if (ranks.size() != blocks.size() || ca.size() != blocks.size() || cb.size() != blocks.size())
        throw invalid_input("block table: the block lists of a row differ in length");
    const bool layers = config_row.contains("layers"), device = config_row.contains("device");
    const std::string status = config_row.at("status").str();
    Row base;
    for (const std::string& c : key_columns(layers)) base.set(c, config_row.at(c));
    base.set("degree", config_row.at("degree"));
    std::vector<Row> out;
    const std::size_t n = std::max<std::size_t>(blocks.size(), 1);
    for (std::size_t k = 0; k < n; ++k) {
        Row r = base;
        const bool has = k < blocks.size();
        const bool at_cap = has && ranks[k] == std::min(ca[k], cb[k]);
        r.set("block", has ? Value(blocks[k]) : Value());
        r.set("blocks", static_cast<long>(n));
        r.set("rank", has ? Value(ranks[k]) : Value());
        r.set("cap_a", has ? Value(ca[k]) : Value());
        r.set("cap_b", has ? Value(cb[k]) : Value());
        r.set("at_cap", has ? Value(at_cap) : Value());
        // A block at its cap is exact whatever stopped the evaluation; the others share
        // the configuration's status (a lower bound when it stopped before converging).
        r.set("status", !has ? Value("skipped") : at_cap ? Value("ok") : Value(status));
        r.set("total", config_row.at("rank"));
        for (const char* c : kConfigCells) r.set(c, config_row.at(c));
        r.set("reason", !has || (!at_cap && status != "ok") ? config_row.at("reason") : Value());
        // The reason sits after method: keep the order of table_block_columns.
        Row ordered;
        for (const std::string& c : table_block_columns(layers, false)) ordered.set(c, r.at(c));
        if (device) ordered.set("device", config_row.at("device"));
        out.push_back(std::move(ordered));
    }
    return out;
}

Row fold_block_rows(const std::vector<Row>& rows) {
    if (rows.empty()) throw invalid_input("block table: no block rows to fold");
    for (const Row& r : rows)
        if (!is_block_row(r)) throw invalid_input("block table: a row without the columns block, blocks and total");
    const Row& first = rows.front();
    const bool layers = first.contains("layers");
    const std::string key = row_key(first);
    const long n = long_cell(first, "blocks");
    if (n != static_cast<long>(rows.size()))
        throw invalid_input("block table: " + std::to_string(rows.size()) + " block rows of a configuration that has " + std::to_string(n));
    std::vector<const Row*> sorted;
    for (const Row& r : rows) {
        if (row_key(r) != key || r.at("total").str() != first.at("total").str() || long_cell(r, "blocks") != n)
            throw invalid_input("block table: the block rows folded together belong to different configurations");
        sorted.push_back(&r);
    }
    const auto block_of = [](const Row* r) { return r->at("block").str().empty() ? -1L : long_cell(*r, "block"); };
    std::stable_sort(sorted.begin(), sorted.end(), [&](const Row* a, const Row* b) { return block_of(a) < block_of(b); });
    Row out;
    for (const std::string& c : key_columns(layers)) out.set(c, first.at(c));
    out.set("degree", first.at("degree"));
    out.set("rank", first.at("total"));
    for (const char* c : kConfigCells) out.set(c, first.at(c));
    // The configuration's status: skipped without blocks, lower-bound when a block is one.
    std::string status = "ok";
    Value reason;
    std::vector<long> blocks, ranks, ca, cb;
    for (const Row* r : sorted) {
        const std::string s = r->at("status").str();
        if (s == "skipped") status = "skipped";
        else if (s == "lower-bound" && status == "ok") status = "lower-bound";
        if (reason.is_null() && !r->at("reason").str().empty()) reason = r->at("reason");
        if (block_of(r) < 0) {
            if (s != "skipped") throw invalid_input("block table: a row of status '" + s + "' without its block");
            if (rows.size() != 1) throw invalid_input("block table: a skipped configuration has one row, without a block; these have " + std::to_string(rows.size()));
            continue;
        }
        if (s == "skipped")
            throw invalid_input("block table: block " + std::to_string(block_of(r)) +
                                " has status 'skipped', which only a configuration's one row without blocks has");
        if (!blocks.empty() && blocks.back() == block_of(r))
            throw invalid_input("block table: block " + std::to_string(block_of(r)) + " twice in the rows of one configuration");
        blocks.push_back(block_of(r));
        ranks.push_back(long_cell(*r, "rank"));
        ca.push_back(long_cell(*r, "cap_a"));
        cb.push_back(long_cell(*r, "cap_b"));
    }
    // The configuration's rank is the sum of its blocks' (the graded evaluation's sep).
    if (!blocks.empty()) {
        long sum = 0;
        for (const long x : ranks) sum += x;
        if (first.at("total").str() != std::to_string(sum))
            throw invalid_input("block table: total " + first.at("total").str() + " is not the sum " + std::to_string(sum) + " of the blocks' ranks");
    }
    // Each block row's status as block_rows writes it: ok at its cap, the configuration's
    // otherwise (a row edited by hand would move its status onto the other blocks when
    // written back). at_cap is checked with the row's cells (table_file.cpp).
    // (The rows with a block, in `sorted`'s order, are those of blocks, ranks, ca and cb.)
    std::size_t k = 0;
    for (const Row* r : sorted) {
        if (block_of(r) < 0) continue;
        const bool at_cap = ranks[k] == std::min(ca[k], cb[k]);
        const std::string want = at_cap ? "ok" : status;
        if (r->at("status").str() != want)
            throw invalid_input("block table: block " + std::to_string(blocks[k]) + "'s status is '" + detail::cut(r->at("status").str()) +
                                "', where " + (at_cap ? std::string("a block at its cap is 'ok'") : "its configuration's is '" + status + "'"));
        ++k;
    }
    out.set("status", status);
    out.set("reason", reason);
    if (first.contains("device")) out.set("device", first.at("device"));
    out.set("block_list", blocks);
    out.set("block_rank_list", ranks);
    out.set("cap_a_list", ca);
    out.set("cap_b_list", cb);
    return out;
}

namespace {

// The hints of guess's predictions (`guess --blocks --predict ... --format json`): the
// blocks of the prediction whose key is `plain` or `layered`; empty when none is.
// Blocks above `degree` (the network's d^L) are refused: no such block exists, and the hints
// are sized by the largest block given.
std::vector<long> hints_from_predictions(const nlohmann::json& j, const std::string& path, const std::string& plain, const std::string& layered,
                                         long degree) {
    std::vector<long> hints;
    const auto bad = [&](const std::string& what) {
        return invalid_input("block hints '" + path + "': " + what + " (expected the output of guess --blocks --predict --format json)");
    };
    if (!j.is_object() || !j.contains("predictions") || !j["predictions"].is_array())
        throw bad("no \"predictions\" list (guess writes one with --predict)");
    for (const auto& p : j["predictions"]) {
        if (!p.is_object() || !p.contains("key") || !p["key"].is_string() || !p.contains("blocks") || !p["blocks"].is_array())
            throw bad("a prediction without its \"key\" and \"blocks\"");
        const std::string key = p["key"].get<std::string>();
        if (key != plain && key != layered) continue;
        for (const auto& b : p["blocks"]) {
            const auto whole = [](const nlohmann::json& v) { return v.is_number_integer() && (v.is_number_unsigned() || v.get<long long>() >= 0); };
            if (!b.is_object() || !b.contains("block") || !b.contains("predicted") || !whole(b["block"]) || !whole(b["predicted"]))
                throw bad("a block without an integer \"block\" and \"predicted\" >= 0: " + detail::cut(b.dump()));
            if (b["block"].get<unsigned long long>() > static_cast<unsigned long long>(degree))
                throw bad("block " + b["block"].dump() + " of the prediction " + key + " is above the network's degree " +
                          std::to_string(degree) + " (its blocks are 0.." + std::to_string(degree) + ")");
            if (b["predicted"].get<unsigned long long>() > (1ULL << 61))
                throw bad("block " + b["block"].dump() + " of the prediction " + key + " predicted " + b["predicted"].dump() +
                          ", above 2^61, more than any block's rank");
            const auto a = static_cast<std::size_t>(b["block"].get<long long>());
            const long v = static_cast<long>(b["predicted"].get<long long>());
            if (a >= hints.size()) hints.resize(a + 1, -1);
            if (hints[a] >= 0 && hints[a] != v)  // a law has one value per block
                throw bad("block " + std::to_string(a) + " predicted twice for " + key + ", " + std::to_string(hints[a]) + " and " + std::to_string(v));
            hints[a] = v;
        }
    }
    return hints;
}

}  // namespace

std::vector<long> read_block_hints(const std::string& path, const ValidSpec& spec, const ValidPartition& part) {
    return parse_block_hints(detail::read_input_file(path, "block hints", detail::kTableBytesPerByte), path, spec, part);
}

std::vector<long> parse_block_hints(std::string text, const std::string& path, const ValidSpec& spec, const ValidPartition& part) {
    text.erase(0, detail::table_text_start(text, "block hints '" + path + "'"));  // a UTF-8 byte-order mark, as parse_table_text skips it
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) throw invalid_input("block hints '" + path + "': the file is empty");
    const std::string plain = row_key(spec, part, false), layered = row_key(spec, part, true);  // a table without a layers column, or with one
    // The network's blocks are a = 0..d^L; a larger block in the file is refused before any
    // list is sized by it.
    const Integer dz = output_degree(spec);
    const long degree = fmpz_fits_si(dz.get()) ? std::min<long>(fmpz_get_si(dz.get()), 1L << 40) : 1L << 40;
    const bool homogeneous = is_homogeneous(spec);  // else no degree blocks: the file is checked, nothing hinted
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (text[first] == '[')
        throw invalid_input("block hints '" + path + "': a JSON list, where guess --blocks --predict --format json writes one object and a "
                            "block table is CSV or JSON lines (seprank table --blocks)");
    const bool json = text[first] == '{';
    // guess's JSON is one object over several lines (a JSON-lines table has one per line,
    // each a row with its "family", or the sweep line first).
    if (json && text.find("seprank_table_sweep") == std::string::npos) {
        nlohmann::json j;
        bool one_object = false;
        try {
            j = detail::parse_json_text(text, "block hints '" + path + "'");
            one_object = j.is_object() && !j.contains("family");
        } catch (const invalid_input&) {
            // Several lines of rows, a JSON-lines table (read below), begins with a whole
            // object on its first line; guess's JSON (one object over several lines) does
            // not, so a broken one is said as the parser says it, not as its first line.
            // One line only is no table of rows either (a duplicate key, a number out of range).
            const std::size_t eol = text.find('\n', first);
            if (eol == std::string::npos || text.find_first_not_of(" \t\r\n", eol) == std::string::npos ||
                !nlohmann::json::accept(std::string_view(text).substr(first, eol - first)))
                throw;
        }
        if (one_object) {
            std::vector<long> hints = hints_from_predictions(j, path, plain, layered, degree);
            if (!homogeneous) return {};
            if (hints.empty()) throw invalid_input("block hints '" + path + "' have no prediction of this configuration (key columns " + plain + ")");
            return hints;
        }
    }
    const TableFile file = parse_table_text(text, json, "block table '" + path + "'");
    if (!file.rows.empty() && !is_block_row(file.rows.front()))
        throw invalid_input("block hints '" + path + "': the table has no column 'block' (a block table: seprank table --blocks)");
    std::vector<long> hints;
    std::vector<char> ok_at;  // whether block a's hint is an ok row's (two must agree)
    try {
        for (const Row& row : file.rows) {
            if (!is_block_row(row) || row_key(row) != (row.contains("layers") ? layered : plain)) continue;
            // the row is this network's, as --resume checks it (an edited degree would size the hints)
            if (row.contains("degree") && row.at("degree").str() != dz.str())
                throw invalid_input("block table '" + path + "': a row of this configuration has degree '" + detail::cut(row.at("degree").str()) +
                                    "', where the network's is " + dz.str());
            const std::string block = row.at("block").str(), rank = row.at("rank").str();
            if (block.empty() || rank.empty()) continue;  // a skipped configuration
            const long a = long_cell(row, "block"), r = long_cell(row, "rank");  // invalid_input naming a cell that is no integer
            if (a < 0 || a > degree || r < 0)
                throw invalid_input("block table '" + path + "': block '" + block + "' with rank '" + rank + "' is not a block 0.." +
                                    std::to_string(degree) + " of the network (its degree) and a rank >= 0");
            const auto i = static_cast<std::size_t>(a);
            if (i >= hints.size()) hints.resize(i + 1, -1), ok_at.resize(i + 1, 0);
            const bool ok = row.at("status").str() == "ok";
            // as guess --blocks folds a block given twice (hints[i] < 0: not yet given)
            const BlockTwice twice = block_given_twice(ok_at[i], hints[i], ok, r);
            if (twice == BlockTwice::conflict)
                throw invalid_input("block table '" + path + "': block " + block + " of this configuration given twice with ranks " +
                                    std::to_string(hints[i]) + " and " + rank);
            if (twice == BlockTwice::take_second) {
                hints[i] = r;
                ok_at[i] = ok;
            }
        }
    } catch (const invalid_input& e) {  // long_cell's "block table: ..." names the cell, not the file
        const std::string m = e.what(), bare = "block table: ";
        if (m.compare(0, bare.size(), bare) == 0) throw invalid_input("block table '" + path + "': " + m.substr(bare.size()));
        throw;
    }
    if (!homogeneous) return {};  // no degree blocks to hint (a residual connection): the option is ignored
    if (hints.empty())
        throw invalid_input("block hints '" + path + "': the block table has no block row of this configuration (key columns " + plain + ")");
    return hints;
}

}  // namespace seprank
