"""Shared pieces of every coefficient: per-item statistics and the estimate container."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import kernels
from ..errors import InputError
from ..levels import Level, distance_matrix
from ..schema import Annotations

__all__ = ["Estimates", "ItemStats", "item_statistics"]


@dataclass
class ItemStats:
    """Per-item sufficient statistics of every (label, replication).

    Exactly one of ``counts`` (L, R, n, K) int64 and ``moments`` (L, R, n, 3)
    float64 is set: moments for the interval level, counts otherwise.
    ``values`` (L, K) holds the numeric category values (centered per label
    for interval data, which leaves every interval coefficient unchanged and
    keeps sums of squares well conditioned), or None for non-numeric levels.
    """

    ann: Annotations
    level: Level
    counts: np.ndarray | None
    moments: np.ndarray | None
    values: np.ndarray | None

    @property
    def per_item_n(self) -> np.ndarray:
        """Annotations per (label, replication, item): (L, R, n)."""
        if self.moments is not None:
            return self.moments[..., 0]
        assert self.counts is not None
        return self.counts.sum(axis=-1)

    def distance(self, label: int, marginals: np.ndarray | None) -> np.ndarray:
        """D(c, k) over the categories of label ``label`` (not for interval)."""
        cats = self.ann.categories[label]
        vals = None if self.values is None else self.values[label]
        where = self.ann.source.get(self.ann.labels[label], repr(self.ann.labels[label]))
        return distance_matrix(self.level, cats, vals, marginals, where)


def item_statistics(ann: Annotations, level: Level) -> ItemStats:
    """One pass over the annotations: counts, or moments for interval data."""
    n_item = len(ann.items)
    everything = np.ones((len(ann.labels), len(ann.replications), n_item), dtype=np.bool_)
    values = ann.values(level.name) if level.numeric else None
    if level.uses_moments:
        assert values is not None
        lo = np.nanmin(np.where(np.isnan(values), np.inf, values), axis=1, keepdims=True)
        hi = np.nanmax(np.where(np.isnan(values), -np.inf, values), axis=1, keepdims=True)
        center = np.where(np.isfinite(lo + hi), (lo + hi) / 2.0, 0.0)
        values = np.where(np.isnan(values), 0.0, values - center)
        moments = kernels.grouped_moments(
            ann.item, ann.item, ann.replication, ann.codes, values, everything, n_item
        )
        return ItemStats(ann, level, None, moments, values)
    _check_size(ann)
    counts = kernels.grouped_counts(
        ann.item, ann.item, ann.replication, ann.codes, everything, n_item, ann.n_category
    )
    return ItemStats(ann, level, counts, None, values)


#: Largest per-item count table built (cells of int64: 8 bytes each, 2.4 GB).
MAX_COUNT_CELLS = 300_000_000


def _check_size(ann: Annotations) -> None:
    """Refuse, with the way out, a per-item count table too large for memory."""
    n_label, n_rep, n_item, k = (len(ann.labels), len(ann.replications), len(ann.items),
                                 ann.n_category)
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
