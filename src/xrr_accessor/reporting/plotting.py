"""The paper's figures (the ``plot`` extra: matplotlib, imported only when drawing).

``report.plot.<name>()`` draws from a :class:`~xrr_accessor.reporting.report.Report`;
``df.xrr.plot.<name>(...)`` makes the report first (its keyword arguments go
to :func:`~xrr_accessor.report`). Every method takes ``ax=`` (a new figure
when None) and returns the Axes; intervals, when the report has them, are
drawn as error bars.

* :meth:`ReportPlots.irr_hist`: IRR across labels, one histogram per
  replication (the paper's Fig 2);
* :meth:`ReportPlots.label`: one label's IRR in each replication and
  kappa_x of each pair (Fig 3);
* :meth:`ReportPlots.irr_vs_kappa`: per label, the IRR of two replications
  beside their kappa_x (Figs 4-6);
* :meth:`ReportPlots.heatmap`: normalized kappa_x, labels x pairs;
* :func:`rho_vs_normalized`: Spearman's rho_xy against normalized kappa_x
  (Fig 7; ``df.xrr.plot.rho_vs_normalized()``);
* :func:`plan`: the half width of the normalized kappa_x interval against
  the number of items (:func:`~xrr_accessor.plan`'s table).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._optional import new_axes, pyplot
from ..errors import InputError
from ..textsafe import figure_text
from .cells import TITLES, cell_names
from .figure_layout import MAX_NAMES, fit_ticks, span, top_note, x_rotation
from .heat import UNDEFINED_COLOR
from .heat import ink as _ink
from .heat import undefined_note as _undefined_note
from .heat import with_undefined as _with_undefined

__all__ = ["UNDEFINED_COLOR", "UNSHARED_COLOR", "ReportPlots", "pair_counts_note",
           "pairwise_heatmap", "plan", "rho_vs_normalized"]


def _fold(name: Any) -> str:
    return str(name).casefold().replace("_", "").replace(" ", "")


def _errors(rows: pd.DataFrame) -> np.ndarray | None:
    """Error bar lengths (2, n) from ``lower``/``upper``, or None without intervals."""
    if "lower" not in rows.columns:
        return None
    est = rows["estimate"].to_numpy()
    return np.vstack([est - rows["lower"].to_numpy(), rows["upper"].to_numpy() - est])




#: The colour of a rater heatmap's cell whose two raters never shared an item.
UNSHARED_COLOR = "white"


def pair_counts_note(values: np.ndarray, never: np.ndarray) -> str:
    """The rater heatmap title's lines counting the cells of no number (off the
    diagonal): pairs that never shared an item (white, "none"), apart from pairs
    that did and whose agreement is undefined (grey, NaN); "" when there are none.

    Examples
    --------
    >>> v = np.array([[np.nan, 0.5, np.nan], [0.5, np.nan, np.nan], [np.nan] * 3])
    >>> never = np.array([[False, False, True], [False] * 3, [True, False, False]])
    >>> print(pair_counts_note(v, never))
    <BLANKLINE>
    grey: undefined (NaN), 2 of 6 cells
    white: never shared an item, 2 of 6 cells
    """
    off = ~np.eye(len(values), dtype=bool)
    cells = int(off.sum())
    bad = int((np.isnan(values) & off & ~never).sum())
    unshared = int((never & off).sum())
    return ((f"\ngrey: undefined (NaN), {bad:,} of {cells:,} cells" if bad else "")
            + (f"\nwhite: never shared an item, {unshared:,} of {cells:,} cells"
               if unshared else ""))


class ReportPlots:
    """Figures of one :class:`~xrr_accessor.reporting.report.Report`."""

    def __init__(self, report: Any) -> None:
        self._report = report
        self._frame: pd.DataFrame = report.frame

    def _rows(self, statistic: str) -> pd.DataFrame:
        rows = self._frame[self._frame["statistic"] == statistic]
        if statistic != "irr" and rows.empty:  # one pool: no pair to draw
            raise InputError(f"this report has one replication, so no {TITLES[statistic]} "
                             "to draw "
                             "(it compares two); its figures are irr_hist(), and "
                             "pairwise_heatmap(data.xrr.pairwise()) for the raters.")
        return rows

    def _find_label(self, name: Any) -> Any:
        """``name`` as the report spells it (case and ``_``/spaces forgiven)."""
        labels = list(pd.unique(self._frame["label"]))
        if name in labels:
            return name
        folded = {_fold(lab): lab for lab in labels}
        if _fold(name) in folded:
            return folded[_fold(name)]
        raise InputError(f"label {name!r} is not in the report; labels: {labels[:10]}")

    def irr_hist(self, ax: Any = None, bins: int | np.ndarray = 10) -> Any:
        """IRR across labels, a histogram per replication (Fig 2), the replications'
        bars side by side within each bin: two pools whose IRRs share a bin are both
        seen (drawn as outlines one on top of the other, one was hidden). A
        replication with no defined IRR is said so in the legend."""
        ax = new_axes(ax, (6, 3.5))  # first: without matplotlib, the error naming the extra
        from matplotlib.ticker import MaxNLocator

        rows = self._rows("irr")
        values = rows["estimate"].to_numpy()
        finite = values[np.isfinite(values)]
        if isinstance(bins, int) and finite.size:
            bins = np.linspace(min(0.0, finite.min()), max(1.0, finite.max()), bins + 1)
        parts = list(rows.groupby("replication", sort=False))
        data = [part["estimate"].dropna().to_numpy(dtype=float) for _, part in parts]
        names = [figure_text(rep) + ("" if len(d) else " (IRR undefined: not drawn)")
                 for (rep, _), d in zip(parts, data, strict=True)]
        hatches = ["", "//", "..", "xx", "\\\\", "oo"]
        _, _, drawn = ax.hist(data, bins=bins, histtype="bar", rwidth=0.9, label=names,
                              edgecolor="white", linewidth=0.5)
        for k, bars in enumerate(drawn if len(data) > 1 else [drawn]):
            for bar in bars:
                bar.set_hatch(hatches[k % len(hatches)])
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set(xlabel=f"IRR ({self._report.attrs.get('irr')})", ylabel="labels",
               title="IRR of each label, by replication")
        ax.legend(frameon=False)
        return ax

    def label(self, name: Any, ax: Any = None) -> Any:
        """One label's IRR in each replication and kappa_x of each pair (Fig 3), as
        bars with their intervals; an undefined value is marked "NaN" on the axis line.
        Past six replications (21 bars), a replications x replications matrix instead:
        IRR on the diagonal, kappa_x off it (:func:`.pool_matrix.label_matrix`)."""
        pyplot()  # first: without matplotlib, the error naming the extra
        from matplotlib.patches import Patch

        from .pool_matrix import MAX_BAR_POOLS, label_matrix

        name = self._find_label(name)
        rows = self._frame[(self._frame["label"] == name)
                           & (self._frame["statistic"] != "normalized")]
        if (rows["statistic"] == "irr").sum() > MAX_BAR_POOLS:
            return label_matrix(rows, name, ax=ax)
        ax = new_axes(ax, (span(len(rows), 0.45, 1.5, 4.0), 3.5 + 0.06 * min(len(rows), 40)))
        names = [figure_text(n) for n in cell_names(rows)]  # never mathtext
        colors = ["C0" if s == "irr" else "C1" for s in rows["statistic"]]
        ax.bar(range(len(rows)), rows["estimate"], yerr=_errors(rows), color=colors,
               capsize=3)
        for k, v in enumerate(rows["estimate"]):
            if not np.isfinite(v):
                ax.text(k, 0, "NaN", ha="center", va="bottom", fontsize=8, color="0.3")
        ax.set_xticks(range(len(rows)), names, rotation=90 if len(rows) > 4 else 0)
        ax.set_xlim(-0.6, len(rows) - 0.4)  # an undefined last bar keeps its place
        ax.axhline(0, color="0.3", linewidth=0.8)
        ax.set(ylabel="coefficient", title=figure_text(name))
        ax.margins(y=0.22)  # room above the bars for the legend
        drawn = rows.loc[np.isfinite(rows["estimate"]), "statistic"]  # the legend: drawn only
        handles = [Patch(color=c, label=TITLES[s]) for s, c in (("irr", "C0"), ("kappa_x", "C1"))
                   if (drawn == s).any()]
        if handles:
            ax.legend(handles=handles, frameon=False, fontsize=8, ncols=2, loc="upper center")
        fit_ticks(ax)
        return ax

    def irr_vs_kappa(self, pair: tuple[Any, Any] | None = None, ax: Any = None) -> Any:
        """Per label, the IRR of two replications beside their kappa_x (Figs 4-6),
        labels ordered by kappa_x. ``pair`` (either order) defaults to the
        report's first."""
        kx = self._rows("kappa_x")
        if pair is None:
            pair = (kx["replication"].iloc[0], kx["replication_other"].iloc[0])
        a, b = pair
        sel = kx[(kx["replication"] == a) & (kx["replication_other"] == b)]
        if sel.empty:  # kappa_x is symmetric: the pair may be stored the other way round
            a, b = b, a
            sel = kx[(kx["replication"] == a) & (kx["replication_other"] == b)]
        if sel.empty:
            pairs = sorted(set(zip(kx["replication"], kx["replication_other"], strict=True)))
            raise InputError(f"pair {pair!r} is not in the report; pairs: {pairs}")
        sel = sel.sort_values("estimate", ascending=False, kind="stable")
        more = top_note(MAX_NAMES, len(sel), "labels", "largest kappa_x first")
        sel = sel.head(MAX_NAMES)
        irr = self._rows("irr").set_index(["label", "replication"])
        labels = list(sel["label"])
        x = np.arange(len(labels))
        longest = max((len(str(v)) for v in labels), default=0)  # upright names: height
        ax = new_axes(ax, (span(len(labels), 0.2, 3.5, 6.0, 15.0),
                           3.6 + 0.07 * min(longest, 60)))
        width = 0.27
        series = [(irr.loc[[(lab, rep) for lab in labels]], color, f"IRR {figure_text(rep)}")
                  for rep, color in [(a, "C0"), (b, "C2")]]
        series.append((sel, "C1", f"kappa_x {figure_text(a)} x {figure_text(b)}"))
        undefined = []
        for k, (part, color, name) in enumerate(series):
            est = part["estimate"].to_numpy(dtype=float)
            drawn = np.isfinite(est)  # the legend lists only what is drawn
            ax.bar(x + (k - 1) * width, est, width, yerr=_errors(part), color=color,
                   label=name if drawn.any() else "_nolegend_", capsize=2)
            for pos in (x + (k - 1) * width)[~drawn]:  # an undefined bar: said where it is
                ax.text(pos, 0, "NaN", ha="center", va="bottom", rotation=90, fontsize=8,
                        color="0.25")
            if not drawn.all():
                undefined.append(f"{name} undefined (NaN) on {int((~drawn).sum())} of "
                                 f"{len(est)} labels")
        rotation, ha = x_rotation(len(labels), longest)
        ax.set_xticks(x, [figure_text(v) for v in labels], rotation=rotation, ha=ha)
        ax.set_xlim(-0.5, len(labels) - 0.5)  # undefined bars keep their place
        ax.axhline(0, color="0.3", linewidth=0.8)
        ax.set(ylabel="coefficient", xlabel=more,
               title=f"IRR and kappa_x, {figure_text(a)} x {figure_text(b)}"
               + "".join(f"\n{u}" for u in undefined))
        if any(np.isfinite(p["estimate"]).any() for p, _, _ in series):
            ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
        fit_ticks(ax)
        return ax

    def label_distribution(self, label: Any = None, ax: Any = None) -> Any:
        """The models page's label distributions of one label (humans, candidates,
        gold); see :func:`~xrr_accessor.reporting.models_plots.label_distribution`."""
        from .models_plots import label_distribution

        return label_distribution(self._report, label=label, ax=ax)

    def heatmap(self, ax: Any = None, vmax: float = 1.5) -> Any:
        """Normalized kappa_x, labels (rows) x replication pairs (columns)."""
        rows = self._rows("normalized")
        cells = cell_names(rows)
        table = rows.assign(cell=cells).pivot(index="label", columns="cell",
                                              values="estimate")
        table = table.reindex(index=pd.unique(rows["label"]), columns=pd.unique(cells))
        more = top_note(MAX_NAMES, len(table), "labels", "the report's order")
        table = table.iloc[:MAX_NAMES]
        ax = new_axes(ax, (span(table.shape[1], 1.3, 3.2, 4.5, 13.0)
                           + 0.06 * max(len(str(v)) for v in table.index),
                           span(table.shape[0], 0.2, 2.2, 3.8, 13.0)))
        values = table.to_numpy(dtype=float)
        im = ax.imshow(values, cmap=_with_undefined("viridis"), vmin=0.0, vmax=vmax,
                       aspect="auto", interpolation="nearest")
        ax.set_xticks(range(table.shape[1]), [figure_text(v) for v in table.columns],
                      rotation=90 if table.shape[1] > 3 else 30, ha="center"
                      if table.shape[1] > 3 else "right")
        ax.set_yticks(range(table.shape[0]), [figure_text(v) for v in table.index])
        if more:
            ax.set_ylabel(more)
        if values.size <= 200:  # up to 200 cells (31 labels x 6 pairs): numbers in
            size = 12 if values.size <= 6 else 8 if values.size <= 60 else 7
            for (i, j), v in np.ndenumerate(values):
                ax.text(j, i, "NaN" if np.isnan(v) else f"{v:.2f}", ha="center",
                        va="center", color=_ink(v, 0.6 * vmax), fontsize=size)
        over = bool(np.isfinite(values).any() and np.nanmax(values) > vmax)
        ax.figure.colorbar(im, ax=ax, label="1 = agree across as within",
                           extend="max" if over else "neither")  # an arrow: values clipped
        ax.set_title("normalized kappa_x" + _undefined_note(values))
        fit_ticks(ax)
        return ax


def rho_vs_normalized(rho: pd.DataFrame, report: Any, ax: Any = None) -> Any:
    """Spearman's rho_xy against normalized kappa_x, one point per label and pair
    (the paper's Fig 7), with their correlation across points in the title.

    ``rho`` is :func:`~xrr_accessor.disattenuated_correlation`'s table,
    ``report`` a :class:`~xrr_accessor.reporting.report.Report` of the same data.
    """
    keys = ["label", "replication", "replication_other"]
    norm = report.frame[report.frame["statistic"] == "normalized"]
    both = rho.merge(norm[[*keys, "estimate"]], on=keys, how="inner")
    both = both[np.isfinite(both["rho"]) & np.isfinite(both["estimate"])]
    ax = new_axes(ax, (4.8, 4.2))
    for (a, b), part in both.groupby(["replication", "replication_other"], sort=False):
        ax.scatter(part["estimate"], part["rho"], s=18,
                   label=f"{figure_text(a)} x {figure_text(b)}")
    if len(both) >= 2:
        lo = float(min(both["estimate"].min(), both["rho"].min(), 0.0))
        hi = float(max(both["estimate"].max(), both["rho"].max(), 1.0))
        ax.plot([lo, hi], [lo, hi], color="0.6", linewidth=0.8, linestyle="--")
    r = np.corrcoef(both["estimate"], both["rho"])[0, 1] if len(both) >= 3 else np.nan
    ax.set(xlabel="normalized kappa_x", ylabel="Spearman's rho_xy (Eq 12)",
           title=f"rho_xy vs normalized kappa_x (r = {r:.2f})")
    ax.legend(frameon=False, fontsize=8)
    return ax


def plan(table: pd.DataFrame, ax: Any = None) -> Any:
    """Half width of the normalized kappa_x interval against the number of items,
    one line per label and pair, from :func:`~xrr_accessor.plan`'s table, with
    the target width dashed."""
    ax = new_axes(ax, (6, 3.8))
    keys = ["label", "replication", "replication_other"]
    for (label, a, b), part in table.groupby(keys, sort=False):
        ax.plot(part["n_items"], part["half_width"], marker="o", markersize=3,
                label=figure_text(f"{label}: {a} x {b}"))
    width = table.attrs.get("width")
    if width is not None:
        ax.axhline(width, color="0.3", linestyle="--", linewidth=1,
                   label=f"target +/- {width:g}")
    pilot = table.attrs.get("pilot_items")
    if pilot is not None:
        ax.axvline(pilot, color="0.6", linestyle=":", linewidth=1, label="pilot items")
    ax.set(xscale="log", yscale="log", xlabel="items", ylabel="half width of the interval",
           title="normalized kappa_x: interval half width by number of items")
    if table.groupby(keys).ngroups <= 12:
        ax.legend(frameon=False, fontsize=8)
    return ax


#: pairwise_heatmap: the largest side of the figure, in inches, and the most rater
#: names drawn (above, the raters are drawn in order without names).
PAIRWISE_MAX_INCHES = 12.0
PAIRWISE_MAX_NAMES = 60


def pairwise_heatmap(table: pd.DataFrame, label: Any = None, replication: Any = None,
                     ax: Any = None) -> Any:
    """The rater x rater matrix of :func:`~xrr_accessor.pairwise` as a heatmap (one
    label and replication: the first unless named), numbers written in when few.
    Cells without a number are told apart and counted in the title: white ("none")
    where the two raters never shared an item, grey (NaN) where they did and their
    agreement is undefined (:func:`pair_counts_note`)."""
    t = table
    for level, want in (("label", label), ("replication", replication)):
        if level in (t.index.names or []):
            key = want if want is not None else t.index.get_level_values(level)[0]
            if key not in t.index.get_level_values(level):
                raise InputError(f"{level}={key!r} is not in the table; it has "
                                 f"{list(pd.unique(t.index.get_level_values(level)))}.")
            t = t.xs(key, level=level)
    order = list(pd.unique(np.concatenate([t.index.get_level_values(0),  # each pair
                                           t.index.get_level_values(1)])))  # once: both
    matrix = t["estimate"].unstack().reindex(index=order, columns=order)
    shared = (t["n_items"] if "n_items" in t.columns else t["estimate"].notna()
              ).unstack().reindex(index=order, columns=order).to_numpy(dtype=float)
    values = matrix.to_numpy(dtype=float)
    if table.attrs.get("both_orders") is False:  # each pair once: the other order too
        values = np.where(np.isnan(values), values.T, values)
        shared = np.where(np.isnan(shared), shared.T, shared)
    n = len(order)
    off = ~np.eye(n, dtype=bool)  # the diagonal is no pair
    never = off & ~(np.nan_to_num(shared) > 0)  # left out of the table, or 0 items
    side = min(PAIRWISE_MAX_INCHES, max(4.5, 2.0 + 0.45 * n))  # a crowd: a readable size
    ax = new_axes(ax, (side, min(PAIRWISE_MAX_INCHES - 0.7, max(3.8, 1.6 + 0.4 * n))))
    im = ax.imshow(values, cmap=_with_undefined("viridis"),
                   vmin=min(0.0, np.nanmin(values, initial=0.0)), vmax=1.0, aspect="auto",
                   interpolation="nearest")
    if never.any():  # over the grey: white, where no agreement was ever possible
        from matplotlib.colors import ListedColormap

        ax.imshow(np.where(never, 1.0, np.nan), aspect="auto", interpolation="nearest",
                  cmap=ListedColormap([UNSHARED_COLOR]).with_extremes(bad=(0, 0, 0, 0)),
                  vmin=0.0, vmax=1.0)
    if n <= PAIRWISE_MAX_NAMES:
        ax.set_xticks(range(n), [figure_text(c) for c in matrix.columns],
                      rotation=90 if n > 6 else 30, ha="center" if n > 6 else "right")
        ax.set_yticks(range(n), [figure_text(c) for c in matrix.index])
    else:  # too many names to read: the raters in the table's order, named in the table
        ax.set_xlabel(f"{n} raters, in the table's order (names not drawn)")
    if values.size <= 100:
        for (i, j), v in np.ndenumerate(values):
            if i != j:
                text = "none" if never[i, j] else "NaN" if np.isnan(v) else f"{v:.2f}"
                ax.text(j, i, text, ha="center", va="center", color=_ink(v, 0.6),
                        fontsize=8)
    weights, level = table.attrs.get("weights"), table.attrs.get("level")  # named
    metric = table.attrs.get("metric", "kappa") + (
        f", {weights} weights" if weights not in (None, "unweighted") else
        f", {level} level" if weights is None and level not in (None, "nominal") else "")
    ax.figure.colorbar(im, ax=ax, label=metric)
    ax.set_title(f"{metric} per pair of raters"
                 + pair_counts_note(values, never))
    fit_ticks(ax)
    return ax
