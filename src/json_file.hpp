// Private: reading a JSON file with one clear error (invalid_input) when it cannot be
// opened or parsed; `what` names the file's role ("weights file", "templates file").
#pragma once

#include "seprank/error.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

namespace seprank::detail {

inline nlohmann::json read_json_file(const std::string& path, const std::string& what) {
    std::ifstream in(path);
    if (!in) throw invalid_input("cannot open " + what + " '" + path + "'");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::parse_error& e) {
        throw invalid_input(what + " '" + path + "' is not valid JSON: " + e.what());
    }
}

}  // namespace seprank::detail
