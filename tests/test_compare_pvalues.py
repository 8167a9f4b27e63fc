"""compare(): the p-value and the interval of a row come from the same method.

p < 1 - ci exactly when the row's interval excludes 0, for BCa and percentile
intervals, at several confidence levels, for every row; and p_value() checked
against a brute-force search over ci with limits().
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import UndefinedWarning
from xrr_accessor.uncertainty.intervals import limits, p_value


def _compare(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        return xrr.compare(df, **kw)


@pytest.fixture(scope="module")
def pools():
    return simulate(n_items=250, labels=["joy", "awe", "fear"], pools=["A", "B", "C"],
                    seed=11)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_p_below_alpha_exactly_when_the_interval_excludes_0(pools, interval):
    ps = None
    checked = {True: 0, False: 0}
    for ci in (0.8, 0.9, 0.95, 0.99):
        out = _compare(pools, n_boot=400, seed=2, interval=interval, ci=ci)
        if ps is None:
            ps = out["p_value"].to_numpy()
        # the p-value does not depend on ci; the interval does
        np.testing.assert_array_equal(out["p_value"].to_numpy(), ps)
        for r in out.itertuples():
            excludes = bool(r.lower > 0 or r.upper < 0)
            assert (r.p_value < 1 - ci) == excludes, (ci, r)
            checked[excludes] += 1
    assert checked[True] > 10 and checked[False] > 10  # both sides of the rule seen


def test_issue_21_hindi_pattern_cannot_recur(pools):
    """Hindi: BCa interval [-0.918, -0.064] with p = 0.064 (a percentile p-value)."""
    out = _compare(pools, n_boot=400, seed=2, interval="bca", ci=0.95)
    excl = out[(out["upper"] < 0) | (out["lower"] > 0)]
    incl = out[(out["upper"] >= 0) & (out["lower"] <= 0)]
    assert len(excl) and len(incl)
    assert (excl["p_value"] < 0.05).all() and (incl["p_value"] >= 0.05).all()


def _brute(est, boot, jack, interval, null):
    """The smallest 1 - ci (on a fine grid, then bisection) excluding ``null``."""
    def excluded(alpha):
        lo, hi = limits(est, boot, 1 - alpha, interval, jack)
        return bool(lo[0, 0] > null or hi[0, 0] < null)
    a, b = 1e-9, 1.0 - 1e-9
    if excluded(a):
        return 0.0
    if not excluded(b):
        return 1.0
    for _ in range(60):
        m = (a + b) / 2
        a, b = (a, m) if excluded(m) else (m, b)
    return b


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(-1.5, 1.5),
       interval=st.sampled_from(["bca", "percentile"]))
def test_p_value_is_the_inverted_interval(seed, shift, interval):
    rng = np.random.default_rng(seed)
    boot = (rng.gamma(2.0, 0.3, size=(199, 1, 1)) + shift).round(3)  # skewed, with ties
    est = np.array([[np.median(boot) + 0.05]])
    jack = rng.normal(0.0, 0.2, size=(30, 1, 1)) ** 3
    p = p_value(boot, 0.0, interval, est, jack)[0, 0]
    assert p == pytest.approx(_brute(est, boot, jack, interval, 0.0), abs=1e-6)


def test_readme_compare_table_is_what_compare_gives():
    """README's sadness table: the numbers and the p-values a reader sees."""
    import re
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    rows = re.findall(r"^\| (IRR Budapest - IRR Mexico City|kappa_x - IRR \w+(?: City)?|"
                      r"normalized kappa_x - 1) \| ([-\d.]+) \| ([\d.]+) \| \[([-\d.]+), "
                      r"([-\d.]+)\] \| (<?[\d.]+) \|$", readme, flags=re.M)
    assert len(rows) == 4
    df = xrr.datasets.load_demo()
    out = _compare(df, irr="cohen", seed=0, progress=False)
    part = out[(out["label"] == "sadness") & (out["replication"] == "Budapest")
               & (out["replication_other"] == "Mexico City")]
    for (_, est, se, lo, hi, p), r in zip(rows, part.itertuples(), strict=True):
        assert (est, se, lo, hi) == (f"{r.estimate:.3f}", f"{r.se:.3f}", f"{r.lower:.3f}",
                                     f"{r.upper:.3f}")
        assert p == ("<0.001" if r.p_value < 0.001 else f"{r.p_value:.3f}")


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_pools_with_no_shared_item_give_nan_rows_and_say_why(interval):
    """Found by a new-user trial (MD-Agreement's domains hold disjoint items): compare()
    stopped with a broadcasting error; the rows that need kappa_x are NaN, with the
    reason, and irr_x - irr_y is still estimated with its interval."""
    rng = np.random.default_rng(0)
    rows = [(f"{p}{i}", r, p, int(rng.integers(0, 2))) for p in "AB" for i in range(30)
            for r in "abc"]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "joy"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = xrr.compare(df, n_boot=30, seed=0, interval=interval)
    by = out.set_index("comparison")
    irr = xrr.irr(df)
    assert by.loc["irr_x - irr_y", "estimate"] == pytest.approx(irr["A"] - irr["B"], abs=1e-12)
    assert np.isfinite(by.loc["irr_x - irr_y", ["lower", "upper", "p_value"]]).all()
    for name in ("kappa_x - irr_x", "kappa_x - irr_y", "normalized - 1"):
        assert by.loc[name, ["estimate", "lower", "upper", "p_value"]].isna().all()
    said = " ".join(str(w.message) for w in caught)
    assert "no item is annotated in both replications" in said
