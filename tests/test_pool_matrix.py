"""ReportPlots.label past six replications: the replications x replications matrix
(reporting/pool_matrix.py), each cell checked against the report row it draws."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.reporting.pool_matrix import MAX_BAR_POOLS, pool_matrix

matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def pools(n: int, items: int = 20, seed: int = 0) -> pd.DataFrame:
    """``n`` pools of three raters on the same ``items`` binary items."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, items)
    rows = [(i, f"pool_{p:03d}", f"p{p}r{r}",
             int(truth[i] if rng.random() < 0.8 else rng.integers(0, 2)))
            for p in range(n) for r in range(3) for i in range(items)]
    return pd.DataFrame(rows, columns=["item", "pool", "rater", "toxic"])


def _report(n: int) -> xa.Report:
    return xa.report(pools(n), item="item", rater="rater", replication="pool",
                     level="nominal")


def test_matrix_cells_are_the_reports_irr_and_kappa_x() -> None:
    rep = _report(8)
    rows = rep.frame[rep.frame["statistic"] != "normalized"]
    m = pool_matrix(rows)
    assert list(m.index) == [f"pool_{p:03d}" for p in range(8)]
    for r in rows.itertuples():  # naive: every row of the report lands on its cell(s)
        if r.statistic == "irr":
            assert m.loc[r.replication, r.replication] == r.estimate
        else:
            assert m.loc[r.replication, r.replication_other] == r.estimate
            assert m.loc[r.replication_other, r.replication] == r.estimate
    assert np.isfinite(m.to_numpy()).all()


def test_label_draws_bars_up_to_six_pools_and_the_matrix_past() -> None:
    few, many = _report(MAX_BAR_POOLS), _report(MAX_BAR_POOLS + 1)
    try:
        bars = few.plot.label("toxic")
        assert len(bars.patches) == MAX_BAR_POOLS + MAX_BAR_POOLS * (MAX_BAR_POOLS - 1) // 2
        assert not bars.images
        matrix = many.plot.label("toxic")
        shown = matrix.images[0].get_array()
        n = MAX_BAR_POOLS + 1
        assert shown.shape == (n, n)
        rows = many.frame[many.frame["statistic"] != "normalized"]
        assert np.allclose(np.asarray(shown), pool_matrix(rows).to_numpy())
        assert "IRR of 7 replications" in matrix.get_title()
    finally:
        plt.close("all")


def test_matrix_past_sixty_pools_counts_the_rest() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = _report(64)
    try:
        ax = rep.plot.label("toxic")
        assert ax.images[0].get_array().shape == (60, 60)
        assert ax.get_xlabel() == ("the first 60 of 64 replications (the report's order); "
                                   "4 more not drawn")
    finally:
        plt.close("all")
