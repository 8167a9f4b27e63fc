"""Cross-checks against peer packages (scikit-learn, krippendorff) and real data."""

from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from xrr_accessor.errors import DroppedDataWarning

import naive
from helpers import quietly

DATA = Path(__file__).parent / "data"


@st.composite
def two_raters(draw, max_items=60, max_cat=6):
    n = draw(st.integers(3, max_items))
    k = draw(st.integers(2, max_cat))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    a = rng.integers(0, k, n)
    agree = rng.random(n) < draw(st.floats(0, 1))
    b = np.where(agree, a, rng.integers(0, k, n))
    return a, b, k


def _frame(a, b, missing=None):
    n = len(a)
    df = pd.DataFrame({"item": np.tile(np.arange(n), 2), "rater": ["A"] * n + ["B"] * n,
                       "y": np.concatenate([a, b]).astype(float)})
    if missing is not None:
        df.loc[np.concatenate([missing, np.zeros(n, bool)]), "y"] = np.nan
    return df


@pytest.mark.parametrize("metric", ["cohen", "iota"])
@given(data=two_raters())
def test_cohen_and_two_rater_iota_equal_sklearn(data, metric):
    a, b, _ = data
    want = cohen_kappa_score(a, b)
    # sklearn's default: unweighted (without it, the weights follow the inferred level)
    got, _ = quietly(lambda: _frame(a, b).xrr.irr(metric=metric, weights="unweighted")["y"])
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(want, abs=1e-10)


@given(data=two_raters(), seed=st.integers(0, 1000))
def test_cohen_with_missing_is_listwise_sklearn(data, seed):
    a, b, _ = data
    miss = np.random.default_rng(seed).random(len(a)) < 0.3
    keep = ~miss
    got, caught = quietly(lambda: _frame(a, b, miss).xrr.irr(metric="cohen",
                                                              weights="unweighted"))
    if keep.sum() >= 1:
        want = cohen_kappa_score(a[keep], b[keep])
        if not np.isnan(want):
            assert got["y"] == pytest.approx(want, abs=1e-10)
    # an item with one rating has no pair (as in alpha): counted, nothing to warn about
    assert got.attrs["n_unpairable"]["y"] == miss.sum()
    assert got.attrs["n_dropped"]["y"] == 0
    assert not [w for w in caught if issubclass(w.category, DroppedDataWarning)]


@given(data=two_raters())
def test_weighted_cohen_equals_sklearn(data):
    """Interval iota = quadratic-weighted kappa; custom |a - b| = linear-weighted."""
    a, b, k = data
    labels = list(range(k))
    df = _frame(a, b)
    quad = cohen_kappa_score(a, b, weights="quadratic", labels=labels)
    lin = cohen_kappa_score(a, b, weights="linear", labels=labels)
    got_q, _ = quietly(lambda: df.xrr.irr(metric="cohen", level="interval")["y"])
    got_l, _ = quietly(lambda: df.xrr.irr(metric="cohen", level=lambda u, v: abs(u - v))["y"])
    for got, want in [(got_q, quad), (got_l, lin)]:
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got == pytest.approx(want, abs=1e-10)


@given(data=two_raters())
def test_kappa_x_single_annotations_equals_sklearn_cohen(data):
    a, b, _ = data
    x = pd.DataFrame({"item": np.arange(len(a)), "rater": "x", "y": a})
    y = pd.DataFrame({"item": np.arange(len(b)), "rater": "y", "y": b})
    want = cohen_kappa_score(a, b)
    got, _ = quietly(lambda: x.xrr.cross_kappa(y, level="nominal")["y"])
    if np.isnan(want):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(want, abs=1e-10)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@given(seed=st.integers(0, 2**32 - 1), n_raters=st.integers(2, 6),
       n_items=st.integers(2, 40), p_missing=st.sampled_from([0.0, 0.3, 0.6]))
def test_alpha_equals_krippendorff_package(level, seed, n_raters, n_items, p_missing):
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 6, size=(n_raters, n_items)).astype(float)
    data[rng.random(data.shape) < p_missing] = np.nan
    # the package needs at least two distinct pairable values
    pairable = data[:, (~np.isnan(data)).sum(0) >= 2]
    values = pairable[~np.isnan(pairable)]
    if len(np.unique(values)) < 2:
        return
    want = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    got = pd.DataFrame(data.T).xrr(wide=True).irr(level=level)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-10)


def test_snow2008_alpha_equals_krippendorff_package():
    """Real crowd data (Snow et al. 2008, 10 workers per item), nominal and interval."""
    for name, level, recorded in [("rte", "nominal", 0.2415), ("wsd", "nominal", 0.9372),
                                  ("anger", "interval", 0.3533)]:
        df = pd.read_csv(DATA / f"snow2008_{name}.csv")
        got = df.xrr(value="response").irr(level=level)
        wide = df.pivot(index="worker", columns="item", values="response").to_numpy(float)
        want = krippendorff.alpha(reliability_data=wide, level_of_measurement=level)
        assert got == pytest.approx(want, rel=1e-9)
        # value recorded in the data's SOURCE.md with krippendorff 0.9.0 (4 decimals)
        assert round(got, 4) == recorded


def test_snow2008_crowd_vs_gold_kappa_x_equals_naive():
    """kappa_x of the crowd against the expert gold treated as a replication."""
    for name, level in [("wsd", "nominal"), ("anger", "interval")]:
        df = pd.read_csv(DATA / f"snow2008_{name}.csv")
        crowd = df[["item", "worker", "response"]]
        gold = df.drop_duplicates("item")[["item", "gold"]].assign(worker="expert")
        gold = gold.rename(columns={"gold": "response"})
        got = crowd.xrr(value="response").cross_kappa(gold, level=level)
        x = {i: list(g["response"]) for i, g in crowd.groupby("item")}
        y = {i: list(g["response"]) for i, g in gold.groupby("item")}
        assert got == pytest.approx(naive.kappa_x(x, y, level), abs=1e-10)


def test_fleiss_diagnoses_iota_is_conger_kappa():
    """Fleiss (1971) data, 6 raters: iota (nominal) = Conger's kappa from its definition.

    Conger's kappa: p_o from rater pairs on each item, p_e averaged over rater
    pairs from their own marginals.
    """
    df = pd.read_csv(DATA / "fleiss1971_diagnoses.csv")
    wide = df.pivot(index="item", columns="rater", values="value")
    cats = sorted(df["value"].unique())
    b = wide.shape[1]
    p_o = np.mean([
        np.mean([wide.iloc[i, r] == wide.iloc[i, s] for r in range(b) for s in range(r + 1, b)])
        for i in range(len(wide))
    ])
    marg = np.array([[np.mean(wide.iloc[:, r] == c) for c in cats] for r in range(b)])
    p_e = np.mean([marg[r] @ marg[s] for r in range(b) for s in range(r + 1, b)])
    conger = (p_o - p_e) / (1 - p_e)
    got = df.xrr.irr(metric="iota")
    assert got == pytest.approx(conger, abs=1e-12)
    assert got == pytest.approx(naive.iota(wide.to_numpy().tolist()), abs=1e-12)
