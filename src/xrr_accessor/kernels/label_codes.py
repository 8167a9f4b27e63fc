"""Every label column's codes in one call: a table of ratings (G labels x N rows) of
whole numbers over short ranges, coded without hashing; and continuous ratings kept
as numbers.

:func:`integer_ranges` (integers, in their own type) and :func:`block_ranges`
(floats: also whether one is not a whole number) find each label's smallest and
largest value in one pass over the block;
:func:`shifted_codes` writes each label's codes ``value - smallest`` into its row
of the call's (L, N) code matrix, marks the values present when the range has a
gap to find, and renumbers the codes when some value of the range is absent. The
codes equal :func:`.encode.small_integer_codes` and :func:`.encode.whole_float_codes`
column by column (and ``pd.factorize(sort=True)``). :func:`number_positions` codes
continuous ratings by position (no categories to find: the interval level reads
the numbers).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["block_ranges", "float_column_codes", "integer_ranges", "number_positions",
           "shifted_codes"]


@njit(cache=True, nogil=True)
def integer_ranges(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
    """Per row of integer ``values`` (G, N > 0): its smallest and largest value
    (``lo``, ``hi``, int64), in the values' own type (a loop that vectorizes).

    Examples
    --------
    >>> lo, hi = np.empty(2, dtype=np.int64), np.empty(2, dtype=np.int64)
    >>> integer_ranges(np.array([[3, 1, 2], [0, 0, 5]], dtype=np.int8), lo, hi)
    >>> lo.tolist(), hi.tolist()
    ([1, 0], [3, 5])
    """
    for g in range(values.shape[0]):
        row = values[g]
        low = row[0]
        high = row[0]
        for a in range(row.shape[0]):
            v = row[a]
            low = min(low, v)
            high = max(high, v)
        lo[g] = low
        hi[g] = high


@njit(cache=True, nogil=True)
def block_ranges(values: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 bad: np.ndarray) -> None:
    """Per row of ``values`` (G, N): its smallest and largest number (``lo``, ``hi``,
    float64; inf and -inf when every value is NaN) and whether one is not a whole
    number (``bad``). No branch on the values.

    Examples
    --------
    >>> lo, hi, bad = np.empty(2), np.empty(2), np.empty(2, dtype=np.bool_)
    >>> block_ranges(np.array([[3, 1, 2], [0, 0, 5]]), lo, hi, bad)
    >>> lo.tolist(), hi.tolist(), bad.tolist()
    ([1.0, 0.0], [3.0, 5.0], [False, False])
    >>> block_ranges(np.array([[1.5, np.nan], [np.nan, np.nan]]), lo, hi, bad)
    >>> lo.tolist(), hi.tolist(), bad.tolist()
    ([1.5, inf], [1.5, -inf], [True, False])
    """
    for g in range(values.shape[0]):
        row = values[g]
        n = row.shape[0]
        # four running bounds, one per lane: a chain of comparisons four times shorter
        # (2.3x faster); NaN fails both comparisons, so it never moves them
        lo0, lo1, lo2, lo3 = np.inf, np.inf, np.inf, np.inf
        hi0, hi1, hi2, hi3 = -np.inf, -np.inf, -np.inf, -np.inf
        for a in range(0, n - n % 4, 4):
            v0, v1, v2, v3 = row[a], row[a + 1], row[a + 2], row[a + 3]
            lo0 = v0 if v0 < lo0 else lo0
            lo1 = v1 if v1 < lo1 else lo1
            lo2 = v2 if v2 < lo2 else lo2
            lo3 = v3 if v3 < lo3 else lo3
            hi0 = v0 if v0 > hi0 else hi0
            hi1 = v1 if v1 > hi1 else hi1
            hi2 = v2 if v2 > hi2 else hi2
            hi3 = v3 if v3 > hi3 else hi3
        for a in range(n - n % 4, n):
            v = row[a]
            lo0 = v if v < lo0 else lo0
            hi0 = v if v > hi0 else hi0
        odd = False
        for a in range(n):  # a loop of its own: it vectorizes
            v = row[a]
            odd |= (v != np.floor(v)) & (v == v)
        lo[g] = min(min(lo0, lo1), min(lo2, lo3))
        hi[g] = max(max(hi0, hi1), max(hi2, hi3))
        bad[g] = odd


@njit(cache=True, nogil=True)
def shifted_codes(values: np.ndarray, rows: np.ndarray, base: np.ndarray,
                  slots: np.ndarray, out: np.ndarray, present: np.ndarray) -> None:
    """Codes 0..K-1 (-1: NaN) of each row ``g`` of ``values`` (G, N) written to
    ``out[rows[g]]``: the value minus ``base[g]`` (its smallest), renumbered over
    the values present when ``slots[g]`` (its largest - smallest + 1) holds a gap.
    ``present`` (G, at least the most slots + 1) says which slots occur (slot
    ``slots[g]`` stands for NaN): written where ``slots[g]`` > 2 (at most 2 slots:
    both ends occur). A row with ``slots[g]`` 0 is left alone (the caller codes it
    another way).

    Examples
    --------
    >>> out, present = np.zeros((2, 4), dtype=np.int64), np.zeros((2, 7), dtype=np.bool_)
    >>> shifted_codes(np.array([[7, 9, 12, 9]]), np.array([1]), np.array([7]),
    ...               np.array([6]), out, present)
    >>> out.tolist(), np.flatnonzero(present[0]).tolist()
    ([[0, 0, 0, 0], [0, 1, 2, 1]], [0, 2, 5])
    """
    floats = values.dtype.kind == "f"  # a constant of the compiled signature
    for g in range(values.shape[0]):
        span = slots[g]
        if span == 0:
            continue
        src = values[g]
        dest = out[rows[g]]
        b = base[g]
        if floats:
            for a in range(src.shape[0]):  # branch-free: vectorizes
                v = src[a]
                ok = v == v
                dest[a] = (np.int64(v if ok else b) - b) if ok else -1
        else:
            for a in range(src.shape[0]):
                dest[a] = np.int64(src[a]) - b
        if span <= 2:
            continue
        mark = present[g]
        for a in range(dest.shape[0]):
            mark[dest[a] if dest[a] >= 0 else span] = True
        lookup = np.empty(span, dtype=np.int64)
        k = 0
        for s in range(span):
            lookup[s] = k if mark[s] else -1
            k += mark[s]
        if k < span:  # a gap in the range: slots to ranks
            for a in range(dest.shape[0]):
                if dest[a] >= 0:
                    dest[a] = lookup[dest[a]]


@njit(cache=True, nogil=True)
def float_column_codes(values: np.ndarray, limit: int, dest: np.ndarray
                       ) -> tuple[bool, np.ndarray]:
    """:func:`block_ranges` and :func:`shifted_codes` of one C-contiguous float64 column
    in one call: its codes 0..K-1 (-1: NaN) written to ``dest`` and the K values
    present, sorted; False (``dest`` not written) where they are not whole numbers
    over a range of at most ``limit`` (and within 2**52 in size), as a block of one
    column declines.

    Examples
    --------
    >>> dest = np.empty(4, dtype=np.int64)
    >>> ok, cats = float_column_codes(np.array([5.0, np.nan, 9.0, 5.0]), 1024, dest)
    >>> ok, dest.tolist(), cats.tolist()
    (True, [0, -1, 1, 0], [5.0, 9.0])
    >>> float_column_codes(np.array([0.5, 1.0]), 1024, dest)[0]
    False
    """
    block = values.reshape(1, values.shape[0])
    lo, hi, bad = np.empty(1), np.empty(1), np.zeros(1, dtype=np.bool_)
    block_ranges(block, lo, hi, bad)
    low, high = lo[0], hi[0]
    if bad[0] or not low <= high or high - low > limit or max(abs(low), abs(high)) > 2.0**52:
        return False, np.empty(0)
    base = np.full(1, np.int64(low))
    span = np.full(1, np.int64(high) - base[0] + 1)
    present = np.zeros((1, span[0] + 1 if span[0] > 2 else 1), dtype=np.bool_)
    shifted_codes(block, np.zeros(1, dtype=np.int64), base, span,
                  dest.reshape(1, dest.shape[0]), present)
    slots = np.arange(span[0]) if span[0] <= 2 else np.flatnonzero(present[0, :span[0]])
    return True, (slots + base[0]).astype(np.float64)


@njit(cache=True, nogil=True)
def number_positions(values: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Continuous ratings coded by position: ``out[a]`` the rank of value ``a`` among
    the numbers (-1: NaN) and the numbers in row order (repeats kept), no sorting
    and no hashing: the categories of a label read only as numbers.

    Examples
    --------
    >>> out = np.empty(4, dtype=np.int64)
    >>> kept = number_positions(np.array([0.5, np.nan, 2.25, 0.5]), out)
    >>> out.tolist(), kept.tolist()
    ([0, -1, 1, 2], [0.5, 2.25, 0.5])
    """
    kept = np.empty(values.shape[0], dtype=np.float64)
    k = 0
    for a in range(values.shape[0]):
        v = values[a]
        if v == v:
            kept[k] = v
            out[a] = k
            k += 1
        else:
            out[a] = -1
    return kept[:k]
