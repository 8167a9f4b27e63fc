"""Every figure at 1, 31 and 300 labels (or raters, items, bars): drawn headless
(Agg), no two tick labels on one axis overlap and every text lies inside the figure,
as measured from the rendered artists."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.diagnostics import plots
from xrr_accessor.reporting.models_plots import label_distribution
from xrr_accessor.reporting.plotting import pairwise_heatmap, plan, rho_vs_normalized

from helpers import thorough_only

matplotlib.use("Agg")
import itertools

import matplotlib.pyplot as plt

SIZES = (1, 31, 300)


def _in_view(axis: Any) -> list[Any]:
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * max(1.0, abs(hi - lo))
    return [tick for tick in axis.get_major_ticks() if lo - slack <= tick.get_loc() <= hi + slack]


def _drawn_ticks(axis: Any) -> list[Any]:
    """The tick labels drawn: visible, named, of a tick inside the axis' view."""
    return [label for tick in _in_view(axis) for label in (tick.label1, tick.label2)
            if label.get_visible() and label.get_text()]


def _hidden_names(axis: Any) -> int:
    """Ticks in view with a name drawn on neither side (thinned out)."""
    return sum(1 for tick in _in_view(axis) if tick.label1.get_text()
               and not (tick.label1.get_visible() or tick.label2.get_visible()))


def _texts(fig: Any) -> list[Any]:
    """Every text drawn: tick labels in view, titles, axis labels, legends, notes."""
    out = []
    for ax in fig.axes:
        out += _drawn_ticks(ax.xaxis) + _drawn_ticks(ax.yaxis)
        out += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label,
                *ax.texts]
        if ax.get_legend() is not None:
            out += [*ax.get_legend().get_texts(), ax.get_legend().get_title()]
    return [t for t in out if t.get_visible() and t.get_text().strip()]


def layout_faults(fig: Any) -> list[str]:
    """What breaks the layout: overlapping tick labels on one axis, text past the edge."""
    fig.draw_without_rendering()  # the layout as drawn, the text measured
    r = fig.canvas.get_renderer()
    edge = fig.bbox
    faults = []
    for ax in fig.axes:
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            boxes = [t.get_window_extent(r) for t in _drawn_ticks(axis)]
            hidden = _hidden_names(axis)
            faults += [f"{hidden} {name} tick labels hidden (thinned)"] if hidden else []
            boxes.sort(key=(lambda b: b.x0) if name == "x" else (lambda b: b.y0))
            faults += [f"{name} tick labels overlap" for a, b in itertools.pairwise(boxes)
                       if a.overlaps(b)][:1]
    for t in _texts(fig):
        b = t.get_window_extent(r)
        if b.x0 < edge.x0 - 0.5 or b.y0 < edge.y0 - 0.5 or b.x1 > edge.x1 + 0.5 \
                or b.y1 > edge.y1 + 0.5:
            faults.append(f"{t.get_text()[:30]!r} outside the figure")
    return faults


def _labels(n: int) -> pd.DataFrame:
    """The demo's first items with ``n`` binary labels (its 31 renamed and repeated)."""
    demo = xa.datasets.load_demo()
    demo = demo[demo["item_id"].isin(demo["item_id"].unique()[:20])]
    names = list(demo.columns[3:])
    cols = {f"{names[k % 31]}_{k // 31}" if n > 31 else names[k]: demo[names[k % 31]]
            .to_numpy() for k in range(n)}
    return pd.concat([demo[["item_id", "pool", "rater"]].reset_index(drop=True),
                      pd.DataFrame(cols)], axis=1)


def _crowd(n: int, seed: int = 0) -> pd.DataFrame:
    """``n`` raters (at least 2 when pairs are needed), 3 each on 40 items."""
    rng = np.random.default_rng(seed)
    rows = [(i, f"worker_{rng.integers(n) if n > 1 else 0:03d}", int(rng.integers(3)))
            for i in range(max(40, n)) for _ in range(3)]
    out = pd.DataFrame(rows, columns=["item", "rater", "score"])
    return out.drop_duplicates(["item", "rater"])


_REPORTS: dict[int, Any] = {}


def _report(n: int) -> Any:
    if n not in _REPORTS:
        _REPORTS[n] = _labels(n).xrr(item="item_id", rater="rater",
                                     replication="pool").report()
    return _REPORTS[n]


def _pools_report(n: int) -> Any:
    """One label rated by ``n`` pools (past six: the label figure's matrix)."""
    from test_pool_matrix import pools

    return xa.report(pools(max(n, 2)), item="item", rater="rater", replication="pool",
                     level="nominal")


def _pairwise(n: int) -> pd.DataFrame:
    """A rater x rater table of ``n`` raters in pairwise()'s shape (each pair once)."""
    names = [f"worker_{k:03d}" for k in range(max(n, 2))]
    idx = pd.MultiIndex.from_tuples([(a, b) for k, a in enumerate(names)
                                     for b in names[k + 1:]], names=["rater", "rater_other"])
    rng = np.random.default_rng(n)
    table = pd.DataFrame({"estimate": rng.uniform(-0.2, 1, len(idx)),
                          "n_items": rng.integers(0, 5, len(idx))}, index=idx)
    table.attrs.update(both_orders=False, metric="cohen")
    return table


def _sessions(n: int) -> pd.DataFrame:
    """``n`` raters, each rating 4 items in two sessions (intra: one bar per rater)."""
    rng = np.random.default_rng(n)
    rows = [(i, f"r{k:03d}", s, int(rng.integers(4))) for k in range(max(n, 2))
            for i in range(4) for s in (1, 2)]
    return pd.DataFrame(rows, columns=["item", "rater", "round", "score"])


def _plan_table(n: int) -> pd.DataFrame:
    """plan()'s table shape: ``n`` labels x one pair, half widths over item counts."""
    items = np.array([50, 100, 200, 400])
    return pd.DataFrame([(f"label_{k}", "A", "B", m, 1.0 / np.sqrt(m) * (1 + k % 5))
                         for k in range(n) for m in items],
                        columns=["label", "replication", "replication_other", "n_items",
                                 "half_width"])


def _rho(n: int) -> pd.DataFrame:
    """A rho table (one row per label and pair of the report) for rho_vs_normalized."""
    keys = ["label", "replication", "replication_other"]
    norm = _report(n).frame.query("statistic == 'normalized'")[keys]
    return norm.assign(rho=np.random.default_rng(n).uniform(0, 1, len(norm)))


class _Models:
    """A models page's distribution of ``n`` categories from 3 sources."""

    def __init__(self, n: int) -> None:
        rng = np.random.default_rng(n)
        rows = [("verdict", src, role, f"category {c}", 1, float(rng.uniform()))
                for src, role in (("crowd", "reference"), ("gpt", "candidate"),
                                  ("llama", "candidate")) for c in range(n)]
        self.distribution = pd.DataFrame(rows, columns=["label", "replication", "role",
                                                        "category", "n", "share"])


FIGURES: dict[str, Callable[[int], Any]] = {
    "irr_hist": lambda n: _report(n).plot.irr_hist(),
    "label": lambda n: _report(n).plot.label(_report(n).frame["label"].iloc[0]),
    "label_pools": lambda n: _pools_report(n).plot.label("toxic"),
    "irr_vs_kappa": lambda n: _report(n).plot.irr_vs_kappa(),
    "heatmap": lambda n: _report(n).plot.heatmap(),
    "pairwise_heatmap": lambda n: pairwise_heatmap(_pairwise(n)),
    "items": lambda n: plots.items(xa.item_disagreement(_crowd(n)), top=n),
    "raters": lambda n: plots.raters(xa.rater_agreement(_crowd(max(n, 3)))),
    "aad": lambda n: plots.aad(xa.intra(_sessions(n), session="round", level="interval")),
    "validity": lambda n: plots.validity(xa.validity(
        _crowd(n).rename(columns={"score": "s"}), gold=pd.Series(1, index=range(max(40, n))),
        level="interval"), top=n),
    "plan": lambda n: plan(_plan_table(n)),
    "rho_vs_normalized": lambda n: rho_vs_normalized(_rho(n), _report(n)),
    "label_distribution": lambda n: label_distribution(_Models(n)),
}


@pytest.fixture(autouse=True)
def _small_dpi():
    """Drawn at 50 dpi: the same layout in inches, fewer pixels to fill."""
    with matplotlib.rc_context({"figure.dpi": 50}):
        yield
    plt.close("all")


@pytest.mark.parametrize("n", [pytest.param(n, marks=[thorough_only] if n > 1 else [])
                               for n in SIZES])  # 31, 300: .ci/run's thorough step (time)
@pytest.mark.parametrize("name", list(FIGURES))
def test_no_overlap_and_nothing_clipped(name: str, n: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate small data: undefined cells warn
        ax = FIGURES[name](n)
    try:
        assert layout_faults(ax.figure) == []
    finally:
        plt.close("all")
