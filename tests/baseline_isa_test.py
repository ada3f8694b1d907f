#!/usr/bin/env python3
"""Nothing outside the run-time dispatched kernels may need more than baseline x86-64.

The library and the executable must run on any x86-64 processor (a wheel, a Debian
package, a library built on one machine and used on another): no file is compiled with
-march=native or -m<extension>, and code for newer instructions lives only in a kernel
the library enters after checking the processor (the AVX-512 IFMA kernel of
src/network/forward_ifma.cpp, src/meson.build). This test disassembles the static library, member
by member, and the executables given (objdump -d), and fails on any instruction of an
extension beyond the x86-64 baseline (SSE2): VEX/EVEX (AVX, AVX2, FMA, AVX-512, F16C),
ymm/zmm/mask registers, SSE3/SSSE3/SSE4.x, POPCNT, LZCNT, BMI1/BMI2, ADX, MOVBE, AES,
PCLMUL, SHA, CMPXCHG16B, RDRAND/RDSEED, PREFETCHW.

Allowed: the members named with --kernel (the dispatched kernels: tests/simd_symbols_test.py
checks that their shared symbols hold no such code), and in an executable or shared library,
a function that is a local symbol there and that a kernel member defines as a local symbol
(the kernels themselves: a global or weak symbol of the same name, the baseline copy of a
template the x86-64-v3 copy of FFLAS instantiates too, is still checked), and the kernels'
entry points named with --entry (global; the x86-64-v3 FFLAS entry is compiled for v3
whole). `tzcnt` is allowed: GCC
emits `rep bsf` for __builtin_ctz at the baseline, which objdump prints as tzcnt and older
processors run as bsf (same result for non-zero input, the only one ctz defines).
--expect-kernel requires a flagged instruction inside the kernel members, so the test
shows it can see what it looks for (only where the kernel is built).

Usage: baseline_isa_test.py LIBRARY.a [EXECUTABLE_OR_SHARED_LIBRARY ...] [--kernel MEMBER.o ...]
       [--entry SYMBOL ...] [--expect-kernel]
"""
import re
import subprocess
import sys

# Instructions beyond SSE2, as objdump prints them (AT&T; a b/w/l/q size suffix is
# stripped before the lookup). Exact names, since SSE2 has near namesakes (andnpd, pextrw).
EXACT = {
    # SSE3
    "addsubpd", "addsubps", "haddpd", "haddps", "hsubpd", "hsubps", "lddqu", "movddup", "movshdup",
    "movsldup", "fisttp", "fisttpl", "fisttpll", "monitor", "mwait",
    # SSSE3
    "pabsb", "pabsw", "pabsd", "palignr", "phaddw", "phaddd", "phaddsw", "phsubw", "phsubd", "phsubsw",
    "pmaddubsw", "pmulhrsw", "pshufb", "psignb", "psignw", "psignd",
    # SSE4.1 / SSE4.2
    "blendpd", "blendps", "blendvpd", "blendvps", "dppd", "dpps", "extractps", "insertps", "movntdqa",
    "mpsadbw", "packusdw", "pblendvb", "pblendw", "pcmpeqq", "pextrb", "pextrd", "pextrq", "phminposuw",
    "pinsrb", "pinsrd", "pinsrq", "pmaxsb", "pmaxsd", "pmaxud", "pmaxuw", "pminsb", "pminsd", "pminud",
    "pminuw", "pmuldq", "pmulld", "ptest", "roundpd", "roundps", "roundsd", "roundss", "pcmpgtq",
    # POPCNT, LZCNT, BMI1, BMI2, ADX, MOVBE, CMPXCHG16B, RDRAND/RDSEED, PREFETCHW
    "popcnt", "lzcnt", "andn", "bextr", "blsi", "blsmsk", "blsr", "bzhi", "mulx", "pdep", "pext", "rorx",
    "sarx", "shlx", "shrx", "adcx", "adox", "movbe", "cmpxchg16b", "rdrand", "rdseed", "prefetchw",
}
# Families no SSE2 instruction's name begins with.
PREFIXES = ("pmovsx", "pmovzx", "aes", "sha1", "sha256", "pclmul", "crc32", "pcmpestr", "pcmpistr")
HEAD = re.compile(r"^([0-9a-f]+) <(.+)>:$")
MEMBER = re.compile(r"^(\S+):\s+file format ")
WIDE = re.compile(r"%[yz]mm|%k[0-7]")


def flagged(insn):
    mnemonic = insn.split()[0]
    if mnemonic in ("verr", "verw"):  # baseline system instructions that start with v
        return False
    return (mnemonic[0] in "vk" or mnemonic in EXACT or (mnemonic[-1] in "bwlq" and mnemonic[:-1] in EXACT)
            or mnemonic.startswith(PREFIXES) or WIDE.search(insn) is not None)


def scan(path):
    """Yields (member, function, address, instruction) for every instruction objdump prints."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], check=True, capture_output=True,
                         text=True).stdout
    member, function, address = path, None, None
    for line in dis.splitlines():
        m = MEMBER.match(line)
        if m:
            member, function = m.group(1), None
            continue
        m = HEAD.match(line)
        if m:
            address, function = int(m.group(1), 16), m.group(2)
            continue
        if "\t" not in line or function is None:
            continue
        insn = line.split("\t", 1)[1].strip()
        if insn:
            yield member, function, address, insn


def kernel_functions(library, kernels):
    """Local text symbols of the kernel members of the archive: the kernels themselves."""
    out = subprocess.run(["nm", "--defined-only", "-P", "-A", library], check=True, capture_output=True,
                         text=True).stdout
    names = set()
    for line in out.splitlines():
        where, _, rest = line.partition(": ")
        parts = rest.split()
        member = where[where.find("[") + 1:-1] if "[" in where else where
        if member in kernels and len(parts) >= 2 and parts[1] == "t":
            names.add(parts[0])
    return names


def local_functions(path):
    """(address, name) of the local text symbols of a linked file."""
    out = subprocess.run(["nm", "--defined-only", "-P", path], check=True, capture_output=True, text=True).stdout
    found = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "t":
            found.add((int(parts[2], 16), parts[0]))
    return found


def main(argv):
    kernels, entries, files, expect_kernel = set(), set(), [], False
    args = iter(argv)
    for a in args:
        if a == "--kernel":
            kernels.add(next(args))
        elif a == "--entry":
            entries.add(next(args))
        elif a == "--expect-kernel":
            expect_kernel = True
        else:
            files.append(a)
    if not files:
        print(__doc__)
        return 2
    library, executables = files[0], files[1:]
    allowed_functions = kernel_functions(library, kernels)
    bad, members, functions, seen_in_kernel = {}, set(), set(), 0
    for path in files:
        local = local_functions(path) if path != library else set()
        for member, function, address, insn in scan(path):
            members.add((path, member))
            functions.add((path, function))
            if not flagged(insn) or insn.split()[0] == "tzcnt":
                continue
            if path == library and member in kernels:
                seen_in_kernel += 1
            elif path != library and (function in entries or
                                      (function in allowed_functions and (address, function) in local)):
                continue
            else:
                bad.setdefault((path, member, function), insn)
    print(f"{len(members)} object(s), {len(functions)} function(s) disassembled; "
          f"kernels allowed: {', '.join(sorted(kernels)) or 'none'} "
          f"({len(allowed_functions)} kernel function(s), {seen_in_kernel} non-baseline instruction(s) in them)")
    status = 0
    if len(functions) < 100:
        print("FAIL: fewer than 100 functions disassembled: is this the library?")
        status = 1
    if expect_kernel and seen_in_kernel == 0:
        print("FAIL: --expect-kernel, but no non-baseline instruction in the kernel members: "
              "the test would not see one elsewhere either")
        status = 1
    for (path, member, function), insn in sorted(bad.items()):
        where = member if member == path else f"{path}({member})"
        print(f"FAIL: {where}: {function} contains '{insn}' (not baseline x86-64, outside the dispatched kernels)")
    return 1 if bad else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
