"""The per-item table of one label in one compiled call, when it is small and its
groups are count patterns: :func:`~.item_sums.group_bags_into`,
:func:`~.item_sums.bag_patterns`, :func:`~.item_sums.bag_records_into`,
:func:`~.placing.row_places` and :func:`~.placing.place_rows`, the steps
:func:`xrr_accessor.diagnostics.items.item_disagreement` otherwise takes one Python call
at a time (the same kernels, the same order, the same numbers).

A table of tens of thousands of items is made in well under a millisecond, so the
Python between the steps (their scratch memory, the blocks of groups a thread takes)
costs as much as the steps themselves: the whole ``item_disagreement`` call took 0.36 ms
step by step and 0.31 in one call at 2,500 items, 1.51 and 1.34 ms at 25,000 (measured
when this route was added). Large tables keep the steps (they run in blocks on
threads); a table that does not fit this route (a group of 255 rows or more, too many
count patterns or distinct scores) is left to them too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .item_sums import MOST_PATTERNS, bag_patterns, bag_records_into, group_bags_into
from .placing import place_rows, row_places

__all__ = ["DONE", "pattern_table"]

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}

#: :func:`pattern_table`'s status when it wrote the table (any other: it did not).
DONE = 0


@njit(**_JIT)
def pattern_table(item: np.ndarray, rep: np.ndarray, codes: np.ndarray, n_rep: int,
                  n_cat: int, values: np.ndarray, form: int, scale: float, ids: np.ndarray,
                  cats: np.ndarray, scratch: np.ndarray, out_floats: np.ndarray,
                  out_ints: np.ndarray, undefined: np.ndarray) -> tuple[int, int]:
    """One label's ranked rows from its annotations (``item``, ``rep``, ``codes``: the
    label's category codes, -1 missing; groups ``item * n_rep + rep``, G of them;
    ``n_cat`` <= :data:`~.within.PACKED_CATEGORIES` categories; ``values`` their
    numbers scaled by 1 / ``scale`` for :data:`~.item_sums.MOMENTS`, else empty).

    The memory comes from the caller (a block of huge pages: memory allocated here
    would be faulted in page by page at every call): ``scratch`` (2, G) int64, and
    the outputs of :func:`~.placing.place_rows` with G columns, of which the first M
    (the groups with annotations) are written, ranked: ``out_floats`` (D, mode
    share[, mean, spread]), ``out_ints`` (annotations, mode, rank, item[,
    replication]) and ``undefined``; ``ids`` and ``cats`` as there.

    Returns ``(status, M)``: ``status`` :data:`DONE`, or 1 (a group of 255 rows or
    more), 2 (more than :data:`~.item_sums.MOST_PATTERNS` count patterns), 3 (more
    than :data:`~.placing.DISTINCT` distinct scores), when the outputs are not
    written.

    Examples
    --------
    Two items rated 0, 0 and 0, 1 (values 0.0 and 1.0): the second first, D = 1.

    >>> none = np.zeros(0, dtype=np.int64)
    >>> fl, it, und = np.empty((4, 2)), np.empty((4, 2), np.int64), np.empty(2, np.bool_)
    >>> pattern_table(np.array([0, 0, 1, 1]), np.zeros(4, np.int64), np.array([0, 0, 0, 1]),
    ...               1, 2, np.array([0.0, 1.0]), 1, 1.0, none, none,
    ...               np.empty((2, 2), np.int64), fl, it, und)
    (0, 2)
    >>> fl[0].tolist(), it[3].tolist(), it[2].tolist()
    ([1.0, 0.0], [1, 0], [1, 2])
    """
    bags = scratch[0].view(np.uint64)
    pid = scratch[1]
    if group_bags_into(item, rep, codes, n_rep, bags) >= 255:
        return 1, 0
    distinct = np.empty(MOST_PATTERNS + 1, dtype=np.uint64)
    used, m = bag_patterns(bags, pid, distinct)
    if used < 0:
        return 2, 0
    ints = np.empty((4, used), dtype=np.int64)
    floats = np.empty((4, used))
    bag_records_into(distinct[:used], values, n_cat, form, ints, floats, scale, True, 0,
                     used)
    which = scratch[0]  # the patterns are read: their memory is the scratch
    cuts = np.zeros(2, dtype=np.int64)
    cuts[1] = pid.shape[0]
    k, start, rank, rep_start, nan_at = row_places(ints[0], floats[0], n_rep, which, cuts,
                                                   pid)
    if k < 0:
        return 3, 0
    place_rows(ints, floats, n_rep, ids, cats, out_floats, out_ints, undefined, which,
               start[0], rank, rep_start, nan_at, 0, pid.shape[0], pid)
    return DONE, m
