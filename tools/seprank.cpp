// seprank — command-line front end. Each subcommand lives in tools/cmd_<name>.cpp.
// Exit codes: 0 success, 2 bad input (one line on stderr naming the value), 3 a stated
// resource limit was hit, 1 an internal error (a bug: the message says so).
#include "cli.hpp"

int main(int argc, char** argv) {
    using namespace seprank_cli;
    try {
        CLI::App app{"seprank: exact degree and separation rank of polynomial attention networks"};
        app.require_subcommand(1);
        app.fallthrough();  // global options (--threads) may follow the subcommand
        app.set_version_flag("--version", "seprank 0.1.0");
        Globals g;
        app.add_option("--threads", g.threads, "threads for FLINT's multiplication and parallel ranks")->capture_default_str();
        std::vector<std::unique_ptr<Command>> commands;
        for (auto make : {make_poly_command, make_expand_command, make_degree_command, make_rank_command,
                          make_generic_command, make_table_command, make_plot_command, make_verify_command,
                          make_spectrum_command}) {
            commands.push_back(make());
            commands.back()->add(app);
        }
        try {
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            // --help and --version exit 0; every other parse error is bad input: exit 2.
            const int rc = app.exit(e);
            return rc == 0 ? 0 : 2;
        }
        if (g.threads < 1) throw seprank::invalid_input("--threads " + std::to_string(g.threads) + " must be at least 1");
        flint_set_num_threads(g.threads);
        for (auto& c : commands)
            if (*c->sub) return c->run(g);
        return 2;
    } catch (const seprank::invalid_input& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::domain_error& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::resource_limit& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 3;
    } catch (const std::bad_alloc&) {
        std::cerr << "seprank: out of memory (a size that was not estimated in advance; lower the sizes)\n";
        return 3;
    } catch (const std::exception& e) {
        std::cerr << "seprank: internal error: " << e.what() << "\n";
        return 1;
    }
}
