#!/usr/bin/env bash
# Largest configurations whose generic rank (evaluation method, 1 trial) finishes in
# 60 s, per family, on this machine. Appends a section to bench/SCALE.md.
# Usage: bench/frontier60.sh [BUILD]
set -uo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
S="$B/tools/seprank"
declare -A lists
lists[attention]="--tokens 2 --dim 2 --depth 5|--tokens 3 --dim 2 --depth 5|--tokens 4 --dim 2 --depth 4|--tokens 3 --dim 4 --depth 3|--tokens 2 --dim 3 --depth 4|--tokens 6 --dim 3 --depth 3|--tokens 2 --dim 2 --depth 6"
lists[hadamard]="--block-degree 2 --tokens 2 --dim 3 --depth 6|--block-degree 2 --tokens 2 --dim 2 --depth 9|--block-degree 3 --tokens 2 --dim 2 --depth 5|--block-degree 3 --tokens 3 --dim 2 --depth 4|--block-degree 2 --tokens 2 --dim 2 --depth 10"
lists[fc]="--block-degree 2 --tokens 2 --dim 2 --depth 9|--block-degree 2 --tokens 2 --dim 3 --depth 6|--block-degree 2 --tokens 3 --dim 2 --depth 7|--block-degree 3 --tokens 2 --dim 2 --depth 5|--block-degree 2 --tokens 2 --dim 2 --depth 10"
tmp=$(mktemp)
{
  echo
  echo "## Within 60 s per configuration ($(date -u +%Y-%m-%d), \`bench/frontier60.sh\`)"
  echo
  echo "| family | configuration | degree | rank | seconds | result |"
  echo "|---|---|---|---|---|---|"
  for fam in attention hadamard fc; do
    IFS='|' read -r -a cs <<<"${lists[$fam]}"
    for c in "${cs[@]}"; do
      start=$(date +%s.%N)
      if timeout 60 "$S" generic --family "$fam" $c --trials 1 --method evaluation --max-side 100000 --format json >"$tmp" 2>/dev/null; then
        secs=$(/usr/bin/python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
        /usr/bin/python3 - "$tmp" "$fam" "$c" "$secs" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ok = ("converged" if "not converged" not in r["label"] else "lower bound (a block still full at k = 20000)") + f" ({r.get('variant', '')})"
print(f"| {sys.argv[2]} | `{sys.argv[3]}` | {r['degree']} | {r['rank']} | {sys.argv[4]} | {ok} |")
PY
      else
        echo "| $fam | \`$c\` | | | > 60 | not finished |"
      fi
    done
  done
} >>bench/SCALE.md
rm -f "$tmp"
tail -25 bench/SCALE.md
