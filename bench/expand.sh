#!/usr/bin/env bash
# Expansion benchmark (issue 3): wall time and peak memory of `seprank expand` on the
# configurations named in the issue. Writes bench/EXPAND.md. Usage: bench/expand.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
S="$B/tools/seprank"
out=bench/EXPAND.md
configs=(
  "--tokens 4 --dim 2 --heads 1 --depth 3"
  "--tokens 2 --dim 2 --heads 1 --depth 4"
  "--tokens 2 --dim 3 --heads 1 --depth 3"
  "--tokens 3 --dim 2 --heads 1 --depth 3"
  "--tokens 4 --dim 2 --heads 2 --depth 3"
  "--family hadamard --block-degree 2 --tokens 4 --dim 2 --depth 4"
  "--family fc --block-degree 3 --tokens 2 --dim 2 --depth 3"
)
{
  echo "# Expansion benchmark"
  echo
  echo "\`bench/expand.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d). Median of 3 runs; peak RSS of that run."
  echo
  echo "| configuration | degree | terms | seconds | peak MiB |"
  echo "|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    rows=()
    for r in 1 2 3; do
      /usr/bin/time -f "%e %M" -o /tmp/seprank_bench_time $S expand $c --seed 1 --format json >/tmp/seprank_bench_out
      read -r secs kb </tmp/seprank_bench_time
      rows+=("$secs $kb")
    done
    med=$(printf '%s\n' "${rows[@]}" | sort -n | sed -n 2p)
    read -r secs kb <<<"$med"
    deg=$(/usr/bin/python3 -c "import json;print(json.load(open('/tmp/seprank_bench_out'))['degree'])")
    terms=$(/usr/bin/python3 -c "import json;print(json.load(open('/tmp/seprank_bench_out'))['terms'])")
    echo "| \`$c\` | $deg | $terms | $secs | $((kb / 1024)) |"
  done
} >"$out"
cat "$out"
