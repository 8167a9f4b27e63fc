"""Krippendorff's ratio alpha without a K x K matrix: an O(N) pass and an O(K) memory sum.

The ratio distance D(c, k) = ((x_c - x_k) / (x_c + x_k))^2 of the values x depends on
nothing but the two values (not on the marginals, as the ordinal one does), so each
item's observed disagreement is a number of its own, additive over items under any
weights: :func:`ratio_observed` sums it (and the marginals) over the item's distinct
values (O(d^2) for d distinct values in the item: small items cost O(m)). The expected disagreement
sum_ck n_c n_k D(c, k) reads only the pairable marginals n: :func:`ratio_expected`
sums it in O(K^2) time and O(K) memory (one pass over the pairs c < k, each D used
for every column of counts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["ratio_distance", "ratio_expected", "ratio_observed"]


@njit(cache=True, nogil=True)
def ratio_distance(a: float, b: float) -> float:  # pragma: no cover - compiled by numba
    """((a - b) / (a + b))^2, 0 when a + b is 0 (as the matrix form).

    Examples
    --------
    >>> ratio_distance(1.0, 3.0), ratio_distance(0.0, 0.0)
    (0.25, 0.0)
    """
    s = a + b
    if s > 0:
        q = (a - b) / s
        return q * q
    return 0.0


@njit(cache=True, nogil=True)
def _unit_disagreement(buf: np.ndarray, lo: int, hi: int, x: np.ndarray, count: np.ndarray,
                       seen: np.ndarray) -> float:  # pragma: no cover - compiled by numba
    """sum over the ordered pairs of distinct annotations of codes ``buf[lo:hi]`` of
    D, over their distinct values (``count`` (K,) zero on entry and on exit)."""
    nd = 0
    for j in range(lo, hi):
        c = buf[j]
        if count[c] == 0:
            seen[nd] = c
            nd += 1
        count[c] += 1
    total = 0.0
    for a in range(nd):
        ca = seen[a]
        xa = x[ca]
        part = 0.0
        for b in range(a + 1, nd):
            cb = seen[b]
            part += count[cb] * ratio_distance(xa, x[cb])
        total += count[ca] * part
    for a in range(nd):
        count[seen[a]] = 0
    return 2.0 * total


@njit(cache=True, nogil=True)
def ratio_observed(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                   codes: np.ndarray, weight: np.ndarray, values: np.ndarray,
                   m_hist: np.ndarray, pairable: np.ndarray, ratio_o: np.ndarray
                   ) -> None:  # pragma: no cover - compiled by numba
    """Add each label's ``m_hist`` (L, R, S, C), ``pairable`` (L, R, S, K, C) and
    observed ratio disagreement ``ratio_o`` (L, R, S, C), in place, in one pass.

    ``offsets`` (n + 1) and ``order`` as :func:`.accumulate.item_order`; ``rep`` (N,
    rows in item order; empty: one replication); ``codes`` (L, N), -1 missing;
    ``weight`` (n, C); ``values`` (L, K) the number each category stands for. An
    (item, replication) of m annotations adds its weight to stratum s = min(m, S - 1)
    of ``m_hist`` and, with m >= 2, its category counts to ``pairable`` and its weight
    times sum_{a != b} D(x_a, x_b) / (m - 1) to ``ratio_o`` (as
    :func:`.midranks.rank_marginals` and :func:`.midranks.rank_observed`).

    Examples
    --------
    >>> offsets = np.array([0, 3, 4]); codes = np.array([[0, 2, 2, 1]])
    >>> m_hist, pairable = np.zeros((1, 1, 3, 1)), np.zeros((1, 1, 3, 3, 1))
    >>> ratio_o = np.zeros((1, 1, 3, 1))
    >>> ratio_observed(offsets, offsets[:0], offsets[:0], codes, np.ones((2, 1)),
    ...                np.array([[1.0, 2.0, 3.0]]), m_hist, pairable, ratio_o)
    >>> float(ratio_o[0, 0, 2, 0])  # pairs (1, 3) twice each way: 4 * 0.25 / 2
    0.5
    >>> m_hist[0, 0, :, 0].tolist(), pairable[0, 0, 2, :, 0].tolist()
    ([0.0, 1.0, 1.0], [1.0, 0.0, 2.0])
    """
    n_item = offsets.shape[0] - 1
    n_rep = ratio_o.shape[1]
    top = m_hist.shape[2] - 1
    n_col = weight.shape[1]
    k = values.shape[1]
    biggest = 0
    for i in range(n_item):
        biggest = max(biggest, offsets[i + 1] - offsets[i])
    buf = np.empty(biggest, dtype=np.int64)
    count = np.zeros(k, dtype=np.int64)
    seen = np.empty(max(biggest, 1), dtype=np.int64)
    m = np.zeros(n_rep, dtype=np.int64)
    start = np.zeros(n_rep, dtype=np.int64)
    touched = np.empty(n_rep, dtype=np.int64)
    for lab in range(codes.shape[0]):
        x = values[lab]
        for i in range(n_item):
            nt = 0
            for j in range(offsets[i], offsets[i + 1]):  # annotations per replication
                row = j if order.shape[0] == 0 else order[j]
                if codes[lab, row] < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                if m[r] == 0:
                    touched[nt] = r
                    nt += 1
                m[r] += 1
            at = 0
            for t in range(nt):  # each replication's codes, one after the other, in buf
                r = touched[t]
                start[r] = at
                at += m[r]
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                buf[start[r]] = c
                start[r] += 1
            for t in range(nt):
                r = touched[t]
                mr = m[r]
                m[r] = 0
                s = min(mr, top)
                for b in range(n_col):
                    m_hist[lab, r, s, b] += weight[i, b]
                if mr < 2:
                    continue
                lo = start[r] - mr
                for j in range(lo, start[r]):
                    c = buf[j]
                    for b in range(n_col):
                        pairable[lab, r, s, c, b] += weight[i, b]
                o = _unit_disagreement(buf, lo, start[r], x, count, seen) / (mr - 1.0)
                for b in range(n_col):
                    ratio_o[lab, r, s, b] += weight[i, b] * o


@njit(cache=True, nogil=True)
def ratio_expected(values: np.ndarray, t: np.ndarray) -> np.ndarray:  # pragma: no cover
    """sum_ck t_c t_k D(x_c, x_k) for each column of the counts ``t`` (K, C) over the
    values ``values`` (K,): O(K^2 C) time, O(C) memory beyond the inputs. Categories
    whose counts are all 0 are skipped.

    Examples
    --------
    >>> t = np.array([[2.0], [1.0], [1.0]])  # D(1, 2) = 1/9, D(1, 3) = 1/4, D(2, 3) = 1/25
    >>> round(float(ratio_expected(np.array([1.0, 2.0, 3.0]), t)[0]), 12)  # 2 (2/9 + 2/4 + 1/25)
    1.524444444444
    """
    k, n_col = t.shape
    used = np.empty(k, dtype=np.int64)
    nu = 0
    for c in range(k):
        for b in range(n_col):
            if t[c, b] != 0.0:
                used[nu] = c
                nu += 1
                break
    if n_col == 1:
        return _expected_one(values[used[:nu]], t[used[:nu], 0])
    out = np.zeros(n_col)
    acc = np.empty(n_col)
    for a in range(nu):
        c = used[a]
        xc = values[c]
        acc[:] = 0.0
        for e in range(a + 1, nu):
            kk = used[e]
            d = ratio_distance(xc, values[kk])
            for b in range(n_col):
                acc[b] += d * t[kk, b]
        for b in range(n_col):
            out[b] += 2.0 * t[c, b] * acc[b]
    return out


@njit(cache=True, nogil=True)
def _expected_one(x: np.ndarray, n: np.ndarray) -> np.ndarray:  # pragma: no cover - numba
    """:func:`ratio_expected` of one column over the used values ``x`` (>= 0) and their
    counts ``n``: four running sums, so the divisions of a row run side by side."""
    nu = x.shape[0]
    total = 0.0
    for a in range(nu):
        xc = x[a]
        s0 = s1 = s2 = s3 = 0.0
        e = a + 1
        if xc > 0.0:  # every x + xc > 0: no test per pair
            while e + 4 <= nu:
                q0 = (xc - x[e]) / (xc + x[e])
                q1 = (xc - x[e + 1]) / (xc + x[e + 1])
                q2 = (xc - x[e + 2]) / (xc + x[e + 2])
                q3 = (xc - x[e + 3]) / (xc + x[e + 3])
                s0 += n[e] * q0 * q0
                s1 += n[e + 1] * q1 * q1
                s2 += n[e + 2] * q2 * q2
                s3 += n[e + 3] * q3 * q3
                e += 4
        while e < nu:
            s0 += n[e] * ratio_distance(xc, x[e])
            e += 1
        total += n[a] * ((s0 + s1) + (s2 + s3))
    out = np.empty(1)
    out[0] = 2.0 * total
    return out
