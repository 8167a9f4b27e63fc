"""The two-rater statistics pass (kernels/pairs.py) against the general kernel.

With two raters the statistics come from one contingency table per label and
replication; every output must equal what the general per-item kernel sums,
for every group it serves, both forms, missing ratings, several
replications and item weights. The general kernel is reached through the
C-column form (one column), which the table does not serve.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.coefficients import lookup
from xrr_accessor.engine.additive import Meta
from xrr_accessor.engine.pipeline import Codes, run
from xrr_accessor.engine.statistics import chunk, columns, rows
from xrr_accessor.kernels import pairs

from helpers import annotation_frames

#: (level or weights, entries): together they need every group but ``cross``
FORMS = [
    ("nominal", ["alpha", "iota"]),
    ("ordinal", ["alpha", "iota"]),
    ("unweighted", ["percent", "scott", "fleiss", "conger", "bp", "gwet", "light", "cohen"]),
    ("linear", ["percent", "scott", "fleiss", "conger", "bp", "gwet", "light", "cohen"]),
]


def _run(df, level: str, names: list[str]):
    lvl = xa.engine.levels.resolve_weights(level) if level in ("unweighted", "linear") else level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(df, [lookup(n, kind=None) for n in names], level=lvl, replication="pool")


@pytest.fixture
def table_calls(monkeypatch):
    """How many times the two-rater table was built."""
    calls = []
    real = pairs.pair_table

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(pairs, "pair_table", spy)
    return calls


@settings(max_examples=60, deadline=None)
@given(df=annotation_frames(max_raters=2, max_items=15), form=st.sampled_from(FORMS),
       seed=st.integers(0, 2**16))
def test_table_equals_the_general_kernel(df, form, seed):
    assume(df["rater"].nunique() == 2)
    level, names = form
    result = _run(df, level, names)
    meta = result.ctx.meta
    assert meta.n_rater == 2 and "cross" not in meta.groups
    codes = Codes(result.ann)
    weight = np.random.default_rng(seed).random(codes.n_items) * 3
    weight[::4] = 0.0
    for w in (None, weight):
        from_table = chunk(codes, meta, weight=w)
        one = np.ones(codes.n_items) if w is None else w
        general = columns(codes, meta, weight=one[:, None])  # the per-item kernel
        for name, arr in general.items():
            np.testing.assert_allclose(from_table[name], arr[..., 0], rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} ({level}, weight {w is not None})")


def test_the_table_is_what_runs_for_two_raters(table_calls):
    da = np.array([[0, 1, 2, 2, 1, 0, 1], [0, 1, 2, 1, 1, 0, 2]])
    value = xr.DataArray(da, dims=("rater", "item")).xrr.irr(metric="cohen")
    assert table_calls, "two raters without cross pairs should use the table"
    # Cohen's kappa by hand: po = 5/7, pe from the two raters' marginals
    po = 5 / 7
    m1, m2 = np.bincount(da[0], minlength=3) / 7, np.bincount(da[1], minlength=3) / 7
    pe = float(m1 @ m2)
    assert float(value) == pytest.approx((po - pe) / (1 - pe), abs=1e-12)


def test_not_used_with_cross_pairs_or_many_categories(table_calls):
    rng = np.random.default_rng(0)
    df = _long(rng.integers(0, 3, (2, 20, 2)))
    df.xrr(replication="pool").cross_kappa()
    assert not table_calls
    wide = _long(rng.integers(0, pairs.MAX_CATEGORIES + 5, (2, 400, 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wide.xrr(replication="pool").irr(metric="cohen")
    assert not table_calls


def _long(values: np.ndarray):
    """raters x items x replications -> a long frame."""
    g, i, r = np.meshgrid(*(np.arange(n) for n in values.shape), indexing="ij")
    return pd.DataFrame({"item": i.ravel(), "rater": g.ravel(), "pool": r.ravel(),
                         "value": values.ravel()})


class _Duplicated:
    """Codes where item 0 has a second row of rater 0 (no reader makes this, but
    chunk accepts any codes): the table cannot hold it."""

    def __init__(self) -> None:
        self.item = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
        self.rater = np.array([0, 1, 0, 0, 1, 1], dtype=np.int64)
        self.replication = np.zeros(6, dtype=np.int64)
        self.codes = np.array([[0, 1, 1, 2, 2, 0]], dtype=np.int64)
        self.n_items = 3


def test_duplicate_rater_rows_fall_back_to_the_general_kernel():
    meta = Meta(n_label=1, n_rep=1, n_rater=2, n_category=3, n_categories=(3,),
                           form="vector", groups=frozenset({"within", "raters", "strata"}),
                           top=3)
    codes = _Duplicated()
    r = rows(codes, meta)
    _, ok = pairs.pair_table(r.offsets, r.order, r.rep, r.rater, r.codes,
                             np.ones(3), 1, 3)
    assert not ok
    got = chunk(codes, meta)
    general = columns(codes, meta, weight=np.ones((3, 1)))
    for name, arr in general.items():
        np.testing.assert_array_equal(got[name], arr[..., 0], err_msg=name)
    assert got["m_hist"][0, 0].tolist() == [0.0, 1.0, 1.0, 1.0]  # item 0 has m = 3


def test_rows_for_another_meta_are_refused():
    codes = _Duplicated()
    lean = Meta(n_label=1, n_rep=1, n_rater=3, n_category=3, n_categories=(3,),
                           form="vector", groups=frozenset({"within"}))
    r = rows(codes, lean)
    assert r.rater.size == 0 and r.rep.size == 0  # alpha reads neither
    per_rater = Meta(n_label=1, n_rep=1, n_rater=3, n_category=3,
                                n_categories=(3,), form="vector",
                                groups=frozenset({"within", "raters", "strata"}), top=3)
    with pytest.raises(ValueError, match="rows\\(codes, meta\\)"):
        chunk(r, per_rater)
