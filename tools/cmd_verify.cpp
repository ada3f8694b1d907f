// seprank verify — the `verify` subcommand: one PASS/FAIL line per claim of docs/theory.md §3.
#include "cli.hpp"
#include "seprank/verify.hpp"

namespace seprank_cli {

namespace {

struct VerifyCommand final : Command {
    std::vector<std::string> only;
    bool list = false;
    std::uint64_t seed = 1;
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("verify", "Exact checks of the claims of docs/theory.md section 3: one PASS/FAIL line each, exit 1 on any FAIL; a claim whose work a resource limit (--max-time, --max-memory) refused is LIMIT, not checked, exit 3 when no claim FAILed");
        sub->add_option("--claim", only, "run only this claim (repeatable; see --list)");
        sub->add_flag("--list", list, "list the claims and what each states");
        sub->add_option("--seed", seed, "seed of the random inputs")->check(seed_check())->capture_default_str();
        sub->add_option("--format", format, "text|json (json: a list of {claim, pass, checked, detail, seconds})")->check(one_of({"text", "json"}));
    }

    int run(const Globals&) override {
        if (list) {
            for (const auto& n : only) (void)seprank::claim_statement(n);  // checked though unused
            Notes notes;
            notes.ignored(*sub, {"--claim", "--seed"}, "--list lists every claim and runs none");
            notes.emit(nullptr);
            json claims = json::array();
            for (const auto& n : seprank::claim_names()) {
                if (format == "json") claims.push_back({{"claim", n}, {"statement", seprank::claim_statement(n)}});
                else std::cout << n << ": " << seprank::claim_statement(n) << "\n";
            }
            if (format == "json") std::cout << json_text(claims, 2) << "\n";
            return 0;
        }
        Notes repeats;
        std::string given;
        for (const auto& n : only) given += (given.empty() ? "" : ",") + n;
        const std::vector<std::string> names = only.empty() ? seprank::claim_names() : repeats.once(only, "--claim", given);
        for (const auto& n : names) (void)seprank::claim_statement(n);  // unknown names: exit 2 before any work
        repeats.emit(nullptr);
        int failed = 0, unchecked = 0;
        json results = json::array();
        for (const auto& n : names) {
            const auto t0 = std::chrono::steady_clock::now();
            const seprank::ClaimResult r = seprank::run_claim(n, seed);
            const double secs = std::round(seconds_since(t0) * 100) / 100;
            if (format == "json")
                results.push_back({{"claim", r.name}, {"pass", r.pass}, {"checked", r.checked}, {"detail", r.detail}, {"seconds", secs}});
            else
                std::cout << (r.pass ? "PASS " : r.checked ? "FAIL " : "LIMIT ") << r.name << ": " << r.detail << " (" << secs << " s)" << std::endl;
            failed += !r.pass && r.checked;
            unchecked += !r.checked;
        }
        if (format == "json") std::cout << json_text(results, 2) << "\n";
        return failed > 0 ? 1 : unchecked > 0 ? 3 : 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_verify_command() { return std::make_unique<VerifyCommand>(); }

}  // namespace seprank_cli
