"""The kernels equal the naive O(n^2) definitions (Eq 1-11) on random data.

Random numbers of items, raters, replications and categories; missing cells;
items present in one replication only; all four levels. Tolerance 1e-10.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor as xa

import naive
from helpers import (
    annotation_frames,
    assert_close_or_both_nan,
    complete_rows,
    quietly,
    undefined_warned,
    units,
)

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


@pytest.mark.parametrize("level", LEVELS)
@given(df=annotation_frames())
def test_alpha_equals_naive(df, level):
    got, caught = quietly(xa.irr, df, metric="alpha", level=level, replication="pool")
    for pool in got.index:
        assert_close_or_both_nan(got[pool], naive.alpha(units(df, pool), level))
    assert undefined_warned(caught) == bool(got.isna().any())


@pytest.mark.parametrize("level", LEVELS)
@given(df=annotation_frames(min_reps=2))
def test_kappa_x_equals_naive(df, level):
    got, caught = quietly(xa.cross_kappa, df, level=level, replication="pool")
    for (a, b), value in got.items():
        x, y = units(df, a), units(df, b)
        assert_close_or_both_nan(value, naive.kappa_x(x, y, level))
        shared = set(x) & set(y)
        assert got.attrs["n_items"][(a, b)] == len(shared)
        assert got.attrs["n_unpairable"][(a, b)] == len(set(x) ^ set(y))
    assert undefined_warned(caught) == bool(got.isna().any())


@pytest.mark.parametrize("level", LEVELS)
@given(df=annotation_frames())
def test_iota_equals_naive(df, level):
    got, _ = quietly(xa.irr, df, metric="iota", level=level, replication="pool")
    for pool in got.index:
        rows = complete_rows(df, pool)
        want = naive.iota(rows, level) if rows else math.nan
        assert_close_or_both_nan(got[pool], want)
        b = df.loc[df["pool"] == pool, "rater"].nunique()
        assert got.attrs["n_raters"][pool] == b
        assert got.attrs["n_items"][pool] == (len(rows) if b >= 2 else 0)


@given(df=annotation_frames(min_reps=2, max_reps=2), level=st.sampled_from(LEVELS))
def test_normalized_is_eq_13(df, level):
    """normalized = kappa_x / sqrt(alpha_X alpha_Y), NaN when an IRR <= 0."""
    got, _ = quietly(xa.normalized, df, level=level, replication="pool")
    for (a, b), value in got.items():
        kx = naive.kappa_x(units(df, a), units(df, b), level)
        ra, rb = naive.alpha(units(df, a), level), naive.alpha(units(df, b), level)
        want = kx / math.sqrt(ra * rb) if ra > 1e-12 and rb > 1e-12 else math.nan
        assert_close_or_both_nan(value, want, tol=1e-9)


def test_complete_kappa_x_eq_7_8_equals_eq_9_11():
    """Without missing data Eq 9-10 reduce to Eq 7-8."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, size=(15, 3)).tolist()
    y = rng.integers(0, 3, size=(15, 2)).tolist()
    want = naive.kappa_x_complete(x, y, naive.d_nominal)
    as_units = naive.kappa_x(dict(enumerate(x)), dict(enumerate(y)))
    assert want == pytest.approx(as_units, abs=1e-12)
    import pandas as pd

    rows = [(i, f"x{r}", "X", v) for i, row in enumerate(x) for r, v in enumerate(row)]
    rows += [(i, f"y{r}", "Y", v) for i, row in enumerate(y) for r, v in enumerate(row)]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "v"])
    assert xa.cross_kappa(df).iloc[0, 0] == pytest.approx(want, abs=1e-12)
