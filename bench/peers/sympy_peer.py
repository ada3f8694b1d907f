#!/usr/bin/python3
"""SymPy peer: expand an attention network, its exact flattening rank, or the exact rank
of an integer matrix. Prints one JSON line.

  sympy_peer.py expand WEIGHTS.json
  sympy_peer.py rank WEIGHTS.json [K]      (partition 1..K | rest; K = ceil(N/2) by default)
  sympy_peer.py matrix MATRIX.mtx

Uses SymPy's fastest exact tools a careful user would pick: sparse Poly arithmetic over ZZ
(QQ when a weight is a fraction) and DomainMatrix (sparse, over QQ) for ranks — not
expand() on expressions or Matrix.rank(), which are far slower.
"""
import json
import sys

from sympy import Poly, symbols, QQ, ZZ
from sympy.polys.matrices import DomainMatrix

sys.path.insert(0, __import__("os").path.dirname(__file__))
import common  # noqa: E402


def expand(path):
    net = common.load_attention(path)
    n, dx = net["N"], net["dx"]
    names = [f"x{j}_{c}" for j in range(1, n + 1) for c in range(1, dx + 1)]
    gens = symbols(names)
    frac = any(w.denominator != 1 for layer in net["layers"] for h in layer for k in "QKVO" for row in h[k] for w in row)
    dom = QQ if frac else ZZ
    xs = [[Poly(gens[j * dx + c], *gens, domain=dom) for c in range(dx)] for j in range(n)]
    f = common.attention_forward(net, xs, Poly(0, *gens, domain=dom))
    return net, f


def flatten_rank(net, f, k=None):
    a, _ = common.balanced(net["N"])
    if k is not None:
        a = list(range(1, k + 1))
    dx = net["dx"]
    na = len(a) * dx  # variables of tokens 1..|A| come first
    rows, cols, dod = {}, {}, {}
    for monom, c in f.terms():
        r = rows.setdefault(monom[:na], len(rows))
        k = cols.setdefault(monom[na:], len(cols))
        dod.setdefault(r, {})[k] = QQ(int(c.numerator), int(c.denominator)) if hasattr(c, "numerator") else QQ(c)
    if not dod:
        return 0, 0, 0
    m = DomainMatrix(dod, (len(rows), len(cols)), QQ)
    return m.rank(), len(rows), len(cols)


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("expand", "rank", "matrix") or (len(sys.argv) == 4 and sys.argv[1] != "rank"):
        common.die(__doc__)
    task, path = sys.argv[1], sys.argv[2]
    if task == "matrix":
        m, n, entries = common.read_matrix_market(path)
        dod = {}
        for (i, j), v in entries.items():
            dod.setdefault(i, {})[j] = QQ(v)
        print(json.dumps({"rank": DomainMatrix(dod, (m, n), QQ).rank() if dod else 0}))
        return
    net, f = expand(path)
    out = {"terms": len(f.terms()) if not f.is_zero else 0}
    if task == "rank":
        out["rank"], out["rows"], out["cols"] = flatten_rank(net, f, int(sys.argv[3]) if len(sys.argv) == 4 else None)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
