# Functional dimension (issue 30): seprank.dimension and seprank.expected_dimension give the
# numbers `seprank dimension` prints for the same spec and seed, the local dimension at
# given weights, and bad values are refused naming them. Small networks only: seconds.
import contextlib
import json
import warnings

import pytest

import seprank
from conftest import answer_keys

DIMENSION_KEYS = answer_keys() + ["output", "parameters", "expected", "defect"]


def same_dimension(py_answer, cli_json):
    d = py_answer.to_dict()
    for k in DIMENSION_KEYS:
        assert d[k] == cli_json[k], f"{k}: python {d[k]!r} vs CLI {cli_json[k]!r}"
    assert py_answer.value == cli_json["rank"] and py_answer.kind == cli_json["kind"]
    assert py_answer.kind == ("modular-lower-bound" if cli_json["weights"] else "generic")
    assert (py_answer.parameters, py_answer.expected, py_answer.defect, py_answer.output) == (
        cli_json["parameters"], cli_json["expected"], cli_json["defect"], cli_json["output"])


CASES = [
    # (CLI network options, the same as a dict)
    (["--tokens", 2, "--dim", 2, "--depth", 1], dict(tokens=2, dim=2, depth=1)),
    (["--family", "hadamard", "--tokens", 2, "--dim", 2, "--depth", 2, "--block-degree", 2],
     dict(family="hadamard", tokens=2, dim=2, depth=2, block_degree=2)),
    (["--family", "fc", "--tokens", 2, "--dim", 1, "--depth", 2, "--block-degree", 2, "--residual"],
     dict(family="fc", tokens=2, dim=1, depth=2, block_degree=2, residual=True)),
    (["--tokens", 3, "--dim", 2, "--depth", 1, "--position", 2, "--attention-rank", 1],
     dict(tokens=3, dim=2, depth=1, position=2, attention_rank=1)),
]


@pytest.mark.parametrize("args,spec", CASES)
@pytest.mark.parametrize("output", ["scalar", "all"])
def test_dimension_matches_cli(cli, args, spec, output):
    c = cli("dimension", *args, "--seed", 7, "--trials", 2, "--output", output)
    ignored = output == "all" and "position" in spec  # the CLI notes it; Python warns
    with pytest.warns(UserWarning, match="position=2 is ignored") if ignored else contextlib.nullcontext():
        a = seprank.dimension(spec, output=output, seed=7, trials=2)
    same_dimension(a, c)
    assert a.quantity == "dimension" and a.method == "jacobian" and a.variant == "reverse"
    assert a.cols == a.parameters and a.rows >= a.parameters + 8 and 0 < a.failure_bound < 1e-12
    assert f"parameters={a.parameters}" in repr(a) and f"output='{output}'" in repr(a)
    # the expected count and its derivation, as the CLI's JSON gives them
    e = seprank.expected_dimension(spec, output=output)
    assert (e["parameters"], e["expected"], e["ambient"]) == (c["parameters"], c["expected"], c["ambient"])
    assert e["losses"] == [(x["what"], x["size"]) for x in c["losses"]]
    assert e["known_defects"] == [(x["what"], x["size"]) for x in c["known_defects"]]
    capped = e["parameters"] - sum(size for _, size in e["losses"])
    assert e["expected"] == (capped if e["ambient"] is None else min(capped, e["ambient"]))
    # a Network gives its architecture only, as in generic_rank
    net = seprank.network(spec.get("family", "attention"), **{k: v for k, v in spec.items() if k != "family"}, seed=99)
    with pytest.warns(UserWarning, match="position=2 is ignored") if ignored else contextlib.nullcontext():
        b = seprank.dimension(net, output=output, seed=7, trials=2)
    assert all(b.to_dict()[k] == a.to_dict()[k] for k in DIMENSION_KEYS)


def test_attention_one_layer_reaches_its_expected_dimension():
    # SPEC.md: for N=2, dx=2, H=1, L=1 the (scalar) dimension is 5 of 16 parameters.
    a = seprank.dimension(dict(tokens=2, dim=2, depth=1))
    assert (a.value, a.parameters, a.expected, a.defect) == (5, 16, 5, False)
    e = seprank.expected_dimension(dict(tokens=2, dim=2, depth=1))
    assert e["parameters"] == 16 and e["expected"] == 5 and all(size > 0 for _, size in e["losses"])


def test_variants_agree(cli):
    spec = dict(tokens=2, dim=2, depth=2)
    r = seprank.dimension(spec, seed=3, trials=1, output="all")
    i = seprank.dimension(spec, seed=3, trials=1, output="all", variant="interpolation", threads=1)
    assert (r.value, r.prime, r.rows, r.cols) == (i.value, i.prime, i.rows, i.cols)
    assert (r.variant, i.variant) == ("reverse", "interpolation")
    c = cli("dimension", "--tokens", 2, "--dim", 2, "--depth", 2, "--seed", 3, "--trials", 1, "--output", "all",
            "--variant", "interpolation")
    same_dimension(i, c)


def test_options_output_all_never_reads_are_warned_as_the_cli_notes_them():
    with pytest.warns(UserWarning, match=r"position=2 is ignored: output='all' differentiates every token"):
        a = seprank.dimension(dict(tokens=2, dim=2, position=2, coordinate=2), output="all")
    assert a.value == seprank.dimension(dict(tokens=2, dim=2), output="all").value
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seprank.dimension(dict(tokens=2, dim=2, position=2))  # read by the scalar output: no warning


def test_a_dict_reads_as_network_reads_the_same_options():
    # repeat without layers: a stack of attention layers, as network() draws it (a hunt
    # found it dropped: one layer, 4 parameters, where network() built three)
    net = seprank.network(tokens=2, dim=1, repeat=3)
    spec = dict(tokens=2, dim=1, repeat=3)
    assert seprank.dimension(spec).parameters == seprank.dimension(net).parameters == 12
    assert seprank.expected_dimension(spec)["parameters"] == 12
    # a stack with an embedding, in a dict and through network()/stack()
    emb = seprank.network(layers="mlp", tokens=2, dim=2, embed_rank=1)
    assert emb.spec["embed_rank"] == 1
    assert seprank.dimension(dict(layers="mlp", tokens=2, dim=2, embed_rank=1)).value == seprank.dimension(emb).value
    # a dict beside weights: the options it gives, checked; its defaults, not (dim 2 was
    # compared with the weights' 1 and refused by a matrix shape)
    one = seprank.network(tokens=2, dim=1)
    assert seprank.dimension(dict(tokens=2), weights=one).value == seprank.dimension(weights=one).value
    # an option the weights' network does not have is refused, not dropped (a review)
    for bad in (dict(power=3), dict(width=7), dict(free=True)):
        with pytest.raises(ValueError, match="is not an option of the weights' network"):
            seprank.dimension(bad, weights=one)
    # a stack's layers however the dict spells them: the same network is accepted
    two = seprank.stack(2, 2, "mlp:power=2", depth=2)
    for same in (dict(layers="mlp:power=2", repeat=2), dict(layers="mlp", depth=2), dict(layers=["mlp", "mlp"]), dict(repeat=2, layers="mlp")):
        assert seprank.dimension(same, weights=two).value == seprank.dimension(weights=two).value, same
    with pytest.raises(ValueError, match="net: layers = 'mlp,mlp,mlp'"):
        seprank.dimension(dict(layers="mlp", repeat=3), weights=two)
    with pytest.raises(ValueError, match="net: position = 2, but the weights' network has position = 1"):
        seprank.dimension(dict(layers="mlp", repeat=2, position=2), weights=two)


def test_local_dimension_at_given_weights(cli, tmp_path):
    net = seprank.attention(tokens=2, dim=2, depth=1, seed=3)
    path = tmp_path / "w.json"
    path.write_text(net.to_json())
    c = cli("dimension", "--weights", path, "--seed", 5)
    a = seprank.dimension(weights=net, seed=5)
    same_dimension(a, c)
    assert "local dimension" in a.note and c["weights"] == str(path)
    # a lower bound at given weights: no generic expected count, no defect claimed
    assert (a.label, a.expected, a.defect) == ("lower bound", None, None)
    assert a.value <= seprank.dimension(net, seed=5).value
    # the architecture given as well: the same numbers
    assert seprank.dimension(dict(tokens=2, dim=2, depth=1), weights=net, seed=5).value == a.value
    # at w = 0 every monomial of F has degree >= 2 in the weights: J = 0, dimension 0
    data = json.loads(net.to_json())
    for head in data["layers"][0]["heads"]:
        for m in ("Q", "K", "V", "O"):
            head[m] = [[0] * len(row) for row in head[m]]
    zero = seprank.from_weights(data)
    z = seprank.dimension(weights=zero)
    assert (z.value, z.defect, z.expected) == (0, None, None)
    assert "generic expected 5" in z.note
    path.write_text(zero.to_json())
    assert cli("dimension", "--weights", path)["rank"] == 0


@pytest.mark.parametrize("call,match", [
    (lambda: seprank.dimension(dict(tokens=2, dim=2), output="vector"), r"output: expected one of 'scalar', 'all', got 'vector'"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), variant="forward"), r"variant: expected one of 'reverse', 'interpolation', got 'forward'"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), trials=0), r"trials T = 0 must be at least 1"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), prime_bits=5), r"prime bits = 5 outside 20\.\.62"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), prime_bits=2**32 + 40), r"prime bits = 4294967336 outside 20\.\.62"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), margin=-1), r"margin: -1 is outside 0\.\."),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), max_time=0), r"max_time: 0 is not a finite number of seconds > 0"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), max_time=float("nan")), r"max_time: nan is not a finite"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), threads=0), r"threads: 0 is outside 1\.\."),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), seed=-1), r"seed: -1 is outside 0\.\."),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), trials="2"), r"trials: expected an integer, got '2'"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2, depth=0)), r"it has no parameters \(depth 0"),
    (lambda: seprank.dimension(dict(tokens=2, dim=3, heads=2)), r"heads H = 2 does not divide"),
    (lambda: seprank.dimension(), r"net: expected a seprank.Network or a dict of network options, got NoneType"),
    (lambda: seprank.dimension([2, 2]), r"net: expected a seprank.Network or a dict"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2), weights={"layers": []}), r"weights: expected a seprank.Network"),
    # a dict's sizes given beside weights are the weights' network's, or refused naming both
    (lambda: seprank.dimension(dict(tokens=2, dim=3), weights=seprank.attention(tokens=2, dim=2)),
     r"net: dim = 3, but the weights' network has dim = 2"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2, depth=2), weights=seprank.attention(tokens=2, dim=2)),
     r"net: depth = 2, but the weights' network has depth = 1"),
    (lambda: seprank.dimension(dict(repeat=4), weights=seprank.attention(tokens=2, dim=2)),
     r"net: family = 'stack', but the weights' network has family = 'attention'"),
    (lambda: seprank.dimension(dict(family="hadamard", tokens=2, dim=1, repeat=3)), r"repeat: the copies of a stack's layers \(stack only, not hadamard\)"),
    # what the matrices cannot tell: the CLI takes the network from --weights, so a net that
    # says otherwise would rank another network silently (residual gave 12 for the CLI's 8)
    (lambda: seprank.dimension(dict(tokens=2, dim=2, depth=2, residual=True), weights=seprank.attention(tokens=2, dim=2, depth=2)),
     r"net: residual = True, but the weights' network has residual = False"),
    (lambda: seprank.dimension(dict(tokens=3, dim=2), weights=seprank.attention(tokens=2, dim=2)),
     r"net: tokens = 3, but the weights' network has tokens = 2"),
    (lambda: seprank.expected_dimension(dict(tokens=2, dim=2), output="both"), r"output: expected one of 'scalar', 'all', got 'both'"),
    (lambda: seprank.expected_dimension(dict(family="transformer")), r"family: expected one of"),
    (lambda: seprank.dimension(dict(tokens=2, dim=2, detph=3)), r"network options: unknown 'detph'"),
    (lambda: seprank.expected_dimension(dict(tokens=2, hedas=2)), r"network options: unknown 'hedas'"),
    (lambda: seprank.generic_rank(dict(tokens=2, dim=2, depht=2)), r"network options: unknown 'depht'"),
])
def test_bad_input_names_the_value(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_work_over_the_time_limit_is_refused_before_it_starts():
    # issue 36: the estimate is taken before anything is drawn (ResourceLimitError, a MemoryError)
    with pytest.raises(seprank.ResourceLimitError, match=r"estimated, over the limit of 1 s \(max_time\)$"):
        seprank.dimension(dict(tokens=1000, dim=2, depth=60), max_time=1)  # named by this function's keyword


def test_points_are_added_until_the_rank_stops_growing():
    # issue 36: one point of N = 20 tokens, dx = 4 caps the rank at 16; the dimension is 31
    a = seprank.dimension(dict(tokens=20, dim=4), output="all")
    b = seprank.dimension(dict(tokens=20, dim=4), output="all", margin=400)
    assert a.value == b.value > 16 and a.defect is False


def test_known_defect_matches_cli(cli):
    # Strassen's block: named, not subtracted, the same in Python and the CLI
    spec = dict(tokens=2, dim=3, layers="hadamard:degree=2:width=4")
    c = cli("dimension", "--layers", spec["layers"], "--tokens", 2, "--dim", 3, "--output", "all")
    e = seprank.expected_dimension(spec, output="all")
    assert [size for _, size in e["known_defects"]] == [1] and e["known_defects"][0][0].startswith("layer 1: Strassen's block")
    assert e["known_defects"] == [(x["what"], x["size"]) for x in c["known_defects"]]
    assert (e["expected"], c["expected"], c["rank"]) == (27, 27, 26)
    assert seprank.expected_dimension(spec, output="scalar")["known_defects"] == []
