"""Agreement with a gold / expert reference (validity; definitions: diagnostics).

The gold labels are read as one more replication with one rater, so kappa_x
of the raters against it is the library's kappa_x (Eq 9-11) of the two;
accuracy, majority-vote accuracy and per-class recall and precision count
the annotations against the gold of their item.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..engine.additive import Stats
from ..engine.levels import resolve_level
from ..engine.pipeline import Codes, kind_of, run
from ..engine.staged import Job, Part, Planned, Staged
from ..engine.statistics import chunk, rows
from ..errors import DroppedDataWarning, InputError, per_call, warn
from ..kernels.diagnostics import NOMINAL, item_summary
from ..lazy import is_lazy
from ..schema import encode
from ._common import Read, finish, multi_index, unbind, warn_undefined_rows, where_counts
from .gold import given, gold_table

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


@per_call
def validity(data: Any, gold: Hashable | Mapping[Hashable, Hashable] | pd.Series | pd.DataFrame,
             level: Any = "nominal", **roles: Any) -> Any:
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
    if is_lazy(data):
        from ..lazy.graph import defer

        return defer(_validity, data, (gold,), {"level": level, **roles},
                     reader=partial(_tables, gold=gold))
    return per_call(_validity)(data, gold, lvl, **roles)


def _tables(block: Any, roles: dict[str, Any], gold: Any) -> list[Any]:
    """One partition of dask-backed data and its items' gold, as two tables."""
    table, gold_t, _ = gold_table(block, gold, roles, own_items=True)
    return [table, gold_t]


#: The gold's replication as the encoder names it (the second input, "other").
GOLD = "other"


def _validity(data: Any, gold: Any, level: Any = "nominal", **roles: Any) -> Validity:
    lvl = resolve_level(level)
    kx = lookup("kappa_x", kind="cross")
    if isinstance(data, Staged):  # dask-backed: the partitions' sums, added
        ann = data.ann
        reps = list(ann.replications)
        if f"{GOLD} (other)" in reps or GOLD not in reps:
            raise InputError(f"a replication of the dask-backed data is named {GOLD!r}, "
                             "the name the gold takes; rename it (e.g. "
                             "ddf[col].replace({'other': 'other pool'})).")
        gold_rep = reps.index(GOLD)
        source = ("the gold Series" if isinstance(gold, pd.Series) else "the gold frame"
                  if isinstance(gold, pd.DataFrame) else f"gold column {gold!r}"
                  if not isinstance(gold, Mapping) else f"gold columns {list(gold.values())}")
    else:
        table_data, table_gold, source = gold_table(data, gold, roles)
        ann = encode([table_data, table_gold], ordinal=lvl.ordered)
        if lvl.numeric:
            ann.values(lvl.name)
        gold_rep = ann.inputs[0][0]
    read_ = Read(ann, lvl, kind_of(data))
    mine = np.array([r for r in range(len(ann.replications)) if r != gold_rep], dtype=np.int64)
    pairs = np.column_stack([mine, np.full(len(mine), gold_rep)]).astype(np.int64)
    if isinstance(data, Staged):
        try:
            run(replace(data, stats=None), [kx], pairs=pairs, level=lvl)
            raise RuntimeError("run did not plan")  # pragma: no cover
        except Planned as planned:
            meta = planned.meta
        if data.stats is None:
            raise Planned(Job(validity_job, (meta, lvl, gold_rep)))
        kx_stats, sums = _unstack(data.stats, len(ann.labels))
        est = run(replace(data, meta=meta, stats=kx_stats), [kx], pairs=pairs,
                  level=lvl).estimate(kx)
        had_rep = bool(sums[0].pop("had_rep")[0]) if sums else False
        extra = _unseen(gold, list(ann.labels), sums, roles.get("item"))
    else:
        est = run(None, [kx], pairs=pairs, ann=ann, lvl=lvl).estimate(kx)
        sums = [label_sums(read_, j, gold_rep) for j in range(len(ann.labels))]
        had_rep, extra = ann.inputs[0][1], 0
    summaries, classes, dropped, unused = [], [], [0, 0], extra
    for j in range(len(ann.labels)):
        s, c = _label(read_, j, mine, sums[j], est.value[j])
        summaries.append(s)
        classes.append(c)
        dropped = [dropped[0] + int(sums[j]["no_gold"].sum()),
                   dropped[1] + int(sums[j]["no_gold_items"][0])]
        unused += int(sums[j]["unused"][0])
    summary = pd.concat(summaries)
    per_class = pd.concat(classes)
    if summary["n_annotations"].sum() == 0:
        ids = "item ids and the gold's"
        if len(ann.item):  # in memory: an id of each side
            side = ann.replication == gold_rep
            ids = (f"item ids (e.g. {list(ann.items[ann.item[~side][:1]])}) and the gold's "
                   f"(e.g. {list(ann.items[ann.item[side][:1]])})")
        raise InputError(
            f"no annotated item has a gold value in {source}: the data's {ids} do not "
            "meet. Make the ids the same (and of the same type, e.g. both str) and the gold "
            "non-missing.")
    _warn(summary, per_class, dropped, unused, source, read_)
    attrs = {"metric": "validity", "level": lvl.name, "gold": source,
             "n_gold_unused": unused}
    if not had_rep:  # the data had no replication: drop that level
        summary = summary.droplevel("replication")
        per_class = per_class.droplevel("replication")
    return Validity(finish(summary, read_, dict(attrs)), finish(per_class, read_, dict(attrs)),
                    attrs)


def _unseen(gold: Any, labels: list[Hashable], sums: list[dict[str, np.ndarray]],
            item: Hashable) -> int:
    """Gold (item, label) values of a gold Series or frame whose item is in no partition
    (``item``: the data's item column, which a gold frame may hold)."""
    if not isinstance(gold, pd.DataFrame | pd.Series):
        return 0  # a column of the data: its items are the data's
    wide, _ = given(gold, labels, item)
    return int(len(wide) - sum(float(s["n_gold"][0]) for s in sums))


def label_sums(read_: Read, j: int, gold_rep: int) -> dict[str, np.ndarray]:
    """Label ``j``'s counts over its items (per replication, and per replication and
    class), against the gold of replication ``gold_rep``: sums over items, so over
    partitions."""
    ann = read_.ann
    codes = ann.codes[j]
    rep, item = ann.replication, ann.item
    n_rep, k = len(ann.replications), read_.n_cat(j)
    is_gold = (rep == gold_rep) & (codes >= 0)
    gold = np.full(len(ann.items), -1, dtype=np.int64)
    gold[item[is_gold]] = codes[is_gold]
    data = (rep != gold_rep) & (codes >= 0)
    g = gold[item]
    valid = data & (g >= 0)
    right = valid & (codes == g)
    offsets, order, key = read_.groups()
    n, _, _, top, ties, *_ = item_summary(offsets, order, np.ascontiguousarray(codes),
                                          np.zeros(0), np.zeros((0, 0, 0)), k, n_rep, NOMINAL)
    hits = np.bincount(key[right], minlength=len(n))
    at = np.arange(len(n))
    groups = np.flatnonzero((n > 0) & (at % n_rep != gold_rep) & (gold[at // n_rep] >= 0))
    g_rep = groups % n_rep
    credit = np.where(hits[groups] == top[groups], 1.0 / np.maximum(ties[groups], 1), 0.0)
    cells = n_rep * k
    used = np.zeros(len(ann.items), dtype=bool)
    used[item[data]] = True
    no_gold = data & (g < 0)

    def per(rows: np.ndarray, size: int = n_rep, weights: np.ndarray | None = None
            ) -> np.ndarray:
        return np.bincount(rows, weights=weights, minlength=size)[:size].astype(float)

    return {
        "n_ann": per(rep[valid]), "correct": per(rep[right]), "n_items": per(g_rep),
        "credit": per(g_rep, weights=credit), "n_tied": per(g_rep[ties[groups] > 1]),
        "no_gold": per(rep[no_gold]),
        "support": per(rep[valid] * k + g[valid], cells),
        "given": per(rep[valid] * k + codes[valid], cells),
        "tp": per(rep[right] * k + codes[right], cells),
        "no_gold_items": np.array([float(len(np.unique(item[no_gold])))]),
        "unused": np.array([float(((gold >= 0) & ~used).sum())]),
        "n_gold": np.array([float((gold >= 0).sum())]),
    }


def validity_job(part: Part, meta: Any, level: Any, gold_rep: int) -> Stats:
    """A partition's kappa_x statistics (``kx:``) and every label's counts: a
    :class:`~xrr_accessor.engine.staged.Job`'s function."""
    ann = part.ann
    codes = Codes.of(ann.item, ann.rater, ann.replication, ann.codes, len(ann.items))
    out = {f"kx:{k}": v for k, v in chunk(rows(codes, meta), meta, parallel=False).arrays.items()}
    read_ = Read(ann, level, "pandas")
    for j in range(len(ann.labels)):
        out.update({f"{j}:{k}": v for k, v in label_sums(read_, j, gold_rep).items()})
    out["0:had_rep"] = np.array([float(ann.inputs[0][1])])
    return Stats(out)


def _unstack(stats: Stats, n_labels: int) -> tuple[Stats, list[dict[str, np.ndarray]]]:
    kx = Stats({k[3:]: v for k, v in stats.arrays.items() if k.startswith("kx:")})
    sums: list[dict[str, np.ndarray]] = [{} for _ in range(n_labels)]
    for name, v in stats.arrays.items():
        if not name.startswith("kx:"):
            j, _, k = name.partition(":")
            sums[int(j)][k] = v
    return kx, sums


def _label(read_: Read, j: int, mine: np.ndarray, s: dict[str, np.ndarray],
           kappa: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Label ``j``'s summary and class rows from its counts (``mine``: the data's
    replications, ``kappa`` their kappa_x against the gold)."""
    ann = read_.ann
    k = read_.n_cat(j)
    n_ann, n_items = s["n_ann"][mine], s["n_items"][mine]
    with np.errstate(divide="ignore", invalid="ignore"):
        summary = pd.DataFrame({
            "kappa_x": kappa[:len(mine)],
            "accuracy": np.where(n_ann > 0, s["correct"][mine] / np.maximum(n_ann, 1), np.nan),
            "majority_accuracy": np.where(n_items > 0, s["credit"][mine]
                                          / np.maximum(n_items, 1), np.nan),
            "n_annotations": n_ann.astype(np.int64), "n_items": n_items.astype(np.int64),
            "n_tied": s["n_tied"][mine].astype(np.int64),
            "n_no_gold": s["no_gold"][mine].astype(np.int64),
        }, index=multi_index([("label", ann.labels, np.full(len(mine), j)),
                              ("replication", ann.replications, mine)]))
    shown = _display_order(ann.replications[mine])  # sorted, as irr() shows them
    summary = summary.iloc[shown]
    support, given_, tp = (s[name].reshape(-1, k)[mine].reshape(-1).astype(np.int64)
                           for name in ("support", "given", "tp"))
    keep = np.flatnonzero((support + given_) > 0)
    position = np.argsort(shown)
    keep = keep[np.lexsort((keep % k, position[keep // k]))]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(support > 0, tp / support, np.nan)[keep]
        precision = np.where(given_ > 0, tp / given_, np.nan)[keep]
        f1 = np.where(recall + precision > 0, 2 * recall * precision / (recall + precision),
                      np.where(np.isnan(recall + precision), np.nan, 0.0))
    classes = pd.DataFrame({
        "support": support[keep], "n_predicted": given_[keep], "recall": recall,
        "precision": precision, "f1": f1,
    }, index=multi_index([("label", ann.labels, np.full(len(keep), j)),
                          ("replication", ann.replications, mine[keep // k]),
                          ("class", pd.Index(ann.categories[j], name="class"), keep % k)]))
    return summary, classes


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
