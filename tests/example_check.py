#!/usr/bin/python3
"""Compares one example program's output with the seprank CLI on the same input.

Usage: example_check.py SEPRANK_CLI EXAMPLE.check EXAMPLE_OUTPUT

EXAMPLE.check holds the CLI arguments (one line, shell-style words); the CLI is run with
them plus `--format json`. EXAMPLE_OUTPUT holds lines `key value`. Every key printed by
the example must be in the JSON with an equal value: integers and strings exactly,
booleans as true/false, floats to a relative 1e-9. Keys the example does not print are
ignored. Exits 1, naming each bad key, on a mismatch, a missing key, an empty output or
a malformed line.
"""
import json
import os
import math
import shlex
import subprocess
import sys


def same(text, value):
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        try:
            return math.isclose(float(text), value, rel_tol=1e-9)
        except ValueError:
            return False
    return text == str(value)


def main():
    cli, check_path, output_path = sys.argv[1:]
    with open(check_path) as f:
        args = shlex.split(f.read(), comments=True)
    # Relative paths in the .check line (a weights file) are relative to its folder.
    run = subprocess.run([cli, *args, "--format", "json"], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.abspath(check_path)))
    if run.returncode != 0:
        print(f"{check_path}: seprank {' '.join(args)} --format json exited {run.returncode}: {run.stderr.strip()}")
        return 1
    want = json.loads(run.stdout)

    failures = []
    pairs = 0
    with open(output_path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            words = line.split(None, 1)
            if len(words) != 2:
                failures.append(f"line {number} is not `key value`: {line.rstrip()!r}")
                continue
            key, text = words[0], words[1].strip()
            pairs += 1
            if key not in want:
                failures.append(f"key {key!r} is missing from the CLI's JSON (keys: {', '.join(sorted(want))})")
            elif not same(text, want[key]):
                failures.append(f"{key}: example prints {text!r}, CLI says {json.dumps(want[key])}")
            else:
                print(f"  {key} {text} (matches the CLI)")
    if pairs == 0:
        failures.append("the example printed no `key value` line")
    for failure in failures:
        print(f"FAIL {check_path}: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
