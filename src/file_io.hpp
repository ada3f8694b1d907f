// Private: whole-file writes that never leave a half-written file behind. The text goes
// to PATH.tmp, is flushed, then renamed over PATH (atomic on POSIX); on failure the
// temporary is removed and one error names the file and its role.
#pragma once

#include "seprank/error.hpp"

#include <cstdio>
#include <fstream>
#include <string>

namespace seprank::detail {

inline void write_file_atomically(const std::string& path, const std::string& text, const std::string& what) {
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) throw invalid_input("cannot write " + what + " '" + path + "'");
        out << text;
        out.flush();
        if (!out) {
            std::remove(tmp.c_str());
            throw resource_limit("writing " + what + " '" + path + "' failed");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw invalid_input("cannot move the " + what + " into '" + path + "'");
    }
}

}  // namespace seprank::detail
