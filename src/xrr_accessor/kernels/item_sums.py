"""Each item's sums, one record per (item, replication) group: its annotations,
their disagreement summed over pairs, the mode, the lowest and highest value and
the mean. They feed the per-item table (:mod:`.ranking` orders its rows) and the
gold and validity diagnostics (:func:`.diagnostics.item_summary`).

A group of fewer than 256 annotations on at most :data:`.within.PACKED_CATEGORIES`
categories (and a disagreement that is not a K x K matrix) is a function of its count
pattern only: n_c in byte c of one integer, from a row loop with no branch. Each
distinct pattern's record is computed once and kept in a small table, :mod:`.within`'s
table of patterns (a few ratings on a short scale make few patterns: 126 for five
ratings on five categories); every other group counts its categories in a scratch
table.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from .within import PACKED_CATEGORIES, PATTERN_SLOTS, count_in, pattern_slot

__all__ = ["MATRIX", "MOMENTS", "NOMINAL", "bag_patterns", "bag_records_into", "group_bags",
           "group_bags_into", "item_summary_into"]

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

#: ``form`` of :func:`item_summary_into`: nominal (0/1), interval (moments), K x K matrix.
NOMINAL, MOMENTS, MATRIX = 0, 1, 2


@njit(**_JIT, inline="always")  # inlined: one call per distinct pattern, not per group
def _pattern_record(bag: np.uint64, n_cat: int, values: np.ndarray, form: int,
                    scale: float, root: bool, rec_i: np.ndarray, rec_f: np.ndarray,
                    h: int) -> None:  # pragma: no cover - compiled by numba
    """The record of every group whose count pattern is ``bag`` (n_c in byte c, at
    least one annotation) into slot ``h``: ``rec_i[h]`` n, mode (the smallest code
    at the top count), mode count, modes tied; ``rec_f[h]`` pair sum (D with
    ``root``), lo, hi, mean (:func:`item_summary_into`'s rows). Numbers are
    shifted by the lowest category's value before the moments (no difference
    changes; integers stay exact)."""
    m = 0
    sq = 0
    top = 0
    for c in range(n_cat):
        cu = count_in(bag, c)
        m += cu
        sq += cu * cu
        top = max(top, cu)
    best = -1
    ties = 0
    for c in range(n_cat - 1, -1, -1):  # the smallest code at the top count
        at_top = count_in(bag, c) == top
        best = c if at_top else best
        ties += at_top
    s1 = 0.0
    s2 = 0.0
    low = np.nan
    high = np.nan
    mean = np.nan
    if values.shape[0] > 0:
        first = True
        shift = 0.0
        for c in range(n_cat):
            x = float(count_in(bag, c))
            if x == 0.0:
                continue
            v = values[c]
            if first:
                first = False
                shift = v
                low = v
                high = v
            low = min(low, v)
            high = max(high, v)
            s1 += x * (v - shift)
            s2 += x * (v - shift) ** 2
        mean = (shift + s1 / m) * scale
    pair_sum = 0.0
    if form == MOMENTS:
        pair_sum = max(m * s2 - s1 * s1, 0.0)
    elif form == NOMINAL:
        pair_sum = (m * m - sq) / 2.0
    if root:
        pair_sum = math.sqrt(pair_sum / (m * (m - 1) / 2.0)) * scale if m >= 2 else np.nan
    rec_i[h, 0] = m
    rec_i[h, 1] = best
    rec_i[h, 2] = top
    rec_i[h, 3] = ties
    rec_f[h, 0] = pair_sum
    rec_f[h, 1] = low * scale
    rec_f[h, 2] = high * scale
    rec_f[h, 3] = mean


@njit(**_JIT)
def item_summary_into(offsets: np.ndarray, order: np.ndarray, codes: np.ndarray,
                      values: np.ndarray, dist: np.ndarray, n_cat: int, n_rep: int,
                      form: int, ints: np.ndarray, floats: np.ndarray, scale: float,
                      root: bool, lo_group: int, hi_group: int) -> None:
    """:func:`~xrr_accessor.kernels.diagnostics.item_summary` written into ``ints``
    (4, >= G) rows n, mode, mode_count, n_modes and ``floats`` (4, >= G) rows
    pair_sum, lo, hi, mean (memory the caller allocates: one block of records, not
    eight arrays to fault in); lo, hi and mean times ``scale`` (a power of two:
    exact; ``values`` scaled by its inverse keep squares in range). With ``root``
    D in place of pair_sum (as :func:`.ranking.root_mean`). Only the groups
    ``lo_group`` to ``hi_group`` - 1 are summed (and only their columns written):
    blocks of groups in threads write disjoint memory. A record does not depend on
    the block its group is in; by count pattern, not on the order of its rows either
    (the general route shifts numbers by the group's first value: the last bits of
    the mean and the interval D can depend on the rows' order)."""
    numeric = values.shape[0] > 0
    n, mode, mode_count, n_modes = ints[0], ints[1], ints[2], ints[3]
    pair_sum, lo, hi, mean = floats[0], floats[1], floats[2], floats[3]
    inplace = order.shape[0] == 0
    packed = n_cat <= PACKED_CATEGORIES and form != MATRIX  # < 256 rows: by pattern
    keys = np.zeros(PATTERN_SLOTS if packed else 0, dtype=np.uint64)  # 0: a free slot
    rec_i = np.empty((PATTERN_SLOTS if packed else 0, 4), dtype=np.int64)
    rec_f = np.empty((PATTERN_SLOTS if packed else 0, 4), dtype=np.float64)
    used = 0
    count = np.zeros(n_cat, dtype=np.int64)
    seen = np.empty(n_cat, dtype=np.int64)
    for g in range(lo_group, hi_group):
        start, stop = offsets[g], offsets[g + 1]
        if packed and stop - start < 256:
            bag = np.uint64(0)
            for p in range(start, stop):
                c = codes[p] if inplace else codes[order[p]]
                bag += (np.uint64(1) << np.uint64(8 * c)) if c >= 0 else np.uint64(0)
            if bag != np.uint64(0):
                h = pattern_slot(keys, bag)
                if keys[h] == np.uint64(0):  # a new pattern
                    if 2 * used >= PATTERN_SLOTS:  # half full: start again with it alone
                        keys[:] = 0
                        used = 0
                        h = pattern_slot(keys, bag)
                    keys[h] = bag
                    used += 1
                    _pattern_record(bag, n_cat, values, form, scale, root, rec_i, rec_f,
                                    h)
                n[g] = rec_i[h, 0]
                mode[g] = rec_i[h, 1]
                mode_count[g] = rec_i[h, 2]
                n_modes[g] = rec_i[h, 3]
                pair_sum[g] = rec_f[h, 0]
                lo[g] = rec_f[h, 1]
                hi[g] = rec_f[h, 2]
                mean[g] = rec_f[h, 3]
                continue
        while start < stop and (codes[start] if inplace else codes[order[start]]) < 0:
            start += 1  # the first annotation: its value shifts the group's
        m = 0
        k = 0
        s1 = 0.0
        s2 = 0.0
        shift = values[codes[start] if inplace else codes[order[start]]] if (
            numeric and start < stop) else np.nan
        low = shift
        high = shift
        for p in range(start, stop):
            c = codes[p] if inplace else codes[order[p]]
            if c < 0:
                continue
            m += 1
            if count[c] == 0:
                seen[k] = c
                k += 1
            count[c] += 1
            if numeric:
                v = values[c]
                low = min(low, v)
                high = max(high, v)
                s1 += v - shift
                s2 += (v - shift) ** 2
        n[g] = m
        lo[g] = low * scale
        hi[g] = high * scale
        mean[g] = np.nan
        pair_sum[g] = 0.0
        mode[g] = -1
        mode_count[g] = 0
        n_modes[g] = 0
        if m == 0:
            if root:
                pair_sum[g] = np.nan
            continue
        if numeric:
            mean[g] = (shift + s1 / m) * scale
        best = -1
        top = 0
        ties = 0
        sq = 0
        for u in range(k):
            c = seen[u]
            cu = count[c]
            sq += cu * cu
            if form == MATRIX:
                r = g % n_rep if n_rep > 1 else 0
                for w in range(u + 1, k):
                    pair_sum[g] += cu * count[seen[w]] * dist[r, c, seen[w]]
            if cu > top:
                top = cu
                best = c
                ties = 1
            elif cu == top:
                ties += 1
                best = min(best, c)
        for u in range(k):
            count[seen[u]] = 0  # reset the scratch for the next group
        if form == MOMENTS:
            pair_sum[g] = max(m * s2 - s1 * s1, 0.0)
        elif form == NOMINAL:
            pair_sum[g] = (m * m - sq) / 2.0
        if root:
            pair_sum[g] = math.sqrt(pair_sum[g] / (m * (m - 1) / 2.0)) * scale if m >= 2 \
                else np.nan
        mode[g] = best
        mode_count[g] = top
        n_modes[g] = ties


@njit(**_JIT)
def group_bags(item: np.ndarray, rep: np.ndarray, codes: np.ndarray, n_rep: int,
               n_group: int) -> tuple[np.ndarray, int]:
    """Each (item, replication) group's count pattern, read from the annotations in
    their own order (no grouping first): n_c in byte c of ``bags`` (G,) for group
    ``item * n_rep + rep``; and the most rows (missing codes included) of one group,
    counted up to 255. The patterns hold only when that is under 255 and codes are
    below :data:`.within.PACKED_CATEGORIES` (the caller checks both).

    Examples
    --------
    >>> bags, most = group_bags(np.array([0, 1, 0, 0]), np.zeros(4, np.int64),
    ...                         np.array([1, 0, 1, -1]), 1, 2)
    >>> [hex(b) for b in bags.tolist()], most
    (['0x200', '0x1'], 3)
    """
    bags = np.empty(n_group, dtype=np.uint64)
    return bags, group_bags_into(item, rep, codes, n_rep, bags)


@njit(**_JIT)
def group_bags_into(item: np.ndarray, rep: np.ndarray, codes: np.ndarray, n_rep: int,
                    bags: np.ndarray) -> int:
    """:func:`group_bags` into ``bags`` (G,) uint64, memory the caller gives (its
    contents are overwritten: a block of huge pages, not fresh small ones to fault
    in one by one); returns the most rows of one group, up to 255.

    Examples
    --------
    >>> bags = np.full(2, 7, dtype=np.uint64)
    >>> most = group_bags_into(np.array([0, 1, 0, 0]), np.zeros(4, np.int64),
    ...                        np.array([1, 0, 1, -1]), 1, bags)
    >>> [hex(b) for b in bags.tolist()], most
    (['0x200', '0x1'], 3)
    """
    n_group = bags.shape[0]
    bags[:] = 0
    rows = np.zeros(n_group, dtype=np.uint8)  # saturates at 255: a byte a group
    for a in range(item.shape[0]):
        g = item[a] * n_rep + rep[a] if n_rep > 1 else item[a]
        c = codes[a]
        bags[g] += (np.uint64(1) << np.uint64(8 * c)) if c >= 0 else np.uint64(0)
        rows[g] += rows[g] < 255
    return int(rows.max()) if n_group else 0


@njit(**_JIT)
def bag_records_into(bags: np.ndarray, values: np.ndarray, n_cat: int, form: int,
                     ints: np.ndarray, floats: np.ndarray, scale: float, root: bool,
                     lo_group: int, hi_group: int) -> None:
    """:func:`item_summary_into`'s records of groups ``lo_group`` to ``hi_group`` - 1
    from their count patterns (:func:`group_bags`; form :data:`NOMINAL` or
    :data:`MOMENTS`): the records its pattern route writes for groups of fewer
    than 256 rows, each distinct pattern's computed once; and a group with no
    annotation's as it writes them."""
    n, mode, mode_count, n_modes = ints[0], ints[1], ints[2], ints[3]
    pair_sum, lo, hi, mean = floats[0], floats[1], floats[2], floats[3]
    keys = np.zeros(PATTERN_SLOTS, dtype=np.uint64)  # 0: a free slot
    rec_i = np.empty((PATTERN_SLOTS, 4), dtype=np.int64)
    rec_f = np.empty((PATTERN_SLOTS, 4), dtype=np.float64)
    used = 0
    for g in range(lo_group, hi_group):
        bag = bags[g]
        if bag == np.uint64(0):
            n[g] = 0
            mode[g] = -1
            mode_count[g] = 0
            n_modes[g] = 0
            pair_sum[g] = np.nan if root else 0.0
            lo[g] = np.nan
            hi[g] = np.nan
            mean[g] = np.nan
            continue
        h = pattern_slot(keys, bag)
        if keys[h] == np.uint64(0):  # a new pattern
            if 2 * used >= PATTERN_SLOTS:  # half full: start again with it alone
                keys[:] = 0
                used = 0
                h = pattern_slot(keys, bag)
            keys[h] = bag
            used += 1
            _pattern_record(bag, n_cat, values, form, scale, root, rec_i, rec_f, h)
        n[g] = rec_i[h, 0]
        mode[g] = rec_i[h, 1]
        mode_count[g] = rec_i[h, 2]
        n_modes[g] = rec_i[h, 3]
        pair_sum[g] = rec_f[h, 0]
        lo[g] = rec_f[h, 1]
        hi[g] = rec_f[h, 2]
        mean[g] = rec_f[h, 3]


#: The most distinct count patterns :func:`bag_patterns` numbers (its table at most half full).
MOST_PATTERNS = PATTERN_SLOTS // 2


@njit(**_JIT)
def bag_patterns(bags: np.ndarray, pid: np.ndarray, distinct: np.ndarray) -> tuple[int, int]:
    """Each group's count pattern as a number: ``distinct`` (>= :data:`MOST_PATTERNS`
    + 1,) the distinct patterns of ``bags`` (G,) (``distinct[0]`` = 0: no
    annotation; then each in order of first appearance) and ``pid[g]`` (G,) the
    place of group g's pattern in it: every group's record is then the record of
    ``distinct[pid[g]]`` (:func:`bag_records_into` over ``distinct`` writes each
    once).

    Returns ``(patterns, groups with annotations)``, or ``(-1, 0)`` past
    :data:`MOST_PATTERNS` distinct patterns (``pid`` then half written).

    Examples
    --------
    >>> pid, distinct = np.empty(4, np.int64), np.empty(3, np.uint64)
    >>> bag_patterns(np.array([0x200, 0, 0x101, 0x200], np.uint64), pid, distinct)
    (3, 3)
    >>> pid.tolist(), [hex(b) for b in distinct.tolist()]
    ([1, 0, 2, 1], ['0x0', '0x200', '0x101'])
    """
    distinct[0] = 0
    keys = np.zeros(PATTERN_SLOTS, dtype=np.uint64)  # 0: a free slot
    place = np.empty(PATTERN_SLOTS, dtype=np.int64)
    used = 1
    m = 0
    for g in range(bags.shape[0]):
        bag = bags[g]
        if bag == np.uint64(0):
            pid[g] = 0
            continue
        m += 1
        h = pattern_slot(keys, bag)
        if keys[h] == np.uint64(0):  # a new pattern
            if used > MOST_PATTERNS:
                return -1, 0
            keys[h] = bag
            place[h] = used
            distinct[used] = bag
            used += 1
        pid[g] = place[h]
    return used, m
