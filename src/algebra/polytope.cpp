// seprank — the normalized volume of a lattice polytope by a placing triangulation
// (polytope.hpp).
#include "algebra/polytope.hpp"

#include "seprank/error.hpp"
#include "seprank/matrix.hpp"

#include <flint/fmpz_mat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_set>

namespace seprank::algebra_detail {
namespace {

using Row = std::vector<long>;
__extension__ typedef __int128 i128;  // GCC/Clang extension, as FLINT uses
__extension__ typedef unsigned __int128 u128;

struct RowHash {
    std::size_t operator()(const Row& r) const noexcept {
        std::size_t h = 1469598103934665603ULL;
        for (long x : r) h = (h ^ static_cast<std::size_t>(x)) * 1099511628211ULL;
        return h;
    }
};

// The determinant of the square matrix `a` (rows of equal length), exactly: Bareiss's
// fraction-free elimination in 128-bit words when `small` (Hadamard's bound on a's minors
// below 2^62, so that every product fits), else FLINT's.
Integer det(std::vector<Row> a, bool small) {
    const std::size_t k = a.size();
    if (!small) {
        ZMat m(static_cast<long>(k), static_cast<long>(k));
        for (std::size_t i = 0; i < k; ++i)
            for (std::size_t j = 0; j < k; ++j) fmpz_set_si(fmpz_mat_entry(m.get(), i, j), a[i][j]);
        Integer d;
        fmpz_mat_det(d.get(), m.get());
        return d;
    }
    std::vector<std::vector<i128>> m(k, std::vector<i128>(k));
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = 0; j < k; ++j) m[i][j] = a[i][j];
    i128 prev = 1;
    int sign = 1;
    for (std::size_t c = 0; c + 1 < k; ++c) {
        if (m[c][c] == 0) {
            std::size_t r = c + 1;
            while (r < k && m[r][c] == 0) ++r;
            if (r == k) return Integer(0);
            std::swap(m[r], m[c]);
            sign = -sign;
        }
        for (std::size_t i = c + 1; i < k; ++i) {
            for (std::size_t j = c + 1; j < k; ++j) m[i][j] = (m[i][j] * m[c][c] - m[i][c] * m[c][j]) / prev;
            m[i][c] = 0;
        }
        prev = m[c][c];
    }
    const i128 d = m[k - 1][k - 1] * sign;
    const bool neg = d < 0;
    const u128 u = neg ? static_cast<u128>(-d) : static_cast<u128>(d);
    Integer out(static_cast<long>(static_cast<std::uint64_t>(u >> 64)));
    fmpz_mul_2exp(out.get(), out.get(), 64);
    fmpz_add_ui(out.get(), out.get(), static_cast<std::uint64_t>(u));
    if (neg) fmpz_neg(out.get(), out.get());
    return out;
}

// v without its entry at `drop`: a simplex's facet, a facet's ridge.
std::vector<int> without(const std::vector<int>& v, std::size_t drop) {
    std::vector<int> out;
    for (std::size_t i = 0; i < v.size(); ++i)
        if (i != drop) out.push_back(v[i]);
    return out;
}

struct Facet {
    std::vector<int> v;  // n point indices, increasing
    int side = 0;        // the sign of det(facet, c) for the interior point c
    bool alive = true;
};

class Placing {
public:
    Placing(std::vector<Row> pts, long n, long max_facets) : p_(std::move(pts)), n_(n), max_facets_(max_facets) {
        long b = 0;
        for (const Row& r : p_)
            for (long x : r) b = std::max(b, std::labs(x));
        // Rows (p, 1) and (S, n + 1), |S| <= (n + 1)·b: Hadamard's bound on every minor.
        const double row = static_cast<double>(n + 1) * std::sqrt(static_cast<double>(n) * static_cast<double>(b) * static_cast<double>(b) + 1.0);
        small_ = static_cast<double>(n + 1) * std::log2(row) < 62.0;
    }

    Integer volume() {
        const std::vector<int> first = first_simplex();
        if (first.empty()) return Integer(0);
        Row c(static_cast<std::size_t>(n_) + 1, 0);  // the first simplex's centroid, times n + 1
        for (int i : first)
            for (long j = 0; j < n_; ++j) c[static_cast<std::size_t>(j)] += p_[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
        c[static_cast<std::size_t>(n_)] = n_ + 1;
        centre_ = c;
        Integer vol = det_with(std::vector<int>(first.begin(), first.end() - 1), first.back());
        fmpz_abs(vol.get(), vol.get());
        for (std::size_t drop = 0; drop < first.size(); ++drop) add_facet(without(first, drop));
        std::vector<bool> used(p_.size(), false);
        for (int i : first) used[static_cast<std::size_t>(i)] = true;
        for (std::size_t q = 0; q < p_.size(); ++q)
            if (!used[q]) place(static_cast<int>(q), vol);
        return vol;
    }

private:
    std::vector<Row> p_;
    long n_;
    long max_facets_;
    bool small_ = true;
    Row centre_;
    std::vector<Facet> facets_;
    long alive_ = 0;

    Row homogeneous(int i) const {
        Row r = p_[static_cast<std::size_t>(i)];
        r.push_back(1);
        return r;
    }
    // det of the facet's homogeneous rows over the homogeneous row `last`.
    Integer det_over(const std::vector<int>& f, Row last) const {
        std::vector<Row> a;
        for (int i : f) a.push_back(homogeneous(i));
        a.push_back(std::move(last));
        return det(std::move(a), small_);
    }
    Integer det_with(const std::vector<int>& f, int q) const { return det_over(f, homogeneous(q)); }
    int side_of_centre(const std::vector<int>& f) const { return fmpz_sgn(det_over(f, centre_).get()); }
    void add_facet(std::vector<int> f) {
        std::sort(f.begin(), f.end());
        Facet F;
        F.side = side_of_centre(f);
        if (F.side == 0) throw internal_error("normalized_volume: a boundary facet passes through the interior point");
        F.v = std::move(f);
        facets_.push_back(std::move(F));
        if (++alive_ > max_facets_)
            throw resource_limit("normalized_volume: the triangulated boundary passes " + std::to_string(max_facets_) + " facets");
    }

    // n + 1 affinely independent points, greedily in order (empty: A lies in a hyperplane).
    std::vector<int> first_simplex() const {
        std::vector<int> chosen;
        if (p_.empty()) return chosen;
        chosen.push_back(0);
        for (std::size_t i = 1; i < p_.size() && static_cast<long>(chosen.size()) <= n_; ++i) {
            ZMat m(static_cast<long>(chosen.size()), n_);
            for (std::size_t r = 1; r < chosen.size(); ++r)
                for (long j = 0; j < n_; ++j)
                    fmpz_set_si(fmpz_mat_entry(m.get(), r - 1, j), p_[static_cast<std::size_t>(chosen[r])][static_cast<std::size_t>(j)] - p_[0][static_cast<std::size_t>(j)]);
            for (long j = 0; j < n_; ++j)
                fmpz_set_si(fmpz_mat_entry(m.get(), static_cast<long>(chosen.size()) - 1, j), p_[i][static_cast<std::size_t>(j)] - p_[0][static_cast<std::size_t>(j)]);
            if (fmpz_mat_rank(m.get()) == static_cast<long>(chosen.size())) chosen.push_back(static_cast<int>(i));
        }
        if (static_cast<long>(chosen.size()) < n_ + 1) chosen.clear();
        return chosen;
    }

    // Point q: the facets it sees strictly (det of the other sign than the centre's) give
    // the simplices conv(q, F), |det| each; the horizon's ridges (in one seen facet only)
    // with q replace them on the boundary.
    void place(int q, Integer& vol) {
        std::vector<std::size_t> seen;
        for (std::size_t f = 0; f < facets_.size(); ++f) {
            if (!facets_[f].alive) continue;
            const Integer d = det_with(facets_[f].v, q);
            const int s = fmpz_sgn(d.get());
            if (s != 0 && s != facets_[f].side) {
                seen.push_back(f);
                if (s > 0) fmpz_add(vol.get(), vol.get(), d.get());
                else fmpz_sub(vol.get(), vol.get(), d.get());  // |d|
            }
        }
        if (seen.empty()) return;
        std::map<std::vector<int>, int> ridges;
        for (std::size_t f : seen) {
            for (std::size_t drop = 0; drop < facets_[f].v.size(); ++drop) ++ridges[without(facets_[f].v, drop)];
            facets_[f].alive = false;
            --alive_;
        }
        for (const auto& [r, count] : ridges)
            if (count == 1) {
                std::vector<int> f = r;
                f.push_back(q);
                add_facet(std::move(f));
            }
        if (facets_.size() > static_cast<std::size_t>(2 * alive_ + 64))  // drop the dead ones now and then
            facets_.erase(std::remove_if(facets_.begin(), facets_.end(), [](const Facet& F) { return !F.alive; }), facets_.end());
    }
};

}  // namespace

std::vector<std::vector<long>> drop_midpoints(const std::vector<std::vector<long>>& points, long n) {
    std::unordered_set<Row, RowHash> in(points.begin(), points.end());
    std::vector<Row> dirs;
    for (long i = 0; i < n; ++i) {
        Row e(static_cast<std::size_t>(n), 0);
        e[static_cast<std::size_t>(i)] = 1;
        dirs.push_back(e);
        for (long j = i + 1; j < n; ++j) {
            Row a = e, b = e;
            a[static_cast<std::size_t>(j)] = 1;
            b[static_cast<std::size_t>(j)] = -1;
            dirs.push_back(a);
            dirs.push_back(b);
        }
    }
    std::vector<Row> out;
    std::unordered_set<Row, RowHash> kept;
    Row plus(static_cast<std::size_t>(n)), minus(static_cast<std::size_t>(n));
    for (const Row& x : points) {
        if (kept.count(x) != 0) continue;  // a repeat
        bool mid = false;
        for (const Row& d : dirs) {
            for (long j = 0; j < n; ++j) {
                plus[static_cast<std::size_t>(j)] = x[static_cast<std::size_t>(j)] + d[static_cast<std::size_t>(j)];
                minus[static_cast<std::size_t>(j)] = x[static_cast<std::size_t>(j)] - d[static_cast<std::size_t>(j)];
            }
            if (in.count(plus) != 0 && in.count(minus) != 0) {
                mid = true;
                break;
            }
        }
        if (!mid) {
            kept.insert(x);
            out.push_back(x);
        }
    }
    return out;
}

Integer normalized_volume(const std::vector<std::vector<long>>& points, long n, long max_facets) {
    if (n < 1) throw invalid_input("normalized_volume: dimension n = " + std::to_string(n) + " must be at least 1");
    for (const Row& r : points) {
        if (static_cast<long>(r.size()) != n)
            throw invalid_input("normalized_volume: a point of length " + std::to_string(r.size()) + " in dimension " + std::to_string(n));
        for (long x : r)
            if (std::labs(x) > (1L << 20)) throw invalid_input("normalized_volume: coordinate " + std::to_string(x) + " outside -2^20..2^20");
    }
    return Placing(drop_midpoints(points, n), n, max_facets).volume();
}

}  // namespace seprank::algebra_detail
