"""Polynomials: the exact polynomial type, the parser of polynomial text, and the
expansion of a network's output f (docs/poly.md, docs/poly_io.md, docs/expand.md)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Dict, Iterator, List, Tuple

from . import _core
from ._boundary import big_int, memory_bytes, utf8_text
from ._networks import Network, check_network


class Polynomial:
    """An exact polynomial over Q in variables x<j>_<c> (token j, coordinate c).

    ``degree`` (total; −1 for 0), ``terms`` (non-zero terms), ``variables`` (names, in
    the order of the exponent tuples), ``homogeneous``; iterating gives
    (exponent tuple, Fraction) pairs in degrevlex order, leading term first; ``str``
    is the canonical text that :func:`poly` reads back; :meth:`to_sympy` needs SymPy.
    """

    __slots__ = ("_p",)

    def __init__(self, core: Any) -> None:
        if not isinstance(core, _core.Poly):
            raise ValueError(f"Polynomial: made by poly() or expand(), not from {type(core).__name__}")
        self._p = core

    def __reduce__(self) -> Any:
        # pickle and copy: the canonical text and the variables, in their order (a network's
        # expansion keeps every token's variables, those it does not use too)
        return (_polynomial_from_state, (str(self), self.variables))

    @property
    def degree(self) -> int:
        """The total degree; −1 for the zero polynomial."""
        return self._p.degree()

    @property
    def terms(self) -> int:
        """The number of non-zero terms."""
        return self._p.terms()

    @property
    def variables(self) -> List[str]:
        """The variable names, in the order of the exponent tuples of iteration."""
        return self._p.variables()

    @property
    def homogeneous(self) -> bool:
        """Whether every term has the same total degree (True for 0)."""
        return self._p.is_homogeneous()

    def __len__(self) -> int:
        return self.terms

    def __iter__(self) -> Iterator[Tuple[Tuple[int, ...], Fraction]]:
        for k in range(self.terms):
            exps, num, den = self._p.term(k)
            yield tuple(exps), Fraction(big_int(num), big_int(den))

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
        xs = tuple(sympy.Symbol(v) for v in self.variables)
        expr = sympy.Integer(0)
        for exps, c in self:
            term = sympy.Rational(c.numerator, c.denominator)
            for x, e in zip(xs, exps):
                if e:
                    term *= x ** e
            expr += term
        return expr


def _polynomial_from_state(text: str, variables: List[str]) -> Polynomial:
    """A pickled Polynomial (Polynomial.__reduce__)."""
    return Polynomial(_core.parse_poly_in(text, list(variables)))


def poly(text: str) -> Polynomial:
    """Parses a polynomial, e.g. ``"3/4*x1_2^3*x2_1 - x1_1 + 2"`` (docs/poly_io.md):
    + - * /, ^ with integer exponents, parentheses; division by constants only."""
    if not isinstance(text, str):
        raise ValueError(f"text: expected a string, got {type(text).__name__}")
    return Polynomial(_core.parse_poly(utf8_text(text, "text")))


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
    check_network(net, "net")
    for name, value in (("variant", variant), ("product", product)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return Polynomial(_core.expand(net._net, memory_bytes(max_memory), variant, product))

