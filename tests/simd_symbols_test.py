#!/usr/bin/env python3
"""A run-time dispatched kernel object must not hand newer instructions to the rest of the library.

Two objects hold code for instructions beyond the x86-64 baseline, entered only after the
library has checked the processor (src/meson.build):

- src/network/forward_ifma.cpp compiles its kernel for AVX-512 F/VL/IFMA (#pragma GCC target after
  the shared headers); its two entry points are ifma_built and make_ifma_evaluator.
- src/algebra/rank_fflas.cpp is compiled a second time with -march=x86-64-v3; after a partial link
  and objcopy -G only its entry seprank_fflas_rank_x86_64_v3 stays global.

Inline functions of common headers that such an object uses (std::string members, FFLAS
and Givaro templates, ...) are emitted there as weak symbols, and the linker keeps one copy
of each for the whole library: if that copy held a newer instruction, a processor without
it would die with SIGILL in code that has nothing to do with the kernel. This test
disassembles the object (nm, objdump, readelf) and fails if

- a globally visible (global, weak or unique) symbol other than the entry points contains
  an instruction beyond baseline x86-64 (the list of tests/baseline_isa_test.py: VEX/EVEX,
  ymm/zmm/mask registers, SSE3+, BMI, LZCNT, MOVBE, ...);
- with --sole-global: any defined symbol other than the entry points is not local, or the
  object still has a COMDAT section group (a group is merged by its signature name across
  objects, whatever the symbol's binding, so it could replace a baseline copy);
- a static initialiser or finaliser (.init_array, .fini_array, .ctors, .dtors,
  .preinit_array), or a function of the object it refers to, directly or through other
  functions of the object (a destructor handed to __cxa_atexit, say), contains such an
  instruction: those run at load and exit on every processor, without the check;
- no instruction starting with the --expect prefix is found, so the test cannot pass on an
  empty or wrongly compiled object.

Usage: simd_symbols_test.py OBJECT --entry NAME [--entry NAME ...] --expect PREFIX [--sole-global]
(an entry matches a symbol whose name contains it, so a C++ function's mangled name does).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline_isa_test import flagged  # noqa: E402

HEAD = re.compile(r"^([0-9a-f]+) <(.+)>:$")
SECTION = re.compile(r"^Disassembly of section (\S+):$")
RELOC = re.compile(r"^\s+[0-9a-f]+: R_X86_64_(\S+)\s+(\S+?)([+-]0x[0-9a-f]+)?$")
INIT_SECTIONS = (".init_array", ".fini_array", ".ctors", ".dtors", ".preinit_array")


def run(*cmd):
    return subprocess.run(list(cmd), check=True, capture_output=True, text=True).stdout


def main(argv):
    path, entries, expect, sole_global = None, [], None, False
    args = iter(argv)
    for a in args:
        if a == "--entry":
            entries.append(next(args))
        elif a == "--expect":
            expect = next(args)
        elif a == "--sole-global":
            sole_global = True
        else:
            path = a
    if path is None or not entries or expect is None:
        print(__doc__)
        return 2

    def is_entry(name):
        return any(e in name for e in entries)

    shared, nonlocal_defined = set(), []
    for line in run("nm", "--defined-only", "-P", path).splitlines():
        parts = line.split()
        if len(parts) >= 2 and (parts[1].isupper() or parts[1] in ("u", "v", "w")):
            if not is_entry(parts[0]):
                shared.add(parts[0])
                nonlocal_defined.append(f"{parts[0]} ({parts[1]})")

    # Functions by section and offset (for relocations against section symbols), the
    # instructions that are not baseline, and the functions each function refers to.
    dis = run("objdump", "-dr", "--no-show-raw-insn", path)
    bad, refs, starts = {}, {}, {}
    section, current, kernel = None, None, False
    for line in dis.splitlines():
        m = SECTION.match(line)
        if m:
            section, current = m.group(1), None
            continue
        m = HEAD.match(line)
        if m:
            current = m.group(2)
            starts.setdefault(section, []).append((int(m.group(1), 16), current))
            refs.setdefault(current, [])
            continue
        if current is None:
            continue
        m = RELOC.match(line)
        if m:
            pc_relative = "PC" in m.group(1) or "PLT" in m.group(1)
            refs[current].append((m.group(2), int(m.group(3) or "0", 16), pc_relative))
            continue
        if "\t" not in line:
            continue
        insn = line.split("\t", 1)[1].strip()
        if not insn:
            continue
        if insn.split()[0].startswith(expect):
            kernel = True
        if flagged(insn) and insn.split()[0] != "tzcnt":
            bad.setdefault(current, insn)

    def function_at(target, addend, pc_relative):
        """The function a relocation names: a symbol, or a section symbol plus addend."""
        if target in refs:
            return target
        if target in starts:
            # A call's PC-relative addend is the offset minus 4 (the displacement's size).
            offset = addend + (4 if pc_relative else 0)
            best = None
            for start, name in starts[target]:
                if start <= offset:
                    best = name
            return best
        return None

    # The static initialisers and finalisers: relocations in the init sections.
    roots = set()
    for line in run("readelf", "-rW", path).split("\n\n"):
        head = line.strip().splitlines()[0] if line.strip() else ""
        if not any(f"'.rela{s}'" in head or f"'.rel{s}'" in head for s in INIT_SECTIONS):
            continue
        for row in line.strip().splitlines()[2:]:
            cols = row.split()
            if len(cols) >= 5:
                addend = int(cols[6], 16) * (-1 if cols[5] == "-" else 1) if len(cols) >= 7 else 0
                name = function_at(cols[4], addend, False)
                if name is not None:
                    roots.add(name)
    seen, todo = set(), list(roots)
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for target, addend, pc_relative in refs.get(f, []):
            g = function_at(target, addend, pc_relative)
            if g is not None and g not in seen and not is_entry(g):
                todo.append(g)

    status = 0
    print(f"{len(shared)} shared (weak, global or unique) symbols besides the entry points checked; "
          f"{len(roots)} static initialiser(s)/finaliser(s), {len(seen)} function(s) reachable from them")
    if not kernel:
        print(f"FAIL: no instruction starting with {expect!r} found: is this the kernel object?")
        status = 1
    for sym in sorted(shared & set(bad)):
        print(f"FAIL: shared symbol {sym} contains '{bad[sym]}'")
        status = 1
    for f in sorted(seen & set(bad)):
        print(f"FAIL: {f}, run at load or exit without the processor check, contains '{bad[f]}'")
        status = 1
    if sole_global:
        for sym in nonlocal_defined:
            print(f"FAIL: {sym} is not local: only the entry points may be (objcopy -G in src/meson.build)")
            status = 1
        groups = run("readelf", "-gW", path)
        if "COMDAT group section" in groups or "group section [" in groups:
            print("FAIL: the object still has COMDAT section groups (ld -r --force-group-allocation in src/meson.build)")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
