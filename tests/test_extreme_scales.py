"""Interval data near 1e154 and 1e-200 (issue 25): the right value, computed exactly.

Sums of squares of values near 1e154 overflow and near 1e-200 underflow; the
package centres and divides interval values by a power of two before squaring.
Checked against Krippendorff's alpha and Du et al.'s D_i written from their
formulas here in exact rational arithmetic (``fractions.Fraction``) on the raw
values, and against the same data at scale 1 (the coefficients are scale-free).
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa

SCALES = [1e154, 1e-200, 1e300, 1e-300, 1.0]


def _data(scale: float, seed: int = 0, complete: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.normal(size=25)
    rows = [(i, p, f"{p}{r}", (base[i] + 0.6 * rng.normal()) * scale)
            for p in "AB" for i in range(25) for r in range(3) if complete or (i + r) % 7]
    return pd.DataFrame(rows, columns=["item", "pool", "rater", "v"])


def naive_alpha(values_by_item: list[list[float]]) -> float:
    """Krippendorff's interval alpha, exactly: 1 - D_o / D_e over pairable values."""
    units = [[Fraction(v) for v in u] for u in values_by_item if len(u) >= 2]
    allv = [v for u in units for v in u]
    n = len(allv)
    d_o = sum(sum((a - b) ** 2 for a, b in permutations(u, 2)) / (len(u) - 1)
              for u in units) / n
    d_e = sum((a - b) ** 2 for a, b in permutations(allv, 2)) / (n * (n - 1))
    return float(1 - d_o / d_e)


def naive_d(values: list[float], scale: float) -> float:
    """D_i = sqrt(mean over annotator pairs of (x - y)^2), exactly, then scaled back."""
    xs = [Fraction(v) / Fraction(scale) for v in values]
    pairs = [(a - b) ** 2 for k, a in enumerate(xs) for b in xs[k + 1:]]
    return math.sqrt(sum(pairs) / len(pairs)) * scale


@pytest.mark.parametrize("scale", SCALES)
def test_interval_alpha_at_extreme_scales_equals_the_exact_formula(scale):
    df = _data(scale)
    got = xa.irr(df, level="interval", replication="pool")
    for pool in "AB":
        part = df[df["pool"] == pool]
        want = naive_alpha(part.groupby("item")["v"].apply(list).tolist())
        assert math.isfinite(want)
        assert got.loc["v", pool] == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("scale", SCALES)
def test_no_runtime_warning_and_no_nan_with_intervals(scale):
    df, ref = _data(scale, complete=True), _data(1.0, complete=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # as the suite, but stated here
        warnings.simplefilter("ignore", xa.XRRWarning)  # few items: rough intervals
        for fn, kw in ((xa.irr, {"level": "interval"}), (xa.irr, {"metric": "icc"}),
                       (xa.cross_kappa, {"level": "interval"}),
                       (xa.normalized, {"level": "interval", "irr": "alpha"})):
            got = fn(df, ci=0.9, n_boot=40, seed=3, progress=False, replication="pool", **kw)
            want = fn(ref, ci=0.9, n_boot=40, seed=3, progress=False, replication="pool",
                      **kw)
            assert np.isfinite(got.to_numpy(dtype=float)).all()
            np.testing.assert_allclose(got.to_numpy(dtype=float), want.to_numpy(dtype=float),
                                       rtol=1e-9)


@pytest.mark.parametrize("scale", [1e-200, 1e154])
def test_tiny_values_are_not_called_all_the_same(scale):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = xa.irr(_data(scale), level="interval", replication="pool")
    assert np.isfinite(got.to_numpy(dtype=float)).all()
    assert not [w for w in caught if "same value" in str(w.message)]


@pytest.mark.parametrize("scale", SCALES)
def test_item_disagreement_at_extreme_scales(scale):
    df = _data(scale)
    got = xa.item_disagreement(df, replication="pool")
    for (pool, item), part in df.groupby(["pool", "item"]):
        d = got.loc[("v", pool, item)] if got.index.nlevels == 3 else got.loc[(pool, item)]
        assert d["disagreement"] == pytest.approx(naive_d(part["v"].tolist(), scale),
                                                  rel=1e-9)
        assert d["spread"] == part["v"].max() - part["v"].min()


@pytest.mark.parametrize("scale", [1e154, 1e-200])
def test_rater_agreement_is_scale_free(scale):
    got = xa.rater_agreement(_data(scale), level="interval", replication="pool")
    want = xa.rater_agreement(_data(1.0), level="interval", replication="pool")
    cols = ["kappa_x", "delta_alpha"]
    np.testing.assert_allclose(got[cols].to_numpy(float), want[cols].to_numpy(float),
                               rtol=1e-9)
