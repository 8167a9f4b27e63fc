"""The commonest pass alone: pairs within one replication, nominal (vector form).

Nominal alpha (and the other within-replication coefficients of the vector
form) over a few categories, one replication, one weight per item, no
multiplicity: :func:`within_vector` computes the three arrays the general
:func:`.accumulate.categorical` computes for that case (``m_hist``,
``pairable``, ``pair_diag``), with the same additions in the same order, so
the numbers are equal to the last bit. Without the general kernel's other
groups it is a smaller loop, and a smaller compile (a call that needs only
these arrays compiles this kernel alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Up to this many categories the kernel is used (it loops over all of them per item).
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
