#include "seprank/separation.hpp"

#include "base/process.hpp"
#include "base/saturating.hpp"
#include "algebra/rank_internal.hpp"
#include "seprank/error.hpp"
#include "seprank/evaluation.hpp"
#include "seprank/flatten.hpp"
#include "seprank/limits.hpp"

#include <chrono>
#include <climits>
#include <optional>

namespace seprank {

std::string to_string(Method m) {
    switch (m) {
        case Method::flattening: return "flattening";
        case Method::grid: return "grid";
        case Method::evaluation: return "evaluation";
    }
    throw internal_error("to_string(Method): unknown value " + std::to_string(static_cast<int>(m)));
}

Method method_from_string(const std::string& s) {
    if (s == "flattening") return Method::flattening;
    if (s == "grid") return Method::grid;
    if (s == "evaluation") return Method::evaluation;
    throw invalid_input("unknown method '" + s + "' (expected flattening, grid or evaluation)");
}

void check_options(const SeparationOptions& opt) {
    if (opt.templates < 1) throw invalid_input("number of templates M = " + std::to_string(opt.templates) + " must be at least 1");
    check_options(opt.evaluation);
    // Checked whatever the method (the evaluation and grid methods never expand f); 0: the default.
    if (opt.expand.max_memory != 0) check_memory_value(opt.expand.max_memory, "ExpandOptions::max_memory");
    check_options(opt.rank);  // rank.hpp: threads, budgets, certificate, device
}

namespace {

RankOptions rank_options(const SeparationOptions& opt) {
    RankOptions ro = opt.rank;
    ro.certify = opt.certify;
    ro.seed = opt.seed;
    return ro;
}

// The rank engine's answer about a matrix, restated as an answer about f.
RankAnswer about_f(RankAnswer r, const char* method, const char* quantity, const Partition& part) {
    r.method = method;
    r.quantity = quantity;
    r.partition = to_string(part);
    r.note = r.variant + ": " + r.note;
    return r;
}

double lap(std::chrono::steady_clock::time_point& t) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
}

RankAnswer flattening_answer(const QPoly& f, const ValidPartition& part, long n_tokens, const SeparationOptions& opt) {
    auto t = std::chrono::steady_clock::now();
    const SparseZMat c = flatten(f, part, n_tokens);
    const double matrix = lap(t);
    if (opt.on_matrix) opt.on_matrix(c);
    RankAnswer r = about_f(rank_certified(c, rank_options(opt)), "flattening", "sep", part);
    r.phases.matrix = matrix;
    r.degree = std::to_string(f.degree());
    r.terms = static_cast<long>(f.terms());
    return r;
}

RankAnswer timed(RankAnswer r, std::chrono::steady_clock::time_point t0) {
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.peak_mib = peak_rss_mib();
    return r;
}

}  // namespace

RankAnswer separation_rank(const QPoly& f, const ValidPartition& part, long n_tokens, const SeparationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    check_options(opt);
    if (opt.method != Method::flattening)
        throw invalid_input("method " + to_string(opt.method) + ": a polynomial is ranked by the flattening method only");
    return timed(flattening_answer(f, part, n_tokens, opt), t0);
}

RankAnswer separation_rank(const Network& net, const ValidPartition& part, const SeparationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    check_options(opt);
    part.check_tokens(net.spec.tokens);
    // The flattening and grid ranks may use the device (field p; over Q, the Hadamard
    // reference, docs/gpu.md): cuda where there is none is refused here, before the expansion
    // or the grid (the evaluation refuses it in its own set-up).
    if (opt.method != Method::evaluation) (void)choose_device(opt.rank.device);
    // The degree-block caps bound sep(f) at every weights (evaluation.hpp). Counted once,
    // when first asked for: cost O(N·D²), D = d^L, within degree_block_caps' limit (2^31
    // steps), else empty.
    std::optional<std::vector<long>> caps_memo;
    const auto caps = [&]() -> const std::vector<long>& {
        if (!caps_memo) caps_memo = degree_block_caps(net.spec, part);
        return *caps_memo;
    };
    RankAnswer r;
    switch (opt.method) {
        case Method::flattening: {
            auto t = std::chrono::steady_clock::now();
            if (opt.certify) {
                const QPoly f = expand(net, opt.expand);
                const double expand_s = lap(t);
                r = flattening_answer(f, part, net.spec.tokens, opt);
                r.phases.expand = expand_s;
                break;
            }
            // Field p: expand over Z/p directly (no big integers), one modular rank, on the
            // device asked for (the GPU ranks a dense copy).
            const DeviceChoice dev = choose_device(opt.rank.device);
            const std::uint64_t p = modular_prime(rank_options(opt));
            const NmodPoly f = expand_mod(net, p, opt.expand);
            r.phases.expand = lap(t);
            const SparseNmodMat c = flatten(f, part, net.spec.tokens);
            r.phases.matrix = lap(t);
            r.method = "flattening";
            r.quantity = "sep";
            r.partition = to_string(part);
            r.terms = static_cast<long>(f.terms());
            double device_s = 0;
            r.value = dev.device == Device::cuda ? rank_modular_cuda(c, &device_s) : rank_sparse_modular(c);
            r.device = dev.name;
            r.phases.rank = lap(t);
            r.kind = RankKind::modular_lower_bound;
            r.failure_bound = 1;
            r.variant = "modular-sparse";
            r.rows = c.rows;
            r.cols = c.cols;
            r.field = "Z/p";
            r.prime = p;
            r.primes_used = 1;
            // failure_bound stays 1 (no bound): f was expanded over Z/p, so its coefficients
            // over Q, and with them a Hadamard bound on the minors, are never known.
            r.note = "flattening of f mod p " + std::to_string(p) + " (f expanded over Z/p): rank mod p <= sep; "
                     "failure_bound 1 states no bound, since the coefficients over Q (a Hadamard bound) are never computed: "
                     "--field Q certifies";
            // A rank mod p that reaches the flattening's cap is sep itself: rank mod p <= sep
            // <= the cap at every weights (Model::flattening_cap: the sum of the degree-block
            // caps for a homogeneous network, the smaller side's monomials of degree 0..D for
            // a residual one). The caps' sum where they are counted (the memo, read again
            // below), else the cap of a residual network. Cost O(N·D²), as the caps.
            if (const long cap = caps().empty() ? flattening_cap(net.spec, part) : detail::saturated_sum(caps());
                cap >= 0 && cap < LONG_MAX / 4 && r.value == cap) {
                r.kind = RankKind::exact;
                r.failure_bound = 0;
                r.note = "flattening of f mod p " + std::to_string(p) + " (f expanded over Z/p): rank mod p <= sep <= " +
                         (caps().empty() ? std::string("the flattening's cap (the monomials of degree 0..D its smaller side can have)")
                                         : std::string("the sum of the degree-block caps (their numbers of monomials)")) +
                         ", which it reaches: exact";
            }
            if (dev.device == Device::cuda) r.note += "; ranked on the GPU (" + detail::device_time(device_s) + ")";
            if (!dev.note.empty()) r.note += "; " + dev.note;
            break;
        }
        case Method::grid: {
            // the tensor's size before any template is drawn (10^8 of them took 7 GB first)
            (void)grid_shape(opt.template_vectors.empty() ? opt.templates : static_cast<long>(opt.template_vectors.size()), part);
            const Templates t = opt.template_vectors.empty()
                                    ? random_templates(opt.templates, input_vars_per_token(net.spec), opt.seed)
                                    : opt.template_vectors;
            auto tg = std::chrono::steady_clock::now();
            const SparseZMat g = grid_matricization(net, part, t);
            const double matrix = lap(tg);
            if (opt.on_matrix) opt.on_matrix(g);
            r = about_f(rank_certified(g, rank_options(opt)), "grid", "grid", part);
            r.phases.matrix = matrix;
            r.note = "M = " + std::to_string(t.size()) + " templates; " + r.note;
            // A grid whose rank is its smaller side says nothing about sep beyond that side:
            // more templates can only raise it (a new user's trial read M = 2's 2 as the bound).
            if (r.value > 0 && r.value == std::min(r.rows, r.cols))
                r.note += "; the grid is full (its rank is its smaller side, " + std::to_string(r.value) +
                          "): sep may be larger, and more templates (--templates M) can raise this bound";
            break;
        }
        case Method::evaluation: {
            EvaluationOptions eo = opt.evaluation;
            eo.seed = opt.seed;
            r = evaluation_rank(net, part, eo);
            break;
        }
    }
    r.degree = output_degree(net.spec).str();
    // A rank of f at these weights below Σ cap_a says these weights may not be generic:
    // the answer says so (issue 38).
    if (opt.method != Method::grid) {
        const long cap_sum = detail::saturated_sum(caps());
        // (not for an evaluation stopped before it converged: its rank is only a lower bound)
        const bool settled = opt.method != Method::evaluation || r.converged;
        if (settled && !caps().empty() && cap_sum < LONG_MAX / 4 && r.value < cap_sum)
            r.note += (r.note.empty() ? "" : "; ") + std::string("rank ") + std::to_string(r.value) +
                      " is below the sum of the degree-block caps, " + std::to_string(cap_sum) +
                      " (a bound at every weights): these weights may not be generic, or the generic rank is below the caps "
                      "too; seprank generic gives the generic rank";
    }
    return timed(std::move(r), t0);
}

}  // namespace seprank
