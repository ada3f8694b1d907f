// seprank plot — the `plot` subcommand: options, one library call, formatting.
#include "cli.hpp"
#include "seprank/guess.hpp"

namespace seprank_cli {

namespace {

struct PlotCommand final : Command {
    std::string plot_csv, plot_out;
    seprank::PlotOptions po;
    std::string format = "text";

    void add(CLI::App& app) override {
        sub = app.add_subcommand("plot", "Plot a table CSV through gnuplot, e.g. log3_rank vs depth per dim with the theorem bounds");
        sub->add_option("table", plot_csv, "table CSV (seprank table --format csv)")->required();
        sub->add_option("-o,--output", plot_out, "figure file, .svg or .png")->required();
        sub->add_option("--x", po.x, "column on the x axis")->capture_default_str();
        sub->add_option("--y", po.y, "column on the y axis")->capture_default_str();
        sub->add_option("--y2", po.y2, "a second column per series on the right-hand y axis (dashed), e.g. --y dimension --y2 log3_rank");
        sub->add_option("--series", po.series, "one curve per value of this column")->capture_default_str();
        sub->add_option("--where", po.where, "keep rows with column=value; several pairs comma-separated as guess --where (tokens=2,heads=1), or the option repeated");
        sub->add_flag("--bounds", po.bounds, "add the Theorem 7.1/7.2 bound curves (log3_lower, log3_upper; with --y log3_rank only, their scale)");
        sub->add_option("--title", po.title, "figure title");
        sub->add_option("--format", format, "text|json (what is printed after writing the figure)")->check(one_of({"text", "json"}));
        sub->add_flag("--logy", po.logy, "logarithmic y axis (e.g. singular values from spectrum --format csv)");
        sub->add_flag("--blocks", po.blocks, "a block profile of a block table (seprank table --blocks): rank and cap against the block, one curve per configuration; lower-bound blocks marked, not drawn as values");
    }

    int run(const Globals&) override {
        std::vector<std::string> where;  // one column=value each, split as guess --where
        for (const std::string& text : po.where) {
            // One pair as given, an empty value included (outside= keeps the rows inside the
            // bounds); several split as guess --where, which takes no empty value.
            if (std::count(text.begin(), text.end(), '=') <= 1) {
                where.push_back(text);
                continue;
            }
            for (const auto& [column, value] : seprank::parse_where(text)) where.push_back(column + "=" + value);
        }
        po.where = where;
        if (po.blocks)  // the profile fixes its axes and curves
            for (const char* o : {"--x", "--y", "--series", "--y2", "--bounds"})
                if (sub->count(o) > 0)
                    throw seprank::invalid_input(std::string("plot --blocks draws rank and cap against the block, one curve per configuration: ") + o +
                                                 " does not apply");
        seprank::plot_table(plot_csv, plot_out, po);
        if (format == "json") std::cout << json_text(json({{"wrote", plot_out}})) << "\n";
        else std::cout << "wrote " << plot_out << "\n";
        return 0;
    }
};

}  // namespace

std::unique_ptr<Command> make_plot_command() { return std::make_unique<PlotCommand>(); }

}  // namespace seprank_cli
