"""Krippendorff's alpha of each replication: the framework's default IRR.

alpha = 1 - (n.. - 1) sum_ck o_ck D_ck / sum_ck n_c n_k D_ck over pairable
values (items with at least two annotations in the replication); see
docs/definitions.md (Coefficients) and Krippendorff (2011), *Computing
Krippendorff's Alpha-Reliability*.
"""

from __future__ import annotations

import numpy as np

from ..engine.additive import Stats
from .base import Context, Estimates, one_minus_ratio, rounded_counts
from .sums import within_sums

__all__ = ["alpha"]

CITATION = "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability"


def pairable_strata(stats: Stats) -> np.ndarray:
    """(L, R, S): the strata of items with two or more annotations."""
    m_hist = stats["m_hist"]
    sel = np.zeros(m_hist.shape, dtype=bool)
    sel[..., 2:] = True
    return sel


def alpha(stats: Stats, ctx: Context) -> Estimates:
    """Alpha per (label, replication) from the statistics.

    Items with a single annotation in a replication are unpairable there:
    left out, and counted in ``n_unpairable``.
    """
    m_hist = stats["m_hist"]
    sums = within_sums(stats, ctx, pairable_strata(stats))
    est = Estimates(
        np.full(m_hist.shape[:2], np.nan),
        counts={
            "n_items": rounded_counts(m_hist[..., 2:].sum(axis=-1)),
            "n_unpairable": rounded_counts(m_hist[..., 1]),
            "n_values": rounded_counts(sums.n_values),
        },
    )
    est.undefined(
        est.counts["n_items"] == 0, "no item has two or more annotations (nothing to pair)"
    )
    one_minus_ratio((sums.n_values - 1) * sums.observed, sums.expected, est, _ONE_VALUE,
                    sums.scale)
    return est


_ONE_VALUE = (
    "every pairable annotation has the same value, so there is no expected "
    "disagreement to compare with"
)
