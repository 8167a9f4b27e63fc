"""Per-item sums of alpha's analytic variance at the ordinal and ratio levels, in O(N).

Gwet's pseudo-values of alpha (:mod:`..coefficients.variance`) read, for each item i
of a replication, r_i' W r_i and r_i' W pi with W = 1 - D / max D. Written through D,
they need r_i (its annotations), o_i = sum over the ordered pairs of its annotations
of D, and g_i = sum over its annotations of (D pi)_x: :func:`item_pair_sums` returns
the three per (replication, item), with no per-item count table and no K x K matrix.
At the ordinal level D is a squared difference of mid-ranks, so o_i comes from the
item's sum and sum of squares; at the ratio level from its distinct values' pairs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .ratio import ratio_distance

__all__ = ["ORDINAL", "RATIO", "item_pair_sums", "ratio_products"]

#: ``kind`` of :func:`item_pair_sums`: D = (M_a - M_b)^2 on the scores M (mid-ranks).
ORDINAL = 0
#: ``kind`` of :func:`item_pair_sums`: D = ((x_a - x_b) / (x_a + x_b))^2 on the scores.
RATIO = 1


@njit(cache=True, nogil=True)
def item_pair_sums(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                   codes: np.ndarray, score: np.ndarray, dpi: np.ndarray, kind: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """(r_i, o_i, g_i), each (R, n): per replication and item, its annotations, the sum
    of D over their ordered pairs, and the sum of ``dpi[x, r]`` over them.

    ``offsets`` (n + 1) and ``order`` as :func:`.accumulate.item_order`; ``rep`` (N,
    in input order) replication codes; ``codes`` (N,) one label's categories (-1
    missing); ``score`` (K,) the mid-ranks (``kind`` :data:`ORDINAL`) or values
    (:data:`RATIO`); ``dpi`` (K, R) the vector D pi of each replication.

    Examples
    --------
    >>> offsets = np.array([0, 3, 4]); codes = np.array([0, 2, 2, 1])
    >>> r, o, g = item_pair_sums(offsets, offsets[:0], np.zeros(4, np.int64), codes,
    ...                          np.array([1.0, 2.0, 3.0]), np.ones((3, 1)), RATIO)
    >>> r.tolist(), o.tolist(), g.tolist()  # D(1, 3) = 1/4, four ordered pairs
    ([[3.0, 1.0]], [[1.0, 0.0]], [[3.0, 1.0]])
    """
    n_item = offsets.shape[0] - 1
    n_rep = dpi.shape[1]
    k = score.shape[0]
    ri = np.zeros((n_rep, n_item))
    oi = np.zeros((n_rep, n_item))
    gi = np.zeros((n_rep, n_item))
    first = np.zeros(n_rep)
    s1 = np.zeros(n_rep)
    s2 = np.zeros(n_rep)
    count = np.zeros((n_rep, k), dtype=np.int64) if kind == RATIO else np.zeros((0, 0),
                                                                                dtype=np.int64)
    biggest = 0
    for i in range(n_item):
        biggest = max(biggest, offsets[i + 1] - offsets[i])
    seen = np.empty((n_rep, max(biggest, 1)), dtype=np.int64) if kind == RATIO else \
        np.empty((0, 0), dtype=np.int64)
    nd = np.zeros(n_rep, dtype=np.int64)
    touched = np.empty(n_rep, dtype=np.int64)
    for i in range(n_item):
        nt = 0
        for j in range(offsets[i], offsets[i + 1]):
            row = j if order.shape[0] == 0 else order[j]
            c = codes[row]
            if c < 0:
                continue
            r = rep[row]
            if ri[r, i] == 0.0:
                touched[nt] = r
                nt += 1
                first[r] = score[c]
            ri[r, i] += 1.0
            gi[r, i] += dpi[c, r]
            if kind == RATIO:
                if count[r, c] == 0:
                    seen[r, nd[r]] = c
                    nd[r] += 1
                count[r, c] += 1
            else:
                d = score[c] - first[r]
                s1[r] += d
                s2[r] += d * d
        for t in range(nt):
            r = touched[t]
            if kind == RATIO:
                total = 0.0
                for a in range(nd[r]):
                    ca = seen[r, a]
                    part = 0.0
                    for b in range(a + 1, nd[r]):
                        cb = seen[r, b]
                        part += count[r, cb] * ratio_distance(score[ca], score[cb])
                    total += count[r, ca] * part
                for a in range(nd[r]):
                    count[r, seen[r, a]] = 0
                nd[r] = 0
                oi[r, i] = 2.0 * total
            else:
                oi[r, i] = max(2.0 * (ri[r, i] * s2[r] - s1[r] * s1[r]), 0.0)
                s1[r] = 0.0
                s2[r] = 0.0
    return ri, oi, gi


@njit(cache=True, nogil=True)
def ratio_products(values: np.ndarray, t: np.ndarray) -> np.ndarray:  # pragma: no cover
    """D t (K, C) for the ratio distance over ``values`` (K,) and counts ``t`` (K, C):
    O(K^2 C) time, no K x K matrix.

    Examples
    --------
    >>> ratio_products(np.array([1.0, 3.0]), np.array([[1.0], [2.0]]))[:, 0].tolist()
    [0.5, 0.25]
    """
    k, n_col = t.shape
    out = np.zeros((k, n_col))
    for c in range(k):
        xc = values[c]
        for e in range(c + 1, k):
            d = ratio_distance(xc, values[e])
            if d == 0.0:
                continue
            for b in range(n_col):
                out[c, b] += d * t[e, b]
                out[e, b] += d * t[c, b]
    return out
