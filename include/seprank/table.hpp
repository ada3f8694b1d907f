// seprank — rank tables: sweeps over network options, one generic-rank row each.
//
// A sweep is the Cartesian product of the listed values of every network option, for
// each listed family; invalid combinations (H not dividing dx, …) are left out and
// counted. With a parameter budget B, non-attention rows take depth ⌊B / params per
// layer⌋ instead of the depth list (the fixed-budget comparison of block degrees).
// Each row is a generic rank (generic.hpp) w.r.t. the balanced partition (or a given
// one), with the Levine et al. bounds for attention rows (bounds.hpp).
//
// Row columns (in order): family, tokens, dim, heads, block_degree, width, depth,
// residual, partition, degree, params, terms, rank, certified, label, method, rows,
// cols, trials, degenerate, failure_bound, log3_rank, theorem, log3_lower, log3_upper,
// outside, status, reason, seconds, peak_mib.
// `certified` is false for every generic row: a generic rank is a certified lower bound
// plus a probability bound, never an exact certificate. status is ok, lower-bound
// (evaluation still full rank at max_side) or skipped (with the reason: a size budget).
// seconds and peak_mib (process peak RSS after the row) are the only columns that vary
// between runs of the same sweep.
#pragma once

#include "seprank/columns.hpp"
#include "seprank/generic.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/record.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace seprank {

// One trial per row and an 8192 evaluation side (graded: sum of the block sides): the
// default table's size budget (attention N=4, dx=4, L=3 still stops there).
inline GenericOptions table_generic_defaults() {
    GenericOptions g;
    g.trials = 1;
    g.max_side = 8192;
    return g;
}

struct SweepOptions {
    std::vector<Family> families = {Family::attention};
    std::vector<long> tokens = {4}, dims = {2}, heads = {1}, depths = {1}, block_degrees = {3}, widths = {0};
    std::vector<bool> residual = {false};
    long budget = 0;             // > 0: non-attention depth = ⌊budget / params per layer⌋
    std::string partition;       // empty: balanced
    long max_variables = 64;     // size budget: rows with more input variables are skipped
    GenericOptions generic = table_generic_defaults();  // trials, seed, method, max_side (1024), threads
};

// The default table: attention N=2..4, dx=1..4, H=1..2, L=1..3, and hadamard blocks
// d=2..4 (N=2..4, dx=2, w=2) at the budget of attention dx=2, L=3 (48 parameters).
std::vector<SweepOptions> default_table();

struct SweepPlan {
    std::vector<NetworkSpec> configs;
    long invalid = 0;            // combinations left out (validation failed)
};
SweepPlan plan_sweep(const SweepOptions& s);

// A table row: the Record of table_columns() (columns.hpp) for one configuration.
using Row = Record;
Row table_row(const NetworkSpec& spec, const SweepOptions& s);
// The configuration part of a row (for resuming): the columns before `degree`.
std::string row_key(const Row& row);
std::string row_key(const NetworkSpec& spec, const SweepOptions& s);
// The table's column names, in order (each a column of the registry).
const std::vector<std::string>& table_columns();

// One CSV line (no newline) of the row's cells in table_columns() order (record.hpp's
// CSV quoting; parse_csv_line is its inverse), and the header line.
std::string csv_line(const Row& row);
std::string csv_header();

struct PlannedRow {
    NetworkSpec spec;
    SweepOptions sweep;
};

// Callbacks of a table run: emit(row, fresh) is called once per planned row, in plan
// order (fresh = computed now, not resumed); progress(index, spec) before computing.
using EmitRow = std::function<void(const Row&, bool fresh)>;
using Progress = std::function<void(std::size_t index, const NetworkSpec& spec)>;

// Serial engine: computes every planned row whose key is not in `done`.
void run_table(const std::vector<PlannedRow>& plan, const std::map<std::string, Row>& done, const EmitRow& emit,
               const Progress& progress);

// Table files: CSV (header + one line per row) or JSON Lines (one object per line).
// Rows already in a file, in order; a torn last line (no newline: the writer was killed
// mid-row) is cut off the file so that appending continues cleanly.
std::vector<Row> read_table_file(const std::string& path, bool json_lines);

// Appends each row with one write(2) of the whole line on an O_APPEND descriptor and
// fsync(2), so a killed sweep loses no finished row and leaves at most a torn line.
class TableAppender {
public:
    TableAppender(const std::string& path, bool json_lines);
    TableAppender(const TableAppender&) = delete;
    TableAppender& operator=(const TableAppender&) = delete;
    ~TableAppender();
    void append(const Row& row);

private:
    int fd_ = -1;
    bool json_;
    std::string path_;
};

}  // namespace seprank
