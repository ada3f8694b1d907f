#!/usr/bin/python3
"""The degree of a network's image: seprank variety against Macaulay2's numericalImageDegree.

Issue 60, item 4. For each network below: `seprank variety` (exact mod p, three trials; wall
seconds and peak RSS of the whole process) and bench/peers/m2_variety_peer.py (Macaulay2's
NumericalImplicitization: monodromy and trace test over CC; the call's CPU seconds, and the
whole process's wall seconds), each cut at LIMIT seconds (600). Both degrees side by side,
with where they differ or the peer did not finish. Writes bench/VARIETY_PEERS.md (the notes
below the marker are kept).
Usage: bench/variety_peers.py [BUILD]   (LIMIT=600, ONLY=substring to run some networks)
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


def timed(cmd):
    """(stdout, wall seconds, peak MiB, exit code) of cmd under GNU time, cut at LIMIT."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, timeout=LIMIT + 30)
    except subprocess.TimeoutExpired:
        return "", time.monotonic() - t0, 0.0, 124
    wall = time.monotonic() - t0
    kib = re.findall(r"^(\d+)$", p.stderr, re.M)
    return p.stdout, wall, (int(kib[-1]) / 1024 if kib else 0.0), p.returncode


def main():
    only = os.environ.get("ONLY", "")
    rows = []
    for what, layers, tokens, dim, extra in NETWORKS:
        if only and only not in what:
            continue
        out, wall, mib, rc = timed([SEPRANK, "variety", "--layers", layers, "--tokens", str(tokens), "--dim", str(dim), "--format", "json", *extra])
        ours = json.loads(out) if rc == 0 else {}
        deg = ours.get("degree") if ours.get("agreed") else None
        pout, pwall, pmib, prc = timed(["timeout", str(LIMIT), PEER, layers, str(tokens), str(dim), str(LIMIT)])
        vals = dict(l.split(" ", 1) for l in pout.splitlines() if " " in l)
        if prc == 0:
            pdeg, pcall = int(vals["degree"]), float(vals["call_seconds"])
            verdict = "agree" if deg == pdeg else f"**differ** (Macaulay2 {pdeg})"
            ratio = f"{pcall / wall:.1f}×" if wall > 0 else "–"
            peer = f"{pdeg} | {pcall:.2f} | {pwall:.2f} | {pmib:.0f}"
        else:
            verdict = f"Macaulay2 did not finish in {LIMIT:.0f} s" if prc == 124 else f"Macaulay2 failed (exit {prc})"
            ratio = f"> {LIMIT / wall:.0f}×" if prc == 124 and wall > 0 else "–"
            peer = "– | – | – | –"
        rows.append(f"| {what} | `{layers}` | {ours.get('dimension', '–')} | {deg if deg is not None else '–'} | "
                    f"{ours.get('gauge_fibre_points', '–')} | {wall:.2f} | {mib:.0f} | {peer} | {ratio} | {verdict} |")
        print(rows[-1], flush=True)
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
    with open(OUT, "w") as fh:
        fh.write(head + "\n".join(rows) + "\n" + (notes or "<!-- notes -->\n## Notes (hand-written; kept when the table is regenerated)\n"))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
