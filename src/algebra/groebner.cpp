// seprank — solutions of a polynomial system mod p, from MathicGB's Gröbner basis
// (groebner.hpp).
#include "groebner.hpp"

#include "seprank/error.hpp"

#include <mathicgb.h>

#include <algorithm>
#include <numeric>
#include <mutex>
#include <exception>
#include <string>

namespace seprank::algebra_detail {

namespace {

// a > b in weighted reverse lex (x_1 > … > x_n, weights w > 0): the larger weighted
// degree Σ w_i a_i; on a tie, the smaller exponent in the last variable where they differ.
// All weights 1: graded reverse lex.
bool weighted_greater(const std::vector<int>& a, const std::vector<int>& b, const std::vector<long>& w) {
    long da = 0, db = 0;
    for (std::size_t i = 0; i < a.size(); ++i) da += w[i] * a[i];
    for (std::size_t i = 0; i < b.size(); ++i) db += w[i] * b[i];
    if (da != db) return da > db;
    for (std::size_t i = a.size(); i-- > 0;)
        if (a[i] != b[i]) return a[i] < b[i];
    return false;
}

// MathicGB's output stream: keeps each basis polynomial, its terms sorted descending in
// the order (leading term first), zero coefficients dropped.
struct BasisStream {
    using Coefficient = mgb::GroebnerConfiguration::Coefficient;
    using VarIndex = mgb::GroebnerConfiguration::VarIndex;
    using Exponent = mgb::GroebnerConfiguration::Exponent;
    using Component = mgb::GroebnerConfiguration::Component;
    Coefficient p;
    VarIndex n;
    std::vector<long> w;  // the order's weights
    std::vector<ModPoly> polys;
    ModPoly poly;
    ModTerm term;

    Coefficient modulus() const { return p; }
    VarIndex varCount() const { return n; }
    Component comCount() const { return 1; }
    void idealBegin(std::size_t) {}
    void appendPolynomialBegin(std::size_t) { poly.clear(); }
    void appendTermBegin(Component) { term.e.assign(n, 0); }
    void appendExponent(VarIndex i, Exponent e) { term.e[i] = static_cast<int>(e); }
    void appendTermDone(Coefficient c) {
        if (c == 0) return;
        term.c = c;
        poly.push_back(term);
    }
    void appendPolynomialDone() {
        if (poly.empty()) return;
        std::sort(poly.begin(), poly.end(), [&](const ModTerm& a, const ModTerm& b) { return weighted_greater(a.e, b.e, w); });
        polys.push_back(std::move(poly));
        poly.clear();
    }
    void idealDone() {}
};

// The weights of `order` (groebner.hpp): all 1 for grevlex; for weighted, L / d_i with d_i
// the largest exponent of x_i in the system (at least 1) and L their lcm, unless L passes
// 2^16 (then all 1).
std::vector<long> order_weights(const std::vector<ModPoly>& polys, long n, GroebnerOrder order) {
    std::vector<long> w(static_cast<std::size_t>(n), 1);
    if (order == GroebnerOrder::grevlex) return w;
    std::vector<long> d(static_cast<std::size_t>(n), 1);
    for (const ModPoly& f : polys)
        for (const ModTerm& t : f)
            if (t.c != 0)
                for (long i = 0; i < n; ++i) d[static_cast<std::size_t>(i)] = std::max<long>(d[static_cast<std::size_t>(i)], t.e[static_cast<std::size_t>(i)]);
    long L = 1;
    for (long x : d) {
        L = std::lcm(L, x);
        if (L > 65536) return w;
    }
    for (long i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = L / d[static_cast<std::size_t>(i)];
    return w;
}

}  // namespace

bool order_greater(const std::vector<int>& a, const std::vector<int>& b, const std::vector<long>& weights) { return weighted_greater(a, b, weights); }

GroebnerBasis groebner_basis(const std::vector<ModPoly>& polys, long n, std::uint64_t p, GroebnerOrder order) {
    if (p < 3 || p > kGroebnerMaxPrime) throw invalid_input("Gröbner modulus " + std::to_string(p) + " outside 3.." + std::to_string(kGroebnerMaxPrime));
    if (n < 1) throw invalid_input("Gröbner system: " + std::to_string(n) + " variables");
    for (const ModPoly& f : polys)
        for (const ModTerm& t : f) {
            if (static_cast<long>(t.e.size()) != n) throw invalid_input("Gröbner system: a term with " + std::to_string(t.e.size()) + " exponents, not " + std::to_string(n));
            if (t.c >= p) throw invalid_input("Gröbner system: coefficient " + std::to_string(t.c) + " not below p = " + std::to_string(p));
            for (int x : t.e)
                if (x < 0) throw invalid_input("Gröbner system: negative exponent " + std::to_string(x));
        }
    const std::vector<long> w = order_weights(polys, n, order);
    BasisStream out{static_cast<BasisStream::Coefficient>(p), static_cast<BasisStream::VarIndex>(n), w, {}, {}, {}};
    // MathicGB is not reentrant: its memory arenas (memtailor) are shared by every thread,
    // and two bases computed at once corrupt them (a segfault in memt::Arena, seen with
    // variety's trials side by side). One basis at a time in the process.
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    try {
        mgb::GroebnerConfiguration conf(static_cast<mgb::GroebnerConfiguration::Coefficient>(p), static_cast<mgb::GroebnerConfiguration::VarIndex>(n), 1);
        conf.setMaxThreadCount(1);
        const std::vector<mgb::GroebnerConfiguration::Exponent> grading(w.begin(), w.end());
        if (!conf.setMonomialOrder(mgb::GroebnerConfiguration::RevLexDescendingBaseOrder, grading))
            throw internal_error("Gröbner basis: MathicGB refused the weighted order");
        // MathicGB takes each monomial of a polynomial once, with a non-zero coefficient, the
        // terms in descending order: repeats merged, zeros (and zero polynomials) dropped.
        std::vector<std::vector<ModTerm>> merged;
        for (const ModPoly& f : polys) {
            std::vector<ModTerm> sorted;
            for (const ModTerm& t : f)
                if (t.c != 0) sorted.push_back(t);
            std::sort(sorted.begin(), sorted.end(), [&](const ModTerm& x, const ModTerm& y) { return weighted_greater(x.e, y.e, w); });
            std::vector<ModTerm> terms;  // equal monomials are adjacent once sorted: merged in one pass
            for (const ModTerm& t : sorted) {
                if (!terms.empty() && terms.back().e == t.e) terms.back().c = (terms.back().c + t.c) % p;
                else terms.push_back(t);
                if (terms.back().c == 0) terms.pop_back();
            }
            if (!terms.empty()) merged.push_back(std::move(terms));
        }
        mgb::GroebnerInputIdealStream in(conf);
        in.idealBegin(merged.size());
        for (const auto& terms : merged) {
            in.appendPolynomialBegin(terms.size());
            for (const ModTerm& t : terms) {
                in.appendTermBegin(0);
                for (long i = 0; i < n; ++i)
                    if (t.e[static_cast<std::size_t>(i)] != 0) in.appendExponent(static_cast<std::size_t>(i), t.e[static_cast<std::size_t>(i)]);
                in.appendTermDone(static_cast<mgb::GroebnerConfiguration::Coefficient>(t.c));
            }
            in.appendPolynomialDone();
        }
        in.idealDone();
        mgb::computeGroebnerBasis(in, out);
    } catch (const std::bad_alloc&) {
        throw resource_limit("Gröbner basis (MathicGB) of " + std::to_string(polys.size()) + " polynomials in " + std::to_string(n) +
                             " unknowns: out of memory (its size is not estimated before it runs; fewer unknowns, or another slice, keep it smaller)");
    } catch (const std::exception& e) {
        throw resource_limit(std::string("Gröbner basis (MathicGB): ") + e.what());
    }
    GroebnerBasis basis;
    basis.n = n;
    basis.p = p;
    basis.weights = w;
    basis.polys = std::move(out.polys);
    return basis;
}

namespace {

// Walks the standard monomials of a basis (in the box below the pure powers), calling
// visit(exponents) on each; returns whether the ideal is zero-dimensional (the unit
// ideal: true, nothing visited; not zero-dimensional: false, nothing visited).
template <class Visit>
bool walk_standard(const GroebnerBasis& basis, long max_count, Visit&& visit) {
    const long n = basis.n;
    std::vector<std::vector<int>> leads;
    for (const ModPoly& g : basis.polys) leads.push_back(g.front().e);
    // A constant leading monomial: the ideal is the unit ideal, no solution.
    for (const auto& l : leads)
        if (std::all_of(l.begin(), l.end(), [](int x) { return x == 0; })) return true;
    // Zero-dimensional iff every variable has a pure power x_i^{b_i} among the leads; the
    // standard monomials then lie in the box α_i < b_i.
    std::vector<int> bound(static_cast<std::size_t>(n), -1);
    for (const auto& l : leads) {
        long support = 0, at = -1;
        for (long i = 0; i < n; ++i)
            if (l[static_cast<std::size_t>(i)] > 0) ++support, at = i;
        if (support == 1) {
            int& b = bound[static_cast<std::size_t>(at)];
            b = b < 0 ? l[static_cast<std::size_t>(at)] : std::min(b, l[static_cast<std::size_t>(at)]);
        }
    }
    if (std::any_of(bound.begin(), bound.end(), [](int b) { return b < 0; })) return false;
    long walked = 0;
    std::vector<int> a(static_cast<std::size_t>(n), 0);
    while (true) {
        if (++walked > max_count) throw resource_limit("Gröbner count: more than " + std::to_string(max_count) + " monomials to walk");
        bool standard = true;
        for (const auto& l : leads) {
            bool divides = true;
            for (long i = 0; i < n && divides; ++i) divides = l[static_cast<std::size_t>(i)] <= a[static_cast<std::size_t>(i)];
            if (divides) {
                standard = false;
                break;
            }
        }
        if (standard) visit(a);
        long i = 0;  // next exponent vector in the box
        while (i < n && ++a[static_cast<std::size_t>(i)] >= bound[static_cast<std::size_t>(i)]) a[static_cast<std::size_t>(i++)] = 0;
        if (i == n) return true;
    }
}

}  // namespace

StandardMonomials standard_monomials(const GroebnerBasis& basis, long max_count) {
    StandardMonomials res;
    res.zero_dimensional = walk_standard(basis, max_count, [&](const std::vector<int>& a) { res.monomials.push_back(a); });
    std::sort(res.monomials.begin(), res.monomials.end(), [&](const std::vector<int>& x, const std::vector<int>& y) { return weighted_greater(y, x, basis.weights); });
    return res;
}

SolutionCount solution_count(const std::vector<ModPoly>& polys, long n, std::uint64_t p, long max_count, GroebnerOrder order) {
    return count_of(groebner_basis(polys, n, p, order), max_count);
}

SolutionCount count_of(const GroebnerBasis& basis, long max_count) {
    long count = 0;
    SolutionCount res;
    res.basis_size = static_cast<long>(basis.polys.size());
    res.zero_dimensional = walk_standard(basis, max_count, [&](const std::vector<int>&) { ++count; });
    if (res.zero_dimensional) res.count = count;
    return res;
}

}  // namespace seprank::algebra_detail
