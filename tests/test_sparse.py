"""Nominal labels take the vector form (no K x K matrix, any K); same numbers as the
matrix form, which a nominal disagreement matrix given as a custom level forces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given

import xrr_accessor as xa
from xrr_accessor.coefficients import lookup
from xrr_accessor.engine.pipeline import run

import naive
from helpers import annotation_frames, assert_close_or_both_nan, quietly, units


def _both_paths(fn, df, **kwargs):
    """(matrix form, vector form): nominal D as a custom matrix, and as the nominal level."""
    sparse, _ = quietly(fn, df, level="nominal", **kwargs)
    cats = pd.unique(df["value"].dropna())
    nominal = pd.DataFrame(1.0 - np.eye(len(cats)), index=cats, columns=cats)
    dense, _ = quietly(fn, df, level=nominal, **kwargs)
    return dense, sparse


@given(df=annotation_frames(min_reps=2, max_raters=5))
def test_vector_form_equals_matrix_form(df):
    for fn, kw in ((xa.irr, {}), (xa.irr, {"metric": "iota"}), (xa.cross_kappa, {}),
                   (xa.normalized, {})):
        dense, sparse = _both_paths(fn, df, replication="pool", **kw)
        np.testing.assert_allclose(np.asarray(sparse, float), np.asarray(dense, float),
                                   rtol=1e-10, atol=1e-12, equal_nan=True)
        for key in dense.attrs:
            if key.startswith("n_"):
                assert sparse.attrs[key] == dense.attrs[key], key


def test_nominal_takes_the_vector_form():
    df = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "v": [0, 1]})
    stats = run(df, [lookup("alpha")]).stats
    assert "pair_diag" in stats and "pair_o" not in stats  # no K x K sums
    stats = run(df, [lookup("alpha")], level="ordinal").stats
    assert "pair_o" in stats and "pair_diag" not in stats


def test_twenty_thousand_categories():
    """Entity ids as categories: 20,000+ categories, no n x K table, exact."""
    rng = np.random.default_rng(0)
    n = 20_000
    truth = rng.integers(0, 1_000_000, n)
    rows = []
    for pool in ("X", "Y"):
        for rater in ("r1", "r2"):
            noisy = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 1_000_000, n))
            rows.append(pd.DataFrame({"item": np.arange(n), "rater": rater, "pool": pool,
                                      "value": [f"Q{v}" for v in noisy]}))
    df = pd.concat(rows, ignore_index=True)
    ann, _ = xa.annotations(df)
    assert ann.n_category > 20_000
    stats = run(df, [lookup("alpha"), lookup("kappa_x", kind="cross")]).stats
    assert max(v.ndim for v in stats.arrays.values() if v.size) <= 4  # no K x K, no n x K
    assert stats.nbytes() < 5e6
    sub = df[df["item"] < 150]  # the naive O(n^2) definition on a slice
    for frame in (sub, df):
        kx = frame.xrr.cross_kappa().iloc[0]
        alpha = frame.xrr.irr()
        if frame is sub:
            assert kx == pytest.approx(naive.kappa_x(units(sub, "X"), units(sub, "Y")), abs=1e-12)
            assert_close_or_both_nan(alpha["X"], naive.alpha(units(sub, "X")))
    assert 0.4 < kx < 0.6  # 0.7^2 agreement, chance ~0
    ordered = df.xrr(categories=sorted(df["value"].unique()))
    assert np.isfinite(ordered.irr(level="ordinal")).all()  # on mid-ranks: no K x K matrix
    with pytest.raises(xa.InputError, match="level='ordinal' needs a"):
        ordered.cross_kappa(level="ordinal")  # kappa_x still sums K x K tables
