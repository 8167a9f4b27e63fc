"""Integer ratings to category codes without hashing (the common Likert / 0-1 case)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .threads import in_blocks

#: Ranges of at most this many values are coded with a bit mask of the values present
#: (no lookup table written per value: a store per value costs more than the pass).
MASK_SPAN = 64


#: Fewest values a thread encodes: shorter columns are encoded on one thread.
MIN_BLOCK = 100_000


@njit(cache=True, nogil=True)
def _integer_range(values: np.ndarray, start: int, stop: int) -> tuple[int, int]:
    """min and max of int64 ``values[start:stop]`` (not empty)."""
    block = values[start:stop]  # a loop over range(start, stop) would not vectorize
    lo = block[0]
    hi = block[0]
    for a in range(block.shape[0]):
        v = block[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    return lo, hi


@njit(cache=True, nogil=True)
def _float_range(values: np.ndarray, start: int, stop: int) -> tuple[float, float, bool]:
    """min and max of float64 ``values[start:stop]`` over the numbers (inf, -inf when
    all are NaN), and whether one is not a whole number. No branch on the values
    (missing values at random would defeat the branch predictor)."""
    block = values[start:stop]  # a loop over range(start, stop) would not vectorize
    lo = np.inf
    hi = -np.inf
    bad = False
    for a in range(block.shape[0]):  # NaN fails both comparisons: it never moves lo or hi
        v = block[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
        bad |= (v != np.floor(v)) & (v == v)
    return lo, hi, bad


@njit(cache=True, nogil=True)
def _slots(values: np.ndarray, base: int, out: np.ndarray, start: int,
           stop: int) -> np.uint64:
    """``out[a] = values[a] - base`` for ``a`` in [start, stop) (NaN: -1 at once), and a
    bit mask of the slots present (bit ``slot & 63``)."""
    bits = np.uint64(0)
    block, dest = values[start:stop], out[start:stop]  # loops over views vectorize
    for a in range(block.shape[0]):
        v = block[a]
        ok = v == v
        slot = np.int64(v if ok else base) - base
        dest[a] = slot if ok else -1
        bits |= (np.uint64(1) << np.uint64(slot & 63)) if ok else np.uint64(0)
    return bits


@njit(cache=True, nogil=True)
def _lookup(bits: np.uint64, out: np.ndarray, span: int) -> tuple[np.ndarray, int]:
    """The slots' ranks among the slots present (-1: absent; slot ``span``, missing:
    -1) and their number K. Present slots from the bit mask up to :data:`MASK_SPAN`
    slots, else from a pass over ``out`` (a store per value costs more than a pass,
    so small ranges avoid it)."""
    lookup = np.zeros(span + 1, dtype=np.int64)
    if span <= MASK_SPAN:
        for v in range(span):
            lookup[v] = (bits >> np.uint64(v)) & np.uint64(1)
    else:
        for a in range(out.shape[0]):
            o = out[a]
            lookup[o if o >= 0 else span] = 1
    k = 0
    for v in range(span):
        lookup[v] = k if lookup[v] else -1
        k += lookup[v] >= 0
    lookup[span] = -1
    return lookup, k


@njit(cache=True, nogil=True)
def _to_ranks(out: np.ndarray, lookup: np.ndarray, span: int, start: int,
              stop: int) -> None:
    """Slots to ranks: ``out[a] = lookup[out[a]]`` (missing stays -1 through the spare
    slot ``span``)."""
    dest = out[start:stop]
    for a in range(dest.shape[0]):
        o = dest[a]
        dest[a] = lookup[o if o >= 0 else span]


def _codes_from(values: np.ndarray, lo: float, span: int, out: np.ndarray,
                dtype: type) -> np.ndarray:
    """Codes 0..K-1 of the values present in [lo, lo + span) written to ``out`` (the
    slots pass, then slots to ranks when some value of the range is absent), in
    blocks on threads; the K categories (``dtype``)."""
    n = values.shape[0]
    base = int(lo)
    bits = np.uint64(0)
    for b in in_blocks(n, lambda a, z: _slots(values, base, out, a, z), MIN_BLOCK):
        bits |= b
    lookup, k = _lookup(bits, out, span)
    if k < span:  # values absent inside the range: slots to ranks (else they are equal)
        in_blocks(n, lambda a, z: _to_ranks(out, lookup, span, a, z), MIN_BLOCK)
    return (np.flatnonzero(lookup[:span] >= 0) + base).astype(dtype)


def small_integer_codes(values: np.ndarray, max_span: int,
                        out: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes 0..K-1 of int64 ``values`` (not empty) in sorted order, written to
    ``out``, and the K categories.

    Two passes over the values (three when some value of [min, max] is absent),
    each in blocks on threads from :data:`MIN_BLOCK` values, and a lookup table
    over [min, max], whose present values are found with a bit mask when the
    range is small. When the range is wider than ``max_span`` the first result
    is False (hash instead) and ``out`` is not written.

    Examples
    --------
    >>> codes = np.empty(4, dtype=np.int64)
    >>> ok, cats = small_integer_codes(np.array([5, 3, 5, 9]), 1024, codes)
    >>> ok, codes.tolist(), cats.tolist()
    (True, [1, 0, 1, 2], [3, 5, 9])
    """
    ranges = in_blocks(values.shape[0], lambda a, z: _integer_range(values, a, z), MIN_BLOCK)
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if hi - lo > max_span:
        return False, np.empty(0, dtype=np.int64)
    return True, _codes_from(values, lo, int(hi - lo) + 1, out, np.int64)


def whole_float_codes(values: np.ndarray, max_span: int,
                      out: np.ndarray) -> tuple[bool, np.ndarray]:
    """As :func:`small_integer_codes` for float64 ratings that are whole numbers.

    NaN is missing (code -1). The first result is False (and ``out`` not
    written) when a value is not a whole number, is infinite, or the range is
    wider than ``max_span``.

    Examples
    --------
    >>> codes = np.empty(4, dtype=np.int64)
    >>> ok, cats = whole_float_codes(np.array([2.0, np.nan, 0.0, 2.0]), 1024, codes)
    >>> ok, codes.tolist(), cats.tolist()
    (True, [1, -1, 0, 1], [0.0, 2.0])
    """
    ranges = in_blocks(values.shape[0], lambda a, z: _float_range(values, a, z), MIN_BLOCK)
    lo, hi = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if any(r[2] for r in ranges) or not (lo <= hi) or hi - lo > max_span or max(
            abs(lo), abs(hi)) > 2.0**52:
        return False, np.empty(0, dtype=np.float64)
    return True, _codes_from(values, lo, int(hi) - int(lo) + 1, out, np.float64)


@njit(cache=True, nogil=True)
def column_codes(values: np.ndarray, limit: int, dest: np.ndarray) -> tuple[bool, np.ndarray]:
    """Codes 0..K-1 of one column of int64 whole numbers (not empty) in sorted order,
    written to ``dest``, and the K values present (one call: the range, the values
    present, the codes); what :func:`..label_codes.shifted_codes` writes for a block of
    one column, and :func:`small_integer_codes` gives. False (``dest`` not written) when
    the range is wider than ``limit`` or a value lies beyond 2**52 in size (coded another
    way).

    Examples
    --------
    >>> dest = np.empty(4, dtype=np.int64)
    >>> ok, cats = column_codes(np.array([5, 3, 5, 9]), 1024, dest)
    >>> ok, dest.tolist(), cats.tolist()
    (True, [1, 0, 1, 2], [3, 5, 9])
    """
    lo = values[0]
    hi = values[0]
    for a in range(values.shape[0]):  # branch-free: vectorizes
        v = values[a]
        lo = v if v < lo else lo
        hi = v if v > hi else hi
    edge = np.int64(1) << np.int64(52)
    if lo < -edge or hi > edge or hi - lo > limit:
        return False, np.empty(0, dtype=np.int64)
    span = hi - lo + 1
    lookup = np.zeros(span, dtype=np.int64)
    for a in range(values.shape[0]):
        lookup[values[a] - lo] = 1
    k = 0
    for v in range(span):
        present = lookup[v]
        lookup[v] = k
        k += present
    cats = np.empty(k, dtype=np.int64)
    for v in range(span):
        if v == span - 1 or lookup[v + 1] > lookup[v]:  # present: the next rank is higher
            cats[lookup[v]] = v + lo
    for a in range(values.shape[0]):
        dest[a] = lookup[values[a] - lo]
    return True, cats


@njit(cache=True, nogil=True)
def grid_positions(size: int, inner: int, out: np.ndarray) -> None:
    """``out[a] = (a // inner) % size``: each cell's position along one dimension of
    a grid read in C order (the dimension has ``size`` positions, each ``inner``
    cells long), with no division per cell.

    Examples
    --------
    >>> out = np.empty(6, dtype=np.int64)
    >>> grid_positions(3, 2, out); out.tolist()
    [0, 0, 1, 1, 2, 2]
    >>> grid_positions(2, 1, out); out.tolist()
    [0, 1, 0, 1, 0, 1]
    """
    cur = 0
    run = 0
    for a in range(out.shape[0]):
        out[a] = cur
        run += 1
        if run == inner:
            run = 0
            cur += 1
            if cur == size:
                cur = 0


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
    if not 0 <= hi - lo <= max_span:  # negative: the range wrapped past 2**63
        return False, np.empty(0, dtype=np.int64)
    lookup = np.full(hi - lo + 1, -1, dtype=np.int64)
    uniques = np.empty(min(n, hi - lo + 1), dtype=np.int64)  # at most one per value
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
def pair_codes(item: np.ndarray, rater: np.ndarray, max_span: int, item_out: np.ndarray,
               rater_out: np.ndarray) -> tuple[bool, np.ndarray, np.ndarray, int]:
    """:func:`first_seen_codes` of two int64 id columns (items, raters) in one pass,
    which also finds whether an (item, rater) pair occurs twice.

    Returns ``(ok, item_uniques, rater_uniques, repeat)``: ``ok`` False when a range
    is wider than ``max_span`` (nothing written: hash instead); ``repeat`` 1 yes, 0
    no, -1 not known (the ranges' product is over ``8 * n`` keys, a byte each: ask
    :func:`has_repeat`).

    Examples
    --------
    >>> i, r = np.empty(3, np.int64), np.empty(3, np.int64)
    >>> ok, iu, ru, rep = pair_codes(np.array([7, 3, 7]), np.array([1, 1, 2]), 1024, i, r)
    >>> ok, i.tolist(), iu.tolist(), r.tolist(), ru.tolist(), rep
    (True, [0, 1, 0], [7, 3], [0, 0, 1], [1, 2], 0)
    """
    n = item.shape[0]
    empty = np.empty(0, dtype=np.int64)
    if n == 0:
        return True, empty, empty, 0
    lo_i, hi_i, lo_r, hi_r = item[0], item[0], rater[0], rater[0]
    for a in range(n):  # both ranges in one pass (a loop that vectorizes)
        lo_i = min(lo_i, item[a])
        hi_i = max(hi_i, item[a])
        lo_r = min(lo_r, rater[a])
        hi_r = max(hi_r, rater[a])
    if not (0 <= hi_i - lo_i <= max_span and 0 <= hi_r - lo_r <= max_span):  # or wrapped
        return False, empty, empty, -1
    span_i, span_r = hi_i - lo_i + 1, hi_r - lo_r + 1
    look_i = np.full(span_i, -1, dtype=np.int64)
    look_r = np.full(span_r, -1, dtype=np.int64)
    uniq_i = np.empty(min(n, span_i), dtype=np.int64)
    uniq_r = np.empty(min(n, span_r), dtype=np.int64)
    mark = span_i * span_r <= 8 * n  # a byte per possible pair
    seen = np.zeros(span_i * span_r if mark else 0, dtype=np.uint8)
    repeat = 0 if mark else -1
    k_i = 0
    k_r = 0
    for a in range(n):
        x = item[a] - lo_i
        y = rater[a] - lo_r
        if look_i[x] < 0:
            look_i[x] = k_i
            uniq_i[k_i] = item[a]
            k_i += 1
        if look_r[y] < 0:
            look_r[y] = k_r
            uniq_r[k_r] = rater[a]
            k_r += 1
        item_out[a] = look_i[x]
        rater_out[a] = look_r[y]
        if mark:
            key = x * span_r + y
            repeat |= seen[key]
            seen[key] = 1
    return True, uniq_i[:k_i].copy(), uniq_r[:k_r].copy(), repeat


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
