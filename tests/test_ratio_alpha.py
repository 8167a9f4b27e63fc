"""Ratio alpha without a K x K matrix (the ``"ratio"`` form) and the analytic interval
of ordinal and ratio alpha from per-item sums, against Krippendorff's pairwise
definition written out, the matrix form, krippendorff, the bootstrap and dask."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.coefficients import variance
from xrr_accessor.engine import additive, pipeline
from xrr_accessor.errors import InputError
from xrr_accessor.kernels import alpha_items, ratio


def ratio_d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    s = a + b
    return np.where(s > 0, ((a - b) / np.where(s > 0, s, 1.0)) ** 2, 0.0)


def naive_alpha(values: np.ndarray) -> float:
    """Krippendorff's ratio alpha from its pairwise definition: ``values`` (raters,
    items), NaN missing. D_o sums D over the ordered pairs of distinct annotations of
    each item with two or more, divided by m_i - 1; D_e over all ordered pairs of
    distinct pairable values; alpha = 1 - (n - 1) D_o / D_e."""
    units = [col[~np.isnan(col)] for col in values.T]
    units = [u for u in units if len(u) >= 2]
    pooled = np.concatenate(units) if units else np.zeros(0)
    observed = sum(float(ratio_d(u[:, None], u[None, :]).sum()) / (len(u) - 1) for u in units)
    expected = float(ratio_d(pooled[:, None], pooled[None, :]).sum())
    return 1.0 - (len(pooled) - 1) * observed / expected


def long(values: np.ndarray, pool: np.ndarray | None = None) -> pd.DataFrame:
    raters, items = np.nonzero(~np.isnan(values))
    out = pd.DataFrame({"item": items, "rater": raters, "value": values[raters, items]})
    if pool is not None:
        out["pool"] = pool[items]
    return out


def random_values(rng: np.random.Generator, raters: int, items: int, k: int,
                  missing: float, zero: bool = False) -> np.ndarray:
    scale = np.sort(rng.choice(np.arange(1, 10 * k + 1) * 0.25, size=k, replace=False))
    if zero:
        scale[0] = 0.0
    latent = rng.integers(0, k, items)
    spread = max(1, k // 4)
    codes = np.clip(latent + rng.integers(-spread, spread + 1, (raters, items)), 0, k - 1)
    values = scale[codes].astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def form(threshold: int):
    """Run ``fn`` with the ratio form from ``threshold`` categories (0: always; a
    large number: the matrix form, as before)."""
    def run(fn):
        orig = additive.RATIO_MIN_CATEGORIES
        additive.RATIO_MIN_CATEGORIES = threshold
        try:
            return fn()
        finally:
            additive.RATIO_MIN_CATEGORIES = orig
    return run


ratio_form, matrix_form = form(0), form(10**9)


def test_the_form_chosen_and_a_published_value():
    # Krippendorff (2011): 4 observers x 12 units with missing values, ratio alpha 0.797
    data = np.array([
        [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
        [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])
    entry = [xa.coefficients.lookup("alpha")]
    run = ratio_form(lambda: pipeline.run(long(data), entry, level="ratio"))
    assert run.ctx.meta.form == "ratio" and "pair_o" not in run.stats.arrays
    assert pipeline.run(long(data), entry, level="ratio").ctx.meta.form == "matrix"  # K = 5
    got = float(ratio_form(lambda: xa.irr(long(data), level="ratio")))
    assert round(got, 3) == 0.797
    assert math.isclose(got, naive_alpha(data), rel_tol=1e-12)
    kx = pipeline.run(long(data).assign(pool=0), [xa.coefficients.lookup("kappa_x", kind=None)],
                      level="ratio", other=long(data).assign(pool=1))
    assert kx.ctx.meta.form == "matrix"  # other statistics than alpha's keep the matrix


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), raters=st.integers(2, 6), items=st.integers(2, 40),
       k=st.integers(2, 30), missing=st.sampled_from([0.0, 0.2, 0.5]), zero=st.booleans())
def test_equals_the_pairwise_definition_and_the_matrix_form(seed, raters, items, k,
                                                            missing, zero):
    rng = np.random.default_rng(seed)
    values = random_values(rng, raters, items, k, missing, zero)
    df = long(values)
    pairable = (~np.isnan(values)).sum(axis=0) >= 2
    if len(df) == 0 or len(np.unique(values[:, pairable][~np.isnan(values[:, pairable])])) < 2:
        return  # nothing to pair, or no expected disagreement: NaN either way
    new = float(ratio_form(lambda: xa.irr(df, level="ratio")))
    old = float(matrix_form(lambda: xa.irr(df, level="ratio")))
    assert math.isclose(new, naive_alpha(values), rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(new, old, rel_tol=1e-12, abs_tol=1e-12)


def test_krippendorff_package():
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(11)
    values = random_values(rng, 5, 60, 40, 0.3, zero=True)
    want = krippendorff.alpha(reliability_data=values, level_of_measurement="ratio")
    got = float(ratio_form(lambda: xa.irr(long(values), level="ratio")))
    assert math.isclose(got, want, rel_tol=1e-12)


def test_replications_and_labels_match_the_matrix_form():
    rng = np.random.default_rng(2)
    values = random_values(rng, 4, 90, 20, 0.3)
    df = long(values, pool=np.array(["a", "b", "c"])[np.arange(90) % 3])
    df["other"] = df["value"].rank(method="dense") % 7  # fewer categories, a 0 among them
    new = ratio_form(lambda: xa.irr(df, level="ratio", value=["value", "other"]))
    old = matrix_form(lambda: xa.irr(df, level="ratio", value=["value", "other"]))
    np.testing.assert_allclose(new.to_numpy(float), old.to_numpy(float), rtol=1e-12)
    for pool in "abc":
        one = values[:, np.arange(90) % 3 == "abc".index(pool)]
        assert math.isclose(float(new.loc["value", pool]), naive_alpha(one), rel_tol=1e-12)


def test_thousands_of_categories_and_negative_values():
    rng = np.random.default_rng(5)
    values = (rng.permutation(np.arange(5_000.0)) + 1.0).reshape(4, 1_250)  # 5,000 values
    values[:, :600] = np.sort(values[:, :600], axis=0)
    values[0, 1_200:] = np.nan
    got = float(xa.irr(long(values), level="ratio"))  # past the old 4,096-category refusal
    assert math.isclose(got, naive_alpha(values), rel_tol=1e-12)
    ci = xa.irr(long(values), level="ratio", ci=0.95)  # the analytic interval too
    assert np.isfinite(ci["se"]) and ci["lower"] < got < ci["upper"]
    with pytest.raises(InputError, match="negative values"):
        xa.irr(long(values - 10.0), level="ratio")


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_bootstrap_equals_the_matrix_form(interval):
    rng = np.random.default_rng(3)
    df = long(random_values(rng, 4, 120, 25, 0.25))
    kw = {"level": "ratio", "ci": 0.9, "method": "bootstrap", "n_boot": 60, "seed": 4,
          "interval": interval, "progress": False}
    new = ratio_form(lambda: xa.irr(df, **kw))
    old = matrix_form(lambda: xa.irr(df, **kw))
    np.testing.assert_allclose(new.to_numpy(float), old.to_numpy(float), rtol=1e-10)


def test_kernels_written_out():
    rng = np.random.default_rng(8)
    x = np.concatenate([[0.0], rng.random(40) * 9])
    t = rng.integers(0, 4, (41, 3)).astype(float)
    t[5] = 0.0
    d = ratio_d(x[:, None], x[None, :])
    np.testing.assert_allclose(ratio.ratio_expected(x, t), np.einsum("cb,ck,kb->b", t, d, t),
                               rtol=1e-13)
    np.testing.assert_allclose(ratio.ratio_expected(x, np.ascontiguousarray(t[:, :1])),
                               [t[:, 0] @ d @ t[:, 0]], rtol=1e-13)
    np.testing.assert_allclose(alpha_items.ratio_products(x, t), d @ t, rtol=1e-13)


def analytic_pair(df: pd.DataFrame, level: str) -> tuple[np.ndarray, np.ndarray]:
    """The analytic interval from per-item sums and from the n x K tables (as before)."""
    new = xa.irr(df, level=level, ci=0.95)
    orig = variance.SPARSE_ALPHA_LEVELS
    variance.SPARSE_ALPHA_LEVELS = frozenset()
    try:
        old = xa.irr(df, level=level, ci=0.95)
    finally:
        variance.SPARSE_ALPHA_LEVELS = orig
    return new.to_numpy(float), old.to_numpy(float)


@pytest.mark.filterwarnings("ignore::xrr_accessor.errors.UndefinedWarning")
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), raters=st.integers(2, 6), items=st.integers(3, 60),
       k=st.integers(2, 40), missing=st.sampled_from([0.0, 0.3]),
       level=st.sampled_from(["ordinal", "ratio"]), pools=st.integers(1, 3))
@example(seed=255, raters=2, items=7, k=7, missing=0.0, level="ratio", pools=3)
def test_analytic_interval_equals_the_count_tables(seed, raters, items, k, missing, level,
                                                   pools):
    rng = np.random.default_rng(seed)
    values = random_values(rng, raters, items, k, missing, zero=bool(seed % 2))
    df = long(values, pool=rng.integers(0, pools, items))
    if df.empty or df.groupby(["pool", "item"]).size().max() < 2:
        return
    new, old = analytic_pair(df, level)
    # two summation orders: the pinned example's lower limit (-5.647, a variance with
    # cancellation on 7 items) differs by 3.4e-12 relative, so 1e-10 as the bootstrap's
    np.testing.assert_allclose(new, old, rtol=1e-10, atol=1e-13)


def test_analytic_interval_at_ten_thousand_categories():
    rng = np.random.default_rng(6)
    k = 10_000
    latent = rng.integers(0, k, 20_000)
    codes = np.clip(latent + rng.integers(-30, 31, (3, 20_000)), 0, k - 1)
    values = (np.sort(rng.permutation(3 * k)[:k]) + 1.0)[codes].astype(float)
    for level in ("ordinal", "ratio"):  # n x K tables of 2e8 cells, a 10,000^2 matrix
        out = xa.irr(long(values), level=level, ci=0.95)
        assert 0.9 < out["estimate"] < 1 and 0 < out["se"] < 0.01


def test_dask_equals_memory_under_random_partitions():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(9)
    values = random_values(rng, 3, 200, 400, 0.2)  # the ratio form (over 256 values)
    df = long(values, pool=np.arange(200) % 2)
    want = xa.irr(df, level="ratio")
    for n in (1, 2, 5):
        shuffled = df.sample(frac=1.0, random_state=n).reset_index(drop=True)  # items split
        got = xa.irr(dd.from_pandas(shuffled, npartitions=n), level="ratio").compute()
        np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-12)
        by_item = dd.from_pandas(df.set_index("item"), npartitions=n)
        np.testing.assert_allclose(xa.irr(by_item, level="ratio").compute().to_numpy(float),
                                   want.to_numpy(float), rtol=1e-12)
