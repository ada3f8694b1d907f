#!/usr/bin/env bash
# Kill test: a table sweep written with --out is killed with SIGKILL, SIGINT and SIGTERM
# at random moments (seeded from SEPRANK_SEED, printed), resumed with --resume until it
# completes, and must then hold exactly the rows of an uninterrupted run (every column
# but seconds and peak_mib), each once. Usage: kill_test.sh PATH/TO/seprank
set -u
S="$1"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SEED=${SEPRANK_SEED:-$(date +%s)}
echo "SEPRANK_SEED=$SEED (set SEPRANK_SEED to override)"
RANDOM=$SEED
args=(table --family attention,hadamard --tokens 2..3 --dim 1..3 --depth 1..3 --block-degree 2)   # 36 rows, a few seconds
t_start=$(date +%s%N)
"$S" "${args[@]}" --format csv --out "$T/ref.csv" >/dev/null 2>"$T/ref.err" || { echo "uninterrupted run failed"; cat "$T/ref.err"; exit 1; }
ref_ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
echo "uninterrupted run: ${ref_ms} ms"
fail=0
for fmt in csv json; do
  for sig in KILL INT TERM; do
    out="$T/killed_$sig.$fmt"
    kills=0
    for attempt in 1 2 3; do
      # (a background job of a script ignores SIGINT: restore the default disposition)
      env --default-signal=INT,TERM "$S" "${args[@]}" --format "$fmt" --out "$out" --resume >/dev/null 2>>"$T/run.err" &
      pid=$!
      # a random moment in the first 5..80 % of the uninterrupted run's time
      ms=$(( ref_ms / 20 + RANDOM % (ref_ms * 3 / 4 + 1) ))
      sleep "$(( ms / 1000 )).$(printf '%03d' $(( ms % 1000 )))"
      kill -s "$sig" "$pid" 2>/dev/null
      wait "$pid" 2>/dev/null
      [[ $? -gt 128 ]] && kills=$((kills + 1))   # it died of the signal, mid-sweep
    done
    [[ $kills -ge 1 ]] || { echo "$sig $fmt: no run was still going when killed (the sweep is too fast for this test)"; fail=1; }
    "$S" "${args[@]}" --format "$fmt" --out "$out" --resume >/dev/null 2>>"$T/run.err" || { echo "final resume ($sig, $fmt) failed"; tail -3 "$T/run.err"; fail=1; continue; }
    /usr/bin/python3 - "$T/ref.csv" "$out" "$fmt" "$sig" "$kills" <<'PY' || fail=1
import csv, json, sys
ref, path, fmt, sig, kills = sys.argv[1:]
skip = ("seconds", "peak_mib")
def norm(v):
    if v is None: return ""
    if isinstance(v, bool): return "true" if v else "false"
    return str(v)
a = [tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(l for l in open(ref) if not l.startswith("#"))]
if fmt == "csv":
    b = [tuple((k, v) for k, v in r.items() if k not in skip) for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
else:
    lines = [json.loads(l) for l in open(path) if l.strip()]
    assert "seprank_table_sweep" in lines[0], "no sweep line"
    b = [tuple((k, norm(r.get(k))) for k, _ in a[0]) for r in lines[1:]]
    a = [tuple((k, norm(v) if v != "" else "") for k, v in r) for r in a]
    # JSON numbers and CSV text agree on their text form except reals; compare the key and the rank
    keep = ("family", "tokens", "dim", "heads", "block_degree", "width", "depth", "residual", "partition", "degree", "rank", "status", "method")
    a = [tuple(x for x in r if x[0] in keep) for r in a]
    b = [tuple(x for x in r if x[0] in keep) for r in b]
assert len(b) == len(set(b)), f"{sig} {fmt}: duplicated rows ({len(b)} rows, {len(set(b))} distinct)"
assert sorted(a) == sorted(b), f"{sig} {fmt}: rows differ from the uninterrupted run ({len(a)} vs {len(b)})"
print(f"{sig} {fmt}: {kills} kills, then resumed: the {len(b)} rows of the uninterrupted run, none twice")
PY
  done
done
exit $fail
