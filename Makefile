# seprank — the two Quick-start commands.
#   make run   install missing packages, build, run the default job
#   make test  install missing packages, build, run every test suite
BUILD ?= build
MESON_OPTS ?=

.PHONY: run test build setup clean

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

clean:
	rm -rf $(BUILD)
