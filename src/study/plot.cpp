#include "seprank/plot.hpp"

#include "base/file_io.hpp"

#include "seprank/error.hpp"
#include "seprank/guess.hpp"
#include "seprank/guess_blocks.hpp"
#include "seprank/table.hpp"

#include <algorithm>
#include <initializer_list>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <sys/stat.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace seprank {

namespace {

// The terminal: SVG by the file's extension, else PNG through cairo where this gnuplot has
// it (the libgd "png" draws every dash type solid, so the dashed caps and bounds would not
// show as the titles say), the libgd one otherwise.
std::string terminal_line(bool svg) {
    if (svg) return "set terminal svg size 800,560 dynamic\n";
    return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 800,560 } else { set terminal png size 800,560 }\n";
}

// The cell's value, or NaN where it is not a number (strtod: no exception; a value too
// small for a double, 1e-320, is read as its nearest double or 0).
double number_of(const std::string& s) {
    if (s.empty()) return std::nan("");
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() ? v : std::nan("");
}

// A number gnuplot can place: finite, and within ±1e300 (past it gnuplot's autoscaled
// axes overflow: "all points y value undefined").
bool is_number(const std::string& s) {
    const double v = number_of(s);
    return std::isfinite(v) && std::fabs(v) <= 1e300;
}

// `nan`, `inf` or `infinity` (any case, signed): a cell written as not a finite number,
// left out as an empty one is (not a finite number past ±1e300, such as 1e400, refused).
bool non_finite_word(const std::string& s) {
    std::string w = !s.empty() && (s[0] == '+' || s[0] == '-') ? s.substr(1) : s;
    for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return w == "nan" || w == "inf" || w == "infinity";
}

// A cell plotted must be empty (a skipped row), nan or inf (left out) or a finite number:
// anything else is refused, naming the file, line and column, rather than dropped or passed
// to gnuplot.
void check_plotted(const std::string& csv_path, long lineno, const std::vector<std::string>& header, const std::vector<std::string>& cells,
                   std::initializer_list<std::size_t> columns) {
    for (const std::size_t c : columns)
        if (c < cells.size() && !cells[c].empty() && !is_number(cells[c]) && !non_finite_word(cells[c]))
            throw invalid_input("table '" + csv_path + "' line " + std::to_string(lineno) + ": column '" + header[c] + "' = '" + cells[c].substr(0, 40) +
                                "' is not a finite number within +-1e300 (nor nan or inf, which are left out)");
}

// A gnuplot string literal. Single-quoted: gnuplot substitutes no `backquoted` command and
// reads no escape there; a single quote is doubled, and a control character (a line break
// would end the command and start another, e.g. a `!` shell escape) becomes a space.
std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        q += c == '\'' ? std::string("''") : u < 0x20 || u == 0x7f ? std::string(" ") : std::string(1, c);
    }
    return q + "'";
}

// Runs `program script` without a shell (nothing in either is interpreted), its output
// and errors into the open file `log_fd`; returns its wait status (waitpid's), or -1
// when it could not be started. The child is registered while it runs
// (temporaries.hpp): an interrupt ends it before removing the temporaries it writes. It
// starts with no signal blocked, whatever this thread blocks.
int run_gnuplot(const std::string& program, const std::string& script, int log_fd) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, log_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, log_fd, STDERR_FILENO);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    std::vector<char> prog(program.begin(), program.end()), path(script.begin(), script.end());
    prog.push_back('\0');
    path.push_back('\0');
    char* argv[] = {prog.data(), path.data(), nullptr};
    const pid_t pid = detail::spawn_registered([&] {
        pid_t child = 0;
        return ::posix_spawnp(&child, prog.data(), &fa, &attr, argv, environ) == 0 ? child : pid_t(-1);
    });
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return pid > 0 ? detail::wait_registered(pid) : -1;
}

// Whether the figure gnuplot wrote is whole: gnuplot reports no failed write (a full
// disk leaves a cut file and exit status 0), so its end is checked: an SVG ends with
// </svg> (then white space), a PNG with its IEND chunk (the 12 bytes 0000 0000 IEND AE42
// 6082). Reads the file's last 64 bytes.
bool figure_complete(int fd, bool svg) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return false;
    const off_t n = std::min<off_t>(st.st_size, 64);
    std::string tail(static_cast<std::size_t>(n), '\0');
    if (n == 0 || ::pread(fd, tail.data(), tail.size(), st.st_size - n) != static_cast<ssize_t>(n)) return false;
    if (svg) {
        while (!tail.empty() && std::isspace(static_cast<unsigned char>(tail.back()))) tail.pop_back();
        return tail.size() >= 6 && tail.compare(tail.size() - 6, 6, "</svg>") == 0;
    }
    static const char iend[] = "\0\0\0\0IEND\xAE\x42\x60\x82";
    return tail.size() >= 12 && tail.compare(tail.size() - 12, 12, std::string(iend, 12)) == 0;
}

// A temporary beside the figure, removed when this goes out of scope (a failure) unless
// committed (renamed into place). Registered while it exists (temporaries.hpp).
struct Temporary {
    std::string name;
    int fd = -1;
    Temporary(const std::string& output, const std::string& suffix, const char* role) : name(detail::temporary_template(output, suffix)) {
        fd = detail::make_temporary(name, static_cast<int>(suffix.size()));
        if (const int e = errno; fd < 0) detail::throw_file_error(e, std::string("cannot make ") + role + " next to '" + output + "'");
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;
    ~Temporary() {
        if (fd >= 0) ::close(fd);
        if (!name.empty()) detail::remove_temporary(name);
    }
};

// row_matches (guess.hpp) for a plot's filters: its messages speak of guess's --where, so
// they are rephrased for plot.
bool plot_matches(const TableRow& row, const std::vector<std::pair<std::string, std::string>>& filters) {
    try {
        return row_matches(row, filters);
    } catch (const invalid_input& e) {
        std::string m = e.what();
        if (m.rfind("guess: ", 0) == 0) m = m.substr(7);
        throw invalid_input("plot: " + m);
    }
}

// The configuration columns that name a block profile's curve, in table order.
const char* const kConfigColumns[] = {"family", "layers", "tokens", "dim", "heads", "block_degree", "width", "depth", "residual",
                                      "embed_rank", "head_dim", "attention_rank", "position", "partition"};

template <class NextLine, class CellsOf>
std::string block_profile_script(const std::string& csv_path, const std::string& output, const PlotOptions& opt,
                                 const std::vector<std::string>& header, TableRow& row,
                                 const std::vector<std::pair<std::string, std::string>>& filters, NextLine& next_line, CellsOf& cells_of,
                                 std::string& line, long& lineno) {
    const auto at = [&](const char* name) { return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin()); };
    const std::size_t cb = at("block"), cr = at("rank"), ca = at("cap_a"), cc = at("cap_b");
    const std::size_t cst = at("status");
    std::vector<std::vector<std::string>> kept;
    std::vector<long> kept_line;  // each kept row's line in the file
    while (next_line()) {
        if (line.empty()) continue;
        auto cells = cells_of(line);
        if (cells.size() != header.size())
            throw invalid_input("table '" + csv_path + "' line " + std::to_string(lineno) + " has " + std::to_string(cells.size()) + " cells");
        for (std::size_t c = 0; c < header.size(); ++c) row[c].second = cells[c];
        if (!plot_matches(row, filters)) continue;
        check_plotted(csv_path, lineno, header, cells, {cb, cr, ca, cc});
        if (is_number(cells[cb])) {
            kept.push_back(std::move(cells));
            kept_line.push_back(lineno);
        }
    }
    if (kept.empty())
        throw invalid_input(filters.empty() ? "no row of '" + csv_path + "' has a block (every configuration skipped)"
                                            : "no rows of '" + csv_path + "' match the filters with a block");
    // A curve per configuration, named by the configuration columns that vary.
    std::vector<std::size_t> naming;
    for (const char* c : kConfigColumns) {
        const std::size_t k = at(c);
        if (k == header.size()) continue;
        if (std::any_of(kept.begin(), kept.end(), [&](const auto& r) { return r[k] != kept.front()[k]; })) naming.push_back(k);
    }
    if (naming.empty())
        for (const char* c : {"tokens", "dim", "heads", "depth"})
            if (at(c) < header.size()) naming.push_back(at(c));
    // label -> block -> (rank, cap, ok, line). A block given twice (table --resume appends
    // a recomputed row after its lower bound) counts once, as guess --blocks folds it: an ok
    // row over a lower bound, the larger of two bounds; two ok rows must agree.
    std::map<std::string, std::map<double, std::vector<std::string>>> data;
    for (std::size_t i = 0; i < kept.size(); ++i) {
        const auto& r = kept[i];
        std::string label;
        for (std::size_t k : naming) label += (label.empty() ? "" : " ") + header[k] + "=" + r[k];
        const std::string cap = is_number(r[ca]) && is_number(r[cc]) ? (number_of(r[ca]) < number_of(r[cc]) ? r[ca] : r[cc]) : "";
        const bool ok = cst == header.size() || r[cst] == "ok";
        std::vector<std::string> v = {r[cr], cap, ok ? "1" : "0", std::to_string(kept_line[i])};
        const auto [it, fresh] = data[label].emplace(number_of(r[cb]), v);
        if (fresh) continue;
        std::vector<std::string>& was = it->second;
        const auto rank_of = [](const std::string& c) { return is_number(c) ? static_cast<long>(number_of(c)) : -1L; };  // -1: none
        const BlockTwice twice = block_given_twice(was[2] == "1", rank_of(was[0]), ok, rank_of(r[cr]));
        if (twice == BlockTwice::conflict)
            throw invalid_input("table '" + csv_path + "' lines " + was[3] + " and " + v[3] + ": block " + r[cb] + (label.empty() ? "" : " of " + label) +
                                " given twice with ranks " + detail::cut(was[0]) + " and " + detail::cut(r[cr]));
        if (twice == BlockTwice::take_second) was = v;
    }
    const bool ext_svg = output.size() > 4 && output.substr(output.size() - 4) == ".svg";
    std::ostringstream g;
    g << terminal_line(ext_svg);
    g << "set output " << quote(output) << "\n";
    g << "set title " << quote(opt.title.empty() ? "block ranks (solid) and caps (dashed) vs block" : opt.title) << "\n";
    g << "set xlabel 'block (degree in the variables of side A)'\nset ylabel 'rank of the block'\n";
    double max_block = 0;  // integer ticks, about a dozen
    for (const auto& [name, pts] : data) max_block = std::max(max_block, pts.rbegin()->first);
    g << "set termoption noenhanced\nset key left top\nset grid\nset xtics " << std::max(1L, static_cast<long>(std::ceil(max_block / 12))) << "\n";
    if (opt.logy) g << "set logscale y\n";
    std::vector<std::string> plots;
    int idx = 0;
    for (const auto& [name, pts] : data) {
        const std::string block = "$b" + std::to_string(idx);
        bool lower = false;
        g << block << " << EOD\n";
        for (const auto& [x, v] : pts) {
            const bool ok = v[2] == "1" && is_number(v[0]);
            lower = lower || (v[2] != "1" && is_number(v[0]));
            g << x << " " << (ok ? v[0] : "NaN") << " " << (is_number(v[1]) ? v[1] : "NaN") << " " << (!ok && is_number(v[0]) ? v[0] : "NaN") << "\n";
        }
        g << "EOD\n";
        const std::string c = std::to_string(idx + 1);
        plots.push_back(block + " using 1:2 with linespoints lw 2 lc " + c + " title " + quote(name + " rank"));
        plots.push_back(block + " using 1:3 with lines dt 2 lc " + c + " title " + quote(name + " cap"));
        if (lower) plots.push_back(block + " using 1:4 with points pt 8 ps 1.5 lc " + c + " title " + quote(name + " lower bound (not converged)"));
        ++idx;
    }
    g << "plot ";
    for (std::size_t k = 0; k < plots.size(); ++k) g << (k ? ", \\\n     " : "") << plots[k];
    g << "\n";
    return g.str();
}

}  // namespace

std::string plot_script(const std::string& csv_path, const std::string& output, const PlotOptions& opt) {
    std::string text = detail::read_input_file(csv_path, "table", detail::kTableBytesPerByte);
    text.erase(0, detail::table_text_start(text, "table '" + csv_path + "'"));  // not part of the first column's name, as guess reads it
    std::istringstream in(std::move(text));
    std::string line;
    long lineno = 0;
    // A table file written by table --out starts with a "# seprank table sweep" line.
    const auto next_line = [&] {  // a CRLF file's lines lose their CR
        if (!std::getline(in, line)) return false;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        ++lineno;
        return true;
    };
    while (next_line() && !line.empty() && line[0] == '#') {}
    if (line.empty()) throw invalid_input("table '" + csv_path + "' is empty");
    if (const std::size_t at = line.find_first_not_of(" \t"); at != std::string::npos && (line[at] == '[' || line[at] == '{'))
        throw invalid_input("table '" + csv_path + "' is JSON: plot reads CSV tables (seprank table --format csv, or --out FILE.csv)");
    auto cells_of = [&](const std::string& l) {  // a CSV error names the file and line
        return parse_csv_line(l, "table '" + csv_path + "' line " + std::to_string(lineno));
    };
    const auto header = cells_of(line);
    detail::check_unique_header(header, "table '" + csv_path + "' line " + std::to_string(lineno));  // as guess refuses it
    auto column = [&](const std::string& name) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) throw invalid_input("table '" + csv_path + "' has no column '" + name + "'");
        return static_cast<std::size_t>(it - header.begin());
    };
    if (opt.blocks) {
        for (const char* c : {"block", "blocks", "cap_a", "cap_b"})
            if (std::find(header.begin(), header.end(), c) == header.end())
                throw invalid_input("plot --blocks reads a block table (seprank table --blocks): '" + csv_path + "' has no column '" + c + "'");
        if (opt.bounds) throw invalid_input("plot --blocks draws block ranks and caps: --bounds (the theorem bounds on a total) does not apply");
        if (!opt.y2.empty()) throw invalid_input("plot --blocks draws block ranks and caps: --y2 does not apply");
    }
    const std::size_t cx = column(opt.blocks ? "block" : opt.x), cy = column(opt.blocks ? "rank" : opt.y),
                      cs = column(opt.blocks ? "family" : opt.series);
    // The filters match as guess --where does (row_matches, guess.hpp): integers as
    // integers, a stack's layers by their canonical SPEC.
    std::vector<std::pair<std::string, std::string>> filters;
    for (const auto& w : opt.where) {
        const std::size_t eq = w.find('=');
        if (eq == std::string::npos) throw invalid_input("where filter '" + w + "': expected column=value");
        (void)column(w.substr(0, eq));  // a column the table lacks is named here
        if (w.substr(0, eq) == "layers" && eq + 1 < w.size()) {  // a SPEC, checked before any row
            try {
                (void)parse_layers(w.substr(eq + 1));
            } catch (const invalid_input& e) {
                throw invalid_input("where filter '" + w + "': not a SPEC: " + e.what());
            }
        }
        filters.emplace_back(w.substr(0, eq), w.substr(eq + 1));
    }
    const bool ext_svg = output.size() > 4 && output.substr(output.size() - 4) == ".svg";
    const bool ext_png = output.size() > 4 && output.substr(output.size() - 4) == ".png";
    if (!ext_svg && !ext_png) throw invalid_input("plot output '" + output + "' must end in .svg or .png");
    // The bounds are log3 of ranks: on the y axis of log3_rank only, not beside raw ranks.
    if (opt.bounds && opt.y != "log3_rank")
        throw invalid_input("--bounds draws log3_lower and log3_upper, bounds on log3 of the rank: plot them with y log3_rank, not '" + opt.y + "'");
    const std::size_t clo = opt.bounds ? column("log3_lower") : 0, cup = opt.bounds ? column("log3_upper") : 0;
    const bool two = !opt.y2.empty();
    const std::size_t cy2 = two ? column(opt.y2) : 0;

    TableRow row;  // the line under way as (column, cell) pairs, for row_matches: names set once
    for (const std::string& name : header) row.emplace_back(name, std::string());
    if (opt.blocks) return block_profile_script(csv_path, output, opt, header, row, filters, next_line, cells_of, line, lineno);
    // A row whose rank is a lower bound (status lower-bound: the growth stopped before the
    // rank did) is drawn apart from the exact ones, an open marker off the curve, when y is
    // its rank or log3 of it.
    const auto status_at = std::find(header.begin(), header.end(), "status");
    const bool mark_lower = status_at != header.end() && (opt.y == "rank" || opt.y == "log3_rank");
    const std::size_t cst = static_cast<std::size_t>(status_at - header.begin());
    // series -> x -> (y, lower, upper, y2, "1" when y is a lower bound, line)
    std::map<std::string, std::map<double, std::vector<std::string>>> data;
    long numeric_y = 0, positive_y = 0, numeric_bounds = 0;
    bool integer_x = true;
    while (next_line()) {
        if (line.empty()) continue;
        const auto cells = cells_of(line);
        if (cells.size() != header.size())
            throw invalid_input("table '" + csv_path + "' line " + std::to_string(lineno) + " has " + std::to_string(cells.size()) + " cells");
        for (std::size_t c = 0; c < header.size(); ++c) row[c].second = cells[c];
        if (!plot_matches(row, filters)) continue;
        check_plotted(csv_path, lineno, header, cells, {cx, cy});
        if (two) check_plotted(csv_path, lineno, header, cells, {cy2});
        if (opt.bounds) check_plotted(csv_path, lineno, header, cells, {clo, cup});
        if (!is_number(cells[cx])) continue;
        const double xv = number_of(cells[cx]);
        integer_x = integer_x && xv == std::floor(xv) && std::fabs(xv) < 1e15;
        // (y, lower, upper, y2, "1" when y is a lower bound, the line that gave it)
        std::vector<std::string> point = {cells[cy], opt.bounds ? cells[clo] : "", opt.bounds ? cells[cup] : "", two ? cells[cy2] : "",
                                          mark_lower && cells[cst] == "lower-bound" ? "1" : "", std::to_string(lineno)};
        // One point per series and x: a second row there with other values was drawn over the
        // first, unsaid (a hunt, 2026-12-02: --series family over rows of two dims). Folded as
        // a block given twice (row_given_twice): y is final where it is a number and not a
        // lower bound; equal rows (every cell but the line, as numbers where both are: 5 =
        // 5.0) are one point; of two that are not final the larger y (a number over none).
        const auto [at, fresh] = data[cells[cs]].emplace(xv, point);
        if (fresh) continue;
        std::vector<std::string>& had = at->second;
        const auto final_y = [](const std::vector<std::string>& v) { return is_number(v[0]) && v[4] != "1"; };
        bool same = true;
        for (std::size_t k = 0; k < 5; ++k)
            same = same && (is_number(had[k]) && is_number(point[k]) ? number_of(had[k]) == number_of(point[k]) : had[k] == point[k]);
        const bool larger = !same && (!is_number(had[0]) || (is_number(point[0]) && number_of(point[0]) > number_of(had[0])));
        const BlockTwice twice = row_given_twice(final_y(had), final_y(point), same, larger);
        if (twice == BlockTwice::conflict)
            throw invalid_input("table '" + csv_path + "' lines " + had[5] + " and " + point[5] + ": two rows of series " + opt.series + "=" +
                                cells[cs].substr(0, 40) + " at " + opt.x + " = " + cells[cx] +
                                " with other values (one point each: keep one with --where, or name the column that tells them apart with --series)");
        if (twice == BlockTwice::take_second) had = std::move(point);
    }
    // counted on the points kept (a row given twice counts once, as drawn)
    for (const auto& [name, pts] : data)
        for (const auto& [x, v] : pts) {
            numeric_bounds += opt.bounds && (is_number(v[1]) || is_number(v[2]));
            numeric_y += is_number(v[0]);
            positive_y += is_number(v[0]) && number_of(v[0]) > 0;
        }
    if (data.empty())
        throw invalid_input(filters.empty() ? "no row of '" + csv_path + "' has a number in column '" + opt.x + "'"
                                            : "no rows of '" + csv_path + "' match the filters with a number in column '" + opt.x + "'");
    if (numeric_y == 0) throw invalid_input("column '" + opt.y + "' of '" + csv_path + "' has no number in the rows plotted");
    if (opt.logy && positive_y == 0)
        throw invalid_input("--logy: column '" + opt.y + "' of '" + csv_path + "' has no positive number in the rows plotted");
    if (opt.bounds && numeric_bounds == 0)  // a legend of bound curves with nothing drawn
        throw invalid_input("--bounds: columns 'log3_lower' and 'log3_upper' of '" + csv_path +
                            "' have no number in the rows plotted (no theorem bound applies to them)");

    std::ostringstream g;
    g << terminal_line(ext_svg);
    g << "set output " << quote(output) << "\n";
    const std::string ys = two ? opt.y + " and " + opt.y2 : opt.y;
    g << "set title " << quote(opt.title.empty() ? ys + " vs " + opt.x + " by " + opt.series : opt.title) << "\n";
    g << "set xlabel " << quote(opt.x) << "\nset ylabel " << quote(opt.y) << "\n";
    if (two) g << "set y2label " << quote(opt.y2 + " (dashed)") << "\nset ytics nomirror\nset y2tics\n";
    g << "set termoption noenhanced\nset key " << (two ? "below" : "left top") << "\nset grid\n";
    if (integer_x) {  // depths, dims, tokens: ticks on integers only (about a dozen), never at 1.5
        double lo = 0, hi = 0;
        bool first = true;
        for (const auto& [name, pts] : data) {
            lo = first ? pts.begin()->first : std::min(lo, pts.begin()->first);
            hi = first ? pts.rbegin()->first : std::max(hi, pts.rbegin()->first);
            first = false;
        }
        g << "set xtics " << std::max(1L, static_cast<long>(std::ceil((hi - lo) / 12))) << "\nset mxtics 1\n";
        // A little room at either end, so that a marker there stays inside the frame (one x:
        // a unit each side, where gnuplot would widen the range by fractions).
        const double pad = hi == lo ? 1 : std::max(0.2, (hi - lo) * 0.03);
        g << "set xrange [" << lo - pad << ":" << hi + pad << "]\n";
    }
    if (opt.logy) g << "set logscale y\n";
    std::vector<std::string> plots;
    int idx = 0;
    // The data columns: x, y on the curve (NaN where a lower bound), the bounds, y2, and
    // y where it is a lower bound (NaN elsewhere).
    const int lower_col = 3 + (opt.bounds ? 2 : 0) + (two ? 1 : 0);
    for (const auto& [name, pts] : data) {
        const std::string block = "$s" + std::to_string(idx);
        bool lower = false, has_lo = false, has_up = false;  // a legend entry only for what is drawn
        g << block << " << EOD\n";
        for (const auto& [x, v] : pts) {
            const bool is_lower = v[4] == "1" && is_number(v[0]);
            lower = lower || is_lower;
            has_lo = has_lo || is_number(v[1]);
            has_up = has_up || is_number(v[2]);
            g << x << " " << (is_number(v[0]) && !is_lower ? v[0] : "NaN");
            if (opt.bounds) g << " " << (is_number(v[1]) ? v[1] : "NaN") << " " << (is_number(v[2]) ? v[2] : "NaN");
            if (two) g << " " << (is_number(v[3]) ? v[3] : "NaN");
            g << " " << (is_lower ? v[0] : "NaN");
            g << "\n";
        }
        g << "EOD\n";
        const std::string label = opt.series + "=" + name;
        plots.push_back(block + " using 1:2 with linespoints lw 2 lc " + std::to_string(idx + 1) + " title " +
                        quote(two ? label + " " + opt.y : label));
        if (two)
            plots.push_back(block + " using 1:" + std::to_string(opt.bounds ? 5 : 3) + " axes x1y2 with linespoints dt 2 lw 1 pt 6 lc " +
                            std::to_string(idx + 1) + " title " + quote(label + " " + opt.y2));
        if (opt.bounds && has_lo)
            plots.push_back(block + " using 1:3 with lines dt 2 lc " + std::to_string(idx + 1) + " title " + quote(label + " lower bound"));
        if (opt.bounds && has_up)
            plots.push_back(block + " using 1:4 with lines dt 3 lc " + std::to_string(idx + 1) + " title " + quote(label + " upper bound"));
        if (lower)
            plots.push_back(block + " using 1:" + std::to_string(lower_col) + " with points pt 6 ps 1.5 lc " + std::to_string(idx + 1) +
                            " title " + quote(label + " " + opt.y + " a lower bound (not converged)"));
        ++idx;
    }
    g << "plot ";
    for (std::size_t k = 0; k < plots.size(); ++k) g << (k ? ", \\\n     " : "") << plots[k];
    g << "\n";
    return g.str();
}

void plot_table(const std::string& csv_path, const std::string& output, const PlotOptions& opt) {
    detail::check_output_target(output, "figure");  // also refuses a control character, which gnuplot's `set output` line could not hold
    const std::string ext = output.size() >= 4 ? output.substr(output.size() - 4) : std::string();
    if (output.size() <= 4 || (ext != ".svg" && ext != ".png"))
        throw invalid_input("plot output '" + output + "' must end in .svg or .png");
    // The figure replaces its own table (the same file, by name or by a link): refused, the
    // table kept (a hunt, 2026-12-02: `plot same.svg -o same.svg` drew over it).
    struct stat in {}, out {};
    if (::stat(csv_path.c_str(), &in) == 0 && ::stat(output.c_str(), &out) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
        throw invalid_input("plot output '" + output + "' is the table it draws ('" + csv_path + "'): writing the figure would destroy the table; choose another output");
    // Three temporaries beside the figure, unique names (mkostemps), each removed on any
    // failure and by an interrupt (install_interrupt_cleanup, cancel.hpp): the figure,
    // gnuplot's script and its log.
    Temporary figure(output, ext, "the figure's temporary file");
    const std::string script = plot_script(csv_path, figure.name, opt);
    Temporary script_file(output, ".gp", "gnuplot's script");
    for (std::size_t done = 0; done < script.size();) {  // through short writes and EINTR
        const ssize_t n = ::write(script_file.fd, script.data() + done, script.size() - done);
        const int e = errno;
        if (n < 0 && e == EINTR) continue;
        if (n < 0) detail::throw_file_error(e, "plot: writing gnuplot's script next to '" + output + "' failed");
        done += static_cast<std::size_t>(n);
    }
    const int script_closed = ::close(script_file.fd), script_errno = errno;
    script_file.fd = -1;
    if (script_closed != 0) detail::throw_file_error(script_errno, "plot: writing gnuplot's script next to '" + output + "' failed");
    Temporary log(output, ".log", "gnuplot's log");
    const int status = run_gnuplot(opt.gnuplot, script_file.name, log.fd);
    std::string said;  // what gnuplot printed, for the message (its first 1000 bytes)
    {
        std::string buf(1000, '\0');
        const ssize_t n = ::pread(log.fd, buf.data(), buf.size(), 0);
        said = n > 0 ? buf.substr(0, static_cast<std::size_t>(n)) : std::string();
        while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
    }
    if (status == -1)
        throw resource_limit("cannot start gnuplot ('" + opt.gnuplot + "'; install gnuplot-nox)");
    if (WIFSIGNALED(status))
        throw resource_limit("gnuplot was ended by signal " + std::to_string(WTERMSIG(status)) + (said.empty() ? std::string() : ": " + said));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw resource_limit("gnuplot failed (exit " + std::to_string(WEXITSTATUS(status)) + "; install gnuplot-nox): " + said);
    // gnuplot exits 0 after a failed write of the figure (a full disk): the figure must be
    // whole and on disk before it replaces anything.
    if (!figure_complete(figure.fd, ext == ".svg"))
        throw resource_limit("writing the figure '" + output + "' failed: gnuplot's " + ext.substr(1) +
                             " is cut short: its write failed (a full disk, a quota or a file-size limit)" + (said.empty() ? std::string() : "; gnuplot said: " + said));
    const int synced = ::fsync(figure.fd), sync_errno = errno;
    if (synced != 0 && sync_errno != EINVAL) detail::throw_file_error(sync_errno, "writing the figure '" + output + "' failed");
    ::fchmod(figure.fd, 0644);
    const int closed = ::close(figure.fd), close_errno = errno;
    figure.fd = -1;
    if (closed != 0) detail::throw_file_error(close_errno, "writing the figure '" + output + "' failed");
    detail::check_output_target(output, "figure");  // it may have changed meanwhile
    const std::string tmp = figure.name;
    figure.name.clear();  // renamed or removed by commit_temporary, no longer the guard's
    if (const int e = detail::commit_temporary(tmp, output); e != 0)
        throw invalid_input("cannot move the figure into '" + output + "': " + detail::errno_text(e));
}

}  // namespace seprank
