// seprank CLI — shared helpers (see cli.hpp).
#include "cli.hpp"

#include "seprank/answer.hpp"
#include "seprank/partition.hpp"

#include "seprank/record.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string_view>
#include <thread>
#include <utility>

namespace seprank_cli {

void add_network_options(CLI::App* app, NetOptions& o) {
    std::string families;
    for (const auto& name : seprank::family_names()) families += (families.empty() ? "" : "|") + name;
    app->add_option("--family", o.family, families + " (default attention; stack with --layers)");
    app->add_option("--tokens", o.tokens, "number of tokens N (default 4; power: 1, so that --dim is d0)");
    app->add_option("--dim", o.dim, "token dimension dx")->capture_default_str();
    app->add_option("--heads", o.heads, "attention heads H (must divide dx unless --head-dim)")->capture_default_str()->each([&o](const std::string&) {
        o.heads_given = true;
    });
    app->add_option("--head-dim", o.head_dim, "attention head dimension da; 0 (default): dx/H")->each([&o](const std::string&) {
        o.head_dim_given = true;
    });
    app->add_option("--depth", o.depth, "number of layers L (default 1; with --widths, its length); with --layers, the times the list is repeated; power: the length of --widths");
    app->add_option("--block-degree", o.block_degree, "block degree d (hadamard, fc; default 3)");
    app->add_option("--width", o.width, "hadamard width w; 0 (default): dx");
    // Read as one text and split by parse_list, which refuses an empty item ("2,,1", a
    // comma at either end): a list CLI11 splits drops them, changing the architecture.
    app->add_option_function<std::string>(
        "--widths", [&o](const std::string& text) { o.widths = seprank::parse_list(text, "--widths"); },
        "fc widths w_1..w_L (default N*dx each); power widths d1..dh, the last the output layer's (linear): 4,1 is one hidden layer of 4 units and one output");
    app->add_option("--power", o.power, "power: the activation t^r between layers (default 3)");
    std::string kinds;
    for (const auto& k : seprank::layer_kind_names()) kinds += (kinds.empty() ? "" : "|") + k;
    app->add_option("--layers", o.layers, "a stack: comma-separated layers kind[:key=value]... (" + kinds +
                                             "; docs/network.md), repeated --depth times");
    app->add_flag("--residual", o.residual, "residual connection y^{l+1} += y^l");
    app->add_flag("--free", o.free_slots, "hadamard: slots 2..d sum over independent tokens");
    app->add_option("--embed-rank", o.embed_rank, "embedding rank r: x^j = M w^j; 0 (default): no embedding");
    app->add_option("--attention-rank", o.attention_rank, "cap the rank of W^Q^T W^K at k; 0 (default): no cap");
    app->add_option("--position", o.position, "output position i (1-based)")->capture_default_str();
    app->add_option("--coordinate", o.coordinate, "output coordinate p (1-based)")->capture_default_str();
    app->add_option("--seed", o.seed, "seed of the random integer weights (0..2^64-1)")->check(seed_check())->capture_default_str();
    app->add_option("--weight-range", o.weight_range, "random weights are uniform integers in [-R, R]")->capture_default_str();
    app->add_option("--weights", o.weights_file, "exact weights: a JSON file in the weights format of docs/usage.md section 1.5; overrides the network options");
    app->add_option("--save-weights", o.save_weights, "write the weights used to this JSON file (docs/usage.md section 1.5); a regular file or a new name");
}

const std::vector<std::string>& network_option_names() {
    static const std::vector<std::string> names = {"--family", "--tokens", "--dim", "--heads", "--head-dim", "--depth",
                                                   "--block-degree", "--width", "--widths", "--residual", "--free", "--embed-rank",
                                                   "--attention-rank", "--position", "--coordinate", "--weight-range", "--power"};
    return names;
}

void check_network_options(const NetOptions& o) { check_network_options(o, o.weights_file.empty()); }

void check_network_options(const NetOptions& o, bool used) {
    if (used) {
        (void)to_spec(o);  // the network they describe, with every rule between them
    } else {
        // Ignored (the network comes from elsewhere): each value alone must be one the
        // option can take; how they combine is moot (--family power alone is fine).
        using seprank::kMaxBlockDegree, seprank::kMaxEmbedRank, seprank::kMaxSize;
        auto in = [](const char* name, long v, long lo, long hi) {
            if (v < lo || v > hi)
                throw seprank::invalid_input(std::string(name) + " " + std::to_string(v) + ": expected " + std::to_string(lo) + ".." +
                                             std::to_string(hi));
        };
        if (!o.family.empty()) (void)seprank::family_from_string(o.family);
        if (!o.layers.empty()) (void)seprank::parse_layers(o.layers);
        if (o.tokens) in("--tokens", *o.tokens, 1, kMaxSize);
        in("--dim", o.dim, 1, kMaxSize);
        in("--heads", o.heads, 1, kMaxSize);
        in("--head-dim", o.head_dim, 0, kMaxSize);
        if (o.depth) in("--depth", *o.depth, 0, seprank::kMaxDepth);
        if (o.block_degree) in("--block-degree", *o.block_degree, 1, kMaxBlockDegree);
        if (o.power) in("--power", *o.power, 1, kMaxBlockDegree);
        in("--width", o.width, 0, kMaxSize);
        for (long w : o.widths) in("--widths", w, 1, kMaxSize);
        in("--embed-rank", o.embed_rank, 0, kMaxEmbedRank);
        in("--attention-rank", o.attention_rank, 0, kMaxSize);
        in("--position", o.position, 1, kMaxSize);
        in("--coordinate", o.coordinate, 1, kMaxSize);
    }
    if (o.weight_range < 1) throw seprank::invalid_input("--weight-range " + std::to_string(o.weight_range) + ": the weight range must be at least 1");
}

void Notes::ignored(const CLI::App& sub, const std::vector<std::string>& names, const std::string& reason) {
    for (const auto& name : names) {
        const CLI::Option* opt = sub.get_option_no_throw(name);
        if (opt == nullptr || opt->count() == 0) continue;
        std::string given = name;
        if (opt->get_expected_min() != 0)
            for (const auto& v : opt->results()) given += " " + v;
        add(given + " is ignored: " + reason);
    }
}

void Notes::add(const std::string& text) {
    // control bytes as \xHH (a table cell quoted in a note is the user's file's, NUL bytes
    // and all) and at most 2 KiB, as an error's message; other bytes as given (a path's
    // bytes, which the JSON notes write as U+FFFD where they are no UTF-8)
    std::string line;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", u);
            line += hex;
        } else {
            line += c;
        }
    }
    line = seprank::detail::shortened(std::move(line));
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

void Notes::network(const CLI::App& sub, const seprank::NetworkSpec& s, const std::string& context) {
    for (const auto& u : seprank::unused_fields(s)) {
        if (u.field == "layers") {  // a layer's field: the reason names it ("layer 1's free is ignored: …")
            const CLI::Option* opt = sub.get_option_no_throw("--layers");
            if (opt != nullptr && opt->count() > 0) add("--layers: " + context + u.reason);
            continue;
        }
        std::string option = "--" + u.field;
        std::replace(option.begin(), option.end(), '_', '-');
        ignored(sub, {option}, context + u.reason);
    }
}

void Notes::emit(json* j) const {
    for (const auto& l : lines) std::cerr << "seprank: note: " << l << "\n";
    if (j != nullptr && !lines.empty()) (*j)["notes"] = lines;
}

namespace {

// --layers SPEC repeated --depth L times.
std::vector<seprank::LayerSpec> stack_layers(const NetOptions& o) {
    const std::vector<seprank::LayerSpec> one = seprank::parse_layers(o.layers);
    const long L = o.depth.value_or(1);
    if (L < 0) throw seprank::invalid_input("depth L = " + std::to_string(L) + " must not be negative");
    std::optional<std::vector<seprank::LayerSpec>> all = seprank::repeat_layers(one, L);
    if (!all)
        throw seprank::invalid_input("--depth " + std::to_string(L) + " repeats " + std::to_string(one.size()) + " layers: more than " +
                                     std::to_string(seprank::kMaxDepth) + " layers");
    return std::move(*all);
}

}  // namespace

std::string family_name(const NetOptions& o) { return !o.family.empty() ? o.family : !o.layers.empty() ? "stack" : "attention"; }

seprank::ValidSpec to_spec(const NetOptions& o) {
    seprank::NetworkSpec s;
    const bool stack = !o.layers.empty();
    // --layers describes a stack: with no --family it is one; a family given is validated
    // against it (a family other than stack refuses layers, attention too).
    s.family = seprank::family_from_string(family_name(o));
    const seprank::FamilyInfo& info = seprank::family_info(s.family);
    if (info.layers && !stack) throw seprank::invalid_input("family " + std::string(info.name) + " needs its layers: --layers SPEC");
    // Heads belong to attention: given to another family, even H = 1 (the default), refused
    // as the library refuses H > 1 (a stack's attention layers carry their own, checked there).
    if (info.layers && (o.heads_given || o.head_dim_given))  // as the library refuses H > 1 for a stack
        throw seprank::invalid_input(std::string(o.heads_given ? "--heads " + std::to_string(o.heads) : "--head-dim " + std::to_string(o.head_dim)) +
                                     ": heads, head dim and attention rank of a stack are per layer (attention:heads=H:head-dim=da:rank=k)");
    if (!info.heads && !info.layers && (o.heads_given || o.head_dim_given))
        throw seprank::invalid_input(std::string(o.heads_given ? "--heads: heads H = " + std::to_string(o.heads) : "--head-dim: head dim da = " + std::to_string(o.head_dim)) +
                                     " given to " + info.name + ": heads apply to attention only");
    s.tokens = o.tokens.value_or(info.default_tokens);
    s.dim = o.dim;
    s.heads = o.heads;
    s.head_dim = o.head_dim;
    // --widths without --depth: one layer a width (power, where L is the list's length; fc,
    // whose --depth must agree with it, so that giving both is not needed)
    s.depth = o.depth.value_or((info.depth_from_widths || info.widths) && !o.widths.empty() ? static_cast<long>(o.widths.size()) : 1L);
    if (stack) {
        s.layers = stack_layers(o);
        s.depth = static_cast<long>(s.layers.size());
    }
    s.block_degree = seprank::resolve_block_degree(info, stack, o.block_degree ? &*o.block_degree : nullptr, o.power ? &*o.power : nullptr, 3,
                                                   seprank::kCliDegreeSpelling);
    s.width = o.width;
    s.widths = o.widths;
    s.residual = o.residual;
    s.free_slots = o.free_slots;
    s.embed_rank = o.embed_rank;
    s.attention_rank = o.attention_rank;
    s.position = o.position;
    s.coordinate = o.coordinate;
    return seprank::ValidSpec(std::move(s));  // validates
}

seprank::Network read_weights(const NetOptions& o) {
    seprank::Network net = seprank::read_network(o.weights_file);
    if (!o.layers.empty()) {
        const std::string given = seprank::layers_to_string(stack_layers(o));
        const std::string file = seprank::family_info(net.spec.family).layers ? seprank::layers_to_string(net.spec.layers)
                                                                               : "none (family " + seprank::to_string(net.spec.family) + ")";
        if (given != file)
            throw seprank::invalid_input("--layers '" + o.layers + "' contradicts the layers of the weights file " + o.weights_file + ": " + file +
                                         (given != o.layers ? " (--layers reads as " + given + ")" : std::string()));
    }
    return net;
}

seprank::Network build_network(const NetOptions& o) {
    return o.weights_file.empty() ? seprank::random_network(to_spec(o), o.seed, o.weight_range) : read_weights(o);
}

void save_weights(const NetOptions& o, const seprank::Network& net) {
    if (!o.save_weights.empty()) seprank::write_network(net, o.save_weights);
}

seprank::Network make_network(const NetOptions& o) {
    seprank::Network net = build_network(o);
    save_weights(o, net);
    return net;
}

json to_nl(const seprank::Record& r) { return json::parse(seprank::to_json(r)); }

json spec_json(const seprank::ValidSpec& s) {
    seprank::RowSource src;
    src.spec = &s;
    return to_nl(seprank::make_record(src, seprank::spec_columns()));
}

std::string cli_names(std::string msg) {
    // the library's names of options, as its messages cite them → the command line's
    static const std::pair<const char*, const char*> names[] = {
        {"(Method::evaluation)", "(--method evaluation)"},
        {"SpectrumOptions::method", "--method"},
        {"SpectrumOptions::precision", "--precision"},
        {"SpectrumOptions::eps", "--eps"},
        {"ExpandOptions::max_memory", "--max-memory"},
        {"base.family ", "--family "},
        {"base.tokens", "--tokens"},
        {"give the head dim explicitly", "give --head-dim"},
    };
    for (const auto& [from, to] : names)
        for (std::size_t at = 0; (at = msg.find(from, at)) != std::string::npos; at += std::string(to).size())
            msg.replace(at, std::string(from).size(), to);
    return msg;
}

CLI::Validator one_of(std::vector<std::string> names) {
    std::string braced = "{", listed;
    for (const auto& n : names) {
        braced += (braced.size() > 1 ? "," : "") + n;
        listed += (listed.empty() ? "" : ", ") + n;
    }
    braced += "}";
    return CLI::Validator(
        [names = std::move(names), listed](std::string& v) -> std::string {
            if (std::find(names.begin(), names.end(), v) != names.end()) return "";
            return "'" + v + "' is not one of " + listed;
        },
        braced);
}

CLI::Option* add_device_option(CLI::App* sub, std::string& device) {
    return sub->add_option("--device", device, "auto|cpu|cuda: where the evaluations and eliminations run (docs/gpu.md); cuda where there is no GPU: exit 2, auto: the CPU then, with a note")
        ->check(one_of({"auto", "cpu", "cuda"}))
        ->capture_default_str();
}

seprank::Device device_of(const std::string& device) { return seprank::device_from_string(device); }

// Prints one record as text (aligned "key  value" lines), JSON, or CSV (header + row).
void print_record(const json& rec, const std::string& format, const std::vector<std::string>& given) {
    // An answer computed off the CPU names its device in text and CSV too (before its
    // timing); JSON always carries every field.
    std::vector<std::string> order = given;
    if (rec.contains("device") && rec.at("device").is_string() && rec.at("device").get<std::string>() != "cpu" &&
        std::find(order.begin(), order.end(), "device") == order.end()) {
        auto at = std::find(order.begin(), order.end(), "seconds");
        if (at == order.end()) at = std::find(order.begin(), order.end(), "note");
        order.insert(at, "device");
    }
    if (format == "json") {
        std::cout << json_text(rec, 2) << "\n";
        return;
    }
    auto cell = [&](const std::string& k) {
        const json& v = rec.at(k);
        return v.is_null() ? std::string() : v.is_string() ? v.get<std::string>() : json_text(v);
    };
    if (format == "csv") {
        std::cout << seprank::csv_line(order) << "\n";
        std::vector<std::string> cells;
        for (const auto& k : order) cells.push_back(cell(k));
        std::cout << seprank::csv_line(cells) << "\n";
        return;
    }
    for (const auto& k : order) {
        std::cout << k << std::string(k.size() < 18 ? 18 - k.size() : 1, ' ');
        const json& v = rec.at(k);
        if (v.is_string()) std::cout << v.get_ref<const std::string&>();  // not copied: a polynomial's text can be most of the memory
        else if (v.is_null()) std::cout << "-";  // not computed, as the tables' missing cells (usage.md)
        else std::cout << cell(k);
        std::cout << "\n";
    }
}

void print_network_record(const seprank::ValidSpec& spec, const seprank::Record& rec, Notes& notes, const std::string& format) {
    json j = spec_json(spec);
    j["network"] = describe(spec);
    const json r = json::parse(seprank::to_json(rec));
    std::vector<std::string> keys;
    for (const auto& cell : rec) {
        j[cell.first] = r.at(cell.first);
        keys.push_back(cell.first);
    }
    notes.emit(format == "json" ? &j : nullptr);
    if (format == "text") std::cout << "# " << describe(spec) << "\n";
    print_record(j, format, keys);
}

void print_table(const std::vector<json>& rows, const std::string& format, const std::vector<std::string>& order, const std::string& missing) {
    if (format == "json") {
        std::cout << json_text(json(rows), 2) << "\n";
        return;
    }
    auto cell = [](const json& v) { return v.is_null() ? std::string() : v.is_string() ? v.get<std::string>() : json_text(v); };
    if (format == "csv") {
        std::cout << seprank::csv_line(order) << "\n";
        for (const auto& r : rows) {
            std::vector<std::string> cells;
            for (const auto& k : order) cells.push_back(cell(r.at(k)));
            std::cout << seprank::csv_line(cells) << "\n";
        }
        return;
    }
    const auto text = [&](const json& v) { return v.is_null() ? missing : cell(v); };
    std::vector<std::size_t> w(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        w[i] = order[i].size();
        for (const auto& r : rows) w[i] = std::max(w[i], text(r.at(order[i])).size());
    }
    for (std::size_t i = 0; i < order.size(); ++i) std::cout << (i ? "  " : "") << std::string(w[i] - order[i].size(), ' ') << order[i];
    std::cout << "\n";
    for (const auto& r : rows) {
        for (std::size_t i = 0; i < order.size(); ++i) {
            const std::string c = text(r.at(order[i]));
            std::cout << (i ? "  " : "") << std::string(w[i] - c.size(), ' ') << c;
        }
        std::cout << "\n";
    }
}

void check_given_options(const CLI::App& app, const CLI::App& sub) {
    for (const CLI::App* a : {&app, &sub})
        for (const CLI::Option* opt : a->get_options()) {
            if (opt->count() == 0) continue;
            if (opt->get_expected_min() == 0) {  // a flag: given bare, or with a truth value of its own
                for (const auto& given : opt->results()) {
                    std::string v = given;  // TRUE, True: as the parser reads them
                    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                    if (v != "true" && v != "false" && v != "1" && v != "0" && v != "on" && v != "off" && v != "yes" && v != "no")
                        throw seprank::invalid_input(opt->get_name() + "=" + given + ": a flag takes no value (or one of true, false, 1, 0, on, off, yes, no)");
                }
                continue;
            }
            // A list whose help says "empty: none" (guess --bases) takes "" as the empty list.
            const bool empty_ok = opt->get_description().find("empty: none") != std::string::npos;
            const std::string type = opt->get_type_name();
            const bool is_int = type.rfind("INT", 0) == 0, is_uint = type.rfind("UINT", 0) == 0;
            for (const auto& v : opt->results()) {
                if (v.empty() && empty_ok) continue;
                if (v.empty())
                    throw seprank::invalid_input(opt->get_name() + ": empty value" +
                                                 (opt->get_description().empty() ? std::string() : " (" + opt->get_name() + ": " + opt->get_description() + ")"));
                // The parser clamps an integer beyond its type to the type's end: a value
                // that is out of range is bad input (exit 2), never a clamped number.
                if (is_int || is_uint) check_integer_range(opt->get_name(), v, is_uint);
            }
        }
}

void check_integer_range(const std::string& name, const std::string& text, bool is_unsigned) {
    std::string_view t(text);
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    const std::string_view digits = !t.empty() && t.front() == '-' ? t.substr(1) : t;
    // The parser also reads 0x.., 0o.., 0b..: integers here are decimal, one way to write each.
    // A leading zero (010) is octal to the parser: refused too.
    if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        (digits.size() > 1 && digits[0] == '0'))
        throw seprank::invalid_input(name + " '" + text + "': expected a decimal integer (no leading zero)");
    bool ok = false;
    if (is_unsigned) {
        std::uint64_t u = 0;
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), u);
        ok = ec == std::errc() && p == t.data() + t.size();
    } else {
        std::int64_t i = 0;
        const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), i);
        ok = ec == std::errc() && p == t.data() + t.size();
    }
    if (ok) return;
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "… (" + std::to_string(text.size()) + " digits)" : text;
    throw seprank::invalid_input(name + " " + shown + ": out of range (an integer in " +
                                 (is_unsigned ? std::string("0..18446744073709551615") : std::string("-9223372036854775808..9223372036854775807")) + ")");
}

void check_ignored_partition(const std::string& text) {
    long n = 0, v = 0;  // the largest position named (digits capped: a huge one is refused below)
    for (char ch : text) {
        v = std::isdigit(static_cast<unsigned char>(ch)) ? std::min(v * 10 + (ch - '0'), 1L << 40) : 0;
        n = std::max(n, v);
    }
    (void)seprank::parse_partition(text, std::max(2L, std::min(n, 1L << 20)));
}

std::unique_ptr<seprank::ProgressMeter> make_progress(const Globals& g) {
    const auto style = g.quiet                     ? seprank::ProgressStyle::quiet
                       : isatty(STDERR_FILENO) != 0 ? seprank::ProgressStyle::bar
                                                    : seprank::ProgressStyle::lines;
    // SEPRANK_PROGRESS_DELAY (seconds, default 1): the quiet start; tests set 0.
    double delay = 1.0;
    if (const char* d = std::getenv("SEPRANK_PROGRESS_DELAY")) {
        char* end = nullptr;
        const double v = std::strtod(d, &end);
        if (end != d && *end == '\0' && v >= 0 && std::isfinite(v)) delay = v;
    }
    return std::make_unique<seprank::ProgressMeter>(style, [](const std::string& text) { std::cerr << text << std::flush; }, delay, 5.0,
                                                    std::function<double()>{}, true);
}

void check_stdout() {
    errno = 0;
    std::cout.flush();
    const bool bad = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (bad) {
        const int e = errno;
        std::cout.clear();
        throw seprank::resource_limit(std::string("writing standard output failed") + (e ? std::string(": ") + std::strerror(e) : std::string()) +
                                      " (a full disk or a closed pipe); the output is incomplete");
    }
}

const CLI::Validator& seed_check() {
    static const CLI::Validator v(
        [](std::string& text) {
            std::uint64_t value = 0;
            const char* b = text.data();
            const char* e = b + text.size();
            const auto [p, ec] = std::from_chars(b, e, value);
            if (text.empty() || ec != std::errc() || p != e) return "'" + text + "' is not an integer in 0..18446744073709551615";
            return std::string();
        },
        "0..2^64-1", "seed");
    return v;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<double> parse_eps(const std::string& text) {
    std::vector<double> out;
    if (text.empty()) return out;
    seprank::for_each_item(text, "--eps", [&](const std::string& item) {  // an empty item refused, as in every list
        // Decimal only (no hex, inf or nan); strtod reads a value below the smallest normal
        // double (1e-320) as its nearest double, where std::stod threw.
        char* end = nullptr;
        const double v = item.find_first_not_of("0123456789.eE+-") == std::string::npos ? std::strtod(item.c_str(), &end) : -1.0;
        if (end != item.c_str() + item.size() || !(v >= 0) || !std::isfinite(v))
            throw seprank::invalid_input("--eps '" + item + "': expected a finite number >= 0");
        out.push_back(v);
    });
    return out;
}

std::string typed_number(const CLI::App& sub, const std::string& option, double v) {
    const CLI::Option* o = sub.get_option_no_throw(option);
    return o && o->count() > 0 && !o->results().empty() ? o->results().back() : number_text(v);
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace seprank_cli
