"""Landis-Koch bands, per-category agreement and the side-by-side agreement table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from statsmodels.stats.inter_rater import fleiss_kappa

import xrr_accessor as xa

DATA = Path(__file__).parent / "data"


def test_interpret_bands():
    values = [-0.01, 0.0, 0.2, 0.21, 0.4, 0.41, 0.6, 0.61, 0.8, 0.81, 1.0, np.nan]
    want = ["poor", "slight", "slight", "fair", "fair", "moderate", "moderate",
            "substantial", "substantial", "almost perfect", "almost perfect"]
    got = xa.interpret(pd.Series(values))
    assert got.iloc[:-1].tolist() == want and pd.isna(got.iloc[-1])
    assert xa.interpret(0.405705) == "moderate"
    assert xa.interpret(np.array(values[:3])).tolist() == want[:3]
    da = xa.interpret(xr.DataArray(values[:2], dims="x"))
    assert da.values.tolist() == want[:2]


def test_per_category_fleiss_1971():
    """Fleiss (1971) category kappas: 0.245, 0.245, 0.520, 0.471, 0.566."""
    df = pd.read_csv(DATA / "fleiss1971_diagnoses.csv")
    got = df.xrr.per_category()
    assert got.round(3).tolist() == [0.245, 0.245, 0.520, 0.471, 0.566]
    for (_, cat), value in got.items():
        binary = (df["value"] == cat).astype(int)
        table = pd.crosstab(df["item"], binary).to_numpy()
        assert value == pytest.approx(fleiss_kappa(table), abs=1e-12)


def test_per_category_labels_and_replications():
    df = pd.DataFrame({"item": np.repeat(np.arange(6), 2), "rater": ["a", "b"] * 6,
                       "pool": np.repeat(["X", "Y"], 6), "joy": list("xxyyzz" "xyyyzx")})
    out = df.xrr.per_category(metric="bp")
    assert out.index.names == ["label", "category"]
    assert list(out.columns) == ["X", "Y"]
    assert out.loc[("joy", "x"), "X"] == pytest.approx(1.0)


def test_agreement_table_shows_the_paradox():
    """Seed 004: after the shift, kappa and pi fall while BP and AC1 hold."""
    def table(ba, br, ao, bo):
        a = ["acc"] * ba + ["rej"] * br + ["acc"] * ao + ["rej"] * bo
        b = ["acc"] * ba + ["rej"] * br + ["rej"] * ao + ["acc"] * bo
        return pd.DataFrame({"A": a, "B": b}).xrr(wide=True).agreement_table(ci=0.95)

    before, after = table(15, 20, 11, 4), table(5, 30, 11, 4)
    assert list(after.index) == ["percent", "cohen", "scott", "fleiss", "conger", "light",
                                 "bp", "gwet", "alpha"]
    assert after.loc["cohen", "estimate"] == pytest.approx(0.220374, abs=5e-7)
    assert before.loc["cohen", "estimate"] == pytest.approx(0.405705, abs=5e-7)
    assert after.loc["conger", "pe"] == pytest.approx(0.6152, abs=1e-12)
    # Cohen's terms, straight from the 2x2 table: p_a = (5 + 30) / 50, p_e from the margins
    a_acc, b_acc = (5 + 11) / 50, (5 + 4) / 50
    assert after.loc["cohen", "pa"] == pytest.approx(0.7, abs=1e-12)
    assert after.loc["cohen", "pe"] == pytest.approx(a_acc * b_acc + (1 - a_acc) * (1 - b_acc),
                                                     abs=1e-12)
    assert pd.isna(after.loc["percent", "band"])  # no chance correction, no Landis-Koch band
    # ... and no chance term: pe blank, not 0.000 (issue 21); pa is its estimate
    assert pd.isna(after.loc["percent", "pe"]) and pd.isna(before.loc["percent", "pe"])
    assert after.loc["percent", "pa"] == pytest.approx(after.loc["percent", "estimate"])
    assert before.loc["conger", "pe"] == pytest.approx(0.4952, abs=1e-12)
    assert after.loc["bp", "estimate"] == before.loc["bp", "estimate"] == pytest.approx(0.4)
    assert after.loc["gwet", "estimate"] > before.loc["gwet", "estimate"]
    assert after.loc["percent", "estimate"] == pytest.approx(0.7)
    assert after.loc["gwet", "band"] == "moderate" and after.loc["cohen", "band"] == "fair"
    assert np.isnan(after.loc["light", "se"]) and np.isfinite(after.loc["gwet", "se"])
    # each row is the library's own coefficient
    acc = pd.DataFrame({"A": ["acc"] * 5 + ["rej"] * 30 + ["acc"] * 11 + ["rej"] * 4,
                        "B": ["acc"] * 5 + ["rej"] * 30 + ["rej"] * 11 + ["acc"] * 4}
                       ).xrr(wide=True)
    for metric in after.index:
        assert after.loc[metric, "estimate"] == pytest.approx(acc.irr(metric=metric))


def test_agreement_table_many_raters_and_replications():
    from xrr_accessor.datasets import simulate

    df = simulate(n_items=300, labels=["joy", "awe"], pools=["A", "B"], raters_per_item=3,
                  single_rate=0.0, seed=4)
    out = df.xrr.agreement_table(weights="unweighted")
    assert out.index.names == ["label", "replication", "metric"]
    assert "cohen" not in out.index.get_level_values("metric")  # three raters
    assert len(out) == 2 * 2 * 8
