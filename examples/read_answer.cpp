// Reading a RankAnswer: the rank over Q of a matrix with rational entries, then what the
// answer says it is (a switch on RankKind), how sure it is (failure_bound) and where the
// time went (Phases). docs/library.md, "Reading an answer", shows this file.
//
// Same matrix as `seprank rank --matrix rational_matrix.mtx` (examples/read_answer.check).
// Rows 2 and 3 are 1/2 and -2/3 times row 1, row 4 is independent: rank 2.
#include <seprank/matrix_io.hpp>
#include <seprank/rank.hpp>

#include <iostream>

int main() {
    try {
        const char* const text =
            "%%MatrixMarket matrix coordinate rational general\n"
            "4 2 7\n"
            "1 1 1\n"   "1 2 3/7\n"
            "2 1 1/2\n" "2 2 3/14\n"
            "3 1 -2/3\n" "3 2 -2/7\n"
            "4 2 5/3\n";
        const seprank::SparseQMat q = seprank::parse_matrix_market_rational(text, "example");
        // Each row times the lcm of its denominators: an integer matrix of the same rank.
        const seprank::SparseZMat a = seprank::clear_denominators(q);
        const seprank::RankAnswer r = seprank::rank_certified(a);

        std::cout << "rank " << r.value << '\n'
                  << "rows " << r.rows << '\n'
                  << "cols " << r.cols << '\n'
                  << "kind " << seprank::to_string(r.kind) << '\n'
                  << "label " << r.label() << '\n';
        switch (r.kind) {
            case seprank::RankKind::exact:  // the rank over Q, proven; failure_bound is 0
                std::cout << "certified true\n";
                break;
            case seprank::RankKind::modular_lower_bound:  // value <= the rank over Q
            case seprank::RankKind::generic:              // the generic rank, except with probability <= failure_bound
            case seprank::RankKind::numerical:            // floating point, no bound
                std::cout << "certified false\n";
                break;
        }
        std::cout << "failure_bound " << r.failure_bound << '\n';
        const seprank::Phases& t = r.phases;  // seconds per phase; their sum is at most r.seconds
        std::cerr << "matrix " << t.matrix << " s, rank " << t.rank << " s, certificate " << t.certificate
                  << " s, in all " << r.seconds << " s (" << r.variant << ")\n";
        return 0;
    } catch (const std::exception& e) {  // invalid_input names the entry and its line
        std::cerr << "read_answer: " << e.what() << '\n';
        return 1;
    }
}
