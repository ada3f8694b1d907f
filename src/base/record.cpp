#include "seprank/record.hpp"

#include "json_file.hpp"
#include "seprank/error.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>

namespace seprank {

namespace {

// Text that is not valid UTF-8 (a path in a note, say) is written with U+FFFD for each bad
// byte instead of throwing nlohmann's type_error.
constexpr auto kBadUtf8 = nlohmann::ordered_json::error_handler_t::replace;

const char* type_name(Value::Type t) {
    switch (t) {
        case Value::Type::null: return "null";
        case Value::Type::boolean: return "a boolean";
        case Value::Type::integer: return "an integer";
        case Value::Type::real: return "a real";
        case Value::Type::text: return "a text";
        case Value::Type::integer_list: return "a list of integers";
        case Value::Type::named_reals: return "named reals";
    }
    throw internal_error("type_name(Value::Type): unknown value " + std::to_string(static_cast<int>(t)));
}

[[noreturn]] void wrong_type(Value::Type have, const char* want) {
    throw invalid_input(std::string("value is ") + type_name(have) + ", expected " + want);
}

// nlohmann's number form: the shortest round-trip decimal, ".0" on integral values.
std::string real_text(double d, int digits) {
    if (!std::isfinite(d)) return std::isnan(d) ? "nan" : (d > 0 ? "inf" : "-inf");
    if (digits > 0) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.*g", digits, d);
        return buf;
    }
    return nlohmann::json(d).dump();
}

nlohmann::ordered_json to_nl(const Value& v) {
    switch (v.type()) {
        case Value::Type::null: return nullptr;
        case Value::Type::boolean: return v.as_bool();
        case Value::Type::integer: return nlohmann::ordered_json::parse(v.str());
        case Value::Type::real: {
            if (!std::isfinite(v.as_real())) return nullptr;
            return nlohmann::ordered_json::parse(v.str());
        }
        case Value::Type::text: return v.as_text();
        case Value::Type::integer_list: return v.as_integer_list();
        case Value::Type::named_reals: {
            nlohmann::ordered_json o = nlohmann::ordered_json::object();
            for (const auto& [k, x] : v.as_named_reals()) o[k] = std::isfinite(x) ? nlohmann::ordered_json::parse(real_text(x, 0)) : nullptr;
            return o;
        }
    }
    return nullptr;
}

nlohmann::ordered_json to_nl(const Record& r) {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r) j[k] = to_nl(v);
    return j;
}

Value from_nl(const nlohmann::ordered_json& j, const std::string& where) {
    if (j.is_null()) return {};
    if (j.is_boolean()) return j.get<bool>();
    if (j.is_number_unsigned()) return j.get<unsigned long>();
    if (j.is_number_integer()) return j.get<long>();
    if (j.is_number_float()) return j.get<double>();
    if (j.is_string()) return j.get<std::string>();
    if (j.is_array()) {
        std::vector<long> l;
        for (const auto& e : j) {
            if (!e.is_number_integer()) throw invalid_input(where + ": a list must hold integers");
            if (e.is_number_unsigned() && e.get<unsigned long>() > static_cast<unsigned long>(std::numeric_limits<long>::max()))
                throw invalid_input(where + ": list entry " + e.dump() + " is out of range (a list holds signed 64-bit integers)");
            l.push_back(e.get<long>());
        }
        return l;
    }
    if (j.is_object()) {
        Value::NamedReals f;
        for (const auto& [k, e] : j.items()) {
            if (!e.is_number()) throw invalid_input(where + ": a nested object must hold numbers");
            f.emplace_back(k, e.get<double>());
        }
        return f;
    }
    throw invalid_input(where + ": unsupported JSON value");
}

}  // namespace

Value Value::real(double v, int digits) {
    if (digits < 1 || digits > 17) throw invalid_input("digits = " + std::to_string(digits) + " outside 1..17");
    Value r(v);
    r.digits_ = digits;
    return r;
}

bool Value::as_bool() const {
    if (type_ != Type::boolean) wrong_type(type_, "a boolean");
    return i_ != 0;
}
long Value::as_integer() const {
    if (type_ != Type::integer) wrong_type(type_, "an integer");
    if (unsigned_ && u_ > static_cast<std::uint64_t>(LONG_MAX))
        throw invalid_input("value " + std::to_string(u_) + " is above " + std::to_string(LONG_MAX) +
                            ", expected an integer that fits a long");
    return i_;
}
double Value::as_real() const {
    if (type_ == Type::integer) return unsigned_ ? static_cast<double>(u_) : static_cast<double>(i_);
    if (type_ != Type::real) wrong_type(type_, "a real");
    return d_;
}
const std::string& Value::as_text() const {
    if (type_ != Type::text) wrong_type(type_, "a text");
    return s_;
}
const std::vector<long>& Value::as_integer_list() const {
    if (type_ != Type::integer_list) wrong_type(type_, "a list of integers");
    return list_;
}
const Value::NamedReals& Value::as_named_reals() const {
    if (type_ != Type::named_reals) wrong_type(type_, "named reals");
    return fields_;
}

std::string Value::str() const {
    switch (type_) {
        case Type::null: return "";
        case Type::boolean: return i_ ? "true" : "false";
        case Type::integer: return unsigned_ ? std::to_string(u_) : std::to_string(i_);
        case Type::real: return real_text(d_, digits_);
        case Type::text: return s_;
        case Type::integer_list: {
            std::string s = "[";
            for (std::size_t k = 0; k < list_.size(); ++k) s += (k ? "," : "") + std::to_string(list_[k]);
            return s + "]";
        }
        case Type::named_reals: {
            std::string s;
            for (std::size_t k = 0; k < fields_.size(); ++k) s += (k ? " " : "") + fields_[k].first + "=" + real_text(fields_[k].second, 0);
            return s;
        }
    }
    return "";
}

std::string Value::json() const { return to_nl(*this).dump(-1, ' ', false, kBadUtf8); }

bool operator==(const Value& a, const Value& b) {
    if (a.type_ != b.type_) return false;
    switch (a.type_) {
        case Value::Type::null: return true;
        case Value::Type::boolean: return a.i_ == b.i_;
        case Value::Type::integer: return a.str() == b.str();
        case Value::Type::real: return a.d_ == b.d_ || (std::isnan(a.d_) && std::isnan(b.d_));
        case Value::Type::text: return a.s_ == b.s_;
        case Value::Type::integer_list: return a.list_ == b.list_;
        case Value::Type::named_reals: return a.fields_ == b.fields_;
    }
    return false;
}

void Record::set(const std::string& name, Value v) {
    for (auto& c : cells_)
        if (c.first == name) {
            c.second = std::move(v);
            return;
        }
    cells_.emplace_back(name, std::move(v));
}

bool Record::contains(const std::string& name) const noexcept {
    for (const auto& c : cells_)
        if (c.first == name) return true;
    return false;
}

const Value& Record::at(const std::string& name) const {
    for (const auto& c : cells_)
        if (c.first == name) return c.second;
    throw invalid_input("record has no field '" + name + "'");
}

std::vector<std::string> Record::names() const {
    std::vector<std::string> n;
    for (const auto& c : cells_) n.push_back(c.first);
    return n;
}

std::string to_json(const Record& r, int indent) { return to_nl(r).dump(detail::checked_indent(indent), ' ', false, kBadUtf8); }

std::string to_json(const std::vector<Record>& rows, int indent) {
    nlohmann::ordered_json a = nlohmann::ordered_json::array();
    for (const auto& r : rows) a.push_back(to_nl(r));
    return a.dump(detail::checked_indent(indent), ' ', false, kBadUtf8);
}

Record record_from_json(const std::string& text, const std::string& source) {
    // beyond 64 bits: digits kept, as text; a key twice in one object refused (json_file.hpp)
    const nlohmann::ordered_json j = detail::parse_json_text(text, source, detail::kTableNumberHint);  // a row's numbers
    if (!j.is_object()) throw invalid_input(source + " is not a JSON object");
    Record r;
    for (const auto& [k, v] : j.items()) r.set(k, from_nl(v, source + " key \"" + k + "\""));
    return r;
}

std::string csv_cell(const std::string& c) {
    if (c.find_first_of(",\"\r\n") == std::string::npos) return c;
    std::string q = "\"";
    for (char ch : c) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

std::string csv_line(const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) l += (i ? "," : "") + csv_cell(cells[i]);
    return l;
}

std::string csv_line(const Record& r, const std::vector<std::string>& names) {
    std::vector<std::string> cells;
    for (const auto& n : names) cells.push_back(r.contains(n) ? r.at(n).str() : std::string());
    return csv_line(cells);
}

std::vector<std::string> parse_csv_line(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cells.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cells.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            cells.emplace_back();
        } else {
            cells.back() += c;
        }
    }
    if (quoted) {
        // The line's start, printable: a binary file must not reach the terminal raw.
        std::string shown;
        for (std::size_t i = 0; i < line.size() && i < 40; ++i) {
            const unsigned char c = static_cast<unsigned char>(line[i]);
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            shown += c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : std::string(hex);
        }
        throw invalid_input("CSV line with an unterminated quote: " + shown + (line.size() > 40 ? "..." : ""));
    }
    return cells;
}

std::vector<std::string> parse_csv_line(const std::string& line, const std::string& where) {
    try {
        return parse_csv_line(line);
    } catch (const invalid_input& e) {
        throw invalid_input(where + ": " + e.what());
    }
}

std::string markdown_line(const std::vector<std::string>& cells) {
    std::string l = "|";
    for (const auto& c : cells) {
        std::string e;
        for (char ch : c) {
            if (ch == '|') e += "\\|";
            else if (ch == '\n' || ch == '\r') e += ' ';
            else e += ch;
        }
        l += " " + e + " |";
    }
    return l;
}

}  // namespace seprank
