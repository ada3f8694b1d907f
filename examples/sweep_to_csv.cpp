// A small sweep of generic ranks written to CSV: attention with N = 2, 3 tokens,
// dx = 1, 2 and depth L = 1, 2 (the rows `seprank table --tokens 2,3 --dim 1..2 --depth
// 1..2` computes), one row per configuration, to sweep.csv in the current folder.
// Prints `key value` lines for the last row (the convention of tests/consumer_test.sh),
// compared with `seprank generic --tokens 3 --dim 2 --depth 2 --trials 1`
// (examples/sweep_to_csv.check): a table row is one generic rank with one trial.
#include <seprank/table.hpp>

#include <fstream>
#include <iostream>

int main() {
    try {
        seprank::SweepOptions sweep;  // attention, one trial per row, the table's size budget
        sweep.tokens = {2, 3};
        sweep.dims = {1, 2};
        sweep.depths = {1, 2};
        const seprank::SweepPlan plan = seprank::plan_sweep(sweep);

        std::ofstream csv("sweep.csv");
        csv << seprank::csv_header() << '\n';
        seprank::Row last;
        for (const seprank::ValidSpec& spec : plan.configs) {  // validated by plan_sweep: not checked again
            last = seprank::table_row(spec, sweep);
            csv << seprank::csv_line(last) << '\n';
        }
        if (!csv.flush()) {
            std::cerr << "sweep_to_csv: cannot write sweep.csv\n";
            return 1;
        }
        std::cerr << plan.configs.size() << " rows written to sweep.csv\n";
        for (const char* key : {"rank", "degree", "method", "rows", "cols", "partition"})
            std::cout << key << ' ' << last.at(key).str() << '\n';
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "sweep_to_csv: " << e.what() << '\n';
        return 1;
    }
}
