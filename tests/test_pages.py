"""What a new-user trial found on the report pages and tables (trial 3): every sentence
and figure is checked against the numbers it describes."""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def test_agreement_rows_without_an_interval_say_where_it_is(weights):
    """Scott's pi and Light's kappa have no analytic interval: their blank se/lower/
    upper are said in ``reason``, and the call it names runs and gives one."""
    df = simulate(n_items=200, labels=["joy"], pools=["A"], seed=1)
    table = _quiet(xa.agreement_table, df, ci=0.9, weights=weights)
    blank = table["lower"].isna() & np.isfinite(table["estimate"])
    assert set(table.index.get_level_values("metric")[blank]) == {"scott", "light"}
    assert (table.loc[~blank, "reason"] == "").all()
    for (_, _, metric), row in table[blank].iterrows():
        call = re.fullmatch(r"no analytic interval for (\w+); (irr\(data, .*\)) gives a "
                            r"bootstrap one", row["reason"])
        assert call is not None and call[1] == metric
        irr = functools.partial(xa.irr, n_boot=200, seed=1)  # the call as printed
        got = _quiet(eval, call[2], {"irr": irr, "data": df})
        est = got.iloc[0]
        assert est["estimate"] == pytest.approx(row["estimate"], abs=1e-12)
        assert est["lower"] < row["estimate"] < est["upper"]
    assert (_quiet(xa.agreement_table, df, weights=weights)["reason"] == "").all()
