"""Krippendorff's ordinal alpha on mid-ranks: two O(N) passes, no K x K matrix.

The ordinal distance is a squared difference of mid-ranks,
D(c, k) = (M_k - M_c)^2 with M_c = (pairable values below c) + n_c / 2 over
the pairable marginals n (Krippendorff 2011), so ordinal alpha is interval
alpha on the values M: :func:`rank_marginals` counts the pairable values of
each (label, replication) (``m_hist`` and ``pairable`` as the other passes),
:func:`mid_ranks` turns the counts into M (a length-K table), and
:func:`rank_observed` sums each item's observed disagreement on M:
2 (m sum d^2 - (sum d)^2) / (m - 1) with d = M - M_first (the sums exact for
whole weights: mid-ranks are half-integers; the division by m - 1 rounds, so alpha
equals the matrix form to about 1e-14, not to the last bit). The expected disagreement needs the
marginals only (:func:`expected_ranks`).

Every array carries a last axis of C weight columns (one for a plain pass, C
for C bootstrap replicates): replicate b has its own marginals, so its own M.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["expected_ranks", "mid_ranks", "rank_marginals", "rank_observed"]


@njit(cache=True, nogil=True)
def _unit_sizes(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray, codes: np.ndarray,
                lab: int, i: int, m: np.ndarray, touched: np.ndarray
                ) -> int:  # pragma: no cover - compiled by numba
    """Annotations of item ``i`` per replication into ``m`` (R,); the replications
    met, in ``touched``; returns how many."""
    nt = 0
    for j in range(offsets[i], offsets[i + 1]):
        row = j if order.shape[0] == 0 else order[j]
        if codes[lab, row] < 0:
            continue
        r = 0 if rep.shape[0] == 0 else rep[j]
        if m[r] == 0:
            touched[nt] = r
            nt += 1
        m[r] += 1
    return nt


@njit(cache=True, nogil=True)
def rank_marginals(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                   codes: np.ndarray, weight: np.ndarray, m_hist: np.ndarray,
                   pairable: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    """Add each label's ``m_hist`` (L, R, S, C) and ``pairable`` (L, R, S, K, C), in place.

    ``offsets`` (n + 1) and ``order`` as :func:`.accumulate.item_order`; ``rep`` (N,
    rows in item order; empty: one replication); ``codes`` (L, N), -1 missing;
    ``weight`` (n, C). An (item, replication) of m annotations adds its weight to
    stratum min(m, S - 1) of ``m_hist`` and, with m >= 2, its category counts to
    ``pairable`` (the values Krippendorff's ordinal metric ranks).

    Examples
    --------
    >>> offsets = np.array([0, 3, 4]); codes = np.array([[0, 2, 2, 1]])
    >>> m_hist, pairable = np.zeros((1, 1, 3, 1)), np.zeros((1, 1, 3, 3, 1))
    >>> rank_marginals(offsets, offsets[:0], offsets[:0], codes, np.ones((2, 1)),
    ...                m_hist, pairable)
    >>> m_hist[0, 0, :, 0].tolist(), pairable[0, 0, 2, :, 0].tolist()
    ([0.0, 1.0, 1.0], [1.0, 0.0, 2.0])
    """
    n_item = offsets.shape[0] - 1
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    n_col = weight.shape[1]
    m = np.zeros(n_rep, dtype=np.int64)
    touched = np.empty(n_rep, dtype=np.int64)
    for lab in range(codes.shape[0]):
        for i in range(n_item):
            nt = _unit_sizes(offsets, order, rep, codes, lab, i, m, touched)
            for t in range(nt):
                r = touched[t]
                s = min(m[r], top)
                for b in range(n_col):
                    m_hist[lab, r, s, b] += weight[i, b]
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                if m[r] < 2:
                    continue
                s = min(m[r], top)
                for b in range(n_col):
                    pairable[lab, r, s, c, b] += weight[i, b]
            for t in range(nt):
                m[touched[t]] = 0


def mid_ranks(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's mid-ranks M_c = sum_{g < c} n_g + n_c / 2 along axis -2 of the
    counts ``marginals`` (..., K, C).

    Examples
    --------
    >>> mid_ranks(np.array([[2.0], [1.0], [1.0]]))[:, 0].tolist()
    [1.0, 2.5, 3.5]
    """
    n = np.asarray(marginals, dtype=np.float64)
    return np.cumsum(n, axis=-2) - n / 2.0


@njit(cache=True, nogil=True)
def rank_observed(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                  codes: np.ndarray, weight: np.ndarray, mid: np.ndarray,
                  top: int, rank_o: np.ndarray) -> None:  # pragma: no cover - numba
    """Add each label's observed ordinal disagreement ``rank_o`` (L, R, S, C), in place.

    ``mid`` (L, R, K, C): the mid-ranks of column b's pairable values
    (:func:`mid_ranks`); the rest as :func:`rank_marginals`. An (item,
    replication) of m >= 2 annotations adds its weight times
    sum_{a != b} (M_a - M_b)^2 / (m - 1) = 2 (m sum d^2 - (sum d)^2) / (m - 1),
    d = M - M_first, to stratum min(m, top).

    Examples
    --------
    >>> offsets = np.array([0, 3, 4]); codes = np.array([[0, 2, 2, 1]])
    >>> mid = np.array([[[[0.5], [1.0], [2.0]]]])  # n = (1, 0, 2): M = 0.5, 1, 2
    >>> rank_o = np.zeros((1, 1, 3, 1))
    >>> rank_observed(offsets, offsets[:0], offsets[:0], codes, np.ones((2, 1)), mid,
    ...               2, rank_o)
    >>> float(rank_o[0, 0, 2, 0])  # pairs (0.5, 2) twice each way: 4 * 2.25 / 2
    4.5
    """
    n_item = offsets.shape[0] - 1
    n_rep = mid.shape[1]
    n_col = weight.shape[1]
    m = np.zeros(n_rep, dtype=np.int64)
    touched = np.empty(n_rep, dtype=np.int64)
    first = np.zeros((n_rep, n_col))
    s1 = np.zeros((n_rep, n_col))
    s2 = np.zeros((n_rep, n_col))
    for lab in range(codes.shape[0]):
        for i in range(n_item):
            nt = 0
            for j in range(offsets[i], offsets[i + 1]):  # one loop: m is known at its end
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                if m[r] == 0:
                    touched[nt] = r
                    nt += 1
                    for b in range(n_col):
                        first[r, b] = mid[lab, r, c, b]
                m[r] += 1
                for b in range(n_col):
                    d = mid[lab, r, c, b] - first[r, b]
                    s1[r, b] += d
                    s2[r, b] += d * d
            for t in range(nt):
                r = touched[t]
                mr = m[r]
                m[r] = 0
                if mr >= 2:
                    s = min(mr, top)
                    inv = 2.0 / (mr - 1.0)
                    for b in range(n_col):
                        ss = mr * s2[r, b] - s1[r, b] * s1[r, b]
                        rank_o[lab, r, s, b] += weight[i, b] * max(ss, 0.0) * inv
                for b in range(n_col):
                    s1[r, b] = 0.0
                    s2[r, b] = 0.0


def expected_ranks(t: np.ndarray) -> np.ndarray:
    """sum_ck n_c n_k (M_c - M_k)^2 over the pairable marginals ``t`` (..., K): the
    mid-ranks average n / 2 and their sum of squares about it is (n^3 - sum n_c^3) / 12
    (the ties' correction), so T D T = 2 n (n^3 - sum n_c^3) / 12, written
    n sum_c n_c (n - n_c) (n + n_c) / 6 (a sum of non-negative terms: no cancellation).

    Examples
    --------
    >>> float(expected_ranks(np.array([2.0, 1.0, 1.0])[None])[0])  # D: 2.25, 6.25, 1
    36.0
    """
    n = t.sum(axis=-1, keepdims=True)
    return (n * (t * (n - t) * (n + t)).sum(axis=-1, keepdims=True) / 6.0)[..., 0]
