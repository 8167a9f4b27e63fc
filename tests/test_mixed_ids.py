"""Ids of different types that print the same (``1`` and ``"1"``) are refused (issue 25).

Every output shows ids as text: the HTML showed one column for two
replications and dropped one's IRR, ``wide()`` failed with "Index contains
duplicate entries". The shared reader (schema/) refuses them with an
InputError naming the column and the fix, for every entry point.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor as xa
from xrr_accessor.datasets import simulate


@pytest.fixture
def mixed() -> pd.DataFrame:
    df = simulate(n_items=40, labels=["joy"], pools=["A", "B"], seed=1)
    df["pool"] = df["pool"].map({"A": 1, "B": "1"}).astype(object)
    return df


ENTRY_POINTS = {
    "irr": lambda d: xa.irr(d, replication="pool"),
    "cross_kappa": lambda d: xa.cross_kappa(d, replication="pool"),
    "report": lambda d: xa.report(d, replication="pool"),
    "summary": lambda d: xa.summary(d, replication="pool"),
    "accessor": lambda d: d.xrr(replication="pool").report(),
    "rater_agreement": lambda d: xa.rater_agreement(d, replication="pool"),
    "item_disagreement": lambda d: xa.item_disagreement(d, level="nominal",
                                                        replication="pool"),
    "to_xarray": lambda d: xa.to_xarray(d, replication="pool"),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_replications_1_and_text_1_are_refused_naming_the_column(mixed, entry):
    before = copy.deepcopy(mixed)
    with pytest.raises(xa.InputError, match=r"column 'pool'.*\(1 and '1'\).*"
                       r"df\['pool'\] = df\['pool'\]\.astype\(str\)"):
        ENTRY_POINTS[entry](mixed)
    pd.testing.assert_frame_equal(mixed, before)


def test_after_the_fix_both_replications_are_shown(mixed):
    fixed = mixed.assign(pool=mixed["pool"].map(lambda v: "text 1" if isinstance(v, str)
                                                 else "number 1"))  # distinct names
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        rep = xa.report(fixed, replication="pool")
    assert rep.wide().shape == (1, 4)  # two IRRs, kappa_x, normalized
    assert len(rep.to_markdown().splitlines()[0].split(" | ")) == 5
    assert rep.frame.loc[rep.frame["statistic"] == "irr", "replication"].tolist() == [
        "number 1", "text 1"]


@pytest.mark.parametrize("role", ["rater", "item_id"])
def test_other_roles_are_checked_too(role):
    df = simulate(n_items=20, labels=["joy"], pools=["A", "B"], seed=2)
    values = df[role].astype(object).to_numpy().copy()
    first = values[0]
    values[values == first] = 1
    values[1] = "1"
    df[role] = pd.Series(values, dtype=object)
    with pytest.raises(xa.InputError, match=f"column '{role}'.*astype"):
        xa.irr(df, replication="pool")


def test_label_column_names_1_and_text_1():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       1: [1, 0, 1, 1, 0, 0], "1": [0, 0, 1, 1, 0, 1]})
    with pytest.raises(xa.InputError, match=r"label columns.*df\.columns\.astype\(str\)"):
        xa.irr(df)


def test_long_label_column():
    df = pd.DataFrame({"item": [1, 1, 2, 2] * 2, "rater": ["a", "b"] * 4,
                       "label": pd.Series([1] * 4 + ["1"] * 4, dtype=object),
                       "value": [1, 0, 1, 1, 0, 0, 1, 1]})
    with pytest.raises(xa.InputError, match="column 'label'"):
        xa.irr(df)


def test_wide_frame_rater_columns():
    df = pd.DataFrame({1: [1, 0, 1, 1], "1": [1, 0, 0, 1]})
    with pytest.raises(xa.InputError, match=r"columns \(raters\) of the wide frame"):
        xa.irr(df, wide=True)


def test_xarray_coordinates():
    da = xr.DataArray(np.array([[[1, 0], [1, 1]], [[0, 0], [1, 0]], [[1, 1], [0, 1]]]),
                      dims=("item", "rater", "replication"),
                      coords={"replication": np.array([1, "1"], dtype=object)})
    with pytest.raises(xa.InputError, match=r"dimension 'replication'.*astype"):
        xa.irr(da)


def test_same_type_ids_are_untouched():
    df = simulate(n_items=20, labels=["joy"], pools=["A", "B"], seed=2)
    df["pool"] = df["pool"].map({"A": 1, "B": 2})
    assert xa.irr(df, replication="pool").shape == (1, 2)
