// seprank — spectrum_fast: singular values of M = D_A^{1/2} K D_B^{1/2} in floating
// point (docs/spectrum.md). Its own translation unit because Eigen's SVDs over double and
// over MPFR are the heaviest template instantiations of the spectrum module.
#include "seprank/spectrum.hpp"

#include "seprank/error.hpp"
#include "spectrum_mpfr.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <flint/fmpq_mat.h>
#include <string>
#include <vector>

namespace seprank {

using namespace spectrum_detail;

namespace {

template <class S>
S from_fmpq(const fmpq* q);

template <>
double from_fmpq<double>(const fmpq* q) {
    return fmpq_get_d(q);
}

template <>
Mpfr from_fmpq<Mpfr>(const fmpq* q) {
    Mpfr x;
    fmpq_get_mpfr(x.backend().data(), q, MPFR_RNDN);
    return x;
}

template <class S>
MatS<S> weighted(const OrthoFlattening& of) {
    const long ka = of.K.rows(), kb = of.K.cols();
    std::vector<S> wa, wb;
    for (const auto& w : of.weight_a) wa.push_back(sqrt(from_fmpq<S>(w.get())));
    for (const auto& w : of.weight_b) wb.push_back(sqrt(from_fmpq<S>(w.get())));
    MatS<S> m(ka, kb);
    for (long i = 0; i < ka; ++i)
        for (long j = 0; j < kb; ++j)
            m(i, j) = from_fmpq<S>(fmpq_mat_entry(of.K.get(), i, j)) * wa[static_cast<std::size_t>(i)] * wb[static_cast<std::size_t>(j)];
    return m;
}

template <class S>
double to_double(const S& x) {
    return static_cast<double>(x);
}

}  // namespace

std::vector<double> spectrum_fast(const OrthoFlattening& of, long precision) {
    if (precision < 53 || precision > 4096) throw invalid_input("SpectrumOptions::precision " + std::to_string(precision) + " must be in 53..4096 (53: double; more: MPFR)");
    check_flattening(of);
    std::vector<double> out;
    if (of.K.rows() == 0 || of.K.cols() == 0) return out;
    if (precision <= 53) {
        Eigen::BDCSVD<MatS<double>> svd(weighted<double>(of));
        for (long k = 0; k < svd.singularValues().size(); ++k) out.push_back(svd.singularValues()(k));
    } else {
        MpfrPrecision guard(precision);
        Eigen::JacobiSVD<MatS<Mpfr>> svd(weighted<Mpfr>(of));
        for (long k = 0; k < svd.singularValues().size(); ++k) out.push_back(to_double(svd.singularValues()(k)));
    }
    std::sort(out.begin(), out.end(), std::greater<>());
    return out;
}

}  // namespace seprank
