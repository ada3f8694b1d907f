#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/generic.hpp"
#include "seprank/table.hpp"
#include "seprank/table_blocks.hpp"
#include "support.hpp"

#include <algorithm>
#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <numeric>
#include <sstream>

using namespace seprank;
using namespace seprank_test;

namespace {

SweepOptions block_sweep() {
    SweepOptions sw;
    sw.families = {Family::attention};
    sw.tokens = {2, 3, 4};
    sw.dims = {1, 2};
    sw.depths = {1, 2};
    sw.blocks = true;
    sw.generic.seed = seed();
    return sw;
}

long cell(const Row& r, const char* name) { return std::stol(r.at(name).str()); }

// The rows of the sweep `sw`, also written to a fresh table file at `path` (CSV).
std::vector<Row> rows_written(const SweepOptions& sw, const std::string& path) {
    std::vector<Row> rows;
    run_table(plan_table({sw}).rows, {}, [&](const Row& r, bool) { rows.push_back(r); }, nullptr);
    std::remove(path.c_str());
    TableAppender out(path, false, sweep_signature(sw), false);
    for (const Row& r : rows) out.append(r);
    return rows;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST_CASE("block rows: the answer's block ranks, the sides of degree_block_sides, summing to the total") {
    INFO("seed " << seed());
    const SweepOptions sw = block_sweep();
    const SweepPlan plan = plan_sweep(sw);
    REQUIRE(plan.configs.size() == 12);
    for (const ValidSpec& spec : plan.configs) {
        INFO(describe(spec));
        const Row r = table_row(spec, sw);
        REQUIRE(is_block_config_row(r));
        CHECK(r.at("method").str() == "evaluation");
        // The same draw (the sweep's seed) through generic_rank: its block ranks, block by block.
        GenericOptions g = sw.generic;
        g.method = GenericMethod::evaluation;
        g.variant = EvaluationVariant::graded;
        const ValidPartition part = balanced_partition(spec->tokens);
        const RankAnswer ans = generic_rank(spec, part, g);
        const DegreeBlockSides sides = degree_block_sides(spec, part);
        const std::vector<long> caps = degree_block_caps(spec, part);
        const std::vector<Row> rows = block_rows(r);
        REQUIRE(!rows.empty());
        long sum = 0;
        std::vector<long> seen;
        for (const Row& b : rows) {
            CHECK(is_block_row(b));
            CHECK(b.names() == table_block_columns(false, false));
            const long a = cell(b, "block"), rank = cell(b, "rank");
            seen.push_back(a);
            REQUIRE(a >= 0);
            REQUIRE(a < static_cast<long>(sides.a_side.size()));
            CHECK(cell(b, "cap_a") == sides.a_side[static_cast<std::size_t>(a)]);
            CHECK(cell(b, "cap_b") == sides.b_side[static_cast<std::size_t>(a)]);
            CHECK(std::min(cell(b, "cap_a"), cell(b, "cap_b")) == caps[static_cast<std::size_t>(a)]);
            CHECK(rank == ans.block_ranks[static_cast<std::size_t>(a)]);
            CHECK(rank <= caps[static_cast<std::size_t>(a)]);
            CHECK((b.at("at_cap").str() == "true") == (rank == caps[static_cast<std::size_t>(a)]));
            CHECK(cell(b, "blocks") == static_cast<long>(rows.size()));
            CHECK(cell(b, "total") == ans.value);
            CHECK(b.at("status").str() == "ok");
            sum += rank;
        }
        CHECK(std::is_sorted(seen.begin(), seen.end()));
        CHECK(sum == ans.value);
        // Every block left out is empty on a side (parity or no monomial): rank 0 always.
        for (std::size_t a = 0; a < caps.size(); ++a)
            if (std::find(seen.begin(), seen.end(), static_cast<long>(a)) == seen.end()) {
                CHECK(caps[a] == 0);
                CHECK(ans.block_ranks[a] == 0);
            }
        // Folding the block rows gives back the configuration's blocks.
        std::vector<Row> shuffled = rows;
        std::reverse(shuffled.begin(), shuffled.end());
        const Row folded = fold_block_rows(shuffled);
        CHECK(block_rows(folded) == rows);
        CHECK(folded.at("rank").str() == r.at("rank").str());
        CHECK(row_key(folded) == row_key(r));
    }
}

TEST_CASE("block degree sides: the two sides' monomial counts, parity-reduced, against a count by hand") {
    // attention N = 2, dx = 1, L = 1: f = x1·(…) of degree 3, odd in token 1 (the output) and
    // even in token 2; partition 1|2: a = 1 (x1·x2²) and a = 3 (x1³), one monomial a side each.
    const ValidSpec spec(attention_spec(2, 1, 1));
    const DegreeBlockSides s = degree_block_sides(spec, balanced_partition(2));
    CHECK(s.a_side == std::vector<long>{0, 1, 0, 1});
    CHECK(s.b_side == std::vector<long>{0, 1, 0, 1});
    // dx = 2: a = 1: 2 A-monomials (x1_1, x1_2) against 3 B-monomials of degree 2; a = 3: 4 against 1.
    const ValidSpec spec2(attention_spec(2, 2, 1));
    const DegreeBlockSides s2 = degree_block_sides(spec2, balanced_partition(2));
    CHECK(s2.a_side == std::vector<long>{0, 2, 0, 4});
    CHECK(s2.b_side == std::vector<long>{0, 3, 0, 1});
    // Not homogeneous: no blocks.
    NetworkSpec res = attention_spec(2, 1, 2);
    res.residual = true;
    CHECK(degree_block_sides(ValidSpec(res), balanced_partition(2)).a_side.empty());
}

TEST_CASE("block table: no blocks, lower bounds, refused methods") {
    INFO("seed " << seed());
    SweepOptions sw = block_sweep();
    sw.tokens = {2};
    sw.dims = {1};
    sw.depths = {2};
    sw.residual = {true};
    const SweepPlan plan = plan_sweep(sw);
    REQUIRE(plan.configs.size() == 1);
    const std::vector<Row> rows = block_rows(table_row(plan.configs[0], sw));
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].at("status").str() == "skipped");
    CHECK(rows[0].at("block").is_null());
    CHECK(rows[0].at("reason").str().find("not homogeneous") != std::string::npos);
    CHECK(fold_block_rows(rows).at("status").str() == "skipped");

    // A side limit below the rank: the configuration is a lower bound; its blocks below
    // their cap are lower bounds, those at their cap are ok (exact whatever stopped it).
    SweepOptions small = block_sweep();
    small.tokens = {4};
    small.dims = {2};
    small.depths = {2};
    small.generic.max_side = 16;
    const SweepPlan sp = plan_sweep(small);
    const Row r = table_row(sp.configs[0], small);
    REQUIRE(r.at("status").str() == "lower-bound");
    long lower = 0;
    for (const Row& b : block_rows(r)) {
        const bool at_cap = b.at("at_cap").str() == "true";
        CHECK(b.at("status").str() == (at_cap ? "ok" : "lower-bound"));
        CHECK(b.at("reason").str().empty() == at_cap);
        lower += !at_cap;
    }
    CHECK(lower > 0);
    CHECK(fold_block_rows(block_rows(r)).at("status").str() == "lower-bound");
    // A status other than block_rows writes is refused, not moved onto the other blocks: a
    // block at its cap marked lower-bound, one below marked ok, any block marked skipped.
    {
        const std::vector<Row> rows = block_rows(r);
        long refused = 0;
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const bool at_cap = rows[k].at("at_cap").str() == "true";
            for (const char* status : {at_cap ? "lower-bound" : "ok", "skipped"}) {
                // (the only block below its cap marked ok makes a consistent, converged-looking
                // configuration: nothing left to tell it from one)
                if (!at_cap && std::string(status) == "ok" && lower < 2) continue;
                std::vector<Row> edited = rows;
                edited[k].set("status", std::string(status));
                INFO("block " << rows[k].at("block").str() << " marked " << status);
                CHECK(throws_with<invalid_input>([&] { fold_block_rows(edited); }, std::string(status) == "skipped" ? "has status 'skipped'" : "'s status is"));
                ++refused;
            }
        }
        CHECK(refused >= 2);
    }

    SweepOptions flat = block_sweep();
    flat.generic.method = GenericMethod::flattening;
    CHECK(throws_with<invalid_input>([&] { plan_sweep(flat); }, "method flattening"));
    SweepOptions plain = block_sweep();
    plain.generic.variant = EvaluationVariant::plain;
    CHECK(throws_with<invalid_input>([&] { plan_sweep(plain); }, "variant plain"));
    CHECK(sweep_signature(block_sweep()).find(" blocks=1") != std::string::npos);
    CHECK(throws_with<invalid_input>([&] { fold_block_rows({}); }, "no block rows"));
    CHECK(throws_with<invalid_input>([&] { block_rows(Row{}); }, "no block lists"));
}

TEST_CASE("block table files: one line per block, resumed by configuration, in CSV and JSON lines") {
    INFO("seed " << seed());
    SweepOptions sw = block_sweep();
    sw.tokens = {2, 4};
    sw.dims = {1};
    const TablePlan tp = plan_table({sw});
    std::vector<Row> rows;
    run_table(tp.rows, {}, [&](const Row& r, bool) { rows.push_back(r); }, nullptr);
    REQUIRE(rows.size() == 4);
    for (bool json : {false, true}) {
        const std::string path = json ? "test_table_blocks.jsonl" : "test_table_blocks.csv";
        std::remove(path.c_str());
        std::size_t lines = 0;
        {
            TableAppender out(path, json, sweep_signature(sw), false);
            for (const Row& r : rows) {
                out.append(r);
                lines += block_rows(r).size();
            }
        }
        const std::string text = read_text(path);
        CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) == lines + (json ? 1 : 2));
        {
            TableAppender again(path, json, sweep_signature(sw), true);
            REQUIRE(again.rows().size() == lines);
            const ResumeSet rs = resume_set(again.rows(), tp.rows);
            CHECK(rs.rows.size() == 4);
            CHECK(rs.duplicates == 0);
            std::vector<Row> resumed;
            run_table(tp.rows, rs.rows, [&](const Row& r, bool fresh) {
                CHECK(!fresh);
                resumed.push_back(r);
            }, nullptr);
            for (std::size_t k = 0; k < rows.size(); ++k) {
                const std::vector<Row> a = block_rows(rows[k]), b = block_rows(resumed[k]);
                REQUIRE(a.size() == b.size());
                for (std::size_t i = 0; i < a.size(); ++i)  // CSV cells come back as text: compare the text forms
                    for (const auto& [name, v] : a[i]) CHECK(v.str() == b[i].at(name).str());
            }
        }
        // A configuration with a block row missing (a kill between its lines cannot leave
        // one, but a hand-edited file can) is computed again.
        {
            std::string cut = text.substr(0, text.size() - 1);
            cut = cut.substr(0, cut.rfind('\n') + 1);
            std::ofstream(path, std::ios::trunc) << cut;
            TableAppender again(path, json, sweep_signature(sw), true);
            const ResumeSet rs = resume_set(again.rows(), tp.rows);
            CHECK(rs.rows.size() == 3);
        }
        std::remove(path.c_str());
    }
}

TEST_CASE("resume with a larger max side computes the rows its size limit stopped again") {
    INFO("seed " << seed());
    SweepOptions sw;
    sw.families = {Family::attention};
    sw.tokens = {2, 4};
    sw.dims = {2};
    sw.depths = {2};
    sw.generic.seed = seed();
    sw.generic.max_side = 16;
    sw.generic.method = GenericMethod::evaluation;  // the flattening has no side limit
    const TablePlan small = plan_table({sw});
    const std::string path = "test_table_blocks_side.csv";
    const std::vector<Row> rows = rows_written(sw, path);
    REQUIRE(rows.size() == 2);
    const long stopped = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return r.at("status").str() == "lower-bound"; });
    REQUIRE(stopped >= 1);
    const std::size_t k = rows[0].at("status").str() == "lower-bound" ? 0 : 1;
    SweepOptions larger = sw;
    larger.generic.max_side = 4096;
    const TablePlan big = plan_table({larger});
    {
        TableAppender again(path, false, sweep_signature(larger), true);  // another max side: accepted
        const ResumeSet rs = resume_set(again.rows(), big.rows);
        CHECK(rs.recompute == stopped);
        CHECK(static_cast<long>(rs.rows.size()) == 2 - stopped);
        // The same max side reuses every row.
        CHECK(resume_set(again.rows(), small.rows).recompute == 0);
        again.append(table_row(big.rows[k].spec, larger));
    }
    {
        TableAppender again(path, false, sweep_signature(larger), true);
        const ResumeSet rs = resume_set(again.rows(), big.rows);
        CHECK(rs.duplicates == 1);  // the new row replaced the stopped one
        CHECK(rs.rows.at(row_key(big.rows[k].spec, larger)).at("status").str() == "ok");
    }
    SweepOptions other = sw;
    other.generic.seed = seed() + 1;
    CHECK(throws_with<invalid_input>([&] { TableAppender t(path, false, sweep_signature(other), true); }, "different sweep"));
    std::remove(path.c_str());
}

TEST_CASE("resume of a block table at a larger max side: the stopped rows' block ranks become their hints, the rows as fresh ones") {
    INFO("seed " << seed());
    SweepOptions sw = block_sweep();
    sw.tokens = {3, 4};
    sw.dims = {2};
    sw.depths = {2};
    sw.generic.max_side = 16;
    const TablePlan small = plan_table({sw});
    const std::string path = "test_table_blocks_hints.csv";
    const std::vector<Row> rows = rows_written(sw, path);
    REQUIRE(rows.size() == 2);
    REQUIRE(std::all_of(rows.begin(), rows.end(), [](const Row& r) { return r.at("status").str() == "lower-bound"; }));
    SweepOptions larger = sw;
    larger.generic.max_side = 4096;
    larger.block_store = "test_table_blocks_hints.blocks";  // only for row_store's folder names below
    TablePlan big = plan_table({larger});
    ResumeSet rs;
    {
        TableAppender again(path, false, sweep_signature(larger), true);  // read back from the CSV file
        rs = resume_set(again.rows(), big.rows);
    }
    std::remove(path.c_str());
    CHECK(rs.recompute == 2);
    REQUIRE(rs.hints.size() == 2);
    for (const Row& r : rows) {
        // entry a is block a's rank in the stopped row; the blocks it does not list are -1
        const std::vector<long>& h = rs.hints.at(row_key(r));
        const std::vector<long> blocks = r.at("block_list").as_integer_list(), ranks = r.at("block_rank_list").as_integer_list();
        REQUIRE(!blocks.empty());
        CHECK(static_cast<long>(h.size()) == blocks.back() + 1);
        for (std::size_t a = 0; a < h.size(); ++a) {
            const auto at = std::find(blocks.begin(), blocks.end(), static_cast<long>(a));
            CHECK(h[a] == (at == blocks.end() ? -1 : ranks[static_cast<std::size_t>(at - blocks.begin())]));
        }
    }
    // the same max side recomputes nothing and hints nothing; a table without blocks has no hints
    CHECK(resume_set(rows, small.rows).hints.empty());
    SweepOptions plain = larger;
    plain.blocks = false;
    plain.generic.method = GenericMethod::evaluation;  // the flattening has no side limit
    std::vector<Row> plain_rows;
    SweepOptions plain_small = sw;
    plain_small.blocks = false;
    plain_small.generic.method = GenericMethod::evaluation;
    run_table(plan_table({plain_small}).rows, {}, [&](const Row& r, bool) { plain_rows.push_back(r); }, nullptr);
    const ResumeSet plain_rs = resume_set(plain_rows, plan_table({plain}).rows);
    CHECK(plain_rs.recompute == 2);
    CHECK(plain_rs.hints.empty());
    // the hints go into the plan's rows by key; a row store with hints is another folder
    const std::string store_before = row_store(big.rows[0]);
    CHECK(apply_resume_hints(big.rows, {}) == 0);
    CHECK(apply_resume_hints(big.rows, rs.hints) == 2);
    for (const PlannedRow& pr : big.rows) CHECK(pr.sweep.generic.block_hints == rs.hints.at(row_key(pr.spec, pr.sweep)));
    CHECK(row_store(big.rows[0]) != store_before);
    // the hinted rows equal fresh rows at the larger max side (the hints steer the sides only)
    for (PlannedRow& pr : big.rows) {
        pr.sweep.block_store.clear();
        SweepOptions fresh = pr.sweep;
        fresh.generic.block_hints.clear();
        const Row hinted = table_row(pr.spec, pr.sweep), plain_row = table_row(pr.spec, fresh);
        CHECK(hinted.at("status").str() == "ok");
        for (const char* c : {"rank", "status", "block_list", "block_rank_list"})  // the bound counts the minors ranked
            CHECK(hinted.at(c).str() == plain_row.at(c).str());
    }
}

TEST_CASE("block rows that cannot be are refused when folded or read as hints; a network without blocks gets no hints") {
    INFO("seed " << seed());
    SweepOptions sw = block_sweep();
    sw.tokens = {3};
    sw.dims = {2};
    sw.depths = {2};
    std::vector<Row> rows;
    run_table(plan_table({sw}).rows, {}, [&](const Row& r, bool) { rows.push_back(r); }, nullptr);
    REQUIRE(rows.size() == 1);
    const std::vector<Row> blocks = block_rows(rows[0]);
    REQUIRE(blocks.size() == 5);
    CHECK(row_key(fold_block_rows(blocks)) == row_key(rows[0]));
    std::vector<Row> twice = blocks;  // block 3 twice, block 1 gone
    twice[0].set("block", twice[1].at("block"));
    CHECK(throws_with<invalid_input>([&] { fold_block_rows(twice); }, "twice in the rows of one configuration"));
    std::vector<Row> off = blocks;  // a rank changed: the total is no longer the sum
    off[2].set("rank", off[2].at("rank").as_integer() - 1);
    CHECK(throws_with<invalid_input>([&] { fold_block_rows(off); }, "is not the sum"));
    std::vector<Row> lost = blocks;  // a row of status ok without its block
    lost[1].set("block", Value());
    CHECK(throws_with<invalid_input>([&] { fold_block_rows(lost); }, "without its block"));
    // the file's own block rows are hints for its network; a residual network has no blocks:
    // the file is read and checked, and no hint comes back
    const std::string path = "test_block_hints_rules.csv";
    std::remove(path.c_str());
    {
        TableAppender out(path, false, sweep_signature(sw), false);
        out.append(rows[0]);
    }
    const PlannedRow pr = plan_table({sw}).rows[0];
    const ValidPartition part = balanced_partition(3);
    CHECK(read_block_hints(path, pr.spec, part).size() == 10);
    NetworkSpec residual = pr.spec.get();
    residual.residual = true;
    CHECK(read_block_hints(path, residual, part).empty());
    std::remove(path.c_str());
}

TEST_CASE("block hints from a block table: the ranks of the network's own rows, by block, in CSV and JSON lines") {
    INFO("seed " << seed());
    SweepOptions sw = block_sweep();
    sw.tokens = {3, 4};
    sw.dims = {1, 2};
    sw.depths = {2};
    const TablePlan tp = plan_table({sw});
    std::vector<Row> rows;
    run_table(tp.rows, {}, [&](const Row& r, bool) { rows.push_back(r); }, nullptr);
    REQUIRE(rows.size() == 4);
    for (bool json : {false, true}) {
        const std::string path = json ? "test_block_hints.jsonl" : "test_block_hints.csv";
        std::remove(path.c_str());
        {
            TableAppender out(path, json, sweep_signature(sw), false);
            for (const Row& r : rows) out.append(r);
        }
        const std::string before = read_text(path);
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const ValidSpec& spec = tp.rows[k].spec;
            INFO(describe(spec));
            const ValidPartition part = balanced_partition(spec->tokens);
            const std::vector<long> hints = read_block_hints(path, spec, part);
            // Entry a: block a's rank; blocks without a row (zero by parity, or a side empty): -1.
            std::vector<long> want;
            for (const Row& b : block_rows(rows[k])) {
                const long a = cell(b, "block");
                if (a >= static_cast<long>(want.size())) want.resize(static_cast<std::size_t>(a) + 1, -1);
                want[static_cast<std::size_t>(a)] = cell(b, "rank");
            }
            CHECK(hints == want);
            // The ranks found again with those hints (a new draw: the same generic ranks).
            GenericOptions g = sw.generic;
            g.method = GenericMethod::evaluation;
            g.variant = EvaluationVariant::graded;
            g.block_hints = hints;
            const RankAnswer ans = generic_rank(spec, part, g);
            CHECK(ans.value == cell(rows[k], "rank"));
            // The hints landed on their blocks: every hinted block's rank is its hint.
            CHECK(ans.hinted_blocks > 0);
            CHECK(ans.hinted_equal == ans.hinted_blocks);
        }
        CHECK(read_text(path) == before);  // only read
        if (!json) {
            // A block row given again: as a lower bound below the ok rank it changes nothing
            // (table --resume appends the recomputed row after its bound); as an ok row with
            // another rank it is refused, as guess --blocks refuses it (a hunt: the larger won)
            const TableFile file = parse_table_text(before, false, path);
            const auto first = std::find_if(file.rows.begin(), file.rows.end(), [](const Row& r) { return r.at("rank").str() != "0"; });
            REQUIRE(first != file.rows.end());
            const ValidSpec& spec = tp.rows[0].spec;
            const ValidPartition part = balanced_partition(spec->tokens);
            const std::vector<long> want = read_block_hints(path, spec, part);
            const std::vector<std::string> names = first->names();
            Row again = *first;
            again.set("rank", Value(std::stol(first->at("rank").str()) - 1));
            again.set("at_cap", Value(false));  // one below the rank is below the cap
            for (const char* status : {"lower-bound", "ok"}) {
                again.set("status", Value(std::string(status)));
                std::ofstream(path, std::ios::trunc) << before << csv_line(again, names) << "\n";
                if (std::string(status) == "ok")
                    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("given twice with ranks") != std::string::npos);
                else
                    CHECK(read_block_hints(path, spec, part) == want);
            }
            std::ofstream(path, std::ios::trunc) << before;
        }
        // Another partition of the same network is another configuration: no row.
        const ValidSpec& spec = tp.rows[0].spec;
        const std::string msg = message_of([&] { read_block_hints(path, spec, parse_partition("1|2,3", spec->tokens)); });
        CHECK(msg.find("block hints '" + path + "': the block table has no block row of this configuration") == 0);
        std::remove(path.c_str());
    }
    CHECK(message_of([] { read_block_hints("no-such-block-table.csv", NetworkSpec{}, balanced_partition(4)); })
              .find("cannot open block hints 'no-such-block-table.csv'") == 0);
}

TEST_CASE("block hints from guess's predictions: the prediction whose key is the network's; bad ones refused") {
    const ValidSpec spec(attention_spec(4, 2, 2));
    const ValidPartition part = balanced_partition(4);
    SweepOptions s;
    s.partition = to_string(part);
    const std::string key = row_key(spec, s);
    const std::string path = "test_block_hints_law.json";
    auto write = [&](const std::string& text) { std::ofstream(path, std::ios::trunc) << text; };
    // Two predictions: another network's first (ignored), then this one's.
    write("{\n  \"law\": \"...\",\n  \"predictions\": [\n"
          "    {\"key\": \"attention;4;3;1;3;0;2;false;0;3;0;1;1,2|3,4;\", \"blocks\": [{\"block\": 1, \"predicted\": 99}]},\n"
          "    {\"key\": \"" + key + "\", \"blocks\": [{\"block\": 1, \"predicted\": 4}, {\"block\": 5, \"predicted\": 7}, {\"block\": 5, \"predicted\": 7}]}\n"
          "  ]\n}\n");
    CHECK(read_block_hints(path, spec, part) == std::vector<long>{-1, 4, -1, -1, -1, 7});
    // a block predicted twice with two values is no law's (a hunt found the larger taken);
    // a bad block entry is named as written; an empty file says so
    write("{\"predictions\": [{\"key\": \"" + key + "\", \"blocks\": [{\"block\": 5, \"predicted\": 7}, {\"block\": 5, \"predicted\": 6}]}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("block 5 predicted twice for " + key + ", 7 and 6") != std::string::npos);
    write("{\"predictions\": [{\"key\": \"" + key + "\", \"blocks\": [{\"block\": 2, \"predicted\": 2.5}]}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("\"predicted\" >= 0: {\"block\":2,\"predicted\":2.5}") != std::string::npos);
    write(" \n");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }) == "block hints '" + path + "': the file is empty");
    write("{\"predictions\": [{\"key\": \"other\", \"blocks\": []}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("have no prediction of this configuration") != std::string::npos);
    write("{\"predictions\": [{\"blocks\": []}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("a prediction without its \"key\" and \"blocks\"") != std::string::npos);
    write("{\"predictions\": [{\"key\": \"" + key + "\", \"blocks\": [{\"block\": 1, \"predicted\": -4}]}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("a block without an integer \"block\" and \"predicted\" >= 0") !=
          std::string::npos);
    write("{\"predictions\": [{\"key\": \"" + key + "\", \"blocks\": [{\"block\": \"1\", \"predicted\": 4}]}]}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("a block without an integer") != std::string::npos);
    write("{\"predictions\": 3}");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("no \"predictions\" list") != std::string::npos);
    // Cut short, on one line or several: the JSON parser's position and reason (a cut
    // on one line read as a JSON-lines table with its torn last line dropped: "no block row";
    // on several lines its first line read as a row: "line 1 ... at byte 2").
    write("{\"predictions\": [");
    CHECK(message_of([&] { read_block_hints(path, spec, part); }).find("block hints '" + path + "' is not valid JSON at byte 18: parse error at line 1, column 18") !=
          std::string::npos);
    const std::string whole = "{\n  \"law\": \"...\",\n  \"predictions\": [\n    {\"key\": \"" + key + "\", \"blocks\": [{\"block\": 1, \"predicted\": 4}]}\n  ]\n}\n";
    for (std::size_t cut = 2; cut + 3 < whole.size(); cut += 7) {
        write(whole.substr(0, cut));
        const std::string m = message_of([&] { read_block_hints(path, spec, part); });
        INFO("cut at " << cut << ": " << m);
        CHECK(m.find("block hints '" + path + "' is not valid JSON at byte " + std::to_string(cut + 1) + ": ") != std::string::npos);  // where it ends
    }
    std::remove(path.c_str());
}
