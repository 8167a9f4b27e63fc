"""Cross-replication kappa, kappa_x (Wong, Paritosh & Aroyo 2021, Eq 6-11).

d_o = sum_i (R_i + S_i) / (R + S) * sum_r sum_s D(x_ri, y_si) / (R_i S_i)
d_e = (R S)^-1 sum_i sum_j sum_r sum_s D(x_ri, y_sj)
kappa_x = 1 - d_o / d_e, over the items annotated in both replications.
"""

from __future__ import annotations

import numpy as np

from ..statistics import Stats
from .base import Context, Estimates, counts, one_minus_ratio
from .sums import cross_sums

__all__ = ["cross_kappa"]

CITATION = "Wong, Paritosh & Aroyo (2021), Cross-replication Reliability, ACL, Eq 9-11"


def cross_kappa(stats: Stats, ctx: Context) -> Estimates:
    """kappa_x per (label, pair) for the replication pairs of the call.

    Items annotated in only one replication of a pair cannot be paired: they
    are left out of both d_o and d_e and counted in ``n_unpairable``. For the
    ordinal level the rank metric uses the pooled marginals of both
    replications' pairable values.
    """
    sums = cross_sums(stats, ctx)
    est = Estimates(
        np.full(sums.used.shape, np.nan),
        counts={"n_items": counts(sums.used), "n_unpairable": counts(sums.unpaired)},
    )
    est.undefined(est.counts["n_items"] == 0, "no item is annotated in both replications")
    total = sums.r + sums.s
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = np.where(total > 0, sums.observed / total, 0.0)
        d_e = np.where(total > 0, sums.expected / (sums.r * sums.s), 0.0)
    one_minus_ratio(d_o, d_e, est, _ONE_VALUE)
    return est


_ONE_VALUE = (
    "the paired annotations of both replications all have one value, so there is "
    "no expected disagreement to compare with"
)
