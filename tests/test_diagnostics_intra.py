"""Intra-rater kappa_x across sessions and the AAD distributions (SPEC section 6).

Against naive loops written here (kappa_x of each rater's two sessions from
tests/naive.py; |x - y| of every pair counted by hand), and on real repeated
annotations: ConvAbuse (Cercas Curry, Abercrombie & Rieser 2021), whose
released file holds each rater's repeat annotations of an item (tests/data,
CC BY 4.0; provenance in tests/data/README.md).
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.errors import InputError, RoleError, UndefinedWarning

from helpers import annotation_frames, assert_close_or_both_nan, quietly
from naive import kappa_x as naive_kappa_x

DATA = Path(__file__).parent / "data"
LEVELS = ["nominal", "interval", "ordinal", "ratio"]


def _aad(level: str, cats: list):
    rank = {c: k for k, c in enumerate(sorted(cats))}
    if level == "nominal":
        return lambda a, b: float(a != b)
    if level == "ordinal":
        return lambda a, b: float(abs(rank[a] - rank[b]))
    return lambda a, b: abs(a - b)


def naive_intra(df: pd.DataFrame, level: str) -> tuple[dict, dict, Counter, Counter]:
    """Per (rater, s, t) and pooled per (s, t): kappa_x, counts; AAD counters."""
    sessions = sorted(df["session"].unique())
    aad = _aad(level, list(df["value"].unique()))
    per, pooled, intra_aad, inter_aad = {}, {}, Counter(), Counter()
    for s, t in combinations(sessions, 2):
        px, py = {}, {}
        for rater, g in df.groupby("rater"):
            x = {i: [v] for i, v in zip(g.loc[g.session == s, "item"],
                                        g.loc[g.session == s, "value"], strict=True)}
            y = {i: [v] for i, v in zip(g.loc[g.session == t, "item"],
                                        g.loc[g.session == t, "value"], strict=True)}
            if not x or not y:
                continue
            shared = [i for i in x if i in y]
            per[(rater, s, t)] = {"kappa_x": naive_kappa_x(x, y, level),
                                  "n_items": len(shared),
                                  "n_unpairable": len(x) + len(y) - 2 * len(shared)}
            for i in shared:
                intra_aad[(rater, s, t, aad(x[i][0], y[i][0]))] += 1
                px[(i, rater)], py[(i, rater)] = x[i], y[i]
        if set(px) & set(py):
            pooled[(s, t)] = naive_kappa_x(px, py, level)
    for (s, _), g in df.groupby(["session", "item"]):
        for (ra, va), (rb, vb) in combinations(zip(g["rater"], g["value"], strict=True), 2):
            inter_aad[(s, frozenset((ra, rb)), aad(va, vb))] += 1
    return per, pooled, intra_aad, inter_aad


def _sessions(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns={"pool": "session"})


@given(df=annotation_frames(max_items=8, max_raters=4, max_reps=3, min_reps=2),
       level=st.sampled_from(LEVELS))
def test_intra_equals_naive(df, level):
    df = _sessions(df)
    if df["session"].nunique() < 2:
        return
    shuffled = df.sample(frac=1.0, random_state=len(df))  # sessions in any row order
    got, _ = quietly(xrr.intra, shuffled, session="session", level=level)
    per, pooled, intra_aad, inter_aad = naive_intra(df, level)
    assert len(got.kappa) == len(per)
    for (rater, s, t), row in got.kappa.iterrows():
        ref = per[(rater, s, t)]
        assert_close_or_both_nan(row["kappa_x"], ref["kappa_x"])
        assert (row["n_items"], row["n_unpairable"]) == (ref["n_items"], ref["n_unpairable"])
    assert {k: v for k, v in pooled.items()}.keys() == set(got.pooled.index)
    for (s, t), row in got.pooled.iterrows():
        assert_close_or_both_nan(row["kappa_x"], pooled[(s, t)])
    mine = {(r, s, t, a): n for (r, s, t, a), n in got.aad_intra["n"].items()}
    assert mine == pytest.approx(dict(intra_aad))
    theirs = {(s, frozenset((a, b)), d): n for (s, a, b, d), n in got.aad_inter["n"].items()}
    assert theirs == pytest.approx(dict(inter_aad))
    shares = got.aad_inter["share"].groupby(level=["session", "rater", "rater_other"]).sum()
    np.testing.assert_allclose(shares, 1.0)


@pytest.mark.parametrize("level", LEVELS)
def test_intra_matches_cross_kappa_per_rater_and_pooled(level):
    """A rater's two sessions are two replications of one rater: the library's kappa_x,
    and the pooled row is the same with (item, rater) as the item."""
    rng = np.random.default_rng(3)
    rows = [(i, r, s, int(rng.integers(1, 6))) for r in ("a", "b") for s in (1, 2, 3)
            for i in range(30) if rng.random() < 0.8]
    df = pd.DataFrame(rows, columns=["item", "rater", "round", "score"])
    out = xrr.intra(df, session="round", level=level)
    for (_, rater, s, t), row in out.kappa.iterrows():
        sub = df[(df.rater == rater) & df["round"].isin([s, t])]
        want = xrr.cross_kappa(sub, replication="round", level=level)
        assert row["kappa_x"] == pytest.approx(float(want.iloc[0, 0]), abs=1e-10)
    for (_, s, t), row in out.pooled.iterrows():
        sub = df[df["round"].isin([s, t])].assign(
            unit=lambda d: d["item"].astype(str) + "/" + d["rater"], rater="one")
        want = xrr.cross_kappa(sub.drop(columns="item"), item="unit", replication="round",
                               level=level)
        assert row["kappa_x"] == pytest.approx(float(want.iloc[0, 0]), abs=1e-10)
    assert out.attrs["session"] == "round"


def test_convabuse_repeated_annotations():
    """Real repeats: ConvAbuse's raters re-annotated 485 (item, rater) pairs."""
    df = pd.read_csv(DATA / "convabuse_repeats.csv")
    out = quietly(xrr.intra, df, session="repeat", level="ordinal")[0]
    first = df[df.repeat == 0].set_index(["item", "rater"])["severity"]
    again = df[df.repeat == 1].set_index(["item", "rater"])["severity"]
    both = pd.concat([first, again], axis=1, join="inner", keys=["s", "t"])
    row = out.pooled.loc[("severity", 0, 1)]
    assert row["n_items"] == len(both) == 485
    assert row["agreement"] == pytest.approx((both.s == both.t).mean())
    assert row["kappa_x"] > 0.8  # trained annotators repeat themselves
    for rater in ("Annotator3", "Annotator7"):
        g = both.xs(rater, level="rater")
        x = {i: [v] for i, v in g["s"].items()}
        y = {i: [v] for i, v in g["t"].items()}
        assert out.kappa.loc[("severity", rater, 0, 1), "kappa_x"] == pytest.approx(
            naive_kappa_x(x, y, "ordinal"), abs=1e-10)
    steps = out.aad_intra.xs(("severity", "Annotator4", 0, 1),
                             level=["label", "rater", "session", "session_other"])
    g = both.xs("Annotator4", level="rater")
    ranks = {v: k for k, v in enumerate(sorted(df.severity.unique()))}
    want = Counter(abs(ranks[a] - ranks[b]) for a, b in zip(g.s, g.t, strict=True))
    assert steps["n"].to_dict() == {float(k): v for k, v in want.items()}


def test_xarray_sessions_as_a_dimension():
    rng = np.random.default_rng(8)
    df = pd.DataFrame([(i, r, s, int(rng.integers(0, 3))) for i in range(12)
                       for r in ("a", "b", "c") for s in ("s1", "s2")],
                      columns=["item", "rater", "session", "joy"])
    ds = df.xrr(replication="session").to_xarray().rename({"replication": "session"})
    from_ds = quietly(xrr.intra, ds, session="session")[0]
    from_df = quietly(lambda: df.xrr.intra(session="session"))[0]
    assert isinstance(from_ds.kappa, type(ds))
    for rater in ("a", "b", "c"):
        assert float(from_ds.kappa["kappa_x"].sel(label="joy", rater=rater, session="s1",
                                                  session_other="s2")) == pytest.approx(
            from_df.kappa.loc[("joy", rater, "s1", "s2"), "kappa_x"])


def test_session_errors_name_the_fix():
    df = pd.DataFrame({"item": [1, 2, 1, 2], "rater": ["a"] * 4, "round": [1, 1, 2, 2],
                       "joy": [0, 1, 0, 1]})
    with pytest.raises(RoleError, match=r"session='rnd' is not a column.*'round'"):
        xrr.intra(df, session="rnd")
    with pytest.raises(RoleError, match=r"replication column 'pool' beside"):
        xrr.intra(df.assign(pool="A"), session="round")
    with pytest.raises(RoleError, match=r"not replication="):
        xrr.intra(df, session="round", replication="round")
    with pytest.raises(InputError, match=r"one value \(1\)"):
        xrr.intra(df[df["round"] == 1], session="round")
    with pytest.raises(InputError, match=r"not wide=True"):
        xrr.intra(df, session="round", wide=True)


def test_undefined_kappa_is_counted():
    df = pd.DataFrame({"item": [1, 2, 1, 3], "rater": ["a"] * 4, "round": [1, 1, 2, 2],
                       "joy": [1, 1, 1, 1]})
    with pytest.warns(UndefinedWarning, match=r"intra kappa_x is undefined \(NaN\) for 1"):
        out = xrr.intra(df, session="round")
    row = out.kappa.iloc[0]
    assert math.isnan(row["kappa_x"]) and row["n_items"] == 1 and row["n_unpairable"] == 2
    assert row["agreement"] == 1.0


def test_roles_bound_with_the_accessor():
    df = pd.DataFrame({"video": [1, 2, 1, 2], "who": ["a"] * 4, "round": [1, 1, 2, 2],
                       "joy": [0, 1, 0, 1]})
    bound = xrr.intra(df.xrr(item="video", rater="who"), session="round")
    method = df.xrr(item="video", rater="who").intra(session="round")
    pd.testing.assert_frame_equal(bound.kappa, method.kappa)
    assert bound.kappa["kappa_x"].iloc[0] == 1.0
    first = df[df["round"] == 1].drop(columns="round")
    with pytest.warns(UndefinedWarning, match="share no item"):  # one rater: no one to meet
        raters = xrr.rater_agreement(first.xrr(item="video", rater="who"))
    assert raters.index.get_level_values("who").tolist() == ["a"]
