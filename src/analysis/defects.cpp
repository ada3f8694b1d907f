// seprank — the defective power networks of a range (defects.hpp; docs/defects.md).
#include "seprank/defects.hpp"

#include "base/parallel.hpp"
#include "base/process.hpp"
#include "network/layer_common.hpp"
#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/network.hpp"
#include "seprank/progress.hpp"
#include "base/number_text.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

namespace seprank {

namespace {

// The forms of degree d in n variables, C(n − 1 + d, d), LONG_MAX when more.
long forms_of(long n, long d) { return detail::monomials(n, Integer(d), false); }

long sat_add(long a, long b) { return a > LONG_MAX - b ? LONG_MAX : a + b; }

// Every width list n_0..n_{L−1} in 2..w and exponent list d_1..d_{L−1} in lo..hi, as
// odometers, the last entry fastest.
bool next_tuple(std::vector<long>& t, long lo, long hi) {
    for (std::size_t i = t.size(); i-- > 0;) {
        if (t[i] < hi) {
            ++t[i];
            return true;
        }
        t[i] = lo;
    }
    return false;
}

}  // namespace

NetworkSpec power_stack(const std::vector<long>& n, const std::vector<long>& d) {
    NetworkSpec s;
    s.family = family_from_string("stack");
    s.tokens = 1;
    s.dim = n[0];
    std::string text;
    const std::size_t L = n.size() - 1;
    for (std::size_t l = 1; l <= L; ++l)
        text += (l > 1 ? "," : "") + std::string("dense:width=") + std::to_string(n[l]) + ":power=" + std::to_string(l < L ? d[l - 1] : 1);
    s.layers = parse_layers(text);
    s.depth = static_cast<long>(L);
    return s;
}

namespace {

// The three bounds and their least (defects.hpp), with `e`, expected_dimension's count
// of the same network: its parameters, its ambient space (every form of degree ∏ d_l in
// n_0 variables) and its bound.
void bounds(DefectRow& r, const ExpectedDimension& e) {
    const std::vector<long>& n = r.widths;
    const std::vector<long>& d = r.powers;
    const std::size_t L = n.size() - 1;
    long hidden = 0, front = 0;
    for (std::size_t l = 1; l < L; ++l) hidden += n[l];
    for (std::size_t l = 1; l + 1 < L; ++l) front += n[l] * (n[l - 1] - 1);
    r.parameters = e.parameters;
    r.rescaled = r.parameters - hidden;
    r.forms = e.ambient;
    r.cap = sat_add(front, forms_of(n[L - 2], d[L - 2]));
    r.expected = std::min({r.rescaled, r.forms, r.cap});
    r.bound = e.expected;
}

}  // namespace

void check_range(const DefectRange& g) {
    if (g.max_width < 2 || g.max_width > 8) throw invalid_input("max width " + std::to_string(g.max_width) + " is outside 2..8");
    if (g.min_depth < 2 || g.min_depth > 5) throw invalid_input("min depth " + std::to_string(g.min_depth) + " is outside 2..5");
    if (g.max_depth < 2 || g.max_depth > 5) throw invalid_input("max depth " + std::to_string(g.max_depth) + " is outside 2..5");
    if (g.max_depth < g.min_depth)  // the max may be the default: say which to raise
        throw invalid_input("min depth " + std::to_string(g.min_depth) + " is above max depth " + std::to_string(g.max_depth) + ": raise the max depth too");
    if (g.min_power < 2 || g.min_power > 8) throw invalid_input("min power " + std::to_string(g.min_power) + " is outside 2..8");
    if (g.max_power < 2 || g.max_power > 8) throw invalid_input("max power " + std::to_string(g.max_power) + " is outside 2..8");
    if (g.max_power < g.min_power)
        throw invalid_input("min power " + std::to_string(g.min_power) + " is above max power " + std::to_string(g.max_power) + ": raise the max power too");
    check_threads(g.threads);
    if (!(g.max_seconds >= 0) || !std::isfinite(g.max_seconds))
        throw invalid_input("max seconds " + number_text(g.max_seconds) + " must be finite and >= 0 (0: the default limit)");
}

const char* to_string(DefectReason r) {
    switch (r) {
        case DefectReason::none: return "none";
        case DefectReason::bound: return "bound";
        case DefectReason::level: return "level";
        case DefectReason::unexplained: return "unexplained";
    }
    throw internal_error("to_string(DefectReason): unknown value " + std::to_string(static_cast<int>(r)));
}

DefectSweep defect_sweep(const DefectRange& range) {
    check_range(range);
    // The range's size and time before it is enumerated (every row is held, then measured).
    // Per width tuple n_0..n_{L−1} (at most 7^5), the exponent tuples that leave room at
    // every level (C(n_{l−1} + d_l − 1, d_l) > n_l, as the sweep skips the others) are
    // counted level by level; each network's dimension is costed as function_dimension
    // costs it: 2 trials of P + 8 Jacobian rows (P = Σ n_l·n_{l−1} weights) of about 2P + 2Σn_l
    // tape operations at 40 ns, and their elimination, rows·P·min(rows, P) at 0.3 ns, plus
    // 50 µs of set-up, all times 1.4 for the levels and the rest (fitted on one thread:
    // widths <= 8, L = 4, d = 2 estimated 4.7 s, took 4.8 s; the defaults 10 s, took 8.7 s;
    // the old 50 µs a network gave 0.06 s for the first). Each row about 1 KiB with its answer.
    // --max-width 8 --max-depth 5 --max-power 8 holds 3·10^7 networks: it took 16 GB before
    // failing.
    {
        double networks = 0, seconds = 0;
        for (long L = range.min_depth; L <= range.max_depth; ++L) {
            std::vector<long> n(static_cast<std::size_t>(L), 2);
            do {
                double count = 1, weights = static_cast<double>(n.back()), units = 1;  // n_L = 1: the last layer's n_{L−1} weights
                for (std::size_t l = 1; l < n.size(); ++l) {
                    long room = 0;
                    for (long d = range.min_power; d <= range.max_power; ++d) room += forms_of(n[l - 1], d) > n[l];
                    count *= static_cast<double>(room);
                    weights += static_cast<double>(n[l - 1] * n[l]);
                    units += static_cast<double>(n[l]);
                }
                if (count == 0) continue;
                const double rows = weights + 8, ops = 2 * weights + 2 * units;
                networks += count;
                seconds += count * 1.4 * (50e-6 + 2 * (rows * ops * 40e-9 + rows * weights * std::min(rows, weights) * 0.3e-9));
            } while (next_tuple(n, 2, range.max_width));
        }
        char what[128];
        std::snprintf(what, sizeof what, "defects: %.3g networks in the range", networks);
        check_memory(networks * 1024.0, default_max_memory(), what);
        const bool own = range.max_seconds > 0;  // the caller's limit, else the CLI's --max-time
        check_time(seconds / static_cast<double>(range.threads), own ? range.max_seconds : default_max_seconds(), what,
                   own ? "max_seconds" : "--max-time");
    }
    const auto t0 = std::chrono::steady_clock::now();
    DefectSweep out;
    out.range = range;
    for (long L = range.min_depth; L <= range.max_depth; ++L) {
        std::vector<long> n(static_cast<std::size_t>(L), 2), d(static_cast<std::size_t>(L - 1), range.min_power);
        do {
            do {
                bool room = true;
                for (std::size_t l = 1; l < n.size() && room; ++l) room = forms_of(n[l - 1], d[l - 1]) > n[l];
                if (!room) {
                    ++out.skipped;
                    continue;
                }
                DefectRow r;
                r.widths = n;
                r.widths.push_back(1);
                r.powers = d;
                out.rows.push_back(std::move(r));
            } while (next_tuple(d, range.min_power, range.max_power));
        } while (next_tuple(n, 2, range.max_width));
    }
    const long count = static_cast<long>(out.rows.size());
    // Progress (the caller's observer, handed to the workers): networks, then levels.
    const ProgressObserver& progress = current_progress();
    std::atomic<std::uint64_t> measured{0};
    detail::run_parallel(range.threads, [&](int tid) {
        for (long i = tid; i < count; i += range.threads) {
            report_progress(progress, "defects networks", measured++, static_cast<std::uint64_t>(count));
            DefectRow& r = out.rows[static_cast<std::size_t>(i)];
            const ValidSpec spec = power_stack(r.widths, r.powers);
            bounds(r, expected_dimension(spec, DimensionOutput::scalar));
            DimensionOptions opt;
            opt.threads = 1;
            opt.max_seconds = range.max_seconds;
            opt.seed = range.seed + static_cast<std::uint64_t>(i);
            r.dimension = function_dimension(spec, opt);
            r.exact = r.dimension.value == r.bound;
            r.defect = r.expected - r.dimension.value;
            const std::size_t L = r.widths.size() - 1;
            r.ah_exception = alexander_hirschowitz_exception(r.widths[L - 2], r.powers[L - 2], r.widths[L - 1]);
        }
    });
    // The levels: each distinct (n_{l−1}, n_l, n_{l+1}, d_l) once, measured with all outputs.
    std::map<std::array<long, 4>, std::size_t> level_at;
    for (const DefectRow& r : out.rows)
        for (std::size_t l = 1; l + 1 < r.widths.size(); ++l) {
            const std::array<long, 4> key{r.widths[l - 1], r.widths[l], r.widths[l + 1], r.powers[l - 1]};
            if (level_at.emplace(key, out.levels.size()).second) out.levels.push_back({key[0], key[1], key[2], key[3], 0, {}});
        }
    const long nlev = static_cast<long>(out.levels.size());
    report_progress(progress, "defects networks", static_cast<std::uint64_t>(count), static_cast<std::uint64_t>(count));
    measured = 0;
    detail::run_parallel(range.threads, [&](int tid) {
        for (long i = tid; i < nlev; i += range.threads) {
            report_progress(progress, "defects levels", measured++, static_cast<std::uint64_t>(nlev));
            DefectLevel& v = out.levels[static_cast<std::size_t>(i)];
            const ValidSpec spec = power_stack({v.inputs, v.width, v.outputs}, {v.power});
            // The secant variety's expected dimension, n_l·(n_{l−1} + n_{l+1} − 1) capped by
            // its space (the count of expected_dimension before any run or quadric cap):
            // against it the Alexander–Hirschowitz squares are defective, as the theorem
            // names them (expected_dimension counts their O(n_l) and would not).
            v.expected = std::min(detail::sat_mul(v.width, v.inputs + v.outputs - 1), detail::sat_mul(v.outputs, forms_of(v.inputs, v.power)));
            DimensionOptions opt;
            opt.threads = 1;
            opt.output = DimensionOutput::all;
            opt.max_seconds = range.max_seconds;
            opt.seed = range.seed + static_cast<std::uint64_t>(count + i);
            v.dimension = function_dimension(spec, opt);
        }
    });
    report_progress(progress, "defects levels", static_cast<std::uint64_t>(nlev), static_cast<std::uint64_t>(nlev));
    for (DefectRow& r : out.rows) {
        for (std::size_t l = 1; l + 1 < r.widths.size(); ++l) {
            const DefectLevel& v = out.levels[level_at.at(std::array<long, 4>{r.widths[l - 1], r.widths[l], r.widths[l + 1], r.powers[l - 1]})];
            if (v.dimension.value < v.expected) r.defective_levels.push_back(static_cast<long>(l));
        }
        const long last = static_cast<long>(r.widths.size()) - 2;
        const bool last_defective = !r.defective_levels.empty() && r.defective_levels.back() == last;
        r.reason = r.defect <= 0 ? DefectReason::none
                   : r.exact     ? DefectReason::bound
                   : !r.defective_levels.empty() ? DefectReason::level
                                                 : DefectReason::unexplained;
        out.exact += r.exact;
        out.defective += r.defect > 0;
        out.by_bound += r.reason == DefectReason::bound;
        out.by_level += r.reason == DefectReason::level;
        out.unexplained += r.reason == DefectReason::unexplained;
        out.silent += r.defect <= 0 && !r.defective_levels.empty();
        out.ah_mismatch += last_defective != r.ah_exception;
    }
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.peak_mib = peak_rss_mib();
    return out;
}

namespace {

std::string joined(const std::vector<long>& v) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + std::to_string(v[i]);
    return s;
}

}  // namespace

const std::vector<std::string>& defect_columns() {
    static const std::vector<std::string> cols{"depth", "widths", "powers", "parameters", "rescaled", "forms", "cap", "expected", "bound",
                                               "dimension", "defect", "label", "failure_bound", "last_level", "defective_levels", "ah_exception", "reason"};
    return cols;
}

Record defect_record(const DefectRow& r) {
    const std::size_t L = r.widths.size() - 1;
    Record rec;
    rec.set("depth", static_cast<long>(L));
    rec.set("widths", joined(r.widths));
    rec.set("powers", joined(r.powers));
    rec.set("parameters", r.parameters);
    rec.set("rescaled", r.rescaled);
    rec.set("forms", r.forms == LONG_MAX ? Value("huge") : Value(r.forms));
    rec.set("cap", r.cap);
    rec.set("expected", r.expected);
    rec.set("bound", r.bound);
    rec.set("dimension", r.dimension.value);
    rec.set("defect", r.defect);
    rec.set("label", r.exact ? "exact" : "lower bound");
    rec.set("failure_bound", r.exact ? Value(0L) : Value::real(bound_up(r.dimension.failure_bound, 3), 3));
    rec.set("last_level", joined({r.widths[L - 2], r.powers[L - 2], r.widths[L - 1]}));
    rec.set("defective_levels", joined(r.defective_levels));
    rec.set("ah_exception", r.ah_exception);
    rec.set("reason", to_string(r.reason));
    return rec;
}

Record defect_summary(const DefectSweep& sw) {
    std::string levels;
    for (const DefectLevel& v : sw.levels)
        if (v.dimension.value < v.expected)
            levels += (levels.empty() ? "" : "; ") + std::string("(") + std::to_string(v.inputs) + "," + std::to_string(v.width) + "," +
                      std::to_string(v.outputs) + ") at " + std::to_string(v.power) + ": " + std::to_string(v.dimension.value) + " < " + std::to_string(v.expected);
    Record rec;
    rec.set("networks", static_cast<long>(sw.rows.size()));
    rec.set("skipped", sw.skipped);
    rec.set("exact", sw.exact);
    rec.set("defective", sw.defective);
    rec.set("by_bound", sw.by_bound);
    rec.set("by_level", sw.by_level);
    rec.set("unexplained", sw.unexplained);
    rec.set("silent", sw.silent);
    rec.set("levels", static_cast<long>(sw.levels.size()));
    rec.set("defective_levels", levels.empty() ? std::string("none") : levels);
    rec.set("ah_mismatch", sw.ah_mismatch);
    rec.set("seconds", std::round(sw.seconds * 100) / 100);
    rec.set("peak_mib", std::round(sw.peak_mib * 10) / 10);
    return rec;
}

}  // namespace seprank
