// Cooperative cancellation (cancel.hpp): a scope's check stops the long calls with
// `cancelled`, a check that never fires changes no answer, scopes nest and stay per
// thread, worker threads inherit them.
#include "seprank/cancel.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/generic.hpp"
#include "seprank/rank.hpp"
#include "seprank/table.hpp"
#include "support.hpp"

#include <atomic>
#include <doctest/doctest.h>
#include <thread>

using namespace seprank;

TEST_CASE("cancel: no scope, and a scope that never fires, change nothing") {
    CHECK_FALSE(cancel_requested());
    CHECK(current_cancel() == nullptr);
    Rng rng = seprank_test::rng_for("cancel-neutral");
    for (int it = 0; it < seprank_test::iterations(6); ++it) {
        const NetworkSpec s = seprank_test::attention_spec(2 + static_cast<long>(rng.below(2)), 1 + static_cast<long>(rng.below(2)), 1 + static_cast<long>(rng.below(2)));
        const Network net = random_network(s, rng.next());
        const Partition part = balanced_partition(s.tokens);
        EvaluationOptions eo;
        eo.seed = rng.next();
        eo.variant = rng.below(2) ? EvaluationVariant::plain : EvaluationVariant::automatic;
        const RankAnswer plain = evaluation_rank(net, part, eo);
        long calls = 0;
        CancelScope scope([&] { ++calls; return false; }, 0);
        const RankAnswer polled = evaluation_rank(net, part, eo);
        CHECK_MESSAGE(polled.value == plain.value, "seed " << seprank_test::seed());
        CHECK(polled.evaluations == plain.evaluations);
        CHECK(calls > 0);
        CHECK_FALSE(cancel_requested());
    }
}

TEST_CASE("cancel: evaluation, generic and table stop with cancelled") {
    // attention N=2, dx=3, L=3 has rank 560: the evaluation grows k through many steps.
    const Network net = random_network(seprank_test::attention_spec(2, 3, 3), 5);
    const Partition part = balanced_partition(2);
    for (int threads : {1, 2}) {
        for (auto variant : {EvaluationVariant::plain, EvaluationVariant::graded}) {
            long calls = 0;
            CancelScope scope([&] { return ++calls >= 3; }, 0);
            EvaluationOptions eo;
            eo.threads = threads;
            eo.variant = variant;
            CHECK_THROWS_AS(evaluation_rank(net, part, eo), cancelled);
            CHECK(calls >= 3);
            CHECK(cancel_requested());  // stays set for the scope's lifetime
        }
    }
    {
        CancelScope scope([] { return true; }, 0);
        GenericOptions g;
        g.trials = 3;
        CHECK_THROWS_AS(generic_rank(seprank_test::attention_spec(3, 2, 1), balanced_partition(3), g), cancelled);
        SweepOptions sw;
        sw.tokens = {2, 3};
        const SweepPlan plan = plan_sweep(sw);
        std::vector<PlannedRow> rows;
        for (const auto& c : plan.configs) rows.push_back({c, sw});
        long emitted = 0;
        CHECK_THROWS_AS(run_table(rows, {}, [&](const Row&, bool) { ++emitted; }, nullptr), cancelled);
        CHECK(emitted == 0);
    }
    CHECK_FALSE(cancel_requested());  // the scope ended
}

TEST_CASE("cancel: the certificate rounds of rank_certified") {
    // A rank-deficient integer matrix (rank 30 of 40×40) needs the multimodular certificate.
    Rng rng = seprank_test::rng_for("cancel-rank");
    ZMat a(40, 40);
    ZMat b(40, 30), c(30, 40);
    for (long i = 0; i < 40; ++i)
        for (long j = 0; j < 30; ++j) {
            fmpz_set_si(fmpz_mat_entry(b.get(), i, j), rng.range(-9, 9));
            fmpz_set_si(fmpz_mat_entry(c.get(), j, i), rng.range(-9, 9));
        }
    fmpz_mat_mul(a.get(), b.get(), c.get());
    RankOptions ro;
    ro.fraction_free_max = 0;  // no Bareiss fallback: the certificate loop runs
    const RankAnswer full = rank_certified(a, ro);
    CHECK(full.value == fmpz_mat_rank(a.get()));
    CancelScope scope([] { return true; }, 0);
    CHECK_THROWS_AS(rank_certified(a, ro), cancelled);  // blocks (the default)
    ro.certificate = Certificate::pivot_span;
    CHECK_THROWS_AS(rank_certified(a, ro), cancelled);
    ro.certificate = Certificate::hadamard;
    CHECK_THROWS_AS(rank_certified(a, ro), cancelled);  // the reference certificate
}

TEST_CASE("cancel: a check that throws counts as cancel; scopes nest and are per thread") {
    {
        CancelScope outer([] { return false; }, 0);
        {
            CancelScope inner([]() -> bool { throw std::runtime_error("boom"); }, 0);
            CHECK(cancel_requested());
            CHECK_THROWS_AS(throw_if_cancelled(), cancelled);
        }
        CHECK_FALSE(cancel_requested());  // the outer scope is back
        // Another thread does not see this thread's scope unless it adopts it.
        std::atomic<int> seen{-1}, adopted{-1};
        CancelScope firing([] { return true; }, 0);
        CHECK(cancel_requested());
        const CancelHandle h = current_cancel();
        std::thread([&] {
            seen = cancel_requested() ? 1 : 0;
            CancelScope inherit(h);
            adopted = cancel_requested() ? 1 : 0;  // the owner's flag, set above
        }).join();
        CHECK(seen == 0);
        CHECK(adopted == 1);
    }
    CHECK(current_cancel() == nullptr);
}

TEST_CASE("cancel: the check runs at most once per interval") {
    long calls = 0;
    CancelScope scope([&] { ++calls; return false; }, 3600);
    for (int i = 0; i < 1000; ++i) CHECK_FALSE(cancel_requested());
    CHECK(calls == 1);
}
