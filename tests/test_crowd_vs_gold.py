"""Crowd against a gold standard or an expert pool, and replications on different scales.

Real data: Snow et al. (2008), bundled as ``datasets.load_snow2008`` (provenance in
tests/data/README.md; the same files are in tests/data).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.datasets import load_snow2008
from xrr_accessor.errors import ScaleWarning, UndefinedWarning

from naive import alpha as naive_alpha
from naive import kappa_x as naive_kappa_x

DATA = Path(__file__).parent / "data"


def _units(frame: pd.DataFrame) -> dict:
    return frame.groupby("item_id")["response"].apply(list).to_dict()


@pytest.mark.parametrize("task", ["rte", "wsd", "anger"])
def test_load_snow2008_is_the_release(task):
    df = load_snow2008(task)
    raw = pd.read_csv(DATA / f"snow2008_{task}.csv", dtype={"item": str, "worker": str})
    crowd = df[df["pool"] == "crowd"]
    assert crowd["rater"].tolist() == raw["worker"].tolist()
    assert crowd["response"].tolist() == raw["response"].tolist()
    gold = df[df["pool"] == "expert"].set_index("item_id")["response"]
    assert gold.to_dict() == raw.drop_duplicates("item").set_index("item")["gold"].to_dict()
    with pytest.raises(ValueError, match="task="):
        load_snow2008("sentiment")


def test_crowd_against_one_expert_normalizes_by_the_crowd():
    df = load_snow2008("rte")
    crowd, expert = df[df["pool"] == "crowd"], df[df["pool"] == "expert"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)  # the expert's own IRR
        frame = df.xrr.report(reference="crowd").frame
    row = frame.set_index("statistic")
    kx = naive_kappa_x(_units(crowd), _units(expert))
    a = naive_alpha(_units(crowd))
    assert row.loc["kappa_x", "estimate"] == pytest.approx(kx, rel=1e-9)
    assert row.loc["normalized", "estimate"] == pytest.approx(kx / a, rel=1e-9)
    assert row.loc["normalized", "reference"] == "crowd"
    assert (row.loc["normalized", "replication"], row.loc["normalized",
                                                          "replication_other"]) == (
        "crowd", "expert")  # the header keeps the data's order, whichever is the reference


def test_one_rater_reference_says_what_to_read_instead():
    df = load_snow2008("wsd")
    with pytest.warns(UndefinedWarning) as record:
        value = df.xrr.normalized(reference="expert")
    assert np.isnan(float(value.iloc[0]))
    text = " ".join(str(w.message) for w in record)
    assert "expert has no item with two annotations" in text
    assert "reference='crowd'" in text
    # report() says it too (it used to leave normalized NaN without a word)
    with pytest.warns(UndefinedWarning) as record:
        df.xrr.report(reference="expert")
    assert any("normalized kappa_x is undefined" in str(w.message) for w in record)


def test_expert_pool_reference_is_kappa_x_over_the_pool_irr():
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, 150)
    rows = []
    for pool, raters, noise in (("crowd", 5, 0.5), ("experts", 2, 0.1)):
        for r in range(raters):
            flip = rng.random(150) < noise
            vals = np.where(flip, rng.integers(0, 3, 150), truth)
            rows.append(pd.DataFrame({"item_id": np.arange(150), "pool": pool,
                                      "rater": f"{pool}{r}", "response": vals}))
    df = pd.concat(rows, ignore_index=True)
    value = float(df.xrr.normalized(reference="experts").iloc[0])
    kx = naive_kappa_x(_units(df[df["pool"] == "crowd"]), _units(df[df["pool"] == "experts"]))
    assert value == pytest.approx(kx / naive_alpha(_units(df[df["pool"] == "experts"])),
                                  rel=1e-9)


def _binned(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(response=pd.cut(frame["response"], [-1, 33, 66, 100],
                                        labels=[1, 2, 3]).astype(int))


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_a_100_point_scale_against_a_3_point_one_warns(level):
    df = load_snow2008("anger")
    crowd = df[df["pool"] == "crowd"].drop(columns="pool")
    for x, y in ((crowd, _binned(crowd)), (_binned(crowd), crowd)):  # either side first
        with pytest.warns(ScaleWarning, match="different scales") as record:
            x.xrr.cross_kappa(y, level=level)
        assert len(record) == 1
    # recoded to one scale, the same comparison is quiet (XRRWarnings are errors here)
    xrr.cross_kappa(_binned(crowd), _binned(crowd.sample(frac=1.0, random_state=0)),
                    level=level)


def test_scale_warning_names_the_label_and_pair_once_per_call():
    df = load_snow2008("anger")
    crowd = df[df["pool"] == "crowd"].drop(columns="pool")
    both = pd.concat([crowd.assign(pool="raw"), _binned(crowd).assign(pool="binned")])
    wide = both.assign(other=both["response"]).rename(columns={"response": "anger"})
    with pytest.warns(ScaleWarning) as record:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedWarning)
            wide.xrr.report(level="nominal")  # the raw ratings as categories
    scale = [w for w in record if w.category is ScaleWarning]
    assert len(scale) == 1
    message = str(scale[0].message)
    assert "label 'anger', binned x raw" in message and "label 'other'" in message
    assert "of raw's paired annotations take" in message


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_replications_on_one_scale_never_warn(k, seed):
    # two noisy pools drawing from the same k categories: whatever the agreement, the
    # values are shared, so no ScaleWarning (an XRRWarning fails the test)
    rng = np.random.default_rng(seed)
    n = 40
    truth = rng.integers(0, k, n)
    frames = []
    for pool in ("a", "b"):
        for r in range(2):
            vals = np.where(rng.random(n) < 0.6, rng.integers(0, k, n), truth)
            frames.append(pd.DataFrame({"item": np.arange(n), "pool": pool,
                                        "rater": f"{pool}{r}", "v": vals}))
    df = pd.concat(frames, ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        warnings.simplefilter("error", ScaleWarning)
        for level in ("nominal", "interval"):
            df.xrr.cross_kappa(level=level)
        for metric in ("gwet", "bp"):  # q counts the one scale's categories
            df.xrr.irr(metric=metric)


def test_q_counting_coefficients_warn_when_a_pool_uses_few_of_the_labels_categories():
    """Gwet's and Brennan-Prediger's q counts every category of the label: a 3-point pool
    beside a 0-100 one gets q of the 0-100 scale. A ScaleWarning says which pool uses how
    many of q (counted here with pandas), once; alone, the pool has its own q and no
    warning; alpha and Fleiss do not depend on unused categories and stay quiet."""
    df = load_snow2008("anger")
    crowd = df[df["pool"] == "crowd"].drop(columns="pool")
    both = pd.concat([crowd.assign(pool="raw"), _binned(crowd).assign(pool="binned")])
    used = _binned(crowd)["response"].nunique()
    q = both["response"].nunique()
    for metric in ("gwet", "bp"):
        with pytest.warns(ScaleWarning, match=rf"^{metric} counts all q categories") as rec:
            shared = both.xrr.irr(metric=metric, weights="unweighted")
        message = str(rec[0].message)
        assert len(rec) == 1 and f"binned uses {used} of {q}" in message, message
        assert "raw uses" not in message  # the 0-100 pool uses most of q
        with warnings.catch_warnings():
            warnings.simplefilter("error", ScaleWarning)
            alone = float(np.ravel(_binned(crowd).xrr.irr(metric=metric,
                                                          weights="unweighted"))[0])
        assert alone != pytest.approx(float(shared.loc["binned"]), abs=1e-3)
    with pytest.warns(ScaleWarning, match=r"^bp and gwet count all q") as rec:
        xrr.agreement_table(both)
    assert len([w for w in rec if w.category is ScaleWarning]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScaleWarning)
        both.xrr.irr(metric="fleiss")
        both.xrr.irr()


def test_one_value_a_pool_never_uses_is_not_another_scale():
    # pool b never says 1 where pool a mostly does: poor agreement, not a second scale
    n = 60
    a = pd.DataFrame({"item": np.repeat(np.arange(n), 2), "pool": "a",
                      "rater": ["r1", "r2"] * n, "v": (np.arange(2 * n) % 5 != 0).astype(int)})
    b = a.assign(pool="b", v=0, rater=["r3", "r4"] * n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ScaleWarning)
        pd.concat([a, b]).xrr.cross_kappa()
