"""Landis and Koch's (1977) bands: where each begins and ends (:data:`LEGEND`, the
classifier :func:`band_of`), and in sentences: a number, its interval, and the bands
they fall in, printed with the digits that keep each number in its own band.

The one-pool reading of an IRR, the reading of kappa_x against a reference without an
IRR of its own (a gold label), and the models page's agreement with gold all say a
coefficient this way (:func:`banded`); table cells print through
:func:`~xrr_accessor.reporting.cells.shown`, by the same rule (:func:`keep_digits`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence

import numpy as np

__all__ = ["BAND_ORDER", "EDGE", "IRR_NAMES", "LANDIS_KOCH", "LEGEND", "LEGEND_NOTE", "MAX_DIGITS",
           "band_digits", "band_of", "banded", "keep_digits", "shown_in_band"]

#: How a number is read in a sentence: its band, its side of a threshold.
Reads = Callable[[float], Hashable]

#: The verdicts of a one-pool reading, Landis-Koch bands best first: the order every
#: summary counts them in (the page's and the CLI's).
BAND_ORDER = ("almost perfect", "substantial", "moderate", "fair", "slight", "poor",
              "undefined")

#: What each IRR is called in a sentence.
IRR_NAMES = {"cohen": "Cohen's kappa", "alpha": "Krippendorff's alpha", "iota": "iota"}

#: The most decimals a reading prints (a float's 17 significant digits below 1).
MAX_DIGITS = 17

#: Landis & Koch (1977): upper limit of each band, included in it (0.20 is slight,
#: 0.2001 fair); values above 0.80 are "almost perfect", below 0 "poor".
LANDIS_KOCH = (("poor", 0.0), ("slight", 0.2), ("fair", 0.4), ("moderate", 0.6),
               ("substantial", 0.8), ("almost perfect", np.inf))

#: Values within this of a band's edge are on the edge: the same coefficient summed in
#: another order (dask's partitions, threads) reads the same band.
EDGE = 1e-12


def _legend() -> tuple[tuple[str, str], ...]:
    rows = [("poor", "x < 0")]
    for (_, low), (name, top) in itertools.pairwise(LANDIS_KOCH):
        rows.append((name, (f"0 <= x <= {top:.2f}" if low == 0 else
                            f"x > {low:.2f}" if not np.isfinite(top) else
                            f"{low:.2f} < x <= {top:.2f}")))
    return tuple(rows)


#: Each band and the coefficients x it holds, exactly as :func:`band_of` (and
#: ``interpret()``) applies them: the one legend the docstrings, docs/definitions.md and
#: the report's page print.
LEGEND = _legend()

#: The one qualification of :data:`LEGEND`, for a page that gives its legend in full.
LEGEND_NOTE = (f"A coefficient within {EDGE:g} of an edge counts as on it, so the same "
               "coefficient summed in another order reads the same band.")


def band_of(v: float) -> str:
    """Landis and Koch's band of ``v`` ("undefined" for NaN), by :data:`LEGEND`.

    Examples
    --------
    >>> band_of(0.2), band_of(0.2001), band_of(-1e-13), band_of(float("nan"))
    ('slight', 'fair', 'slight', 'undefined')
    """
    if not np.isfinite(v):
        return "undefined"
    if v < -EDGE:
        return "poor"
    for name, top in LANDIS_KOCH[1:]:
        if v <= top + EDGE:
            return name
    return "almost perfect"  # pragma: no cover - inf is the last upper limit


def keep_digits(values: Sequence[float], digits: int,
                reads: Reads | Sequence[Reads]) -> int:
    """The decimals that print every number of ``values`` so that it reads back as it
    is: ``digits``, or the fewest more for which each number, printed and parsed
    back, gets the same ``reads`` (its band, its side of a threshold) as itself; at
    most :data:`MAX_DIGITS`. ``reads`` is one function for all the numbers or one per
    number (a lower limit is read against 0 one way, an upper limit another). NaN is
    printed "nan" and needs none.

    Examples
    --------
    >>> keep_digits([0.12, 0.0041], 2, lambda v: v > 0)
    3
    >>> keep_digits([-0.0004, 0.3], 2, [lambda v: v > 0, lambda v: v < 0])
    2
    """
    each = list(reads) if isinstance(reads, Sequence) else [reads] * len(values)
    pairs = [(float(v), r) for v, r in zip(values, each, strict=True) if np.isfinite(v)]
    for d in range(digits, MAX_DIGITS + 1):
        if all(r(float(f"{v:.{d}f}")) == r(v) for v, r in pairs):
            return d
    return MAX_DIGITS  # pragma: no cover - a value within 1e-17 beyond EDGE of an edge


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
    return keep_digits([v], digits, band_of)


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
