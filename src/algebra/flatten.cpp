#include "seprank/flatten.hpp"

#include "seprank/error.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>

namespace seprank {

namespace {

struct VecHash {
    std::size_t operator()(const std::vector<ulong>& v) const noexcept {
        std::size_t h = 1469598103934665603ULL;
        for (ulong x : v) h = (h ^ x) * 1099511628211ULL;
        return h;
    }
};

// Why a variable's name gives no token index: a name x<j>_<c> whose j or c passes 9
// digits has one, too large; any other name has none.
std::string no_token_index(const std::string& name) {
    std::size_t i = 0;
    while (i < name.size() && std::isalpha(static_cast<unsigned char>(name[i]))) ++i;
    const std::size_t u = name.find('_', i);
    const auto digits = [&](std::size_t from, std::size_t to) {
        return to > from && std::all_of(name.begin() + static_cast<long>(from), name.begin() + static_cast<long>(to),
                                        [](char c) { return c >= '0' && c <= '9'; });
    };
    if (i > 0 && u != std::string::npos && digits(i, u) && digits(u + 1, name.size()) && (u - i > 9 || name.size() - u - 1 > 9)) {
        const bool token_long = u - i > 9;
        const std::string part = token_long ? name.substr(i, u - i) : name.substr(u + 1);
        return "variable '" + name + "': its " + (token_long ? "token index " : "coordinate ") +
               (part.size() > 40 ? part.substr(0, 40) + "…" : part) + " is too large (at most 9 digits)";
    }
    return "variable '" + name + "' has no token index (expected a name like x<j>_<c>, j >= 1)";
}

}  // namespace

std::vector<int> variable_sides(const Variables& vars, const std::vector<int>& token_side) {
    std::vector<int> side(vars.size());
    for (std::size_t v = 0; v < vars.size(); ++v) {
        const long t = vars.token(v);
        if (t < 1) throw invalid_input(no_token_index(vars.name(v)));
        if (t > static_cast<long>(token_side.size()))
            throw invalid_input("variable '" + vars.name(v) + "' belongs to token " + std::to_string(t) +
                                ", beyond the " + std::to_string(token_side.size()) + " tokens of the partition");
        side[v] = token_side[static_cast<std::size_t>(t - 1)];
    }
    return side;
}

long token_count(const Variables& vars) {
    long n = 0;
    for (std::size_t v = 0; v < vars.size(); ++v) {
        const long t = vars.token(v);
        if (t < 1) throw invalid_input(no_token_index(vars.name(v)));
        n = std::max(n, t);
    }
    if (n < 2)
        throw invalid_input("its variables name " + std::to_string(n) + " token" + (n == 1 ? "" : "s") +
                            "; a partition needs at least 2 tokens (names x<j>_<c>, j = the token)");
    return n;
}

ValidPartition poly_partition(const Variables& vars, const std::string& text, const std::string& subject) {
    // a message about the variables names the polynomial as the caller does; the
    // partition's own messages name the partition
    const auto about = [&subject](const std::string& m) { return invalid_input(subject.empty() ? m : subject + ": " + m); };
    if (text.empty()) {
        try {
            return balanced_partition(token_count(vars));
        } catch (const invalid_input& e) {  // fewer than 2 tokens named: a partition gives them
            throw about(std::string(e.what()) + "; or give a partition (e.g. 1|2): a polynomial is ranked on the tokens it lists");
        }
    }
    const ValidPartition part = [&] {
        try {
            return parse_partition_listed(text);
        } catch (const invalid_input& e) {  // where N came from, and why: a polynomial has no token count of its own
            const std::string m = e.what();
            if (m.find(", the positions it lists") == std::string::npos) throw;
            throw invalid_input(m + "; a polynomial is ranked on the tokens its partition lists");
        }
    }();
    for (std::size_t v = 0; v < vars.size(); ++v) {
        const long t = vars.token(v);
        if (t < 1) throw about(no_token_index(vars.name(v)));
        if (t > part.tokens())
            throw about("variable '" + vars.name(v) + "' belongs to token " + std::to_string(t) + ", beyond the " +
                        std::to_string(part.tokens()) + " tokens of the partition '" + text + "'");
    }
    return part;
}

namespace {

struct Cell {
    long r, c;
    long term;
};

// Row/column numbering of the terms of a polynomial with n terms whose exponent
// vector k is written by `exps(k, e)`.
template <class Exps>
std::vector<Cell> index_terms(long n, const std::vector<int>& side, Exps exps, long& rows_out, long& cols_out) {
    const std::size_t nv = side.size();
    std::size_t na = 0;
    for (int s : side) na += s == 0;
    std::unordered_map<std::vector<ulong>, long, VecHash> rows, cols;
    std::vector<ulong> e(nv), ea(na), eb(nv - na);
    std::vector<Cell> cells;
    cells.reserve(static_cast<std::size_t>(n));
    for (long k = 0; k < n; ++k) {
        exps(k, e.data());
        std::size_t ia = 0, ib = 0;
        for (std::size_t v = 0; v < nv; ++v) (side[v] == 0 ? ea[ia++] : eb[ib++]) = e[v];
        const long r = rows.try_emplace(ea, static_cast<long>(rows.size())).first->second;
        const long c = cols.try_emplace(eb, static_cast<long>(cols.size())).first->second;
        cells.push_back({r, c, k});
    }
    rows_out = static_cast<long>(rows.size());
    cols_out = static_cast<long>(cols.size());
    return cells;
}

template <class M>
void sort_rows(M& m) {
    for (auto& r : m.row) std::sort(r.begin(), r.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
}

void check_sides(std::size_t have, std::size_t nv) {
    if (have != nv) throw invalid_input("flatten: " + std::to_string(have) + " sides for " + std::to_string(nv) + " variables");
}

}  // namespace

SparseZMat flatten(const QPoly& f, const std::vector<int>& side) {
    check_sides(side.size(), f.context()->nvars());
    const fmpz_mpoly_struct* z = f.get()->zpoly;
    const fmpz_mpoly_ctx_struct* zc = f.context()->get()->zctx;
    SparseZMat m;
    const auto cells = index_terms(z->length, side, [&](long k, ulong* e) {
        if (!fmpz_mpoly_term_exp_fits_ui(z, k, zc)) throw resource_limit("flatten: exponent does not fit 64 bits");
        fmpz_mpoly_get_term_exp_ui(e, z, k, zc);
    }, m.rows, m.cols);
    m.row.resize(static_cast<std::size_t>(m.rows));
    for (const auto& c : cells) m.row[static_cast<std::size_t>(c.r)].emplace_back(c.c, Integer(z->coeffs + c.term));
    sort_rows(m);
    return m;
}

SparseNmodMat flatten(const NmodPoly& f, const std::vector<int>& side) {
    check_sides(side.size(), f.context()->nvars());
    const nmod_mpoly_struct* z = f.get();
    const nmod_mpoly_ctx_struct* zc = f.context()->get();
    SparseNmodMat m;
    m.p = f.context()->modulus();
    const auto cells = index_terms(z->length, side, [&](long k, ulong* e) {
        if (!nmod_mpoly_term_exp_fits_ui(z, k, zc)) throw resource_limit("flatten: exponent does not fit 64 bits");
        nmod_mpoly_get_term_exp_ui(e, z, k, zc);
    }, m.rows, m.cols);
    m.row.resize(static_cast<std::size_t>(m.rows));
    for (const auto& c : cells) m.row[static_cast<std::size_t>(c.r)].emplace_back(static_cast<std::uint32_t>(c.c), z->coeffs[c.term]);
    sort_rows(m);
    return m;
}

SparseZMat flatten(const QPoly& f, const ValidPartition& part, long n_tokens) {
    return flatten(f, variable_sides(f.context()->vars(), token_sides(part, n_tokens)));
}

SparseNmodMat flatten(const NmodPoly& f, const ValidPartition& part, long n_tokens) {
    return flatten(f, variable_sides(f.context()->vars(), token_sides(part, n_tokens)));
}

}  // namespace seprank
