# seprank — the two Quick-start commands.
#   make run   install missing packages, build, run the default job
#   make test  install missing packages, build, run every test suite
#   make bench install the peer tools too, build, compare (writes bench/RESULTS.md, ~30 min)
BUILD ?= build
MESON_OPTS ?=

.PHONY: run test build setup clean bench

setup:
	@./scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: setup $(BUILD)/build.ninja
	meson compile -C $(BUILD)

run: build
	./$(BUILD)/tools/seprank table

test: build
	meson test -C $(BUILD) --print-errorlogs

bench: build
	@./bench/setup.sh
	./bench/run.py --build $(BUILD)

clean:
	rm -rf $(BUILD)
