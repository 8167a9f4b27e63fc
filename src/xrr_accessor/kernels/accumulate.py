"""One pass over annotations grouped by item: every additive statistic at once.

Input: annotations in CSR order by item (``offsets`` (n + 1), ``order`` (N)
row numbers), their replication codes (``rep``, empty = all 0), rater codes
(``rater``, read only for the per-rater groups) and optional multiplicity
(``mult``, empty = 1) already in that order, and the category codes of each
label (L, N; -1 = missing) in row order. For each label and item the kernel
counts the item's categories per replication in a small scratch table (only
the categories the item has are touched and reset, so there is no n x K table
and K may be large) and adds the item's contribution to every requested
statistic. Each output is a sum over items, so statistics of disjoint item
sets add, and an integer weight acts as that many copies of the item.

``weight`` is one weight per item (n,) or C columns of them (n, C); with C
columns every output has a last axis of C, column b the statistics with item
weights ``weight[:, b]`` (see :mod:`.columns`). Ones give the plain
statistics; C columns of multinomial counts give C bootstrap replicates from
one pass (the item's categories are counted once, and only the additions are
repeated per column).

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
  the kernel adds each off-diagonal term of the two symmetric matrices
  (``pair_o``, ``pa_mat``) once, at (c, k) or (k, c): :func:`.within.fold_symmetric`
  makes the full matrices (half the additions of the matrix form);
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

from typing import Any

import numpy as np
from numba import njit, prange

from .columns import add2, add3, add4, add5, add6, all_zero, item_weight

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

#: Up to this many categories the kernel loops over all of them per item.
DENSE_CATEGORIES = 16


@njit(**_JIT)
def item_order(item: np.ndarray, n_item: int) -> tuple[np.ndarray, np.ndarray]:
    """Counting sort of rows by item: (offsets (n + 1), order (N)), stable.

    ``order`` is empty when the rows are already grouped by item in order
    (an items x raters grid read item-major): the kernels then read rows
    directly.
    """
    n = item.shape[0]
    offsets = np.zeros(n_item + 1, dtype=np.int64)
    descents = 0
    for a in range(1, n):  # no branch: a loop the compiler vectorizes
        descents += item[a] < item[a - 1]
    if descents == 0:  # grouped in order: each item starts where the rows reach it
        i = 0
        for a in range(n):
            while i <= item[a]:
                offsets[i] = a
                i += 1
        offsets[i:] = n
        return offsets, np.empty(0, dtype=np.int64)
    for a in range(n):
        offsets[item[a] + 1] += 1
    for i in range(n_item):
        offsets[i + 1] += offsets[i]
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
    # few categories, vector form: loop over all of them (no branches on which are
    # present; zero counts add zero); many, or the K x K matrix form (whose K^2
    # loop would mostly add zeros): only over those the item has, reset one by one
    dense = n_cat <= DENSE_CATEGORIES and not matrix
    for lab in prange(n_label):
        # column n_cat: a spare slot the missing annotations are counted in (never
        # read), so the row loop has no branch on missing values, which come
        # at random (a mispredicted branch per few rows); nz likewise takes a
        # store per row, kept when the category is new
        cnt = np.zeros((n_rep, n_cat + 1), dtype=np.float64)
        nz = np.empty((n_rep, n_cat + 1), dtype=np.int64)
        nnz = np.zeros(n_rep, dtype=np.int64)
        m = np.zeros(n_rep, dtype=np.float64)
        if dense:
            for r in range(n_rep):
                for t in range(n_cat):
                    nz[r, t] = t
                nnz[r] = n_cat
        for i in range(n_item):
            w = item_weight(weight, i)
            if all_zero(w, i):
                continue
            if dense:  # no category list to keep: a branch costs less than the slot
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    cnt[r, c] += k
                    m[r] += k
            else:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    ok = c >= 0
                    c = c if ok else n_cat
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    nz[r, nnz[r]] = c
                    nnz[r] += ok & (cnt[r, c] == 0.0)
                    cnt[r, c] += k
                    m[r] += k if ok else 0.0
            for r in range(n_rep):
                mr = m[r]
                if mr == 0.0:
                    continue
                s = min(int(mr), top)
                add3(m_hist, lab, r, s, 1.0, w, i)
                if chance:
                    for t in range(nnz[r]):
                        c = nz[r, t]
                        add3(shares, lab, r, c, cnt[r, c] / mr, w, i)
                if mr < 2.0:
                    continue
                inv = 1.0 / (mr - 1.0)
                if chance:
                    add2(pa_inv, lab, r, inv, w, i)
                if dense and within and not matrix and not chance:  # the common case
                    for c in range(n_cat):
                        x = cnt[r, c]
                        add4(pairable, lab, r, s, c, x, w, i)
                        add4(pair_diag, lab, r, s, c, x * (x - 1.0) * inv, w, i)
                    continue
                for t in range(nnz[r]):
                    c = nz[r, t]
                    x = cnt[r, c]
                    if within:
                        add4(pairable, lab, r, s, c, x, w, i)
                        if not matrix:
                            add4(pair_diag, lab, r, s, c, x * (x - 1.0) * inv,
                                  w, i)
                    if chance and not matrix:
                        add2(pa_diag, lab, r, x * x * inv / mr, w, i)
                    if matrix:  # symmetric: the diagonal and one of (c, d), (d, c)
                        for u in range(t, nnz[r]):
                            d = nz[r, u]
                            y = cnt[r, d]
                            if within:
                                same = 1.0 if u == t else 0.0
                                add5(pair_o, lab, r, s, c, d, x * (y - same) * inv, w, i)
                            if chance:
                                add4(pa_mat, lab, r, c, d, x * y * inv / mr, w, i)
            if raters or pairs_of_raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    if raters:
                        add5(strata_rater, lab, r, min(int(m[r]), top), rater[j], c, k,
                              w, i)
                    if pairs_of_raters:
                        for j2 in range(j + 1, offsets[i + 1]):
                            row2 = j2 if order.shape[0] == 0 else order[j2]
                            c2 = codes[lab, row2]
                            r2 = 0 if rep.shape[0] == 0 else rep[j2]
                            if c2 < 0 or r2 != r or rater[j2] == rater[j]:
                                continue
                            k2 = 1.0 if mult.shape[0] == 0 else float(mult[j2])
                            a, b = rater[j], rater[j2]
                            if a < b:
                                add6(joint, lab, r, a, b, c, c2, k * k2, w, i)
                            else:
                                add6(joint, lab, r, b, a, c2, c, k * k2, w, i)
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                ra = m[a]
                sb = m[b]
                if ra == 0.0 or sb == 0.0:
                    if ra + sb > 0.0:
                        add2(cross_unpaired, lab, p, 1.0, w, i)
                    continue
                add2(cross_used, lab, p, 1.0, w, i)
                add2(cross_total, lab, p, ra + sb, w, i)
                wt = (ra + sb) / (ra * sb)
                if dense and not matrix:  # the common case in one loop
                    acc = 0.0
                    for c in range(n_cat):
                        x = cnt[a, c]
                        y = cnt[b, c]
                        add3(cross_x, lab, p, c, x, w, i)
                        add3(cross_y, lab, p, c, y, w, i)
                        acc += x * y
                    add2(cross_agree, lab, p, wt * acc, w, i)
                    continue
                for t in range(nnz[a]):
                    c = nz[a, t]
                    x = cnt[a, c]
                    add3(cross_x, lab, p, c, x, w, i)
                    if matrix:
                        for u in range(nnz[b]):
                            d = nz[b, u]
                            add4(cross_o, lab, p, c, d, wt * x * cnt[b, d], w, i)
                if not matrix:
                    acc = 0.0
                    for t in range(nnz[a]):
                        c = nz[a, t]
                        acc += cnt[a, c] * cnt[b, c]
                    add2(cross_agree, lab, p, wt * acc, w, i)
                for u in range(nnz[b]):
                    d = nz[b, u]
                    add3(cross_y, lab, p, d, cnt[b, d], w, i)
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
    within = strata_mom.shape[0] > 0
    n_pair = cross_used.shape[1] if cross_used.shape[0] > 0 else 0
    for lab in prange(n_label):
        mom = np.zeros((n_rep, 3), dtype=np.float64)
        for i in range(n_item):
            w = item_weight(weight, i)
            if all_zero(w, i):
                continue
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                c = codes[lab, row]
                if c < 0:
                    continue
                r = 0 if rep.shape[0] == 0 else rep[j]
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
                add3(m_hist, lab, r, s, 1.0, w, i)
                if within:
                    for t in range(3):
                        add4(strata_mom, lab, r, s, t, mom[r, t], w, i)
                    add3(strata_item_sq, lab, r, s, mom[r, 1] * mom[r, 1], w, i)
                    if mr >= 2.0:
                        ss = max(mom[r, 2] - mom[r, 1] * mom[r, 1] / mr, 0.0)
                        add3(strata_ss, lab, r, s, 2.0 * mr * ss / (mr - 1.0),
                              w, i)
            if raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    k = 1.0 if mult.shape[0] == 0 else float(mult[j])
                    v = values[lab, c]
                    s = min(int(mom[r, 0]), top)
                    add5(strata_rater, lab, r, s, rater[j], 0, k, w, i)
                    add5(strata_rater, lab, r, s, rater[j], 1, k * v, w, i)
                    add5(strata_rater, lab, r, s, rater[j], 2, k * v * v, w, i)
            for p in range(n_pair):
                a = pairs[p, 0]
                b = pairs[p, 1]
                rx = mom[a, 0]
                sy = mom[b, 0]
                if rx == 0.0 or sy == 0.0:
                    if rx + sy > 0.0:
                        add2(cross_unpaired, lab, p, 1.0, w, i)
                    continue
                add2(cross_used, lab, p, 1.0, w, i)
                x1, x2, y1, y2 = mom[a, 1], mom[a, 2], mom[b, 1], mom[b, 2]
                ssx = max(x2 - x1 * x1 / rx, 0.0)
                ssy = max(y2 - y1 * y1 / sy, 0.0)
                dm = x1 / rx - y1 / sy
                pair_sum = rx * sy * dm * dm + sy * ssx + rx * ssy
                add3(cross_mom, lab, p, 0, (rx + sy) / (rx * sy) * pair_sum,
                      w, i)
                add3(cross_mom, lab, p, 1, rx, w, i)
                add3(cross_mom, lab, p, 2, sy, w, i)
                add3(cross_mom, lab, p, 3, x1, w, i)
                add3(cross_mom, lab, p, 4, x2, w, i)
                add3(cross_mom, lab, p, 5, y1, w, i)
                add3(cross_mom, lab, p, 6, y2, w, i)
            mom[:, :] = 0.0


#: Serial kernels that release the GIL: :func:`xrr_accessor.engine.statistics.chunk` runs
#: blocks of labels in threads (parallel over labels without numba's thread pool,
#: so nothing nests inside dask workers, and one compiled signature per kernel).
categorical = njit(**_JIT)(_categorical)
moments = njit(**_JIT)(_moments)
