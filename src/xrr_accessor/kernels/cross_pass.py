"""kappa_x's pass alone: replication pairs and pairs within replications, nominal.

kappa_x (with the IRRs that normalize it: alpha's within-replication sums,
or Cohen's per-rater counts) over a few categories, one weight per item, no
multiplicity: :func:`cross_vector` computes the arrays the general
:func:`.accumulate.categorical` computes for the groups ``cross``,
``within``, ``raters`` and ``strata`` in the vector form, with the same
additions in the same order, so the numbers are equal to the last bit. It is
the pass of ``cross_kappa`` and of ``summary`` (Table 5), and a smaller
compile than the general kernel (the first call in a fresh environment
compiles this one alone).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Up to this many categories the kernel is used (it loops over all of them per item).
MAX_CATEGORIES = 16


@njit(cache=True, nogil=True)
def cross_vector(offsets, order, rep, rater, codes, weight, pairs, n_cat, m_hist, pairable,
                 pair_diag, strata_rater, cross_agree, cross_total, cross_x, cross_y,
                 cross_used, cross_unpaired):  # pragma: no cover - compiled by numba
    """Add the replication-pair (and within-replication) statistics of each label.

    ``offsets``, ``order`` as :func:`.accumulate.item_order`; ``rep`` (N, in
    item order; empty: one replication), ``rater`` (N, in item order; read for
    ``strata_rater`` only), ``codes`` (L, N; -1 missing), ``weight`` (n,),
    ``pairs`` (P, 2) replication codes. Outputs as in :mod:`.accumulate`:
    ``m_hist`` (L, R, S); ``pairable``, ``pair_diag`` (L, R, S, K) and
    ``strata_rater`` (L, R, S, B, K: Cohen's kappa in Table 5), each
    zero-length when its group is not asked for; the ``cross_*`` arrays (L,
    P[, K]).

    Examples
    --------
    One item, replication 0 says (0, 0), replication 1 says (0, 1):

    >>> offsets, rep = np.array([0, 4]), np.array([0, 0, 1, 1])
    >>> codes, pairs = np.array([[0, 0, 0, 1]]), np.array([[0, 1]])
    >>> z = np.zeros
    >>> out = [z((1, 2, 3)), z((0,) * 4), z((0,) * 4), z((0,) * 5), z((1, 1)), z((1, 1)),
    ...        z((1, 1, 2)), z((1, 1, 2)), z((1, 1)), z((1, 1))]
    >>> cross_vector(offsets, offsets[:0], rep, rep[:0], codes, np.ones(1), pairs, 2, *out)
    >>> out[4], out[6], out[7]  # (2 + 2) / (2 * 2) * (2 * 1), x and y counts
    (array([[2.]]), array([[[2., 0.]]]), array([[[1., 1.]]]))
    """
    n_item = offsets.shape[0] - 1
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    within = pairable.shape[0] > 0
    raters = strata_rater.shape[0] > 0
    n_pair = cross_used.shape[1] if cross_used.shape[0] > 0 else 0
    for lab in range(codes.shape[0]):
        cnt = np.zeros((n_rep, n_cat), dtype=np.float64)
        m = np.zeros(n_rep, dtype=np.float64)
        for i in range(n_item):
            w = weight[i]
            if w == 0.0:
                continue
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
                cnt[r, c] += 1.0
                m[r] += 1.0
            for r in range(n_rep):
                mr = m[r]
                if mr == 0.0:
                    continue
                s = min(int(mr), top)
                m_hist[lab, r, s] += 1.0 * w
                if mr < 2.0 or not within:
                    continue
                inv = 1.0 / (mr - 1.0)
                for c in range(n_cat):
                    x = cnt[r, c]
                    pairable[lab, r, s, c] += x * w
                    pair_diag[lab, r, s, c] += x * (x - 1.0) * inv * w
            if raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    strata_rater[lab, r, min(int(m[r]), top), rater[j], c] += 1.0 * w
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                ra = m[a]
                sb = m[b]
                if ra == 0.0 or sb == 0.0:
                    if ra + sb > 0.0:
                        cross_unpaired[lab, p] += 1.0 * w
                    continue
                cross_used[lab, p] += 1.0 * w
                cross_total[lab, p] += (ra + sb) * w
                wt = (ra + sb) / (ra * sb)
                acc = 0.0
                for c in range(n_cat):
                    x = cnt[a, c]
                    y = cnt[b, c]
                    cross_x[lab, p, c] += x * w
                    cross_y[lab, p, c] += y * w
                    acc += x * y
                cross_agree[lab, p] += wt * acc * w
            for r in range(n_rep):
                for c in range(n_cat):
                    cnt[r, c] = 0.0
                m[r] = 0.0
