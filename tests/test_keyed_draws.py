"""Bootstrap draws keyed by item id: the same intervals whatever the rows' order,
the other pools in the call, or whether the replications came in one frame or two.

The replicates themselves are checked against a naive bootstrap (the frame with
each item repeated as often as its weight) in test_bootstrap.py; here each
call is compared with the same call on the same items laid out another way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.datasets import simulate

pytestmark = [
    pytest.mark.filterwarnings("ignore:bootstrap intervals of rare labels"),
    pytest.mark.filterwarnings("ignore:some bootstrap intervals rest on few items"),
    pytest.mark.filterwarnings("ignore:normalized kappa_x is undefined in some bootstrap"),
]

COLUMNS = ["estimate", "se", "lower", "upper"]


def _frame(pools: list[str], n_items: int = 300, seed: int = 4) -> pd.DataFrame:
    return simulate(n_items=n_items, labels=["joy", "awe"], pools=pools, seed=seed)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
@pytest.mark.parametrize("call", [
    lambda d, **kw: xrr.cross_kappa(d, **kw),
    lambda d, **kw: xrr.irr(d, method="bootstrap", **kw),
    lambda d, **kw: xrr.normalized(d, **kw),
], ids=["cross_kappa", "irr", "normalized"])
@pytest.mark.filterwarnings("ignore:normalized kappa_x exceeds 1")  # on other item sets
def test_same_intervals_under_row_shuffles(call, interval):
    df = _frame(["A", "B"])
    want = call(df, ci=0.95, seed=7, n_boot=200, interval=interval, progress=False)
    for shuffle in range(5):
        rows = df.sample(frac=1.0, random_state=shuffle).reset_index(drop=True)
        got = call(rows, ci=0.95, seed=7, n_boot=200, interval=interval, progress=False)
        got = got.loc[want.index]  # the order of labels and pools follows the rows
        np.testing.assert_allclose(got[COLUMNS].to_numpy(float),
                                   want[COLUMNS].to_numpy(float), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_same_draws_for_the_same_pools_in_a_two_and_three_pool_frame(interval):
    three = _frame(["A", "B", "C"])
    two = three[three["pool"] != "C"]
    three = three.sort_values(["pool", "item_id"], ascending=False)  # C's items first
    kw = dict(ci=0.9, seed=3, n_boot=300, interval=interval, progress=False)
    big = xrr.cross_kappa(three, **kw)
    small = xrr.cross_kappa(two, **kw)
    pair = big.xs(("A", "B"), level=["replication", "replication_other"], drop_level=False)
    # pool C holds items that A and B lack; with over JACKKNIFE_GROUPS items both
    # calls key the same jackknife groups, so BCa's acceleration is the same too
    assert set(three["item_id"]) > set(two["item_id"])
    assert two["item_id"].nunique() > 200
    np.testing.assert_allclose(pair[COLUMNS].to_numpy(float),
                               small.loc[pair.index, COLUMNS].to_numpy(float),
                               rtol=1e-12, atol=1e-12)
    # and the replicates differ from another seed's (the comparison can fail)
    other = xrr.cross_kappa(two, **{**kw, "seed": 4})
    assert not np.allclose(other["lower"], small["lower"])


def test_other_frame_equals_the_one_frame_call():
    df = _frame(["A", "B"])
    a = df[df["pool"] == "A"].drop(columns="pool")
    b = df[df["pool"] == "B"].drop(columns="pool")
    df = df.sort_values(["pool", "item_id"], ascending=False)  # B's items first
    kw = dict(ci=0.95, seed=11, n_boot=250, progress=False)
    one = xrr.cross_kappa(df, **kw)
    two = a.xrr.cross_kappa(b, **kw)
    np.testing.assert_allclose(two[COLUMNS].to_numpy(float), one[COLUMNS].to_numpy(float),
                               rtol=1e-12, atol=1e-12)


def test_renamed_ids_give_other_draws():
    """The draws follow the ids: the same data under other item names resample
    differently (so the tests above do not pass because draws ignore ids)."""
    df = _frame(["A", "B"])
    renamed = df.assign(item_id="x" + df["item_id"].astype(str))
    kw = dict(ci=0.95, seed=11, n_boot=250, progress=False)
    a, b = xrr.cross_kappa(df, **kw), xrr.cross_kappa(renamed, **kw)
    np.testing.assert_allclose(a["estimate"], b["estimate"], rtol=1e-12)
    assert not np.allclose(a["se"], b["se"], rtol=1e-6)
