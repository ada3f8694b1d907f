// seprank — command-line front end. Each subcommand lives in tools/cmd_<name>.cpp.
// Exit codes (docs/usage.md §1.2): 0 success, 2 bad input (one line on stderr naming the
// value and what was expected), 3 a stated resource limit (the estimate and the limit;
// also a failed write of the output), 1 an internal error. Never a signal: SIGPIPE is
// ignored so that a closed pipe is a detected write error.
#include "cli.hpp"

#include <csignal>
#include <cstdio>

namespace {

int report(const char* prefix, const std::exception& e, int code) {
    std::string msg = e.what();
    for (char& c : msg)
        if (c == '\n' || c == '\r') c = ' ';  // one line, always
    std::cerr << "seprank: " << prefix << msg << "\n";
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace seprank_cli;
    std::signal(SIGPIPE, SIG_IGN);
    try {
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
                       "time limit in seconds for the work estimated before it starts (dimension's Jacobians, guess's exact "
                       "evaluations): over it, exit 3 with the estimate; default 60; must be > 0");
        std::vector<std::unique_ptr<Command>> commands;
        for (auto make : {make_poly_command, make_expand_command, make_degree_command, make_rank_command,
                          make_generic_command, make_table_command, make_plot_command, make_verify_command,
                          make_spectrum_command, make_guess_command, make_dimension_command}) {
            commands.push_back(make());
            commands.back()->add(app);
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
            return report("", e, 2);
        }
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
        }
        if (app.get_option("--max-time")->count() > 0) seprank::set_default_max_seconds(g.max_time_s, "--max-time (seconds)");
        flint_set_num_threads(g.threads);
        for (auto& c : commands)
            if (*c->sub) {
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
