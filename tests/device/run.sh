#!/usr/bin/env bash
# The GPU machine's one call (docs/gpu.md, "Measured"; issue 35): a capped smoke test (exit 1
# and the benchmarks skipped where it fails), the device tests, then the benchmarks of the
# CUDA engine against the CPU of the same machine, within a time budget.
#
# Here (after `meson compile -C build`):
#   tests/device/run.sh pack [BUILD_DIR]
#     ../shared/device/kit.sh (the tool and its libraries) plus the stripped test and bench
#     programs and build/cuda's plugin (which run uses) in .device/extra.
# There (device tool, carry [".device"]):
#   tar xJf .device/kit.tar.xz -C /tmp && . /tmp/kit/env.sh && tests/device/run.sh run [SECONDS]
#     writes under $OUT (default ./gpu-out): summary.txt (one line per step, with its exit
#     code and seconds), nvidia-smi.txt and logs.tar.gz (one log per step). SECONDS
#     (default 480) bounds the whole run:
#     a step whose cap would pass it is skipped and says so. STEPS (default all) picks the
#     groups after the smoke test, in this order: tests (with the compiled kernels), frontier,
#     rank (rank31: only its 31-bit ranks, the one-sided limbs), scan (very deficient
#     matrices), step, dimension, tape, share, table, rows (issue 61's rows, ROWS), sanitizers
#     (racecheck and synccheck on the leaf kernels, memcheck on the blocks side by side).
#     FRONTIER_SECONDS (default 40% of SECONDS) is the frontier rows' share;
#     FRONTIER_TRIALS (default 3) their trials: each draws its own 31-bit prime, so the
#     failure bound falls from about 2e-2 (one) to 5e-4 (two) and 1e-5 (three); a trial the
#     time ends counts 1 and keeps the earlier trials' answer (docs/gpu.md).
#     The device lends 15 minutes in all, starts included (about 40 s each), and takes the
#     machine back 30 s after a call, so a second call must follow at once. On an H200 a
#     whole run without rows took 139-182 s (bench/GPU.md). A run stays within 8 minutes
#     (issue 61): for its rows, two calls back to back (900 s in all, starts included): the
#     frontier step four ways (which decides whether the rows run compiled; ROWS_COMPILED=1
#     or 0 forces it) and the rows, then the rest:
#       STEPS=step,rows SANITIZER_RESERVE=0 ROWS="3,4,4,1,3,220,gpu_depth4.csv 4,3,4,1,3,120,law_n4.json 4,5,3,1,3,80,law_n4.json" ... run 480   (timeout_s 520)
#       STEPS=tests,rank31,scan,table,sanitizers ... run 280                               (timeout_s 320)
set -uo pipefail
mode=${1:-}
case "$mode" in
pack)
    build=${2:-build}
    ../shared/device/kit.sh "$build" || exit 2
    mkdir -p .device/extra
    for f in tests/test_device tests/test_tape tests/test_rank bench/bench_gpu_rank bench/bench_tape cuda/libseprank_cuda.so; do
        [ -e "$build/$f" ] || { echo "run.sh: no $build/$f; build first" >&2; exit 2; }
        cp "$build/$f" .device/extra/ && strip --strip-unneeded .device/extra/"$(basename "$f")"
    done
    # The rows' block hints (docs/evaluation.md, "Block hints"), made here (the device has
    # no data/): the N = 4 block law's and the several-heads law's predictions, and the
    # lower bounds of the GPU's last depth-4 run.
    mkdir -p .device/hints
    "$build/tools/seprank" guess data/blocks_attention_n4.csv --blocks --vars dim,depth --where heads=1 \
        --predict dim=3,depth=4 --predict dim=5,depth=3 --format json >.device/hints/law_n4.json || exit 2
    "$build/tools/seprank" guess data/blocks_attention_n3_heads.csv --blocks --vars dim,depth \
        --predict dim=4,depth=4 --format json >.device/hints/law_n3_heads.json || exit 2
    cp data/blocks_attention_gpu_depth4.csv .device/hints/gpu_depth4.csv || exit 2
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
# The compiled kernels' images (docs/gpu.md, "Compiled programs"), this run's own folder.
SEPRANK_CUDA_CACHE=${SEPRANK_CUDA_CACHE:-$(mktemp -d)}
export SEPRANK_CUDA_CACHE
pack() { tar czf "$out/logs.tar.gz.tmp" -C "$logs" . && mv "$out/logs.tar.gz.tmp" "$out/logs.tar.gz"; }
trap 'pack; rm -rf "$logs" "${stores:-}"' EXIT
bin=.device/extra
# The plugin of this build: kit.sh copies every lib*.so* under the build folder into one
# folder, so an older copy staged by the install tests (consumer-test/, headers-test/) can
# stand in for build/cuda's there; pack copies build/cuda's into .device/extra.
export SEPRANK_CUDA_PLUGIN=${SEPRANK_CUDA_PLUGIN:-$PWD/$bin/libseprank_cuda.so}
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
        step_rc=125  # not the exit of the step before: a skipped step did not pass
        return
    fi
    local t0=$SECONDS
    timeout "$cap" "$@" >"$logs/$name.log" 2>&1
    step_rc=$?
    echo "$name: exit $step_rc in $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    pack
}
step_rc=1

nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm --format=csv >"$out/nvidia-smi.txt" 2>&1

# 0. Smoke test, capped so that a hung kernel cannot eat the session: a small network by
#    evaluation on the GPU against the CPU with the same prime bits (so the same prime and
#    draws, hence the same rank), three ways: the graded session (blocks in device memory)
#    with the drawn 31-bit prime (two-limb eliminations), the same with --prime-bits 23
#    (one limb), and the host path (a block store). The runs below use what works; where
#    nothing does, only the device tests and the sanitizers run (for their messages).
stores=$(mktemp -d)
probe() {  # probe NAME SECONDS DEVICE [OPTIONS...]
    local name=$1 cap=$2 dev=$3
    shift 3
    timeout "$cap" seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device "$dev" "$@" >"$logs/probe_$name.log" 2>&1
}
probe session 60 cuda
session_exit=$?
probe one_limb 45 cuda --prime-bits 23
one_limb_exit=$?
probe host 45 cuda --store "$stores/probe"
host_exit=$?
probe cpu31 30 cpu --prime-bits 31
probe cpu23 30 cpu --prime-bits 23
rank_of() { awk '$1 == "rank" { print $2; exit }' "$logs/probe_$1.log"; }
same() { [[ $1 -eq 0 && -n $(rank_of "$2") && $(rank_of "$2") == "$(rank_of "$3")" ]]; }
session_ok=0; one_limb_ok=0; host_ok=0
same "$session_exit" session cpu31 && session_ok=1
same "$one_limb_exit" one_limb cpu23 && one_limb_ok=1
same "$host_exit" host cpu31 && host_ok=1
# The small network's blocks are one leaf wide, so no GEMM runs there: a planted 2,560² mod
# 2^31 - 1 (the one-sided limbs of every 31-bit product, two slabs) must give its planted
# rank too (bench_gpu_rank exits 1 otherwise), or the GPU runs take one limb.
timeout 60 "$bin/bench_gpu_rank" --n 2560 --prime-bits 31 --cpu-n 0 >"$logs/probe_rank31.log" 2>&1
rank31_exit=$?
(( rank31_exit == 0 )) || { session_ok=0; host_ok=0; }
echo "probe: session exit $session_exit rank $(rank_of session), one limb exit $one_limb_exit rank $(rank_of one_limb)," \
    "host path exit $host_exit rank $(rank_of host); cpu ranks $(rank_of cpu31) (31 bits), $(rank_of cpu23) (23 bits);" \
    "planted 2560^2 mod 2^31 - 1 exit $rank31_exit" \
    "($(grep -m1 '^device' "$logs/probe_session.log"))" | tee -a "$out/summary.txt"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# GPU runs below: bits_opt (--prime-bits 23 where only one limb works) and, where the session
# fails, a block store (store_for NAME).
bits_opt=""
(( ! session_ok && one_limb_ok )) && bits_opt="--prime-bits 23"
store_for() { (( session_ok || one_limb_ok )) || echo "--store $stores/$1"; }
if (( ! session_ok && ! one_limb_ok && ! host_ok )); then
    echo "probe: FAILED; the device tests and the sanitizers only" | tee -a "$out/summary.txt"
    step test_device 60 "$bin/test_device"
    step test_tape 60 "$bin/test_tape" -tc='tape on the GPU*'
    # Out-of-bounds accesses and bad syncs of the probe's kernels (works on Firecracker
    # machines; gVisor refuses the device at once).
    for tool in memcheck synccheck; do
        step "sanitizer_$tool" 90 "$sanitizer" --tool "$tool" seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device cuda
    done
    echo "total: $((SECONDS - start)) s" | tee -a "$out/summary.txt"
    exit 1
fi
if (( ! session_ok )); then  # the failing path, under the sanitizer, for its message
    echo "probe: the 31-bit session FAILED; GPU runs use ${bits_opt:-a block store}" | tee -a "$out/summary.txt"
    step sanitizer_session 60 "$sanitizer" --tool memcheck seprank generic --tokens 2 --dim 2 --depth 2 --method evaluation --device cuda
fi

# 0b. The rows' compiled kernels, compiled now in the background (one process per row shape,
#     a 16-side run each, on the CPU's cores) into this run's image cache while the groups
#     before the rows use the GPU, so that a row running compiled reads its image back
#     instead of waiting for NVRTC (a minute for the longest programs). Waited for before
#     the rows. At the lowest priority (nice 19), so that the CPU's timed runs (step_cpu,
#     table_cpu) keep their cores. ROWS_COMPILED=0 skips it.
rows_default="3,4,4,1,3,220,gpu_depth4.csv 4,3,4,1,3,120,law_n4.json 4,5,3,1,3,80,law_n4.json 3,4,4,2,3,120,law_n3_heads.json"
prewarm_pids=()
if wanted rows && [[ ${ROWS_COMPILED:-auto} != 0 ]]; then
    for row in ${ROWS:-$rows_default}; do
        IFS=, read -r n dx depth h _ _ _ <<<"$row"
        SEPRANK_CUDA_COMPILED=1 nice -n 19 timeout 150 seprank generic --family attention --tokens "$n" --dim "$dx" --depth "$depth" --heads "$h" \
            --trials 1 --device cuda --max-side 16 $bits_opt >"$logs/prewarm_n${n}_dx${dx}_l${depth}_h${h}.log" 2>&1 &
        prewarm_pids+=($!)
    done
fi

# 1. The device tests: GPU = CPU reference on random networks of every family (flat and
#    grid evaluation, the graded session) and on planted and non-generic matrices.
if wanted tests; then
    step test_device 90 "$bin/test_device"
    # (not the host compiler's build of the kernel text: the device machine has no compiler
    # nor source tree; CI runs it)
    step test_tape 60 "$bin/test_tape" -tce='tape as source (*'
    # The network's own kernels (SEPRANK_CUDA_COMPILED=1: NVRTC, cuda/compiled.cuh) against
    # the CPU reference; each log says whether the compiled kernel or the interpreter ran.
    # (hundreds of NVRTC compilations: a cap ends it with every assertion so far in the log)
    step test_tape_compiled 90 env SEPRANK_CUDA_COMPILED=1 "$bin/test_tape" -tc='tape on the GPU*'
    test_tape_compiled_rc=$step_rc
    step test_device_compiled 90 env SEPRANK_CUDA_COMPILED=1 "$bin/test_device" -tc='graded*'
    test_device_compiled_rc=$step_rc
    # the compiled kernels are right if both runs passed, the tape's also where its cap ended
    # it with no assertion failed (each network is compiled once: the cap may come first)
    tape_compiled_ok=0
    (( test_tape_compiled_rc == 0 )) && tape_compiled_ok=1
    (( test_tape_compiled_rc == 124 )) && grep -Eq 'assertions: *[0-9]+ \| *[0-9]+ passed \| 0 failed' "$logs/test_tape_compiled.log" && tape_compiled_ok=1
    compiled_tests_ok=$(( tape_compiled_ok && test_device_compiled_rc == 0 ))
    step test_device_one_stream 90 env SEPRANK_CUDA_STREAMS=1 "$bin/test_device" -tc='graded session: every block*,rank_modular_cuda_many*'
fi

# 2. The frontier rows (the headline: converged generic ranks), H=1 then H=2, within
#    FRONTIER_SECONDS in all (default: 40% of the budget); H=2 gets what H=1 leaves. Each
#    run stops itself (--max-seconds) 45 s before its cap, so its answer is never lost.
if wanted frontier; then
    frontier_end=$((SECONDS + ${FRONTIER_SECONDS:-$((budget * 2 / 5))}))
    for h in 1 2; do
        left=$((frontier_end - SECONDS))
        (( h == 1 )) && left=$((left / 2))
        (( left > 75 )) || { echo "frontier_h$h: skipped (no time left)" | tee -a "$out/summary.txt"; continue; }
        # shellcheck disable=SC2046,SC2086
        step "frontier_h$h" "$left" seprank generic --family attention --tokens 4 --dim 4 --depth 3 --heads "$h" --trials "${FRONTIER_TRIALS:-3}" \
            --device cuda --max-side 400000 --max-seconds "$((left - 45))" --threads "$threads" --format json $bits_opt $(store_for "frontier_h$h")
    done
fi

# 3. Rank of a planted 32768 x 32768 (target <= 1 s), FFLAS on the CPU at 4096 for scale;
#    then mod 2^31 - 1 (the one-sided limbs of the drawn 31-bit primes: two limb GEMMs a
#    product) and mod 2^46 - 21 (four), FLINT and the blocked CPU reference at 2048 for
#    scale: the measurement behind the prime choice.
if wanted rank || wanted rank31; then
    wanted rank && step rank_32768 120 "$bin/bench_gpu_rank" --n 32768 --cpu-n 4096
    step rank_32768_31 60 "$bin/bench_gpu_rank" --n 32768 --prime-bits 31 --cpu-n 0
fi
if wanted rank; then
    step rank_32768_two_limb 90 "$bin/bench_gpu_rank" --n 32768 --prime-bits 46 --cpu-n 2048
    # Where the time goes: every operation synchronised and timed (slower; its own line).
    step rank_32768_profile 60 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_gpu_rank" --n 32768 --cpu-n 0
    step rank_16384_two_limb_profile 45 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_gpu_rank" --n 16384 --prime-bits 46 --cpu-n 0
fi
if wanted rank || wanted rank31; then
    step rank_16384_31_profile 45 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_gpu_rank" --n 16384 --prime-bits 31 --cpu-n 0
fi

# 3b. The leaf's capped scan on very deficient matrices (docs/gpu.md, the elimination): rows
#     reduced to zero pile up at the top, and the scan leaves what it does not read to the
#     rows below. A square one (rank 2,384 of 16,384) and a tall one (65,536 x 4,096 of
#     rank 1,536), each eliminated once profiled (the leaves run in two phases and again in one).
if wanted scan; then
    step scan_16384_deficient 45 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_gpu_rank" --n 16384 --deficiency 14000 --cpu-n 0
    step scan_tall_deficient 60 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_gpu_rank" --rows 65536 --n 4096 --deficiency 64000 --cpu-n 0
fi

# 4. One frontier step at equal side, GPU and CPU with the same prime bits (issue 61's target >= 40x):
#    attention N=4 dx=4 L=3 H=1, graded, the side (the evaluation matrix's rows, the sum of
#    the 14 live blocks' sides) fixed by --start = --max-side at 16384, near the 19,013 the
#    CPU reached in the issue (at 2048 the blocks have sides of 199 and the CPU needs 1 s).
#    Then the same step on the GPU with every elimination profiled (a line per degree block).
# frontier_step NAME DEVICE [VAR=VALUE...]: that step on DEVICE, with the environment given.
frontier_step() {
    local name=$1 dev=$2
    shift 2
    # shellcheck disable=SC2046,SC2086
    step "$name" 90 env "$@" seprank generic --family attention --tokens 4 --dim 4 --depth 3 --trials 1 \
        --method evaluation --start 16384 --max-side 16384 --device "$dev" --threads "$threads" --format json \
        --prime-bits "$([[ -n $bits_opt ]] && echo 23 || echo 31)" $([[ $dev == cuda ]] && store_for "$name")
}
if wanted step; then
    frontier_step step_cuda cuda
    # compiled: once to compile (into this run's image cache), then timed with the image read back
    frontier_step step_cuda_compiled_cold cuda SEPRANK_CUDA_COMPILED=1
    frontier_step step_cuda_compiled cuda SEPRANK_CUDA_COMPILED=1
    frontier_step step_cuda_one_stream cuda SEPRANK_CUDA_STREAMS=1  # the blocks one at a time, as before
    frontier_step step_cpu cpu
    frontier_step step_cuda_profile cuda SEPRANK_CUDA_PROFILE=1
fi

# 5. dimension at P = 2048 (attention dx=16, H=4, L=2: 2 x 4 x 16^2 weights), GPU and CPU
#    with the same prime bits.
if wanted dimension; then
    for dev in cuda cpu; do
        step "dimension_${dev}" 60 seprank dimension --family attention --tokens 4 --dim 16 --heads 4 --depth 2 \
            --output all --device "$dev" --threads "$threads" --format json --prime-bits "$([[ -n $bits_opt ]] && echo 23 || echo 31)"
    done
fi

# 6. Forward passes per second: CPU interpreter, GPU in 32-bit and in 64-bit words, grid.
if wanted tape; then
    step bench_tape 60 "$bin/bench_tape" 20000
    # Each evaluation's phases (setup, upload, kernel, download) on stderr: where the flat
    # evaluation in 32-bit words loses to the one in 64-bit words (bench/GPU.md).
    step bench_tape_profile 60 env SEPRANK_CUDA_PROFILE=1 "$bin/bench_tape" 20000
fi

# 7. Two processes on one GPU sharing one graded run through a block store (share.sh: both
#    print the in-memory run's answer).
if wanted share; then
    step share 120 tests/device/share.sh seprank
fi

# 8. The default table, GPU then CPU (target >= 10x; the CPU draws 62-bit primes here).
if wanted table; then
    step table_cuda 60 seprank table --device cuda --threads "$threads" --format csv
    step table_cpu 90 seprank table --threads "$threads" --format csv
    # where the GPU table's time goes: a line per graded step (grow, setup, evaluate), per
    # rank and per call of ranks side by side (slower: every phase synchronised)
    step table_cuda_profile 60 env SEPRANK_CUDA_PROFILE=1 seprank table --device cuda --threads "$threads" --format csv
fi

# 9. The depth-4 and width-5 rows of issue 61 (attention, balanced partition, graded, in device
#    memory): ROWS lists them as tokens,dim,depth,heads,trials,seconds[,hints], run in that
#    order; hints names a file of .device/hints (pack) given as --hint-blocks: each block is
#    first ranked just above its hint, and the trials after the first take the first one's
#    block ranks as theirs (docs/evaluation.md, "Block hints");
#    each row gets its seconds or what the budget leaves after the sanitizers' reserve
#    (SANITIZER_RESERVE, default 150 s where they run), stops itself (--max-seconds) a
#    quarter before its cap so that its answer is printed, and runs with the compiled
#    kernels where the tests and the frontier step showed them right and faster.
json_field() {  # json_field LOG KEY: the value of KEY in LOG's JSON answer (empty if none)
    python3 - "$1" "$2" 2>/dev/null <<'PY'
import json, sys
try:
    text = open(sys.argv[1]).read()
    print(json.loads(text[text.index("{"):text.rindex("}") + 1]).get(sys.argv[2], ""))
except (ValueError, OSError):
    pass
PY
}
if wanted rows; then
    rows_env=()
    # The compiled kernels for the rows where they proved right and faster: the device tests
    # passed with them (when the tests ran in this call) and the frontier step gave the same
    # ranks in less time; ROWS_COMPILED=1 or 0 decides instead.
    if [[ ${ROWS_COMPILED:-auto} == 1 ]]; then
        rows_env=(SEPRANK_CUDA_COMPILED=1)
    elif [[ ${ROWS_COMPILED:-auto} == auto ]] && (( ${compiled_tests_ok:-1} )) && [[ -e $logs/step_cuda.log && -e $logs/step_cuda_compiled.log ]]; then
        r0=$(json_field "$logs/step_cuda.log" rank); r1=$(json_field "$logs/step_cuda_compiled.log" rank)
        t0=$(json_field "$logs/step_cuda.log" seconds); t1=$(json_field "$logs/step_cuda_compiled.log" seconds)
        if [[ -n $r0 && $r0 == "$r1" ]] && python3 -c "import sys; sys.exit(0 if float('$t1') < float('$t0') else 1)" 2>/dev/null; then
            rows_env=(SEPRANK_CUDA_COMPILED=1)
        fi
        echo "rows: step rank $r0 in $t0 s interpreted, $r1 in $t1 s compiled: the rows run ${rows_env[*]:-interpreted}" | tee -a "$out/summary.txt"
    fi
    if (( ${#prewarm_pids[@]} > 0 )); then
        t0=$SECONDS
        wait "${prewarm_pids[@]}"
        echo "rows: their kernels compiled in the background ($((SECONDS - t0)) s waited): $(grep -h -o 'kernel ([0-9]* instructions) [a-z ]* in [0-9.]* s' "$logs"/prewarm_*.log | tr '\n' ';')" |
            tee -a "$out/summary.txt"
    fi
    reserve=0
    wanted sanitizers && reserve=${SANITIZER_RESERVE:-150}
    for row in ${ROWS:-$rows_default}; do
        IFS=, read -r n dx depth h trials secs hints <<<"$row"
        hint_opt=()
        if [[ -n ${hints:-} ]]; then
            [[ -e .device/hints/$hints ]] && hint_opt=(--hint-blocks ".device/hints/$hints") ||
                echo "row_n${n}_dx${dx}_l${depth}_h${h}: no .device/hints/$hints (run.sh pack makes them): run without hints" | tee -a "$out/summary.txt"
        fi
        left=$((budget - (SECONDS - start) - reserve))
        cap=$(( secs < left ? secs : left ))
        name="row_n${n}_dx${dx}_l${depth}_h${h}"
        (( cap >= 60 )) || { echo "$name: skipped (cap ${cap} s: ${secs} s asked, ${left} s left before the sanitizers)" | tee -a "$out/summary.txt"; continue; }
        # shellcheck disable=SC2046,SC2086
        row_cmd=(env "${rows_env[@]}" seprank generic --family attention --tokens "$n" --dim "$dx" --depth "$depth" \
            --heads "$h" --trials "$trials" --device cuda --max-side 4000000 --max-seconds "$((cap * 3 / 4))" \
            --threads "$threads" --format json)
        # shellcheck disable=SC2046,SC2086
        step "$name" "$cap" "${row_cmd[@]}" "${hint_opt[@]}" $bits_opt $(store_for "$name")
        # Hints the file does not have for this row are refused at once (exit 2): the row runs without them.
        if (( step_rc == 2 && ${#hint_opt[@]} > 0 )); then
            echo "$name: $(tail -1 "$logs/$name.log"); again without hints" | tee -a "$out/summary.txt"
            # shellcheck disable=SC2046,SC2086
            step "${name}_no_hints" "$cap" "${row_cmd[@]}" $bits_opt $(store_for "${name}_no_hints")
        fi
    done
fi

# 10. The sanitizers, last (they are slow, and the rows come first): racecheck and synccheck
#     on the two-phase leaf kernels (the plugin's own cases: leaves run again in one phase,
#     zero rows skipped, more zero rows than the scan reads; then planted ranks of every
#     tile), memcheck on the blocks ranked side by side (several streams, a cuBLAS handle each).
if wanted sanitizers; then
    for tool in racecheck synccheck; do
        step "sanitizer_leaf_$tool" 60 "$sanitizer" --tool "$tool" "$bin/test_device" -tc="the plugin's sr_cuda_rank*"
    done
    step sanitizer_side_by_side 60 "$sanitizer" --tool memcheck "$bin/test_device" -tc='graded session: every block*'
    step sanitizer_leaf_planted_racecheck 60 "$sanitizer" --tool racecheck "$bin/test_device" -tc='rank_modular_cuda = rank_modular on planted*'
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
