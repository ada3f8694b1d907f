#!/usr/bin/python3
"""Macaulay2's numerical image degree (NumericalImplicitization) of a network's image.

Usage: m2_variety_peer.py [--equation] LAYERS TOKENS DIM [LIMIT]
  LAYERS   a stack as seprank reads it, of `conv:filter=k:power=r` (stride 1) and
           `dense:width=w:power=r` layers only, e.g. 'conv,conv:power=1'
Builds the network's scalar output (token 1, coordinate 1) symbolically in Macaulay2 with
one variable per weight, takes the coefficients of its monomials in the inputs as the map's
coordinates over CC, and runs numericalImageDegree (monodromy and trace test) on it, as a
user of that package would. Prints `degree D`, `call_seconds S` (cpuTime of the call
alone), `setup_seconds S` (building and expanding the map); exit 124 past LIMIT seconds
(default 600), 1 when Macaulay2 fails.
With --equation: the exact implicit ideal instead, by elimination (`ker` of the ring map
from the coefficients' ring, a Gröbner basis over QQ), as a user of Macaulay2 would get the
image's equations: prints `generators G`, `equation_degree D` (the least degree of a
generator), `equation_terms T` (that generator's terms) and the seconds as above.
"""
import subprocess
import sys
import tempfile


def die(msg):
    print(f"{sys.argv[0]}: {msg}", file=sys.stderr)
    sys.exit(2)


def parse_layers(text):
    out = []
    for item in text.split(","):
        parts = item.split(":")
        kind, keys = parts[0], dict(p.split("=") for p in parts[1:])
        if kind == "conv":
            out.append(("conv", int(keys.get("filter", 2)), int(keys.get("power", 2))))
            if int(keys.get("stride", 1)) != 1:
                die("conv: stride 1 only")
        elif kind == "dense":
            out.append(("dense", int(keys.get("width", 0)), int(keys.get("power", 2))))
        else:
            die(f"layer kind {kind}: conv and dense only")
    return out


def network_expression(layers, tokens, dim):
    """The output's M2 expression and the weight count; tokens are lists of expressions."""
    w = 0

    def weight():
        nonlocal w
        w += 1
        return f"w_{w}"

    y = [[f"x_{t * dim + c + 1}" for c in range(dim)] for t in range(tokens)]
    for li, (kind, size, r) in enumerate(layers):
        last = li == len(layers) - 1
        if kind == "conv":
            k, width = size, len(y[0])
            mats = [[[weight() for _ in range(width)] for _ in range(width)] for _ in range(k)]
            new = []
            for i in range(len(y) - k + 1):
                if last and i > 0:
                    break  # the scalar output reads token 1 only
                tok = []
                for a in range(1 if last else width):
                    s = " + ".join(f"{mats[j][a][b]}*({y[i + j][b]})" for j in range(k) for b in range(width))
                    tok.append(f"({s})^{r}" if r > 1 else f"({s})")
                new.append(tok)
            y = new
        else:
            flat = [v for tok in y for v in tok]
            units = size if size > 0 else len(flat)
            tok = []
            for a in range(1 if last else units):
                s = " + ".join(f"{weight()}*({v})" for v in flat)
                tok.append(f"({s})^{r}" if r > 1 else f"({s})")
            y = [tok]
    return y[0][0], w


def main():
    args = sys.argv[1:]
    equation = bool(args) and args[0] == "--equation"
    if equation:
        args = args[1:]
    if len(args) < 3:
        die("usage: m2_variety_peer.py [--equation] LAYERS TOKENS DIM [LIMIT]")
    layers, tokens, dim = parse_layers(args[0]), int(args[1]), int(args[2])
    limit = float(args[3]) if len(args) > 3 else 600
    expr, P = network_expression(layers, tokens, dim)
    n = tokens * dim
    script = f"""needsPackage "NumericalImplicitization";
t0 = cpuTime();
R = QQ[w_1..w_{P}, x_1..x_{n}];
f = {expr};
(M, C) = coefficients(f, Variables => {{x_1..x_{n}}});
S = CC[w_1..w_{P}];
F = flatten entries sub(C, S);
t1 = cpuTime();
d = numericalImageDegree(F, ideal 0_S, Verbose => false);
t2 = cpuTime();
deg = if instance(d, ZZ) then d else d.imageDegree;
print("degree " | toString deg);
print("call_seconds " | toString(t2 - t1));
print("setup_seconds " | toString(t1 - t0));
"""
    keys = ("degree", "call_seconds", "setup_seconds")
    if equation:
        keys = ("generators", "equation_degree", "equation_terms", "call_seconds", "setup_seconds")
        script = f"""t0 = cpuTime();
R = QQ[w_1..w_{P}, x_1..x_{n}];
f = {expr};
(M, C) = coefficients(f, Variables => {{x_1..x_{n}}});
S = QQ[w_1..w_{P}];
F = flatten entries sub(C, S);
T = QQ[y_1..y_(#F)];
t1 = cpuTime();
I = ker map(S, T, F);
t2 = cpuTime();
G = flatten entries mingens I;
g = if #G == 0 then 0_T else first sort(G, p -> first degree p);
print("generators " | toString(#G));
print("equation_degree " | toString(if #G == 0 then -1 else first degree g));
print("equation_terms " | toString(if #G == 0 then 0 else #terms g));
print("call_seconds " | toString(t2 - t1));
print("setup_seconds " | toString(t1 - t0));
"""
    with tempfile.NamedTemporaryFile("w", suffix=".m2", delete=False) as fh:
        fh.write(script)
        path = fh.name
    try:
        run = subprocess.run(["M2", "--script", path], capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        print("timeout")
        sys.exit(124)
    lines = [l for l in run.stdout.splitlines() if l.split(" ")[0] in keys]
    if run.returncode != 0 or len(lines) != len(keys):
        print(run.stderr[-800:], file=sys.stderr)
        sys.exit(1)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
