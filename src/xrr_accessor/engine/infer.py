"""The level of measurement a call uses when ``level=`` is not given: one rule.

Every entry point (``irr``, ``cross_kappa``, ``item_disagreement``,
``rater_agreement``, ``validity``, ``agreement_table``, ``report``, the CLI) reads
its annotations through :func:`xrr_accessor.engine.pipeline.annotations`, which
calls :func:`infer` on the encoded categories when ``level`` is None, so they
all infer the same level from the same data. The rule (docs/definitions.md,
"Which level, when level= is not given"), per label:

==========================================================  ==================  =======
values of the label (distinct, missing left out)           level               said
==========================================================  ==================  =======
at most 2 distinct values                                   any (neutral)       --
label sets (cells holding lists or sets)                    ``masi``            note
an ordered ``pd.Categorical``                               ``ordinal``         note
text, booleans, unordered categories                        ``nominal``         --
numbers that are not all whole                              ``interval``        note
11+ whole numbers spanning 20 or more (0-100 sliders)       ``interval``        note
11+ whole numbers in a range under 20 (0-10, -5..5)         ``interval``        warning
3-10 whole numbers, dense (at most two of the range
unused), not from 0 (1-5, 1-3, 1, 2, 3, 5, -2..2)           ``ordinal``         note
3-10 dense from 0, the column named like a scale            ``ordinal``         note
3-10 dense from 0 otherwise (0-3: codes or a scale)         ``nominal``         warning
3-10 far apart, spanning 20 or more (1, 2, 99; 0, 50, 100)  ``nominal``         warning
other whole numbers (with gaps: 1, 2, 5, 9)                 ``nominal``         note
==========================================================  ==================  =======

Labels of at most two values give the same alpha and kappa_x at every level, so
they do not vote. When the other labels disagree, the call takes the level every
one of them allows (interval data are ordinal too; text is only nominal; label
sets mixed with single labels are compared as whole sets, nominal), and says so.
``level=`` always wins: it is never inferred over.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ..errors import AmbiguousLevelWarning, LevelNote, warn
from ..schema import Annotations, Table
from ..schema.roles import words
from ..schema.setcells import is_label_sets
from .levels import Level, resolve_weights
from .staged import Staged

__all__ = ["WEIGHTS_INFERRED", "WEIGHTS_OF_LEVEL", "Inferred", "given_level", "infer",
           "inferred_level", "label_level", "level_weights"]

#: The agreement weights that match a level (Cohen's kappa and the chance-corrected
#: family, weighted by ``weights=`` rather than ``level=``): a call that gives neither
#: takes the weights of the level inferred. The ratio and set levels have none of their
#: own: unweighted (the set levels: exact set matches).
WEIGHTS_OF_LEVEL = {"nominal": "unweighted", "ordinal": "linear", "interval": "quadratic"}

#: ``level=`` of a call to a coefficient weighted by ``weights=`` that gives neither:
#: the weights follow the level inferred from the values (:data:`WEIGHTS_OF_LEVEL`).
WEIGHTS_INFERRED = "weights of the inferred level"


#: Ranks of the single-value levels: the call takes the lowest its labels allow.
_RANK = {"nominal": 0, "ordinal": 1, "interval": 2}


@dataclass(frozen=True)
class Inferred:
    """What :func:`label_level` found for one label."""

    level: str | None  # None: at most two values, any level gives the same result
    why: str  # e.g. "5 whole numbers 1 to 5"
    said: str  # "" (nothing to say), "note" or "warning"


def _numbers(cats: pd.Index) -> np.ndarray | None:
    if pd.api.types.is_bool_dtype(cats.dtype):
        return None
    if pd.api.types.is_numeric_dtype(cats.dtype):
        return np.asarray(cats, dtype=float)
    if cats.dtype == object and all(
            isinstance(c, int | float | np.number) and not isinstance(c, bool | np.bool_)
            for c in cats):
        return np.asarray(cats.to_numpy(), dtype=float)
    return None


#: Words of a column name that call its whole numbers a rating scale
#: (``S6_truth_level``, ``rating``, ``severity_score``), read as
#: :func:`xrr_accessor.schema.roles.words` splits a name.
SCALE_WORDS = frozenset({"rating", "ratings", "rate", "rated", "score", "scores", "scale",
                         "level", "likert", "grade", "severity", "stars", "star",
                         "intensity", "degree", "strength", "confidence"})


def label_level(cats: pd.Index, ordered_categorical: bool, name: Any = None) -> Inferred:
    """The level one label's categories call for (see the module's table); ``name``,
    the label's column name, settles 0-based whole numbers named like a scale.

    Examples
    --------
    >>> label_level(pd.Index([1, 2, 3, 4, 5]), False)
    Inferred(level='ordinal', why='5 whole numbers from 1 to 5', said='note')
    >>> label_level(pd.Index([0, 1, 2, 3]), False).level
    'nominal'
    >>> label_level(pd.Index([0, 1, 2, 3]), False, "severity_score").level
    'ordinal'
    >>> label_level(pd.Index(np.arange(101)), False).level
    'interval'
    """
    k = len(cats)
    if is_label_sets(cats):
        return Inferred("masi" if k > 1 else None, "label sets", "note" if k > 1 else "")
    if k <= 2:
        return Inferred(None, f"{k} value{'s' if k != 1 else ''}", "")
    if ordered_categorical:
        return Inferred("ordinal", f"{k} ordered categories", "note")
    x = _numbers(cats)
    if x is None:
        return Inferred("nominal", f"{k} categories that are not numbers", "")
    x = x[np.isfinite(x)]
    lo, hi = float(x.min()), float(x.max())
    if not np.all(x == np.round(x)):
        return Inferred("interval", f"{k} numbers, not all whole", "note")
    span = f"from {lo:g} to {hi:g}"
    if k > 10 and hi - lo >= 20:
        return Inferred("interval", f"{k} whole numbers {span}", "note")
    if k > 10:
        return Inferred("interval", f"{k} whole numbers {span} (ordinal also fits)", "warning")
    dense = hi - lo + 1 <= k + 2  # at most two values of the range unused (1, 2, 3, 5)
    if dense and (lo != 0 or SCALE_WORDS & set(words(name))):
        return Inferred("ordinal", f"{k} whole numbers {span}", "note")
    if dense:
        return Inferred("nominal", f"{k} whole numbers {span}: category codes or a "
                        "scale (level='ordinal')", "warning")
    if hi - lo >= 20:
        return Inferred("nominal", f"{k} whole numbers {span}, far apart: category codes "
                        "(1, 2, 99), or a scale used coarsely (level='interval')", "warning")
    return Inferred("nominal", f"{k} whole numbers {span}, read as category codes", "note")


def level_weights(level: str, wide: int, max_matrix: int | None) -> tuple[str | None, bool]:
    """The agreement weights of ``level`` (None at the ratio and set levels), and whether
    they were dropped to unweighted because ``wide`` categories are past ``max_matrix``
    (linear and quadratic weights need a K x K matrix).

    Examples
    --------
    >>> level_weights("ordinal", 5, 4096), level_weights("interval", 6000, 4096)
    (('linear', False), ('unweighted', True))
    """
    w = WEIGHTS_OF_LEVEL.get(level)
    if w in ("linear", "quadratic") and max_matrix is not None and wide > max_matrix:
        return "unweighted", True
    return w, False


def infer(categories: Sequence[pd.Index], ordered: Sequence[bool],
          where: Callable[[int], str], weights: bool = False,
          names: Sequence[Any] | None = None, max_matrix: int | None = None
          ) -> tuple[Level, str, type[LevelNote] | None]:
    """The call's level from every label's categories, with what to say about it.

    ``ordered[j]``: label ``j`` is an ordered ``pd.Categorical``. ``where(j)`` names
    label ``j`` in the note; ``weights``: the call's coefficients are weighted by
    agreement weights, which the note names and which are returned instead of the level
    (unweighted past ``max_matrix`` categories: linear and quadratic weights need a K x
    K matrix); ``names``: the labels' column names (whole numbers from 0 named like a
    scale are ordinal). Returns the level, the note ("" when
    there is nothing to say: text labels, two values) and its warning class (None
    with no note).

    Examples
    --------
    >>> lvl, note, kind = infer([pd.Index(np.arange(0, 101, 5))], [False],
    ...                         ["column 'score'"].__getitem__)
    >>> lvl.name, kind.__name__
    ('interval', 'LevelNote')
    >>> print(note)  # doctest: +NORMALIZE_WHITESPACE
    level='interval' inferred: column 'score' holds 21 whole numbers from 0 to 100.
    Pass level= to choose another.
    """
    found = [label_level(c, o, None if names is None else names[j])
             for j, (c, o) in enumerate(zip(categories, ordered, strict=True))]
    voting = [(j, f) for j, f in enumerate(found) if f.level is not None]
    if not voting:
        return (resolve_weights("unweighted") if weights else Level("nominal")), "", None
    called = {str(f.level) for _, f in voting}
    name: str
    if called == {"masi"}:
        name = "masi"
    elif "masi" in called:
        name = "nominal"
    else:
        name = min(called, key=lambda n: _RANK[n])
    said = [f for _, f in voting if f.said]
    wide = max(len(c) for c in categories)
    w, too_many = level_weights(name, wide, max_matrix)
    w = w or "unweighted"  # the ratio and set levels have no weights of their own
    out = resolve_weights(w) if weights else Level(str(name))
    if not said and len(called) == 1 and not too_many:
        return out, "", None
    warning = any(f.said == "warning" for _, f in voting)
    parts = [f"{where(j)} holds {f.why}" for j, f in voting[:3]]
    more = f" (and {len(voting) - 3} more labels)" if len(voting) > 3 else ""
    mixed = ""
    if len(called) > 1:
        mixed = (" The labels call for different levels ("
                 + ", ".join(sorted(called)) + "); this one fits all of them "
                 "(a call on one label's columns uses that label's own).")
    if weights:
        text = (f"weights={w!r} inferred{' (ambiguous)' if warning else ''} (the {name} "
                "level): " + "; ".join(parts) + more + "." + mixed
                + (f" Unweighted: {wide:,} distinct values are too many for a matrix of "
                   "agreement weights (alpha and metric='icc' read them as numbers)."
                   if too_many else "") + " Pass weights= to choose others.")
    else:
        text = (f"level={name!r} inferred{' (ambiguous)' if warning else ''}: "
                + "; ".join(parts) + more + "." + mixed + " Pass level= to choose another.")
    return out, text, AmbiguousLevelWarning if warning else LevelNote


def inferred_level(ann: Annotations, tables: Sequence[Table] | None = None,
                   staged: Staged | None = None, weights: bool = False,
                   max_matrix: int | None = None, rows: slice | None = None
                   ) -> tuple[Annotations, Level]:
    """The level :func:`infer` finds for ``ann`` (encoded from ``tables``, or
    the skeleton of ``staged`` dask-backed data), said once (a
    :class:`~xrr_accessor.errors.LevelNote`) and kept in the returned copy's ``said``
    for the result's attrs (a skeleton shared by the partitions is never changed).
    Every entry point that reads without ``level=`` decides here; with ``weights``
    (a coefficient weighted by ``weights=``, given neither) the level's agreement
    weights (:data:`WEIGHTS_OF_LEVEL`) are returned instead. ``rows``: decide from
    the values of these annotations only (validity: the data's, not the gold's)."""
    if tables is not None:
        dtypes = [tables[0].labels[name][1].dtype for name in ann.labels]
        ordered = [isinstance(d, pd.CategoricalDtype) and bool(d.ordered) for d in dtypes]
    else:  # a skeleton says which labels have an order: numbers or ordered categories
        flags = staged.ordered if staged is not None and staged.ordered else ()
        ordered = [bool(o) and not pd.api.types.is_numeric_dtype(c.dtype)
                   for o, c in zip(flags or [False] * len(ann.labels), ann.categories,
                                   strict=True)]
    cats = list(ann.categories)
    if rows is not None:  # the categories these rows use
        for j, codes in enumerate(ann.codes[:, rows]):
            cats[j] = cats[j][np.unique(codes[codes >= 0])]
    lvl, note, kind = infer(cats, ordered, ann.where, weights=weights,
                            names=list(ann.labels), max_matrix=max_matrix)
    if kind is not None:
        warn(note, kind)
    if weights:
        return replace(ann, said={"weights_inferred": True}), lvl
    return replace(ann, said={"level": lvl.name, "level_inferred": True}), lvl


def given_level(ann: Annotations, lvl: Level) -> tuple[Annotations, Level]:
    """``lvl``, given by the caller, kept in a copy of ``ann`` (``said``) for the
    result's attrs (agreement weights are not a level: their attrs name the weights)."""
    said = said_given(lvl)
    return (ann if said is None else replace(ann, said=said)), lvl


def said_given(lvl: Level) -> dict[str, Any] | None:
    """What a result's attrs say of ``lvl`` given by the caller (:func:`given_level`),
    or None for agreement weights (not a level: their attrs name the weights)."""
    return None if lvl.name == "weights" else {"level": lvl.name, "level_inferred": False}
