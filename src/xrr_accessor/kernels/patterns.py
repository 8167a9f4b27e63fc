"""kappa_x's pass by count patterns: at most two annotations per item and replication.

Table 5's data (two raters in each pool) and crowd data with two workers per
item and pool give each item, label and replication at most two annotations.
An item's annotations of one label are then one number: digit ``2 r + t``
(base K + 1) holds the code + 1 of slot ``t`` of replication ``r`` (0:
missing). :func:`pattern_counts` adds each item's weight to its pattern's
counter (an addition per annotation and one store per item, no branch);
:func:`from_patterns` runs the per-item body of
:func:`item_by_item` once per pattern, weighted by its items (both through
:func:`_add_item`).

The numbers equal the item-by-item pass to the last bit: with at most two
annotations per replication every term the pass adds is a whole number or a
half ((R + S) / (R S) is 2, 1.5 or 1; x (x - 1) / (m - 1) a whole number), and
with whole item weights every partial sum of such terms is exact in float64,
in any order. :func:`row_slots` says whether the rows qualify,
:func:`whole_weights` whether the weights do; :func:`.cross_pass.cross_vector`
falls back to the item-by-item pass otherwise.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MAX_PATTERNS", "from_patterns", "item_by_item", "pattern_counts", "pattern_space",
           "row_slots", "whole_weights"]

#: Most patterns ((K + 1)^(2 R)) counted per label: 2 replications of up to 8
#: categories, 3 of up to 3, 4 of up to 2 (above it, the item-by-item pass).
MAX_PATTERNS = 1 << 13


def pattern_space(base: int, n_rep: int) -> int:
    """The number of patterns, ``base^(2 n_rep)``, or 0 above :data:`MAX_PATTERNS`.

    Examples
    --------
    >>> pattern_space(3, 3), pattern_space(3, 40)
    (729, 0)
    """
    size = base ** (2 * n_rep)
    return size if size <= MAX_PATTERNS else 0


def whole_weights(weight: np.ndarray) -> bool:
    """Whether every item weight is a whole number from 0 to 2^40 (counts add exactly).

    Examples
    --------
    >>> whole_weights(np.array([0.0, 1.0, 3.0])), whole_weights(np.array([1.0, 0.5]))
    (True, False)
    """
    return bool(np.all((weight == np.floor(weight)) & (weight >= 0.0) & (weight <= 2.0**40)))


def row_slots(offsets: np.ndarray, rep: np.ndarray, rater: np.ndarray, n_rep: int,
              n_rater: int, by_rater: bool, base: int
              ) -> tuple[bool, np.ndarray, np.ndarray]:
    """Each row's digit weight ``base^(2 r + t)`` and the rater of each slot.

    ``offsets`` (n + 1) group the rows by item, ``rep`` and ``rater`` are in
    item order (``rep`` empty: one replication). ``by_rater``: slot ``t`` of
    replication ``r`` is one rater's (the replication's first or second rater
    seen: ``slot_rater`` (R, 2) names them), so the patterns keep each rater's
    category; else a row's slot is its place among the item's rows in the
    replication. False (and the arrays not to be read) when an item has three
    rows in a replication, a replication three raters (``by_rater``), or a rater
    two rows of one item.

    Examples
    --------
    Two items; replication 0 has raters 5 and 7, replication 1 rater 7:

    >>> offsets, rep = np.array([0, 3, 4]), np.array([0, 0, 1, 0])
    >>> ok, mult, slots = row_slots(offsets, rep, np.array([5, 7, 7, 7]), 2, 8, True, 3)
    >>> ok, mult.tolist(), slots.tolist()
    (True, [1, 3, 9, 3], [[5, 7], [7, -1]])
    >>> row_slots(offsets, rep, np.array([5, 5, 7, 7]), 2, 8, True, 3)[0]
    False
    """
    mult = np.empty(int(offsets[-1] - offsets[0]), dtype=np.int64)
    slot_rater = np.full((n_rep, 2), -1, dtype=np.int64)
    local = np.full((n_rep, n_rater if by_rater else 0), -1, dtype=np.int64)
    power = np.asarray(base, dtype=np.int64) ** np.arange(2 * n_rep, dtype=np.int64)
    ok = _slots(offsets, rep, rater, by_rater, power, mult, slot_rater, local)
    return ok, mult, slot_rater


@njit(cache=True, nogil=True)
def _slots(offsets: np.ndarray, rep: np.ndarray, rater: np.ndarray, by_rater: bool,
           power: np.ndarray, mult: np.ndarray, slot_rater: np.ndarray,
           local: np.ndarray) -> bool:  # pragma: no cover - compiled by numba
    """:func:`row_slots`' pass, into its arrays (``local``: each rater's slot)."""
    n_item = offsets.shape[0] - 1
    start = offsets[0]
    filled = np.zeros(slot_rater.shape, dtype=np.int64)  # the item that filled a slot, + 1
    for i in range(n_item):
        for j in range(offsets[i], offsets[i + 1]):
            r = 0 if rep.shape[0] == 0 else rep[j]
            if by_rater:
                b = rater[j]
                t = local[r, b]
                if t < 0:
                    t = 0 if slot_rater[r, 0] < 0 else 1
                    if slot_rater[r, t] >= 0:
                        return False
                    local[r, b] = t
                    slot_rater[r, t] = b
            else:
                t = 0 if filled[r, 0] != i + 1 else 1
            if filled[r, t] == i + 1:
                return False
            filled[r, t] = i + 1
            mult[j - start] = power[2 * r + t]
    return True


@njit(cache=True, nogil=True)
def pattern_counts(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                   weight: np.ndarray, mult: np.ndarray, hist: np.ndarray) -> None:
    """Add each item's weight to its pattern's counter: ``hist`` (L, patterns).

    ``order`` (empty: rows already in item order) as :func:`.accumulate.item_order`,
    ``codes`` (L, N; -1 missing) in row order, ``mult`` from :func:`row_slots`.
    Every row's items (not a block of them) are read in row order: the codes
    stream from memory and each adds to its item's pattern (no gather through
    ``order`` per label); a block's, through ``order``. The counters take the
    items in item order either way.

    Examples
    --------
    One item, codes 1 and 0 in slots 0 and 1 of one replication (base 3):

    >>> hist = np.zeros((1, 9))
    >>> pattern_counts(np.array([0, 2]), np.zeros(0, dtype=np.int64), np.array([[1, 0]]),
    ...                np.ones(1), np.array([1, 3]), hist)
    >>> int(np.flatnonzero(hist[0])[0])  # (1 + 1) * 1 + (0 + 1) * 3
    5
    """
    n_item = offsets.shape[0] - 1
    start = offsets[0]
    in_order = order.shape[0] == 0
    if not in_order and start == 0 and offsets[n_item] == codes.shape[1]:
        item_of = np.empty(codes.shape[1], dtype=np.int64)
        weight_of = np.empty(codes.shape[1], dtype=np.int64)  # each row's digit weight
        for i in range(n_item):
            for j in range(offsets[i], offsets[i + 1]):
                item_of[order[j]] = i
                weight_of[order[j]] = mult[j]
        p = np.zeros(n_item, dtype=np.int64)
        for lab in range(codes.shape[0]):
            row = codes[lab]
            for a in range(row.shape[0]):
                p[item_of[a]] += (row[a] + 1) * weight_of[a]
            h = hist[lab]
            for i in range(n_item):
                h[p[i]] += weight[i]
                p[i] = 0
        return
    for lab in range(codes.shape[0]):
        h = hist[lab]
        for i in range(n_item):
            q = 0
            for j in range(offsets[i], offsets[i + 1]):
                q += (codes[lab, j if in_order else order[j]] + 1) * mult[j - start]
            h[q] += weight[i]


@njit(cache=True, nogil=True)  # a call LLVM inlines: numba-IR inlining compiles slower
def _add_item(lab, cnt, m, w, top, within, pairs, n_cat, m_hist, pairable, pair_diag,
              cross_agree, cross_total, cross_x, cross_y, cross_used,
              cross_unpaired):  # pragma: no cover - compiled by numba
    """One item's (or pattern's, of weight ``w``) additions from its category counts
    ``cnt`` (R, K) and annotation counts ``m`` (R): the strata, within-replication and
    replication-pair sums of both routes; ``cnt`` and ``m`` are reset after."""
    n_rep = m.shape[0]
    n_pair = cross_used.shape[1] if cross_used.shape[0] > 0 else 0
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


@njit(cache=True, nogil=True)
def from_patterns(hist, slot_rater, base, pairs, n_cat, m_hist, pairable, pair_diag,
                  strata_rater, cross_agree, cross_total, cross_x, cross_y, cross_used,
                  cross_unpaired):  # pragma: no cover - compiled by numba
    """Add the statistics of :func:`.cross_pass.cross_vector` from the pattern counts.

    ``hist`` (L, base^(2 R)) from :func:`pattern_counts`, ``slot_rater`` from
    :func:`row_slots` (read for ``strata_rater`` only); the outputs as
    :func:`.cross_pass.cross_vector` takes them.

    Examples
    --------
    One item: replication 0 says (0, 0), replication 1 says (0, 1) (base 3, the
    pattern 1 + 1 * 3 + 1 * 9 + 2 * 27):

    >>> hist, z = np.zeros((1, 81)), np.zeros
    >>> hist[0, 67] = 1.0
    >>> out = [z((1, 2, 3)), z((0,) * 4), z((0,) * 4), z((0,) * 5), z((1, 1)), z((1, 1)),
    ...        z((1, 1, 2)), z((1, 1, 2)), z((1, 1)), z((1, 1))]
    >>> from_patterns(hist, z((2, 2), dtype=np.int64), 3, np.array([[0, 1]]), 2, *out)
    >>> out[4], out[6], out[7]
    (array([[2.]]), array([[[2., 0.]]]), array([[[1., 1.]]]))
    """
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    within = pairable.shape[0] > 0
    raters = strata_rater.shape[0] > 0
    cnt = np.zeros((n_rep, n_cat), dtype=np.float64)
    m = np.zeros(n_rep, dtype=np.float64)
    code = np.empty((n_rep, 2), dtype=np.int64)
    for lab in range(hist.shape[0]):
        for p in range(1, hist.shape[1]):  # pattern 0: no annotation, nothing to add
            w = hist[lab, p]
            if w == 0.0:
                continue
            q = p
            for r in range(n_rep):
                for t in range(2):
                    c = q % base - 1
                    q //= base
                    code[r, t] = c
                    if c >= 0:
                        cnt[r, c] += 1.0
                        m[r] += 1.0
            if raters:
                for r in range(n_rep):
                    s = min(int(m[r]), top)
                    for t in range(2):
                        if code[r, t] >= 0:
                            strata_rater[lab, r, s, slot_rater[r, t], code[r, t]] += 1.0 * w
            _add_item(lab, cnt, m, w, top, within, pairs, n_cat, m_hist, pairable, pair_diag,
                      cross_agree, cross_total, cross_x, cross_y, cross_used, cross_unpaired)


@njit(cache=True, nogil=True)
def item_by_item(offsets, order, rep, rater, codes, weight, pairs, n_cat, m_hist, pairable,
                 pair_diag, strata_rater, cross_agree, cross_total, cross_x, cross_y,
                 cross_used, cross_unpaired):  # pragma: no cover - compiled by numba
    """:func:`.cross_pass.cross_vector` item by item, the general case (any number of
    annotations per item and replication, any item weights): the same arguments.

    Examples
    --------
    Three annotations in replication 0 (the pattern pass does not apply):

    >>> offsets, rep = np.array([0, 4]), np.array([0, 0, 0, 1])
    >>> codes, pairs = np.array([[0, 0, 1, 1]]), np.array([[0, 1]])
    >>> z = np.zeros
    >>> out = [z((1, 2, 4)), z((0,) * 4), z((0,) * 4), z((0,) * 5), z((1, 1)), z((1, 1)),
    ...        z((1, 1, 2)), z((1, 1, 2)), z((1, 1)), z((1, 1))]
    >>> item_by_item(offsets, offsets[:0], rep, rep[:0], codes, np.ones(1), pairs, 2, *out)
    >>> out[4], out[6], out[7]  # (3 + 1) / (3 * 1) * 1
    (array([[1.33333333]]), array([[[2., 1.]]]), array([[[0., 1.]]]))
    """
    n_item = offsets.shape[0] - 1
    n_rep = m_hist.shape[1]
    top = m_hist.shape[2] - 1
    within = pairable.shape[0] > 0
    raters = strata_rater.shape[0] > 0
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
            if raters:
                for j in range(offsets[i], offsets[i + 1]):
                    row = j if order.shape[0] == 0 else order[j]
                    c = codes[lab, row]
                    if c < 0:
                        continue
                    r = 0 if rep.shape[0] == 0 else rep[j]
                    strata_rater[lab, r, min(int(m[r]), top), rater[j], c] += 1.0 * w
            _add_item(lab, cnt, m, w, top, within, pairs, n_cat, m_hist, pairable, pair_diag,
                      cross_agree, cross_total, cross_x, cross_y, cross_used, cross_unpaired)
