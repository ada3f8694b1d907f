#!/usr/bin/env bash
# Kill test: a table sweep written with --out is killed with SIGKILL, SIGINT and SIGTERM
# at random rows (seeded from SEPRANK_SEED, printed), resumed with --resume until it
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
lines() { if [[ -f "$1" ]]; then wc -l <"$1"; else echo 0; fi; }
# lines of a complete output file in each format (the runs are killed by row count, not by
# time, so a loaded machine cannot make the sweep end before the signal)
"$S" "${args[@]}" --format json --out "$T/ref.json" >/dev/null 2>>"$T/ref.err" || { echo "uninterrupted json run failed"; cat "$T/ref.err"; exit 1; }
declare -A total_lines=([csv]=$(lines "$T/ref.csv") [json]=$(lines "$T/ref.json"))
echo "complete files: ${total_lines[csv]} lines (csv), ${total_lines[json]} lines (json)"
fail=0
for fmt in csv json; do
  for sig in KILL INT TERM; do
    out="$T/killed_$sig.$fmt"
    kills=0
    for attempt in 1 2 3 4 5 6 7 8; do
      [[ $kills -ge 3 ]] && break
      done_lines=$(lines "$out")
      # The whole file is done (rows are written in bursts as the parallel workers finish,
      # so a run can reach its end before the signal): start again from an empty file while
      # no run has been killed yet, else stop killing.
      if (( done_lines >= total_lines[$fmt] - 1 )); then
        [[ $kills -ge 1 ]] && break
        rm -f "$out"; done_lines=0
      fi
      # (a background job of a script ignores SIGINT: restore the default disposition)
      env --default-signal=INT,TERM "$S" "${args[@]}" --format "$fmt" --out "$out" --resume >/dev/null 2>>"$T/run.err" &
      pid=$!
      # kill at a random row: wait (at most 60 s) until the file holds TARGET lines, which
      # is after the first new row and before the last, so the sweep is surely mid-way
      left=$(( total_lines[$fmt] - 1 - done_lines ))
      target=$(( done_lines + 1 + RANDOM % left ))
      [[ -n "${KILL_TEST_VERBOSE:-}" ]] && echo "  $sig $fmt attempt $attempt: $done_lines lines, kill at $target"
      for ((w = 0; w < 12000; ++w)); do
        (( $(lines "$out") >= target )) && break
        sleep 0.005
      done
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
