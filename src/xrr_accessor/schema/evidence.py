"""What label inference knows of each candidate column: its kind, range and text, and
whether it holds one value within every item or rater (:mod:`.labels` decides).

Two routes gather it. A whole frame's columns are grouped by the reader's item and
rater codes, one pass a column (:func:`~..kernels.groups.varies_within`); the
partitions of dask-backed data group their own rows and hash the ids and values, so
that their evidence merges exactly (:func:`merge_evidence`): the same decision from the
parts as from the whole.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..kernels.groups import varies_within
from .text import check_text

__all__ = ["ID_SPAN", "Column", "Groups", "IdCodes", "Rows", "evidence", "is_number_column",
           "merge_evidence"]


#: Integer columns spanning more than this many values may be ids, not ratings.
ID_SPAN = 1000


@dataclass
class Groups:
    """Per group of rows (an item, or a rater): its id's hash, rows, its first value's
    hash and whether its values vary; groups split over parts merge exactly. Groups of
    the reader's codes (:meth:`Rows.coded`) have no hashes (``key``, ``first`` empty):
    a whole frame's, never merged (:meth:`merge` refuses them)."""

    key: np.ndarray
    n: np.ndarray
    first: np.ndarray
    varies: np.ndarray

    @classmethod
    def of_codes(cls, by: Rows, codes: np.ndarray, uniq: Any) -> Groups:
        """The groups of ``by`` (rows grouped once per partition) for one column, from
        its codes (-1: missing, a value of its own) and distinct values."""
        if by.codes is not None:  # the reader's codes: one pass, nothing to merge later
            return cls(by.keys, by.n, np.zeros(0, np.uint64),
                       varies_within(by.codes, len(by.n), codes))
        if not len(by.starts):
            return cls(by.keys, np.zeros(0, np.int64), np.zeros(0, np.uint64),
                       np.zeros(0, bool))
        ordered = codes[by.order]
        lo = np.minimum.reduceat(ordered, by.starts)
        hi = np.maximum.reduceat(ordered, by.starts)
        hashes = np.append(_hash(uniq), _hash([None]))  # code -1: missing
        return cls(by.keys, by.n, hashes[codes[by.first]], lo != hi)

    @classmethod
    def merge(cls, parts: list[Groups]) -> Groups:
        if any(len(p.key) != len(p.n) for p in parts):  # a bug, not an input's fault
            raise ValueError("groups of the reader's codes have no hashes to merge by")
        key = np.concatenate([p.key for p in parts])
        uniq, inv = np.unique(key, return_inverse=True)
        first = np.concatenate([p.first for p in parts])
        n = np.bincount(inv, np.concatenate([p.n for p in parts]), len(uniq))
        varies = np.bincount(inv, np.concatenate([p.varies for p in parts]), len(uniq)) > 0
        if not len(key):
            return cls(uniq, n.astype(np.int64), first, varies)
        order = np.argsort(inv, kind="stable")
        starts = np.searchsorted(inv[order], np.arange(len(uniq)))
        lo = np.minimum.reduceat(first[order], starts)
        hi = np.maximum.reduceat(first[order], starts)
        return cls(uniq, n.astype(np.int64), lo, varies | (lo != hi))

    def describes(self) -> bool:
        """One value within every group of several rows (and some group has several)."""
        several = self.n > 1
        return bool(several.any()) and not bool((self.varies & several).any())


@dataclass
class Rows:
    """Rows grouped by one column (items, or raters), once for every candidate column:
    the groups' id hashes, sizes, each group's first row and the rows in group order."""

    keys: np.ndarray
    n: np.ndarray
    first: np.ndarray
    order: np.ndarray
    starts: np.ndarray
    #: The reader's codes of the groups (:meth:`coded`), or None (:meth:`of`).
    codes: np.ndarray | None = None

    @classmethod
    def coded(cls, codes: np.ndarray, n_groups: int) -> Rows:
        """Rows grouped by the reader's codes ``0..n_groups-1`` of one frame's ids: the
        groups' sizes only (no sort, no hashes: evidence that is not merged with
        another part's; :meth:`Groups.of_codes` then takes one pass per column)."""
        codes = np.ascontiguousarray(codes, dtype=np.int64)
        none = np.zeros(0, np.int64)
        return cls(np.zeros(0, np.uint64), np.bincount(codes, minlength=n_groups).astype(
            np.int64), none, none, none, codes)

    @classmethod
    def of(cls, ids: pd.Series) -> Rows:
        try:
            codes, uniq = pd.factorize(ids, use_na_sentinel=False)
        except TypeError:  # unhashable ids: the reader refuses them, saying why
            codes, uniq = np.zeros(len(ids), np.int64), pd.Index([0])
        codes = np.asarray(codes, dtype=np.int64)
        order = np.argsort(codes, kind="stable")
        starts = np.searchsorted(codes[order], np.arange(len(uniq)))
        n = np.diff(np.append(starts, len(codes))).astype(np.int64)
        return cls(_hash(uniq), n, order[starts] if len(order) else starts, order, starts)


def _hash(values: Any) -> np.ndarray:
    """Hashes of ids or values, equal for equal values (missing ones alike; numbers as
    floats, so 1 and 1.0 alike across partitions)."""
    index = pd.Index(values)
    if pd.api.types.is_numeric_dtype(index.dtype) and not pd.api.types.is_bool_dtype(
            index.dtype):
        return pd.util.hash_array(index.to_numpy(dtype=float, na_value=np.nan))
    return pd.util.hash_pandas_object(pd.Series(np.asarray(index, dtype=object)),
                                      index=False).to_numpy()


@dataclass
class Column:
    """What label inference needs to know of one candidate column, mergeable across
    the partitions of dask-backed data (:func:`merge_evidence`): the same decision
    from the parts as from the whole (grouped without the reader's codes: see
    :func:`evidence`)."""

    kind: str  # "number", "string", "categorical", "empty" or "other"
    by_item: Groups | None  # None: not grouped (numbers that span little)
    by_rater: Groups | None = None  # text only
    lo: float = np.inf  # numbers: the range of the known values ...
    hi: float = -np.inf
    whole: bool = True  # ... all of them whole numbers
    n_chars: int = 0  # text: characters and values, for the mean length
    n_text: int = 0
    distinct: frozenset[Any] = frozenset()  # up to two distinct values


def is_number_column(values: pd.Series) -> bool:
    """Whether a column holds numbers or booleans (its range is its evidence)."""
    return bool(pd.api.types.is_numeric_dtype(values.dtype)
                or pd.api.types.is_bool_dtype(values.dtype))


def _number(values: pd.Series) -> Column:
    """A numeric column's range (an id spans more than :data:`ID_SPAN`), no groups."""
    arr = values.to_numpy() if isinstance(values.dtype, np.dtype) else None
    col_ev = Column("number", None)
    if arr is not None and arr.size and arr.dtype.kind in "iuf":
        known = arr[~np.isnan(arr)] if arr.dtype.kind == "f" else arr
        if known.size:
            col_ev.lo, col_ev.hi = float(known.min()), float(known.max())
            col_ev.whole = bool((known == np.floor(known)).all())
    elif arr is None or arr.dtype.kind not in "iuf":
        col_ev.whole = False  # booleans, nullable: never an id
    return col_ev


def _factorized(values: pd.Series) -> tuple[np.ndarray, Any]:
    """A column's codes (int64; -1 missing, a value of its own in the groups) and its
    distinct values in order of appearance."""
    codes, uniq = pd.factorize(values, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), uniq


def _grouped(by: Rows, found: tuple[np.ndarray, Any] | None) -> Groups | None:
    """:meth:`Groups.of_codes` of a column factorized (:func:`_factorized`), or None for
    unhashable values (lists: the reader explains)."""
    return None if found is None else Groups.of_codes(by, *found)


def _factorized_or_none(values: pd.Series) -> tuple[np.ndarray, Any] | None:
    """:func:`_factorized`, or None for unhashable values."""
    try:
        return _factorized(values)
    except TypeError:
        return None


#: The reader's item and rater codes and their counts, made when asked (see :func:`evidence`).
IdCodes = Callable[[], tuple[np.ndarray, int, np.ndarray, int]]


def evidence(df: pd.DataFrame, candidates: list[Hashable], item: Hashable,
             rater: Hashable, ids: IdCodes | None = None) -> dict[Hashable, Column]:
    """What :func:`decide` needs of each candidate column of ``df`` (a lone surrogate in
    one of them refused, naming it and its row).

    ``ids``: the reader's item and rater codes, asked for only when a column is grouped
    (the evidence of a whole frame: rows grouped by those codes in one pass, without the
    hashes that merge dask partitions' evidence; it cannot be merged). Without, the ids
    are factorized here and the evidence can be merged (:func:`merge_evidence`)."""
    try:
        return _evidence(df, candidates, item, rater, ids)
    except UnicodeEncodeError:
        for col in (item, rater, *candidates):
            check_text(df[col], f"column {col!r}")
        raise


def _evidence(df: pd.DataFrame, candidates: list[Hashable], item: Hashable,
              rater: Hashable, ids: IdCodes | None = None) -> dict[Hashable, Column]:
    """What :func:`decide` needs of each candidate column of ``df``.

    Only numbers, none spanning more than :data:`ID_SPAN` here: their ranges only
    (no grouping by item, the costly part; a column whose parts are narrow but
    whole spans more is then kept, where the eager reader might leave it out as an
    id: name the labels to be sure).
    """
    out = {col: _number(df[col]) for col in candidates if is_number_column(df[col])}
    if len(out) == len(candidates) and not any(
            c.whole and c.hi - c.lo > ID_SPAN for c in out.values()):
        return {col: out[col] for col in candidates}
    coded = None if ids is None else ids()
    items = Rows.of(df[item]) if coded is None else Rows.coded(coded[0], coded[1])
    raters: Rows | None = None
    for col in candidates:
        values = df[col]
        found = _factorized_or_none(values)  # once for the items' and the raters' groups
        if col in out:
            out[col].by_item = _grouped(items, found)
            continue
        if found is not None:  # a lone surrogate refused, naming its row (the
            # mergeable route's hashing fails on it; the coded one would not look)
            check_text(found[1], f"column {col!r}", rows=values)
        kind, n_chars, n_text = _text_facts(values, found)
        col_ev = Column(kind, _grouped(items, found))
        if kind in ("string", "categorical"):
            if found is not None:  # the first two distinct values (factorize's come in
                col_ev.distinct = frozenset(found[1][:2].tolist())  # order of appearance)
            if kind == "string":
                col_ev.n_chars, col_ev.n_text = n_chars, n_text
            raters = raters or (Rows.of(df[rater]) if coded is None
                                else Rows.coded(coded[2], coded[3]))
            col_ev.by_rater = _grouped(raters, found)
        out[col] = col_ev
    return {col: out[col] for col in candidates}


def _text_facts(values: pd.Series, found: tuple[np.ndarray, Any] | None
                ) -> tuple[str, int, int]:
    """A column's kind ("string", "categorical", "empty" or "other": of its known
    values) and, for text, its characters and known values. From the distinct values
    and their counts where the column was factorized (a column of Python strings is
    then not read string by string: a tenth of the time), else from the values."""
    if found is None:
        text = values.dropna()
        kind = pd.api.types.infer_dtype(text, skipna=True) if len(text) else "empty"
        kind = kind if kind in ("string", "categorical", "empty") else "other"
        return kind, int(text.str.len().sum()) if kind == "string" else 0, len(text)
    codes, uniq = found
    counts = np.bincount(codes[codes >= 0], minlength=len(uniq))
    n_text = int(counts.sum())
    kind = pd.api.types.infer_dtype(uniq, skipna=True) if n_text else "empty"
    kind = kind if kind in ("string", "categorical", "empty") else "other"
    if kind != "string":
        return kind, 0, n_text
    lengths = np.fromiter(map(len, uniq.tolist()), dtype=np.int64, count=len(uniq))
    return kind, int(lengths @ counts), n_text


def merge_evidence(parts: list[dict[Hashable, Column]]) -> dict[Hashable, Column]:
    """The evidence of the whole from its parts' (items or raters may span parts)."""
    out: dict[Hashable, Column] = {}
    for col in dict.fromkeys(c for part in parts for c in part):
        evs = [part[col] for part in parts if col in part]
        kinds = {e.kind for e in evs} - {"empty"}
        kind = (kinds.pop() if len(kinds) == 1 else "empty" if not kinds
                else "string" if kinds == {"string", "categorical"} else "other")
        raters = [e.by_rater for e in evs if e.by_rater is not None]
        distinct: set[Any] = set()
        for e in evs:
            distinct |= e.distinct
        items = [e.by_item for e in evs]
        out[col] = Column(
            kind, None if any(g is None for g in items) else Groups.merge(
                [g for g in items if g is not None]),
            Groups.merge(raters) if raters else None,
            min(e.lo for e in evs), max(e.hi for e in evs), all(e.whole for e in evs),
            sum(e.n_chars for e in evs), sum(e.n_text for e in evs),
            frozenset(list(distinct)[:2]))
    return out
