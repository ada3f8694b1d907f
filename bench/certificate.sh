#!/usr/bin/env bash
# Certificate benchmark (issues 19 and 28), side by side in one run on this machine:
#  1. the flattenings of issue 28's target 1: the rank phase of --field p (one modular
#     elimination) against rank + certificate of --field Q with the block certificate
#     (the default), and with the global pivot-span reference (REFERENCE=0 leaves it
#     out); phases read from each answer, best of 3 runs;
#  2. the whole `rank --weights W --method flattening` command, certified, against the
#     exact SymPy pipeline (bench/peers/sympy_peer.py) with the same weights (SYMPY=0
#     leaves it out; SymPy is stopped after SYMPY_TIMEOUT seconds, default 1800, and
#     its time then reported as a lower bound);
#  3. whole commands of target 3 (wall seconds and peak memory by GNU time) (LARGE=0
#     leaves them out).
# Writes bench/CERTIFICATE.md. Usage: bench/certificate.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
S="$B/tools/seprank"
out=bench/CERTIFICATE.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Hand-written notes (from a line "## Notes" to the end) survive a regeneration.
[ -f "$out" ] && sed -n '/^## Notes/,$p' "$out" >"$tmp/notes.md" || true
best3() {  # name, args...: the best of 3 runs (smallest rank+certificate) in $tmp/$name.json
  local name=$1; shift
  for k in 1 2 3; do "$S" rank "$@" --format json >"$tmp/$name.$k.json"; done
  /usr/bin/python3 - "$tmp" "$name" <<'PY'
import json, sys, shutil
d, n = sys.argv[1:]
runs = [json.load(open(f"{d}/{n}.{k}.json")) for k in (1, 2, 3)]
best = min(runs, key=lambda r: r["phases"]["rank"] + r["phases"]["certificate"])
json.dump(best, open(f"{d}/{n}.json", "w"))
PY
}
{
  echo "# Certificate benchmark"
  echo
  echo "\`bench/certificate.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d). Phases from each answer's \`phases\` (best of 3 runs):"
  echo "rank = the modular elimination(s), cert = the certificate; the floor of the modular phase is 10 ms (issue 28)."
  echo
  echo "## 1. Rank over Q against one rank mod p"
  echo
  echo "| input | rows×cols | rank | blocks (deficient) | p: rank s | Q blocks: rank + cert s | ratio to max(p, 10 ms) | kernel bits | Q pivot-span: rank + cert s |"
  echo "|---|---|---|---|---|---|---|---|---|"
  configs=("--tokens 3 --dim 2 --depth 3 --partition 1|2,3" "--tokens 2 --dim 3 --depth 3 --partition 1|2"
           "--tokens 4 --dim 2 --depth 2 --partition 1,2|3,4" "--tokens 4 --dim 3 --depth 2 --partition 1,2|3,4")
  for c in "${configs[@]}"; do
    # shellcheck disable=SC2086
    best3 p $c --field p
    # shellcheck disable=SC2086
    best3 q $c --field Q
    if [ "${REFERENCE:-1}" = 1 ]; then
      # shellcheck disable=SC2086
      "$S" rank $c --field Q --certificate pivot-span --format json >"$tmp/span.json"
    else
      echo '{}' >"$tmp/span.json"
    fi
    /usr/bin/python3 - "$tmp" "$c" <<'PY'
import json, sys
d, c = sys.argv[1:]
p, q, s = (json.load(open(f"{d}/{n}.json")) for n in ("p", "q", "span"))
rc = lambda r: r["phases"]["rank"] + r["phases"]["certificate"]
assert p["rank"] == q["rank"] and q["certified"], (p["rank"], q["rank"], q["label"])
ratio = rc(q) / max(p["phases"]["rank"], 0.010)
span = f"{rc(s):.3f} ({s['label']})" if s else "not run"
if s:
    assert s["rank"] == q["rank"], (s["rank"], q["rank"])
print(f"| `{c.replace('|', chr(92) + '|')}` | {q['rows']}×{q['cols']} | {q['rank']} | {len(q['block_ranks'])} ({len(q['kernel_blocks'])}) | "
      f"{p['phases']['rank']:.4f} | {q['phases']['rank']:.4f} + {q['phases']['certificate']:.4f} | {ratio:.2f} | "
      f"{q['kernel_bits'] if q['kernel_blocks'] else '-'} | {span} |")
PY
  done

  if [ "${SYMPY:-1}" = 1 ] && /usr/bin/python3 -c 'import sympy' 2>/dev/null; then
    echo
    echo "## 2. Whole command against SymPy"
    echo
    echo "seprank \`rank --weights W --method flattening\` (expansion, flattening, rank, certificate, process start;"
    echo "wall seconds, best of 3) against the exact SymPy pipeline (bench/peers/sympy_peer.py: sparse Poly"
    echo "expansion + DomainMatrix rank over QQ), same weights, same partition:"
    echo
    echo "| input | rank | label | seprank s | SymPy s | ratio |"
    echo "|---|---|---|---|---|---|"
    for c in "--tokens 2 --dim 3 --depth 3"; do
      # shellcheck disable=SC2086
      "$S" rank $c --save-weights "$tmp/w.json" --format json >/dev/null
      best=""
      for k in 1 2 3; do
        t0=$(date +%s%N)
        "$S" rank --weights "$tmp/w.json" --partition '1|2' --method flattening --format json >"$tmp/whole.json"
        t1=$(date +%s%N)
        us=$(( (t1 - t0) / 1000 ))
        if [ -z "$best" ] || [ "$us" -lt "$best" ]; then best=$us; fi
      done
      t1=$(date +%s%N)
      # SymPy may run for hours here: stopped after SYMPY_TIMEOUT seconds (default 1800),
      # its time is then a lower bound and so is the ratio.
      sympy_rc=0
      timeout "${SYMPY_TIMEOUT:-1800}" /usr/bin/python3 bench/peers/sympy_peer.py rank "$tmp/w.json" 1 >"$tmp/sympy.json" || sympy_rc=$?
      t2=$(date +%s%N)
      /usr/bin/python3 - "$tmp" "$c" "$best" "$(( (t2 - t1) / 1000 ))" "$sympy_rc" <<'PY'
import json, sys
d, c, us_s, us_y, rc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
s = json.load(open(f"{d}/whole.json"))
if rc == 124:  # stopped by timeout: SymPy took at least this long
    y_s, ratio = f"> {us_y / 1e6:.0f} (stopped)", f"> {us_y / us_s:.0f}×"
else:
    assert rc == 0, f"SymPy peer failed ({rc})"
    y = json.load(open(f"{d}/sympy.json"))
    assert s["rank"] == y["rank"], (s["rank"], y["rank"])
    y_s, ratio = f"{us_y / 1e6:.1f}", f"{us_y / us_s:.0f}×"
print(f"| `{c}` (seed-1 weights), partition 1\\|2 | {s['rank']} | {s['label']} | {us_s / 1e6:.3f} | {y_s} | {ratio} |")
PY
    done
  fi

  if [ "${LARGE:-1}" = 1 ]; then
    echo
    echo "## 3. Certified flattening ranks of larger networks, whole command"
    echo
    echo "\`rank --method flattening --field Q\` at the seed-1 weights, balanced partition; wall seconds and peak"
    echo "resident memory of the whole command (GNU time), one run each."
    echo
    echo "| input | rows×cols | rank | label | blocks (deficient) | kernel bits | phases: expand / matrix / rank / cert s | wall s | peak MiB |"
    echo "|---|---|---|---|---|---|---|---|---|"
    for c in "--tokens 2 --dim 4 --depth 3" "--tokens 4 --dim 2 --depth 3" "--tokens 3 --dim 3 --depth 3"; do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e %M" -o "$tmp/time" "$S" rank $c --format json >"$tmp/big.json"
      /usr/bin/python3 - "$tmp" "$c" <<'PY'
import json, sys
d, c = sys.argv[1:]
r = json.load(open(f"{d}/big.json"))
wall, kib = open(f"{d}/time").read().split()
ph = r["phases"]
print(f"| `{c.replace('|', chr(92) + '|')}` | {r['rows']}×{r['cols']} | {r['rank']} | {r['label']} | {len(r['block_ranks'] or [])} ({len(r['kernel_blocks'] or [])}) | "
      f"{r['kernel_bits'] if r['kernel_blocks'] else '-'} | {ph['expand']:.1f} / {ph['matrix']:.1f} / {ph['rank']:.2f} / {ph['certificate']:.2f} | "
      f"{float(wall):.1f} | {int(kib) / 1024:.0f} |")
PY
    done
  fi
  if [ -s "$tmp/notes.md" ]; then echo; cat "$tmp/notes.md"; fi
} >"$out.new"
mv "$out.new" "$out"
cat "$out"
