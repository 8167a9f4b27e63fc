"""Overlaps of label sets, for the set distances (Jaccard, MASI) between categories.

Shapes: ``K`` sets in CSR form (``offsets`` (K + 1,) into ``members`` (M,),
label codes ``0 .. V - 1``, no label twice within a set). The K x K matrix is
what the level needs; K is capped by the pipeline's largest disagreement
matrix, so the O(K^2 s) loop (s the mean set size) stays small.
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
