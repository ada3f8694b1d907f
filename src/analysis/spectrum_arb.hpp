// seprank (internal) — RAII holders of Arb numbers and matrices for src/analysis/spectrum.cpp and
// src/analysis/spectrum_certified.cpp: constructor init, destructor clear, no copies.
#pragma once

#include <arb.h>
#include <arb_mat.h>

namespace seprank::spectrum_detail {

struct ArbMat {
    arb_mat_t m;
    ArbMat(long r, long c) { arb_mat_init(m, r, c); }
    ArbMat(const ArbMat&) = delete;
    ArbMat& operator=(const ArbMat&) = delete;
    ~ArbMat() { arb_mat_clear(m); }
};

struct ArbNum {
    arb_t v;
    ArbNum() { arb_init(v); }
    ArbNum(const ArbNum&) = delete;
    ArbNum& operator=(const ArbNum&) = delete;
    ~ArbNum() { arb_clear(v); }
};

struct ArfNum {
    arf_t v;
    ArfNum() { arf_init(v); }
    ArfNum(const ArfNum&) = delete;
    ArfNum& operator=(const ArfNum&) = delete;
    ArfNum(ArfNum&& o) noexcept { arf_init(v); arf_swap(v, o.v); }
    ArfNum& operator=(ArfNum&& o) noexcept { arf_swap(v, o.v); return *this; }
    ~ArfNum() { arf_clear(v); }
};

struct MagNum {
    mag_t v;
    MagNum() { mag_init(v); }
    MagNum(const MagNum&) = delete;
    MagNum& operator=(const MagNum&) = delete;
    ~MagNum() { mag_clear(v); }
};

}  // namespace seprank::spectrum_detail
