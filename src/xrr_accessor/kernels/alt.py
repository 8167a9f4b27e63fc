"""The alternative annotator test's pass: each human's wins and losses against each
candidate, leaving that human out, from one pass over the annotations grouped by item.

For an item i with m reference (human) annotations x_h and a candidate's F annotations
f_a, let E(x) = sum over the humans h of D(x, x_h). Leaving human j out, the remaining
humans' disagreement with j is E(x_j) - D(x_j, x_j) = E(x_j) (D has a zero diagonal),
and with the candidate's annotations sum_a [E(f_a) - D(f_a, x_j)]. Both are sums over
the same m - 1 humans, so the candidate aligns at least as well as j (W^f = 1) when

    sum_a [E(f_a) - D(f_a, x_j)] <= F E(x_j),

and j at least as well (W^h = 1) when the reverse holds; a tie is both. The two sides
are summed in different orders, so a tie of real numbers (say D = 1/9 + 1 on both
sides) can differ in the last bits: sides within ``tol`` (m - 1) F of each other tie,
``tol`` a small multiple of the largest D (1e-10 of it; counts and whole-number
ratings are exact, so there it changes nothing). E costs O(1) per
value for the nominal level (m - n_x, from the item's counts) and for squared
differences of values (interval, and ordinal on mid-ranks: S2 - 2 v S1 + m v^2), and
O(distinct categories of the item) for a K x K matrix (ratio, set distances, custom).
So the pass is O(N) (times the candidates' annotations per item), with no pair loop
over humans.

Shapes: N annotations (rows), C candidates, B raters, K categories.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_JIT: dict[str, Any] = {"cache": True, "nogil": True}

#: How D is computed: D(a, b) = [a != b]; (v_a - v_b)^2; dmat[a, b].
NOMINAL, SQUARED, MATRIX = 0, 1, 2

#: A record's outcome (``records``): the candidate aligns better, the human does, a tie.
CANDIDATE, HUMAN, TIE = 1, 2, 3


@njit(inline="always")
def _disagreement(a: int, b: int, mode: int, values: np.ndarray,
                  dmat: np.ndarray) -> float:  # pragma: no cover - numba
    if mode == NOMINAL:
        return 0.0 if a == b else 1.0
    if mode == SQUARED:
        d = values[a] - values[b]
        return d * d
    return dmat[a, b]


@njit(inline="always")
def _to_humans(x: int, m: int, mode: int, count: np.ndarray, s1: float, s2: float,
               seen: np.ndarray, n_seen: int, values: np.ndarray,
               dmat: np.ndarray) -> float:  # pragma: no cover - numba
    """E(x): the summed disagreement of value ``x`` with every human of the item."""
    if mode == NOMINAL:
        return float(m - count[x])
    if mode == SQUARED:
        v = values[x]
        return s2 - 2.0 * v * s1 + m * v * v
    total = 0.0
    for t in range(n_seen):
        c = seen[t]
        total += count[c] * dmat[x, c]
    return total


@njit(**_JIT)
def alt_outcomes(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray,
                 rater: np.ndarray, codes: np.ndarray, reference: int,
                 candidate_of: np.ndarray, n_candidates: int, n_raters: int,
                 n_categories: int, mode: int, values: np.ndarray, dmat: np.ndarray,
                 tol: float, min_raters: int, records: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover
    """Each human's comparisons with each candidate, leaving the human out.

    Parameters
    ----------
    offsets, order
        Rows by item (:func:`.accumulate.item_order`; ``order`` empty: in place).
    rep, rater, codes
        Each row's replication, rater and category code (-1: missing) of one label.
    reference
        The humans' replication code.
    candidate_of
        Per replication code, its candidate index (0 .. C - 1) or -1.
    mode, values, dmat
        How D is computed (:data:`NOMINAL`, :data:`SQUARED` on ``values[code]``,
        :data:`MATRIX` ``dmat[code, code]``, zero diagonal).
    tol
        Per pair of values compared, the difference of summed D that still ties.
    min_raters
        Items need at least this many human annotations (>= 2).
    records
        (C, N) int8 filled with each human row's outcome (:data:`CANDIDATE`,
        :data:`HUMAN`, :data:`TIE`; 0: no comparison), or (0, 0) to skip.

    Returns
    -------
    counts : (C, B, 3) int64
        Per candidate and human rater: items compared, W^f = 1, W^h = 1.
    scores : (C, B, 4) float64
        Sums over those items of the mean D of the candidate's and of the human's
        values to the remaining humans, and of their square roots (for RMSE).
    items : (C, 3) int64
        Items compared; items the candidate labelled with fewer than ``min_raters``
        human annotations; items with enough humans the candidate did not label.
    """
    n_items = offsets.shape[0] - 1
    in_place = order.shape[0] == 0
    keep = records.shape[0] > 0
    counts = np.zeros((n_candidates, n_raters, 3), dtype=np.int64)
    scores = np.zeros((n_candidates, n_raters, 4), dtype=np.float64)
    items = np.zeros((n_candidates, 3), dtype=np.int64)
    count = np.zeros(max(n_categories, 1), dtype=np.int64)
    seen = np.empty(max(n_categories, 1), dtype=np.int64)
    f_n = np.zeros(n_candidates, dtype=np.int64)
    f_e = np.zeros(n_candidates, dtype=np.float64)
    sub = np.zeros(n_candidates, dtype=np.float64)
    width = 0
    for i in range(n_items):
        width = max(width, offsets[i + 1] - offsets[i])
    cand_c = np.empty(width, dtype=np.int64)
    cand_x = np.empty(width, dtype=np.int64)
    for i in range(n_items):
        lo, hi = offsets[i], offsets[i + 1]
        m = 0
        n_seen = 0
        s1 = 0.0
        s2 = 0.0
        for p in range(lo, hi):  # the humans: counts, or moments
            a = p if in_place else order[p]
            x = codes[a]
            if rep[a] != reference or x < 0:
                continue
            m += 1
            if mode == SQUARED:
                v = values[x]
                s1 += v
                s2 += v * v
            else:
                if count[x] == 0:
                    seen[n_seen] = x
                    n_seen += 1
                count[x] += 1
        n_cand = 0
        for p in range(lo, hi):  # the candidates' values and their E
            a = p if in_place else order[p]
            x = codes[a]
            c = candidate_of[rep[a]]
            if c < 0 or x < 0:
                continue
            f_n[c] += 1
            f_e[c] += _to_humans(x, m, mode, count, s1, s2, seen, n_seen, values, dmat)
            cand_c[n_cand] = c
            cand_x[n_cand] = x
            n_cand += 1
        enough = m >= min_raters
        for c in range(n_candidates):
            if f_n[c] > 0:
                items[c, 0 if enough else 1] += 1
            elif enough:
                items[c, 2] += 1
        if enough and n_cand > 0:
            inv = 1.0 / (m - 1)
            for p in range(lo, hi):  # each human left out
                a = p if in_place else order[p]
                x = codes[a]
                if rep[a] != reference or x < 0:
                    continue
                d_h = _to_humans(x, m, mode, count, s1, s2, seen, n_seen, values, dmat)
                for t in range(n_cand):
                    sub[cand_c[t]] += _disagreement(cand_x[t], x, mode, values, dmat)
                r = rater[a]
                for c in range(n_candidates):
                    f = f_n[c]
                    if f == 0:
                        continue
                    d_f = f_e[c] - sub[c]
                    sub[c] = 0.0
                    gap = d_f - f * d_h
                    slack = tol * f * (m - 1)
                    f_wins = gap <= slack
                    h_wins = gap >= -slack
                    counts[c, r, 0] += 1
                    counts[c, r, 1] += f_wins
                    counts[c, r, 2] += h_wins
                    mean_f = max(d_f, 0.0) * inv / f
                    mean_h = max(d_h, 0.0) * inv
                    scores[c, r, 0] += mean_f
                    scores[c, r, 1] += mean_h
                    scores[c, r, 2] += np.sqrt(mean_f)
                    scores[c, r, 3] += np.sqrt(mean_h)
                    if keep:
                        records[c, a] = (CANDIDATE if not h_wins else HUMAN if not f_wins
                                         else TIE)
        for c in range(n_candidates):
            f_n[c] = 0
            f_e[c] = 0.0
        if mode != SQUARED:
            for t in range(n_seen):
                count[seen[t]] = 0
    return counts, scores, items


@njit(**_JIT)
def alt_weighted(item: np.ndarray, human: np.ndarray, wins: np.ndarray,
                 weights: np.ndarray, n_humans: int) -> tuple[np.ndarray, np.ndarray]:
    """Each human's items and candidate wins (W^f) under C columns of item weights.

    ``item``, ``human`` (0 .. H - 1) and ``wins`` (0/1) are the records of one label
    and candidate; ``weights`` (n_items, C). Returns two (H, C) arrays: the summed
    weights of each human's items, and of those the candidate won.
    """
    c = weights.shape[1]
    n = np.zeros((n_humans, c), dtype=np.float64)
    won = np.zeros((n_humans, c), dtype=np.float64)
    for r in range(item.shape[0]):
        i, h = item[r], human[r]
        if wins[r]:
            for b in range(c):
                w = weights[i, b]
                n[h, b] += w
                won[h, b] += w
        else:
            for b in range(c):
                n[h, b] += weights[i, b]
    return n, won


@njit(**_JIT)
def alt_grouped(group: np.ndarray, human: np.ndarray, wins: np.ndarray, n_groups: int,
                n_humans: int) -> tuple[np.ndarray, np.ndarray]:
    """Each human's items and candidate wins per jackknife group of items: (H, G)."""
    n = np.zeros((n_humans, n_groups), dtype=np.float64)
    won = np.zeros((n_humans, n_groups), dtype=np.float64)
    for r in range(group.shape[0]):
        g, h = group[r], human[r]
        n[h, g] += 1.0
        won[h, g] += wins[r]
    return n, won
