"""Krippendorff's alpha of each replication: the framework's default IRR.

alpha = 1 - (n.. - 1) sum_ck o_ck D_ck / sum_ck n_c n_k D_ck over pairable
values (items with at least two annotations in the replication); see SPEC
section 3 and Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*.
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from .base import Estimates, ItemStats, one_minus_ratio

__all__ = ["alpha"]

CITATION = "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability"


def alpha(stats: ItemStats) -> Estimates:
    """Alpha per (label, replication) from per-item statistics.

    Items with a single annotation in a replication are unpairable there:
    left out, and counted in ``n_unpairable``.
    """
    m = stats.per_item_n
    mask = m >= 2
    n_label, n_rep = m.shape[:2]
    est = Estimates(
        np.full((n_label, n_rep), np.nan),
        counts={
            "n_items": mask.sum(axis=-1),
            "n_unpairable": (m == 1).sum(axis=-1),
            "n_values": np.where(mask, m, 0).sum(axis=-1).astype(np.int64),
        },
    )
    est.undefined(
        est.counts["n_items"] == 0, "no item has two or more annotations (nothing to pair)"
    )
    if stats.moments is not None:
        s = kernels.within_moments(stats.moments, mask)
        n = s[..., 1]
        mean_sq = np.divide(s[..., 2] ** 2, n, where=n > 0, out=np.zeros_like(n))
        ss = np.maximum(s[..., 3] - mean_sq, 0)
        one_minus_ratio((n - 1) * s[..., 0], 2.0 * n * ss, est, _ONE_VALUE)
        return est
    o = kernels.within_coincidence(stats.counts, mask)
    num = np.zeros((n_label, n_rep))
    den = np.zeros((n_label, n_rep))
    for lab in range(n_label):
        for r in range(n_rep):
            nc = o[lab, r].sum(axis=1)
            if nc.sum() < 2:
                continue
            d = stats.distance(lab, nc)
            k = d.shape[0]
            num[lab, r] = (nc.sum() - 1) * (o[lab, r, :k, :k] * d).sum()
            den[lab, r] = nc[:k] @ d @ nc[:k]
    one_minus_ratio(num, den, est, _ONE_VALUE)
    return est


_ONE_VALUE = (
    "every pairable annotation has the same value, so there is no expected "
    "disagreement to compare with"
)
