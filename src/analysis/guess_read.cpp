// guess — the tables guess reads: CSV, JSON and JSON lines as cells, the --where filter and
// --predict points, and the rows as points (guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "base/file_io.hpp"
#include "guess_internal.hpp"
#include "base/json_file.hpp"
#include "seprank/answer.hpp"
#include "seprank/error.hpp"
#include "seprank/network.hpp"
#include "seprank/record.hpp"

#include <algorithm>
#include <flint/fmpz.h>
#include <optional>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

namespace seprank {

using namespace guess_detail;

namespace {

// A JSON table's rows straight from the parser's events, without a tree (a tree of
// 250,000 rows took longer to build and free than the rest of guess): the objects of a
// top-level array (`array`), or one object (a JSON line). A row's cells are its keys in
// the table's order with their values as text: a string as it is, null as "", numbers
// and booleans as JSON writes them; a value that is itself an object or a list is built
// as a tree and written back as JSON text. The checks (nesting, a key twice in one
// object, numbers out of range) are sax_parse_json_text's.
class TableRowsSax {
  public:
    TableRowsSax(std::vector<TableRow>& out, std::string what, bool array) : out_(out), what_(std::move(what)), array_(array) {}

    bool null() { return nested_depth_ > 0 ? nested_->null() : cell(std::string()); }
    bool boolean(bool v) { return nested_depth_ > 0 ? nested_->boolean(v) : cell(v ? "true" : "false"); }
    bool number_integer(nlohmann::json::number_integer_t v) {
        return nested_depth_ > 0 ? nested_->number_integer(v) : cell(std::to_string(v));
    }
    bool number_unsigned(nlohmann::json::number_unsigned_t v) {
        return nested_depth_ > 0 ? nested_->number_unsigned(v) : cell(std::to_string(v));
    }
    bool number_float(nlohmann::json::number_float_t v, const nlohmann::json::string_t& t) {
        return nested_depth_ > 0 ? nested_->number_float(v, t) : cell(nlohmann::json(v).dump());  // as the tree wrote it: 2.0
    }
    bool string(nlohmann::json::string_t& v) { return nested_depth_ > 0 ? nested_->string(v) : cell(std::move(v)); }
    bool binary(nlohmann::json::binary_t& v) { return nested_depth_ > 0 ? nested_->binary(v) : cell(std::string()); }
    bool key(nlohmann::json::string_t& k) {
        if (nested_depth_ > 0) return nested_->key(k);
        key_ = k;
        return true;
    }
    bool start_object(std::size_t n) {
        if (nested_depth_ > 0 || level_ == row_level()) return start_nested(n, true);
        if (level_ != row_level() - 1) not_object();
        ++level_;
        out_.emplace_back();
        if (out_.size() > 1) out_.back().reserve(out_[out_.size() - 2].size());  // rows mostly have the same columns
        return true;
    }
    bool end_object() {
        if (nested_depth_ > 0) return end_nested(true);
        --level_;
        return true;
    }
    bool start_array(std::size_t n) {
        if (nested_depth_ > 0 || level_ == row_level()) return start_nested(n, false);
        if (!array_ || level_ != 0) not_object();
        ++level_;
        return true;
    }
    bool end_array() {
        if (nested_depth_ > 0) return end_nested(false);
        --level_;
        return true;
    }
    template <class Exception>
    bool parse_error(std::size_t, const std::string&, const Exception& e) {
        throw e;
    }

  private:
    int row_level() const { return array_ ? 2 : 1; }  // the containers open inside a row
    [[noreturn]] void not_object() const {
        throw invalid_input(what_ + (array_ ? ": element " + std::to_string(out_.size() + 1) : std::string()) + " is not a JSON object");
    }
    bool cell(std::string v) {
        if (level_ != row_level()) not_object();
        out_.back().emplace_back(key_, std::move(v));
        return true;
    }
    bool start_nested(std::size_t n, bool object) {
        if (nested_depth_++ == 0) {
            nested_value_ = nlohmann::json();
            nested_ = std::make_unique<nlohmann::detail::json_sax_dom_parser<nlohmann::json>>(nested_value_);
        }
        return object ? nested_->start_object(n) : nested_->start_array(n);
    }
    bool end_nested(bool object) {
        const bool ok = object ? nested_->end_object() : nested_->end_array();
        if (--nested_depth_ == 0) {
            nested_.reset();
            out_.back().emplace_back(key_, nested_value_.dump());
        }
        return ok;
    }

    std::vector<TableRow>& out_;
    std::string what_;  // "table 'PATH'" or "table 'PATH': line N"
    bool array_;
    int level_ = 0;     // containers open, outside a nested value
    std::string key_;   // the row's key being read
    int nested_depth_ = 0;
    nlohmann::json nested_value_;
    std::unique_ptr<nlohmann::detail::json_sax_dom_parser<nlohmann::json>> nested_;
};

}  // namespace

namespace {

// Whether text is one JSON object (checked as every JSON text here is). Linear.
bool json_object_text(std::string_view text) {
    try {
        return detail::parse_json_text(text, "text").is_object();
    } catch (const invalid_input&) {
        return false;
    }
}

// A table without rows, refused: guess has nothing to fit, and "0 distinct row(s)" would
// hide that the file holds only a header (naming its columns), nothing, or no row object.
[[noreturn]] void no_rows(const std::string& source, const std::string& what) {
    throw invalid_input(source + " has no rows: " + what);
}

// The columns of a header for a message: the first 8, each cut (detail::cut), then how many more.
std::string columns_text(const std::vector<std::string>& header) {
    std::string t;
    for (std::size_t i = 0; i < header.size() && i < 8; ++i) t += (i ? ", " : "") + cut(header[i]);
    if (header.size() > 8) t += " and " + std::to_string(header.size() - 8) + " more";
    return t;
}

// What a text that does not begin with '[' or '{' is when it is one JSON value, in words
// ("a JSON string"); empty when it is no JSON value (CSV, whose header and rows are not
// one value, fails within its first cell or line). Stops at the first character that is
// not JSON.
std::string json_scalar_kind(std::string_view text) {
    if (!nlohmann::json::accept(text)) return "";
    switch (text[0]) {
        case '"': return "a JSON string";
        case 't': case 'f': return "a JSON boolean";
        case 'n': return "JSON null";
        default: return "a JSON number";
    }
}

}  // namespace

std::vector<TableRow> parse_table_cells(const std::string& input, const std::string& source) {
    using Row = TableRow;
    std::vector<Row> out;
    // A UTF-8 byte-order mark (some editors and spreadsheets write one) is not part of the
    // first column's name: skipped.
    const std::string& text = input;
    const std::size_t skip = detail::table_text_start(text, source);
    std::size_t start = text.find_first_not_of(" \t\r\n", skip);
    if (start == std::string::npos) no_rows(source, "the file is empty");
    // JSON goes through the checks the weights files get (json_file.hpp): nesting depth
    // bounded, a number out of range and a key given twice in one object refused.
    if (text[start] == '[') {
        TableRowsSax rows(out, source, true);
        detail::sax_parse_json_text(std::string_view(text).substr(start), source, rows, detail::kTableNumberHint);
        if (out.empty()) no_rows(source, "an empty JSON array");
        return out;
    }
    if (text[start] == '{') {  // JSON lines
        bool first = true;
        long number = 0;
        for (std::size_t at = skip; at < text.size();) {
            std::size_t end = text.find('\n', at);
            if (end == std::string::npos) end = text.size();
            const std::string_view line(text.data() + at, end - at);
            at = end + 1;
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
            const std::string where = source + ": line " + std::to_string(number);
            TableRowsSax row(out, where, false);
            try {
                detail::sax_parse_json_text(line, where, row, detail::kTableNumberHint);
            } catch (const invalid_input&) {
                // The whole text one JSON object (a record, as `rank --format json` prints):
                // not a table, said so rather than the first line's syntax error.
                if (first && json_object_text(std::string_view(text).substr(start)))
                    throw invalid_input(source + " is one JSON object, not a table: a table is a JSON array of row objects, JSON lines (one object "
                                                 "per line) or CSV (seprank table writes all three)");
                throw;
            }
            // The sweep line `seprank table --format json --out` writes first: skipped, as
            // the CSV's `#` sweep line.
            if (first && out.back().size() == 1 && out.back()[0].first == "seprank_table_sweep") out.pop_back();
            first = false;
        }
        if (out.empty()) no_rows(source, "JSON lines with a sweep line only");
        return out;
    }
    if (const std::string kind = json_scalar_kind(std::string_view(text).substr(start)); !kind.empty())
        throw invalid_input(source + " is " + kind + ", not a table: a table is a JSON array of row objects, JSON lines (one object per line) "
                                     "or CSV with a header line (seprank table writes all three)");
    std::istringstream in(text.substr(skip));
    std::string line;
    long number = 0;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find('\r') != std::string::npos)
            throw invalid_input(source + ": line " + std::to_string(number) + " holds a carriage return (CR) inside: lines must end in LF or CRLF");
        if (line.empty() || line[0] == '#') continue;  // comments (a table's sweep line) and blanks
        std::vector<std::string> cells = parse_csv_line(line, source + ": line " + std::to_string(number));
        if (header.empty()) {
            detail::check_unique_header(cells, source + ": line " + std::to_string(number));
            header = std::move(cells);
            continue;
        }
        if (cells.size() != header.size())
            throw invalid_input(source + ": line " + std::to_string(number) + " has " + std::to_string(cells.size()) + " cells, the header " +
                                std::to_string(header.size()));
        Row r;
        r.reserve(cells.size());
        for (std::size_t i = 0; i < cells.size(); ++i) r.emplace_back(header[i], std::move(cells[i]));
        out.push_back(std::move(r));
    }
    if (out.empty()) no_rows(source, header.empty() ? std::string("no header and no row (comments only)") : "a header only (" + columns_text(header) + ")");
    return out;
}

std::vector<TableRow> read_table_cells(const std::string& path) {
    return parse_table_cells(detail::read_input_file(path, "table", detail::kTableBytesPerByte), "table '" + path + "'");
}

namespace {

bool parse_long(const std::string& s, long& v) {
    const char* b = s.data();
    const char* e = b + s.size();
    if (s.size() > 1 && s[0] == '+' && s[1] != '-') ++b;  // "+1", as a value cell "+2" is read (from_chars takes no '+')
    auto [p, ec] = std::from_chars(b, e, v);
    return ec == std::errc() && p == e && !s.empty();
}

// Whether s is an optionally signed run of digits (an integer, whatever its size).
bool integer_text(const std::string& s) {
    std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

}  // namespace

std::vector<long> parse_point(const std::string& text, const std::vector<std::string>& vars) {
    std::string names;
    for (const std::string& v : vars) names += (names.empty() ? "" : ",") + v;
    const std::string head = "point '" + cut(text) + "': ";
    std::vector<std::pair<std::string, std::string>> items;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string::npos) comma = text.size();
        const std::string item = text.substr(pos, comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
            throw invalid_input(head + "'" + cut(item) + "' is not name=value");
        const std::string name = item.substr(0, eq);
        if (std::find(vars.begin(), vars.end(), name) == vars.end())
            throw invalid_input(head + "'" + cut(name) + "' is not a variable (the variables: " + names + ")");
        for (const auto& [k, v] : items)
            if (k == name) throw invalid_input(head + "'" + name + "' is given twice");
        items.emplace_back(name, item.substr(eq + 1));
        pos = comma + 1;
    }
    std::vector<long> x;
    for (const std::string& v : vars) {
        const auto it = std::find_if(items.begin(), items.end(), [&](const auto& kv) { return kv.first == v; });
        if (it == items.end()) throw invalid_input(head + "no value for variable '" + v + "'");
        long value = 0;
        if (!parse_long(it->second, value)) {
            if (integer_text(it->second))
                throw invalid_input(head + v + " = " + cut(it->second) + " is out of range (-2^63..2^63-1)");
            throw invalid_input(head + v + " = '" + cut(it->second) + "' is not an integer");
        }
        x.push_back(value);
    }
    return x;
}

const std::string* table_cell(const TableRow& row, const std::string& name) {
    for (const auto& [k, v] : row)
        if (k == name) return &v;
    return nullptr;
}

bool guess_detail::failure_bound_cell(const TableRow& row, double& out) {
    const std::string* fb = table_cell(row, "failure_bound");
    if (!fb || fb->empty()) return false;
    char* end = nullptr;
    const double f = std::strtod(fb->c_str(), &end);
    if (end != fb->c_str() + fb->size() || !(f >= 0 && f <= 1)) return false;
    out = f;
    return true;
}

namespace {

// The table's text of a stack's SPEC (its `layers` column): the canonical shortest list.
std::string canonical_layers(const std::string& spec) { return layers_to_string(layers_period(parse_layers(spec))); }

bool is_name_start(const std::string& item) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    for (std::size_t k = 0; k < eq; ++k) {
        const char c = item[k];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    }
    return true;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_where(const std::string& text) {
    if (text.empty()) throw invalid_input("--where: empty (expected name=value[,name=value...])");
    std::vector<std::pair<std::string, std::string>> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.empty()) throw invalid_input("--where '" + text + "': an empty item between commas");
        if (is_name_start(item)) {
            const std::size_t eq = item.find('=');
            out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
        } else if (!out.empty()) {
            out.back().second += "," + item;  // a comma inside the value (a SPEC, a partition)
        } else {
            throw invalid_input("--where: '" + item + "' is not name=value");
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
        const auto& [name, value] = out[k];
        if (value.empty()) throw invalid_input("--where: '" + name + "=' has no value");
        for (std::size_t j = 0; j < k; ++j)  // dim=1,dim=2 would match no row: a typo, said as one
            if (out[j].first == name)
                throw invalid_input("--where '" + text + "': '" + name + "' given twice (" + out[j].second + " and " + value +
                                    "); a row has one value of each column");
    }
    return out;
}

namespace {
// A stack row's copies of its SPEC: its depth over the number of layers of its `layers`
// cell, where that parses and divides the depth; nullopt otherwise (with_stack_copies).
std::optional<long> stack_copies(const TableRow& row) {
    const std::string* spec = table_cell(row, "layers");
    const std::string* depth = table_cell(row, "depth");
    long L = 0;
    if (!spec || spec->empty() || !depth || !parse_long(*depth, L)) return std::nullopt;
    long n = 0;
    try {
        n = static_cast<long>(parse_layers(*spec).size());
    } catch (const invalid_input&) {
        return std::nullopt;  // not a SPEC: the row has no copies
    }
    if (n > 0 && L > 0 && L % n == 0) return L / n;
    return std::nullopt;
}
}  // namespace

bool row_matches(const TableRow& row, const std::vector<std::pair<std::string, std::string>>& where) {
    bool keep = true;
    for (const auto& [name, want] : where) {
        const std::string* got = table_cell(row, name);
        std::string derived;  // `copies` a stack row has without the cell (with_stack_copies)
        if (!got && name == "copies")
            if (const std::optional<long> c = stack_copies(row)) got = &(derived = std::to_string(*c));
        if (!got) throw invalid_input("guess: the table has no column '" + name + "' (named in --where)");
        if (name == "layers" && !want.empty()) {  // a SPEC: compared in the form the table writes (empty: as text)
            std::string canonical;
            try {
                canonical = canonical_layers(want);
            } catch (const invalid_input& e) {
                throw invalid_input("guess: --where layers='" + want + "' is not a SPEC: " + e.what());
            }
            bool same = *got == canonical;
            if (!same && !got->empty()) {  // a cell not written by seprank table: read it as a SPEC too
                try {
                    same = canonical_layers(*got) == canonical;
                } catch (const invalid_input&) {
                    same = false;  // a cell that is not a SPEC matches no SPEC
                }
            }
            keep = keep && same;
            continue;
        }
        long a = 0, b = 0;
        keep = keep && (parse_long(*got, a) && parse_long(want, b) ? a == b : *got == want);
    }
    return keep;
}

namespace {

// The message for rows a and b (table rows ra, rb) at point x with different values:
// the columns before the value's where they differ, which is what --where must fix (a
// table's configuration comes first; the results, from the value on, differ with it).
std::string disagreeing_rows(const TableRow& a, const TableRow& b, std::size_t ra, std::size_t rb, const std::vector<std::string>& vars,
                             const std::vector<long>& x, const std::string& value) {
    std::string m = "guess: rows " + std::to_string(ra + 1) + " and " + std::to_string(rb + 1) + " at " + point_text(vars, x) +
                    " have different values " + cut(*table_cell(a, value)) + " and " + cut(*table_cell(b, value));
    std::vector<std::string> differ;
    std::string first_want;
    for (const auto& [name, cell] : a) {
        if (name == value) break;
        const std::string* other = table_cell(b, name);
        if (!other || *other == cell || std::find(vars.begin(), vars.end(), name) != vars.end()) continue;
        if (differ.empty()) first_want = name + "=" + cell;
        differ.push_back(name);
    }
    if (differ.empty()) return m + ": a table with one value per point is needed";
    // A block table (table --blocks): its rows at one point are the configuration's degree
    // blocks, whose law guess --blocks fits; --where block=N would fit one block alone.
    if (table_cell(a, "block") && table_cell(a, "blocks") && std::find(differ.begin(), differ.end(), "block") != differ.end())
        return m + ": a block table, one row per degree block: fit the blocks' law with guess --blocks (or the totals with --value total)";
    m += ": they differ in ";
    for (std::size_t i = 0; i < differ.size() && i < 6; ++i) m += (i ? ", " : "") + differ[i];
    if (differ.size() > 6) m += " and " + std::to_string(differ.size() - 6) + " more";
    return m + "; keep one kind of row with --where (e.g. --where " + cut(first_want) + ") or add the column to --vars";
}

}  // namespace

namespace {

// A table read as one column whose name holds a space, tab or ';': a table separated by
// something else than commas. Said beside a missing column.
std::string one_column_hint(const TableRow& row) {
    if (row.size() != 1 || row[0].first.find_first_of(" \t;") == std::string::npos) return "";
    return "; the header was read as one column '" + cut(row[0].first) + "': columns must be separated by commas";
}

}  // namespace

std::vector<TableRow> with_stack_copies(const std::vector<TableRow>& table) {
    std::vector<TableRow> out = table;
    for (TableRow& row : out)
        if (!table_cell(row, "copies"))
            if (const std::optional<long> c = stack_copies(row)) row.emplace_back("copies", std::to_string(*c));
    return out;
}

namespace guess_detail {

std::vector<TableRow> copies_if_named(const std::vector<TableRow>& input, const std::vector<std::string>& vars,
                                      const std::vector<std::pair<std::string, std::string>>& where) {
    // `copies`, named and not a column of every row: a stack's depth over its SPEC's layers
    // (a table whose every row has the cell already is not copied)
    const bool copies = (std::find(vars.begin(), vars.end(), "copies") != vars.end() ||
                         std::any_of(where.begin(), where.end(), [](const auto& w) { return w.first == "copies"; })) &&
                        std::any_of(input.begin(), input.end(), [](const TableRow& row) { return !table_cell(row, "copies"); });
    return copies ? with_stack_copies(input) : std::vector<TableRow>();
}

}  // namespace guess_detail

std::vector<GuessPoint> guess_points(const std::vector<TableRow>& input, const std::vector<std::string>& vars, const std::string& value,
                                     const std::vector<std::pair<std::string, std::string>>& where) {
    const std::vector<TableRow> derived = guess_detail::copies_if_named(input, vars, where);
    const std::vector<TableRow>& table = derived.empty() ? input : derived;
    for (const std::string& name : vars)
        if (name == value) throw invalid_input("guess: the value column '" + value + "' is also named in --vars: it cannot be a function of itself");
    if (table.empty()) throw invalid_input("guess: the table has no rows");  // rows given directly (Python); a file's reader says so first
    std::vector<GuessPoint> out;
    std::map<std::vector<long>, std::size_t> first_at;  // a point's first row, for two rows that disagree
    std::size_t matched = 0;
    for (std::size_t r = 0; r < table.size(); ++r) {
        const TableRow& row = table[r];
        const std::string at = "row " + std::to_string(r + 1);
        if (!row_matches(row, where)) continue;
        ++matched;
        // A column missing here: the table's, or this row's only (JSON rows each name their keys).
        const auto missing = [&](const std::string& name, const char* what) {
            for (const TableRow& other : table)
                if (table_cell(other, name))
                    return invalid_input("guess: " + at + " has no '" + cut(name) + "' (" + what + "), which other rows have");
            return invalid_input("guess: the table has no column '" + name + "' (" + what + ")" +
                                 (name == "copies" ? std::string(": copies is derived only for a stack's rows, its depth over the layers of its "
                                                                 "'layers' SPEC")
                                                   : one_column_hint(row)));
        };
        for (const std::string& name : vars)  // the variables first: the columns the user named
            if (!table_cell(row, name)) throw missing(name, "a variable");
        const std::string* v = table_cell(row, value);
        if (!v) throw missing(value, "the value");
        if (v->empty()) continue;  // not computed
        GuessPoint p;
        for (const std::string& name : vars) {
            const std::string* c = table_cell(row, name);
            long x = 0;
            if (!parse_long(*c, x)) {
                if (integer_text(*c))
                    throw invalid_input("guess: " + at + ": " + name + " = " + cut(*c) + " is out of range (a variable lies in -2^63..2^63-1)");
                if (c->empty())  // a variable has no empty cell to skip, as the value has
                    throw invalid_input("guess: " + at + ": " + name + " is empty (a variable needs an integer in every row kept)");
                throw invalid_input("guess: " + at + ": " + name + " = '" + cut(*c) + "' is not an integer");
            }
            p.x.push_back(x);
        }
        const auto too_large = [&](const std::string& size) {
            return invalid_input("guess: " + at + ": " + value + " = " + cut(*v) + " has " + size + ", over the bound of " +
                                 std::to_string(kGuessMaxValueBits) + " bits (about 315,650 digits) of a value (docs/guess.md)");
        };
        // Its digits counted before it is parsed (a sign and leading zeros aside): a cell of
        // 10^7 digits is refused at once.
        const std::size_t sign = !v->empty() && (v->front() == '-' || v->front() == '+') ? 1 : 0;
        const std::size_t lead = v->find_first_not_of('0', sign);
        if (lead != std::string::npos && v->size() - lead > kMaxValueDigits &&
            v->find_first_not_of("0123456789", sign) == std::string::npos)
            throw too_large(std::to_string(v->size() - lead) + " digits");
        try {
            p.value = Integer(std::string_view(*v));
        } catch (const invalid_input&) {
            throw invalid_input("guess: " + at + ": " + value + " = '" + cut(*v) + "' is not an integer");
        }
        if (const auto bits = static_cast<long>(fmpz_bits(p.value.get())); bits > kGuessMaxValueBits) throw too_large(std::to_string(bits) + " bits");
        // A table's status is its rank's (a lower-bound row's rank is a bound; its other
        // columns, e.g. dimension, are not): read only for the rank.
        if (const std::string* st = table_cell(row, "status"); value == "rank" && st && !st->empty() && *st != "ok") p.status = *st;
        if (const std::string* lb = table_cell(row, "label"); value == "rank" && lb) {
            p.label = lb->substr(0, 64);
            (void)failure_bound_cell(row, p.failure_bound);  // a cell that is no bound: not shown
        }
        const auto [seen, fresh] = first_at.emplace(p.x, r);
        if (!fresh && *table_cell(table[seen->second], value) != *v)
            throw invalid_input(disagreeing_rows(table[seen->second], row, seen->second, r, vars, p.x, value));
        out.push_back(std::move(p));
    }
    if (matched == 0 && !where.empty()) {  // say so, and what the filter's columns hold
        std::string filters, held;
        for (const auto& [name, want] : where) {
            filters += (filters.empty() ? "" : ",") + cut(name) + "=" + cut(want);
            std::set<std::string> values;
            for (const TableRow& row : table)
                if (const std::string* c = table_cell(row, name); c && values.size() <= 6) values.insert(cut(*c));
            std::string list;  // at most 6 values, then "…" for the rest
            std::size_t k = 0;
            for (const std::string& v : values) {
                list += std::string(k ? ", " : "") + (k < 6 ? v : "…");
                ++k;
            }
            if (!values.empty()) held += std::string(held.empty() ? "" : "; ") + cut(name) + ": " + list;
        }
        throw invalid_input("guess: no row of the table (" + std::to_string(table.size()) + " rows) matches --where " + filters +
                            (held.empty() ? std::string() : " (the table's values: " + held + ")"));
    }
    return out;
}

RowLabels row_labels(const std::vector<GuessPoint>& rows) {
    RowLabels r;
    for (const GuessPoint& p : rows) {
        if (p.label.empty()) continue;
        const std::string name = p.label.rfind("probabilistic", 0) == 0 ? std::string("probabilistic") : p.label;
        auto it = std::find_if(r.counts.begin(), r.counts.end(), [&](const auto& c) { return c.first == name; });
        if (it == r.counts.end()) r.counts.emplace_back(name, 1);
        else ++it->second;
        r.failure_bound = std::max(r.failure_bound, p.failure_bound);
    }
    return r;
}

std::string RowLabels::text() const {
    std::string t;
    for (const auto& [name, n] : counts) t += (t.empty() ? "" : ", ") + std::to_string(n) + " " + name;
    if (!t.empty() && failure_bound > 0) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (failure bound <= %.3g)", bound_up(failure_bound, 3));  // rounded up, as every bound
        t += buf;
    }
    return t;
}

}  // namespace seprank
