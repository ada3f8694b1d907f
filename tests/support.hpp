// Shared helpers for the test suites: the seed and a simple reference polynomial.
#pragma once

#include "seprank/error.hpp"
#include "seprank/limits.hpp"
#include "seprank/random.hpp"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace seprank_test {

// The run's seed: SEPRANK_SEED or a fixed default. Every randomised test derives its
// stream from it and puts it in its failure messages.
inline std::uint64_t seed() {
    static const std::uint64_t s = seprank::seed_from_env(20261122);
    return s;
}

// A stream for one test case, independent of the order tests run in.
inline seprank::Rng rng_for(const std::string& test_name) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a of the name
    for (unsigned char c : test_name) h = (h ^ c) * 1099511628211ULL;
    return seprank::Rng(seed() ^ h);
}

// Loop counts scale with SEPRANK_TEST_MULTIPLIER (default 1), like FLINT's tests.
inline int iterations(int base) {
    const char* m = std::getenv("SEPRANK_TEST_MULTIPLIER");
    return m ? base * std::max(1, std::atoi(m)) : base;
}

// A fresh directory under $TMPDIR (or /tmp), named tag-XXXXXX, removed with everything in
// it at the end (std::runtime_error where it cannot be made).
struct TempDir {
    std::string path;
    explicit TempDir(const std::string& tag = "seprank") {
        const char* base = std::getenv("TMPDIR");
        std::string tmpl = std::string(base && *base ? base : "/tmp") + "/" + tag + "-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot make a directory " + tmpl);
        path = tmpl;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

// The message of the invalid_input that f throws; "(accepted)" when it throws none.
inline std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const seprank::invalid_input& e) {
        return e.what();
    }
    return "(accepted)";
}

// The environment variable `name` set to `value` (nullptr: unset) while the guard lives,
// the caller's setting restored after (tests that switch SEPRANK_SIMD, say).
class EnvVar {
public:
    EnvVar(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value != nullptr) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~EnvVar() {
        if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
        else ::unsetenv(name_.c_str());
    }
    EnvVar(const EnvVar&) = delete;
    EnvVar& operator=(const EnvVar&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

// default_max_seconds() (limits.hpp) set to `seconds` while the guard lives, the caller's
// value restored after (tests of a time estimate refused at a small limit).
class MaxSeconds {
public:
    explicit MaxSeconds(double seconds) : old_(seprank::default_max_seconds()) { seprank::set_default_max_seconds(seconds); }
    ~MaxSeconds() { seprank::set_default_max_seconds(old_); }
    MaxSeconds(const MaxSeconds&) = delete;
    MaxSeconds& operator=(const MaxSeconds&) = delete;

private:
    double old_;
};

// default_max_memory() (limits.hpp) set to `bytes`, named `name`, while the guard lives,
// the caller's value and name restored after (tests of a size check at a limit smaller
// than the machine's).
class MaxMemory {
public:
    explicit MaxMemory(double bytes, const std::string& name = "max_memory")
        : old_(seprank::default_max_memory()), old_name_(seprank::default_max_memory_name()) {
        seprank::set_default_max_memory(bytes, name);
    }
    ~MaxMemory() { seprank::set_default_max_memory(old_, old_name_); }
    MaxMemory(const MaxMemory&) = delete;
    MaxMemory& operator=(const MaxMemory&) = delete;

private:
    double old_;
    std::string old_name_;
};

}  // namespace seprank_test

// ---------------------------------------------------------------------------
// Reference implementations used by the randomised tests.
#include "seprank/poly.hpp"

#include <boost/multiprecision/gmp.hpp>
#include <map>
#include <vector>

namespace seprank_test {

// Boost.Multiprecision is the tests' independent reference arithmetic; the library's
// public headers do not include it, so the conversions live here (through GMP).
using mpz_int = boost::multiprecision::mpz_int;
using mpq_rational = boost::multiprecision::mpq_rational;

inline mpz_int to_mpz(const seprank::Integer& a) {
    mpz_int out;
    a.get_mpz(out.backend().data());
    return out;
}
inline mpq_rational to_mpq(const seprank::Rational& a) {
    mpq_rational out;
    a.get_mpq(out.backend().data());
    return out;
}
inline seprank::Integer from_mpz(const mpz_int& v) { return seprank::Integer(v.backend().data()); }
inline seprank::Rational from_mpq(const mpq_rational& v) { return seprank::Rational(v.backend().data()); }

// A polynomial as a map monomial -> non-zero coefficient: slow, obviously correct.
using RefPoly = std::map<std::vector<std::uint64_t>, mpq_rational>;

inline void ref_add_term(RefPoly& f, const std::vector<std::uint64_t>& e, const mpq_rational& c) {
    auto& slot = f[e];
    slot += c;
    if (slot == 0) f.erase(e);
}

inline RefPoly ref_add(const RefPoly& a, const RefPoly& b, int sign = 1) {
    RefPoly r = a;
    for (const auto& [e, c] : b) ref_add_term(r, e, sign * c);
    return r;
}

inline RefPoly ref_mul(const RefPoly& a, const RefPoly& b) {
    RefPoly r;
    for (const auto& [ea, ca] : a)
        for (const auto& [eb, cb] : b) {
            std::vector<std::uint64_t> e(ea.size());
            for (std::size_t i = 0; i < e.size(); ++i) e[i] = ea[i] + eb[i];
            ref_add_term(r, e, ca * cb);
        }
    return r;
}

inline mpq_rational ref_eval(const RefPoly& f, const std::vector<mpq_rational>& x) {
    mpq_rational s = 0;
    for (const auto& [e, c] : f) {
        mpq_rational t = c;
        for (std::size_t i = 0; i < e.size(); ++i)
            for (std::uint64_t k = 0; k < e[i]; ++k) t *= x[i];
        s += t;
    }
    return s;
}

inline RefPoly to_ref(const seprank::QPoly& f) {
    RefPoly r;
    for (std::size_t k = 0; k < f.terms(); ++k) ref_add_term(r, f.exponents(k), to_mpq(f.coeff(k)));
    return r;
}

inline seprank::QPoly from_ref(const RefPoly& f, const std::shared_ptr<const seprank::QContext>& ctx) {
    std::vector<seprank::Rational> cs;
    std::vector<std::vector<std::uint64_t>> es;
    for (const auto& [e, c] : f) {
        cs.push_back(from_mpq(c));
        es.push_back(e);
    }
    return seprank::QPoly::from_terms(ctx, cs, es);
}

// A random rational with numerator of up to `bits` bits and a small positive denominator.
inline mpq_rational random_rational(seprank::Rng& rng, unsigned bits) {
    mpz_int num = to_mpz(rng.big(1 + static_cast<unsigned>(rng.below(bits))));
    mpz_int den = 1 + static_cast<long>(rng.below(rng.below(4) == 0 ? 1000 : 1));
    return mpq_rational(num, den);
}

// A random sparse polynomial: up to max_terms terms, exponents in [0, max_exp].
inline RefPoly random_ref(seprank::Rng& rng, std::size_t nvars, std::size_t max_terms, std::uint64_t max_exp,
                          unsigned bits = 20) {
    RefPoly f;
    const std::size_t n = static_cast<std::size_t>(rng.below(max_terms + 1));
    for (std::size_t k = 0; k < n; ++k) {
        std::vector<std::uint64_t> e(nvars);
        for (auto& x : e) x = rng.below(max_exp + 1);
        ref_add_term(f, e, random_rational(rng, bits));
    }
    return f;
}

}  // namespace seprank_test

// ---------------------------------------------------------------------------
// Random network specs over every family.
#include "seprank/network.hpp"

#include <algorithm>

namespace seprank_test {

// The size limits of random_spec; each test passes its own. Whatever a family has is
// drawn within them: heads and head dim, attention rank, tied/free slots, widths,
// embedding rank, output position and coordinate (and residual unless excluded).
struct SpecLimits {
    long min_tokens = 1, max_tokens = 3;
    long min_dim = 1, max_dim = 2;
    long min_depth = 0, max_depth = 2;
    long min_block_degree = 1;       // families whose block degree is free
    long max_block_degree = 3;       // ... at depth <= 1
    long max_block_degree_deep = 2;  // ... at depth >= 2 (keeps d^L small)
    long max_inputs_deep = 0;        // at depth >= 2, N·dx at most this (dx lowered to fit); 0: no cap
    long max_width = 2;              // hadamard w, fc w_l: the default or 1..max_width; 0: defaults only
    bool residual = true;            // false: homogeneous networks only
};

// Linear attention (the default family) with N tokens of width dx, L layers and H heads;
// every other field at its default.
inline seprank::NetworkSpec attention_spec(long tokens, long dim, long depth, long heads = 1) {
    seprank::NetworkSpec s;
    s.tokens = tokens;
    s.dim = dim;
    s.depth = depth;
    s.heads = heads;
    return s;
}

// A hadamard network: N tokens of width dx, L layers of block degree d and width w (0: dx);
// every other field at its default.
inline seprank::NetworkSpec hadamard_spec(long tokens, long dim, long depth, long block_degree, long width = 0) {
    seprank::NetworkSpec s = attention_spec(tokens, dim, depth);
    s.family = seprank::Family::hadamard;
    s.block_degree = block_degree;
    s.width = width;
    return s;
}

// A valid random spec of any family (seprank::all_families()), within `lim`.
inline seprank::NetworkSpec random_spec(seprank::Rng& rng, const SpecLimits& lim) {
    using seprank::Family;
    auto between = [&](long lo, long hi) { return lo + static_cast<long>(rng.below(static_cast<std::uint64_t>(hi - lo + 1))); };
    const auto& families = seprank::all_families();
    seprank::NetworkSpec s;
    s.family = families[rng.below(families.size())];
    const seprank::FamilyInfo& info = seprank::family_info(s.family);
    s.tokens = between(lim.min_tokens, lim.max_tokens);
    s.dim = between(lim.min_dim, lim.max_dim);
    s.depth = between(lim.min_depth, lim.max_depth);
    if (s.depth >= 2 && lim.max_inputs_deep > 0 && s.tokens * s.dim > lim.max_inputs_deep)
        s.dim = std::max(1L, lim.max_inputs_deep / s.tokens);
    s.residual = lim.residual && rng.below(3) == 0;
    s.block_degree = info.fixed_block_degree > 0
                         ? info.fixed_block_degree
                         : between(lim.min_block_degree, s.depth >= 2 ? lim.max_block_degree_deep : lim.max_block_degree);
    // The family's own fields. No default: -Wswitch names this place when a family is added.
    bool embeddable = true;
    switch (s.family) {
        case Family::attention: {
            const auto heads = rng.below(4);
            if (heads == 1) {
                s.heads = s.dim;  // da = 1
            } else if (heads == 2) {
                s.heads = 2;  // explicit da: H need not divide dx
                s.head_dim = 1;
            }
            if (rng.below(3) == 0) s.attention_rank = between(1, seprank::head_dim(s));
            break;
        }
        case Family::hadamard:
            if (lim.max_width > 0 && rng.below(2) == 0) s.width = between(1, lim.max_width);
            s.free_slots = rng.below(2) == 1;
            break;
        case Family::fc:
            if (lim.max_width > 0 && rng.below(2) == 0)
                for (long l = 0; l < s.depth; ++l) s.widths.push_back(s.residual ? s.tokens * s.dim : between(1, lim.max_width));
            break;
        case Family::stack: {
            // One random layer per depth: each kind with its own fields; a residual per layer.
            const bool residual = s.residual;
            s.residual = false;
            s.block_degree = 3;
            const long dmax = s.depth >= 2 ? lim.max_block_degree_deep : lim.max_block_degree;
            for (long l = 0; l < s.depth; ++l) {
                const bool res = residual && rng.below(2) == 0;
                seprank::NetworkSpec so_far = s;  // what this layer reads: the tokens the layers so far write
                so_far.depth = static_cast<long>(s.layers.size());
                const long n = seprank::output_positions(so_far);
                const auto kind = rng.below(l + 1 == s.depth ? 5 : 4);
                if (kind == 3 && n >= 2) {  // conv: no residual (it changes the token count)
                    seprank::ConvLayer c;
                    c.filter = between(1, std::min(2L, n));
                    c.stride = between(1, 2);
                    c.power = between(std::max(1L, lim.min_block_degree), std::max(1L, dmax));
                    s.layers.emplace_back(c);
                } else if (kind == 4) {  // last: fc or dense, on the tokens flattened
                    const long d = between(std::max(1L, lim.min_block_degree), std::max(1L, dmax));
                    const long w = between(1, std::max(2L, lim.max_width));
                    if (rng.below(2) == 0) {
                        seprank::FcLayer f;
                        f.degree = d;
                        f.width = w;
                        s.layers.emplace_back(f);
                    } else {
                        seprank::DenseLayer dl;
                        dl.power = d;
                        dl.width = w;
                        s.layers.emplace_back(dl);
                    }
                } else if (kind == 0 || kind == 3) {
                    seprank::AttentionLayer a;
                    if (rng.below(2) == 0) a.heads = s.dim;  // da = 1
                    if (s.depth <= 1 && dmax >= 3 && rng.below(2) == 0) a.score_degree = 2;  // degree 5
                    if (rng.below(3) == 0) a.rank = 1;
                    a.residual = res;
                    s.layers.emplace_back(a);
                } else if (kind == 1) {
                    seprank::MlpLayer m;
                    m.power = between(std::max(1L, lim.min_block_degree), std::max(1L, dmax));
                    if (lim.max_width > 0 && rng.below(2) == 0) m.width = between(1, lim.max_width);
                    m.residual = res;
                    s.layers.emplace_back(m);
                } else {
                    seprank::HadamardLayer h;
                    h.degree = between(std::max(1L, lim.min_block_degree), std::max(1L, dmax));
                    if (lim.max_width > 0 && rng.below(2) == 0) h.width = between(1, lim.max_width);
                    h.free = rng.below(2) == 1;
                    h.residual = res;
                    s.layers.emplace_back(h);
                }
            }
            break;
        }
        case Family::power:
            // Widths d_1..d_h (no defaults), no residual, no embedding; one output vector.
            s.residual = false;
            embeddable = false;
            for (long l = 0; l < s.depth; ++l) s.widths.push_back(between(1, std::max(2L, lim.max_width)));
            break;
    }
    if (embeddable && rng.below(4) == 0) s.embed_rank = between(1, s.dim);
    s.coordinate = between(1, seprank::output_dim(s));
    if (info.per_position) s.position = between(1, seprank::output_positions(s));
    seprank::validate(s);
    return s;
}

// A stack (family stack) of `tokens` tokens of width `dim` whose layers are the SPEC
// `layers` (network.hpp's parse_layers syntax), one copy: depth = its number of layers.
inline seprank::NetworkSpec stack_spec(long tokens, long dim, const std::string& layers) {
    seprank::NetworkSpec s;
    s.family = seprank::Family::stack;
    s.tokens = tokens;
    s.dim = dim;
    s.layers = seprank::parse_layers(layers);
    s.depth = static_cast<long>(s.layers.size());
    return s;
}

// A power network (family power) on one token of `dim` inputs: x -> W_L s(... s(W_1 x)),
// s(t) = t^power, its widths n_1..n_L (the last the linear output layer's).
inline seprank::NetworkSpec power_spec(long dim, long power, const std::vector<long>& widths) {
    seprank::NetworkSpec s;
    s.family = seprank::Family::power;
    s.tokens = 1;
    s.dim = dim;
    s.block_degree = power;
    s.widths = widths;
    s.depth = static_cast<long>(widths.size());
    return s;
}

}  // namespace seprank_test

// ---------------------------------------------------------------------------
// Matrices of known rank.
#include "seprank/matrix.hpp"
#include "seprank/rank.hpp"

#include <algorithm>

namespace seprank_test {

// A matrix of rank exactly r made like FLINT's randrank + randops: r non-zero entries of
// `bits` bits on distinct rows and columns (a permuted diagonal), then `ops` random
// elementary row and column operations (add ±k times one line to another, |k| ≤ 2^kbits),
// which are unimodular: the rank stays r over Q. Few operations keep it sparse.
inline seprank::ZMat random_rank(seprank::Rng& rng, long m, long n, long r, unsigned bits, long ops, unsigned kbits = 2) {
    using namespace seprank;
    ZMat a(m, n);
    std::vector<long> rows(static_cast<std::size_t>(m)), cols(static_cast<std::size_t>(n));
    for (long i = 0; i < m; ++i) rows[static_cast<std::size_t>(i)] = i;
    for (long j = 0; j < n; ++j) cols[static_cast<std::size_t>(j)] = j;
    for (long i = m - 1; i > 0; --i) std::swap(rows[static_cast<std::size_t>(i)], rows[rng.below(static_cast<std::uint64_t>(i + 1))]);
    for (long j = n - 1; j > 0; --j) std::swap(cols[static_cast<std::size_t>(j)], cols[rng.below(static_cast<std::uint64_t>(j + 1))]);
    for (long k = 0; k < r; ++k) {
        Integer v = rng.big(bits);
        if (v.is_zero()) v = Integer(1);
        fmpz_set(fmpz_mat_entry(a.get(), rows[static_cast<std::size_t>(k)], cols[static_cast<std::size_t>(k)]), v.get());
    }
    Integer f;
    for (long t = 0; t < ops; ++t) {
        f = rng.big(kbits);
        if (f.is_zero()) continue;
        if (rng.below(2) == 0 && m > 1) {  // row i += f · row j
            const long i = static_cast<long>(rng.below(static_cast<std::uint64_t>(m)));
            long j = static_cast<long>(rng.below(static_cast<std::uint64_t>(m - 1)));
            j += j >= i;
            for (long c = 0; c < n; ++c) fmpz_addmul(fmpz_mat_entry(a.get(), i, c), f.get(), fmpz_mat_entry(a.get(), j, c));
        } else if (n > 1) {  // column i += f · column j
            const long i = static_cast<long>(rng.below(static_cast<std::uint64_t>(n)));
            long j = static_cast<long>(rng.below(static_cast<std::uint64_t>(n - 1)));
            j += j >= i;
            for (long c = 0; c < m; ++c) fmpz_addmul(fmpz_mat_entry(a.get(), c, i), f.get(), fmpz_mat_entry(a.get(), c, j));
        }
    }
    return a;
}

// Options that run one certificate itself: no fraction-free fallback for small matrices.
inline seprank::RankOptions certificate_options(seprank::Certificate c, std::uint64_t seed) {
    seprank::RankOptions o;
    o.seed = seed;
    o.certificate = c;
    o.fraction_free_max = 0;
    return o;
}

}  // namespace seprank_test

// Enum names: every enum's to_string (docs/library.md, "Errors").
#include <doctest/doctest.h>

#include <set>
#include <type_traits>

namespace seprank_test {

// Whether f throws E with `fragment` in its message; a message without it fails a CHECK
// that shows the message.
template <class E, class F>
bool throws_with(F&& f, const std::string& fragment) {
    try {
        f();
    } catch (const E& e) {
        const std::string m = e.what();
        INFO("message: " << m);
        CHECK(m.find(fragment) != std::string::npos);
        return m.find(fragment) != std::string::npos;
    }
    return false;
}

// to_string names each of `values` (every enumerator of E, numbered 0, 1, … in order)
// with a distinct non-empty text that `parse` maps back (pass nullptr where E has no
// parser), and refuses the value just past them with internal_error naming it:
// "to_string(<type>): unknown value <n>".
template <class E, class Parse>
void check_enum_names(const std::vector<E>& values, const std::string& type, Parse parse) {
    std::set<std::string> names;
    for (E v : values) {
        const std::string name = to_string(v);
        CHECK_FALSE(name.empty());
        names.insert(name);
        if constexpr (!std::is_same_v<Parse, std::nullptr_t>) CHECK(parse(name) == v);
    }
    CHECK(names.size() == values.size());
    const auto past = static_cast<int>(values.size());
    CHECK_THROWS_WITH_AS(to_string(static_cast<E>(past)), ("to_string(" + type + "): unknown value " + std::to_string(past)).c_str(),
                         seprank::internal_error);
}

// A rows×cols integer matrix of rank r (almost surely) whose entries are sums of r products
// of random `bits`-bit integers: kernels of many p-adic digits, for certificate budgets.
inline seprank::ZMat product_of_big_factors(seprank::Rng& rng, long rows, long cols, long r, unsigned bits) {
    seprank::ZMat x(rows, r), y(r, cols), a(rows, cols);
    for (long i = 0; i < rows; ++i)
        for (long k = 0; k < r; ++k) fmpz_set(fmpz_mat_entry(x.get(), i, k), rng.big(bits).get());
    for (long k = 0; k < r; ++k)
        for (long j = 0; j < cols; ++j) fmpz_set(fmpz_mat_entry(y.get(), k, j), rng.big(bits).get());
    fmpz_mat_mul(a.get(), x.get(), y.get());
    return a;
}

}  // namespace seprank_test
