"""Closed forms of a table column (``seprank guess``): fitted exactly on the fewest rows,
confirmed on the others, always a conjecture (docs/guess.md)."""

from __future__ import annotations

import numbers as _numbers
import os as _os
from fractions import Fraction
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _core
from ._boundary import (ResourceLimitError, big_fraction, big_int, big_text, integer, max_time_seconds, named_max_time, path_arg,
                        thread_count, utf8_text)


def _text(v: Any, where: str) -> str:
    """A cell as the CLI reads it from a table file: None empty, booleans lower case, an
    int (or a float with an integer value, 2.0) as its digits (of any length: str() refuses past 4300 digits). An int over the
    library's bound on a table value (GUESS_MAX_VALUE_BITS, docs/guess.md) is refused
    here, naming ``where``, before its digits are made (10^6 digits take seconds)."""
    if v is None or (isinstance(v, float) and v != v):  # None or NaN: an empty cell (a row without the value is skipped)
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():  # 2.0 (a pandas column, a where value) is the table's 2
        v = int(v)
    if isinstance(v, int):
        if v.bit_length() > _core.GUESS_MAX_VALUE_BITS:
            raise ValueError(f"{where}: an integer of {v.bit_length()} bits, over the bound of {_core.GUESS_MAX_VALUE_BITS} "
                             "bits (about 315,650 digits) of a table value (docs/guess.md)")
        return big_text(v)
    return utf8_text(v, where) if isinstance(v, str) else str(v)


def _records(frame: Any) -> List[Dict[str, Any]]:
    """A pandas DataFrame's rows as dicts, cells as table() made them: a missing value
    (NaN, None) None, and an integer a column of floats holds (pandas turns an int column
    with a missing value into floats) an int again."""
    out = []
    for r in frame.to_dict(orient="records"):
        row = {}
        for k, v in r.items():
            if hasattr(v, "item") and not isinstance(v, (list, tuple, str)):  # a numpy scalar
                v = v.item()
            if isinstance(v, float) and v != v:
                v = None
            elif isinstance(v, float) and v.is_integer():
                v = int(v)
            row[k] = v
        out.append(row)
    return out


def _number(text: str) -> Union[int, Fraction]:
    v = big_fraction(text)
    return v.numerator if v.denominator == 1 else v


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _var_names(vars: Union[str, Sequence[str]]) -> List[str]:
    """vars as a list: a list or tuple of names, or the CLI's text "dim,depth" (every
    item kept, as ``--vars``: an empty name is refused). Anything else (bytes,
    a set, whose order is none) is a ValueError naming it."""
    if isinstance(vars, str):
        names = vars.split(",")
    elif isinstance(vars, (list, tuple)) and all(isinstance(v, str) for v in vars):
        names = list(vars)
    else:
        raise ValueError(f"vars: expected a list of column names or the CLI's text 'dim,depth', got {vars!r}")
    if "" in names:  # as --vars "n," is refused
        raise ValueError(f"vars {vars!r}: an empty variable name")
    return [utf8_text(n, "vars") for n in names]


def _table_of(rows: Any) -> List[List[Tuple[str, str]]]:
    """A table file (read by the library, as the CLI reads it), rows as dicts, or a pandas
    DataFrame: each row as (column, cell text) pairs."""
    if isinstance(rows, (str, bytes, _os.PathLike)):  # a file (bytes too: a path, not rows)
        return _core.read_table_cells(path_arg(rows, "rows"))
    if hasattr(rows, "to_dict") and hasattr(rows, "columns"):  # a DataFrame (table()'s when pandas is installed)
        rows = _records(rows)
    if not isinstance(rows, Iterable):
        raise ValueError(f"rows: expected a table file (a path) or rows as dicts, got {type(rows).__name__}")
    table = []
    for i, r in enumerate(rows):
        if not isinstance(r, Mapping):
            raise ValueError(f"rows[{i}]: expected a dict of column values (as seprank.table returns), got {r!r}")
        table.append([(utf8_text(str(k), f"rows[{i}]: a column name"), _text(v, f"rows[{i}][{k!r}]")) for k, v in r.items()])
    return table


def _where_pairs(where: Union[None, str, Mapping[str, Any]]) -> List[Tuple[str, str]]:
    """where as (column, value) pairs: a dict, or the CLI's text "tokens=2,heads=1"."""
    if isinstance(where, str):
        try:
            return _core.parse_where(utf8_text(where, "where")) if where.strip() else []
        except ValueError as e:  # the library's message names the CLI's option
            raise ValueError(str(e).replace("--where: ", "where: ", 1)) from None
    if where is None or isinstance(where, Mapping):
        return [(utf8_text(str(k), "where: a column name"), _text(v, f"where[{k!r}]")) for k, v in (where or {}).items()]
    raise ValueError(f"where: expected a dict of column values or the CLI's text 'name=value,...', got {where!r}")


def _point_values(vars: Sequence[str], point: Mapping[str, Any], caller: str = "predict") -> List[int]:
    """predict()'s (or check()'s: ``caller``) point as the variables' values in order: every
    variable given, each an int within a C++ long; ValueError naming the first that is not."""
    if set(point) != set(vars):
        raise ValueError(f"{caller}: give exactly the variables {', '.join(vars)}, got {', '.join(sorted(point)) or 'none'}")
    x = []
    for v in vars:
        value = point[v]
        if isinstance(value, bool) or not isinstance(value, _numbers.Integral):
            raise ValueError(f"{caller}: {v} = {value!r} is not an integer")
        x.append(integer(value, f"{caller}: {v}"))
    return x


# The CLI options a reason may name, as guess()'s arguments.
_OPTION_NAMES = {"--max-exceptions ": "max_exceptions=", "--min-confirm": "min_confirm"}


def _python_names(text: str) -> str:
    for cli, arg in _OPTION_NAMES.items():
        text = text.replace(cli, arg)
    return text


class Guess:
    """The result of :func:`guess`. ``found`` says whether a form was confirmed; then
    ``formula`` (plain text), ``latex``, ``form`` (polynomial, exp-linear, binomial,
    exp-sum, hypergeometric, C-finite, P-recursive), ``params`` (free parameters),
    ``fitted`` and ``confirmed`` (rows used to fit, held-out rows predicted exactly),
    ``rows_fitted`` and ``rows_confirmed`` (their points), ``row_labels`` ({label: count}
    of the rows read, from the table's label column: a form is only as sure as its rows;
    ``rows_failure_bound`` the largest failure bound among them, ``rows_text`` the CLI's
    ``rows`` line), ``exceptions`` (rows the form
    misses, with ``max_exceptions``: ``point``, ``value`` the table's, ``formula`` the
    form's or None), ``recurrence`` (a hypergeometric term's first-order recurrence, a
    recurrence's own text, else ""), ``kind`` = "conjecture"; otherwise ``kind`` None and
    ``reason`` (the CLI's, its options named as this function's arguments). ``bool(g)`` is
    ``found``. ``predict(**point)`` evaluates the formula exactly (int or Fraction). Pickling
    keeps the rows and options; loading runs the search again."""

    def __init__(self, core: Any, vars: Sequence[str], table: Any = None, where: Any = None,
                 fit: Optional[Tuple[Any, ...]] = None) -> None:
        self._g = core
        self._fit = fit  # value and the search's options, as guess() passed them: what pickle refits from
        self._table = table if table is not None else []
        self._where = where if where is not None else []
        self.vars: Tuple[str, ...] = tuple(vars)
        self.found: bool = core.found
        self.kind: Optional[str] = "conjecture" if self.found else None
        self.formula: str = core.text()
        self.latex: str = core.latex()
        self.form: str = core.form()
        self.params: int = core.params
        self.fitted: int = core.fitted
        self.confirmed: int = core.confirmed
        self.forms_tried: int = core.tried
        self.forms_refuted: int = core.refuted
        self.reason: str = _python_names(core.reason)
        self.rows_fitted: List[Dict[str, int]] = [dict(zip(self.vars, x)) for x in core.fit_points()]
        self.rows_confirmed: List[Dict[str, int]] = [dict(zip(self.vars, x)) for x in core.confirm_points()]
        self.recurrence: str = core.recurrence()
        self.exceptions: List[Dict[str, Any]] = [
            {"point": dict(zip(self.vars, x)), "value": big_int(v), "formula": None if f is None else _number(f)}
            for x, v, f in core.exception_rows()]
        # what the rows are, by the table's label column (value 'rank' only): {label: count},
        # "probabilistic (p <= …)" as "probabilistic", and the largest failure bound among them
        counts, bound, text = core.row_labels()
        self.row_labels: Dict[str, int] = dict(counts)
        self.rows_failure_bound: float = bound
        self.rows_text: str = text
        # rows the table's status column marks (lower-bound): ranks that are bounds (value 'rank' only)
        self.marked: List[Dict[str, Any]] = [{"point": dict(zip(self.vars, x)), "status": st} for x, st in core.marked_rows()]

    def predict(self, **point: int) -> Union[int, Fraction]:
        """The formula at ``point`` (every variable by name), exactly."""
        return _number(self._g.predict(_point_values(self.vars, point)))

    def check(self, *, seconds: float = 60, trials: int = 2, max_side: int = 4096, threads: int = 2,
              **point: int) -> Dict[str, Any]:
        """The prediction at ``point`` recomputed with ``generic_rank`` (``seprank guess
        --check``): the network of the first row ``where`` kept, its variables set to the
        point. Returns ``point``, ``value`` (predicted), ``generic``, ``label`` and
        ``failure_bound`` (the chance that ``generic`` is below the generic rank; 0 when
        certified; None, like the other two, when not finished), ``verdict`` ('agree',
        'disagree' or 'unchecked', as the CLI's JSON ``check.verdict``), ``reason`` (None
        unless unchecked; then why, as the CLI's ``check.reason``: 'generic gave the lower
        bound R', 'generic did not finish in S s' (``seconds`` bounds the run), or 'the
        prediction is above max_side=N': a prediction above ``max_side``, which generic's
        rank cannot exceed, is not computed) and ``seconds``."""
        value = self.predict(**point)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise ValueError(f"seconds: expected a number of seconds > 0, got {seconds!r}")
        x = [point[v] for v in self.vars]
        c = _core.check_prediction(self._table, self._where, list(self.vars), x, str(value), float(seconds),
                                   integer(trials, "trials"), integer(max_side, "max_side"), thread_count(threads))
        if c["reason"] is not None:
            c["reason"] = c["reason"].replace("--check-max-side ", "max_side=")
        return {"point": {v: point[v] for v in self.vars}, "value": value, **c}

    def __reduce__(self) -> Any:
        # pickle and copy (multiprocessing's workers too): the rows, the filter and the
        # options; loading runs the same search on them again (deterministic: the same form)
        if self._fit is None:
            raise TypeError("cannot pickle a Guess not made by seprank.guess()")
        return (_guess_from_state, (self._table, self.vars, self._where, self._fit))

    def __bool__(self) -> bool:
        return self.found

    def __repr__(self) -> str:
        if not self.found:
            return f"<seprank.Guess: none ({self.reason})>"
        missed = f", {_count(len(self.exceptions), 'exception')}" if self.exceptions else ""
        return (f"<seprank.Guess {self.formula} ({self.form}, conjecture: {_count(self.params, 'parameter')}, "
                f"fitted on {_count(self.fitted, 'row')}, confirmed on {self.confirmed}{missed})>")


def guess(rows: Union[str, bytes, "_os.PathLike[str]", Iterable[Mapping[str, Any]]], *, vars: Sequence[str], value: str = "rank",
          where: Union[None, str, Mapping[str, Any]] = None, max_degree: int = 4, bases: Sequence[int] = (2, 3, 4, 5, 6, 7, 8, 9),
          max_order: int = 3, max_params: int = 16, min_confirm: int = 2, max_exps: int = 3,
          max_exceptions: int = 0, max_time: Optional[float] = None) -> Guess:
    """A closed form for column ``value`` as a function of ``vars`` (1 to 3 names), as
    ``seprank guess`` finds it: ``rows`` is a table file (CSV, JSON, JSON lines; a str,
    bytes or os.PathLike path, refused with ValueError when empty or holding a NUL), rows as
    dicts or a pandas DataFrame (``seprank.table`` returns either); ``where`` keeps rows
    whose columns have these values (a dict, or the CLI's text ``"tokens=2,heads=1"``); rows whose value is None, NaN or empty are skipped.
    ``max_exps`` bounds the exponentials of an exp-sum (1..4, 1: none); with
    ``max_exceptions`` E > 0 a polynomial, exp-linear, exp-sum or binomial form may miss up
    to E rows (``Guess.exceptions``). ``max_time``: seconds the search may take (default:
    the library's limit, 60 s unless set); past it ResourceLimitError, naming the forms
    tried. Raises ValueError on a missing column, a non-integer cell, too few rows or an
    option out of range."""
    vars = _var_names(vars)
    if not isinstance(value, str):
        raise ValueError(f"value: expected a column name, got {value!r}")
    utf8_text(value, "value")
    table, pairs = _table_of(rows), _where_pairs(where)
    # The rows are read, filtered and checked by the library (guess_points), as in the CLI.
    if isinstance(bases, str):  # "2,3", as the CLI's --bases
        bases = _core.parse_list(bases, "bases") if bases.strip() else []
    i32 = (-2**31, 2**31 - 1)  # the library's int options: past them the library could not take the value, let alone check it
    args = (integer(max_degree, "max_degree", *i32), [integer(b, "bases") for b in bases], integer(max_order, "max_order", *i32),
            integer(max_params, "max_params"), integer(min_confirm, "min_confirm"), integer(max_exps, "max_exps", *i32),
            integer(max_exceptions, "max_exceptions"), max_time_seconds(max_time) if max_time is not None else 0.0)
    try:
        core = named_max_time(lambda: _core.guess(table, vars, value, pairs, *args))
    except ValueError as e:  # the library's message, the filter named as this function's argument
        raise ValueError(str(e).replace("(named in --where)", "(named in where=)").replace("matches --where ", "matches where= ")) from None
    except ResourceLimitError as e:  # the search's time limit: the options as this function's arguments
        text = str(e).replace("(--max-exceptions, --max-params, --max-degree, --bases, --max-exps)",
                              "(max_exceptions, max_params, max_degree, bases, max_exps)")
        raise ResourceLimitError(text) from None
    return Guess(core, vars, table, pairs, (value, *args))


def _guess_from_state(table: Any, vars: Sequence[str], where: Any, fit: Tuple[Any, ...]) -> Guess:
    """A pickled Guess (Guess.__reduce__): the search run again on its rows and options."""
    value, *args = fit
    return Guess(named_max_time(lambda: _core.guess(table, list(vars), value, where, *args)), vars, table, where, fit)


class BlockLaw:
    """The result of :func:`guess_blocks` (``seprank guess --blocks``, docs/guess_blocks.md):
    a law rank(x, a) = min(cap_a, cap_b, F_1, ...) for the degree blocks of a block table,
    always a conjecture. ``found``; then ``law`` (the CLI's one line), ``forms`` (each
    term's text), ``kind`` = "conjecture", ``caps_only`` (the law is the caps' bound
    itself), ``fitted`` and ``confirmed`` (fit rows and held-out rows it gives exactly),
    ``held_out`` (the held-out configurations), ``at_cap``; otherwise ``kind`` None,
    ``reason`` and ``best`` (the best law tried). Always ``rows`` (ok block rows read),
    ``rows_not_ok`` (left out: lower bounds, no block, or every row of a configuration with a
    lower-bound block, whose closed blocks are a biased sample), ``terms_tried``, and
    ``exceptions`` / ``held_out_exceptions``: the rows the law misses, each a dict of the
    variables, ``configuration`` where other key columns tell rows apart, ``block``,
    ``rank`` (the table's) and ``law``, as the CLI's JSON. ``bool(law)`` is ``found``.
    ``predict(**point)`` gives the blocks at a new point. Pickling keeps the rows and
    options; loading fits the law again."""

    def __init__(self, core: Any, vars: Sequence[str], table: Any, where: Any, fit: Tuple[int, int]) -> None:
        self._law = core
        self._fit = fit  # max_forms, max_exceptions: what pickle refits with
        self._table = table
        self._where = where
        self.vars: Tuple[str, ...] = tuple(vars)
        self.found: bool = core.found
        self.kind: Optional[str] = "conjecture" if self.found else None
        self.law: str = core.text() if self.found else ""
        self.best: str = "" if self.found else core.text()
        self.forms: List[str] = core.forms() if self.found else []
        self.caps_only: bool = self.found and not self.forms
        self.fitted: int = core.fitted
        self.confirmed: int = core.confirmed
        self.held_out: str = core.held_out
        self.at_cap: int = core.at_cap
        self.rows: int = core.rows()
        self.rows_not_ok: int = core.not_ok
        self.terms_tried: int = core.tried
        self.reason: str = _python_names(core.reason)
        self.notes: List[str] = list(core.notes)  # caveats on the law, as the CLI's notes
        self.exceptions: List[Dict[str, Any]] = [self._row(*r) for r in core.exception_rows(False)]
        self.held_out_exceptions: List[Dict[str, Any]] = [self._row(*r) for r in core.exception_rows(True)]

    def _row(self, x: Sequence[int], name: str, block: int, rank: int, law: int) -> Dict[str, Any]:
        row: Dict[str, Any] = dict(zip(self.vars, x))
        if name != ",".join(f"{v}={n}" for v, n in zip(self.vars, x)):
            row["configuration"] = name  # other key columns that differ, as the CLI's JSON
        row.update(block=block, rank=rank, law=law)
        return row

    def predict(self, **point: int) -> Dict[str, Any]:
        """The law's blocks at ``point`` (every variable by name), as ``--predict``: a dict
        of ``point``, ``network`` (the first row ``where`` kept, its variables set to the
        point), ``partition``, ``key`` (the block table's key of that network, as
        ``generic --hint-blocks`` reads it), ``total``, ``blocks`` (each ``block``,
        ``k``, ``j``, ``cap_a``, ``cap_b`` — None past 2^61 —, ``predicted``) and ``notes``
        (e.g. a variable moved that the fit rows never varied). ValueError when no law was found."""
        if not self.found:
            raise ValueError(f"predict: no law was found ({self.reason})")
        x = _point_values(self.vars, point)
        network, partition, key, blocks, notes = _core.predict_blocks(self._law, self._table, self._where, x)
        keys = ("block", "k", "j", "cap_a", "cap_b", "predicted")
        out = [dict(zip(keys, b)) for b in blocks]
        return {"point": {v: point[v] for v in self.vars}, "network": network, "partition": partition,
                "key": key, "total": sum(b["predicted"] for b in out), "blocks": out, "notes": notes}

    def check(self, *, seconds: float = 60, trials: int = 2, max_side: int = 4096, threads: int = 2,
              **point: int) -> Dict[str, Any]:
        """The law's blocks at ``point`` recomputed by ``generic_rank``'s graded evaluation,
        block by block (``seprank guess --blocks --check``), at the network ``predict``
        names. Returns ``point``, ``total`` (predicted), ``verdict`` ('agree', 'disagree'
        or 'unchecked', as the CLI's JSON ``check.verdict``), ``reason`` (None unless
        unchecked; then why: 'the predicted total is above max_side=N' — generic, whose
        rank cannot pass its evaluation side, is not run — or 'generic gave the lower
        bound R', e.g. past ``seconds``, generic's time budget), ``generic``, ``label`` and
        ``failure_bound`` (None when generic was not run), ``seconds``, ``differ`` (each
        block that differs: ``block``, ``predicted``, ``generic``) and
        ``refuted_for_certain`` (a block's generic rank is above the law: a certified lower
        bound above it; one below it refutes the law only up to ``failure_bound``).
        ValueError when no law was found or an option is out of range."""
        if not self.found:
            raise ValueError(f"check: no law was found ({self.reason})")
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
            raise ValueError(f"seconds: expected a number of seconds > 0, got {seconds!r}")
        x = _point_values(self.vars, point, "check")
        total = self.predict(**point)["total"]
        try:
            c = _core.check_block_prediction(self._law, self._table, self._where, x, float(seconds), integer(trials, "trials"),
                                             integer(max_side, "max_side"), thread_count(threads))
        except ValueError as e:  # the library's option names, as this method's arguments
            raise ValueError(str(e).replace("max side ", "max_side = ").replace("check trials ", "trials = ")
                             .replace("check seconds ", "seconds = ")) from None
        if c["reason"] is not None:
            c["reason"] = c["reason"].replace("--check-max-side ", "max_side=")
        c["seconds"] = round(c["seconds"], 3)  # as the CLI's JSON
        return {"point": {v: point[v] for v in self.vars}, "total": total, **c}

    def compare(self, rows: Union[str, "_os.PathLike[str]", Iterable[Mapping[str, Any]]]) -> Dict[str, Any]:
        """The law against the block rows of another table (``seprank guess --blocks
        --against``), kept by the law's ``where``: ``rows`` as for :func:`guess_blocks`.
        Returns ``configurations``, one dict per configuration as the CLI's JSON
        ``against`` entries: ``configuration``, ``rows`` (compared), ``agree``,
        ``lower_bounds`` (bound rows at or below the law: consistent, not compared),
        ``exceptions`` (the rows the law misses, as ``exceptions`` above, with
        ``lower_bound`` and ``failure_bound`` where the row has them), ``law_total``,
        ``computed_total``, ``computed_total_label`` ('computed' or 'lower bound'),
        ``law_with_exceptions``, ``refuted_for_certain`` and ``refutation_failure_bound``
        (when the misses refute the law only if each rank below it is the generic one: the
        largest of their failure bounds, 3 digits rounded up; 1 when a row gives none; 0
        when certain or nothing differs); and ``left_out`` (block rows of another
        configuration than the law's rows, not compared) with ``left_out_why`` (e.g.
        'family=hadamard (the law's rows: family=attention)'; '' when none).
        ValueError when no law was found, or as :func:`guess_blocks` on the rows."""
        if not self.found:
            raise ValueError(f"compare: no law was found ({self.reason})")
        table = _table_of(rows)
        try:
            found, left, why = _core.compare_law(self._law, table, self._where)
        except ValueError as e:
            raise ValueError(str(e).replace("guess --blocks: ", "compare: ")) from None
        configurations = []
        for name, n, agree, bounds, law_total, computed, lower, with_exc, certain, chance, misses in found:
            exc = []
            for x, row_name, block, rank, law, lower_bound, failure_bound in misses:
                e = self._row(x, row_name, block, rank, law)
                if lower_bound:
                    e["lower_bound"] = True
                if failure_bound > 0:
                    e["failure_bound"] = failure_bound
                exc.append(e)
            configurations.append({"configuration": name, "rows": n, "agree": agree, "lower_bounds": bounds, "exceptions": exc,
                                   "law_total": law_total, "computed_total": computed,
                                   "computed_total_label": "lower bound" if lower else "computed",
                                   "law_with_exceptions": with_exc, "refuted_for_certain": certain,
                                   "refutation_failure_bound": chance})
        return {"configurations": configurations, "left_out": left, "left_out_why": why}

    def __reduce__(self) -> Any:
        # pickle and copy: the rows, the filter and the options; loading fits again (the same law)
        return (_block_law_from_state, (self._table, self.vars, self._where, self._fit))

    def __bool__(self) -> bool:
        return self.found

    def __repr__(self) -> str:
        if not self.found:
            return f"<seprank.BlockLaw: none ({self.reason})>"
        missed = len(self.exceptions) + len(self.held_out_exceptions)
        return (f"<seprank.BlockLaw {self.law} (conjecture: fitted on {_count(self.fitted, 'row')}, confirmed on "
                f"{self.confirmed}, {_count(missed, 'exception')})>")


def guess_blocks(rows: Union[str, "_os.PathLike[str]", Iterable[Mapping[str, Any]]], *, vars: Union[str, Sequence[str]],
                 where: Union[None, str, Mapping[str, Any]] = None, max_forms: int = 3, max_exceptions: int = 2) -> BlockLaw:
    """A law for the degree blocks of a block table (``seprank guess --blocks``; the table
    of ``seprank table --blocks`` or ``seprank.table(blocks=True)``), over the
    configuration's variables ``vars`` (0 to 3 names): ``rows`` as for :func:`guess`.
    ``max_forms`` (1..4) bounds the terms beside the caps, ``max_exceptions`` (0..64) the
    fit rows the law may miss. Raises ValueError on a missing block column, a non-integer
    cell, fewer than two configurations or an option out of range. ``BlockLaw.check`` and
    ``BlockLaw.compare`` are the CLI's ``--check`` and ``--against``."""
    names = _var_names(vars)
    table, pairs = _table_of(rows), _where_pairs(where)
    fit = (integer(max_forms, "max_forms", -2**31, 2**31 - 1), integer(max_exceptions, "max_exceptions"))
    try:
        core = _core.guess_block_law(table, pairs, names, *fit)
    except ValueError as e:  # the library's message, its options named as this function's arguments
        text = str(e).replace("guess --blocks: ", "guess_blocks: ").replace("(named in --where)", "(named in where=)")
        raise ValueError(text.replace("max forms ", "max_forms = ").replace("max exceptions ", "max_exceptions = ")) from None
    return BlockLaw(core, names, table, pairs, fit)


def _block_law_from_state(table: Any, vars: Sequence[str], where: Any, fit: Tuple[int, int]) -> BlockLaw:
    """A pickled BlockLaw (BlockLaw.__reduce__): the law fitted again on its rows and options."""
    return BlockLaw(_core.guess_block_law(table, where, list(vars), *fit), vars, table, where, fit)
