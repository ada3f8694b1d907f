#include "seprank/separation.hpp"

#include "seprank/error.hpp"
#include "seprank/flatten.hpp"

#include <chrono>

namespace seprank {

std::string to_string(Method m) {
    switch (m) {
        case Method::flattening: return "flattening";
        case Method::grid: return "grid";
        case Method::evaluation: return "evaluation";
    }
    return "?";
}

Method method_from_string(const std::string& s) {
    if (s == "flattening") return Method::flattening;
    if (s == "grid") return Method::grid;
    if (s == "evaluation") return Method::evaluation;
    throw invalid_input("unknown method '" + s + "' (expected flattening, grid or evaluation)");
}

namespace {

void fill_from_rank(SeparationReport& r, const RankResult& rr) {
    r.rank = rr.rank;
    r.rows = rr.rows;
    r.cols = rr.cols;
    r.certified = rr.certified;
    r.label = rr.label();
    r.field = rr.field;
    r.prime = rr.prime;
    r.failure_bound = rr.failure_bound;
    r.note = rr.method + ": " + rr.note;
}

RankOptions rank_options(const SeparationOptions& opt) {
    RankOptions ro = opt.rank;
    ro.certify = opt.certify;
    ro.seed = opt.seed;
    return ro;
}

SeparationReport flattening_report(const QPoly& f, const Partition& part, long n_tokens, const SeparationOptions& opt) {
    SeparationReport r;
    r.method = "flattening";
    r.partition = to_string(part);
    r.degree = std::to_string(f.degree());
    r.terms = static_cast<long>(f.terms());
    const SparseZMat c = flatten(f, part, n_tokens);
    if (opt.on_matrix) opt.on_matrix(c);
    fill_from_rank(r, rank_certified(c, rank_options(opt)));
    r.bound_kind = r.certified ? "sep" : "lower bound of sep";
    return r;
}

}  // namespace

SeparationReport separation_rank(const QPoly& f, const Partition& part, long n_tokens, const SeparationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    if (opt.method != Method::flattening)
        throw invalid_input("a polynomial given as text is ranked by --method flattening only");
    SeparationReport r = flattening_report(f, part, n_tokens, opt);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

SeparationReport separation_rank(const Network& net, const Partition& part, const SeparationOptions& opt) {
    const auto t0 = std::chrono::steady_clock::now();
    validate(part, net.spec.tokens);
    SeparationReport r;
    switch (opt.method) {
        case Method::flattening: {
            if (opt.certify) {
                const QPoly f = expand(net, opt.expand);
                r = flattening_report(f, part, net.spec.tokens, opt);
                break;
            }
            // Field p: expand over Z/p directly (no big integers), one modular rank.
            const std::uint64_t p = modular_prime(rank_options(opt));
            const NmodPoly f = expand_mod(net, p, opt.expand);
            const SparseNmodMat c = flatten(f, part, net.spec.tokens);
            r.method = "flattening";
            r.partition = to_string(part);
            r.terms = static_cast<long>(f.terms());
            r.rank = rank_sparse_modular(c);
            r.rows = c.rows;
            r.cols = c.cols;
            r.field = "Z/p";
            r.prime = p;
            r.label = "lower bound";
            r.bound_kind = "lower bound of sep";
            r.note = "flattening of f mod p " + std::to_string(p) + " (f expanded over Z/p): rank mod p <= sep";
            break;
        }
        case Method::grid: {
            const Templates t = opt.template_vectors.empty()
                                    ? random_templates(opt.templates, input_vars_per_token(net.spec), opt.seed)
                                    : opt.template_vectors;
            r.method = "grid";
            r.partition = to_string(part);
            const SparseZMat g = grid_matricization(net, part, t);
            if (opt.on_matrix) opt.on_matrix(g);
            fill_from_rank(r, rank_certified(g, rank_options(opt)));
            r.bound_kind = "lower bound of sep";
            r.note = "M = " + std::to_string(t.size()) + " templates; " + r.note;
            break;
        }
        case Method::evaluation: {
            EvaluationOptions eo = opt.evaluation;
            eo.seed = opt.seed;
            const EvaluationResult e = evaluation_rank(net, part, eo);
            r.method = "evaluation";
            r.partition = to_string(part);
            r.rank = e.rank;
            r.rows = r.cols = e.side;
            r.certified = false;
            r.field = "Z/p";
            r.prime = e.prime;
            r.converged = e.converged;
            r.variant = e.variant;
            r.failure_bound = e.converged ? e.failure_bound : 1.0;
            r.label = "lower bound";
            r.bound_kind = "lower bound of sep";
            r.note = std::to_string(e.evaluations) + " evaluations mod p; " +
                     (e.variant == "graded" ? "graded: sep = sum of the ranks of the " + std::to_string(e.block_ranks.size()) +
                                                  " degree blocks (largest side " + std::to_string(e.max_block_side) + "); "
                                            : std::string()) +
                     (e.converged ? "rank stopped growing below the side; equals sep except with probability <= failure_bound"
                                  : "rank still full at the size limit: a lower bound only");
            break;
        }
    }
    r.degree = output_degree(net.spec).str();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace seprank
