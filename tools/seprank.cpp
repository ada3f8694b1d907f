// seprank — command-line front end: parse options, call one library function, format.
#include "seprank/error.hpp"
#include "seprank/poly_io.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

namespace {

int run(int argc, char** argv) {
    CLI::App app{"seprank: exact degree and separation rank of polynomial attention networks"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "seprank 0.1.0");

    std::string poly_text, format = "text";
    auto* poly = app.add_subcommand("poly", "Parse a polynomial; print its canonical form, degree and term count");
    poly->add_option("text", poly_text, "the polynomial, e.g. \"3/4*x1_2^3*x2_1 - x1_1 + 2\"")->required();
    poly->add_option("--format", format, "text|json")->check(CLI::IsMember({"text", "json"}));

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every other parse error is bad input: exit 2.
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }

    if (*poly) {
        auto ctx = seprank::QContext::make(seprank::variables_in(poly_text));
        const seprank::QPoly f = seprank::parse_poly(poly_text, ctx);
        const std::string canon = seprank::to_string(f);
        if (format == "json") {
            nlohmann::json j = {{"polynomial", canon},     {"degree", f.degree()},
                                {"terms", f.terms()},      {"homogeneous", f.is_homogeneous()},
                                {"variables", ctx->vars().names()}};
            std::cout << j.dump(2) << "\n";
        } else {
            std::cout << "polynomial:  " << canon << "\n"
                      << "degree:      " << f.degree() << "\n"
                      << "terms:       " << f.terms() << "\n"
                      << "homogeneous: " << (f.is_homogeneous() ? "yes" : "no") << "\n";
        }
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const seprank::invalid_input& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::domain_error& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 2;
    } catch (const seprank::resource_limit& e) {
        std::cerr << "seprank: " << e.what() << "\n";
        return 3;
    }
}
