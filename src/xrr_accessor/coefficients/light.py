"""Light's (1971) kappa: the mean of Cohen's kappa over all pairs of raters.

Each pair of raters uses the items both rated. The statistics hold, per
label and replication, the K x K table of every rater pair g < h over their
shared items (``joint``), so the B (B - 1) / 2 kappas come from one pass.
"""

from __future__ import annotations

import numpy as np

from ..engine.additive import Stats
from .base import Context, Estimates
from .sums import rater_totals

__all__ = ["MAX_LIGHT_RATERS", "light"]

CITATION = "Light (1971)"

#: Light's kappa averages over rater pairs; beyond this many raters it is NaN.
MAX_LIGHT_RATERS = 100


def _cohen(joint: np.ndarray, w: np.ndarray | None) -> float:
    """Weighted Cohen's kappa of a K x K table of counts (NaN if undefined)."""
    n = joint.sum()
    if n == 0:
        return np.nan
    p = joint / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    if w is None:
        p_o, p_e = np.trace(p), rows @ cols
    else:
        p_o, p_e = (w * p).sum(), (w * np.outer(rows, cols)).sum()
    return np.nan if p_e >= 1 else (p_o - p_e) / (1 - p_e)


def light(stats: Stats, ctx: Context) -> Estimates:
    """Light's kappa per (label, replication), weighted through the weights.

    Pairs of raters with no shared item, or whose kappa is undefined, are left
    out and counted in ``n_pairs_left_out``. With more than
    :data:`MAX_LIGHT_RATERS` raters (or a pair table too large to hold) the
    value is NaN with that reason.
    """
    present = rater_totals(stats) > 0
    b = present.sum(axis=-1)
    shape = b.shape
    est = Estimates(np.full(shape, np.nan), counts={
        "n_raters": b.astype(np.int64),
        "n_pairs": np.zeros(shape, dtype=np.int64),
        "n_pairs_left_out": np.zeros(shape, dtype=np.int64),
    })
    est.undefined(b < 2, "fewer than two raters")
    est.undefined(b > MAX_LIGHT_RATERS,
                  f"more than {MAX_LIGHT_RATERS} raters: Light's kappa averages over every "
                  "rater pair; use fleiss, conger or alpha")
    if "joint" not in stats:
        est.undefined(b >= 2, "too many raters and categories for the rater-pair tables of "
                      "Light's kappa; use fleiss, conger or alpha")
        return est
    joint = stats["joint"]
    assert est.reason is not None  # filled by Estimates.__post_init__
    for lab, r in np.ndindex(shape):
        if est.reason[lab, r] != "":
            continue
        k = ctx.meta.n_categories[lab]
        w = ctx.weights(lab)
        raters = np.flatnonzero(present[lab, r])
        kappas = np.array([_cohen(joint[lab, r, g, h, :k, :k], w)
                           for i, g in enumerate(raters) for h in raters[i + 1:]])
        ok = np.isfinite(kappas)
        est.counts["n_pairs"][lab, r] = ok.sum()
        est.counts["n_pairs_left_out"][lab, r] = (~ok).sum()
        if ok.any():
            est.value[lab, r] = kappas[ok].mean()
    est.undefined(est.counts["n_pairs"] == 0,
                  "no pair of raters has a defined Cohen's kappa (no shared items, or one "
                  "category only)")
    return est
