"""How a report names its statistics and cells, and writes a number: shared by the
report, its readings, its page and its figures (which import this, not the report)."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["TITLES", "cell_names", "number"]

#: Each statistic's name in titles and headers.
TITLES = {"irr": "IRR", "kappa_x": "kappa_x", "normalized": "normalized kappa_x"}


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
