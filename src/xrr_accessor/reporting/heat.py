"""Heatmap colours and words shared by the report's figures (the ``plot`` extra): an
undefined (NaN) cell grey, text readable on any cell, the title's count of undefined
cells."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["UNDEFINED_COLOR", "ink", "undefined_note", "with_undefined"]

#: The colour of an undefined (NaN) cell in a heatmap: grey, never the page's white.
UNDEFINED_COLOR = "0.82"


def with_undefined(name: str) -> Any:
    """A colour map whose NaN cells are grey (not transparent, which reads as empty).

    Examples
    --------
    >>> with_undefined("viridis").get_bad().tolist() == [0.82, 0.82, 0.82, 1.0]
    True
    """
    from matplotlib import colormaps

    return colormaps[name].with_extremes(bad=UNDEFINED_COLOR)


def ink(v: float, dark_below: float) -> str:
    """Text colour on a heatmap cell: readable on grey (NaN), dark and light cells.

    Examples
    --------
    >>> ink(float("nan"), 0.6), ink(0.2, 0.6), ink(0.9, 0.6)
    ('0.15', 'white', 'black')
    """
    return "0.15" if np.isnan(v) else "white" if v < dark_below else "black"


def undefined_note(values: np.ndarray) -> str:
    """A heatmap title's second line counting its undefined cells ("" when none).

    Examples
    --------
    >>> undefined_note(np.array([[0.5, np.nan], [0.2, 0.1]]))
    '\\ngrey: undefined (NaN), 1 of 4 cells'
    """
    bad = int(np.isnan(values).sum())
    return f"\ngrey: undefined (NaN), {bad} of {values.size} cells" if bad else ""
