#!/usr/bin/env bash
# Installs the Python package as a user would (docs/python.md, "Build and import"): pip
# builds a wheel from a copy of the source tree with meson-python and installs it into a
# fresh venv made with `/usr/bin/python3 -m venv --system-site-packages` (which sees
# Debian's numpy and meson-python), offline: --no-index, --no-deps and
# --no-build-isolation, and pip's configuration and environment are set aside so that
# nothing is looked up or downloaded. Then, from outside the source tree, the installed
# package must be the one imported, carry every module of python/seprank/*.py and rank.
# The wheel is built with the options users pass (-Dpython_only=true: the library and the
# extension alone) and with the build's compile flags (the project's defaults are a
# wheel's: -O2, no debug information), from a copy whose build folder sits where the
# build's does, beside src/: the compile commands are then the build's, and the compiler
# cache serves every object but device.cpp's (it holds the build folder's path) from the
# build's. The test prints how many compilations came from the cache.
#
# Usage: tests/package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail

build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work="$build/package-test"

fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null || fail "python3-venv is missing (scripts/setup.sh installs it)"
rm -rf "$work"
mkdir -p "$work/src"
# The source tree as a user has it: without build folders, VCS data or caches.
(cd "$source" && tar --exclude=./build --exclude='./build-*' --exclude=./.git --exclude='./.venv*' \
  --exclude='*/__pycache__' -cf - .) | tar -xf - -C "$work/src"

/usr/bin/python3 -m venv --system-site-packages "$work/venv" || fail "venv creation"
unset PIP_FIND_LINKS PIP_INDEX_URL PIP_EXTRA_INDEX_URL
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
start=$(date +%s)
# builddir: src/build, as build/ beside the sources (the compile commands name ../src/…
# and ../include as the build's do), instead of a folder meson-python names at random.
# The cache's base is the copy, as the build's is its clone; each compilation's result
# (hit or miss) goes to a log of this run alone.
export CCACHE_BASEDIR="$work/src" CCACHE_NOHASHDIR=1 CCACHE_STATSLOG="$work/ccache.log"
"$work/venv/bin/python" -m pip install -v --no-build-isolation --no-deps --no-index --no-cache-dir \
  --config-settings builddir="$work/src/build" \
  --config-settings setup-args=-Dpython_only=true "$work/src" >"$work/pip.log" 2>&1 ||
  { tail -40 "$work/pip.log"; fail "pip install of the source tree"; }
unset CCACHE_STATSLOG
cached=""
if [[ -s "$work/ccache.log" ]]; then  # one line per result: direct_cache_hit, preprocessed_cache_hit, cache_miss, ...
  hits=$(grep -cxE '(direct|preprocessed)_cache_hit' "$work/ccache.log" || true)
  misses=$(grep -cx 'cache_miss' "$work/ccache.log" || true)
  cached=", $hits of $((hits + misses)) compilations from the compiler cache"
fi
echo "pip install: $(( $(date +%s) - start )) s$cached"
# -v shows the build's progress (docs/python.md): ninja's numbered steps are in the log.
grep -Eq '^ *\[[0-9]+/[0-9]+\] ' "$work/pip.log" || fail "pip install -v showed no build steps: $(tail -5 "$work/pip.log")"

modules=$(cd "$source/python/seprank" && ls -- *.py *.pyi py.typed | tr '\n' ' ')
cd "$work"  # not the source tree: the installed package must be the one imported
env -u PYTHONPATH -u SEPRANK_CUDA_PLUGIN "$work/venv/bin/python" - "$work/venv" $modules <<'PY' || fail "the installed package"
import pathlib, sys
venv, modules = pathlib.Path(sys.argv[1]).resolve(), sys.argv[2:]
import seprank
from fractions import Fraction
where = pathlib.Path(seprank.__file__).resolve().parent
assert venv in where.parents, f"imported {where}, not the venv's copy"
missing = [m for m in modules if not (where / m).exists()]
assert not missing, f"the wheel lacks {missing}"
assert list(where.glob("_core*.so")), "the wheel lacks the extension"
a = seprank.rank([[1, Fraction(1, 2)], [2, 1]])
assert (a.value, a.kind) == (1, "exact"), a
net = seprank.attention(tokens=3, dim=2, depth=2, seed=7)
assert seprank.rank(net, "1,2|3").value == 17
# The wheel carries no CUDA plugin, and says so (docs/python.md, "A GPU from a wheel").
try:
    seprank.generic_rank(net, "1,2|3", trials=1, device="cuda")
    raise AssertionError("device='cuda' ran from a wheel without the plugin")
except Exception as e:  # the library's device error, whatever its Python class
    assert "this wheel carries no CUDA plugin" in str(e), e
print(f"ok: seprank {seprank.__version__} from {where}: {len(modules)} files, ranks as the build tree does")
PY
