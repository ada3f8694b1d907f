# Issue 29, point 6: what a user writing from docs/python.md expects to work does —
# a rational matrix is ranked over Q, weights say their own sizes — and the public
# surface keeps its import paths after the package was split into modules.
from fractions import Fraction

import numpy as np
import pytest

import seprank


def test_a_rational_matrix_is_ranked_over_q(cli, tmp_path):
    # Rows 2 and 3 are 1/2 and -2/3 times row 1; row 4 is independent: rank 2.
    rows = [[1, Fraction(3, 7)], [Fraction(1, 2), Fraction(3, 14)], [Fraction(-2, 3), Fraction(-2, 7)], [0, Fraction(5, 3)]]
    a = seprank.rank(rows)
    assert (a.value, a.kind, a.rows, a.cols) == (2, "exact", 4, 2)
    # the same matrix as "p/q" strings, as a numpy object array, and as exact floats
    assert seprank.rank([[str(x) for x in r] for r in rows]).value == 2
    assert seprank.rank(np.array(rows, dtype=object)).value == 2
    assert seprank.rank(np.array([[0.5, 0.25], [1.0, 0.5]])).value == 1  # 0.5, 0.25 are exact binary fractions
    assert seprank.rank([[Fraction(1, 3), 0], [0, Fraction(1, 5)]]).value == 2
    # the CLI reads the same matrix from a Matrix Market file of field rational
    f = tmp_path / "q.mtx"
    f.write_text("%%MatrixMarket matrix coordinate rational general\n4 2 7\n"
                 + "".join(f"{i + 1} {j + 1} {x}\n" for i, r in enumerate(rows) for j, x in enumerate(r) if x))
    assert cli("rank", "--matrix", f)["rank"] == a.value


def test_weights_without_depth_say_their_sizes():
    q = [[1, 0], [0, 1]]
    layer = {"heads": [{"Q": q, "K": [[1, 2], [0, 1]], "V": [[1, "1/2"], [0, 1]], "O": [[1, 0], [0, 3]]}]}
    # The report of issue 29: a dict with two layers and no depth.
    net = seprank.from_weights({"family": "attention", "tokens": 3, "layers": [layer, layer]})
    assert (net.spec["depth"], net.spec["dim"], net.spec["heads"]) == (2, 2, 1)
    # network() and attention() with only the layers: depth and dim from them too
    net2 = seprank.attention(tokens=3, weights=[layer, layer])
    assert net2.to_json() == net.to_json()
    had = seprank.hadamard(tokens=2, weights=[{"W": [np.ones((3, 2), int)] * 4, "O": np.ones((2, 3), int)}] * 2)
    assert (had.spec["depth"], had.spec["block_degree"], had.spec["width"], had.spec["dim"]) == (2, 4, 3, 2)
    fc = seprank.fc(tokens=2, weights=[{"W": [np.ones((3, 4), int)] * 2}, {"W": [np.ones((1, 3), int)] * 2}])
    assert (fc.spec["depth"], fc.spec["block_degree"], fc.spec["widths"], fc.spec["dim"]) == (2, 2, [3, 1], 2)
    emb = seprank.attention(tokens=2, weights=[layer], embedding=[[1], [2]])
    assert (emb.spec["embed_rank"], emb.spec["dim"]) == (1, 2)


def test_a_given_size_that_disagrees_is_refused():
    q = [[1, 0], [0, 1]]
    layer = {"heads": [{"Q": q, "K": q, "V": q, "O": q}]}
    with pytest.raises(ValueError, match=r"\$\.layers: has 2 layers, but \$\.depth is 1"):
        seprank.attention(tokens=2, depth=1, weights=[layer, layer])
    with pytest.raises(ValueError, match=r"depth: given as 3, but weights\['depth'\] is 2"):
        seprank.network("attention", depth=3, weights={"family": "attention", "tokens": 2, "depth": 2, "layers": [layer] * 2})
    with pytest.raises(ValueError, match=r"\$\.layers\[0\]\.heads\[0\]\.Q\[0\]: has 2 entries, expected 3"):
        seprank.attention(tokens=2, dim=3, weights=[layer])
    with pytest.raises(ValueError, match=r"\$\.layers\[0\]\.W: expected a list of 3 matrices"):
        seprank.hadamard(tokens=2, block_degree=3, weights=[{"W": [q, q], "O": q}])
    with pytest.raises(ValueError, match=r'\$: missing key "tokens"'):  # the one size weights cannot say
        seprank.from_weights({"family": "attention", "layers": [layer]})


def test_random_networks_keep_their_defaults():
    net = seprank.attention()
    assert {k: net.spec[k] for k in ("tokens", "dim", "depth", "heads")} == {"tokens": 4, "dim": 2, "depth": 1, "heads": 1}
    assert seprank.hadamard().spec["block_degree"] == 3
    assert seprank.fc(tokens=2, dim=1).spec["widths"] == [2]
    # widths without depth: one layer a width, as the CLI's --widths
    assert seprank.network(family="fc", tokens=2, dim=2, widths=[3, 4, 2]).spec["depth"] == 3


def test_import_paths_after_the_split():
    from seprank import Answer, Network, attention, rank  # noqa: F401  (what users write)
    assert len(seprank.__all__) == len(set(seprank.__all__))
    for name in seprank.__all__:
        obj = getattr(seprank, name)
        if callable(obj) and name != "ResourceLimitError":
            assert obj.__module__ == "seprank", (name, obj.__module__)  # help() and repr() say seprank.X
    assert repr(seprank.Network).startswith("<class 'seprank.Network'")


def test_every_module_is_installed():
    # python/seprank/meson.build lists what the wheel and the build tree carry; a module
    # left out would import here (the source tree) and be missing once installed.
    import pathlib
    import re
    pkg = pathlib.Path(__file__).resolve().parents[2] / "python" / "seprank"
    listed = re.search(r"python_sources = \[(.*?)\]", (pkg / "meson.build").read_text(), flags=re.S).group(1)
    listed = set(re.findall(r"'([^']+)'", listed))
    on_disk = {p.name for p in pkg.iterdir() if p.suffix in (".py", ".pyi") or p.name == "py.typed"}
    assert listed == on_disk, (listed ^ on_disk)
    assert len([m for m in on_disk if m.endswith(".py") and m != "__init__.py"]) >= 4
    assert len((pkg / "__init__.py").read_text().splitlines()) <= 150


def test_a_dict_with_layers_is_a_stack_as_on_the_cli(cli):
    # The CLI's defaults: --layers without --family is a stack; a family given beside
    # layers must be stack (attention is refused too, as on the CLI).
    d = dict(layers="attention,mlp", tokens=2, dim=2)
    net = seprank.stack(tokens=2, dim=2, layers="attention,mlp")
    assert seprank.expected_dimension(d) == seprank.expected_dimension(net)
    a, b = seprank.dimension(d, seed=3), seprank.dimension(net, seed=3)
    assert (a.value, a.kind) == (b.value, b.kind)
    assert a.value == cli("dimension", "--layers", "attention,mlp", "--tokens", 2, "--dim", 2, "--seed", 3)["rank"]
    assert seprank.generic_rank(d, seed=3).value == seprank.generic_rank(net, seed=3).value
    for family in ("attention", "hadamard"):
        with pytest.raises(ValueError, match=f"stack only, not {family}"):
            seprank.dimension(dict(d, family=family))


def test_degree_per_depth_of_a_widths_list(cli):
    # depth L keeps the first L layers and their widths, as `seprank degree` does
    rows = seprank.degree(seprank.power(dim=3, widths=[3, 3, 1], power=2))
    assert [r["measured"] for r in rows] == [1, 2, 4]
    out = cli("degree", "--family", "power", "--dim", 3, "--widths", "3,3,1", "--power", 2)
    out = out if isinstance(out, list) else out["rows"]
    assert [int(r["predicted"]) for r in out] == [r["predicted"] for r in rows]


def test_table_warns_of_the_combinations_it_leaves_out_as_the_cli_says_on_stderr(cli_path):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = seprank.table(family="attention", tokens=2, dim="1..3", heads=2, depth=1, dataframe=False)
    assert len(rows) == 1  # H=2 divides dx=2 only
    said = [str(w.message) for w in caught if "invalid combinations left out" in str(w.message)]
    assert said and said[0].startswith("2 invalid combinations left out"), [str(w.message) for w in caught]
    assert "(the first: heads H = 2 does not divide dim dx = 1" in said[0]  # named, as the CLI names it
    import subprocess
    out = subprocess.run([cli_path, "table", "--family", "attention", "--tokens", "2", "--dim", "1..3", "--heads", "2",
                          "--depth", "1", "--format", "csv"], capture_output=True, text=True, timeout=60)
    assert "2 invalid combinations left out (the first: heads H = 2 does not divide dim dx = 1" in out.stderr


def test_partitions_and_lists_may_hold_blanks():
    net = seprank.attention(tokens=4, dim=1, depth=1)
    assert seprank.rank(net, " 1, 2 | 3,4 ").partition == "1,2|3,4"
    assert [r["dim"] for r in seprank.table(tokens=2, dim=" 1 .. 2 ", depth=1, dataframe=False)] == [1, 2]


def test_table_row_whose_rank_a_limit_refuses_is_skipped_with_a_warning():
    # attention N=4, dx=4, L=3 expands to about 10^11 terms: the flattening is refused by
    # the process's memory limit before anything is built; the row is skipped, the sweep
    # goes on, and a warning names the refusal as the CLI's note does
    with pytest.warns(UserWarning, match=r"1 row\(s\) skipped: a limit refused their rank \(the first: expansion refused"):
        rows = seprank.table(tokens=4, dim=[1, 4], depth=3, method="flattening", dataframe=False)
    by_dim = {r["dim"]: r for r in rows}
    assert by_dim[1]["status"] == "ok" and by_dim[1]["rank"] > 0
    assert by_dim[4]["status"] == "skipped" and by_dim[4]["rank"] is None
    assert by_dim[4]["reason"].startswith("rank: expansion refused")
