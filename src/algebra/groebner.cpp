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

// MathicGB's output stream: keeps each basis polynomial's leading monomial.
struct LeadingMonomials {
    using Coefficient = mgb::GroebnerConfiguration::Coefficient;
    using VarIndex = mgb::GroebnerConfiguration::VarIndex;
    using Exponent = mgb::GroebnerConfiguration::Exponent;
    using Component = mgb::GroebnerConfiguration::Component;
    Coefficient p;
    VarIndex n;
    std::vector<long> w;  // the order's weights
    std::vector<std::vector<int>> leads;
    std::vector<int> term, lead;
    bool any = false;

    Coefficient modulus() const { return p; }
    VarIndex varCount() const { return n; }
    Component comCount() const { return 1; }
    void idealBegin(std::size_t) {}
    void appendPolynomialBegin(std::size_t) { any = false; }
    void appendTermBegin(Component) { term.assign(n, 0); }
    void appendExponent(VarIndex i, Exponent e) { term[i] = static_cast<int>(e); }
    void appendTermDone(Coefficient c) {
        if (c == 0) return;
        if (!any || weighted_greater(term, lead, w)) lead = term;
        any = true;
    }
    void appendPolynomialDone() {
        if (any) leads.push_back(lead);
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

SolutionCount solution_count(const std::vector<ModPoly>& polys, long n, std::uint64_t p, long max_count, GroebnerOrder order) {
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
    LeadingMonomials out{static_cast<LeadingMonomials::Coefficient>(p), static_cast<LeadingMonomials::VarIndex>(n), w, {}, {}, {}, false};
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
    } catch (const std::exception& e) {
        throw resource_limit(std::string("Gröbner basis (MathicGB): ") + e.what());
    }
    SolutionCount res;
    res.basis_size = static_cast<long>(out.leads.size());
    // A constant leading monomial: the ideal is the unit ideal, no solution.
    for (const auto& l : out.leads)
        if (std::all_of(l.begin(), l.end(), [](int x) { return x == 0; })) {
            res.zero_dimensional = true;
            res.count = 0;
            return res;
        }
    // Zero-dimensional iff every variable has a pure power x_i^{b_i} among the leads; the
    // standard monomials then lie in the box α_i < b_i.
    std::vector<int> bound(static_cast<std::size_t>(n), -1);
    for (const auto& l : out.leads) {
        long support = 0, at = -1;
        for (long i = 0; i < n; ++i)
            if (l[static_cast<std::size_t>(i)] > 0) ++support, at = i;
        if (support == 1) {
            int& b = bound[static_cast<std::size_t>(at)];
            b = b < 0 ? l[static_cast<std::size_t>(at)] : std::min(b, l[static_cast<std::size_t>(at)]);
        }
    }
    if (std::any_of(bound.begin(), bound.end(), [](int b) { return b < 0; })) return res;
    res.zero_dimensional = true;
    long count = 0, walked = 0;
    std::vector<int> a(static_cast<std::size_t>(n), 0);
    while (true) {
        if (++walked > max_count) throw resource_limit("Gröbner count: more than " + std::to_string(max_count) + " monomials to walk");
        bool standard = true;
        for (const auto& l : out.leads) {
            bool divides = true;
            for (long i = 0; i < n && divides; ++i) divides = l[static_cast<std::size_t>(i)] <= a[static_cast<std::size_t>(i)];
            if (divides) {
                standard = false;
                break;
            }
        }
        count += standard ? 1 : 0;
        long i = 0;  // next exponent vector in the box
        while (i < n && ++a[static_cast<std::size_t>(i)] >= bound[static_cast<std::size_t>(i)]) a[static_cast<std::size_t>(i++)] = 0;
        if (i == n) break;
    }
    res.count = count;
    return res;
}

}  // namespace seprank::algebra_detail
