"""One label across many replications as a matrix (the ``plot`` extra): each pool's IRR
on the diagonal, kappa_x of each pair off it.

:meth:`~xrr_accessor.reporting.plotting.ReportPlots.label` draws a bar per IRR and per
pair; past :data:`MAX_BAR_POOLS` replications the pairs grow as P(P-1)/2 (30 pools: 435
bars) and it draws this matrix instead, where every pair keeps a cell and each pool a
row and a column.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._optional import new_axes
from ..textsafe import figure_text
from .figure_layout import MAX_NAMES, fit_ticks, span, top_note
from .heat import ink, undefined_note, with_undefined

__all__ = ["MAX_BAR_POOLS", "label_matrix", "pool_matrix"]

#: The most replications :meth:`ReportPlots.label` draws as bars (6 pools: 6 IRRs and 15
#: pairs, 21 bars); past it, the matrix.
MAX_BAR_POOLS = 6

#: The most cells a matrix writes its numbers in (12 pools).
MAX_WRITTEN = 144


def pool_matrix(rows: pd.DataFrame) -> pd.DataFrame:
    """The replications x replications matrix of one label's report rows: the IRR of
    each replication on the diagonal, kappa_x of each pair off it (both orders), NaN
    where the report has no number. Replications in the report's order.

    Examples
    --------
    >>> rows = pd.DataFrame({"statistic": ["irr", "irr", "kappa_x"],
    ...                      "replication": ["A", "B", "A"],
    ...                      "replication_other": [None, None, "B"],
    ...                      "estimate": [0.5, 0.7, 0.4]})
    >>> pool_matrix(rows).to_numpy().tolist()
    [[0.5, 0.4], [0.4, 0.7]]
    """
    pools = pd.Index(pd.unique(pd.concat([rows["replication"],
                                          rows["replication_other"].dropna()])))
    values = np.full((len(pools), len(pools)), np.nan)
    irr = rows[rows["statistic"] == "irr"]
    kx = rows[rows["statistic"] == "kappa_x"]
    at = pools.get_indexer(irr["replication"])
    values[at, at] = irr["estimate"].to_numpy(dtype=float)
    a, b = pools.get_indexer(kx["replication"]), pools.get_indexer(kx["replication_other"])
    est = kx["estimate"].to_numpy(dtype=float)
    values[a, b] = est
    values[b, a] = est
    return pd.DataFrame(values, index=pools.rename("replication"),
                        columns=pools.rename("replication_other"))


def label_matrix(rows: pd.DataFrame, name: Any, ax: Any = None) -> Any:
    """Draw :func:`pool_matrix` of one label's rows: at most :data:`MAX_NAMES` pools (the
    report's first; the rest counted in the axis label), numbers written in when at most
    12 pools, undefined cells grey and counted in the title. Intervals are in the report's
    table (a cell has no room for them)."""
    table = pool_matrix(rows)
    total = len(table)
    more = top_note(MAX_NAMES, total, "replications", "the report's order")
    table = table.iloc[:MAX_NAMES, :MAX_NAMES]
    n = len(table)
    longest = max(len(str(v)) for v in table.index)
    side = span(n, 0.22, 2.5, 4.5, 13.0) + 0.06 * min(longest, 40)
    ax = new_axes(ax, (side + 1.2, side))
    values = table.to_numpy(dtype=float)
    low = min(0.0, float(np.nanmin(values, initial=0.0)))
    im = ax.imshow(values, cmap=with_undefined("viridis"), vmin=low, vmax=1.0,
                   aspect="auto", interpolation="nearest")
    from matplotlib.patches import Rectangle

    for k in range(n):  # the diagonal outlined: an IRR, not a pair
        ax.add_patch(Rectangle((k - 0.5, k - 0.5), 1, 1, fill=False, edgecolor="black",
                               linewidth=0.8 if n <= 31 else 0.4))
    names = [figure_text(v) for v in table.index]
    ax.set_xticks(range(n), names, rotation=90 if n > 4 or longest > 8 else 0, ha="center")
    ax.set_yticks(range(n), names)
    if more:
        ax.set_xlabel(more)
    if values.size <= MAX_WRITTEN:
        for (i, j), v in np.ndenumerate(values):
            ax.text(j, i, "NaN" if np.isnan(v) else f"{v:.2f}", ha="center", va="center",
                    color=ink(v, 0.6), fontsize=7 if n > 8 else 8)
    ax.figure.colorbar(im, ax=ax, label="IRR (diagonal), kappa_x (off it)")
    ax.set_title(f"{figure_text(name)}: IRR of {total} replications (outlined diagonal), "
                 f"kappa_x of each pair" + undefined_note(values))
    fit_ticks(ax)
    return ax
