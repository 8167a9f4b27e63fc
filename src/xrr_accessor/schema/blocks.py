"""The label columns of a table coded together: one block per kind of number.

A frame of annotations with one column per label (31 in the paper's Table 5)
holds them as numbers with few whole values: 0/1 labels, Likert scales. Coded
column by column, each pays a Python call, a copy into int64 and two passes;
here the columns of one kind (bytes and booleans, other integers, floats) are
copied into one block and coded in two kernel calls for all of them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..kernels.encode import column_codes
from ..kernels.label_codes import (
    block_ranges,
    float_column_codes,
    integer_ranges,
    shifted_codes,
)
from .tables import array_index, numpy_values

__all__ = ["block_codes"]


def block_codes(columns: Sequence[tuple[int, pd.Series]], codes: np.ndarray
                ) -> dict[int, pd.Index | None]:
    """Codes of the label columns holding few whole numbers, coded together.

    ``columns``: (row of ``codes``, values) of labels with every row and no
    ``categories=``. Each column of numpy integers, booleans or floats is copied
    into one (G, N) block per kind (int8 for bytes and booleans, int64, float64);
    one pass finds each column's range and one writes its codes into its row of
    ``codes`` (L, N) (:mod:`..kernels.label_codes`).
    Returns the categories of the columns coded, by row, and None for the numbers
    found not to be few whole ones (fractions, wide ranges); these and other types
    are left to :func:`.encode.label_categories`, whose codes and categories these
    equal.

    Examples
    --------
    >>> codes = np.zeros((2, 3), dtype=np.int64)
    >>> cats = block_codes([(0, pd.Series([5, 3, 5])), (1, pd.Series([0.5, 1.0, 0.0]))],
    ...                    codes)
    >>> codes.tolist(), cats[0].tolist(), cats[1]
    ([[1, 0, 1], [0, 0, 0]], [3, 5], None)
    """
    kinds: dict[str, list[tuple[int, np.ndarray]]] = {}
    for j, vals in columns:
        dtype = vals.dtype
        if not isinstance(dtype, np.dtype) or dtype.kind not in "biuf" or not len(vals):
            continue
        arr = numpy_values(vals)
        kind, size = arr.dtype.kind, arr.dtype.itemsize
        block = ("int8" if kind == "b" or (kind == "i" and size == 1) else "int64"
                 if kind == "i" or (kind == "u" and size < 8) else "float64"
                 if kind == "f" else "")
        if block:
            kinds.setdefault(block, []).append((j, arr))
    only = next(iter(kinds.values())) if len(kinds) == 1 else []
    if len(only) == 1:  # one column (one label): one kernel call
        (j, arr), = only
        if "float64" not in kinds:
            return {j: _one_column(arr, codes[j])}
        if arr.dtype == np.float64 and arr.flags.c_contiguous:
            ok, cats = float_column_codes(arr, max(1024, 4 * arr.size), codes[j])
            return {j: array_index(cats) if ok else None}
    found: dict[int, pd.Index | None] = {}
    for block, members in kinds.items():
        found.update(_coded_block(block, members, codes))
    return found


def _one_column(arr: np.ndarray, dest: np.ndarray) -> pd.Index | None:
    """:func:`_coded_block` of a block of one integer (or boolean) column: its codes
    written to ``dest`` and its categories, or None (``dest`` not written) for a range it
    does not take, by one kernel (:func:`~..kernels.encode.column_codes`)."""
    ok, cats = column_codes(np.ascontiguousarray(arr, dtype=np.int64), max(1024, 4 * arr.size),
                            dest)
    if not ok:
        return None
    return array_index(cats.astype(bool if arr.dtype.kind == "b" else arr.dtype, copy=False))


def _coded_block(block: str, members: list[tuple[int, np.ndarray]], codes: np.ndarray
                 ) -> dict[int, pd.Index | None]:
    """:func:`block_codes` for the columns of one kind of number."""
    n = members[0][1].size
    g = len(members)
    one = members[0][1]
    if g == 1 and one.dtype == np.dtype(block) and one.flags.c_contiguous:
        values = one.reshape(1, n)  # one column of the block's type: read in place
    else:
        values = np.empty((g, n), dtype=np.dtype(block))
        for b, (_, arr) in enumerate(members):
            values[b] = arr
    if block == "float64":
        lo, hi, bad = np.empty(g), np.empty(g), np.zeros(g, dtype=np.bool_)
        block_ranges(values, lo, hi, bad)
        low, high, bads = lo.tolist(), hi.tolist(), bad.tolist()
    else:  # integers: the range in their own type (a pass that vectorizes), then as floats
        ilo, ihi = np.empty(g, dtype=np.int64), np.empty(g, dtype=np.int64)
        integer_ranges(values, ilo, ihi)
        low, high = [float(v) for v in ilo.tolist()], [float(v) for v in ihi.tolist()]
        bads = [False] * g  # whole numbers
    # each column's codes base and slots, in Python floats (a few columns: numpy's calls
    # on arrays of g values cost more than they save; inf - inf is nan, never taken)
    limit = max(1024, 4 * n)
    take = [not b and a <= z and z - a <= limit and max(abs(a), abs(z)) <= 2.0**52
            for a, z, b in zip(low, high, bads, strict=True)]
    base = [int(a) if t else 0 for a, t in zip(low, take, strict=True)]
    slots = [int(z) - b + 1 if t else 0 for z, b, t in zip(high, base, take, strict=True)]
    rows = np.array([j for j, _ in members], dtype=np.int64)
    wide = max(slots, default=0)
    present = np.zeros((g, wide + 1 if wide > 2 else 1), dtype=np.bool_)
    # one thread: the write is bound by faulting in the fresh pages of ``codes``, which
    # two threads do no faster
    shifted_codes(values, rows, np.array(base, dtype=np.int64),
                  np.array(slots, dtype=np.int64), codes, present)
    out: dict[int, pd.Index | None] = {}
    for b, (j, arr) in enumerate(members):
        out[j] = None
        if take[b]:
            k = slots[b]
            cats = np.arange(k) if k <= 2 else np.flatnonzero(present[b, :k])
            dtype = bool if arr.dtype.kind == "b" else arr.dtype
            out[j] = array_index((cats + base[b]).astype(dtype, copy=False))  # fresh: no copy
    return out
