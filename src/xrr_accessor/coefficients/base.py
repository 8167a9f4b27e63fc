"""Shared pieces of every coefficient: per-item statistics and the estimate container."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import kernels
from ..errors import InputError
from ..levels import Level, distance_matrix
from ..schema import Annotations

__all__ = ["Estimates", "ItemStats", "item_statistics"]


#: Nominal labels with at least this many categories use the sparse path
#: (sorted non-zero cells) instead of a dense n x K count table.
SPARSE_MIN_CATEGORIES = 1024


@dataclass
class ItemStats:
    """Per-item sufficient statistics of every (label, replication).

    Exactly one of three forms is set:

    * ``moments`` (L, R, n, 3) float64: count, sum, sum of squares (interval);
    * ``counts`` (L, R, n, K) int64: category counts (other levels);
    * ``cells``: per label, the non-zero (replication, item, category, count)
      cells sorted by replication, item and category (nominal data with many
      categories: no n x K table).

    ``item_n`` (L, R, n) holds the annotations per item in every form.
    ``values`` (L, K) holds the numeric category values (centered per label
    for interval data, which leaves every interval coefficient unchanged and
    keeps sums of squares well conditioned), or None for non-numeric levels.
    """

    ann: Annotations
    level: Level
    item_n: np.ndarray
    counts: np.ndarray | None = None
    moments: np.ndarray | None = None
    cells: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] | None = None
    values: np.ndarray | None = None

    def distance(self, label: int, marginals: np.ndarray | None) -> np.ndarray:
        """D(c, k) over the categories of label ``label`` (not for interval)."""
        cats = self.ann.categories[label]
        vals = None if self.values is None else self.values[label]
        where = self.ann.source.get(self.ann.labels[label], repr(self.ann.labels[label]))
        return distance_matrix(self.level, cats, vals, marginals, where)


def item_statistics(ann: Annotations, level: Level) -> ItemStats:
    """One pass over the annotations: moments, counts or sparse cells."""
    n_item, n_rep = len(ann.items), len(ann.replications)
    everything = np.ones((len(ann.labels), n_rep, n_item), dtype=np.bool_)
    values = ann.values(level.name) if level.numeric else None
    if level.uses_moments:
        assert values is not None
        known = ~np.isnan(values)
        lo = np.where(known, values, np.inf).min(axis=1, keepdims=True)
        hi = np.where(known, values, -np.inf).max(axis=1, keepdims=True)
        finite = np.isfinite(lo) & np.isfinite(hi)  # False for a label with no values
        center = (np.where(finite, lo, 0.0) + np.where(finite, hi, 0.0)) / 2.0
        values = np.where(known, values - center, 0.0)
        moments = kernels.grouped_moments(
            ann.item, ann.item, ann.replication, ann.codes, values, everything, n_item
        )
        return ItemStats(ann, level, moments[..., 0], moments=moments, values=values)
    if level.name == "nominal" and ann.n_category >= SPARSE_MIN_CATEGORIES:
        return _sparse_statistics(ann, level)
    _check_size(ann, level)
    counts, totals = kernels.grouped_counts(
        ann.item, ann.item, ann.replication, ann.codes, everything, n_item, ann.n_category
    )
    return ItemStats(ann, level, totals, counts=counts, values=values)


def _sparse_statistics(ann: Annotations, level: Level) -> ItemStats:
    n_item, n_rep, k = len(ann.items), len(ann.replications), ann.n_category
    cells = []
    item_n = np.zeros((len(ann.labels), n_rep, n_item))
    for lab in range(len(ann.labels)):
        ok = ann.codes[lab] >= 0
        key = (ann.replication[ok] * n_item + ann.item[ok]) * k + ann.codes[lab][ok]
        uniq, count = np.unique(key, return_counts=True)
        ri, cat = np.divmod(uniq, k)
        rep, item = np.divmod(ri, n_item)
        cells.append((rep, item, cat, count))
        item_n[lab] = np.bincount(ri, weights=count, minlength=n_rep * n_item).reshape(
            n_rep, n_item)
    return ItemStats(ann, level, item_n, cells=cells)


#: Largest per-item count table built (cells of int64: 8 bytes each, 2.4 GB).
MAX_COUNT_CELLS = 300_000_000


#: Largest K x K disagreement matrix built for one label (ordinal, ratio, custom).
MAX_MATRIX_CATEGORIES = 4096


def _check_size(ann: Annotations, level: Level) -> None:
    """Refuse, with the way out, a count table or K x K matrix too large for memory."""
    n_label, n_rep, n_item, k = (len(ann.labels), len(ann.replications), len(ann.items),
                                 ann.n_category)
    if k > MAX_MATRIX_CATEGORIES and level.name != "nominal":
        widest = max(range(n_label), key=lambda j: len(ann.categories[j]))
        where = ann.source.get(ann.labels[widest], repr(ann.labels[widest]))
        raise InputError(
            f"{where} has {k:,} categories; level={level.name!r} needs a {k:,} x {k:,} "
            "disagreement matrix. For numbers use level='interval' (no matrix), for "
            "labels level='nominal' (a sparse path), or merge categories."
        )
    cells = n_label * n_rep * n_item * k
    if cells > MAX_COUNT_CELLS:
        widest = max(range(n_label), key=lambda j: len(ann.categories[j]))
        where = ann.source.get(ann.labels[widest], repr(ann.labels[widest]))
        raise InputError(
            f"per-item category counts would need {cells * 8 / 1e9:.1f} GB: {k:,} categories "
            f"({where}) x {n_item:,} items x {n_rep} replication(s) x {n_label} label(s). "
            "For numeric values use level='interval' (it keeps three numbers per item); "
            "otherwise merge rare categories or pass fewer labels at a time with "
            ".xrr(value=[...])."
        )


@dataclass
class Estimates:
    """Coefficient values over (label, cell), with counts and NaN reasons.

    ``cell`` is a replication (IRR) or a replication pair (cross-kappa).
    ``counts`` maps a name (``n_items``, ``n_unpairable``, ...) to an int
    array of the same shape as ``value``; ``reason`` holds, where ``value``
    is NaN, why.
    """

    value: np.ndarray
    counts: dict[str, np.ndarray] = field(default_factory=dict)
    reason: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.reason is None:
            self.reason = np.full(self.value.shape, "", dtype=object)

    def undefined(self, where: np.ndarray, why: str) -> None:
        """Set ``value`` to NaN where ``where`` holds and no earlier reason applies."""
        assert self.reason is not None
        new = where & (self.reason == "")
        self.value[new] = np.nan
        self.reason[new] = why


def one_minus_ratio(num: np.ndarray, den: np.ndarray, est: Estimates, why_zero: str) -> None:
    """``est.value = 1 - num / den``, NaN with a reason where ``den`` is 0."""
    zero = ~(den > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        est.value[...] = np.where(zero, np.nan, 1.0 - num / np.where(zero, 1.0, den))
    est.undefined(zero, why_zero)
