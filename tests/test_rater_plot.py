"""diagnostics.plots.raters: the named raters are the worst ranked ones (never a rater
the table leaves unranked), unranked raters drawn hollow and counted, and pools of two
raters (alpha without a rater undefined) said in the axes instead of an empty plot."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.diagnostics import plots

matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def _crowd(seed: int = 3) -> pd.DataFrame:
    """20 raters on 60 items, 4 an item; raters 'few_*' rate only 3 items, badly."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 60)
    rows = []
    for i in range(60):
        for r in rng.choice(20, 4, replace=False):
            rows.append((i, f"r{r:02d}", int(truth[i] if rng.random() < 0.75
                                              else rng.integers(0, 3))))
    for k in range(3):
        for i in range(3):
            rows.append((i + 10 * k, f"few_{k}", int((truth[i + 10 * k] + 1) % 3)))
    return pd.DataFrame(rows, columns=["item", "rater", "joy"])


def test_names_the_worst_ranked_raters_and_counts_the_unranked() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = xa.rater_agreement(_crowd(), level="nominal")
    try:
        ax = plots.raters(table, annotate=3)
        named = [t.get_text() for t in ax.texts]
        ranked = table[table["rank"].notna()].sort_values("kappa_x")
        assert named == [str(r) for r in ranked.index.get_level_values("rater")[:3]]
        unranked = int(table["rank"].isna().sum())
        few = table[table.index.get_level_values("rater").str.startswith("few_")]
        assert few["rank"].isna().all() and unranked >= 3
        assert not any(n.startswith("few_") for n in named)
        assert f"hollow: {unranked} of {len(table)} not ranked (< 10 items)" in ax.get_title()
        filled, hollow = ax.collections[:2]
        assert len(filled.get_offsets()) == len(table) - unranked
        assert len(hollow.get_offsets()) == unranked
    finally:
        plt.close("all")


def test_two_rater_pools_say_why_no_point() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame([(i, r, int(rng.integers(2))) for i in range(30) for r in "ab"],
                      columns=["item", "rater", "joy"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = xa.rater_agreement(df, level="nominal")
    assert not np.isfinite(table["delta_alpha"]).any()
    try:
        ax = plots.raters(table)
        assert any("no point: alpha without the rater is undefined for every rater"
                   in t.get_text() for t in ax.texts)
    finally:
        plt.close("all")


def test_pairwise_heatmap_names_the_weights_it_took() -> None:
    from xrr_accessor.reporting.plotting import pairwise_heatmap

    rng = np.random.default_rng(1)
    df = pd.DataFrame([(i, r, int(rng.integers(1, 6))) for i in range(30) for r in "abc"],
                      columns=["item", "rater", "score"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = xa.pairwise(df)  # 1-5: ordinal inferred, linear weights
        given = xa.pairwise(df, level="ordinal")  # the level's own distance
    assert table.attrs["weights"] == "linear" and "weights" not in given.attrs
    try:
        ax = pairwise_heatmap(table)
        assert ax.get_title().startswith(f"{table.attrs['metric']}, linear weights per pair")
        assert ax.figure.axes[-1].get_ylabel() == f"{table.attrs['metric']}, linear weights"
        assert pairwise_heatmap(given).get_title().startswith(
            f"{table.attrs['metric']}, ordinal level per pair")
        plain = pairwise_heatmap(xa.pairwise(df, level="nominal"))
        assert plain.get_title().startswith(f"{table.attrs['metric']} per pair")
    finally:
        plt.close("all")
