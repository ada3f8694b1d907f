// seprank — the table file: its sweep line and header, rows read back and checked (a torn
// last line repaired), rows appended under a lock (table.hpp; docs/table.md).
#include "seprank/table.hpp"

#include "base/count_text.hpp"
#include "base/file_io.hpp"
#include "seprank/error.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/table_blocks.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace seprank {

namespace {

const std::string kCsvSweepPrefix = "# seprank table sweep: ";
const std::string kJsonSweepKey = "seprank_table_sweep";

std::string sweep_line(const std::string& sweep, bool json_lines, const std::string& header) {
    if (json_lines) return nlohmann::json({{kJsonSweepKey, sweep}}).dump() + "\n";
    return kCsvSweepPrefix + sweep + "\n" + header + "\n";
}

// A count the table writes: decimal digits, at most 18 (it fits a long).
bool is_integer_text(const std::string& t) {
    if (t.empty() || t.size() > 18) return false;
    for (const char c : t)
        if (c < '0' || c > '9') return false;
    return true;
}

// An optional count cell, if the row has the column: empty (null) or a count, in JSON lines
// a number.
void check_count_cell(const Row& r, const std::string& c, const std::string& where, bool json, long least = 0) {
    if (!r.contains(c)) return;
    const std::string v = r.at(c).str();
    if (v.empty() && (!json || r.at(c).is_null())) return;
    if (!is_integer_text(v) || (json && r.at(c).type() != Value::Type::integer))
        throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' is not a count (digits, at most 18)");
    if (std::stol(v) < least) throw invalid_input(where + ": column '" + c + "' = " + v + " is below " + std::to_string(least));
}

// A boolean cell, if the row has the column: empty (null), true or false.
void check_bool_cell(const Row& r, const std::string& c, const std::string& where) {
    if (!r.contains(c)) return;
    const std::string v = r.at(c).str();
    if (v != "true" && v != "false" && !v.empty()) throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' (expected true or false)");
}

// A time or memory cell: empty or a finite number >= 0.
void check_measure_cell(const Row& r, const std::string& c, const std::string& where) {
    if (!r.contains(c) || r.at(c).str().empty()) return;
    const std::string v = r.at(c).str();
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size() || !std::isfinite(x) || x < 0)
        throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' is not a number >= 0");
}

// A real cell (log3_rank, the bounds and ratios): empty or a finite number, any sign.
void check_real_cell(const Row& r, const std::string& c, const std::string& where) {
    if (!r.contains(c) || r.at(c).str().empty()) return;
    const std::string v = r.at(c).str();
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (end != v.c_str() + v.size() || !std::isfinite(x))
        throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' is not a finite number");
}

// A size cell (degree, params, terms, rows, cols, trials, degenerate): empty or digits of
// any length (a degree d^L may pass a long).
void check_digits_cell(const Row& r, const std::string& c, const std::string& where) {
    if (!r.contains(c)) return;
    const std::string v = r.at(c).str();
    if (!v.empty() && v.find_first_not_of("0123456789") != std::string::npos)
        throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' is not a count (digits)");
}

// A count that fits a long: digits only, at most 19 (a block's caps saturate at LONG_MAX/4,
// which has 19: model.hpp).
bool is_long_count(const std::string& t) {
    if (t.empty() || t.size() > 19 || t.find_first_not_of("0123456789") != std::string::npos) return false;
    return t.size() < 19 || t <= "9223372036854775807";
}

// A block row's own cells (table_blocks.hpp), reused as they stand by --resume and folded
// into block hints: blocks at least 1; block empty only in a skipped configuration's row,
// else a block 0..degree of the network; the caps counts, the rank at most the smaller cap
// (the block's rank cannot pass it) and at_cap saying whether it reaches it; in JSON lines
// numbers as numbers.
void check_block_cells(const Row& r, const std::string& where, bool json) {
    if (std::stol(r.at("blocks").str()) < 1) throw invalid_input(where + ": column 'blocks' = 0 (a configuration has at least one row)");
    const std::string status = r.at("status").str(), block = r.at("block").str();
    if (block.empty()) {
        if (status != "skipped") throw invalid_input(where + ": a row of status '" + detail::cut(status) + "' without its block");
        return;
    }
    for (const char* c : {"block", "cap_a", "cap_b"}) {
        const std::string v = r.at(c).str();
        if (!is_long_count(v) || (json && r.at(c).type() != Value::Type::integer))
            throw invalid_input(where + ": column '" + std::string(c) + "' = '" + v.substr(0, 40) + "' is not a count (digits, at most 2^63 - 1)");
    }
    if (json && r.at("blocks").type() != Value::Type::integer)
        throw invalid_input(where + ": column 'blocks' is the text \"" + r.at("blocks").str().substr(0, 40) + "\", not a number");
    const std::string degree = r.at("degree").str();
    if (is_long_count(degree) && std::stol(block) > std::stol(degree))
        throw invalid_input(where + ": block " + block + " is above the network's degree " + degree + " (its blocks are 0.." + degree + ")");
    const std::string rank = r.at("rank").str();
    const long cap = std::min(std::stol(r.at("cap_a").str()), std::stol(r.at("cap_b").str()));
    if (!rank.empty() && std::stol(rank) > cap)
        throw invalid_input(where + ": block " + block + " has rank " + rank + " above its cap " + std::to_string(cap) + " (the smaller of cap_a and cap_b)");
    const std::string at_cap = r.at("at_cap").str();
    if (at_cap != "true" && at_cap != "false") throw invalid_input(where + ": column 'at_cap' = '" + at_cap.substr(0, 40) + "' (expected true or false)");
    if (!rank.empty() && (at_cap == "true") != (std::stol(rank) == cap))
        throw invalid_input(where + ": block " + block + " has rank " + rank + " and cap " + std::to_string(cap) + " but at_cap " + at_cap);
}

// Whether the count A (digits) is above B (digits of any length; false where B is empty
// or no count). Linear.
bool digits_above(const std::string& a, const std::string& b) {
    if (b.empty() || b.find_first_not_of("0123456789") != std::string::npos) return false;
    const auto bare = [](const std::string& t) { return t.substr(std::min(t.find_first_not_of('0'), t.size())); };
    const std::string x = bare(a), y = bare(b);
    return x.size() != y.size() ? x.size() > y.size() : x > y;
}

// The ε-rank cells (table --eps), if the row has them: eps a list of finite numbers >= 0;
// eps_ranks one rank (R) or range (LOW..HIGH, LOW <= HIGH) per ε, eps_certified one true
// or false per rank; both empty when the ε-ranks were not computed (the reason says why).
void check_eps_cells(const Row& r, const std::string& where) {
    if (!r.contains("eps")) return;
    const auto words = [](const std::string& t) {
        std::vector<std::string> out;
        std::istringstream in(t);
        for (std::string w; in >> w;) out.push_back(w);
        return out;
    };
    const std::vector<std::string> eps = words(r.at("eps").str()), ranks = words(r.at("eps_ranks").str()), cert = words(r.at("eps_certified").str());
    for (const std::string& e : eps) {
        char* end = nullptr;
        const double x = std::strtod(e.c_str(), &end);
        if (end != e.c_str() + e.size() || !(x >= 0) || !std::isfinite(x))
            throw invalid_input(where + ": column 'eps' holds '" + detail::cut(e) + "' (expected finite numbers >= 0)");
    }
    if (!ranks.empty() && ranks.size() != eps.size())
        throw invalid_input(where + ": column 'eps_ranks' has " + std::to_string(ranks.size()) + " ranks for " + std::to_string(eps.size()) + " values of eps");
    if (cert.size() != ranks.size())
        throw invalid_input(where + ": column 'eps_certified' has " + std::to_string(cert.size()) + " words for " + std::to_string(ranks.size()) + " ranks");
    for (const std::string& k : ranks) {
        const std::size_t dots = k.find("..");
        const std::string low = k.substr(0, dots), high = dots == std::string::npos ? low : k.substr(dots + 2);
        if (!is_integer_text(low) || !is_integer_text(high) || digits_above(low, high))
            throw invalid_input(where + ": column 'eps_ranks' holds '" + detail::cut(k) + "' (expected a rank R or a range LOW..HIGH)");
    }
    for (const std::string& c : cert)
        if (c != "true" && c != "false") throw invalid_input(where + ": column 'eps_certified' holds '" + detail::cut(c) + "' (expected true or false)");
}

// A resumed row is reused as it stands, so its configuration, rank and the optional groups'
// cells must be well formed.
void check_row(const Row& r, const std::string& where, bool json) {
    const bool block = r.contains("block");  // a block table's row (table_blocks.hpp)
    // every column of the row's groups (a JSON line may leave one out): the base columns
    // first, in order, then the optional groups the row has
    for (const auto& c : block ? table_block_columns(r.contains("layers"), r.contains("device")) : row_columns(r))
        if (!r.contains(c)) throw invalid_input(where + ": column '" + c + "' is missing");
    if (block)
        for (const char* c : {"blocks", "total"}) {
            const std::string v = r.at(c).str();
            if ((!v.empty() || c[1] == 'l') && !is_integer_text(v))  // blocks is never empty, total is for a skipped configuration
                throw invalid_input(where + ": column '" + std::string(c) + "' = '" + v.substr(0, 40) + "' is not a count (digits, at most 18)");
        }
    for (const char* c : {"tokens", "dim", "heads", "block_degree", "width", "depth", "embed_rank", "head_dim", "attention_rank", "position"}) {
        if (!r.contains(c)) continue;  // a block row has no embed_rank … position
        const std::string v = r.at(c).str();
        if (!is_integer_text(v)) {  // said as the count it should be: negative, too long, or no integer
            long ignored = 0;
            const char* why = detail::count_text_error(v, &ignored);
            throw invalid_input(where + ": column '" + c + "' = '" + detail::cut(v) + "' " +
                                (why != nullptr ? why : "is out of range (a count here has at most 18 digits)"));
        }
    }
    check_bool_cell(r, "residual", where);
    // the partition fits the row's tokens (a row edited by hand was kept as outside the sweep)
    const long tokens = std::stol(r.at("tokens").str());
    if (tokens < 2 || tokens > kMaxSize)
        throw invalid_input(where + ": column 'tokens' = " + r.at("tokens").str() + " (expected 2.." + std::to_string(kMaxSize) + ")");
    if (r.contains("partition")) try {
            (void)parse_partition(r.at("partition").str(), tokens);
        } catch (const invalid_input& e) {
            throw invalid_input(where + ": column 'partition': " + e.what());
        }
    // the cells of a fixed vocabulary
    const auto one_of = [&](const char* c, std::initializer_list<const char*> allowed) {
        if (!r.contains(c)) return;
        const std::string v = r.at(c).str();
        std::string expected;
        for (const char* a : allowed) {
            if (v == a) return;
            if (*a != '\0') expected += (expected.empty() ? "" : ", ") + std::string(a);
        }
        throw invalid_input(where + ": column '" + c + "' = '" + v.substr(0, 40) + "' (expected " + expected + " or empty)");
    };
    one_of("method", {"", "flattening", "evaluation", "grid"});
    one_of("theorem", {"", "7.1", "7.2"});
    one_of("outside", {"", "below", "above"});
    if (r.contains("label") && r.at("label").str().rfind("probabilistic (p <= ", 0) != 0)
        one_of("label", {"", "certified", "generic lower bound", "lower bound", "numerical"});
    if (r.contains("dim_label") && r.at("dim_label").str().rfind("probabilistic (p <= ", 0) != 0)
        one_of("dim_label", {"", "certified", "generic lower bound", "lower bound"});
    const std::string rank = r.at("rank").str(), status = r.at("status").str();
    if (!rank.empty() && !is_integer_text(rank))
        throw invalid_input(where + ": column 'rank' = '" + rank.substr(0, 40) + "' is not a count (digits, at most 18)");
    if (r.at("rank").type() == Value::Type::text && json)  // JSON lines keep types: a rank is a number
        throw invalid_input(where + ": column 'rank' is the text \"" + rank.substr(0, 40) + "\", not a number");
    check_bool_cell(r, "certified", where);
    if (status != "ok" && status != "lower-bound" && status != "skipped")
        throw invalid_input(where + ": column 'status' = '" + detail::cut(status) + "' (expected ok, lower-bound or skipped)");
    if (status != "skipped" && rank.empty()) throw invalid_input(where + ": status '" + detail::cut(status) + "' without a rank");
    if (status != "skipped" && !block)  // a rank says how it was computed
        for (const char* c : {"method", "label", "rows", "cols", "trials"})
            if (r.contains(c) && r.at(c).str().empty()) throw invalid_input(where + ": status '" + detail::cut(status) + "' without its '" + c + "'");
    try {
        family_from_string(r.at("family").str());
    } catch (const invalid_input& e) {
        throw invalid_input(where + ": column 'family': " + e.what());
    }
    for (const char* c : {"dimension", "dim_expected"}) check_count_cell(r, c, where, json);
    // a degree, its bounds and a fibre count are at least 1
    for (const char* c : {"variety_degree", "variety_degree_at_least", "variety_degree_at_most", "gauge_fibre"}) check_count_cell(r, c, where, json, 1);
    check_bool_cell(r, "dim_defect", where);
    // variety_degree_at_least <= variety_degree <= variety_degree_at_most, where present
    const auto in_order = [&](const char* low, const char* high) {
        if (r.contains(low) && r.contains(high) && !r.at(low).str().empty() && !r.at(high).str().empty() &&
            std::stol(r.at(low).str()) > std::stol(r.at(high).str()))
            throw invalid_input(where + ": " + low + " " + r.at(low).str() + " is above " + high + " " + r.at(high).str());
    };
    in_order("variety_degree_at_least", "variety_degree");
    in_order("variety_degree", "variety_degree_at_most");
    in_order("variety_degree_at_least", "variety_degree_at_most");
    for (const char* c : {"seconds", "peak_mib"}) check_measure_cell(r, c, where);
    for (const char* c : {"log3_rank", "log3_lower", "log3_upper", "s_up", "s_low", "ratio_up", "ratio_low"}) check_real_cell(r, c, where);
    for (const char* c : {"degree", "params", "terms", "rows", "cols", "trials", "degenerate"}) check_digits_cell(r, c, where);
    // a chance: a number in [0, 1] (empty for the rows without one)
    if (r.contains("failure_bound") && !r.at("failure_bound").str().empty()) {
        check_measure_cell(r, "failure_bound", where);
        if (std::strtod(r.at("failure_bound").str().c_str(), nullptr) > 1)
            throw invalid_input(where + ": column 'failure_bound' = '" + r.at("failure_bound").str().substr(0, 40) + "' is above 1");
    }
    if (r.contains("dim_failure_bound") && !r.at("dim_failure_bound").str().empty()) {
        check_measure_cell(r, "dim_failure_bound", where);
        if (std::strtod(r.at("dim_failure_bound").str().c_str(), nullptr) > 1)
            throw invalid_input(where + ": column 'dim_failure_bound' = '" + r.at("dim_failure_bound").str().substr(0, 40) + "' is above 1");
    }
    check_eps_cells(r, where);
    if (r.contains("layers")) try {
            if (const std::string spec = r.at("layers").str(); !spec.empty()) (void)parse_layers(spec);
        } catch (const invalid_input& e) {
            throw invalid_input(where + ": column 'layers': " + e.what());
        }
    // what the cells say of one another: certified is the label's word, and a certain rank
    // has no failure bound and is no lower bound; no rank passes the sides of its matrix
    const std::string certified = r.contains("certified") ? r.at("certified").str() : std::string();
    const std::string label = r.contains("label") ? r.at("label").str() : std::string();
    if (!certified.empty() && !label.empty() && (certified == "true") != (label == "certified"))
        throw invalid_input(where + ": certified " + certified + " but label '" + detail::cut(label) + "'");
    if (certified == "true" && r.contains("failure_bound") && !r.at("failure_bound").str().empty() &&
        std::strtod(r.at("failure_bound").str().c_str(), nullptr) != 0)
        throw invalid_input(where + ": a certified rank with failure_bound " + r.at("failure_bound").str().substr(0, 40) + " (a certain rank has 0)");
    if (certified == "true" && status == "lower-bound") throw invalid_input(where + ": a certified rank of status lower-bound");
    if (!block && !rank.empty())
        for (const char* side : {"rows", "cols"})
            if (r.contains(side) && digits_above(rank, r.at(side).str()))
                throw invalid_input(where + ": rank " + rank + " is above the matrix's " + side + " " + r.at(side).str().substr(0, 40));
    if (block) check_block_cells(r, where, json);
}

}  // namespace

TableFile parse_table_text(const std::string& text, bool json_lines, const std::string& source) {
    TableFile out;
    // A UTF-8 byte-order mark (an editor or a spreadsheet may write one) is not part of the
    // first line, as guess reads tables too.
    std::size_t pos = detail::table_text_start(text, source);
    // A JSON array (a table printed with --format json, not written by --out) is one
    // document, not JSON lines: said so, not as its first line's syntax error.
    if (const std::size_t first = text.find_first_not_of(" \t\r\n", pos); json_lines && first != std::string::npos && text[first] == '[')
        throw invalid_input(source + " is a JSON array (a table printed with --format json), not the JSON lines a table's --out writes "
                            "(its sweep line, then one row per line): a run resumes only from its own --out file");
    long lineno = 0;
    std::vector<std::string> header;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) break;  // a torn last line (no newline) is not a row
        std::string line = text.substr(pos, nl - pos);
        if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF, as an editor may save it
        pos = nl + 1;
        ++lineno;
        const std::string where = source + " line " + std::to_string(lineno);
        if (line.empty()) continue;
        if (lineno == 1) {
            if (json_lines && line.find(kJsonSweepKey) != std::string::npos) {
                const Record meta = record_from_json(line, where);
                if (!meta.contains(kJsonSweepKey) || meta.at(kJsonSweepKey).type() != Value::Type::text)
                    throw invalid_input(where + ": malformed sweep line");
                out.sweep = meta.at(kJsonSweepKey).as_text();
                continue;
            }
            if (!json_lines && line.rfind(kCsvSweepPrefix, 0) == 0) {
                out.sweep = line.substr(kCsvSweepPrefix.size());
                continue;
            }
            // The other format's sweep line: the file was written with the other --format.
            if (json_lines && line.rfind(kCsvSweepPrefix, 0) == 0)
                throw invalid_input(source + " is a CSV table (its first line is the CSV sweep line): resume it as CSV (the CLI's --format csv, Python's out_format='csv')");
            if (!json_lines && line.find(kJsonSweepKey) != std::string::npos && line.find_first_not_of(" \t") < line.size() &&
                line[line.find_first_not_of(" \t")] == '{')
                throw invalid_input(source + " is a JSON lines table (its first line is the JSON sweep line): resume it as JSON lines (the CLI's --format json, Python's out_format='json')");
            if (!json_lines && line.rfind("#", 0) == 0) throw invalid_input(where + ": not a seprank sweep line: " + line.substr(0, 80));
        }
        if (json_lines) {
            Row r = record_from_json(line, where);
            check_row(r, where, true);
            out.rows.push_back(std::move(r));
            continue;
        }
        std::vector<std::string> cells = parse_csv_line(line, where);
        if (header.empty()) {
            header = cells;
            out.header = true;
            bool known = false;  // the header of some sweep: with or without each optional group
            for (int m = 0; m < 32 && !known; ++m)
                known = header == table_columns((m & 1) != 0, (m & 2) != 0, (m & 4) != 0, (m & 8) != 0, (m & 16) != 0);
            for (int m = 0; m < 4 && !known; ++m) known = header == table_block_columns((m & 1) != 0, (m & 2) != 0);
            if (!known)
                throw invalid_input(source + " does not hold the seprank table header (" + where + ": " + line.substr(0, 80) + ")");
            continue;
        }
        if (cells.size() != header.size())
            throw invalid_input(where + " has " + std::to_string(cells.size()) + " cells, expected " + std::to_string(header.size()));
        Row r;
        for (std::size_t k = 0; k < cells.size(); ++k) r.set(header[k], cells[k]);
        check_row(r, where, false);
        out.rows.push_back(std::move(r));
    }
    out.complete_bytes = pos;
    return out;
}

std::vector<Row> read_table_file(const std::string& path, bool json_lines) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    const int fd = detail::open_regular_rw(path, "table file");
    std::string text;
    try {
        text = detail::read_fd(fd, path, "table file");
    } catch (...) {
        ::close(fd);
        throw;
    }
    TableFile f = parse_table_text(text, json_lines, "'" + path + "'");
    if (f.complete_bytes < text.size() && ::ftruncate(fd, static_cast<off_t>(f.complete_bytes)) != 0) {
        const int e = errno;
        ::close(fd);
        throw resource_limit("cannot repair torn last line of '" + path + "': " + std::strerror(e));
    }
    ::close(fd);
    return std::move(f.rows);
}

TableAppender::TableAppender(const std::string& path, bool json_lines) : TableAppender(path, json_lines, std::string(), true) {}

TableAppender::TableAppender(const std::string& path, bool json_lines, const std::string& sweep, bool resume)
    : json_(json_lines), path_(path), sweep_(sweep) {
    struct stat before {};
    const bool existed = ::lstat(path.c_str(), &before) == 0;
    fd_ = detail::open_regular_rw(path, "table file");
    try {
        if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
            throw invalid_input("table file '" + path + "' is locked by another seprank table run; wait for it to finish or use another file");
        const std::string text = detail::read_fd(fd_, path, "table file");
        created_ = !existed || text.empty();
        if (!text.empty() && !resume)
            throw invalid_input("table file '" + path + "' exists and is not empty: resume it (the CLI's --resume, Python's resume=True), or remove it");
        TableFile f = parse_table_text(text, json_lines, "'" + path + "'");
        if (!text.empty() && !sweep.empty() && f.sweep != sweep && !f.sweep.empty() && sweep.rfind("results=", 0) == 0 &&
            f.sweep.substr(0, f.sweep.find(' ')) != sweep.substr(0, sweep.find(' ')))
            throw invalid_input("table file '" + path + "' was written by another version of seprank, whose rows hold other values or bounds (" +
                                (f.sweep.rfind("results=", 0) == 0 ? f.sweep.substr(0, f.sweep.find(' ')) : std::string("no results version")) +
                                "; this one: " + sweep.substr(0, sweep.find(' ')) + "): its rows cannot be reused; use another file");
        // The max side may change on resume (resume_set computes the rows it stopped again).
        const auto without_side = [](std::string sig) {
            const std::size_t at = sig.find(" max_side=");
            if (at != std::string::npos) sig.erase(at, sig.find(' ', at + 1) - at);
            return sig;
        };
        if (!text.empty() && !sweep.empty() && without_side(f.sweep) != without_side(sweep))
            throw invalid_input("table file '" + path + "' was written by a different sweep (" +
                                (f.sweep.empty() ? std::string("no sweep line") : f.sweep) + "; this sweep: " + sweep +
                                "): its rows cannot be reused; use another file");
        // ... but the file's max side is still one (a sweep line edited by hand is refused).
        if (!text.empty() && sweep.find(" max_side=") != std::string::npos) {
            const std::size_t at = f.sweep.find(" max_side=");
            const std::string side = at == std::string::npos ? std::string() : f.sweep.substr(at + 10, f.sweep.find(' ', at + 1) - (at + 10));
            if (!is_integer_text(side) || std::stol(side) < 1)
                throw invalid_input("table file '" + path + "': its sweep line's max_side '" + side.substr(0, 40) + "' is not a side >= 1");
        }
        if (f.complete_bytes < text.size() && ::ftruncate(fd_, static_cast<off_t>(f.complete_bytes)) != 0)
            throw resource_limit("cannot repair torn last line of '" + path + "': " + std::strerror(errno));
        rows_ = std::move(f.rows);
        needs_header_ = text.empty() || f.complete_bytes == 0;
        // A CSV file cut after its sweep line (a kill before the header's write ended): the
        // header alone goes first, under the sweep line already there.
        if (!needs_header_ && !json_lines && !f.header) {
            needs_header_ = true;
            sweep_.clear();  // written already
        }
    } catch (...) {
        ::close(fd_);
        fd_ = -1;
        throw;
    }
}

TableAppender::~TableAppender() {
    if (fd_ < 0) return;
    // A file this run created and never wrote a row into is removed: no empty leftovers.
    if (created_ && needs_header_) {
        struct stat st {};
        if (::fstat(fd_, &st) == 0 && st.st_size == 0) ::unlink(path_.c_str());
    }
    ::close(fd_);
}

void TableAppender::append(const Row& row) {
    // A configuration of a block sweep goes out as its block rows, in one write.
    const std::vector<Row> lines = is_block_config_row(row) ? block_rows(row) : std::vector<Row>{row};
    std::string line;
    for (const Row& r : lines) line += (json_ ? to_json(r) : csv_line(r)) + '\n';
    const std::string header = seprank::csv_line(row_columns(lines.front()));  // the columns this row has
    if (needs_header_) line = (sweep_.empty() ? (json_ ? std::string() : header + "\n") : sweep_line(sweep_, json_, header)) + line;
    // A write that fails part-way (a full disk takes what fits) is cut off again, back to
    // the file's length before it: the file ends with its last whole row, as readers and
    // a later --resume expect, not with half a row.
    struct stat before {};
    const bool sized = ::fstat(fd_, &before) == 0;
    try {
        detail::write_all(fd_, line, path_);  // one write of whole lines: a kill leaves at most a torn last line
        if (::fsync(fd_) != 0 && errno != EINVAL) throw resource_limit("writing '" + path_ + "' failed: " + std::strerror(errno));
    } catch (const resource_limit& e) {
        if (sized && ::ftruncate(fd_, before.st_size) != 0)
            throw resource_limit(std::string(e.what()) + "; cutting the part written off again failed too (" + std::strerror(errno) +
                                 "): the last line of '" + path_ + "' is torn, and --resume drops it");
        throw;
    }
    needs_header_ = false;
}

}  // namespace seprank
