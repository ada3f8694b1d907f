// seprank — the column registry: every named output field, defined once.
//
// A column has a name, a one-line meaning and a getter that reads its value off a
// RowSource (a network configuration, a RankAnswer, a table row's status). Every output
// of the library and the CLI — to_json(RankAnswer), `rank`/`generic` records in text,
// JSON or CSV, and every row of `seprank table` in any format — is a Record made by
// make_record() from a list of column names, so one concept has one name and one
// spelling everywhere. A getter returns null where its source is absent (no network for
// a bare matrix, no answer for a skipped row).
#pragma once

#include "seprank/answer.hpp"
#include "seprank/network.hpp"
#include "seprank/record.hpp"

#include <string>
#include <vector>

namespace seprank {

struct RowSource {
    const ValidSpec* spec = nullptr;     // configuration columns (family … params); validated, as the getters assume
    const RankAnswer* answer = nullptr;  // answer columns
    const RankAnswer* dimension = nullptr;  // table --dimension: function_dimension's answer (dimension, dim_expected, dim_defect)
    std::string partition;               // used when no answer carries one
    std::string status, reason;          // table rows: ok | lower-bound | skipped, and why
    // table --variety: network_variety's degree, its proven lower bound and the gauge-slice
    // fibre count (variety_degree, variety_degree_at_least, gauge_fibre), -1 where none was
    // claimed; read only when has_variety.
    bool has_variety = false;
    long variety_degree = -1, variety_degree_at_least = -1, variety_degree_at_most = -1, gauge_fibre = -1;
};

struct Column {
    std::string name;
    std::string help;
    Value (*get)(const RowSource&);
};

// Every column, in canonical order. Built once; O(1) after.
const std::vector<Column>& columns();
// The column called `name`; invalid_input naming it when there is none. Linear
// search: O(number of columns).
const Column& column(const std::string& name);
// The record of the listed columns (each checked to exist: invalid_input) read off
// `src`; `src.spec`, when set, must be validated. O(names × columns) lookups plus
// the getters (the bound columns evaluate the theorem bounds of the spec).
Record make_record(const RowSource& src, const std::vector<std::string>& names);
// The columns of a RankAnswer (to_record / to_json), in registry order. O(1).
const std::vector<std::string>& answer_columns();
// The columns that describe a network configuration (family, tokens, dim, heads,
// block_degree, width, depth, residual). O(1).
const std::vector<std::string>& spec_columns();

// One line describing a network, e.g. "attention N=4 dx=2 H=1 da=2 L=2 (i=1, p=1)".
// `s` must be a valid spec (head_dim/block_width are read off it). Linear in the text.
std::string describe(const NetworkSpec& s);

}  // namespace seprank
