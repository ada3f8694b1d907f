// seprank — the three families of stacked polynomial layers (docs/theory.md §1) and their weights.
//
//   attention  y^{l+1,i} = Σ_h W^O_h Σ_j ⟨W^Q_h y^{l,i}, W^K_h y^{l,j}⟩ W^V_h y^{l,j}
//              (Levine et al. 2020, eq. 7.6); W^Q,W^K,W^V ∈ Q^{da×dx}, W^O ∈ Q^{dx×da}.
//   hadamard   y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j}) (tied), or
//              with slots 2..d summed over independent tokens (free); W_k ∈ Q^{w×dx}.
//   fc         v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l), v^0 = (x^1,…,x^N) flattened.
//   stack      a list of token layers of the kinds below (LayerSpec), each with its own
//              sizes and residual flag; the degree is the product of the layers' degrees.
//   power      Kileel–Trager–Bruna: x ∈ Q^{d0} (the N·dx inputs flattened),
//              W_h σ(W_{h−1} σ(… σ(W_1 x))), σ(t) = t^r entrywise; degree r^{h−1}.
// Options: residual y^{l+1} += y^l; output coordinate p of position i; embedding
// x^j = M w^j with M ∈ Q^{dx×r}; low-rank attention rank(W^Qᵀ W^K) ≤ k (realised by
// keeping only the first k rows of W^Q non-zero).
//
// Degrees (exact, by construction): output degree in the inputs d^L (attention d = 3);
// weight degree D_L = d·D_{L−1} + m with m the weight matrices on one path of a block
// (attention 4, hadamard d+1, fc d), D_0 = 0.
#pragma once

#include "seprank/integer.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace seprank {

// The families. Enumerators are numbered 0, 1, … without gaps (all_families() relies on
// it). Adding one: docs/network.md, "Adding a family".
enum class Family { attention, hadamard, fc, stack, power };

// The family's name ("attention", "hadamard", "fc", "stack", "power"; FamilyInfo::name),
// internal_error for a value outside the enum; family_from_string is its inverse (exact,
// case-sensitive). O(1) (a handful of families).
std::string to_string(Family f);
Family family_from_string(const std::string& s);  // invalid_input naming the value

// What a family is and which NetworkSpec fields it uses, for code that prints, sweeps or
// draws specs without naming families.
struct FamilyInfo {
    Family family;
    const char* name;          // as in to_string, JSON and the CLI
    long fixed_block_degree;   // d when the family fixes it (attention: 3); 0 when block_degree is free
    bool heads;                // uses heads H, head_dim da and attention_rank k
    bool width;                // uses one width w (hadamard)
    bool widths;               // uses per-layer widths w_1..w_L (fc)
    bool free_slots;           // uses tied/free slots (hadamard)
    bool per_position;         // one output vector per token position (false: a single vector, i = 1)
    bool uniform;              // L copies of one degree-d block (the d^L claims and budget comparisons apply)
    bool layers;               // described by a list of layers (NetworkSpec::layers)
    bool depth_from_widths;    // L is the length of the widths list (power), not an option of its own
    long default_tokens;       // N when the command line does not give it (power: 1, so --dim is d0)
    const char* degree_key;    // JSON key (and CLI word) of block_degree: "block_degree", "power"; nullptr when fixed or unused
    bool levine_theorems;      // Levine et al.'s Theorems 7.1-7.3 are stated for it (attention): the bounds columns and
                               // Theorem 7.3's scales apply to its networks without residual (embedding.hpp, columns.hpp)
    bool moment_expansion;     // expand's moment variant computes it: every layer acts on the tokens through their Gram
                               // matrix (attention; docs/expand.md)
};

// The static FamilyInfo of f; internal_error for a value outside the enum. O(1).
const FamilyInfo& family_info(Family f);
// Whether the family reads its block degree under a key of its own (degree_key other than
// "block_degree": power's `power`, the CLI's --power), so that `block_degree` given to it
// is another family's option. No precondition. O(length of the key).
inline bool own_degree_key(const FamilyInfo& info) {
    return info.degree_key != nullptr && std::string(info.degree_key) != "block_degree";
}
// How a caller names the degree options in its messages: the CLI's "--block-degree",
// "--power" and "--power r"; Python's "block_degree", "power" and "power=r".
struct DegreeSpelling {
    const char* block;
    const char* power;
    const char* power_form;
};
inline constexpr DegreeSpelling kCliDegreeSpelling{"--block-degree", "--power", "--power r"};
inline constexpr DegreeSpelling kPythonDegreeSpelling{"block_degree", "power", "power=r"};
// The block degree of a spec of family `info` (a stack of layers when `stack`) from the
// degree options a caller was given, each optional: block_degree (hadamard, fc) and
// power (family power's own name for it); `fallback` when neither is given. Refused with
// invalid_input, one line naming the value in the caller's spelling `sp`: block_degree for
// a stack (its layers set their degrees) or for family power (another family's option, not
// an alias); power for any family but power; both, when they differ. One rule for the
// CLI and the Python package. O(1).
long resolve_block_degree(const FamilyInfo& info, bool stack, const long* block_degree, const long* power, long fallback,
                          const DegreeSpelling& sp);
// Every family, in enum order, and their names in the same order. No precondition. O(1)
// (all_families: a static list, built once; family_names copies the few names).
const std::vector<Family>& all_families();
std::vector<std::string> family_names();

// ---------------------------------------------------------------- layer kinds
// The layers of a stack (family stack, `--layers SPEC`). Each kind's behaviour (forward
// map, degree, weight degree, parameters, symmetries, parity, names) lives in one traits
// unit, src/network/layers.hpp; these are only its fields. Every layer maps N token vectors of
// width dx to N token vectors of width dx (conv: to ⌊(N − k)/s⌋ + 1 of them); `residual`
// adds the layer's input.

// y^i ← Σ_h W^O_h Σ_j ⟨W^Q_h y^i, W^K_h y^j⟩^s W^V_h y^j; W^Q,W^K,W^V ∈ Q^{da×dx}. Degree 2s+1.
struct AttentionLayer {
    long heads = 1;         // H
    long head_dim = 0;      // da; 0 means dx / H
    long score_degree = 1;  // s
    long rank = 0;          // k: rows k+1..da of W^Q are 0 (0: no cap)
    bool residual = false;
    // Field-wise equality, O(1). Spelled out (not `= default`): the public headers compile
    // as C++17.
    bool operator==(const AttentionLayer& o) const {
        return heads == o.heads && head_dim == o.head_dim && score_degree == o.score_degree && rank == o.rank && residual == o.residual;
    }
    bool operator!=(const AttentionLayer& o) const { return !(*this == o); }
};
// per token y^i ← W2 (W1 y^i)^{⊙r}; W1 ∈ Q^{w×dx}, W2 ∈ Q^{dx×w}. Degree r.
struct MlpLayer {
    long power = 2;  // r
    long width = 0;  // w; 0 means dx
    bool residual = false;
    // Field-wise equality, O(1).
    bool operator==(const MlpLayer& o) const { return power == o.power && width == o.width && residual == o.residual; }
    bool operator!=(const MlpLayer& o) const { return !(*this == o); }
};
// family 2's block: y^i ← W^O Σ_j (W_1 y^i ⊙ W_2 y^j ⊙ … ⊙ W_d y^j) (or free slots). Degree d.
struct HadamardLayer {
    long degree = 3;  // d
    long width = 0;   // w; 0 means dx
    bool free = false;
    bool residual = false;
    // Field-wise equality, O(1).
    bool operator==(const HadamardLayer& o) const {
        return degree == o.degree && width == o.width && free == o.free && residual == o.residual;
    }
    bool operator!=(const HadamardLayer& o) const { return !(*this == o); }
};
// 1-D convolution along the token axis, then t ↦ t^r entrywise (Shahverdi–Marchetti–Kohn):
// y'^i ← (Σ_{j=1..k} W_j y^{(i−1)s+j})^{⊙r}, W_j ∈ Q^{dx×dx} (dx = 1: one channel, the
// filter (w_1..w_k)); N tokens become ⌊(N − k)/s⌋ + 1. Degree r (power=1: a linear
// convolution, the paper's last layer). No residual (the token count changes).
struct ConvLayer {
    long filter = 2;  // k
    long stride = 1;  // s
    long power = 2;   // r
    bool residual = false;  // always false: not a key of the kind
    // Field-wise equality, O(1).
    bool operator==(const ConvLayer& o) const {
        return filter == o.filter && stride == o.stride && power == o.power && residual == o.residual;
    }
    bool operator!=(const ConvLayer& o) const { return !(*this == o); }
};
// The layers below read their input tokens flattened, as one vector of n·w entries (n
// tokens of width w), and write one vector: they come last in a stack.
// A fully connected polynomial layer: v' = (W_1 v) ⊙ … ⊙ (W_d v), W_k ∈ Q^{w'×(n·w)}.
// Degree d. `fc` is family fc's block (--family fc: L of them, widths w_1..w_L).
struct FcLayer {
    long degree = 2;  // d
    long width = 0;   // w'; 0 means n·w (its input's size)
    bool residual = false;  // v' += v (needs w' = n·w)
    // Field-wise equality, O(1).
    bool operator==(const FcLayer& o) const { return degree == o.degree && width == o.width && residual == o.residual; }
    bool operator!=(const FcLayer& o) const { return !(*this == o); }
};
// A dense layer with a power activation (Kileel–Trager–Bruna): v' = (W v)^{⊙r},
// W ∈ Q^{w'×(n·w)}; power=1 is linear. Degree r. Family power of widths d_1..d_h is h of
// them, power r but the last, linear one.
struct DenseLayer {
    long width = 0;  // w'; 0 means n·w
    long power = 2;  // r
    bool residual = false;  // always false: not a key of the kind
    // Field-wise equality, O(1).
    bool operator==(const DenseLayer& o) const { return width == o.width && power == o.power && residual == o.residual; }
    bool operator!=(const DenseLayer& o) const { return !(*this == o); }
};
using LayerSpec = std::variant<AttentionLayer, MlpLayer, HadamardLayer, ConvLayer, FcLayer, DenseLayer>;

// SPEC: comma-separated layers, each `kind[:key=value]…[:flag]` (docs/network.md,
// "Stacks"), e.g. "attention:score-degree=2,mlp:power=2". invalid_input names the bad
// kind, key or value, and each value outside the ranges that need no size; empty refused.
// O(length of SPEC).
std::vector<LayerSpec> parse_layers(const std::string& spec);
// The canonical text of one layer (keys at their defaults left out) and of a list
// ("attention,mlp:power=3"); parse_layers(layers_to_string(v)) == v. No precondition (any
// field values are printed as they are). O(1) per layer (its few keys).
std::string to_string(const LayerSpec& layer);
std::string layers_to_string(const std::vector<LayerSpec>& layers);
// The kind names, in variant order ("attention", "mlp", "hadamard", "conv", "fc",
// "dense"). O(1).
std::vector<std::string> layer_kind_names();
// The shortest prefix u of `layers` such that `layers` is u repeated |layers|/|u| times
// (the whole list when no shorter prefix repeats; {} for {}): the list a stack's
// `--layers SPEC` names before `--depth` repeats it, in its canonical form (table's
// `layers` column). Cost: O(|layers|²) comparisons.
std::vector<LayerSpec> layers_period(const std::vector<LayerSpec>& layers);

// The deepest network validate() accepts: depth L <= kMaxDepth (checked, invalid_input).
inline constexpr long kMaxDepth = 64;
// `unit` repeated `copies` times (layers_period's inverse): a stack's `--layers SPEC` at
// `--depth L`, or a table's `layers` column at its depth. nullopt when copies < 0 or the
// list would pass kMaxDepth layers (each caller names what was asked). O(the result).
std::optional<std::vector<LayerSpec>> repeat_layers(const std::vector<LayerSpec>& unit, long copies);
// The other limits validate() checks (invalid_input above them; docs/usage.md §1.2): every
// size (N, dx, H, da, w, each fc width, a layer's sizes) at most kMaxSize, so that products
// of three fit in a long; a block degree or power at most kMaxBlockDegree; an embedding
// rank at most kMaxEmbedRank.
inline constexpr long kMaxSize = 1L << 20;
inline constexpr long kMaxBlockDegree = 64;
inline constexpr long kMaxEmbedRank = 64;

struct NetworkSpec {
    Family family = Family::attention;
    long tokens = 4;        // N
    long dim = 2;           // dx
    long heads = 1;         // H (attention)
    long head_dim = 0;      // da; 0 means dx / H (H must divide dx)
    long depth = 1;         // L
    long block_degree = 3;  // d (attention: always 3)
    long width = 0;         // w (hadamard); 0 means dx
    std::vector<long> widths;  // w_1..w_L (fc); empty means N·dx at every layer
    bool residual = false;
    bool free_slots = false;   // hadamard: slots 2..d over independent tokens
    long embed_rank = 0;       // r; 0 means no embedding (variables are x_{j,c})
    long attention_rank = 0;   // k; 0 means no cap
    long position = 1;         // i (1-based)
    long coordinate = 1;       // p (1-based)
    std::vector<LayerSpec> layers;  // stack: the layers in order, one per depth (size = depth)
};

// A family written as the stack it is shorthand for: attention is L copies of
// `attention:heads=H:head-dim=da:rank=k[:residual]`, hadamard L copies of
// `hadamard:degree=d:width=w[:free][:residual]`, a stack its own layers; fc and power,
// which read their tokens flattened, their `fc` and `dense` layers. The stack computes
// the same network (degrees, draws, weights file matrices, forward map). Precondition: a
// valid spec (not checked; a list shorter than the depth is refused, invalid_input, not
// read past). O(depth).
std::vector<LayerSpec> stack_layers(const NetworkSpec& s);
// The other way: a stack of depth >= 1 whose layers are all one family's block, written as
// that family (same N, dx, embedding, i and p), so that it carries what the family carries
// (Levine et al.'s theorem columns, heads, width, block degree); any other spec as it is.
// stack_layers(family_form(s)) == stack_layers(s). Precondition: a valid spec (not
// checked). O(depth).
NetworkSpec family_form(const NetworkSpec& s);

// Checks every field, throwing invalid_input with one message naming the bad value, and
// resource_limit when the weights and variables would pass default_max_memory() (limits.hpp).
// This defines a valid spec. O(depth) (a stack's layers, fc's widths; fc and power O(depth²)
// through parameter_count). Library code does not call it on its inputs: a function that
// needs a checked spec takes a ValidSpec (below), whose construction runs it once.
void validate(const NetworkSpec& s);

// Resolved sizes (after defaults). These and the other functions taking a bare
// `const NetworkSpec&` read the fields only. Precondition (not checked): a valid spec;
// pass a ValidSpec, or a Network's spec after check_shapes. O(1) each (layer_widths and,
// below, the folds over the layers: O(depth) operations, on exact integers for those
// returning an Integer).
long head_dim(const NetworkSpec& s);                    // checks H >= 1 where da = dx / H (invalid_input)
long block_width(const NetworkSpec& s);                  // hadamard w
std::vector<long> layer_widths(const NetworkSpec& s);    // fc: w_0 = N·dx, w_1..w_L
long input_vars_per_token(const NetworkSpec& s);         // r when embedded, else dx
long block_degree(const NetworkSpec& s);                 // 3 for attention; power: r; stack: 0 (no single one)
long output_dim(const NetworkSpec& s);                   // range of coordinate p: dx, fc w_L
long output_positions(const NetworkSpec& s);             // range of position i: N; fc, power 1; conv layers fewer

// Per layer l (0-based): its degree d_l in its input and its weight increment m_l (the
// weight matrices on one path of it), so that a stack folds: degree ∏ d_l, weight
// degree D_l = d_l·D_{l−1} + m_l, D_0 = 0 (every family is such a fold). Precondition
// (not checked): 0 <= layer < depth. O(1) each.
long layer_degree(const NetworkSpec& s, long layer);
long layer_weight_increment(const NetworkSpec& s, long layer);
// ∏ d_l (d^L for the uniform families) as an exact integer. O(depth) exact products (the
// result has about L·log2 d bits).
Integer output_degree(const NetworkSpec& s);
// Weight degree D_L (see header comment) as an exact integer. O(depth) exact products and
// sums.
Integer weight_degree(const NetworkSpec& s);
// Parameters in one layer l (0-based; 0 <= l < depth, not checked) and in the whole
// network. layer_parameters O(1), but O(depth) for fc and power (they list the widths);
// parameter_count O(depth) exact sums (fc, power: O(depth²)).
Integer layer_parameters(const NetworkSpec& s, long layer);
Integer parameter_count(const NetworkSpec& s);

// ---------------------------------------------------------------- weights

// A small dense row-major matrix of weights. Construction O(rows·cols) (r·c must fit in a
// size_t; not checked); element access O(1), indices not checked.
template <class T>
struct Dense {
    long rows = 0, cols = 0;
    std::vector<T> a;
    Dense() = default;
    Dense(long r, long c, const T& fill) : rows(r), cols(c), a(static_cast<std::size_t>(r * c), fill) {}
    const T& operator()(long i, long j) const { return a[static_cast<std::size_t>(i * cols + j)]; }
    T& operator()(long i, long j) { return a[static_cast<std::size_t>(i * cols + j)]; }
};

template <class T>
struct HeadWeights {
    Dense<T> Q, K, V, O;
};

template <class T>
struct LayerWeights {
    std::vector<HeadWeights<T>> heads;  // attention
    std::vector<Dense<T>> W;            // hadamard W_1..W_d, fc W_1..W_d
    Dense<T> O;                         // hadamard
};

template <class T>
struct NetWeights {
    std::vector<LayerWeights<T>> layers;
    Dense<T> embedding;  // dx × r; empty without embedding
};

using Weights = NetWeights<Rational>;

// Converts every weight with f (e.g. to residues mod p or doubles), keeping the shapes. No
// precondition beyond f's own (its exceptions pass through). O(weights) calls of f.
template <class To, class From, class F>
NetWeights<To> map_weights(const NetWeights<From>& w, F f) {
    auto md = [&](const Dense<From>& d) {
        Dense<To> r;
        r.rows = d.rows;
        r.cols = d.cols;
        r.a.reserve(d.a.size());
        for (const auto& x : d.a) r.a.push_back(f(x));
        return r;
    };
    NetWeights<To> out;
    out.embedding = md(w.embedding);
    for (const auto& l : w.layers) {
        LayerWeights<To> nl;
        for (const auto& h : l.heads) nl.heads.push_back({md(h.Q), md(h.K), md(h.V), md(h.O)});
        for (const auto& m : l.W) nl.W.push_back(md(m));
        nl.O = md(l.O);
        out.layers.push_back(std::move(nl));
    }
    return out;
}

// A NetworkSpec that passed validate(), so that code given one need not check it again
// (as a parsed path or config is passed on instead of its text). Constructing one from a
// NetworkSpec validates it (invalid_input naming the bad value; resource_limit, as
// validate, when its weights would pass the memory limit); the constructor is
// implicit, so a function taking `const ValidSpec&` accepts a bare NetworkSpec and checks
// it once, at that call, while a ValidSpec (to_spec in the CLI, spec dicts in Python,
// check_shapes for a Network) is passed on with no check. Read-only: get(), ->, or the
// conversion to `const NetworkSpec&`; to change a field, copy get(), edit, and convert
// again (which validates the new spec). Construction: validate's cost, O(depth), plus the
// copy; the accessors O(1).
class ValidSpec {
public:
    ValidSpec(NetworkSpec s);  // NOLINT(google-explicit-constructor): the checked conversion, see above
    // Copies only: a move copies too, so an object moved from still holds its checked spec
    // (a moved-from stack kept its depth and lost its layers). O(size of the spec).
    ValidSpec(const ValidSpec&) = default;
    ValidSpec& operator=(const ValidSpec&) = default;
    ~ValidSpec() = default;
    const NetworkSpec& get() const noexcept { return s_; }
    operator const NetworkSpec&() const noexcept { return s_; }  // NOLINT(google-explicit-constructor)
    const NetworkSpec* operator->() const noexcept { return &s_; }

private:
    NetworkSpec s_;
};

// A field that a valid spec sets but its network never reads, and why (a one-layer power
// network's power r: its only layer is the last, which is linear; a hadamard block of
// degree 1's free slots: it has no slots 2..d). `field` is the JSON key (the CLI's option
// with '_' written '-'); a stack's layer gives "layers", its reason naming the layer and
// field ("layer 1's free is ignored: …"). Front ends turn these into notes when the user
// gave the field.
struct UnusedField {
    std::string field;
    std::string reason;
};
// The fields of s that its network ignores, in a fixed order; empty for most specs. The
// family's traits decide (families.hpp, unused). Precondition: s is valid (ValidSpec).
// O(1).
std::vector<UnusedField> unused_fields(const NetworkSpec& s);

// fn(matrix) for every matrix of w (a NetWeights, const or not) in file order: the
// embedding, then per layer each head's Q, K, V, O, the blocks W_1..W_d and O. Matrices a
// layer kind does not use are empty. O(matrices) calls of fn.
template <class NW, class Fn>
void for_each_dense(NW& w, Fn&& fn) {
    fn(w.embedding);
    for (auto& l : w.layers) {
        for (auto& h : l.heads) {
            fn(h.Q);
            fn(h.K);
            fn(h.V);
            fn(h.O);
        }
        for (auto& m : l.W) fn(m);
        fn(l.O);
    }
}

// Pointers to every weight entry of w, in the order random_network draws them
// (for_each_dense's, each matrix row-major). The pointers live as long as w is not
// resized. O(weights).
inline std::vector<Rational*> weight_entries(Weights& w) {
    std::vector<Rational*> out;
    for_each_dense(w, [&out](Dense<Rational>& d) {
        for (auto& x : d.a) out.push_back(&x);
    });
    return out;
}

// A network: its description and its exact weights. An open aggregate, so its spec and
// weights are checked where a Network enters the library: its factories (random_network,
// network_from_json, read_network) make checked networks, and the public functions
// taking a `const Network&` run check_shapes once on entry and pass the ValidSpec it
// returns inward. The exceptions say so: without_embedding and with_embedding
// (embedding.hpp, which only copy).
struct Network {
    NetworkSpec spec;
    Weights weights;
};

// Default range of random integer weights: uniform on [-kDefaultWeightRange, kDefaultWeightRange].
inline constexpr long kDefaultWeightRange = 5;

// Random integer weights, uniform on [-range, range] from seprank::Rng(seed) in a fixed
// order (layer, head, Q, K, V, O, row-major; embedding first). Low-rank attention keeps
// rows k+1..da of W^Q at zero. Preconditions: the spec valid (checked by the conversion
// to ValidSpec when given a bare NetworkSpec; not again when given a ValidSpec); range >= 1
// (checked, invalid_input). Cost O(parameters): every entry is drawn, structural zeros too.
Network random_network(const ValidSpec& spec, std::uint64_t seed, long range = kDefaultWeightRange);

// The network of net's first `depth` layers with their weights: the spec's depth, a
// stack's layer list and the widths of fc and power cut to them; the embedding and the
// output position and coordinate kept (degree per depth, docs/degree.md). Checks net
// (check_shapes), 1 <= depth <= net.spec.depth (invalid_input naming depth), and the
// result (invalid_input, e.g. when the output coordinate does not fit a narrower last
// layer). Cost: a copy of those layers' weights.
Network first_layers(const Network& net, long depth);

// The check of a Network at the library's boundary: validates net.spec (invalid_input
// naming the bad value) and checks that the weights have the shapes it requires
// (invalid_input naming the first bad matrix). Returns the spec as a ValidSpec for the
// code that goes on with the network. The library's functions taking a Network call it
// on entry; call it yourself on a Network assembled or edited by hand before passing it
// to one of the exceptions named above. Cost: validate's, plus O(depth + number of weight
// matrices): the shapes are compared, the entries are not read.
ValidSpec check_shapes(const Network& net);

// JSON weights file (docs/theory.md §2.4), as text. Errors (invalid_input) name the JSON path of
// the first bad value, or the byte offset where the text stops being JSON. The network is
// checked as check_shapes does (spec and shapes). Cost O(length of the text) to parse, plus
// the exact rationals it holds.
Network network_from_json(const std::string& text);
// The weights file's JSON for net (check_shapes first, invalid_input). indent: spaces per
// level (1, as write_network writes files; at most 64, invalid_input), or -1 for one line. Cost O(weights · digits).
std::string network_to_json(const Network& net, int indent = 1);
// network_from_json of the file at path: invalid_input naming the path when it cannot be
// opened or is a directory; resource_limit before reading when 32 bytes per byte of text
// (the parsed tree) would pass default_max_memory() (limits.hpp). Cost as network_from_json.
Network read_network(const std::string& path);
// Writes network_to_json(net) atomically (temporary file + rename): nothing half-written
// on failure (invalid_input naming the path when it cannot be opened, resource_limit when
// the write fails). Cost as
// network_to_json, plus the write.
void write_network(const Network& net, const std::string& path);
// Throws invalid_input unless PATH could be written by write_network (a regular file or
// a new name, in an existing, writable directory; an empty path is refused). Writes
// nothing. O(1): two stat calls and an access check.
void check_network_target(const std::string& path);

// Whether f is homogeneous in its input variables (of degree d^L): true for every family
// without a residual connection (each block is a product of linear maps, no constants).
// Precondition: a valid spec (not checked). O(1), a stack O(depth).
bool is_homogeneous(const NetworkSpec& s);

}  // namespace seprank
