"""Normalized kappa_x (Wong, Paritosh & Aroyo 2021, Eq 13) from the same statistics.

kappa_x(X, Y) / (sqrt(IRR_X) sqrt(IRR_Y)); or, normalizing by a reference
replication (Section 6: crowd against experts), kappa_x(X, ref) / IRR_ref.
Undefined where an IRR used is <= 0 (or within 1e-12 of 0, where its sign is
rounding noise) or NaN.
"""

from __future__ import annotations

import numpy as np

from ..statistics import Stats
from .base import Context, Estimates
from .cross import cross_kappa

__all__ = ["IRR_TOLERANCE", "normalized"]

#: IRRs at or below this are zero up to rounding: normalized kappa_x is undefined.
IRR_TOLERANCE = 1e-12


def normalized(stats: Stats, ctx: Context, irr: str = "alpha",
               reference: int | None = None) -> Estimates:
    """kappa_x / sqrt(IRR_a IRR_b) per (label, pair), or kappa_x / IRR_ref.

    ``irr`` names the normalizing IRR in the registry (its statistics must
    have been computed in the same pass); ``reference`` is the code of the
    reference replication, which every pair of the call includes.
    """
    from .registry import lookup

    kx = cross_kappa(stats, ctx)
    rel = lookup(irr).finalize(stats, ctx).value
    pairs = ctx.meta.pairs
    by_reference = reference is not None
    if by_reference:  # put the reference second
        pairs = np.where((pairs[:, :1] == reference), pairs[:, ::-1], pairs)
    ra, rb = rel[:, pairs[:, 0]], rel[:, pairs[:, 1]]
    bad = ~(rb > IRR_TOLERANCE) if by_reference else ~((ra > IRR_TOLERANCE) &
                                                       (rb > IRR_TOLERANCE))
    denom = rb if by_reference else np.sqrt(np.where(bad, 1.0, ra * rb))
    est = Estimates(np.where(bad, np.nan, kx.value / np.where(bad, 1.0, denom)),
                    counts=dict(kx.counts), reason=kx.reason.copy())
    reps = ctx.replications
    for lab, p in np.argwhere(bad):
        low = [(reps[r], rel[lab, r]) for r in pairs[p] if not rel[lab, r] > IRR_TOLERANCE]
        if by_reference:
            low = low[-1:]
        cell = np.zeros(bad.shape, dtype=bool)
        cell[lab, p] = True
        est.undefined(cell, f"IRR ({irr}) of " + ", ".join(
            f"{name!s} is {value:.3g}" for name, value in low) + ", not > 0")
    return est
