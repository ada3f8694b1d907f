// seprank — a network's derived facts, computed once (model.hpp; docs/model.md).
#include "seprank/model.hpp"

#include "families.hpp"
#include "network_internal.hpp"
#include "run_caps.hpp"
#include "base/saturating.hpp"

#include "seprank/error.hpp"
#include "seprank/random.hpp"

#include <algorithm>
#include <climits>

namespace seprank {

namespace {

// Degree sets as bitsets over 0..kListedDegrees (bit a: degree a can occur).
using DegreeSet = std::vector<std::uint64_t>;
constexpr std::size_t kDegreeWords = static_cast<std::size_t>(Model::kListedDegrees / 64 + 1);

bool has_degree(const DegreeSet& s, long a) { return (s[static_cast<std::size_t>(a) / 64] >> (a % 64)) & 1U; }

// {a + b : a in x, b in y}; false when a sum passes kListedDegrees. O(|y|·words).
bool add_sets(const DegreeSet& x, const DegreeSet& y, DegreeSet& out) {
    out.assign(kDegreeWords, 0);
    for (long b = 0; b <= Model::kListedDegrees; ++b) {
        if (!has_degree(y, b)) continue;
        const std::size_t words = static_cast<std::size_t>(b / 64), bits = static_cast<std::size_t>(b % 64);
        for (std::size_t i = kDegreeWords; i-- > 0;) {
            if (!x[i]) continue;
            const std::uint64_t lo = x[i] << bits, hi = bits ? x[i] >> (64 - bits) : 0;
            if (i + words >= kDegreeWords || (hi && i + words + 1 >= kDegreeWords)) return false;
            out[i + words] |= lo;
            if (hi) out[i + words + 1] |= hi;
        }
    }
    // the last word holds degrees past kListedDegrees too
    const long top = Model::kListedDegrees % 64;
    return top == 63 || (out[kDegreeWords - 1] >> (top + 1)) == 0;
}

// The degrees a layer of degree d (≥ 1) writes from inputs of the degrees in x: sums of d
// of them. False when one passes kListedDegrees. O(d·kListedDegrees·words).
bool layer_degrees(const DegreeSet& x, long d, DegreeSet& out) {
    out = x;
    DegreeSet next;
    for (long k = 1; k < d; ++k) {
        if (!add_sets(out, x, next)) return false;
        out.swap(next);
    }
    return true;
}

}  // namespace

Model::Model(const ValidSpec& spec) : spec_(spec) {
    const NetworkSpec& s = spec_.get();
    input_vars_ = s.embed_rank > 0 ? s.embed_rank : s.dim;
    // One pass over the layers as kinds: what each reads (the input's shape first, flattened
    // for fc and power), its own traits, what it writes.
    detail::Shape sh = detail::family_input(s);
    // Token symmetry (model.hpp): g, the gcd of what the layers ask of the order m (0:
    // nothing yet), and e, the character of the scaled token so far (Π multipliers, exact).
    Integer g(0), e(1);
    auto ask = [&](long constraint) {  // m must divide constraint·e
        if (constraint == 0) return;
        Integer t(0);
        fmpz_mul_si(t.get(), e.get(), constraint);
        fmpz_gcd(g.get(), g.get(), t.get());
    };
    if (sh.n != s.tokens) ask(1);  // a flattened input mixes the tokens
    // Degree floor (model.hpp): μ, the least degree of the output position's entries in
    // that token's own inputs so far (1: the inputs, embedded or not; 0: flattened).
    long mu = sh.n == s.tokens ? 1 : 0;
    degree_ = Integer(1);
    weight_degree_ = Integer(0);
    parameters_ = Integer(0);
    varied_ = Integer(s.embed_rank > 0 ? s.dim * s.embed_rank : 0);
    // The degrees the current entries can have (output_degrees): the inputs, 1.
    DegreeSet degrees(kDegreeWords, 0);
    degrees[0] = 2;
    bool listed = true;
    for (long l = 0; l < s.depth; ++l) {
        ModelLayer m;
        m.layer = detail::family_layer(s, l);
        m.tokens_in = sh.n;
        m.width_in = sh.w;
        detail::with_kind(m.layer, [&](auto kind, const auto& sp) {
            const detail::Shape out = kind.out(sp, sh, l);
            m.tokens_out = out.n;
            m.width_out = out.w;
            m.degree = kind.degree(sp);
            m.weight_increment = kind.weight_increment(sp);
            m.parameters = kind.parameters(sp, sh);
            m.structural_zeros = kind.structural_zeros(sp, sh);
            m.residual = sp.residual;
            const detail::TokenCharacter c = kind.token_character(sp);
            ask(c.constraint);
            if (sp.residual) ask(c.multiplier - 1);  // y + F(y): F's character must be y's
            const long through = detail::sat_mul(c.floor, mu);
            mu = sp.residual ? std::min(mu, through) : through;  // y + F(y): the smaller
            fmpz_mul_si(e.get(), e.get(), c.multiplier);
            sh = out;
        });
        degree_ = degree_ * Integer(m.degree);
        weight_degree_ = weight_degree_ * Integer(m.degree) + Integer(m.weight_increment);
        parameters_ = parameters_ + m.parameters;
        varied_ = varied_ + m.parameters - Integer(m.structural_zeros);
        homogeneous_ = homogeneous_ && !m.residual;
        if (listed) {
            DegreeSet written;
            listed = layer_degrees(degrees, m.degree, written);
            if (m.residual)
                for (std::size_t i = 0; i < kDegreeWords; ++i) written[i] |= degrees[i];
            degrees.swap(written);
        }
        layers_.push_back(std::move(m));
    }
    output_positions_ = sh.n;
    output_dim_ = sh.w;
    if (listed)
        for (long a = 1; a <= kListedDegrees; ++a)
            if (has_degree(degrees, a)) output_degrees_.push_back(a);
    // m = g; χ = e mod m (m = 0: e itself, the degree). An order or a residue past a long
    // (or a χ past D in degrees that are fixed) is left unused: m = 1, no symmetry.
    residues_.assign(static_cast<std::size_t>(s.tokens), 0);
    if (fmpz_fits_si(g.get()) && fmpz_get_si(g.get()) != 1 && s.position >= 1 && s.position <= s.tokens) {
        const long m = fmpz_get_si(g.get());
        Integer chi(0);
        if (m == 0) fmpz_set(chi.get(), e.get());
        else fmpz_mod_ui(chi.get(), e.get(), static_cast<ulong>(m));
        if (fmpz_fits_si(chi.get())) {
            modulus_ = m;
            residues_[static_cast<std::size_t>(s.position - 1)] = fmpz_get_si(chi.get());
        }
    }
    floors_.assign(static_cast<std::size_t>(s.tokens), 0);
    if (s.position >= 1 && s.position <= s.tokens && sh.n == s.tokens) floors_[static_cast<std::size_t>(s.position - 1)] = mu;
    if (modulus_ == 0 || (modulus_ > 1 && modulus_ % 2 == 0)) {
        parities_.resize(residues_.size());
        for (std::size_t k = 0; k < residues_.size(); ++k) parities_[k] = static_cast<int>(residues_[k] % 2);
    }
    derive_mask();
}

namespace {

long loss_sum(const detail::Losses& ls) {
    long t = 0;
    for (const auto& l : ls) t += l.second;
    return t;
}

// Model::expected_losses, each layer l (0-based) named by shown[l] in the lines (the
// numbers of the network a shorter one was cut from); the layers' known defects added to
// *known.
detail::Losses losses_of(const Model& model, bool scalar, const std::vector<long>& shown, detail::Losses* known, bool input_rule = true,
                          bool linear_rule = true) {
    const NetworkSpec& s = model.spec();
    const std::vector<ModelLayer>& layers = model.layers();
    const long L = s.depth, dx = s.dim, r = s.embed_rank;
    detail::Losses losses;
    const auto name = [&](long l) { return std::to_string(shown[static_cast<std::size_t>(l)]); };
    // The sum of the layers' counts (each layer kind's traits) less the symmetries at the
    // junctions between layers, then the whole-network corrections (stack.hpp).
    const long P = static_cast<long>(fmpz_get_si(model.varied_parameters().get()));
    // A linear last layer W after a layer with a linear output map A adds nothing when read
    // at one coordinate, or whole when W is square and of full rank (Stack::absorbs_linear_last):
    // the count is that of the first L − 1 layers, read the same way, and every parameter
    // of the last layer is a loss. A network of linear layers only keeps its own count (one
    // matrix, adjust_expected).
    // (one matrix: every layer linear, all per token or all flattening; a linear conv among
    // linear layers is not, and is counted by the rules below as a nonlinear stack is)
    const bool one_matrix = detail::with_network(s, [&](auto net) { return net.one_linear_matrix(s); });
    // A residual layer of degree 1 inside the network, (I + B) y, read by a layer without
    // residual (through residual layers with linear output maps): I + B is absorbed into that
    // layer's input maps (Stack::absorbed_residual_linear), so the count is that of the network
    // without it, and all its parameters a loss (mlp:power=2:width=1:residual,
    // mlp:power=1:width=1:residual,mlp:power=2:width=1:residual,mlp:power=2:width=1, N = 2,
    // dx = 5, r = 1, scalar: 4 as measured, not 7; a review's hunt, 2026-12-02).
    const auto [inner, reader] = one_matrix ? std::pair<long, long>{-1, -1}
                                            : detail::with_network(s, [&](auto net) { return net.absorbed_residual_linear(s); });
    // The count of the network without layer l (its lines name this network's layers, its
    // known defects go to *k) and the parameters this network has beyond it.
    const auto count_without = [&](long l, detail::Losses* k, bool rule) {
        const Model without(network_detail::without_layer_spec(s, l));
        std::vector<long> kept = shown;
        kept.erase(kept.begin() + l);
        return std::pair<detail::Losses, long>{losses_of(without, scalar, kept, k, true, rule),
                                               P - static_cast<long>(fmpz_get_si(without.varied_parameters().get()))};
    };
    // Of two counts that bound this network's functions, the lower: `own`, or `alt` (another
    // network's lines) after a first line (what, extra), the parameters this network has
    // beyond that one; the chosen count's known defects go to *known.
    const auto lower_of = [&](detail::Losses own, const detail::Losses& known_own, detail::Losses alt, const detail::Losses& known_alt,
                              const std::string& what, long extra) {
        const bool lower = extra + loss_sum(alt) > loss_sum(own);
        if (known) known->insert(known->end(), (lower ? known_alt : known_own).begin(), (lower ? known_alt : known_own).end());
        if (!lower) return own;
        alt.insert(alt.begin(), {what, extra});
        return alt;
    };
    // The count of the network without layer l, which computes the same functions, and the
    // line that says where l went: all its parameters a loss.
    const auto without_layer = [&](long l, const std::string& where) {
        auto [out, extra] = count_without(l, known, linear_rule);
        detail::add_loss(out, "layer " + name(l) + ": linear with a residual, (I + B) y, I + B invertible: absorbed into " + where + ", so all its parameters",
                         extra);
        return out;
    };
    if (inner >= 0)
        return without_layer(inner, "layer " + name(reader) + "'s input maps (A (I + B) is any matrix A is" +
                                        (reader > inner + 1 ? std::string(", g = I + B passing through the residual layers between: g y + F(g y) = g (y + g⁻¹ F(g y))")
                                                            : std::string()) +
                                        ")");
    // A residual layer of degree 1 on the input itself (no embedding): (I + B) x is a matrix
    // A of x, so every function of this network is one of the same network after an
    // embedding of rank dx (x = M w, M any dx x dx matrix), in which the rule below
    // (Stack::residual_linear_after_writer) absorbs layer 1 into M. That network's count bounds this one's too; it is taken where it is
    // the lower (mlp:power=1:width=3:residual,mlp:power=1:width=2:residual,mlp:power=3:width=1:residual,
    // N = 2, dx = 4, scalar: 8 as measured, ℓ1 + ℓ2³, not 27).
    if (input_rule && !one_matrix && r == 0 && L >= 2 && detail::with_network(s, [&](auto net) { return net.residual_linear(s, 0); })) {
        NetworkSpec e = s;
        e.embed_rank = dx;
        const Model embedded(e);
        detail::Losses known_own, known_alt;
        detail::Losses own = losses_of(model, scalar, shown, &known_own, false, linear_rule);
        detail::Losses alt = losses_of(embedded, scalar, shown, &known_alt, true, linear_rule);
        const long M = static_cast<long>(fmpz_get_si(embedded.varied_parameters().get())) - P;  // M's parameters, dx²
        return lower_of(std::move(own), known_own, std::move(alt), known_alt,
                        "input: residual linear on the input, (I + B) x = A x: counted as the network after an embedding M = A of rank " +
                            std::to_string(dx) + " (x = M w, M any " + std::to_string(dx) + "x" + std::to_string(dx) +
                            " matrix), whose functions include these; the lines below are that network's, and its M's " + std::to_string(M) +
                            " parameters are not this network's",
                        -M);
    }
    const bool absorbed = !one_matrix && detail::with_network(s, [&](auto net) { return net.absorbs_linear_last(s, scalar); });
    if (absorbed) {
        NetworkSpec shorter = network_detail::first_layers_spec(s, L - 1);
        shorter.coordinate = 1;  // every coordinate counts alike
        const Model first(shorter);
        const long absorbed_params = P - static_cast<long>(fmpz_get_si(first.varied_parameters().get()));
        detail::Losses out = losses_of(first, scalar, std::vector<long>(shown.begin(), shown.end() - 1), known, true, linear_rule);
        const bool before_residual = layers[static_cast<std::size_t>(L - 2)].residual;  // a residual linear layer, absorbed in turn
        detail::add_loss(out, "layer " + name(L - 1) + ": linear, after " +
                                  (before_residual ? "the residual linear layer " + name(L - 2) + " (absorbed in turn)" : "layer " + name(L - 2) + "'s linear output map") +
                                  " A: " +
                                  (layers.back().residual ? std::string("W = I + B, ") : std::string()) +
                                  (scalar ? "(row p of W) A is any row, as row p of A is" : "W A (W square, of full rank) is any matrix A is") +
                                  ", so all its parameters",
                         absorbed_params);
        return out;
    }
    // A residual linear last layer whose I + B, as read, is any matrix: the count of the
    // stack with that layer's residual dropped, which computes the same functions (no
    // parameter lost). Linear stacks too: the two stacks are the same set of functions
    // whatever the layers before (an all-linear stack with a conv, which adjust_expected
    // leaves to the per-layer counts: conv:power=1:filter=2,mlp:power=1:residual, N = 3,
    // dx = 2, all outputs, 8 as measured, not 12; a review, 2026-12-02).
    if (detail::with_network(s, [&](auto net) { return net.residual_last_any_matrix(s, scalar); })) {
        detail::Losses out = losses_of(Model(network_detail::without_residual_spec(s, L - 1)), scalar, shown, known, true, linear_rule);
        // a line of size 0, pushed as it is (add_loss drops zeros): it says why the count is
        // that of another stack
        out.push_back({"layer " + name(L - 1) + ": linear with a residual, I + B, " +
                           (scalar ? std::string("row p of B any row: row p of I + B is any row, as that of B is")
                                   : std::string("B any square matrix: I + B is any matrix, as B is")) +
                           ", so counted as the same layer without residual (no parameter lost)",
                       0});
        return out;
    }
    // The mirror: a residual layer of degree 1 after a linear map W (the embedding M, or a
    // layer's linear output map), directly or through residual layers: (I + B) W is any
    // matrix W is (Stack::residual_linear_after_writer), so again the count is that of the
    // network without it.
    const auto [after, writer] = one_matrix ? std::pair<long, long>{-1, -1}
                                            : detail::with_network(s, [&](auto net) { return net.residual_linear_after_writer(s); });
    if (after >= 0)
        return without_layer(after, (writer < 0 ? std::string("the embedding M") : "layer " + name(writer) + "'s linear output map") + " (" +
                                        (writer < 0 ? "(I + B) M is any matrix M is" : std::string("(I + B) W is any matrix W is")) +
                                        (after > writer + 1 ? std::string(", g = I + B passing back through the residual layers between: g (y + F(y)) = g y + (g F g⁻¹)(g y)")
                                                            : std::string()) +
                                        ")");
    // A linear layer A without residual read only through the next layer's input maps R,
    // where R·A is any matrix R' on A's input (Stack::linear_read_through): the network
    // without it computes the same functions. Its count is taken where it is the lower,
    // with a line of the parameters the two networks differ by (dense:power=1:width=4,
    // dense:power=2:width=1, N = 3, dx = 4, scalar: 12 as measured, not 36). The count
    // without the rule, to compare, applies it nowhere (linear_rule), so that a chain of
    // k such layers costs k + 1 counts, not 2^k.
    const long lin = one_matrix || !linear_rule ? -1 : detail::with_network(s, [&](auto net) { return net.linear_read_through(s, scalar); });
    if (lin >= 0) {
        detail::Losses known_own, known_alt;
        detail::Losses own = losses_of(model, scalar, shown, &known_own, input_rule, false);
        auto [alt, differ] = count_without(lin, &known_alt, true);
        return lower_of(std::move(own), known_own, std::move(alt), known_alt,
                        "layer " + name(lin) + ": linear, A, read only through layer " + name(lin + 1) +
                            "'s input maps R: R·A is any matrix R' of R's rows on A's input, so the network without layer " + name(lin) +
                            " computes the same functions; counted as that network (the lines below), less the parameters it does not have",
                        differ);
    }
    // The embedding: when layer 1 reads its input through linear maps only, it sees only
    // M w, so M is absorbed into it (r <= dx) or only its row space matters (r > dx, a
    // Grassmannian): dx·min(r, dx).
    detail::with_network(s, [&](auto net) {
        const long n_first = r > 0 ? std::min(r, dx) : dx;
        const bool absorbed_m = r > 0 && L >= 1 && net.absorbs_input_map(s);
        if (absorbed_m) detail::add_loss(losses, "embedding: GL(dx) at the input (M absorbed into layer " + name(0) + ")", dx * std::min(r, dx));
        // r > dx: M's row space, a point of Gr(dx, r) (dx·(r − dx) left after the GL(dx)
        // absorbed by layer 1, or passed through residual layers: the chain below), reaches
        // the network only through the k rows R that read M w (Stack::directions_read: layer
        // 1's input maps, and through a residual layer's skip path what reads after it), as
        // R·M: k·r entries where k < dx, not k·dx and dx·(r − dx) (mlp:power=3:width=2,
        // N = 1, dx = 4, r = 5, scalar: 10 as measured, not 12; mlp:power=2:width=1:residual,
        // N = 1, dx = 3, r = 6, scalar, rows p and u: 12, not 15).
        // Not where the family flattens the tokens before layer 1 (fc's: its rows read N blocks
        // each, which its input rank, on one flattened token, does not count: a review's
        // --family fc, N = 2, dx = 3, r = 5, 15 below the measured 17).
        const bool per_token_in = L >= 1 && layers[0].tokens_in == s.tokens;
        const long m_chain = r > 0 && per_token_in ? net.residual_chain(s, -1) : -1;
        const bool m_chained = m_chain >= 0 && (m_chain < L || scalar);  // GL(dx) passes from M through residual layers
        const long k_m = r > dx && per_token_in && (absorbed_m || m_chained) ? net.directions_read(s, -1, scalar) : dx;
        if (k_m < dx)
            detail::add_loss(losses,
                             "embedding: M w read by " + std::to_string(k_m) + " < dx rows R (r = " + std::to_string(r) +
                                 " > dx): M's row space reaches the network only through R·M, k·r entries, not k·dx and dx·(r - dx): (dx - k)·(r - dx)",
                             (dx - k_m) * (r - dx));
        // Depth 0: the output is M w^i itself, every entry of M identifiable; the scalar output
        // (row p of M w^i) reads r of them.
        if (r > 0 && L == 0 && scalar) detail::add_loss(losses, "depth 0: rows of M other than p never read", (dx - 1) * r);
        // n_in: the dimension of the space layer l's input tokens span (min(r, dx) after an
        // embedding, then the span of the previous layer's output, which a bottleneck
        // H·da < dx or w < dx makes smaller than dx; with a residual dx).
        // GL(w) passes from what writes through a linear map (layer l's output map, or the
        // embedding M at l = −1), spanning n dimensions, through the residual layers after it
        // (Stack::residual_chain; g (y + F(y)) = g y + (g F g⁻¹)(g y)) to layer m, whose input
        // maps absorb g⁻¹: w·n (the directions it shares with the layers' own losses are at
        // most w·(w − n), a review); or, at the output (m = L), the g whose row p is e_p keep
        // the scalar output: (w − 1)·n.
        // Before a layer m < L whose residual layers l+1..m−1 all write whole (no read_by_next)
        // and follow their span (stream_span: not fc, dense, whose counts take the width),
        // n is the dimension the tokens span entering m: what `from` writes and what the
        // residual layers add (each y + F(y) within span(y) + image(F)); m reads only that
        // span, and the orbit of the maps writing into it is w·n. Otherwise n is what `from`
        // writes (the span took more than the measured dimension at the scalar output, and
        // where a residual layer's F is read in fewer directions). The line goes where the
        // chain starts, once the chain's layers are counted (`chains`, below).
        struct Chain {
            std::size_t at_line;
            std::string at, from;
            long l, m, w, n;
        };
        std::vector<Chain> chains;
        const auto chain_loss = [&](const std::string& at, const std::string& from, long l, long m, long w, long n) {
            chains.push_back({losses.size(), at, from, l, m, w, n});
        };
        // the line and loss of a chain, `span` the tokens' span entering m when it is followed
        const auto chain_line = [&](const Chain& ch, long span) -> std::pair<std::string, long> {
            const long l = ch.l, m = ch.m, w = ch.w;
            const bool stream = span > ch.n;
            const long n = stream ? span : ch.n;
            const std::string through = m == l + 2 ? "the residual " + std::string(m == L ? "last layer" : "layer " + name(l + 1))
                                                   : "the residual layers " + name(l + 1) + ".." + name(m - 1);
            const std::string spans = stream ? "n = " + std::to_string(n) + ", the dimensions the tokens span entering layer " + name(m) + " (" + ch.from +
                                                   "'s output and what " + (m == l + 2 ? "the residual layer adds)" : "the residual layers add)")
                                             : "n = " + std::to_string(n) + ", the dimensions " + ch.from + "'s output spans";
            if (m < L)
                return {ch.at + "GL(" + std::to_string(w) + ") between " + ch.from + " and layer " + name(m) + ", through " + through +
                            " (g (y + F(y)) = g y + (g F g⁻¹)(g y)): " + std::to_string(w) + "·n, " + spans,
                        w * n};
            return {ch.at + "GL(" + std::to_string(w) + ") fixing coordinate p between " + ch.from + " and the output, through " + through + ": (" +
                        std::to_string(w) + " - 1)·n, " + spans,
                    (w - 1) * n};
        };
        // The embedding M before residual layers writes through a linear map as a layer does
        // (chain_loss below), n = min(r, dx) the span it writes, per token.
        if (m_chained) chain_loss("embedding: ", "M", -1, m_chain, dx, n_first);
        long n_in = n_first;
        std::vector<detail::LayerCount> counts;
        std::vector<long> gl;  // gl[l]: the GL loss between layers l and l+1 (0-based)
        Integer degree(1);     // of layer l's outputs as forms in the inputs
        bool mixed = false;    // after a residual layer: every degree up to it
        for (long l = 0; l < L; ++l) {
            detail::LayerCount c = net.expected_layer(s, l, n_in, n_first, scalar);
            // Layer l's outputs are forms of degree `degree` in the network's input variables,
            // so they span at most as many dimensions as there are such forms; the GL at a
            // junction acts on the span, not on more (a review's sweep found 0 below the
            // measured 5 where six forms in a 5-dimensional space counted GL(6):
            // mlp:power=2:width=3,dense:power=2:width=6,dense:power=1:width=6,
            // mlp:power=2:width=1,conv:power=2:filter=1, N = 1, dx = 6, r = 2, scalar).
            const ModelLayer& ml = layers[static_cast<std::size_t>(l)];
            degree = degree * Integer(ml.degree);
            mixed = mixed || ml.residual;
            c.n_next = std::min(c.n_next, detail::monomials(model.input_vars(), degree, mixed));
            const std::string at = "layer " + name(l) + ": ";
            detail::add_loss(losses, at + c.how, c.params - c.eff);
            gl.push_back(l + 1 < L && net.junction(s, l) ? c.n_next * c.n_next : 0);
            if (gl.back() > 0)
                detail::add_loss(losses, at + "GL(" + std::to_string(c.n_next) + ") between layers " + name(l) + " and " + name(l + 1), gl.back());
            // the vectors the residual layers add to: dx per token, or the width of the one
            // vector a flattening layer wrote (not dx: a review's sweep, 3 above 2 for
            // dense:power=1:width=1,fc:degree=1:residual at dx = 3)
            const long m = net.residual_chain(s, l);
            if (m >= 0 && (m < L || scalar)) chain_loss(at, "layer " + name(l), l, m, layers[static_cast<std::size_t>(l + 1)].width_in, c.n_next);
            if (known != nullptr && c.known_defect_size > 0) known->push_back({at + c.known_defect, c.known_defect_size});
            counts.push_back(c);
            n_in = c.n_next;
        }
        for (auto ch = chains.rbegin(); ch != chains.rend(); ++ch) {
            bool whole = ch->m < L;
            for (long k = ch->l + 1; whole && k < ch->m; ++k) {
                const detail::LayerCount& c = counts[static_cast<std::size_t>(k)];
                whole = c.read_by_next == 0 && c.stream_span;
            }
            const long stream = whole ? counts[static_cast<std::size_t>(ch->m - 1)].n_next : ch->n;
            const auto [what, v] = chain_line(*ch, stream);
            // The directions residual layer i adds (d_i, beyond what `from` and the residual
            // layers before it write) reach the layers after it only through its output map.
            // Read there in K_i < w directions, its K_i read rows were counted with it, and the
            // input maps after it on those d_i directions again: K_i·d_i counted twice. Read in
            // all w, the GL(w) that fixes what `from` writes moves that map, w·d_i (with every
            // layer read whole, w·span, the line above). One residual layer read in k:
            // attention:residual,mlp:power=1:width=3 after an embedding of rank 2, N = 2,
            // dx = 4, every output: 18 as measured, not 24.
            long twice = 0, prev = ch->n;
            std::string terms, adds;
            if (!whole && ch->m < L)
                for (long i = ch->l + 1; i < ch->m; ++i) {
                    const detail::LayerCount& c = counts[static_cast<std::size_t>(i)];
                    if (!c.stream_span) {  // its span not followed: nothing to count on it
                        twice = 0;
                        break;
                    }
                    const long d = std::max(0L, c.n_next - prev), K = c.read_by_next > 0 ? c.read_by_next : ch->w;
                    if (d > 0) {
                        twice += K * d;
                        terms += (terms.empty() ? "" : " + ") + std::to_string(K) + "·" + std::to_string(d);
                        adds += (adds.empty() ? "" : "; ") + std::string("layer ") + name(i) + " adds " + std::to_string(d) + ", read in " +
                                (K == ch->w ? "all " : "") + std::to_string(K);
                    }
                    prev = std::max(prev, c.n_next);
                }
            if (twice > 0) {
                // one residual layer between (then read in k < w directions, or the chain would
                // be whole): its one term k·d said as such
                const detail::LayerCount& between = counts[static_cast<std::size_t>(ch->l + 1)];
                const long k = between.read_by_next, d = between.n_next - ch->n;
                const std::string line =
                    ch->m == ch->l + 2
                        ? ch->at + "layer " + name(ch->m) + "'s input maps' " + std::to_string(k) + (k == 1 ? " read row on the " : " read rows on the ") +
                              std::to_string(d) + (d == 1 ? " direction" : " directions") + " the residual layer " + name(ch->l + 1) + " adds beyond " +
                              ch->from + "'s output meet only that layer's output map, counted with it: " + terms
                        : ch->at + "the d directions each of the residual layers " + name(ch->l + 1) + ".." + name(ch->m - 1) + " adds beyond " + ch->from +
                              "'s output reach the layers after it only through its output map: read there in K < " + std::to_string(ch->w) +
                              " directions, its K read rows were counted with it and the input maps after it on them again, K·d; read in all " +
                              std::to_string(ch->w) + ", the GL(" + std::to_string(ch->w) + ") fixing " + ch->from + "'s output moves that map, " +
                              std::to_string(ch->w) + "·d (" + adds + "): " + terms;
                losses.insert(losses.begin() + static_cast<std::ptrdiff_t>(ch->at_line), {line, twice});
            }
            if (v != 0) losses.insert(losses.begin() + static_cast<std::ptrdiff_t>(ch->at_line), {what, v});
        }
        // the runs first: adjust_expected's cap of a product of forms is taken from the count
        // left by every loss before it (after them it put 5 below the measured 6 for
        // mlp:power=2:width=2,dense:power=1:width=3,dense:power=1:width=2,fc:degree=3:width=2)
        detail::run_caps(counts, gl, shown, losses);
        net.adjust_expected(s, scalar, P, losses);
    });
    return losses;
}

}  // namespace

std::vector<std::pair<std::string, long>> Model::expected_losses(bool scalar, std::vector<std::pair<std::string, long>>* known) const {
    std::vector<long> shown(layers_.size());
    for (std::size_t l = 0; l < shown.size(); ++l) shown[l] = static_cast<long>(l) + 1;
    return losses_of(*this, scalar, shown, known);
}

long Model::output_space(bool scalar) const {
    const long outs = scalar ? 1 : output_positions_ * output_dim_;
    if (homogeneous_ || output_degrees_.empty()) {
        // every degree 1..D when they are not listed: those up to D less the constant
        const long space = detail::monomials(input_vars(), degree_, !homogeneous_);
        return detail::sat_mul(homogeneous_ || space == LONG_MAX ? space : space - 1, outs);
    }
    long space = 0;
    for (long a : output_degrees_) {
        const long m = detail::monomials(input_vars(), Integer(a), false);
        space = m > LONG_MAX - space ? LONG_MAX : space + m;
    }
    return detail::sat_mul(space, outs);
}

namespace {

// count[e] for e = 0..D: the monomials of total degree e in the variables of `tokens`
// (`per` variables each) whose degree in token k is residues[k−1] modulo m (m = 1: any
// degree; m = 0: exactly that degree) and at least floors[k−1] (empty: 0), saturated at
// LONG_MAX/4. One token: C(e+per−1, per−1) for the allowed e (a copy, O(D)); several: the
// convolution of their series, each further token over its allowed degrees only (every
// m-th from its floor: O(D²/m) steps; counts_work below).
std::vector<long> monomial_counts(const std::vector<long>& tokens, long per, long m, const std::vector<long>& residues,
                                  const std::vector<long>& floors, long D) {
    const long cap = LONG_MAX / 4;
    const std::size_t n = static_cast<std::size_t>(D + 1);
    std::vector<long> one(n, 0);  // C(e+per−1, per−1), saturated
    for (long e = 0; e <= D; ++e) {
        one[static_cast<std::size_t>(e)] = per < 1 ? 1 : detail::binomial_saturated(e + per - 1, per - 1, cap);
    }
    std::vector<long> acc;             // the series so far; empty before the first token (the series 1)
    std::vector<std::size_t> degrees;  // a token's allowed degrees, increasing
    for (long k : tokens) {
        const long r = residues.empty() ? 0 : residues[static_cast<std::size_t>(k - 1)];
        const long lo = std::max(0L, floors.empty() ? 0 : floors[static_cast<std::size_t>(k - 1)]);
        degrees.clear();
        if (m == 0) {
            if (r >= lo && r <= D) degrees.push_back(static_cast<std::size_t>(r));
        } else {
            const long want = ((r % m) + m) % m;                  // the residue class of the allowed degrees
            const long first = lo + ((want - lo % m) % m + m) % m;  // the least degree >= lo in it
            for (long f = first; f <= D; f += m) degrees.push_back(static_cast<std::size_t>(f));
        }
        std::vector<long> next(n, 0);
        if (acc.empty()) {
            for (std::size_t f : degrees) next[f] = one[f];
        } else {
            for (std::size_t e = 0; e < n; ++e) {
                const long x = acc[e];
                if (x == 0) continue;
                for (std::size_t f : degrees) {
                    if (e + f >= n) break;
                    const long y = one[f];
                    const long prod = x > cap / y ? cap : x * y;
                    next[e + f] = std::min(cap, next[e + f] + prod);
                }
            }
        }
        acc = std::move(next);
    }
    if (acc.empty()) {  // no token: the constant monomial alone
        acc.assign(n, 0);
        acc[0] = 1;
    }
    return acc;
}

// The steps monomial_counts takes for both sides of a partition of N tokens, degrees 0..D,
// allowed degrees every m-th (m = 0: one degree): each side's first token is a copy, each
// other token a convolution of about (D+1)²/(2m) steps; and 256 steps per degree for the
// series held (a few vectors of D + 1 counts), so that max_work bounds their memory too
// (2^31: D up to about 8.4 million, some 340 MB).
double counts_work(long N, long D, long m) {
    const double d1 = static_cast<double>(D) + 1.0;
    const double per_token = m == 0 ? d1 : d1 * d1 / (2.0 * static_cast<double>(m));
    return static_cast<double>(std::max(0L, N - 2)) * per_token + 256.0 * d1;
}

// fn(l, kind, sp, slot, matrix) for every matrix of w's layers, in file order, each layer's
// kind reading the shape the Model stored for it (no shape is folded again).
template <class W, class Fn>
void each_matrix(const std::vector<ModelLayer>& layers, W& w, Fn&& fn) {
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const ModelLayer& ml = layers[l];
        detail::with_kind(ml.layer, [&](auto kind, const auto& sp) {
            kind.for_each_matrix(sp, detail::Shape{ml.tokens_in, ml.width_in}, w.layers[l],
                                 [&](const detail::MatrixSlot& m, auto& d) { fn(static_cast<long>(l), kind, sp, m, d); });
        });
    }
}

// Weights with each layer's lists (heads, W) sized by its kind and every matrix empty.
template <class T>
NetWeights<T> sized_lists(const std::vector<ModelLayer>& layers) {
    NetWeights<T> w;
    w.layers.resize(layers.size());
    for (std::size_t l = 0; l < layers.size(); ++l)
        detail::with_kind(layers[l].layer, [&](auto kind, const auto& sp) { kind.resize(w.layers[l], sp); });
    return w;
}

}  // namespace

void Model::derive_mask() {
    const NetworkSpec& s = spec();
    mask_.assign(static_cast<std::size_t>(s.embed_rank > 0 ? s.dim * s.embed_rank : 0), true);
    NetWeights<char> lists = sized_lists<char>(layers_);  // only the lists' sizes: for_each_matrix names the shapes
    each_matrix(layers_, lists, [&](long, auto kind, const auto& sp, const detail::MatrixSlot& m, auto&) {
        for (long i = 0; i < m.rows; ++i)
            for (long j = 0; j < m.cols; ++j) mask_.push_back(!kind.structural_zero(sp, m, i, j));
    });
}

DegreeBlockSides Model::degree_block_sides(const ValidPartition& part, double max_work, bool parity) const {
    part.check_tokens(spec().tokens);
    if (!homogeneous_ || !fmpz_fits_si(degree_.get())) return {};
    const long D = fmpz_get_si(degree_.get());
    const long m = parity ? modulus_ : 1;  // 1: every degree
    if (counts_work(spec().tokens, D, m) > max_work) return {};
    const std::vector<long> none, &floors = parity ? floors_ : none;
    DegreeBlockSides out;
    out.a_side = monomial_counts(part->A, input_vars_, m, residues_, floors, D);
    const std::vector<long> count_B = monomial_counts(part->B, input_vars_, m, residues_, floors, D);
    out.b_side.resize(static_cast<std::size_t>(D + 1));
    for (long a = 0; a <= D; ++a) out.b_side[static_cast<std::size_t>(a)] = count_B[static_cast<std::size_t>(D - a)];
    return out;
}

std::vector<long> Model::degree_block_caps(const ValidPartition& part, double max_work, bool parity) const {
    const DegreeBlockSides sides = degree_block_sides(part, max_work, parity);
    std::vector<long> caps(sides.a_side.size());
    for (std::size_t a = 0; a < caps.size(); ++a) caps[a] = std::min(sides.a_side[a], sides.b_side[a]);
    return caps;
}

long Model::flattening_cap(const ValidPartition& part, double max_work) const {
    part.check_tokens(spec().tokens);
    if (!fmpz_fits_si(degree_.get())) return -1;
    const long D = fmpz_get_si(degree_.get());
    if (counts_work(spec().tokens, D, modulus_) > max_work) return -1;
    using detail::saturated_sum;
    if (homogeneous_) return saturated_sum(degree_block_caps(part, max_work));
    return std::min(saturated_sum(monomial_counts(part->A, input_vars_, modulus_, residues_, floors_, D)),
                    saturated_sum(monomial_counts(part->B, input_vars_, modulus_, residues_, floors_, D)));
}

Weights Model::draw_weights(std::uint64_t seed, long range) const {
    const NetworkSpec& s = spec();
    if (range < 1) throw invalid_input("weight range " + std::to_string(range) + " must be at least 1");
    Rng rng(seed);
    std::size_t k = 0;
    auto draw = [&](long r, long c) {
        Dense<Rational> m(r, c, Rational(0));
        for (auto& x : m.a) {
            x = Rational(rng.range(-range, range));
            if (!mask_[k++]) x = Rational(0);
        }
        return m;
    };
    Weights w = sized_lists<Rational>(layers_);
    if (s.embed_rank > 0) w.embedding = draw(s.dim, s.embed_rank);
    each_matrix(layers_, w, [&](long, auto, const auto&, const detail::MatrixSlot& m, Dense<Rational>& out) { out = draw(m.rows, m.cols); });
    return w;
}

void Model::check_weights(const Weights& w) const {
    const NetworkSpec& s = spec();
    auto check = [](const Dense<Rational>& m, long r, long c, const std::string& where) {
        if (m.rows != r || m.cols != c)
            throw invalid_input(where + ": shape " + std::to_string(m.rows) + "x" + std::to_string(m.cols) + ", expected " +
                                std::to_string(r) + "x" + std::to_string(c));
        if (static_cast<long>(m.a.size()) != r * c)  // the right shape, its entries not (a Dense built by hand)
            throw invalid_input(where + ": " + std::to_string(m.a.size()) + " entries for its shape " + std::to_string(r) + "x" +
                                std::to_string(c) + " (" + std::to_string(r * c) + ")");
    };
    if (w.layers.size() != layers_.size())
        throw invalid_input("weights have " + std::to_string(w.layers.size()) + " layers, depth is " + std::to_string(s.depth));
    if (s.embed_rank > 0) check(w.embedding, s.dim, s.embed_rank, "embedding");
    const NetWeights<char> lists = sized_lists<char>(layers_);
    for (std::size_t l = 0; l < layers_.size(); ++l)
        if (w.layers[l].heads.size() != lists.layers[l].heads.size() || w.layers[l].W.size() != lists.layers[l].W.size())
            throw invalid_input("layer " + std::to_string(l) + ": wrong number of heads or slots");
    each_matrix(layers_, w, [&](long l, auto, const auto&, const detail::MatrixSlot& m, const Dense<Rational>& d) {
        check(d, m.rows, m.cols, detail::slot_path(l, m));
    });
}

}  // namespace seprank
