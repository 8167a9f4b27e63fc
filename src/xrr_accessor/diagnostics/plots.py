"""Figures of the diagnostics (the ``plot`` extra: matplotlib, imported when drawing).

Each function takes a diagnostic's result (a DataFrame, or the Dataset the
same function returns for xarray input), one ``label`` (default: the first),
``ax=`` (a new figure when None) and returns the Axes.

* :func:`items`: the most disagreed-on items, D_i as bars (or a histogram);
* :func:`raters`: kappa_x against the pool against the change of alpha
  without the rater, the worst named;
* :func:`aad`: AAD distributions as stacked bars, per rater pair (inter) or
  per rater and session pair (intra);
* :func:`validity`: per-class recall and precision against the gold, or each
  rater's error against it at the interval and ratio levels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .._optional import new_axes
from ..errors import InputError
from ..reporting.figure_layout import MAX_NAMES, fit_ticks, span, top_note
from ..textsafe import figure_text
from .items import top_items

__all__ = ["aad", "items", "raters", "validity"]  # the figures (the gallery draws each);
# D_UNITS and place_labels are public helpers, not figures


def _frame(table: Any) -> pd.DataFrame:
    if isinstance(table, xr.Dataset):
        out = table.to_dataframe().dropna(how="all")
        out.attrs = dict(table.attrs)  # level, metric: what the figures label
        return out
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"cannot plot a {type(table).__name__}; pass the table a "
                         "diagnostic returned.")
    return table


def _one_label(frame: pd.DataFrame, label: Any) -> tuple[pd.DataFrame, str]:
    """The rows of one label (the first by default), without the label level."""
    if "label" not in (frame.index.names or []):
        return frame, ""
    labels = list(frame.index.get_level_values("label").unique())
    if label is None:
        label = labels[0]
    elif label not in labels:
        folded = {str(lab).casefold(): lab for lab in labels}
        if str(label).casefold() not in folded:
            raise InputError(f"label {label!r} is not in the table; labels: {labels[:10]}")
        label = folded[str(label).casefold()]
    return frame.xs(label, level="label"), figure_text(label)


def _cell_names(index: pd.Index) -> list[str]:
    if isinstance(index, pd.MultiIndex):
        return [figure_text(" / ".join(map(str, row))) for row in index]
    return [figure_text(v) for v in index]


def items(table: Any, label: Any = None, top: int = 20, kind: str = "top",
          ax: Any = None) -> Any:
    """The ``top`` items of largest D_i as horizontal bars (``kind="top"``), each named
    with its number of annotations n, or the distribution of D_i over items, per
    replication (``kind="hist"``). When the items shown are a choice among ties
    (thousands of 3-2 splits of five at the top), the x label says how many tie
    and that the first in the data's order are shown.

    Examples
    --------
    >>> import pandas as pd, xrr_accessor as xrr
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
    ...                    "valence": [1, 3, 2, 2]})
    >>> ax = items(xrr.item_disagreement(df, level="interval"))
    >>> [float(p.get_width()) for p in ax.patches]
    [2.0, 0.0]
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['1  (n=2)', '2  (n=2)']
    """
    frame = _frame(table)
    rows, name = _one_label(frame, label)
    if kind == "hist":
        ax = new_axes(ax, (6, 3.5))
        if "replication" in (rows.index.names or []):
            for rep, part in rows.groupby(level="replication", sort=False):
                ax.hist(part["disagreement"].dropna(), bins=20, histtype="step",
                        linewidth=2, label=figure_text(rep))
            ax.legend(frameon=False)
        else:
            ax.hist(rows["disagreement"].dropna(), bins=20)
        ax.set(xlabel="D_i", ylabel="items",
               title=f"Per-item disagreement{': ' + name if name else ''}")
        return ax
    if kind != "top":
        raise InputError(f"kind={kind!r}; use 'top' or 'hist'.")
    best, tie = top_items(rows, min(top, MAX_NAMES))
    ax = new_axes(ax, (6.5, span(len(best), 0.2, 1.6, 2.5)))
    y = np.arange(len(best))[::-1]
    ax.barh(y, best["disagreement"], color="C3")
    ax.set_yticks(y, [f"{who}  (n={n})" for who, n in zip(
        _cell_names(best.index), best["n_annotations"], strict=True)], fontsize=8)
    unit = D_UNITS.get(str(frame.attrs.get("level")), "")
    # wrapped and ended at the axes' right edge: the long item names on the left push
    # the axes right, and a label centred under them ran past the figure's edge
    ax.set_xlabel(_wrap(f"D_i{', ' + unit if unit else ''} (n: the item's annotations)")
                  + (f"\n{_wrap(tie)}" if tie else ""), loc="right")
    ax.set_title(f"Most disagreed-on items{': ' + name if name else ''}")
    fit_ticks(ax)
    return ax


#: The unit of D_i at each level, on the items figure's axis (the one-pool page's
#: table caption says more: reporting.item_scale.d_meaning).
D_UNITS = {"nominal": "root share of differing pairs, at most 1",
           "ordinal": "Krippendorff's rank units (counts of annotations)",
           "interval": "in the ratings' unit", "ratio": "no unit, at most 1"}


def _wrap(text: str, width: int = 56) -> str:
    import textwrap

    return figure_text("\n".join(textwrap.wrap(text, width)))


def raters(table: Any, label: Any = None, annotate: int = 3, ax: Any = None) -> Any:
    """Each rater's kappa_x against the pool (x) and the change of the pool's alpha
    without them (y); the ``annotate`` worst ranked raters by kappa_x are named, each
    name placed where it overlaps no other (:func:`place_labels`; a rater whose point is
    not drawn, alpha without them undefined, is not named). Raters the table leaves
    unranked (fewer than ``min_items`` items: ``rank`` is <NA>) are drawn hollow and
    grey, counted in the title and never named. Where alpha without a rater is
    undefined for every rater (pools of two raters: without one, no item keeps two
    annotations), the axes say so instead of staying empty.

    Examples
    --------
    >>> import pandas as pd, xrr_accessor as xrr
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...                    "rater": ["a", "b", "c"] * 4,
    ...                    "joy": [1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1]})
    >>> ax = raters(xrr.rater_agreement(df, min_items=1), annotate=1)
    >>> [t.get_text() for t in ax.texts]
    ['c']
    """
    frame = _frame(table)
    rows, name = _one_label(frame, label)
    ax = new_axes(ax, (5.5, 4))
    ranked = (rows["rank"].notna().to_numpy() if "rank" in rows.columns
              else np.ones(len(rows), dtype=bool))
    size = 18 + 2 * np.sqrt(rows["n_annotations"].to_numpy(dtype=float))
    ax.scatter(rows["kappa_x"][ranked], rows["delta_alpha"][ranked], s=size[ranked],
               alpha=0.7)
    n_out = int((~ranked).sum())
    if n_out:
        ax.scatter(rows["kappa_x"][~ranked], rows["delta_alpha"][~ranked], s=size[~ranked],
                   facecolors="none", edgecolors="0.6", linewidths=0.8)
    worst = rows[ranked].dropna(subset=["kappa_x"]).sort_values("kappa_x").head(annotate)
    ax.axhline(0, color="0.5", linewidth=0.8)
    cut = frame.attrs.get("min_items")
    title = f"Raters{': ' + name if name else ''}"
    if n_out:
        title += (f"\nhollow: {n_out:,} of {len(rows):,} not ranked"
                  + (f" (< {cut} items)" if cut is not None else ""))
    ax.set(xlabel="kappa_x of the rater against the rest of the pool",
           ylabel="alpha without the rater - alpha")
    ax.set_title(title, fontsize=10)
    if len(rows) and not np.isfinite(rows["delta_alpha"].to_numpy(dtype=float)).any():
        ax.text(0.5, 0.5, "no point: alpha without the rater is undefined for every rater\n"
                "(pools of two raters: without one, no item keeps two annotations;\n"
                "each rater's kappa_x is then the pool's own IRR)", transform=ax.transAxes,
                ha="center", va="center", fontsize=8, color="0.3", wrap=True)
    place_labels(ax, _cell_names(worst.index), worst["kappa_x"].to_numpy(dtype=float),
                 worst["delta_alpha"].to_numpy(dtype=float))
    return ax


#: Offsets (points) tried for a point's label, nearest first, in 8 directions.
_OFFSETS = [(r * dx, r * dy) for r in (7, 14, 24, 36, 52, 72)
            for dx, dy in ((1, 1), (1, -1), (-1, 1), (-1, -1), (1, 0), (-1, 0), (0, 1),
                           (0, -1))]


def place_labels(ax: Any, names: list[str], x: np.ndarray, y: np.ndarray) -> list[Any]:
    """Name points ``(x, y)`` of ``ax``, each label at the nearest offset whose text
    (measured by the renderer) overlaps no label placed before it and stays inside
    the axes, joined to its point by a thin line: neighbouring points' names never
    print over each other ("254" and "121" as "2521"). When no offset fits, the
    farthest is used.

    Examples
    --------
    >>> from xrr_accessor._optional import new_axes
    >>> ax = new_axes(None, (4, 3))
    >>> _ = ax.scatter([0.0, 0.001], [0.0, 0.0]); _ = ax.set(xlim=(-1, 1), ylim=(-1, 1))
    >>> a, b = place_labels(ax, ["254", "121"], np.array([0.0, 0.001]), np.zeros(2))
    >>> r = ax.figure.canvas.get_renderer()
    >>> bool(a.get_window_extent(r).overlaps(b.get_window_extent(r)))
    False
    """
    from matplotlib.text import Text

    fig = ax.figure
    fig.canvas.draw()  # the layout (limits, axes box) the labels are measured in
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    placed: list[Any] = []
    boxes: list[Any] = []
    for who, px, py in zip(names, x, y, strict=True):
        if not (np.isfinite(px) and np.isfinite(py)):
            continue
        for k, (dx, dy) in enumerate(_OFFSETS):
            t = ax.annotate(who, (px, py), fontsize=8, xytext=(dx, dy),
                            textcoords="offset points",
                            ha="left" if dx > 0 else "right" if dx < 0 else "center",
                            va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                            arrowprops={"arrowstyle": "-", "color": "0.5", "linewidth": 0.6},
                            bbox={"boxstyle": "square,pad=0.1", "facecolor": "white",
                                  "edgecolor": "none", "alpha": 0.85})  # readable on points
            t.update_positions(renderer)  # where the offset puts it, before measuring
            box = Text.get_window_extent(t, renderer)
            fits = (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0
                    and box.y1 <= inside.y1)
            if (fits and not any(box.overlaps(b) for b in boxes)) or k == len(_OFFSETS) - 1:
                placed.append(t)
                boxes.append(box.expanded(1.15, 1.3))  # a margin: not touching either
                break
            t.remove()
    return placed


def aad(result: Any, which: str = "intra", label: Any = None, ax: Any = None) -> Any:
    """Stacked bars of AAD shares: one bar per rater pair and session (``"inter"``)
    or per rater and session pair (``"intra"``) of an
    :class:`~xrr_accessor.diagnostics.Intra`.

    Examples
    --------
    >>> import pandas as pd, xrr_accessor as xrr
    >>> df = pd.DataFrame({"item": [1, 2] * 4, "rater": ["a"] * 4 + ["b"] * 4,
    ...                    "round": [1, 1, 2, 2] * 2, "valence": [1, 2, 1, 3, 2, 1, 2, 2]})
    >>> ax = aad(xrr.intra(df, session="round", level="interval"), which="inter")
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['1 / a / b', '2 / a / b']
    """
    if which not in ("intra", "inter"):
        raise InputError(f"which={which!r}; use 'intra' or 'inter'.")
    table = result.aad_intra if which == "intra" else result.aad_inter
    rows, name = _one_label(_frame(table), label)
    shares = rows["share"].unstack("aad", fill_value=0.0)
    more = top_note(MAX_NAMES, len(shares), "bars", "the table's order")
    shares = shares.iloc[:MAX_NAMES]
    ax = new_axes(ax, (6.5, span(len(shares), 0.2, 1.6, 2.5)))
    y = np.arange(len(shares))[::-1]
    left = np.zeros(len(shares))
    cmap = _pyplot_cmap(len(shares.columns))
    for k, value in enumerate(shares.columns):
        ax.barh(y, shares[value], left=left, color=cmap(k), label=f"{value:g}")
        left += shares[value].to_numpy()
    ax.set_yticks(y, _cell_names(shares.index), fontsize=8)
    ax.set(xlabel="share of shared items" + (f"\n{more}" if more else ""), xlim=(0, 1),
           title=f"AAD, {which}-rater {name}".strip())
    ax.legend(title="|x - y|", frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0),
              fontsize=8)
    fit_ticks(ax)
    return ax


def _pyplot_cmap(n: int) -> Any:
    from .._optional import pyplot

    cmap = pyplot().get_cmap("viridis")
    return lambda k: cmap(k / max(n - 1, 1))


def validity(result: Any, label: Any = None, ax: Any = None, top: int = 30) -> Any:
    """Per-class recall and precision against the gold (one group of bars per class
    and replication) of a :class:`~xrr_accessor.diagnostics.Validity`; at the interval
    and ratio levels (no classes) each rater's mean absolute error against the gold
    as horizontal bars, largest first (the ``top`` largest), with its interval when
    the result has one, and the pool's MAE over annotations and over item means as
    vertical lines.

    Examples
    --------
    >>> import pandas as pd, xrr_accessor as xrr
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
    ...                    "label": ["x", "y", "y", "y"]})
    >>> ax = validity(xrr.validity(df, gold=pd.Series({1: "x", 2: "y"})))
    >>> [round(float(p.get_height()), 2) for p in ax.patches]  # recall x, y; precision
    [0.5, 1.0, 1.0, 0.67]
    >>> num = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                     "score": [1, 3, 2, 2, 5, 4]})
    >>> ax = validity(xrr.validity(num, gold=pd.Series({1: 1, 2: 2, 3: 4}),
    ...                            level="interval"))
    >>> [round(float(p.get_width()), 3) for p in ax.patches]  # b, then a
    [0.667, 0.333]
    """
    if result.classes is None:
        return _errors(result, label, ax, top)
    rows, name = _one_label(_frame(result.classes), label)
    more = top_note(MAX_NAMES, len(rows), "classes", "the table's order")
    rows = rows.iloc[:MAX_NAMES]
    ax = new_axes(ax, (span(len(rows), 0.3, 1.5, 4.5, 15.0), 3.5))
    x = np.arange(len(rows))
    ax.bar(x - 0.2, rows["recall"], 0.4, label="recall", color="C0")
    ax.bar(x + 0.2, rows["precision"], 0.4, label="precision", color="C1")
    ax.set_xticks(x, _cell_names(rows.index), rotation=90 if len(rows) > 6 else 0)
    ax.set(ylim=(0, 1.05), ylabel="share of annotations", xlabel=more,
           title="Recall and precision against the gold" + (f", label: {name}" if name
                                                             else ""))
    ax.legend(frameon=False, fontsize=8)
    fit_ticks(ax)
    return ax


def _errors(result: Any, label: Any, ax: Any, top: int) -> Any:
    """Numbers: each rater's MAE against the gold (largest first), the pool's as lines."""
    raters, name = _one_label(_frame(result.raters), label)
    summary = _frame(result.summary)
    if summary.index.nlevels == 1 and summary.index.name == "label":  # one row per label
        summary = summary.set_index(pd.RangeIndex(len(summary), name="row"), append=True)
    summary, _ = _one_label(summary, label)
    rows = raters.sort_values("mae", ascending=False, kind="stable").head(min(top, MAX_NAMES))
    ax = new_axes(ax, (6.0, span(len(rows), 0.2, 1.6, 2.5)))
    y = np.arange(len(rows))[::-1]
    err = None
    if "mae_lower" in rows.columns:
        err = np.abs(np.vstack([rows["mae"] - rows["mae_lower"],
                                rows["mae_upper"] - rows["mae"]]))
    ax.barh(y, rows["mae"], xerr=err, color="C0", label="rater")
    for col, style, what in (("mae", "--", "pool, annotations"),
                             ("mae_mean", ":", "pool, item means")):
        for k, v in enumerate(np.asarray(summary[col], dtype=float)):
            ax.axvline(v, color="C1", ls=style, label=what if k == 0 else None)
    ax.set_yticks(y, _cell_names(rows.index))
    shown = f"the {len(rows)} largest of {len(raters)} raters" if len(raters) > len(rows) \
        else f"{len(rows)} raters"
    ax.set(xlabel=f"mean absolute error against the gold ({shown})",
           title="Error against the gold" + (f", label: {name}" if name else ""))
    # beside the axes: with many raters of similar error no corner of the axes is clear
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fit_ticks(ax)
    return ax
