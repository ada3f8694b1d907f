// Private: ring policies for detail::Forward (see forward_impl.hpp).
#pragma once

#include "seprank/integer.hpp"
#include "seprank/poly.hpp"
#include "base/word_mod.hpp"

#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

namespace seprank::detail {

struct RationalRing {
    using E = Rational;
    using W = Rational;
    E zero() const { return Rational(0); }
    E constant(long c) const { return Rational(c); }
    E mul(const E& a, const E& b) const { return a * b; }
    void add(E& acc, const E& x) const { fmpq_add(acc.get(), acc.get(), x.get()); }
    void axpy(E& acc, const W& w, const E& x) const { fmpq_addmul(acc.get(), w.get(), x.get()); }
    bool is_zero(const W& w) const { return w.is_zero(); }
    W weight_zero() const { return Rational(0); }
    W weight_fma(const W& s, const W& a, const W& b) const { return s + a * b; }
};

struct DoubleRing {
    using E = double;
    using W = double;
    E zero() const { return 0.0; }
    E constant(long c) const { return static_cast<double>(c); }
    E mul(E a, E b) const { return a * b; }
    void add(E& acc, E x) const { acc += x; }
    void axpy(E& acc, W w, E x) const { acc += w * x; }
    bool is_zero(W w) const { return w == 0.0; }
    W weight_zero() const { return 0.0; }
    W weight_fma(W s, W a, W b) const { return s + a * b; }
};

struct ModRing {
    using E = std::uint64_t;
    using W = std::uint64_t;
    nmod_t mod;
    explicit ModRing(std::uint64_t p) { nmod_init(&mod, p); }
    E zero() const { return 0; }
    E constant(long c) const { return residue_of(c, mod.n); }
    E mul(E a, E b) const { return nmod_mul(a, b, mod); }
    void add(E& acc, E x) const { acc = nmod_add(acc, x, mod); }
    void axpy(E& acc, W w, E x) const { acc = nmod_add(acc, nmod_mul(w, x, mod), mod); }
    bool is_zero(W w) const { return w == 0; }
    W weight_zero() const { return 0; }
    W weight_fma(W s, W a, W b) const { return nmod_add(s, nmod_mul(a, b, mod), mod); }
};

template <class T, class Wt>
struct PolyRing {
    using E = Poly<T>;
    using W = Wt;
    std::shared_ptr<const Context<T>> ctx;
    MulVariant product = MulVariant::automatic;  // over Q: how products are formed (poly.hpp)
    E zero() const { return E(ctx); }
    E constant(long c) const {
        if constexpr (std::is_same_v<T, NmodTraits>) return E::constant(ctx, ModRing(ctx->modulus()).constant(c));
        else return E::constant(ctx, Rational(c));
    }
    E mul(const E& a, const E& b) const { return a.mul(b, product); }
    void add(E& acc, const E& x) const { acc += x; }
    void axpy(E& acc, const W& w, const E& x) const { acc += x * w; }
    bool is_zero(const W& w) const {
        if constexpr (std::is_same_v<W, Rational>) return w.is_zero();
        else return w == 0;
    }
    W weight_zero() const { return W(0); }
    W weight_fma(const W& s, const W& a, const W& b) const {
        if constexpr (std::is_same_v<W, Rational>) return s + a * b;
        else return ModRing(ctx->modulus()).weight_fma(s, a, b);
    }
};

using QPolyRing = PolyRing<QTraits, Rational>;
using NmodPolyRing = PolyRing<NmodTraits, std::uint64_t>;

}  // namespace seprank::detail
