"""The short cuts of issue 35's second overhead pass give what the general way gives.

* alpha of one label in one replication finalized in Python floats
  (:func:`~xrr_accessor.coefficients.alpha._one_cell`) equals the general finalize
  (value to the last bit, counts, reasons) at every level, with missing values and in
  the undefined cases, and equals alpha written from the formula here;
* a :class:`~xrr_accessor.engine.additive.Meta`'s shapes and statistics size, found
  once, are those computed afresh (and each caller gets its own dict);
* the repeat check's key space as Python integers equals numpy's object product.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xrr_accessor.coefficients import alpha as alpha_mod
from xrr_accessor.coefficients import lookup
from xrr_accessor.engine.pipeline import run

ALPHA = lookup("alpha")


def _frame(values: list[float | None], n_raters: int) -> pd.DataFrame:
    n_items = len(values) // n_raters
    return pd.DataFrame({"item": np.repeat(np.arange(n_items), n_raters),
                         "rater": np.tile(np.arange(n_raters), n_items),
                         "value": np.array(values[:n_items * n_raters], dtype=float)})


def _both(df: pd.DataFrame, level: str, monkeypatch: pytest.MonkeyPatch):
    stats_run = run(df, [ALPHA], level=level)
    taken = []
    real = alpha_mod._one_cell

    def spy(*args):
        got = real(*args)
        taken.append(got is not None)
        return got

    monkeypatch.setattr(alpha_mod, "_one_cell", spy)
    fast = alpha_mod.alpha(stats_run.stats, stats_run.ctx)
    monkeypatch.setattr(alpha_mod, "_one_cell", lambda *args: None)
    slow = alpha_mod.alpha(stats_run.stats, stats_run.ctx)
    return fast, slow, taken


def _same(fast, slow) -> None:
    np.testing.assert_array_equal(fast.value, slow.value)  # NaN where NaN, else every bit
    assert fast.value.dtype == slow.value.dtype and fast.value.shape == slow.value.shape
    assert fast.reason.dtype == slow.reason.dtype and fast.reason.tolist() == slow.reason.tolist()
    assert list(fast.counts) == list(slow.counts)
    for name in slow.counts:
        np.testing.assert_array_equal(fast.counts[name], slow.counts[name])
        assert fast.counts[name].dtype == slow.counts[name].dtype
    assert fast.extras == slow.extras


def _naive_alpha(df: pd.DataFrame, level: str) -> float:
    """Krippendorff's alpha from its definition: pairable values, every ordered pair of an
    item's values weighted 1 / (m - 1), D nominal, ordinal (ranks over the pairable
    values) or interval."""
    groups = [g.dropna().to_numpy() for _, g in df.groupby("item")["value"]]
    groups = [g for g in groups if len(g) >= 2]
    values = np.concatenate(groups) if groups else np.zeros(0)
    cats, counts = np.unique(values, return_counts=True)

    def d(a: float, b: float) -> float:
        if level == "nominal":
            return float(a != b)
        if level == "interval":
            return (a - b) ** 2
        i, j = sorted((np.searchsorted(cats, a), np.searchsorted(cats, b)))
        return (counts[i:j + 1].sum() - (counts[i] + counts[j]) / 2) ** 2

    n = len(values)
    observed = sum(d(a, b) / (len(g) - 1) for g in groups
                   for x, a in enumerate(g) for y, b in enumerate(g) if x != y)
    expected = sum(d(a, b) for a, b in itertools.product(values, values))
    return 1 - (n - 1) * observed / expected


@settings(max_examples=25, deadline=None)
@given(level=st.sampled_from(["nominal", "ordinal", "interval"]),
       n_raters=st.integers(2, 4),
       values=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=4, max_size=24))
def test_alpha_of_one_cell_equals_the_general_finalize(level, n_raters, values):
    df = _frame([np.nan if v is None else v for v in values], n_raters)
    with pytest.MonkeyPatch.context() as mp:
        fast, slow, taken = _both(df, level, mp)
    assert taken == [True]
    _same(fast, slow)
    if not fast.reason[0, 0]:
        assert fast.value[0, 0] == pytest.approx(_naive_alpha(df, level), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_of_one_cell_equals_the_general_finalize_to_the_bit(seed, level, monkeypatch):
    # fractions and many distinct sums: a rounding done in another order shows here
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 3, 60).round(1) if level == "interval" else rng.integers(0, 7, 60)
    values = np.where(rng.random(60) < 0.2, np.nan, values)
    fast, slow, taken = _both(_frame(list(values), 3), level, monkeypatch)
    assert taken == [True]
    _same(fast, slow)


@pytest.mark.parametrize("values, reason", [
    ([1, np.nan, 2, np.nan, 3, np.nan], "no item has two or more annotations"),
    ([2, 2, 2, 2, 2, 2], "every pairable annotation has the same value"),
])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_alpha_of_one_cell_says_why_it_is_undefined_as_the_general_way(values, reason, level,
                                                                       monkeypatch):
    fast, slow, taken = _both(_frame(values, 2), level, monkeypatch)
    assert taken == [True]
    _same(fast, slow)
    assert np.isnan(fast.value[0, 0]) and fast.reason[0, 0].startswith(reason)


def test_alpha_of_one_cell_takes_the_rounding_rule_of_numbers(monkeypatch):
    # a constant far from 0 whose sums of squares leave rounding: undefined by scale
    fast, slow, taken = _both(_frame([1e8 + 0.1] * 6, 2), "interval", monkeypatch)
    assert taken == [True]
    _same(fast, slow)


def test_alpha_of_several_cells_takes_the_general_way(monkeypatch):
    df = _frame([0, 1, 1, 1, 2, 2, 0, 0], 2)
    df["other"] = df["value"][::-1].to_numpy()
    result = run(df, [ALPHA], level="nominal", labels=["value", "other"])
    monkeypatch.setattr(alpha_mod, "_one_cell", lambda *a: pytest.fail("taken"))
    est = alpha_mod.alpha(result.stats, result.ctx)
    assert est.value.shape == (2, 1)
    for j, column in enumerate(["value", "other"]):
        assert est.value[j, 0] == pytest.approx(_naive_alpha(
            df[["item", "rater"]].assign(value=df[column]), "nominal"))


def test_alpha_of_one_cell_with_a_sum_not_finite_takes_the_general_way():
    sums = alpha_mod.WithinSums(np.array([[np.inf]]), np.array([[1.0]]),
                                np.array([[4.0]]), None)
    assert alpha_mod._one_cell(np.array([[[0.0, 0.0, 2.0]]]), sums) is None
