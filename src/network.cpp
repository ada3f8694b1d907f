#include "seprank/network.hpp"

#include "file_io.hpp"
#include "json_file.hpp"
#include "seprank/error.hpp"
#include "seprank/random.hpp"

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

namespace seprank {

std::string to_string(Family f) {
    switch (f) {
        case Family::attention: return "attention";
        case Family::hadamard: return "hadamard";
        case Family::fc: return "fc";
    }
    return "?";
}

Family family_from_string(const std::string& s) {
    if (s == "attention") return Family::attention;
    if (s == "hadamard") return Family::hadamard;
    if (s == "fc") return Family::fc;
    throw invalid_input("unknown family '" + s + "' (expected attention, hadamard or fc)");
}

namespace {

void require(bool ok, const std::string& msg) {
    if (!ok) throw invalid_input(msg);
}

std::string str(long v) { return std::to_string(v); }

}  // namespace

long head_dim(const NetworkSpec& s) { return s.head_dim > 0 ? s.head_dim : s.dim / s.heads; }
long block_width(const NetworkSpec& s) { return s.width > 0 ? s.width : s.dim; }
long input_vars_per_token(const NetworkSpec& s) { return s.embed_rank > 0 ? s.embed_rank : s.dim; }
long block_degree(const NetworkSpec& s) { return s.family == Family::attention ? 3 : s.block_degree; }

std::vector<long> layer_widths(const NetworkSpec& s) {
    std::vector<long> w{s.tokens * s.dim};
    for (long l = 0; l < s.depth; ++l)
        w.push_back(s.widths.empty() ? s.tokens * s.dim : s.widths[static_cast<std::size_t>(l)]);
    return w;
}

void validate(const NetworkSpec& s) {
    require(s.tokens >= 1, "tokens N = " + str(s.tokens) + " must be at least 1");
    require(s.dim >= 1, "dim dx = " + str(s.dim) + " must be at least 1");
    require(s.depth >= 0, "depth L = " + str(s.depth) + " must not be negative");
    require(s.depth <= 64, "depth L = " + str(s.depth) + " exceeds 64");
    require(s.position >= 1 && s.position <= s.tokens,
            "position i = " + str(s.position) + " outside 1.." + str(s.tokens));
    require(s.embed_rank >= 0, "embedding rank r = " + str(s.embed_rank) + " is negative");
    require(s.embed_rank == 0 || s.embed_rank <= s.dim,
            "embedding rank r = " + str(s.embed_rank) + " exceeds dim dx = " + str(s.dim));
    switch (s.family) {
        case Family::attention: {
            require(s.heads >= 1, "heads H = " + str(s.heads) + " must be at least 1");
            require(s.head_dim >= 0, "head dim da = " + str(s.head_dim) + " is negative");
            if (s.head_dim == 0)
                require(s.dim % s.heads == 0, "heads H = " + str(s.heads) + " does not divide dim dx = " + str(s.dim) +
                                                  " (give the head dim explicitly)");
            require(s.block_degree == 3, "block degree d = " + str(s.block_degree) + " is not 3 for attention");
            require(s.attention_rank >= 0 && s.attention_rank <= head_dim(s),
                    "attention rank k = " + str(s.attention_rank) + " outside 0.." + str(head_dim(s)));
            require(!s.free_slots, "free slots apply to hadamard blocks only");
            require(s.widths.empty() && s.width == 0, "width applies to hadamard and fc only");
            break;
        }
        case Family::hadamard:
            require(s.block_degree >= 1, "block degree d = " + str(s.block_degree) + " must be at least 1");
            require(s.block_degree <= 64, "block degree d = " + str(s.block_degree) + " exceeds 64");
            require(s.width >= 0, "width w = " + str(s.width) + " is negative");
            require(s.widths.empty(), "widths (a list) apply to fc; hadamard takes one width");
            require(s.attention_rank == 0, "attention rank applies to attention only");
            break;
        case Family::fc:
            require(s.block_degree >= 1, "block degree d = " + str(s.block_degree) + " must be at least 1");
            require(s.block_degree <= 64, "block degree d = " + str(s.block_degree) + " exceeds 64");
            require(s.widths.empty() || static_cast<long>(s.widths.size()) == s.depth,
                    "fc widths list has " + str(static_cast<long>(s.widths.size())) + " entries, depth is " + str(s.depth));
            for (long w : s.widths) require(w >= 1, "fc width " + str(w) + " must be at least 1");
            require(s.width == 0, "fc takes a widths list, not one width");
            require(s.attention_rank == 0, "attention rank applies to attention only");
            require(!s.free_slots, "free slots apply to hadamard blocks only");
            break;
    }
    const long out_dim = s.family == Family::fc ? layer_widths(s).back() : s.dim;
    require(s.coordinate >= 1 && s.coordinate <= out_dim,
            "coordinate p = " + str(s.coordinate) + " outside 1.." + str(out_dim));
    if (s.family == Family::fc) {
        require(s.position == 1, "position i = " + str(s.position) + ": fc has one output vector (use --coordinate)");
        if (s.residual) {
            auto w = layer_widths(s);
            for (std::size_t l = 1; l < w.size(); ++l)
                require(w[l] == w[l - 1], "residual fc needs equal widths; layer " + str(static_cast<long>(l)) +
                                              " maps " + str(w[l - 1]) + " to " + str(w[l]));
        }
    }
}

Integer output_degree(const NetworkSpec& s) {
    Integer d;
    fmpz_set_ui(d.get(), static_cast<ulong>(block_degree(s)));
    fmpz_pow_ui(d.get(), d.get(), static_cast<ulong>(s.depth));
    return d;
}

Integer weight_degree(const NetworkSpec& s) {
    const long d = block_degree(s);
    const long m = s.family == Family::attention ? 4 : s.family == Family::hadamard ? d + 1 : d;
    Integer D(0);
    for (long l = 0; l < s.depth; ++l) D = D * Integer(d) + Integer(m);
    return D;
}

Integer layer_parameters(const NetworkSpec& s, long layer) {
    switch (s.family) {
        case Family::attention: return Integer(4 * s.dim * head_dim(s) * s.heads);
        case Family::hadamard: return Integer((s.block_degree + 1) * block_width(s) * s.dim);
        case Family::fc: {
            auto w = layer_widths(s);
            return Integer(s.block_degree) * Integer(w[static_cast<std::size_t>(layer + 1)]) *
                   Integer(w[static_cast<std::size_t>(layer)]);
        }
    }
    return Integer(0);
}

Integer parameter_count(const NetworkSpec& s) {
    Integer total(0);
    for (long l = 0; l < s.depth; ++l) total = total + layer_parameters(s, l);
    return total;
}

// ---------------------------------------------------------------- random weights

namespace {

// Shapes of every matrix, in file order, with a name for messages.
template <class Fn>
void for_each_shape(const NetworkSpec& s, Fn fn) {
    const long da = head_dim(s), w = block_width(s), d = s.block_degree;
    for (long l = 0; l < s.depth; ++l) {
        switch (s.family) {
            case Family::attention:
                for (long h = 0; h < s.heads; ++h) {
                    fn(l, h, "Q", da, s.dim);
                    fn(l, h, "K", da, s.dim);
                    fn(l, h, "V", da, s.dim);
                    fn(l, h, "O", s.dim, da);
                }
                break;
            case Family::hadamard:
                for (long k = 0; k < d; ++k) fn(l, k, "W", w, s.dim);
                fn(l, -1, "O", s.dim, w);
                break;
            case Family::fc: {
                auto ws = layer_widths(s);
                for (long k = 0; k < d; ++k)
                    fn(l, k, "W", ws[static_cast<std::size_t>(l + 1)], ws[static_cast<std::size_t>(l)]);
                break;
            }
        }
    }
}

Dense<Rational>& slot(Weights& wts, Family f, long l, long k, const std::string& name) {
    auto& layer = wts.layers[static_cast<std::size_t>(l)];
    if (f == Family::attention) {
        auto& h = layer.heads[static_cast<std::size_t>(k)];
        return name == "Q" ? h.Q : name == "K" ? h.K : name == "V" ? h.V : h.O;
    }
    return name == "O" ? layer.O : layer.W[static_cast<std::size_t>(k)];
}

Weights empty_weights(const NetworkSpec& s) {
    Weights w;
    w.layers.resize(static_cast<std::size_t>(s.depth));
    for (auto& l : w.layers) {
        if (s.family == Family::attention) l.heads.resize(static_cast<std::size_t>(s.heads));
        else l.W.resize(static_cast<std::size_t>(s.block_degree));
    }
    return w;
}

}  // namespace

Network random_network(const NetworkSpec& spec, std::uint64_t seed, long range) {
    validate(spec);
    if (range < 1) throw invalid_input("weight range " + std::to_string(range) + " must be at least 1");
    Rng rng(seed);
    Network net{spec, empty_weights(spec)};
    auto draw = [&](long r, long c) {
        Dense<Rational> m(r, c, Rational(0));
        for (auto& x : m.a) x = Rational(rng.range(-range, range));
        return m;
    };
    if (spec.embed_rank > 0) net.weights.embedding = draw(spec.dim, spec.embed_rank);
    for_each_shape(spec, [&](long l, long k, const std::string& name, long r, long c) {
        Dense<Rational> m = draw(r, c);
        if (name == "Q" && spec.attention_rank > 0)
            for (long i = spec.attention_rank; i < r; ++i)
                for (long j = 0; j < c; ++j) m(i, j) = Rational(0);
        slot(net.weights, spec.family, l, k, name) = std::move(m);
    });
    return net;
}

void check_shapes(const Network& net) {
    const NetworkSpec& s = net.spec;
    validate(s);
    Weights expected = empty_weights(s);
    auto check = [](const Dense<Rational>& m, long r, long c, const std::string& where) {
        if (m.rows != r || m.cols != c || static_cast<long>(m.a.size()) != r * c)
            throw invalid_input(where + ": shape " + std::to_string(m.rows) + "x" + std::to_string(m.cols) +
                                ", expected " + std::to_string(r) + "x" + std::to_string(c));
    };
    if (net.weights.layers.size() != expected.layers.size())
        throw invalid_input("weights have " + std::to_string(net.weights.layers.size()) + " layers, depth is " +
                            std::to_string(s.depth));
    if (s.embed_rank > 0) check(net.weights.embedding, s.dim, s.embed_rank, "embedding");
    for (std::size_t l = 0; l < expected.layers.size(); ++l) {
        const auto& have = net.weights.layers[l];
        if (have.heads.size() != expected.layers[l].heads.size() || have.W.size() != expected.layers[l].W.size())
            throw invalid_input("layer " + std::to_string(l) + ": wrong number of heads or slots");
    }
    for_each_shape(s, [&](long l, long k, const std::string& name, long r, long c) {
        const std::string where = "layers[" + std::to_string(l) + "]" +
                                  (s.family == Family::attention ? ".heads[" + std::to_string(k) + "]." + name
                                   : name == "O"                 ? ".O"
                                                                 : ".W[" + std::to_string(k) + "]");
        check(slot(const_cast<Weights&>(net.weights), s.family, l, k, name), r, c, where);
    });
}

// ---------------------------------------------------------------- JSON

namespace {

[[noreturn]] void bad(const std::string& path, const std::string& what) {
    throw invalid_input("weights JSON " + path + ": " + what);
}

const nlohmann::json& member(const nlohmann::json& j, const std::string& path, const char* key) {
    if (!j.is_object()) bad(path, "expected an object");
    auto it = j.find(key);
    if (it == j.end()) bad(path, std::string("missing key \"") + key + "\"");
    return *it;
}

long get_long(const nlohmann::json& j, const std::string& path, long lo) {
    if (!j.is_number_integer()) bad(path, "expected an integer, got " + j.dump());
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
    bad(path, "expected an integer or a \"p/q\" string, got " + j.dump());
}

Dense<Rational> get_matrix(const nlohmann::json& j, const std::string& path, long r, long c) {
    if (!j.is_array()) bad(path, "expected a matrix (list of rows), got " + j.dump());
    if (static_cast<long>(j.size()) != r)
        bad(path, "has " + std::to_string(j.size()) + " rows, expected " + std::to_string(r));
    Dense<Rational> m(r, c, Rational(0));
    for (long i = 0; i < r; ++i) {
        const auto& row = j[static_cast<std::size_t>(i)];
        const std::string rp = path + "[" + std::to_string(i) + "]";
        if (!row.is_array()) bad(rp, "expected a row (list), got " + row.dump());
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

Network network_from_json_value(const nlohmann::json& j) {
    if (!j.is_object()) bad("$", "expected an object at the top level");
    NetworkSpec s;
    const auto& fam = member(j, "$", "family");
    if (!fam.is_string()) bad("$.family", "expected a string, got " + fam.dump());
    try {
        s.family = family_from_string(fam.get<std::string>());
    } catch (const invalid_input& e) {
        bad("$.family", e.what());
    }
    s.tokens = get_long(member(j, "$", "tokens"), "$.tokens", 1);
    s.dim = get_long(member(j, "$", "dim"), "$.dim", 1);
    s.depth = get_long(member(j, "$", "depth"), "$.depth", 0);
    auto opt_long = [&](const char* key, long& out, long lo) {
        if (j.contains(key)) out = get_long(j[key], std::string("$.") + key, lo);
    };
    auto opt_bool = [&](const char* key, bool& out) {
        if (!j.contains(key)) return;
        if (!j[key].is_boolean()) bad(std::string("$.") + key, "expected true or false, got " + j[key].dump());
        out = j[key].get<bool>();
    };
    if (s.family == Family::attention) {
        s.heads = get_long(member(j, "$", "heads"), "$.heads", 1);
        opt_long("head_dim", s.head_dim, 1);
        opt_long("attention_rank", s.attention_rank, 0);
    } else {
        s.block_degree = get_long(member(j, "$", "block_degree"), "$.block_degree", 1);
        if (s.family == Family::hadamard) {
            s.width = get_long(member(j, "$", "width"), "$.width", 1);
            opt_bool("free", s.free_slots);
        } else {
            const auto& ws = member(j, "$", "widths");
            if (!ws.is_array()) bad("$.widths", "expected a list of widths, got " + ws.dump());
            for (std::size_t k = 0; k < ws.size(); ++k)
                s.widths.push_back(get_long(ws[k], "$.widths[" + std::to_string(k) + "]", 1));
        }
    }
    opt_bool("residual", s.residual);
    opt_long("position", s.position, 1);
    opt_long("coordinate", s.coordinate, 1);
    opt_long("embed_rank", s.embed_rank, 1);
    try {
        validate(s);
    } catch (const invalid_input& e) {
        bad("$", e.what());
    }

    Network net{s, empty_weights(s)};
    if (s.embed_rank > 0) net.weights.embedding = get_matrix(member(j, "$", "embedding"), "$.embedding", s.dim, s.embed_rank);
    const auto& layers = member(j, "$", "layers");
    if (!layers.is_array()) bad("$.layers", "expected a list of layers, got " + layers.dump());
    if (static_cast<long>(layers.size()) != s.depth)
        bad("$.layers", "has " + std::to_string(layers.size()) + " layers, depth is " + std::to_string(s.depth));
    for_each_shape(s, [&](long l, long k, const std::string& name, long r, long c) {
        const std::string lp = "$.layers[" + std::to_string(l) + "]";
        const auto& layer = layers[static_cast<std::size_t>(l)];
        const nlohmann::json* node = nullptr;
        std::string path;
        if (s.family == Family::attention) {
            const auto& heads = member(layer, lp, "heads");
            if (!heads.is_array() || static_cast<long>(heads.size()) != s.heads)
                bad(lp + ".heads", "expected a list of " + std::to_string(s.heads) + " heads");
            const std::string hp = lp + ".heads[" + std::to_string(k) + "]";
            node = &member(heads[static_cast<std::size_t>(k)], hp, name.c_str());
            path = hp + "." + name;
        } else if (name == "O") {
            node = &member(layer, lp, "O");
            path = lp + ".O";
        } else {
            const auto& ws = member(layer, lp, "W");
            if (!ws.is_array() || static_cast<long>(ws.size()) != s.block_degree)
                bad(lp + ".W", "expected a list of " + std::to_string(s.block_degree) + " matrices");
            node = &ws[static_cast<std::size_t>(k)];
            path = lp + ".W[" + std::to_string(k) + "]";
        }
        Dense<Rational> m = get_matrix(*node, path, r, c);
        if (name == "Q" && s.attention_rank > 0)
            for (long i = s.attention_rank; i < r; ++i)
                for (long q = 0; q < c; ++q)
                    if (!m(i, q).is_zero())
                        bad(path + "[" + std::to_string(i) + "][" + std::to_string(q) + "]",
                            "must be 0: attention rank " + std::to_string(s.attention_rank) + " keeps only the first rows of Q");
        slot(net.weights, s.family, l, k, name) = std::move(m);
    });
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
    if (s.family == Family::attention) {
        j["heads"] = s.heads;
        if (s.head_dim > 0) j["head_dim"] = s.head_dim;
        if (s.attention_rank > 0) j["attention_rank"] = s.attention_rank;
    } else {
        j["block_degree"] = s.block_degree;
        if (s.family == Family::hadamard) {
            j["width"] = block_width(s);
            j["free"] = s.free_slots;
        } else {
            auto w = layer_widths(s);
            j["widths"] = std::vector<long>(w.begin() + 1, w.end());
        }
    }
    j["residual"] = s.residual;
    j["position"] = s.position;
    j["coordinate"] = s.coordinate;
    if (s.embed_rank > 0) {
        j["embed_rank"] = s.embed_rank;
        j["embedding"] = matrix_json(net.weights.embedding);
    }
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& l : net.weights.layers) {
        nlohmann::json jl;
        if (s.family == Family::attention) {
            jl["heads"] = nlohmann::json::array();
            for (const auto& h : l.heads)
                jl["heads"].push_back({{"Q", matrix_json(h.Q)}, {"K", matrix_json(h.K)}, {"V", matrix_json(h.V)}, {"O", matrix_json(h.O)}});
        } else {
            jl["W"] = nlohmann::json::array();
            for (const auto& m : l.W) jl["W"].push_back(matrix_json(m));
            if (s.family == Family::hadamard) jl["O"] = matrix_json(l.O);
        }
        layers.push_back(std::move(jl));
    }
    j["layers"] = std::move(layers);
    return j;
}

}  // namespace

Network network_from_json(const std::string& text) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw invalid_input("weights JSON is not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
    }
    return network_from_json_value(j);
}

std::string network_to_json(const Network& net, int indent) { return network_to_json_value(net).dump(indent < 0 ? -1 : indent); }

Network read_network(const std::string& path) {
    return network_from_json_value(detail::read_json_file(path, "weights file"));
}

void write_network(const Network& net, const std::string& path) {
    detail::write_file_atomically(path, network_to_json(net) + "\n", "weights file");
}

}  // namespace seprank
