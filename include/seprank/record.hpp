// seprank — records: ordered (name, value) cells, the one shape every output takes.
//
// A Value is null, a boolean, an integer, a real, a text, a list of integers or a list of
// named reals (a flat JSON object of numbers, e.g. an answer's phases). A Record
// is an ordered list of named values; every answer, table row and CLI output is a Record
// built through the column registry (columns.hpp) and written by the functions below,
// so the text, JSON, CSV and markdown forms of one answer always agree.
//
// Text forms of a value (Value::str, used in CSV, markdown and aligned text):
//   null → "" · bool → "true"/"false" · integer → decimal · text → itself ·
//   real → the shortest decimal that reads back to the same double, with ".0" appended
//   when it would look like an integer (1.0, 2.465, 1e-05) — or, for a real made with
//   Value::real(x, digits), printf's "%.<digits>g" (1.23e-14, 1) ·
//   integer list → "[1,2,3]" · named reals → "a=0.5 b=0.0" (names in order, reals as above).
// JSON forms (Value::json): null, true/false, numbers as above (non-finite reals → null),
// strings quoted and escaped, lists as arrays, named reals as an object {"a":0.5,"b":0.0}.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace seprank {

class Value {
public:
    enum class Type { null, boolean, integer, real, text, integer_list, named_reals };
    using NamedReals = std::vector<std::pair<std::string, double>>;

    // Constructors and accessors below are O(1) but for the copies of texts and lists.
    Value() = default;  // null
    Value(bool b) : type_(Type::boolean), i_(b ? 1 : 0) {}                      // NOLINT: implicit
    Value(int v) : type_(Type::integer), i_(v) {}                                 // NOLINT
    Value(long v) : type_(Type::integer), i_(v) {}                                // NOLINT
    Value(long long v) : type_(Type::integer), i_(static_cast<long>(v)) {}        // NOLINT
    Value(unsigned long v) : type_(Type::integer), i_(static_cast<long>(v)), unsigned_(true), u_(v) {}  // NOLINT
    Value(unsigned long long v) : type_(Type::integer), i_(static_cast<long>(v)), unsigned_(true), u_(v) {}  // NOLINT
    Value(double v) : type_(Type::real), d_(v) {}                                 // NOLINT
    Value(std::string s) : type_(Type::text), s_(std::move(s)) {}                 // NOLINT
    Value(const char* s) : type_(Type::text), s_(s) {}                            // NOLINT
    Value(std::vector<long> list) : type_(Type::integer_list), list_(std::move(list)) {}  // NOLINT
    Value(NamedReals fields) : type_(Type::named_reals), fields_(std::move(fields)) {}  // NOLINT
    // A real printed with `digits` significant digits ("%.<digits>g"); 1 <= digits <= 17
    // (checked: invalid_input). O(1).
    static Value real(double v, int digits);

    Type type() const noexcept { return type_; }
    bool is_null() const noexcept { return type_ == Type::null; }
    // Accessors; each throws invalid_input when the value has another type.
    bool as_bool() const;
    // The integer as a long; an unsigned value above LONG_MAX (made from an unsigned long
    // or unsigned long long, or read from JSON) does not fit one: invalid_input naming it,
    // never a wrapped-around negative number (as_real and str() give such a value exactly).
    long as_integer() const;
    double as_real() const;  // integers convert
    const std::string& as_text() const;
    const std::vector<long>& as_integer_list() const;
    const NamedReals& as_named_reals() const;

    // The text and JSON forms above. Neither throws: json() writes each byte of text that
    // is not valid UTF-8 as U+FFFD. Linear in the output.
    std::string str() const;
    std::string json() const;

    // Same type and value (integers compared by their text, NaN equals NaN; the digits
    // of Value::real are ignored). Linear in texts and lists.
    friend bool operator==(const Value& a, const Value& b);
    friend bool operator!=(const Value& a, const Value& b) { return !(a == b); }

private:
    Type type_ = Type::null;
    long i_ = 0;
    bool unsigned_ = false;
    std::uint64_t u_ = 0;
    double d_ = 0;
    int digits_ = 0;
    std::string s_;
    std::vector<long> list_;
    NamedReals fields_;
};

class Record {
public:
    using Cell = std::pair<std::string, Value>;

    // Sets `name` (replacing its value in place, or appending it at the end). Linear
    // search: O(size()), as contains() and at().
    void set(const std::string& name, Value v);
    bool contains(const std::string& name) const noexcept;
    // The value of `name`; invalid_input naming it when absent.
    const Value& at(const std::string& name) const;
    std::size_t size() const noexcept { return cells_.size(); }
    bool empty() const noexcept { return cells_.empty(); }
    std::vector<Cell>::const_iterator begin() const noexcept { return cells_.begin(); }
    std::vector<Cell>::const_iterator end() const noexcept { return cells_.end(); }
    // size/empty/begin/end O(1); names() O(size()) copies; == compares cell by cell.
    std::vector<std::string> names() const;

    friend bool operator==(const Record& a, const Record& b) { return a.cells_ == b.cells_; }

private:
    std::vector<Cell> cells_;
};

// One JSON object, keys in record order; indent < 0: one line, else pretty-printed with
// indent spaces per level, at most 64 (invalid_input above).
// Text that is not valid UTF-8 is written as Value::json does. Linear in the output (both).
std::string to_json(const Record& r, int indent = -1);
// A JSON array of objects (each as above). Linear in the output.
std::string to_json(const std::vector<Record>& rows, int indent = -1);
// Parses one JSON object whose values are null, booleans, numbers, strings, arrays of
// integers or objects of numbers (named reals); invalid_input (naming `source` and the
// problem) otherwise, or when the text is not valid JSON. Linear in the text.
Record record_from_json(const std::string& text, const std::string& source = "JSON");

// CSV (RFC 4180): a cell with ',', '"', CR or LF is quoted, quotes doubled. These and
// markdown_line never throw and are linear in the text.
std::string csv_cell(const std::string& text);
std::string csv_line(const std::vector<std::string>& cells);
// The cells of `names` in `r` (missing names give an empty cell). Never throws.
// O(|names|·size()) look-ups, plus the text.
std::string csv_line(const Record& r, const std::vector<std::string>& names);
// Inverse of csv_line on one line; invalid_input on an unterminated quote. Linear.
std::vector<std::string> parse_csv_line(const std::string& line);
// The same, its error prefixed "where: " (a file and line, say). Linear.
std::vector<std::string> parse_csv_line(const std::string& line, const std::string& where);

// One markdown table row "| a | b |"; '|' in a cell is escaped as "\|", newlines as spaces.
std::string markdown_line(const std::vector<std::string>& cells);

}  // namespace seprank
