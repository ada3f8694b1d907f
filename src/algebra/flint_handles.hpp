#pragma once
// Small owners of FLINT handles the library uses inside one function (style: every FLINT
// handle in a small RAII class). The public matrices and polynomials own theirs
// (seprank/matrix.hpp, seprank/poly.hpp); these are the ones no public type covers.

#include <flint/nmod_mat.h>
#include <flint/nmod_poly.h>

#include <cstdint>

namespace seprank::detail {

// A window on an nmod_mat: rows [r0, r1) × columns [c0, c1) of m, no storage of its own
// (its row pointers may be permuted; the entries are m's). m must outlive it. O(r1 − r0).
class NmodMatWindow {
public:
    NmodMatWindow(const nmod_mat_struct* m, long r0, long c0, long r1, long c1) { nmod_mat_window_init(w_, m, r0, c0, r1, c1); }
    ~NmodMatWindow() { nmod_mat_window_clear(w_); }
    NmodMatWindow(const NmodMatWindow&) = delete;
    NmodMatWindow& operator=(const NmodMatWindow&) = delete;
    nmod_mat_struct* get() noexcept { return w_; }

private:
    nmod_mat_t w_;
};

// One polynomial in (Z/p)[t], p < 2^64 (moves only). O(1) to make.
class NmodPoly {
public:
    explicit NmodPoly(std::uint64_t p) { nmod_poly_init(p_, p); }
    NmodPoly(const NmodPoly&) = delete;
    NmodPoly& operator=(const NmodPoly&) = delete;
    NmodPoly(NmodPoly&& o) noexcept {
        nmod_poly_init(p_, o.p_->mod.n);
        nmod_poly_swap(p_, o.p_);
    }
    NmodPoly& operator=(NmodPoly&&) = delete;
    ~NmodPoly() { nmod_poly_clear(p_); }
    nmod_poly_struct* get() noexcept { return p_; }
    const nmod_poly_struct* get() const noexcept { return p_; }

private:
    nmod_poly_t p_;
};

}  // namespace seprank::detail
