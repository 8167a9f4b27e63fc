"""Layout of the figures from what they draw (the ``plot`` extra).

Every figure sizes itself from the number of names on its category axis
(:func:`span`: inches in proportion, within bounds), names at most
:data:`MAX_NAMES` of them (:func:`top_note`: the rest counted in the axis label),
turns x names upright past a few (:func:`x_rotation`) and, last, shrinks tick
labels that still overlap on the figure they were drawn on (:func:`fit_ticks`;
an Axes the caller made may be smaller than the figure would have chosen).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["MAX_NAMES", "MIN_FONT", "fit_ticks", "quiet_layout", "span", "top_note",
           "x_rotation"]


@contextmanager
def quiet_layout() -> Iterator[None]:
    """Draw without matplotlib's "constrained_layout not applied" warning: names too long
    for any layout (a 200-character label) keep the default one, which is what the
    warning says; the figure is still drawn, and the page shows it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="constrained_layout not applied",
                                category=UserWarning)
        yield

#: The most names one category axis draws; past it, the first MAX_NAMES in the
#: figure's order are drawn and the axis label counts the rest.
MAX_NAMES = 60
#: The smallest tick label font (points) :func:`fit_ticks` shrinks to.
MIN_FONT = 5.0


def span(n: int, per: float = 0.2, base: float = 1.5, lo: float = 2.5,
         hi: float = 13.0) -> float:
    """Inches along an axis naming ``n`` things: ``base + per * n`` within [lo, hi].

    Examples
    --------
    >>> span(1), span(31), span(300)
    (2.5, 7.7, 13.0)
    """
    return float(min(hi, max(lo, base + per * n)))


def x_rotation(n: int, longest: int = 0) -> tuple[int, str]:
    """Rotation and alignment of ``n`` names along x (the longest ``longest``
    characters): level when few and short, upright past 8 or past 12 characters.

    Examples
    --------
    >>> x_rotation(3), x_rotation(31), x_rotation(3, longest=40)
    ((0, 'center'), (90, 'center'), (90, 'center'))
    """
    return (0, "center") if n <= 8 and (n < 2 or longest <= 12) else (90, "center")


def top_note(shown: int, total: int, what: str, order: str = "") -> str:
    """The axis label's count of what is not drawn ("" when all is).

    Examples
    --------
    >>> top_note(60, 300, "labels", "largest kappa_x first")
    'the first 60 of 300 labels (largest kappa_x first); 240 more not drawn'
    >>> top_note(31, 31, "labels")
    ''
    """
    if shown >= total:
        return ""
    return (f"the first {shown} of {total:,} {what}" + (f" ({order})" if order else "")
            + f"; {total - shown:,} more not drawn")


def _overlaps(boxes: list[Any], along_x: bool) -> bool:
    """Whether two neighbouring boxes (sorted along the axis) overlap."""
    key = (lambda b: b.x0) if along_x else (lambda b: b.y0)
    boxes = sorted(boxes, key=key)
    return any(a.overlaps(b) for a, b in itertools.pairwise(boxes))


def fit_ticks(ax: Any, min_font: float = MIN_FONT) -> None:
    """Shrink the tick labels of each axis of ``ax`` whose labels overlap, as measured
    by the renderer, down to ``min_font`` points; past that, when more than 8
    names, draw every other one (a handful of names is never thinned).

    Examples
    --------
    >>> from xrr_accessor._optional import new_axes
    >>> ax = new_axes(None, (2, 2))
    >>> _ = ax.set_yticks(range(40), [f"name {k}" for k in range(40)])
    >>> fit_ticks(ax)
    >>> r = ax.figure.canvas.get_renderer()
    >>> shown = [t.get_window_extent(r) for t in ax.get_yticklabels() if t.get_visible()]
    >>> _overlaps(shown, along_x=False)
    False
    """
    fig = ax.figure
    for _ in range(8):  # each pass: one draw, then each axis whose labels overlap shrinks
        with quiet_layout():
            fig.draw_without_rendering()  # the layout, measured, without filling pixels
        renderer = fig.canvas.get_renderer()
        changed = False
        for axis, along_x in ((ax.xaxis, True), (ax.yaxis, False)):
            labels = [t for t in axis.get_ticklabels() if t.get_visible() and t.get_text()]
            if len(labels) < 2 or not _overlaps(
                    [t.get_window_extent(renderer) for t in labels], along_x):
                continue
            changed = True
            size = labels[0].get_fontsize()
            if size > min_font:
                axis.set_tick_params(labelsize=max(min_font, size * 0.8))
            elif len(labels) > 8:  # the smallest font still overlaps: every other name
                for t in labels[1::2]:
                    t.set_visible(False)
        if not changed:
            return
