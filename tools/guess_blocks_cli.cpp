// seprank guess --blocks — a law for a block table's degree blocks (guess_blocks.hpp,
// docs/guess_blocks.md): read the table, one library call, format; --predict, --check
// (generic's graded evaluation at the point, block by block) and --against (the rows of
// another block table).
#include "guess_blocks_cli.hpp"

#include "seprank/generic.hpp"
#include "seprank/guess_blocks.hpp"
#include "seprank/partition.hpp"

#include <climits>
#include <cmath>
#include <sstream>

namespace seprank_cli {

namespace {

// At most the first 40 and the last 10 blocks: a deep network has tens of thousands (JSON
// lists every one).
std::string blocks_text(const std::vector<seprank::BlockPrediction>& pred) {
    std::string s;
    const std::size_t n = pred.size(), head = 40, tail = 10;
    for (std::size_t i = 0; i < n; ++i) {
        if (n > head + tail + 1 && i == head) {
            s += " … (" + std::to_string(n - head - tail) + " blocks more; --format json lists every one) …";
            i = n - tail - 1;
            continue;
        }
        s += (s.empty() ? "" : " ") + std::to_string(pred[i].block) + ":" + std::to_string(pred[i].predicted);
    }
    return s;
}

// "1 block differs", "3 blocks differ".
std::string differ_text(std::size_t n) { return n == 1 ? std::string("1 block differs") : std::to_string(n) + " blocks differ"; }

// --check's result at one point (check_block_prediction), as JSON and as the text line's tail.
json check_point(const seprank::BlockPredictionCheck& k, std::string& shown) {
    json c;
    c["verdict"] = k.verdict;
    if (k.ran) {
        c["seconds"] = std::round(k.seconds * 1e3) / 1e3;
        c["generic"] = k.generic;
        c["label"] = k.label;
        c["failure_bound"] = k.failure_bound;
    }
    if (k.verdict == "unchecked") {
        c["reason"] = k.reason;
        shown = " [unchecked: " + k.reason + "]";
        return c;
    }
    json differ = json::array();
    std::string d;
    for (const auto& [p, got] : k.differ) {
        differ.push_back({{"block", p.block}, {"predicted", p.predicted}, {"generic", got}});
        d += "; block " + std::to_string(p.block) + ": predicted " + std::to_string(p.predicted) + ", generic " + std::to_string(got);
    }
    c["differ"] = differ;
    shown = " [generic " + std::to_string(k.generic) + ", " + seprank::label_with_bound(k.label, k.failure_bound) + ": " +
            (k.differ.empty() ? "agree, every block" : "disagree" + d) + "]";
    return c;
}

// The refutation line's proviso: none where a block's rank is above the law (a certified
// lower bound above it) or certain, else the largest failure bound of the generic ranks
// below it.
std::string unless_low(bool certain, double chance) {
    if (certain || !(chance > 0)) return "";
    if (chance >= 1) return ", unless a generic rank below the law is low: its row gives no failure bound";
    std::ostringstream b;
    b << ", unless a generic rank below the law is low: probability <= " << seprank::bound_up(chance, 3);
    return b.str();
}

}  // namespace

std::vector<std::vector<long>> predict_points(const std::vector<std::string>& predict, const std::vector<std::string>& vars) {
    std::vector<std::vector<long>> points;
    for (const std::string& p : predict) {
        try {
            points.push_back(seprank::parse_point(p, vars));
        } catch (const seprank::invalid_input& e) {
            std::string text = std::string("--predict ") + e.what();
            if (text.size() > 12 && text.compare(text.size() - 12, 12, " given twice") == 0)
                text += " (a point gives each variable once: several points are several --predict options)";
            throw seprank::invalid_input(text);
        }
    }
    return points;
}

int run_guess_blocks(const GuessBlocksRequest& rq, Notes& notes) {
    seprank::BlockLawOptions o;
    o.vars = rq.vars;
    o.max_forms = rq.max_forms;
    o.max_exceptions = rq.max_exceptions;
    seprank::check_options(o);
    const std::vector<std::vector<long>> points = predict_points(rq.predict, o.vars);
    std::vector<std::vector<seprank::TableRow>> against;
    for (const std::string& f : rq.against) against.push_back(seprank::read_table_cells(f));  // read (and refused) before the search
    const auto cells = seprank::read_table_cells(rq.table);
    const auto t0 = std::chrono::steady_clock::now();
    const seprank::BlockLaw law = seprank::guess_block_law(cells, rq.where, o);
    const double secs = seconds_since(t0);
    const auto point_text = [&](const std::vector<long>& x) {
        std::string s;
        for (std::size_t i = 0; i < x.size(); ++i) s += (i ? "," : "") + o.vars[i] + "=" + std::to_string(x[i]);
        return s;
    };
    const auto point_json = [&](const std::vector<long>& x) {
        json p = json::object();
        for (std::size_t i = 0; i < x.size(); ++i) p[o.vars[i]] = x[i];
        return p;
    };
    const auto row_json = [&](const seprank::BlockPoint& p, long law_value) {
        json r = point_json(p.x);
        if (p.name != point_text(p.x)) r["configuration"] = p.name;  // other key columns that differ
        r["block"] = p.block;
        r["rank"] = p.rank;
        r["law"] = law_value;
        return r;
    };
    json j;
    j["table"] = rq.table;
    j["vars"] = o.vars;
    j["rows"] = law.rows.size();
    j["rows_not_ok"] = law.not_ok;
    j["found"] = law.found;
    j["terms_tried"] = law.tried;
    j["seconds"] = std::round(secs * 1e4) / 1e4;
    json exc = json::array(), hexc = json::array();
    for (const auto& e : law.exceptions) exc.push_back(row_json(law.rows[e.row], e.law));
    for (const auto& e : law.held_out_exceptions) hexc.push_back(row_json(law.rows[e.row], e.law));
    for (const std::string& n : law.notes) notes.add(n);  // (configurations left out say why, law or none)
    if (!law.found) {
        notes.emit(rq.format == "json" ? &j : nullptr);  // on stderr too: why rows were left out
        j["reason"] = law.reason;
        j["best"] = law.text();
        j["exceptions"] = exc;
        j["held_out_exceptions"] = hexc;
        if (rq.format == "json") std::cout << json_text(j, 2) << "\n";
        std::cerr << "seprank: no guess: " << law.reason << "\n";
        return 1;
    }
    j["law"] = law.text();
    json forms = json::array();
    for (const auto& t : law.forms) forms.push_back(t.text(o.vars));
    j["forms"] = forms;
    j["kind"] = "conjecture";
    j["caps_only"] = law.forms.empty();  // the law is the caps' bound itself
    j["fitted"] = law.fitted;
    j["confirmed"] = law.confirmed;
    j["held_out"] = law.held_out;
    j["at_cap"] = law.at_cap;
    j["exceptions"] = exc;
    j["held_out_exceptions"] = hexc;
    std::ostringstream extra;
    std::vector<std::string> refuted;  // where a --check or --against found a block the law misses: exit 1 after the answer
    json preds = json::array();
    for (const std::vector<long>& x : points) {
        const auto pred = seprank::predict_blocks(law, cells, rq.where, x);
        for (const std::string& n : seprank::prediction_notes(law, x)) notes.add("--predict " + point_text(x) + ": " + n);
        long total = 0;
        json blocks = json::array();
        for (const auto& p : pred) {
            total += p.predicted;  // each below 2^61 (predict_blocks)
            if (total >= LONG_MAX / 4)
                throw seprank::resource_limit("guess --blocks: the predicted total at " + point_text(x) + " passes 2^61: too large to predict");
            const auto cap = [&](long c) { return p.cap_saturated(c) ? json(nullptr) : json(c); };  // null: past 2^61, unknown
            blocks.push_back({{"block", p.block}, {"k", p.k}, {"j", p.j}, {"cap_a", cap(p.cap_a)}, {"cap_b", cap(p.cap_b)}, {"predicted", p.predicted}});
        }
        json pj;
        pj["point"] = point_json(x);
        // The configuration predicted, as a block table's rows name it: `generic --hint-blocks`
        // takes this output and uses the prediction whose key is its network's.
        const seprank::PredictionNetwork at = seprank::prediction_network(cells, rq.where, law.vars, x);
        pj["network"] = describe(at.spec);
        pj["partition"] = seprank::to_string(at.part);
        pj["key"] = seprank::row_key(at.spec, at.part, !cells.empty() && seprank::table_cell(cells.front(), "layers") != nullptr);
        pj["total"] = total;
        pj["blocks"] = blocks;
        std::string shown;
        if (rq.do_check) {
            const seprank::BlockPredictionCheck k = seprank::check_block_prediction(at, pred, rq.check);
            pj["check"] = check_point(k, shown);
            if (k.verdict == "disagree")
                refuted.push_back("--check at " + point_text(x) + " (" + differ_text(k.differ.size()) + unless_low(k.certain, k.failure_bound) + ")");
        }
        preds.push_back(pj);
        extra << "predict     " << point_text(x) << " (" << pj["network"].get<std::string>() << ", partition " << pj["partition"].get<std::string>()
              << "): total " << total << shown << "\n"
              << "            blocks " << blocks_text(pred) << "\n";
    }
    if (!points.empty()) j["predictions"] = preds;
    json ag = json::array();
    for (std::size_t f = 0; f < against.size(); ++f) {
        std::vector<seprank::LawComparison> compared;
        seprank::LawComparisonLeftOut left;
        try {
            compared = seprank::compare_law(law, against[f], rq.where, &left);
        } catch (const seprank::invalid_input& e) {  // name the file the row is in
            throw seprank::invalid_input("--against " + rq.against[f] + ": " + e.what());
        }
        if (left.rows > 0)
            notes.add("--against " + rq.against[f] + ": " + std::to_string(left.rows) + " block rows of another configuration than the law's rows are left out, e.g. " +
                      left.why);
        for (const auto& c : compared) {
            json cj;
            cj["table"] = rq.against[f];
            cj["configuration"] = c.name;
            cj["rows"] = c.rows;
            cj["agree"] = c.agree;
            cj["lower_bounds"] = c.lower_bounds;
            json d = json::array();
            std::string dt;
            // A computed rank above the law's value is a certified lower bound above it: a
            // disproof. One below it disproves only if that generic rank is the generic one:
            // up to its failure bound (the largest of them said; compare_law).
            const bool certain = c.refuted_for_certain;
            const double chance = c.refutation_failure_bound;
            for (const auto& [p, v] : c.differ) {
                json e = row_json(p, v);
                if (p.lower_bound) e["lower_bound"] = true;  // rank is a bound above the law: a disproof all the same
                if (p.failure_bound > 0) e["failure_bound"] = p.failure_bound;
                d.push_back(e);
                dt += "; block " + std::to_string(p.block) + ": law " + std::to_string(v) + ", computed " + (p.lower_bound ? "at least " : "") +
                      std::to_string(p.rank);
            }
            cj["exceptions"] = d;
            std::ostringstream unless;
            if (!certain && chance >= 1) {
                unless << "; a computed rank below the law is a rank whose row gives no failure bound (no certain refutation)";
                cj["refutation_failure_bound"] = 1.0;
            } else if (!certain && chance > 0) {
                unless << "; each computed rank below the law was measured at random weights, and lies below the true generic rank with probability <= "
                       << seprank::bound_up(chance, 3);
                cj["refutation_failure_bound"] = seprank::bound_up(chance, 3);
            }
            dt += unless.str();
            if (!c.differ.empty())
                refuted.push_back("--against " + rq.against[f] + " " + c.name + " (" + differ_text(c.differ.size()) +
                                  unless_low(certain, chance) + ")");
            cj["law_total"] = c.law_total;
            cj["computed_total"] = c.computed_total;
            cj["computed_total_label"] = c.computed_is_lower_bound ? "lower bound" : "computed";
            cj["law_with_exceptions"] = c.law_with_exceptions;
            ag.push_back(cj);
            extra << "against     " << rq.against[f] << " " << c.name << ": " << c.agree << " of " << c.rows << " blocks agree"
                  << (c.lower_bounds ? " (" + std::to_string(c.lower_bounds) + " lower-bound blocks at or below the law, not compared)" : std::string())
                  << dt << "; totals: law " << c.law_total << ", computed " << (c.computed_is_lower_bound ? "at least " : "") << c.computed_total
                  << (c.computed_is_lower_bound ? " (a lower bound)" : "") << ", law with its exceptions " << c.law_with_exceptions << "\n";
        }
    }
    if (!against.empty()) j["against"] = ag;
    notes.emit(rq.format == "json" ? &j : nullptr);
    // A check or comparison that finds a block the law misses refutes it: the answer in
    // full, then exit 1 with one line naming where (as verify's FAIL).
    const auto done = [&] {
        if (refuted.empty()) return 0;
        std::string where;
        for (const std::string& r : refuted) where += (where.empty() ? "" : "; ") + r;
        std::cerr << "seprank: the law is refuted by " << where << "\n";
        return 1;
    };
    if (rq.format == "json") {
        std::cout << json_text(j, 2) << "\n";
        return done();
    }
    std::string vars;
    for (const auto& v : o.vars) vars += (vars.empty() ? "" : ",") + v;
    std::cout << "# guess --blocks: a law of the block ranks in " << (vars.empty() ? std::string("the block") : vars + " and the block") << ", from "
              << law.rows.size() << " ok block rows of " << rq.table << (rq.where_text.empty() ? "" : " (where " + rq.where_text + ")")
              << (law.not_ok ? ", " + std::to_string(law.not_ok) + " rows left out (lower bounds, no block, or a configuration that did not converge)" : std::string()) << "\n";
    std::cout << "law         " << law.text() << "\n";
    std::cout << "kind        conjecture (block law: " << law.forms.size() << (law.forms.size() == 1 ? " form" : " forms")
              << " beside the cap, chosen on " << law.fitted + static_cast<long>(law.exceptions.size()) << " rows, confirmed on "
              << law.confirmed
              << (law.held_out_exceptions.empty()
                      ? std::string()
                      : " of " + std::to_string(law.confirmed + static_cast<long>(law.held_out_exceptions.size())))
              << " held-out rows: " << law.held_out << ")\n";
    if (law.forms.empty()) {
        const std::size_t missed = law.exceptions.size() + law.held_out_exceptions.size();
        std::string confirmed = "the rows confirm that each block reaches it";
        if (missed == 1) confirmed += " but the exception below, which falls short of it";
        if (missed > 1) confirmed += " but the " + std::to_string(missed) + " exceptions below, which fall short of it";
        std::cout << "bound       the law is the caps alone: every block's rank is at most min(cap_a, cap_b) at every size and for every "
                     "weight (a proof); "
                  << confirmed << "\n";
    }
    std::cout << "at cap      " << law.at_cap << " rows\n";
    std::cout << "exceptions  " << law.exceptions.size() + law.held_out_exceptions.size()
              << (law.held_out_exceptions.empty() ? std::string()
                                                  : " (" + std::to_string(law.exceptions.size()) + " fit, " +
                                                        std::to_string(law.held_out_exceptions.size()) + " held out)")
              << "\n";
    for (const auto& e : law.exceptions)
        std::cout << "            " << law.rows[e.row].name << " block " << law.rows[e.row].block << ": rank " << law.rows[e.row].rank
                  << ", law " << e.law << "\n";
    for (const auto& e : law.held_out_exceptions)
        std::cout << "            " << law.rows[e.row].name << " block " << law.rows[e.row].block << ": rank " << law.rows[e.row].rank
                  << ", law " << e.law << " (held out)\n";
    std::cout << "searched    " << law.tried << " terms, " << j["seconds"].get<double>() << " s\n";
    std::cout << extra.str();
    return done();
}

}  // namespace seprank_cli
