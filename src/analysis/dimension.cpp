// seprank — functional dimension: the generic rank of the parameter map's Jacobian
// (include/seprank/dimension.hpp, which states the method, the variants, the expected
// count and the failure bound; docs/dimension.md derives the expected count).
#include "seprank/dimension.hpp"

#include "network/forward_impl.hpp"
#include "network/network_internal.hpp"
#include "base/parallel.hpp"
#include "base/process.hpp"
#include "algebra/rank_internal.hpp"
#include "seprank/equation.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/integer.hpp"
#include "seprank/limits.hpp"
#include "seprank/matrix.hpp"
#include "seprank/model.hpp"
#include "seprank/prime.hpp"
#include "seprank/progress.hpp"
#include "seprank/random.hpp"
#include "seprank/rank.hpp"
#include "base/word_mod.hpp"
#include "base/number_text.hpp"

#include <flint/fmpz.h>
#include <flint/nmod_vec.h>
#include <flint/ulong_extras.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <memory_resource>
#include <string>
#include <thread>
#include <vector>

namespace seprank {

std::string to_string(DimensionOutput o) {
    switch (o) {
        case DimensionOutput::scalar: return "scalar";
        case DimensionOutput::all: return "all";
    }
    throw internal_error("to_string(DimensionOutput): unknown value " + std::to_string(static_cast<int>(o)));
}

DimensionOutput dimension_output_from_string(const std::string& s) {
    if (s == "scalar") return DimensionOutput::scalar;
    if (s == "all") return DimensionOutput::all;
    throw invalid_input("output: '" + s + "' is not scalar or all");
}

std::string to_string(DimensionVariant v) {
    switch (v) {
        case DimensionVariant::reverse: return "reverse";
        case DimensionVariant::interpolation: return "interpolation";
    }
    throw internal_error("to_string(DimensionVariant): unknown value " + std::to_string(static_cast<int>(v)));
}

DimensionVariant dimension_variant_from_string(const std::string& s) {
    if (s == "reverse") return DimensionVariant::reverse;
    if (s == "interpolation") return DimensionVariant::interpolation;
    throw invalid_input("variant: '" + s + "' is not reverse or interpolation");
}

void check_options(const DimensionOptions& opt) {
    if (opt.trials < 1) throw invalid_input("trials T = " + std::to_string(opt.trials) + " must be at least 1");
    if (opt.trials > 1000) throw invalid_input("trials T = " + std::to_string(opt.trials) + " exceeds 1000 (each trial is a whole run)");
    if (opt.prime_bits < 20 || opt.prime_bits > 62)
        throw invalid_input("prime bits = " + std::to_string(opt.prime_bits) + " outside 20..62");
    if (opt.margin < 0) throw invalid_input("margin: " + std::to_string(opt.margin) + " is negative");
    check_threads(opt.threads);
    if (!std::isfinite(opt.max_seconds) || opt.max_seconds < 0)
        throw invalid_input("max seconds: " + number_text(opt.max_seconds) + " is not a finite number >= 0");
}

// ------------------------------------------------------------ the varied weights

namespace {

// fn(entry) for every weight entry the parameter map varies, in random_network's order
// (embedding, then each layer's matrices in file order, row-major), structural zeros
// skipped (the Model's varied_mask).
template <class T, class Fn>
void for_each_varied(const Model& m, NetWeights<T>& w, Fn&& fn) {
    const std::vector<bool>& mask = m.varied_mask();
    std::size_t k = 0;
    for_each_dense(w, [&](Dense<T>& d) {
        for (auto& x : d.a)
            if (mask[k++]) fn(x);
    });
}

}  // namespace

std::vector<Rational*> dimension_weight_entries(const ValidSpec& s, Weights& w) {
    std::vector<Rational*> out;
    for_each_varied(Model(s), w, [&](Rational& x) { out.push_back(&x); });
    return out;
}

long dimension_parameters(const ValidSpec& s) { return static_cast<long>(fmpz_get_si(Model(s).varied_parameters().get())); }

// ------------------------------------------------------------ expected dimension

namespace {



// A count held as a double (a row count may exceed a long), written exactly while it is
// an integer below 2^53.
std::string fmt_count(double v) {
    if (v < 9007199254740992.0) return std::to_string(static_cast<long long>(v));
    std::ostringstream os;
    os.precision(3);
    os << v;
    return os.str();
}

}  // namespace

namespace {

// The expected dimension of m's network (expected_dimension), from m's facts.
ExpectedDimension expected_of(const Model& m, DimensionOutput output) {
    ExpectedDimension e;
    e.parameters = static_cast<long>(fmpz_get_si(m.varied_parameters().get()));
    const bool scalar = output == DimensionOutput::scalar;
    e.losses = m.expected_losses(scalar, &e.known_defects);
    long total = 0;
    for (const auto& [what, v] : e.losses) total += v;
    e.ambient = m.output_space(scalar);
    e.expected = std::max(0L, std::min(e.parameters - total, e.ambient));
    // A layer's known defect lowers the parameters' count, not the monomials' cap: where the
    // cap binds it explains nothing (a review: hadamard:degree=2:width=4,fc:degree=1:width=1,
    // N = 2, dx = 3, every output, capped at 21, measured 15)
    if (e.expected < e.parameters - total) e.known_defects.clear();
    return e;
}

}  // namespace

ExpectedDimension expected_dimension(const ValidSpec& valid, DimensionOutput output) { return expected_of(Model(valid), output); }

namespace {

// The note's words for the layers' known defects (ExpectedDimension::known_defects, each
// "layer L: WHAT"): "; K of it known, in layers 1, 2: WHAT", each WHAT once. O(n²) in the
// few defects.
std::string known_defects_text(const std::vector<std::pair<std::string, long>>& known) {
    std::vector<std::pair<std::string, std::pair<std::vector<std::string>, long>>> by_what;  // what -> (layers, size)
    for (const auto& [text, k] : known) {
        const std::size_t colon = text.find(": ");
        const std::string layer = colon == std::string::npos ? std::string() : text.substr(0, colon);
        const std::string what = colon == std::string::npos ? text : text.substr(colon + 2);
        auto it = std::find_if(by_what.begin(), by_what.end(), [&](const auto& e) { return e.first == what; });
        if (it == by_what.end()) it = by_what.insert(by_what.end(), {what, {{}, 0}});
        it->second.first.push_back(layer.rfind("layer ", 0) == 0 ? layer.substr(6) : layer);
        it->second.second += k;
    }
    std::string out;
    for (const auto& [what, at] : by_what) {
        std::string layers;
        for (const std::string& l : at.first) layers += (layers.empty() ? "" : ", ") + l;
        out += "; " + std::to_string(at.second) + " of it known, in layer" + (at.first.size() > 1 ? "s " : " ") + layers + ": " + what;
    }
    return out;
}

}  // namespace

bool alexander_hirschowitz_exception(long v, long d, long s) {
    if (d == 2) return s >= 2 && s <= v - 1;
    return (v == 3 && d == 4 && s == 5) || (v == 4 && d == 4 && s == 9) || (v == 5 && d == 3 && s == 7) || (v == 5 && d == 4 && s == 14);
}

namespace {

// "1st", "2nd", "3rd", "4th", "11th", "21st", ...
std::string ordinal(long k) {
    const long t = k % 100, u = k % 10;
    return std::to_string(k) + (t >= 11 && t <= 13 ? "th" : u == 1 ? "st" : u == 2 ? "nd" : u == 3 ? "rd" : "th");
}

// Whether the expected count is proven an upper bound for the network: a power network
// with one output (any spelling, read through power_shape), where every reduction is one
// (the rescalings act with finite stabilizers, a run's forms and a read quadric span at
// most what they are counted; docs/defects.md, which labels its rows exact by this rule).
bool count_is_proven(const ValidSpec& valid) {
    const network_detail::PowerShape p = network_detail::power_shape(valid.get());
    return !p.widths.empty() && p.widths.back() == 1;
}

}  // namespace

std::vector<long> secant_of_veronese(const ValidSpec& valid) {
    const network_detail::PowerShape p = network_detail::power_shape(valid.get());  // any spelling
    if (p.widths.size() != 3 || p.widths[2] != 1 || p.power < 2) return {};
    return {p.widths[0], p.power, p.widths[1]};
}

// ------------------------------------------------------------ the Jacobian

namespace {

// A value mod p on the tape: `node` is its tape entry (−1: a constant, no dependence on
// the weights). The weights are the first P entries.
struct TapeValue {
    std::uint64_t v = 0;
    std::int32_t node = -1;
};

// One recorded operation: up to three (source entry, partial derivative) edges.
struct TapeNode {
    std::int32_t src[3];
    std::uint64_t c[3];
};

// Ring policy for detail::Forward that only counts the operations of a pass (the tape
// entries a TapeRing pass would record, at most), to estimate the work and the tape's
// memory before anything is drawn. Past `cap` operations it stops the pass (throws the
// count reached: the estimate is then at least that).
struct CountRing {
    struct E {};
    using W = E;
    std::uint64_t* ops;
    std::uint64_t cap;

    E zero() const { return {}; }
    E constant(long) const { return {}; }
    bool is_zero(const W&) const { return false; }
    W weight_zero() const { return {}; }
    void tick() const {
        if (++*ops > cap) throw *ops;
    }
    E mul(const E&, const E&) const { return tick(), E{}; }
    void add(E&, const E&) const { tick(); }
    void axpy(E&, const W&, const E&) const { tick(); }
    W weight_fma(const W&, const W&, const W&) const { return tick(), W{}; }
};

// Operations of one forward pass of `spec` at weights w (output coordinate p of position
// i), counted by a CountRing; cap + 1 when the pass would exceed cap.
std::uint64_t pass_operations(const Model& m, const Weights& w, std::uint64_t cap) {
    const NetworkSpec& spec = m.spec();
    std::uint64_t ops = 0;
    CountRing ring{&ops, cap};
    const NetWeights<CountRing::E> cw = map_weights<CountRing::E>(w, [](const Rational&) { return CountRing::E{}; });
    const std::vector<std::vector<CountRing::E>> in(static_cast<std::size_t>(spec.tokens),
                                                    std::vector<CountRing::E>(static_cast<std::size_t>(m.input_vars_per_token())));
    try {
        std::pmr::monotonic_buffer_resource arena;
        (void)detail::Forward<CountRing>(spec, cw, ring, &arena).output(in);
    } catch (std::uint64_t reached) {
        return reached;
    }
    return ops;
}

// Ring policy for detail::Forward that records the pass (reverse-mode differentiation
// mod p). Weights and elements are both TapeValues; is_zero is always false, since a
// zero weight still has a derivative.
struct TapeRing {
    using E = TapeValue;
    using W = TapeValue;
    nmod_t mod;
    std::vector<TapeNode>* tape;

    E zero() const { return {}; }
    E constant(long c) const { return {detail::residue_of(c, mod.n), -1}; }
    bool is_zero(const W&) const { return false; }
    W weight_zero() const { return {}; }

    // The result node of value v and edges (src_k, c_k), dropping constant sources and
    // zero partials; one edge of partial 1 is the source itself.
    E record(std::uint64_t v, std::int32_t s0, std::uint64_t c0, std::int32_t s1, std::uint64_t c1, std::int32_t s2, std::uint64_t c2) const {
        TapeNode n{{-1, -1, -1}, {0, 0, 0}};
        int k = 0;
        auto put = [&](std::int32_t s, std::uint64_t c) {
            if (s >= 0 && c != 0) {
                n.src[k] = s;
                n.c[k] = c;
                ++k;
            }
        };
        put(s0, c0);
        put(s1, c1);
        put(s2, c2);
        if (k == 0) return {v, -1};
        if (k == 1 && n.c[0] == 1) return {v, n.src[0]};
        tape->push_back(n);
        return {v, static_cast<std::int32_t>(tape->size() - 1)};
    }
    E mul(const E& a, const E& b) const { return record(nmod_mul(a.v, b.v, mod), a.node, b.v, b.node, a.v, -1, 0); }
    void add(E& acc, const E& x) const { acc = record(nmod_add(acc.v, x.v, mod), acc.node, 1, x.node, 1, -1, 0); }
    // acc + w·x, and the same for weights.
    E fma(const E& acc, const E& w, const E& x) const {
        return record(nmod_add(acc.v, nmod_mul(w.v, x.v, mod), mod), acc.node, 1, w.node, x.v, x.node, w.v);
    }
    void axpy(E& acc, const W& w, const E& x) const { acc = fma(acc, w, x); }
    W weight_fma(const W& s, const W& a, const W& b) const { return fma(s, a, b); }
};

// The outputs a row block covers: (position, coordinate), 1-based.
std::vector<std::pair<long, long>> output_list(const Model& m, DimensionOutput o) {
    std::vector<std::pair<long, long>> outs;
    if (o == DimensionOutput::scalar) outs.push_back({m.spec().position, m.spec().coordinate});
    else
        for (long i = 1; i <= m.output_positions(); ++i)
            for (long c = 1; c <= m.output_dim(); ++c) outs.push_back({i, c});
    return outs;
}

NmodMat jacobian_reverse(const Model& m, const Weights& weights, const std::vector<Point<std::uint64_t>>& pts,
                         std::uint64_t p, DimensionOutput output, int threads) {
    const NetworkSpec& spec = m.spec();
    const auto outs = output_list(m, output);
    nmod_t mod;
    nmod_init(&mod, p);
    // The weights as tape leaves 0..P−1 (structural zeros stay constants).
    NetWeights<TapeValue> tw = map_weights<TapeValue>(weights, [p](const Rational& x) { return TapeValue{x.mod(p), -1}; });
    std::int32_t P = 0;
    for_each_varied(m, tw, [&](TapeValue& x) { x.node = P++; });
    const long rows = static_cast<long>(pts.size() * outs.size());
    NmodMat J(rows, P, p);
    const long nt = std::max(1L, std::min<long>(threads, static_cast<long>(pts.size())));
    detail::run_parallel(static_cast<int>(nt), [&](int tid) {
        std::vector<TapeNode> tape;
        std::vector<std::uint64_t> adj;
        TapeRing ring{mod, &tape};
        for (std::size_t s = static_cast<std::size_t>(tid); s < pts.size(); s += static_cast<std::size_t>(nt)) {
            throw_if_cancelled();
            std::vector<std::vector<TapeValue>> in;
            for (const auto& tok : pts[s]) {
                std::vector<TapeValue> v;
                for (std::uint64_t x : tok) v.push_back({x % p, -1});
                in.push_back(std::move(v));
            }
            for (std::size_t o = 0; o < outs.size(); ++o) {
                NetworkSpec at = spec;
                at.position = outs[o].first;
                at.coordinate = outs[o].second;
                tape.assign(static_cast<std::size_t>(P), TapeNode{{-1, -1, -1}, {0, 0, 0}});
                std::pmr::monotonic_buffer_resource arena;
                const TapeValue y = detail::Forward<TapeRing>(at, tw, ring, &arena).output(in);
                adj.assign(tape.size(), 0);
                if (y.node >= 0) adj[static_cast<std::size_t>(y.node)] = 1;
                for (std::size_t i = tape.size(); i-- > static_cast<std::size_t>(P);) {
                    const std::uint64_t a = adj[i];
                    if (a == 0) continue;
                    const TapeNode& n = tape[i];
                    for (int k = 0; k < 3 && n.src[k] >= 0; ++k) {
                        std::uint64_t& t = adj[static_cast<std::size_t>(n.src[k])];
                        t = nmod_add(t, nmod_mul(a, n.c[k], mod), mod);
                    }
                }
                const long row = static_cast<long>(s * outs.size() + o);
                for (std::int32_t j = 0; j < P; ++j) J.set(row, j, adj[static_cast<std::size_t>(j)]);
            }
        }
    });
    return J;
}

// c_t = l_t'(0) mod p for the Lagrange basis l_t on the nodes 0..D: the derivative at 0
// of the interpolant through (t, y_t) is Σ_t c_t y_t.
std::vector<std::uint64_t> derivative_weights(long D, std::uint64_t p) {
    nmod_t mod;
    nmod_init(&mod, p);
    std::vector<std::uint64_t> coef(static_cast<std::size_t>(D + 1), 0);
    for (long t = 0; t <= D; ++t) {
        // l_t'(0) = Σ_{m≠t} Π_{k≠t,m} (−k) / Π_{k≠t} (t − k)
        std::uint64_t den = 1;
        for (long k = 0; k <= D; ++k)
            if (k != t) den = nmod_mul(den, detail::residue_of(t - k, p), mod);
        std::uint64_t num = 0;
        for (long m = 0; m <= D; ++m) {
            if (m == t) continue;
            std::uint64_t prod = 1;
            for (long k = 0; k <= D; ++k)
                if (k != t && k != m) prod = nmod_mul(prod, detail::residue_of(-k, p), mod);
            num = nmod_add(num, prod, mod);
        }
        coef[static_cast<std::size_t>(t)] = nmod_mul(num, n_invmod(den, p), mod);
    }
    return coef;
}

NmodMat jacobian_interpolation(const Model& m, const Weights& weights, const std::vector<Point<std::uint64_t>>& pts,
                               std::uint64_t p, DimensionOutput output) {
    const NetworkSpec& spec = m.spec();
    const auto outs = output_list(m, output);
    const Integer& wdeg = m.weight_degree();
    if (wdeg >= Integer(1L << 20)) throw invalid_input("weight degree " + wdeg.str() + " is too large for interpolation");
    const long D = static_cast<long>(fmpz_get_si(wdeg.get()));
    // The nodes 0..D must be distinct mod p (otherwise a Lagrange denominator is 0 mod p).
    if (p <= static_cast<std::uint64_t>(D))
        throw invalid_input("the interpolation variant needs a prime above the weight degree D_L = " + std::to_string(D) +
                            ", got p = " + std::to_string(p) + " (its nodes 0..D_L must be distinct mod p)");
    const std::vector<std::uint64_t> coef = derivative_weights(D, p);
    nmod_t mod;
    nmod_init(&mod, p);
    Network net{spec, weights};
    std::vector<Rational*> w;
    for_each_varied(m, net.weights, [&](Rational& x) { w.push_back(&x); });
    const long P = static_cast<long>(w.size());
    const long rows = static_cast<long>(pts.size() * outs.size());
    NmodMat J(rows, P, p);
    for (long j = 0; j < P; ++j) {
        throw_if_cancelled();
        const Rational w0 = *w[static_cast<std::size_t>(j)];
        for (long t = 0; t <= D; ++t) {
            *w[static_cast<std::size_t>(j)] = w0 + Rational(t);
            const std::uint64_t c = coef[static_cast<std::size_t>(t)];
            for (std::size_t o = 0; o < outs.size(); ++o) {
                Network v = net;
                v.spec.position = outs[o].first;
                v.spec.coordinate = outs[o].second;
                ModEvaluator ev(v, p);
                for (std::size_t s = 0; s < pts.size(); ++s) {
                    const long row = static_cast<long>(s * outs.size() + o);
                    J.set(row, j, nmod_add(J.at(row, j), nmod_mul(c, ev(pts[s]), mod), mod));
                }
            }
        }
        *w[static_cast<std::size_t>(j)] = w0;
    }
    return J;
}

}  // namespace

NmodMat dimension_jacobian(const Network& net, const std::vector<Point<std::uint64_t>>& points, std::uint64_t p,
                           DimensionOutput output, DimensionVariant variant, int threads) {
    const Model m{ValidSpec(net.spec)};
    m.check_weights(net.weights);
    if (p < 3 || !n_is_prime(p)) throw invalid_input("modulus " + std::to_string(p) + " is not an odd prime");
    check_threads(threads);
    for (const auto& pt : points) check_point(m.spec(), pt);
    return variant == DimensionVariant::reverse ? jacobian_reverse(m, net.weights, points, p, output, threads)
                                                : jacobian_interpolation(m, net.weights, points, p, output);
}

// ------------------------------------------------------------ the dimension

namespace {

// `count` input points of N tokens with `vars` residues each, uniform on Z/p, in order.
std::vector<Point<std::uint64_t>> draw_points(Rng& rng, long count, long N, long vars, std::uint64_t p) {
    std::vector<Point<std::uint64_t>> pts;
    for (long s = 0; s < count; ++s) {
        Point<std::uint64_t> pt(static_cast<std::size_t>(N), std::vector<std::uint64_t>(static_cast<std::size_t>(vars)));
        for (auto& row : pt)
            for (auto& x : row) x = rng.below(p);
        pts.push_back(std::move(pt));
    }
    return pts;
}

// The dimension of m's network: every fact of the spec read from m (model.hpp), derived
// once by the dispatchers below.
RankAnswer dimension_with(const Model& m, const DimensionOptions& opt, DimensionVariant variant) {
    const auto t0 = std::chrono::steady_clock::now();
    const NetworkSpec& spec = m.spec();
    check_options(opt);
    if (opt.weights) m.check_weights(*opt.weights);
    const ExpectedDimension ex = expected_of(m, opt.output);
    if (ex.parameters == 0) throw invalid_input("network: it has no parameters (depth " + std::to_string(spec.depth) + ", no embedding)");
    Rng rng(opt.seed);
    RankAnswer res;
    res.quantity = "dimension";
    res.method = "jacobian";
    res.variant = to_string(variant);
    res.output = to_string(opt.output);
    res.field = "Z/p";
    res.degree = m.degree().str();
    res.trials = opt.trials;
    res.parameters = ex.parameters;
    res.expected = ex.expected;
    // On the GPU the Jacobian's rank is taken there; its prime is at most the largest the
    // GPU elimination takes (device.hpp). The Jacobian itself is built on the CPU.
    const DeviceChoice dev = choose_device(opt.device);
    const bool gpu = dev.device == Device::cuda;
    const int bits = drawn_prime_bits(dev, opt.prime_bits);
    res.device = dev.name;
    // Each trial draws its own prime (the first before anything else, so that one trial
    // draws as it always did): the trials are independent in the prime as well, and the
    // chance that a prime divides the certifying minor's content falls with T too.
    std::vector<std::uint64_t> primes{random_prime(rng, static_cast<unsigned>(bits))};
    const Integer& wdeg = m.weight_degree();
    const Integer drawn = spec.embed_rank > 0 ? wdeg + m.degree() : wdeg;
    const Integer bdeg = drawn + m.degree();
    res.weight_degree = wdeg.str();
    res.bound_degree = bdeg.str();
    const long N = spec.tokens;
    const long vars = m.input_vars_per_token();
    const long outs = static_cast<long>(output_list(m, opt.output).size());
    const long P = ex.parameters;
    // Memory, estimated in doubles (no size here can overflow it) and checked before
    // anything is drawn (resource_limit): every trial's network (an fmpz and its share of
    // the matrices and allocations, ~96 bytes a parameter, 1 KiB fixed) and points (N
    // vectors of `vars` residues each, with the allocator's overhead), drawn first; and per
    // worker one Jacobian (8 bytes an entry) with, ranked by FFLAS, its copy as doubles.
    // (Measured: 10^6 trials of the default network, 8.8 GiB estimated, 6.9 GiB peak.)
    const int workers = static_cast<int>(std::min<long>(opt.threads, opt.trials));
    const double npts_d = std::ceil((static_cast<double>(P) + static_cast<double>(opt.margin)) / static_cast<double>(outs));
    const double rows_d = npts_d * static_cast<double>(outs);
    const double point_bytes = 32.0 + static_cast<double>(N) * (48.0 + 8.0 * static_cast<double>(vars));
    const double trials_d = static_cast<double>(opt.trials);
    check_memory(trials_d * (npts_d * point_bytes + 96.0 * static_cast<double>(P) + 1024.0) +
                     16.0 * rows_d * static_cast<double>(P) * workers,
                 default_max_memory(),
                 "the dimension's draws and Jacobians (" + std::to_string(opt.trials) + " trials of " + fmt_count(rows_d) + " x " +
                     std::to_string(P) + ", " + std::to_string(workers) + " at once)");
    // Work and tape, estimated from one counted pass before anything is drawn: a reverse
    // row records at most `ops` tape entries (40 bytes each, per worker thread; entries
    // are indexed by int32) and costs about kNsPerTapeOp ns with its backward sweep (measured on 2 cores: 38 ns at 180k
    // operations a pass, the tape out of cache; an elimination about kNsPerRankOp ns per
    // multiply-add); an
    // interpolation row evaluates the network (D+1)·P times. Rows may grow past the
    // first draw (points added while the rank grows), so this is a lower estimate.
    // A tape past 4 MiB runs from memory, about kNsPerTapeOpFar ns an entry, and every row
    // draws and copies its N tokens, about kNsPerToken ns each (attention dx = 2, 2 trials
    // of 24 rows, 2 cores: N = 16,384, 65,536, 262,144 took 0.43, 1.56 and 6.0 s, which the
    // cache's 40 ns alone put at 0.16, 0.63 and 2.5 s, and --max-time let through: a hunt,
    // 2026-12-02; now 0.41, 1.65 and 6.6 s).
    {
        constexpr double kNsPerTapeOp = 40.0, kNsPerTapeOpFar = 90.0, kNsPerToken = 150.0, kNsPerEvalOp = 4.0, kNsPerRankOp = 0.3;
        constexpr double kTapeEntryBytes = 40.0, kTapeInCache = 4.0 * 1048576.0;
        constexpr std::uint64_t kTapeMax = (std::uint64_t{1} << 31) - 1;
        const Weights w = opt.weights ? *opt.weights : m.draw_weights(1, 1);
        const std::uint64_t ops = pass_operations(m, w, kTapeMax - static_cast<std::uint64_t>(P));
        const double ops_d = static_cast<double>(ops);
        if (variant == DimensionVariant::reverse && ops + static_cast<std::uint64_t>(P) >= kTapeMax)
            throw resource_limit("the dimension's tape: a forward pass records more than 2^31 operations, over what one tape can index");
        const double cores = std::max(1.0, std::min<double>(opt.threads, static_cast<double>(std::max(1u, std::thread::hardware_concurrency()))));
        const double tape_op = kTapeEntryBytes * ops_d > kTapeInCache ? kNsPerTapeOpFar : kNsPerTapeOp;
        const double per_row = static_cast<double>(N) * kNsPerToken + (variant == DimensionVariant::reverse
                                                                           ? ops_d * tape_op
                                                                           : ops_d * kNsPerEvalOp * static_cast<double>(P) * (std::stod(wdeg.str()) + 1.0));
        if (variant == DimensionVariant::reverse)
            check_memory(kTapeEntryBytes * (ops_d + static_cast<double>(P)) * cores, default_max_memory(), "the dimension's tapes (" + fmt_count(ops_d) + " operations a pass)");
        const double rank_ops = rows_d * static_cast<double>(P) * static_cast<double>(std::min<long>(P, static_cast<long>(rows_d)));
        const double seconds = (trials_d * rows_d * per_row + trials_d * rank_ops * kNsPerRankOp) * 1e-9 / cores;
        check_time(seconds, opt.max_seconds > 0 ? opt.max_seconds : default_max_seconds(),
                   "the dimension (" + std::to_string(opt.trials) + " trials of " + fmt_count(rows_d) + " rows, " + fmt_count(ops_d) +
                       " operations a forward pass, " + std::to_string(static_cast<long>(cores)) + " threads)",
                   opt.max_seconds > 0 ? "max_seconds" : "--max-time");
    }
    const long npts = static_cast<long>(npts_d);
    // Every trial's weights and points are drawn first, in order (the answer does not
    // depend on the thread count); the trials then run on min(threads, trials) workers,
    // each building its Jacobians on the threads left over.
    std::vector<Network> nets;
    std::vector<std::vector<Point<std::uint64_t>>> trial_pts;
    for (long tr = 0; tr < opt.trials; ++tr) {
        if (tr > 0) primes.push_back(random_prime(rng, static_cast<unsigned>(bits)));
        const std::uint64_t p = primes.back();
        nets.push_back(Network{spec, opt.weights ? *opt.weights : m.draw_weights(rng.next(), static_cast<long>((p - 1) / 2))});
        trial_pts.push_back(draw_points(rng, npts, N, vars, p));
    }
    // The seeds of the points each trial may add (below), drawn after every first draw so
    // that those, and the answers that need no more points, stay as they were.
    std::vector<std::uint64_t> more_seed(static_cast<std::size_t>(opt.trials));
    for (auto& sd : more_seed) sd = rng.next();
    const int inner = std::max(1, opt.threads / workers);
    std::vector<long> ranks(static_cast<std::size_t>(opt.trials), 0), trial_rows(static_cast<std::size_t>(opt.trials), 0);
    std::vector<char> growing(static_cast<std::size_t>(opt.trials), 0);
    // Per trial: the sizes of the minors its bound counts, min(rank + 1, rows, P) at each
    // rank it took (the first draw's, then one per addition of points), summed.
    std::vector<double> minors(static_cast<std::size_t>(opt.trials), 0.0);
    // Per trial, on the GPU: the device time of its eliminations (the note sums them).
    std::vector<double> device_seconds(static_cast<std::size_t>(opt.trials), 0.0);
    std::vector<Phases> worker_phases(static_cast<std::size_t>(workers));
    const double limit = default_max_memory();
    // Progress (progress.hpp), from the workers: phase "dimension trials", the trials done of
    // T, and what one under way does (the observer is the caller's, taken on this thread).
    const ProgressObserver& progress = current_progress();
    std::atomic<long> trials_done{0};
    const auto report = [&](long tr, const std::string& doing) {
        report_progress(progress, "dimension trials", static_cast<std::uint64_t>(trials_done.load()), static_cast<std::uint64_t>(opt.trials),
                        "trial " + std::to_string(tr + 1) + ": " + doing);
    };
    detail::run_parallel(workers, [&](int w) {
        Phases& ph = worker_phases[static_cast<std::size_t>(w)];
        for (long tr = w; tr < opt.trials; tr += workers) {
            const auto& net = nets[static_cast<std::size_t>(tr)];
            const std::uint64_t p = primes[static_cast<std::size_t>(tr)];
            auto jacobian = [&](const std::vector<Point<std::uint64_t>>& pts) {
                report(tr, "the Jacobian of " + std::to_string(static_cast<long>(pts.size()) * outs) + " rows x " + std::to_string(P) + " parameters");
                const auto tm = std::chrono::steady_clock::now();
                NmodMat J = variant == DimensionVariant::reverse ? jacobian_reverse(m, net.weights, pts, p, opt.output, inner)
                                                                 : jacobian_interpolation(m, net.weights, pts, p, opt.output);
                ph.matrix += std::chrono::duration<double>(std::chrono::steady_clock::now() - tm).count();
                return J;
            };
            auto rank_of = [&](const NmodMat& J) {
                report(tr, "ranking " + std::to_string(J.rows()) + " x " + std::to_string(P));
                const auto tr0 = std::chrono::steady_clock::now();
                // A prime below 2^26 (--prime-bits <= 26) is ranked by FFLAS-FFPACK's BLAS-backed
                // elimination (rank.hpp), several times faster than FLINT's at these sizes.
                double secs = 0;
                const long r = gpu ? rank_modular_cuda(J, 0, &secs) : p < fflas_max_prime && fflas_available() ? rank_modular_fflas(J) : rank_modular(J);
                device_seconds[static_cast<std::size_t>(tr)] += secs;
                ph.rank += std::chrono::duration<double>(std::chrono::steady_clock::now() - tr0).count();
                // the minor of the rank found plus one (or of the matrix's side) joins the trial's sum
                minors[static_cast<std::size_t>(tr)] += static_cast<double>(std::min({r + 1, J.rows(), P}));
                return r;
            };
            NmodMat J = jacobian(trial_pts[static_cast<std::size_t>(tr)]);
            long rk = rank_of(J);
            // More points while the rank grows (docs/dimension.md, "Points"): a point gives
            // K = outs rows, but rows of one point can be dependent whatever the weights (one
            // point of N = 20 tokens, dx = 4, caps the rank at dx² = 16), so P + margin rows
            // do not always show the rank. Below the expected count, add points, enough for
            // margin + the gap in rows, until an addition leaves the rank where it was: the
            // rank then stopped growing with that many rows to spare.
            while (rk < ex.expected && rk < P) {
                const long step = std::max(1L, (opt.margin + (ex.expected - rk) + outs - 1) / outs);
                const double next_rows = static_cast<double>(J.rows()) + static_cast<double>(step * outs);
                if (16.0 * next_rows * static_cast<double>(P) * workers > limit) {
                    growing[static_cast<std::size_t>(tr)] = 1;  // still growing where memory stopped it
                    break;
                }
                Rng more(more_seed[static_cast<std::size_t>(tr)] + static_cast<std::uint64_t>(J.rows()));
                const NmodMat extra = jacobian(draw_points(more, step, N, vars, p));
                NmodMat both(J.rows() + extra.rows(), P, p);
                for (long i = 0; i < J.rows(); ++i)
                    std::copy(J.get()->rows[i], J.get()->rows[i] + P, both.get()->rows[i]);
                for (long i = 0; i < extra.rows(); ++i)
                    std::copy(extra.get()->rows[i], extra.get()->rows[i] + P, both.get()->rows[J.rows() + i]);
                J = std::move(both);
                const long grown = rank_of(J);
                if (grown == rk) break;
                rk = grown;
            }
            ranks[static_cast<std::size_t>(tr)] = rk;
            trial_rows[static_cast<std::size_t>(tr)] = J.rows();
            ++trials_done;
            report(tr, "rank " + std::to_string(rk));
        }
    });
    long rows = 0, all_rows = 0;
    for (long r : trial_rows) {
        rows = std::max(rows, r);
        all_rows += r;
    }
    // The phases of the busiest worker (so that they add up to at most `seconds`).
    for (const Phases& ph : worker_phases)
        if (ph.matrix + ph.rank > res.phases.matrix + res.phases.rank) res.phases = ph;
    long best = -1;
    std::size_t best_trial = 0;
    for (std::size_t tr = 0; tr < ranks.size(); ++tr) {
        res.trial_ranks.push_back(ranks[tr]);
        if (ranks[tr] > best) best = ranks[tr], best_trial = tr;
    }
    res.rows = rows;
    res.cols = P;
    res.evaluations = variant == DimensionVariant::reverse ? all_rows : all_rows * P * (fmpz_get_si(wdeg.get()) + 1);
    res.value = best;
    for (long r : res.trial_ranks)
        if (r < best) ++res.degenerate;
    res.kind = RankKind::generic;
    // The trial that gave the value names the prime; primes_used counts the distinct ones.
    res.prime = primes[best_trial];
    res.set_size = res.prime;
    res.primes_used = detail::distinct_count(primes);
    // The answer v (the largest trial rank) is below the generic rank R* only if every trial
    // stayed at most v. A trial with rank v did so when, at one of the ranks it took, the
    // minor of size ρ = min(rank + 1, rows, P) vanished at the draw (Schwartz–Zippel: Σρ·D/p,
    // the trial's `minors`), or vanished identically mod its prime (generic.cpp): an entry
    // ∂f_o/∂w_k has a coefficient sum at most D_w times f_o's (an exponent of w_k is at most
    // D_w), so those minors' contents have at most Σρ·(log2(v+1) + log2 D_w + log2 F) bits,
    // F the largest sum over the outputs read, and the prime divides one with probability at
    // most c = prime_divisor_bound of that. A trial below v counts 1. The trials draw primes,
    // weights and points independently: the bound is the product of their terms.
    const double f_bits = log2_structure_bound(m, 1, output_list(m, opt.output));
    const double log2_dw = std::log2(std::max(1.0, std::stod(wdeg.str())));
    const double v1 = static_cast<double>(best) + 1.0;
    const auto content_bits_of = [&](double rho) { return rho * (std::log2(v1) + log2_dw + f_bits); };
    const auto content_of = [&](double rho) {
        return rho > 0 ? detail::prime_divisor_bound(content_bits_of(rho), static_cast<unsigned>(bits)) : 0.0;
    };
    const double D = fmpz_get_d(bdeg.get());
    std::vector<double> per_trial;
    for (std::size_t tr = 0; tr < primes.size(); ++tr)
        per_trial.push_back(ranks[tr] < best ? 1.0 : minors[tr] * D / static_cast<double>(primes[tr]) + content_of(minors[tr]));
    const double rho = minors[best_trial];
    const double content_bits = content_bits_of(rho), content = content_of(rho);
    res.failure_bound = independent_bound(per_trial);
    const bool stopped = std::any_of(growing.begin(), growing.end(), [](char g) { return g != 0; });
    res.converged = !stopped;
    if (opt.weights) {
        // The rank at the given weights (mod p, at random points) is a lower bound of the
        // local dimension there, not a generic value: no expected count is compared with
        // it (the generic one is for random weights) and no failure bound covers it.
        res.kind = RankKind::modular_lower_bound;
        res.failure_bound = 1;
        res.expected = -1;
        res.note = "local dimension at the given weights: a lower bound (rank mod p at random points); parameters " +
                   std::to_string(P) + ", generic expected " + std::to_string(ex.expected) + " (for random weights, not compared)";
    } else {
        // Every trial rank is at most the dimension (a rank mod p at one point: at most the
        // rank over F_p(w, x), at most the one over Q), and the dimension is at most the
        // parameters and the output's monomials whatever the weights: a rank reaching either
        // is the dimension itself.
        const long hard = std::min(P, ex.ambient);
        char c[160];
        std::snprintf(c, sizeof c, "s = %ld (the ranks it took plus one, summed), c = %.3g (its prime dividing one of those minors' contents, at most %.3g bits)",
                      static_cast<long>(rho), bound_up(content, 3), bound_up(content_bits, 3));
        res.note = "parameters " + std::to_string(P) + ", expected " + std::to_string(ex.expected);
        if (res.value > ex.expected)  // a lower bound above the count: the count is wrong here
            res.note += "; the rank is above the expected count, whose reductions then overcount here (docs/dimension.md: please report)";
        // The row scalings that keep f (a stack of conv, dense and fc layers without
        // residual) act freely on generic read weights: the dimension is at most the read
        // weights less their number, whatever the count's other reductions.
        const long scaled = network_detail::row_scaling_bound(m.valid().get(), P, opt.output == DimensionOutput::scalar);
        // The image lies in its affine span, exact over Q where f is small: one layer of at
        // most 200 weights, 20,000 terms, 0.1 s (scalar output; deeper ones took the default
        // table's --dimension from 25 to 62 s of CPU in a trial). Asked after the rules above.
        const auto small_span = [&]() -> long {
            return opt.output != DimensionOutput::scalar || P > 200 || m.spec().depth > 1 ? -1 : image_span_dimension(m.valid(), 20000, 0.1);
        };
        if (res.value == hard) {
            res.kind = RankKind::exact;
            res.failure_bound = 0;
            res.note += "; exact: the rank reaches the " + std::string(hard == P ? "parameters" : "output's monomials") + " (" + std::to_string(hard) +
                        "), which bound the dimension from above whatever the weights";
        } else if (res.value == scaled) {
            res.kind = RankKind::exact;
            res.failure_bound = 0;
            res.note += "; exact: the rank reaches the weights the output reads less their row scalings that keep f (" + std::to_string(scaled) +
                        "), which bound the dimension from above whatever the weights (the scalings act freely on generic weights: docs/dimension.md)";
        } else if (const long span = small_span(); span >= 0 && res.value == span) {
            res.kind = RankKind::exact;
            res.failure_bound = 0;
            res.note += "; exact: the rank reaches the dimension of the image's affine span (" + std::to_string(span) +
                        ", computed exactly over Q from f's expansion in the weights), which holds the image (docs/equation.md)";
        } else if (!stopped && res.value == ex.expected && count_is_proven(m.valid())) {
            res.kind = RankKind::exact;
            res.failure_bound = 0;
            res.note += "; exact: the rank reaches the expected count, which is an upper bound of the dimension for a one-output power network "
                        "(each of its reductions is: docs/defects.md)";
        } else if (stopped) {  // the rows may not show the rank yet: a lower bound, no defect claimed
            res.note += "; failure_bound 1: a trial's rank was still growing (below), so no chance is bounded";
            res.expected = -1;
            res.kind = RankKind::modular_lower_bound;
            res.failure_bound = 1;
        } else {
            std::string named;  // a defect with a name: the secant variety of an Alexander–Hirschowitz exception
            const std::vector<long> vrw = res.value < ex.expected ? secant_of_veronese(m.valid()) : std::vector<long>{};
            if (!vrw.empty() && alexander_hirschowitz_exception(vrw[0], vrw[1], vrw[2]))
                named = ": an Alexander-Hirschowitz exception, (v, r, w) = (" + std::to_string(vrw[0]) + ", " + std::to_string(vrw[1]) + ", " +
                        std::to_string(vrw[2]) + "): the " + ordinal(vrw[2]) + " secant variety of the degree-" + std::to_string(vrw[1]) +
                        " Veronese of P^" + std::to_string(vrw[0] - 1) + " is defective (docs/theory.md)";
            if (res.value < ex.expected) named += known_defects_text(ex.known_defects);
            res.note += (res.value < ex.expected ? " (defect " + std::to_string(ex.expected - res.value) + named + ")" : "") +
                        "; failure_bound = the product over the T = " + std::to_string(opt.trials) +
                        " trials (each its own prime p) of s*D/p + c (1 for a trial below the maximum); for the trial that gave the rank " + c;
        }
    }
    if (gpu) {
        double secs = 0;
        for (double x : device_seconds) secs += x;
        res.note += "; Jacobian ranked on the GPU, mod a random " + std::to_string(bits) + "-bit prime" +
                    (bits < opt.prime_bits ? " (the GPU's largest; prime_bits " + std::to_string(opt.prime_bits) + " lowered)" : "") +
                    " (eliminations: " + detail::device_time(secs) + ")";
    }
    if (!dev.note.empty()) res.note += "; " + dev.note;
    if (stopped && res.kind != RankKind::exact)
        res.note += "; the rank was still growing when the memory limit stopped adding points (" + std::to_string(res.rows) +
                    " rows): a lower bound, no defect claimed";
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    res.peak_mib = peak_rss_mib();
    return res;
}

}  // namespace

RankAnswer dimension_reverse(const ValidSpec& spec, const DimensionOptions& opt) {
    return dimension_with(Model(spec), opt, DimensionVariant::reverse);
}

RankAnswer dimension_interpolation(const ValidSpec& spec, const DimensionOptions& opt) {
    return dimension_with(Model(spec), opt, DimensionVariant::interpolation);
}

RankAnswer function_dimension(const ValidSpec& spec, const DimensionOptions& opt) {
    return dimension_with(Model(spec), opt, opt.variant);
}

}  // namespace seprank
