"""Ordinal alpha on mid-ranks (the ``"ranks"`` form: no K x K matrix) against
Krippendorff's pairwise definition written out, the matrix form, krippendorff, the
bootstrap and dask; at any number of categories."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.engine import additive, draws, pipeline
from xrr_accessor.kernels import midranks


def naive_alpha(values: np.ndarray) -> float:
    """Krippendorff's ordinal alpha from its pairwise definition: ``values`` (raters,
    items), NaN missing. Pairable values: those of items with two or more; D(c, k) =
    (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 over their counts n; D_o sums D over the
    ordered pairs of distinct annotations of each item, divided by m_i - 1; D_e sums
    D over all ordered pairs of distinct pairable values; alpha = 1 - (n - 1) D_o / D_e."""
    units = [col[~np.isnan(col)] for col in values.T]
    units = [u for u in units if len(u) >= 2]
    pooled = np.concatenate(units) if units else np.zeros(0)
    cats = np.unique(pooled)
    n = np.array([(pooled == c).sum() for c in cats], dtype=float) if len(cats) < 50 else \
        np.bincount(np.searchsorted(cats, pooled)).astype(float)
    cum = np.concatenate([[0.0], np.cumsum(n)])  # cum[c] = n_0 + ... + n_{c-1}

    def d(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # D of value pairs a[i], b[i]
        ia, ib = np.searchsorted(cats, a), np.searchsorted(cats, b)
        lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
        return (cum[hi + 1] - cum[lo] - (n[lo] + n[hi]) / 2.0) ** 2

    observed = sum(sum(float(d(u[i:i + 1], u[j:j + 1])[0]) for i in range(len(u))
                       for j in range(len(u)) if i != j) / (len(u) - 1) for u in units)
    expected = sum(float(d(np.full(len(pooled), a), pooled).sum()) for a in pooled)
    return 1.0 - (len(pooled) - 1) * observed / expected


def long(values: np.ndarray, pool: np.ndarray | None = None) -> pd.DataFrame:
    raters, items = np.nonzero(~np.isnan(values))
    out = pd.DataFrame({"item": items, "rater": raters, "value": values[raters, items]})
    if pool is not None:
        out["pool"] = pool[items]
    return out


def matrix_form(fn):  # the K x K form, as before the ranks form
    orig = pipeline.ranked
    pipeline.ranked = lambda form, *args, **kwargs: form
    try:
        return fn()
    finally:
        pipeline.ranked = orig


@pytest.fixture
def every_k(monkeypatch):
    """The ranks form at any number of categories (it starts above 128)."""
    monkeypatch.setattr(additive, "RANK_MIN_CATEGORIES", 0)


def random_values(rng: np.random.Generator, raters: int, items: int, k: int,
                  missing: float) -> np.ndarray:
    scale = rng.choice(np.arange(10 * k) * 0.5 - 3.0, size=k, replace=False)
    latent = rng.integers(0, k, items)
    spread = max(1, k // 4)
    codes = np.clip(latent + rng.integers(-spread, spread + 1, (raters, items)), 0, k - 1)
    values = np.sort(scale)[codes].astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def test_a_worked_example_and_the_form_chosen(every_k):
    values = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan],
                       [1, 2, 3, 3, 2, 2, 4, 1, 2, 5],
                       [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5]], dtype=float)
    run = pipeline.run(long(values), [xa.coefficients.lookup("alpha")], level="ordinal")
    assert run.ctx.meta.form == "ranks" and "pair_o" not in run.stats.arrays
    assert math.isclose(float(xa.irr(long(values), level="ordinal")), naive_alpha(values),
                        rel_tol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), raters=st.integers(2, 6), items=st.integers(2, 40),
       k=st.integers(2, 30), missing=st.sampled_from([0.0, 0.2, 0.5]))
def test_equals_the_pairwise_definition_and_the_matrix_form(seed, raters, items, k,
                                                            missing):
    rng = np.random.default_rng(seed)
    values = random_values(rng, raters, items, k, missing)
    df = long(values)
    pairable = (~np.isnan(values)).sum(axis=0) >= 2
    if len(df) == 0 or len(np.unique(values[:, pairable][~np.isnan(values[:, pairable])])) < 2:
        return  # nothing to pair, or no expected disagreement: NaN either way
    orig = additive.RANK_MIN_CATEGORIES
    additive.RANK_MIN_CATEGORIES = 0
    try:
        ranks = float(xa.irr(df, level="ordinal"))
    finally:
        additive.RANK_MIN_CATEGORIES = orig
    old = float(matrix_form(lambda: xa.irr(df, level="ordinal")))
    want = naive_alpha(values)
    assert math.isclose(ranks, want, rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(ranks, old, rel_tol=1e-12, abs_tol=1e-12)


def test_thousands_of_categories_on_small_data():
    rng = np.random.default_rng(5)
    values = rng.permutation(np.arange(5_000.0)).reshape(4, 1_250)  # 5,000 categories
    values[:, :600] = np.sort(values[:, :600], axis=0)  # some agreement in order
    values[0, 1_200:] = np.nan
    df = long(values)
    got = float(xa.irr(df, level="ordinal"))  # past the old 4,096-category refusal
    assert math.isclose(got, naive_alpha(values), rel_tol=1e-12)


def test_krippendorff_package(every_k):
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(11)
    values = random_values(rng, 5, 60, 12, 0.3)
    want = krippendorff.alpha(reliability_data=values, level_of_measurement="ordinal")
    assert math.isclose(float(xa.irr(long(values), level="ordinal")), want, rel_tol=1e-12)


def test_replications_and_labels_match_the_matrix_form(every_k):
    rng = np.random.default_rng(2)
    values = random_values(rng, 4, 90, 20, 0.3)
    df = long(values, pool=np.array(["a", "b", "c"])[np.arange(90) % 3])
    df["other"] = df["value"].rank(method="dense") % 7
    new = xa.irr(df, level="ordinal", value=["value", "other"])
    old = matrix_form(lambda: xa.irr(df, level="ordinal", value=["value", "other"]))
    np.testing.assert_allclose(new.to_numpy(float), old.to_numpy(float), rtol=1e-12)
    for pool in "abc":  # each replication is the naive alpha of its own items
        one = values[:, np.arange(90) % 3 == "abc".index(pool)]
        assert math.isclose(float(new.loc["value", pool]), naive_alpha(one), rel_tol=1e-12)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_bootstrap_equals_the_matrix_form_in_chunks(every_k, monkeypatch, interval):
    """Each replicate (and each jackknife leave-out) on its own mid-ranks, also when
    the items are read in several chunks (the mid-ranks found over all of them)."""
    rng = np.random.default_rng(3)
    df = long(random_values(rng, 4, 120, 25, 0.25))
    monkeypatch.setattr(draws, "CHUNK_ITEMS", 31)
    kw = {"level": "ordinal", "ci": 0.9, "method": "bootstrap", "n_boot": 60, "seed": 4,
          "interval": interval,
          "progress": False}
    new = xa.irr(df, **kw)
    old = matrix_form(lambda: xa.irr(df, **kw))
    np.testing.assert_allclose(new.to_numpy(float), old.to_numpy(float), rtol=1e-10)


def test_kernel_columns_take_their_own_mid_ranks():
    offsets = np.array([0, 3, 5, 6])
    codes = np.array([[0, 2, 2, 1, 2, 0]])
    w = np.array([[1.0, 2.0], [1.0, 0.0], [1.0, 3.0]])  # two weight columns
    empty = offsets[:0]
    m_hist, pairable = np.zeros((1, 1, 3, 2)), np.zeros((1, 1, 3, 3, 2))
    midranks.rank_marginals(offsets, empty, empty, codes, w, m_hist, pairable)
    t = pairable[:, :, 2:].sum(axis=2)
    mid = np.ascontiguousarray(midranks.mid_ranks(t))
    rank_o = np.zeros((1, 1, 3, 2))
    midranks.rank_observed(offsets, empty, empty, codes, w, mid, 2, rank_o)
    for b in range(2):  # column b alone, written out
        n = t[0, 0, :, b]
        m = np.cumsum(n) - n / 2
        items = [[0, 2, 2], [1, 2]]
        want = sum(w[i, b] * sum((m[x] - m[y]) ** 2 for x in it for y in it) / (len(it) - 1)
                   for i, it in enumerate(items))
        assert math.isclose(rank_o[0, 0, 2, b], want, rel_tol=1e-14)
        tt = n[:, None] * n[None, :] * (m[:, None] - m[None, :]) ** 2
        assert math.isclose(midranks.expected_ranks(n[None])[0], tt.sum(), rel_tol=1e-14)


@pytest.mark.parametrize("k", [150, 5_000])
def test_dask_equals_memory_under_random_partitions(k):
    """A marginals stage first (the mid-ranks of every partition's values), then each
    partition's sums under them: the in-memory value under any partitioning, also past
    the old 4,096-category refusal."""
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(9)
    items = 200 if k < 1_000 else 2_200
    values = random_values(rng, 3, items, k, 0.2)
    if k > 1_000:  # every value its own category
        known = ~np.isnan(values)
        values[known] = rng.permutation(np.arange(k * 2.0))[:int(known.sum())]
    df = long(values, pool=np.arange(items) % 2)
    assert k < 1_000 or df["value"].nunique() > 4_096
    want = xa.irr(df, level="ordinal")
    for n in (1, 3, 7):
        shuffled = df.sample(frac=1.0, random_state=n).reset_index(drop=True)  # items split
        got = xa.irr(dd.from_pandas(shuffled, npartitions=n), level="ordinal").compute()
        np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-12)
    by_item = dd.from_pandas(df.set_index("item"), npartitions=4)  # items whole
    lazy = by_item.xrr.irr(level="ordinal")
    np.testing.assert_allclose(lazy.compute().to_numpy(float), want.to_numpy(float),
                               rtol=1e-12)


def test_dask_bootstrap_keeps_the_matrix_form_or_says_the_way_out():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(10)
    df = long(random_values(rng, 3, 300, 200, 0.2))
    # past RANK_MIN_CATEGORIES (the ranks form in memory), so the dask bootstrap really
    # falls back to the matrix form; under 4,096, where it still can
    assert 128 < df["value"].nunique() <= 4_096
    kw = {"level": "ordinal", "ci": 0.9, "method": "bootstrap", "n_boot": 30, "seed": 2,
          "progress": False}
    lazy = xa.irr(dd.from_pandas(df, npartitions=3), **kw).compute()
    np.testing.assert_allclose(lazy.to_numpy(float), xa.irr(df, **kw).to_numpy(float),
                               rtol=1e-10)
    wide = long(rng.permutation(np.arange(6_000.0)).reshape(3, 2_000))  # 6,000 categories
    with pytest.raises(xa.errors.InputError, match="load the data"):
        xa.irr(dd.from_pandas(wide, npartitions=2), **kw).compute()
