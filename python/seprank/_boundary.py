"""The boundary of the compiled module seprank._core: every argument is checked here,
once, and turned into the plain values the bindings take.

Exact numbers (an int, or a "p/q" string: what the weights JSON holds), matrices as rows
of them, the weights dict as JSON values, option names and integers, partitions as
'A|B' text, integer lists and ε lists. A bad value raises ValueError naming the
parameter (and the entry: ``weights['layers'][0]['heads'][0]['Q'][1][0]``) and the value.
"""

from __future__ import annotations

import contextvars as _contextvars
import functools as _functools
import inspect as _inspect
import math as _math
import os as _os
import sys as _sys
import numbers as _numbers
import warnings as _warnings
from fractions import Fraction
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, TypeVar, Union

from . import _core

ResourceLimitError = _core.ResourceLimitError
version: str = _core.version

FAMILIES = tuple(_core.family_names())  # the library's families, as the CLI's --family


# Python refuses int <-> decimal text past sys.get_int_max_str_digits() digits (4300 by
# default; a guard against quadratic conversions of untrusted text). seprank's exact
# numbers (a degree d^L, a coefficient, a budget's predicted degree) pass it routinely, so
# they are converted by halves, each half below the limit: O(n^1.6) with Karatsuba.
def _chunk() -> int:
    """Digits converted at once: below Python's limit (0: none) as the user may have set it."""
    limit = _sys.get_int_max_str_digits() if hasattr(_sys, "get_int_max_str_digits") else 0
    return 4000 if limit == 0 else max(1, min(4000, limit - 1))


def big_text(v: int) -> str:
    """v as decimal text, of any length."""
    c = _chunk()
    if -(10 ** c) < v < 10 ** c:
        return str(v)
    if v < 0:
        return "-" + big_text(-v)
    k = (len(format(v, "x")) * 4 * 30103 // 100000) // 2  # about half the digits
    hi, lo = divmod(v, 10 ** k)
    return big_text(hi) + big_text(lo).rjust(k, "0")


def _digits(t: str, text: str) -> int:
    """The integer of a run of ASCII digits, of any length (by halves)."""
    if not (t and t.isascii() and t.isdigit()):
        raise ValueError(f"invalid literal for int() with base 10: {text[:40]!r}")
    c = _chunk()
    if len(t) <= c:
        return int(t)
    k = len(t) // 2
    return _digits(t[:-k], text) * 10 ** k + _digits(t[-k:], text)


def big_int(text: str) -> int:
    """The integer of decimal text (spaces around, one optional sign, then digits), of any length."""
    t = text.strip()
    sign = t[:1] if t[:1] in ("+", "-") else ""
    v = _digits(t[len(sign):], text)
    return -v if sign == "-" else v


def big_fraction(text: str) -> Fraction:
    """The rational of "p" or "p/q" text (q unsigned and not 0), of any length."""
    num, slash, den = text.strip().partition("/")
    if not slash:
        return Fraction(big_int(num))
    return Fraction(big_int(num), _digits(den, text))


def exact(x: Any, where: str) -> Union[int, str]:
    """One weight as the weights JSON holds it: an int, or a "p/q" string; exact."""
    if isinstance(x, bool):
        raise ValueError(f"{where}: expected a number, got the bool {x!r}")
    if isinstance(x, _numbers.Integral):
        v = int(x)
        return v if -2**63 <= v < 2**63 else big_text(v)  # JSON numbers beyond 64 bits would be read as doubles
    if isinstance(x, Fraction):
        return exact(x.numerator, where) if x.denominator == 1 else f"{big_text(x.numerator)}/{big_text(x.denominator)}"
    if isinstance(x, str):
        if "." in x or "e" in x.lower():  # first: Fraction("1e30000000") would take seconds to build
            raise ValueError(f"{where}: decimal strings are not taken ({x[:40]!r}); write 'p/q' or pass a Fraction")
        try:
            q = big_fraction(x)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"{where}: expected an integer or a 'p/q' string, got {x[:60]!r}") from None
        return exact(q, where)
    if isinstance(x, _numbers.Real):  # float, numpy floating: the rational it denotes
        f = float(x)
        if not _math.isfinite(f):
            raise ValueError(f"{where}: {x!r} is not a finite number")
        return exact(Fraction(f), where)
    raise ValueError(f"{where}: expected an integer, a Fraction, a 'p/q' string or a float, got {type(x).__name__}")


def matrix(m: Any, where: str) -> List[List[Union[int, str]]]:
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
        rows.append([exact(x, f"{where}[{i}][{j}]") for j, x in enumerate(r)])
    width = {len(r) for r in rows}
    if len(width) > 1:
        raise ValueError(f"{where}: rows of different lengths {sorted(width)}; expected a rectangular matrix")
    return rows


# Keys of the weights JSON whose value is one matrix (W1, W2: a stack's mlp layer).
MATRIX_KEYS = ("Q", "K", "V", "O", "embedding", "W1", "W2")


def _one_matrix(v: Any) -> bool:
    """Whether a "W" value is one matrix (a power network's layer) rather than the list
    W_1..W_d of a hadamard or fc layer: a 2-D array, or rows whose entries are numbers."""
    if hasattr(v, "shape"):
        return len(v.shape) == 2
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or not v:
        return False
    row = v[0]
    if hasattr(row, "shape"):
        return len(row.shape) == 1
    if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or not row:
        return False
    first = row[0]
    return isinstance(first, (str, bytes)) or not (isinstance(first, Sequence) or hasattr(first, "shape"))


def _plain(v: Any, where: str) -> Any:
    """A value under a key weights_json does not convert: numpy arrays and scalars as
    lists and numbers, dicts and lists through, so that the library's message names the
    key (an unknown "X", a "heds" typo) rather than JSON's or numpy's."""
    if isinstance(v, dict):
        return weights_json(v, where)
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{where}[{i}]") for i, x in enumerate(v)]
    if hasattr(v, "tolist"):  # a numpy array or scalar
        return v.tolist()
    return v


def weights_json(obj: Any, where: str) -> Any:
    """A dict/list shaped like the weights JSON with any exact entries → plain JSON values."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            w = f"{where}[{k!r}]"
            if k in MATRIX_KEYS:
                out[k] = matrix(v, w)
            elif k == "W" and _one_matrix(v):
                out[k] = matrix(v, w)
            elif k == "W":
                if hasattr(v, "shape") and len(v.shape) == 3:
                    v = list(v)
                if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
                    raise ValueError(f"{w}: expected a list of d matrices W_1..W_d")
                out[k] = [matrix(m, f"{w}[{i}]") for i, m in enumerate(v)]
            elif k in ("layers", "heads") and isinstance(v, (list, tuple)):
                out[k] = [weights_json(x, f"{w}[{i}]") for i, x in enumerate(v)]
            elif k == "widths":
                if hasattr(v, "tolist"):  # a numpy array
                    v = v.tolist()
                if isinstance(v, (str, bytes)) or not isinstance(v, Sequence):
                    raise ValueError(f"{w}: expected a list of integer widths, got {_shown(v)}")
                out[k] = [integer(x, f"{w}[{i}]") for i, x in enumerate(v)]
            else:  # any other key, known or not: plain JSON values, so the library names it
                out[k] = _plain(v, w)
        return out
    raise ValueError(f"{where}: expected a dict shaped like the weights JSON (docs/usage.md §1.5), got {type(obj).__name__}")


def to_fraction(x: Union[int, str]) -> Fraction:
    """An exact entry as exact() gives it (int or "p/q") → Fraction."""
    return Fraction(x) if isinstance(x, int) else big_fraction(x)


# The C++ types the bindings take: a Python int outside them would fail in pybind11's
# cast with a message that names neither the parameter nor the value.
LONG_MIN, LONG_MAX = -2**63, 2**63 - 1
INT_MAX = 2**31 - 1
SEED_MAX = 2**64 - 1


def integer(v: Any, name: str, lo: int = LONG_MIN, hi: int = LONG_MAX) -> int:
    """v as an int in lo..hi (default: a C++ long); bools, non-integers and values out of
    range are refused, naming ``name`` and the value. The library checks the finer
    conditions (tokens >= 1, trials >= 1, …) with its own messages."""
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        raise ValueError(f"{name}: expected an integer, got {_shown(v)}")
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError(f"{name}: {_shown(v)} is outside {lo}..{hi}")
    return v


def prime_bits_value(v: Any) -> int:
    """``prime_bits``: an integer in 20..62, refused with the library's message (checked
    here too: the binding narrows it to a C++ int, whose range would be named instead)."""
    if isinstance(v, bool) or not isinstance(v, _numbers.Integral):
        return integer(v, "prime_bits")  # refused: not an integer
    if not 20 <= int(v) <= 62:  # past 64 bits too
        raise ValueError(f"prime bits = {_shown(int(v))} outside 20..62")
    return int(v)


def seed_value(v: Any, name: str = "seed") -> int:
    """A seed: an integer in 0..2^64 − 1 (the library's std::uint64_t)."""
    return integer(v, name, 0, SEED_MAX)


def _shown(v: Any) -> str:
    """repr(v); an integer of more than 40 digits by its number of digits (counted from its
    bits: repr of one past Python's 4,300-digit limit would itself raise)."""
    if isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > 130:
        digits = len(str(abs(v))) if v.bit_length() < 10000 else int(v.bit_length() * 0.30102999566398120) + 1
        return f"an integer of {digits} digits"
    return repr(v)


def real(v: Any, name: str, expected: str) -> float:
    """v as a float: any real number but a bool (int, float, Fraction, a numpy scalar);
    ValueError naming ``name`` with ``expected`` for anything else, and for an integer too
    large for a float (which float() would raise as OverflowError, naming nothing)."""
    if isinstance(v, bool) or not isinstance(v, _numbers.Real):
        raise ValueError(f"{name}: expected {expected}, got {_shown(v)}")
    try:
        return float(v)
    except OverflowError:
        raise ValueError(f"{name}: {_shown(v)} is too large for a number of double precision (expected {expected})") from None


def seconds(v: Any, name: str, none_at_zero: bool = True) -> float:
    """A time budget: a finite number of seconds >= 0 (0: none), or > 0 where the
    library has no unbounded run (``none_at_zero=False``, equation's search)."""
    expected = "a finite number >= 0 (0: no time budget)" if none_at_zero else "a finite number of seconds > 0"
    x = real(v, name, expected)
    if not 0 <= x < float("inf") or (x == 0 and not none_at_zero):
        raise ValueError(f"{name}: expected {expected}, got {_shown(v)}")
    return x


MEMORY_MIN, MEMORY_MAX = 2.0**10, 2.0**50  # 1 KiB .. 1 PiB


def memory_bytes(v: Any) -> float:
    """``max_memory``: a finite number of bytes > 0, as the CLI's --max-memory (the C++
    library reads 0 as its default; here the default is the parameter's own), within
    1 KiB .. 1 PiB: outside, a typo (GiB given for bytes: 8 for 8 GiB) rather than a limit."""
    x = real(v, "max_memory", "a number of bytes")
    if not 0 < x < float("inf"):
        raise ValueError(f"max_memory = {_shown(v)} must be a positive finite number of bytes")
    if not MEMORY_MIN <= x <= MEMORY_MAX:
        raise ValueError(f"max_memory = {_shown(v)} bytes is outside 1 KiB .. 1 PiB (1024 .. 2**50; "
                         f"a number of bytes, not GiB: 8 GiB is 8 * 2**30)")
    return x


def max_time_seconds(v: Any) -> float:
    """``max_time``: a finite number of seconds > 0 (the library's max_seconds)."""
    x = real(v, "max_time", "a finite number of seconds > 0")
    if not 0 < x < float("inf"):
        raise ValueError(f"max_time: {_shown(v)} is not a finite number of seconds > 0")
    return x


def named_max_time(call: Any) -> Any:
    """call(), with a time limit it meets named by the Python keyword ``max_time`` rather
    than the library's (max_seconds) or the CLI's (--max-time)."""
    try:
        return call()
    except ResourceLimitError as e:
        text = str(e)
        if text.endswith("(max_seconds)") or text.endswith("(--max-time)"):
            raise ResourceLimitError(text[: text.rfind("(")] + "(max_time)") from None
        raise


def _in_package(frame: Any) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == "seprank" or name.startswith("seprank.")


def warn(text: str) -> None:
    """A UserWarning naming the user's line: the first frame outside the package (the
    call of rank(), network(), …, however deep inside it the warning is decided)."""
    level, frame = 1, _inspect.currentframe()
    while frame is not None and _in_package(frame):
        level, frame = level + 1, frame.f_back
    _warnings.warn(text, stacklevel=level)


# The keywords the user wrote in the current call of a function decorated with
# records_given (None: called from inside the package, or nothing recorded).
_GIVEN: "_contextvars.ContextVar[Optional[FrozenSet[str]]]" = _contextvars.ContextVar("seprank_given", default=None)
_F = TypeVar("_F", bound=Callable[..., Any])


def records_given(fn: _F) -> _F:
    """Decorator: while ``fn`` runs for a caller outside the package, :func:`given` knows
    which of its parameters that caller wrote (positional ones by name), so that an
    option given at its default value is noted as the CLI notes an option written on its
    command line. A call from inside the package records nothing (given() then compares
    with the default). A function that forwards its own caller's options to another
    decorated one calls that one's ``__wrapped__``, so that the record stays the user's.
    The signature, name and docstring stay ``fn``'s."""
    signature = _inspect.signature(fn)

    @_functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        names: Optional[FrozenSet[str]] = None
        if not _in_package(_sys._getframe(1)):
            try:
                names = frozenset(signature.bind(*args, **kwargs).arguments)
            except TypeError:
                pass  # the call itself raises Python's TypeError
        token = _GIVEN.set(names)
        try:
            return fn(*args, **kwargs)
        finally:
            _GIVEN.reset(token)
    return wrapper  # type: ignore[return-value]


def given(name: str, value: Any, default: Any) -> bool:
    """Whether the user gave option ``name``: written in the call (records_given), or,
    where the call is not recorded, a value other than ``default``."""
    names = _GIVEN.get()
    return (value is not default and value != default) if names is None else name in names


def ignored_options(given: Dict[str, bool], values: Dict[str, Any], names: Iterable[str], reason: str) -> List[str]:
    """The CLI's note for each of ``names`` given (``given[name]`` true) that the work did not
    read: "name=value is ignored: reason", a list value comma-separated as the CLI writes it."""
    out = []
    for name in names:
        if given.get(name):
            v = values[name]
            shown = ",".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
            out.append(f"{name}={shown} is ignored: {reason}")
    return out


def flag(v: Any, name: str) -> bool:
    """A True/False option: a bool or a numpy bool, never a truthy stand-in (2, "no")."""
    if not (isinstance(v, bool) or getattr(getattr(v, "dtype", None), "kind", None) == "b"):
        raise ValueError(f"{name}: expected True or False, got {v!r}")
    return bool(v)


def thread_count(v: Any) -> int:
    """A thread count: an integer in 1.._core.MAX_THREADS (the library's max_threads(): 16
    per hardware thread, 64..4096), checked whether or not the chosen method runs threads
    (an ignored option is still refused when invalid)."""
    return integer(v, "threads", 1, _core.MAX_THREADS)


def utf8_text(v: str, name: str) -> str:
    """v when it encodes as UTF-8; else ValueError naming ``name`` (a lone surrogate, as
    os.fsdecode makes of undecodable bytes, would reach the binding as a TypeError)."""
    try:
        v.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"{name}: not UTF-8 text ({e.reason} at position {e.start}): {v!r}") from None
    return v


def path_arg(v: Any, name: str) -> Union[str, bytes]:
    """A path argument (str, bytes or os.PathLike, as open() takes) as the library takes it:
    text, or its bytes when the name is not UTF-8 (os.fsdecode's lone surrogates, or bytes
    that decode to none), which the bindings pass on unchanged. ValueError naming ``name``
    for anything else, an empty name (as the CLI's ``--out ""``), and a name holding a NUL
    byte: the system reads a name only up to its NUL, so 'g.csv\\0x' opened g.csv."""
    if not isinstance(v, (str, bytes, _os.PathLike)):
        raise ValueError(f"{name}: expected a path (str, bytes or os.PathLike), got {type(v).__name__}")
    p = _os.fspath(v)
    if not p:
        raise ValueError(f"{name}: empty file name")
    if ("\0" if isinstance(p, str) else b"\0") in p:
        raise ValueError(f"{name}: {p[:60]!r}{'…' if len(p) > 60 else ''} holds a NUL byte: a file name ends there, so "
                         "the name the system would see is not the one given")
    if isinstance(p, bytes):
        try:
            return p.decode("utf-8")
        except UnicodeDecodeError:
            return p
    try:
        p.encode("utf-8")
    except UnicodeEncodeError:
        return _os.fsencode(p)  # lone surrogates: the bytes os.fsdecode read them from
    return p


def partition_text(partition: Any) -> str:
    """'1,2|3,4', or two iterables of 1-based token positions; '' = balanced."""
    if partition is None:
        return ""
    if isinstance(partition, str):
        if not partition.strip():  # as the CLI's --partition '': an empty value is no default
            raise ValueError(f"partition: {partition!r} is empty; give 'A|B' such as '1,2|3,4', or None for the balanced one")
        return utf8_text(partition, "partition")
    try:
        a, b = partition
        # sized sides (lists, ranges): their memory before their text is made, at the
        # library's 64 bytes a token plus about 100 for the text and the Python ints
        sizes = []
        for side in (a, b):
            if hasattr(side, "__len__"):
                try:
                    sizes.append(len(side))
                except OverflowError:  # a range past 2^63 items
                    sizes.append(float("inf"))
        if sizes:
            total = sum(sizes)
            _core.check_memory(164.0 * total, 0.0, f"a partition of {total if total != float('inf') else 'over 2^63'} tokens", "")
        return ",".join(str(integer(x, "partition")) for x in a) + "|" + ",".join(str(integer(x, "partition")) for x in b)
    except (TypeError, ValueError):
        try:
            shown = repr(partition)
        except ValueError:  # an integer past Python's 4,300-digit limit: its repr raises
            shown = f"a {type(partition).__name__} holding an integer too long to show"
        raise ValueError("partition: expected 'A|B' such as '1,2|3,4', or two iterables of 1-based token "
                         f"positions such as ([1, 2], [3, 4]); got {shown}") from None


def choice(value: str, name: str, allowed: Sequence[str]) -> str:
    """value when it is one of ``allowed``; else ValueError listing them."""
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def int_list(v: Any, name: str) -> List[int]:
    """An int, a sequence of ints (a list, tuple, range or array), or range text '1..4,6'
    → a list of ints. Bytes, a dict or a set (iterated as bytes, keys, or in no order) and
    anything else are a ValueError naming ``name``."""
    if isinstance(v, str):  # the CLI's parser: the same lists and messages ('3..1' is an empty range)
        return list(_core.parse_list(v, name))
    if isinstance(v, _numbers.Integral):
        return [integer(v, name)]
    if isinstance(v, (bytes, bytearray, memoryview, dict, set, frozenset)) or not hasattr(v, "__iter__"):
        raise ValueError(f"{name}: expected an int, a list of ints or range text such as '1..4,6', got {v!r}")
    return [integer(x, name) for x in v]


def eps_list(eps: Any) -> List[float]:
    """One ε or a sequence of them, each a finite number >= 0 → a list of floats."""
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
        x = real(e, "eps", "a finite number >= 0 for every threshold")
        if not _math.isfinite(x) or x < 0:
            raise ValueError(f"eps: every threshold must be a finite number >= 0, got {_shown(e)}")
        out.append(x)
    return out

