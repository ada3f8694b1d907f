# Every error type: bad arguments → ValueError naming the parameter (and the expected
# shape), size limits → seprank.ResourceLimitError (a MemoryError), bugs → RuntimeError.
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import seprank
from seprank import _core


def test_translation_table():
    with pytest.raises(ValueError, match="test: invalid_input"):
        _core._raise_library_error("invalid_input")
    with pytest.raises(ValueError, match="test: domain_error"):
        _core._raise_library_error("domain_error")
    with pytest.raises(seprank.ResourceLimitError, match=r"test: resource_limit \(max_memory\)") as e:
        _core._raise_library_error("resource_limit")
    assert isinstance(e.value, MemoryError)
    with pytest.raises(RuntimeError, match="internal error.*test: internal_error"):
        _core._raise_library_error("internal_error")
    with pytest.raises(KeyboardInterrupt):
        _core._raise_library_error("cancelled")
    with pytest.raises(MemoryError):
        _core._raise_library_error("bad_alloc")
    assert issubclass(seprank.ResourceLimitError, MemoryError)
    assert seprank.ResourceLimitError.__module__ == "seprank"


def test_resource_limit_before_any_work():
    net = seprank.attention(tokens=4, dim=4, depth=3)
    with pytest.raises(seprank.ResourceLimitError, match="max_memory.*method='evaluation'"):
        seprank.expand(net)
    with pytest.raises(MemoryError):
        seprank.rank(net, max_memory=1e6)
    with pytest.raises(seprank.ResourceLimitError):
        seprank.poly("(x1_1 + x2_1)^100000")


def test_a_partition_of_many_tokens_is_refused_before_its_text_is_made():
    # a range of five million positions: refused from its length (it had peaked at 462 MB)
    before = seprank.max_memory()
    seprank.set_max_memory(10 * 2**20)
    try:
        with pytest.raises(seprank.ResourceLimitError, match=r"a partition of 4999999 tokens: about .* \(seprank.set_max_memory\)"):
            seprank.rank(seprank.poly("x1_1*x2_1"), ([1], range(2, 5_000_000)))
        assert seprank.rank(seprank.poly("x1_1*x2_1"), ([1], range(2, 50))).value == 1
        with pytest.raises(seprank.ResourceLimitError, match="a partition of over 2\\^63 tokens"):
            seprank.rank(seprank.poly("x1_1*x2_1"), ([1], range(2, 10**20)))
    finally:
        seprank.set_max_memory(before)


def test_a_matrix_over_max_memory_is_refused_before_its_entries_are_converted():
    import time
    t0 = time.monotonic()
    with pytest.raises(seprank.ResourceLimitError, match=r"target: a 4000 x 4000 matrix: about .* \(max_memory\)"):
        seprank.rank(np.zeros((4000, 4000), np.int8), max_memory=1e6)
    with pytest.raises(seprank.ResourceLimitError, match=r"target: a 300 x 300 matrix"):
        seprank.rank([[1] * 300] * 300, max_memory=1e6)
    assert time.monotonic() - t0 < 2  # nothing converted (the 4000 x 4000 one took 24 s before)
    assert seprank.rank([[1] * 30] * 30, max_memory=1e6).value == 1  # a small one fits
    assert seprank.rank(np.eye(5, dtype=np.int64), max_memory=1e6).value == 5


@pytest.mark.parametrize("call,match", [
    (lambda: seprank.attention(tokens=2, dim=3, heads=2), "heads H = 2 does not divide"),
    (lambda: seprank.attention(tokens="4"), "tokens: expected an integer"),
    (lambda: seprank.network("transformer"), "family: expected one of attention, hadamard, fc"),
    (lambda: seprank.rank(seprank.attention(tokens=2), "1|1"), "partition '1|1'"),
    (lambda: seprank.rank(seprank.attention(tokens=2), [1, 2, 3]), "partition: expected 'A|B'"),
    (lambda: seprank.rank(seprank.attention(tokens=2), method="svd"), "method: expected one of"),
    (lambda: seprank.rank(seprank.attention(tokens=2), field="R"), "field: expected one of 'Q', 'p'"),
    (lambda: seprank.rank("x1_1*x2_1"), "seprank.poly"),
    (lambda: seprank.rank(np.array([1, 2, 3])), r"target: expected a 2-D matrix .*shape \(3,\)"),
    (lambda: seprank.rank([[1, 2], [3]]), "rectangular"),
    # weights: the library names the key (a numpy array under an unknown key or a misspelt
    # one gave numpy's or JSON's TypeError), and a weights value that is neither list nor dict
    (lambda: seprank.attention(tokens=2, weights=[{"heads": [dict(Q=np.eye(2, dtype=int), K=np.eye(2, dtype=int), V=np.eye(2, dtype=int),
                                                                  O=np.eye(2, dtype=int), X=np.eye(2, dtype=int))]}]),
     r"heads\[0\]\.X: unknown key"),
    (lambda: seprank.attention(tokens=2, weights=[{"heds": [dict(Q=np.eye(2, dtype=int))]}]),
     r'missing key "dim", and no matrix of the first layer to read it from \(its keys: heds\)'),
    (lambda: seprank.attention(tokens=2, weights=5), r"weights: expected a list of layer dicts or a dict"),
    (lambda: seprank.rank([[1, "3/0"]]), r"target\[0\]\[1\]: expected an integer or a 'p/q' string, got '3/0'"),
    (lambda: seprank.rank([[1, float("nan")]]), r"target\[0\]\[1\]: nan is not a finite number"),
    (lambda: seprank.rank(seprank.poly("x1_1*x1_2")), "at least 2 tokens"),
    (lambda: seprank.rank(seprank.poly("x1_1*x3_1"), "1|2"),
     r"polynomial: variable 'x3_1' belongs to token 3, beyond the 2 tokens of the partition '1\|2'"),
    (lambda: seprank.rank(seprank.poly("x1_1*x2_1"), method="grid"), "flattening"),
    (lambda: seprank.generic_rank(seprank.attention(tokens=2), trials=0), "trials T = 0"),
    (lambda: seprank.generic_rank([2, 2]), "net: expected a seprank.Network or a dict"),
    (lambda: seprank.expand("net"), "net: expected a seprank.Network"),
    (lambda: seprank.poly("x1_1 +* 2"), "position"),
    (lambda: seprank.poly(3), "text: expected a string"),
    (lambda: seprank.table(tokens="2..x"), "tokens '2..x': 'x' is not an integer"),
    (lambda: seprank.table(tokens=2, dim="3..1"), "dim '3..1': empty range '3..1'"),
    (lambda: seprank.table(tokens=2, dim="1..1000000"), "dim '1..1000000': range '1..1000000' is too long"),
    (lambda: seprank.table(tokens=1), "sweep tokens N = 1"),
    (lambda: seprank.verify("no-such-claim"), "no-such-claim"),
    (lambda: seprank.verify(3), "names: expected a claim name or a list of names .* got 3"),
    (lambda: seprank.verify(["degree", 7]), "names: expected claim names .* got 7"),
    (lambda: seprank.hadamard(embedding=[[1]]), "embedding: given without weights"),
    # a flag is True or False, a size never a bool (tokens=True was N = 1, residual=2 was True)
    (lambda: seprank.attention(tokens=True), "tokens: expected an integer, got True"),
    (lambda: seprank.hadamard(tokens=2, depth=False), "depth: expected an integer, got False"),
    (lambda: seprank.hadamard(tokens=2, residual=2), "residual: expected True or False, got 2"),
    (lambda: seprank.hadamard(tokens=2, free="no"), "free: expected True or False, got 'no'"),
    (lambda: seprank.generic_rank(dict(tokens=2, residual="yes")), "residual: expected True or False"),
    # a list of sizes: bytes, a dict or a set were iterated (dim=b"1" ranked dx = 49)
    (lambda: seprank.table(tokens=2, dim=b"1", depth=1), r"dim: expected an int, a list of ints or range text .* got b'1'"),
    (lambda: seprank.table(tokens={2: 1}, dim=1, depth=1), r"tokens: expected an int, a list of ints .* got \{2: 1\}"),
    (lambda: seprank.table(tokens=2, dim={1, 2}, depth=1), r"dim: expected an int, a list of ints"),
    (lambda: seprank.table(tokens=2, dim=1.0, depth=1), r"dim: expected an int, a list of ints .* got 1\.0"),
    (lambda: seprank.budget(24, None, tokens=2, dim=1), r"degrees: expected an int, a list of ints .* got None"),
    # an empty value is bad input, never the default (as the CLI's --widths '' and --partition '')
    (lambda: seprank.fc(tokens=2, dim=2, widths=[]), r"widths: an empty list"),
    (lambda: seprank.network("hadamard", heads=1), r"heads=1 given to hadamard: heads apply to attention only"),
    (lambda: seprank.network("nope", heads=1), r"family: expected one of attention, hadamard, fc, stack, power, got 'nope'"),
    (lambda: seprank.budget(24, [2], heads=1), r"heads=1 given to hadamard: heads apply to attention only"),
    # a dict of options too: heads = 1, the default, is still refused for another family
    (lambda: seprank.generic_rank({"family": "hadamard", "tokens": 2, "heads": 1}), r"heads=1 given to hadamard"),
    (lambda: seprank.dimension({"layers": "attention,hadamard", "head_dim": 2}), r"head_dim=2 given to a stack: .* per layer"),
    (lambda: seprank.generic_rank({"layers": "attention", "heads": 1}), r"heads=1 given to a stack: .* per layer \(attention:heads=H"),
    (lambda: seprank.guess([{"n": 1, "rank": 2}, {"n": 2, "rank": 5}], vars=[]), r"guess: 0 variables given; 1 to 3 are searched"),
    (lambda: seprank.rank(seprank.attention(tokens=2, dim=1), ""), r"partition: '' is empty"),
    (lambda: seprank.generic_rank(seprank.attention(tokens=2, dim=1), " "), r"partition: ' ' is empty"),
])
def test_bad_arguments_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_weight_errors_name_the_matrix_and_shape():
    ok = {"Q": [[1, 0], [2, -1]], "K": [[1, 0], [0, 1]], "V": [[1, 1], [0, 1]], "O": [[1, 0], [0, 3]]}
    bad = dict(ok, Q=np.ones((2, 3), dtype=int))
    with pytest.raises(ValueError, match=r"\$\.layers\[0\]\.heads\[0\]\.Q\[0\]: has 3 entries, expected 2"):
        seprank.attention(tokens=2, dim=2, weights=[{"heads": [bad]}])
    with pytest.raises(ValueError, match=r"\['Q'\]: expected a 2-D matrix \(rows × columns\), got an array of shape \(2, 2, 2\)"):
        seprank.attention(tokens=2, dim=2, weights=[{"heads": [dict(ok, Q=np.ones((2, 2, 2), dtype=int))]}])
    with pytest.raises(ValueError, match=r"\['K'\]\[1\]\[0\]: expected an integer, a Fraction"):
        seprank.attention(tokens=2, dim=2, weights=[{"heads": [dict(ok, K=[[1, 0], [None, 1]])]}])
    with pytest.raises(ValueError, match=r"decimal strings are not taken"):
        seprank.attention(tokens=2, dim=2, weights=[{"heads": [dict(ok, K=[[1, 0], ["0.5", 1]])]}])
    with pytest.raises(ValueError, match=r"got the bool True"):
        seprank.attention(tokens=2, dim=2, weights=[{"heads": [dict(ok, K=[[1, 0], [True, 1]])]}])
    with pytest.raises(ValueError, match=r"layers"):
        seprank.attention(tokens=2, dim=2, depth=2, weights=[{"heads": [ok]}])  # one layer for L = 2


# Integers beyond the C++ types the bindings take (a seed is a std::uint64_t, a thread
# count an int, the rest longs) are refused at the boundary with a ValueError naming the
# parameter and the value, on every function, not passed to pybind11's cast (whose error
# names neither). Thread counts are checked whether or not the method runs threads.
# Checked by test_option_values_checked_whatever_the_method.
BEYOND_CPP_TYPES = [
    (lambda net: seprank.generic_rank(net, seed=-1), r"seed: -1 is outside 0\.\.18446744073709551615"),
    (lambda net: seprank.generic_rank(net, seed=2**64), r"seed: 18446744073709551616 is outside"),
    (lambda net: seprank.generic_rank(net, trials=10**20), r"trials: 100000000000000000000 is outside"),
    (lambda net: seprank.generic_rank(net, threads=2**31), r"threads: 2147483648 is outside 1\.\.\d+"),
    # 10^6 threads had run the process out of memory: at most the library's max_threads()
    (lambda net: seprank.rank(net, method="evaluation", threads=10**6), r"threads: 1000000 is outside 1\.\.\d+"),
    (lambda net: seprank.rank(net, method="grid", seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.rank(net, threads=0), r"threads: 0 is outside 1\.\."),
    (lambda net: seprank.spectrum(net, threads=-1), r"threads: -1 is outside 1\.\."),
    (lambda net: seprank.spectrum(net, seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.table(family="attention", tokens=[2], dim=[1], depth=[1], seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.table(family="attention", tokens=[2], dim=[1], depth=[1], threads=0), r"threads: 0 is outside"),
    (lambda net: seprank.budget(20, seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.budget(20, threads=-1), r"threads: -1 is outside"),
    (lambda net: seprank.verify(["dimension-layer"], seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.attention(tokens=2, dim=1, seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.attention(tokens=2**63, dim=1), r"tokens: 9223372036854775808 is outside"),
    (lambda net: seprank.degree(net, seed=-1), r"seed: -1 is outside"),
    (lambda net: seprank.dimension(net, seed=2**64), r"seed: 18446744073709551616 is outside"),
]


# Option values are checked by the library whatever the method (issue 29.4): a value the
# chosen method would not use is still refused, naming it.
@pytest.mark.parametrize("call,match", [
    (lambda net: seprank.rank(net, max_side=-5), "max side -5 must be at least 1"),
    (lambda net: seprank.rank(net, method="grid", max_side=0), "max side 0 must be at least 1"),
    (lambda net: seprank.rank(net, templates=0), "templates M = 0"),
    (lambda net: seprank.rank(net, method="evaluation", templates=-2), "templates M = -2"),
    (lambda net: seprank.generic_rank(net, method="flattening", growth=float("inf")), "growth inf must be a finite number above 1"),
    (lambda net: seprank.generic_rank(net, method="flattening", growth=1.0), "growth 1 must be"),
    (lambda net: seprank.generic_rank(net, method="flattening", max_side=-5), "max side -5 must be at least 1"),
    (lambda net: seprank.generic_rank(net, method="flattening", start=-1), "start -1 must satisfy"),
    (lambda net: seprank.generic_rank(net, method="flattening", start=5000), "start 5000 must satisfy 1 <= start <= max side 4096"),
    (lambda net: seprank.generic_rank(net, method="evaluation", start=20, max_side=8), "start 20 must satisfy"),
    (lambda net: seprank.generic_rank(net, method="flattening", trials=0), "trials T = 0"),
    (lambda net: seprank.rank(net, method="evaluation", max_memory=-1), "max_memory = -1 must be a positive"),
    (lambda net: seprank.expand(net, max_memory=0), "max_memory = 0 must be a positive"),  # as the CLI's --max-memory 0
    (lambda net: seprank.rank(net, max_memory=float("inf")), "max_memory = inf must be a positive"),
    (lambda net: seprank.spectrum(seprank.poly("x1_1*x2_1"), max_memory=float("nan")), "max_memory = nan must be"),
    (lambda net: seprank.rank(net, max_memory="4G"), "max_memory: expected a number of bytes, got '4G'"),
    (lambda net: seprank.expand(net, max_memory=None), "max_memory: expected a number of bytes, got None"),
    (lambda net: seprank.rank(dict(tokens=3, dim=2, depth=3)), r"target: a dict; rank takes a Network.*seprank.network\(\*\*spec\)"),
] + BEYOND_CPP_TYPES)
def test_option_values_checked_whatever_the_method(call, match):
    net = seprank.attention(tokens=2, dim=1)
    with pytest.raises(ValueError, match=match):
        call(net)


def test_default_start_fits_a_small_max_side():
    # start 0 (default): min(16, max_side), so a small max_side alone is valid
    net = seprank.attention(tokens=2, dim=1)
    with pytest.warns(UserWarning, match="max_side=8 is ignored: method flattening evaluates nothing"):
        assert seprank.generic_rank(net, method="flattening", max_side=8).rank >= 1
    assert seprank.rank(net, method="evaluation", max_side=8).rank >= 1


def test_largest_seed_is_taken():
    net = seprank.attention(tokens=2, dim=1)
    assert seprank.generic_rank(net, seed=2**64 - 1).rank == seprank.generic_rank(net, seed=0).rank


def test_entries_past_pythons_text_limit_are_taken_exactly():
    # Python converts ints to text up to 4300 digits; an entry past it was refused
    assert int(seprank.rank([[1, 10**5000], [2, 2 * 10**5000]]).rank) == 1
    assert int(seprank.rank([[1, Fraction(1, 10**5000)], [1, 1]]).rank) == 2
    assert int(seprank.rank([[1, "1/" + "9" * 6000], [2, "2/" + "9" * 6000]]).rank) == 1


def test_an_empty_matrix_keeps_its_columns():
    # a 0 x 3 array was ranked as 0 x 0 (the CLI reads 0 x 3 from the file's header)
    a = seprank.rank(np.zeros((0, 3), dtype=int))
    assert int(a.rank) == 0 and a.rows == 0 and a.cols == 3


def test_options_the_method_does_not_read_are_noted():
    # the CLI notes "--templates 5 is ignored: ..."; Python said nothing
    net = seprank.attention(tokens=2, dim=1, depth=1)
    with pytest.warns(UserWarning, match="templates=5 is ignored: method flattening uses no templates"):
        seprank.rank(net, templates=5)
    with pytest.warns(UserWarning, match="max_side=10 is ignored: method flattening evaluates nothing"):
        seprank.rank(net, max_side=10)
    with pytest.warns(UserWarning, match="method=grid is ignored: a matrix is ranked as it is"):
        seprank.rank([[1, 2], [3, 4]], method="grid")
    with pytest.warns(UserWarning, match=r"start=5 is ignored: method flattening \(chosen by method='auto'\) evaluates nothing"):
        seprank.generic_rank(net, start=5, trials=1)
    with pytest.warns(UserWarning, match="store=.* is ignored: the plain evaluation keeps no block store"):
        seprank.generic_rank(net, method="evaluation", variant="plain", store="unused_store", trials=1)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults, and what the method reads, say nothing
        seprank.rank(net)
        seprank.rank(net, method="grid", templates=3)
        seprank.generic_rank(net, method="evaluation", max_side=64, trials=1)


def test_a_zero_polynomial_has_no_measured_degree():
    # the seed-1 weights of this hadamard network draw a 0: f = 0 at depth 2 (measured was -1)
    rows = seprank.degree(seprank.hadamard(tokens=2, dim=1, block_degree=2, depth=2))
    assert rows[0]["measured"] == 2 and rows[1]["measured"] is None and rows[1]["terms"] == 0
    # max_expand_bytes: a number >= 0 (NaN was accepted and read as "never"; a string raised TypeError)
    net = seprank.attention(tokens=2, dim=1)
    for bad in (float("nan"), -1, "x", True):
        with pytest.raises(ValueError, match="max_expand_bytes: expected a number of bytes"):
            seprank.degree(net, max_expand_bytes=bad)
    assert seprank.degree(net, max_expand_bytes=float("inf"))[0]["terms"] is not None
    assert seprank.degree(net, max_expand_bytes=0)[0]["terms"] is None


def test_text_that_is_not_utf8_is_a_value_error_naming_the_argument():
    # a lone surrogate (os.fsdecode's form of an undecodable byte) reached the binding as a
    # TypeError about "incompatible function arguments"
    bad = "x1_1\udcff"
    with pytest.raises(ValueError, match=r"text: not UTF-8 text \(surrogates not allowed at position 4\)"):
        seprank.poly(bad)
    with pytest.raises(ValueError, match="partition: not UTF-8 text"):
        seprank.rank(seprank.attention(tokens=2, dim=1), partition="1|2\udcff")
    with pytest.raises(ValueError, match="layers: not UTF-8 text"):
        seprank.network(family="stack", tokens=2, dim=1, layers="attention\udcff")


def test_every_path_argument_refuses_a_nul_and_takes_str_bytes_and_pathlike(tmp_path):
    # A NUL ends a file name for the system: guess('g.csv\0x') read g.csv, and
    # generic_rank(store='s\0x') made the folder s before failing. Each path argument is
    # refused naming itself, and nothing is made.
    import os
    import pathlib
    table = tmp_path / "g.csv"
    table.write_text("n,v\n" + "".join(f"{n},{n * n + 1}\n" for n in range(8)))
    want = seprank.guess(str(table), vars=["n"], value="v").formula
    for given in (str(table), os.fsencode(str(table)), table):  # bytes were read as rows: "rows[0]: ... got 47"
        assert seprank.guess(given, vars=["n"], value="v").formula == want
    net = seprank.attention(tokens=4, dim=2, depth=2)
    calls = {
        "rows": lambda p: seprank.guess(p, vars=["n"], value="v"),
        "out": lambda p: seprank.table(tokens=2, dim=1, depth=1, out=p),
        "store": lambda p: seprank.generic_rank(net, method="evaluation", variant="graded", trials=1, store=p),
        "block_hints": lambda p: seprank.generic_rank(net, method="evaluation", variant="graded", trials=1, block_hints=p),
    }
    for name, call in calls.items():
        for bad in (str(tmp_path / "a\0b"), os.fsencode(str(tmp_path / "a\0b"))):
            with pytest.raises(ValueError, match=f"^{name}: .* holds a NUL byte"):
                call(bad)
        with pytest.raises(ValueError, match=f"^{name}: expected a"):
            call(3.5)
    assert os.listdir(tmp_path) == ["g.csv"]  # tmp_path/"a" was made by the store before
    # out='' is refused as the CLI refuses --out "" (it was read as no file)
    with pytest.raises(ValueError, match="^out: empty file name"):
        seprank.table(tokens=2, dim=1, depth=1, out="")
    # a store named with a control character: the library's check, before anything is made
    with pytest.raises(ValueError, match="contains a control character"):
        calls["store"](pathlib.Path(tmp_path / "s\nt"))
    assert os.listdir(tmp_path) == ["g.csv"]
    # a bytes store and table file work as their text does
    answer = calls["store"](os.fsencode(str(tmp_path / "st")))
    assert (tmp_path / "st" / "trial0" / "meta").exists() and answer.rank == calls["store"](str(tmp_path / "st")).rank
    rows = seprank.table(tokens=2, dim=1, depth=1, out=os.fsencode(str(tmp_path / "t.csv")))
    assert len(rows) == len(seprank.table(tokens=2, dim=1, depth=1)) and (tmp_path / "t.csv").exists()


def test_a_hunts_bad_values_named():
    # From a hunt of the package (2026-12-02): each had run on, been taken as another
    # value, or failed naming nothing.
    net = seprank.attention(tokens=2)
    # a weights path is read by the library's reader, with its memory limit (it had read
    # /dev/zero whole, then raised a bare MemoryError)
    with pytest.raises(seprank.ResourceLimitError, match="weights file '/dev/zero'"):
        seprank.from_weights("/dev/zero")
    with pytest.raises(ValueError, match="cannot open weights file 'nope.json'.*is read as JSON text"):
        seprank.from_weights("nope.json")
    # an empty template list had been replaced by M = 2 random templates; M beyond a long
    # had failed in pybind11's cast
    with pytest.raises(ValueError, match="templates: an empty list"):
        seprank.rank(net, method="grid", templates=[])
    with pytest.raises(ValueError, match="templates: 9223372036854775808 is outside"):
        seprank.rank(net, method="grid", templates=2**63)
    # widths in a weights dict had been truncated (2.7 → 2)
    w = {"family": "fc", "tokens": 2, "dim": 1, "widths": [2.7, 1],
         "layers": [{"W": [[[1, 1], [1, 1]], [[1, 1], [1, 1]]]}, {"W": [[[1, 1]], [[1, 1]]]}]}
    with pytest.raises(ValueError, match=r"weights\['widths'\]\[0\]: expected an integer, got 2.7"):
        seprank.from_weights(w)
    with pytest.raises(ValueError, match=r"weights\['widths'\]: expected a list of integer widths, got None"):
        seprank.from_weights(dict(w, widths=None))
    # an embedding of no columns had been read as none
    layer = {"kind": "mlp", "power": 1, "W1": [[1, 0], [0, 1]], "W2": [[1, 0], [0, 1]]}
    for empty in ([], [[]]):
        with pytest.raises(ValueError, match=r"\$\.embedding: given, but the network has no embedding"):
            seprank.from_weights({"family": "stack", "tokens": 2, "dim": 2, "layers": [layer], "embedding": empty})
    # a float parameter given an integer beyond a double had raised OverflowError
    for call, name in ((lambda: seprank.rank(net, max_memory=10**400), "max_memory"),
                       (lambda: seprank.generic_rank(net, max_seconds=10**400), "max_seconds"),
                       (lambda: seprank.generic_rank(net, growth=10**400), "growth"),
                       (lambda: seprank.dimension(net, max_time=10**400), "max_time"),
                       (lambda: seprank.spectrum(net, eps=10**400), "eps")):
        with pytest.raises(ValueError, match=f"{name}: an integer of 401 digits is too large"):
            call()
    # numpy floats are numbers (they had been refused with their own value in the message)
    with pytest.warns(UserWarning, match="growth=2.0 is ignored"):
        assert seprank.generic_rank(net, growth=np.float32(2), max_seconds=np.float64(5)).rank >= 1
    from seprank._guess import _point_values  # predict()'s point: numpy integers are integers
    assert _point_values(["dim", "depth"], {"dim": np.int64(3), "depth": 2}) == [3, 2]
    with pytest.raises(ValueError, match="block_hints: the prediction's blocks are not plain numbers"):
        seprank.generic_rank(net, block_hints={"key": "x", "blocks": [float("nan")]})
    with pytest.raises(ValueError, match="eps max side 0 must be at least 1"):
        seprank.table(family="attention", tokens=2, dim=1, depth=1, eps=[0.1], eps_max_side=0)
    with pytest.raises(ValueError, match="family: expected a family name"):
        seprank.table(family=5)
    with pytest.raises(ValueError, match="indent -5: expected 0..64"):
        net.to_json(indent=-5)
    with pytest.raises(ValueError, match="indent: expected an integer"):
        net.to_json(indent="  ")
    with pytest.raises(ValueError, match="layers: expected SPEC text or a list of layer strings, got b'attention'"):
        seprank.stack(layers=b"attention")
    with pytest.raises(ValueError, match="names: expected a claim name"):
        seprank.verify(b"x")
    with pytest.raises(ValueError, match="Network: made by attention()"):
        seprank.Network(None)
    with pytest.raises(ValueError, match="power r = 1000000000 exceeds the supported maximum"):
        seprank.power(dim=2, widths=[2, 1], power=10**9)
    with pytest.raises(ValueError, match="family stack is not L copies of one block"):
        seprank.budget(48, [2], family="stack")
    # power and attention: the family is the reason (not power's missing widths), named alike
    with pytest.raises(ValueError, match="family power is not L copies of one block .*use family hadamard or fc"):
        seprank.budget(48, [2], family="power")
    with pytest.raises(ValueError, match="family attention fixes the block degree at 3"):
        seprank.budget(48, [2], family="attention")
    with pytest.raises(ValueError, match="family: expected one of .*got 'nope'"):
        seprank.budget(48, [2], family="nope")
    with pytest.raises(ValueError, match=r'missing key "heads", and the matrices do not give it'):
        seprank.from_weights({"family": "attention", "tokens": 2, "dim": 2, "depth": 1, "layers": [{"heads": None}]})


def test_a_stack_of_no_layers_round_trips():
    # stack(depth=0).spec had said layers '' that every call reading it refused as an empty SPEC
    n = seprank.stack(tokens=2, layers="attention", depth=0)
    assert n.spec["depth"] == 0 and n.spec["layers"] == ""
    assert seprank.network(**n.spec).spec == n.spec
    assert seprank.generic_rank(n).rank == 1
    with pytest.raises(ValueError, match=r"no parameters \(depth 0, no embedding\)"):
        seprank.dimension(n)
    with pytest.raises(ValueError, match="empty SPEC"):  # '' at depth >= 1 is still no SPEC
        seprank.stack(tokens=2, layers="")


def test_the_hunts_mends_keep_what_worked():
    # a review of the mends above: what had been accepted stays accepted
    import os
    import tempfile
    w = {"family": "fc", "tokens": 2, "dim": 1, "widths": np.array([2, 1]),
         "layers": [{"W": [[[1, 1], [1, 1]], [[1, 1], [1, 1]]]}, {"W": [[[1, 1]], [[1, 1]]]}]}
    assert seprank.from_weights(w).spec["widths"] == [2, 1]
    assert seprank.stack(tokens=2, layers=np.array(["attention", "mlp"])).spec["layers"] == "attention,mlp"
    assert seprank.stack(tokens=2, layers=(x for x in ["mlp"])).spec["layers"] == "mlp"
    with pytest.raises(ValueError, match="max_seconds: an integer of 5001 digits is too large"):  # past repr's digit limit
        seprank.generic_rank(seprank.attention(tokens=2), max_seconds=10**5000)
    with pytest.raises(ValueError, match="templates: expected a 2-D matrix"):
        seprank.rank(seprank.attention(tokens=2), method="grid", templates="")
    assert len(seprank.degree(seprank.attention(tokens=2), max_expand_bytes=10**400)) == 1  # beyond a double: always
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "w.json")
    with open(path, "w") as f:
        f.write(seprank.attention(tokens=2, seed=4).to_json())
    assert seprank.from_weights(path.encode()).to_json() == seprank.attention(tokens=2, seed=4).to_json()


def test_the_process_wide_memory_limit_is_set_and_named_from_python():
    # the limit of the calls without a max_memory argument (the CLI's --max-memory):
    # its refusals name seprank.set_max_memory, which a Python user can call
    before = seprank.max_memory()
    assert before > 0
    net = seprank.attention(tokens=2, dim=64, depth=2)  # 32768 weights, about 1.5 MiB
    table = Path(__file__).resolve().parents[2] / "data" / "blocks_attention_n4.csv"
    law = seprank.guess_blocks(table, vars="dim,depth", where={"heads": 1})
    try:
        seprank.set_max_memory(1e5)
        assert seprank.max_memory() == 1e5
        with pytest.raises(seprank.ResourceLimitError, match=r"over the limit of 100000 bytes \(seprank.set_max_memory\)"):
            seprank.dimension(net)
        with pytest.raises(seprank.ResourceLimitError, match=r"raise seprank.set_max_memory to predict there"):
            law.predict(dim=64, depth=2)
        assert law.predict(dim=2, depth=3)["total"] > 0  # a small point still fits
    finally:
        seprank.set_max_memory(before)
    assert seprank.max_memory() == before
    assert seprank.dimension(seprank.attention(tokens=2, dim=2, depth=1)).value > 0
    for bad, text in ((0, "max_memory = 0 must be a positive"), (float("nan"), "max_memory = nan"),
                      ("4G", "max_memory: expected a number of bytes, got '4G'"),
                      (8, r"max_memory = 8 bytes is outside 1 KiB .. 1 PiB .*not GiB"), (1e-9, "outside 1 KiB"), (2.0**51, "outside 1 KiB")):
        with pytest.raises(ValueError, match=text):
            seprank.set_max_memory(bad)
    assert seprank.max_memory() == before


def test_a_draws_options_beside_weights_are_checked_and_noted():
    # nothing is drawn when weights are given: seed and weight_range are checked, and one
    # other than its default is said to be unused (the CLI's note on --weight-range)
    import warnings
    layers = seprank.attention(tokens=2, dim=2, seed=3).weights()["layers"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net = seprank.attention(tokens=2, weights=layers)  # the defaults: nothing said
    assert net.seed is None
    with pytest.warns(UserWarning, match=r"seed=5 is ignored: weights= gives the network"):
        assert seprank.attention(tokens=2, weights=layers, seed=5).seed is None
    with warnings.catch_warnings():  # a given network's own seed, None, passed back: nothing to say
        warnings.simplefilter("error")
        assert seprank.network("attention", weights=net.weights(), seed=net.seed).seed is None
    with pytest.warns(UserWarning, match=r"weight_range=3 is ignored"):
        seprank.network("attention", tokens=2, weights=layers, weight_range=3)
    for bad, text in ((dict(seed=-1), "seed: -1 is outside"), (dict(weight_range="x"), "weight_range: expected an integer"),
                      (dict(weight_range=0), "weight_range: 0 must be at least 1")):
        with pytest.raises(ValueError, match=text):
            seprank.attention(tokens=2, weights=layers, **bad)
    stacked = seprank.stack(2, 2, "attention,hadamard", seed=4)
    with pytest.warns(UserWarning, match=r"seed=9 is ignored"):
        seprank.stack(2, 2, weights=stacked.weights(), seed=9)


def test_text_that_is_not_utf8_is_named_by_its_argument():
    # a lone surrogate (os.fsdecode's stand-in for an undecodable byte) reached the bindings
    # as pybind11's "incompatible function arguments", naming neither argument nor value
    rows = [dict(dim=d, depth=L, rank=d + L) for d in (1, 2, 3) for L in (1, 2, 3)]
    bad = "\udcff"
    for call, name in ((lambda: seprank.guess(rows, vars=[bad]), "vars"), (lambda: seprank.guess(rows, vars=["dim"], value=bad), "value"),
                       (lambda: seprank.guess(rows, vars=["dim"], where=bad + "=1"), "where"),
                       (lambda: seprank.guess(rows, vars=["dim"], where={bad: 1}), "where: a column name"),
                       (lambda: seprank.guess([{bad: 1}], vars=["dim"]), r"rows\[0\]: a column name"),
                       (lambda: seprank.guess([{"dim": bad}], vars=["dim"]), r"rows\[0\]\['dim'\]"),
                       (lambda: seprank.table(layers=bad, tokens=2), "layers"), (lambda: seprank.table(layers=[bad], tokens=2), "layers"),
                       (lambda: seprank.verify(bad), "names"), (lambda: seprank.from_weights('{"family":"' + bad + '"}'), "weights")):
        with pytest.raises(ValueError, match=name + r": not UTF-8 text"):
            call()
    # an integer past Python's 4,300-digit conversion limit is named by its size
    with pytest.raises(ValueError, match=r"tokens: an integer of 5001 digits is outside"):
        seprank.attention(tokens=10**5000)
    with pytest.raises(ValueError, match=r"partition: expected .* got a tuple holding an integer too long to show"):
        seprank.rank(seprank.attention(tokens=2), ([10**5000], [1]))


def test_options_a_call_ignores_are_noted_as_the_cli_notes_them():
    import warnings
    with pytest.warns(UserWarning, match=r"threads=4 is ignored: the interpolation variant builds the Jacobian on one thread"):
        seprank.dimension(dict(tokens=2, dim=1), variant="interpolation", threads=4)
    with pytest.warns(UserWarning, match=r"seed=5 is ignored: the polynomial is given"):
        seprank.spectrum(seprank.poly("x1_1*x2_1"), seed=5)
    with pytest.warns(UserWarning, match=r"seed=5 is ignored: the network's weights are given"):
        seprank.spectrum(seprank.attention(tokens=2, dim=1), seed=5)
    with pytest.warns(UserWarning, match=r"position=2 is ignored: output='all'"):
        seprank.dimension(seprank.attention(tokens=2, dim=1, position=2), output="all")
    with pytest.warns(UserWarning, match=r"eps_max_side=10 is ignored: no eps columns asked for"):
        seprank.table(tokens=2, dim=1, depth=1, eps_max_side=10)
    with warnings.catch_warnings():  # the defaults, and a Network's own position 1: nothing to say
        warnings.simplefilter("error")
        seprank.dimension(seprank.attention(tokens=2, dim=1), output="all")
        seprank.dimension(dict(tokens=2, dim=1), variant="interpolation")
        seprank.spectrum(seprank.poly("x1_1*x2_1"))


def test_an_option_written_at_its_default_value_is_noted_as_the_cli_notes_it():
    # The CLI notes `--threads 2` with the interpolation variant, `--max-side 4096` with
    # the flattening: what was written, whatever its value. Python had compared with the
    # default, so that threads=2 or seed=1 written in the call went unsaid.
    import warnings
    with pytest.warns(UserWarning, match=r"threads=2 is ignored: the interpolation variant"):
        seprank.dimension(dict(tokens=2, dim=1), variant="interpolation", threads=2)
    with pytest.warns(UserWarning, match=r"max_side=4096 is ignored: method flattening evaluates nothing"):
        seprank.rank(seprank.attention(tokens=2, dim=1), max_side=4096)
    with pytest.warns(UserWarning, match=r"templates=2 is ignored: method flattening uses no templates"):
        seprank.rank(seprank.attention(tokens=2, dim=1), templates=2)
    with pytest.warns(UserWarning, match=r"growth=1.25 is ignored: method flattening"):
        seprank.generic_rank(dict(tokens=2, dim=1), method="flattening", growth=1.25)
    with pytest.warns(UserWarning, match=r"eps_max_side=4096 is ignored: no eps columns asked for"):
        seprank.table(tokens=2, dim=1, depth=1, eps_max_side=4096)
    layers = seprank.attention(tokens=2, dim=2, seed=3).weights()["layers"]
    # the builders that forward to network() keep the user's call as the one written
    for build in (lambda: seprank.attention(tokens=2, weights=layers, seed=1),
                  lambda: seprank.network("attention", tokens=2, weights=layers, seed=1)):
        with pytest.warns(UserWarning, match=r"seed=1 is ignored: weights= gives the network") as caught:
            build()
        assert caught[0].filename == __file__  # the user's line, through the decorator's frame
    stacked = seprank.stack(2, 2, "attention,hadamard", seed=4)
    with pytest.warns(UserWarning, match=r"weight_range=5 is ignored"):
        seprank.network(layers="attention,hadamard", tokens=2, weights=stacked.weights(), weight_range=5)
    with warnings.catch_warnings():  # nothing written: nothing said, through every builder
        warnings.simplefilter("error")
        seprank.attention(tokens=2, weights=layers)
        seprank.network("attention", tokens=2, weights=layers)
        seprank.stack(2, 2, weights=stacked.weights())
        seprank.rank(seprank.attention(tokens=2, dim=1))
        seprank.dimension(dict(tokens=2, dim=1), variant="interpolation", threads=1)
    # a call from inside the package is not the user's: e.g. a pickled network rebuilt
    import pickle
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.loads(pickle.dumps(seprank.attention(tokens=2, weights=layers)))


@pytest.mark.parametrize("call, text", [
    (lambda: seprank.Polynomial(5), r"Polynomial: made by poly\(\) or expand\(\), not from int"),
    (lambda: seprank.Answer(5), r"Answer: made by rank\(\), generic_rank\(\), dimension\(\) .* not from int"),
    (lambda: seprank.Spectrum(5), r"Spectrum: made by spectrum\(\), not from int"),
    (lambda: seprank.table(family=[], tokens=2), r"family: an empty list"),
    (lambda: seprank.table(tokens=[], dim=1), r"tokens: an empty list"),
    (lambda: seprank.guess([dict(dim=1, rank=2)], vars=["dim"], where="x"), r"^where: 'x' is not name=value"),
    (lambda: seprank.guess([{"dim": float("nan"), "depth": 1, "rank": 2}], vars=["dim", "depth"]), r"row 1: dim is empty"),
    (lambda: seprank.dimension(dict(tokens=2), prime_bits=2**40), r"prime bits = 1099511627776 outside 20\.\.62"),
    (lambda: seprank.variety(dict(tokens=2), trials=2**40), r"trials 1099511627776 outside 1\.\.1000"),
])
def test_refusals_name_the_argument_and_its_real_range(call, text):
    with pytest.raises(ValueError, match=text):
        call()


def test_an_answer_says_what_its_value_is_the_rank_of():
    # a grid's exact rank is only a lower bound of sep: its repr says quantity='grid'
    net = seprank.attention(tokens=4, dim=2, depth=2)
    grid = seprank.rank(net, method="grid", templates=3)
    assert grid.kind == "exact" and "quantity='grid'" in repr(grid) and grid.to_dict()["bound"] == "lower bound of sep"
    assert "quantity" not in repr(seprank.rank(net))  # the flattening's rank is sep itself
    assert "quantity='generic sep'" in repr(seprank.generic_rank(dict(tokens=2, dim=1)))
