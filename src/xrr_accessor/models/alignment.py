"""The alignment score S of the alternative annotator test, and one label's pass.

The paper scores an annotation against the remaining humans by accuracy (labels) or
negative RMSE (numbers). Both order annotations as minus the mean disagreement D of a
level does (nominal: 1 - accuracy; interval: the squared difference, whose root is the
RMSE), so the test's wins W depend only on D; ``alignment="distance"`` takes the level's
own D for ordinal data (Krippendorff's, on the mid-ranks of the humans' pairable
values), ratio data, label sets and custom distances. The score itself (each human's
mean alignment, in the per-human table) is the paper's: accuracy, -RMSE in the data's
units, or -mean D. A callable ``S(value, others) -> float`` is the paper's custom
scoring function, evaluated in Python (slow; a candidate with several values on an
item scores the mean of S over them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..diagnostics._common import Read, dist_for
from ..engine.levels import Level, resolve_level
from ..errors import InputError
from ..kernels.accumulate import item_order
from ..kernels.alt import MATRIX, NOMINAL, SQUARED, alt_outcomes
from .cast import Cast

__all__ = ["ALIGNMENTS", "Outcomes", "Scoring", "by_item", "outcomes", "scoring", "unit_of"]

#: Alignment scores by name: the paper's two, and minus the level's mean disagreement.
ALIGNMENTS = ("accuracy", "rmse", "distance")


@dataclass(frozen=True)
class Scoring:
    """How annotations are scored: ``name`` (one of :data:`ALIGNMENTS` or "custom"),
    the level whose D orders them, and a user's callable S."""

    name: str
    level: Level
    custom: Callable[[Any, list[Any]], float] | None = None


def scoring(level: Any, alignment: Any) -> Scoring:
    """The alignment score and level of a call, from ``level=`` and ``alignment=``.

    Neither given: accuracy at the nominal level. One given: the other follows it
    (accuracy with nominal, RMSE with interval; other levels score by ``"distance"``).
    Both given: they must agree (accuracy is the nominal level's, RMSE the interval's).

    Examples
    --------
    >>> scoring(None, None).name, scoring("interval", None).name, scoring(None, "rmse").level
    ('accuracy', 'rmse', Level(name='interval', custom=None))
    """
    if callable(alignment) and not isinstance(alignment, str):
        return Scoring("custom", resolve_level("nominal" if level is None else level),
                       alignment)
    if alignment is not None and alignment not in ALIGNMENTS:
        raise InputError(f"alignment={alignment!r}; use one of {list(ALIGNMENTS)} or a "
                         "callable S(value, others) -> float (higher is better aligned).")
    if level is None:
        lvl = resolve_level("interval" if alignment == "rmse" else "nominal")
    else:
        lvl = resolve_level(level)
    if alignment is None:
        alignment = {"nominal": "accuracy", "interval": "rmse"}.get(lvl.name, "distance")
    need = {"accuracy": "nominal", "rmse": "interval"}.get(alignment)
    if need is not None and lvl.name != need:
        raise InputError(f"alignment={alignment!r} scores at the {need} level, but "
                         f"level={lvl.name!r}; drop one of them, or use "
                         "alignment='distance' (minus the mean disagreement of the level).")
    return Scoring(alignment, lvl)


@dataclass
class Outcomes:
    """One label's pass: per candidate and rater, the items compared and wins
    (``counts`` (C, B, 3)), the summed alignment terms (``scores`` (C, B, 4)), the
    items kept and dropped (``items`` (C, 3)), per row the outcome of each
    comparison (``records`` (C, N) int8, empty unless asked for), which raters of the
    reference labelled the label (``labelled`` (B,)); ``unit`` turns the kernel's D
    back into the data's units (D / unit^2)."""

    counts: np.ndarray
    scores: np.ndarray
    items: np.ndarray
    records: np.ndarray
    unit: float
    labelled: np.ndarray

    def alignment(self, name: str) -> np.ndarray:
        """Mean alignment of the candidate and of the human, (C, B, 2): accuracy,
        -RMSE or -mean D (NaN where a human has no compared item)."""
        n = self.counts[..., 0:1].astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            if name == "accuracy":
                out = 1.0 - self.scores[..., 0:2] / n
            elif name == "rmse":
                out = -self.scores[..., 2:4] * self.unit / n
            elif name == "custom":
                out = self.scores[..., 0:2] / n
            else:
                out = -self.scores[..., 0:2] * self.unit**2 / n
        return np.where(n > 0, out, np.nan)


def _power_of_two(v: np.ndarray) -> float:
    """A power of two at or above the largest |v| (1 for none): dividing by it is exact."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    return float(2.0 ** np.ceil(np.log2(top))) if top > 0 else 1.0


def _mid_ranks(read_: Read, j: int, humans: np.ndarray) -> np.ndarray:
    """Mid-rank of each category among the humans' pairable values (items with two or
    more human values): Krippendorff's ordinal D(a, b) is (M_b - M_a)^2."""
    ann = read_.ann
    codes = ann.codes[j]
    k = read_.n_cat(j)
    mine = humans & (codes >= 0)
    per_item = np.bincount(ann.item[mine], minlength=len(ann.items))
    pairable = mine & (per_item[ann.item] >= 2)
    n = np.bincount(codes[pairable], minlength=k).astype(float)[:k]
    return np.cumsum(n) - n / 2.0


#: Sums of D within this share of the largest D (per pair of values) tie: rounding.
TIE = 1e-10


def _how(read_: Read, j: int, score: Scoring, humans: np.ndarray
         ) -> tuple[int, np.ndarray, np.ndarray, float, float]:
    """(mode, values, dmat, unit, tol) of label ``j``'s D for the kernel."""
    empty_v, empty_d = np.zeros(0), np.zeros((0, 0))
    lvl = score.level
    if lvl.name == "nominal" or score.name == "custom":
        return NOMINAL, empty_v, empty_d, 1.0, TIE
    if lvl.name in ("interval", "ordinal"):
        if lvl.name == "interval":
            v = read_.ann.values("interval")[j, :read_.n_cat(j)]
        else:
            v = _mid_ranks(read_, j, humans)
        unit = _power_of_two(v)
        scaled = np.ascontiguousarray(v / unit)
        span = float(np.ptp(scaled)) if scaled.size else 0.0
        return SQUARED, scaled, empty_d, unit, TIE * span * span
    dmat = dist_for(read_, j, None)
    return MATRIX, empty_v, dmat, 1.0, TIE * float(dmat.max(initial=0.0))


def by_item(ann: Any) -> tuple[np.ndarray, np.ndarray]:
    """The rows' (offsets, order) by item (order empty: the rows are grouped already)."""
    return item_order(np.ascontiguousarray(ann.item, dtype=np.int64), len(ann.items))


def outcomes(c: Cast, read_: Read, grouped: tuple[np.ndarray, np.ndarray], j: int,
             score: Scoring, min_raters: int, records: bool) -> Outcomes:
    """Label ``j``'s comparisons of every candidate with every human left out
    (``grouped``: the rows' (offsets, order) by item, :func:`by_item`)."""
    ann = read_.ann
    humans = ann.replication == c.reference
    labelled = np.zeros(len(ann.raters), dtype=bool)
    labelled[ann.rater[humans & (ann.codes[j] >= 0)]] = True
    offsets, order = grouped
    n_cand = len(c.candidates)
    rec = np.zeros((n_cand, len(ann.item)) if records else (0, 0), dtype=np.int8)
    if score.custom is not None:
        counts, scores, items = _custom(c, read_, grouped, j, score.custom, min_raters, rec)
        return Outcomes(counts, scores, items, rec, 1.0, labelled)
    mode, values, dmat, unit, tol = _how(read_, j, score, humans)
    counts, scores, items = alt_outcomes(
        offsets, order, ann.replication, ann.rater, read_.codes(j), c.reference,
        c.candidate_of(), n_cand, len(ann.raters), read_.n_cat(j), mode, values, dmat,
        tol, min_raters, rec)
    return Outcomes(counts, scores, items, rec, unit, labelled)


def unit_of(read_: Read, j: int, score: Scoring) -> float:
    """Label ``j``'s unit (:attr:`Outcomes.unit`) from its categories alone (not the
    ordinal level, whose mid-ranks read the annotations)."""
    return _how(read_, j, score, np.zeros(0, dtype=bool))[3]


def _custom(c: Cast, read_: Read, grouped: tuple[np.ndarray, np.ndarray], j: int,
            fn: Callable[[Any, list[Any]], float], min_raters: int, rec: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pass with a user's score S(value, others), in Python (one call of S per
    comparison): the kernel's outputs, ``scores`` holding the summed S."""
    ann = read_.ann
    cats = ann.categories[j]
    codes = read_.codes(j)
    cand_of = c.candidate_of()
    n_cand = len(c.candidates)
    counts = np.zeros((n_cand, len(ann.raters), 3), dtype=np.int64)
    scores = np.zeros((n_cand, len(ann.raters), 4))
    items = np.zeros((n_cand, 3), dtype=np.int64)
    offsets, order = grouped
    rows = order if order.size else np.arange(len(ann.item))
    for i in range(len(ann.items)):
        at = rows[offsets[i]:offsets[i + 1]]
        at = at[codes[at] >= 0]
        hum = at[ann.replication[at] == c.reference]
        mine = [at[cand_of[ann.replication[at]] == k] for k in range(n_cand)]
        enough = len(hum) >= min_raters
        for k in range(n_cand):
            if len(mine[k]):
                items[k, 0 if enough else 1] += 1
            elif enough:
                items[k, 2] += 1
        if not enough:
            continue
        for a in hum:
            others = [cats[codes[b]] for b in hum if b != a]
            s_h = float(fn(cats[codes[a]], others))
            for k in range(n_cand):
                if not len(mine[k]):
                    continue
                s_f = float(np.mean([fn(cats[codes[b]], others) for b in mine[k]]))
                r = ann.rater[a]
                f_wins, h_wins = s_f >= s_h, s_h >= s_f
                counts[k, r] += (1, f_wins, h_wins)
                scores[k, r, :2] += (s_f, s_h)
                if rec.size:
                    rec[k, a] = 3 if f_wins and h_wins else 1 if f_wins else 2
    return counts, scores, items
