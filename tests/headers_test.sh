#!/usr/bin/env bash
# Checks the installed public headers, against a staged installation only (so no
# header of the source tree can stand in for a missing installed one).
#
# Usage: tests/headers_test.sh BUILD_DIR SOURCE_DIR
#
#   1. Every include/seprank/*.hpp of the source tree is installed, except the internal
#      ones listed below; the umbrella seprank/seprank.hpp includes every other installed
#      header, the generated seprank/version.hpp too.
#   2. No installed header includes boost/, nlohmann/, CLI/ or mpi.h.
#   3. Every installed header compiles on its own (a translation unit holding just its
#      #include) as C++17 and as C++20 with -Wall -Wextra -Werror -fsyntax-only.
#   4. The umbrella header, preprocessed as C++17, is at most 70000 lines of code (line
#      markers and blank lines, a third of g++ -E's output, not counted: they cost the
#      compiler nothing, and the API's own comments grew them past a limit on all lines).
# All checks run; the script lists every failure and exits 1 if there was one.
set -euo pipefail

# Headers of include/seprank that are not installed: the MPI engine is linked into the
# seprank executable only.
internal=()
max_umbrella_lines=70000

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work="$build/headers-test"
stage="$work/stage"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

rm -rf "$work"
mkdir -p "$work"
meson install -C "$build" --no-rebuild --destdir "$stage" >"$work/install.log" ||
  { cat "$work/install.log"; echo "FAIL: meson install"; exit 1; }
prefix=$(meson introspect "$build" --buildoptions |
  /usr/bin/python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
include="$stage$prefix/include"
[[ -d "$include/seprank" ]] || { echo "FAIL: nothing installed under ${include#"$stage"}/seprank"; exit 1; }

mapfile -t installed < <(cd "$include/seprank" && ls -- *.hpp | sort)
echo "installed headers (${#installed[@]}): ${installed[*]}"

# ---- 1. install list and umbrella are complete
for path in "$source"/include/seprank/*.hpp; do
  h=$(basename "$path")
  [[ " ${internal[*]} " == *" $h "* ]] && continue
  [[ -f "$include/seprank/$h" ]] || fail "include/seprank/$h is not installed (include/seprank/meson.build)"
done
for h in "${installed[@]}"; do
  [[ $h == seprank.hpp ]] && continue
  grep -q "^#include \"seprank/$h\"" "$include/seprank/seprank.hpp" ||
    fail "the umbrella seprank/seprank.hpp does not include seprank/$h"
done

# ---- 2. no third-party headers that a consumer would need as well
if grep -nE '^\s*#\s*include\s*[<"](boost/|nlohmann/|CLI/|mpi\.h)' "$include"/seprank/*.hpp >"$work/forbidden.txt"; then
  while read -r line; do fail "forbidden include: ${line#"$include/"}"; done <"$work/forbidden.txt"
fi

# ---- 3. each header on its own
for std in 17 20; do
  for h in "${installed[@]}"; do
    tu="$work/c++$std-${h%.hpp}.cpp"
    printf '#include <seprank/%s>\n' "$h" >"$tu"
    if ! g++ -std=c++$std -Wall -Wextra -Werror -fsyntax-only -I"$include" "$tu" >"$tu.log" 2>&1; then
      fail "seprank/$h does not compile on its own as C++$std: $(grep -m1 'error:' "$tu.log" || head -1 "$tu.log")"
    fi
  done
  echo "compiled each header alone as C++$std"
done

# ---- 4. size of the umbrella header
if lines=$(printf '#include <seprank/seprank.hpp>\n' |
  g++ -std=c++17 -E -I"$include" -x c++ - 2>"$work/umbrella.log" | grep -v '^#' | grep -cv '^[[:space:]]*$') &&
  [[ ! -s "$work/umbrella.log" ]]; then
  echo "umbrella seprank/seprank.hpp preprocessed as C++17: $lines lines of code (limit $max_umbrella_lines)"
  [[ $lines -le $max_umbrella_lines ]] || fail "the umbrella header preprocesses to $lines lines of code, more than $max_umbrella_lines"
else
  fail "the umbrella header does not preprocess as C++17: $(head -3 "$work/umbrella.log")"
fi

if [[ $failures -gt 0 ]]; then
  echo "$failures header check(s) failed"
  exit 1
fi
echo "ok: all header checks passed"
