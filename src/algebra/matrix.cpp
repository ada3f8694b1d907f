#include "seprank/matrix.hpp"

#include "base/limits_internal.hpp"
#include "seprank/limits.hpp"

#include <algorithm>
#include <flint/fmpz_vec.h>
#include <string>

namespace seprank {

namespace {

// The shape, and the storage FLINT is about to allocate: FLINT aborts the process when an
// allocation fails, so a matrix over the memory limit (limits.hpp) is refused here with
// resource_limit. Below 16 MiB only the limit a caller set is compared (one atomic load):
// the built-in one is always larger, and hot paths build many small matrices.
void check_shape(long r, long c, double entry_bytes) {
    if (r < 0 || c < 0)
        throw invalid_input("matrix shape " + std::to_string(r) + "x" + std::to_string(c) + " is negative");
    const double bytes = static_cast<double>(r) * static_cast<double>(c) * entry_bytes + 8.0 * static_cast<double>(r);
    if (bytes < 16.0 * 1024 * 1024) {
        const double set = detail::set_max_memory();
        if (set <= 0 || bytes <= set) return;
    }
    check_memory(bytes, default_max_memory(), "a " + std::to_string(r) + "x" + std::to_string(c) + " matrix");
}

template <class T>
struct MatOps;

template <>
struct MatOps<ZMatTraits> {
    using M = fmpz_mat_struct;
    static constexpr double entry_bytes = sizeof(fmpz);
    static void init(M* m, long r, long c, std::uint64_t p) {
        if (p != 0) throw invalid_input("a matrix over Z takes no modulus (got " + std::to_string(p) + ")");
        fmpz_mat_init(m, r, c);
    }
    static void init_like(M* m, const M* o) { fmpz_mat_init_set(m, o); }
    static void clear(M* m) { fmpz_mat_clear(m); }
    static void swap(M* a, M* b) { fmpz_mat_swap(a, b); }
    static std::uint64_t modulus(const M*) { return 0; }
    static Integer get(const M* m, long i, long j) { return Integer(fmpz_mat_entry(m, i, j)); }
    static void set(M* m, long i, long j, const Integer& v) { fmpz_set(fmpz_mat_entry(m, i, j), v.get()); }
    static bool equal(const M* a, const M* b) { return fmpz_mat_equal(a, b); }
};

template <>
struct MatOps<QMatTraits> {
    using M = fmpq_mat_struct;
    static constexpr double entry_bytes = sizeof(fmpq);
    static void init(M* m, long r, long c, std::uint64_t p) {
        if (p != 0) throw invalid_input("a matrix over Q takes no modulus (got " + std::to_string(p) + ")");
        fmpq_mat_init(m, r, c);
    }
    static void init_like(M* m, const M* o) { fmpq_mat_init_set(m, o); }
    static void clear(M* m) { fmpq_mat_clear(m); }
    static void swap(M* a, M* b) { fmpq_mat_swap(a, b); }
    static std::uint64_t modulus(const M*) { return 0; }
    static Rational get(const M* m, long i, long j) { return Rational(fmpq_mat_entry(m, i, j)); }
    static void set(M* m, long i, long j, const Rational& v) { fmpq_set(fmpq_mat_entry(m, i, j), v.get()); }
    static bool equal(const M* a, const M* b) { return fmpq_mat_equal(a, b); }
};

template <>
struct MatOps<NmodMatTraits> {
    using M = nmod_mat_struct;
    static constexpr double entry_bytes = sizeof(mp_limb_t);
    static void init(M* m, long r, long c, std::uint64_t p) {
        if (p < 2) throw invalid_input("modulus p = " + std::to_string(p) + " must be at least 2");
        nmod_mat_init(m, r, c, p);
    }
    static void init_like(M* m, const M* o) { nmod_mat_init_set(m, o); }
    static void clear(M* m) { nmod_mat_clear(m); }
    static void swap(M* a, M* b) { nmod_mat_swap(a, b); }
    static std::uint64_t modulus(const M* m) { return m->mod.n; }
    static std::uint64_t get(const M* m, long i, long j) { return nmod_mat_entry(m, i, j); }
    static void set(M* m, long i, long j, std::uint64_t v) { nmod_mat_entry(m, i, j) = v % m->mod.n; }
    static bool equal(const M* a, const M* b) { return a->mod.n == b->mod.n && nmod_mat_equal(a, b); }
};

}  // namespace

template <class T>
Mat<T>::Mat(long rows, long cols, std::uint64_t modulus) {
    check_shape(rows, cols, MatOps<T>::entry_bytes);
    MatOps<T>::init(m_, rows, cols, modulus);
}

template <class T>
Mat<T> Mat<T>::from_rows(const std::vector<std::vector<Entry>>& rows, std::uint64_t modulus) {
    const long r = static_cast<long>(rows.size());
    const long c = r == 0 ? 0 : static_cast<long>(rows[0].size());
    Mat m(r, c, modulus);
    for (long i = 0; i < r; ++i) {
        if (static_cast<long>(rows[i].size()) != c)
            throw invalid_input("matrix row " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                                " entries, expected " + std::to_string(c));
        for (long j = 0; j < c; ++j) MatOps<T>::set(m.m_, i, j, rows[i][j]);
    }
    return m;
}

template <class T>
Mat<T>::Mat(const Mat& o) {
    MatOps<T>::init_like(m_, o.m_);
}

template <class T>
Mat<T>::Mat(Mat&& o) noexcept {
    MatOps<T>::init(m_, 0, 0, o.modulus());
    MatOps<T>::swap(m_, o.m_);
}

template <class T>
Mat<T>& Mat<T>::operator=(const Mat& o) {
    if (this != &o) {
        Mat tmp(o);
        MatOps<T>::swap(m_, tmp.m_);
    }
    return *this;
}

template <class T>
Mat<T>& Mat<T>::operator=(Mat&& o) noexcept {
    MatOps<T>::swap(m_, o.m_);
    return *this;
}

template <class T>
Mat<T>::~Mat() {
    MatOps<T>::clear(m_);
}

template <class T>
std::uint64_t Mat<T>::modulus() const noexcept {
    return MatOps<T>::modulus(m_);
}

template <class T>
void Mat<T>::check_index(long i, long j) const {
    if (i < 0 || i >= rows() || j < 0 || j >= cols())
        throw invalid_input("matrix index (" + std::to_string(i) + ", " + std::to_string(j) + ") outside " +
                            std::to_string(rows()) + "x" + std::to_string(cols()));
}

template <class T>
typename Mat<T>::Entry Mat<T>::at(long i, long j) const {
    check_index(i, j);
    return MatOps<T>::get(m_, i, j);
}

template <class T>
void Mat<T>::set(long i, long j, const Entry& v) {
    check_index(i, j);
    MatOps<T>::set(m_, i, j, v);
}

template <class T>
bool Mat<T>::equals(const Mat& o) const {
    return rows() == o.rows() && cols() == o.cols() && MatOps<T>::equal(m_, o.m_);
}

template class Mat<ZMatTraits>;
template class Mat<QMatTraits>;
template class Mat<NmodMatTraits>;

NmodMat reduce_mod(const ZMat& a, std::uint64_t p) {
    NmodMat r(a.rows(), a.cols(), p);
    for (long i = 0; i < a.rows(); ++i)
        for (long j = 0; j < a.cols(); ++j) nmod_mat_entry(r.get(), i, j) = fmpz_fdiv_ui(fmpz_mat_entry(a.get(), i, j), p);
    return r;
}

ZMat clear_denominators(const QMat& a) {
    ZMat b(a.rows(), a.cols());
    // Row i times d_i = the lcm of its denominators (d_i stored in den, unused here).
    fmpz* d = _fmpz_vec_init(std::max(a.rows(), 1L));
    fmpq_mat_get_fmpz_mat_rowwise(b.get(), d, a.get());
    _fmpz_vec_clear(d, std::max(a.rows(), 1L));
    return b;
}

}  // namespace seprank
