"""Krippendorff's alpha of each replication: the framework's default IRR.

alpha = 1 - (n.. - 1) sum_ck o_ck D_ck / sum_ck n_c n_k D_ck over pairable
values (items with at least two annotations in the replication); see
docs/definitions.md (Coefficients) and Krippendorff (2011), *Computing
Krippendorff's Alpha-Reliability*.
"""

from __future__ import annotations

import math

import numpy as np

from ..engine.additive import Stats
from .base import ROUNDING, Context, Estimates, one_minus_ratio, rounded_counts
from .sums import WithinSums, within_sums

__all__ = ["alpha", "alpha_of"]

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
    one = _one_cell(m_hist, sums) if m_hist.shape[:2] == (1, 1) else None
    if one is not None:  # one label, one replication: in Python floats
        return one
    est = Estimates(
        np.full(m_hist.shape[:2], np.nan),
        counts={
            "n_items": rounded_counts(m_hist[..., 2:].sum(axis=-1)),
            "n_unpairable": rounded_counts(m_hist[..., 1]),
            "n_values": rounded_counts(sums.n_values),
        },
    )
    est.undefined(est.counts["n_items"] == 0, _NOTHING_PAIRED)
    return alpha_of(sums, est)


def alpha_of(sums: WithinSums, est: Estimates | None = None) -> Estimates:
    """alpha = 1 - (n - 1) d_o / d_e from its sums, the one finalize of every alpha:
    the registry's and the pool's with and without each rater
    (:mod:`~..diagnostics.raters`). ``est`` (its value overwritten) keeps earlier
    reasons.

    Examples
    --------
    >>> from xrr_accessor.coefficients.sums import within_counts
    >>> t = np.array([[2.0, 2.0]])  # two items, each annotated (0, 1): all disagree
    >>> alpha_of(within_counts(t, np.array([4.0]))).value.tolist()
    [-0.5]
    """
    if est is None:
        est = Estimates(np.full(np.shape(sums.observed), np.nan))
    one_minus_ratio((sums.n_values - 1) * sums.observed, sums.expected, est, _ONE_VALUE,
                    sums.scale)
    return est


def _one_cell(m_hist: np.ndarray, sums: WithinSums) -> Estimates | None:
    """:func:`alpha` of one label in one replication: the same operations on the one
    value of each sum, as Python floats (IEEE doubles, as numpy's; counts rounded half
    to even, as ``np.rint``), without the dozens of numpy calls on 1 x 1 arrays the
    general way makes: the same value, counts and reason. None (take the general way)
    for a sum that is not a finite number."""
    h = m_hist[0, 0]
    items, unpairable = float(h[2:].sum()), float(h[1])  # as m_hist[..., 2:].sum(-1)
    n, observed, expected = (float(sums.n_values[0, 0]), float(sums.observed[0, 0]),
                             float(sums.expected[0, 0]))
    scale = 0.0 if sums.scale is None else float(sums.scale[0, 0])
    if not all(map(math.isfinite, (items, unpairable, n, observed, expected, scale))):
        return None
    n_items = round(items)
    limit = 0.0 if sums.scale is None else ROUNDING * abs(scale)  # as defined()
    reason = ""
    if n_items == 0:
        reason = _NOTHING_PAIRED
    elif not expected > limit:
        reason = _ONE_VALUE
    value = np.nan if reason else 1.0 - (n - 1) * observed / expected
    counts = {"n_items": n_items, "n_unpairable": round(unpairable), "n_values": round(n)}
    return Estimates(np.array([[value]]),
                     counts={k: np.array([[v]], dtype=np.int64) for k, v in counts.items()},
                     reason=np.array([[reason]], dtype=object))


_NOTHING_PAIRED = "no item has two or more annotations (nothing to pair)"

_ONE_VALUE = (
    "every pairable annotation has the same value, so there is no expected "
    "disagreement to compare with"
)
