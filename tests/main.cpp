// doctest entry point shared by every test executable: prints the seed in use.
#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

#include <doctest/doctest.h>
#include <iostream>

int main(int argc, char** argv) {
    std::cout << "SEPRANK_SEED=" << seprank_test::seed() << " (set SEPRANK_SEED to override)\n";
    doctest::Context ctx(argc, argv);
    return ctx.run();
}
