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

__all__ = ["Advantage", "advantage_intervals", "memory_sums", "plan_draws", "records",
           "sums_of"]

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


def records(c: Cast, o: Outcomes, k: int, keep: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Candidate ``k``'s comparisons: (item, human, candidate won) and the number of
    humans, ``human`` numbering the raters marked by ``keep`` (the humans tested), or
    every rater (``keep`` None: a partition, which cannot know whom the call tests)."""
    rows = np.flatnonzero(o.records[k])
    rater = c.ann.rater[rows]
    if keep is None:
        position, n = np.arange(len(c.ann.raters), dtype=np.int64), len(c.ann.raters)
    else:
        at = np.flatnonzero(keep)
        position = np.full(len(c.ann.raters), -1, dtype=np.int64)
        position[at] = np.arange(len(at))
        n = len(at)
    mine = position[rater] >= 0
    rows = rows[mine]
    outcome = o.records[k, rows]
    wins = ((outcome == CANDIDATE) | (outcome == TIE)).astype(np.int64)
    return (np.ascontiguousarray(c.ann.item[rows], dtype=np.int64), position[rater[mine]],
            wins, n)


def sums_of(cells: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]], draws: Draws,
          keys: np.ndarray, first: int = 0) -> list[dict[str, np.ndarray]]:
    """For each cell (item, human, wins, humans: :func:`records`), each human's compared
    items and the candidate's wins among them under every replicate's item weights
    (``boot_n``, ``boot_won``: (H, n_boot)) and per jackknife group (``group_n``,
    ``group_won``: (H, G)): sums over items, so over partitions (``keys``: the item keys,
    ``first``: the first item's number for a leave-one-out jackknife). Each block of
    item weights is drawn once for every cell."""
    n_boot = len(draws.seeds)
    out = [{"boot_n": np.zeros((h, n_boot)), "boot_won": np.zeros((h, n_boot))}
           for *_, h in cells]
    for lo in range(0, n_boot, BLOCK):
        hi = min(n_boot, lo + BLOCK)
        weights = draws.weights(keys, lo, hi)
        for (item, human, wins, h), o in zip(cells, out, strict=True):
            o["boot_n"][:, lo:hi], o["boot_won"][:, lo:hi] = alt_weighted(
                item, human, wins, weights, h)
    if draws.groups:
        member = draws.members(keys, first)
        for (item, human, wins, h), o in zip(cells, out, strict=True):
            o["group_n"], o["group_won"] = alt_grouped(member[item], human, wins,
                                                       draws.groups, h)
    return out


def _mean_share(n: np.ndarray, won: np.ndarray) -> np.ndarray:
    """Mean over humans (axis 0) of won / n, leaving out humans with n = 0."""
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, won / np.where(n > 0, n, 1.0), np.nan)
        present = np.isfinite(share).sum(axis=0)
        return np.where(present > 0, np.nansum(share, axis=0) / np.maximum(present, 1),
                        np.nan)


def plan_draws(n_items: int, opts: Bootstrap) -> Draws:
    """The call's keyed draws (the same as every call with this seed)."""
    return Draws.plan(n_items, opts.n_boot, opts.seed, jackknife=opts.interval == "bca")


def memory_sums(c: Cast, found: list[Outcomes], decisions: list[list[Decision]],
                draws: Draws) -> dict[tuple[int, int], dict[str, np.ndarray]]:
    """:func:`sums_of` every label and candidate, over the humans tested, from the
    comparisons of the annotations in memory."""
    at = [(j, k) for j in range(len(found)) for k in range(len(decisions[j]))]
    cells = [records(c, found[j], k, decisions[j][k].tested) for j, k in at]
    return dict(zip(at, sums_of(cells, draws, item_keys(c.ann.items)), strict=True))


def advantage_intervals(c: Cast, decisions: list[list[Decision]],
                        sums: dict[tuple[int, int], dict[str, np.ndarray]], draws: Draws,
                        level: float, opts: Bootstrap) -> Advantage:
    """Every advantage probability's replicates (and jackknife) from the humans' sums
    (:func:`sums_of`, over the humans tested, ``sums[(label, candidate)]``), their
    intervals, and the paired differences of every two candidates per label."""
    n_labels, n_cand = len(decisions), len(c.candidates)
    boot = np.full((opts.n_boot, n_labels, n_cand), np.nan)
    jack = np.full((draws.groups, n_labels, n_cand), np.nan) if draws.groups else None
    for (j, k), s in sums.items():
        if not s["boot_n"].shape[0]:
            continue  # no human tested
        boot[:, j, k] = _mean_share(s["boot_n"], s["boot_won"])
        if jack is not None:
            n_g, won_g = s["group_n"], s["group_won"]
            n_all, won_all = n_g.sum(axis=1, keepdims=True), won_g.sum(axis=1, keepdims=True)
            jack[:, j, k] = _mean_share(n_all - n_g, won_all - won_g)
    point = np.array([[decisions[j][k].advantage for k in range(n_cand)]
                      for j in range(n_labels)], dtype=float)
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
