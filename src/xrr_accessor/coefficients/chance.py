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
    unweighted, AC2 weighted);

* ``light``: the mean of Cohen's kappa over all pairs of raters, each pair on
  the items both rated (Light 1971).

References: Gwet, *Handbook of Inter-Rater Reliability* (4th ed.), chapters
2-5; the irrCAC package implements the same formulas.
"""

from __future__ import annotations

import numpy as np

from .. import kernels
from ..errors import InputError
from .base import Estimates, ItemStats
from .iota import raters_present

__all__ = ["CHANCE", "chance_corrected", "light"]

#: Coefficients of the (p_a - p_e) / (1 - p_e) family, by metric name.
CHANCE = ("percent", "scott", "fleiss", "conger", "bp", "gwet")

#: Light's kappa averages over rater pairs; beyond this many raters use another metric.
MAX_LIGHT_RATERS = 100


def _weights(stats: ItemStats, lab: int) -> np.ndarray:
    """Agreement weights of label ``lab``: 1 - D of the (weights) level."""
    d = stats.distance(lab, None)
    return 1.0 - d


def _label_counts(stats: ItemStats, lab: int) -> tuple[np.ndarray, np.ndarray, int]:
    if stats.counts is None:
        raise InputError(
            f"{stats.ann.where(lab)} has {stats.ann.n_category:,} categories; the "
            "chance-corrected family works on up to 1,023. Use metric='alpha' (any number "
            "of categories) or merge categories."
        )
    k = len(stats.ann.categories[lab])
    return stats.counts[lab, :, :, :k].astype(float), stats.item_n[lab].astype(float), k


def chance_corrected(stats: ItemStats, metric: str) -> Estimates:
    """Percent agreement or a chance-corrected coefficient per (label, replication)."""
    ann = stats.ann
    n_label, n_rep = len(ann.labels), len(ann.replications)
    m = stats.item_n
    shape = (n_label, n_rep)
    pa = np.full(shape, np.nan)
    pe = np.full(shape, np.nan)
    est = Estimates(np.full(shape, np.nan), counts={
        "n_items": (m >= 2).sum(axis=-1),
        "n_unpairable": (m == 1).sum(axis=-1),
    })
    est.undefined(est.counts["n_items"] == 0,
                  "no item has two or more ratings (nothing to pair)")
    raters = _rater_shares(stats) if metric == "conger" else None
    for lab in range(n_label):
        c, ri, k = _label_counts(stats, lab)
        w = _weights(stats, lab)
        two = ri >= 2
        rwr = np.einsum("rik,kl,ril->ri", c, w, c)
        with np.errstate(divide="ignore", invalid="ignore"):
            pa_i = np.where(two, (rwr - ri) / (ri * (ri - 1)), 0.0)
            pa[lab] = pa_i.sum(axis=-1) / two.sum(axis=-1)
            pi = (c / np.maximum(ri, 1.0)[..., None]).sum(axis=1) / (ri >= 1).sum(-1)[:, None]
        if metric == "percent":
            pe[lab] = 0.0
        elif metric == "fleiss":
            pe[lab] = np.einsum("rk,kl,rl->r", pi, w, pi)
        elif metric == "scott":
            pooled = (c * two[..., None]).sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                pooled = pooled / pooled.sum(axis=-1, keepdims=True)
            pe[lab] = np.einsum("rk,kl,rl->r", pooled, w, pooled)
        elif metric == "bp":
            pe[lab] = w.sum() / k**2 if k else 1.0
        elif metric == "gwet":
            pe[lab] = w.sum() / (k * (k - 1)) * (pi * (1 - pi)).sum(-1) if k > 1 else 1.0
        else:
            assert raters is not None
            for r in range(n_rep):
                p = raters[lab][r][:, :k]
                b = len(p)
                if b < 2:
                    continue
                mean = p.mean(axis=0)
                cov = (p.T @ p - b * np.outer(mean, mean)) / (b - 1)
                pe[lab, r] = (w * (np.outer(mean, mean) - cov / b)).sum()
    if metric == "conger":
        est.undefined(~np.isfinite(pe) & np.isfinite(pa), "fewer than two raters")
    est.counts.update({"pa": pa, "pe": pe})
    if metric == "percent":
        est.value[...] = np.where(np.isnan(est.value) & (est.reason == ""), pa, est.value)
        return est
    one = ~(pe < 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (pa - pe) / (1 - pe)
    est.value[...] = np.where(est.reason == "", value, np.nan)
    est.undefined(one & (est.reason == ""), "chance agreement is 1 (a single category in "
                  "use, or weights that make every pair agree)")
    return est


def _rater_shares(stats: ItemStats) -> list[list[np.ndarray]]:
    """Per label and replication, each present rater's classification shares p_gk."""
    ann = stats.ann
    everything = np.ones(stats.item_n.shape, dtype=np.bool_)
    rc, totals = kernels.grouped_counts(ann.rater, ann.item, ann.replication, ann.codes,
                                        everything, len(ann.raters), ann.n_category)
    out = []
    for lab in range(len(ann.labels)):
        per_rep = []
        for r in range(len(ann.replications)):
            present = totals[lab, r] > 0
            per_rep.append(rc[lab, r][present] / totals[lab, r][present][:, None])
        out.append(per_rep)
    return out


def light(stats: ItemStats) -> Estimates:
    """Light's kappa: mean pairwise Cohen's kappa (weighted through the weights).

    Each pair of raters uses the items both rated; pairs with no such item,
    or whose kappa is undefined, are left out and counted in ``n_pairs_left_out``.
    """
    ann = stats.ann
    n_label, n_rep = len(ann.labels), len(ann.replications)
    est = Estimates(np.full((n_label, n_rep), np.nan), counts={
        "n_raters": np.zeros((n_label, n_rep), dtype=np.int64),
        "n_pairs": np.zeros((n_label, n_rep), dtype=np.int64),
        "n_pairs_left_out": np.zeros((n_label, n_rep), dtype=np.int64),
    })
    est.counts["n_raters"][...] = raters_present(ann).sum(axis=-1)
    for lab in range(n_label):
        k = len(ann.categories[lab])
        w = _weights(stats, lab) if k else np.eye(0)
        for r in range(n_rep):
            b = int(est.counts["n_raters"][lab, r])
            if b > MAX_LIGHT_RATERS:
                raise InputError(
                    f"Light's kappa averages Cohen's kappa over rater pairs, but "
                    f"{ann.where(lab, r)} has {b} raters "
                    f"({b * (b - 1) // 2:,} pairs). Use metric='fleiss', 'conger' or 'alpha'."
                )
            grid = ann.grid(lab, r)
            kappas = []
            for g in range(b):
                for h in range(g + 1, b):
                    both = (grid[:, g] >= 0) & (grid[:, h] >= 0)
                    kappas.append(_cohen(grid[both, g], grid[both, h], w, k))
            vals = np.array(kappas, dtype=float)
            est.counts["n_pairs"][lab, r] = np.isfinite(vals).sum()
            est.counts["n_pairs_left_out"][lab, r] = (~np.isfinite(vals)).sum()
            if np.isfinite(vals).any():
                est.value[lab, r] = vals[np.isfinite(vals)].mean()
    est.undefined(est.counts["n_raters"] < 2, "fewer than two raters")
    est.undefined(est.counts["n_pairs"] == 0,
                  "no pair of raters has a defined Cohen's kappa (no shared items, or one "
                  "category only)")
    return est


def _cohen(x: np.ndarray, y: np.ndarray, w: np.ndarray, k: int) -> float:
    """Weighted Cohen's kappa of two code vectors (NaN if undefined)."""
    n = len(x)
    if n == 0:
        return np.nan
    joint = np.bincount(x * k + y, minlength=k * k).reshape(k, k) / n
    p_o = (w * joint).sum()
    p_e = (w * np.outer(joint.sum(axis=1), joint.sum(axis=0))).sum()
    return np.nan if p_e >= 1 else (p_o - p_e) / (1 - p_e)
