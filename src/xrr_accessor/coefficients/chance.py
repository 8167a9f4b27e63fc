"""Percent agreement and the chance-corrected family, in Gwet's unified form.

For one replication: r_ik raters put item i in category k, r_i = sum_k r_ik,
W the agreement weights (identity when unweighted), q the label's categories.

* percent agreement p_a = mean over items with r_i >= 2 of
  (r_i' W r_i - r_i) / (r_i (r_i - 1)), the share of agreeing rater pairs;
* every coefficient is (p_a - p_e) / (1 - p_e) with chance agreement p_e:

  - ``fleiss``: sum_kl w_kl pi_k pi_l, pi_k the mean over items (r_i >= 1) of
    r_ik / r_i (Fleiss 1971; for varying raters per item, Gwet's form);
  - ``scott``: the same with pi_k the pooled share of category k among the
    values of items with r_i >= 2 (Scott 1955; equal to Fleiss when every item
    has the same number of ratings);
  - ``conger``: sum_kl w_kl (pbar_k pbar_l - s_kl / b), from each rater's own
    classification shares p_gk, their mean pbar and covariance s (Conger 1980);
  - ``bp``: sum_kl w_kl / q^2 (Brennan & Prediger 1981);
  - ``gwet``: sum_kl w_kl / (q (q - 1)) * sum_k pi_k (1 - pi_k) (Gwet 2008: AC1
    unweighted, AC2 weighted).

Every term is a ratio of additive statistics: p_a from sum_i r_ik r_il /
(r_i (r_i - 1)) and sum_i 1 / (r_i - 1), pi from sum_i r_ik / r_i, Conger's
shares from each rater's category counts. Unweighted, only the diagonal is
kept (any number of categories). References: Gwet, *Handbook of Inter-Rater
Reliability* (4th ed.), chapters 2-5; the irrCAC package implements the same
formulas.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..engine.additive import Stats
from .base import Context, Estimates, chance_defined, chance_kappa, rounded_counts
from .sums import rater_totals

__all__ = ["CHANCE", "Cell", "Chance", "RaterCounts", "brennan_prediger", "chance_corrected",
           "chance_terms", "conger", "fleiss", "gwet", "no_chance", "scott",
           "unused_categories"]

#: Coefficients of the (p_a - p_e) / (1 - p_e) family, by metric name (the registry's
#: entries carry their chance term; this tuple only orders documentation).
CHANCE = ("percent", "scott", "fleiss", "conger", "bp", "gwet")


def _quad(a: np.ndarray, w: np.ndarray | None, b: np.ndarray) -> float:
    """a' W b (W = identity when None)."""
    return float(a @ b) if w is None else float(a @ w @ b)


def _total(w: np.ndarray | None, k: int) -> float:
    """Sum of the weights (k for the identity)."""
    return float(k) if w is None else float(w.sum())


class RaterCounts:
    """Each rater's category counts, ``counts`` (L, R, B, K), and who annotated,
    ``present`` (L, R, B), for every (label, replication) of one :class:`Stats`: summed
    once, when a chance term first asks (Conger's), and shared by every :class:`Cell`.
    Summed per cell, they made :func:`chance_terms` quadratic in the labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor.coefficients import lookup
    >>> from xrr_accessor.engine.pipeline import run
    >>> df = pd.DataFrame({"A": ["x", "y", "x"], "B": ["x", "y", "y"]})
    >>> raters = RaterCounts(run(df, [lookup("conger")], wide=True).stats)
    >>> raters.counts[0, 0].tolist(), raters.present[0, 0].tolist()
    ([[2.0, 1.0], [1.0, 2.0]], [True, True])
    """

    def __init__(self, stats: Stats) -> None:
        self.stats = stats

    @cached_property
    def counts(self) -> np.ndarray:
        """(L, R, B, K): each rater's annotations per category, over the strata."""
        return np.asarray(self.stats["strata_rater"].sum(axis=2))

    @cached_property
    def present(self) -> np.ndarray:
        """(L, R, B): the raters with an annotation there (:func:`.sums.rater_totals`)."""
        return np.asarray(rater_totals(self.stats) > 0)


@dataclass(frozen=True)
class Cell:
    """What a chance term reads for one (label, replication): the statistics, the
    weights ``w`` (None: identity), the ``k`` categories in use, the mean
    per-item category shares ``pi`` and the raters' counts of every cell (``raters``)."""

    stats: Stats
    lab: int
    r: int
    w: np.ndarray | None
    k: int
    pi: np.ndarray
    raters: RaterCounts


#: A chance term: p_e of one cell (NaN where it is undefined).
Chance = Callable[[Cell], float]


def no_chance(cell: Cell) -> float:
    """Percent agreement: no chance correction (p_e is not defined; reported NaN)."""
    return np.nan


def fleiss(cell: Cell) -> float:
    """Fleiss: sum_kl w_kl pi_k pi_l."""
    return _quad(cell.pi, cell.w, cell.pi)


def scott(cell: Cell) -> float:
    """Scott: the pooled category shares of pairable values."""
    pooled = cell.stats["pairable"][cell.lab, cell.r, 2:, :cell.k].sum(axis=0)
    total = pooled.sum()
    share = pooled / total if total > 0 else np.full(cell.k, np.nan)
    return _quad(share, cell.w, share)


def brennan_prediger(cell: Cell) -> float:
    """Brennan-Prediger: sum_kl w_kl / q^2."""
    return _total(cell.w, cell.k) / cell.k**2 if cell.k else 1.0


def gwet(cell: Cell) -> float:
    """Gwet's AC1/AC2: T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)."""
    k = cell.k
    return (_total(cell.w, k) / (k * (k - 1)) * (cell.pi * (1 - cell.pi)).sum()
            if k > 1 else 1.0)


def conger(cell: Cell) -> float:
    """Conger: from each rater's own category shares (NaN with fewer than two raters)."""
    per_rater = cell.raters.counts[cell.lab, cell.r]
    present = cell.raters.present[cell.lab, cell.r]
    g = per_rater[present][:, :cell.k]
    b = len(g)
    if b < 2:
        return np.nan
    p = g / g.sum(axis=1, keepdims=True)
    mean = p.mean(axis=0)
    if cell.w is None:
        var = ((p**2).sum(axis=0) - b * mean**2) / (b - 1)
        return float((mean**2 - var / b).sum())
    cov = (p.T @ p - b * np.outer(mean, mean)) / (b - 1)
    return float((cell.w * (np.outer(mean, mean) - cov / b)).sum())


#: A replication using at most this share of its label's categories, while others use
#: the rest, looks like it rates on a scale of its own (see :func:`unused_categories`).
USED_MAX = 0.5


def unused_categories(stats: Stats, ctx: Context) -> list[tuple[int, int, int, int]]:
    """(label, replication, categories it uses, q) where a replication uses at most
    :data:`USED_MAX` of its label's q categories and two or more of the others are
    used by other replications: q counts categories of another scale, so a
    coefficient that counts them (Gwet, Brennan-Prediger) is not the replication's own.
    """
    if "shares" not in stats:
        return []
    out = []
    for lab, k in enumerate(ctx.meta.n_categories):
        shares = stats["shares"][lab, :, :k] > 0  # (R, K) categories each replication uses
        for r in range(shares.shape[0]):
            used = int(shares[r].sum())
            elsewhere = int((shares.any(axis=0) & ~shares[r]).sum())
            if 0 < used <= USED_MAX * k and elsewhere >= 2:
                out.append((lab, r, used, k))
    return out


def chance_terms(stats: Stats, ctx: Context, chance: Chance
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(p_a, p_e) per (label, replication); NaN where undefined."""
    m_hist = stats["m_hist"]
    shape = m_hist.shape[:2]
    n1 = m_hist[..., 1:].sum(axis=-1)
    n2 = m_hist[..., 2:].sum(axis=-1)
    pa = np.full(shape, np.nan)
    pe = np.full(shape, np.nan)
    raters = RaterCounts(stats)
    for lab, r in np.ndindex(shape):
        k = ctx.meta.n_categories[lab]
        w = ctx.weights(lab)
        if n2[lab, r] > 0:
            agree = (stats["pa_diag"][lab, r] if w is None
                     else float((w * stats["pa_mat"][lab, r, :k, :k]).sum()))
            pa[lab, r] = (agree - stats["pa_inv"][lab, r]) / n2[lab, r]
        pi = stats["shares"][lab, r, :k] / n1[lab, r] if n1[lab, r] > 0 else np.zeros(k)
        pe[lab, r] = chance(Cell(stats, lab, r, w, k, pi, raters))
    return pa, pe


def chance_corrected(stats: Stats, ctx: Context, chance: Chance,
                     undefined_chance: str = "") -> Estimates:
    """Percent agreement (``chance=no_chance``) or a chance-corrected coefficient per
    (label, replication); ``undefined_chance`` says why where ``chance`` gives NaN."""
    m_hist = stats["m_hist"]
    pa, pe = chance_terms(stats, ctx, chance)
    est = Estimates(np.full(pa.shape, np.nan), counts={
        "n_items": rounded_counts(m_hist[..., 2:].sum(axis=-1)),
        "n_unpairable": rounded_counts(m_hist[..., 1]),
    }, extras={"pa": pa, "pe": pe})
    est.undefined(est.counts["n_items"] == 0,
                  "no item has two or more ratings (nothing to pair)")
    if chance is no_chance:
        est.value[...] = np.where(est.reason == "", pa, np.nan)
        return est
    est.value[...] = np.where(est.reason == "", chance_kappa(pa, pe), np.nan)
    if undefined_chance:
        est.undefined(~np.isfinite(pe) & np.isfinite(pa), undefined_chance)
    est.undefined(~chance_defined(pe) & (est.reason == ""), "chance agreement is 1 (a "
                  "single category in use, or weights that make every pair agree)")
    return est
