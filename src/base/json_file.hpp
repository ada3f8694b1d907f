// Private: reading JSON text or a JSON file with one clear error. Any failure of the
// JSON library (a syntax error, a number out of range such as 1e400, nesting deeper than
// kMaxJsonDepth) becomes invalid_input naming the source; `what` names the file's role
// ("weights file", "templates file"). Integer literals of any length are exact
// (quote_big_integers). Everything here is linear in the text: a reader with its own
// handler (sax_parse_json_text; guess's table reader builds its rows without a tree)
// gets the same checks and errors as one that takes the tree (parse_json_text).
#pragma once

#include "file_io.hpp"
#include "seprank/error.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace seprank::detail {

inline constexpr int kMaxJsonDepth = 256;

// The indent of a JSON text written here: < 0 one line, else spaces per level, at most
// kMaxJsonIndent (invalid_input naming it). The JSON library grows its run of indent spaces
// once, to 1024, so indent × depth beyond that wrote past it (indent 10^6 crashed). O(1).
inline constexpr int kMaxJsonIndent = 64;
inline int checked_indent(int indent) {
    if (indent > kMaxJsonIndent)
        throw invalid_input("JSON indent " + std::to_string(indent) + " is above " + std::to_string(kMaxJsonIndent) +
                            " spaces per level (-1: one line)");
    return indent < 0 ? -1 : indent;
}

// TEXT with every integer literal that fits no 64-bit integer (signed or unsigned) put in
// quotes: the parser would read it as a double and lose its digits, while a string of
// digits is an exact integer to every reader here (weights, tables). Strings, fractions
// and exponents are left as they are. quote_big_integers_into writes the quoted text to
// OUT and returns true only when TEXT has such a literal (OUT is left empty otherwise),
// and gives in DEEPEST the deepest nesting of [ and { outside strings. One pass, linear
// in the text.
inline bool quote_big_integers_into(std::string_view text, std::string& out, int& deepest) {
    out.clear();
    std::size_t copied = 0;  // text[0, copied) is in out, once a literal was quoted
    int depth = 0, most = 0;
    const std::size_t n = text.size();
    for (std::size_t i = 0; i < n;) {
        const char c = text[i];
        if (c == '"') {  // a string: up to its closing quote, escapes skipped
            ++i;
            while (i < n) {
                const char d = text[i];
                if (d == '"') break;
                i += d == '\\' ? 2 : 1;
            }
            ++i;
            continue;
        }
        if (c == '[' || c == '{') {
            most = std::max(most, ++depth);
            ++i;
            continue;
        }
        if (c == ']' || c == '}') {
            --depth;
            ++i;
            continue;
        }
        if (c != '-' && (c < '0' || c > '9')) {
            ++i;
            continue;
        }
        std::size_t j = i + 1;  // the number token: its characters up to the next delimiter
        while (j < n && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' || text[j] == 'E' || text[j] == '+' ||
                         text[j] == '-'))
            ++j;
        const std::string_view tok = text.substr(i, j - i);
        i = j;
        const std::size_t sign = tok[0] == '-' ? 1 : 0;
        const std::string_view digits = tok.substr(sign);
        if (digits.size() < 19) continue;  // below 10^18: fits
        bool big = digits.find_first_not_of("0123456789") == std::string_view::npos && digits[0] != '0';
        if (big) {
            std::uint64_t u = 0;
            std::int64_t v = 0;
            big = sign ? std::from_chars(tok.data(), tok.data() + tok.size(), v).ec == std::errc::result_out_of_range
                       : std::from_chars(tok.data(), tok.data() + tok.size(), u).ec == std::errc::result_out_of_range;
        }
        if (big) {
            if (out.empty()) out.reserve(n + 64);
            out.append(text.substr(copied, j - tok.size() - copied));
            out += '"';
            out.append(tok);
            out += '"';
            copied = j;
        }
    }
    deepest = most;
    if (copied == 0) return false;
    out.append(text.substr(copied));
    return true;
}

inline std::string quote_big_integers(std::string_view text) {
    std::string out;
    int deepest = 0;
    return quote_big_integers_into(text, out, deepest) ? out : std::string(text);
}

// The keys of the objects open in a parse, each object's apart: add(k) is false when the
// innermost open object already has k. An object's first kCompared keys are compared one
// by one, later ones through a hash set of that object's keys alone, so a key costs O(1)
// whatever the size of the objects and arrays around it.
class OpenObjectKeys {
  public:
    void open() { frames_.push_back(Frame{keys_.size(), nullptr}); }
    void close() {
        keys_.resize(frames_.back().first);
        frames_.pop_back();
    }
    bool add(const std::string& k) {
        Frame& f = frames_.back();
        if (f.set) return f.set->insert(k).second;
        for (std::size_t i = f.first; i < keys_.size(); ++i)
            if (keys_[i] == k) return false;
        keys_.push_back(k);
        if (keys_.size() - f.first > kCompared) {
            const auto from = keys_.begin() + static_cast<std::ptrdiff_t>(f.first);
            f.set = std::make_unique<std::unordered_set<std::string>>(std::make_move_iterator(from), std::make_move_iterator(keys_.end()));
            keys_.resize(f.first);
        }
        return true;
    }

  private:
    static constexpr std::size_t kCompared = 16;
    struct Frame {
        std::size_t first;                                     // its keys are keys_[first, end) while it has no set
        std::unique_ptr<std::unordered_set<std::string>> set;  // all its keys, once it has more than kCompared
    };
    std::vector<std::string> keys_;
    std::vector<Frame> frames_;
};

// A SAX handler (nlohmann::json::sax_parse's interface) that passes every event on to
// INNER after checking each key against the other keys of its object: a key given twice
// stops the parse (false), with the key in `duplicate`. INNER's own handlers may return
// false too (then `duplicate` is empty) or throw.
template <class Inner>
class KeyCheckingSax {
  public:
    explicit KeyCheckingSax(Inner& inner) : inner_(inner) {}
    std::string duplicate;

    bool null() { return inner_.null(); }
    bool boolean(bool v) { return inner_.boolean(v); }
    bool number_integer(nlohmann::json::number_integer_t v) { return inner_.number_integer(v); }
    bool number_unsigned(nlohmann::json::number_unsigned_t v) { return inner_.number_unsigned(v); }
    bool number_float(nlohmann::json::number_float_t v, const nlohmann::json::string_t& s) { return inner_.number_float(v, s); }
    bool string(nlohmann::json::string_t& v) { return inner_.string(v); }
    bool binary(nlohmann::json::binary_t& v) { return inner_.binary(v); }
    bool start_object(std::size_t n) {
        keys_.open();
        return inner_.start_object(n);
    }
    bool key(nlohmann::json::string_t& k) {
        if (!keys_.add(k)) {
            duplicate = k;
            return false;
        }
        return inner_.key(k);
    }
    bool end_object() {
        keys_.close();
        return inner_.end_object();
    }
    bool start_array(std::size_t n) { return inner_.start_array(n); }
    bool end_array() { return inner_.end_array(); }
    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
        return inner_.parse_error(position, token, e);
    }

  private:
    Inner& inner_;
    OpenObjectKeys keys_;
};

// TEXT parsed by nlohmann's SAX parser into SAX (a handler of its interface whose
// parse_error throws the exception it is given, as nlohmann's DOM builder does), after
// the checks every JSON input here gets: integers beyond 64 bits quoted
// (quote_big_integers), nesting deeper than kMaxJsonDepth refused before any handler
// runs, a key given twice in one object refused (KeyCheckingSax). Every failure is
// invalid_input naming SOURCE: a syntax error with its byte offset in TEXT as given, a
// number out of range with how to write it (`range_hint`: the weights and templates
// files' exact numbers by default; a table's reader says its own); an exception SAX throws
// passes unchanged. Returns false, having said nothing, when SAX itself stopped the parse.
// Linear in TEXT.

// nlohmann's message without its "[json.exception.parse_error.101] " prefix, which names
// the library's exception type rather than anything a user wrote.
inline std::string json_error_text(const nlohmann::json::exception& e) {
    std::string m = e.what();
    if (m.rfind("[json.exception.", 0) == 0) {
        const std::size_t end = m.find("] ");
        if (end != std::string::npos) m.erase(0, end + 2);
    }
    return m;
}
inline constexpr const char* kExactNumberHint =
    "write it as an integer's digits or a \"p/q\" string, e.g. 123456789012345678901234567890 or \"1/3\"";
inline constexpr const char* kTableNumberHint = "a table's numbers are integers (any number of digits) or decimals within a double's range";
template <class Sax>
bool sax_parse_json_text(std::string_view text_in, const std::string& source, Sax& sax, const char* range_hint = kExactNumberHint) {
    // UTF-16 or UTF-32 (a Windows editor's) named as such, before its NUL bytes are; JSON
    // text holds no NUL byte (inside a string it is written \u0000): the parser would take
    // it for the end of the input.
    check_not_utf16(text_in, source, "JSON files");
    if (const std::size_t nul = text_in.find('\0'); nul != std::string_view::npos)
        throw invalid_input(source + " is not valid JSON at byte " + std::to_string(nul + 1) + ": a NUL byte (a binary file, not JSON text)");
    // Nesting depth is checked first (cheaply, outside strings) so that no recursive
    // code ever sees a deeply nested document.
    int depth = 0;
    std::string quoted;
    const std::string_view text = quote_big_integers_into(text_in, quoted, depth) ? std::string_view(quoted) : text_in;
    if (depth > kMaxJsonDepth) throw invalid_input(source + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    // A key given twice in one object is ambiguous (which one counts?): refused.
    KeyCheckingSax<Sax> checked(sax);
    try {
        if (nlohmann::json::sax_parse(text, &checked)) return true;
    } catch (const nlohmann::json::out_of_range& e) {
        throw invalid_input(source + ": a number is out of range (" + json_error_text(e) + "); " + range_hint);
    } catch (const nlohmann::json::parse_error& e) {
        // Where the text as given fails (the quotes added above shift the positions after them).
        if (text.size() != text_in.size()) {
            try {
                const nlohmann::json again = nlohmann::json::parse(text_in);  // throws where the text as given fails
                (void)again;
            } catch (const nlohmann::json::parse_error& given) {
                throw invalid_input(source + " is not valid JSON at byte " + std::to_string(given.byte) + ": " + json_error_text(given));
            } catch (const nlohmann::json::exception&) {
            }
        }
        throw invalid_input(source + " is not valid JSON at byte " + std::to_string(e.byte) + ": " + json_error_text(e));
    } catch (const nlohmann::json::exception& e) {
        throw invalid_input(source + " is not valid JSON: " + json_error_text(e));
    }
    if (!checked.duplicate.empty()) throw invalid_input(source + ": key \"" + cut(checked.duplicate) + "\" appears twice in one object");
    return false;
}

// TEXT as a JSON tree keeping the keys' order, with the checks and errors of
// sax_parse_json_text (big integers as digit strings, nesting, keys given twice; its
// range_hint too).
inline nlohmann::ordered_json parse_json_text(std::string_view text, const std::string& source, const char* range_hint = kExactNumberHint) {
    nlohmann::ordered_json j;
    nlohmann::detail::json_sax_dom_parser<nlohmann::ordered_json> dom(j);  // nlohmann's own builder
    sax_parse_json_text(text, source, dom, range_hint);
    return j;
}

// A parsed JSON tree takes up to ~32 bytes a byte of text (a number or an empty list per
// 2 bytes, 16 bytes a node and the containers' slack): reading stops there.
inline constexpr double kJsonTreeBytesPerByte = 32;

inline nlohmann::json read_json_file(const std::string& path, const std::string& what) {
    return parse_json_text(read_input_file(path, what, kJsonTreeBytesPerByte), what + " '" + path + "'");
}

}  // namespace seprank::detail
