// seprank — integer and rational matrices in Matrix Market text files, so the same
// matrix can be ranked by seprank, numpy, SymPy or Singular (bench/) and checked by
// hand; and the integer matrix of the same rank as a rational one.
//
// Format (NIST Matrix Market, field `integer`, symmetry `general`):
//   %%MatrixMarket matrix coordinate integer general     (or: array integer general)
//   % comment lines
//   rows cols nnz            (array: rows cols)
//   i j value                (coordinate: 1-based, one entry per line, any order;
//                             array: one value per line, column-major)
// Values are integers of any size (decimal, optional sign). Field `rational` (seprank's
// own, beside the standard's integer/real/complex/pattern) has values `a` or `a/b`:
// decimal a with optional sign, decimal b > 0 without sign, e.g. `-3/4`; not reduced
// necessarily (`2/4` is 1/2). Reading rejects, with one error naming the file, line and
// offending text: another header or field (real, complex, pattern, symmetric …), a
// missing or malformed size line, indices out of range, a duplicate coordinate, a count
// that does not match, a malformed value, a zero denominator, or trailing junk.
// Zero entries are dropped. Cost: linear in the file size, plus sorting each row's
// coordinate entries (O(nnz·log nnz) at most). Sizes are checked before
// allocation: the text read, and the matrix its size line declares, against
// default_max_memory() (limits.hpp; resource_limit naming both sizes). Writing: no
// preconditions on the matrix; linear in nnz and its digits.
#pragma once

#include "seprank/integer.hpp"
#include "seprank/rank.hpp"

#include <string>
#include <utility>
#include <vector>

namespace seprank {

// Field integer only (a rational file is refused, naming read_matrix_market_rational).
// invalid_input naming the path when it cannot be opened or read (a directory, a missing
// file); the checks and cost above, plus reading the file.
SparseZMat read_matrix_market(const std::string& path);
// Coordinate format, rows in order; written atomically (a temporary file beside PATH,
// then renamed): nothing half-written on failure. The target is checked as
// check_matrix_market_target (invalid_input); a failed write is resource_limit. Cost as
// above, plus the write.
void write_matrix_market(const SparseZMat& a, const std::string& path);
// Throws invalid_input unless PATH could be written by write_matrix_market: a regular
// file or a new name (a directory, device, FIFO or symlink is refused). Checks a path
// before any work, or when the option naming it is ignored. Writes nothing. O(1): a few
// stat calls.
void check_matrix_market_target(const std::string& path);
// The same text, for tests and pipes: matrix_market_text writes what write_matrix_market
// writes (no precondition; linear in nnz and its digits); parse_matrix_market reads what
// read_matrix_market reads, its errors naming `source`, with the checks and cost above.
std::string matrix_market_text(const SparseZMat& a);
SparseZMat parse_matrix_market(const std::string& text, const std::string& source = "matrix");

// A sparse matrix over Q: row[i] holds (column, value) pairs, values non-zero, columns
// increasing and in 0..cols-1 (what the readers below produce; not checked elsewhere).
struct SparseQMat {
    long rows = 0, cols = 0;
    std::vector<std::vector<std::pair<long, Rational>>> row;
    // The stored entries, Σ row sizes. O(rows).
    std::size_t nnz() const;
};

// Field integer or rational: the matrix over Q (an integer file gives denominators 1).
// From a file or from text (errors naming `source`), as the integer readers: the same
// checks, the same cost, plus reducing each a/b.
SparseQMat read_matrix_market_rational(const std::string& path);
SparseQMat parse_matrix_market_rational(const std::string& text, const std::string& source = "matrix");

// clear_denominators(A) = D·A, the integer matrix whose row i is d_i times row i of A,
// d_i = lcm of the denominators in row i (1 for an empty row). D = diag(d_1..d_m) is
// invertible over Q, so D·A has the same row space as A, hence rank_Q(D·A) = rank_Q(A)
// (and the same kernel: A·x = 0 ⇔ D·A·x = 0). Entry (i, j) is d_i·A_ij, an integer since
// every denominator of row i divides d_i. Rank a rational matrix with
// rank_certified(clear_denominators(A)). Same sparsity pattern; cost linear in nnz (one
// lcm and one product per entry). The dense form is in matrix.hpp.
SparseZMat clear_denominators(const SparseQMat& a);

}  // namespace seprank
