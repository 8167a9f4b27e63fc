"""Validity on numbers: MAE, RMSE, Pearson and Lin's CCC against the gold.

Three ways: a naive implementation written from the formulas here (every
annotation against its item's gold; each item's mean; per rater), on random
shapes with missing annotations and items without gold; peers (scipy's
pearsonr, scikit-learn's mean_absolute_error and mean_squared_error) on real
data, Snow et al. (2008) anger ratings 0-100 against the expert's
(tests/data/snow2008_anger.csv, see tests/data/README.md); and a published CCC
example (the metric card of the Hugging Face ``evaluate`` module
``agkphysics/ccc``: references [0.1, 0.3], predictions [0.1, 0.2] give
0.666666641831399 in float32, i.e. 2/3; swapped [0.2, 0.1] give -1). The
intervals: a naive Poisson bootstrap with the library's keyed weights.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr
from sklearn.metrics import mean_absolute_error, mean_squared_error

import xrr_accessor as xrr
from xrr_accessor.engine.draws import Draws, item_keys
from xrr_accessor.errors import InputError, UndefinedWarning

from helpers import NUMERIC_CATEGORIES, annotation_frames, assert_close_or_both_nan, quietly

matplotlib.use("Agg")
import matplotlib.pyplot as plt

STATS = ("mae", "rmse", "pearson", "ccc")
ANGER = Path(__file__).parent / "data" / "snow2008_anger.csv"


def naive(x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """The four measures straight from their definitions (moments of divisor n)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) == 0:
        return dict.fromkeys(STATS, np.nan)
    out = {"mae": np.mean(np.abs(x - y)), "rmse": np.sqrt(np.mean((x - y) ** 2))}
    if len(x) < 2:
        return {**out, "pearson": np.nan, "ccc": np.nan}
    mx, my = x.mean(), y.mean()
    sxx, syy = np.mean((x - mx) ** 2), np.mean((y - my) ** 2)
    sxy = np.mean((x - mx) * (y - my))
    flat = np.ptp(x) == 0 or np.ptp(y) == 0
    den = sxx + syy + (mx - my) ** 2
    return {**out, "pearson": np.nan if flat else sxy / np.sqrt(sxx * syy),
            "ccc": 2 * sxy / den if den > 0 else np.nan}


def _gold(df: pd.DataFrame, seed: int) -> pd.Series:
    """Gold for most items (the first always), from the scale and off it."""
    rng = np.random.default_rng(seed)
    items = np.unique(df["item"])
    values = np.concatenate([NUMERIC_CATEGORIES, [0.5, 4.0]])
    gold = pd.Series(rng.choice(values, len(items)), index=items)
    keep = rng.random(len(items)) < 0.75
    keep[items == df["item"].iloc[0]] = True
    return gold[keep]


def _check(got: pd.Series, want: dict[str, float], suffix: str = "") -> None:
    for k in STATS:
        assert_close_or_both_nan(float(got[k + suffix]), float(want[k]), 1e-9)


@settings(max_examples=12, deadline=None)
@given(df=annotation_frames(max_items=12, max_raters=4, max_reps=2, max_categories=5),
       level=st.sampled_from(["interval", "ratio"]))
def test_pool_item_means_and_raters_equal_the_naive_formulas(df, level):
    gold = _gold(df, int(df["item"].sum()))
    blank = np.random.default_rng(len(df)).random(len(df)) < 0.1  # missing values too
    blank[0] = False
    df = df.assign(value=df["value"].mask(blank))
    out, caught = quietly(xrr.validity, df, gold=gold, level=level)
    assert out.classes is None and out.attrs["tables"] == ("summary", "raters")
    rows = df[df["item"].isin(gold.index) & df["value"].notna()]
    rows = rows.assign(gold=gold.loc[rows["item"]].to_numpy())
    for pool, sub in rows.groupby("pool"):
        got = out.summary.loc[pool]
        _check(got, naive(sub["value"], sub["gold"]))
        means = sub.groupby("item").agg(x=("value", "mean"), y=("gold", "first"))
        _check(got, naive(means["x"], means["y"]), "_mean")
        assert got["n_annotations"] == len(sub) and got["n_items"] == sub["item"].nunique()
        for rater, one in sub.groupby("rater"):
            _check(out.raters.loc[(pool, rater)], naive(one["value"], one["gold"]))
    assert len(out.raters) == len(rows.groupby(["pool", "rater"]))
    nan = out.raters[["pearson", "ccc"]].isna().any().any() or out.summary[
        ["pearson", "ccc", "pearson_mean", "ccc_mean"]].isna().any().any()
    assert nan == any(issubclass(w.category, UndefinedWarning)
                      and "validity is undefined" in str(w.message) for w in caught)


def _anger() -> pd.DataFrame:
    return pd.read_csv(ANGER)


def test_snow2008_anger_equals_scipy_and_sklearn_per_rater_and_pool():
    df = _anger()
    out = xrr.validity(df, gold="gold", level="interval", item="item", rater="worker")
    got = out.summary.iloc[0]
    assert got["mae"] == pytest.approx(mean_absolute_error(df["gold"], df["response"]),
                                       rel=1e-13)
    assert got["rmse"] == pytest.approx(
        np.sqrt(mean_squared_error(df["gold"], df["response"])), rel=1e-13)
    assert got["pearson"] == pytest.approx(pearsonr(df["response"], df["gold"])[0], rel=1e-12)
    means = df.groupby("item").agg(x=("response", "mean"), y=("gold", "first"))
    assert got["pearson_mean"] == pytest.approx(pearsonr(means["x"], means["y"])[0],
                                                rel=1e-12)
    assert got["mae_mean"] == pytest.approx(mean_absolute_error(means["y"], means["x"]))
    for worker, one in df.groupby("worker"):
        row = out.raters.loc[worker]
        assert row["mae"] == pytest.approx(mean_absolute_error(one["gold"], one["response"]),
                                           rel=1e-12)
        assert row["pearson"] == pytest.approx(pearsonr(one["response"], one["gold"])[0],
                                               rel=1e-10)
    # the crowd's mean is closer to the expert than one worker is (Snow et al.'s point)
    assert got["pearson_mean"] > got["pearson"] and got["mae_mean"] < got["mae"]


def test_published_ccc_example_and_perfect_agreement():
    """The metric card's examples: 2/3 (float32 0.666666641831399) and -1."""
    for pred, ref, want in (([0.1, 0.2], [0.1, 0.3], 0.666666641831399),
                            ([0.2, 0.1], [0.1, 0.2], -1.0)):
        df = pd.DataFrame({"item": [1, 2], "rater": ["m", "m"], "value": pred})
        out = xrr.validity(df, gold=pd.Series(ref, index=[1, 2]), level="interval")
        assert out.raters["ccc"].iloc[0] == pytest.approx(want, abs=1e-7)
        assert out.summary["ccc"].iloc[0] == pytest.approx(want, abs=1e-7)
    df = pd.DataFrame({"item": [1, 2, 3], "rater": "m", "value": [3.0, 5.0, 9.0]})
    out = xrr.validity(df, gold=pd.Series([3.0, 5.0, 9.0], index=[1, 2, 3]), level="interval")
    assert out.summary[["mae", "rmse", "pearson", "ccc"]].iloc[0].tolist() == [0, 0, 1, 1]


def test_ccc_is_kappa_x_at_the_interval_level_when_items_have_equal_annotations():
    """kappa_x (interval) of the pool against one gold per item is 1 - D_o / D_e with
    D_e over all cross pairs: Lin's CCC over annotations when every item has the same
    number of annotations (here ten per item)."""
    out = xrr.validity(_anger(), gold="gold", level="interval", item="item", rater="worker")
    assert out.summary["ccc"].iloc[0] == pytest.approx(out.summary["kappa_x"].iloc[0],
                                                       rel=1e-10)


def test_one_item_rater_and_constant_gold_are_nan_with_a_reason():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": ["a", "b", "a", "b", "c"],
                       "value": [1.0, 2.0, 3.0, 5.0, 4.0]})
    gold = pd.Series([2.0, 4.0, 4.0], index=[1, 2, 3])
    with pytest.warns(UndefinedWarning, match="one annotation") as caught:
        out = xrr.validity(df, gold=gold, level="interval")
    assert np.isnan(out.raters.loc["c", "pearson"]) and np.isnan(out.raters.loc["c", "ccc"])
    assert out.raters.loc["c", "mae"] == 0.0
    assert "1 rater row(s)" in str(caught[0].message)
    flat = pd.Series([4.0, 4.0, 4.0], index=[1, 2, 3])
    with pytest.warns(UndefinedWarning, match=r"gold values \(\d+\) are one value"):
        out = xrr.validity(df, gold=flat, level="interval")
    assert out.summary["pearson"].isna().all()
    assert out.summary["ccc"].iloc[0] == 0.0  # Lin's formula: s_xy = 0 over a positive sum


def _naive_boot(df: pd.DataFrame, gold: pd.Series, seed: int, n_boot: int) -> np.ndarray:
    """The pool's MAE under each replicate: item i weighted by its keyed Poisson draw."""
    items = pd.Index(sorted(set(df["item"]) & set(gold.index)))
    draws = Draws.plan(len(items), n_boot, seed)
    w = pd.DataFrame(draws.weights(item_keys(items)), index=items)
    err = (df["value"] - gold.loc[df["item"]].to_numpy()).abs()
    wa = w.loc[df["item"]].to_numpy()
    return (wa * err.to_numpy()[:, None]).sum(axis=0) / wa.sum(axis=0)


def test_percentile_interval_is_the_naive_bootstrap_and_contains_the_estimate():
    df = _anger().rename(columns={"worker": "rater", "response": "value"})
    gold = df.groupby("item")["gold"].first()
    data = df.drop(columns="gold")
    out = xrr.validity(data, gold=gold, level="interval", ci=0.9, n_boot=200, seed=5,
                       interval="percentile")
    boot = _naive_boot(data, gold, 5, 200)
    row = out.summary.iloc[0]
    assert row["mae_lower"] == pytest.approx(np.quantile(boot, 0.05), rel=1e-12)
    assert row["mae_upper"] == pytest.approx(np.quantile(boot, 0.95), rel=1e-12)
    assert out.attrs["seed"] == 5 and out.attrs["interval"] == "percentile"
    bca = xrr.validity(data, gold=gold, level="interval", ci=0.9, n_boot=200, seed=5)
    for table in (bca.summary, bca.raters):
        for k in STATS:
            inside = (table[f"{k}_lower"] <= table[k]) & (table[k] <= table[f"{k}_upper"])
            assert inside[table[f"{k}_lower"].notna()].all()
    cols = list(bca.summary.columns)
    assert cols[:4] == ["kappa_x", "mae", "mae_lower", "mae_upper"]


def test_intervals_shrink_with_more_items():
    df = _anger().rename(columns={"worker": "rater", "response": "value"})
    first = df[df["item"].isin(np.unique(df["item"])[:25])]

    def width(d: pd.DataFrame) -> pd.Series:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = xrr.validity(d, gold="gold", level="interval", ci=0.9, n_boot=300,
                             seed=3).summary.iloc[0]
        return pd.Series({k: s[f"{k}_upper"] - s[f"{k}_lower"] for k in STATS})

    assert (width(df) < width(first)).all()


def test_categorical_levels_keep_accuracy_and_refuse_ci():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                       "label": ["x", "y", "y", "y"]})
    out = xrr.validity(df, gold=pd.Series({1: "x", 2: "y"}), level="nominal")
    assert out.raters is None and "accuracy" in out.summary.columns
    assert "raters: none" in repr(out)
    with pytest.raises(InputError, match="level='interval'"):
        xrr.validity(df, gold=pd.Series({1: "x", 2: "y"}), level="nominal", ci=0.9)
    num = xrr.validity(_anger(), gold="gold", level="interval", item="item", rater="worker")
    assert "accuracy" not in num.summary.columns and "classes: none" in repr(num)
    assert "raters 38 rows" in repr(num)


def test_figure_draws_each_raters_mae_and_the_pool():
    out = xrr.validity(_anger(), gold="gold", level="interval", item="item", rater="worker")
    ax = out.plot(top=10)
    widths = [p.get_width() for p in ax.patches]
    want = out.raters["mae"].sort_values(ascending=False).head(10)
    assert widths == pytest.approx(want.tolist())
    lines = sorted(line.get_xdata()[0] for line in ax.get_lines())
    assert lines == pytest.approx(sorted(out.summary[["mae", "mae_mean"]].iloc[0]))
    assert "10 largest of 38" in ax.get_xlabel()
    plt.close("all")


def test_dask_equals_memory_and_refuses_ci():
    dd = pytest.importorskip("dask.dataframe")
    df = _anger().rename(columns={"worker": "rater", "response": "value"})
    ddf = dd.from_pandas(df.sample(frac=1, random_state=1), npartitions=2, sort=False)
    got = xrr.validity(ddf, gold="gold", level="interval").compute()
    want = xrr.validity(ddf.compute(), gold="gold", level="interval")
    pd.testing.assert_frame_equal(got.summary, want.summary, rtol=1e-12,
                                  check_index_type=False)
    pd.testing.assert_frame_equal(got.raters, want.raters, rtol=1e-12,
                                  check_index_type=False)
    with pytest.raises(InputError, match="compute"):
        xrr.validity(ddf, gold="gold", level="interval", ci=0.9)


def test_xarray_input_gives_datasets_with_the_frames_values():
    df = _anger().rename(columns={"worker": "rater", "response": "value"})
    gold = df.groupby("item")["gold"].first()
    ds = df.drop(columns="gold").set_index(["item", "rater"]).to_xarray()
    got = xrr.validity(ds, gold=gold, level="interval")
    want = xrr.validity(df.drop(columns="gold"), gold=gold, level="interval")
    table = got.raters.to_dataframe().dropna(how="all").xs("value", level="label")
    np.testing.assert_allclose(table.loc[want.raters.index, "ccc"], want.raters["ccc"],
                               rtol=1e-12)
    assert "raters (label: 1, rater: 38)" in repr(got)
