"""One decision rule from a normalized kappa_x and its interval to words.

Every sentence the package writes about a replication (``readings()``, the
HTML page, the CLI) comes from :func:`judge`, so that no sentence can say
more than its interval does. The rule, on the scale of normalized kappa_x
(1: the pools agree with each other as much as within themselves; 0: no
agreement between them beyond chance), with ``[lower, upper]`` the interval
and ``width`` the widest interval still read as precise (:data:`WIDE`):

========================  ==========================================================
verdict                   when
========================  ==========================================================
``undefined``             the estimate is NaN (say why)
``estimate only``         no interval (the estimate's share of the ceiling)
``exceeds``               the interval lies above 1 (``lower > 1``), with the reason
``in part``               the interval lies between 0 and 1 (``0 < lower``, ``upper < 1``)
``does not replicate``    the interval lies below 1 and contains 0 or lies below it
                          (``upper < 1``, ``lower <= 0``)
``replicates``            the interval contains 1, lies above 0 and is at most
                          ``width`` wide
``inconclusive``          the interval contains 1 and is wider than ``width`` or
                          also contains 0
========================  ==========================================================

The first matching row wins; every (estimate, lower, upper) gets exactly one
verdict. An interval that leaves out 1 is never "inconclusive", however wide:
it already rules out a perfect replication. A number within
:data:`~xrr_accessor.reporting.bands.EDGE` (1e-12) of 0 or 1, and a width within it of
``width``, counts as on it, as a coefficient that close to a Landis-Koch edge does: the
same interval summed in another order reads the same verdict. The numbers are printed
with the decimals that read back to the verdict given (:func:`verdict_digits`).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from .bands import EDGE, MAX_DIGITS

__all__ = ["VERDICTS", "WIDE", "Verdict", "Wording", "judge", "side", "verdict_digits",
           "verdict_of"]

#: Intervals wider than this (on the scale of normalized kappa_x) that contain 1
#: are "inconclusive".
WIDE = 0.5

#: Every verdict, in the order summaries list them.
VERDICTS = ("replicates", "exceeds", "in part", "does not replicate", "inconclusive",
            "estimate only", "undefined")


@dataclass(frozen=True)
class Wording:
    """How a sentence names the two sides.

    ``pair`` names them as a pair ("A and B", "crowd against experts");
    ``subject`` is the grammatical subject of ``does`` / ``does_not`` ("A and
    B" + "replicate each other", or "crowd" + "replicates experts"); ``agree``
    is a clause whose verb takes "as much as" / "at 55% of what" ("the pools
    agree with each other"), and ``ceiling`` what bounds it ("their own
    agreement").
    """

    pair: str
    subject: str
    does: str
    does_not: str
    agree: str
    ceiling: str

    @classmethod
    def symmetric(cls, a: object, b: object) -> Wording:
        """Eq 13 (geometric mean of both IRRs): "A and B replicate each other"."""
        both = f"{a} and {b}"
        return cls(both, both, "replicate each other", "do not replicate each other",
                   "the pools agree with each other", "their own agreement")

    @classmethod
    def against(cls, other: object, ref: object) -> Wording:
        """Section 6 (normalized by ``ref``'s IRR): "crowd replicates experts"."""
        return cls(f"{other} against {ref}", f"{other}", f"replicates {ref}",
                   f"does not replicate {ref}", f"{other} agrees with {ref}",
                   f"the agreement within {ref}")


@dataclass(frozen=True)
class Verdict:
    """A verdict (one of :data:`VERDICTS`) and the sentence that says it."""

    verdict: str
    text: str


def verdict_of(estimate: float, lower: float, upper: float, width: float = WIDE) -> str:
    """The verdict of an estimate and its interval (the module's table, in order).

    Examples
    --------
    >>> verdict_of(0.35, 0.12, 0.63)
    'in part'
    >>> verdict_of(1.32, 1.11, 1.57), verdict_of(0.97, 0.90, 1.04)
    ('exceeds', 'replicates')
    """
    if not np.isfinite(estimate):
        return "undefined"
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return "estimate only"
    if lower > 1 + EDGE:
        return "exceeds"
    if upper < 1 - EDGE:
        return "in part" if lower > EDGE else "does not replicate"
    if upper - lower > width + EDGE or lower <= EDGE:
        return "inconclusive"
    return "replicates"


def side(v: float) -> tuple[int, int]:
    """Where ``v`` lies against 0 and 1, the two numbers every verdict reads:
    (sign of v, sign of v - 1), within EDGE (1e-12) of either on it (0).

    Examples
    --------
    >>> side(0.0041), side(0.0), side(1.0), side(1.3), side(1 + 1e-15)
    ((1, -1), (0, -1), (1, 0), (1, 1), (1, 0))
    """
    def sign(at: float) -> int:  # as verdict_of compares: v > 1 + EDGE, not v - 1 > EDGE
        return int(v > at + EDGE) - int(v < at - EDGE)

    return sign(0.0), sign(1.0)


def _reads(estimate: float, lower: float, upper: float, wide: bool) -> tuple:
    """What a sentence reads from an estimate and its limits: the verdict (with the
    interval ``wide`` or not: wider than the width read), and the claim that
    qualifies it: the estimate's side of 0 and 1 without an interval (its share of
    the ceiling: "at 100%" is "as much as"), the upper limit's side of 0 for "does
    not replicate" ("contains 0" or "lies below 0"), the width for "inconclusive"."""
    key = verdict_of(estimate, lower, upper, -np.inf if wide else np.inf)
    if key == "estimate only":
        return key, side(estimate)
    if key == "does not replicate":
        return key, upper >= -EDGE
    return key, wide if key == "inconclusive" else None


def verdict_digits(estimate: float, lower: float, upper: float, digits: int = 2,
                   width: float = WIDE) -> int:
    """The decimals that print an estimate and its interval so that, read back, they
    give the verdict and the claims of the sentence they were given: ``digits``, or
    the fewest more. A lower limit of 0.0041 printed "0.00" would read as touching 0
    (not "in part"), an upper limit of 0.9996 printed "1.00" as reaching 1, an
    interval [0.6, 1.1004] printed "[0.60, 1.10]" as at most 0.5 wide (the printed
    limits' difference, as a reader takes it), an estimate of 0.9996 without an
    interval printed "1.00" as reaching its ceiling.

    Examples
    --------
    >>> verdict_digits(0.12, 0.0041, 0.27), verdict_digits(0.35, 0.12, 0.63)
    (3, 2)
    >>> verdict_digits(0.9, 0.6, 1.1004), verdict_digits(0.7, 0.457, 0.965)
    (4, 2)
    >>> verdict_digits(0.9996, float("nan"), float("nan"))
    4
    """
    want = _reads(estimate, lower, upper, upper - lower > width + EDGE)  # as verdict_of

    def reads_back(d: int) -> bool:
        e, lo, hi = (f"{v:.{d}f}" for v in (estimate, lower, upper))
        wide = bool(np.isfinite([float(lo), float(hi)]).all()) and (
            Decimal(hi) - Decimal(lo) > Decimal(repr(width)) + Decimal(repr(EDGE)))
        return _reads(float(e), float(lo), float(hi), wide) == want

    return next((d for d in range(digits, MAX_DIGITS) if reads_back(d)), MAX_DIGITS)


def _shares(values: list[float], digits: int) -> list[str]:
    """``values`` (shares of a ceiling, clipped to 0-1) as percentages with the
    precision of numbers printed with ``digits`` decimals (0.27 -> 27%, 0.0041 at
    three decimals -> 0.4%), or more where a share would read as 0% or 100%
    when it is neither."""
    v = [min(max(x, 0.0), 1.0) for x in values]
    for p in range(max(digits - 2, 0), MAX_DIGITS + 1):
        texts = [f"{x:.{p}%}" for x in v]
        if all(side(float(Decimal(t[:-1]) / 100)) == side(x) for t, x in zip(texts, v,
                                                                               strict=True)):
            break
    return texts


def judge(estimate: float, lower: float, upper: float, label: object, words: Wording,
          width: float = WIDE, digits: int = 2, why: str = "") -> Verdict:
    """The verdict on one label and pair, and the sentence that says it.

    Parameters
    ----------
    estimate, lower, upper : float
        Normalized kappa_x and its interval (NaN limits: no interval).
    label : object
        The label the sentence is about.
    words : Wording
        How to name the two sides (:meth:`Wording.symmetric` or
        :meth:`Wording.against`).
    width : float
        The widest interval containing 1 still read as "replicates".
    digits : int
        Decimals of the numbers quoted, or more where a number printed with
        ``digits`` would read back to another verdict (:func:`verdict_digits`): the
        same for every number of the sentence.
    why : str
        For ``undefined``: why the estimate is NaN; for ``exceeds``: why it
        lies above 1 (e.g. different item sets), quoted after "likely".

    Returns
    -------
    Verdict

    Examples
    --------
    >>> v = judge(0.35, 0.12, 0.63, "joy", Wording.symmetric("Budapest", "Mexico City"))
    >>> v.verdict
    'in part'
    >>> print(v.text)  # doctest: +NORMALIZE_WHITESPACE
    Budapest and Mexico City replicate each other only in part on joy: normalized
    kappa_x 0.35 [0.12, 0.63]; the interval lies between 0 and 1, so the pools agree
    with each other at 12%-63% of what their own agreement allows.
    """
    w = words
    key = verdict_of(estimate, lower, upper, width)
    limits = key not in ("undefined", "estimate only")
    d = verdict_digits(estimate, lower, upper, digits, width)
    x = f"{estimate:.{d}f}" if np.isfinite(estimate) else "NaN"
    shown = f"{x} [{lower:.{d}f}, {upper:.{d}f}]" if limits else x
    head = f"normalized kappa_x {shown}"
    if key == "undefined":
        text = (f"{w.pair} cannot be compared on {label}: normalized kappa_x is undefined"
                + (f" ({why})." if why else "."))
    elif key == "estimate only":
        reach = ("as much as" if side(estimate)[1] == 0 else "more than" if estimate > 1
                 else f"at {_shares([estimate], d)[0]} of what")
        text = (f"{w.pair} on {label}: {head}, so {w.agree} {reach} {w.ceiling} allows (no "
                "interval: ci=0.95, or --ci 0.95 in the shell, says whether a perfect "
                "replication is ruled out).")
    elif key == "exceeds":
        text = (f"{w.pair} on {label}: {head}; the interval lies above 1, so {w.agree} "
                f"more than {w.ceiling} allows, which a replication of the same items "
                "cannot do: "
                + (f"likely because {why}." if why else "read the IRRs and kappa_x "
                   "behind it before calling this a replication."))
    elif key == "in part":
        low, high = _shares([lower, upper], d)
        text = (f"{w.subject} {w.does} only in part on {label}: {head}; the interval lies "
                f"between 0 and 1, so {w.agree} at {low}-{high} of what "
                f"{w.ceiling} allows.")
    elif key == "does not replicate":
        where = "contains 0" if upper >= -EDGE else "lies below 0"
        text = (f"{w.subject} {w.does_not} on {label}: {head}; the interval {where}, so "
                "agreement beyond chance between them is not shown.")
    elif key == "inconclusive":
        why_wide = (f"is wider than {width}" if upper - lower > width + EDGE
                    else "also contains 0")
        text = (f"{w.pair} on {label}: {head}; the interval contains 1 but {why_wide}, "
                f"too wide to say whether {w.subject} {w.does}: more items would tell.")
    else:
        text = (f"{w.subject} {w.does} on {label}: {head}; the interval contains 1 and is "
                f"at most {width} wide, so {w.agree} as much as {w.ceiling} allows, "
                "within the interval's precision.")
    return Verdict(key, text)
