"""Cells of label sets -> one integer code per cell, each distinct set one category.

The cells (lists, tuples, sets, frozensets, arrays of labels; none missing)
are read in a few passes over all of them at once, none a Python loop over
cells: equal tuples and frozensets found with one ``pd.factorize``, then over
one of each and every list and set their sizes, the labels flattened into one
array, the labels' categories (one ``pd.factorize``), then one numba pass
(:func:`~xrr_accessor.kernels.sets.canonical_sets`) that sorts each cell's
label codes, finds a label given twice and packs each sorted cell into one
integer; the distinct integers, sorted, are the categories. Only the distinct
sets become Python tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..kernels.sets import canonical_sets
from .sets import set_categories, typed_kinds
from .tables import show

__all__ = ["plain", "set_codes"]


def plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds; anything else as it is.

    Examples
    --------
    >>> plain(np.int64(3)), plain("a")
    (3, 'a')
    """
    return value.item() if isinstance(value, np.generic) else value


def set_codes(cells: np.ndarray, where: str, describe: Callable[[int], str],
              types: tuple[np.ndarray, list[type]] | None = None,
              ) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """Codes (C,) of ``cells`` (C,) (object; each a list, tuple, set or other
    collection of labels, none missing), and the distinct sets as sorted tuples.

    The sets are unordered (``["b", "a"]`` and ``{"a", "b"}`` are one) and sorted
    lexicographically by their labels' order (sorted labels when they sort,
    else first appearance): ``('a',)``, ``('a', 'b')``, ``('b',)``.
    ``describe(c)`` names cell ``c`` in messages; ``types`` (each cell's type
    as a code into the distinct types, :func:`~.sets.typed_kinds`) saves
    finding them again.

    Equal tuples and frozensets are found first (one ``pd.factorize``), and only
    one of each is read label by label (with every list and set).

    Raises
    ------
    InputError
        An empty set, a missing value inside a set, a label that is not
        hashable, or a label twice in one set (the first such cell named).

    Examples
    --------
    >>> cells = np.array([["b", "a"], {"a", "b"}, ("c",), ["a"]], dtype=object)
    >>> codes, sets = set_codes(cells, "column 'tags'", str)
    >>> codes.tolist(), sets
    ([1, 1, 2, 0], [('a',), ('a', 'b'), ('c',)])
    """
    which, kinds = typed_kinds(cells)[1:] if types is None else types
    grouped = _units(cells, np.array([issubclass(t, tuple | frozenset) for t in kinds],
                                     dtype=bool)[which])
    if grouped is None:  # every cell a unit of its own
        return _distinct_codes(cells, None, where, describe)
    unit, first = grouped
    counts = np.bincount(unit, minlength=len(first))
    codes, sets = _distinct_codes(cells[first], counts, where,
                                  lambda u: describe(int(first[u])))
    return codes[unit], sets


def _units(cells: np.ndarray, hashable: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray] | None:
    """Cells grouped into units read once: equal tuples and frozensets one unit (one
    ``pd.factorize``), every other cell (lists, sets: not hashable) a unit of its
    own. Returns each cell's unit (C,) and each unit's first cell, units ordered
    by it (so labels and errors come in the data's order); None when every cell
    is a unit of its own."""
    at = np.flatnonzero(hashable)
    if not len(at):
        return None
    try:
        same, distinct = pd.factorize(cells[at])
    except TypeError:  # a label that is not hashable: each cell read alone (the error named)
        return None
    same = np.asarray(same, dtype=np.int64)
    if len(at) == len(cells):
        return same, _firsts(same, len(distinct))  # factorize numbers in order of appearance
    alone = np.flatnonzero(~hashable)
    first = np.concatenate([at[_firsts(same, len(distinct))], alone])
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    unit = np.empty(len(cells), dtype=np.int64)
    unit[at] = rank[same]
    unit[alone] = rank[len(distinct):]
    return unit, first[order]


def _firsts(code: np.ndarray, n: int) -> np.ndarray:
    """The first position of each of the ``n`` codes in ``code`` (each present)."""
    first = np.empty(n, dtype=np.int64)
    first[code[::-1]] = np.arange(len(code) - 1, -1, -1)
    return first


def _distinct_codes(cells: np.ndarray, counts: np.ndarray | None, where: str,
                    describe: Callable[[int], str]) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """:func:`set_codes` of units of cells (``counts`` (C,): the cells each stands
    for, in the count of empty sets; None: one each)."""
    sizes = np.fromiter(map(len, cells), dtype=np.int64, count=len(cells))
    if (sizes == 0).any():
        raise InputError(
            f"{where} has {_count(sizes == 0, counts)} empty label set(s) (e.g. at "
            f"{describe(int(np.flatnonzero(sizes == 0)[0]))}); an annotation needs at least "
            "one label (Jaccard and MASI are undefined between empty sets). Use NaN (None) "
            "for 'no annotation', or give the label the annotator meant (e.g. a 'none' "
            "label).")
    offsets = np.zeros(len(cells) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    flat = np.fromiter(chain.from_iterable(cells), dtype=object, count=int(offsets[-1]))
    try:
        member, labels = set_categories(flat, where)
    except InputError:  # an unhashable label: a missing value is named first
        _no_missing(pd.isna(flat), offsets, where, describe)
        raise
    missing = member < 0  # the labels factorize leaves out: NaN, None, NaT, NA
    na_label = pd.isna(labels.to_numpy(dtype=object))
    if na_label.any():
        missing |= na_label[np.maximum(member, 0)]
    _no_missing(missing, offsets, where, describe)
    base = len(labels) + 1
    width = int(sizes.max())
    packed = width * np.log2(base) < 62
    canon, keys, cell, code = canonical_sets(offsets, member, base, width if packed else 0)
    if cell >= 0:
        raise InputError(
            f"{where}: the label {show(labels[code])} appears twice in the annotation "
            f"at {describe(int(cell))}; give each label once per annotation "
            "(list(dict.fromkeys(labels)) keeps the first of each).")
    if packed:
        codes, uniq = pd.factorize(keys, sort=True)
        codes = np.asarray(codes, dtype=np.int64)
        first = _firsts(codes, len(uniq))
    else:  # long keys: the cells as rows of a matrix (rare: hundreds of labels a set)
        padded = np.full((len(cells), width), -1, dtype=np.int64)
        owner = np.repeat(np.arange(len(cells), dtype=np.int64), sizes)
        padded[owner, np.arange(len(canon)) - offsets[owner]] = canon
        _, first, inverse = np.unique(padded, axis=0, return_index=True,
                                      return_inverse=True)
        codes = np.asarray(inverse, dtype=np.int64).reshape(-1)
    names = np.fromiter(map(plain, labels.to_numpy(dtype=object)), dtype=object,
                        count=len(labels))
    return codes, _tuples(names, canon, offsets, first)


def _count(mask: np.ndarray, counts: np.ndarray | None) -> int:
    return int(mask.sum() if counts is None else counts[mask].sum())


def _no_missing(missing: np.ndarray, offsets: np.ndarray, where: str,
                describe: Callable[[int], str]) -> None:
    if missing.any():
        cell = int(np.searchsorted(offsets, np.flatnonzero(missing)[0], side="right")) - 1
        raise InputError(
            f"{where} has a missing value inside a label set (at {describe(cell)}); drop it "
            "from the set, or make the whole cell NaN when there is no annotation.")


def _tuples(names: np.ndarray, canon: np.ndarray, offsets: np.ndarray,
            first: np.ndarray) -> list[tuple[Any, ...]]:
    """The labels of the cells ``first`` (one per distinct set) as tuples: one
    object matrix per set size, its rows turned into tuples at once."""
    lo, size = offsets[first], offsets[first + 1] - offsets[first]
    out: list[tuple[Any, ...]] = [()] * len(first)
    for s in np.unique(size).tolist():
        at = np.flatnonzero(size == s)
        rows = names[canon[lo[at, None] + np.arange(s)]]
        for k, t in zip(at.tolist(), map(tuple, rows.tolist()), strict=True):
            out[k] = t
    return out
