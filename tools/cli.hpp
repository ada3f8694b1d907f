// seprank CLI — shared pieces of the subcommands: network options, formatting helpers,
// and the small Command contract each tools/cmd_<name>.cpp implements. The front end
// only parses, calls one library function, and formats; no algorithm lives here.
#pragma once

#include "seprank/degree.hpp"
#include "seprank/error.hpp"
#include "seprank/expand.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix_io.hpp"
#include "seprank/plot.hpp"
#include "seprank/flatten.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/progress.hpp"
#include "seprank/columns.hpp"
#include "seprank/separation.hpp"
#include "seprank/table.hpp"
#include "seprank/table_blocks.hpp"
#ifdef SEPRANK_HAVE_MPI
#include "table_mpi.hpp"
#endif

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <flint/flint.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>


namespace seprank_cli {

using nlohmann::json;

// j as JSON text; a string that is not valid UTF-8 (a path given on the command line, in a
// note) gets U+FFFD for each bad byte instead of nlohmann's type_error (exit 1).
inline std::string json_text(const json& j, int indent = -1) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

struct NetOptions {
    std::string family;  // as given; empty: not given (family_name says which)
    std::optional<long> tokens, depth;  // defaults: the family's default_tokens; 1 (power: the widths)
    long dim = 2, heads = 1, head_dim = 0, width = 0;
    bool heads_given = false, head_dim_given = false;  // --heads, --head-dim on the command line (H = 1 too)
    std::optional<long> block_degree, power;
    std::string layers;  // --layers SPEC (a stack)
    std::vector<long> widths;
    bool residual = false, free_slots = false;
    long embed_rank = 0, attention_rank = 0, position = 1, coordinate = 1;
    std::uint64_t seed = 1;
    long weight_range = seprank::kDefaultWeightRange;
    std::string weights_file, save_weights;
};

struct Globals {
    int threads = 2;
    double max_memory_gib = 0;  // 0: not given (seprank::default_max_memory())
    double max_time_s = 0;      // 0: not given (seprank::default_max_seconds())
    bool quiet = false;         // --quiet: no progress on stderr (docs/progress.md)
};

// The progress meter of a long command (docs/progress.md): a bar when stderr is a
// terminal, one line every 5 s otherwise, nothing with --quiet; text goes to stderr.
// Nothing shows during the first second. Call finish() before printing the answer.
std::unique_ptr<seprank::ProgressMeter> make_progress(const Globals& g);
// fn() with the command's progress meter installed for this thread (ProgressScope); the
// meter is finished (a bar cleared) before fn's value is returned, so the answer can be
// printed next.
template <class F>
auto with_progress(const Globals& g, F&& fn) -> decltype(fn()) {
    const auto meter = make_progress(g);
    std::optional<decltype(fn())> out;
    {
        const seprank::ProgressScope scope(meter->observer());
        out.emplace(fn());
    }
    meter->finish();
    return std::move(*out);
}

// A --partition that the chosen input ignores, still checked (refused if invalid): as a
// partition of 1..n for the largest position n it names. invalid_input as parse_partition.
void check_ignored_partition(const std::string& text);

// The largest --threads accepted: the library's max_threads() (limits.hpp).
using seprank::max_threads;
// After parsing: every option given to the chosen subcommand with an empty text value
// ("--poly ''", "--out ''") is bad input; so is a global value out of range.
// An integer option beyond its type (`--trials 99999999999999999999`) is bad input too:
// the parser would clamp it.
void check_given_options(const CLI::App& app, const CLI::App& sub);
// Throws invalid_input naming the option when `text`, an integer in decimal, does not fit
// int64 (or uint64 when is_unsigned); other text is left to the parser.
void check_integer_range(const std::string& name, const std::string& text, bool is_unsigned);
// Flushes standard output and throws resource_limit when any write to it failed (a
// full disk, a closed pipe): a failed write never exits 0.
void check_stdout();

// One subcommand: add() registers its options on the app (into its own members),
// run() executes it after parsing. `sub` is the parsed-or-not CLI11 subcommand.
struct Command {
    CLI::App* sub = nullptr;
    virtual ~Command() = default;
    virtual void add(CLI::App& app) = 0;
    virtual int run(const Globals& g) = 0;
};

std::unique_ptr<Command> make_poly_command();
std::unique_ptr<Command> make_expand_command();
std::unique_ptr<Command> make_degree_command();
std::unique_ptr<Command> make_rank_command();
std::unique_ptr<Command> make_generic_command();
std::unique_ptr<Command> make_table_command();
std::unique_ptr<Command> make_plot_command();
std::unique_ptr<Command> make_verify_command();
std::unique_ptr<Command> make_spectrum_command();
std::unique_ptr<Command> make_guess_command();
std::unique_ptr<Command> make_dimension_command();
std::unique_ptr<Command> make_variety_command();
std::unique_ptr<Command> make_equation_command();
std::unique_ptr<Command> make_defects_command();

void add_network_options(CLI::App* app, NetOptions& o);
// The names of the options add_network_options registers that describe the network
// (not --seed, --weights, --save-weights): those a --weights file overrides. --layers is
// not among them: with --weights it is compared with the file's layers (read_weights).
const std::vector<std::string>& network_option_names();
// Checks the values of the network options whether or not they are used (invalid_input
// naming the first bad one), and weight range >= 1. Used (`used`): the network they
// describe, to_spec(o), with every rule between them. Ignored (--weights, --poly,
// --matrix): each value alone in its option's range, the family and layers parsed — how
// they combine is moot, so `--weights F --family power` passes without --widths.
// The one-argument form: used unless a weights file is given.
void check_network_options(const NetOptions& o, bool used);
void check_network_options(const NetOptions& o);

// Options given on the command line that the chosen method ignores. The front end makes
// these notes, not the library: only it knows which options were given rather than
// left at their defaults. Each is one line on stderr and, in JSON output, an entry of
// the record's "notes" list (present only when there is a note).
struct Notes {
    std::vector<std::string> lines;
    // For each of `names` given to `sub`: "--name VALUE is ignored: REASON".
    void ignored(const CLI::App& sub, const std::vector<std::string>& names, const std::string& reason);
    // For each field of s its network never reads (seprank::unused_fields) whose option
    // (--FIELD, '_' written '-') was given to `sub`: "--FIELD VALUE is ignored: REASON", the
    // reason after `context` (degree --budget's "at d = 1, ").
    void network(const CLI::App& sub, const seprank::NetworkSpec& s, const std::string& context = "");
    // Adds `line` unless it is there already: its control bytes as \xHH, at most about 2 KiB
    // (detail::shortened), other bytes as given (the JSON notes write U+FFFD for no UTF-8).
    void add(const std::string& line);
    // Prints each line on stderr ("seprank: note: ..."); sets (*j)["notes"] when j and any line.
    void emit(json* j) const;
    // v with each value once, in its first place; a note "OPTION TEXT lists a value twice:
    // each runs once" when any was repeated (as table's duplicate configurations).
    template <class T>
    std::vector<T> once(const std::vector<T>& v, const std::string& option, const std::string& text) {
        std::vector<T> out;
        for (const T& x : v)
            if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
        if (out.size() != v.size()) add(option + " " + text + " lists a value more than once: each runs once");
        return out;
    }
};
// The network options as a spec, validated here (invalid_input naming the bad value).
// The family o names: --family as given, else stack when --layers is given, else attention.
std::string family_name(const NetOptions& o);
seprank::ValidSpec to_spec(const NetOptions& o);
// The network o describes: drawn, or read from --weights; nothing written.
seprank::Network build_network(const NetOptions& o);
// Writes net to --save-weights when given (atomically, network.hpp).
void save_weights(const NetOptions& o, const seprank::Network& net);
// build_network, then save_weights at once (commands whose later failures keep the file).
seprank::Network make_network(const NetOptions& o);
// A library message with the C++ names of options it cites (Method::evaluation,
// SpectrumOptions::eps, base.family, …) replaced by the command line's (--method
// evaluation, --eps, --family, …): every message the CLI prints passes through it. O(length).
std::string cli_names(std::string msg);
// fn(); an expansion refused by its size estimate (a resource_limit whose message starts
// "expansion refused") is rethrown with the library's names as the command line's, and
// with its ways out appended, " [here: FLAGS]", unless the message names each already
// (FLAGS: comma-separated, "--max-memory, or --method evaluation").
template <class F>
auto with_expansion_flags(const std::string& flags, F&& fn) -> decltype(fn()) {
    try {
        return fn();
    } catch (const seprank::resource_limit& e) {
        if (std::string(e.what()).rfind("expansion refused", 0) != 0) throw;
        const std::string msg = cli_names(e.what());
        bool named = true;
        for (std::string flag : seprank::split_at(flags, ',')) {
            flag.erase(0, flag.find_first_not_of(' '));
            if (flag.rfind("or ", 0) == 0) flag.erase(0, 3);  // "or rank --method evaluation": the words after "or"
            if (!flag.empty() && msg.find(flag) == std::string::npos) named = false;
        }
        throw seprank::resource_limit(named ? msg : msg + " [here: " + flags + "]");
    }
}
// The network of o.weights_file; with --layers too, the file's layers must be those SPEC
// describes (invalid_input naming both otherwise).
seprank::Network read_weights(const NetOptions& o);
using seprank::describe;
// A library record as a JSON object (keys sorted, as nlohmann::json keeps them).
json to_nl(const seprank::Record& r);
// The configuration columns of a network (seprank::spec_columns()) as JSON.
json spec_json(const seprank::ValidSpec& s);
// --device auto|cpu|cuda (docs/gpu.md) on `sub`, into `device` (default cpu).
CLI::Option* add_device_option(CLI::App* sub, std::string& device);
// A check that the value is one of `names` (help shows {a,b,...}, as CLI::IsMember's);
// a bad value reads "--opt: 'VALUE' is not one of a, b, ..." (the empty value quoted).
CLI::Validator one_of(std::vector<std::string> names);
// The text of --device as the library's value (validated by one_of already).
seprank::Device device_of(const std::string& device);

// One record as JSON (all fields) or, as aligned "key  value" lines (text) and as CSV
// header + row, the fields of `order`, with `device` added
// before `seconds` when the record was computed off the CPU.
void print_record(const json& rec, const std::string& format, const std::vector<std::string>& order);
// A network's library record as `variety` and `equation` print it: in JSON with the
// network's configuration columns and "network" (and the notes, emitted first), in text
// after a "# network" line, the record's fields in its order (print_record).
void print_network_record(const seprank::ValidSpec& spec, const seprank::Record& rec, Notes& notes, const std::string& format);
// Rows as an aligned table (text), JSON array, or CSV. A null cell is null in JSON, empty
// in CSV and `missing` in text.
void print_table(const std::vector<json>& rows, const std::string& format, const std::vector<std::string>& order,
                 const std::string& missing = "");
double seconds_since(std::chrono::steady_clock::time_point t0);
// --seed S: the digits of an integer in 0..2^64-1, checked on the text (CLI11 would clamp
// a larger value to 2^64-1 and print a double range for a negative one).
const CLI::Validator& seed_check();
// --eps E[,E...]: finite numbers >= 0 (empty text: none); invalid_input otherwise.
std::vector<double> parse_eps(const std::string& text);

// A number of a message in its short form (%g: "-1", "0.5", "1e-05", "nan"), where
// std::to_string writes "-1.000000". O(1).
std::string number_text(double v);
// An option's value as typed on the command line (1e-400, where the double holds 0), or
// number_text(v) when the option was not given. O(1).
std::string typed_number(const CLI::App& sub, const std::string& option, double v);
// An exact integer in JSON: a number when it fits in 64 bits, its digits as text beyond.
inline json exact(const seprank::Integer& v) {
    if (fmpz_fits_si(v.get())) return json(static_cast<long>(fmpz_get_si(v.get())));
    return json(v.str());
}

}  // namespace seprank_cli
