#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/generic.hpp"
#include "seprank/guess_blocks.hpp"
#include "seprank/table.hpp"
#include "seprank/table_blocks.hpp"
#include "support.hpp"

#include <algorithm>
#include <doctest/doctest.h>

using namespace seprank;
using namespace seprank_test;

namespace {

long choose(long n, long r) {
    if (r < 0 || n < 0) return -1;
    if (r > n) return 0;
    long v = 1;
    for (long i = 1; i <= r; ++i) v = v * (n - r + i) / i;
    return v;
}

// A block table as text cells, one configuration per (dim, depth): blocks a = 1, 3, …, D
// (D = 2·depth + 1 odd blocks, the parity of attention), caps (cap_a, cap_b) and ranks
// given by `rank(dim, depth, a, k, j, cap)`.
template <class Rank>
std::vector<TableRow> synthetic(const std::vector<std::pair<long, long>>& configs, Rng& rng, Rank rank) {
    std::vector<TableRow> out;
    for (const auto& [dim, depth] : configs) {
        const long n = depth + 3;  // blocks
        for (long k = 0; k < n; ++k) {
            const long a = 2 * k + 1, j = n - 1 - k;
            const long cap_a = 1 + static_cast<long>(rng.below(1000)), cap_b = 1 + static_cast<long>(rng.below(1000));
            const long r = std::min({cap_a, cap_b, rank(dim, depth, k, j)});
            out.push_back({{"family", "attention"}, {"tokens", "4"}, {"dim", std::to_string(dim)}, {"depth", std::to_string(depth)},
                           {"partition", "1,2|3,4"}, {"block", std::to_string(a)}, {"blocks", std::to_string(n)},
                           {"rank", std::to_string(r)}, {"cap_a", std::to_string(cap_a)}, {"cap_b", std::to_string(cap_b)},
                           {"status", "ok"}});
        }
    }
    return out;
}

std::vector<std::pair<long, long>> grid(long dims, long depths) {
    std::vector<std::pair<long, long>> g;
    for (long d = 1; d <= dims; ++d)
        for (long l = 1; l <= depths; ++l) g.emplace_back(d, l);
    return g;
}

// The cell `name` of a row (a TableRow is a list of (column, cell) pairs).
std::string& cell(TableRow& row, const std::string& name) {
    for (auto& [c, v] : row)
        if (c == name) return v;
    throw std::logic_error("no column " + name);
}

}  // namespace

TEST_CASE("guess_block_law: a planted law of two terms is found, confirmed on the held-out configuration") {
    INFO("seed " << seed());
    Rng rng = rng_for("block law planted");
    // The attention N = 4 law (docs/guess_blocks.md), planted on random caps.
    const auto law = [](long dim, long, long k, long j) {
        return std::min(choose(k + dim - 1, dim - 1) * choose(k + dim, dim - 1), choose(choose(j + dim - 1, dim - 1) + 1, 2));
    };
    const std::vector<TableRow> t = synthetic(grid(3, 3), rng, law);
    BlockLawOptions o;
    o.vars = {"dim", "depth"};
    const BlockLaw g = guess_block_law(t, {}, o);
    INFO(g.text() << " / " << g.reason);
    REQUIRE(g.found);
    CHECK(g.held_out == "dim=3,depth=3");
    CHECK(g.exceptions.empty());
    CHECK(g.notes.empty());  // both variables vary in the fit rows
    CHECK(g.fit_range == std::vector<std::pair<long, long>>{{1, 3}, {1, 3}});
    CHECK(g.held_out_exceptions.empty());
    CHECK(g.fitted + g.confirmed == static_cast<long>(g.rows.size()));
    CHECK(g.confirmed == 6);  // the held-out configuration's blocks
    // Whatever terms were chosen, they give every row (the law is determined by the rows).
    for (const BlockPoint& p : g.rows) {
        long v = std::min(p.cap_a, p.cap_b);
        for (const BlockTerm& term : g.forms) {
            long f = 0;
            if (term.value(p.x, p.k, p.j, f)) v = std::min(v, f);
        }
        CHECK(v == p.rank);
    }
    // A point it never saw: the law's value at each block agrees with the planted one
    // wherever the cap does not decide (checked through compare_law on a fresh table).
    const std::vector<TableRow> fresh = synthetic({{4, 3}, {2, 5}}, rng, law);
    for (const LawComparison& c : compare_law(g, fresh, {})) {
        INFO(c.name);
        CHECK(c.differ.empty());
        CHECK(c.law_total == c.computed_total);
        CHECK(c.law_with_exceptions == c.computed_total);
    }
    // A stack table: `copies` (its depth over its SPEC's layers) is derived as plain guess
    // derives it, for the fit, --against and a prediction's network.
    const auto as_stack = [](std::vector<TableRow> rows) {
        for (TableRow& r : rows) {
            for (auto& [name, value] : r) {
                if (name == "family") value = "stack";
                if (name == "depth") value = std::to_string(2 * std::stol(value));
            }
            r.emplace_back("layers", "attention,mlp:power=2");
        }
        return rows;
    };
    BlockLawOptions oc;
    oc.vars = {"dim", "copies"};
    const BlockLaw gc = guess_block_law(as_stack(t), {}, oc);
    REQUIRE(gc.found);
    CHECK(gc.text() == g.text());
    CHECK(gc.held_out == "dim=3,copies=3");
    CHECK(gc.confirmed == g.confirmed);
    for (const LawComparison& c : compare_law(gc, as_stack(synthetic({{4, 3}}, rng, law)), {})) CHECK(c.differ.empty());
    CHECK(prediction_network(as_stack(t), {}, oc.vars, {2, 4}).spec->depth == 8);
    // Rows the fit would not have selected (another family, another partition) are left out
    // and counted; a table with none left is refused; configurations are named as the
    // law's exceptions are, with the key columns that differ among them.
    for (const std::pair<std::string, std::string>& cv : {std::pair<std::string, std::string>{"family", "attention"}, {"tokens", "4"}, {"partition", "1,2|3,4"}})
        CHECK(std::find(g.fixed.begin(), g.fixed.end(), cv) != g.fixed.end());
    // a column the table lacks fixes nothing: another table's heads=1 rows are compared (a
    // review: "heads=1 (the law's rows: heads=)" refused them all)
    CHECK(std::none_of(g.fixed.begin(), g.fixed.end(), [](const auto& cv) { return cv.first == "heads"; }));
    const auto set_all = [](std::vector<TableRow> rows, const std::string& name, const std::string& v) {
        for (TableRow& row : rows)
            for (auto& [n, x] : row)
                if (n == name) x = v;
        return rows;
    };
    std::vector<TableRow> mixed = synthetic({{4, 3}}, rng, law);
    const std::vector<TableRow> other = set_all(mixed, "partition", "1,3|2,4"), had = set_all(mixed, "family", "hadamard");
    mixed.insert(mixed.end(), other.begin(), other.end());
    mixed.insert(mixed.end(), had.begin(), had.end());
    LawComparisonLeftOut left;
    const std::vector<LawComparison> kept = compare_law(g, mixed, {}, &left);
    REQUIRE(kept.size() == 1);
    CHECK(kept[0].name == "dim=4,depth=3");
    CHECK(left.rows == static_cast<long>(other.size() + had.size()));
    CHECK(left.why == "partition=1,3|2,4 (the law's rows: partition=1,2|3,4)");
    CHECK(throws_with<invalid_input>([&] { compare_law(g, had, {}); }, "none of the table's 6 block rows is of the law's configuration: family=hadamard"));
    BlockLaw loose = g;  // a law fitted over both partitions compares both, and names them
    loose.fixed.erase(std::find_if(loose.fixed.begin(), loose.fixed.end(), [](const auto& cv) { return cv.first == "partition"; }));
    const std::vector<LawComparison> both = compare_law(loose, mixed, {}, &left);
    REQUIRE(both.size() == 2);
    CHECK(both[0].name == "dim=4,depth=3,partition=1,2|3,4");
    CHECK(both[1].name == "dim=4,depth=3,partition=1,3|2,4");
    CHECK(left.rows == static_cast<long>(had.size()));
    // a failure_bound cell, where a row gives one, is a probability (guess's own reader)
    std::vector<TableRow> bounded = fresh;
    for (TableRow& row : bounded) row.emplace_back("failure_bound", "1.5");
    CHECK(throws_with<invalid_input>([&] { compare_law(g, bounded, {}); }, "column 'failure_bound' = '1.5' is no probability (0..1)"));
    for (TableRow& row : bounded) row.back().second = "3e-07";
    CHECK_NOTHROW(compare_law(g, bounded, {}));
}

TEST_CASE("guess_block_law: exceptions are named, lower bounds never fitted, too many misses is no law") {
    INFO("seed " << seed());
    Rng rng = rng_for("block law exceptions");
    const auto law = [](long dim, long depth, long k, long j) { return std::min(2 * k + dim + 1, 3 * j + depth); };
    std::vector<TableRow> t = synthetic(grid(3, 3), rng, law);
    // One fit row off by a little (a held-out one stays exact); a lower-bound row far off.
    std::size_t planted = 0;
    for (std::size_t r = 0; r < t.size(); ++r) {
        const std::string& rank = t[r][7].second;
        const std::string cap = std::to_string(std::min(std::stol(t[r][8].second), std::stol(t[r][9].second)));
        if (rank != cap && t[r][2].second == "2" && planted == 0) {
            t[r][7].second = std::to_string(std::stol(rank) - 1);
            planted = r;
        }
    }
    REQUIRE(planted > 0);
    const std::vector<TableRow> closed = t;  // every block closed
    // A lower-bound block leaves its whole configuration (dim=1,depth=1: 4 blocks) out: its
    // closed blocks would be a biased sample (those at their caps first); a note names it.
    t[1][10].second = "lower-bound";
    t[1][7].second = "1";
    BlockLawOptions o;
    o.vars = {"dim", "depth"};
    const BlockLaw g = guess_block_law(t, {}, o);
    INFO(g.text() << " / " << g.reason);
    REQUIRE(g.found);
    CHECK(g.not_ok == 4);
    CHECK(g.rows.size() + 4 == t.size());
    REQUIRE_FALSE(g.notes.empty());
    CHECK(g.notes[0].find("1 configuration left out whole (dim=1,depth=1): some of their blocks did not converge") == 0);
    CHECK(std::none_of(g.rows.begin(), g.rows.end(), [](const BlockPoint& p) { return p.x[0] == 1 && p.x[1] == 1; }));
    // decided before --where: a filter that drops the open block leaves the rest out too
    const BlockLaw gw = guess_block_law(t, {{"status", "ok"}}, o);
    REQUIRE(gw.found);
    CHECK(gw.rows.size() == g.rows.size());
    CHECK(std::none_of(gw.rows.begin(), gw.rows.end(), [](const BlockPoint& p) { return p.x[0] == 1 && p.x[1] == 1; }));
    REQUIRE_FALSE(gw.notes.empty());
    CHECK(gw.notes[0].find("1 configuration left out whole (dim=1,depth=1)") == 0);
    // a resumed table appends the recomputed block, ok, after its lower-bound row: closed
    std::vector<TableRow> resumed = t;
    resumed.push_back(closed[1]);
    const BlockLaw gr = guess_block_law(resumed, {}, o);
    REQUIRE(gr.found);
    CHECK(gr.rows.size() == closed.size());
    CHECK(gr.notes.empty());
    // every configuration open: no law, and the error says why
    std::vector<TableRow> open = closed;
    for (TableRow& r : open)
        if (r[5].second == "1") r[10].second = "lower-bound";  // each configuration's first block
    const std::string msg = seprank_test::message_of([&] { (void)guess_block_law(open, {}, o); });
    CHECK(msg.find("guess --blocks: no configuration to fit: ") == 0);
    REQUIRE(g.exceptions.size() == 1);
    const BlockPoint& e = g.rows[g.exceptions[0].row];
    CHECK(e.rank + 1 == g.exceptions[0].law);
    CHECK(e.x[0] == 2);
    CHECK(e.name == "dim=2,depth=" + std::to_string(e.x[1]));  // no other key column differs
    // The same rows for two head counts: a line names the heads too, or the two rows of one
    // (dim, depth) could not be told apart.
    std::vector<TableRow> two;
    for (const char* h : {"1", "2"})
        for (TableRow r : closed) {
            r.emplace_back("heads", h);
            two.push_back(r);
        }
    const BlockLaw both = guess_block_law(two, {}, o);
    INFO(both.text() << " / " << both.reason << " / not_ok " << both.not_ok << " / " << (both.notes.empty() ? "" : both.notes[0]));
    REQUIRE(both.found);
    REQUIRE(both.exceptions.size() == 2);
    const std::string& n1 = both.rows[both.exceptions[0].row].name;
    const std::string& n2 = both.rows[both.exceptions[1].row].name;
    CHECK(n1 == e.name + ",heads=1");
    CHECK(n2 == e.name + ",heads=2");
    CHECK(both.held_out.find("heads=2") != std::string::npos);
    // No exception allowed: no law, and the reason says how many rows the best one misses.
    o.max_exceptions = 0;
    const BlockLaw none = guess_block_law(t, {}, o);
    CHECK_FALSE(none.found);
    CHECK(none.reason.find("misses 1 of") != std::string::npos);
}

namespace {

// The block table of attention N = 4 (balanced partition) over dims x depths, as text cells.
std::vector<TableRow> computed_n4(std::vector<long> dims, std::vector<long> depths) {
    SweepOptions sw;
    sw.families = {Family::attention};
    sw.tokens = {4};
    sw.dims = std::move(dims);
    sw.depths = std::move(depths);
    sw.blocks = true;
    sw.generic.seed = seed();
    std::vector<TableRow> cells;
    run_table(plan_table({sw}).rows, {}, [&](const Row& r, bool) {
        for (const Row& b : block_rows(r)) {
            TableRow row;
            for (const auto& [name, v] : b) row.emplace_back(name, v.str());
            cells.push_back(row);
        }
    }, nullptr);
    return cells;
}

// The attention N = 4 law of docs/conjectures.md, built by hand.
BlockLaw n4_law() {
    BlockLaw law;
    law.found = true;
    law.vars = {"dim", "depth"};
    BlockTerm head;
    head.kind = 'p';
    head.index = 0;
    head.factors = {{{1, 0}, {1, 0}, -1, -1}, {{1, 0}, {1, 0}, 0, -1}};
    BlockTerm tail;
    tail.kind = 'n';
    tail.index = 1;
    tail.outer_add = 1;
    tail.factors = {{{1, 0}, {1, 0}, -1, -1}};
    law.forms = {tail, head};
    return law;
}

}  // namespace

TEST_CASE("the attention N = 4 block law on computed block tables; predictions against generic's blocks") {
    INFO("seed " << seed());
    const std::vector<TableRow> cells = computed_n4({1, 2, 3}, {1, 2});
    const BlockLaw law = n4_law();
    CHECK(law.text() == "min(cap_a, cap_b, C(C(j + dim - 1, dim - 1) + 1, 2), C(k + dim - 1, dim - 1)*C(k + dim, dim - 1)), "
                        "where k = (block - first block)/step and j = (last block - block)/step");
    for (const LawComparison& c : compare_law(law, cells, {})) {
        INFO(c.name);
        CHECK(c.differ.empty());
        CHECK(c.rows == c.agree);
        CHECK(c.law_total == c.computed_total);
    }
    // A block given twice counts once when its ranks agree and is refused when they differ;
    // a rank above the block's cap is refused.
    const auto set_cell = [](TableRow& row, const std::string& name, const std::string& v) {
        for (auto& [n, x] : row)
            if (n == name) x = v;
    };
    const auto cell = [](const TableRow& row, const std::string& name) {
        for (const auto& [n, x] : row)
            if (n == name) return std::stol(x);
        return -1L;
    };
    // a rank edited as the table would write it: at_cap with it (else the row is refused as edited)
    const auto set_rank = [&](TableRow& row, long r) {
        set_cell(row, "rank", std::to_string(r));
        set_cell(row, "at_cap", r == std::min(cell(row, "cap_a"), cell(row, "cap_b")) ? "true" : "false");
    };
    const std::size_t pick = cells.size() / 2;
    REQUIRE(cell(cells[pick], "rank") >= 0);
    std::vector<TableRow> twice = cells;
    twice.push_back(cells[pick]);
    const std::vector<LawComparison> once = compare_law(law, cells, {}), again = compare_law(law, twice, {});
    REQUIRE(once.size() == again.size());
    for (std::size_t i = 0; i < once.size(); ++i) CHECK(again[i].law_total == once[i].law_total);
    set_rank(twice.back(), cell(cells[pick], "rank") + 1);
    CHECK(throws_with<invalid_input>([&] { compare_law(law, twice, {}); }, "is given twice, with ranks"));
    // A rank below the law refutes it only up to the row's failure bound; a certified one
    // (failure_bound 0) or a rank above the law, for certain.
    REQUIRE(cell(cells[pick], "rank") > 0);
    for (const char* bound : {"2.5e-06", "0"}) {
        CAPTURE(bound);
        std::vector<TableRow> below = cells;
        set_rank(below[pick], cell(cells[pick], "rank") - 1);
        bool has_bound = false;
        for (auto& [n, x] : below[pick]) has_bound = has_bound || n == "failure_bound";
        if (!has_bound) below[pick].emplace_back("failure_bound", "");
        set_cell(below[pick], "failure_bound", bound);
        long refuting = 0;
        for (const LawComparison& c : compare_law(law, below, {})) {
            if (c.differ.empty()) {
                CHECK_FALSE(c.refuted_for_certain);
                CHECK(c.refutation_failure_bound == 0);
                continue;
            }
            ++refuting;
            REQUIRE(c.differ.size() == 1);
            CHECK(c.differ[0].first.rank == c.differ[0].second - 1);
            CHECK(c.refuted_for_certain == (std::string(bound) == "0"));
            CHECK(c.refutation_failure_bound == (std::string(bound) == "0" ? 0.0 : 2.5e-06));
        }
        CHECK(refuting == 1);
    }
    std::vector<TableRow> above = cells;
    set_rank(above[pick], std::min(cell(cells[pick], "cap_a"), cell(cells[pick], "cap_b")) + 1);
    CHECK(throws_with<invalid_input>([&] { compare_law(law, above, {}); }, "above its cap"));
    BlockLawOptions fit;
    fit.vars = {"dim", "depth"};
    CHECK(throws_with<invalid_input>([&] { guess_block_law(above, {}, fit); }, "above its cap"));  // the fitted table too
    // at_cap other than the rank and caps say (an edited rank, or an edited at_cap) is refused
    const auto capped = std::find_if(cells.begin(), cells.end(), [&](const TableRow& row) {
        return std::any_of(row.begin(), row.end(), [](const auto& nx) { return nx.first == "at_cap" && nx.second == "true"; }) && cell(row, "rank") > 0;
    });
    REQUIRE(capped != cells.end());
    std::vector<TableRow> edited = cells;
    TableRow& e = edited[static_cast<std::size_t>(capped - cells.begin())];
    set_cell(e, "rank", std::to_string(cell(e, "rank") - 1));
    CHECK(throws_with<invalid_input>([&] { compare_law(law, edited, {}); }, "column 'at_cap' = 'true', where its rank"));
    set_cell(e, "rank", std::to_string(cell(e, "rank") + 1));
    set_cell(e, "at_cap", "false");
    CHECK(throws_with<invalid_input>([&] { compare_law(law, edited, {}); }, "column 'at_cap' = 'false', where its rank"));
    std::vector<TableRow> negative = cells;
    set_cell(negative[pick], "cap_b", "-3");
    CHECK(throws_with<invalid_input>([&] { compare_law(law, negative, {}); }, "negative"));
    // a lower-bound row before the recomputed one (a resumed table file): the ok row replaces it
    std::vector<TableRow> resumed = {cells[pick]};
    set_cell(resumed[0], "status", "lower-bound");
    set_rank(resumed[0], 0);
    resumed.insert(resumed.end(), cells.begin(), cells.end());
    const std::vector<LawComparison> folded = compare_law(law, resumed, {});
    REQUIRE(folded.size() == once.size());
    for (const LawComparison& c : once) {  // the configurations, by name (the prepended row's comes first now)
        const auto it = std::find_if(folded.begin(), folded.end(), [&](const LawComparison& f) { return f.name == c.name; });
        REQUIRE(it != folded.end());
        CHECK(it->lower_bounds == 0);
        CHECK(it->rows == c.rows);
        CHECK(it->computed_total == c.computed_total);
    }
    // Lower-bound rows: one below its rank is consistent with the law and only counted; one
    // above the law's value disproves it there and is compared (a miss, marked lower_bound).
    // The computed total sums every row, bounds included, and is labelled a lower bound.
    {
        std::size_t below = cells.size(), over = cells.size();
        for (std::size_t r = 0; r < cells.size(); ++r) {
            const long rk = cell(cells[r], "rank"), cap = std::min(cell(cells[r], "cap_a"), cell(cells[r], "cap_b"));
            if (below == cells.size() && rk >= 2) below = r;
            else if (over == cells.size() && rk < cap && r != below) over = r;
        }
        REQUIRE(below < cells.size());
        REQUIRE(over < cells.size());
        std::vector<TableRow> lb = cells;
        set_cell(lb[below], "status", "lower-bound");
        set_rank(lb[below], cell(cells[below], "rank") - 1);
        set_cell(lb[over], "status", "lower-bound");
        set_rank(lb[over], cell(cells[over], "rank") + 1);
        long lbs = 0, misses = 0, lb_totals = 0, sum_before = 0, sum_after = 0;
        for (const LawComparison& c : once) sum_before += c.computed_total;
        for (const LawComparison& c : compare_law(law, lb, {})) {
            INFO(c.name);
            lbs += c.lower_bounds;
            lb_totals += c.computed_is_lower_bound;
            sum_after += c.computed_total;
            for (const auto& [p, v] : c.differ) {
                ++misses;
                CHECK(p.lower_bound);
                CHECK(p.rank == v + 1);
                CHECK(c.rows == c.agree + 1);
                CHECK(c.law_with_exceptions == c.law_total + 1);
            }
        }
        CHECK(lbs == 1);
        CHECK(misses == 1);
        CHECK(lb_totals >= 1);
        CHECK(sum_after == sum_before);  // one block 1 lower, one 1 higher
        // the over block given again as a smaller bound, before and after: the larger bound
        // holds either way (a review: the first one was kept), so it is still a miss
        for (const bool first : {true, false}) {
            std::vector<TableRow> twice = lb;
            TableRow smaller = lb[over];
            set_rank(smaller, cell(cells[over], "rank") - 1);
            twice.insert(first ? twice.begin() : twice.end(), smaller);
            long again = 0;
            for (const LawComparison& c : compare_law(law, twice, {})) again += static_cast<long>(c.differ.size());
            CHECK(again == 1);
        }
    }
    // a cap past 2^61 under a small form is no obstacle (the law is their minimum)
    {
        BlockLaw one = law;
        BlockTerm c;
        c.kind = 'l';
        c.index = 0;
        c.alpha = 1;
        c.factors = {{{0, 0}, {0, 0}, 1, 0}};  // k + 1
        one.forms = {c};
        const std::vector<BlockPrediction> p250 = predict_blocks(one, cells, {}, {250, 2});
        REQUIRE(!p250.empty());
        CHECK(std::any_of(p250.begin(), p250.end(), [](const BlockPrediction& p) { return p.cap_saturated(std::max(p.cap_a, p.cap_b)); }));
        for (const BlockPrediction& p : p250) CHECK(p.predicted == std::min({p.k + 1, p.cap_a, p.cap_b}));
    }
    // a variable with one value in the fit rows is noted, and a prediction moving it too
    {
        BlockLaw one = law;
        one.fit_range = {{1, 3}, {2, 2}};
        CHECK(prediction_notes(one, {4, 2}).empty());
        const std::vector<std::string> n = prediction_notes(one, {4, 3});
        REQUIRE(n.size() == 1);
        CHECK(n[0].find("depth takes one value (2) in the fit rows") != std::string::npos);
    }
    // a law's value past 2^61 (the caps saturate) is refused, not summed
    CHECK(throws_with<resource_limit>([&] { predict_blocks(law, cells, {}, {1000, 3}); }, "too large to predict"));
    // The law's blocks at a new point: the caps are degree_block_sides', the indices run
    // from the first and the last block.
    const std::vector<BlockPrediction> pred = predict_blocks(law, cells, {}, {2, 3});
    const ValidSpec spec(attention_spec(4, 2, 3));
    const DegreeBlockSides sides = degree_block_sides(spec, balanced_partition(4));
    REQUIRE(pred.size() == 14);
    for (const BlockPrediction& p : pred) {
        CHECK(p.cap_a == sides.a_side[static_cast<std::size_t>(p.block)]);
        CHECK(p.cap_b == sides.b_side[static_cast<std::size_t>(p.block)]);
        CHECK(p.predicted <= std::min(p.cap_a, p.cap_b));
        CHECK(p.k + p.j == 13);
    }
    CHECK(pred.front().block == 1);
    CHECK(pred.back().block == 27);
    // generic's block ranks there (the graded evaluation, the sweep's seed).
    GenericOptions g;
    g.seed = seed();
    g.trials = 1;
    g.method = GenericMethod::evaluation;
    g.variant = EvaluationVariant::graded;
    const RankAnswer ans = generic_rank(spec, balanced_partition(4), g);
    const BlockCheck c = compare_blocks(pred, ans.block_ranks);
    CHECK(c.computed_total == ans.value);
    CHECK(c.differ.empty());
    CHECK(c.predicted_total == ans.value);
    std::vector<long> off = ans.block_ranks;
    off[static_cast<std::size_t>(pred[1].block)] += 1;
    const BlockCheck d = compare_blocks(pred, off);
    REQUIRE(d.differ.size() == 1);
    CHECK(d.differ[0].second == d.differ[0].first.predicted + 1);
    // A list without the predicted blocks (a plain answer's, empty) is refused, not read as zeros.
    CHECK_THROWS_WITH_AS(compare_blocks(pred, {}), doctest::Contains("block 1 has no computed rank"), invalid_input);
    const std::vector<long> short_list(ans.block_ranks.begin(), ans.block_ranks.begin() + pred.back().block);  // the last predicted block missing
    CHECK_THROWS_AS(compare_blocks(pred, short_list), invalid_input);
    // check_block_prediction: generic's graded ranks at the predicted network, block by
    // block; a prediction above a block's rank is refuted up to generic's failure bound,
    // one below it for certain; above max_side, generic is not run.
    const PredictionNetwork at = prediction_network(cells, {}, law.vars, {2, 3});
    CheckOptions co;
    co.trials = 1;
    const BlockPredictionCheck agree = check_block_prediction(at, pred, co);
    CHECK(agree.verdict == "agree");
    CHECK(agree.ran);
    CHECK(agree.generic == c.predicted_total);
    CHECK(agree.differ.empty());
    CHECK_FALSE(agree.certain);
    std::vector<BlockPrediction> high = pred, low = pred;
    high[3].predicted += 1;
    low[5].predicted -= 1;
    const BlockPredictionCheck h = check_block_prediction(at, high, co), l = check_block_prediction(at, low, co);
    CHECK(h.verdict == "disagree");
    REQUIRE(h.differ.size() == 1);
    CHECK(h.differ[0].first.block == high[3].block);
    CHECK(h.differ[0].second == high[3].predicted - 1);
    CHECK_FALSE(h.certain);
    CHECK(h.failure_bound > 0);
    CHECK(l.verdict == "disagree");
    CHECK(l.certain);
    co.max_side = c.predicted_total - 1;
    const BlockPredictionCheck far = check_block_prediction(at, pred, co);
    CHECK(far.verdict == "unchecked");
    CHECK_FALSE(far.ran);
    CHECK(far.reason == "the predicted total is above --check-max-side " + std::to_string(co.max_side));
    // Past the graded evaluation's degree limit (3^7 = 2187 > 2048) the point is unchecked,
    // not an error: the other points of a --check are still checked.
    const NetworkSpec deep = seprank_test::attention_spec(2, 1, 7);
    const PredictionNetwork over{ValidSpec(deep), balanced_partition(2)};
    BlockPrediction one_block;
    one_block.block = 1;
    one_block.predicted = 1;
    const BlockPredictionCheck past = check_block_prediction(over, {one_block}, CheckOptions{});
    CHECK(past.verdict == "unchecked");
    CHECK_FALSE(past.ran);
    CHECK(past.reason.find("degree 2187 is over the graded evaluation's limit 2048") == 0);
    co.trials = 0;
    CHECK_THROWS_AS(check_block_prediction(at, pred, co), invalid_input);
}

TEST_SUITE("slow") {
TEST_CASE("guess_block_law finds the attention N = 4 law from dx = 1..3, L = 1..3 and predicts dx = 4, L = 3") {
    INFO("seed " << seed());
    const std::vector<TableRow> cells = computed_n4({1, 2, 3}, {1, 2, 3});
    BlockLawOptions o;
    o.vars = {"dim", "depth"};
    const BlockLaw g = guess_block_law(cells, {}, o);
    INFO(g.text() << " / " << g.reason);
    REQUIRE(g.found);
    CHECK(g.text() == n4_law().text());
    CHECK(g.held_out == "dim=3,depth=3");
    CHECK(g.confirmed == 14);
    CHECK(g.exceptions.empty());
    // dx = 4, L = 3: the law's total is 20,940; the H200's converged row (20,936) differs in
    // the middle block alone (7,260 against 7,256: data/blocks_attention_n4_frontier.csv).
    long total = 0;
    for (const BlockPrediction& p : predict_blocks(g, cells, {}, {4, 3})) total += p.predicted;
    CHECK(total == 20940);
}
}

TEST_CASE("guess_block_law: the options and the table are checked") {
    BlockLawOptions o;
    o.vars = {"dim", "dim"};
    CHECK(throws_with<invalid_input>([&] { check_options(o); }, "given twice"));
    o.vars = {"block"};
    CHECK(throws_with<invalid_input>([&] { check_options(o); }, "block column"));
    o.vars = {"dim"};
    o.max_forms = 0;
    CHECK(throws_with<invalid_input>([&] { check_options(o); }, "max forms"));
    o.max_forms = 3;
    o.max_exceptions = -1;
    CHECK(throws_with<invalid_input>([&] { check_options(o); }, "max exceptions"));
    o.max_exceptions = 2;
    const std::vector<TableRow> plain = {{{"family", "attention"}, {"dim", "1"}, {"rank", "2"}}};
    CHECK(throws_with<invalid_input>([&] { guess_block_law(plain, {}, o); }, "no column 'block'"));
    Rng rng = rng_for("block law small");
    const std::vector<TableRow> one = synthetic({{1, 1}}, rng, [](long, long, long k, long) { return k + 1; });
    CHECK(throws_with<invalid_input>([&] { guess_block_law(one, {}, o); }, "too few"));
    BlockLaw none;
    CHECK(throws_with<invalid_input>([&] { predict_blocks(none, one, {}, {1}); }, "no law"));
    // Terms: values, domains, text.
    BlockTerm t;
    t.kind = 'p';
    t.index = 0;
    t.factors = {{{1}, {1}, -1, -1}, {{1}, {1}, 0, -1}};  // C(k + dim - 1, dim - 1)*C(k + dim, dim - 1)
    long v = 0;
    REQUIRE(t.value({3}, 6, 0, v));
    CHECK(v == choose(8, 2) * choose(9, 2));
    CHECK(t.text({"dim"}) == "C(k + dim - 1, dim - 1)*C(k + dim, dim - 1)");
    CHECK_FALSE(t.value({0}, 0, 0, v));  // a negative bottom: outside the domain
    BlockTerm n;
    n.kind = 'n';
    n.index = 1;
    n.outer_add = 1;
    n.factors = {{{1}, {1}, -1, -1}};
    REQUIRE(n.value({4}, 0, 6, v));
    CHECK(v == choose(choose(9, 3) + 1, 2));
    CHECK(n.text({"dim"}) == "C(C(j + dim - 1, dim - 1) + 1, 2)");
    BlockTerm huge = t;
    REQUIRE(huge.value({60}, 200, 0, v));
    CHECK(v == (1L << 62));  // saturated, never wrapped
}

TEST_CASE("guess --blocks: every row's partition is checked; a prediction carries the rows' partition to the point") {
    Rng rng = rng_for("block law partitions");
    std::vector<TableRow> rows = synthetic(grid(3, 3), rng, [](long dim, long, long k, long) { return dim + k; });
    BlockLawOptions o;
    o.vars = {"dim", "depth"};
    REQUIRE(guess_block_law(rows, {}, o).found);
    // a partition cell that is none of the row's tokens: one line naming the row and the cell
    for (const char* bad : {"abc", "1|2|3", "1,2|3,5", "1,2|3"}) {
        std::vector<TableRow> t = rows;
        cell(t[4], "partition") = bad;
        INFO(bad);
        CHECK(throws_with<invalid_input>([&] { guess_block_law(t, {}, o); }, "guess --blocks: row 5: column 'partition': partition '" + std::string(bad) + "'"));
    }
    // a lower bound above its block's cap is refused as a rank there is (it had refuted a law for certain)
    std::vector<TableRow> lb = rows;
    cell(lb[2], "status") = "lower-bound";
    cell(lb[2], "rank") = std::to_string(std::stol(cell(lb[2], "cap_a")) + std::stol(cell(lb[2], "cap_b")));
    CHECK(throws_with<invalid_input>([&] { guess_block_law(lb, {}, o); }, "row 3: block 5 has lower bound"));
    CHECK(throws_with<invalid_input>([&] { guess_block_law(lb, {}, o); }, "above its cap"));
    // the point's tokens: the row's own partition at its tokens, else the rows' pattern
    const auto part_at = [](std::vector<TableRow> t, const std::string& part, long tokens_at) {
        for (TableRow& r : t) cell(r, "partition") = part;
        return to_string(prediction_network(t, {}, {"tokens", "dim", "depth"}, {tokens_at, 1, 1}).part.get());
    };
    CHECK(part_at(rows, "1|2,3,4", 4) == "1|2,3,4");
    CHECK(part_at(rows, "1|2,3,4", 6) == "1|2,3,4,5,6");   // every row 1|2..n
    CHECK(part_at(rows, "1,2|3,4", 6) == "1,2,3|4,5,6");   // every row balanced
    CHECK(part_at(rows, "1,3|2,4", 4) == "1,3|2,4");
    CHECK(throws_with<invalid_input>([&] { (void)part_at(rows, "1,3|2,4", 5); }, "follow no pattern to carry to 5"));
    {  // past parse_list's range limit (10,001 items), built directly
        std::vector<TableRow> t = rows;
        for (TableRow& r : t) cell(r, "partition") = "1|2,3,4";
        const PredictionNetwork far = prediction_network(t, {}, {"tokens", "dim", "depth"}, {12000, 1, 1});
        CHECK(far.part.tokens() == 12000);
        CHECK(far.part->A == std::vector<long>{1});
        CHECK(throws_with<invalid_input>([&] { (void)prediction_network(t, {}, {"tokens", "dim", "depth"}, {1, 1, 1}); }, "at least 2 tokens"));
    }
    // mixed token counts: 1|2 is both balanced and 1|rest, 1|2,3 only the second
    std::vector<TableRow> mixed = rows;
    for (std::size_t r = 0; r < mixed.size(); ++r) {
        const bool two = r % 2 == 0;
        cell(mixed[r], "tokens") = two ? "2" : "3";
        cell(mixed[r], "partition") = two ? "1|2" : "1|2,3";
    }
    CHECK(to_string(prediction_network(mixed, {}, {"tokens", "dim", "depth"}, {5, 1, 1}).part.get()) == "1|2,3,4,5");
    // the row's network, rebuilt as plain guess --check does, named as a prediction's
    std::vector<TableRow> nameless = rows;
    for (TableRow& r : nameless) r.erase(std::remove_if(r.begin(), r.end(), [](const auto& c) { return c.first == "family"; }), r.end());
    CHECK(throws_with<invalid_input>([&] { (void)prediction_network(nameless, {}, {"dim", "depth"}, {1, 1}); },
                                     "guess --blocks: the table has no column 'family'"));
}

TEST_CASE("block_given_twice: the one rule of guess --blocks, plot --blocks and the hint readers") {
    CHECK(block_given_twice(false, 3, true, 5) == BlockTwice::take_second);   // the recomputed ok row over its bound
    CHECK(block_given_twice(true, 5, false, 3) == BlockTwice::keep_first);    // a bound after the ok row changes nothing
    CHECK(block_given_twice(false, 5, false, 7) == BlockTwice::take_second);  // the larger of two bounds
    CHECK(block_given_twice(false, 7, false, 5) == BlockTwice::keep_first);
    CHECK(block_given_twice(false, -1, false, 0) == BlockTwice::take_second); // a rank < 0: none given
    CHECK(block_given_twice(true, 4, true, 4) == BlockTwice::keep_first);
    CHECK(block_given_twice(true, 4, true, 5) == BlockTwice::conflict);
}
