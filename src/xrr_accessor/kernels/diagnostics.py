"""Kernels of the disagreement diagnostics: per item, per rater (leave one out), pairs.

Annotations of one label arrive grouped (CSR): group ``g`` holds the rows
``order[offsets[g]:offsets[g + 1]]``; a group is an (item, replication) with
``g = item * n_rep + replication`` unless said otherwise. ``codes`` (N,) are
category codes (-1 = missing); ``order`` empty: the rows are already grouped
and read in place. Every kernel counts a group's categories in a scratch table
of K entries, touching (and resetting) only the categories the group has (the
per-item kernel, up to 8 categories, in the bytes of one integer), so there is
no items x categories table and each pass is O(N) plus, for a K x K
disagreement, O(k^2) per group or annotation for its k distinct categories.
Only numpy and numba are imported here (and the per-item kernel from
:mod:`.item_sums`, beside the table it feeds).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .item_sums import MATRIX, MOMENTS, NOMINAL, item_summary_into

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

__all__ = ["MATRIX", "MOMENTS", "NOMINAL", "group_pairs", "item_summary", "rater_categorical",
           "rater_moments", "same_rater_pairs"]



@njit(**_JIT)
def item_summary(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                 values: np.ndarray, dist: np.ndarray, n_cat: int, n_rep: int, form: int):
    """Per group: annotations, disagreement summed over unordered pairs, mode, range.

    ``form`` :data:`NOMINAL`: pairs that differ, (m^2 - sum_c n_c^2) / 2;
    :data:`MOMENTS`: sum of (x - y)^2 = m S2 - S1^2 (values shifted by the
    group's first value, which changes no difference); :data:`MATRIX`:
    sum_{c < d} n_c n_d D[r, c, d] with ``dist`` (R, K, K) per replication r
    (group g is replication g % n_rep). ``values`` (K,) are the categories' numbers,
    empty when they are not numbers (then ``lo``/``hi``/``mean`` are NaN).
    ``order`` empty: the rows are already grouped (group g is rows
    ``offsets[g]:offsets[g + 1]``).

    Returns n (G,) int64, pair_sum (G,), mode (G,) int64 (the most frequent
    code, the smallest on ties; -1 for an empty group), mode_count (G,) int64,
    n_modes (G,) int64 (categories tied at the top), lo, hi, mean (G,).
    """
    ints = np.empty((4, offsets.shape[0] - 1), dtype=np.int64)
    floats = np.empty((4, offsets.shape[0] - 1))
    item_summary_into(offsets, order, codes, values, dist, n_cat, n_rep, form, ints,
                      floats, 1.0, False, 0, offsets.shape[0] - 1)
    return (ints[0], floats[0], ints[1], ints[2], ints[3], floats[1], floats[2],
            floats[3])


@njit(**_JIT)
def rater_categorical(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                      rater: np.ndarray, n_rep: int, n_rater: int, n_cat: int,
                      matrix: bool):
    """Leave-one-rater-out sums over (item, replication) groups, in one pass.

    For each annotation of rater b in a group of m >= 2 annotations (R_i = 1,
    S_i = m - 1 in kappa_x's Eq 9-11 with b as one replication and the others
    as the other):

    * ``shared``, ``other`` (R, B): items b shares, others' annotations there;
    * ``obs`` (R, B): sum m / (m - 1) * (annotations of the item that differ
      from b's) -- kappa_x's observed sum at the nominal level;
    * ``x``, ``y`` (R, B, K): b's categories and the others' on those items;
    * ``w`` (R, B, K, K) (``matrix``): m / (m - 1) * others' categories, by b's.

    Alpha of the pool (pairable values) and without b: ``tot_n`` (R), ``tot_t``
    (R, K) marginals, ``tot_diag`` (R) sum_i sum_c n_c (n_c - 1) / (m - 1),
    ``tot_o`` (R, K, K) (``matrix``) the coincidences n_c (n_d - [c = d]) / (m - 1);
    and what leaving b out removes from each: ``dn``, ``dt``, ``ddiag``,
    ``do``. An item left with one annotation leaves the pairable values with
    both. ``n_ann`` (R, B): b's annotations, paired or not.
    """
    nk = n_cat if matrix else 0
    nb = n_rater if matrix else 0
    n_ann = np.zeros((n_rep, n_rater))
    shared = np.zeros((n_rep, n_rater))
    other = np.zeros((n_rep, n_rater))
    obs = np.zeros((n_rep, n_rater))
    x = np.zeros((n_rep, n_rater, n_cat))
    y = np.zeros((n_rep, n_rater, n_cat))
    w = np.zeros((n_rep, nb, nk, nk))
    tot_n = np.zeros(n_rep)
    tot_t = np.zeros((n_rep, n_cat))
    tot_diag = np.zeros(n_rep)
    tot_o = np.zeros((n_rep, nk, nk))
    dn = np.zeros((n_rep, n_rater))
    dt = np.zeros((n_rep, n_rater, n_cat))
    ddiag = np.zeros((n_rep, n_rater))
    do = np.zeros((n_rep, nb, nk, nk))
    count = np.zeros(n_cat, dtype=np.int64)
    seen = np.empty(n_cat, dtype=np.int64)
    drop_diag = np.zeros(n_cat)  # per category c of a group: ddiag of an annotation c
    inplace = order.shape[0] == 0
    r = n_rep - 1
    for g in range(offsets.shape[0] - 1):
        r = r + 1 if r + 1 < n_rep else 0  # g % n_rep without a division
        lo, hi = offsets[g], offsets[g + 1]
        m = 0
        k = 0
        for p in range(lo, hi):
            c = codes[p if inplace else order[p]]
            if c >= 0:
                if count[c] == 0:
                    seen[k] = c
                    k += 1
                count[c] += 1
                m += 1
        if m == 1:
            for p in range(lo, hi):
                a = p if inplace else order[p]
                if codes[a] >= 0:
                    n_ann[r, rater[a]] += 1
                    shared[r, rater[a]] -= 1  # n_ann is added to shared at the end
        if m >= 2:
            q = 0.0
            for u in range(k):
                nc = count[seen[u]]
                q += nc * (nc - 1.0)
                tot_t[r, seen[u]] += nc
                if matrix:
                    for v in range(k):
                        same = 1.0 if u == v else 0.0
                        tot_o[r, seen[u], seen[v]] += nc * (count[seen[v]] - same) / (m - 1.0)
            tot_n[r] += m
            tot_diag[r] += q / (m - 1.0)
            wgt = m / (m - 1.0)
            if m > 2:
                for u in range(k):
                    c = seen[u]
                    drop_diag[c] = q / (m - 1.0) - (q - 2.0 * (count[c] - 1)) / (m - 2.0)
            for p in range(lo, hi):
                a = p if inplace else order[p]
                c = codes[a]
                if c < 0:
                    continue
                b = rater[a]
                n_ann[r, b] += 1
                other[r, b] += m - 1
                x[r, b, c] += 1
                obs[r, b] += wgt * (m - count[c])
                for u in range(k):
                    y[r, b, seen[u]] += count[seen[u]]
                y[r, b, c] -= 1
                # shared, dn and dt add x's and n_ann's counts at the end (whole
                # numbers: the same sums); here only what differs from them
                if m == 2:  # the item leaves the pairable values with its other annotation
                    partner = c if count[c] == 2 else (seen[1] if seen[0] == c else seen[0])
                    dt[r, b, partner] += 1
                    dn[r, b] += 1
                    ddiag[r, b] += q
                else:
                    ddiag[r, b] += drop_diag[c]
                if matrix:
                    for u in range(k):
                        cu = seen[u]
                        nu = count[cu]
                        nu2 = nu - (1 if cu == c else 0)
                        w[r, b, c, cu] += wgt * nu2
                        for v in range(k):
                            cv = seen[v]
                            same = 1 if u == v else 0
                            before = nu * (count[cv] - same) / (m - 1.0)
                            after = 0.0
                            if m > 2:
                                after = nu2 * (count[cv] - (1 if cv == c else 0) - same) / (
                                    m - 2.0)
                            do[r, b, cu, cv] += before - after
        for u in range(k):
            count[seen[u]] = 0
    shared += n_ann  # each annotation of an item of m >= 2
    dn += shared  # and one more for those of an item of two
    dt += x
    return (n_ann, shared, other, obs, x, y, w, tot_n, tot_t, tot_diag, tot_o, dn, dt,
            ddiag, do)


@njit(**_JIT)
def rater_moments(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                  rater: np.ndarray, values: np.ndarray, n_rep: int, n_rater: int):
    """:func:`rater_categorical` for numbers (interval level): count, sum, sum of squares.

    ``values`` (K,) are the categories' numbers (centered by the caller).
    Per (R, B): ``n_ann``, ``shared``, ``other``, ``obs`` (sum m / (m - 1) *
    sum_s (x_b - x_s)^2), b's ``sx``, ``sxx`` and the others' ``sy``, ``syy``
    on shared items; pool totals ``tot`` (R, 4): pairable values, their sum,
    sum of squares and the observed sum_i 2 (m S2 - S1^2) / (m - 1); and
    ``drop`` (R, B, 4): what leaving b out removes from each.
    """
    n_ann = np.zeros((n_rep, n_rater))
    per = np.zeros((n_rep, n_rater, 7))  # shared, other, obs, sx, sxx, sy, syy
    tot = np.zeros((n_rep, 4))
    drop = np.zeros((n_rep, n_rater, 4))
    inplace = order.shape[0] == 0
    r = n_rep - 1
    for g in range(offsets.shape[0] - 1):
        r = r + 1 if r + 1 < n_rep else 0  # g % n_rep without a division
        lo, hi = offsets[g], offsets[g + 1]
        m = 0
        s1 = 0.0
        s2 = 0.0
        for p in range(lo, hi):
            c = codes[p if inplace else order[p]]
            if c >= 0:
                m += 1
                s1 += values[c]
                s2 += values[c] ** 2
        if m == 1:
            for p in range(lo, hi):
                a = p if inplace else order[p]
                if codes[a] >= 0:
                    n_ann[r, rater[a]] += 1
        if m < 2:
            continue
        o_i = 2.0 * max(m * s2 - s1 * s1, 0.0) / (m - 1.0)
        tot[r, 0] += m
        tot[r, 1] += s1
        tot[r, 2] += s2
        tot[r, 3] += o_i
        wgt = m / (m - 1.0)
        for p in range(lo, hi):
            a = p if inplace else order[p]
            c = codes[a]
            if c < 0:
                continue
            b = rater[a]
            v = values[c]
            n_ann[r, b] += 1
            per[r, b, 0] += 1
            per[r, b, 1] += m - 1
            per[r, b, 2] += wgt * (m * v * v - 2.0 * v * s1 + s2)
            per[r, b, 3] += v
            per[r, b, 4] += v * v
            per[r, b, 5] += s1 - v
            per[r, b, 6] += s2 - v * v
            if m == 2:
                drop[r, b, 0] += 2
                drop[r, b, 1] += s1
                drop[r, b, 2] += s2
                drop[r, b, 3] += o_i
            else:
                rest = max((m - 1.0) * (s2 - v * v) - (s1 - v) ** 2, 0.0)
                drop[r, b, 0] += 1
                drop[r, b, 1] += v
                drop[r, b, 2] += v * v
                drop[r, b, 3] += o_i - 2.0 * rest / (m - 2.0)
    return n_ann, per, tot, drop


@njit(**_JIT)
def same_rater_pairs(offsets: np.ndarray, order: np.ndarray, rater: np.ndarray,
                     codes: np.ndarray, n_rater: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs (first, second) of annotations of one group (an item) by the same rater.

    A rater's annotations of an item are chained through a scratch list per
    rater, so each annotation meets only that rater's earlier ones: O(N S) for
    S annotations per (item, rater). ``first`` comes before ``second`` in the
    group.
    """
    n_ann = codes.shape[0]
    head = np.full(n_rater, -1, dtype=np.int64)
    nxt = np.full(n_ann, -1, dtype=np.int64)
    total = 0
    for sweep in range(2):
        if sweep == 1:
            first = np.empty(total, dtype=np.int64)
            second = np.empty(total, dtype=np.int64)
        e = 0
        for g in range(offsets.shape[0] - 1):
            for p in range(offsets[g], offsets[g + 1]):
                a = order[p]
                if codes[a] < 0:
                    continue
                b = rater[a]
                prev = head[b]
                while prev >= 0:
                    if sweep == 1:
                        first[e] = prev
                        second[e] = a
                    e += 1
                    prev = nxt[prev]
                nxt[a] = head[b]
                head[b] = a
            for p in range(offsets[g], offsets[g + 1]):
                head[rater[order[p]]] = -1
        total = e
    return first, second


@njit(**_JIT)
def group_pairs(offsets: np.ndarray, order: np.ndarray,
                codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every unordered pair (first, second) of annotations with a code in each group."""
    total = 0
    for g in range(offsets.shape[0] - 1):
        m = 0
        for p in range(offsets[g], offsets[g + 1]):
            if codes[order[p]] >= 0:
                m += 1
        total += m * (m - 1) // 2
    first = np.empty(total, dtype=np.int64)
    second = np.empty(total, dtype=np.int64)
    e = 0
    for g in range(offsets.shape[0] - 1):
        lo, hi = offsets[g], offsets[g + 1]
        for p in range(lo, hi):
            a = order[p]
            if codes[a] < 0:
                continue
            for q in range(p + 1, hi):
                b = order[q]
                if codes[b] >= 0:
                    first[e] = a
                    second[e] = b
                    e += 1
    return first, second

