"""Counts of annotations per replication, kept apart from the codes.

Reports and summaries show how many items, raters and annotations each
replication has. In memory these come from the codes (:func:`tally`); for
dask-backed data the codes never sit in one place, so each partition's counts
are added instead, and the skeleton :class:`~.tables.Annotations` of such a
call carries them (:func:`tally_of` reads either).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..kernels.counting import label_counts

__all__ = ["Tally", "present", "tally", "tally_of"]


@dataclass(frozen=True)
class Tally:
    """Per-replication counts (R = replications, L = labels).

    Attributes
    ----------
    annotations : ndarray of int64, shape (L, R)
        Non-missing annotations of each label in each replication.
    rows : ndarray of int64, shape (R,)
        Annotation rows (item x rater) of each replication, any label or none.
    items, raters : ndarray of int64, shape (R,)
        Distinct items and raters with a row in each replication.
    rated_raters : ndarray of int64, shape (R,)
        Distinct raters with at least one non-missing annotation.
    """

    annotations: np.ndarray
    rows: np.ndarray
    items: np.ndarray
    raters: np.ndarray
    rated_raters: np.ndarray


def present(codes: np.ndarray, rep: np.ndarray, n_rep: int, width: int) -> np.ndarray:
    """Which codes (0 .. width - 1) occur in each replication: (R, width) booleans,
    marked in one pass (no sort)."""
    seen = np.zeros((n_rep, width), dtype=bool)
    seen[rep, codes] = True
    return seen


def _distinct(codes: np.ndarray, rep: np.ndarray, n_rep: int, width: int) -> np.ndarray:
    """Distinct values of ``codes`` within each replication, shape (R,)."""
    return present(codes, rep, n_rep, width).sum(axis=1).astype(np.int64)


def tally(ann: Any) -> Tally:
    """The :class:`Tally` of in-memory annotations, from their codes.

    Examples
    --------
    >>> import pandas as pd
    >>> from xrr_accessor.engine.pipeline import annotations
    >>> df = pd.DataFrame({"item": [1, 1, 2], "rater": ["a", "b", "a"],
    ...                    "joy": [1, None, 0]})
    >>> t = tally(annotations(df)[0])
    >>> t.annotations.tolist(), t.rows.tolist(), t.items.tolist(), t.rated_raters.tolist()
    ([[2]], [3], [2], [1])
    """
    n_rep = len(ann.replications)
    rep = ann.replication
    annotations, rated = label_counts(ann.codes, rep, n_rep)  # one pass over every label
    return Tally(
        annotations=annotations,
        rows=np.bincount(rep, minlength=n_rep).astype(np.int64),
        items=_distinct(ann.item, rep, n_rep, len(ann.items)),
        raters=_distinct(ann.rater, rep, n_rep, len(ann.raters)),
        rated_raters=_distinct(ann.rater[rated], rep[rated], n_rep, len(ann.raters)),
    )


def tally_of(ann: Any) -> Tally:
    """The counts of ``ann``: carried (dask-backed data) or computed from the codes."""
    carried = getattr(ann, "tally", None)
    return carried if carried is not None else tally(ann)
