#!/usr/bin/env bash
# Uses seprank as a meson subproject, as a parent project would: a throw-away project
# under BUILD_DIR/subproject-test with subprojects/seprank a symbolic link to the source
# tree builds every examples/NAME.cpp as C++17 with `dependency('seprank')`, and each
# program's output is compared with the CLI (tests/example_check.py, the convention of
# tests/consumer_test.sh). --force-fallback-for keeps an installed seprank out of the
# way. The subproject builds the library from scratch, with buildtype plain to keep
# that short (about 30 s on 2 cores).
#
# Usage: tests/subproject_test.sh BUILD_DIR SOURCE_DIR PATH/TO/seprank
set -euo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
cli=$(realpath "$3")
work="$build/subproject-test"

fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/subprojects"
ln -s "$source" "$work/subprojects/seprank"

shopt -s nullglob
examples=("$source"/examples/*.cpp)
[[ ${#examples[@]} -gt 0 ]] || fail "no examples in $source/examples"
{
  echo "project('seprank_parent', 'cpp', default_options : ['cpp_std=c++17', 'warning_level=2', 'werror=true'])"
  echo "seprank_dep = dependency('seprank')"
  for example in "${examples[@]}"; do
    name=$(basename "$example" .cpp)
    echo "executable('$name', '$example', dependencies : seprank_dep)"
  done
} >"$work/meson.build"

meson setup "$work/build" "$work" --buildtype plain --force-fallback-for seprank >"$work/setup.log" 2>&1 ||
  { cat "$work/setup.log"; fail "meson setup of the parent project"; }
grep -q 'Subproject seprank finished' "$work/setup.log" || fail "seprank was not used as a subproject"
ninja -C "$work/build" -j 2 >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "parent project build"; }

for example in "${examples[@]}"; do
  name=$(basename "$example" .cpp)
  "$work/build/$name" >"$work/$name.out" || fail "$name exited with status $?"
  echo "$name (seprank as a subproject):"
  /usr/bin/python3 "$source/tests/example_check.py" "$cli" "$source/examples/$name.check" "$work/$name.out" ||
    fail "$name disagrees with the CLI (above)"
done
echo "ok: ${#examples[@]} example(s) built with seprank as a subproject"
