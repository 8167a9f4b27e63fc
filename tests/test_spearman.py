"""Spearman's correction (Eq 12) against a naive pandas computation written from SPEC.md:
item means on shared items, Pearson r, split-half reliabilities stepped up by
Spearman-Brown and averaged over random splits."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.reporting.plotting import rho_vs_normalized

matplotlib.use("Agg")


def _frame(seed: int, n_items: int = 150, raters: int = 3, missing: float = 0.25,
           scale: int = 5) -> pd.DataFrame:
    """Two pools rating items on 0..scale-1 around a shared item score, with gaps."""
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n_items)
    rows = []
    for pool, shift in (("A", 0.0), ("B", 0.4)):
        for g in range(raters):
            score = truth + shift + rng.normal(scale=0.9, size=n_items)
            value = np.clip(np.round(score + scale / 2 - 0.5), 0, scale - 1)
            keep = rng.random(n_items) >= missing
            rows.append(pd.DataFrame({"item": np.flatnonzero(keep), "pool": pool,
                                      "rater": f"{pool}{g}", "score": value[keep]}))
    return pd.concat(rows, ignore_index=True)


def _naive(df: pd.DataFrame, n_splits: int, seed: int) -> tuple[float, float, float, list]:
    """r_xy, rel_A, rel_B (mean of Spearman-Brown split halves) and the per-split rels."""
    a, b = (df[df["pool"] == p] for p in ("A", "B"))
    shared = sorted(set(a["item"]) & set(b["item"]))
    ma = a.groupby("item")["score"].mean().loc[shared]
    mb = b.groupby("item")["score"].mean().loc[shared]
    r_xy = float(np.corrcoef(ma, mb)[0, 1])
    rng = np.random.default_rng(seed)
    rels, per_split = [], []
    for part in (a, b):
        groups = [g["score"].to_numpy() for i, g in part.groupby("item") if i in set(shared)]
        groups = [g for g in groups if len(g) >= 2]
        values = []
        for _ in range(n_splits):
            h1, h2 = [], []
            for g in groups:
                perm = rng.permutation(g)
                h = len(g) // 2
                h1.append(perm[:h].mean())
                h2.append(perm[h:].mean())
            r = np.corrcoef(h1, h2)[0, 1]
            values.append(2 * r / (1 + r))
        rels.append(float(np.mean(values)))
        per_split.append(values)
    return r_xy, rels[0], rels[1], per_split


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_against_the_naive_computation(seed):
    df = _frame(seed)
    n = 800
    ours = xa.disattenuated_correlation(df.xrr(replication="pool"), n_splits=n, seed=seed)
    assert len(ours) == 1
    row = ours.iloc[0]
    r_xy, rel_a, rel_b, per_split = _naive(df, n, seed + 100)
    shared = len(set(df.loc[df.pool == "A", "item"]) & set(df.loc[df.pool == "B", "item"]))
    assert row["n_items"] == shared
    assert row["r_xy"] == pytest.approx(r_xy, abs=1e-12)  # no randomness: exact
    # the split halves are random in both: means of n splits agree within their noise
    for ours_rel, theirs, values in ((row["rel_x"], rel_a, per_split[0]),
                                     (row["rel_y"], rel_b, per_split[1])):
        se = np.std(values) / np.sqrt(n)
        assert abs(ours_rel - theirs) < 6 * np.sqrt(2) * se + 1e-12
    assert row["rho"] == pytest.approx(row["r_xy"] / np.sqrt(row["rel_x"] * row["rel_y"]),
                                       rel=1e-12)


def test_identical_annotations_give_reliability_one():
    """Raters of a pool that always agree: every split has equal halves, rel = 1, and
    rho is r_xy exactly."""
    rng = np.random.default_rng(4)
    score = rng.integers(0, 4, 60)
    other = np.clip(score + rng.integers(-1, 2, 60), 0, 3)
    df = pd.concat([pd.DataFrame({"item": range(60), "pool": p, "rater": f"{p}{g}",
                                  "score": s})
                    for p, s in (("A", score), ("B", other)) for g in range(2)])
    out = df.xrr(replication="pool").disattenuated_correlation(n_splits=7)
    row = out.iloc[0]
    assert row["rel_x"] == pytest.approx(1.0, abs=1e-12)
    assert row["rel_y"] == pytest.approx(1.0, abs=1e-12)
    assert row["rho"] == pytest.approx(np.corrcoef(score, other)[0, 1], abs=1e-12)


def test_splits_do_not_depend_on_row_order_and_follow_the_seed():
    df = _frame(5)
    a = xa.disattenuated_correlation(df.xrr(replication="pool"), n_splits=30, seed=9)
    b = xa.disattenuated_correlation(
        df.sample(frac=1.0, random_state=1).xrr(replication="pool"), n_splits=30, seed=9)
    pd.testing.assert_frame_equal(a, b)
    c = xa.disattenuated_correlation(df.xrr(replication="pool"), n_splits=30, seed=10)
    assert c["rel_x"].iloc[0] != a["rel_x"].iloc[0]
    assert a.attrs == {"n_splits": 30, "seed": 9}


def test_undefined_and_bad_input():
    df = _frame(6, raters=1)  # one rater per pool: no split halves
    with pytest.warns(xa.UndefinedWarning, match="split-half"):
        out = xa.disattenuated_correlation(df.xrr(replication="pool"))
    assert np.isnan(out["rho"]).all() and np.isfinite(out["r_xy"]).all()
    text = _frame(7).assign(score=lambda d: d["score"].map(lambda v: f"s{int(v)}"))
    with pytest.raises(xa.InputError, match=r"score.*non-numeric"):
        xa.disattenuated_correlation(text.xrr(replication="pool"))
    with pytest.raises(xa.InputError, match="n_splits"):
        xa.disattenuated_correlation(_frame(7).xrr(replication="pool"), n_splits=0)


def test_tracks_normalized_kappa_and_fig7_draws_it():
    """On data simulated like IRep, rho_xy and normalized kappa_x track each other across
    labels (the paper: r = 0.99), and Fig 7 plots exactly those points."""
    df = xa.datasets.simulate(n_items=1500, labels=["joy", "awe", "fear", "pain", "love"],
                              pools=["A", "B"], seed=11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = df.xrr.disattenuated_correlation(n_splits=50)
        rep = df.xrr.report()
    norm = rep.frame[rep.frame["statistic"] == "normalized"]["estimate"].to_numpy()
    assert np.corrcoef(norm, rho["rho"])[0, 1] > 0.9
    ax = rho_vs_normalized(rho, rep)
    points = np.vstack([c.get_offsets() for c in ax.collections])
    np.testing.assert_allclose(np.sort(points[:, 1]), np.sort(rho["rho"]))
    np.testing.assert_allclose(np.sort(points[:, 0]), np.sort(norm))
