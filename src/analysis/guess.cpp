// guess — closed forms fitted exactly to table rows: the options and the search, smallest
// form first (guess.hpp, docs/guess.md).
#include "seprank/guess.hpp"

#include "guess_internal.hpp"
#include "seprank/error.hpp"

#include "seprank/limits.hpp"
#include "seprank/progress.hpp"
#include "base/number_text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

namespace seprank {

void check_options(const GuessOptions& opt) {
    if (opt.vars.empty() || opt.vars.size() > 3)
        throw invalid_input("guess: " + std::to_string(opt.vars.size()) + " variables given; 1 to 3 are searched");
    for (std::size_t i = 0; i < opt.vars.size(); ++i) {
        if (opt.vars[i].empty()) throw invalid_input("guess: an empty variable name");
        for (std::size_t j = 0; j < i; ++j)
            if (opt.vars[i] == opt.vars[j]) throw invalid_input("guess: variable '" + opt.vars[i] + "' given twice");
    }
    if (opt.max_degree < 0 || opt.max_degree > 8) throw invalid_input("guess: max degree " + std::to_string(opt.max_degree) + " outside 0..8");
    for (long c : opt.bases)
        if (c < 2 || c > 16) throw invalid_input("guess: exponential base " + std::to_string(c) + " outside 2..16");
    if (opt.max_order < 0 || opt.max_order > 6) throw invalid_input("guess: max order " + std::to_string(opt.max_order) + " outside 0..6");
    if (opt.max_rec_degree < 0 || opt.max_rec_degree > 4)
        throw invalid_input("guess: max recurrence degree " + std::to_string(opt.max_rec_degree) + " outside 0..4");
    if (opt.max_params < 1 || opt.max_params > 64) throw invalid_input("guess: max params " + std::to_string(opt.max_params) + " outside 1..64");
    if (opt.min_confirm < 1) throw invalid_input("guess: min confirmations " + std::to_string(opt.min_confirm) + " must be at least 1");
    if (opt.max_exps < 1 || opt.max_exps > 4) throw invalid_input("guess: max exponentials " + std::to_string(opt.max_exps) + " outside 1..4");
    if (opt.max_exceptions < 0)
        throw invalid_input("guess: max exceptions " + std::to_string(opt.max_exceptions) + " must be at least 0");
    if (!(opt.max_seconds >= 0) || !std::isfinite(opt.max_seconds))
        throw invalid_input("guess: max seconds " + number_text(opt.max_seconds) + " must be a finite number >= 0");
}

std::string to_string(FormKind k) {
    switch (k) {
        case FormKind::polynomial: return "polynomial";
        case FormKind::exp_linear: return "exp-linear";
        case FormKind::binomial: return "binomial";
        case FormKind::exp_sum: return "exp-sum";
        case FormKind::hypergeometric: return "hypergeometric";
        case FormKind::c_finite: return "C-finite";
        case FormKind::p_recursive: return "P-recursive";
    }
    throw internal_error("to_string(FormKind): unknown value " + std::to_string(static_cast<int>(k)));
}

using namespace guess_detail;

namespace {

// ------------------------------------------------------------------ the search

// A form the search accepted: its formula, free parameters and rows.
struct Accepted {
    Formula form;
    long params = 0;
    std::vector<std::size_t> fit_rows, confirm_rows, miss_rows;  // indices into the rows
};

// What a search counts: forms tried, refuted by a row, skipped as too large, and those the
// rows could not over-determine (for the reason's "what would help"); and the estimated
// bits of values the whole search may still compute (unbounded but for the search for a
// near miss, a hint that must not cost more than the answer).
struct Counts {
    long tried = 0, refuted = 0, skipped = 0, undetermined = 0;
    long unreachable = 0;  // recurrences fitted but not checkable on every row (recurrence_reproduces: unknown)
    double bits_left = std::numeric_limits<double>::infinity();
};

// The near-miss search's bound on the bits it computes in all: 2^24 (a table of small
// rows never reaches it; rows at n = 50,000 make every exponential 10^5 bits long).
constexpr double kNearMissBits = 16777216.0;

// The rows, the options and what every candidate shares: the candidates in order and the
// binomial read-backs (per variable b, each row's g with C(g + x_b, x_b) = v, if any).
struct Search {
    const std::vector<GuessPoint>& rows;
    const GuessOptions& opt;
    std::vector<Candidate> cands;
    std::vector<std::vector<std::optional<Rational>>> g_of;
    std::vector<long> g_missing;  // per variable: rows without a g
    // The search's time limit (GuessOptions::max_seconds, else default_max_seconds(),
    // --max-time): a search of the largest options over many rows (40 x 40 rows, 700
    // exceptions: 79 s, silent) stops with resource_limit when it passes it.
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    double max_seconds = opt.max_seconds > 0 ? opt.max_seconds : default_max_seconds();
};

// Forms whose every row is predicted on its own may name exceptions; a recurrence's or
// hypergeometric term's rows enter several equations (and its predictions), so not those.
bool takes_exceptions(FormKind k) {
    return k == FormKind::polynomial || k == FormKind::exp_linear || k == FormKind::exp_sum || k == FormKind::binomial;
}

std::optional<Accepted> try_recurrence(const Search& s, const Candidate& c, Counts& n) {
    const std::vector<GuessPoint>& R = s.rows;
    const bool cf = c.kind == FormKind::c_finite;
    const RecSystem sys = recurrence_system(R, c.order);
    const std::size_t unknowns = cf ? static_cast<std::size_t>(c.order) : static_cast<std::size_t>((c.order + 1) * (c.degree + 1));
    if (sys.row_of.size() < unknowns) {  // cannot even be determined
        ++n.undetermined;
        return std::nullopt;
    }
    ++n.tried;
    // The values are the rows' own (times n^e): no budget needed.
    const Fit f = fit_equations(sys.row_of.size(),
                                [&](std::size_t e, std::vector<Rational>& row, Rational& rhs) {
                                    recurrence_equation(R, sys, e, c.order, c.degree, cf, row, rhs);
                                    return Eq::ok;
                                },
                                unknowns, !cf);
    if (f.refuted) {
        ++n.refuted;
        return std::nullopt;
    }
    if (!f.determined) {  // confirmation is counted below, with the rows no equation read
        ++n.undetermined;
        return std::nullopt;
    }
    Accepted a;
    Formula& form = a.form;
    form.kind = c.kind;
    form.vars = s.opt.vars;
    form.rec_var = 0;
    form.order = c.order;
    if (cf) {
        form.rec.push_back({Rational(-1)});
        for (const Rational& ck : f.coeffs) form.rec.push_back({ck});
    } else {
        const std::size_t d1 = static_cast<std::size_t>(c.degree + 1);
        for (int k = 0; k <= c.order; ++k)
            form.rec.emplace_back(f.coeffs.begin() + static_cast<long>(k * d1), f.coeffs.begin() + static_cast<long>((k + 1) * d1));
        if (std::all_of(form.rec[0].begin(), form.rec[0].end(), [](const Rational& r) { return r.is_zero(); })) return std::nullopt;
    }
    // Initial values: the first `order` consecutive rows (one exists: an equation read them).
    const std::size_t k = static_cast<std::size_t>(c.order);
    for (std::size_t i = 0; i + k <= R.size() && form.init.empty(); ++i) {
        bool consecutive = true;
        for (std::size_t j = 1; j < k; ++j)  // rows ascend: the unsigned difference is exact
            consecutive = consecutive && static_cast<unsigned long>(R[i + j].x[0]) - static_cast<unsigned long>(R[i].x[0]) == j;
        if (!consecutive) continue;
        form.init_start = R[i].x[0];
        for (std::size_t j = 0; j < k; ++j) form.init.push_back(R[i + j].value);
    }
    // The formula is the recurrence with these initial values: every row must follow from
    // them, including rows of other runs of consecutive values, which no equation linked.
    switch (recurrence_reproduces(form, R)) {
        case Reproduction::yes: break;
        case Reproduction::no: ++n.refuted; return std::nullopt;
        case Reproduction::unknown: ++n.unreachable; return std::nullopt;
    }
    a.params = c.params;
    for (std::size_t e : f.fit) {
        a.fit_rows.push_back(sys.row_of[e]);
        for (std::size_t p : sys.prev[e]) a.fit_rows.push_back(p);  // and the rows it reads
    }
    for (std::size_t r = 0; r < R.size(); ++r)  // and the initial values, which the formula states
        if (R[r].x[0] >= form.init_start &&
            static_cast<unsigned long>(R[r].x[0]) - static_cast<unsigned long>(form.init_start) < static_cast<unsigned long>(c.order))
            a.fit_rows.push_back(r);
    std::sort(a.fit_rows.begin(), a.fit_rows.end());
    a.fit_rows.erase(std::unique(a.fit_rows.begin(), a.fit_rows.end()), a.fit_rows.end());
    for (std::size_t e : f.confirm) a.confirm_rows.push_back(sys.row_of[e]);
    // Rows no equation read (another run's, or a run shorter than the order) were
    // checked by the unrolling above: held out, they confirm the formula too.
    std::vector<bool> read(R.size(), false);
    for (std::size_t e = 0; e < sys.row_of.size(); ++e) {
        read[sys.row_of[e]] = true;
        for (std::size_t p : sys.prev[e]) read[p] = true;
    }
    for (std::size_t r = 0; r < R.size(); ++r)
        if (!read[r] && !std::binary_search(a.fit_rows.begin(), a.fit_rows.end(), r)) a.confirm_rows.push_back(r);
    std::sort(a.confirm_rows.begin(), a.confirm_rows.end());
    if (static_cast<long>(a.confirm_rows.size()) < s.opt.min_confirm) {
        ++n.undetermined;
        return std::nullopt;
    }
    return a;
}

// A polynomial, exp-linear, exp-sum or binomial form, up to max_exc rows missed: the
// greedy fit, and when it is refuted (or misses too many rows), the fit again with each of
// its own rows left out in turn, keeping the one that misses fewest.
std::optional<Accepted> try_linear(const Search& s, const Candidate& c, long max_exc, Counts& n) {
    const std::vector<GuessPoint>& R = s.rows;
    const bool binom = c.kind == FormKind::binomial;
    const std::size_t b = binom ? static_cast<std::size_t>(c.binom_var) : 0;
    if (binom && s.g_missing[b] > max_exc) return std::nullopt;  // too many rows are no binomial of this shape
    // P parameters take P rows: fewer than min_confirm left can never confirm it. Not
    // fitted (the smallest answer has at most rows − min_confirm parameters, so no form
    // tried before one is left out; a table with a row at n = 10^6 fitted 500 exponential
    // forms in vain).
    if (static_cast<long>(R.size()) - c.params < s.opt.min_confirm) {
        ++n.undetermined;
        return std::nullopt;
    }
    ++n.tried;
    const std::vector<std::optional<Rational>>* g_rows = binom ? &s.g_of[b] : nullptr;
    const auto fit = [&](std::size_t leave_out) {
        double budget = kFitBudgetBits;  // what the equations computed so far hold, at most
        return fit_equations(R.size(),
                             [&](std::size_t i, std::vector<Rational>& row, Rational& rhs) {
                                 double bits = 0;
                                 for (const GuessTerm& t : c.terms) bits += term_bits(t, R[i].x);
                                 budget -= bits;
                                 n.bits_left -= bits;
                                 if (!(budget >= 0) || !(n.bits_left >= 0)) return Eq::too_large;
                                 if (g_rows && !(*g_rows)[i]) return Eq::miss;
                                 row.clear();
                                 for (const GuessTerm& t : c.terms) row.push_back(term_value(t, R[i].x));
                                 rhs = g_rows ? *(*g_rows)[i] : Rational(R[i].value);
                                 return Eq::ok;
                             },
                             c.terms.size(), false, max_exc, leave_out);
    };
    const auto accepted = [&](const Fit& f) {
        return f.determined && !f.refuted && static_cast<long>(f.confirm.size()) >= s.opt.min_confirm && f.confirm.size() > f.miss.size();
    };
    Fit f = fit(std::numeric_limits<std::size_t>::max());
    if (max_exc > 0 && !f.too_large && !accepted(f)) {
        std::optional<Fit> best;
        for (std::size_t i : std::vector<std::size_t>(f.fit)) {
            Fit g = fit(i);
            if (accepted(g) && (!best || g.miss.size() < best->miss.size())) best = std::move(g);
        }
        if (best) f = std::move(*best);
    }
    if (f.too_large) {
        --n.tried;
        ++n.skipped;
        return std::nullopt;
    }
    if (!accepted(f)) {
        if (f.refuted || !f.miss.empty()) ++n.refuted;
        else ++n.undetermined;
        return std::nullopt;
    }
    Accepted a;
    a.form.kind = c.kind;
    a.form.vars = s.opt.vars;
    a.form.terms = c.terms;
    a.form.coeffs = f.coeffs;
    a.form.terms_kind = c.terms_kind;
    a.form.binom_var = c.binom_var;
    a.params = c.params;
    a.fit_rows = f.fit;
    a.confirm_rows = f.confirm;
    a.miss_rows = f.miss;
    return a;
}

std::optional<Accepted> try_hypergeometric(const Search& s, const Candidate& c, Counts& n) {
    HyperFit h = fit_hypergeometric(s.rows, s.opt.vars, c.degree, s.opt.min_confirm);
    if (!h.tried) {
        ++n.undetermined;
        return std::nullopt;
    }
    if (h.too_large) {
        ++n.skipped;
        return std::nullopt;
    }
    ++n.tried;
    if (h.found) return Accepted{std::move(h.form), c.params, std::move(h.fit_rows), std::move(h.confirm_rows), {}};
    if (h.refuted) ++n.refuted;
    else ++n.undetermined;
    return std::nullopt;
}

// The first candidate accepted, smallest first: one with exceptions only when no exact form
// of as many parameters or fewer follows it (exceptions_only: the forms that take them).
std::optional<Accepted> run_search(const Search& s, long max_exc, Counts& n, bool exceptions_only) {
    std::optional<Accepted> pending;
    const std::string phase = exceptions_only ? "guess near misses" : "guess forms";
    for (std::size_t k = 0; k < s.cands.size(); ++k) {
        const Candidate& c = s.cands[k];
        if (c.params > s.opt.max_params || !(n.bits_left >= 0)) break;
        // every form: progress (forms of the candidate list) and the time limit
        report_progress(current_progress(), phase, k, s.cands.size());
        if (const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - s.start).count(); s.max_seconds > 0 && t > s.max_seconds)
            throw resource_limit("guess: the search ran past its time limit after " + std::to_string(n.tried) + " forms tried, " +
                                 std::to_string(k) + " of the " + std::to_string(s.cands.size()) +
                                 " candidates; narrow it (--max-exceptions, --max-params, --max-degree, --bases, --max-exps) or raise the limit of " +
                                 format_seconds(s.max_seconds) + " (--max-time)");
        if (pending && c.params > pending->params) break;
        if (exceptions_only && !takes_exceptions(c.kind)) continue;
        std::optional<Accepted> a = c.kind == FormKind::c_finite || c.kind == FormKind::p_recursive ? try_recurrence(s, c, n)
                                    : c.kind == FormKind::hypergeometric                            ? try_hypergeometric(s, c, n)
                                                                                                     : try_linear(s, c, max_exc, n);
        if (!a) continue;
        if (a->miss_rows.empty()) return a;
        if (!pending) pending = std::move(a);
    }
    return pending;
}

// The formula's value at each row it missed (defined = false where it has none).
std::vector<GuessException> exceptions_of(const Formula& f, const std::vector<GuessPoint>& rows, const std::vector<std::size_t>& miss) {
    std::vector<GuessException> out;
    for (std::size_t i : miss) {
        GuessException e;
        e.row = i;
        try {
            e.value = evaluate(f, rows, rows[i].x, point_text(f.vars, rows[i].x));
        } catch (const invalid_input&) {
            e.defined = false;
        } catch (const resource_limit&) {
            e.defined = false;
        }
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

Guess guess_formula(const std::vector<GuessPoint>& input, const GuessOptions& opt) {
    check_options(opt);
    const std::size_t nv = opt.vars.size();
    Guess out;
    // Sort (smallest variables first), merge duplicates.
    std::vector<GuessPoint> rows = input;
    for (const GuessPoint& p : rows)
        if (p.x.size() != nv)
            throw invalid_input("guess: a row has " + std::to_string(p.x.size()) + " variable values, " + std::to_string(nv) + " expected");
    std::stable_sort(rows.begin(), rows.end(), [](const GuessPoint& a, const GuessPoint& b) {
        // The sums as doubles: no overflow near 2^63, and (sum, x) is still a fixed key.
        const auto sum = [](const std::vector<long>& x) {
            double s = 0;
            for (long v : x) s += static_cast<double>(v);
            return s;
        };
        const double sa = sum(a.x), sb = sum(b.x);
        return sa != sb ? sa < sb : a.x < b.x;
    });
    std::vector<GuessPoint> merged;
    for (GuessPoint& p : rows) {
        if (!merged.empty() && merged.back().x == p.x) {
            if (merged.back().value != p.value)
                throw invalid_input("guess: two rows at " + point_text(opt.vars, p.x) + " with different values " + cut(merged.back().value.str()) +
                                    " and " + cut(p.value.str()));
            if (p.status.empty()) merged.back().status.clear();  // an unmarked row has the same value
            if (p.label == "certified") {  // and a certified one makes it certified
                merged.back().label = p.label;
                merged.back().failure_bound = 0;
            }
            continue;
        }
        merged.push_back(std::move(p));
    }
    if (static_cast<long>(merged.size()) < 1 + opt.min_confirm)
        throw invalid_input("guess: " + std::to_string(merged.size()) + " distinct row(s): too few to fit even a constant and confirm it on " +
                            std::to_string(opt.min_confirm) + " more");
    out.rows = merged;
    const std::vector<GuessPoint>& R = out.rows;

    Search s{R, opt, candidates(nv, opt), std::vector<std::vector<std::optional<Rational>>>(nv), std::vector<long>(nv, 0)};
    // Binomial read-backs: g per row for each variable b. More rows without one than
    // exceptions allowed (2 when none are: the search for a near miss) rule the form out;
    // the search never asks for them then.
    const long g_limit = std::max(opt.max_exceptions, 2L);
    for (std::size_t b = 0; b < nv; ++b)
        for (const GuessPoint& p : R) {
            Integer g;
            if (s.g_missing[b] > g_limit || !inverse_binomial(p.value, p.x[b], g)) {
                ++s.g_missing[b];
                s.g_of[b].emplace_back();
            } else {
                s.g_of[b].emplace_back(Rational(g));
            }
        }

    Counts n;
    std::optional<Accepted> a = run_search(s, opt.max_exceptions, n, false);
    out.tried = n.tried;
    out.refuted = n.refuted;
    out.skipped = n.skipped;
    if (a) {
        out.found = true;
        out.formula = a->form;
        out.params = a->params;
        out.fit_rows = a->fit_rows;
        out.confirm_rows = a->confirm_rows;
        out.exceptions = exceptions_of(a->form, R, a->miss_rows);
        out.fitted = static_cast<long>(out.fit_rows.size());
        out.confirmed = static_cast<long>(out.confirm_rows.size());
        return out;
    }
    std::ostringstream why;
    why << "no form with at most " << opt.max_params << (opt.max_params == 1 ? " free parameter fits " : " free parameters fits ") << R.size()
        << " rows and predicts at least " << opt.min_confirm << (opt.min_confirm == 1 ? " held-out row (" : " held-out rows (") << out.tried
        << (out.tried == 1 ? " form tried, " : " forms tried, ") << out.refuted << " refuted by a held-out row; the rest"
        << " were not over-determined by these rows";
    if (out.skipped > 0)
        why << "; " << out.skipped << (out.skipped == 1 ? " form" : " forms") << " skipped: their values at these rows are over "
            << "2^27 bits in all";
    if (n.unreachable > 0)
        why << "; " << n.unreachable << (n.unreachable == 1 ? " recurrence" : " recurrences")
            << " left unstated: a row lies out of their unrolling's reach (over 2^24 steps or the exact budgets away, or past a "
               "vanishing end coefficient)";
    why << ")";
    bool near_miss = false;
    if (opt.max_exceptions == 0) {  // a form refuted by only one or two rows: name it
        Counts ignored;
        ignored.bits_left = kNearMissBits;
        if (const std::optional<Accepted> near = run_search(s, 2, ignored, true)) {
            const std::size_t m = near->miss_rows.size();
            why << "; " << near->form.text() << " (" << to_string(near->form.kind) << ", " << near->params
                << (near->params == 1 ? " free parameter" : " free parameters") << ") fits every row but " << m << ":";
            for (const GuessException& e : exceptions_of(near->form, R, near->miss_rows))
                why << " (" << point_text(opt.vars, R[e.row].x) << ": table " << cut(R[e.row].value.str()) << ", formula "
                    << (e.defined ? cut(e.value.str()) : std::string("undefined")) << ")";
            why << "; --max-exceptions " << m << " accepts it";
            near_miss = true;
        }
    }
    if (n.undetermined > 0 && !near_miss) why << "; " << rows_help(R, opt);  // (a near miss: rows are not what is missing)
    out.reason = why.str();
    out.near_miss = near_miss;
    return out;
}

}  // namespace seprank
