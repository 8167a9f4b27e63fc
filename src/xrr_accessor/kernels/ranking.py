"""Ranking kernels: the order of a table's rows from the largest score, in O(n)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["RADIX_BITS", "ranked_order"]

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


#: Bits of the key sorted per pass of :func:`ranked_order` (four passes over 64 bits).
RADIX_BITS = 16
RADIX = 1 << RADIX_BITS


@njit(**_JIT)
def ranked_order(group: np.ndarray, score: np.ndarray, n_rep: int) -> np.ndarray:
    """Positions of ``score`` sorted by (replication ``group % n_rep``, score from the
    largest, NaN last), ties in the order given: ``np.lexsort((group // n_rep, -score,
    group % n_rep))`` for ``group`` ascending, in O(n).

    A stable radix sort (:data:`RADIX_BITS` bits a pass) of the score's float bits
    turned into an unsigned key that sorts as the descending score; then a stable
    counting sort by replication when there are several. (Scores are never -inf:
    NaN sorts after every number.)
    """
    n = score.shape[0]
    neg = np.empty(n, dtype=np.float64)
    for a in range(n):
        neg[a] = -score[a] + 0.0  # descending; -0.0 and 0.0 one key
    key = neg.view(np.uint64)  # in place: the bits as a key that sorts as the number
    sign = np.uint64(1) << np.uint64(63)
    for a in range(n):
        b = key[a]
        key[a] = ~np.uint64(0) if score[a] != score[a] else (~b if b & sign else b | sign)
    order = np.arange(n)
    tmp = np.empty(n, dtype=np.int64)
    count = np.zeros(RADIX + 1, dtype=np.int64)
    mask = np.uint64(RADIX - 1)
    for shift in range(0, 64, RADIX_BITS):
        count[:] = 0
        s = np.uint64(shift)
        for a in range(n):
            count[((key[a] >> s) & mask) + np.uint64(1)] += 1
        if count.max() == n:  # one digit value: nothing moves
            continue
        for d in range(RADIX):
            count[d + 1] += count[d]
        for a in range(n):
            p = order[a]
            d = (key[p] >> s) & mask
            tmp[count[d]] = p
            count[d] += 1
        order, tmp = tmp, order
    if n_rep > 1:
        rc = np.zeros(n_rep + 1, dtype=np.int64)
        for a in range(n):
            rc[group[a] % n_rep + 1] += 1
        for r in range(n_rep):
            rc[r + 1] += rc[r]
        for a in range(n):
            p = order[a]
            r = group[p] % n_rep
            tmp[rc[r]] = p
            rc[r] += 1
        order = tmp
    return order
