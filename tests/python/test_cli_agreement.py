# The package and the CLI give the same numbers on the same inputs: ranks (every method,
# field, partition form), degrees, term counts, failure bounds, table rows, verify.
import csv
import itertools
import json
import random
import re
import subprocess
import warnings

import numpy as np
import pytest

import seprank
from conftest import answer_keys

SEED = 20261123


def same_answer(py_answer, cli_json):
    d = py_answer.to_dict()
    for k in answer_keys():
        assert d[k] == cli_json[k], f"{k}: python {d[k]!r} vs CLI {cli_json[k]!r}"
    # the attributes say the same as the record
    assert py_answer.value == py_answer.rank == cli_json["rank"]
    assert py_answer.kind == cli_json["kind"] and py_answer.label == cli_json["label"]
    assert py_answer.certified == cli_json["certified"]
    assert py_answer.degree == (None if cli_json["degree"] is None else int(cli_json["degree"]))
    assert py_answer.terms == cli_json["terms"]
    # printed rounded up at 3 digits: never below the bound, at most one unit of the last digit above
    fb = py_answer.failure_bound
    assert fb <= cli_json["failure_bound"] <= max(fb * 1.0101, 5e-324), (fb, cli_json["failure_bound"])
    assert py_answer.rows == cli_json["rows"] and py_answer.cols == cli_json["cols"]


def random_cases(n):
    """Small networks of every family with random options (seeded)."""
    rng = random.Random(SEED)
    cases = []
    while len(cases) < n:
        family = rng.choice(["attention", "hadamard", "fc"])
        tokens, dim, depth = rng.randint(2, 3), rng.randint(1, 2), rng.randint(1, 2)
        args = ["--family", family, "--tokens", tokens, "--dim", dim, "--depth", depth]
        kw = dict(tokens=tokens, dim=dim, depth=depth)
        if family != "attention":
            d = rng.randint(2, 3)
            args += ["--block-degree", d]
            kw["block_degree"] = d
        if family == "hadamard" and rng.random() < 0.5:
            args += ["--free"]
            kw["free"] = True
        if rng.random() < 0.3:
            args += ["--residual"]
            kw["residual"] = True
        seed = rng.randint(1, 10**6)
        cases.append((family, args + ["--seed", seed], dict(kw, seed=seed)))
    return cases


@pytest.mark.parametrize("family,args,kw", random_cases(6))
def test_rank_every_method_matches_cli(cli, family, args, kw):
    net = seprank.network(family, **kw)
    n = kw["tokens"]
    parts = [None, "1|" + ",".join(map(str, range(2, n + 1)))]
    for part, (method, field) in itertools.product(parts, [("flattening", "Q"), ("flattening", "p"),
                                                           ("grid", "Q"), ("evaluation", "Q")]):
        extra = ["--partition", part] if part else []
        c = cli("rank", *args, "--method", method, "--field", field, *extra)
        same_answer(seprank.rank(net, part, method=method, field=field), c)


def test_partition_forms_and_explicit_seed(cli):
    net = seprank.attention(tokens=4, dim=2, depth=1, seed=9)
    c = cli("rank", "--tokens", 4, "--dim", 2, "--seed", 9, "--partition", "1,3|2,4")
    for part in ("1,3|2,4", ([1, 3], [2, 4]), ((1, 3), range(2, 5, 2))):
        same_answer(seprank.rank(net, part), c)
    # seed: the network's by default, as --seed sets both in the CLI
    g = cli("rank", "--tokens", 4, "--dim", 2, "--seed", 9, "--method", "grid", "--templates", 3)
    same_answer(seprank.rank(net, method="grid", templates=3), g)
    assert seprank.rank(net, method="grid", templates=3, seed=9).to_dict()["rank"] == g["rank"]


def test_grid_with_template_vectors(cli, tmp_path):
    path = tmp_path / "t.json"
    path.write_text('[[1, 0], [0, "1/2"], [2, -3]]')
    net = seprank.attention(tokens=3, dim=2, depth=2, seed=5)
    c = cli("rank", "--tokens", 3, "--dim", 2, "--depth", 2, "--seed", 5, "--method", "grid",
            "--templates-file", path)
    from fractions import Fraction
    same_answer(seprank.rank(net, method="grid", templates=[[1, 0], [0, Fraction(1, 2)], [2, -3]]), c)
    same_answer(seprank.rank(net, method="grid", templates=np.array([[1, 0], [0, 0.5], [2, -3]])), c)


def test_evaluation_variants_and_max_side(cli):
    net = seprank.attention(tokens=2, dim=2, depth=2, seed=3)
    for variant in ("plain", "graded"):
        c = cli("rank", "--tokens", 2, "--dim", 2, "--depth", 2, "--seed", 3, "--method", "evaluation",
                "--variant", variant, "--max-side", 24)
        a = seprank.rank(net, method="evaluation", variant=variant, max_side=24)
        same_answer(a, c)
        # graded runs with the parity reduction on attention (docs/evaluation.md, "Parity")
        assert a.variant == {"plain": "plain", "graded": "graded-parity"}[variant]


def test_poly_and_matrix_match_cli(cli, tmp_path):
    text = "x1_1*x2_1 + 3/4*x1_2^2*x2_2 - x1_1*x3_1*x2_2 + 2"
    f = seprank.poly(text)
    c = cli("rank", "--poly", text, "--partition", "1|2,3")
    same_answer(seprank.rank(f, "1|2,3"), c)
    assert c["polynomial_terms"] == f.terms
    p = cli("poly", text)
    assert p["degree"] == f.degree and p["terms"] == f.terms and p["polynomial"] == str(f)
    # a matrix: numpy in, the CLI reads the same matrix from Matrix Market
    rng = np.random.default_rng(SEED)
    m = rng.integers(-3, 4, size=(7, 5)) @ rng.integers(-3, 4, size=(5, 9))  # rank <= 5
    lines = ["%%MatrixMarket matrix array integer general", f"{m.shape[0]} {m.shape[1]}"]
    lines += [str(m[i, j]) for j in range(m.shape[1]) for i in range(m.shape[0])]
    path = tmp_path / "m.mtx"
    path.write_text("\n".join(lines) + "\n")
    for field in ("Q", "p"):
        c = cli("rank", "--matrix", path, "--field", field)
        a = seprank.rank(m, field=field)
        same_answer(a, c)
        assert a.value == np.linalg.matrix_rank(m)  # small integers: floats are reliable here
        assert seprank.rank(m.tolist(), field=field).value == a.value


def test_expand_matches_cli(cli):
    for family, args, kw in random_cases(5):
        net = seprank.network(family, **kw)
        f = seprank.expand(net)
        c = cli("expand", *args)
        assert f.degree == c["degree"] and f.terms == c["terms"] and f.homogeneous == c["homogeneous"]
        assert net.parameters == int(c["parameters"]) and net.weight_degree == int(c["weight_degree"])
        assert net.degree == int(c["predicted_degree"])
        printed = cli("expand", *args, "--print")["polynomial"]
        assert str(f) == printed
        # iteration: exponent tuples and Fractions that rebuild the same text
        assert len(list(f)) == f.terms
        assert all(sum(e) <= f.degree for e, _ in f)
        assert str(seprank.poly(str(f))) == str(f)


def test_expand_variants_match_cli(cli):
    # attention through the moment matrix, layer by layer, and the automatic choice: one
    # polynomial, from Python and from the CLI
    args = ["--tokens", "3", "--dim", "2", "--depth", "2", "--heads", "2", "--residual", "--seed", "4"]
    net = seprank.network("attention", tokens=3, dim=2, depth=2, heads=2, residual=True, seed=4)
    texts = set()
    for variant in ("auto", "layered", "moment"):
        texts.add(str(seprank.expand(net, variant=variant)))
        c = cli("expand", *args, "--variant", variant, "--print")
        texts.add(c["polynomial"])
        assert c["variant"] == ("moment" if variant == "auto" else variant)
        assert c["peak_mib"] > 0
    assert len(texts) == 1
    with pytest.raises(ValueError, match="moments"):
        seprank.expand(net, variant="moments")
    # product variants: the same polynomial again, from both faces; weights past 62 bits
    # after two layers, so digits and dense both run
    big = ["--tokens", "2", "--dim", "2", "--depth", "3", "--weight-range", "1099511627776", "--seed", "3"]
    bnet = seprank.network("attention", tokens=2, dim=2, depth=3, weight_range=1099511627776, seed=3)
    ptexts = set()
    for product in ("flint", "digits", "dense", "auto"):
        ptexts.add(str(seprank.expand(bnet, product=product)))
        c = cli("expand", *big, "--product", product, "--print")
        assert c["product"] == product
        ptexts.add(c["polynomial"])
    assert len(ptexts) == 1
    with pytest.raises(ValueError, match="heap"):
        seprank.expand(net, product="heap")
    with pytest.raises(ValueError, match="attention only"):
        seprank.expand(seprank.network("hadamard", tokens=2, dim=2, depth=1, block_degree=2, seed=1), variant="moment")


def test_generic_matches_cli(cli):
    for family, args, kw in random_cases(4):
        kw = {k: v for k, v in kw.items() if k != "seed"}
        for method in ("auto", "evaluation"):
            c = cli("generic", *args[:-2], "--seed", 4, "--trials", 3, "--method", method)
            a = seprank.generic_rank(seprank.network(family, **kw), trials=3, seed=4, method=method)
            same_answer(a, c)
            # exact where a graded trial reached every block cap (docs/generic.md): no more trials run
            assert a.kind in ("generic", "modular-lower-bound", "exact")
            assert len(a.trial_ranks) == (1 if a.kind == "exact" else 3) == a.trials, (a.kind, a.trial_ranks)
            assert (a.kind == "exact") == ("reached its cap" in a.note or "reached the flattening's cap" in a.note)
            assert seprank.generic_rank(dict(kw, family=family), trials=3, seed=4, method=method).to_dict()["rank"] == c["rank"]



def test_generic_and_dimension_seed_is_not_the_networks(cli):
    # docs/python.md, "Differences from the CLI": generic_rank and dimension read only the
    # architecture; their seed defaults to 1 whatever the network's seed, unlike rank.
    net = seprank.attention(tokens=3, depth=2, seed=5)
    base = ["--tokens", 3, "--depth", 2]
    assert seprank.generic_rank(net).prime == cli("generic", *base)["prime"]
    assert seprank.generic_rank(net, seed=5).prime == cli("generic", *base, "--seed", 5)["prime"]
    assert seprank.dimension(net).prime == cli("dimension", *base)["prime"]
    assert seprank.rank(net, field="p").prime == cli("rank", *base, "--seed", 5, "--field", "p")["prime"]

def test_generic_block_store_matches_cli(cli, tmp_path):
    # N=3 stays below its caps, so both trials run (an exact first trial would end the run)
    args = ("--tokens", 3, "--dim", 2, "--depth", 3, "--trials", 2, "--method", "evaluation", "--max-side", 20000)
    mem = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000)
    store = str(tmp_path / "s")
    a = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000, store=store)
    c = cli("generic", *args, "--store", store)  # the same store: every unit is already there
    same_answer(a, c)
    assert a.to_dict()["rank"] == mem.to_dict()["rank"] and a.trial_ranks == mem.trial_ranks
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["trial0", "trial1"]
    with pytest.raises(ValueError, match="another computation"):
        seprank.generic_rank(dict(tokens=2, dim=3, depth=3), trials=2, seed=9, method="evaluation", max_side=20000,
                             store=store)
    with pytest.raises(ValueError, match="store"):
        seprank.generic_rank(dict(tokens=2, dim=3, depth=3), store="")
    with pytest.raises(ValueError, match="growth"):
        seprank.generic_rank(dict(tokens=2, dim=3, depth=3), method="evaluation", growth=1.0)


def test_generic_block_hints_match_cli(cli, cli_path, tmp_path):
    # Hints from a block table (the CLI's --hint-blocks) or a list: the CLI's answer, and the
    # rank without hints.
    table = tmp_path / "blocks.csv"
    subprocess.run([cli_path, "table", "--blocks", "--tokens", "3", "--dim", "2", "--depth", "3", "--format", "csv",
                    "--out", str(table)], check=True, capture_output=True)
    args = ("--tokens", 3, "--dim", 2, "--depth", 3, "--trials", 2, "--method", "evaluation", "--max-side", 20000)
    c = cli("generic", *args, "--hint-blocks", str(table))
    a = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000, block_hints=str(table))
    same_answer(a, c)
    b = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000, block_hints=a.block_ranks)
    times = {"seconds": 0, "peak_mib": 0, "phases": 0}
    assert b.to_dict() | times == a.to_dict() | times
    # the phases as an attribute too, as the record's object (a new user's try: to_dict only)
    assert set(a.phases) == set(a.to_dict()["phases"]) == set(c["phases"]) == {"expand", "matrix", "rank", "certificate"}
    assert a.phases == pytest.approx(a.to_dict()["phases"], rel=1e-2, abs=1e-4) and a.phases["matrix"] > 0  # the record: 3 digits
    with pytest.raises(TypeError):  # read-only, as the answer is
        a.phases["rank"] = 0
    plain = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000)
    assert plain.to_dict()["rank"] == a.to_dict()["rank"] and a.failure_bound <= plain.failure_bound
    with pytest.raises(ValueError, match=r"block_hints\[1\] = True: expected an integer rank"):
        seprank.generic_rank(dict(tokens=3, dim=2, depth=3), block_hints=[1, True])
    with pytest.raises(ValueError, match="block_hints: expected a list of integer ranks .* got set"):
        seprank.generic_rank(dict(tokens=3, dim=2, depth=3), block_hints={1, 2})
    # numpy's integers, and a 1-D array of them, as every integer option takes them
    import numpy as np
    hints = a.block_ranks
    for given in (np.array(hints), [np.int64(h) for h in hints]):
        again = seprank.generic_rank(dict(tokens=3, dim=2, depth=3), trials=2, method="evaluation", max_side=20000, block_hints=given)
        assert again.to_dict()["rank"] == a.to_dict()["rank"]
    with pytest.raises(ValueError, match="block hint -2 of block 0"):
        seprank.generic_rank(dict(tokens=3, dim=2, depth=3), block_hints=[-2])
    with pytest.raises(ValueError, match="no block row of this configuration"):
        seprank.generic_rank(dict(tokens=3, dim=3, depth=3), block_hints=str(table))
    # hints that cannot be right are named: above a block's cap (counted below it), and above
    # 0 for a block of cap 0 (not used). Blocks 0..3 of tokens=2 dim=1 depth=1 have caps 0, 1, 0, 1.
    small = dict(tokens=2, dim=1, depth=1)
    absent = seprank.generic_rank(small, method="evaluation", trials=1, block_hints=[5, -1, 0, -1])
    assert "no block of this network given a hint; 1 hint(s) above 0 for blocks of cap 0" in absent.note
    over = seprank.generic_rank(small, method="evaluation", trials=1, block_hints=[0, 100, 0, 1])
    assert "1 final at their hint, 0 above it, 1 below it (1 of the hints above their block's cap" in over.note
    assert absent.block_ranks == over.block_ranks == seprank.generic_rank(small, method="evaluation", trials=1).block_ranks


def test_generic_prime_bits_matches_cli(cli):
    # A 40-bit prime (a vector kernel where the processor has one): same prime,
    # rank and bound from Python and the CLI, the same rank as with the default 62 bits.
    args = ("--tokens", 3, "--dim", 2, "--depth", 2, "--trials", 1, "--method", "evaluation")
    c = cli("generic", *args, "--prime-bits", 40)
    a = seprank.generic_rank(dict(tokens=3, dim=2, depth=2), trials=1, method="evaluation", prime_bits=40)
    same_answer(a, c)
    assert 2**39 <= c["prime"] < 2**40 and "40-bit prime" in c["note"]
    assert c["rank"] == cli("generic", *args)["rank"]
    for bad in (19, 63, 2**32 + 40):  # the last one would wrap to 40 as a C++ int
        with pytest.raises(ValueError, match=f"prime bits = {bad}"):
            seprank.generic_rank(dict(tokens=3, dim=2, depth=2), prime_bits=bad)


def test_generic_time_budget_matches_cli(cli):
    # A budget spent at once: one growth step, a lower bound (not converged), from both.
    args = ("--tokens", 3, "--dim", 3, "--depth", 2, "--trials", 1, "--method", "evaluation")
    c = cli("generic", *args, "--max-seconds", "1e-9")
    a = seprank.generic_rank(dict(tokens=3, dim=3, depth=2), trials=1, method="evaluation", max_seconds=1e-9)
    assert c["converged"] is False and "time budget" in c["note"]
    assert a.converged is False and "time budget" in a.note
    assert a.value < cli("generic", *args)["rank"]
    for bad in (-1, float("nan"), float("inf"), True, "5"):
        with pytest.raises(ValueError, match="max_seconds"):
            seprank.generic_rank(dict(tokens=3, dim=3, depth=2), max_seconds=bad)


def test_degree_and_budget_match_cli(cli):
    net = seprank.hadamard(tokens=2, dim=2, depth=3, block_degree=2, seed=6)
    rows = seprank.degree(net)
    c = cli("degree", "--family", "hadamard", "--tokens", 2, "--dim", 2, "--depth", 3, "--block-degree", 2, "--seed", 6)
    assert len(rows) == len(c) == 3
    for r, cr in zip(rows, c):
        assert r["depth"] == cr["depth"] and r["measured"] == cr["measured"]
        assert r["predicted"] == int(cr["predicted"]) and r["terms"] == cr["terms"]
        assert r["parameters"] == int(cr["parameters"]) and r["weight_degree"] == int(cr["weight_degree"])
        assert set(r) == set(cr)  # the same fields: the bound on a false low reading and the seconds
        assert r["false_low_bound"] == cr["false_low_bound"] == 0  # expanded: the degree is exact
    for r in seprank.degree(net, max_expand_bytes=0):  # the line's reading alone, and its bound
        assert r["terms"] is None and 0 < r["false_low_bound"] < 1e-9
    b = seprank.budget(48, [2, 3, 4], tokens=4, dim=2, width=2)
    cb = cli("degree", "--family", "hadamard", "--tokens", 4, "--dim", 2, "--width", 2, "--budget", 48,
             "--degrees", "2,3,4")
    assert [r["depth"] for r in b["rows"]] == [r["depth"] for r in cb]
    assert [r["measured"] for r in b["rows"]] == [r["measured"] for r in cb]
    assert [r["predicted"] for r in b["rows"]] == [int(r["predicted"]) for r in cb]



def test_degree_of_a_stack_matches_cli_weights(cli, tmp_path):
    # A stack's rows are its first L layers, L = 1..(number of layers), as `seprank degree
    # --weights` reads them from its JSON (degree raised "stack has 4 layers, depth is 1").
    net = seprank.stack(2, 2, "attention:score-degree=2,mlp:power=2", depth=2, seed=5)
    path = tmp_path / "stack.json"
    path.write_text(net.to_json())
    rows = seprank.degree(net)
    c = cli("degree", "--weights", path, "--seed", 5)
    assert len(rows) == len(c) == 4
    for r, cr in zip(rows, c):
        assert r["depth"] == cr["depth"] and r["measured"] == cr["measured"]
        assert r["predicted"] == int(cr["predicted"]) and r["terms"] == cr["terms"]
        assert r["parameters"] == int(cr["parameters"]) and r["weight_degree"] == int(cr["weight_degree"])
    # the last row is the whole network: the degree its spec states (attention score degree 2 -> 5, mlp power 2)
    assert rows[-1]["predicted"] == net.degree == (5 * 2) ** 2

def test_table_matches_cli(cli):
    rows = seprank.table(family="attention,hadamard", tokens="2..3", dim=[1, 2], depth=[1, 2], trials=2,
                         dataframe=False)
    c = cli("table", "--family", "attention,hadamard", "--tokens", "2..3", "--dim", "1,2", "--depth", "1..2",
            "--trials", 2)
    assert len(rows) == len(c) > 0
    for r, cr in zip(rows, c):
        assert list(r) == list(cr)  # same columns, same order
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)


def test_table_prime_bits_matches_cli(cli):
    # Block rows with 50-bit primes: the same cells from Python and the CLI, the same block
    # ranks as with the default 62 bits and a larger bound; out of range refused by both.
    kw = dict(family="attention", tokens=3, dim=2, depth=2, blocks=True, dataframe=False)
    args = ("--family", "attention", "--tokens", 3, "--dim", 2, "--depth", 2, "--blocks")
    rows = seprank.table(prime_bits=50, **kw)
    c = cli("table", *args, "--prime-bits", 50)
    assert len(rows) == len(c) > 1
    for r, cr in zip(rows, c):
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)
    wide = seprank.table(**kw)
    assert [r["rank"] for r in wide] == [r["rank"] for r in rows]
    assert rows[0]["failure_bound"] > 100 * wide[0]["failure_bound"]
    for bad in (19, 63, 2**32 + 50):  # the last one would wrap to 50 as a C++ int
        with pytest.raises(ValueError, match=f"prime bits = {bad}"):
            seprank.table(prime_bits=bad, **kw)


def test_table_eps_matches_cli(cli):
    rows = seprank.table(tokens=2, dim=[1, 2], depth=[1, 2], eps=[0, 0.1], measure="gaussian", dataframe=False)
    c = cli("table", "--tokens", 2, "--dim", "1,2", "--depth", "1..2", "--eps", "0,0.1", "--measure", "gaussian")
    assert len(rows) == len(c) == 4
    for r, cr in zip(rows, c):
        assert list(r) == list(cr) and list(r)[-4:] == ["eps", "eps_ranks", "eps_certified", "eps_reason"]
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)
        assert len(r["eps_ranks"].split()) == 2 or r["eps_reason"]
    with pytest.raises(ValueError, match="eps"):
        seprank.table(tokens=2, dim=1, depth=1, eps=-1)
    with pytest.raises(ValueError, match="measure"):
        seprank.table(tokens=2, dim=1, depth=1, eps=0.1, measure="cauchy")


def test_table_row_seconds_matches_cli(cli):
    # a row budget spent at once: the row stops after one growth step, as a lower bound
    args = dict(tokens=3, dim=3, depth=2, method="evaluation", dataframe=False)
    rows = seprank.table(row_seconds=1e-9, **args)
    c = cli("table", "--tokens", 3, "--dim", 3, "--depth", 2, "--method", "evaluation", "--row-seconds", "1e-9")
    assert [r["status"] for r in rows] == [r["status"] for r in c] == ["lower-bound"]
    # the reason says the time the row ran (issue 58), which differs between the two runs
    ran = lambda r: re.sub(r"stopped at [0-9.e+-]+ s", "stopped at T s", r)
    assert "time budget of 1e-09 s" in rows[0]["reason"] and ran(rows[0]["reason"]) == ran(c[0]["reason"])
    assert rows[0]["rank"] < seprank.table(**args)[0]["rank"]
    with pytest.raises(ValueError, match="row_seconds"):
        seprank.table(row_seconds=-1, **args)


def test_table_layers_matches_cli(cli):
    # stacks: a ';' list or a Python list of SPECs, the layers column after family (canonical SPEC)
    rows = seprank.table(layers="attention,mlp:power=2;mlp:power=2,attention", tokens=2, dim=[1, 2, 3], dataframe=False)
    assert seprank.table(layers=["attention,mlp:power=2", "mlp:power=2,attention"], tokens=2, dim=[1, 2, 3],
                         dataframe=False)[0]["rank"] == rows[0]["rank"]
    c = cli("table", "--layers", "attention,mlp:power=2;mlp:power=2,attention", "--tokens", 2, "--dim", "1..3")
    assert len(rows) == len(c) == 6
    for r, cr in zip(rows, c):
        assert list(r) == list(cr) and list(r)[:3] == ["family", "layers", "tokens"]
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)
    assert [r["layers"] for r in rows] == ["attention,mlp"] * 3 + ["mlp,attention"] * 3
    assert [r["rank"] for r in rows[3:]] == [2, 3, 4]  # per-token layers first: dx + 1 (docs/theory.md 3.6)
    g = seprank.guess(rows, vars=["dim"], where={"layers": "mlp:power=2,attention"})
    assert g.found and g.formula == "C(1 + dim, dim)"
    mixed = seprank.table(family="attention,stack", layers="attention", tokens=2, dim=1, dataframe=False)
    assert [(r["family"], r["layers"]) for r in mixed] == [("attention", ""), ("stack", "attention")]
    assert seprank.table(tokens=2, dim=1, dataframe=False)[0].keys().isdisjoint({"layers"})
    for bad, match in (("attention;", "SPEC 2 is empty"), ("softmax", "softmax"), ([], "layers"), (3, "layers")):
        with pytest.raises(ValueError, match=match):
            seprank.table(layers=bad, tokens=2, dim=1)
    # A configuration too large to build: left out with a warning, as the CLI's note
    with pytest.warns(UserWarning, match=r"1 configuration\(s\) too large to build left out \(the first: network attention N=2 dx=1048576"):
        small = seprank.table(tokens=2, dim=[1, 1048576], depth=1, dataframe=False)
    assert [r["dim"] for r in small] == [1]
    with pytest.raises(MemoryError, match="every valid configuration of the sweep is too large to build"):
        seprank.table(tokens=2, dim=1048576, depth=1)
    # The same network twice (attention,attention at depth 1 is attention at depth 2): one row, a
    # warning as the CLI's summary line
    with pytest.warns(UserWarning, match="1 duplicate configurations planned once"):
        once = seprank.table(layers="attention,attention;attention", tokens=2, dim=1, depth=[1, 2], dataframe=False)
    c = cli("table", "--layers", "attention,attention;attention", "--tokens", 2, "--dim", 1, "--depth", "1,2")
    assert len(once) == len(c) == 3
    assert len({(r["layers"], r["depth"]) for r in once}) == 3


def test_table_files_shared_with_cli(cli_path, tmp_path):
    # out= writes the CLI's --out file (CSV or JSON lines); resume=True reuses its rows; the
    # CLI resumes a file Python wrote, and another sweep's file is refused by both.
    sweep = ["--tokens", "2", "--dim", "1..2", "--depth", "1..2"]
    py_csv = tmp_path / "py.csv"
    rows = seprank.table(tokens=2, dim="1..2", depth="1..2", out=py_csv, dataframe=False)
    lines = py_csv.read_text().splitlines()
    assert lines[0].startswith("# seprank table sweep: results=") and len(lines) == 2 + len(rows) == 6
    cli_csv = tmp_path / "cli.csv"
    subprocess.run([cli_path, "table", *sweep, "--out", str(cli_csv), "--format", "csv"], check=True, capture_output=True)
    assert cli_csv.read_text().splitlines()[:2] == lines[:2]  # the same sweep line and header
    # the CLI resumes Python's file: every row reused, nothing appended
    out = subprocess.run([cli_path, "table", *sweep, "--out", str(py_csv), "--resume", "--format", "csv"],
                         check=True, capture_output=True, text=True)
    assert "0 rows computed, 4 resumed" in out.stderr
    assert [int(r["rank"]) for r in csv.DictReader(out.stdout.splitlines())] == [r["rank"] for r in rows]
    assert len(py_csv.read_text().splitlines()) == 6
    # Python resumes the CLI's file with one more depth: three rows computed and appended
    in_file = list(csv.DictReader(line for line in cli_csv.read_text().splitlines() if not line.startswith("#")))
    more = seprank.table(tokens=2, dim="1..2", depth="1..3", out=cli_csv, resume=True, dataframe=False)
    assert len(more) == 6 and len(cli_csv.read_text().splitlines()) == 8
    reused = [r for r in more if r["depth"] < 3]
    assert [r["seconds"] for r in reused] == [float(f["seconds"]) for f in in_file]  # reused, not recomputed
    # typed as computed rows (the CSV cells are text): equal to Python's own rows but for the timings
    timing = ("seconds", "peak_mib")
    assert [{k: v for k, v in r.items() if k not in timing} for r in reused] == \
        [{k: v for k, v in r.items() if k not in timing} for r in rows]
    # JSON lines, then the refusals: an existing file without resume, another sweep's file
    jl = tmp_path / "t.jsonl"
    seprank.table(tokens=2, dim=1, depth=1, out=jl, out_format="json", dataframe=False)
    assert json.loads(jl.read_text().splitlines()[0])["seprank_table_sweep"].startswith("results=")
    with pytest.raises(ValueError, match="not empty|exists"):
        seprank.table(tokens=2, dim=1, depth=1, out=jl, out_format="json")
    with pytest.raises(ValueError, match="another sweep|seed"):
        seprank.table(tokens=2, dim=1, depth=1, out=jl, out_format="json", resume=True, seed=7)
    with pytest.raises(ValueError, match="resume=True needs out"):
        seprank.table(tokens=2, dim=1, depth=1, resume=True)


def test_table_resume_of_a_block_table_hints_the_stopped_rows(cli_path, tmp_path):
    # A block table resumed at a larger max side: the rows its size limit stopped are computed
    # again from their block ranks (block hints), as the CLI does, and equal a fresh run.
    sweep = dict(tokens="3..4", dim=2, depth=2, blocks=True, dataframe=False)
    out = tmp_path / "b.csv"
    seprank.table(max_side=16, out=out, **sweep)
    with pytest.warns(UserWarning, match=r"2 lower-bound row\(s\) .* \(2 of them with their block ranks as block hints"):
        resumed = seprank.table(max_side=4096, out=out, resume=True, **sweep)
    fresh = seprank.table(max_side=4096, **sweep)
    keep = ("tokens", "block", "rank", "total", "status")  # the failure bound counts the minors ranked
    assert [tuple(r[k] for k in keep) for r in resumed] == [tuple(r[k] for k in keep) for r in fresh]
    assert len(fresh) == 10 and all(r["status"] == "ok" for r in fresh)
    cli = subprocess.run([cli_path, "table", "--blocks", "--tokens", "3..4", "--dim", "2", "--depth", "2", "--max-side", "4096",
                          "--format", "csv"], check=True, capture_output=True, text=True)
    assert [int(r["rank"]) for r in csv.DictReader(cli.stdout.splitlines())] == [r["rank"] for r in fresh]
    with pytest.raises(ValueError, match="out_format"):
        seprank.table(tokens=2, dim=1, depth=1, out=tmp_path / "x.csv", out_format="xml")


def test_table_blocks_matches_cli(cli, cli_path, tmp_path):
    # blocks=True: the CLI's --blocks rows (one per configuration and block), the same
    # columns in the same order; resumed from a CSV file with the JSON types of computed rows.
    rows = seprank.table(tokens=[3, 4], dim=[1, 2], depth=2, blocks=True, dataframe=False)
    c = cli("table", "--blocks", "--tokens", "3,4", "--dim", "1,2", "--depth", 2)
    assert len(rows) == len(c) > 4
    for r, cr in zip(rows, c):
        assert list(r) == list(cr) == seprank._core.table_block_columns()
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)
    for total in {(r["tokens"], r["dim"], r["total"]) for r in rows}:
        assert sum(r["rank"] for r in rows if (r["tokens"], r["dim"]) == total[:2]) == total[2]
    path = tmp_path / "b.csv"
    seprank.table(tokens=[3, 4], dim=[1, 2], depth=2, blocks=True, out=path, dataframe=False)
    again = seprank.table(tokens=[3, 4], dim=[1, 2], depth=2, blocks=True, out=path, resume=True, dataframe=False)
    timing = ("seconds", "peak_mib")
    assert [{k: v for k, v in r.items() if k not in timing} for r in again] == \
        [{k: v for k, v in r.items() if k not in timing} for r in rows]
    assert isinstance(again[0]["at_cap"], bool) and isinstance(again[0]["rank"], int)
    with pytest.raises(ValueError, match="method flattening"):
        seprank.table(tokens=2, blocks=True, method="flattening")
    with pytest.raises(ValueError, match="blocks: expected True or False"):
        seprank.table(tokens=2, blocks=1)


def test_table_unused_options_warn_as_cli_notes(cli_path):
    # An option no row uses: a warning naming it and the CLI's reason; none for the options used.
    args = ["--tokens", "2", "--dim", "1", "--depth", "1", "--method", "flattening", "--block-degree", "3",
            "--max-side", "64"]
    out = subprocess.run([cli_path, "table", *args], capture_output=True, text=True, timeout=300, check=True)
    notes = out.stderr.splitlines()
    with pytest.warns(UserWarning) as caught:
        seprank.table(tokens=2, dim=1, depth=1, method="flattening", block_degree=3, max_side=64, dataframe=False)
    said = sorted(str(w.message) for w in caught)
    assert said == ["block_degree=3 is ignored: no family of the sweep has a free block degree (attention fixes it, "
                    "a stack's layers set theirs)",
                    "max_side=64 is ignored: no row used the evaluation (method flattening)"], said
    for text in said:  # the CLI's note says the same of --block-degree 3 and --max-side 64
        flag = "--" + text.split("=")[0].replace("_", "-") + " " + text.split("=")[1].split(" ")[0]
        assert any(flag + " is ignored: " + text.split(" is ignored: ")[1] in n for n in notes), (flag, notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing unused: no warning
        seprank.table(family="hadamard", tokens=2, dim=1, depth=1, block_degree=3, dataframe=False)


def test_table_dimension_matches_cli(cli):
    rows = seprank.table(family="attention,hadamard", tokens=2, dim=[1, 2], depth=[1, 2], seed=4, dimension=True,
                         dataframe=False)
    c = cli("table", "--family", "attention,hadamard", "--tokens", 2, "--dim", "1,2", "--depth", "1..2", "--seed", 4,
            "--dimension")
    assert len(rows) == len(c) == 8
    for r, cr in zip(rows, c):
        assert list(r) == list(cr) and list(r)[-5:] == ["dimension", "dim_expected", "dim_defect", "dim_label", "dim_failure_bound"]
        for k in r:
            if k not in ("seconds", "peak_mib"):
                assert r[k] == cr[k], (k, r, cr)
        assert r["dim_defect"] == (r["dimension"] < r["dim_expected"])
    with pytest.raises(ValueError, match="dimension"):
        seprank.table(tokens=2, dim=1, depth=1, dimension=1)


def test_table_resume_of_a_dimension_table_types_its_cells_as_computed_rows(cli_path, tmp_path):
    # A resumed CSV row holds text cells, typed back per column: dim_label is text (a hunt
    # found resume raising "could not convert string to float: 'generic lower bound'").
    out = tmp_path / "dim.csv"
    first = seprank.table(tokens=2, dim=[1, 2], depth=1, dimension=True, out=out, dataframe=False)
    both = seprank.table(tokens=2, dim=[1, 2], depth=[1, 2], dimension=True, out=out, resume=True, dataframe=False)
    assert len(both) == 4
    resumed = {(r["dim"], r["depth"]): r for r in both}
    for f in first:  # the resumed rows, typed as when they were computed
        r = resumed[(f["dim"], f["depth"])]
        assert {k: v for k, v in r.items() if k not in ("seconds", "peak_mib")} == \
               {k: v for k, v in f.items() if k not in ("seconds", "peak_mib")}
    # every text cell of a computed row is a text column, so none is read back as a number
    for r in first:
        for k, v in r.items():
            if isinstance(v, str):
                assert k in seprank._tables._TEXT_COLUMNS, k
    # a file the CLI wrote resumes from Python too
    cli_out = tmp_path / "cli.csv"
    subprocess.run([cli_path, "table", "--tokens", "2", "--dim", "1", "--depth", "1", "--dimension", "--out", str(cli_out)],
                   check=True, capture_output=True)
    assert len(seprank.table(tokens=2, dim=1, depth=[1, 2], dimension=True, out=cli_out, resume=True, dataframe=False)) == 2


def test_budget_dimension_and_rank_match_cli(cli):
    b = seprank.budget(24, [2, 3], tokens=2, dim=2, width=2, rank=True)
    cb = cli("degree", "--family", "hadamard", "--tokens", 2, "--dim", 2, "--width", 2, "--budget", 24,
             "--degrees", "2,3", "--rank")
    assert len(b["rows"]) == len(cb) == 2
    for r, cr in zip(b["rows"], cb):
        for k in ("dimension", "dim_expected", "dim_defect", "dim_label", "dim_failure_bound", "rank", "rank_label",
                  "rank_failure_bound", "log3_rank", "rank_status"):
            assert r[k] == cr[k], (k, r, cr)
        assert r["rank_converged"] is (cr["rank_status"] == "ok")
        # a rank at drawn weights is labelled, with its failure bound (a hunt: it was bare)
        assert r["rank_label"] in ("certified", "generic lower bound", "lower bound"), r
        assert (r["rank_failure_bound"] == 0) == (r["rank_label"] == "certified") and 0 <= r["rank_failure_bound"] <= 1, r
    assert "dimension" not in seprank.budget(24, [2], tokens=2, dim=2, width=2, dimension=False)["rows"][0]


def test_budget_fc_width_matches_cli(cli):
    # fc given one width W: every layer W wide, the first layer's parameters and the later
    # ones' both said (a hunt: W was dropped and the rows were N·dx wide)
    b = seprank.budget(60, [2, 3], family="fc", tokens=2, dim=2, width=1)
    cb = cli("degree", "--family", "fc", "--tokens", 2, "--dim", 2, "--widths", 1, "--budget", 60, "--degrees", "2,3")
    default = cli("degree", "--family", "fc", "--tokens", 2, "--dim", 2, "--budget", 60, "--degrees", "2,3")
    for k in ("layer_params", "depth", "params_used", "dimension", "note"):
        assert [r[k] for r in b["rows"]] == [r[k] for r in cb], k
    assert [r["depth"] for r in cb] == [27, 17] and all(r["params_used"] <= 60 for r in cb)
    assert [r["depth"] for r in default] == [1, 1] and "each later one 2" in cb[0]["note"]
    same = cli("degree", "--family", "fc", "--tokens", 2, "--dim", 2, "--widths", 4, "--budget", 60, "--degrees", "2,3")
    assert same == default  # W = N·dx is the default's network
    assert [r["depth"] for r in seprank.budget(60, [2, 3], family="fc", tokens=2, dim=2, width=0)["rows"]] == [1, 1]  # 0: the default
    # a budget that buys no layer of a wide fc is not refused for the memory of two (a review)
    wide = cli("degree", "--family", "fc", "--tokens", 2, "--dim", 2, "--widths", 2**20, "--budget", 48, "--degrees", 2)
    assert [r["depth"] for r in wide] == [0] and wide[0]["params_used"] == 0 and wide[0]["dimension"] is None


def test_a_depth_0_spec_reads_back():
    # its widths list is empty, which no other depth may give (a review: network(**spec) was refused)
    for net in (seprank.network("fc", tokens=2, dim=2, depth=0), seprank.network("power", dim=2, depth=0)):
        again = seprank.network(**net.spec)
        assert again.spec == net.spec


def test_budget_row_deeper_than_64_layers_is_noted_not_built(cli):
    # P(d) = (d+1)·w·dx, P(1) = 8: a budget of 8·65 buys 65 layers at d = 1, one more than the deepest
    # network built; d = 4 (P(d) = (d+1)·w·dx = 20) buys 26 and is measured as usual.
    b = seprank.budget(8 * 65, [1, 4], tokens=2, dim=2, width=2)
    cb = cli("degree", "--family", "hadamard", "--tokens", 2, "--dim", 2, "--width", 2, "--budget", 8 * 65,
             "--degrees", "1,4")
    deep, built = b["rows"]
    assert deep["depth"] == 65 and deep["measured"] is None and deep["dimension"] is None
    assert deep["note"] == cb[0]["note"] and "depth L = 65 exceeds 64" in deep["note"]
    assert built["note"] == cb[1]["note"] and "above 20000" in built["note"] and built["depth"] == 26  # 4^26: not measured
    assert built["dimension"] == cb[1]["dimension"] and built["dimension"] > 0


def test_table_dataframe_when_pandas():
    pandas = pytest.importorskip("pandas")
    df = seprank.table(tokens=2, dim=1, depth=[1, 2])
    assert isinstance(df, pandas.DataFrame) and list(df["rank"]) == [2, 5]


def test_table_list_without_pandas():
    try:
        import pandas  # noqa: F401
        pytest.skip("pandas is installed: table() returns a DataFrame")
    except ImportError:
        pass
    rows = seprank.table(tokens=2, dim=1, depth=[1, 2])
    assert isinstance(rows, list) and [r["rank"] for r in rows] == [2, 5]
    with pytest.raises(ImportError, match="pandas"):
        seprank.table(tokens=2, dim=1, depth=1, dataframe=True)


def test_table_progress(capsys):
    seprank.table(tokens=2, dim=1, depth=[1, 2], progress=True, dataframe=False)
    err = capsys.readouterr().err
    assert "[1/2] attention N=2 dx=1" in err and "[2/2]" in err


def test_verify_matches_cli(cli):
    claims = seprank.claims()
    assert list(claims) == [line.split(":")[0] for line in cli("verify", "--list", fmt=None).splitlines()]
    name = list(claims)[0]
    (r,) = seprank.verify(name, seed=2)
    out = cli("verify", "--claim", name, "--seed", 2, fmt=None)
    assert out.startswith(("PASS " if r.passed else "FAIL ") + name + ": " + r.detail)
    assert r.passed and bool(r) and r.checked and r.statement == claims[name]


def test_certificates_match_cli(cli):
    """Every certificate gives the CLI's answer; blocks says which blocks needed a kernel."""
    net = seprank.attention(tokens=2, dim=3, depth=2, seed=1)
    ranks = set()
    for cert in ("blocks", "pivot-span", "hadamard"):
        c = cli("rank", "--tokens", 2, "--dim", 3, "--depth", 2, "--seed", 1, "--certificate", cert)
        a = seprank.rank(net, certificate=cert)
        same_answer(a, c)
        assert a.certified and a.field == "Q"
        ranks.add(a.value)
        if cert == "blocks":
            assert a.variant == "blocks" and sum(a.block_ranks) == a.value
            assert a.kernel_blocks == c["kernel_blocks"]
    assert len(ranks) == 1
    with pytest.raises(ValueError, match="certificate"):
        seprank.rank(net, certificate="global")


def test_device_option_matches_cli(cli):
    # Without a GPU (CI): cuda is refused with the CLI's line, auto computes on the CPU and
    # says so; every answer names its device (docs/gpu.md).
    net = dict(tokens=2, dim=2, depth=2)
    a = seprank.generic_rank(net, device="auto")
    c = cli("generic", "--tokens", 2, "--dim", 2, "--depth", 2, "--device", "auto")
    assert a.device == c["device"]
    assert a.to_dict()["device"] == a.device
    if a.device == "cpu":
        assert "device auto: computed on the CPU" in a.note and "device auto: computed on the CPU" in c["note"]
        with pytest.raises(ValueError, match="^Device cuda: "):
            seprank.generic_rank(net, device="cuda")
        with pytest.raises(ValueError, match="^Device cuda: "):
            seprank.dimension(net, device="cuda")
        with pytest.raises(ValueError, match="^Device cuda: "):
            seprank.rank(seprank.attention(**net), field="p", device="cuda")
    assert a.value == seprank.generic_rank(net).value
    # table(device='auto') resolves the device once, as the CLI: without a GPU its rows are the
    # CPU's (no device column) and a warning says why
    if a.device == "cpu":
        with pytest.warns(UserWarning, match="device auto: computed on the CPU"):
            rows = seprank.table(tokens=2, dim=1, depth=1, device="auto", dataframe=False)
        assert "device" not in rows[0]
        assert list(rows[0]) == list(cli("table", "--tokens", 2, "--dim", 1, "--depth", 1, "--device", "auto")[0])
    for fn in (lambda d: seprank.generic_rank(net, device=d), lambda d: seprank.table(tokens=2, dim=1, depth=1, device=d)):
        with pytest.raises(ValueError, match="device"):
            fn("gpu")
