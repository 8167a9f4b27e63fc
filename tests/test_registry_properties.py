"""Invariance properties of every registry entry, as scikit-learn's common tests run one
check over every estimator: a coefficient must not change when the rows are shuffled,
when items, raters or (nominal) categories are renamed by a one-to-one map, or when an
item with no annotation is added. The entries are read from the registry at collection
time, so a newly registered coefficient is checked without a new test.

(Bootstrap replicates equal a naive bootstrap for every entry in test_bootstrap.py;
dask equals in memory for every entry in test_dask.py.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xrr_accessor.coefficients import REGISTRY, Coefficient
from xrr_accessor.engine import pipeline

from helpers import annotation_frames

ENTRIES = [e.name for e in REGISTRY.values()]


def _estimate(entry: Coefficient, df: pd.DataFrame) -> np.ndarray:
    """The entry's values per (label, cell) in a canonical cell order (sorted names)."""
    level = "interval" if entry.levels == ("interval",) else "nominal"
    params: dict = {}
    if "form" in entry.params:
        params["form"] = "2,1"
    if entry.name == "normalized_kappa_x":
        params["irr"] = "alpha"
    lvl = pipeline.entry_level(entry, level, None) if entry.kind == "irr" else level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = pipeline.run(df, [entry], level=lvl, replication="pool")
        value = run.estimate(entry, **params).value
    cells = run.cells(entry)
    order = np.argsort([str(c) for c in cells])
    return value[:, order]


def _frames(entry_name: str):
    entry = REGISTRY[entry_name]
    kw = {"min_reps": 2} if entry.kind == "cross" else {}
    if entry.max_raters is not None:
        kw["max_raters"] = entry.max_raters
    return annotation_frames(**kw)


def _check(entry_name: str, df: pd.DataFrame, changed: pd.DataFrame) -> None:
    entry = REGISTRY[entry_name]
    np.testing.assert_allclose(_estimate(entry, changed), _estimate(entry, df),
                               rtol=1e-9, atol=1e-12, equal_nan=True)


def _bijection(values: pd.Series, seed: int, prefix: str) -> pd.Series:
    """``values`` renamed one-to-one to shuffled new names."""
    uniq = pd.unique(values)
    new = np.random.default_rng(seed).permutation(len(uniq))
    return values.map(dict(zip(uniq, [f"{prefix}{i}" for i in new], strict=True)))


@pytest.mark.parametrize("name", ENTRIES)
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_rows_in_any_order(name, data, seed):
    df = data.draw(_frames(name))
    shuffled = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    _check(name, df, shuffled)


@pytest.mark.parametrize("name", ENTRIES)
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_items_renamed(name, data, seed):
    df = data.draw(_frames(name))
    _check(name, df, df.assign(item=_bijection(df["item"], seed, "item ")))


@pytest.mark.parametrize("name", ENTRIES)
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_raters_renamed(name, data, seed):
    df = data.draw(_frames(name))
    _check(name, df, df.assign(rater=_bijection(df["rater"], seed, "annotator ")))


@pytest.mark.parametrize("name", [n for n in ENTRIES if REGISTRY[n].levels != ("interval",)])
@settings(max_examples=15, deadline=None)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_nominal_categories_renamed(name, data, seed):
    df = data.draw(_frames(name))
    _check(name, df, df.assign(value=_bijection(df["value"], seed, "category ")))


@pytest.mark.parametrize("name", ENTRIES)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_an_item_without_annotations_changes_nothing(name, data):
    df = data.draw(_frames(name))
    empty = df.iloc[:1].assign(item=-1, value=np.nan)  # an item whose one cell is missing
    _check(name, df, pd.concat([df, empty], ignore_index=True))
