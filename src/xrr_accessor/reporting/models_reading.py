"""The models page in words: can each candidate replace the annotators, label by label?

One paragraph per label and candidate, every sentence a reading of numbers in
:attr:`~xrr_accessor.reporting.report.Report.models`, each by a fixed rule
(docs/definitions.md, "Reading the models page"):

1. the answer: the alternative annotator test's decision (``replaces``: the winning
   rate reaches 0.5; ``does not replace``; ``not tested``, and why), with the humans
   won over and the advantage probability (and its interval);
2. agreement with the humans relative to their own: normalized kappa_x with the humans
   as reference, through :func:`~.verdicts.judge` (the rule every replication reading
   follows);
3. with a gold pool: kappa_x against the gold on Landis and Koch's scale, the humans'
   beside it, the share of annotations equal to the gold (the candidate's and the
   humans'), and whether the candidate agrees with the gold more or less than the
   humans do, read from the paired difference's interval (a claim only where the
   interval leaves out 0);
4. stability: the IRR of the candidate's own raters (prompts, runs), where it has two
   or more;
5. the label distribution: the category the candidate gives most differently from the
   humans (5 points or more), or, for numbers, the two means.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .bands import IRR_NAMES, banded, keep_digits
from .cells import number
from .cells import shown as shown_cell
from .verdicts import Wording, judge

__all__ = ["ABOVE_ONE", "MODEL_VERDICTS", "PASS", "SHARE_GAP", "model_readings", "whose"]

#: Every verdict of the models page, in the order summaries list them.
MODEL_VERDICTS = ("replaces", "does not replace", "not tested")

#: Why a candidate's normalized kappa_x can lie above 1 (said only when its interval does).
ABOVE_ONE = ("a candidate less noisy than one human annotator (an average of several, a "
             "model) can agree with the humans more than they agree with each other")

#: The winning rate at which a candidate passes the alternative annotator test.
PASS = 0.5

#: A gap in a category's share below this is not said.
SHARE_GAP = 0.05



def whose(name: Any) -> str:
    """``name``'s, or ``name``' for a name ending in s ("humans'").

    Examples
    --------
    >>> whose("crowd"), whose("humans")
    ("crowd's", "humans'")
    """
    text = str(name)
    return text + ("'" if text.endswith("s") else "'s")


def _interval(row: Any, stem: str, digits: int) -> str:
    lo, hi = float(row.get(f"{stem}_lower", np.nan)), float(row.get(f"{stem}_upper", np.nan))
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ""
    return f" [{number(lo, digits)}, {number(hi, digits)}]"


def _answer(row: Any, ref: str, attrs: dict[str, Any], digits: int) -> tuple[str, str]:
    """(verdict, sentence) of the alternative annotator test."""
    cand, label = row["replication"], row["label"]
    why = attrs.get("not_tested")
    if why == "no epsilon":
        return "not tested", (
            f"{cand} against {ref} on {label}: the alternative annotator test needs "
            "epsilon= (the cost-benefit margin: 0.1 to 0.2 in the paper), so this page does "
            f"not say whether {cand} can replace {ref}.")
    if why == "one human rater":
        return "not tested", (
            f"{cand} against {ref} on {label}: {ref} has one rater, and the alternative "
            "annotator test leaves one annotator out to compare with the others, so it "
            "needs two or more.")
    m = int(row["n_humans"])
    if m == 0 or not np.isfinite(row["winning_rate"]):
        return "not tested", (
            f"{cand} against {ref} on {label}: no annotator of {ref} has "
            f"{attrs.get('min_items')} items compared with {cand} (min_items), so the "
            "alternative annotator test is not run.")
    wr = float(row["winning_rate"])
    won = int(row["n_won"])
    passed = bool(row["passed"])
    wr_d = keep_digits([wr], digits, lambda v: v >= PASS)  # 0.4996 is not "0.50"
    head = (f"{cand} {'can' if passed else 'cannot'} replace {ref} on {label} by the "
            f"alternative annotator test (epsilon {attrs['epsilon']:g}): it wins against "
            f"{won} of the {m} annotators tested (winning rate {number(wr, wr_d)}; "
            f"{PASS:.2f} passes).")
    ap = float(row["advantage_probability"])
    head += (f" Its advantage probability is {number(ap, digits)}"
             f"{_interval(row, 'advantage', digits)}: averaged over those annotators, "
             f"{cand} aligns with the others at least as well as the one left out on "
             f"{ap:.0%} of the items.")
    return ("replaces" if passed else "does not replace"), head


def _p_text(p: float, n_boot: Any) -> str:
    """", p = 0.012" or ", p < 0.001"; a bootstrap p-value of 0 (0 beyond every
    replicate) as below 1 / n_boot, the finest it resolves."""
    if not np.isfinite(p):
        return ""
    if p == 0 and n_boot:
        return f", p < {1 / int(n_boot):.2g} (0 lies beyond all {int(n_boot):,} replicates)"
    return ", p < 0.001" if p < 0.001 else f", p = {p:.3f}"


def _gold(row: Any, human: Any, ref: str, gold: str, digits: int,
          n_boot: Any = None) -> str:
    x = float(row["kappa_x_gold"])
    cand = row["replication"]
    if not np.isfinite(x):
        return f" Against {gold}, kappa_x is undefined (see the report's notes)."
    _, phrase = banded(x, float(row.get("kappa_x_gold_lower", np.nan)),
                       float(row.get("kappa_x_gold_upper", np.nan)), digits)
    text = f" Against {gold}: kappa_x {phrase}"
    h = float(human["kappa_x_gold"])
    if np.isfinite(h):  # as its cell prints it: each number in its own band
        h_x, h_interval = shown_cell(h, float(human.get("kappa_x_gold_lower", np.nan)),
                                     float(human.get("kappa_x_gold_upper", np.nan)), digits)
        text += f" {ref} against {gold}: kappa_x {h_x}{' ' if h_interval else ''}{h_interval}."
    acc, acc_h = float(row.get("accuracy_gold", np.nan)), float(human.get("accuracy_gold",
                                                                           np.nan))
    if np.isfinite(acc):
        text += (f" {acc:.0%} of {whose(cand)} annotations equal the gold label"
                 + (f" ({whose(ref)}: {acc_h:.0%})." if np.isfinite(acc_h) else "."))
    d = float(row.get("gold_difference", np.nan))
    lo, hi = (float(row.get("gold_difference_lower", np.nan)),
              float(row.get("gold_difference_upper", np.nan)))
    if not np.isfinite(d):
        return text
    # the limits printed on the side of 0 the sentence reads them on
    k = keep_digits([lo, hi], digits, [lambda v: v > 0, lambda v: v < 0])
    shown = f"{number(d, k)}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return text + (f" The difference, {shown}, has no interval (ci=0.95 says whether "
                       "it is more than chance).")
    shown += f" [{number(lo, k)}, {number(hi, k)}]"
    p_text = _p_text(float(row.get("gold_difference_p_value", np.nan)), n_boot)
    if lo > 0:
        return text + (f" {cand} agrees with {gold} more than {ref} does: the difference, "
                       f"{shown}, lies above 0{p_text}.")
    if hi < 0:
        return text + (f" {cand} agrees with {gold} less than {ref} does: the difference, "
                       f"{shown}, lies below 0{p_text}.")
    return text + (f" The difference from {ref}, {shown}, contains 0: neither agrees with "
                   f"{gold} more, as far as these items show{p_text}.")


def _stability(row: Any, irr: str, digits: int) -> str:
    n, x = int(row["n_raters"]), float(row.get("stability", np.nan))
    if n < 2:
        return ""
    if not np.isfinite(x):
        return f" Its {n} raters' agreement with each other is undefined."
    _, phrase = banded(x, float(row.get("stability_lower", np.nan)),
                       float(row.get("stability_upper", np.nan)), digits)
    return (f" Its {n} raters (prompts, runs) agree with each other at "
            f"{IRR_NAMES.get(irr, irr)} {phrase}")


def _labels(dist: pd.DataFrame, cand: Any, ref: Any, label: Any, numeric: bool,
            digits: int) -> str:
    """The category the candidate gives most differently from the humans, or means."""
    part = dist[dist["label"] == label]
    mine = part[part["replication"] == cand].set_index("category")
    theirs = part[part["replication"] == ref].set_index("category")
    if mine["n"].sum() == 0 or theirs["n"].sum() == 0:
        return ""
    if numeric:
        values = np.asarray(mine.index, dtype=float)
        a = float((values * mine["n"]).sum() / mine["n"].sum())
        b = float((values * theirs["n"]).sum() / theirs["n"].sum())
        return f" Its mean label is {number(a, digits)}, {whose(ref)} {number(b, digits)}."
    gap = (mine["share"] - theirs["share"]).abs()
    top = gap.idxmax()
    if gap[top] < SHARE_GAP:
        return ""
    return (f" The label it gives most differently: {top} on {mine.loc[top, 'share']:.0%} "
            f"of its annotations, {theirs.loc[top, 'share']:.0%} of {whose(ref)}.")


def model_readings(report: Any, digits: int = 2) -> pd.DataFrame:
    """One paragraph per label and candidate of a models page (module docstring).

    Returns
    -------
    DataFrame
        ``label``, ``replication`` (the candidate), ``verdict`` (one of
        :data:`MODEL_VERDICTS`) and ``text``.
    """
    table = report.models
    attrs = report.attrs.get("models", {})
    ref, gold = str(attrs.get("reference")), attrs.get("gold")
    numeric = report.attrs.get("level") in ("interval", "ratio")
    rows = []
    for label, part in table.groupby("label", sort=False):
        human = part[part["role"] == "reference"].iloc[0]
        for _, row in part[part["role"] == "candidate"].iterrows():
            verdict, text = _answer(row, ref, attrs, digits)
            x = float(row["normalized"])
            lo = float(row.get("normalized_lower", np.nan))
            hi = float(row.get("normalized_upper", np.nan))
            words = Wording.against(row["replication"], ref)
            why = (ABOVE_ONE if np.isfinite(x) else
                   f"the IRR of {ref} is not above 0 or undefined")
            text += " " + judge(x, lo, hi, label, words, digits=digits, why=why).text
            if gold is not None:
                text += _gold(row, human, ref, str(gold), digits, report.attrs.get("n_boot"))
            text += _stability(row, str(report.attrs.get("irr")), digits)
            if report.distribution is not None:
                text += _labels(report.distribution, row["replication"], human["replication"],
                                label, numeric, digits)
            rows.append({"label": label, "replication": row["replication"],
                         "verdict": verdict, "text": text})
    return pd.DataFrame(rows, columns=["label", "replication", "verdict", "text"])
