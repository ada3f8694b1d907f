"""Functional dimension: the generic rank of the Jacobian of an architecture's parameter
map, and the expected dimension it is compared with (docs/dimension.md); the library's
function_dimension and expected_dimension, as ``seprank dimension`` runs them."""

from __future__ import annotations

from typing import Any, Dict, Optional

from . import _core
from ._answers import Answer
from ._boundary import choice, given, integer, prime_bits_value, max_time_seconds, named_max_time, records_given, seed_value, thread_count, warn
from ._networks import Network, check_network, spec_of_options

OUTPUTS = ("scalar", "all")
VARIANTS = ("reverse", "interpolation")


def _spec(net: Any, weights: Optional[Network]) -> Dict[str, Any]:
    """The spec dict of ``net`` (a Network: its architecture only; a dict of network
    options), or of ``weights`` when net is None."""
    if weights is not None and (net is None or isinstance(net, dict)):
        return weights.spec  # a dict's options were checked against it (_same_network); its defaults are not the weights'
    if isinstance(net, Network):
        return net.spec
    if isinstance(net, dict):
        return spec_of_options(net)
    raise ValueError(f"net: expected a seprank.Network or a dict of network options, got {type(net).__name__}")


# The sizes the matrices carry: checked against them by shape (the library names the matrix).
_SHAPE_KEYS = ("dim", "depth", "heads", "head_dim", "block_degree", "width", "widths", "embed_rank")


def _same_network(net: Any, weights: Network) -> None:
    """With both net and weights, what net gives must be the weights' network (the CLI
    takes the network from --weights and notes the options beside it): a residual flag, a
    token count, an attention rank or a power given in net and not the weights' would rank
    another network silently."""
    if net is None:
        return
    given = net.spec if isinstance(net, Network) else spec_of_options(net) if isinstance(net, dict) else None
    if given is None:
        return  # _spec names the bad type
    # A Network's sizes are checked by shape (the library names the matrix); a dict's given
    # options, sizes too, against the weights' network (its defaults are not compared: the
    # weights give what it leaves out, as the CLI takes the network from --weights).
    if isinstance(net, Network):
        keys = [k for k in given if k not in _SHAPE_KEYS and k in weights.spec]
    else:
        keys = [k for k in net if net[k] is not None and k in given]
        if given.get("family") == "stack" and weights.spec.get("family") == "stack" and ("layers" in keys or "repeat" in keys):
            # a stack's layers as the weights' spec writes them: canonical text, every layer, repeat 1
            stacked = {k: given[k] for k in ("family", "layers", "repeat", "depth") if k in given}
            canon = _core.canonical_spec(dict(stacked, tokens=weights.spec["tokens"], dim=weights.spec["dim"]))
            given = dict(given, layers=canon["layers"], depth=canon["depth"])  # only these: the rest are the dict's own
            keys = [k for k in keys if k != "repeat"] + ["layers", "depth"]
        if "layers" in net or "repeat" in net:
            keys.insert(0, "family")  # they make the dict a stack's: said first
    for k in dict.fromkeys(keys):
        if k not in weights.spec:  # an option of another family: the CLI notes it; here it would be dropped silently
            raise ValueError(f"net: {k} = {given[k]!r} is not an option of the weights' network (family {weights.spec['family']}) "
                             f"(give net=None to take the weights' architecture)")
        if weights.spec[k] != given[k]:
            raise ValueError(f"net: {k} = {given[k]!r}, but the weights' network has {k} = {weights.spec[k]!r} "
                             f"(give net=None to take the weights' architecture)")


@records_given
def dimension(net: Any = None, *, output: str = "scalar", variant: str = "reverse", trials: int = 2, seed: int = 1,
              prime_bits: int = 62, margin: int = 8, threads: int = 2, weights: Optional[Network] = None,
              max_time: Optional[float] = None, device: str = "cpu") -> Answer:
    """Functional dimension of an architecture: the generic rank over Q of the Jacobian
    J[s, j] = ∂F/∂w_j (w; x_s) of the parameter map w ↦ F(w; ·).

    ``net``: a Network (only its architecture is used, as in :func:`generic_rank`) or a
    dict of network options. Each of ``trials`` trials draws weights uniformly on Z/p
    (p a random prime of ``prime_bits`` bits, 20..62) and parameters + ``margin`` input
    rows, builds J exactly mod p and ranks it; the answer (``kind`` 'generic'; 'exact',
    failure_bound 0, where it reaches the parameters or the output's monomials) is the
    largest rank, a certified lower bound of the dimension, equal to it except with
    probability failure_bound, the product over the trials (each its own prime) of
    s·D/p + c (Schwartz–Zippel over the minors s that would show a larger rank, and c for
    the prime dividing their contents; docs/dimension.md). ``output``: 'scalar' (the
    coordinate at the spec's position and coordinate) or 'all' (every token and
    coordinate). ``variant``: 'reverse' (one taped forward pass and one backward sweep
    per row, rows on ``threads`` threads) or 'interpolation' (the reference: each
    derivative read off Lagrange interpolation; one thread; small networks). The answer
    also carries ``parameters`` (the weights varied), ``expected`` (parameters minus the
    obvious symmetries, capped by the monomial count; :func:`expected_dimension` says how
    it was counted) and ``defect`` (True when the rank is below expected).

    ``weights``: a Network whose exact weights (reduced mod p) are used in every trial —
    the local dimension there; only the points are random. With ``net`` omitted its
    architecture is the weights'; with both, every option ``net`` gives must be the
    weights' network's (ValueError naming it otherwise: residual, tokens, …).
    ``seed`` picks the prime, weights and points, as ``seprank dimension --seed``: the
    same arguments give the same numbers as the CLI.

    ``max_time``: seconds; the work is estimated before anything is drawn and refused
    (:class:`ResourceLimitError`) above it. None: the library's default (60 s, ``--max-time``).

    ``device`` ('cpu' | 'cuda' | 'auto', docs/gpu.md): where J is ranked (it is built on
    the CPU); on the GPU p has at most the GPU's bits. 'cuda' without a GPU raises
    ValueError.
    """
    if weights is not None:
        check_network(weights, "weights")
        _same_network(net, weights)
    spec = _spec(net, weights)
    if output == "all":  # as the CLI's notes: the options given that output='all' never reads (a Network's: other than 1)
        for k in ("position", "coordinate"):
            v = net.get(k) if isinstance(net, dict) else net.spec.get(k) if isinstance(net, Network) else None
            if v is not None and (isinstance(net, dict) or v != 1):
                warn(f"{k}={v!r} is ignored: output='all' differentiates every token and coordinate")
    opts = {"output": choice(output, "output", OUTPUTS), "variant": choice(variant, "variant", VARIANTS),
            "trials": integer(trials, "trials"), "seed": seed_value(seed),  # the library's ranges and messages, as the CLI's
            "prime_bits": prime_bits_value(prime_bits), "margin": integer(margin, "margin", 0),
            "threads": thread_count(threads), "device": choice(device, "device", ("auto", "cpu", "cuda"))}
    if max_time is not None:
        opts["max_seconds"] = max_time_seconds(max_time)
    if variant == "interpolation" and threads != 1 and given("threads", threads, 2):  # 1: what it runs on
        warn(f"threads={threads!r} is ignored: the interpolation variant builds the Jacobian on one thread "
             "(only FLINT's elimination of it may use more)")
    return named_max_time(lambda: Answer(_core.dimension(spec, opts, weights._net if weights is not None else None)))


def expected_dimension(net: Any, *, output: str = "scalar") -> Dict[str, Any]:
    """The expected dimension of an architecture and how it was counted (docs/dimension.md,
    "Expected"): a dict with ``parameters`` (the weights the parameter map varies),
    ``losses`` (each obvious symmetry or unread row and its size, as ``(what, size)``
    pairs, in order), ``ambient`` (the monomials the output can have; None when beyond
    2^63), ``expected`` = min(parameters − Σ sizes, ambient) and ``known_defects`` (the
    defects known to be real in a layer's own count, such as Strassen's block, as
    ``(what, size)`` pairs, not subtracted from expected). ``net``: a Network (its
    architecture) or a dict of network options; ``output``: 'scalar' or 'all', as in
    :func:`dimension`. Exact integer arithmetic, no sampling.
    """
    d = _core.expected_dimension(_spec(net, None), choice(output, "output", OUTPUTS))
    d["losses"] = [tuple(x) for x in d["losses"]]
    d["known_defects"] = [tuple(x) for x in d["known_defects"]]
    return {k: d[k] for k in ("parameters", "expected", "ambient", "losses", "known_defects")}
