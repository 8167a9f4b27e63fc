"""item_disagreement's records by distinct count pattern (issue 35, part 6).

In memory, each (item, replication) group's record is read through its number among
the distinct count patterns (:func:`~xrr_accessor.diagnostics.item_patterns.by_pattern`)
instead of a record per group. The table must be exactly the one the record per group
gives (every column, the order, the ranks, the index), also past the patterns a table
holds, past the distinct D the placing counts, and for numbers near the ends of the
doubles; the numbering must equal one done by hand.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.diagnostics import item_patterns, items
from xrr_accessor.kernels.item_sums import MOST_PATTERNS, bag_patterns


def _naive_numbers(bags: np.ndarray) -> tuple[list[int], list[int], int]:
    """Each bag's place among the distinct bags in order of first appearance, 0 first."""
    distinct = [0]
    pid = []
    for b in bags.tolist():
        if b not in distinct:
            distinct.append(b)
        pid.append(distinct.index(b))
    return pid, distinct, int(np.count_nonzero(bags))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), pool=st.integers(1, 40))
def test_numbers_equal_a_numbering_by_hand(seed, n, pool):
    rng = np.random.default_rng(seed)
    choices = np.concatenate([[0], rng.integers(1, 2**40, pool)]).astype(np.uint64)
    bags = rng.choice(choices, n)
    pid, distinct = np.empty(n, np.int64), np.empty(MOST_PATTERNS + 1, np.uint64)
    used, m = bag_patterns(bags, pid, distinct)
    want_pid, want_distinct, want_m = _naive_numbers(bags)
    assert (pid.tolist(), distinct[:used].tolist(), m) == (want_pid, want_distinct, want_m)


def test_numbering_declines_past_the_patterns_a_table_holds():
    bags = np.arange(1, MOST_PATTERNS + 2, dtype=np.uint64)  # one pattern too many
    assert item_patterns.by_pattern(bags)[0] is None
    pid, distinct, m = item_patterns.by_pattern(bags[:-1])
    assert pid is not None and len(distinct) == MOST_PATTERNS + 1 and m == MOST_PATTERNS


def _frame(rng: np.random.Generator, n_item: int, n_cat: int, reps: int,
           values: np.ndarray | None = None, most: int = 6) -> pd.DataFrame:
    n = rng.integers(1, most + 1, n_item * reps)
    vals = np.arange(n_cat, dtype=float) if values is None else values
    df = pd.DataFrame({"item": np.repeat(np.arange(n_item).repeat(reps), n),
                       "rep": np.repeat(np.tile(np.arange(reps), n_item), n),
                       "rater": np.concatenate([np.arange(k) for k in n]),
                       "score": rng.choice(vals, n.sum())})
    df.loc[rng.random(len(df)) < 0.1, "score"] = np.nan  # missing ratings
    return df.sample(frac=1.0, random_state=int(rng.integers(1 << 31)))  # rows in any order


def _both(df: pd.DataFrame, monkeypatch, **kw) -> tuple[pd.DataFrame, pd.DataFrame, list]:
    """The table by pattern and by a record per group (numbering refused), the steps
    one Python call at a time; the table of the small-table route (one compiled call,
    :func:`~xrr_accessor.diagnostics.item_patterns.pattern_rows`, which declines where
    the numbering does) is checked equal to the steps' table here."""
    routes: list = []
    real = item_patterns.by_pattern

    def spy(bags):
        got = real(bags)
        routes.append(got[0] is not None)
        return got

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one_call = xrr.item_disagreement(df, **kw)
        monkeypatch.setattr(items, "pattern_rows", lambda *args: None)
        monkeypatch.setattr(items, "by_pattern", spy)
        fast = xrr.item_disagreement(df, **kw)
        monkeypatch.setattr(items, "by_pattern", lambda bags: (None, bags, 0))
        slow = xrr.item_disagreement(df, **kw)
    pd.testing.assert_frame_equal(one_call, fast, check_exact=True)
    assert one_call.attrs == fast.attrs
    return fast, slow, routes


@pytest.mark.parametrize("level", ["interval", "nominal"])
@pytest.mark.parametrize(("seed", "reps"), [(0, 1), (1, 2), (2, 3)])
def test_the_table_by_pattern_equals_a_record_per_group(monkeypatch, level, seed, reps):
    df = _frame(np.random.default_rng(seed), 300, 5, reps)
    kw = {"level": level, "replication": "rep"} if reps > 1 else {"level": level}
    fast, slow, routes = _both(df.drop(columns="rep") if reps == 1 else df, monkeypatch,
                               **kw)
    assert routes == [True]
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast.attrs == slow.attrs


def test_labels_by_pattern_equal_a_record_per_group(monkeypatch):
    rng = np.random.default_rng(4)
    df = _frame(rng, 200, 4, 1).drop(columns="rep")
    df["other"] = rng.integers(0, 3, len(df)).astype(float)
    fast, slow, routes = _both(df, monkeypatch, labels=["score", "other"], level="interval")
    assert routes == [True, True]
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_past_the_table_of_patterns_a_record_per_group(monkeypatch):
    """8 categories and up to 12 ratings an item: more distinct patterns than a table
    holds, so the numbering declines and every group gets its record."""
    df = _frame(np.random.default_rng(5), 6000, 8, 1, most=12).drop(columns="rep")
    fast, slow, routes = _both(df, monkeypatch, level="nominal")
    assert routes == [False]
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


def test_many_distinct_d_by_pattern_sorted_after_all(monkeypatch):
    """Numbers with no common step: past the distinct D the placing counts, the rows of
    the patterns are gathered per group and sorted, still the same table."""
    calls: list = []
    real = items.ranked_groups
    monkeypatch.setattr(items, "ranked_groups", lambda *a: calls.append(1) or real(*a))
    values = np.sqrt(np.array([2.0, 3.0, 5.0, 7.0, 11.0, 13.0, 17.0, 19.0]))
    df = _frame(np.random.default_rng(6), 4000, 8, 1, values=values, most=7)
    fast, slow, routes = _both(df.drop(columns="rep"), monkeypatch, level="interval")
    # numbered, then sorted: in each of the three runs (the one-call route declines past
    # the distinct D it places, and the steps sort)
    assert routes == [True] and len(calls) == 3
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)


@pytest.mark.parametrize("size", [1e-300, 1e300, 4e307])
def test_numbers_near_the_ends_of_the_doubles(monkeypatch, size):
    values = np.array([0.0, 0.25, 0.5, 1.0]) * size
    df = _frame(np.random.default_rng(7), 200, 4, 1, values=values).drop(columns="rep")
    fast, slow, routes = _both(df, monkeypatch, level="interval")
    assert routes == [True]
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert np.isfinite(fast["mean"]).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(
    ["float", "int", "text", "object", "bool", "nullable", "category"]),
    reps=st.integers(1, 3), level=st.sampled_from(["interval", "nominal"]),
    ids=st.sampled_from(["int", "text"]))
def test_the_one_call_table_equals_the_steps_for_every_kind_of_value(
        seed, kind, reps, level, ids):
    """The small-table route (one compiled call) gives the steps' table exactly, for
    every kind of category (the modes' values: int64 and float64 bits, text, objects,
    booleans, nullable integers, categoricals), item ids as numbers or text (the index
    from ids or codes), one to three replications; the interval level only where the
    values are numbers."""
    if level == "interval" and kind in ("text", "object", "category"):
        return
    rng = np.random.default_rng(seed)
    df = _frame(rng, int(rng.integers(1, 40)), 4, reps)
    codes = df["score"].fillna(-1).astype(int).to_numpy()
    values = {"float": df["score"], "int": pd.Series(codes + 3, index=df.index),
              "text": pd.Series(np.array(list("abcd"))[codes], index=df.index).where(
                  codes >= 0).astype("str"),
              "object": pd.Series(np.array(["p", "q", "r", "s"], dtype=object)[codes],
                                  index=df.index).where(codes >= 0),
              "bool": pd.Series(codes % 2 == 0, index=df.index).astype(object).where(
                  codes >= 0).astype("boolean"),
              "nullable": pd.Series(codes, index=df.index).astype("Int64").where(codes >= 0),
              "category": pd.Series(pd.Categorical(np.array(list("wxyz"))[codes]),
                                    index=df.index).where(codes >= 0)}[kind]
    df = df.assign(score=values)
    if ids == "text":
        df = df.assign(item="i" + df["item"].astype(str))
    kw = {"level": level, **({"replication": "rep"} if reps > 1 else {})}
    data = df if reps > 1 else df.drop(columns="rep")
    _both(data, pytest.MonkeyPatch(), **kw)  # one call == steps, checked inside
