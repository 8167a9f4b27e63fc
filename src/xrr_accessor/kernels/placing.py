"""The per-item table's rows written straight to their places, when the scores take few
values (a few ratings per item on a scale: D repeats).

:func:`~.ranking.ranked_groups` sorts the groups and :func:`~.ranking.item_rows`
then gathers each row's record through that permutation: a random read per
column and row, which for hundreds of thousands of small items is most of the
table's time. Here one pass numbers the distinct scores and counts the groups
of each (replication, score) in each block of groups, and a second pass (a
thread per block) gives each group the next free row of its (replication, score)
run; each column is then moved to those rows on its own, reading the records in
order: a counting sort whose moves are the rows themselves. The order is the
same: by replication, the score from the largest (NaN last), ties in the groups'
order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from . import threads

__all__ = ["DISTINCT", "place_rows", "ranked_rows", "row_places"]

#: The most distinct scores the rows are placed for, as :data:`.ranking.DISTINCT` (a test
#: checks they are equal). Defined here, not imported: a compiled kernel keeps the value
#: it was compiled with, and numba renews its cache only when this file changes.
DISTINCT = 1024

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

_SLOT_BITS = 12
_SLOTS = 1 << _SLOT_BITS  # open-addressing table of 4 * DISTINCT: at most a quarter full
assert 4 * DISTINCT <= _SLOTS  # else the probe loop could find no empty slot


@njit(**_JIT)
def row_places(n: np.ndarray, score: np.ndarray, n_rep: int, which: np.ndarray,
               cuts: np.ndarray, pid: np.ndarray
               ) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, int]:
    """Where each (replication, score) run of rows starts, per block of groups.

    Groups ``g`` with ``n[g] > 0`` are ranked by (replication ``g % n_rep``,
    ``score[g]`` from the largest, NaN last, then ``g``). Each group's score is
    numbered among the distinct scores into ``which`` (G,) (-1 for a group
    without annotations). Blocks of groups are ``cuts[b]:cuts[b + 1]``. With
    ``pid`` (G,) not empty, group ``g``'s n and score are those of record
    ``pid[g]`` (a count pattern's), each record's score numbered once.

    Returns ``(k, start, rank, rep_start, nan_at)``: ``k`` distinct scores (-1,
    the rest empty, past :data:`~.ranking.DISTINCT` of them); ``start`` (B, R, k)
    the first row of block b's groups of each (replication, score); ``rank``
    (R, k) the competition rank of that score within the replication (1 + the
    rows before it: ties share the better rank); ``rep_start`` (R,) the
    replication's first row; ``nan_at`` NaN's number among the distinct scores
    (-1: no NaN).

    Examples
    --------
    >>> k, start, rank, rep_start, nan_at = row_places(
    ...     np.array([2, 2, 0, 3]), np.array([0.5, 0.0, np.nan, 0.5]), 1,
    ...     np.empty(4, dtype=np.int64), np.array([0, 2, 4]), np.zeros(0, np.int64))
    >>> k, start.tolist(), rank.tolist(), nan_at  # 0.5: rows 0 and 1; 0.0: row 2
    (2, [[[0, 2]], [[1, 3]]], [[1, 3]], -1)
    """
    n_block = cuts.shape[0] - 1
    slot_key = np.empty(_SLOTS, dtype=np.uint64)
    slot_id = np.full(_SLOTS, -1, dtype=np.int64)
    found = np.empty(DISTINCT, dtype=np.uint64)
    count = np.zeros((n_block, n_rep, DISTINCT), dtype=np.int64)
    mask = np.uint64(_SLOTS - 1)
    sign = np.uint64(1) << np.uint64(63)
    one = np.empty(1, dtype=np.float64)
    bits = one.view(np.uint64)
    with_pid = pid.shape[0] > 0
    memo = np.full(n.shape[0] if with_pid else 0, -2, dtype=np.int64)  # -2: not yet
    k = 0
    for b in range(n_block):
        r = (cuts[b] - 1) % n_rep if n_rep > 1 else 0
        for g in range(cuts[b], cuts[b + 1]):
            r = r + 1 if r + 1 < n_rep else 0  # g % n_rep without a division
            q = pid[g] if with_pid else g
            if with_pid and memo[q] != -2:  # the record's score numbered already
                which[g] = memo[q]
                if memo[q] >= 0:
                    count[b, r, memo[q]] += 1
                continue
            if n[q] <= 0:
                which[g] = -1
                if with_pid:
                    memo[q] = -1
                continue
            one[0] = -score[q] + 0.0  # -0.0 and 0.0 one key; keys sort as the scores
            v = bits[0]  # from the largest, NaN after every number
            v = ~np.uint64(0) if one[0] != one[0] else (~v if v & sign else v | sign)
            # the product's top bits (its middle bits chain a scale's few D values)
            h = (v * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - _SLOT_BITS)
            while slot_id[h] >= 0 and slot_key[h] != v:
                h = (h + np.uint64(1)) & mask
            if slot_id[h] < 0:
                if k == DISTINCT:
                    empty = np.zeros((0, 0, 0), dtype=np.int64)
                    return -1, empty, empty[0], empty[0, 0], -1
                slot_key[h] = v
                slot_id[h] = k
                found[k] = v
                k += 1
            u = slot_id[h]
            which[g] = u
            count[b, r, u] += 1
            if with_pid:
                memo[q] = u
    order = np.argsort(found[:k])  # the distinct scores from the largest
    start = np.empty((n_block, n_rep, k), dtype=np.int64)
    rank = np.empty((n_rep, k), dtype=np.int64)
    rep_start = np.empty(n_rep, dtype=np.int64)
    nan_at = -1
    total = 0
    for r in range(n_rep):
        rep_start[r] = total
        for j in range(k):
            u = order[j]
            if found[u] == ~np.uint64(0):
                nan_at = u
            rank[r, u] = total - rep_start[r] + 1
            for b in range(n_block):
                start[b, r, u] = total
                total += count[b, r, u]
    return k, start, rank, rep_start, nan_at


@njit(**_JIT)
def place_rows(ints: np.ndarray, floats: np.ndarray, n_rep: int, ids: np.ndarray,
               cats: np.ndarray, out_floats: np.ndarray, out_ints: np.ndarray,
               undefined: np.ndarray, which: np.ndarray, start: np.ndarray,
               rank: np.ndarray, rep_start: np.ndarray, nan_at: int, lo: int,
               hi: int, pid: np.ndarray) -> None:
    """The rows of groups ``lo`` to ``hi`` - 1, each written to its place.

    ``ints`` (>= 3, G) annotations, mode code, mode count and ``floats`` (4, G)
    D, lo, hi, mean per group (:func:`.item_sums.item_summary_into`'s records);
    the outputs as :func:`~.ranking.item_rows`'s (``out_floats`` (2 or 4, M): D,
    mode share[, mean, spread]; ``out_ints`` (4 or 5, M): annotations, mode
    (``cats[code]``, or the code when ``cats`` is empty), rank, the item's id
    (``ids[item]``, or the code when ``ids`` is empty)[, replication];
    ``undefined`` (M,): D is NaN). ``which``, ``rank``, ``rep_start`` and
    ``nan_at`` from :func:`row_places`, ``start`` (R, k) its block's row of it
    (advanced here). A NaN's rank is its own row's (item_rows' rank under the
    mask). ``pid`` as :func:`row_places`' (group ``g``'s record ``pid[g]``).

    A first pass turns ``which[g]`` into the group's row (-1 stays -1), writing the
    rank; then each column is moved on its own: a row at a time, every column
    would write to (k runs x 9 columns) places at once, more than the cache keeps
    open (4x slower at 250,000 items).
    """
    with_rep = out_ints.shape[0] > 4
    r = (lo - 1) % n_rep if n_rep > 1 else 0
    for g in range(lo, hi):
        r = r + 1 if r + 1 < n_rep else 0
        u = which[g]
        if u < 0:
            continue
        i = start[r, u]
        start[r, u] = i + 1
        which[g] = i
        out_ints[2, i] = i - rep_start[r] + 1 if u == nan_at else rank[r, u]
        if with_rep:
            out_ints[4, i] = r
    _move_columns(ints, floats, n_rep, ids, cats, out_floats, out_ints, undefined, which,
                  lo, hi, pid)


@njit(**_JIT)
def _move_columns(ints: np.ndarray, floats: np.ndarray, n_rep: int, ids: np.ndarray,
                  cats: np.ndarray, out_floats: np.ndarray, out_ints: np.ndarray,
                  undefined: np.ndarray, row: np.ndarray, lo: int,
                  hi: int, pid: np.ndarray) -> None:
    """:func:`place_rows`' columns but the rank and the replication, group ``g`` (its
    record ``pid[g]``, or ``g`` when ``pid`` is empty) to row ``row[g]`` (none where
    -1), a column at a time."""
    by = pid.shape[0] > 0
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            out_floats[0, i] = floats[0, pid[g] if by else g]
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            d = floats[0, pid[g] if by else g]
            undefined[i] = d != d
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            q = pid[g] if by else g
            out_floats[1, i] = ints[2, q] / ints[0, q]
    if out_floats.shape[0] > 2:  # numbers: the mean and the spread
        for g in range(lo, hi):
            i = row[g]
            if i >= 0:
                out_floats[2, i] = floats[3, pid[g] if by else g]
        for g in range(lo, hi):
            i = row[g]
            if i >= 0:
                q = pid[g] if by else g
                out_floats[3, i] = floats[2, q] - floats[1, q]
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            out_ints[0, i] = ints[0, pid[g] if by else g]
    with_cats = cats.shape[0] > 0
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            c = ints[1, pid[g] if by else g]
            out_ints[1, i] = cats[c] if with_cats else c
    with_ids = ids.shape[0] > 0
    for g in range(lo, hi):
        i = row[g]
        if i >= 0:
            item = g // n_rep if n_rep > 1 else g
            out_ints[3, i] = ids[item] if with_ids else item


def ranked_rows(ints: np.ndarray, floats: np.ndarray, n_rep: int, ids: np.ndarray,
                cats: np.ndarray, out_floats: np.ndarray, out_ints: np.ndarray,
                undefined: np.ndarray, min_block: int,
                which: np.ndarray | None = None, pid: np.ndarray | None = None) -> bool:
    """:func:`~.ranking.ranked_groups` and :func:`~.ranking.item_rows` in one: the
    rows of every group with annotations, ranked, written into the outputs (M
    rows: :func:`place_rows`), in blocks of at least ``min_block`` groups a thread.
    False (nothing written) past :data:`~.ranking.DISTINCT` distinct scores: then
    sort and gather. ``which``: scratch of G int64 the caller may give (its
    contents are overwritten). ``pid`` (G,): group ``g``'s record is ``ints[:,
    pid[g]]``, ``floats[:, pid[g]]`` (a table of count patterns' records), not
    its own column.

    Examples
    --------
    >>> ints = np.array([[2, 2, 0, 3], [0, 1, 0, 0], [1, 2, 0, 2]])
    >>> floats = np.array([[0.5, 0.0, np.nan, 0.5], [0.0, 1, 0, 0], [1.0, 1, 0, 2],
    ...                    [0.5, 1, 0, 1]])
    >>> of, oi, und = np.zeros((4, 3)), np.zeros((4, 3), dtype=np.int64), np.zeros(3, bool)
    >>> none = np.zeros(0, dtype=np.int64)
    >>> ranked_rows(ints, floats, 1, none, none, of, oi, und, min_block=1)
    True
    >>> of[0].tolist(), oi[2].tolist(), oi[3].tolist()  # D, rank, item: ties in order
    ([0.5, 0.5, 0.0], [1, 1, 3], [0, 3, 1])
    """
    pid = np.zeros(0, dtype=np.int64) if pid is None else pid
    n_group = pid.shape[0] if pid.shape[0] else ints.shape[1]
    parts = max(1, min(threads.cores(), n_group // max(min_block, 1)))
    cuts = np.arange(parts + 1, dtype=np.int64) * n_group // parts  # (linspace: 10x the time)
    which = np.empty(n_group, dtype=np.int64) if which is None else which
    k, start, rank, rep_start, nan_at = row_places(ints[0], floats[0], n_rep, which, cuts,
                                                   pid)
    if k < 0:
        return False

    def block(b: int) -> Callable[[], None]:
        return lambda: place_rows(ints, floats, n_rep, ids, cats, out_floats, out_ints,
                                  undefined, which, start[b], rank, rep_start, nan_at,
                                  int(cuts[b]), int(cuts[b + 1]), pid)

    threads.concurrently([block(b) for b in range(parts)])
    return True
