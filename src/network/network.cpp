// seprank — networks: families and layer kinds by name, layer SPECs, sizes and degrees, the
// spec's checks, random weights and the weights' shapes (network.hpp; docs/network.md).
#include "seprank/network.hpp"

#include "families.hpp"
#include "network_internal.hpp"
#include "seprank/columns.hpp"
#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/model.hpp"
#include "seprank/partition.hpp"
#include "seprank/random.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <optional>
#include <type_traits>
#include <utility>

namespace seprank {

using detail::with_family;
using namespace network_detail;

long resolve_block_degree(const FamilyInfo& info, bool stack, const long* block_degree, const long* power, long fallback,
                          const DegreeSpelling& sp) {
    const std::string block = block_degree ? std::string(sp.block) + " " + std::to_string(*block_degree) : "";
    if (stack && block_degree)
        throw invalid_input(block + " applies to hadamard and fc; a stack's layers set their degrees (hadamard:degree=d, mlp:power=r, "
                                    "attention:score-degree=s)");
    const bool own = own_degree_key(info);
    if (power) {
        const std::string given = std::string(sp.power) + " " + std::to_string(*power);
        if (!own)
            throw invalid_input(given + " applies to family power, not " + info.name + " (hadamard and fc take " + sp.block + ")");
        if (block_degree && *block_degree != *power) throw invalid_input(given + " and " + block + " both given, differently: give one");
        return *power;
    }
    if (own && block_degree)  // another family's option (docs/usage.md §1.4), not an alias
        throw invalid_input(block + " applies to hadamard and fc; a power network's degree is " + sp.power_form);
    return block_degree ? *block_degree : fallback;
}

const FamilyInfo& family_info(Family f) {
    return with_family(f, [](auto fam) -> const FamilyInfo& { return decltype(fam)::info; });
}

std::vector<UnusedField> unused_fields(const NetworkSpec& s) {
    return with_family(s.family, [&](auto fam) -> std::vector<UnusedField> {
        if constexpr (requires { decltype(fam)::unused(s); })
            return decltype(fam)::unused(s);
        else
            return {};
    });
}

const std::vector<Family>& all_families() {
    static const std::vector<Family> families = [] {
        std::vector<Family> out;
        for (int k = 0; detail::is_family(static_cast<Family>(k)); ++k) out.push_back(static_cast<Family>(k));
        return out;
    }();
    return families;
}

std::vector<std::string> family_names() {
    std::vector<std::string> names;
    for (Family f : all_families()) names.emplace_back(family_info(f).name);
    return names;
}

std::string to_string(Family f) {
    if (!detail::is_family(f)) throw internal_error("to_string(Family): unknown value " + std::to_string(static_cast<int>(f)));
    return family_info(f).name;
}

Family family_from_string(const std::string& s) {
    for (Family f : all_families())
        if (s == family_info(f).name) return f;
    const auto names = family_names();
    std::string expected;
    for (std::size_t k = 0; k < names.size(); ++k)
        expected += (k == 0 ? "" : k + 1 == names.size() ? " or " : ", ") + names[k];
    throw invalid_input("unknown family '" + detail::cut(s) + "' (expected " + expected + ")");
}

using detail::require;
using detail::str;

// ---------------------------------------------------------------- layer SPEC

std::vector<std::string> layer_kind_names() {
    std::vector<std::string> names;
    detail::for_each_kind([&](auto kind, auto) { names.emplace_back(kind.name); });
    return names;
}

namespace {

// A piece of a layer's text for a message: at most 60 characters (a SPEC of 100 KB was
// echoed whole, twice).
std::string excerpt(const std::string& t) { return t.size() <= 60 ? t : t.substr(0, 57) + "..."; }

// One layer: "kind[:key=value]...[:flag]". A value is a decimal integer without leading
// zeros (as every integer option), at least 1 ("rank" at least 0: no cap); a flag has no
// value; a key given twice is refused.
LayerSpec parse_layer(const std::string& full) {
    const std::vector<std::string> parts = split_at(full, ':');
    const std::string text = excerpt(full);
    std::optional<LayerSpec> out;
    detail::for_each_kind([&](auto kind, auto sp) {
        if (out || parts[0] != kind.name) return;
        std::vector<std::string> seen;
        for (std::size_t k = 1; k < parts.size(); ++k) {
            const std::string& item = parts[k];
            const std::size_t eq = item.find('=');
            const std::string key = item.substr(0, eq);
            if (std::find(seen.begin(), seen.end(), key) != seen.end())
                throw invalid_input("layer '" + text + "': " + excerpt(key) + " is given twice");
            seen.push_back(key);
            bool known = false;
            kind.keys(sp, [&](const char* name, auto& field) {
                if (key != name) return;
                known = true;
                using T = std::decay_t<decltype(field)>;
                if constexpr (std::is_same_v<T, bool>) {
                    if (eq != std::string::npos)
                        throw invalid_input("layer '" + text + "': " + key + " is a flag and takes no value (write :" + key + ")");
                    field = true;
                } else {
                    const std::string value = eq == std::string::npos ? std::string() : item.substr(eq + 1);
                    long v = 0;
                    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
                    const long lo = key == "rank" ? 0 : 1;
                    if (value.empty() || ec != std::errc() || end != value.data() + value.size() || v < lo || (value.size() > 1 && value[0] == '0'))
                        throw invalid_input("layer '" + text + "': " + key + " = '" + excerpt(value) + "' is not an integer >= " + std::to_string(lo) +
                                            (value.size() > 1 && value[0] == '0' && ec == std::errc() ? " written without leading zeros" : ""));
                    field = v;
                }
            });
            if (!known) {
                std::string keys;
                kind.keys(sp, [&](const char* name, auto&) { keys += (keys.empty() ? "" : ", ") + std::string(name); });
                throw invalid_input("layer '" + text + "': unknown key '" + excerpt(key) + "' for " + kind.name + " (expected " + keys + ")");
            }
        }
        out = LayerSpec(sp);
    });
    if (!out)
        throw invalid_input("unknown layer kind '" + excerpt(parts[0]) + "' in '" + text + "' (expected " + detail::Stack::kind_list() + ")" +
                            (text.find(';') != std::string::npos ? "; ',' joins the layers of one stack, ';' separates stacks only in table --layers"
                                                                 : ""));
    return *out;
}

}  // namespace

std::vector<LayerSpec> parse_layers(const std::string& spec) {
    if (spec.empty()) throw invalid_input("layers: empty SPEC (expected kind[:key=value]..., comma-separated)");
    std::vector<LayerSpec> out;
    for (const std::string& item : split_at(spec, ',')) {
        if (item.empty()) throw invalid_input("layers '" + spec + "': an empty layer between commas");
        out.push_back(parse_layer(item));
    }
    // Each layer's own ranges, those that need no size (dx 0: unknown), so that a SPEC an
    // option ignores is refused when invalid (the network's validate checks the rest).
    NetworkSpec sizeless;
    sizeless.dim = 0;
    for (std::size_t l = 0; l < out.size(); ++l)
        detail::with_kind(out[l], [&](auto kind, const auto& sp) { kind.validate(sp, sizeless, static_cast<long>(l)); });
    return out;
}

std::string to_string(const LayerSpec& layer) {
    return detail::with_kind(layer, [](auto kind, auto sp) {
        std::string out = kind.name;
        const decltype(sp) def{};
        auto d = def;
        std::vector<std::string> defaults;
        kind.keys(d, [&](const char*, auto& field) {
            if constexpr (std::is_same_v<std::decay_t<decltype(field)>, bool>) defaults.push_back(field ? "1" : "0");
            else defaults.push_back(std::to_string(field));
        });
        std::size_t k = 0;
        kind.keys(sp, [&](const char* name, auto& field) {
            using T = std::decay_t<decltype(field)>;
            const std::string v = std::is_same_v<T, bool> ? (field ? "1" : "0") : std::to_string(field);
            if (v != defaults[k++]) {
                if constexpr (std::is_same_v<T, bool>) out += std::string(":") + name;
                else out += std::string(":") + name + "=" + v;
            }
        });
        return out;
    });
}

std::string layers_to_string(const std::vector<LayerSpec>& layers) {
    std::string out;
    for (const auto& l : layers) out += (out.empty() ? "" : ",") + to_string(l);
    return out;
}

std::optional<std::vector<LayerSpec>> repeat_layers(const std::vector<LayerSpec>& unit, long copies) {
    if (copies < 0 || (!unit.empty() && copies > kMaxDepth / static_cast<long>(unit.size()))) return std::nullopt;
    if (unit.empty()) return std::vector<LayerSpec>{};  // any number of copies of nothing
    std::vector<LayerSpec> out;
    out.reserve(unit.size() * static_cast<std::size_t>(copies));
    for (long c = 0; c < copies; ++c) out.insert(out.end(), unit.begin(), unit.end());
    return out;
}

std::vector<LayerSpec> layers_period(const std::vector<LayerSpec>& layers) {
    const std::size_t n = layers.size();
    for (std::size_t p = 1; p < n; ++p) {
        if (n % p != 0) continue;
        bool repeats = true;
        for (std::size_t k = p; k < n && repeats; ++k) repeats = layers[k] == layers[k - p];
        if (repeats) return std::vector<LayerSpec>(layers.begin(), layers.begin() + static_cast<std::ptrdiff_t>(p));
    }
    return layers;
}

LayerSpec detail::family_layer(const NetworkSpec& s, long l) {
    return with_family(s.family, [&](auto fam) -> LayerSpec { return fam.layer(s, l); });
}

detail::Shape detail::family_input(const NetworkSpec& s) {
    const bool flat = with_family(s.family, [](auto fam) { return detail::has_flat_input<decltype(fam)>; });
    return flat ? Shape{1, s.tokens * s.dim} : Shape{s.tokens, s.dim};
}

std::vector<LayerSpec> stack_layers(const NetworkSpec& s) {
    std::vector<LayerSpec> out;
    for (long l = 0; l < s.depth; ++l) out.push_back(detail::family_layer(s, l));  // each list entry checked
    return out;
}

NetworkSpec family_form(const NetworkSpec& s) {
    if (!family_info(s.family).layers || s.layers.empty()) return s;
    NetworkSpec t;  // the fields a stack does not use at their defaults; the layers' kinds fill theirs
    t.tokens = s.tokens;
    t.dim = s.dim;
    t.depth = s.depth;
    t.embed_rank = s.embed_rank;
    t.position = s.position;
    t.coordinate = s.coordinate;
    for (long l = 0; l < s.depth; ++l) {
        const Family before = t.family;
        const bool block = detail::with_kind(s.layers[static_cast<std::size_t>(l)],
                                             [&](auto kind, const auto& sp) { return kind.as_family(sp, t, l, s.depth); });
        if (!block || (l > 0 && t.family != before)) return s;
    }
    if (std::all_of(t.widths.begin(), t.widths.end(), [](long w) { return w == 0; })) t.widths.clear();  // fc's default
    // The family spec valid, and its own layers these (every layer the same block, a power
    // network's last one linear). Validated first: a power network needs its widths, and
    // dense layers at their default width left none (dense:power=2,dense:power=1 was
    // refused by generic, dimension, ... with 'widths has 0 entries', the stack's own
    // spec valid; a bad-input sweep).
    try {
        validate(t);
        if (layers_to_string(stack_layers(t)) != layers_to_string(s.layers)) return s;
    } catch (const invalid_input&) {
        return s;
    } catch (const resource_limit&) {
        return s;
    }
    return t;
}

long head_dim(const NetworkSpec& s) {
    if (s.head_dim > 0) return s.head_dim;
    if (s.heads < 1) throw invalid_input("heads H = " + std::to_string(s.heads) + " must be at least 1 (head_dim 0 means dx / H)");
    return s.dim / s.heads;
}
long block_width(const NetworkSpec& s) { return s.width > 0 ? s.width : s.dim; }
long input_vars_per_token(const NetworkSpec& s) { return s.embed_rank > 0 ? s.embed_rank : s.dim; }
long block_degree(const NetworkSpec& s) {
    return with_family(s.family, [&](auto fam) { return fam.block_degree(s); });
}
long output_dim(const NetworkSpec& s) {
    return with_network(s, [&](auto net) { return net.output_dim(s); });
}

long output_positions(const NetworkSpec& s) {
    return with_network(s, [&](auto net) { return net.output_positions(s); });
}

std::vector<long> layer_widths(const NetworkSpec& s) {
    std::vector<long> w{s.tokens * s.dim};
    for (long l = 0; l < s.depth; ++l)
        w.push_back(s.widths.empty() ? s.tokens * s.dim : s.widths[static_cast<std::size_t>(l)]);
    return w;
}

void validate(const NetworkSpec& s) {
    require(detail::is_family(s.family), "family value " + str(static_cast<long>(s.family)) + " names no family");
    require(s.tokens >= 1, "tokens N = " + str(s.tokens) + " must be at least 1");
    require(s.dim >= 1, "dim dx = " + str(s.dim) + " must be at least 1");
    require(s.depth >= 0, "depth L = " + str(s.depth) + " must not be negative");
    require(s.depth <= kMaxDepth, "depth L = " + str(s.depth) + " exceeds " + str(kMaxDepth));
    // A stack's layers may write fewer tokens than they read (conv): its own check names the
    // range, the tokens its last layer writes.
    require(s.position >= 1, "position i = " + str(s.position) + " must be at least 1");
    require(family_info(s.family).layers || s.position <= s.tokens, "position i = " + str(s.position) + " outside 1.." + str(s.tokens));
    require(s.embed_rank >= 0, "embedding rank r = " + str(s.embed_rank) + " is negative");
    // r > dx is allowed: M ∈ Q^{dx×r} then has rank at most dx (Theorem 7.3 reads min{r, dx}).
    require(s.embed_rank <= kMaxEmbedRank, "embedding rank r = " + str(s.embed_rank) + " exceeds " + str(kMaxEmbedRank));
    // Every size is capped so that products of three of them fit in a long, then the
    // memory of the weights and of the variable table is estimated before any of it is
    // allocated (docs/usage.md §1.2).
    auto size_ok = [&](long v, const std::string& name) {
        require(v <= kMaxSize, name + " = " + str(v) + " exceeds the supported maximum " + str(kMaxSize));
    };
    size_ok(s.tokens, "tokens N");
    size_ok(s.dim, "dim dx");
    size_ok(s.heads, "heads H");
    size_ok(s.head_dim, "head dim da");
    size_ok(s.width, "width w");
    size_ok(s.block_degree, own_degree_key(family_info(s.family)) ? "power r" : "block degree d");  // as the family names it
    // A widths entry is named by its family (fc width, power width) where the family takes widths.
    const std::string width_name = family_info(s.family).widths ? std::string(family_info(s.family).name) + " width" : "widths entry";
    for (long w : s.widths) size_ok(w, width_name);
    require(family_info(s.family).layers || s.layers.empty(),
            "layers (a list of layer kinds) apply to family stack only, not " + std::string(family_info(s.family).name));
    // Heads belong to attention (a stack's attention layers carry their own: StackFamily::validate).
    if (!family_info(s.family).heads && !family_info(s.family).layers) {
        require(s.heads == 1, "heads H = " + str(s.heads) + " given to " + family_info(s.family).name + ": heads apply to attention only");
        require(s.head_dim == 0, "head dim da = " + str(s.head_dim) + " given to " + family_info(s.family).name + ": heads apply to attention only");
    }
    with_family(s.family, [&](auto fam) { fam.validate(s); });  // its fields, then the coordinate p
    Integer params = parameter_count(s);
    const double vars = static_cast<double>(s.tokens) * static_cast<double>(input_vars_per_token(s));
    check_memory(48.0 * fmpz_get_d(params.get()) + 64.0 * vars + 48.0 * static_cast<double>(s.dim) * static_cast<double>(s.embed_rank),
                 default_max_memory(), "network " + describe(s) + " (" + params.str() + " weights)");
}

long layer_degree(const NetworkSpec& s, long layer) {
    return with_network(s, [&](auto net) { return net.layer_degree(s, layer); });
}

long layer_weight_increment(const NetworkSpec& s, long layer) {
    return with_network(s, [&](auto net) { return net.layer_weight_increment(s, layer); });
}

Integer output_degree(const NetworkSpec& s) {
    Integer d(1);
    for (long l = 0; l < s.depth; ++l) fmpz_mul_ui(d.get(), d.get(), static_cast<ulong>(layer_degree(s, l)));
    return d;
}

Integer weight_degree(const NetworkSpec& s) {
    Integer D(0);
    for (long l = 0; l < s.depth; ++l) D = D * Integer(layer_degree(s, l)) + Integer(layer_weight_increment(s, l));
    return D;
}

Integer layer_parameters(const NetworkSpec& s, long layer) {
    return with_network(s, [&](auto net) { return net.layer_parameters(s, layer); });
}

Integer parameter_count(const NetworkSpec& s) {
    return with_network(s, [&](auto net) { return net.parameters(s); });
}

// ---------------------------------------------------------------- random weights

namespace network_detail {

bool structural_zero(const NetworkSpec& s, long l, const MatrixSlot& m, long i, long j) {
    return with_network(s, [&](auto net) { return net.structural_zero(s, l, m, i, j); });
}

Weights empty_weights(const NetworkSpec& s) {
    Weights w;
    w.layers.resize(static_cast<std::size_t>(s.depth));
    with_network(s, [&](auto net) {
        for (long l = 0; l < s.depth; ++l) net.resize(w.layers[static_cast<std::size_t>(l)], s, l);
    });
    return w;
}

}  // namespace network_detail

ValidSpec::ValidSpec(NetworkSpec s) : s_(std::move(s)) { validate(s_); }

Network random_network(const ValidSpec& valid, std::uint64_t seed, long range) {
    return Network{valid.get(), Model(valid).draw_weights(seed, range)};
}

ValidSpec check_shapes(const Network& net) {
    ValidSpec valid(net.spec);  // the spec first: the shapes are computed from it
    Model(valid).check_weights(net.weights);
    return valid;
}

Network first_layers(const Network& net, long depth) {
    const ValidSpec whole = check_shapes(net);
    if (depth < 1 || depth > whole->depth)
        throw invalid_input("depth " + std::to_string(depth) + ": expected 1.." + std::to_string(whole->depth) + " (the network's layers)");
    Network t = net;
    t.spec = network_detail::first_layers_spec(net.spec, depth);
    t.weights.layers.resize(static_cast<std::size_t>(depth));
    check_shapes(t);
    return t;
}

NetworkSpec network_detail::first_layers_spec(const NetworkSpec& s, long depth) {
    NetworkSpec t = s;
    const auto keep = static_cast<std::size_t>(depth);
    t.depth = depth;
    if (!t.layers.empty()) t.layers.resize(keep);
    if (!t.widths.empty()) t.widths.resize(keep);
    return t;
}

NetworkSpec network_detail::without_layer_spec(const NetworkSpec& s, long l) {
    NetworkSpec t = s;
    const auto at = static_cast<std::ptrdiff_t>(l);
    t.depth = s.depth - 1;
    if (!t.layers.empty()) t.layers.erase(t.layers.begin() + at);
    if (!t.widths.empty()) t.widths.erase(t.widths.begin() + at);
    return t;
}

NetworkSpec network_detail::stack_form(const NetworkSpec& s) {
    if (!s.layers.empty()) return s;
    const NetworkSpec defaults;  // the family's own fields as a stack leaves them
    NetworkSpec t = s;
    t.layers = stack_layers(s);
    t.family = Family::stack;
    t.residual = defaults.residual;
    t.heads = defaults.heads;
    t.head_dim = defaults.head_dim;
    t.attention_rank = defaults.attention_rank;
    t.width = defaults.width;
    t.free_slots = defaults.free_slots;
    t.block_degree = defaults.block_degree;
    t.widths.clear();
    return t;
}

NetworkSpec network_detail::without_residual_spec(const NetworkSpec& s, long l) {
    NetworkSpec t = stack_form(s);  // a family's residual is every layer's: first its stack
    std::visit([](auto& sp) { sp.residual = false; }, t.layers[static_cast<std::size_t>(l)]);
    return t;
}

network_detail::PowerShape network_detail::power_shape(const NetworkSpec& s) {
    const NetworkSpec f = family_form(s);
    PowerShape p;
    if (f.family != Family::power || f.embed_rank != 0 || f.widths.empty()) return p;
    p.widths.push_back(f.tokens * f.dim);
    p.widths.insert(p.widths.end(), f.widths.begin(), f.widths.end());
    p.power = f.block_degree;
    return p;
}

long network_detail::row_scaling_bound(const NetworkSpec& s, long P, bool scalar) {
    const detail::RowScales r = detail::Stack::row_scales(s, scalar);
    return r.scales < 0 ? -1 : P - r.unread - r.scales;
}

bool is_homogeneous(const NetworkSpec& s) {
    return with_network(s, [&](auto net) { return decltype(net)::homogeneous(s); });
}

}  // namespace seprank
