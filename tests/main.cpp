// doctest entry point shared by every test executable: prints the seed in use, and fails
// a run in which no test case passed the filters (e.g. `--test-suite=slow` on a file that
// has no case in test-suite "slow"): doctest itself exits 0 then, and meson would count
// an empty suite as a pass.
#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

#include <doctest/doctest.h>
#include <iostream>

namespace {

// Listens for the end of the run (not called for queries such as --list-test-cases or
// --count, which run no test and are not checked).
unsigned g_cases_run = 0;
bool g_run_ended = false;

struct CountCases : doctest::IReporter {
    explicit CountCases(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats& s) override {
        g_run_ended = true;
        g_cases_run = s.numTestCasesPassingFilters;
    }
    void test_case_start(const doctest::TestCaseData&) override {}
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats&) override {}
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("count_cases", 1, CountCases);

int main(int argc, char** argv) {
    std::cout << "SEPRANK_SEED=" << seprank_test::seed() << " (set SEPRANK_SEED to override)\n";
    doctest::Context ctx(argc, argv);
    const int status = ctx.run();
    if (status == 0 && g_run_ended && g_cases_run == 0) {
        std::cout << "FAIL: no test case passed the filters: an empty suite is not a pass\n";
        return 1;
    }
    return status;
}
