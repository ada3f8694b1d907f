// seprank — plots of rank tables through gnuplot (Debian gnuplot-nox).
//
// plot_table reads a table CSV (seprank table --format csv / --out), keeps the rows
// matching every `where` filter (column=value, matched as guess.hpp's row_matches: integers
// as integers, a stack's layers by their canonical SPEC), groups them by the series column,
// and draws y against x per series (sorted by x; non-numeric y cells are skipped).
// With bounds = true it adds the Levine et al. log3 bounds (columns log3_lower and
// log3_upper) per series as dashed curves (y must be log3_rank, their scale; invalid_input
// otherwise); logy needs a positive y value among the rows drawn; with y2, a second column per series on the
// right-hand axis. The gnuplot script gets the data inline, so
// a figure depends on nothing but the CSV. Output: .svg (svg terminal) or .png (png
// terminal), written to a temporary file and renamed once whole: nothing half-written.
#pragma once

#include <string>
#include <vector>

namespace seprank {

struct PlotOptions {
    std::string x = "depth";
    std::string y = "log3_rank";
    std::string series = "dim";
    std::vector<std::string> where;  // "column=value"
    bool bounds = false;
    bool logy = false;               // logarithmic y axis (e.g. singular values)
    // A second column drawn per series against the right-hand y axis (dashed, the same
    // colour as the series' y curve), e.g. log3_rank beside dimension. Empty: none.
    std::string y2;
    std::string title;
    std::string gnuplot = "gnuplot";
    // A block profile of a block table (seprank table --blocks, table_blocks.hpp): per
    // configuration (the key columns that differ among the rows kept name it), the block
    // ranks against the block (solid), and the block's cap min(cap_a, cap_b) (dashed). A
    // block whose status is not ok (a lower bound: the evaluation stopped before it
    // converged) is never drawn as a value: it is left off the curve and marked by an open
    // triangle at its lower bound. x, y, series, bounds and y2 do not apply (bounds and
    // y2 are invalid_input; the CLI refuses the others beside it).
    bool blocks = false;
};

// The gnuplot script (for inspection and tests); throws invalid_input naming a bad
// column, filter, file, output extension (.svg/.png), malformed line or an empty
// selection. Cost: one pass over the CSV; the script holds the selected rows.
std::string plot_script(const std::string& csv_path, const std::string& output, const PlotOptions& opt);
// Runs gnuplot on plot_script's script and renames the figure into `output`. The figure,
// the script and gnuplot's log are temporaries beside `output` with unique names,
// registered while they exist (and gnuplot while it runs), so install_interrupt_cleanup
// (cancel.hpp) removes them (and ends gnuplot) on an interrupt; any failure removes them.
// Throws what plot_script throws; invalid_input when the output cannot be written or
// moved; resource_limit when gnuplot is missing, fails or is ended by a signal, when the
// script cannot be written for want of space, and when the figure gnuplot wrote is not
// whole (an SVG not ending in </svg>, a PNG without its IEND chunk: gnuplot exits 0 after
// a failed write) or cannot be flushed to disk. Cost: plot_script plus one gnuplot run.
void plot_table(const std::string& csv_path, const std::string& output, const PlotOptions& opt);

}  // namespace seprank
