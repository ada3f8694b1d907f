// seprank — coefficient flattening C_(A,B)(f) (docs/theory.md §2).
//
// Rows: the distinct monomials in the A-variables occurring in f; columns: the
// distinct monomials in the B-variables; entry: the coefficient of row·col in f.
// For a polynomial, sep_(A,B)(f) = rank_Q C_(A,B)(f) exactly (a decomposition
// f = Σ_r g_r(x_A) h_r(x_B) is a factorisation C = G Hᵀ of the coefficient matrix, and
// conversely). Built sparse: one entry per term of f; the rational content of f is
// dropped (a non-zero scalar does not change the rank), so entries are the integer
// coefficients of f's primitive part. Rows and columns are numbered in order of first
// appearance in f's term order. Cost O(terms · nvars) with hashing.
#pragma once

#include "seprank/partition.hpp"
#include "seprank/poly.hpp"
#include "seprank/rank.hpp"

#include <vector>

namespace seprank {

// C_(A,B)(f) for sides given per variable: side[v] = 0 puts variable v on side A, any
// other value on side B. Checked: side.size() == nvars (invalid_input); an exponent
// beyond 64 bits is resource_limit. Cost O(terms · nvars) with hashing, plus sorting
// each row; memory one entry per term.
SparseZMat flatten(const QPoly& f, const std::vector<int>& side);

// The same flattening over Z/p: residues of f's coefficients (f from expand_mod), at
// the same cost; checked as above.
SparseNmodMat flatten(const NmodPoly& f, const std::vector<int>& side);

// Variable sides from token positions: variable v with token(v) = j goes to side
// token_side[j-1]. Every variable must carry a token index j in 1..token_side.size()
// (invalid_input naming the variable). O(nvars).
std::vector<int> variable_sides(const Variables& vars, const std::vector<int>& token_side);

// The number of tokens a polynomial's variables name: the largest token index j of its
// x<j>_<c>, to partition. invalid_input naming the first variable without a token index
// (x0_1, y), or when that number is below 2 (a partition has two sides). O(nvars).
long token_count(const Variables& vars);

// The partition a given polynomial is ranked on. An empty text: the balanced partition of
// token_count(vars) tokens (checked as there). Otherwise the text's own tokens: N = the
// number of positions it lists, which must be 1..N once each (parse_partition's checks),
// and every variable's token must be among them (invalid_input naming the first variable
// without a token index or beyond N). So a token no variable names is allowed, as in a
// network whose output ignores a token: x1_1^2 + 1 is ranked on 1|2 (sep 1), and a
// polynomial that cancels to a constant is ranked on the tokens its partition names.
// A message about the variables starts "<subject>: " where subject is not empty (the
// CLI's "--poly", Python's "polynomial"); the partition's own start "partition '".
// O(nvars + len(text) + N log N).
ValidPartition poly_partition(const Variables& vars, const std::string& text, const std::string& subject = "");

// The flattening for a token partition: variable x<j>_<c> goes to the side of token j
// (variable_sides + token_sides: part.tokens() == n_tokens checked, O(1); a bare
// Partition is checked in full against n_tokens at the call, partition.hpp). Every
// variable needs a token index in 1..n_tokens (invalid_input). Cost as above, plus O(N).
SparseZMat flatten(const QPoly& f, const ValidPartition& part, long n_tokens);
SparseNmodMat flatten(const NmodPoly& f, const ValidPartition& part, long n_tokens);
inline SparseZMat flatten(const QPoly& f, const Partition& part, long n_tokens) {
    return flatten(f, ValidPartition(part, n_tokens), n_tokens);
}
inline SparseNmodMat flatten(const NmodPoly& f, const Partition& part, long n_tokens) {
    return flatten(f, ValidPartition(part, n_tokens), n_tokens);
}

}  // namespace seprank
