// seprank poly — the `poly` subcommand: options, one library call, formatting.
#include "cli.hpp"

namespace seprank_cli {

namespace {

struct PolyCommand final : Command {
    std::string poly_text;
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("poly", "Parse a polynomial; print its canonical form, degree and term count");
        sub->add_option("text", poly_text, "the polynomial, e.g. \"3/4*x1_2^3*x2_1 - x1_1 + 2\"")->required();
        sub->add_option("--format", format, "text|json")->check(one_of({"text", "json"}));
    }

    int run(const Globals&) override {
        auto ctx = seprank::QContext::make(seprank::variables_in(poly_text));
        const seprank::QPoly f = seprank::parse_poly(poly_text, ctx);
        json rec = {{"degree", f.degree()},
                    {"terms", f.terms()},
                    {"homogeneous", f.is_homogeneous()},
                    {"variables", ctx->vars().names()}};
        rec["polynomial"] = seprank::to_string(f);  // moved in: a brace list would copy the text
        print_record(rec, format, {"polynomial", "degree", "terms", "homogeneous"});
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_poly_command() { return std::make_unique<PolyCommand>(); }

}  // namespace seprank_cli
