"""Krippendorff's alpha of each replication: the framework's default IRR.

alpha = 1 - (n.. - 1) sum_ck o_ck D_ck / sum_ck n_c n_k D_ck over pairable
values (items with at least two annotations in the replication); see SPEC
section 3 and Krippendorff (2011), *Computing Krippendorff's Alpha-Reliability*.
"""

from __future__ import annotations

import numpy as np

from .base import Estimates, ItemStats, one_minus_ratio
from .sums import within_sums

__all__ = ["alpha"]

CITATION = "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability"


def alpha(stats: ItemStats) -> Estimates:
    """Alpha per (label, replication) from per-item statistics.

    Items with a single annotation in a replication are unpairable there:
    left out, and counted in ``n_unpairable``.
    """
    m = stats.item_n
    mask = m >= 2
    sums = within_sums(stats, mask)
    est = Estimates(
        np.full(m.shape[:2], np.nan),
        counts={
            "n_items": mask.sum(axis=-1),
            "n_unpairable": (m == 1).sum(axis=-1),
            "n_values": np.rint(sums.n_values).astype(np.int64),
        },
    )
    est.undefined(
        est.counts["n_items"] == 0, "no item has two or more annotations (nothing to pair)"
    )
    one_minus_ratio((sums.n_values - 1) * sums.observed, sums.expected, est, _ONE_VALUE)
    return est


_ONE_VALUE = (
    "every pairable annotation has the same value, so there is no expected "
    "disagreement to compare with"
)
