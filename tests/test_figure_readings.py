"""What a person reads on the figures, checked against the drawn artists (found by a
new-user trial on real data): labels that print over each other, a pool hidden under
another's line, a title that reads oddly with some column names."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr

plt = pytest.importorskip("matplotlib.pyplot")
from matplotlib.text import Text  # noqa: E402

from xrr_accessor.diagnostics import plots  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _text_boxes(ax):
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    return [Text.get_window_extent(t, renderer) for t in ax.texts]


@pytest.mark.parametrize("seed", range(6))
def test_rater_names_never_print_over_each_other(seed):
    """pq/raters.png: "254" and "121", neighbours at the low end, printed as "2521".
    Clustered worst raters (the usual case: a few close together at the left), every
    drawn name measured by the renderer: no two overlap, and the names are the worst."""
    rng = np.random.default_rng(seed)
    n = 60
    kappa = rng.uniform(0.1, 0.6, n)
    kappa[:5] = 0.03 + rng.uniform(0, 0.015, 5)  # five worst, close together
    delta = 0.006 - 0.01 * kappa + rng.normal(0, 0.0004, n)
    table = pd.DataFrame({"kappa_x": kappa, "delta_alpha": delta,
                          "n_annotations": rng.integers(20, 200, n)},
                         index=pd.Index([f"{100 + 7 * k}" for k in range(n)], name="rater"))
    ax = plots.raters(table, annotate=5)
    worst = table.sort_values("kappa_x").index[:5].tolist()
    assert [t.get_text() for t in ax.texts] == worst
    boxes = _text_boxes(ax)
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not a.overlaps(b), (worst[i], worst[j], a, b)
    # and each name is drawn within the axes, not over the title
    inside = ax.get_window_extent(ax.figure.canvas.get_renderer())
    assert all(inside.x0 <= b.x0 and b.x1 <= inside.x1 and inside.y0 <= b.y0
               and b.y1 <= inside.y1 for b in boxes)


@pytest.mark.parametrize("column", ["truth", "stance", "is_toxic", "label"])
def test_validity_title_reads_whatever_the_label_is_called(column):
    """ro/validity.png: "Against the gold truth", the label's name read as a noun after
    "gold". The title says what the bars are and names the label apart."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       column: ["x", "y", "y", "y", "x", "x"]})
    # named, since a column called like a gold reference is otherwise left out (issue 34)
    data = df if column == "label" else df.xrr(labels=[column])
    out = xrr.validity(data, gold=pd.Series({1: "x", 2: "y", 3: "x"}))
    ax = out.plot()
    assert ax.get_title() == f"Recall and precision against the gold, label: {column}"
    heights = [p.get_height() for p in ax.patches]
    assert heights == pytest.approx(out.classes["recall"].tolist()
                                    + out.classes["precision"].tolist())


def _pools_report(irrs):
    """A report-like object of one label whose pools have the IRRs ``irrs``."""
    from types import SimpleNamespace

    from xrr_accessor.reporting.plotting import ReportPlots

    frame = pd.DataFrame({"statistic": "irr", "label": "offensiveness",
                          "replication": list(irrs), "replication_other": np.nan,
                          "estimate": list(irrs.values())})
    return ReportPlots(SimpleNamespace(frame=frame, attrs={"irr": "alpha"}))


@pytest.mark.parametrize("irrs", [
    {"Man": 0.268, "Non-binary": 0.326, "Woman": 0.287},  # pq/irr_hist.png: one bin, two
    {"A": 0.5, "B": 0.5, "C": 0.5, "D": 0.9},  # equal values
])
def test_irr_hist_shows_every_pool_even_in_one_bin(irrs):
    """pq/irr_hist.png: Man's and Woman's IRRs (0.268, 0.287) shared a bin and Woman's
    dotted outline lay under Man's: the legend listed 3 pools, the plot showed 2. Every
    pool has a bar of its own, of the right height, that no other pool's bar covers."""
    ax = _pools_report(irrs).irr_hist()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(irrs)
    drawn = [[p for p in c if p.get_height() > 0] for c in ax.containers]
    assert len(drawn) == len(irrs)
    edges: list[tuple[float, float]] = []
    for pool, bars in zip(irrs, drawn, strict=True):
        assert len(bars) == 1 and bars[0].get_height() == 1, pool  # one label: one bar
        x0, x1 = bars[0].get_x(), bars[0].get_x() + bars[0].get_width()
        assert x1 - x0 > 0.01, pool  # a bar, not a sliver
        assert all(x1 <= a or x0 >= b for a, b in edges), pool  # overlaps no other's
        edges.append((x0, x1))
    # each bar sits within the bin of its pool's IRR
    bins = np.linspace(0, 1, 11)
    for value, bars in zip(irrs.values(), drawn, strict=True):
        k = np.searchsorted(bins, value, side="right") - 1
        assert bins[k] <= bars[0].get_x() and bars[0].get_x() + bars[0].get_width() <= bins[k + 1]


def test_irr_hist_says_when_a_pool_has_no_irr_to_draw():
    """A pool whose IRR is undefined (popquorn's Arab American) is in the legend, and
    the legend says it is not drawn, rather than listing a pool the plot never shows."""
    ax = _pools_report({"A": 0.4, "B": np.nan}).irr_hist()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "A", "B (IRR undefined: not drawn)"]
    assert [sum(p.get_height() for p in c) for c in ax.containers] == [1, 0]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_items_figure_axis_names_the_unit_of_its_level(level):
    """The items figure drew ordinal D = 4371.5 on an axis called "D_i": the axis says
    the unit of the level the table was computed at, and the bars are the table's D."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "score": [1, 5, 2, 3, 3, 3]})
    table = xrr.item_disagreement(df, level=level)
    ax = plots.items(table)
    assert " ".join(ax.get_xlabel().split()).startswith(f"D_i, {plots.D_UNITS[level]} (n:")
    assert [p.get_width() for p in ax.patches] == pytest.approx(
        table["disagreement"].tolist())
    # xarray input: its table is a Dataset, whose level is in its attrs too
    ds = df.set_index(["item", "rater"]).to_xarray()
    ax = plots.items(xrr.item_disagreement(ds, level=level))
    assert " ".join(ax.get_xlabel().split()).startswith(f"D_i, {plots.D_UNITS[level]} (n:")


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("name_length", [8, 40])
def test_items_figure_text_stays_inside_the_figure(level, name_length):
    """A one-pool page of Roitero et al.'s S6 ratings (a new-user trial): the items
    figure's x label, the level's unit and a sentence on the ties at the top, ran past
    the figure's right edge and was cut off mid-word. With short and long item names
    and ties at the top, every line of the label, the title and the item names are
    drawn inside the figure, and the label still says all of it."""
    rng = np.random.default_rng(name_length)
    rows = []
    for i in range(40):  # the same 10 ratings for every item: all tie
        name = f"item_{i}_" + "x" * name_length
        rows += [(name, f"r{k}", int(v)) for k, v in enumerate(rng.permutation(
            [0, 0, 1, 1, 2, 2, 3, 3, 4, 5]))]
    df = pd.DataFrame(rows, columns=["item", "rater", "score"])
    ax = plots.items(xrr.item_disagreement(df, level=level), top=10)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [ax.xaxis.label, ax.title, *ax.get_yticklabels()]
    for text in texts:
        box = text.get_window_extent(renderer)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1, (text.get_text(), box)
    said = " ".join(ax.get_xlabel().split())
    assert said.startswith(f"D_i, {plots.D_UNITS[level]} (n: the item's annotations)")
    assert "40 items tie at the top value" in said
