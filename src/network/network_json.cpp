// seprank — the weights file: a network read from JSON (sizes inferred, every key, shape and
// structural zero checked) and written back (network.hpp; docs/usage.md §1.5).
#include "seprank/network.hpp"

#include "base/file_io.hpp"
#include "base/json_file.hpp"
#include "network_internal.hpp"
#include "seprank/error.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

namespace seprank {

using detail::with_family;
using namespace network_detail;

// ---------------------------------------------------------------- JSON

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw invalid_input("weights JSON " + path + ": " + what);
}

// An integer no long holds, named as written (a size or count is a long, at most 2^63 - 1).
[[noreturn]] void out_of_range(const std::string& path, const std::string& written) {
    bad(path, "integer " + written + " out of range (a size or count is at most 2^63 - 1)");
}

// A value of the file quoted in a message: its JSON text, cut (detail::cut) so that a
// string or list of megabytes is never echoed whole.
std::string shown(const nlohmann::json& j) { return detail::cut(j.dump()); }

const nlohmann::json& member(const nlohmann::json& j, const std::string& path, const char* key) {
    if (!j.is_object()) bad(path, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) bad(path, std::string("missing key \"") + key + "\"");
    return *it;
}

long get_long(const nlohmann::json& j, const std::string& path, long lo) {
    // An integer literal that fits no 64-bit integer arrives as its digits
    // (quote_big_integers). Digits that fit one were a string in the file ("2"), not a
    // quoted literal.
    if (j.is_string() && !j.get_ref<const std::string&>().empty() &&
        j.get_ref<const std::string&>().find_first_not_of("-0123456789") == std::string::npos) {
        const std::string& t = j.get_ref<const std::string&>();
        const char* end = t.data() + t.size();
        std::int64_t s = 0;
        std::uint64_t u = 0;
        const auto as_signed = std::from_chars(t.data(), end, s);
        const auto as_unsigned = std::from_chars(t.data(), end, u);
        const bool too_big = as_signed.ptr == end && as_signed.ec == std::errc::result_out_of_range &&
                             (t[0] == '-' || as_unsigned.ec == std::errc::result_out_of_range);
        if (!too_big) bad(path, "expected an integer, got the string " + shown(j) + " (no quotes around a count)");
        out_of_range(path, detail::cut(t));
    }
    if (!j.is_number_integer()) bad(path, "expected an integer, got " + shown(j));
    // 2^63..2^64 − 1 arrive unsigned: named as written, not wrapped to a negative value
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(LONG_MAX))
        out_of_range(path, j.dump());
    const long v = j.get<long>();
    if (v < lo) bad(path, "value " + std::to_string(v) + " below " + std::to_string(lo));
    return v;
}

Rational get_rational(const nlohmann::json& j, const std::string& path) {
    if (j.is_number_integer()) {
        if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
            return Rational(Integer{std::string_view(j.dump())});
        return Rational(j.get<long>());
    }
    if (j.is_string()) {
        try {
            return Rational(std::string_view(j.get_ref<const std::string&>()));
        } catch (const invalid_input& e) {
            bad(path, e.what());
        }
    }
    bad(path, "expected an integer or a \"p/q\" string, got " + shown(j));
}

Dense<Rational> get_matrix(const nlohmann::json& j, const std::string& path, long r, long c) {
    if (!j.is_array()) bad(path, "expected a matrix (list of rows), got " + shown(j));
    if (static_cast<long>(j.size()) != r)
        bad(path, "has " + std::to_string(j.size()) + " rows, expected " + std::to_string(r));
    Dense<Rational> m(r, c, Rational(0));
    for (long i = 0; i < r; ++i) {
        const auto& row = j[static_cast<std::size_t>(i)];
        const std::string rp = path + "[" + std::to_string(i) + "]";
        if (!row.is_array()) bad(rp, "expected a row (list), got " + shown(row));
        if (static_cast<long>(row.size()) != c)
            bad(rp, "has " + std::to_string(row.size()) + " entries, expected " + std::to_string(c));
        for (long k = 0; k < c; ++k)
            m(i, k) = get_rational(row[static_cast<std::size_t>(k)], rp + "[" + std::to_string(k) + "]");
    }
    return m;
}

nlohmann::json matrix_json(const Dense<Rational>& m) {
    nlohmann::json rows = nlohmann::json::array();
    for (long i = 0; i < m.rows; ++i) {
        nlohmann::json row = nlohmann::json::array();
        for (long k = 0; k < m.cols; ++k) {
            const Rational& x = m(i, k);
            if (x.is_integer() && fmpz_fits_si(fmpq_numref(x.get())))
                row.push_back(fmpz_get_si(fmpq_numref(x.get())));
            else
                row.push_back(x.str());
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

// The sizes that the matrices of a weights JSON say, for the keys it leaves out
// (docs/usage.md §1.5): depth = the number of layers; from layer 0, heads = its heads,
// dim = the columns of the first Q (attention) or W_1 (hadamard; fc: columns / tokens,
// when tokens divides them), head_dim = the rows of Q (only where it differs from the
// default dx/H), block_degree = its matrices W, width = the rows of W_1 (hadamard);
// widths = the rows of each layer's W_1 (fc); embed_rank and dim = the columns and rows
// of "embedding". Read leniently: what is malformed says nothing here, and the reader
// names it afterwards. A key the file holds is never replaced: a size that disagrees
// with the matrices is then a shape error naming the matrix.
nlohmann::json inferred_sizes(const nlohmann::json& j, const FamilyInfo& info) {
    nlohmann::json hint = nlohmann::json::object();
    auto rows = [](const nlohmann::json* m) { return m && m->is_array() && !m->empty() ? static_cast<long>(m->size()) : 0L; };
    auto cols = [](const nlohmann::json* m) {
        return m && m->is_array() && !m->empty() && (*m)[0].is_array() ? static_cast<long>((*m)[0].size()) : 0L;
    };
    auto at = [](const nlohmann::json* node, const char* key) -> const nlohmann::json* {
        if (!node || !node->is_object()) return nullptr;
        auto it = node->find(key);
        return it == node->end() ? nullptr : &*it;
    };
    auto first = [](const nlohmann::json* list) -> const nlohmann::json* {
        return list && list->is_array() && !list->empty() ? &(*list)[0] : nullptr;
    };
    auto given = [&](const char* key) -> long {  // the file's value, or the hint, or 0
        if (const auto* v = at(&j, key); v && v->is_number_integer()) return v->get<long>();
        return hint.contains(key) ? hint[key].get<long>() : 0L;
    };
    const nlohmann::json* layers = at(&j, "layers");
    if (layers && layers->is_array()) hint["depth"] = layers->size();
    const nlohmann::json* layer0 = first(layers);
    if (info.heads) {
        const nlohmann::json* heads = at(layer0, "heads");
        const nlohmann::json* q = at(first(heads), "Q");
        if (rows(heads) > 0) hint["heads"] = rows(heads);
        if (cols(q) > 0) hint["dim"] = cols(q);
        const long da = rows(q), dx = given("dim"), h = given("heads") > 0 ? given("heads") : 1;
        if (da > 0 && dx > 0 && (dx % h != 0 || dx / h != da)) hint["head_dim"] = da;
    }
    const nlohmann::json* w1 = first(at(layer0, "W"));
    if (info.uniform && info.fixed_block_degree == 0 && rows(at(layer0, "W")) > 0) hint["block_degree"] = rows(at(layer0, "W"));
    if (info.width) {
        if (rows(w1) > 0) hint["width"] = rows(w1);
        if (cols(w1) > 0) hint["dim"] = cols(w1);
    }
    if (info.widths && info.uniform && layers && layers->is_array()) {
        std::vector<long> widths;
        for (const auto& layer : *layers)
            if (const long w = rows(first(at(&layer, "W"))); w > 0) widths.push_back(w);
        if (widths.size() == layers->size()) hint["widths"] = widths;
        const long n = given("tokens");
        if (n > 0 && cols(w1) > 0 && cols(w1) % n == 0) hint["dim"] = cols(w1) / n;
    }
    if (info.layers && layer0 && layer0->is_object()) {
        // A stack: every kind's first matrix in file order reads the tokens (Q, W1, W_1), so
        // its columns are dx (N·dx for a kind that reads them flattened).
        const nlohmann::json* kind = at(layer0, "kind");
        detail::for_each_kind([&](auto k, auto sp) {
            if (!kind || !kind->is_string() || kind->get<std::string>() != k.name) return;
            LayerWeights<Rational> lw;
            k.resize(lw, sp);
            std::optional<MatrixSlot> slot;
            k.for_each_matrix(sp, detail::Shape{1, 1}, lw, [&](const MatrixSlot& m, auto&) {
                if (!slot) slot = m;
            });
            if (!slot) return;
            const nlohmann::json* node = layer0;
            if (slot->list) node = first(at(node, slot->list));
            if (slot->key) node = at(node, slot->key);
            // A flattening kind (fc, dense) reads N·dx columns.
            const long c = cols(node), n = k.flattens(sp) ? given("tokens") : 1;
            if (c > 0 && n > 0 && c % n == 0) hint["dim"] = c / n;
        });
    }
    if (info.depth_from_widths && layers && layers->is_array()) {  // power: each layer is {"W": W_l}
        std::vector<long> widths;
        for (const auto& layer : *layers)
            if (const long w = rows(at(&layer, "W")); w > 0) widths.push_back(w);
        if (widths.size() == layers->size()) hint["widths"] = widths;
        const long n = given("tokens"), c = cols(at(layer0, "W"));
        if (n > 0 && c > 0 && c % n == 0) hint["dim"] = c / n;
    }
    if (const nlohmann::json* m = at(&j, "embedding")) {
        if (cols(m) > 0) hint["embed_rank"] = cols(m);
        if (rows(m) > 0 && !hint.contains("dim")) hint["dim"] = rows(m);
    }
    return hint;
}

// The JSON keys of the spec, for the families' read_fields / write_fields. A key the
// file leaves out is taken from the hints (inferred_sizes) when they have it.
class SpecReader {
public:
    SpecReader(const nlohmann::json& j, const nlohmann::json& hint) : j_(j), hint_(hint) {}
    long required_long(const char* key, long lo) {
        asked_.emplace_back(key);
        // a size the matrices give when the file leaves it out (inferred_sizes), here
        // given by neither: said so, since the file may hold the matrix with a bad value
        // ({"heads": null} in layer 0 read as a missing "heads")
        static const std::set<std::string> inferable = {"heads", "dim", "depth", "head_dim", "block_degree", "width", "embed_rank"};
        if (!source(key).contains(key) && inferable.count(key))
            bad("$", std::string("missing key \"") + key + "\", and the matrices do not give it (a missing or malformed matrix of the first layer)");
        return get_long(member(source(key), "$", key), path(key), lo);
    }
    void optional_long(const char* key, long& out, long lo) {
        asked_.emplace_back(key);
        if (source(key).contains(key)) out = get_long(source(key)[key], path(key), lo);
    }
    void optional_bool(const char* key, bool& out) {
        asked_.emplace_back(key);
        if (!j_.contains(key)) return;
        if (!j_[key].is_boolean()) bad(path(key), "expected true or false, got " + shown(j_[key]));
        out = j_[key].get<bool>();
    }
    // The objects of "layers" (a stack's kinds and their keys); the list itself is checked
    // again when the matrices are read.
    long layer_count() const {
        const auto it = j_.find("layers");
        return it != j_.end() && it->is_array() ? static_cast<long>(it->size()) : 0L;
    }
    std::string layer_string(long l, const char* key) const {
        const std::string lp = layer_path(l);
        const auto& v = member(layer(l), lp, key);
        if (!v.is_string()) bad(lp + "." + key, "expected a string, got " + shown(v));
        return v.get<std::string>();
    }
    // A count whose key names the layer's list of matrices ("heads") is that list's length.
    void layer_value(long l, const char* key, long& out) const {
        const auto& node = layer(l);
        if (!node.contains(key)) return;
        out = node[key].is_array() ? static_cast<long>(node[key].size()) : get_long(node[key], layer_path(l) + "." + key, LONG_MIN);
        // no kind's key is negative; its least value (1, or 0 for a default) is the kind's
        // validation's to say (score_degree 0 is refused there too)
        if (out < 0) bad(layer_path(l) + "." + key, "value " + std::to_string(out) + " is negative");
    }
    void layer_value(long l, const char* key, bool& out) const {
        const auto& node = layer(l);
        if (!node.contains(key)) return;
        if (!node[key].is_boolean()) bad(layer_path(l) + "." + key, "expected true or false, got " + shown(node[key]));
        out = node[key].get<bool>();
    }
    [[noreturn]] void layer_fail(long l, const char* key, const std::string& what) const { bad(layer_path(l) + "." + key, what); }
    std::vector<long> required_long_list(const char* key, long lo) {
        asked_.emplace_back(key);
        const auto& list = member(source(key), "$", key);
        if (!list.is_array()) bad(path(key), std::string("expected a list of ") + key + ", got " + shown(list));
        std::vector<long> out;
        for (std::size_t k = 0; k < list.size(); ++k) out.push_back(get_long(list[k], path(key) + "[" + std::to_string(k) + "]", lo));
        return out;
    }

    // The top-level keys the family's reader knows (asked for, given or not).
    const std::vector<std::string>& asked() const { return asked_; }

private:
    static std::string layer_path(long l) { return "$.layers[" + std::to_string(l) + "]"; }
    const nlohmann::json& layer(long l) const {
        const auto& node = j_["layers"][static_cast<std::size_t>(l)];
        if (!node.is_object()) bad(layer_path(l), "expected an object");
        return node;
    }
    const nlohmann::json& source(const char* key) const { return j_.contains(key) || !hint_.contains(key) ? j_ : hint_; }
    static std::string path(const char* key) { return std::string("$.") + key; }
    const nlohmann::json& j_;
    const nlohmann::json& hint_;
    std::vector<std::string> asked_;
};

// Refuses a key the format does not know, wherever it is (a misspelt "residul" would
// otherwise change the network silently). The known keys of an object are those of the
// same object in `canon`, the canonical form of the network read (what write_network
// writes), plus `also` at the top level: the keys the spec reader asks for, which the
// canonical form leaves out at their defaults.
void check_known_keys(const nlohmann::json& in, const nlohmann::json& canon, const std::string& path,
                      const std::vector<std::string>& also) {
    if (in.is_object() && canon.is_object()) {
        for (auto it = in.begin(); it != in.end(); ++it) {
            const std::string& key = it.key();
            if (canon.contains(key)) {
                check_known_keys(*it, canon[key], path + "." + key, {});
                continue;
            }
            if (std::find(also.begin(), also.end(), key) != also.end()) continue;
            std::string known;
            for (auto k = canon.begin(); k != canon.end(); ++k) known += (known.empty() ? "" : ", ") + k.key();
            for (const auto& k : also)
                if (!canon.contains(k) && known.find(k) == std::string::npos) known += ", " + k;
            bad(path + "." + detail::cut(key), "unknown key (known here: " + known + ")");
        }
    } else if (in.is_array() && canon.is_array() && in.size() == canon.size()) {
        for (std::size_t k = 0; k < in.size(); ++k) check_known_keys(in[k], canon[k], path + "[" + std::to_string(k) + "]", {});
    }
}

class SpecWriter {
public:
    explicit SpecWriter(nlohmann::json& j) : j_(j) {}
    void set(const char* key, long v) { j_[key] = v; }
    void set(const char* key, bool v) { j_[key] = v; }
    void set(const char* key, const std::vector<long>& v) { j_[key] = v; }
    // Written after the matrices: a key that already holds the layer's list of matrices
    // (a stack's attention "heads") keeps it, and its length says the count.
    template <class T>
    void set_layer(long l, const char* key, const T& v) {
        auto& node = j_["layers"][static_cast<std::size_t>(l)];
        if (!node.contains(key)) node[key] = v;
    }

private:
    nlohmann::json& j_;
};

nlohmann::json network_to_json_value(const Network& net);
// The matrices of j for the spec s read from it, checked against s; unknown keys refused.
Network read_weights(const nlohmann::json& j, const NetworkSpec& s, SpecReader& in);

Network network_from_json_value(const nlohmann::json& j) {
    if (!j.is_object()) bad("$", "expected an object at the top level");
    NetworkSpec s;
    const auto& fam = member(j, "$", "family");
    if (!fam.is_string()) bad("$.family", "expected a string, got " + shown(fam));
    try {
        s.family = family_from_string(fam.get<std::string>());
    } catch (const invalid_input& e) {
        bad("$.family", e.what());
    }
    const nlohmann::json hint = inferred_sizes(j, family_info(s.family));
    SpecReader in(j, hint);
    s.tokens = in.required_long("tokens", 1);
    if (!j.contains("dim") && !hint.contains("dim")) {  // nothing to read it from: say where it was looked for
        const auto layers = j.find("layers");
        std::string where = " (no \"layers\")";
        if (layers != j.end() && layers->is_array() && !layers->empty() && layers->front().is_object()) {
            std::string seen;
            for (auto it = layers->front().begin(); it != layers->front().end(); ++it)
                seen += (seen.empty() ? "" : ", ") + detail::cut(it.key());
            where = " (its keys: " + (seen.empty() ? std::string("none") : seen) + ")";
        } else if (layers != j.end()) {
            where = " (no first layer)";
        }
        bad("$", "missing key \"dim\", and no matrix of the first layer to read it from" + where);
    }
    s.dim = in.required_long("dim", 1);
    s.depth = in.required_long("depth", 0);
    with_family(s.family, [&](auto family) {
        if (family.info.degree_key) s.block_degree = in.required_long(family.info.degree_key, 1);
        family.read_fields(in, s);
    });
    in.optional_bool("residual", s.residual);
    in.optional_long("position", s.position, 1);
    in.optional_long("coordinate", s.coordinate, 1);
    in.optional_long("embed_rank", s.embed_rank, 1);
    try {
        validate(s);
    } catch (const invalid_input& e) {
        bad("$", e.what());
    }

    // A shape error where sizes were read from the matrices (the file not giving them) may
    // lie in the matrix they were read from, not in the one named: the message says which
    // sizes were read, so the file can give the meant one.
    std::string read_sizes;
    for (const auto& [key, value] : hint.items())
        if (key != "depth" && !j.contains(key)) read_sizes += (read_sizes.empty() ? "" : ", ") + key + " " + value.dump();
    try {
        return read_weights(j, s, in);
    } catch (const invalid_input& e) {
        if (read_sizes.empty()) throw;
        throw invalid_input(std::string(e.what()) + " (sizes read from the first layer's matrices, the file not giving them: " + read_sizes +
                            "; give them if others are meant)");
    }
}

Network read_weights(const nlohmann::json& j, const NetworkSpec& s, SpecReader& in) {
    Network net{s, empty_weights(s)};
    if (s.embed_rank > 0) net.weights.embedding = get_matrix(member(j, "$", "embedding"), "$.embedding", s.dim, s.embed_rank);
    // an embedding of no columns ([] or [[]]) would be read as none: refused, as a weights
    // file means what it says (an empty matrix is no dx x r embedding with r >= 1)
    else if (j.is_object() && j.contains("embedding") && !j["embedding"].is_null())
        bad("$.embedding", "given, but the network has no embedding (embed_rank 0" +
                               std::string(j.contains("embed_rank") ? "" : ", read from the matrix's columns") +
                               "): an embedding is a dx x r matrix with r >= 1; leave the key out for none");
    const auto& layers = member(j, "$", "layers");
    if (!layers.is_array()) bad("$.layers", "expected a list of layers, got " + shown(layers));
    if (static_cast<long>(layers.size()) != s.depth)
        bad("$.layers", "has " + std::to_string(layers.size()) + " layers, but $.depth is " + std::to_string(s.depth));
    for_each_matrix(s, net.weights, [&](long l, const MatrixSlot& slot, Dense<Rational>& out) {
        const nlohmann::json* node = &layers[static_cast<std::size_t>(l)];
        std::string path = "$.layers[" + std::to_string(l) + "]";
        if (slot.list) {
            const auto& list = member(*node, path, slot.list);
            path += std::string(".") + slot.list;
            if (!list.is_array() || static_cast<long>(list.size()) != slot.list_size)
                bad(path, "expected a list of " + std::to_string(slot.list_size) + " " + slot.list_noun);
            node = &list[static_cast<std::size_t>(slot.index)];
            path += "[" + std::to_string(slot.index) + "]";
        }
        if (slot.key) {
            node = &member(*node, path, slot.key);
            path += std::string(".") + slot.key;
        }
        Dense<Rational> m = get_matrix(*node, path, slot.rows, slot.cols);
        for (long i = 0; i < m.rows; ++i)
            for (long q = 0; q < m.cols; ++q)
                if (!m(i, q).is_zero() && structural_zero(s, l, slot, i, q))
                    bad(path + "[" + std::to_string(i) + "][" + std::to_string(q) + "]",
                        "must be 0: " + with_network(s, [&](auto net) { return net.structural_zero_reason(s, l); }));
        out = std::move(m);
    });
    std::vector<std::string> also = in.asked();
    also.insert(also.end(), {"family", "tokens", "dim", "depth", "layers", "embed_rank", "embedding"});
    check_known_keys(j, network_to_json_value(net), "$", also);
    return net;
}

nlohmann::json network_to_json_value(const Network& net) {
    const NetworkSpec& s = net.spec;
    check_shapes(net);
    nlohmann::json j;
    j["family"] = to_string(s.family);
    j["tokens"] = s.tokens;
    j["dim"] = s.dim;
    j["depth"] = s.depth;
    nlohmann::json layers = nlohmann::json::array();
    for (long l = 0; l < s.depth; ++l) layers.push_back(nlohmann::json::object());
    j["layers"] = std::move(layers);
    for_each_matrix(s, net.weights, [&](long l, const MatrixSlot& slot, const Dense<Rational>& m) {
        nlohmann::json* node = &j["layers"][static_cast<std::size_t>(l)];
        if (slot.list) node = &(*node)[slot.list][static_cast<std::size_t>(slot.index)];
        if (slot.key) node = &(*node)[slot.key];
        *node = matrix_json(m);
    });
    SpecWriter out(j);
    with_family(s.family, [&](auto family) {
        if (family.info.degree_key) out.set(family.info.degree_key, s.block_degree);
        family.write_fields(out, s);
    });
    j["residual"] = s.residual;
    j["position"] = s.position;
    j["coordinate"] = s.coordinate;
    if (s.embed_rank > 0) {
        j["embed_rank"] = s.embed_rank;
        j["embedding"] = matrix_json(net.weights.embedding);
    }
    return j;
}

// The weights JSON as a tree, its top-level "layers" list refused as soon as element
// kMaxDepth + 1 begins: a file of a million layers (empty objects, 3 MiB) is refused in
// microseconds instead of being built first, and the refusal names the limit whatever
// else the file lacks. Everything else as parse_json_text (json_file.hpp).
class WeightsSax {
  public:
    explicit WeightsSax(nlohmann::json& root) : dom_(root) {}

    bool null() {
        value();
        return dom_.null();
    }
    bool boolean(bool v) {
        value();
        return dom_.boolean(v);
    }
    bool number_integer(nlohmann::json::number_integer_t v) {
        value();
        return dom_.number_integer(v);
    }
    bool number_unsigned(nlohmann::json::number_unsigned_t v) {
        value();
        return dom_.number_unsigned(v);
    }
    bool number_float(nlohmann::json::number_float_t v, const nlohmann::json::string_t& t) {
        value();
        return dom_.number_float(v, t);
    }
    bool string(nlohmann::json::string_t& v) {
        value();
        return dom_.string(v);
    }
    bool binary(nlohmann::json::binary_t& v) {
        value();
        return dom_.binary(v);
    }
    bool key(nlohmann::json::string_t& k) {
        if (open_ == 1) top_key_ = k;
        return dom_.key(k);
    }
    bool start_object(std::size_t n) {
        value();
        ++open_;
        return dom_.start_object(n);
    }
    bool start_array(std::size_t n) {
        value();
        if (++open_ == 2) in_layers_ = top_key_ == "layers";
        return dom_.start_array(n);
    }
    bool end_object() {
        close();
        return dom_.end_object();
    }
    bool end_array() {
        close();
        return dom_.end_array();
    }
    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
        return dom_.parse_error(position, token, e);  // throws e
    }

  private:
    void value() {  // a value begins at the current level
        if (in_layers_ && open_ == 2 && ++layers_ > static_cast<std::size_t>(kMaxDepth))
            bad("$.layers", "more than " + std::to_string(kMaxDepth) + " layers; a network has at most " + std::to_string(kMaxDepth));
    }
    void close() {
        if (--open_ == 1) in_layers_ = false;
    }
    nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
    int open_ = 0;             // containers open
    std::string top_key_;      // the last key of the top-level object
    bool in_layers_ = false;   // inside the top-level "layers" list
    std::size_t layers_ = 0;   // its elements begun
};

nlohmann::json weights_json(std::string_view text, const std::string& source) {
    nlohmann::json j;
    WeightsSax sax(j);
    detail::sax_parse_json_text(text, source, sax);
    return j;
}

}  // namespace

Network network_from_json(const std::string& text) {
    return network_from_json_value(weights_json(text, "weights JSON"));
}

std::string network_to_json(const Network& net, int indent) {
    const int step = detail::checked_indent(indent);
    return network_to_json_value(net).dump(step);
}

Network read_network(const std::string& path) {
    return network_from_json_value(weights_json(detail::read_input_file(path, "weights file", detail::kJsonTreeBytesPerByte), "weights file '" + path + "'"));
}

void check_network_target(const std::string& path) { detail::check_output_target(path, "weights file"); }

void write_network(const Network& net, const std::string& path) {
    detail::write_file_atomically(path, network_to_json(net) + "\n", "weights file");
}

}  // namespace seprank
