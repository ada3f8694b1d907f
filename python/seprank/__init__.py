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

# The modules, by what they serve (each has its own docstring):
#   _boundary     checks every argument once and converts it for the compiled module
#                 _core (exact numbers, matrices, weights, options, partitions)
#   _networks     Network, network(), attention(), hadamard(), fc(), stack(), power(), from_weights()
#   _polynomials  Polynomial, poly(), expand()
#   _answers      Answer, EpsRank, Spectrum, Claim: the read-only results
#   _ranks        rank(), generic_rank(), spectrum()
#   _tables       table(), degree(), budget(), claims(), verify()
#   _guess        guess(), Guess: closed forms of a table column; guess_blocks(), BlockLaw: block laws
#   _dimension    dimension(), expected_dimension(): functional dimension
#   _variety      variety(), equation(), defects(): the image's degree, fibre and equation; defective power networks
#   _limits       max_memory(), set_max_memory(): the process-wide memory limit
# Everything public is imported here: `seprank.X` and `from seprank import X` are the
# import paths to use; the modules' names may change.
from ._answers import Answer, Claim, EpsRank, Spectrum
from ._boundary import ResourceLimitError, version as _version
from ._networks import Network, attention, fc, from_weights, hadamard, network, power, stack
from ._polynomials import Polynomial, expand, poly
from ._guess import BlockLaw, Guess, guess, guess_blocks
from ._dimension import dimension, expected_dimension
from ._variety import defects, equation, variety
from ._ranks import generic_rank, rank, spectrum
from ._tables import budget, claims, degree, table, verify
from ._limits import max_memory, set_max_memory

__all__ = [
    "Answer", "Network", "Polynomial", "ResourceLimitError", "Claim",
    "attention", "hadamard", "fc", "stack", "power", "network", "from_weights", "poly", "expand",
    "degree", "budget", "rank", "generic_rank", "spectrum", "Spectrum", "EpsRank", "table", "verify", "claims",
    "guess", "Guess", "guess_blocks", "BlockLaw", "dimension", "expected_dimension", "variety", "equation", "defects",
    "max_memory", "set_max_memory",
    "__version__",
]

__version__: str = _version

# help(), repr() and pickle name the public objects by the path users write.
for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", "").startswith("seprank._") and _obj is not ResourceLimitError:
        _obj.__module__ = __name__
del _name, _obj
