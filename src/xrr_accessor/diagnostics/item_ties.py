"""How the first rows of :func:`~xrr_accessor.diagnostics.items.item_disagreement`'s
table sit among ties, in numbers and in words (the report and the items figure
show them)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["tie_sentence", "ties", "top_items"]


def ties(table: pd.DataFrame, top: int) -> pd.DataFrame:
    """How the first ``top`` rows of each label and replication of
    :func:`~xrr_accessor.diagnostics.items.item_disagreement`'s table sit among
    ties: the rows ``shown``, the ``top_value`` and the items at it (``n_top``),
    the last value shown (``last_value``), the items at it (``n_last``) and those
    of them shown (``n_last_shown``). Within a tie the table keeps the data's order, so the rows
    shown of a tie are its first items in the data.

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor import item_disagreement
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
    ...                    "joy": [0, 1, 1, 0, 0, 1, 1, 1]})
    >>> ties(item_disagreement(df, level="nominal"), top=2)
           shown  top_value  n_top  last_value  n_last  n_last_shown
    label
    joy        2        1.0      3         1.0       3             2
    """
    d = table["disagreement"]
    keys = list(range(table.index.nlevels - 1))  # every level but the item's
    parts = d.groupby(level=keys, sort=False) if keys else [(None, d)]
    rows, names = [], []
    for key, part in parts:
        values = part.to_numpy(dtype=float)
        values = values[np.isfinite(values)]
        shown = values[:top]
        if not len(shown):
            continue
        last = shown[-1]
        rows.append((len(shown), values[0], int((values == values[0]).sum()), last,
                     int((values == last).sum()), int((shown == last).sum())))
        names.append(key if isinstance(key, tuple) else (key,))
    cols = ["shown", "top_value", "n_top", "last_value", "n_last", "n_last_shown"]
    out = pd.DataFrame(rows, columns=cols)
    if keys and names:
        index = pd.MultiIndex.from_tuples(names, names=list(table.index.names[:-1]))
        out.index = index.get_level_values(0) if len(keys) == 1 else index
    return out


def tie_sentence(row: Any, digits: int = 3) -> str:
    """One row of :func:`ties` in words, or "" when the rows shown are not an
    arbitrary choice among equals.

    Examples
    --------
    >>> tie_sentence(pd.Series({"shown": 10, "top_value": 0.7746, "n_top": 4213,
    ...                         "last_value": 0.7746, "n_last": 4213, "n_last_shown": 10}))
    "4,213 items tie at the top value, D = 0.775; the 10 shown are the first in the data's order"
    """
    if row["n_top"] > row["shown"]:
        return (f"{int(row['n_top']):,} items tie at the top value, D = "
                f"{row['top_value']:.{digits}f}; {_the_shown(row['shown'])} the first in the "
                "data's order")
    if row["n_last"] > row["n_last_shown"]:
        return (f"{int(row['n_last']):,} items tie at D = {row['last_value']:.{digits}f}, the "
                f"last value shown; {_the_shown(row['n_last_shown'])} the first in the "
                "data's order")
    return ""


def top_items(table: pd.DataFrame, top: int, label: Any = None) -> tuple[pd.DataFrame, str]:
    """The ``top`` rows of largest D_i of one ``label`` (the first by default) of
    :func:`~xrr_accessor.diagnostics.items.item_disagreement`'s table, every
    replication together (as :func:`~xrr_accessor.diagnostics.plots.items` draws
    them; ties keep the data's order), and how they sit among ties in words
    (:func:`tie_sentence`; "" when they are not a choice among equals).

    Examples
    --------
    >>> from xrr_accessor import item_disagreement
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "joy": [0, 1, 1, 0, 1, 1]})
    >>> rows, said = top_items(item_disagreement(df, level="nominal"), top=1)
    >>> rows.index.get_level_values("item").tolist(), said
    ([1], "2 items tie at the top value, D = 1.000; the one shown is the first in the data's order")
    """
    rows = table
    if "label" in (table.index.names or []):
        first = table.index.get_level_values("label")[0] if len(table) else None
        rows = table.xs(first if label is None else label, level="label")
    ranked = rows.dropna(subset=["disagreement"]).sort_values(
        "disagreement", ascending=False, kind="stable")  # ties keep the data's order
    best = ranked.head(top)
    said = tie_sentence(ties(ranked.reset_index(drop=True), top).iloc[0]) if len(best) else ""
    return best, said


def _the_shown(n: Any) -> str:
    return "the one shown is" if int(n) == 1 else f"the {int(n)} shown are"
