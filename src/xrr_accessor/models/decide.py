"""From each human's wins to the alternative annotator test's decision (finalize).

Per human j, from the items compared (n), the candidate's wins (W^f = 1) and the
human's (W^h = 1; a tie is both): rho^f_j and rho^h_j, the differences d = W^h - W^f
(each -1, 0 or 1, so their mean and variance follow from the counts), a one-sided
one-sample t-test of H0: mean d >= epsilon, Benjamini-Yekutieli over the humans tested
at q, the winning rate (rejections / humans tested) and the advantage probability
(mean rho^f_j). Student's t comes from :mod:`..coefficients.distributions` (no scipy),
evaluated for every human at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..coefficients.distributions import t_cdf_array

__all__ = ["Decision", "benjamini_yekutieli", "decide", "t_test_less"]


def t_test_less(n: np.ndarray, sum_d: np.ndarray, sum_d2: np.ndarray,
                epsilon: float) -> np.ndarray:
    """p-values of one-sided one-sample t-tests of mean d < ``epsilon`` from the count
    ``n`` (>= 2), sum and sum of squares of integer d, for every human at once. With no
    spread (every d equal): 0 when the mean is below epsilon, else 1 (a t of -inf or
    +inf).

    Examples
    --------
    >>> t_test_less(np.array([4]), np.array([0]), np.array([2]), 0.2).round(4).tolist()
    [0.3289]
    """
    n, s, s2 = (np.asarray(v, dtype=np.int64) for v in (n, sum_d, sum_d2))
    mean = s / n
    spread = n * s2 - s * s  # integers: exactly 0 when every d is the same
    flat = spread <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / np.sqrt(np.where(flat, 1, spread) / (n * (n - 1)) / n)
    p = t_cdf_array(np.where(flat, 0.0, t), n - 1.0)
    return np.where(flat, np.where(mean < epsilon, 0.0, 1.0), p)


def benjamini_yekutieli(p: np.ndarray, q: float) -> np.ndarray:
    """Which of ``p`` are rejected at false discovery rate ``q`` (Benjamini and
    Yekutieli 2001, any dependence): the k smallest, for the largest k with
    p_(k) <= k / m * q / (1 + 1/2 + ... + 1/m).

    Examples
    --------
    >>> benjamini_yekutieli(np.array([0.001, 0.04, 0.011]), 0.05).tolist()
    [True, False, True]
    """
    m = len(p)
    if m == 0:
        return np.zeros(0, dtype=bool)
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    order = np.argsort(p, kind="stable")
    below = p[order] <= np.arange(1, m + 1) / m * q / harmonic
    out = np.zeros(m, dtype=bool)
    if below.any():
        out[order[:int(np.flatnonzero(below)[-1]) + 1]] = True
    return out


@dataclass(frozen=True)
class Decision:
    """One label and candidate: per rater (humans and others alike, B entries),
    ``n`` items compared, ``rho_f`` and ``rho_h``, ``p_value`` and ``won`` (NaN /
    False where not tested), ``tested``; and the test's ``winning_rate``,
    ``advantage`` probability and ``passed`` (NaN / None with no human tested)."""

    n: np.ndarray
    rho_f: np.ndarray
    rho_h: np.ndarray
    p_value: np.ndarray
    won: np.ndarray
    tested: np.ndarray
    winning_rate: float
    advantage: float
    passed: bool | None


def decide(counts: np.ndarray, humans: np.ndarray, epsilon: float, q: float,
           min_items: int) -> Decision:
    """The test for one label and candidate from its ``counts`` (B, 3): items
    compared, W^f = 1, W^h = 1 per rater; ``humans`` marks the reference's raters.

    Examples
    --------
    >>> counts = np.array([[40, 40, 12], [40, 38, 14], [10, 5, 5]])
    >>> d = decide(counts, np.array([True, True, True]), 0.2, 0.05, 30)
    >>> d.tested.tolist(), d.won.tolist(), d.winning_rate, d.passed
    ([True, True, False], [True, True, False], 1.0, True)
    """
    n, fw, hw = (counts[:, k].astype(np.int64) for k in range(3))
    tested = humans & (n >= min_items)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho_f = np.where(n > 0, fw / np.maximum(n, 1), np.nan)
        rho_h = np.where(n > 0, hw / np.maximum(n, 1), np.nan)
    p = np.full(len(n), np.nan)
    won = np.zeros(len(n), dtype=bool)
    at = np.flatnonzero(tested)
    if at.size == 0:
        return Decision(n, rho_f, rho_h, p, won, tested, math.nan, math.nan, None)
    sum_d = hw[at] - fw[at]
    sum_d2 = 2 * n[at] - fw[at] - hw[at]  # |d| = 1 exactly when one side wins alone
    p[at] = t_test_less(n[at], sum_d, sum_d2, epsilon)
    won[at] = benjamini_yekutieli(p[at], q)
    omega = float(won[at].sum() / at.size)
    return Decision(n, rho_f, rho_h, p, won, tested, omega, float(np.mean(rho_f[at])),
                    omega >= 0.5)
