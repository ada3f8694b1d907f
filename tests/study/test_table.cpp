#include "seprank/bounds.hpp"
#include "seprank/dimension.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/generic.hpp"
#include "seprank/forward_batch.hpp"
#include "seprank/plot.hpp"
#include "seprank/prime.hpp"
#include "seprank/separation.hpp"
#include "seprank/table.hpp"
#include "seprank/variety.hpp"
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <numeric>
#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <limits>
#include <set>
#include <sys/mman.h>
#include <sys/resource.h>
#include <cstring>

using namespace seprank;
using seprank_test::throws_with;

TEST_CASE("Levine et al. bounds against hand-computed values") {
    // dx=4, H=1, L=1 (1 < log3 4): Theorem 7.1
    //   lower = 3^{-1}(log3 3 + a), a = -1 + 2 - log3 2  -> (2 - log3 2)/3 = 0.456361...
    //   upper = ((3 - 1)/2) log3 5 = 1.464974...
    const double l3_2 = std::log(2.0) / std::log(3.0);
    TheoremBounds b = levine_bounds(4, 1, 1);
    CHECK(b.theorem == "7.1");
    CHECK(b.lower == doctest::Approx((2.0 - l3_2) / 3.0));
    CHECK(b.upper == doctest::Approx(std::log(5.0) / std::log(3.0)));
    // dx=2, H=1, L=2 (2 > log3 2): Theorem 7.2
    //   lower = ½·2·2 + b1 + b2 with b1 = -2(½ + 1), b2 = -2(1 + ½ log3(1/2)) = -2.369070
    //   upper = 2·2·2 + 2 + c2, c2 = -4 log3(1/√(2e)) + log3 2 = 13.713268
    const double b1 = -2.0 * 1.5, b2 = -2.0 * (1.0 - 0.5 * l3_2);
    const double c2 = -4.0 * std::log(2.0 / (2.0 * std::sqrt(2.0 * std::exp(1.0)))) / std::log(3.0) + l3_2;
    b = levine_bounds(2, 1, 2);
    CHECK(b.theorem == "7.2");
    CHECK(b.lower == doctest::Approx(2.0 + b1 + b2));
    CHECK(b.lower == doctest::Approx(-2.369070));
    CHECK(b.upper == doctest::Approx(8.0 + 2.0 + c2));
    CHECK(b.upper == doctest::Approx(13.713268));
    // dx = H: the lower bound is undefined (log3 0), the upper is not
    b = levine_bounds(2, 2, 2);
    CHECK(std::isnan(b.lower));
    CHECK_FALSE(std::isnan(b.upper));
    // L = log3 dx exactly: neither regime
    CHECK(levine_bounds(3, 1, 1).theorem.empty());
    CHECK(outside_bounds(100.0, levine_bounds(4, 1, 1)) == "above");
    CHECK(outside_bounds(0.0, levine_bounds(4, 1, 1)) == "below");
    CHECK(outside_bounds(1.0, levine_bounds(4, 1, 1)) == "");
}

TEST_CASE("generic rank: failure_bound = the product of the trials' s·D/|S| + c, and agreement with the flattening") {
    NetworkSpec s = seprank_test::attention_spec(2, 2, 2);
    {  // N = 2: every degree block reaches its cap, so the rank is exact (bound 0)
        const RankAnswer r = generic_rank(s, balanced_partition(2));
        CHECK(r.kind == RankKind::exact);
        CHECK(r.failure_bound == 0.0);
    }
    const NetworkSpec s3 = seprank_test::attention_spec(3, 2, 2);
    for (long trials : {1L, 2L, 3L}) {  // N = 3: below its caps
        GenericOptions o;
        o.trials = trials;
        o.seed = 5;
        const RankAnswer r = generic_rank(s3, balanced_partition(3), o);
        REQUIRE(r.method == "flattening");
        REQUIRE(r.kind == RankKind::generic);
        CHECK(r.weight_degree == "16");  // 2(3^2 - 1)
        CHECK(r.bound_degree == "16");
        CHECK(r.set_size == r.prime);
        CHECK(r.primes_used == trials);  // each trial draws its own 62-bit prime
        // The flattening counts one minor, of the rank's size plus one (not the matrix's side):
        // c is the chance that a 62-bit prime divides its content.
        const double m = static_cast<double>(r.value + 1);
        CHECK(m < static_cast<double>(std::min(r.rows, r.cols)));
        const double bits = m * (std::log2(m) + log2_structure_bound(ValidSpec(s3), 1));
        const double c = std::ceil(bits / 61.0) / prime_count_lower_bound(62);
        const double T = static_cast<double>(trials);
        CHECK(r.note.find("s = " + std::to_string(r.value + 1) + " (the rank plus one") != std::string::npos);
        if (trials == 1) {  // relative, not doctest's default absolute floor of ~1e-5
            CHECK(r.failure_bound == doctest::Approx(m * 16.0 / static_cast<double>(r.prime) + c).scale(0));
        } else {  // the other trials' primes lie in [2^61, 2^62)
            CHECK(r.failure_bound <= std::pow(m * 16.0 / std::ldexp(1.0, 61) + c, T) * (1 + 1e-12));
            CHECK(r.failure_bound >= std::pow(m * 16.0 / std::ldexp(1.0, 62) + c, T) * (1 - 1e-12));
        }
        CHECK(static_cast<long>(r.trial_ranks.size()) == trials);
        CHECK(r.degenerate == 0);
        // the certified flattening rank of one random integer draw matches
        SeparationOptions fo;
        CHECK(separation_rank(random_network(s3, 9, 1000), balanced_partition(3), fo).value == r.value);
    }
    {  // many trials: the product underflows a double; the bound stays positive (0 means exact)
        GenericOptions o;
        o.trials = 30;
        const RankAnswer r = generic_rank(seprank_test::attention_spec(3, 2, 2), balanced_partition(3), o);  // below its caps
        CHECK(r.kind == RankKind::generic);
        CHECK(r.failure_bound > 0.0);
        // each trial draws its own prime, so c falls with T as well: the floor is what is left
        CHECK(r.failure_bound == std::numeric_limits<double>::min());
        CHECK(r.primes_used == 30);
        CHECK(r.note.find(" and c = ") != std::string::npos);
        CHECK(r.note.find("T = 30 trials (each its own prime)") != std::string::npos);
        CHECK(to_record(r).at("failure_bound").as_real() > 0.0);
    }
    // evaluation: D = D_L + d^L
    GenericOptions e;
    e.method = GenericMethod::evaluation;
    const RankAnswer re = generic_rank(s, balanced_partition(2), e);
    CHECK(re.bound_degree == "25");
    CHECK(re.value == generic_rank(s, balanced_partition(2)).value);
    // an embedding M is drawn too: f has degree d^L = 9 in its entries
    NetworkSpec emb = s;
    emb.embed_rank = 1;
    GenericOptions fl;
    fl.method = GenericMethod::flattening;
    CHECK(generic_rank(emb, balanced_partition(2), fl).bound_degree == "25");
    CHECK(generic_rank(emb, balanced_partition(2), e).bound_degree == "34");
    CHECK(generic_rank(emb, balanced_partition(2), fl).weight_degree == "16");
}

TEST_CASE("generic rank: a graded trial that reaches every block cap is exact (failure_bound 0)") {
    // N=2 dx=2 (L=2, 3): every odd-degree block reaches its monomial count; N=3 dx=2 L=2
    // (partition 1,2|3) stays below the sum of its caps (docs/generic.md), so the bound
    // stays positive.
    for (long depth : {2L, 3L}) {
        NetworkSpec s = seprank_test::attention_spec(2, 2, depth);
        GenericOptions o;
        o.method = GenericMethod::evaluation;
        o.trials = 1;
        o.prime_bits = 30;  // small p: the formula would give a visible bound
        const RankAnswer r = generic_rank(s, balanced_partition(2), o);
        INFO("depth " << depth << ": " << r.note);
        CHECK(r.failure_bound == 0.0);
        CHECK(r.kind == RankKind::exact);
        CHECK(r.certified());
        CHECK(r.note.find("reached its cap") != std::string::npos);
        // the same evaluation at fixed weights is exact too
        EvaluationOptions eo;
        eo.prime = r.prime;
        const RankAnswer at = evaluation_rank(random_network(s, 9, 1000), balanced_partition(2), eo);
        CHECK(at.kind == RankKind::exact);
        CHECK(at.value == r.value);
        // from a small first side the blocks reach their caps over several steps: still exact
        eo.start = 2;
        eo.growth = 1.5;
        const RankAnswer grown = evaluation_rank(random_network(s, 9, 1000), balanced_partition(2), eo);
        CHECK(grown.kind == RankKind::exact);
        CHECK(grown.failure_bound == 0.0);
        CHECK(grown.value == r.value);
        SeparationOptions fo;  // the certified rank of one integer draw agrees
        CHECK(separation_rank(random_network(s, 9, 1000), balanced_partition(2), fo).value == r.value);
        GenericOptions fl = o;  // the flattening method reaches the same sum of caps
        fl.method = GenericMethod::flattening;
        const RankAnswer f = generic_rank(s, balanced_partition(2), fl);
        CHECK(f.value == r.value);
        CHECK(f.kind == RankKind::exact);
        CHECK(f.failure_bound == 0.0);
        const std::vector<long> caps = degree_block_caps(s, balanced_partition(2));
        CHECK(std::accumulate(caps.begin(), caps.end(), 0L) == f.value);
    }
    {  // degree 3^8 = 6561 (above the old limit of 4096): caps counted, the flattening exact
        const NetworkSpec deep = seprank_test::attention_spec(2, 1, 8);
        const std::vector<long> caps = degree_block_caps(deep, balanced_partition(2));
        REQUIRE(caps.size() == 6562);
        CHECK(degree_block_caps(deep, balanced_partition(2), 1e6).empty());  // past max_work (256 steps a degree at N = 2): not counted
        GenericOptions fl;
        fl.method = GenericMethod::flattening;
        fl.trials = 1;
        const RankAnswer f = generic_rank(deep, balanced_partition(2), fl);
        CHECK(f.value == std::accumulate(caps.begin(), caps.end(), 0L));
        CHECK(f.kind == RankKind::exact);
    }
    CHECK(degree_block_caps([] {
              NetworkSpec res = seprank_test::attention_spec(2, 2, 2);
              res.residual = true;
              return res;
          }(), balanced_partition(2)).empty());  // not homogeneous: no caps
    NetworkSpec s = seprank_test::attention_spec(3, 2, 2);
    GenericOptions o;
    o.method = GenericMethod::evaluation;
    o.prime_bits = 30;
    const RankAnswer r = generic_rank(s, balanced_partition(3), o);
    CHECK(r.failure_bound > 0.0);
    CHECK(r.kind == RankKind::generic);
    CHECK(r.note.find("reached its cap") == std::string::npos);
    GenericOptions fl = o;
    fl.method = GenericMethod::flattening;
    const RankAnswer f = generic_rank(s, balanced_partition(3), fl);
    CHECK(f.value == r.value);
    CHECK(f.kind == RankKind::generic);  // below the sum of its caps: not exact
    const std::vector<long> caps = degree_block_caps(s, balanced_partition(3));
    CHECK(std::accumulate(caps.begin(), caps.end(), 0L) > f.value);
}

TEST_CASE("generic rank: trials stop once the answer's kind is settled (every cap met, or a trial that did not converge)") {
    const std::vector<long> caps = degree_block_caps(seprank_test::attention_spec(2, 2, 2), balanced_partition(2));
    for (GenericMethod m : {GenericMethod::flattening, GenericMethod::evaluation}) {
        INFO("method " << to_string(m));
        GenericOptions o;
        o.method = m;
        o.trials = 3;
        const RankAnswer r = generic_rank(seprank_test::attention_spec(2, 2, 2), balanced_partition(2), o);  // at its caps
        CHECK(r.kind == RankKind::exact);
        CHECK(r.value == std::accumulate(caps.begin(), caps.end(), 0L));
        CHECK(r.trial_ranks.size() == 1);
        CHECK(r.trials == 1);
        CHECK(r.primes_used == 1);
        CHECK(r.note.find("1 of the 3 trials run (the rank is exact: no draw can exceed it)") != std::string::npos);
    }
    {  // below its caps: every trial runs
        GenericOptions o;
        o.trials = 3;
        const RankAnswer r = generic_rank(seprank_test::attention_spec(3, 2, 2), balanced_partition(3), o);
        CHECK(r.kind == RankKind::generic);
        CHECK(r.trial_ranks.size() == 3);
        CHECK(r.trials == 3);
        CHECK(r.note.find("trials run") == std::string::npos);
    }
    {  // full rank at the size limit: a lower bound whatever the later trials give
        GenericOptions o;
        o.method = GenericMethod::evaluation;
        o.trials = 2;
        o.max_side = 64;
        const RankAnswer r = generic_rank(seprank_test::attention_spec(3, 3, 3), balanced_partition(3), o);
        CHECK(r.kind == RankKind::modular_lower_bound);
        CHECK_FALSE(r.converged);
        CHECK(r.trial_ranks.size() == 1);
        CHECK(r.note.find("1 of the 2 trials run (trial 1 did not converge; the next ones would stop at the same limit)") != std::string::npos);
        CHECK(r.note.find("still full rank at the size limit") != std::string::npos);
    }
    {  // stopped by memory: the note says so and names --max-memory, not the size limit
        GenericOptions o;
        o.method = GenericMethod::evaluation;
        o.variant = EvaluationVariant::plain;
        o.trials = 2;
        RankAnswer r;
        {
            const seprank_test::MaxMemory tight(4 << 20, "--max-memory");  // named as the CLI names it
            CHECK_NOTHROW(r = generic_rank(seprank_test::attention_spec(3, 4, 3), balanced_partition(3), o));
        }
        CHECK_FALSE(r.converged);
        CHECK(r.value > 0);
        CHECK(r.note.find("for lack of memory") != std::string::npos);
        CHECK(r.note.find(": --max-memory)") != std::string::npos);
        CHECK(r.note.find("size limit") == std::string::npos);
    }
}

TEST_CASE("generic rank: prime_bits sets the size of p, the bound follows, the rank does not change") {
    NetworkSpec s = seprank_test::attention_spec(3, 2, 2);
    GenericOptions wide;
    wide.method = GenericMethod::evaluation;
    wide.trials = 1;
    const RankAnswer r62 = generic_rank(s, balanced_partition(3), wide);
    for (int bits : {20, 36, 50, 51, 52}) {
        GenericOptions o = wide;
        o.prime_bits = bits;
        const RankAnswer r = generic_rank(s, balanced_partition(3), o);
        INFO("bits " << bits << " p = " << r.prime);
        CHECK(r.prime >= (std::uint64_t{1} << (bits - 1)));
        CHECK(r.prime < (std::uint64_t{1} << bits));
        CHECK(r.value == r62.value);
        CHECK(r.failure_bound > r62.failure_bound);
        // The kernel the note names: IFMA where usable, else AVX2/FMA below 2^50 where usable.
        const bool ifma = bits <= 52 && ModBatchEvaluator::simd_available();
        CHECK((r.note.find("avx512-ifma kernel") != std::string::npos) == ifma);
        CHECK(r.note.find(std::string(ModBatchEvaluator::kernel_for(r.prime)) + " kernel") != std::string::npos);
        if (!ifma && bits <= 50) CHECK((r.note.find("avx2-fma kernel") != std::string::npos) == (std::string(ModBatchEvaluator::kernel_for(3)) == "avx2-fma"));
        if (bits > 50 && !ifma) CHECK(r.note.find("montgomery kernel") != std::string::npos);
        // c counts the primes of the drawn size, printed rounded down (a chance never understated).
        const std::size_t at = r.note.find("one chance in ");
        REQUIRE(at != std::string::npos);
        const double printed = std::strtod(r.note.c_str() + at + 14, nullptr);
        const double count = prime_count_lower_bound(static_cast<unsigned>(bits));
        CHECK(printed <= count);
        CHECK(printed > count * 0.99);
        CHECK(r.note.find(" per " + std::to_string(bits) + "-bit prime factor") != std::string::npos);
        if (bits == 20) CHECK(r.note.find("one chance in 3.76e+04 per 20-bit prime factor") != std::string::npos);  // 37,686 by Dusart
    }
    CHECK(r62.note.find("montgomery kernel") != std::string::npos);
    {  // 24 bits, a GPU-sized prime: c is large, and only a prime per trial lowers it with T
        GenericOptions o = wide;
        o.prime_bits = 24;
        const RankAnswer one = generic_rank(s, balanced_partition(3), o);
        o.trials = 3;
        const RankAnswer three = generic_rank(s, balanced_partition(3), o);
        CHECK(three.trial_ranks[0] == one.value);  // trial 0 draws as a one-trial run
        CHECK(three.value == one.value);
        CHECK(three.primes_used == 3);
        CHECK(one.failure_bound > 2e-5);  // mostly c
        CHECK(three.failure_bound < one.failure_bound * one.failure_bound);
    }
    for (int bad : {19, 63, 0, -1}) {
        GenericOptions o = wide;
        o.prime_bits = bad;
        CHECK_THROWS_WITH_AS(generic_rank(s, balanced_partition(3), o), doctest::Contains(std::to_string(bad).c_str()), invalid_input);
    }
}

TEST_CASE("a row's time budget: lower-bound with the reason, generic's note; the flattening notes it unused") {
    const NetworkSpec s = seprank_test::attention_spec(3, 3, 2);  // N = 3, dx = 3, L = 2: several growth steps
    SweepOptions sw;
    sw.generic.method = GenericMethod::evaluation;
    sw.generic.max_seconds = 0;
    const Row full = table_row(s, sw);
    REQUIRE(full.at("status").str() == "ok");
    sw.generic.max_seconds = 1e-9;  // spent at once: one growth step
    const Row cut = table_row(s, sw);
    CHECK(cut.at("status").str() == "lower-bound");
    CHECK(cut.at("reason").str().find("time budget of 1e-09 s") != std::string::npos);
    // The time it ran, not "ran out" (issue 58): here past the budget, the first step always running.
    CHECK(cut.at("reason").str().find("; stopped at ") != std::string::npos);
    CHECK(cut.at("reason").str().find(" s, past the row's time budget of 1e-09 s (the first step always runs)") != std::string::npos);
    CHECK(cut.at("reason").str().find("ran out") == std::string::npos);
    CHECK(std::stol(cut.at("rank").str()) < std::stol(full.at("rank").str()));
    CHECK(cut.at("certified").str() == "false");
    GenericOptions g = sw.generic;
    const RankAnswer r = generic_rank(s, balanced_partition(3), g);
    CHECK(r.stop == GrowthStop::time_budget);
    CHECK_FALSE(r.converged);
    CHECK(r.kind == RankKind::modular_lower_bound);
    CHECK(r.note.find("stopped by the time budget") != std::string::npos);
    g.method = GenericMethod::flattening;
    const RankAnswer f = generic_rank(s, balanced_partition(3), g);
    CHECK(f.converged);
    CHECK(f.note.find("not stopped part-way") != std::string::npos);
    g.max_seconds = -2;
    CHECK_THROWS_WITH_AS(generic_rank(s, balanced_partition(3), g), doctest::Contains("-2"), invalid_input);
}

TEST_CASE("a degenerate weight draw is caught, not reported as the generic rank") {
    NetworkSpec s = seprank_test::attention_spec(2, 2, 1);
    GenericOptions o;
    o.trials = 30;
    o.weight_range = 1;  // weights in {-1, 0, 1}: zero rows and cancellations are common
    o.seed = 3;
    const RankAnswer r = generic_rank(s, balanced_partition(2), o);
    const RankAnswer full = generic_rank(s, balanced_partition(2));
    CHECK(r.degenerate > 0);
    CHECK(r.value == full.value);  // the maximum, not a degenerate value
    CHECK(r.note.find("degenerate") != std::string::npos);
    // |S| = 3 gives no useful Schwartz–Zippel bound, but the maximum meets the sum of the
    // degree-block caps, an upper bound for all weights: exact all the same.
    CHECK(r.kind == RankKind::exact);
    CHECK(r.failure_bound == 0.0);
    CHECK(r.note.find("reached its cap") != std::string::npos);
    CHECK(*std::min_element(r.trial_ranks.begin(), r.trial_ranks.end()) < r.value);
}

TEST_CASE("generic rank: degenerate draws never shrink the bound (a small set, f often zero mod the draw)") {
    // attention N=3 dx=2 L=2 stays below its caps (R* = 17). With weights in {-1, 0, 1} a
    // draw is often degenerate, even f = 0; the bound must then say nothing (1), however
    // small the degenerate trials' matrices: it once multiplied their sides' terms, so a
    // value 0 read 1e-67.
    const NetworkSpec s = seprank_test::attention_spec(3, 2, 2);
    long below = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        GenericOptions o;
        o.trials = 4;
        o.weight_range = 1;
        o.method = GenericMethod::flattening;
        o.seed = seed;
        const RankAnswer r = generic_rank(s, balanced_partition(3), o);
        INFO("seed " << seed << ": " << r.value << ", bound " << r.failure_bound);
        below += r.value < 17;
        CHECK(r.failure_bound == 1.0);  // s·D/|S| >= 1·16/3 for every counted trial
    }
    CHECK(below > 0);  // the case the check is about happened
}

TEST_CASE("sweep lists, plans and CSV round-trip") {
    CHECK(parse_list("2,3", "--tokens") == std::vector<long>{2, 3});
    CHECK(parse_list("1..4", "--dim") == std::vector<long>{1, 2, 3, 4});
    CHECK(parse_list("1..2,5", "--depth") == std::vector<long>{1, 2, 5});
    for (const char* bad : {"", "a", "1..", "3..1", "1,,2", "1.5"}) CHECK_THROWS_AS(parse_list(bad, "--x"), invalid_input);
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1, 2, 3};
    sw.heads = {1, 2};
    sw.depths = {1};
    const SweepPlan plan = plan_sweep(sw);
    CHECK(plan.configs.size() == 8);  // H=2 needs even dx: (1,1),(2,1),(2,2),(3,1) per N
    CHECK(plan.invalid == 4);
    Row r = table_row(plan.configs[0], sw);
    const auto cells = parse_csv_line(csv_line(r));
    REQUIRE(cells.size() == table_columns().size());
    const auto part_col = std::find(table_columns().begin(), table_columns().end(), "partition") - table_columns().begin();
    CHECK(cells[static_cast<std::size_t>(part_col)] == r.at("partition").str());
    CHECK(row_key(r) == row_key(plan.configs[0], sw));
    CHECK(parse_csv_line("a,\"b,c\",\"d\"\"e\"") == std::vector<std::string>{"a", "b,c", "d\"e"});
}

TEST_CASE("generic method names: to_string and generic_method_from_string are inverse; others are refused by name") {
    for (GenericMethod m : {GenericMethod::automatic, GenericMethod::flattening, GenericMethod::evaluation})
        CHECK(generic_method_from_string(to_string(m)) == m);
    // the names of the CLI's --method and the Python `method` key
    CHECK(to_string(GenericMethod::automatic) == "auto");
    CHECK(to_string(GenericMethod::flattening) == "flattening");
    CHECK(to_string(GenericMethod::evaluation) == "evaluation");
    CHECK_THROWS_WITH_AS(generic_method_from_string("magic"), "generic method 'magic' is not one of auto, flattening, evaluation",
                         invalid_input);
    CHECK_THROWS_AS(generic_method_from_string("Auto"), invalid_input);  // no case folding
    CHECK_THROWS_AS(generic_method_from_string(""), invalid_input);
    CHECK_THROWS_AS(to_string(static_cast<GenericMethod>(7)), internal_error);
}

TEST_CASE("a sweep value no configuration takes is refused by name; trials and the store are checked up front") {
    auto refused = [](auto edit, const std::string& fragment) {
        SweepOptions sw;
        sw.tokens = {2};
        sw.dims = {1};
        edit(sw);
        INFO("expect: " << fragment);
        CHECK_THROWS_WITH_AS((void)plan_sweep(sw), doctest::Contains(fragment.c_str()), invalid_input);
    };
    refused([](SweepOptions& s) { s.tokens = {2, 1}; }, "sweep tokens N = 1");
    refused([](SweepOptions& s) { s.dims = {0}; }, "sweep dim dx = 0");
    refused([](SweepOptions& s) { s.heads = {1, 0}; }, "sweep heads H = 0");
    // refused even where no family of the sweep reads it
    refused([](SweepOptions& s) { s.families = {Family::hadamard}; s.heads = {-1}; }, "sweep heads H = -1");
    refused([](SweepOptions& s) { s.depths = {65}; }, "sweep depth L = 65");
    refused([](SweepOptions& s) { s.depths = {1, 65, 99, 2}; }, "sweep depth L = 99");  // the farthest outside, as typed in 1..99
    refused([](SweepOptions& s) { s.dims = {-7, 0, 3}; }, "sweep dim dx = -7");
    refused([](SweepOptions& s) { s.block_degrees = {0}; }, "sweep block degree d = 0");
    refused([](SweepOptions& s) { s.widths = {-1}; }, "sweep width w = -1");
    refused([](SweepOptions& s) { s.embed_ranks = {65}; }, "sweep embedding rank r = 65");
    refused([](SweepOptions& s) { s.head_dims = {-3}; }, "sweep head dim da = -3");
    refused([](SweepOptions& s) { s.attention_ranks = {-1}; }, "sweep attention rank k = -1");
    refused([](SweepOptions& s) { s.positions = {0}; }, "sweep position i = 0");
    refused([](SweepOptions& s) { s.generic.trials = 1001; }, "trials T = 1001 exceeds 1000");
    refused([](SweepOptions& s) { s.generic.store = "/dev/null"; }, "store '/dev/null' exists and is not a directory");
    refused([](SweepOptions& s) { s.generic.store = "/nonexistent-folder/store"; },
            "store '/nonexistent-folder/store': its folder '/nonexistent-folder' is not an existing directory");
    refused([](SweepOptions& s) { s.generic.store = std::string("/tmp/s") + '\0' + "x"; }, "store '/tmp/s\\x00x' contains a control character (a NUL byte)");
    refused([](SweepOptions& s) { s.block_store = "/tmp/b\nx"; }, "table block store '/tmp/b\nx' contains a control character");
    refused([](SweepOptions& s) { s.generic.prime_bits = 19; }, "prime bits = 19 outside 20..62");
    refused([](SweepOptions& s) { s.blocks = true; s.eps = {0.1}; }, "a block table has one row per degree block and no ε columns");
    refused([](SweepOptions& s) { s.blocks = true; s.dimension = true; }, "no dimension columns");
    refused([](SweepOptions& s) { s.blocks = true; s.variety = true; }, "no variety columns");
    refused([](SweepOptions& s) { s.generic.prime_bits = 63; }, "prime bits = 63 outside 20..62");
    // the edges are accepted
    SweepOptions ok;
    ok.tokens = {2};
    ok.dims = {1};
    ok.depths = {0, 64};
    ok.block_degrees = {1, 64};
    ok.embed_ranks = {0, 64};
    ok.generic.trials = 1000;
    CHECK_NOTHROW((void)plan_sweep(ok));
    ok.generic.prime_bits = 20;
    CHECK_NOTHROW((void)plan_sweep(ok));
}

TEST_CASE("table prime bits: a row's primes have them, its ranks do not change, its bound grows; another sweep's file") {
    SweepOptions sw;
    sw.tokens = {3};
    sw.dims = {2};
    sw.depths = {2};
    sw.generic.method = GenericMethod::evaluation;
    sw.blocks = true;
    SweepOptions small = sw;
    small.generic.prime_bits = 50;
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 1);
    const Row wide = table_row(plan[0], sw), narrow = table_row(plan[0], small);
    CHECK(wide.at("rank").str() == narrow.at("rank").str());
    CHECK(wide.at("block_rank_list").str() == narrow.at("block_rank_list").str());
    CHECK(!wide.at("block_rank_list").str().empty());
    CHECK(std::stod(narrow.at("failure_bound").str()) > std::stod(wide.at("failure_bound").str()) * 100);
    // the default leaves the signature of older files as it was; another size is another sweep
    CHECK(sweep_signature(sw).find("prime_bits") == std::string::npos);
    CHECK(sweep_signature(small).find(" prime_bits=50") != std::string::npos);
    CHECK(sweep_signature(small) != sweep_signature(sw));
}

TEST_CASE("plan_sweep plans a configuration once: a value listed twice, a SPEC that repeats another's period") {
    SweepOptions sw;
    sw.tokens = {2, 3, 2};
    sw.dims = {1};
    sw.depths = {1, 1};
    SweepPlan plan = plan_sweep(sw);
    CHECK(plan.configs.size() == 2);
    CHECK(plan.duplicates == 4);  // (2,1) thrice more, (3,1) once more
    CHECK(plan.invalid == 0);
    sw = SweepOptions{};
    sw.families = {Family::stack};
    sw.layers = {"attention,attention", "attention"};
    sw.tokens = {2};
    sw.dims = {2};
    sw.depths = {1, 2};
    plan = plan_sweep(sw);
    // attention,attention at L = 1 is attention at L = 2: 3 rows, not 4
    REQUIRE(plan.configs.size() == 3);
    CHECK(plan.duplicates == 1);
    std::set<std::string> keys;
    for (const ValidSpec& v : plan.configs) keys.insert(row_key(v, sw));
    CHECK(keys.size() == 3);
}

TEST_CASE("plan_table: the sweeps' plans in order, their counts summed; no valid configuration is refused") {
    // The default table's sweeps, and a sweep with invalid and duplicate configurations.
    std::vector<SweepOptions> sweeps = default_table();
    SweepOptions odd;
    odd.tokens = {2, 2};
    odd.dims = {1, 2};
    odd.heads = {2};  // H = 2 divides dx = 2 only
    odd.depths = {1};
    sweeps.push_back(odd);
    const TablePlan plan = plan_table(sweeps);
    std::size_t at = 0;
    long invalid = 0, duplicates = 0;
    for (const SweepOptions& sw : sweeps) {
        const SweepPlan p = plan_sweep(sw);
        invalid += p.invalid;
        duplicates += p.duplicates;
        for (const ValidSpec& c : p.configs) {
            REQUIRE(at < plan.rows.size());
            CHECK(row_key(plan.rows[at].spec, plan.rows[at].sweep) == row_key(c, sw));
            CHECK(sweep_signature(plan.rows[at].sweep) == sweep_signature(sw));
            ++at;
        }
    }
    CHECK(at == plan.rows.size());
    CHECK(plan.rows.size() == 64);  // the 63 rows, and attention N=2 dx=2 H=2 L=1
    CHECK(plan.invalid == invalid);
    CHECK(plan.invalid >= 1);       // dx = 1 with H = 2
    CHECK(plan.duplicates == duplicates);
    CHECK(plan.duplicates >= 1);    // tokens 2 listed twice
    CHECK_THROWS_WITH_AS((void)plan_table({}), doctest::Contains("no valid configuration (0 left out"), invalid_input);
}

TEST_CASE("a configuration too large to build is left out with its reason; a sweep of only those is resource_limit") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {2, 1048576, 1048576};  // 2^20: valid, but its weights need about 2e5 GiB; listed twice
    sw.depths = {1};
    const SweepPlan plan = plan_sweep(sw);
    CHECK(plan.configs.size() == 2);
    CHECK(plan.too_large == 2);   // N = 2 and 3, each once
    CHECK(plan.duplicates == 2);  // the second 2^20
    CHECK(plan.invalid == 0);
    CHECK(plan.first_too_large.find("dx=1048576") != std::string::npos);
    CHECK(plan.first_too_large.find("max_memory") != std::string::npos);
    for (const ValidSpec& v : plan.configs) CHECK(v->dim == 2);
    const TablePlan t = plan_table({sw});
    CHECK(t.rows.size() == 2);
    CHECK(t.too_large == 2);
    CHECK(t.first_too_large == plan.first_too_large);
    // Only too-large configurations: the sweep is refused as too large, naming the first.
    sw.dims = {1048576};
    CHECK_THROWS_WITH_AS((void)plan_table({sw}), doctest::Contains("every valid configuration of the sweep is too large to build (2;"),
                         resource_limit);
    // With a budget: the depth comes from one layer's parameters, whatever that layer's
    // size; a budget that leaves depth 0 is a row even where one layer is too large.
    SweepOptions b;
    b.families = {Family::hadamard};
    b.tokens = {2};
    b.dims = {2, 1048576};
    b.budget = 1;
    const SweepPlan budget = plan_sweep(b);
    CHECK(budget.configs.size() == 2);
    CHECK(budget.too_large == 0);
    for (const ValidSpec& v : budget.configs) CHECK(v->depth == 0);
    // A stack's SPEC whose only configurations are too large is not a bad SPEC, and the
    // same network at two depths ('attention,attention' at 1 is 'attention' at 2) counts once.
    SweepOptions st;
    st.families = {Family::stack};
    st.layers = {"attention,attention", "attention"};
    st.tokens = {2};
    st.dims = {1048576};
    st.depths = {1, 2};
    const SweepPlan stacks = plan_sweep(st);
    CHECK(stacks.configs.empty());
    CHECK(stacks.too_large == 3);
    CHECK(stacks.duplicates == 1);
    // A family whose other configurations are invalid is not "valid in no configuration":
    // H = 2 fails dx = 1, and dx = 2^20 is valid but too large.
    sw.dims = {1, 1048576};
    sw.heads = {2};
    const SweepPlan mixed = plan_sweep(sw);
    CHECK(mixed.configs.empty());
    CHECK(mixed.invalid == 2);
    CHECK(mixed.too_large == 2);
    CHECK_THROWS_AS((void)plan_table({sw}), resource_limit);
}

TEST_CASE("plan_fingerprint: equal for equal plans, different for another row set or order") {
    std::vector<SweepOptions> sweeps = default_table();
    const TablePlan a = plan_table(sweeps), b = plan_table(sweeps);
    CHECK(plan_fingerprint(a.rows) == plan_fingerprint(b.rows));
    std::vector<PlannedRow> fewer = a.rows;
    fewer.pop_back();
    CHECK(plan_fingerprint(fewer) != plan_fingerprint(a.rows));
    std::vector<PlannedRow> swapped = a.rows;
    std::swap(swapped[0], swapped[1]);
    CHECK(plan_fingerprint(swapped) != plan_fingerprint(a.rows));
    CHECK(plan_fingerprint({}) == 14695981039346656037ULL);  // FNV-1a's offset basis: no byte hashed
}

TEST_CASE("a --partition leaves out the token counts it does not fit, and is refused when it fits none") {
    SweepOptions sw;
    sw.tokens = {2, 3, 4};
    sw.dims = {1};
    sw.depths = {1};
    sw.partition = "1|2,3";  // fits N = 3 only
    const SweepPlan plan = plan_sweep(sw);
    REQUIRE(plan.configs.size() == 1);
    CHECK(plan.configs[0]->tokens == 3);
    CHECK(plan.invalid == 2);
    CHECK(table_row(plan.configs[0], sw).at("partition").str() == "1|2,3");
    sw.tokens = {2, 4};
    CHECK_THROWS_WITH_AS((void)plan_sweep(sw), doctest::Contains("it fits no token count of the sweep"), invalid_input);
    sw.partition = "1|x";  // a syntax error fits no N either
    CHECK_THROWS_WITH_AS((void)plan_sweep(sw), doctest::Contains("partition '1|x'"), invalid_input);
    // a spec that fails everywhere is named for its own reason, not the partition's
    SweepOptions bad = sw;
    bad.tokens = {2, 4};
    bad.dims = {3};
    bad.heads = {2};
    bad.partition = "1,2|3,4";
    CHECK_THROWS_WITH_AS((void)plan_sweep(bad), doctest::Contains("family attention is valid in no configuration"), invalid_input);
    try {
        (void)plan_sweep(bad);
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("partition") == std::string::npos);
    }
    sw.partition.clear();  // balanced: every N
    CHECK(plan_sweep(sw).configs.size() == 2);
}

TEST_CASE("peak_mib of a row is the peak while the row ran, not the process's peak") {
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {1};
    sw.depths = {1};
    const SweepPlan plan = plan_sweep(sw);
    const std::size_t big = std::size_t{384} << 20;  // 384 MiB touched, then given back (no allocator cache)
    void* m = mmap(nullptr, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    std::memset(m, 1, big);
    REQUIRE(munmap(m, big) == 0);
    struct rusage ru {};
    REQUIRE(getrusage(RUSAGE_SELF, &ru) == 0);
    const double process_peak = static_cast<double>(ru.ru_maxrss) / 1024.0;
    REQUIRE(process_peak > 384);
    const double row_peak = table_row(plan.configs[0], sw).at("peak_mib").as_real();
    CHECK(row_peak > 0);
    CHECK(row_peak < process_peak - 256);
    // the process's own high-water mark (what getrusage and /usr/bin/time report) is untouched
    REQUIRE(getrusage(RUSAGE_SELF, &ru) == 0);
    CHECK(static_cast<double>(ru.ru_maxrss) / 1024.0 >= process_peak);
}

TEST_CASE("resume after a simulated kill loses and duplicates no row") {
    const std::string path = "test_table_resume.csv";
    std::remove(path.c_str());
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1, 2};
    sw.depths = {1, 2};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 8);
    {
        TableAppender out(path, false);
        for (std::size_t k = 0; k < 5; ++k) out.append(table_row(plan[k], sw));
    }
    {  // the kill: half of a sixth row, no newline
        std::ofstream torn(path, std::ios::app);
        torn << csv_line(table_row(plan[5], sw)).substr(0, 20);
    }
    const auto done = read_table_file(path, false);
    REQUIRE(done.size() == 5);
    std::set<std::string> keys;
    for (const auto& r : done) keys.insert(row_key(r));
    {
        TableAppender out(path, false);
        for (const auto& spec : plan)
            if (!keys.count(row_key(spec, sw))) out.append(table_row(spec, sw));
    }
    const auto all = read_table_file(path, false);
    REQUIRE(all.size() == 8);
    std::set<std::string> final_keys;
    for (const auto& r : all) final_keys.insert(row_key(r));
    CHECK(final_keys.size() == 8);
    for (const auto& spec : plan) CHECK(final_keys.count(row_key(spec, sw)) == 1);
    std::remove(path.c_str());
}

TEST_CASE("a row whose write fails (a full disk) is cut off again: the file ends with its last whole row") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1};
    sw.depths = {1, 2};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 4);
    const std::string sig = sweep_signature(sw), path = "test_table_full_disk.csv";
    const auto size_of = [&] {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        return static_cast<long>(in.tellg());
    };
    const auto text_of = [&] {
        std::ifstream in(path);
        return std::string((std::istreambuf_iterator<char>(in)), {});
    };
    // A full disk: a file-size limit `room` bytes past the file's size (SIGXFSZ ignored, so
    // the write past it fails with EFBIG after writing what fits), restored after.
    const auto append_on_full_disk = [&](TableAppender& out, const Row& row, long room) {
        rlimit old{};
        REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
        const auto previous = std::signal(SIGXFSZ, SIG_IGN);
        rlimit tight = old;
        tight.rlim_cur = static_cast<rlim_t>(size_of() + room);
        REQUIRE(setrlimit(RLIMIT_FSIZE, &tight) == 0);
        bool threw = false;
        try {
            out.append(row);
        } catch (const resource_limit& e) {
            threw = std::string(e.what()).find("File too large") != std::string::npos;
        }
        setrlimit(RLIMIT_FSIZE, &old);
        std::signal(SIGXFSZ, previous);
        return threw;
    };
    for (const long room : {0L, 1L, 30L}) {
        std::remove(path.c_str());
        {
            TableAppender out(path, false, sig, false);
            // the first row carries the sweep line and the header: cut off with it, then
            // written again with the next row
            CHECK_MESSAGE(append_on_full_disk(out, table_row(plan[0], sw), room), "room " << room);
            CHECK(size_of() == 0);
            out.append(table_row(plan[0], sw));
            out.append(table_row(plan[1], sw));
            const long before = size_of();
            CHECK(append_on_full_disk(out, table_row(plan[2], sw), room));
            CHECK(size_of() == before);
            CHECK(text_of().back() == '\n');
            out.append(table_row(plan[3], sw));  // the disk has room again
        }
        const auto rows = read_table_file(path, false);
        REQUIRE(rows.size() == 3);
        CHECK(row_key(rows[2]) == row_key(plan[3], sw));
        TableAppender again(path, false, sig, true);  // a resume reads it as it is
        CHECK(again.rows().size() == 3);
    }
    std::remove(path.c_str());
}

TEST_CASE("resume of a file cut after its sweep line, or inside its header: the header is written, then the rows") {
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {1};
    sw.depths = {1, 2};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 2);
    const std::string sig = sweep_signature(sw), path = "test_table_cut_header.csv";
    std::string whole;
    {
        std::remove(path.c_str());
        {
            TableAppender out(path, false, sig, false);
            out.append(table_row(plan[0], sw));
        }
        std::ifstream in(path);
        whole.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::size_t sweep_end = whole.find('\n') + 1, header_end = whole.find('\n', sweep_end) + 1;
    for (const std::size_t cut : {sweep_end, sweep_end + 7}) {  // the sweep line alone; a torn header after it
        {
            std::ofstream out(path, std::ios::trunc);
            out << whole.substr(0, cut);
        }
        {
            TableAppender again(path, false, sig, true);
            CHECK(again.rows().empty());
            for (const auto& c : plan) again.append(table_row(c, sw));
        }
        const auto rows = read_table_file(path, false);  // parses: the header is there
        CHECK(rows.size() == 2);
        std::ifstream in(path);
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        CHECK(text.substr(0, header_end) == whole.substr(0, header_end));  // the sweep line once, then the header
        TableAppender third(path, false, sig, true);  // and a later resume reads it
        CHECK(third.rows().size() == 2);
    }
    std::remove(path.c_str());
}

TEST_CASE("unused_table_options: the options no row or family of the run used, with the reasons") {
    auto names = [](const std::vector<UnusedOptions>& u) {
        std::vector<std::string> all;
        for (const UnusedOptions& x : u) all.insert(all.end(), x.names.begin(), x.names.end());
        return all;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& n) { return std::find(v.begin(), v.end(), n) != v.end(); };
    SweepOptions att;  // attention only, no ε columns
    Row flat, eval;
    flat.set("method", "flattening");
    eval.set("method", "evaluation");
    std::vector<std::string> u = names(unused_table_options({att}, {flat}));
    for (const char* n : {"max_side", "variant", "row_seconds", "measure", "width", "block_degree", "budget", "layers"}) CHECK(has(u, n));
    for (const char* n : {"heads", "head_dim", "attention_rank", "position"}) CHECK(!has(u, n));
    CHECK(unused_table_options({att}, {flat}).front().reason == "no row used the evaluation (method auto)");
    // A row by evaluation uses max_side; ε columns use measure; hadamard has a width, a
    // free block degree and a budget, but no heads; a stack has layers.
    SweepOptions mixed = att;
    mixed.families = {Family::hadamard, Family::stack};
    mixed.eps = {0.1};
    mixed.generic.method = GenericMethod::flattening;
    u = names(unused_table_options({mixed}, {flat, eval}));
    for (const char* n : {"max_side", "measure", "width", "block_degree", "budget", "layers"}) CHECK(!has(u, n));
    CHECK(has(u, "heads"));
    CHECK(names(unused_table_options({mixed}, {flat})).front() == "max_side");
    CHECK(unused_table_options({mixed}, {flat}).front().reason == "no row used the evaluation (method flattening)");
    CHECK(has(names(unused_table_options({}, {})), "max_side"));  // no sweep, no row: nothing used
    CHECK(!has(u, "depth"));
    // A budget sets the depth of a family with a free block degree: a sweep of such families
    // only reads no depth; one with attention (its block degree fixed) still does.
    SweepOptions budgeted = mixed;
    budgeted.families = {Family::hadamard};
    budgeted.budget = 20;
    CHECK(has(names(unused_table_options({budgeted}, {flat})), "depth"));
    budgeted.families = {Family::hadamard, Family::attention};
    CHECK(!has(names(unused_table_options({budgeted}, {flat})), "depth"));
    budgeted.budget = 0;
    budgeted.families = {Family::hadamard};
    CHECK(!has(names(unused_table_options({budgeted}, {flat})), "depth"));
}

TEST_CASE("resume_set: the file's rows by key, repeated keys and keys outside the plan counted") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1};
    sw.depths = {1};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 2);
    std::vector<PlannedRow> planned;
    for (const auto& spec : plan) planned.push_back({spec, sw});
    CHECK(resume_set({}, planned).rows.empty());
    const Row a = table_row(plan[0], sw), b = table_row(plan[1], sw);
    ResumeSet r = resume_set({a, b, a}, planned);
    CHECK(r.rows.size() == 2);
    CHECK(r.duplicates == 1);
    CHECK(r.outside == 0);
    r = resume_set({a, b}, {planned[0]});  // the sweep narrowed to N = 2: b's row stays out
    CHECK(r.rows.size() == 2);
    CHECK(r.duplicates == 0);
    CHECK(r.outside == 1);
    CHECK(r.rows.count(row_key(plan[1], sw)) == 1);
}

TEST_CASE("resume_set: a row whose dimension a limit left empty is computed again; one the sweep does not ask for is kept") {
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {2};
    sw.depths = {1, 2};
    sw.dimension = true;
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 2);
    std::vector<PlannedRow> planned;
    for (const auto& spec : plan) planned.push_back({spec, sw});
    const Row done = table_row(plan[0], sw);
    REQUIRE(!done.at("dimension").is_null());
    Row stopped;
    {
        const seprank_test::MaxSeconds tight(1e-9);  // the dimension's estimate is over it: cells empty, reason says why
        stopped = table_row(plan[1], sw);
    }
    REQUIRE(stopped.at("dimension").is_null());
    REQUIRE(stopped.at("reason").str().find("dimension: ") != std::string::npos);
    {
        const seprank_test::MaxSeconds tight(1e-9);  // the same limit: it would be refused again, kept
        const ResumeSet same = resume_set({done, stopped}, planned);
        CHECK(same.recompute_columns == 0);
        CHECK(same.rows.size() == 2);
    }
    ResumeSet r = resume_set({done, stopped}, planned);
    CHECK(r.recompute_columns == 1);
    CHECK(r.rows.size() == 1);
    CHECK(r.rows.count(row_key(plan[0], sw)) == 1);
    // computed again, the row has its dimension and is kept on the next resume
    const Row again = table_row(plan[1], sw);
    CHECK(!again.at("dimension").is_null());
    r = resume_set({done, stopped, again}, planned);
    CHECK(r.recompute_columns == 0);
    CHECK(r.rows.size() == 2);
    // an empty dimension for another reason (depth 0 without an embedding: no parameters)
    // would come out the same: kept
    SweepOptions flat = sw;
    flat.depths = {0};
    const auto plan0 = plan_sweep(flat).configs;
    REQUIRE(plan0.size() == 1);
    const Row none = table_row(plan0[0], flat);
    REQUIRE(none.at("dimension").is_null());
    REQUIRE(none.at("reason").str().find("dimension: ") != std::string::npos);
    const ResumeSet kept = resume_set({none}, {PlannedRow{plan0[0], flat}});
    CHECK(kept.recompute_columns == 0);
    CHECK(kept.rows.size() == 1);
}

TEST_CASE("table_row: a rank a limit refuses skips that row alone; resume_set computes it again once the limit admits it") {
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {4};
    sw.depths = {1, 3};
    sw.generic.method = GenericMethod::flattening;
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 2);
    std::vector<PlannedRow> planned;
    for (const auto& spec : plan) planned.push_back({spec, sw});
    const double tight = 16.0 * (1 << 20);  // the depth-3 expansion's estimate, about 1 GiB, is over it
    Row small, refused;
    {
        const seprank_test::MaxMemory limit(tight);
        CHECK_NOTHROW(small = table_row(plan[0], sw));
        CHECK_NOTHROW(refused = table_row(plan[1], sw));
    }
    CHECK(small.at("status").str() == "ok");
    CHECK(refused.at("status").str() == "skipped");
    CHECK(refused.at("rank").is_null());
    CHECK(refused.at("degree").str() == "27");  // the row's other columns as usual
    const std::string reason = refused.at("reason").str();
    CHECK(reason.rfind("rank: expansion refused", 0) == 0);
    CHECK(reason.find("over the limit of") != std::string::npos);
    {
        const seprank_test::MaxMemory limit(tight);  // the same limit would refuse it again: kept
        const ResumeSet same = resume_set({small, refused}, planned);
        CHECK(same.recompute_columns == 0);
        CHECK(same.rows.size() == 2);
    }
    {
        const seprank_test::MaxMemory limit(4.0 * (1 << 30));  // now admitted: computed again
        const ResumeSet wider = resume_set({small, refused}, planned);
        CHECK(wider.recompute_columns == 1);
        CHECK(wider.rows.size() == 1);
        CHECK(wider.rows.count(row_key(plan[0], sw)) == 1);
    }
    // a row skipped for its size budget (no refusal to re-read) stays skipped: kept
    SweepOptions few = sw;
    few.max_variables = 2;
    const Row over = table_row(plan[0], few);
    REQUIRE(over.at("status").str() == "skipped");
    const ResumeSet kept = resume_set({over}, {PlannedRow{plan[0], few}});
    CHECK(kept.recompute_columns == 0);
    CHECK(kept.rows.size() == 1);
}

TEST_CASE("plan_sweep refuses a sweep too large to plan; a planned row keeps no value lists") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1, 2, 3};
    sw.layers = {};
    const TablePlan plan = plan_table({sw});
    REQUIRE(plan.rows.size() == 6);
    for (const PlannedRow& pr : plan.rows) {
        CHECK(pr.sweep.tokens.empty());
        CHECK(pr.sweep.dims.empty());
        CHECK(row_key(pr.spec, pr.sweep) == row_key(pr.spec, sw));  // the same row
    }
    {  // 8 KiB a configuration: 6 of them over 40 KiB, refused at the sixth
        const seprank_test::MaxMemory tight(40 * 1024);
        try {
            (void)plan_sweep(sw);
            FAIL("not refused");
        } catch (const resource_limit& e) {
            CHECK(std::string(e.what()).find("the sweep's valid configurations, 6 so far of up to 6 combinations") != std::string::npos);
        }
    }
    {  // 2·2·10^6 combinations at 10 µs: 40 s, over a 1 s limit before any is built
        SweepOptions huge = sw;
        huge.dims.clear();
        for (long d = 1; d <= 1000000; ++d) huge.dims.push_back(d);
        huge.heads = {1, 2};
        const seprank_test::MaxSeconds tight(1);
        CHECK_THROWS_WITH_AS(plan_sweep(huge), doctest::Contains("table: planning the sweep, 4e+06 combinations of its values"), resource_limit);
    }
}

TEST_CASE("plot script: a UTF-8 byte-order mark before the header is skipped, as guess skips it") {
    // A block table (plot --blocks needs its 'family' column, the first) and a plain one
    // with a family series: each read with and without a mark before its first line.
    const std::string blocks = "family,tokens,dim,depth,block,blocks,rank,cap_a,cap_b,status\n"
                               "attention,2,1,1,0,3,1,1,1,ok\nattention,2,1,1,1,3,2,2,3,ok\nattention,2,1,1,2,3,1,1,1,ok\n"
                               "hadamard,2,1,1,0,2,1,1,1,ok\nhadamard,2,1,1,1,2,1,1,1,ok\n";  // the curves named by family
    const std::string plain = "family,tokens,dim,depth,rank,log3_rank\nattention,2,1,1,3,1\nhadamard,2,1,2,4,1.26\n";
    for (const bool block : {true, false}) {
        PlotOptions o;
        o.blocks = block;
        o.series = "family";
        o.y = "rank";
        std::string scripts[2];
        for (int marked = 0; marked < 2; ++marked) {
            const std::string path = "test_plot_bom.csv";
            {
                std::ofstream f(path, std::ios::binary);
                f << (marked ? "\xEF\xBB\xBF" : "") << (block ? blocks : plain);
            }
            INFO("blocks " << block << ", marked " << marked);
            REQUIRE_NOTHROW(scripts[marked] = plot_script(path, "fig.svg", o));
            std::remove(path.c_str());
        }
        CHECK(scripts[0] == scripts[1]);
        CHECK(scripts[1].find(block ? "family=attention" : "family=hadamard") != std::string::npos);
    }
}

TEST_CASE("plot --blocks: a block given twice counts once, as guess --blocks folds it; two ok ranks must agree") {
    const std::string head = "family,tokens,dim,depth,block,blocks,rank,cap_a,cap_b,status\n";
    const std::string rows = "attention,2,1,1,0,3,1,1,1,ok\nattention,2,1,1,2,3,1,1,1,ok\n";
    const auto script = [&](const std::string& text) {
        const std::string path = "test_plot_twice.csv";
        {
            std::ofstream f(path, std::ios::binary);
            f << head << rows << text;
        }
        PlotOptions o;
        o.blocks = true;
        std::string g;
        try {
            g = plot_script(path, "fig.svg", o);
        } catch (...) {
            std::remove(path.c_str());
            throw;
        }
        std::remove(path.c_str());
        return g;
    };
    // a lower bound, then the recomputed ok row (table --resume appends it): the ok rank
    // is plotted, no lower-bound point; the other order keeps the ok row too
    const std::string once = script("attention,2,1,1,1,3,2,2,3,ok\n");
    CHECK(script("attention,2,1,1,1,3,1,2,3,lower-bound\nattention,2,1,1,1,3,2,2,3,ok\n") == once);
    CHECK(script("attention,2,1,1,1,3,2,2,3,ok\nattention,2,1,1,1,3,1,2,3,lower-bound\n") == once);
    CHECK(once.find("lower bound (not converged)") == std::string::npos);
    // two ok rows of one block with different ranks: refused naming both lines (a hunt
    // found the later drawn, silently)
    CHECK_THROWS_WITH_AS((void)script("attention,2,1,1,1,3,2,2,3,ok\nattention,2,1,1,1,3,1,2,3,ok\n"),
                         doctest::Contains("lines 4 and 5: block 1 of tokens=2 dim=1 depth=1 given twice with ranks 2 and 1"), invalid_input);
}

TEST_CASE("plot script: filters, series, bounds, and clear errors") {
    const std::string path = "test_plot_table.csv";
    {
        std::ofstream f(path);
        f << csv_header() << "\n";
        SweepOptions sw;
        sw.tokens = {2, 3};
        sw.dims = {1, 2};
        sw.depths = {1, 2};
        for (const auto& spec : plan_sweep(sw).configs) f << csv_line(table_row(spec, sw)) << "\n";
    }
    PlotOptions o;
    o.where = {"tokens=2"};
    o.bounds = true;
    const std::string g = plot_script(path, "fig.svg", o);
    CHECK(g.find("set terminal svg") != std::string::npos);
    CHECK(g.find("dim=1") != std::string::npos);
    CHECK(g.find("dim=2 lower bound") != std::string::npos);
    CHECK(g.find("$s1 << EOD") != std::string::npos);
    CHECK(g.find("$s2") == std::string::npos);  // two series only
    PlotOptions bad = o;
    bad.x = "nope";
    CHECK_THROWS_AS(plot_script(path, "fig.svg", bad), invalid_input);
    CHECK_THROWS_AS(plot_script(path, "fig.pdf", o), invalid_input);
    PlotOptions none = o;
    none.where = {"tokens=9"};
    CHECK_THROWS_AS(plot_script(path, "fig.svg", none), invalid_input);
    CHECK_THROWS_AS(plot_script("missing.csv", "fig.svg", o), invalid_input);
    // the bounds are log3 of ranks: beside log3_rank only, named when refused
    PlotOptions raw = o;
    raw.y = "rank";
    try {
        (void)plot_script(path, "fig.svg", raw);
        FAIL("--bounds beside raw ranks was accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("not 'rank'") != std::string::npos);
    }
    raw.bounds = false;
    CHECK_NOTHROW((void)plot_script(path, "fig.svg", raw));
    // a log scale needs a positive value: no draw here is degenerate (the column is all 0)
    PlotOptions lg;
    lg.y = "degenerate";
    lg.logy = true;
    try {
        (void)plot_script(path, "fig.svg", lg);
        FAIL("--logy without a positive value was accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("no positive number") != std::string::npos);
    }
    lg.y = "rank";
    // rows of two token counts at one (dim, depth): two points of series dim=2 at depth 2,
    // refused naming both lines (the later was drawn over the earlier, unsaid)
    CHECK_THROWS_WITH_AS((void)plot_script(path, "fig.svg", lg), doctest::Contains("two rows of series dim=2 at depth = 2 with other values"), invalid_input);
    lg.where = {"tokens=2"};
    CHECK(plot_script(path, "fig.svg", lg).find("set logscale y") != std::string::npos);
    std::remove(path.c_str());
}

TEST_CASE("plot script: lower-bound rows apart from the curve, --bounds on rows without bounds refused, integer x ticks") {
    // Issue 58: lower bounds were drawn as exact ranks, --bounds drew a legend and no curve,
    // and depth ticks fell at 1.5.
    const std::string path = "test_plot_lower.csv";
    {
        std::ofstream f(path);
        f << "family,tokens,dim,depth,rank,log3_rank,log3_lower,log3_upper,status\n"
             "attention,3,4,1,5,1.465,,,ok\nattention,3,4,2,70,3.8671,,9.5,ok\nattention,3,4,3,3583,7.4463,,,lower-bound\n"
             "hadamard,3,4,1,4,1.2619,,,ok\nhadamard,3,4,2,8,1.8928,,,ok\n";
    }
    PlotOptions o;
    o.x = "depth";
    o.y = "log3_rank";
    o.series = "family";
    const std::string g = plot_script(path, "fig.svg", o);
    // the lower bound: NaN on the curve (column 2), its value in the marker column (3)
    CHECK(g.find("\n3 NaN 7.4463\n") != std::string::npos);
    CHECK(g.find("\n2 3.8671 NaN\n") != std::string::npos);
    CHECK(g.find("$s0 using 1:3 with points pt 6 ps 1.5 lc 1 title 'family=attention log3_rank a lower bound (not converged)'") != std::string::npos);
    CHECK(g.find("$s1 using 1:3 with points") == std::string::npos);  // hadamard: no lower bound, no marker
    CHECK(g.find("set xtics 1\n") != std::string::npos);
    // with the bounds, the marker column comes after them
    o.bounds = true;
    const std::string gb = plot_script(path, "fig.svg", o);
    CHECK(gb.find("\n3 NaN NaN NaN 7.4463\n") != std::string::npos);
    CHECK(gb.find("$s0 using 1:5 with points pt 6") != std::string::npos);
    // a legend entry only for a bound the series has: attention an upper one, hadamard none
    CHECK(gb.find("'family=attention upper bound'") != std::string::npos);
    CHECK(gb.find("'family=attention lower bound'") == std::string::npos);
    CHECK(gb.find("'family=hadamard upper bound'") == std::string::npos);
    CHECK(gb.find("'family=hadamard lower bound'") == std::string::npos);
    // a y that is not a rank is not a bound: drawn as it is
    PlotOptions plain;
    plain.x = "depth";
    plain.y = "dim";
    plain.series = "family";
    CHECK(plot_script(path, "fig.svg", plain).find("a lower bound") == std::string::npos);
    // --bounds on rows that have none: refused by name
    o.where = {"family=hadamard"};
    CHECK(seprank_test::message_of([&] { (void)plot_script(path, "fig.svg", o); }) ==
          "--bounds: columns 'log3_lower' and 'log3_upper' of 'test_plot_lower.csv' have no number in the rows plotted (no theorem bound "
          "applies to them)");
    // an x that is not whole gets gnuplot's own ticks
    {
        std::ofstream f(path);
        f << "eps,rank,family\n0.5,3,a\n1,2,a\n";
    }
    PlotOptions e;
    e.x = "eps";
    e.y = "rank";
    e.series = "family";
    CHECK(plot_script(path, "fig.svg", e).find("set xtics") == std::string::npos);
    // a row given twice (table --resume appends the recomputed row): the final one is drawn,
    // in either order, a lower bound or an empty cell giving way to it; two final rows that
    // differ are refused
    const auto script = [&](const std::string& rows) {
        {
            std::ofstream f(path);
            f << "family,depth,log3_rank,status\nattention,1,1,ok\n" << rows;
        }
        PlotOptions d;
        d.x = "depth";
        d.y = "log3_rank";
        d.series = "family";
        return plot_script(path, "fig.svg", d);
    };
    const std::string once = script("attention,2,3.5,ok\n");
    CHECK(once.find("\n2 3.5 NaN\n") != std::string::npos);
    CHECK(script("attention,2,3,lower-bound\nattention,2,3.5,ok\n") == once);
    CHECK(script("attention,2,3.5,ok\nattention,2,3,lower-bound\n") == once);
    CHECK(script("attention,2,,skipped\nattention,2,3.5,ok\n") == once);
    CHECK(script("attention,2,3.5,ok\nattention,2,3.5,ok\n") == once);
    CHECK(script("attention,2,3.50,ok\nattention,2,3.5e0,ok\n").find("\n2 3.50 NaN\n") != std::string::npos);  // one number
    // two lower bounds: the larger drawn, in either order
    CHECK(script("attention,2,3,lower-bound\nattention,2,2,lower-bound\n").find("\n2 NaN 3\n") != std::string::npos);
    CHECK(script("attention,2,2,lower-bound\nattention,2,3,lower-bound\n").find("\n2 NaN 3\n") != std::string::npos);
    // every y of the file recomputed (a skipped row then its row, table --resume): a number
    // to draw (the count of numbers was taken before the replacement: a review)
    {
        std::ofstream f(path);
        f << "family,depth,dimension,status\nattention,1,,skipped\nattention,1,7,ok\n";
    }
    PlotOptions dim;
    dim.x = "depth";
    dim.y = "dimension";
    dim.series = "family";
    CHECK(plot_script(path, "fig.svg", dim).find("\n1 7 NaN\n") != std::string::npos);
    CHECK_THROWS_WITH_AS((void)script("attention,2,3.5,ok\nattention,2,4,ok\n"), doctest::Contains("lines 3 and 4: two rows of series family=attention at depth = 2"),
                         invalid_input);
    std::remove(path.c_str());
}

TEST_CASE("sweeps over embed rank, head dim, attention rank and position; Theorem 7.3 columns") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {2};
    sw.depths = {2};
    sw.embed_ranks = {0, 1, 3};
    sw.head_dims = {0, 1};
    sw.attention_ranks = {0, 1, 2};  // k = 2 > da = 1 is invalid
    sw.positions = {1, 3};           // i = 3 needs N = 3
    const SweepPlan plan = plan_sweep(sw);
    // per N: 3 r × (da = 2: k 0,1,2; da = 1: k 0,1) = 15 networks × positions (1 for N=2, 2 for N=3)
    CHECK(plan.configs.size() == 15 + 30);
    CHECK(plan.invalid == (3 * 1 * 2) + (3 * 1 * 2 + 15));  // k = 2 at da = 1 (both N, all i), i = 3 at N = 2
    std::set<std::string> keys;
    for (const auto& c : plan.configs) keys.insert(row_key(c, sw));
    CHECK(keys.size() == plan.configs.size());  // the new options are part of the row key
    // hadamard ignores head dim and attention rank
    SweepOptions h = sw;
    h.families = {Family::hadamard};
    h.positions = {1};
    CHECK(plan_sweep(h).configs.size() == 2 * 3);
    // columns of one embedded row: s_up = L·min{r, dx}, s_low where 3^L > dx and H < r
    NetworkSpec s = seprank_test::attention_spec(2, 2, 2);
    s.embed_rank = 3;
    SweepOptions one;
    const Row r = table_row(s, one);
    CHECK(r.at("embed_rank").str() == "3");
    CHECK(r.at("head_dim").str() == "2");
    CHECK(r.at("position").str() == "1");
    CHECK(r.at("s_up").str() == "4");
    CHECK(r.at("s_low").str() == "2");
    const long rank = std::stol(r.at("rank").str());
    CHECK(std::stod(r.at("ratio_up").str()) == doctest::Approx(std::log(static_cast<double>(rank)) / std::log(3.0) / 4.0).epsilon(1e-3));
    CHECK(std::stod(r.at("ratio_low").str()) == doctest::Approx(std::log(static_cast<double>(rank)) / std::log(3.0) / 2.0).epsilon(1e-3));
    CHECK(r.at("t73_flag").str().empty());
    CHECK(r.at("theorem").str() == "7.2");  // r = 3 >= dx: the plain network's bounds apply
    // no embedding: the Theorem 7.3 columns are null; r = 1 = H: no s_low
    s.embed_rank = 0;
    const Row bare = table_row(s, one);
    CHECK(bare.at("s_up").is_null());
    CHECK(bare.at("t73_flag").is_null());
    s.embed_rank = 1;
    const Row low = table_row(s, one);
    CHECK(low.at("s_up").str() == "2");
    CHECK(low.at("s_low").is_null());
    CHECK(low.at("ratio_low").is_null());
    CHECK(low.at("theorem").is_null());  // r < dx: Theorems 7.1/7.2 are not about this network
    CHECK(low.at("outside").is_null());
    s.embed_rank = 0;
    s.attention_rank = 1;
    CHECK(table_row(s, one).at("log3_lower").is_null());  // nor about low-rank attention
    // the preset plans without invalid combinations
    for (const auto& p : table_preset("theorem7.3")) CHECK(plan_sweep(p).invalid == 0);
    CHECK(table_preset("default").size() == default_table().size());
    // the default table's rows: a time budget and 50-bit primes, both in its sweep line only
    // where they differ from every other sweep's (the prime size; the budget is no part of it)
    for (const SweepOptions& sw : default_table()) {
        CHECK(sw.generic.prime_bits == kDefaultTablePrimeBits);
        CHECK(sw.generic.max_seconds == kTableRowSeconds);
        CHECK(sweep_signature(sw).find(" prime_bits=50") != std::string::npos);
    }
    CHECK(SweepOptions{}.generic.prime_bits == 62);
    CHECK_THROWS_AS(table_preset("nope"), invalid_input);
}

TEST_CASE("table files: sweep line, lock, another sweep's file, malformed rows with line numbers") {
    const std::string path = "test_table_sweep.csv";
    std::remove(path.c_str());
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {1};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 1);
    const std::string sig = sweep_signature(sw);
    {
        TableAppender out(path, false, sig, false);
        // a second writer of the same file is refused while the first holds it
        CHECK_THROWS_AS(TableAppender(path, false, sig, true), invalid_input);
        out.append(table_row(plan[0], sw));
    }
    {
        TableAppender again(path, false, sig, true);
        CHECK(again.rows().size() == 1);
    }
    SweepOptions other = sw;
    other.generic.seed = 99;
    CHECK(sweep_signature(other) != sig);
    try {
        TableAppender wrong(path, false, sweep_signature(other), true);
        FAIL("another sweep's file was accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("different sweep") != std::string::npos);
    }
    CHECK_THROWS_AS(TableAppender(path, false, sig, false), invalid_input);  // not empty, no resume
    // A file of another results version (or of none: before versions) is refused as such,
    // whatever its other options: its rows hold other bounds.
    REQUIRE(sig.rfind("results=", 0) == 0);
    const std::string rest = sig.substr(sig.find(' ') + 1);
    const std::string row_text = csv_header() + "\n" + csv_line(table_row(plan[0], sw)) + "\n";
    for (const std::string& old_sweep : {rest, "results=1 " + rest}) {
        std::remove(path.c_str());
        std::ofstream(path) << "# seprank table sweep: " << old_sweep << "\n" << row_text;
        try {
            TableAppender old(path, false, sig, true);
            FAIL("a file of another results version was accepted: " << old_sweep);
        } catch (const invalid_input& e) {
            CHECK(std::string(e.what()).find("another version of seprank") != std::string::npos);
        }
        CHECK(read_table_file(path, false).size() == 1);  // still readable (guess, plot)
    }
    std::remove(path.c_str());
    {  // a writer that never writes a row leaves no file
        TableAppender unused(path, false, sig, false);
    }
    CHECK(!std::ifstream(path));
    // malformed rows: the line number is named
    const std::string text = "# seprank table sweep: " + sig + "\n" + csv_header() + "\n" + csv_line(table_row(plan[0], sw)) + "\n";
    CHECK(parse_table_text(text, false, "t").rows.size() == 1);
    std::string bad_rank = text;
    const std::string row = csv_line(table_row(plan[0], sw));
    std::vector<std::string> cells = parse_csv_line(row);
    const auto& cols = table_columns();
    for (std::size_t k = 0; k < cols.size(); ++k)
        if (cols[k] == "rank") cells[k] = "abc";
    bad_rank += seprank::csv_line(cells) + "\n";
    try {
        (void)parse_table_text(bad_rank, false, "t");
        FAIL("a malformed row was accepted");
    } catch (const invalid_input& e) {
        CHECK(std::string(e.what()).find("line 4") != std::string::npos);
        CHECK(std::string(e.what()).find("'abc'") != std::string::npos);
    }
    // a torn last line is not a row
    const TableFile torn = parse_table_text(text + row.substr(0, 10), false, "t");
    CHECK(torn.rows.size() == 1);
    CHECK(torn.complete_bytes == text.size());
}

TEST_CASE("table files: a resumed row's cells agree with one another; the other format's file is named as such") {
    // A hunt (2026-12-02): these edits were reused as they stood and printed back.
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {2};
    sw.eps = {0.1};
    sw.dimension = true;
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 1);
    const Row row = table_row(plan[0], sw);
    REQUIRE(row.at("certified").str() == "true");
    const std::string head = csv_header(true, true) + "\n";
    CHECK(parse_table_text(head + csv_line(row) + "\n", false, "t").rows.size() == 1);
    const auto refused = [&](std::initializer_list<std::pair<const char*, const char*>> cells) {
        Row r = row;
        for (const auto& [c, v] : cells) r.set(c, std::string(v));
        return seprank_test::message_of([&] { (void)parse_table_text(head + csv_line(r) + "\n", false, "t"); });
    };
    CHECK(refused({{"label", "lower bound"}}) == "t line 2: certified true but label 'lower bound'");
    CHECK(refused({{"failure_bound", "0.5"}}) == "t line 2: a certified rank with failure_bound 0.5 (a certain rank has 0)");
    CHECK(refused({{"status", "lower-bound"}}) == "t line 2: a certified rank of status lower-bound");
    CHECK(refused({{"rank", "9999"}}).find("rank 9999 is above the matrix's rows") != std::string::npos);
    CHECK(refused({{"dim_label", "bogus"}}).find("column 'dim_label' = 'bogus'") != std::string::npos);
    CHECK(refused({{"dim_failure_bound", "7"}}).find("'dim_failure_bound' = '7' is above 1") != std::string::npos);
    CHECK(refused({{"dim_failure_bound", "-7"}}).find("is not a number >= 0") != std::string::npos);
    CHECK(refused({{"eps", "x"}}).find("column 'eps' holds 'x'") != std::string::npos);
    CHECK(refused({{"eps_ranks", "junk"}}).find("column 'eps_ranks' holds 'junk'") != std::string::npos);
    CHECK(refused({{"eps_ranks", "3..2"}}).find("column 'eps_ranks' holds '3..2'") != std::string::npos);
    CHECK(refused({{"eps_ranks", "1 2"}, {"eps_certified", "true true"}}).find("2 ranks for 1 values of eps") != std::string::npos);
    CHECK(refused({{"eps_certified", "maybe"}}).find("'eps_certified' holds 'maybe'") != std::string::npos);
    CHECK(refused({{"eps_certified", ""}}).find("'eps_certified' has 0 words for 1 ranks") != std::string::npos);
    // a range and an uncomputed ε-rank (both cells empty) are rows as written
    CHECK(refused({{"eps_ranks", "1..2"}, {"eps_certified", "false"}}) == "(accepted)");
    CHECK(refused({{"eps_ranks", ""}, {"eps_certified", ""}}) == "(accepted)");
    // the sweep's ε, not another's: resume_set refuses a row whose eps differs
    Row other = row;
    other.set("eps", std::string("0.7"));
    const std::vector<PlannedRow> planned{{plan[0], sw}};
    CHECK(seprank_test::message_of([&] { (void)resume_set({other}, planned, "t"); }).find("eps 0.7, where the sweep's --eps differs") !=
          std::string::npos);
    CHECK(resume_set({row}, planned, "t").rows.size() == 1);
    // the other format's sweep line
    const std::string sig = sweep_signature(sw);
    CHECK(seprank_test::message_of([&] { (void)parse_table_text("# seprank table sweep: " + sig + "\n" + head, true, "t"); })
              .find("t is a CSV table") == 0);
    CHECK(seprank_test::message_of([&] { (void)parse_table_text("{\"seprank_table_sweep\":\"" + sig + "\"}\n", false, "t"); })
              .find("t is a JSON lines table") == 0);
}

TEST_CASE("table files: a stack row's layers cell is a SPEC") {
    SweepOptions sw;
    sw.tokens = {2};
    sw.dims = {1};
    sw.layers = {"attention,mlp"};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(!plan.empty());
    Row row = table_row(plan[0], sw);
    const std::string head = csv_line(row_columns(row)) + "\n";
    CHECK(parse_table_text(head + csv_line(row) + "\n", false, "t").rows.size() == 1);
    row.set("layers", std::string("attention,bogus"));
    CHECK(seprank_test::message_of([&] { (void)parse_table_text(head + csv_line(row) + "\n", false, "t"); }).find("t line 2: column 'layers': unknown layer kind 'bogus'") ==
          0);
}

TEST_CASE("table --eps: ε columns agree with spectrum(), ε = 0 is the exact rank, the signature holds the ε list") {
    SweepOptions sw;
    sw.tokens = {2, 3};
    sw.dims = {1, 2};
    sw.depths = {1, 2};
    sw.eps = {0, 0.01, 0.3};
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 8);
    long degenerate = 0;  // rows whose seed network falls below the generic rank
    for (const auto& spec : plan) {
        CAPTURE(describe(spec));
        const Row row = table_row(spec, sw);
        for (const auto& c : table_eps_columns()) REQUIRE(row.contains(c));
        CHECK(row.at("eps").str() == "0 0.01 0.3");
        SpectrumOptions opt;
        opt.eps = sw.eps;
        const SpectrumResult ref = spectrum(random_network(spec, sw.generic.seed), balanced_partition(spec->tokens), opt);
        std::string ranks, cert;
        for (const auto& e : ref.eps_ranks) {
            ranks += (ranks.empty() ? "" : " ") +
                     (e.decided() ? std::to_string(e.rank_low) : std::to_string(e.rank_low) + ".." + std::to_string(e.rank_high));
            cert += (cert.empty() ? "" : " ") + std::string(e.certified ? "true" : "false");
        }
        CHECK(row.at("eps_ranks").str() == ranks);
        CHECK(row.at("eps_certified").str() == cert);
        // a seed network below the row's generic rank is named beside its ε-ranks
        const bool below = ref.rank < std::stol(row.at("rank").str());
        degenerate += below;
        CHECK(row.at("eps_reason").str().empty() == !below);
        if (below) CHECK(row.at("eps_reason").str().find("a degenerate draw") != std::string::npos);
        // ε = 0 is the exact separation rank of the seeded network, certified
        REQUIRE(ref.rank_certified);
        CHECK(ref.eps_ranks[0].certified);
        CHECK(ref.eps_ranks[0].rank_low == ref.rank);
        CHECK(ranks.substr(0, ranks.find(' ')) == std::to_string(ref.rank));
        // the CSV line has the ε cells and round-trips through the table file parser
        const std::string text = csv_header(true) + "\n" + csv_line(row) + "\n";
        const TableFile f = parse_table_text(text, false, "eps");
        REQUIRE(f.rows.size() == 1);
        CHECK(f.rows[0].at("eps_ranks").str() == ranks);
    }
    CHECK(degenerate >= 1);  // N = 2, dx = 1, L = 2 at seed 1: f is 0
    // without ε the columns and the signature are unchanged
    SweepOptions plain = sw;
    plain.eps.clear();
    const Row prow = table_row(plan[0], plain);
    CHECK_FALSE(prow.contains("eps_ranks"));
    CHECK(csv_header(false) == csv_header());
    CHECK(sweep_signature(plain).find("eps") == std::string::npos);
    // another ε list or measure is another sweep
    SweepOptions other = sw;
    other.eps = {0, 0.01};
    CHECK(sweep_signature(other) != sweep_signature(sw));
    CHECK(sweep_signature(plain) != sweep_signature(sw));
    other = sw;
    other.measure = Measure::gaussian;
    CHECK(sweep_signature(other) != sweep_signature(sw));
    // a flattening beyond spectrum's max_side: empty cells and a reason, no exception
    SweepOptions tiny = sw;
    tiny.eps_max_side = 1;
    const Row big = table_row(plan.back(), tiny);
    CHECK(big.at("eps_ranks").str().empty());
    CHECK(big.at("eps_certified").str().empty());
    CHECK_FALSE(big.at("eps_reason").str().empty());
    CHECK(big.at("status").str() == "ok");
    // a skipped row (size budget) keeps empty ε cells with the reason
    SweepOptions skip = sw;
    skip.max_variables = 1;
    const Row sk = table_row(plan[0], skip);
    CHECK(sk.at("status").str() == "skipped");
    CHECK(sk.at("eps_ranks").str().empty());
    CHECK(sk.at("eps_reason").str().find("skipped") != std::string::npos);
}

TEST_CASE("table --dimension: the columns are function_dimension with the sweep's seed, the rest of the row unchanged") {
    SweepOptions sw;
    sw.families = {Family::attention, Family::hadamard};
    sw.tokens = {2, 3};
    sw.dims = {1, 2};
    sw.heads = {1, 2};
    sw.depths = {1, 2};
    sw.generic.seed = 11;
    sw.dimension = true;
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 20);  // attention: dx = 1 has no H = 2
    SweepOptions plain = sw;
    plain.dimension = false;
    long defects = 0;
    for (const auto& spec : plan) {
        CAPTURE(describe(spec));
        const Row row = table_row(spec, sw);
        DimensionOptions o;
        o.seed = 11;
        o.threads = sw.generic.threads;
        const RankAnswer ref = function_dimension(spec, o);
        REQUIRE(row.contains("dimension"));
        CHECK(row.at("dimension").str() == std::to_string(ref.value));
        CHECK(row.at("dim_expected").str() == std::to_string(ref.expected));
        CHECK(row.at("dim_expected").str() == std::to_string(expected_dimension(spec, DimensionOutput::scalar).expected));
        // the defect flag says dimension < expected, read off the row's own cells
        const long dim = std::stol(row.at("dimension").str()), expected = std::stol(row.at("dim_expected").str());
        CHECK(row.at("dim_defect").str() == (dim < expected ? "true" : "false"));
        // and what the dimension is, as the answer labels it
        CHECK(row.at("dim_label").str() == ref.label());
        CHECK((row.at("dim_failure_bound").str() == "0") == (ref.kind == RankKind::exact));
        CHECK(dim <= fmpz_get_si(parameter_count(spec).get()));
        defects += dim < expected;
        // the dimension is extra: every other cell is the row without it
        const Row base = table_row(spec, plain);
        CHECK_FALSE(base.contains("dimension"));
        for (const auto& c : table_columns())
            if (c != "seconds" && c != "peak_mib") CHECK_MESSAGE(row.at(c).str() == base.at(c).str(), c);
        // CSV round trip through the table file parser, with and without ε columns
        const TableFile f = parse_table_text(csv_header(false, true) + "\n" + csv_line(row) + "\n", false, "dimension");
        REQUIRE(f.rows.size() == 1);
        CHECK(f.rows[0].at("dimension").str() == row.at("dimension").str());
        CHECK(row_columns(row) == table_columns(false, true));
    }
    // measured values: attention N=2 dx=2 L=2 reaches its expected 8 with one head, and
    // 12 with two heads (da = 1), where the last layer fills its space Q^2 ⊗ Sym²(Q^2)
    auto row_of = [&](long n, long dx, long h, long L) {
        for (const auto& spec : plan)
            if (spec->family == Family::attention && spec->tokens == n && spec->dim == dx && spec->heads == h && spec->depth == L)
                return table_row(spec, sw);
        FAIL("no such row");
        return Row();
    };
    const Row one = row_of(2, 2, 1, 2), two = row_of(2, 2, 2, 2);
    CHECK(one.at("dimension").str() == "8");
    CHECK(one.at("dim_expected").str() == "8");
    CHECK(one.at("dim_defect").str() == "false");
    CHECK(two.at("dimension").str() == "12");
    CHECK(two.at("dim_expected").str() == "12");
    CHECK(two.at("dim_defect").str() == "false");
    CHECK(defects == 0);  // plain attention with N >= 2 meets its count (docs/dimension.md)
    // the signature holds it, so a resumed file never mixes rows with and without it
    CHECK(sweep_signature(sw).find("dimension=1") != std::string::npos);
    CHECK(sweep_signature(plain).find("dimension") == std::string::npos);
    CHECK(sweep_signature(plain) != sweep_signature(sw));
    // a skipped row (size budget) still has its dimension: it does not depend on that budget
    SweepOptions skip = sw;
    skip.max_variables = 1;
    const Row sk = table_row(plan[0], skip);
    CHECK(sk.at("status").str() == "skipped");
    CHECK(sk.at("dimension").str() == table_row(plan[0], sw).at("dimension").str());
    // with ε too: ε columns first, then the dimension
    SweepOptions both = sw;
    both.eps = {0};
    const Row be = table_row(plan[0], both);
    CHECK(row_columns(be) == table_columns(true, true));
    const TableFile fb = parse_table_text(csv_header(true, true) + "\n" + csv_line(be) + "\n", false, "both");
    REQUIRE(fb.rows.size() == 1);
}

TEST_CASE("table --layers: SPEC lists, the layers column, keys, signatures and files") {
    CHECK(split_layers_list("attention") == std::vector<std::string>{"attention"});
    CHECK(split_layers_list("attention;attention,mlp:power=3") == std::vector<std::string>{"attention", "attention,mlp:power=3"});
    for (const char* bad : {"", ";attention", "attention;", "attention;;attention"})
        CHECK(throws_with<invalid_input>([&] { (void)split_layers_list(bad); }, "is empty"));

    // layers_period: the shortest list whose repetition is the stack
    const auto two = parse_layers("attention,mlp:power=3");
    std::vector<LayerSpec> four = two;
    four.insert(four.end(), two.begin(), two.end());
    CHECK(layers_period(four) == two);
    CHECK(layers_period(two) == two);
    CHECK(layers_period({}).empty());
    CHECK(layers_period(parse_layers("attention,attention,attention")) == parse_layers("attention"));
    // repeat_layers, its inverse: copies of the list, none below 0 or past kMaxDepth layers
    CHECK(repeat_layers(two, 2) == std::optional<std::vector<LayerSpec>>(four));
    CHECK(layers_period(*repeat_layers(two, 5)) == two);
    CHECK(repeat_layers(two, 0) == std::optional<std::vector<LayerSpec>>(std::vector<LayerSpec>{}));
    CHECK(repeat_layers(two, kMaxDepth / 2)->size() == static_cast<std::size_t>(kMaxDepth));
    CHECK_FALSE(repeat_layers(two, kMaxDepth / 2 + 1).has_value());
    CHECK_FALSE(repeat_layers(two, -1).has_value());
    CHECK_FALSE(repeat_layers(two, LONG_MAX).has_value());

    SweepOptions sw;
    sw.families = {family_from_string("stack")};
    sw.layers = {"attention", "attention,attention", "attention,mlp:power=2"};
    sw.tokens = {2};
    sw.dims = {2};
    sw.depths = {1, 2};
    sw.block_degrees = {2, 3};  // a stack reads no block degree: no duplicate rows
    const SweepPlan plan = plan_sweep(sw);
    // 3 SPECs x 2 depths, SPECs outermost, less one: attention,attention at L = 1 is
    // attention at L = 2, the same network and row key, planned once
    REQUIRE(plan.configs.size() == 5);
    CHECK(plan.invalid == 0);
    CHECK(plan.duplicates == 1);
    const std::vector<long> depths = {1, 2, 4, 2, 4};  // depth: the number of layers, L copies of the SPEC
    std::vector<Row> rows;
    for (std::size_t k = 0; k < plan.configs.size(); ++k) {
        CHECK(plan.configs[k]->depth == depths[k]);
        rows.push_back(table_row(plan.configs[k], sw));
        CHECK(rows[k].names() == table_columns(false, false, true));
        CHECK(row_key(rows[k]) == row_key(plan.configs[k], sw));
    }
    CHECK(table_columns(false, false, true)[1] == "layers");
    CHECK(rows[0].at("layers").str() == "attention");
    CHECK(rows[2].at("layers").str() == "attention");  // attention,attention at L = 2: attention x 4, canonical
    CHECK(rows[3].at("layers").str() == layers_to_string(parse_layers("attention,mlp:power=2")));  // canonical: power 2 is the default
    CHECK(row_key(rows[3]) != row_key(rows[0]));
    std::set<std::string> keys;
    for (const auto& r : rows) keys.insert(row_key(r));
    CHECK(keys.size() == 5);

    // A one-layer attention stack is the attention family: same rank; attention rows have an empty layers cell.
    SweepOptions mixed = sw;
    mixed.families = {Family::attention, family_from_string("stack")};
    mixed.layers = {"attention"};
    mixed.depths = {1};
    const SweepPlan mp = plan_sweep(mixed);
    REQUIRE(mp.configs.size() == 2);
    const Row att = table_row(mp.configs[0], mixed), st = table_row(mp.configs[1], mixed);
    CHECK(att.at("layers").str().empty());
    CHECK(st.at("layers").str() == "attention");
    CHECK(att.at("rank").str() == st.at("rank").str());
    CHECK(row_key(att) != row_key(st));

    // Signatures: the column is marked; the SPECs themselves live in the keys (a resumed sweep may add SPECs).
    SweepOptions plain = sw;
    plain.layers.clear();
    plain.families = {Family::attention};
    CHECK(sweep_signature(sw) != sweep_signature(plain));
    CHECK(sweep_signature(sw).find("layers=1") != std::string::npos);
    CHECK(sweep_signature(plain).find("layers") == std::string::npos);
    SweepOptions more = sw;
    more.layers.push_back("mlp:power=3");
    CHECK(sweep_signature(more) == sweep_signature(sw));

    // Files: CSV and JSON lines read the column back; an older header (no layers) still reads.
    for (bool json : {false, true}) {
        const std::string path = json ? "test_table_layers.jsonl" : "test_table_layers.csv";
        std::remove(path.c_str());
        {
            TableAppender out(path, json, sweep_signature(sw), false);
            for (std::size_t k = 0; k < 3; ++k) out.append(rows[k]);
        }
        {
            TableAppender again(path, json, sweep_signature(more), true);  // more SPECs: the same sweep line
            REQUIRE(again.rows().size() == 3);
            for (std::size_t k = 0; k < 3; ++k) {
                CHECK(again.rows()[k].at("layers").str() == rows[k].at("layers").str());
                CHECK(row_key(again.rows()[k]) == row_key(plan.configs[k], more));
            }
        }
        CHECK(throws_with<invalid_input>([&] { TableAppender t(path, json, sweep_signature(plain), true); }, "different sweep"));
        std::remove(path.c_str());
    }
    const SweepPlan pp = plan_sweep(plain);
    const Row old = table_row(pp.configs[0], plain);
    const TableFile f = parse_table_text(csv_header() + "\n" + csv_line(old) + "\n", false, "old");
    REQUIRE(f.rows.size() == 1);
    CHECK(!f.rows[0].contains("layers"));
    CHECK(row_key(f.rows[0]) == row_key(pp.configs[0], plain));
}

TEST_CASE("a family that no configuration of the sweep accepts is one invalid_input naming it; one some accept is counted") {
    SweepOptions sw;
    sw.families = {Family::attention, Family::hadamard};
    sw.tokens = {2};
    sw.dims = {2, 3};
    sw.depths = {1};
    sw.heads = {2};  // divides dx = 2, not dx = 3: attention is left out at dx = 3 only
    const SweepPlan p = plan_sweep(sw);
    CHECK(p.invalid == 1);
    CHECK(p.configs.size() == 3);
    sw.dims = {3};  // no dx that H = 2 divides: attention has no row
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "family attention is valid in no configuration of the sweep: heads H = 2"));
    sw.families = {family_from_string("power")};  // a sweep gives no widths d1..dh
    sw.dims = {2};
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "family power is valid in no configuration"));
}

TEST_CASE("table --layers: a bad SPEC is one invalid_input naming it; a SPEC invalid only at some sizes is counted") {
    SweepOptions sw;
    sw.families = {family_from_string("stack")};
    sw.tokens = {2};
    sw.dims = {2, 3};
    sw.layers = {"attention", "nosuchkind"};
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "'nosuchkind'"));
    sw.layers = {"attention", "mlp:power=0"};
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "layers SPEC 'mlp:power=0'"));
    sw.layers = {"attention"};
    sw.residual = {true};  // parses, but no configuration accepts it: a stack's residuals are per layer
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "layers SPEC 'attention' is valid in no configuration"));
    sw.residual = {false};
    sw.layers = {"attention:heads=2"};  // H = 2 divides dx = 2, not dx = 3
    const SweepPlan p = plan_sweep(sw);
    CHECK(p.configs.size() == 1);
    CHECK(p.invalid == 1);
    sw.layers.clear();
    CHECK(throws_with<invalid_input>([&] { (void)plan_sweep(sw); }, "needs its layers"));
    // SPECs given to a sweep without stacks are still checked
    SweepOptions att;
    att.layers = {"attention:bogus=1"};
    CHECK_THROWS_AS((void)plan_sweep(att), invalid_input);
    // A budget buys copies of the SPEC: ⌊B / parameters of one copy⌋
    SweepOptions b;
    b.families = {family_from_string("stack")};
    b.layers = {"attention,mlp:power=2"};
    b.tokens = {2};
    b.dims = {2};
    b.budget = 100;
    NetworkSpec one;
    one.family = family_from_string("stack");
    one.tokens = 2;
    one.dim = 2;
    one.layers = parse_layers(b.layers[0]);
    one.depth = 2;
    const long per = fmpz_get_si(parameter_count(ValidSpec(one)).get());
    const SweepPlan bp = plan_sweep(b);
    REQUIRE(bp.configs.size() == 1);
    CHECK(bp.configs[0]->depth == 2 * (100 / per));
}

TEST_CASE("table --variety: the image's degree and gauge fibre, as network_variety gives them; a row over its limits empty with the reason") {
    SweepOptions sw;
    sw.families = {Family::stack};
    sw.layers = {"conv,conv:power=1", "dense:width=2:power=2,dense:width=1:power=1"};
    sw.tokens = {2, 3};
    sw.dims = {1, 2};
    sw.depths = {1};
    sw.generic.seed = seprank_test::seed();
    sw.variety = true;
    INFO("seed " << sw.generic.seed);
    const auto plan = plan_sweep(sw).configs;
    REQUIRE(plan.size() == 6);  // conv (2,2) needs 3 tokens
    SweepOptions plain = sw;
    plain.variety = false;
    long filled = 0, empty = 0;
    for (const auto& spec : plan) {
        CAPTURE(describe(spec));
        const Row row = table_row(spec, sw);
        REQUIRE(row.contains("variety_degree"));
        VarietyOptions o;
        o.seed = sw.generic.seed;
        long degree = -1, fibre = -1, at_least = -1, at_most = -1;
        try {
            const VarietyAnswer v = network_variety(spec, o);
            if (v.agreed) degree = v.degree, fibre = v.gauge_fibre_points;
            at_least = v.degree_at_least;
            at_most = v.degree_at_most;
        } catch (const resource_limit&) {
        }
        CHECK(row.at("variety_degree").str() == (degree >= 0 ? std::to_string(degree) : ""));
        CHECK(row.at("variety_degree_at_least").str() == (at_least >= 0 ? std::to_string(at_least) : ""));
        CHECK(row.at("variety_degree_at_most").str() == (at_most >= 0 ? std::to_string(at_most) : ""));
        if (degree >= 0) CHECK(at_least == degree);  // small networks: every trial certifies its section
        if (degree >= 0) CHECK(at_most >= degree);
        CHECK(row.at("gauge_fibre").str() == (fibre >= 0 ? std::to_string(fibre) : ""));
        if (degree < 0) CHECK(row.at("reason").str().find("variety: ") != std::string::npos);
        (degree >= 0 ? filled : empty) += 1;
        // the columns are extra: every other cell is the row without them
        const Row base = table_row(spec, plain);
        CHECK_FALSE(base.contains("variety_degree"));
        for (const auto& c : table_columns(false, false, true, false))
            if (c != "seconds" && c != "peak_mib" && c != "reason") CHECK_MESSAGE(row.at(c).str() == base.at(c).str(), c);
        // the CSV header with the group is a table file's
        CHECK(row_columns(row) == table_columns(false, false, true, false, true));
        const TableFile f = parse_table_text(csv_line(table_columns(false, false, true, false, true)) + "\n" + csv_line(row) + "\n", false, "variety");
        REQUIRE(f.rows.size() == 1);
        CHECK(f.rows[0].at("variety_degree").str() == row.at("variety_degree").str());
        CHECK(f.rows[0].at("variety_degree_at_least").str() == row.at("variety_degree_at_least").str());
        // a resumed row's variety cells are checked: counts, and the bound not above the degree
        const std::string head = csv_line(table_columns(false, false, true, false, true)) + "\n";
        for (const std::string& bad : {std::string("x"), std::string("-1"), std::string("4.5")}) {
            Row edited = row;
            edited.set("gauge_fibre", bad);
            CHECK_THROWS_AS(parse_table_text(head + csv_line(edited) + "\n", false, "variety"), invalid_input);
        }
        if (degree >= 0) {
            Row above = row;
            above.set("variety_degree_at_least", degree + 1);
            CHECK_THROWS_AS(parse_table_text(head + csv_line(above) + "\n", false, "variety"), invalid_input);
            Row below = row;  // the upper bound not below the degree
            below.set("variety_degree_at_most", degree - 1);
            CHECK_THROWS_AS(parse_table_text(head + csv_line(below) + "\n", false, "variety"), invalid_input);
        }
    }
    CHECK(filled >= 3);  // the quadratic networks in 2, 3 and 4 variables
    CHECK(empty >= 1);   // 6 variables: dimension 11 > 8 unknowns
    CHECK(sweep_signature(sw).find(" variety=1") != std::string::npos);
    CHECK(sweep_signature(plain).find("variety") == std::string::npos);
}

TEST_CASE("table_column_meanings: every column a row can have, in CSV order, each with a meaning") {
    auto all = table_columns(true, true, true, true, true);
    for (const char* c : {"block", "blocks", "cap_a", "cap_b", "at_cap", "total"}) all.emplace_back(c);  // table --blocks adds these
    const auto meanings = table_column_meanings();
    REQUIRE(meanings.size() == all.size());
    std::set<std::string> names;
    for (std::size_t k = 0; k < all.size(); ++k) {
        CHECK(meanings[k].name == all[k]);
        CHECK_FALSE(meanings[k].help.empty());
        names.insert(meanings[k].name);
    }
    CHECK(names.size() == all.size());  // no column twice
    // Every column of the base table is among them, and the ε columns too.
    for (const auto& c : table_columns()) CHECK(names.count(c) == 1);
    for (const auto& c : table_eps_columns()) CHECK(names.count(c) == 1);
    // The registry's ε columns are null off a RowSource: the table fills them.
    const Record r = make_record(RowSource{}, table_eps_columns());
    for (const auto& cell : r) CHECK(cell.second.is_null());
}
