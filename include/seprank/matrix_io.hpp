// seprank — integer matrices in Matrix Market text files, so the same matrix can be
// ranked by seprank, numpy, SymPy or Singular (bench/) and checked by hand.
//
// Format (NIST Matrix Market, field `integer`, symmetry `general`):
//   %%MatrixMarket matrix coordinate integer general     (or: array integer general)
//   % comment lines
//   rows cols nnz            (array: rows cols)
//   i j value                (coordinate: 1-based, one entry per line, any order;
//                             array: one value per line, column-major)
// Values are integers of any size (decimal, optional sign). Reading rejects, with one
// error naming the file, line and offending text: another header or field (real,
// complex, pattern, symmetric …), a missing or malformed size line, indices out of
// range, a duplicate coordinate, a count that does not match, or trailing junk.
// Zero entries are dropped. Cost: linear in the file size.
#pragma once

#include "seprank/rank.hpp"

#include <string>

namespace seprank {

SparseZMat read_matrix_market(const std::string& path);
// Coordinate format, rows in order; written atomically (PATH.tmp, then renamed).
void write_matrix_market(const SparseZMat& a, const std::string& path);
// The same text, for tests and pipes.
std::string matrix_market_text(const SparseZMat& a);
SparseZMat parse_matrix_market(const std::string& text, const std::string& source = "matrix");

}  // namespace seprank
