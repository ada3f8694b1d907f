#include "seprank/poly_io.hpp"

#include "seprank/limits.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace seprank {

namespace {

enum class Tok { Number, Ident, Plus, Minus, Star, Slash, Caret, LParen, RParen, Stray, End };

struct Token {
    Tok kind;
    std::string_view text;
    std::size_t pos;  // 0-based offset
};

class Parser {
public:
    Parser(std::string_view text, const std::shared_ptr<const QContext>& ctx, const ParseLimits& limits)
        : text_(text), ctx_(ctx), limits_(limits) {
        advance();
    }

    QPoly parse() {
        if (cur_.kind == Tok::End) throw invalid_input("empty polynomial");
        QPoly f = expr();
        if (cur_.kind != Tok::End) fail("unexpected", cur_);
        return f;
    }

private:
    [[noreturn]] void fail(const std::string& what, const Token& t) const {
        std::string shown = t.kind == Tok::End ? std::string("end of input") : "'" + std::string(t.text) + "'";
        if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
        // Long inputs are shown as an excerpt around the position, so the message stays one short line.
        std::string ctx;
        if (text_.size() <= 80) {
            ctx = std::string(text_);
        } else {
            const std::size_t from = t.pos > 30 ? t.pos - 30 : 0;
            ctx = (from > 0 ? "..." : "") + std::string(text_.substr(from, 60)) + (from + 60 < text_.size() ? "..." : "");
        }
        for (char& c : ctx)
            if (c == '\n' || c == '\r' || c == '\t') c = ' ';
        throw invalid_input("polynomial parse error at position " + std::to_string(t.pos + 1) + ": " + what + " " +
                            shown + " in \"" + ctx + "\"");
    }

    void advance() {
        while (i_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[i_]))) ++i_;
        if (i_ == text_.size()) {
            cur_ = {Tok::End, text_.substr(i_), i_};
            return;
        }
        const std::size_t start = i_;
        const char c = text_[i_];
        auto single = [&](Tok k) {
            ++i_;
            cur_ = {k, text_.substr(start, 1), start};
        };
        if (std::isdigit(static_cast<unsigned char>(c))) {
            while (i_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i_]))) ++i_;
            cur_ = {Tok::Number, text_.substr(start, i_ - start), start};
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (i_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[i_])) || text_[i_] == '_')) ++i_;
            cur_ = {Tok::Ident, text_.substr(start, i_ - start), start};
        } else {
            switch (c) {
                case '+': single(Tok::Plus); break;
                case '-': single(Tok::Minus); break;
                case '*': single(Tok::Star); break;
                case '/': single(Tok::Slash); break;
                case '^': single(Tok::Caret); break;
                case '(': single(Tok::LParen); break;
                case ')': single(Tok::RParen); break;
                default: {
                    // A multi-byte UTF-8 character is shown whole, not as its first byte.
                    std::size_t len = 1;
                    const auto lead = static_cast<unsigned char>(c);
                    const std::size_t want = lead >= 0xF0 && lead < 0xF8 ? 4 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xC0 && lead < 0xE0 ? 2 : 1;
                    while (len < want && start + len < text_.size() && (static_cast<unsigned char>(text_[start + len]) & 0xC0) == 0x80) ++len;
                    Token bad{Tok::Stray, text_.substr(start, len), start};
                    fail("stray character", bad);
                }
            }
        }
    }

    QPoly expr() {
        QPoly f = term();
        while (cur_.kind == Tok::Plus || cur_.kind == Tok::Minus) {
            const bool plus = cur_.kind == Tok::Plus;
            advance();
            QPoly g = term();
            if (plus) f += g; else f -= g;
        }
        return f;
    }

    QPoly term() {
        QPoly f = unary();
        while (cur_.kind == Tok::Star || cur_.kind == Tok::Slash) {
            const bool times = cur_.kind == Tok::Star;
            advance();
            const Token operand = cur_;
            QPoly g = unary();
            if (times) {
                const double bound = static_cast<double>(f.terms()) * static_cast<double>(g.terms());
                if (bound > static_cast<double>(limits_.max_terms))
                    throw resource_limit("polynomial parse: the product at position " + std::to_string(operand.pos + 1) +
                                         " may have up to " + std::to_string(f.terms()) + " x " + std::to_string(g.terms()) +
                                         " terms, over the limit of " + std::to_string(limits_.max_terms) + " (ParseLimits::max_terms)");
                f *= g;
                continue;
            }
            if (g.is_zero()) fail("division by zero:", operand);
            if (g.degree() > 0) fail("division by a non-constant:", operand);
            f *= Rational(1) / g.coeff(0);
        }
        return f;
    }

    // Signs are consumed in a loop (no recursion, however many there are).
    QPoly unary() {
        bool negative = false;
        while (cur_.kind == Tok::Minus || cur_.kind == Tok::Plus) {
            if (cur_.kind == Tok::Minus) negative = !negative;
            advance();
        }
        QPoly f = power();
        return negative ? -f : f;
    }

    QPoly power() {
        QPoly base = primary();
        if (cur_.kind != Tok::Caret) return base;
        advance();
        if (cur_.kind == Tok::Minus) fail("negative exponent:", cur_);
        if (cur_.kind != Tok::Number) fail("expected an exponent, got", cur_);
        const Token et = cur_;
        Integer e{et.text};
        const Integer maxe(limits_.max_exponent);  // unsigned: a limit of 2^63 or more is not a negative one
        if (fmpz_cmp(e.get(), maxe.get()) > 0)
            fail("exponent too large (limit " + std::to_string(limits_.max_exponent) + "):", et);
        const std::uint64_t ev = fmpz_get_ui(e.get());
        if (base.terms() > 1 && ev > limits_.max_power_of_sum)
            throw resource_limit("polynomial parse: power " + std::string(et.text) + " of a " +
                                 std::to_string(base.terms()) + "-term expression at position " +
                                 std::to_string(et.pos + 1) + " exceeds the limit " +
                                 std::to_string(limits_.max_power_of_sum));
        advance();
        if (ev > 1 && static_cast<double>(base.degree()) * static_cast<double>(ev) > static_cast<double>(limits_.max_exponent))
            throw resource_limit("polynomial parse: power " + std::string(et.text) + " of a degree-" + std::to_string(base.degree()) +
                                 " expression at position " + std::to_string(et.pos + 1) + " has degree over the limit " +
                                 std::to_string(limits_.max_exponent) + " (ParseLimits::max_exponent)");
        if (base.terms() > 1) {
            // (t-term base)^e has at most C(t+e-1, e) terms (monomials of degree e in t symbols).
            const double t = static_cast<double>(base.terms()), e = static_cast<double>(ev);
            const double log_bound = std::lgamma(t + e) - std::lgamma(e + 1) - std::lgamma(t);
            if (log_bound > std::log(static_cast<double>(limits_.max_terms)))
                throw resource_limit("polynomial parse: power " + std::string(et.text) + " of a " + std::to_string(base.terms()) +
                                     "-term expression at position " + std::to_string(et.pos + 1) + " may have up to about 10^" +
                                     std::to_string(static_cast<long>(log_bound / std::log(10.0))) + " terms, over the limit of " +
                                     std::to_string(limits_.max_terms) + " (ParseLimits::max_terms)");
        }
        return base.pow(ev);
    }

    QPoly primary() {
        const Token t = cur_;
        switch (t.kind) {
            case Tok::Number: {
                advance();
                return QPoly::constant(ctx_, Rational(Integer{t.text}));
            }
            case Tok::Ident: {
                auto idx = ctx_->vars().find(t.text);
                if (!idx) fail("unknown variable", t);
                advance();
                return QPoly::variable(ctx_, *idx);
            }
            case Tok::LParen: {
                if (depth_ >= limits_.max_depth)
                    fail("parentheses nested deeper than " + std::to_string(limits_.max_depth) + " (ParseLimits::max_depth) at", t);
                ++depth_;
                advance();
                if (cur_.kind == Tok::RParen) fail("empty parentheses at", cur_);
                QPoly f = expr();
                if (cur_.kind != Tok::RParen) fail("unbalanced parenthesis: expected ')' but got", cur_);
                advance();
                --depth_;
                return f;
            }
            case Tok::RParen: fail("unbalanced parenthesis", t);
            case Tok::End: fail("expected a number, variable or '(' but reached", t);
            default: fail("expected a number, variable or '(' but got", t);
        }
    }

    std::string_view text_;
    std::size_t i_ = 0;
    Token cur_{Tok::End, {}, 0};
    std::shared_ptr<const QContext> ctx_;
    ParseLimits limits_;
    std::size_t depth_ = 0;  // open parentheses
};

// Shared printer: `coeff(k)` returns (negative?, |c| as text) for term k; `coeff_chars` is
// at least the characters of all the coefficients' texts. The text's length is counted
// first (the monomials exactly) and checked, the text and a copy of it (the caller's, to
// print it), against default_max_memory(), then reserved once: grown by doubling it held up
// to three times its length (2^23 terms of 23 variables: 3 GiB for a 1 GB text).
template <class P, class CoeffText>
std::string print_terms(const P& f, double coeff_chars, CoeffText coeff) {
    const std::size_t n = f.terms();
    if (n == 0) return "0";
    const Variables& vars = f.context()->vars();
    double chars = coeff_chars;
    for (std::size_t k = 0; k < n; ++k) {
        chars += 3;  // " + "
        const auto e = f.exponents(k);
        for (std::size_t v = 0; v < e.size(); ++v)
            if (e[v] != 0) chars += static_cast<double>(vars.name(v).size()) + 1 + (e[v] > 1 ? 1 + std::floor(std::log10(static_cast<double>(e[v]))) + 1 : 0);
    }
    char what[96];
    std::snprintf(what, sizeof what, "the text of a polynomial of %zu terms (%.3g characters, and a copy)", n, chars);
    check_memory(2 * chars, default_max_memory(), what);
    std::string out;
    out.reserve(static_cast<std::size_t>(chars));
    for (std::size_t k = 0; k < n; ++k) {
        auto [neg, abs] = coeff(k);
        if (k == 0)
            out += neg ? "-" : "";
        else
            out += neg ? " - " : " + ";
        std::string mono;
        const auto e = f.exponents(k);
        for (std::size_t v = 0; v < e.size(); ++v) {
            if (e[v] == 0) continue;
            if (!mono.empty()) mono += "*";
            mono += vars.name(v);
            if (e[v] > 1) mono += "^" + std::to_string(e[v]);
        }
        if (mono.empty())
            out += abs;
        else if (abs == "1")
            out += mono;
        else
            out += abs + "*" + mono;
    }
    return out;
}

}  // namespace

QPoly parse_poly(std::string_view text, const std::shared_ptr<const QContext>& ctx, const ParseLimits& limits) {
    if (!ctx) throw invalid_input("parse_poly: null context");
    return Parser(text, ctx, limits).parse();
}

Variables variables_in(std::string_view text) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            // a number: skip it whole so "2x" does not yield a variable starting with a digit
            while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t j = i;
            while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
            names.emplace_back(text.substr(i, j - i));
            i = j;
        } else {
            ++i;
        }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    Variables unordered(names);
    std::vector<std::size_t> idx(names.size());
    for (std::size_t k = 0; k < idx.size(); ++k) idx[k] = k;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return std::pair(unordered.token(a), unordered.coord(a)) < std::pair(unordered.token(b), unordered.coord(b));
    });
    std::vector<std::string> ordered;
    for (auto k : idx) ordered.push_back(names[k]);
    return Variables(std::move(ordered));
}

std::string to_string(const QPoly& f) {
    // The decimal text of huge coefficients is estimated first: measured on 2 cores, a
    // coefficient of 10^8 bits took 12–16 s and 130 MB to print (GMP's conversion, then the
    // text's copies), so about 1.3 bytes and 1.5·10^-7 s a bit, the time growing with
    // log2 of the largest coefficient's bits (2^(10^9) would take minutes and 1.3 GB).
    double bits = 0, largest = 1;
    for (std::size_t k = 0; k < f.terms(); ++k) {
        const Rational c = f.coeff(k);
        const double b = static_cast<double>(fmpz_bits(fmpq_numref(c.get())) + fmpz_bits(fmpq_denref(c.get())));
        bits += b;
        largest = std::max(largest, b);
    }
    if (bits > 1e6) {
        char what[96];
        std::snprintf(what, sizeof what, "the decimal text of the coefficients (%.3g bits)", bits);
        check_memory(1.3 * bits, default_max_memory(), what);
        check_time(1.5e-7 * bits * std::max(1.0, std::log2(largest) / 27.0), default_max_seconds(), what);
    }
    // decimal digits: bits·log10(2) + 1 for each of numerator and denominator, and the '/'
    return print_terms(f, bits * 0.30103 + 3.0 * static_cast<double>(f.terms()), [&](std::size_t k) {
        Rational c = f.coeff(k);
        const bool neg = fmpq_sgn(c.get()) < 0;
        if (neg) fmpq_neg(c.get(), c.get());
        return std::pair<bool, std::string>(neg, c.str());
    });
}

std::string to_string(const NmodPoly& f) {
    return print_terms(f, 20.0 * static_cast<double>(f.terms()),
                       [&](std::size_t k) { return std::pair<bool, std::string>(false, std::to_string(f.coeff(k))); });
}

}  // namespace seprank
