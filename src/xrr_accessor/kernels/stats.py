"""Dense per-item category counts, for the second pass of analytic variances.

Shapes: ``L`` labels, ``R`` replications, ``G`` groups (items), ``K``
categories, ``N`` annotations. Codes are int64 with ``-1`` for missing;
counts are int64. The statistics of every coefficient come from
:mod:`.accumulate` instead (no n x K table); only Gwet's pseudo-values, which
need each item's counts against the global estimate, build this table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_JIT)
def grouped_counts(
    group: np.ndarray, item: np.ndarray, replication: np.ndarray, codes: np.ndarray,
    mask: np.ndarray, n_group: int, n_category: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Category counts per (label, replication, group, category), and their totals.

    Returns (counts (L, R, G, K), totals (L, R, G)), both int64. ``group`` is
    the item code (per-item statistics) or the rater code (per-rater
    marginals); only annotations whose (label, replication, item) is in
    ``mask`` (L, R, n) count.
    """
    n_label, n_ann = codes.shape
    n_rep = mask.shape[1]
    out = np.zeros((n_label, n_rep, n_group, n_category), dtype=np.int64)
    totals = np.zeros((n_label, n_rep, n_group), dtype=np.int64)
    for lab in range(n_label):
        for a in range(n_ann):
            c = codes[lab, a]
            r = replication[a]
            if c >= 0 and mask[lab, r, item[a]]:
                g = group[a]
                out[lab, r, g, c] += 1
                totals[lab, r, g] += 1
    return out, totals
