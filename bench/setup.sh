#!/usr/bin/env bash
# Installs what `make bench` compares against (only what is missing; idempotent):
# SymPy, Singular, numpy, and GNU time for peak memory.
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/setup.sh singular python3-sympy python3-numpy time
