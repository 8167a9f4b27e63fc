"""Two raters: the statistics pass as one contingency table per replication.

With two raters (Cohen's kappa, the most common case) an item holds at most
one category per rater in each replication, so everything the categorical
kernel of :mod:`.accumulate` sums over items is a function of one table:
``table[l, r, x + 1, y + 1]``, the (weighted) number of items whose first
rater said x and second said y in replication r (index 0: that rater gave
nothing). :func:`pair_table` fills it in one pass reading two codes per item
(no per-category loop, no second pass for the rater counts), and
:func:`expand` turns it into the same named arrays as the general kernel.
Counts of items are integers, so with unit weights both ways give identical
numbers; tests compare the two on every output.

The table holds everything only without cross-replication pairs and without
row multiplicities, and only when no item has two rows of one rater in one
replication; :func:`pair_table` reports the last case and the caller falls
back to the general kernel, as it does above :data:`MAX_CATEGORIES` (the
table has (K + 1)^2 cells; the general kernel's vector form has K).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MAX_CATEGORIES", "expand", "pair_table"]

#: Most categories for which the two-rater table is used.
MAX_CATEGORIES = 64


@njit(cache=True, nogil=True)
def pair_table(offsets: np.ndarray, order: np.ndarray, rep: np.ndarray, rater: np.ndarray,
               codes: np.ndarray, weight: np.ndarray, n_rep: int,
               n_cat: int) -> tuple[np.ndarray, bool]:  # pragma: no cover - compiled
    """(table (L, R, K + 1, K + 1), ok): ok is False when an item has two rows of
    one rater in one replication (the table is then incomplete)."""
    n_label = codes.shape[0]
    n_item = offsets.shape[0] - 1
    table = np.zeros((n_label, n_rep, n_cat + 1, n_cat + 1))
    code = np.zeros((2, n_rep), dtype=np.int64)  # category + 1, 0: nothing yet
    seen = np.zeros((2, n_rep), dtype=np.bool_)
    for lab in range(n_label):
        for i in range(n_item):
            w = weight[i]
            for j in range(offsets[i], offsets[i + 1]):
                row = j if order.shape[0] == 0 else order[j]
                g = rater[j]
                r = 0 if rep.shape[0] == 0 else rep[j]
                if seen[g, r]:
                    return table, False
                seen[g, r] = True
                code[g, r] = codes[lab, row] + 1
            for j in range(offsets[i], offsets[i + 1]):
                r = 0 if rep.shape[0] == 0 else rep[j]
                if seen[0, r] or seen[1, r]:
                    x, y = code[0, r], code[1, r]
                    if x + y > 0:
                        table[lab, r, x, y] += w
                    seen[0, r] = seen[1, r] = False
                    code[0, r] = code[1, r] = 0
    return table, True


def expand(table: np.ndarray, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    """The general kernel's outputs (``shapes``: :meth:`Meta.shapes`) from the table.

    Items with both raters are the stratum m = 2, items with one m = 1.
    """
    both = table[..., 1:, 1:]  # (L, R, K, K): first rater's category x second's
    first, second = table[..., 1:, 0], table[..., 0, 1:]  # the other rater gave nothing
    row, col = both.sum(axis=-1), both.sum(axis=-2)  # each rater's categories, m = 2
    n_both = both.sum(axis=(-2, -1))
    agree = np.diagonal(both, axis1=-2, axis2=-1)
    out = {k: np.zeros(s) for k, s in shapes.items()}

    def put(name: str, index: tuple, value: np.ndarray) -> None:
        if out[name].size:
            out[name][index] = value

    put("m_hist", (..., 1), first.sum(axis=-1) + second.sum(axis=-1))
    put("m_hist", (..., 2), n_both)
    put("pairable", (..., 2, slice(None)), row + col)  # n_c summed over the item's pair
    put("pair_diag", (..., 2, slice(None)), 2.0 * agree)  # n_c (n_c - 1) / (m - 1)
    put("pair_o", (..., 2, slice(None), slice(None)), both + np.swapaxes(both, -1, -2))
    put("pa_inv", (...,), n_both)  # 1 / (m - 1) = 1
    put("pa_diag", (...,), n_both + agree.sum(axis=-1))  # sum_c n_c^2 / m: 2 if agree, else 1
    if out["pa_mat"].size:  # n_c n_k / m summed: (e_x + e_y)(e_x + e_y)' / 2
        pa = both + np.swapaxes(both, -1, -2)
        k = np.arange(pa.shape[-1])
        pa[..., k, k] += row + col
        out["pa_mat"][...] = pa / 2.0
    put("shares", (...,), first + second + (row + col) / 2.0)  # n_c / m
    put("strata_rater", (..., 1, 0, slice(None)), first)
    put("strata_rater", (..., 1, 1, slice(None)), second)
    put("strata_rater", (..., 2, 0, slice(None)), row)
    put("strata_rater", (..., 2, 1, slice(None)), col)
    put("joint", (..., 0, 1, slice(None), slice(None)), both)
    return out
