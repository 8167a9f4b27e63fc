"""``irr(metric="icc", form="all")``: the six Shrout-Fleiss forms from one pass.

Against a naive two-way ANOVA written here (explicit loops, scipy's F
distribution for the limits), against pingouin's one call (which returns all
six), against the single-form calls; with missing ratings, several labels and
replications, intervals, xarray; and continuous ratings coded without
factorizing (their categories are the numbers in row order).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import xrr_accessor as xa
from xrr_accessor.engine.pipeline import annotations
from xrr_accessor.errors import InputError, UndefinedWarning
from xrr_accessor.schema.encode import NUMBERS

NAMES = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
SINGLE = ["1,1", "2,1", "3,1", "1,k", "2,k", "3,k"]
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
                          [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def naive_anova(x: np.ndarray, level: float = 0.95) -> pd.DataFrame:
    """The six forms, F, degrees of freedom, p-values and F-based limits of a complete
    n x k table, from the two-way ANOVA summed cell by cell (Shrout & Fleiss 1979;
    McGraw & Wong 1996 for ICC(2,*)'s limits)."""
    n, k = x.shape
    grand = sum(float(v) for row in x for v in row) / (n * k)
    row_mean = [sum(float(v) for v in x[i]) / k for i in range(n)]
    col_mean = [sum(float(x[i, j]) for i in range(n)) / n for j in range(k)]
    ssr = k * sum((m - grand) ** 2 for m in row_mean)
    ssc = n * sum((m - grand) ** 2 for m in col_mean)
    sst = sum((float(x[i, j]) - grand) ** 2 for i in range(n) for j in range(k))
    sse = sst - ssr - ssc
    msr, msc = ssr / (n - 1), ssc / (k - 1)
    mse, msw = sse / ((n - 1) * (k - 1)), (ssc + sse) / (n * (k - 1))
    est = [(msr - msw) / (msr + (k - 1) * msw),
           (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n),
           (msr - mse) / (msr + (k - 1) * mse),
           (msr - msw) / msr, (msr - mse) / (msr + (msc - mse) / n), (msr - mse) / msr]
    q = 1 - (1 - level) / 2
    f1, d1 = msr / msw, (n - 1, n * (k - 1))
    f3, d3 = msr / mse, (n - 1, (n - 1) * (k - 1))
    rows = []
    for name, e in zip(NAMES, est, strict=True):
        f, (a, b) = (f1, d1) if name.startswith("ICC1") else (f3, d3)
        with np.errstate(all="ignore"):  # an infinite F quantile: inf / inf, NaN
            lo, hi = _limits(name, est[1], f, a, b, q, n, k, msr, msc, mse)
        rows.append({"estimate": e, "lower": lo, "upper": hi, "F": f, "df1": a, "df2": b,
                     "p_value": stats.f.sf(f, a, b)})
    return pd.DataFrame(rows, index=pd.Index(NAMES, name="form"))


def _limits(name, i21, f, a, b, q, n, k, msr, msc, mse):
    """The F-based limits of one form (Shrout & Fleiss; McGraw & Wong for ICC(2,*))."""
    if name.startswith("ICC2"):
        va, vb = k * i21 / (n * (1 - i21)), 1 + k * i21 * (n - 1) / (n * (1 - i21))
        v = (va * msc + vb * mse) ** 2 / ((va * msc) ** 2 / (k - 1)
                                          + (vb * mse) ** 2 / ((n - 1) * (k - 1)))
        fl, fu = stats.f.ppf(q, n - 1, v), stats.f.ppf(q, v, n - 1)
        lo = n * (msr - fl * mse) / (fl * (k * msc + (k * n - k - n) * mse) + n * msr)
        hi = n * (fu * msr - mse) / (k * msc + (k * n - k - n) * mse + n * fu * msr)
        if name == "ICC2k":
            lo, hi = ((t * k / (1 + t * (k - 1)) if t > -1 / (k - 1) else -math.inf)
                      for t in (lo, hi))
    else:
        fl, fu = f / stats.f.ppf(q, a, b), f * stats.f.ppf(q, b, a)
        if name.endswith("k"):
            lo, hi = 1 - 1 / fl, 1 - 1 / fu
        else:
            lo, hi = (fl - 1) / (fl + k - 1), (fu - 1) / (fu + k - 1)
    return lo, hi


def long_frame(x: np.ndarray, column: str = "value") -> pd.DataFrame:
    n, k = x.shape
    return pd.DataFrame({"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n),
                         column: x.reshape(-1)})


@st.composite
def ratings(draw):
    """Complete items x raters tables of continuous ratings (or rounded to 0.01)."""
    n, k = draw(st.integers(3, 40)), draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    target = rng.normal(0, draw(st.floats(0.1, 3)), size=(n, 1))
    x = 50 + target + rng.normal(0, 1, size=(1, k)) + rng.normal(0, 1, size=(n, k))
    return np.round(x, 2) if draw(st.booleans()) else x


def _close(got: float, want: float) -> None:
    if math.isnan(want):  # a limit undefined (an infinite F quantile)
        assert math.isnan(got)
    elif math.isinf(want):
        assert got == want
    else:  # rel too: ICC(2,k) of near-degenerate draws reaches hundreds
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9)


@settings(max_examples=40)
@given(x=ratings())
def test_all_forms_equal_the_naive_anova_and_pingouin(x):
    long = long_frame(x)
    got = xa.irr(long, metric="icc", form="all", ci=0.95)
    want = naive_anova(x)
    assert list(got.index) == NAMES and got.index.name == "form"
    for name in NAMES:
        for col in want.columns:
            _close(got.loc[name, col], want.loc[name, col])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's own pandas notices
        ref = pg.intraclass_corr(long, targets="item", raters="rater", ratings="value")
    # pingouin's rows: ICC(1,1), ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k)
    np.testing.assert_allclose(got["estimate"], ref["ICC"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(got["F"], ref["F"], rtol=1e-9)
    np.testing.assert_allclose(got["p_value"], ref["pval"], rtol=0, atol=1e-9)
    np.testing.assert_array_equal(got["df1"], ref["df1"])
    np.testing.assert_allclose(got["df2"], ref["df2"], rtol=1e-12)
    plain = xa.irr(long, metric="icc", form="all")
    assert plain.name == "icc" and list(plain.index) == NAMES
    np.testing.assert_array_equal(plain.to_numpy(), got["estimate"].to_numpy())


def test_shrout_fleiss_1979_and_the_single_forms():
    """The published Table 4 values; each form equal to its own call, to the bit."""
    frame = pd.DataFrame(SHROUT_FLEISS).xrr(wide=True)
    got = frame.irr(metric="icc", form="ALL")
    assert got.round(2).tolist() == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    table = frame.irr(metric="icc", form="all", ci=0.9)
    for name, form in zip(NAMES, SINGLE, strict=True):
        assert got[name] == frame.irr(metric="icc", form=form)
        one = frame.irr(metric="icc", form=form, ci=0.9)
        pd.testing.assert_series_equal(table.loc[name], one[table.columns], check_names=False)
    assert got.attrs["form"] == table.attrs["form"] == "all"
    assert got.attrs["metric"] == "icc" and got.attrs["n_items"] == 6
    assert table.attrs["ci"] == 0.9 and table.attrs["method"] == "analytic"
    assert table.attrs["n_items"] == 6 and table.attrs["n_raters"] == 4


def test_labels_and_replications_missing_ratings_and_xarray():
    """One row per label (and replication), one column per form; a label with a
    missing rating is NaN in every two-way form, with one warning, and its one-way
    forms come from every annotation (as form='1,1' and '1,k' alone); the others
    computed."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(30, 3)) + rng.normal(size=(30, 1))
    long = long_frame(x, "a")
    long["b"] = long["a"] * 2.0 + rng.normal(scale=0.1, size=len(long))
    long["pool"] = np.where(long["item"] < 15, "p", "q")
    long.loc[4, "b"] = np.nan  # item 1 (pool p) lacks a rating of b
    with pytest.warns(UndefinedWarning, match=r"label 'b'.*lack a rating") as caught:
        got = xa.irr(long, metric="icc", form="all")
    assert sum("lack a rating" in str(w.message) for w in caught) == 1
    assert list(got.columns) == NAMES and got.index.names == ["label", "replication"]
    two_way = ["ICC2", "ICC3", "ICC2k", "ICC3k"]
    assert got.loc[("b", "p"), two_way].isna().all() and got.loc[("b", "q")].notna().all()
    for name, form in (("ICC1", "1,1"), ("ICC1k", "1,k")):  # unbalanced: 44 annotations
        alone = xa.irr(long, metric="icc", form=form)
        assert np.isfinite(alone.loc["b", "p"]) and got.loc[("b", "p"), name] == alone.loc["b", "p"]
    for (label, pool), row in got.iterrows():
        if label == "b" and pool == "p":
            continue
        part = long[long["pool"] == pool]
        want = naive_anova(part[label].to_numpy().reshape(15, 3))["estimate"]
        np.testing.assert_allclose(row.to_numpy(), want.to_numpy(), rtol=1e-9, atol=1e-12)
    with pytest.warns(UndefinedWarning):
        table = xa.irr(long, metric="icc", form="all", ci=0.95)
    assert table.index.names == ["label", "replication", "form"]
    assert list(table.index.get_level_values("form")[:6]) == NAMES
    np.testing.assert_array_equal(table["estimate"].to_numpy(), got.to_numpy().reshape(-1))
    assert (table.loc[("a", "q"), "n_items"] == 15).all()
    with pytest.warns(UndefinedWarning):
        da = xa.irr(long.xrr.to_xarray(), metric="icc", form="all")
    assert da.dims == ("label", "replication", "form")
    assert list(da["form"].values) == NAMES and da.attrs["form"] == "all"
    np.testing.assert_array_equal(da.sel(label="a").values, got.loc["a"].to_numpy())
    assert int(da["n_incomplete"].sel(label="b", replication="p")) == 1


def test_one_label_per_column_and_the_bootstrap():
    """Two labels without replications: a label x form frame; method='bootstrap' draws
    the six forms' intervals from the same replicates."""
    rng = np.random.default_rng(5)
    long = long_frame(rng.normal(size=(60, 3)) + rng.normal(size=(60, 1)), "a")
    long["b"] = long["a"] + rng.normal(size=len(long))
    got = xa.irr(long, metric="icc", form="all")
    assert list(got.index) == ["a", "b"] and got.columns.name == "form"
    boot = xa.irr(long, metric="icc", form="all", ci=0.9, method="bootstrap", n_boot=50,
                  seed=1, progress=False)
    assert boot.attrs["method"] == "bootstrap" and boot.attrs["n_boot"] == 50
    np.testing.assert_array_equal(boot["estimate"].to_numpy(), got.to_numpy().reshape(-1))
    assert (boot["lower"] <= boot["estimate"]).all()


def test_form_errors_and_messages():
    frame = pd.DataFrame(SHROUT_FLEISS).xrr(wide=True)
    with pytest.raises(InputError, match=r"unknown ICC form 'al'.*or 'all' for the six"):
        frame.irr(metric="icc", form="al")
    with pytest.raises(InputError, match="goes with metric='icc'"):
        frame.irr(metric="alpha", form="all")


def test_continuous_ratings_are_not_factorized():
    """The ICC reads continuous ratings as numbers: categories in row order, repeats
    kept, no sort; the same ICC as the factorized codes. Whole numbers and other
    metrics keep their sorted categories."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(50, 4)).round(1)  # repeats among the values
    long = long_frame(x)
    long.loc[3, "value"] = np.nan
    ann, _ = annotations(long, level="interval", numbers=True)
    factorized, _ = annotations(long, level="interval")
    assert ann.categories[0].name == NUMBERS and len(ann.categories[0]) == x.size - 1
    assert factorized.categories[0].is_monotonic_increasing
    assert factorized.categories[0].is_unique and len(factorized.categories[0]) < x.size - 1
    values = long["value"].to_numpy()
    kept = ann.codes[0] >= 0
    np.testing.assert_array_equal(ann.categories[0].to_numpy()[ann.codes[0][kept]],
                                  values[kept])
    np.testing.assert_array_equal(factorized.categories[0].to_numpy()[factorized.codes[0][kept]],
                                  values[kept])
    assert (ann.codes[0] == -1).sum() == 1
    whole, _ = annotations(long_frame(np.arange(12.0).reshape(4, 3) % 5), level="interval",
                           numbers=True)
    assert whole.categories[0].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    complete = long.dropna()
    complete = complete[complete["item"] != 0]
    by_numbers = xa.irr(complete, metric="icc", form="all")
    assert np.isfinite(by_numbers).all()
    np.testing.assert_allclose(by_numbers.to_numpy(),
                               naive_anova(x[1:])["estimate"].to_numpy(), rtol=1e-12)
