"""A report as one self-contained HTML page: :meth:`Report.to_html`.

The page holds the data's replications, a plain-language reading of every
replication pair (:func:`~xrr_accessor.reporting.reading.readings`), the paper's
Table 5 with intervals and Landis-Koch bands, and the figures as inline PNG
(``data:`` URIs): no network, no CDN, no script. It is rendered by Jinja2
from the package's ``templates/report.html.j2`` (the ``io`` extra); figures
need matplotlib (the ``plot`` extra).
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._optional import require
from ..diagnostics.items import top_items
from .bands import BAND_ORDER, LEGEND, LEGEND_NOTE
from .cells import SCALES, TITLES, cell_names, fixed, shown
from .figure_layout import MAX_NAMES, quiet_layout
from .item_scale import d_meaning
from .pool_html import collapse_reasons, family_long, family_title, family_wide, items_html
from .rater_view import COUNTS, gold_sentences, page_raters, pool_alpha, ranked, unranked_sentence
from .reading import READINGS, readings

__all__ = ["MAX_PAIR_FIGURES", "MIN_HIST_LABELS", "OPEN_READINGS", "TOP_ROWS",
           "WIDE_FAMILY_LABELS", "to_html"]

#: Pairs drawn with their own IRR-vs-kappa_x figure; the heatmap shows them all.
MAX_PAIR_FIGURES = 6
#: Labels needed for the histogram of IRRs across labels (fewer: the bar charts say it all).
MIN_HIST_LABELS = 8
#: Pairs with at most this many labels show their sentences open; others folded.
OPEN_READINGS = 8

def _png(ax: Any, alt: str, caption: str) -> dict[str, Any]:
    """An Axes' figure as an inline PNG (the figure is closed)."""
    import matplotlib.pyplot as plt

    fig = ax.figure
    buf = io.BytesIO()
    dpi = 100
    with quiet_layout():
        fig.savefig(buf, format="png", dpi=dpi)
    width, height = (round(v * dpi) for v in fig.get_size_inches())
    plt.close(fig)
    src = "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return {"src": src, "alt": alt, "caption": caption, "width": width, "height": height}


def _figures(report: Any) -> tuple[list[dict[str, Any]], str]:
    from .._optional import pyplot

    pyplot()  # matplotlib, or an ImportError naming the plot extra
    plots, frame = report.plot, report.frame
    out = []
    irr = frame.loc[frame["statistic"] == "irr", "estimate"]
    n_labels = frame["label"].nunique()
    if n_labels >= MIN_HIST_LABELS and irr[np.isfinite(irr)].nunique() > 1:  # not one bar
        out.append(_png(plots.irr_hist(), "Histogram of the IRR of each label by replication",
                        "IRR across labels, one histogram per replication (the paper's Fig 2)."))
    if report.one_pool:
        out += _pool_figures(report)
    kx = frame[frame["statistic"] == "kappa_x"]
    pairs = list(dict.fromkeys(zip(kx["replication"], kx["replication_other"], strict=True)))
    if pairs:
        which = (f"the first {MAX_NAMES} of the {n_labels:,} labels (the report's order)"
                 if n_labels > MAX_NAMES else "every label")
        out.append(_png(plots.heatmap(), "Heatmap of normalized kappa_x, labels by pair",
                        f"Normalized kappa_x of {which} and every replication pair; 1 means "
                        "the pools agree with each other as much as within themselves."))
    per = (f"the {MAX_NAMES} labels of largest kappa_x of {n_labels:,}"
           if n_labels > MAX_NAMES else "per label")
    for a, b in pairs[:MAX_PAIR_FIGURES]:
        out.append(_png(plots.irr_vs_kappa((a, b)), f"IRR of {a} and {b} beside kappa_x",
                        f"{a} x {b}: {per}, the IRR of each replication beside their "
                        "kappa_x, labels ordered by kappa_x (the paper's Figs 4-6)."))
    left = len(pairs) - MAX_PAIR_FIGURES
    note = (f"{left} more pair{'s' if left > 1 else ''} not drawn one by one (the heatmap "
            "shows them); draw one with report.plot.irr_vs_kappa((a, b)).") if left > 0 else ""
    return out, note


def _pool_figures(report: Any) -> list[dict[str, Any]]:
    """The one-pool page's figures: raters against the rest and the items most
    disagreed on, for the first label (the others: ``diagnostics.plots``)."""
    from ..diagnostics import plots

    out = []
    first = report.frame["label"].iloc[0]
    raters = report.raters
    if isinstance(raters, pd.DataFrame):  # the ranked raters of the first label only
        raters = ranked(raters)
        if "label" in raters.index.names:
            raters = raters[raters.index.get_level_values("label") == first]
    if raters is not None and np.isfinite(raters["kappa_x"]).sum() > 1:  # points to compare
        label = first if "label" in raters.index.names else None
        out.append(_png(plots.raters(raters, label=label),
                        f"Raters against the rest of the pool, {first}",
                        f"{first}: {_drawn(raters)}: each one's kappa_x against the other "
                        "raters (x) and how the pool's alpha changes without them (y); the "
                        "lowest named."))
    items = report.items
    if items is not None and len(items) and np.isfinite(items["disagreement"]).any():
        label = first if "label" in items.index.names else None
        shown, tie = top_items(items, TOP_ROWS, label=label)
        if shown["disagreement"].nunique() < 2:  # equal bars: the table says the tie
            return out
        out.append(_png(plots.items(items, label=label, top=TOP_ROWS),
                        f"The items most disagreed on, {first}",
                        f"{first}: the {len(shown)} items of largest disagreement D_i, each "
                        f"with its number of annotations n" + (f"; {tie}." if tie else ".")))
    return out


def _drawn(raters: pd.DataFrame) -> str:
    """Which raters the page's rater figure draws: "the 12 ranked raters (at least 10
    items)", and those of them without a point (kappa_x or alpha without them
    undefined)."""
    n = len(raters)
    cut = raters.attrs.get("min_items")
    point = (np.isfinite(raters["kappa_x"].to_numpy(dtype=float))
             & np.isfinite(raters["delta_alpha"].to_numpy(dtype=float)))
    text = (f"the {n:,} ranked rater{'s' * (n != 1)}"
            + (f" (at least {cut:,} item{'s' * (cut != 1)})" if cut is not None else ""))
    missing = n - int(point.sum())
    return text + (f", {missing:,} of them without a point (undefined)" if missing else "")


def _cell(row: Any, digits: int) -> dict[str, Any]:
    """A Table 5 cell by the one printing rule (:func:`.cells.shown`): the digits that
    keep its number and interval in the band (or verdict) it reads."""
    est = float(row.estimate)
    counts = (f"{row.n_items:,} items, {row.n_annotations:,} annotations"
              + (f", {row.n_unpairable:,} left out" if row.n_unpairable else ""))
    if not np.isfinite(est):
        return {"value": "NaN", "interval": "", "band": "", "band_css": "", "css": "nan",
                "counts": counts}
    lo, hi = float(getattr(row, "lower", np.nan)), float(getattr(row, "upper", np.nan))
    value, interval = shown(est, lo, hi, digits, scale=SCALES.get(row.statistic))
    band = row.band if isinstance(row.band, str) else ""
    return {"value": value, "interval": interval, "band": band,
            "band_css": band.replace(" ", "-"), "css": "num", "counts": counts}


def _table(report: Any, digits: int) -> tuple[list[dict[str, Any]], list[str],
                                              list[dict[str, Any]]]:
    frame = report.frame.assign(cell=cell_names(report.frame))
    order = frame[["statistic", "cell"]].drop_duplicates()
    groups = [{"title": TITLES[s], "span": int((order["statistic"] == s).sum())}
              for s in pd.unique(order["statistic"])]
    cells = order["cell"].tolist()
    rows = []
    for label, part in frame.groupby("label", sort=False):
        by_cell = {(r.statistic, r.cell): _cell(r, digits) for r in part.itertuples()}
        rows.append({"label": label, "cells": [by_cell[(s, c)] for s, c in
                                               order.itertuples(index=False)]})
    return groups, cells, rows



#: Rows of the rater and item tables shown per label and replication on the page.
TOP_ROWS = 10
#: Past this many labels the classic family is a row per label (not a row per coefficient).
WIDE_FAMILY_LABELS = 8


def _summary(part: pd.DataFrame, one_pool: bool = False) -> str:
    """How many labels of one pair got each verdict, in one line."""
    counts = part["verdict"].value_counts()
    n = len(part)
    order = BAND_ORDER if one_pool else READINGS
    if n == 1:  # one label: its verdict, said of it
        return f"{part['pair'].iloc[0]}, on {part['label'].iloc[0]}: {part['verdict'].iloc[0]}."
    return (f"{part['pair'].iloc[0]}, {n} labels: "
            + ", ".join(f"{v} on {counts[v]}" for v in order if v in counts) + ".")


def _pool_tables(report: Any, digits: int) -> list[dict[str, Any]]:
    """The one-pool report's agreement table and diagnostics as HTML tables: the classic
    family with its reasons said once below it, the raters (or one line why there are
    none) and the items, each tie one row (:func:`.pool_html.items_html`)."""
    out = []
    table = report.agreement
    if isinstance(table, pd.DataFrame):
        note = _agreement_note(report)
        shown = family_long(table.drop(columns=["reason"], errors="ignore"), digits)
        if ("label" in table.index.names
                and table.index.get_level_values("label").nunique() > WIDE_FAMILY_LABELS):
            shown = family_wide(table, digits).rename_axis(index=None, columns="label")
            note += (f" Past {WIDE_FAMILY_LABELS} labels a row per label, a column per coefficient"
                     + (" (its interval in brackets)" if "lower" in table.columns else "")
                     + "; pa, pe, p-values and bands: report.agreement.")
        out.append({"id": "agreement", "title": family_title(table) + ", side by side",
                    "note": note, "reasons": collapse_reasons(table),
                    "html": _frame_html(shown, "agreement", digits)})
    raters = report.raters
    why = report.attrs.get("no_raters", "")
    if isinstance(raters, pd.DataFrame):
        shown = ranked(raters, TOP_ROWS)
        out.append({"id": "raters", "title": "Raters against the rest of the pool",
                    "note": _raters_note(raters) if len(shown) else unranked_sentence(
                        raters, "no rater to show; min_items=1 ranks every rater"),
                    "html": _frame_html(page_raters(shown, digits), "raters", digits)
                    if len(shown) else "",
                    "reasons": []})
    elif why:  # one line, not a section of nothing
        out.append({"id": "raters-none", "title": "Raters", "note": why, "html": "",
                    "reasons": []})
    items = report.items
    if isinstance(items, pd.DataFrame):
        out.append({"id": "items", "title": "Items most disagreed on",
                    "note": _items_note(items, digits),
                    "html": items_html(items, TOP_ROWS, digits), "reasons": []})
    return out


def _frame_html(shown: pd.DataFrame, key: str, digits: int) -> str:
    return str(shown.to_html(float_format=lambda v: fixed(v, digits), na_rep="", border=0,
                             table_id=f"xrr-{key}", escape=True,
                             formatters={c: _p_text for c in shown.columns if c == "p_value"}))


def _raters_note(raters: pd.DataFrame | None) -> str:
    """The rater table's caption: what it holds, its interval, the raters not ranked,
    and with gold how far the pool-based ranking agrees with the gold-based one."""
    note = (f"Leave one rater out: kappa_x of each rater against the others, and the pool's "
            f"alpha without them; the ranked raters, worst first, up to {TOP_ROWS} per label.")
    if raters is None or not isinstance(raters, pd.DataFrame):
        return note
    a = raters.attrs
    if "ci" in a:
        note += (f" Brackets: a {a['ci']:.0%} {a.get('interval')} interval from "
                 f"{a.get('n_boot')} bootstrap replicates of items.")
    if "n_other" in raters.columns:
        note += (f" {COUNTS}: the rater's annotations, in brackets those on items another "
                 "rater annotated too (kappa_x's items) and the other raters' annotations "
                 "on them.")
    return " ".join([note, pool_alpha(raters, 3), unranked_sentence(raters),
                     *gold_sentences(raters)]).strip()


def _agreement_note(report: Any) -> str:
    """The caption of the one-pool page's classic-family table, saying what its columns
    hold: analytic intervals (and which rows have none), or none on dask-backed data."""
    table = report.agreement
    note = ("Every coefficient on the same annotations, with observed (pa) and chance (pe) "
            "agreement: the same pa with a larger pe gives a lower kappa (the kappa "
            "paradox). Percent agreement has no chance term.")
    weights = None if table is None else table.attrs.get("weights")
    if weights not in (None, "unweighted"):
        note += (f" Weighted: {weights} agreement weights, those of the "
                 f"{report.attrs.get('level')} level, for every row (alpha's D = 1 - w); "
                 "exact agreement is the unweighted table, agreement_table(data, "
                 "weights='unweighted').")
        if report.attrs.get("irr") == "alpha" and report.attrs.get("level") == "ordinal":
            note += (f" Its alpha ({weights} weights) is not the IRR above, alpha at the "
                     "ordinal level with Krippendorff's ordinal distance: two coefficients.")
    if table is None or "ci" not in report.attrs:
        return note
    if "lower" not in table.columns:
        return note + (" This table has no intervals: on dask-backed data it is computed "
                       "without them (see the notes); agreement_table(data, ci=...) on the "
                       "data in memory gives Gwet's analytic intervals.")
    note += " Its intervals are analytic (Gwet's variances), not the bootstrap of the IRR "
    note += "table above"
    blank = table["lower"].isna() & np.isfinite(table["estimate"])
    names = list(dict.fromkeys(table.index.get_level_values("metric")[blank]))
    return note + (f"; {', '.join(names)} {'has' if len(names) == 1 else 'have'} none "
                   "(see reason)." if names else ".")


def _items_note(items: pd.DataFrame | None, digits: int = 3) -> str:
    """The caption of the one-pool page's item table: how many rows, what D means at
    the table's level (its unit and largest value, :func:`d_meaning`), and why items
    with few annotations come first (the ties are rows of the table)."""
    note = (f"Per-item disagreement, most first, up to {TOP_ROWS} per label; items tied "
            "past them are one row.")
    if items is None or not len(items):
        return note
    found_d = items.attrs.get("largest_d")
    n = (items["n_annotations"][np.isfinite(items["disagreement"].to_numpy(dtype=float))]
         if "n_annotations" in items.columns else pd.Series([], dtype=float))
    note += " " + d_meaning(items.attrs.get("level"), None if found_d is None else
                            pd.DataFrame(found_d).set_index(["label", "replication"]), digits,
                            n_common=int(n.mode().min()) if len(n) else 0)  # smallest of ties
    return " ".join([note, FEW_ANNOTATIONS_ANY_LEVEL])


#: Why the most disagreed-on items are often those with few annotations, at any level
#: (a nominal example is in reporting.item_scale.d_meaning).
FEW_ANNOTATIONS_ANY_LEVEL = ("An item's largest D_i is reached with two annotations and is "
                             "often lower with more, so the list favours items with few "
                             "annotations: read n_annotations beside D.")

def _p_text(v: Any) -> str:
    """A p-value as the command line prints it: ``<0.001`` below 0.001."""
    v = float(v)
    return "" if not np.isfinite(v) else "<0.001" if v < 0.001 else f"{v:.3f}"


def to_html(report: Any, path: str | Path | None = None, title: str | None = None,
            figures: bool = True, digits: int = 3) -> str | None:
    """Write ``report`` as one self-contained HTML page (see :meth:`Report.to_html`)."""
    jinja2 = require("jinja2", "the HTML report")
    from .. import __version__

    groups, cells, rows = _table(report, digits)
    one = report.one_pool
    read = report.readings() if one else readings(report)
    pairs = []
    for (a, b), part in read.groupby(["replication", "replication_other"], sort=False,
                                     dropna=False):
        pairs.append({"title": str(part["pair"].iloc[0]) if one else f"{a} x {b}",
                      "summary": _summary(part, one),
                      "open": len(part) <= OPEN_READINGS,
                      "sentences": [{"verdict": v, "css": v.replace(" ", "-"), "text": t}
                                for v, t in zip(part["verdict"], part["text"], strict=True)]})
    figs, left_out = _figures(report) if figures else ([], "")
    models = None
    if getattr(report, "models", None) is not None:  # can these models replace the humans?
        from .models_html import models_section

        models = models_section(report, digits, _png if figures else None)
    attrs = report.attrs
    interval_note = (f"Brackets: {attrs['ci']:.0%} {attrs.get('interval', '')} intervals from "
                     f"{attrs.get('n_boot')} bootstrap replicates of items."
                     if "ci" in attrs else
                     "No intervals: ask for them with ci=0.95 (xrr report --ci 0.95 in the "
                     "shell).")
    env = jinja2.Environment(loader=jinja2.PackageLoader("xrr_accessor", "templates"),
                             autoescape=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    page = env.get_template("report.html.j2").render(
        title=title or report.title,
        caption=report.caption(), models=models,
        version=__version__, replications=list(attrs.get("replications", {}).items()),
        n_labels=len(rows), n_pairs=0 if one else len(pairs), readings=pairs,
        groups=groups, cells=cells, rows=rows, interval_note=interval_note,
        figures=figs, figures_left_out=left_out, bands=LEGEND, bands_note=LEGEND_NOTE,
        notes=attrs.get("notes", []),
        table_title="IRR" if one else "IRR, kappa_x and normalized kappa_x",
        pool_tables=_pool_tables(report, digits) if one else [],
        has_agreement=getattr(report, "agreement", None) is not None)
    if path is None:
        return page
    Path(path).write_text(page, encoding="utf-8")
    return None
