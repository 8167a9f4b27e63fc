"""Weighted sums of per-unit statistics by group, for many weight columns in one pass.

Validity on numbers (:mod:`xrr_accessor.diagnostics.validity_numbers`) reduces each
unit (an annotation against its item's gold, or an item's mean against it) to a
row of statistics ``f`` (count, |error|, error^2 and the moments of both sides);
a bootstrap replicate weights each unit by its item's weight. One pass over the
units adds every replicate's sums: O(units x replicates), no pass per replicate.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["weighted_group_sums"]


@njit(cache=True, nogil=True)
def weighted_group_sums(group: np.ndarray, item: np.ndarray, f: np.ndarray,
                        w: np.ndarray, n_groups: int) -> np.ndarray:  # pragma: no cover
    """Sums (C, n_groups, S): ``out[c, g, s]`` = sum over units u of group g of
    ``w[item[u], c] * f[u, s]`` (``w`` (items, C), ``f`` (units, S))."""
    n_cols, n_stats = w.shape[1], f.shape[1]
    out = np.zeros((n_cols, n_groups, n_stats))
    for u in range(group.shape[0]):
        g, i = group[u], item[u]
        for c in range(n_cols):
            wc = w[i, c]
            if wc != 0.0:
                for s in range(n_stats):
                    out[c, g, s] += wc * f[u, s]
    return out
