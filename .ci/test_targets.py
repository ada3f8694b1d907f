#!/usr/bin/env python3
"""Which tests of suite SUITE (leaving out those also in suite EXCLUDE) can run without the
targets named by --skip, and the ninja targets (paths relative to BUILD) they need.
SUITE may name several suites, comma-separated (unit,fuzz). Prints two lines: the
targets, then the test names.

Usage: test_targets.py BUILD SUITE[,SUITE...] [EXCLUDE] [--skip TARGET ...]"""
import json
import os
import subprocess
import sys

args = sys.argv[1:]
skip = set()
if "--skip" in args:
    k = args.index("--skip")
    skip = set(args[k + 1:])
    args = args[:k]
build, suites = args[0], args[1].split(",")
exclude = args[2] if len(args) > 2 else None


def introspect(what):
    out = subprocess.run(["meson", "introspect", build, what], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def in_suite(test, name):
    return any(s == name or s.endswith(":" + name) for s in test["suite"])


root = os.path.realpath(build)
rel = lambda f: os.path.relpath(os.path.realpath(f), root)  # noqa: E731
files = {t["id"]: t["filename"] for t in introspect("--targets")}
targets, names = set(), []
for test in introspect("--tests"):
    if not any(in_suite(test, s) for s in suites) or (exclude and in_suite(test, exclude)):
        continue
    need = {rel(f) for dep in test.get("depends", []) for f in files.get(dep, [])}
    need |= {rel(a) for a in test["cmd"] if os.path.realpath(a).startswith(root + os.sep)}
    if need & skip:
        continue
    targets |= need
    names.append(test["name"])
if not names:
    sys.exit(f"no tests of suite {','.join(suites)} in {build}")
print(" ".join(sorted(targets)))
print(" ".join(names))
