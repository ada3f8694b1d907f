// seprank._core — the compiled half of the Python package: thin pybind11 bindings of
// libseprank. No algorithm lives here: every function converts its arguments, makes
// one library call with the GIL released (under a cancellation scope that turns Ctrl-C
// into KeyboardInterrupt), and converts the result. The friendly API, argument
// checking and docstrings are in __init__.py; docs/python.md is the user's page.
//
// Errors are translated in ONE place, translate_errors() below:
//   seprank::invalid_input, seprank::domain_error  → ValueError
//   seprank::resource_limit                        → seprank.ResourceLimitError (MemoryError)
//   seprank::internal_error                        → RuntimeError
//   seprank::cancelled                             → the pending KeyboardInterrupt
//   std::bad_alloc                                 → MemoryError (pybind11's default)
#include "seprank/seprank.hpp"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace py = pybind11;
using namespace seprank;

namespace {

// ---------------------------------------------------------------- errors (the one place)

// C++ parameter names in library messages → the Python keyword arguments they come from.
std::string python_names(std::string msg) {
    static const std::pair<const char*, const char*> names[] = {
        {"ExpandOptions::max_memory", "max_memory"},
        {"EvaluationOptions::max_side", "max_side"},
        {"GenericOptions::max_side", "max_side"},
        {"Method::evaluation", "method='evaluation'"},
        {"Method::flattening", "method='flattening'"},
        {"Method::grid", "method='grid'"},
        {"Method::automatic", "method='auto'"},
        {"give the head dim explicitly", "give head_dim="},
        {"base.family ", "family "},
    };
    for (const auto& [from, to] : names)
        for (std::size_t at; (at = msg.find(from)) != std::string::npos;) msg.replace(at, std::string(from).size(), to);
    return msg;
}

// seprank.ResourceLimitError, made in the module init; a raw reference that is never
// released (a static py::object would be destroyed after the interpreter).
PyObject* resource_limit_error = nullptr;

void translate_errors() {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const invalid_input& e) {
            PyErr_SetString(PyExc_ValueError, python_names(e.what()).c_str());
        } catch (const seprank::domain_error& e) {
            PyErr_SetString(PyExc_ValueError, python_names(e.what()).c_str());
        } catch (const resource_limit& e) {
            PyErr_SetString(resource_limit_error, python_names(e.what()).c_str());
        } catch (const internal_error& e) {
            PyErr_SetString(PyExc_RuntimeError, ("seprank internal error (a bug, please report): " + std::string(e.what())).c_str());
        } catch (const cancelled&) {
            PyErr_SetNone(PyExc_KeyboardInterrupt);
        }
    });
}

// ---------------------------------------------------------------- long calls

// A Python exception raised by a signal handler during a long call, kept until the call
// has unwound (the check runs with the GIL taken briefly; the error is restored after).
struct PendingError {
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;
    bool set() const { return type != nullptr; }
};

bool on_main_thread() {
    // Leaked on purpose: outlives the interpreter's finalisation.
    static const py::object* threading = new py::object(py::module_::import("threading"));
    return threading->attr("current_thread")().is(threading->attr("main_thread")());
}

// Runs f() without the GIL. On the main thread a cancellation scope runs Python's signal
// handlers every 50 ms; a handler that raises (Ctrl-C: KeyboardInterrupt) cancels the
// call, and its exception is raised here once the library has unwound.
template <class F>
auto run_long(F&& f) -> decltype(f()) {
    const bool main = on_main_thread();
    PendingError pending;
    try {
        py::gil_scoped_release nogil;
        std::optional<CancelScope> scope;
        if (main)
            scope.emplace(
                [&pending] {
                    py::gil_scoped_acquire gil;
                    if (PyErr_CheckSignals() == 0) return false;
                    PyErr_Fetch(&pending.type, &pending.value, &pending.trace);
                    return true;
                },
                0.05);
        return f();
    } catch (const cancelled&) {
        if (pending.set()) {
            PyErr_Restore(pending.type, pending.value, pending.trace);
            throw py::error_already_set();
        }
        throw;
    }
}

// ---------------------------------------------------------------- conversions

template <class T>
T get_or(const py::dict& d, const char* key, T fallback) {
    return d.contains(key) && !d[key].is_none() ? d[key].cast<T>() : fallback;
}

// The boundary for a spec from Python: validated here, once (invalid_input naming the bad value).
ValidSpec spec_from_dict(const py::dict& d) {
    NetworkSpec s;
    s.family = family_from_string(get_or<std::string>(d, "family", d.contains("layers") ? "stack" : "attention"));  // the CLI's default
    const FamilyInfo& info = family_info(s.family);
    s.tokens = get_or<long>(d, "tokens", info.default_tokens);  // the CLI's defaults (power: 1)
    s.dim = get_or<long>(d, "dim", s.dim);
    s.heads = get_or<long>(d, "heads", s.heads);
    s.head_dim = get_or<long>(d, "head_dim", s.head_dim);
    s.depth = get_or<long>(d, "depth", s.depth);
    s.width = get_or<long>(d, "width", s.width);
    s.widths = get_or<std::vector<long>>(d, "widths", s.widths);
    s.residual = get_or<bool>(d, "residual", s.residual);
    s.free_slots = get_or<bool>(d, "free", s.free_slots);
    s.embed_rank = get_or<long>(d, "embed_rank", s.embed_rank);
    s.attention_rank = get_or<long>(d, "attention_rank", s.attention_rank);
    s.position = get_or<long>(d, "position", s.position);
    s.coordinate = get_or<long>(d, "coordinate", s.coordinate);
    if ((info.depth_from_widths || info.widths) && !s.widths.empty() && (!d.contains("depth") || d["depth"].is_none()))
        s.depth = static_cast<long>(s.widths.size());  // the CLI's default depth (power, fc: one layer a width)
    // The degree's key is the family's (resolve_block_degree, the CLI's rule): "power" for
    // family power (block_degree beside it must agree: spec_to_dict writes both), neither
    // for a stack, whose layers set their own degrees.
    const bool has_layers = d.contains("layers") && !d["layers"].is_none();
    if (!has_layers && d.contains("repeat") && !d["repeat"].is_none())  // the Python layer fills a stack's default layers
        throw invalid_input("repeat = " + std::to_string(d["repeat"].cast<long>()) + ": the copies of a stack's layers, but no layers were given");
    std::optional<long> block, power;
    if (d.contains("block_degree") && !d["block_degree"].is_none()) block = d["block_degree"].cast<long>();
    if (d.contains("power") && !d["power"].is_none()) power = d["power"].cast<long>();
    s.block_degree = resolve_block_degree(info, has_layers, block ? &*block : nullptr, power ? &*power : nullptr, s.block_degree,
                                          kPythonDegreeSpelling);
    if (has_layers) {
        // A SPEC string, or a list of layer strings; "depth" repeats the list (as --depth).
        std::vector<LayerSpec> one;
        const bool has_repeat = d.contains("repeat") && !d["repeat"].is_none();
        const long repeat = has_repeat ? d["repeat"].cast<long>() : get_or<long>(d, "depth", 1);
        if (py::isinstance<py::str>(d["layers"])) {
            // "" with depth 0: a stack of no layers, as spec_to_dict writes it (stack(depth=0).spec)
            const std::string text = d["layers"].cast<std::string>();
            if (!text.empty() || (repeat != 0 && get_or<long>(d, "depth", 1) != 0)) one = parse_layers(text);
        } else {
            for (const auto& item : d["layers"].cast<std::vector<std::string>>())
                for (auto& l : parse_layers(item)) one.push_back(l);
            if (one.empty()) throw invalid_input("layers: an empty list (expected kind[:key=value]... strings)");
        }
        // "repeat" (spec_to_dict writes 1: its "layers" are every layer) counts the copies
        // instead of "depth", which must then be the number of layers; without it "depth"
        // repeats the list, as --depth does.
        std::optional<std::vector<LayerSpec>> all = repeat_layers(one, repeat);
        if (!all)
            throw invalid_input("depth " + std::to_string(repeat) + " repeating " + std::to_string(one.size()) + " layers: outside 0.." +
                                std::to_string(kMaxDepth) + " layers");
        s.layers = std::move(*all);
        s.depth = static_cast<long>(s.layers.size());
        if (has_repeat && d.contains("depth") && !d["depth"].is_none() && d["depth"].cast<long>() != s.depth)
            throw invalid_input("depth " + std::to_string(d["depth"].cast<long>()) + ": repeat " + std::to_string(repeat) + " of " +
                                std::to_string(one.size()) + " layers makes " + std::to_string(s.depth));
    }
    return ValidSpec(std::move(s));  // validates
}

py::dict spec_to_dict(const NetworkSpec& s) {
    py::dict d;
    const FamilyInfo& info = family_info(s.family);
    d["family"] = to_string(s.family);
    d["tokens"] = s.tokens;
    d["dim"] = s.dim;
    d["depth"] = s.depth;
    if (!info.layers) d["block_degree"] = block_degree(s);  // a stack's layers carry their degrees
    if (info.heads) {
        d["heads"] = s.heads;
        d["head_dim"] = head_dim(s);
        d["attention_rank"] = s.attention_rank;
    }
    if (info.width) d["width"] = block_width(s);
    if (info.widths) {
        const auto w = layer_widths(s);
        d["widths"] = std::vector<long>(w.begin() + 1, w.end());
    }
    if (info.free_slots) d["free"] = s.free_slots;
    if (info.layers) {
        d["layers"] = layers_to_string(s.layers);  // every layer: "depth" is their number,
        d["repeat"] = 1;                           // so spec_from_dict must not repeat them again
    }
    if (own_degree_key(info)) d[info.degree_key] = s.block_degree;
    d["residual"] = s.residual;
    d["embed_rank"] = s.embed_rank;
    d["position"] = s.position;
    d["coordinate"] = s.coordinate;
    return d;
}

// Every field of the answer under its C++ name, plus label, certified and the record
// (the registry's columns: the CLI's JSON keys) as JSON text.
py::dict answer_to_dict(const RankAnswer& a) {
    py::dict d;
    d["value"] = a.value;
    d["kind"] = to_string(a.kind);
    d["failure_bound"] = a.failure_bound;
    d["quantity"] = a.quantity;
    d["method"] = a.method;
    d["variant"] = a.variant;
    d["field"] = a.field;
    d["rows"] = a.rows;
    d["cols"] = a.cols;
    d["prime"] = a.prime;
    d["primes_used"] = a.primes_used;
    d["device"] = a.device;
    d["seconds"] = a.seconds;
    d["peak_mib"] = a.peak_mib;
    py::dict phases;
    phases["expand"] = a.phases.expand;
    phases["matrix"] = a.phases.matrix;
    phases["rank"] = a.phases.rank;
    phases["certificate"] = a.phases.certificate;
    d["phases"] = phases;
    d["partition"] = a.partition;
    d["degree"] = a.degree;
    d["terms"] = a.terms;
    d["converged"] = a.converged;
    d["evaluations"] = a.evaluations;
    d["block_ranks"] = a.block_ranks;
    d["kernel_blocks"] = a.kernel_blocks;
    d["kernel_bits"] = a.kernel_bits;
    d["trials"] = a.trials;
    d["trial_ranks"] = a.trial_ranks;
    d["degenerate"] = a.degenerate;
    d["set_size"] = a.set_size;
    d["weight_degree"] = a.weight_degree;
    d["bound_degree"] = a.bound_degree;
    d["output"] = a.output;
    d["parameters"] = a.parameters;
    d["expected"] = a.expected;
    d["defect"] = a.expected >= 0 ? py::object(py::bool_(a.value < a.expected)) : py::object(py::none());
    d["note"] = a.note;
    d["label"] = a.label();
    d["certified"] = a.certified();
    d["record"] = to_json(a);
    return d;
}

EvaluationVariant variant_of(const std::string& v) { return evaluation_variant_from_string(v); }


ValidPartition partition_for(const std::string& text, long n_tokens) {
    return text.empty() ? balanced_partition(n_tokens) : parse_partition(text, n_tokens);
}

SeparationOptions separation_options(const py::dict& o) {
    SeparationOptions so;
    so.method = method_from_string(get_or<std::string>(o, "method", "flattening"));
    so.certify = get_or<std::string>(o, "field", "Q") == "Q";
    so.seed = get_or<std::uint64_t>(o, "seed", 1);
    so.templates = get_or<long>(o, "templates", so.templates);
    so.expand.max_memory = get_or<double>(o, "max_memory", so.expand.max_memory);
    so.evaluation.max_side = get_or<long>(o, "max_side", so.evaluation.max_side);
    so.evaluation.variant = variant_of(get_or<std::string>(o, "variant", "auto"));
    const int threads = get_or<int>(o, "threads", 2);
    so.evaluation.threads = threads;
    so.rank.threads = threads;
    so.rank.certificate = certificate_from_string(get_or<std::string>(o, "certificate", "blocks"));
    so.evaluation.device = so.rank.device = device_from_string(get_or<std::string>(o, "device", "cpu"));
    return so;
}

SpectrumOptions spectrum_options(const py::dict& o) {
    SpectrumOptions so;
    so.measure = measure_from_string(get_or<std::string>(o, "measure", "uniform"));
    so.method = spectrum_method_from_string(get_or<std::string>(o, "method", "certified"));
    so.precision = get_or<long>(o, "precision", so.precision);
    so.eps = get_or<std::vector<double>>(o, "eps", {});
    so.eps_absolute = get_or<bool>(o, "eps_absolute", false);
    so.max_side = get_or<long>(o, "max_side", so.max_side);
    so.expand.max_memory = get_or<double>(o, "max_memory", so.expand.max_memory);
    so.rank.seed = get_or<std::uint64_t>(o, "seed", so.rank.seed);
    so.rank.threads = get_or<int>(o, "threads", 2);
    return so;
}

GenericOptions generic_options(const py::dict& o, GenericOptions g) {
    g.trials = get_or<long>(o, "trials", g.trials);
    g.seed = get_or<std::uint64_t>(o, "seed", g.seed);
    g.method = generic_method_from_string(get_or<std::string>(o, "method", "auto"));
    g.max_side = get_or<long>(o, "max_side", g.max_side);
    g.variant = variant_of(get_or<std::string>(o, "variant", "auto"));
    g.threads = get_or<int>(o, "threads", g.threads);
    g.start = get_or<long>(o, "start", g.start);
    g.growth = get_or<double>(o, "growth", g.growth);
    g.prime_bits = static_cast<int>(get_or<long>(o, "prime_bits", g.prime_bits));
    g.store = get_or<std::string>(o, "store", g.store);
    g.max_seconds = get_or<double>(o, "max_seconds", g.max_seconds);
    g.device = device_from_string(get_or<std::string>(o, "device", "cpu"));
    g.block_hints = get_or<std::vector<long>>(o, "block_hints", g.block_hints);
    return g;
}

// The dimension's options (dimension.hpp); the values were range-checked in _dimension.py
// and are checked again by the library (check_options).
DimensionOptions dimension_options(const py::dict& o) {
    DimensionOptions d;
    d.output = dimension_output_from_string(get_or<std::string>(o, "output", "scalar"));
    d.variant = dimension_variant_from_string(get_or<std::string>(o, "variant", "reverse"));
    d.threads = get_or<int>(o, "threads", d.threads);
    d.trials = get_or<long>(o, "trials", d.trials);
    d.seed = get_or<std::uint64_t>(o, "seed", d.seed);
    d.prime_bits = get_or<int>(o, "prime_bits", d.prime_bits);
    d.margin = get_or<long>(o, "margin", d.margin);
    d.max_seconds = get_or<double>(o, "max_seconds", d.max_seconds);
    d.device = device_from_string(get_or<std::string>(o, "device", "cpu"));
    return d;
}

Templates templates_from(const std::vector<std::vector<std::string>>& rows) {
    Templates t;
    for (const auto& r : rows) {
        std::vector<Rational> v;
        for (const auto& x : r) v.emplace_back(x);
        t.push_back(std::move(v));
    }
    return t;
}

// A check's options (Guess.check, BlockLaw.check), checked as the CLI's --check-* are.
CheckOptions checked_check_options(double seconds, long trials, long max_side, int threads) {
    CheckOptions o;
    o.seconds = seconds;
    o.trials = trials;
    o.max_side = max_side;
    o.threads = threads;
    check_options(o);
    return o;
}

// A check's verdict as the CLI's JSON check object: generic, label and failure_bound None
// where generic did not run (or finish).
py::dict check_dict(const std::string& verdict, const std::string& reason, bool ran, long generic, const std::string& label,
                    double failure_bound, double seconds) {
    py::dict d;
    d["verdict"] = verdict;
    d["reason"] = reason.empty() ? py::object(py::none()) : py::object(py::str(reason));
    d["generic"] = ran ? py::object(py::int_(generic)) : py::object(py::none());
    d["label"] = ran ? py::object(py::str(label)) : py::object(py::none());
    d["failure_bound"] = ran ? py::object(py::float_(failure_bound)) : py::object(py::none());
    d["seconds"] = seconds;
    return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "Compiled bindings of libseprank (use the seprank package, not this module).";
    resource_limit_error = PyErr_NewExceptionWithDoc("seprank.ResourceLimitError",
                                                     "A request whose estimated cost exceeds a stated limit (memory, size, "
                                                     "exponent): raised before the work starts. A MemoryError.",
                                                     PyExc_MemoryError, nullptr);
    if (resource_limit_error == nullptr) throw py::error_already_set();
    m.attr("ResourceLimitError") = py::reinterpret_borrow<py::object>(resource_limit_error);
    translate_errors();
    m.attr("version") = version_string();
    m.attr("MAX_THREADS") = max_threads();  // the most threads a computation takes (limits.hpp)
    m.attr("GUESS_MAX_VALUE_BITS") = kGuessMaxValueBits;  // the most bits of a table value guess takes (guess.hpp)
    m.attr("RANK_REFUSED") = std::string(kRankRefused);  // a table row's reason when a limit refused its rank
    // A bound as printed, rounded up (answer.hpp), for the Python reprs.
    m.def("bound_up", [](double x, int digits) { return bound_up(x, digits); });
    // The CLI's lists ("1..4,6"): the same values and the same messages.
    m.def("parse_list", [](const std::string& text, const std::string& option) { return parse_list(text, option); });
    m.def("parse_where", [](const std::string& text) { return parse_where(text); });
    // The library's memory check (limits.hpp) for sizes the Python layer controls, e.g. a
    // matrix before its entries are converted: resource_limit → ResourceLimitError.
    m.def("check_memory", [](double estimate, double limit, const std::string& what, const std::string& limit_name) {
        check_memory(estimate, limit > 0 ? limit : default_max_memory(), what, limit_name);
    });
    // The process-wide limit (limits.hpp), named in its refusals by the Python call that
    // sets it, as the CLI names --max-memory; named so at import, its value the default.
    m.def("max_memory", [] { return default_max_memory(); });
    m.def("set_max_memory", [](double bytes) { set_default_max_memory(bytes, "seprank.set_max_memory"); });
    set_default_max_memory(default_max_memory(), "seprank.set_max_memory");

    // ---- networks
    py::class_<Network>(m, "Network")
        .def_property_readonly("spec", [](const Network& n) { return spec_to_dict(n.spec); })
        .def("to_json", [](const Network& n, int indent) { return network_to_json(n, indent); }, py::arg("indent") = -1)
        .def("describe", [](const Network& n) { return describe(n.spec); })
        .def("parameters", [](const Network& n) { return parameter_count(n.spec).str(); })
        .def("output_degree", [](const Network& n) { return output_degree(n.spec).str(); })
        .def("weight_degree", [](const Network& n) { return weight_degree(n.spec).str(); })
        .def("unused_fields", [](const Network& n) {  // (JSON key, why) for each field the network never reads
            std::vector<std::pair<std::string, std::string>> out;
            for (const auto& u : unused_fields(n.spec)) out.emplace_back(u.field, u.reason);
            return out;
        });
    // The validated spec of a dict, as network() would draw it (its canonical layers, depth).
    m.def("canonical_spec", [](const py::dict& spec) { return spec_to_dict(spec_from_dict(spec).get()); });
    m.def("random_network", [](const py::dict& spec, std::uint64_t seed, long range) {
        return random_network(spec_from_dict(spec), seed, range);
    });
    m.def("network_from_json", [](const std::string& text) { return network_from_json(text); });
    m.def("network_from_file", [](const std::string& path) { return read_network(path); });  // the library's reader and its limits
    m.def("describe_spec", [](const py::dict& spec) { return describe(spec_from_dict(spec)); });
    m.def("family_names", [] { return family_names(); });
    m.def("family_traits", [](const std::string& family) {  // what the Python boundary needs of a family
        const FamilyInfo& info = family_info(family_from_string(family));
        py::dict t;
        t["default_tokens"] = info.default_tokens;
        t["degree_key"] = info.degree_key != nullptr ? py::object(py::str(info.degree_key)) : py::object(py::none());
        return t;
    });
    // The degree of a family's network from block_degree and power (resolve_block_degree:
    // the CLI's rule and messages); None when neither is given.
    m.def("resolve_block_degree", [](const std::string& family, std::optional<long> block, std::optional<long> power) -> std::optional<long> {
        const FamilyInfo& info = family_info(family_from_string(family));
        if (!block && !power) return std::nullopt;
        return resolve_block_degree(info, false, block ? &*block : nullptr, power ? &*power : nullptr, 0, kPythonDegreeSpelling);
    });

    // ---- polynomials
    py::class_<QPoly>(m, "Poly")
        .def("degree", &QPoly::degree)
        .def("terms", [](const QPoly& f) { return static_cast<long>(f.terms()); })
        .def("is_homogeneous", &QPoly::is_homogeneous)
        .def("variables", [](const QPoly& f) { return f.context()->vars().names(); })
        .def("__str__", [](const QPoly& f) { return to_string(f); })
        .def("term", [](const QPoly& f, std::size_t k) {
            const Rational c = f.coeff(k);
            return py::make_tuple(py::tuple(py::cast(f.exponents(k))), c.num().str(), c.den().str());
        });
    m.def("parse_poly", [](const std::string& text) {
        auto ctx = QContext::make(variables_in(text));
        return parse_poly(text, ctx);
    });
    // in the given variables, in their order (a pickled Polynomial: its text and its variables)
    m.def("parse_poly_in", [](const std::string& text, const std::vector<std::string>& names) {
        return parse_poly(text, QContext::make(Variables(names)));
    });
    m.def("expand", [](const Network& net, double max_memory, const std::string& variant, const std::string& product) {
        ExpandOptions o;
        o.max_memory = max_memory;
        o.variant = expand_variant_from_string(variant);
        o.product = mul_variant_from_string(product);
        return run_long([&] { return expand(net, o); });
    });

    // ---- degrees
    m.def("degree_row", [](const Network& net, std::uint64_t seed, double max_expand_bytes) {
        const DegreeRow r = run_long([&] { return degree_row(net, seed, max_expand_bytes); });
        py::dict d;
        d["depth"] = r.depth;
        d["measured"] = r.degree >= 0 ? py::object(py::int_(r.degree)) : py::none();  // None: f = 0 at these weights
        d["predicted"] = r.predicted.str();
        d["terms"] = r.terms >= 0 ? py::object(py::int_(r.terms)) : py::none();
        d["parameters"] = r.parameters.str();
        d["weight_degree"] = r.weight_degree.str();
        d["false_low_bound"] = r.false_low_bound;
        d["seconds"] = r.seconds;
        return d;
    });
    m.def("truncate", [](const Network& net, long depth) { return first_layers(net, depth); });
    m.def("check_budget_family", [](const std::string& family) { check_budget_family(family_from_string(family)); });
    m.def("budget_comparison", [](const py::dict& spec, long budget, const std::vector<long>& degrees, std::uint64_t seed,
                                  const py::dict& opts) {
        const NetworkSpec base = spec_from_dict(spec);
        BudgetOptions bo;
        bo.dimension = get_or<bool>(opts, "dimension", false);
        bo.rank = get_or<bool>(opts, "rank", false);
        bo.threads = get_or<int>(opts, "threads", bo.threads);
        const auto cmp = run_long([&] { return budget_comparison(base, budget, degrees, seed, bo); });
        py::list rows;
        for (const auto& r : cmp.rows) {
            py::dict d;
            d["block_degree"] = r.block_degree;
            d["depth"] = r.depth;
            d["layer_params"] = r.layer_params.str();
            d["params_used"] = r.total_params.str();
            d["predicted"] = r.predicted.str();
            d["measured"] = r.measured >= 0 ? py::object(py::int_(r.measured)) : py::object(py::none());
            d["ln_deg_per_param"] = r.log_degree_per_param;
            d["note"] = r.note;
            d["h_d"] = r.h;
            if (bo.dimension) {  // table --dimension's columns, from the column registry (as degree --budget's JSON)
                RowSource src;
                src.dimension = r.dimension ? &*r.dimension : nullptr;
                d["dimension_cells"] = to_json(make_record(src, table_dimension_columns()));
            }
            if (bo.rank) {
                d["rank"] = r.rank ? py::object(py::int_(r.rank->value)) : py::object(py::none());
                d["rank_converged"] = r.rank ? py::object(py::bool_(r.rank->converged)) : py::object(py::none());
                RowSource src;  // its label and failure bound, as degree --budget's JSON (the column registry)
                src.answer = r.rank ? &*r.rank : nullptr;
                d["rank_cells"] = to_json(make_record(src, {"log3_rank", "label", "failure_bound"}));
            }
            rows.append(d);
        }
        return py::make_tuple(rows, cmp.best_measured_d, cmp.best_h_d);
    });

    // ---- ranks
    m.def("rank_network", [](const Network& net, const std::string& partition, const py::dict& opts,
                             std::optional<std::vector<std::vector<std::string>>> templates) {
        SeparationOptions so = separation_options(opts);
        if (templates) so.template_vectors = templates_from(*templates);
        const ValidPartition part = partition_for(partition, net.spec.tokens);
        return answer_to_dict(run_long([&] { return separation_rank(net, part, so); }));
    });
    m.def("rank_poly", [](const QPoly& f, const std::string& partition, const py::dict& opts) {
        const SeparationOptions so = separation_options(opts);
        const ValidPartition part = poly_partition(f.context()->vars(), partition, "polynomial");
        auto a = answer_to_dict(run_long([&] { return separation_rank(f, part, part.tokens(), so); }));
        a["tokens"] = part.tokens();
        return a;
    });
    // Entries "a" or "a/b" (checked in _boundary.py); ranked over Q as the integer matrix
    // with each row's denominators cleared (matrix.hpp: the same rank).
    m.def("rank_matrix", [](const std::vector<std::vector<std::string>>& rows, long cols, const py::dict& opts) {
        QMat q(static_cast<long>(rows.size()), cols);
        for (std::size_t i = 0; i < rows.size(); ++i)
            for (std::size_t j = 0; j < rows[i].size(); ++j) q.set(static_cast<long>(i), static_cast<long>(j), Rational(rows[i][j]));
        const ZMat a = clear_denominators(q);
        RankOptions o;
        o.certify = get_or<std::string>(opts, "field", "Q") == "Q";
        o.seed = get_or<std::uint64_t>(opts, "seed", 1);
        o.threads = get_or<int>(opts, "threads", 2);
        o.certificate = certificate_from_string(get_or<std::string>(opts, "certificate", "blocks"));
        o.device = device_from_string(get_or<std::string>(opts, "device", "cpu"));
        return answer_to_dict(run_long([&] { return rank_certified(a, o); }));
    });
    // ---- ε-separation spectrum (spectrum.hpp): the record as the CLI's `spectrum --format json`
    m.def("spectrum_network", [](const Network& net, const std::string& partition, const py::dict& opts) {
        const SpectrumOptions so = spectrum_options(opts);
        const ValidPartition part = partition_for(partition, net.spec.tokens);
        return to_json(run_long([&] { return spectrum(net, part, so); }));
    });
    m.def("spectrum_poly", [](const QPoly& f, const std::string& partition, const py::dict& opts) {
        const SpectrumOptions so = spectrum_options(opts);
        const ValidPartition part = poly_partition(f.context()->vars(), partition, "polynomial");
        return to_json(run_long([&] { return spectrum(f, part, part.tokens(), so); }));
    });
    m.def("generic_rank", [](const py::dict& spec, const std::string& partition, const py::dict& opts) {
        const ValidSpec s = spec_from_dict(spec);
        const ValidPartition part = partition_for(partition, s->tokens);
        GenericOptions g = generic_options(opts, GenericOptions{});
        if (opts.contains("hint_file")) g.block_hints = read_block_hints(opts["hint_file"].cast<std::string>(), s, part);
        if (opts.contains("hint_text")) g.block_hints = parse_block_hints(opts["hint_text"].cast<std::string>(), "block_hints", s, part);
        return answer_to_dict(run_long([&] { return generic_rank(s, part, g); }));
    });

    // ---- functional dimension (dimension.hpp): given weights (a Network) give the local
    // dimension there; their shapes are checked against the spec by the library.
    m.def("dimension", [](const py::dict& spec, const py::dict& opts, const Network* weights) {
        const ValidSpec s = spec_from_dict(spec);
        DimensionOptions d = dimension_options(opts);
        if (weights != nullptr) d.weights = weights->weights;
        return answer_to_dict(run_long([&] { return function_dimension(s, d); }));
    }, py::arg("spec"), py::arg("opts"), py::arg("weights").none(true));
    m.def("expected_dimension", [](const py::dict& spec, const std::string& output) {
        const ExpectedDimension e = expected_dimension(spec_from_dict(spec), dimension_output_from_string(output));
        py::dict d;
        d["parameters"] = e.parameters;
        d["expected"] = e.expected;
        d["ambient"] = e.ambient == LONG_MAX ? py::object(py::none()) : py::object(py::int_(e.ambient));
        d["losses"] = e.losses;
        d["known_defects"] = e.known_defects;
        return d;
    });
    m.def("variety", [](const py::dict& spec, const py::dict& opts) {
        const ValidSpec s = spec_from_dict(spec);
        VarietyOptions o;
        o.trials = opts["trials"].cast<long>();
        o.seed = opts["seed"].cast<std::uint64_t>();
        o.max_unknowns = opts["max_unknowns"].cast<long>();
        o.max_interpolation = opts["max_interpolation"].cast<long>();
        o.max_equation_monomials = opts["max_equation_monomials"].cast<long>();
        o.generic_slice = opts["generic_slice"].cast<bool>();
        o.degree_slice = opts["degree_slice"].cast<std::string>() == "gauge" ? DegreeSlice::gauge : DegreeSlice::smallest_fibre;
        o.threads = opts["threads"].cast<int>();
        check_options(o);
        const VarietyAnswer v = run_long([&] { return network_variety(s, o); });
        return to_json(variety_record(v, o.generic_slice));
    });
    m.def("equation", [](const py::dict& spec, const py::dict& opts) {
        const ValidSpec s = spec_from_dict(spec);
        EquationOptions o;
        o.seed = opts["seed"].cast<std::uint64_t>();
        o.min_degree = opts["min_degree"].cast<long>();
        o.max_degree = opts["max_degree"].cast<long>();
        o.max_monomials = opts["max_monomials"].cast<long>();
        o.max_terms = opts["max_terms"].cast<long>();
        o.max_seconds = opts["max_seconds"].cast<double>();
        check_options(o);
        const EquationAnswer a = run_long([&] { return network_equation(s, o); });
        return to_json(equation_record(a));
    });
    // defects: the summary, the rows and the levels as JSON text (defect_summary, defect_record)
    m.def("defects", [](const py::dict& rng) {
        DefectRange g;
        g.max_width = rng["max_width"].cast<long>();
        g.min_depth = rng["min_depth"].cast<long>();
        g.max_depth = rng["max_depth"].cast<long>();
        g.min_power = rng["min_power"].cast<long>();
        g.max_power = rng["max_power"].cast<long>();
        g.seed = rng["seed"].cast<std::uint64_t>();
        g.threads = rng["threads"].cast<int>();
        if (rng.contains("max_seconds")) g.max_seconds = rng["max_seconds"].cast<double>();
        check_range(g);
        const DefectSweep sw = run_long([&] { return defect_sweep(g); });
        std::vector<Record> rows, levels;
        for (const DefectRow& r : sw.rows) rows.push_back(defect_record(r));
        for (const DefectLevel& v : sw.levels) {
            Record l;
            l.set("inputs", v.inputs);
            l.set("width", v.width);
            l.set("outputs", v.outputs);
            l.set("power", v.power);
            l.set("expected", v.expected);
            l.set("dimension", v.dimension.value);
            levels.push_back(std::move(l));
        }
        return std::make_tuple(to_json(defect_summary(sw)), to_json(rows), to_json(levels));
    });

    // ---- guess: rows as (x, value text) pairs; the result keeps the library's Guess for predict()
    py::class_<Guess>(m, "Guess")
        .def_readonly("found", &Guess::found)
        .def_readonly("params", &Guess::params)
        .def_readonly("fitted", &Guess::fitted)
        .def_readonly("confirmed", &Guess::confirmed)
        .def_readonly("tried", &Guess::tried)
        .def_readonly("refuted", &Guess::refuted)
        .def_readonly("reason", &Guess::reason)
        .def("text", [](const Guess& g) { return g.found ? g.formula.text() : std::string(); })
        .def("latex", [](const Guess& g) { return g.found ? g.formula.latex() : std::string(); })
        .def("form", [](const Guess& g) { return g.found ? to_string(g.formula.kind) : std::string(); })
        .def("recurrence", [](const Guess& g) { return g.found ? g.formula.recurrence() : std::string(); })
        // each missed row: (point, table value, formula value or None), values as text
        .def("exception_rows", [](const Guess& g) {
            std::vector<std::tuple<std::vector<long>, std::string, std::optional<std::string>>> out;
            for (const GuessException& e : g.exceptions)
                out.emplace_back(g.rows[e.row].x, g.rows[e.row].value.str(), e.defined ? std::optional<std::string>(e.value.str()) : std::nullopt);
            return out;
        })
        // what the rows are, by the table's label column: ([(label, count)], largest failure bound, text)
        .def("row_labels", [](const Guess& g) {
            const RowLabels r = row_labels(g.rows);
            return py::make_tuple(r.counts, r.failure_bound, r.text());
        })
        // each row the table's status column marks: (point, status)
        .def("marked_rows", [](const Guess& g) {
            std::vector<std::pair<std::vector<long>, std::string>> out;
            for (const GuessPoint& p : g.rows)
                if (!p.status.empty()) out.emplace_back(p.x, p.status);
            return out;
        })
        .def("fit_points", [](const Guess& g) {
            std::vector<std::vector<long>> out;
            for (std::size_t i : g.fit_rows) out.push_back(g.rows[i].x);
            return out;
        })
        .def("confirm_points", [](const Guess& g) {
            std::vector<std::vector<long>> out;
            for (std::size_t i : g.confirm_rows) out.push_back(g.rows[i].x);
            return out;
        })
        .def("predict", [](const Guess& g, const std::vector<long>& x) { return guess_predict(g, x).str(); });
    m.def("guess", [](const std::vector<TableRow>& table, const std::vector<std::string>& vars, const std::string& value,
                      const std::vector<std::pair<std::string, std::string>>& where, int max_degree, const std::vector<long>& bases,
                      int max_order, long max_params, long min_confirm, int max_exps, long max_exceptions, double max_seconds) {
        GuessOptions o;
        o.vars = vars;
        o.max_degree = max_degree;
        o.bases = bases;
        o.max_order = max_order;
        o.max_params = max_params;
        o.min_confirm = min_confirm;
        o.max_exps = max_exps;
        o.max_exceptions = max_exceptions;
        o.max_seconds = max_seconds;
        check_options(o);  // before the rows are read, as the CLI (no vars: named, not read as one point)
        return guess_formula(guess_points(table, vars, value, where), o);
    });
    m.def("read_table_cells", [](const std::string& path) { return read_table_cells(path); });
    // ---- guess_blocks: the library's BlockLaw, read through these accessors by _guess.BlockLaw
    py::class_<BlockLaw>(m, "BlockLaw")
        .def_readonly("found", &BlockLaw::found)
        .def_readonly("fitted", &BlockLaw::fitted)
        .def_readonly("confirmed", &BlockLaw::confirmed)
        .def_readonly("at_cap", &BlockLaw::at_cap)
        .def_readonly("not_ok", &BlockLaw::not_ok)
        .def_readonly("tried", &BlockLaw::tried)
        .def_readonly("held_out", &BlockLaw::held_out)
        .def_readonly("reason", &BlockLaw::reason)
        .def_readonly("notes", &BlockLaw::notes)
        .def("rows", [](const BlockLaw& l) { return l.rows.size(); })
        .def("text", &BlockLaw::text)
        .def("forms", [](const BlockLaw& l) {
            std::vector<std::string> out;
            for (const BlockTerm& t : l.forms) out.push_back(t.text(l.vars));
            return out;
        })
        // each missed row (fit rows, or held-out ones): (x, configuration name, block, rank, law)
        .def("exception_rows", [](const BlockLaw& l, bool held_out) {
            std::vector<std::tuple<std::vector<long>, std::string, long, long, long>> out;
            for (const BlockException& e : held_out ? l.held_out_exceptions : l.exceptions) {
                const BlockPoint& p = l.rows[e.row];
                out.emplace_back(p.x, p.name, p.block, p.rank, e.law);
            }
            return out;
        });
    m.def("guess_block_law", [](const std::vector<TableRow>& table, const std::vector<std::pair<std::string, std::string>>& where,
                                const std::vector<std::string>& vars, int max_forms, long max_exceptions) {
        BlockLawOptions o;
        o.vars = vars;
        o.max_forms = max_forms;
        o.max_exceptions = max_exceptions;
        return run_long([&] { return guess_block_law(table, where, o); });
    });
    // the law's blocks at x: (network, partition, [(block, k, j, cap_a, cap_b, predicted)])
    m.def("predict_blocks", [](const BlockLaw& law, const std::vector<TableRow>& table,
                               const std::vector<std::pair<std::string, std::string>>& where, const std::vector<long>& x) {
        const PredictionNetwork at = prediction_network(table, where, law.vars, x);
        // a cap saturated at 2^61 is None, as null in the CLI's JSON
        std::vector<std::tuple<long, long, long, std::optional<long>, std::optional<long>, long>> blocks;
        for (const BlockPrediction& p : predict_blocks(law, table, where, x)) {
            const auto cap = [&](long c) { return p.cap_saturated(c) ? std::nullopt : std::optional<long>(c); };
            blocks.emplace_back(p.block, p.k, p.j, cap(p.cap_a), cap(p.cap_b), p.predicted);
        }
        const bool layers_column = !table.empty() && table_cell(table.front(), "layers") != nullptr;
        return std::make_tuple(describe(at.spec), to_string(at.part), row_key(at.spec, at.part, layers_column), blocks, prediction_notes(law, x));
    });
    // BlockLaw.check: the law's blocks at x against generic's graded ranks there
    // (check_block_prediction, as `seprank guess --blocks --check`)
    m.def("check_block_prediction", [](const BlockLaw& law, const std::vector<TableRow>& table,
                                       const std::vector<std::pair<std::string, std::string>>& where, const std::vector<long>& x,
                                       double seconds, long trials, long max_side, int threads) {
        const CheckOptions o = checked_check_options(seconds, trials, max_side, threads);
        const PredictionNetwork at = prediction_network(table, where, law.vars, x);
        const std::vector<BlockPrediction> pred = predict_blocks(law, table, where, x);
        const BlockPredictionCheck c = run_long([&] { return check_block_prediction(at, pred, o); });
        py::dict d = check_dict(c.verdict, c.reason, c.ran, c.generic, c.label, c.failure_bound, c.seconds);
        py::list differ;
        for (const auto& [p, got] : c.differ) {
            py::dict e;
            e["block"] = p.block;
            e["predicted"] = p.predicted;
            e["generic"] = got;
            differ.append(e);
        }
        d["differ"] = differ;
        d["refuted_for_certain"] = c.certain;
        return d;
    });
    // BlockLaw.compare: the law against another block table's rows, configuration by
    // configuration (compare_law, as `seprank guess --blocks --against`): ([(name, rows,
    // agree, lower_bounds, law_total, computed_total, computed_is_lower_bound,
    // law_with_exceptions, certain, failure bound to 3 digits up, [(x, name, block, rank, law,
    // lower_bound, failure_bound)])], left-out rows, why)
    m.def("compare_law", [](const BlockLaw& law, const std::vector<TableRow>& table,
                            const std::vector<std::pair<std::string, std::string>>& where) {
        LawComparisonLeftOut left;
        const std::vector<LawComparison> cs = run_long([&] { return compare_law(law, table, where, &left); });
        using Miss = std::tuple<std::vector<long>, std::string, long, long, long, bool, double>;
        std::vector<std::tuple<std::string, long, long, long, long, long, bool, long, bool, double, std::vector<Miss>>> out;
        for (const LawComparison& c : cs) {
            std::vector<Miss> misses;
            for (const auto& [p, v] : c.differ) misses.emplace_back(p.x, p.name, p.block, p.rank, v, p.lower_bound, p.failure_bound);
            out.emplace_back(c.name, c.rows, c.agree, c.lower_bounds, c.law_total, c.computed_total, c.computed_is_lower_bound,
                             c.law_with_exceptions, c.refuted_for_certain,
                             c.refutation_failure_bound > 0 ? bound_up(c.refutation_failure_bound, 3) : 0.0, std::move(misses));
        }
        return std::make_tuple(out, left.rows, left.why);
    });
    // Guess.check: the generic rank at a predicted point, from the first row `where` keeps
    // (check_prediction, as `seprank guess --check`).
    m.def("check_prediction", [](const std::vector<TableRow>& table, const std::vector<std::pair<std::string, std::string>>& where,
                                 const std::vector<std::string>& vars, const std::vector<long>& x, const std::string& predicted,
                                 double seconds, long trials, long max_side, int threads) {
        const CheckOptions o = checked_check_options(seconds, trials, max_side, threads);
        const TableRow* row = nullptr;
        for (const TableRow& r : table)
            if (row_matches(r, where)) {
                row = &r;
                break;
            }
        if (row == nullptr) throw invalid_input("check: no row of the table matches `where`");
        const PredictionCheck c = run_long([&] { return check_prediction(*row, vars, x, Rational(predicted), o); });
        return check_dict(c.verdict, c.reason, c.done, c.generic, c.label, c.failure_bound, c.seconds);
    });

    // ---- tables: each sweep a dict of lists (absent: the library's default); none: the default table
    m.def("table", [](const std::vector<py::dict>& sweeps, const py::dict& opts, std::optional<py::function> progress) {
        std::vector<SweepOptions> list;
        if (sweeps.empty()) list = default_table();
        for (const auto& d : sweeps) {
            SweepOptions sw;
            if (d.contains("families")) {
                sw.families.clear();
                for (const auto& f : d["families"].cast<std::vector<std::string>>()) sw.families.push_back(family_from_string(f));
            }
            sw.tokens = get_or(d, "tokens", sw.tokens);
            sw.dims = get_or(d, "dims", sw.dims);
            sw.heads = get_or(d, "heads", sw.heads);
            sw.depths = get_or(d, "depths", sw.depths);
            sw.block_degrees = get_or(d, "block_degrees", sw.block_degrees);
            sw.widths = get_or(d, "widths", sw.widths);
            sw.residual = {get_or<bool>(d, "residual", false)};
            sw.budget = get_or<long>(d, "budget", 0);
            sw.layers = get_or(d, "layers", sw.layers);
            if (d.contains("layers") && !d.contains("families")) sw.families = {family_from_string("stack")};
            list.push_back(sw);
        }
        // The device, resolved once before any row as the CLI does: cuda without a GPU
        // raises here; auto becomes the GPU or the CPU (with the note, which table() warns).
        const DeviceChoice dev = choose_device(device_from_string(get_or<std::string>(opts, "device", "cpu")));
        for (auto& sw : list) {
            sw.partition = get_or<std::string>(opts, "partition", "");
            sw.generic = generic_options(opts, sw.generic);
            sw.generic.device = dev.device;
            sw.eps = get_or<std::vector<double>>(opts, "eps", {});
            sw.measure = measure_from_string(get_or<std::string>(opts, "measure", "uniform"));
            sw.eps_max_side = get_or<long>(opts, "eps_max_side", sw.eps_max_side);
            sw.dimension = get_or<bool>(opts, "dimension", false);
            sw.blocks = get_or<bool>(opts, "blocks", false);
        }
        TablePlan planned = plan_table(list);
        std::vector<PlannedRow>& plan = planned.rows;
        const long invalid = planned.invalid, duplicates = planned.duplicates;
        // A table file (seprank table --out/--resume): locked, its rows read, another sweep's
        // file refused, before any row; each fresh row appended as it completes.
        const std::string out_path = get_or<std::string>(opts, "out", "");
        const bool resume = get_or<bool>(opts, "resume", false);
        std::unique_ptr<TableAppender> out;
        ResumeSet from_file;
        if (!out_path.empty()) {
            out = std::make_unique<TableAppender>(out_path, get_or<bool>(opts, "out_json", false), sweep_signature(plan.front().sweep), resume);
            from_file = resume_set(out->rows(), plan, out_path);
            apply_resume_hints(plan, from_file.hints);  // rows computed again start from their block ranks
        }
        std::vector<std::string> rows;
        std::vector<Row> done;
        long computed = 0, resumed = 0;
        const std::size_t total = plan.size();
        run_long([&] {
            run_table(plan, from_file.rows, [&](const Row& r, bool fresh) {
                          if (fresh && out) out->append(r);
                          (fresh ? computed : resumed)++;
                          if (is_block_config_row(r))  // a block sweep: one row per block
                              for (const Row& b : block_rows(r)) rows.push_back(to_json(b));
                          else
                              rows.push_back(to_json(r));
                          done.push_back(r);
                      },
                      [&](std::size_t k, const NetworkSpec& s) {
                          if (!progress) return;
                          py::gil_scoped_acquire gil;
                          (*progress)(k, total, describe(s));
                      });
            return 0;
        });
        // The options no row used, (names, reason) each: table() warns about those given.
        py::list unused;
        for (const UnusedOptions& u : unused_table_options(list, done)) unused.append(py::make_tuple(u.names, u.reason));
        py::dict result;
        result["rows"] = rows;
        result["invalid"] = invalid;
        result["unused"] = unused;
        result["device_note"] = dev.note;
        result["off_cpu"] = dev.device != Device::cpu;
        result["duplicates"] = duplicates;
        result["too_large"] = planned.too_large;
        result["first_too_large"] = planned.first_too_large;
        result["first_invalid"] = planned.first_invalid;
        result["computed"] = computed;
        result["resumed"] = resumed;
        result["file_duplicates"] = from_file.duplicates;
        result["file_outside"] = from_file.outside;
        result["file_recompute"] = from_file.recompute;
        result["file_recompute_columns"] = from_file.recompute_columns;
        result["file_hinted"] = static_cast<long>(from_file.hints.size());
        return result;
    });
    m.def("table_columns", [](bool eps, bool dimension, bool layers, bool device, bool variety) { return table_columns(eps, dimension, layers, device, variety); },
          py::arg("eps") = false, py::arg("dimension") = false, py::arg("layers") = false, py::arg("device") = false, py::arg("variety") = false);
    m.def("table_block_columns", [](bool layers, bool device) { return table_block_columns(layers, device); },
          py::arg("layers") = false, py::arg("device") = false);
    m.def("split_layers_list", [](const std::string& text) { return split_layers_list(text); });

    // ---- test hook: throws one library error type, so the tests check translate_errors()
    m.def("_raise_library_error", [](const std::string& kind) {
        if (kind == "invalid_input") throw invalid_input("test: invalid_input");
        if (kind == "domain_error") throw seprank::domain_error("test: domain_error");
        if (kind == "resource_limit") throw resource_limit("test: resource_limit (ExpandOptions::max_memory)");
        if (kind == "internal_error") throw internal_error("test: internal_error");
        if (kind == "cancelled") throw cancelled("test: cancelled");
        if (kind == "bad_alloc") throw std::bad_alloc();
        throw std::runtime_error("test: unknown kind " + kind);
    });

    // ---- verification
    m.def("claim_names", [] { return claim_names(); });
    m.def("claim_statement", [](const std::string& n) { return claim_statement(n); });
    m.def("run_claim", [](const std::string& n, std::uint64_t seed) {
        const ClaimResult r = run_long([&] { return run_claim(n, seed); });
        return py::make_tuple(r.name, r.pass, r.detail, r.checked);
    });
}
