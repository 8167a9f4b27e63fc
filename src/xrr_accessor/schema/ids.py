"""One identity rule for ids, in every path: ids of different kinds never become one id.

Python (and so pandas' factorize, groupby and index unions) treats ``True``,
``1`` and ``1.0`` as equal: three ids of different types would silently become
one item, rater or replication. Text never equals a number, but prints like one
(``1`` and ``"1"``), and every table, page and file shows ids as text:
:func:`~xrr_accessor.schema.tables.distinct_text` refuses those. This module
refuses the first case, naming the rows: the ids may be different things, which
only the caller knows. The eager reader, each dask partition and the merge of
the partitions' surveys all call it, so every path refuses the same ids.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["id_kind", "one_kind_per_id"]

#: What ``pd.api.types.infer_dtype`` says of values that may hold equal ids of
#: different kinds (a number and a bool, an integer and a float).
_MIXED = frozenset({"mixed", "mixed-integer", "mixed-integer-float", "integer", "floating",
                    "boolean"})


def id_kind(value: Any) -> str:
    """The kind of an id, as the identity rule compares them.

    Examples
    --------
    >>> [id_kind(v) for v in (True, 1, 1.0, "1", None)]
    ['bool', 'integer', 'float', 'text', 'NoneType']
    """
    return _type_kind(type(value))


def _type_kind(t: type) -> str:
    if issubclass(t, bool | np.bool_):
        return "bool"
    if issubclass(t, int | np.integer):
        return "integer"
    if issubclass(t, float | np.floating):
        return "float"
    if issubclass(t, str):
        return "text"
    return t.__name__


def one_kind_per_id(values: Any, codes: np.ndarray, uniques: pd.Index, where: str,
                    column: Hashable | None = None,
                    at: Callable[[int], str] = "row {}".format) -> None:
    """An :class:`InputError` when one factorized id stands for values of different
    kinds (``True`` and ``1``, ``1`` and ``1.0``), naming two rows that hold them.

    ``values`` are the ids as given, ``codes`` and ``uniques`` what ``pd.factorize``
    made of them. Only an object column whose distinct ids include numbers or
    booleans can hold such a pair, so other columns cost nothing.

    Examples
    --------
    >>> import pandas as pd
    >>> v = pd.Series([1, True, 2], dtype=object)
    >>> codes, uniques = pd.factorize(v)
    >>> one_kind_per_id(v, codes, pd.Index(uniques), "column 'item'", "item")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: column 'item' holds ids of different types that are ...
    """
    if getattr(values, "dtype", None) is not np.dtype(object) or len(uniques) == len(values):
        return
    if pd.api.types.infer_dtype(uniques, skipna=True) not in _MIXED:
        return  # text (and other) ids never equal an id of another kind
    obj = np.asarray(values, dtype=object)
    if pd.api.types.infer_dtype(obj, skipna=True) not in _MIXED - {"integer", "floating",
                                                                    "boolean"}:
        return
    types, distinct = pd.factorize(pd.Series(obj).map(type).to_numpy())
    kinds, _ = pd.factorize(np.array([_type_kind(t) for t in distinct], dtype=object)[types])
    pairs = pd.DataFrame({"id": np.asarray(codes), "kind": kinds}).drop_duplicates()
    clash = pairs["id"].duplicated(keep=False)
    if not clash.any():
        return
    first = pairs[clash].iloc[:2]
    rows = [int(r) for r in first.index]
    a, b = obj[rows[0]], obj[rows[1]]
    fix = (f"df[{column!r}] = df[{column!r}].astype(str)" if column is not None
           else "convert them with .astype(str)")
    raise InputError(
        f"{where} holds ids of different types that are equal in Python ({a!r} in "
        f"{at(rows[0])} and {b!r} in {at(rows[1])}), so they would be merged into one id. Make "
        f"them one type, e.g. {fix} (then {str(a)!r} and {str(b)!r} stay apart), or map them "
        "to distinct names.")
