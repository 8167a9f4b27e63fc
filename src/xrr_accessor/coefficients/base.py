"""Shared pieces of every coefficient: the finalize context and the estimate container."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..engine.additive import Meta
from ..engine.levels import Level, distance_matrix

__all__ = ["ROUNDING", "Context", "Estimates", "chance_defined", "chance_kappa", "defined",
           "one_minus_ratio"]


@dataclass(frozen=True)
class Context:
    """What a finalize step knows besides the statistics: level, categories, names.

    Built once per call from the encoded annotations' indexes (never their
    codes): the label's categories give D, the names make messages.
    """

    meta: Meta
    level: Level
    categories: tuple[pd.Index, ...]
    labels: tuple[str, ...]
    replications: pd.Index
    raters: pd.Index
    has_replication: bool = True

    def tiled(self, n: int) -> Context:
        """This context for ``n`` copies of its labels (see :meth:`Meta.tiled`)."""
        return replace(self, meta=self.meta.tiled(n), categories=self.categories * n,
                       labels=self.labels * n)

    def where(self, label: int, replication: int | None = None) -> str:
        """Names a label (and replication) in messages."""
        out = self.labels[label]
        if replication is not None and self.has_replication:
            out += f" in replication {self.replications[replication]!r}"
        return out

    def distance(self, label: int, marginals: np.ndarray | None) -> np.ndarray:
        """D(c, k) over the categories of ``label`` (K x K; not for interval)."""
        values = None if self.meta.values is None else self.meta.values[label]
        return distance_matrix(self.level, self.categories[label], values, marginals,
                               self.labels[label])

    def weights(self, label: int) -> np.ndarray | None:
        """Agreement weights 1 - D of ``label``, or None for the identity (vector form)."""
        if self.meta.form == "vector":
            return None
        return 1.0 - self.distance(label, None)


@dataclass
class Estimates:
    """Coefficient values over (label, cell), with counts and NaN reasons.

    ``cell`` is a replication (IRR) or a replication pair (cross-kappa).
    ``counts`` maps a name (``n_items``, ``n_unpairable``, ...) to an int
    array of the same shape as ``value``; ``extras`` holds float side results
    (``pa``, ``pe``); ``reason`` holds, where ``value`` is NaN, why.
    """

    value: np.ndarray
    counts: dict[str, np.ndarray] = field(default_factory=dict)
    reason: np.ndarray | None = None
    extras: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.reason is None:
            self.reason = np.full(self.value.shape, "", dtype=object)

    def undefined(self, where: np.ndarray, why: str) -> None:
        """Set ``value`` to NaN where ``where`` holds and no earlier reason applies."""
        assert self.reason is not None
        new = where & (self.reason == "")
        self.value[new] = np.nan
        self.reason[new] = why


def rounded_counts(x: np.ndarray) -> np.ndarray:
    """Weighted item counts (float sums of weights) as int64."""
    return np.rint(x).astype(np.int64)


#: Relative size below which an expected disagreement that is a difference of sums
#: of squares (``sxx - sx**2 / n``) is rounding, not disagreement.
ROUNDING = 1e-11


def defined(den: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Where a coefficient ``1 - num / den`` is defined: the one rule of the package.

    ``den`` is an expected disagreement. Built from counts it is exact, and
    defined where ``> 0``; built as a difference of sums of squares, pass
    ``scale`` (the size of the sums it is a difference of): defined where
    ``den > ROUNDING * |scale|``, as a flat set of numbers leaves rounding there.

    Examples
    --------
    >>> defined(np.array([0.0, 1e-3, 1e-15]), np.array([1.0, 1.0, 1.0])).tolist()
    [False, True, False]
    """
    limit = 0.0 if scale is None else ROUNDING * np.abs(scale)
    return np.asarray(den > limit)


def chance_defined(p_e: np.ndarray) -> np.ndarray:
    """Where a kappa ``(p_a - p_e) / (1 - p_e)`` from proportions is defined: the
    same rule, :func:`defined`, with ``1 - p_e`` the expected disagreement and 1 the
    size of the proportions it is a difference of.

    Examples
    --------
    >>> chance_defined(np.array([0.5, 1.0, 1.0 - 1e-15])).tolist()
    [True, False, False]
    """
    p_e = np.asarray(p_e, dtype=float)
    return defined(1.0 - p_e, np.ones_like(p_e))


def chance_kappa(p_a: np.ndarray, p_e: np.ndarray) -> np.ndarray:
    """``(p_a - p_e) / (1 - p_e)`` where :func:`chance_defined`, else NaN: the one
    finalize of the kappas from proportions (the registry's chance family, augmented
    kappa, sharpen).

    Examples
    --------
    >>> chance_kappa(np.array([0.75, 1.0]), np.array([0.5, 1.0])).tolist()
    [0.5, nan]
    """
    p_a, p_e = np.asarray(p_a, dtype=float), np.asarray(p_e, dtype=float)
    ok = chance_defined(p_e)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, (p_a - p_e) / np.where(ok, 1.0 - p_e, 1.0), np.nan)


def one_minus_ratio(num: np.ndarray, den: np.ndarray, est: Estimates, why_zero: str,
                    scale: np.ndarray | None = None) -> None:
    """``est.value = 1 - num / den``, NaN with a reason where ``den`` is not
    :func:`defined` (0, or rounding of the sums of size ``scale`` it is a difference of)."""
    zero = ~defined(den, scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        est.value[...] = np.where(zero, np.nan, 1.0 - num / np.where(zero, 1.0, den))
    est.undefined(zero, why_zero)
    est.value[est.reason != ""] = np.nan
