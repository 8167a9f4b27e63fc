"""Integer ratings to category codes without hashing (the common Likert / 0-1 case)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def small_integer_codes(values: np.ndarray, max_span: int,
                        out: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes 0..K-1 of int64 ``values`` in sorted order, written to ``out``, and
    the K categories.

    Two passes over the values and a lookup table over [min, max]. When the
    range is wider than ``max_span`` the first result is False (hash instead)
    and ``out`` is not written.
    """
    n = values.shape[0]
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
    lookup = np.zeros(hi - lo + 1, dtype=np.int64)
    for a in range(n):
        lookup[values[a] - lo] = 1
    k = 0
    for v in range(hi - lo + 1):
        if lookup[v]:
            lookup[v] = k
            k += 1
        else:
            lookup[v] = -1
    cats = np.empty(k, dtype=np.int64)
    for v in range(hi - lo + 1):
        if lookup[v] >= 0:
            cats[lookup[v]] = v + lo
    for a in range(n):
        out[a] = lookup[values[a] - lo]
    return True, cats


@njit(cache=True, nogil=True)
def whole_float_codes(values: np.ndarray, max_span: int,
                      out: np.ndarray) -> tuple[bool, np.ndarray]:
    """As :func:`small_integer_codes` for float64 ratings that are whole numbers.

    NaN is missing (code -1). The first result is False (and ``out`` not
    written) when a value is not a whole number, is infinite, or the range is
    wider than ``max_span``.
    """
    n = values.shape[0]
    lo = np.inf
    hi = -np.inf
    bad = False
    for a in range(n):  # NaN fails both comparisons, so it never moves lo or hi
        v = values[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        bad |= (v - np.floor(v)) != 0.0 and v == v
    if bad or not (lo <= hi) or hi - lo > max_span or abs(lo) > 2.0**52 or abs(hi) > 2.0**52:
        return False, np.empty(0, dtype=np.float64)
    base = np.int64(lo)
    span = np.int64(hi) - base + 1
    lookup = np.zeros(span, dtype=np.int64)
    for a in range(n):
        v = values[a]
        if v == v:
            slot = np.int64(v) - base
            out[a] = slot
            lookup[slot] = 1
        else:
            out[a] = -1
    k = 0
    for v in range(span):
        if lookup[v]:
            lookup[v] = k
            k += 1
        else:
            lookup[v] = -1
    cats = np.empty(k, dtype=np.float64)
    for v in range(span):
        if lookup[v] >= 0:
            cats[lookup[v]] = float(v + base)
    if k < span:  # values missing inside [lo, hi]: slots to ranks (else they are equal)
        for a in range(n):
            if out[a] >= 0:
                out[a] = lookup[out[a]]
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
