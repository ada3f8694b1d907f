// seprank — rank tables: sweeps over network options, one generic-rank row each.
//
// A sweep is the Cartesian product of the listed values of every network option, for
// each listed family; invalid combinations (H not dividing dx, …) are left out and
// counted. With a parameter budget B, non-attention rows take depth ⌊B / params per
// layer⌋ instead of the depth list (the fixed-budget comparison of block degrees).
// Each row is a generic rank (generic.hpp) w.r.t. the balanced partition (or a given
// one), with the Levine et al. bounds for attention rows (bounds.hpp).
//
// Row columns (in order): family, [layers,] tokens, dim, heads, block_degree, width, depth,
// residual, embed_rank, head_dim, attention_rank, position, partition, degree, params, terms, rank, certified, label, method, rows,
// cols, trials, degenerate, failure_bound, log3_rank, theorem, log3_lower, log3_upper,
// outside, s_up, s_low, ratio_up, ratio_low, t73_flag (Theorem 7.3, embedding.hpp),
// status, reason, seconds, peak_mib; then the ε columns (SweepOptions::eps) and the
// functional dimension (SweepOptions::dimension) when asked for. `layers` (a stack's
// SPEC) is there only in sweeps with a SPEC list (SweepOptions::layers), so that the
// tables of other sweeps keep their columns.
// `certified` is false for every generic row: a generic rank is a certified lower bound
// plus a probability bound, never an exact certificate. status is ok, lower-bound
// (evaluation still full rank at max_side) or skipped (with the reason: a size budget).
// seconds and peak_mib (peak RSS while the row ran: the process peak when the row raised
// it, else sampled every 5 ms; docs/table.md) are the only columns that vary
// between runs of the same sweep.
#pragma once

#include "seprank/columns.hpp"
#include "seprank/generic.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/record.hpp"
#include "seprank/spectrum.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace seprank {

// One trial per row and an 8192 evaluation side (graded: sum of the block sides): the
// size budget of every sweep, the same answer on every machine. The default table
// (default_table) also gives each row kTableRowSeconds of evaluation time
// (GenericOptions::max_seconds): it ends attention N=4, dx=4, L=3. A row stopped by either
// budget is a lower bound (status lower-bound, the reason names the budget; docs/table.md,
// "Budgets"). table_generic_defaults: those GenericOptions (the rest at their defaults). O(1).
constexpr double kTableRowSeconds = 10;
// The default table's primes: 50 bits, where the vector kernels run (forward_batch.hpp:
// AVX2/FMA up to 50 bits, AVX-512 IFMA up to 52), about 3x faster than 62-bit primes on
// its slowest rows, at a failure bound about 2^12 larger (each row still prints its own,
// e.g. 7.7e-9 for attention N=3 dx=4 H=2 L=3). Other sweeps keep GenericOptions' 62.
constexpr int kDefaultTablePrimeBits = 50;
inline GenericOptions table_generic_defaults() {
    GenericOptions g;
    g.trials = 1;
    g.max_side = 8192;
    return g;
}

struct SweepOptions {
    // block_degrees {3}, as a network's default; the CLI's `table` and Python's table() sweep
    // {2} where none is given (docs/usage.md §1.7): set it to compare with their rows.
    std::vector<Family> families = {Family::attention};
    std::vector<long> tokens = {4}, dims = {2}, heads = {1}, depths = {1}, block_degrees = {3}, widths = {0};
    std::vector<bool> residual = {false};
    std::vector<long> embed_ranks = {0};      // r; 0: no embedding
    std::vector<long> head_dims = {0};        // da (attention); 0: dx / H
    std::vector<long> attention_ranks = {0};  // k (attention); 0: no cap
    std::vector<long> positions = {1};        // output position i (fc: always 1)
    // SPECs (`--layers`, network.hpp's parse_layers syntax) of the families described by
    // a list of layers (family stack): each SPEC is the list that the depth L repeats
    // (L copies of it). Parsed once by plan_sweep. Non-empty adds the `layers` column
    // to every row (table_columns(eps, dimension, true)), empty for rows of other families.
    std::vector<std::string> layers;
    long budget = 0;             // > 0: non-attention depth = ⌊budget / params per layer⌋
    std::string partition;       // empty: balanced
    long max_variables = 64;     // size budget: rows with more input variables are skipped
    GenericOptions generic = table_generic_defaults();  // trials, seed, method, max_side (1024), threads
    // ε-ranks (docs/table.md): non-empty adds the columns of table_eps_columns() to every
    // row: the certified ε-separation ranks (relative ε) under `measure` of the network
    // with the integer weights random_network(spec, generic.seed), via spectrum().
    std::vector<double> eps;
    Measure measure = Measure::uniform;
    long eps_max_side = 4096;    // spectrum's max_side: larger flattenings get an empty cell and eps_reason
    // Functional dimension (docs/table.md): true adds the columns of table_dimension_columns()
    // to every row, skipped rows included: function_dimension(spec, o) with the default
    // DimensionOptions (scalar output, 2 trials, reverse variant) except o.seed =
    // generic.seed and o.threads = generic.threads (the value does not depend on threads).
    bool dimension = false;
    // The image's degree and gauge fibre (docs/variety.md): true adds the columns of
    // table_variety_columns() to every row: network_variety(spec, o) with the default
    // VarietyOptions except o.seed = generic.seed and o.threads = generic.threads. A row over
    // its limits (resource_limit) or without weights gets null and the reason.
    bool variety = false;
    // A folder (created when missing) under which each row keeps the block store of its
    // graded evaluation (GenericOptions::store) while it runs: row_store(row). A killed
    // table then resumes a row from its finished units, and MPI ranks (table_mpi) can
    // work on one row together. run_table removes a row's store once the row is
    // emitted. Empty (default): rows are computed in memory. Not part of the signature:
    // it changes no value.
    std::string block_store;
    // A block table (table_blocks.hpp): each row is computed by the graded evaluation
    // (generic.method evaluation, variant graded; a sweep asking for flattening or plain is
    // invalid_input in plan_sweep) and carries its degree blocks, which the writers and
    // block_rows turn into one row per block. Part of the signature (`blocks=1`).
    bool blocks = false;
};

// The default table: attention N=2..4, dx=1..4, H=1..2, L=1..3, and hadamard blocks
// d=2..4 (N=2..4, dx=2, w=2) at the budget of attention dx=2, L=3 (48 parameters);
// kTableRowSeconds of evaluation per row and primes of kDefaultTablePrimeBits bits. O(1)
// (a fixed list).
std::vector<SweepOptions> default_table();

// The Theorem 7.3 sweep behind data/embedding_rank.csv and its two plots (docs/embedding.md):
// attention with embedding ranks r = none, 1..dx+1 over depth (dx = 3, N = 2, 3; L = 1..3,
// and L = 4 for r = 1, 2) and over width (dx = 1..6 at L = 2 with N = 2, 3; dx = 1..3 at
// L = 3), and more heads (H = 3 at dx = 3; H = 2 at dx = 4, L ≤ 2). About 30 s on 2 cores
// to run; building the list O(1).
std::vector<SweepOptions> theorem73_table();
// A named preset: "default" (default_table) or "theorem7.3"; invalid_input naming others.
// table_preset_names: those names, in that order. O(1) each.
std::vector<SweepOptions> table_preset(const std::string& name);
const std::vector<std::string>& table_preset_names();

// `--layers` of `seprank table`: SPECs separated by ';' (a SPEC itself uses ',', ':' and
// '=', never ';'), e.g. "attention;attention,mlp:power=3". invalid_input naming the text
// on an empty entry (an empty text, a leading, trailing or doubled ';'). The SPECs
// themselves are parsed by plan_sweep. Linear in the text.
std::vector<std::string> split_layers_list(const std::string& text);

struct SweepPlan {
    std::vector<ValidSpec> configs;  // validated here, once: rows pass them on unchecked
    long invalid = 0;            // combinations left out (validation failed)
    std::string first_invalid;   // the first one's reason ("" when none)
    long duplicates = 0;         // configurations left out as the same row as an earlier one
                                 // (the same row_key: 'attention,attention' at depth 1 and
                                 // 'attention' at depth 2, a value listed twice)
    long too_large = 0;          // configurations left out as too large to build (validate's
    std::string first_too_large; // resource_limit: the weights over default_max_memory()), the first's reason
};
// Every valid configuration of the sweep, in loop order (for a family with layers, the
// SPECs outermost). Checked first (invalid_input): check_options(s.generic) (trials
// 1..1000, a store that is a directory or absent, ...), a block_store without a control
// character in its name, budget >= 0, each listed value in
// the range some configuration can take (tokens 2..2^20, dims and heads 1..2^20, depths
// 0..64, block degrees 1..64, embed ranks 0..64, widths, head dims and attention ranks
// >= 0, positions >= 1: the message names the value), every SPEC of s.layers (parse_layers; the message names the SPEC) and, when a family
// of the sweep is described by layers, a non-empty s.layers. A configuration that fails
// validate(spec), or whose token count s.partition does not fit, is counted in `invalid`,
// not an error; but a partition that fits no token count of the sweep, a SPEC for which every
// configuration fails (mlp:power=0, say) is invalid_input naming it with the first
// failure, and so is a family for which every configuration fails (power, whose widths a
// sweep does not give; attention where no H divides a dx). With a budget, a stack takes ⌊budget / parameters of one copy of its SPEC⌋
// copies. A configuration whose row_key equals an earlier one's is planned once (counted
// in `duplicates`). A configuration too large to build (validate's resource_limit: its
// weights over default_max_memory()) is left out too, counted in `too_large` with the first
// one's reason, so the rest of the sweep still runs. Cost: per configuration
// (the product of the list sizes a family reads, times its SPECs) one validate, O(depth),
// and one row_key, O(log) set look-up; nothing is computed.
SweepPlan plan_sweep(const SweepOptions& s);

// A table row: the Record of table_columns() (columns.hpp) for one configuration.
// Preconditions: the spec valid (checked by the conversion to ValidSpec when given a bare
// NetworkSpec; not again for plan_sweep's configs); s.generic and the partition checked
// as generic_rank checks them (invalid_input also when s.partition does not fit the spec).
// A rank that a limit refuses (generic_rank's resource_limit: the flattening's expansion
// over default_max_memory(), say) makes the row `skipped`, its reason kRankRefused ("rank: ")
// and the refusal, its other columns computed as usual; nothing is thrown for it.
// Cost: a skipped row (over max_variables) O(columns²) record work; otherwise one
// generic_rank of the spec (generic.hpp), plus spectrum() of its network when s.eps is
// non-empty and function_dimension when s.dimension (a skipped row computes its dimension
// too).
using Row = Record;
Row table_row(const ValidSpec& spec, const SweepOptions& s);
// The start of the reason of a row whose rank a limit refused (table_row), which
// resume_set and the callers' notes read back.
inline constexpr char kRankRefused[] = "rank: ";
// The configuration part of a row (for resuming): the columns before `degree` (`layers`
// among them when the row has it). invalid_input naming a configuration column the row
// lacks. O(columns²): each cell found by linear search (record.hpp). The second form: the
// key table_row(spec, s) will have (invalid_input when s.partition does not fit the spec),
// at the cost of making those cells, O(N + columns²). The third: the key of spec at the
// partition part in a table with a `layers` column or without (guess --blocks names a
// predicted network so, for generic --hint-blocks), at the same cost.
std::string row_key(const Row& row);
std::string row_key(const ValidSpec& spec, const SweepOptions& s);
std::string row_key(const ValidSpec& spec, const ValidPartition& part, bool layers_column);
// The table's column names, in order (each a column of the registry). O(1).
const std::vector<std::string>& table_columns();
// The ε columns, appended after table_columns() only in sweeps with --eps:
//   eps            the ε list, space-separated (%g)
//   eps_ranks      per ε, the certified ε-rank, or "low..high" when undecided (empty: none)
//   eps_certified  per ε, true | false
//   eps_reason     why the cells are empty (skipped row, flattening too large, ...), or
//                  beside them: the seed's network is a degenerate draw, its rank below the row's
// O(1).
const std::vector<std::string>& table_eps_columns();
// The dimension columns, appended after those (and after the ε columns) only in sweeps
// with SweepOptions::dimension (each a column of the registry):
//   dimension     function_dimension's value: the functional dimension, scalar output
//   dim_expected  expected_dimension's count (parameters minus the obvious symmetries)
//   dim_defect    dimension < dim_expected
// A row whose dimension could not be computed (resource_limit) has them null and the
// message in `reason`. O(1).
const std::vector<std::string>& table_dimension_columns();
// The variety columns, after the dimension columns, only in sweeps with
// SweepOptions::variety: variety_degree (the image's degree), variety_degree_at_least (its
// proven lower bound) and gauge_fibre (weight settings per function on the gauge slice). O(1).
const std::vector<std::string>& table_variety_columns();
// table_columns(), plus table_eps_columns() when `eps` (a sweep with ε) / the row has them,
// plus table_dimension_columns() when `dimension`, plus `layers` (right after `family`)
// when `layers` (a sweep with SPECs), plus `device` (last: cpu, or cuda: <GPU name>) when
// `device` (a sweep run with GenericOptions::device other than cpu; device.hpp). row_columns:
// the list with the groups `row` has (the cells eps_ranks, dimension, layers, device).
// O(columns) each (row_columns: O(columns) look-ups of O(size()) each).
std::vector<std::string> table_columns(bool eps);
std::vector<std::string> table_columns(bool eps, bool dimension);
std::vector<std::string> table_columns(bool eps, bool dimension, bool layers);
std::vector<std::string> table_columns(bool eps, bool dimension, bool layers, bool device);
// ... plus table_variety_columns() when `variety` (after the dimension columns).
std::vector<std::string> table_columns(bool eps, bool dimension, bool layers, bool device, bool variety);
// row_columns of a block row (table_blocks.hpp's is_block_row): table_block_columns.
std::vector<std::string> row_columns(const Row& row);
// Every column a table row can have, in CSV order (table_columns(true, true, true, true, true)),
// then the columns a block table adds (block, blocks, cap_a, cap_b, at_cap, total;
// table_blocks.hpp), each with its meaning from the registry (columns.hpp): what `seprank
// table --columns` prints. O(columns²).
std::vector<Column> table_column_meanings();

// One CSV line (no newline) of the row's cells in table_columns() order (record.hpp's
// CSV quoting; parse_csv_line is its inverse), and the header line. No precondition (a
// missing cell is empty). csv_line O(columns²) look-ups plus the text; csv_header O(columns).
std::string csv_line(const Row& row);
std::string csv_header();
std::string csv_header(bool eps);
std::string csv_header(bool eps, bool dimension);
std::string csv_header(bool eps, bool dimension, bool layers);

struct PlannedRow {
    ValidSpec spec;  // a bare NetworkSpec is validated when the row is built
    // The options the row is computed with: plan_table gives its sweep's, less the value
    // lists (tokens … positions, families, residual: empty) and with at most one of its
    // `layers` SPECs (a row reads only whether there are any: the column).
    SweepOptions sweep;
};

// The rows of a table of several sweeps (a preset has several; the CLI and Python give
// one), in order: plan_sweep of each (its checks: invalid_input naming the value), every
// configuration paired with its sweep, the counts summed (duplicates within a sweep; two
// sweeps may plan one row twice). When no sweep has a configuration to run:
// resource_limit with the first too-large one's reason when some were too large to build,
// else invalid_input naming how many combinations were left out as invalid. Cost:
// plan_sweep of each sweep, and one copy of a sweep's options per row.
struct TablePlan {
    std::vector<PlannedRow> rows;
    long invalid = 0;     // combinations left out, over every sweep
    std::string first_invalid;  // the first one's reason ("" when none)
    long duplicates = 0;  // configurations planned once within their sweep
    long too_large = 0;   // configurations left out as too large to build, over every sweep
    std::string first_too_large;  // the first one's reason ("" when none)
};
TablePlan plan_table(const std::vector<SweepOptions>& sweeps);

// A fingerprint of a plan: FNV-1a (64 bits) of its row keys, each followed by a newline;
// plans with the same rows in the same order have the same one (MPI ranks compare theirs
// before they deal rows by index). No precondition. Cost: one row_key per row.
std::uint64_t plan_fingerprint(const std::vector<PlannedRow>& plan);

// Callbacks of a table run: emit(row, fresh) is called once per planned row, in plan
// order (fresh = computed now, not resumed); progress(index, spec) before computing.
using EmitRow = std::function<void(const Row&, bool fresh)>;
using Progress = std::function<void(std::size_t index, const NetworkSpec& spec)>;

// The block store folder of a planned row: block_store/<16 hex digits of its key, sweep
// signature and block hints (apply_resume_hints: a store is never shared by runs with
// other hints)>, or "" when the sweep has no block_store. Cost: row_key and
// sweep_signature; touches no file.
std::string row_store(const PlannedRow& row);
// Removes row_store(row) and everything in it (nothing when ""); false when something
// could not be removed. Never throws. Cost: one unlink per file of the store.
bool remove_row_store(const PlannedRow& row) noexcept;
// Removes a table's block store folder (SweepOptions::block_store) with every row store in
// it: also those named with other block hints or left by a killed run, which the rows of
// this run do not name. Only once every row of the table is out (the table file's lock
// held). false when something could not be removed. Never throws. Cost: one unlink per file.
bool remove_table_block_store(const std::string& folder) noexcept;

// The rows of a table file that a run of `plan` may reuse, by row_key (the `done` of
// run_table). A key that several rows of the file share keeps its last row and counts in
// `duplicates`; `outside` counts the keys no planned row has (they stay in the file and
// are not shown). A lower-bound row that stopped at the size limit, where the plan's max
// side is larger, is left out to be computed again (`recompute`); in a block table its
// block ranks become that row's block hints (`hints`, by row_key: entry a the rank of
// degree block a, -1 for a block it does not list), which apply_resume_hints puts into the
// plan. A row whose rank (status skipped, its reason "rank: … about E estimated, over the
// limit of L (--max-memory)"), or whose dimension or variety cells, which its sweep asks
// for, are empty because the process's time or memory limit refused them (its reason:
// "dimension: … about E estimated, over the limit of L (--max-time)") is left out to be
// computed again too (`recompute_columns`) when the current limit (default_max_seconds(),
// default_max_memory()) admits E; other empty cells (no parameters, a fixed limit, trials that disagree) would
// come out the same and are kept. A row whose degree is not its planned network's, or a block table's configuration
// whose total is not the sum of its blocks' ranks, is refused (invalid_input naming
// `source`, the file, and the configuration). Cost: O((file rows + plan) · log) key
// comparisons, one output_degree per planned row.
struct ResumeSet {
    std::map<std::string, Row> rows;
    long duplicates = 0;
    long outside = 0;
    long recompute = 0;  // lower-bound rows left out of `rows` to compute again at a larger max side
    long recompute_columns = 0;  // rows left out of `rows` whose rank, dimension or variety cells a limit, now larger, left empty
    std::map<std::string, std::vector<long>> hints;  // of those, the block table's: their block ranks
};
ResumeSet resume_set(const std::vector<Row>& file_rows, const std::vector<PlannedRow>& plan, const std::string& source = "the table file");

// Sets generic.block_hints of every planned row that `hints` (ResumeSet::hints) has, by
// row_key, so that a recomputed lower-bound row ranks each degree block first just above
// the rank it had (docs/evaluation.md, "Block hints"; the answers are certified as without).
// Returns how many rows got hints. Cost: one row_key per planned row.
long apply_resume_hints(std::vector<PlannedRow>& plan, const std::map<std::string, std::vector<long>>& hints);

// Options of a table run that none of its rows used, and why; `names` as the library
// spells them (snake case: "max_side", "block_degree"). The CLI prints a note for each
// name given on its command line ("--max-side 4096 is ignored: REASON"), Python a warning
// for each keyword it was given.
struct UnusedOptions {
    std::vector<std::string> names;
    std::string reason;
};
// The options a run of `sweeps` that produced `rows` did not use: the evaluation's
// (max_side, variant, row_seconds) when no row used the evaluation; measure without ε
// columns; the options of heads, widths, block degrees, budgets, positions and layers
// when no family of the sweeps has them; depth when every sweep's budget sets every row's
// depth. Cost: one pass over rows and the sweeps' families.
std::vector<UnusedOptions> unused_table_options(const std::vector<SweepOptions>& sweeps, const std::vector<Row>& rows);

// Serial engine: computes every planned row whose key is not in `done`; with a block
// store, removes each row's store after emitting the row. Preconditions: plan from
// plan_sweep (its rows are not checked again); emit and progress callable (progress may
// be empty). Cost: one table_row per row not done (a generic_rank each, with the ε and
// dimension columns when the sweep has them), in order; polls cancel.hpp between rows.
void run_table(const std::vector<PlannedRow>& plan, const std::map<std::string, Row>& done, const EmitRow& emit,
               const Progress& progress);

// Table files (table --out): CSV or JSON Lines, one complete line per row.
//   CSV:        "# seprank table sweep: <signature>", the header line, one line per row.
//   JSON Lines: {"seprank_table_sweep": "<signature>"}, then one object per row.
// The signature (sweep_signature) begins with `results=N`, the version of the rows'
// numbers (raised when the same options give other values or bounds), and holds every
// option that changes a row's values but is not in the row's key: trials, seed, method, max_side, variant, partition,
// max_variables and the number of columns (and the ε options, `dimension=1` and
// `layers=1`, when the sweep has them). The SPECs themselves are in each row's key (its
// `layers` column), as the other swept values are: a resumed sweep may add SPECs. A file from another sweep is refused
// (invalid_input), so a resumed table never mixes rows of different sweeps or of
// different versions (the message says which). Files
// without a sweep line (older versions) are read by read_table_file but not resumed
// by TableAppender with a signature. No precondition. O(|s.eps|).
std::string sweep_signature(const SweepOptions& s);

struct TableFile {
    std::string sweep;               // the signature, "" when the file has no sweep line
    std::vector<Row> rows;           // complete rows, in order
    std::size_t complete_bytes = 0;  // length of the text up to the last newline
    bool header = false;             // a CSV header line was read (JSON lines have none)
};
// Parses a table file's text. Every complete line must be a well-formed row (the key
// columns integers, rank an integer or empty, status ok|lower-bound|skipped, a known
// family): otherwise invalid_input naming `source` and the line number. A torn last
// line (no newline: the writer was killed mid-row) is ignored. Cost: linear in the text,
// plus O(columns²) look-ups per row for its checks.
TableFile parse_table_text(const std::string& text, bool json_lines, const std::string& source);

// Rows already in a file, in order ({} when it does not exist); a torn last line is cut
// off the file so that appending continues cleanly. Errors as parse_table_text, and
// invalid_input naming the path when it cannot be read. Linear in the file size.
std::vector<Row> read_table_file(const std::string& path, bool json_lines);

// The writer of a table file. It opens PATH (a regular file or a new one; never a
// symlink, FIFO or device), takes an exclusive flock(2) for its lifetime (a second
// writer of the same file gets invalid_input at once), reads the rows already there
// (rows()) and checks them against `sweep` (when not empty); without `resume` a
// non-empty file is refused. Each append is one write(2) of whole lines on an O_APPEND
// descriptor followed by fsync(2), so a killed sweep loses no finished row and leaves at
// most a torn last line, which the next reader cuts off. The sweep line and the CSV
// header go out with the first row; a file this writer created and never wrote a row to
// is removed when it is destroyed.
class TableAppender {
public:
    // invalid_input: PATH not a regular file or new name, locked by another writer, a
    // non-empty file without `resume`, rows of another sweep or results version, or as
    // parse_table_text; resource_limit when a torn last line cannot be cut. Cost: reading
    // and parsing the file (parse_table_text).
    TableAppender(const std::string& path, bool json_lines, const std::string& sweep, bool resume);
    // No signature, resume allowed (the behaviour of earlier versions). Errors and cost as
    // above.
    TableAppender(const std::string& path, bool json_lines);
    TableAppender(const TableAppender&) = delete;
    TableAppender& operator=(const TableAppender&) = delete;
    // Releases the lock (closes the file); removes a file it created and left empty. O(1).
    ~TableAppender();
    // Writes the row (JSON or CSV by the row's columns; the sweep line and header before
    // the first row), then fsync(2). resource_limit when the write or the sync fails (a
    // full disk): the file is first cut back (ftruncate) to its length before the row, so
    // it still ends with its last whole row (and the next append writes the header again
    // if this one carried it). Cost: the row's text, O(columns²) look-ups, and one write
    // and sync.
    void append(const Row& row);
    // The rows the file held when opened (not those appended since). O(1).
    const std::vector<Row>& rows() const noexcept { return rows_; }

private:
    int fd_ = -1;
    bool json_;
    std::string path_, sweep_;
    bool created_ = false, needs_header_ = true;
    std::vector<Row> rows_;
};

}  // namespace seprank
