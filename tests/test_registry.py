"""The registry owns each coefficient: its chance term, its analytic interval, the
coefficients it depends on and the flags callers read (issue 22).

A new coefficient is one register() call with its finalize: Bennett, Alpert and
Goldstein's S (1954), S = (p_a - 1/q) / (1 - 1/q), registered here from a chance term
written in this file, gets its estimate, analytic and bootstrap intervals, the
agreement table, the CLI and the dask path without any other change.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.coefficients import REGISTRY, Coefficient, lookup, register
from xrr_accessor.coefficients import chance as chance_module
from xrr_accessor.coefficients import variance as variance_module
from xrr_accessor.engine.pipeline import run
from xrr_accessor.errors import InputError


def _frame() -> pd.DataFrame:
    """One pool, three raters, 60 items, three categories, some ratings missing."""
    rng = np.random.default_rng(11)
    n = 60
    truth = rng.integers(0, 3, n)
    rows = []
    for rater in ("a", "b", "c"):
        value = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 3, n)).astype(float)
        value[rng.random(n) < 0.1] = np.nan
        rows.append(pd.DataFrame({"item": np.arange(n), "rater": rater, "joy": value}))
    return pd.concat(rows, ignore_index=True)


def _naive_s(df: pd.DataFrame) -> float:
    """S from the formula: mean over items with two or more ratings of the share of
    agreeing ordered rater pairs, chance 1/q with q the categories in use."""
    shares = []
    for _, g in df.dropna(subset=["joy"]).groupby("item"):
        v = g["joy"].to_numpy()
        if len(v) < 2:
            continue
        agree = sum(v[i] == v[j] for i in range(len(v)) for j in range(len(v)) if i != j)
        shares.append(agree / (len(v) * (len(v) - 1)))
    q = df["joy"].nunique()
    pa = float(np.mean(shares))
    return (pa - 1 / q) / (1 - 1 / q)


def _one_over_q(cell: chance_module.Cell) -> float:
    return 1.0 / cell.k


@pytest.fixture
def bennett(monkeypatch):
    monkeypatch.setitem(REGISTRY, "bennett_s", None)  # restored (removed) afterwards
    return register(Coefficient(
        "bennett_s", "irr", partial(chance_module.chance_corrected, chance=_one_over_q),
        frozenset({"chance", "within"}), "weights", ("weights",),
        "Bennett, Alpert & Goldstein (1954)", "Bennett's S: chance 1/q, for this test",
        aliases=("bennett",), in_table=True,
        analytic=variance_module.analytic(variance_module.bp_terms)))


def test_a_registered_coefficient_gets_estimate_intervals_table_and_cli(bennett, capsys):
    df = _frame()
    got = float(xa.irr(df, metric="Bennett")["joy"])
    assert got == pytest.approx(_naive_s(df), abs=1e-12)
    analytic = xa.irr(df, metric="bennett_s", ci=0.95)
    bp = xa.irr(df, metric="bp", ci=0.95)  # unweighted S is Brennan-Prediger
    np.testing.assert_allclose(analytic.to_numpy(dtype=float), bp.to_numpy(dtype=float))
    assert analytic.loc["joy", "lower"] < got < analytic.loc["joy", "upper"]
    boot = xa.irr(df, metric="bennett_s", ci=0.95, method="bootstrap", n_boot=200, seed=1,
                  interval="percentile", progress=False)
    assert boot.loc["joy", "lower"] < got < boot.loc["joy", "upper"]
    table = xa.agreement_table(df, weights="unweighted")
    assert table.loc[("joy", "bennett_s"), "estimate"] == pytest.approx(got)
    assert table.loc[("joy", "bennett_s"), "band"] == xa.interpret(pd.Series([got])).iloc[0]
    with pytest.raises(SystemExit):
        main(["irr", "--help"])
    assert "bennett_s" in capsys.readouterr().out


def test_a_registered_coefficient_runs_on_dask(bennett):
    dd = pytest.importorskip("dask.dataframe")
    df = _frame()
    lazy = xa.irr(dd.from_pandas(df.sort_values("item"), npartitions=1), metric="bennett_s")
    assert float(lazy.compute()["joy"]) == pytest.approx(
        float(xa.irr(df, metric="bennett_s")["joy"]), abs=1e-12)


def test_normalized_resolves_kappa_x_and_its_irr_through_the_run():
    df = xa.datasets.simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=2)
    norm = lookup("normalized_kappa_x", kind="cross")
    result = run(df, [norm])  # no IRR appended by hand
    got = result.estimate(norm, irr="alpha").value[0, 0]
    assert got == pytest.approx(float(xa.normalized(df).iloc[0, 0]), abs=1e-12)
    kx = result.estimate(lookup("kappa_x", kind="cross")).value[0, 0]
    irr = result.estimate(lookup("alpha")).value[0]
    assert got == pytest.approx(kx / np.sqrt(irr[0] * irr[1]), abs=1e-12)
    with pytest.raises(InputError, match=r"raters.*did not compute"):
        result.estimate(norm, irr="cohen")  # cohen's statistics were not asked for


def test_percent_agreement_has_no_chance_term():
    table = xa.agreement_table(_frame(), weights="unweighted")
    assert np.isnan(table.loc[("joy", "percent"), "pe"])
    assert pd.isna(table.loc[("joy", "percent"), "band"])  # not read on the kappa scale
    assert not lookup("percent").chance_corrected


def test_entries_without_an_analytic_hook_refuse_method_analytic():
    with pytest.raises(InputError, match="no analytic standard error"):
        xa.irr(_frame(), metric="scott", ci=0.95, method="analytic")
