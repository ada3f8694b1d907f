"""Shared by the peer scripts of bench/: seprank's weights JSON, partitions, Matrix Market.

Only what the benchmark workloads need: attention networks (docs/theory.md §1, attention) without
residual or embedding, read from the file `seprank ... --save-weights` writes, so that
every tool computes the same polynomial from the same exact weights.
"""
import json
import sys
from fractions import Fraction


def die(msg):
    print(f"{sys.argv[0]}: {msg}", file=sys.stderr)
    sys.exit(2)


def load_attention(path):
    w = json.load(open(path))
    if w.get("family") != "attention" or w.get("residual") or w.get("embed_rank"):
        die(f"{path}: only plain attention networks are supported by the peer scripts")

    def num(x):
        return Fraction(x) if isinstance(x, str) else Fraction(int(x))

    layers = [[{k: [[num(v) for v in row] for row in h[k]] for k in "QKVO"} for h in layer["heads"]]
              for layer in w["layers"]]
    return {"N": w["tokens"], "dx": w["dim"], "L": w["depth"], "i": w.get("position", 1),
            "p": w.get("coordinate", 1), "layers": layers}


def balanced(n):
    a = list(range(1, (n + 1) // 2 + 1))
    return a, [j for j in range(1, n + 1) if j not in a]


def attention_forward(net, xs, zero):
    """Forward pass over any ring whose elements support + and * by elements and by
    Fractions/ints: xs[j][c] are the input variables. Returns output (position i,
    coordinate p). The straightforward formula a researcher would write, with q, k, v
    computed once per token and only position i at the last layer."""
    n, dx = net["N"], net["dx"]
    y = [list(t) for t in xs]

    def lin(m, v):
        out = []
        for row in m:
            acc = zero
            for wgt, e in zip(row, v):
                if wgt:
                    acc = acc + e * (int(wgt) if wgt.denominator == 1 else wgt)
            out.append(acc)
        return out

    for l, layer in enumerate(net["layers"]):
        last = l == len(net["layers"]) - 1
        targets = [net["i"] - 1] if last else list(range(n))
        new = {t: [zero] * dx for t in targets}
        for h in layer:
            q = {t: lin(h["Q"], y[t]) for t in targets}
            k = [lin(h["K"], y[j]) for j in range(n)]
            v = [lin(h["V"], y[j]) for j in range(n)]
            for t in targets:
                att = [zero] * len(v[0])
                for j in range(n):
                    s = zero
                    for a, b in zip(q[t], k[j]):
                        s = s + a * b
                    att = [acc + s * vv for acc, vv in zip(att, v[j])]
                o = lin(h["O"], att)
                new[t] = [acc + e for acc, e in zip(new[t], o)]
        if last:
            return new[targets[0]][net["p"] - 1]
        y = [new[t] for t in range(n)]
    return y[net["i"] - 1][net["p"] - 1]


def read_matrix_market(path):
    """Integer Matrix Market (coordinate or array) -> (rows, cols, {(i, j): int}) 0-based."""
    with open(path) as f:
        header = f.readline().split()
        if len(header) != 5 or header[0].lower() != "%%matrixmarket" or header[3].lower() != "integer":
            die(f"{path}: not an integer Matrix Market file")
        lines = (ln for ln in f if ln.strip() and not ln.lstrip().startswith("%"))
        size = next(lines).split()
        m, n = int(size[0]), int(size[1])
        entries = {}
        if header[2].lower() == "coordinate":
            for _ in range(int(size[2])):
                i, j, v = next(lines).split()
                if int(v):
                    entries[(int(i) - 1, int(j) - 1)] = int(v)
        else:
            for j in range(n):
                for i in range(m):
                    v = int(next(lines))
                    if v:
                        entries[(i, j)] = v
    return m, n, entries
