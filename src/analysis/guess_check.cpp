// guess — checking a prediction: the network of a table row at a point, and generic's rank
// there within a time budget (spec_of_row, check_prediction; guess.hpp, docs/guess.md), and
// a block law's prediction block by block (check_block_prediction; guess_blocks.hpp).
#include "seprank/guess.hpp"
#include "seprank/guess_blocks.hpp"

#include "seprank/cancel.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/generic.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "base/number_text.hpp"
#include "guess_internal.hpp"

#include <charconv>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>
#include <flint/fmpq.h>

namespace seprank {


namespace {

long cell_long(const std::string& text, const std::string& what) {
    long v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (!text.empty() && p == text.data() + text.size()) {
        if (ec == std::errc()) return v;
        if (ec == std::errc::result_out_of_range)
            throw invalid_input(what + " = " + text.substr(0, 40) + " is out of range (-2^63..2^63-1)");
    }
    throw invalid_input(what + " = '" + text.substr(0, 40) + "' is not an integer");
}

}  // namespace

NetworkSpec spec_of_row(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x) {
    if (x.size() != vars.size())
        throw invalid_input("check: " + std::to_string(x.size()) + " values for " + std::to_string(vars.size()) + " variables");
    NetworkSpec s;
    const auto num = [&](const char* name, long& field) {
        if (const std::string* c = table_cell(row, name); c && !c->empty()) field = cell_long(*c, std::string("check: column ") + name);
    };
    const std::string* fam = table_cell(row, "family");
    if (!fam) throw invalid_input("check: the table has no column 'family' to build the network from");
    s.family = family_from_string(*fam);
    num("tokens", s.tokens);
    num("dim", s.dim);
    long h = 0;
    num("heads", h);
    if (h > 0) s.heads = h;
    // head_dim is a resolved column (dx/H when not given): kept only where it was chosen.
    long hd = 0;
    num("head_dim", hd);
    if (hd > 0 && hd * s.heads != s.dim) s.head_dim = hd;
    num("depth", s.depth);
    num("block_degree", s.block_degree);
    long w = 0;  // width: resolved (dx when not given) as head_dim
    num("width", w);
    if (w > 0 && w != s.dim) s.width = w;
    num("embed_rank", s.embed_rank);
    num("attention_rank", s.attention_rank);
    num("position", s.position);
    num("coordinate", s.coordinate);
    if (const std::string* r = table_cell(row, "residual"); r && !r->empty()) {
        if (*r != "true" && *r != "false" && *r != "True" && *r != "False" && *r != "1" && *r != "0")
            throw invalid_input("check: column residual = '" + r->substr(0, 40) + "' (expected true or false)");
        s.residual = *r == "true" || *r == "True" || *r == "1";
    }
    long copies = -1;  // a stack's copies of its SPEC (with_stack_copies): depth, below
    for (std::size_t i = 0; i < vars.size(); ++i) {
        if (vars[i] == "copies") {
            copies = x[i];
            continue;
        }
        long* field = vars[i] == "tokens" ? &s.tokens : vars[i] == "dim" ? &s.dim : vars[i] == "heads" ? &s.heads
                    : vars[i] == "depth" ? &s.depth : vars[i] == "block_degree" ? &s.block_degree : vars[i] == "width" ? &s.width
                    : vars[i] == "embed_rank" ? &s.embed_rank : nullptr;
        if (!field)
            throw invalid_input("check: variable '" + vars[i] + "' is not a network size (tokens, dim, heads, depth, block_degree, width, embed_rank; copies for a stack)");
        *field = x[i];
    }
    // A stack: its `layers` column is the list that depth (the number of layers) repeats.
    if (const std::string* spec = table_cell(row, "layers"); spec && !spec->empty()) {
        const std::vector<LayerSpec> unit = parse_layers(*spec);
        const long n = static_cast<long>(unit.size());
        if (copies >= 0) s.depth = copies > kMaxDepth ? kMaxDepth + 1 : copies * n;
        std::optional<std::vector<LayerSpec>> all = s.depth % n == 0 ? repeat_layers(unit, s.depth / n) : std::nullopt;
        if (!all)
            throw invalid_input("check: depth " + std::to_string(s.depth) + " is not a number of copies of the " + std::to_string(n) +
                                " layers '" + *spec + "' (at most " + std::to_string(kMaxDepth) + " layers)");
        s.layers.insert(s.layers.end(), all->begin(), all->end());
    } else if (copies >= 0) {
        throw invalid_input("check: variable 'copies' names a stack's copies of its SPEC, and this row has no 'layers' SPEC");
    }
    return s;
}

void check_options(const CheckOptions& opt) {
    if (!(opt.seconds > 0) || !std::isfinite(opt.seconds))
        throw invalid_input("check seconds " + number_text(opt.seconds) + " must be a finite number > 0");
    if (opt.trials < 1 || opt.trials > 1000) throw invalid_input("check trials " + std::to_string(opt.trials) + " outside 1..1000");
    GenericOptions g;
    g.trials = opt.trials;
    g.max_side = opt.max_side;
    g.threads = opt.threads;
    check_options(g);
}

namespace guess_detail {

PartitionShapes partition_shapes(const ValidPartition& p) {
    return {to_string(p.get()) == to_string(balanced_partition(p.tokens()).get()), p->A == std::vector<long>{1}};
}

}  // namespace guess_detail

PredictionCheck check_prediction(const TableRow& row, const std::vector<std::string>& vars, const std::vector<long>& x,
                                 const Rational& predicted, const CheckOptions& opt) {
    check_options(opt);
    const ValidSpec spec = spec_of_row(row, vars, x);
    // The row's partition, or where the point has other tokens than the row (tokens among
    // the variables) the balanced one when the row's is its tokens' balanced one; another
    // partition names no partition of other tokens (a hunt: the row's '1|2' was read at
    // tokens=6 and refused, token 3 on neither side).
    const std::string* part_text = table_cell(row, "partition");
    const std::string* row_tokens = table_cell(row, "tokens");
    const bool other_tokens = row_tokens && !row_tokens->empty() && *row_tokens != std::to_string(spec->tokens);
    PredictionCheck c;
    std::optional<ValidPartition> carried;  // the row's partition's shape at the point's tokens
    if (other_tokens && part_text && !part_text->empty()) {
        const long n = cell_long(*row_tokens, "check: column tokens");
        const guess_detail::PartitionShapes shapes = n < 1 ? guess_detail::PartitionShapes{} : guess_detail::partition_shapes(parse_partition(*part_text, n));
        if (!shapes.balanced && !shapes.first) {
            c.verdict = "unchecked";
            c.reason = "the table's partition " + *part_text + " is neither the balanced one of its " + *row_tokens +
                       " tokens nor 1|2..n, and names none of " + std::to_string(spec->tokens);
            return c;
        }
        carried = shapes.balanced ? balanced_partition(spec->tokens) : first_vs_rest_partition(spec->tokens);
    }
    const ValidPartition part = carried                                             ? *carried
                                : part_text && !part_text->empty() && !other_tokens ? parse_partition(*part_text, spec->tokens)
                                                                                    : balanced_partition(spec->tokens);
    GenericOptions go;
    go.trials = opt.trials;
    go.max_side = opt.max_side;
    go.threads = opt.threads;
    // The rank the evaluation finds is at most its side: a prediction above max_side could
    // only come back as a lower bound, so generic is not run for it. The flattening, which
    // generic's auto picks where the expansion is small (generic.hpp), has no side: it
    // checks any prediction (s = 2 attention at L = 7, 26,000, had been left unchecked).
    const bool flattens = generic_auto_flattens(spec, go);
    if (!flattens && fmpq_cmp_si(predicted.get(), opt.max_side) > 0) {
        c.verdict = "unchecked";
        c.reason = "the prediction is above --check-max-side " + std::to_string(opt.max_side);
        c.above_side = true;
        return c;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto since = [&start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    // The budget's scope replaces the caller's for the run, so it also asks the caller's
    // (Ctrl-C in the CLI or Python): that one's cancellation is passed on, not a verdict.
    const CancelHandle outer = current_cancel();
    bool outer_cancelled = false;
    try {
        const CancelScope scope([&] {
            if (outer) {
                const CancelScope caller(outer);
                if (cancel_requested()) outer_cancelled = true;
            }
            return outer_cancelled || since() > opt.seconds;
        });
        const RankAnswer r = generic_rank(spec, part, go);
        const bool lower = r.kind != RankKind::generic && r.kind != RankKind::exact;
        c.done = true;
        c.generic = r.value;
        c.label = r.label();
        c.failure_bound = r.failure_bound;
        c.verdict = Rational(Integer(r.value)) == predicted ? "agree" : lower ? "unchecked" : "disagree";
        if (c.verdict == "unchecked") c.reason = "generic gave the lower bound " + std::to_string(r.value);
        // The budget stops an expansion only between products: one FLINT product or
        // composition runs to its end (a flattening at L = 11 took 64 s of 10), said so.
        if (const double took = since(); took > opt.seconds && c.reason.empty()) {
            std::ostringstream s;
            s.precision(3);
            s << "took " << took << " s, past the budget of " << opt.seconds << " s: "
              << (r.method == "flattening" ? "the flattening is stopped only between its products, and one product ran long"
                                           : "the evaluation is stopped only between its steps, and one step ran long");
            c.reason = s.str();
        }
    } catch (const cancelled&) {
        if (outer_cancelled) throw;
        c.verdict = "unchecked";
        std::ostringstream s;
        s << "generic did not finish in " << opt.seconds << " s";
        c.reason = s.str();
    }
    c.seconds = since();
    return c;
}

BlockPredictionCheck check_block_prediction(const PredictionNetwork& at, const std::vector<BlockPrediction>& pred,
                                            const CheckOptions& opt) {
    check_options(opt);
    BlockPredictionCheck c;
    long total = 0;
    for (const BlockPrediction& p : pred)  // each below 2^61 (predict_blocks): no overflow before max_side is passed
        if ((total += p.predicted) > opt.max_side) break;
    if (total > opt.max_side) {
        c.verdict = "unchecked";
        c.reason = "the predicted total is above --check-max-side " + std::to_string(opt.max_side);
        return c;
    }
    // The block ranks come from the graded evaluation, which takes degrees up to its limit:
    // past it the point is unchecked, not an error (the other points are still checked).
    if (const Integer D = output_degree(at.spec); D > Integer(EvaluationOptions{}.max_graded_degree)) {
        c.verdict = "unchecked";
        c.reason = "degree " + D.str() + " is over the graded evaluation's limit " + std::to_string(EvaluationOptions{}.max_graded_degree) +
                   ", which ranks the blocks one by one (seprank generic gives the total)";
        return c;
    }
    GenericOptions g;
    g.trials = opt.trials;
    g.max_side = opt.max_side;
    g.threads = opt.threads;
    g.method = GenericMethod::evaluation;
    g.variant = EvaluationVariant::graded;  // the block ranks, to compare one by one
    g.max_seconds = opt.seconds;
    const auto start = std::chrono::steady_clock::now();
    const RankAnswer a = generic_rank(at.spec, at.part, g);
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    c.ran = true;
    c.generic = a.value;
    c.label = a.label();
    c.failure_bound = a.failure_bound;
    if (!a.converged) {
        c.verdict = "unchecked";
        c.reason = "generic gave the lower bound " + std::to_string(a.value);
        return c;
    }
    c.differ = compare_blocks(pred, a.block_ranks).differ;
    c.verdict = c.differ.empty() ? "agree" : "disagree";
    for (const auto& [p, got] : c.differ) c.certain = c.certain || got > p.predicted;
    return c;
}

}  // namespace seprank
