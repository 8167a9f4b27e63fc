"""The alternative annotator test on dask-backed data: nothing computes before
``.compute()``, and the result (summary, per-human table, intervals and paired
differences) equals the in-memory call on the same rows, on partitionings that split
items; what dask-backed data cannot do is refused with the way round."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.errors import InputError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")


def _frame(seed: int, n_items: int = 120) -> pd.DataFrame:
    """Four humans (three or four per item), two models (one with two prompts), some
    model labels missing; rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = int(rng.integers(0, 3))
        for h in rng.choice(4, size=int(rng.integers(3, 5)), replace=False):
            v = truth if rng.random() < 0.7 else int(rng.integers(0, 3))
            rows.append((f"t{i:03d}", "humans", f"h{h}", v, float(v + rng.integers(0, 2))))
        for model, prompts, skill in (("m1", 1, 0.8), ("m2", 2, 0.5)):
            for p in range(prompts):
                if rng.random() < 0.05:
                    continue
                v = truth if rng.random() < skill else int(rng.integers(0, 3))
                rows.append((f"t{i:03d}", model, f"p{p}", v, float(v)))
    df = pd.DataFrame(rows, columns=["item", "pool", "rater", "y", "score"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _forbid(*args: object, **kwargs: object) -> object:
    raise AssertionError("computed before .compute()")


@pytest.mark.parametrize("level", ["nominal", "interval"])
@pytest.mark.parametrize("parts", [1, 3])
def test_alt_test_on_dask_equals_memory(level, parts):
    df = _frame(parts)
    ddf = dd.from_pandas(df, npartitions=parts, sort=False)
    rows = ddf.compute()
    kw = {"reference": "humans", "epsilon": 0.2, "min_items": 20, "level": level,
          "labels": ["y", "score"], "replication": "pool", "ci": 0.9, "n_boot": 60,
          "seed": 4}
    with dask.config.set(scheduler=_forbid):
        lazy = _quiet(xa.alt_test, ddf, **kw)
    assert isinstance(lazy, xa.Lazy)
    got, want = _quiet(lazy.compute), _quiet(xa.alt_test, rows, **kw)
    pd.testing.assert_frame_equal(got.summary, want.summary)
    pd.testing.assert_frame_equal(got.humans.sort_index(), want.humans.sort_index(),
                                  check_index_type=False)
    pd.testing.assert_frame_equal(got.differences, want.differences)
    assert got.attrs["seed"] == want.attrs["seed"] == 4


def test_what_dask_backed_data_cannot_do_is_refused():
    df = _frame(7)
    ddf = dd.from_pandas(df, npartitions=2, sort=False)
    lazy = _quiet(xa.alt_test, ddf, reference="humans", epsilon=0.2, level="ordinal",
                  replication="pool", labels=["y"])
    with pytest.raises(InputError, match=r"ordinal level.*ddf\.compute"):
        _quiet(lazy.compute)
    with pytest.raises(InputError, match="other= with dask-backed data"):
        xa.alt_test(ddf, df, epsilon=0.2, replication="pool")
