#!/usr/bin/env bash
# `--device cuda` end to end through the plugin's stand-in (tests/cuda_emulator.cpp, loaded
# through SEPRANK_CUDA_PLUGIN, set by meson): every command that takes --device gives the
# same values as the CPU with the same prime, names its device, and several processes
# share one block store. Usage: device_emulated_test.sh PATH/TO/seprank
set -u
S="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/cli_lib.sh
source "$(dirname "$0")/cli_lib.sh"
[[ -n "${SEPRANK_CUDA_PLUGIN:-}" && -e "$SEPRANK_CUDA_PLUGIN" ]] || { echo "SEPRANK_CUDA_PLUGIN must name the emulated plugin"; exit 1; }

# compare FILE_GPU FILE_CPU KEYS...: equal values under KEYS, GPU named, CPU on the CPU.
compare() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
g, c = (json.load(open(p)) for p in sys.argv[1:3])
assert g["device"].startswith("cuda: emulated"), g["device"]
assert c["device"] == "cpu", c["device"]
for k in sys.argv[3:]:
    assert g[k] == c[k], (k, g[k], c[k])
PY
}

# generic, graded evaluation (homogeneous): 31-bit primes on the GPU, the CPU given the same bits
"$S" generic --tokens 3 --dim 2 --depth 2 --device cuda --format json >"$T/g.json" 2>"$T/g.err" || fail "generic --device cuda: $(cat "$T/g.err")"
"$S" generic --tokens 3 --dim 2 --depth 2 --method evaluation --prime-bits 31 --format json >"$T/c.json" || fail "generic cpu"
compare "$T/g.json" "$T/c.json" rank prime trial_ranks method variant rows evaluations failure_bound || fail "generic graded: GPU and CPU differ: $(cat "$T/g.json")"
grep -q '"note": ".*evaluation on the GPU' "$T/g.json" || fail "generic --device cuda: the note does not say where it ran"
# --prime-bits 23: one-limb eliminations on the GPU, the same answers
"$S" generic --tokens 3 --dim 2 --depth 2 --device cuda --prime-bits 23 --format json >"$T/g23.json" || fail "generic --prime-bits 23 on the GPU"
"$S" generic --tokens 3 --dim 2 --depth 2 --method evaluation --prime-bits 23 --format json >"$T/c23.json" || fail "generic --prime-bits 23 cpu"
compare "$T/g23.json" "$T/c23.json" rank prime trial_ranks block_ranks rows failure_bound || fail "generic --prime-bits 23: GPU and CPU differ"
# block hints from a block table: the device session ranks the hinted blocks at their own steps, as the CPU does
"$S" table --blocks --tokens 3 --dim 2 --depth 2 --format csv --out "$T/blocks.csv" >/dev/null 2>&1 || fail "table --blocks"
"$S" generic --tokens 3 --dim 2 --depth 2 --device cuda --hint-blocks "$T/blocks.csv" --format json >"$T/gh.json" 2>"$T/gh.err" || fail "generic --hint-blocks --device cuda: $(cat "$T/gh.err")"
"$S" generic --tokens 3 --dim 2 --depth 2 --method evaluation --prime-bits 31 --hint-blocks "$T/blocks.csv" --format json >"$T/ch.json" || fail "generic --hint-blocks cpu"
compare "$T/gh.json" "$T/ch.json" rank prime trial_ranks block_ranks rows evaluations failure_bound || fail "generic --hint-blocks: GPU and CPU differ: $(cat "$T/gh.json")"
compare "$T/gh.json" "$T/c.json" rank || fail "generic --hint-blocks: another rank than without hints"
grep -q '"note": ".*block hints (a hint only orders the work' "$T/gh.json" || fail "generic --hint-blocks: the note does not name the hints"
# generic, plain evaluation (a residual connection mixes degrees)
"$S" generic --tokens 2 --dim 2 --depth 2 --residual --device cuda --format json >"$T/g2.json" 2>"$T/g2.err" || fail "generic residual --device cuda: $(cat "$T/g2.err")"
"$S" generic --tokens 2 --dim 2 --depth 2 --residual --method evaluation --prime-bits 31 --format json >"$T/c2.json" || fail "generic residual cpu"
compare "$T/g2.json" "$T/c2.json" rank prime trial_ranks variant rows || fail "generic plain: GPU and CPU differ"
# a --prime-bits above the GPU's is lowered, and the note says so
"$S" generic --tokens 2 --dim 2 --depth 2 --device cuda --prime-bits 40 --format json >"$T/g3.json" || fail "generic --prime-bits 40 on the GPU"
grep -q "random 31-bit prime, the GPU's largest" "$T/g3.json" || fail "lowered prime bits not noted: $(cat "$T/g3.json")"
# the text form names the device
"$S" generic --tokens 2 --dim 2 --depth 2 --device cuda >"$T/g.txt" || fail "generic text"
grep -q "^device  *cuda: emulated" "$T/g.txt" || fail "text output lacks the device line: $(cat "$T/g.txt")"
# hadamard and fc through the tape
for fam in "--family hadamard --block-degree 3" "--family fc --block-degree 2"; do
  # shellcheck disable=SC2086
  "$S" generic --tokens 2 --dim 2 --depth 2 $fam --device cuda --format json >"$T/f.json" || fail "generic $fam on the GPU"
  # shellcheck disable=SC2086
  "$S" generic --tokens 2 --dim 2 --depth 2 $fam --method evaluation --prime-bits 31 --format json >"$T/fc.json" || fail "generic $fam cpu"
  compare "$T/f.json" "$T/fc.json" rank prime trial_ranks || fail "generic $fam: GPU and CPU differ"
done

# rank --method evaluation and --field p; dimension
"$S" rank --tokens 3 --dim 2 --depth 2 --method evaluation --device cuda --format json >"$T/re.json" || fail "rank evaluation on the GPU"
"$S" rank --tokens 3 --dim 2 --depth 2 --format json >"$T/rq.json" || fail "rank over Q"
/usr/bin/python3 - "$T/re.json" "$T/rq.json" <<'PY' || fail "rank --method evaluation on the GPU: $(cat "$T/re.json")"
import json, sys
g, q = (json.load(open(p)) for p in sys.argv[1:])
assert g["device"].startswith("cuda: emulated") and g["prime"] < 2**31 and g["rank"] == q["rank"], (g, q["rank"])
PY
"$S" rank --tokens 3 --dim 2 --depth 2 --field p --device cuda --format json >"$T/rp.json" || fail "rank --field p on the GPU"
/usr/bin/python3 - "$T/rp.json" "$T/rq.json" <<'PY' || fail "rank --field p on the GPU: $(cat "$T/rp.json")"
import json, sys
g, q = (json.load(open(p)) for p in sys.argv[1:])
assert g["device"].startswith("cuda: emulated") and g["prime"] < 2**31 and g["rank"] == q["rank"], (g, q["rank"])
PY
printf '%%%%MatrixMarket matrix array integer general\n3 3\n1\n2\n3\n2\n4\n6\n0\n1\n5\n' >"$T/m.mtx"
"$S" rank --matrix "$T/m.mtx" --field p --device cuda --format json >"$T/rm.json" || fail "rank --matrix --field p on the GPU"
grep -q '"rank": 2' "$T/rm.json" || fail "rank of the 3x3 matrix on the GPU: $(cat "$T/rm.json")"
# every answer whose eliminations ran on the GPU gives their device time in its note
dt='[0-9.e+-]+ s of device time'
for j in rp rm; do
  grep -Eq "ranked on the GPU \($dt\)" "$T/$j.json" || fail "rank --field p on the GPU: no device time in the note: $(cat "$T/$j.json")"
done
"$S" rank --tokens 3 --dim 2 --depth 2 --method evaluation --variant plain --device cuda --format json >"$T/rv.json" || fail "plain evaluation on the GPU"
grep -Eq "eliminations on the GPU \($dt\)" "$T/rv.json" || fail "plain evaluation on the GPU: no device time in the note: $(cat "$T/rv.json")"
"$S" rank --tokens 3 --dim 2 --depth 2 --method evaluation --variant plain --format json >"$T/rvc.json" || fail "plain evaluation on the CPU"
grep -q 'of device time' "$T/rvc.json" "$T/rq.json" && fail "an answer computed on the CPU gives a device time"
# a graded run through a block store: this process's eliminations
"$S" generic --tokens 3 --dim 2 --depth 2 --device cuda --store "$T/dt-store" --format json >"$T/gs.json" || fail "generic --store on the GPU"
grep -Eq "this process's eliminations on the GPU: $dt" "$T/gs.json" || fail "generic --store on the GPU: no device time in the note: $(cat "$T/gs.json")"
# the emulated device's times are real (microseconds), never a sum that stayed 0
grep -q '[^0-9.]0 s of device time' "$T/rp.json" "$T/rm.json" "$T/rv.json" "$T/gs.json" && fail "a device time reads 0"
# rank over Q: the Hadamard reference's modular ranks on the device, the same certified rank
# (the 3x3 matrix is deficient, so the reference runs; the network's flattening may be full)
for src in "--matrix $T/m.mtx" "--tokens 3 --dim 2 --depth 2"; do
  # shellcheck disable=SC2086
  "$S" rank $src --certificate hadamard --device cuda --format json >"$T/qh.json" 2>"$T/qh.err" || fail "rank $src over Q on the GPU: $(cat "$T/qh.err")"
  # shellcheck disable=SC2086
  "$S" rank $src --certificate hadamard --format json >"$T/qc.json" || fail "rank $src over Q on the CPU"
  /usr/bin/python3 - "$T/qh.json" "$T/qc.json" "$src" <<'PY' || fail "rank $src --certificate hadamard on the GPU: $(cat "$T/qh.json")"
import json, re, sys
g, c = (json.load(open(p)) for p in sys.argv[1:3])
assert g["rank"] == c["rank"] and g["label"] == c["label"] == "certified", (g["rank"], c["rank"], g["label"])
assert g["device"].startswith("cuda: emulated"), g["device"]
if sys.argv[3].startswith("--matrix"):
    assert g["variant"] == "hadamard-multimodular" and "on the GPU, mod 23-bit primes" in g["note"], g
    assert g["primes_used"] >= c["primes_used"], (g["primes_used"], c["primes_used"])
m = re.search(r"the modular ranks on the GPU took ([0-9.e+-]+) s of device time", g["note"])
assert m and float(m.group(1)) > 0, g["note"]
assert "device time" not in c["note"], c["note"]
PY
done
"$S" rank --matrix "$T/m.mtx" --device cuda --format json >"$T/qb.json" || fail "rank --matrix over Q (blocks) on the GPU"
grep -q '"rank": 2' "$T/qb.json" || fail "rank over Q of the 3x3 matrix on the GPU: $(cat "$T/qb.json")"
"$S" dimension --tokens 2 --dim 2 --depth 2 --device cuda --format json >"$T/d.json" || fail "dimension on the GPU"
"$S" dimension --tokens 2 --dim 2 --depth 2 --prime-bits 31 --format json >"$T/dc.json" || fail "dimension cpu"
compare "$T/d.json" "$T/dc.json" rank prime trial_ranks parameters expected || fail "dimension: GPU and CPU differ"
# the note gives the eliminations' device time (the GPU part of the run)
grep -Eq '\(eliminations: [0-9.e+-]+ s of device time\)' "$T/d.json" || fail "dimension on the GPU: no device time in the note"
grep -q 'eliminations: 0 s of device time' "$T/d.json" && fail "dimension on the GPU: the device time reads 0"
grep -q 'of device time' "$T/dc.json" && fail "dimension on the CPU: a device time in the note"

# the degree blocks stay in device memory; a step the device cannot hold ends the growth
# (a lower bound, exit 0), and the answer says so and keeps the block ranks reached
"$S" generic --tokens 4 --dim 3 --depth 2 --device cuda --trials 1 --format json >"$T/big.json" || fail "generic N=4 on the GPU"
SEPRANK_EMULATED_DEVICE_MIB=0.004 "$S" generic --tokens 4 --dim 3 --depth 2 --device cuda --trials 1 --format json >"$T/oom.json" 2>"$T/oom.err" ||
  fail "a step beyond the device's memory is not a clean stop: $(cat "$T/oom.err")"
/usr/bin/python3 - "$T/oom.json" "$T/big.json" <<'PY' || fail "the stop by device memory is not reported: $(cat "$T/oom.json")"
import json, sys
o, b = (json.load(open(p)) for p in sys.argv[1:])
assert "degree blocks kept in device memory" in b["note"] and b["converged"], b["note"]
assert "growth stopped before block side" in o["note"] and "for lack of memory" in o["note"] and "MiB of blocks, the emulated device has" in o["note"] and not o["converged"] and o["failure_bound"] == 1, o
assert o["label"] == "lower bound" and 0 < o["rank"] < b["rank"], (o["rank"], b["rank"])
assert sum(o["block_ranks"]) == o["rank"] and sum(b["block_ranks"]) == b["rank"]
PY

# two processes share one graded run through a block store; both print the in-memory answer
# (the GPU machine runs the same script on a larger network)
"$(dirname "$0")/device/share.sh" "$S" --family attention --tokens 3 --dim 2 --depth 3 >"$T/share.log" ||
  fail "two processes sharing a block store: $(cat "$T/share.log")"

# table: rows on the device, the same ranks as the CPU table with the same primes' bits
"$S" table --tokens 2 --dim 1..2 --depth 1..2 --device cuda --format csv >"$T/t.csv" 2>"$T/t.err" || fail "table on the GPU: $(cat "$T/t.err")"
# a resumed GPU sweep keeps its device column (the file's header is one the reader knows)
"$S" table --tokens 2 --dim 1 --depth 1..2 --device cuda --format csv --out "$T/t.out" 2>/dev/null || fail "table --device cuda --out"
"$S" table --tokens 2 --dim 1..2 --depth 1..2 --device cuda --format csv --out "$T/t.out" --resume 2>"$T/r.err" >/dev/null || fail "table --device cuda --resume: $(cat "$T/r.err")"
grep -q "2 resumed" "$T/r.err" || fail "the GPU sweep did not resume its 2 rows: $(cat "$T/r.err")"
grep -q "rows evaluated on cuda: emulated" "$T/t.err" || fail "table --device cuda: no note naming the device: $(cat "$T/t.err")"
"$S" table --tokens 2 --dim 1..2 --depth 1..2 --format csv >"$T/tc.csv" 2>/dev/null || fail "table on the CPU"
/usr/bin/python3 - "$T/t.csv" "$T/tc.csv" <<'PY' || fail "table --device cuda ranks differ from the CPU table"
import csv, sys
g, c = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(g) == len(c) == 4, (len(g), len(c))
assert "device" not in c[0], "a CPU sweep has no device column"
for x, y in zip(g, c):
    assert x["rank"] == y["rank"], (x, y)
    assert x["device"].startswith("cuda: emulated"), x["device"]
PY

if [[ $fails -gt 0 ]]; then echo "$fails emulated-device check(s) failed"; exit 1; fi
echo "all emulated-device checks passed"
