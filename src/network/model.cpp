// seprank — a network's derived facts, computed once (model.hpp; docs/model.md).
#include "seprank/model.hpp"

#include "families.hpp"

#include <algorithm>

namespace seprank {

Model::Model(const ValidSpec& spec) : spec_(spec) {
    const NetworkSpec& s = spec_.get();
    input_vars_ = s.embed_rank > 0 ? s.embed_rank : s.dim;
    // One pass over the layers as kinds: what each reads (the input's shape first, flattened
    // for fc and power), its own traits, what it writes.
    detail::Shape sh = detail::family_input(s);
    bool keeps_signs = sh.n == s.tokens;  // a flattened input has no token of its own
    degree_ = Integer(1);
    weight_degree_ = Integer(0);
    parameters_ = Integer(0);
    varied_ = Integer(s.embed_rank > 0 ? s.dim * s.embed_rank : 0);
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
            keeps_signs = keeps_signs && kind.sign_equivariant(sp);
            sh = out;
        });
        degree_ = degree_ * Integer(m.degree);
        weight_degree_ = weight_degree_ * Integer(m.degree) + Integer(m.weight_increment);
        parameters_ = parameters_ + m.parameters;
        varied_ = varied_ + m.parameters - Integer(m.structural_zeros);
        homogeneous_ = homogeneous_ && !m.residual;
        layers_.push_back(std::move(m));
    }
    output_positions_ = sh.n;
    output_dim_ = sh.w;
    if (keeps_signs) {
        parities_.assign(static_cast<std::size_t>(s.tokens), 0);
        parities_[static_cast<std::size_t>(s.position - 1)] = 1;
    }
}

std::vector<std::pair<std::string, long>> Model::expected_losses(bool scalar) const {
    const NetworkSpec& s = spec();
    const long L = s.depth, dx = s.dim, r = s.embed_rank;
    detail::Losses losses;
    // The sum of the layers' counts (each layer kind's traits) less the symmetries at the
    // junctions between layers, then the whole-network corrections (stack.hpp).
    const long P = static_cast<long>(fmpz_get_si(varied_.get()));
    // The embedding: when layer 1 reads its input through linear maps only, it sees only
    // M w, so M is absorbed into it (r <= dx) or only its row space matters (r > dx, a
    // Grassmannian): dx·min(r, dx).
    detail::with_network(s, [&](auto net) {
        const long n_first = r > 0 ? std::min(r, dx) : dx;
        if (r > 0 && L >= 1 && net.absorbs_input_map(s))
            detail::add_loss(losses, "embedding: GL(dx) at the input (M absorbed into layer 1)", dx * std::min(r, dx));
        // Depth 0: the output is M w^i itself, every entry of M identifiable; the scalar output
        // (row p of M w^i) reads r of them.
        if (r > 0 && L == 0 && scalar) detail::add_loss(losses, "depth 0: rows of M other than p never read", (dx - 1) * r);
        // n_in: the dimension of the space layer l's input tokens span (min(r, dx) after an
        // embedding, then the span of the previous layer's output, which a bottleneck
        // H·da < dx or w < dx makes smaller than dx; with a residual dx).
        long n_in = n_first;
        for (long l = 0; l < L; ++l) {
            const detail::LayerCount c = net.expected_layer(s, l, n_in, n_first, scalar);
            const std::string at = "layer " + std::to_string(l + 1) + ": ";
            detail::add_loss(losses, at + c.how, c.params - c.eff);
            if (l + 1 < L && net.junction(s, l))
                detail::add_loss(losses, at + "GL(" + std::to_string(c.n_next) + ") between layers " + std::to_string(l + 1) + " and " + std::to_string(l + 2),
                                 c.n_next * c.n_next);
            n_in = c.n_next;
        }
        net.adjust_expected(s, scalar, P, losses);
    });
    return losses;
}

long Model::output_space(bool scalar) const {
    const long outs = scalar ? 1 : output_positions_ * output_dim_;
    return detail::sat_mul(detail::monomials(input_vars(), degree_, !homogeneous_), outs);
}

std::vector<bool> Model::varied_mask() const {
    const NetworkSpec& s = spec();
    std::vector<bool> mask(static_cast<std::size_t>(s.embed_rank > 0 ? s.dim * s.embed_rank : 0), true);
    for (long l = 0; l < s.depth; ++l) {
        const ModelLayer& ml = layers_[static_cast<std::size_t>(l)];
        detail::with_kind(ml.layer, [&](auto kind, const auto& sp) {
            LayerWeights<char> lw;  // only the lists' sizes: for_each_matrix names the shapes
            kind.resize(lw, sp);
            kind.for_each_matrix(sp, detail::Shape{ml.tokens_in, ml.width_in}, lw, [&](const detail::MatrixSlot& m, auto&) {
                for (long i = 0; i < m.rows; ++i)
                    for (long j = 0; j < m.cols; ++j) mask.push_back(!kind.structural_zero(sp, m, i, j));
            });
        });
    }
    return mask;
}

}  // namespace seprank
