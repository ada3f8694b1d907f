// seprank — block tables: one row per configuration and degree block (docs/table_blocks.md).
//
// A homogeneous network's output f of degree D splits into blocks f_a, a = 0..D, by its
// degree a in the variables of side A of the partition. Its flattening is block diagonal:
// the rank is Σ_a rank(f_a), and block a is an cap_a × cap_b matrix, cap_a the number of
// A-monomials of degree a and cap_b that of B-monomials of degree D − a (both counted
// with the token parities the network keeps, evaluation.hpp's degree_block_sides). The
// graded evaluation ranks each block on its own (RankAnswer::block_ranks), so a table
// can carry the block profile that a total hides.
//
// A block table (`seprank table --blocks`, SweepOptions::blocks) computes each
// configuration as any table does (one generic_rank, forced to the graded evaluation) and
// writes one row per block whose two sides are both non-zero (blocks that vanish by
// parity, or whose side is empty, are left out). Block row columns, in order:
//   the configuration's key columns (family, [layers,] tokens … partition), degree,
//   block (the A-degree a), blocks (how many block rows the configuration has), rank
//   (of f_a), cap_a, cap_b, at_cap (rank = min(cap_a, cap_b): the block's generic rank
//   exactly), status (ok | lower-bound | skipped), total (the configuration's rank),
//   label and failure_bound (of the configuration's answer), method, reason, seconds,
//   peak_mib (of the configuration), [device].
// status is per block: a configuration whose evaluation stopped at its side limit or time
// budget (a lower-bound row of a plain table) marks every block below its cap
// lower-bound — those values are lower bounds, never plotted or fitted as values — and
// its blocks at their cap ok. A configuration that has no blocks (not homogeneous: a
// residual connection; or skipped for its size) gives one row with an empty block,
// status skipped and the reason.
//
// Inside a run a configuration's row (table_row) carries its blocks as lists (the columns
// block_list, block_rank_list, cap_a_list, cap_b_list); block_rows expands it and
// fold_block_rows folds a file's block rows back into it, so that --resume and MPI treat
// a configuration as one unit: a configuration is reused only when all its block rows
// are in the file.
#pragma once

#include "seprank/evaluation.hpp"
#include "seprank/record.hpp"

#include <string>
#include <vector>

namespace seprank {

using Row = Record;

// The columns of a block row, in order (each a column of the registry, columns.hpp).
// O(columns).
std::vector<std::string> table_block_columns(bool layers, bool device);

// Whether `row` is a configuration row of a block sweep (has the list columns), or a
// block row (has `block` and `blocks`). O(columns) each.
bool is_block_config_row(const Row& row);
bool is_block_row(const Row& row);

// The block rows of a configuration row of a block sweep (table_row with s.blocks), in
// increasing block order; one skipped row when it has no block. invalid_input when the
// row lacks the list columns or they differ in length. O(blocks · columns).
std::vector<Row> block_rows(const Row& config_row);

// The configuration row whose block_rows are `rows` (the block rows of one configuration,
// in any order, one per block; the configuration's columns are read off the first):
// invalid_input when rows is empty, a row is not a block row, or their configurations,
// totals or counts differ. fold_block_rows(block_rows(r)) has the same block_rows as r.
// O(rows · columns).
Row fold_block_rows(const std::vector<Row>& rows);

// Block hints (EvaluationOptions::block_hints, GenericOptions::block_hints) from a file:
// entry a is the expected rank of block a of the configuration that `spec` with
// partition `part` has (its row_key), −1 for a block the file does not give. The file is
// either
//   - a block table (CSV with its header, or JSON lines; `table --blocks` writes both,
//     data/ holds such tables): the ranks of that configuration's block rows, lower-bound
//     rows included (the block then grows from there), skipped rows giving nothing; or
//   - the JSON of `guess --blocks --predict ... --format json`: the blocks of the
//     prediction whose "key" is that configuration's (a conjectured law's values).
// A block given twice counts once, as guess --blocks folds it: a table's ok row over a
// lower bound (the larger of two bounds); two ok rows of one block with different ranks, or
// two values of one block in guess's predictions, are refused. A network without degree
// blocks (not homogeneous: a residual connection) gets an empty list, the file checked all
// the same (its hints would be ignored). The file is only read. Errors (invalid_input
// naming the path): an empty file, as parse_table_text (which checks every block row's
// cells, docs/table_blocks.md) or parse_json_text (guess's JSON cut short is said as the
// JSON parser says it, its byte, line and column: a text is read as JSON lines only when
// its first line is a whole JSON value), a plain table (no column 'block'), guess's JSON
// without predictions, a prediction without its key and blocks or a block entry that is
// not two integers >= 0 (named as written), a block above the network's degree d^L
// (refused before anything is sized by it), and a file with nothing for this
// configuration. (A hint only orders the work: one above its block's rank, or its cap, is
// ranked past as a wrong hint is.) Cost: linear in the file, O(columns²) per table row.
std::vector<long> read_block_hints(const std::string& path, const ValidSpec& spec, const ValidPartition& part);
// The same from the file's text; `name` stands for the path in the messages (Python's
// prediction dict: "block_hints"). Cost as read_block_hints.
std::vector<long> parse_block_hints(std::string text, const std::string& name, const ValidSpec& spec, const ValidPartition& part);

namespace detail {
// table_row's part: sets the four list columns of a configuration row from the graded
// evaluation's block ranks (indexed by a = 0..D; missing entries read 0) and the block
// sides, keeping the blocks whose two sides are non-zero. Empty sides: empty lists (a
// configuration without blocks). O(D).
void set_block_lists(Row& r, const std::vector<long>& block_ranks, const DegreeBlockSides& sides);
}  // namespace detail

}  // namespace seprank
