# seprank.spectrum: the same ε-separation spectrum as `seprank spectrum --format json`
# (values within the stated radii, identical ε-ranks), ε = 0 equals the certified rank of
# seprank.rank, the textbook spectrum of Σ x_i y_i, and bad arguments raise ValueError.
from fractions import Fraction

import pytest

import seprank

EPS = [0.0, 0.05, 0.3, 0.9]
EPS_ARG = ",".join(map(str, EPS))


def same_spectrum(sp, cli_json):
    assert sp.rank == cli_json["rank"] and sp.certified == cli_json["certified"]
    assert len(sp.singular_values) == len(cli_json["singular_values"])
    # both are enclosures of the same σ_k: the balls must overlap
    radii = sp.radii if sp.radii is not None else [0.0] * len(sp.singular_values)
    cli_radii = cli_json["radii"] or [0.0] * len(radii)
    for k, (a, b) in enumerate(zip(sp.singular_values, cli_json["singular_values"])):
        assert abs(a - b) <= radii[k] + cli_radii[k] + 1e-12 * max(1.0, abs(b)), f"sigma_{k + 1}: {a} vs {b}"
    assert sp.norm_squared == Fraction(cli_json["norm_squared"])
    assert [e.to_dict() for e in sp.eps_ranks] == cli_json["eps_ranks"]
    for k in ("measure", "method", "precision", "rows", "cols", "basis_rows", "basis_cols", "partition", "degree",
              "terms", "eps_absolute"):
        assert sp.to_dict()[k] == cli_json[k], k


@pytest.mark.parametrize("measure", ["uniform", "gaussian"])
def test_poly_matches_cli(cli, measure):
    text = "x1_1*x2_1 + 2*x1_2*x2_2 - x1_1^2*x2_2 + 3"
    sp = seprank.spectrum(seprank.poly(text), measure=measure, eps=EPS)
    same_spectrum(sp, cli("spectrum", "--poly", text, "--measure", measure, "--eps", EPS_ARG))


@pytest.mark.parametrize("family,kw", [("attention", dict(tokens=3, dim=1, depth=1, seed=7)),
                                       ("hadamard", dict(tokens=2, dim=2, depth=1, block_degree=2, seed=3))])
def test_network_matches_cli(cli, family, kw):
    net = seprank.network(family, **kw)
    args = ["--family", family, "--tokens", kw["tokens"], "--dim", kw["dim"], "--depth", kw["depth"],
            "--seed", kw["seed"]]
    if "block_degree" in kw:
        args += ["--block-degree", kw["block_degree"]]
    for method in ("certified", "fast"):
        sp = seprank.spectrum(net, "1|" + ",".join(map(str, range(2, kw["tokens"] + 1))), method=method, eps=EPS)
        cli_json = cli("spectrum", *args, "--partition", "1|" + ",".join(map(str, range(2, kw["tokens"] + 1))),
                       "--method", method, "--eps", EPS_ARG)
        same_spectrum(sp, cli_json)
    abs_sp = seprank.spectrum(net, eps=[0.5], eps_absolute=True)
    same_spectrum(abs_sp, cli("spectrum", *args, "--eps", "0.5", "--eps-absolute"))


def test_eps_zero_is_the_certified_rank():
    for target in (seprank.attention(tokens=3, dim=2, depth=1, seed=11),
                   seprank.hadamard(tokens=3, dim=1, depth=1, block_degree=3, seed=5),
                   seprank.poly("x1_1*x2_1*x3_1 + x1_1^2 + x2_1*x3_1^2 - 5*x1_1*x3_1")):
        exact = seprank.rank(target)
        assert exact.kind == "exact"
        sp = seprank.spectrum(target, eps=[0.0, 0.2, 1.0])
        assert sp.rank == exact.rank == len(sp.singular_values)
        zero = sp.eps_ranks[0]
        assert zero.eps == 0 and zero.rank == exact.rank and zero.certified
        # ε-sep is non-increasing in ε, and ε = 1 (relative) needs no term at all
        lows = [e.rank_high for e in sp.eps_ranks]
        assert lows == sorted(lows, reverse=True) and sp.eps_ranks[-1].rank_high == 0


def test_inner_product_spectrum():
    # Σ_{i≤n} x_i y_i: n equal singular values, ‖x_i‖² = 1/3 each under the uniform measure
    # (so σ = 1/3), 1 under the standard Gaussian; ‖f‖² = n σ².
    f = seprank.poly("x1_1*x2_1 + x1_2*x2_2 + x1_3*x2_3")
    for measure, sigma in (("uniform", 1 / 3), ("gaussian", 1.0)):
        sp = seprank.spectrum(f, measure=measure, eps=[0.0, 0.6])
        assert len(sp.singular_values) == 3 and sp.radius is not None
        for s, r in zip(sp.singular_values, sp.radii):
            assert abs(s - sigma) <= r + 1e-15
        assert sp.norm_squared == 3 * Fraction(sigma).limit_denominator(10) ** 2
        # dropping k of the 3 equal terms leaves relative error sqrt(k/3): 0.6 allows k = 1
        assert [e.rank for e in sp.eps_ranks] == [3, 2]
        assert "Spectrum(" in repr(sp) and "EpsRank(" in repr(sp.eps_ranks[0])


@pytest.mark.parametrize("kw,name", [(dict(measure="lebesgue"), "measure"), (dict(method="exact"), "method"),
                                     (dict(precision=1), "precision"), (dict(precision=2.5), "precision"),
                                     (dict(eps=-0.1), "eps"), (dict(eps=[0.1, float("nan")]), "eps"),
                                     (dict(eps="0.1"), "eps"), (dict(eps_absolute=1), "eps_absolute"),
                                     (dict(max_side=0), "max_side"), (dict(partition=5), "partition")])
def test_bad_arguments(kw, name):
    f = seprank.poly("x1_1*x2_1")
    with pytest.raises(ValueError, match=name):
        seprank.spectrum(f, **kw)


def test_bad_target():
    with pytest.raises(ValueError, match="target"):
        seprank.spectrum("x1_1*x2_1")
    with pytest.raises(ValueError, match="target"):
        seprank.spectrum([[1, 2], [3, 4]])
