"""Bootstrap intervals of dask-backed data: each partition weights its own items
(the weights are keyed by item id), the replicate statistics add like the point
estimate's, and the intervals equal the in-memory ones for the same seed.

The in-memory intervals are checked against a naive bootstrap and BCa's formula
in test_bootstrap.py; here the dask path is compared with them.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import InputError

dd = pytest.importorskip("dask.dataframe")

pytestmark = [
    pytest.mark.filterwarnings("ignore:bootstrap intervals of rare labels"),
    pytest.mark.filterwarnings("ignore:some bootstrap intervals rest on few items"),
    pytest.mark.filterwarnings("ignore:bootstrap intervals from"),
    pytest.mark.filterwarnings("ignore:normalized kappa_x is undefined in some bootstrap"),
]

COLUMNS = ["estimate", "se", "lower", "upper"]


def _by_item(df: pd.DataFrame, n: int, item: str = "item_id") -> object:
    """Items in n partitions, each item whole in one, rows in another order than df's."""
    codes = pd.factorize(df[item], sort=True)[0]
    keyed = df.set_index(pd.Index(-codes, name="_k")).sort_index(kind="stable")
    return dd.from_pandas(keyed, npartitions=n).reset_index(drop=True)


def _same(lazy: pd.DataFrame, mem: pd.DataFrame) -> None:
    assert lazy.index.tolist() == mem.index.tolist() or set(lazy.index) == set(mem.index)
    got = lazy.loc[mem.index, COLUMNS].to_numpy(float)
    np.testing.assert_allclose(got, mem[COLUMNS].to_numpy(float), rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return simulate(n_items=260, labels=["joy", "awe"], pools=["A", "B", "C"], seed=2)


@pytest.mark.filterwarnings("ignore:normalized kappa_x exceeds 1")  # on other item sets
@pytest.mark.parametrize("interval", ["bca", "percentile"])
@pytest.mark.parametrize("parts", [1, 3, 7])
def test_dask_intervals_equal_memory(frame, interval, parts):
    kw = dict(ci=0.95, n_boot=150, seed=9, interval=interval, progress=False)
    ddf = _by_item(frame, parts)
    _same(ddf.xrr.cross_kappa(**kw).compute(), xrr.cross_kappa(frame, **kw))
    _same(ddf.xrr.normalized(**kw).compute(), xrr.normalized(frame, **kw))
    _same(ddf.xrr.irr(method="bootstrap", **kw).compute(),
          xrr.irr(frame, method="bootstrap", **kw))


def test_leave_one_out_jackknife_on_dask(frame):
    """Up to JACKKNIFE_GROUPS items BCa leaves one item out at a time; the partitions
    number their items from the items before them."""
    small = frame[frame["item_id"].isin(frame["item_id"].unique()[:60])]
    kw = dict(ci=0.9, n_boot=120, seed=1, progress=False)
    _same(_by_item(small, 4).xrr.cross_kappa(**kw).compute(), xrr.cross_kappa(small, **kw))


@pytest.mark.filterwarnings(  # item sets differ: report's default warns (test_common_items)
    "ignore:normalized kappa_x exceeds 1:xrr_accessor.errors.UndefinedWarning")
def test_summary_and_report_intervals_equal_memory(frame):
    kw = dict(ci=0.9, n_boot=100, seed=4)
    ddf = _by_item(frame, 3)
    lazy, mem = ddf.xrr.summary(**kw).compute(), xrr.summary(frame, **kw)
    np.testing.assert_allclose(lazy.loc[mem.index, mem.columns].to_numpy(float),
                               mem.to_numpy(float), rtol=1e-12, atol=1e-12, equal_nan=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep, rep_mem = ddf.xrr.report(**kw).compute(), xrr.report(frame, **kw)
    for quantity in ("estimate", "lower", "upper"):
        a, b = rep.wide(quantity), rep_mem.wide(quantity)
        np.testing.assert_allclose(a.loc[b.index, b.columns].to_numpy(float),
                                   b.to_numpy(float), rtol=1e-12, atol=1e-12, equal_nan=True)
    assert rep.readings().equals(rep_mem.readings())


def test_seed_none_on_dask_reports_a_seed_that_repeats_in_memory(frame):
    got = _by_item(frame, 2).xrr.cross_kappa(ci=0.9, n_boot=80, progress=False).compute()
    seed = got.attrs["seed"]
    assert isinstance(seed, int)
    _same(got, xrr.cross_kappa(frame, ci=0.9, n_boot=80, seed=seed, progress=False))


def test_bad_bootstrap_options_fail_before_compute(frame):
    ddf = _by_item(frame, 2)
    with pytest.raises(InputError, match="n_boot"):
        ddf.xrr.cross_kappa(ci=0.9, n_boot=1)
    with pytest.raises(InputError, match="seed"):
        ddf.xrr.cross_kappa(ci=0.9, seed=-1)
    with pytest.raises(InputError, match="interval"):
        ddf.xrr.cross_kappa(ci=0.9, interval="basic")
