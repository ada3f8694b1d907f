// seprank guess --blocks: the part of the `guess` subcommand that reads a block table
// (docs/guess_blocks.md). cmd_guess.cpp parses the options and calls run_guess_blocks.
#pragma once

#include "cli.hpp"

#include "seprank/guess.hpp"

#include <string>
#include <vector>

namespace seprank_cli {

struct GuessBlocksRequest {
    std::string table, where_text, format = "text";
    std::vector<std::pair<std::string, std::string>> where;
    std::vector<std::string> vars, predict, against;
    int max_forms = 3;
    long max_exceptions = 2;
    bool do_check = false;
    seprank::CheckOptions check;
};

// The --predict points, each as parse_point reads it against `vars`; a bad one throws
// invalid_input starting "--predict", and a variable given twice in one point says that
// several points are several --predict options.
std::vector<std::vector<long>> predict_points(const std::vector<std::string>& predict, const std::vector<std::string>& vars);

// Finds the law (guess_block_law), prints it in rq.format with its exceptions, each
// --predict point's blocks (checked by generic when rq.do_check) and the comparison with
// each --against table. Returns the exit code: 0, or 1 when no law was found (one line on
// stderr). Throws what the library throws (bad input: exit 2 through the CLI's handler).
int run_guess_blocks(const GuessBlocksRequest& rq, Notes& notes);

}  // namespace seprank_cli
