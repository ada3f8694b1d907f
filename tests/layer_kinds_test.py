#!/usr/bin/env python3
"""A layer kind lives in one traits unit (docs/development.md, "Adding a layer kind").

Checks the source tree (argument: its root): outside src/network/layers.hpp and layers_power.hpp (the traits) and
include/seprank/network.hpp (the kinds' field structs), no source file uses a kind in
code (mlp is the witness: adding it touched no other file) — its types MlpLayer or
MlpKind, a comparison with the name "mlp", a `case` on it — or switches on the kind of
a LayerSpec (std::get, holds_alternative, index()); and src/analysis/dimension.cpp, whose
expected count is the sum of the layers' counts, names no family. SPEC text that a
caller writes ("mlp:power=2,attention", verify's networks, docstrings) is input, not a
branch, and is allowed. Each finding is printed with its file and line; exit 1 on any.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
allowed = {"src/network/layers.hpp", "src/network/layers_power.hpp", "include/seprank/network.hpp"}
kind_name = re.compile(r"\bMlp(Layer|Kind)\b|[=!]=\s*\"mlp\"|\"mlp\"\s*[=!]=|\bcase\b[^:]*mlp|compare\(\s*\"mlp\"", re.IGNORECASE)
kind_switch = re.compile(r"holds_alternative\s*<|std::get\s*<\s*(AttentionLayer|MlpLayer|HadamardLayer)|\.index\(\)\s*==")
findings = []
files = [p for d in ("src", "tools", "python/seprank", "include") for p in (root / d).rglob("*")
         if p.suffix in (".cpp", ".hpp", ".py", ".in")]
if not files:
    print(f"FAIL no sources under {root}")
    sys.exit(1)
for path in sorted(files):
    rel = path.relative_to(root).as_posix()
    if rel in allowed:
        continue
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if kind_name.search(line):
            findings.append(f"{rel}:{n}: uses a layer kind in code outside the traits unit: {line.strip()}")
        if kind_switch.search(line):
            findings.append(f"{rel}:{n}: switches on a LayerSpec's kind outside the traits unit: {line.strip()}")
dim = (root / "src/analysis/dimension.cpp").read_text(encoding="utf-8").splitlines()
for n, line in enumerate(dim, 1):
    if "Family::" in line:
        findings.append(f"src/analysis/dimension.cpp:{n}: names a family (its counts come from the traits): {line.strip()}")
for f in findings:
    print(f)
print(f"{len(files)} files checked, {len(findings)} findings")
print(f"{1 if not findings else 0} passed, {1 if findings else 0} failed")
sys.exit(min(len(findings), 1))
