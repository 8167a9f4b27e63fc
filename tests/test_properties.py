"""Properties: symmetry, invariances, and the Section 3.5 replication property."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.datasets import simulate

from helpers import annotation_frames, quietly

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def _same(a, b):
    np.testing.assert_allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-10,
                               atol=1e-12, equal_nan=True)


@given(df=annotation_frames(min_reps=2), level=st.sampled_from(LEVELS))
def test_kappa_x_is_symmetric(df, level):
    """kappa_x(X, Y) == kappa_x(Y, X)."""
    x = df[df.pool == "P0"].drop(columns="pool")
    y = df[df.pool == "P1"].drop(columns="pool")
    xy, _ = quietly(xa.cross_kappa, x, y, level=level)
    yx, _ = quietly(xa.cross_kappa, y, x, level=level)
    _same(xy, yx)


@given(df=annotation_frames(min_reps=2), level=st.sampled_from(LEVELS),
       seed=st.integers(0, 2**32 - 1))
def test_invariant_to_row_and_item_order(df, level, seed):
    shuffled = df.sample(frac=1.0, random_state=np.random.RandomState(seed % 2**31))
    for fn in (xa.irr, xa.cross_kappa):
        a, _ = quietly(fn, df, level=level, replication="pool")
        b, _ = quietly(fn, shuffled, level=level, replication="pool")
        _same(a, b)
    a, _ = quietly(xa.irr, df, metric="iota", level=level, replication="pool")
    b, _ = quietly(xa.irr, shuffled, metric="iota", level=level, replication="pool")
    _same(a, b)


@given(df=annotation_frames(min_reps=2), seed=st.integers(0, 2**32 - 1))
def test_nominal_invariant_to_relabeling_categories(df, seed):
    rng = np.random.default_rng(seed)
    codes = np.unique(df["value"])
    new = dict(zip(codes, rng.permutation(len(codes)) * 10 + 3, strict=True))
    relabeled = df.assign(value=df["value"].map(new).map("c{}".format))
    for fn in (xa.irr, xa.cross_kappa):
        a, _ = quietly(fn, df, replication="pool", level="nominal")
        b, _ = quietly(fn, relabeled, replication="pool", level="nominal")
        _same(a, b)


@given(df=annotation_frames(), seed=st.integers(0, 2**32 - 1))
def test_alpha_invariant_to_rater_relabeling(df, seed):
    """Raters are interchangeable for alpha: renaming them changes nothing."""
    raters = df["rater"].unique()
    perm = dict(zip(raters, np.random.default_rng(seed).permutation(raters), strict=True))
    a, _ = quietly(xa.irr, df, replication="pool")
    b, _ = quietly(xa.irr, df.assign(rater=df["rater"].map(perm)), replication="pool")
    _same(a, b)


@given(df=annotation_frames(min_reps=2), level=st.sampled_from(LEVELS))
def test_bounds(df, level):
    """alpha, iota, kappa_x <= 1 (no upper bound is exceeded)."""
    for fn, kw in ((xa.irr, {}), (xa.irr, {"metric": "iota"}), (xa.cross_kappa, {})):
        out, _ = quietly(fn, df, level=level, replication="pool", **kw)
        vals = np.asarray(out, float)
        assert np.all(vals[~np.isnan(vals)] <= 1 + 1e-12)


def test_label_order_does_not_matter():
    df = simulate(n_items=200, labels=["a", "b", "c"], seed=9)
    rev = df[["item_id", "pool", "rater", "c", "b", "a"]]
    _same(df.xrr.cross_kappa().loc[["c", "b", "a"]], rev.xrr.cross_kappa())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_section_3_5_split_pool_normalized_near_one(seed):
    """Split one large pool at random into two replications: normalized kappa_x ~ 1.

    One simulated pool rates 100,000 items 4 times each; each item's 4
    annotations are split at random 2/2 into replications X and Y. X and Y are
    then replications of one experiment, so kappa_x ~ IRR_X ~ IRR_Y (Section
    3.5). Sampling noise of normalized kappa_x at this size is about 0.01-0.02.
    """
    n = 100_000
    df = simulate(n_items=n, labels=["joy", "awe", "love"], pools=["all"],
                  raters_per_item=4, coverage=1.0, single_rate=0.0, seed=seed)
    rng = np.random.default_rng(seed)
    # rows come item by item, 4 per item: a random permutation of slots per item
    slot = np.argsort(rng.random((n, 4)), axis=1).reshape(-1)
    split = df.assign(pool=np.where(slot < 2, "X", "Y"))
    norm = split.xrr.normalized()
    assert np.all(np.abs(norm.to_numpy() - 1) < 0.05), norm
    kx = split.xrr.cross_kappa().iloc[:, 0]
    irr = split.xrr.irr()
    assert np.all(np.abs(kx - irr["X"]) < 0.05)
    assert np.all(np.abs(kx - irr["Y"]) < 0.05)


def test_dissimilar_pools_are_detected():
    """Pools that share nothing but agree internally: normalized kappa_x near 0."""
    df = simulate(n_items=4000, labels=["joy", "awe"], pools=["A", "B"], similarity=0.0,
                  coverage=1.0, single_rate=0.0, seed=3)
    assert np.all(df.xrr.irr().to_numpy() > 0.1)
    assert np.all(np.abs(df.xrr.normalized().to_numpy()) < 0.1)


def test_row_order_of_item_chunks_does_not_matter():
    """kappa_x does not depend on the order in which blocks of items' rows arrive.

    (Additivity itself, statistics of disjoint item sets added, is tested in
    tests/test_engine.py.)"""
    df = simulate(n_items=500, labels=["joy", "awe"], seed=5)
    items = df["item_id"].unique()
    first = df[df["item_id"].isin(items[:250])]
    second = df[~df["item_id"].isin(items[:250])]
    _same(pd.concat([second, first]).xrr.cross_kappa(), df.xrr.cross_kappa())


@st.composite
def complete_tables(draw):
    """Every item annotated m times in one replication (for the SPEC identity)."""
    n = draw(st.integers(2, 30))
    m = draw(st.integers(2, 5))
    k = draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vals = rng.integers(0, k, size=(n, m))
    return pd.DataFrame({"item": np.repeat(np.arange(n), m), "rater": np.tile(np.arange(m), n),
                         "value": vals.reshape(-1)}), n, m


@given(table=complete_tables(), level=st.sampled_from(LEVELS))
def test_identity_copy_kappa_x_and_alpha(table, level):
    """SPEC section 3: 1 - kappa_x(X, X) = ((m - 1)/m) (M/(M - 1)) (1 - alpha_X)."""
    x, n, m = table
    alpha, _ = quietly(xa.irr, x, level=level)
    kx, _ = quietly(xa.cross_kappa, x, x.copy(), level=level)
    if np.isnan(alpha):
        assert np.isnan(kx)
        return
    big_m = n * m
    assert 1 - kx == pytest.approx((m - 1) / m * big_m / (big_m - 1) * (1 - alpha), abs=1e-10)


@given(df=annotation_frames(min_reps=2), seed=st.integers(0, 2**32 - 1),
       level=st.sampled_from(LEVELS))
def test_kappa_x_invariant_to_rater_relabeling(df, seed, level):
    """Raters are interchangeable within a replication for kappa_x too."""
    raters = df["rater"].unique()
    perm = dict(zip(raters, np.random.default_rng(seed).permutation(raters), strict=True))
    a, _ = quietly(xa.cross_kappa, df, replication="pool", level=level)
    b, _ = quietly(xa.cross_kappa, df.assign(rater=df["rater"].map(perm)), replication="pool",
                   level=level)
    _same(a, b)


@given(df=annotation_frames(min_reps=2))
def test_valid_inputs_are_never_modified(df):
    before = df.copy(deep=True)
    for fn in (xa.irr, xa.cross_kappa, xa.normalized, xa.summary):
        quietly(fn, df, replication="pool")
    pd.testing.assert_frame_equal(df, before)
