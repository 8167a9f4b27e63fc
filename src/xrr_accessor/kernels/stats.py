"""Sufficient statistics of annotations, as numba kernels.

Shapes: ``L`` labels, ``R`` replications, ``n`` items, ``K`` categories,
``B`` raters, ``P`` replication pairs, ``N`` annotations. Codes are int64
with ``-1`` for missing; counts are int64 and sums float64.

Two families:

* one pass over annotations, grouped by item or by rater:
  :func:`grouped_counts` (L, R, G, K) and :func:`grouped_moments` (L, R, G,
  3: count, sum, sum of squares). Grouped by item they are the per-item
  statistics, additive over chunks of items; grouped by rater they are the
  marginals of the rater-specific chance term of Cohen's kappa / iota.
* reductions over items of the per-item statistics: K x K coincidence
  matrices (:func:`within_coincidence`, :func:`cross_coincidence`) or moment
  sums (:func:`within_moments`, :func:`cross_moments`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_JIT = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_JIT)
def grouped_counts(
    group: np.ndarray, item: np.ndarray, replication: np.ndarray, codes: np.ndarray,
    mask: np.ndarray, n_group: int, n_category: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Category counts per (label, replication, group, category), and their totals.

    Returns (counts (L, R, G, K), totals (L, R, G)), both int64. ``group`` is
    the item code (per-item statistics) or the rater code (per-rater
    marginals); only annotations whose (label, replication, item) is in
    ``mask`` (L, R, n) count.
    """
    n_label, n_ann = codes.shape
    n_rep = mask.shape[1]
    out = np.zeros((n_label, n_rep, n_group, n_category), dtype=np.int64)
    totals = np.zeros((n_label, n_rep, n_group), dtype=np.int64)
    for lab in range(n_label):
        for a in range(n_ann):
            c = codes[lab, a]
            r = replication[a]
            if c >= 0 and mask[lab, r, item[a]]:
                g = group[a]
                out[lab, r, g, c] += 1
                totals[lab, r, g] += 1
    return out, totals


@njit(**_JIT)
def grouped_moments(
    group: np.ndarray, item: np.ndarray, replication: np.ndarray, codes: np.ndarray,
    values: np.ndarray, mask: np.ndarray, n_group: int,
) -> np.ndarray:
    """Count, sum and sum of squares per (label, replication, group): (L, R, G, 3).

    ``values[l, c]`` is the number that category ``c`` of label ``l`` stands
    for; ``group`` and ``mask`` as in :func:`grouped_counts`.
    """
    n_label, n_ann = codes.shape
    n_rep = mask.shape[1]
    out = np.zeros((n_label, n_rep, n_group, 3), dtype=np.float64)
    for lab in range(n_label):
        for a in range(n_ann):
            c = codes[lab, a]
            if c >= 0 and mask[lab, replication[a], item[a]]:
                v = values[lab, c]
                r = replication[a]
                g = group[a]
                out[lab, r, g, 0] += 1.0
                out[lab, r, g, 1] += v
                out[lab, r, g, 2] += v * v
    return out


@njit(**_JIT)
def within_coincidence(counts: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix of each (label, replication): (L, R, K, K).

    o[c, k] = sum over items with ``mask`` of n_ic (n_ik - [c == k]) / (m_i - 1),
    i.e. every ordered pair of distinct annotations of an item, each item's
    pairs weighted 1 / (m_i - 1). ``mask`` (L, R, n) selects items; every
    selected item must have m_i >= 2.
    """
    n_label, n_rep, n_item, n_cat = counts.shape
    out = np.zeros((n_label, n_rep, n_cat, n_cat), dtype=np.float64)
    nz = np.empty(n_cat, dtype=np.int64)
    for lab in range(n_label):
        for r in range(n_rep):
            for i in range(n_item):
                if not mask[lab, r, i]:
                    continue
                k_nz = 0
                m = 0
                for k in range(n_cat):
                    x = counts[lab, r, i, k]
                    if x > 0:
                        nz[k_nz] = k
                        k_nz += 1
                        m += x
                inv = 1.0 / (m - 1.0)
                for a in range(k_nz):
                    ca = nz[a]
                    xa = float(counts[lab, r, i, ca])  # products in float64: no int64 overflow
                    out[lab, r, ca, ca] += xa * (xa - 1.0) * inv
                    for b in range(a + 1, k_nz):
                        cb = nz[b]
                        v = xa * counts[lab, r, i, cb] * inv
                        out[lab, r, ca, cb] += v
                        out[lab, r, cb, ca] += v
    return out


@njit(**_JIT)
def within_moments(moments: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Interval analogue of :func:`within_coincidence`: (L, R, 4).

    Columns: sum over selected items of 2 m_i SS_i / (m_i - 1) (the squared
    differences of all ordered pairs of distinct annotations, weighted
    1 / (m_i - 1); SS_i is the item's sum of squared deviations), then the
    count, sum and sum of squares of the selected values.
    """
    n_label, n_rep, n_item, _ = moments.shape
    out = np.zeros((n_label, n_rep, 4), dtype=np.float64)
    for lab in range(n_label):
        for r in range(n_rep):
            for i in range(n_item):
                if not mask[lab, r, i]:
                    continue
                m = moments[lab, r, i, 0]
                s1 = moments[lab, r, i, 1]
                s2 = moments[lab, r, i, 2]
                ss = max(s2 - s1 * s1 / m, 0.0)
                out[lab, r, 0] += 2.0 * m * ss / (m - 1.0)
                out[lab, r, 1] += m
                out[lab, r, 2] += s1
                out[lab, r, 3] += s2
    return out


@njit(**_JIT)
def cross_coincidence(
    counts: np.ndarray, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cross-replication statistics of kappa_x (Eq 9-11) per (label, pair).

    For each pair ``(a, b)`` of replications and each item annotated in both
    (R_i, S_i >= 1) accumulates

    * ``cross[c, k] += (R_i + S_i) / (R_i S_i) * x_ic * y_ik`` (observed term),
    * ``x[c] += x_ic`` and ``y[k] += y_ik`` (marginals of pairable values),

    and counts the items used and the items annotated in only one of the two.
    Returns (cross (L, P, K, K), x (L, P, K), y (L, P, K), used (L, P),
    unpaired (L, P)).
    """
    n_label, _, n_item, n_cat = counts.shape
    n_pair = pairs.shape[0]
    cross = np.zeros((n_label, n_pair, n_cat, n_cat), dtype=np.float64)
    xm = np.zeros((n_label, n_pair, n_cat), dtype=np.float64)
    ym = np.zeros((n_label, n_pair, n_cat), dtype=np.float64)
    used = np.zeros((n_label, n_pair), dtype=np.int64)
    unpaired = np.zeros((n_label, n_pair), dtype=np.int64)
    nzx = np.empty(n_cat, dtype=np.int64)
    nzy = np.empty(n_cat, dtype=np.int64)
    for lab in range(n_label):
        for p in range(n_pair):
            ra = pairs[p, 0]
            rb = pairs[p, 1]
            for i in range(n_item):
                kx = 0
                ky = 0
                mx = 0
                my = 0
                for k in range(n_cat):
                    x = counts[lab, ra, i, k]
                    y = counts[lab, rb, i, k]
                    if x > 0:
                        nzx[kx] = k
                        kx += 1
                        mx += x
                    if y > 0:
                        nzy[ky] = k
                        ky += 1
                        my += y
                if mx == 0 or my == 0:
                    if mx + my > 0:
                        unpaired[lab, p] += 1
                    continue
                used[lab, p] += 1
                w = (mx + my) / (float(mx) * float(my))
                for a in range(kx):
                    ca = nzx[a]
                    xa = float(counts[lab, ra, i, ca])
                    xm[lab, p, ca] += xa
                    for b in range(ky):
                        cb = nzy[b]
                        cross[lab, p, ca, cb] += w * xa * counts[lab, rb, i, cb]
                for b in range(ky):
                    cb = nzy[b]
                    ym[lab, p, cb] += counts[lab, rb, i, cb]
    return cross, xm, ym, used, unpaired


@njit(**_JIT)
def cross_moments(
    moments: np.ndarray, pairs: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval analogue of :func:`cross_coincidence`.

    Returns (sums (L, P, 7), used (L, P), unpaired (L, P)); the sums are the
    weighted observed term sum_i (R_i + S_i) / (R_i S_i) sum_r sum_s
    (x_ri - y_si)^2, then R, S (counts), SX1, SX2, SY1, SY2 over items
    annotated in both replications.
    """
    n_label, _, n_item, _ = moments.shape
    n_pair = pairs.shape[0]
    out = np.zeros((n_label, n_pair, 7), dtype=np.float64)
    used = np.zeros((n_label, n_pair), dtype=np.int64)
    unpaired = np.zeros((n_label, n_pair), dtype=np.int64)
    for lab in range(n_label):
        for p in range(n_pair):
            ra = pairs[p, 0]
            rb = pairs[p, 1]
            for i in range(n_item):
                rx = moments[lab, ra, i, 0]
                sy = moments[lab, rb, i, 0]
                if rx == 0.0 or sy == 0.0:
                    if rx + sy > 0.0:
                        unpaired[lab, p] += 1
                    continue
                used[lab, p] += 1
                x1 = moments[lab, ra, i, 1]
                x2 = moments[lab, ra, i, 2]
                y1 = moments[lab, rb, i, 1]
                y2 = moments[lab, rb, i, 2]
                ssx = max(x2 - x1 * x1 / rx, 0.0)
                ssy = max(y2 - y1 * y1 / sy, 0.0)
                dm = x1 / rx - y1 / sy
                pair_sum = rx * sy * dm * dm + sy * ssx + rx * ssy
                out[lab, p, 0] += (rx + sy) / (rx * sy) * pair_sum
                out[lab, p, 1] += rx
                out[lab, p, 2] += sy
                out[lab, p, 3] += x1
                out[lab, p, 4] += x2
                out[lab, p, 5] += y1
                out[lab, p, 6] += y2
    return out, used, unpaired
