"""How a report names its statistics and cells, and writes a number: shared by the
report, its readings, its page and its figures (which import this, not the report).

A number with its interval is printed by one rule (:func:`shown`): ``digits``
decimals, or more where a printed number would read back to another Landis-Koch band
than the one printed beside it, or to another replication verdict; the same decimals
for every number of the cell. The sentences follow the same rule
(:func:`~xrr_accessor.reporting.bands.banded`,
:func:`~xrr_accessor.reporting.verdicts.judge`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import InputError
from .bands import band_of, keep_digits
from .verdicts import WIDE, verdict_digits

__all__ = ["SCALES", "TITLES", "cell_names", "digits_of", "fixed", "number", "shown"]

#: Each statistic's name in titles and headers.
TITLES = {"irr": "IRR", "kappa_x": "kappa_x", "normalized": "normalized kappa_x"}

#: What each statistic's cell is read on: Landis and Koch's bands (IRR, kappa_x) or the
#: replication verdicts (normalized kappa_x); the ``scale`` of :func:`shown`.
SCALES = {"irr": "band", "kappa_x": "band", "normalized": "verdict"}


def cell_names(frame: pd.DataFrame) -> pd.Series:
    """Each row's cell: its replication, or ``"X x Y"`` for a pair.

    Examples
    --------
    >>> f = pd.DataFrame({"replication": ["A", "A"], "replication_other": [None, "B"]})
    >>> cell_names(f).tolist()
    ['A', 'A x B']
    """
    other = frame["replication_other"]
    return frame["replication"].astype(str).where(
        other.isna(), frame["replication"].astype(str) + " x " + other.astype(str))


def number(v: float, digits: int) -> str:
    """``v`` with ``digits`` decimals, or "NaN".

    Examples
    --------
    >>> number(0.12345, 2), number(float("nan"), 2)
    ('0.12', 'NaN')
    """
    return "NaN" if not np.isfinite(v) else f"{v:.{digits}f}"


def fixed(v: float, digits: int) -> str:
    """``v`` with ``digits`` decimals for a table cell: "" where not finite, and never
    "-0.000" (a tiny negative that rounds to 0 prints as 0).

    Examples
    --------
    >>> fixed(0.12345, 3), fixed(-0.0001, 3), fixed(float("nan"), 3)
    ('0.123', '0.000', '')
    """
    if not np.isfinite(v):
        return ""
    text = f"{v:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def digits_of(est: float, lo: float = np.nan, hi: float = np.nan, digits: int = 2, *,
              scale: str | None = "band", width: float = WIDE) -> int:
    """The decimals :func:`shown` prints ``est``, ``lo`` and ``hi`` with: ``digits``, or
    the fewest more that keep every number, read back, in its own Landis-Koch band
    (``scale="band"``, :func:`~xrr_accessor.reporting.bands.band_of`) or the three
    on the replication verdict they give
    (``scale="verdict"``, :func:`~xrr_accessor.reporting.verdicts.verdict_digits`);
    ``scale=None``: ``digits``.

    Examples
    --------
    >>> digits_of(0.605, 0.58, 0.63), digits_of(0.12, 0.0041, 0.27, scale="verdict")
    (3, 3)
    """
    if scale is None:
        return digits
    if scale == "band":
        return keep_digits([est, lo, hi], digits, band_of)
    if scale == "verdict":
        if not (np.isfinite(lo) and np.isfinite(hi)):
            lo = hi = np.nan
        return verdict_digits(est, lo, hi, digits, width)
    raise InputError(f"scale={scale!r} is not a scale a cell is read on: use 'band' (IRR, "
                     "kappa_x), 'verdict' (normalized kappa_x) or None (cells.SCALES)")


def shown(est: float, lo: float = np.nan, hi: float = np.nan, digits: int = 2, *,
          scale: str | None = "band", width: float = WIDE) -> tuple[str, str]:
    """A table cell's estimate and interval as printed: ``(est_text, interval_text)``.

    Every number of the cell gets the same decimals (:func:`digits_of`): ``digits``,
    or more where one printed with ``digits`` would read back to another band than
    its own ("0.605" is substantial; "0.60" would read as moderate) or, for normalized
    kappa_x, to another verdict (a lower limit of 0.0041 printed "0.00" would touch 0).

    Parameters
    ----------
    est, lo, hi : float
        The estimate and its limits (NaN limits: no interval).
    digits : int
        The fewest decimals.
    scale : {"band", "verdict"} or None
        What the cell is read on (:data:`SCALES` by statistic); None for a number
        beside which no band or verdict is printed.
    width : float
        The widest interval containing 1 read as "replicates" (``scale="verdict"``).

    Returns
    -------
    tuple of str
        ``est_text`` ("NaN" when ``est`` is not finite) and ``interval_text``
        ("[lo, hi]", or "" without both limits or without an estimate).

    Examples
    --------
    >>> shown(0.45, 0.42, 0.50), shown(0.605), shown(0.205, 0.19, 0.22)
    (('0.45', '[0.42, 0.50]'), ('0.605', ''), ('0.205', '[0.190, 0.220]'))
    >>> shown(0.12, 0.0041, 0.27, scale="verdict")
    ('0.120', '[0.004, 0.270]')
    >>> shown(float("nan"), 0.1, 0.2), shown(0.605, scale=None)
    (('NaN', ''), ('0.60', ''))
    """
    if not np.isfinite(est):
        return "NaN", ""
    d = digits_of(est, lo, hi, digits, scale=scale, width=width)
    limits = bool(np.isfinite(lo) and np.isfinite(hi))
    return f"{est:.{d}f}", (f"[{lo:.{d}f}, {hi:.{d}f}]" if limits else "")
