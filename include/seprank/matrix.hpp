// seprank — dense matrices over Z, Q and Z/p: RAII owners of fmpz_mat, fmpq_mat, nmod_mat.
//
// Mat<T> owns one FLINT matrix. Construction gives the zero matrix of the stated shape
// (0 rows or 0 columns allowed); copies are deep, moves are noexcept (init 0×0 + swap).
// Entries: Integer (ZMat), Rational (QMat), std::uint64_t in [0, p) (NmodMat; values set
// are reduced mod p). Indices are checked by at()/set() (invalid_input); get() is the
// raw FLINT handle for algorithms that work on the storage directly.
// NmodMat requires p >= 2 (checked); FLINT's elimination routines additionally need p
// prime, which is not checked here.
#pragma once

#include "seprank/error.hpp"
#include "seprank/integer.hpp"

#include <cstdint>
#include <flint/fmpq_mat.h>
#include <flint/fmpz_mat.h>
#include <flint/nmod_mat.h>
#include <vector>

namespace seprank {

struct ZMatTraits {
    using mat_struct = fmpz_mat_struct;
    using entry_type = Integer;
};
struct QMatTraits {
    using mat_struct = fmpq_mat_struct;
    using entry_type = Rational;
};
struct NmodMatTraits {
    using mat_struct = nmod_mat_struct;
    using entry_type = std::uint64_t;
};

template <class T>
class Mat {
public:
    using Entry = typename T::entry_type;

    // rows, cols >= 0 checked; modulus only (and then required, >= 2) for NmodMat. The
    // storage (8 bytes an entry, 16 for QMat, plus 8 a row) is checked against
    // default_max_memory() (limits.hpp): resource_limit naming the shape, before FLINT
    // allocates (it would abort the process on failure). O(rows·cols) to zero the entries.
    Mat(long rows, long cols, std::uint64_t modulus = 0);
    // The matrix of `rows` (all of one length: invalid_input naming the first that is not;
    // no rows: 0×0), checked and costed as the constructor, plus one copy of each entry
    // (NmodMat: reduced mod p). O(rows·cols) entry copies.
    static Mat from_rows(const std::vector<std::vector<Entry>>& rows, std::uint64_t modulus = 0);
    // Deep copy (not checked against the memory limit: the original passed it), O(rows·cols)
    // entry copies; moves O(1); the destructor O(rows·cols) over Z and Q, O(1) mod p.
    Mat(const Mat& o);
    Mat(Mat&& o) noexcept;
    Mat& operator=(const Mat& o);
    Mat& operator=(Mat&& o) noexcept;
    ~Mat();

    // Shape, modulus (0 for ZMat and QMat) and the raw FLINT handle. O(1).
    long rows() const noexcept { return m_->r; }
    long cols() const noexcept { return m_->c; }
    std::uint64_t modulus() const noexcept;
    typename T::mat_struct* get() noexcept { return m_; }
    const typename T::mat_struct* get() const noexcept { return m_; }

    // Entry (i, j), 0-based: a copy, and an assignment (NmodMat: v reduced mod p).
    // invalid_input for an index outside the shape. O(1) (O(size of the entry) over Z, Q).
    Entry at(long i, long j) const;
    void set(long i, long j, const Entry& v);
    // Same shape (NmodMat: and modulus) and entries. No precondition. O(rows·cols) entry
    // comparisons.
    friend bool operator==(const Mat& a, const Mat& b) { return a.equals(b); }
    bool equals(const Mat& o) const;

private:
    void check_index(long i, long j) const;
    typename T::mat_struct m_[1];
};

using ZMat = Mat<ZMatTraits>;
using QMat = Mat<QMatTraits>;
using NmodMat = Mat<NmodMatTraits>;

extern template class Mat<ZMatTraits>;
extern template class Mat<QMatTraits>;
extern template class Mat<NmodMatTraits>;

// A mod p (entrywise residues in [0, p)); p >= 2 checked (invalid_input), the shape as the
// constructor. O(rows·cols) reductions, each linear in the entry's size.
NmodMat reduce_mod(const ZMat& a, std::uint64_t p);

// clear_denominators(A) = D·A with D = diag(d_1..d_m), d_i the lcm of the denominators
// in row i of A (1 for a zero row): row i times d_i, an integer row. D is invertible
// over Q, so D·A has the row space, the kernel and the rank of A:
// rank_Q(clear_denominators(A)) = rank_Q(A). FLINT's fmpq_mat_get_fmpz_mat_rowwise.
// The sparse form (SparseQMat → SparseZMat) is in matrix_io.hpp. No precondition (the
// shape as the constructor). Cost: one lcm and one product per entry, O(rows·cols) exact
// operations on numbers that grow with each row's denominators.
ZMat clear_denominators(const QMat& a);

}  // namespace seprank
