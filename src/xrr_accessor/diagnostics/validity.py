"""Agreement with a gold / expert reference (validity; definitions: diagnostics).

The gold labels are read as one more replication with one rater, so kappa_x
of the raters against it is the library's kappa_x (Eq 9-11) of the two. At the
nominal and ordinal levels accuracy, majority-vote accuracy and per-class
recall and precision count the annotations against the gold of their item; at
the interval and ratio levels error and concordance measures
(:mod:`.validity_numbers`) take their place, per replication and per rater.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..engine.levels import resolve_level
from ..engine.pipeline import given_level, inferred_level, kind_of, run
from ..engine.staged import Job, Planned, Staged
from ..errors import DroppedDataWarning, InputError, per_call, warn
from ..lazy import is_lazy
from ..schema import encode
from ..uncertainty.intervals import Bootstrap, confidence
from ._common import Read, finish, multi_index, unbind, warn_undefined_rows, where_counts
from .gold import gold_table
from .validity_counts import label_sums, unseen, unstack, validity_job
from .validity_numbers import (
    Units,
    columns,
    label_units,
    numbers,
    point_sums,
    raters_table,
    warn_numbers,
)

__all__ = ["Validity", "label_sums", "validity"]


@dataclass(frozen=True)
class Validity:
    """What :func:`validity` found (DataFrames, or Datasets from xarray input).

    Attributes
    ----------
    summary : DataFrame
        Per (label, replication): ``kappa_x`` against the gold, then at the
        nominal and ordinal levels ``accuracy`` (share of *annotations* equal
        to their item's gold), ``majority_accuracy`` (share of *items* whose
        majority vote equals the gold; a tie counts 1 / (number of tied
        values) when the gold is among them: a random tie-break in
        expectation) and ``n_tied`` items; at the interval and ratio levels
        ``mae``, ``rmse``, ``pearson`` and ``ccc`` over *annotations* (each
        against its item's gold) and the same over *item means*
        (``mae_mean``, ... : each item's mean annotation against its gold),
        each followed by ``<stat>_lower`` and ``<stat>_upper`` with ``ci=``;
        then ``n_annotations`` and ``n_items`` with gold and ``n_no_gold``
        annotations left out.
    classes : DataFrame or None
        Nominal and ordinal levels: per (label, replication, class):
        ``support`` (annotations whose gold is the class), ``n_predicted``
        (annotations giving it), ``recall``, ``precision`` and ``f1`` over
        annotations (scikit-learn's definitions on the flattened annotations;
        NaN where the class is never in the gold or never given). None at the
        interval and ratio levels: numbers are not classes (``summary`` holds
        their error measures).
    raters : DataFrame or None
        Interval and ratio levels: per (label, replication, rater) ``mae``,
        ``rmse``, ``pearson`` and ``ccc`` of the rater's annotations against
        their items' gold (with intervals under ``ci=``), ``n_annotations``
        and ``n_items`` (equal: one annotation per item and rater). None at
        the nominal and ordinal levels.
    attrs : dict
        ``level``, ``gold`` (where it was read), ``n_gold_unused`` and
        ``tables`` (the names of the tables it holds); with ``ci=`` the
        bootstrap's options and seed.
    """

    summary: Any
    classes: Any
    raters: Any = None
    attrs: dict[str, Any] = field(default_factory=dict)

    def plot(self, label: Any = None, ax: Any = None, top: int = 30) -> Any:
        """Per-class recall and precision as bars, or at the interval and ratio levels
        the ``top`` raters' error against the gold; see
        :func:`xrr_accessor.diagnostics.plots.validity`."""
        from .plots import validity as draw

        return draw(self, label=label, ax=ax, top=top)

    def __repr__(self) -> str:
        level = self.attrs.get("level", "?")
        if self.classes is None:
            return (f"Validity(level {level}: summary {_size(self.summary)} of mae, rmse, "
                    f"pearson, ccc; raters {_size(self.raters)}; classes: none, numbers "
                    "are not classes)")
        return (f"Validity(level {level}: summary {_size(self.summary)} of accuracy; "
                f"classes {_size(self.classes)}; raters: none at a categorical level)")


def _size(table: Any) -> str:
    """A table's rows, or a Dataset's dimensions."""
    if isinstance(table, pd.DataFrame):
        return f"{len(table)} rows"
    return "(" + ", ".join(f"{k}: {v}" for k, v in table.sizes.items()) + ")"


@per_call
def validity(data: Any, gold: Hashable | Mapping[Hashable, Hashable] | pd.Series | pd.DataFrame,
             level: Any = None, ci: float | None = None, n_boot: int = 1000,
             seed: Any = None, interval: str = "bca", **roles: Any) -> Any:
    """Agreement of the annotations with a gold (expert) reference.

    The gold is one more replication with one rater: ``kappa_x`` of each
    replication against it is the library's kappa_x (Eq 9-11; items without
    gold are unpairable), chance-corrected. Beside it, ``accuracy`` counts
    annotations (each annotation equal to its item's gold), and
    ``majority_accuracy`` counts items (the item's most frequent value equal
    to its gold); ``classes`` gives per-class recall and precision over
    annotations. At the interval and ratio levels, numbers are not compared
    exactly: ``summary`` gives the mean absolute error ``mae``, the root mean
    squared error ``rmse``, Pearson's ``pearson`` and Lin's (1989)
    concordance correlation ``ccc = 2 s_xy / (s_x^2 + s_y^2 + (mean_x -
    mean_y)^2)`` (moments of divisor n, as Lin defines them) of every
    annotation against its item's gold (the pool over annotations), and
    ``<stat>_mean`` of each item's mean annotation against its gold (the
    crowd's aggregate, as crowd work often reports it); ``raters`` gives the
    four per rater. ``pearson`` and ``ccc`` need two annotations, and
    ``pearson`` variance on both sides: else NaN with an
    :class:`~xrr_accessor.errors.UndefinedWarning` saying why.

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
        Level of measurement (default: inferred, as in ``irr``); at the
        nominal and ordinal levels accuracy, recall and precision compare
        values exactly, at the interval and ratio levels the error and
        concordance measures above replace them.
    ci : float, optional
        Interval and ratio levels: with a level (e.g. 0.95), intervals for
        the four measures (pool, item means and raters) from an item
        bootstrap over the items with gold and annotations, each item drawn
        with all its annotations by the same keyed draws as every other call
        with this ``seed``. In memory only (dask-backed data: compute first).
    n_boot, seed, interval
        Replicates, seed and interval (``"bca"`` or ``"percentile"``) of the
        bootstrap, as in :func:`~xrr_accessor.irr`.
    **roles
        Column or dimension names, see :func:`~xrr_accessor.annotations`.

    Returns
    -------
    Validity
        ``summary`` and ``classes`` tables (nominal, ordinal), or ``summary``
        and ``raters`` (interval, ratio; ``classes`` None), as
        ``attrs["tables"]`` names them. Annotations of items without gold
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
    >>> num = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                     "score": [10, 20, 40, 40, 90, 70], "gold": [10] * 2 + [50] * 2
    ...                     + [80] * 2})
    >>> out = validity(num, gold="gold", level="interval")
    >>> out.summary[["mae", "rmse", "mae_mean"]].round(3).values.tolist()
    [[8.333, 9.129, 5.0]]
    >>> out.raters["mae"].round(3).tolist()
    [6.667, 10.0]
    """
    lvl = None if level is None else resolve_level(level)
    data, roles = unbind(data, roles)
    opts = Bootstrap(n_boot, seed, interval)
    level_ci = None if ci is None else confidence(ci)
    if is_lazy(data):
        if level_ci is not None:
            raise InputError("validity(ci=...) runs in memory: call .compute() on the "
                             "dask-backed data first, or leave ci out.")
        from ..lazy.graph import defer

        return defer(_validity, data, (gold,), {"level": level, **roles},
                     reader=partial(_tables, gold=gold))
    return per_call(_validity)(data, gold, lvl, level_ci=level_ci, opts=opts, **roles)


def _tables(block: Any, roles: dict[str, Any], gold: Any) -> list[Any]:
    """One partition of dask-backed data and its items' gold, as two tables."""
    table, gold_t, _ = gold_table(block, gold, roles, own_items=True)
    return [table, gold_t]


#: The gold's replication as the encoder names it (the second input, "other").
GOLD = "other"


def _validity(data: Any, gold: Any, level: Any = None, level_ci: float | None = None,
              opts: Bootstrap | None = None, **roles: Any) -> Validity:
    lvl = None if level is None else resolve_level(level)
    kx = lookup("kappa_x", kind="cross")
    if isinstance(data, Staged):  # dask-backed: the partitions' sums, added
        ann = data.ann
        reps = list(ann.replications)
        if f"{GOLD} (other)" in reps or GOLD not in reps:
            raise InputError(f"a replication of the dask-backed data is named {GOLD!r}, "
                             "the name the gold takes; rename it (e.g. "
                             "ddf[col].replace({'other': 'other pool'})).")
        gold_rep = reps.index(GOLD)
        ann, lvl = inferred_level(ann, staged=data) if lvl is None else given_level(ann, lvl)
        source = ("the gold Series" if isinstance(gold, pd.Series) else "the gold frame"
                  if isinstance(gold, pd.DataFrame) else f"gold column {gold!r}"
                  if not isinstance(gold, Mapping) else f"gold columns {list(gold.values())}")
    else:
        table_data, table_gold, source = gold_table(data, gold, roles)
        tables = [table_data, table_gold]
        ann = encode(tables, ordinal=lvl is not None and lvl.ordered)
        ann, lvl = (inferred_level(ann, tables, rows=slice(0, len(table_data.item)))
                    if lvl is None else given_level(ann, lvl))  # from the data, not gold
        if lvl.numeric:
            ann.values(lvl.name)
        gold_rep = ann.inputs[0][0]
    if level_ci is not None and not lvl.numeric:
        raise InputError(f"validity(ci={level_ci!r}) gives intervals of the interval and "
                         f"ratio levels' error measures; at level={lvl.name!r} leave ci out "
                         "(or pass level='interval' for numbers).")
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
        kx_stats, sums = unstack(data.stats, len(ann.labels))
        est = run(replace(data, meta=meta, stats=kx_stats), [kx], pairs=pairs,
                  level=lvl).estimate(kx)
        had_rep = bool(sums[0].pop("had_rep")[0]) if sums else False
        extra = unseen(gold, list(ann.labels), sums, roles.get("item"))
    units: list[Units] | None = None  # each label's units (numbers, in memory)
    if not isinstance(data, Staged):
        est = run(None, [kx], pairs=pairs, ann=ann, lvl=lvl).estimate(kx)
        sums = [label_sums(read_, j, gold_rep) for j in range(len(ann.labels))]
        had_rep, extra = ann.inputs[0][1], 0
        if lvl.numeric:
            units = [label_units(read_, j, gold_rep) for j in range(len(ann.labels))]
            for j, u in enumerate(units):
                sums[j]["num"] = point_sums(u)
    opts = opts or Bootstrap()
    units = units if level_ci is not None else None  # without ci the point sums suffice
    every, seed = (numbers(read_, [s["num"] for s in sums], units, level_ci, opts)
                   if lvl.numeric else ([], None))
    summaries, classes, dropped, unused = [], [], [0, 0], extra
    for j in range(len(ann.labels)):
        s, c = _label(read_, j, mine, sums[j], est.value[j], None if not lvl.numeric else {
            **columns(every[j]["pool"], units is not None),
            **columns(every[j]["mean"], units is not None, "_mean")})
        summaries.append(s)
        classes.append(c)
        dropped = [dropped[0] + int(sums[j]["no_gold"].sum()),
                   dropped[1] + int(sums[j]["no_gold_items"][0])]
        unused += int(sums[j]["unused"][0])
    summary = pd.concat(summaries)
    per_class = None if lvl.numeric else pd.concat(classes)
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
    raters = None
    if lvl.numeric:
        raters = raters_table(read_, every, mine, _display_order(ann.replications[mine]),
                              units is not None)
        warn_numbers(every, mine)
    attrs = {"metric": "validity", "level": lvl.name, "gold": source,
             "n_gold_unused": unused,
             "tables": ("summary", "raters") if lvl.numeric else ("summary", "classes")}
    if units is not None:
        attrs.update(ci=level_ci, method="bootstrap", interval=opts.interval,
                     n_boot=opts.n_boot, seed=seed)
    out = [summary, per_class, raters]
    if not had_rep:  # the data had no replication: drop that level
        out = [t if t is None else t.droplevel("replication") for t in out]
    summary, per_class, raters = (t if t is None else finish(t, read_, dict(attrs))
                                  for t in out)
    return Validity(summary, per_class, raters, attrs)


def _label(read_: Read, j: int, mine: np.ndarray, s: dict[str, np.ndarray],
           kappa: np.ndarray, numbers_: dict[str, np.ndarray] | None = None
           ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Label ``j``'s summary and class rows from its counts (``mine``: the data's
    replications, ``kappa`` their kappa_x against the gold); with ``numbers_`` (each
    replication's error measures) those replace accuracy, and no class rows."""
    ann = read_.ann
    k = read_.n_cat(j)
    n_ann, n_items = s["n_ann"][mine], s["n_items"][mine]
    index = multi_index([("label", ann.labels, np.full(len(mine), j)),
                         ("replication", ann.replications, mine)])
    shown = _display_order(ann.replications[mine])  # sorted, as irr() shows them
    if numbers_ is not None:
        return pd.DataFrame({
            "kappa_x": kappa[:len(mine)], **{c: v[mine] for c, v in numbers_.items()},
            "n_annotations": n_ann.astype(np.int64), "n_items": n_items.astype(np.int64),
            "n_no_gold": s["no_gold"][mine].astype(np.int64)}, index=index).iloc[shown], None
    with np.errstate(divide="ignore", invalid="ignore"):
        summary = pd.DataFrame({
            "kappa_x": kappa[:len(mine)],
            "accuracy": np.where(n_ann > 0, s["correct"][mine] / np.maximum(n_ann, 1), np.nan),
            "majority_accuracy": np.where(n_items > 0, s["credit"][mine]
                                          / np.maximum(n_items, 1), np.nan),
            "n_annotations": n_ann.astype(np.int64), "n_items": n_items.astype(np.int64),
            "n_tied": s["n_tied"][mine].astype(np.int64),
            "n_no_gold": s["no_gold"][mine].astype(np.int64),
        }, index=index)
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


def _warn(summary: pd.DataFrame, classes: pd.DataFrame | None, dropped: list[int], unused: int,
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
    if classes is None:
        return
    n_rec, n_prec = int(classes["recall"].isna().sum()), int(classes["precision"].isna().sum())
    if n_rec or n_prec:
        warn_undefined_rows("validity recall / precision", n_rec + n_prec, 2 * len(classes),
                            f"recall for {n_rec} class(es) never in the gold, precision for "
                            f"{n_prec} class(es) never given", {})
