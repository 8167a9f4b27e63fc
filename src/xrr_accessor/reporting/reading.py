"""A plain-language reading of each replication pair of a report, label by label.

The sentences follow the paper's reading of normalized kappa_x (Wong et al.
2021, Section 3.5): kappa_x is capped by the IRRs of the two replications, and
normalized kappa_x says how much of that ceiling the two pools reach when
they agree with each other; 1 means they agree with each other as much as
each agrees within itself, a perfect replication. The verdict and its words
come from :func:`~xrr_accessor.reporting.verdicts.judge`, the package's one decision
rule from an estimate and its interval to words (docs/definitions.md,
"Reading a replication"). This module adds what the frame knows: why a cell
is undefined, why an interval lies above 1 (different item sets behind the
IRRs and kappa_x, an IRR near 0), and, when the IRRs behind the ceiling are
below 0.20 (Landis and Koch's "slight" or worse), that two noisy pools are
being compared, with kappa_x itself (the paper's *awe* example, Fig 6).

Eq 13 is symmetric, so the sentences are too ("A and B replicate each
other"). With ``reference=`` the ceiling is the reference replication's own
IRR and the sentence reads the other side against it ("crowd replicates
experts").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .bands import banded, keep_digits
from .cells import number
from .verdicts import VERDICTS, WIDE, Wording, judge

__all__ = ["KAPPA_ONLY", "LOW_IRR", "READINGS", "VERDICTS", "WIDE", "readings"]

#: The reading of a pair whose normalized kappa_x is undefined because a side it
#: normalizes by has one rater (a gold label, a model: no IRR), while kappa_x is
#: defined: kappa_x itself.
KAPPA_ONLY = "kappa_x only"

#: Every verdict a reading can give, in the order summaries list them.
READINGS = (*VERDICTS[:-1], KAPPA_ONLY, VERDICTS[-1])

#: IRRs below this (the top of Landis and Koch's "slight") get the noisy-pools note.
LOW_IRR = 0.20


def _low(v: float) -> bool:
    """An IRR "low", "near 0": below :data:`LOW_IRR` (0.1996 printed "0.20" is not)."""
    return v < LOW_IRR


def _why(irr_a: float, irr_b: float, kx: float, a: Any, b: Any, ref: str,
         raters: dict[str, int] | None = None) -> str:
    sides = [(a, irr_a), (b, irr_b)] if ref == "both" else [
        (s, v) for s, v in ((a, irr_a), (b, irr_b)) if str(s) == ref]
    for side, v in sides:
        if not np.isfinite(v) and (raters or {}).get(str(side)) == 1:
            return f"{side} has one rater, so no IRR to normalize by"
        if not np.isfinite(v):
            return f"the IRR of {side} is undefined"
        if v <= 0:
            return f"the IRR of {side} is {v:.3f}, not above 0, so there is no ceiling to share"
    if not np.isfinite(kx):
        return "kappa_x is undefined"
    return "see the report's warnings"


def _above_one(sides: list[tuple[Any, float, float]], n_kx: float, common: bool,
               digits: int) -> str:
    """Why normalized kappa_x can lie above 1: ``sides`` are (name, IRR, items)."""
    reasons = []
    items = [n for _, _, n in sides]
    if not common and all(np.isfinite(items)) and np.isfinite(n_kx) and (
            len(set(items)) > 1 or items[0] != n_kx):
        per = ", ".join(f"{name} on {int(n):,} items" for name, _, n in sides)
        reasons.append(f"the IRRs and kappa_x use different item sets (IRR of {per}; "
                       f"kappa_x on {int(n_kx):,}): items=\"common\" compares them on the "
                       "items both pools rated")
    near = [(name, v) for name, v, _ in sides if v < LOW_IRR]
    d = keep_digits([v for _, v in near], digits, _low)  # each printed below LOW_IRR
    if near:
        low = ", ".join(f"{name} {number(v, d)}" for name, v in near)
        reasons.append(f"an IRR near 0 ({low}) makes the ratio unstable")
    return " and ".join(reasons)


def readings(report: Any, digits: int = 2, width: float = WIDE) -> pd.DataFrame:
    """One sentence per label and replication pair, reading normalized kappa_x.

    Parameters
    ----------
    report : Report
        From :func:`~xrr_accessor.report`; its intervals are used when it
        has them.
    digits : int
        Decimals of the numbers quoted.
    width : float
        The widest interval containing 1 still read as "replicates"
        (:data:`~xrr_accessor.reporting.verdicts.WIDE`).

    Returns
    -------
    DataFrame
        Columns ``label``, ``replication``, ``replication_other`` (the pair as
        in the report), ``pair`` ("A and B", or "crowd against experts" with a
        reference), ``verdict`` (one of
        :data:`~xrr_accessor.reporting.verdicts.VERDICTS`, from
        :func:`~xrr_accessor.reporting.verdicts.judge`), ``estimate``, ``lower``,
        ``upper`` (the numbers read) and ``text``. Where normalized kappa_x is
        undefined because a side it normalizes by has one rater (no IRR: a gold
        label, a model) and kappa_x is defined, the verdict is ``"kappa_x only"``
        and the sentence reads kappa_x itself on Landis and Koch's scale, with its
        interval; ``estimate``, ``lower`` and ``upper`` are then kappa_x's.

    Examples
    --------
    >>> from xrr_accessor import report
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=5)
    >>> print(readings(report(df)).loc[0, "text"])  # doctest: +ELLIPSIS
    A and B on joy: normalized kappa_x 0.92, so the pools agree with each other at 92% of ...
    """
    frame = report.frame
    columns = ["label", "replication", "replication_other", "pair", "verdict", "estimate",
               "lower", "upper", "text"]
    if not (frame["statistic"] == "normalized").any():
        return pd.DataFrame([], columns=columns)
    ref = str(frame.loc[frame["statistic"] == "normalized", "reference"].iloc[0])
    has_n = "n_items" in frame.columns
    irr_rows = frame[frame["statistic"] == "irr"].set_index(["label", "replication"])
    kx_rows = frame[frame["statistic"] == "kappa_x"].set_index(
        ["label", "replication", "replication_other"])
    common = getattr(report, "attrs", {}).get("items") == "common"
    raters = {str(k): v.get("raters") for k, v in getattr(report, "attrs", {}).get(
        "replications", {}).items()}
    rows = []
    for r in frame[frame["statistic"] == "normalized"].itertuples(index=False):
        a, b, label = r.replication, r.replication_other, r.label
        irr_a = float(irr_rows.loc[(label, a), "estimate"])
        irr_b = float(irr_rows.loc[(label, b), "estimate"])
        k = float(kx_rows.loc[(label, a, b), "estimate"])
        x = float(r.estimate)
        lo, hi = (float(getattr(r, "lower", np.nan)), float(getattr(r, "upper", np.nan)))
        if ref == "both":  # Eq 13 is symmetric: so are the sentences
            words = Wording.symmetric(a, b)
            sides = [a, b]
        else:  # Section 6: the other side against the reference
            words = Wording.against(b if str(a) == ref else a, ref)
            sides = [s for s in (a, b) if str(s) == ref]
        if np.isfinite(x) and np.isfinite(lo) and lo > 1:
            why = _above_one(
                [(s, float(irr_rows.loc[(label, s), "estimate"]),
                  float(irr_rows.loc[(label, s), "n_items"]) if has_n else np.nan)
                 for s in sides],
                float(kx_rows.loc[(label, a, b), "n_items"]) if has_n else np.nan,
                common, digits)
        else:
            why = _why(irr_a, irr_b, k, a, b, ref, raters) if not np.isfinite(x) else ""
        one_rater = any(raters.get(str(s)) == 1 for s in sides)
        if not np.isfinite(x) and np.isfinite(k) and one_rater:  # no ceiling: kappa_x
            k_lo = float(kx_rows.loc[(label, a, b)].get("lower", np.nan))
            k_hi = float(kx_rows.loc[(label, a, b)].get("upper", np.nan))
            _, phrase = banded(k, k_lo, k_hi, digits)
            rows.append({"label": label, "replication": a, "replication_other": b,
                         "pair": words.pair, "verdict": KAPPA_ONLY, "estimate": k,
                         "lower": k_lo, "upper": k_hi,
                         "text": f"{words.pair} on {label}: kappa_x {phrase} Normalized "
                                 f"kappa_x is undefined: {why}."})
            continue
        v = judge(x, lo, hi, label, words, width=width, digits=digits, why=why)
        text = v.text
        low = [v_ for s, v_ in ((a, irr_a), (b, irr_b)) if ref in ("both", str(s))]
        if v.verdict != "undefined" and all(np.isfinite(v_) and v_ < LOW_IRR for v_ in low):
            d = keep_digits(low, digits, _low)  # each printed below LOW_IRR
            shown_irr = ", ".join(number(v_, d) for v_ in low)
            text += (f" {'Both IRRs are' if len(low) == 2 else 'The IRR is'} low "
                     f"({shown_irr}), so this compares noisy pools: kappa_x itself is "
                     f"{number(k, d)}.")
        rows.append({"label": label, "replication": a, "replication_other": b,
                     "pair": words.pair, "verdict": v.verdict, "estimate": x, "lower": lo,
                     "upper": hi, "text": text})
    return pd.DataFrame(rows, columns=columns)
