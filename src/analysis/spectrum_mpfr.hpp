// seprank (internal) — the MPFR scalar of the floating-point spectrum paths, shared by
// src/analysis/spectrum_fast.cpp (SVD) and src/analysis/spectrum_certified.cpp (approximate eigenbasis).
// Only those two include it: Eigen and Boost.Multiprecision stay out of src/analysis/spectrum.cpp,
// so the three compile in parallel (docs/development.md, "Build times").
#pragma once

#include <boost/multiprecision/mpfr.hpp>
#include <Eigen/Core>
#include <cmath>
#include <mutex>

namespace seprank {
using Mpfr = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<0>, boost::multiprecision::et_off>;
}

// Eigen's traits for MPFR numbers of run-time precision. (Boost 1.74's own
// boost/multiprecision/eigen.hpp lacks infinity() and quiet_NaN(), which Eigen 3.4 uses.)
namespace Eigen {
template <>
struct NumTraits<seprank::Mpfr> : GenericNumTraits<seprank::Mpfr> {
    using Real = seprank::Mpfr;
    using NonInteger = seprank::Mpfr;
    using Literal = seprank::Mpfr;
    using Nested = seprank::Mpfr;
    enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 4, MulCost = 8 };
    static int digits10() { return static_cast<int>(seprank::Mpfr::default_precision()); }
    static Real dummy_precision() { return 1000 * epsilon(); }
};
}  // namespace Eigen

namespace seprank::spectrum_detail {

// Boost 1.74 keeps one process-wide default precision for MPFR numbers: this guard sets
// it (decimal digits covering `bits`) and holds a mutex while it lives, so concurrent
// calls of the MPFR paths are serialised instead of racing on it. The mutex is one for
// the whole library (an inline function's static), shared by both translation units.
inline std::mutex& mpfr_mutex() {
    static std::mutex m;
    return m;
}
struct MpfrPrecision {
    std::lock_guard<std::mutex> lock;
    unsigned saved;
    explicit MpfrPrecision(long bits) : lock(mpfr_mutex()), saved(Mpfr::default_precision()) {
        Mpfr::default_precision(static_cast<unsigned>(std::ceil(static_cast<double>(bits) * 0.30103)) + 1);
    }
    MpfrPrecision(const MpfrPrecision&) = delete;
    MpfrPrecision& operator=(const MpfrPrecision&) = delete;
    ~MpfrPrecision() { Mpfr::default_precision(saved); }
};

template <class S>
using MatS = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

}  // namespace seprank::spectrum_detail
