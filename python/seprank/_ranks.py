"""Ranks: the separation rank of a network or polynomial, the rank of a matrix over Q,
the generic rank of an architecture, and the ε-separation spectrum (docs/theory.md,
docs/rank.md, docs/generic.md, docs/spectrum.md)."""

from __future__ import annotations

import json as _json
import os as _os
import numbers as _numbers
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union

from . import _core
from ._answers import Answer, Spectrum
from ._boundary import _shown, choice, prime_bits_value, eps_list, exact, flag, given, ignored_options, integer, matrix, memory_bytes, partition_text, real, path_arg, seconds, records_given, seed_value, thread_count, warn
from ._networks import Network, spec_of_options
from ._polynomials import Polynomial


@records_given
def rank(target: Any, partition: Any = None, *, method: str = "flattening", field: str = "Q",
         seed: Optional[int] = None, templates: Any = 2, max_side: int = 4096, variant: str = "auto",
         max_memory: float = 4 * 2**30, threads: int = 2, certificate: str = "blocks", device: str = "cpu") -> Answer:
    """Separation rank sep_(A,B)(f) of a network or polynomial, or the rank of a matrix.

    ``target``: a Network, a Polynomial (variables x<j>_<c>, split by token j; the
    tokens are the partition's, which must hold every token a variable names), or a
    rational matrix (2-D numpy array or nested lists of ints, Fractions, "p/q" strings
    or exactly converted floats). ``partition``: '1,2|3,4' or two
    iterables of token positions (default: balanced, 1..⌈N/2⌉ | rest).
    ``method``:

    * 'flattening' — expand f and rank its coefficient flattening C_(A,B)(f): exactly
      sep, certified over Q (``field='Q'``) or a modular lower bound (``field='p'``; certified
      when it reaches the flattening's cap: the sum of the degree-block caps, or for a
      residual network the monomials its smaller side can have);
    * 'grid' — the matricization of the grid tensor on ``templates`` (M, or a list of
      template vectors): rank [[T]] ≤ sep (Claim 7.1), computed exactly;
    * 'evaluation' — E[s,t] = f(a_s, b_t) mod p grown until its rank stops growing
      (≤ ``max_side``; ``variant`` 'plain' | 'graded' | 'auto'): a certified lower bound
      of sep, equal to it except with probability ``failure_bound``; never expands.

    ``seed`` (default: the network's seed, else 1) picks primes, templates and points,
    as ``--seed`` does in the CLI. A matrix A is ranked as D·A, each row times the lcm
    d_i of its denominators (D = diag(d_i) is invertible, so rank_Q(D·A) = rank_Q(A)):
    exactly over Q (certified) or mod one random prime (``field='p'``; a prime dividing
    some d_i only lowers that reading, which is a lower bound in any case).
    ``certificate`` (field 'Q', a matrix below full rank): 'blocks' (exact kernel vectors
    per connected block, docs/blocks.md), 'pivot-span' or 'hadamard' (the references),
    as ``rank --certificate`` in the CLI.
    ``device`` ('cpu' | 'cuda' | 'auto', docs/gpu.md): where ``field='p'``, the evaluation
    and, for ``field='Q'``, the Hadamard reference's modular ranks run; 'cuda' without a GPU
    raises ValueError, 'auto' then computes on the CPU and says so in ``note``. The
    answer's ``device`` names it.
    """
    choice(field, "field", ("Q", "p"))
    opts = {"method": choice(method, "method", ("flattening", "grid", "evaluation")), "field": field,
            "max_side": integer(max_side, "max_side"), "variant": choice(variant, "variant", ("auto", "plain", "graded")),
            "max_memory": memory_bytes(max_memory), "threads": thread_count(threads),
            "certificate": choice(certificate, "certificate", ("blocks", "pivot-span", "hadamard")),
            "device": choice(device, "device", ("auto", "cpu", "cuda"))}
    net_seed = target.seed if isinstance(target, Network) else None
    opts["seed"] = seed_value(seed if seed is not None else (net_seed if net_seed is not None else 1))
    # Refused whatever the target, as the CLI checks every value: never noted as ignored.
    if opts["max_side"] < 1:
        raise ValueError(f"max side {max_side} must be at least 1")
    if isinstance(templates, _numbers.Integral) and not isinstance(templates, bool):
        templates = integer(templates, "templates")
        if templates < 1:
            raise ValueError(f"number of templates M = {templates}: expected at least 1")
    elif (isinstance(templates, (list, tuple)) or hasattr(templates, "shape")) and len(templates) == 0:  # as --templates-file with []
        raise ValueError("templates: an empty list; expected M >= 1 or a non-empty list of template vectors")
    # A valid option the ranking does not read: a UserWarning, as the CLI's note (the
    # keywords written in the call, records_given), once the ranking has run (an invalid
    # value is refused there, not noted).
    default_templates = isinstance(templates, _numbers.Integral) and not isinstance(templates, bool) and templates == 2
    written = {"templates": given("templates", 2 if default_templates else None, 2),
               "max_side": given("max_side", max_side, 4096), "variant": given("variant", variant, "auto"),
               "method": given("method", method, "flattening"), "certificate": given("certificate", certificate, "blocks")}
    values = {"templates": templates if isinstance(templates, _numbers.Integral) else "[...]", "max_side": max_side, "variant": variant,
              "method": method, "certificate": certificate}

    pending = []

    def ignored(names: Sequence[str], reason: str) -> None:
        pending.extend(ignored_options(written, values, names, reason))

    def noted(answer: Answer) -> Answer:
        for text in pending:
            warn(text)
        return answer

    if isinstance(target, Network):
        if method != "grid":
            ignored(["templates"], f"method {method} uses no templates (grid only)")
        if method != "evaluation":
            ignored(["max_side", "variant"], f"method {method} evaluates nothing")
    elif isinstance(target, Polynomial):
        ignored(["templates", "max_side", "variant"], "a polynomial is ranked by the flattening")
    else:
        ignored(["method", "templates", "max_side", "variant"], "a matrix is ranked as it is")
    if field == "p" or (method == "evaluation" and not isinstance(target, Polynomial) and isinstance(target, Network)):
        ignored(["certificate"], "the evaluation ranks mod p (no certificate)" if field == "Q" else "field p ranks mod p (no certificate)")
    if isinstance(target, Network):
        tv = None
        if isinstance(templates, _numbers.Integral) and not isinstance(templates, bool):
            opts["templates"] = int(templates)
        else:
            tv = [[str(exact(x, f"templates[{i}][{j}]")) for j, x in enumerate(row)]
                  for i, row in enumerate(matrix(templates, "templates"))]
        return noted(Answer(_core.rank_network(target._net, partition_text(partition), opts, tv)))
    if isinstance(target, Polynomial):
        return noted(Answer(_core.rank_poly(target._p, partition_text(partition), opts)))
    if isinstance(target, str):
        raise ValueError("target: a string; parse it with seprank.poly(text) first")
    if isinstance(target, Mapping):  # generic_rank and dimension take a spec dict; rank ranks one network's weights
        raise ValueError("target: a dict; rank takes a Network, a Polynomial or a matrix: draw the network with "
                         "seprank.network(**spec) (or call generic_rank(spec) for the generic rank)")
    if partition is not None:
        raise ValueError("partition: not used when ranking a matrix")
    # Refused before any entry is converted: the entries as Python objects and text (about
    # 200 bytes each here) and the library's matrices (48 bytes each, as a matrix file's).
    shape = getattr(target, "shape", None)
    if shape is not None and len(shape) == 2:
        r, c = int(shape[0]), int(shape[1])
    elif isinstance(target, Sequence) and not isinstance(target, (str, bytes)):
        r = len(target)
        first = target[0] if r else None
        c = len(first) if isinstance(first, Sequence) and not isinstance(first, (str, bytes)) else 0
    else:
        r = c = 0
    _core.check_memory(24.0 * r + 248.0 * r * c, opts["max_memory"], f"target: a {r} x {c} matrix", "max_memory")
    rows = matrix(target, "target")  # exact entries: ints and "p/q" strings
    cols = len(rows[0]) if rows else c  # no rows: the array's own column count (0 x 3 is 0 x 3)
    return noted(Answer(_core.rank_matrix([[str(x) for x in r] for r in rows], cols, opts)))


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
    opts = {"measure": choice(measure, "measure", ("uniform", "gaussian")),
            "method": choice(method, "method", ("certified", "fast")),
            "precision": integer(precision, "precision"), "eps": eps_list(eps),
            "max_side": integer(max_side, "max_side"), "max_memory": memory_bytes(max_memory),
            "threads": thread_count(threads)}
    if not 53 <= opts["precision"] <= 4096:
        raise ValueError(f"precision: must be in 53..4096 bits (53: double; more: MPFR), got {precision!r}")
    if opts["max_side"] < 1:
        raise ValueError(f"max_side: must be >= 1, got {max_side!r}")
    opts["eps_absolute"] = flag(eps_absolute, "eps_absolute")
    net_seed = target.seed if isinstance(target, Network) else None
    opts["seed"] = seed_value(seed if seed is not None else (net_seed if net_seed is not None else 1))
    # as the CLI's notes on --seed beside --poly or --weights: the spectrum draws nothing
    if seed is not None and isinstance(target, Polynomial):
        warn(f"seed={seed!r} is ignored: the polynomial is given (the seed draws random weights)")
    elif seed is not None and isinstance(target, Network):
        warn(f"seed={seed!r} is ignored: the network's weights are given (a builder's seed= draws them, "
             "as the CLI's --seed)")
    if isinstance(target, Network):
        text = _core.spectrum_network(target._net, partition_text(partition), opts)
    elif isinstance(target, Polynomial):
        text = _core.spectrum_poly(target._p, partition_text(partition), opts)
    elif isinstance(target, str):
        raise ValueError("target: a string; parse it with seprank.poly(text) first")
    else:
        raise ValueError(f"target: expected a seprank.Network or seprank.Polynomial, got {type(target).__name__}")
    return Spectrum(_json.loads(text))


@records_given
def generic_rank(net: Any, partition: Any = None, *, trials: int = 2, seed: int = 1, method: str = "auto",
                 max_side: int = 4096, variant: str = "auto", threads: int = 2, start: int = 0,
                 growth: float = 1.25, store: Union[None, str, bytes, "_os.PathLike[str]"] = None, prime_bits: int = 62,
                 max_seconds: float = 0, device: str = "cpu", block_hints: Any = None) -> Answer:
    """Generic separation rank R* of an architecture, with its failure probability.

    Each of ``trials`` draws sets every weight uniformly from S = Z/p (a random 62-bit
    prime of its own) and ranks the flattening mod p (``method='flattening'``) or an evaluation
    matrix ('evaluation'; 'auto' picks flattening when the expansion is small). The
    maximum is a certified lower bound of R*, equal to it except with probability
    failure_bound = the product over the trials of s·D/|S| + c (Schwartz–Zippel; s the
    sizes of the minors that would show a larger rank, D the entries' degree in the drawn
    values; c the chance that the trial's prime divides one of those minors' contents,
    docs/generic.md). ``net``: a Network (only its architecture is used) or a
    dict of network options. ``start`` and ``growth``: the evaluation's first side
    (1..max_side; 0: min(16, max_side)) and growth factor; checked whatever the method.
    ``store``: a folder for the graded evaluation's work units (created
    when missing): a run interrupted there resumes from its finished units, and several
    processes given the same folder share the work (docs/evaluation.md, "Block store").
    ``store`` and a ``block_hints`` file are paths (str, bytes or os.PathLike); an empty
    one, one holding a NUL byte or a store with a control character raises ValueError,
    before anything is created.
    ``prime_bits``: bits of p, 20..62; with at most 52 bits the evaluation can use the AVX-512 IFMA
    kernel, and the failure bound grows accordingly.
    ``max_seconds``: a time budget for the evaluation (0: none); a run it stops is a lower
    bound (``converged`` False, the note says so), as at ``max_side`` (docs/table.md, "Budgets").
    ``device`` ('cpu' | 'cuda' | 'auto', docs/gpu.md): where the evaluation runs; on the
    GPU 'auto' is the evaluation and p has at most the GPU's bits; 'cuda' without a GPU
    raises ValueError. The answer's ``device`` names it.
    ``block_hints`` (graded evaluation, docs/evaluation.md "Block hints"): the first trial's
    expected block ranks, a list indexed by the degree block a = 0..D (entry a for block a,
    -1: none; not a list of the blocks that exist only; a shorter list leaves the blocks
    after it without hints, a longer one than D + 1 is refused), a prediction of
    :meth:`BlockLaw.predict` (its blocks, checked to be this
    network's by its ``key``), or the name of a file (a block table, or the JSON of
    ``guess --blocks --predict``) holding this network's rows; they steer the sides only,
    and later trials take the earlier trials' block ranks as theirs.
    """
    if isinstance(net, Network):
        spec = net.spec
    elif isinstance(net, dict):
        spec = spec_of_options(net)
    else:
        raise ValueError(f"net: expected a seprank.Network or a dict of network options, got {type(net).__name__}")
    opts = {"trials": integer(trials, "trials"), "seed": seed_value(seed),
            "method": choice(method, "method", ("auto", "flattening", "evaluation")),
            "max_side": integer(max_side, "max_side"), "variant": choice(variant, "variant", ("auto", "plain", "graded")),
            "threads": thread_count(threads), "start": integer(start, "start"),
            "prime_bits": prime_bits_value(prime_bits), "device": choice(device, "device", ("auto", "cpu", "cuda"))}
    opts["growth"] = real(growth, "growth", "a number above 1")
    opts["max_seconds"] = seconds(max_seconds, "max_seconds")
    if store is not None:
        if not isinstance(store, (str, bytes, _os.PathLike)) or not _os.fspath(store):
            raise ValueError(f"store: expected a folder name, got {store!r}")
        opts["store"] = path_arg(store, "store")
    if isinstance(block_hints, (str, bytes, _os.PathLike)):
        if not _os.fspath(block_hints):
            raise ValueError("block_hints: expected a list of ranks or a file name, got ''")
        opts["hint_file"] = path_arg(block_hints, "block_hints")
    elif isinstance(block_hints, Mapping):  # a BlockLaw.predict() dict: read as the CLI reads its JSON, checked by its key
        if not isinstance(block_hints.get("key"), str) or not isinstance(block_hints.get("blocks"), (list, tuple)):
            raise ValueError("block_hints: a dict is a prediction of BlockLaw.predict() (with its 'key' and 'blocks'), "
                             f"got one with keys {sorted(map(str, block_hints))}")
        try:
            opts["hint_text"] = _json.dumps({"predictions": [{"key": block_hints["key"], "blocks": list(block_hints["blocks"])}]},
                                           allow_nan=False)
        except (TypeError, ValueError) as e:
            raise ValueError(f"block_hints: the prediction's blocks are not plain numbers ({e})") from None
    elif block_hints is not None:
        if hasattr(block_hints, "tolist") and getattr(block_hints, "ndim", 1) == 1:  # a 1-D numpy array
            block_hints = block_hints.tolist()
        if not isinstance(block_hints, (list, tuple)):
            raise ValueError(f"block_hints: expected a list of integer ranks (-1: none), a prediction of BlockLaw.predict() "
                             f"or a file name, got {type(block_hints).__name__}")
        for a, h in enumerate(block_hints):  # ints, numpy's too, as every integer option takes them
            if isinstance(h, bool) or not isinstance(h, _numbers.Integral):
                raise ValueError(f"block_hints[{a}] = {h!r}: expected an integer rank (-1: none)")
            if not -2**63 <= h < 2**63:  # what a long holds; the library names a negative one below -1
                raise ValueError(f"block_hints[{a}] = {_shown(h)}: expected a rank >= 0 or -1 (none)")
        opts["block_hints"] = [int(h) for h in block_hints]
    answer = Answer(_core.generic_rank(spec, partition_text(partition), opts))
    # A valid option the chosen method did not read: a UserWarning, as the CLI's note (the
    # keywords written in the call).
    written = {"max_side": given("max_side", max_side, 4096), "variant": given("variant", variant, "auto"),
               "start": given("start", start, 0), "growth": given("growth", growth, 1.25),
               "store": store is not None, "max_seconds": given("max_seconds", max_seconds, 0),
               "block_hints": block_hints is not None}
    values = {"max_side": max_side, "variant": variant, "start": start, "growth": growth, "store": store,
              "max_seconds": max_seconds, "block_hints": "[...]" if isinstance(block_hints, (list, tuple)) else block_hints}
    chosen = f"method {answer.method}" + (" (chosen by method='auto')" if method == "auto" else "")
    if answer.method == "flattening":
        unread, reason = list(written), f"{chosen} evaluates nothing"
    elif not str(answer.variant).startswith("graded"):
        unread, reason = ["store", "block_hints"], f"the {answer.variant} evaluation keeps no block store and no block hints (graded only)"
    else:
        unread, reason = [], ""
    for text in ignored_options(written, values, unread, reason):
        warn(text)
    return answer

