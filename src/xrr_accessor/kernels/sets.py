"""Label sets: each cell's labels in canonical order, and the overlaps of sets for the
set distances (Jaccard, MASI) between categories.

Shapes: ``K`` sets in CSR form (``offsets`` (K + 1,) into ``members`` (M,),
label codes ``0 .. V - 1``, no label twice within a set). The K x K matrix is
what the level needs; K is capped by the pipeline's largest disagreement
matrix, so the O(K^2 s) loop (s the mean set size) stays small.
:func:`canonical_sets` is the O(M) pass over the annotations' cells that makes
each distinct set one category.
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
                return out, keys, c, out[i]
        if width > 0:
            k = 0
            for i in range(lo, hi):
                k = k * base + out[i] + 1
            for _ in range(hi - lo, width):
                k = k * base
            keys[c] = k
    return out, keys, -1, -1
