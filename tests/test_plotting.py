"""The figures, drawn headless (Agg): what each draws, from which numbers."""

from __future__ import annotations

import sys
import warnings

import matplotlib
import numpy as np
import pytest

import xrr_accessor as xa
from xrr_accessor.reporting.plotting import plan

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.container import BarContainer

#: The default items="all" warns where normalized kappa_x exceeds 1 on different
#: item sets (tests/test_common_items.py); these tests read other things.
EXCEEDS_1 = "ignore:normalized kappa_x exceeds 1:xrr_accessor.errors.UndefinedWarning"


@pytest.fixture(scope="module")
def data():
    return xa.datasets.simulate(n_items=300, labels=["joy", "awe", "fear"],
                                pools=["A", "B", "C"], seed=2)


@pytest.fixture(scope="module")
def rep(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return data.xrr.report(ci=0.9, n_boot=50, seed=1, progress=False)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _bar_heights(ax) -> list[float]:
    return [p.get_height() for p in ax.patches]


def _bars(ax):
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def _error_ends(container) -> np.ndarray:
    """(n, 2) lower and upper ends of a bar container's error bars."""
    segments = container.errorbar.lines[2][0].get_segments()
    return np.array([[seg[:, 1].min(), seg[:, 1].max()] for seg in segments])


def test_irr_hist_one_histogram_per_replication(rep):
    ax = rep.plot.irr_hist(bins=5)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["A", "B", "C"]
    bars = _bars(ax)
    assert len(bars) == 3 and all(len(b) == 5 for b in bars)  # one histogram each, 5 bins
    irr = rep.frame[rep.frame["statistic"] == "irr"]
    for (_, part), b in zip(irr.groupby("replication", sort=False), bars, strict=True):
        assert sum(p.get_height() for p in b) == part["estimate"].notna().sum()
    assert len({b[0].get_hatch() for b in bars}) == 3  # told apart without colour
    assert all(float(t).is_integer() for t in ax.get_yticks())  # counts of labels
    assert ax.get_xlabel() == "IRR (cohen)"


def test_label_bars_are_the_reports_numbers_with_error_bars(rep):
    ax = rep.plot.label("joy")
    f = rep.frame
    want = f[(f["label"] == "joy") & (f["statistic"] != "normalized")]
    np.testing.assert_allclose(_bar_heights(ax), want["estimate"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["A", "B", "C", "A x B", "A x C",
                                                           "B x C"]
    np.testing.assert_allclose(_error_ends(_bars(ax)[0]), want[["lower", "upper"]])
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["IRR", "kappa_x"]
    np.testing.assert_allclose(_bar_heights(rep.plot.label("JOY")), want["estimate"])
    with pytest.raises(xa.InputError, match="not in the report"):
        rep.plot.label("anger")


def test_label_marks_an_undefined_irr():
    gold = xa.datasets.load_snow2008("wsd")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.errors.UndefinedWarning)  # one expert: no IRR
        ax = gold.xrr.report(reference="crowd").plot.label("response")
    assert [t.get_text() for t in ax.texts] == ["NaN"]
    assert ax.texts[0].get_position()[0] == 1  # the expert's IRR, second bar


def test_irr_vs_kappa_pairs_and_order(rep):
    ax = rep.plot.irr_vs_kappa(pair=("B", "C"))
    f = rep.frame
    kx = f[(f["statistic"] == "kappa_x") & (f["replication"] == "B")
           & (f["replication_other"] == "C")].sort_values("estimate", ascending=False)
    heights = np.array(_bar_heights(ax)).reshape(3, -1)  # IRR B, IRR C, kappa_x
    np.testing.assert_allclose(heights[2], kx["estimate"])
    assert [t.get_text() for t in ax.get_xticklabels()] == list(kx["label"])
    irr_b = f[(f["statistic"] == "irr") & (f["replication"] == "B")].set_index("label")
    np.testing.assert_allclose(heights[0], irr_b.loc[list(kx["label"]), "estimate"])
    # kappa_x is symmetric: the pair in the other order draws the same bars
    swapped = rep.plot.irr_vs_kappa(pair=("C", "B"))
    np.testing.assert_allclose(np.array(_bar_heights(swapped)).reshape(3, -1), heights)
    with pytest.raises(xa.InputError, match="pair"):
        rep.plot.irr_vs_kappa(pair=("A", "Z"))


def test_heatmap_image_is_the_normalized_table(rep):
    ax = rep.plot.heatmap()
    image = ax.images[0].get_array()
    want = rep.wide()["normalized"].to_numpy()
    np.testing.assert_allclose(np.asarray(image), want)
    top = float(np.nanmax(want))
    assert ax.images[0].colorbar.extend == ("max" if top > 1.5 else "neither")
    assert rep.plot.heatmap(vmax=top + 0.01).images[0].colorbar.extend == "neither"
    clipped = rep.plot.heatmap(vmax=top - 0.01)  # values above the scale: an arrow says so
    assert clipped.images[0].colorbar.extend == "max"


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_frame_plots_make_the_report_with_its_arguments(data, rep):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ax = data.xrr.plot.label("joy", irr="alpha")
    f = xa.report(data, irr="alpha").frame
    want = f[(f["label"] == "joy") & (f["statistic"] != "normalized")]["estimate"]
    np.testing.assert_allclose(_bar_heights(ax), want)
    assert _bars(ax)[0].errorbar is None  # no ci asked: no error bars
    with pytest.raises(AttributeError, match="plots:"):
        _ = data.xrr.plot.scatter


def test_plan_plot_one_line_per_label_and_pair(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = data.xrr.plan(n_boot=30, seed=0, progress=False)
        ax = plan(table)
    curves = [ln for ln in ax.lines if ln.get_marker() == "o"]
    assert len(curves) == table.groupby(["label", "replication", "replication_other"]).ngroups
    assert ax.get_xscale() == "log"


def test_missing_matplotlib_names_the_extra(rep, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"xrr_accessor\[plot\]"):
        rep.plot.heatmap()


@pytest.mark.parametrize("draw", [
    lambda rep: rep.plot.irr_hist(), lambda rep: rep.plot.label("joy"),
    lambda rep: rep.plot.irr_vs_kappa(("A", "B")), lambda rep: rep.plot.heatmap(),
], ids=["irr_hist", "label", "irr_vs_kappa", "heatmap"])
def test_without_matplotlib_every_figure_names_the_extra(rep, draw, monkeypatch):
    """Not only pyplot: with no matplotlib at all (a core-only install; found by the wheel
    test), each figure raises the documented error, not ModuleNotFoundError."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install 'xrr_accessor\[plot\]'"):
        draw(rep)
