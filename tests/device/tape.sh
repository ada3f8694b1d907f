#!/usr/bin/env bash
# The forward tape's device checks (docs/tape.md), for a machine with a GPU: the tape tests
# (their GPU cases compare the CUDA interpreter with the CPU one on random specs of every
# family, 100,000 points each, flat and grid, both memory layouts) and bench_tape's table
# (points per second, CPU and GPU). Writes test_tape.txt and bench_tape.md under $OUT (or
# the current folder) and exits non-zero if a check fails.
#
# Usage: tests/device/tape.sh [BUILD_DIR]   (default: build; test_tape and bench_tape built)
set -euo pipefail
build=${1:-build}
out=${OUT:-.}
status=0
"$build/tests/test_tape" 2>&1 | tee "$out/test_tape.txt" || status=1
"$build/bench/bench_tape" 20000 2>&1 | tee "$out/bench_tape.md" || status=1
exit "$status"
