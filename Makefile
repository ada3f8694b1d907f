# seprank — the two Quick-start commands.
#   make run   install missing packages, build the seprank executable only, run the default job
#   make test  install missing packages, build everything (tests too), run every test suite
#   make bench install the peer tools too, build everything, compare (writes bench/RESULTS.md, ~30 min)
BUILD ?= build
MESON_OPTS ?=

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
