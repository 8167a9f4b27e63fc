"""The commonest passes alone: pairs within one replication (alpha's statistics).

Alpha (and the other within-replication coefficients) over one replication,
one weight per item, no multiplicity: :func:`within_vector` (nominal, a few
categories) and :func:`within_matrix` (ordinal, ratio, custom distances)
compute the arrays the general :func:`.accumulate.categorical` computes for
that case (``m_hist``, ``pairable`` and ``pair_diag`` or ``pair_o``), with
the same additions in the same order, so the numbers are equal to the last
bit. Without the general kernel's other groups they are smaller loops, and
smaller compiles (a call that needs only these arrays compiles one of them
alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: The symmetric matrix outputs of the categorical passes, and the axis of their first K.
SYMMETRIC = {"pair_o": 3, "pa_mat": 2}


def fold_symmetric(out: dict[str, np.ndarray]) -> None:
    """Make the full symmetric matrices of a categorical pass, in place.

    The kernels (:func:`.accumulate.categorical`, :func:`within_matrix`) add
    the term of each category pair (c, k), c != k, once, at (c, k) or (k, c),
    whichever they met first; the full matrix is that array plus its
    transpose, with the diagonal taken once.

    Examples
    --------
    >>> a = {"pair_o": np.array([[[[[1.0, 2.0], [3.0, 4.0]]]]]), "pa_mat": np.zeros(0)}
    >>> fold_symmetric(a)
    >>> a["pair_o"][0, 0, 0]
    array([[1., 5.],
           [5., 4.]])
    """
    for name, ax in SYMMETRIC.items():
        a = out.get(name)
        if a is None or a.size == 0:
            continue
        diag = np.arange(a.shape[ax])
        at = (slice(None),) * ax + (diag, diag)
        keep = a[at]
        a += np.swapaxes(a, ax, ax + 1).copy()
        a[at] = keep


#: Up to this many categories :func:`within_vector` is used (it loops over all of them).
MAX_CATEGORIES = 16


@njit(cache=True, nogil=True)
def within_vector(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                  weight: np.ndarray, n_cat: int, m_hist: np.ndarray, pairable: np.ndarray,
                  pair_diag: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    """Add the within-replication vector statistics of each label, in place.

    ``offsets`` (n + 1) and ``order`` (N, or empty when the rows are in item
    order) as :func:`.accumulate.item_order`; ``codes`` (L, N), -1 missing;
    ``weight`` (n,); outputs ``m_hist`` (L, 1, S), ``pairable`` and
    ``pair_diag`` (L, 1, S, K) as in :mod:`.accumulate` (items by m; n_c
    and n_c (n_c - 1) / (m - 1) over items with m >= 2, by stratum).

    Examples
    --------
    >>> offsets = np.array([0, 3, 5]); codes = np.array([[0, 0, 1, 1, -1]])
    >>> m_hist, pairable, pair_diag = np.zeros((1, 1, 4)), np.zeros((1, 1, 4, 2)), \
np.zeros((1, 1, 4, 2))
    >>> within_vector(offsets, offsets[:0], codes, np.ones(2), 2, m_hist, pairable,
    ...               pair_diag)
    >>> m_hist[0, 0], pair_diag[0, 0, 3]
    (array([0., 1., 0., 1.]), array([1., 0.]))
    """
    n_item = offsets.shape[0] - 1
    top = m_hist.shape[2] - 1
    for lab in range(codes.shape[0]):
        cnt = np.zeros(n_cat, dtype=np.float64)
        for i in range(n_item):
            w = weight[i]
            if w == 0.0:
                continue
            m = 0.0
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                cnt[c] += 1.0
                m += 1.0
            if m == 0.0:
                continue
            s = min(int(m), top)
            m_hist[lab, 0, s] += 1.0 * w
            if m >= 2.0:
                inv = 1.0 / (m - 1.0)
                for c in range(n_cat):
                    x = cnt[c]
                    pairable[lab, 0, s, c] += x * w
                    pair_diag[lab, 0, s, c] += x * (x - 1.0) * inv * w
            for c in range(n_cat):
                cnt[c] = 0.0


@njit(cache=True, nogil=True)
def within_matrix(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                  weight: np.ndarray, n_cat: int, m_hist: np.ndarray, pairable: np.ndarray,
                  pair_o: np.ndarray) -> None:  # pragma: no cover - compiled by numba
    """As :func:`within_vector` for the matrix form: ``pair_o`` (L, 1, S, K, K).

    Each item adds n_c (n_k - [c = k]) / (m - 1) once per pair of the
    categories it has, at (c, k) or (k, c) in the order it met them; the full
    matrix is :func:`fold_symmetric` of it. Missing annotations
    are counted in a spare slot and the list of the item's categories takes a
    store per row, so the row loop has no branch on the data.

    Examples
    --------
    >>> offsets = np.array([0, 3]); codes = np.array([[1, 0, 1]])
    >>> out = {"m_hist": np.zeros((1, 1, 3)), "pairable": np.zeros((1, 1, 3, 2)),
    ...        "pair_o": np.zeros((1, 1, 3, 2, 2))}
    >>> within_matrix(offsets, offsets[:0], codes, np.ones(1), 2, *out.values())
    >>> fold_symmetric(out)
    >>> out["pair_o"][0, 0, 2]
    array([[0., 1.],
           [1., 1.]])
    """
    n_item = offsets.shape[0] - 1
    top = m_hist.shape[2] - 1
    for lab in range(codes.shape[0]):
        cnt = np.zeros(n_cat + 1, dtype=np.float64)  # slot n_cat: missing, never read
        nz = np.empty(n_cat + 1, dtype=np.int64)
        for i in range(n_item):
            w = weight[i]
            if w == 0.0:
                continue
            m = 0.0
            nnz = 0
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                ok = c >= 0
                c = c if ok else n_cat
                nz[nnz] = c
                nnz += ok & (cnt[c] == 0.0)
                cnt[c] += 1.0
                m += 1.0 if ok else 0.0
            if m == 0.0:
                continue
            s = min(int(m), top)
            m_hist[lab, 0, s] += 1.0 * w
            if m >= 2.0:
                inv = 1.0 / (m - 1.0)
                for t in range(nnz):
                    c = nz[t]
                    x = cnt[c]
                    pairable[lab, 0, s, c] += x * w
                    for u in range(t, nnz):
                        d = nz[u]
                        same = 1.0 if u == t else 0.0
                        pair_o[lab, 0, s, c, d] += x * (cnt[d] - same) * inv * w
            for t in range(nnz):
                cnt[nz[t]] = 0.0
