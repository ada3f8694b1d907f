# variety() and defects(): the same numbers as `seprank variety` and `seprank defects`.
import csv
import io
import json
import subprocess

import pytest

import seprank


def test_variety_matches_the_cli(cli):
    for layers, tokens, dim in [("conv,conv:power=1", 3, 1), ("dense:width=2:power=2,dense:width=1:power=1", 1, 3)]:
        net = {"layers": layers, "tokens": tokens, "dim": dim}
        py = seprank.variety(net, seed=7)
        c = cli("variety", "--layers", layers, "--tokens", tokens, "--dim", dim, "--seed", 7)
        for k in ("dimension", "dimension_kind", "degree", "degree_kind", "parameters", "fibre_dimension", "gauge_fibre_points",
                  "free_weights", "degree_fibre_points", "degree_free_weights", "agreed", "primes", "section_points",
                  "degree_at_least", "degree_at_least_failure_bound", "degree_at_most", "degree_at_most_failure_bound",
                  "gauge_fibre_at_most", "degree_fibre_at_most", "span_dimension", "equation_degree",
                  "equation_coordinates", "equation", "section_images", "label"):
            assert py[k] == c[k], (layers, k, py[k], c[k])
        ref = seprank.variety(net, seed=7, degree_slice="gauge")
        c = cli("variety", "--layers", layers, "--tokens", tokens, "--dim", dim, "--seed", 7, "--degree-slice", "gauge")
        assert ref["degree"] == py["degree"] and ref["section_points"] == c["section_points"]
        assert ref["degree_free_weights"] == ref["free_weights"]
    # conv (2,2) at r = 2: degree 4, two settings per function (t = ±1)
    conv = seprank.variety({"layers": "conv,conv:power=1", "tokens": 3, "dim": 1})
    assert conv["degree"] == 4 and conv["gauge_fibre_points"] == 2 and conv["agreed"]
    # certified from below: every trial's 4 section solutions simple, 4 distinct functions
    assert conv["degree_at_least"] == 4 and conv["section_images"] == [4, 4, 4]
    # and from above (the Newton polytope's bound): proven
    assert conv["degree_at_most"] == 4 and "deg X is proven" in conv["label"]
    # the dimension 3 is the 4 weights less one row scaling: exact, so the degree is proven outright
    assert (conv["dimension_kind"], conv["degree_kind"]) == ("exact", "proven") and "assuming" not in conv["label"]
    # an mlp after the convolutions proves no bound of the dimension: the degree is proven given it
    gen = seprank.variety({"layers": "conv,conv,mlp:power=1:width=1", "tokens": 4, "dim": 1})
    assert (gen["dimension_kind"], gen["degree"], gen["degree_at_least"], gen["degree_at_most"]) == ("generic", 16, 16, 16)
    assert gen["degree_kind"] == "proven given the dimension" and "deg X is proven, assuming dim X = n" in gen["label"]
    # the quadratic network's image is a hypersurface of its span: its equation proves it all
    q = seprank.variety({"layers": "dense:width=2:power=2,dense:width=1:power=1", "tokens": 1, "dim": 3})
    assert (q["dimension_kind"], q["dimension_failure_bound"], q["span_dimension"]) == ("exact", 0, 6)
    assert q["degree_at_least"] == q["degree_at_most"] == q["equation_degree"] == 3
    assert q["degree_kind"] == "proven"  # the equation makes the dimension exact
    assert q["equation"] == "y3*y4^2 - y2*y4*y5 + y1*y5^2 + y2^2*y6 - 4*y1*y3*y6"
    assert q["equation_coordinates"].split(", ")[0] == "x1_1^2"
    off = seprank.variety({"layers": "dense:width=2:power=2,dense:width=1:power=1", "tokens": 1, "dim": 3}, max_equation_monomials=0)
    assert off["equation"] is None and off["degree_at_most"] == 8 and "no equation: not searched" in off["label"]
    assert off["degree"] == 3 and off["degree_kind"] == "counted"  # 3 from below, 8 from above: counted


def test_variety_threads_and_refusals():
    net = {"layers": "conv,conv,conv:power=1", "tokens": 4, "dim": 1}
    one, two = seprank.variety(net, threads=1), seprank.variety(net, threads=2)
    assert one["primes"] == two["primes"] and one["section_points"] == two["section_points"]
    with pytest.raises(ValueError, match="trials 0 outside 1..1000"):
        seprank.variety(net, trials=0)
    with pytest.raises(ValueError, match="max unknowns 0 is below 1"):
        seprank.variety(net, max_unknowns=0)
    with pytest.raises(seprank.ResourceLimitError):
        seprank.variety(net, max_unknowns=2)
    with pytest.raises(ValueError, match="max equation monomials -1 is negative"):
        seprank.variety(net, max_equation_monomials=-1)
    with pytest.raises(ValueError, match="degree_slice"):
        seprank.variety(net, degree_slice="generic")


def test_equation_matches_the_cli(cli):
    for layers, tokens, dim in [("dense:width=3:power=3,dense:width=1:power=1", 1, 3), ("conv,conv:power=1", 3, 1),
                                ("dense:width=2:power=3,dense:width=1:power=1", 1, 2)]:
        net = {"layers": layers, "tokens": tokens, "dim": dim}
        py = seprank.equation(net, seed=7)
        c = cli("equation", "--layers", layers, "--tokens", tokens, "--dim", dim, "--seed", 7)
        for k in ("dimension", "dimension_kind", "dimension_failure_bound", "parameters", "monomials", "span_dimension", "degree",
                  "degree_at_most", "equation_degree", "searched_to", "primes_used", "equation_coordinates", "equation", "label"):
            assert py[k] == c[k], (layers, k, py[k], c[k])
    aronhold = seprank.equation({"layers": "dense:width=3:power=3,dense:width=1:power=1", "tokens": 1, "dim": 3})
    assert aronhold["degree"] == 4 and len(aronhold["equation"].replace(" - ", " + ").split(" + ")) == 25
    with pytest.raises(ValueError, match="equation max_monomials 0 is below 1"):
        seprank.equation({"layers": "conv,conv:power=1", "tokens": 3, "dim": 1}, max_monomials=0)
    slow = seprank.equation({"layers": "dense:width=2:power=2,dense:width=1:power=1", "tokens": 1, "dim": 3}, max_seconds=1e-9)
    assert slow["equation"] is None and "time budget" in slow["label"] and slow["span_dimension"] == 6
    with pytest.raises(ValueError, match="min_degree"):
        seprank.equation({"layers": "conv,conv:power=1", "tokens": 3, "dim": 1}, min_degree=1.5)
    for bad in (0, -1):  # no unbounded search: the message says > 0 (it said ">= 0 (0: no time budget)")
        with pytest.raises(ValueError, match=f"max_seconds: expected a finite number of seconds > 0, got {bad}"):
            seprank.equation({"layers": "conv,conv:power=1", "tokens": 3, "dim": 1}, max_seconds=bad)


def test_defects_matches_the_cli(cli_path):
    py = seprank.defects(max_width=3, max_depth=3, max_power=3, seed=5)
    out = subprocess.run([cli_path, "defects", "--max-width", "3", "--max-depth", "3", "--max-power", "3", "--seed", "5",
                          "--format", "csv"], capture_output=True, text=True, check=True).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(py["rows"]) == py["networks"] == 31
    for a, b in zip(py["rows"], rows):
        for k, v in b.items():
            got = a[k]
            got = ("true" if got else "false") if isinstance(got, bool) else str(got)
            assert got == v, (k, got, v)
    assert py["defective"] == sum(int(r["defect"]) > 0 for r in rows) == 4
    assert py["ah_mismatch"] == 0 and py["unexplained"] == 0
    # every level measured once, the defective one among them
    assert any(l["dimension"] < l["expected"] for l in py["level_rows"])
    cli_json = json.loads(subprocess.run([cli_path, "defects", "--max-width", "3", "--max-depth", "3", "--max-power", "3", "--seed", "5",
                                          "--format", "json"], capture_output=True, text=True, check=True).stdout)
    assert py["levels"] == cli_json["levels"] == len(py["level_rows"])  # the CLI's count, under its key
    with pytest.raises(ValueError, match="max width 9 is outside 2..8"):
        seprank.defects(max_width=9)


def test_defects_range_estimated_before_it_runs():
    # 4.3e6 networks: refused at once, the time limit named by this function's keyword
    with pytest.raises(seprank.ResourceLimitError, match=r"networks in the range: about .* over the limit of 1 s \(max_time\)"):
        seprank.defects(max_width=8, min_depth=5, max_depth=5, max_power=5, max_time=1)
    with pytest.raises(ValueError, match="max_time"):
        seprank.defects(max_time=0)
    assert seprank.defects(max_width=3, max_depth=3, max_power=3, max_time=600)["networks"] == 31
