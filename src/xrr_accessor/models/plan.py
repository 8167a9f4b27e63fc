"""How many items and humans does the alternative annotator test need? A simulation.

The procedure of the test's authors (Calderon, Reichart & Dror 2025, Appendix C; their
repository's simulation): for each simulated data set, category priors are drawn from a
flat Dirichlet; each item gets a gold label from the priors; each human annotator gives
the gold label with probability 1 - ``human_noise`` and otherwise a label drawn from the
priors (so the noise sets the humans' agreement), and the candidate likewise with
``candidate_noise``. From a pool of items and annotators, ``n_draws`` subsets of each
size (items and humans drawn without replacement) are tested at each epsilon. The table
says, per size and epsilon, how often the candidate passes (the test's power for a
candidate that good), its mean winning rate and advantage probability (with the 5th and
95th percentiles over draws), beside the simulated humans' agreement (mean pairwise
Cohen's kappa) and the candidate's accuracy against the gold, so the simulation can be
matched to the data at hand. The test itself runs on the library's kernel
(:func:`~.alignment.outcomes`), once per draw for every epsilon.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics._common import Read
from ..engine.levels import Level
from ..errors import InputError, per_call
from ..schema import Annotations
from .alignment import Scoring, by_item, outcomes
from .alt_test import options
from .cast import Cast
from .decide import decide

__all__ = ["plan_alt_test"]

_NOMINAL = Level("nominal")


def _sizes(values: Any, name: str, least: int, one: bool = False) -> list[int]:
    """Whole numbers >= ``least``: one, or (unless ``one``) a list of them."""
    seq = [values] if isinstance(values, numbers.Integral) else (
        [] if one or isinstance(values, str) else list(values))
    if not seq or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                          and int(v) >= least for v in seq):
        what = "a whole number" if one else "whole numbers (one or a list), each"
        raise InputError(f"{name}={values!r}: it must be {what} >= {least}.")
    return sorted({int(v) for v in seq})


def _noise(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            0 <= float(value) <= 1):
        raise InputError(f"{name}={value!r} is a share in [0, 1]: how often an annotator "
                         "gives a label drawn from the priors instead of the gold one.")
    return float(value)


def _labels(rng: np.random.Generator, gold: np.ndarray, priors: np.ndarray, noise: float,
            shape: tuple[int, ...]) -> np.ndarray:
    """Gold with probability 1 - noise, else a draw from the priors (the authors'
    mixture: probs = noise * priors + (1 - noise) * one_hot(gold))."""
    keep = rng.random(shape) >= noise
    drawn = rng.choice(len(priors), size=shape, p=priors)
    return np.where(keep, np.broadcast_to(gold, shape), drawn)


def _finite_mean(values: Any) -> float:
    """The mean of the finite values (NaN, without a warning, when there are none)."""
    arr = np.asarray(values, dtype=float)
    arr = arr[np.isfinite(arr)]
    return float(arr.mean()) if arr.size else np.nan


def _kappa(a: np.ndarray, b: np.ndarray, k: int) -> float:
    """Cohen's kappa of two complete label vectors (NaN when chance agreement is 1)."""
    pa = float(np.mean(a == b))
    pe = float(np.dot(np.bincount(a, minlength=k), np.bincount(b, minlength=k))) / len(a) ** 2
    return (pa - pe) / (1 - pe) if pe < 1 else np.nan


def _cast(humans: np.ndarray, candidate: np.ndarray, k: int) -> Cast:
    """Annotations of an items x humans grid and a candidate's labels, in the
    library's codes: replication 0 the humans, 1 the candidate."""
    n, h = humans.shape
    item = np.concatenate([np.repeat(np.arange(n), h), np.arange(n)])
    rater = np.concatenate([np.tile(np.arange(h), n), np.full(n, h)])
    rep = np.concatenate([np.zeros(n * h, dtype=np.int64), np.ones(n, dtype=np.int64)])
    codes = np.concatenate([humans.reshape(-1), candidate])[None, :].astype(np.int64)
    ann = Annotations(item=item, rater=rater, replication=rep, codes=codes,
                      items=pd.RangeIndex(n), raters=pd.RangeIndex(h + 1),
                      replications=pd.Index(["humans", "candidate"]),
                      labels=pd.Index(["label"]), categories=(pd.RangeIndex(k),),
                      has_label=False, has_replication=True)
    return Cast(ann, _NOMINAL, 0, (1,))


@per_call
def plan_alt_test(
    n_items: Any = (30, 50, 100, 200), n_humans: Any = 3, epsilon: Any = (0.1, 0.15, 0.2),
    categories: int = 4, human_noise: float = 0.3, candidate_noise: float = 0.3,
    q: float = 0.05, min_items: int = 30, n_datasets: int = 20, n_draws: int = 10,
    power: float = 0.8, seed: int | None = 0,
) -> pd.DataFrame:
    """Simulated power of the alternative annotator test (the authors' Appendix C).

    Parameters
    ----------
    n_items : int or sequence of int
        Items per test (default 30, 50, 100, 200).
    n_humans : int or sequence of int
        Human annotators per test (default 3, the authors' recommended least; each
        annotates every item, so each is tested on ``n_items`` items).
    epsilon : float or sequence of float
        Cost-benefit margins to try.
    categories : int
        Labels in the task (default 4).
    human_noise, candidate_noise : float
        How often a human (the candidate) gives a label drawn from the priors instead
        of the gold one: 0.1, 0.2, 0.3, 0.4 give the humans a Cohen's kappa of about
        0.80, 0.63, 0.48, 0.36 (the table's ``human_kappa`` says it for the draws).
    q : float
        False discovery rate of the test.
    min_items : int
        As :func:`~xrr_accessor.alt_test`'s: with fewer items than this no human is
        tested (the row's ``passed`` is then 0 and its ``winning_rate`` NaN).
    n_datasets, n_draws : int
        Simulated data sets (each with its own priors), and draws of items and humans
        per data set and size.
    power : float
        ``attrs["needed"]`` gives, per epsilon and number of humans, the fewest items
        at which at least this share of draws pass.
    seed : int or None
        The simulation's seed. A data set's labels depend on the seed and its number,
        a size's draws on those and the size, so adding a size (or more data sets)
        leaves the other rows as they were. The pool each draw is taken from has
        ``max(2 * max(n_items), 500)`` items and ``max(2 * max(n_humans), 6)`` humans.

    Returns
    -------
    DataFrame
        One row per ``n_humans``, ``n_items`` and ``epsilon``: ``passed`` (share of the
        draws in which the candidate passes), ``winning_rate`` (mean),
        ``advantage_probability`` (mean) with ``advantage_p05`` and ``advantage_p95``,
        ``human_kappa`` (mean pairwise Cohen's kappa of the humans drawn) and
        ``candidate_accuracy`` (against the gold); ``attrs["needed"]`` maps
        ``"epsilon 0.2, 3 humans"`` to the fewest items that pass with ``power``, or None.

    Examples
    --------
    Humans at kappa about 0.48 and a candidate as noisy as one of them, three humans,
    epsilon 0.2 (a small run; the default is 20 data sets x 10 draws):

    >>> table = plan_alt_test(n_items=[30, 100], epsilon=0.2, n_datasets=4, n_draws=5)
    >>> table[["n_items", "passed", "human_kappa"]].round(2)
       n_items  passed  human_kappa
    0       30    0.60         0.45
    1      100    0.95         0.46
    >>> table.attrs["needed"]
    {'epsilon 0.2, 3 humans': 100}
    """
    items = _sizes(n_items, "n_items", 2)
    humans = _sizes(n_humans, "n_humans", 2)
    eps_list = [options(e, q, 2, 2)[0] for e in (
        [epsilon] if isinstance(epsilon, numbers.Real) else list(epsilon))]
    if not eps_list:
        raise InputError("epsilon=[]: give one cost-benefit margin or more, e.g. 0.2.")
    _, fdr, _, least = options(0.0, q, 2, min_items)
    k = _sizes(categories, "categories", 2, one=True)[0]
    h_noise, c_noise = _noise(human_noise, "human_noise"), _noise(candidate_noise,
                                                                   "candidate_noise")
    n_sets = _sizes(n_datasets, "n_datasets", 1, one=True)[0]
    n_rep = _sizes(n_draws, "n_draws", 1, one=True)[0]
    if isinstance(power, bool) or not isinstance(power, numbers.Real) or not 0 < power <= 1:
        raise InputError(f"power={power!r} is a share in (0, 1], e.g. 0.8.")
    root = np.random.SeedSequence(seed)
    pool_items, pool_humans = max(2 * max(items), 500), max(2 * max(humans), 6)
    score = Scoring("accuracy", _NOMINAL)
    results: dict[tuple[int, int, float], list[tuple[float, ...]]] = {}
    for ds in range(n_sets):  # a data set's draws depend on its number and seed alone
        rng = np.random.default_rng([root.entropy, ds])
        priors = rng.dirichlet(np.ones(k))
        gold = rng.choice(k, size=pool_items, p=priors)
        annotators = _labels(rng, gold[:, None], priors, h_noise, (pool_items, pool_humans))
        model = _labels(rng, gold, priors, c_noise, (pool_items,))
        for h in humans:
            for n in items:  # draws keyed by (seed, data set, humans, items): another
                rng = np.random.default_rng([root.entropy, ds, h, n])  # size changes none
                for _ in range(n_rep):
                    at = rng.choice(pool_items, size=n, replace=False)
                    who = rng.choice(pool_humans, size=h, replace=False)
                    grid = annotators[np.ix_(at, who)]
                    c = _cast(grid, model[at], k)
                    found = outcomes(c, Read(c.ann, _NOMINAL, "pandas"), by_item(c.ann), 0,
                                     score, 2, False)
                    is_human = np.arange(h + 1) < h
                    kappa = _finite_mean([_kappa(grid[:, a], grid[:, b], k)
                                          for a in range(h) for b in range(a + 1, h)])
                    accuracy = float(np.mean(model[at] == gold[at]))
                    for e in eps_list:
                        d = decide(found.counts[0], is_human, e, fdr, least)
                        results.setdefault((h, n, e), []).append(
                            (float(bool(d.passed)), d.winning_rate, d.advantage, kappa,
                             accuracy))
    rows = []
    for (h, n, e), got in sorted(results.items()):
        arr = np.array(got)
        tested = np.isfinite(arr[:, 2])  # below min_items no human is tested
        rows.append({"n_humans": h, "n_items": n, "epsilon": e, "passed": arr[:, 0].mean(),
                     "winning_rate": _finite_mean(arr[:, 1]),
                     "advantage_probability": _finite_mean(arr[:, 2]),
                     "advantage_p05": (float(np.quantile(arr[tested, 2], 0.05))
                                       if tested.any() else np.nan),
                     "advantage_p95": (float(np.quantile(arr[tested, 2], 0.95))
                                       if tested.any() else np.nan),
                     "human_kappa": _finite_mean(arr[:, 3]),
                     "candidate_accuracy": arr[:, 4].mean()})
    table = pd.DataFrame(rows)
    needed: dict[str, int | None] = {}
    for (e, h), part in table.groupby(["epsilon", "n_humans"], sort=True):
        enough = part.loc[part["passed"] >= power, "n_items"]
        needed[f"epsilon {e:g}, {h} humans"] = int(enough.min()) if len(enough) else None
    table.attrs.update(needed=needed, power=power, categories=k, human_noise=h_noise,
                       candidate_noise=c_noise, q=fdr, n_datasets=n_sets, n_draws=n_rep,
                       seed=seed)
    return table
