"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): can a candidate
annotator (a model, a cheaper pool) replace the human annotators?

The flow: input -> codes and roles (:mod:`.cast`) -> one pass per label over the rows
grouped by item, every candidate at once (:func:`.alignment.outcomes`, the numba kernel
:func:`~xrr_accessor.kernels.alt.alt_outcomes`) -> each human's counts -> the decision
(:func:`.decide.decide`: t-tests, Benjamini-Yekutieli, winning rate, advantage
probability) -> labeled tables (:class:`AltTest`); with ``ci=``, the advantage
probabilities' bootstrap from the engine's keyed item draws (:mod:`.resample`).
Definitions: docs/definitions.md, "Models as annotators".
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics._common import Read, finish
from ..engine.pipeline import kind_of
from ..engine.staged import Job, Planned, Staged
from ..errors import InputError
from ..lazy import deferrable
from ..schema.tally import tally_of
from ..uncertainty.orchestration import Uncertainty
from .alignment import Scoring, by_item, outcomes, scoring
from .cast import Cast, cast
from .decide import decide
from .labeled import check_overlap, humans_table, summary_table, warn_left_out
from .partitions import ORDINAL_REFUSED, alt_job, unstack
from .resample import advantage_intervals, memory_sums, plan_draws

__all__ = ["AltTest", "alt_test", "human_raters", "options", "run"]


@dataclass(frozen=True)
class AltTest:
    """What :func:`alt_test` found (DataFrames, or Datasets from xarray input).

    Attributes
    ----------
    summary : DataFrame
        Per (label, candidate): ``winning_rate`` (share of the humans tested whose
        null hypothesis was rejected), ``advantage_probability`` (mean over the
        humans tested of the share of items where the candidate aligns with the
        remaining humans at least as well as the left-out human), ``passed``
        (winning rate >= 0.5; <NA> when no human was tested), ``n_humans`` tested,
        ``n_won`` (those the candidate won: rejected null hypotheses),
        ``n_humans_skipped`` (humans of the reference who labelled the label but have
        fewer than ``min_items`` compared items), ``n_items`` compared,
        ``n_items_few_humans`` (items the candidate labelled that have fewer than
        ``min_raters`` human annotations) and ``n_items_no_candidate`` (items with
        enough humans that the candidate did not label). With ``ci=``:
        ``advantage_se``, ``advantage_lower``, ``advantage_upper``.
    humans : DataFrame
        Per (label, candidate, human) for every human with a compared item:
        ``n_items``, ``rho_candidate`` and ``rho_human`` (the shares of items each
        side wins, a tie counting for both), ``alignment_candidate`` and
        ``alignment_human`` (mean alignment score with the remaining humans:
        accuracy, -RMSE or -mean D), ``p_value`` (one-sided t-test of
        rho_human - rho_candidate < epsilon), ``won`` (rejected by
        Benjamini-Yekutieli) and ``tested``.
    differences : DataFrame or None
        With ``ci=`` and two candidates or more: per (label, candidate,
        candidate_other) the difference of their advantage probabilities, its
        bootstrap ``se``, ``lower``, ``upper`` and the two-sided ``p_value`` that
        inverts the interval (as :func:`~xrr_accessor.compare`), from the same draws
        of items.
    attrs : dict
        ``epsilon``, ``q``, ``min_raters``, ``min_items``, ``alignment``, ``level``,
        ``reference``, ``candidates`` and the interval settings.
    """

    summary: Any
    humans: Any
    differences: Any = None
    attrs: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        shown = self.summary.to_string() if isinstance(self.summary, pd.DataFrame) \
            else repr(self.summary)
        return (f"Alternative annotator test (epsilon={self.attrs.get('epsilon')}, "
                f"q={self.attrs.get('q')}, reference={self.attrs.get('reference')!r})\n"
                f"{shown}")

    def _repr_html_(self) -> str:
        import html

        head = html.escape(repr(self).splitlines()[0])
        body = (self.summary.to_html() if isinstance(self.summary, pd.DataFrame)
                else html.escape(repr(self.summary)))
        return f"<div><p><b>{head}</b></p>{body}</div>"


def _number(value: Any, name: str, lo: float, hi: float, closed: bool = True) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool | np.bool_)
    if not ok or not (lo <= float(value) < hi or (closed and float(value) == hi)):
        raise InputError(f"{name}={value!r}: it must be a number in [{lo:g}, {hi:g}"
                         f"{']' if closed else ')'}.")
    return float(value)


def _count(value: Any, name: str, least: int, what: str) -> int:
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral) \
            or value < least:
        raise InputError(f"{name}={value!r} is {what}: a whole number >= {least}.")
    return int(value)


@deferrable
def alt_test(
    data: Any, other: Any = None, *, epsilon: float, reference: Any = None,
    candidates: Any = None, q: float = 0.05, min_raters: int = 2, min_items: int = 30,
    level: Any = None, alignment: Any = None, ci: float | None = None, n_boot: int = 1000,
    seed: int | None = None, interval: str = "bca", progress: bool | None = None,
    **roles: Any,
) -> AltTest:
    """The alternative annotator test: can a candidate replace the human annotators?

    Calderon, Reichart and Dror (ACL 2025). Each human j of the reference pool is left
    out in turn; on every item j labelled that has at least ``min_raters`` human
    annotations and a candidate annotation, the candidate and j are each scored
    against the remaining humans (alignment: accuracy, -RMSE, or minus the level's
    mean disagreement). W^f = 1 when the candidate aligns at least as well, W^h = 1
    when j does (a tie is both). A one-sided one-sample t-test per human of
    H0: mean(W^h - W^f) >= epsilon, Benjamini-Yekutieli over the humans tested at
    ``q``; the candidate passes when it wins (H0 rejected) for at least half of the
    humans. The advantage probability (mean of each human's share of W^f = 1)
    compares candidates. Exactly the procedure of the paper (and its authors' code)
    when each candidate has one annotation per item; a candidate with several (a
    model under several prompts) is scored over all of its annotations of the item.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        The humans (with ``other``), or one frame holding the humans and the
        candidates as replications (``reference=`` names the humans).
    other : same kinds, optional
        The candidates: a frame with a replication column (one candidate per
        replication, its raters -- prompts, runs -- pooled), or a long frame of
        item, rater (each rater one candidate, e.g. the model's name) and value.
    epsilon : float
        The cost-benefit margin in [0, 1): how much more often a human may align
        better than the candidate while the candidate still counts as a
        replacement. No default: it is the user's judgement (the paper uses 0.1 to
        0.2, smaller when the humans agree less; its authors' FAQ suggests 0.2 for
        experts, 0.15 for skilled annotators, 0.1 for crowd workers).
    reference : replication name, optional
        The human pool (needed when ``data`` holds several replications).
    candidates : name or list of names, optional
        The replications to test (default: every one but the reference).
    q : float
        False discovery rate of Benjamini-Yekutieli over the humans (default 0.05).
    min_raters : int
        Items need at least this many human annotations (default 2).
    min_items : int
        Humans with fewer compared items are not tested (default 30, the paper's).
    level : str, matrix or callable, optional
        Level of measurement (default: from ``alignment``, else inferred from the
        values as in :func:`~xrr_accessor.irr`, and the alignment follows it).
    alignment : {"accuracy", "rmse", "distance"} or callable, optional
        The alignment score: ``"accuracy"`` (labels; the nominal level),
        ``"rmse"`` (numbers; the interval level), ``"distance"`` (minus the
        level's mean disagreement: ordinal, ratio, label sets, custom), or a
        callable ``S(value, others) -> float``, higher better (evaluated in
        Python, one call per comparison: slow on large data). Default: from the
        level (accuracy for nominal, RMSE for interval, distance otherwise).
    ci : float, optional
        Bootstrap intervals (e.g. 0.95) of each advantage probability and of the
        difference between every two candidates' (:attr:`AltTest.differences`),
        from the same keyed draws of items as every other call with that ``seed``.
        The humans tested are those of the estimate.
    n_boot, seed, interval, progress
        Bootstrap settings, as in :func:`~xrr_accessor.cross_kappa`.
    **roles
        Column or dimension names, see :func:`~xrr_accessor.annotations`.

    Returns
    -------
    AltTest
        ``summary`` per label and candidate, ``humans`` per human, and with ``ci=``
        ``differences``; what was left out (humans with too few items, items with
        too few humans or no candidate label) is counted there and said in a
        :class:`~xrr_accessor.errors.DroppedDataWarning`.

    Examples
    --------
    Three humans on 60 items, and a model that gives their majority label on all but
    10% of the items:

    >>> import numpy as np, pandas as pd
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=60, labels=["joy"], pools=["humans"], raters_per_item=3,
    ...               coverage=1.0, single_rate=0.0, seed=2)
    >>> major = df.groupby("item_id")["joy"].agg(lambda v: int(v.mean() > 0.5))
    >>> flip = np.random.default_rng(0).random(len(major)) < 0.1
    >>> model = pd.DataFrame({"item_id": major.index, "rater": "model",
    ...                       "joy": np.where(flip, 1 - major, major)})
    >>> out = alt_test(df, model, epsilon=0.2)
    >>> out.summary[["winning_rate", "advantage_probability", "passed"]].round(2)
                     winning_rate  advantage_probability  passed
    label candidate
    joy   model               1.0                   0.87    True
    """
    eps, fdr, min_raters, min_items = options(epsilon, q, min_raters, min_items)
    uncertainty = Uncertainty(ci, n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress)
    if level is None and alignment is None:  # the level inferred, as every call does
        c = cast(data, other, reference, candidates, None, roles, "alt_test")
        score = scoring(c.level, None)
    else:
        score = scoring(level, alignment)
        c = cast(data, other, reference, candidates, score.level, roles, "alt_test")
    given = data._xrr_bound[0] if hasattr(type(data), "_xrr_bound") else data
    return run(c, kind_of(given), score, eps, fdr,
               min_raters, min_items, uncertainty,
               staged=data if isinstance(data, Staged) else None)


def options(epsilon: Any, q: Any, min_raters: Any, min_items: Any
            ) -> tuple[float, float, int, int]:
    """``epsilon``, ``q``, ``min_raters`` and ``min_items`` checked (errors name the fix)."""
    eps = _number(epsilon, "epsilon", 0.0, 1.0, closed=False)
    fdr = _number(q, "q", 0.0, 1.0, closed=False)
    if fdr == 0.0:
        raise InputError("q=0 rejects nothing; q is the false discovery rate, e.g. 0.05.")
    min_raters = _count(min_raters, "min_raters", 2, "the fewest human annotations an "
                        "item needs (one left out, one left to compare with)")
    min_items = _count(min_items, "min_items", 2, "the fewest compared items a human "
                       "needs to be tested (the paper: 30)")
    return eps, fdr, min_raters, min_items


def human_raters(c: Cast) -> int:
    """How many raters the reference (the humans) has."""
    return int(tally_of(c.ann).raters[c.reference])


def run(c: Cast, kind: str, score: Scoring, eps: float, fdr: float, min_raters: int,
        min_items: int, uncertainty: Uncertainty, staged: Staged | None = None) -> AltTest:
    """The test on annotations already cast (:func:`~.cast.cast`), options checked
    (:func:`options`); ``kind`` ("pandas" or "xarray") shapes the tables. ``staged``:
    dask-backed data, whose partitions' sums (:mod:`.partitions`) the test reads."""
    if human_raters(c) < 2:
        raise InputError(
            f"alt_test: the reference {c.reference_name!r} has one rater; the test leaves "
            "one human out and scores both sides against the others, so it needs two "
            "humans or more. Against a single expert or gold label, compare the candidates' "
            f"kappa_x with compare(reference={c.reference_name!r}) or validity(gold=...).")
    read_ = Read(c.ann, c.level, kind)
    part_sums: dict[tuple[int, int], dict[str, np.ndarray]] = {}
    if staged is not None:  # dask-backed: the partitions' sums, added
        if c.level.ordinal:
            raise InputError(ORDINAL_REFUSED)
        if staged.stats is None:
            cells = 2 * len(c.ann.labels) * len(c.candidates) * len(c.ann.raters)
            raise Planned(Job(alt_job, (c.reference, c.candidates, score, min_raters),
                              cells))
        found, part_sums = unstack(staged.stats, c, read_, score)
    else:
        check_overlap(c)
        grouped = by_item(c.ann)
        found = [outcomes(c, read_, grouped, j, score, min_raters,
                          uncertainty.ci is not None) for j in range(len(c.ann.labels))]
    decisions = [[decide(o.counts[k], o.labelled, eps, fdr, min_items)
                  for k in range(len(c.candidates))] for o in found]
    attrs: dict[str, Any] = {
        "metric": "alt_test", "epsilon": eps, "q": fdr, "min_raters": min_raters,
        "min_items": min_items, "alignment": score.name, "level": score.level.name,
        "reference": c.reference_name, "candidates": c.candidate_names}
    summary = summary_table(c, read_, found, decisions)
    differences = None
    if uncertainty.ci is not None:
        opts = uncertainty.bootstrap
        draws = plan_draws(len(c.ann.items), opts)
        if staged is None:
            sums = memory_sums(c, found, decisions, draws)
        else:  # every rater's sums: those of the humans tested
            sums = {(j, k): {name: v[decisions[j][k].tested] for name, v in s.items()}
                    for (j, k), s in part_sums.items()}
        boot = advantage_intervals(c, decisions, sums, draws, uncertainty.ci, opts)
        for name, values in boot.columns.items():
            summary[name] = values
        differences = boot.differences
        attrs.update(ci=uncertainty.ci, interval=opts.interval, n_boot=opts.n_boot,
                     seed=boot.seed)
    warn_left_out(c, summary, min_items, min_raters)
    table = humans_table(c, read_, found, decisions, score.name)
    return AltTest(
        finish(summary, read_, dict(attrs)), finish(table, read_, dict(attrs)),
        None if differences is None else finish(differences, read_, dict(attrs)), attrs)
