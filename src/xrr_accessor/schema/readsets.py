"""Reading set-valued annotations into :class:`~xrr_accessor.schema.sets.LabelSets`: the
sets layout (labels in one cell) and the long layout (one row per label, optional rank).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, RoleError, per_call
from .roles import check_given, norm
from .sets import (
    LAYOUTS,
    MISSING,
    ORDERED,
    RANK_ALIASES,
    SCALAR,
    UNORDERED,
    LabelSets,
    cell_kinds,
    role_column,
    set_categories,
    value_column,
)
from .tables import Ids, show

__all__ = ["read_sets", "set_roles"]


def set_roles(roles: dict[str, Any], what: str) -> dict[str, Any]:
    """The roles a set-valued reader takes (item, rater, value), from accessor roles.

    ``labels=`` naming one column is read as ``value=``. Other roles are
    refused with a message naming ``what`` (the function) and the way round.
    """
    out = {k: roles.get(k) for k in ("item", "rater", "value")}
    labels = roles.get("labels")
    if labels is not None:
        if out["value"] is not None:
            raise RoleError("give value= or labels= for the column of labels, not both.")
        if not isinstance(labels, str) and isinstance(labels, Sequence):
            if len(labels) != 1:
                raise RoleError(
                    f"{what} reads one column of labels (a list per annotation, or one "
                    f"label per row); got labels={list(labels)!r}. Name one column with "
                    "value='<column>', not labels=.")
            labels = labels[0]
        out["value"] = labels
    left = sorted(k for k, v in roles.items() if k not in ("item", "rater", "value", "labels")
                  and v not in (None, False, "error"))
    if left:
        named = " and ".join(f"{k}=" for k in left)
        pools = (" Select one replication or question first (e.g. df[df['pool'] == 'A']) "
                 "and name the columns with item=, rater= and value=."
                 if {"replication", "label", "wide"} & set(left) else "")
        raise RoleError(
            f"{what} does not take {named}: leave {named} out; it reads one question of "
            f"set-valued annotations (item, rater, the labels).{pools}")
    return out


@per_call
def read_sets(
    data: Any, *, item: Hashable | None = None, rater: Hashable | None = None,
    value: Hashable | None = None, rank: Hashable | None = None, layout: str = "auto",
) -> LabelSets:
    """Read set-valued annotations into :class:`LabelSets`.

    Parameters
    ----------
    data : DataFrame
        Either one row per annotation with the labels in one cell (a list or
        tuple, primary first; a set or frozenset when unordered), or one row
        per (item, rater, label) with an optional rank column. Missing cells
        (None, NaN) are missing annotations and are skipped.
    item, rater : column name, optional
        Found by name when not given (``item``/``item_id``/..., ``rater``/
        ``annotator``/``worker``/...; see :data:`~.roles.ROLE_ALIASES`).
    value : column name, optional
        The column of labels. When not given: the only column left once item,
        rater and rank are taken, or else the one named like labels
        (``label``, ``labels``, ``category``, ``tags``, ``value``, ...).
    rank : column name, optional
        Long layout only: the rank of each label within its annotation, 1
        (primary), 2, ... without gaps or repeats (0, 1, ... is accepted too
        when the column starts at 0). Found by name (``rank``) when not given.
        Without one, the labels of an annotation are unordered.
    layout : {"auto", "sets", "long"}
        ``"sets"`` requires label sets in the cells (a column of scalars is an
        error), ``"long"`` one label per row; ``"auto"`` decides from the cells.

    Returns
    -------
    LabelSets

    Raises
    ------
    InputError
        Naming the column and the fix: empty label sets, a label repeated in
        one annotation, missing labels inside a set, a rank column with gaps,
        repeated or non-integer ranks, scalars where sets are required, a mix
        of sets and scalars, repeated annotations of one (item, rater).

    Examples
    --------
    Table 1 of Rosenberg & Binkowski (2004): annotator A's labels of five
    messages, primary first.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 2, 3, 4, 5], "rater": "A",
    ...                    "labels": [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]})
    >>> sets = read_sets(df)
    >>> sets.tuples()
    [(0, 1), (1, 0), (1,), (2,), (2, 1)]
    >>> list(sets.categories)
    ['a', 'b', 'c']

    The same annotations in the long layout, one row per label with its rank:

    >>> long = df.explode("labels").rename(columns={"labels": "label"})
    >>> long["rank"] = long.groupby(["item", "rater"]).cumcount() + 1
    >>> read_sets(long).tuples() == sets.tuples()
    True
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(
            f"set-valued annotations are read from a pandas DataFrame, not "
            f"{type(data).__name__}; e.g. pd.DataFrame({{'item': ..., 'rater': ..., "
            "'labels': [[...], ...]}}).")
    if layout not in LAYOUTS:
        raise InputError(f"layout={layout!r} is not a layout; use one of "
                         f"{', '.join(map(repr, LAYOUTS))}.")
    if data.columns.has_duplicates:
        rep = data.columns[data.columns.duplicated()].unique().tolist()
        raise InputError(f"column name(s) {rep} appear more than once; give every column "
                         "its own name before reading annotations.")
    cols = list(data.columns)
    item_col = role_column(cols, "item", item)
    rater_col = role_column(cols, "rater", rater)
    if item_col == rater_col:
        raise RoleError(f"column {item_col!r} cannot be both the item and the rater.")
    rank_col = rank
    if rank_col is not None:
        check_given(cols, "rank", rank_col, "column")
    else:
        found = [c for c in cols if norm(c) in RANK_ALIASES and c not in (item_col, rater_col)]
        rank_col = found[0] if len(found) == 1 else None
    value_col = value_column(cols, value, {item_col, rater_col, rank_col})
    if value_col in (item_col, rater_col, rank_col):
        raise RoleError(f"column {value_col!r} cannot be both a role and the labels.")
    if len(data) == 0:
        raise InputError("the frame has no rows: there are no annotations to read.")
    where = f"column {value_col!r}"
    values = data[value_col]
    kinds = cell_kinds(values)
    present = kinds != MISSING
    n_sets = int(np.count_nonzero((kinds == ORDERED) | (kinds == UNORDERED)))
    n_scalars = int(np.count_nonzero(kinds == SCALAR))
    if n_sets and n_scalars:
        first = int(np.flatnonzero(kinds == SCALAR)[0])
        raise InputError(
            f"{where} mixes label sets with {n_scalars} single label(s) (e.g. "
            f"{show(values.iloc[first])} in row {first}); make every cell a list, e.g. "
            f"df[{value_col!r}].map(lambda v: v if isinstance(v, (list, tuple, set)) "
            "or pd.isna(v) else [v]) (NaN cells stay missing annotations).")
    if layout == "auto":
        layout = "sets" if n_sets else "long"
    if layout == "sets" and n_scalars:
        raise InputError(
            f"{where} holds single labels (e.g. {show(values[present].iloc[0])}), not "
            "label sets, and layout='sets' requires a list, tuple or set per annotation. "
            "A frame with one label per row is read with layout='long' (add a rank "
            f"column for primary/secondary), or wrap each cell: df[{value_col!r}]"
            ".map(lambda v: [v]).")
    if layout == "long" and n_sets:
        raise InputError(
            f"{where} holds label sets (lists / sets), but layout='long' reads one label "
            f"per row; use layout='sets', or df.explode({value_col!r}) first.")
    if not present.any():
        raise InputError(f"{where} has no annotations (every cell is missing).")
    keep = np.flatnonzero(present)
    items = Ids.factorize(data[item_col].iloc[keep], f"column {item_col!r}", item_col)
    raters = Ids.factorize(data[rater_col].iloc[keep], f"column {rater_col!r}", rater_col)
    cells = values.iloc[keep]
    if layout == "sets":
        if rank_col is not None and rank is not None:
            raise InputError(
                f"rank={rank_col!r} numbers the labels of a long frame (one row per label); "
                f"the lists in {where} are ordered already (primary first). Drop rank=.")
        out = _read_set_cells(cells, kinds[keep], items, raters, where,
                              (item_col, rater_col))
    else:
        out = _read_long_rows(data, cells, keep, items, raters, where, rank_col,
                              (item_col, rater_col, value_col))
    return replace(out, column=value_col)


def _read_set_cells(cells: pd.Series, kinds: np.ndarray, items: Ids, raters: Ids,
                    where: str, id_cols: tuple[Hashable, Hashable]) -> LabelSets:
    objs = cells.to_numpy()
    sizes = np.fromiter(map(len, objs), dtype=np.int64, count=len(objs))
    if (sizes == 0).any():
        a = int(np.flatnonzero(sizes == 0)[0])
        raise InputError(
            f"{where} has {int((sizes == 0).sum())} empty label set(s) (e.g. at "
            f"(item={items.show(a)}, rater={raters.show(a)})); an annotation needs at least "
            "one label. Use NaN (None) for 'no annotation', or give the label the "
            "annotator meant (e.g. a 'none' category).")
    flat = np.empty(int(sizes.sum()), dtype=object)
    flat[:] = [v for cell in objs for v in cell]
    missing = pd.isna(flat)
    if missing.any():
        m = int(np.flatnonzero(missing)[0])
        a = int(np.searchsorted(np.cumsum(sizes), m, side="right"))
        raise InputError(
            f"{where} has missing values inside a label set (e.g. at (item={items.show(a)}, "
            f"rater={raters.show(a)})); drop them from the set, or use NaN for the whole "
            "cell when there is no annotation.")
    codes, cats = set_categories(flat, where)
    _no_duplicate_annotations(items, raters, where, id_cols)
    offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    ordered = kinds == ORDERED
    return _finish(items, raters, offsets, codes, ordered, cats, where,
                   "give each label once per annotation (list(dict.fromkeys(labels)) keeps "
                   "the first of each)")


def _read_long_rows(data: pd.DataFrame, cells: pd.Series, keep: np.ndarray, items: Ids,
                    raters: Ids, where: str, rank_col: Hashable | None,
                    id_cols: tuple[Hashable, Hashable, Hashable]) -> LabelSets:
    codes, cats = set_categories(cells.to_numpy(), where)
    key = items.codes * max(len(raters.uniques), 1) + raters.codes
    ann, first = pd.factorize(key)
    ann = np.asarray(ann, dtype=np.int64)
    n_ann = len(first)
    first_row = np.zeros(n_ann, dtype=np.int64)
    first_row[ann[::-1]] = np.arange(len(ann) - 1, -1, -1)  # first row of each annotation
    if rank_col is None:
        order = np.lexsort((codes, ann))
        ordered = np.zeros(n_ann, dtype=bool)
    else:
        by = list(id_cols[:2])
        ranks, base = _ranks(data[rank_col].iloc[keep], rank_col, items, raters, by)
        order = np.lexsort((ranks, ann))
        ordered = np.ones(n_ann, dtype=bool)
        _check_ranks(ranks[order], ann[order], base, rank_col, items, raters, order, by)
    sizes = np.bincount(ann, minlength=n_ann).astype(np.int64)
    offsets = np.zeros(n_ann + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    fix = ("keep one row per (item, rater, label), e.g. "
           f"df.drop_duplicates(subset={list(id_cols)!r})")
    return _finish(items.take(first_row), raters.take(first_row), offsets, codes[order],
                   ordered, cats, where, fix)


def _ranks(values: pd.Series, column: Hashable, items: Ids, raters: Ids,
           by: list[Hashable]) -> tuple[np.ndarray, int]:
    """Ranks counted from 0, and the column's first rank (0 or 1)."""
    where = f"rank column {column!r}"
    fix = (f"number each annotation's labels 1, 2, ... (1 = primary), e.g. df[{column!r}] = "
           f"df.groupby({by!r}).cumcount() + 1")
    if not (pd.api.types.is_numeric_dtype(values.dtype)
            and not pd.api.types.is_bool_dtype(values.dtype)):
        raise InputError(f"{where} holds {values.dtype} values, not integer ranks; {fix}.")
    arr = values.to_numpy(dtype=float, na_value=np.nan)
    bad = ~np.isfinite(arr) | (arr != np.floor(arr))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{where} has {int(bad.sum())} missing or non-integer rank(s) (e.g. "
            f"{values.iloc[row]!r} at (item={items.show(row)}, rater={raters.show(row)})); "
            f"{fix}.")
    ranks = arr.astype(np.int64)
    base = int(ranks.min())
    if base not in (0, 1):
        raise InputError(f"{where} starts at {base}; ranks start at 1 (primary) or 0. {fix}.")
    return ranks - base, base


def _check_ranks(ranks: np.ndarray, ann: np.ndarray, base: int, column: Hashable,
                 items: Ids, raters: Ids, order: np.ndarray, by: list[Hashable]) -> None:
    """Within each annotation (rows sorted by annotation, then rank) ranks are 0..k-1."""
    start = np.ones(len(ann), dtype=bool)
    start[1:] = ann[1:] != ann[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(len(ann)), 0))
    position = np.arange(len(ann)) - first
    dup = np.zeros(len(ann), dtype=bool)
    dup[1:] = ~start[1:] & (ranks[1:] == ranks[:-1])
    gap = (ranks != position) & ~dup
    fix = (f"number each annotation's labels {base}, {base + 1}, ... without gaps or repeats "
           f"({base} = primary), e.g. df[{column!r}] = df.sort_values({column!r})"
           f".groupby({by!r}).cumcount() + {base}")
    for bad, what in ((dup, "a repeated rank"), (gap, "a gap in its ranks")):
        if bad.any():
            s = int(np.flatnonzero(bad)[0])
            row = int(order[s])
            shown = (ranks[ann == ann[s]] + base).tolist()
            raise InputError(
                f"rank column {column!r}: the annotation (item={items.show(row)}, "
                f"rater={raters.show(row)}) has {what} (ranks {shown}); {fix}.")


def _no_duplicate_annotations(items: Ids, raters: Ids, where: str,
                              id_cols: tuple[Hashable, Hashable]) -> None:
    key = pd.Index(items.codes * max(len(raters.uniques), 1) + raters.codes)
    dup = key.duplicated()
    if dup.any():
        a = int(np.flatnonzero(dup)[0])
        raise InputError(
            f"{int(dup.sum())} duplicate annotation(s) in {where}: (item={items.show(a)}, "
            f"rater={raters.show(a)}) has more than one row. One row holds all the labels "
            f"of an annotation; keep one, e.g. df.drop_duplicates(subset={list(id_cols)!r}).")


def _finish(items: Ids, raters: Ids, offsets: np.ndarray, members: np.ndarray,
            ordered: np.ndarray, cats: pd.Index, where: str, fix: str) -> LabelSets:
    """Sort unordered annotations by code; refuse a label repeated in one annotation."""
    n = len(offsets) - 1
    sizes = np.diff(offsets)
    ann = np.repeat(np.arange(n, dtype=np.int64), sizes)
    unordered = ~ordered[ann]
    members = members.copy()
    if unordered.any():
        # within unordered annotations, members sorted by code (stable across rows)
        idx = np.flatnonzero(unordered)
        members[idx] = members[idx][np.lexsort((members[idx], ann[idx]))]
    check = np.lexsort((members, ann))
    repeat = (ann[check][1:] == ann[check][:-1]) & (members[check][1:] == members[check][:-1])
    if repeat.any():
        a = int(ann[check][np.flatnonzero(repeat)[0]])
        raise InputError(
            f"{where}: the label {show(cats[members[check][np.flatnonzero(repeat)[0]]])} "
            f"appears twice in the annotation (item={items.show(a)}, "
            f"rater={raters.show(a)}); {fix}.")
    return LabelSets(item=items.codes, rater=raters.codes, offsets=offsets, members=members,
                     ordered=np.asarray(ordered, dtype=bool), items=items.uniques,
                     raters=raters.uniques, categories=cats, source=where)
