#include "seprank/table.hpp"

#include "base/limits_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/network.hpp"
#include "seprank/table_blocks.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// resume_set and apply_resume_hints: which rows of a table file a run reuses, and which it
// computes again (table.hpp).

namespace seprank {

namespace {

// The max side a lower-bound row stopped at, read off its reason ("… at the size limit
// (max side M)"); 0 when it stopped for another reason (time, memory) or is not one.
long size_limit_of(const Row& r) {
    if (r.at("status").str() != "lower-bound") return 0;
    const std::string reason = r.at("reason").str(), mark = "at the size limit (max side ";
    const std::size_t at = reason.rfind(mark);
    if (at == std::string::npos) return 0;
    return std::strtol(reason.c_str() + at + mark.size(), nullptr, 10);
}

}  // namespace

ResumeSet resume_set(const std::vector<Row>& file_rows, const std::vector<PlannedRow>& plan, const std::string& source) {
    ResumeSet out;
    const auto refuse = [&](const std::string& key, const std::string& what) {
        return invalid_input("'" + source + "': the rows of configuration " + key + ": " + what);
    };
    // Block rows (table_blocks.hpp) are grouped by configuration, the last row of each
    // block kept; a configuration counts as done only with all its blocks.
    std::map<std::string, std::map<std::string, Row>> groups;
    std::map<std::string, const Row*> last;  // each configuration's last block row in the file
    std::set<std::string> repeated;          // configurations with a block row given again
    for (const Row& r : file_rows) {
        if (is_block_row(r)) {
            const std::string key = row_key(r);
            if (!groups[key].insert_or_assign(r.at("block").str(), r).second) repeated.insert(key);
            last[key] = &r;
            continue;
        }
        if (!out.rows.insert_or_assign(row_key(r), r).second) ++out.duplicates;
    }
    out.duplicates += static_cast<long>(repeated.size());
    for (auto& [key, blocks] : groups) {
        std::vector<Row> rows;
        const std::string total = last[key]->at("total").str(), count = last[key]->at("blocks").str();
        for (auto& [b, r] : blocks)  // the rows of the last computation of the configuration
            if (r.at("total").str() == total && r.at("blocks").str() == count) rows.push_back(r);
        if (std::to_string(rows.size()) != count) continue;  // a configuration cut short: computed again
        try {
            out.rows.insert_or_assign(key, fold_block_rows(rows));
        } catch (const invalid_input& e) {  // fold_block_rows names the cell, not the file
            const std::string m = e.what(), bare = "block table: ";
            throw refuse(key, m.compare(0, bare.size(), bare) == 0 ? m.substr(bare.size()) : m);
        }
    }
    std::map<std::string, const PlannedRow*> planned;  // the planned row of each key
    for (const PlannedRow& pr : plan) planned.emplace(row_key(pr.spec, pr.sweep), &pr);
    for (auto it = out.rows.begin(); it != out.rows.end();) {
        const auto at = planned.find(it->first);
        if (at == planned.end()) {
            ++out.outside;
            ++it;
            continue;
        }
        // The row is its network's: the degree the plan computes (a row edited by hand could
        // say otherwise, and its blocks would size the hints below).
        const Integer dz = output_degree(at->second->spec);
        const std::string degree = dz.str();
        if (it->second.at("degree").str() != degree)
            throw refuse(it->first, "degree " + it->second.at("degree").str().substr(0, 40) + ", where the network's is " + degree);
        // The ε-ranks are those of the sweep's ε (the cell holds each to 6 significant digits):
        // a row whose eps says otherwise was edited, or written by another sweep.
        if (const std::vector<double>& eps = at->second->sweep.eps; !eps.empty() && it->second.contains("eps")) {
            std::istringstream in(it->second.at("eps").str());
            std::vector<double> have;
            for (double e; in >> e;) have.push_back(e);
            bool same = have.size() == eps.size();
            for (std::size_t k = 0; same && k < eps.size(); ++k) same = std::fabs(have[k] - eps[k]) <= 5e-6 * std::fabs(eps[k]);
            if (!same) throw refuse(it->first, "eps " + detail::cut(it->second.at("eps").str()) + ", where the sweep's --eps differs");
        }
        if (const long limit = size_limit_of(it->second); limit > 0 && at->second->sweep.generic.max_side > limit) {
            ++out.recompute;  // a larger side may get further: computed again, the new row appended
            // Its block ranks are the new run's hints; each block is at most the degree (the
            // file's rows were checked against their degree, which is the network's), and only
            // a degree the graded evaluation takes gets hints at all.
            const long D = fmpz_fits_si(dz.get()) ? fmpz_get_si(dz.get()) : -1;
            if (is_block_config_row(it->second) && D >= 0 && D <= EvaluationOptions{}.max_graded_degree) {
                // (a folded row: fold_block_rows made its lists, ascending blocks of equal length)
                const std::vector<long>& blocks = it->second.at("block_list").as_integer_list();
                const std::vector<long>& ranks = it->second.at("block_rank_list").as_integer_list();
                if (!blocks.empty()) {
                    std::vector<long> h(static_cast<std::size_t>(blocks.back()) + 1, -1);
                    for (std::size_t q = 0; q < blocks.size(); ++q) h[static_cast<std::size_t>(blocks[q])] = ranks[q];
                    out.hints[it->first] = std::move(h);
                }
            }
            it = out.rows.erase(it);
            continue;
        }
        // A rank, or columns the sweep asks for, that the process's time or memory limit left
        // empty (the reason states the estimate refused): computed again, the new row
        // appended, once the limit now admits that estimate. Any other reason (no parameters, a fixed limit of
        // the column's own, trials that disagree) would give the same row again: kept.
        const Row& row = it->second;
        const std::string reason = row.at("reason").str();
        const auto left_empty = [&](bool asked, const char* column, const std::string& tag) {
            if (!asked || !row.contains(column) || !(row.at(column).is_null() || row.at(column).str().empty())) return false;
            const std::size_t at = reason.find(tag);  // this column's part of the reason
            return at != std::string::npos && detail::refusal_now_admitted(reason.substr(at + tag.size()));
        };
        const std::string rank_tag = kRankRefused;
        const bool rank_refused = row.at("status").str() == "skipped" && reason.compare(0, rank_tag.size(), rank_tag) == 0 &&
                                  detail::refusal_now_admitted(reason.substr(rank_tag.size()));
        if (rank_refused || left_empty(at->second->sweep.dimension, "dimension", "dimension: ") ||
            left_empty(at->second->sweep.variety, "variety_degree", "variety: ")) {
            ++out.recompute_columns;
            it = out.rows.erase(it);
            continue;
        }
        ++it;
    }
    return out;
}

long apply_resume_hints(std::vector<PlannedRow>& plan, const std::map<std::string, std::vector<long>>& hints) {
    long n = 0;
    if (hints.empty()) return n;
    for (PlannedRow& pr : plan)
        if (const auto it = hints.find(row_key(pr.spec, pr.sweep)); it != hints.end()) {
            pr.sweep.generic.block_hints = it->second;
            ++n;
        }
    return n;
}

}  // namespace seprank
