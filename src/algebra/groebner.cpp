// seprank — solutions of a polynomial system mod p, from MathicGB's Gröbner basis
// (groebner.hpp).
#include "groebner.hpp"

#include "seprank/error.hpp"

#include <mathicgb.h>

#include <algorithm>
#include <mutex>
#include <exception>
#include <string>

namespace seprank::algebra_detail {

namespace {

// a > b in graded reverse lex (x_1 > … > x_n): the larger total degree; on a tie, the
// smaller exponent in the last variable where they differ.
bool grevlex_greater(const std::vector<int>& a, const std::vector<int>& b) {
    long da = 0, db = 0;
    for (int x : a) da += x;
    for (int x : b) db += x;
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
        if (!any || grevlex_greater(term, lead)) lead = term;
        any = true;
    }
    void appendPolynomialDone() {
        if (any) leads.push_back(lead);
    }
    void idealDone() {}
};

}  // namespace

SolutionCount solution_count(const std::vector<ModPoly>& polys, long n, std::uint64_t p, long max_count) {
    if (p < 3 || p > kGroebnerMaxPrime) throw invalid_input("Gröbner modulus " + std::to_string(p) + " outside 3.." + std::to_string(kGroebnerMaxPrime));
    if (n < 1) throw invalid_input("Gröbner system: " + std::to_string(n) + " variables");
    for (const ModPoly& f : polys)
        for (const ModTerm& t : f) {
            if (static_cast<long>(t.e.size()) != n) throw invalid_input("Gröbner system: a term with " + std::to_string(t.e.size()) + " exponents, not " + std::to_string(n));
            if (t.c >= p) throw invalid_input("Gröbner system: coefficient " + std::to_string(t.c) + " not below p = " + std::to_string(p));
            for (int x : t.e)
                if (x < 0) throw invalid_input("Gröbner system: negative exponent " + std::to_string(x));
        }
    LeadingMonomials out{static_cast<LeadingMonomials::Coefficient>(p), static_cast<LeadingMonomials::VarIndex>(n), {}, {}, {}, false};
    // MathicGB is not reentrant: its memory arenas (memtailor) are shared by every thread,
    // and two bases computed at once corrupt them (a segfault in memt::Arena, seen with
    // variety's trials side by side). One basis at a time in the process.
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> lock(one_at_a_time);
    try {
        mgb::GroebnerConfiguration conf(static_cast<mgb::GroebnerConfiguration::Coefficient>(p), static_cast<mgb::GroebnerConfiguration::VarIndex>(n), 1);
        conf.setMaxThreadCount(1);
        // MathicGB takes each monomial of a polynomial once, with a non-zero coefficient, the
        // terms in descending order: repeats merged, zeros (and zero polynomials) dropped.
        std::vector<std::vector<ModTerm>> merged;
        for (const ModPoly& f : polys) {
            std::vector<ModTerm> sorted;
            for (const ModTerm& t : f)
                if (t.c != 0) sorted.push_back(t);
            std::sort(sorted.begin(), sorted.end(), [](const ModTerm& x, const ModTerm& y) { return grevlex_greater(x.e, y.e); });
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
