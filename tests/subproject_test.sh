#!/usr/bin/env bash
# Uses seprank as a meson subproject, as a parent project would: a throw-away project
# under BUILD_DIR/subproject-test with subprojects/seprank a symbolic link to the source
# tree declares every examples/NAME.cpp as a C++17 executable with `dependency('seprank')`.
# --force-fallback-for keeps an installed seprank out of the way.
#
# Checked without building the library a second time (the whole test suite builds it
# once): the parent project configures with seprank as a subproject (which needs neither
# CLI11, doctest nor MPI); every example compiles against the dependency as C++17 with
# -Werror (include directories, the generated version.hpp and compile flags all come from
# it); and every example's link step, as ninja would run it, takes the subproject's
# static libseprank.a and FLINT/Arb (ninja -t query). Linking and running the examples
# against the library, and comparing their output with the CLI, is tests/consumer_test.sh's
# work (pkg-config and CMake, against the installed library built from the same sources).
#
# Usage: tests/subproject_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work="$build/subproject-test"

fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/subprojects"
ln -s "$source" "$work/subprojects/seprank"

shopt -s nullglob
examples=("$source"/examples/*.cpp)
[[ ${#examples[@]} -gt 0 ]] || fail "no examples in $source/examples"
names=()
{
  echo "project('seprank_parent', 'cpp', default_options : ['cpp_std=c++17', 'warning_level=2', 'werror=true'])"
  echo "seprank_dep = dependency('seprank')"
  for example in "${examples[@]}"; do
    name=$(basename "$example" .cpp)
    names+=("$name")
    cp "$example" "$work/$name.cpp"  # in the parent's tree: its object is NAME.p/NAME.cpp.o
    echo "executable('$name', '$name.cpp', dependencies : seprank_dep)"
  done
} >"$work/meson.build"

meson setup "$work/build" "$work" --buildtype plain --force-fallback-for seprank >"$work/setup.log" 2>&1 ||
  { cat "$work/setup.log"; fail "meson setup of the parent project"; }
grep -q 'Subproject seprank finished' "$work/setup.log" || fail "seprank was not used as a subproject"
for unwanted in CLI11 doctest mpi; do
  if grep -qi "dependency $unwanted " "$work/setup.log"; then fail "the subproject looked for $unwanted"; fi
done

objects=()
for name in "${names[@]}"; do objects+=("$name.p/$name.cpp.o"); done
ninja -C "$work/build" -j 2 "${objects[@]}" >"$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log"; fail "the examples do not compile against dependency('seprank')"; }
if grep -q 'libseprank' "$work/build.log"; then fail "compiling the examples built the library (above)"; fi
for name in "${names[@]}"; do
  [[ -s "$work/build/$name.p/$name.cpp.o" ]] || fail "$name: no object"
  ninja -C "$work/build" -t query "$name" >"$work/$name.query" || fail "ninja -t query $name"
  grep -q 'subprojects/seprank/src/libseprank\.a' "$work/$name.query" ||
    { cat "$work/$name.query"; fail "$name is not linked with the subproject's libseprank.a"; }
  echo "$name: compiles as C++17 against dependency('seprank'), links the subproject's libseprank.a"
done
grep -q -- '-lflint-arb\|libflint-arb' "$work/build/build.ninja" || fail "the link lines do not name Arb (flint-arb)"
echo "ok: ${#names[@]} example(s) against seprank as a subproject, the library not built twice"
