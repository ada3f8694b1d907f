#!/usr/bin/env bash
# The GPU checks of the blocked elimination (issue 35), in one short run on the device
# machine: tests/test_device (GPU rank = FLINT's on planted and non-generic matrices, a
# planted 4096 x 4096 and a 1000 x 3000) and bench_gpu_rank (planted 32768 x 32768).
#
# Here (after meson compile -C build and ../shared/device/kit.sh):
#   bench/gpu_rank_device.sh pack [BUILD_DIR]   # adds the two programs to .device/extra
# There (carry .device; the plugin comes with the kit, or SEPRANK_CUDA_PLUGIN names it):
#   tar xJf .device/kit.tar.xz -C /tmp && . /tmp/kit/env.sh && bench/gpu_rank_device.sh run
# writes test_device.log and bench_gpu_rank*.log under $OUT (default ./gpu-out).
set -uo pipefail
mode=${1:-}
case "$mode" in
pack)
    build=${2:-build}
    mkdir -p .device/extra
    ex=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$ex")"
    grep -qx '/.device/' "$ex" 2>/dev/null || echo '/.device/' >> "$ex"
    for f in "$build/tests/test_device" "$build/bench/bench_gpu_rank"; do
        [ -x "$f" ] || { echo "gpu_rank_device.sh: no $f; build first" >&2; exit 2; }
        cp "$f" .device/extra/ && strip .device/extra/"$(basename "$f")"
    done
    echo "gpu_rank_device.sh: $(du -sh .device/extra | cut -f1) in .device/extra"
    ;;
run)
    out=${OUT:-./gpu-out}
    mkdir -p "$out"
    bin=.device/extra
    nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv > "$out/nvidia-smi.txt" 2>&1
    SEPRANK_SEED=${SEPRANK_SEED:-20261126} timeout 240 "$bin/test_device" -s > "$out/test_device.log" 2>&1
    echo "test_device: exit $?" | tee -a "$out/summary.txt"
    timeout 240 "$bin/bench_gpu_rank" --n 32768 --cpu-n 4096 > "$out/bench_gpu_rank.log" 2>&1
    echo "bench_gpu_rank n=32768: exit $?" | tee -a "$out/summary.txt"
    timeout 120 "$bin/bench_gpu_rank" --n 16384 --cpu-n 0 --prime 67108859 > "$out/bench_gpu_rank_k8.log" 2>&1
    echo "bench_gpu_rank n=16384 p=67108859 (K = 8): exit $?" | tee -a "$out/summary.txt"
    grep -h -E "seconds|rank|MISMATCH|device" "$out"/bench_gpu_rank*.log | tee -a "$out/summary.txt"
    tail -3 "$out/test_device.log" | tee -a "$out/summary.txt"
    ;;
*)
    echo "usage: bench/gpu_rank_device.sh pack [BUILD_DIR] | run" >&2
    exit 2
    ;;
esac
