"""Integer ratings to category codes without hashing (the common Likert / 0-1 case)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Ranges of at most this many values are coded with a bit mask of the values present
#: (no lookup table written per value: a store per value costs more than the pass).
MASK_SPAN = 64


@njit(cache=True, nogil=True)
def _ranks(present: np.ndarray, out: np.ndarray) -> int:
    """``present`` (span + 1) 0/1 per slot, the last slot standing for missing:
    slots to ranks in place (-1 for absent slots and the missing slot), and
    ``out`` remapped when some slot is absent. Returns K."""
    span = present.shape[0] - 1
    missing = present[span] != 0
    k = 0
    for v in range(span):
        if present[v]:
            present[v] = k
            k += 1
        else:
            present[v] = -1
    present[span] = -1
    if k < span or missing:  # else every slot is its rank already
        for a in range(out.shape[0]):  # branch-free: the missing slot maps to -1 too
            out[a] = present[out[a]]
    return k


@njit(cache=True, nogil=True)
def _slots_present(out: np.ndarray, span: int) -> np.ndarray:
    """(span + 1) 0/1: which slots 0..span occur in ``out`` (slot ``span`` = missing)."""
    present = np.zeros(span + 1, dtype=np.int64)
    for a in range(out.shape[0]):
        present[out[a]] = 1
    return present


@njit(cache=True, nogil=True)
def _present_from_mask(bits: np.uint64, span: int, missing: bool) -> np.ndarray:
    present = np.zeros(span + 1, dtype=np.int64)
    for v in range(span):
        present[v] = (bits >> np.uint64(v)) & np.uint64(1)
    present[span] = missing
    return present


@njit(cache=True, nogil=True)
def small_integer_codes(values: np.ndarray, max_span: int,
                        out: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes 0..K-1 of int64 ``values`` in sorted order, written to ``out``, and
    the K categories.

    Two or three passes over the values and a lookup table over [min, max]
    (a bit mask of the values present when the range is small). When the
    range is wider than ``max_span`` the first result is False (hash instead)
    and ``out`` is not written.
    """
    n = values.shape[0]
    lo = values[0]
    hi = values[0]
    for a in range(n):
        v = values[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    if hi - lo > max_span:
        return False, np.empty(0, dtype=np.int64)
    span = hi - lo + 1
    if span <= MASK_SPAN:
        bits = np.uint64(0)
        for a in range(n):
            slot = values[a] - lo
            out[a] = slot
            bits |= np.uint64(1) << np.uint64(slot)
        present = _present_from_mask(bits, span, False)
    else:
        for a in range(n):
            out[a] = values[a] - lo
        present = _slots_present(out, span)
    k = _ranks(present, out) if n else 0
    cats = np.empty(k, dtype=np.int64)
    for v in range(span):
        if present[v] >= 0:
            cats[present[v]] = v + lo
    return True, cats


@njit(cache=True, nogil=True)
def whole_float_codes(values: np.ndarray, max_span: int,
                      out: np.ndarray) -> tuple[bool, np.ndarray]:
    """As :func:`small_integer_codes` for float64 ratings that are whole numbers.

    NaN is missing (code -1). The first result is False (and ``out`` not
    written) when a value is not a whole number, is infinite, or the range is
    wider than ``max_span``. The passes have no branch on the values (missing
    values at random would defeat the branch predictor).
    """
    n = values.shape[0]
    lo = np.inf
    hi = -np.inf
    bad = False
    for a in range(n):  # NaN fails both comparisons, so it never moves lo or hi
        v = values[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        bad |= (v != np.floor(v)) & (v == v)
    if bad or not (lo <= hi) or hi - lo > max_span or abs(lo) > 2.0**52 or abs(hi) > 2.0**52:
        return False, np.empty(0, dtype=np.float64)
    base = np.int64(lo)
    span = np.int64(hi) - base + 1
    if span <= MASK_SPAN:
        bits = np.uint64(0)
        missing = False
        for a in range(n):
            v = values[a]
            ok = v == v
            slot = np.int64(v if ok else lo) - base
            out[a] = slot if ok else span
            bits |= (np.uint64(1) << np.uint64(slot)) if ok else np.uint64(0)
            missing |= not ok
        present = _present_from_mask(bits, span, missing)
    else:
        for a in range(n):
            v = values[a]
            ok = v == v
            slot = np.int64(v if ok else lo) - base
            out[a] = slot if ok else span
        present = _slots_present(out, span)
    k = _ranks(present, out)
    cats = np.empty(k, dtype=np.float64)
    for v in range(span):
        if present[v] >= 0:
            cats[present[v]] = float(v + base)
    return True, cats


@njit(cache=True, nogil=True)
def first_seen_codes(values: np.ndarray, max_span: int,
                     out: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes of int64 ids in order of first appearance (as ``pd.factorize``), written
    to ``out``, and the distinct ids in that order.

    A lookup table over [min, max] replaces hashing. When the range is wider
    than ``max_span`` the first result is False (hash instead).
    """
    n = values.shape[0]
    if n == 0:
        return True, np.empty(0, dtype=np.int64)
    lo = values[0]
    hi = values[0]
    for a in range(n):
        v = values[a]
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    if hi - lo > max_span:
        return False, np.empty(0, dtype=np.int64)
    lookup = np.full(hi - lo + 1, -1, dtype=np.int64)
    uniques = np.empty(n, dtype=np.int64)
    k = 0
    for a in range(n):
        j = values[a] - lo
        if lookup[j] < 0:
            lookup[j] = k
            uniques[k] = values[a]
            k += 1
        out[a] = lookup[j]
    return True, uniques[:k].copy()


@njit(cache=True, nogil=True)
def has_repeat(keys: np.ndarray, space: int) -> bool:
    """Whether any key 0..space-1 occurs twice: one pass over a byte per key."""
    seen = np.zeros(space, dtype=np.uint8)
    for a in range(keys.shape[0]):
        k = keys[a]
        if seen[k]:
            return True
        seen[k] = 1
    return False


@njit(cache=True, nogil=True)
def repeat_in_runs(item: np.ndarray, sub: np.ndarray, n_item: int, n_sub: int) -> int:
    """Whether a (``item``, ``sub``) key occurs twice, for rows whose items come in
    runs (each item's rows together, in any order of items): 1 yes, 0 no, -1 the
    rows of some item are not together (then nothing is known).

    ``sub`` (codes 0..n_sub-1: the rater, with the replication and label when
    there are) is stamped with the item that last used it, so the table is
    n_sub entries (the raters), not items x raters.
    """
    stamp = np.full(n_sub, -1, dtype=np.int64)
    started = np.zeros(n_item, dtype=np.uint8)
    prev = -1
    for a in range(item.shape[0]):
        i = item[a]
        if i != prev:
            if started[i]:
                return -1
            started[i] = 1
            prev = i
        s = sub[a]
        if stamp[s] == i:
            return 1
        stamp[s] = i
    return 0
