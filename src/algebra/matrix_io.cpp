#include "seprank/matrix_io.hpp"

#include "base/file_io.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <type_traits>

namespace seprank {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Memory of a parse per byte of text: the text, its two line streams and, per entry of
// at least 6 bytes ("i j v\n"), a (column, Integer) pair and its share of a row: about
// 24 bytes a byte at most. Reading stops there (file_io.hpp), whatever the input is.
constexpr double kMatrixBytesPerByte = 24;

// A piece of the input quoted in a message: at most 40 characters, then "…" and the
// length, so that a 50,000-character token never fills the terminal.
std::string quote(const std::string& text) {
    constexpr std::size_t kMax = 40;
    if (text.size() <= kMax) return text;
    return text.substr(0, kMax) + "… (" + std::to_string(text.size()) + " characters)";
}

// Reads non-comment, non-blank lines with their 1-based numbers.
class Lines {
public:
    Lines(const std::string& text, std::string source) : in_(text), source_(std::move(source)) {}
    bool next(std::string& line) {
        while (std::getline(in_, line)) {
            ++number_;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const auto first = line.find_first_not_of(" \t");
            if (first == std::string::npos || line[first] == '%') continue;
            return true;
        }
        return false;
    }
    [[noreturn]] void fail(const std::string& why) const {
        throw invalid_input(source_ + ", line " + std::to_string(number_) + ": " + why);
    }
    long number() const { return number_; }

private:
    std::istringstream in_;
    std::string source_;
    long number_ = 0;
};

long parse_count(const std::string& tok, const Lines& lines, const char* what) {
    std::size_t used = 0;
    long v = -1;
    try {
        v = std::stol(tok, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != tok.size() || v < 0) lines.fail(std::string(what) + " '" + quote(tok) + "' is not a non-negative integer");
    return v;
}

bool is_decimal(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "[+-]digits", checked here so that the message names the entry and its line.
Integer parse_integer(const std::string& tok, const Lines& lines, const char* hint = "") {
    const std::string_view t(tok);
    const std::size_t start = (t[0] == '-' || t[0] == '+') ? 1 : 0;
    if (!is_decimal(t.substr(start))) lines.fail("entry '" + quote(tok) + "' is not an integer" + hint);
    return Integer(t[0] == '+' ? t.substr(1) : t);
}

// "[+-]digits" or "[+-]digits/[+-]digits" with a non-zero denominator (a sign on the
// denominator as the weights and templates files take it: 1/-2 is -1/2).
Rational parse_rational(const std::string& tok, const Lines& lines) {
    const std::size_t slash = tok.find('/');
    const std::string num = tok.substr(0, slash), den = slash == std::string::npos ? "1" : tok.substr(slash + 1);
    const auto sign = [](const std::string& t) -> std::size_t { return !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0; };
    if (!is_decimal(std::string_view(num).substr(sign(num))) || !is_decimal(std::string_view(den).substr(sign(den))))
        lines.fail("entry '" + quote(tok) + "' is not an integer or a fraction a/b");
    Integer d{std::string_view(den).substr(sign(den))};
    if (d.is_zero()) lines.fail("entry '" + quote(tok) + "' has a zero denominator");
    Rational q(parse_integer(num, lines), d);
    return den[0] == '-' ? Rational(0) - q : q;
}

// The whitespace-separated fields of a line (as `>>` would read them, without a stream
// per line: the stream's set-up was most of the reading time of a large file).
std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    for (std::size_t i = 0, n = line.size(); i < n;) {
        while (i < n && space(line[i])) ++i;
        std::size_t j = i;
        while (j < n && !space(line[j])) ++j;
        if (j > i) out.emplace_back(line, i, j - i);
        i = j;
    }
    return out;
}

// The reader of both fields: M is SparseZMat (field integer) or SparseQMat (integer or
// rational).
template <class M>
M parse_text(const std::string& text, const std::string& source);

template <class M>
M parse(const std::string& text, const std::string& source) {
    detail::check_not_utf16(text, source, "matrix files");  // named as such, not as a header of NUL bytes
    // One UTF-8 byte-order mark before the header (an editor's), skipped as the other
    // readers skip it (a copy of the text, in that case only); a second one is no header.
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) return parse_text<M>(text.substr(3), source);
    return parse_text<M>(text, source);
}

template <class M>
M parse_text(const std::string& text, const std::string& source) {
    constexpr bool rational = std::is_same_v<M, SparseQMat>;
    std::istringstream first(text);
    std::string header;
    std::getline(first, header);
    if (!header.empty() && header.back() == '\r') header.pop_back();
    const auto h = split(header);
    if (h.size() != 5 || lower(h[0]) != "%%matrixmarket" || lower(h[1]) != "matrix")
        throw invalid_input(source + ", line 1: expected '%%MatrixMarket matrix coordinate|array integer|rational general', got '" + quote(header) + "'");
    const std::string format = lower(h[2]), field = lower(h[3]), symmetry = lower(h[4]);
    if (format != "coordinate" && format != "array") throw invalid_input(source + ", line 1: format '" + h[2] + "' is not coordinate or array");
    if (field == "rational" && !rational)
        throw invalid_input(source + ", line 1: field 'rational' where an integer matrix is read (read_matrix_market_rational reads p/q entries)");
    if (field != "integer" && field != "rational")
        throw invalid_input(source + ", line 1: field '" + h[3] + "' is not integer or rational (ranks here are over Q of exact matrices)");
    if (symmetry != "general") throw invalid_input(source + ", line 1: symmetry '" + h[4] + "' is not general");
    Lines lines(text, source);
    auto value = [&](const std::string& tok) {
        if constexpr (rational) {
            if (field == "rational") return parse_rational(tok, lines);
            return Rational(parse_integer(tok, lines, " (field integer; field rational takes a/b)"));
        } else {
            return parse_integer(tok, lines);
        }
    };
    std::string line;
    if (!lines.next(line)) lines.fail("missing the size line");
    auto size = split(line);
    const bool coord = format == "coordinate";
    if (size.size() != (coord ? 3u : 2u)) lines.fail("size line '" + quote(line) + "' should hold " + (coord ? "rows cols nnz" : "rows cols"));
    M a;
    a.rows = parse_count(size[0], lines, "rows");
    a.cols = parse_count(size[1], lines, "cols");
    // Sizes declared by the header are checked before anything is allocated: every
    // entry needs at least two bytes of text, and the row table plus the entries must
    // fit the memory limit (docs/usage.md §1.2).
    const long nnz = coord ? parse_count(size[2], lines, "nnz") : 0;
    const double declared = coord ? static_cast<double>(nnz) : static_cast<double>(a.rows) * static_cast<double>(a.cols);
    if (coord && static_cast<double>(nnz) > static_cast<double>(a.rows) * static_cast<double>(a.cols))
        lines.fail("nnz " + std::to_string(nnz) + " exceeds rows x cols = " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
    if (declared > static_cast<double>(text.size()) / 2.0)
        lines.fail("the size line declares " + (coord ? std::to_string(nnz) : std::to_string(a.rows) + " x " + std::to_string(a.cols)) +
                   " entries but the file holds only " + std::to_string(text.size()) + " bytes");
    check_memory(24.0 * static_cast<double>(a.rows) + 48.0 * declared, default_max_memory(),
                 source + ": a " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " matrix");
    a.row.assign(static_cast<std::size_t>(a.rows), {});
    if (coord) {
        for (long k = 0; k < nnz; ++k) {
            if (!lines.next(line)) lines.fail("file ends after " + std::to_string(k) + " of " + std::to_string(nnz) + " entries");
            const auto t = split(line);
            if (t.size() != 3) lines.fail("entry line '" + quote(line) + "' should be 'i j value'");
            const long i = parse_count(t[0], lines, "row index"), j = parse_count(t[1], lines, "column index");
            if (i < 1 || i > a.rows || j < 1 || j > a.cols)
                lines.fail("index (" + quote(t[0]) + ", " + quote(t[1]) + ") is outside " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
            // Zeros are kept until the duplicate check: "1 1 5" and "1 1 0" name one
            // entry twice, whatever the values.
            a.row[static_cast<std::size_t>(i - 1)].emplace_back(j - 1, value(t[2]));
        }
        for (auto& r : a.row) {
            std::sort(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            for (std::size_t q = 1; q < r.size(); ++q)
                if (r[q].first == r[q - 1].first) {
                    const long i = &r - a.row.data() + 1;
                    throw invalid_input(source + ": entry (" + std::to_string(i) + ", " + std::to_string(r[q].first + 1) + ") is given twice");
                }
            r.erase(std::remove_if(r.begin(), r.end(), [](const auto& e) { return e.second.is_zero(); }), r.end());
        }
    } else if (a.rows > 0) {  // 0 x n or m x 0: no entries, and no loop over the empty side
        for (long j = 0; j < a.cols; ++j)
            for (long i = 0; i < a.rows; ++i) {
                if (!lines.next(line)) lines.fail("file ends before entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")");
                const auto t = split(line);
                if (t.size() != 1) lines.fail("array line '" + quote(line) + "' should hold one value");
                auto v = value(t[0]);
                if (!v.is_zero()) a.row[static_cast<std::size_t>(i)].emplace_back(j, std::move(v));
            }
    }
    if (lines.next(line)) lines.fail("unexpected text after the last entry: '" + quote(line) + "'");
    return a;
}

}  // namespace

SparseZMat parse_matrix_market(const std::string& text, const std::string& source) { return parse<SparseZMat>(text, source); }

SparseQMat parse_matrix_market_rational(const std::string& text, const std::string& source) {
    return parse<SparseQMat>(text, source);
}

SparseQMat read_matrix_market_rational(const std::string& path) {
    return parse_matrix_market_rational(detail::read_input_file(path, "matrix file", kMatrixBytesPerByte), "matrix file '" + path + "'");
}

std::size_t SparseQMat::nnz() const {
    std::size_t n = 0;
    for (const auto& r : row) n += r.size();
    return n;
}

SparseZMat clear_denominators(const SparseQMat& a) {
    SparseZMat b;
    b.rows = a.rows;
    b.cols = a.cols;
    b.row.resize(a.row.size());
    Integer d, q;
    for (std::size_t i = 0; i < a.row.size(); ++i) {
        fmpz_one(d.get());
        for (const auto& [j, v] : a.row[i]) fmpz_lcm(d.get(), d.get(), fmpq_denref(v.get()));
        auto& out = b.row[i];
        out.reserve(a.row[i].size());
        for (const auto& [j, v] : a.row[i]) {
            fmpz_divexact(q.get(), d.get(), fmpq_denref(v.get()));  // d_i / den, exact
            Integer e;
            fmpz_mul(e.get(), q.get(), fmpq_numref(v.get()));
            out.emplace_back(j, std::move(e));
        }
    }
    return b;
}

SparseZMat read_matrix_market(const std::string& path) {
    return parse_matrix_market(detail::read_input_file(path, "matrix file", kMatrixBytesPerByte), "matrix file '" + path + "'");
}

std::string matrix_market_text(const SparseZMat& a) {
    std::ostringstream out;
    out << "%%MatrixMarket matrix coordinate integer general\n";
    out << a.rows << ' ' << a.cols << ' ' << a.nnz() << '\n';
    for (std::size_t i = 0; i < a.row.size(); ++i)
        for (const auto& [j, v] : a.row[i]) out << (i + 1) << ' ' << (j + 1) << ' ' << v.str() << '\n';
    return out.str();
}

void check_matrix_market_target(const std::string& path) { detail::check_output_target(path, "matrix file"); }

void write_matrix_market(const SparseZMat& a, const std::string& path) {
    detail::write_file_atomically(path, matrix_market_text(a), "matrix file");
}

}  // namespace seprank
