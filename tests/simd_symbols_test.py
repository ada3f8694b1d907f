#!/usr/bin/env python3
"""The AVX-512 IFMA object must not hand AVX code to the rest of the library.

src/forward_ifma.cpp compiles its kernel for AVX-512 F/VL/IFMA (#pragma GCC target after
the shared headers). Inline functions of common headers that it uses (std::string members,
std::to_string, error types, ...) are emitted there as weak symbols too, and the linker
keeps one copy of each for the whole library: if that copy held an AVX instruction, a processor without AVX-512 would die with SIGILL in code
that has nothing to do with the kernel. This test disassembles the object (nm, objdump)
and fails if any globally visible symbol other than the two entry points contains an
instruction with a VEX/EVEX mnemonic (v...), a mask-register instruction (k...), or a
ymm/zmm register. It also checks that the kernel itself is there (vpmadd52 present), so
the test cannot pass on an empty object.

Usage: simd_symbols_test.py LIBRARY_OR_OBJECT
"""
import re
import subprocess
import sys

ENTRY = ("ifma_built", "make_ifma_evaluator")


def main(path):
    nm = subprocess.run(["nm", "--defined-only", "-P", path], check=True, capture_output=True, text=True).stdout
    shared = set()
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] in ("T", "W", "V", "u") and not any(e in parts[0] for e in ENTRY):
            shared.add(parts[0])
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], check=True, capture_output=True, text=True).stdout
    bad, current, kernel = {}, None, False
    head = re.compile(r"^[0-9a-f]+ <(.+)>:$")
    for line in dis.splitlines():
        m = head.match(line)
        if m:
            current = m.group(1)
            continue
        if "\t" not in line or current is None:
            continue
        insn = line.split("\t", 1)[1].strip()
        if not insn:
            continue
        mnemonic = insn.split()[0]
        if mnemonic.startswith("vpmadd52"):
            kernel = True
        if current in shared and (mnemonic[0] in "vk" or re.search(r"%[yz]mm|%k[0-7]", insn)):
            bad.setdefault(current, insn)
    print(f"{len(shared)} shared (weak or global) symbols besides the entry points checked")
    if not kernel:
        print("FAIL: no vpmadd52 instruction found: is this the IFMA object?")
        return 1
    for sym, insn in sorted(bad.items()):
        print(f"FAIL: shared symbol {sym} contains '{insn}'")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
