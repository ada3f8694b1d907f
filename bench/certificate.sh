#!/usr/bin/env bash
# Certificate benchmark (issue 19): for each input, in one run side by side,
#   rank + certificate seconds of --field Q with the pivot-span certificate (default),
#   the same with the Hadamard reference (--certificate hadamard), and
#   the rank seconds of --field p (one modular elimination),
# read from the answers' "phases". Writes bench/CERTIFICATE.md. Usage: bench/certificate.sh [BUILD]
# The machine is shared: wall-clock numbers are noisy; the user CPU seconds of each
# whole command (GNU time) are given beside them.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
out=bench/CERTIFICATE.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Hand-written notes (from a line "## Notes" to the end) survive a regeneration.
[ -f "$out" ] && sed -n '/^## Notes/,$p' "$out" >"$tmp/notes.md" || true
run() {  # name, args...: JSON answer in $tmp/$name.json, user seconds in $tmp/$name.cpu
  local name=$1; shift
  /usr/bin/time -f %U -o "$tmp/$name.cpu" "$B/tools/seprank" rank "$@" --format json >"$tmp/$name.json"
}
{
  echo "# Certificate benchmark"
  echo
  echo "\`bench/certificate.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d), shared machine (wall seconds noisy; CPU = user seconds of the whole command)."
  echo "Phases from each answer's \`phases\`: rank = first modular elimination, cert = certificate."
  echo
  echo "| input | rows×cols | rank | p: rank s | Q pivot-span: rank+cert s (variant, primes, label) | CPU s | Q hadamard: rank+cert s (primes, label) | CPU s | ratio pivot-span/p |"
  echo "|---|---|---|---|---|---|---|---|---|"
  # SKIP_LARGE=1 leaves out attention N=2 dx=3 L=3 (minutes on a loaded machine).
  configs=("--tokens 3 --dim 2 --depth 2" "--tokens 4 --dim 2 --depth 2" "--tokens 2 --dim 2 --depth 3" "--tokens 3 --dim 2 --depth 3 --partition 1|2,3")
  [ "${SKIP_LARGE:-0}" = 1 ] || configs+=("--tokens 2 --dim 3 --depth 3")
  for c in "${configs[@]}"; do
    # shellcheck disable=SC2086
    run p $c --field p
    # shellcheck disable=SC2086
    run span $c --field Q
    # shellcheck disable=SC2086
    run had $c --field Q --certificate hadamard
    /usr/bin/python3 - "$tmp" "$c" <<'PY'
import json, sys
d = sys.argv[1]
p, s, h = (json.load(open(f"{d}/{n}.json")) for n in ("p", "span", "had"))
cpu = {n: float(open(f"{d}/{n}.cpu").read().split()[-1]) for n in ("p", "span", "had")}
rc = lambda r: r["phases"]["rank"] + r["phases"]["certificate"]
assert p["rank"] == s["rank"] == h["rank"], (p["rank"], s["rank"], h["rank"])
ratio = rc(s) / max(p["phases"]["rank"], 1e-4)
print(f"| `{sys.argv[2]}` | {s['rows']}×{s['cols']} | {s['rank']} | {p['phases']['rank']:.4f} | {rc(s):.4f} ({s['variant']}, {s['primes_used']}, {s['label']}) | {cpu['span']:.2f} | {rc(h):.4f} ({h['primes_used']}, {h['label']}) | {cpu['had']:.2f} | {ratio:.1f} |")
PY
  done
  # Whole command against the exact SymPy pipeline (bench/peers/sympy_peer.py: sparse Poly
  # expansion + DomainMatrix rank over QQ), same weights, partition 1|2,3 (target ≥ 100×).
  if /usr/bin/python3 -c 'import sympy' 2>/dev/null; then
    c="--tokens 3 --dim 2 --depth 3 --partition 1|2,3"
    t0=$(date +%s%N)
    # (the timed run also writes the weights the peer reads: one small JSON file)
    # shellcheck disable=SC2086
    "$B/tools/seprank" rank $c --field Q --format json --save-weights "$tmp/w.json" >"$tmp/whole.json"
    t1=$(date +%s%N)
    /usr/bin/python3 bench/peers/sympy_peer.py rank "$tmp/w.json" 1 >"$tmp/sympy.json"
    t2=$(date +%s%N)
    /usr/bin/python3 - "$tmp" "$c" "$(( (t1 - t0) / 1000 ))" "$(( (t2 - t1) / 1000 ))" <<'PY'
import json, sys
d, c, us_s, us_y = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s, y = json.load(open(f"{d}/whole.json")), json.load(open(f"{d}/sympy.json"))
assert s["rank"] == y["rank"], (s["rank"], y["rank"])
print()
print("Whole command, seprank `rank --field Q` (expansion, matrix, rank, certificate, process start) against")
print("the exact SymPy pipeline (bench/peers/sympy_peer.py, same weights, same partition):")
print()
print("| input | rank | seprank s | SymPy s | ratio |")
print("|---|---|---|---|---|")
print(f"| `{c}` | {s['rank']} | {us_s / 1e6:.3f} | {us_y / 1e6:.2f} | {us_y / us_s:.0f}× |")
PY
  fi
  if [ -s "$tmp/notes.md" ]; then echo; cat "$tmp/notes.md"; fi
} >"$out.new"
mv "$out.new" "$out"
cat "$out"
