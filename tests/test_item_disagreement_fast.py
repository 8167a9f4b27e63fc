"""item_disagreement on many small items (issue 35): sums from count patterns, rows placed.

The item sums come from one pass over the annotations in their own order (each
group's count pattern, :func:`~xrr_accessor.kernels.item_sums.group_bags`) instead
of a grouping first, and :func:`~xrr_accessor.kernels.placing.ranked_rows` writes
each row to its place instead of sorting the groups and gathering through the
order, when D takes few values. Each must give exactly what the route it replaces
gives (every record, column, the order, the tie rule, the ranks under the NaN
mask), and the whole table must equal a plain pandas groupby.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.diagnostics._common import group_codes
from xrr_accessor.kernels.item_sums import (
    MOMENTS,
    NOMINAL,
    bag_records_into,
    group_bags,
    item_summary_into,
)
from xrr_accessor.kernels.placing import ranked_rows
from xrr_accessor.kernels.ranking import DISTINCT, item_rows, ranked_groups
from xrr_accessor.kernels.within import PACKED_CATEGORIES

# --- the kernel against the sort and the gather ------------------------------------------


def _records(rng: np.random.Generator, n_group: int, n_distinct: int, p_empty: float,
             p_nan: float) -> tuple[np.ndarray, np.ndarray]:
    n = rng.integers(1, 6, n_group)
    n[rng.random(n_group) < p_empty] = 0
    d = rng.integers(0, n_distinct, n_group) / 4.0
    d[rng.random(n_group) < p_nan] = np.nan
    d[(d == 0) & (rng.random(n_group) < 0.5)] = -0.0  # -0.0 and 0.0 tie
    ints = np.stack([n, rng.integers(0, 5, n_group), np.minimum(n, rng.integers(1, 4, n_group)),
                     np.ones(n_group, dtype=np.int64)]).astype(np.int64)
    lo = rng.integers(0, 3, n_group).astype(float)
    floats = np.stack([d, lo, lo + rng.integers(0, 3, n_group), lo + rng.random(n_group)])
    return ints, floats


def _by_sort(ints, floats, n_rep, ids, cats, n_float, n_int):
    order = ranked_groups(ints[0], floats[0], n_rep, np.empty((4, ints.shape[1]), np.int64))
    m = len(order)
    of, oi = np.zeros((n_float, m)), np.zeros((n_int, m), dtype=np.int64)
    und = np.zeros(m, dtype=bool)
    item_rows(order, ints, floats, n_rep, ids, cats, of, oi, und, 0, m)
    return of, oi, und


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n_rep=st.integers(1, 3),
       n_group=st.integers(0, 400), n_distinct=st.sampled_from([1, 3, 40]),
       p_empty=st.sampled_from([0.0, 0.3]), p_nan=st.sampled_from([0.0, 0.2]),
       numeric=st.booleans(), mapped=st.booleans(), min_block=st.sampled_from([1, 50, 10**6]))
def test_ranked_rows_equals_sort_and_gather(seed, n_rep, n_group, n_distinct, p_empty, p_nan,
                                            numeric, mapped, min_block):
    rng = np.random.default_rng(seed)
    n_group -= n_group % n_rep
    ints, floats = _records(rng, n_group, n_distinct, p_empty, p_nan)
    ids = rng.permutation(10 * n_group + 1)[:n_group // n_rep] if mapped else \
        np.zeros(0, np.int64)
    cats = np.array([7, -1, 30, 4, 2]) if mapped else np.zeros(0, np.int64)
    n_float, n_int = (4 if numeric else 2), (5 if n_rep > 1 else 4)
    want_f, want_i, want_u = _by_sort(ints, floats, n_rep, ids, cats, n_float, n_int)
    m = want_f.shape[1]
    of, oi = np.full((n_float, m), -7.0), np.full((n_int, m), -7, dtype=np.int64)
    und = np.zeros(m, dtype=bool)
    assert ranked_rows(ints, floats, n_rep, ids, cats, of, oi, und, min_block)
    np.testing.assert_array_equal(und, want_u)
    np.testing.assert_array_equal(oi, want_i)  # ranks under the NaN mask too
    np.testing.assert_array_equal(of, want_f)
    assert np.array_equal(np.signbit(of[0]), np.signbit(want_f[0]))  # -0.0 kept as read


def test_ranked_rows_declines_many_distinct_scores():
    rng = np.random.default_rng(1)
    ints, floats = _records(rng, 3 * DISTINCT, 1, 0.0, 0.0)
    floats[0] = rng.random(3 * DISTINCT)
    out = np.full((4, 3 * DISTINCT), -7.0)
    oi = np.full((4, 3 * DISTINCT), -7, dtype=np.int64)
    und = np.zeros(3 * DISTINCT, dtype=bool)
    assert not ranked_rows(ints, floats, 1, np.zeros(0, np.int64), np.zeros(0, np.int64), out,
                           oi, und, 1)
    assert (out == -7.0).all() and (oi == -7).all()  # nothing written


# --- the item sums from count patterns against the grouped pass --------------------------


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n_rep=st.integers(1, 3), n_item=st.integers(1, 300),
       n_cat=st.integers(1, PACKED_CATEGORIES), form=st.sampled_from([NOMINAL, MOMENTS]),
       root=st.booleans(), numeric=st.booleans(), p_missing=st.sampled_from([0.0, 0.3]))
def test_records_from_patterns_equal_the_grouped_pass(seed, n_rep, n_item, n_cat, form, root,
                                                      numeric, p_missing):
    """One pass over the annotations in their order (count patterns, no grouping) gives
    every group's record to the last bit: empty groups, missing codes, replications."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5 * n_item))
    item = rng.integers(0, n_item, n)
    rep = rng.integers(0, n_rep, n)
    codes = rng.integers(0, n_cat, n)
    codes[rng.random(n) < p_missing] = -1
    values = np.sort(rng.normal(size=n_cat)) if numeric else np.zeros(0)
    n_group = n_item * n_rep
    offsets, order, _ = group_codes(item, rep, n_item, n_rep)
    want_i, want_f = np.zeros((4, n_group), np.int64), np.zeros((4, n_group))
    item_summary_into(offsets, order, codes, values, np.zeros((0, 0, 0)), n_cat, n_rep, form,
                      want_i, want_f, 2.0, root, 0, n_group)
    bags, most = group_bags(item, rep, codes, n_rep, n_group)
    assert most == min((np.bincount(item * n_rep + rep, minlength=n_group).max() if n else 0),
                       255)
    got_i, got_f = np.zeros((4, n_group), np.int64), np.zeros((4, n_group))
    bag_records_into(bags, values, n_cat, form, got_i, got_f, 2.0, root, 0, n_group)
    np.testing.assert_array_equal(got_i, want_i)
    np.testing.assert_array_equal(got_f, want_f)


def test_groups_of_255_rows_take_the_grouped_pass(monkeypatch):
    """A count pattern holds fewer than 256 of a category: from 255 rows a group, the
    grouped pass (checked by which route runs), and the table equals pandas; below it,
    the pattern route."""
    from xrr_accessor.diagnostics import items

    rng = np.random.default_rng(3)
    rows = [(0, f"r{k}", 1.0) for k in range(300)]  # 300 of one value: a byte would wrap
    rows += [(i, f"r{k}", float(rng.integers(0, 3))) for i in range(1, 50) for k in range(3)]
    df = pd.DataFrame(rows, columns=["item", "rater", "value"]).assign(pool="P")
    _, most = group_bags(np.asarray(df["item"]), np.zeros(len(df), np.int64),
                         np.zeros(len(df), np.int64), 1, 50)
    assert most == 255  # counted up to 255
    used, one_call = [], []
    monkeypatch.setattr(items, "bag_records_into",
                        lambda *a: used.append(a) or bag_records_into(*a))
    real_rows = items.pattern_rows

    def spy_rows(*args):
        got = real_rows(*args)
        one_call.append(got is not None)
        return got

    monkeypatch.setattr(items, "pattern_rows", spy_rows)
    _check(df, 1)
    assert one_call == [False] and not used  # the one-call route declines: the grouped pass
    _check(df[df["item"] > 0], 1)
    assert one_call == [False, True]  # small groups: the pattern route, in one call
    monkeypatch.setattr(items, "pattern_rows", lambda *args: None)
    _check(df[df["item"] > 0], 1)
    assert used  # and step by step, the pattern route too


# --- the table against pandas --------------------------------------------------------------


def pandas_table(df: pd.DataFrame, rep: str | None) -> pd.DataFrame:
    """The interval table with a plain groupby: per (replication, item) D, rank, n,
    mode (smallest at the top count) and its share, mean and spread; rows by
    replication, D from the largest (NaN last), ties in the items' order of
    appearance."""
    keys = ([rep] if rep else []) + ["item"]
    data = df.dropna(subset=["value"])
    g = data.groupby(keys, sort=False)["value"]
    out = g.agg(n="count", mean="mean", lo="min", hi="max", s1="sum", var="var")
    out["s2"] = (data["value"] ** 2).groupby([data[k] for k in keys], sort=False).sum()
    n = out["n"]  # D^2 = sum over pairs of (x - y)^2 / C(n, 2) = 2 var
    if (data["value"] % 1 == 0).all():  # whole numbers: the pair sum n S2 - S1^2, exact
        pairs = (n * out["s2"] - out["s1"] ** 2).clip(lower=0)  # (ties compare as ties)
        out["disagreement"] = np.sqrt(pairs / (n * (n - 1) / 2.0)).where(n >= 2)
    else:
        out["disagreement"] = np.sqrt(2 * out["var"]).where(n >= 2)
    counts = data.groupby([*keys, "value"]).size().rename("k").reset_index()
    top = counts.sort_values([*keys, "k", "value"], ascending=[True] * len(keys) + [False, True]
                             ).drop_duplicates(keys).set_index(keys)
    out["mode"] = top["value"].reindex(out.index)
    out["mode_share"] = top["k"].reindex(out.index) / out["n"]
    out["spread"] = out["hi"] - out["lo"]
    reps = sorted(df[rep].unique()) if rep else [None]
    out["rep_pos"] = [reps.index(k[0]) for k in out.index] if rep else 0
    item_pos = {v: p for p, v in enumerate(pd.unique(df["item"]))}
    out["item_pos"] = [item_pos[k[-1] if rep else k] for k in out.index]
    out["nan"] = out["disagreement"].isna()
    out = out.sort_values(["rep_pos", "nan", "disagreement", "item_pos"],
                          ascending=[True, True, False, True], kind="stable")
    better = out.groupby("rep_pos")["disagreement"].rank(method="min", ascending=False)
    out["rank"] = better.astype("Int64")
    return out


def _frame(rng: np.random.Generator, n_items: int, scale: int, pools: int,
           strings: bool) -> pd.DataFrame:
    rows = []
    for p in range(pools):
        for i in rng.permutation(n_items):
            for r in range(int(rng.integers(1, 5))):
                value = float(rng.integers(0, scale)) if scale else float(rng.normal())
                rows.append((f"pool{p}", f"it{i}" if strings else int(i) * 3, f"r{r}", value))
    df = pd.DataFrame(rows, columns=["pool", "item", "rater", "value"])
    return df.sample(frac=1.0, random_state=int(rng.integers(1000))).reset_index(drop=True)


def _check(df: pd.DataFrame, pools: int) -> None:
    rep = "pool" if pools > 1 else None
    data = df if pools > 1 else df.drop(columns="pool")
    with pytest.warns(xrr.UndefinedWarning) if (
            data.groupby(([rep] if rep else []) + ["item"]).size() < 2).any() \
            else _nothing():
        got = xrr.item_disagreement(data, level="interval",
                                   **({"replication": rep} if rep else {}))
    want = pandas_table(df, rep)
    idx = got.index
    assert list(idx.get_level_values(-1)) == [k[-1] if rep else k for k in want.index]
    if rep:
        assert list(idx.get_level_values(0)) == [k[0] for k in want.index]
    np.testing.assert_allclose(got["disagreement"], want["disagreement"], rtol=1e-12,
                               atol=1e-12)
    assert got["rank"].astype("Int64").tolist() == want["rank"].tolist()
    assert got["n_annotations"].tolist() == want["n"].tolist()
    np.testing.assert_array_equal(got["mode"], want["mode"])
    np.testing.assert_allclose(got["mode_share"], want["mode_share"], rtol=1e-15)
    np.testing.assert_allclose(got["mean"], want["mean"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got["spread"], want["spread"], rtol=1e-15)
    assert list(got.columns) == ["disagreement", "rank", "n_annotations", "mode",
                                 "mode_share", "mean", "spread"]


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@settings(max_examples=15)
@given(seed=st.integers(0, 2**32 - 1), pools=st.integers(1, 3), strings=st.booleans(),
       scale=st.sampled_from([2, 7]))
def test_many_small_items_equal_pandas(seed, pools, strings, scale):
    """A few ratings per item on a scale: few distinct D, rows placed directly."""
    _check(_frame(np.random.default_rng(seed), 300, scale, pools, strings), pools)


@pytest.mark.parametrize("pools", [1, 2])
def test_many_distinct_d_equal_pandas(pools):
    """Continuous ratings: more than DISTINCT values of D, the sort-and-gather route."""
    _check(_frame(np.random.default_rng(pools), 2500, 0, pools, False), pools)


def test_the_placing_kernels_use_the_rankings_distinct_limit() -> None:
    from xrr_accessor.kernels import placing

    assert placing.DISTINCT == DISTINCT  # each module keeps its own (numba's cache)
