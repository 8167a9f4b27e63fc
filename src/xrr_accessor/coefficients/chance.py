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

import numpy as np

from ..engine.statistics import Stats
from .base import Context, Estimates, counts
from .sums import rater_totals

__all__ = ["CHANCE", "chance_corrected", "chance_terms"]

#: Coefficients of the (p_a - p_e) / (1 - p_e) family, by metric name.
CHANCE = ("percent", "scott", "fleiss", "conger", "bp", "gwet")


def _quad(a: np.ndarray, w: np.ndarray | None, b: np.ndarray) -> float:
    """a' W b (W = identity when None)."""
    return float(a @ b) if w is None else float(a @ w @ b)


def _total(w: np.ndarray | None, k: int) -> float:
    """Sum of the weights (k for the identity)."""
    return float(k) if w is None else float(w.sum())


def chance_terms(stats: Stats, ctx: Context, metric: str) -> tuple[np.ndarray, np.ndarray]:
    """(p_a, p_e) per (label, replication); NaN where undefined."""
    m_hist = stats["m_hist"]
    shape = m_hist.shape[:2]
    n1 = m_hist[..., 1:].sum(axis=-1)
    n2 = m_hist[..., 2:].sum(axis=-1)
    pa = np.full(shape, np.nan)
    pe = np.full(shape, np.nan)
    pooled = stats["pairable"][..., 2:, :].sum(axis=2) if metric == "scott" else None
    per_rater = stats["strata_rater"].sum(axis=2) if metric == "conger" else None
    present = rater_totals(stats) > 0 if metric == "conger" else None
    for lab, r in np.ndindex(shape):
        k = ctx.meta.n_categories[lab]
        w = ctx.weights(lab)
        if n2[lab, r] > 0:
            agree = (stats["pa_diag"][lab, r] if w is None
                     else float((w * stats["pa_mat"][lab, r, :k, :k]).sum()))
            pa[lab, r] = (agree - stats["pa_inv"][lab, r]) / n2[lab, r]
        pi = stats["shares"][lab, r, :k] / n1[lab, r] if n1[lab, r] > 0 else np.zeros(k)
        if metric == "percent":
            pe[lab, r] = 0.0
        elif metric == "fleiss":
            pe[lab, r] = _quad(pi, w, pi)
        elif metric == "scott":
            assert pooled is not None
            total = pooled[lab, r, :k].sum()
            share = pooled[lab, r, :k] / total if total > 0 else np.full(k, np.nan)
            pe[lab, r] = _quad(share, w, share)
        elif metric == "bp":
            pe[lab, r] = _total(w, k) / k**2 if k else 1.0
        elif metric == "gwet":
            pe[lab, r] = (_total(w, k) / (k * (k - 1)) * (pi * (1 - pi)).sum()
                          if k > 1 else 1.0)
        else:
            assert per_rater is not None and present is not None
            g = per_rater[lab, r][present[lab, r]][:, :k]
            b = len(g)
            if b < 2:
                continue
            p = g / g.sum(axis=1, keepdims=True)
            mean = p.mean(axis=0)
            if w is None:
                var = ((p**2).sum(axis=0) - b * mean**2) / (b - 1)
                pe[lab, r] = (mean**2 - var / b).sum()
            else:
                cov = (p.T @ p - b * np.outer(mean, mean)) / (b - 1)
                pe[lab, r] = (w * (np.outer(mean, mean) - cov / b)).sum()
    return pa, pe


def chance_corrected(stats: Stats, ctx: Context, metric: str) -> Estimates:
    """Percent agreement or a chance-corrected coefficient per (label, replication)."""
    m_hist = stats["m_hist"]
    pa, pe = chance_terms(stats, ctx, metric)
    est = Estimates(np.full(pa.shape, np.nan), counts={
        "n_items": counts(m_hist[..., 2:].sum(axis=-1)),
        "n_unpairable": counts(m_hist[..., 1]),
    }, extras={"pa": pa, "pe": pe})
    est.undefined(est.counts["n_items"] == 0,
                  "no item has two or more ratings (nothing to pair)")
    if metric == "conger":
        est.undefined(~np.isfinite(pe) & np.isfinite(pa), "fewer than two raters")
    if metric == "percent":
        est.value[...] = np.where(est.reason == "", pa, np.nan)
        return est
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (pa - pe) / (1 - pe)
    est.value[...] = np.where(est.reason == "", value, np.nan)
    est.undefined(~(pe < 1) & (est.reason == ""), "chance agreement is 1 (a single "
                  "category in use, or weights that make every pair agree)")
    return est
