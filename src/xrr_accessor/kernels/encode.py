"""Integer ratings to category codes without hashing (the common Likert / 0-1 case)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Ranges of at most this many values are coded with a bit mask of the values present
#: (no lookup table written per value: a store per value costs more than the pass).
MASK_SPAN = 64


@njit(cache=True, nogil=True)
def small_integer_codes(values: np.ndarray, max_span: int,
                        out: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes 0..K-1 of int64 ``values`` in sorted order, written to ``out``, and
    the K categories.

    Two passes over the values (three when some value of [min, max] is absent)
    and a lookup table over [min, max], whose present values are found with a
    bit mask when the range is small. When the range is wider than
    ``max_span`` the first result is False (hash instead) and ``out`` is not
    written.
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
    lookup = np.zeros(span, dtype=np.int64)
    bits = np.uint64(0)
    for a in range(n):  # no store per value into the table (it costs more than the pass)
        slot = values[a] - lo
        out[a] = slot
        bits |= np.uint64(1) << np.uint64(slot & 63)
    if span <= MASK_SPAN:
        for v in range(span):
            lookup[v] = (bits >> np.uint64(v)) & np.uint64(1)
    else:
        for a in range(n):
            lookup[out[a]] = 1
    k = 0
    for v in range(span):
        lookup[v] = k if lookup[v] else -1
        k += lookup[v] >= 0
    cats = np.empty(k, dtype=np.int64)
    for v in range(span):
        if lookup[v] >= 0:
            cats[lookup[v]] = v + lo
    if k < span:  # values absent inside [lo, hi]: slots to ranks (else they are equal)
        for a in range(n):
            out[a] = lookup[out[a]]
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
    lookup = np.zeros(span + 1, dtype=np.int64)  # slot ``span``: missing
    bits = np.uint64(0)
    for a in range(n):  # missing: -1 at once (no pass of its own when no value is absent)
        v = values[a]
        ok = v == v
        slot = np.int64(v if ok else lo) - base
        out[a] = slot if ok else -1
        bits |= (np.uint64(1) << np.uint64(slot & 63)) if ok else np.uint64(0)
    if span <= MASK_SPAN:
        for v in range(span):
            lookup[v] = (bits >> np.uint64(v)) & np.uint64(1)
    else:
        for a in range(n):
            o = out[a]
            lookup[o if o >= 0 else span] = 1
    k = 0
    for v in range(span):
        lookup[v] = k if lookup[v] else -1
        k += lookup[v] >= 0
    lookup[span] = -1
    cats = np.empty(k, dtype=np.float64)
    for v in range(span):
        if lookup[v] >= 0:
            cats[lookup[v]] = float(v + base)
    if k < span:  # values absent inside [lo, hi]: slots to ranks (else they are equal)
        for a in range(n):
            o = out[a]
            out[a] = lookup[o if o >= 0 else span]
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
def has_repeat(item: np.ndarray, sub: np.ndarray, n_item: int, n_sub: int,
               max_space: int) -> int:
    """Whether a key (``item``, ``sub``) occurs twice: 1 yes, 0 no, -1 not known (the
    rows' items are not in runs and the key space ``n_item * n_sub`` is over
    ``max_space``: hash instead).

    Rows whose items come in runs (each item's rows together, the items in any
    order: long frames sorted by item, wide frames) take one pass, ``sub`` (codes
    0..n_sub-1: the rater, with the replication and label when there are)
    stamped with the item that last used it: a table of n_sub entries, not
    items x raters. Other rows are checked with a byte per key of the whole space.
    """
    n = item.shape[0]
    runs = n_sub <= 65536 or n_sub <= n  # int64 stamps: at most 8 bytes a row
    # stamp[s] - 1: the item that last used sub-key s; started[i]: item i's run began
    stamp = np.zeros(n_sub if runs else 0, dtype=np.int64)
    started = np.zeros(n_item if runs else 0, dtype=np.uint8)
    prev = -1
    for a in range(n if runs else 0):
        i = item[a]
        if i != prev:
            if started[i]:
                runs = False
                break
            started[i] = 1
            prev = i
        s = sub[a]
        if stamp[s] == i + 1:
            return 1
        stamp[s] = i + 1
    if runs:
        return 0
    if n_item * n_sub > max_space:
        return -1
    seen = np.zeros(n_item * n_sub, dtype=np.uint8)
    for a in range(n):
        k = item[a] * n_sub + sub[a]
        if seen[k]:
            return 1
        seen[k] = 1
    return 0
