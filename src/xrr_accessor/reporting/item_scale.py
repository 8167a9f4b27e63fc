"""What D_i means at the level it was computed at: its unit and its largest value.

:func:`~xrr_accessor.item_disagreement`'s D_i is the root mean disagreement of an
item's annotation pairs, so its unit is the square root of the level's metric:
the share of differing pairs (nominal), the ratings' own unit (interval), none
(ratio), counts of annotations (Krippendorff's ordinal metric, which ranks over
the pool's pairable values: 845.6 on a 0-2 scale is possible). A table of D
means nothing without them; :func:`largest_d` computes, per label, the largest
value D can take on the data (two annotations at the two values farthest
apart) and :func:`d_meaning` says both in words, for the one-pool page's
"Items most disagreed on".
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics._common import dist_for, read

__all__ = ["MAX_CATEGORIES", "MAX_LABELS_SAID", "d_meaning", "largest_d"]

#: Above this many categories at a custom level, the largest D is not computed (it
#: takes the K x K matrix); the caption then gives the unit alone.
MAX_CATEGORIES = 2000

#: Labels whose largest D the caption names (the rest counted).
MAX_LABELS_SAID = 6


def largest_d(data: Any, level: Any, roles: dict[str, Any]) -> pd.DataFrame:
    """Per label (and replication), the largest D_i possible on ``data`` at
    ``level``: the square root of the largest disagreement between two values
    of the label's pairable annotations (those of items rated at least twice),
    reached by an item with two annotations at ``low`` and ``high``. At the
    ordinal level that is ``n_pairable - (n_low + n_high) / 2`` (the metric
    ranks over the pairable values), at the interval level the range.

    Returns
    -------
    DataFrame
        Index ``label`` and ``replication``; columns ``largest``, ``low``,
        ``high`` and ``n_pairable``. NaN (low, high None) where fewer than two
        values are pairable or, at a custom level, above :data:`MAX_CATEGORIES`.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "score": [0, 2, 1, 1, 1, 1]})
    >>> largest_d(df, "ordinal", {})
                       largest  low  high  n_pairable
    label replication
    score all              5.0    0     2           6
    """
    read_ = read(data, level, dict(roles), "largest_d")
    ann = read_.ann
    n_rep = len(ann.replications)
    reps = list(ann.replications) if ann.has_replication else ["all"]
    rows, index = [], []
    key = ann.item * n_rep + ann.replication
    for j, label in enumerate(ann.labels):
        codes = read_.codes(j)
        k = read_.n_cat(j)
        rated = codes >= 0
        n = np.bincount(key[rated], minlength=len(ann.items) * n_rep)
        pairable = rated & (n[key] >= 2)
        counts = np.bincount(ann.replication[pairable] * k + codes[pairable],
                             minlength=n_rep * k).reshape(n_rep, k).astype(float)
        for r, rep in enumerate(reps):
            rows.append(_largest(read_, j, counts[r]))
            index.append((label, rep))
    return pd.DataFrame(rows, columns=["largest", "low", "high", "n_pairable"],
                        index=pd.MultiIndex.from_tuples(index, names=["label", "replication"]))


def _largest(read_: Any, label: int, counts: np.ndarray) -> tuple[float, Any, Any, int]:
    """(largest D, the two values, pairable annotations) from one label's counts."""
    cats = read_.ann.categories[label]
    present = np.flatnonzero(counts > 0)
    total = int(counts.sum())
    if len(present) < 2:
        return (0.0 if len(present) else np.nan), None, None, total
    name = read_.level.name
    first, last = present[0], present[-1]
    values = read_.values(label)
    if name == "nominal":
        return 1.0, cats[first], cats[last], total
    if name == "ordinal":  # the span from the lowest value to the highest, ranked
        return total - (counts[first] + counts[last]) / 2.0, cats[first], cats[last], total
    if name in ("interval", "ratio") and values is not None:
        lo, hi = float(values[present].min()), float(values[present].max())
        a, b = cats[present[np.argmin(values[present])]], cats[
            present[np.argmax(values[present])]]
        if name == "interval":
            return hi - lo, a, b, total
        return ((hi - lo) / (hi + lo) if hi + lo > 0 else 0.0), a, b, total
    if len(cats) > MAX_CATEGORIES:
        return np.nan, None, None, total
    d = dist_for(read_, label, counts)[np.ix_(present, present)]
    i, m = np.unravel_index(int(np.argmax(d)), d.shape)
    return float(np.sqrt(d[i, m])), cats[present[i]], cats[present[m]], total


def _num(v: float, digits: int) -> str:
    return f"{v:.{digits}f}"  # as the table beside it prints D (no thousands separator)


def _maxima(largest: pd.DataFrame | None, digits: int, ranked: bool = False) -> str:
    """ "at most 1134.500 on S3 (an item rated 0 and 2, of 1,500 pairable annotations)";
    the pairable annotations only where D counts them (``ranked``: ordinal)."""
    if largest is None or not len(largest):
        return ""
    rows = largest[np.isfinite(largest["largest"].to_numpy(dtype=float))]
    if not len(rows):
        return ""
    labels = rows.index.get_level_values("label")
    reps = rows.index.get_level_values("replication")
    many = len(rows) > 1
    said = []
    for (lab, rep), r in zip(zip(labels, reps, strict=True), rows.itertuples(), strict=True):
        where = (f" on {lab}" + (f" / {rep}" if len(set(reps)) > 1 else "")) if many else ""
        said.append(f"{_num(r.largest, digits)}{where} (an item rated {r.low} and {r.high}"
                    + (f", of {int(r.n_pairable):,} pairable annotations" if ranked else "")
                    + ")")
    more = len(said) - MAX_LABELS_SAID
    return ("; on these data at most " + ", ".join(said[:MAX_LABELS_SAID])
            + (f", and {more} more labels" if more > 0 else ""))


def split_example(n: int | None, digits: int = 3) -> str:
    """D_i at the nominal level of the most even split of two values among ``n``
    annotations, sqrt(a b / C(n, 2)), in words ("" below 3 annotations: the largest, 1,
    is said already; "" without ``n``).

    Examples
    --------
    >>> split_example(5), split_example(3), split_example(2)
    ('; 0.775 for a 3-2 split of 5', '; 0.816 for a 2-1 split of 3', '')
    """
    if n is None or n < 3:
        return ""
    a, b = (n + 1) // 2, n // 2
    return f"; {np.sqrt(a * b / (n * (n - 1) / 2)):.{digits}f} for a {a}-{b} split of {n}"


def d_meaning(level: str | None, largest: pd.DataFrame | None = None,
              digits: int = 3, n_common: int | None = None) -> str:
    """What D_i means at ``level`` (the item table's ``attrs["level"]``), in one
    or two sentences: its unit, 0 when all agree, and its largest value (on the
    data when ``largest`` is :func:`largest_d`'s table). At the nominal level an
    example split: of ``n_common`` annotations, the number most items have, where the
    caller knows it (none below 3); of 5 when None (:func:`split_example`).

    Examples
    --------
    >>> print(d_meaning("nominal"))  # doctest: +NORMALIZE_WHITESPACE
    D_i at the nominal level is the square root of the share of the item's annotation
    pairs that differ: 0 when all agree, at most 1 (two annotations that differ; 0.775
    for a 3-2 split of 5).
    >>> print(d_meaning("nominal", n_common=3))  # doctest: +NORMALIZE_WHITESPACE
    D_i at the nominal level is the square root of the share of the item's annotation
    pairs that differ: 0 when all agree, at most 1 (two annotations that differ; 0.816
    for a 2-1 split of 3, the number of annotations most items have here).
    """
    most = _maxima(largest, digits, ranked=level == "ordinal")
    if level == "nominal":
        example = split_example(5 if n_common is None else n_common, digits)
        if n_common is not None and example:
            example += ", the number of annotations most items have here"
        return ("D_i at the nominal level is the square root of the share of the item's "
                "annotation pairs that differ: 0 when all agree, at most 1 (two annotations "
                f"that differ{example}).")
    if level == "ordinal":
        return ("D_i at the ordinal level is in Krippendorff's rank units, a count of "
                "annotations: two values lie as far apart as the pool's pairable "
                "annotations between them, plus half of those at each of the two values, "
                "so D grows with the number of annotations, not with the scale, and is "
                "comparable only within one label and pool. 0 when all agree"
                + (most or "; at most when two annotations sit at the lowest and highest "
                   "values") + ".")
    if level == "interval":
        return ("D_i at the interval level is in the ratings' own unit: the root mean "
                "squared difference of the item's annotation pairs (sqrt(2) times their "
                "standard deviation). 0 when all agree, at most the range of the ratings"
                + most + ".")
    if level == "ratio":
        return ("D_i at the ratio level has no unit: the root mean of ((x - y) / (x + y))^2 "
                "over the item's annotation pairs. 0 when all agree, at most 1 (one of two "
                "annotations 0)" + most + ".")
    what = (f"the {level} distance" if level in ("masi", "jaccard") else
            "1 minus the agreement weights" if level == "weights" else
            "the custom disagreement")
    return (f"D_i at this level is the root mean of {what} over the item's annotation "
            f"pairs, in the square root of its unit. 0 when all agree" + most + ".")
