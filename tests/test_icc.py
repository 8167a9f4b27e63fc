"""Intraclass correlations: naive ANOVA (tests/naive.py), Shrout & Fleiss (1979), pingouin."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor
from xrr_accessor.errors import InputError

import naive

FORMS = ["1,1", "2,1", "3,1", "1,k", "2,k", "3,k"]

# Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges, and their Table 4
# ICC(1,1)=0.17, ICC(2,1)=0.29, ICC(3,1)=0.71, ICC(1,4)=0.44, ICC(2,4)=0.62, ICC(3,4)=0.91.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
                          [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)
PUBLISHED = {"1,1": 0.17, "2,1": 0.29, "3,1": 0.71, "1,k": 0.44, "2,k": 0.62, "3,k": 0.91}


@pytest.mark.parametrize("form", FORMS)
def test_shrout_fleiss_1979(form):
    got = pd.DataFrame(SHROUT_FLEISS).xrr(wide=True).irr(metric="icc", form=form)
    assert round(got, 2) == PUBLISHED[form]
    assert got == pytest.approx(naive.icc(SHROUT_FLEISS, form), abs=1e-12)


@st.composite
def ratings(draw):
    n, k = draw(st.integers(3, 30)), draw(st.integers(2, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    target = rng.normal(0, draw(st.floats(0.1, 3)), size=(n, 1))
    bias = rng.normal(0, 1, size=(1, k))
    return np.round(50 + target + bias + rng.normal(0, 1, size=(n, k)), 2)


@given(x=ratings())
def test_equals_naive_and_pingouin(x):
    n, k = x.shape
    long = pd.DataFrame({"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n),
                         "value": x.reshape(-1)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's own pandas deprecation notices
        ref = pg.intraclass_corr(long, targets="item", raters="rater", ratings="value")
    ci_col = next(c for c in ref.columns if c.startswith("CI"))
    for form in FORMS:
        got = long.xrr.irr(metric="icc", form=form, ci=0.95)
        # rel too: ICC(2,k) of near-degenerate draws reaches hundreds (denominator near 0)
        assert got["estimate"] == pytest.approx(naive.icc(x, form), rel=1e-9, abs=1e-9)
        row = ref.iloc[FORMS.index(form)]  # pingouin's rows: 1, A (2), C (3); then k
        assert got["estimate"] == pytest.approx(row["ICC"], rel=1e-9, abs=1e-9)
        assert got["F"] == pytest.approx(row["F"], rel=1e-9)
        assert got["p_value"] == pytest.approx(row["pval"], abs=1e-9)
        lower, upper = row[ci_col]
        if lower <= upper:  # see test_icc_2k_interval_below_spearman_brown_domain
            assert got["lower"] == pytest.approx(lower, abs=0.005 + 1e-9)  # pingouin rounds
            assert got["upper"] == pytest.approx(upper, abs=0.005 + 1e-9)


def test_icc_2k_interval_below_spearman_brown_domain():
    """Documented difference: when ICC(2,1)'s lower limit is below -1/(k-1) the
    Spearman-Brown step flips sign; pingouin 0.7 then prints [10.19, 0.97]; the
    lower limit of ICC(2,k) is unbounded, -inf."""
    x = np.array([[50.59, 50.89], [50.92, 48.63], [49.48, 49.48]])
    out = pd.DataFrame(x).xrr(wide=True).irr(metric="icc", form="2,k", ci=0.95)
    single = pd.DataFrame(x).xrr(wide=True).irr(metric="icc", form="2,1", ci=0.95)
    assert single["lower"] < -1.0
    assert out["lower"] == -np.inf
    assert out["upper"] == pytest.approx(0.97, abs=0.005)


def test_icc_forms_parse_and_errors():
    acc = pd.DataFrame(SHROUT_FLEISS).xrr(wide=True)
    for spelling in ("ICC(2,1)", "2,1", "ICC2", "icc2"):
        assert acc.irr(metric="icc", form=spelling) == pytest.approx(0.2898, abs=1e-4)
    for spelling in ("ICC(3,4)", "3,k", "ICC3k"):
        assert acc.irr(metric="icc", form=spelling) == pytest.approx(0.9093, abs=1e-4)
    with pytest.raises(InputError, match="unknown ICC form"):
        acc.irr(metric="icc", form="4,1")
    with pytest.raises(InputError, match="goes with metric='icc'"):
        acc.irr(metric="alpha", form="2,1")
    with pytest.raises(InputError, match="interval numbers"):
        acc.irr(metric="icc", level="ordinal")
    holes = SHROUT_FLEISS.copy()
    holes[2, 1] = np.nan
    with pytest.warns(xrr_accessor.UndefinedWarning,
                      match=r"1 item\(s\).*lack a rating.*dropna.*'alpha'"):
        assert np.isnan(pd.DataFrame(holes).xrr(wide=True).irr(metric="icc", form="2,1"))


def test_icc_missing_cell_makes_only_its_label_nan():
    """ICC(2,1): one label with a missing rating is NaN with a warning; the others are
    computed. (Without form=, a missing rating makes the call one-way: every label.)"""
    full = pd.DataFrame(SHROUT_FLEISS, columns=["j1", "j2", "j3", "j4"])
    long = full.rename_axis("item").reset_index().melt("item", var_name="rater",
                                                         value_name="a")
    long["b"] = long["a"]
    long.loc[5, "b"] = np.nan
    with pytest.warns(xrr_accessor.UndefinedWarning, match=r"label 'b'.*1 item\(s\)"):
        out = long.xrr.irr(metric="icc", form="2,1")
    assert out["a"] == pytest.approx(0.2898, abs=1e-4)
    assert np.isnan(out["b"])
    assert out.attrs["n_incomplete"] == {"a": 0, "b": 1}
    words = pd.DataFrame({"a": ["x", "y", "z"], "b": ["x", "y", "y"]})
    with pytest.raises(xrr_accessor.LevelError, match=r"pd\.to_numeric"):
        words.xrr(wide=True).irr(metric="icc")
