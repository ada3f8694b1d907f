#include "seprank/matrix_io.hpp"

#include "file_io.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace seprank {

namespace {

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
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
    if (used != tok.size() || v < 0) lines.fail(std::string(what) + " '" + tok + "' is not a non-negative integer");
    return v;
}

Integer parse_value(const std::string& tok, const Lines& lines) {
    const std::size_t start = (tok[0] == '-' || tok[0] == '+') ? 1 : 0;
    if (start == tok.size() || !std::all_of(tok.begin() + static_cast<long>(start), tok.end(), [](char c) { return c >= '0' && c <= '9'; }))
        lines.fail("entry '" + tok + "' is not an integer");
    return Integer(tok[0] == '+' ? std::string_view(tok).substr(1) : std::string_view(tok));
}

std::vector<std::string> split(const std::string& line) {
    std::istringstream ss(line);
    std::vector<std::string> out;
    for (std::string t; ss >> t;) out.push_back(t);
    return out;
}

}  // namespace

SparseZMat parse_matrix_market(const std::string& text, const std::string& source) {
    std::istringstream first(text);
    std::string header;
    std::getline(first, header);
    if (!header.empty() && header.back() == '\r') header.pop_back();
    const auto h = split(header);
    if (h.size() != 5 || lower(h[0]) != "%%matrixmarket" || lower(h[1]) != "matrix")
        throw invalid_input(source + ", line 1: expected '%%MatrixMarket matrix coordinate|array integer general', got '" + header + "'");
    const std::string format = lower(h[2]), field = lower(h[3]), symmetry = lower(h[4]);
    if (format != "coordinate" && format != "array") throw invalid_input(source + ", line 1: format '" + h[2] + "' is not coordinate or array");
    if (field != "integer") throw invalid_input(source + ", line 1: field '" + h[3] + "' is not integer (ranks here are over Q of integer matrices)");
    if (symmetry != "general") throw invalid_input(source + ", line 1: symmetry '" + h[4] + "' is not general");
    Lines lines(text, source);
    std::string line;
    if (!lines.next(line)) lines.fail("missing the size line");
    auto size = split(line);
    const bool coord = format == "coordinate";
    if (size.size() != (coord ? 3u : 2u)) lines.fail("size line '" + line + "' should hold " + (coord ? "rows cols nnz" : "rows cols"));
    SparseZMat a;
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
            if (t.size() != 3) lines.fail("entry line '" + line + "' should be 'i j value'");
            const long i = parse_count(t[0], lines, "row index"), j = parse_count(t[1], lines, "column index");
            if (i < 1 || i > a.rows || j < 1 || j > a.cols)
                lines.fail("index (" + t[0] + ", " + t[1] + ") is outside " + std::to_string(a.rows) + " x " + std::to_string(a.cols));
            Integer v = parse_value(t[2], lines);
            if (v.is_zero()) continue;
            a.row[static_cast<std::size_t>(i - 1)].emplace_back(j - 1, std::move(v));
        }
        for (auto& r : a.row) {
            std::sort(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            for (std::size_t q = 1; q < r.size(); ++q)
                if (r[q].first == r[q - 1].first) {
                    const long i = &r - a.row.data() + 1;
                    throw invalid_input(source + ": entry (" + std::to_string(i) + ", " + std::to_string(r[q].first + 1) + ") is given twice");
                }
        }
    } else {
        for (long j = 0; j < a.cols; ++j)
            for (long i = 0; i < a.rows; ++i) {
                if (!lines.next(line)) lines.fail("file ends before entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")");
                const auto t = split(line);
                if (t.size() != 1) lines.fail("array line '" + line + "' should hold one value");
                Integer v = parse_value(t[0], lines);
                if (!v.is_zero()) a.row[static_cast<std::size_t>(i)].emplace_back(j, std::move(v));
            }
    }
    if (lines.next(line)) lines.fail("unexpected text after the last entry: '" + line + "'");
    return a;
}

SparseZMat read_matrix_market(const std::string& path) {
    return parse_matrix_market(detail::read_input_file(path, "matrix file"), "matrix file '" + path + "'");
}

std::string matrix_market_text(const SparseZMat& a) {
    std::ostringstream out;
    out << "%%MatrixMarket matrix coordinate integer general\n";
    out << a.rows << ' ' << a.cols << ' ' << a.nnz() << '\n';
    for (std::size_t i = 0; i < a.row.size(); ++i)
        for (const auto& [j, v] : a.row[i]) out << (i + 1) << ' ' << (j + 1) << ' ' << v.str() << '\n';
    return out.str();
}

void write_matrix_market(const SparseZMat& a, const std::string& path) {
    detail::write_file_atomically(path, matrix_market_text(a), "matrix file");
}

}  // namespace seprank
