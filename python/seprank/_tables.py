"""Tables: sweeps of generic ranks (``seprank table``), degree growth per depth and at a
fixed parameter budget (``seprank degree``), and the reference claims (``seprank
verify``); each returns rows or records, as the CLI prints them."""

from __future__ import annotations

import json as _json
import os as _os
import sys as _sys
from typing import Any, Dict, Iterable, List, Optional, Union

from . import _core
from ._answers import Claim
from ._boundary import FAMILIES, big_int, choice, eps_list, flag, given, ignored_options, int_list, integer, partition_text, path_arg, prime_bits_value, real, records_given, seconds, seed_value, thread_count, utf8_text, warn
from ._networks import Network, check_family, check_network, check_no_heads, spec_dict


def degree(net: Network, *, seed: Optional[int] = None, max_expand_bytes: float = 256 * 2**20) -> List[Dict[str, Any]]:
    """Degree growth per depth, measured, as ``seprank degree`` prints it.

    For each L = 1..depth (the first L layers): the degree measured along a random
    line t ↦ a + t·b mod p (a certified lower bound of deg f, exact when it equals the
    predicted d^L; a false low reading has probability ≤ d^L/p), the terms of the
    expansion when it is estimated below ``max_expand_bytes`` (else None), whose exact
    degree is then the row's ``measured`` (the library's degree_row, as the CLI),
    parameters and weight degree D_L. For a stack, L counts layers (its first L layers),
    as ``seprank degree --weights`` on ``net.to_json()``; ``seprank degree --layers SPEC
    --depth R`` instead gives one row per repetition of SPEC, each with fresh weights
    (its ``depth`` the layers: copies × the SPEC's length, as everywhere). A depth whose
    first layers are no network (the output coordinate beyond that layer's width, fc or
    power) has no row, as the CLI notes. ``measured`` is None where f is the zero
    polynomial at the network's weights (a weight drawn 0; certain when expanded, else
    f vanished on the line), as the CLI's ``-``.
    ``false_low_bound`` (d^L/p, plus the chance that the seed's random 62-bit prime p divides
    every coefficient of f's top form; 0 when expanded: the degree is then exact) bounds the
    chance that a measured degree below d^L is a false low reading; ``seconds`` the row's
    time (the CLI's JSON has both).
    """
    check_network(net, "net")
    s = seed_value(net.seed if seed is None and net.seed is not None else (1 if seed is None else seed))
    if isinstance(max_expand_bytes, int) and not isinstance(max_expand_bytes, bool) and max_expand_bytes > 2**1000:
        max_expand_bytes = float("inf")  # beyond a double: always expand, as inf
    if not real(max_expand_bytes, "max_expand_bytes", "a number of bytes >= 0 (inf: always expand)") >= 0:
        raise ValueError(f"max_expand_bytes: expected a number of bytes >= 0 (inf: always expand), got {max_expand_bytes!r}")
    rows = []
    for L in range(1, net.spec["depth"] + 1):
        try:
            sub = _core.truncate(net._net, L)
        except ValueError:  # its first L layers are no network (the coordinate beyond a narrower layer)
            continue
        # the library's row, as the CLI's: the expansion's exact degree where it is made
        r = _core.degree_row(sub, s, float(max_expand_bytes))
        rows.append({"depth": r["depth"], "measured": r["measured"], "predicted": big_int(r["predicted"]), "terms": r["terms"],
                     "parameters": big_int(r["parameters"]), "weight_degree": big_int(r["weight_degree"]),
                     "false_low_bound": r["false_low_bound"], "seconds": round(r["seconds"], 3)})
    return rows


def budget(budget: int, degrees: Iterable[int] = (1, 2, 3, 4, 5, 6), *, family: str = "hadamard",
           tokens: int = 4, dim: int = 2, heads: Optional[int] = None, width: Optional[int] = None,
           residual: bool = False, seed: int = 1, dimension: bool = True, rank: bool = False,
           threads: int = 2) -> Dict[str, Any]:
    """Fixed parameter budget B across block degrees d (``seprank degree --budget``).

    For each d: depth L = ⌊B / P(d)⌋ with P(d) the parameters of one layer (fc with
    ``width=W``: every layer W wide, the most layers B buys, the first one's count then
    each later one's, both in the row's ``note``), predicted
    d^L and measured degree, ln(d^L)/B next to h(d) = ln d / d. Returns
    {"rows": [...], "best_measured_d": d reaching the highest degree (None when every drawn output is
    the zero polynomial), "best_h_d": argmax h}.
    ``dimension`` (default, as the CLI) adds each row's functional dimension (dimension,
    dim_expected, dim_defect, dim_label, dim_failure_bound; None where L = 0); ``rank=True`` (the CLI's ``--rank``) its
    generic separation rank for the balanced partition (rank, rank_converged, and as the
    CLI's JSON log3_rank, rank_status — 'ok' or 'lower-bound' —, rank_label and
    rank_failure_bound: a generic lower bound at drawn weights, with the chance that it is
    below the generic rank). A row
    whose budget buys more than 64 layers (d = 1, say) is counted but not built: its
    ``note`` says so and measured, dimension and rank are None; ``note`` is "" otherwise
    (but for fc's two layer counts). ``heads`` applies to attention only, which the
    comparison refuses (its block degree is fixed).
    """
    dimension, rank = flag(dimension, "dimension"), flag(rank, "rank")
    # the library's refusal of a family the comparison cannot vary (stack, power, attention),
    # before a spec names a block degree the caller never gave
    _core.check_budget_family(check_family(family))
    check_no_heads(family, heads=heads)
    # fc takes its width as a list, one per layer: W for every layer (the budget sets how many);
    # 0, as hadamard's, is the default (every layer N·dx wide)
    if family == "fc" and width is not None and not isinstance(width, bool) and width == 0:
        width = None
    fc_width = family == "fc" and width is not None
    spec = spec_dict(family, tokens=tokens, dim=dim, depth=1, block_degree=2, heads=heads,
                     width=None if fc_width else width, widths=[width] if fc_width else None, residual=residual)
    opts = {"dimension": dimension, "rank": rank, "threads": thread_count(threads)}
    degree_list = int_list(degrees, "degrees")
    if not degree_list:
        raise ValueError("degrees: empty, give at least one block degree")
    if len(set(degree_list)) != len(degree_list):  # as the CLI's note: each block degree once
        warn(f"degrees={','.join(map(str, degree_list))} lists a value more than once: each runs once")
        degree_list = list(dict.fromkeys(degree_list))
    rows, best_measured, best_h = _core.budget_comparison(spec, integer(budget, "budget"), degree_list, seed_value(seed), opts)
    for r in rows:
        for k in ("layer_params", "params_used", "predicted"):
            r[k] = big_int(r[k])
        if "dimension_cells" in r:  # table --dimension's columns, as the CLI's JSON writes them
            r.update(_json.loads(r.pop("dimension_cells")))
        if "rank_cells" in r:  # the rank's label and failure bound (None where no rank), as the CLI's
            cells = _json.loads(r.pop("rank_cells"))
            r["rank_label"], r["rank_failure_bound"], r["log3_rank"] = cells["label"], cells["failure_bound"], cells["log3_rank"]
            r["rank_status"] = None if r["rank_converged"] is None else "ok" if r["rank_converged"] else "lower-bound"
    return {"rows": rows, "best_measured_d": best_measured or None, "best_h_d": best_h}  # None: no row reached a degree


# The text and boolean columns of a table row (docs/table.md); every other column is a
# number or null. A row resumed from a CSV file holds text cells: typed back to these.
_TEXT_COLUMNS = frozenset({"family", "layers", "partition", "label", "method", "theorem", "outside", "t73_flag", "status",
                           "reason", "eps", "eps_ranks", "eps_certified", "eps_reason", "device", "dim_label"})
_BOOL_COLUMNS = frozenset({"residual", "certified", "dim_defect", "at_cap"})


def _typed_csv_row(row: Dict[str, Any]) -> Dict[str, Any]:
    """A row read back from a CSV table file, with the JSON types of a computed row."""
    out: Dict[str, Any] = {}
    for key, cell in row.items():
        if not isinstance(cell, str) or key in _TEXT_COLUMNS:
            out[key] = None if cell == "" and key not in ("layers",) else cell
        elif cell == "":
            out[key] = None
        elif key in _BOOL_COLUMNS:
            out[key] = cell == "true"
        else:
            try:
                v = int(cell)
                out[key] = v if -2**63 <= v < 2**64 else cell  # beyond 64 bits: digits as text, as JSON rows
            except ValueError:
                out[key] = float(cell)
    return out


@records_given
def table(*, family: Any = None, tokens: Any = None, dim: Any = None, heads: Any = None, depth: Any = None,
          block_degree: Any = None, width: Any = None, residual: bool = False, budget: int = 0,
          partition: Any = None, trials: int = 1, seed: int = 1, method: str = "auto", max_side: int = 8192,
          variant: str = "auto", threads: int = 2, progress: bool = False, dataframe: Optional[bool] = None,
          eps: Any = (), measure: str = "uniform", eps_max_side: int = 4096, dimension: bool = False,
          layers: Any = None, row_seconds: Optional[float] = None, device: str = "cpu",
          out: Optional[Union[str, bytes, "_os.PathLike[str]"]] = None, resume: bool = False, out_format: str = "csv",
          blocks: bool = False, prime_bits: Optional[int] = None) -> Any:
    """A sweep of generic ranks, one row per configuration (``seprank table``).

    Each option takes an int, a list, or a range text such as '1..4'; the sweep is their
    product for each family (invalid combinations are left out). With no sweep option,
    the default table (63 rows, about 25 s on 2 cores, 50-bit primes). Rows carry the columns of docs/table.md
    (family … rank, label, method, failure_bound, log3_rank, Levine et al. bounds,
    status, seconds, peak_mib). Returns a list of dicts, or a pandas DataFrame when
    pandas is importable (``dataframe=None``) or asked for (``dataframe=True``).
    ``progress=True`` prints "[k/n] network" lines to stderr. Configurations too large to
    build are left out with a UserWarning (the CLI's note); a sweep of only those raises
    ResourceLimitError.
    ``eps`` (a number or a list, relative to ‖f‖) adds the ε-rank columns of ``seprank table
    --eps`` (eps, eps_ranks, eps_certified, eps_reason; docs/table.md) under ``measure``
    ('uniform' or 'gaussian'), for flattenings of side at most ``eps_max_side``.
    ``dimension=True`` adds the functional dimension of every row (``seprank table
    --dimension``: columns dimension, dim_expected, dim_defect, dim_label, dim_failure_bound; scalar output, seeded by
    ``seed``; docs/table.md).
    ``layers`` sweeps stacks (``seprank table --layers``): one SPEC, several separated by
    ';' ('attention;attention,mlp:power=3'), or a list of SPECs; each is repeated ``depth``
    times, and the family is 'stack' unless ``family`` lists families. The rows then
    carry a ``layers`` column (the SPEC in canonical form, '' for other families).
    ``row_seconds``: each row's evaluation time budget (``seprank table --row-seconds``;
    0: none; None: 10 s for the default table, none for other sweeps); a row it ends is a
    lower bound with status 'lower-bound' (docs/table.md, "Budgets").
    ``device`` ('cpu' | 'cuda' | 'auto', docs/gpu.md): where the rows' evaluations run
    (``seprank table --device``); 'cuda' without a GPU raises ValueError; 'auto' without
    one runs on the CPU and warns why (UserWarning), and its rows are those of 'cpu' (no
    ``device`` column, which only a sweep on the GPU has).
    ``out`` (a path: str, bytes or os.PathLike; '' or one holding a NUL byte raises
    ValueError, as the CLI's ``--out ""``): the table file of ``seprank table --out`` — each row appended as it
    completes, CSV or JSON lines by ``out_format`` ('csv' | 'json'), the file locked while
    the sweep runs. A file that exists and is not empty is refused unless ``resume=True``
    (``--resume``): then its rows are reused (the file must have been written by the same
    sweep options; another sweep's file raises ValueError) and only the missing rows are
    computed. The CLI and Python read and write the same files. ``max_side`` may differ
    from the file's: lower-bound rows it stopped at a smaller side are computed again
    (a UserWarning counts them).
    ``blocks=True`` (``seprank table --blocks``, docs/table_blocks.md): one row per
    configuration and degree block, with the columns block, blocks, rank (of the block),
    cap_a, cap_b, at_cap, status (per block: lower-bound below its cap when the
    configuration's evaluation stopped early) and total; every row is computed by the
    graded evaluation (method 'flattening' and variant 'plain' raise ValueError).
    ``prime_bits`` (20..62, ``seprank table --prime-bits``; None: 62, the default table 50):
    the size of every row's random primes, as ``generic_rank``'s: at most 52 (50 without AVX-512 IFMA) runs the evaluation
    on a vector kernel, about 3x faster, and each row's failure bound grows by about
    2^(62 - prime_bits). A table file records it (a value other than 62 is another sweep).
    """
    residual, resume, progress = flag(residual, "residual"), flag(resume, "resume"), flag(progress, "progress")
    dimension, blocks = flag(dimension, "dimension"), flag(blocks, "blocks")
    if dataframe is not None:
        dataframe = flag(dataframe, "dataframe")
    if resume and out is None:
        raise ValueError("resume=True needs out=PATH (the table file to resume)")
    out_format = choice(out_format, "out_format", ("csv", "json"))
    custom = any(v is not None for v in (family, tokens, dim, heads, depth, block_degree, width, layers)) or residual or budget
    sweeps = []
    if custom:
        sw: Dict[str, Any] = {"residual": residual, "budget": integer(budget, "budget"),
                              "block_degrees": int_list(block_degree, "block_degree") if block_degree is not None else [2]}
        if family is not None:
            if not isinstance(family, (str, list, tuple)):
                raise ValueError(f"family: expected a family name, names comma-separated or a list of names, got {family!r}")
            fams = family.split(",") if isinstance(family, str) else list(family)
            if not fams:  # an empty list is no default, as the CLI's --family ''
                raise ValueError("family: an empty list; give at least one family")
            sw["families"] = [choice(f, "family", FAMILIES) for f in fams]
        for key, name, v in (("tokens", "tokens", tokens), ("dims", "dim", dim), ("heads", "heads", heads),
                             ("depths", "depth", depth), ("widths", "width", width)):
            if v is not None:
                sw[key] = int_list(v, name)
                if not sw[key]:  # [] (an empty range text names itself in int_list's parser)
                    raise ValueError(f"{name}: an empty list; give at least one value")
        if layers is not None:
            if isinstance(layers, str):
                sw["layers"] = _core.split_layers_list(utf8_text(layers, "layers"))
            elif isinstance(layers, (list, tuple)) and layers and all(isinstance(x, str) for x in layers):
                sw["layers"] = [t for x in layers for t in _core.split_layers_list(utf8_text(x, "layers"))]
            else:
                raise ValueError(f"layers: expected a SPEC text or a non-empty list of SPEC texts, got {layers!r}")
        sweeps.append(sw)
    opts = {"partition": partition_text(partition), "trials": integer(trials, "trials"), "seed": seed_value(seed),
            "method": choice(method, "method", ("auto", "flattening", "evaluation")),
            "max_side": integer(max_side, "max_side"), "variant": choice(variant, "variant", ("auto", "plain", "graded")),
            "threads": thread_count(threads), "eps": eps_list(eps),
            "measure": choice(measure, "measure", ("uniform", "gaussian")), "eps_max_side": integer(eps_max_side, "eps_max_side"),
            "dimension": dimension, "device": choice(device, "device", ("auto", "cpu", "cuda")),
            "out": "" if out is None else path_arg(out, "out"), "resume": resume, "out_json": out_format == "json",
            "blocks": blocks}
    if prime_bits is not None:  # None: the sweep's own (the default table's 50, else 62), as the CLI
        opts["prime_bits"] = prime_bits_value(prime_bits)
    if row_seconds is not None:
        opts["max_seconds"] = seconds(row_seconds, "row_seconds")

    def show(k: int, n: int, what: str) -> None:
        print(f"[{k + 1}/{n}] {what}", file=_sys.stderr, flush=True)

    result = _core.table(sweeps, opts, show if progress else None)
    texts, invalid, unused, device_note = result["rows"], result["invalid"], result["unused"], result["device_note"]
    off_cpu, duplicates = result["off_cpu"], result["duplicates"]
    if result["file_duplicates"]:  # as the CLI's notes about a resumed file
        warn(f"{result['file_duplicates']} row(s) of {out} repeat an earlier row's configuration: the last of each "
             "was reused")
    if result["file_recompute"]:
        hinted = (f" ({result['file_hinted']} of them with their block ranks as block hints, docs/evaluation.md)"
                  if result["file_hinted"] else "")
        warn(f"{result['file_recompute']} lower-bound row(s) of {out} stopped at a smaller max side: computed "
             f"again at {max_side}, the new rows appended{hinted}")
    if result["file_recompute_columns"]:
        warn(f"{result['file_recompute_columns']} row(s) of {out} had a rank, dimension or variety left empty by a "
             "limit (their reason says which): computed again, the new rows appended")
    if result["file_outside"]:
        warn(f"{result['file_outside']} row(s) of {out} are outside this sweep: kept in the file, not returned")
    if device_note:  # device='auto' without a GPU: the rows ran on the CPU (the CLI's note)
        warn(device_note)
    if invalid:  # as the CLI's summary line on stderr
        warn(f"{invalid} invalid combinations left out (the first: {result['first_invalid']})")
    if result["too_large"]:  # as the CLI's note
        warn(f"{result['too_large']} configuration(s) too large to build left out (the first: "
             f"{result['first_too_large']})")
    if duplicates:  # as the CLI's summary line
        warn(f"{duplicates} duplicate configurations planned once (the same row as an earlier one: "
             "a value listed twice, or a SPEC that repeats another at another depth)")
    # An option no row used gets a warning, as the CLI's note (the keywords written in the call).
    written = {"max_side": given("max_side", max_side, 8192), "variant": given("variant", variant, "auto"),
               "row_seconds": row_seconds is not None, "measure": given("measure", measure, "uniform"),
               "heads": heads is not None, "width": width is not None, "block_degree": block_degree is not None,
               "budget": bool(budget), "layers": layers is not None, "depth": depth is not None,
               "eps_max_side": given("eps_max_side", eps_max_side, 4096)}
    values = {"max_side": max_side, "variant": variant, "row_seconds": row_seconds, "measure": measure, "eps_max_side": eps_max_side,
              "heads": heads,
              "width": width, "block_degree": block_degree, "budget": budget, "layers": layers, "depth": depth}
    for names, reason in unused:
        for text in ignored_options(written, values, names, reason):
            warn(text)
    rows = [_json.loads(t) for t in texts]
    if out is not None and resume and out_format == "csv":  # rows reused from a CSV file hold text cells
        rows = [_typed_csv_row(r) if isinstance(r.get("tokens"), str) else r for r in rows]
    tag = _core.RANK_REFUSED
    refused = [r["reason"][len(tag):] for r in rows
               if r.get("status") == "skipped" and str(r.get("reason", "")).startswith(tag)]
    if refused:  # as the CLI's note: rows whose rank the process's memory limit refused
        first = refused[0].split(";")[0]
        by_limit = any(f"({n})" in first for n in ("max_memory", "--max-memory", "seprank.set_max_memory", "max_time"))
        ways = " [here: method='evaluation', which never expands]" if first.startswith("expansion refused") else ""
        warn(f"{len(refused)} row(s) skipped: a limit refused their rank (the first: {first}){ways}"
             + ("; resume=True computes them again once the limit admits them" if out is not None and by_limit else ""))
    if dataframe is False:
        return rows
    try:
        import pandas
    except ImportError:
        if dataframe:
            raise ImportError("table(dataframe=True) needs pandas (apt-get install python3-pandas)") from None
        return rows
    if blocks:
        return pandas.DataFrame(rows, columns=_core.table_block_columns(layers is not None, off_cpu))
    return pandas.DataFrame(rows, columns=_core.table_columns(bool(opts["eps"]), opts["dimension"], layers is not None, off_cpu))


def claims() -> Dict[str, str]:
    """Every claim ``verify`` checks, name → statement, in the order it runs them."""
    return {n: _core.claim_statement(n) for n in _core.claim_names()}


def verify(names: Any = None, *, seed: int = 1) -> List[Claim]:
    """Exact checks of the reference results (``seprank verify``): one Claim each."""
    if names is None:
        names = _core.claim_names()
    elif isinstance(names, str):
        names = [names]
    elif isinstance(names, (bytes, bytearray)):
        raise ValueError(f"names: expected a claim name (str) or a list of names (seprank.claims()), got {names!r}")
    try:
        names = list(names)
    except TypeError:
        raise ValueError(f"names: expected a claim name or a list of names (seprank.claims()), got {names!r}") from None
    for n in names:
        if not isinstance(n, str):
            raise ValueError(f"names: expected claim names (strings), got {n!r}")
        utf8_text(n, "names")
    statements = [_core.claim_statement(n) for n in names]  # unknown names fail before any work
    out = []
    for n, s in zip(names, statements):
        name, passed, detail, checked = _core.run_claim(n, seed_value(seed))
        out.append(Claim(name, passed, detail, s, checked))
    return out
