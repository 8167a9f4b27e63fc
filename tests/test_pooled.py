"""The pooled row of a report: the mean over labels with its interval from the same
bootstrap replicates as the labels' own intervals."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xrr_accessor as xa
from xrr_accessor.coefficients import lookup
from xrr_accessor.coefficients.registry import normalizing
from xrr_accessor.datasets import simulate
from xrr_accessor.engine.pipeline import run
from xrr_accessor.uncertainty.resample import Target, replicate


def _report(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return xa.report(df, progress=False, **kw)


@pytest.fixture(scope="module")
def data():
    return simulate(n_items=300, labels=["joy", "awe", "fear"], pools=["A", "B"], seed=1)


def test_pooled_is_the_mean_with_the_same_replicates(data):
    rep = _report(data, ci=0.9, seed=7, interval="percentile", n_boot=400)
    pooled = rep.pooled.set_index(["statistic", "replication"])
    means = rep.frame.groupby(["statistic", "replication"], sort=False)["estimate"].mean()
    for key, m in means.items():
        assert pooled.loc[key, "estimate"] == pytest.approx(m, abs=1e-12)
    assert (pooled["n_labels"] == 3).all()
    # the same draws, from the engine directly: the mean over labels of each replicate
    rel = normalizing("cohen")
    kx, norm = lookup("kappa_x", kind="cross"), lookup("normalized_kappa_x", kind="cross")
    r = run(data, [kx, norm, rel])
    reps = replicate(r, [Target("irr", rel), Target("kappa_x", kx),
                         Target("normalized", norm, {"irr": rel.name})], 400,
                     rep.attrs["seed"], progress=False)
    for stat, cell in (("irr", 0), ("irr", 1), ("kappa_x", 0), ("normalized", 0)):
        mean_boot = reps.boot[stat][:, :, cell].mean(axis=1)
        mean_boot = mean_boot[np.isfinite(mean_boot)]
        lo, hi = np.quantile(mean_boot, [0.05, 0.95])
        row = rep.pooled[rep.pooled["statistic"] == stat].iloc[cell]
        assert (row.lower, row.upper) == pytest.approx((lo, hi), abs=1e-12)
        assert row.se == pytest.approx(np.std(mean_boot, ddof=1), abs=1e-12)


def test_no_pooled_row_without_intervals_or_with_one_label(data):
    assert _report(data).pooled is None
    assert _report(data[["item_id", "pool", "rater", "joy"]], ci=0.9, n_boot=100,
                   seed=1).pooled is None


def test_a_nan_label_makes_the_pooled_row_nan(data):
    df = data.copy()
    df["flat"] = 1
    rep = _report(df, ci=0.9, seed=1, n_boot=100)
    assert rep.pooled[["estimate", "lower", "upper"]].isna().all().all()
