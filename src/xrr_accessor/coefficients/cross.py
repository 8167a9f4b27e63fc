"""Cross-replication kappa, kappa_x (Wong, Paritosh & Aroyo 2021, Eq 6-11).

d_o = sum_i (R_i + S_i) / (R + S) * sum_r sum_s D(x_ri, y_si) / (R_i S_i)
d_e = (R S)^-1 sum_i sum_j sum_r sum_s D(x_ri, y_sj)
kappa_x = 1 - d_o / d_e, over the items annotated in both replications.
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from .base import Estimates, ItemStats, one_minus_ratio

__all__ = ["cross_kappa"]

CITATION = "Wong, Paritosh & Aroyo (2021), Cross-replication Reliability, ACL, Eq 9-11"


def cross_kappa(stats: ItemStats, pairs: np.ndarray) -> Estimates:
    """kappa_x per (label, pair) for replication pairs ``pairs`` (P, 2).

    Items annotated in only one replication of a pair cannot be paired: they
    are left out of both d_o and d_e and counted in ``n_unpairable``. For the
    ordinal level the rank metric uses the pooled marginals of both
    replications' pairable values.
    """
    pairs = np.ascontiguousarray(pairs, dtype=np.int64)
    n_label = len(stats.ann.labels)
    if stats.moments is not None:
        s, used, unpaired = kernels.cross_moments(stats.moments, pairs)
        est = _estimates(n_label, pairs, used, unpaired)
        r, sy = s[..., 1], s[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            ssx = np.maximum(s[..., 4] - s[..., 3] ** 2 / r, 0)
            ssy = np.maximum(s[..., 6] - s[..., 5] ** 2 / sy, 0)
            dm = s[..., 3] / r - s[..., 5] / sy
            expected = (r * sy * dm**2 + sy * ssx + r * ssy) / (r * sy)
            observed = s[..., 0] / (r + sy)
        one_minus_ratio(np.nan_to_num(observed), np.nan_to_num(expected), est, _ONE_VALUE)
        return est
    cross, xm, ym, used, unpaired = kernels.cross_coincidence(stats.counts, pairs)
    est = _estimates(n_label, pairs, used, unpaired)
    num = np.zeros(est.value.shape)
    den = np.zeros(est.value.shape)
    for lab in range(n_label):
        for p in range(len(pairs)):
            x, y = xm[lab, p], ym[lab, p]
            r, sy = x.sum(), y.sum()
            if r == 0 or sy == 0:
                continue
            d = stats.distance(lab, x + y)
            k = d.shape[0]
            num[lab, p] = (cross[lab, p, :k, :k] * d).sum() / (r + sy)
            den[lab, p] = (x[:k] @ d @ y[:k]) / (r * sy)
    one_minus_ratio(num, den, est, _ONE_VALUE)
    return est


def _estimates(
    n_label: int, pairs: np.ndarray, used: np.ndarray, unpaired: np.ndarray
) -> Estimates:
    est = Estimates(
        np.full((n_label, len(pairs)), np.nan),
        counts={"n_items": used, "n_unpairable": unpaired},
    )
    est.undefined(used == 0, "no item is annotated in both replications")
    return est


_ONE_VALUE = (
    "the paired annotations of both replications all have one value, so there is "
    "no expected disagreement to compare with"
)
