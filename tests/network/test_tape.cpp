// The forward tape (tape.hpp): the recorded program against ModBatchEvaluator and
// ModEvaluator on every family and option, its slots recycled, its checks, and the CUDA
// interpreter against the CPU one where a GPU is present (else its refusal).
#include "seprank/device.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/network.hpp"
#include "seprank/prime.hpp"
#include "seprank/tape.hpp"
#include "support.hpp"
#include "network/tape_impl.hpp"  // src/: the arithmetic and the per-point step of the CUDA kernel
#include "network/tape_source.hpp"  // src/: the tape as source code

#include <doctest/doctest.h>

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace seprank;

namespace {

// The primes the tape must handle: 2 (bit arithmetic), 3, a small odd prime, one near
// 2^31, one near 2^61 and the largest below 2^63 (the top of Montgomery's range).
std::uint64_t pick_prime(Rng& rng, int it) {
    switch (it % 6) {
        case 0: return 2;
        case 1: return 3;
        case 2: return random_prime(rng, 3 + static_cast<unsigned>(rng.below(14)));
        case 3: return random_prime(rng, 31 + static_cast<unsigned>(rng.below(2)));
        case 4: return random_prime(rng, 61 + static_cast<unsigned>(rng.below(2)));
        default: return 9223372036854775783ULL;  // largest prime < 2^63
    }
}

// count points of the network's width: entries below p, or any 64-bit value (the
// evaluators reduce them).
std::vector<std::uint64_t> random_points(Rng& rng, std::size_t width, std::size_t count, std::uint64_t p) {
    std::vector<std::uint64_t> flat(width * count);
    const bool wide = rng.below(3) == 0;
    for (auto& v : flat) v = wide ? rng.next() : rng.below(p);
    return flat;
}

Point<std::uint64_t> point_at(const NetworkSpec& s, const std::vector<std::uint64_t>& flat, std::size_t q, std::uint64_t p) {
    const std::size_t per = static_cast<std::size_t>(input_vars_per_token(s));
    Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(per));
    const std::size_t width = per * x.size();
    for (std::size_t t = 0; t < x.size(); ++t)
        for (std::size_t c = 0; c < per; ++c) x[t][c] = flat[q * width + t * per + c] % p;
    return x;
}

// Every instruction reads and writes slots below slots(), INPUT reads coordinates below
// inputs(), and opcodes are known.
void check_program(const Tape& t) {
    for (const Tape::Op& op : t.ops()) {
        REQUIRE(op.code <= 8);
        CHECK(op.dst < t.slots());
        if (op.code == 2) CHECK(op.a < t.inputs());
        if (op.code >= 3) CHECK(op.a < t.slots());
        if (op.code == 3 || op.code == 4 || op.code == 5) CHECK(op.b < t.slots());
        if (op.code == 1 || op.code >= 5) CHECK(op.w < t.modulus());
    }
    CHECK(t.output_slot() < t.slots());
}

// Tape::evaluate against ModBatchEvaluator on count points, and ModEvaluator on the first few.
void compare_cpu(const Network& net, std::uint64_t p, std::size_t count, Rng& rng) {
    const Tape tape(net, p);
    const ModBatchEvaluator batch(net, p);
    REQUIRE(tape.inputs() == batch.width());
    CHECK(tape.modulus() == p);
    check_program(tape);
    const std::vector<std::uint64_t> flat = random_points(rng, tape.inputs(), count, p);
    std::vector<std::uint64_t> got(count, 1), expect(count, 2);
    tape.evaluate(flat.data(), count, got.data());
    batch.evaluate(flat.data(), count, expect.data());
    CHECK(got == expect);
    const ModEvaluator scalar(net, p);
    for (std::size_t q = 0; q < std::min<std::size_t>(count, 3); ++q) CHECK(got[q] == scalar(point_at(net.spec, flat, q, p)));
}

using seprank_test::stack_spec;

// Named specs covering each family and option at least once.
std::vector<NetworkSpec> named_specs() {
    std::vector<NetworkSpec> out;
    for (long heads = 1; heads <= 3; ++heads) {
        NetworkSpec s = seprank_test::attention_spec(3, 3, 2, heads);
        if (heads == 2) s.head_dim = 2;  // H need not divide dx with an explicit da
        out.push_back(s);
    }
    NetworkSpec a = seprank_test::attention_spec(3, 4, 2, 2);
    a.residual = true;
    a.embed_rank = 2;
    a.attention_rank = 1;
    a.position = 3;
    a.coordinate = 4;
    out.push_back(a);
    for (long d = 2; d <= 3; ++d)
        for (bool free_slots : {false, true}) {
            NetworkSpec h = seprank_test::hadamard_spec(3, 2, 2, d, d == 2 ? 3 : 0);
            h.free_slots = free_slots;
            h.residual = d == 3;
            out.push_back(h);
        }
    NetworkSpec fc = seprank_test::attention_spec(2, 2, 3);
    fc.family = Family::fc;
    fc.block_degree = 2;
    out.push_back(fc);
    NetworkSpec power;
    power.family = Family::power;
    power.tokens = 1;
    power.dim = 3;
    power.block_degree = 2;
    power.depth = 2;
    power.widths = {3, 2};
    out.push_back(power);
    out.push_back(stack_spec(3, 2, "attention,mlp:power=2"));
    out.push_back(stack_spec(2, 3, "hadamard,attention"));
    out.push_back(stack_spec(2, 2, "hadamard:free:degree=2:residual,mlp:width=3:power=3,attention:heads=2:head-dim=1"));
    NetworkSpec d0 = seprank_test::attention_spec(2, 2, 0);  // depth 0: f is an input
    d0.position = 2;
    d0.coordinate = 2;
    out.push_back(d0);
    for (auto& s : out) validate(s);
    return out;
}

seprank_test::SpecLimits random_limits() {
    seprank_test::SpecLimits lim;
    lim.max_tokens = 4;
    lim.max_dim = 3;
    lim.max_depth = 3;
    lim.max_inputs_deep = 6;
    return lim;
}

using seprank_test::message_of;

// A random grid for the network: the tokens split at random into sides A and B (each
// token's variables contiguous on its side, as the evaluation matrices place them).
struct GridData {
    std::vector<std::uint64_t> a, b;
    TapeGrid grid;
};
GridData random_grid(Rng& rng, const NetworkSpec& s, std::uint64_t p, std::size_t rows, std::size_t cols, std::size_t nodes) {
    const std::size_t per = static_cast<std::size_t>(input_vars_per_token(s));
    GridData d;
    std::vector<int> side(static_cast<std::size_t>(s.tokens));
    std::size_t na = 0, nb = 0;
    for (auto& x : side) {
        x = static_cast<int>(rng.below(2));
        (x == 0 ? na : nb) += per;
    }
    d.grid.width_a = na;
    d.grid.width_b = nb;
    std::size_t ka = 0, kb = 0;
    for (std::size_t t = 0; t < side.size(); ++t)
        for (std::size_t c = 0; c < per; ++c) d.grid.source.push_back(static_cast<std::uint32_t>(side[t] == 0 ? ka++ : na + kb++));
    const bool wide = rng.below(3) == 0;
    d.a.resize(rows * na);
    d.b.resize(cols * nb);
    for (auto& v : d.a) v = wide ? rng.next() : rng.below(p);
    for (auto& v : d.b) v = wide ? rng.next() : rng.below(p);
    d.grid.a = d.a.data();
    d.grid.b = d.b.data();
    d.grid.rows = rows;
    d.grid.cols = cols;
    d.grid.nodes = nodes;
    return d;
}

// Point (i, j, t) of a grid, by plain arithmetic: (t + 1)·a mod p on side A.
Point<std::uint64_t> grid_point(const NetworkSpec& s, const TapeGrid& g, std::size_t i, std::size_t j, std::size_t t, std::uint64_t p) {
    __extension__ typedef unsigned __int128 u128;
    const std::size_t per = static_cast<std::size_t>(input_vars_per_token(s));
    Point<std::uint64_t> x(static_cast<std::size_t>(s.tokens), std::vector<std::uint64_t>(per));
    for (std::size_t c = 0; c < g.source.size(); ++c) {
        const std::size_t k = g.source[c];
        x[c / per][c % per] = k < g.width_a ? static_cast<std::uint64_t>(static_cast<u128>(g.a[i * g.width_a + k] % p) * (t + 1) % p)
                                            : g.b[j * g.width_b + k - g.width_a] % p;
    }
    return x;
}

}  // namespace

TEST_CASE("tape = ModBatchEvaluator = ModEvaluator on every named family and option, every kind of prime") {
    auto rng = seprank_test::rng_for("tape-named");
    INFO("seed " << seprank_test::seed());
    int it = 0;
    for (const NetworkSpec& s : named_specs()) {
        const Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(1000)));
        for (int k = 0; k < 6; ++k, ++it) {
            const std::uint64_t p = pick_prime(rng, k);
            const std::size_t count = k == 0 ? 0 : k == 1 ? 1 : 2 * rng.below(70) + 1;  // 0, 1, odd
            INFO("spec " << network_to_json(net, -1) << " p = " << p << " count " << count);
            compare_cpu(net, p, count, rng);
        }
    }
    CHECK(it == 6 * static_cast<int>(named_specs().size()));
}

TEST_CASE("tape = ModBatchEvaluator on random specs of every family, depth 0..3") {
    auto rng = seprank_test::rng_for("tape-random");
    INFO("seed " << seprank_test::seed());
    const seprank_test::SpecLimits lim = random_limits();
    std::vector<int> seen_family(all_families().size(), 0);
    for (int it = 0; it < seprank_test::iterations(120); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Network net = random_network(s, rng.next(), 1 + static_cast<long>(rng.below(100000)));
        const std::uint64_t p = pick_prime(rng, it);
        const std::size_t count = it % 7 == 0 ? 0 : it % 7 == 1 ? 1 : 2 * rng.below(100) + 1;
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p << " count " << count);
        compare_cpu(net, p, count, rng);
        for (std::size_t f = 0; f < all_families().size(); ++f) seen_family[f] += all_families()[f] == s.family;
    }
    for (int n : seen_family) CHECK(n > 0);
}

TEST_CASE("tape: slots are recycled (far fewer than instructions), constants fold, checks name the value") {
    auto rng = seprank_test::rng_for("tape-slots");
    INFO("seed " << seprank_test::seed());
    // A deep network: every layer's values die once the next layer has read them.
    const Network deep = random_network(seprank_test::attention_spec(3, 3, 8, 3), rng.next(), 9);
    const Tape t(deep, kDefaultPrime);
    MESSAGE("attention N=3 dx=3 H=3 L=8: " << t.size() << " instructions, " << t.slots() << " slots");
    CHECK(t.size() > 800);
    CHECK(t.slots() * 20 < t.size());
    // The live values of one layer are its N·dx inputs plus the head's sums: a bound
    // that does not grow with depth.
    const Tape shallow(random_network(seprank_test::attention_spec(3, 3, 2, 3), rng.next(), 9), kDefaultPrime);
    CHECK(t.slots() <= shallow.slots() + 9);
    const auto h = t.histogram();
    CHECK(h[2] <= 9);  // each input is loaded once (N·dx = 9)
    CHECK(h[0] == 0);  // zeros fold away

    // All weights 0: f = 0 is a constant, one instruction.
    Network zero = random_network(seprank_test::hadamard_spec(2, 2, 2, 2), 5, 3);
    for (Rational* w : weight_entries(zero.weights)) *w = Rational(0);
    const Tape z(zero, 101);
    CHECK(z.size() == 1);
    CHECK(z.slots() == 1);
    std::vector<std::uint64_t> pts(3 * z.inputs(), 7), out(3, 9);
    z.evaluate(pts.data(), 3, out.data());
    CHECK(out == std::vector<std::uint64_t>(3, 0));

    // A product of weights that vanishes mod p (all weights 3, p = 3) folds to 0 too.
    Network threes = random_network(seprank_test::attention_spec(2, 2, 1), 5, 3);
    for (Rational* w : weight_entries(threes.weights)) *w = Rational(3);
    CHECK(Tape(threes, 3).size() == 1);
    CHECK(Tape(threes, 5).size() > 1);

    const Network net = random_network(seprank_test::attention_spec(2, 2, 1), 1, 5);
    for (std::uint64_t bad : {0ULL, 1ULL, 4ULL, 91ULL, 18446744073709551557ULL /* prime > 2^63 */}) {
        const std::string m = message_of([&] { (void)Tape(net, bad); });
        CHECK(m.find(std::to_string(bad)) != std::string::npos);
    }
    Network broken = net;
    broken.weights.layers[0].heads[0].Q.a.pop_back();
    CHECK_THROWS_AS(Tape(broken, 7), invalid_input);
    // p dividing a weight's denominator, as ModEvaluator.
    Network half = net;
    *weight_entries(half.weights)[0] = Rational(Integer(1), Integer(3));
    CHECK_THROWS_AS(Tape(half, 3), domain_error);
    CHECK_THROWS_AS(ModEvaluator(half, 3), domain_error);
}

TEST_CASE("tape arithmetic: Montgomery products, sums and conversions = 128-bit reference, up to 2^63") {
    auto rng = seprank_test::rng_for("tape-mont");
    INFO("seed " << seprank_test::seed());
    __extension__ typedef unsigned __int128 u128;
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const std::uint64_t p = it == 0 ? 3 : it == 1 ? 9223372036854775783ULL : random_prime(rng, 2 + static_cast<unsigned>(rng.below(62)));
        if (p == 2) continue;
        const tape::Mont m = tape::make_mont(p);
        CHECK(m.p * (0 - m.neg_pinv) == 1);  // −neg_pinv is p⁻¹ mod 2^64
        CHECK(m.r2 == static_cast<std::uint64_t>((static_cast<u128>((0 - p) % p) * ((0 - p) % p)) % p));
        for (int k = 0; k < 20; ++k) {
            const std::uint64_t edge[] = {0, 1, p - 1, p / 2, ~0ULL, ~0ULL - 1, rng.next()};
            const std::uint64_t x = k < 7 ? edge[k] : rng.next(), y = k < 7 ? edge[6 - k] : rng.below(p);
            const std::uint64_t a = m.to(x), b = m.to(y);
            REQUIRE(a < p);
            CHECK(m.from(a) == x % p);
            CHECK(m.from(m.mul(a, b)) == static_cast<std::uint64_t>(static_cast<u128>(x % p) * (y % p) % p));
            CHECK(m.from(m.add(a, b)) == static_cast<std::uint64_t>((static_cast<u128>(x % p) + y % p) % p));
        }
    }
}

TEST_CASE("tape arithmetic in 32-bit words (Mont32, the GPU's for p < 2^31) = 128-bit reference; narrowed constants") {
    auto rng = seprank_test::rng_for("tape-mont32");
    INFO("seed " << seprank_test::seed());
    __extension__ typedef unsigned __int128 u128;
    for (int it = 0; it < seprank_test::iterations(300); ++it) {
        const std::uint64_t p = it == 0 ? 3 : it == 1 ? 2147483647ULL /* 2^31 - 1 */ : random_prime(rng, 2 + static_cast<unsigned>(rng.below(30)));
        if (p == 2) {
            CHECK_FALSE(tape::narrow_prime(p));
            continue;
        }
        INFO("p = " << p);
        REQUIRE(tape::narrow_prime(p));
        const tape::Mont32 m = tape::make_mont32(p);
        const tape::Mont w = tape::make_mont(p);
        CHECK(static_cast<std::uint32_t>(p * (0u - m.neg_pinv)) == 1u);  // −neg_pinv is p⁻¹ mod 2^32
        CHECK(m.r2 == static_cast<std::uint64_t>((static_cast<u128>(1) << 64) % p));
        for (int k = 0; k < 20; ++k) {
            const std::uint64_t edge[] = {0, 1, p - 1, p / 2, 0xffffffffULL, 0xfffffffeULL, rng.below(std::uint64_t{1} << 32)};
            const std::uint64_t x = k < 7 ? edge[k] : rng.below(std::uint64_t{1} << 32), y = k < 7 ? edge[6 - k] : rng.below(p);
            const std::uint64_t a = m.to(x), b = m.to(y);
            REQUIRE(a < p);
            CHECK(m.from(a) == x % p);
            CHECK(m.from(m.mul(a, b)) == static_cast<std::uint64_t>(static_cast<u128>(x % p) * (y % p) % p));
            CHECK(m.from(m.add(a, b)) == (x % p + y % p) % p);
            // A recorded constant (64-bit Montgomery form) narrowed is the same residue.
            CHECK(m.from(m.narrow(w.to(x))) == x % p);
            const std::uint64_t lambda = 1 + rng.below(4096);
            CHECK(m.from(m.mul(x, m.input_scale(lambda))) == static_cast<std::uint64_t>(static_cast<u128>(x % p) * (lambda % p) % p));
        }
    }
    CHECK_FALSE(tape::narrow_prime(2147483659ULL));  // the next prime is above 2^31: 64-bit words
}

TEST_CASE("tape: the GPU kernel's per-point step on the CPU, slots interleaved as on the device = the CPU interpreter") {
    auto rng = seprank_test::rng_for("tape-step");
    INFO("seed " << seprank_test::seed());
    const seprank_test::SpecLimits lim = random_limits();
    for (int it = 0; it < seprank_test::iterations(40); ++it) {
        const Network net = random_network(seprank_test::random_spec(rng, lim), rng.next(), 1000);
        const std::uint64_t p = pick_prime(rng, it);
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p);
        const Tape t(net, p);
        const std::size_t count = 1 + rng.below(40);
        const std::vector<std::uint64_t> flat = random_points(rng, t.inputs(), count, p);
        std::vector<std::uint64_t> expect(count), got(count);
        t.evaluate(flat.data(), count, expect.data());
        // As the kernel: thread q of `count` keeps slot i at scratch[i·count + q].
        std::vector<std::uint64_t> scratch(t.slots() * count, 0xdeadbeef);
        const auto run = [&](const auto& ar) {
            for (std::size_t q = 0; q < count; ++q) {
                auto slot = [&](std::uint32_t i) -> std::uint64_t& { return scratch[i * count + q]; };
                auto coord = [&](std::uint32_t c) { return ar.to(flat[q * t.inputs() + c]); };
                for (const Tape::Op& op : t.ops()) tape::step(op, ar, slot, coord);
                got[q] = ar.from(slot(t.output_slot()));
            }
        };
        if (p == 2) run(tape::Two{});
        else run(tape::make_mont(p));
        CHECK(got == expect);
        if (!tape::narrow_prime(p)) continue;
        // In 32-bit words, as the GPU runs it for p < 2^31: the program narrowed, the
        // points reduced mod p first.
        std::vector<Tape::Op> ops(t.ops().begin(), t.ops().end());
        const tape::Mont32 m = tape::make_mont32(p);
        tape::narrow_program(ops.data(), ops.size(), m);
        // Slots in 64-bit words, then each a 32-bit word as the kernel holds them for Mont32
        // (cuda/tape_kernel.cuh, SlotWord): every value fits.
        const auto run_narrow = [&](auto& words) {
            std::vector<std::uint64_t> narrow(count, 0);
            for (std::size_t q = 0; q < count; ++q) {
                auto slot = [&](std::uint32_t i) -> auto& { return words[i * count + q]; };
                auto coord = [&](std::uint32_t c) { return m.to(flat[q * t.inputs() + c] % p); };
                for (const Tape::Op& op : ops) tape::step(op, m, slot, coord);
                narrow[q] = m.from(slot(t.output_slot()));
            }
            return narrow;
        };
        CHECK(run_narrow(scratch) == expect);
        std::vector<std::uint32_t> scratch32(t.slots() * count, 0xdeadbeefu);
        CHECK(run_narrow(scratch32) == expect);
    }
}

TEST_CASE("tape grid: the points formed from the rows of both sides = ModEvaluator; the kernel's way of forming them too") {
    auto rng = seprank_test::rng_for("tape-grid");
    INFO("seed " << seprank_test::seed());
    const seprank_test::SpecLimits lim = random_limits();
    for (int it = 0; it < seprank_test::iterations(60); ++it) {
        const NetworkSpec s = seprank_test::random_spec(rng, lim);
        const Network net = random_network(s, rng.next(), 1000);
        const std::uint64_t p = pick_prime(rng, it);
        const Tape tape(net, p);
        const std::size_t rows = rng.below(4), cols = rng.below(5), nodes = 1 + rng.below(4);
        const GridData d = random_grid(rng, s, p, rows, cols, nodes);
        const TapeGrid& g = d.grid;
        INFO("iteration " << it << ": " << network_to_json(net, -1) << " p = " << p << " grid " << rows << "x" << cols << "x" << nodes);
        std::vector<std::uint64_t> out(rows * cols * nodes, 5);
        tape.evaluate_grid(g, out.data());
        const ModEvaluator ref(net, p);
        // The kernel forms side A as mul(raw, input_scale(t + 1)) and side B as to(raw).
        std::vector<std::uint64_t> scratch(tape.slots());
        const auto kernel_way = [&](const auto& ar, std::size_t i, std::size_t j, std::size_t t) {
            auto slot = [&](std::uint32_t k) -> std::uint64_t& { return scratch[k]; };
            const std::uint64_t sc = ar.input_scale(t + 1);
            auto coord = [&](std::uint32_t c) {
                const std::size_t k = g.source[c];
                return k < g.width_a ? ar.mul(g.a[i * g.width_a + k], sc) : ar.to(g.b[j * g.width_b + k - g.width_a]);
            };
            for (const Tape::Op& op : tape.ops()) tape::step(op, ar, slot, coord);
            return ar.from(slot(tape.output_slot()));
        };
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j)
                for (std::size_t t = 0; t < nodes; ++t) {
                    const std::uint64_t v = out[(i * cols + j) * nodes + t];
                    CHECK(v == ref(grid_point(s, g, i, j, t, p)));
                    CHECK(v == (p == 2 ? kernel_way(tape::Two{}, i, j, t) : kernel_way(tape::make_mont(p), i, j, t)));
                }
    }
    // Checks: the source map's length and range, nodes >= 1.
    const Network net = random_network(seprank_test::attention_spec(2, 2, 1), 1, 5);
    const Tape tape(net, 7);
    GridData d = random_grid(rng, net.spec, 7, 1, 1, 1);
    std::vector<std::uint64_t> out(1);
    TapeGrid bad = d.grid;
    bad.source.pop_back();
    CHECK(message_of([&] { tape.evaluate_grid(bad, out.data()); }).find("source has 3 entries") != std::string::npos);
    bad = d.grid;
    bad.source[1] = 4;
    CHECK(message_of([&] { tape.evaluate_grid(bad, out.data()); }).find("source[1] = 4") != std::string::npos);
    bad = d.grid;
    bad.nodes = 0;
    CHECK(message_of([&] { tape.evaluate_grid(bad, out.data()); }).find("nodes = 0") != std::string::npos);
}

TEST_CASE("tape on the GPU = tape on the CPU (or the refusal where there is no GPU)") {
    auto rng = seprank_test::rng_for("tape-cuda");
    INFO("seed " << seprank_test::seed());
    const Network small = random_network(seprank_test::attention_spec(2, 2, 1), 3, 5);
    const Tape t(small, 7);
    std::vector<std::uint64_t> pts(t.inputs(), 1), out(1, 0);
    if (cuda_info().devices == 0) {
        MESSAGE("no CUDA device: " << cuda_info().why);
        const std::string m = message_of([&] { t.evaluate_cuda(pts.data(), 1, out.data()); });
        CHECK(m.rfind("Device cuda:", 0) == 0);
        const std::string m0 = message_of([&] { t.evaluate_cuda(pts.data(), 0, out.data()); });
        CHECK(m0.rfind("Device cuda:", 0) == 0);
        const GridData d = random_grid(rng, small.spec, 7, 2, 2, 2);
        std::vector<std::uint64_t> gout(8);
        CHECK(message_of([&] { t.evaluate_grid_cuda(d.grid, gout.data()); }).rfind("Device cuda:", 0) == 0);
        return;
    }
    MESSAGE("CUDA device: " << cuda_info().name);
    // The plugin's stand-in (tests/cuda_emulator.cpp) interprets on one CPU thread: fewer points.
    const std::size_t big = cuda_info().name.find("emulated") != std::string::npos ? 5000 : 100000;
    const seprank_test::SpecLimits lim = random_limits();
    std::vector<Network> nets;
    for (const NetworkSpec& s : named_specs()) nets.push_back(random_network(s, rng.next(), 1000));
    for (int it = 0; it < 12; ++it) nets.push_back(random_network(seprank_test::random_spec(rng, lim), rng.next(), 100000));
    // Programs beyond the plugin's constant memory (2560 instructions; 2738 here), and
    // slots beyond 256 threads' shared memory (169 here: smaller blocks).
    nets.push_back(random_network(seprank_test::attention_spec(6, 6, 3, 2), rng.next(), 5));
    nets.push_back(random_network(seprank_test::attention_spec(8, 8, 3, 2), rng.next(), 5));
    // SEPRANK_CUDA_TAPE=general for the second run of each: program and slots in global
    // memory; "wide" for the third: 64-bit words where p < 2^31 would run in 32-bit ones;
    // the caller's setting restored.
    const char* old = std::getenv("SEPRANK_CUDA_TAPE");
    const std::string saved = old != nullptr ? old : "";
    std::size_t longest = 0, most_slots = 0;
    int it = 0;
    for (const Network& net : nets) {
        const std::uint64_t p = pick_prime(rng, it++);
        const Tape tape(net, p);
        longest = std::max(longest, tape.size());
        most_slots = std::max(most_slots, tape.slots());
        for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{777}, big}) {
            INFO(network_to_json(net, -1) << " p = " << p << " count " << count << " size " << tape.size() << " slots " << tape.slots());
            const std::vector<std::uint64_t> flat = random_points(rng, tape.inputs(), count, p);
            std::vector<std::uint64_t> cpu(count, 1), gpu(count, 2), general(count, 3), wide(count, 4);
            tape.evaluate(flat.data(), count, cpu.data());
            ::unsetenv("SEPRANK_CUDA_TAPE");
            tape.evaluate_cuda(flat.data(), count, gpu.data());
            ::setenv("SEPRANK_CUDA_TAPE", "general", 1);
            tape.evaluate_cuda(flat.data(), count, general.data());
            ::setenv("SEPRANK_CUDA_TAPE", "wide", 1);  // 64-bit words even for p < 2^31
            tape.evaluate_cuda(flat.data(), count, wide.data());
            CHECK(gpu == cpu);
            CHECK(general == cpu);
            CHECK(wide == cpu);
        }
        // A grid of about 100000 points formed on the device, and a 1×1×1 one.
        for (std::size_t rows : {std::size_t{1}, std::size_t{37}}) {
            const std::size_t cols = rows == 1 ? 1 : 541, nodes = rows == 1 ? 1 : 1 + rng.below(5);
            const GridData d = random_grid(rng, net.spec, p, rows, cols, nodes);
            INFO(network_to_json(net, -1) << " p = " << p << " grid " << rows << "x" << cols << "x" << nodes);
            std::vector<std::uint64_t> cpu(rows * cols * nodes, 1), gpu(cpu.size(), 2), general(cpu.size(), 3), wide(cpu.size(), 4);
            tape.evaluate_grid(d.grid, cpu.data());
            ::unsetenv("SEPRANK_CUDA_TAPE");
            tape.evaluate_grid_cuda(d.grid, gpu.data());
            ::setenv("SEPRANK_CUDA_TAPE", "general,wide", 1);
            tape.evaluate_grid_cuda(d.grid, general.data());
            ::setenv("SEPRANK_CUDA_TAPE", "wide", 1);
            tape.evaluate_grid_cuda(d.grid, wide.data());
            CHECK(gpu == cpu);
            CHECK(general == cpu);
            CHECK(wide == cpu);
        }
    }
    if (old != nullptr) ::setenv("SEPRANK_CUDA_TAPE", saved.c_str(), 1);
    else ::unsetenv("SEPRANK_CUDA_TAPE");
    MESSAGE("on the GPU: the longest program " << longest << " instructions, the most slots " << most_slots);
    CHECK(longest > 2560);
    CHECK(most_slots > 113);
}

TEST_CASE("tape as source (tape_source.hpp): the host compiler's build of the generated programs = the interpreter") {
    // The text NVRTC compiles for the GPU, compiled here by the host compiler into one shared
    // object (one function per random network and prime) and run on random points.
    auto rng = seprank_test::rng_for("tape-source");
    INFO("seed " << seprank_test::seed());
    const seprank_test::SpecLimits lim = random_limits();
    struct Case {
        Tape tape;
        tape_detail::SourceForm form;
        std::vector<std::uint64_t> points;
        std::size_t count;
        std::string json;
    };
    std::vector<Case> cases;
    std::string tu = "#include \"network/tape_impl.hpp\"\n#include <cstddef>\n\n";
    for (int it = 0; it < seprank_test::iterations(30); ++it) {
        const Network net = random_network(seprank_test::random_spec(rng, lim), rng.next(), 1000);
        const std::uint64_t p = pick_prime(rng, it);
        Tape t(net, p);
        const tape_detail::SourceForm form = it % 2 == 0 ? tape_detail::gpu_form(p) : (p == 2 ? tape_detail::SourceForm::two : tape_detail::SourceForm::mont);
        const std::string name = "sr_program_" + std::to_string(it), weights = "sr_weights_" + std::to_string(it);
        // the constants, as the plugin fills its __constant__ array (at least one entry)
        tu += "static const std::uint64_t " + weights + "[] = {";
        for (const std::uint64_t w : tape_detail::program_weights(t, form)) tu += std::to_string(w) + "ull, ";
        tu += "0};\n";
        tu += tape_detail::program_source(t, name, form, weights);
        // The host wrapper: the arithmetic of the form, the points into it (mont32: reduced mod
        // p first, as the GPU's are), the value out of it.
        const std::string ar = form == tape_detail::SourceForm::two ? "seprank::tape::Two{}"
                               : form == tape_detail::SourceForm::mont32 ? "seprank::tape::make_mont32(" + std::to_string(p) + "ull)"
                                                                        : "seprank::tape::make_mont(" + std::to_string(p) + "ull)";
        const std::string reduce = form == tape_detail::SourceForm::mont32 ? " % " + std::to_string(p) + "ull" : "";
        tu += "extern \"C\" void run_" + std::to_string(it) +
              "(const std::uint64_t* pts, std::size_t inputs, std::size_t count, std::uint64_t* out) {\n"
              "    const auto ar = " + ar + ";\n"
              "    for (std::size_t q = 0; q < count; ++q)\n"
              "        out[q] = ar.from(" + name + "(ar, [&](std::uint32_t c) { return ar.to(pts[q * inputs + c]" + reduce + "); }));\n"
              "}\n\n";
        const std::size_t count = 1 + rng.below(30);
        std::vector<std::uint64_t> pts = random_points(rng, t.inputs(), count, p);
        cases.push_back(Case{std::move(t), form, std::move(pts), count, network_to_json(net, -1)});
    }
    const seprank_test::TempDir tmp("seprank-tape-source");
    const std::string& dir = tmp.path;
    const std::string so = dir + "/programs.so";
    {
        std::ofstream(dir + "/programs.cpp") << tu;
    }
    const std::string cmd = std::string(SEPRANK_TEST_CXX) + " -std=c++17 -O1 -shared -fPIC -I" + SEPRANK_SOURCE_DIR + "/src -o " + so + " " + dir +
                            "/programs.cpp 2> " + dir + "/compile.log";
    INFO("compile: " << cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    REQUIRE(lib != nullptr);
    using Run = void (*)(const std::uint64_t*, std::size_t, std::size_t, std::uint64_t*);
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const Case& c = cases[k];
        INFO("case " << k << ": " << c.json << " p = " << c.tape.modulus());
        const auto run = reinterpret_cast<Run>(dlsym(lib, ("run_" + std::to_string(k)).c_str()));
        REQUIRE(reinterpret_cast<void*>(run) != nullptr);
        std::vector<std::uint64_t> expect(c.count), got(c.count, 0xdeadbeef);
        c.tape.evaluate(c.points.data(), c.count, expect.data());
        run(c.points.data(), c.tape.inputs(), c.count, got.data());
        CHECK(got == expect);
    }
    dlclose(lib);
}

TEST_CASE("tape as source: one text per network shape, whatever its prime and weights; the weights differ") {
    // What lets the plugin compile a shape once: the kernel's text reads its constants from
    // sr_weights. (A weight that folds to 0 changes the program's shape, hence its text:
    // only tapes of one length are compared, and most draws are.)
    auto rng = seprank_test::rng_for("tape-source-shape");
    INFO("seed " << seprank_test::seed());
    const NetworkSpec spec = seprank_test::attention_spec(3, 2, 2);
    const Tape first(random_network(spec, rng.next(), 1000000), random_prime(rng, 31));
    const std::string text = tape_detail::kernel_source(first, tape_detail::SourceForm::mont32, tape::kGridKernel);
    const std::vector<std::uint64_t> weights = tape_detail::program_weights(first, tape_detail::SourceForm::mont32);
    int same_length = 0;
    for (int it = 0; it < 6; ++it) {
        const Tape other(random_network(spec, rng.next(), 1000000), random_prime(rng, 31));
        if (other.size() != first.size()) continue;
        ++same_length;
        CHECK(tape_detail::kernel_source(other, tape_detail::SourceForm::mont32, tape::kGridKernel) == text);
        CHECK(tape_detail::program_weights(other, tape_detail::SourceForm::mont32) != weights);
    }
    CHECK(same_length >= 4);
    // another shape, another form, another kernel: another text
    const Tape deeper(random_network(seprank_test::attention_spec(3, 2, 3), rng.next(), 1000000), first.modulus());
    CHECK(tape_detail::kernel_source(deeper, tape_detail::SourceForm::mont32, tape::kGridKernel) != text);
    CHECK(tape_detail::kernel_source(first, tape_detail::SourceForm::mont, tape::kGridKernel) != text);
    CHECK(tape_detail::kernel_source(first, tape_detail::SourceForm::mont32, tape::kFlatKernel) != text);
}

TEST_CASE("tape as source: the text's shape, and its checks name the value") {
    const Network net = random_network(seprank_test::attention_spec(2, 2, 1), 1, 5);
    const Tape t(net, 2147483647ULL);  // 2^31 − 1: mont32
    const std::string src = tape_detail::program_source(t, "f", tape_detail::SourceForm::mont32);
    CHECK(src.find("SR_TAPE_HD std::uint64_t f(const Ar& ar, Point&& x)") != std::string::npos);
    std::size_t statements = 0;
    for (std::size_t at = src.find("\n    s"); at != std::string::npos; at = src.find("\n    s", at + 1))
        statements += std::isdigit(static_cast<unsigned char>(src[at + 6])) ? 1 : 0;
    CHECK(statements == t.size());  // one statement per instruction
    CHECK(src.find("sr_weights[0]") != std::string::npos);  // constants from the array, in order
    CHECK(src.find("0x") == std::string::npos);              // no literal
    std::size_t weighted = 0;
    for (const Tape::Op& op : t.ops()) weighted += tape::source_weighted(op.code) ? 1 : 0;
    CHECK(tape_detail::program_weights(t, tape_detail::SourceForm::mont32).size() == weighted);
    CHECK(src.find("sr_weights[" + std::to_string(weighted - 1) + "]") != std::string::npos);
    CHECK(src.find("sr_weights[" + std::to_string(weighted) + "]") == std::string::npos);
    const std::string kernel = tape_detail::kernel_source(t, tape_detail::SourceForm::mont32);
    CHECK(kernel.find("__constant__ std::uint64_t sr_weights[" + std::to_string(weighted) + "];") != std::string::npos);
    CHECK(kernel.find("extern \"C\" __global__ void sr_compiled_flat(seprank::tape::Mont32 ar") != std::string::npos);
    CHECK(kernel.find("extern \"C\" __global__ void sr_compiled_grid(seprank::tape::Mont32 ar") != std::string::npos);
    // one kernel alone, as the plugin asks (NVRTC's time is paid per kernel)
    const std::string flat = tape_detail::kernel_source(t, tape_detail::SourceForm::mont32, tape::kFlatKernel);
    const std::string grid = tape_detail::kernel_source(t, tape_detail::SourceForm::mont32, tape::kGridKernel);
    CHECK(flat.find("sr_compiled_flat(") != std::string::npos);
    CHECK(flat.find("sr_compiled_grid(") == std::string::npos);
    CHECK(grid.find("sr_compiled_grid(") != std::string::npos);
    CHECK(grid.find("sr_compiled_flat(") == std::string::npos);
    CHECK(grid.find(src.substr(src.find('{'))) != std::string::npos);  // the same program in each
    CHECK(tape_detail::gpu_form(2) == tape_detail::SourceForm::two);
    CHECK(tape_detail::gpu_form(2147483647ULL) == tape_detail::SourceForm::mont32);
    CHECK(tape_detail::gpu_form(2147483659ULL) == tape_detail::SourceForm::mont);
    CHECK(seprank_test::message_of([&] { tape_detail::program_source(t, "2f", tape_detail::SourceForm::mont32); }) ==
          "program name '2f' is not a C identifier");
    CHECK(seprank_test::message_of([&] { tape_detail::program_source(t, "f", tape_detail::SourceForm::mont32, "w-1"); }) ==
          "weights array name 'w-1' is not a C identifier");
    CHECK(seprank_test::message_of([&] { tape_detail::program_source(t, "f", tape_detail::SourceForm::mont32, "f"); }) ==
          "weights array name 'f' is the program's name");
    CHECK(seprank_test::message_of([&] { tape_detail::program_source(t, "f", tape_detail::SourceForm::two); }) ==
          "program form does not fit the tape's prime 2147483647");
    const Tape big(net, 9223372036854775783ULL);
    CHECK(seprank_test::message_of([&] { tape_detail::program_source(big, "f", tape_detail::SourceForm::mont32); }) ==
          "program form does not fit the tape's prime 9223372036854775783");
}
