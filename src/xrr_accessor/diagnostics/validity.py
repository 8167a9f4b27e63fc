"""Agreement with a gold / expert reference (validity; definitions: diagnostics).

The gold labels are read as one more replication with one rater, so kappa_x
of the raters against it is the library's kappa_x (Eq 9-11) of the two;
accuracy, majority-vote accuracy and per-class recall and precision count
the annotations against the gold of their item.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..engine.levels import resolve_level
from ..engine.pipeline import kind_of, run
from ..errors import DroppedDataWarning, InputError, warn
from ..kernels.diagnostics import NOMINAL, item_summary
from ..schema import encode
from ._common import Read, finish, multi_index, unbind, warn_undefined_rows, where_counts
from .gold import gold_table

__all__ = ["Validity", "validity"]


@dataclass(frozen=True)
class Validity:
    """What :func:`validity` found (DataFrames, or Datasets from xarray input).

    Attributes
    ----------
    summary : DataFrame
        Per (label, replication): ``kappa_x`` against the gold, ``accuracy``
        (share of *annotations* equal to their item's gold), ``majority_accuracy``
        (share of *items* whose majority vote equals the gold; a tie counts
        1 / (number of tied values) when the gold is among them: a random
        tie-break in expectation), ``n_annotations`` and ``n_items`` with
        gold, ``n_tied`` items and ``n_no_gold`` annotations left out.
    classes : DataFrame
        Per (label, replication, class): ``support`` (annotations whose gold
        is the class), ``n_predicted`` (annotations giving it), ``recall``,
        ``precision`` and ``f1`` over annotations (scikit-learn's definitions
        on the flattened annotations; NaN where the class is never in the
        gold or never given).
    """

    summary: Any
    classes: Any
    attrs: dict[str, Any] = field(default_factory=dict)

    def plot(self, label: Any = None, ax: Any = None) -> Any:
        """Per-class recall and precision as bars; see
        :func:`xrr_accessor.diagnostics.plots.validity`."""
        from .plots import validity as draw

        return draw(self, label=label, ax=ax)

    def __repr__(self) -> str:
        return f"Validity(summary: {len(self.summary)} rows, classes: {len(self.classes)})"


def validity(data: Any, gold: Hashable | Mapping[Hashable, Hashable] | pd.Series | pd.DataFrame,
             level: Any = "nominal", **roles: Any) -> Validity:
    """Agreement of the annotations with a gold (expert) reference.

    The gold is one more replication with one rater: ``kappa_x`` of each
    replication against it is the library's kappa_x (Eq 9-11; items without
    gold are unpairable), chance-corrected. Beside it, ``accuracy`` counts
    annotations (each annotation equal to its item's gold), and
    ``majority_accuracy`` counts items (the item's most frequent value equal
    to its gold); ``classes`` gives per-class recall and precision over
    annotations.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Annotations, in any layout :func:`~xrr_accessor.irr` reads.
    gold : column name, mapping, Series or DataFrame
        A column of ``data`` holding each row's item gold (constant within an
        item; within an (item, label) for a long frame with label and value
        columns; a rater column of a wide frame; a variable of a Dataset with
        the item dimension only); a mapping label -> such column; a Series
        item -> gold (one label); or a DataFrame indexed by item with one
        column per label. Missing gold values are no gold.
    level : str, matrix or callable
        Level of measurement of kappa_x (default ``"nominal"``); accuracy,
        recall and precision compare values exactly.
    **roles
        Column or dimension names, see :func:`~xrr_accessor.annotations`.

    Returns
    -------
    Validity
        ``summary`` and ``classes`` tables. Annotations of items without gold
        and gold items with no annotation are left out, counted in a
        :class:`~xrr_accessor.errors.DroppedDataWarning`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "label": ["x", "x", "y", "x", "y", "y"],
    ...                    "gold": ["x", "x", "y", "y", "y", "y"]})
    >>> out = validity(df, gold="gold")
    >>> out.summary[["accuracy", "majority_accuracy"]].round(3).values.tolist()
    [[0.833, 0.833]]
    >>> out.classes["recall"].round(3).tolist()
    [1.0, 0.75]
    """
    lvl = resolve_level(level)
    data, roles = unbind(data, roles)
    kind = kind_of(data)
    table_data, table_gold, source = gold_table(data, gold, roles)
    ann = encode([table_data, table_gold], ordinal=lvl.ordered)
    if lvl.numeric:
        ann.values(lvl.name)
    n_self, had_rep = ann.inputs[0]
    read_ = Read(ann, lvl, kind)
    pairs = np.array([(r, n_self) for r in range(n_self)], dtype=np.int64)
    est = run(None, [lookup("kappa_x", kind="cross")], pairs=pairs, ann=ann, lvl=lvl).estimate(
        lookup("kappa_x", kind="cross"))
    summaries, classes, dropped, unused = [], [], [0, 0], 0
    for j in range(len(ann.labels)):
        s, c, d, u = _label(read_, j, n_self, est.value[j])
        summaries.append(s)
        classes.append(c)
        dropped = [dropped[0] + d[0], dropped[1] + d[1]]
        unused += u
    summary = pd.concat(summaries)
    per_class = pd.concat(classes)
    if summary["n_annotations"].sum() == 0:
        mine, theirs = ann.items[ann.item[ann.replication < n_self][:1]], ann.items[
            ann.item[ann.replication == n_self][:1]]
        raise InputError(
            f"no annotated item has a gold value in {source}: the data's item ids (e.g. "
            f"{list(mine)}) and the gold's (e.g. {list(theirs)}) do not meet. Make the ids "
            "the same (and of the same type, e.g. both str) and the gold non-missing.")
    _warn(summary, per_class, dropped, unused, source, read_)
    attrs = {"metric": "validity", "level": lvl.name, "gold": source,
             "n_gold_unused": unused}
    if not had_rep:  # the data had no replication: drop that level
        summary = summary.droplevel("replication")
        per_class = per_class.droplevel("replication")
    return Validity(finish(summary, read_, dict(attrs)), finish(per_class, read_, dict(attrs)),
                    attrs)


def _label(read_: Read, j: int, n_self: int, kappa: np.ndarray
           ) -> tuple[pd.DataFrame, pd.DataFrame, tuple[int, int], int]:
    ann = read_.ann
    codes = ann.codes[j]
    rep, item = ann.replication, ann.item
    k = read_.n_cat(j)
    is_gold = (rep == n_self) & (codes >= 0)
    gold = np.full(len(ann.items), -1, dtype=np.int64)
    gold[item[is_gold]] = codes[is_gold]
    data = (rep < n_self) & (codes >= 0)
    g = gold[item]
    valid = data & (g >= 0)
    right = valid & (codes == g)
    n_ann = np.bincount(rep[valid], minlength=n_self)[:n_self]
    correct = np.bincount(rep[right], minlength=n_self)[:n_self]
    offsets, order, key = read_.groups()
    n_rep = len(ann.replications)
    n, _, _, top, ties, *_ = item_summary(offsets, order, np.ascontiguousarray(codes), np.zeros(0),
                                          np.zeros((0, 0, 0)), k, n_rep, NOMINAL)
    hits = np.bincount(key[right], minlength=len(n))
    groups = np.flatnonzero((n > 0) & (np.arange(len(n)) % n_rep < n_self)
                            & (gold[np.arange(len(n)) // n_rep] >= 0))
    g_rep = groups % n_rep
    credit = np.where(hits[groups] == top[groups], 1.0 / np.maximum(ties[groups], 1), 0.0)
    n_items = np.bincount(g_rep, minlength=n_self)[:n_self]
    with np.errstate(divide="ignore", invalid="ignore"):
        summary = pd.DataFrame({
            "kappa_x": kappa[:n_self],
            "accuracy": np.where(n_ann > 0, correct / np.maximum(n_ann, 1), np.nan),
            "majority_accuracy": np.where(n_items > 0, np.bincount(
                g_rep, weights=credit, minlength=n_self)[:n_self] / np.maximum(n_items, 1),
                np.nan),
            "n_annotations": n_ann, "n_items": n_items,
            "n_tied": np.bincount(g_rep[ties[groups] > 1], minlength=n_self)[:n_self],
            "n_no_gold": np.bincount(rep[data & (g < 0)], minlength=n_self)[:n_self],
        }, index=multi_index([("label", ann.labels, np.full(n_self, j)),
                              ("replication", ann.replications, np.arange(n_self))]))
    shown = _display_order(ann.replications[:n_self])  # sorted, as irr() shows them
    summary = summary.iloc[shown]
    cells = n_self * k
    support = np.bincount(rep[valid] * k + g[valid], minlength=cells)[:cells]
    given = np.bincount(rep[valid] * k + codes[valid], minlength=cells)[:cells]
    tp = np.bincount(rep[right] * k + codes[right], minlength=cells)[:cells]
    keep = np.flatnonzero((support + given) > 0)
    position = np.argsort(shown)
    keep = keep[np.lexsort((keep % k, position[keep // k]))]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(support > 0, tp / support, np.nan)[keep]
        precision = np.where(given > 0, tp / given, np.nan)[keep]
        f1 = np.where(recall + precision > 0, 2 * recall * precision / (recall + precision),
                      np.where(np.isnan(recall + precision), np.nan, 0.0))
    cats = ann.categories[j]
    classes = pd.DataFrame({
        "support": support[keep], "n_predicted": given[keep], "recall": recall,
        "precision": precision, "f1": f1,
    }, index=multi_index([("label", ann.labels, np.full(len(keep), j)),
                          ("replication", ann.replications, keep // k),
                          ("class", pd.Index(cats, name="class"), keep % k)]))
    used = np.zeros(len(ann.items), dtype=bool)
    used[item[data]] = True
    unused = int(((gold >= 0) & ~used).sum())
    no_gold = data & (g < 0)
    return summary, classes, (int(no_gold.sum()), len(np.unique(item[no_gold]))), unused


def _display_order(reps: pd.Index) -> np.ndarray:
    """Positions of ``reps`` in sorted order (as they come when encoded alone), or as
    they are when they cannot be sorted."""
    try:
        return np.argsort(np.asarray(reps), kind="stable")
    except TypeError:
        return np.arange(len(reps))


def _warn(summary: pd.DataFrame, classes: pd.DataFrame, dropped: list[int], unused: int,
          source: str, read_: Read) -> None:
    if dropped[0]:
        warn(f"validity: {dropped[0]} annotation(s) of {dropped[1]} item(s) have no gold "
             f"value in {source} and are left out (counted in n_no_gold).", DroppedDataWarning)
    if unused:
        warn(f"validity: {source} gives gold for {unused} item(s) x label(s) with no "
             "annotation in the data; they are not used (attrs['n_gold_unused']).",
             DroppedDataWarning)
    bad = summary["kappa_x"].isna().to_numpy()
    if bad.any():
        codes = summary.index.codes
        warn_undefined_rows("validity kappa_x", int(bad.sum()), len(summary),
                            "no item with both annotations and gold, or one value on both "
                            "sides", where_counts(read_, np.asarray(codes[0])[bad],
                                                  np.asarray(codes[1])[bad]))
    n_rec, n_prec = int(classes["recall"].isna().sum()), int(classes["precision"].isna().sum())
    if n_rec or n_prec:
        warn_undefined_rows("validity recall / precision", n_rec + n_prec, 2 * len(classes),
                            f"recall for {n_rec} class(es) never in the gold, precision for "
                            f"{n_prec} class(es) never given", {})
