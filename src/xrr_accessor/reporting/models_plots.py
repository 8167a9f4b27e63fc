"""The models page's figure: each source's label distribution, side by side.

An LLM judge that almost never says ``tie`` or prefers ``left`` shows here before any
coefficient does: per category, the share of the humans', each candidate's (and the
gold's) annotations, as horizontal bars grouped by category. Numbers with more than
:data:`MAX_CATEGORIES` distinct values are binned into that many equal-width bins.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._optional import new_axes
from ..errors import InputError
from ..textsafe import figure_text

__all__ = ["MAX_CATEGORIES", "label_distribution"]

#: Categories drawn one by one; more (numbers) are binned, more labels are cut to the
#: most frequent ones with a note.
MAX_CATEGORIES = 12

_HUMAN, _GOLD = "#555555", "#000000"


def _binned(part: pd.DataFrame) -> pd.DataFrame:
    """Numeric categories in MAX_CATEGORIES equal-width bins (shares added)."""
    values = pd.to_numeric(part["category"], errors="coerce")
    lo, hi = float(values.min()), float(values.max())
    edges = np.linspace(lo, hi, MAX_CATEGORIES + 1)
    which = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, MAX_CATEGORIES - 1)
    names = [f"{edges[k]:.3g} to {edges[k + 1]:.3g}" for k in range(MAX_CATEGORIES)]
    out = part.assign(category=pd.Categorical([names[k] for k in which], categories=names))
    return out.groupby(["replication", "role", "category"], observed=False, sort=False)[
        ["n", "share"]].sum().reset_index()


def label_distribution(report: Any, label: Any = None, ax: Any = None) -> Any:
    """Shares of each category in the humans', each candidate's and the gold's
    annotations of one label (default: the first), as grouped horizontal bars.

    Parameters
    ----------
    report : Report
        A models page (:func:`~xrr_accessor.report` with ``candidates=``, ``epsilon=``
        or ``gold=``).
    label : optional
        The label drawn (default: the first).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    dist = getattr(report, "distribution", None)
    if dist is None:
        raise InputError("label_distribution draws a models page: report(..., "
                         "reference=..., candidates=... or epsilon=...).")
    labels = list(pd.unique(dist["label"]))
    label = labels[0] if label is None else label
    if label not in labels:
        raise InputError(f"label {label!r} is not in the report; labels: {labels[:10]}")
    part = dist[dist["label"] == label]
    sources = list(pd.unique(part["replication"]))
    note = ""
    cats = list(pd.unique(part["category"]))
    if len(cats) > MAX_CATEGORIES:
        numeric = pd.to_numeric(part["category"], errors="coerce").notna().all()
        if numeric:
            part = _binned(part)
        else:
            top = (part.groupby("category", sort=False)["share"].max()
                   .sort_values(ascending=False).index[:MAX_CATEGORIES])
            note = f" ({MAX_CATEGORIES} of {len(cats)} categories: the most frequent)"
            part = part[part["category"].isin(top)]
        cats = list(pd.unique(part["category"]))
    height = min(10.0, 1.4 + 0.22 * len(cats) * len(sources))
    ax = new_axes(ax, (7.0, height))
    import matplotlib.pyplot as plt

    palette = plt.get_cmap("tab10")
    roles = part.drop_duplicates("replication").set_index("replication")["role"]
    width = 0.8 / len(sources)
    y = np.arange(len(cats))
    k_cand = 0
    for s, name in enumerate(sources):
        shares = (part[part["replication"] == name].set_index("category")["share"]
                  .reindex(cats).to_numpy(dtype=float))
        role = roles[name]
        color: Any = _HUMAN if role == "reference" else _GOLD if role == "gold" else None
        if color is None:
            color = palette(k_cand % 10)
            k_cand += 1
        ax.barh(y - 0.4 + width * (s + 0.5), np.nan_to_num(shares), height=width * 0.95,
                color=color, label=figure_text(f"{name} ({role})"))
    ax.set_yticks(y, [figure_text(str(c)) for c in cats])
    ax.invert_yaxis()
    ax.set_xlabel("share of the source's annotations")
    ax.set_xlim(0, max(1.0, float(np.nanmax(part["share"])) if len(part) else 1.0))
    import textwrap

    # wrapped: a long note ran past the figure's right edge (the legend takes the side)
    ax.set_title(figure_text("\n".join(textwrap.wrap(
        f"{label}: labels given by each source{note}", 60))), loc="left")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return ax
