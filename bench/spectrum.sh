#!/usr/bin/env bash
# Spectrum benchmark (issue 17): writes bench/SPECTRUM.md. Usage: bench/spectrum.sh [BUILD]
#   1. fast (Eigen BDCSVD, double) vs certified (Arb balls + Weyl/Ostrowski) on n×n
#      orthogonal flattenings of rank n/2, n = 100..1000 (bench_spectrum, one process each);
#   2. `seprank spectrum` (certified and fast) on the flattenings of the default table's
#      attention rows that expand quickly: time and peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
out=bench/SPECTRUM.md
tmp=$(mktemp)
{
  echo "# Spectrum benchmark"
  echo
  echo "\`bench/spectrum.sh\` on $(nproc) cores shared with other jobs (timings are noisy: single runs,"
  echo "wall clock), $(date -u +%Y-%m-%d). One thread for both paths."
  echo
  echo "## Certified vs fast, dense n × n, rank n/2"
  echo
  echo "| n | fast s | certified s | certified / fast | widest σ² half-width / σ₁² | peak MiB |"
  echo "|---|---|---|---|---|---|"
  for n in 100 200 400 700 1000; do
    "$B/bench/bench_spectrum" "$n" $((n / 2)) >"$tmp"
    /usr/bin/python3 - "$tmp" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).read())
print(f"| {r['n']} | {r['fast_s']:.3f} | {r['certified_s']:.3f} | {r['ratio']:.1f} | {r['rel_halfwidth']:.2g} | {r['peak_mib']:.0f} |")
PY
  done
  echo
  echo "## \`seprank spectrum\` on default-table flattenings (attention, H = 1, seed 1, uniform measure)"
  echo
  echo "| configuration | method | rank | basis | seconds | peak MiB | radius / σ₁ |"
  echo "|---|---|---|---|---|---|---|"
  for c in "--tokens 2 --dim 2 --depth 2" "--tokens 2 --dim 3 --depth 2" "--tokens 3 --dim 2 --depth 2" "--tokens 4 --dim 2 --depth 2" "--tokens 2 --dim 2 --depth 3"; do
    for m in certified fast; do
      /usr/bin/time -f '%M' -o "$tmp.mem" "$B/tools/seprank" --threads 1 spectrum $c --method "$m" --eps 0.01,0.1 --format json >"$tmp"
      /usr/bin/python3 - "$tmp" "$tmp.mem" "$c" "$m" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); mem = int(open(sys.argv[2]).read().split()[-1]) / 1024
rad = "-" if r["radius"] is None else f"{r['radius'] / r['singular_values'][0]:.2g}"
print(f"| `{sys.argv[3]}` | {sys.argv[4]} | {r['rank']} | {r['basis_rows']}×{r['basis_cols']} | {r['seconds']:.2f} | {mem:.0f} | {rad} |")
PY
    done
  done
} >"$tmp.new"
# The hand-written "## Reading it" section of the previous file is kept at the end.
[[ -f "$out" ]] && sed -n '/^## Reading it/,$p' "$out" | sed '1s/^/\n/' >>"$tmp.new"
mv "$tmp.new" "$out"
rm -f "$tmp" "$tmp.mem"
echo "wrote $out"
