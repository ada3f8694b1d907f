// seprank — command-line front end. Each subcommand lives in tools/cmd_<name>.cpp.
// Exit codes (docs/usage.md §1.2): 0 success, 2 bad input (one line on stderr naming the
// value and what was expected), 3 a stated resource limit (the estimate and the limit;
// also a failed write of the output), 1 an internal error. Never a signal of its own:
// SIGPIPE and SIGXFSZ are ignored so that a closed pipe or a file-size limit is a detected
// write error; SIGINT, SIGTERM and SIGHUP end it after removing its temporaries.
#include "cli.hpp"
#include "seprank/cancel.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <csignal>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The commands, comma-separated.
std::string command_names(const CLI::App& app) {
    std::string names;
    for (const CLI::App* s : app.get_subcommands([](const CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + s->get_name();
    return names;
}

// Edit distance (insertions, deletions, substitutions, adjacent swaps) between short words.
std::size_t distance(const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// The long option of `in` (or a global one) nearest to `word` ("--tokns"), when at most
// two edits away (one for words of up to 5 letters); "" otherwise.
std::string nearest_option(const CLI::App& in, const std::string& word) {
    std::string best;
    std::size_t best_d = word.size() <= 7 ? 1 : 2;  // "--" and up to 5 letters: one edit
    best_d += 1;
    auto consider = [&](const CLI::App& a) {
        for (const CLI::Option* o : a.get_options([](const CLI::Option* x) { return !x->get_group().empty(); }))
            for (const std::string& n : o->get_lnames()) {
                const std::size_t d = distance(word, "--" + n);
                if (d < best_d) {
                    best_d = d;
                    best = "--" + n;
                }
            }
    };
    consider(in);
    if (in.get_parent() != nullptr) consider(*in.get_parent());
    return best;
}

// The parser's message, with the words it leaves out: the unknown command's name, and
// the values of an option given more than once.
std::string parse_error_text(const CLI::ParseError& e, int argc, char** argv, const CLI::App& app) {
    const std::string what = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what.find("subcommand is required") != std::string::npos) {
        // The first word that is no option nor a global option's value names the command.
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == "--threads" || a == "--max-memory" || a == "--max-time") {
                ++i;
                continue;
            }
            if (a.empty() || a[0] == '-') continue;
            return "unknown command '" + a + "' (the commands: " + command_names(app) + ")";
        }
        return "a command is required: " + command_names(app) + " (seprank --help says what each does)";
    }
    // An option the command does not have: the nearest one it has, when one is close.
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
        const CLI::App* in = &app;
        for (const CLI::App* s : app.get_subcommands()) in = s;  // the command parsed, if any
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
            const std::string word = a.substr(0, a.find('='));
            if (in->get_option_no_throw(word) != nullptr || app.get_option_no_throw(word) != nullptr) continue;
            const std::string near = nearest_option(*in, word);
            return "unknown option " + word + (in == &app ? "" : " for " + in->get_name()) +
                   (near.empty() ? " (seprank " + (in == &app ? std::string() : in->get_name() + " ") + "--help lists them)" : ": did you mean " + near + "?");
        }
        return what;
    }
    // A value of the wrong type: "Could not convert: --dim = 1.5" says neither which.
    if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr && what.rfind("Could not convert: ", 0) == 0) {
        const std::string rest = what.substr(19);
        const std::size_t eq = rest.find(" = ");
        if (eq != std::string::npos) {
            const std::string name = rest.substr(0, eq), value = rest.substr(eq + 3);
            const CLI::App* in = &app;
            for (const CLI::App* s : app.get_subcommands()) in = s;
            const CLI::Option* o = in->get_option_no_throw(name);
            if (o == nullptr) o = app.get_option_no_throw(name);
            const std::string type = o == nullptr ? std::string() : o->get_type_name();
            const std::string expected = type.rfind("UINT", 0) == 0 ? "a non-negative integer"
                                         : type.rfind("INT", 0) == 0 ? "an integer"
                                         : type.rfind("FLOAT", 0) == 0 ? "a number"
                                                                       : "";
            // A decimal integer the option's type cannot hold (2^31 for an int): out of range, not "expected an integer".
            const std::string_view d = !value.empty() && (value[0] == '-' || value[0] == '+') ? std::string_view(value).substr(1) : std::string_view(value);
            if (type.find("INT") != std::string::npos && !d.empty() && d.size() <= 400 &&
                std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; }))
                return name + " " + value + ": out of range (an integer too large for this option)";
            if (!expected.empty()) return name + " " + value + ": expected " + expected;
        }
        return what;
    }
    const std::size_t at = what.find(": At Most 1 required but received ");
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && at != std::string::npos) {
        const std::string name = what.substr(0, at);
        std::string given;
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            if (a == name && i + 1 < argc) given += (given.empty() ? "" : ", ") + std::string(argv[++i]);
            else if (a.rfind(name + "=", 0) == 0) given += (given.empty() ? "" : ", ") + a.substr(name.size() + 1);
        }
        // Only the global options may stand on either side of the command: say so for them.
        const bool global = app.get_option_no_throw(name) != nullptr;
        return name + " given more than once" + (given.empty() ? std::string() : " (" + given + ")") + ": give it once" +
               (global ? " (a global option goes before or after the command, not both)" : "");
    }
    return what;
}

int report(const char* prefix, const std::exception& e, int code) {
    // One line, always: a line break inside a value the message quotes is shown as \n
    // (a carriage return already is \x0d, detail::printable).
    std::string msg;
    for (const char c : seprank_cli::cli_names(e.what())) {
        if (c == '\n') msg += "\\n";
        else if (c == '\r') msg += "\\x0d";
        else msg += c;
    }
    std::cerr << "seprank: " << prefix << msg << "\n";
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace seprank_cli;
    std::signal(SIGPIPE, SIG_IGN);
    // A write past the file-size limit (ulimit -f) fails with EFBIG, reported like a full
    // disk (exit 3), rather than ending the process (or gnuplot, which inherits it).
    std::signal(SIGXFSZ, SIG_IGN);
    try {
        // First, before any thread: SIGINT, SIGTERM and SIGHUP remove the temporaries and
        // end gnuplot before the process ends by them (docs/cancel.md, "Interrupts").
        seprank::install_interrupt_cleanup();
        CLI::App app{"seprank: exact degree and separation rank of polynomial attention networks"};
        app.require_subcommand(1);
        app.fallthrough();  // global options (--threads, --max-memory) may follow the subcommand
        app.set_version_flag("--version", "seprank 0.1.0");
        Globals g;
        app.add_option("--threads", g.threads, "threads for FLINT's multiplication and parallel ranks (1.." + std::to_string(max_threads()) + ")")
            ->capture_default_str();
        app.add_flag("--quiet", g.quiet, "no progress reports on stderr (long commands report every few seconds otherwise)");
        app.add_option("--max-memory", g.max_memory_gib,
                       "memory limit in GiB for every size checked before allocation (expansions, matrices, weights, files); "
                       "default: half of the physical memory or of the address-space limit, here " +
                           seprank::format_bytes(seprank::physical_memory_budget()) + "; from 1/1024 (1 MiB) to 1048576 (1 PiB)");
        app.add_option("--max-time", g.max_time_s,
                       "time limit in seconds for the work estimated before it starts (dimension's Jacobians, also inside variety, "
                       "equation, degree --budget, table --dimension and verify; spectrum --experiment's draws; defects' range; table's "
                       "planning of a large sweep): over "
                       "it, exit 3 with the estimate; guess's search, not estimated, stops when it passes it (exit 3); default 60; must be > 0");
        std::vector<std::unique_ptr<Command>> commands;
        for (auto make : {make_poly_command, make_expand_command, make_degree_command, make_rank_command,
                          make_generic_command, make_table_command, make_plot_command, make_verify_command,
                          make_spectrum_command, make_guess_command, make_dimension_command, make_variety_command, make_equation_command,
                          make_defects_command}) {
            commands.push_back(make());
            commands.back()->add(app);
        }
        // The commands that run on the CPU only take --device too, hidden, so that one given
        // it answers that it runs on the CPU (one line, exit 2) rather than with the parser's
        // "arguments were not expected".
        std::string takers;
        for (const auto& c : commands)
            if (c->sub->get_option_no_throw("--device") != nullptr) takers += (takers.empty() ? "" : ", ") + c->sub->get_name();
        std::vector<std::string> cpu_only;
        std::string cpu_only_device;  // what one of them was given
        for (const auto& c : commands)
            if (c->sub->get_option_no_throw("--device") == nullptr) {
                // hidden: CLI11 names a hidden option "" in its errors, so it takes any count of values
                c->sub->add_option("--device", cpu_only_device)->group("")->expected(0, 1)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
                cpu_only.push_back(c->sub->get_name());
            }
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // --help and --version exit 0; every other parse error is bad input: exit 2.
            if (e.get_exit_code() == 0) {
                app.exit(e);
                check_stdout();
                return 0;
            }
            // Every other parse error is bad input: one line, prefixed like the others
            // (docs/usage.md §1.2), naming the option and the value.
            return report("", std::runtime_error(parse_error_text(e, argc, argv, app)), 2);
        }
        // A number no double can hold (1e-400 reads as 0, 1e400 as inf) is refused as typed,
        // whichever option it is given to: 0 or inf could pass an option's own check with
        // another meaning (generic --max-seconds 1e-400 would be "no budget").
        for (const CLI::App* a : [&] { auto v = app.get_subcommands(); v.insert(v.begin(), &app); return v; }())
            for (const CLI::Option* o : a->get_options())
                for (const std::string& r : o->results()) {
                    // A number option reads decimal text only: CLI11 would also take hex (0x10, 0x1p-3)
                    // and a leading space, which no example writes and which read as typos.
                    const std::string type = o->get_type_name();
                    if ((type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 || type.rfind("FLOAT", 0) == 0) &&
                        r.find_first_of("xX \t\n\r\f\v") != std::string::npos)
                        throw seprank::invalid_input(o->get_name() + " '" + r + "': expected a decimal " +
                                                     (type.rfind("FLOAT", 0) == 0 ? "number" : "integer"));
                    if (r.empty() || r.find_first_not_of("0123456789.eE+-") != std::string::npos) continue;
                    char* end = nullptr;
                    errno = 0;
                    const double v = std::strtod(r.c_str(), &end);
                    if (end == r.c_str() + r.size() && errno == ERANGE && (v == 0 || std::isinf(v)))
                        throw seprank::invalid_input(o->get_name() + " " + r + ": no double holds it (it would read as " + (v == 0 ? "0" : "inf") +
                                                     "; doubles reach about 1e-308 to 1e308)");
                }
        for (const char* name : {"--threads", "--max-memory", "--max-time"})  // "" reads as 0: say it was empty
            if (app.get_option(name)->count() > 0 && app.get_option(name)->results().back().empty())
                throw seprank::invalid_input(std::string(name) + ": empty value");
        if (g.threads < 1 || g.threads > max_threads())
            throw seprank::invalid_input("--threads " + std::to_string(g.threads) + ": expected 1.." + std::to_string(max_threads()) +
                                         " (16 per hardware thread)");
        if (app.get_option("--max-memory")->count() > 0) {
            // In GiB, named as given: 1 MiB to 1 PiB (outside, a typo; 1e300 would overflow to inf bytes).
            if (!(g.max_memory_gib >= 1.0 / 1024 && g.max_memory_gib <= 1048576.0)) {
                const std::string given = app.get_option("--max-memory")->results().back();  // as typed
                throw seprank::invalid_input("--max-memory " + given + ": expected a number of GiB from 0.0009765625 (1 MiB) to 1048576 (1 PiB)");
            }
            seprank::set_default_max_memory(g.max_memory_gib * 1024.0 * 1024 * 1024, "--max-memory");
        } else {
            // The built-in limit, named by the flag that changes it: every refusal says --max-memory.
            seprank::set_default_max_memory(seprank::physical_memory_budget(), "--max-memory");
        }
        if (app.get_option("--max-time")->count() > 0) {
            // Named as typed: 1e400 reads as inf and 1e-400 as 0, which the library would show.
            if (!(g.max_time_s > 0) || !std::isfinite(g.max_time_s))
                throw seprank::invalid_input("--max-time " + typed_number(app, "--max-time", g.max_time_s) +
                                             ": expected a positive finite number of seconds");
            seprank::set_default_max_seconds(g.max_time_s, "--max-time (seconds)");
        }
        flint_set_num_threads(g.threads);
        seprank::set_default_threads(g.threads, "--threads");  // every computation started inside a command too (limits.hpp)
        for (auto& c : commands)
            if (*c->sub) {
                if (std::find(cpu_only.begin(), cpu_only.end(), c->sub->get_name()) != cpu_only.end() && c->sub->get_option("--device")->count() > 0)
                    throw seprank::invalid_input("--device" + (cpu_only_device.empty() ? "" : " " + cpu_only_device) + ": " + c->sub->get_name() +
                                                 " runs on the CPU; --device applies to " + takers);
                check_given_options(app, *c->sub);
                const int rc = c->run(g);
                check_stdout();
                return rc;
            }
        return 2;
    } catch (const seprank::invalid_input& e) {
        return report("", e, 2);
    } catch (const seprank::domain_error& e) {
        return report("", e, 2);
    } catch (const seprank::resource_limit& e) {
        return report("", e, 3);
    } catch (const std::bad_alloc&) {
        std::cerr << "seprank: out of memory (a size that was not estimated in advance; lower the sizes or --max-memory)\n";
        return 3;
    } catch (const std::exception& e) {
        return report("internal error: ", e, 1);
    } catch (...) {
        std::cerr << "seprank: internal error: unknown exception\n";
        return 1;
    }
}
