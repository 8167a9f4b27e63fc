"""The one-pool page's tables, said once: :func:`~xrr_accessor.report` on one pool.

A pool of 31 labels gave a page of 28,000 pixels: 310 item rows tied at D = 1.000,
the same "no analytic interval" reason once per label and metric, and no word on
why there was no rater table. Here each is said once, with the numbers it covers:

* :func:`collapse_reasons`: the classic family's ``reason`` column, each distinct
  reason once with the metrics and labels it applies to;
* :func:`item_groups` and :func:`items_html`: per label, the items most disagreed on
  above a tie, and the tie itself in one line ("310 items tied at D = 1.000");
* :func:`no_rater_table`: why a pool has no rater table, in one line;
* :func:`family_wide`: the classic family of several labels, a row per label;
* :func:`family_title`: the family's title naming its agreement weights, and its alpha
  named with them ("alpha (linear weights)"), so that it is not read as the IRR's alpha.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics.item_ties import ties
from .cells import digits_of, fixed, shown

__all__ = ["WEIGHTED_ALPHA", "ItemGroup", "collapse_reasons", "family_long", "family_title",
           "family_wide", "item_groups", "items_html", "no_rater_table", "tie_line"]

#: Item ids named in a tie line (the first in the data's order).
TIE_IDS = 3
#: Labels named beside a reason that holds for some labels only (the rest counted).
REASON_LABELS = 5

_SLOT = "\x00"  # where a metric's name stood in a reason

#: The classic family's alpha when the family is weighted: alpha with D = 1 - w, not the
#: IRR's alpha at the level (its own distance), so the cell names its weights.
WEIGHTED_ALPHA = "alpha ({} weights)"


def _scope(labels: list[Any], n_labels: int) -> str:
    """Which labels a reason applies to, in brackets ("" for a one-label table)."""
    if n_labels <= 1:
        return ""
    if len(labels) == n_labels:
        return f" ({n_labels} labels)"
    names = ", ".join(map(str, labels[:REASON_LABELS]))
    more = len(labels) - REASON_LABELS
    return (f" ({len(labels)} of {n_labels} labels: {names}"
            + (f" and {more} more" if more > 0 else "") + ")")


def collapse_reasons(table: pd.DataFrame) -> list[str]:
    """Each distinct ``reason`` of :func:`~xrr_accessor.agreement_table`'s table once,
    with the metrics (and, over several labels, the labels) it applies to.

    Reasons that differ only by the metric they name are one reason: the names are
    joined where the first stood ("no analytic interval for scott, light (31 labels):
    ..."), and a quoted name becomes each quoted (``metric='scott' or 'light'``). A
    reason that does not name its metric is prefixed by the metrics.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_product([["joy", "awe"], ["scott", "light", "fleiss"]],
    ...                                  names=["label", "metric"])
    >>> why = "no analytic interval for {0}; irr(data, metric='{0}') gives one"
    >>> t = pd.DataFrame({"reason": [why.format("scott"), why.format("light"), ""] * 2},
    ...                  index=idx)
    >>> print(*collapse_reasons(t))  # doctest: +NORMALIZE_WHITESPACE
    no analytic interval for scott, light (2 labels);
    irr(data, metric='scott' or 'light') gives one
    """
    if "reason" not in table.columns:
        return []
    names = table.index.names
    metric = table.index.get_level_values("metric" if "metric" in names else -1)
    label = (table.index.get_level_values("label") if "label" in names
             else pd.Index([None] * len(table)))
    n_labels = label.nunique() if "label" in names else 1
    found: dict[str, tuple[list[str], list[Any]]] = {}
    for m, lab, why in zip(metric, label, table["reason"], strict=True):
        if not isinstance(why, str) or not why.strip():
            continue
        key = re.sub(rf"(?<![\w']){re.escape(str(m))}(?![\w'])", _SLOT, why)
        key = key.replace(f"'{m!s}'", f"'{_SLOT}'")
        metrics, labels = found.setdefault(key, ([], []))
        for seen, new in ((metrics, str(m)), (labels, lab)):
            if new not in seen:
                seen.append(new)
    out = []
    for key, (metrics, labels) in found.items():
        scope = _scope(labels, n_labels)
        text = key.replace(f"'{_SLOT}'", " or ".join(f"'{m}'" for m in metrics))
        joined = ", ".join(metrics)
        if _SLOT in text:
            text = text.replace(_SLOT, joined + scope, 1).replace(_SLOT, joined)
        else:
            text = f"{joined}{scope}: {text}"
        out.append(text)
    return out


@dataclass
class ItemGroup:
    """The rows of one label (and replication) of the item table as the page shows them:
    ``rows`` one by one (largest D first), then ``n_tied`` items tied at ``tied_value``
    (0 when no tie reaches past the rows shown), of which ``first`` are the first ids."""

    key: tuple[Any, ...]
    rows: pd.DataFrame
    n_tied: int
    tied_value: float
    first: list[Any]


def item_groups(items: pd.DataFrame, top: int) -> list[ItemGroup]:
    """Per label (and replication) of :func:`~xrr_accessor.item_disagreement`'s table,
    the ``top`` items of largest D shown one by one, except a tie reaching past them:
    the items at the tied value are one line (:func:`tie_line`), the rows above it stay.

    Examples
    --------
    >>> t = pd.DataFrame({"disagreement": [1.0, 0.5, 0.5, 0.5, 0.2]},
    ...                  index=pd.Index(list("abcde"), name="item"))
    >>> g, = item_groups(t, top=2)
    >>> g.rows.index.tolist(), g.n_tied, g.tied_value, g.first
    (['a'], 3, 0.5, ['b', 'c', 'd'])
    """
    keys = list(range(items.index.nlevels - 1))  # every level but the item's
    parts = items.groupby(level=keys, sort=False) if keys else [((), items)]
    out = []
    for key, part in parts:
        part = part.droplevel(keys) if keys else part
        ranked = part[np.isfinite(part["disagreement"].to_numpy(dtype=float))].sort_values(
            "disagreement", ascending=False, kind="stable")  # ties keep the data's order
        if ranked.empty:
            continue
        t = ties(ranked, top).iloc[0]
        name = key if isinstance(key, tuple) else (key,)
        if t["n_last"] > t["n_last_shown"]:  # a tie reaches past the rows shown
            d = ranked["disagreement"].to_numpy(dtype=float)
            at = d == t["last_value"]
            out.append(ItemGroup(name, ranked[d > t["last_value"]], int(t["n_last"]),
                                 float(t["last_value"]), list(ranked.index[at][:TIE_IDS])))
        else:
            out.append(ItemGroup(name, ranked.head(top), 0, np.nan, []))
    return out


def tie_line(group: ItemGroup, digits: int = 3) -> str:
    """A tie of :func:`item_groups` in words ("" when there is none).

    Examples
    --------
    >>> g = ItemGroup(("joy",), pd.DataFrame(), 310, 1.0, [4, 9, 17])
    >>> tie_line(g)
    "310 items tied at D = 1.000 (the first in the data's order: 4, 9, 17, ...)"
    """
    if not group.n_tied:
        return ""
    ids = ", ".join(map(str, group.first)) + (", ..." if group.n_tied > len(group.first)
                                              else "")
    return (f"{group.n_tied:,} items tied at D = {group.tied_value:.{digits}f} (the first "
            f"in the data's order: {ids})")


def _cell(v: Any, digits: int) -> str:
    if isinstance(v, float | np.floating):
        return f'<td class="num">{fixed(float(v), digits)}</td>' if np.isfinite(v) else "<td></td>"
    if isinstance(v, int | np.integer):
        return f'<td class="num">{int(v):,}</td>'
    return "<td></td>" if v is None or v is pd.NA else f"<td>{html.escape(str(v))}</td>"


def items_html(items: pd.DataFrame, top: int, digits: int = 3) -> str:
    """The item table of the one-pool page: per label the rows of :func:`item_groups`,
    each tie one row spanning the values (:func:`tie_line`), names escaped."""
    groups = item_groups(items, top)
    key_names = [str(n) for n in items.index.names[:-1]]
    item_name = str(items.index.names[-1] or "item")
    # every label one tie: no value column would hold a number, so none is drawn
    columns = list(items.columns) if any(len(g.rows) for g in groups) else []
    head = "".join(f'<th scope="col">{html.escape(c)}</th>'
                   for c in [*key_names, item_name, *map(str, columns)])
    body = []
    for g in groups:
        keys = "".join(f'<th class="label" scope="row">{html.escape(str(k))}</th>'
                       for k in g.key if key_names)
        for item, row in g.rows.iterrows():
            cells = "".join(_cell(v, digits) for v in row[columns].tolist())
            body.append(f"<tr>{keys}<th scope=\"row\">{html.escape(str(item))}</th>{cells}"
                        "</tr>")
        if g.n_tied:
            body.append(f'<tr class="tie">{keys}<td colspan="{len(columns) + 1}">'
                        f"{html.escape(tie_line(g, digits))}</td></tr>")
    return (f'<table id="xrr-items"><thead><tr>{head}</tr></thead><tbody>'
            + "\n".join(body) + "</tbody></table>")


def no_rater_table(n_raters: int, slots: bool, xarray: bool = False) -> str:
    """Why a one-pool report has no rater table, in one line ("" when it has one).

    Examples
    --------
    >>> print(no_rater_table(2, slots=False))  # doctest: +NORMALIZE_WHITESPACE
    No rater table: the pool has 2 raters, and ranking each rater against the rest
    (rater_agreement) needs three or more: with two, both get the same kappa_x, their
    chance-corrected agreement (Cohen's kappa at the nominal level), and without either
    no item keeps two annotations for alpha.
    """
    if slots and n_raters > 2:
        return ("No rater table: the raters are anonymous slots within each item (a count "
                "table), so no rater can be followed across items.")
    if n_raters == 0:
        return "No rater table: the data hold no annotations."
    if n_raters <= 2:
        return (f"No rater table: the pool has {n_raters} rater{'s' * (n_raters != 1)}, and "
                "ranking each rater against the rest (rater_agreement) needs three or more: "
                "with two, both get the same kappa_x, their chance-corrected agreement "
                "(Cohen's kappa at the nominal level), and without either no item keeps two "
                "annotations for alpha.")
    if xarray:
        return ("No rater table on xarray data: rater_agreement(data) returns it as a "
                "Dataset.")
    return ""


def _pair(est: float, lo: float, hi: float, digits: int, scale: str | None) -> str:
    """A classic-family cell by the one printing rule (:func:`.cells.shown`): the estimate
    and its interval ("" where undefined)."""
    if not np.isfinite(est):
        return ""
    return " ".join(filter(None, shown(est, lo, hi, digits, scale=scale)))


def family_long(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """:func:`~xrr_accessor.agreement_table`'s table with ``estimate``, ``lower`` and
    ``upper`` as text by the one printing rule (:func:`.cells.digits_of`): a row's three
    numbers share the decimals that keep each in the band printed beside it (none where
    the row has no band); the other columns stay numbers.

    Examples
    --------
    >>> t = pd.DataFrame({"estimate": [0.605, 0.9], "band": ["substantial", None]},
    ...                  index=pd.Index(["cohen", "percent"], name="metric"))
    >>> family_long(t, 2)["estimate"].tolist()
    ['0.605', '0.90']
    """
    cols = [c for c in ("estimate", "lower", "upper") if c in table.columns]
    out = table.astype({c: object for c in cols})
    for key, row in table.iterrows():
        est, lo, hi = (float(row.get(c, np.nan)) for c in ("estimate", "lower", "upper"))
        scale = "band" if isinstance(row.get("band"), str) else None
        d = digits_of(est, lo, hi, digits, scale=scale)
        for c in cols:
            out.at[key, c] = fixed(float(row[c]), d)
    return _named(out, table)


def family_wide(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """:func:`~xrr_accessor.agreement_table`'s table of several labels as text, a row per
    label and a column per coefficient: the estimate, and its interval in brackets when
    the table has one (blank where a coefficient has none: the reasons say why).

    Examples
    --------
    >>> idx = pd.MultiIndex.from_product([["joy", "awe"], ["percent", "cohen"]],
    ...                                  names=["label", "metric"])
    >>> t = pd.DataFrame({"estimate": [0.9, 0.41, 0.8, float("nan")]}, index=idx)
    >>> family_wide(t, 2)
    metric percent cohen
    label
    joy       0.90  0.41
    awe       0.80
    """
    rows = table.index.droplevel("metric")
    # a level of one value (the one pool's replication) is not a row of its own
    one = [n for n in rows.names if n != "label" and rows.get_level_values(n).nunique() < 2]
    if one:
        table = table.droplevel(one)
    metrics = pd.unique(table.index.get_level_values("metric"))
    labels = table.index.droplevel("metric").unique()

    def wide(column: str) -> pd.DataFrame:
        if column not in table.columns:
            return pd.DataFrame(np.nan, index=labels, columns=metrics)
        return table[column].unstack("metric").reindex(index=labels, columns=metrics)

    est, lo, hi = wide("estimate"), wide("lower"), wide("upper")
    banded = (table["band"].map(lambda b: isinstance(b, str)) if "band" in table.columns
              else pd.Series(table.index.get_level_values("metric") != "percent",
                             index=table.index))
    banded = banded.unstack("metric").reindex(index=labels, columns=metrics)
    cells = {m: [_pair(float(e), float(a), float(b), digits, "band" if k else None)
                 for e, a, b, k in zip(est[m], lo[m], hi[m], banded[m], strict=True)]
             for m in metrics}
    out = pd.DataFrame(cells, index=labels)
    out.columns.name = "metric"
    return _named(out, table)


def _weights(table: pd.DataFrame) -> str | None:
    """The family's agreement weights as named in its attrs (None when not said)."""
    w = table.attrs.get("weights")
    return w if isinstance(w, str) else None


def family_title(table: pd.DataFrame) -> str:
    """The title of :func:`~xrr_accessor.agreement_table`'s table, naming the agreement
    weights of every row (``attrs["weights"]``): its alpha is alpha with D = 1 - w,
    which at the ordinal level is not the IRR's ordinal alpha.

    Examples
    --------
    >>> t = pd.DataFrame({"estimate": [0.2]}, index=pd.Index(["alpha"], name="metric"))
    >>> t.attrs["weights"] = "linear"
    >>> family_title(t)
    'Classic family, linear weights'
    """
    w = _weights(table)
    if w is None:
        return "Classic family"
    return f"Classic family, {w if w == 'unweighted' else w + ' weights'}"


def _named(out: pd.DataFrame, table: pd.DataFrame) -> pd.DataFrame:
    """``out`` with the family's title in ``attrs["title"]`` and, when the family is
    weighted, its alpha named with the weights (:data:`WEIGHTED_ALPHA`)."""
    w = _weights(table)
    if w not in (None, "unweighted"):
        name = {"alpha": WEIGHTED_ALPHA.format(w)}
        if "metric" in out.index.names:
            out = out.rename(index=name, level="metric")
        else:
            out = out.rename(columns=name)
    out.attrs = {"title": family_title(table), "weights": w}
    return out
