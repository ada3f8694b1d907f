#!/usr/bin/python3
"""Singular peer: writes a Singular script for the task, runs `Singular -q`, prints one
JSON line. Same tasks as sympy_peer.py:

  singular_peer.py expand WEIGHTS.json
  singular_peer.py expand-assoc WEIGHTS.json   (last layer in seprank's associative order)
  singular_peer.py rank WEIGHTS.json       (balanced partition 1..ceil(N/2) | rest)
  singular_peer.py matrix MATRIX.mtx

The network is expanded in ring 0,(x(1..N*dx)),dp (coefficients in QQ) with Singular's
own matrix products (q = Q*y, scores = q^T*k, ...), as a Singular user would write it;
the flattening is coef() by the A-variables, coeffs() against the B-monomials, and
rank() over QQ.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import common  # noqa: E402


def mat(name, m):
    rows, cols = len(m), len(m[0])
    vals = ",".join(str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}" for row in m for v in row)
    return f"matrix {name}[{rows}][{cols}] = {vals};"


def network_script(net, task):
    n, dx = net["N"], net["dx"]
    s = [f"ring r = 0, (x(1..{n * dx})), dp;", "option(redSB);"]
    s.append(f"matrix Y[{dx}][{n}];")  # column j = token j
    s += [f"Y[{c + 1}, {j + 1}] = x({j * dx + c + 1});" for j in range(n) for c in range(dx)]
    i, p = net["i"], net["p"]
    for l, layer in enumerate(net["layers"]):
        last = l == len(net["layers"]) - 1
        s.append(f"matrix Z[{dx}][{1 if last else n}];")
        for h, w in enumerate(layer):
            pre = f"W{l}_{h}"
            s += [mat(pre + k, w[k]) for k in "QKVO"]
            yi = "Yi" if last else "Y"
            if last and h == 0:
                s.append(f"matrix Yi[{dx}][1];")
                s += [f"Yi[{c + 1}, 1] = Y[{c + 1}, {i}];" for c in range(dx)]
            if last and task == "expand-assoc":
                # seprank's own order: only row p of O V, and the fewer large products of
                # Σ_a q_a (Σ_j s_j k_ja) (da of them) or Σ_j s_j ⟨k_j, q⟩ (N of them)
                da = len(w["Q"])
                s.append(mat(pre + "Op", [w["O"][p - 1]]))
                s.append(f"matrix ov = {pre}Op * {pre}V;")
                s.append(f"matrix q = {pre}Q * Yi; matrix k = {pre}K * Y; matrix sj = ov * Y;")
                if n < da:
                    s.append("matrix t = transpose(k) * q; matrix g = sj * t;")
                else:
                    s.append("matrix z = k * transpose(sj); matrix g = transpose(q) * z;")
                s.append(f"Z[{p}, 1] = Z[{p}, 1] + g[1, 1];")
                s.append("kill q, k, sj, ov, g;")
                s.append("kill t;" if n < da else "kill z;")
                continue
            s.append(f"matrix q = {pre}Q * {yi}; matrix k = {pre}K * Y; matrix v = {pre}V * Y;")
            s.append("matrix S = transpose(q) * k;")       # scores: targets × tokens
            s.append(f"Z = Z + {pre}O * (v * transpose(S));")
            s.append("kill q, k, v, S;")
        s.append("kill Y; matrix Y = Z; kill Z;")
    s.append(f"poly f = Y[{p}, 1];")
    s.append('print("terms " + string(size(f)));')
    if task == "rank":
        a, _ = common.balanced(n)
        na = len(a) * dx
        pa = "*".join(f"x({v})" for v in range(1, na + 1))
        pb = "*".join(f"x({v})" for v in range(na + 1, n * dx + 1))
        s += [f"matrix CA = coef(f, {pa});", f"matrix CB = coef(f, {pb});",
              "ideal I; ideal K; int t;",
              "for (t = 1; t <= ncols(CA); t++) { I[t] = CA[2, t]; }",
              "for (t = 1; t <= ncols(CB); t++) { K[t] = CB[1, t]; }",
              "matrix M = coeffs(I, K);",
              'print("rows " + string(ncols(CA))); print("cols " + string(ncols(CB)));',
              'print("rank " + string(rank(M)));']
    s.append("quit;")
    return "\n".join(s) + "\n"


def matrix_script(path):
    m, n, entries = common.read_matrix_market(path)
    s = ["ring r = 0, (x), dp;", f"matrix M[{m}][{n}];"]
    s += [f"M[{i + 1}, {j + 1}] = {v};" for (i, j), v in entries.items()]
    s += ['print("rank " + string(rank(M)));', "quit;"]
    return "\n".join(s) + "\n"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("expand", "expand-assoc", "rank", "matrix"):
        common.die(__doc__)
    task, path = sys.argv[1], sys.argv[2]
    text = matrix_script(path) if task == "matrix" else network_script(common.load_attention(path), task)
    with tempfile.NamedTemporaryFile("w", suffix=".sing", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run(["Singular", "-q", "--no-warn", f.name], capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    res = {}
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] in ("terms", "rank", "rows", "cols"):
            res[parts[0]] = int(parts[1])
    if out.returncode != 0 or not res or "? error" in out.stdout + out.stderr:
        common.die(f"Singular failed ({out.returncode}): {out.stderr.strip()[:300]} {out.stdout.strip()[:300]}")
    print(json.dumps(res))


if __name__ == "__main__":
    main()
