"""The pairs of raters that rated an item in common, found with a bounded hash set.

:func:`shared_pairs` reads groups of distinct rater codes (one group per item and
replication, each group sorted) and keeps every distinct pair (a < b) of one group in
an open-addressing hash set of int64 keys ``a * n + b``. The set is sized for
``limit + 1`` pairs: the pass stops as soon as more than ``limit`` distinct pairs are
found, so refusing a call with too many pairs costs O(limit) memory and the visits
made until then, never O(raters^2). The visits are the groups' pairs, sum of
m (m - 1) / 2 over the groups, each a probe of the set.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["shared_pairs"]

#: Fibonacci hashing's multiplier (2^64 / golden ratio).
_GOLDEN = 0x9E3779B97F4A7C15


@njit(cache=True, nogil=True)
def shared_pairs(offsets: np.ndarray, cells: np.ndarray, n_cells: int, limit: int
                 ) -> tuple[np.ndarray, int, bool]:  # pragma: no cover - compiled
    """(keys, found, complete): the hash set's slots (-1 empty, else ``a * n_cells + b``
    of a pair a < b that share a group), the distinct pairs found, and whether every
    group was read (False: more than ``limit`` pairs, the pass stopped there).

    ``cells[offsets[g]:offsets[g + 1]]`` is group g, sorted, without repeats.

    Examples
    --------
    >>> keys, found, complete = shared_pairs(np.array([0, 3, 5]),
    ...                                      np.array([0, 1, 2, 1, 2]), 3, 10)
    >>> sorted(int(k) for k in keys if k >= 0), found, complete  # (0,1) (0,2) (1,2)
    ([1, 2, 5], 3, True)
    >>> shared_pairs(np.array([0, 3, 5]), np.array([0, 1, 2, 1, 2]), 3, 2)[1:]
    (3, False)
    """
    size = 2
    bits = 1
    while size < 2 * (limit + 1):
        size *= 2
        bits += 1
    mask = size - 1
    shift = np.uint64(64 - bits)
    golden = np.uint64(_GOLDEN)
    keys = np.full(size, -1, dtype=np.int64)
    found = 0
    n = np.int64(n_cells)
    for g in range(offsets.shape[0] - 1):
        lo, hi = offsets[g], offsets[g + 1]
        for x in range(lo, hi):
            base = cells[x] * n
            for y in range(x + 1, hi):
                key = base + cells[y]
                slot = np.int64((np.uint64(key) * golden) >> shift)
                while keys[slot] != -1 and keys[slot] != key:
                    slot = (slot + 1) & mask
                if keys[slot] == -1:
                    keys[slot] = key
                    found += 1
                    if found > limit:
                        return keys, found, False
    return keys, found, True
