"""The values a label may hold, checked on its categories once it is coded.

A label's values are categories (text, numbers, label sets) or real numbers. Refused
at every level, each with a :class:`~xrr_accessor.errors.LevelError` naming the
column, the annotation (item and rater) and the fix:

* complex numbers (no level reads them; casting would drop the imaginary part);
* infinities (a sentinel or an overflow upstream, never a rating);
* finite numbers beyond :data:`LIMIT` (2**1022, about 4.5e307) in magnitude: the sum
  or difference of two of them overflows float64, so ratio distances, weights' spans
  and the interval level's centring would become inf or NaN. Below it every level is
  exact: the interval level standardizes its values by a power of two
  (:func:`..engine.levels.standardized`), so squares never overflow. Refused, not
  rescaled: values that large are sentinels (``sys.float_info.max``) or overflowed
  computations far more often than ratings, and a silent rescale would change the
  units of what the diagnostics report (an item's disagreement, a model's RMSE).

Strings that are not valid Unicode text are refused too (:mod:`.text`). The checks
read a label's categories, not its rows (one vectorized pass over a column's numbers
only where the categories are its numbers, ``numbers=True``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pandas as pd

from ..errors import LevelError
from .text import first_lone_surrogate, text_error

__all__ = ["LIMIT", "check_value_text", "check_values"]

#: The largest magnitude a number in a label may have: the sum or difference of two
#: stays finite in float64.
LIMIT = 2.0**1022


def _bad_number(v: Any) -> str | None:
    """What is wrong with one category that is a number (None: nothing)."""
    if isinstance(v, bool | np.bool_ | str):
        return None
    if isinstance(v, complex | np.complexfloating):
        return "complex"
    if isinstance(v, Decimal):
        if v.is_nan():
            return None
        return "infinite" if v.is_infinite() else "huge" if abs(v) > Decimal(LIMIT) else None
    if isinstance(v, int | np.integer):
        return "huge" if abs(int(v)) > LIMIT else None
    if isinstance(v, float | np.floating):
        x = float(v)
        if math.isinf(x):
            return "infinite"
        return "huge" if abs(x) > LIMIT else None
    return None


def _first_bad(cats: pd.Index) -> tuple[int, str] | None:
    """(position, what) of the first category that is not an allowed number."""
    dtype = cats.dtype
    if isinstance(dtype, np.dtype) and dtype.kind == "c":
        imaginary = np.flatnonzero(cats.to_numpy().imag != 0)  # the one that shows it
        return int(imaginary[0]) if len(imaginary) else 0, "complex"
    if isinstance(dtype, np.dtype) and dtype.kind == "f":
        vals = cats.to_numpy()
        with np.errstate(invalid="ignore", over="ignore"):  # float32 or longdouble too
            bad = np.abs(vals.astype(np.float64)) > LIMIT  # inf included; NaN never
        if not bad.any():
            return None
        at = int(np.argmax(bad))
        return at, "infinite" if np.isinf(vals[at]) else "huge"
    if not (isinstance(dtype, np.dtype) and dtype.kind == "O"):
        return None  # integers of numpy types, booleans, text, dates: within range
    if pd.api.types.infer_dtype(cats, skipna=True) in ("string", "empty", "boolean"):
        return None
    for at, v in enumerate(cats):
        what = _bad_number(v)
        if what is not None:
            return at, what
    return None


_WHY = {
    "complex": ("is a complex number; a rating is a real number or a category. Use "
                "the part that is the rating, e.g. df[col] = df[col].to_numpy().real (or "
                "abs), or df[col].astype(str) to read the values as categories"),
    "infinite": ("is infinite: a sentinel or an overflow upstream, not a rating. Make "
                 "it missing, e.g. df[col] = df[col].replace([np.inf, -np.inf], np.nan), "
                 "or fix the computation that produced it"),
    "huge": (f"is beyond +-{LIMIT:.3g}, the largest magnitude a rating may have (the "
             "sum or difference of two such values overflows float64): a sentinel such as "
             "sys.float_info.max? Make it missing (np.nan), or rescale the column, e.g. "
             "df[col] / 1e300 (no coefficient changes under a common scale)"),
}


def check_values(cats: pd.Index, codes: np.ndarray, where: str,
                 name: Callable[[int], str]) -> None:
    """A LevelError naming ``where`` and the annotation when a category of a label is a
    complex number, infinite, or beyond :data:`LIMIT`.

    ``codes``: the label's codes (into ``cats``) of its values in order; ``name(i)``
    names the annotation of the ``i``-th value ("(item=1, rater='a')").

    Examples
    --------
    >>> cats = pd.Index([0.0, float("inf")])
    >>> check_values(cats, np.array([0, 1]), "column 'joy'", lambda i: f"(row {i})")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.LevelError: column 'joy' holds inf at (row 1), which is infinite: ...
    """
    found = _first_bad(cats)
    if found is None:
        return
    at, what = found
    rows = np.flatnonzero(np.asarray(codes) == at)
    place = f" at {name(int(rows[0]))}" if len(rows) else ""
    value = cats[at]
    shown = repr(value.item() if isinstance(value, np.generic) else value)
    if len(shown) > 40:  # a whole number of hundreds of digits
        shown = f"{shown[:12]}...({len(shown)} digits)"
    raise LevelError(f"{where} holds {shown}{place}, which {_WHY[what]}.")


def check_value_text(cats: pd.Index, values: pd.Series, where: str,
                     name: Callable[[int], str]) -> None:
    """An InputError naming ``where`` and the annotation when a category (or, once
    one is known to be there, a value) is a string that is not valid Unicode text
    (:mod:`.text`). ``values``: the label's values, in the order ``name`` counts.

    Examples
    --------
    >>> vals = pd.Series(["a", "b\\ud800"], dtype=object)
    >>> check_value_text(pd.Index(["a"]), vals, "column 'joy'", lambda i: f"(row {i})")
    >>> check_value_text(pd.Index(vals), vals, "column 'joy'", lambda i: f"(row {i})")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: column 'joy' holds a string that is not valid ...
    """
    if first_lone_surrogate(cats) is None:
        return
    found = first_lone_surrogate(values)
    if found is None:  # pragma: no cover - the categories came from the values
        found = first_lone_surrogate(cats)
        assert found is not None
        raise text_error(where, "its categories", found[1])
    raise text_error(where, f"the annotation {name(found[0])}", found[1])
