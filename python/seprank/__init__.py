"""seprank — exact degrees and separation ranks of polynomial networks, from Python.

The same library the ``seprank`` command line uses (libseprank, through the compiled
module ``seprank._core``): every number here is the number the CLI prints for the same
input. Walkthrough: docs/python.md; mathematics: docs/theory.md.

Networks (docs/theory.md §1), for tokens x^1..x^N in Q^dx:

* attention — y^{l+1,i} = Σ_h W^O_h Σ_j <W^Q_h y^{l,i}, W^K_h y^{l,j}> W^V_h y^{l,j}
  (block degree 3);
* hadamard — y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j});
* fc — v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l) on the flattened tokens.

The output f is coordinate p of position i after L layers: a polynomial of degree d^L in
the N·dx input variables x<j>_<c> (token j, coordinate c). For a partition (A, B) of the
token positions, the separation rank sep_(A,B)(f) is the least R with
f = Σ_{r≤R} g_r(x^A) h_r(x^B); it equals the rank of the coefficient flattening of f.

Honest numbers: weights are exact rationals. Integers, ``fractions.Fraction``, numpy
integer arrays and "p/q" strings are taken as they are; a Python or numpy float is
converted to the rational it denotes exactly (0.5 → 1/2, 0.1 →
3602879701896397/36028797018963968), never rounded; NaN and infinities are refused.
Every rank comes back as an :class:`Answer` whose ``kind`` says what it is: ``exact``
(certified over Q), ``modular-lower-bound`` or ``generic`` (with ``failure_bound``).

Errors: a bad argument raises ``ValueError`` naming the parameter; a request above a
stated size limit raises :class:`ResourceLimitError` (a ``MemoryError``), before any
work; a bug inside the library raises ``RuntimeError``. Long calls release the GIL, may
run in several threads at once, and stop with ``KeyboardInterrupt`` on Ctrl-C.
"""

from __future__ import annotations

import json as _json
import math as _math
import numbers as _numbers
import sys as _sys
from fractions import Fraction
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

from . import _core

__all__ = [
    "Answer", "Network", "Polynomial", "ResourceLimitError", "Claim",
    "attention", "hadamard", "fc", "network", "from_weights", "poly", "expand",
    "degree", "budget", "rank", "generic_rank", "spectrum", "Spectrum", "EpsRank", "table", "verify", "claims",
    "__version__",
]

__version__: str = _core.version
ResourceLimitError = _core.ResourceLimitError

_FAMILIES = ("attention", "hadamard", "fc")


# ----------------------------------------------------------------------------- numbers

def _exact(x: Any, where: str) -> Union[int, str]:
    """One weight as the weights JSON holds it: an int, or a "p/q" string; exact."""
    if isinstance(x, bool):
        raise ValueError(f"{where}: expected a number, got the bool {x!r}")
    if isinstance(x, _numbers.Integral):
        v = int(x)
        return v if -2**63 <= v < 2**63 else str(v)  # JSON numbers beyond 64 bits would be read as doubles
    if isinstance(x, Fraction):
        return _exact(x.numerator, where) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if isinstance(x, str):
        try:
            q = Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: expected an integer or a 'p/q' string, got {x!r}") from None
        if "." in x or "e" in x.lower():
            raise ValueError(f"{where}: decimal strings are not taken ({x!r}); write 'p/q' or pass a Fraction")
        return _exact(q, where)
    if isinstance(x, _numbers.Real):  # float, numpy floating: the rational it denotes
        f = float(x)
        if not _math.isfinite(f):
            raise ValueError(f"{where}: {x!r} is not a finite number")
        return _exact(Fraction(f), where)
    raise ValueError(f"{where}: expected an integer, a Fraction, a 'p/q' string or a float, got {type(x).__name__}")


def _matrix(m: Any, where: str) -> List[List[Union[int, str]]]:
    """A 2-D matrix (numpy array, nested lists/tuples) as rows of exact entries."""
    shape = getattr(m, "shape", None)
    if shape is not None and len(shape) != 2:
        raise ValueError(f"{where}: expected a 2-D matrix (rows × columns), got an array of shape {tuple(shape)}")
    if hasattr(m, "tolist"):
        m = m.tolist()
    if isinstance(m, (str, bytes)) or not isinstance(m, Sequence):
        raise ValueError(f"{where}: expected a 2-D matrix (a list of rows), got {type(m).__name__}")
    rows = []
    for i, r in enumerate(m):
        if isinstance(r, (str, bytes)) or not isinstance(r, Sequence):
            raise ValueError(f"{where}: expected a 2-D matrix, row {i} is {type(r).__name__}, not a list of numbers")
        rows.append([_exact(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)])
    width = {len(r) for r in rows}
    if len(width) > 1:
        raise ValueError(f"{where}: rows of different lengths {sorted(width)}; expected a rectangular matrix")
    return rows


_MATRIX_KEYS = ("Q", "K", "V", "O", "embedding")


def _weights_json(obj: Any, where: str) -> Any:
    """A dict/list shaped like the weights JSON with any exact entries → plain JSON values."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            w = f"{where}[{k!r}]"
            if k in _MATRIX_KEYS:
                out[k] = _matrix(v, w)
            elif k == "W":
                if hasattr(v, "shape") and len(v.shape) == 3:
                    v = list(v)
                if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
                    raise ValueError(f"{w}: expected a list of d matrices W_1..W_d")
                out[k] = [_matrix(m, f"{w}[{i}]") for i, m in enumerate(v)]
            elif k in ("layers", "heads") and isinstance(v, (list, tuple)):
                out[k] = [_weights_json(x, f"{w}[{i}]") for i, x in enumerate(v)]
            elif k == "widths":
                out[k] = [int(x) for x in v]
            elif hasattr(v, "item"):  # a numpy scalar
                out[k] = v.item()
            else:
                out[k] = v
        return out
    raise ValueError(f"{where}: expected a dict shaped like the weights JSON (docs/usage.md §1.5), got {type(obj).__name__}")


def _to_fraction(x: Union[int, str]) -> Fraction:
    return Fraction(x)


# ----------------------------------------------------------------------------- networks

class Network:
    """A network: its description and its exact rational weights.

    Build one with :func:`attention`, :func:`hadamard`, :func:`fc` (random integer
    weights from a seed, or your own exact weights) or :func:`from_weights`.

    Attributes: ``spec`` (dict of the network options, defaults resolved), ``seed``
    (the weights' seed, None for given weights). ``degree`` is d^L, ``parameters`` the
    number of weights, ``weight_degree`` D_L = d·D_{L−1} + m (the degree of f's
    coefficients in the weights), all exact integers.
    """

    __slots__ = ("_net", "seed")

    def __init__(self, core: Any, seed: Optional[int] = None) -> None:
        self._net = core
        self.seed = seed

    @property
    def spec(self) -> Dict[str, Any]:
        return self._net.spec

    @property
    def degree(self) -> int:
        return int(self._net.output_degree())

    @property
    def parameters(self) -> int:
        return int(self._net.parameters())

    @property
    def weight_degree(self) -> int:
        return int(self._net.weight_degree())

    def to_json(self, indent: Optional[int] = None) -> str:
        """The weights JSON (docs/usage.md §1.5): what ``seprank … --weights FILE`` reads."""
        return self._net.to_json(-1 if indent is None else indent)

    def weights(self, numpy: bool = False) -> Dict[str, Any]:
        """The weights as a dict shaped like the weights JSON.

        Entries are ``Fraction``s; with ``numpy=True`` every matrix is a numpy array,
        of dtype int64 when all its entries are integers that fit, else of dtype
        object holding Fractions. ``from_weights(net.weights())`` is the same network.
        """
        data = _json.loads(self.to_json())

        def conv(obj: Any) -> Any:
            if isinstance(obj, dict):
                return {k: conv_matrix(v) if k in _MATRIX_KEYS else
                        [conv_matrix(m) for m in v] if k == "W" else conv(v) for k, v in obj.items()}
            if isinstance(obj, list):
                return [conv(x) for x in obj]
            return obj

        def conv_matrix(m: Any) -> Any:
            rows = [[_to_fraction(x) for x in r] for r in m]
            if not numpy:
                return rows
            import numpy as np
            if all(x.denominator == 1 and -2**63 <= x.numerator < 2**63 for r in rows for x in r):
                return np.array([[int(x) for x in r] for r in rows], dtype=np.int64).reshape(len(rows), -1)
            return np.array(rows, dtype=object).reshape(len(rows), -1)

        return conv(data)

    def describe(self) -> str:
        return self._net.describe()

    def __repr__(self) -> str:
        origin = f"seed={self.seed}" if self.seed is not None else "given weights"
        return f"<seprank.Network {self.describe()}, {origin}>"


def _spec(family: str, **kw: Any) -> Dict[str, Any]:
    if family not in _FAMILIES:
        raise ValueError(f"family: expected one of {', '.join(_FAMILIES)}, got {family!r}")
    spec: Dict[str, Any] = {"family": family}
    for k, v in kw.items():
        if v is None:
            continue
        if k == "widths":
            v = [_int(x, "widths") for x in v]
        elif isinstance(v, bool):
            pass
        else:
            v = _int(v, k)
        spec[k] = v
    return spec


def _int(v: Any, name: str) -> int:
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        raise ValueError(f"{name}: expected an integer, got {v!r}")
    return int(v)


def network(family: str = "attention", *, tokens: int = 4, dim: int = 2, depth: int = 1,
            heads: Optional[int] = None, head_dim: Optional[int] = None,
            block_degree: Optional[int] = None, width: Optional[int] = None,
            widths: Optional[Sequence[int]] = None, residual: bool = False, free: bool = False,
            embed_rank: int = 0, attention_rank: Optional[int] = None, position: int = 1,
            coordinate: int = 1, seed: int = 1, weight_range: int = 5,
            weights: Any = None, embedding: Any = None) -> Network:
    """A network of any family; the options are those of the CLI (docs/usage.md §1.4).

    Without ``weights``: integer weights uniform on [−weight_range, weight_range] drawn
    from ``seed`` exactly as ``seprank … --seed S --weight-range R`` draws them.
    With ``weights``: either a list of L layer dicts (attention: ``{"heads": [{"Q", "K",
    "V", "O"}, …]}``; hadamard: ``{"W": [W_1..W_d], "O": O}``; fc: ``{"W": [W_1..W_d]}``)
    or a whole dict shaped like the weights JSON; matrices may be numpy arrays, nested
    lists, Fractions or "p/q" strings. ``embedding`` is the dx×r matrix M (x^j = M w^j).
    The shapes are checked (ValueError naming the matrix and the expected shape).
    """
    spec = _spec(family, tokens=tokens, dim=dim, depth=depth, heads=heads, head_dim=head_dim,
                 block_degree=block_degree, width=width, widths=widths, residual=residual, free=free,
                 embed_rank=embed_rank, attention_rank=attention_rank, position=position,
                 coordinate=coordinate)
    if weights is None:
        if embedding is not None:
            raise ValueError("embedding: given without weights; pass the layers as weights=… too")
        return Network(_core.random_network(spec, _int(seed, "seed"), _int(weight_range, "weight_range")), seed)
    # The weights JSON leaves out options at their "none" value (no embedding, no rank cap, …).
    spec = {k: v for k, v in spec.items()
            if not (k in ("embed_rank", "attention_rank", "free", "width", "residual") and not v)}
    if isinstance(weights, dict):
        data = dict(weights)
        for k, v in spec.items():
            data.setdefault(k, v)
    else:
        data = dict(spec, layers=list(weights))
    _infer_sizes(data)
    if embedding is not None:
        data["embedding"] = embedding
    return from_weights(data)


def _rows(m: Any) -> int:
    return int(m.shape[0]) if hasattr(m, "shape") else len(m)


def _infer_sizes(data: Dict[str, Any]) -> None:
    """Sizes the weights JSON needs that the matrices already say, when not given:
    attention head_dim (rows of Q), hadamard width (rows of W_1), fc widths (rows of each
    layer's W_1). Shapes are checked by the library afterwards."""
    try:
        layers = data.get("layers") or []
        if data.get("family") == "attention" and "head_dim" not in data and layers:
            da = _rows(layers[0]["heads"][0]["Q"])
            if da * int(data.get("heads", 1)) != int(data.get("dim", 0)):  # not the default dx/H
                data["head_dim"] = da
        if data.get("family") == "hadamard" and "width" not in data and layers:
            data["width"] = _rows(layers[0]["W"][0])
        if data.get("family") == "fc" and "widths" not in data:
            data["widths"] = [_rows(layer["W"][0]) for layer in layers]
    except (KeyError, IndexError, TypeError):
        pass  # malformed: the library's check names the problem


def attention(tokens: int = 4, dim: int = 2, heads: int = 1, depth: int = 1, *, head_dim: Optional[int] = None,
              residual: bool = False, embed_rank: int = 0, attention_rank: int = 0, position: int = 1,
              coordinate: int = 1, seed: int = 1, weight_range: int = 5, weights: Any = None,
              embedding: Any = None) -> Network:
    """Linear (softmax-free) attention, L layers of H heads (Levine et al. 2020, eq. 7.6).

    y^{l+1,i} = Σ_h W^O_h Σ_j <W^Q_h y^{l,i}, W^K_h y^{l,j}> W^V_h y^{l,j}, with
    W^Q, W^K, W^V ∈ Q^{da×dx} and W^O ∈ Q^{dx×da} (da = head_dim, default dx/H).
    Output degree 3^L; weight degree D_L = 3·D_{L−1} + 4. ``attention_rank`` k caps
    rank(W^Qᵀ W^K) (rows k+1..da of W^Q are zero). See :func:`network` for the rest.
    """
    return network("attention", tokens=tokens, dim=dim, heads=heads, depth=depth, head_dim=head_dim,
                   residual=residual, embed_rank=embed_rank, attention_rank=attention_rank,
                   position=position, coordinate=coordinate, seed=seed, weight_range=weight_range,
                   weights=weights, embedding=embedding)


def hadamard(tokens: int = 4, dim: int = 2, depth: int = 1, block_degree: int = 3, *, width: int = 0,
             free: bool = False, residual: bool = False, embed_rank: int = 0, position: int = 1,
             coordinate: int = 1, seed: int = 1, weight_range: int = 5, weights: Any = None,
             embedding: Any = None) -> Network:
    """Degree-d token-mixing blocks: y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j}).

    W_k ∈ Q^{w×dx} (w = width, default dx), W^O ∈ Q^{dx×w}. ``free``: slots 2..d each sum
    over their own token. Output degree d^L; weight degree D_L = d·D_{L−1} + d + 1.
    """
    return network("hadamard", tokens=tokens, dim=dim, depth=depth, block_degree=block_degree,
                   width=width, free=free, residual=residual, embed_rank=embed_rank, position=position,
                   coordinate=coordinate, seed=seed, weight_range=weight_range, weights=weights,
                   embedding=embedding)


def fc(tokens: int = 4, dim: int = 2, depth: int = 1, block_degree: int = 3, *,
       widths: Optional[Sequence[int]] = None, residual: bool = False, embed_rank: int = 0,
       coordinate: int = 1, seed: int = 1, weight_range: int = 5, weights: Any = None,
       embedding: Any = None) -> Network:
    """Fully connected polynomial network: v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l), v^0 = (x^1,…,x^N).

    W_k ∈ Q^{w_{l+1}×w_l}, w_0 = N·dx, ``widths`` = (w_1..w_L) (default N·dx each).
    Output degree d^L; weight degree D_L = d·D_{L−1} + d.
    """
    return network("fc", tokens=tokens, dim=dim, depth=depth, block_degree=block_degree, widths=widths,
                   residual=residual, embed_rank=embed_rank, coordinate=coordinate, seed=seed,
                   weight_range=weight_range, weights=weights, embedding=embedding)


def from_weights(data: Union[Dict[str, Any], str]) -> Network:
    """A network from exact weights: a dict shaped like the weights JSON (docs/usage.md
    §1.5; matrices as numpy arrays, lists, Fractions, "p/q" strings or exactly converted
    floats) or the JSON text itself. Errors name the JSON path of the first bad value."""
    if isinstance(data, str):
        text = data
    else:
        text = _json.dumps(_weights_json(data, "weights"))
    return Network(_core.network_from_json(text))


# ----------------------------------------------------------------------------- polynomials

class Polynomial:
    """An exact polynomial over Q in variables x<j>_<c> (token j, coordinate c).

    ``degree`` (total; −1 for 0), ``terms`` (non-zero terms), ``variables`` (names, in
    the order of the exponent tuples), ``homogeneous``; iterating gives
    (exponent tuple, Fraction) pairs in degrevlex order, leading term first; ``str``
    is the canonical text that :func:`poly` reads back; :meth:`to_sympy` needs SymPy.
    """

    __slots__ = ("_p",)

    def __init__(self, core: Any) -> None:
        self._p = core

    @property
    def degree(self) -> int:
        return self._p.degree()

    @property
    def terms(self) -> int:
        return self._p.terms()

    @property
    def variables(self) -> List[str]:
        return self._p.variables()

    @property
    def homogeneous(self) -> bool:
        return self._p.is_homogeneous()

    def __len__(self) -> int:
        return self.terms

    def __iter__(self) -> Iterator[Tuple[Tuple[int, ...], Fraction]]:
        for k in range(self.terms):
            exps, num, den = self._p.term(k)
            yield tuple(exps), Fraction(int(num), int(den))

    def __str__(self) -> str:
        return str(self._p)

    def __repr__(self) -> str:
        return f"<seprank.Polynomial degree {self.degree}, {self.terms} terms in {len(self.variables)} variables>"

    def to_dict(self) -> Dict[Tuple[int, ...], Fraction]:
        """{exponent tuple: coefficient}."""
        return dict(self)

    def to_sympy(self) -> Any:
        """The polynomial as a SymPy expression (exact rationals). Needs SymPy."""
        try:
            import sympy
        except ImportError:
            raise ImportError("to_sympy() needs SymPy (apt-get install python3-sympy)") from None
        xs = sympy.symbols(self.variables) if self.variables else ()
        if len(self.variables) == 1:
            xs = (xs,)
        expr = sympy.Integer(0)
        for exps, c in self:
            term = sympy.Rational(c.numerator, c.denominator)
            for x, e in zip(xs, exps):
                if e:
                    term *= x ** e
            expr += term
        return expr


def poly(text: str) -> Polynomial:
    """Parses a polynomial, e.g. ``"3/4*x1_2^3*x2_1 - x1_1 + 2"`` (docs/poly_io.md):
    + - * /, ^ with integer exponents, parentheses; division by constants only."""
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {type(text).__name__}")
    return Polynomial(_core.parse_poly(text))


def expand(net: Network, *, max_memory: float = 4 * 2**30, variant: str = "auto", product: str = "auto") -> Polynomial:
    """The network's output f as an exact polynomial over Q (FLINT's sparse arithmetic).

    Before any product, the size is bounded: at most C(n+D−1, n−1) terms (homogeneous,
    D = d^L, n input variables); when the estimated memory exceeds ``max_memory`` bytes
    this raises ResourceLimitError (rank with method='evaluation' never expands).
    ``variant``: 'auto' (default), 'layered' (the reference, every family) or 'moment'
    (attention: through the token moment matrix Σ_j x_j x_jᵀ, docs/expand.md); every
    variant gives the same polynomial. ``product``: how each product is formed, 'auto'
    (default), 'flint' (FLINT's heap, the reference), 'digits' or 'dense'
    (docs/poly.md#products); the polynomial is the same, only time and memory differ.
    An unknown name raises ValueError.
    """
    _check_network(net, "net")
    for name, value in (("variant", variant), ("product", product)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return Polynomial(_core.expand(net._net, float(max_memory), variant, product))


# ----------------------------------------------------------------------------- answers

class Answer:
    """One rank, with what it is: the fields of the library's RankAnswer.

    value (also ``rank``), kind ('exact' | 'modular-lower-bound' | 'generic' |
    'numerical'), failure_bound (0 for exact; a bound on the chance that the true value
    is larger; 1 when none is known), quantity ('sep' | 'grid' | 'matrix' | 'generic
    sep'), method, variant, field ('Q' | 'Z/p'), rows, cols, prime, primes_used,
    seconds, peak_mib, partition, degree (d^L, int), terms (None when f was not
    expanded), converged, evaluations, block_ranks, trials, trial_ranks, degenerate,
    set_size, weight_degree, bound_degree, note, label, certified.
    ``to_dict()`` gives the record with the CLI's JSON keys (docs/usage.md §1.8).
    """

    _FIELDS = ("value", "kind", "failure_bound", "quantity", "method", "variant", "field", "rows", "cols",
               "prime", "primes_used", "seconds", "peak_mib", "partition", "degree", "terms", "converged",
               "evaluations", "block_ranks", "trials", "trial_ranks", "degenerate", "set_size",
               "weight_degree", "bound_degree", "note", "label", "certified")

    def __init__(self, raw: Dict[str, Any]) -> None:
        object.__setattr__(self, "_record", _json.loads(raw["record"]))
        for k in self._FIELDS:
            v = raw.get(k)
            if k in ("degree", "weight_degree", "bound_degree"):
                v = int(v) if v else None
            elif k in ("terms",) and v is not None and v < 0:
                v = None
            elif k in ("prime", "set_size") and not v:
                v = None
            elif k in ("variant", "partition", "note") and v == "":
                v = None
            object.__setattr__(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Answer is read-only")

    @property
    def rank(self) -> int:
        return self.value  # type: ignore[attr-defined,no-any-return]

    def to_dict(self) -> Dict[str, Any]:
        """Every field under the CLI's JSON key (rank, kind, certified, label, bound,
        failure_bound to 3 significant digits, …), None where it does not apply."""
        return dict(self._record)

    def __repr__(self) -> str:
        d = self.__dict__
        parts = [f"{d['value']}", f"kind={d['kind']!r}"]
        if d["kind"] != "exact":
            parts.append(f"failure_bound={d['failure_bound']:.3g}")
        parts.append(f"method={d['method']!r}")
        for k in ("partition", "degree", "terms"):
            if d.get(k) is not None:
                parts.append(f"{k}={d[k]!r}")
        parts.append(f"shape={d['rows']}x{d['cols']}")
        return f"Answer({', '.join(parts)}, {d['seconds']:.3g} s)"


# ----------------------------------------------------------------------------- helpers

def _check_network(net: Any, name: str) -> None:
    if not isinstance(net, Network):
        raise ValueError(f"{name}: expected a seprank.Network (from attention(), hadamard(), fc() or "
                         f"from_weights()), got {type(net).__name__}")


def _partition(partition: Any) -> str:
    """'1,2|3,4', or two iterables of 1-based token positions; '' = balanced."""
    if partition is None:
        return ""
    if isinstance(partition, str):
        return partition
    try:
        a, b = partition
        return ",".join(str(_int(x, "partition")) for x in a) + "|" + ",".join(str(_int(x, "partition")) for x in b)
    except (TypeError, ValueError):
        raise ValueError("partition: expected 'A|B' such as '1,2|3,4', or two iterables of 1-based token "
                         f"positions such as ([1, 2], [3, 4]); got {partition!r}") from None


def _choice(value: str, name: str, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


# ----------------------------------------------------------------------------- degrees

def degree(net: Network, *, seed: Optional[int] = None, max_expand_bytes: float = 256 * 2**20) -> List[Dict[str, Any]]:
    """Degree growth per depth, measured, as ``seprank degree`` prints it.

    For each L = 1..depth (the first L layers): the degree measured along a random
    line t ↦ a + t·b mod p (a certified lower bound of deg f, exact when it equals the
    predicted d^L; a false low reading has probability ≤ d^L/p), the terms of the
    expansion when it is estimated below ``max_expand_bytes`` (else None),
    parameters and weight degree D_L.
    """
    _check_network(net, "net")
    s = net.seed if seed is None and net.seed is not None else (1 if seed is None else seed)
    rows = []
    for L in range(1, net.spec["depth"] + 1):
        sub = _core.truncate(net._net, L)
        measured, predicted, false_low = _core.measure_degree(sub, s)
        terms = None
        if _core.estimate_expansion_bytes(sub) <= max_expand_bytes:
            terms = _core.expand(sub, 0.0, "auto", "auto").terms()
        rows.append({"depth": L, "measured": measured, "predicted": int(predicted), "terms": terms,
                     "parameters": int(sub.parameters()), "weight_degree": int(sub.weight_degree()),
                     "false_low_bound": false_low})
    return rows


def budget(budget: int, degrees: Iterable[int] = (1, 2, 3, 4, 5, 6), *, family: str = "hadamard",
           tokens: int = 4, dim: int = 2, heads: Optional[int] = None, width: Optional[int] = None,
           residual: bool = False, seed: int = 1) -> Dict[str, Any]:
    """Fixed parameter budget B across block degrees d (``seprank degree --budget``).

    For each d: depth L = ⌊B / P(d)⌋ with P(d) the parameters of one layer, predicted
    d^L and measured degree, ln(d^L)/B next to h(d) = ln d / d. Returns
    {"rows": [...], "best_measured_d": d reaching the highest degree, "best_h_d": argmax h}.
    """
    spec = _spec(family, tokens=tokens, dim=dim, depth=1, block_degree=2, heads=heads, width=width,
                 residual=residual)
    rows, best_measured, best_h = _core.budget_comparison(spec, _int(budget, "budget"),
                                                         [_int(d, "degrees") for d in degrees], _int(seed, "seed"))
    for r in rows:
        for k in ("layer_params", "params_used", "predicted"):
            r[k] = int(r[k])
    return {"rows": rows, "best_measured_d": best_measured, "best_h_d": best_h}


# ----------------------------------------------------------------------------- ranks

def rank(target: Any, partition: Any = None, *, method: str = "flattening", field: str = "Q",
         seed: Optional[int] = None, templates: Any = 2, max_side: int = 4096, variant: str = "auto",
         max_memory: float = 4 * 2**30, threads: int = 2) -> Answer:
    """Separation rank sep_(A,B)(f) of a network or polynomial, or the rank of a matrix.

    ``target``: a Network, a Polynomial (variables x<j>_<c>, split by token j), or an
    integer matrix (2-D numpy array or nested lists). ``partition``: '1,2|3,4' or two
    iterables of token positions (default: balanced, 1..⌈N/2⌉ | rest).
    ``method``:

    * 'flattening' — expand f and rank its coefficient flattening C_(A,B)(f): exactly
      sep, certified over Q (``field='Q'``) or a modular lower bound (``field='p'``);
    * 'grid' — the matricization of the grid tensor on ``templates`` (M, or a list of
      template vectors): rank [[T]] ≤ sep (Claim 7.1), computed exactly;
    * 'evaluation' — E[s,t] = f(a_s, b_t) mod p grown until its rank stops growing
      (≤ ``max_side``; ``variant`` 'plain' | 'graded' | 'auto'): a certified lower bound
      of sep, equal to it except with probability ``failure_bound``; never expands.

    ``seed`` (default: the network's seed, else 1) picks primes, templates and points,
    as ``--seed`` does in the CLI. Matrices are ranked exactly over Q (certified) or
    mod one random prime (``field='p'``).
    """
    _choice(field, "field", ("Q", "p"))
    opts = {"method": _choice(method, "method", ("flattening", "grid", "evaluation")), "field": field,
            "max_side": _int(max_side, "max_side"), "variant": _choice(variant, "variant", ("auto", "plain", "graded")),
            "max_memory": float(max_memory), "threads": _int(threads, "threads")}
    net_seed = target.seed if isinstance(target, Network) else None
    opts["seed"] = _int(seed if seed is not None else (net_seed if net_seed is not None else 1), "seed")
    if isinstance(target, Network):
        tv = None
        if isinstance(templates, _numbers.Integral) and not isinstance(templates, bool):
            opts["templates"] = int(templates)
        else:
            tv = [[str(_exact(x, f"templates[{i}][{j}]")) for j, x in enumerate(row)]
                  for i, row in enumerate(_matrix(templates, "templates"))]
        return Answer(_core.rank_network(target._net, _partition(partition), opts, tv))
    if isinstance(target, Polynomial):
        return Answer(_core.rank_poly(target._p, _partition(partition), opts))
    if isinstance(target, str):
        raise ValueError("target: a string; parse it with seprank.poly(text) first")
    if partition is not None:
        raise ValueError("partition: not used when ranking a matrix")
    rows = _matrix(target, "target")
    for i, r in enumerate(rows):
        for j, x in enumerate(r):
            if not isinstance(x, int):
                raise ValueError(f"target[{i}][{j}]: a matrix is ranked over the integers; got {x!r}")
    cols = len(rows[0]) if rows else 0
    return Answer(_core.rank_matrix([[str(x) for x in r] for r in rows], cols, opts))


# ----------------------------------------------------------------------------- ε-separation spectrum

class EpsRank:
    """ε-sep(f) for one threshold: ``eps``; ``rank`` when decided (else None) and the
    range ``rank_low`` ≤ ε-sep ≤ ``rank_high`` (equal when decided); ``certified`` when
    the certified balls prove it."""

    __slots__ = ("eps", "rank", "rank_low", "rank_high", "certified")

    def __init__(self, d: Dict[str, Any]) -> None:
        self.eps = float(d["eps"])
        self.rank = d.get("rank")
        self.rank_low = d["rank"] if "rank" in d else d["rank_low"]
        self.rank_high = d["rank"] if "rank" in d else d["rank_high"]
        self.certified = bool(d["certified"])

    def to_dict(self) -> Dict[str, Any]:
        """The CLI's object: eps, rank (or rank_low/rank_high when undecided), certified."""
        if self.rank is not None:
            return {"eps": self.eps, "rank": self.rank, "certified": self.certified}
        return {"eps": self.eps, "rank_low": self.rank_low, "rank_high": self.rank_high, "certified": self.certified}

    def __repr__(self) -> str:
        r = f"rank={self.rank}" if self.rank is not None else f"rank in [{self.rank_low}, {self.rank_high}]"
        return f"EpsRank(eps={self.eps:g}, {r}, certified={self.certified})"


class Spectrum:
    """The singular spectrum of one flattening in orthonormal bases (library SpectrumResult).

    singular_values (floats, descending, the non-zero ones: ball midpoints), radii
    (certified: |σ_k − singular_values[k]| ≤ radii[k]; None on the fast path), radius
    (their maximum, or None), norm (‖f‖ as a float), norm_squared (‖f‖², exact, a
    Fraction), rank (number of non-zero σ = sep(f)), rank_certified, eps_ranks (a list
    of EpsRank), eps_absolute, certified, measure, method, precision, rows/cols (the
    coefficient flattening), basis_rows/basis_cols, partition, degree, terms, seconds,
    note. ``to_dict()`` gives the CLI's ``spectrum --format json`` object.
    """

    def __init__(self, record: Dict[str, Any]) -> None:
        self._record = record
        self.singular_values: List[float] = [float(x) for x in record["singular_values"]]
        radii = record.get("radii")
        self.radii: Optional[List[float]] = None if radii is None else [float(x) for x in radii]
        self.radius: Optional[float] = record.get("radius")
        self.norm: float = float(record["norm"])
        self.norm_squared: Fraction = Fraction(record["norm_squared"])
        self.eps_ranks: List[EpsRank] = [EpsRank(e) for e in record["eps_ranks"]]
        for k in ("rank", "rank_certified", "eps_absolute", "certified", "measure", "method", "precision",
                  "rows", "cols", "basis_rows", "basis_cols", "partition", "degree", "terms", "seconds", "note"):
            setattr(self, k, record.get(k))

    def to_dict(self) -> Dict[str, Any]:
        """Every field under the CLI's JSON key (docs/usage.md, ``seprank spectrum``)."""
        return _json.loads(_json.dumps(self._record))

    def __repr__(self) -> str:
        sv = ", ".join(f"{x:.6g}" for x in self.singular_values[:6]) + (", …" if len(self.singular_values) > 6 else "")
        rad = f", radius={self.radius:.2g}" if self.radius is not None else ""
        return (f"Spectrum([{sv}]{rad}, norm={self.norm:.6g}, rank={self.rank}, measure={self.measure!r}, "
                f"method={self.method!r}, eps_ranks={self.eps_ranks!r})")


def _eps_list(eps: Any) -> List[float]:
    if isinstance(eps, (int, float, _numbers.Real)) and not isinstance(eps, bool):
        eps = [eps]
    if isinstance(eps, str):
        raise ValueError(f"eps: expected a number or a sequence of numbers >= 0, got {eps!r}")
    out = []
    try:
        items = list(eps)
    except TypeError:
        raise ValueError(f"eps: expected a number or a sequence of numbers >= 0, got {eps!r}") from None
    for e in items:
        if isinstance(e, bool) or not isinstance(e, _numbers.Real) or not _math.isfinite(float(e)) or float(e) < 0:
            raise ValueError(f"eps: every threshold must be a finite number >= 0, got {e!r}")
        out.append(float(e))
    return out


def spectrum(target: Any, partition: Any = None, *, measure: str = "uniform", method: str = "certified",
             precision: int = 53, eps: Any = (), eps_absolute: bool = False, max_side: int = 4096,
             max_memory: float = 4 * 2**30, seed: Optional[int] = None, threads: int = 2) -> Spectrum:
    """Singular spectrum of the flattening of f in orthonormal bases, and ε-separation ranks.

    ``target``: a Network (its output is expanded) or a Polynomial; ``partition`` as in
    :func:`rank`. μ is a product measure: ``measure='uniform'`` (every coordinate uniform
    on [−1, 1]; orthonormal basis: products of normalised Legendre polynomials) or
    ``'gaussian'`` (standard normal; products of normalised probabilists' Hermite
    polynomials). Writing f = Σ_{J,L} M[J,L] P_J(x_A) Q_L(x_B) in the orthonormal product
    bases of the two sides (an exact change of basis over Q), the σ_k are the singular
    values of M, ‖f‖²_{L2(μ)} = Σ_k σ_k², and the best L2(μ) approximation of f by R
    separated terms has squared error Σ_{k>R} σ_k² (Eckart–Young), so

        ε-sep(f) = min{ R : Σ_{k>R} σ_k² ≤ ε² }        (ε relative: ε·‖f‖ in place of ε)

    for each ε in ``eps`` (relative to ‖f‖ unless ``eps_absolute``). ε = 0 gives the exact
    separation rank sep(f). ``method='certified'`` encloses every σ_k in a ball of stated
    radius (rigorous ball arithmetic at ``precision`` bits on the exact Gram matrix); a
    threshold the balls cannot decide is reported as a range rank_low..rank_high, never a
    guess. ``method='fast'`` is floating point at ``precision`` bits, without a bound.
    Same library call and numbers as ``seprank spectrum --format json``.
    """
    opts = {"measure": _choice(measure, "measure", ("uniform", "gaussian")),
            "method": _choice(method, "method", ("certified", "fast")),
            "precision": _int(precision, "precision"), "eps": _eps_list(eps),
            "max_side": _int(max_side, "max_side"), "max_memory": float(max_memory),
            "threads": _int(threads, "threads")}
    if not 2 <= opts["precision"] <= 4096:
        raise ValueError(f"precision: must be in 2..4096 bits, got {precision!r}")
    if opts["max_side"] < 1:
        raise ValueError(f"max_side: must be >= 1, got {max_side!r}")
    if not isinstance(eps_absolute, bool):
        raise ValueError(f"eps_absolute: expected True or False, got {eps_absolute!r}")
    opts["eps_absolute"] = eps_absolute
    net_seed = target.seed if isinstance(target, Network) else None
    opts["seed"] = _int(seed if seed is not None else (net_seed if net_seed is not None else 1), "seed")
    if isinstance(target, Network):
        text = _core.spectrum_network(target._net, _partition(partition), opts)
    elif isinstance(target, Polynomial):
        text = _core.spectrum_poly(target._p, _partition(partition), opts)
    elif isinstance(target, str):
        raise ValueError("target: a string; parse it with seprank.poly(text) first")
    else:
        raise ValueError(f"target: expected a seprank.Network or seprank.Polynomial, got {type(target).__name__}")
    return Spectrum(_json.loads(text))


def generic_rank(net: Any, partition: Any = None, *, trials: int = 2, seed: int = 1, method: str = "auto",
                 max_side: int = 4096, variant: str = "auto", threads: int = 2, start: int = 16,
                 growth: float = 1.25, store: Optional[str] = None, prime_bits: int = 62) -> Answer:
    """Generic separation rank R* of an architecture, with its failure probability.

    Each of ``trials`` draws sets every weight uniformly from S = Z/p (a random 62-bit
    prime) and ranks the flattening mod p (``method='flattening'``) or an evaluation
    matrix ('evaluation'; 'auto' picks flattening when the expansion is small). The
    maximum is a certified lower bound of R*, equal to it except with probability
    failure_bound = (m·D/|S|)^T (Schwartz–Zippel; m the matrix side, D the entries'
    degree in the drawn values). ``net``: a Network (only its architecture is used) or a
    dict of network options. ``start`` and ``growth``: the evaluation's first side and
    growth factor. ``store``: a folder for the graded evaluation's work units (created
    when missing): a run interrupted there resumes from its finished units, and several
    processes given the same folder share the work (docs/evaluation.md, "Block store").
    ``prime_bits``: bits of p, 20..62; with at most 52 bits the evaluation can use the AVX-512 IFMA
    kernel, and the failure bound grows accordingly.
    """
    if isinstance(net, Network):
        spec = net.spec
    elif isinstance(net, dict):
        spec = _spec(net.get("family", "attention"), **{k: v for k, v in net.items() if k != "family"})
    else:
        raise ValueError(f"net: expected a seprank.Network or a dict of network options, got {type(net).__name__}")
    opts = {"trials": _int(trials, "trials"), "seed": _int(seed, "seed"),
            "method": _choice(method, "method", ("auto", "flattening", "evaluation")),
            "max_side": _int(max_side, "max_side"), "variant": _choice(variant, "variant", ("auto", "plain", "graded")),
            "threads": _int(threads, "threads"), "start": _int(start, "start"),
            "prime_bits": _int(prime_bits, "prime_bits")}
    if not 20 <= opts["prime_bits"] <= 62:  # checked here too: the binding narrows it to a C++ int
        raise ValueError(f"prime bits = {opts['prime_bits']} outside 20..62")
    if isinstance(growth, bool) or not isinstance(growth, (int, float)):
        raise ValueError(f"growth: expected a number above 1, got {growth!r}")
    opts["growth"] = float(growth)
    if store is not None:
        if not isinstance(store, str) or not store:
            raise ValueError(f"store: expected a folder name, got {store!r}")
        opts["store"] = store
    return Answer(_core.generic_rank(spec, _partition(partition), opts))


# ----------------------------------------------------------------------------- tables

def _int_list(v: Any, name: str) -> List[int]:
    if isinstance(v, str):
        out: List[int] = []
        for item in v.split(","):
            lo, sep, hi = item.partition("..")
            try:
                out += list(range(int(lo), int(hi) + 1)) if sep else [int(item)]
            except ValueError:
                raise ValueError(f"{name}: expected integers or ranges such as '1..4,6', got {v!r}") from None
        return out
    if isinstance(v, _numbers.Integral):
        return [_int(v, name)]
    return [_int(x, name) for x in v]


def table(*, family: Any = None, tokens: Any = None, dim: Any = None, heads: Any = None, depth: Any = None,
          block_degree: Any = None, width: Any = None, residual: bool = False, budget: int = 0,
          partition: Any = None, trials: int = 1, seed: int = 1, method: str = "auto", max_side: int = 8192,
          variant: str = "auto", threads: int = 2, progress: bool = False, dataframe: Optional[bool] = None,
          eps: Any = (), measure: str = "uniform", eps_max_side: int = 4096) -> Any:
    """A sweep of generic ranks, one row per configuration (``seprank table``).

    Each option takes an int, a list, or a range text such as '1..4'; the sweep is their
    product for each family (invalid combinations are left out). With no sweep option,
    the default table (63 rows, 1–2 minutes). Rows carry the columns of docs/table.md
    (family … rank, label, method, failure_bound, log3_rank, Levine et al. bounds,
    status, seconds, peak_mib). Returns a list of dicts, or a pandas DataFrame when
    pandas is importable (``dataframe=None``) or asked for (``dataframe=True``).
    ``progress=True`` prints "[k/n] network" lines to stderr.
    ``eps`` (a number or a list, relative to ‖f‖) adds the ε-rank columns of ``seprank table
    --eps`` (eps, eps_ranks, eps_certified, eps_reason; docs/table.md) under ``measure``
    ('uniform' or 'gaussian'), for flattenings of side at most ``eps_max_side``.
    """
    custom = any(v is not None for v in (family, tokens, dim, heads, depth, block_degree, width)) or residual or budget
    sweeps = []
    if custom:
        sw: Dict[str, Any] = {"residual": bool(residual), "budget": _int(budget, "budget"),
                              "block_degrees": _int_list(block_degree, "block_degree") if block_degree is not None else [2]}
        if family is not None:
            fams = family.split(",") if isinstance(family, str) else list(family)
            sw["families"] = [_choice(f, "family", _FAMILIES) for f in fams]
        for key, v in (("tokens", tokens), ("dims", dim), ("heads", heads), ("depths", depth), ("widths", width)):
            if v is not None:
                sw[key] = _int_list(v, key)
        sweeps.append(sw)
    opts = {"partition": _partition(partition), "trials": _int(trials, "trials"), "seed": _int(seed, "seed"),
            "method": _choice(method, "method", ("auto", "flattening", "evaluation")),
            "max_side": _int(max_side, "max_side"), "variant": _choice(variant, "variant", ("auto", "plain", "graded")),
            "threads": _int(threads, "threads"), "eps": _eps_list(eps),
            "measure": _choice(measure, "measure", ("uniform", "gaussian")), "eps_max_side": _int(eps_max_side, "eps_max_side")}

    def show(k: int, n: int, what: str) -> None:
        print(f"[{k + 1}/{n}] {what}", file=_sys.stderr, flush=True)

    texts, _invalid = _core.table(sweeps, opts, show if progress else None)
    rows = [_json.loads(t) for t in texts]
    if dataframe is False:
        return rows
    try:
        import pandas
    except ImportError:
        if dataframe:
            raise ImportError("table(dataframe=True) needs pandas (apt-get install python3-pandas)") from None
        return rows
    return pandas.DataFrame(rows, columns=_core.table_columns(bool(opts["eps"])))


# ----------------------------------------------------------------------------- verification

class Claim:
    """The outcome of one claim of docs/theory.md §3: name, passed, detail, statement."""

    __slots__ = ("name", "passed", "detail", "statement")

    def __init__(self, name: str, passed: bool, detail: str, statement: str) -> None:
        self.name, self.passed, self.detail, self.statement = name, passed, detail, statement

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"<{'PASS' if self.passed else 'FAIL'} {self.name}: {self.detail}>"


def claims() -> Dict[str, str]:
    """Every claim ``verify`` checks, name → statement, in the order it runs them."""
    return {n: _core.claim_statement(n) for n in _core.claim_names()}


def verify(names: Any = None, *, seed: int = 1) -> List[Claim]:
    """Exact checks of the reference results (``seprank verify``): one Claim each."""
    if names is None:
        names = _core.claim_names()
    elif isinstance(names, str):
        names = [names]
    names = list(names)
    statements = [_core.claim_statement(n) for n in names]  # unknown names fail before any work
    return [Claim(*_core.run_claim(n, _int(seed, "seed")), s) for n, s in zip(names, statements)]
