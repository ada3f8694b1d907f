#!/usr/bin/python3
"""The degree of a network's image: seprank variety against Macaulay2's numericalImageDegree;
and the image's equation: seprank equation against Macaulay2's exact elimination.

Issue 60, item 4. For each network below: `seprank variety` (exact mod p, three trials; wall
seconds and peak RSS of the whole process) and bench/peers/m2_variety_peer.py (Macaulay2's
NumericalImplicitization: monodromy and trace test over CC; the call's CPU seconds, and the
whole process's wall seconds), each cut at LIMIT seconds (600). Both degrees side by side,
with where they differ or the peer did not finish. Then, for the networks whose image is a
hypersurface of its span, `seprank equation` against bench/peers/m2_variety_peer.py
--equation (`ker` of the ring map over QQ: the implicit ideal by a Gröbner basis), each
cut at EQ_LIMIT seconds (300): degree and terms of the least equation side by side.
Writes bench/VARIETY_PEERS.md (the notes below the marker are kept).
Usage: bench/variety_peers.py [BUILD]   (LIMIT=600, EQ_LIMIT=300, ONLY=substring to run some
networks, PART=equation to rerun the second table only and keep the first from the file)
"""
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
SEPRANK = os.path.join(ROOT, BUILD, "tools", "seprank")
PEER = os.path.join(ROOT, "bench", "peers", "m2_variety_peer.py")
LIMIT = float(os.environ.get("LIMIT", "600"))
OUT = os.path.join(ROOT, "bench", "VARIETY_PEERS.md")
EQ_LIMIT = float(os.environ.get("EQ_LIMIT", "300"))

# hypersurfaces: (what, layers, tokens, dim)
EQUATIONS = [
    ("quadratic, d0 = 3, 2 units", "dense:width=2:power=2,dense:width=1:power=1", 1, 3),
    ("quadratic, d0 = 4, 3 units", "dense:width=3:power=2,dense:width=1:power=1", 1, 4),
    ("power (3,3,1), r = 3 (Aronhold)", "dense:width=3:power=3,dense:width=1:power=1", 1, 3),
    ("binary sextics, 3 sixth powers", "dense:width=3:power=6,dense:width=1:power=1", 1, 2),
    ("binary octics, 4 eighth powers", "dense:width=4:power=8,dense:width=1:power=1", 1, 2),
    ("quadratic, d0 = 5, 4 units", "dense:width=4:power=2,dense:width=1:power=1", 1, 5),
    ("ternary quartics, 5 fourth powers (Clebsch)", "dense:width=5:power=4,dense:width=1:power=1", 1, 3),
]

# (what, layers, tokens, dim, extra seprank options)
NETWORKS = [
    ("conv (2,2), r = 2", "conv,conv:power=1", 3, 1, []),
    ("conv (3,2), r = 2", "conv:filter=3,conv:power=1", 4, 1, []),
    ("conv (3,3), r = 2", "conv:filter=3,conv:filter=3:power=1", 5, 1, []),
    ("conv (2,2,2), r = 2", "conv,conv,conv:power=1", 4, 1, []),
    ("conv (2,2), r = 3", "conv:power=3,conv:power=1", 3, 1, []),
    ("quadratic, d0 = 3, 2 units", "dense:width=2:power=2,dense:width=1:power=1", 1, 3, []),
    ("quadratic, d0 = 4, 3 units", "dense:width=3:power=2,dense:width=1:power=1", 1, 4, ["--max-unknowns", "9"]),
    ("power (3,2,1), r = 3", "dense:width=2:power=3,dense:width=1:power=1", 1, 3, []),
    ("power (3,3,1), r = 3 (Aronhold)", "dense:width=3:power=3,dense:width=1:power=1", 1, 3, ["--max-unknowns", "9"]),
    ("conv (3,2,2), r = 2", "conv:filter=3,conv,conv:power=1", 5, 1, []),
    ("conv (2,2,2), r = 3", "conv:power=3,conv:power=3,conv:power=1", 4, 1, []),
    ("conv (2,2,2,2), r = 2", "conv,conv,conv,conv:power=1", 5, 1, []),
]


def timed(cmd, limit=None):
    """(stdout, wall seconds, peak MiB, exit code) of cmd under GNU time, cut at LIMIT."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, timeout=(limit or LIMIT) + 30)
    except subprocess.TimeoutExpired:
        return "", time.monotonic() - t0, 0.0, 124
    wall = time.monotonic() - t0
    kib = re.findall(r"^(\d+)$", p.stderr, re.M)
    return p.stdout, wall, (int(kib[-1]) / 1024 if kib else 0.0), p.returncode


def peer(args, limit):
    """Macaulay2's run: (its key-value lines, wall seconds, peak MiB, exit code), cut at limit."""
    pout, pwall, pmib, prc = timed(["timeout", str(limit), PEER, *args, str(limit)], limit)
    return dict(l.split(" ", 1) for l in pout.splitlines() if " " in l), pwall, pmib, prc


def unfinished(prc, limit, wall, cells):
    """(verdict, ratio, peer cells) of a Macaulay2 run that did not finish."""
    verdict = f"Macaulay2 did not finish in {limit:.0f} s" if prc == 124 else f"Macaulay2 failed (exit {prc})"
    ratio = f"> {limit / wall:.0f}×" if prc == 124 and wall > 0 else "–"
    return verdict, ratio, " | ".join(["–"] * cells)


def main():
    only = os.environ.get("ONLY", "")
    part = os.environ.get("PART", "")
    rows = []
    for what, layers, tokens, dim, extra in NETWORKS:
        if part == "equation":
            break
        if only and only not in what:
            continue
        out, wall, mib, rc = timed([SEPRANK, "variety", "--layers", layers, "--tokens", str(tokens), "--dim", str(dim), "--format", "json", *extra])
        ours = json.loads(out) if rc == 0 else {}
        deg = ours.get("degree") if ours.get("agreed") else None
        vals, pwall, pmib, prc = peer([layers, str(tokens), str(dim)], LIMIT)
        if prc == 0:
            pdeg, pcall = int(vals["degree"]), float(vals["call_seconds"])
            verdict = "agree" if deg == pdeg else f"**differ** (Macaulay2 {pdeg})"
            ratio = f"{pcall / wall:.1f}×" if wall > 0 else "–"
            cells = f"{pdeg} | {pcall:.2f} | {pwall:.2f} | {pmib:.0f}"
        else:
            verdict, ratio, cells = unfinished(prc, LIMIT, wall, 4)
        rows.append(f"| {what} | `{layers}` | {ours.get('dimension', '–')} | {deg if deg is not None else '–'} | "
                    f"{ours.get('gauge_fibre_points', '–')} | {wall:.2f} | {mib:.0f} | {cells} | {ratio} | {verdict} |")
        print(rows[-1], flush=True)
    eq_rows = []
    for what, layers, tokens, dim in EQUATIONS:
        if only and only not in what:
            continue
        out, wall, mib, rc = timed([SEPRANK, "equation", "--layers", layers, "--tokens", str(tokens), "--dim", str(dim), "--format", "json"], EQ_LIMIT)
        ours = json.loads(out) if rc == 0 else {}
        eq = ours.get("equation")
        terms = len(eq.replace(" - ", " + ").split(" + ")) if eq else 0
        vals, pwall, pmib, prc = peer(["--equation", layers, str(tokens), str(dim)], EQ_LIMIT)
        if prc == 0:
            pdeg, pterms, pcall = int(vals["equation_degree"]), int(vals["equation_terms"]), float(vals["call_seconds"])
            same = pdeg == ours.get("degree") and pterms == terms and vals["generators"] == "1"
            verdict = "agree" if same else f"**differ** (Macaulay2 {vals['generators']} generators, degree {pdeg}, {pterms} terms)"
            ratio = f"{pcall / wall:.1f}×" if wall > 0 else "–"
            cells = f"{pdeg} | {pterms} | {pcall:.2f} | {pwall:.2f} | {pmib:.0f}"
        else:
            verdict, ratio, cells = unfinished(prc, EQ_LIMIT, wall, 5)
        eq_rows.append(f"| {what} | `{layers}` | {ours.get('span_dimension', '–')} | {ours.get('degree') or '–'} | {terms} | {wall:.2f} | {mib:.0f} | "
                       f"{cells} | {ratio} | {verdict} |")
        print(eq_rows[-1], flush=True)
    notes = ""
    if os.path.exists(OUT):
        text = open(OUT).read()
        if "<!-- notes -->" in text:
            notes = text[text.index("<!-- notes -->"):]
    m2 = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "macaulay2"], capture_output=True, text=True).stdout or "?"
    head = f"""# The degree of the image: seprank variety against Macaulay2

`bench/variety_peers.py` on 2 cores, {time.strftime('%Y-%m-%d')}. seprank: `variety` (the section counted
on the slice with the smaller fibre, three trials mod 16-bit primes that must agree;
docs/variety.md), whole process: wall seconds and
peak MiB. Macaulay2 {m2}: `numericalImageDegree` of NumericalImplicitization (monodromy,
trace test, over CC) on the coefficients of the network's output built symbolically
(bench/peers/m2_variety_peer.py): the call's CPU seconds, and the whole process's wall
seconds (start-up and expansion included). Ratio: Macaulay2's call seconds / seprank's wall
seconds. Each cut at {LIMIT:.0f} s.

| network | layers | dim | seprank degree | settings per function | s | MiB | Macaulay2 degree | call s | wall s | MiB | ratio | |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
"""
    eq_head = f"""
## The image's equation: seprank equation against Macaulay2's elimination

For the networks whose image is a hypersurface of its span ({time.strftime('%Y-%m-%d')}, 2 cores). seprank: `equation` (the least
equation, found mod 62-bit primes, checked over Q and factored; docs/equation.md), whole
process. Macaulay2: `ker map(S, T, F)` over QQ from the coefficients' ring, the exact
implicit ideal by a Gröbner basis (bench/peers/m2_variety_peer.py --equation), the call's
CPU seconds and the whole process. Agree: one generator, of seprank's degree and number of
terms. Each cut at {EQ_LIMIT:.0f} s.

| network | layers | span | seprank degree | terms | s | MiB | Macaulay2 degree | terms | call s | wall s | MiB | ratio | |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
"""
    first = head + "\n".join(rows) + "\n"
    if part == "equation":  # the degree table as the file has it
        text = open(OUT).read()
        first = text[:min(i for i in (text.find("\n## The image's equation"), text.find("<!-- notes -->"), len(text)) if i >= 0)].rstrip("\n") + "\n"
    with open(OUT, "w") as fh:
        fh.write(first + eq_head + "\n".join(eq_rows) + "\n\n" + (notes or "<!-- notes -->\n## Notes (hand-written; kept when the table is regenerated)\n"))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
