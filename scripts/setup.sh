#!/usr/bin/env bash
# Installs the Debian packages seprank needs, only those missing; idempotent.
# Runs apt-get as root, through sudo otherwise. Prints nothing when all is present.
# ccache is optional for the build; meson uses it when present, and a rebuild of the same
# sources with the same options (a fresh clone of CI, the package test's build of the
# library in the next run) then takes seconds.
# Usage: scripts/setup.sh [EXTRA-PACKAGE...]   (bench/setup.sh adds the peer tools)
set -euo pipefail

packages=(g++ meson ninja-build pkg-config cmake libflint-dev libflint-arb-dev libgmp-dev libmpfr-dev
  libboost-dev libeigen3-dev libcli11-dev doctest-dev nlohmann-json3-dev
  libopenmpi-dev openmpi-bin gnuplot-nox fflas-ffpack libgivaro-dev libopenblas-dev
  libmathicgb-dev libmathic-dev libmemtailor-dev
  python3-dev pybind11-dev python3-mesonpy python3-numpy python3-pytest python3-venv ccache "$@")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then sudo=(); else sudo=(sudo); fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get -q update >&2
"${sudo[@]}" apt-get -q -y -o DPkg::Lock::Timeout=600 install --no-install-recommends "${missing[@]}" >&2
