"""Strings that are not valid Unicode text (lone surrogates), refused naming where they are.

A Python string can hold a *lone surrogate*, a code point in U+D800..U+DFFF that is not
half of a pair: the JSON escape ``"\\ud800"`` decodes to one, and so does text cut in
the middle of a UTF-16 pair (a JavaScript ``slice``). No UTF-8 file, Arrow column,
page or terminal can hold one: pandas 3 fails on it with a ``UnicodeEncodeError``
when it builds a column, pandas 2 keeps it until something writes it out. The rule,
the same in the readers, the CLI and the accessor: such a string is refused with an
:class:`~xrr_accessor.errors.InputError` naming the column (and file), the row and the
position of the surrogate, and the fix (:data:`FIX`). Never replaced silently: two
ids that differ only in their surrogates would become one.

The checks cost nothing on valid data where it matters: Arrow-backed strings are
valid by construction and never looked at; a column's distinct values are checked
(one join and one encode, at C speed) rather than its rows; the rows are searched
only to name the culprit once one is known to be there.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["FILE_FIX", "FIX", "NAMES_FIX", "SURROGATE", "check_text", "factorize_text",
           "first_lone_surrogate", "text_error"]

#: One lone surrogate (a valid pair is one character in a Python string).
SURROGATE = re.compile("[\ud800-\udfff]")

#: How to repair a column holding lone surrogates (each becomes the six characters
#: ``\ud800``, so values that differed stay different).
FIX = ("df[col] = df[col].str.encode('utf-8', 'backslashreplace').str.decode('utf-8') "
       "writes each as the text \\ud800 (distinct values stay distinct)")

#: The same, for column names.
NAMES_FIX = ("df.columns = [c.encode('utf-8', 'backslashreplace').decode('utf-8') for c in "
             "df.columns]")

#: The same, for a file: the escape is in the file.
FILE_FIX = ("replace the escape in the file (e.g. by \\ufffd, the replacement character), "
            "or export the data again from its source as UTF-8")


def _valid_by_construction(values: Any) -> bool:
    """Arrow strings, numbers, booleans and dates cannot hold a lone surrogate."""
    dtype = getattr(values, "dtype", None)
    if dtype is None:
        return False
    if isinstance(dtype, pd.CategoricalDtype):
        return False  # its categories may be objects
    if isinstance(dtype, pd.StringDtype):
        return dtype.storage != "python"
    if isinstance(dtype, np.dtype):
        return dtype.kind not in "OU"
    return "arrow" in type(dtype).__name__.lower() or dtype.kind not in "OU"


def first_lone_surrogate(values: Any) -> tuple[int, str] | None:
    """(position, string) of the first string in ``values`` holding a lone surrogate;
    None when every string is valid Unicode text.

    ``values``: a Series, Index, ndarray or any iterable; what is not a string is
    skipped. A numpy unicode array is checked on its code points, an object array by
    one join and one encode of its strings; both vectorized.

    Examples
    --------
    >>> first_lone_surrogate(["ok", 3, "a\\ud800b"])
    (2, 'a\\ud800b')
    >>> first_lone_surrogate(np.array(["é", "😀"])) is None
    True
    """
    if _valid_by_construction(values):
        return None
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        found = first_lone_surrogate(values.cat.categories if isinstance(values, pd.Series)
                                     else values.categories)
        if found is None:
            return None
        codes = np.asarray(values.cat.codes if isinstance(values, pd.Series)
                           else values.codes)
        return int(np.argmax(codes == found[0])), found[1]
    if isinstance(values, list | tuple):  # joined as they are: no array to build
        return _first_in_objects(values)
    arr = values.to_numpy(dtype=object) if isinstance(values, pd.Series | pd.Index) else (
        values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object))
    if arr.size == 0:
        return None
    if arr.dtype.kind == "U":
        points = arr.reshape(-1).view(np.uint32).reshape(arr.size, -1)
        bad = ((points >= 0xD800) & (points <= 0xDFFF)).any(axis=1)
        if not bad.any():
            return None
        at = int(np.argmax(bad))
        return at, str(arr.reshape(-1)[at])
    if arr.dtype.kind != "O":
        return None
    return _first_in_objects(arr.reshape(-1))


def _first_in_objects(flat: Any) -> tuple[int, str] | None:
    """:func:`first_lone_surrogate` of a flat list or object array; the strings in
    label sets (lists, tuples, sets in a cell) are looked at too."""
    try:
        joined = "\x00".join(flat)
    except TypeError:  # numbers, None or NaN among the strings; label sets
        joined = "\x00".join(_strings(flat))
    try:
        joined.encode("utf-8")
        return None
    except UnicodeEncodeError:
        pass
    for at, v in enumerate(flat):  # only when one is there: name it
        for s in [v] if isinstance(v, str) else _strings([v]):
            if SURROGATE.search(s):
                return at, s
    return None  # pragma: no cover - the encode found one


_SETS = (list, tuple, set, frozenset)


def _strings(values: Any) -> list[str]:
    """The strings among ``values`` and in the label sets among them."""
    out: list[str] = []
    for v in values:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, _SETS):
            out += [x for x in v if isinstance(x, str)]
    return out


def text_error(where: str, at: int | str, value: str, fix: str = FIX,
               offset: int = 0) -> InputError:
    """The InputError for ``value``, a string holding a lone surrogate, found in
    ``where`` at row (or place) ``at`` ("" : no place). ``offset``: where ``value``
    starts in a longer text (a window of it), so the character counted is the text's.

    Examples
    --------
    >>> print(text_error("column 'joy'", 3, "a\\ud800", fix="re-export it"))
    ... # doctest: +ELLIPSIS
    column 'joy' holds a string that is not valid Unicode text, in row 3: 'a\\ud800' has ...
    """
    char = SURROGATE.search(value)
    pos = char.start() if char else 0
    shown = value if len(value) <= 60 else value[max(0, pos - 20):pos + 20]
    place = "" if at == "" else f", in row {at}" if isinstance(at, int) else f", in {at}"
    return InputError(
        f"{where} holds a string that is not valid Unicode text{place}: {shown!r} has a "
        f"lone surrogate ({value[pos]!r}, a JSON escape or text cut inside a UTF-16 pair) "
        f"at character {pos + offset}, which no file or table can store. Fix it: {fix}.")


def check_text(values: Any, where: str, rows: Any = None, labels: Iterable[Any] | None = None,
               fix: str = FIX) -> None:
    """Raise :func:`text_error` when a string of ``values`` is not valid Unicode text.

    ``rows``: the full column ``values`` were taken from (e.g. ``values`` are its
    distinct values): searched for the row to name, only when one is found.
    ``labels``: names the rows (the index of the column), else their position.

    Examples
    --------
    >>> check_text(pd.Index(["a", "b"], dtype=object), "column 'rater'")
    >>> check_text(pd.Series(["a", "b\\udc00"], dtype=object), "column 'rater'")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: column 'rater' holds a string that is not valid ...
    """
    found = first_lone_surrogate(values)
    if found is None:
        return
    at, value = found
    if rows is not None:
        at, value = first_lone_surrogate(rows) or found
    if labels is not None:
        label = list(labels)[at] if not isinstance(labels, pd.Index) else labels[at]
        raise text_error(where, f"row {label!r}", value, fix)
    raise text_error(where, at, value, fix)


def factorize_text(values: Any, where: str, column: Hashable | None = None,
                   sort: bool = False) -> tuple[np.ndarray, Any]:
    """``pd.factorize(values, sort=sort)``, refusing strings that are not valid text.

    pandas 3 fails inside ``factorize`` on a lone surrogate (its distinct values
    become an Arrow column): that failure becomes the InputError naming ``where``
    and the row. pandas 2 returns them: its distinct values are checked (a few, not
    the rows). Other errors (``TypeError`` for unhashable values) pass through.

    Examples
    --------
    >>> codes, uniques = factorize_text(pd.Series(["b", "a", "b"]), "column 'item'")
    >>> codes.tolist(), list(uniques)
    ([0, 1, 0], ['b', 'a'])
    >>> factorize_text(pd.Series(["b", "a\\ud800"], dtype=object), "column 'item'", "item")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: column 'item' holds a string that is not valid ...
    """
    try:
        codes, uniques = pd.factorize(values, sort=sort)
    except UnicodeEncodeError:
        check_text(values, where, labels=_row_labels(values))
        raise  # pragma: no cover - a surrogate is what pandas cannot encode
    check_text(uniques, where, rows=values, labels=_row_labels(values))
    return codes, uniques


def _row_labels(values: Any) -> pd.Index | None:
    """The index of a Series, to name a row as the user sees it (None: positions)."""
    return values.index if isinstance(values, pd.Series) and not isinstance(
        values.index, pd.RangeIndex) else None
