"""The per-item table's kernels: the order of the rows from the largest score (in
O(n)) and the rows (each item's sums: :mod:`.item_sums`). :mod:`.placing` does
both at once, writing each row to its place, when the scores take few values."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

__all__ = ["DISTINCT", "RADIX_BITS", "item_rows", "ranked_groups", "root_mean"]

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


#: Bits of the key sorted per pass of the radix sort (four passes over 64 bits).
RADIX_BITS = 16
RADIX = 1 << RADIX_BITS

#: Up to this many distinct scores, one counting sort by the score's rank among them
#: replaces the radix passes (scores of a few annotations per item on a scale repeat).
DISTINCT = 1024
_SLOT_BITS = 12
_SLOTS = 1 << _SLOT_BITS  # open-addressing table of 4 * DISTINCT: at most a quarter full


@njit(**_JIT)
def _descending_keys(neg: np.ndarray) -> np.ndarray:
    """``neg`` (float64, the scores negated plus 0.0 so -0.0 and 0.0 are one key)
    turned in place into unsigned keys that sort as the scores from the largest,
    NaN after every number; returned as a view of ``neg``'s memory."""
    key = neg.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    for a in range(neg.shape[0]):
        b = key[a]
        key[a] = ~np.uint64(0) if neg[a] != neg[a] else (~b if b & sign else b | sign)
    return key


@njit(**_JIT)
def _by_distinct(key: np.ndarray, item: np.ndarray, out: np.ndarray,
                 which: np.ndarray) -> bool:
    """``item`` stably sorted by ``key`` into ``out`` through the keys' ranks among
    their distinct values (``which`` (n,) scratch); False (``out`` untouched) when
    there are more than :data:`DISTINCT` of them."""
    n = key.shape[0]
    slot_key = np.empty(_SLOTS, dtype=np.uint64)
    slot_id = np.full(_SLOTS, -1, dtype=np.int64)
    found = np.empty(DISTINCT, dtype=np.uint64)
    count = np.zeros(DISTINCT + 1, dtype=np.int64)
    mask = np.uint64(_SLOTS - 1)
    k = 0
    for a in range(n):
        v = key[a]
        # the product's top bits (the best mixed; a middle slice of it sent the few
        # keys of a rating scale's D values into long chains of collisions: 8x slower)
        h = (v * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - _SLOT_BITS)
        while slot_id[h] >= 0 and slot_key[h] != v:
            h = (h + np.uint64(1)) & mask
        if slot_id[h] < 0:
            if k == DISTINCT:
                return False
            slot_key[h] = v
            slot_id[h] = k
            found[k] = v
            k += 1
        u = slot_id[h]
        which[a] = u
        count[u] += 1
    rank = np.argsort(found[:k])  # the distinct keys in order
    start = np.empty(k, dtype=np.int64)
    total = 0
    for r in range(k):
        start[rank[r]] = total
        total += count[rank[r]]
    for a in range(n):
        u = which[a]
        out[start[u]] = item[a]
        start[u] += 1
    return True


@njit(**_JIT)
def _sort_by_key(key: np.ndarray, item: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """``item`` stably sorted by the unsigned ``key`` (both (n,), both overwritten):
    a counting sort when the keys take few values, else a radix sort of
    :data:`RADIX_BITS` bits a pass, moving keys and items together. ``scratch``
    (2, >= n) int64; the result is a row of it or ``item``."""
    n = key.shape[0]
    out = scratch[0, :n]
    if _by_distinct(key, item, out, scratch[1, :n]):
        return out
    tmp_key = scratch[1, :n].view(np.uint64)
    count = np.zeros(RADIX + 1, dtype=np.int64)
    mask = np.uint64(RADIX - 1)
    src_key, src, dst_key, dst = key, item, tmp_key, out
    for shift in range(0, 64, RADIX_BITS):
        count[:] = 0
        s = np.uint64(shift)
        for a in range(n):
            count[((src_key[a] >> s) & mask) + np.uint64(1)] += 1
        if count.max() == n:  # one digit value: nothing moves
            continue
        for d in range(RADIX):
            count[d + 1] += count[d]
        for a in range(n):
            d = (src_key[a] >> s) & mask
            dst_key[count[d]] = src_key[a]
            dst[count[d]] = src[a]
            count[d] += 1
        src_key, src, dst_key, dst = dst_key, dst, src_key, src
    return src


@njit(**_JIT)
def ranked_groups(n: np.ndarray, score: np.ndarray, n_rep: int,
                  scratch: np.ndarray) -> np.ndarray:
    """The groups ``g`` with ``n[g] > 0`` sorted by (replication ``g % n_rep``,
    ``score[g]`` from the largest, NaN last, ties by ``g``): ``g[np.lexsort((g // n_rep,
    -score[g], g % n_rep))]`` for ``g = flatnonzero(n > 0)``, in O(G). A stable sort of
    the score's float bits turned into an unsigned key that sorts as the descending
    score (a counting sort by rank when there are at most :data:`DISTINCT` distinct
    scores, else a radix sort), then a stable counting sort by replication. (Scores
    are never -inf: NaN sorts after every number.)
    ``scratch`` (4, >= G) int64 is the memory it works in (the result is a row
    of it)."""
    m = 0
    for g in range(n.shape[0]):
        if n[g] > 0:
            m += 1
    neg = scratch[0, :m].view(np.float64)
    group = scratch[1, :m]
    a = 0
    for g in range(n.shape[0]):
        if n[g] > 0:
            neg[a] = -score[g] + 0.0
            group[a] = g
            a += 1
    by = _sort_by_key(_descending_keys(neg), group, scratch[2:])  # in row 1 or 2
    if n_rep <= 1:
        return by
    out = scratch[3, :m]  # free once sorted: stably by replication into it
    rc = np.zeros(n_rep + 1, dtype=np.int64)
    for a in range(m):
        rc[by[a] % n_rep + 1] += 1
    for r in range(n_rep):
        rc[r + 1] += rc[r]
    for a in range(m):
        r = by[a] % n_rep
        out[rc[r]] = by[a]
        rc[r] += 1
    return out


@njit(**_JIT)
def root_mean(n: np.ndarray, pair_sum: np.ndarray, scale: float) -> None:
    """D in place of ``pair_sum``: sqrt(pair_sum / C(n, 2)) * ``scale`` (a power of
    two: exact), NaN below two annotations."""
    for g in range(n.shape[0]):
        m = n[g]
        if m < 2:
            pair_sum[g] = np.nan
        else:
            pair_sum[g] = math.sqrt(pair_sum[g] / (m * (m - 1) / 2.0)) * scale


@njit(**_JIT)
def item_rows(order: np.ndarray, ints: np.ndarray, floats: np.ndarray, n_rep: int,
              ids: np.ndarray, cats: np.ndarray, out_floats: np.ndarray,
              out_ints: np.ndarray, undefined: np.ndarray, start: int, stop: int) -> None:
    """The rows of item_disagreement's table in ``order`` (groups, from
    :func:`ranked_groups`), written into memory the caller allocates.

    Per group g: ``ints[:, g]`` = annotations, mode code, mode count and
    ``floats[:, g]`` = D, lo, hi, mean (:func:`.item_sums.item_summary_into`'s rows).
    ``out_floats`` (2 or 4, M): D, mode share, and with 4 rows the mean and
    spread (max - min); ``out_ints`` (4 or 5, M): annotations, the mode
    (``cats[code]``; its code when ``cats`` is empty), competition rank within
    the replication (1, 2, 2, 4: ties share the better rank), the item's id
    (``ids[item]``; its code when ``ids`` is empty) and with 5 rows the
    replication; ``undefined`` (M,): D is NaN (its rank is <NA>).

    Only the rows ``start`` to ``stop`` - 1 are written, and nothing outside them
    is read but the inputs: blocks of rows in threads write disjoint memory. A
    block's first rank comes from the rows before it in ``order`` (the start of
    its replication and of its run of equal D, found by reading back).
    """
    numeric = out_floats.shape[0] > 2
    with_rep = out_ints.shape[0] > 4
    with_ids = ids.shape[0] > 0
    with_cats = cats.shape[0] > 0
    r_last = -1
    group_start = 0
    run_start = 0
    d_last = np.nan
    if start > 0 and start < stop:  # where the row before the block left off
        j = start - 1
        r_last = order[j] % n_rep if n_rep > 1 else 0
        d_last = floats[0, order[j]]
        run_start = j  # back over its run of equal D (a NaN is a run of its own)
        while run_start > 0 and floats[0, order[run_start - 1]] == d_last and (
                n_rep <= 1 or order[run_start - 1] % n_rep == r_last):
            run_start -= 1
        group_start = run_start if n_rep > 1 else 0
        while n_rep > 1 and group_start > 0 and order[group_start - 1] % n_rep == r_last:
            group_start -= 1
    for i in range(start, stop):
        g = order[i]
        r = g % n_rep if n_rep > 1 else 0  # no division for one replication
        d = floats[0, g]
        if r != r_last:  # a new replication
            r_last = r
            group_start = i
            run_start = i
        elif d != d_last:
            run_start = i
        d_last = d
        out_floats[0, i] = d
        out_floats[1, i] = ints[2, g] / ints[0, g]
        if numeric:
            out_floats[2, i] = floats[3, g]
            out_floats[3, i] = floats[2, g] - floats[1, g]
        out_ints[0, i] = ints[0, g]
        out_ints[1, i] = cats[ints[1, g]] if with_cats else ints[1, g]
        out_ints[2, i] = run_start - group_start + 1
        item = g // n_rep if n_rep > 1 else g
        out_ints[3, i] = ids[item] if with_ids else item
        if with_rep:
            out_ints[4, i] = r
        undefined[i] = d != d

