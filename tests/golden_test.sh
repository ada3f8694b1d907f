#!/usr/bin/env bash
# Golden tests: regenerate every table of data/MANIFEST and compare it with the stored
# one, column by column, except the timing/memory columns (seconds, peak_mib).
# Usage: golden_test.sh PATH/TO/seprank DATA_DIR [--update]
set -u
S="$1"; D="$2"; update="${3:-}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
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
