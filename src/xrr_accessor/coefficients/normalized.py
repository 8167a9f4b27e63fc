"""Normalized kappa_x (Wong, Paritosh & Aroyo 2021, Eq 13) from the same statistics.

kappa_x(X, Y) / (sqrt(IRR_X) sqrt(IRR_Y)); or, normalizing by a reference
replication (Section 6: crowd against experts), kappa_x(X, ref) / IRR_ref.
Undefined where an IRR used is <= 0 (or within 1e-12 of 0, where its sign is
rounding noise) or NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.additive import Stats
from .base import Context, Estimates

__all__ = ["IRR_TOLERANCE", "normalize", "normalized"]

#: IRRs at or below this are zero up to rounding: normalized kappa_x is undefined.
IRR_TOLERANCE = 1e-12


def oriented(pairs: np.ndarray, reference: int | None) -> np.ndarray:
    """``pairs`` with the reference replication second (as given without one)."""
    if reference is None:
        return pairs
    return np.where((pairs[:, :1] == reference), pairs[:, ::-1], pairs)


def normalize(kappa_x: np.ndarray, irr: np.ndarray, pairs: np.ndarray,
              reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Eq 13 on values: (normalized (L, P), undefined (L, P)).

    ``kappa_x`` (L, P) per label and replication pair, ``irr`` (L, R) per
    label and replication, ``pairs`` (P, 2) the replications of each pair;
    with ``reference`` (a replication every pair includes) kappa_x / IRR_ref.

    Examples
    --------
    Shame, Mexico City x Budapest, in the paper's Table 5:

    >>> value, bad = normalize(np.array([[0.106]]), np.array([[0.0192, 0.1261]]),
    ...                        np.array([[0, 1]]))
    >>> round(float(value[0, 0]), 3)
    2.154
    """
    pairs = oriented(pairs, reference)
    ra, rb = irr[:, pairs[:, 0]], irr[:, pairs[:, 1]]
    bad = ~(rb > IRR_TOLERANCE) if reference is not None else ~(
        (ra > IRR_TOLERANCE) & (rb > IRR_TOLERANCE))
    denom = rb if reference is not None else np.sqrt(np.where(bad, 1.0, ra * rb))
    return np.where(bad, np.nan, kappa_x / np.where(bad, 1.0, denom)), bad


def normalized(stats: Stats, ctx: Context, kx: Estimates, rel_est: Estimates,
               irr: str = "alpha", reference: int | None = None) -> Estimates:
    """kappa_x / sqrt(IRR_a IRR_b) per (label, pair), or kappa_x / IRR_ref.

    ``kx`` and ``rel_est`` are the call's kappa_x and normalizing IRR (named
    ``irr``), finalized from the same statistics (the registry declares them:
    :func:`~xrr_accessor.coefficients.registry.finalize` resolves them);
    ``reference`` is the code of the reference replication, which every pair
    of the call includes.
    """
    rel = rel_est.value
    value, bad = normalize(kx.value, rel, ctx.meta.pairs, reference)
    pairs = oriented(ctx.meta.pairs, reference)
    est = Estimates(value, counts=dict(kx.counts),
                    reason=None if kx.reason is None else kx.reason.copy())
    for lab, p in np.argwhere(bad):
        cell = np.zeros(bad.shape, dtype=bool)
        cell[lab, p] = True
        est.undefined(cell, _why(irr, rel[lab], rel_est.counts.get("n_items"), lab,
                                 pairs[p], ctx.replications, reference is not None))
    return est


def _why(irr: str, rel: np.ndarray, n_items: np.ndarray | None, lab: int, pair: np.ndarray,
         reps: Any, by_reference: bool) -> str:
    """Why normalized kappa_x of one (label, pair) is undefined, and what to read instead."""
    low = [r for r in pair if not rel[r] > IRR_TOLERANCE]
    if by_reference:
        low = low[-1:]
    single = [r for r in low if n_items is not None and n_items[lab, r] == 0]
    if single:  # one annotation per item: a single rater (e.g. a gold standard)
        r = single[0]
        other = pair[0] if r == pair[1] else pair[1]
        instead = (f", or use reference={str(reps[other])!r} to divide by the IRR of "
                   f"{reps[other]!s}") if rel[other] > IRR_TOLERANCE else ""
        return (f"{reps[r]!s} has no item with two annotations, so no IRR ({irr}) to "
                f"normalize by (a single rater, such as one expert's gold labels): read "
                f"kappa_x itself, the agreement with {reps[r]!s}{instead}")
    return f"IRR ({irr}) of " + ", ".join(
        f"{reps[r]!s} is {rel[r]:.3g}" for r in low) + ", not > 0"
