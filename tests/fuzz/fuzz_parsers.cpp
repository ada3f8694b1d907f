// Mutational fuzz driver for seprank's parsers (no libFuzzer needed). Usage:
//   fuzz_parsers PARSER [ITERATIONS]     PARSER: poly | weights | matrix | partition | table
//                                               | guess_table | guess_predict
// Seeded from SEPRANK_SEED (printed; default: the time). Each iteration mutates an input
// drawn from a small seed corpus plus the inputs found so far (byte flips, insertions of
// grammar tokens, deletions, duplications, splices) and feeds it to the parser. A typed
// seprank error (invalid_input, domain_error, resource_limit) is the expected outcome
// of bad input; anything else — another exception, or a crash caught by the sanitizers
// this target is built with — prints the input and the seed and fails.
#include "seprank/error.hpp"
#include "seprank/guess.hpp"
#include "seprank/matrix_io.hpp"
#include "seprank/network.hpp"
#include "seprank/partition.hpp"
#include "seprank/poly_io.hpp"
#include "seprank/random.hpp"
#include "seprank/table.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <flint/fmpz.h>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Target = std::function<void(const std::string&)>;

struct Parser {
    std::vector<std::string> seeds, tokens;
    Target run;
};

Parser make(const std::string& name) {
    Parser p;
    if (name == "poly") {
        p.seeds = {"3/4*x1_2^3*x2_1 - x1_1 + 2", "(x1_1 + x1_1^2)*x2_1", "-(x1_1-x2_2)^3", "((x1_1))", "x1_1/2 + 7"};
        p.tokens = {"(", ")", "+", "-", "*", "/", "^", "x1_1", "x2_1", "x3_2", "0", "1", "99999999999", "^1000", "^64", " ", "_", "y"};
        p.run = [](const std::string& t) {
            seprank::ParseLimits lim;
            lim.max_exponent = 200;
            lim.max_power_of_sum = 20;
            lim.max_terms = 20000;
            auto ctx = seprank::QContext::make(seprank::variables_in(t));
            (void)seprank::parse_poly(t, ctx, lim);
        };
    } else if (name == "weights") {
        p.seeds = {R"({"family":"hadamard","tokens":2,"dim":1,"block_degree":2,"width":1,"depth":1,"layers":[{"W":[[[1]],[[2]]],"O":[[1]]}]})",
                   R"({"family":"fc","tokens":2,"dim":1,"block_degree":2,"widths":[1],"depth":1,"layers":[{"W":[[[1,1]],[[1,-1]]]}]})",
                   R"({"family":"attention","tokens":2,"dim":1,"heads":1,"depth":1,"layers":[{"heads":[{"Q":[[1]],"K":[["1/2"]],"V":[[2]],"O":[[1]]}]}]})"};
        p.tokens = {"{", "}", "[", "]", ",", ":", "\"", "1", "-1", "\"1/0\"", "1e400", "1.5", "null", "true", "\"heads\"", "\"W\"",
                    "\"depth\"", "\"tokens\"", "99999999999999999999", "\"embedding\"", "\"embed_rank\"", "\"residual\"", "2"};
        p.run = [](const std::string& t) { (void)seprank::network_from_json(t); };
    } else if (name == "matrix") {
        p.seeds = {"%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 1\n2 2 -3\n",
                   "%%MatrixMarket matrix array integer general\n2 1\n5\n0\n",
                   "%%MatrixMarket matrix coordinate integer general\n% comment\n1 3 1\n1 3 7\n",
                   "%%MatrixMarket matrix coordinate rational general\n2 2 2\n1 1 1/2\n2 2 -3/4\n"};
        p.tokens = {"\n", " ", "%", "1", "2", "0", "-1", "999999999999", "coordinate", "array", "integer", "general", "\r\n", "+3",
                    "rational", "/", "/0", "1/3"};
        // Both readers on every input: the integer one, then the rational one and the
        // integer matrix of the same rank.
        p.run = [](const std::string& t) {
            try {
                (void)seprank::parse_matrix_market(t, "fuzz");
            } catch (const seprank::invalid_input&) {
            }
            (void)seprank::clear_denominators(seprank::parse_matrix_market_rational(t, "fuzz"));
        };
    } else if (name == "partition") {
        p.seeds = {"1,2|3,4", "1..3|4..6", "1,3|2,4", "1|2", "2..4|1"};
        p.tokens = {"|", ",", "..", "1", "2", "3", "7", "0", "-1", " ", "99999999999999999999", "a"};
        p.run = [](const std::string& t) {
            for (long n : {1L, 2L, 4L, 6L, 9L}) {
                try {
                    (void)seprank::parse_partition(t, n);
                } catch (const seprank::invalid_input&) {
                }
            }
        };
    } else if (name == "table") {
        const std::string hdr = seprank::csv_header();
        p.seeds = {"# seprank table sweep: trials=1 seed=1\n" + hdr + "\nattention,2,1,1,3,,1,false,1|2,3,4,10,2,false,generic,flattening,3,3,1,0,1e-20,0.63,7.2,,5.8,,ok,,0.01,10\n",
                   "{\"seprank_table_sweep\":\"trials=1\"}\n{\"family\":\"attention\",\"tokens\":2,\"rank\":2,\"status\":\"ok\"}\n"};
        p.tokens = {"\n", ",", "\"", "|", "{", "}", ":", "ok", "skipped", "attention", "2", "-", "#", "null", "1e400"};
        p.run = [](const std::string& t) {
            (void)seprank::parse_table_text(t, false, "fuzz");
            (void)seprank::parse_table_text(t, true, "fuzz");
        };
    } else if (name == "guess_table") {
        // guess's table reader (CSV, JSON array, JSON lines), then the points of n and v,
        // then a small search on them (few parameters: each input stays cheap).
        p.seeds = {"n,v\n0,1\n1,2\n2,5\n3,10\n4,17\n", "\xEF\xBB\xBFn,v,s\n1,3,x\n2,5,y\n3,7,z\n4,9,w\n",
                   "{\"seprank_table_sweep\":\"trials=1\"}\n{\"n\":0,\"v\":1}\n{\"n\":1,\"v\":2}\n{\"n\":2,\"v\":4}\n{\"n\":3,\"v\":8}\n",
                   "[{\"n\":0,\"v\":\"1\"},{\"n\":1,\"v\":1},{\"n\":2,\"v\":2},{\"n\":3,\"v\":3},{\"n\":4,\"v\":5}]"};
        p.tokens = {"\n", ",", "\"", "{", "}", "[", "]", ":", "n", "v", "#", "null", "1e400", "-", "99999999999999999999", "1000000000000",
                    "\xEF\xBB\xBF", "\"v\"", "\"n\"", "-9223372036854775808", "9223372036854775807", "\r\n", "0"};
        p.run = [](const std::string& t) {
            const auto cells = seprank::parse_table_cells(t, "fuzz");
            const auto pts = seprank::guess_points(cells, {"n"}, "v", {});
            // The search only on small n: an exponential term at n = 10^7 holds millions of
            // bits (within guess's budget, but seconds each), and the reader is the target.
            for (const seprank::GuessPoint& q : pts)
                if (q.x[0] > 4096 || q.x[0] < -4096) return;
            seprank::GuessOptions o;
            o.vars = {"n"};
            o.max_params = 4;
            const seprank::Guess g = seprank::guess_formula(pts, o);
            if (g.found) (void)seprank::guess_predict(g, {1000000000000L});  // refused (resource_limit) or computed
        };
    } else if (name == "guess_predict") {
        // --predict texts, parsed for (dim, depth) and evaluated by three guesses: a
        // binomial in both variables, an exp-linear form and a C-finite recurrence.
        p.seeds = {"dim=3,depth=4", "depth=2,dim=1", "dim=-1,depth=1", "dim=3,depth=100000", "dim=1000000000000,depth=1"};
        p.tokens = {"=", ",", "dim", "depth", "foo", "-", "0", "1", "9", "99999999999999999999", "1000000000000", "-9223372036854775808",
                    " ", "+", "1e3", "100000"};
        static const auto guesses = [] {
            std::vector<seprank::GuessPoint> binom, ex, fib;
            for (long d = 1; d <= 3; ++d)
                for (long depth = 1; depth <= 3; ++depth) {  // C((3^depth - 1)/2 + dim, dim)
                    long g = 1;
                    for (long k = 0; k < depth; ++k) g *= 3;
                    g = (g - 1) / 2;
                    seprank::Integer c(1);
                    for (long k = 1; k <= d; ++k) c = c * seprank::Integer(g + k);
                    long fac = 1;
                    for (long k = 2; k <= d; ++k) fac *= k;
                    fmpz_divexact_si(c.get(), c.get(), fac);
                    binom.push_back({{d, depth}, c});
                }
            seprank::Integer a(0), b(1);
            for (long n = 0; n < 10; ++n) {
                ex.push_back({{n, 0}, seprank::Integer((1L << n) + 1)});
                fib.push_back({{n}, a});
                const seprank::Integer c = a + b;
                a = b;
                b = c;
            }
            seprank::GuessOptions two, one;
            two.vars = {"dim", "depth"};
            one.vars = {"dim"};
            std::vector<seprank::Guess> out{seprank::guess_formula(binom, two), seprank::guess_formula(ex, two)};
            one.bases = {};
            one.max_degree = 1;
            out.push_back(seprank::guess_formula(fib, one));
            for (const auto& g : out)
                if (!g.found) throw std::runtime_error("guess_predict fuzz: a seed guess was not found");
            return out;
        }();
        // Points with a coordinate between 10^4 and 10^9 are only parsed: their values are
        // legitimate numbers of up to 2^26 bits, slow to compute again and again; smaller
        // ones are computed, larger ones must be refused at once by the size estimates.
        const auto mid = [](const std::vector<long>& x) {
            for (long v : x)
                if ((v > 10000 && v < 1000000000) || (v < -10000 && v > -1000000000)) return true;
            return false;
        };
        p.run = [mid](const std::string& t) {
            try {  // two variables: the binomial and the exp-linear guess
                const std::vector<long> x2 = seprank::parse_point(t, {"dim", "depth"});
                if (!mid(x2))
                    for (std::size_t k = 0; k < 2; ++k) {
                        try {
                            (void)seprank::guess_predict(guesses[k], x2);
                        } catch (const seprank::resource_limit&) {
                        }
                    }
            } catch (const seprank::invalid_input&) {
            }
            const std::vector<long> x1 = seprank::parse_point(t, {"dim"});  // the recurrence
            if (!mid(x1)) (void)seprank::guess_predict(guesses[2], x1);
        };
    } else {
        throw std::runtime_error("unknown parser '" + name + "' (poly, weights, matrix, partition, table, guess_table, guess_predict)");
    }
    return p;
}

std::string mutate(std::string s, const Parser& p, const std::vector<std::string>& pool, seprank::Rng& rng) {
    const int rounds = 1 + static_cast<int>(rng.below(4));
    for (int r = 0; r < rounds; ++r) {
        const std::size_t n = s.size();
        switch (rng.below(7)) {
            case 0:  // flip a byte
                if (n) s[rng.below(n)] = static_cast<char>(rng.below(256));
                break;
            case 1:  // insert a grammar token
                s.insert(n ? rng.below(n + 1) : 0, p.tokens[rng.below(p.tokens.size())]);
                break;
            case 2:  // delete a range
                if (n) {
                    const std::size_t a = rng.below(n);
                    s.erase(a, 1 + rng.below(std::min<std::size_t>(16, n - a)));
                }
                break;
            case 3:  // duplicate a range
                if (n && s.size() < 1024) {
                    const std::size_t a = rng.below(n), len = 1 + rng.below(std::min<std::size_t>(32, n - a));
                    s.insert(rng.below(n + 1), s.substr(a, len));
                }
                break;
            case 4: {  // splice with another input
                const std::string& o = pool[rng.below(pool.size())];
                if (!o.empty() && n) s = s.substr(0, rng.below(n)) + o.substr(rng.below(o.size()));
                break;
            }
            case 5:  // repeat one token many times (deep nesting, long runs)
                s.insert(n ? rng.below(n + 1) : 0, std::string(1 + rng.below(300), "([{+-,|\n"[rng.below(8)]));
                break;
            default:  // truncate
                if (n) s.resize(rng.below(n));
        }
    }
    if (s.size() > 2048) s.resize(2048);  // small inputs: 10^5 of them in about a minute
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: fuzz_parsers poly|weights|matrix|partition|table|guess_table|guess_predict [ITERATIONS]\n";
        return 2;
    }
    const std::string name = argv[1];
    const long iterations = argc > 2 ? std::atol(argv[2]) : 100000;
    const char* env = std::getenv("SEPRANK_SEED");
    const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10)
                                   : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    std::cout << "SEPRANK_SEED=" << seed << " parser=" << name << " iterations=" << iterations << std::endl;
    const Parser p = make(name);
    seprank::Rng rng(seed);
    std::vector<std::string> pool = p.seeds;
    long accepted = 0, rejected = 0, limited = 0;
    for (long k = 0; k < iterations; ++k) {
        const std::string input = mutate(pool[rng.below(pool.size())], p, pool, rng);
        try {
            p.run(input);
            ++accepted;
            if (pool.size() < 512) pool.push_back(input);  // keep inputs that parse: they reach deeper
        } catch (const seprank::invalid_input&) {
            ++rejected;
            if (rng.below(64) == 0 && pool.size() < 512) pool.push_back(input);
        } catch (const seprank::domain_error&) {
            ++rejected;
        } catch (const seprank::resource_limit&) {
            ++limited;
        } catch (const std::exception& e) {
            std::cerr << "FAIL: parser " << name << " threw " << e.what() << " (not a seprank error) at iteration " << k
                      << ", SEPRANK_SEED=" << seed << "\ninput (" << input.size() << " bytes):\n"
                      << input << "\n";
            return 1;
        }
    }
    std::cout << name << ": " << iterations << " inputs, " << accepted << " accepted, " << rejected << " rejected, " << limited
              << " over a limit; no crash\n";
    return 0;
}
