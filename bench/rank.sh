#!/usr/bin/env bash
# Rank benchmark (issue 4): writes bench/RANK.md. Usage: bench/rank.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
out=bench/RANK.md
tmp=$(mktemp)
{
  echo "# Rank benchmark"
  echo
  echo "\`bench/rank.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d); one process per row, all timings of a row side by side."
  echo "Dense n×n integer matrices with 10-bit entries, full rank or A·B of inner dimension r."
  echo
  echo "| n | inner r | nmod_mat_rank (62-bit p) s | seprank certified s | method | primes | fmpz_mat_rank s |"
  echo "|---|---|---|---|---|---|---|"
  for args in "500 10 500 5000" "1000 10 1000 5000" "2000 10 2000 5000" "300 10 150 5000" "600 10 300 5000"; do
    "$B/bench/bench_rank" $args >"$tmp"
    /usr/bin/python3 - "$tmp" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
f = "%.3f" % r["fmpz_mat_rank_s"] if r["fmpz_mat_rank_s"] >= 0 else "-"
print(f"| {r['n']} | {r['inner']} | {r['nmod_mat_rank_s']:.3f} | {r['certified_s']:.3f} | {r['method']} | {r['primes']} | {f} |")
PY
  done
  echo
  echo "Flattening ranks (\`seprank rank\`, attention, seed 1):"
  echo
  echo "| configuration | field | rank | label | seconds |"
  echo "|---|---|---|---|---|"
  for c in "--tokens 2 --dim 3 --depth 3" "--tokens 4 --dim 2 --depth 3"; do
    for extra in "--field p" "--field Q" "--method evaluation"; do
      "$B/tools/seprank" rank $c $extra --format json >"$tmp"
      /usr/bin/python3 - "$tmp" "$c" "$extra" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"| `{sys.argv[2]}` | `{sys.argv[3]}` | {r['rank']} | {r['label']} | {r['seconds']:.2f} |")
PY
    done
  done
} >"$out"
rm -f "$tmp"
cat "$out"
