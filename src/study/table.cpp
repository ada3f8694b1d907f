#include "seprank/table.hpp"

#include "rank/block_store.hpp"

#include "base/process.hpp"
#include "base/file_io.hpp"
#include "base/limits_internal.hpp"
#include "seprank/cancel.hpp"
#include "seprank/bounds.hpp"
#include "seprank/dimension.hpp"
#include "seprank/variety.hpp"
#include "seprank/error.hpp"
#include "seprank/partition.hpp"
#include "seprank/table_blocks.hpp"

#include "seprank/limits.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <sys/resource.h>
#include <nlohmann/json.hpp>
#include <sys/file.h>
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

const std::vector<std::string>& table_eps_columns() {
    static const std::vector<std::string> cols = {"eps", "eps_ranks", "eps_certified", "eps_reason"};
    return cols;
}

const std::vector<std::string>& table_dimension_columns() {
    static const std::vector<std::string> cols = {"dimension", "dim_expected", "dim_defect", "dim_label", "dim_failure_bound"};
    return cols;
}

std::vector<std::string> table_columns(bool eps, bool dimension, bool layers) { return table_columns(eps, dimension, layers, false); }

const std::vector<std::string>& table_variety_columns() {
    static const std::vector<std::string> cols = {"variety_degree", "variety_degree_at_least", "variety_degree_at_most", "gauge_fibre"};
    return cols;
}

std::vector<std::string> table_columns(bool eps, bool dimension, bool layers, bool device) { return table_columns(eps, dimension, layers, device, false); }

std::vector<std::string> table_columns(bool eps, bool dimension, bool layers, bool device, bool variety) {
    std::vector<std::string> cols = table_columns();
    if (layers) cols.insert(cols.begin() + 1, "layers");  // after family: it says which stack
    if (eps) cols.insert(cols.end(), table_eps_columns().begin(), table_eps_columns().end());
    if (dimension) cols.insert(cols.end(), table_dimension_columns().begin(), table_dimension_columns().end());
    if (variety) cols.insert(cols.end(), table_variety_columns().begin(), table_variety_columns().end());
    if (device) cols.push_back("device");
    return cols;
}

std::vector<std::string> table_columns(bool eps, bool dimension) { return table_columns(eps, dimension, false); }

std::vector<std::string> table_columns(bool eps) { return table_columns(eps, false); }

std::vector<Column> table_column_meanings() {
    std::vector<Column> out;
    for (const std::string& name : table_columns(true, true, true, true, true)) out.push_back(column(name));
    for (const char* name : {"block", "blocks", "cap_a", "cap_b", "at_cap", "total"}) out.push_back(column(name));  // --blocks
    return out;
}

std::vector<std::string> row_columns(const Row& row) {
    if (is_block_row(row)) return table_block_columns(row.contains("layers"), row.contains("device"));
    return table_columns(row.contains("eps_ranks"), row.contains("dimension"), row.contains("layers"), row.contains("device"), row.contains("variety_degree"));
}

std::vector<SweepOptions> default_table() {
    SweepOptions att;
    att.families = {family_from_string("attention")};
    att.tokens = {2, 3, 4};
    att.dims = {1, 2, 3, 4};
    att.heads = {1, 2};
    att.depths = {1, 2, 3};
    SweepOptions had;
    had.families = {family_from_string("hadamard")};
    had.tokens = {2, 3, 4};
    had.dims = {2};
    had.widths = {2};
    had.block_degrees = {2, 3, 4};
    had.budget = 48;
    att.generic.max_seconds = had.generic.max_seconds = kTableRowSeconds;
    att.generic.prime_bits = had.generic.prime_bits = kDefaultTablePrimeBits;
    return {att, had};
}

std::vector<SweepOptions> theorem73_table() {
    // attention sweeps over (N, dx, H, r, L); r = 0 is no embedding
    auto sweep = [](std::vector<long> n, std::vector<long> dx, long h, std::vector<long> r, std::vector<long> L) {
        SweepOptions s;
        s.families = {family_from_string("attention")};
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

std::vector<std::string> split_layers_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t semi = text.find(';', start);
        const std::string item = text.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
        if (item.empty())
            throw invalid_input("layers '" + text + "': SPEC " + std::to_string(out.size() + 1) +
                                " is empty (SPECs are separated by ';', e.g. 'attention;attention,mlp:power=3')");
        out.push_back(item);
        if (semi == std::string::npos) return out;
        start = semi + 1;
    }
}

namespace {

// The values of each sweep list that a family reads (one default where it reads none):
// plan_sweep's loops and its count of their combinations both take them from here.
struct FamilyValues {
    std::vector<long> heads, degrees, widths, depths, head_dims, attention_ranks, positions;
};

FamilyValues family_values(const FamilyInfo& info, const SweepOptions& s) {
    FamilyValues v;
    v.heads = info.heads ? s.heads : std::vector<long>{1};
    // block_degree is swept only where the family reads it (degree_key)
    v.degrees = info.degree_key != nullptr ? s.block_degrees
                                           : std::vector<long>{info.fixed_block_degree > 0 ? info.fixed_block_degree : NetworkSpec{}.block_degree};
    v.widths = info.width ? s.widths : std::vector<long>{0};
    v.depths = s.budget > 0 && info.fixed_block_degree == 0 ? std::vector<long>{-1} : s.depths;  // -1: from the budget
    v.head_dims = info.heads ? s.head_dims : std::vector<long>{0};
    v.attention_ranks = info.heads ? s.attention_ranks : std::vector<long>{0};
    v.positions = info.per_position ? s.positions : std::vector<long>{1};
    return v;
}

}  // namespace

SweepPlan plan_sweep(const SweepOptions& s) {
    check_options(s.generic);  // every row's method uses a subset: refuse a bad value before any row
    if (!s.block_store.empty()) detail::check_store_directory(s.block_store, "table block store");
    if (s.blocks && s.generic.method == GenericMethod::flattening)
        throw invalid_input("a block table needs the graded evaluation (the degree blocks are its ranks): method flattening cannot give them");
    if (s.blocks && s.generic.variant == EvaluationVariant::plain)
        throw invalid_input("a block table needs the graded evaluation (the degree blocks are its ranks): variant plain cannot give them");
    if (s.blocks && (!s.eps.empty() || s.dimension || s.variety))
        throw invalid_input(std::string("a block table has one row per degree block and no ") +
                            (!s.eps.empty() ? "ε" : s.dimension ? "dimension" : "variety") +
                            " columns: compute them in a table without blocks");
    if (s.budget < 0) throw invalid_input("budget " + std::to_string(s.budget) + " is negative (0: no budget)");
    if (s.eps_max_side < 1) throw invalid_input("eps max side " + std::to_string(s.eps_max_side) + " must be at least 1 (the largest flattening the ε-ranks take)");
    // A value no configuration could take is refused by name, whether or not a family of
    // the sweep reads it; combinations (H dividing dx, i <= N, ...) are judged per row below.
    // The value farthest outside is named: a range 1..99 of depths is refused as 99, the
    // value typed, not as 65, the first it reached outside.
    auto each = [](const std::vector<long>& values, const std::string& name, long lo, long hi, const std::string& why) {
        const long* worst = nullptr;
        auto outside = [&](long v) { return v < lo ? static_cast<double>(lo) - static_cast<double>(v) : static_cast<double>(v) - static_cast<double>(hi); };
        for (const long& v : values)
            if ((v < lo || v > hi) && (worst == nullptr || outside(v) > outside(*worst))) worst = &v;
        if (worst != nullptr) throw invalid_input("sweep " + name + " = " + std::to_string(*worst) + ": " + why);
    };
    const std::string size = std::to_string(kMaxSize), degree = std::to_string(kMaxBlockDegree), embed = std::to_string(kMaxEmbedRank);
    each(s.tokens, "tokens N", 2, kMaxSize, "a row needs 2.." + size + " tokens (a partition has two sides)");
    each(s.dims, "dim dx", 1, kMaxSize, "expected 1.." + size);
    each(s.heads, "heads H", 1, kMaxSize, "expected 1.." + size);
    each(s.depths, "depth L", 0, kMaxDepth, "expected 0.." + std::to_string(kMaxDepth));
    each(s.block_degrees, "block degree d", 1, kMaxBlockDegree, "expected 1.." + degree);
    each(s.widths, "width w", 0, kMaxSize, "expected 0.." + size + " (0: dx)");
    each(s.embed_ranks, "embedding rank r", 0, kMaxEmbedRank, "expected 0.." + embed + " (0: no embedding)");
    each(s.head_dims, "head dim da", 0, kMaxSize, "expected 0.." + size + " (0: dx/H)");
    each(s.attention_ranks, "attention rank k", 0, kMaxSize, "expected 0..da (0: no cap)");
    each(s.positions, "position i", 1, kMaxSize, "expected 1..N");
    // The SPECs, parsed once; each remembers the first reason a configuration refused it.
    struct Unit {
        std::string text;
        std::vector<LayerSpec> layers;
        long valid = 0;
        std::string first_failure;
    };
    std::vector<Unit> units;
    for (const std::string& text : s.layers) {
        try {
            units.push_back({text, parse_layers(text), 0, ""});
        } catch (const invalid_input& e) {
            throw invalid_input("layers SPEC '" + text + "': " + e.what());
        }
    }
    // A --partition that fits no token count of the sweep is a bad partition (refused with
    // the first reason); one that fits some leaves the other token counts' rows out.
    if (!s.partition.empty()) {
        std::string first;
        bool fits = false;
        for (long n : s.tokens) {
            try {
                parse_partition(s.partition, n);
                fits = true;
            } catch (const invalid_input& e) {
                if (first.empty()) first = e.what();
            }
        }
        if (!fits && !first.empty()) throw invalid_input(first + " — it fits no token count of the sweep");
    }
    // The sweep's size, checked before and while it is planned: every combination of the
    // values each family reads is built and validated (about 10 µs each, measured on an
    // invalid one: 10^6 in 9 s), and each configuration planned holds, with the row it
    // becomes, about 8 KiB (90,000 rows of skipped configurations: 700 MB; 2026-11-30).
    constexpr double kSecondsPerCombination = 10e-6, kBytesPerConfiguration = 8192;
    double combinations = 0;
    for (Family f : s.families) {
        const FamilyInfo& info = family_info(f);
        const FamilyValues v = family_values(info, s);
        const auto n = [](const auto& list) { return static_cast<double>(list.size()); };
        combinations += (info.layers ? n(units) : 1.0) * n(s.tokens) * n(s.dims) * n(v.heads) * n(v.degrees) * n(v.widths) * n(s.residual) *
                        n(v.depths) * n(s.embed_ranks) * n(v.head_dims) * n(v.attention_ranks) * n(v.positions);
    }
    char combos[64];
    std::snprintf(combos, sizeof combos, "%.4g", combinations);
    check_time(combinations * kSecondsPerCombination, default_max_seconds(),
               "table: planning the sweep, " + std::string(combos) + " combinations of its values");
    const double memory_limit = default_max_memory();
    SweepPlan plan;
    std::set<std::string> keys;        // row_key of every planned configuration
    std::set<std::string> large_keys;  // describe() and partition of every one too large to build
    for (Family f : s.families) {
        const FamilyInfo& info = family_info(f);
        const FamilyValues v = family_values(info, s);
        // A family no configuration accepts (power without its widths, attention whose
        // every H fails to divide every dx) is refused with its first reason, not left out.
        long family_valid = 0;
        std::string family_failure;
        if (info.layers && units.empty())
            throw invalid_input("family " + std::string(info.name) + " needs its layers: a list of SPECs (table --layers)");
        Unit none;
        std::vector<Unit*> unit_list;
        if (info.layers)
            for (Unit& u : units) unit_list.push_back(&u);
        else
            unit_list.push_back(&none);
        for (Unit* unit : unit_list)
        for (long n : s.tokens)
            for (long dx : s.dims)
                for (long h : v.heads)
                    for (long d : v.degrees)
                        for (long w : v.widths)
                            for (bool res : s.residual)
                                for (long L : v.depths)
                                for (long r : s.embed_ranks)
                                for (long da : v.head_dims)
                                for (long k : v.attention_ranks)
                                for (long pos : v.positions) {
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
                                    // A stack: L copies of its SPEC (depth: the number of layers).
                                    const auto set_copies = [&](long copies) {
                                        if (!info.layers) return;
                                        if (copies < 0) throw invalid_input("depth L = " + std::to_string(copies) + " must not be negative");
                                        std::optional<std::vector<LayerSpec>> all = repeat_layers(unit->layers, copies);
                                        if (!all)
                                            throw invalid_input("depth " + std::to_string(copies) + " copies of " + std::to_string(unit->layers.size()) +
                                                                " layers: more than " + std::to_string(kMaxDepth) + " layers");
                                        spec.layers = std::move(*all);
                                        spec.depth = static_cast<long>(spec.layers.size());
                                    };
                                    // validate's resource_limit (the weights over the memory
                                    // limit) is its last check: a spec it stops is valid otherwise.
                                    try {
                                        set_copies(spec.depth);
                                        if (L < 0) {  // depth from the budget: the parameters of the valid L = 1 spec (one copy of a SPEC)
                                            try {
                                                (void)ValidSpec(spec);
                                            } catch (const resource_limit&) {  // only counted, never built: its size does not matter
                                            }
                                            const long per = fmpz_get_si(parameter_count(spec).get());
                                            spec.depth = s.budget / per;
                                            set_copies(spec.depth);
                                        }
                                        std::optional<ValidSpec> valid;
                                        std::string too_large;
                                        try {
                                            valid.emplace(spec);  // validates first: a bad spec is named as such
                                        } catch (const resource_limit& e) {
                                            too_large = e.what();
                                        }
                                        if (!s.partition.empty()) parse_partition(s.partition, spec.tokens);
                                        ++unit->valid;  // a valid network (too large or not): neither its SPEC nor its family is at fault
                                        ++family_valid;
                                        if (!too_large.empty()) {  // left out, counted once per network and partition
                                            if (!large_keys.insert(describe(spec) + " " + s.partition).second) {
                                                ++plan.duplicates;
                                            } else {
                                                ++plan.too_large;
                                                if (plan.first_too_large.empty()) plan.first_too_large = too_large;
                                            }
                                        } else if (keys.insert(row_key(*valid, s)).second) {
                                            const double planned = static_cast<double>(plan.configs.size() + 1);
                                            if (planned * kBytesPerConfiguration > memory_limit)
                                                check_memory(planned * kBytesPerConfiguration, memory_limit,
                                                             "table: the sweep's valid configurations, " + std::to_string(plan.configs.size() + 1) +
                                                                 " so far of up to " + combos + " combinations (about 8 KiB each with its row)");
                                            plan.configs.push_back(std::move(*valid));
                                        } else {
                                            ++plan.duplicates;
                                        }
                                    } catch (const invalid_input& e) {
                                        ++plan.invalid;
                                        if (plan.first_invalid.empty()) plan.first_invalid = e.what();
                                        if (unit->first_failure.empty()) unit->first_failure = e.what();
                                        if (family_failure.empty()) family_failure = e.what();
                                    }
                                }
        if (family_valid == 0 && !info.layers && !family_failure.empty())
            throw invalid_input("family " + std::string(info.name) + " is valid in no configuration of the sweep: " + family_failure);
    }
    for (const Unit& u : units)  // a SPEC no configuration accepts is a bad SPEC, not a gap in the sweep
        if (u.valid == 0 && !u.first_failure.empty())
            throw invalid_input("layers SPEC '" + u.text + "' is valid in no configuration of the sweep: " + u.first_failure);
    return plan;
}

namespace {

ValidPartition row_partition(const NetworkSpec& spec, const SweepOptions& s) {
    return s.partition.empty() ? balanced_partition(spec.tokens) : parse_partition(s.partition, spec.tokens);
}

}  // namespace

namespace {

std::string eps_text(double e) {
    std::ostringstream os;
    os << e;
    return os.str();
}

// The ε columns of one row: spectrum() of the network with the sweep's seeded weights.
// row_rank: the row's generic rank (-1: none); a seed network below it is named in
// eps_reason, so that ε-ranks under the row's rank do not read as a contradiction.
void add_eps_columns(Row& r, const ValidSpec& spec, const ValidPartition& part, const SweepOptions& s, const std::string& skipped,
                     long row_rank) {
    std::string eps, ranks, cert, reason = skipped;
    for (double e : s.eps) eps += (eps.empty() ? "" : " ") + eps_text(e);
    if (reason.empty()) {
        try {
            SpectrumOptions opt;
            opt.measure = s.measure;
            opt.eps = s.eps;
            opt.max_side = s.eps_max_side;
            const SpectrumResult sr = spectrum(random_network(spec, s.generic.seed), part, opt);
            for (const EpsRank& er : sr.eps_ranks) {
                const std::string one = er.decided() ? std::to_string(er.rank_low)
                                                     : std::to_string(er.rank_low) + ".." + std::to_string(er.rank_high);
                ranks += (ranks.empty() ? "" : " ") + one;
                cert += (cert.empty() ? "" : " ") + std::string(er.certified ? "true" : "false");
            }
            if (row_rank >= 0 && sr.rank < row_rank)
                reason = "the seed's integer network (--seed " + std::to_string(s.generic.seed) + ") has separation rank " + std::to_string(sr.rank) +
                         ", below the row's generic rank " + std::to_string(row_rank) + ": a degenerate draw" +
                         (sr.rank == 0 ? " (its f is 0)" : "") + "; the ε-ranks are its own";
        } catch (const resource_limit& e) {
            ranks.clear();
            cert.clear();
            reason = e.what();
        }
    }
    r.set("eps", eps);
    r.set("eps_ranks", ranks);
    r.set("eps_certified", cert);
    r.set("eps_reason", reason.empty() ? Value() : Value(reason));  // null: nothing to say
}

// Adds `why` to the row's reason, after what it says already ("; " between).
void append_reason(Row& r, const std::string& why) {
    const std::string before = r.at("reason").str();
    r.set("reason", (before.empty() ? "" : before + "; ") + why);
}

// The dimension columns of one row (SweepOptions::dimension): function_dimension with the
// sweep's seed and threads. Over its limits (resource_limit) or without weights (invalid_input:
// depth 0 without an embedding) the cells are null and the reason says why, as for variety.
void add_dimension_columns(Row& r, const ValidSpec& spec, const SweepOptions& s) {
    DimensionOptions o;
    o.seed = s.generic.seed;
    o.threads = s.generic.threads;
    o.device = s.generic.device;
    RowSource src;
    RankAnswer dim;
    try {
        dim = function_dimension(spec, o);
        src.dimension = &dim;
    } catch (const resource_limit& e) {
        append_reason(r, std::string("dimension: ") + e.what());
    } catch (const invalid_input& e) {
        append_reason(r, std::string("dimension: ") + e.what());
    }
    const Record cells = make_record(src, table_dimension_columns());
    for (const auto& c : table_dimension_columns()) r.set(c, cells.at(c));
}

// The variety columns of one row (SweepOptions::variety): network_variety with the sweep's
// seed and threads. Over its limits (resource_limit) or without weights (invalid_input) the
// cells are null and the reason says why.
void add_variety_columns(Row& r, const ValidSpec& spec, const SweepOptions& s) {
    VarietyOptions o;
    o.seed = s.generic.seed;
    o.threads = s.generic.threads;
    RowSource src;
    src.has_variety = true;
    const auto why = [&](const std::string& what) {  // the library's messages may name it already
        append_reason(r, what.rfind("variety: ", 0) == 0 ? what : "variety: " + what);
    };
    try {
        const VarietyAnswer v = network_variety(spec, o);
        src.variety_degree = v.degree;
        src.variety_degree_at_least = v.degree_at_least;
        src.variety_degree_at_most = v.degree_at_most;
        src.gauge_fibre = v.agreed ? v.gauge_fibre_points : -1;
        if (!v.agreed) why(v.label);
    } catch (const resource_limit& e) {
        why(e.what());
    } catch (const invalid_input& e) {
        why(e.what());
    }
    const Record cells = make_record(src, table_variety_columns());
    for (const auto& c : table_variety_columns()) r.set(c, cells.at(c));
}

// The whole row's time (milliseconds, as tables always had) and the peak resident memory
// while it ran.
void stamp(Row& r, std::chrono::steady_clock::time_point t0, PeakWindow& window) {
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.set("seconds", std::round(sec * 1000.0) / 1000.0);
    r.set("peak_mib", std::round(window.peak_mib() * 10.0) / 10.0);
}

}  // namespace

std::string row_key(const Row& row) {
    std::string k;
    for (const auto& c : table_columns(false, false, row.contains("layers"))) {
        if (c == "degree") break;
        // CSV rows hold text cells, JSON rows typed ones: compare their text forms.
        k += row.at(c).str() + ";";
    }
    return k;
}

std::string row_key(const ValidSpec& spec, const SweepOptions& s) { return row_key(spec, row_partition(spec, s), !s.layers.empty()); }

std::string row_key(const ValidSpec& spec, const ValidPartition& part, bool layers_column) {
    RowSource src;
    src.spec = &spec;
    src.partition = to_string(part);
    std::vector<std::string> config;
    for (const auto& c : table_columns(false, false, layers_column)) {
        if (c == "degree") break;
        config.push_back(c);
    }
    return row_key(make_record(src, config));
}

Row table_row(const ValidSpec& spec, const SweepOptions& s) {
    PeakWindow window;  // peak_mib: the row's own peak (process.hpp)
    const auto t0 = std::chrono::steady_clock::now();
    const ValidPartition part = row_partition(spec, s);
    RowSource src;
    src.spec = &spec;
    src.partition = to_string(part);
    RankAnswer res;
    const long nvars = spec->tokens * input_vars_per_token(spec);
    // A block table: the blocks' sides, and why a configuration has no blocks.
    DegreeBlockSides sides;
    std::string no_blocks;
    if (s.blocks && nvars <= s.max_variables) {
        const Integer dz = output_degree(spec);
        // the sides only where the graded evaluation takes the degree (counting them past it
        // cost a second and 150 MB a skipped row)
        if (is_homogeneous(spec) && dz <= Integer(EvaluationOptions{}.max_graded_degree)) sides = degree_block_sides(spec, part);
        if (!is_homogeneous(spec)) no_blocks = "no degree blocks: f is not homogeneous (a residual connection mixes degrees)";
        else if (sides.a_side.empty())  // (always so past the graded degree limit: not counted above)
            no_blocks = "no degree blocks: degree " + dz.str() + " is over the graded evaluation's limit " + std::to_string(EvaluationOptions{}.max_graded_degree);
    }
    // A row without a rank: status skipped, the reason said; its other columns as usual.
    const auto skipped = [&](const std::string& reason) {
        src.status = "skipped";
        src.reason = reason;
        src.answer = nullptr;
        Row r = make_record(src, table_columns(false, false, !s.layers.empty(), s.generic.device != Device::cpu));
        if (s.blocks) detail::set_block_lists(r, {}, {});
        if (!s.eps.empty()) add_eps_columns(r, spec, part, s, "row skipped: " + src.reason, -1);
        if (s.dimension) add_dimension_columns(r, spec, s);
        if (s.variety) add_variety_columns(r, spec, s);
        stamp(r, t0, window);
        return r;
    };
    if (nvars > s.max_variables || !no_blocks.empty())
        return skipped(!no_blocks.empty() ? no_blocks
                                          : std::to_string(nvars) + " input variables exceed the size budget of " + std::to_string(s.max_variables));
    GenericOptions g = s.generic;
    if (s.blocks) {  // the degree blocks are the graded evaluation's (plan_sweep refused the others)
        g.method = GenericMethod::evaluation;
        g.variant = EvaluationVariant::graded;
    }
    if (!s.block_store.empty()) {
        detail::ensure_directory(s.block_store, "table block store");
        g.store = row_store(PlannedRow{spec, s});
    }
    // A limit's refusal (the flattening's expansion over --max-memory, say) skips this row
    // alone: the rest of the sweep runs, and --resume computes it again once the limit
    // admits the estimate (resume_set).
    try {
        res = generic_rank(spec, part, g);
    } catch (const resource_limit& e) {
        return skipped(kRankRefused + std::string(e.what()));
    }
    src.answer = &res;
    src.status = res.converged ? "ok" : "lower-bound";
    if (!res.converged) {
        char budget[32], ran[32];
        std::snprintf(budget, sizeof budget, "%g", s.generic.max_seconds);
        std::snprintf(ran, sizeof ran, res.seconds >= 10 ? "%.0f" : "%.2g", res.seconds);
        // The rank still grew at the last step (full rank; graded: some block full).
        const std::string at = "rank " + std::to_string(res.value) + " at side " + std::to_string(res.rows) + ", still growing";
        // The budget stops a row before a step predicted to end past it: the time it ran is
        // said, below the budget then (past it only when the first step, which always runs,
        // took longer).
        const std::string timed = res.seconds < s.generic.max_seconds
                                      ? "; stopped at " + std::string(ran) + " s of the row's time budget of " + budget +
                                            " s, the next step predicted to end past it"
                                      : "; stopped at " + std::string(ran) + " s, past the row's time budget of " + budget +
                                            " s (the first step always runs)";
        src.reason = res.stop == GrowthStop::time_budget ? at + timed
                     : res.stop == GrowthStop::memory ? at + " where memory stopped it (" + res.stop_detail + ")"
                                                      : at + " at the size limit (max side " + std::to_string(s.generic.max_side) + ")";
    }
    Row r = make_record(src, table_columns(false, false, !s.layers.empty(), s.generic.device != Device::cpu));
    if (s.blocks) detail::set_block_lists(r, res.block_ranks, sides);
    if (!s.eps.empty()) add_eps_columns(r, spec, part, s, "", res.value);
    if (s.dimension) add_dimension_columns(r, spec, s);
    if (s.variety) add_variety_columns(r, spec, s);
    stamp(r, t0, window);
    return r;
}

std::string csv_header() { return csv_line(table_columns()); }

std::string csv_header(bool eps) { return csv_line(table_columns(eps)); }

std::string csv_header(bool eps, bool dimension) { return csv_line(table_columns(eps, dimension)); }

std::string csv_header(bool eps, bool dimension, bool layers) { return csv_line(table_columns(eps, dimension, layers)); }

std::string csv_line(const Row& row) { return seprank::csv_line(row, row_columns(row)); }

// The version of the rows' numbers: raised whenever the same options give other values,
// labels or bounds (a new failure bound, say), so that a table file written before is not
// resumed with rows computed the old way. 2: per-trial primes and the bound over every
// growth step (v0.x files had no version); 3: the caps of the token symmetry of any order
// and of the degree floor (more rows certified, fewer blocks in a block sweep).
constexpr int kResultsVersion = 3;

std::string sweep_signature(const SweepOptions& s) {
    const GenericOptions& g = s.generic;
    std::ostringstream os;
    os << "results=" << kResultsVersion << " trials=" << g.trials << " seed=" << g.seed << " method=" << static_cast<int>(g.method) << " max_side=" << g.max_side
       << " variant=" << static_cast<int>(g.variant) << " partition=" << (s.partition.empty() ? "balanced" : s.partition)
       << " max_variables=" << s.max_variables << " columns=" << table_columns(!s.eps.empty(), s.dimension, !s.layers.empty(), g.device != Device::cpu, s.variety).size();
    if (!s.eps.empty()) {  // absent without ε: the signature of older files is unchanged
        os << " eps=";
        for (std::size_t k = 0; k < s.eps.size(); ++k) os << (k ? "," : "") << eps_text(s.eps[k]);
        os << " measure=" << to_string(s.measure) << " eps_max_side=" << s.eps_max_side;
    }
    if (s.dimension) os << " dimension=1";  // absent without it, as the ε options
    if (s.variety) os << " variety=1";
    if (!s.layers.empty()) os << " layers=1";  // the column; the SPECs are in the row keys
    if (s.blocks) os << " blocks=1";  // one row per block
    // Off the CPU the primes are smaller (device.hpp): another sweep. Absent for the CPU.
    if (g.device != Device::cpu) os << " device=" << to_string(g.device);
    // Other primes, other failure bounds: another sweep. Absent at the default (62).
    if (g.prime_bits != GenericOptions{}.prime_bits) os << " prime_bits=" << g.prime_bits;
    return os.str();
}

TablePlan plan_table(const std::vector<SweepOptions>& sweeps) {
    TablePlan plan;
    for (const SweepOptions& sw : sweeps) {
        const SweepPlan p = plan_sweep(sw);
        plan.invalid += p.invalid;
        if (plan.first_invalid.empty()) plan.first_invalid = p.first_invalid;
        plan.duplicates += p.duplicates;
        plan.too_large += p.too_large;
        if (plan.first_too_large.empty()) plan.first_too_large = p.first_too_large;
        // Each row keeps what its computation reads of the sweep, not the value lists it was
        // planned from (a sweep of 300 token counts by 300 dims held 90,000 copies of them:
        // 1.1 GB); `layers` keeps one SPEC, whose presence adds the column.
        SweepOptions per_row = sw;
        per_row.families.clear();
        for (auto* list : {&per_row.tokens, &per_row.dims, &per_row.heads, &per_row.depths, &per_row.block_degrees, &per_row.widths,
                           &per_row.embed_ranks, &per_row.head_dims, &per_row.attention_ranks, &per_row.positions})
            list->clear();
        per_row.residual.clear();
        if (per_row.layers.size() > 1) per_row.layers.resize(1);
        for (const ValidSpec& c : p.configs) plan.rows.push_back({c, per_row});
    }
    if (plan.rows.empty() && plan.too_large > 0)
        throw resource_limit("every valid configuration of the sweep is too large to build (" + std::to_string(plan.too_large) +
                             "; the first: " + plan.first_too_large + ")");
    if (plan.rows.empty())
        throw invalid_input("the sweep has no valid configuration (" + std::to_string(plan.invalid) + " left out as invalid)");
    return plan;
}

std::uint64_t plan_fingerprint(const std::vector<PlannedRow>& plan) {
    std::string keys;
    for (const PlannedRow& pr : plan) keys += row_key(pr.spec, pr.sweep) + "\n";
    return detail::fnv1a(keys);
}

std::vector<UnusedOptions> unused_table_options(const std::vector<SweepOptions>& sweeps, const std::vector<Row>& rows) {
    std::vector<UnusedOptions> out;
    if (std::none_of(rows.begin(), rows.end(), [](const Row& r) { return r.at("method").str() == "evaluation"; })) {
        const GenericMethod m = sweeps.empty() ? GenericMethod::automatic : sweeps.front().generic.method;
        out.push_back({{"max_side", "variant", "row_seconds", "block_store"}, "no row used the evaluation (method " + to_string(m) + ")"});
    }
    if (std::all_of(sweeps.begin(), sweeps.end(), [](const SweepOptions& s) { return s.eps.empty(); }))
        out.push_back({{"measure", "eps_max_side"}, "no eps columns asked for"});
    auto any_family = [&](auto uses) {
        for (const SweepOptions& sw : sweeps)
            for (Family f : sw.families)
                if (uses(family_info(f))) return true;
        return false;
    };
    if (!any_family([](const FamilyInfo& i) { return i.heads; }))
        out.push_back({{"heads", "head_dim", "attention_rank"}, "no family of the sweep has attention heads"});
    if (!any_family([](const FamilyInfo& i) { return i.width; })) out.push_back({{"width"}, "no family of the sweep has one width (hadamard)"});
    if (!any_family([](const FamilyInfo& i) { return i.degree_key != nullptr; }))
        out.push_back({{"block_degree"}, "no family of the sweep has a free block degree (attention fixes it, a stack's layers set theirs)"});
    if (!any_family([](const FamilyInfo& i) { return i.fixed_block_degree == 0; }))
        out.push_back({{"budget"}, "the budget sets the depth of families with a free block degree only"});
    // With a budget, a family with a free block degree takes its depth from it: when every
    // sweep has one and no family of them fixes its block degree, no row read --depth.
    const bool budget_sets_every_depth = !sweeps.empty() && std::all_of(sweeps.begin(), sweeps.end(), [](const SweepOptions& s) {
        return s.budget > 0 && std::all_of(s.families.begin(), s.families.end(), [](Family f) { return family_info(f).fixed_block_degree == 0; });
    });
    if (budget_sets_every_depth) out.push_back({{"depth"}, "the budget sets every row's depth"});
    if (!any_family([](const FamilyInfo& i) { return i.per_position; })) out.push_back({{"position"}, "no family of the sweep has positions"});
    if (!any_family([](const FamilyInfo& i) { return i.layers; }))
        out.push_back({{"layers"}, "no family of the sweep is described by layers (stack)"});
    return out;
}

std::string row_store(const PlannedRow& row) {
    if (row.sweep.block_store.empty()) return "";
    std::string hints;  // a store written with other hints is refused (evaluation.hpp): another folder
    for (const long h : row.sweep.generic.block_hints) hints += " " + std::to_string(h);
    return row.sweep.block_store + "/" +
           detail::fnv1a_hex(row_key(row.spec, row.sweep) + "\n" + sweep_signature(row.sweep) + (hints.empty() ? "" : "\nhints" + hints));
}

bool remove_row_store(const PlannedRow& row) noexcept {
    try {
        const std::string dir = row_store(row);
        return dir.empty() || detail::remove_block_store(dir);
    } catch (...) {
        return false;
    }
}

bool remove_table_block_store(const std::string& folder) noexcept {
    try {
        return folder.empty() || detail::remove_block_store(folder);
    } catch (...) {
        return false;
    }
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
        remove_row_store(plan[k]);  // the row is out: its units are no longer needed
    }
}

}  // namespace seprank
