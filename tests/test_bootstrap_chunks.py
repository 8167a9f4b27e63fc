"""The bootstrap reads the weights of many items in chunks (engine.draws.CHUNK_ITEMS):
the replicates that share one read of the annotations do not shrink as the items grow,
and the statistics of the chunks add to those of all the items at once.

CHUNK_ITEMS is about 87,000 items; here it is set to a few items so that small data
take the chunked path, and the intervals must equal the unchunked ones.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.datasets import simulate
from xrr_accessor.engine import draws


def _quiet(fn: object) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()  # type: ignore[operator,no-any-return]


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_chunked_items_give_the_unchunked_intervals(monkeypatch: pytest.MonkeyPatch,
                                                    interval: str) -> None:
    df = simulate(n_items=230, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    kw = dict(ci=0.9, n_boot=70, seed=4, interval=interval, progress=False)
    whole = _quiet(lambda: xrr.normalized(df, **kw))
    whole_irr = _quiet(lambda: xrr.irr(df, method="bootstrap", **kw))
    calls: list[int] = []
    real = draws.columns

    def counted(r, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(r.n_items)
        return real(r, *args, **kwargs)

    monkeypatch.setattr(draws, "CHUNK_ITEMS", 9)
    monkeypatch.setattr(draws, "columns", counted)
    chunked = _quiet(lambda: xrr.normalized(df, **kw))
    chunked_irr = _quiet(lambda: xrr.irr(df, method="bootstrap", **kw))
    assert calls and max(calls) <= 9  # every pass read at most 9 items' weights
    cols = ["estimate", "se", "lower", "upper"]
    np.testing.assert_allclose(chunked[cols].to_numpy(float), whole[cols].to_numpy(float),
                               rtol=1e-12, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(chunked_irr[cols].to_numpy(float),
                               whole_irr[cols].to_numpy(float), rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def test_chunked_partitions_give_the_unchunked_intervals(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A dask partition's replicate and jackknife-group statistics, chunked likewise."""
    dd = pytest.importorskip("dask.dataframe")
    df = simulate(n_items=120, labels=["joy"], pools=["A", "B"], seed=5)
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    kw = dict(ci=0.9, n_boot=40, seed=1, progress=False)
    want = _quiet(lambda: xrr.cross_kappa(df, **kw))
    monkeypatch.setattr(draws, "CHUNK_ITEMS", 5)
    got = _quiet(lambda: ddf.xrr.cross_kappa(**kw).compute())
    cols = ["estimate", "se", "lower", "upper"]
    np.testing.assert_allclose(got.loc[want.index, cols].to_numpy(float),
                               want[cols].to_numpy(float), rtol=1e-12, atol=1e-12)
