#!/usr/bin/env bash
# Golden tests: regenerate every table of data/MANIFEST and compare it with the stored
# one, column by column, except the timing/memory columns (seconds, peak_mib).
# Usage: golden_test.sh PATH/TO/seprank DATA_DIR [--update]
#        golden_test.sh PATH/TO/seprank DATA_DIR --subset FILE 'SEPRANK ARGS'
# --subset runs the given table command (a small sweep) and checks that each of its rows
# equals the stored row of FILE with the same configuration (the columns before
# `degree`): a fast check of a large golden table.
set -u
S="$1"; D="$2"; update="${3:-}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [[ "$update" == "--subset" ]]; then
  file="$4"; args="$5"
  # shellcheck disable=SC2086
  "$S" $args >"$T/subset.csv" 2>"$T/subset.err" || { echo "FAIL subset of $file: seprank $args failed: $(cat "$T/subset.err")"; exit 1; }
  /usr/bin/python3 - "$D/$file" "$T/subset.csv" <<'PY'
import csv, sys
stored, now = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
header = list(now[0].keys()) if now else []
config = header[:header.index("degree")] if "degree" in header else []
drop = {"seconds", "peak_mib"}
key = lambda r: tuple(r[c] for c in config)
index = {key(r): r for r in stored}
bad = 0
for r in now:
    s = index.get(key(r))
    if s is None:
        print(f"  no stored row for {key(r)}"); bad += 1; continue
    diff = [c for c in r if c not in drop and r[c] != s.get(c)]
    if diff:
        print(f"  {key(r)}: " + ", ".join(f"{c} stored {s.get(c)!r} now {r[c]!r}" for c in diff)); bad += 1
if not now:
    print("  the subset command produced no rows"); bad += 1
print(f"{'FAIL' if bad else 'ok  '} {len(now)} rows of {sys.argv[1].split('/')[-1]} regenerated, {bad} differ or missing")
sys.exit(1 if bad else 0)
PY
  exit $?
fi
fails=0
while IFS=$'\t' read -r file args; do
  [[ -z "$file" || "$file" == \#* ]] && continue
  # shellcheck disable=SC2086
  if ! "$S" $args >"$T/$file" 2>"$T/$file.err"; then
    echo "FAIL $file: seprank $args failed: $(cat "$T/$file.err")"; fails=$((fails + 1)); continue
  fi
  if [[ "$update" == "--update" ]]; then cp "$T/$file" "$D/$file"; echo "updated $file"; continue; fi
  if /usr/bin/python3 - "$D/$file" "$T/$file" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
drop = {"seconds", "peak_mib"}
strip = lambda rows: [{k: v for k, v in r.items() if k not in drop} for r in rows]
if strip(a) != strip(b):
    for i, (x, y) in enumerate(zip(strip(a), strip(b))):
        if x != y:
            print(f"  row {i + 1}: stored {x}\n  row {i + 1}: now    {y}")
            break
    else:
        print(f"  {len(a)} stored rows, {len(b)} now")
    sys.exit(1)
PY
  then echo "ok   $file"; else echo "FAIL $file differs from: seprank $args"; fails=$((fails + 1)); fi
done <"$D/MANIFEST"
[[ $fails -eq 0 ]] || { echo "$fails golden table(s) differ"; exit 1; }
