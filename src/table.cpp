#include "seprank/table.hpp"

#include "process.hpp"
#include "seprank/cancel.hpp"
#include "seprank/bounds.hpp"
#include "seprank/error.hpp"
#include "seprank/partition.hpp"

#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace seprank {

const std::vector<std::string>& table_columns() {
    static const std::vector<std::string> cols = {
        "family", "tokens", "dim", "heads", "block_degree", "width", "depth", "residual", "embed_rank", "head_dim",
        "attention_rank", "position", "partition", "degree",
        "params", "terms", "rank", "certified", "label", "method", "rows", "cols", "trials", "degenerate",
        "failure_bound", "log3_rank", "theorem", "log3_lower", "log3_upper", "outside", "s_up", "s_low", "ratio_up",
        "ratio_low", "t73_flag", "status", "reason", "seconds",
        "peak_mib"};
    return cols;
}

std::vector<SweepOptions> default_table() {
    SweepOptions att;
    att.families = {Family::attention};
    att.tokens = {2, 3, 4};
    att.dims = {1, 2, 3, 4};
    att.heads = {1, 2};
    att.depths = {1, 2, 3};
    SweepOptions had;
    had.families = {Family::hadamard};
    had.tokens = {2, 3, 4};
    had.dims = {2};
    had.widths = {2};
    had.block_degrees = {2, 3, 4};
    had.budget = 48;
    return {att, had};
}

std::vector<SweepOptions> theorem73_table() {
    // attention sweeps over (N, dx, H, r, L); r = 0 is no embedding
    auto sweep = [](std::vector<long> n, std::vector<long> dx, long h, std::vector<long> r, std::vector<long> L) {
        SweepOptions s;
        s.families = {Family::attention};
        s.tokens = std::move(n);
        s.dims = std::move(dx);
        s.heads = {h};
        s.embed_ranks = std::move(r);
        s.depths = std::move(L);
        return s;
    };
    return {
        sweep({2, 3}, {3}, 1, {0, 1, 2, 3, 4}, {1, 2, 3}),      // log3 rank vs depth, one curve per r, dx = 3
        sweep({2}, {3}, 1, {1, 2}, {4}),                        // deeper where the rank stays small
        sweep({2, 3}, {1, 2, 3, 4, 5, 6}, 1, {0, 1, 2, 3}, {2}),  // log3 rank vs dx, one curve per r, L = 2
        sweep({2}, {1, 2, 3}, 1, {0, 1, 2, 3}, {3}),            // and at L = 3
        sweep({2}, {3}, 3, {0, 1, 2, 3, 4}, {1, 2, 3}),         // H = 3 (da = 1): H < r only for r = 4
        sweep({2}, {4}, 2, {0, 1, 2, 3, 4, 5}, {1, 2}),         // H = 2 (da = 2); dx = 4 at L = 3 costs minutes
    };
}

const std::vector<std::string>& table_preset_names() {
    static const std::vector<std::string> names = {"default", "theorem7.3"};
    return names;
}

std::vector<SweepOptions> table_preset(const std::string& name) {
    if (name == "default") return default_table();
    if (name == "theorem7.3") return theorem73_table();
    throw invalid_input("unknown table preset '" + name + "' (the presets are default, theorem7.3)");
}

SweepPlan plan_sweep(const SweepOptions& s) {
    SweepPlan plan;
    for (Family f : s.families) {
        const FamilyInfo& info = family_info(f);
        for (long n : s.tokens)
            for (long dx : s.dims)
                for (long h : (info.heads ? s.heads : std::vector<long>{1}))
                    for (long d : (info.fixed_block_degree > 0 ? std::vector<long>{info.fixed_block_degree} : s.block_degrees))
                        for (long w : (info.width ? s.widths : std::vector<long>{0}))
                            for (bool res : s.residual)
                                for (long L : (s.budget > 0 && info.fixed_block_degree == 0 ? std::vector<long>{-1} : s.depths))
                                for (long r : s.embed_ranks)
                                for (long da : (info.heads ? s.head_dims : std::vector<long>{0}))
                                for (long k : (info.heads ? s.attention_ranks : std::vector<long>{0}))
                                for (long pos : (info.per_position ? s.positions : std::vector<long>{1})) {
                                    NetworkSpec spec;
                                    spec.embed_rank = r;
                                    spec.head_dim = da;
                                    spec.attention_rank = k;
                                    spec.position = pos;
                                    spec.family = f;
                                    spec.tokens = n;
                                    spec.dim = dx;
                                    spec.heads = h;
                                    spec.block_degree = d;
                                    spec.width = w;
                                    spec.residual = res;
                                    spec.depth = L < 0 ? 1 : L;
                                    try {
                                        validate(spec);
                                        if (L < 0) {
                                            const long per = fmpz_get_si(layer_parameters(spec, 0).get());
                                            spec.depth = s.budget / per;
                                            validate(spec);
                                        }
                                        if (spec.tokens < 2) throw invalid_input("a partition needs 2 tokens");
                                        plan.configs.push_back(spec);
                                    } catch (const invalid_input&) {
                                        ++plan.invalid;
                                    }
                                }
    }
    return plan;
}

namespace {

Partition row_partition(const NetworkSpec& spec, const SweepOptions& s) {
    return s.partition.empty() ? balanced_partition(spec.tokens) : parse_partition(s.partition, spec.tokens);
}

}  // namespace

namespace {

// The whole row's time (milliseconds, as tables always had) and the process's peak memory.
void stamp(Row& r, std::chrono::steady_clock::time_point t0) {
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.set("seconds", std::round(sec * 1000.0) / 1000.0);
    r.set("peak_mib", std::round(peak_rss_mib() * 10.0) / 10.0);
}

}  // namespace

std::string row_key(const Row& row) {
    std::string k;
    for (const auto& c : table_columns()) {
        if (c == "degree") break;
        // CSV rows hold text cells, JSON rows typed ones: compare their text forms.
        k += row.at(c).str() + ";";
    }
    return k;
}

std::string row_key(const NetworkSpec& spec, const SweepOptions& s) {
    RowSource src;
    src.spec = &spec;
    src.partition = to_string(row_partition(spec, s));
    std::vector<std::string> config;
    for (const auto& c : table_columns()) {
        if (c == "degree") break;
        config.push_back(c);
    }
    return row_key(make_record(src, config));
}

Row table_row(const NetworkSpec& spec, const SweepOptions& s) {
    const auto t0 = std::chrono::steady_clock::now();
    const Partition part = row_partition(spec, s);
    RowSource src;
    src.spec = &spec;
    src.partition = to_string(part);
    RankAnswer res;
    const long nvars = spec.tokens * input_vars_per_token(spec);
    if (nvars > s.max_variables) {
        src.status = "skipped";
        src.reason = std::to_string(nvars) + " input variables exceed the size budget of " + std::to_string(s.max_variables);
        Row r = make_record(src, table_columns());
        stamp(r, t0);
        return r;
    }
    res = generic_rank(spec, part, s.generic);
    src.answer = &res;
    src.status = res.converged ? "ok" : "lower-bound";
    if (!res.converged) src.reason = "evaluation matrix full rank at max side " + std::to_string(s.generic.max_side);
    Row r = make_record(src, table_columns());
    stamp(r, t0);
    return r;
}

std::string csv_header() { return csv_line(table_columns()); }

std::string csv_line(const Row& row) { return seprank::csv_line(row, table_columns()); }

namespace {

void write_all(int fd, const std::string& text, const std::string& path) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw resource_limit("writing '" + path + "' failed: " + std::strerror(errno));
        }
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

std::vector<Row> read_table_file(const std::string& path, bool json_lines) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return {};
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    const std::size_t last_nl = text.rfind('\n');
    const std::size_t keep = last_nl == std::string::npos ? 0 : last_nl + 1;
    if (keep < text.size()) {  // torn last line: cut it off
        if (::truncate(path.c_str(), static_cast<off_t>(keep)) != 0)
            throw resource_limit("cannot repair torn last line of '" + path + "': " + std::strerror(errno));
        text.resize(keep);
    }
    std::vector<Row> rows;
    std::istringstream lines(text);
    std::string line;
    std::vector<std::string> header;
    long lineno = 0;
    while (std::getline(lines, line)) {
        ++lineno;
        if (line.empty()) continue;
        if (json_lines) {
            rows.push_back(record_from_json(line, "'" + path + "' line " + std::to_string(lineno)));
            continue;
        }
        auto cells = parse_csv_line(line);
        if (header.empty()) {
            header = cells;
            if (header != table_columns())
                throw invalid_input("'" + path + "' does not start with the seprank table header (line 1: " + line + ")");
            continue;
        }
        if (cells.size() != header.size())
            throw invalid_input("'" + path + "' line " + std::to_string(lineno) + " has " + std::to_string(cells.size()) +
                                " cells, expected " + std::to_string(header.size()));
        Row r;
        for (std::size_t k = 0; k < cells.size(); ++k) r.set(header[k], cells[k]);
        rows.push_back(std::move(r));
    }
    return rows;
}

TableAppender::TableAppender(const std::string& path, bool json_lines) : json_(json_lines), path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd_ < 0) throw invalid_input("cannot open '" + path + "' for appending: " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && st.st_size == 0 && !json_) write_all(fd_, csv_header() + "\n", path_);
}

TableAppender::~TableAppender() {
    if (fd_ >= 0) ::close(fd_);
}

void TableAppender::append(const Row& row) {
    std::string line = json_ ? to_json(row) : csv_line(row);
    line += '\n';
    write_all(fd_, line, path_);
    ::fsync(fd_);
}

void run_table(const std::vector<PlannedRow>& plan, const std::map<std::string, Row>& done, const EmitRow& emit,
               const Progress& progress) {
    for (std::size_t k = 0; k < plan.size(); ++k) {
        if (auto it = done.find(row_key(plan[k].spec, plan[k].sweep)); it != done.end()) {
            emit(it->second, false);
            continue;
        }
        throw_if_cancelled();
        if (progress) progress(k, plan[k].spec);
        emit(table_row(plan[k].spec, plan[k].sweep), true);
    }
}

}  // namespace seprank
