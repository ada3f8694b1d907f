"""Answers: the read-only result types the computing functions return — Answer (one
rank and what it is: the library's RankAnswer), EpsRank and Spectrum (the ε-separation
spectrum), Claim (one reference check)."""

from __future__ import annotations

import json as _json
import types as _types
from fractions import Fraction
from typing import Any, Dict, List, Optional

from . import _core


class Answer:
    """One rank, with what it is: the fields of the library's RankAnswer.

    value (also ``rank``), kind ('exact' | 'modular-lower-bound' | 'generic' |
    'numerical'), failure_bound (0 for exact; a bound on the chance that the true value
    is larger; 1 when none is known), quantity ('sep' | 'grid' | 'matrix' | 'generic
    sep'), method, variant, field ('Q' | 'Z/p'), rows, cols, prime, primes_used, device
    ('cpu', or 'cuda: <GPU name>': what computed it, docs/gpu.md),
    seconds, peak_mib, phases (a dict of the seconds spent in expand, matrix, rank and
    certificate, docs/answer.md), partition, degree (d^L, int), terms (None when f was not
    expanded), converged, evaluations, block_ranks, kernel_blocks, kernel_bits, trials,
    trial_ranks, degenerate, set_size, weight_degree, bound_degree, output, parameters,
    expected, defect (the last four for a functional dimension, None otherwise), note,
    label, certified.
    ``to_dict()`` gives the record with the CLI's JSON keys (docs/usage.md §1.8).
    """

    _FIELDS = ("value", "kind", "failure_bound", "quantity", "method", "variant", "field", "rows", "cols",
               "prime", "primes_used", "device", "seconds", "peak_mib", "phases", "partition", "degree", "terms", "converged",
               "evaluations", "block_ranks", "kernel_blocks", "kernel_bits", "trials", "trial_ranks",
               "degenerate", "set_size", "weight_degree", "bound_degree", "output", "parameters", "expected",
               "defect", "note", "label", "certified")

    def __init__(self, raw: Dict[str, Any]) -> None:
        if not isinstance(raw, dict) or "record" not in raw:
            raise ValueError(f"Answer: made by rank(), generic_rank(), dimension() and the other computations, "
                             f"not from {type(raw).__name__}")
        object.__setattr__(self, "_record", _json.loads(raw["record"]))
        for k in self._FIELDS:
            v = raw.get(k)
            if k in ("degree", "weight_degree", "bound_degree"):
                v = int(v) if v else None
            elif k in ("terms",) and v is not None and v < 0:
                v = None
            elif k in ("prime", "set_size") and not v:
                v = None
            elif k in ("variant", "partition", "note", "output") and v == "":
                v = None
            elif k in ("parameters", "expected") and v is not None and v < 0:
                v = None
            elif k == "phases":  # read-only, as the answer is
                v = _types.MappingProxyType(dict(v))
            object.__setattr__(self, k, v)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Answer is read-only")

    # pickle and copy: the fields as they are, phases as a plain dict (a read-only view
    # does not pickle) made read-only again on loading
    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        state["phases"] = dict(state["phases"])
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        for k, v in state.items():
            object.__setattr__(self, k, _types.MappingProxyType(dict(v)) if k == "phases" else v)

    @property
    def rank(self) -> int:
        """The same as ``value`` (the name of the CLI's JSON key)."""
        return self.value  # type: ignore[attr-defined,no-any-return]

    def to_dict(self) -> Dict[str, Any]:
        """Every field under the CLI's JSON key (rank, kind, certified, label, bound,
        failure_bound to 3 significant digits, …), None where it does not apply."""
        return dict(self._record)

    def __repr__(self) -> str:
        d = self.__dict__
        parts = [f"{d['value']}", f"kind={d['kind']!r}"]
        if d.get("quantity") not in (None, "sep"):  # what the value is the rank of: a grid's rank only bounds sep
            parts.append(f"quantity={d['quantity']!r}")
        if d["kind"] != "exact":
            parts.append(f"failure_bound={_core.bound_up(d['failure_bound'], 3):.3g}")  # rounded up, as the CLI
        parts.append(f"method={d['method']!r}")
        for k in ("partition", "degree", "terms", "output", "parameters", "expected"):
            if d.get(k) is not None:
                parts.append(f"{k}={d[k]!r}")
        parts.append(f"shape={d['rows']}x{d['cols']}")
        return f"Answer({', '.join(parts)}, {d['seconds']:.3g} s)"


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
        if not isinstance(record, dict) or "singular_values" not in record:
            raise ValueError(f"Spectrum: made by spectrum(), not from {type(record).__name__}")
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


class Claim:
    """The outcome of one claim of docs/theory.md §3: name, passed, detail, statement, and
    checked (False where a resource limit refused the claim's work before its check: not
    passed, not failed either; the CLI's LIMIT line)."""

    __slots__ = ("name", "passed", "detail", "statement", "checked")

    def __init__(self, name: str, passed: bool, detail: str, statement: str, checked: bool = True) -> None:
        self.name, self.passed, self.detail, self.statement, self.checked = name, passed, detail, statement, checked

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"<{'PASS' if self.passed else 'FAIL' if self.checked else 'LIMIT'} {self.name}: {self.detail}>"

