"""Kernels of set-valued annotations: augmented kappa over annotator pairs, sharpening.

An annotation ``a`` is a row of Rosenberg & Binkowski's M matrix: its labels
``members[offsets[a]:offsets[a + 1]]`` (category codes) with their weights
(``weights``, same layout: 1 for a single label, p and 1 - p for a primary
and a secondary). Only the labels an annotation has are touched, so there is
no items x categories matrix per annotator. Every kernel loops once over the
annotations (or over the pairs of annotations that share an item, which is
O(N m) for m annotations per item), never over pairs of items.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_JIT)
def annotation_pairs(item: np.ndarray, rater: np.ndarray,
                     n_item: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of annotations of the same item, as (first, second, item).

    Oriented so that ``rater[first] < rater[second]``. The pairs of one item
    are consecutive; items in code order.
    """
    n_ann = item.shape[0]
    offsets = np.zeros(n_item + 1, dtype=np.int64)
    for a in range(n_ann):
        offsets[item[a] + 1] += 1
    total = 0
    for i in range(n_item):
        m = offsets[i + 1]
        total += m * (m - 1) // 2
        offsets[i + 1] += offsets[i]
    fill = offsets[:-1].copy()
    order = np.empty(n_ann, dtype=np.int64)
    for a in range(n_ann):
        order[fill[item[a]]] = a
        fill[item[a]] += 1
    first = np.empty(total, dtype=np.int64)
    second = np.empty(total, dtype=np.int64)
    of_item = np.empty(total, dtype=np.int64)
    e = 0
    for i in range(n_item):
        for s in range(offsets[i], offsets[i + 1]):
            for t in range(s + 1, offsets[i + 1]):
                a = order[s]
                b = order[t]
                if rater[b] < rater[a]:
                    a, b = b, a
                first[e] = a
                second[e] = b
                of_item[e] = i
                e += 1
    return first, second, of_item


@njit(**_JIT)
def pair_sums(first: np.ndarray, second: np.ndarray, pair_of: np.ndarray, n_pair: int,
              offsets: np.ndarray, members: np.ndarray, weights: np.ndarray,
              n_cat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Sums of the augmented kappa of every annotator pair, for W weightings at once.

    ``weights`` is (W, M): the label weights under W values of p. Returns
    ``n`` (P,) shared items per pair; ``agree`` (W, P) the sum over shared
    items of sum_y M_A[x, y] M_B[x, y]; ``freq`` (W, P, 2, K) the column sums
    of M_A and M_B over the shared items; ``entry`` (W, E) the agreement of
    each pair of annotations (one shared item of one annotator pair).
    """
    n_w = weights.shape[0]
    n_entry = first.shape[0]
    n = np.zeros(n_pair, dtype=np.int64)
    agree = np.zeros((n_w, n_pair), dtype=np.float64)
    freq = np.zeros((n_w, n_pair, 2, n_cat), dtype=np.float64)
    entry = np.zeros((n_w, n_entry), dtype=np.float64)
    for e in range(n_entry):
        a = first[e]
        b = second[e]
        pr = pair_of[e]
        n[pr] += 1
        for w in range(n_w):
            s = 0.0
            for i in range(offsets[a], offsets[a + 1]):
                c = members[i]
                wa = weights[w, i]
                freq[w, pr, 0, c] += wa
                for j in range(offsets[b], offsets[b + 1]):
                    if members[j] == c:
                        s += wa * weights[w, j]
            for j in range(offsets[b], offsets[b + 1]):
                freq[w, pr, 1, members[j]] += weights[w, j]
            entry[w, e] = s
            agree[w, pr] += s
    return n, agree, freq, entry


@njit(**_JIT)
def consensus(item: np.ndarray, rater: np.ndarray, offsets: np.ndarray,
              members: np.ndarray, weights: np.ndarray, rater_weight: np.ndarray,
              n_item: int, n_cat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rater-weighted label mass of every item.

    Returns ``mass`` (n, K): sum over the item's annotations of the rater's
    weight times the annotation's M row; ``total`` (n,): the sum of those
    raters' weights; ``count`` (n,): annotations by raters of positive weight.
    """
    mass = np.zeros((n_item, n_cat), dtype=np.float64)
    total = np.zeros(n_item, dtype=np.float64)
    count = np.zeros(n_item, dtype=np.int64)
    for a in range(item.shape[0]):
        x = item[a]
        wr = rater_weight[rater[a]]
        if wr <= 0.0:
            continue
        total[x] += wr
        count[x] += 1
        for i in range(offsets[a], offsets[a + 1]):
            mass[x, members[i]] += wr * weights[i]
    return mass, total, count


@njit(**_JIT)
def rater_agreement(item: np.ndarray, rater: np.ndarray, offsets: np.ndarray,
                    members: np.ndarray, weights: np.ndarray, rater_weight: np.ndarray,
                    item_weight: np.ndarray, mass: np.ndarray, total: np.ndarray,
                    n_rater: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each rater against the weighted consensus of the other raters (leave-one-out).

    For annotation ``a`` of rater r on item x, the others' shares are
    ``(mass[x] - w_r M_a) / (total[x] - w_r)``. Summed over the rater's items
    with item weight v_x: ``agree`` (B,) sum v_x M_a . shares, ``seen`` (B,)
    sum v_x, and the weighted label totals of the rater, ``own`` (B, K), and
    of the consensus it is compared with, ``other`` (B, K). Items where no
    other rater has a positive weight are skipped.
    """
    n_cat = mass.shape[1]
    agree = np.zeros(n_rater, dtype=np.float64)
    seen = np.zeros(n_rater, dtype=np.float64)
    own = np.zeros((n_rater, n_cat), dtype=np.float64)
    other = np.zeros((n_rater, n_cat), dtype=np.float64)
    row = np.zeros(n_cat, dtype=np.float64)
    for a in range(item.shape[0]):
        x = item[a]
        r = rater[a]
        v = item_weight[x]
        wr = rater_weight[r] if rater_weight[r] > 0.0 else 0.0
        rest = total[x] - wr
        if v <= 0.0 or rest <= 1e-12 * (total[x] + 1.0):
            continue
        for i in range(offsets[a], offsets[a + 1]):
            row[members[i]] = weights[i]
        s = 0.0
        for c in range(n_cat):
            share = (mass[x, c] - wr * row[c]) / rest
            if share < 0.0:  # rounding
                share = 0.0
            s += row[c] * share
            own[r, c] += v * row[c]
            other[r, c] += v * share
        agree[r] += v * s
        seen[r] += v
        for i in range(offsets[a], offsets[a + 1]):
            row[members[i]] = 0.0
    return agree, seen, own, other
