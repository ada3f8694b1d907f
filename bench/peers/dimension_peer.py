#!/usr/bin/env python3
"""Floating-point peer for the functional dimension of seprank's attention family.

Built the way NeuroDim (Henry, Marchetti, Kohn, ICLR 2025) estimates a neuromanifold
dimension: draw random normal weights and S random normal inputs, stack the Jacobian
of the output(s) with respect to all parameters, and take its numerical rank by SVD.

Network (seprank's attention family, no normalisation, no residual):
    y^{0,j} = x^j in R^dx, j = 1..N
    y^{l+1,i} = sum_h W^O_h sum_j <W^Q_h y^{l,i}, W^K_h y^{l,j}> W^V_h y^{l,j}
    W^Q_h, W^K_h, W^V_h in R^{da x dx}, W^O_h in R^{dx x da}, da = dx / H.
Parameters, in order: layer by layer, head by head, Q, K, V, O, each row-major.
Output 'scalar': coordinate 1 of position 1 of the last layer.
Output 'all':    every position and coordinate of the last layer.

The Jacobian is analytic (reverse mode written out by hand over the layer formula,
vectorised over samples and output cotangents), in float64 (float32 with --dtype).

Two estimates are printed:
  rank, rank_1e8, rank_1e4        NeuroDim-like: plain Jacobian, SVD rank with the
                                  numpy.linalg.matrix_rank threshold (s_max*max(M,N)*eps),
                                  and with 1e-8 / 1e-4 relative thresholds.
  rank_stable, rank_stable_1e8/4  the same Jacobian up to positive row and column factors
                                  (activations rescaled per sample after every layer,
                                  then unit rows and unit columns): same exact rank,
                                  much better conditioned for depth >= 3.
Neither proves the generic rank (float can lose rank, or keep noise); where they
disagree with each other or across thresholds or seeds, trust neither.
`expected` is parameters minus obvious symmetries (seprank's rule, uncapped).

Usage:
    dimension_peer.py --tokens N --dim dx --heads H --depth L --output scalar|all --seed S
        [--oversample F] [--extra-rows K] [--dtype float64|float32] [--no-stable]
    dimension_peer.py --selftest
Prints one JSON line.
"""
import os

# Keep BLAS single-threaded unless the caller says otherwise (moderate CPU use).
for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import argparse
import json
import math
import sys
import time

import numpy as np


# ----------------------------------------------------------------------------------
# weights
# ----------------------------------------------------------------------------------

def param_count(dx, H, L):
    da = dx // H
    return L * H * 4 * da * dx


def unpack(theta, dx, H, L):
    """Parameter vector -> list of per-layer (Q, K, V, O) stacks, shapes (H,da,dx)x3, (H,dx,da)."""
    da = dx // H
    layers = []
    pos = 0
    for _ in range(L):
        Qs, Ks, Vs, Os = [], [], [], []
        for _ in range(H):
            for lst, shape in ((Qs, (da, dx)), (Ks, (da, dx)), (Vs, (da, dx)), (Os, (dx, da))):
                n = shape[0] * shape[1]
                lst.append(theta[pos:pos + n].reshape(shape))
                pos += n
        layers.append((np.stack(Qs), np.stack(Ks), np.stack(Vs), np.stack(Os)))
    assert pos == theta.size
    return layers


# ----------------------------------------------------------------------------------
# forward and reverse mode
# ----------------------------------------------------------------------------------

def forward(layers, X, keep=False, rescale=False):
    """X: (S, N, dx). Returns last-layer output (S, N, dx) and, if keep, the tape.

    rescale: after every layer divide each sample's activations by a constant c_s
    (their RMS, treated as a constant, not differentiated). The Jacobian computed
    from such a tape is the raw one with every row multiplied by a positive factor
    (one per sample), so its exact rank is unchanged, but nothing overflows and the
    rows no longer span dozens of decades."""
    Y = X
    tape = []
    for (Q, K, V, O) in layers:
        q = np.einsum("snx,hax->shna", Y, Q, optimize=True)
        k = np.einsum("snx,hax->shna", Y, K, optimize=True)
        v = np.einsum("snx,hax->shna", Y, V, optimize=True)
        A = np.matmul(q, np.swapaxes(k, -1, -2))          # (S,H,N,N), A[i,j] = q_i . k_j
        z = np.matmul(A, v)                                 # (S,H,N,da)
        Ynew = np.einsum("hxa,shia->six", O, z, optimize=True)
        if rescale:
            c = np.sqrt(np.mean(Ynew.reshape(Ynew.shape[0], -1) ** 2, axis=1))
            c[c == 0] = 1.0
            Ynew = Ynew / c[:, None, None]
        else:
            c = None
        if keep:
            tape.append((Y, q, k, v, A, z, c))
        Y = Ynew
    return Y, tape


def jacobian(layers, X, output, rescale=False):
    """Jacobian rows = (sample, output component), columns = parameters in file order.
    With rescale, row (s, .) is multiplied by a positive constant depending on s."""
    S, N, dx = X.shape
    _, tape = forward(layers, X, keep=True, rescale=rescale)
    # output cotangents G: (S, R, N, dx)
    if output == "scalar":
        R = 1
        G = np.zeros((S, 1, N, dx), dtype=X.dtype)
        G[:, 0, 0, 0] = 1.0
    else:
        R = N * dx
        G = np.broadcast_to(np.eye(R, dtype=X.dtype).reshape(1, R, N, dx), (S, R, N, dx)).copy()
    rows = S * R
    blocks = [None] * len(layers)
    for l in range(len(layers) - 1, -1, -1):
        Q, K, V, O = layers[l]
        Y, q, k, v, A, z, c = tape[l]
        H = Q.shape[0]
        if c is not None:
            G = G / c[:, None, None, None]
        # y_out[i] = sum_h O_h z_h[i]
        dO = np.einsum("srix,shia->srhxa", G, z, optimize=True)
        gz = np.einsum("srix,hxa->srhia", G, O, optimize=True)
        # z[i] = sum_j A[i,j] v[j]
        gA = np.matmul(gz, np.swapaxes(v, -1, -2)[:, None])           # (S,R,H,N,N)
        gv = np.matmul(np.swapaxes(A, -1, -2)[:, None], gz)           # (S,R,H,N,da)
        # A[i,j] = q[i] . k[j]
        gq = np.matmul(gA, k[:, None])                                 # (S,R,H,N,da)
        gk = np.matmul(np.swapaxes(gA, -1, -2), q[:, None])            # (S,R,H,N,da)
        dQ = np.einsum("srhia,six->srhax", gq, Y, optimize=True)
        dK = np.einsum("srhia,six->srhax", gk, Y, optimize=True)
        dV = np.einsum("srhia,six->srhax", gv, Y, optimize=True)
        cols = []
        for h in range(H):
            for d in (dQ, dK, dV, dO):
                cols.append(d[:, :, h].reshape(rows, -1))
        blocks[l] = np.concatenate(cols, axis=1)
        if l > 0:
            G = (np.einsum("srhia,hax->srix", gq, Q, optimize=True)
                 + np.einsum("srhia,hax->srix", gk, K, optimize=True)
                 + np.einsum("srhia,hax->srix", gv, V, optimize=True))
    return np.concatenate(blocks, axis=1)


def outputs_flat(layers, X, output):
    Y, _ = forward(layers, X)
    if output == "scalar":
        return Y[:, 0, 0].reshape(-1)
    return Y.reshape(-1)


# ----------------------------------------------------------------------------------
# rank
# ----------------------------------------------------------------------------------

def rank_report(J):
    M, P = J.shape
    s = np.linalg.svd(J, compute_uv=False)
    smax = s[0] if s.size else 0.0
    eps = np.finfo(J.dtype).eps
    tol_default = smax * max(M, P) * eps
    rank = int(np.sum(s > tol_default))
    r8 = int(np.sum(s > 1e-8 * smax))
    r4 = int(np.sum(s > 1e-4 * smax))
    rel = s / smax if smax > 0 else s
    # largest drop between consecutive singular values (log10), among the nonzero ones
    pos = rel > 0
    gap_index, gap_decades = None, None
    if np.count_nonzero(pos) >= 2:
        lr = np.log10(rel[pos])
        drops = lr[:-1] - lr[1:]
        g = int(np.argmax(drops))
        gap_index, gap_decades = g + 1, float(drops[g])   # gap between s[g] and s[g+1]
    gap_at_rank = None
    if 0 < rank < s.size and rel[rank] > 0:
        gap_at_rank = float(np.log10(rel[rank - 1] / rel[rank]))
    lo = max(0, rank - 4)
    hi = min(s.size, rank + 4)
    tail = [float("%.3e" % x) for x in rel[lo:hi]]
    return dict(rank=rank, rank_1e8=r8, rank_1e4=r4, tol_default_rel=float(max(M, P) * eps),
                singular_values_tail=tail, tail_from_index=lo,
                largest_gap_after=gap_index, largest_gap_decades=gap_decades,
                gap_at_rank_decades=gap_at_rank,
                sigma_max=float(smax), sigma_min_rel=float(rel[-1]) if s.size else None), s


def expected_dimension(dx, H, L, output):
    """Parameters minus the obvious symmetries, following the rule seprank documents for
    its `expected` value (docs/dimension.md), without the cap by the number of monomials.
    Per layer with input span n_in and output span n_out:
      A = W^Q^T W^K, rank a = min(da, n_in):        2 n_in a - a^2
      B = W^O W^V,   rank b = min(da, n_in, n_out):  (n_out + n_in) b - b^2
                     (scalar output, last layer: a vector, n_in)
      one rescaling A -> tA, B -> B/t per head: -1
      heads of full rank (da >= n_in): H (n_in^2 + n_B - H) instead
    minus n_next^2 (GL(n_next)) between consecutive layers. A comparison value only."""
    da = dx // H
    n_in = dx
    total = 0
    for l in range(L):
        last = l == L - 1
        scalar = last and output == "scalar"
        n_out = dx
        if da >= n_in:
            n_B = n_in if scalar else n_out * n_in
            total += H * (n_in * n_in + n_B - H)
        else:
            a = min(da, n_in)
            dimA = 2 * n_in * a - a * a
            if scalar:
                dimB = n_in
            else:
                b = min(da, n_in, n_out)
                dimB = (n_out + n_in) * b - b * b
            total += H * (dimA + dimB - 1)
        if not last:
            n_next = min(H * min(da, n_in), dx)
            total -= n_next * n_next
            n_in = n_next
    return total


def equilibrate(J):
    """Unit rows, then unit columns (zero rows/columns left alone): exact rank unchanged."""
    r = np.linalg.norm(J, axis=1, keepdims=True)
    r[r == 0] = 1.0
    J = J / r
    c = np.linalg.norm(J, axis=0, keepdims=True)
    c[c == 0] = 1.0
    return J / c


def run(N, dx, H, L, output, seed, extra_rows=8, oversample=1.0, stable=True,
        dtype="float64"):
    if dx % H:
        raise SystemExit("heads must divide dim")
    rng = np.random.default_rng(seed)
    P = param_count(dx, H, L)
    theta = rng.standard_normal(P)
    outs = 1 if output == "scalar" else N * dx
    S = -(-(int(math.ceil(oversample * P)) + extra_rows) // outs)
    X = rng.standard_normal((S, N, dx))
    # float32 reproduces NeuroDim's default (torch float32, matrix_rank with float32 eps);
    # the same draws are used, rounded
    theta = theta.astype(dtype)
    X = X.astype(dtype)
    layers = unpack(theta, dx, H, L)
    res = dict(tokens=N, dim=dx, heads=H, depth=L, output=output, seed=seed, dtype=dtype)
    t0 = time.perf_counter()
    # 1. NeuroDim-like: plain Jacobian at normal weights and normal inputs, plain SVD rank
    with np.errstate(over="ignore", invalid="ignore"):
        J = jacobian(layers, X, output)
    t1 = time.perf_counter()
    finite = bool(np.all(np.isfinite(J)))
    if finite:
        rep, _ = rank_report(J)
    else:
        rep = None
    t2 = time.perf_counter()
    res.update(params=P, rows=J.shape[0], samples=S)
    if rep is not None:
        rn = np.max(np.abs(J), axis=1)   # row size (max-abs: no overflow in squaring)
        res.update(rank=rep["rank"], rank_1e8=rep["rank_1e8"], rank_1e4=rep["rank_1e4"])
    else:
        rn = None
        res.update(rank=None, rank_1e8=None, rank_1e4=None, overflow=True)
    seconds_raw = t2 - t0
    # 2. stable: per-layer per-sample rescaling of activations, then unit rows and
    #    columns. Only positive row and column factors separate it from J.
    if stable:
        t3 = time.perf_counter()
        Js = equilibrate(jacobian(layers, X, output, rescale=True))
        st, _ = rank_report(Js)
        t4 = time.perf_counter()
        res.update(rank_stable=st["rank"], rank_stable_1e8=st["rank_1e8"],
                   rank_stable_1e4=st["rank_1e4"])
    res.update(seconds=round(seconds_raw, 3), seconds_jacobian=round(t1 - t0, 3),
               seconds_svd=round(t2 - t1, 3))
    if stable:
        res["seconds_stable"] = round(t4 - t3, 3)
    if rep is not None:
        res.update(singular_values_tail=rep["singular_values_tail"],
                   tail_from_index=rep["tail_from_index"],
                   largest_gap_after=rep["largest_gap_after"],
                   gap_at_rank_decades=None if rep["gap_at_rank_decades"] is None
                   else round(rep["gap_at_rank_decades"], 2),
                   largest_gap_decades=None if rep["largest_gap_decades"] is None
                   else round(rep["largest_gap_decades"], 2),
                   row_norm_range_decades=round(float(
                       np.log10(np.max(rn)) - np.log10(max(np.min(rn), 1e-300))), 2))
    if stable:
        res.update(stable_singular_values_tail=st["singular_values_tail"],
                   stable_tail_from_index=st["tail_from_index"],
                   stable_largest_gap_after=st["largest_gap_after"],
                   stable_gap_at_rank_decades=None if st["gap_at_rank_decades"] is None
                   else round(st["gap_at_rank_decades"], 2),
                   stable_largest_gap_decades=None if st["largest_gap_decades"] is None
                   else round(st["largest_gap_decades"], 2))
    res["expected"] = expected_dimension(dx, H, L, output)
    return res


# ----------------------------------------------------------------------------------
# self-test
# ----------------------------------------------------------------------------------

def naive_forward(layers, x):
    """Loop implementation straight from the formula, for one input x: (N, dx)."""
    Y = [x[j].copy() for j in range(x.shape[0])]
    for (Q, K, V, O) in layers:
        H = Q.shape[0]
        new = []
        for i in range(len(Y)):
            acc = np.zeros(O.shape[1])
            for h in range(H):
                inner = np.zeros(Q.shape[1])
                for j in range(len(Y)):
                    inner += float(np.dot(Q[h] @ Y[i], K[h] @ Y[j])) * (V[h] @ Y[j])
                acc += O[h] @ inner
            new.append(acc)
        Y = new
    return np.array(Y)


def selftest():
    ok = True
    report = []
    for (N, dx, H, L) in ((2, 2, 1, 2), (2, 2, 2, 2), (3, 4, 2, 2), (2, 3, 1, 3)):
        rng = np.random.default_rng(12345 + N + 10 * dx + 100 * H + 1000 * L)
        P = param_count(dx, H, L)
        theta = rng.standard_normal(P) * 0.7
        X = rng.standard_normal((3, N, dx)) * 0.7
        layers = unpack(theta, dx, H, L)
        # forward vs loop implementation
        Yv, _ = forward(layers, X)
        Yn = np.stack([naive_forward(layers, X[s]) for s in range(X.shape[0])])
        ferr = float(np.max(np.abs(Yv - Yn)) / max(1.0, np.max(np.abs(Yn))))
        for output in ("scalar", "all"):
            J = jacobian(layers, X, output)
            h = 1e-5
            Jfd = np.empty_like(J)
            for p in range(P):
                tp = theta.copy(); tp[p] += h
                tm = theta.copy(); tm[p] -= h
                Jfd[:, p] = (outputs_flat(unpack(tp, dx, H, L), X, output)
                             - outputs_flat(unpack(tm, dx, H, L), X, output)) / (2 * h)
            err = float(np.max(np.abs(J - Jfd)) / max(1.0, np.max(np.abs(J))))
            good = err < 1e-6 and ferr < 1e-12
            ok &= good
            report.append(dict(tokens=N, dim=dx, heads=H, depth=L, output=output,
                               jac_vs_central_fd=err, forward_vs_loop=ferr, ok=good))
    # the rescaled Jacobian differs from the raw one by a positive factor per row
    for (N, dx, H, L) in ((2, 2, 1, 3), (3, 4, 2, 2)):
        rng = np.random.default_rng(99 + L)
        P = param_count(dx, H, L)
        layers = unpack(rng.standard_normal(P), dx, H, L)
        X = rng.standard_normal((5, N, dx))
        for output in ("scalar", "all"):
            Jr = jacobian(layers, X, output)
            Js = jacobian(layers, X, output, rescale=True)
            nr = np.linalg.norm(Jr, axis=1, keepdims=True)
            ns = np.linalg.norm(Js, axis=1, keepdims=True)
            err = float(np.max(np.abs(Jr / nr - Js / ns)))
            good = err < 1e-10
            ok &= good
            report.append(dict(check="rescaled rows parallel to raw rows", tokens=N, dim=dx,
                               heads=H, depth=L, output=output, err=err, ok=good))
    # a known value: one layer, one head, output 'all' = 2 dx^2 - 1
    # (Henry-Marchetti-Kohn single-layer dimension d'd + a(2d-a) - 1 with a = d = d',
    # W^O W^V playing the role of their V)
    for dx in (2, 3):
        r = run(3, dx, 1, 1, "all", 7)
        good = r["rank"] == 2 * dx * dx - 1 and r["rank_stable"] == 2 * dx * dx - 1
        ok &= good
        report.append(dict(check="one layer one head all = 2dx^2-1", dim=dx, rank=r["rank"], ok=good))
    print(json.dumps(dict(selftest="pass" if ok else "FAIL", cases=report)))
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=2)
    ap.add_argument("--dim", type=int, default=2)
    ap.add_argument("--heads", type=int, default=1)
    ap.add_argument("--depth", type=int, default=1)
    ap.add_argument("--output", choices=("scalar", "all"), default="scalar")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--extra-rows", type=int, default=8,
                    help="rows beyond the parameter count (default 8)")
    ap.add_argument("--oversample", type=float, default=1.0,
                    help="rows >= oversample*params + extra-rows (default 1)")
    ap.add_argument("--no-stable", action="store_true",
                    help="skip the rescaled/equilibrated second estimate")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64",
                    help="arithmetic (float32 = NeuroDim's torch default)")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args(argv)
    if a.selftest:
        return selftest()
    res = run(a.tokens, a.dim, a.heads, a.depth, a.output, a.seed, a.extra_rows,
              a.oversample, not a.no_stable, a.dtype)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
