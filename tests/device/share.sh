#!/usr/bin/env bash
# Two processes on one GPU share one graded run through a block store (docs/gpu.md, "Several
# GPUs"): each must print the answer of the same run in memory (same rank, prime, block
# ranks, side). Run by tests/device/run.sh on the GPU machine, and by
# tests/device_emulated_test.sh on the emulated plugin with a smaller network.
# Usage: share.sh [SEPRANK [NETWORK OPTIONS...]] (default: seprank on PATH, and attention
# N=3, dx=4, L=3 up to side 40000).
set -u
S=${1:-seprank}
shift $(( $# > 0 ? 1 : 0 ))
net=("$@")
(( ${#net[@]} > 0 )) || net=(--family attention --tokens 3 --dim 4 --depth 3 --max-side 40000)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
args=(generic "${net[@]}" --device cuda --trials 1 --format json)
"$S" "${args[@]}" >"$T/mem.json" 2>"$T/mem.err" || { echo "share: the in-memory run failed: $(tail -1 "$T/mem.err")"; exit 1; }
"$S" "${args[@]}" --store "$T/store" >"$T/s1.json" 2>"$T/s1.err" &
p1=$!
"$S" "${args[@]}" --store "$T/store" >"$T/s2.json" 2>"$T/s2.err"
s2=$?
wait $p1
s1=$?
(( s1 == 0 && s2 == 0 )) || { echo "share: a store process failed (exits $s1, $s2): $(tail -1 "$T/s1.err") / $(tail -1 "$T/s2.err")"; exit 1; }
/usr/bin/python3 - "$T" <<'PY'
import json, os, re, sys
t = sys.argv[1]
mem = json.load(open(os.path.join(t, "mem.json")))
ok = True
for f in ("s1.json", "s2.json"):
    a = json.load(open(os.path.join(t, f)))
    for k in ("rank", "prime", "block_ranks", "rows", "converged", "device"):
        if a.get(k) != mem.get(k):
            print(f"share: {f} differs from the in-memory run in {k}: {a.get(k)} vs {mem.get(k)}")
            ok = False
    units = re.findall(r"[^;]*units?[^;]*", a.get("note", ""))
    print(f"share: {f}: rank {a.get('rank')}, {a.get('seconds')} s; {'; '.join(u.strip() for u in units)[:300]}")
print(f"share: in memory: rank {mem.get('rank')}, {mem.get('seconds')} s; {'equal' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
PY
