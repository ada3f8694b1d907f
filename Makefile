# seprank — the two Quick-start commands.
#   make run   install missing packages, build the seprank executable only, run the default job
#   make test  install missing packages, build everything (tests too), run every test suite
#   make bench install the peer tools too, build everything, compare (writes bench/RESULTS.md, ~30 min)
BUILD ?= build
MESON_OPTS ?=
# The compiler cache (installed by scripts/setup.sh, used by meson when present) hashes
# paths relative to this clone and leaves the working folder out: a clone anywhere on the
# machine, and the package test's wheel built from a copy of the sources, reuse the
# objects of a build of the same sources (docs/development.md, "Compiler cache").
export CCACHE_BASEDIR ?= $(CURDIR)
export CCACHE_NOHASHDIR ?= 1

.PHONY: run test build build-cli setup clean bench

setup:
	@./scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: setup $(BUILD)/build.ninja
	meson compile -C $(BUILD)

# Only the executable and the library it links: tests and benchmarks are built by
# `make test` and `make bench`.
build-cli: setup $(BUILD)/build.ninja
	meson compile -C $(BUILD) tools/seprank

run: build-cli
	./$(BUILD)/tools/seprank table

test: build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	@./bench/setup.sh
	./bench/run.py --build $(BUILD)

clean:
	rm -rf $(BUILD)
