"""Cells of label sets -> one integer code per cell, each distinct set one category.

The cells (lists, tuples, sets, frozensets, arrays of labels; none missing)
are read in a few passes over all of them at once, none a Python loop over
cells: equal tuples and frozensets found with one ``pd.factorize``, then over
one of each and every list and set their sizes, then the labels' codes: when
every label is a ``str``, the labels joined into one text (the one pass that
reads them) and coded from its bytes in numba, each cell's labels made one bit
mask in the same pass when there are at most 62
(:func:`~xrr_accessor.kernels.sets.text_masks`, else
:func:`~xrr_accessor.kernels.sets.text_labels`); else flattened into one array
and coded by one ``pd.factorize``, then with at most 62 labels each set made a
bit mask (:func:`~xrr_accessor.kernels.sets.label_masks`). The masks are
numbered as they first appear (:func:`~xrr_accessor.kernels.sets.number_masks`)
and only the distinct sets are sorted; with more labels, each cell's codes are
sorted and packed into one integer
(:func:`~xrr_accessor.kernels.sets.distinct_sets`, or a matrix of rows when
the sets are too long to pack). Each pass finds a label given twice. Only the
distinct sets become Python tuples.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from operator import iconcat
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from ..kernels.sets import (
    canonical_sets,
    distinct_sets,
    label_masks,
    number_masks,
    text_labels,
    text_masks,
)
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
              sizes: np.ndarray | None = None) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """Codes (C,) of ``cells`` (C,) (object; each a list, tuple, set or other
    collection of labels, none missing), and the distinct sets as sorted tuples.

    The sets are unordered (``["b", "a"]`` and ``{"a", "b"}`` are one) and sorted
    lexicographically by their labels' order (sorted labels when they sort,
    else first appearance): ``('a',)``, ``('a', 'b')``, ``('b',)``.
    ``describe(c)`` names cell ``c`` in messages; ``types`` (each cell's type
    as a code into the distinct types, :func:`~.sets.typed_kinds`) saves
    finding them again; ``sizes`` (C,), the cells' lengths, says that every cell
    is a list (or every cell a set): none is grouped with another.

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
    if sizes is not None:
        return _distinct_codes(cells, None, where, describe, sizes)
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
                    describe: Callable[[int], str], sizes: np.ndarray | None = None,
                    ) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """:func:`set_codes` of units of cells (``counts`` (C,): the cells each stands
    for, in the count of empty sets; None: one each; ``sizes``: their lengths if
    known)."""
    if sizes is None:
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
    text = _text_members(cells, sizes, offsets)
    if text is not None:  # every label a str: coded from their bytes, none missing
        coded, order, names = text
        if isinstance(coded, tuple):  # at most 62 labels, none twice: the masks made
            return _sets_of_masks(*coded, order, names)
        member = coded
    else:
        member, names = _object_members(cells, offsets, where, describe)
        order = np.arange(len(names))
    if len(names) <= 62:  # each set one bit mask: no sorting, no key
        codes, _, masks, cell = label_masks(offsets, member)
        if cell < 0:  # (a label given twice: the general pass names it)
            return _sets_of_masks(codes, masks, order, names)
    if text is not None:  # the codes in the labels' order
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        member = rank[member]
    base = len(names) + 1
    width = int(sizes.max())
    if width * np.log2(base) < 62:  # each sorted set packed into one integer key
        canon, codes, first, keys, cell, code = distinct_sets(offsets, member, base, width)
    else:  # long keys (rare: hundreds of labels a set): the cells as rows of a matrix
        canon, _, cell, code = canonical_sets(offsets, member, base, 0)
    if cell >= 0:
        raise InputError(
            f"{where}: the label {show(names[code])} appears twice in the annotation "
            f"at {describe(int(cell))}; give each label once per annotation "
            "(list(dict.fromkeys(labels)) keeps the first of each).")
    if width * np.log2(base) < 62:
        order = np.argsort(keys, kind="stable")  # keys order as the sorted sets do
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        codes, first = rank[codes], first[order]
    else:
        padded = np.full((len(cells), width), -1, dtype=np.int64)
        owner = np.repeat(np.arange(len(cells), dtype=np.int64), sizes)
        padded[owner, np.arange(len(canon)) - offsets[owner]] = canon
        _, first, inverse = np.unique(padded, axis=0, return_index=True,
                                      return_inverse=True)
        codes = np.asarray(inverse, dtype=np.int64).reshape(-1)
    return codes, _tuples(names, canon, offsets, first)


def _object_members(cells: np.ndarray, offsets: np.ndarray, where: str,
                    describe: Callable[[int], str]) -> tuple[np.ndarray, np.ndarray]:
    """Each label's code into the categories, and the categories (sorted when they
    sort; numpy scalars as Python's), from the labels flattened into one array."""
    flat = np.fromiter(_flat(cells), dtype=object, count=int(offsets[-1]))
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
    return member, _names(labels)


def _sets_of_masks(codes: np.ndarray, masks: np.ndarray, order: np.ndarray,
                   names: np.ndarray) -> tuple[np.ndarray, list[tuple[Any, ...]]]:
    """:func:`set_codes` from the distinct sets as bit masks (``codes`` (C,) into
    ``masks`` (S,), label ``k`` the bit ``1 << k``; ``order`` the codes in the
    labels' order): only the distinct sets sorted."""
    held = ((masks[:, None] >> order[None, :]) & 1).astype(bool)  # set x label, in order
    rows, cols = np.nonzero(held)  # each set's labels, sorted
    size = held.sum(axis=1)
    starts = np.zeros(len(masks) + 1, dtype=np.int64)
    np.cumsum(size, out=starts[1:])
    padded = np.full((len(masks), int(size.max())), -1, dtype=np.int64)
    padded[rows, np.arange(len(cols)) - starts[rows]] = cols
    lexical = np.lexsort(padded.T[::-1])  # by first label, then second, ...; a prefix first
    rank = np.empty(len(lexical), dtype=np.int64)
    rank[lexical] = np.arange(len(lexical))
    return rank[codes], _tuples(names, cols, starts, lexical)


def _names(labels: pd.Index) -> np.ndarray:
    """The categories' labels as pandas holds them (text as ``str``), numpy scalars as
    Python's."""
    return np.fromiter(map(plain, labels.to_numpy(dtype=object)), dtype=object,
                       count=len(labels))


def _flat(cells: np.ndarray) -> list[Any]:
    """The cells' labels in one list, extended cell by cell (no iterator a cell, as
    ``itertools.chain`` makes: half the time)."""
    return reduce(iconcat, cells, [])


def _texts(labels: np.ndarray) -> np.ndarray:
    """Text labels as pandas holds text (:func:`_names`); plain ``str`` as they are,
    without building an Index (a loop over the distinct labels only)."""
    if all(type(x) is str for x in labels):
        return labels
    return _names(pd.Index(labels))


#: Between two labels in the text :func:`_text_members` codes (a label holding it is
#: read the general way).
_SEP = "\x1f"


#: What :func:`_text_members` finds: each label's code, or (at most 62 labels, none
#: twice in a set) the sets numbered and their bit masks; then the codes in the
#: labels' sorted order, and the sorted labels.
_Text = tuple[np.ndarray | tuple[np.ndarray, np.ndarray], np.ndarray, np.ndarray]


def _text_members(cells: np.ndarray, sizes: np.ndarray, offsets: np.ndarray
                  ) -> _Text | None:
    """The labels coded when every label is a ``str``; else None.

    Returns ``(coded, order, names)``: ``names`` the distinct labels sorted and
    held as pandas holds text, ``order`` the codes in that order, ``coded`` with
    at most 62 labels and none twice in a set ``(codes, masks)``, each cell's set
    numbered in order of first appearance and the sets' bit masks
    (:func:`~xrr_accessor.kernels.sets.text_masks`); else each label's code
    (numbered in order of first appearance,
    :func:`~xrr_accessor.kernels.sets.text_labels`).

    The labels are joined into one text (one C pass, the only one that reads
    them) and coded from its UTF-8 bytes in one numba pass; only the first of
    each distinct label is taken as an object (the one ``pd.factorize`` keeps).
    None (read the general way) when a label is not text, holds :data:`_SEP`
    (the count of separators tells) or has no UTF-8 form (a lone surrogate)."""
    n = int(offsets[-1])
    try:
        text = _SEP.join(_flat(cells))
        buf = text.encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return None
    if text.count(_SEP) != n - 1:
        return None
    data = np.frombuffer(buf, dtype=np.uint8)
    masks, first, cell = text_masks(data, ord(_SEP), offsets)
    coded: np.ndarray | tuple[np.ndarray, np.ndarray]
    if cell == -1:
        codes, firsts = number_masks(masks, len(first))
        coded = codes, masks[firsts]
    else:  # more than 62 labels, or one twice in a set (the general pass names it)
        coded, first = text_labels(data, ord(_SEP), n)
    owner = np.searchsorted(offsets, first, side="right") - 1  # the cell of each first
    held, at = np.unique(owner, return_inverse=True)
    starts = np.zeros(len(held), dtype=np.int64)
    np.cumsum(sizes[held][:-1], out=starts[1:])
    objs = np.fromiter(_flat(cells[held]), dtype=object,
                       count=int(sizes[held].sum()))[starts[at] + first - offsets[owner]]
    order = np.argsort(objs, kind="stable")  # distinct text: str order, as factorize's
    return coded, order, _texts(objs[order])


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
