"""Janson & Olsson's iota (Eq 1-5 of Wong et al. 2021) and Cohen's kappa.

For b raters and n items, every rater rating every item:
d_o = [n C(b,2)]^-1 sum_{r<s} sum_i D(x_ri, x_si),
d_e = [n^2 C(b,2)]^-1 sum_{r<s} sum_i sum_j D(x_ri, x_sj).
With b = 2 and nominal data this is Cohen's (1960) kappa; with b > 2 and
nominal data it is Conger's (1980) kappa. Interval level: squared
differences (Janson & Olsson 2001); with b = 2 that is quadratic-weighted
kappa when categories are the integers 0..K-1.

The items rated by every rater are the stratum m = b of the statistics: b,
the raters of the replication, is known only once every item has been seen,
so the statistics keep every stratum and finalize picks one.
"""

from __future__ import annotations

import numpy as np

from ..engine.additive import Stats
from ..errors import InputError
from .base import Context, Estimates, one_minus_ratio, rounded_counts
from .sums import rater_totals, same_rater_sums, within_sums

__all__ = ["complete_strata", "iota"]

CITATION = (
    "Janson & Olsson (2001), A measure of agreement for interval or nominal "
    "multivariate observations; Cohen (1960); Conger (1980)"
)


def complete_strata(stats: Stats) -> tuple[np.ndarray, np.ndarray]:
    """(b (L, R) raters present, sel (L, R, S) the stratum m = b where b >= 2)."""
    b = (rater_totals(stats) > 0).sum(axis=-1)
    m_hist = stats["m_hist"]
    strata = np.arange(m_hist.shape[-1])
    sel = (strata == b[..., None]) & (b[..., None] >= 2)
    return b, sel


def iota(stats: Stats, ctx: Context, exactly_two: bool = False) -> Estimates:
    """Iota per (label, replication); Cohen's kappa when ``exactly_two``.

    The raters of a replication are those with at least one annotation of the
    label there. The definition needs every rater on every item, so items
    missing a rating are left out (listwise deletion, as R's irr does): those
    with a single annotation are counted in ``n_unpairable`` (they have no
    pair, as in alpha), those with two or more in ``n_dropped``.
    """
    b, complete = complete_strata(stats)
    if exactly_two and (b > 2).any():
        lab, r = np.argwhere(b > 2)[0]
        present = np.flatnonzero(rater_totals(stats)[lab, r] > 0)
        names = list(ctx.raters[present[:5]])
        raise InputError(
            f"Cohen's kappa compares exactly 2 raters, but {ctx.where(lab, r)} has {b[lab, r]} "
            f"raters ({', '.join(map(repr, names))}{', ...' if b[lab, r] > 5 else ''}). "
            "Use metric='iota' (Conger's kappa for nominal data) or metric='alpha', or "
            "select two raters."
        )
    m_hist = stats["m_hist"]
    strata = np.arange(m_hist.shape[-1])
    n = (m_hist * complete).sum(axis=-1)
    partial = (strata >= 2) & (strata < b[..., None])
    est = Estimates(
        np.full(b.shape, np.nan),
        counts={
            "n_items": rounded_counts(n),
            "n_raters": b.astype(np.int64),
            # one annotation: nothing to pair, as in alpha; 2..b-1: pairs thrown away
            "n_unpairable": rounded_counts(m_hist[..., 1]),
            "n_dropped": rounded_counts((m_hist * partial).sum(axis=-1)),
        },
    )
    est.undefined(b < 2, "fewer than two raters")
    est.undefined(est.counts["n_items"] == 0, "no item is rated by every rater (iota and "
                  "Cohen's kappa need complete data; use metric='alpha' for missing data)")
    sums = within_sums(stats, ctx, complete)
    # sum_i sum_{r<s} D = (b - 1) / 2 * observed (each item weighted 1 / (b - 1));
    # sum_{r<s} N_r D N_s = (T D T - sum_g N_g D N_g) / 2
    pair_sum = (b - 1) / 2.0 * sums.observed
    between_raters = (sums.expected - same_rater_sums(stats, ctx, complete, sums.marginals)) / 2.0
    one_minus_ratio(n * pair_sum, between_raters, est, _ONE_VALUE)
    return est


_ONE_VALUE = (
    "every rating has the same value, so there is no expected disagreement to compare with"
)
