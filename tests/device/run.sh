#!/usr/bin/env bash
# The GPU machine's one call (docs/gpu.md, "Measured"; issue 35): a capped smoke test (exit 1
# and the benchmarks skipped where it fails), the device tests, then the benchmarks of the
# CUDA engine against the CPU of the same machine, within a time budget.
#
# Here (after `meson compile -C build`):
#   tests/device/run.sh pack [BUILD_DIR]
#     ../shared/device/kit.sh (the tool, its libraries and the plugin) plus the stripped
#     test and bench programs in .device/extra.
# There (device tool, carry [".device"]):
#   tar xJf .device/kit.tar.xz -C /tmp && . /tmp/kit/env.sh && tests/device/run.sh run [SECONDS]
#     writes under $OUT (default ./gpu-out): summary.txt (one line per step, with its exit
#     code and seconds), nvidia-smi.txt and logs.tar.gz (one log per step). SECONDS
#     (default 480) bounds the whole run:
#     a step whose cap would pass it is skipped and says so. STEPS (default all) picks the
#     groups after the smoke test, in this order: tests, rank, tape, step, dimension, table,
#     frontier; e.g. a second call `STEPS=frontier tests/device/run.sh run 540` gives the
#     frontier rows (H=1 and H=2, half the time each) the whole call.
set -uo pipefail
mode=${1:-}
case "$mode" in
pack)
    build=${2:-build}
    ../shared/device/kit.sh "$build" || exit 2
    mkdir -p .device/extra
    for f in tests/test_device tests/test_tape tests/test_rank bench/bench_gpu_rank bench/bench_tape; do
        [ -x "$build/$f" ] || { echo "run.sh: no $build/$f; build first" >&2; exit 2; }
        cp "$build/$f" .device/extra/ && strip .device/extra/"$(basename "$f")"
    done
    echo "run.sh: $(du -sh .device | cut -f1) in .device"
    exit 0
    ;;
run) ;;
*)
    echo "usage: tests/device/run.sh pack [BUILD_DIR] | run [SECONDS]" >&2
    exit 2
    ;;
esac

budget=${2:-480}
out=${OUT:-./gpu-out}
mkdir -p "$out"
# The device tool brings back at most 8 files from $OUT: the step logs are written to a
# temporary folder and packed into $out/logs.tar.gz after every step (the last pack
# survives a kill); summary.txt and nvidia-smi.txt stay beside it.
logs=$(mktemp -d)
pack() { tar czf "$out/logs.tar.gz.tmp" -C "$logs" . && mv "$out/logs.tar.gz.tmp" "$out/logs.tar.gz"; }
trap 'pack; rm -rf "$logs" "${stores:-}"' EXIT
bin=.device/extra
export SEPRANK_CUDA_PLUGIN=${SEPRANK_CUDA_PLUGIN:-/tmp/kit/lib/libseprank_cuda.so}
export SEPRANK_SEED=${SEPRANK_SEED:-20261126}
# The plugin's run path names /usr/local/cuda/lib64; elsewhere, find the toolkit's cuBLAS.
if [[ ! -e /usr/local/cuda/lib64/libcublas.so.13 ]] && ! ldconfig -p 2>/dev/null | grep -q 'libcublas.so.13 '; then
    d=$(find /usr /opt -name 'libcublas.so.13' 2>/dev/null | head -1)
    [[ -n $d ]] && export LD_LIBRARY_PATH=$(dirname "$d")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
threads=$(nproc)
start=$SECONDS

steps=${STEPS:-all}
# wanted GROUP: whether STEPS selects the group.
wanted() { [[ $steps == all || ",$steps," == *",$1,"* ]]; }

# step NAME CAP COMMAND...: runs COMMAND with a time cap into $logs/NAME.log, unless the cap
# would pass the budget; one summary line either way.
step() {
    local name=$1 cap=$2
    shift 2
    if (( SECONDS - start + cap > budget )); then
        echo "$name: skipped (cap ${cap} s, $((budget - SECONDS + start)) s left)" | tee -a "$out/summary.txt"
        return
    fi
    local t0=$SECONDS
    timeout "$cap" "$@" >"$logs/$name.log" 2>&1
    echo "$name: exit $? in $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    pack
}

nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm --format=csv >"$out/nvidia-smi.txt" 2>&1

# 0. Smoke test, capped so that a hung kernel cannot eat the session: a small network by
#    evaluation on the GPU, against the CPU, twice: with the degree blocks kept in device
#    memory (the graded session: tape kernel, degree split, blocked rank with its
#    cooperative leaf kernel), and with a block store (the host path: the tape's grid
#    kernel and the blocked rank of uploaded blocks). Where the session fails and the host
#    path works, the benchmarks run the graded steps through a block store; where both
#    fail, only the device tests run (short caps, for their messages).
stores=$(mktemp -d)
probe() {  # probe NAME SECONDS DEVICE [OPTIONS...]
    local name=$1 cap=$2 dev=$3
    shift 3
    timeout "$cap" seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device "$dev" "$@" >"$logs/probe_$name.log" 2>&1
}
probe session 60 cuda
session_exit=$?
probe one_limb 60 cuda --prime-bits 23
one_limb_exit=$?
probe host 60 cuda --store "$stores/probe"
host_exit=$?
probe cpu 30 cpu
rank_of() { awk '$1 == "rank" { print $2; exit }' "$logs/probe_$1.log"; }
cpu_rank=$(rank_of cpu)
session_ok=0; host_ok=0
[[ $session_exit -eq 0 && -n $cpu_rank && $(rank_of session) == "$cpu_rank" ]] && session_ok=1
[[ $host_exit -eq 0 && -n $cpu_rank && $(rank_of host) == "$cpu_rank" ]] && host_ok=1
# The drawn 31-bit primes run two-limb eliminations; 23-bit ones, one limb. Where only the
# latter works, every graded GPU run below asks for 23 bits.
one_limb_ok=0
[[ $one_limb_exit -eq 0 && -n $cpu_rank && $(rank_of one_limb) == "$cpu_rank" ]] && one_limb_ok=1
bits_opt=""
if (( ! session_ok && one_limb_ok )); then
    session_ok=1
    bits_opt="--prime-bits 23"
    echo "probe: the two-limb eliminations FAILED, one limb works: graded GPU runs use --prime-bits 23" | tee -a "$out/summary.txt"
fi
echo "probe: session exit $session_exit rank $(rank_of session), one limb exit $one_limb_exit rank $(rank_of one_limb)," \
    "host path exit $host_exit rank $(rank_of host), cpu rank $cpu_rank" \
    "($(grep -m1 '^device' "$logs/probe_session.log"))" | tee -a "$out/summary.txt"
# store_for NAME: the options that route a graded GPU run through the host path, if needed.
store_for() { echo "$bits_opt"; (( session_ok )) || echo "--store $stores/$1"; }
if (( ! session_ok && ! host_ok )); then
    echo "probe: FAILED; the device tests only" | tee -a "$out/summary.txt"
    step test_device 60 "$bin/test_device"
    step test_tape 60 "$bin/test_tape" -tc='tape on the GPU*'
    # Out-of-bounds accesses and bad syncs of the probe's kernels (works on Firecracker
    # machines; gVisor refuses the device at once).
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    for tool in memcheck synccheck; do
        step "sanitizer_$tool" 90 "$sanitizer" --tool "$tool" seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device cuda
    done
    echo "total: $((SECONDS - start)) s" | tee -a "$out/summary.txt"
    exit 1
fi
if (( ! session_ok )); then
    echo "probe: the graded session FAILED, the host path works: graded GPU runs go through a block store" | tee -a "$out/summary.txt"
    sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    step sanitizer_session 90 "$sanitizer" --tool memcheck seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device cuda
fi

# 1. The device tests: GPU = CPU reference on random networks of every family (flat and
#    grid evaluation, the graded session) and on planted and non-generic matrices.
if wanted tests; then
    step test_device 90 "$bin/test_device"
    step test_tape 90 "$bin/test_tape"
fi

# 2. Rank of a planted 32768 x 32768 (target <= 1 s), FFLAS on the CPU at 4096 for scale.
if wanted rank; then
    step rank_32768 150 "$bin/bench_gpu_rank" --n 32768 --cpu-n 4096
    # The same planted side mod the two-limb prime 2^46 - 21 (four limb GEMMs per product,
    # docs/gpu.md "Primes and the failure bound"), FLINT and the blocked CPU reference at
    # 2048 for scale: the measurement that decides between the two prime choices.
    step rank_32768_two_limb 120 "$bin/bench_gpu_rank" --n 32768 --prime-bits 46 --cpu-n 2048
fi

# 2b. Forward passes per second: CPU interpreter, GPU in 32-bit and in 64-bit words, grid.
if wanted tape; then
    step bench_tape 60 "$bin/bench_tape" 20000
fi

# 3. One frontier step at equal side, GPU and CPU (target >= 100x): attention N=4 dx=4 L=3
#    H=1, graded, the side fixed by --start = --max-side.
if wanted step; then
    for dev in cuda cpu; do
        # shellcheck disable=SC2046
        step "step_${dev}" 120 seprank generic --family attention --tokens 4 --dim 4 --depth 3 --trials 1 \
            --method evaluation --start 2048 --max-side 2048 --device "$dev" --threads "$threads" --format json \
            $([[ $dev == cuda ]] && store_for "step")
    done
fi

# 4. dimension at P = 2048 (attention dx=16, H=4, L=2: 2 x 4 x 16^2 weights), GPU and CPU.
if wanted dimension; then
    for dev in cuda cpu; do
        step "dimension_${dev}" 90 seprank dimension --family attention --tokens 4 --dim 16 --heads 4 --depth 2 \
            --output all --device "$dev" --threads "$threads" --format json
    done
fi

# 5. The default table, GPU then CPU (target >= 10x).
if wanted table; then
    step table_cuda 90 seprank table --device cuda --threads "$threads" --format csv
    step table_cpu 120 seprank table --threads "$threads" --format csv
fi

# 6. The frontier rows, converged if they can be: H=1 then H=2, half of what is left each
#    (H=2 gets what H=1 did not use).
if wanted frontier; then
    for h in 1 2; do
        left=$((budget - SECONDS + start - 10))
        (( h == 1 )) && left=$((left / 2))
        (( left > 30 )) || { echo "frontier_h$h: skipped (no time left)" | tee -a "$out/summary.txt"; continue; }
        # shellcheck disable=SC2046
        step "frontier_h$h" "$left" seprank generic --family attention --tokens 4 --dim 4 --depth 3 --heads "$h" --trials 1 \
            --device cuda --max-side 400000 --max-seconds "$((left - 15))" --threads "$threads" --format json $(store_for "frontier_h$h")
    done
fi

# One line per JSON answer: the numbers the docs' "Measured" table needs.
if command -v python3 >/dev/null; then
    python3 - "$logs" >>"$out/summary.txt" 2>&1 <<'PY'
import glob, json, os, sys
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.log"))):
    try:
        text = open(f).read()
        d = json.loads(text[text.index("{"):text.rindex("}") + 1])
    except (ValueError, OSError):
        continue
    keep = {k: d.get(k) for k in ("rank", "label", "rows", "converged", "failure_bound", "block_ranks", "prime", "seconds",
                                   "phases", "peak_mib", "device") if k in d}
    print(os.path.basename(f), json.dumps(keep))
    print("  note:", d.get("note", "")[:1500])
PY
else
    grep -h -E '"(rank|seconds|phases|rows|converged|failure_bound|device)"' "$logs"/*.log >>"$out/summary.txt" 2>/dev/null
fi
echo "total: $((SECONDS - start)) s" | tee -a "$out/summary.txt"
