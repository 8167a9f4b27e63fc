"""Label sets: each cell's labels in canonical order, and the overlaps of sets for the
set distances (Jaccard, MASI) between categories.

Shapes: ``K`` sets in CSR form (``offsets`` (K + 1,) into ``members`` (M,),
label codes ``0 .. V - 1``, no label twice within a set). The K x K matrix is
what the level needs; K is capped by the pipeline's largest disagreement
matrix, so the O(K^2 s) loop (s the mean set size) stays small.
:func:`canonical_sets` is the O(M) pass over the annotations' cells that makes
each distinct set one category; :func:`text_labels` the O(bytes) pass that codes
every label when all are text, joined into one buffer; :func:`distinct_sets` sorts,
checks and numbers the cells' sets in one O(M) pass, :func:`label_masks` numbers
them as bit masks when there are at most 62 labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_JIT)
def set_overlaps(offsets: np.ndarray, members: np.ndarray, n_labels: int) -> np.ndarray:
    """|A_a n A_b| for every pair of the K sets, shape (K, K), int64 (symmetric).

    The diagonal holds each set's size.
    """
    k = offsets.shape[0] - 1
    out = np.zeros((k, k), dtype=np.int64)
    mark = np.zeros(n_labels, dtype=np.bool_)
    for a in range(k):
        for p in range(offsets[a], offsets[a + 1]):
            mark[members[p]] = True
        for b in range(a, k):
            shared = 0
            for p in range(offsets[b], offsets[b + 1]):
                if mark[members[p]]:
                    shared += 1
            out[a, b] = shared
            out[b, a] = shared
        for p in range(offsets[a], offsets[a + 1]):
            mark[members[p]] = False
    return out


@njit(**_JIT)
def _sort_cell(out: np.ndarray, lo: int, hi: int, base: int, width: int) -> tuple[int, int]:
    """Sort cell ``out[lo:hi]`` in place (insertion sort up to 16 codes); return ``(the
    first code it holds twice, or -1; its key: the codes + 1 as digits in ``base``,
    padded to ``width`` digits; 0 when ``width`` is 0)``."""
    if hi - lo > 16:
        out[lo:hi] = np.sort(out[lo:hi])
    else:
        for i in range(lo + 1, hi):
            v = out[i]
            j = i - 1
            while j >= lo and out[j] > v:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = v
    for i in range(lo + 1, hi):
        if out[i] == out[i - 1]:
            return out[i], 0
    k = 0
    if width > 0:
        for i in range(lo, hi):
            k = k * base + out[i] + 1
        for _ in range(hi - lo, width):
            k = k * base
    return -1, k


@njit(**_JIT)
def canonical_sets(offsets: np.ndarray, members: np.ndarray, base: int,
                   width: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Each cell's label codes sorted, a key per cell, and its first repeated label.

    Cell ``c`` holds ``members[offsets[c]:offsets[c + 1]]`` (codes ``0 .. base -
    2``). Returns ``(sorted, keys, cell, code)``: ``sorted`` (M,) the members
    sorted within each cell; ``keys`` (C,) with ``width > 0`` the sorted codes
    plus one, read as the digits of a number in ``base`` and padded with zeros
    to ``width`` digits (so keys order as the sorted cells do lexicographically,
    a shorter prefix first; the caller checks that ``width`` digits fit in 62
    bits), empty with ``width == 0``; and the first cell with a label twice
    and the smallest such label (``-1, -1`` when none: then every cell's codes
    are distinct). Stops at that cell. O(M) for cells of a few labels
    (insertion sort), O(s log s) per cell of ``s > 16``.

    Examples
    --------
    >>> offsets, members = np.array([0, 2, 3, 5]), np.array([1, 0, 2, 0, 1])
    >>> out, keys, cell, code = canonical_sets(offsets, members, 4, 2)
    >>> out.tolist(), keys.tolist(), cell, code
    ([0, 1, 2, 0, 1], [6, 12, 6], -1, -1)
    >>> canonical_sets(np.array([0, 3]), np.array([2, 1, 2]), 4, 3)[2:]
    (0, 2)
    """
    n = offsets.shape[0] - 1
    out = members.copy()
    keys = np.zeros(n if width > 0 else 0, dtype=np.int64)
    for c in range(n):
        lo, hi = offsets[c], offsets[c + 1]
        repeat, k = _sort_cell(out, lo, hi, base, width)
        if repeat >= 0:
            return out, keys, c, repeat
        if width > 0:
            keys[c] = k
    return out, keys, -1, -1


_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)


@njit(**_JIT)
def _same(buf: np.ndarray, a: int, b: int, length: int) -> bool:
    for p in range(length):
        if buf[a + p] != buf[b + p]:
            return False
    return True


@njit(**_JIT)
def text_labels(buf: np.ndarray, sep: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the ``n`` labels written one after another in ``buf``, ``sep`` between.

    ``buf`` (B,) uint8 holds the labels' UTF-8 bytes, ``sep`` (a byte no label
    holds, the caller's check: ``n - 1`` of them in ``buf``) between two labels.
    Returns ``(codes, first)``: ``codes`` (n,) each label's code, numbered in
    order of first appearance (equal bytes, one code), and ``first`` (D,) the
    index of each code's first label. One pass over the bytes: each label hashed
    (FNV-1a) into an open-addressing table that doubles as it fills; O(B).

    Examples
    --------
    >>> buf = np.frombuffer("b,a,b,ab".encode(), dtype=np.uint8)
    >>> codes, first = text_labels(buf, ord(","), 4)
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0, 2], [0, 1, 3])
    """
    starts = np.empty(n + 1, dtype=np.int64)  # label i: starts[i] .. starts[i + 1] - 2
    starts[0] = 0
    j = 1
    for p in range(buf.shape[0]):
        if buf[p] == sep and j < n:
            starts[j] = p + 1
            j += 1
    starts[n] = buf.shape[0] + 1
    cap = 64
    table = np.full(cap, -1, dtype=np.int64)
    hashes = np.empty(16, dtype=np.uint64)
    first = np.empty(16, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    d = 0
    for i in range(n):
        lo, length = starts[i], starts[i + 1] - 1 - starts[i]
        h = _FNV_OFFSET
        for p in range(lo, lo + length):
            h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
        slot = np.int64(h & np.uint64(cap - 1))
        while True:
            k = table[slot]
            if k < 0:
                break
            f = first[k]
            if (hashes[k] == h and starts[f + 1] - 1 - starts[f] == length
                    and _same(buf, starts[f], lo, length)):
                break
            slot = (slot + 1) & (cap - 1)
        if k >= 0:
            codes[i] = k
            continue
        if d == first.shape[0]:
            first = np.concatenate((first, np.empty(d, dtype=np.int64)))
            hashes = np.concatenate((hashes, np.empty(d, dtype=np.uint64)))
        first[d], hashes[d], codes[i] = i, h, d
        table[slot] = d
        d += 1
        if 2 * d > cap:  # at most half full: rehash into twice the slots
            cap *= 2
            table = np.full(cap, -1, dtype=np.int64)
            for q in range(d):
                s = np.int64(hashes[q] & np.uint64(cap - 1))
                while table[s] >= 0:
                    s = (s + 1) & (cap - 1)
                table[s] = q
    return codes, first[:d].copy()


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**_JIT)
def _number_key(k: int, c: int, table: np.ndarray, keys: np.ndarray, first: np.ndarray,
                d: int, bits: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The number of int64 key ``k`` (cell ``c``) in an open-addressing ``table`` of
    ``1 << bits`` slots (Fibonacci hashing) over ``keys[:d]``: its number when seen,
    else ``d`` with ``keys``/``first`` grown as needed and the table doubled when half
    full. Returns ``(code, table, keys, first, d, bits)``, the state to pass back."""
    cap = 1 << bits
    slot = np.int64((np.uint64(k) * _GOLDEN) >> np.uint64(64 - bits))
    while table[slot] >= 0 and keys[table[slot]] != k:
        slot = (slot + 1) & (cap - 1)
    if table[slot] >= 0:
        return table[slot], table, keys, first, d, bits
    if d == first.shape[0]:
        first = np.concatenate((first, np.empty(d, dtype=np.int64)))
        keys = np.concatenate((keys, np.empty(d, dtype=np.int64)))
    first[d], keys[d] = c, k
    table[slot] = d
    code = d
    d += 1
    if 2 * d > cap:  # at most half full: rehash into twice the slots
        bits += 1
        cap = 1 << bits
        table = np.full(cap, -1, dtype=np.int64)
        for q in range(d):
            t = np.int64((np.uint64(keys[q]) * _GOLDEN) >> np.uint64(64 - bits))
            while table[t] >= 0:
                t = (t + 1) & (cap - 1)
            table[t] = q
    return code, table, keys, first, d, bits


@njit(**_JIT)
def distinct_sets(offsets: np.ndarray, members: np.ndarray, base: int, width: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """:func:`canonical_sets` that also numbers the distinct sets, in one pass.

    Returns ``(sorted, codes, first, keys, cell, code)``: ``sorted`` and ``cell,
    code`` as :func:`canonical_sets` (``width > 0`` required: the keys fit in 62
    bits); ``codes`` (C,) each cell's set, numbered in order of first appearance
    (equal keys, one code); ``first`` (S,) each set's first cell and ``keys``
    (S,) its key (ordering the sets lexicographically). Equal keys found in an
    open-addressing table that doubles as it fills.

    Examples
    --------
    >>> offsets, members = np.array([0, 2, 3, 5]), np.array([1, 0, 2, 0, 1])
    >>> out, codes, first, keys, cell, code = distinct_sets(offsets, members, 4, 2)
    >>> codes.tolist(), first.tolist(), keys.tolist(), cell
    ([0, 1, 0], [0, 1], [6, 12], -1)
    """
    n = offsets.shape[0] - 1
    out = members.copy()
    codes = np.empty(n, dtype=np.int64)
    bits = 6
    cap = 1 << bits
    table = np.full(cap, -1, dtype=np.int64)
    first = np.empty(16, dtype=np.int64)
    keys = np.empty(16, dtype=np.int64)
    d = 0
    for c in range(n):
        lo, hi = offsets[c], offsets[c + 1]
        repeat, k = _sort_cell(out, lo, hi, base, width)
        if repeat >= 0:
            return out, codes, first[:d].copy(), keys[:d].copy(), c, repeat
        codes[c], table, keys, first, d, bits = _number_key(k, c, table, keys, first, d,
                                                            bits)
    return out, codes, first[:d].copy(), keys[:d].copy(), -1, -1


@njit(**_JIT)
def label_masks(offsets: np.ndarray, members: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The cells' sets as bit masks of label codes (at most 62 labels), numbered.

    Cell ``c`` holds codes ``members[offsets[c]:offsets[c + 1]]`` (``0 .. 61``,
    in any order). Returns ``(codes, first, masks, cell)``: ``codes`` (C,) each
    cell's set, numbered in order of first appearance; ``first`` (S,) each set's
    first cell; ``masks`` (S,) its labels as bits (label ``k`` the bit ``1 << k``);
    ``cell`` the first cell with a label twice (-1 when none; then stops). No
    sorting: a mask is the same in any order of labels. O(M).

    Examples
    --------
    >>> codes, first, masks, cell = label_masks(np.array([0, 2, 3, 5]),
    ...                                         np.array([1, 0, 2, 0, 1]))
    >>> codes.tolist(), first.tolist(), masks.tolist(), cell
    ([0, 1, 0], [0, 1], [3, 4], -1)
    """
    n = offsets.shape[0] - 1
    codes = np.empty(n, dtype=np.int64)
    bits = 6
    cap = 1 << bits
    table = np.full(cap, -1, dtype=np.int64)
    first = np.empty(16, dtype=np.int64)
    masks = np.empty(16, dtype=np.int64)
    d = 0
    for c in range(n):
        k = 0
        for i in range(offsets[c], offsets[c + 1]):
            bit = np.int64(1) << members[i]
            if k & bit:
                return codes, first[:d].copy(), masks[:d].copy(), c
            k |= bit
        codes[c], table, masks, first, d, bits = _number_key(k, c, table, masks, first, d,
                                                             bits)
    return codes, first[:d].copy(), masks[:d].copy(), -1
