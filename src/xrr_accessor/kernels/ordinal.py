"""Krippendorff's ordinal disagreement summed over K x K tables, one table per row,
without forming the rows' K x K distance matrices."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

__all__ = ["ordinal_sums"]

_JIT: dict[str, Any] = {"cache": True, "nogil": True, "fastmath": False}


@njit(**_JIT)
def ordinal_sums(joint: np.ndarray, x: np.ndarray, y: np.ndarray, marginals: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per row r: (sum_ab joint[r, a, b] D_r(a, b), sum_ab x[r, a] D_r(a, b) y[r, b]), with
    D_r(a, b) = (sum_{g=a..b} n_g - (n_a + n_b) / 2)^2 over the row's ``marginals`` n
    (:func:`~xrr_accessor.engine.levels.ordinal_matrices`).

    ``joint[r, a, b]`` must be 0 unless ``x[r, a]`` and ``y[r, b]`` are not (it counts
    pairs of an x value a with a y value b): only the categories each side uses are
    visited, O(rows x (K + used_x x used_y)) time, O(K) memory. ``joint`` (rows, K, K),
    the others (rows, K), all C-contiguous float64.
    """
    rows, k = x.shape
    observed = np.zeros(rows)
    expected = np.zeros(rows)
    cum = np.empty(k + 1)
    ix = np.empty(k, dtype=np.int64)
    iy = np.empty(k, dtype=np.int64)
    for r in range(rows):
        cum[0] = 0.0
        nx = 0
        ny = 0
        for c in range(k):
            cum[c + 1] = cum[c] + marginals[r, c]
            if x[r, c] != 0.0:
                ix[nx] = c
                nx += 1
            if y[r, c] != 0.0:
                iy[ny] = c
                ny += 1
        o = 0.0
        e = 0.0
        for u in range(nx):
            a = ix[u]
            for v in range(ny):
                b = iy[v]
                lo = min(a, b)
                hi = max(a, b)
                s = cum[hi + 1] - cum[lo] - (marginals[r, lo] + marginals[r, hi]) / 2.0
                d = s * s
                o += joint[r, a, b] * d
                e += x[r, a] * y[r, b] * d
        observed[r] = o
        expected[r] = e
    return observed, expected
