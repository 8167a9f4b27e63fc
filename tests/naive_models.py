"""Naive alternative annotator test (Calderon, Reichart & Dror, ACL 2025), from the lines
of SPEC.md section 8, in plain Python.

The test oracle and the benchmark baseline of :func:`xrr_accessor.alt_test`: loops over
humans and items as the definition reads, scipy's Student t for the one-sided one-sample
t-test, Benjamini-Yekutieli written out. Independent of the package.

Data are plain Python: ``humans`` maps a human to ``{item: value}``; ``candidate`` maps an
item to the list of the candidate's values on it (one value: the paper's f_i; several, a
model under several prompts: the candidate's alignment is the score S over every pair of
its values with the remaining humans' values, which is the paper's S when there is one).
Scores equal to rounding (a real tie summed in another order) tie: both sides win.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import mean

from scipy.stats import t as student_t

Score = Callable[[list, list], float]


def accuracy(preds: list, others: list) -> float:
    """Share of (prediction, other human) pairs that are equal (the paper's accuracy)."""
    return mean(1.0 if p == o else 0.0 for p in preds for o in others)


def neg_rmse(preds: list, others: list) -> float:
    """Minus the root mean squared difference over the pairs (the paper's negative RMSE)."""
    return -math.sqrt(mean((p - o) ** 2 for p in preds for o in others))


def neg_distance(dist: Callable[[object, object], float]) -> Score:
    """Minus the mean disagreement D over the pairs (SPEC: -mean D of the level)."""
    def score(preds: list, others: list) -> float:
        return -mean(dist(p, o) for p in preds for o in others)
    return score


def t_test_less(d: list[float], epsilon: float) -> float:
    """One-sided one-sample t-test of mean(d) < epsilon: its p-value.

    With no spread in ``d`` (every d equal) the statistic is -inf (p = 0) when the mean
    is below epsilon and +inf (p = 1) otherwise, as scipy's ttest_1samp gives; a mean
    exactly at epsilon with no spread is not below it (p = 1).
    """
    n = len(d)
    m = sum(d) / n
    var = sum((x - m) ** 2 for x in d) / (n - 1)
    if var == 0:
        return 0.0 if m < epsilon else 1.0
    t = (m - epsilon) / math.sqrt(var / n)
    return float(student_t.cdf(t, n - 1))


def benjamini_yekutieli(p: list[float], q: float) -> list[bool]:
    """Which hypotheses are rejected: the k smallest p for the largest k with
    p_(k) <= k / m * q / (1 + 1/2 + ... + 1/m)."""
    m = len(p)
    if m == 0:
        return []
    harmonic = sum(1.0 / k for k in range(1, m + 1))
    order = sorted(range(m), key=lambda i: p[i])
    last = 0
    for k, i in enumerate(order, start=1):
        if p[i] <= k / m * q / harmonic:
            last = k
    rejected = [False] * m
    for i in order[:last]:
        rejected[i] = True
    return rejected


@dataclass
class HumanRow:
    human: object
    n_items: int
    rho_f: float  # candidate's winning share: mean of W^f
    rho_h: float  # the human's: mean of W^h
    p_value: float
    score_f: float  # mean alignment of the candidate
    score_h: float  # mean alignment of the left-out human
    wins: dict  # item -> W^f of the candidate against this human
    won: bool = False


@dataclass
class AltResult:
    winning_rate: float
    advantage_probability: float
    passed: bool
    humans: list[HumanRow]
    n_items: int  # items kept: >= min_raters humans and a candidate value
    skipped: list[object]  # humans with fewer than min_items kept items


def alt_test(humans: dict[object, dict[object, object]], candidate: dict[object, list],
             score: Score = accuracy, epsilon: float = 0.2, q: float = 0.05,
             min_raters: int = 2, min_items: int = 30) -> AltResult:
    """The procedure of SPEC.md section 8, line by line."""
    on_item: dict[object, list] = {}
    for h, values in humans.items():
        for i in values:
            on_item.setdefault(i, []).append(h)
    kept = {i for i, hs in on_item.items() if len(hs) >= min_raters and candidate.get(i)}
    rows, skipped = [], []
    for j, values in humans.items():
        items = [i for i in values if i in kept]
        if len(items) < min_items:
            skipped.append(j)
            continue
        w_f, w_h, s_f, s_h = [], [], [], []
        for i in items:
            others = [humans[h][i] for h in on_item[i] if h != j]
            a_f = score(candidate[i], others)
            a_h = score([values[i]], others)
            tie = math.isclose(a_f, a_h, rel_tol=1e-9, abs_tol=1e-12)  # real ties
            w_f.append(1.0 if a_f >= a_h or tie else 0.0)
            w_h.append(1.0 if a_h >= a_f or tie else 0.0)
            s_f.append(a_f)
            s_h.append(a_h)
        d = [b - a for a, b in zip(w_f, w_h, strict=True)]
        rows.append(HumanRow(j, len(items), mean(w_f), mean(w_h), t_test_less(d, epsilon),
                             mean(s_f), mean(s_h), dict(zip(items, w_f, strict=True))))
    for row, won in zip(rows, benjamini_yekutieli([r.p_value for r in rows], q),
                        strict=True):
        row.won = won
    if not rows:
        return AltResult(math.nan, math.nan, False, rows, len(kept), skipped)
    omega = sum(r.won for r in rows) / len(rows)
    return AltResult(omega, mean(r.rho_f for r in rows), omega >= 0.5, rows, len(kept),
                     skipped)
