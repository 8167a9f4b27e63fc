"""Levels of measurement and their disagreement functions D(a, b) (docs/definitions.md, Data model).

A level is resolved once per call into a :class:`Level`. Interval data are
handled through moments (count, sum, sum of squares) so that continuous
ratings with many distinct values stay O(N); every other level goes through a
K x K disagreement matrix over the categories of each label. The set levels
(``jaccard``, ``masi``) read label sets: each distinct set is a category
(:mod:`.schema.setcells`) and D comes from the sets' overlaps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, LevelError
from ..kernels.sets import set_overlaps
from ..schema.setcells import is_label_sets, looks_like_text_lists, scalar_level_error

__all__ = [
    "LEVELS", "SET_LEVELS", "WEIGHTS", "Level", "agreement_weights", "check_sets",
    "distance_matrix", "ordinal_matrices", "resolve_level", "resolve_weights", "set_distances",
    "standardized",
]

#: Levels over label sets: Jaccard distance and MASI (Passonneau 2006).
SET_LEVELS = ("jaccard", "masi")

LEVELS = ("nominal", "ordinal", "interval", "ratio", *SET_LEVELS)

#: Named agreement weights (Cohen 1968; Gwet's handbook).
WEIGHTS = ("unweighted", "linear", "quadratic")


@dataclass(frozen=True)
class Level:
    """A resolved level of measurement.

    ``name`` is one of :data:`LEVELS` or ``"custom"``; ``custom`` holds the
    user's matrix (ndarray or DataFrame indexed by category) or callable.
    """

    name: str
    custom: Any = None

    @property
    def uses_moments(self) -> bool:
        """Interval level: statistics are count, sum and sum of squares per item."""
        return self.name == "interval"

    @property
    def ordinal(self) -> bool:
        return self.name == "ordinal"

    @property
    def numeric(self) -> bool:
        """Whether categories must be numbers."""
        return self.name in ("interval", "ratio")

    @property
    def sets(self) -> bool:
        """Whether the categories must be label sets (Jaccard, MASI)."""
        return self.name in SET_LEVELS

    @property
    def ordered(self) -> bool:
        """Whether categories need an order (ordinal level, linear/quadratic weights)."""
        return self.name == "ordinal" or (
            self.name == "weights" and isinstance(self.custom, str)
            and self.custom in ("linear", "quadratic"))


def resolve_weights(weights: Any) -> Level:
    """Agreement weights as a level: D = 1 - w (``"unweighted"``, ``"linear"``,
    ``"quadratic"``, or a K x K matrix / DataFrame of weights with a unit diagonal)."""
    if isinstance(weights, str):
        if weights.lower() not in WEIGHTS:
            raise InputError(
                f"unknown weights {weights!r}; use one of {', '.join(WEIGHTS)}, or a K x K "
                "matrix of agreement weights (1 on the diagonal)."
            )
        return Level("weights", weights.lower())
    if isinstance(weights, pd.DataFrame):
        return Level("weights", weights)
    arr = np.asarray(weights, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputError(f"weights is a square K x K matrix; got shape {arr.shape}.")
    return Level("weights", arr)


def agreement_weights(
    spec: Any, categories: pd.Index, values: np.ndarray | None, where: str
) -> np.ndarray:
    """Agreement weights W (K x K, 1 on the diagonal) for one label's categories.

    Linear: 1 - |x_k - x_l| / (max - min); quadratic: 1 - (x_k - x_l)^2 /
    (max - min)^2, with x the category values when they are numbers (as in
    Gwet's irrCAC) and their ranks otherwise. scikit-learn uses ranks always;
    the two agree when the categories are equally spaced.
    """
    k = len(categories)
    if isinstance(spec, str):
        if spec == "unweighted" or k < 2:
            return np.eye(k)
        numeric = pd.api.types.is_numeric_dtype(categories.dtype) or pd.api.types.is_bool_dtype(
            categories.dtype)
        if values is not None:
            x = values[:k]
        elif numeric:
            x = categories.to_numpy(dtype=float)
        else:
            x = np.arange(k, dtype=float)
        if not np.isfinite(x).all():
            raise LevelError(
                f"{where} holds infinite values; {spec} weights need finite numbers. "
                "Replace them (e.g. with NaN for missing) first."
            )
        span = x.max() - x.min()
        diff = np.abs(np.subtract.outer(x, x)) / (span if span > 0 else 1.0)
        return 1.0 - (diff if spec == "linear" else diff**2)
    d = _custom_matrix(spec, categories, where, check=False)
    if not np.allclose(d, d.T):
        raise InputError(f"the weights for {where} must be symmetric (w_kl == w_lk).")
    if not np.allclose(np.diag(d), 1.0) or (d < 0).any() or (d > 1).any():
        raise InputError(
            f"the weights for {where} must lie in [0, 1] with 1 on the diagonal (full "
            "agreement of a category with itself)."
        )
    return d


def resolve_level(level: Any) -> Level:
    """Validate ``level``: a name in :data:`LEVELS`, a square matrix, or a callable."""
    if isinstance(level, Level):
        return level
    if isinstance(level, str):
        name = level.lower()
        if name not in LEVELS:
            raise InputError(
                f"unknown level {level!r}; use one of {', '.join(LEVELS)}, a square "
                "disagreement matrix over the categories, or a callable D(a, b)."
            )
        return Level(name)
    if callable(level) and not isinstance(level, pd.DataFrame | np.ndarray):
        return Level("custom", level)
    if isinstance(level, pd.DataFrame):
        return Level("custom", level)
    arr = np.asarray(level, dtype=float)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputError(
            f"a custom level is a square K x K disagreement matrix; got shape {arr.shape}."
        )
    return Level("custom", arr)


def _check_matrix(d: np.ndarray, where: str) -> np.ndarray:
    if not np.isfinite(d).all() or (d < 0).any():
        raise InputError(f"the custom disagreement matrix for {where} must be finite and >= 0.")
    if not np.allclose(d, d.T):
        raise InputError(
            f"the custom disagreement matrix for {where} must be symmetric "
            "(D(a, b) == D(b, a)); symmetrize it, e.g. (D + D.T) / 2."
        )
    if np.any(np.diag(d) != 0):
        raise InputError(
            f"the custom disagreement matrix for {where} must have a zero diagonal "
            "(a category does not disagree with itself)."
        )
    return d


def ordinal_matrices(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal disagreement from category counts ``marginals`` (..., K):
    D(a, b) = (sum_{g=a..b} n_g - (n_a + n_b) / 2)^2, one K x K matrix per row.

    Examples
    --------
    >>> ordinal_matrices(np.array([2.0, 1.0, 1.0]))[0].tolist()
    [0.0, 2.25, 6.25]
    """
    n = np.asarray(marginals, dtype=float)
    k = n.shape[-1]
    zero = np.zeros((*n.shape[:-1], 1))
    cum = np.concatenate([zero, np.cumsum(n, axis=-1)], axis=-1)
    lo = np.minimum.outer(np.arange(k), np.arange(k))
    hi = np.maximum.outer(np.arange(k), np.arange(k))
    span = cum[..., hi + 1] - cum[..., lo] - (n[..., lo] + n[..., hi]) / 2.0
    return span**2


def distance_matrix(
    level: Level,
    categories: pd.Index,
    values: np.ndarray | None,
    marginals: np.ndarray | None,
    where: str,
) -> np.ndarray:
    """D(c, k) for the categories of one label, shape (K, K).

    Parameters
    ----------
    level : Level
        The resolved level (not interval, which uses moments).
    categories : pandas.Index
        The label's categories, in order.
    values : ndarray or None
        Their numeric values (ratio level).
    marginals : ndarray or None
        Counts of each category among the pairable values (ordinal level:
        Krippendorff's rank-based metric depends on them).
    where : str
        Names the label in error messages.
    """
    k = len(categories)
    if level.name == "nominal":
        return 1.0 - np.eye(k)
    if level.name == "ordinal":
        assert marginals is not None
        return ordinal_matrices(np.asarray(marginals[:k], dtype=float))
    if level.name == "interval":
        assert values is not None
        v = values[:k]
        return np.subtract.outer(v, v) ** 2
    if level.name == "weights":
        return 1.0 - agreement_weights(level.custom, categories, values, where)
    if level.name in SET_LEVELS:
        return set_distances(categories, level.name)
    if level.name == "ratio":
        assert values is not None
        v = values[:k]
        if (v < 0).any():
            raise InputError(
                f"{where} has negative values; the ratio level needs values >= 0 "
                "(use level='interval')."
            )
        s = np.add.outer(v, v)
        diff = np.subtract.outer(v, v)
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(s > 0, (diff / np.where(s > 0, s, 1.0)) ** 2, 0.0)
        return d
    return _custom_matrix(level.custom, categories, where)


def _custom_matrix(
    custom: Any, categories: pd.Index, where: str, check: bool = True
) -> np.ndarray:
    k = len(categories)
    if isinstance(custom, pd.DataFrame):
        missing = [c for c in categories if c not in custom.index or c not in custom.columns]
        if missing:
            raise InputError(
                f"the custom disagreement matrix has no row/column for {missing[:3]} of "
                f"{where}; index and columns must cover the categories {list(categories)}."
            )
        d = custom.loc[list(categories), list(categories)].to_numpy(dtype=float)
    elif isinstance(custom, np.ndarray):
        if custom.shape != (k, k):
            raise InputError(
                f"the custom matrix is {custom.shape[0]} x {custom.shape[1]} "
                f"but {where} has {k} categories {list(categories)[:6]}; pass a K x K "
                "matrix in that order, or a DataFrame indexed by category."
            )
        d = custom.astype(float)
    else:
        fn: Callable[[Any, Any], Any] = custom
        a = np.asarray(categories, dtype=object)
        try:
            d = np.asarray(fn(a[:, None], a[None, :]), dtype=float)
        except (TypeError, ValueError):
            d = np.empty(0)
        if d.shape != (k, k):  # not vectorizable: K x K calls (K is small)
            d = np.array([[float(fn(x, y)) for y in a] for x in a]).reshape(k, k)
    return _check_matrix(d, where) if check else d


def set_distances(sets: Any, level: str = "masi") -> np.ndarray:
    """D between label sets, shape (K, K): the Jaccard or the MASI distance.

    Jaccard: D = 1 - |A n B| / |A u B|. MASI (Passonneau 2006): D = 1 - J M,
    J = |A n B| / |A u B| and M = 1 if A == B, 2/3 if one is a subset of the
    other, 1/3 if they share labels otherwise, 0 if they are disjoint (as
    ``nltk.metrics.distance.masi_distance``).

    Parameters
    ----------
    sets : sequence of sets, lists or tuples of labels
        K label sets, each non-empty (the order of labels within one is
        ignored; a label given twice counts once).
    level : {"jaccard", "masi"}

    Examples
    --------
    >>> set_distances([{"a", "b"}, {"a", "b", "c", "d"}, {"e"}], "masi").round(3)
    array([[0.   , 0.667, 1.   ],
           [0.667, 0.   , 1.   ],
           [1.   , 1.   , 0.   ]])
    >>> set_distances([("a", "b"), ("b", "c")], "jaccard").round(3)
    array([[0.   , 0.667],
           [0.667, 0.   ]])
    """
    if level not in SET_LEVELS:
        raise InputError(f"unknown set level {level!r}; use one of {', '.join(SET_LEVELS)}.")
    members = []
    for s in sets:
        if isinstance(s, str) or not hasattr(s, "__iter__"):
            raise InputError(f"set_distances compares label sets; got {s!r}. Wrap a single "
                             "label in a list: [label].")
        members.append(frozenset(s))
    sizes = np.fromiter(map(len, members), dtype=np.int64, count=len(members))
    if (sizes == 0).any():
        raise InputError("an empty label set has no Jaccard or MASI distance (0 / 0); use "
                         "NaN for 'no annotation' or a 'none' label.")
    flat = pd.Series([x for s in members for x in s], dtype=object)
    codes, uniques = pd.factorize(flat)
    offsets = np.zeros(len(members) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    inter = set_overlaps(offsets, np.asarray(codes, dtype=np.int64), len(uniques))
    size = np.diag(inter)
    union = (size[:, None] + size[None, :] - inter).astype(float)
    shared = inter.astype(float)
    if level == "jaccard":
        return (union - shared) / union
    smaller = np.minimum.outer(size, size)
    m = np.where(inter > 0, 1 / 3, 0.0)
    m[(inter == smaller) & (inter > 0)] = 2 / 3  # one set inside the other
    m[(inter == size[:, None]) & (inter == size[None, :])] = 1.0  # equal sets
    return 1 - shared / union * m


def check_sets(level: Level, categories: Sequence[pd.Index], where: Callable[[int], str]) -> None:
    """Refuse a set level on single labels, and levels over single values on label sets.
    ``where(j)`` names label ``j`` (e.g. ``Annotations.where``), called only to refuse.

    ``level="nominal"`` (exact set match), unweighted agreement and custom
    matrices or callables over the sets are accepted on label sets.

    Examples
    --------
    >>> import pandas as pd
    >>> check_sets(Level("masi"), [pd.Index(["a"])], ["tags"].__getitem__)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.LevelError: level='masi' compares label sets, but tags holds ...
    """
    for j, cats in enumerate(categories):
        if not len(cats):
            continue
        if level.sets and not is_label_sets(cats):
            text = (" They look like lists written as text (as CSV files and dask's string "
                    "conversion leave them): parse them, e.g. df[col].map(ast.literal_eval), "
                    "or with dask keep objects: dask.config.set({'dataframe.convert-string': "
                    "False})." if looks_like_text_lists(cats) else "")
            raise LevelError(
                f"level={level.name!r} compares label sets, but {where(j)} holds single labels "
                f"(e.g. {cats[0]!r}).{text} Put each annotation's labels in one cell (a list "
                "or set per row; NaN = no annotation); a long frame with one row per label "
                "becomes one with xrr_accessor.set_cells(df). With one label per "
                "annotation use level='nominal' (Jaccard and MASI equal it there).")
        if is_label_sets(cats) and (level.numeric or level.ordered):
            what = (f"level={level.name!r}" if level.name != "weights"
                    else f"weights={level.custom!r}")
            raise scalar_level_error(where(j), cats, what)


def standardized(values: np.ndarray) -> np.ndarray:
    """Interval values (L, K) centred on the midpoint of each label's range and divided
    by a power of two near its half range: within [-1, 1], so the sums of squares
    neither overflow (values near 1e154) nor underflow (near 1e-200). Interval
    coefficients do not change under either step (the power of two divides exactly).
    Missing values (NaN) become 0.

    Examples
    --------
    >>> standardized(np.array([[2.0, 6.0, 5.0, np.nan]])).tolist()
    [[-1.0, 1.0, 0.5, 0.0]]
    >>> bool(np.abs(standardized(np.array([[1e200, 3e200], [-1e-200, 1e-200]]))).max() <= 1)
    True
    """
    known = ~np.isnan(values)
    lo = np.where(known, values, np.inf).min(axis=1, keepdims=True)
    hi = np.where(known, values, -np.inf).max(axis=1, keepdims=True)
    finite = np.isfinite(lo) & np.isfinite(hi)  # False for a label with no values
    lo, hi = np.where(finite, lo, 0.0), np.where(finite, hi, 0.0)
    center, half = lo / 2.0 + hi / 2.0, hi / 2.0 - lo / 2.0  # no overflow near 1e308
    with np.errstate(divide="ignore"):
        scale = np.where(half > 0, np.exp2(np.ceil(np.log2(np.where(half > 0, half, 1.0)))),
                         1.0)
    return np.where(known, (values - center) / scale, 0.0)
