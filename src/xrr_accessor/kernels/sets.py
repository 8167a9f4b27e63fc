"""Label sets: each cell's labels in canonical order, and the overlaps of sets for the
set distances (Jaccard, MASI) between categories.

Shapes: ``K`` sets in CSR form (``offsets`` (K + 1,) into ``members`` (M,),
label codes ``0 .. V - 1``, no label twice within a set). The K x K matrix is
what the level needs; K is capped by the pipeline's largest disagreement
matrix, so the O(K^2 s) loop (s the mean set size) stays small.
:func:`canonical_sets` is the O(M) pass over the annotations' cells that makes
each distinct set one category; :func:`text_labels` the O(bytes) pass that codes
every label when all are text, joined into one buffer, and :func:`text_masks` makes
each cell's text labels one bit mask in the same pass when there are at most 62;
:func:`distinct_sets` sorts, checks and numbers the cells' sets in one O(M) pass,
:func:`label_masks` makes them bit masks when there are at most 62 labels, and
:func:`number_masks` numbers masks or keys in one O(C) pass.
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


@njit(**_JIT)
def text_masks(buf: np.ndarray, sep: int, offsets: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, int]:
    """Each cell's text labels as one bit mask, the labels coded from their bytes.

    ``buf`` and ``sep`` as :func:`text_labels`; cell ``c`` holds labels
    ``offsets[c] .. offsets[c + 1] - 1``. Returns ``(masks, first, cell)``:
    ``masks`` (C,) each cell's labels as bits (the label numbered ``k`` in order
    of first appearance the bit ``1 << k``), ``first`` (D,) the index of each
    label's first appearance, and ``cell`` -1; or the first cell holding a label
    twice, or -2 past 62 distinct labels (then it stops, ``masks`` unfinished).
    One pass over the bytes, each label hashed (FNV-1a) into a table of 128
    slots; O(B).

    Examples
    --------
    >>> buf = np.frombuffer("b,a,b,ab".encode(), dtype=np.uint8)
    >>> masks, first, cell = text_masks(buf, ord(","), np.array([0, 2, 3, 4]))
    >>> masks.tolist(), first.tolist(), cell
    ([3, 1, 4], [0, 1, 3], -1)
    >>> int(text_masks(buf, ord(","), np.array([0, 3, 4]))[2])
    0
    """
    n_cells = offsets.shape[0] - 1
    masks = np.empty(n_cells, dtype=np.int64)
    table = np.full(128, -1, dtype=np.int64)
    hashes = np.empty(62, dtype=np.uint64)
    starts = np.empty(62, dtype=np.int64)
    lengths = np.empty(62, dtype=np.int64)
    first = np.empty(62, dtype=np.int64)
    d, p, size = 0, 0, buf.shape[0]
    for c in range(n_cells):
        k = 0
        for i in range(offsets[c], offsets[c + 1]):
            lo = p
            h = _FNV_OFFSET
            while p < size and buf[p] != sep:
                h = (h ^ np.uint64(buf[p])) * _FNV_PRIME
                p += 1
            length = p - lo
            p += 1
            slot = np.int64(h & np.uint64(127))
            code = table[slot]
            while code >= 0 and not (hashes[code] == h and lengths[code] == length
                                     and _same(buf, starts[code], lo, length)):
                slot = (slot + 1) & 127
                code = table[slot]
            if code < 0:
                if d == 62:
                    return masks, first[:d].copy(), -2
                code = d
                table[slot], hashes[d], starts[d], lengths[d], first[d] = d, h, lo, length, i
                d += 1
            bit = np.int64(1) << code
            if k & bit:
                return masks, first[:d].copy(), c
            k |= bit
        masks[c] = k
    return masks, first[:d].copy(), -1


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**_JIT)
def distinct_sets(offsets: np.ndarray, members: np.ndarray, base: int, width: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]:
    """:func:`canonical_sets` that also numbers the distinct sets, in one pass.

    Returns ``(sorted, codes, first, keys, cell, code)``: ``sorted`` and ``cell,
    code`` as :func:`canonical_sets` (``width > 0`` required: the keys fit in 62
    bits); ``codes`` (C,) each cell's set, numbered in order of first appearance
    (equal keys, one code); ``first`` (S,) each set's first cell and ``keys``
    (S,) its key (ordering the sets lexicographically). Equal keys numbered by
    :func:`number_masks`.

    Examples
    --------
    >>> offsets, members = np.array([0, 2, 3, 5]), np.array([1, 0, 2, 0, 1])
    >>> out, codes, first, keys, cell, code = distinct_sets(offsets, members, 4, 2)
    >>> codes.tolist(), first.tolist(), keys.tolist(), cell
    ([0, 1, 0], [0, 1], [6, 12], -1)
    """
    n = offsets.shape[0] - 1
    out = members.copy()
    cell_keys = np.empty(n, dtype=np.int64)
    for c in range(n):
        repeat, cell_keys[c] = _sort_cell(out, offsets[c], offsets[c + 1], base, width)
        if repeat >= 0:
            empty = np.empty(0, dtype=np.int64)
            return out, empty, empty, empty, c, repeat
    codes, first = number_masks(cell_keys, 63)
    return out, codes, first, cell_keys[first], -1, -1


@njit(**_JIT)
def number_masks(masks: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """The (C,) int64 ``masks`` numbered in order of first appearance.

    ``top``: every mask is below ``1 << top``. Returns ``(codes, first)``:
    ``codes`` (C,) each mask's number, ``first`` (S,) the position of each
    number's first mask. With ``top <= 16`` a direct table of ``1 << top``
    slots, else an open-addressing table (Fibonacci hashing, keys read back
    through ``first``) that doubles when half full. O(C).

    Examples
    --------
    >>> codes, first = number_masks(np.array([3, 4, 3, 1]), 3)
    >>> codes.tolist(), first.tolist()
    ([0, 1, 0, 2], [0, 1, 3])
    >>> number_masks(np.array([1 << 40, 5, 1 << 40]), 41)[0].tolist()
    [0, 1, 0]
    """
    n = masks.shape[0]
    codes = np.empty(n, dtype=np.int64)
    first = np.empty(n, dtype=np.int64)
    d = 0
    if top <= 16:
        direct = np.full(1 << top, -1, dtype=np.int64)
        for c in range(n):
            k = direct[masks[c]]
            if k < 0:
                k = d
                direct[masks[c]], first[d] = d, c
                d += 1
            codes[c] = k
        return codes, first[:d].copy()
    bits = 6
    cap = 1 << bits
    table = np.full(cap, -1, dtype=np.int64)
    for c in range(n):
        m = masks[c]
        slot = np.int64((np.uint64(m) * _GOLDEN) >> np.uint64(64 - bits))
        k = table[slot]
        while k >= 0 and masks[first[k]] != m:
            slot = (slot + 1) & (cap - 1)
            k = table[slot]
        if k < 0:
            k = d
            table[slot], first[d] = d, c
            d += 1
            if 2 * d > cap:  # at most half full: rehash into twice the slots
                bits += 1
                cap = 1 << bits
                table = np.full(cap, -1, dtype=np.int64)
                for q in range(d):
                    t = np.int64((np.uint64(masks[first[q]]) * _GOLDEN)
                                 >> np.uint64(64 - bits))
                    while table[t] >= 0:
                        t = (t + 1) & (cap - 1)
                    table[t] = q
        codes[c] = k
    return codes, first[:d].copy()


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
    cell_masks = np.empty(n, dtype=np.int64)
    top = 0
    for c in range(n):
        k = 0
        for i in range(offsets[c], offsets[c + 1]):
            top = max(top, members[i] + 1)
            bit = np.int64(1) << members[i]
            if k & bit:
                return (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64),
                        np.empty(0, dtype=np.int64), c)
            k |= bit
        cell_masks[c] = k
    codes, first = number_masks(cell_masks, top)
    return codes, first, cell_masks[first], -1
