"""Network specs: the Network type and the functions that build one (random integer
weights from a seed, or given exact weights), as the CLI's network options do
(docs/usage.md §1.4, weights JSON §1.5)."""

from __future__ import annotations

import json as _json
import os as _os
import re as _re
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _core
from ._boundary import FAMILIES, MATRIX_KEYS, _one_matrix, flag, given, integer, path_arg, records_given, seed_value, to_fraction, utf8_text, warn, weights_json


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

    def __reduce__(self) -> Any:
        # pickle and copy (multiprocessing's workers too): the weights JSON, exact, and the seed
        return (_network_from_state, (self.to_json(), self.seed))

    def __init__(self, core: Any, seed: Optional[int] = None) -> None:
        if not isinstance(core, _core.Network):
            raise ValueError(f"Network: made by attention(), hadamard(), fc(), power(), stack(), network() or "
                             f"from_weights(), not from {type(core).__name__}")
        self._net = core
        self.seed = seed

    @property
    def spec(self) -> Dict[str, Any]:
        """The network options as a dict, every default resolved (a stack: ``layers``
        lists every layer, ``depth`` is their number, ``repeat`` 1)."""
        return self._net.spec

    @property
    def degree(self) -> int:
        """The degree of f in the inputs, from the spec alone: d^L, for a stack the
        product of its layers' degrees: an upper bound of deg f (docs/degree.md)."""
        return int(self._net.output_degree())

    @property
    def parameters(self) -> int:
        """The number of weights (entries of every weight matrix), from the spec."""
        return int(self._net.parameters())

    @property
    def weight_degree(self) -> int:
        """D_L, the degree of f's coefficients as polynomials in the weights (D_L =
        d·D_{L−1} + m), from the spec."""
        return int(self._net.weight_degree())

    def to_json(self, indent: Optional[int] = None) -> str:
        """The weights JSON (docs/usage.md §1.5): what ``seprank … --weights FILE`` reads."""
        if indent is None:
            return self._net.to_json(-1)
        n = integer(indent, "indent")  # the binding names one above 64
        if n < 0:
            raise ValueError(f"indent {n}: expected 0..64, or None for one line")
        return self._net.to_json(n)

    def weights(self, numpy: bool = False) -> Dict[str, Any]:
        """The weights as a dict shaped like the weights JSON.

        Entries are ``Fraction``s; with ``numpy=True`` every matrix is a numpy array,
        of dtype int64 when all its entries are integers that fit, else of dtype
        object holding Fractions. ``from_weights(net.weights())`` is the same network.
        """
        numpy = flag(numpy, "numpy")
        data = _json.loads(self.to_json())

        def conv(obj: Any) -> Any:
            if isinstance(obj, dict):
                return {k: conv_matrix(v) if k in MATRIX_KEYS else
                        (conv_matrix(v) if _one_matrix(v) else [conv_matrix(m) for m in v]) if k == "W" else conv(v)
                        for k, v in obj.items()}  # "W": a power layer's one matrix, or hadamard's and fc's W_1..W_d
            if isinstance(obj, list):
                return [conv(x) for x in obj]
            return obj

        def conv_matrix(m: Any) -> Any:
            rows = [[to_fraction(x) for x in r] for r in m]
            if not numpy:
                return rows
            import numpy as np
            if all(x.denominator == 1 and -2**63 <= x.numerator < 2**63 for r in rows for x in r):
                return np.array([[int(x) for x in r] for r in rows], dtype=np.int64).reshape(len(rows), -1)
            return np.array(rows, dtype=object).reshape(len(rows), -1)

        return conv(data)

    def describe(self) -> str:
        """One line naming the architecture, as the CLI's text output heads it
        (``attention N=3 dx=2 H=1 da=2 L=2 (i=1, p=1)``)."""
        return self._net.describe()

    def __repr__(self) -> str:
        origin = f"seed={self.seed}" if self.seed is not None else "given weights"
        return f"<seprank.Network {self.describe()}, {origin}>"


# The architecture options of network() (and of a dict of network options).
FLAG_KEYS = ("residual", "free")
SPEC_KEYS = ("tokens", "dim", "depth", "heads", "head_dim", "block_degree", "width", "widths", "residual", "free",
             "embed_rank", "attention_rank", "position", "coordinate", "power", "layers", "repeat")


def widths_list(v: Any) -> List[int]:
    """widths as a list of ints: a sequence of integers, or the CLI's text "w1,w2,…"."""
    if isinstance(v, (bytes, bytearray)):
        raise ValueError(f"widths: expected a list of integers or the text 'w1,w2,…', got {v!r}")
    if isinstance(v, str):
        if not _re.fullmatch(r"[0-9]+(,[0-9]+)*", v):
            raise ValueError(f"widths: {v!r} is not a comma-separated list of integers (as --widths 4,2)")
        return [integer(int(x), "widths") for x in v.split(",")]
    try:
        items = list(v)
    except TypeError:
        raise ValueError(f"widths: expected a list of integers or the text 'w1,w2,…', got {v!r}") from None
    return [integer(x, "widths") for x in items]


def check_family(family: Any) -> str:
    """family when it names one (FAMILIES); else ValueError listing them."""
    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {', '.join(FAMILIES)}, got {family!r}")
    return family


def check_no_heads(family: str, **given: Any) -> None:
    """ValueError when heads or head_dim (``given``, None: not given) go to a family other
    than attention, even H = 1, the default (as the CLI's --heads); a stack's are its
    layers' (the library's words)."""
    if family != "attention":
        for name, v in given.items():
            if v is not None and family == "stack":
                raise ValueError(f"{name}={v!r} given to a stack: a stack's heads, head dim and attention rank are "
                                 "per layer (attention:heads=H:head-dim=da:rank=k)")
            if v is not None:
                raise ValueError(f"{name}={v!r} given to {family}: heads apply to attention only")


def spec_dict(family: str, **kw: Any) -> Dict[str, Any]:
    check_family(family)
    unknown = [k for k in kw if k not in SPEC_KEYS]
    if unknown:  # a misspelt option would otherwise be dropped and its default used
        raise ValueError(f"network options: unknown {', '.join(map(repr, unknown))}; expected family or one of "
                         f"{', '.join(SPEC_KEYS)}")
    spec: Dict[str, Any] = {"family": family}
    for k, v in kw.items():
        if v is None:
            continue
        if k == "widths":
            v = widths_list(v)
            if not v and kw.get("depth") != 0:  # as the CLI's --widths '': no default (a depth-0 spec lists none)
                raise ValueError("widths: an empty list; give one width per layer, or None for the family's default")
        elif k == "layers":  # SPEC text or a list of layer strings (family stack)
            if isinstance(v, str):
                v = utf8_text(v, "layers")
            elif isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                v = [utf8_text(x, "layers") for x in v]
            else:
                raise ValueError(f"layers: expected a SPEC text or a list of layer strings, got {v!r}")
        elif k in FLAG_KEYS:  # a flag is True or False (2 or "no" is not silently a flag)
            v = flag(v, k)
        else:  # a size: an int, never a bool (tokens=True is not N = 1)
            v = integer(v, k)
        spec[k] = v
    return spec


def spec_of_options(options: Dict[str, Any]) -> Dict[str, Any]:
    """The spec dict of a dict of network options, as :func:`network` reads the same
    options: the family is ``options["family"]``, else stack when ``layers`` or
    ``repeat`` is given, else attention; a stack without ``layers`` is of attention
    layers (``repeat`` copies). ``repeat`` or ``layers`` beside another family is a ValueError."""
    stacked = options.get("layers") is not None or options.get("repeat") is not None
    family = options.get("family", "stack" if stacked else "attention")
    if options.get("repeat") is not None and family != "stack":  # layers beside a family: the library's message, as the CLI's
        raise ValueError(f"repeat: the copies of a stack's layers (stack only, not {family})")
    # heads given to another family, H = 1 too, as network() and the CLI refuse them (a
    # spec of another family never holds them; a stack's attention rank is its layers' too)
    ranks = {"attention_rank": options.get("attention_rank")} if family == "stack" else {}
    check_no_heads(check_family(family), heads=options.get("heads"), head_dim=options.get("head_dim"), **ranks)
    kw = {k: v for k, v in options.items() if k != "family"}
    if family == "stack" and kw.get("layers") is None:
        kw["layers"] = "attention"  # stack()'s default, as network(family="stack") draws
    return spec_dict(family, **kw)


@records_given
def network(family: Optional[str] = None, *, tokens: Optional[int] = None, dim: Optional[int] = None,
            depth: Optional[int] = None, heads: Optional[int] = None, head_dim: Optional[int] = None,
            block_degree: Optional[int] = None, width: Optional[int] = None,
            widths: Optional[Sequence[int]] = None, residual: Optional[bool] = None, free: Optional[bool] = None,
            embed_rank: Optional[int] = None, attention_rank: Optional[int] = None, position: Optional[int] = None,
            coordinate: Optional[int] = None, seed: int = 1, weight_range: int = 5,
            weights: Any = None, embedding: Any = None, power: Optional[int] = None,
            layers: Any = None, repeat: Any = None) -> Network:
    """A network of any family; the options are those of the CLI (docs/usage.md §1.4).

    Without ``weights``: integer weights uniform on [−weight_range, weight_range] drawn
    from ``seed`` exactly as ``seprank … --seed S --weight-range R`` draws them; an option
    left at None takes the CLI's default (tokens 4 — power: 1 —, dim 2, depth 1 — power:
    the number of widths —, heads 1, block degree 3, head_dim dx/H, width dx, widths N·dx,
    no embedding, position and coordinate 1). ``family`` is one of attention, hadamard,
    fc, power, or stack (``layers`` and ``repeat`` as :func:`stack`'s layers and depth; the
    spec's ``depth`` counts the layers); a power network's degree is ``power`` (or
    ``block_degree``), so that ``network(**net.spec)`` draws the same architecture again,
    a stack's included. Left out, the family is attention, or stack when ``layers`` or
    ``repeat`` is given; ``layers`` beside any family given other than stack (attention
    too) is a ValueError, as on the command line.
    With ``weights``: either a list of L layer dicts (attention: ``{"heads": [{"Q", "K",
    "V", "O"}, …]}``; hadamard: ``{"W": [W_1..W_d], "O": O}``; fc: ``{"W": [W_1..W_d]}``)
    or a whole dict shaped like the weights JSON; matrices may be numpy arrays, nested
    lists, Fractions or "p/q" strings. ``embedding`` is the dx×r matrix M (x^j = M w^j).
    Every size the matrices determine and that is not given is read from them (depth =
    number of layers, dim, heads, head_dim, block_degree, width, widths, embed_rank;
    docs/usage.md §1.5); tokens cannot be (default 4). An option given here that a
    weights dict also holds must agree with it, and every given size must agree with
    the matrices (ValueError naming both values, or the matrix and its expected shape).
    """
    if (layers is not None or repeat is not None) and family not in (None, "stack"):
        raise ValueError(f"layers: a stack's SPEC, but family {family!r} was given (a stack's family is 'stack')")
    if family == "stack" or layers is not None or repeat is not None:  # a stack's spec: as stack() builds it
        for name, v in (("heads", heads), ("head_dim", head_dim), ("block_degree", block_degree), ("width", width),
                        ("widths", widths), ("free", free), ("attention_rank", attention_rank), ("power", power),
                        ("embedding", embedding)):
            if v is not None:
                raise ValueError(f"{name}: a stack's layers carry their own (a SPEC word: docs/network.md), got {v!r}")
        if residual:
            raise ValueError("residual: a stack's layers carry it (attention:residual, mlp:residual), not the stack")
        if layers == "" and depth is not None and integer(depth, "depth") == 0:
            repeat = 0  # no layers, as stack(depth=0).spec writes them
        net = stack.__wrapped__(tokens, dim, layers, depth=repeat, position=position, coordinate=coordinate, seed=seed,
                                weight_range=weight_range, weights=weights, embed_rank=embed_rank)
        if depth is not None and integer(depth, "depth") != net.spec["depth"]:
            raise ValueError(f"depth: {depth} given, but the stack has {net.spec['depth']} layers (depth counts a stack's layers; repeat repeats them)")
        return net
    if family is not None:  # an unknown family is the reason, before its options; heads belong to attention
        check_no_heads(check_family(family), heads=heads, head_dim=head_dim)
    net = _network("attention" if family is None else family, tokens=tokens, dim=dim, depth=depth, heads=heads, head_dim=head_dim,
                   block_degree=block_degree, width=width, widths=widths, residual=residual, free=free,
                   embed_rank=embed_rank, attention_rank=attention_rank, position=position,
                   coordinate=coordinate, seed=seed, weight_range=weight_range, weights=weights,
                   embedding=embedding, power=power)
    _warn_unused(net, {"free": free, "power": power})
    return net


def _warn_unused(net: Network, given: Dict[str, Any]) -> None:
    """A UserWarning, as the CLI's note, for each field the network never reads (a
    one-layer power network's power; a stack layer's, under "layers") that the caller gave
    (``given``: keyword -> value, None when not given)."""
    for field, reason in net._net.unused_fields():
        if given.get(field) is not None:
            text = f"layers: {reason}" if field == "layers" else f"{field}={given[field]!r} is ignored: {reason}"
            warn(text)


def _check_unused_draw(seed: Any, weight_range: Any) -> None:
    """With weights given nothing is drawn: ``seed`` and ``weight_range`` are still checked
    (an invalid one refused, as the CLI's --weight-range), and a value other than the
    given (written in the user's call, or other than the default) is a UserWarning saying
    it is not used, as the CLI's note."""
    if seed is not None:  # None: a given network's own seed (Network.seed), passed back
        seed_value(seed)
    if integer(weight_range, "weight_range") < 1:
        raise ValueError(f"weight_range: {weight_range} must be at least 1")
    for name, v, default in (("seed", seed, 1), ("weight_range", weight_range, 5)):
        if v is not None and given(name, v, default):
            warn(f"{name}={v!r} is ignored: weights= gives the network")


def _network(family: str, *, tokens: Optional[int], dim: Optional[int], depth: Optional[int], heads: Optional[int],
             head_dim: Optional[int], block_degree: Optional[int], width: Optional[int], widths: Optional[Sequence[int]],
             residual: Optional[bool], free: Optional[bool], embed_rank: Optional[int], attention_rank: Optional[int],
             position: Optional[int], coordinate: Optional[int], seed: int, weight_range: int, weights: Any,
             embedding: Any, power: Optional[int]) -> Network:
    """network()'s work: the spec checked and resolved, then drawn or read."""
    spec = spec_dict(family, tokens=tokens, dim=dim, depth=depth, heads=heads, head_dim=head_dim,
                 block_degree=block_degree, power=power, width=width, widths=widths, residual=residual, free=free,
                 embed_rank=embed_rank, attention_rank=attention_rank, position=position,
                 coordinate=coordinate)
    traits = _core.family_traits(family)
    # block_degree and power by the library's rule (the CLI's): power only for family power,
    # block_degree not for it; the degree then under the family's own key (power: "power").
    degree = _core.resolve_block_degree(family, spec.pop("block_degree", None), spec.pop("power", None))
    if degree is not None:
        spec[traits["degree_key"] or "block_degree"] = degree
    if weights is None:
        if embedding is not None:
            raise ValueError("embedding: given without weights; pass the layers as weights=… too")
        return Network(_core.random_network(spec, seed_value(seed), integer(weight_range, "weight_range")), seed)
    _check_unused_draw(seed, weight_range)
    # 0 is the spec's "none" for these (no embedding, no rank cap, the default size);
    # the weights JSON leaves such keys out.
    spec = {k: v for k, v in spec.items() if not (k in ("embed_rank", "attention_rank", "width", "head_dim") and v == 0)}
    if isinstance(weights, dict):
        data = dict(weights)
        for k, v in spec.items():
            held = list(data[k]) if k == "widths" and k in data and not isinstance(data[k], str) else data.get(k)
            if k in data and held != v:
                raise ValueError(f"{k}: given as {v!r}, but weights[{k!r}] is {data[k]!r}")
            data[k] = v
    elif isinstance(weights, (list, tuple)):
        data = dict(spec, layers=list(weights))
    else:
        raise ValueError(f"weights: expected a list of layer dicts or a dict shaped like the weights JSON, got {type(weights).__name__}")
    data.setdefault("tokens", traits["default_tokens"])  # the one size the weights cannot say
    if embedding is not None:
        if "embedding" in data:
            raise ValueError("embedding: given twice, as embedding=… and as weights['embedding']")
        data["embedding"] = embedding
    return from_weights(data)


@records_given
def attention(tokens: Optional[int] = None, dim: Optional[int] = None, heads: Optional[int] = None,
              depth: Optional[int] = None, *, head_dim: Optional[int] = None, residual: Optional[bool] = None,
              embed_rank: Optional[int] = None, attention_rank: Optional[int] = None, position: Optional[int] = None,
              coordinate: Optional[int] = None, seed: int = 1, weight_range: int = 5, weights: Any = None,
              embedding: Any = None) -> Network:
    """Linear (softmax-free) attention, L layers of H heads (Levine et al. 2020, eq. 7.6).

    y^{l+1,i} = Σ_h W^O_h Σ_j <W^Q_h y^{l,i}, W^K_h y^{l,j}> W^V_h y^{l,j}, with
    W^Q, W^K, W^V ∈ Q^{da×dx} and W^O ∈ Q^{dx×da} (da = head_dim, default dx/H).
    Output degree 3^L; weight degree D_L = 3·D_{L−1} + 4. ``attention_rank`` k caps
    rank(W^Qᵀ W^K) (rows k+1..da of W^Q are zero). Defaults (None): tokens 4, dim 2,
    heads 1, depth 1, or with ``weights`` what the matrices say; see :func:`network`.
    """
    return network.__wrapped__("attention", tokens=tokens, dim=dim, heads=heads, depth=depth, head_dim=head_dim,
                               residual=residual, embed_rank=embed_rank, attention_rank=attention_rank,
                               position=position, coordinate=coordinate, seed=seed, weight_range=weight_range,
                               weights=weights, embedding=embedding)


@records_given
def hadamard(tokens: Optional[int] = None, dim: Optional[int] = None, depth: Optional[int] = None,
             block_degree: Optional[int] = None, *, width: Optional[int] = None, free: Optional[bool] = None,
             residual: Optional[bool] = None, embed_rank: Optional[int] = None, position: Optional[int] = None,
             coordinate: Optional[int] = None, seed: int = 1, weight_range: int = 5, weights: Any = None,
             embedding: Any = None) -> Network:
    """Degree-d token-mixing blocks: y^{l+1,i} = W^O Σ_j (W_1 y^{l,i} ⊙ W_2 y^{l,j} ⊙ … ⊙ W_d y^{l,j}).

    W_k ∈ Q^{w×dx} (w = width, default dx), W^O ∈ Q^{dx×w}. ``free``: slots 2..d each sum
    over their own token. Output degree d^L; weight degree D_L = d·D_{L−1} + d + 1.
    Defaults (None): tokens 4, dim 2, depth 1, block_degree 3, width dx, or with
    ``weights`` what the matrices say; see :func:`network`.
    """
    return network.__wrapped__("hadamard", tokens=tokens, dim=dim, depth=depth, block_degree=block_degree,
                               width=width, free=free, residual=residual, embed_rank=embed_rank, position=position,
                               coordinate=coordinate, seed=seed, weight_range=weight_range, weights=weights,
                               embedding=embedding)


@records_given
def fc(tokens: Optional[int] = None, dim: Optional[int] = None, depth: Optional[int] = None,
       block_degree: Optional[int] = None, *, widths: Optional[Sequence[int]] = None, residual: Optional[bool] = None,
       embed_rank: Optional[int] = None, coordinate: Optional[int] = None, seed: int = 1, weight_range: int = 5, weights: Any = None,
       embedding: Any = None) -> Network:
    """Fully connected polynomial network: v^{l+1} = (W_1 v^l) ⊙ … ⊙ (W_d v^l), v^0 = (x^1,…,x^N).

    W_k ∈ Q^{w_{l+1}×w_l}, w_0 = N·dx, ``widths`` = (w_1..w_L) (default N·dx each).
    Output degree d^L; weight degree D_L = d·D_{L−1} + d. Defaults (None): tokens 4,
    dim 2, depth 1, block_degree 3, or with ``weights`` what the matrices say (dim =
    columns of the first W_1 / tokens); see :func:`network`.
    """
    return network.__wrapped__("fc", tokens=tokens, dim=dim, depth=depth, block_degree=block_degree, widths=widths,
                               residual=residual, embed_rank=embed_rank, coordinate=coordinate, seed=seed,
                               weight_range=weight_range, weights=weights, embedding=embedding)


@records_given
def power(dim: Optional[int] = None, widths: Optional[Sequence[int]] = None, power: Optional[int] = None, *,
          tokens: Optional[int] = None, coordinate: Optional[int] = None, seed: int = 1, weight_range: int = 5,
          weights: Any = None) -> Network:
    """Kileel–Trager–Bruna's power network, as ``--family power`` (docs/network.md).

    p(x) = W_h σ(W_{h−1} σ(… σ(W_1 x))), σ(t) = t^r entrywise, x ∈ Q^{d0} the N·dx token
    variables flattened, W_l ∈ Q^{d_l×d_{l−1}}, ``widths`` = (d_1..d_h) (required without
    ``weights``; the depth is their number), ``power`` = r (default 3). Output degree
    r^{h−1}; no residual, no embedding. Defaults (None): tokens 1 (so ``dim`` is d0),
    dim 2; with ``weights`` (layers ``{"W": W_l}``) what the matrices say.
    """
    return network.__wrapped__("power", tokens=tokens, dim=dim, widths=widths, power=power, coordinate=coordinate,
                               seed=seed, weight_range=weight_range, weights=weights)


def from_weights(data: Union[Dict[str, Any], str, bytes, "_os.PathLike[str]"]) -> Network:
    """A network from exact weights: a dict shaped like the weights JSON (docs/usage.md
    §1.5; matrices as numpy arrays, lists, Fractions, "p/q" strings or exactly converted
    floats), the JSON text itself, or a weights file as ``--weights FILE`` reads it (a
    path: os.PathLike, bytes, or a str not starting with ``{``). Errors name the JSON path of the first bad
    value."""
    if isinstance(data, (_os.PathLike, bytes)) or (isinstance(data, str) and not data.lstrip("\ufeff \t\r\n").startswith("{")):
        # read by the library, as --weights FILE: its checks (a directory, /dev/zero or a
        # file over the memory limit refused before or while reading) and its messages
        try:
            return Network(_core.network_from_file(path_arg(data, "weights")))
        except ValueError as e:
            if str(e).startswith("cannot open"):
                raise ValueError(f"weights: {e}; a str starting with '{{' is read as JSON text, a pathlib.Path always as a file") from None
            raise
    if isinstance(data, str):
        text = utf8_text(data, "weights")
    else:
        text = _json.dumps(weights_json(data, "weights"))
    return Network(_core.network_from_json(text))


def _network_from_state(text: str, seed: Optional[int]) -> Network:
    """A pickled Network: its weights JSON and its seed (Network.__reduce__)."""
    return Network(_core.network_from_json(text), seed)


def check_network(net: Any, name: str) -> None:
    """ValueError naming ``name`` unless net is a Network."""
    if not isinstance(net, Network):
        raise ValueError(f"{name}: expected a seprank.Network (from attention(), hadamard(), fc() or "
                         f"from_weights()), got {type(net).__name__}")


@records_given
def stack(tokens: Optional[int] = None, dim: Optional[int] = None, layers: Union[str, Sequence[str], None] = None, *,
          depth: Optional[int] = None, position: Optional[int] = None, coordinate: Optional[int] = None,
          seed: int = 1, weight_range: int = 5, weights: Any = None, embed_rank: Optional[int] = None) -> Network:
    """A stack of token layers of any kinds (docs/network.md, "Stacks"), as ``--layers``.

    ``layers`` is SPEC text (``"attention:score-degree=2,mlp:power=2"``) or a list of
    layer strings; ``depth`` repeats the list (default once). Kinds:
    ``attention[:heads=H][:head-dim=da][:score-degree=s][:rank=k][:residual]`` (degree
    2s+1), ``mlp[:power=r][:width=w][:residual]`` (per token W2 (W1 y)^r, degree r),
    ``hadamard[:degree=d][:width=w][:free][:residual]``. Without ``weights``: integer
    weights uniform on [−weight_range, weight_range] from ``seed``, as the CLI draws them;
    defaults (None): tokens 4, dim 2, layers "attention", position and coordinate 1, no
    embedding (``embed_rank`` r: the tokens are M w^i, M a drawn dx×r matrix, as
    ``--embed-rank``). Bad SPEC text: ValueError naming it.

    With ``weights`` (as :func:`attention` takes them): a list of layer dicts, each with
    its ``"kind"``, its keys (``score_degree``, ``head_dim``, ``power``, …: the SPEC's
    words with ``_``) and its matrices (attention ``heads`` [{Q, K, V, O}], mlp ``W1``,
    ``W2``, hadamard ``W`` [W_1..W_d], ``O``), or a whole dict shaped like the weights
    JSON (``net.weights()``). dim is read from the first matrix, tokens must be given
    (default 4). ``layers`` (repeated ``depth`` times), when given, must be the weights'
    layers: ValueError naming both otherwise, as ``--layers`` beside ``--weights`` does.
    """
    if weights is None:
        if layers is None:
            layers = "attention"
        if isinstance(layers, str):
            spec_layers: Any = utf8_text(layers, "layers")
        else:
            if isinstance(layers, (bytes, bytearray)) or not hasattr(layers, "__iter__"):
                raise ValueError(f"layers: expected SPEC text or a list of layer strings, got {layers!r}")
            items = list(layers)  # a list, tuple, generator or numpy array of strings
            if not all(isinstance(x, str) for x in items):
                raise ValueError(f"layers: expected SPEC text or a list of layer strings, got {items!r}")
            spec_layers = [utf8_text(str(x), "layers") for x in items]
            layers = items
        spec: Dict[str, Any] = {"family": "stack", "layers": spec_layers}
        for k, v in (("tokens", tokens), ("dim", dim), ("depth", depth), ("position", position), ("coordinate", coordinate),
                     ("embed_rank", embed_rank)):
            if v is not None:
                spec[k] = integer(v, k)
        net = Network(_core.random_network(spec, seed_value(seed), integer(weight_range, "weight_range")), seed)
        _warn_unused(net, {"layers": layers})
        return net
    if depth is not None and layers is None:
        raise ValueError("depth: the copies of layers; with weights the layers come from them: give layers=… too, or neither")
    _check_unused_draw(seed, weight_range)
    if isinstance(weights, dict):
        data = dict(weights)
        if data.get("family", "stack") != "stack":
            raise ValueError(f"weights['family'] is {data['family']!r}: stack() builds family stack "
                             f"(seprank.from_weights or seprank.{data['family']}(weights=…) build the others)")
    else:
        data = {"layers": list(weights)}
    data["family"] = "stack"
    for k, v in (("tokens", tokens), ("dim", dim), ("position", position), ("coordinate", coordinate), ("embed_rank", embed_rank)):
        if v is not None:
            v = integer(v, k)
            if k in data and data[k] != v:
                raise ValueError(f"{k}: given as {v!r}, but weights[{k!r}] is {data[k]!r}")
            data[k] = v
    data.setdefault("tokens", _core.family_traits("stack")["default_tokens"])  # the one size the weights cannot say
    net = from_weights(data)
    if layers is not None:
        # The SPEC repeated depth times, in the canonical form both networks' specs write.
        want = stack(tokens=net.spec["tokens"], dim=net.spec["dim"], layers=layers, depth=depth).spec["layers"]
        if want != net.spec["layers"]:
            raise ValueError(f"layers: given as {want!r}, but the weights' layers are {net.spec['layers']!r}")
    return net
