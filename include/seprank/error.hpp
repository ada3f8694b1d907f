// seprank — error hierarchy.
//
// Four kinds of failure, each deriving from a standard exception so that callers
// who do not know seprank can still catch them:
//   invalid_input   bad user input (a malformed polynomial, a bad option value,
//                   a weights file of the wrong shape). The CLI exits with code 2.
//   domain_error    a well-formed request that has no answer (a denominator that
//                   vanishes mod p, an evaluation outside a ring). Exit code 2.
//   resource_limit  a request whose estimated cost exceeds a stated limit
//                   (memory, exponent size). Exit code 3.
//   internal_error  a broken invariant inside the library (a bug, never the caller's
//                   input). Exit code 1.
// Every message names the offending value and, in words, the parameter it was given as
// ("max side 0 must be at least 1" for EvaluationOptions::max_side; the CLI's flags are
// those words with dashes, so its users read the same line). A limit over the process
// (default_max_seconds(), limits.hpp) is named as the CLI's flag that sets it,
// "(--max-time)", unless the call carried its own ("(max_seconds)").
// No library function prints or exits. A message quotes input as given, so each
// constructor writes its control bytes (but tab and line feed) as \xHH: a NUL would end
// what() before the value it names, an escape sequence would reach the terminal.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

namespace seprank {

namespace detail {
// The length a UTF-8 character that begins with byte c has (2..4), 0 when c begins none
// of two bytes or more (ASCII, a continuation byte, 0xC0, 0xC1, 0xF5..0xFF). O(1).
inline std::size_t utf8_lead_length(unsigned char c) {
    return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}
// The length of the valid UTF-8 sequence that starts at s[i] (2..4 bytes; no overlong
// form, no surrogate, nothing past U+10FFFF), 0 when there is none. O(1).
inline std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = at(i);
    const std::size_t n = utf8_lead_length(c);
    if (n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if ((at(i + k) & 0xc0) != 0x80) return 0;
    const unsigned char d = at(i + 1);
    if ((c == 0xe0 && d < 0xa0) || (c == 0xed && d > 0x9f) || (c == 0xf0 && d < 0x90) || (c == 0xf4 && d > 0x8f)) return 0;
    return n;
}
// `message` with every byte below 0x20 (but '\t' and '\n'), 0x7f and every byte of no valid
// UTF-8 sequence (a binary file's bytes quoted in a message) as \xHH; valid UTF-8 kept. Linear.
inline std::string printable(const std::string& message) {
    std::string out;
    out.reserve(message.size());
    for (std::size_t i = 0; i < message.size();) {
        const unsigned char c = static_cast<unsigned char>(message[i]);
        if (c >= 0x80) {
            if (const std::size_t n = utf8_sequence(message, i); n > 0) {
                out.append(message, i, n);
                i += n;
                continue;
            }
        }
        if ((c < 0x20 && c != '\t' && c != '\n') || c >= 0x7f) {
            char hex[5];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else {
            out += static_cast<char>(c);
        }
        ++i;
    }
    return out;
}
// TEXT quoted in a message: whole when it has at most 40 bytes, else its first 40 bytes
// (fewer where the 40th would cut a UTF-8 sequence) and "…", so that a value of a
// megabyte (a weights file's family, a JSON key, a table cell) never fills the terminal.
// guess's messages, the JSON readers' and the weights file's quote through it. O(1)
// beyond the copy of at most 40 bytes.
inline std::string cut(const std::string& text) {
    constexpr std::size_t kMax = 40;
    if (text.size() <= kMax) return text;
    std::size_t n = kMax;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80) --n;  // text[n] continues a sequence: cut before it
    return text.substr(0, n) + "…";
}
// `out` shortened as an error's message is: when longer than 2,048 bytes, its first 1,536
// and last 384 bytes around "… (N bytes left out) …" (each end cut at a UTF-8 boundary),
// so that no error line fills a terminal, whatever value (a megabyte cell, a partition of
// a million tokens) its writer quoted whole. No escaping. Linear.
inline std::string shortened(std::string out) {
    constexpr std::size_t kMax = 2048, kHead = 1536, kTail = 384;
    if (out.size() <= kMax) return out;
    std::size_t head = kHead, tail = out.size() - kTail;
    while (head > 0 && (static_cast<unsigned char>(out[head]) & 0xc0) == 0x80) --head;
    while (tail < out.size() && (static_cast<unsigned char>(out[tail]) & 0xc0) == 0x80) ++tail;
    return out.substr(0, head) + "… (" + std::to_string(tail - head) + " bytes left out) …" + out.substr(tail);
}
// A message as an error stores it: printable, then shortened. Linear.
inline std::string message_text(const std::string& message) { return shortened(printable(message)); }
}  // namespace detail

// Each type's constructors take the message as a string or a C string (not null) and
// store detail::message_text(message): linear in its length.
struct invalid_input : std::invalid_argument {
    explicit invalid_input(const std::string& message) : std::invalid_argument(detail::message_text(message)) {}
    explicit invalid_input(const char* message) : invalid_input(std::string(message)) {}
};

struct domain_error : std::domain_error {
    explicit domain_error(const std::string& message) : std::domain_error(detail::message_text(message)) {}
    explicit domain_error(const char* message) : domain_error(std::string(message)) {}
};

struct resource_limit : std::runtime_error {
    explicit resource_limit(const std::string& message) : std::runtime_error(detail::message_text(message)) {}
    explicit resource_limit(const char* message) : resource_limit(std::string(message)) {}
};

struct internal_error : std::logic_error {
    explicit internal_error(const std::string& message) : std::logic_error(detail::message_text(message)) {}
    explicit internal_error(const char* message) : internal_error(std::string(message)) {}
};

}  // namespace seprank
