#!/usr/bin/env bash
# Expansion against Singular (issue 19, target 2): the same weights, whole processes side
# by side in one run, wall seconds and peak RSS from GNU time, median of 3 (one run when a
# run takes over 60 s), each peer cut at LIMIT seconds. seprank runs the automatic variant
# and both named ones (expand --variant), and the automatic variant with FLINT's own product
# (expand --product flint, docs/poly.md#products); the term counts must agree (a mismatch
# stops the script). Writes bench/EXPAND_PEERS.md. Needs Singular (bench/setup.sh).
# Usage: bench/expand_peers.sh [BUILD]   (LIMIT=600 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
S="$B/tools/seprank"
LIMIT=${LIMIT:-600}
out=bench/EXPAND_PEERS.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
configs=(
  "--tokens 4 --dim 2 --depth 3"
  "--tokens 2 --dim 4 --depth 3"
  "--tokens 3 --dim 2 --depth 3"
  "--tokens 2 --dim 3 --depth 3"
  "--tokens 4 --dim 4 --depth 2"
)

# run NAME CMD...: prints "seconds kib" (median of 3, or of 1 when the first run is > 60 s),
# or "timeout" / "error"; the last run's stdout is left in $tmp/NAME.out
run() {
  local name=$1; shift
  local rows=() secs kb
  for r in 1 2 3; do
    if ! /usr/bin/time -f "%e %M" -o "$tmp/time" timeout "$LIMIT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
      if grep -q "Command exited with non-zero status 124" "$tmp/time"; then echo timeout; else echo error; fi
      return
    fi
    read -r secs kb < <(tail -1 "$tmp/time")
    rows+=("$secs $kb")
    [ "${secs%.*}" -ge 60 ] && break
  done
  printf '%s\n' "${rows[@]}" | sort -n | sed -n "$(( (${#rows[@]} + 1) / 2 ))p"
}
field() { /usr/bin/python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

{
  echo "# Expansion against Singular"
  echo
  echo "\`bench/expand_peers.sh\` on $(nproc) cores, $(date -u +%Y-%m-%d): attention, H=1, weights \`--seed 1\`"
  echo "(integers in [−5, 5]) saved once and read by every tool; whole processes, wall seconds and peak"
  echo "RSS (GNU time), median of 3 (of 1 above 60 s), each cut at ${LIMIT} s. Singular: $(dpkg-query -W -f='${Version}' singular 2>/dev/null || echo '?'),"
  echo "\`bench/peers/singular_peer.py expand\` (ring over QQ, dp, Singular's own matrix products, the"
  echo "formula as a user writes it: N·da large products at the last layer), and \`expand-assoc\`, the same"
  echo "with seprank's own last-layer order (only row p, min(N, da) large products; column 'Singular, our order')."
  echo "seprank: \`expand\` with the automatic variant (the one it picked is named) and with each"
  echo "variant forced (docs/expand.md), and with FLINT's heap product for every product (\`--product flint\`;"
  echo "the default forms products by digits and dense accumulation, docs/poly.md#products). Ratios = Singular s / seprank (auto) s."
  echo
  echo "| network | terms | seprank auto s | variant | MiB | layered s | moment s | FLINT product s | Singular s | MiB | ratio | Singular, our order s | MiB | ratio |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$out.tmp"
for c in "${configs[@]}"; do
  w="$tmp/w.json"
  # shellcheck disable=SC2086
  "$S" degree $c --seed 1 --save-weights "$w" --format json >/dev/null
  a=$(run auto "$S" expand --weights "$w" --format json)
  terms=$(field "$tmp/auto.out" terms); variant=$(field "$tmp/auto.out" variant)
  l=$(run layered "$S" expand --weights "$w" --variant layered --format json)
  [ "$l" = timeout ] || [ "$(field "$tmp/layered.out" terms)" = "$terms" ] || { echo "MISMATCH layered $c" >&2; exit 1; }
  m=$(run moment "$S" expand --weights "$w" --variant moment --format json)
  [ "$m" = timeout ] || [ "$(field "$tmp/moment.out" terms)" = "$terms" ] || { echo "MISMATCH moment $c" >&2; exit 1; }
  f=$(run flint "$S" expand --weights "$w" --product flint --format json)
  [ "$f" = timeout ] || [ "$(field "$tmp/flint.out" terms)" = "$terms" ] || { echo "MISMATCH flint product $c" >&2; exit 1; }
  read -r as akb <<<"$a"; read -r ls _ <<<"$l"; read -r ms _ <<<"$m"; read -r fs _ <<<"$f"
  cells=""
  for task in expand expand-assoc; do
    g=$(run singular bench/peers/singular_peer.py "$task" "$w")
    if [ "$g" != timeout ] && [ "$g" != error ]; then
      [ "$(field "$tmp/singular.out" terms)" = "$terms" ] || { echo "MISMATCH Singular $task $c" >&2; exit 1; }
    fi
    if [ "$g" = timeout ] || [ "$g" = error ]; then gs="> $LIMIT ($g)"; gm=""; ratio="> $(/usr/bin/python3 -c "print(f'{$LIMIT/$as:.1f}')")×"
    else read -r gs gkb <<<"$g"; gm=$((gkb / 1024)); ratio="$(/usr/bin/python3 -c "print(f'{$gs/$as:.1f}')")×"; fi
    cells="$cells | $gs | $gm | $ratio"
  done
  echo "| \`$c\` | $terms | $as | $variant | $((akb / 1024)) | $ls | $ms | $fs$cells |" >>"$out.tmp"
  echo "expand_peers: $c done" >&2
done
# hand-written notes below the marker survive regeneration
if [ -f "$out" ] && grep -q '^<!-- notes -->' "$out"; then sed -n '/^<!-- notes -->/,$p' "$out" >>"$out.tmp"; fi
mv "$out.tmp" "$out"
cat "$out"
