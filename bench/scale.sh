#!/usr/bin/env bash
# Scale benchmark (issue 5): generic ranks by black-box evaluation mod a 62-bit prime,
# wall time and peak memory per configuration. Writes bench/SCALE.md.
# Usage: bench/scale.sh [BUILD] [--frontier]   (--frontier adds the 10-minute cases)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
S="$B/tools/seprank"
configs=(
  "--tokens 4 --dim 2 --depth 3"
  "--tokens 2 --dim 2 --depth 4"
  "--tokens 3 --dim 3 --depth 3"
  "--tokens 4 --dim 3 --depth 3"
)
[[ "${2:-}" == "--frontier" ]] && configs+=("--tokens 2 --dim 3 --depth 4 --max-side 16384")
tmp=$(mktemp)
{
  echo "# Scale benchmark"
  echo
  echo "\`bench/scale.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d): \`seprank generic --trials 1 --method evaluation\`"
  echo "(weights uniform on Z/p, p a random 62-bit prime; the evaluation matrix grows 16, 32, …"
  echo "until its rank stops growing). Peak memory is the process's maximum RSS."
  echo
  echo "| configuration | degree | rank | k | converged | seconds | peak MiB |"
  echo "|---|---|---|---|---|---|---|"
  for c in "${configs[@]}"; do
    /usr/bin/time -f "%e %M" -o "$tmp.time" timeout 900 "$S" generic $c --trials 1 --method evaluation --format json >"$tmp" || true
    read -r secs kb <"$tmp.time"
    /usr/bin/python3 - "$tmp" "$c" "$secs" "$kb" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
    conv = "yes" if "not converged" not in r["label"] else "no (lower bound)"
    print(f"| `{sys.argv[2]}` | {r['degree']} | {r['rank']} | {r['rows']} | {conv} | {float(sys.argv[3]):.2f} | {int(sys.argv[4]) // 1024} |")
except Exception:
    print(f"| `{sys.argv[2]}` | | | | did not finish in 900 s | {sys.argv[3]} | {int(sys.argv[4]) // 1024} |")
PY
  done
} >bench/SCALE.md
rm -f "$tmp" "$tmp.time"
cat bench/SCALE.md
