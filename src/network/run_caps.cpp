// seprank — runs of layers capped by the forms they compose into (run_caps.hpp).
#include "run_caps.hpp"

#include "seprank/integer.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <utility>

namespace seprank::detail {

namespace {

// Layer b's read rows, `forms` dimensions of forms in M coefficients each, as its output
// writes them: themselves (dense), or through an mlp's W2 (out_rows × rows): its columns less
// one scale per row (power >= 2; one output read of power 2 is Σ_k β_k f_k², a quadric of
// rank <= rows on the M-dimensional space of forms, which O(rows) keeps), or one matrix of
// rank <= rows (power 1). `why` gets the words for the loss line. O(1).
long through_output(const LayerCount& b, long forms, long M, std::string& why) {
    why.clear();
    if (b.out_rows == 0 || forms == LONG_MAX || M == LONG_MAX) return forms;
    const std::string w = std::to_string(b.rows), n = std::to_string(b.out_rows);
    if (b.forms_degree == 1) {
        if (b.rows == 1) {
            why = ", then W2's column (" + n + " - 1 more)";
            return forms + b.out_rows - 1;
        }
        why = ", then W2: one " + n + " x " + std::to_string(M) + " matrix of rank <= " + w;
        return low_rank_dim(b.out_rows, M, std::min({b.rows, M, b.out_rows}));
    }
    const long tail = sat_mul(b.rows, b.out_rows - 1);
    long cap = tail > LONG_MAX - forms ? LONG_MAX : forms + tail;
    why = b.out_rows == 1 ? ", each unit's scale taken by W2" : ", then W2's columns (" + n + " - 1 more per unit)";
    if (b.out_rows == 1 && b.forms_degree == 2 && b.rows >= 2) {
        const long q = std::min(b.rows, M), squares = quadric_dim(M, q);
        if (squares < cap) {
            cap = squares;
            why = ", then W2's one output read, a sum of " + w + " squares of them: a quadric of rank <= " + std::to_string(q) + " on the " +
                  std::to_string(M) + " forms, " + std::to_string(squares) + " dimensions (O(" + std::to_string(q) + ") keeps the sum)";
        }
    }
    return cap;
}

}  // namespace

void run_caps(const std::vector<LayerCount>& c, const std::vector<long>& gl, const std::vector<long>& shown, Losses& losses) {
    const std::size_t L = c.size();
    // The run of 0-based layers a..b (b > a): its saving (0 where none applies), the degree
    // D of its last layer's pre-activations and their monomials M.
    struct Run {
        long saving = 0, M = 0;
        Integer D{1};
        long quadric_rank = 0;  // > 0: one read quadric, of rank <= this, whose rank binds
        long square_forms = 0;  // > 0: its squares are of forms of degree square_degree > 1, this many coefficients each
        Integer square_degree{1};
        bool products = false;  // a layer of products of forms (fc) in the run: only the forms written cap it
        std::string why;        // through_output's words
    };
    const auto run = [&](std::size_t a, std::size_t b) {
        Run r;
        long eff = 0;
        long width = c[a].forms_in;  // the narrowest layer up to the last power layer
        Integer below(1);            // the degree of layer b − 1's pre-activations
        for (std::size_t l = a; l <= b; ++l) {
            // each layer reads the forms the one before writes (not, say, the tokens an mlp wrote
            // one by one, flattened by a dense layer: forms in N times the variables)
            if (c[l].forms_in <= 0 || (l > a && c[l].forms_in != c[l - 1].n_next)) return Run{};
            eff += c[l].eff - (l < b ? gl[l] : 0);
            r.products = r.products || c[l].products;
            if (l < b && r.D == Integer(1)) width = std::min(width, c[l].rows);
            if (l < b) r.D = r.D * Integer(c[l].forms_degree);
            if (l + 1 < b) below = below * Integer(c[l].forms_degree);
        }
        if (r.D == Integer(1)) return Run{};
        r.M = monomials(c[a].forms_in, r.D, false);
        // (fc's units are products of d forms, not one form each: the written cap below only)
        long cap = r.M == LONG_MAX || r.products ? LONG_MAX : through_output(c[b], sat_mul(c[b].rows, r.M - c[b].row_loss), r.M, r.why);
        // The run's outputs themselves: each a form of degree D·r_b in the forms_in
        // variables (mlp:power=2:width=3,mlp:power=2,mlp:power=2:width=4 at N = 1, dx = 4,
        // scalar: layers 2..3 write a ternary quartic, 15, where its units' forms gave 18).
        const long outs = c[b].out_rows > 0 ? c[b].out_rows : c[b].rows;
        const long written = sat_mul(outs, monomials(c[a].forms_in, r.D * Integer(c[b].forms_degree), false));
        if (written < cap) {
            cap = written;
            r.why = r.products ? (outs == 1 ? std::string("its output is a form") : "its " + std::to_string(outs) + " outputs are forms") + " of degree " +
                                     (r.D * Integer(c[b].forms_degree)).str() + " in the " + std::to_string(c[a].forms_in) + " variables layer " +
                                     std::to_string(shown[a]) + " reads: " + std::to_string(written) + " coefficients"
                               : ", and its " + std::to_string(outs) + (outs == 1 ? " output, a form" : " outputs, forms") + " of degree " +
                    (r.D * Integer(c[b].forms_degree)).str() + " in those variables: " + std::to_string(written) + " coefficients";
        }
        // One read form of degree 2 (one row, or an mlp's linear rows read at one output):
        // Σ_k β_k (v_k·z)², a quadric of rank at most the number of squares and the widths
        // before them; those of rank <= b in n variables are b·n − C(b, 2) dimensions (O(b)
        // keeps the sum: Alexander–Hirschowitz's squares).
        const bool one_form = c[b].rows == 1 || (c[b].out_rows == 1 && c[b].forms_degree == 1);
        if (r.D == Integer(2) && one_form && !r.products) {
            const long n = c[a].forms_in, q = std::min(width, n);
            std::string why;
            const long forms = quadric_dim(n, q) - c[b].row_loss;
            const long quadrics = c[b].rows == 1 ? through_output(c[b], forms, r.M, why) : forms;
            if (quadrics < cap) {
                cap = quadrics;
                r.quadric_rank = q;
                r.why = why;
            }
        }
        // One read form that a dense layer of power 2 writes from pre-activations of degree
        // e >= 2: Σ_k β_k u_k², the u_k forms of degree e in the n variables (M_e of them),
        // each in the span of the forms_in that layer reads: a quadric of rank <= q = min(k,
        // M_e, forms_in) on the M_e-dimensional space of forms, quadric_dim(M_e, q) dimensions
        // at most (O(q) keeps the sum). `--family power --widths 4,2,1 --power 2 --dim 3`: 11
        // as measured; 12 before, where the run of layers 1..2 and layer 3's quadric in the
        // two rows overlapped and only one of them was taken (an audit, 2026-12-02).
        if (b >= a + 2 && below > Integer(1) && c[b].rows == 1 && !r.products && c[b - 1].forms_degree == 2 && c[b - 1].out_rows == 0 &&
            !c[b - 1].products) {
            const long Me = monomials(c[a].forms_in, below, false);
            if (Me != LONG_MAX) {
                const long q = std::min({c[b - 1].rows, Me, c[b - 1].forms_in});
                std::string why;
                const long squares = through_output(c[b], quadric_dim(Me, q) - c[b].row_loss, r.M, why);
                if (q >= 2 && squares < cap) {
                    cap = squares;
                    r.quadric_rank = q;
                    r.square_forms = Me;
                    r.square_degree = below;
                    r.why = why;
                }
            }
        }
        r.saving = cap < eff ? eff - cap : 0;
        return r;
    };
    // best[m]: the largest saving of layers < m; chosen[m]: the run ending at layer m − 1 there
    std::vector<long> best(L + 1, 0), from(L + 1, 0);
    std::vector<Run> chosen(L + 1);
    for (std::size_t m = 1; m <= L; ++m) {
        best[m] = best[m - 1];
        for (std::size_t a = 0; a + 1 < m; ++a) {
            Run r = run(a, m - 1);
            // the whole network's run of dense layers: the ambient space's cap (an mlp's W2 after
            // its powers, one quadric read, or a last layer of power r > 1, whose outputs are
            // r-th powers of the forms it reads, bound it below that: dense:power=2:width=2,
            // dense:power=2:width=1 at N = 1, dx = 2 is the square of a binary quadric, 3 as
            // measured, not the 4 its parameters gave under the ambient 5; an audit's sweep)
            if (a == 0 && m == L && r.quadric_rank == 0 && c[m - 1].out_rows == 0 && c[m - 1].forms_degree <= 1) continue;
            if (r.saving > 0 && best[a] + r.saving > best[m]) {
                best[m] = best[a] + r.saving;
                from[m] = a;
                chosen[m] = std::move(r);
            }
        }
    }
    std::vector<std::pair<std::string, long>> runs;  // last first
    for (std::size_t m = L; m >= 1;) {
        if (best[m] == best[m - 1]) {
            --m;
            continue;
        }
        const std::size_t a = from[m];
        const Run& r = chosen[m];
        const LayerCount& last = c[m - 1];
        if (r.square_forms > 0) {
            const long q = r.quadric_rank, Me = r.square_forms;
            runs.push_back({"layers " + std::to_string(shown[a]) + ".." + std::to_string(shown[m - 1]) + ": layer " + std::to_string(shown[m - 1]) +
                                "'s read row is a sum of " + std::to_string(c[m - 2].rows) + " squares of layer " + std::to_string(shown[m - 2]) +
                                "'s pre-activations, forms of degree " + r.square_degree.str() + " in " + std::to_string(c[a].forms_in) +
                                " variables (" + std::to_string(Me) + " coefficients each): a quadric of rank <= " + std::to_string(q) + " on them, " +
                                std::to_string(q) + "·" + std::to_string(Me) + " - C(" + std::to_string(q) + ", 2) coefficients" +
                                (last.row_loss ? ", less its scale" : "") + " (O(" + std::to_string(q) + ") keeps the sum)" + r.why,
                            r.saving});
            m = a;
            continue;
        }
        if (r.quadric_rank > 0) {
            const long q = r.quadric_rank;
            runs.push_back({"layers " + std::to_string(shown[a]) + ".." + std::to_string(shown[m - 1]) + ": layer " + std::to_string(shown[m - 1]) +
                                "'s read row is a sum of squares of forms in " + std::to_string(c[a].forms_in) + " variables, a quadric of rank <= " +
                                std::to_string(q) + ": " + std::to_string(q) + "·" + std::to_string(c[a].forms_in) + " - C(" + std::to_string(q) +
                                ", 2) coefficients" + (last.row_loss ? ", less its scale" : "") + " (O(" + std::to_string(q) + ") keeps the sum)" + r.why,
                            r.saving});
            m = a;
            continue;
        }
        if (r.products) {  // the written cap: r.why has the forms and their count
            runs.push_back({"layers " + std::to_string(shown[a]) + ".." + std::to_string(shown[m - 1]) + ": products of forms composed, " + r.why,
                            r.saving});
            m = a;
            continue;
        }
        runs.push_back({"layers " + std::to_string(shown[a]) + ".." + std::to_string(shown[m - 1]) + ": layer " + std::to_string(shown[m - 1]) + "'s " +
                            (last.rows == 1 ? std::string("read row is a form") : std::to_string(last.rows) + " read rows are forms") + " of degree " +
                            r.D.str() + " in " + std::to_string(c[a].forms_in) + " variables, " + std::to_string(r.M) + " coefficients each" +
                            (last.row_loss ? ", less its scale" : "") + ", whatever the widths between" + r.why,
                        r.saving});
        m = a;
    }
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) add_loss(losses, it->first, it->second);
}

}  // namespace seprank::detail
