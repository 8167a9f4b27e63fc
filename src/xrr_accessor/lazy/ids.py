"""The identity rule of ids (:mod:`xrr_accessor.schema.ids`) over every partition.

Each partition's reader refuses the ids it holds that would merge; two partitions
can each pass and still hold ``1`` and ``"1"`` (or ``True`` and ``1``) between them,
ids that the in-memory reader refuses in one frame. These checks see the
partitions' ids together, as the in-memory reader sees the concatenated column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..engine.draws import item_keys
from ..errors import InputError
from ..io.tables import id_as_text
from ..schema.ids import one_kind_per_id
from ..schema.roles import Roles, resolve_roles
from ..schema.tables import Ids, distinct_text

__all__ = ["check_across", "check_items_across", "item_probe"]


def _numbers(ix: pd.Index) -> bool:
    return isinstance(ix.dtype, np.dtype) and ix.dtype.kind in "iuf"


def _partition_of(sizes: Sequence[int]) -> Any:
    ends = np.cumsum(sizes)
    return lambda row: f"partition {int(np.searchsorted(ends, row, side='right'))}"


def check_across(indexes: Sequence[pd.Index], where: str) -> None:
    """The in-memory reader's id checks over the partitions' ids together.

    Ids that are numbers in every partition are numbers in one frame too (pandas
    concatenates them into one numeric column), so they pass as in memory.
    """
    if len(indexes) < 2 or all(_numbers(ix) for ix in indexes):
        return
    values = pd.Series(np.concatenate([np.asarray(ix, dtype=object) for ix in indexes]),
                       dtype=object)
    codes, uniques = pd.factorize(values)
    uniq = pd.Index(uniques, dtype=object)
    one_kind_per_id(values, codes, uniq, where, at=_partition_of([len(ix) for ix in indexes]))
    distinct_text(uniq, where)


def item_probe(items: pd.Index) -> tuple[str, pd.Index | None]:
    """What a partition's survey keeps of its item ids for :func:`check_items_across`:
    their kind, and the ids themselves unless they are all text (text partitions are
    compared through their item keys)."""
    kind = pd.api.types.infer_dtype(items, skipna=True)
    return kind, (None if kind in ("string", "empty") else items)


def check_items_across(kinds: Sequence[str], ids: Sequence[pd.Index | None],
                       keys: Sequence[np.ndarray | None], where: str) -> None:
    """The item ids of every partition (a :func:`item_probe` and the item keys each),
    refused as the in-memory reader refuses them in one column: ids of different
    types that are equal (``True`` and ``1``) or read the same (``1`` and ``"1"``)."""
    kinds_ = {k for k in kinds if k != "empty"}
    if len(kinds_) < 2 and not any(k.startswith("mixed") for k in kinds_):
        return  # one plain kind everywhere: each partition's own check is the whole check
    held = [ix for ix in ids if ix is not None]
    check_across(held, where)
    texts = [k for k, ix in zip(keys, ids, strict=True) if ix is None and k is not None]
    if not held or not texts:
        return
    # As the eager reader shows them: a file of numbers beside files of text is made
    # text (3.0 -> "3", io.tables.same_id_kinds); a column of mixed types keeps str().
    pairs = {(v, id_as_text(v) if _numbers(ix) else str(v)) for ix in held
             for v in pd.unique(np.asarray(ix, dtype=object)) if not isinstance(v, str)}
    other = pd.Index([v for v, _ in pairs], dtype=object)
    shown = pd.Index([t for _, t in pairs], dtype=object)
    hit = np.flatnonzero(np.isin(item_keys(shown), np.concatenate(texts)))
    if len(hit):
        v, text = other[hit[0]], shown[hit[0]]
        raise InputError(
            f"{where} holds ids of different types that read the same ({v!r} in one "
            f"partition and {text!r} in another), which every table, page and file would "
            "show as one. Make them one type in every file or partition, e.g. "
            "ddf[item] = ddf[item].astype(str) (or map them to distinct names).")


def check_source(data: Any, roles: dict[str, Any]) -> None:
    """``dd.from_pandas(df)``: the id columns of ``df`` checked as in memory.

    dask converts object columns to text when it makes partitions of a pandas frame
    (``dataframe.convert-string``): ``1`` and ``"1"``, or a list, become the same
    text in every partition, past the readers' checks. The frame is in memory,
    so its id columns are checked before that, as ``read`` checks them; a
    frame filtered or transformed after ``from_pandas`` is checked per partition only.
    """
    expr = getattr(data, "expr", None)
    if type(expr).__name__ != "FromPandas":
        return
    frame = getattr(getattr(expr, "frame", None), "_data", None)
    if not isinstance(frame, pd.DataFrame):
        return
    index = frame.index.name
    names = [*frame.columns, *([index] if index is not None else [])]
    found = resolve_roles(names, Roles.from_kwargs(roles), "column")
    for role in ("item", "rater", "replication"):
        col = found.get(role)
        values = (frame[col] if col in frame.columns else frame.index if col == index
                  else None)
        if values is not None and values.dtype == object:
            Ids.factorize(values, f"column {col!r}", col)
