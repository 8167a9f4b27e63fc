"""The models page's numbers: can these candidates replace the annotators?

:func:`~xrr_accessor.report` with ``candidates=`` or ``epsilon=`` (and ``reference=``
naming the humans) puts, per label, one row per candidate and one for the human pool
itself side by side (:data:`MODEL_COLUMNS`):

* the alternative annotator test (:func:`~xrr_accessor.alt_test`) at ``epsilon``:
  winning rate, advantage probability (with its interval), passed;
* normalized kappa_x against the humans (kappa_x / IRR_humans, Section 6 of Wong et
  al.: 1 = the candidate agrees with the humans as much as they agree with each other)
  and kappa_x itself, read from the report's own table;
* with ``gold=`` (a replication holding gold labels, typically one rater): kappa_x of
  every row against the gold, its accuracy (the share of its annotations equal to the
  gold of their item, as :func:`~xrr_accessor.validity` counts them), and the paired
  difference of each candidate's kappa_x from the humans'
  (:func:`~xrr_accessor.compare` with ``reference=gold``), so the two framings,
  "as good as the crowd" and "closer to the experts than the crowd", sit in one row;
* stability: the IRR of the candidate's own raters (prompts, runs), NaN with one rater;
* the label distribution of every source (:data:`DISTRIBUTION_COLUMNS`).

Every number comes from one read of the data (:func:`~xrr_accessor.models.cast.cast`)
and, with ``ci=``, the same keyed draws of items (one seed for every part).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..diagnostics._common import Read
from ..diagnostics.validity import label_sums
from ..engine.draws import seeds
from ..errors import InputError, UndefinedWarning
from ..models.alignment import Scoring, scoring
from ..models.alt_test import AltTest, human_raters, options, run
from ..models.cast import Cast, cast
from ..schema.tally import tally_of
from ..uncertainty.against import AGAINST, KAPPA, against
from ..uncertainty.orchestration import Uncertainty, evaluate, shown_name
from ..uncertainty.resample import Target

__all__ = ["DISTRIBUTION_COLUMNS", "MODEL_COLUMNS", "Models", "Setup", "cast_models",
           "distribution", "expected_notes", "models_parts", "shared_seed"]

#: The models table's columns (the interval columns only with ``ci=``; the gold ones
#: only with ``gold=``).
MODEL_COLUMNS = (
    "label", "replication", "role", "n_raters", "winning_rate", "passed", "n_won", "n_humans",
    "advantage_probability", "advantage_lower", "advantage_upper", "normalized",
    "normalized_lower", "normalized_upper", "kappa_x", "kappa_x_lower", "kappa_x_upper",
    "kappa_x_gold", "kappa_x_gold_lower", "kappa_x_gold_upper", "accuracy_gold",
    "gold_difference",
    "gold_difference_lower", "gold_difference_upper", "gold_difference_p_value",
    "stability", "stability_lower", "stability_upper")

#: The label distribution's columns: per label, source and category.
DISTRIBUTION_COLUMNS = ("label", "replication", "role", "category", "n", "share")


@dataclass
class Models:
    """The models page's parts: ``table`` (:data:`MODEL_COLUMNS`), ``distribution``
    (:data:`DISTRIBUTION_COLUMNS`), the alternative annotator test (``alt``, None
    without ``epsilon``), and the settings (``attrs``: reference, gold, candidates,
    epsilon, why the test was not run)."""

    table: pd.DataFrame
    distribution: pd.DataFrame
    alt: AltTest | None
    attrs: dict[str, Any]


@dataclass(frozen=True)
class Setup:
    """The models page's call, read and checked once: the annotations with the humans
    (reference) and candidates (:class:`~xrr_accessor.models.cast.Cast`), the gold's
    replication code, the alignment score, the test's options and the uncertainty with
    its seed drawn."""

    cast: Cast
    gold: int | None
    score: Scoring
    epsilon: float | None
    q: float
    min_items: int
    uncertainty: Uncertainty


#: The fewest compared items a human needs on the models page, by default (the paper's).
MIN_ITEMS = 30


def cast_models(data: Any, other: Any, reference: Any, candidates: Any, gold: Any,
                epsilon: Any, q: Any, min_items: Any, level: Any, uncertainty: Uncertainty,
                roles: dict[str, Any]) -> Setup:
    """Read the data once and name the humans, the candidates and the gold."""
    if reference is None and other is None:
        raise InputError("the models page (candidates=, epsilon= or gold=) compares "
                         "candidates with the human annotators: name their pool with "
                         "reference='<pool>'.")
    min_items = MIN_ITEMS if min_items is None else min_items
    eps, fdr, _, min_items = options(0.0 if epsilon is None else epsilon, q, 2, min_items)
    if level is None:  # the level inferred, as every call does
        c = cast(data, other, reference, candidates, None, roles, "report")
        score = scoring(c.level, None)
    else:
        score = scoring(level, None)
        c = cast(data, other, reference, candidates, score.level, roles, "report")
    names = list(c.ann.replications)
    code = None
    if gold is not None:
        if gold == c.reference_name:
            raise InputError(f"gold={gold!r} is the reference (the humans); gold= names "
                             "another replication, holding gold labels, one of "
                             f"{[n for n in names if n != c.reference_name]}.")
        if gold not in names:
            raise InputError(f"gold={gold!r} names the replication holding gold labels, one "
                             f"of {[n for n in names if n != c.reference_name]}.")
        code = names.index(gold)
        if candidates is None:  # every other replication but the gold
            c = replace(c, candidates=tuple(k for k in c.candidates if k != code))
        elif code in c.candidates:
            raise InputError(f"gold={gold!r} is also among candidates={candidates!r}; the "
                             "gold is what candidates are scored against.")
        if not c.candidates:
            raise InputError("the models page needs a candidate besides the humans and the "
                             "gold.")
    return Setup(c, code, score, None if epsilon is None else eps, fdr, min_items,
                 shared_seed(uncertainty))


def expected_notes(caught: list[tuple[type[Warning], str]], table: Any
                   ) -> list[tuple[type[Warning], str]]:
    """The report's warnings without the one an IRR gives when every replication it is
    undefined for has one rater (a model, a gold label: the page's stability column
    says so)."""
    irr = table.estimates["irr"]
    raters = table.tally.rated_raters
    undefined = np.argwhere(~np.isfinite(irr.value))
    if not len(undefined) or (raters[undefined[:, 1]] > 1).any():
        return caught
    head = f"{shown_name(lookup(table.attrs['irr']))} is undefined (NaN)"
    return [(k, m) for k, m in caught if not (k is UndefinedWarning and m.startswith(head))]


def shared_seed(uncertainty: Uncertainty) -> Uncertainty:
    """``uncertainty`` with its seed drawn once (when None), so that every part of the
    page resamples the same items."""
    if uncertainty.ci is None or uncertainty.seed is not None:
        return uncertainty
    return Uncertainty(uncertainty.ci, uncertainty.method, uncertainty.population,
                       uncertainty.n_boot, seeds(None, 1)[1], uncertainty.interval,
                       uncertainty.progress)


def distribution(c: Cast, roles_of: dict[int, str]) -> pd.DataFrame:
    """Each source's annotations per category and label: counts and shares."""
    ann = c.ann
    rows = []
    for j, label in enumerate(ann.labels):
        codes = ann.codes[j]
        k = len(ann.categories[j])
        for r, role in roles_of.items():
            mine = codes[(ann.replication == r) & (codes >= 0)]
            n = np.bincount(mine, minlength=k)[:k]
            total = max(int(n.sum()), 1)
            for cat, count in zip(ann.categories[j], n, strict=True):
                rows.append((label, ann.replications[r], role, cat, int(count),
                             count / total if n.sum() else np.nan))
    return pd.DataFrame(rows, columns=list(DISTRIBUTION_COLUMNS))


def _cell(frame: pd.DataFrame, statistic: str, label: Any, a: Any, b: Any = None
          ) -> pd.Series | None:
    """The report frame's row of ``statistic`` for ``label`` and replication ``a``
    (and pair (a, b) in either order)."""
    rows = frame[(frame["statistic"] == statistic) & (frame["label"] == label)]
    if b is None:
        hit = rows[rows["replication"] == a]
    else:
        hit = rows[((rows["replication"] == a) & (rows["replication_other"] == b))
                   | ((rows["replication"] == b) & (rows["replication_other"] == a))]
    return None if hit.empty else hit.iloc[0]


def _get(row: pd.Series | None, column: str) -> float:
    if row is None or column not in row.index:
        return np.nan
    return float(row[column])


def models_parts(data: Any, setup: Setup, frame: pd.DataFrame, kind: str,
                 roles: dict[str, Any]) -> Models:
    """The models page's parts from the cast annotations and the report's ``frame``."""
    c, gold, epsilon, uncertainty = setup.cast, setup.gold, setup.epsilon, setup.uncertainty
    ann = c.ann
    names = ann.replications
    ref = c.reference
    attrs: dict[str, Any] = {"reference": names[ref], "candidates": c.candidate_names,
                             "gold": None if gold is None else names[gold],
                             "epsilon": epsilon, "not_tested": None}
    alt = None
    if epsilon is None:
        attrs["not_tested"] = "no epsilon"
    elif human_raters(c) < 2:
        attrs["not_tested"] = "one human rater"
    else:
        alt = run(c, kind, setup.score, epsilon, setup.q, 2, setup.min_items, uncertainty)
        attrs.update(q=setup.q, min_items=setup.min_items, alignment=setup.score.name)
    gold_kx, gold_diff = _gold(data, c, gold, uncertainty, roles)
    raters = tally_of(ann).rated_raters
    rows = []
    for label in ann.labels:
        for r, role in [(ref, "reference"), *((k, "candidate") for k in c.candidates)]:
            name = names[r]
            row: dict[str, Any] = {"label": label, "replication": name, "role": role,
                                   "n_raters": int(raters[r])}
            test = None
            if alt is not None and role == "candidate":
                test = alt.summary.loc[(label, name)] if isinstance(
                    alt.summary.index, pd.MultiIndex) else alt.summary.loc[name]
            row["winning_rate"] = np.nan if test is None else float(test["winning_rate"])
            row["passed"] = pd.NA if test is None else test["passed"]
            row["n_humans"] = pd.NA if test is None else int(test["n_humans"])
            row["n_won"] = pd.NA if test is None else int(test["n_won"])
            row["advantage_probability"] = (np.nan if test is None
                                            else float(test["advantage_probability"]))
            row["advantage_lower"] = _get(test, "advantage_lower")
            row["advantage_upper"] = _get(test, "advantage_upper")
            pair = None if role == "reference" else name
            for stat, col in (("normalized", "normalized"), ("kappa_x", "kappa_x")):
                cell = None if pair is None else _cell(frame, stat, label, pair, names[ref])
                row[col] = _get(cell, "estimate")
                row[f"{col}_lower"] = _get(cell, "lower")
                row[f"{col}_upper"] = _get(cell, "upper")
            g = gold_kx.get((label, name), {})
            row["kappa_x_gold"] = g.get("estimate", np.nan)
            row["kappa_x_gold_lower"] = g.get("lower", np.nan)
            row["kappa_x_gold_upper"] = g.get("upper", np.nan)
            row["accuracy_gold"] = g.get("accuracy", np.nan)
            d = gold_diff.get((label, name), {})
            for q_ in ("estimate", "lower", "upper", "p_value"):
                row["gold_difference" + ("" if q_ == "estimate" else f"_{q_}")] = d.get(
                    q_, np.nan)
            stab = _cell(frame, "irr", label, name) if raters[r] >= 2 else None
            row["stability"] = _get(stab, "estimate")
            row["stability_lower"] = _get(stab, "lower")
            row["stability_upper"] = _get(stab, "upper")
            rows.append(row)
    table = pd.DataFrame(rows)
    table["passed"] = table["passed"].astype("boolean")
    for col in ("n_won", "n_humans"):  # <NA> where no test was run (the humans' row)
        table[col] = table[col].astype("Int64")
    keep = [col for col in MODEL_COLUMNS if col in table.columns and (
        not col.endswith(("_lower", "_upper", "_p_value")) or uncertainty.ci is not None)
        and (gold is not None or "gold" not in col)]
    roles_of = {ref: "reference", **{k: "candidate" for k in c.candidates}}
    if gold is not None:
        roles_of[gold] = "gold"
    return Models(table[keep], distribution(c, roles_of), alt, attrs)


def _gold(data: Any, c: Cast, gold: int | None, uncertainty: Uncertainty,
          roles: dict[str, Any]) -> tuple[dict[tuple[Any, Any], dict[str, float]],
                                          dict[tuple[Any, Any], dict[str, float]]]:
    """kappa_x of the humans and every candidate against the gold (with intervals), and
    each candidate's minus the humans' (compare with reference=gold), by (label, name)."""
    if gold is None:
        return {}, {}
    ann = c.ann
    sides = [c.reference, *c.candidates]
    names = ann.replications
    human = names[c.reference]
    kx: dict[tuple[Any, Any], dict[str, float]] = {}
    diff: dict[tuple[Any, Any], dict[str, float]] = {}
    if uncertainty.ci is not None:  # one bootstrap: kappa_x and the differences
        rows = against(data, None, names[gold], "alpha", c.level, uncertainty, roles,
                       known=(ann, c.level), with_kappa=True)
        for r in rows.itertuples():
            if r.comparison == KAPPA:
                kx[(r.label, r.replication)] = {"estimate": r.estimate, "lower": r.lower,
                                                "upper": r.upper}
            elif r.comparison == AGAINST[0] and human in (r.replication,
                                                         r.replication_other):
                first = r.replication_other == human  # the candidate minus the humans
                name = r.replication if first else r.replication_other
                lo, hi = (r.lower, r.upper) if first else (-r.upper, -r.lower)
                diff[(r.label, name)] = {"estimate": r.estimate if first else -r.estimate,
                                         "lower": lo, "upper": hi, "p_value": r.p_value}
    else:
        pairs = np.array([(min(r, gold), max(r, gold)) for r in sides], dtype=np.int64)
        found = evaluate(data, [Target("kappa_x", lookup("kappa_x", kind="cross"))],
                         ann=ann, lvl=c.level, pairs=pairs)
        value = found.estimates["kappa_x"].value
        for j, label in enumerate(ann.labels):
            for p, r in enumerate(sides):
                kx[(label, names[r])] = {"estimate": float(value[j, p])}
            for r in c.candidates:
                diff[(label, names[r])] = {"estimate": kx[(label, names[r])]["estimate"]
                                           - kx[(label, human)]["estimate"]}
    read_ = Read(ann, c.level, "pandas")
    out: dict[tuple[Any, Any], dict[str, float]] = {}
    for j, label in enumerate(ann.labels):
        counts = label_sums(read_, j, gold)  # validity's counts: exact matches with the gold
        for r in sides:
            n = counts["n_ann"][r]  # exact matches: no reading for numbers (interval, ratio)
            out[(label, names[r])] = {
                **kx.get((label, names[r]), {}),
                "accuracy": (float(counts["correct"][r] / n) if n > 0
                             and not c.level.numeric else np.nan)}
    return out, diff
