"""Cross-replication kappa, kappa_x (Wong, Paritosh & Aroyo 2021, Eq 6-11).

d_o = sum_i (R_i + S_i) / (R + S) * sum_r sum_s D(x_ri, y_si) / (R_i S_i)
d_e = (R S)^-1 sum_i sum_j sum_r sum_s D(x_ri, y_sj)
kappa_x = 1 - d_o / d_e, over the items annotated in both replications.
"""

from __future__ import annotations

import numpy as np

from ..engine.additive import Stats
from .base import Context, Estimates, one_minus_ratio, rounded_counts
from .sums import CrossSums, cross_sums, sum_of_squares

__all__ = ["SHARED_MIN", "SPREAD_RATIO", "cross_kappa", "kappa_x_of", "scale_gaps"]

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
        counts={"n_items": rounded_counts(sums.used),
                "n_unpairable": rounded_counts(sums.unpaired)},
    )
    est.undefined(est.counts["n_items"] == 0, "no item is annotated in both replications")
    return kappa_x_of(sums, est)


def kappa_x_of(sums: CrossSums, est: Estimates | None = None) -> Estimates:
    """kappa_x = 1 - d_o / d_e from its sums, the one finalize of every kappa_x:
    the registry's, each rater against the rest (:mod:`~..diagnostics.raters`) and a
    rater's two sessions (:mod:`~..diagnostics.intra`) build :class:`~.sums.CrossSums`
    their own way and end here. ``est`` (its value overwritten) keeps earlier reasons.

    Examples
    --------
    >>> from xrr_accessor.coefficients.sums import cross_counts
    >>> x, y = np.array([[2.0, 0.0]]), np.array([[1.0, 1.0]])  # marginals of each side
    >>> sums = cross_counts(x, y, np.ones(1), np.zeros(1), observed=np.array([2.0]))
    >>> kappa_x_of(sums).value.tolist()  # d_o = 2 / 4, d_e = 2 / 4
    [0.0]
    """
    if est is None:
        est = Estimates(np.full(sums.used.shape, np.nan))
    total = sums.r + sums.s
    with np.errstate(divide="ignore", invalid="ignore"):
        d_o = np.where(total > 0, sums.observed / total, 0.0)
        d_e = np.where(total > 0, sums.expected / (sums.r * sums.s), 0.0)
        scale = None if sums.scale is None else np.where(
            total > 0, sums.scale / (sums.r * sums.s), 0.0)
    one_minus_ratio(d_o, d_e, est, _ONE_VALUE, scale)
    return est


#: Below this share of a replication's paired annotations taking values the other
#: replication uses too, the two look like different scales (kappa_x warns).
SHARED_MIN = 0.5

#: Interval data: standard deviations this many times apart look like different units.
SPREAD_RATIO = 5.0


def scale_gaps(stats: Stats, ctx: Context) -> list[tuple[int, int, str]]:
    """(label, pair, what) where the two replications of a pair look like different
    scales; ``what`` names the sides ``{x}`` and ``{y}`` (filled in by the caller).

    Categories: a side whose paired annotations mostly (over 1 - SHARED_MIN)
    take values the other side never uses, two or more of them (a 0-100 scale
    against a 1-3 one, "pos" against "positive"). Interval data: standard
    deviations SPREAD_RATIO or more times apart.
    """
    if "cross_used" not in stats:
        return []
    out = []
    if ctx.meta.form == "moments":
        m = stats["cross_mom"]
        # count, sum, sum of squares: x at 1, 3, 4; y at 2, 5, 6
        var = [sum_of_squares(m[..., n], m[..., s1], m[..., s2]) / np.maximum(m[..., n], 1.0)
               for n, s1, s2 in ((1, 3, 4), (2, 5, 6))]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.sqrt(var[0] / var[1])
        for lab, p in np.argwhere((ratio >= SPREAD_RATIO) | (ratio <= 1 / SPREAD_RATIO)):
            r = ratio[lab, p]
            out.append((int(lab), int(p), f"the standard deviation of {{x}} is {r:.3g} times "
                        "that of {y}"))
        return out
    x, y = stats["cross_x"], stats["cross_y"]
    for a, b, names in ((x, y, ("{x}", "{y}")), (y, x, ("{y}", "{x}"))):
        total = a.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(total > 0, (a * (b > 0)).sum(axis=-1) / total, 1.0)
        only = ((a > 0) & ~(b > 0)).sum(axis=-1)
        for lab, p in np.argwhere((share < SHARED_MIN) & (only >= 2)):
            out.append((int(lab), int(p), (
                f"{1 - share[lab, p]:.0%} of {names[0]}'s paired annotations take "
                f"{only[lab, p]} values {names[1]} never uses ({names[0]} uses "
                f"{int((a[lab, p] > 0).sum())})")))
    return out


_ONE_VALUE = (
    "the paired annotations of both replications all have one value, so there is "
    "no expected disagreement to compare with"
)
