// seprank — a network's derived facts, computed once (model.hpp; docs/model.md).
#include "seprank/model.hpp"

#include "families.hpp"

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

}  // namespace seprank
