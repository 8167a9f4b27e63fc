"""Whether a column's values vary within groups of rows, in one pass (label inference).

:func:`xrr_accessor.schema.labels.infer_labels` leaves out a column that holds one value
within every item (item metadata: a split, a domain) or within every rater. With the
reader's codes of the items and raters at hand, that is one pass over the rows per
column: no sort of the rows by group, no hashes of the ids (those are for merging the
evidence of dask partitions, which take the other way).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["varies_within"]


@njit(cache=True, nogil=True)
def varies_within(group: np.ndarray, n_group: int, values: np.ndarray) -> np.ndarray:
    """For each group ``0..n_group-1`` of rows (``group`` (N,) its codes), whether the
    rows' ``values`` (N,) codes (-1, a missing value, is a value of its own) differ.

    Examples
    --------
    >>> varies_within(np.array([0, 1, 0, 1]), 3, np.array([5, 2, 5, -1])).tolist()
    [False, True, False]
    """
    first = np.full(n_group, -2, dtype=np.int64)  # -2: no row yet
    out = np.zeros(n_group, dtype=np.bool_)
    for a in range(group.shape[0]):
        g = group[a]
        if first[g] == -2:
            first[g] = values[a]
        elif first[g] != values[a]:
            out[g] = True
    return out
