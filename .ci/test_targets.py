#!/usr/bin/env python3
"""Prints the ninja targets (paths relative to BUILD) that the tests of suite SUITE need,
leaving out tests that are also in suite EXCLUDE: the executables they run and depend on.

Usage: test_targets.py BUILD SUITE [EXCLUDE]"""
import json
import os
import subprocess
import sys

build, suite = sys.argv[1], sys.argv[2]
exclude = sys.argv[3] if len(sys.argv) > 3 else None


def introspect(what):
    out = subprocess.run(["meson", "introspect", build, what], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def in_suite(test, name):
    return any(s == name or s.endswith(":" + name) for s in test["suite"])


files = {t["id"]: t["filename"] for t in introspect("--targets")}
root = os.path.realpath(build)
wanted = set()
for test in introspect("--tests"):
    if not in_suite(test, suite) or (exclude and in_suite(test, exclude)):
        continue
    for dep in test.get("depends", []):
        wanted.update(files.get(dep, []))
    for arg in test["cmd"]:
        if os.path.realpath(arg).startswith(root + os.sep):
            wanted.add(arg)
if not wanted:
    sys.exit(f"no targets for suite {suite} in {build}")
print(" ".join(sorted(os.path.relpath(os.path.realpath(f), root) for f in wanted)))
