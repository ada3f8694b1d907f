// Private: reading JSON text or a JSON file with one clear error. Any failure of the
// JSON library (a syntax error, a number out of range such as 1e400, nesting deeper than
// kMaxJsonDepth) becomes invalid_input naming the source; `what` names the file's role
// ("weights file", "templates file"). Integer literals of any length are exact
// (quote_big_integers).
#pragma once

#include "file_io.hpp"
#include "seprank/error.hpp"

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace seprank::detail {

inline constexpr int kMaxJsonDepth = 256;

// TEXT with every integer literal that fits no 64-bit integer (signed or unsigned) put in
// quotes: the parser would read it as a double and lose its digits, while a string of
// digits is an exact integer to every reader here (weights, tables). Strings, fractions
// and exponents are left as they are. Linear in the text.
inline std::string quote_big_integers(const std::string& text) {
    std::string out;
    bool in_string = false, escaped = false, changed = false;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            out += c;
            ++i;
            continue;
        }
        if (c == '"') in_string = true;
        if (c != '-' && (c < '0' || c > '9')) {
            out += c;
            ++i;
            continue;
        }
        std::size_t j = i + 1;  // the number token: its characters up to the next delimiter
        while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == '.' || text[j] == 'e' || text[j] == 'E' ||
                                   text[j] == '+' || text[j] == '-'))
            ++j;
        const std::string_view tok(text.data() + i, j - i);
        const std::size_t sign = tok[0] == '-' ? 1 : 0;
        const std::string_view digits = tok.substr(sign);
        bool big = !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos && (digits[0] != '0' || digits.size() == 1);
        if (big) {
            std::uint64_t u = 0;
            std::int64_t s = 0;
            big = sign ? std::from_chars(tok.data(), tok.data() + tok.size(), s).ec == std::errc::result_out_of_range
                       : std::from_chars(tok.data(), tok.data() + tok.size(), u).ec == std::errc::result_out_of_range;
        }
        if (big) out += '"', changed = true;
        out.append(tok);
        if (big) out += '"';
        i = j;
    }
    return changed ? out : text;
}

inline nlohmann::json parse_json_text(const std::string& text_in, const std::string& source) {
    const std::string text = quote_big_integers(text_in);
    // Nesting depth is checked first (cheaply, outside strings) so that no recursive
    // code ever sees a deeply nested document.
    int depth = 0;
    bool in_string = false, escaped = false;
    for (char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                throw invalid_input(source + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        } else if (c == ']' || c == '}') --depth;
    }
    // A key given twice in one object is ambiguous (which one counts?): refused.
    std::vector<std::vector<std::string>> keys;
    std::string duplicate;
    auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::object_start) keys.emplace_back();
        else if (event == nlohmann::json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
        else if (event == nlohmann::json::parse_event_t::key && !keys.empty() && duplicate.empty()) {
            const std::string k = parsed.get<std::string>();
            for (const auto& seen : keys.back())
                if (seen == k) duplicate = k;
            keys.back().push_back(k);
        }
        return true;
    };
    try {
        nlohmann::json j = nlohmann::json::parse(text, callback);
        if (!duplicate.empty()) throw invalid_input(source + ": key \"" + duplicate + "\" appears twice in one object");
        return j;
    } catch (const nlohmann::json::out_of_range& e) {
        throw invalid_input(source + ": a number is out of range (" + std::string(e.what()) +
                            "); write it as an integer's digits or a \"p/q\" string, e.g. 123456789012345678901234567890 or \"1/3\"");
    } catch (const nlohmann::json::parse_error& e) {
        // Where the text as given fails (the quotes added above shift the positions after them).
        if (text.size() != text_in.size()) {
            try {
                const nlohmann::json again = nlohmann::json::parse(text_in);  // throws where the text as given fails
                (void)again;
            } catch (const nlohmann::json::parse_error& given) {
                throw invalid_input(source + " is not valid JSON at byte " + std::to_string(given.byte) + ": " + given.what());
            } catch (const nlohmann::json::exception&) {
            }
        }
        throw invalid_input(source + " is not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw invalid_input(source + " is not valid JSON: " + e.what());
    }
}

inline nlohmann::json read_json_file(const std::string& path, const std::string& what) {
    // A parsed JSON tree takes up to ~32 bytes a byte of text (a number or an empty
    // list per 2 bytes, 16 bytes a node and the containers' slack): reading stops there.
    return parse_json_text(read_input_file(path, what, 32), what + " '" + path + "'");
}

}  // namespace seprank::detail
