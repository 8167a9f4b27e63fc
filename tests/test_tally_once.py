"""The per-replication counts of a report (issue 35): one pass, made once per report.

:func:`~xrr_accessor.schema.tally.tally` counts every label's annotations in one
numba pass (:func:`~xrr_accessor.kernels.counting.label_counts`); the counts must
equal a naive pandas groupby count on any frame with missing values, and
:func:`~xrr_accessor.report` must make them once (the choice of IRR, the pools and
the tidy frame share them).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor as xa
import xrr_accessor.schema.tally as tally_module
from xrr_accessor.datasets import simulate
from xrr_accessor.engine.pipeline import annotations as canonical
from xrr_accessor.kernels.counting import label_counts
from xrr_accessor.schema.tally import tally

LABELS = ["joy", "awe", "fear"]


@st.composite
def long_frames(draw: st.DrawFn) -> pd.DataFrame:
    """A long frame, one row per (item, rater, pool) at most, labels 0-2 with NaN; some
    rows missing every label, some labels missing in a pool or everywhere."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_item, n_rater, n_pool = (draw(st.integers(1, 12)), draw(st.integers(1, 4)),
                               draw(st.integers(1, 3)))
    grid = pd.MultiIndex.from_product(
        [[f"i{k}" for k in range(n_item)], [f"r{k}" for k in range(n_rater)],
         [f"P{k}" for k in range(n_pool)]], names=["item", "rater", "pool"]).to_frame(
        index=False)
    keep = rng.random(len(grid)) < draw(st.sampled_from([0.4, 0.8, 1.0]))
    keep[0] = True  # a row at least
    df = grid[keep]
    missing = draw(st.sampled_from([0.0, 0.3, 0.7, 0.95]))
    for lab in LABELS:
        values = rng.integers(0, 3, len(df)).astype(float)
        values[rng.random(len(df)) < missing] = np.nan
        df = df.assign(**{lab: values})
    df = df.sample(frac=1.0, random_state=int(rng.integers(0, 2**31)))  # rows in any order
    return df.reset_index(drop=True)


def pandas_counts(df: pd.DataFrame, pools: pd.Index, labels: list[str] = LABELS
                  ) -> dict[str, np.ndarray]:
    """The counts by a plain groupby, replications in the order ``pools``."""
    by = df.groupby("pool")
    rated = df[df[labels].notna().any(axis=1)].groupby("pool")["rater"].nunique()
    return {"annotations": by[labels].count().reindex(pools, fill_value=0).to_numpy().T,
            "rows": by.size().reindex(pools, fill_value=0).to_numpy(),
            "items": by["item"].nunique().reindex(pools, fill_value=0).to_numpy(),
            "raters": by["rater"].nunique().reindex(pools, fill_value=0).to_numpy(),
            "rated_raters": rated.reindex(pools, fill_value=0).to_numpy()}


@given(df=long_frames())
def test_tally_equals_a_pandas_groupby_count(df: pd.DataFrame) -> None:
    ann, _ = canonical(df, item="item", rater="rater", replication="pool")
    assert list(ann.labels) == LABELS
    expected = pandas_counts(df, pd.Index(ann.replications))
    t = tally(ann)
    for name, want in expected.items():
        got = getattr(t, name)
        assert got.dtype == np.int64, name
        np.testing.assert_array_equal(got, want, err_msg=name)


@given(seed=st.integers(0, 2**32 - 1), n_label=st.integers(0, 4), n=st.integers(0, 40),
       n_rep=st.integers(1, 3))
def test_label_counts_equal_a_bincount_per_label(seed: int, n_label: int, n: int,
                                                 n_rep: int) -> None:
    rng = np.random.default_rng(seed)
    codes = np.where(rng.random((n_label, n)) < 0.4, -1, rng.integers(0, 5, (n_label, n)))
    rep = rng.integers(0, n_rep, n)
    counts, rated = label_counts(codes, rep, n_rep)
    want = np.array([np.bincount(rep[row >= 0], minlength=n_rep) for row in codes],
                    dtype=np.int64).reshape(n_label, n_rep)
    np.testing.assert_array_equal(counts, want)
    np.testing.assert_array_equal(rated, (codes >= 0).any(axis=0))
    assert rated.dtype == np.bool_ and rated.shape == (n,)


def test_label_counts_of_a_strided_view() -> None:
    """Codes that are a view (every other row) count as their copy does."""
    rng = np.random.default_rng(1)
    codes = np.where(rng.random((6, 50)) < 0.5, -1, 1)
    rep = rng.integers(0, 2, 50)
    for view in (codes[::2], codes[:, ::3]):
        r = rep[: view.shape[1]] if view.shape[1] == 50 else rep[::3]
        got = label_counts(view, r, 2)
        want = label_counts(np.ascontiguousarray(view), r, 2)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_array_equal(got[1], want[1])


@pytest.mark.parametrize("pools", [["A", "B", "C"], ["A"]])
def test_report_counts_once(pools: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """One tally per report of the data read (irr chosen from it, pools, tidy frame)."""
    df = simulate(n_items=200, labels=["joy", "awe"], pools=pools, seed=4)
    seen: list[int] = []
    real = tally_module.tally

    def counted(ann: object) -> tally_module.Tally:
        seen.append(id(ann))
        return real(ann)

    monkeypatch.setattr(tally_module, "tally", counted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = xa.report(df)
    assert len(seen) == 1  # the one-pool page's rater and item tables need no counts
    monkeypatch.undo()
    counts = pandas_counts(df.rename(columns={"item_id": "item"}), pd.Index(pools),
                           ["joy", "awe"])
    irr = rep.frame[rep.frame["statistic"] == "irr"]
    for j, lab in enumerate(["joy", "awe"]):
        np.testing.assert_array_equal(irr.loc[irr["label"] == lab, "n_annotations"],
                                      counts["annotations"][j])
    for r, pool in enumerate(pools):
        shown = rep.attrs["replications"][pool]
        assert (shown["items"], shown["raters"], shown["rows"]) == (
            counts["items"][r], counts["raters"][r], counts["rows"][r])
