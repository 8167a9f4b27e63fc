"""Analytic standard errors of the chance-corrected family (Gwet's linearization).

Each coefficient kappa = (p_a - p_e) / (1 - p_e) is written as a mean over
items of per-item pseudo-values (its influence terms); the variance is that
of a mean over a sample of n items from a population of N:

    var = (1 - n / N) / (n (n - 1)) * sum_i (kappa*_i - kappa)^2,
    kappa_i  = (n / n2) (p_a,i - p_e [r_i >= 2]) / (1 - p_e),
    kappa*_i = kappa_i - 2 (1 - kappa) (p_e,i - p_e) / (1 - p_e),

with p_a,i the item's pairwise agreement and p_e,i its share of chance
agreement (Gwet, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 5; the
same formulas as the irrCAC package). p_e,i by coefficient:

* Fleiss: (r_i / r_i)' (W_s pi), W_s = (W + W') / 2;
* AC1/AC2: T_w / (q (q - 1)) sum_k (r_ik / r_i) (1 - pi_k);
* Brennan-Prediger and percent agreement: constant (p_e,i = p_e);
* Conger: 1 / (b (b - 1)) sum_g sum_kl w_kl u_igl (S_k - p_gk), with u_igl
  = (n / n_g) (delta_igl - (eps_ig - n_g / n) p_gl) the item's pseudo-value of
  rater g's share p_gl and S_k = sum_h p_hk;
* alpha (over items with r_i >= 2, rbar their mean ratings): p_a,i =
  (r_i' W r_i - r_i) / (rbar (r_i - 1)) - p_a (r_i - rbar) / rbar, p_e,i =
  r_i' W_s pi / rbar - p_e (r_i - rbar) / rbar, centered on alpha without its
  small-sample term. At the ordinal and ratio levels the same pseudo-values are
  read from each item's sums of D (:func:`alpha_interval`, O(N) and no K x K
  matrix: W = 1 - D / max D, so r_i' W r_i = r_i^2 - r_i' D r_i / max D).

Confidence intervals use Student's t with n - 1 degrees of freedom, the upper
limit capped at 1 (as irrCAC does). p-values are two-sided for every
coefficient (irrCAC 0.4.4 reports a one-sided one for Brennan-Prediger only).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import kernels
from ..errors import InputError
from ..kernels.accumulate import item_order
from ..kernels.alpha_items import ORDINAL, RATIO, item_pair_sums, ratio_products
from ..kernels.midranks import mid_ranks
from ..kernels.ratio import ratio_distance
from ..schema import Annotations
from .base import Context
from .distributions import t_ppf, t_sf

__all__ = ["SPARSE_ALPHA_LEVELS", "Interval", "Items", "alpha_interval", "alpha_terms",
           "analytic", "bp_terms", "cohen_terms",
           "conger_terms", "fleiss_terms", "gwet_terms", "interval", "percent_terms"]


class Interval:
    """Standard errors, t-intervals and p-values over (label, replication)."""

    def __init__(self, se: np.ndarray, n: np.ndarray) -> None:
        self.se = se
        self.n = n

    def bounds(self, estimate: np.ndarray, level: float) -> dict[str, np.ndarray]:
        lower = np.full(estimate.shape, np.nan)
        upper = np.full(estimate.shape, np.nan)
        p_value = np.full(estimate.shape, np.nan)
        for idx in np.ndindex(estimate.shape):
            est, se, n = estimate[idx], self.se[idx], self.n[idx]
            if not (np.isfinite(est) and np.isfinite(se) and n >= 2):
                continue
            q = t_ppf(1 - (1 - level) / 2, float(n - 1))
            lower[idx] = est - se * q
            upper[idx] = min(1.0, est + se * q)
            p_value[idx] = 2 * t_sf(float(abs(est / se)), float(n - 1)) if se > 0 else 0.0
        return {"se": self.se, "lower": lower, "upper": upper, "p_value": p_value}


@dataclass(frozen=True)
class Items:
    """One label's per-item counts, read by a coefficient's pseudo-values: ``c`` (R, n,
    k) category counts per replication and item, ``ri`` (R, n) their totals; ``ann`` the
    annotations themselves (Conger's terms read them by rater)."""

    ann: Annotations
    ctx: Context
    lab: int
    k: int
    c: np.ndarray
    ri: np.ndarray

    def weights(self) -> np.ndarray:
        """Agreement weights of the call (identity when unweighted)."""
        w = self.ctx.weights(self.lab)
        return np.eye(self.k) if w is None else w


#: Pseudo-values of one (label, replication): ``terms(items, r, estimate)`` ->
#: (kappa*_i, the value they are centred on, n items used).
Terms = Callable[[Items, int, float], tuple[np.ndarray, float, int]]


def interval(ann: Annotations, ctx: Context, estimate: np.ndarray, terms: Terms,
             population: float = math.inf) -> Interval:
    """Standard errors per (label, replication) from the pseudo-values ``terms``.

    A second pass over the codes: the pseudo-values of an item depend on the
    global estimate (and its chance terms), so they cannot be summed before
    it is known. The pass builds each label's per-item category counts.
    """
    if terms is alpha_terms and ctx.level.name in SPARSE_ALPHA_LEVELS:
        return alpha_interval(ann, ctx, estimate, population)
    shape = estimate.shape
    se = np.full(shape, np.nan)
    n_used = np.zeros(shape, dtype=np.int64)
    everything = np.ones((1, shape[1], len(ann.items)), dtype=np.bool_)
    for lab in range(shape[0]):
        k = len(ann.categories[lab])
        if len(ann.items) * k * shape[1] > MAX_DENSE_CELLS:
            raise InputError(
                f"the analytic standard error of {ctx.where(lab)} needs per-item counts of "
                f"{k:,} categories x {len(ann.items):,} items; merge categories.")
        counts, totals = kernels.grouped_counts(
            ann.item, ann.item, ann.replication, np.ascontiguousarray(ann.codes[lab:lab + 1]),
            everything, len(ann.items), max(k, 1))
        items = Items(ann, ctx, lab, k, counts[0, :, :, :k].astype(float),
                      totals[0].astype(float))
        for r in range(shape[1]):
            if not np.isfinite(estimate[lab, r]):
                continue
            values, center, n = terms(items, r, estimate[lab, r])
            n_used[lab, r] = n
            if n >= 2:
                f = n / population if np.isfinite(population) else 0.0
                se[lab, r] = math.sqrt((1 - f) / (n * (n - 1))
                                       * ((values - center) ** 2).sum())
    return Interval(se, n_used)


#: Levels whose alpha interval is read from per-item sums of D (:func:`alpha_interval`).
SPARSE_ALPHA_LEVELS = frozenset({"ordinal", "ratio"})


def alpha_interval(ann: Annotations, ctx: Context, estimate: np.ndarray,
                   population: float = math.inf) -> Interval:
    """The standard errors of :func:`alpha_terms` at the ordinal or ratio level, from
    each item's annotations r_i, sum of D over their pairs o_i and sum of (D pi)_x g_i
    (:func:`~..kernels.alpha_items.item_pair_sums`): O(N) (ratio: O(K^2) time for D pi
    and max D) and O(n + K) memory per label, at any number of categories.

    Examples
    --------
    >>> import pandas as pd, xrr_accessor as xa
    >>> df = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2, 3, 3], "rater": [0, 1] * 4,
    ...                    "value": [1, 1, 2, 3, 3, 3, 4, 2]})
    >>> round(float(xa.irr(df, level="ordinal", ci=0.95)["se"]), 6)
    0.514328
    """
    shape = estimate.shape
    se = np.full(shape, np.nan)
    n_used = np.zeros(shape, dtype=np.int64)
    n_rep = shape[1]
    offsets, order = item_order(np.ascontiguousarray(ann.item, dtype=np.int64), len(ann.items))
    rep = np.ascontiguousarray(ann.replication, dtype=np.int64)
    for lab in range(shape[0]):
        k = len(ann.categories[lab])
        if not np.isfinite(estimate[lab]).any() or k == 0:
            continue
        codes = np.ascontiguousarray(ann.codes[lab], dtype=np.int64)
        known = codes >= 0
        m = np.bincount(rep[known] * len(ann.items) + ann.item[known],
                        minlength=n_rep * len(ann.items))
        pairable = known.copy()
        pairable[known] = m[rep[known] * len(ann.items) + ann.item[known]] >= 2
        t = np.bincount(codes[pairable] * n_rep + rep[pairable], minlength=k * n_rep
                        ).reshape(k, n_rep).astype(float)  # (K, R) pairable marginals
        total = t.sum(axis=0)
        pi = np.divide(t, total, out=np.zeros_like(t), where=total > 0)
        if ctx.level.name == "ordinal":
            kind, score = ORDINAL, mid_ranks(t.sum(axis=1)[:, None])[:, 0]
            top = (score[-1] - score[0]) ** 2
            mu = score @ pi  # (D pi)_k = (M_k - mu)^2 + sum_l pi_l (M_l - mu)^2
            dpi = (score[:, None] - mu) ** 2 + (pi * (score[:, None] - mu) ** 2).sum(axis=0)
        else:
            kind = RATIO
            assert ctx.meta.values is not None
            score = np.ascontiguousarray(ctx.meta.values[lab, :k], dtype=np.float64)
            if (score < 0).any():
                raise InputError(f"{ctx.where(lab)} has negative values; the ratio level "
                                 "needs values >= 0 (use level='interval').")
            top = ratio_distance(float(score.min()), float(score.max()))  # D grows apart
            dpi = ratio_products(score, pi)
        ri, oi, gi = item_pair_sums(offsets, order, rep, codes, np.ascontiguousarray(score),
                                    np.ascontiguousarray(dpi), kind)
        for r in range(n_rep):
            if not np.isfinite(estimate[lab, r]):
                continue
            values, center, n = _alpha_sums(ri[r], oi[r], gi[r], float(pi[:, r] @ dpi[:, r]),
                                            top)
            n_used[lab, r] = n
            if n >= 2:
                f = n / population if np.isfinite(population) else 0.0
                se[lab, r] = math.sqrt((1 - f) / (n * (n - 1))
                                       * ((values - center) ** 2).sum())
    return Interval(se, n_used)


def _alpha_sums(ri: np.ndarray, oi: np.ndarray, gi: np.ndarray, pdp: float, top: float
                ) -> tuple[np.ndarray, float, int]:
    """:func:`_alpha_terms` from r_i, o_i = r_i' D r_i, g_i = r_i' D pi, pi' D pi and
    max D (W = 1 - D / max D; all ones when max D is 0)."""
    two = ri >= 2
    ri, oi, gi = ri[two], oi[two], gi[two]
    n = len(ri)
    if n == 0:
        return ri, math.nan, 0
    inv = 1.0 / top if top > 0 else 0.0
    rbar = ri.mean()
    rwr = ri**2 - oi * inv
    pa_prime = ((rwr - ri) / (rbar * (ri - 1))).mean()
    eps = 1.0 / ri.sum()
    pa = (1 - eps) * pa_prime + eps
    pe = 1.0 - pdp * inv
    alpha_prime = (pa_prime - pe) / (1 - pe)
    pa_i = (rwr - ri) / (rbar * (ri - 1)) - pa * (ri - rbar) / rbar
    pe_i = (ri - gi * inv) / rbar - pe * (ri - rbar) / rbar
    kappa_i = (pa_i - pe) / (1 - pe)
    return kappa_i - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe), alpha_prime, n


def analytic(terms: Terms) -> Callable[..., dict[str, np.ndarray]]:
    """A registry entry's analytic-interval hook from its pseudo-values: the hook
    takes ``(run, estimate, level, population, params)`` and returns the
    standard errors, t-limits and p-values."""
    def hook(run: Any, estimate: np.ndarray, level: float, population: float,
             params: dict[str, Any]) -> dict[str, np.ndarray]:
        iv = interval(run.ann, run.ctx, estimate, terms, population)
        return iv.bounds(estimate, level)
    hook.terms = terms  # type: ignore[attr-defined]
    return hook


#: Largest per-item count table of one label built for a standard error.
MAX_DENSE_CELLS = 300_000_000


def _alpha_weights(ctx: Context, lab: int, c: np.ndarray, ri: np.ndarray) -> np.ndarray:
    """Agreement weights of alpha's level: W = 1 - D / max D (nominal: identity;
    interval: quadratic weights). For the ordinal level the rank metric's
    marginals are those of all pairable values and are treated as fixed."""
    marginals = (c * (ri >= 2)[..., None]).sum(axis=(0, 1))
    d = ctx.distance(lab, marginals)
    top = d.max() if d.size else 0.0
    return 1.0 - d / top if top > 0 else np.ones_like(d)


def _pa_items(c: np.ndarray, ri: np.ndarray, w: np.ndarray) -> np.ndarray:
    rwr = np.einsum("ik,kl,il->i", c, w, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ri >= 2, (rwr - ri) / (ri * (ri - 1)), 0.0)


def _rated(items: Items, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Counts of the items rated at least once: (c, r_i, p_a,i, n, n2)."""
    rated = items.ri[r] >= 1
    c, ri = items.c[r][rated], items.ri[r][rated]
    return c, ri, _pa_items(c, ri, items.weights()), len(ri), int((ri >= 2).sum())


def _centred(kappa: float, pa_i: np.ndarray, ri: np.ndarray, pe: float, pe_i: np.ndarray,
             n: int, n2: int) -> tuple[np.ndarray, float, int]:
    """kappa*_i = kappa_i - 2 (1 - kappa) (p_e,i - p_e) / (1 - p_e)."""
    kappa_i = n / n2 * (pa_i - pe * (ri >= 2)) / (1 - pe)
    return kappa_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe), kappa, n


def percent_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """Percent agreement: (n / n2) p_a,i."""
    _, _, pa_i, n, n2 = _rated(items, r)
    return n / n2 * pa_i, kappa, n


def fleiss_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """Fleiss: p_e,i = (r_i / r_i)' (W_s pi)."""
    c, ri, pa_i, n, n2 = _rated(items, r)
    w = items.weights()
    shares = c / ri[:, None]
    pi = shares.mean(axis=0)
    return _centred(kappa, pa_i, ri, pi @ w @ pi, shares @ ((w + w.T) / 2 @ pi), n, n2)


def gwet_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """AC1/AC2: p_e,i = T_w / (q (q - 1)) sum_k (r_ik / r_i) (1 - pi_k)."""
    c, ri, pa_i, n, n2 = _rated(items, r)
    shares = c / ri[:, None]
    pi = shares.mean(axis=0)
    scale = items.weights().sum() / (items.k * (items.k - 1))
    return _centred(kappa, pa_i, ri, scale * (pi * (1 - pi)).sum(),
                    scale * (shares @ (1 - pi)), n, n2)


def bp_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """Brennan-Prediger: a constant chance term, p_e,i = p_e."""
    _, ri, pa_i, n, n2 = _rated(items, r)
    pe = items.weights().sum() / items.k**2
    return _centred(kappa, pa_i, ri, pe, np.full(n, pe), n, n2)


def conger_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """Conger's kappa, over the items rated at least once."""
    return _conger_terms(items, r, kappa, complete=False)


def cohen_terms(items: Items, r: int, kappa: float) -> tuple[np.ndarray, float, int]:
    """Cohen's kappa: Conger's pseudo-values on the items both raters rated."""
    return _conger_terms(items, r, kappa, complete=True)


def alpha_terms(items: Items, r: int, alpha: float) -> tuple[np.ndarray, float, int]:
    """Krippendorff's alpha (Gwet's form), with the level's agreement weights."""
    return _alpha_terms(items.c[r], items.ri[r],
                        _alpha_weights(items.ctx, items.lab, items.c, items.ri))


def _conger_terms(items: Items, r: int, kappa: float, complete: bool
                  ) -> tuple[np.ndarray, float, int]:
    """kappa*_i of Conger's kappa (and Cohen's, on the items both raters rated).

    Gwet's p_e,i = sum_g sum_l u_igl (w S_{-g})_l / (b (b - 1)), with u_igl =
    n / n_g (delta_igl - (eps_ig - n_g / n) p_gl), is read from the annotations:
    where rater g did not rate item i, u_igl = p_gl, so p_e,i = sum_g B_g + sum over
    the item's annotations (g, l) of n / n_g (A_gl - B_g), with A = (S - p_g) w and
    B_g = sum_l p_gl A_gl. O(annotations + raters x K^2), not items x raters.
    """
    c, ri, w, k = items.c[r], items.ri[r], items.weights(), items.k
    codes = items.ann.codes[items.lab]
    sel = (codes >= 0) & (items.ann.replication == r)
    raters, g = np.unique(items.ann.rater[sel], return_inverse=True)
    b = len(raters)
    keep = ri == b if complete else ri >= 1  # duplicates are refused: r_i raters rated i
    item = items.ann.item[sel]
    kept = keep[item]
    g, x = g.reshape(-1)[kept], codes[sel][kept]
    at = (np.cumsum(keep) - 1)[item[kept]]  # position among kept items
    c, ri = c[keep], ri[keep]
    n, n2 = len(ri), int((ri >= 2).sum())
    n_g = np.bincount(g, minlength=b).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.bincount(g * k + x, minlength=b * k).reshape(b, k) / n_g[:, None]  # p_gl
    total = p.sum(axis=0)
    pe = (total @ w @ total - np.einsum("gk,kl,gl->", p, w, p)) / (b * (b - 1))
    a_gl = (total[None, :] - p) @ w
    b_g = (p * a_gl).sum(axis=1)
    pe_i = (b_g.sum() + np.bincount(at, weights=n / n_g[g] * (a_gl[g, x] - b_g[g]),
                                    minlength=n)) / (b * (b - 1))
    return _centred(kappa, _pa_items(c, ri, w), ri, pe, pe_i, n, n2)


def _alpha_terms(c: np.ndarray, ri: np.ndarray, w: np.ndarray
                 ) -> tuple[np.ndarray, float, int]:
    """alpha*_i of Krippendorff's alpha (Gwet's form), over items with r_i >= 2.

    The linearization is centered on alpha' = (p_a' - p_e) / (1 - p_e), alpha
    without its small-sample term eps = 1 / (sum of r_i) (p_a = (1 - eps) p_a' +
    eps), as Gwet's estimator (and irrCAC) does.
    """
    two = ri >= 2
    c, ri = c[two], ri[two]
    n = len(ri)
    rbar = ri.mean()
    rwr = np.einsum("ik,kl,il->i", c, w, c)
    pa_prime = ((rwr - ri) / (rbar * (ri - 1))).mean()
    eps = 1.0 / ri.sum()
    pa = (1 - eps) * pa_prime + eps
    pi = c.sum(axis=0) / (n * rbar)
    pe = pi @ w @ pi
    alpha_prime = (pa_prime - pe) / (1 - pe)
    pa_i = (rwr - ri) / (rbar * (ri - 1)) - pa * (ri - rbar) / rbar
    pe_i = c @ ((w + w.T) / 2 @ pi) / rbar - pe * (ri - rbar) / rbar
    kappa_i = (pa_i - pe) / (1 - pe)
    return kappa_i - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe), alpha_prime, n
