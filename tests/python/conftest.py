# Shared fixtures of the Python suite: the CLI to compare with, and a JSON runner.
# Run by `meson test --suite python` (see tests/meson.build), which sets PYTHONPATH to
# <build>/python and SEPRANK_CLI to the seprank executable; by hand:
#   PYTHONPATH=build/python SEPRANK_CLI=build/tools/seprank /usr/bin/python3 -m pytest tests/python
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli_path():
    path = os.environ.get("SEPRANK_CLI", str(ROOT / "build" / "tools" / "seprank"))
    if not os.access(path, os.X_OK):
        pytest.fail(f"the seprank executable {path} is missing: build first, or set SEPRANK_CLI")
    return path


@pytest.fixture(scope="session")
def cli(cli_path):
    """cli(*args) runs `seprank args... --format json` and returns the parsed JSON."""

    def run(*args, fmt="json"):
        argv = [cli_path, *map(str, args)]
        if fmt:
            argv += ["--format", fmt]
        out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"{' '.join(argv)} failed ({out.returncode}): {out.stderr}"
        return json.loads(out.stdout) if fmt == "json" else out.stdout

    return run


def answer_keys():
    """The answer's keys that do not vary between runs (time and memory do)."""
    return ["partition", "degree", "terms", "rank", "kind", "certified", "label", "quantity", "bound",
            "method", "variant", "field", "rows", "cols", "prime", "primes_used", "converged",
            "evaluations", "block_ranks", "trials", "trial_ranks", "degenerate", "set_size",
            "weight_degree", "bound_degree", "failure_bound", "device", "note"]
