#include "seprank/columns.hpp"

#include "seprank/bounds.hpp"
#include "seprank/embedding.hpp"
#include "seprank/error.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace seprank {

namespace {

// Rounds to a multiple of `unit` (divide last, so that 2.465 prints as 2.465).
double round_to(double x, double unit) {
    const double inv = std::round(1.0 / unit);
    return std::round(x * inv) / inv;
}

// Theorems 7.1/7.2 are about plain attention (FamilyInfo::levine_theorems): no residual,
// no embedding below dx (r >= dx changes nothing, Theorem 7.3), no attention-rank cap,
// da = dx/H. A stack of L plain attention layers is attention (family_form).
bool has_bounds(const RowSource& s) {
    if (!s.spec || !s.answer) return false;
    const NetworkSpec n = family_form(*s.spec);
    return family_info(n.family).levine_theorems && !n.residual && (n.embed_rank == 0 || n.embed_rank >= n.dim) &&
           n.attention_rank == 0 && head_dim(n) * n.heads == n.dim;
}

double log3_rank(const RankAnswer& a) {
    return a.value > 0 ? std::log(static_cast<double>(a.value)) / std::log(3.0) : NAN;
}

// An exact integer given as decimal digits: a JSON number when it fits in 64 bits (every
// value a computation can reach), its digits as text only beyond that.
Value exact_integer(const std::string& digits) {
    if (digits.empty()) return {};
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(digits.c_str(), &end, 10);
    if (errno == 0 && end && *end == '\0') return Value(v);
    return Value(digits);
}

Value rounded_or_null(double x, double unit) { return std::isnan(x) ? Value() : Value(round_to(x, unit)); }

TheoremBounds bounds_of(const RowSource& s) {
    const NetworkSpec n = family_form(*s.spec);
    return levine_bounds(n.dim, n.heads, n.depth);
}

Theorem73Scales t73_of(const RowSource& s) { return s.spec ? theorem73_scales(*s.spec) : Theorem73Scales{}; }

// Getters: `A` reads the answer, `S` the spec; both give null without their source.
#define A(expr) [](const RowSource& s) -> Value { if (!s.answer) return {}; const RankAnswer& a = *s.answer; (void)a; return (expr); }
#define S(expr) [](const RowSource& s) -> Value { if (!s.spec) return {}; const NetworkSpec& n = *s.spec; (void)n; return (expr); }
// `F` reads the spec in its family form: a one-kind stack carries its family's heads, width, degree.
#define F(expr) [](const RowSource& s) -> Value { if (!s.spec) return {}; const NetworkSpec n = family_form(*s.spec); return (expr); }

std::vector<Column> make_columns() {
    return {
        {"network", "one-line description of the network", S(describe(n))},
        {"family", "attention | hadamard | fc | stack | power", S(to_string(n.family))},
        {"layers", "a stack's layers, canonical SPEC text of the list --depth repeats (layers_period; empty for other families)",
         S(family_info(n.family).layers ? layers_to_string(layers_period(n.layers)) : std::string())},
        {"tokens", "N, the number of tokens", S(n.tokens)},
        {"dim", "dx, the token dimension", S(n.dim)},
        {"heads", "H (0 for families without heads; a stack of one attention layer repeated: its H)", F(family_info(n.family).heads ? n.heads : 0L)},
        {"block_degree", "d, the degree of one block (3 for attention; 0 for a stack of several kinds)", F(block_degree(n))},
        {"width", "w of a hadamard block (0 for other families)", F(family_info(n.family).width ? block_width(n) : 0L)},
        {"depth", "L, the number of layers; a stack: all its layers, the SPEC's length times the copies --depth asked for ('attention,mlp' at --depth 2: 4), which guess reads as the variable copies", S(n.depth)},
        {"residual", "whether y^{l+1} += y^l (a stack: whether its one repeated layer is residual)", F(n.residual)},
        {"embed_rank", "r of the embedding x^j = M w^j (0: no embedding)", S(n.embed_rank)},
        {"head_dim", "da, the attention head dimension (0 for families without heads)", F(family_info(n.family).heads ? head_dim(n) : 0L)},
        {"attention_rank", "k, the cap on rank(W^Q^T W^K) (0: no cap)", F(n.attention_rank)},
        {"position", "i, the output position", S(n.position)},
        {"partition", "the token partition A|B", [](const RowSource& s) -> Value {
             if (s.answer && !s.answer->partition.empty()) return s.answer->partition;
             return s.partition.empty() ? Value() : Value(s.partition);
         }},
        {"degree", "formal degree of f: d^L for a network, the degree of generic weights' f (given weights may cancel to less: expand prints the actual one); exact integer, JSON number, digits as text only beyond 64 bits", [](const RowSource& s) -> Value {
             if (s.answer && !s.answer->degree.empty()) return exact_integer(s.answer->degree);
             return s.spec ? exact_integer(output_degree(*s.spec).str()) : Value();
         }},
        {"params", "parameters of the network (exact integer; JSON number, digits as text only beyond 64 bits)", S(exact_integer(parameter_count(n).str()))},
        {"terms", "terms of the expanded f (null when f was not expanded)", A(a.terms >= 0 ? Value(a.terms) : Value())},
        {"rank", "the rank (label, and kind where shown, say what it is)", A(a.value)},
        {"kind", "exact | modular-lower-bound | generic | numerical", A(to_string(a.kind))},
        {"certified", "true only for a certain value: an exact rank over Q, or a generic rank whose every degree block reached its cap", A(a.certified())},
        {"label", "certified | generic lower bound | probabilistic (p <= δ) | lower bound", A(a.label())},
        {"quantity", "what the value is the rank of: sep | grid | matrix | generic sep | dimension", A(a.quantity)},
        {"bound", "how the value relates to sep: sep | generic sep | lower bound of sep (null for a bare matrix or a dimension)", A(
             a.quantity == "matrix" || a.quantity == "dimension" ? Value() : Value(!a.certified() ? "lower bound of sep" : a.quantity == "sep" ? "sep" : a.quantity == "generic sep" ? "generic sep" : "lower bound of sep"))},
        {"method", "flattening | grid | evaluation | matrix", A(a.method)},
        {"variant", "the algorithm that produced the value", A(a.variant.empty() ? Value() : Value(a.variant))},
        {"field", "Q | Z/p: where the final rank was computed", A(a.field)},
        {"rows", "rows of the matrix ranked", A(a.rows)},
        {"cols", "columns of the matrix ranked", A(a.cols)},
        {"prime", "the modulus the value was read at (null: none)", A(a.prime ? Value(static_cast<unsigned long>(a.prime)) : Value())},
        {"primes_used", "moduli used in all, certificate included", A(a.primes_used)},
        {"converged", "evaluation/generic: the rank stopped growing (else a lower bound only)", A(a.method == "evaluation" || a.trials > 0 ? Value(a.converged) : Value())},
        {"evaluations", "evaluation: forward passes", A(a.method == "evaluation" || a.evaluations > 0 ? Value(a.evaluations) : Value())},
        {"block_ranks", "graded evaluation: rank of each degree block; block certificate: rank of each connected block", A(a.block_ranks.empty() ? Value() : Value(a.block_ranks))},
        {"kernel_blocks", "block certificate: the blocks (0-based, into block_ranks) below their smaller side, proven by exact kernel vectors", A(a.variant == "blocks" ? Value(a.kernel_blocks) : Value())},
        {"kernel_bits", "block certificate: the largest numerator or denominator of those kernel vectors, bits", A(a.variant == "blocks" && !a.kernel_blocks.empty() ? Value(a.kernel_bits) : Value())},
        {"trials", "generic: weight draws run (fewer than asked once the kind is settled: exact, or not converged)", A(a.trials > 0 ? Value(a.trials) : Value())},
        {"trial_ranks", "generic: the rank of each draw", A(a.trial_ranks.empty() ? Value() : Value(a.trial_ranks))},
        {"degenerate", "generic: draws below the maximum", A(a.trials > 0 ? Value(a.degenerate) : Value())},
        {"set_size", "generic: |S|, the size of the set the weights are drawn from", A(a.set_size ? Value(a.set_size) : Value())},
        {"weight_degree", "generic: D_L, the degree of f's coefficients in the weights", A(exact_integer(a.weight_degree))},
        {"bound_degree", "generic: D, the degree used in the failure bound", A(exact_integer(a.bound_degree))},
        {"failure_bound", "bound on the chance that the true value is larger (0: exact; 1: none known)", A(Value::real(bound_up(a.failure_bound, 3), 3))},
        {"output", "dimension: scalar (the one output coordinate) | all (every token and coordinate)", A(a.output.empty() ? Value() : Value(a.output))},
        {"parameters", "dimension: the weights the parameter map varies (structural zeros excluded)", A(a.parameters >= 0 ? Value(a.parameters) : Value())},
        {"expected", "dimension: parameters minus the obvious symmetries, capped by the monomial count (docs/dimension.md)", A(a.expected >= 0 ? Value(a.expected) : Value())},
        {"defect", "dimension: true when the measured dimension is below expected", A(a.expected >= 0 ? Value(a.value < a.expected) : Value())},
        {"dimension", "functional dimension, scalar output (function_dimension, docs/dimension.md; table --dimension, degree --budget)", [](const RowSource& s) -> Value {
             return s.dimension ? Value(s.dimension->value) : Value();
         }},
        {"dim_expected", "expected dimension beside `dimension`: parameters minus the obvious symmetries, capped by the monomial count", [](const RowSource& s) -> Value {
             return s.dimension && s.dimension->expected >= 0 ? Value(s.dimension->expected) : Value();
         }},
        {"dim_defect", "true when dimension < dim_expected (a defect)", [](const RowSource& s) -> Value {
             return s.dimension && s.dimension->expected >= 0 ? Value(s.dimension->value < s.dimension->expected) : Value();
         }},
        {"dim_label", "what `dimension` is: certified (it reaches the parameters, the monomials, a conv/dense/fc stack's weights less their row scalings, one small layer's affine span, or a one-output power network's expected count) | generic lower bound | lower bound", [](const RowSource& s) -> Value {
             return s.dimension ? Value(s.dimension->label()) : Value();
         }},
        {"dim_failure_bound", "bound on the chance that the dimension is larger than `dimension` (0: certified; 1: none known)", [](const RowSource& s) -> Value {
             return s.dimension ? Value::real(bound_up(s.dimension->failure_bound, 3), 3) : Value();
         }},
        {"variety_degree", "table --variety: the degree of the image, counted mod 16-bit primes whose trials agree (null: none claimed; docs/variety.md)", [](const RowSource& s) -> Value {
             return s.has_variety && s.variety_degree >= 0 ? Value(s.variety_degree) : Value();
         }},
        {"variety_degree_at_least", "table --variety: a lower bound on the degree, proven from simple section solutions given the dimension (null: none certified; docs/variety.md)", [](const RowSource& s) -> Value {
             return s.has_variety && s.variety_degree_at_least >= 0 ? Value(s.variety_degree_at_least) : Value();
         }},
        {"variety_degree_at_most", "table --variety: an upper bound on the degree, the Newton polytope's bound on a section's solutions, proven given the dimension (null: none computed; docs/variety.md)", [](const RowSource& s) -> Value {
             return s.has_variety && s.variety_degree_at_most >= 0 ? Value(s.variety_degree_at_most) : Value();
         }},
        {"gauge_fibre", "table --variety: weight settings per generic function on the gauge slice, the discrete symmetries left (null: none claimed)", [](const RowSource& s) -> Value {
             return s.has_variety && s.gauge_fibre >= 0 ? Value(s.gauge_fibre) : Value();
         }},
        // The block columns of table --blocks (table_blocks.hpp): the table fills them from
        // the configuration's answer and its degree blocks, so a record made here has them null.
        {"block", "table --blocks: the block, the degree a of f_a in the variables of side A", [](const RowSource&) -> Value { return Value(); }},
        {"blocks", "table --blocks: how many block rows the configuration has", [](const RowSource&) -> Value { return Value(); }},
        {"cap_a", "table --blocks: the block's rows, the number of A-monomials of degree a (those the token symmetry and degree floor allow)", [](const RowSource&) -> Value { return Value(); }},
        {"cap_b", "table --blocks: the block's columns, the number of B-monomials of degree D - a (those the token symmetry and degree floor allow)", [](const RowSource&) -> Value { return Value(); }},
        {"at_cap", "table --blocks: true when the block's rank is min(cap_a, cap_b), its generic rank exactly", [](const RowSource&) -> Value { return Value(); }},
        {"total", "table --blocks: the configuration's rank, the sum of its blocks' ranks", [](const RowSource&) -> Value { return Value(); }},
        {"block_list", "table --blocks, inside a run: the configuration's blocks (a)", [](const RowSource&) -> Value { return Value(); }},
        {"block_rank_list", "table --blocks, inside a run: the rank of each of those blocks", [](const RowSource&) -> Value { return Value(); }},
        {"cap_a_list", "table --blocks, inside a run: cap_a of each of those blocks", [](const RowSource&) -> Value { return Value(); }},
        {"cap_b_list", "table --blocks, inside a run: cap_b of each of those blocks", [](const RowSource&) -> Value { return Value(); }},
        // The ε columns of table --eps (table.hpp): the table fills them from the seed
        // network's spectrum, so a record made here has them null.
        {"eps", "table --eps: the thresholds, relative to ||f||, space-separated", [](const RowSource&) -> Value { return Value(); }},
        {"eps_ranks", "table --eps: per threshold, the certified eps-separation rank, or low..high when undecided", [](const RowSource&) -> Value { return Value(); }},
        {"eps_certified", "table --eps: per threshold, true | false", [](const RowSource&) -> Value { return Value(); }},
        {"eps_reason", "table --eps: why the eps cells are empty, or that the seed network is a degenerate draw (null: nothing to say)",
         [](const RowSource&) -> Value { return Value(); }},
        {"log3_rank", "log3 of the rank, to 4 decimals", A(rounded_or_null(log3_rank(a), 1e-4))},
        {"theorem", "attention: Levine et al. theorem in force (\"7.1\", \"7.2\"; null: none)", [](const RowSource& s) -> Value {
             return has_bounds(s) && !bounds_of(s).theorem.empty() ? Value(bounds_of(s).theorem) : Value();
         }},
        {"log3_lower", "attention: the theorem's lower bound on log3 sep", [](const RowSource& s) -> Value {
             return has_bounds(s) ? rounded_or_null(bounds_of(s).lower, 1e-4) : Value();
         }},
        {"log3_upper", "attention: the theorem's upper bound on log3 sep", [](const RowSource& s) -> Value {
             return has_bounds(s) ? rounded_or_null(bounds_of(s).upper, 1e-4) : Value();
         }},
        {"outside", "below | above when the measured value falls outside the bounds (null: inside)", [](const RowSource& s) -> Value {
             const std::string o = has_bounds(s) ? outside_bounds(log3_rank(*s.answer), bounds_of(s)) : std::string();
             return o.empty() ? Value() : Value(o);
         }},
        {"s_up", "Theorem 7.3: L*min{r, dx} (attention rows with an embedding)", [](const RowSource& s) -> Value {
             const Theorem73Scales t = t73_of(s);
             return t.applies ? Value(t.s_up) : Value();
         }},
        {"s_low", "Theorem 7.3: L*(min{r, dx} - H), where L > log3 dx and H < r", [](const RowSource& s) -> Value {
             const Theorem73Scales t = t73_of(s);
             return t.applies && t.lower_applies ? Value(t.s_low) : Value();
         }},
        {"ratio_up", "Theorem 7.3: log3(rank)/s_up, to 4 decimals", [](const RowSource& s) -> Value {
             const Theorem73Scales t = t73_of(s);
             return t.applies && s.answer ? rounded_or_null(theorem73_ratio(s.answer->value, t.s_up), 1e-4) : Value();
         }},
        {"ratio_low", "Theorem 7.3: log3(rank)/s_low, to 4 decimals (null where s_low <= 0)", [](const RowSource& s) -> Value {
             const Theorem73Scales t = t73_of(s);
             return t.applies && t.lower_applies && s.answer ? rounded_or_null(theorem73_ratio(s.answer->value, t.s_low), 1e-4) : Value();
         }},
        {"t73_flag", "above-cap when the rank exceeds C(|S|*min{r,dx} + d^L, d^L), an exact consequence (rows with an embedding)",
         [](const RowSource& s) -> Value {
             if (!s.spec || !s.answer || s.spec->get().embed_rank < 1) return {};
             const std::string part = !s.answer->partition.empty() ? s.answer->partition : s.partition;
             if (part.empty()) return {};
             return theorem73_flag(s.answer->value, *s.spec, parse_partition(part, s.spec->get().tokens));
         }},
        {"status", "table: ok | lower-bound | skipped", [](const RowSource& s) -> Value { return s.status.empty() ? Value() : Value(s.status); }},
        {"reason", "table: why a row is skipped or only a lower bound (null: neither)", [](const RowSource& s) -> Value {
             return s.reason.empty() ? Value() : Value(s.reason);
         }},
        {"device", "the device that computed the value: cpu, or cuda: <GPU name> (docs/gpu.md)", A(a.device)},
        {"seconds", "wall-clock seconds", A(round_to(a.seconds, 1e-4))},
        {"phases", "seconds by phase: expand, matrix, rank, certificate (0: the phase did not happen)", A(Value(Value::NamedReals{
             {"expand", round_to(a.phases.expand, 1e-4)}, {"matrix", round_to(a.phases.matrix, 1e-4)},
             {"rank", round_to(a.phases.rank, 1e-4)}, {"certificate", round_to(a.phases.certificate, 1e-4)}}))},
        {"peak_mib", "peak resident memory, MiB (an answer: the process so far; a table row: while the row ran)", A(round_to(a.peak_mib, 0.1))},
        {"note", "one line: how the label was earned", A(a.note)},
    };
}

#undef A
#undef S
#undef F

}  // namespace

const std::vector<Column>& columns() {
    static const std::vector<Column> cols = make_columns();
    return cols;
}

const Column& column(const std::string& name) {
    for (const auto& c : columns())
        if (c.name == name) return c;
    throw invalid_input("no column '" + name + "'");
}

Record make_record(const RowSource& src, const std::vector<std::string>& names) {
    Record r;
    for (const auto& n : names) r.set(n, column(n).get(src));
    return r;
}

const std::vector<std::string>& answer_columns() {
    static const std::vector<std::string> names = {
        "partition", "degree", "terms", "rank", "kind", "certified", "label", "quantity", "bound", "method", "variant",
        "field", "rows", "cols", "prime", "primes_used", "converged", "evaluations", "block_ranks", "kernel_blocks", "kernel_bits", "trials",
        "trial_ranks", "degenerate", "set_size", "weight_degree", "bound_degree", "failure_bound", "output", "parameters",
        "expected", "defect", "device", "seconds", "phases", "peak_mib", "note"};
    return names;
}

const std::vector<std::string>& spec_columns() {
    static const std::vector<std::string> names = {"family", "tokens", "dim", "heads", "block_degree", "width", "depth", "residual"};
    return names;
}

std::string describe(const NetworkSpec& s) {
    std::ostringstream os;
    const FamilyInfo& info = family_info(s.family);
    os << info.name << " N=" << s.tokens << " dx=" << s.dim;
    if (info.heads) os << " H=" << s.heads << " da=" << head_dim(s);
    if (info.degree_key) os << " d=" << s.block_degree;
    if (info.width) os << " w=" << block_width(s);
    if (info.free_slots) os << (s.free_slots ? " free" : " tied");
    if (info.depth_from_widths) {
        os << " widths=";
        for (std::size_t k = 0; k < s.widths.size(); ++k) os << (k ? "," : "") << s.widths[k];
    }
    if (info.layers) os << " layers=" << layers_to_string(s.layers);
    os << " L=" << s.depth;
    if (s.residual) os << " residual";
    if (s.embed_rank > 0) os << " r=" << s.embed_rank;
    if (s.attention_rank > 0) os << " k=" << s.attention_rank;
    os << " (i=" << s.position << ", p=" << s.coordinate << ")";
    return os.str();
}

// An answer as a record of its columns (answer.hpp): here, beside the columns it is made
// of, so that answer.cpp stays below them.
Record to_record(const RankAnswer& a) {
    RowSource src;
    src.answer = &a;
    return make_record(src, answer_columns());
}

std::string to_json(const RankAnswer& a, int indent) { return to_json(to_record(a), indent); }

}  // namespace seprank
