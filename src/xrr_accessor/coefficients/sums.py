"""Sums of disagreement over pairs of annotations, from per-item statistics.

Every coefficient here is ``1 - d_o / d_e`` where both terms are sums of
D(a, b) over some pairs of annotations. This module computes those sums from
:class:`~.base.ItemStats`, whichever form the statistics take:

* ``moments`` (interval level): count, sum and sum of squares per item;
* ``counts`` (other levels, up to :data:`~.base.SPARSE_MIN_CATEGORIES`
  categories): per-item category counts reduced to K x K coincidence
  matrices by the numba kernels, then weighted by D;
* ``cells`` (nominal level with many categories): the sorted non-zero
  (replication, item, category) counts, reduced with NumPy group sums.
  Nominal D needs only per-item sums of squared counts and matching
  cross-products, so no n x K table is built.

Definitions (all pairs are ordered pairs of distinct annotations):

* :func:`within_sums` over items selected by ``mask``: ``observed`` = sum over
  items of (sum of D over the item's pairs) / (m_i - 1); ``expected`` = sum
  of D over all pairs of the selected values (n_c n_k D_ck); ``n_values``.
* :func:`same_rater_sums`: sum over raters of D over all pairs of that
  rater's selected values (sum_g N_g D N_g), for iota's chance term.
* :func:`cross_sums` for replication pairs: ``observed`` = sum_i (R_i + S_i)
  / (R_i S_i) * sum_r sum_s D(x_ri, y_si); ``expected`` = sum over all cross
  pairs (X D Y); totals R, S; items used and unpairable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import kernels
from .base import ItemStats

__all__ = ["CrossSums", "WithinSums", "cross_sums", "same_rater_sums", "within_sums"]


@dataclass
class WithinSums:
    """Per (label, replication): observed and expected sums, and values used."""

    observed: np.ndarray
    expected: np.ndarray
    n_values: np.ndarray


@dataclass
class CrossSums:
    """Per (label, pair): weighted observed and expected sums, totals and item counts."""

    observed: np.ndarray
    expected: np.ndarray
    r: np.ndarray
    s: np.ndarray
    used: np.ndarray
    unpaired: np.ndarray


def within_sums(stats: ItemStats, mask: np.ndarray) -> WithinSums:
    """Sums over pairs of distinct annotations of the same item (items in ``mask``)."""
    if stats.moments is not None:
        w = kernels.within_moments(stats.moments, mask)
        n = w[..., 1]
        ss = _sum_of_squares(n, w[..., 2], w[..., 3])
        return WithinSums(w[..., 0], 2.0 * n * ss, n)
    if stats.cells is not None:
        return _within_cells(stats, mask)
    o = kernels.within_coincidence(stats.counts, mask)
    n_label, n_rep = mask.shape[:2]
    observed = np.zeros((n_label, n_rep))
    expected = np.zeros((n_label, n_rep))
    marg = o.sum(axis=-1)
    for lab in range(n_label):
        for r in range(n_rep):
            if marg[lab, r].sum() == 0:
                continue
            d = stats.distance(lab, marg[lab, r])
            k = d.shape[0]
            observed[lab, r] = (o[lab, r, :k, :k] * d).sum()
            expected[lab, r] = marg[lab, r, :k] @ d @ marg[lab, r, :k]
    return WithinSums(observed, expected, marg.sum(axis=-1))


def same_rater_sums(stats: ItemStats, mask: np.ndarray) -> np.ndarray:
    """sum_g N_g D N_g per (label, replication): pairs of one rater's values in ``mask``.

    The ordinal metric uses the marginals of all values in ``mask``, as
    :func:`within_sums` does.
    """
    ann = stats.ann
    n_rater = len(ann.raters)
    if stats.moments is not None:
        rm = kernels.grouped_moments(ann.rater, ann.item, ann.replication, ann.codes,
                                     stats.values, mask, n_rater)
        return (2.0 * rm[..., 0] * _sum_of_squares(rm[..., 0], rm[..., 1], rm[..., 2])).sum(-1)
    if stats.cells is not None:
        return _same_rater_cells(stats, mask)
    rc, _ = kernels.grouped_counts(ann.rater, ann.item, ann.replication, ann.codes, mask,
                                   n_rater, ann.n_category)
    n_label, n_rep = mask.shape[:2]
    out = np.zeros((n_label, n_rep))
    for lab in range(n_label):
        for r in range(n_rep):
            per_rater = rc[lab, r].astype(float)
            total = per_rater.sum(axis=0)
            if total.sum() == 0:
                continue
            d = stats.distance(lab, total)
            k = d.shape[0]
            out[lab, r] = np.einsum("gc,cd,gd->", per_rater[:, :k], d, per_rater[:, :k])
    return out


def cross_sums(stats: ItemStats, pairs: np.ndarray) -> CrossSums:
    """Sums over cross-replication pairs for each replication pair (P, 2).

    The ordinal metric uses the pooled marginals of both replications' values.
    """
    if stats.moments is not None:
        s, used, unpaired = kernels.cross_moments(stats.moments, pairs)
        r, sy = s[..., 1], s[..., 2]
        ssx = _sum_of_squares(r, s[..., 3], s[..., 4])
        ssy = _sum_of_squares(sy, s[..., 5], s[..., 6])
        dm = _safe_div(s[..., 3], r) - _safe_div(s[..., 5], sy)
        expected = r * sy * dm**2 + sy * ssx + r * ssy
        return CrossSums(s[..., 0], expected, r, sy, used, unpaired)
    if stats.cells is not None:
        return _cross_cells(stats, pairs)
    cross, xm, ym, used, unpaired = kernels.cross_coincidence(stats.counts, pairs)
    observed = np.zeros(used.shape)
    expected = np.zeros(used.shape)
    for lab in range(used.shape[0]):
        for p in range(used.shape[1]):
            x, y = xm[lab, p], ym[lab, p]
            if x.sum() == 0 or y.sum() == 0:
                continue
            d = stats.distance(lab, x + y)
            k = d.shape[0]
            observed[lab, p] = (cross[lab, p, :k, :k] * d).sum()
            expected[lab, p] = x[:k] @ d @ y[:k]
    return CrossSums(observed, expected, xm.sum(-1), ym.sum(-1), used, unpaired)


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    return np.divide(num, den, out=np.zeros_like(num, dtype=float), where=den > 0)


def _sum_of_squares(n: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
    """Sum of squared deviations from count, sum and sum of squares (0 when n = 0)."""
    return np.maximum(s2 - s1 * _safe_div(s1, n), 0.0)


# --------------------------------------------------------------- sparse nominal cells


def _group_sum(group: np.ndarray, weights: np.ndarray, size: int) -> np.ndarray:
    return np.bincount(group, weights=weights, minlength=size)[:size]


def _within_cells(stats: ItemStats, mask: np.ndarray) -> WithinSums:
    """Nominal: sum over an item's pairs of D = m^2 - sum_k n_k^2."""
    n_label, n_rep, n_item = mask.shape
    observed = np.zeros((n_label, n_rep))
    expected = np.zeros((n_label, n_rep))
    n_values = np.zeros((n_label, n_rep))
    m = stats.item_n
    assert stats.cells is not None
    for lab, (rep, item, cat, count) in enumerate(stats.cells):
        keep = mask[lab, rep, item]
        rep, item, cat, count = rep[keep], item[keep], cat[keep], count[keep].astype(float)
        ri = rep * n_item + item
        sq = _group_sum(ri, count**2, n_rep * n_item).reshape(n_rep, n_item)
        mm = np.where(mask[lab], m[lab], 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            per_item = np.where(mm >= 2, (mm**2 - sq) / (mm - 1), 0.0)
        observed[lab] = per_item.sum(axis=1)
        n_values[lab] = mm.sum(axis=1)
        marg_sq = _group_sum(rep * stats.ann.n_category + cat, count,
                             n_rep * stats.ann.n_category)
        expected[lab] = n_values[lab] ** 2 - (marg_sq.reshape(n_rep, -1) ** 2).sum(axis=1)
    return WithinSums(observed, expected, n_values)


def _same_rater_cells(stats: ItemStats, mask: np.ndarray) -> np.ndarray:
    """Nominal: sum over raters of N_g^2 - sum_c N_gc^2."""
    ann = stats.ann
    n_label, n_rep, _ = mask.shape
    n_rater = len(ann.raters)
    out = np.zeros((n_label, n_rep))
    for lab in range(n_label):
        codes = ann.codes[lab]
        keep = (codes >= 0) & mask[lab, ann.replication, ann.item]
        rep, rater, cat = ann.replication[keep], ann.rater[keep], codes[keep]
        key = (rep * n_rater + rater) * ann.n_category + cat
        uniq, count = np.unique(key, return_counts=True)
        group = uniq // ann.n_category  # rep * n_rater + rater
        per_rater = _group_sum(group, count.astype(float), n_rep * n_rater)
        per_rater_sq = _group_sum(group, count.astype(float) ** 2, n_rep * n_rater)
        out[lab] = (per_rater**2 - per_rater_sq).reshape(n_rep, n_rater).sum(axis=1)
    return out


def _cross_cells(stats: ItemStats, pairs: np.ndarray) -> CrossSums:
    """Nominal: sum_r sum_s D(x_ri, y_si) = R_i S_i - sum_k x_ik y_ik per item."""
    n_label = len(stats.cells or ())
    n_pair = len(pairs)
    shape = (n_label, n_pair)
    observed, expected = np.zeros(shape), np.zeros(shape)
    big_r, big_s = np.zeros(shape), np.zeros(shape)
    used = np.zeros(shape, dtype=np.int64)
    unpaired = np.zeros(shape, dtype=np.int64)
    m = stats.item_n
    k = stats.ann.n_category
    assert stats.cells is not None
    for lab, (rep, item, cat, count) in enumerate(stats.cells):
        for p, (a, b) in enumerate(pairs):
            ma, mb = m[lab, a], m[lab, b]
            both = (ma > 0) & (mb > 0)
            used[lab, p] = both.sum()
            unpaired[lab, p] = ((ma > 0) ^ (mb > 0)).sum()
            in_a = (rep == a) & both[item]
            in_b = (rep == b) & both[item]
            key_a = item[in_a] * k + cat[in_a]  # sorted: cells are sorted by (rep, item, cat)
            key_b = item[in_b] * k + cat[in_b]
            _, ia, ib = np.intersect1d(key_a, key_b, assume_unique=True, return_indices=True)
            same = count[in_a][ia].astype(float) * count[in_b][ib]
            xy = np.bincount(key_a[ia] // k, weights=same, minlength=len(ma))
            r_i, s_i = np.where(both, ma, 0.0), np.where(both, mb, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                w = np.where(both, (r_i + s_i) / (r_i * s_i), 0.0)
            observed[lab, p] = (w * (r_i * s_i - xy)).sum()
            big_r[lab, p], big_s[lab, p] = r_i.sum(), s_i.sum()
            xa = _group_sum(cat[in_a], count[in_a].astype(float), k)
            yb = _group_sum(cat[in_b], count[in_b].astype(float), k)
            expected[lab, p] = big_r[lab, p] * big_s[lab, p] - xa @ yb
    return CrossSums(observed, expected, big_r, big_s, used, unpaired)
