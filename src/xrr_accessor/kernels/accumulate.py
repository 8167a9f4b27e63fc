"""One pass over annotations grouped by item: every additive statistic at once.

Input: annotations in CSR order by item (``offsets`` (n + 1), ``order`` (N)
row numbers), their replication and rater codes and optional multiplicity
(``mult``, empty = 1) already in that order, the category codes of each label
(L, N; -1 = missing) in row order, and an optional weight per item
(``weight``, empty = 1). For each label
and item the kernel counts the item's categories per replication in a small
scratch table (only the categories the item has are touched and reset, so
there is no n x K table and K may be large) and adds the item's contribution,
times its weight, to every requested statistic. Each output is a sum over
items, so statistics of disjoint item sets add, and an integer weight acts as
that many copies of the item.

Shapes: L labels, R replications, S = M + 1 strata of m (annotations of the
item in the replication; m > M is clipped to M), K categories, B raters, P
replication pairs. An output not requested is passed with a zero-length axis.

Categorical outputs (float64):

* ``m_hist`` (L, R, S): items by m;
* ``pairable`` (L, R, S, K): sum of n_c over items with m >= 2;
* ``pair_diag`` (L, R, S, K): n_c (n_c - 1) / (m - 1) (vector form, nominal D);
* ``pair_o`` (L, R, S, K, K): n_c (n_k - [c == k]) / (m - 1) (matrix form);
* ``pa_diag`` (L, R), ``pa_mat`` (L, R, K, K): n_c n_k / (m (m - 1)) summed
  over the diagonal / kept as a matrix; ``pa_inv`` (L, R): 1 / (m - 1);
  ``shares`` (L, R, K): n_c / m over items with m >= 1;
* ``strata_rater`` (L, R, S, B, K): each rater's categories, by the item's m;
* ``joint`` (L, R, B, B, K, K): categories of rater pairs g < h on shared items;
* ``cross_*`` per pair (a, b) over items with R_i = m_a, S_i = m_b >= 1:
  ``cross_agree`` (L, P): (R_i + S_i) / (R_i S_i) sum_c x_c y_c (vector form),
  ``cross_o`` (L, P, K, K): (R_i + S_i) / (R_i S_i) x_c y_k (matrix form),
  ``cross_total`` (L, P): R_i + S_i, ``cross_x`` / ``cross_y`` (L, P, K),
  ``cross_used`` / ``cross_unpaired`` (L, P): items in both / in one only.

The moments kernel does the same for numbers (interval level), with count,
sum and sum of squares in place of category counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

_JIT = {"cache": True, "nogil": True, "fastmath": False}

#: Up to this many categories the kernel loops over all of them per item.
DENSE_CATEGORIES = 16


@njit(**_JIT)
def item_order(item: np.ndarray, n_item: int) -> tuple[np.ndarray, np.ndarray]:
    """Counting sort of rows by item: (offsets (n + 1), order (N)), stable.

    ``order`` is empty when the rows are already grouped by item in order
    (an items x raters grid read item-major): the kernels then read rows
    directly.
    """
    offsets = np.zeros(n_item + 1, dtype=np.int64)
    grouped = True
    for a in range(item.shape[0]):
        offsets[item[a] + 1] += 1
        if a > 0 and item[a] < item[a - 1]:
            grouped = False
    for i in range(n_item):
        offsets[i + 1] += offsets[i]
    if grouped:
        return offsets, np.empty(0, dtype=np.int64)
    fill = offsets[:-1].copy()
    order = np.empty(item.shape[0], dtype=np.int64)
    for a in range(item.shape[0]):
        i = item[a]
        order[fill[i]] = a
        fill[i] += 1
    return offsets, order


@njit(**_JIT)
def max_group_size(item: np.ndarray, replication: np.ndarray, n_item: int,
                   n_rep: int) -> int:
    """The most rows of one (item, replication): the largest m, for the strata."""
    count = np.zeros(n_item * n_rep, dtype=np.int64)
    top = 0
    for a in range(item.shape[0]):
        g = item[a] * n_rep + replication[a]
        count[g] += 1
        if count[g] > top:
            top = count[g]
    return top


def _categorical(offsets, order, rep, rater, codes, mult, weight, pairs, n_cat,
                 m_hist, pairable, pair_diag, pair_o, pa_diag, pa_mat, pa_inv, shares,
                 strata_rater, joint, cross_agree, cross_o, cross_total, cross_x, cross_y,
                 cross_used, cross_unpaired):  # pragma: no cover - compiled by numba
    n_label = codes.shape[0]
    n_item = offsets.shape[0] - 1
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    within = pairable.shape[0] > 0
    matrix = pair_o.shape[0] > 0 or pa_mat.shape[0] > 0 or cross_o.shape[0] > 0
    chance = pa_inv.shape[0] > 0
    raters = strata_rater.shape[0] > 0
    pairs_of_raters = joint.shape[0] > 0
    n_pair = cross_used.shape[1] if cross_used.shape[0] > 0 else 0
    # few categories: loop over all of them (no branches on which are present; zero
    # counts add zero); many: only over those the item has, reset one by one
    dense = n_cat <= DENSE_CATEGORIES
    for lab in prange(n_label):
        cnt = np.zeros((n_rep, n_cat), dtype=np.float64)
        nz = np.empty((n_rep, n_cat), dtype=np.int64)
        nnz = np.zeros(n_rep, dtype=np.int64)
        m = np.zeros(n_rep, dtype=np.float64)
        if dense:
            for r in range(n_rep):
                for t in range(n_cat):
                    nz[r, t] = t
                nnz[r] = n_cat
        for i in range(n_item):
            w = 1.0 if weight.shape[0] == 0 else weight[i]
            if w == 0.0:
                continue
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = rep[j]
                k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                if not dense and cnt[r, c] == 0.0:
                    nz[r, nnz[r]] = c
                    nnz[r] += 1
                cnt[r, c] += k
                m[r] += k
            for r in range(n_rep):
                mr = m[r]
                if mr == 0.0:
                    continue
                s = min(int(mr), top)
                m_hist[lab, r, s] += w
                if chance:
                    for t in range(nnz[r]):
                        c = nz[r, t]
                        shares[lab, r, c] += w * cnt[r, c] / mr
                if mr < 2.0:
                    continue
                inv = 1.0 / (mr - 1.0)
                if chance:
                    pa_inv[lab, r] += w * inv
                if dense and within and not matrix and not chance:  # the common case
                    pl = pairable[lab, r, s]
                    pd_ = pair_diag[lab, r, s]
                    for c in range(n_cat):
                        x = cnt[r, c]
                        pl[c] += w * x
                        pd_[c] += w * x * (x - 1.0) * inv
                    continue
                for t in range(nnz[r]):
                    c = nz[r, t]
                    x = cnt[r, c]
                    if within:
                        pairable[lab, r, s, c] += w * x
                        if not matrix:
                            pair_diag[lab, r, s, c] += w * x * (x - 1.0) * inv
                    if chance and not matrix:
                        pa_diag[lab, r] += w * x * x * inv / mr
                    if matrix:
                        for u in range(nnz[r]):
                            d = nz[r, u]
                            y = cnt[r, d]
                            if within:
                                same = 1.0 if c == d else 0.0
                                pair_o[lab, r, s, c, d] += w * x * (y - same) * inv
                            if chance:
                                pa_mat[lab, r, c, d] += w * x * y * inv / mr
            if raters or pairs_of_raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    if raters:
                        strata_rater[lab, r, min(int(m[r]), top), rater[j], c] += w * k
                    if pairs_of_raters:
                        for j2 in range(j + 1, offsets[i + 1]):
                            row2 = j2 if order.shape[0] == 0 else order[j2]
                            c2 = codes[lab, row2]
                            if c2 < 0 or rep[j2] != r or rater[j2] == rater[j]:
                                continue
                            k2 = 1.0 if mult.shape[0] == 0 else float(mult[j2])
                            g, h = rater[j], rater[j2]
                            if g < h:
                                joint[lab, r, g, h, c, c2] += w * k * k2
                            else:
                                joint[lab, r, h, g, c2, c] += w * k * k2
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                ra = m[a]
                sb = m[b]
                if ra == 0.0 or sb == 0.0:
                    if ra + sb > 0.0:
                        cross_unpaired[lab, p] += w
                    continue
                cross_used[lab, p] += w
                cross_total[lab, p] += w * (ra + sb)
                wt = w * (ra + sb) / (ra * sb)
                if dense and not matrix:  # the common case in one loop
                    acc = 0.0
                    for c in range(n_cat):
                        x = cnt[a, c]
                        y = cnt[b, c]
                        cross_x[lab, p, c] += w * x
                        cross_y[lab, p, c] += w * y
                        acc += x * y
                    cross_agree[lab, p] += wt * acc
                    continue
                for t in range(nnz[a]):
                    c = nz[a, t]
                    x = cnt[a, c]
                    cross_x[lab, p, c] += w * x
                    if matrix:
                        for u in range(nnz[b]):
                            d = nz[b, u]
                            cross_o[lab, p, c, d] += wt * x * cnt[b, d]
                    else:
                        cross_agree[lab, p] += wt * x * cnt[b, c]
                for u in range(nnz[b]):
                    d = nz[b, u]
                    cross_y[lab, p, d] += w * cnt[b, d]
            for r in range(n_rep):
                for t in range(nnz[r]):
                    cnt[r, nz[r, t]] = 0.0
                if not dense:
                    nnz[r] = 0
                m[r] = 0.0


def _moments(offsets, order, rep, rater, codes, mult, weight, pairs, values,
             m_hist, strata_mom, strata_ss, strata_item_sq, strata_rater,
             cross_mom, cross_used, cross_unpaired):  # pragma: no cover - compiled by numba
    """Interval level: count, sum, sum of squares per (item, replication).

    ``strata_mom`` (L, R, S, 3) count, sum, sum of squares of values;
    ``strata_ss`` (L, R, S) 2 m SS_i / (m - 1) (m >= 2); ``strata_item_sq`` (L,
    R, S) the squared item sums; ``strata_rater`` (L, R, S, B, 3) per rater;
    ``cross_mom`` (L, P, 7) weighted observed term, R, S, SX1, SX2, SY1, SY2.
    """
    n_label = codes.shape[0]
    n_item = offsets.shape[0] - 1
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    raters = strata_rater.shape[0] > 0
    n_pair = cross_used.shape[1] if cross_used.shape[0] > 0 else 0
    for lab in prange(n_label):
        mom = np.zeros((n_rep, 3), dtype=np.float64)
        for i in range(n_item):
            w = 1.0 if weight.shape[0] == 0 else weight[i]
            if w == 0.0:
                continue
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = rep[j]
                k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                v = values[lab, c]
                mom[r, 0] += k
                mom[r, 1] += k * v
                mom[r, 2] += k * v * v
            for r in range(n_rep):
                mr = mom[r, 0]
                if mr == 0.0:
                    continue
                s = min(int(mr), top)
                m_hist[lab, r, s] += w
                if strata_mom.shape[0] > 0:
                    strata_mom[lab, r, s, 0] += w * mr
                    strata_mom[lab, r, s, 1] += w * mom[r, 1]
                    strata_mom[lab, r, s, 2] += w * mom[r, 2]
                    strata_item_sq[lab, r, s] += w * mom[r, 1] * mom[r, 1]
                    if mr >= 2.0:
                        ss = max(mom[r, 2] - mom[r, 1] * mom[r, 1] / mr, 0.0)
                        strata_ss[lab, r, s] += w * 2.0 * mr * ss / (mr - 1.0)
            if raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    v = values[lab, c]
                    s = min(int(mom[r, 0]), top)
                    g = rater[j]
                    strata_rater[lab, r, s, g, 0] += w * k
                    strata_rater[lab, r, s, g, 1] += w * k * v
                    strata_rater[lab, r, s, g, 2] += w * k * v * v
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                rx = mom[a, 0]
                sy = mom[b, 0]
                if rx == 0.0 or sy == 0.0:
                    if rx + sy > 0.0:
                        cross_unpaired[lab, p] += w
                    continue
                cross_used[lab, p] += w
                x1, x2, y1, y2 = mom[a, 1], mom[a, 2], mom[b, 1], mom[b, 2]
                ssx = max(x2 - x1 * x1 / rx, 0.0)
                ssy = max(y2 - y1 * y1 / sy, 0.0)
                dm = x1 / rx - y1 / sy
                pair_sum = rx * sy * dm * dm + sy * ssx + rx * ssy
                cross_mom[lab, p, 0] += w * (rx + sy) / (rx * sy) * pair_sum
                cross_mom[lab, p, 1] += w * rx
                cross_mom[lab, p, 2] += w * sy
                cross_mom[lab, p, 3] += w * x1
                cross_mom[lab, p, 4] += w * x2
                cross_mom[lab, p, 5] += w * y1
                cross_mom[lab, p, 6] += w * y2
            mom[:, :] = 0.0


#: Serial kernels that release the GIL: :func:`xrr_accessor.statistics.chunk` runs
#: blocks of labels in threads (parallel over labels without numba's thread pool,
#: so nothing nests inside dask workers, and one compiled signature per kernel).
categorical = njit(**_JIT)(_categorical)
moments = njit(**_JIT)(_moments)
