"""Bootstrap intervals of the advantage probability and of differences between candidates.

The engine's keyed item draws (:class:`~xrr_accessor.engine.draws.Draws`): item i's
weight in replicate b is a Poisson(1) draw keyed by (seed, b, the item's id), the same
draws as every other call with that seed, so a candidate's interval here and kappa_x's
in :func:`~xrr_accessor.compare` come from the same resampled items. Under the weights,
each human's compared items and the candidate's wins among them are weighted sums over
the comparisons (:func:`~xrr_accessor.kernels.alt.alt_weighted`); the advantage
probability of a replicate is the mean over the humans tested in the estimate of their
weighted share of wins (a human whose items all drew weight 0 sits that replicate out).
Every candidate and label is resampled with the same weights, so the difference of two
candidates' advantage probabilities has a paired interval. BCa's jackknife leaves out
one item (up to 200 items) or one of 200 keyed groups of items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..diagnostics._common import multi_index
from ..engine.draws import Draws, item_keys
from ..errors import UndefinedWarning, warn
from ..kernels.alt import CANDIDATE, TIE, alt_grouped, alt_weighted
from ..uncertainty.intervals import Bootstrap, limits, p_value, standard_error
from .alignment import Outcomes
from .cast import Cast
from .decide import Decision

__all__ = ["Advantage", "advantage_intervals", "records"]

#: Replicates per block of item weights.
BLOCK = 64


@dataclass(frozen=True)
class Advantage:
    """The summary's interval columns (``advantage_se``, ``advantage_lower``,
    ``advantage_upper``, in the summary's row order), the candidates' paired
    ``differences`` (None with one candidate), and the seed the draws came from."""

    columns: dict[str, np.ndarray]
    differences: pd.DataFrame | None
    seed: int


def records(c: Cast, o: Outcomes, d: Decision, k: int
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Candidate ``k``'s comparisons with the humans tested: (item, human position
    among the tested, candidate won), and how many humans were tested."""
    tested = np.flatnonzero(d.tested)
    rows = np.flatnonzero(o.records[k])
    rater = c.ann.rater[rows]
    position = np.full(len(c.ann.raters), -1, dtype=np.int64)
    position[tested] = np.arange(len(tested))
    keep = position[rater] >= 0
    rows = rows[keep]
    outcome = o.records[k, rows]
    wins = ((outcome == CANDIDATE) | (outcome == TIE)).astype(np.int64)
    return (np.ascontiguousarray(c.ann.item[rows], dtype=np.int64), position[rater[keep]],
            wins, len(tested))


def _mean_share(n: np.ndarray, won: np.ndarray) -> np.ndarray:
    """Mean over humans (axis 0) of won / n, leaving out humans with n = 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, won / np.where(n > 0, n, 1.0), np.nan)
        present = np.isfinite(share).sum(axis=0)
        return np.where(present > 0, np.nansum(share, axis=0) / np.maximum(present, 1),
                        np.nan)


def advantage_intervals(c: Cast, found: list[Outcomes], decisions: list[list[Decision]],
                        level: float, opts: Bootstrap) -> Advantage:
    """Bootstrap (and jackknife) replicates of every advantage probability of the call,
    their intervals, and the paired differences of every two candidates per label."""
    n_items = len(c.ann.items)
    n_labels, n_cand = len(found), len(c.candidates)
    draws = Draws.plan(n_items, opts.n_boot, opts.seed, jackknife=opts.interval == "bca")
    keys = item_keys(c.ann.items)
    cells = [(j, k, records(c, found[j], decisions[j][k], k))
             for j in range(n_labels) for k in range(n_cand)]
    boot = np.full((opts.n_boot, n_labels, n_cand), np.nan)
    for lo in range(0, opts.n_boot, BLOCK):
        hi = min(opts.n_boot, lo + BLOCK)
        weights = draws.weights(keys, lo, hi)
        for j, k, (item, human, wins, h) in cells:
            if h:
                n, won = alt_weighted(item, human, wins, weights, h)
                boot[lo:hi, j, k] = _mean_share(n, won)
    point = np.array([[decisions[j][k].advantage for k in range(n_cand)]
                      for j in range(n_labels)], dtype=float)
    jack = None
    if draws.groups:
        member = draws.members(keys)
        jack = np.full((draws.groups, n_labels, n_cand), np.nan)
        for j, k, (item, human, wins, h) in cells:
            if h:
                n_g, won_g = alt_grouped(member[item], human, wins, draws.groups, h)
                n_all, won_all = n_g.sum(axis=1, keepdims=True), won_g.sum(axis=1,
                                                                           keepdims=True)
                jack[:, j, k] = _mean_share(n_all - n_g, won_all - won_g)
    with np.errstate(invalid="ignore"):
        lower, upper = limits(point, boot, level, opts.interval, jack)
    se = standard_error(boot)
    for arr in (lower, upper, se):
        arr[~np.isfinite(point)] = np.nan
    columns = {"advantage_se": se.reshape(-1), "advantage_lower": lower.reshape(-1),
               "advantage_upper": upper.reshape(-1)}
    return Advantage(columns, _differences(c, point, boot, jack, level, opts),
                     draws.entropy)


def _differences(c: Cast, point: np.ndarray, boot: np.ndarray, jack: np.ndarray | None,
                 level: float, opts: Bootstrap) -> pd.DataFrame | None:
    """advantage(A) - advantage(B) for every pair of candidates A before B, per label."""
    n_labels, n_cand = point.shape
    pairs = [(a, b) for a in range(n_cand) for b in range(a + 1, n_cand)]
    if not pairs:
        return None
    a, b = np.array(pairs).T
    est = point[:, a] - point[:, b]
    reps = boot[:, :, a] - boot[:, :, b]
    jk = None if jack is None else jack[:, :, a] - jack[:, :, b]
    with np.errstate(invalid="ignore"):
        lower, upper = limits(est, reps, level, opts.interval, jk)
        p = p_value(reps, 0.0, opts.interval, est, jk)
    se = standard_error(reps)
    bad = ~np.isfinite(est)
    for arr in (lower, upper, se, p):
        arr[bad] = np.nan
    lost = (~np.isfinite(reps)).sum(axis=0)
    if (lost[~bad] > 0).any():
        warn(f"some bootstrap replicates of the advantage probability differences are "
             f"undefined (a candidate with no tested human left in the draw); "
             f"{int(lost.max())} of {opts.n_boot} at most, left out.", UndefinedWarning)
    lab = np.repeat(np.arange(n_labels), len(pairs))
    names = pd.Index(c.candidate_names)
    return pd.DataFrame({
        "estimate": est.reshape(-1), "se": se.reshape(-1), "lower": lower.reshape(-1),
        "upper": upper.reshape(-1), "p_value": p.reshape(-1),
    }, index=multi_index([("label", c.ann.labels, lab),
                          ("candidate", names.rename("candidate"), np.tile(a, n_labels)),
                          ("candidate_other", names.rename("candidate_other"),
                           np.tile(b, n_labels))]))
