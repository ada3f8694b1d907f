#include "seprank/grid.hpp"

#include "base/json_file.hpp"
#include "seprank/limits.hpp"
#include "seprank/error.hpp"
#include "seprank/forward.hpp"
#include "seprank/random.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

namespace seprank {

Templates random_templates(long m, long per, std::uint64_t seed, long range) {
    if (m < 1) throw invalid_input("number of templates M = " + std::to_string(m) + " must be at least 1");
    // a vector of `per` rationals each (fmpq, 16 bytes and its allocation) and its header
    check_memory((64.0 + 32.0 * static_cast<double>(std::max(1L, per))) * static_cast<double>(m), default_max_memory(),
                 "grid: " + std::to_string(m) + " templates of " + std::to_string(per) + " values");
    if (range < 1) throw invalid_input("template range " + std::to_string(range) + " must be at least 1");
    Rng rng(seed);
    Templates t(static_cast<std::size_t>(m));
    for (auto& v : t)
        for (long c = 0; c < per; ++c) v.push_back(Rational(rng.range(-range, range)));
    return t;
}

Templates read_templates(const std::string& path, long per) {
    const nlohmann::json j = detail::read_json_file(path, "templates file");
    if (!j.is_array() || j.empty()) throw invalid_input("templates JSON $: expected a non-empty list of vectors");
    Templates t;
    for (std::size_t k = 0; k < j.size(); ++k) {
        const std::string p = "$[" + std::to_string(k) + "]";
        if (per < 0 && j[k].is_array() && !j[k].empty()) per = static_cast<long>(j[k].size());  // the first vector's length
        if (!j[k].is_array() || static_cast<long>(j[k].size()) != per)
            throw invalid_input("templates JSON " + p + ": expected a vector of " + (per < 0 ? std::string("one or more") : std::to_string(per)) + " values");
        std::vector<Rational> v;
        for (std::size_t c = 0; c < j[k].size(); ++c) {
            const auto& x = j[k][c];
            const std::string pc = p + "[" + std::to_string(c) + "]";
            if (x.is_number_integer()) v.push_back(Rational(x.get<long>()));
            else if (x.is_string()) {
                try {
                    v.push_back(Rational(std::string_view(x.get_ref<const std::string&>())));
                } catch (const invalid_input& e) {
                    throw invalid_input("templates JSON " + pc + ": " + e.what());
                }
            } else
                throw invalid_input("templates JSON " + pc + ": expected an integer or \"p/q\", got " + x.dump());
        }
        t.push_back(std::move(v));
    }
    return t;
}

std::pair<long, long> grid_shape(long m, const ValidPartition& part, long max_entries) {
    if (m < 1) throw invalid_input("number of templates M = " + std::to_string(m) + " must be at least 1");
    const long N = static_cast<long>(part->A.size() + part->B.size());
    const std::string what = "grid tensor with M = " + std::to_string(m) + " templates and N = " + std::to_string(N) + " tokens";
    auto power = [&](std::size_t e) {
        long r = 1;
        for (std::size_t k = 0; k < e; ++k) {
            if (r > max_entries / m) throw resource_limit(what + " exceeds " + std::to_string(max_entries) + " entries (M^N)");
            r *= m;
        }
        return r;
    };
    const long rows = power(part->A.size()), cols = power(part->B.size());
    if (rows > max_entries / cols) throw resource_limit(what + " exceeds " + std::to_string(max_entries) + " entries (M^N)");
    check_memory(40.0 * static_cast<double>(rows) * static_cast<double>(cols), default_max_memory(),
                 what + ": its " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    return {rows, cols};
}

SparseZMat grid_matricization(const Network& net, const ValidPartition& part, const Templates& t, long max_entries) {
    const ValidSpec valid = check_shapes(net);  // the network once: the evaluations below do not check it
    const NetworkSpec& s = valid.get();
    part.check_tokens(s.tokens);
    const long m = static_cast<long>(t.size()), per = input_vars_per_token(s);
    if (m < 1) throw invalid_input("grid: no templates");
    for (const auto& v : t)
        if (static_cast<long>(v.size()) != per)
            throw invalid_input("grid: template of length " + std::to_string(v.size()) + ", tokens have " + std::to_string(per) + " variables");
    const auto [rows, cols] = grid_shape(m, part, max_entries);
    SparseZMat out;
    out.rows = rows;
    out.cols = cols;
    out.row.resize(static_cast<std::size_t>(rows));
    Point<Rational> x(static_cast<std::size_t>(s.tokens));
    std::vector<Rational> vals(static_cast<std::size_t>(cols));
    for (long r = 0; r < rows; ++r) {
        // digits of r in base M, most significant first, give the templates of a_1, a_2, …
        long rr = r;
        for (std::size_t k = part->A.size(); k-- > 0;) {
            x[static_cast<std::size_t>(part->A[k] - 1)] = t[static_cast<std::size_t>(rr % m)];
            rr /= m;
        }
        Integer lcm(1);
        for (long c = 0; c < cols; ++c) {
            long cc = c;
            for (std::size_t k = part->B.size(); k-- > 0;) {
                x[static_cast<std::size_t>(part->B[k] - 1)] = t[static_cast<std::size_t>(cc % m)];
                cc /= m;
            }
            vals[static_cast<std::size_t>(c)] = evaluate(net, x);
            fmpz_lcm(lcm.get(), lcm.get(), fmpq_denref(vals[static_cast<std::size_t>(c)].get()));
        }
        auto& row = out.row[static_cast<std::size_t>(r)];
        for (long c = 0; c < cols; ++c) {
            const Rational& v = vals[static_cast<std::size_t>(c)];
            if (v.is_zero()) continue;
            Integer e;
            fmpz_divexact(e.get(), lcm.get(), fmpq_denref(v.get()));
            fmpz_mul(e.get(), e.get(), fmpq_numref(v.get()));
            row.emplace_back(c, std::move(e));
        }
    }
    return out;
}

}  // namespace seprank
