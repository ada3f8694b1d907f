#!/usr/bin/env bash
# Installs seprank into a staging folder and builds the example programs against that
# installation only, as another program would, through pkg-config and through CMake.
#
# Usage: tests/consumer_test.sh BUILD_DIR SOURCE_DIR PATH/TO/seprank
#
# Examples convention: every examples/NAME.cpp runs without arguments and prints lines
# `key value`. examples/NAME.check holds the seprank CLI arguments (one line, e.g.
# `expand --tokens 4 --dim 2 --depth 2 --seed 1`; relative paths are relative to examples/) whose `--format json` output must
# hold the same value under every key the example prints; keys the example does not
# print are ignored, a printed key missing from the JSON is a failure
# (tests/example_check.py). An example without a .check file is a failure.
#
# Steps (any failure ends the script with a non-zero status):
#   1. `meson install --destdir BUILD_DIR/consumer-test/stage` with the build's prefix;
#      the installed files are listed, libseprank.so has soname libseprank.so.0,
#      `ldd` names no MPI library, and every exported symbol is in namespace seprank.
#   2. The staged seprank.pc's prefix is the stage (it is relocatable: no sysroot or
#      prefix override), and seprank/version.hpp agrees with `pkg-config --modversion`.
#   3. Each example, as C++17 and as C++20 with -Wall -Wextra -Werror:
#      pkg-config shared (`pkg-config --cflags --libs seprank`), pkg-config static
#      (`--static`, -lseprank replaced by -l:libseprank.a), CMake seprank::seprank and
#      seprank::seprank_static (tests/consumer/CMakeLists.txt, CMAKE_PREFIX_PATH into the
#      stage). Shared binaries must load the staged libseprank.so, static ones none.
#   4. Each binary's output is compared with the CLI (tests/example_check.py).
#   5. The C++ of docs/library.md, against the staged installation (pkg-config, C++17):
#      each ```cpp block holding `int main` is built and run as it is; the other blocks
#      (fragments) are built and run together, each in its own scope of one main() that
#      first defines what they use: `my_spec` (a NetworkSpec, N = 3) and `net` (a
#      Network drawn from it). A block that does not build or run is a failure.
set -euo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
cli=$(realpath "$3")
work="$build/consumer-test"
stage="$work/stage"
python=/usr/bin/python3
cxxflags=(-Wall -Wextra -Werror)

fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"

# ---- 1. staged installation
meson install -C "$build" --no-rebuild --destdir "$stage" >"$work/install.log" ||
  { cat "$work/install.log"; fail "meson install"; }

read -r prefix libdir version < <(
  meson introspect "$build" --buildoptions --projectinfo | "$python" -c '
import json, sys
info = json.load(sys.stdin)
options = {o["name"]: o["value"] for o in info["buildoptions"]}
print(options["prefix"], options["libdir"], info["projectinfo"]["version"])')
[[ "$libdir" == /* ]] || libdir="$prefix/$libdir"
staged_prefix="$stage$prefix"
staged_libdir="$stage$libdir"
echo "staged install: $staged_prefix (seprank $version)"

for f in "$staged_libdir/libseprank.so.$version" "$staged_libdir/libseprank.so.0" \
  "$staged_libdir/libseprank.so" "$staged_libdir/libseprank.a" \
  "$staged_libdir/pkgconfig/seprank.pc" \
  "$staged_libdir/cmake/seprank/seprankConfig.cmake" \
  "$staged_libdir/cmake/seprank/seprankConfigVersion.cmake" \
  "$staged_prefix/include/seprank/seprank.hpp" "$staged_prefix/include/seprank/version.hpp"; do
  [[ -e "$f" ]] || fail "not installed: ${f#"$stage"}"
done
soname=$(readelf -d "$staged_libdir/libseprank.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ "$soname" == libseprank.so.0 ]] || fail "soname is '$soname', expected libseprank.so.0"
ldd "$staged_libdir/libseprank.so" >"$work/ldd.txt"
if grep -i 'libmpi\|libopen-rte\|libopen-pal' "$work/ldd.txt"; then
  fail "the installed libseprank.so depends on MPI (above)"
fi
if grep 'not found' "$work/ldd.txt"; then fail "libseprank.so has unresolved libraries (above)"; fi
# The exported symbols are seprank's own (packaging/seprank.map): no copy of a header-only
# library's templates (nlohmann, Eigen, Boost, Givaro) for a program's own to bind to.
nm -D --defined-only -C "$staged_libdir/libseprank.so.$version" | cut -d' ' -f3- >"$work/exports.txt"
grep -c 'seprank::' "$work/exports.txt" >/dev/null || fail "libseprank.so exports no seprank:: symbol"
outside=$(grep -v 'seprank::' "$work/exports.txt" | grep -vx '_init\|_fini' || true)
if [[ -n "$outside" ]]; then
  head -5 <<<"$outside"
  fail "libseprank.so exports $(wc -l <<<"$outside") symbols outside namespace seprank (above; packaging/seprank.map)"
fi
echo "ok: installed files, soname $soname, no MPI in ldd, $(wc -l <"$work/exports.txt") exported symbols, all seprank's"

# ---- 2. pkg-config sees the staged seprank.pc, whose paths follow it (relocatable)
export PKG_CONFIG_PATH="$staged_libdir/pkgconfig"
unset PKG_CONFIG_SYSROOT_DIR
pc_prefix=$(pkg-config --variable=prefix seprank)
[[ $(realpath "$pc_prefix") == $(realpath "$staged_prefix") ]] ||
  fail "seprank.pc's prefix is '$pc_prefix', not the staged $staged_prefix (not relocatable)"
[[ $(pkg-config --modversion seprank) == "$version" ]] ||
  fail "pkg-config --modversion seprank: $(pkg-config --modversion seprank), expected $version"
read -r -a pc_cflags <<<"$(pkg-config --cflags seprank)"
read -r -a pc_libs <<<"$(pkg-config --libs seprank)"
read -r -a pc_static_libs <<<"$(pkg-config --static --libs seprank)"
pc_static_libs=("${pc_static_libs[@]/#-lseprank/-l:libseprank.a}")
echo "pkg-config: ${pc_cflags[*]} ${pc_libs[*]}"

cat >"$work/version_probe.cpp" <<'EOF'
#include <seprank/version.hpp>
#include <cstdio>
static_assert(seprank::version_major() == SEPRANK_VERSION_MAJOR, "major");
static_assert(seprank::version_minor() == SEPRANK_VERSION_MINOR, "minor");
static_assert(seprank::version_patch() == SEPRANK_VERSION_PATCH, "patch");
int main() {
    std::printf("%d.%d.%d %s\n", seprank::version_major(), seprank::version_minor(),
                seprank::version_patch(), seprank::version_string());
}
EOF
g++ -std=c++17 "${cxxflags[@]}" "${pc_cflags[@]}" "$work/version_probe.cpp" -o "$work/version_probe"
[[ $("$work/version_probe") == "$version $version" ]] ||
  fail "version.hpp says '$("$work/version_probe")', expected '$version $version'"
echo "ok: version.hpp $version"

# ---- 3. build the examples
shopt -s nullglob
examples=("$source"/examples/*.cpp)
[[ ${#examples[@]} -gt 0 ]] || fail "no examples in $source/examples"
binaries=()  # entries "NAME shared|static PATH"
for std in 17 20; do
  out="$work/pkg-config-c++$std"
  mkdir -p "$out"
  for example in "${examples[@]}"; do
    name=$(basename "$example" .cpp)
    g++ -std=c++$std "${cxxflags[@]}" "${pc_cflags[@]}" "$example" -o "$out/$name" "${pc_libs[@]}" ||
      fail "pkg-config, C++$std, shared: $name does not build"
    g++ -std=c++$std "${cxxflags[@]}" "${pc_cflags[@]}" "$example" -o "$out/${name}_static" "${pc_static_libs[@]}" ||
      fail "pkg-config, C++$std, static: $name does not build"
    binaries+=("$name shared $out/$name" "$name static $out/${name}_static")
  done
  echo "ok: pkg-config, C++$std: ${#examples[@]} example(s), shared and static"

  out="$work/cmake-c++$std"
  cmake -S "$source/tests/consumer" -B "$out" -G Ninja \
    -DCMAKE_PREFIX_PATH="$staged_prefix" -DCMAKE_CXX_STANDARD=$std \
    -DSEPRANK_EXAMPLES_DIR="$source/examples" -DSEPRANK_VERSION_WANTED="$version" \
    >"$out.log" 2>&1 || { cat "$out.log"; fail "cmake configure, C++$std"; }
  seprank_dir=$(sed -n 's/^seprank_DIR:PATH=//p' "$out/CMakeCache.txt")
  [[ "$seprank_dir" == "$stage"/* ]] || fail "CMake found seprank in '$seprank_dir', not in the stage"
  cmake --build "$out" -j 2 >>"$out.log" 2>&1 || { cat "$out.log"; fail "cmake build, C++$std"; }
  for example in "${examples[@]}"; do
    name=$(basename "$example" .cpp)
    binaries+=("$name shared $out/$name" "$name static $out/${name}_static")
  done
  echo "ok: CMake, C++$std: ${#examples[@]} example(s), seprank::seprank and seprank::seprank_static"
done

# ---- 4. run every binary and compare with the CLI
export LD_LIBRARY_PATH="$staged_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for entry in "${binaries[@]}"; do
  read -r name kind binary <<<"$entry"
  check="$source/examples/$name.check"
  [[ -f "$check" ]] || fail "examples/$name.cpp has no examples/$name.check"
  loaded=$(ldd "$binary" | sed -n 's/^\s*libseprank\.so[^ ]* => \([^ ]*\).*/\1/p')
  if [[ $kind == shared ]]; then
    [[ "$loaded" == "$stage"/* ]] || fail "$binary loads libseprank from '$loaded', not the stage"
  else
    [[ -z "$loaded" ]] || fail "$binary, linked statically, loads $loaded"
  fi
  "$binary" >"$binary.out" || fail "$binary exited with status $?"
  echo "${binary#"$work/"}:"
  "$python" "$source/tests/example_check.py" "$cli" "$check" "$binary.out" ||
    fail "$binary disagrees with the CLI (above)"
done
echo "ok: ${#binaries[@]} example binaries agree with the CLI"

# ---- 5. the C++ shown in docs/library.md
docs_out="$work/library-md"
mkdir -p "$docs_out"
"$python" - "$source/docs/library.md" "$docs_out" <<'EOF'
import pathlib, re, sys
page, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
blocks = re.findall(r"^[ \t]*```cpp\n(.*?)^[ \t]*```", page.read_text(), flags=re.S | re.M)
programs = [b for b in blocks if "int main" in b]
fragments = [b for b in blocks if "int main" not in b]
for k, b in enumerate(programs, 1):
    (out / f"program{k}.cpp").write_text(b)
scopes = "".join("    {\n" + b + "    }\n" for b in fragments)
(out / "fragments.cpp").write_text(
    "#include <seprank/seprank.hpp>\n\nint main() {\n"
    "    seprank::NetworkSpec my_spec;\n    my_spec.tokens = 3;\n"
    "    const seprank::Network net = seprank::random_network(my_spec, 1);\n"
    "    (void)net;\n" + scopes + "}\n")
print(f"docs/library.md: {len(programs)} program(s), {len(fragments)} fragment(s)")
if not programs:
    sys.exit("docs/library.md: no ```cpp block with int main")
EOF
for program in "$docs_out"/*.cpp; do
  name=$(basename "$program" .cpp)
  g++ -std=c++17 "${cxxflags[@]}" "${pc_cflags[@]}" "$program" -o "$docs_out/$name" "${pc_libs[@]}" \
    >"$docs_out/$name.log" 2>&1 || { cat "$docs_out/$name.log"; fail "docs/library.md: $name.cpp does not build (above)"; }
  status=0
  "$docs_out/$name" >"$docs_out/$name.out" 2>&1 || status=$?
  [[ $status -eq 0 ]] || { cat "$docs_out/$name.out"; fail "docs/library.md: $name exited with status $status"; }
done
echo "ok: the C++ of docs/library.md builds and runs against the installation"
