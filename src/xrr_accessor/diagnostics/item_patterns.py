"""item_disagreement's records and count patterns (issue 35, part 6).

Where each (item, replication) group's record is a function of its count pattern
(:func:`~xrr_accessor.kernels.item_sums.group_bags_into`), the records are those of
the distinct patterns, each written once, and each group's number among them, not a
record per group: at 250,000 items, 2 MiB of numbers instead of 16 MiB of records
to write, fault in and read back. :func:`~xrr_accessor.kernels.placing.ranked_rows`
reads the records through the numbers.
"""

from __future__ import annotations

import numpy as np

from ..kernels.item_sums import MOST_PATTERNS, bag_patterns, group_bags_into
from ..kernels.within import PACKED_CATEGORIES
from ._common import Read, blocks

__all__ = ["by_pattern", "count_patterns", "records"]


def by_pattern(bags: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, int]:
    """``(pid, distinct, m)``: each group's number ``pid`` (G,) among the distinct
    count patterns ``distinct`` of ``bags`` (G,) (``distinct[0]`` = 0: a group
    without annotations; :func:`~xrr_accessor.kernels.item_sums.bag_patterns`) and
    ``m`` the groups with annotations; ``(None, bags, 0)`` past
    :data:`~xrr_accessor.kernels.item_sums.MOST_PATTERNS` distinct patterns.

    Examples
    --------
    >>> pid, distinct, m = by_pattern(np.array([0x200, 0, 0x101, 0x200], np.uint64))
    >>> pid.tolist(), distinct.tolist(), m
    ([1, 0, 2, 1], [0, 512, 257], 3)
    """
    pid = blocks(1, len(bags))[0]
    distinct = np.empty(MOST_PATTERNS + 1, dtype=np.uint64)
    used, m = bag_patterns(bags, pid, distinct)
    return (None, bags, 0) if used < 0 else (pid, distinct[:used], m)


def count_patterns(read_: Read, codes: np.ndarray, k: int, n_group: int) -> np.ndarray | None:
    """Each group's count pattern (:func:`~xrr_accessor.kernels.item_sums.group_bags_into`:
    one pass over the annotations in their order, no grouping), or None where a
    pattern cannot hold the counts (more than PACKED_CATEGORIES categories, a group
    of 255 rows or more): then the groups are read through the grouping."""
    if k > PACKED_CATEGORIES:
        return None
    ann = read_.ann
    bags = blocks(1, n_group)[0].view(np.uint64)
    most = group_bags_into(ann.item, ann.replication, codes, len(ann.replications), bags)
    return bags if most < 255 else None


def records(n_group: int) -> tuple[np.ndarray, np.ndarray]:
    """(ints (4, G), floats (4, G)): per group n, mode, mode count, modes tied and D
    (or its sum over pairs), lo, hi, mean, in one huge-page-aligned block
    (:func:`._common.blocks`)."""
    both = blocks(8, n_group)
    return both[:4], both[4:].view(np.float64)
