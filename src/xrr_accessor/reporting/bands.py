"""Landis and Koch's (1977) bands in sentences: a number, its interval, and the bands
they fall in, printed with the digits that keep each number in its own band.

The one-pool reading of an IRR, the reading of kappa_x against a reference without an
IRR of its own (a gold label), and the models page's agreement with gold all say a
coefficient this way (:func:`banded`).
"""

from __future__ import annotations

import numpy as np

from .agreement import interpret

__all__ = ["IRR_NAMES", "MAX_DIGITS", "band_digits", "band_of", "banded", "shown_in_band"]

#: What each IRR is called in a sentence.
IRR_NAMES = {"cohen": "Cohen's kappa", "alpha": "Krippendorff's alpha", "iota": "iota"}

#: The most decimals a reading prints (a float's 17 significant digits below 1).
MAX_DIGITS = 17


def band_of(v: float) -> str:
    """Landis and Koch's band of ``v`` ("undefined" for NaN)."""
    return str(interpret(v)) if np.isfinite(v) else "undefined"


def band_digits(v: float, digits: int) -> int:
    """The decimals ``v`` needs: ``digits``, or more where rounding would carry it
    into another Landis-Koch band than its own (0.40068 is moderate, and "0.40"
    would read as fair). Within EDGE (1e-12) of an edge a value is on the edge, so
    one just beyond it can need more than 12 (-1.4e-12 is poor, and 12 decimals
    print -1e-12, on the edge: slight); at most :data:`MAX_DIGITS`.

    Examples
    --------
    >>> band_digits(0.40068, 2), band_digits(0.3512, 2), band_digits(0.4 + 8e-9, 2)
    (3, 2, 8)
    >>> band_digits(-1.4e-12, 2)
    13
    """
    for d in range(digits, MAX_DIGITS + 1):
        if band_of(round(v, d)) == band_of(v):
            return d
    return MAX_DIGITS  # pragma: no cover - a value within 1e-17 beyond EDGE of an edge


def shown_in_band(values: list[float], digits: int) -> list[str]:
    """The numbers of one sentence, all with the same decimals: ``digits``, or the
    most any of them needs to stay in its own Landis-Koch band
    (:func:`band_digits`), so that every number printed agrees with the band the
    sentence names and none stands out with a digit more than its neighbours.

    Examples
    --------
    >>> shown_in_band([0.3512], 2), shown_in_band([0.34, 0.28, 0.40068], 2)
    (['0.35'], ['0.340', '0.280', '0.401'])
    """
    d = max(band_digits(v, digits) for v in values)
    return [f"{v:.{d}f}" for v in values]


def banded(x: float, lo: float, hi: float, digits: int = 2) -> tuple[str, str]:
    """(band, phrase) of a finite coefficient ``x`` and its interval (NaN limits:
    none): "0.45 [0.42, 0.50], moderate on Landis and Koch's scale; the interval lies
    within moderate." (or "spans fair to moderate", or, with no interval, how to get
    one).

    Examples
    --------
    >>> banded(0.45, 0.42, 0.50)[1]
    "0.45 [0.42, 0.50], moderate on Landis and Koch's scale; the interval lies within moderate."
    >>> banded(0.45, 0.35, 0.50)[1]
    "0.45 [0.35, 0.50], moderate on Landis and Koch's scale; the interval spans fair to moderate."
    """
    band = band_of(x)
    limits = bool(np.isfinite(lo) and np.isfinite(hi))
    shown = shown_in_band([x, lo, hi] if limits else [x], digits)
    text = (shown[0] + (f" [{shown[1]}, {shown[2]}]" if limits else "")
            + f", {band} on Landis and Koch's scale")
    if limits:
        a, b = band_of(lo), band_of(hi)
        text += (f"; the interval lies within {a}." if a == b else
                 f"; the interval spans {a} to {b}.")
    else:
        text += (" (no interval: ci=0.95, or --ci 0.95 in the shell, says how far it can "
                 "move).")
    return band, text
