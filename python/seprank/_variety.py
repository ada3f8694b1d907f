"""Neurovarieties: the degree of a network's image and its gauge fibre (docs/variety.md),
and the defective power networks of a range (docs/defects.md); the library's
network_variety and defect_sweep, as ``seprank variety`` and ``seprank defects`` run them."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional

from . import _core
from ._boundary import choice, flag, integer, max_time_seconds, named_max_time, seconds, seed_value, thread_count
from ._dimension import _spec


def variety(net: Any, *, trials: int = 3, seed: int = 1, max_unknowns: int = 8, max_interpolation: int = 20000,
            max_equation_monomials: int = 2500, generic_slice: bool = False, degree_slice: str = "smallest-fibre", threads: int = 2) -> Dict[str, Any]:
    """The image of the parameter map of ``net`` (a Network: its architecture; or a dict
    of network options), its neurovariety X, for the scalar output: a dict with
    ``dimension`` (as :func:`dimension`, with ``dimension_kind`` and
    ``dimension_failure_bound``), ``degree`` (deg X where every trial agrees, else None),
    ``degree_kind`` ("proven", "proven given the dimension" or "counted": what ``degree`` is),
    ``degree_at_least`` and ``degree_at_least_failure_bound`` (a lower bound on deg X, certain
    unless the dimension is larger, the chance of which is that bound; None where no trial
    certified its section), ``degree_at_most`` and ``degree_at_most_failure_bound`` (an upper
    bound on deg X, the Newton polytope's bound on a section's solutions, certain on the same
    condition; equal to ``degree_at_least`` where deg X is proven), ``gauge_fibre_at_most`` and
    ``degree_fibre_at_most`` (upper bounds on the two slices' fibres, on the same condition;
    1 proves the slice identifiable), ``span_dimension`` (the image's affine span, exact),
    ``equation_degree``, ``equation_coordinates`` and ``equation`` (where X is a hypersurface of
    its span, its least equation P in y1..yρ, the coefficients of the listed monomials,
    checked over Q; then the dimension is exact and ``degree_at_least`` = ``degree_at_most`` =
    deg X, with failure bounds 0; searched up to ``max_equation_monomials`` monomials, 0 for
    none; docs/equation.md),
    ``parameters``, ``fibre_dimension``, ``gauge_fibre_points`` (weight settings per generic
    function with all but dim X weights fixed: the discrete symmetries left), ``free_weights``,
    ``degree_fibre_points`` and ``degree_free_weights`` (the slice the degree was counted on:
    ``degree_slice`` "smallest-fibre", the one of two with fewer points per function, or
    "gauge", the reference), ``agreed``, ``primes``, ``section_points`` and ``section_images`` (per trial; the
    distinct functions among a section's simple solutions, -1 where not certified), with ``generic_slice``
    also ``fibre_points`` (the generic fibre's degree), and ``label``. Each of ``trials``
    trials counts points from Gröbner bases mod a 16-bit prime; ``seed`` as
    ``seprank variety --seed``: the same arguments give the same numbers as the CLI, on any
    number of ``threads``. Over ``max_unknowns`` or ``max_interpolation``:
    :class:`ResourceLimitError`.
    """
    opts = {"trials": integer(trials, "trials"), "seed": seed_value(seed),
            "max_unknowns": integer(max_unknowns, "max_unknowns"), "max_interpolation": integer(max_interpolation, "max_interpolation"),
            "max_equation_monomials": integer(max_equation_monomials, "max_equation_monomials"),
            "generic_slice": flag(generic_slice, "generic_slice"), "degree_slice": choice(degree_slice, "degree_slice", ("smallest-fibre", "gauge")),
            "threads": thread_count(threads)}
    return json.loads(_core.variety(_spec(net, None), opts))


def equation(net: Any, *, seed: int = 1, min_degree: int = 1, max_degree: int = 16, max_monomials: int = 2500,
             max_terms: int = 2000000, max_seconds: float = 600) -> Dict[str, Any]:
    """The affine span of the image of ``net``'s parameter map (the scalar output) and, where
    the image X is a hypersurface there, its least equation (docs/equation.md): a dict with
    ``dimension``, ``dimension_kind`` (``exact`` once the equation or the span proves it),
    ``dimension_failure_bound``, ``parameters``, ``monomials``, ``span_dimension``,
    ``degree`` (deg X where proven, else None), ``degree_at_most``, ``equation_degree``,
    ``searched_to`` (the degrees certified to hold no equation), ``primes_used`` (how many),
    ``equation_coordinates`` (the monomials whose coefficients are y1..yρ, ", "-separated) and
    ``equation`` (P's text in y1..yρ, or None), ``label`` and ``seconds``: ``seprank equation``'s
    numbers for the same arguments. Degrees ``min_degree``..``max_degree`` are searched, each
    space of at most ``max_monomials`` monomials; the expansion stops past ``max_terms`` terms
    and the search after ``max_seconds`` (reported in the label, not raised).
    """
    opts = {"seed": seed_value(seed), "min_degree": integer(min_degree, "min_degree"), "max_degree": integer(max_degree, "max_degree"),
            "max_monomials": integer(max_monomials, "max_monomials"), "max_terms": integer(max_terms, "max_terms"),
            "max_seconds": seconds(max_seconds, "max_seconds", none_at_zero=False)}
    return json.loads(_core.equation(_spec(net, None), opts))


def defects(*, max_width: int = 5, min_depth: int = 2, max_depth: int = 4, min_power: int = 2, max_power: int = 5,
            seed: int = 1, threads: int = 2, max_time: Optional[float] = None) -> Dict[str, Any]:
    """Every one-output power network with widths 2..``max_width`` (n_L = 1), depth
    ``min_depth``..``max_depth`` weight matrices and exponents ``min_power``..``max_power``
    (by default Massarenti–Mella's range), each one's dimension against their expected
    dimension and seprank's bound (docs/defects.md): a dict with the counts (``networks``,
    ``skipped``, ``exact``, ``defective``, ``by_bound``, ``by_level``, ``unexplained``,
    ``silent``, ``ah_mismatch``, ``levels``: the keys and numbers of ``seprank defects
    --format json``), ``rows`` (one dict per network, the columns of ``seprank defects
    --format csv``) and ``level_rows`` (each level measured: ``inputs``, ``width``,
    ``outputs``, ``power``, ``expected``, ``dimension``; ``levels`` counts them). ``seed``:
    network i is measured with seed + i, as the CLI's. ``max_time``: seconds; a range
    whose networks are estimated to take longer (at least 50 µs each per thread), or a
    network whose dimension is, raises :class:`ResourceLimitError` before it starts.
    None: the library's default (60 s, ``--max-time``).
    """
    rng = {"max_width": integer(max_width, "max_width"), "min_depth": integer(min_depth, "min_depth"),
           "max_depth": integer(max_depth, "max_depth"), "min_power": integer(min_power, "min_power"),
           "max_power": integer(max_power, "max_power"), "seed": seed_value(seed), "threads": thread_count(threads)}
    if max_time is not None:
        rng["max_seconds"] = max_time_seconds(max_time)
    summary, rows, levels = named_max_time(lambda: _core.defects(rng))
    out = json.loads(summary)
    out["rows"] = json.loads(rows)
    out["level_rows"] = json.loads(levels)  # "levels" stays the CLI's count of them
    return out
