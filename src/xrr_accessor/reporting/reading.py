"""A plain-language reading of each replication pair of a report, label by label.

The sentences follow the paper's reading of normalized kappa_x (Wong et al.
2021, Section 3.5): kappa_x is capped by the IRRs of the two replications, and
normalized kappa_x says how much of that ceiling the two pools reach when
they agree with each other; 1 means they agree with each other as much as
each agrees within itself, a perfect replication. The rules, in order:

* undefined (NaN): why, from the IRRs and kappa_x of the pair;
* with an interval wider than :data:`WIDE`: *inconclusive* (an interval
  such as [0.32, 2.90] reaches 1 but says little);
* with an interval that reaches 1: the pools *replicate* each other (a
  perfect replication is not ruled out);
* with an interval that reaches 0 (and not 1): agreement between the pools
  beyond chance is *not shown*;
* otherwise they replicate each other *in part*, at the interval's share of
  the ceiling;
* without an interval: the estimate's share of the ceiling, and how to get
  an interval;
* either way, when the IRRs behind the ceiling are below 0.20 (Landis and
  Koch's "slight" or worse) the sentence adds that two noisy pools are being
  compared, with kappa_x itself (the paper's *awe* example, Fig 6).

Eq 13 is symmetric, so the sentences are too ("A and B replicate each
other"). With ``reference=`` the ceiling is the reference replication's own
IRR and the sentence reads the other side against it ("crowd replicates
experts").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .report import _num

__all__ = ["LOW_IRR", "WIDE", "readings"]

#: IRRs below this (the top of Landis and Koch's "slight") get the noisy-pools note.
LOW_IRR = 0.20
#: Intervals wider than this (on the scale of normalized kappa_x) are "inconclusive".
WIDE = 0.5


def _share(v: float) -> str:
    return f"{max(v, 0.0):.0%}"


def _why(irr_a: float, irr_b: float, kx: float, a: Any, b: Any, ref: str) -> str:
    sides = [(a, irr_a), (b, irr_b)] if ref == "both" else [
        (s, v) for s, v in ((a, irr_a), (b, irr_b)) if str(s) == ref]
    for side, v in sides:
        if not np.isfinite(v):
            return f"the IRR of {side} is undefined"
        if v <= 0:
            return f"the IRR of {side} is {v:.3f}, not above 0, so there is no ceiling to share"
    if not np.isfinite(kx):
        return "kappa_x is undefined"
    return "see the report's warnings"


def readings(report: Any, digits: int = 2) -> pd.DataFrame:
    """One sentence per label and replication pair, reading normalized kappa_x.

    Parameters
    ----------
    report : Report
        From :func:`~xrr_accessor.report`; its intervals are used when it
        has them.
    digits : int
        Decimals of the numbers quoted.

    Returns
    -------
    DataFrame
        Columns ``label``, ``replication``, ``replication_other`` (the pair as
        in the report), ``pair`` ("A and B", or "crowd against experts" with a
        reference), ``verdict`` (``"replicates"``, ``"in part"``, ``"not
        shown"``, ``"inconclusive"``, ``"estimate only"`` or ``"undefined"``) and ``text``.

    Examples
    --------
    >>> from xrr_accessor import report
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=5)
    >>> print(readings(report(df)).loc[0, "text"])  # doctest: +ELLIPSIS
    A and B on joy: normalized kappa_x 0.92, so the pools agree with each other at 92% of ...
    """
    frame = report.frame
    ref = str(frame.loc[frame["statistic"] == "normalized", "reference"].iloc[0]) if (
        frame["statistic"] == "normalized").any() else "both"
    irr = frame[frame["statistic"] == "irr"].set_index(["label", "replication"])["estimate"]
    kx = frame[frame["statistic"] == "kappa_x"].set_index(
        ["label", "replication", "replication_other"])["estimate"]
    rows = []
    for r in frame[frame["statistic"] == "normalized"].itertuples(index=False):
        a, b, label = r.replication, r.replication_other, r.label
        irr_a, irr_b = float(irr[(label, a)]), float(irr[(label, b)])
        k = float(kx[(label, a, b)])
        x = float(r.estimate)
        if ref == "both":  # Eq 13 is symmetric: so are the sentences
            pair = subject = f"{a} and {b}"
            does, does_not = "replicate each other", "do not replicate each other"
            agree, ceiling = "the pools agree with each other", "their own agreement"
        else:  # Section 6: the other side against the reference
            other = b if str(a) == ref else a
            pair, subject = f"{other} against {ref}", f"{other}"
            does, does_not = f"replicates {ref}", f"does not replicate {ref}"
            agree, ceiling = f"{other} agrees with {ref}", f"{ref}'s own agreement"
        lo, hi = (float(getattr(r, "lower", np.nan)), float(getattr(r, "upper", np.nan)))
        shown = f"{_num(x, digits)} [{_num(lo, digits)}, {_num(hi, digits)}]"
        if not np.isfinite(x):
            verdict = "undefined"
            text = (f"{pair} cannot be compared on {label}: normalized kappa_x is undefined "
                    f"({_why(irr_a, irr_b, k, a, b, ref)}).")
        elif not (np.isfinite(lo) and np.isfinite(hi)):
            verdict = "estimate only"
            reach = "as much as" if x >= 1 else f"at {_share(x)} of what"
            text = (f"{pair} on {label}: normalized kappa_x {_num(x, digits)}, so {agree} "
                    f"{reach} {ceiling} allows (no interval: ci=0.95, or --ci 0.95 in the "
                    "shell, says whether a perfect replication is ruled out).")
        elif hi - lo > WIDE:
            verdict = "inconclusive"
            text = (f"{pair} on {label}: normalized kappa_x {shown}, an interval too wide "
                    f"(over {WIDE}) to say whether {subject} {does}: more items would tell.")
        elif hi >= 1:
            verdict = "replicates"
            text = (f"{subject} {does} on {label}: normalized kappa_x {shown}; the interval "
                    f"reaches 1, so {agree} may be as high as {ceiling} allows.")
        elif lo <= 0:
            verdict = "not shown"
            text = (f"{subject} {does_not} on {label}: normalized kappa_x {shown}; the "
                    "interval reaches 0, so agreement beyond chance between them is not "
                    "shown.")
        else:
            verdict = "in part"
            text = (f"{subject} {does} only in part on {label}: normalized kappa_x {shown}; "
                    f"{agree} at {_share(lo)}-{_share(hi)} of what {ceiling} allows.")
        low = [v for s, v in ((a, irr_a), (b, irr_b)) if ref in ("both", str(s))]
        if verdict != "undefined" and all(np.isfinite(v) and v < LOW_IRR for v in low):
            shown_irr = ", ".join(_num(v, digits) for v in low)
            text += (f" {'Both IRRs are' if len(low) == 2 else 'The IRR is'} low "
                     f"({shown_irr}), so this compares noisy pools: kappa_x itself is "
                     f"{_num(k, digits)}.")
        rows.append({"label": label, "replication": a, "replication_other": b,
                     "pair": pair, "verdict": verdict, "text": text})
    return pd.DataFrame(rows, columns=["label", "replication", "replication_other", "pair",
                                       "verdict", "text"])
