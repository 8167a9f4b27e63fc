"""Label sets in the cells of an annotation frame: each distinct set is one category.

A label column whose cells are lists, tuples, sets or frozensets of labels
(one annotation each; a missing cell is a missing annotation) is encoded like
any other label: integer codes per annotation, and categories. Here the
categories are the distinct sets, unordered: ``["b", "a"]`` and ``{"a", "b"}``
are one category, shown as the sorted tuple ``('a', 'b')``. The set levels
(``level="jaccard"``, ``"masi"``; :func:`xrr_accessor.engine.levels.set_distances`)
compute the disagreement between categories from their labels, so alpha,
kappa_x and normalized kappa_x run on set-valued annotations unchanged;
``level="nominal"`` counts exact set matches only.

:func:`set_cells` turns the long layout (one row per item, rater and label)
into such a frame, keeping replication columns.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, LevelError, per_call
from .readsets import read_sets
from .roles import ROLE_ALIASES, check_given, find_role, norm
from .setcodes import plain, set_codes
from .sets import (
    MISSING,
    ORDERED,
    RANK_ALIASES,
    SCALAR,
    UNORDERED,
    LabelSets,
    role_column,
    typed_kinds,
    value_column,
)
from .tables import show

__all__ = ["SET_CATEGORIES", "is_label_sets", "label_set_codes", "looks_like_text_lists",
           "set_cells"]

#: The name of a categories index whose categories are label sets (sorted tuples).
SET_CATEGORIES = "label set"

#: How the fix for label sets in a scalar setting is worded in messages.
SET_LEVEL_HINT = (
    "level='jaccard' or level='masi' (partial credit for overlapping sets), or "
    "level='nominal' (agreement only on identical sets)"
)


def is_label_sets(categories: pd.Index) -> bool:
    """Whether ``categories`` are label sets (from cells holding lists or sets).

    Marked by the index name; or, once indexes were combined (partitions of
    dask-backed data), by holding tuples only: a cell of single labels never
    does, since tuple cells are read as sets.

    Examples
    --------
    >>> _, cats = label_set_codes(pd.Series([["a"], ["a", "b"]]), "tags", None, str)
    >>> is_label_sets(cats), is_label_sets(pd.Index(["a", "b"]))
    (True, False)
    """
    if categories.name == SET_CATEGORIES:
        return True
    dtype = categories.dtype  # numpy's object dtype (is_object_dtype's answer, sooner)
    return (isinstance(dtype, np.dtype) and dtype.kind == "O" and len(categories) > 0
            and all(isinstance(c, tuple) for c in categories))


def looks_like_text_lists(categories: pd.Index) -> bool:
    """Single labels that read like lists or sets written as text ("['a', 'b']"), as a
    CSV file or dask's string conversion leaves them."""
    text = [c for c in categories[:20] if isinstance(c, str)]
    return bool(text) and all(c.strip()[:1] in "[({" and c.strip()[-1:] in "])}"
                              for c in text)


def label_set_codes(
    values: pd.Series, where: str, order: Sequence[Any] | None,
    describe: Callable[[int], str],
) -> tuple[np.ndarray, pd.Index] | None:
    """Codes (-1 = missing) and set categories of a column of label sets, or None.

    None when ``values`` holds no lists, tuples or sets (an ordinary label).
    ``describe(i)`` names the annotation of value ``i`` in messages.

    Examples
    --------
    >>> import pandas as pd
    >>> cells = pd.Series([["b", "a"], {"a", "b"}, None, ("c",)])
    >>> codes, cats = label_set_codes(cells, "column 'tags'", None, str)
    >>> codes.tolist(), list(cats)
    ([0, 0, -1, 1], [('a', 'b'), ('c',)])
    >>> label_set_codes(pd.Series(["a", "b"]), "column 'tags'", None, str) is None
    True
    """
    if not pd.api.types.is_object_dtype(values.dtype):
        return None
    whole = None if order is not None else _whole_lists(values, where, describe)
    if whole is not None:
        return whole
    if pd.api.types.infer_dtype(values, skipna=True) not in ("mixed", "mixed-integer"):
        return None  # strings, numbers, booleans: one label per cell (a cheap C check)
    kinds, which, types = typed_kinds(values.to_numpy())
    is_set = (kinds == ORDERED) | (kinds == UNORDERED)
    if not is_set.any():
        return None  # mixed scalar types: the value policy explains
    scalar = np.flatnonzero(kinds == SCALAR)
    if len(scalar):
        i = int(scalar[0])
        raise InputError(
            f"{where} mixes label sets with {len(scalar)} single label(s) (e.g. "
            f"{show(values.iloc[i])} at {describe(i)}); make every annotation a list, e.g. "
            "df[col] = df[col].map(lambda v: v if isinstance(v, (list, tuple, set, "
            "frozenset)) or pd.isna(v) else [v]) (NaN cells stay missing annotations).")
    if order is not None:
        raise InputError(
            f"categories= orders single labels, but {where} holds label sets, whose "
            f"categories are the distinct sets; leave categories= out for this column and "
            f"use {SET_LEVEL_HINT}.")
    present = np.flatnonzero(kinds != MISSING)
    if len(present) == len(values):  # no missing annotation: nothing to take or put back
        codes, cats = set_codes(values.to_numpy(), where, describe, (which, types))
    else:
        inner, cats = set_codes(values.to_numpy()[present], where,
                                lambda c: describe(int(present[c])), (which[present], types))
        codes = np.full(len(values), -1, dtype=np.int64)
        codes[present] = inner
    return codes, pd.Index(cats, dtype=object, name=SET_CATEGORIES, tupleize_cols=False)


def _whole_lists(values: pd.Series, where: str, describe: Callable[[int], str]
                 ) -> tuple[np.ndarray, pd.Index] | None:
    """:func:`label_set_codes` of a column of lists only (or of sets only), or None.

    The common case skips classifying cells one by one: the set of the cells'
    types says that none is missing or of another type (None when one is)."""
    cells = values.to_numpy()
    if not len(cells) or type(cells[0]) not in (list, set):
        return None
    if set(map(type, cells)) != {type(cells[0])}:  # another type: classified cell by cell
        return None
    sizes = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    codes, cats = set_codes(cells, where, describe, sizes=sizes)
    return codes, pd.Index(cats, dtype=object, name=SET_CATEGORIES, tupleize_cols=False)


def scalar_level_error(where: str, categories: pd.Index, level: str) -> LevelError:
    """The error for a level over single values (ordinal, interval, ratio, ordered
    weights) asked of a column of label sets."""
    return LevelError(
        f"{where} holds label sets (e.g. {categories[0]!r}), and {level} needs one ordered "
        f"value per annotation. Use {SET_LEVEL_HINT}; or analyse each label on its own "
        "as a 0/1 column (df[col].map(lambda s: 'x' in s) for label 'x').")


@per_call
def set_cells(
    data: LabelSets | pd.DataFrame, *, item: Hashable | None = None,
    rater: Hashable | None = None, value: Hashable | None = None,
    rank: Hashable | None = None, by: Hashable | Sequence[Hashable] | None = None,
    layout: str = "auto", columns: Sequence[Hashable] | None = None,
    name: Hashable = "labels", empty: Hashable | None = "none",
) -> pd.DataFrame:
    """One row per annotation with its labels in one cell, ready for ``.xrr``.

    The accessor reads one row per (item, rater[, replication]) annotation,
    so a long frame with one row per label is collapsed first: each
    annotation's labels become one cell, a frozenset (unordered) or, with a
    rank column, a tuple in rank order. The set levels ignore the order.

    Parameters
    ----------
    data : DataFrame or LabelSets
        A long frame (one row per item, rater and label), a frame of label
        sets already, or the output of :func:`~xrr_accessor.read_sets`.
    item, rater, value, rank, layout
        As in :func:`~xrr_accessor.read_sets` (found by name when not given).
    by : column name or list of them, optional
        Columns that tell annotations apart besides item and rater, kept in
        the result: the replication (default: the column named like one,
        ``replication`` or ``pool``, if any) or a question.
    columns : list of column names, optional
        Indicator columns instead of a long frame: one 0/1 (or boolean)
        column per label, one row per annotation (the IRep and GoEmotions
        layout). Each row's labels (the columns holding 1) become one
        frozenset in column ``name``; the indicator columns are dropped and
        every other column kept. A row with no label gets ``{empty}``
        (``empty=None``: an error naming the rows); a row missing in every
        indicator column is left out with a ``DroppedDataWarning``; other
        values are an error naming the column.
    name, empty
        The set column's name, and the label of a row with none (see
        ``columns``).

    Returns
    -------
    DataFrame
        Columns item, ``by``, rater and the label sets, named as in ``data``;
        except that a column of labels named like the accessor's label role
        (``label``), which ``.xrr`` would read as the name of a question, is
        called ``labels``.

    Raises
    ------
    InputError
        As :func:`~xrr_accessor.read_sets`, naming the column and the fix (a
        label repeated in one annotation, empty sets, missing ids, ...).

    Examples
    --------
    >>> import pandas as pd
    >>> long = pd.DataFrame({"item": [1, 1, 1, 2, 2], "pool": "A",
    ...                      "rater": ["x", "x", "y", "x", "y"],
    ...                      "label": ["neutral", "entail", "neutral", "entail", "entail"]})
    >>> cells = set_cells(long)
    >>> cells["labels"].map(sorted).tolist()
    [['entail', 'neutral'], ['neutral'], ['entail'], ['entail']]
    >>> list(cells.columns)
    ['item', 'pool', 'rater', 'labels']
    >>> round(float(cells.xrr.irr(level="masi").iloc[0, 0]), 3)
    0.5
    >>> wide = pd.DataFrame({"item": [1, 1], "rater": ["x", "y"], "joy": [1, 1],
    ...                      "awe": [1, 0], "fear": [0, 0]})
    >>> set_cells(wide, columns=["joy", "awe", "fear"])["labels"].map(sorted).tolist()
    [['awe', 'joy'], ['joy']]
    """
    if columns is not None:
        return _indicator_sets(data, list(columns), name, empty)
    if isinstance(data, LabelSets):
        if by is not None:
            raise InputError("by= selects columns of a frame; LabelSets has none. Pass the "
                             "frame itself, set_cells(df, by=...).")
        return _cells_frame(data, "item", "rater", data.column or "labels")
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"set_cells reads a pandas DataFrame or LabelSets, not "
                        f"{type(data).__name__}.")
    cols = list(data.columns)
    item_col, rater_col = role_column(cols, "item", item), role_column(cols, "rater", rater)
    keys = _by_columns(cols, by)
    clash = [c for c in keys if c in (item_col, rater_col)]
    if clash:
        raise InputError(f"by= names {clash[0]!r}, which is the item or rater; by= names the "
                         "other columns that tell annotations apart (a replication).")
    rank_col = rank if rank is not None else _find_rank(cols, {item_col, rater_col, *keys})
    if rank is not None:
        check_given(cols, "rank", rank, "column")
    value_col = value_column(cols, value, {item_col, rater_col, rank_col, *keys})
    own = [item_col, rater_col, value_col] + ([rank_col] if rank_col is not None else [])
    if not keys:
        sets = read_sets(data[own], item=item_col, rater=rater_col, value=value_col,
                         rank=rank_col, layout=layout)
        return _cells_frame(sets, item_col, rater_col, value_col)
    for k in keys:
        if data[k].isna().any():
            raise InputError(f"column {k!r} (by=) has missing values; every annotation needs "
                             f"one. Fill or drop them (df.dropna(subset=[{k!r}])).")
    parts = []
    for key, group in data.groupby(keys, sort=False, dropna=False):
        sets = read_sets(group[own], item=item_col, rater=rater_col, value=value_col,
                         rank=rank_col, layout=layout)
        frame = _cells_frame(sets, item_col, rater_col, value_col)
        for pos, (k, v) in enumerate(zip(keys, key, strict=True)):
            frame.insert(1 + pos, k, v)
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def _indicator_sets(data: Any, columns: list[Hashable], name: Hashable,
                    empty: Hashable | None) -> pd.DataFrame:
    """One 0/1 column per label -> one frozenset per row (see :func:`set_cells`)."""
    from ..errors import DroppedDataWarning, warn

    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"set_cells(columns=...) reads a pandas DataFrame, not "
                        f"{type(data).__name__}.")
    if not columns:
        raise InputError("columns= is empty; name the 0/1 indicator columns, one per label.")
    for c in columns:
        check_given(list(data.columns), "an indicator (columns=)", c, "column")
    if name in data.columns and name not in columns:
        raise InputError(f"name={name!r} is already a column; pick another name= for the "
                         "label sets.")
    block = data[columns]
    missing = block.isna().to_numpy()
    values = block.astype("float64", errors="ignore")
    for c in columns:
        col = values[c]
        bad = ~col.isna() & ~col.isin([0, 1])
        if col.dtype == object or bad.any():
            shown = data[c][bad].iloc[0] if bad.any() else data[c].dropna().iloc[0]
            shown = shown.item() if isinstance(shown, np.generic) else shown
            raise InputError(f"column {c!r} (columns=) holds {shown!r}; indicator columns "
                             "hold 0/1 or True/False (missing: no annotation).")
    partial = missing.any(axis=1) & ~missing.all(axis=1)
    if partial.any():
        c = columns[int(np.argmax(missing[np.flatnonzero(partial)[0]]))]
        raise InputError(f"{int(partial.sum())} row(s) miss some indicator columns but not "
                         f"all (e.g. column {c!r}); fill them with 0, or drop the rows.")
    gone = missing.all(axis=1)
    if gone.any():
        warn(f"set_cells left out {int(gone.sum())} row(s) missing in every indicator "
             "column (no annotation).", DroppedDataWarning)
    keep = data.loc[~gone]
    matrix = values.loc[~gone].to_numpy(dtype=np.int8)
    patterns, which = np.unique(matrix, axis=0, return_inverse=True)
    none = np.asarray(~patterns.any(axis=1), dtype=bool)
    if none.any() and empty is None:
        n = int(none[which.reshape(-1)].sum())
        raise InputError(f"{n} row(s) hold no label (0 in every indicator column); pass "
                         "empty='none' (or another label) to name them.")
    sets = [frozenset(c for c, on in zip(columns, row, strict=True) if on) or
            frozenset([empty]) for row in patterns]  # one per distinct pattern
    out = keep.drop(columns=columns).reset_index(drop=True)
    out[name] = pd.Series([sets[k] for k in which.reshape(-1)], dtype=object)
    return out


def _by_columns(cols: list[Hashable], by: Hashable | Sequence[Hashable] | None
                ) -> list[Hashable]:
    if by is None:
        found = find_role(cols, "replication")
        return [] if found is None else [found]
    keys = [by] if isinstance(by, str) or not isinstance(by, Sequence) else list(by)
    for k in keys:
        check_given(cols, "by", k, "column")
    return keys


def _find_rank(cols: list[Hashable], used: set[Hashable]) -> Hashable | None:
    found = [c for c in cols if norm(c) in RANK_ALIASES and c not in used]
    return found[0] if len(found) == 1 else None


def _cells_frame(sets: LabelSets, item: Hashable, rater: Hashable,
                 value: Hashable) -> pd.DataFrame:
    if norm(value) in ROLE_ALIASES["label"]:
        value = "labels"  # .xrr reads a column called 'label' as the question's name
    frame = sets.to_frame()
    cells = pd.Series([tuple(map(plain, t)) if o else frozenset(map(plain, t))
                       for t, o in zip(frame["labels"], frame["ordered"], strict=True)],
                      dtype=object)
    return pd.DataFrame({item: frame["item"], rater: frame["rater"], value: cells})
